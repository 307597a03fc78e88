"""kill -9 the daemon while it spools; the restarted daemon replays everything, intact."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from fabricwatch.simulator.daemon_config import daemon_config_toml
from fabricwatch.sinks.spool import Spool
from tests.conftest import ROOT
from tests.integration.helpers import start_sim
from tests.lp import points
from tests.servers import InfluxDB1, free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow]


async def metric(url: str, name: str) -> float | None:
    try:
        async with aiohttp.ClientSession() as s, s.get(f"{url}/metrics") as resp:
            text = await resp.text()
    except aiohttp.ClientError:
        return None
    m = re.search(rf'^{name}{{sink="influxdb"}} (\S+)$', text, re.M)
    return float(m.group(1)) if m else None


def start_daemon(config: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "fabricwatch", "run", "-c", str(config)],
                                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)


async def wait_for(url: str, name: str, predicate, timeout: float) -> float:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    value = None
    while loop.time() < deadline:
        value = await metric(url, name)
        if value is not None and predicate(value):
            return value
        await asyncio.sleep(0.3)
    raise AssertionError(f"{name} never satisfied the condition (last {value})")


async def test_kill_9_while_spooling_then_replay(tmp_path: Path) -> None:
    influx = InfluxDB1(tmp_path / "influx")
    influx.start()
    influx.create_db("fabricwatch")
    influx.stop()  # storage is down: the daemon has to spool
    sim = await start_sim(fabric={"nodes": 16, "rails": 2, "spines": 2})
    port = free_port()
    topo = tmp_path / "topology.json"
    sim.write_topology(topo)
    text = daemon_config_toml(sim, "500ms", topo, "fabricwatch")
    text = text.replace("http://127.0.0.1:8086", influx.url)
    text = text.replace("[daemon]", f'[daemon]\nlisten = "127.0.0.1:{port}"')
    text = text.replace('spool = { dir', 'flush_interval = "200ms"\nspool = { fsync = "never", dir')
    config = tmp_path / "fabricwatch.toml"
    config.write_text(text)
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "daemon.log"
    try:
        daemon = start_daemon(config, log)
        await wait_for(url, "fabricwatch_spool_points", lambda v: v > 3000, 60)
        await asyncio.sleep(0.37)  # land the kill at an arbitrary moment of the write cycle
        os.kill(daemon.pid, signal.SIGKILL)
        daemon.wait(10)

        spool = Spool(tmp_path / "spool")  # the recovery the restarted daemon does
        acknowledged = [line for rec in spool.iter_pending() for line in rec.payload.decode().split("\n")]
        spool.close()
        assert len(acknowledged) > 3000

        influx.start()
        daemon = start_daemon(config, log)
        await wait_for(url, "fabricwatch_points_written_total", lambda v: v >= len(acknowledged), 90)
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(30) == 0, log.read_text()[-3000:]
    finally:
        if daemon.poll() is None:
            daemon.kill()
        await sim.stop()
    stored = influx.series_points("fabricwatch", "port_counters")
    influx.stop()
    want = points(acknowledged, "port_counters")
    missing = set(want) - set(stored)
    assert not missing, f"{len(missing)} acknowledged points lost"
    for key, fields in want.items():
        assert {k: stored[key][k] for k in fields} == fields, key
