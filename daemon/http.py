"""/metrics, /healthz, /readyz and a small JSON API, served with aiohttp."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from fabricwatch.core.influxql import InfluxQLError
from fabricwatch.core.timeparse import parse_time_ns
from fabricwatch.daemon.fabric_view import fabric_document, link_document
from fabricwatch.daemon.http_connections import ConnectionGuard
from fabricwatch.daemon.http_guard import AllowedHosts, refuse_cross_site_writes, refuse_other_hosts
from fabricwatch.daemon.http_sources import (
    ClusterStatus,
    Exposition,
    Findings,
    Health,
    Links,
    Settings,
    Storage,
    Uploads,
)
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.pipeline.ranking import worst_links
from fabricwatch.postmortem.influx import InfluxHistory
from fabricwatch.postmortem.queries import findings
from fabricwatch.postmortem.store import Window, store_for

log = logging.getLogger("fabricwatch.http")
# connections the kernel queues for accept; also the most asyncio accepts at once, so beyond the cap at
# most this many sockets are open for the moment it takes to close them
BACKLOG = 128
_HERE = Path(__file__).resolve().parent / "static"
STATIC: dict[str, tuple[bytes, str]] = {
    name: ((_HERE / name).read_bytes(), ctype)
    for name, ctype in (("index.html", "text/html"), ("fabric.js", "text/javascript"), ("fabric.css", "text/css"))
}
# read-only page from the daemon itself: nothing from elsewhere, no framing by other sites
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'",
                "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}


def _compact(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), allow_nan=False)


class HttpServer:
    def __init__(self, listen: str, *, settings: Settings, max_upload_bytes: int, health: Health,
                 metrics: Exposition, targets: Mapping[str, TargetStatus], links: Links, findings: Findings | None,
                 storage: Storage, uploads: Uploads, cluster: ClusterStatus | None) -> None:
        self.settings, self.max_upload_bytes = settings, max_upload_bytes
        self.health, self.self_metrics, self.targets = health, metrics, targets
        self.links, self.findings, self.storage = links, findings, storage
        self.uploads, self.cluster = uploads, cluster
        host, _, port = listen.rpartition(":")
        self.host, self.port = host.strip("[]"), int(port)
        self._runner: web.AppRunner | None = None
        self.url = ""
        self.server: web.Server | None = None
        self._listener: asyncio.Server | None = None
        self._guard: ConnectionGuard | None = None
        self._queries = ThreadPoolExecutor(max_workers=settings().max_queries, thread_name_prefix="fabricwatch-query")
        self._queries_running = 0  # stored queries whose thread has not finished
        self.refused: dict[str, int] = {}  # reason -> requests or connections refused by the guards

    async def start(self) -> None:
        daemon = self.settings()
        self._guard = ConnectionGuard(max_connections=daemon.http_max_connections,
                                      header_timeout=daemon.http_header_timeout,
                                      body_timeout=daemon.http_body_timeout, refused=self._count)
        hosts = AllowedHosts(self.host, daemon.allowed_hosts)
        # uploads are bounded by [nccl] max_upload_bytes; the server's own cap sits just above it
        app = web.Application(client_max_size=self.max_upload_bytes + (1 << 20),
                              middlewares=[self._guard.middleware, refuse_other_hosts(hosts, self._refused),
                                           refuse_cross_site_writes(self._refused)])
        app.router.add_get("/metrics", self.metrics)
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)
        app.router.add_get("/api/targets", self.api_targets)
        app.router.add_get("/api/links", self.api_links)
        app.router.add_get("/api/findings", self.api_findings)
        app.router.add_get("/api/fabric", self.api_fabric)
        app.router.add_get("/api/link", self.api_link)
        app.router.add_get("/api/cluster", self.api_cluster)
        app.router.add_get("/", self.page)
        for name in STATIC:
            app.router.add_get(f"/{name}", self.page)
        self.uploads.routes(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        assert self._runner.server is not None
        self.server = self._runner.server
        self._guard.start(self.server)
        # our own listening socket (not a TCPSite): every accepted connection goes through the guard
        self._listener = await asyncio.get_running_loop().create_server(self._guard.protocol, self.host, self.port,
                                                                        backlog=BACKLOG)
        self.port = int(self._listener.sockets[0].getsockname()[1])
        self.url = f"http://{self.host}:{self.port}"

    def _count(self, reason: str) -> int:
        """One more refusal for `reason`; logged at the 1st, 10th, 100th...: an attack must not flood the log."""
        self.refused[reason] = n = self.refused.get(reason, 0) + 1
        if n == 10 ** (len(str(n)) - 1):
            log.warning("http refused", extra={"reason": reason, "refused": n})
        return n

    def _refused(self, request: web.Request, reason: str, detail: str) -> None:
        """A request a guard refused: counted by reason; an upload also as the NCCL service's own refusals."""
        n = self._count(reason)
        if n == 1:
            log.info("http request refused", extra={"reason": reason, "detail": detail, "path": request.path[:200]})
        if request.path == "/api/nccl":
            self.uploads.refuse("upload", reason, request.query.get("name", "upload")[:200], detail)

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.close()
        if self._guard is not None:
            await self._guard.stop()
        if self._runner is not None:
            await self._runner.cleanup()
        self._queries.shutdown(wait=False, cancel_futures=True)

    async def metrics(self, request: web.Request) -> web.Response:
        body = self.self_metrics.exposition()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def healthz(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok", "uptime_s": round(time.time() - self.health.started_unix, 1)})

    async def readyz(self, request: web.Request) -> web.Response:
        """Ready means the daemon runs every task (collecting, storing, serving): a switch being
        down does not make it unready, since restarting the daemon would not bring it up. A probe
        that wants data flowing asks `?require=any` (at least one target up) or `?require=all`; a
        target whose newest data is older than `stale_after` counts as down there, whatever it says."""
        targets = list(self.targets.values())
        up = sum(t.up for t in targets)
        now, stale_after = time.time(), self.settings().stale_after
        ages = [t.data_age(now) for t in targets]
        stale = sorted(t.device for t, age in zip(targets, ages, strict=True) if age > stale_after)
        fresh = sum(t.up and age <= stale_after for t, age in zip(targets, ages, strict=True))
        body: dict[str, object] = {
            "means": "every task of the daemon is running; targets may be down (see targets_up, "
                     "or ask ?require=any|all)",
            "targets": len(targets), "targets_up": up,
            "targets_down": sorted(t.device for t in targets if not t.up)[:50],
            "targets_stale": stale[:50], "stale_after_s": stale_after,
            "oldest_data_age_s": round(max(ages), 1) if ages else None,
        }
        require = request.query.get("require", "")
        if require not in ("", "any", "all"):
            return web.json_response({"error": "require is any or all"}, status=400)
        reason = self.health.not_ready()
        if reason is None and require == "any" and targets and fresh == 0:
            reason = f"no target up (0 of {len(targets)})" if up == 0 else \
                f"no target up with data newer than {stale_after:g} s (0 of {len(targets)})"
        elif reason is None and require == "all" and fresh < len(targets):
            reason = f"{len(targets) - up} of {len(targets)} targets down"
            if stale:
                reason += f", {len(stale)} with no data for {stale_after:g} s"
        if reason is not None:
            return web.json_response({"ready": False, "reason": reason, **body}, status=503)
        return web.json_response({"ready": True, **body})

    async def api_cluster(self, request: web.Request) -> web.Response:
        """The members of this daemon's cluster, the targets each polls and their lease ages."""
        if self.cluster is None:
            return web.json_response({"error": "not in a cluster (no [cluster] etcd in the config)"}, status=404)
        return web.json_response(await self.cluster.status())

    async def api_targets(self, request: web.Request) -> web.Response:
        now = time.time()
        return web.json_response([
            {
                "collector": t.collector, "name": t.name, "device": t.device,
                "address": t.address, "up": t.up, "last_update_unix": t.last_update_unix,
                "data_age_s": round(t.data_age(now), 1),
                "samples": t.samples, "errors": t.errors, "last_error": t.last_error,
            }
            for t in self.targets.values()
        ])

    async def api_findings(self, request: web.Request) -> web.Response:
        """Active link findings of the last scored interval, worst first; with `from` (and `to`),
        the incidents stored in that window instead, read from the first InfluxDB sink."""
        if "from" in request.query:
            return await self._stored_findings(request)
        det = self.findings
        if det is None:
            return web.json_response({"enabled": False, "findings": []})
        findings = det.ranked_findings()
        return web.json_response({"enabled": True, "mode": det.mode, "intervals": det.intervals,
                                  "findings": [det.finding_json(f) for f in findings],
                                  "cleared": list(reversed(det.cleared))})

    async def _stored_findings(self, request: web.Request) -> web.Response:
        now = time.time_ns()
        try:
            window = Window(parse_time_ns(request.query["from"], now_ns=now),
                            parse_time_ns(request.query.get("to", "now"), now_ns=now))
        except ValueError as exc:
            return web.json_response({"error": f"from/to: {exc}"}, status=400)
        if not self.storage:
            return web.json_response({"error": "no InfluxDB sink to read stored findings from"}, status=501)
        daemon = self.settings()
        if self._queries_running >= daemon.max_queries:
            return web.json_response({"error": f"{self._queries_running} stored queries running (max_queries): "
                                               "retry later"}, status=503, headers={"Retry-After": "5"})
        try:
            # each read ends a little after the deadline: the thread, and its slot, do not outlive it for long
            store = store_for(self.storage[0].cfg, timeout=daemon.query_timeout + 1.0)
        except ValueError as exc:
            return web.json_response({"error": f"storage: {exc}"}, status=503)
        # a blocking HTTP query, in a pool of its own: a slow server fills that pool, not the loop's default
        # one, which parses uploads and resolves names
        self._queries_running += 1
        running = asyncio.get_running_loop().run_in_executor(self._queries, findings, InfluxHistory(store), window)
        running.add_done_callback(self._query_done)  # the slot is free when the thread is, not at the deadline
        try:
            found = await asyncio.wait_for(asyncio.shield(running), daemon.query_timeout)
        except TimeoutError:
            return web.json_response({"error": f"storage did not answer within {daemon.query_timeout:g} s "
                                               "(query_timeout)"}, status=504)
        except (InfluxQLError, ValueError) as exc:
            return web.json_response({"error": f"storage: {exc}"}, status=503)
        return web.json_response({"from_ns": window.start_ns, "to_ns": window.end_ns,
                                  "incidents": [i.to_json() for i in found]})

    def _query_done(self, done: asyncio.Future[Any]) -> None:
        self._queries_running -= 1
        if not done.cancelled():
            done.exception()  # seen here when the request gave up waiting for it

    async def page(self, request: web.Request) -> web.Response:
        """The fabric page and its script and style, shipped inside the package (no CDN)."""
        name = request.path.lstrip("/") or "index.html"
        body, ctype = STATIC[name]
        return web.Response(body=body, content_type=ctype, headers=PAGE_HEADERS)

    async def api_fabric(self, request: web.Request) -> web.Response:
        doc = fabric_document(site=self.settings().site, findings=self.findings, links=self.links,
                              targets=self.targets, storage=self.storage)
        return web.json_response(doc, dumps=_compact)

    async def api_link(self, request: web.Request) -> web.Response:
        doc = link_document(self.links, self.findings, request.query.get("device", ""), request.query.get("port", ""),
                            self.targets)
        if doc is None:
            return web.json_response({"error": "no such port (or no data for it yet)"}, status=404)
        return web.json_response(doc, dumps=_compact)

    async def api_links(self, request: web.Request) -> web.Response:
        """Latest rates per port, worst first (pauses + 1000 x errors), or by ?sort=<counter>."""
        try:
            limit = max(0, int(request.query.get("limit", "20")))
        except ValueError:
            return web.json_response({"error": "limit must be a whole number"}, status=400)
        ranked = worst_links(self.links.latest, by=request.query.get("sort", ""), limit=limit)
        return web.json_response([{"device": device, "port": port, "tags": view.tags, "rates": view.rates}
                                  for (device, port), view in ranked])
