"""SIGHUP applies target changes without dropping the others; `check` reports what fails."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fabricwatch.daemon.check import run_check
from fabricwatch.daemon.config import load
from fabricwatch.daemon.runner import Runner
from fabricwatch.simulator.daemon_config import daemon_config_toml
from tests.conftest import ROOT
from tests.integration.helpers import start_sim
from tests.servers import InfluxDB1, free_port

pytestmark = pytest.mark.integration


def write_config(sim, tmp_path: Path, influx_url: str, drop: str | None = None) -> Path:  # type: ignore[no-untyped-def]
    topo = tmp_path / "topology.json"
    sim.write_topology(topo)
    text = daemon_config_toml(sim, "500ms", topo, "fabricwatch").replace("http://127.0.0.1:8086", influx_url)
    text = text.replace("[daemon]", '[daemon]\nlisten = "127.0.0.1:0"')
    if drop:
        text = "\n".join(line for line in text.splitlines() if f'"{drop}"' not in line)
    path = tmp_path / "fabricwatch.toml"
    path.write_text(text)
    return path


async def test_sighup_reload_keeps_unchanged_sessions(tmp_path: Path) -> None:
    sim = await start_sim(fabric={"nodes": 4, "rails": 6, "spines": 2})
    path = write_config(sim, tmp_path, f"http://127.0.0.1:{free_port()}", drop="spine-1")
    runner = Runner(load(path), config_path=path)
    task = asyncio.create_task(runner.run(install_signals=True))
    await asyncio.sleep(1.5)
    keys_before = set(runner.targets)
    assert not any(k.endswith(":spine-1") for k in keys_before)
    kept = {k: runner.targets[k] for k in keys_before}
    write_config(sim, tmp_path, f"http://127.0.0.1:{free_port()}", drop="leaf-r0-0")
    os.kill(os.getpid(), signal.SIGHUP)
    await asyncio.sleep(1.5)
    assert runner.reloads == 1
    keys_after = set(runner.targets)
    assert any(k.endswith(":spine-1") for k in keys_after)
    assert not any(k.endswith(":leaf-r0-0") for k in keys_after)
    for key in keys_before & keys_after:
        assert runner.targets[key] is kept[key] and kept[key].connects == 1, key
    new = next(t for k, t in runner.targets.items() if k.endswith(":spine-1"))
    assert new.up and new.samples > 0
    # a broken config on reload keeps the running one
    path.write_text(path.read_text() + "\n[bogus]\n")
    os.kill(os.getpid(), signal.SIGHUP)
    await asyncio.sleep(0.5)
    assert runner.reload_failures == 1 and set(runner.targets) == keys_after
    # so does a topology file of the wrong shape (it once let a TypeError end the daemon)
    write_config(sim, tmp_path, f"http://127.0.0.1:{free_port()}", drop="leaf-r0-0")
    (tmp_path / "topology.json").write_text("[1]")
    os.kill(os.getpid(), signal.SIGHUP)
    await asyncio.sleep(0.5)
    assert runner.reload_failures == 2 and set(runner.targets) == keys_after and not task.done()
    os.kill(os.getpid(), signal.SIGTERM)
    assert await task == 0
    await sim.stop()


async def test_check_reports_sink_and_targets(tmp_path: Path) -> None:
    influx = InfluxDB1(tmp_path / "influx")
    influx.start()
    try:
        sim = await start_sim()
        path = write_config(sim, tmp_path, influx.url)
        out = io.StringIO()
        assert await run_check(path, timeout=5, out=out) == 1  # database missing
        assert "FAIL sink influxdb:influxdb: database 'fabricwatch' does not exist" in out.getvalue()
        influx.create_db("fabricwatch")
        await sim.stop_device("spine-0")
        out = io.StringIO()
        assert await run_check(path, timeout=3, out=out) == 1
        text = out.getvalue()
        assert "ok   sink influxdb:influxdb" in text
        assert "FAIL target gnmi:sim-openconfig:spine-0" in text
        assert text.count("ok   target") == len(sim.targets) - 1
        # what the unit runs before starting: a switch (or the sink) being down does not stop it
        influx.stop()
        out = io.StringIO()
        assert await run_check(path, timeout=3, out=out, config_only=True) == 0
        assert "ok   target" not in out.getvalue() and "FAIL" not in out.getvalue()
        assert "config only: sinks and targets not tried" in out.getvalue()
        await sim.stop()
    finally:
        influx.stop()


def test_check_cli_names_bad_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[daemon]\nlisten = "127.0.0.1:9465"\nshrad = "1/2"\n')
    res = subprocess.run([sys.executable, "-m", "fabricwatch", "check", "-c", str(bad)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode == 1
    assert f"{bad}: daemon.shrad: unknown key" in res.stdout
    res = subprocess.run([sys.executable, "-m", "fabricwatch", "run", "-c", str(bad)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and f"{bad}: daemon.shrad: unknown key" in res.stderr
