"""A sink's sender that crashes is counted, makes /readyz say why, is restarted, and loses nothing:
the points it held reach InfluxDB once it runs again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest

from fabricwatch.daemon.config import parse
from fabricwatch.sinks.influxdb.sink import InfluxSink
from tests.integration.helpers import start_runner
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration

LINES = [f"probe,device=d,port=p{i} v={i}i {1_700_000_000_000_000_000 + i}" for i in range(50)]


async def test_a_crashing_sender_is_restarted_readyz_says_so_and_nothing_is_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    influx = InfluxDB1(tmp_path / "influx")
    influx.start()
    influx.create_db("fw")
    broken = [True]
    real_send = InfluxSink._send

    async def send(self: InfluxSink, payload: bytes):  # type: ignore[no-untyped-def]
        if broken[0]:
            raise RuntimeError("a bug in the sender")
        return await real_send(self, payload)

    monkeypatch.setattr(InfluxSink, "_send", send)
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "sinks": {"influxdb": [{"api": "v1", "database": "fw", "url": influx.url, "flush_interval": 0.05,
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg)
    try:
        assert runner.http is not None
        await runner.sinks[0].write(LINES)
        async with aiohttp.ClientSession() as s:
            for _ in range(100):
                async with s.get(f"{runner.http.url}/readyz") as resp:
                    status, body = resp.status, await resp.json()
                if status == 503:
                    break
                await asyncio.sleep(0.02)
            assert status == 503 and "restarting after a crash: sink:influxdb:" in body["reason"], body
            async with s.get(f"{runner.http.url}/metrics") as resp:
                metrics = await resp.text()
            crashes = [ln for ln in metrics.splitlines()
                       if ln.startswith("fabricwatch_task_crashes_total{") and ":sender" in ln]
            assert crashes and float(crashes[0].rsplit(" ", 1)[1]) >= 1, crashes
            broken[0] = False
            for _ in range(200):
                async with s.get(f"{runner.http.url}/readyz") as resp:
                    status = resp.status
                rows = influx.query("SELECT count(v) FROM probe", db="fw")
                series = rows["results"][0].get("series")
                # the query blocks this loop: the sink may not have read InfluxDB's answer yet
                if status == 200 and series and series[0]["values"][0][1] == len(LINES) \
                        and runner.sinks[0].stats.points_written == len(LINES):
                    break
                await asyncio.sleep(0.05)
        assert status == 200
        assert series and series[0]["values"][0][1] == len(LINES)  # every point held through the crash
        assert runner.sinks[0].stats.points_written == len(LINES)
    finally:
        runner.stop()
        assert await task == 0
        influx.stop()
