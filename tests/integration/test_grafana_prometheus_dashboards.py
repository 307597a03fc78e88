"""The Prometheus variant of the Grafana dashboards (grafana/dashboards/prometheus/): valid provisioning JSON, and
every PromQL query, variables and Grafana's macros substituted, returns data from a real Prometheus filled by the
daemon (its rates by remote write, its /metrics by scraping) watching a simulated fabric with a flapping link."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.daemon.config import parse
from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from tests.conftest import ROOT
from tests.integration.helpers import start_runner, start_sim
from tests.servers import PrometheusReceiver, free_port

pytestmark = pytest.mark.integration
DASHBOARDS = sorted((ROOT / "grafana" / "dashboards" / "prometheus").glob("*.json"))
INTERVAL = 2.0
DEVICE, PORT = "leaf-r0-0", "swp9"  # an uplink: its far end (spine-0 Ethernet1) is polled too


def queries(dash: dict[str, Any]) -> list[str]:
    out = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    return out + [v["query"] for v in dash["templating"]["list"]]


def substitute(q: str) -> str:
    q = q.replace("$__rate_interval", "1m").replace("$__range", "10m").replace("$__interval", f"{INTERVAL:g}s")
    q = q.replace("$device", DEVICE).replace("$port", PORT)
    return re.sub(r"\$(fabric|rail)", ".*", q)


def run(prom: PrometheusReceiver, q: str) -> list[Any]:
    """A panel's query over the last 10 minutes (query_range), or a variable's label_values (the series API)."""
    now = time.time()
    if q.startswith("label_values("):
        inner = q[len("label_values("):-1]
        match, _, label = inner.rpartition(",")
        params = urllib.parse.urlencode({"match[]": match.strip(), "start": now - 600, "end": now})
        with urllib.request.urlopen(f"{prom.url}/api/v1/series?{params}", timeout=30) as resp:
            return sorted({s[label.strip()] for s in json.loads(resp.read())["data"] if label.strip() in s})
    params = urllib.parse.urlencode({"query": q, "start": now - 600, "end": now, "step": INTERVAL})
    try:
        with urllib.request.urlopen(f"{prom.url}/api/v1/query_range?{params}", timeout=30) as resp:
            answer = json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"{q}: {exc.code} {exc.read()[:300]!r}") from None
    assert answer["status"] == "success", (q, answer)
    return answer["data"]["result"]  # type: ignore[no-any-return]


def test_the_prometheus_dashboards_are_valid_provisioning_json() -> None:
    assert [p.name for p in DASHBOARDS] == ["fabric-overview.json", "link-drilldown.json"]
    influx_uids = {json.loads(p.read_text())["uid"] for p in (ROOT / "grafana" / "dashboards").glob("*.json")}
    for path in DASHBOARDS:
        dash = json.loads(path.read_text())
        assert dash["uid"] not in influx_uids and dash["title"].startswith("fabricwatch")
        assert dash["title"].endswith("(Prometheus)")
        ids = [p["id"] for p in dash["panels"]]
        assert len(ids) == len(set(ids)) and dash["panels"]
        for p in dash["panels"]:
            assert p["datasource"] == {"type": "prometheus", "uid": "fabricwatch-prometheus"}, p["title"]
            assert p["targets"] and all(t["expr"] for t in p["targets"]), p["title"]
    link = json.loads((ROOT / "grafana/dashboards/prometheus/link-drilldown.json").read_text())
    assert [v["name"] for v in link["templating"]["list"]] == ["fabric", "device", "port"]


async def test_every_promql_query_returns_data_from_the_daemons_prometheus(tmp_path: Path) -> None:
    sim = await start_sim(fabric={"nodes": 8, "rails": 2, "spines": 2},
                          faults=[f"flap:{DEVICE}:{PORT},period=4", "pfc_storm:leaf-r1-0:Ethernet4"])
    run_ = await asyncio.to_thread(simulate, sim.fabric.spec, 300, interval_s=INTERVAL, seed=5, as_served=True)
    fb = FeatureBuilder(INTERVAL)
    model = tmp_path / "m.fwm"
    LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in run_.frames]).save(model)
    listen = f"127.0.0.1:{free_port()}"
    prom = PrometheusReceiver(tmp_path / "prometheus", scrape=[listen])
    prom.start()
    cfg = parse({
        "daemon": {"listen": listen},
        "detector": {"model": str(model)},
        "collectors": {"gnmi": sim.daemon_collectors(0.5)},
        "sinks": {"prometheus_remote_write": [{"url": prom.write_url, "flush_interval": 0.2,
                                               "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg, sim)
    try:
        assert runner.detector is not None
        flagged = False
        for _ in range(240):  # until the drill-down's link is flagged and scraped, not a fixed time
            await asyncio.sleep(0.5)
            flagged = flagged or (DEVICE, PORT) in runner.detector.active
            if flagged and runner.detector.intervals >= 6:
                break
        assert flagged, f"the flapping link was not flagged in {runner.detector.intervals} intervals"
        await asyncio.sleep(3)  # a scrape and a flush after it
        empty = []
        for path in DASHBOARDS:
            for q in queries(json.loads(path.read_text())):
                if not run(prom, substitute(q)):
                    empty.append((path.name, q))
        assert not empty, empty
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
        prom.stop()
