"""What the daemon lets go of: the ports of a removed target, and ports no target reported for a while."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger("fabricwatch.runner")
Port = tuple[str, str]


class PortMemory(Protocol):
    """The pipeline's per-port state: rates, latest view, tag cache."""

    def forget_target(self, target: str) -> list[Port]: ...

    def expire(self, before_ns: int) -> list[Port]: ...


class LinkMemory(Protocol):
    """The detector's per-link state."""

    def forget(self, keys: list[Port]) -> None: ...


class Forgetting:
    def __init__(self, ports: PortMemory, links: LinkMemory | None, forget_after: Callable[[], float]) -> None:
        self.ports, self.links, self.forget_after = ports, links, forget_after

    def target(self, key: str) -> None:
        """Drop everything kept for a removed target: its ports' rates, latest view, tag cache and
        detector state (ports another target still reports stay)."""
        ports = self.ports.forget_target(key)
        if self.links is not None:
            self.links.forget(ports)
        log.info("target forgotten", extra={"target": key, "ports": len(ports)})

    async def run(self) -> None:
        """Ports not heard of for `pipeline.forget_after` leave memory, /api/links and the detector."""
        while True:
            await asyncio.sleep(min(60.0, self.forget_after() / 4))
            gone = self.ports.expire(time.time_ns() - int(self.forget_after() * 1e9))
            if gone:
                if self.links is not None:
                    self.links.forget(gone)
                log.info("ports forgotten after silence", extra={"ports": len(gone)})
