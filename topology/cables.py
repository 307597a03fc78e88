"""The fabric as cables: two ends, what each end is, and how fast the link came up."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabricwatch.core.problems import Problem

End = tuple[str, str]  # (device, port)

# InfiniBand per-lane rates, Gb/s (IBTA): a link's speed is lanes x this
IB_LANE_GBPS = {"SDR": 2.5, "DDR": 5, "QDR": 10, "FDR10": 10, "FDR": 14, "EDR": 25, "HDR": 50, "NDR": 100,
                "XDR": 200}
_SPEED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([GMT])(?:b(?:ps|/s)?)?\s*$", re.IGNORECASE)
_WIDTH = re.compile(r"^\s*(\d+)\s*x\s*$", re.IGNORECASE)


def speed_gbps(text: str) -> float | None:
    """'400G', '200Gb/s', '100000M', 'HDR' (4 lanes unless a width says otherwise) -> Gb/s."""
    t = (text or "").strip()
    if not t:
        return None
    if t.upper() in IB_LANE_GBPS:
        return IB_LANE_GBPS[t.upper()] * 4
    m = _SPEED.match(t)
    if m is None:
        return None
    value = float(m.group(1))
    return {"M": value / 1000, "G": value, "T": value * 1000}[m.group(2).upper()]


def link_gbps(speed: str, width: str = "") -> float | None:
    """A link's speed in Gb/s from what a device reports: '400G', or an IB lane rate ('HDR') times
    its width ('4x'; 4 lanes when the width is not given)."""
    if speed.upper() in IB_LANE_GBPS:
        return IB_LANE_GBPS[speed.upper()] * (lanes(width) or 4)
    return speed_gbps(speed)


def lanes(width: str) -> int | None:
    m = _WIDTH.match(width or "")
    return int(m.group(1)) if m else None


@dataclass(slots=True)
class Cable:
    a: End
    b: End
    speed: str = ""  # as the devices say it: '4xHDR' links carry speed 'HDR' and width '4x'
    width: str = ""
    up: bool | None = None

    @property
    def key(self) -> tuple[End, End]:
        return (self.a, self.b) if self.a <= self.b else (self.b, self.a)

    def gbps(self) -> float | None:
        return link_gbps(self.speed, self.width)


@dataclass(slots=True)
class Node:
    name: str
    kind: str  # host, switch
    model: str = ""
    guid: str = ""
    firmware: str = ""


@dataclass(slots=True)
class Fabric:
    """What a source saw: nodes, cables, and what it could not read (with where)."""

    nodes: dict[str, Node] = field(default_factory=dict)
    cables: dict[tuple[End, End], Cable] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    duplicates: dict[str, list[str]] = field(default_factory=dict)  # one name on several GUIDs
    modules: dict[End, dict[str, str]] = field(default_factory=dict)  # what a cable end holds (inventory)
    notes: list[str] = field(default_factory=list)  # how a source's devices were made (shown, not parsed)
    _end_of: dict[End, Cable] = field(default_factory=dict, repr=False)

    def add(self, cable: Cable) -> None:
        """A cable, unless one of its ends already has another far end (then that is a problem)."""
        if cable.key in self.cables:
            return
        for end in (cable.a, cable.b):
            other = self._end_of.get(end)
            if other is not None:
                far = other.b if other.a == end else other.a
                new = cable.b if cable.a == end else cable.a
                self.problems.append(Problem("cabling", end[0], "conflict",
                                             f"{end[1]} is reported with two far ends: {far[0]} {far[1]} "
                                             f"and {new[0]} {new[1]} (kept the first)"))
                return
        self.cables[cable.key] = cable
        self._end_of[cable.a] = self._end_of[cable.b] = cable

    def has_end(self, end: End) -> bool:
        return end in self._end_of

    def node(self, name: str, kind: str, model: str = "", guid: str = "", firmware: str = "") -> None:
        have = self.nodes.get(name)
        if have is None or (have.kind == "switch" and kind == "host" and not have.model):
            self.nodes[name] = Node(name, kind, model, guid, firmware)

    def merge(self, other: Fabric) -> None:
        for n in other.nodes.values():
            self.node(n.name, n.kind, n.model, n.guid, n.firmware)
        self.modules.update(other.modules)
        for c in other.cables.values():
            self.add(c)
        self.problems += other.problems
        self.notes += other.notes
        self.duplicates.update(other.duplicates)
