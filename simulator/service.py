"""The simulated fabric as a service: per-switch gNMI targets plus a small control API."""

from __future__ import annotations

import json
import logging
import os
import ssl
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import grpc
from aiohttp import web
from pydantic import Field

from fabricwatch.core.config_types import StrictModel
from fabricwatch.core.net import bound_port
from fabricwatch.core.secrets import SecretRef, reveal
from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.faults import KINDS, Fault
from fabricwatch.simulator.gnmi_server import GnmiTarget, start_server
from fabricwatch.simulator.snmp_agent import SnmpAgent, start_agent
from fabricwatch.simulator.topology import FLAVOURS, IB_FLAVOUR, FabricSpec
from fabricwatch.simulator.ufm_server import UfmServer

log = logging.getLogger("fabricwatch.simulator")


class FabricSection(StrictModel):
    nodes: int = Field(8, ge=1)
    rails: int = Field(2, ge=1)
    leaves_per_rail: int = Field(1, ge=1)
    spines: int = Field(2, ge=1)
    fabric: Literal["roce", "ib"] = "roce"
    speed_gbps: int = Field(400, ge=1)
    flavours: list[str] = Field(default_factory=lambda: list(FLAVOURS))
    seed: int = 1


class GnmiSection(StrictModel):
    host: str = "127.0.0.1"
    base_port: int = Field(0, ge=0, le=65535)  # 0: free ports; else base_port + device index
    username: str | None = None
    password: SecretRef | None = None
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None


class SnmpSection(StrictModel):
    """Switches that speak SNMP only (no gNMI server), each on its own UDP port."""

    devices: list[str] = Field(default_factory=list)
    every: int = Field(0, ge=0)  # also every Nth switch (0 = none)
    host: str = "127.0.0.1"
    community: str = "fabricwatch-sim"


class UfmSection(StrictModel):
    """Serve the fabric as InfiniBand managed by a UFM-style REST and Telemetry API (no gNMI)."""

    enabled: bool = False
    host: str = "127.0.0.1"
    rest_port: int = Field(0, ge=0, le=65535)
    telemetry_port: int = Field(0, ge=0, le=65535)
    username: str = "admin"
    password: str = "fabricwatch-sim"
    token: str = "fabricwatch-sim-token"
    tls_cert_file: Path | None = None  # serve REST over HTTPS, like a real UFM
    tls_key_file: Path | None = None


class SimConfig(StrictModel):
    fabric: FabricSection = FabricSection()
    gnmi: GnmiSection = GnmiSection()
    snmp: SnmpSection = SnmpSection()
    ufm: UfmSection = UfmSection()
    control_listen: str = "127.0.0.1:0"
    faults: list[str] = Field(default_factory=list)
    history: int = 0  # snapshots kept for tests that compare served values


@dataclass
class SimTarget:
    device: str
    address: str
    flavour: str
    protocol: str = "gnmi"


SIM_COMMUNITY_ENV = "FABRICWATCH_SIM_COMMUNITY"
SIM_UFM_PASSWORD_ENV = "FABRICWATCH_SIM_UFM_PASSWORD"
SIM_UFM_TOKEN_ENV = "FABRICWATCH_SIM_UFM_TOKEN"
# SONiC answers with net-snmp's Linux sysObjectID, so its profile is named per target
SNMP_PROFILE = {"sonic": "sonic"}


