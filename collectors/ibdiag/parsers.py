"""Parsers for infiniband-diags output: perfquery counters and ibnetdiscover topologies.

Each parses as far as the text goes and says where it stopped; none raises on odd lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabricwatch.core.names import lookup

# numbers are bounded (LIDs are 16-bit, ports 8-bit): a line of thousands of digits, which int()
# refuses, is not a port line
_BLOCK = re.compile(r"^#\s*(?P<what>.*?)counters:\s*Lid\s+(?P<lid>\d{1,9})\s+port\s+(?P<port>\d{1,9})", re.I)
_FIELD = re.compile(r"^(?P<name>[A-Za-z0-9_]+):\.*(?P<value>\S+)\s*$")


@dataclass(slots=True)
class PerfPort:
    lid: int
    port: str
    extended: bool
    values: dict[str, int] = field(default_factory=dict)
    bits: dict[str, int] = field(default_factory=dict)
    unmapped: list[str] = field(default_factory=list)


@dataclass(slots=True)
class PerfResult:
    ports: list[PerfPort] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _int(text: str) -> int | None:
    try:
        return int(text, 16) if text.lower().startswith("0x") else int(text)
    except ValueError:
        return None


def parse_perfquery(text: str) -> PerfResult:
    """`perfquery -x [-l]` (extended) or plain `perfquery` / `-E` blocks -> canonical values per port.

    Counters of an extended block are 64-bit (they wrap); classic blocks keep the IBA widths
    (error counters saturate)."""
    out = PerfResult()
    if not text.strip():
        out.problems.append("empty output")
        return out
    current: PerfPort | None = None
    lines = text.splitlines()
    if not text.endswith("\n") and lines[-1].strip():
        # a last line without its newline may be cut short ("port 1" of "port 12", 12 of 1234): not taken
        out.problems.append(f"line {len(lines)}: the output ends mid-line; parsed up to line {len(lines) - 1}")
        lines.pop()
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if m := _BLOCK.match(line):
            current = PerfPort(int(m["lid"]), m["port"], "extended" in m["what"].lower())
            out.ports.append(current)
            continue
        m = _FIELD.match(line)
        if m is None or current is None:
            out.problems.append(f"line {n}: not a counter line: {line[:60]!r}; stopped there")
            break
        name, value = m["name"], _int(m["value"])
        if name in ("PortSelect", "CounterSelect", "CounterSelect2") or value is None:
            continue
        c = lookup(name)
        if c is None:
            current.unmapped.append(name)
            continue
        current.values[c.canonical] = value * c.scale
        if current.extended or c.bits is not None:
            current.bits[c.canonical] = 64
    return out


# -- ibnetdiscover -p -----------------------------------------------------------------------
_PORT_LINE = re.compile(
    r"^(?P<t>CA|SW|RT)\s+(?P<lid>\d{1,9})\s+(?P<port>\d{1,9})\s+(?P<guid>0x[0-9a-fA-F]+)\s+(?P<width>\d+x)\s+(?P<speed>\S+)"
    r"(?:\s+-\s+(?P<pt>CA|SW|RT)\s+(?P<plid>\d{1,9})\s+(?P<pport>\d{1,9})\s+(?P<pguid>0x[0-9a-fA-F]+)"
    r"\s+\(\s*'(?P<name>.*?)'\s+-\s+'(?P<pname>.*?)'\s*\))?\s*(?P<rest>.*)$")


@dataclass(frozen=True, slots=True)
class IbPort:
    node_type: str  # CA, SW, RT
    lid: int
    port: str
    guid: str
    name: str
    width: str = ""
    speed: str = ""
    peer_name: str = ""
    peer_port: str = ""
    peer_guid: str = ""
    peer_type: str = ""


@dataclass(slots=True)
class Topology:
    ports: list[IbPort] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def switches(self) -> dict[str, tuple[int, str]]:
        """switch guid -> (lid, name)."""
        return {p.guid: (p.lid, p.name) for p in self.ports if p.node_type == "SW"}

    def records(self, fabric: str = "ib") -> list[dict[str, str]]:
        """Switch ports as daemon.topology records (device = node description)."""
        return [{"device": p.name, "port": p.port, "fabric": fabric,
                 **({"peer_device": p.peer_name, "peer_port": p.peer_port} if p.peer_name else {}),
                 **({"speed": p.speed} if p.speed and p.speed != "???" else {})}
                for p in self.ports if p.node_type == "SW"]


def _clean(name: str) -> str:
    return name.strip().strip("'").strip()


def parse_ibnetdiscover_ports(text: str) -> Topology:
    """`ibnetdiscover -p`: one line per port, with its peer when connected."""
    out = Topology()
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _PORT_LINE.match(line.strip())
        if m is None:
            out.problems.append(f"line {n}: not a port line: {line[:60]!r}")
            continue
        if m["pt"]:
            out.ports.append(IbPort(m["t"], int(m["lid"]), m["port"], m["guid"].lower(), _clean(m["name"]),
                                    m["width"], m["speed"], _clean(m["pname"]), m["pport"], m["pguid"].lower(),
                                    m["pt"]))
        else:
            out.ports.append(IbPort(m["t"], int(m["lid"]), m["port"], m["guid"].lower(), _clean(m["rest"]),
                                    m["width"], m["speed"]))
    return out


# -- ibnetdiscover (topology file) ----------------------------------------------------------
_NODE = re.compile(r'^(?P<t>Switch|Ca|Rt)\s*(?P<nports>\d{1,9})\s+"(?P<id>[SHR]-[0-9a-fA-F]+)"\s*#\s*"(?P<name>[^"]*)"'
                   r"(?P<rest>.*)$")
_LINK = re.compile(r'^\[(?P<port>\d{1,9})\](?:\((?P<pguid>[0-9a-fA-F]+)\))?\s*"(?P<rid>[SHR]-[0-9a-fA-F]+)"'
                   r'\[(?P<rport>\d{1,9})\](?:\((?P<rpguid>[0-9a-fA-F]+)\))?\s*#\s*(?P<rest>.*)$')
_LID = re.compile(r"\blid\s+(\d{1,9})\b")
_SPEED = re.compile(r"\b(\d+x)([A-Z]+)\s*$")
_TYPES = {"Switch": "SW", "Ca": "CA", "Rt": "RT"}


def parse_ibnetdiscover(text: str) -> Topology:
    """The default `ibnetdiscover` topology file: node blocks with one line per connected port."""
    out = Topology()
    nodes: dict[str, tuple[str, str, int]] = {}  # id -> (type, name, lid)
    raw_links: list[tuple[str, str, str, str, str, str]] = []  # (node id, port, remote id, remote port, w, s)
    node: str | None = None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if m := _NODE.match(line):
            node = m["id"]
            lid = _LID.search(m["rest"])
            nodes[node] = (_TYPES[m["t"]], m["name"].strip(), int(lid.group(1)) if lid else 0)
            continue
        if m := _LINK.match(line):
            if node is None:
                out.problems.append(f"line {n}: port line outside a node block")
                continue
            sp = _SPEED.search(m["rest"])
            raw_links.append((node, m["port"], m["rid"], m["rport"], sp.group(1) if sp else "",
                              sp.group(2) if sp else ""))
            if nodes[node][0] == "CA" and nodes[node][2] == 0 and (own := _LID.search(m["rest"])):
                t, name, _ = nodes[node]
                nodes[node] = (t, name, int(own.group(1)))
            continue
        if line and not line.startswith("#") and "=" not in line:
            out.problems.append(f"line {n}: not part of a topology: {line[:60]!r}")
    for nid, port, rid, rport, width, speed in raw_links:
        t, name, node_lid = nodes[nid]
        rt, rname, _ = nodes.get(rid, ("", rid, 0))
        out.ports.append(IbPort(t, node_lid, port, "0x" + nid[2:].lower(), name, width, speed, rname, rport,
                                "0x" + rid[2:].lower(), rt))
    return out


def parse_topology(text: str) -> Topology:
    """Either ibnetdiscover format, told apart by the first line that is one or the other."""
    for raw in text.splitlines():
        line = raw.strip()
        if _PORT_LINE.match(line):
            return parse_ibnetdiscover_ports(text)
        if _NODE.match(line):
            return parse_ibnetdiscover(text)
    return parse_ibnetdiscover_ports(text)
