"""The fabric page's one JSON document (`/api/fabric`): every port laid out by device and tier,
coloured by its worst condition, with the findings, the collectors and the storage.

Ports travel as short arrays, not objects, so that one refresh of a 10k-port fabric stays well
under a megabyte (`bench/fabric_page.py` measures it).
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Mapping
from typing import Any

from fabricwatch.core.batch import INVENTORY_FIELDS
from fabricwatch.core.counters import LANES, PER_LANE, THRESHOLD_LEVELS, lane, threshold
from fabricwatch.core.digits import parse_uint
from fabricwatch.daemon.http_sources import Findings, Links, Storage
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.models.features import parse_speed
from fabricwatch.pipeline.totals import ERROR_COUNTERS

# the order of a port's array; the page reads these names from the document itself
PORT_FIELDS = ("port", "role", "peer", "severity", "pauses", "ecn", "errors", "util", "oper", "admin", "agg")
SEVERITY = {"ok": 0, "warning": 1, "critical": 2}
_ERRORS = frozenset(ERROR_COUNTERS)
# link aggregates as vendors name them: Port-Channel10 (EOS, NX-OS), PortChannel0001 (SONiC), bond0
# (Cumulus, Linux), ae1 (Junos), Po10, lag1; their traffic is their members', so they are drawn apart
_AGGREGATE = re.compile(r"^(port-?channel|bond|ae|po|lag|trk)\d", re.IGNORECASE)


@functools.lru_cache(maxsize=65536)
def is_aggregate(port: str) -> bool:
    return _AGGREGATE.match(port) is not None  # the same counters, and so the same numbers, as /api/links ranks by


def tier_of(device: str, roles: set[str]) -> str:
    """spine, leaf or other: from the ports' roles (a spine has spine ports), else from the name."""
    if "spine" in roles or device.startswith(("spine", "core")):
        return "spine"
    if roles & {"leaf_down", "leaf_up"} or device.startswith("leaf"):
        return "leaf"
    return "other"


def _round(x: float) -> float:
    # a colour and a tooltip need three figures, not seventeen (bytes on the wire at 10k ports)
    return round(x) if x >= 100 else round(x, 2)


def fabric_document(*, site: str, findings: Findings | None, links: Links, targets: Mapping[str, TargetStatus],
                    storage: Storage) -> dict[str, Any]:
    det = findings
    severity: dict[tuple[str, str], int] = {}
    shown: list[dict[str, Any]] = []
    if det is not None:
        for f in det.ranked_findings():
            shown.append(det.finding_json(f))
            level = SEVERITY.get(f.severity, 0)
            for port in f.ports or [f.port]:
                key = (f.device, port)
                severity[key] = max(severity.get(key, 0), level)
    latest = links.latest
    rates_engine = links.rates
    devices: dict[str, dict[str, Any]] = {}
    speeds: dict[str | None, float] = {}
    for (device, port), view in latest.items():
        r, tags = view.rates, view.tags
        nominal = tags.get("speed")
        speed = speeds.get(nominal)
        if speed is None:
            speed = speeds[nominal] = parse_speed(nominal)
        octets = max(r.get("in_octets", 0.0), r.get("out_octets", 0.0))
        util = octets * 8 * 100 / speed if speed else 0.0
        oper = rates_engine.last_value((device, port), "oper_status")
        admin = rates_engine.last_value((device, port), "admin_status")
        peer = f"{tags.get('peer_device', '')}:{tags.get('peer_port', '')}" if tags.get("peer_device") else ""
        d = devices.setdefault(device, {"device": device, "rail": tags.get("rail", ""), "roles": set(), "ports": []})
        d["roles"].add(tags.get("role", ""))
        pauses = errors = 0.0
        for k, v in r.items():  # one pass: this runs for every port at every refresh
            if k in _ERRORS:
                errors += v
            elif k.startswith(("pfc_", "pause_")):
                pauses += v
        d["ports"].append([port, tags.get("role", ""), peer, severity.get((device, port), 0),
                           _round(pauses), _round(r.get("ecn_marked", 0.0)), _round(errors),
                           round(util, 1), -1 if oper is None else int(oper), -1 if admin is None else int(admin),
                           1 if tags.get("if_type") or is_aggregate(port) else 0])
    out_devices = []
    for d in sorted(devices.values(), key=lambda d: d["device"]):
        d["tier"] = tier_of(d["device"], d.pop("roles"))
        d["ports"].sort(key=lambda p: _port_key(p[0]))
        d["severity"] = max((p[3] for p in d["ports"]), default=0)
        d["severity"] = max(d["severity"], severity.get((d["device"], "*"), 0))
        out_devices.append(d)
    statuses = list(targets.values())
    stored = [{"name": s.name, "written": s.stats.points_written, "spooled": s.spool.pending_points,
               "dropped": s.spool.stats.dropped_points + s.stats.points_rejected, "last_error": s.stats.last_error}
              for s in storage]
    return {
        "site": site, "time": time.time(), "port_fields": PORT_FIELDS,
        "targets": {"up": sum(t.up for t in statuses), "total": len(statuses),
                    "list": [{"device": t.device, "collector": t.collector, "up": t.up, "last_error": t.last_error}
                             for t in sorted(statuses, key=lambda t: t.device)]},
        "storage": stored, "findings": shown, "devices": out_devices,
        "cleared": [] if det is None else list(reversed(det.cleared))[:10],
        "detector": None if det is None else {"mode": det.mode, "intervals": det.intervals,
                                              "interval_s": det.interval_s},
    }


