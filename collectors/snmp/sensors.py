"""Transceiver DOM over SNMP from ENTITY-SENSOR-MIB (RFC 3433) or CISCO-ENTITY-SENSOR-MIB, joined to
interfaces through ENTITY-MIB (RFC 6933), with the module's thresholds and inventory.

A sensor belongs to the interface its entity (or an ancestor) maps to in entAliasMappingTable; where
an agent keeps no alias mapping (SONiC, Arista, NX-OS), to the interface its description names:
'DOM RX Power Sensor for Ethernet52/1' (SONiC: lane 1 of Ethernet52), 'Ethernet1/1 Lane 1
Transceiver Receive Power Sensor' (NX-OS). Values are value x 10^(3 (scale - 9)) x 10^-precision.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from fabricwatch.core.counters import lane, threshold
from fabricwatch.core.digits import parse_uint
from fabricwatch.core.optics import mw_to_dbm

ENT_PHYSICAL = "1.3.6.1.2.1.47.1.1.1.1"
ENT_COLUMNS = {"descr": 2, "contained_in": 4, "class": 5, "name": 7, "hardware_rev": 8, "firmware_rev": 9,
               "serial": 11, "mfg": 12, "model": 13}
ALIAS_MAPPING = "1.3.6.1.2.1.47.1.3.2.1.2"  # entAliasMappingIdentifier, index (entity, logical): ifIndex OID
IF_INDEX_OID = "1.3.6.1.2.1.2.2.1.1."
SENSOR_TABLES = {  # type, scale, precision, value, status are columns 1..5 of both
    "entity": "1.3.6.1.2.1.99.1.1.1",
    "cisco": "1.3.6.1.4.1.9.9.91.1.1.1.1",
}
CISCO_THRESHOLDS = "1.3.6.1.4.1.9.9.91.1.2.1.1"  # .2 severity .3 relation .4 value, index (sensor, n)
ARISTA_THRESHOLDS = "1.3.6.1.4.1.30065.3.12.1.1.1"  # .1 low warn .2 low crit .3 high warn .4 high crit
THRESHOLD_TABLES = {"cisco": CISCO_THRESHOLDS, "arista": ARISTA_THRESHOLDS}
ARISTA_LEVELS = {1: "low_warn", 2: "low_alarm", 3: "high_warn", 4: "high_alarm"}

CELSIUS, VOLTS_AC, VOLTS_DC, AMPERES, WATTS, DBM = 8, 3, 4, 5, 6, 14
OK = 1
_LANE = re.compile(r"\b(?:lane|channel)\s*(\d+)\b", re.I)
_SLASH_LANE = re.compile(r"^(.*)/(\d+)$")
# sonic-snmpagent numbers interfaces from their native names: EthernetN is ifIndex N + 1, also where
# IF-MIB shows another naming mode (Dell Enterprise SONiC: ifName Eth1/53 for Ethernet52)
_SONIC_NATIVE = re.compile(r"^Ethernet(\d+)$")
_DOM_WORDS = re.compile(r"\b(?:dom|transceiver|xcvr|sfp\+?|qsfp\w*|osfp|optic\w*|lane|channel)\b", re.I)
_RX = re.compile(r"\b(?:rx|receive[rd]?)\b", re.I)
_TX = re.compile(r"\b(?:tx|transmit(?:ter)?)\b", re.I)
MAX_DEPTH = 8  # ENTITY-MIB containment: sensor -> module -> port -> card -> chassis
NOT_MODULES = {3, 8, 11}  # entPhysicalClass chassis, sensor, stack: never a module's inventory

# column -> {index arcs: value}; values are int, str (octet strings decoded) or an OID as str
Columns = Mapping[str, Mapping[tuple[int, ...], object]]


@dataclass(slots=True)
class SensorReading:
    values: dict[str, dict[str, float]] = field(default_factory=dict)  # port -> canonical DOM values
    inventory: dict[str, dict[str, str]] = field(default_factory=dict)  # port -> module inventory
    sensors: int = 0  # DOM sensors read
    unplaced: int = 0  # DOM sensors whose interface could not be found


def columns_wanted(mib: str, thresholds: str | None) -> list[str]:
    """Every column the reader needs, for one walk."""
    base = SENSOR_TABLES[mib]
    cols = [f"{ENT_PHYSICAL}.{c}" for c in ENT_COLUMNS.values()] + [ALIAS_MAPPING]
    cols += [f"{base}.{c}" for c in (1, 2, 3, 4, 5)]
    if thresholds == "cisco":
        cols += [f"{CISCO_THRESHOLDS}.{c}" for c in (2, 3, 4)]
    elif thresholds == "arista":
        cols += [f"{ARISTA_THRESHOLDS}.{c}" for c in (1, 2, 3, 4)]
    return cols


def _text(v: object) -> str:
    return v.strip() if isinstance(v, str) else ""


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _scaled(raw: int, scale: int, precision: int) -> float:
    e = 3 * (scale - 9) - precision
    # divide rather than multiply by 10^-k: -23 x 10^-1 is -2.3, not -2.3000000000000003
    return raw / 10.0 ** -e if e < 0 else raw * 10.0 ** e


def _tidy(x: float) -> float:
    """12 significant digits: what a sensor's integer and decimal exponent can mean, no float dust."""
    return float(f"{x:.12g}")


