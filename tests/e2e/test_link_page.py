"""The link page as an operator opens it in an incident, rendered by headless Chromium: plots with
axes, units and UTC time marks, the fabric's own counters (IB: xmit_wait, symbol errors, link
downed, BER; RoCE: PFC per priority, ECN, discards, FEC), the finding's time shaded, an optics panel
(lanes against the module's thresholds, vendor/part/serial or who does not report them), the port's
state or which source cannot give it, and hostile names kept as text."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from fabricwatch.core.batch import ModuleInfo, PortSample, SampleBatch
from fabricwatch.daemon.config import DaemonSection, parse
from fabricwatch.daemon.http import HttpServer
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.pipeline.history import LinkHistory
from fabricwatch.pipeline.pipeline import Pipeline
from fabricwatch.simulator.faults import Fault
from fabricwatch.slurm.records import Job, Node
from tests.apart import Runs, side_by_side
from tests.e2e.test_fabric_page import chromium
from tests.integration.helpers import start_runner, start_sim
from tests.unit.test_http_layer import FakeHealth, FakeMetrics, FakeUploads

pytestmark = pytest.mark.integration
S = 1_000_000_000
HOSTILE = 'leaf"><img src=x onerror="document.body.dataset.pwned=1">'
HOSTILE_PORT = "<b>p1</b>"


def link_url(url: str, device: str, port: str) -> str:
    return f"{url}/#link/{quote(device, safe='')}/{quote(port, safe='')}"


def charts(dom: str) -> dict[str, str]:
    """data-series -> the chart's markup."""
    return dict(re.findall(r'<figure class="chart" data-series="([^"]+)"[^>]*>(.*?)</figure>', dom, re.S))


def units(dom: str) -> dict[str, str]:
    return dict(re.findall(r'<figure class="chart" data-series="([^"]+)" data-unit="([^"]+)"', dom))


def assert_plot(markup: str) -> None:
    """Axes with tick labels, time marks in UTC ISO, this end's line."""
    assert '<g class="axis y">' in markup and '<g class="axis x">' in markup, markup[:500]
    assert len(re.findall(r'<text class="tick"', markup)) >= 4
    assert re.search(r'data-time="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"', markup)
    assert "time (UTC)" in markup and 'class="mine"' in markup


