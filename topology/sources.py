"""Cables from what devices and managers report: ibnetdiscover, UFM's resources, lldpd's JSON."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from fabricwatch.collectors.ibdiag.parsers import parse_topology
from fabricwatch.collectors.ufm.inventory import (
    Inventory,
    norm_guid,
    parse_links,
    parse_ports,
    parse_systems,
    resolve_peers,
)
from fabricwatch.core.errors import TargetError
from fabricwatch.core.neighbours import Neighbour
from fabricwatch.core.problems import Problem
from fabricwatch.core.protocols import CollectorConfig, ReadsNeighbours
from fabricwatch.topology.cables import Cable, Fabric

_MODEL = re.compile(r":(?P<model>[A-Z]+[0-9][A-Za-z0-9-]*)")  # 'MF0;sw-01:MQM8700/U1' -> MQM8700


def _model(description: str) -> str:
    m = _MODEL.search(description)
    return m.group("model") if m else ""


def _known(v: object) -> str:
    """A UFM field's value, '' for the 'N/A' it writes when it does not know."""
    text = str(v).strip() if isinstance(v, str | int | float) else ""
    return "" if text.upper() in ("N/A", "NA", "NONE", "UNKNOWN") else text


# the adapter word of a '<host> <adapter>' node description: an RDMA device (mlx5_0, hfi1_0, qib0),
# an IPoIB interface (ib0, ibp213s0f0, ibs1f1) or the 'HCA-1' that OpenSM/UFM hosts write
_ADAPTER = re.compile(r"(?:mlx\d+_\d+|hfi\d+_\d+|qib\d+|ib[a-z0-9_.]*\d[a-z0-9_.]*|HCA-?\d+)", re.IGNORECASE)
_SYSIMG = re.compile(r"^\s*sysimgguid\s*=\s*0x(?P<g>[0-9a-fA-F]{1,16})\s*$")
_NODE_ID = re.compile(r'^\s*(?:Switch|Ca|Rt)\s*\d+\s+"[SHR]-(?P<g>[0-9a-fA-F]{1,16})"')


def host_and_adapter(description: str) -> tuple[str, str] | None:
    """(host, adapter) of a '<host> <adapter>' node description ('node7 mlx5_0', 'node7 ibp213s0f0',
    'ufm1 HCA-1'); None for anything else (a default 'MT4123 ConnectX6   Mellanox Technologies')."""
    words = description.split()
    if len(words) != 2 or not _ADAPTER.fullmatch(words[1]):
        return None
    return words[0], words[1]


def _guid(text: str) -> int | None:
    try:
        return int(text, 16)
    except ValueError:
        return None


def _system_guids(text: str) -> dict[int, int]:
    """Node GUID -> its `sysimgguid` (the topology format writes one above each node block)."""
    out: dict[int, int] = {}
    current: int | None = None
    for line in text.splitlines():
        if m := _SYSIMG.match(line):
            current = int(m["g"], 16)
        elif m := _NODE_ID.match(line):
            if current is not None:
                out[int(m["g"], 16)] = current
            current = None
    return out


def _port_name(adapter: str, port: str) -> str:
    # an IPoIB interface is one port already; an RDMA device or HCA-n has numbered ports
    if adapter.lower().startswith("ib") and not adapter.upper().startswith("HCA") and port == "1":
        return adapter
    return f"{adapter}/{port}"


def _group_hosts(adapters: dict[str, str], shared: set[str], system: dict[int, int],
                 out: Fabric) -> dict[str, tuple[str, str]]:
    """Adapter GUID -> (host, adapter name): by node description, else by a system GUID it shares with
    adapters that name their host. What names no host stays as it was and is reported."""
    found: dict[str, tuple[str, str]] = {}
    for guid, name in adapters.items():
        ha = host_and_adapter(name)
        if ha is not None and name not in shared:  # one description on two GUIDs names no one server
            found[guid] = ha
    by_desc = len(found)
    members: dict[int, list[str]] = {}
    for guid in adapters:
        number = _guid(guid)
        if number is not None and number in system:
            members.setdefault(system[number], []).append(guid)
    by_system = 0
    for sysguid, guids in sorted(members.items()):
        if len(guids) < 2:
            continue
        named = {found[g][0] for g in guids if g in found}
        if len(named) > 1:
            out.problems.append(Problem("ibnetdiscover", f"0x{sysguid:016x}", "conflict",
                                        f"adapters of one system GUID name different hosts: "
                                        f"{', '.join(sorted(named))} (kept each description's)"))
            continue
        host = named.pop() if named else f"sysimg-0x{sysguid:016x}"
        for g in guids:
            if g not in found:
                found[g] = (host, g)
                by_system += 1
    hosts = {h for h, _ in found.values()}
    left = Counter(name for guid, name in adapters.items() if guid not in found)
    out.notes.append(f"ibnetdiscover: grouped {len(found):,} adapters into {len(hosts):,} hosts "
                     f"({by_desc:,} by node description '<host> <adapter>', {by_system:,} by a shared system GUID); "
                     f"{sum(left.values()):,} adapters not grouped")
    for name, n in sorted(left.items()):
        out.problems.append(Problem("ibnetdiscover", "", "unreadable",
                                    f"{n:,} adapters named {name!r} name no host (not '<host> <adapter>', "
                                    f"no system GUID shared with one that does): one host each"))
    return found