def _quantity(kind: int, descr: str) -> str | None:
    if kind == CELSIUS:
        return "temperature_c"
    if kind in (VOLTS_DC, VOLTS_AC):
        return "voltage_v"
    if kind == AMPERES:
        return "tx_bias_ma"
    if kind in (WATTS, DBM):
        if _RX.search(descr):
            return "rx_power_dbm"
        if _TX.search(descr):
            return "tx_power_dbm"
    return None


def _in_unit(quantity: str, kind: int, value: float) -> float:
    if quantity == "tx_bias_ma":
        return value * 1000.0
    if kind == WATTS:
        return mw_to_dbm(value * 1000.0)
    return value


class _Placer:
    """Which interface an entity belongs to: alias mapping up the containment tree, else names in text."""

    def __init__(self, cols: Columns, names: Mapping[str, int], port_of: Mapping[int, str]) -> None:
        self.descr = cols.get(f"{ENT_PHYSICAL}.2", {})
        self.name = cols.get(f"{ENT_PHYSICAL}.7", {})
        self.parent = cols.get(f"{ENT_PHYSICAL}.4", {})
        self.names = names
        self.port_of = port_of
        self.alias: dict[int, int] = {}
        for idx, oid in cols.get(ALIAS_MAPPING, {}).items():
            text = _text(oid)
            index = parse_uint(text[len(IF_INDEX_OID):], max_digits=10) if text.startswith(IF_INDEX_OID) else None
            if idx and index is not None:
                self.alias.setdefault(idx[0], index)

    def chain(self, entity: int) -> list[int]:
        out = [entity]
        while len(out) < MAX_DEPTH:
            up = _int(self.parent.get((out[-1],)))
            if not up or up in out:
                break
            out.append(up)
        return out

    def _from_text(self, text: str) -> tuple[int, int | None] | None:
        """(ifIndex, lane or None) of the longest interface name that is a word of the text."""
        best: tuple[int, int | None, int] | None = None
        for token in re.split(r"\s+", text):
            token = token.strip(",;:")
            candidates: list[tuple[str, int | None]] = [(token, None)]
            m = _SLASH_LANE.match(token)
            if m:
                candidates.append((m.group(1), int(m.group(2))))
            for name, ln in candidates:
                idx = self.names.get(name)
                if idx is not None and (best is None or len(name) > best[2]):
                    best = (idx, ln, len(name))
                    break
        if best is None:  # the last resort: a SONiC native name that IF-MIB spells otherwise
            tail = re.split(r"\s+", text.strip())[-1]
            m = _SLASH_LANE.match(tail)
            tries: list[tuple[str, int | None]] = [(tail, None)] + ([(m.group(1), int(m.group(2)))] if m else [])
            for name, ln in tries:
                if (sm := _SONIC_NATIVE.match(name)) and int(sm.group(1)) + 1 in self.port_of:
                    return int(sm.group(1)) + 1, ln
        return None if best is None else (best[0], best[1])

    def place(self, entity: int) -> tuple[str, int | None] | None:
        chain = self.chain(entity)
        for e in chain:
            if e in self.alias and self.alias[e] in self.port_of:
                return self.port_of[self.alias[e]], None
        for e in chain:
            for text in (_text(self.descr.get((e,))), _text(self.name.get((e,)))):
                hit = self._from_text(text) if text else None
                if hit is not None and hit[0] in self.port_of:
                    return self.port_of[hit[0]], hit[1]
        return None


