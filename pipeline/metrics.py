"""`fabricwatch_pipeline_events_total`: what the rate engine met (wraps, resets, gaps...)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

from fabricwatch.pipeline.rates import RateStats


class RateMetrics(Collector):
    def __init__(self, rates: RateStats) -> None:
        self.rates = rates

    def collect(self) -> Iterator[Metric]:
        rates = self.rates
        pipe = CounterMetricFamily("fabricwatch_pipeline_events",
                                   "Rate-engine events: wraps, resets, reboots, gaps, out-of-order, saturations",
                                   labels=["event"])
        for event in ("wraps", "resets", "reboots", "gaps", "out_of_order", "saturated"):
            pipe.add_metric([event], getattr(rates, event))
        yield pipe
