"""Self-metrics of the HTTP listener: what its guards refused."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector


class HttpMetrics(Collector):
    def __init__(self, refused: dict[str, int]) -> None:
        self.refused = refused

    def collect(self) -> Iterator[Metric]:
        refused = CounterMetricFamily("fabricwatch_http_refused",
                                      "Requests or connections the HTTP listener refused or closed, by reason (host: "
                                      "a Host this daemon is not; cross_site: a write from a page of another "
                                      "origin; header_timeout, body_timeout: too slow; max_connections: over "
                                      "the cap)",
                                      labels=["reason"])
        for reason, n in sorted(self.refused.items()):
            refused.add_metric([reason], n)
        yield refused
