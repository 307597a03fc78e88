"""gNMI notifications -> canonical counters, driven by per-flavour path tables (paths/*.toml)."""

from __future__ import annotations

import json
import re
import struct
import tomllib
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from fabricwatch.core.batch import INVENTORY_FIELDS, PortSample
from fabricwatch.core.counters import COUNTERS
from fabricwatch.core.names import SAI_FIELDS

PATHS_DIR = Path(__file__).parent / "paths"
_ADDED = {"inherit": "add"}  # an including table's subscriptions come on top of its parent's, not instead


@dataclass(frozen=True)
class PathTable:
    """A flavour's paths; a table that includes another adds its subscriptions to the other's."""

    flavour: str
    leaves: dict[str, str] = field(default_factory=dict)  # normalised path (or SAI field) -> canonical template
    port_keys: tuple[str, ...] = ("name", "interface-id")
    subscribe_sample: tuple[str, ...] = field(default=(), metadata=_ADDED)
    subscribe_on_change: tuple[str, ...] = field(default=(), metadata=_ADDED)
    enums: dict[str, dict[str, int]] = field(default_factory=dict)
    sum_leaves: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sum_over: dict[str, str] = field(default_factory=dict)
    target: str | None = None
    port_elem: int | None = None  # SONiC style: the port is a path element, not a key
    # the physical layer, subscribed at `optics_interval`: DOM and FEC paths, inventory leaves
    subscribe_optics: tuple[str, ...] = field(default=(), metadata=_ADDED)
    inventory: dict[str, str] = field(default_factory=dict)  # normalised path -> INVENTORY_FIELDS name
    lane_key: str | None = None  # the path key that numbers lanes ({lane} in templates counts from 1)
    lane_base: int = 1  # what the device calls the first lane
    key_map: dict[str, dict[str, str]] = field(default_factory=dict)  # key -> device value -> template value
    leaves_from_sai: bool = False  # SONiC: the SAI field names of the one table (core/names.py) as leaves
    # OpenConfig: the leaf that names an interface's transceiver component, and the element that is one
    transceiver_leaf: str | None = None
    component_elem: str | None = None
    optics_target: str | None = None  # SONiC: the optics live in another database (STATE_DB), asked ONCE


def flavours() -> list[str]:
    return sorted(p.stem for p in PATHS_DIR.glob("*.toml"))


@cache
def load_table(flavour: str) -> PathTable:
    if flavour not in flavours():  # a name, never a path (and no OSError for a long one)
        raise ValueError(f"unknown gNMI flavour {flavour[:60]!r}; known: {', '.join(flavours())}")
    path = PATHS_DIR / f"{flavour}.toml"
    if not path.is_file():
        raise ValueError(f"unknown gNMI flavour {flavour!r}; known: {', '.join(flavours())}")
    data = tomllib.loads(path.read_text())
    own = _inherit(load_table(data["include"]) if "include" in data else None, data)
    leaves, key_map, inventory = dict(own["leaves"]), own["key_map"], own["inventory"]
    if own["leaves_from_sai"]:
        leaves = {**SAI_FIELDS, **leaves}
    probe = {k: next(iter(v.values())) for k, v in key_map.items()}
    for template in leaves.values():
        name = template.format_map({"index": 0, "priority": 0, "lane": 1, **probe})
        if name not in COUNTERS:
            raise ValueError(f"{path}: {template!r} is not a canonical counter")
    for p, fieldname in inventory.items():
        if fieldname not in INVENTORY_FIELDS:
            raise ValueError(f"{path}: inventory {p!r} -> {fieldname!r} is not one of {INVENTORY_FIELDS}")
    sum_leaves = {k: tuple(v) for k, v in own["sum_leaves"].items()}
    for counter, paths in sum_leaves.items():
        for p in paths:
            leaves[p] = counter
    return PathTable(data.get("flavour", flavour), **{**own, "leaves": leaves, "sum_leaves": sum_leaves,
                                                      "port_keys": tuple(own["port_keys"]),
                                                      "lane_base": int(own["lane_base"])})


def _inherit(parent: PathTable | None, data: dict[str, Any]) -> dict[str, Any]:
    """Every field of a table from its TOML over its parent's (the one it includes): mappings merge key
    by key, subscriptions add up, any other value is the table's own if it gives one."""
    out: dict[str, Any] = {}
    for f in fields(PathTable):
        if f.name == "flavour":  # a table's own name, never its parent's
            continue
        if parent is not None:
            inherited = getattr(parent, f.name)
        else:
            inherited = f.default_factory() if f.default_factory is not MISSING else f.default
        mine = data.get(f.name)
        if f.metadata.get("inherit") == "add":
            out[f.name] = (*inherited, *(mine or ()))
        elif isinstance(inherited, dict):
            out[f.name] = {**inherited, **(mine or {})}
        else:
            out[f.name] = inherited if mine is None else mine
    return out


