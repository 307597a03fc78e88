"""SONiC's transceivers in STATE_DB (xcvrd writes them; sonic-gnmi serves them with target STATE_DB):
TRANSCEIVER_DOM_SENSOR|EthernetN (dBm, mA, degC, V as strings), TRANSCEIVER_DOM_THRESHOLD|EthernetN,
TRANSCEIVER_PM|EthernetN (CMIS performance monitoring: pre-FEC BER), TRANSCEIVER_INFO|EthernetN and
TRANSCEIVER_FIRMWARE_INFO|EthernetN (inventory). Field names as xcvrd writes them, checked against
sonic-utilities' mock STATE_DB and a real `sonic-db-dump` of a T1 switch."""

from __future__ import annotations

import ast
import json
from typing import Any

from fabricwatch.core.batch import PortSample
from fabricwatch.core.counters import lane, threshold
from fabricwatch.core.optics import NO_LIGHT_DBM

TABLES = ("TRANSCEIVER_DOM_SENSOR", "TRANSCEIVER_DOM_THRESHOLD", "TRANSCEIVER_PM", "TRANSCEIVER_INFO",
          "TRANSCEIVER_FIRMWARE_INFO")
PATHS = tuple(f"/{t}/Ethernet*" for t in TABLES)
_THRESHOLD_QUANTITY = {"rxpower": "rx_power_dbm", "txpower": "tx_power_dbm", "txbias": "tx_bias_ma",
                       "temp": "temperature_c", "vcc": "voltage_v"}
_THRESHOLD_LEVEL = {"highalarm": "high_alarm", "highwarning": "high_warn", "lowalarm": "low_alarm",
                    "lowwarning": "low_warn"}
_INFO = {"manufacturer": "vendor", "model": "part_number", "serial": "serial", "vendor_rev": "revision",
         "hardware_rev": "revision",
         "type": "module_type", "cable_length": "length_m", "specification_compliance": "media"}
MAX_LANES = 8


def _number(text: object, *, power: bool = False) -> float | None:
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    if not isinstance(text, str):
        return None
    t = text.strip().lower()
    if t in ("-inf", "-infinity"):
        return NO_LIGHT_DBM if power else None  # xcvrd writes -inf for no light (a DAC, an empty lane)
    try:
        x = float(t)
    except ValueError:
        return None  # N/A
    return x if x == x and abs(x) != float("inf") else None


def parse_fields(table: str, fields: dict[str, Any]) -> tuple[dict[str, float], dict[str, str]]:
    """(canonical values, inventory) of one STATE_DB entry of one port."""
    values: dict[str, float] = {}
    inventory: dict[str, str] = {}
    if table == "TRANSCEIVER_DOM_SENSOR":
        for name, canon in (("temperature", "temperature_c"), ("voltage", "voltage_v")):
            x = _number(fields.get(name))
            if x is not None:
                values[canon] = x
        for n in range(1, MAX_LANES + 1):
            for key, quantity, power in ((f"rx{n}power", "rx_power_dbm", True), (f"tx{n}power", "tx_power_dbm", True),
                                         (f"tx{n}bias", "tx_bias_ma", False)):
                x = _number(fields.get(key), power=power)
                if x is not None:
                    values[lane(quantity, n)] = x
    if table in ("TRANSCEIVER_DOM_THRESHOLD", "TRANSCEIVER_DOM_SENSOR"):
        # older xcvrd wrote the thresholds into TRANSCEIVER_DOM_SENSOR itself (temphighalarm, ...)
        for key, raw in fields.items():
            for prefix, quantity in _THRESHOLD_QUANTITY.items():
                level = _THRESHOLD_LEVEL.get(str(key)[len(prefix):]) if str(key).startswith(prefix) else None
                x = _number(raw) if level else None
                if level and x is not None:
                    values[threshold(quantity, level)] = x
    elif table == "TRANSCEIVER_PM":
        x = _number(fields.get("prefec_ber_avg"))
        if x is not None:
            values["pre_fec_ber"] = x
    elif table == "TRANSCEIVER_INFO":
        for key, name in _INFO.items():
            v = fields.get(key)
            text = str(v).strip() if isinstance(v, str | int | float) else ""
            if text.startswith("{"):  # "{'10/40G Ethernet Compliance Code': '40G Active Cable (XLPPI)'}"
                text = _compliance(text)
            if text and text not in ("N/A", "{}"):
                inventory.setdefault(name, text[:120])
    elif table == "TRANSCEIVER_FIRMWARE_INFO":
        v = fields.get("active_firmware")
        if isinstance(v, str) and v.strip() and v.strip() != "N/A":
            inventory["firmware"] = v.strip()
    return values, inventory


def _compliance(text: str) -> str:
    """The values of xcvrd's compliance dict, written as a Python literal; '' when it is not one."""
    try:
        parsed = ast.literal_eval(text[:2000])
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return ""
    if not isinstance(parsed, dict):
        return ""
    return ", ".join(str(v) for v in parsed.values() if isinstance(v, str | int | float))


def split_key(key: str) -> tuple[str, str] | None:
    """'TRANSCEIVER_DOM_SENSOR|Ethernet0' -> (table, port)."""
    table, sep, port = key.partition("|")
    return (table, port) if sep and table in TABLES and port else None


def decode(notification: Any, device: str,
           tags: dict[str, str]) -> tuple[list[PortSample], dict[str, dict[str, str]], int]:
    """A STATE_DB notification: prefix (target STATE_DB) then TABLE/PORT with a JSON object of fields,
    or TABLE with {port: {fields}} for a wildcard. (samples, inventory per port, updates not understood)."""
    by_port: dict[str, dict[str, float]] = {}
    inventory: dict[str, dict[str, str]] = {}
    bad = 0
    prefix = [e.name for e in notification.prefix.elem]
    for u in notification.update:
        names = prefix + [e.name for e in u.path.elem]
        which = u.val.WhichOneof("value")
        if which not in ("json_ietf_val", "json_val"):
            bad += 1
            continue
        try:
            obj = json.loads(getattr(u.val, which))
        except (ValueError, RecursionError):
            bad += 1
            continue
        if not isinstance(obj, dict) or not names:
            bad += 1
            continue
        entries: list[tuple[str, str, dict[str, Any]]] = []
        if len(names) >= 2 and not any(isinstance(v, dict) for v in obj.values()):
            entries.append((names[0], names[1], obj))
        elif len(names) == 1 and (hit := split_key(names[0])) is not None:
            entries.append((hit[0], hit[1], obj))
        else:
            entries += [(names[0], port, f) for port, f in obj.items() if isinstance(f, dict)]
        for table, port, fields in entries:
            if table not in TABLES:
                bad += 1
                continue
            values, inv = parse_fields(table, fields)
            if values:
                by_port.setdefault(port, {}).update(values)
            if inv:
                inventory.setdefault(port, {}).update(inv)
    ts = notification.timestamp
    return [PortSample(device, p, ts, v, tags) for p, v in by_port.items()], inventory, bad
