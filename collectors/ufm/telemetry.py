"""UFM Telemetry (CSV or Prometheus text) -> canonical port counters."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

from fabricwatch.collectors.ufm.inventory import norm_guid
from fabricwatch.core.names import lookup
from fabricwatch.core.timeparse import storable

REQUIRED = ("Node_GUID", "Port_Number")


class TelemetryError(ValueError):
    pass


@dataclass(slots=True)
class PortCounters:
    guid: str
    port: str
    ts_ns: int | None
    values: dict[str, int | float] = field(default_factory=dict)
    bits: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Parsed:
    ports: list[PortCounters] = field(default_factory=list)
    unmapped_columns: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def _ts_ns(us: object) -> int | None:
    """Telemetry stamps microseconds; a stamp that is not a positive time storage can hold is
    left out (the sample is stamped on arrival)."""
    if isinstance(us, float) and math.isfinite(us):
        us = round(us)
    if not isinstance(us, int) or isinstance(us, bool) or us <= 0:
        return None
    return us * 1000 if storable(us * 1000) else None


def parse_csv(text: str) -> Parsed:
    """Header `timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,<counters...>`, one row per port.

    Columns are found by name, so added or reordered columns are fine; a short row is reported
    with its line number, and a truncated last line ends the parse there."""
    out = Parsed()
    lines = text.split("\n")
    complete = text.endswith("\n")
    header = [h.strip() for h in lines[0].split(",")] if lines and lines[0].strip() else []
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise TelemetryError(f"CSV header has no {', '.join(missing)}: {lines[0][:120]!r}")
    col_guid, col_port = header.index("Node_GUID"), header.index("Port_Number")
    col_ts = header.index("timestamp") if "timestamp" in header else None
    mapped = []
    for i, name in enumerate(header):
        c = lookup(name)
        if c is not None:
            mapped.append((i, c))
        elif i not in (col_guid, col_port, col_ts) and name not in ("source_id", "tag", "port_guid", ""):
            out.unmapped_columns.append(name)
    body = lines[1:]
    if body and body[-1] == "":
        body.pop()
    for n, line in enumerate(body, start=2):
        cells = line.split(",")
        if len(cells) != len(header):
            last = n == len(body) + 1
            if last and not complete:
                out.problems.append(f"line {n} truncated ({len(cells)} of {len(header)} fields): "
                                    f"parsed up to line {n - 1}")
                break
            out.problems.append(f"line {n}: {len(cells)} fields, the header has {len(header)}; skipped")
            continue
        pc = PortCounters(norm_guid(cells[col_guid]), cells[col_port].strip(),
                          _ts_ns(_number(cells[col_ts])) if col_ts is not None else None)
        for i, c in mapped:
            v = _number(cells[i])
            if v is None:
                continue
            pc.values[c.canonical] = v * c.scale if c.scale != 1 else v
            if c.bits is not None:
                pc.bits[c.canonical] = c.bits
        out.ports.append(pc)
    return out


def parse_json(text: str) -> Parsed:
    """A Telemetry JSON message: {"timestamp": ..., "values": [{"timestamp": µs, "node_guid", "port_num",
    "Infiniband_<counter>_u_<unit>": n, ...}]}."""
    import json

    out = Parsed()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TelemetryError(f"JSON: {exc.msg} at char {exc.pos}") from None
    rows = data.get("values") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise TelemetryError("JSON message has no 'values' list")
    unmapped: set[str] = set()
    for i, row in enumerate(rows):
        guid = row.get("node_guid") or row.get("source_id") if isinstance(row, dict) else None
        port = row.get("port_num") if isinstance(row, dict) else None
        if not guid or port is None:
            out.problems.append(f"values[{i}]: no node_guid or port_num")
            continue
        pc = PortCounters(norm_guid(guid), str(port), _ts_ns(row.get("timestamp")))
        for name, v in row.items():
            if name in ("timestamp", "source_id", "node_guid", "port_guid", "port_num"):
                continue
            c = lookup(name)
            if c is None or isinstance(v, bool) or not isinstance(v, int | float):
                unmapped.add(name)
                continue
            pc.values[c.canonical] = v * c.scale if c.scale != 1 else v
            if c.bits is not None:
                pc.bits[c.canonical] = c.bits
        out.ports.append(pc)
    out.unmapped_columns = sorted(unmapped)
    return out


def parse_prometheus(text: str) -> Parsed:
    """The Telemetry /metrics endpoint: one sample per (metric, node_guid, port_num)."""
    out = Parsed()
    by_port: dict[tuple[str, str], PortCounters] = {}
    try:
        families = list(text_string_to_metric_families(text))
    except ValueError as exc:
        raise TelemetryError(f"Prometheus text: {exc}") from None
    for fam in families:
        for s in fam.samples:
            # the parser (like OpenMetrics) names counter samples <family>_total
            c = lookup(s.name) or lookup(s.name.removesuffix("_total"))
            if c is None:
                if s.name not in out.unmapped_columns:
                    out.unmapped_columns.append(s.name)
                continue
            guid = s.labels.get("node_guid") or s.labels.get("port_guid")
            port = s.labels.get("port_num") or s.labels.get("Port_Number")
            if not guid or not port:
                out.problems.append(f"{s.name}: sample without node_guid/port_num labels")
                continue
            key = (norm_guid(guid), port)
            pc = by_port.get(key)
            if pc is None:
                ts = _ts_ns(float(s.timestamp) * 1e6) if s.timestamp is not None else None
                pc = by_port[key] = PortCounters(key[0], port, ts)
            value = int(s.value) if float(s.value).is_integer() else s.value
            pc.values[c.canonical] = value * c.scale if c.scale != 1 else value
            if c.bits is not None:
                pc.bits[c.canonical] = c.bits
    out.ports = list(by_port.values())
    return out
