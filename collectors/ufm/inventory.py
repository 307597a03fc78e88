"""UFM inventory (resources/ports, systems, links) -> port names, roles and peers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from fabricwatch.core.optics import parse_length_m


def norm_guid(value: object) -> str:
    """'0x0c42a103007ab890', '0C42A103007AB890', 0x... -> '0c42a103007ab890'."""
    text = str(value).strip().lower()
    text = text.removeprefix("0x")
    return text.zfill(16)


@dataclass(frozen=True, slots=True)
class PortInfo:
    device: str
    port: str
    tags: dict[str, str]
    up: bool | None = None
    width: int | None = None  # lanes the port trained to ("4x"); None while down ("NoState") or unknown


@dataclass(slots=True)
class Inventory:
    systems: dict[str, str] = field(default_factory=dict)  # guid -> system name
    roles: dict[str, str] = field(default_factory=dict)  # guid -> UFM role (tor, core, endpoint, ...)
    ports: dict[tuple[str, str], PortInfo] = field(default_factory=dict)  # (guid, number) -> port
    cables: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)  # (guid, number) -> inventory
    problems: list[str] = field(default_factory=list)  # records that did not fit the schema

    def device(self, guid: str) -> str:
        return self.systems.get(guid, "0x" + guid)

    def port(self, guid: str, number: str) -> PortInfo:
        info = self.ports.get((guid, number))
        return info or PortInfo(self.device(guid), number, {})

    def by_object_name(self, name: str) -> tuple[str, str]:
        """UFM object names: '<guid>_<port>' for a port, '<guid>' for a system."""
        guid, sep, number = name.partition("_")
        if sep and number:
            info = self.port(norm_guid(guid), number)
            return info.device, info.port
        g = norm_guid(name) if all(c in "0123456789abcdefABCDEFx" for c in name) else ""
        return (self.systems[g], "") if g in self.systems else (name, "")


def _records(data: Any, what: str, problems: list[str]) -> list[dict[str, Any]]:
    if not isinstance(data, list):
        problems.append(f"{what}: expected a JSON list, got {type(data).__name__}")
        return []
    return [r for r in data if isinstance(r, dict)]


def parse_systems(data: Any, inv: Inventory) -> None:
    for i, rec in enumerate(_records(data, "resources/systems", inv.problems)):
        guid = rec.get("system_guid") or rec.get("guid") or rec.get("name")
        name = rec.get("system_name")
        if not guid or not name:
            inv.problems.append(f"resources/systems[{i}]: no guid or system_name")
            continue
        inv.systems[norm_guid(guid)] = str(name).strip()
        if rec.get("role"):
            inv.roles[norm_guid(guid)] = str(rec["role"])


def _lanes(width: object) -> int | None:
    """'4x' or '1X' -> lanes; anything else (NoState, a number, garbage) -> None."""
    m = re.fullmatch(r"(\d{1,2})[xX]", width.strip()) if isinstance(width, str) else None
    return int(m.group(1)) if m else None


def parse_ports(data: Any, inv: Inventory) -> None:
    """Ports by (system guid, number); the system name comes from the port (older schemas) or systems."""
    records = _records(data, "resources/ports", inv.problems)
    for rec in records:  # ports name their system: fill in systems a partial systems list missed
        guid = rec.get("systemID") or rec.get("guid")
        if guid and rec.get("system_name") and norm_guid(guid) not in inv.systems:
            inv.systems[norm_guid(guid)] = str(rec["system_name"]).strip()
    for i, rec in enumerate(records):
        guid = rec.get("systemID") or rec.get("guid")
        number = rec.get("number", rec.get("external_number"))
        if not guid or number is None:
            inv.problems.append(f"resources/ports[{i}] ({rec.get('name', '?')}): no systemID/guid or number")
            continue
        g = norm_guid(guid)
        if g not in inv.systems:
            inv.problems.append(f"resources/ports[{i}] ({rec.get('name', '?')}): system {guid} has no name")
        tags = {}
        if rec.get("active_speed"):
            tags["speed"] = str(rec["active_speed"])
        if g in inv.roles:
            tags["role"] = inv.roles[g]
        peer = str(rec.get("peer") or "")
        if peer and "_" in peer:
            tags["peer_guid"] = norm_guid(peer.partition("_")[0])
            tags["peer_number"] = peer.partition("_")[2]
        if rec.get("peer_node_name"):
            tags["peer_device"] = str(rec["peer_node_name"])
        if rec.get("peer_port_dname"):
            tags["peer_port"] = str(rec["peer_port_dname"])
        state = rec.get("logical_state")
        up = None if state is None else str(state).lower() == "active"
        inv.ports[(g, str(number))] = PortInfo(inv.device(g), str(number), tags, up, _lanes(rec.get("active_width")))


def parse_links(data: Any, inv: Inventory) -> int:
    """Peers from resources/links, both directions; returns how many links were read."""
    n = 0
    for i, rec in enumerate(_records(data, "resources/links", inv.problems)):
        try:
            a = (norm_guid(rec["source_guid"]), str(rec["source_port"]))
            b = (norm_guid(rec["destination_guid"]), str(rec["destination_port"]))
        except KeyError as exc:
            inv.problems.append(f"resources/links[{i}]: missing {exc.args[0]}")
            continue
        n += 1
        # newer schemas describe each end ("SSPINE1-13:2"): a name for systems the inventory lacks
        for end, (guid, _port) in (("source", a), ("destination", b)):
            desc = str(rec.get(f"{end}_port_node_description") or "")
            if guid not in inv.systems and ":" in desc:
                inv.systems[guid] = desc.rsplit(":", 1)[0].strip()
        cable = _cable(rec.get("cable_info"))
        for near, far in ((a, b), (b, a)):
            if cable:
                inv.cables[near] = cable  # one cable, the same at both of its ends
            info = inv.port(*near)
            tags = {**info.tags, "peer_device": inv.device(far[0]), "peer_port": far[1]}
            tags.pop("peer_guid", None)
            tags.pop("peer_number", None)
            inv.ports[near] = replace(info, tags=tags)
    return n


# resources/links `cable_info` keys (UFM REST) -> inventory fields
_CABLE_KEYS = {"vendor": "vendor", "part_number": "part_number", "pn": "part_number", "serial_number": "serial",
               "sn": "serial", "revision": "revision", "rev": "revision", "fw_version": "firmware",
               "identifier": "module_type", "technology": "media", "type": "media"}


def _cable(raw: object) -> dict[str, str]:
    """What a link's cable_info says about the cable (empty in older UFM releases and in the fixtures)."""
    if isinstance(raw, list):
        raw = raw[0] if raw and isinstance(raw[0], dict) else {}
    if not isinstance(raw, dict):
        return {}
    out: dict[str, str] = {}
    for key, value in raw.items():
        name = _CABLE_KEYS.get(str(key).lower())
        if name and isinstance(value, str | int | float) and str(value).strip() not in ("", "N/A", "NA"):
            out.setdefault(name, str(value).strip()[:120])
    length = raw.get("length")
    if isinstance(length, str | int | float) and str(length).strip():
        text = str(length).strip()
        out["length_m"] = parse_length_m(text if text[-1:].isalpha() else f"{text}m")
    return {k: v for k, v in out.items() if v}


def resolve_peers(inv: Inventory) -> None:
    """Ports that only know their peer as '<guid>_<n>' get the peer's system name."""
    for key, info in list(inv.ports.items()):
        if "peer_guid" in info.tags:
            tags = dict(info.tags)
            g, n = tags.pop("peer_guid"), tags.pop("peer_number")
            tags.setdefault("peer_device", inv.device(g))
            tags.setdefault("peer_port", n)
            inv.ports[key] = replace(info, tags=tags)


def topology_records(inv: Inventory, fabric: str = "ib") -> list[dict[str, str]]:
    """The inventory as daemon.topology records (for `[daemon] topology` and blame)."""
    return [{"device": i.device, "port": i.port, "fabric": fabric, **i.tags} for i in inv.ports.values()]
