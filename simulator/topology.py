"""A rail-optimised fat tree: nodes' NICs per rail on leaves, every leaf up to every spine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

FLAVOURS = ("openconfig", "arista", "cumulus", "sonic")
# InfiniBand switches managed by UFM: ports are numbers, served over the UFM REST/Telemetry API
IB_FLAVOUR = "infiniband"


@dataclass(frozen=True, slots=True)
class SimPort:
    index: int  # row in the fabric's counter arrays
    device: str
    name: str
    role: str  # leaf_down, leaf_up, spine
    peer_device: str
    peer_port: str
    rail: int | None
    speed_bps: int


@dataclass(slots=True)
class SimDevice:
    name: str
    kind: str  # leaf or spine
    flavour: str
    ports: list[SimPort] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FabricSpec:
    nodes: int = 8
    rails: int = 2
    leaves_per_rail: int = 1
    spines: int = 2
    fabric: Literal["roce", "ib"] = "roce"
    speed_gbps: int = 400
    # flavours are given to switches in turn so every vendor path table is exercised
    flavours: tuple[str, ...] = FLAVOURS

    def validate(self) -> None:
        if min(self.nodes, self.rails, self.leaves_per_rail, self.spines) < 1:
            raise ValueError("nodes, rails, leaves_per_rail and spines must all be >= 1")
        if self.leaves_per_rail > self.nodes:
            raise ValueError("leaves_per_rail cannot exceed nodes")
        unknown = set(self.flavours) - {*FLAVOURS, IB_FLAVOUR}
        if unknown:
            raise ValueError(f"unknown flavours {sorted(unknown)}; known: {FLAVOURS}")


def _port_name(flavour: str, i: int) -> str:
    if flavour == IB_FLAVOUR:
        return str(i + 1)
    if flavour == "cumulus":
        return f"swp{i + 1}"
    if flavour == "sonic":
        return f"Ethernet{i * 4}"
    return f"Ethernet{i + 1}"


@dataclass
class Topology:
    spec: FabricSpec
    devices: dict[str, SimDevice]
    ports: list[SimPort]

    def records(self) -> list[dict[str, object]]:
        """Port records in the format of daemon.topology (what `simulate --topology-out` writes)."""
        return [
            {
                "device": p.device,
                "port": p.name,
                "fabric": self.spec.fabric,
                "role": p.role,
                "rail": "" if p.rail is None else str(p.rail),
                "peer_device": p.peer_device,
                "peer_port": p.peer_port,
                "speed": f"{p.speed_bps // 1_000_000_000}G",
            }
            for p in self.ports
        ]


def build(spec: FabricSpec) -> Topology:
    spec.validate()
    speed = spec.speed_gbps * 1_000_000_000
    devices: dict[str, SimDevice] = {}
    flavour_i = 0

    def new_device(name: str, kind: str) -> SimDevice:
        nonlocal flavour_i
        dev = SimDevice(name, kind, spec.flavours[flavour_i % len(spec.flavours)])
        flavour_i += 1
        devices[name] = dev
        return dev

    spines = [new_device(f"spine-{s}", "spine") for s in range(spec.spines)]
    ports: list[SimPort] = []

    def add(dev: SimDevice, role: str, peer_d: str, peer_p: str, rail: int | None) -> SimPort:
        port = SimPort(
            len(ports), dev.name, _port_name(dev.flavour, len(dev.ports)), role,
            peer_d, peer_p, rail, speed,
        )
        dev.ports.append(port)
        ports.append(port)
        return port

    for rail in range(spec.rails):
        for li in range(spec.leaves_per_rail):
            leaf = new_device(f"leaf-r{rail}-{li}", "leaf")
            members = [n for n in range(spec.nodes) if n * spec.leaves_per_rail // spec.nodes == li]
            for n in members:
                # the host end as the host NIC collector names it: <rdma device>/<port>
                add(leaf, "leaf_down", f"node{n:03d}", f"mlx5_{rail}/1", rail)
            for spine in spines:
                spine_port_name = _port_name(spine.flavour, len(spine.ports))
                up = add(leaf, "leaf_up", spine.name, spine_port_name, rail)
                add(spine, "spine", leaf.name, up.name, rail)
    return Topology(spec, devices, ports)
