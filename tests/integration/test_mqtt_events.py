"""MQTT events against a real Mosquitto: the schema, no QoS 1 event lost across a broker restart,
and the last will marking the daemon offline when it is killed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from fabricwatch.daemon.config import parse
from tests.conftest import ROOT
from tests.integration.helpers import start_runner, start_sim
from tests.servers import Mosquitto, free_port

pytestmark = pytest.mark.integration


async def collect(port: int, topic: str, into: list[tuple[str, dict[str, Any]]], stop: asyncio.Event) -> None:
    async with aiomqtt.Client("127.0.0.1", port, identifier=f"sub-{os.getpid()}-{id(into)}") as client:
        await client.subscribe(topic, qos=1)
        async for msg in client.messages:
            into.append((str(msg.topic), json.loads(msg.payload)))  # type: ignore[arg-type]
            if stop.is_set():
                return


def start_daemon(conf: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "fabricwatch", "run", "-c", str(conf)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def mqtt_sink(port: int) -> dict[str, Any]:
    return {"port": port, "site": "lab", "client_id": "fw-test", "backoff": {"initial": 0.5, "max": 1.0}}


async def test_events_schema_and_no_loss_across_broker_restart(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "mqtt")
    broker.start()
    sim = await start_sim(fabric={"nodes": 8, "rails": 2, "spines": 2}, faults=["pfc_storm:leaf-r0-0:swp2"])
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0", "site": "lab"},
        "detector": {"interval": "2s"},
        "collectors": {"gnmi": sim.daemon_collectors(0.5)},
        "sinks": {"influxdb": [{"database": "x", "url": f"http://127.0.0.1:{free_port()}",
                                "spool": {"dir": str(tmp_path / "spool")}}],
                  "mqtt": [mqtt_sink(broker.port)]},
    }, "<test>")
    got: list[tuple[str, dict[str, Any]]] = []
    stop = asyncio.Event()
    sub = asyncio.create_task(collect(broker.port, "fabricwatch/lab/#", got, stop))
    await asyncio.sleep(0.3)
    runner, task = await start_runner(cfg, sim)
    try:
        for _ in range(40):
            await asyncio.sleep(0.25)
            if any(t.endswith("/events/link_finding") for t, _ in got):
                break
        status = [p for t, p in got if t == "fabricwatch/lab/status"]
        assert status and status[0]["state"] == "online" and status[0]["schema"] == 1
        ups = {p["device"] for t, p in got if t.endswith("/events/collector") and p["state"] == "up"}
        assert ups == set(sim.fabric.topology.devices)
        finding = next(p for t, p in got if t.endswith("/events/link_finding"))
        assert finding["schema"] == 1 and finding["kind"] == "link_finding" and finding["site"] == "lab"
        assert (finding["event"], finding["device"], finding["port"]) == ("raised", "leaf-r0-0", "swp2")
        assert finding["severity"] == "critical" and "pause_storm" in finding["conditions"]
        assert "PFC pause storm" in finding["explanation"] and finding["time"].endswith("Z")

        # the broker goes away; events made meanwhile wait in the daemon's queue
        sub.cancel()
        broker.stop()
        for i in range(5):
            runner.emit("test", {"n": i})
        await asyncio.sleep(1.5)
        assert runner.event_sinks[0].queue_depth >= 5
        broker.start()  # same port
        after: list[tuple[str, dict[str, Any]]] = []
        sub = asyncio.create_task(collect(broker.port, "fabricwatch/lab/events/test", after, stop))
        for _ in range(80):
            await asyncio.sleep(0.25)
            if len(after) >= 5:
                break
        assert [p["n"] for _, p in after] == [0, 1, 2, 3, 4]  # all, in order
    finally:
        stop.set()
        sub.cancel()
        runner.stop()
        await task
        await sim.stop()
        broker.stop()


async def test_last_will_when_killed(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "mqtt")
    broker.start()
    conf = tmp_path / "fw.toml"
    conf.write_text(f'[daemon]\nlisten = "127.0.0.1:0"\nsite = "lab"\n[detector]\nenabled = false\n'
                    f'[[sinks.mqtt]]\nport = {broker.port}\nsite = "lab"\nclient_id = "fw-killed"\n')
    got: list[tuple[str, dict[str, Any]]] = []
    stop = asyncio.Event()
    sub = asyncio.create_task(collect(broker.port, "fabricwatch/lab/status", got, stop))
    proc = start_daemon(conf)
    try:
        for _ in range(60):
            await asyncio.sleep(0.25)
            if got and got[-1][1]["state"] == "online":
                break
        assert got and got[-1][1]["state"] == "online"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        for _ in range(40):
            await asyncio.sleep(0.25)
            if got[-1][1]["state"] == "offline":
                break
        assert got[-1][1]["state"] == "offline"  # the broker published the will
    finally:
        stop.set()
        sub.cancel()
        if proc.poll() is None:
            proc.kill()
        broker.stop()
