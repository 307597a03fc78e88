"""Self-metrics of the Slurm join and actions: reads, errors, jobs known, actions by outcome; and, for
the alerts, each flagged link's job count and first job ids."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from fabricwatch.slurm.service import SlurmService

FIRST_JOBS = 5  # ids in an alert's annotation: enough to start from, and one series per flagged link


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
        yield from _link_jobs(s)


def _link_jobs(s: SlurmService) -> Iterator[Metric]:
    """Only flagged links, only once Slurm was read: the series stay as few as the findings."""
    count = GaugeMetricFamily("fabricwatch_link_jobs", "Slurm jobs whose traffic a flagged link may carry",
                              labels=["device", "port"])
    info = GaugeMetricFamily("fabricwatch_link_jobs_info", f"The first {FIRST_JOBS} job ids (ascending) on a "
                             "flagged link with jobs, for alert annotations", labels=["device", "port", "first_jobs"])
    if s.index is not None:
        for device, port in s.flagged:
            jobs = s.index.on_link(device, port)
            count.add_metric([device, port], len(jobs))
            if jobs:
                info.add_metric([device, port, ",".join(j.id for j in jobs[:FIRST_JOBS])], 1.0)
    yield count
    yield info
