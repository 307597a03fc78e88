"""LLDP neighbours over gNMI (openconfig-lldp): `/lldp/interfaces/interface[name]/neighbors/
neighbor[id]/state` — the far end's system-name (else chassis-id) and port-id (else
port-description), read with one Subscribe ONCE."""

from __future__ import annotations

import json
from typing import Any

from fabricwatch.collectors.gnmi.collector import GnmiCollector
from fabricwatch.core.neighbours import Neighbour

LLDP_PATH = "/lldp/interfaces/interface/neighbors/neighbor/state"


def _value(v: Any) -> str:
    kind = v.WhichOneof("value")
    if kind in ("string_val", "ascii_val"):
        return str(getattr(v, kind)).strip()
    if kind in ("json_val", "json_ietf_val"):
        try:
            got = json.loads(getattr(v, kind))
        except (ValueError, RecursionError):
            return ""
        return got.strip() if isinstance(got, str) else ""
    return ""


def parse(notifications: list[Any]) -> tuple[list[Neighbour], list[str]]:
    """Neighbours from openconfig-lldp notifications, and the entries that could not be told."""
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for n in notifications:
        elems = [*n.prefix.elem]
        for u in n.update:
            path = [*elems, *u.path.elem]
            names = [e.name for e in path]
            if "neighbor" not in names or "interface" not in names:
                continue
            port = next((e.key.get("name", "") for e in path if e.name == "interface"), "")
            nid = next((e.key.get("id", "") for e in path if e.name == "neighbor"), "")
            seen.setdefault((port, nid), {})[names[-1]] = _value(u.val)
    out, problems = [], []
    for (port, _), leaves in sorted(seen.items()):
        remote = leaves.get("system-name") or leaves.get("chassis-id", "")
        far_port = leaves.get("port-id") or leaves.get("port-description", "")
        if not port or not remote or not far_port:
            problems.append(f"interface {port or '?'}: an LLDP neighbour without a name or a port")
            continue
        caps = leaves.get("system-capabilities", "")
        out.append(Neighbour(port, remote, far_port, "STATION" in caps and "BRIDGE" not in caps))
    return out, problems


async def neighbours(collector: GnmiCollector) -> tuple[list[Neighbour], list[str]]:
    found, problems = parse(await collector.once([LLDP_PATH]))
    return found, [f"{collector.device} {p}" for p in problems]
