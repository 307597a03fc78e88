"""The detector inside the daemon: findings reach InfluxDB (link_anomaly), /metrics and /api."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest

from fabricwatch.daemon.config import parse
from tests.integration.helpers import start_runner, start_sim
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration


async def test_pfc_storm_and_ecn_off_are_flagged_end_to_end(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("det")
    sim = await start_sim(fabric={"nodes": 16, "rails": 4, "spines": 2},
                          faults=["pfc_storm:leaf-r0-0:swp2", "ecn_off:leaf-r2-0"])
    sections = sim.daemon_collectors(0.5)
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "detector": {"interval": "2s", "raise_k": 2, "raise_n": 3},
        "collectors": {"gnmi": sections},
        "sinks": {"influxdb": [{"api": "v1", "url": influx.url, "database": "det", "flush_interval": 0.2,
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg, sim)
    assert runner.http is not None and runner.detector is not None
    flagged: set[tuple[str, str]] = set()
    try:
        for _ in range(40):
            await asyncio.sleep(0.5)
            flagged = set(runner.detector.active)
            if ("leaf-r0-0", "swp2") in flagged and ("leaf-r2-0", "*") in flagged:
                break
        async with aiohttp.ClientSession() as s:
            async with s.get(f"{runner.http.url}/metrics") as resp:
                metrics = await resp.text()
            async with s.get(f"{runner.http.url}/api/findings") as resp:
                api = await resp.json()
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    assert ("leaf-r0-0", "swp2") in flagged
    storm = next(f for f in api["findings"] if f["device"] == "leaf-r0-0" and f["port"] == "swp2")
    assert storm["severity"] == "critical" and "PFC pause storm" in storm["explanation"]
    # ECN disabled on leaf-r2-0: its busy links mark nothing while their peers do; a condition of
    # the switch, so one device finding that lists its ports, not one finding per port
    ecn = [f for f in api["findings"] if f["device"] == "leaf-r2-0"]
    assert len(ecn) == 1 and ecn[0]["port"] == "*" and ecn[0]["level"] == "device", ecn
    assert "ECN marks nothing on" in ecn[0]["explanation"] and len(ecn[0]["ports"]) >= 3
    # nothing else in the fabric is flagged
    assert {d for d, _ in flagged} <= {"leaf-r0-0", "leaf-r2-0"}
    assert 'fabricwatch_link_flagged{device="leaf-r0-0",port="swp2",severity="critical"' in metrics
    assert 'fabricwatch_detector_mode{mode="rules"} 1.0' in metrics
    res = influx.query("SELECT \"severity\", \"explanation\" FROM \"link_anomaly\" WHERE \"flagged\" = true "
                       "AND \"device\" = 'leaf-r0-0' AND \"port\" = 'swp2'", "det")
    rows = res["results"][0]["series"][0]["values"]
    assert rows and all(r[1] == "critical" and "PFC pause storm" in r[2] for r in rows)
    # without a model there is no score to store for healthy links: only findings are written
    res = influx.query('SELECT count("score") FROM "link_anomaly" WHERE "flagged" = false', "det")
    assert "series" not in res["results"][0]
    # severity, source and condition are tags: a post-mortem can group by them
    res = influx.query('SELECT count("score") FROM "link_anomaly" WHERE "flagged" = true '
                       'GROUP BY "severity", "condition"', "det")
    groups = {(s["tags"]["severity"], s["tags"]["condition"]) for s in res["results"][0]["series"]}
    assert ("critical", "pause_storm") in groups and ("warning", "ecn_missing") in groups, groups
    # the switch with ECN off is stored as one device finding, with its ports
    res = influx.query("SELECT \"ports\", \"explanation\" FROM \"link_anomaly\" WHERE \"device\" = 'leaf-r2-0' "
                       "AND \"port\" = '*' AND \"level\" = 'device'", "det")
    rows = res["results"][0]["series"][0]["values"]
    assert rows and len(rows[-1][1].split(",")) >= 3 and "ECN marks nothing on" in rows[-1][2]