@dataclass
class Simulator:
    config: SimConfig
    fabric: Fabric = field(init=False)
    targets: list[SimTarget] = field(default_factory=list)
    servers: dict[str, grpc.aio.Server] = field(default_factory=dict)
    servicers: dict[str, GnmiTarget] = field(default_factory=dict)
    snmp_agents: dict[str, SnmpAgent] = field(default_factory=dict)
    ufm: UfmServer | None = None
    control_url: str | None = None
    _runner: web.AppRunner | None = None

    def __post_init__(self) -> None:
        f = self.config.fabric
        spec = FabricSpec(
            nodes=f.nodes, rails=f.rails, leaves_per_rail=f.leaves_per_rail, spines=f.spines,
            fabric="ib" if self.config.ufm.enabled else f.fabric, speed_gbps=f.speed_gbps,
            flavours=(IB_FLAVOUR,) if self.config.ufm.enabled else tuple(f.flavours),
        )
        self.fabric = Fabric(spec, seed=f.seed, start_ns=time.time_ns(), history=self.config.history)
        for text in self.config.faults:
            self.fabric.inject(Fault.parse(text))

    async def start(self) -> None:
        g = self.config.gnmi
        password = reveal(g.password)
        tls = None
        if g.tls_cert_file and g.tls_key_file:
            tls = (g.tls_cert_file.read_bytes(), g.tls_key_file.read_bytes())
        if self.config.ufm.enabled:
            u = self.config.ufm
            self.ufm = UfmServer(self.fabric, list(self.fabric.topology.devices.values()),
                                 username=u.username, password=u.password, token=u.token)
            https: ssl.SSLContext | None = None
            if u.tls_cert_file and u.tls_key_file:
                https = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
                https.load_cert_chain(u.tls_cert_file, u.tls_key_file)
            await self.ufm.start(u.host, u.rest_port, u.telemetry_port, tls=https)
            await self._start_control()
            return
        snmp_cfg = self.config.snmp
        for i, (name, dev) in enumerate(self.fabric.topology.devices.items()):
            if name in snmp_cfg.devices or (snmp_cfg.every and i % snmp_cfg.every == snmp_cfg.every - 1):
                agent, udp_port = await start_agent(self.fabric, dev, snmp_cfg.host, 0, snmp_cfg.community)
                self.snmp_agents[name] = agent
                self.targets.append(SimTarget(name, f"{snmp_cfg.host}:{udp_port}", dev.flavour, "snmp"))
                continue
            servicer = GnmiTarget(self.fabric, name, username=g.username, password=password)
            port_req = 0 if g.base_port == 0 else g.base_port + i
            server, port = await start_server(servicer, f"{g.host}:{port_req}", tls=tls)
            self.servers[name] = server
            self.servicers[name] = servicer
            self.targets.append(SimTarget(name, f"{g.host}:{port}", dev.flavour))
        await self._start_control()

    async def stop(self) -> None:
        for server in self.servers.values():
            await server.stop(grace=0.2)
        self.servers.clear()
        for agent in self.snmp_agents.values():
            if agent.transport is not None:
                agent.transport.close()
        self.snmp_agents.clear()
        if self.ufm is not None:
            await self.ufm.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def stop_device(self, device: str) -> None:
        """Take one device's gNMI server away entirely (connection refused)."""
        server = self.servers.pop(device, None)
        if server is not None:
            await server.stop(grace=0)
        agent = self.snmp_agents.pop(device, None)
        if agent is not None and agent.transport is not None:
            agent.transport.close()

    # -- what the daemon needs to know -------------------------------------------------
    def daemon_collectors(self, sample_interval: float = 10.0) -> list[dict[str, Any]]:
        """[[collectors.gnmi]] sections for these targets, one per flavour."""
        sections = []
        for flavour in sorted({t.flavour for t in self.targets if t.protocol == "gnmi"}):
            section: dict[str, Any] = {
                "name": f"sim-{flavour}",
                "flavour": flavour,
                "sample_interval": sample_interval,
                "tags": {"fabric": self.config.fabric.fabric},
                "targets": [
                    {"device": t.device, "address": t.address}
                    for t in self.targets if t.flavour == flavour and t.protocol == "gnmi"
                ],
            }
            if self.config.gnmi.username:
                section["username"] = self.config.gnmi.username
            sections.append(section)
        return sections

    def daemon_snmp_collectors(self, interval: float = 10.0) -> list[dict[str, Any]]:
        """One [[collectors.snmp]] section for the SNMP-only switches (community from the env)."""
        targets = [t for t in self.targets if t.protocol == "snmp"]
        if not targets:
            return []
        os.environ.setdefault(SIM_COMMUNITY_ENV, self.config.snmp.community)
        return [{
            "name": "sim-snmp",
            "community": {"env": SIM_COMMUNITY_ENV},
            "interval": interval,
            "timeout": max(1.0, min(interval, 5.0)),
            "tags": {"fabric": self.config.fabric.fabric},
            "targets": [
                {"device": t.device, "address": t.address,
                 **({"profile": SNMP_PROFILE[t.flavour]} if t.flavour in SNMP_PROFILE else {})}
                for t in targets
            ],
        }]

    def daemon_ufm_collectors(self, interval: float = 10.0, *, token: bool = False) -> list[dict[str, Any]]:
        """One [[collectors.ufm]] section for the simulated UFM (credentials from the env)."""
        if self.ufm is None:
            return []
        u = self.config.ufm
        os.environ.setdefault(SIM_UFM_PASSWORD_ENV, u.password)
        os.environ.setdefault(SIM_UFM_TOKEN_ENV, u.token)
        auth: dict[str, Any] = ({"token": {"env": SIM_UFM_TOKEN_ENV}} if token else
                                {"username": u.username, "password": {"env": SIM_UFM_PASSWORD_ENV}})
        return [{
            "name": "sim-ufm", "url": self.ufm.rest_url, "telemetry_url": self.ufm.telemetry_url,
            "interval": interval, "inventory_interval": max(interval * 10, 5.0), "events_interval": interval,
            # the simulated UFM's history is this run's: faults injected at start are news too
            "events_backfill": True,
            "timeout": 5.0, "tags": {"fabric": "ib"}, **auth,
        }]

    def collectors_config(self, interval: float = 10.0) -> dict[str, list[dict[str, Any]]]:
        """The daemon's [collectors] for every simulated switch, by protocol."""
        out = {"gnmi": self.daemon_collectors(interval)}
        ufm = self.daemon_ufm_collectors(interval)
        if ufm:
            out["ufm"] = ufm
        snmp = self.daemon_snmp_collectors(interval)
        if snmp:
            out["snmp"] = snmp
        return out

    def write_topology(self, path: Path) -> None:
        path.write_text(json.dumps(self.fabric.topology.records(), indent=1))

    # -- live fault injection over HTTP ------------------------------------------------
    async def _start_control(self) -> None:
        app = web.Application()
        app.router.add_get("/faults", self._list_faults)
        app.router.add_post("/faults", self._add_fault)
        app.router.add_delete("/faults", self._clear_faults)
        app.router.add_get("/targets", self._list_targets)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        host, _, port = self.config.control_listen.rpartition(":")
        site = web.TCPSite(self._runner, host, int(port))
        await site.start()
        bound = bound_port(site, int(port))
        self.control_url = f"http://{host}:{bound}"

    async def _list_faults(self, request: web.Request) -> web.Response:
        return web.json_response({
            "faults": [f.to_dict() for f in self.fabric.faults], "kinds": KINDS,
        })

    async def _add_fault(self, request: web.Request) -> web.Response:
        try:
            body = await request.json()
            fault = Fault.parse(body if isinstance(body, dict) else str(body))
            self.fabric.inject(fault)
        except (ValueError, json.JSONDecodeError) as exc:
            return web.json_response({"error": str(exc)}, status=400)
        log.info("fault injected", extra={"fault": fault.to_dict()})
        return web.json_response(fault.to_dict(), status=201)

    async def _clear_faults(self, request: web.Request) -> web.Response:
        removed = self.fabric.clear_faults(request.query.get("device"))
        return web.json_response({"removed": removed})

    async def _list_targets(self, request: web.Request) -> web.Response:
        return web.json_response([t.__dict__ for t in self.targets])
