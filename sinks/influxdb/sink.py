"""InfluxDB sink: the shared batching layer (sinks/batching.py) over a v1 or v2 writer."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from fabricwatch.sinks.batching import BatchingSink, SinkStats, WriteOutcome, Writer
from fabricwatch.sinks.influxdb.writers import V1Writer, V2Writer

if TYPE_CHECKING:
    from fabricwatch.sinks.influxdb.config import InfluxConfig

log = logging.getLogger("fabricwatch.sink.influxdb")

__all__ = ["InfluxSink", "SinkStats"]


class InfluxSink(BatchingSink):
    kind = "influxdb"

    def __init__(self, cfg: InfluxConfig, writer: Writer | None = None) -> None:
        super().__init__(cfg, writer or (V1Writer(cfg) if cfg.api == "v1" else V2Writer(cfg)))
        self.cfg: InfluxConfig = cfg

    async def _refused(self, outcome: WriteOutcome) -> bool:
        """v1: a missing database is created when the section allows it, else named in the error."""
        v1 = self.writer if isinstance(self.writer, V1Writer) else None
        if v1 is None or not outcome.blocked or outcome.status != 404:
            return False
        if self.cfg.create_database:
            problem = await v1.create_database()
            if problem is None:
                log.info("created the missing database", extra={"sink": self.name, "database": self.cfg.database})
                return True
            outcome.message += f"; CREATE DATABASE failed: {problem}"
        else:
            outcome.message = v1.missing_database_hint()
        return False
