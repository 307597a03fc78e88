"""The targets a daemon polls, on their own (what a cluster member starts and stops, what SIGHUP changes):
one task each, a batch handed to the ingest, a stopped target forgotten (fakes, no daemon)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from fabricwatch.cluster.member import Targets
from fabricwatch.core.backoff import Backoff
from fabricwatch.core.batch import SampleBatch
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.daemon.target_tasks import TargetTasks


@dataclass
class Settings:
    name: str = "lab"
    backoff: Backoff = field(default_factory=lambda: Backoff(initial=0.05, max=0.1))


class FakeCollector:
    """One batch a session, then quiet until cancelled."""

    kind = "fake"

    def __init__(self, device: str, version: str = "1") -> None:
        self.device, self.version = device, version
        self.address = f"{device}:1"
        self.cfg = Settings()

    @property
    def key(self) -> str:
        return f"fake:lab:{self.device}"

    def fingerprint(self) -> str:
        return self.version

    async def __aenter__(self) -> FakeCollector:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def stream(self) -> AsyncIterator[SampleBatch]:
        yield SampleBatch(self.kind, self.device, [])
        await asyncio.Event().wait()

    def activity(self) -> dict[str, float]:
        return {}


class Ingest:
    def __init__(self) -> None:
        self.batches: list[str] = []

    async def handle(self, batch: SampleBatch, status: TargetStatus | None = None, *, target: str = "",
                     accounted: bool = False) -> None:
        self.batches.append(target)


async def until(cond: object) -> None:
    for _ in range(100):
        if callable(cond) and cond():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached")


async def test_a_cluster_member_starts_and_stops_targets_through_it() -> None:
    ingest, forgotten, statuses = Ingest(), list[str](), dict[str, TargetStatus]()
    tasks = TargetTasks(statuses, ingest=ingest, emit=lambda kind, payload: None, polled=lambda kind, s: None,
                        forget=forgotten.append)
    member_view: Targets = tasks  # what ClusterMember is given (mypy checks the fit)
    a, b = FakeCollector("leaf-1"), FakeCollector("leaf-2")
    async with asyncio.TaskGroup() as tg:
        tasks.attach(tg, {a.key: a, b.key: b})
        assert member_view.all_targets() == {a.key: "leaf-1", b.key: "leaf-2"} and member_view.polling() == set()
        await member_view.start_polling(a.key)
        await member_view.start_polling("fake:lab:not-configured")
        await until(lambda: ingest.batches == [a.key])
        assert tasks.polling() == {a.key} and statuses[a.key].up
        await member_view.stop_polling(a.key)
        assert tasks.polling() == set() and a.key not in statuses and forgotten == [a.key]
        tasks.closing = True  # the daemon stops: nothing new starts
        await tasks.start_polling(b.key)
        assert tasks.polling() == set()


async def test_a_reload_restarts_what_changed_and_forgets_what_went() -> None:
    ingest, forgotten = Ingest(), list[str]()
    tasks = TargetTasks({}, ingest=ingest, emit=lambda kind, payload: None, polled=lambda kind, s: None,
                        forget=forgotten.append)
    kept, changed, gone = FakeCollector("leaf-1"), FakeCollector("leaf-2"), FakeCollector("leaf-3")
    async with asyncio.TaskGroup() as tg:
        tasks.attach(tg, {})
        for c in (kept, changed, gone):
            tasks.start(c)
        await until(lambda: len(ingest.batches) == 3)
        new = FakeCollector("leaf-4")
        wanted = {kept.key: kept, changed.key: FakeCollector("leaf-2", version="2"), new.key: new}
        added, removed, restarted = await tasks.apply(wanted, start_new=True)
        assert (added, removed, restarted) == ([new.key], [gone.key], [changed.key]) and forgotten == [gone.key]
        await until(lambda: len(ingest.batches) == 5)  # the changed target's new session and the new one
        assert sorted(ingest.batches) == sorted([kept.key, changed.key, gone.key, changed.key, new.key])
        assert (await tasks.apply(wanted, start_new=False)) == ([], [], [])
        tasks.cancel_all()
