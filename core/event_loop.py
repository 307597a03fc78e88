"""The event loop the daemon and its workers run on: uvloop (libuv) by default, asyncio's own on
request (`[daemon] event_loop = "asyncio"`)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Literal, TypeVar

T = TypeVar("T")
EventLoop = Literal["uvloop", "asyncio"]


def run(main: Coroutine[Any, Any, T], *, loop: EventLoop = "uvloop") -> T:
    """Run `main` to completion on a new event loop of that kind, as `asyncio.run` does."""
    factory = None
    if loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
