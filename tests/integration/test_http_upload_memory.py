"""Concurrent uploads that each hold back their last byte: every one held a body in memory (60 of them
took the daemon from 94 MB to 1,055 MB). A few uploads are read at a time; the rest get a 429 at once
and the daemon's memory stays bounded."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import FIXTURES, ROOT
from tests.servers import free_port, terminate

pytestmark = pytest.mark.integration
REAL = FIXTURES / "nccl" / "allreduce_roce_2x1gpu_interleaved_info.log"
UPLOAD = 4 << 20
CLIENTS = 50


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


async def held_upload(port: int, statuses: list[int], release: asyncio.Event) -> None:
    """An upload of UPLOAD bytes sent but for its last byte, held until `release`; its status if answered."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST /api/nccl?name=held.log HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {UPLOAD}\r\n\r\n"
                 .encode())
    chunk = b"#" * (1 << 16)
    for _ in range(UPLOAD // len(chunk) - 1):
        writer.write(chunk)
        await writer.drain()
    writer.write(chunk[:-1])
    try:
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 1.0)
        if line:
            statuses.append(int(line.split()[1]))
    except (TimeoutError, OSError):
        pass  # no answer yet: its body is being read, waiting for the last byte
    await release.wait()
    writer.close()


async def test_concurrent_uploads_are_capped_and_memory_stays_bounded(tmp_path: Path) -> None:
    port = free_port()
    conf = tmp_path / "fw.toml"
    conf.write_text(f'[daemon]\nlisten = "127.0.0.1:{port}"\nhttp_body_timeout = "60s"\n'
                    f'[detector]\nenabled = false\n[nccl]\nmax_upload_bytes = {UPLOAD + 1024}\n')
    proc = await asyncio.to_thread(subprocess.Popen, [sys.executable, "-m", "fabricwatch", "run", "-c", str(conf)],
                                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    release = asyncio.Event()
    try:
        url = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as s:
            for _ in range(100):
                try:
                    async with s.get(f"{url}/healthz") as resp:
                        if resp.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)
            async with s.post(f"{url}/api/nccl?name=warm.log", data=REAL.read_bytes()) as resp:
                assert resp.status == 201  # the upload path has run once: its imports are counted as base
        base = rss_mb(proc.pid)
        statuses: list[int] = []
        clients = [asyncio.create_task(held_upload(port, statuses, release)) for _ in range(CLIENTS)]
        peak = base
        t_end = time.monotonic() + 8.0
        while time.monotonic() < t_end and not all(c.done() for c in clients):
            peak = max(peak, rss_mb(proc.pid))
            await asyncio.sleep(0.1)
            if len(statuses) >= CLIENTS - 4:
                break
        for _ in range(10):
            peak = max(peak, rss_mb(proc.pid))
            await asyncio.sleep(0.1)
        # while they hold, a small upload is refused too (the cap is full), and the daemon answers
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{url}/api/nccl?name=late.log", data=REAL.read_bytes()) as resp:
                assert resp.status == 429 and resp.headers["Retry-After"]
            async with s.get(f"{url}/healthz") as resp:
                assert resp.status == 200
            release.set()
            await asyncio.gather(*clients)
            await asyncio.sleep(0.5)
            async with s.post(f"{url}/api/nccl?name=after.log", data=REAL.read_bytes()) as resp:
                assert resp.status == 201  # the slots came back
            async with s.get(f"{url}/metrics") as resp:
                metrics = await resp.text()
    finally:
        release.set()
        terminate(proc)
    assert statuses.count(429) == CLIENTS - 4, statuses
    assert peak - base < 80, (base, peak)  # 4 bodies of 4 MB and their buffers, not 50
    assert f'fabricwatch_nccl_rejected_total{{reason="busy",source="upload"}} {CLIENTS - 4 + 1}.0' in metrics
