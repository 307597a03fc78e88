"""End to end: a PFC storm in the simulator pages through a real Prometheus (shipped rules) and a
real Alertmanager to a webhook in the test, labelled with device and port; clearing the fault
delivers the resolved notification. A port an operator shut meanwhile pages nobody."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from fabricwatch.daemon.config import parse
from tests.conftest import FIXTURES, ROOT
from tests.integration.helpers import start_runner, start_sim
from tests.servers import Alertmanager, Prometheus, free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow]


async def test_pfc_storm_pages_and_resolves(tmp_path: Path) -> None:
    received: list[dict[str, Any]] = []

    async def hook(request: web.Request) -> web.Response:
        received.append(await request.json())
        return web.Response(status=200)

    app = web.Application()
    app.router.add_post("/hook", hook)
    hook_runner = web.AppRunner(app)
    await hook_runner.setup()
    hook_port = free_port()
    await web.TCPSite(hook_runner, "127.0.0.1", hook_port).start()

    # swp3 is shut by an operator: admin down, oper down, no traffic; a state, never a page
    sim = await start_sim(fabric={"nodes": 8, "rails": 2, "spines": 2},
                          faults=["pfc_storm:leaf-r0-0:swp2", "shutdown:leaf-r0-0:swp3"])
    daemon_port = free_port()
    thresholds = tmp_path / "nccl.toml"
    thresholds.write_text('[[check]]\ncollective = "all_reduce"\nmin_busbw = 10.0\n')
    cfg = parse({
        "daemon": {"listen": f"127.0.0.1:{daemon_port}"},
        "detector": {"interval": "2s"},
        "nccl": {"thresholds": str(thresholds)},
        "collectors": {"gnmi": sim.daemon_collectors(0.5)},
        "sinks": {"influxdb": [{"database": "x", "url": f"http://127.0.0.1:{free_port()}",
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg, sim)
    await runner.nccl.ingest((FIXTURES / "nccl/allreduce_roce_2x1gpu_interleaved_info.log").read_bytes(), "run.log")
    am = Alertmanager(tmp_path / "am", f"http://127.0.0.1:{hook_port}/hook")
    am.start()
    # the shipped rules, each `for` a quarter as long (the storm's 1m: 15s), so the page comes within
    # seconds rather than a minute; the `for` itself is promtool's to test (tests/unit/test_prometheus_rules.py)
    rules = tmp_path / "fabricwatch.yml"
    shipped = (ROOT / "prometheus/rules/fabricwatch.yml").read_text()
    rules.write_text(re.sub(r"^(\s+for: )(\d+)m$", lambda m: f"{m[1]}{int(m[2]) * 15}s", shipped, flags=re.M))
    assert rules.read_text().count("for: ") == shipped.count("for: ") > 0 and "for: 15s" in rules.read_text()
    prom = Prometheus(tmp_path / "prom", [f"127.0.0.1:{daemon_port}"], [rules], f"127.0.0.1:{am.port}")
    prom.start()

    def storm_alerts(status: str) -> list[dict[str, Any]]:
        return [a for msg in received for a in msg["alerts"]
                if a["labels"]["alertname"] == "FabricwatchPfcStorm" and a["status"] == status]

    try:
        for _ in range(720):  # for: 15s, then Alertmanager
            await asyncio.sleep(0.25)
            if storm_alerts("firing"):
                break
        firing = storm_alerts("firing")
        assert firing, f"no page; prometheus sees {prom.query('fabricwatch_link_condition')}"
        labels = firing[0]["labels"]
        assert (labels["device"], labels["port"], labels["severity"]) == ("leaf-r0-0", "swp2", "critical")
        assert (labels["rail"], labels["role"]) == ("0", "leaf_down")  # Alertmanager groups by rail
        assert "leaf-r0-0:swp2" in firing[0]["annotations"]["summary"]
        # every Prometheus panel query of the shipped dashboards returns data from this Prometheus
        for path in sorted((ROOT / "grafana/dashboards").glob("*.json")):
            for panel in json.loads(path.read_text())["panels"]:
                if panel["datasource"]["type"] != "prometheus":
                    continue
                expr = panel["targets"][0]["expr"].replace("$__rate_interval", "1m")
                assert prom.query(expr), (path.name, panel["title"], expr)
        assert prom.query('fabricwatch_link_flagged{severity="critical"}')
        # the shut port reached the daemon as admin down, and no condition holds on it
        assert runner.pipeline.rates.last_value(("leaf-r0-0", "swp3"), "admin_status") == 0
        assert runner.pipeline.rates.last_value(("leaf-r0-0", "swp3"), "oper_status") == 0
        assert prom.query('fabricwatch_link_condition{device="leaf-r0-0",port="swp3"}') == []
        async with aiohttp.ClientSession() as s, s.delete(f"{sim.control_url}/faults") as resp:
            assert (await resp.json())["removed"] == 2
        for _ in range(360):
            await asyncio.sleep(0.25)
            if storm_alerts("resolved"):
                break
        resolved = storm_alerts("resolved")
        assert resolved and resolved[0]["labels"]["port"] == "swp2"
        # nothing else paged: the fabric was otherwise healthy, and the shut port is no fault
        assert {a["labels"]["alertname"] for msg in received for a in msg["alerts"]} == {"FabricwatchPfcStorm"}
        assert not [a for msg in received for a in msg["alerts"] if a["labels"].get("port") == "swp3"]
    finally:
        prom.stop()
        am.stop()
        runner.stop()
        await task
        await sim.stop()
        await hook_runner.cleanup()
