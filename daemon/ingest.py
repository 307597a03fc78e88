"""One batch from a target: through the pipeline, into storage, timed per collector kind."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from prometheus_client import Histogram

from fabricwatch.core.batch import SampleBatch
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.daemon.targets import account
from fabricwatch.pipeline.pipeline import Processed

Write = Callable[[list[str]], Awaitable[None]]


class Processes(Protocol):
    def process(self, batch: SampleBatch, *, target: str = "") -> Processed: ...


class Ingest:
    def __init__(self, pipeline: Processes, write: Write, batch_seconds: Histogram,
                 statuses: Mapping[str, TargetStatus]) -> None:
        self.pipeline, self.write, self.batch_seconds, self.statuses = pipeline, write, batch_seconds, statuses
        self._batch_timers: dict[str, Callable[[float], None]] = {}

    async def handle(self, batch: SampleBatch, status: TargetStatus | None = None, *, target: str = "",
                     accounted: bool = False) -> None:
        """One batch from `target` (its key): through the pipeline, into the sinks. `accounted`: the
        target's loop already counted its samples and problems into `status`."""
        t0 = time.perf_counter()
        processed = self.pipeline.process(batch, target=target)
        if status is not None:
            if not accounted:
                account(status, batch)
            status.values += processed.values
        await self.write(processed.lines)
        observe = self._batch_timers.get(batch.collector)
        if observe is None:  # the labelled child once per collector kind, not a lookup per batch
            observe = self._batch_timers[batch.collector] = self.batch_seconds.labels(batch.collector).observe
        observe(time.perf_counter() - t0)

    async def from_worker(self, key: str, batch: SampleBatch) -> None:
        """A batch a worker process read for target `key` (it counted the batch into the status it sent)."""
        await self.handle(batch, self.statuses.get(key), target=key, accounted=True)
