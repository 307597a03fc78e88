"""A UFM-style manager for the simulated InfiniBand fabric: REST inventory and events, Telemetry.

REST (aiohttp): /ufmRest/... with HTTP basic auth, /ufmRestV3/... with `Authorization: Basic
<token>`; resources/ports, resources/systems, resources/links, app/events, app/unhealthy_ports.
Telemetry (a second port, like UFM's 9001): /csv/cset/converted_enterprise and /metrics
(Prometheus text). Counter names and widths are written here from the IBA spec, independently
of core/names.py.
"""

from __future__ import annotations

import base64
import datetime as dt
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from fabricwatch.core.net import bound_port
from fabricwatch.simulator.fabric import COL, Fabric, Snapshot
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.topology import SimDevice, SimPort

# Telemetry column -> (model counter, divisor, saturating width or None)
TELEMETRY_COLUMNS: tuple[tuple[str, str | None, int, int | None], ...] = (
    ("PortXmitDataExtended", "out_octets", 4, None),
    ("PortRcvDataExtended", "in_octets", 4, None),
    ("PortXmitPktsExtended", "out_pkts", 1, None),
    ("PortRcvPktsExtended", "in_pkts", 1, None),
    ("SymbolErrorCounter", "symbol_errors", 1, 16),
    ("LinkErrorRecoveryCounter", None, 1, 8),
    ("LinkDownedCounter", "link_transitions", 2, 8),
    ("PortRcvErrors", "in_errors", 1, 16),
    ("PortRcvRemotePhysicalErrors", None, 1, 16),
    ("PortRcvSwitchRelayErrors", None, 1, 16),
    ("PortXmitDiscards", "out_discards", 1, 16),
    ("PortXmitConstraintErrors", None, 1, 8),
    ("PortRcvConstraintErrors", None, 1, 8),
    ("LocalLinkIntegrityErrors", None, 1, 4),
    ("ExcessiveBufferOverrunErrors", None, 1, 4),
    ("VL15Dropped", None, 1, 16),
    ("PortXmitWaitExtended", "xmit_wait", 1, None),
)
CSV_PATH = "/csv/cset/converted_enterprise"
FAULT_EVENTS = {  # fault kind -> (UFM event name, severity, category)
    "flap": ("Link went down", "Critical", "Fabric Notification"),
    "ber": ("Symbol error counter rate exceeded threshold", "Warning", "Port Counters"),
    "congested": ("Port congestion (xmit wait) above threshold", "Warning", "Port Counters"),
    "dead": ("Switch is not responding", "Critical", "Hardware"),
}


def guid_of(index: int) -> str:
    return f"0c42a10300{index:06x}"


def telemetry_values(snap: Snapshot, port: SimPort) -> dict[str, int]:
    """What the manager reports for one port, by Telemetry column name."""
    row = snap.counters[port.index]
    out = {}
    for column, model, div, width in TELEMETRY_COLUMNS:
        value = int(row[COL[model]]) // div if model is not None else 0
        if width is not None:
            value = min(value, (1 << width) - 1)  # classic IB error counters stop at their ceiling
        out[column] = value
    return out


PHY_COLUMNS = ("Total_Raw_BER", "Effective_BER", "Symbol_BER", *(f"Raw_Errors_Lane_{n}" for n in range(4)),
               "Effective_Errors", "Module_Temperature", *(f"RX_Power_Lane_{n}" for n in range(4)),
               *(f"TX_Power_Lane_{n}" for n in range(4)), *(f"TX_Bias_Lane_{n}" for n in range(4)))


