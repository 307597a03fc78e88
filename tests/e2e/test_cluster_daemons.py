"""Three fabricwatch daemons in a cluster on a real 3-member etcd, watching the simulated fabric
over gNMI and writing to a real InfluxDB: every target polled by exactly one of them; `kill -9` of
one and its targets are polled by the others within its lease plus an interval (the stored series
show no longer gap); a fourth joining takes its share with no gap; etcd losing a member changes
nothing, losing its quorum makes the daemons keep their targets and say so; SIGTERM hands over
with no gap and exits 0."""

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

from fabricwatch.cluster.assign import owner
from tests.servers import EtcdCluster, InfluxDB1, free_port
from tests.waiting import until

pytestmark = pytest.mark.slow
LEASE_S, INTERVAL_S = 4.0, 1.0
FW = [sys.executable, "-m", "fabricwatch"]


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


class Daemon:
    def __init__(self, name: str, base: dict[str, Any], etcd: EtcdCluster, tmp: Path) -> None:
        self.name, self.port = name, free_port()
        cfg = json.loads(json.dumps(base))
        cfg["daemon"] = {"listen": f"127.0.0.1:{self.port}", "log_level": "info"}
        cfg["cluster"] = {"etcd": etcd.endpoints, "name": name, "lease": f"{LEASE_S:g}s", "prefix": "/fw-e2e",
                          "timeout": "1s"}
        cfg["sinks"]["influxdb"][0]["spool"] = {"dir": str(tmp / f"spool-{name}")}
        self.config = tmp / f"{name}.toml"
        self.config.write_text(tomli_w.dumps(cfg))
        self.log = tmp / f"{name}.log"
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([*FW, "run", "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def polling(self) -> set[str]:
        status, targets = get(f"{self.url}/api/targets")
        assert status == 200
        return {f"{t['collector']}:{t['name']}:{t['device']}" for t in targets}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("cluster-e2e")
    etcd = EtcdCluster(tmp / "etcd")
    etcd.start()
    influx = InfluxDB1(tmp / "influx")
    influx.start()
    influx.create_db("fw")
    (tmp / "sim.toml").write_text("[fabric]\nnodes = 16\nrails = 8\nleaves_per_rail = 2\nspines = 4\n")
    sim_out = open(tmp / "sim.json", "wb")
    sim = subprocess.Popen([*FW, "simulate", "-c", str(tmp / "sim.toml"), "--out", str(tmp / "sim"),
                            "--interval", f"{INTERVAL_S:g}s"], stdout=sim_out, stderr=subprocess.DEVNULL)
    until("simulating", lambda: (tmp / "sim" / "fabricwatch.toml").exists() and (tmp / "sim.json").stat().st_size > 0)
    time.sleep(0.5)
    base = tomllib.loads((tmp / "sim" / "fabricwatch.toml").read_text())
    base["sinks"]["influxdb"][0].update({"url": influx.url, "database": "fw", "flush_interval": 0.2})
    daemons: dict[str, Daemon] = {}
    world = {"tmp": tmp, "etcd": etcd, "influx": influx, "base": base, "daemons": daemons}
    try:
        yield world
    finally:
        for d in daemons.values():
            d.stop()
        sim.send_signal(signal.SIGTERM)
        sim.wait(20)
        sim_out.close()
        influx.stop()
        etcd.stop()


def configured(base: dict[str, Any]) -> set[str]:
    return {f"gnmi:{s['name']}:{t['device']}" for s in base["collectors"]["gnmi"] for t in s["targets"]}


def each_once(daemons: dict[str, Daemon], every: set[str]) -> bool:
    """Every target polled by exactly one daemon: the one rendezvous hashing names among these."""
    names = sorted(daemons)
    return all(d.polling() == {k for k in every if owner(device_of(k), names) == n} for n, d in daemons.items())


def longest_gap_s(influx: InfluxDB1, devices: set[str], since_ns: int) -> dict[str, float]:
    """Per device, the longest time between two stored port_counters points from `since_ns` on
    (and from the last one to now)."""
    res = influx.query(f'SELECT count("in_octets") FROM "port_counters" WHERE time >= {since_ns} '
                       f'GROUP BY time(500ms), "device" fill(0)', "fw")
    out: dict[str, float] = {}
    for s in res["results"][0].get("series", []):
        device = s["tags"]["device"]
        if device not in devices:
            continue
        run = worst = 0
        for _, n in s["values"][:-1]:  # the newest bucket may still be filling
            run = run + 1 if not n else 0
            worst = max(worst, run)
        out[device] = (worst + 1) * 0.5
    assert set(out) == devices, f"no points stored for {devices - set(out)}"
    return out


def device_of(key: str) -> str:
    return key.rsplit(":", 1)[1]


def test_a_cluster_of_daemons_loses_no_switch(world: dict[str, Any]) -> None:
    etcd, influx, base, daemons, tmp = world["etcd"], world["influx"], world["base"], world["daemons"], world["tmp"]
    every = configured(base)
    assert len(every) == 20
    for name in ("fw-a", "fw-b", "fw-c"):
        daemons[name] = Daemon(name, base, etcd, tmp)
    until("every target polled by exactly one daemon", lambda: each_once(daemons, every), 90)
    status, doc = get(f"{daemons['fw-a'].url}/api/cluster")
    assert status == 200 and doc["member"] == "fw-a" and doc["etcd_up"] is True
    assert {m["name"]: set(m["targets"]) for m in doc["members"]} == {n: d.polling() for n, d in daemons.items()}
    assert all(0 <= m["lease_age_s"] <= LEASE_S for m in doc["members"])
    out = subprocess.run([*FW, "cluster", "status", "-c", str(daemons["fw-a"].config), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["unowned"] == []

    # kill -9: its targets are polled by the others once its lease runs out
    victim = daemons.pop(max(daemons, key=lambda n: len(daemons[n].polling())))
    lost = victim.polling()
    killed_ns = time.time_ns()
    victim.proc.send_signal(signal.SIGKILL)
    victim.proc.wait()
    until("the dead daemon's targets taken over", lambda: each_once(daemons, every), LEASE_S * 4)
    time.sleep(3)
    gaps = longest_gap_s(influx, {device_of(k) for k in lost}, killed_ns - 2_000_000_000)
    assert all(g <= LEASE_S + LEASE_S / 4 + 2 * INTERVAL_S + 1.0 for g in gaps.values()), gaps

    # a fourth daemon joins: it takes its share, nothing goes unpolled
    joined_ns = time.time_ns()
    daemons["fw-d"] = Daemon("fw-d", base, etcd, tmp)
    until("the new daemon's share handed to it", lambda: each_once(daemons, every) and bool(
        daemons["fw-d"].polling()), 90)
    time.sleep(3)
    gaps = longest_gap_s(influx, {device_of(k) for k in every}, joined_ns)
    assert all(g <= 2 * INTERVAL_S + 1.0 for g in gaps.values()), gaps

    # etcd loses a member: nothing changes; loses its quorum: the daemons keep their targets
    before = {n: d.polling() for n, d in daemons.items()}
    etcd.kill("n1")
    time.sleep(LEASE_S * 1.5)
    assert {n: d.polling() for n, d in daemons.items()} == before
    etcd.kill("n2")
    time.sleep(LEASE_S * 2.5)
    assert {n: d.polling() for n, d in daemons.items()} == before
    status, ready = get(f"{daemons['fw-a'].url}/readyz")
    assert status == 503 and "etcd unreachable" in ready["reason"], ready
    metrics = urllib.request.urlopen(f"{daemons['fw-a'].url}/metrics", timeout=5).read().decode()
    assert "fabricwatch_cluster_etcd_up 0.0" in metrics
    etcd.start_member("n1")
    etcd.start_member("n2")
    etcd.wait_healthy()
    until("etcd back and the daemons ready", lambda: all(get(f"{d.url}/readyz")[0] == 200 for d in daemons.values()),
          LEASE_S * 8)
    until("one poller per target again", lambda: each_once(daemons, every), LEASE_S * 8)

    # SIGTERM: hand over, then exit 0, with no gap in what is stored
    leaving = daemons.pop("fw-a")
    handed = leaving.polling()
    term_ns = time.time_ns()
    leaving.proc.send_signal(signal.SIGTERM)
    assert leaving.proc.wait(60) == 0
    until("the leaving daemon's targets polled by the others", lambda: each_once(daemons, every), LEASE_S * 2)
    time.sleep(3)
    gaps = longest_gap_s(influx, {device_of(k) for k in handed}, term_ns - 1_000_000_000)
    assert handed and all(g <= 2 * INTERVAL_S + 1.0 for g in gaps.values()), gaps
    assert os.path.exists(leaving.log)
