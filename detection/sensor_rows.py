"""A transceiver's readings as an SNMP poller walks them from the ENTITY-SENSOR-MIB (RFC 3433): one row per sensor,
its port (and lane) named in its description (`entPhysicalDescr`, "DOM Rx Power Sensor for Ethernet5/1/3",
"Ethernet1/1 Lane 2 Transceiver Receive Power Sensor"), its quantity in the description's words or its units, its
value an integer scaled by the sensor's scale (`entPhySensorScale`) and precision (`entPhySensorPrecision`)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

from fabricwatch.core.counters import lane
from fabricwatch.detection.series_names import DEVICE_TAGS

# the sensor's description as pollers tag a row with it
DESCRIPTION_TAGS = ("sensor", "entPhysicalDescr", "entPhysicalName", "descr")
VALUE_FIELDS = ("entPhySensorValue", "value")
UNITS_KEYS = ("units", "entPhySensorUnitsDisplay", "unit")
_UNITS_UUNIT = 9  # SensorDataScale units(9); each step a factor of 1000 (milli(8), kilo(10))
# SensorDataType: the quantity a sensor's type says, where its units are not displayed
_TYPE_UNITS = {4: "V", 5: "A", 6: "W", 8: "Celsius", 14: "dBm"}
_PORT = re.compile(r"(?<![\w/-])([A-Za-z][A-Za-z-]*\d+(?:[/:.]\d+)*)(?![\w/])")
_LANE = re.compile(r"\blane\s*(\d+)\b", re.IGNORECASE)
MAX_LANE = 8
PortKnown = Callable[[str, str], bool]


def _quantity(words: set[str], units: str) -> str | None:
    """The vocabulary's quantity a sensor reads, by its description's words or else its units."""
    if words & {"temperature", "temp"} or units.lower() in ("celsius", "c", "degc"):
        return "temperature_c"
    if "bias" in words or ("current" in words and words & {"tx", "transmit", "laser"}):
        return "tx_bias_ma"
    if "power" in words and words & {"rx", "receive", "input"}:
        return "rx_power_dbm"
    if "power" in words and words & {"tx", "transmit", "output"}:
        return "tx_power_dbm"
    if "voltage" in words or units.lower() in ("v", "volts", "voltsdc"):
        return "voltage_v"
    return None


def _in_unit(quantity: str, value: float, units: str) -> float | None:
    """`value` (in `units`) in the vocabulary's unit for `quantity`; None where they cannot be one."""
    u = units.lower()
    if quantity.endswith("_dbm"):
        if u in ("", "dbm"):
            return value
        watts = {"w": 1.0, "watts": 1.0, "mw": 1e-3, "uw": 1e-6}.get(u)
        if watts is None:
            return None
        return 10 * math.log10(value * watts * 1e3) if value > 0 else -40.0  # no light: the floor modules report
    if quantity == "tx_bias_ma":
        return value * 1e3 if u in ("a", "amperes", "amps") else value if u in ("", "ma") else None
    return value


def _port(device: str, tokens: list[str], known: PortKnown, lanes: bool) -> tuple[str, int] | None:
    """The port (and lane, 1 where none is said) a description's port-like tokens name: one heard from, or a lane of
    one heard from (`lanes`); else the first token that has a slot ("Ethernet5/1"), else the first."""
    for token in tokens:
        if known(device, token):
            return token, 1
        if lanes and (cut := re.fullmatch(r"(.+)[/:.](\d+)", token)) and 1 <= int(cut.group(2)) <= MAX_LANE \
                and known(device, cut.group(1)):
            return cut.group(1), int(cut.group(2))
    slotted = [t for t in tokens if "/" in t] or tokens
    return (slotted[0], 1) if slotted else None


def sensor_reading(measurement: str, tags: Mapping[str, str], fields: Mapping[str, object],
                   known: PortKnown) -> tuple[dict[str, str], dict[str, float]] | None:
    """(tags naming the sensor's port, {the vocabulary's reading: value}) of a sensor row; None for any other
    row. `known(device, port)` says whether a port is one heard from: "Ethernet5/1/3" is that port where it is
    one, else lane 3 of Ethernet5/1."""
    description = next((tags[k] for k in DESCRIPTION_TAGS if tags.get(k)), "")
    raw = next((fields[k] for k in VALUE_FIELDS if k in fields), None)
    device_key = next((k for k in DEVICE_TAGS if tags.get(k)), None)
    if not description or device_key is None or isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    units = next((str(tags.get(k) or fields.get(k) or "") for k in UNITS_KEYS if tags.get(k) or fields.get(k)), "")
    kind = fields.get("entPhySensorType")
    if not units and isinstance(kind, int) and not isinstance(kind, bool):
        units = _TYPE_UNITS.get(kind, "")
    quantity = _quantity(set(re.findall(r"[a-z]+", description.lower())), units)
    if quantity is None:
        return None
    device = tags[device_key]
    said_lane = _LANE.search(description)
    where = _port(device, _PORT.findall(_LANE.sub(" ", description)), known, lanes=said_lane is None)
    if where is None:
        return None
    port, n = where[0], int(said_lane.group(1)) if said_lane else where[1]
    scale, precision = fields.get("entPhySensorScale", _UNITS_UUNIT), fields.get("entPhySensorPrecision", 0)
    if not isinstance(scale, int) or not isinstance(precision, int):
        return None
    value = _in_unit(quantity, float(raw) * 1000.0 ** (scale - _UNITS_UUNIT) / 10.0 ** precision, units)
    if value is None or not math.isfinite(value):
        return None
    name = quantity if quantity in ("temperature_c", "voltage_v") else lane(quantity, n)
    if not 1 <= n <= MAX_LANE:
        return None
    return {device_key: device, "ifName": port}, {name: value}
