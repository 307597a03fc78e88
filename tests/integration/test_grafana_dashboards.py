"""Grafana dashboards: valid provisioning JSON, and every InfluxQL query, with Grafana's macros and
template variables substituted, returns data from a real InfluxDB filled by a simulator run."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from fabricwatch.daemon.config import parse
from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from tests.conftest import FIXTURES, ROOT
from tests.integration.helpers import start_runner, start_sim
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration
DASHBOARDS = sorted((ROOT / "grafana" / "dashboards").glob("*.json"))
INTERVAL = 2.0


def influx_queries(dash: dict[str, Any]) -> list[str]:
    out = [t["query"] for p in dash["panels"] if p["datasource"]["type"] == "influxdb" for t in p["targets"]]
    out += [v["query"] for v in dash["templating"]["list"] if v["datasource"]["type"] == "influxdb"]
    out += [a["query"] for a in dash.get("annotations", {}).get("list", [])
            if a.get("datasource", {}).get("type") == "influxdb"]
    return out


def substitute(q: str, device: str, port: str) -> str:
    q = q.replace("$timeFilter", "time > now() - 6h").replace("$__interval", f"{INTERVAL:g}s")
    q = q.replace("$device", re.escape(device)).replace("$port", re.escape(port))
    return re.sub(r"\$(fabric|rail|collective)", ".*", q)


def test_dashboards_are_valid_provisioning_json() -> None:
    assert len(DASHBOARDS) == 5
    sources = yaml.safe_load((ROOT / "grafana/provisioning/datasources/fabricwatch.yml").read_text())
    uids = {d["uid"] for d in sources["datasources"]}
    assert uids == {"fabricwatch-influxdb", "fabricwatch-prometheus"}
    provider = yaml.safe_load((ROOT / "grafana/provisioning/dashboards/fabricwatch.yml").read_text())
    assert provider["providers"][0]["type"] == "file"
    seen = set()
    for path in DASHBOARDS:
        dash = json.loads(path.read_text())
        assert dash["uid"] not in seen and dash["title"].startswith("fabricwatch")
        seen.add(dash["uid"])
        ids = [p["id"] for p in dash["panels"]]
        assert len(ids) == len(set(ids)) and dash["panels"]
        for p in dash["panels"]:
            assert p["datasource"]["uid"] in uids and p["targets"], (path.name, p["title"])
            t = p["targets"][0]
            assert t.get("query") or t.get("expr"), p["title"]
    overview = json.loads((ROOT / "grafana/dashboards/fabric-overview.json").read_text())
    assert {v["name"] for v in overview["templating"]["list"]} == {"fabric", "rail"}
    link = json.loads((ROOT / "grafana/dashboards/link-drilldown.json").read_text())
    assert {v["name"] for v in link["templating"]["list"]} >= {"device", "port"}
    postmortem = json.loads((ROOT / "grafana/dashboards/postmortem.json").read_text())
    assert {v["name"] for v in postmortem["templating"]["list"]} == {"device", "port"}
    assert {a["name"] for a in postmortem["annotations"]["list"]} == {"link events", "findings"}


async def test_every_influxql_query_returns_data(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("fabricwatch")
    sim = await start_sim(fabric={"nodes": 8, "rails": 2, "spines": 2},
                          faults=["flap:leaf-r0-0:swp1,period=4", "pfc_storm:leaf-r1-0:Ethernet4"])
    run = await asyncio.to_thread(simulate, sim.fabric.spec, 300, interval_s=INTERVAL, seed=5, as_served=True)
    fb = FeatureBuilder(INTERVAL)
    model = tmp_path / "m.fwm"
    LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in run.frames]).save(model)
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "detector": {"model": str(model)},
        # DOM every second, so that the optics panels have FEC rates (two readings) within the test
        "collectors": {"gnmi": [{**s, "optics_interval": 1.0} for s in sim.daemon_collectors(0.5)]},
        "sinks": {"influxdb": [{"url": influx.url, "database": "fabricwatch", "flush_interval": 0.2,
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg, sim)
    try:
        await runner.nccl.ingest((FIXTURES / "nccl/allreduce_roce_2x1gpu_interleaved_info.log").read_bytes(),
                                 "allreduce.log")
        data = ROOT / "tests/data/nccl"
        for name in ("all_gather_8x8_sweeps_warn.log", "all_reduce_iters_truncated.log"):
            await runner.nccl.ingest((data / name).read_bytes(), name)
        # until the dashboards' drill-down link has a finding stored (and a little more data), not a
        # fixed time: a loaded machine gets there later
        assert runner.detector is not None
        flagged = False
        for _ in range(240):  # up to 2 minutes: CI once took longer than the 40 s this had
            await asyncio.sleep(0.5)
            flagged = flagged or ("leaf-r0-0", "swp1") in runner.detector.active
            if flagged and runner.detector.intervals >= 6:
                break
        assert flagged, f"the flapping link was not flagged in {runner.detector.intervals} intervals"
        await asyncio.sleep(2)  # the findings' points reach InfluxDB
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    empty = []
    for path in DASHBOARDS:
        for q in influx_queries(json.loads(path.read_text())):
            res = influx.query(substitute(q, "leaf-r0-0", "swp1"), "fabricwatch")
            result = res["results"][0]
            assert "error" not in result, (path.name, q, result)
            if not result.get("series"):
                empty.append((path.name, q))
    assert not empty, empty
