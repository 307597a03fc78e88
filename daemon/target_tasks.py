"""The targets this daemon polls, one task each in the runtime's TaskGroup: what a SIGHUP changes and
what a cluster member starts and stops (it fits `cluster.member.Targets`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Protocol

from fabricwatch.core.batch import SampleBatch
from fabricwatch.core.protocols import Collector
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.daemon.targets import Emit, run_target

Changes = tuple[list[str], list[str], list[str]]  # keys added, removed, changed


class Delivers(Protocol):
    """Where a target's batches go (the pipeline and storage), after its loop counted them."""

    async def handle(self, batch: SampleBatch, status: TargetStatus | None = None, *, target: str = "",
                     accounted: bool = False) -> None: ...


class RemoteTargets(Protocol):
    """Collector worker processes: a target started there sends its batches back itself."""

    async def start_target(self, key: str) -> None: ...

    async def stop_target(self, key: str) -> None: ...


class TargetTasks:
    def __init__(self, statuses: dict[str, TargetStatus], *, ingest: Delivers, emit: Emit,
                 polled: Callable[[str, float], None], forget: Callable[[str], None],
                 workers: RemoteTargets | None = None) -> None:
        self.statuses = statuses  # key -> live status of every target polled now (what /api/targets shows)
        self.ingest, self.emit, self.polled, self.forget = ingest, emit, polled, forget
        self.workers = workers
        self.configured: dict[str, Collector] = {}  # every target of the config, polled or not
        self.closing = False  # the daemon stops: nothing new starts
        self._tasks: dict[str, tuple[str, asyncio.Task[None]]] = {}  # key -> (fingerprint, task)
        self._tg: asyncio.TaskGroup | None = None

    def attach(self, tg: asyncio.TaskGroup, configured: Mapping[str, Collector]) -> None:
        """The runtime's TaskGroup, in which target tasks run, and the config's targets."""
        self._tg, self.configured = tg, dict(configured)

    def __len__(self) -> int:
        return len(self._tasks)

    # -- what a cluster member asks --------------------------------------------------------------
    def all_targets(self) -> dict[str, str]:
        """Every target of the config: key -> device (what a cluster shares out)."""
        return {k: c.device for k, c in self.configured.items()}

    def polling(self) -> set[str]:
        return set(self._tasks)

    async def start_polling(self, key: str) -> None:
        if key not in self._tasks and key in self.configured and not self.closing:
            self.start(self.configured[key])

    async def stop_polling(self, key: str) -> None:
        if key in self._tasks:
            await self.stop(key)
            self.forget(key)

    # -- the tasks ---------------------------------------------------------------------------------
    def start(self, collector: Collector) -> None:
        assert self._tg is not None
        status = TargetStatus(collector.kind, collector.cfg.name, collector.device, collector.address)
        self.statuses[collector.key] = status
        loop = self._remote(collector.key) if self.workers is not None else self.local(collector, status)
        task = self._tg.create_task(loop, name=collector.key)
        self._tasks[collector.key] = (collector.fingerprint(), task)

    async def stop(self, key: str) -> None:
        _, task = self._tasks.pop(key)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        self.statuses.pop(key, None)

    def cancel_all(self) -> None:
        for _, task in self._tasks.values():
            task.cancel()

    async def apply(self, wanted: Mapping[str, Collector], *, start_new: bool) -> Changes:
        """A reloaded config's targets: removed ones stop and are forgotten, changed ones restart, and
        new ones start when `start_new` (in a cluster, the member that owns a new target starts it).
        Targets whose settings did not change keep their sessions. Returns (added, removed, changed)."""
        self.configured = dict(wanted)
        removed = [k for k in self._tasks if k not in wanted]
        changed = [k for k, c in wanted.items() if k in self._tasks and self._tasks[k][0] != c.fingerprint()]
        added = [k for k in wanted if k not in self._tasks] if start_new else []
        for key in removed + changed:
            await self.stop(key)
        for key in changed + added:
            self.start(wanted[key])
        for key in removed:
            self.forget(key)
        return added, removed, changed

    async def _remote(self, key: str) -> None:
        """A target run by a worker process: started there, stopped there when this is cancelled."""
        assert self.workers is not None
        await self.workers.start_target(key)
        try:
            await asyncio.Event().wait()
        finally:
            await self.workers.stop_target(key)

    async def local(self, collector: Collector, status: TargetStatus) -> None:
        """A target run in this process, until cancelled."""
        async def deliver(batch: SampleBatch) -> None:
            await self.ingest.handle(batch, status, target=collector.key, accounted=True)

        def polled(seconds: float) -> None:
            self.polled(collector.kind, seconds)

        await run_target(collector, status, deliver=deliver, emit=self.emit, polled=polled)
