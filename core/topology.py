"""Per-port tags (fabric, role, rail, peer) that collectors cannot see, from a topology file."""

from __future__ import annotations

import json
from pathlib import Path

TOPOLOGY_TAGS = ("fabric", "role", "rail", "peer_device", "peer_port", "speed")


class Topology:
    """Maps (device, port) -> tags; the simulator writes one, an operator can too."""

    def __init__(self, ports: dict[tuple[str, str], dict[str, str]] | None = None) -> None:
        self._ports = ports or {}
        # the far end of every known link: a host NIC the file does not list is still tagged
        # with the switch port it plugs into
        self._peers: dict[tuple[str, str], dict[str, str]] = {}
        for (device, port), tags in self._ports.items():
            if "peer_device" in tags and "peer_port" in tags:
                far = {k: v for k, v in tags.items() if k in ("fabric", "rail", "speed")}
                self._peers[(tags["peer_device"], tags["peer_port"])] = {
                    **far, "peer_device": device, "peer_port": port}

    def tags(self, device: str, port: str) -> dict[str, str]:
        found = self._ports.get((device, port))
        if found is not None:
            return found
        return self._peers.get((device, port), {})

    def __len__(self) -> int:
        return len(self._ports)

    @classmethod
    def from_records(cls, records: list[dict[str, object]]) -> Topology:
        ports: dict[tuple[str, str], dict[str, str]] = {}
        for i, rec in enumerate(records):
            if not isinstance(rec, dict):
                raise ValueError(f"topology entry {i}: expected an object with device and port, got {rec!r:.60}")
            try:
                device, port = str(rec["device"]), str(rec["port"])
            except KeyError as exc:
                raise ValueError(f"topology entry {i}: missing {exc.args[0]!r}") from None
            ports[(device, port)] = {
                k: str(rec[k]) for k in TOPOLOGY_TAGS if rec.get(k) not in (None, "")
            }
        return cls(ports)

    @classmethod
    def load(cls, path: Path) -> Topology:
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise ValueError(f"{path}: cannot load topology: {exc}") from None
        if not isinstance(data, list):
            raise ValueError(f"{path}: topology must be a JSON list of port records")
        try:
            return cls.from_records(data)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    def records(self) -> list[dict[str, str]]:
        return [{"device": d, "port": p, **t} for (d, p), t in sorted(self._ports.items())]


def job_links(records: list[dict[str, str]], hosts: list[str]) -> list[tuple[str, str, str, str]]:
    """The links a job on these hosts uses, as (device, port, role, why): the leaf ports facing the
    hosts, those leaves' uplinks, and the spine ports the uplinks reach."""
    hostset = set(hosts)
    out: dict[tuple[str, str], tuple[str, str, str, str]] = {}
    leaves: set[str] = set()
    for r in records:
        if r.get("role") == "leaf_down" and r.get("peer_device") in hostset:
            out[(r["device"], r["port"])] = (r["device"], r["port"], "leaf_down",
                                            f"{r['peer_device']} -> {r['device']}")
            leaves.add(r["device"])
    for r in records:
        if r.get("role") == "leaf_up" and r.get("device") in leaves:
            out[(r["device"], r["port"])] = (r["device"], r["port"], "leaf_up",
                                            f"{r['device']} -> {r.get('peer_device', '?')}")
            peer = (r.get("peer_device", ""), r.get("peer_port", ""))
            if all(peer):
                out[peer] = (peer[0], peer[1], "spine", f"{peer[0]} -> {r['device']}")
    return list(out.values())
