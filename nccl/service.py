"""NCCL results reaching the daemon: an HTTP upload endpoint and a watched directory.

Both parse with the same parser, write `nccl_results` through the sinks, and log a summary.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import shutil
import time
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from fabricwatch.core import mqtt
from fabricwatch.core.nccl_records import RunRecord
from fabricwatch.core.secrets import reveal
from fabricwatch.models.collective import analyse
from fabricwatch.nccl.config import NcclSection
from fabricwatch.nccl.gate import gate, load_thresholds
from fabricwatch.nccl.ingest import prepare

log = logging.getLogger("fabricwatch.nccl")


class NcclService:
    def __init__(self, cfg: NcclSection, write: Callable[[list[str]], Awaitable[None]], site: str = "",
                 emit: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        self.cfg = cfg
        self.emit = emit
        self.write = write
        self.site = site
        self.ingested_runs = 0
        self.rejected = 0
        # (collective, nranks) -> (large-message busbw plateau of the last run, flagged rows, unix time)
        self.last: dict[tuple[str, int], tuple[float, int, float]] = {}
        self.recent: dict[tuple[str, int], deque[RunRecord]] = defaultdict(lambda: deque(maxlen=cfg.keep_runs))
        self.gate_passed: dict[str, bool] = {}  # check name -> verdict over the recent runs
        self.cv_pct: dict[tuple[str, int], float] = {}  # worst run-to-run CV over the recent runs
        self.flagged_runs: dict[tuple[str, int], int] = {}
        self.thresholds = None
        if cfg.thresholds is not None:
            self.thresholds = load_thresholds(cfg.thresholds)  # a bad file fails at start, naming the key

    async def ingest(self, content: bytes, name: str, path: Path | None = None) -> list[RunRecord]:
        prepared = prepare(content, name, path=path, site=self.site)
        for run, lines in prepared:
            await self.write(lines)
            self.ingested_runs += 1
            if run.collective and run.rows:
                top = max(r.size for r in run.rows)
                plateau = [m.busbw for r in run.rows if r.size >= top // 4
                           for m in (r.out_of_place, r.in_place) if m is not None and m.busbw is not None]
                if plateau:
                    self.last[(run.collective, run.nranks)] = (
                        sorted(plateau)[len(plateau) // 2], sum(1 for r in run.rows if r.flags), time.time())
                self._judge(run)
            if self.emit is not None:
                self.emit("nccl_run", {"source": name, **_summary(run)})
            log.info("nccl run ingested", extra={"source": name, "collective": run.collective,
                                                  "nranks": run.nranks, "rows": len(run.rows),
                                                  "flagged_rows": sum(1 for r in run.rows if r.flags),
                                                  "complete": run.complete})
        return [run for run, _ in prepared]

    def _judge(self, run: RunRecord) -> None:
        """Variance and gate over the run and its recent repeats; verdicts become metrics and events."""
        key = (run.collective or "unknown", run.nranks)
        self.recent[key].append(run)
        runs = list(self.recent[key])
        for rep in analyse(runs):
            self.cv_pct[key] = max(rep.cv_pct.values(), default=0.0)
            self.flagged_runs[key] = len(rep.flagged())
        if self.thresholds is None:
            return
        results = [r for r in gate(self.thresholds, runs) if r.check.collective == run.collective]
        for r in results:
            self.gate_passed[r.check.name()] = r.passed
        if results and self.emit is not None:
            self.emit("nccl_gate", {"collective": run.collective, "nranks": run.nranks,
                                    "verdict": "pass" if all(r.passed for r in results) else "fail",
                                    "checks": [r.to_json() for r in results]})

    # -- HTTP upload -------------------------------------------------------------------
    def routes(self, app: web.Application) -> None:
        if self.cfg.upload:
            app.router.add_post("/api/nccl", self.upload)

    async def upload(self, request: web.Request) -> web.Response:
        if self.cfg.upload_token is not None:
            want = "Bearer " + reveal(self.cfg.upload_token)
            if not hmac.compare_digest(request.headers.get("Authorization", ""), want):
                self.rejected += 1
                return web.json_response({"error": "missing or wrong bearer token"}, status=401)
        if (request.content_length or 0) > self.cfg.max_upload_bytes:
            self.rejected += 1
            return web.json_response({"error": f"larger than {self.cfg.max_upload_bytes} bytes"}, status=413)
        body = await request.content.read(self.cfg.max_upload_bytes + 1)
        if len(body) > self.cfg.max_upload_bytes:
            self.rejected += 1
            return web.json_response({"error": f"larger than {self.cfg.max_upload_bytes} bytes"}, status=413)
        name = request.query.get("name", "upload")
        try:
            runs = await self.ingest(body, name)
        except ValueError as exc:
            self.rejected += 1
            return web.json_response({"error": f"not nccl-tests output: {exc}"}, status=400)
        if not any(r.rows for r in runs):
            self.rejected += 1
            return web.json_response({"error": "no result rows found"}, status=422)
        return web.json_response({"runs": [_summary(r) for r in runs]}, status=201)

    # -- MQTT subscriber -----------------------------------------------------------------
    async def subscribe(self) -> None:
        """Subscribe with QoS 1; reconnect with jittered exponential backoff, never give up."""
        cfg = self.cfg.mqtt
        if cfg is None:
            return
        delays = cfg.backoff.delays()
        while True:
            try:
                async with mqtt.client(cfg) as client:
                    await client.subscribe(cfg.topic, qos=1)
                    log.info("nccl mqtt subscribed", extra={"topic": cfg.topic, "broker": cfg.address})
                    delays.reset()
                    async for message in mqtt.messages(client):
                        raw = message.payload
                        payload = raw if isinstance(raw, bytes) else str(raw).encode()
                        try:
                            runs = await self.ingest(payload, str(message.topic))
                            if not any(r.rows for r in runs):
                                raise ValueError("no result rows")
                        except ValueError as exc:
                            self.rejected += 1
                            log.warning("nccl mqtt message not ingested",
                                        extra={"topic": str(message.topic), "error": str(exc)})
                raise mqtt.MqttError("the broker ended the session")
            except mqtt.MqttError as exc:
                wait = delays.next()
                log.warning("nccl mqtt disconnected", extra={"error": str(exc), "retry_in_s": round(wait, 1)})
                await asyncio.sleep(wait)

    # -- watched directory -------------------------------------------------------------
    async def watch(self) -> None:
        if self.cfg.watch_dir is None:
            return
        inbox = self.cfg.watch_dir
        done, failed = inbox / "processed", inbox / "failed"
        for d in (inbox, done, failed):
            d.mkdir(parents=True, exist_ok=True)
        seen: dict[Path, tuple[int, float]] = {}
        while True:
            for path in sorted(p for p in inbox.iterdir() if p.is_file() and not p.name.startswith(".")):
                st = path.stat()
                sig = (st.st_size, st.st_mtime)
                if seen.get(path) != sig:
                    seen[path] = sig  # wait one more poll: the writer may not be done
                    continue
                seen.pop(path, None)
                try:
                    runs = await self.ingest(path.read_bytes(), str(path), path)
                    target = done if any(r.rows for r in runs) else failed
                except (OSError, ValueError) as exc:
                    log.error("nccl file not ingested", extra={"path": str(path), "error": str(exc)})
                    target = failed
                shutil.move(str(path), target / path.name)
            await asyncio.sleep(self.cfg.poll_interval)


def _summary(run: RunRecord) -> dict[str, Any]:
    return {
        "collective": run.collective, "nranks": run.nranks, "hosts": run.hosts, "rows": len(run.rows),
        "flagged_rows": sum(1 for r in run.rows if r.flags), "complete": run.complete,
        "stopped_at": run.stopped_at,
    }
