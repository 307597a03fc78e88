"""Self-metrics of the batching storage sinks (InfluxDB, Prometheus remote write): queue, spool, points written,
retried and dropped."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from fabricwatch.sinks.batching import BatchingSink


class SinkMetrics(Collector):
    """One collector for every batching sink, whatever its kind: the series carry the sink's name."""

    def __init__(self, sinks: Sequence[BatchingSink]) -> None:
        self.sinks = sinks

    def collect(self) -> Iterator[Metric]:
        sinks = self.sinks
        depth = GaugeMetricFamily("fabricwatch_sink_queue_points", "Points waiting (memory + spool)",
                                  labels=["sink"])
        spool_bytes = GaugeMetricFamily("fabricwatch_spool_bytes", "Bytes in the on-disk spool",
                                        labels=["sink"])
        spool_points = GaugeMetricFamily("fabricwatch_spool_points", "Points in the on-disk spool",
                                         labels=["sink"])
        written = CounterMetricFamily("fabricwatch_points_written", "Points the server accepted",
                                      labels=["sink"])
        retried = CounterMetricFamily("fabricwatch_points_retried",
                                      "Points in sends that failed and were retried", labels=["sink"])
        dropped = CounterMetricFamily("fabricwatch_points_dropped",
                                      "Points lost: spool bound reached or rejected by the server",
                                      labels=["sink", "reason"])
        werr = CounterMetricFamily("fabricwatch_sink_write_errors", "Failed writes by status",
                                   labels=["sink", "status"])
        success = GaugeMetricFamily("fabricwatch_sink_last_success_timestamp_seconds",
                                    "Unix time of the last accepted write", labels=["sink"])
        held = GaugeMetricFamily("fabricwatch_sink_held_points",
                                 "Points held in memory because the spool's disk refuses writes", labels=["sink"])
        disk = GaugeMetricFamily("fabricwatch_spool_disk_full", "1 while the spool cannot write", labels=["sink"])
        rejected = CounterMetricFamily("fabricwatch_points_rejected",
                                       "Points the server refused for good, by its reason", labels=["sink", "reason"])
        for s in sinks:
            held.add_metric([s.name], s.held_points)
            disk.add_metric([s.name], 1.0 if s.stats.disk_full else 0.0)
            depth.add_metric([s.name], s.queue_depth)
            spool_bytes.add_metric([s.name], s.spool.pending_bytes)
            spool_points.add_metric([s.name], s.spool.pending_points)
            written.add_metric([s.name], s.stats.points_written)
            retried.add_metric([s.name], s.stats.points_retried)
            dropped.add_metric([s.name, "spool_full"], s.spool.stats.dropped_points)
            dropped.add_metric([s.name, "rejected"], s.stats.points_rejected)
            dropped.add_metric([s.name, "disk_full"], s.stats.points_dropped_memory)
            for status, n in s.stats.write_errors.items():
                werr.add_metric([s.name, status], n)
            success.add_metric([s.name], s.stats.last_success_unix)
            for reason, n in s.stats.rejected_reasons.items():
                rejected.add_metric([s.name, reason], n)
        yield from (held, disk, depth, spool_bytes, spool_points, written, retried, dropped, werr, success, rejected)
