"""Storage outage under load: InfluxDB down for 20 s, then back: every point arrives. The spool's
segments are small, so the outage's backlog spans several of them, replayed in order and removed."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import aiohttp
import pytest

from fabricwatch.daemon.runner import Runner
from tests.integration.helpers import daemon_config, expected_points, spool_dir, start_runner, start_sim
from tests.lp import points
from tests.servers import InfluxDB1

pytestmark = [pytest.mark.integration, pytest.mark.slow]

OUTAGE_S = 20
SEGMENT_BYTES = 1 << 18  # a few records (flushes) of this load each: the outage's backlog spans many


async def scrape(url: str) -> dict[str, float]:
    async with aiohttp.ClientSession() as s, s.get(f"{url}/metrics") as resp:
        text = await resp.text()
    out = {}
    for name in ("fabricwatch_spool_points", "fabricwatch_points_written_total",
                 "fabricwatch_points_retried_total"):
        m = re.search(rf'^{name}{{sink="influxdb"}} (\S+)$', text, re.M)
        assert m, f"{name} missing from /metrics"
        out[name] = float(m.group(1))
    return out


async def test_influxdb_down_20s_nothing_lost(tmp_path: Path) -> None:
    influx = InfluxDB1(tmp_path / "influx")
    influx.start()
    influx.create_db("fw")
    sim = await start_sim(fabric={"nodes": 32, "rails": 4, "spines": 2}, history=2000)
    cfg = daemon_config(sim, {"api": "v1", "url": influx.url, "database": "fw",
                              "flush_interval": 0.2, "batch_size": 2000,
                              "backoff": {"initial": 0.2, "max": 2.0},
                              "spool": {**spool_dir(tmp_path), "segment_bytes": SEGMENT_BYTES}})
    sent: list[str] = []

    def tee_sink(runner: Runner) -> None:
        """Record every line handed to the sink, from the very first one."""
        sink = runner.sinks[0]
        original_write = sink.write

        async def tee(lines: list[str]) -> None:
            sent.extend(lines)
            await original_write(lines)

        sink.write = tee

    runner, task = await start_runner(cfg, sim, prepare=tee_sink)
    assert runner.http is not None
    url = runner.http.url
    history = []
    segments: list[int] = []  # segment files in the spool at each scrape of the outage

    def segment_files() -> int:
        return len(list((tmp_path / "spool").glob("seg-*.log")))

    try:
        async with asyncio.timeout(60):  # InfluxDB takes the daemon's writes before it goes down
            while (await scrape(url))["fabricwatch_points_written_total"] == 0:
                await asyncio.sleep(0.2)
        influx.stop()
        for _ in range(OUTAGE_S):
            await asyncio.sleep(1)
            history.append(await scrape(url))
            segments.append(segment_files())
        influx.start()
        for _ in range(120):
            await asyncio.sleep(0.5)
            history.append(await scrape(url))
            if history[-1]["fabricwatch_spool_points"] == 0:
                break
        await asyncio.sleep(1)
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    stored = influx.series_points("fw", "port_counters")
    influx.stop()

    spooled = [h["fabricwatch_spool_points"] for h in history]
    assert max(spooled) > 4_000, "the spool should have filled during the outage"
    assert max(segments) >= 4, f"the outage's backlog should span several spool segments: {segments}"
    assert spooled == sorted(spooled[: spooled.index(max(spooled)) + 1]) + spooled[spooled.index(max(spooled)) + 1 :]
    assert spooled[-1] == 0, "the spool should have drained"
    assert segment_files() <= 2, "the drained segments should be removed (the one written to stays)"
    assert history[-1]["fabricwatch_points_retried_total"] > 0

    want = points(sent, "port_counters")
    assert len(want) > 3_000  # under load: ~144 ports every 0.5 s for over 20 s
    assert set(stored) == set(want), f"{len(set(want) - set(stored))} points missing"
    for key, fields in want.items():
        assert stored[key] == fields, key
    # and they are the values the simulator served
    served = expected_points(sim)
    for key, fields in stored.items():
        if key in served:
            assert all(served[key][k] == v for k, v in fields.items()), key
