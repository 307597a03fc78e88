"""LLDP neighbours over gNMI, read with one Subscribe ONCE: openconfig-lldp
(`/lldp/interfaces/interface[name]/neighbors/neighbor[id]/state`: the far end's system-name, else
chassis-id, and port-id, else port-description), or on SONiC its APPL_DB `LLDP_ENTRY_TABLE/<port>`
hashes (`lldp_rem_sys_name`, `lldp_rem_port_id`, ...)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from fabricwatch.core.neighbours import Neighbour
from fabricwatch.core.problems import Problem

LLDP_PATH = "/lldp/interfaces/interface/neighbors/neighbor/state"


class AnswersOnce(Protocol):
    """What reading LLDP needs of a gNMI target: its name, and one Subscribe ONCE."""

    @property
    def device(self) -> str: ...

    async def once(self, paths: list[str], *, target: str | None = None) -> list[Any]: ...


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


SONIC_LLDP = "LLDP_ENTRY_TABLE/*"


def _caps_station(text: str) -> bool:
    """SONiC writes the capability bits as hex bytes ('68 00'); bit 7 is station, 2 bridge, 4 router."""
    try:
        raw = bytes.fromhex(text.replace(" ", ""))
    except ValueError:
        return False

    def bit(n: int) -> bool:
        return len(raw) > n // 8 and bool(raw[n // 8] & (0x80 >> (n % 8)))

    return bit(7) and not (bit(2) or bit(4))


def parse_sonic(notifications: list[Any]) -> tuple[list[Neighbour], list[str]]:
    """Neighbours from SONiC's APPL_DB LLDP_ENTRY_TABLE as its gNMI server sends it (one JSON hash
    per local port)."""
    out, problems = [], []
    for n in notifications:
        for u in n.update:
            elems = [*n.prefix.elem, *u.path.elem]
            names = [e.name for e in elems]
            if "LLDP_ENTRY_TABLE" not in names or names.index("LLDP_ENTRY_TABLE") + 1 >= len(names):
                continue
            port = names[names.index("LLDP_ENTRY_TABLE") + 1]
            kind = u.val.WhichOneof("value")
            try:
                fields = json.loads(getattr(u.val, kind)) if kind in ("json_val", "json_ietf_val") else None
            except (ValueError, RecursionError):
                fields = None
            if not isinstance(fields, dict):
                problems.append(f"LLDP_ENTRY_TABLE {port}: not a hash")
                continue
            remote = str(fields.get("lldp_rem_sys_name") or fields.get("lldp_rem_chassis_id") or "").strip()
            far = str(fields.get("lldp_rem_port_id") or fields.get("lldp_rem_port_desc") or "").strip()
            if not remote or not far:
                problems.append(f"LLDP_ENTRY_TABLE {port}: a neighbour without a name or a port")
                continue
            out.append(Neighbour(port, remote, far, _caps_station(str(fields.get("lldp_rem_sys_cap_enabled", "")))))
    return out, problems


async def neighbours(collector: AnswersOnce, *, sonic: bool) -> tuple[list[Neighbour], list[Problem]]:
    """The device's neighbours (SONiC's from APPL_DB), and the entries that could not be told."""
    if sonic:
        found, problems = parse_sonic(await collector.once([SONIC_LLDP], target="APPL_DB"))
    else:
        found, problems = parse(await collector.once([LLDP_PATH]))
    return found, [Problem("lldp", collector.device, "unreadable", p) for p in problems]