def from_ibnetdiscover(text: str) -> Fabric:
    """Either ibnetdiscover format. Switches are node descriptions, ports their numbers: what the
    ibdiag collector tags its points with. A server's adapters are one host (`_group_hosts`), each
    adapter's port a port of it ('mlx5_0/1', 'ibp213s0f0')."""
    topo = parse_topology(text)
    out = Fabric(problems=[Problem("ibnetdiscover", "", "unreadable", p) for p in topo.problems])
    kinds = {"CA": "host", "SW": "switch", "RT": "switch"}
    guids: dict[str, set[str]] = {}
    adapters: dict[str, str] = {}  # guid -> node description, of every CA
    for p in topo.ports:
        guids.setdefault(p.name, set()).add(p.guid)
        if p.node_type == "CA":
            adapters[p.guid] = p.name
        if p.peer_name:
            guids.setdefault(p.peer_name, set()).add(p.peer_guid)
            if p.peer_type == "CA":
                adapters[p.peer_guid] = p.peer_name
    shared = {name: g for name, g in guids.items() if len(g) > 1}
    for name, g in sorted(shared.items()):
        out.duplicates[name] = sorted(g)
    hosts = _group_hosts(adapters, set(shared), _system_guids(text), out) if adapters else {}

    def end(name: str, guid: str, kind: str, port: str) -> tuple[str, str]:
        if guid in hosts:
            host, adapter = hosts[guid]
            out.node(host, "host")
            return host, _port_name(adapter, port)
        # one description on several nodes (a default 'MT4123 ConnectX6' left unset): told apart by GUID
        me = f"{name} [{guid}]" if name in shared else name
        out.node(me, kinds.get(kind, "switch"), _model(name), guid)
        return me, port

    for p in topo.ports:
        me = end(p.name, p.guid, p.node_type, p.port)
        if not p.peer_name:
            continue
        far = end(p.peer_name, p.peer_guid, p.peer_type, p.peer_port)
        out.add(Cable(me, far, p.speed, p.width, True))
    return out


def from_ufm(systems: Any, ports: Any, links: Any) -> Fabric:
    """UFM's resources/systems, resources/ports and resources/links (JSON as UFM returns it)."""
    inv = Inventory()
    parse_systems(systems, inv)
    by_name: dict[str, list[str]] = {}
    for guid, name in inv.systems.items():
        by_name.setdefault(name, []).append(guid)
    duplicates = {name: sorted(g) for name, g in by_name.items() if len(g) > 1}
    for name, guids in duplicates.items():  # a default name left on many switches: told apart by GUID
        for g in guids:
            inv.systems[g] = f"{name} [0x{g}]"
    parse_ports(ports, inv)
    parse_links(links, inv)
    resolve_peers(inv)
    out = Fabric(problems=[Problem("ufm", "", "unreadable", p) for p in inv.problems],
                 duplicates={n: ["0x" + g for g in gs] for n, gs in duplicates.items()})
    # a system's `type` (host, switch, gateway) says what it is; UFM's `role` may say endpoint for all
    types: dict[str, str] = {}  # ports name their system by either of its GUIDs
    facts: dict[str, tuple[str, str]] = {}  # guid -> (model, firmware)
    for r in systems if isinstance(systems, list) else []:
        if isinstance(r, dict):
            model, firmware = _known(r.get("model")), _known(r.get("fw_version")) or _known(r.get("sw_version"))
            for key in ("system_guid", "guid"):
                if r.get(key):
                    types[norm_guid(r[key])] = str(r.get("type", "")).lower()
                    facts[norm_guid(r[key])] = (model, firmware)
            if r.get("system_name"):
                types.setdefault(str(r["system_name"]).strip(), str(r.get("type", "")).lower())
    for (guid, _), info in inv.ports.items():
        kind = types.get(guid) or types.get(info.device) or \
            ("host" if inv.roles.get(guid, "") in ("endpoint", "host", "compute") else "switch")
        model, firmware = facts.get(guid, ("", ""))
        out.node(info.device, "host" if kind == "host" else "switch", model=model, guid=guid, firmware=firmware)
    for (guid, number), fields in inv.cables.items():
        info = inv.port(guid, number)
        out.modules[(info.device, info.port)] = fields
    # resources/links first: UFM's own list of links; then the peers that only ports name
    for rec in links if isinstance(links, list) else []:
        if not isinstance(rec, dict) or not rec.get("source_guid") or not rec.get("destination_guid"):
            continue
        a = inv.port(norm_guid(rec["source_guid"]), str(rec.get("source_port", "")))
        b = inv.port(norm_guid(rec["destination_guid"]), str(rec.get("destination_port", "")))
        if a.device == b.device:
            out.problems.append(Problem("ufm", "resources/links", "unreadable",
                                        f"{rec.get('name', '?')} joins {a.device} to itself"))
            continue
        up = None if a.up is None and b.up is None else bool(a.up or b.up)
        out.add(Cable((a.device, a.port), (b.device, b.port), a.tags.get("speed") or b.tags.get("speed", ""),
                      str(rec.get("width", "")), up))
    for (guid, _), info in inv.ports.items():
        far_dev, far_port = info.tags.get("peer_device"), info.tags.get("peer_port")
        if not far_dev or not far_port or (far_dev, far_port) == (info.device, info.port):
            continue
        if far_dev in (info.device, "0x" + guid):
            out.problems.append(Problem("ufm", "resources/ports", "unreadable",
                                        f"{info.device} port {info.port} names its own system as its peer"))
            continue
        end = (info.device, info.port)
        if out.has_end(end):
            continue  # already a link: the ports' own peer fields agree or are older
        out.add(Cable(end, (far_dev, far_port), info.tags.get("speed", ""), "", info.up))
    return out


