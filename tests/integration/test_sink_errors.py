"""How the InfluxDB sink treats server answers: retry 429/5xx (Retry-After), split on 413, find the
lines a 400 refuses and write the rest. The peer is a real HTTP server that answers what each case
needs, or a real InfluxDB 1.x."""

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

    def __init__(self, answers: list[tuple[int, dict[str, str], str]], max_lines: int | None = None,
                 refuse: set[str] | None = None) -> None:
        self.answers = answers
        self.max_lines = max_lines
        self.refuse = refuse or set()  # lines that make it refuse the whole request, as InfluxDB 2.x OSS does
        self.accepted: list[str] = []
        self.requests: list[tuple[float, int]] = []

    async def write(self, request: web.Request) -> web.Response:
        body = (await request.read()).decode()
        lines = body.split("\n")
        if self.max_lines is not None and len(lines) > self.max_lines:
            self.requests.append((time.monotonic(), 413))
            return web.Response(status=413, text='{"error":"Request Entity Too Large"}')
        if bad := [ln for ln in lines if ln in self.refuse]:
            self.requests.append((time.monotonic(), 400))
            return web.Response(status=400, text=f'{{"code":"invalid","message":"unable to parse {bad[0]!r}"}}')
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


async def test_a_400_for_some_lines_writes_the_rest_and_counts_only_those(serve, tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    bad = {LINES[3], LINES[7]}
    script = Script([], refuse=bad)
    sink = make_sink(await serve(script), tmp_path)
    await sink.start()
    await sink.write(LINES)
    await drain(sink)
    await sink.close()
    assert script.accepted == [ln for ln in LINES if ln not in bad]  # in order
    assert sink.stats.points_rejected == 2 and sink.stats.points_written == 8
    (record,) = [r for r in caplog.records if r.levelname == "ERROR"]  # one line said for the batch
    assert "unable to parse" in record.server_message and record.status == 400 and record.points == 2


async def test_a_400_for_every_line_is_counted_whole_within_a_bounded_number_of_requests(serve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lines = [f"m,device=d,port=p{i} v={i}i {i}" for i in range(2000)]
    script = Script([], refuse=set(lines))
    sink = make_sink(await serve(script), tmp_path, batch_size=2000)
    await sink.start()
    await sink.write(lines)
    await drain(sink)
    await sink.write(["n v=1i 1", "n v=2i 2", "n v=3i 3"])
    await drain(sink)
    await sink.close()
    assert sink.stats.points_rejected == 2000 and sink.stats.points_written == 3
    assert script.accepted == ["n v=1i 1", "n v=2i 2", "n v=3i 3"]
    assert len(script.requests) <= 1 + 32 + 4 * 11 + 1  # the first send, the split's budget, the next batch


async def test_a_partial_write_of_influxdb_1x_counts_the_refused_lines_and_sends_nothing_again(  # type: ignore[no-untyped-def]
        influx, tmp_path: Path) -> None:
    influx.create_db("partial")
    sink = make_sink(influx.url, tmp_path, database="partial")
    await sink.start()
    await sink.write(["t,device=d v=1i 1"])
    await drain(sink)
    # a field type conflict (v is an integer) among good lines; then a line that does not parse
    # (InfluxDB 1.6 names only the conflicts when a request has both)
    await sink.write(["t,device=d v=2i 2", "t,device=d v=2.5 3", "t,device=d v=4i 4"])
    await drain(sink)
    await sink.write(["t,device=d v= 5", "t,device=d v=6i 6"])
    await drain(sink)
    # many refused lines: the answer names them all, far beyond what a log line keeps
    await sink.write([f"t,device=d v= {k}" for k in range(30)] + ["t,device=d v=7i 7"])
    await drain(sink)
    await sink.close()
    assert sink.stats.points_written == 5 and sink.stats.points_rejected == 32
    assert sink.stats.write_errors == {"400": 3}  # nothing sent again
    res = influx.query('SELECT "v" FROM "t"', "partial")
    assert [v for _, v in res["results"][0]["series"][0]["values"]] == [1, 2, 4, 6, 7]


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
