"""gNMI notifications -> canonical counters, driven by per-flavour path tables (paths/*.toml)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from daemon.batch import PortSample
from daemon.counters import COUNTERS

PATHS_DIR = Path(__file__).parent / "paths"


@dataclass(frozen=True)
class PathTable:
    flavour: str
    leaves: dict[str, str]  # normalised path (or SAI field) -> canonical template
    port_keys: tuple[str, ...] = ("name", "interface-id")
    subscribe_sample: tuple[str, ...] = ()
    subscribe_on_change: tuple[str, ...] = ()
    enums: dict[str, dict[str, int]] = field(default_factory=dict)
    sum_leaves: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sum_over: dict[str, str] = field(default_factory=dict)
    target: str | None = None
    port_elem: int | None = None  # SONiC style: the port is a path element, not a key


def flavours() -> list[str]:
    return sorted(p.stem for p in PATHS_DIR.glob("*.toml"))


@cache
def load_table(flavour: str) -> PathTable:
    path = PATHS_DIR / f"{flavour}.toml"
    if not path.is_file():
        raise ValueError(f"unknown gNMI flavour {flavour!r}; known: {', '.join(flavours())}")
    data = tomllib.loads(path.read_text())
    base: dict[str, Any] = {}
    if "include" in data:
        parent = load_table(data["include"])
        base = {
            "leaves": dict(parent.leaves),
            "port_keys": parent.port_keys,
            "subscribe_sample": parent.subscribe_sample,
            "subscribe_on_change": parent.subscribe_on_change,
            "enums": dict(parent.enums),
            "sum_leaves": dict(parent.sum_leaves),
            "sum_over": dict(parent.sum_over),
        }
    leaves = {**base.get("leaves", {}), **data.get("leaves", {})}
    for template in leaves.values():
        name = template.format(index=0, priority=0)
        if name not in COUNTERS:
            raise ValueError(f"{path}: {template!r} is not a canonical counter")
    sum_leaves = {
        **base.get("sum_leaves", {}),
        **{k: tuple(v) for k, v in data.get("sum_leaves", {}).items()},
    }
    for counter, paths in sum_leaves.items():
        for p in paths:
            leaves[p] = counter
    return PathTable(
        flavour=data.get("flavour", flavour),
        leaves=leaves,
        port_keys=tuple(data.get("port_keys", base.get("port_keys", ("name", "interface-id")))),
        subscribe_sample=tuple(base.get("subscribe_sample", ())) + tuple(data.get("subscribe_sample", ())),
        subscribe_on_change=tuple(base.get("subscribe_on_change", ()))
        + tuple(data.get("subscribe_on_change", ())),
        enums={**base.get("enums", {}), **data.get("enums", {})},
        sum_leaves=sum_leaves,
        sum_over={**base.get("sum_over", {}), **data.get("sum_over", {})},
        target=data.get("target"),
        port_elem=data.get("port_elem"),
    )


def _strip_module(name: str) -> str:
    # "oc-if:interfaces" -> "interfaces": module prefixes vary by vendor, the path does not
    i = name.find(":")
    return name[i + 1 :] if i >= 0 else name


def _typed_value(v: Any) -> Any:
    which = v.WhichOneof("value")
    if which is None:
        return None
    if which == "json_ietf_val" or which == "json_val":
        return json.loads(getattr(v, which))
    if which == "decimal_val":
        return v.decimal_val.digits / (10**v.decimal_val.precision)
    if which == "leaflist_val":
        return None
    return getattr(v, which)


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return None
    return None


def _clean_name(value: str) -> str:
    # a "name" leaf from some devices arrives quoted or escaped, e.g. "\"1\"" (issue_14063)
    return value.replace("\\", "").strip('"')


class Decoder:
    """Decodes notifications of one target; caches path lookups (the hot path)."""

    def __init__(self, table: PathTable, device: str, tags: dict[str, str]) -> None:
        self.table = table
        self.device = device
        self.tags = tags
        self.unmapped = 0
        self.unmapped_paths: set[str] = set()
        self._prefix_cache: dict[bytes, tuple[str, dict[str, str], str | None]] = {}
        # (port, counter) -> instance -> latest value, for counters summed over instances
        # (queues, carrier up + down) that a device sends in separate notifications
        self._instances: dict[tuple[str, str], dict[str, float]] = {}

    def _port_of(self, elem: Any, name: str) -> str | None:
        # the port is the key of the "interface" element, never of a queue or priority below it
        if name != "interface":
            return None
        return next((elem.key[k] for k in self.table.port_keys if k in elem.key), None)

    def _norm_prefix(self, prefix: Any) -> tuple[str, dict[str, str], str | None]:
        key = prefix.SerializeToString()
        hit = self._prefix_cache.get(key)
        if hit is not None:
            return hit
        names: list[str] = []
        keys: dict[str, str] = {}
        port: str | None = None
        for e in prefix.elem:
            name = _strip_module(e.name)
            names.append(name)
            port = self._port_of(e, name) or port
            for k, v in e.key.items():
                keys[k] = v
        result = ("/" + "/".join(names) if names else "", keys, port)
        if len(self._prefix_cache) < 100_000:
            self._prefix_cache[key] = result
        return result

    def decode(self, notification: Any) -> list[PortSample]:
        if self.table.port_elem is not None:
            return self._decode_elem_ported(notification)
        ts = notification.timestamp
        pnorm, pkeys, pport = self._norm_prefix(notification.prefix)
        leaves = self.table.leaves
        enums = self.table.enums
        by_port: dict[str, dict[str, float]] = {}
        sums: set[tuple[str, str]] = set()
        name_leaf: str | None = None
        pending: list[tuple[str, float]] = []  # values whose port comes from a "name" leaf
        for u in notification.update:
            elems = u.path.elem
            port = pport
            if len(elems) == 1 and not elems[0].key:
                full = pnorm + "/" + _strip_module(elems[0].name)
                keys = pkeys
            else:
                keys = dict(pkeys)
                parts = [pnorm] if pnorm else []
                for e in elems:
                    name = _strip_module(e.name)
                    parts.append(name)
                    port = self._port_of(e, name) or port
                    keys.update(e.key)
                full = "/".join(parts) if pnorm else "/" + "/".join(parts)
            template = leaves.get(full)
            if template is None:
                if full.endswith("/name"):
                    raw = _typed_value(u.val)
                    if isinstance(raw, str):
                        name_leaf = _clean_name(raw)
                    continue
                self.unmapped += 1
                if len(self.unmapped_paths) < 100:
                    self.unmapped_paths.add(full)
                continue
            counter = template.format(**keys) if "{" in template else template
            raw = _typed_value(u.val)
            value = enums[counter].get(str(raw), None) if counter in enums else _number(raw)
            if value is None:
                self.unmapped += 1
                continue
            if port is None:
                pending.append((counter, value))
                continue
            over = self.table.sum_over.get(counter)
            if over is not None or counter in self.table.sum_leaves:
                instance = full + "|" + (keys.get(over, "") if over else "")
                self._instances.setdefault((port, counter), {})[instance] = value
                sums.add((port, counter))
                continue
            by_port.setdefault(port, {})[counter] = value
        for port, counter in sums:
            by_port.setdefault(port, {})[counter] = sum(self._instances[(port, counter)].values())
        if pending:
            if name_leaf is None:
                self.unmapped += len(pending)
            else:
                vals = by_port.setdefault(name_leaf, {})
                for counter, value in pending:
                    vals[counter] = vals.get(counter, 0) + value if counter in self.table.sum_leaves else value
        return [PortSample(self.device, p, ts, v, self.tags) for p, v in by_port.items() if v]

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
            raw = _typed_value(u.val)
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
