"""A page on another origin, loaded by headless Chromium, posts a forged NCCL log to the daemon
with fetch(..., {mode: "no-cors"}) (a simple request: no preflight): the daemon refuses it and
stores nothing; curl and a plain HTTP client, which send no Origin or Sec-Fetch-Site, still upload."""

from __future__ import annotations

import asyncio
import json
import subprocess

import aiohttp
import pytest
from aiohttp import web

from fabricwatch.daemon.config import parse
from tests.conftest import FIXTURES
from tests.integration.helpers import start_runner
from tests.servers import require

pytestmark = pytest.mark.integration
REAL = FIXTURES / "nccl" / "allreduce_roce_2x1gpu_interleaved_info.log"

ATTACK = """<!doctype html><html><body><div id="state">sending</div><script>
fetch("{target}", {{method: "POST", mode: "no-cors", body: {body}}})
  .then(() => document.getElementById("state").textContent = "sent")
  .catch((e) => document.getElementById("state").textContent = "failed " + e);
</script></body></html>"""


def chromium(url: str) -> str:
    """The DOM of `url` once its script ran (headless Chromium, the test fails without it)."""
    return subprocess.run([require("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
                           "--virtual-time-budget=5000", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120).stdout


async def serve_attacker(page: str) -> tuple[web.AppRunner, int]:
    """The other origin: http://localhost:<port>/ serving the forging page."""
    async def index(request: web.Request) -> web.Response:
        return web.Response(text=page, content_type="text/html")

    app = web.Application()
    app.router.add_get("/", index)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, runner.addresses[0][1]


async def test_a_cross_site_post_is_refused_and_curl_still_uploads() -> None:
    cfg = parse({"daemon": {"listen": "127.0.0.1:0"}, "detector": {"enabled": False}}, "<test>")
    runner, task = await start_runner(cfg)
    assert runner.http is not None
    target = f"{runner.http.url}/api/nccl?name=forged.log"
    forged = REAL.read_text()
    attacker, port = await serve_attacker(ATTACK.format(target=target, body=json.dumps(forged)))
    try:
        dom = await asyncio.to_thread(chromium, f"http://localhost:{port}/")
        assert 'id="state">sent<' in dom or 'id="state">failed' in dom, dom[-500:]
        for _ in range(20):  # the post reached the daemon (refused or not) before the page said so
            if runner.nccl.ingested_runs or runner.nccl.rejected:
                break
            await asyncio.sleep(0.1)
        assert runner.nccl.ingested_runs == 0, "the forged log was stored"
        assert runner.nccl.rejected_by.get(("upload", "cross_site")) == 1
        # the command line path: no Origin, no Sec-Fetch-Site
        res = await asyncio.to_thread(subprocess.run, [
            "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", f"@{REAL}",
            f"{runner.http.url}/api/nccl?name=curl.log"], capture_output=True, text=True, timeout=60)
        assert res.stdout == "201", res.stderr
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{runner.http.url}/api/nccl?name=client.log", data=REAL.read_bytes()) as resp:
                assert resp.status == 201
            # a same-origin write (the daemon's own page) passes; another origin or site does not
            own = {"Origin": runner.http.url, "Sec-Fetch-Site": "same-origin"}
            async with s.post(f"{runner.http.url}/api/nccl?name=own.log", data=REAL.read_bytes(),
                              headers=own) as resp:
                assert resp.status == 201
            for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                            {"Sec-Fetch-Site": "same-site"}, {"Sec-Fetch-Site": "cross-site"},
                            {"Origin": runner.http.url, "Sec-Fetch-Site": "cross-site"}):
                async with s.post(target, data=REAL.read_bytes(), headers=headers) as resp:
                    assert resp.status == 403, headers
                    assert "cross-site" in (await resp.json())["error"]
        assert runner.nccl.ingested_runs == 3
    finally:
        await attacker.cleanup()
        runner.stop()
        assert await task == 0
