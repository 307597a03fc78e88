"""A target removed on reload takes its ports with it: rates, /api/links, the live view's source,
/metrics and the detector's state (gNMI, SNMP, UFM and ibdiag targets)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import tomli_w

from fabricwatch.daemon.config import load
from fabricwatch.daemon.runner import Runner
from fabricwatch.simulator.service import Simulator
from tests.ibtools import ib_stand_ins
from tests.integration.helpers import start_sim
from tests.servers import free_port

pytestmark = pytest.mark.integration


async def _setup(kind: str, tmp_path: Path, fixtures: Path) -> tuple[Simulator | None, list[dict[str, Any]]]:
    if kind == "gnmi":
        sim = await start_sim()
        return sim, sim.daemon_collectors(0.3)
    if kind == "snmp":
        sim = await start_sim(snmp={"devices": ["spine-0", "leaf-r0-0", "leaf-r1-0"]})
        return sim, [dict(s, backoff={"initial": 0.2, "max": 1.0}) for s in sim.daemon_snmp_collectors(0.3)]
    if kind == "ufm":
        sim = await start_sim(ufm={"enabled": True})
        return sim, sim.daemon_ufm_collectors(0.3)
    disc, perf = ib_stand_ins(tmp_path, fixtures)
    return None, [{"fabric": "lab-ib", "ibnetdiscover": [disc, "-p"], "perfquery": [perf, "-x", "{lid}"],
                   "interval": 0.3, "timeout": 2.0}]


SINK_PORT = free_port()  # nothing listens: the spool keeps the points, the test looks at the daemon


def _write(path: Path, kind: str, sections: list[dict[str, Any]], tmp_path: Path) -> None:
    doc = {"daemon": {"listen": "127.0.0.1:0"},
           "collectors": {kind: sections} if sections else {},
           "sinks": {"influxdb": [{"api": "v1", "url": f"http://127.0.0.1:{SINK_PORT}", "database": "x",
                                   "spool": {"dir": str(tmp_path / "spool")}}]}}
    path.write_text(tomli_w.dumps(doc))


async def _get(url: str) -> str:
    async with aiohttp.ClientSession() as session, session.get(url) as resp:
        return await resp.text()


@pytest.mark.parametrize("kind", ["gnmi", "snmp", "ufm", "ibdiag"])
async def test_a_removed_target_leaves_nothing_behind(kind: str, tmp_path: Path, fixtures: Path) -> None:
    sim, sections = await _setup(kind, tmp_path, fixtures)
    path = tmp_path / "fabricwatch.toml"
    _write(path, kind, sections, tmp_path)
    runner = Runner(load(path), config_path=path)
    task = asyncio.create_task(runner.run(install_signals=False))
    try:
        for _ in range(100):
            if runner.ready:
                break
            await asyncio.sleep(0.05)
        # the target to remove: for gNMI/SNMP one switch of several, for UFM/ibdiag the whole fabric
        many = sum(len(s.get("targets", [])) for s in sections) > 1
        device = sections[0]["targets"][0]["device"] if many else None
        [removed] = [k for k in _keys(runner, kind) if device is None or k.endswith(f":{device}")]
        for _ in range(200):
            ports = set(runner.pipeline.latest)
            if ports and (device is None or any(d == device for d, _ in ports)):
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.7)  # a few more polls, so every port of the target has rates
        before = set(runner.pipeline.latest)
        gone = {k for k in before if device is None or k[0] == device}
        kept = before - gone
        assert gone, f"the {kind} target delivered no rates"
        assert runner.detector is not None and gone & runner.detector.aggregator.open_links()

        if many:
            sections[0]["targets"] = sections[0]["targets"][1:]
            _write(path, kind, [s for s in sections if s["targets"]], tmp_path)
        else:
            _write(path, kind, [], tmp_path)
        assert await runner.reload()
        await asyncio.sleep(0.7)  # the other targets go on meanwhile

        assert removed not in runner.targets
        latest = set(runner.pipeline.latest)
        assert not latest & gone
        assert not any(runner.pipeline.rates.tracks(k) for k in gone)
        assert not runner.detector.aggregator.open_links() & gone
        assert not set(runner.detector.scores) & gone and not set(runner.detector.active) & gone
        assert runner.http is not None
        links = json.loads(await _get(f"{runner.http.url}/api/links?limit=100000"))
        async with aiohttp.ClientSession() as session, session.get(f"{runner.http.url}/api/links?limit=abc") as r:
            assert r.status == 400 and "limit" in (await r.json())["error"]
        assert not {(r["device"], r["port"]) for r in links} & gone
        metrics = await _get(f"{runner.http.url}/metrics")
        name = removed.split(":")[1]
        removed_series = [ln for ln in metrics.splitlines() if ln.startswith("fabricwatch_target_up{")
                          and f'name="{name}"' in ln and (device is None or f'device="{device}"' in ln)]
        assert not removed_series
        if many:  # the switches still configured keep their ports and keep delivering
            assert kept and kept <= latest
            assert all(t.up for t in runner.targets.values())
    finally:
        runner.stop()
        await asyncio.wait_for(task, 30)
        if sim is not None:
            await sim.stop()


def _keys(runner: Runner, kind: str) -> list[str]:
    return [k for k in runner.targets if k.startswith(f"{kind}:")]
