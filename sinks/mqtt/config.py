"""Config of the MQTT events sink: the broker keys every MQTT section shares, plus topics and queue."""

from __future__ import annotations

from pydantic import Field, model_validator

from fabricwatch.core import mqtt
from fabricwatch.sinks.mqtt.sink import MqttSink


class MqttConfig(mqtt.MqttBroker):
    name: str = "mqtt"
    topic_prefix: str = "fabricwatch"  # events on <prefix>/<site>/events/<kind>, status on <prefix>/<site>/status
    site: str = "default"
    qos: int = Field(1, ge=0, le=2)
    queue_max: int = Field(10_000, ge=10)  # events held while the broker is away; overflow is counted

    @model_validator(mode="after")
    def _check(self) -> MqttConfig:
        if "#" in self.topic_prefix or "+" in self.topic_prefix:
            raise ValueError("topic_prefix cannot hold MQTT wildcards")
        return self

    async def check(self) -> str | None:
        return await mqtt.reachable(self, f"{self.client_id}-check")

    def build(self) -> MqttSink:
        return MqttSink(self)
