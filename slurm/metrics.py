"""Self-metrics of the Slurm join and actions: reads, errors, jobs known, actions by outcome."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from fabricwatch.slurm.service import SlurmService


class SlurmMetrics(Collector):
    def __init__(self, service: SlurmService) -> None:
        self.service = service

    def collect(self) -> Iterator[Metric]:
        s = self.service
        yield GaugeMetricFamily("fabricwatch_slurm_up", "1 when the last read of Slurm's jobs succeeded",
                                value=0.0 if s.last_error is not None or s.index is None else 1.0)
        yield CounterMetricFamily("fabricwatch_slurm_reads", "Reads of Slurm's running jobs", value=s.reads)
        yield CounterMetricFamily("fabricwatch_slurm_read_errors", "Reads of Slurm's jobs that failed",
                                  value=s.errors)
        yield GaugeMetricFamily("fabricwatch_slurm_jobs", "Running jobs in the last read",
                                value=len(s.index.jobs) if s.index is not None else 0)
        yield GaugeMetricFamily("fabricwatch_slurm_last_read_timestamp_seconds", "When Slurm's jobs were last read",
                                value=s.read_unix)
        actions = CounterMetricFamily("fabricwatch_slurm_actions", "Drain decisions audited since start, by "
                                      "outcome: done, would (dry run), refused, failed", labels=["outcome"])
        for outcome in ("done", "would", "refused", "failed"):
            actions.add_metric([outcome], s.drainer.counts.get(outcome, 0))
        yield actions
