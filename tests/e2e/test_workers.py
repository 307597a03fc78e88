"""`[daemon] workers = 2`: the daemon runs its gNMI targets in two worker processes against the
simulated fabric over real gRPC, into a real InfluxDB. Every target is run by one worker and stored;
a worker killed with SIGKILL is started again and its targets resume; SIGHUP removes a target from
its worker; SIGTERM stops the workers and the daemon exits 0. A worker stopped with SIGSTOP is
killed after `worker_timeout` and its targets are down at once; a restarted worker runs the
daemon's config, not a file left mid-edit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from fabricwatch.daemon.worker_pool import worker_of
from tests.servers import InfluxDB1, free_port
from tests.waiting import until

pytestmark = pytest.mark.slow
FW = [sys.executable, "-m", "fabricwatch"]


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        body = resp.read().decode()
    return body if url.endswith("/metrics") else json.loads(body)


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid), "-f", "fabricwatch.daemon.worker_process"], capture_output=True,
                         text=True)
    return sorted(int(x) for x in out.stdout.split())


def worker_pid(pid: int, index: int) -> int | None:
    out = subprocess.run(["pgrep", "-P", str(pid), "-f", f"fabricwatch.daemon.worker_process .*--index {index} "],
                         capture_output=True, text=True)
    pids = [int(x) for x in out.stdout.split()]
    return pids[0] if len(pids) == 1 else None


def readyz(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def sample(metrics: str, name: str) -> float | None:
    for line in metrics.splitlines():
        if line.rsplit(" ", 1)[0] == name:
            return float(line.rsplit(" ", 1)[1])
    return None


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


def test_a_stopped_worker_is_killed_and_a_restarted_one_runs_the_daemons_config(fabric: dict[str, Any]) -> None:
    cfg, url, influx, path = fabric["config"], fabric["url"], fabric["influx"], fabric["path"]
    cfg["daemon"].update({"worker_heartbeat": "0.2s", "worker_timeout": "3s", "stale_after": "1.5s"})
    path.write_text(tomli_w.dumps(cfg))
    keys = {f"gnmi:{s['name']}:{t['device']}": t["device"] for s in cfg["collectors"]["gnmi"] for t in s["targets"]}
    mine = {d for k, d in keys.items() if worker_of(k, 2) == 0}  # the stopped worker's devices
    assert mine and mine != set(keys.values())
    log = open(fabric["tmp"] / "daemon.log", "wb")
    proc = subprocess.Popen([*FW, "run", "-c", str(path)], stdout=log, stderr=subprocess.STDOUT)
    try:
        until("every target up", lambda: len(get(f"{url}/api/targets")) == len(keys) and all(
            t["up"] for t in get(f"{url}/api/targets")), 60)
        until("ready for all", lambda: readyz(f"{url}/readyz?require=all")[0] == 200, 30)
        victim = worker_pid(proc.pid, 0)
        assert victim is not None

        # SIGSTOP: its targets still say up, but their data goes stale (1.5 s); silent past worker_timeout
        # (3 s), the worker is killed and its targets are down at once, with why
        os.kill(victim, signal.SIGSTOP)
        stopped = time.monotonic()
        seen: list[tuple[int, dict[str, Any]]] = []

        def marked_down() -> bool:
            seen.append(readyz(f"{url}/readyz?require=all"))  # 503 as soon as the targets are down or stale
            targets = {t["device"]: t for t in get(f"{url}/api/targets")}
            return all(not targets[d]["up"] and "hung or stopped" in targets[d]["last_error"] for d in mine)

        until("the stopped worker's targets down", marked_down, 30)
        assert time.monotonic() - stopped < 3 + 4  # the deadline, plus a beat and a scrape on a busy machine
        stale = [body for code, body in seen if code == 503 and "with no data for 1.5 s" in body["reason"]]
        assert mine <= {d for body in stale for d in body["targets_stale"]}, seen
        metrics = get(f"{url}/metrics")
        assert sample(metrics, 'fabricwatch_worker_hangs_total{worker="0"}') == 1.0
        ages = [float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
                if line.startswith("fabricwatch_target_data_age_seconds{") and any(f'device="{d}"' in line
                                                                                   for d in mine)]
        assert len(ages) == len(mine) and min(ages) >= 2.5  # nothing came from them since the stop
        assert all(t["data_age_s"] >= 2.5 for t in get(f"{url}/api/targets") if t["device"] in mine)
        status, body = readyz(f"{url}/readyz")  # not ready while a worker restarts, and it says why
        assert status == 503 and "worker 0 sent nothing for" in body["reason"], body
        assert any(code == 503 for code, _ in seen)
        until("the stopped worker gone", lambda: victim not in children(proc.pid), 10)
        until("worker 0 started again", lambda: worker_pid(proc.pid, 0) not in (None, victim), 30)
        until("its targets up again", lambda: all(t["up"] for t in get(f"{url}/api/targets")), 60)
        again = time.time_ns()
        until("every device stored after the restart", lambda: stored_devices(influx, again) == set(keys.values()))
        until("ready for all again", lambda: readyz(f"{url}/readyz?require=all")[0] == 200, 30)

        # the file left mid-edit: a worker started again runs the config the daemon runs, not the file
        path.write_text(path.read_text()[: len(path.read_text()) // 2])
        victim = worker_pid(proc.pid, 0)
        assert victim is not None
        os.kill(victim, signal.SIGKILL)
        until("worker 0 started again", lambda: worker_pid(proc.pid, 0) not in (None, victim), 30)
        until("its targets up again", lambda: all(t["up"] for t in get(f"{url}/api/targets")), 60)
        time.sleep(3)  # a worker that could not start would have died again by now
        metrics = get(f"{url}/metrics")
        assert sample(metrics, 'fabricwatch_worker_restarts_total{worker="0"}') == 2.0
        assert sample(metrics, 'fabricwatch_worker_up{worker="0"}') == 1.0
        until("ready for all after the restart", lambda: readyz(f"{url}/readyz?require=all")[0] == 200, 30)
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(60)
        log.close()
    assert code == 0