def phy_values(snap: Snapshot, port: SimPort) -> dict[str, str]:
    """UFM's low-frequency physical-layer fields for one port, as CSV cells."""
    o = snap.port_optics(port)
    bits = port.speed_bps
    out = {"Total_Raw_BER": f"{o['pre_fec_ber']:.3e}",
           "Effective_BER": f"{o['fec_uncorrectable'] * 5440 / max(bits, 1):.3e}" if o["fec_uncorrectable"] else "0",
           "Symbol_BER": "0", "Effective_Errors": str(int(o["fec_uncorrectable"])),
           "Module_Temperature": f"{o['temperature_c']:.1f}"}
    for n in range(4):
        out[f"Raw_Errors_Lane_{n}"] = str(int(o["fec_corrected"]) // 4)
        out[f"RX_Power_Lane_{n}"] = f"{o[f'rx_power_dbm_l{n + 1}']:.2f}"
        out[f"TX_Power_Lane_{n}"] = f"{o[f'tx_power_dbm_l{n + 1}']:.2f}"
        out[f"TX_Bias_Lane_{n}"] = f"{o[f'tx_bias_ma_l{n + 1}']:.3f}"
    return out


def _ts(ns: int) -> str:
    return dt.datetime.fromtimestamp(ns / 1e9, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


@dataclass
class UfmState:
    fabric: Fabric
    devices: list[SimDevice]
    guids: dict[str, str] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    seen_faults: list[Fault] = field(default_factory=list)
    oper: dict[int, bool] = field(default_factory=dict)
    # test hooks: make an endpoint misbehave
    # path suffix -> "500" | "html" | "slow" | "rename" | "nested" | "huge" | "huge-chunked"
    broken: dict[str, str] = field(default_factory=dict)
    unauthorized: int = 0  # requests turned away with 401
    clock: Callable[[], int] = time.time_ns  # the lab runs hours of fabric time in seconds

    def __post_init__(self) -> None:
        for i, dev in enumerate(self.devices):
            self.guids[dev.name] = guid_of(i + 1)

    def port_name(self, port: SimPort) -> str:
        return f"{self.guids[port.device]}_{port.name}"

    def snapshot(self) -> Snapshot:
        return self.fabric.snapshot(self.clock() // 1_000_000_000 * 1_000_000_000)

    def sync_events(self) -> None:
        """New faults and link state changes become events with increasing ids."""
        now = time.time_ns()
        for f in self.fabric.faults:
            if any(f is s for s in self.seen_faults):
                continue
            self.seen_faults.append(f)
            name, severity, category = FAULT_EVENTS.get(f.kind, (f"Fault {f.kind}", "Warning", "Fabric"))
            obj = (f"{self.guids[f.device]}_{f.port}" if f.port else self.guids[f.device])
            self._event(now, name, severity, category, obj, f.device, f.port, f"{name} ({f.kind})")
        snap = self.snapshot()
        for dev in self.devices:
            for p in dev.ports:
                up = bool(snap.oper_up[p.index])
                was = self.oper.get(p.index)
                self.oper[p.index] = up
                if was is not None and was != up:
                    self._event(now, "Link went down" if not up else "Link went up",
                                "Critical" if not up else "Info", "Fabric Notification",
                                self.port_name(p), dev.name, p.name, f"port {p.name} is {'up' if up else 'down'}")

    def _event(self, ts: int, name: str, severity: str, category: str, obj: str, device: str,
               port: str | None, description: str) -> None:
        self.events.append({
            "id": len(self.events) + 1, "name": name, "event_type": name, "type": category,
            "severity": severity, "timestamp": _ts(ts), "counter": "N/A", "category": category,
            "object_name": obj, "object_path": f"default / Switch: {device} / NA / {port or 'NA'}",
            "description": description,
        })


class UfmServer:
    def __init__(self, fabric: Fabric, devices: list[SimDevice], *, username: str = "admin",
                 password: str = "", token: str = "") -> None:
        self.state = UfmState(fabric, devices)
        self.username = username
        self.password = password
        self.token = token
        self.rest_url = ""
        self.telemetry_url = ""
        self._runners: list[web.AppRunner] = []

    # -- auth and faults ------------------------------------------------------------------
    def _authorized(self, request: web.Request) -> bool:
        header = request.headers.get("Authorization", "")
        if request.path.startswith("/ufmRestV3/"):
            return bool(self.token) and header == f"Basic {self.token}"
        expected = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        return header == f"Basic {expected}"

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        telemetry = request.path == "/metrics" or request.path.startswith("/csv/")
        if not telemetry and not self._authorized(request):
            self.state.unauthorized += 1
            return web.json_response({"error": "Unauthorized"}, status=401)
        for suffix, how in self.state.broken.items():
            if request.path.endswith(suffix):
                if how == "500":
                    return web.json_response({"error": "internal"}, status=500)
                if how == "html":
                    return web.Response(text="<html><body>UFM is starting</body></html>", content_type="text/html")
                if how == "slow":
                    import asyncio

                    await asyncio.sleep(3)
                if how == "nested":  # valid JSON no recursive parser reads
                    return web.Response(body=b"[" * 200_000 + b"]" * 200_000, content_type="application/json")
                if how in ("huge", "huge-chunked"):  # 600 MB, announced (Content-Length) or not
                    return await self._huge(request, chunked=how == "huge-chunked")
        return await handler(request)

    async def _huge(self, request: web.Request, *, chunked: bool) -> web.StreamResponse:
        """600 MB of a JSON string, sent until the client stops reading."""
        chunk, count = b" " * (1 << 20), 600
        resp = web.StreamResponse(headers={"Content-Type": "application/json"})
        if not chunked:
            resp.content_length = len(chunk) * count
        await resp.prepare(request)
        try:
            for _ in range(count):
                await resp.write(chunk)
        except (ConnectionError, RuntimeError):  # the client hung up: what it was meant to do
            pass
        return resp

    # -- REST ----------------------------------------------------------------------------
    async def _ports(self, request: web.Request) -> web.Response:
        snap = self.state.snapshot()
        rename = self.state.broken.get("resources/ports") == "rename"
        out = []
        for dev in self.state.devices:
            for p in dev.ports:
                up = bool(snap.oper_up[p.index])
                peer_guid = self.state.guids.get(p.peer_device)
                rec = {
                    "name": self.state.port_name(p), "guid": self.state.guids[dev.name], "number": int(p.name),
                    "dname": p.name, "system_name": dev.name, "systemID": self.state.guids[dev.name],
                    "physical_state": "Link Up" if up else "Down", "logical_state": "Active" if up else "Down",
                    "peer": f"{peer_guid}_{p.peer_port}" if peer_guid else "",
                    "peer_node_name": p.peer_device, "peer_port_dname": p.peer_port,
                    # the lanes' rate and how many the link trained to; a down port has trained to nothing
                    "active_speed": "NDR" if p.speed_bps >= 400e9 else "HDR",
                    "active_width": f"{snap.port_lanes(p)}x" if up else "NoState",
                    "node_type": "switch", "severity": "Info", "description": "Switch IB Port",
                }
                if rename:  # a schema change: the field the collector keys ports on is gone
                    rec["port_number"] = rec.pop("number")
                out.append(rec)
        return web.json_response(out)

    async def _systems(self, request: web.Request) -> web.Response:
        return web.json_response([
            {"name": self.state.guids[d.name], "guid": self.state.guids[d.name], "system_name": d.name,
             "type": "switch", "role": "core" if d.kind == "spine" else "tor", "model": "MQM9700",
             "vendor": "Mellanox", "severity": "Info",
             "ports": [self.state.port_name(p) for p in d.ports]}
            for d in self.state.devices
        ])

    async def _links(self, request: web.Request) -> web.Response:
        snap = self.state.snapshot()
        out = []
        for dev in self.state.devices:
            for p in dev.ports:
                peer_guid = self.state.guids.get(p.peer_device)
                if peer_guid is None or dev.kind != "leaf":  # each switch-switch link once, leaf side first
                    continue
                out.append({
                    "name": f"{self.state.guids[dev.name]}_{p.name}:{peer_guid}_{p.peer_port}",
                    "source_guid": self.state.guids[dev.name], "source_port": p.name,
                    "destination_guid": peer_guid, "destination_port": p.peer_port,
                    "width": f"{snap.port_lanes(p)}x",
                    "severity": "Info", "cable_info": self._cable(p),
                })
        return web.json_response(out)

    def _cable(self, port: SimPort) -> dict[str, str]:
        m = self.state.fabric.module(port)
        return {"vendor": m["vendor"], "part_number": m["part_number"], "serial_number": m["serial"],
                "revision": m["revision"], "identifier": m["module_type"], "length": "3 m",
                "technology": "Optical"}

    async def _events(self, request: web.Request) -> web.Response:
        self.state.sync_events()
        return web.json_response(self.state.events)

    async def _unhealthy(self, request: web.Request) -> web.Response:
        self.state.sync_events()
        out = []
        for f in self.state.fabric.faults:
            if f.kind in ("ber", "flap") and f.port:
                out.append({"port": f"{self.state.guids[f.device]}_{f.port}", "guid": self.state.guids[f.device],
                            "port_number": int(f.port), "system_name": f.device,
                            "cause": "high_ber" if f.kind == "ber" else "link_flapping"})
        return web.json_response(out)

    # -- Telemetry -----------------------------------------------------------------------
    async def _csv(self, request: web.Request) -> web.Response:
        return web.Response(text=self.telemetry_csv(self.state.snapshot()), content_type="text/csv")

    def telemetry_csv(self, snap: Snapshot) -> str:
        """The Telemetry CSV at one snapshot (what /csv/cset/converted_enterprise serves)."""
        header = ["timestamp", "source_id", "tag", "Node_GUID", "port_guid", "Port_Number",
                  *(c for c, *_ in TELEMETRY_COLUMNS), *PHY_COLUMNS]
        extra = self.state.broken.get(CSV_PATH)
        if extra == "column":
            header.insert(8, "NewCounterFromAFutureVersion")
        rows = [",".join(header)]
        ts_us = snap.ts_ns // 1000
        for dev in self.state.devices:
            guid = "0x" + self.state.guids[dev.name]
            for p in dev.ports:
                values = telemetry_values(snap, p)
                phy = phy_values(snap, p)
                cells = [str(ts_us), guid, "", guid, guid, p.name, *(str(values[c]) for c, *_ in TELEMETRY_COLUMNS),
                         *(phy[c] for c in PHY_COLUMNS)]
                if extra == "column":
                    cells.insert(8, "7")
                rows.append(",".join(cells))
        text = "\n".join(rows) + "\n"
        if extra == "truncated":
            text = text[: len(text) - len(rows[-1]) // 2 - 1]  # the last line cut in the middle
        return text

    async def _metrics(self, request: web.Request) -> web.Response:
        snap = self.state.snapshot()
        ts_ms = snap.ts_ns // 1_000_000
        lines = []
        for column, *_ in TELEMETRY_COLUMNS:
            lines.append(f"# TYPE {column} counter")
            for dev in self.state.devices:
                guid = "0x" + self.state.guids[dev.name]
                for p in dev.ports:
                    v = telemetry_values(snap, p)[column]
                    lines.append(f'{column}{{device_name="{dev.name}",node_guid="{guid}",port_guid="{guid}",'
                                 f'port_num="{p.name}"}} {v} {ts_ms}')
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")

    async def start(self, host: str = "127.0.0.1", rest_port: int = 0, telemetry_port: int = 0, *,
                    tls: ssl.SSLContext | None = None) -> None:
        rest = web.Application(middlewares=[self._middleware])
        for prefix in ("/ufmRest", "/ufmRestV3"):
            rest.router.add_get(f"{prefix}/resources/ports", self._ports)
            rest.router.add_get(f"{prefix}/resources/systems", self._systems)
            rest.router.add_get(f"{prefix}/resources/links", self._links)
            rest.router.add_get(f"{prefix}/app/events", self._events)
            rest.router.add_get(f"{prefix}/app/unhealthy_ports", self._unhealthy)
        telemetry = web.Application(middlewares=[self._middleware])
        telemetry.router.add_get(CSV_PATH, self._csv)
        telemetry.router.add_get("/metrics", self._metrics)
        urls = []
        for app, port, ctx in ((rest, rest_port, tls), (telemetry, telemetry_port, None)):
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, host, port, ssl_context=ctx)
            await site.start()
            self._runners.append(runner)
            urls.append(f"{'https' if ctx else 'http'}://{host}:{bound_port(site, port)}")
        self.rest_url, self.telemetry_url = urls
        self.state.sync_events()

    async def stop(self) -> None:
        for r in self._runners:
            await r.cleanup()
        self._runners.clear()
