"""Live state of each collector target, read by /metrics, /api and the demo view."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from fabricwatch.core.supervise import Supervised


@dataclass(slots=True)
class TargetStatus:
    collector: str  # kind, e.g. "gnmi"
    name: str  # the config section's name
    device: str
    address: str
    up: bool = False
    connects: int = 0
    last_update_unix: float = 0.0
    samples: int = 0
    values: int = 0
    unmapped: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    # what the collector counts of its own (requests, garbage datagrams, overruns...), cumulative
    activity: dict[str, float] = field(default_factory=dict)
    last_error: str = ""
    since_unix: float = field(default_factory=time.time)  # when the daemon took the target on

    def data_age(self, now: float) -> float:
        """Seconds since the daemon last got a batch from the target (since it took it on, if never)."""
        return max(0.0, now - (self.last_update_unix or self.since_unix))

    def error(self, kind: str, message: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        self.last_error = f"{kind}: {message}"[:300]
        self.up = False


class TargetMetrics(Collector):
    """`fabricwatch_target_*`: one series per target the daemon runs now (removed targets vanish)."""

    def __init__(self, targets: Callable[[], Iterable[TargetStatus]]) -> None:
        self.targets = targets

    def collect(self) -> Iterator[Metric]:
        targets = list(self.targets())
        up = GaugeMetricFamily("fabricwatch_target_up", "1 if the target's session delivers data",
                               labels=["collector", "name", "device"])
        last = GaugeMetricFamily("fabricwatch_target_last_update_timestamp_seconds",
                                 "Unix time of the last batch from the target",
                                 labels=["collector", "name", "device"])
        # an age, not only a timestamp: a target that says up while nothing arrives (a hung worker) shows
        age = GaugeMetricFamily("fabricwatch_target_data_age_seconds",
                                "Seconds since the daemon last got data from the target (since it took the "
                                "target on, if never)", labels=["collector", "name", "device"])
        samples = CounterMetricFamily("fabricwatch_samples_ingested", "Port samples ingested",
                                      labels=["collector", "name", "device"])
        values = CounterMetricFamily("fabricwatch_counter_values_ingested",
                                     "Counter values ingested", labels=["collector", "name", "device"])
        unmapped = CounterMetricFamily("fabricwatch_unmapped_updates",
                                       "Updates whose path maps to no canonical counter",
                                       labels=["collector", "name", "device"])
        connects = CounterMetricFamily("fabricwatch_target_connects", "Sessions opened",
                                       labels=["collector", "name", "device"])
        errors = CounterMetricFamily("fabricwatch_target_errors", "Target failures by kind",
                                     labels=["collector", "name", "device", "kind"])
        activity = CounterMetricFamily("fabricwatch_target_activity",
                                       "What a collector counts of its own work: polls, requests, "
                                       "undecodable datagrams, rows read, overruns, name refreshes",
                                       labels=["collector", "name", "device", "what"])
        now = time.time()
        for t in targets:
            lbl = [t.collector, t.name, t.device]
            up.add_metric(lbl, 1.0 if t.up else 0.0)
            last.add_metric(lbl, t.last_update_unix)
            age.add_metric(lbl, round(t.data_age(now), 3))
            samples.add_metric(lbl, t.samples)
            values.add_metric(lbl, t.values)
            unmapped.add_metric(lbl, t.unmapped)
            connects.add_metric(lbl, t.connects)
            for kind, n in t.errors.items():
                errors.add_metric([*lbl, kind], n)
            for what, count in t.activity.items():
                activity.add_metric([*lbl, what], count)
        yield from (up, last, age, samples, values, unmapped, connects, errors, activity)


class ServiceMetrics(Collector):
    """`fabricwatch_task_*`: the supervised tasks beside the targets (ingest services, detector)."""

    def __init__(self, services: Callable[[], Iterable[Supervised]]) -> None:
        self.services = services

    def collect(self) -> Iterator[Metric]:
        crashes = CounterMetricFamily("fabricwatch_task_crashes", "Crashes of a supervised task (it is restarted)",
                                      labels=["task"])
        restarting = GaugeMetricFamily("fabricwatch_task_restarting", "1 while a crashed task waits to restart",
                                       labels=["task"])
        for s in self.services():
            crashes.add_metric([s.name], s.crashes)
            restarting.add_metric([s.name], 1.0 if s.restarting else 0.0)
        yield from (crashes, restarting)
