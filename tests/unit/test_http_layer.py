"""The HTTP layer on its own: every handler answers from fakes of the few protocols it reads (no runner,
no pipeline, no sinks), and the guards in front of it (Host check, cross-site writes) still hold."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from fabricwatch.core.batch import ModuleInfo
from fabricwatch.daemon.config import DaemonSection
from fabricwatch.daemon.http import HttpServer
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.detection.detector import Finding
from fabricwatch.pipeline.history import LinkHistory
from fabricwatch.pipeline.pipeline import PortRateView

Port = tuple[str, str]


class FakeHealth:
    started_unix = 1000.0
    reason: str | None = None

    def not_ready(self) -> str | None:
        return self.reason


class FakeMetrics:
    def exposition(self) -> bytes:
        return b"fake_metric 1\n"


class FakeRates:
    def last_value(self, key: Port, name: str) -> float | None:
        return 1.0 if name == "oper_status" else None


class FakeLinks:
    def __init__(self, latest: dict[Port, PortRateView]) -> None:
        self.latest = latest
        self.rates = FakeRates()
        self.history: LinkHistory | None = None
        self.modules: dict[Port, ModuleInfo] = {}


class FakeFindings:
    mode, intervals, interval_s = "rules", 7, 30.0

    def __init__(self, findings: list[Finding]) -> None:
        self.active: Mapping[Port, Finding] = {(f.device, f.port): f for f in findings}
        self.cleared = [{"device": "leaf-9", "port": "swp1"}]

    def ranked_findings(self) -> list[Finding]:
        return list(self.active.values())

    def finding_json(self, f: Finding) -> dict[str, Any]:
        return {**f.to_json(), "raised": "then"}


class FakeUploads:
    def __init__(self) -> None:
        self.refused: list[tuple[str, str, str]] = []

    def routes(self, app: web.Application) -> None:
        async def upload(request: web.Request) -> web.Response:
            return web.json_response({"stored": await request.text()})

        app.router.add_post("/api/nccl", upload)

    def refuse(self, source: str, reason: str, where: str, message: str) -> None:
        self.refused.append((source, reason, where))


class FakeCluster:
    async def status(self) -> dict[str, Any]:
        return {"member": "fw-a", "members": [{"name": "fw-a", "targets": ["gnmi:x:leaf-1"]}]}


def finding(device: str, port: str, severity: str) -> Finding:
    return Finding(0, device, port, "roce/leaf_down/400G", 2.5, 1.0, True, severity, "rules",
                   "pfc_rx 8x its group", [], ["pfc_storm"])


@pytest.fixture
def health() -> FakeHealth:
    return FakeHealth()


@pytest.fixture
def uploads() -> FakeUploads:
    return FakeUploads()


async def serve(health: FakeHealth, uploads: FakeUploads, *, findings: FakeFindings | None = None,
                cluster: FakeCluster | None = None) -> HttpServer:
    targets = {"gnmi:x:leaf-1": TargetStatus("gnmi", "x", "leaf-1", "10.0.0.1:6030", up=True, samples=12,
                                                  last_update_unix=time.time()),
               "snmp:y:spine-0": TargetStatus("snmp", "y", "spine-0", "10.0.0.2", last_error="timeout: 2 s")}
    links = FakeLinks({("leaf-1", "swp1"): PortRateView(0, {"role": "leaf_down"}, {"pfc_rx_p3": 5.0}),
                       ("leaf-1", "swp2"): PortRateView(0, {"role": "leaf_down"}, {"pfc_rx_p3": 900.0})})
    http = HttpServer("127.0.0.1:0", settings=lambda: DaemonSection(site="lab"), max_upload_bytes=1 << 20,
                      health=health, metrics=FakeMetrics(), targets=targets, links=links, findings=findings,
                      storage=[], uploads=uploads, cluster=cluster)
    await http.start()
    return http


@pytest.fixture
async def http(health: FakeHealth, uploads: FakeUploads) -> AsyncIterator[HttpServer]:
    server = await serve(health, uploads, findings=FakeFindings([finding("leaf-1", "swp2", "critical")]))
    yield server
    await server.stop()


async def get(http: HttpServer, path: str, **headers: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as s, s.get(http.url + path, headers=headers) as resp:
        body = await resp.json() if resp.content_type == "application/json" else await resp.text()
        return resp.status, body


async def test_health_and_readiness_answer_from_the_health_protocol(http: HttpServer, health: FakeHealth) -> None:
    status, body = await get(http, "/healthz")
    assert status == 200 and body["status"] == "ok" and body["uptime_s"] > 0
    status, body = await get(http, "/readyz")
    assert status == 200 and body["ready"] and body["targets"] == 2 and body["targets_down"] == ["spine-0"]
    status, body = await get(http, "/readyz?require=all")
    assert status == 503 and body["reason"].startswith("1 of 2 targets down")
    health.reason = "restarting after a crash: detector"
    status, body = await get(http, "/readyz")
    assert status == 503 and body["reason"] == "restarting after a crash: detector"
    assert (await get(http, "/readyz?require=some"))[0] == 400


async def test_targets_links_findings_and_metrics_come_from_the_fakes(http: HttpServer) -> None:
    status, body = await get(http, "/api/targets")
    assert status == 200 and [(t["device"], t["up"], t["samples"]) for t in body] == [("leaf-1", True, 12),
                                                                                     ("spine-0", False, 0)]
    status, body = await get(http, "/api/links?limit=1")
    assert status == 200 and [(r["device"], r["port"]) for r in body] == [("leaf-1", "swp2")]
    status, body = await get(http, "/api/findings")
    assert status == 200 and body["enabled"] and body["mode"] == "rules" and body["intervals"] == 7
    assert [(f["device"], f["port"], f["raised"]) for f in body["findings"]] == [("leaf-1", "swp2", "then")]
    assert body["cleared"] == [{"device": "leaf-9", "port": "swp1"}]
    status, body = await get(http, "/api/findings?from=-1h")
    assert status == 501 and "no InfluxDB sink" in body["error"]
    status, body = await get(http, "/metrics")
    assert status == 200 and body == "fake_metric 1\n"


async def test_the_fabric_document_and_one_link_read_the_same_fakes(http: HttpServer) -> None:
    status, doc = await get(http, "/api/fabric")
    assert status == 200 and doc["site"] == "lab" and doc["targets"]["up"] == 1 and doc["storage"] == []
    (leaf,) = doc["devices"]
    assert leaf["device"] == "leaf-1" and leaf["severity"] == 2  # the critical finding on swp2
    status, link = await get(http, "/api/link?device=leaf-1&port=swp2")
    assert status == 200 and link["finding"]["severity"] == "critical" and link["oper"] == 1.0
    assert (await get(http, "/api/link?device=leaf-1&port=swp9"))[0] == 404


async def test_without_a_detector_or_a_cluster_the_api_says_so(health: FakeHealth, uploads: FakeUploads) -> None:
    http = await serve(health, uploads)
    try:
        assert (await get(http, "/api/findings"))[1] == {"enabled": False, "findings": []}
        status, body = await get(http, "/api/cluster")
        assert status == 404 and "not in a cluster" in body["error"]
    finally:
        await http.stop()
    http = await serve(health, uploads, cluster=FakeCluster())
    try:
        assert (await get(http, "/api/cluster"))[1]["member"] == "fw-a"
    finally:
        await http.stop()


async def test_another_host_is_refused_and_counted(http: HttpServer) -> None:
    status, body = await get(http, "/api/targets", Host="attacker.example")
    assert status == 421 and "allowed_hosts" in body["error"]
    assert (await get(http, "/api/targets", Host=f"localhost:{http.port}"))[0] == 200
    assert http.refused == {"host": 1}


async def test_a_cross_site_write_is_refused_and_told_to_the_uploads(http: HttpServer, uploads: FakeUploads) -> None:
    async with aiohttp.ClientSession() as s:
        async with s.post(f"{http.url}/api/nccl?name=forged.log", data="x",
                          headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}) as resp:
            assert resp.status == 403 and "cross-site write refused" in (await resp.json())["error"]
        async with s.post(f"{http.url}/api/nccl?name=run.log", data="busbw") as resp:  # curl: no Origin
            assert resp.status == 200 and (await resp.json()) == {"stored": "busbw"}
    assert uploads.refused == [("upload", "cross_site", "forged.log")]
    assert http.refused == {"cross_site": 1}
