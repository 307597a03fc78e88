"""Waiting for a state another process reaches, not for a fixed time: a loaded machine gets there later."""

from __future__ import annotations

import time
from collections.abc import Callable


def until(what: str, ok: Callable[[], bool], timeout: float = 60.0) -> None:
    """Poll `ok` until it is true; a server not answering yet (OSError), a half-written answer
    (ValueError) or one without the key yet (KeyError) counts as not yet."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if ok():
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"not {what} within {timeout} s")
