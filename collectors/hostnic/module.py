"""Parse `ethtool -m <netdev>` (module EEPROM: SFF-8472, SFF-8636 and CMIS) into DOM gauges and
the module's inventory. Power is kept in dBm (ethtool's own dBm figure when it prints one)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabricwatch.core.counters import lane, threshold
from fabricwatch.core.optics import NO_LIGHT_DBM, mw_to_dbm, parse_length_m

_CHANNEL = re.compile(r"\s*\(\s*(?:channel|lane)\s*(\d+)\s*\)\s*", re.I)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf", re.I)
_LEVEL = re.compile(r"\b(high|low)\s+(alarm|warning)\s+threshold\b", re.I)

# what a line's label starts with -> DOM quantity (checked in order: longer, more specific first)
_QUANTITIES: tuple[tuple[str, str], ...] = (
    ("receiver signal average optical power", "rx_power_dbm"),
    ("rcvr signal avg optical power", "rx_power_dbm"),
    ("laser rx power", "rx_power_dbm"),
    ("receiver signal optical power", "rx_power_dbm"),
    ("transmit avg optical power", "tx_power_dbm"),
    ("laser tx power", "tx_power_dbm"),
    ("laser output power", "tx_power_dbm"),
    ("laser tx bias current", "tx_bias_ma"),
    ("laser bias current", "tx_bias_ma"),
    ("module temperature", "temperature_c"),
    ("module voltage", "voltage_v"),
)
_INVENTORY = {
    "vendor name": "vendor", "vendor pn": "part_number", "vendor sn": "serial", "vendor rev": "revision",
    "module firmware version": "firmware", "active firmware version": "firmware",
}


@dataclass(slots=True)
class ModuleReading:
    values: dict[str, float] = field(default_factory=dict)
    inventory: dict[str, str] = field(default_factory=dict)
    unparsed: list[str] = field(default_factory=list)  # DOM lines whose value could not be read


def _quantity(label: str) -> str | None:
    low = label.lower()
    return next((q for prefix, q in _QUANTITIES if low.startswith(prefix)), None)


def _power_dbm(value: str) -> float | None:
    """'0.6486 mW / -1.88 dBm' -> -1.88; '0.0000 mW / -inf dBm' -> no light; '0.6486 mW' -> from mW."""
    for part in value.split("/"):
        if "dbm" in part.lower():
            m = _NUMBER.search(part)
            if m is None:
                return None
            x = float(m.group())
            return NO_LIGHT_DBM if x != x or x < NO_LIGHT_DBM else x
    m = _NUMBER.search(value)
    return None if m is None else mw_to_dbm(float(m.group()))


def _reading(quantity: str, value: str) -> float | None:
    if quantity in ("rx_power_dbm", "tx_power_dbm"):
        return _power_dbm(value)
    m = _NUMBER.search(value)  # '39.18 degrees C / 102.52 degrees F': the first figure is Celsius
    return None if m is None else float(m.group())


def parse_module_info(text: str) -> ModuleReading:
    out = ModuleReading()
    lengths: list[str] = []
    for raw in text.splitlines():
        label, sep, value = raw.partition(" : ") if " : " in raw else raw.partition(":")
        if not sep:
            continue
        label, value = label.strip(), value.strip()
        low = label.lower()
        if low in _INVENTORY:
            out.inventory.setdefault(_INVENTORY[low], value)
            continue
        if low == "identifier":  # '0x03 (SFP)'
            m = re.search(r"\((.*)\)", value)
            out.inventory["module_type"] = (m.group(1) if m else value).strip()
            continue
        if low == "transceiver type" and "media" not in out.inventory:
            out.inventory["media"] = value
            continue
        if low.startswith("length (") and not lengths:
            metres = parse_length_m(value)
            if metres and float(metres) > 0:
                lengths.append(metres)
            continue
        quantity = _quantity(label)
        if quantity is None or value.lower() in ("on", "off"):  # alarm and warning flags
            continue
        level = _LEVEL.search(label)
        ch = _CHANNEL.search(label)
        reading = _reading(quantity, value)
        if reading is None:
            out.unparsed.append(raw.strip())
            continue
        if level is not None:
            lvl = f"{level.group(1).lower()}_{'warn' if level.group(2).lower() == 'warning' else 'alarm'}"
            out.values[threshold(quantity, lvl)] = reading
        elif quantity in ("temperature_c", "voltage_v"):
            out.values[quantity] = reading
        else:
            out.values[lane(quantity, int(ch.group(1)) if ch else 1)] = reading
    if lengths:
        out.inventory["length_m"] = lengths[0]
    return out
