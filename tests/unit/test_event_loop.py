"""The daemon's event loop is the one its config names."""

from __future__ import annotations

import asyncio

import pytest
import uvloop

from fabricwatch.core import event_loop


async def _kind() -> type:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop())


def test_uvloop_by_default_and_asyncio_on_request() -> None:
    assert issubclass(event_loop.run(_kind()), uvloop.Loop)
    kind = event_loop.run(_kind(), loop="asyncio")
    assert not issubclass(kind, uvloop.Loop) and issubclass(kind, asyncio.BaseEventLoop)


def test_an_exception_in_main_reaches_the_caller() -> None:
    async def fail() -> None:
        raise LookupError("x")

    with pytest.raises(LookupError):
        event_loop.run(fail())
