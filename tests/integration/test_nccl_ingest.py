"""NCCL results into InfluxDB: `nccl ingest`, the daemon's upload endpoint, a watched directory."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from fabricwatch.daemon.config import parse
from tests.conftest import FIXTURES, ROOT
from tests.integration.helpers import start_runner
from tests.servers import InfluxDB1, free_port

pytestmark = pytest.mark.integration
REAL = FIXTURES / "nccl" / "allreduce_roce_2x1gpu_interleaved_info.log"
JSON_RUN = ROOT / "tests" / "data" / "nccl" / "sendrecv_json.json"


def count(influx: InfluxDB1, db: str, where: str = "") -> int:
    res = influx.query(f'SELECT count("busbw") FROM "nccl_results" {where}', db)
    series = res["results"][0].get("series")
    return int(series[0]["values"][0][1]) if series else 0


def test_cli_ingest_is_idempotent(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("n1")
    conf = tmp_path / "fw.toml"
    # an MQTT sink in the same config carries events, not results: ingest must leave it alone
    conf.write_text(f"[[sinks.influxdb]]\nurl = \"{influx.url}\"\ndatabase = \"n1\"\n"
                    f"spool = {{ dir = \"{tmp_path}/spool\" }}\n[[sinks.mqtt]]\nport = {free_port()}\n")
    for _ in range(2):  # the same file twice: the same points, not twice as many
        res = subprocess.run([sys.executable, "-m", "fabricwatch", "nccl", "ingest", "-c", str(conf), str(REAL),
                              str(JSON_RUN)], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
    assert count(influx, "n1", "WHERE \"collective\" = 'all_reduce'") == 26  # 13 sizes x 2 places
    assert count(influx, "n1", "WHERE \"collective\" = 'sendrecv'") == 6
    res = influx.query('SELECT "busbw", "hosts" FROM "nccl_results" WHERE "size" = \'1073741824\' '
                       'AND "place" = \'out_of_place\'', "n1")
    (row,) = res["results"][0]["series"][0]["values"]
    assert row[1] == 15.12 and row[2] == "MOC-R4PCC04U35,MOC-R4PCC04U37"


async def test_upload_endpoint_and_watched_dir(influx: InfluxDB1, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    influx.create_db("n2")
    monkeypatch.setenv("FW_UPLOAD_TOKEN", "t0ken")
    inbox = tmp_path / "inbox"
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "nccl": {"upload_token": {"env": "FW_UPLOAD_TOKEN"}, "max_upload_bytes": 64 * 1024,
                 "watch_dir": str(inbox), "poll_interval": 0.2},
        "sinks": {"influxdb": [{"url": influx.url, "database": "n2", "flush_interval": 0.1,
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg)
    assert runner.http is not None
    url = f"{runner.http.url}/api/nccl?name=allreduce.log"
    try:
        async with aiohttp.ClientSession() as s:
            async with s.post(url, data=REAL.read_bytes()) as resp:
                assert resp.status == 401
            auth = {"Authorization": "Bearer t0ken"}
            async with s.post(url, data=b"x" * (65 * 1024), headers=auth) as resp:
                assert resp.status == 413
            async with s.post(url, data=b"hello\nworld\n", headers=auth) as resp:
                assert resp.status == 422
            async with s.post(url, data=REAL.read_bytes(), headers=auth) as resp:
                assert resp.status == 201
                body = await resp.json()
        assert body["runs"][0]["collective"] == "all_reduce" and body["runs"][0]["rows"] == 13
        async with aiohttp.ClientSession() as s, s.get(f"{runner.http.url}/metrics") as resp:
            metrics = await resp.text()
        assert 'fabricwatch_nccl_last_busbw_gbps{collective="all_reduce",nranks="2"} 15.0' in metrics
        for reason in ("auth", "too_large", "empty"):
            assert f'fabricwatch_nccl_rejected_total{{reason="{reason}",source="upload"}} 1.0' in metrics
        inbox.mkdir(exist_ok=True)
        (inbox / "sendrecv.json").write_bytes(JSON_RUN.read_bytes())
        (inbox / "junk.txt").write_text("not a log\n")
        for _ in range(50):
            await asyncio.sleep(0.2)
            if (inbox / "processed" / "sendrecv.json").exists() and (inbox / "failed" / "junk.txt").exists():
                break
        assert (inbox / "processed" / "sendrecv.json").exists() and (inbox / "failed" / "junk.txt").exists()
        await asyncio.sleep(0.5)
    finally:
        runner.stop()
        assert await task == 0
    assert count(influx, "n2", "WHERE \"collective\" = 'all_reduce'") == 26
    assert count(influx, "n2", "WHERE \"collective\" = 'sendrecv'") == 6


async def test_results_published_over_mqtt(influx: InfluxDB1, tmp_path: Path) -> None:
    import aiomqtt

    from tests.servers import Mosquitto

    broker = Mosquitto(tmp_path / "mqtt")
    broker.start()
    influx.create_db("n3")
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "nccl": {"mqtt": {"port": broker.port, "topic": "fabricwatch/+/nccl/results"}},
        "sinks": {"influxdb": [{"url": influx.url, "database": "n3", "flush_interval": 0.1,
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg)
    try:
        await asyncio.sleep(1.0)  # the daemon subscribes
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="harness") as client:
            await client.publish("fabricwatch/lab1/nccl/results", REAL.read_bytes(), qos=1)
            await client.publish("fabricwatch/lab1/nccl/results", b"garbage, not a log", qos=1)
        for _ in range(50):
            await asyncio.sleep(0.2)
            if runner.nccl.ingested_runs >= 1 and runner.nccl.rejected >= 1:
                break
        await asyncio.sleep(0.5)
    finally:
        runner.stop()
        assert await task == 0
        broker.stop()
    assert runner.nccl.ingested_runs >= 1 and runner.nccl.rejected == 1
    assert count(influx, "n3", "WHERE \"collective\" = 'all_reduce'") == 26


async def test_daemon_gates_and_measures_variance_on_ingest(tmp_path: Path) -> None:
    from tests.nccl_logs import render

    sizes = [1 << p for p in range(24, 31)]
    thresholds = tmp_path / "t.toml"
    thresholds.write_text('[[check]]\ncollective = "all_reduce"\nnranks = 16\nmin_size = "256M"\n'
                          "min_busbw = 170.0\nmax_cv_pct = 3.0\nmin_runs = 3\n")
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "detector": {"enabled": False},
        "nccl": {"thresholds": str(thresholds)},
        "sinks": {"influxdb": [{"database": "x", "url": "http://127.0.0.1:9", "spool": {"dir": str(tmp_path / "s")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg)
    try:
        for i, j in enumerate((0.0, 0.004, -0.003)):
            log = render("all_reduce", ["n1", "n2"], 8, {s: 180.0 * (1 + j) for s in sizes})
            await runner.nccl.ingest(log.encode(), f"h{i}.log")
        assert runner.nccl.gate_passed == {"all_reduce, 16 ranks, sizes 256 MiB to the largest": True}
        slow = render("all_reduce", ["n1", "n2"], 8, {s: 180.0 * (0.8 if s >= 256 << 20 else 1) for s in sizes})
        await runner.nccl.ingest(slow.encode(), "slow.log")
        assert runner.nccl.gate_passed["all_reduce, 16 ranks, sizes 256 MiB to the largest"] is False
        assert runner.nccl.cv_pct[("all_reduce", 16)] > 5 and runner.nccl.flagged_runs[("all_reduce", 16)] == 1
        async with aiohttp.ClientSession() as s, s.get(f"{runner.http.url}/metrics") as resp:  # type: ignore[union-attr]
            text = await resp.text()
        assert 'fabricwatch_nccl_gate_passed{check="all_reduce, 16 ranks, sizes 256 MiB to the largest"} 0.0' in text
        assert 'fabricwatch_nccl_runs_flagged{collective="all_reduce",nranks="16"} 1.0' in text
    finally:
        runner.stop()
        await task
