"""fabricwatch's own metrics, on its own CollectorRegistry (never the global one).

Every component registers its own prometheus_client Collector (targets, rate engine, each sink
kind, detector, NCCL); hot-path numbers are plain counters on the components, read at scrape
time, so collecting costs nothing per sample. The two histograms are the runner's own.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.registry import Collector


class SelfMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.batch_seconds = Histogram(
            "fabricwatch_batch_processing_seconds",
            "Time to run one batch through the pipeline and hand it to the sinks",
            ["collector"],
            buckets=(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0),
            registry=self.registry,
        )
        self.poll_seconds = Histogram(
            "fabricwatch_session_seconds",
            "How long a target session lasted before it ended or failed",
            ["collector"],
            buckets=(1, 10, 60, 600, 3600, 86400),
            registry=self.registry,
        )

    def register(self, collector: Collector) -> None:
        self.registry.register(collector)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
