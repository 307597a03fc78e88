"""Prometheus remote-write sink: port_rates lines through the shared batching layer and spool, sent as
remote write 1.0 (snappy block-compressed protobuf) by RemoteWriter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabricwatch.sinks.batching import BatchingSink
from fabricwatch.sinks.prometheus_remote_write.encode import LINE_PREFIX
from fabricwatch.sinks.prometheus_remote_write.writer import PREPARED, RemoteWriter

if TYPE_CHECKING:
    from fabricwatch.sinks.prometheus_remote_write.config import RemoteWriteConfig


class RemoteWriteSink(BatchingSink):
    kind = "prometheus_remote_write"

    def __init__(self, cfg: RemoteWriteConfig) -> None:
        self.remote = RemoteWriter(cfg)
        super().__init__(cfg, self.remote)
        self.cfg: RemoteWriteConfig = cfg

    async def write(self, lines: list[str]) -> None:
        # only rates go to Prometheus (it computes nothing better from raw counters than the pipeline did):
        # the rest never reaches the buffer or the spool
        await super().write([line for line in lines if line.startswith(LINE_PREFIX)])

    def _formed(self, records: list[tuple[bytes, int]]) -> None:
        # only batches that are sent soon: behind a backlog (the server down) encoding now would be wasted
        if self.spool.pending_records + len(records) <= PREPARED:
            for payload, _ in records:
                self.remote.prepare(payload)

    @property
    def samples_written(self) -> int:
        """Samples the server took (a point is a port_rates line: a port's counters at one time)."""
        return self.remote.samples_written
