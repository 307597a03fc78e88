"""`[daemon] workers = 2`: the daemon runs its gNMI targets in two worker processes against the
simulated fabric over real gRPC, into a real InfluxDB. Every target is run by one worker and stored;
a worker killed with SIGKILL is started again and its targets resume; SIGHUP removes a target from
its worker; SIGTERM stops the workers and the daemon exits 0."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from fabricwatch.daemon.workers import worker_of
from tests.servers import InfluxDB1, free_port
from tests.waiting import until

pytestmark = pytest.mark.slow
FW = [sys.executable, "-m", "fabricwatch"]


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        body = resp.read().decode()
    return body if url.endswith("/metrics") else json.loads(body)


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid), "-f", "fabricwatch.daemon.workers"], capture_output=True,
                         text=True)
    return sorted(int(x) for x in out.stdout.split())


@pytest.fixture
def fabric(tmp_path: Path) -> Iterator[dict[str, Any]]:
    influx = InfluxDB1(tmp_path / "influx")
    influx.start()
    influx.create_db("fw")
    sim = subprocess.Popen([*FW, "simulate", "--out", str(tmp_path / "sim"), "--interval", "1s"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    until("simulating", lambda: (tmp_path / "sim" / "fabricwatch.toml").exists())
    time.sleep(0.5)
    cfg = tomllib.loads((tmp_path / "sim" / "fabricwatch.toml").read_text())
    port = free_port()
    cfg["daemon"] = {**cfg["daemon"], "listen": f"127.0.0.1:{port}", "workers": 2}
    cfg["sinks"]["influxdb"][0].update({"url": influx.url, "database": "fw", "flush_interval": 0.2,
                                        "spool": {"dir": str(tmp_path / "spool")}})
    path = tmp_path / "fw.toml"
    path.write_text(tomli_w.dumps(cfg))
    try:
        yield {"influx": influx, "config": cfg, "path": path, "url": f"http://127.0.0.1:{port}", "tmp": tmp_path}
    finally:
        sim.send_signal(signal.SIGTERM)
        sim.wait(20)
        influx.stop()


def stored_devices(influx: InfluxDB1, since_ns: int) -> set[str]:
    res = influx.query(f'SELECT count("in_octets") FROM "port_counters" WHERE time >= {since_ns} GROUP BY "device"',
                       "fw")
    return {s["tags"]["device"] for s in res["results"][0].get("series", [])}


def test_workers_run_the_targets_and_a_killed_one_comes_back(fabric: dict[str, Any]) -> None:
    cfg, url, influx = fabric["config"], fabric["url"], fabric["influx"]
    keys = {f"gnmi:{s['name']}:{t['device']}": t["device"] for s in cfg["collectors"]["gnmi"] for t in s["targets"]}
    assert {worker_of(k, 2) for k in keys} == {0, 1}  # both workers have targets
    log = open(fabric["tmp"] / "daemon.log", "wb")
    proc = subprocess.Popen([*FW, "run", "-c", str(fabric["path"])], stdout=log, stderr=subprocess.STDOUT)
    try:
        until("every target up", lambda: len(get(f"{url}/api/targets")) == len(keys) and all(
            t["up"] for t in get(f"{url}/api/targets")), 60)
        assert len(children(proc.pid)) == 2
        start = time.time_ns()
        until("every device stored", lambda: stored_devices(influx, start) == set(keys.values()), 30)
        metrics = get(f"{url}/metrics")
        for w in ("0", "1"):
            assert f'fabricwatch_worker_up{{worker="{w}"}} 1.0' in metrics
        assert 'fabricwatch_target_up{collector="gnmi"' in metrics and "fabricwatch_samples_ingested_total" in metrics

        # SIGKILL a worker: it is started again, its targets come back up and are stored again
        victim = children(proc.pid)[0]
        subprocess.run(["kill", "-9", str(victim)], check=True)
        until("the worker started again", lambda: len(children(proc.pid)) == 2 and victim not in children(proc.pid))
        until("its targets up again", lambda: all(t["up"] for t in get(f"{url}/api/targets")), 60)
        assert 'fabricwatch_worker_restarts_total{worker="' in get(f"{url}/metrics")
        again = time.time_ns()
        until("every device stored after the restart", lambda: stored_devices(influx, again) == set(keys.values()))
        assert proc.poll() is None

        # SIGHUP without one target: its worker stops it
        gone = sorted(keys)[0]
        section, device = gone.split(":")[1], gone.split(":")[2]
        for s in cfg["collectors"]["gnmi"]:
            if s["name"] == section:
                s["targets"] = [t for t in s["targets"] if t["device"] != device]
        cfg["collectors"]["gnmi"] = [s for s in cfg["collectors"]["gnmi"] if s["targets"]]
        fabric["path"].write_text(tomli_w.dumps(cfg))
        proc.send_signal(signal.SIGHUP)
        until("the removed target gone", lambda: device not in {t["device"] for t in get(f"{url}/api/targets")})
        time.sleep(2)
        cut = time.time_ns()
        time.sleep(2.5)
        assert device not in stored_devices(influx, cut)  # its worker closed the session
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(60)
        log.close()
    assert code == 0
    assert children(proc.pid) == []
