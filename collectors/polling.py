"""What every polled collector (SNMP, UFM, ibdiag, host NIC) shares with the runner's contract."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from fabricwatch.core.batch import SampleBatch


class PolledCollector:
    """A target the runner drives: `async with` it, then iterate `stream()`, one batch a poll.

    Subclasses set `kind`, pass their section (with `name`, `interval`), device, address and tags
    up, and write `poll()`; `open()`/`close()` hold whatever a session needs."""

    kind: ClassVar[str]
    polls: int = 0

    def __init__(self, cfg: Any, device: str, address: str, tags: dict[str, str]) -> None:
        self.cfg = cfg
        self.device = device  # the target's name (what `shard` hashes)
        self.address = address
        self.tags = tags  # what every point of this target carries
        self.unmapped = 0  # values read that map to no canonical counter

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.cfg.name}:{self.device}"

    def fingerprint(self) -> str:
        """Changes when anything that affects this target's session changes (SIGHUP diff)."""
        return str(self.cfg.model_dump_json())

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def __aenter__(self) -> PolledCollector:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def poll(self) -> SampleBatch:
        raise NotImplementedError

    def first_delay(self) -> float:
        """Seconds to wait before the first poll (a phase, so a fleet does not poll in step)."""
        return 0.0

    async def stream(self) -> AsyncIterator[SampleBatch]:
        """One batch per poll, every interval; a poll longer than the interval starts the next at once."""
        loop = asyncio.get_running_loop()
        if not self.polls:
            await asyncio.sleep(self.first_delay())
        next_at = loop.time()
        while True:
            yield await self.poll()
            self.polls += 1
            next_at += self.cfg.interval
            now = loop.time()
            if next_at < now:
                self.overran()
                next_at = now
            await asyncio.sleep(next_at - now)

    def overran(self) -> None:
        """A poll took longer than the interval."""

    def activity(self) -> dict[str, float]:
        """Cumulative counts for /metrics (fabricwatch_target_activity_total{what=...})."""
        return {"polls": self.polls}
