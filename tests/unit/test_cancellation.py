"""A stop must stop: a task cancelled just as what it awaits completes must still end. Python 3.11's
asyncio.wait_for returns the result and drops the cancellation then (fixed in 3.12): a daemon stop
that met a gNMI channel becoming ready, or an SNMP answer arriving, left that target's loop running
for ever (CI hung twice on it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fabricwatch.collectors.snmp.transport import FastV2c
from fabricwatch.core.backoff import Backoff
from fabricwatch.core.errors import TargetError
from fabricwatch.core.supervise import Supervised


async def test_an_snmp_exchange_cancelled_as_its_answer_arrives_is_cancelled() -> None:
    agent = FastV2c("dev", "127.0.0.1", 9, b"public", timeout=5.0, retries=0)
    await agent.open()
    try:
        task = asyncio.create_task(agent.exchange(7, b"request"))
        await asyncio.sleep(0.01)  # sent; waiting for the answer
        fut = agent._pending[7]
        fut.set_result("answer")  # the answer lands ...
        task.cancel()  # ... in the same instant the daemon stops
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        await agent.close()


class SwallowingCollector:
    """A collector whose library eats one cancellation (as wait_for did) and then fails."""

    kind, device, key = "fake", "dev", "fake:x:dev"
    cfg = type("Cfg", (), {"backoff": Backoff(initial=0.01, max=0.02), "name": "x"})()

    def __init__(self) -> None:
        self.sessions = 0

    async def __aenter__(self) -> SwallowingCollector:
        self.sessions += 1
        if self.sessions > 1:
            await asyncio.sleep(3600)  # a later session (reached only if the loop ignored the stop) cancels normally
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            pass  # swallowed, once
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def stream(self):  # type: ignore[no-untyped-def]
        raise TargetError("auth", "wrong password")
        yield

    def activity(self) -> dict[str, float]:
        return {}


async def test_a_target_loop_ends_when_cancelled_even_if_a_library_swallowed_it(tmp_path: Path) -> None:
    from fabricwatch.daemon.config import parse
    from fabricwatch.daemon.runner import Runner
    from fabricwatch.daemon.status import TargetStatus

    runner = Runner(parse({"sinks": {"influxdb": [{"database": "x", "spool": {"dir": str(tmp_path)}}]}},
                          "<test>"))
    collector = SwallowingCollector()
    status = TargetStatus("fake", "x", "dev", "127.0.0.1:1")
    task = asyncio.create_task(runner.tasks.local(collector, status))  # type: ignore[arg-type]
    await asyncio.sleep(0.02)  # inside __aenter__
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=2.0)
    if task not in done:
        task.cancel()
    assert task in done, "the target loop went on after it was cancelled"
    assert task.cancelled() and collector.sessions == 1


async def test_a_supervised_task_ends_when_cancelled_even_if_it_swallowed_it() -> None:
    runs = 0

    async def body() -> None:
        nonlocal runs
        runs += 1
        if runs > 1:
            await asyncio.sleep(3600)  # a later run (reached only if the stop was lost): cancellable, so the test ends
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            pass  # swallowed, once
        raise RuntimeError("then it failed")

    sup = Supervised("x", body, backoff=Backoff(initial=0.01, max=0.02))
    task = asyncio.create_task(sup.run())
    await asyncio.sleep(0.02)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=2.0)
    if task not in done:
        task.cancel()
    assert task in done and runs == 1, "the supervisor restarted a task that was cancelled"
