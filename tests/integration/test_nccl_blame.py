"""Blame: a degraded link under a job's hosts ranks first among the links the job crossed."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fabricwatch.core.topology import Topology
from fabricwatch.nccl.blame import path_links
from fabricwatch.simulator.faults import Fault
from tests.conftest import ROOT
from tests.integration.helpers import daemon_config, spool_dir, start_runner, start_sim
from tests.nccl_logs import render
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration
SIZES = [1 << p for p in range(24, 31)]


def fabricwatch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricwatch", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_path_of_a_job() -> None:
    topo = Topology.from_records([
        {"device": "leaf1", "port": "p1", "role": "leaf_down", "peer_device": "h1", "peer_port": "mlx5_0"},
        {"device": "leaf1", "port": "p2", "role": "leaf_down", "peer_device": "h9", "peer_port": "mlx5_0"},
        {"device": "leaf1", "port": "u1", "role": "leaf_up", "peer_device": "spine1", "peer_port": "s1"},
        {"device": "leaf2", "port": "u1", "role": "leaf_up", "peer_device": "spine1", "peer_port": "s2"},
        {"device": "spine1", "port": "s1", "role": "spine", "peer_device": "leaf1", "peer_port": "u1"},
    ])
    links = {(c.device, c.port): c.role for c in path_links(topo, ["h1"])}
    assert links == {("leaf1", "p1"): "leaf_down", ("leaf1", "u1"): "leaf_up", ("spine1", "s1"): "spine"}


async def test_degraded_link_under_the_job_ranks_first(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("bl")
    sim = await start_sim(fabric={"nodes": 8, "rails": 2, "spines": 2})
    leaf = sim.fabric.topology.devices["leaf-r0-0"]
    victim = next(p for p in leaf.ports if p.peer_device == "node002")
    sim.fabric.inject(Fault("ber", leaf.name, victim.name))
    cfg = daemon_config(sim, {"api": "v1", "url": influx.url, "database": "bl", "flush_interval": 0.2,
                              "spool": spool_dir(tmp_path)})
    start = time.time_ns()
    runner, task = await start_runner(cfg, sim)
    await asyncio.sleep(5)
    runner.stop()
    assert await task == 0
    await sim.stop()
    end = time.time_ns()
    topo = tmp_path / "topology.json"
    sim.write_topology(topo)
    run = tmp_path / "all_reduce_job.log"
    run.write_text(render("all_reduce", ["node001", "node002", "node003"], 1,
                          {s: 40.0 for s in SIZES}))

    res = await asyncio.to_thread(
        fabricwatch, "nccl", "blame", str(run), "--topology", str(topo), "--influx-url", influx.url,
        "--influx-db", "bl", "--start", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start / 1e9 - 1)),
        "--end", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(end / 1e9 + 1)), "--json")
    assert res.returncode == 0, res.stderr
    ranked = json.loads(res.stdout)["links"]
    assert (ranked[0]["device"], ranked[0]["port"]) == (leaf.name, victim.name), json.dumps(ranked[:4], indent=0)
    assert "errors" in ranked[0]["explanation"]
    # the job's path: 3 host ports on the rail-0 leaf (and rail 1's), their uplinks and spine ports
    roles = {r["role"] for r in ranked}
    assert roles == {"leaf_down", "leaf_up", "spine"}
    assert all(r["device"] != "leaf-r0-0" or r["port"] in {p.name for p in leaf.ports} for r in ranked)