def link_document(links: Links, findings: Findings | None, device: str, port: str,
                  targets: Mapping[str, TargetStatus] | None = None) -> dict[str, Any] | None:
    """One link: its latest rates, tags, finding, last hour and events, its optics, the sources
    that report it, and its far end's."""
    view = links.latest.get((device, port))
    if view is None:
        return None
    active = findings.active if findings is not None else {}
    finding = active.get((device, port))
    peer = (view.tags.get("peer_device", ""), view.tags.get("peer_port", ""))
    peer_view = links.latest.get(peer)
    history = links.history
    now = time.time_ns()
    sources = sorted({f"{t.collector} {t.name}" for t in (targets or {}).values() if t.device == device})
    if not sources and targets:
        # a manager (UFM) is one target for many switches: the targets that are no device of the fabric
        devices = {d for d, _ in links.latest}
        sources = sorted({f"{t.collector} {t.name}" for t in targets.values() if t.device not in devices})
    return {
        "device": device, "port": port, "tags": view.tags, "rates": view.rates, "time_ns": view.ts_ns,
        "now_ns": now, "fabric": fabric_of(view.tags, view.rates), "sources": sources,
        "speed_gbps": _speed_gbps(links, (device, port), view.tags),
        "oper": links.rates.last_value((device, port), "oper_status"),
        "admin": links.rates.last_value((device, port), "admin_status"),
        "aggregate": bool(view.tags.get("if_type")) or is_aggregate(port),
        # with when it was raised (raised_ns): the page shades the finding's time
        "finding": None if finding is None or findings is None else findings.finding_json(finding),
        "device_finding": None if (device, "*") not in active or findings is None
        else findings.finding_json(active[(device, "*")]),
        "history": None if history is None else history.of((device, port), now),
        "optics": optics_of(links, (device, port), view.rates),
        "peer": {"device": peer[0], "port": peer[1],
                 "rates": None if peer_view is None else peer_view.rates,
                 "history": None if history is None or peer_view is None else history.of(peer, now),
                 "finding": None if peer not in active else active[peer].to_json()} if peer[0] else None,
    }


def _speed_gbps(links: Links, key: tuple[str, str], tags: Mapping[str, str]) -> float | None:
    """The negotiated speed, else the topology's nominal one; None (no utilisation plotted) when neither is known."""
    bps = links.rates.last_value(key, "speed_bps")
    if not bps and tags.get("speed"):
        bps = parse_speed(tags["speed"], 0.0)
    return bps / 1e9 if bps else None


_IB = ("xmit_wait", "symbol_errors", "link_downed", "rcv_errors", "link_error_recovery")


def fabric_of(tags: Mapping[str, str], rates: Mapping[str, float]) -> str:
    """'ib' or 'roce': the collector's fabric tag, else what the port counts (IB's own counters)."""
    tagged = tags.get("fabric", "").lower()
    if tagged in ("ib", "infiniband"):
        return "ib"
    if tagged in ("roce", "ethernet", "eth"):
        return "roce"
    return "ib" if any(k in rates for k in _IB) else "roce"


def optics_of(links: Links, key: tuple[str, str], rates: Mapping[str, float]) -> dict[str, Any]:
    """The module's latest readings (per lane, against its own thresholds where it gives them), its
    FEC rates and what it is (vendor, part, serial); absent values are left out, not zero."""
    last = links.rates.last_value
    lanes = []
    for n in LANES:
        values = {q: v for q in PER_LANE if (v := last(key, lane(q, n))) is not None}
        if (errors := rates.get(lane("lane_errors", n))) is not None:
            values["lane_errors"] = errors  # bits the FEC corrected on the lane, per second
        if values:
            lanes.append({"lane": n, **values})
    limits: dict[str, dict[str, float]] = {}
    for q in (*PER_LANE, "temperature_c", "voltage_v"):
        known = {lvl: v for lvl in THRESHOLD_LEVELS if (v := last(key, threshold(q, lvl))) is not None}
        if known:
            limits[q] = known
    gauges = {name: v for name in ("temperature_c", "voltage_v", "pre_fec_ber", "post_fec_ber", "ib_raw_ber",
                                   "ib_effective_ber", "ib_symbol_ber") if (v := last(key, name)) is not None}
    fec = {name: rates[name] for name in ("fec_corrected", "fec_uncorrectable", "fec_corrected_bits",
                                          "fec_corrected_symbols") if name in rates}
    module = links.modules.get(key)
    fields = {k: v for k, v in module.fields.items() if k in INVENTORY_FIELDS and v} if module is not None else {}
    return {"lanes": lanes, "thresholds": limits, "gauges": gauges, "fec": fec, "module": fields}


@functools.lru_cache(maxsize=65536)  # port names repeat on every switch
def _port_key(name: str) -> tuple[str, int]:
    number = parse_uint("".join(ch for ch in name if "0" <= ch <= "9"), max_digits=8)
    return name.rstrip("0123456789"), number or 0
