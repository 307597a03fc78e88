"""NCCL results reaching the daemon: an HTTP upload endpoint, an MQTT subscription and a watched
directory. All three take the one ingest path (parse off the event loop, write `nccl_results`,
judge against the recent repeats); every input is handled on its own: a bad one is counted by
source and reason, logged once with where it came from, and everything else goes on.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from fabricwatch.core import mqtt
from fabricwatch.core.nccl_records import RunRecord
from fabricwatch.core.secrets import reveal
from fabricwatch.models.collective import analyse
from fabricwatch.nccl.config import NcclSection
from fabricwatch.nccl.gate import CheckResult, gate, load_thresholds
from fabricwatch.nccl.ingest import prepare

log = logging.getLogger("fabricwatch.nccl")

# (collective, nranks) come from the input: at most this many groups keep history and metrics;
# runs of further groups are still stored, judged alone, and counted as `overflow`
MAX_GROUPS = 64
# result rows the history keeps over all groups (~0.6 KB each): a flood of big logs evicts the oldest runs
MAX_HISTORY_ROWS = 50_000
Key = tuple[str, int | None]  # (collective, ranks); ranks None when the run did not list them


class Rejected(Exception):
    """An input refused for a reason an operator can act on (`reason` is the metric label)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class NcclService:
    def __init__(self, cfg: NcclSection, write: Callable[[list[str]], Awaitable[None]], site: str = "",
                 emit: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        self.cfg = cfg
        self.emit = emit
        self.write = write
        self.site = site
        self.ingested_runs = 0
        self.rejected = 0
        self.rejected_by: dict[tuple[str, str], int] = {}  # (source, reason) -> inputs refused
        self.overflow = 0  # runs of groups beyond MAX_GROUPS
        # (collective, nranks) -> (large-message busbw plateau of the last run, flagged rows, unix time)
        self.last: dict[Key, tuple[float, int, float]] = {}
        self.recent: OrderedDict[Key, deque[RunRecord]] = OrderedDict()
        self._kept: deque[tuple[Key, RunRecord]] = deque()  # every run in `recent`, oldest first
        self.history_rows = 0
        self.gate_passed: dict[str, bool] = {}  # check name -> verdict over the recent runs
        self.cv_pct: dict[Key, float] = {}  # worst run-to-run CV over the recent runs
        self.flagged_runs: dict[Key, int] = {}
        self.uploading = 0  # uploads being read or ingested
        self.thresholds = None
        if cfg.thresholds is not None:
            self.thresholds = load_thresholds(cfg.thresholds)  # a bad file fails at start, naming the key

    # -- the one ingest path -----------------------------------------------------------
    async def ingest(self, content: bytes, name: str, path: Path | None = None) -> list[RunRecord]:
        """Parse (in a thread: a big log must not stall the event loop), store, judge. Raises
        ValueError for what is not nccl-tests output."""
        if len(content) > self.cfg.max_upload_bytes:
            raise Rejected("too_large", f"{len(content)} bytes, more than max_upload_bytes "
                                        f"({self.cfg.max_upload_bytes})")
        prepared = await asyncio.to_thread(prepare, content, name, path=path, site=self.site)
        # one verdict per (collective, ranks) of an input, over its newest run and the repeats before
        # it (those of this input too): a sweep of 300 runs in one log is judged once, not 300 times
        newest: dict[Key, RunRecord] = {}
        for run, lines in prepared:
            if not run.rows:
                continue
            await self.write(lines)
            self.ingested_runs += 1
            if run.collective:
                earlier = newest.get((run.collective, run.nranks))
                if earlier is not None:
                    self._hold(earlier)
                newest[(run.collective, run.nranks)] = run
            if self.emit is not None:
                self.emit("nccl_run", {"source": name, **_summary(run)})
            log.info("nccl run ingested", extra={"source": name, "collective": run.collective,
                                                  "nranks": run.nranks, "rows": len(run.rows),
                                                  "flagged_rows": sum(1 for r in run.rows if r.flags),
                                                  "complete": run.complete})
        for run in newest.values():
            await self._judge(run)
        runs = [run for run, _ in prepared]
        if not any(r.rows for r in runs):
            raise Rejected("empty", "no result rows found")
        return runs

    def refuse(self, source: str, reason: str, where: str, message: str) -> None:
        self.rejected += 1
        self.rejected_by[(source, reason)] = self.rejected_by.get((source, reason), 0) + 1
        log.warning("nccl input not ingested", extra={"source": source, "from": where, "reason": reason,
                                                       "error": message[:300]})

    async def take(self, source: str, content: bytes, where: str, path: Path | None = None) -> list[RunRecord]:
        """One input from `source` (upload, mqtt, watch): its runs, or [] after counting why not."""
        try:
            return await self.ingest(content, where, path)
        except Rejected as exc:
            self.refuse(source, exc.reason, where, str(exc))
        except ValueError as exc:
            self.refuse(source, "parse", where, str(exc))
        except Exception as exc:  # a bug met by one input must not cost the others
            log.exception("nccl input hit an internal error", extra={"source": source, "from": where})
            self.refuse(source, "internal", where, repr(exc))
        return []

    def _group(self, run: RunRecord) -> tuple[Key, deque[RunRecord]] | None:
        key = (run.collective or "unknown", run.nranks)
        if key not in self.recent:
            if len(self.recent) >= MAX_GROUPS:
                self.overflow += 1
                return None
            self.recent[key] = deque(maxlen=self.cfg.keep_runs)
        return key, self.recent[key]

    def _keep(self, key: Key, runs: deque[RunRecord], run: RunRecord) -> None:
        """Add to the group's history within both bounds: keep_runs per group, MAX_HISTORY_ROWS in all."""
        if len(runs) == runs.maxlen:
            old = runs[0]
            self.history_rows -= len(old.rows)
            self._kept.remove((key, old))
        runs.append(run)
        self._kept.append((key, run))
        self.history_rows += len(run.rows)
        while self.history_rows > MAX_HISTORY_ROWS and len(self._kept) > 1:
            old_key, old = self._kept.popleft()
            self.recent[old_key].remove(old)
            self.history_rows -= len(old.rows)

    def _hold(self, run: RunRecord) -> None:
        """Keep a run as a repeat without a verdict of its own (a newer run of its input has it)."""
        group = self._group(run)
        if group is not None:
            self._keep(group[0], group[1], _slim(run))

    async def _judge(self, run: RunRecord) -> None:
        """Variance and gate over the run and its recent repeats; verdicts become metrics and events."""
        group = self._group(run)
        key, runs = (group[0], [*group[1], run]) if group is not None else ((run.collective or "", run.nranks), [run])
        if group is not None:
            self._keep(group[0], group[1], _slim(run))
        cv, flagged, results = await asyncio.to_thread(_verdicts, runs, self.thresholds, run.collective)
        if group is None:
            return
        top = max(r.size for r in run.rows)
        plateau = [m.busbw for r in run.rows if r.size >= top // 4
                   for m in (r.out_of_place, r.in_place) if m is not None and m.busbw is not None]
        if plateau:
            self.last[key] = (sorted(plateau)[len(plateau) // 2], sum(1 for r in run.rows if r.flags), time.time())
        if cv is not None:
            self.cv_pct[key], self.flagged_runs[key] = cv, flagged
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

    def _authorized(self, request: web.Request) -> bool:
        if self.cfg.upload_token is None:
            return True
        want = ("Bearer " + reveal(self.cfg.upload_token)).encode()
        got = request.headers.get("Authorization", "").encode("utf-8", "surrogateescape")
        return hmac.compare_digest(got, want)

    async def upload(self, request: web.Request) -> web.Response:
        name = request.query.get("name", "upload")[:200]
        if not self._authorized(request):
            self.refuse("upload", "auth", name, "missing or wrong bearer token")
            return web.json_response({"error": "missing or wrong bearer token"}, status=401)
        limit = self.cfg.max_upload_bytes
        if (request.content_length or 0) > limit:
            self.refuse("upload", "too_large", name, f"Content-Length {request.content_length}")
            return web.json_response({"error": f"larger than {limit} bytes"}, status=413)
        # each upload holds its body until parsed: a few at a time bound memory (60 clients each holding
        # back a last byte took the daemon from 94 MB to 1 GB); the rest are told to come back
        if self.uploading >= self.cfg.max_concurrent_uploads:
            self.refuse("upload", "busy", name, f"{self.uploading} uploads in progress")
            return web.json_response({"error": f"{self.uploading} uploads in progress (max_concurrent_uploads): "
                                               "retry later"}, status=429, headers={"Retry-After": "5"})
        self.uploading += 1
        try:
            return await self._read_and_ingest(request, name, limit)
        finally:
            self.uploading -= 1

    async def _read_and_ingest(self, request: web.Request, name: str, limit: int) -> web.Response:
        body = bytearray()
        rate, grace = self.cfg.upload_min_rate, self.cfg.upload_rate_grace
        start = asyncio.get_running_loop().time()
        try:
            while True:
                # the next bytes are due by when the body so far, at the minimum rate, would have arrived
                due = start + grace + len(body) / rate if rate else None
                try:
                    async with asyncio.timeout_at(due):
                        chunk = await request.content.readany()  # the whole body, not what is buffered
                except TimeoutError:
                    took = asyncio.get_running_loop().time() - start
                    self.refuse("upload", "slow_body", name, f"{len(body)} bytes in {took:.1f} s")
                    resp = web.json_response({"error": f"the body came slower than {rate} bytes/s "
                                                       "(upload_min_rate)"}, status=408)
                    resp.force_close()
                    return resp
                if not chunk:
                    break
                body += chunk
                if len(body) > limit:
                    self.refuse("upload", "too_large", name, f"more than {limit} bytes")
                    return web.json_response({"error": f"larger than {limit} bytes"}, status=413)
        except ConnectionError as exc:  # the client left, or the listener closed it past its body timeout
            self.refuse("upload", "incomplete", name, f"after {len(body)} bytes: {exc}")
            return web.json_response({"error": "the body did not arrive whole"}, status=408)
        try:
            runs = await self.ingest(bytes(body), name)
        except Rejected as exc:
            self.refuse("upload", exc.reason, name, str(exc))
            return web.json_response({"error": str(exc)}, status=422 if exc.reason == "empty" else 413)
        except ValueError as exc:
            self.refuse("upload", "parse", name, str(exc))
            return web.json_response({"error": f"not nccl-tests output: {exc}"}, status=400)
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
                async with mqtt.client(cfg, max_queued_incoming=cfg.max_queued,
                                       on_discard=self._queue_full) as client:
                    await client.subscribe(cfg.topic, qos=1)
                    log.info("nccl mqtt subscribed", extra={"topic": cfg.topic, "broker": cfg.address})
                    delays.reset()
                    async for message in mqtt.messages(client):
                        raw = message.payload
                        payload = raw if isinstance(raw, bytes) else str(raw).encode()
                        await self.take("mqtt", payload, str(message.topic))
                raise mqtt.MqttError("the broker ended the session")
            except mqtt.MqttError as exc:
                wait = delays.next()
                log.warning("nccl mqtt disconnected", extra={"error": str(exc), "retry_in_s": round(wait, 1)})
                await asyncio.sleep(wait)

    def _queue_full(self) -> None:
        """A message aiomqtt dropped: counted each time, logged at the 1st, 10th, 100th, ... drop."""
        key = ("mqtt", "queue_full")
        self.rejected += 1
        n = self.rejected_by[key] = self.rejected_by.get(key, 0) + 1
        if n == 10 ** (len(str(n)) - 1):
            log.warning("nccl mqtt messages dropped: more waiting than max_queued",
                        extra={"dropped": n, "max_queued": self.cfg.mqtt.max_queued if self.cfg.mqtt else 0})

    # -- watched directory -------------------------------------------------------------
    async def watch(self) -> None:
        """New files in watch_dir are ingested once their size and time held still for a poll, then
        moved to processed/ or failed/. Symlinks are not followed; every file is handled alone."""
        if self.cfg.watch_dir is None:
            return
        inbox = self.cfg.watch_dir
        seen: dict[str, tuple[int, float]] = {}
        while True:
            try:
                dirs = _prepare_dirs(inbox)
            except OSError as exc:
                log.error("nccl watch_dir unusable; retrying", extra={"dir": str(inbox), "error": str(exc)})
                dirs = None
            if dirs is not None:
                await self._scan(inbox, *dirs, seen)
            await asyncio.sleep(self.cfg.poll_interval)

    async def _scan(self, inbox: Path, done: Path, failed: Path, seen: dict[str, tuple[int, float]]) -> None:
        try:
            entries = sorted(os.scandir(inbox), key=lambda e: e.name)
        except OSError as exc:
            log.error("nccl watch_dir not readable", extra={"dir": str(inbox), "error": str(exc)})
            return
        present = set()
        for entry in entries:
            if entry.name.startswith(".") or not entry.is_file(follow_symlinks=False):
                continue
            present.add(entry.name)
            path = Path(entry.path)
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # gone between the listing and now
            sig = (st.st_size, st.st_mtime)
            if seen.get(entry.name) != sig:
                seen[entry.name] = sig  # wait one more poll: the writer may not be done
                continue
            seen.pop(entry.name, None)
            target = failed
            if st.st_size > self.cfg.max_upload_bytes:
                self.refuse("watch", "too_large", str(path), f"{st.st_size} bytes")
            else:
                try:
                    content = await asyncio.to_thread(path.read_bytes)
                except OSError as exc:
                    self.refuse("watch", "read", str(path), str(exc))
                else:
                    if await self.take("watch", content, str(path), path):
                        target = done
            try:
                os.replace(path, target / entry.name)
            except OSError as exc:
                log.error("nccl file not moved", extra={"path": str(path), "to": str(target), "error": str(exc)})
        for name in [n for n in seen if n not in present]:
            del seen[name]


def _prepare_dirs(inbox: Path) -> tuple[Path, Path]:
    """processed/ and failed/ as real directories inside the inbox (a symlink there is refused)."""
    dirs = []
    for d in (inbox, inbox / "processed", inbox / "failed"):
        d.mkdir(parents=True, exist_ok=True)
        if d.is_symlink() or not d.is_dir():
            raise OSError(f"{d} is not a plain directory")
        dirs.append(d)
    return dirs[1], dirs[2]


def _verdicts(runs: list[RunRecord], thresholds: Any, collective: str | None
              ) -> tuple[float | None, int, list[CheckResult]]:
    """Worst run-to-run CV, runs flagged, and the gate's checks for this collective (in a thread)."""
    cv, flagged = None, 0
    for rep in analyse(runs):
        cv = max(rep.cv_pct.values(), default=0.0)
        flagged = len(rep.flagged())
    results = [] if thresholds is None else [r for r in gate(thresholds, runs) if r.check.collective == collective]
    return cv, flagged, results


def _slim(run: RunRecord) -> RunRecord:
    """What the history keeps of a run: no warnings or per-iteration columns (bounded by rows)."""
    run.warnings = run.warnings[:5]
    for row in run.rows:
        for m in (row.out_of_place, row.in_place):
            if m is not None:
                m.per_iteration = {}
    return run


def _summary(run: RunRecord) -> dict[str, Any]:
    return {
        "collective": run.collective, "nranks": run.nranks, "hosts": run.hosts, "rows": len(run.rows),
        "flagged_rows": sum(1 for r in run.rows if r.flags), "complete": run.complete,
        "stopped_at": run.stopped_at,
    }
