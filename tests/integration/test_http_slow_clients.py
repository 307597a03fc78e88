"""Slowloris: clients that drip their headers (or an upload's body) a byte at a time hold a connection
each for as long as they like unless the listener bounds them. Under such an attack the daemon must
drop them after its header and body timeouts, hold at most `http_max_connections` connections, keep
answering /healthz and keep collecting."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import aiohttp
import pytest

from fabricwatch.daemon.config import parse
from fabricwatch.daemon.http import BACKLOG
from tests.conftest import ROOT
from tests.integration.helpers import start_runner, start_sim
from tests.servers import free_port

pytestmark = pytest.mark.integration
HEADER_TIMEOUT, BODY_TIMEOUT, CAP = 1.0, 2.0, 200


def held_sockets(port: int) -> int:
    """Connected sockets this process holds on its side of `port` (the daemon's end of each connection)."""
    local: dict[str, int] = {}
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] != "0A":  # not the listening socket
                    local[fields[9]] = int(fields[1].rsplit(":", 1)[1], 16)
    held = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and local.get(target[8:-1]) == port:
            held += 1
    return held


async def poll_healthz(url: str, seconds: float) -> list[float]:
    """/healthz every 0.2 s for `seconds`: how long each answer took (each must be a 200)."""
    answered = []
    t_end = time.monotonic() + seconds
    async with aiohttp.ClientSession() as s:
        while time.monotonic() < t_end:
            t0 = time.monotonic()
            async with s.get(f"{url}/healthz", timeout=aiohttp.ClientTimeout(total=3)) as resp:
                assert resp.status == 200
            answered.append(time.monotonic() - t0)
            await asyncio.sleep(0.2)
    return answered


async def watch_sockets(port: int, stop: asyncio.Event) -> int:
    """The most daemon-side sockets seen on `port` until `stop`."""
    most = 0
    while not stop.is_set():
        most = max(most, held_sockets(port))
        await asyncio.sleep(0.05)
    return most


async def test_slow_clients_are_dropped_and_healthz_and_collection_carry_on(tmp_path: os.PathLike[str]) -> None:
    sim = await start_sim()
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0", "http_header_timeout": HEADER_TIMEOUT,
                   "http_body_timeout": BODY_TIMEOUT, "http_max_connections": CAP},
        "detector": {"enabled": False},
        "collectors": {"gnmi": sim.daemon_collectors(0.3)},
        "sinks": {"influxdb": [{"api": "v1", "url": f"http://127.0.0.1:{free_port()}", "database": "x",
                                "spool": {"dir": f"{tmp_path}/spool"}}]},
    }, "<test>")
    runner, task = await start_runner(cfg, sim)
    assert runner.http is not None
    port = runner.http.port
    stop = asyncio.Event()

    def samples() -> int:
        return sum(t.samples for t in runner.targets.values())

    async def attack(headers: int, bodies: int, seconds: float) -> dict[str, list[float]]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.integration.slow_clients", str(port), str(headers), str(bodies),
            str(seconds), cwd=ROOT, stdout=asyncio.subprocess.PIPE)
        out, _ = await proc.communicate()
        assert proc.returncode == 0
        return json.loads(out)  # type: ignore[no-any-return]

    try:
        for _ in range(40):
            await asyncio.sleep(0.1)
            if all(t.samples for t in runner.targets.values()):
                break
        # under the cap: the dripping clients are dropped and come back; /healthz is answered all along
        watcher = asyncio.create_task(watch_sockets(port, stop))
        before = samples()
        under = asyncio.create_task(attack(150, 10, 4.5))
        answered = await poll_healthz(runner.http.url, 4.0)
        during = samples() - before
        lives = await under
        # over the cap: what is beyond it is closed at once; the daemon goes on collecting
        before = samples()
        await attack(600, 0, 2.0)
        over_cap = samples() - before
        down = [(t.device, t.last_error) for t in runner.targets.values() if not t.up]
        stop.set()
        most = await watcher
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    assert len(answered) >= 12 and max(answered) < 1.5, answered
    # every dripping client was dropped: headers within their timeout, an upload's body within its own
    # (the margin is the event loop's lag on a loaded 2-core machine running the attack, the daemon and
    # the simulator; without the timeouts nothing is dropped at all)
    header_lives, body_lives = sorted(lives["headers"]), lives["bodies"]
    assert len(header_lives) >= 150, header_lives
    assert HEADER_TIMEOUT * 0.9 < header_lives[len(header_lives) // 2] < HEADER_TIMEOUT * 1.5, header_lives[::10]
    assert header_lives[-1] < HEADER_TIMEOUT * 3, header_lives[-5:]
    assert body_lives and BODY_TIMEOUT * 0.9 < max(body_lives) < BODY_TIMEOUT * 2, sorted(body_lives)[-5:]
    # never more connections than the cap, but for those beyond it being closed as they open (asyncio takes
    # a few loop turns from accept to close, each accepting at most the listen backlog): 600 held before
    assert most <= CAP + 2 * BACKLOG, most
    assert during > 0 and over_cap > 0, (during, over_cap)  # collection went on
    assert not down, down
    assert runner.nccl.ingested_runs == 0
    for reason in ("header_timeout", "body_timeout", "max_connections"):
        assert runner.http.refused.get(reason, 0) > 0, runner.http.refused
