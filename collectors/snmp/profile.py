"""SNMP profiles: data files mapping MIB table columns to canonical counters, chosen by sysObjectID."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from fabricwatch.collectors.snmp.ber import encode_oid
from fabricwatch.core.batch import INVENTORY_FIELDS
from fabricwatch.core.counters import COUNTERS, LANES, PRIORITIES

PROFILE_DIR = Path(__file__).parent / "profiles"
FALLBACK = "if-mib"
INDEXES = ("ifIndex", "ifIndex.priority", "ifIndex.lane")
SENSOR_MIBS = ("entity", "cisco")
SENSOR_THRESHOLDS = ("cisco", "arista")
TRANSFORMS = ("oper_status",)
ROLES = ("last_change",)


@dataclass(frozen=True, slots=True)
class Column:
    sub: int  # the column's arc under the table entry
    oid: bytes  # encoded entry.sub
    counter: str | None  # canonical name, may hold '{priority}'
    bits: int
    scale: int | float = 1  # an int keeps integer counters integers (one field type in InfluxDB)
    transform: str | None = None
    role: str | None = None
    decimal: bool = False  # the agent writes the number as text ("-2.740884"): Dell OS9's DOM
    inventory: str | None = None  # a text column that is a module's inventory field (vendor, serial...)


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    entry: str
    index: str
    columns: tuple[Column, ...]
    slow: bool = False  # DOM: walked every `optics_interval`, not every poll
    lane_base: int = 1  # the agent's number for the first lane (Juniper counts from 0)


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    description: str
    source: str
    sys_object_ids: tuple[str, ...]
    tables: tuple[Table, ...]
    not_exposed: tuple[str, ...]
    # transceiver DOM through ENTITY-SENSOR-MIB ("entity") or CISCO-ENTITY-SENSOR-MIB ("cisco"),
    # with the vendor's threshold table if it has one; None: the agent has no usable sensor table
    sensor_mib: str | None = "entity"
    sensor_thresholds: str | None = None

    def counters(self) -> set[str]:
        out: set[str] = set()
        for t in self.tables:
            for c in t.columns:
                if c.counter:
                    out.update(c.counter.format(priority=p, lane=n) for p in PRIORITIES for n in LANES)
        return out


class ProfileError(ValueError):
    pass


def _column(path: Path, table: str, key: str, raw: Any, bits: int) -> Column:
    where = f"{path.name}: tables.{table}.columns.{key}"
    if not key.isdigit():
        raise ProfileError(f"{where}: a column key is the column's arc number")
    spec = {"counter": raw} if isinstance(raw, str) else dict(raw)
    unknown = set(spec) - {"counter", "bits", "scale", "transform", "role", "decimal", "inventory"}
    if unknown:
        raise ProfileError(f"{where}: unknown keys {sorted(unknown)}")
    counter = spec.get("counter")
    role = spec.get("role")
    transform = spec.get("transform")
    inventory = spec.get("inventory")
    if sum(x is not None for x in (counter, role, inventory)) != 1:
        raise ProfileError(f"{where}: give exactly one of 'counter', 'role' or 'inventory'")
    if inventory is not None and inventory not in INVENTORY_FIELDS:
        raise ProfileError(f"{where}: inventory must be one of {INVENTORY_FIELDS}")
    if role is not None and role not in ROLES:
        raise ProfileError(f"{where}: role must be one of {ROLES}")
    if transform is not None and transform not in TRANSFORMS:
        raise ProfileError(f"{where}: transform must be one of {TRANSFORMS}")
    if counter is not None:
        for p in PRIORITIES:
            try:
                name = counter.format(priority=p, lane=1)
            except (KeyError, IndexError, ValueError):
                raise ProfileError(f"{where}: {counter!r} may hold only {{priority}} or {{lane}}") from None
            if name not in COUNTERS:
                raise ProfileError(f"{where}: {name!r} is not a canonical counter")
    return Column(int(key), b"", counter, int(spec.get("bits", bits)), _scale(spec.get("scale", 1)), transform, role,
                  bool(spec.get("decimal", False)), inventory)


def _scale(v: object) -> int | float:
    f = float(v)  # type: ignore[arg-type]
    return int(f) if f.is_integer() else f


def _parse(path: Path) -> tuple[dict[str, Any], list[Table]]:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"{path}: {exc}") from exc
    tables = []
    for i, raw in enumerate(data.get("tables", [])):
        name = raw.get("name", f"#{i}")
        index = raw.get("index", "ifIndex")
        if index not in INDEXES:
            raise ProfileError(f"{path.name}: tables.{name}.index must be one of {INDEXES}")
        entry = raw["entry"]
        cols = []
        for key, spec in raw.get("columns", {}).items():
            c = _column(path, name, key, spec, int(raw.get("bits", 64)))
            cols.append(Column(c.sub, encode_oid(f"{entry}.{c.sub}"), c.counter, c.bits, c.scale, c.transform,
                               c.role, c.decimal, c.inventory))
        if index == "ifIndex.priority" and any("{priority}" not in (c.counter or "{priority}") for c in cols):
            raise ProfileError(f"{path.name}: tables.{name}: per-priority columns need '{{priority}}' in the name")
        if index == "ifIndex.lane" and any("{lane}" not in (c.counter or "{lane}") for c in cols):
            raise ProfileError(f"{path.name}: tables.{name}: per-lane columns need '{{lane}}' in the name")
        tables.append(Table(name, entry, index, tuple(cols), bool(raw.get("slow", False)),
                            int(raw.get("lane_base", 1))))
    return data, tables


@cache
def load_profile(name: str) -> Profile:
    if name not in profile_names():  # a name, never a path (and no OSError for a long one)
        raise ProfileError(f"unknown SNMP profile {name[:60]!r} (known: {', '.join(profile_names())})")
    path = PROFILE_DIR / f"{name}.toml"
    if not path.is_file():
        raise ProfileError(f"unknown SNMP profile {name!r} (known: {', '.join(profile_names())})")
    data, tables = _parse(path)
    sensors: dict[str, Any] = {"mib": "entity", "thresholds": None}
    for inc in data.get("include", []):
        parent = load_profile(inc)
        tables = list(parent.tables) + tables
        sensors = {"mib": parent.sensor_mib, "thresholds": parent.sensor_thresholds}
    raw_sensors = data.get("sensors", {})
    unknown = set(raw_sensors) - {"mib", "thresholds"}
    if unknown:
        raise ProfileError(f"{path.name}: sensors: unknown keys {sorted(unknown)}")
    sensors.update({k: (v or None) for k, v in raw_sensors.items()})
    if sensors["mib"] is not None and sensors["mib"] not in SENSOR_MIBS:
        raise ProfileError(f"{path.name}: sensors.mib must be one of {SENSOR_MIBS} or \"\"")
    if sensors["thresholds"] is not None and sensors["thresholds"] not in SENSOR_THRESHOLDS:
        raise ProfileError(f"{path.name}: sensors.thresholds must be one of {SENSOR_THRESHOLDS}")
    return Profile(
        name=data.get("name", name), description=data.get("description", ""), source=data.get("source", ""),
        sys_object_ids=tuple(data.get("sys_object_ids", [])), tables=tuple(tables),
        not_exposed=tuple(data.get("not_exposed", [])),
        sensor_mib=sensors["mib"], sensor_thresholds=sensors["thresholds"],
    )


def profile_names() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.toml"))


def why_chosen(profile: Profile, sys_object_id: str | None) -> str:
    """Why `select` gave this profile for this sysObjectID, in words for `fabricwatch check`."""
    for prefix in profile.sys_object_ids:
        if sys_object_id and (sys_object_id == prefix or sys_object_id.startswith(prefix + ".")):
            return f"sysObjectID {sys_object_id} is under {prefix}"
    return f"no profile claims sysObjectID {sys_object_id or '(none)'}: the standard IF-MIB set"


def select(sys_object_id: str | None) -> Profile:
    """The profile whose sysObjectID prefix matches longest; IF-MIB when none does."""
    best, best_len = FALLBACK, -1
    if sys_object_id:
        for name in profile_names():
            for prefix in load_profile(name).sys_object_ids:
                if (sys_object_id == prefix or sys_object_id.startswith(prefix + ".")) and len(prefix) > best_len:
                    best, best_len = name, len(prefix)
    return load_profile(best)