def _one(obj: Any) -> tuple[str, Any]:
    """lldpd writes `{"name": {...}}` for one item, or a list of those for several."""
    if isinstance(obj, list):
        obj = obj[0] if obj else {}
    if isinstance(obj, dict) and len(obj) == 1:
        (k, v), = obj.items()
        return str(k), v
    return "", obj


def from_lldpctl(text: str, host: str) -> Fabric:
    """`lldpcli -f json show neighbors` (or `lldpctl -f json`) run on `host`: its NICs' switch ports."""
    out = Fabric()
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        out.problems.append(Problem("lldpd", host, "unreadable", f"not lldpd JSON: {exc}"))
        return out
    lldp = doc.get("lldp") if isinstance(doc, dict) else None
    if not isinstance(lldp, dict):
        out.problems.append(Problem("lldpd", host, "unreadable", "no 'lldp' object"))
        return out
    interfaces = lldp.get("interface") or []
    if isinstance(interfaces, dict):
        interfaces = [{k: v} for k, v in interfaces.items()]
    out.node(host, "host")
    for item in interfaces if isinstance(interfaces, list) else []:
        nic, body = _one(item)
        if not isinstance(body, dict):
            continue
        switch, chassis = _one(body.get("chassis", {}))
        port = body.get("port", {}) if isinstance(body.get("port"), dict) else {}
        pid = port.get("id", {}) if isinstance(port.get("id"), dict) else {}
        switch_port = str(pid.get("value") or port.get("descr") or "")
        if not switch:
            cid = chassis.get("id", {}) if isinstance(chassis, dict) else {}
            switch = str(cid.get("value", "")) if isinstance(cid, dict) else ""
        if not nic or not switch or not switch_port:
            out.problems.append(Problem("lldpd", host, "unreadable",
                                        f"neighbour on {nic or '?'} without a switch name or port"))
            continue
        descr = str(chassis.get("descr", "")) if isinstance(chassis, dict) else ""
        out.node(switch, "switch", descr.split("\n")[0][:60])
        auto = port.get("auto-negotiation", {}) if isinstance(port.get("auto-negotiation"), dict) else {}
        current = str(auto.get("current", ""))
        m = re.match(r"(\d+)G", current)
        out.add(Cable((host, nic), (switch, switch_port), f"{m.group(1)}G" if m else "", "", True))
    return out


def from_lldp_neighbours(device: str, found: list[Neighbour], problems: list[Problem]) -> Fabric:
    """A switch's LLDP neighbours: its ports and what is at their far ends."""
    out = Fabric(problems=list(problems))
    out.node(device, "switch")
    for n in found:
        out.node(n.remote, "host" if n.remote_is_host else "switch")
        out.add(Cable((device, n.local_port), (n.remote, n.remote_port), "", "", True))
    return out


def neighbour_readers(sections: Iterable[CollectorConfig]) -> list[ReadsNeighbours]:
    """The targets of these collector sections that can read their LLDP neighbours."""
    return [c for s in sections for c in s.build() if isinstance(c, ReadsNeighbours)]


async def from_lldp(readers: Sequence[ReadsNeighbours], *, timeout: float = 30.0) -> Fabric:
    """LLDP from every target that reads it, all at once; a device that fails is reported
    (`unreachable`) and the others go on."""

    async def one(c: ReadsNeighbours) -> Fabric:
        try:
            async with asyncio.timeout(timeout):
                found, problems = await c.neighbours()
        except (TargetError, TimeoutError, OSError) as exc:
            return Fabric(problems=[Problem("lldp", c.device, "unreachable",
                                            f"LLDP over {c.kind.upper()} failed: {exc}")])
        return from_lldp_neighbours(c.device, found, problems)

    out = Fabric()
    for part in await asyncio.gather(*(one(c) for c in readers)):
        out.merge(part)
    return out
