"""`/api/findings?from=` reads stored incidents with a blocking query. Against an InfluxDB that does not
answer (a real one, stopped with SIGSTOP), 40 such requests filled the event loop's default thread
pool and an NCCL upload (parsed in that pool) got no answer. The stored queries now run in a pool of
their own, a few at a time (503 beyond), each answered within a total deadline (504)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import aiohttp
import pytest

from fabricwatch.daemon.config import parse
from tests.conftest import FIXTURES
from tests.integration.helpers import start_runner
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration
REAL = FIXTURES / "nccl" / "allreduce_roce_2x1gpu_interleaved_info.log"
DEADLINE, MAX_QUERIES = 1.5, 2


async def test_stored_findings_against_a_stalled_influxdb_leave_uploads_answered(influx: InfluxDB1,
                                                                                tmp_path: Path) -> None:
    influx.create_db("sf")
    assert influx.proc is not None
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0", "query_timeout": DEADLINE, "max_queries": MAX_QUERIES},
        "detector": {"enabled": False},
        "sinks": {"influxdb": [{"url": influx.url, "database": "sf", "flush_interval": 0.1, "close_timeout": 1,
                                "timeout": 1, "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg)
    assert runner.http is not None
    url = runner.http.url
    os.kill(influx.proc.pid, signal.SIGSTOP)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as s:

            async def stored() -> tuple[int, float]:
                t0 = time.monotonic()
                async with s.get(f"{url}/api/findings", params={"from": "-1h"}) as resp:
                    await resp.read()
                    return resp.status, time.monotonic() - t0

            queries = [asyncio.create_task(stored()) for _ in range(40)]
            await asyncio.sleep(0.3)  # they all arrived and wait on the stalled server
            t0 = time.monotonic()
            async with s.post(f"{url}/api/nccl?name=during.log", data=REAL.read_bytes(),
                              timeout=aiohttp.ClientTimeout(total=10)) as resp:
                assert resp.status == 201
            upload_s = time.monotonic() - t0
            answers = await asyncio.gather(*queries)
        statuses = sorted(status for status, _ in answers)
    finally:
        os.kill(influx.proc.pid, signal.SIGCONT)
    try:
        # the threads that met the deadline end with their reads; then a query works again
        status, body = 0, {}
        async with aiohttp.ClientSession() as s:
            for _ in range(50):
                async with s.get(f"{url}/api/findings", params={"from": "-1h"}) as resp:
                    status, body = resp.status, await resp.json()
                if status != 503:
                    break
                await asyncio.sleep(0.2)
        assert status == 200 and body["incidents"] == [], (status, body)
    finally:
        runner.stop()
        assert await task == 0
    assert upload_s < 5.0, upload_s
    # a few ran and met the deadline; the rest were told at once to come back
    assert statuses == [503] * (40 - MAX_QUERIES) + [504] * MAX_QUERIES, statuses
    assert max(t for status, t in answers if status == 504) < DEADLINE + 1.0, answers
    assert max(t for status, t in answers if status == 503) < 1.0, answers
