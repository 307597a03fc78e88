"""`fabricwatch_worker_*`: each collector worker process, its targets, restarts, kills and CPU."""

from __future__ import annotations

import time
from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector as MetricsCollector

from fabricwatch.daemon.worker_pool import WorkerPool


class WorkerMetrics(MetricsCollector):
    """One series of each per worker of the pool."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("fabricwatch_worker_up", "1 if the worker process runs", labels=["worker"])
        targets = GaugeMetricFamily("fabricwatch_worker_targets", "Targets the worker runs", labels=["worker"])
        restarts = CounterMetricFamily("fabricwatch_worker_restarts", "Times the worker died (or was killed) and "
                                       "was started again", labels=["worker"])
        hangs = CounterMetricFamily("fabricwatch_worker_hangs", "Times the worker sent nothing for worker_timeout "
                                    "and was killed", labels=["worker"])
        bad = CounterMetricFamily("fabricwatch_worker_bad_frames", "Times the worker sent a malformed or oversized "
                                  "frame and was killed", labels=["worker"])
        heard = GaugeMetricFamily("fabricwatch_worker_heartbeat_age_seconds", "Seconds since the daemon last "
                                  "heard from the worker", labels=["worker"])
        cpu = CounterMetricFamily("fabricwatch_worker_cpu_seconds", "User + system CPU of the worker process "
                                  "since it last started", labels=["worker"])
        now = time.monotonic()
        for w in self.pool.workers:
            label = [str(w.index)]
            up.add_metric(label, 1.0 if w.up else 0.0)
            targets.add_metric(label, len(w.keys))
            restarts.add_metric(label, w.restarts)
            hangs.add_metric(label, w.hangs)
            bad.add_metric(label, w.bad_frames)
            heard.add_metric(label, now - w.heard_monotonic if w.heard_monotonic else 0.0)
            cpu.add_metric(label, w.cpu_seconds())
        yield from (up, targets, restarts, hangs, bad, heard, cpu)