def ib_pipeline() -> Pipeline:
    """An InfiniBand port under a hostile name with 20 s of counters and a module's readings."""
    pipe = Pipeline(history=LinkHistory(step_s=1, slots=60))
    now = time.time_ns() - 20 * S
    tags = {"fabric": "ib", "speed": "400G"}
    for i in range(20):
        values: dict[str, float] = {
            "in_octets": i * 25e9, "out_octets": i * 24e9, "xmit_wait": i * 5e5, "symbol_errors": i * 40.0,
            "link_downed": float(i // 10), "oper_status": 1.0, "temperature_c": 40.0 + i / 10,
            "ib_raw_ber": 1e-9 * (1 + i),
            **{f"rx_power_dbm_l{n}": -2.0 - n / 10 for n in range(1, 5)},
            **{f"tx_power_dbm_l{n}": -0.5 for n in range(1, 5)}, **{f"tx_bias_ma_l{n}": 7.0 for n in range(1, 5)},
            "rx_power_dbm_low_alarm": -13.0, "rx_power_dbm_low_warn": -10.0, "rx_power_dbm_high_warn": 2.0,
            "rx_power_dbm_high_alarm": 4.0,
        }
        pipe.process(SampleBatch("ufm", HOSTILE, [PortSample(HOSTILE, HOSTILE_PORT, now + i * S, values, dict(tags))],
                                 modules=[ModuleInfo(HOSTILE, HOSTILE_PORT, now, {
                                     "vendor": "<script>document.body.dataset.pwned=2</script>",
                                     "part_number": "MMA4Z00-NS", "serial": "SN<i>1</i>"})]), target="ufm:u")
    return pipe


async def test_an_ib_link_plots_its_own_counters_lists_its_lanes_and_keeps_hostile_names_as_text() -> None:
    pipe = ib_pipeline()
    targets = {"ufm:u": TargetStatus("ufm", "<u>ufm</u>", "ufm-1", "127.0.0.1:1", up=True)}
    http = HttpServer("127.0.0.1:0", settings=lambda: DaemonSection(site="<i>site</i>"), max_upload_bytes=1 << 20,
                      health=FakeHealth(), metrics=FakeMetrics(), targets=targets, links=pipe, findings=None,
                      storage=[], uploads=FakeUploads(), cluster=None)
    await http.start()
    try:
        dom = (await asyncio.to_thread(chromium, "--dump-dom", link_url(http.url, HOSTILE, HOSTILE_PORT))).stdout
    finally:
        await http.stop()
    assert 'data-loaded="1"' in dom and 'data-fabric="ib"' in dom, dom[:3000]
    # nothing from the daemon became markup (an executed handler would have marked the body)
    assert "data-pwned" not in dom and "<img" not in dom and "<b>p1</b>" not in dom and "&lt;b&gt;p1&lt;/b&gt;" in dom
    assert "&lt;script&gt;document.body.dataset.pwned=2&lt;/script&gt;" in dom and "SN&lt;i&gt;1&lt;/i&gt;" in dom
    got = charts(dom)
    # InfiniBand's own counters, no PFC or ECN (always 0 there)
    assert {"xmit_wait", "symbol_errors", "link_downed", "ber", "in_gbps", "util"} <= set(got), sorted(got)
    assert not {"pauses", "ecn"} & set(got) and not any(k.startswith("pfc_") for k in got)
    for markup in got.values():
        assert_plot(markup)
    u = units(dom)
    assert u["in_gbps"] == "Gb/s" and u["util"] == "%" and u["xmit_wait"] == "ticks/s" and u["ber"] == "ratio"
    assert re.search(r">1e-\d+</text>", got["ber"])  # log scale by decades
    # the optics panel: every lane, against the module's thresholds where it gives them
    assert re.findall(r'<tr class="lane" data-lane="(\d)">', dom) == ["1", "2", "3", "4"]
    assert "warn -10 … 2, alarm -13 … 4" in dom
    assert "not reported by ufm &lt;u&gt;ufm&lt;/u&gt;" in dom  # tx power thresholds, media: who does not give them
    assert 'data-field="temperature">41.9 °C' in dom and "MMA4Z00-NS" in dom
    # the port's state, and every time on the page in UTC ISO
    assert 'data-state="up"' in dom
    assert re.search(r"last sample \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", dom)


async def _storm_and_optic(tmp_path: Path) -> dict[str, Any]:
    sim = await start_sim(fabric={"nodes": 8, "rails": 2, "spines": 2})
    storm_port = sim.fabric.topology.devices["leaf-r1-0"].ports[1].name
    optic_port = sim.fabric.topology.devices["leaf-r0-0"].ports[2].name
    for spec in (f"pfc_storm:leaf-r1-0:{storm_port}", f"aging_optic:leaf-r0-0:{optic_port},ramp=20"):
        sim.fabric.inject(Fault.parse(spec))
    sections = sim.daemon_collectors(0.5)
    for s in sections:
        s["optics_interval"] = 1.0
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "detector": {"interval": "2s", "raise_k": 2, "raise_n": 3},
        "pipeline": {"history": "60s", "history_step": "1s"},
        "collectors": {"gnmi": sections},
        "sinks": {"influxdb": [{"api": "v1", "database": "x", "url": "http://127.0.0.1:9",
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg, sim)
    assert runner.http is not None and runner.detector is not None
    try:
        for _ in range(120):
            await asyncio.sleep(0.5)
            rx3 = runner.pipeline.rates.last_value(("leaf-r0-0", optic_port), "rx_power_dbm_l3")
            warn = runner.pipeline.rates.last_value(("leaf-r0-0", optic_port), "rx_power_dbm_low_warn")
            if ("leaf-r1-0", storm_port) in runner.detector.active and rx3 is not None and warn is not None \
                    and rx3 < warn:
                break
        url = runner.http.url
        storm, optic = (r.stdout for r in await asyncio.gather(  # two browsers side by side
            asyncio.to_thread(chromium, "--dump-dom", link_url(url, "leaf-r1-0", storm_port)),
            asyncio.to_thread(chromium, "--dump-dom", link_url(url, "leaf-r0-0", optic_port))))
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    return {"storm": storm, "optic": optic}


def test_a_pfc_storm_and_an_aging_optic_from_the_simulator(runs: Runs, request: pytest.FixtureRequest) -> None:
    storm, optic = runs.of(request)["storm"], runs.of(request)["optic"]
    assert 'data-fabric="roce"' in storm, storm[:3000]
    got = charts(storm)
    assert {"in_gbps", "out_gbps", "util", "pauses", "pfc_p3", "ecn", "discards", "errors"} <= set(got), sorted(got)
    assert "pfc_p0" not in got and "PFC priorities 0, 1, 2, 4, 5, 6, 7: no pause frames" in storm
    for markup in got.values():
        assert_plot(markup)
    u = units(storm)
    assert u["pfc_p3"] == "frames/s" and u["in_gbps"] == "Gb/s" and u["util"] == "%"
    assert 'class="finding-span sev-critical"' in got["pfc_p3"]  # the finding's time shaded
    assert "PFC pause storm" in storm and "toLocale" not in storm
    # sonic's COUNTERS_DB or a state the source gives: either a state, or who cannot give it
    assert re.search(r'data-state="(up|not_reported)"', storm)
    # the aging optic: lanes, thresholds, vendor, BER on a log scale, temperature
    lanes = re.findall(r'<tr class="lane" data-lane="(\d)">', optic)
    assert lanes[:4] == ["1", "2", "3", "4"], optic[-4000:]
    assert re.search(r'data-field="vendor">[A-Z]', optic) and re.search(r'data-field="serial">SIM', optic)
    optic_charts = charts(optic)
    assert {"ber", "temperature"} <= set(optic_charts) and re.search(r">1e-\d+</text>", optic_charts["ber"])
    assert re.search(r'class="lane-value (warn|alarm)">-\d', optic)  # lane 3 losing light


async def _ib_uplink(tmp_path: Path) -> dict[str, Any]:
    sim = await start_sim(ufm={"enabled": True}, fabric={"nodes": 4, "rails": 2, "spines": 2, "fabric": "ib"})
    up = next(p.name for p in sim.fabric.topology.devices["leaf-r0-0"].ports if p.role == "leaf_up")
    sim.fabric.inject(Fault.parse(f"ber:leaf-r0-0:{up},rate=200"))
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "pipeline": {"history": "60s", "history_step": "1s"},
        "collectors": {"ufm": sim.daemon_ufm_collectors(1.0)},
        "sinks": {"influxdb": [{"api": "v1", "database": "x", "url": "http://127.0.0.1:9",
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg, sim)
    assert runner.http is not None
    try:
        for _ in range(60):
            await asyncio.sleep(0.5)
            if ("leaf-r0-0", up) in runner.pipeline.modules and runner.pipeline.history is not None and \
                    "symbol_errors" in runner.pipeline.history.of(("leaf-r0-0", up), time.time_ns())["series"]:
                break
        await asyncio.sleep(2)
        dom = (await asyncio.to_thread(chromium, "--dump-dom", link_url(runner.http.url, "leaf-r0-0", up))).stdout
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    return {"dom": dom}


def test_an_ib_uplink_read_through_ufm(runs: Runs, request: pytest.FixtureRequest) -> None:
    dom = runs.of(request)["dom"]
    assert 'data-fabric="ib"' in dom, dom[:3000]
    got = charts(dom)
    assert {"xmit_wait", "symbol_errors", "link_downed", "ber"} <= set(got), sorted(got)
    assert not {"pauses", "ecn"} & set(got)
    assert_plot(got["symbol_errors"])
    assert 'class="far"' in got["in_gbps"]  # the spine's end, dashed
    assert "via ufm sim-ufm" in dom and 'data-state="up"' in dom
    assert re.search(r'data-field="serial">SIM', dom)
    assert re.findall(r'<tr class="lane" data-lane="(\d)">', dom)[:4] == ["1", "2", "3", "4"]


class ListedJobs:
    """The `SlurmReader` protocol answered from a list: what slurmrestd and `squeue --json` give is proven
    against a real Slurm in tests/integration/test_slurm.py (where a real job's hostile name is shown
    on both pages); a real test cluster cannot hold a user name with markup, nor 25 jobs on one 1-CPU node."""

    def __init__(self, jobs: list[Job]) -> None:
        self.listed = jobs

    async def jobs(self, *, running: bool = True) -> list[Job]:
        return list(self.listed)

    async def nodes(self) -> list[Node]:
        return []


async def _many_jobs(tmp_path: Path) -> dict[str, Any]:
    sim = await start_sim(fabric={"nodes": 4, "rails": 2, "spines": 2})
    port = next(p for d in sim.fabric.topology.devices.values() for p in d.ports
                if p.role == "leaf_down" and p.peer_device == "node000" and p.rail == 0)
    sim.fabric.inject(Fault.parse(f"pfc_storm:{port.device}:{port.name}"))
    user, name = "<u onmouseover=x>eve</u>", '"><script>document.body.dataset.pwned=3</script>'
    cfg = parse({"daemon": {"listen": "127.0.0.1:0"}, "detector": {"interval": "2s", "raise_k": 2, "raise_n": 3},
                 "collectors": {"gnmi": sim.daemon_collectors(0.5)},
                 "slurm": {"command": "squeue", "slurm_conf": str(tmp_path / "none.conf"), "every": "0.5s"},
                 "sinks": {"influxdb": [{"api": "v1", "database": "x", "url": "http://127.0.0.1:9",
                                         "spool": {"dir": str(tmp_path / "spool")}}]}}, "<test>")
    runner, task = await start_runner(cfg, sim)
    assert runner.http is not None and runner.detector is not None and runner.slurm is not None
    runner.slurm.reader = ListedJobs([Job(str(100 + i), user, name, ("node000",)) for i in range(25)])
    key = (port.device, port.name)
    try:
        for _ in range(120):
            await asyncio.sleep(0.5)
            f = runner.detector.active.get(key)
            if f is not None and runner.detector.finding_json(f).get("jobs_total") == 25:
                break
        fabric, page = (r.stdout for r in await asyncio.gather(  # two browsers side by side
            asyncio.to_thread(chromium, "--dump-dom", f"{runner.http.url}/"),
            asyncio.to_thread(chromium, "--dump-dom", link_url(runner.http.url, *key))))
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    return {"fabric": fabric, "page": page, "port": [port.device, port.name]}


def test_many_jobs_with_hostile_users_beside_a_finding_are_bounded_and_kept_as_text(
        runs: Runs, request: pytest.FixtureRequest) -> None:
    ran = runs.of(request)
    fabric, page, (device, port_name) = ran["fabric"], ran["page"], ran["port"]
    shown = ("(&lt;u onmouseover=x&gt;eve&lt;/u&gt;, \"&gt;&lt;script&gt;document.body.dataset.pwned=3&lt;/script&gt;, "
             "1 node)")
    for dom in (fabric, page):
        assert 'data-loaded="1"' in dom, dom[:2000]
        assert "data-pwned" not in dom and "<u " not in dom and "<script>document" not in dom
        assert '<div class="jobs" data-jobs-total="25"><span>25 Slurm jobs on this link: </span>' in dom, dom[-3000:]
        assert f'<span class="job" data-job-id="100">100 {shown}</span>' in dom
    # the fabric page's list: three jobs in full, the next ids, and how many more the API did not list
    item = re.search(rf'<li class="finding" data-device="{device}" data-port="{port_name}">.*?</li>', fabric, re.S)
    assert item, fabric[-3000:]
    assert re.findall(r'data-job-id="(\d+)"', item.group(0)) == ["100", "101", "102"]
    assert f'<span class="job-ids">; then {", ".join(str(i) for i in range(103, 120))}</span>' in item.group(0)
    assert '<span class="jobs-more"> and 5 more</span>' in item.group(0)
    # the link page: every job the API lists ([slurm] max_jobs_shown, 20) in full, then the count
    panel = re.search(r'<div id="link-finding">.*?</div></div>', page, re.S)
    assert panel and re.findall(r'data-job-id="(\d+)"', panel.group(0)) == [str(i) for i in range(100, 120)]
    assert '<span class="jobs-more"> and 5 more</span>' in panel.group(0) and "job-ids" not in panel.group(0)


# the runs of the three tests above with a simulator and a daemon (each waits on the wall clock, then two
# browsers read its pages) go side by side, each in a process of its own (tests/apart.py)
RUNS = {"test_a_pfc_storm_and_an_aging_optic_from_the_simulator": _storm_and_optic,
        "test_an_ib_uplink_read_through_ufm": _ib_uplink,
        "test_many_jobs_with_hostile_users_beside_a_finding_are_bounded_and_kept_as_text": _many_jobs}
runs = side_by_side(at_once=3)
