"""Config of the MQTT events sink."""

from __future__ import annotations

from pydantic import Field, model_validator

from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import StrictModel
from fabricwatch.core.secrets import SecretRef
from fabricwatch.sinks.mqtt.sink import MqttSink


class MqttConfig(StrictModel):
    name: str = "mqtt"
    host: str = "127.0.0.1"
    port: int = Field(1883, ge=1, le=65535)
    username: str | None = None
    password: SecretRef | None = None
    client_id: str = "fabricwatch"
    topic_prefix: str = "fabricwatch"  # events on <prefix>/<site>/events/<kind>, status on <prefix>/<site>/status
    site: str = "default"
    qos: int = Field(1, ge=0, le=2)
    queue_max: int = Field(10_000, ge=10)  # events held while the broker is away; overflow is counted
    backoff: Backoff = Backoff(initial=0.5, max=30.0)

    @model_validator(mode="after")
    def _check(self) -> MqttConfig:
        if self.password is not None and self.username is None:
            raise ValueError("password given without username")
        if "#" in self.topic_prefix or "+" in self.topic_prefix:
            raise ValueError("topic_prefix cannot hold MQTT wildcards")
        return self

    async def check(self) -> str | None:
        import aiomqtt

        pw = self.password.resolve().get_secret_value() if self.password else None
        try:
            async with aiomqtt.Client(self.host, self.port, username=self.username, password=pw,
                                      identifier=f"{self.client_id}-check", timeout=5):
                return None
        except aiomqtt.MqttError as exc:
            return f"cannot reach MQTT broker {self.host}:{self.port}: {exc}"

    def build(self) -> object:
        return MqttSink(self)
