"""One target's life: connect, stream batches, and on failure count, tell, back off and retry; the
same loop whether the target runs in the daemon's process or in a worker process."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fabricwatch.core.batch import SampleBatch
from fabricwatch.core.errors import TargetError
from fabricwatch.core.protocols import Collector
from fabricwatch.daemon.status import TargetStatus

log = logging.getLogger("fabricwatch.runner")

Deliver = Callable[[SampleBatch], Awaitable[None]]
Emit = Callable[[str, dict[str, Any]], None]


def still_wanted() -> None:
    """Raise CancelledError when this task was asked to stop: a library that swallowed the
    cancellation (3.11's wait_for did) must not keep a stopping daemon's loop going for ever."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def account(status: TargetStatus, batch: SampleBatch) -> None:
    """What a batch says about its target: samples, unmapped updates, partial failures."""
    for kind, message in batch.problems:
        status.errors[kind] = status.errors.get(kind, 0) + 1
        status.last_error = f"{kind}: {message}"[:300]
        log.warning("part of a poll failed", extra={"collector": batch.collector, "device": batch.device,
                                                    "kind": kind, "error": message})
    status.last_update_unix = time.time()
    status.samples += len(batch.samples)
    status.unmapped += batch.unmapped


async def run_target(collector: Collector, status: TargetStatus, *, deliver: Deliver, emit: Emit,
                     polled: Callable[[float], None]) -> None:
    """Until cancelled. `deliver` takes each batch (after `account`), `emit` tells up/down
    transitions, `polled` gets each session's (or failed attempt's) duration in seconds."""
    delays = collector.cfg.backoff.delays()
    while True:
        started = time.monotonic()
        try:
            async with collector:
                status.connects += 1
                async for batch in collector.stream():
                    if not status.up:
                        log.info("target up", extra={"target": collector.key})
                        emit("collector", {"device": collector.device, "collector": collector.kind,
                                           "name": collector.cfg.name, "state": "up"})
                    status.up = True
                    delays.reset()
                    account(status, batch)
                    await deliver(batch)
                    status.activity = collector.activity()
            raise TargetError("closed", "session ended")
        except asyncio.CancelledError:
            status.up = False
            raise
        except TargetError as exc:
            if status.up or not status.errors:  # a transition, not every retry
                emit("collector", {"device": collector.device, "collector": collector.kind,
                                   "name": collector.cfg.name, "state": "down", "error": exc.kind,
                                   "detail": str(exc)})
            status.error(exc.kind, str(exc))
            log.warning("target failed", extra={"target": collector.key, "kind": exc.kind, "error": str(exc)})
        except Exception as exc:  # a bug or a surprise must not stop the other targets
            status.error("internal", repr(exc))
            log.exception("target loop error", extra={"target": collector.key})
        status.activity = collector.activity()  # a failing target's own counts matter most
        polled(time.monotonic() - started)
        still_wanted()
        await asyncio.sleep(delays.next())
