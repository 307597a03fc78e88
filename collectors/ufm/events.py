"""UFM app/events, read incrementally by id, and app/unhealthy_ports -> device events."""

from __future__ import annotations

import re
import time
from typing import Any

from fabricwatch.collectors.ufm.inventory import Inventory, norm_guid
from fabricwatch.core.batch import DeviceEvent
from fabricwatch.core.timeparse import parse_time_ns

_SLUG = re.compile(r"[^a-z0-9]+")


def _ts_ns(value: object) -> int:
    """UFM timestamps are 'YYYY-mm-dd HH:MM:SS' in UTC; anything else is taken as now."""
    text = str(value or "").strip()
    if not text or text.startswith("-") or text == "now":
        return time.time_ns()
    try:
        return parse_time_ns(text)
    except ValueError:
        return time.time_ns()


def kind_of(name: str) -> str:
    return "ufm_" + _SLUG.sub("_", name.lower()).strip("_")[:60]


def parse_events(data: Any, inv: Inventory, after_id: int) -> tuple[list[DeviceEvent], int, list[str]]:
    """(events with id > after_id, the highest id seen, problems). `event_type` exists only from
    UFM 6.24; older ones have `name`; records without id or object are reported, not fatal."""
    problems: list[str] = []
    if not isinstance(data, list):
        return [], after_id, [f"app/events: expected a JSON list, got {type(data).__name__}"]
    out = []
    top = after_id
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            problems.append(f"app/events[{i}]: not an object")
            continue
        try:
            eid = int(rec["id"])
        except (KeyError, TypeError, ValueError, OverflowError):  # 1e999 reads as inf
            problems.append(f"app/events[{i}]: no numeric id")
            continue
        top = max(top, eid)
        if eid <= after_id:
            continue
        name = str(rec.get("event_type") or rec.get("name") or rec.get("type") or "event")
        obj = str(rec.get("object_name") or "")
        if not obj:
            problems.append(f"app/events[{i}] (id {eid}): no object_name")
        device, port = inv.by_object_name(obj) if obj else ("ufm", "")
        detail = str(rec.get("description") or name)
        # UFM stamps whole seconds: the id's last digits as nanoseconds keep two events of one
        # port and second from overwriting each other in the time series
        out.append(DeviceEvent(_ts_ns(rec.get("timestamp")) + eid % 1_000_000, device, port, kind_of(name), detail,
                               severity=str(rec.get("severity") or ""), source="ufm", event_id=str(eid)))
    return out, top, problems


def parse_unhealthy(data: Any, inv: Inventory) -> tuple[dict[tuple[str, str], str], list[str]]:
    """(device, port) -> cause, for every port UFM calls unhealthy."""
    if not isinstance(data, list):
        return {}, [f"app/unhealthy_ports: expected a JSON list, got {type(data).__name__}"]
    out: dict[tuple[str, str], str] = {}
    problems = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            continue
        name = rec.get("port") or rec.get("port_name") or rec.get("name")
        if isinstance(name, str) and "_" in name:
            key = inv.by_object_name(name)
        elif rec.get("guid") and rec.get("port_number") is not None:
            info = inv.port(norm_guid(rec["guid"]), str(rec["port_number"]))
            key = (info.device, info.port)
        else:
            problems.append(f"app/unhealthy_ports[{i}]: no port")
            continue
        out[key] = str(rec.get("cause") or rec.get("reason") or "unhealthy")
    return out, problems
