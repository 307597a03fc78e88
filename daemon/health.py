"""Whether the daemon is ready, and since when it runs: what /healthz and /readyz answer."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from fabricwatch.core.supervise import Supervised


class MayBeUnready(Protocol):
    """A part that can hold the daemon back on its own (a cluster member cut off from etcd, a worker
    process restarting)."""

    def not_ready(self) -> str | None: ...


class Health:
    """Ready while the runtime says it runs and no supervised task waits to restart after a crash."""

    def __init__(self, supervised: Callable[[], Iterable[Supervised]], also: Sequence[MayBeUnready] = ()) -> None:
        self.supervised = supervised
        self.also = also
        self.ready = False  # set by the runtime once its targets are started, cleared when it stops
        self.started_unix = time.time()

    def not_ready(self) -> str | None:
        """Why the daemon is not ready, or None: starting or stopping, or a task waiting to restart."""
        if not self.ready:
            return "starting or stopping"
        down = [s.name for s in self.supervised() if s.restarting]
        if down:
            return f"restarting after a crash: {', '.join(down)}"
        return next((why for part in self.also if (why := part.not_ready()) is not None), None)