def _strip_module(name: str) -> str:
    # "oc-if:interfaces" -> "interfaces": module prefixes vary by vendor, the path does not
    i = name.find(":")
    return name[i + 1 :] if i >= 0 else name


MAX_PRECISION = 38  # decimal_val beyond this is no counter (and 10**p grows without bound)
MAX_JSON_BYTES = 1 << 20
MAX_CACHED_LEAVES = 4096  # per prefix: leaf names come from the device
MAX_INSTANCES = 200_000  # (port, counter) pairs summed over instances


class BadValue(ValueError):
    """A typed value that cannot be read (malformed JSON, absurd precision): counted, skipped."""


def _typed_value(v: Any) -> Any:
    which = v.WhichOneof("value")
    if which is None:
        return None
    if which == "json_ietf_val" or which == "json_val":
        text = getattr(v, which)
        if len(text) > MAX_JSON_BYTES:
            raise BadValue(f"{which} of {len(text)} bytes")
        try:
            return json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise BadValue(f"{which} is not JSON: {exc}") from None
    if which == "decimal_val":
        precision = v.decimal_val.precision
        if precision > MAX_PRECISION:
            raise BadValue(f"decimal_val precision {precision}")
        return v.decimal_val.digits / 10.0**precision
    if which == "leaflist_val":
        return None
    if which == "float_val":
        return _single(v.float_val)
    if which == "bytes_val":  # Junos sends some floats as 4 raw big-endian bytes (issue_17154)
        raw = v.bytes_val
        if len(raw) == 4:
            return _single(struct.unpack(">f", raw)[0])
        if len(raw) == 8:
            return struct.unpack(">d", raw)[0]
        return None
    return getattr(v, which)


def _single(x: float) -> float:
    """A 32-bit float as the device meant it (36.66, not 36.65999984741211): 7 significant digits."""
    return float(f"{x:.7g}")


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, str) and len(value) <= 64:
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return None
    return None


def _enum_value(enum: dict[str, int], raw: Any) -> int | None:
    """An enumerated or identity value's number: 'SPEED_100GB', or with its module as identities may come
    ('openconfig-if-ethernet:SPEED_100GB', 'oc-eth:SPEED_100GB'); None when the table does not know it."""
    text = str(raw)
    value = enum.get(text)
    if value is None and ":" in text:
        value = enum.get(text.rsplit(":", 1)[1])
    return value


def _clean_name(value: str) -> str:
    # a "name" leaf from some devices arrives quoted or escaped, e.g. "\"1\"" (issue_14063)
    return value.replace("\\", "").strip('"')


_PLAIN, _ENUM, _SUM, _NAME, _UNMAPPED, _INVENTORY, _XCVR = range(7)
MAX_COMPONENTS = 100_000  # component -> interface entries a device may teach us
MAX_TEXT = 200  # inventory strings are names and serial numbers, not documents


class _Leaf(NamedTuple):
    counter: str | None
    mode: int
    instance: str  # for summed counters: which instance (queue, path) this value is


class _Prefix(NamedTuple):
    norm: str
    keys: dict[str, str]
    port: str | None
    leaves: dict[str, _Leaf]  # leaf name -> meaning, for key-less single-element updates


