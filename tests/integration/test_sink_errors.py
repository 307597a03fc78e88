"""How the InfluxDB sink treats server answers: retry 429/5xx (Retry-After), give up on 400,
split on 413. The peer is a real HTTP server that answers what each case needs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from fabricwatch.sinks.influxdb.config import InfluxConfig
from fabricwatch.sinks.influxdb.sink import InfluxSink

pytestmark = pytest.mark.integration


class Script:
    """Answers /write from a list of (status, headers, body); then 204 for ever."""

    def __init__(self, answers: list[tuple[int, dict[str, str], str]], max_lines: int | None = None) -> None:
        self.answers = answers
        self.max_lines = max_lines
        self.accepted: list[str] = []
        self.requests: list[tuple[float, int]] = []

    async def write(self, request: web.Request) -> web.Response:
        body = (await request.read()).decode()
        lines = body.split("\n")
        if self.max_lines is not None and len(lines) > self.max_lines:
            self.requests.append((time.monotonic(), 413))
            return web.Response(status=413, text='{"error":"Request Entity Too Large"}')
        if self.answers:
            status, headers, text = self.answers.pop(0)
            self.requests.append((time.monotonic(), status))
            return web.Response(status=status, headers=headers, text=text)
        self.requests.append((time.monotonic(), 204))
        self.accepted.extend(lines)
        return web.Response(status=204)


@pytest.fixture
async def serve() -> AsyncIterator:  # type: ignore[type-arg]
    runners = []

    async def start(script: Script) -> str:
        app = web.Application()
        app.router.add_post("/write", script.write)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://127.0.0.1:{port}"

    yield start
    for r in runners:
        await r.cleanup()


def make_sink(url: str, tmp_path: Path, **kw) -> InfluxSink:  # type: ignore[no-untyped-def]
    cfg = InfluxConfig.model_validate({
        "api": "v1", "url": url, "database": "fw", "flush_interval": 0.05,
        "backoff": {"initial": 0.05, "max": 0.2}, "spool": {"dir": str(tmp_path / "spool")}, **kw,
    })
    return InfluxSink(cfg)


LINES = [f"m,device=d,port=p{i} v={i}i {i}" for i in range(10)]


async def drain(sink: InfluxSink, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while (sink.spool or sink._buffer) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


async def test_429_honours_retry_after_then_delivers(serve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = Script([(429, {"Retry-After": "1"}, "slow down"), (503, {}, "busy")])
    sink = make_sink(await serve(script), tmp_path)
    await sink.start()
    await sink.write(LINES)
    await drain(sink)
    await sink.close()
    assert script.accepted == LINES
    (t429, _), (t503, _), (_, ok) = script.requests
    assert ok == 204
    assert t503 - t429 >= 0.8  # waited for Retry-After (with jitter), not the 50 ms backoff
    assert sink.stats.points_written == 10 and sink.stats.points_retried == 20
    assert sink.stats.write_errors == {"429": 1, "503": 1}


async def test_400_is_logged_counted_and_not_retried(serve, tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    script = Script([(400, {}, '{"error":"field type conflict"}')])
    sink = make_sink(await serve(script), tmp_path)
    await sink.start()
    await sink.write(LINES)
    await drain(sink)
    await sink.write(LINES[:3])
    await drain(sink)
    await sink.close()
    assert [s for _, s in script.requests] == [400, 204]
    assert sink.stats.points_rejected == 10 and sink.stats.points_written == 3
    (record,) = [r for r in caplog.records if r.levelname == "ERROR"]
    assert "field type conflict" in record.server_message and record.status == 400


async def test_413_splits_the_batch(serve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = Script([], max_lines=3)
    sink = make_sink(await serve(script), tmp_path)
    await sink.start()
    await sink.write(LINES)
    await drain(sink)
    await sink.close()
    assert script.accepted == LINES  # in order, in pieces of at most 3 lines
    assert sink.stats.points_written == 10 and sink.stats.points_rejected == 0


async def test_a_split_part_that_fails_transiently_is_sent_again_never_acknowledged(serve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # the first part small enough to take meets a 503: the record stays spooled and goes again whole
    script = Script([(503, {}, "busy")], max_lines=3)
    sink = make_sink(await serve(script), tmp_path)
    await sink.start()
    await sink.write(LINES)
    await drain(sink)
    await sink.close()
    assert 503 in [s for _, s in script.requests]
    assert set(script.accepted) == set(LINES)  # every point arrived (parts before the 503 twice)
    assert sink.stats.points_rejected == 0 and sink.stats.write_errors.get("503") == 1


async def test_401_holds_the_data_and_retries_slowly(serve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = Script([(401, {}, '{"error":"authorization failed"}')])
    sink = make_sink(await serve(script), tmp_path)
    await sink.start()
    await sink.write(LINES)
    await drain(sink)
    await sink.close()
    assert script.accepted == LINES
    assert sink.stats.points_rejected == 0


async def test_a_missing_database_says_how_to_fix_it_and_catches_up_once_created(influx, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """InfluxDB 1.x without the database: the error names the fix, nothing is lost, and the data
    flows within seconds of the database appearing (not at the longest backoff step)."""
    sink = make_sink(influx.url, tmp_path / "a", database="latedb", backoff={"initial": 0.05, "max": 60.0})
    assert 'CREATE DATABASE "latedb"' in (await sink.writer.check() or "")
    await sink.start()
    await sink.write(LINES)
    for _ in range(100):
        if sink.stats.last_error:
            break
        await asyncio.sleep(0.05)
    assert 'CREATE DATABASE "latedb"' in sink.stats.last_error and "create_database = true" in sink.stats.last_error
    influx.create_db("latedb")
    await drain(sink, timeout=20)
    await sink.close()
    assert sink.spool.pending_points == 0 and sink.stats.points_rejected == 0
    res = influx.query('SELECT count("v") FROM "m"', "latedb")
    assert res["results"][0]["series"][0]["values"][0][1] == len(LINES)


async def test_create_database_creates_it_on_first_refusal(influx, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sink = make_sink(influx.url, tmp_path / "b", database="autodb", create_database=True)
    await sink.start()
    await sink.write(LINES)
    await drain(sink)
    await sink.close()
    assert sink.spool.pending_points == 0
    res = influx.query('SELECT count("v") FROM "m"', "autodb")
    assert res["results"][0]["series"][0]["values"][0][1] == len(LINES)
