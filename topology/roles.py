"""Roles and rails from the shape of the graph (and the names, where an operator states rules):
hosts are what the source says are hosts; a switch with hosts is a leaf, one that links leaves a
spine, one that links only spines a super-spine — unless most switches of its model are leaves
(then it is a leaf with no host up). A host's NICs in name order are its rails; a
leaf port's rail is that of the NIC it reaches. Every inferred value is marked as a guess."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from fabricwatch.core.config_types import read_toml
from fabricwatch.topology.cables import Cable, End, Fabric

ROLES = ("host", "leaf", "spine", "super_spine", "switch")
# the port roles our records and the detector use, by (this end's device role, the far end's)
PORT_ROLE = {("leaf", "host"): "leaf_down", ("leaf", "spine"): "leaf_up", ("leaf", "leaf"): "leaf_peer",
             ("spine", "leaf"): "spine", ("spine", "super_spine"): "spine_up",
             ("super_spine", "spine"): "super_spine", ("host", "leaf"): "host"}
RAIL_SHARE = 0.75  # a leaf belongs to a rail when this share of its host ports reach that rail's NICs


@dataclass(frozen=True, slots=True)
class RoleRule:
    pattern: re.Pattern[str]
    role: str


def load_rules(path: Path) -> list[RoleRule]:
    """TOML: `[[role]] device = "regex"` and `role = "leaf"` (first match wins)."""
    data = read_toml(path)
    rules = []
    for i, r in enumerate(data.get("role", [])):
        where = f"{path}: role[{i}]"
        if not isinstance(r, dict) or set(r) != {"device", "role"}:
            raise ValueError(f"{where}: needs exactly the keys device and role")
        if r["role"] not in ROLES:
            raise ValueError(f"{where}.role: {r['role']!r} is not one of {', '.join(ROLES)}")
        try:
            rules.append(RoleRule(re.compile(str(r["device"])), str(r["role"])))
        except re.error as exc:
            raise ValueError(f"{where}.device: not a regular expression: {exc}") from None
    return rules


def _natural(text: str) -> tuple[object, ...]:
    # digit runs compare as numbers (leaf2 before leaf10) by their length, then their digits: any
    # length, no int() (which refuses 4,300 digits); split() alternates text and digit runs
    return tuple((len(t.lstrip("0")), t.lstrip("0")) if i % 2 else t
                 for i, t in enumerate(re.split(r"([0-9]+)", text)))


def host_of(device: str) -> tuple[str, str]:
    """(host, NIC) of a host end: 'node7 mlx5_2' (IB node descriptions) or ('node7', port)."""
    name, _, nic = device.partition(" ")
    return (name, nic) if nic and " " not in nic else (device, "")


def device_roles(fabric: Fabric, rules: list[RoleRule]) -> tuple[dict[str, str], set[str]]:
    """Each device's role, and which of them were stated by a rule (the rest are guesses)."""
    neighbours: dict[str, set[str]] = defaultdict(set)
    for c in fabric.cables.values():
        neighbours[c.a[0]].add(c.b[0])
        neighbours[c.b[0]].add(c.a[0])
    role: dict[str, str] = {}
    stated: set[str] = set()
    for name in set(fabric.nodes) | set(neighbours):
        rule = next((r for r in rules if r.pattern.search(name)), None)
        if rule is not None:
            role[name] = rule.role
            stated.add(name)
        elif fabric.nodes.get(name) is not None and fabric.nodes[name].kind == "host":
            role[name] = "host"
    for name in neighbours:
        if name not in role and any(role.get(n) == "host" for n in neighbours[name]):
            role[name] = "leaf"
    for name in neighbours:
        if name not in role and any(role.get(n) == "leaf" for n in neighbours[name]):
            role[name] = "spine"
    for name in neighbours:
        if name not in role and neighbours[name] and all(role.get(n) == "spine" for n in neighbours[name]):
            role[name] = "super_spine"
    # a switch with no host up looks like a super-spine to the graph; when most switches of its
    # model are leaves, it is a leaf whose hosts are down or not yet cabled
    by_model: dict[str, Counter[str]] = defaultdict(Counter)
    for name, r in role.items():
        node = fabric.nodes.get(name)
        if node is not None and node.model:
            by_model[node.model][r] += 1
    for name, r in list(role.items()):
        node = fabric.nodes.get(name)
        if r == "super_spine" and name not in stated and node is not None and node.model:
            counts = by_model[node.model]
            if counts["leaf"] > sum(counts.values()) / 2:
                role[name] = "leaf"
    for name in neighbours:
        role.setdefault(name, "switch")
    return role, stated


def host_rails(fabric: Fabric, roles: dict[str, str]) -> dict[End, str]:
    """The rail of each host end: its NIC's place among the host's NICs, in name order."""
    nics: dict[str, set[End]] = defaultdict(set)
    for c in fabric.cables.values():
        for end in (c.a, c.b):
            if roles.get(end[0]) == "host":
                nics[host_of(end[0])[0]].add(end)
    rails: dict[End, str] = {}
    for ends in nics.values():
        if len(ends) < 2:
            continue  # one NIC: no rails to tell apart
        for i, end in enumerate(sorted(ends, key=lambda e: _natural(host_of(e[0])[1] + "/" + e[1]))):
            rails[end] = str(i)
    return rails


def records(fabric: Fabric, *, fabric_name: str = "", rules: list[RoleRule] | None = None) -> list[dict[str, str]]:
    """One record per cable end: our topology file (device, port, role, rail, peer_device, peer_port,
    speed, fabric) plus width, state and `guessed` (which of role and rail were inferred)."""
    roles, stated = device_roles(fabric, rules or [])
    nic_rail = host_rails(fabric, roles)
    leaf_rail: dict[str, str] = {}
    down: dict[str, list[str]] = defaultdict(list)
    for c in fabric.cables.values():
        for near, far in ((c.a, c.b), (c.b, c.a)):
            if roles.get(near[0]) == "leaf" and far in nic_rail:
                down[near[0]].append(nic_rail[far])
    for leaf, rails in down.items():
        rail, n = Counter(rails).most_common(1)[0]
        if n >= RAIL_SHARE * len(rails):
            leaf_rail[leaf] = rail
    out = []
    for c in sorted(fabric.cables.values(), key=lambda c: c.key):
        for near, far in ((c.a, c.b), (c.b, c.a)):
            mine, theirs = roles.get(near[0], "switch"), roles.get(far[0], "switch")
            rail = nic_rail.get(near) or nic_rail.get(far) or leaf_rail.get(near[0]) or leaf_rail.get(far[0], "")
            guessed = [k for k, v in (("role", near[0] not in stated), ("rail", bool(rail))) if v]
            rec = {"device": near[0], "port": near[1], "role": PORT_ROLE.get((mine, theirs), mine),
                   "peer_device": far[0], "peer_port": far[1], "rail": rail, "speed": _speed(c),
                   "width": c.width, "state": "" if c.up is None else ("up" if c.up else "down"),
                   "fabric": fabric_name, "guessed": ",".join(guessed)}
            out.append({k: v for k, v in rec.items() if v})
    return out


def _speed(c: Cable) -> str:
    g = c.gbps()
    return f"{g:g}G" if g else c.speed
