"""`fabricwatch demo` end to end: it runs with or without InfluxDB and stops cleanly.

Each demo is a process on the wall clock: the runs (start the demo, drive it as an operator would,
read what it left) go side by side, each in a process of its own (tests/apart.py), and each test
checks what its run saw."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.sinks.spool import Spool
from tests.apart import Runs, side_by_side
from tests.conftest import ROOT
from tests.servers import InfluxDB1, free_port

pytestmark = pytest.mark.integration


def demo(args: list[str], state: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "fabricwatch", "demo", "--nodes", "8", "--rails", "2",
         "--interval", "0.5", "--state-dir", str(state), "--listen", f"127.0.0.1:{free_port()}", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def read_pty(fd: int, seconds: float) -> str:
    chunks = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunks.append(os.read(fd, 65536).decode(errors="replace"))
            except OSError:
                break
    return "".join(chunks)


def read_until_exit(fd: int, proc: subprocess.Popen[bytes], seconds: float) -> str:
    """Keep reading the terminal, as a real one does, until the process exits (or `seconds` pass)."""
    chunks = []
    deadline = time.monotonic() + seconds
    while proc.poll() is None and time.monotonic() < deadline:
        chunks.append(read_pty(fd, 0.5))
    chunks.append(read_pty(fd, 0.5))
    return "".join(chunks)


def _ctrl_c_with_influxdb(tmp_path: Path) -> dict[str, Any]:
    influx = InfluxDB1(tmp_path / "influx")
    influx.start()
    master, slave = pty.openpty()  # a real terminal, as an operator would run it
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "fabricwatch", "demo", "--nodes", "8", "--rails", "2", "--interval", "0.5",
             "--state-dir", str(tmp_path / "state"), "--listen", f"127.0.0.1:{free_port()}",
             "--influx-url", influx.url, "--fault", "flap:leaf-r0-0:swp1,period=2"],
            cwd=ROOT, stdin=slave, stdout=slave, stderr=slave, env={**os.environ, "COLUMNS": "160"},
        )
        os.close(slave)
        screen = ""
        for _ in range(40):  # the demo first fits its detector, then the live view starts
            screen += read_pty(master, 1)
            if "targets up 4/4" in screen:
                break
        screen += read_pty(master, 8)  # collect a while: the flapping link goes down and up
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        screen += read_until_exit(master, proc, 30)  # a terminal keeps reading while the demo flushes
        return {"code": proc.wait(1), "screen": screen,
                "counted": influx.query('SELECT count("in_octets") FROM "port_counters"', "fabricwatch"),
                "kinds": influx.query('SHOW TAG VALUES FROM "link_events" WITH KEY = "kind"', "fabricwatch")}
    finally:
        os.close(master)
        influx.stop()


def test_demo_writes_to_influxdb_with_live_view_and_stops_on_ctrl_c(runs: Runs, request: pytest.FixtureRequest) -> None:
    ran = runs.of(request)
    screen = ran["screen"]
    assert ran["code"] == 0, screen[-2000:]
    assert "stopping, flushing to storage" in screen
    assert "targets up 4/4" in screen  # the live view, with every simulated switch up
    assert "top links by pause and error rate" in screen
    assert "fabricwatch demo stopped" in screen
    assert ran["counted"]["results"][0]["series"][0]["values"][0][1] > 50
    kinds = {v[1] for v in ran["kinds"]["results"][0]["series"][0]["values"]}
    assert {"oper_down", "oper_up", "flap"} <= kinds  # the flapping link was seen


def _without_influxdb(tmp_path: Path) -> dict[str, Any]:
    proc = demo(["--influx-url", f"http://127.0.0.1:{free_port()}", "--no-view", "--duration", "4"],
                tmp_path / "state")
    out, _ = proc.communicate(timeout=60)
    return {"code": proc.returncode, "out": out, "pending": Spool(tmp_path / "state" / "spool").pending_points}


def test_demo_without_influxdb_spools(runs: Runs, request: pytest.FixtureRequest) -> None:
    ran = runs.of(request)
    assert ran["code"] == 0, ran["out"][-2000:]
    assert "spooling to" in ran["out"]
    assert ran["pending"] > 50


async def _with_mosquitto(tmp_path: Path) -> dict[str, Any]:
    import asyncio
    import json

    import aiomqtt

    from tests.servers import Mosquitto

    broker = Mosquitto(tmp_path / "mqtt")
    broker.start()
    got: list[tuple[str, dict]] = []

    async def listen() -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="demo-watcher") as client:
            await client.subscribe("fabricwatch/demo/#", qos=1)
            async for msg in client.messages:
                got.append((str(msg.topic), json.loads(msg.payload)))  # type: ignore[arg-type]

    sub = asyncio.create_task(listen())
    await asyncio.sleep(0.3)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fabricwatch", "demo", "--nodes", "8", "--rails", "2", "--interval", "0.5",
        "--state-dir", str(tmp_path / "state"), "--listen", f"127.0.0.1:{free_port()}",
        "--influx-url", f"http://127.0.0.1:{free_port()}", "--no-view", "--duration", "6",
        cwd=ROOT, env={**os.environ, "FABRICWATCH_MQTT_PORT": str(broker.port)},
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    try:
        code = await asyncio.wait_for(proc.wait(), 90)
        await asyncio.sleep(0.5)
    finally:
        sub.cancel()
        broker.stop()
    return {"code": code, "got": got}


def test_demo_publishes_events_when_mosquitto_answers(runs: Runs, request: pytest.FixtureRequest) -> None:
    ran = runs.of(request)
    assert ran["code"] == 0
    got = ran["got"]
    states = [p["state"] for t, p in got if t == "fabricwatch/demo/status"]
    assert states[0] == "online" and states[-1] == "offline"  # a clean stop says offline itself
    assert {p["device"] for t, p in got if t.endswith("/events/collector")} >= {"spine-0", "leaf-r0-0"}


def _on_infiniband(tmp_path: Path) -> dict[str, Any]:
    influx = InfluxDB1(tmp_path / "influx")
    influx.start()
    try:
        master, slave = pty.openpty()  # the live view, as an operator sees it
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "fabricwatch", "demo", "--nodes", "8", "--rails", "2", "--interval", "0.5",
                 "--state-dir", str(tmp_path / "s"), "--listen", f"127.0.0.1:{free_port()}", "--fabric", "ib",
                 "--duration", "14", "--influx-url", influx.url],
                cwd=ROOT, stdin=slave, stdout=slave, stderr=slave, env={**os.environ, "COLUMNS": "200"},
            )
            os.close(slave)
            screen = read_until_exit(master, proc, 120)
            code = proc.wait(1)
        finally:
            os.close(master)
        return {"code": code, "screen": screen, "log": (tmp_path / "s" / "demo.log").read_text(),
                "counters": influx.query('SELECT last("symbol_errors") FROM "port_counters" GROUP BY "device","port"',
                                         "fabricwatch_ib"),  # each fabric's demo its own database
                "events": influx.query('SELECT "detail" FROM "link_events" WHERE "source" = \'ufm\' '
                                       'GROUP BY "kind","port"', "fabricwatch_ib")}
    finally:
        influx.stop()


def test_demo_on_infiniband_through_the_simulated_ufm(runs: Runs, request: pytest.FixtureRequest) -> None:
    ran = runs.of(request)
    screen = ran["screen"]
    assert ran["code"] == 0, screen[-2000:]
    # IB columns, not RoCE's pauses and marks; and the ingest rate of a poller that answers
    # every few seconds is not 0
    assert "top links by error and credit-wait rate" in screen and "symbol err" in screen
    assert "xmit wait" in screen and "pfc rx+tx" not in screen
    rates = [int(x.replace(",", "")) for x in re.findall(r"ingest ([\d,]+) counter values/s", screen)]
    assert rates and rates[-1] > 0, rates[-5:]
    assert "ufm inventory read" in ran["log"]
    ports = {(s["tags"]["device"], s["tags"]["port"]) for s in ran["counters"]["results"][0]["series"]}
    assert ("leaf-r1-0", "2") in ports and all(p.isdigit() for _, p in ports)  # IB ports are numbers
    kinds = {(s["tags"]["kind"], s["tags"]["port"]) for s in ran["events"]["results"][0]["series"]}
    # the demo's faults, as UFM reported them
    assert ("ufm_symbol_error_counter_rate_exceeded_threshold", "2") in kinds
    assert ("unhealthy", "1") in kinds and ("unhealthy", "2") in kinds


def _script_ctrl_c(tmp_path: Path) -> dict[str, Any]:
    port = free_port()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "FABRICWATCH_DEMO_INFLUX_PORT": str(port),
           "COLUMNS": "160"}
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            ["scripts/demo.sh", "--nodes", "8", "--rails", "2", "--interval", "0.5",
             "--listen", f"127.0.0.1:{free_port()}"],
            cwd=ROOT, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
        )
        os.close(slave)
        screen = ""
        for _ in range(90):
            screen += read_pty(master, 1)
            if "targets up 4/4" in screen:
                break
        screen += read_pty(master, 6)
        os.killpg(proc.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        screen += read_until_exit(master, proc, 60)
        code = proc.wait(1)
    finally:
        os.close(master)
    state = tmp_path / "fabricwatch" / "demo-roce"
    try:  # and the script stopped the InfluxDB it started
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        influx_stopped = False
    except OSError:
        influx_stopped = True
    return {"code": code, "screen": screen, "port": port, "model": (state / "demo-link-model.fwm").is_file(),
            "pending": Spool(state / "spool").pending_points, "influx_stopped": influx_stopped}


def test_demo_script_ctrl_c_flushes_before_its_influxdb_stops(runs: Runs, request: pytest.FixtureRequest) -> None:
    """Ctrl-C in a terminal signals the whole foreground process group: the InfluxDB that
    scripts/demo.sh started must outlive the daemon's final flush, nothing may stay spooled, the
    script exits 0 and stops that InfluxDB afterwards."""
    ran = runs.of(request)
    screen = ran["screen"]
    assert ran["code"] == 0, screen[-3000:]
    assert "targets up 4/4" in screen and "fabricwatch demo stopped" in screen
    assert f"data: curl -G http://127.0.0.1:{ran['port']}/query --data-urlencode db=fabricwatch" in screen
    assert ran["model"]
    assert ran["pending"] == 0  # the last flush reached InfluxDB
    assert ran["influx_stopped"]  # and the script stopped the InfluxDB it started


RUNS = {"test_demo_writes_to_influxdb_with_live_view_and_stops_on_ctrl_c": _ctrl_c_with_influxdb,
        "test_demo_without_influxdb_spools": _without_influxdb,
        "test_demo_publishes_events_when_mosquitto_answers": _with_mosquitto,
        "test_demo_on_infiniband_through_the_simulated_ufm": _on_infiniband,
        "test_demo_script_ctrl_c_flushes_before_its_influxdb_stops": _script_ctrl_c}
runs = side_by_side(at_once=3)