class Decoder:
    """Decodes notifications of one target; caches path lookups (the hot path)."""

    def __init__(self, table: PathTable, device: str, tags: dict[str, str]) -> None:
        self.table = table
        self.device = device
        self.tags = tags
        self.unmapped = 0
        self.bad_values = 0  # updates whose value could not be read (malformed JSON, absurd decimals)
        self.unmapped_paths: set[str] = set()
        self._prefix_cache: dict[bytes, _Prefix] = {}
        # what a leaf means does not depend on which port it is under unless a template or a key
        # renaming reads a port key: then the ports of one path share one leaf table
        named = {k for t in table.leaves.values() for k in re.findall(r"{([^}]*)}", t)}
        named |= set(table.key_map) | {table.lane_key}
        self._port_free = not named & set(table.port_keys)
        self._leaf_tables: dict[tuple[str, tuple[tuple[str, str], ...]], dict[str, _Leaf]] = {}
        # (port, counter) -> instance -> latest value, for counters summed over instances
        # (queues, carrier up + down) that a device sends in separate notifications
        self._instances: dict[tuple[str, str], dict[str, float]] = {}
        self.component_port: dict[str, str] = {}  # transceiver component -> the interface it sits in
        self.inventory: dict[str, dict[str, str]] = {}  # port -> inventory fields read since last drained

    def _port_of(self, elem: Any, name: str) -> str | None:
        # the port is the key of the "interface" element, never of a queue or priority below it
        if name == "interface":
            return next((elem.key[k] for k in self.table.port_keys if k in elem.key), None)
        if name == self.table.component_elem and "name" in elem.key:
            # a transceiver component: the interface that names it, else the component's own name
            # (many devices name a port's transceiver as the port)
            comp = elem.key["name"]
            return self.component_port.get(comp, comp)
        return None

    def drain_inventory(self) -> dict[str, dict[str, str]]:
        out, self.inventory = self.inventory, {}
        return out

    def _norm_prefix(self, prefix: Any, key: bytes) -> _Prefix:
        names: list[str] = []
        keys: dict[str, str] = {}
        port: str | None = None
        for e in prefix.elem:
            name = _strip_module(e.name)
            names.append(name)
            port = self._port_of(e, name) or port
            for k, v in e.key.items():
                keys[k] = v
        norm = "/" + "/".join(names) if names else ""
        leaves: dict[str, _Leaf] = {}
        if self._port_free and len(self._leaf_tables) < 10_000 and self.table.component_elem not in names:
            ported = self.table.port_keys
            shape = (norm, tuple(sorted((k, v) for k, v in keys.items() if not (k in ported and v == port))))
            leaves = self._leaf_tables.setdefault(shape, leaves)
        result = _Prefix(norm, keys, port, leaves)
        # a component's interface may be learned later: its prefixes are resolved every time
        if len(self._prefix_cache) < 200_000 and self.table.component_elem not in names:
            self._prefix_cache[key] = result
        return result

    def _resolve(self, full: str, keys: dict[str, str]) -> _Leaf:
        """What one leaf path means: computed once per (prefix, leaf) and cached."""
        template = self.table.leaves.get(full)
        if template is None:
            inv = self.table.inventory.get(full)
            if inv is not None:
                return _Leaf(inv, _INVENTORY, "")
            if full == self.table.transceiver_leaf:
                return _Leaf(None, _XCVR, "")
            if full.endswith("/name"):
                return _Leaf(None, _NAME, "")
            if len(self.unmapped_paths) < 100:
                self.unmapped_paths.add(full)
            return _Leaf(None, _UNMAPPED, "")
        if "{" in template:
            keys = self._template_keys(keys)
        try:
            counter = template.format(**keys) if "{" in template else template
        except (KeyError, ValueError, IndexError):
            return _Leaf(None, _UNMAPPED, "")
        if counter not in COUNTERS:  # a device-supplied key made a name outside the vocabulary
            return _Leaf(None, _UNMAPPED, "")
        if counter in self.table.enums:
            return _Leaf(counter, _ENUM, "")
        over = self.table.sum_over.get(counter)
        if over is not None or counter in self.table.sum_leaves:
            return _Leaf(counter, _SUM, full + "|" + (keys.get(over, "") if over else ""))
        return _Leaf(counter, _PLAIN, "")

    def _template_keys(self, keys: dict[str, str]) -> dict[str, str]:
        """Keys as templates use them: the lane counted from 1, device values renamed (WARNING -> warn)."""
        t = self.table
        out = dict(keys)
        for k, names in t.key_map.items():
            if k in out:
                out[k] = names.get(out[k], "\x00")  # an unknown value makes no canonical name
        if t.lane_key is not None and t.lane_key in keys:
            try:
                out["lane"] = str(int(keys[t.lane_key]) - t.lane_base + 1)
            except ValueError:
                out["lane"] = "\x00"
        return out

    def decode(self, notification: Any) -> list[PortSample]:
        if self.table.port_elem is not None:
            return self._decode_elem_ported(notification)
        raw_prefix = notification.prefix
        pkey = raw_prefix.SerializeToString()
        prefix = self._prefix_cache.get(pkey) or self._norm_prefix(raw_prefix, pkey)
        pnorm, pkeys, pport, leafmap = prefix
        by_port: dict[str, dict[str, float]] = {}
        values: dict[str, float] | None = None  # the common case: one port per notification
        sums: set[tuple[str, str]] | None = None
        name_leaf: str | None = None
        pending: list[tuple[_Leaf, float]] | None = None  # port comes from a "name" leaf
        for u in notification.update:
            elems = u.path.elem
            port = pport
            leaf: _Leaf | None = None
            if len(elems) == 1:
                e0 = elems[0]
                if not e0.key:
                    leaf = leafmap.get(e0.name)
                    if leaf is None:
                        leaf = self._resolve(pnorm + "/" + _strip_module(e0.name), pkeys)
                        if len(leafmap) < MAX_CACHED_LEAVES:
                            leafmap[e0.name] = leaf
            if leaf is None:
                keys = dict(pkeys)
                parts = [pnorm] if pnorm else [""]
                for e in elems:
                    name = _strip_module(e.name)
                    parts.append(name)
                    port = self._port_of(e, name) or port
                    keys.update(e.key)
                leaf = self._resolve("/".join(parts), keys)
            mode = leaf.mode
            if mode == _UNMAPPED:
                self.unmapped += 1
                continue
            val = u.val
            if val.WhichOneof("value") == "uint_val":
                raw: Any = val.uint_val
            else:
                try:
                    raw = _typed_value(val)
                except BadValue:
                    self.bad_values += 1
                    continue
            if mode == _NAME:
                if isinstance(raw, str):
                    name_leaf = _clean_name(raw)
                continue
            if mode == _INVENTORY or mode == _XCVR:
                self._text_leaf(leaf, port, raw)
                continue
            counter: str = leaf.counter  # type: ignore[assignment]  # set for every mapped mode
            value: float | None
            if mode == _ENUM:
                value = _enum_value(self.table.enums[counter], raw)
            elif type(raw) is int:
                value = raw
            else:
                value = _number(raw)
            if value is None:
                self.unmapped += 1
                continue
            if port is None:
                if pending is None:
                    pending = []
                pending.append((leaf, value))
                continue
            if mode == _SUM:
                if (port, counter) not in self._instances and len(self._instances) >= MAX_INSTANCES:
                    self.unmapped += 1
                    continue
                self._instances.setdefault((port, counter), {})[leaf.instance] = value
                if sums is None:
                    sums = set()
                sums.add((port, counter))
                continue
            if port == pport:
                if values is None:
                    values = by_port.setdefault(port, {})
                values[counter] = value
            else:
                by_port.setdefault(port, {})[counter] = value
        if sums:
            for port, counter in sums:
                by_port.setdefault(port, {})[counter] = sum(self._instances[(port, counter)].values())
        if pending:
            if name_leaf is None:
                self.unmapped += len(pending)
            else:
                for leaf, value in pending:
                    assert leaf.counter is not None
                    if leaf.mode == _SUM:
                        inst = self._instances.setdefault((name_leaf, leaf.counter), {})
                        inst[leaf.instance] = value
                        by_port.setdefault(name_leaf, {})[leaf.counter] = sum(inst.values())
                    else:
                        by_port.setdefault(name_leaf, {})[leaf.counter] = value
        ts = notification.timestamp
        return [PortSample(self.device, p, ts, v, self.tags) for p, v in by_port.items() if v]

    def _text_leaf(self, leaf: _Leaf, port: str | None, raw: Any) -> None:
        if port is None or not isinstance(raw, str | int | float) or isinstance(raw, bool):
            self.unmapped += 1
            return
        text = str(raw).strip()[:MAX_TEXT]
        if leaf.mode == _XCVR:  # /interfaces/interface[name=P]/state/transceiver = component
            if text and (text in self.component_port or len(self.component_port) < MAX_COMPONENTS):
                self.component_port[text] = port
            return
        if ":" in text and leaf.counter in ("module_type", "media"):
            text = text.rsplit(":", 1)[1]  # identities: 'oc-opt-types:QSFP28' -> 'QSFP28'
        if text and (port in self.inventory or len(self.inventory) < MAX_COMPONENTS):
            self.inventory.setdefault(port, {})[leaf.counter or ""] = text

    def _decode_elem_ported(self, notification: Any) -> list[PortSample]:
        """SONiC: COUNTERS/<port>[/<field>] with scalar values, or JSON objects of fields."""
        ts = notification.timestamp
        pnames = [e.name for e in notification.prefix.elem]
        leaves = self.table.leaves
        by_port: dict[str, dict[str, float]] = {}

        def add(port: str, fieldname: str, raw: Any) -> None:
            counter = leaves.get(fieldname)
            if counter is None:
                self.unmapped += 1
                return
            value = _number(raw)
            if value is None:
                self.unmapped += 1
                return
            port = port.split(":", 1)[0]  # "Ethernet68:3" is queue 3 of Ethernet68: summed
            vals = by_port.setdefault(port, {})
            vals[counter] = vals.get(counter, 0) + value if fieldname.startswith("SAI_QUEUE_") else value

        for u in notification.update:
            names = pnames + [e.name for e in u.path.elem]
            try:
                raw = _typed_value(u.val)
            except BadValue:
                self.bad_values += 1
                continue
            idx = self.table.port_elem or 1
            if isinstance(raw, dict):
                port_names = names[idx:idx + 1]
                if port_names and "*" not in port_names[0] and not any(isinstance(x, dict) for x in raw.values()):
                    for fieldname, val in raw.items():
                        add(port_names[0], fieldname, val)
                else:  # wildcard: {port: {field: value}}
                    for port, fields in raw.items():
                        if isinstance(fields, dict):
                            for fieldname, val in fields.items():
                                add(port, fieldname, val)
            elif len(names) > idx + 1:
                add(names[idx], names[-1], raw)
            else:
                self.unmapped += 1
        return [PortSample(self.device, p, ts, v, self.tags) for p, v in by_port.items() if v]
