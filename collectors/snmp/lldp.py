"""LLDP neighbours over SNMP (IEEE 802.1AB LLDP-MIB): who is at the far end of each local port.

lldpRemTable is indexed by (timeMark, lldpLocalPortNum, lldpRemIndex). The local port number is an
ifIndex on most agents but not all; it is named from ifName when that ifIndex exists, else from
lldpLocPortTable (its id when that is a name, else its description). The far end is the remote's
system name (else its chassis id) and its port id when that names a port (else its description)."""

from __future__ import annotations

from typing import Protocol

from fabricwatch.collectors.snmp import ber
from fabricwatch.collectors.snmp.walk import Rows
from fabricwatch.core.neighbours import Neighbour
from fabricwatch.core.problems import Problem

LLDP_REM = "1.0.8802.1.1.2.1.4.1.1"
LLDP_LOC_PORT = "1.0.8802.1.1.2.1.3.7.1"
IF_NAME = "1.3.6.1.2.1.31.1.1.1.1"
REM_COLUMNS = {"chassis_subtype": 4, "chassis_id": 5, "port_subtype": 6, "port_id": 7, "port_desc": 8,
               "sys_name": 9, "caps_enabled": 12}
# LldpPortIdSubtype / LldpChassisIdSubtype values that are names an operator reads
NAMED_PORT = {1, 5, 7}  # interfaceAlias, interfaceName, local
MAC = 3  # macAddress (port id) / 4 (chassis id)
BRIDGE, ROUTER, STATION = 2, 4, 7  # LldpSystemCapabilitiesMap bits


class Walks(Protocol):
    """What reading LLDP needs of an SNMP session: the agent's name, and column walks."""

    @property
    def device(self) -> str: ...

    async def open(self) -> None: ...

    async def walk_columns(self, columns: list[bytes]) -> Rows: ...


def _text(value: ber.Value) -> str:
    if isinstance(value, bytes):
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            return ""
        return text.strip("\x00").strip() if text.isprintable() or not text.strip("\x00") else ""
    return ""


def _mac(value: ber.Value) -> str:
    return ":".join(f"{b:02x}" for b in value) if isinstance(value, bytes) and len(value) == 6 else ""


def _bit(value: ber.Value, bit: int) -> bool:
    return isinstance(value, bytes) and len(value) > bit // 8 and bool(value[bit // 8] & (0x80 >> (bit % 8)))


def _suffix(index: bytes) -> tuple[int, ...]:
    return ber.decode_arcs(index)  # a row's index: plain sub-identifiers


async def neighbours(collector: Walks) -> tuple[list[Neighbour], list[Problem]]:
    """The agent's LLDP neighbours, and the rows that could not be told (with why)."""
    await collector.open()
    cols = {name: ber.encode_oid(f"{LLDP_REM}.{n}") for name, n in REM_COLUMNS.items()}
    rem = await collector.walk_columns(list(cols.values()))
    loc_cols = [ber.encode_oid(f"{LLDP_LOC_PORT}.{n}") for n in (2, 3, 4)]
    loc = await collector.walk_columns([*loc_cols, ber.encode_oid(IF_NAME)])
    if_name = {_suffix(i)[0]: _text(v) for i, _, v in loc[ber.encode_oid(IF_NAME)] if _suffix(i)}
    loc_subtype = {_suffix(i)[0]: v for i, _, v in loc[loc_cols[0]] if _suffix(i)}
    loc_id = {_suffix(i)[0]: v for i, _, v in loc[loc_cols[1]] if _suffix(i)}
    loc_desc = {_suffix(i)[0]: _text(v) for i, _, v in loc[loc_cols[2]] if _suffix(i)}

    def local_name(num: int) -> str:
        if if_name.get(num):
            return if_name[num]
        if loc_subtype.get(num) in NAMED_PORT and _text(loc_id.get(num)):
            return _text(loc_id.get(num))
        return loc_desc.get(num) or _text(loc_id.get(num)) or str(num)

    rows: dict[tuple[int, ...], dict[str, ber.Value]] = {}
    for name, col in cols.items():
        for index, _, value in rem[col]:
            key = _suffix(index)
            if len(key) == 3:
                rows.setdefault(key, {})[name] = value
    out: list[Neighbour] = []
    problems: list[Problem] = []
    for (_, num, _), r in sorted(rows.items()):
        local = local_name(num)
        remote = _text(r.get("sys_name")) or _mac(r.get("chassis_id")) or _text(r.get("chassis_id"))
        pid = r.get("port_id")
        port = (_text(pid) if r.get("port_subtype") in NAMED_PORT else _mac(pid) if r.get("port_subtype") == MAC
                else "") or _text(r.get("port_desc")) or _text(pid) or _mac(pid)
        if not remote or not port:
            missing = "a system name or chassis id" if not remote else "a port id or description"
            problems.append(Problem("lldp", collector.device, "unreadable",
                                    f"{local}: an LLDP neighbour without {missing}"))
            continue
        caps = r.get("caps_enabled")
        host = _bit(caps, STATION) and not (_bit(caps, BRIDGE) or _bit(caps, ROUTER))
        out.append(Neighbour(local, remote, port, host))
    return out, problems