def _inventory(cols: Columns, chain: list[int]) -> dict[str, str]:
    """The module's inventory: the nearest entity up the chain that names a vendor, model or serial."""
    def get(col: str, e: int) -> str:
        v = _text(cols.get(f"{ENT_PHYSICAL}.{ENT_COLUMNS[col]}", {}).get((e,)))
        return "" if v.upper() in ("N/A", "NA", "NONE") else v

    classes = cols.get(f"{ENT_PHYSICAL}.{ENT_COLUMNS['class']}", {})
    for e in chain:
        if _int(classes.get((e,))) in NOT_MODULES:
            continue  # NX-OS gives its sensors and chassis 'Cisco Systems' as vendor: not the module's
        fields = {"vendor": get("mfg", e), "part_number": get("model", e), "serial": get("serial", e),
                  "revision": get("hardware_rev", e), "firmware": get("firmware_rev", e)}
        if fields["vendor"] or fields["part_number"] or fields["serial"]:
            descr = get("descr", e)
            if " for " in descr:  # 'QSFP28 for Ethernet52', 'Xcvr for Ethernet1'
                fields["module_type"] = descr.split(" for ", 1)[0].strip()
            return {k: v for k, v in fields.items() if v}
    return {}


def read_sensors(cols: Columns, *, mib: str, thresholds: str | None, names: Mapping[str, int],
                 port_of: Mapping[int, str]) -> SensorReading:
    """DOM values per port. `names`: every ifName/ifDescr/ifAlias -> ifIndex; `port_of`: ifIndex -> port."""
    base = SENSOR_TABLES[mib]
    kinds, scales, precisions = (cols.get(f"{base}.{c}", {}) for c in (1, 2, 3))
    values, statuses = cols.get(f"{base}.4", {}), cols.get(f"{base}.5", {})
    placer = _Placer(cols, names, port_of)
    out = SensorReading()
    limits = _thresholds(cols, thresholds)
    for idx, raw in values.items():
        if len(idx) != 1:
            continue
        entity = idx[0]
        kind, value = _int(kinds.get(idx)), _int(raw)
        descr = _text(placer.descr.get(idx)) or _text(placer.name.get(idx))
        if kind is None or value is None:
            continue
        quantity = _quantity(kind, descr)
        if quantity is None:
            continue
        # IOS-XE says 'Te1/0/1 Module Temperature Sensor', 'Te1/0/1 Bias Current Sensor': no DOM word,
        # but an interface named in the description. A current that is not a laser bias (PoE) is none
        dom = bool(_DOM_WORDS.search(descr))
        if not dom and quantity == "tx_bias_ma" and "bias" not in descr.lower():
            continue
        status = _int(statuses.get(idx))
        if status is not None and status != OK:  # unavailable (an empty lane) or non-operational
            continue
        where = placer.place(entity)
        if where is None:
            out.unplaced += dom  # a chassis or CPU sensor belongs to no interface: that is no miss
            continue
        port, slash_lane = where
        m = _LANE.search(descr)
        n = int(m.group(1)) if m else (slash_lane or 1)
        scale, precision = _int(scales.get(idx)) or 9, _int(precisions.get(idx)) or 0
        reading = _tidy(_in_unit(quantity, kind, _scaled(value, scale, precision)))
        name = quantity if quantity in ("temperature_c", "voltage_v") else lane(quantity, n)
        port_values = out.values.setdefault(port, {})
        port_values[name] = reading
        out.sensors += 1
        for level, limit in limits.get(entity, {}).items():
            port_values.setdefault(threshold(quantity, level),
                                   _tidy(_in_unit(quantity, kind, _scaled(limit, scale, precision))))
        if port not in out.inventory:
            inv = _inventory(cols, placer.chain(entity))
            if inv:
                out.inventory[port] = inv
    return out


def _thresholds(cols: Columns, which: str | None) -> dict[int, dict[str, int]]:
    """sensor entity -> {level: raw threshold} (in the sensor's own scale and precision)."""
    out: dict[int, dict[str, int]] = {}
    if which == "arista":
        for col, level in ARISTA_LEVELS.items():
            for idx, v in cols.get(f"{ARISTA_THRESHOLDS}.{col}", {}).items():
                if len(idx) == 1 and (x := _int(v)) is not None:
                    out.setdefault(idx[0], {})[level] = x
    elif which == "cisco":
        sev, rel, val = (cols.get(f"{CISCO_THRESHOLDS}.{c}", {}) for c in (2, 3, 4))
        for idx, v in val.items():
            s, r, x = _int(sev.get(idx)), _int(rel.get(idx)), _int(v)
            if len(idx) != 2 or s is None or r is None or x is None or r not in (1, 2, 3, 4):
                continue
            # relation lessThan/lessOrEqual: a low limit; severity minor(10): warning, major/critical: alarm
            level = f"{'low' if r in (1, 2) else 'high'}_{'warn' if s <= 10 else 'alarm'}"
            out.setdefault(idx[0], {}).setdefault(level, x)
    return out
