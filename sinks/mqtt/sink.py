"""Events to MQTT (aiomqtt): JSON on <prefix>/<site>/events/<kind>, QoS 1; a retained status topic
with a last will, so subscribers see the daemon go offline even when it is killed."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fabricwatch.core import mqtt
from fabricwatch.sinks.mqtt.metrics import MqttSinkMetrics

if TYPE_CHECKING:
    from fabricwatch.sinks.mqtt.config import MqttConfig


log = logging.getLogger("fabricwatch.sink.mqtt")
SCHEMA = 1
PUBLISH_TIMEOUT_S = 5.0


class MqttSink:
    kind = "mqtt"

    def __init__(self, cfg: MqttConfig) -> None:
        self.cfg = cfg
        self.name = cfg.name
        self.base = f"{cfg.topic_prefix}/{cfg.site}"
        self.status_topic = f"{self.base}/status"
        self._queue: deque[tuple[str, bytes]] = deque()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.connected = False
        self.published = 0
        self.overflow = 0
        self.connects = 0

    @property
    def queue_depth(self) -> int:
        return len(self._queue)

    def _status(self, state: str) -> bytes:
        return json.dumps({"schema": SCHEMA, "state": state, "site": self.cfg.site, "host": socket.gethostname(),
                           "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}).encode()

    def event(self, kind: str, payload: dict[str, Any]) -> None:
        """Queue one event (never blocks the caller); the oldest is dropped, and counted, when full."""
        body = {"schema": SCHEMA, "kind": kind, "site": self.cfg.site,
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **payload}
        if len(self._queue) >= self.cfg.queue_max:
            self._queue.popleft()
            self.overflow += 1
        self._queue.append((f"{self.base}/events/{kind}", json.dumps(body, default=str).encode()))
        self._wake.set()

    @classmethod
    def metrics(cls, sinks: Sequence[MqttSink]) -> MqttSinkMetrics:
        return MqttSinkMetrics(sinks)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"sink:{self.name}")

    async def check(self) -> str | None:
        return await self.cfg.check()

    async def close(self) -> None:
        self._closing = True
        self._wake.set()
        if self._task is not None:
            try:
                async with asyncio.timeout(5.0):
                    await asyncio.shield(self._task)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
        if self._queue:
            log.warning("mqtt sink closed with events not sent", extra={"events": len(self._queue)})

    async def _run(self) -> None:
        cfg = self.cfg
        will = mqtt.will(self.status_topic, self._status("offline"))
        delays = cfg.backoff.delays()
        while True:
            try:
                async with mqtt.client(cfg, will=will) as client:
                    self.connected = True
                    self.connects += 1
                    delays.reset()
                    await client.publish(self.status_topic, self._status("online"), qos=1, retain=True)
                    log.info("mqtt connected", extra={"broker": cfg.address, "queued": len(self._queue)})
                    while True:
                        while self._queue:
                            topic, body = self._queue[0]
                            # a broker that vanished leaves a QoS 1 publish waiting for its PUBACK
                            # for ever: a deadline turns that into a reconnect
                            try:
                                async with asyncio.timeout(PUBLISH_TIMEOUT_S):
                                    await client.publish(topic, body, qos=cfg.qos)
                            except TimeoutError:
                                raise mqtt.MqttError("no PUBACK: broker gone") from None
                            self._queue.popleft()  # only once the broker has it
                            self.published += 1
                        if self._closing:
                            await client.publish(self.status_topic, self._status("offline"), qos=1, retain=True)
                            return
                        self._wake.clear()
                        await self._wake.wait()
            except mqtt.MqttError as exc:
                self.connected = False
                if self._closing:
                    return
                wait = delays.next()
                log.warning("mqtt disconnected", extra={"error": str(exc), "retry_in_s": round(wait, 2),
                                                        "queued": len(self._queue)})
                await asyncio.sleep(wait)
