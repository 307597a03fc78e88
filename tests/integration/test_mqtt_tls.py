"""MQTT over TLS, against Mosquitto with a certificate the test makes: the events sink and the NCCL
subscriber verify the broker (verify on by default; a CA file makes a private CA work)."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import aiomqtt
import pytest

from fabricwatch.core.mqtt import MqttBroker, reachable
from fabricwatch.sinks.mqtt.config import MqttConfig
from fabricwatch.sinks.mqtt.sink import MqttSink
from tests.certs import self_signed
from tests.servers import Mosquitto

pytestmark = pytest.mark.integration


async def test_events_over_tls_verified_against_the_ca(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path, "localhost", ip="127.0.0.1")
    broker = Mosquitto(tmp_path / "mqtt", tls=(cert, key))
    broker.start()
    ctx = ssl.create_default_context(cafile=str(cert))
    got: list[bytes] = []
    try:
        # without our CA the broker's certificate is refused: no session, nothing sent in the clear
        plain = MqttBroker(port=broker.port, tls={"enabled": True})
        assert "cannot reach" in (await reachable(plain, "probe") or "")
        assert await reachable(MqttBroker(port=broker.port), "probe") is not None  # no TLS: refused too
        cfg = MqttConfig(port=broker.port, site="tls", tls={"enabled": True, "ca_file": str(cert)},
                         backoff={"initial": 0.1, "max": 0.5})
        assert await reachable(cfg, "probe") is None

        async def listen() -> None:
            async with aiomqtt.Client("127.0.0.1", broker.port, identifier="watcher", tls_context=ctx) as c:
                await c.subscribe("fabricwatch/tls/events/#", qos=1)
                async for m in c.messages:
                    got.append(bytes(m.payload))  # type: ignore[arg-type]
                    return

        watcher = asyncio.create_task(listen())
        await asyncio.sleep(0.5)
        sink = MqttSink(cfg)
        await sink.start()
        sink.event("link_finding", {"device": "leaf1", "port": "Eth1"})
        await asyncio.wait_for(watcher, 10)
        await sink.close()
        assert b'"device": "leaf1"' in got[0] and sink.published >= 1
    finally:
        broker.stop()


async def test_nccl_results_subscribed_over_tls(tmp_path: Path) -> None:
    from fabricwatch.nccl.config import NcclSection
    from fabricwatch.nccl.service import NcclService
    from tests.nccl_logs import render

    cert, key = self_signed(tmp_path, "localhost", ip="127.0.0.1")
    broker = Mosquitto(tmp_path / "mqtt", tls=(cert, key))
    broker.start()
    written: list[list[str]] = []

    async def write(lines: list[str]) -> None:
        written.append(lines)

    svc = NcclService(NcclSection(mqtt={"port": broker.port, "topic": "lab/nccl/#",
                                        "tls": {"enabled": True, "ca_file": str(cert)}}), write)
    task = asyncio.create_task(svc.subscribe())
    try:
        await asyncio.sleep(1.0)
        ctx = ssl.create_default_context(cafile=str(cert))
        log = render("all_reduce", ["n1", "n2"], 2, {1 << 20: 10.0, 1 << 24: 20.0})
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="harness", tls_context=ctx) as c:
            await c.publish("lab/nccl/run1", log.encode(), qos=1)
        for _ in range(50):
            if svc.ingested_runs:
                break
            await asyncio.sleep(0.1)
        assert svc.ingested_runs == 1 and written and svc.rejected == 0
    finally:
        task.cancel()
        broker.stop()
