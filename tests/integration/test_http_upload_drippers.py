"""Clients that send an upload's body a byte at a time: each held one of the few upload slots for as long as
it dripped (up to the listener's body timeout), so real uploads got 429 meanwhile. Below the minimum body
rate, past its grace, an upload is answered 408 and its slot is free again; each drop is counted."""

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
SLOTS = 4
GRACE = 2.0


async def drip(port: int, stop: float) -> int | None:
    """An upload that declares 100 kB and sends one byte every 0.2 s: the status it is answered, if any."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /api/nccl?name=drip.log HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n")
    try:
        while time.monotonic() < stop:
            writer.write(b"#")
            await writer.drain()
            try:
                line = await asyncio.wait_for(reader.readline(), 0.2)
            except TimeoutError:
                continue
            return int(line.split()[1]) if line else None
        return None
    except OSError:
        return None
    finally:
        writer.close()


async def test_drippers_are_dropped_with_408_and_a_real_upload_gets_a_slot(tmp_path: Path) -> None:
    port = free_port()
    conf = tmp_path / "fw.toml"
    conf.write_text(f'[daemon]\nlisten = "127.0.0.1:{port}"\nhttp_body_timeout = "120s"\n[detector]\nenabled = false\n'
                    f'[nccl]\nmax_concurrent_uploads = {SLOTS}\nupload_min_rate = 4096\n'
                    f'upload_rate_grace = "{GRACE:g}s"\n')
    proc = await asyncio.to_thread(subprocess.Popen, [sys.executable, "-m", "fabricwatch", "run", "-c", str(conf)],
                                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as s:
            for _ in range(100):
                try:
                    async with s.get(f"{url}/healthz") as resp:
                        if resp.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)
            start = time.monotonic()
            drippers = [asyncio.create_task(drip(port, start + 30)) for _ in range(SLOTS)]
            await asyncio.sleep(0.5)
            async with s.post(f"{url}/api/nccl?name=early.log", data=REAL.read_bytes()) as resp:
                assert resp.status == 429  # the drippers hold every slot
            # a real uploader retries as told; it gets a slot once the drippers fall below the rate
            status = 0
            while status != 201 and time.monotonic() < start + 30:
                async with s.post(f"{url}/api/nccl?name=real.log", data=REAL.read_bytes()) as resp:
                    status = resp.status
                if status == 429:
                    await asyncio.sleep(0.2)
            took = time.monotonic() - start
            statuses = await asyncio.gather(*drippers)
            async with s.get(f"{url}/healthz") as resp:
                assert resp.status == 200
            async with s.get(f"{url}/metrics") as resp:
                metrics = await resp.text()
    finally:
        terminate(proc)
    assert status == 201
    assert took < GRACE + 3, took  # not the listener's 120 s body timeout
    assert statuses == [408] * SLOTS, statuses
    assert f'fabricwatch_nccl_rejected_total{{reason="slow_body",source="upload"}} {SLOTS}.0' in metrics
