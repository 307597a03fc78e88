"""Slowloris clients in a process of their own: `python -m tests.integration.slow_clients PORT HEADERS
BODIES SECONDS` holds HEADERS connections dripping a request's headers and BODIES dripping an upload's
body, each reconnecting when dropped; prints {"headers": [lives], "bodies": [lives]} (seconds each
connection lasted until the server closed it)."""

from __future__ import annotations

import asyncio
import json
import sys
import time

from tests.conftest import FIXTURES

LOG = (FIXTURES / "nccl" / "allreduce_roce_2x1gpu_interleaved_info.log").read_bytes()
HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
BODY_HEAD = (f"POST /api/nccl?name=slow.log HTTP/1.1\r\nHost: 127.0.0.1\r\n"
             f"Content-Length: {len(LOG) + 10_000}\r\n\r\n").encode() + LOG


async def drip(port: int, head: bytes, until: float, lives: list[float]) -> None:
    """Connect, send `head`, then a byte every 0.25 s until the server closes; again, until `until`."""
    while time.monotonic() < until:
        t0 = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        try:
            writer.write(head)
            while time.monotonic() < until:
                try:
                    if not await asyncio.wait_for(reader.read(1024), 0.25):
                        lives.append(time.monotonic() - t0)  # the server closed it
                        break
                except TimeoutError:
                    writer.write(b"x")
                    await writer.drain()
        except OSError:
            lives.append(time.monotonic() - t0)
        finally:
            writer.close()


async def main(port: int, headers: int, bodies: int, seconds: float) -> dict[str, list[float]]:
    until = time.monotonic() + seconds
    out: dict[str, list[float]] = {"headers": [], "bodies": []}
    await asyncio.gather(*[drip(port, HEAD, until, out["headers"]) for _ in range(headers)],
                         *[drip(port, BODY_HEAD, until, out["bodies"]) for _ in range(bodies)])
    return out


if __name__ == "__main__":
    port, headers, bodies, seconds = sys.argv[1:5]
    print(json.dumps(asyncio.run(main(int(port), int(headers), int(bodies), float(seconds)))))
