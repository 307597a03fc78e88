"""The fabric page at `/`, loaded by headless Chromium from a daemon watching the simulator: the
faulted links are the ones coloured as findings, a healthy link is not, the link page names the
far end. Screenshots of both views are kept in the test's temp dir (and under FABRICWATCH_SHOTS)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
from pathlib import Path

import aiohttp
import pytest

from fabricwatch.daemon.config import parse
from tests.integration.helpers import start_runner, start_sim
from tests.servers import require

pytestmark = pytest.mark.integration

def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium; missing, the test fails (scripts/test.sh installs it), never skips."""
    return subprocess.run([require("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
                           "--window-size=1600,1000", "--virtual-time-budget=6000", *args],
                          capture_output=True, text=True, timeout=120)


def cells(dom: str) -> dict[tuple[str, str], int]:
    return {(d, p): int(s) for d, p, s in re.findall(
        r'class="cell[^"]*" data-device="([^"]+)" data-port="([^"]+)" data-severity="(\d)"', dom)}


async def test_fabric_page_colours_the_faulted_links_and_opens_a_link(tmp_path: Path) -> None:
    sim = await start_sim(fabric={"nodes": 16, "rails": 4, "spines": 2},
                          faults=["pfc_storm:leaf-r0-0:swp2", "ecn_off:leaf-r2-0", "flap:leaf-r0-0:swp1,period=2",
                                  "shutdown:leaf-r3-0:Ethernet5"])
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0", "site": "pagetest"},
        "detector": {"interval": "2s", "raise_k": 2, "raise_n": 3},
        "collectors": {"gnmi": sim.daemon_collectors(0.5)},
        "sinks": {"influxdb": [{"api": "v1", "database": "x", "url": "http://127.0.0.1:9",
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg, sim)
    assert runner.http is not None and runner.detector is not None
    try:
        url = runner.http.url
        # the sim's traffic has lulls in which nothing can judge ECN, and a finding nobody can see goes: the
        # page is read while both findings are up (a few tries: the dump takes seconds on a busy machine)
        for _ in range(3):
            for _ in range(60):
                await asyncio.sleep(0.5)
                if {("leaf-r0-0", "swp2"), ("leaf-r2-0", "*")} <= set(runner.detector.active):
                    break
            async with aiohttp.ClientSession() as s:
                async with s.get(f"{url}/") as resp:
                    assert resp.status == 200 and "default-src 'self'" in resp.headers["Content-Security-Policy"]
                async with s.get(f"{url}/api/fabric") as resp:
                    doc = await resp.json()
            dom = (await asyncio.to_thread(chromium, "--dump-dom", f"{url}/")).stdout
            if any(d == "leaf-r2-0" and sev > 0 for (d, _), sev in cells(dom).items()):
                break
        shot = tmp_path / "fabric.png"
        link_shot = tmp_path / "link.png"
        fields = doc["port_fields"]
        uplink = next(p[fields.index("port")] for d in doc["devices"] if d["device"] == "leaf-r1-0"
                      for p in d["ports"] if p[fields.index("role")] == "leaf_up")
        _, link_dom, _, flap_dom, healthy_dom = (r.stdout for r in await asyncio.gather(  # browsers side by side
            asyncio.to_thread(chromium, f"--screenshot={shot}", f"{url}/"),
            asyncio.to_thread(chromium, "--dump-dom", f"{url}/#link/leaf-r0-0/swp2"),
            asyncio.to_thread(chromium, f"--screenshot={link_shot}", f"{url}/#link/leaf-r0-0/swp2"),
            asyncio.to_thread(chromium, "--dump-dom", f"{url}/#link/leaf-r0-0/swp1"),
            asyncio.to_thread(chromium, "--dump-dom", f"{url}/#link/leaf-r1-0/{uplink}")))
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    assert 'data-loaded="1"' in dom, dom[:2000]  # the script ran and drew from the API
    colour = cells(dom)
    ports = sum(len(d["ports"]) for d in doc["devices"])
    assert len(colour) == ports > 50  # every port of the fabric is on the map
    assert colour[("leaf-r0-0", "swp2")] == 2  # the PFC storm: critical
    ecn = {p for (d, p), s in colour.items() if d == "leaf-r2-0" and s > 0}
    assert ecn  # the switch with ECN off: its ports carry the device finding
    flagged = {k for k, s in colour.items() if s > 0}
    assert all(d in ("leaf-r0-0", "leaf-r2-0") for d, _ in flagged), flagged  # the flap is on leaf-r0-0 too
    # a port an operator shut is drawn as shut, not as a link that fell down, and is no finding
    shut = re.search(r'class="cell finding-0 disabled" data-device="leaf-r3-0" data-port="Ethernet5"', dom)
    assert shut, re.findall(r'<div class="cell[^>]*data-device="leaf-r3-0"[^>]*>', dom)[:6]
    assert 'class="cell finding-0 down" data-device="leaf-r3-0"' not in dom
    healthy = next(k for k in colour if k[0] == "leaf-r1-0")
    assert colour[healthy] == 0
    assert "PFC pause storm" in dom and "pagetest" in dom
    storm = next(f for f in doc["findings"] if f["port"] == "swp2")
    assert storm["raised"] and storm["raised_ns"] <= storm["time_ns"]  # when it was raised, not only now
    assert f"raised {storm['raised']}" in dom
    # the link page: its finding, its far end, its counters
    assert 'data-device="leaf-r0-0" data-port="swp2"' in link_dom
    assert "PFC pause storm" in link_dom and "far end:" in link_dom and "pfc_tx_p3" in link_dom
    # its last hour from the daemon's memory: the storm's pauses plotted (its far end, a host, is
    # not watched here)
    pauses = re.search(r'data-series="pauses" data-unit="frames/s">.*?this end: latest ([^,]+),.*?</svg>',
                       link_dom, re.S)
    assert pauses and pauses.group(1)[-1] in "kM" and 'class="mine" points="' in pauses.group(0)
    assert "far end not watched" in link_dom
    # the flapping link's events
    assert re.search(r'class="event" data-kind="(oper_down|flap)"', flap_dom), flap_dom[-3000:]
    # a healthy uplink: no finding, no events, its traffic plotted beside its spine's end (dashed)
    assert 'data-loaded="1"' in healthy_dom and "no finding on this link" in healthy_dom
    assert 'class="event"' not in healthy_dom and "no events kept for this link" in healthy_dom
    traffic = re.search(r'data-series="out_gbps" data-unit="Gb/s">.*?</svg>', healthy_dom, re.S)
    assert traffic and 'class="far"' in traffic.group(0) and 'class="mine"' in traffic.group(0)
    for png in (shot, link_shot):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
        if os.environ.get("FABRICWATCH_SHOTS"):
            shutil.copy(png, Path(os.environ["FABRICWATCH_SHOTS"]) / png.name)
