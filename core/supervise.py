"""Long-running tasks that must outlive their own bugs: a crash is counted, logged and the task
restarted with backoff; it never propagates into the TaskGroup that runs the collectors."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from fabricwatch.core.backoff import Backoff

log = logging.getLogger("fabricwatch.supervisor")
RESTART = Backoff(initial=1.0, max=60.0)


class Supervised:
    """Runs `factory()` until it returns; restarts it after an exception (not after a return)."""

    def __init__(self, name: str, factory: Callable[[], Awaitable[None]], *,
                 backoff: Backoff = RESTART) -> None:
        self.name = name
        self.factory = factory
        self.backoff = backoff
        self.crashes = 0
        self.running = False
        self.restarting = False  # crashed and waiting to start again: what /readyz reports
        self.last_error = ""

    async def run(self) -> None:
        delays = self.backoff.delays()
        while True:
            self.running, self.restarting = True, False
            try:
                await self.factory()
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.crashes += 1
                self.restarting = True
                self.last_error = repr(exc)[:300]
                wait = delays.next()
                log.exception("task crashed; restarting", extra={"task": self.name, "crashes": self.crashes,
                                                                  "retry_in_s": round(wait, 2)})
            finally:
                self.running = False
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # asked to stop while it failed: stop
                raise asyncio.CancelledError
            await asyncio.sleep(wait)
