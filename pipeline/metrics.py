"""`fabricwatch_pipeline_events_total`: what the rate engine met (wraps, resets, gaps...);
`fabricwatch_samples_refused_total`: samples of ports beyond a device's bound, dropped."""

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
                                   "Rate-engine events: wraps, resets, reboots, gaps, out-of-order, saturations, "
                                   "NaN or infinite readings dropped",
                                   labels=["event"])
        for event in ("wraps", "resets", "reboots", "gaps", "out_of_order", "saturated", "bad_values"):
            pipe.add_metric([event], getattr(rates, event))
        yield pipe


class RefusedSampleMetrics(Collector):
    def __init__(self, refused: dict[str, int]) -> None:
        self.refused = refused  # device -> samples dropped (the pipeline's own dict, read at scrape)

    def collect(self) -> Iterator[Metric]:
        fam = CounterMetricFamily("fabricwatch_samples_refused",
                                  "Samples of ports a device named beyond [pipeline] max_ports_per_device, dropped",
                                  labels=["device"])
        for device, n in sorted(self.refused.items()):
            fam.add_metric([device], n)
        yield fam
