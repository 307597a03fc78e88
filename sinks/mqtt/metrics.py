"""Self-metrics of the MQTT events sinks: connected, events published, queued and dropped."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from fabricwatch.sinks.mqtt.sink import MqttSink


class MqttSinkMetrics(Collector):
    def __init__(self, sinks: Sequence[MqttSink]) -> None:
        self.sinks = sinks

    def collect(self) -> Iterator[Metric]:
        connected = GaugeMetricFamily("fabricwatch_mqtt_connected", "1 while the sink has a broker session",
                                      labels=["sink"])
        published = CounterMetricFamily("fabricwatch_mqtt_events_published", "Events the broker acknowledged",
                                        labels=["sink"])
        queued = GaugeMetricFamily("fabricwatch_mqtt_queue_events", "Events waiting for the broker",
                                   labels=["sink"])
        dropped = CounterMetricFamily("fabricwatch_mqtt_events_dropped",
                                      "Events dropped because the queue was full (queue_max)", labels=["sink"])
        for s in self.sinks:
            connected.add_metric([s.name], 1.0 if s.connected else 0.0)
            published.add_metric([s.name], s.published)
            queued.add_metric([s.name], s.queue_depth)
            dropped.add_metric([s.name], s.overflow)
        yield from (connected, published, queued, dropped)
