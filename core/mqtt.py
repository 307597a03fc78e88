"""The one MQTT client factory (aiomqtt), for the events sink and the NCCL results subscriber.

aiomqtt is bounded below 3.0 in pyproject: 3.0 makes every argument keyword-only, turns `messages`
into a method and drops `MqttError`. Calls here already pass keywords only; `messages()` below
takes both shapes, so moving to 3.x touches this module alone.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiomqtt
from pydantic import Field, model_validator

from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import StrictModel
from fabricwatch.core.secrets import SecretRef, reveal
from fabricwatch.core.tls import TlsConfig

MqttError = aiomqtt.MqttError


class MqttBroker(StrictModel):
    """Where a broker is and how to log in: the same keys in every MQTT section."""

    host: str = "127.0.0.1"
    port: int = Field(1883, ge=1, le=65535)
    username: str | None = None
    password: SecretRef | None = None
    client_id: str = "fabricwatch"
    tls: TlsConfig = TlsConfig()  # enabled = true for mqtts (usually port 8883)
    keepalive: int = Field(60, ge=5, le=65535)
    backoff: Backoff = Backoff(initial=0.5, max=30.0)

    @model_validator(mode="after")
    def _login(self) -> MqttBroker:
        if self.password is not None and self.username is None:
            raise ValueError("password given without username")
        return self

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


class _Discards(logging.Filter):
    """Counts the messages aiomqtt drops when its bounded incoming queue is full.

    aiomqtt 2.x acknowledges a QoS 1 message to the broker before queueing it, then drops it with
    this one log line when the queue is full: the line is the only sign, so it is what is counted."""

    def __init__(self, on_discard: Callable[[], None]) -> None:
        super().__init__()
        self.on_discard = on_discard

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().startswith("Message queue is full"):
            self.on_discard()
        return True


def client(broker: MqttBroker, *, identifier: str | None = None, will: aiomqtt.Will | None = None,
           timeout: float = 10.0, max_queued_incoming: int | None = None,
           on_discard: Callable[[], None] | None = None) -> aiomqtt.Client:
    """A client for the broker (not yet connected: `async with` it). With `max_queued_incoming`,
    messages beyond the queue are dropped and each calls `on_discard`."""
    logger = None
    if on_discard is not None:
        logger = logging.Logger(f"fabricwatch.mqtt.{identifier or broker.client_id}")  # one per client
        logger.parent = logging.getLogger("fabricwatch.mqtt")
        logger.addFilter(_Discards(on_discard))
    return aiomqtt.Client(
        hostname=broker.host, port=broker.port, username=broker.username, password=reveal(broker.password),
        identifier=identifier or broker.client_id, will=will, timeout=timeout, keepalive=broker.keepalive,
        tls_context=broker.tls.context() if broker.tls.enabled else None,
        max_queued_incoming_messages=max_queued_incoming, logger=logger,
    )


def will(topic: str, payload: bytes, *, qos: int = 1, retain: bool = True) -> aiomqtt.Will:
    return aiomqtt.Will(topic, payload, qos=qos, retain=retain)


async def messages(c: aiomqtt.Client) -> AsyncIterator[Any]:
    """The client's incoming messages (aiomqtt 2.x: an attribute; 3.x: a method)."""
    source = c.messages
    iterator = source() if callable(source) else source
    async for message in iterator:
        yield message


async def reachable(broker: MqttBroker, identifier: str) -> str | None:
    """None if the broker accepts a session with these settings, else what went wrong."""
    try:
        async with client(broker, identifier=identifier, timeout=5.0):
            return None
    except MqttError as exc:
        return f"cannot reach MQTT broker {broker.address}: {exc}"
