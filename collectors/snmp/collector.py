"""SNMP collector: one agent per target, polled every interval with GETBULK column walks."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from fabricwatch.collectors.polling import PolledCollector
from fabricwatch.collectors.snmp import ber, lldp, usm
from fabricwatch.collectors.snmp.profile import Column, Profile, Table, load_profile, select, why_chosen
from fabricwatch.collectors.snmp.sensors import columns_wanted, read_sensors
from fabricwatch.collectors.snmp.transport import FastV2c, FastV3, Pysnmp, Transport, split_address
from fabricwatch.collectors.snmp.walk import Rows, walk
from fabricwatch.core.batch import ModuleInfo, PortSample, SampleBatch
from fabricwatch.core.errors import TargetError
from fabricwatch.core.neighbours import Neighbour
from fabricwatch.core.problems import Problem
from fabricwatch.core.secrets import reveal

if TYPE_CHECKING:
    from fabricwatch.collectors.snmp.config import SnmpConfig, SnmpTarget

log = logging.getLogger("fabricwatch.snmp")

SYS_OBJECT_ID = ber.encode_oid("1.3.6.1.2.1.1.2.0")
SYS_UPTIME = ber.encode_oid("1.3.6.1.2.1.1.3.0")
IF_TABLE_LAST_CHANGE = ber.encode_oid("1.3.6.1.2.1.31.1.5.0")
NAME_COLUMNS = {
    "ifName": ber.encode_oid("1.3.6.1.2.1.31.1.1.1.1"),
    "ifDescr": ber.encode_oid("1.3.6.1.2.1.2.2.1.2"),
    "ifAlias": ber.encode_oid("1.3.6.1.2.1.31.1.1.1.18"),
}
IF_TYPE = ber.encode_oid("1.3.6.1.2.1.2.2.1.3")
# IANAifType values that are no fabric link: their traffic is other ports' (a LAG's members') or
# none of the fabric's; tagged `if_type` so that sums and the detector leave them out
NOT_LINKS = {161: "aggregate", 53: "vlan", 135: "vlan", 136: "vlan", 24: "loopback", 131: "tunnel",
             1: "other"}
NAME_FALLBACK = ("ifName", "ifDescr")


class SnmpCollector(PolledCollector):
    kind = "snmp"
    cfg: SnmpConfig

    def __init__(self, cfg: SnmpConfig, target: SnmpTarget, section_limit: asyncio.Semaphore) -> None:
        super().__init__(cfg, target.device, target.address, {**cfg.tags, **target.tags})
        self.target = target
        self.host, self.port = split_address(target.address)
        self.section_limit = section_limit
        self.device_limit = asyncio.Semaphore(cfg.max_in_flight_per_device)
        override = target.profile or cfg.profile
        self.profile: Profile | None = load_profile(override) if override else None
        self.sys_object_id: str | None = None
        self.transport: Transport | None = None
        # ifIndex -> port name, and what it was read under
        self.names: dict[int, str] = {}
        self.name_lookup: dict[str, int] = {}  # every ifName, ifDescr and ifAlias -> ifIndex (DOM sensors name them)
        self._optics_due = 0  # clock time (ns) of the next DOM round
        self.clock: Callable[[], int] = time.time_ns  # what samples are stamped with (the lab gives fabric time)
        self.dom_sensors = 0  # DOM sensors read in the last round, and those no interface was found for
        self.dom_unplaced = 0
        self.port_tags: dict[int, dict[str, str]] = {}  # ifIndex -> the section's tags + if_type, alias
        self._names_stamp: tuple[int | None, frozenset[int]] | None = None
        self.name_refreshes = 0
        self._uptime: int | None = None
        self._last_change: dict[int, int] = {}
        self._transitions: dict[int, int] = {}
        self._index_cache: dict[bytes, tuple[int, ...]] = {}
        self.overruns = 0  # polls that took longer than the interval
        self.rows_read = 0  # varbinds that were rows of the columns asked for (the useful ones)
        self._closed_requests = 0  # counts of transports of earlier sessions
        self._closed_garbage = 0
        self._closed_rejected = 0

    def describe(self) -> str:
        """What the last poll found: the profile and why, the interfaces, what the profile cannot give."""
        if self.profile is None:
            return "not polled yet"
        why = "set in the config" if (self.target.profile or self.cfg.profile) else \
            why_chosen(self.profile, self.sys_object_id)
        missing = "; ".join(n.split(":")[0] for n in self.profile.not_exposed)
        dom = ""
        if self.cfg.optics and self.profile.sensor_mib is not None:
            dom = f"; {self.dom_sensors} DOM sensors read" + (
                f", {self.dom_unplaced} with no interface found for them" if self.dom_unplaced else "")
        return (f"profile {self.profile.name} ({why}), {len(self.names)} interfaces{dom}"
                + (f"; cannot give {missing}" if missing else ""))

    def fingerprint(self) -> str:
        return self.cfg.model_dump_json(exclude={"targets"}) + self.target.model_dump_json()

    def first_delay(self) -> float:
        return random.uniform(0, min(self.cfg.interval * 0.1, 5.0))

    def overran(self) -> None:
        self.overruns += 1

    def activity(self) -> dict[str, float]:
        t = self.transport
        return {"polls": self.polls, "overruns": self.overruns, "rows": self.rows_read,
                "name_refreshes": self.name_refreshes,
                "requests": self._closed_requests + (t.requests if t else 0),
                "garbage": self._closed_garbage + (t.garbage if t else 0),
                "rejected_answers": self._closed_rejected + (t.rejected if t else 0)}

    # -- session ---------------------------------------------------------------------
    def _make_transport(self) -> Transport:
        kw: dict[str, Any] = {"timeout": self.cfg.timeout, "retries": self.cfg.retries}
        if self.cfg.version == "3":
            v3 = self.target.v3 or self.cfg.v3
            assert v3 is not None
            auth_pass = reveal(v3.auth_key)
            priv_pass = reveal(v3.priv_key)
            if self.cfg.engine != "pysnmp" and usm.supported(v3.auth_protocol, v3.priv_protocol):
                user = usm.UsmUser(v3.user, v3.auth_protocol, auth_pass, v3.priv_protocol, priv_pass)
                return FastV3(self.device, self.host, self.port, user, **kw)
            return Pysnmp.v3(
                self.device, self.host, self.port, user=v3.user, auth_protocol=v3.auth_protocol,
                auth_key=reveal(v3.auth_key),
                priv_protocol=v3.priv_protocol,
                priv_key=reveal(v3.priv_key), **kw)
        ref = self.target.community or self.cfg.community
        assert ref is not None
        community = reveal(ref)
        if self.cfg.engine == "pysnmp":
            return Pysnmp.v2c(self.device, self.host, self.port, community, **kw)
        return FastV2c(self.device, self.host, self.port, community.encode(), **kw)

    async def open(self) -> None:
        if self.transport is None:
            self.transport = self._make_transport()

    async def close(self) -> None:
        if self.transport is not None:
            self._closed_requests += self.transport.requests
            self._closed_garbage += self.transport.garbage
            self._closed_rejected += self.transport.rejected
            await self.transport.close()
            self.transport = None

    # -- polling ---------------------------------------------------------------------
    async def _get(self, oids: list[bytes]) -> dict[bytes, tuple[int, ber.Value]]:
        assert self.transport is not None
        async with self.device_limit, self.section_limit:
            varbinds = await self.transport.get(oids)
        self.rows_read += len(varbinds)
        return {oid: (tag, value) for oid, tag, value in varbinds}

    async def neighbours(self) -> tuple[list[Neighbour], list[Problem]]:
        """The agent's LLDP neighbours (LLDP-MIB), in a session closed after the reading."""
        try:
            return await lldp.neighbours(self)
        finally:
            await self.close()

    async def walk_columns(self, columns: list[bytes]) -> Rows:
        """Rows of these table columns, for readers beside the counters (LLDP neighbours)."""
        return await self._walk(columns)

    async def _walk(self, columns: list[bytes]) -> Rows:
        assert self.transport is not None
        rows = await walk(self.transport, columns, max_repetitions=self.cfg.max_repetitions,
                          limits=(self.device_limit, self.section_limit), device=self.device)
        self.rows_read += sum(len(r) for r in rows.values())
        return rows

    async def poll(self) -> SampleBatch:
        scalars = await self._get([SYS_UPTIME, SYS_OBJECT_ID, IF_TABLE_LAST_CHANGE])
        tag, uptime = scalars.get(SYS_UPTIME, (ber.NULL, None))
        ticks = uptime if tag == ber.TIMETICKS and isinstance(uptime, int) else None
        tag, last_change = scalars.get(IF_TABLE_LAST_CHANGE, (ber.NULL, None))
        table_change = last_change if tag == ber.TIMETICKS and isinstance(last_change, int) else None
        tag, oid = scalars.get(SYS_OBJECT_ID, (ber.NULL, None))
        if tag == ber.OBJECT_IDENTIFIER and isinstance(oid, bytes):
            self.sys_object_id = ber.oid_str(oid)
        if self.profile is None:
            self.profile = select(self.sys_object_id)
            log.info("snmp profile chosen", extra={"device": self.device, "profile": self.profile.name,
                                                    "sys_object_id": self.sys_object_id})
        rebooted = ticks is not None and self._uptime is not None and ticks < self._uptime
        if rebooted:
            self._last_change.clear()
        self._uptime = ticks

        optics = self.cfg.optics and self.clock() >= self._optics_due
        if optics:
            self._optics_due = self.clock() + int(self.cfg.optics_interval * 1e9)
        tables = [t for t in self.profile.tables if optics or not t.slow]
        results = await asyncio.gather(*(self._walk([c.oid for c in t.columns]) for t in tables))
        ts_ns = self.clock()
        values: dict[int, dict[str, float]] = {}
        bits: dict[int, dict[str, int]] = {}
        has_transitions = False
        inventory: dict[int, dict[str, str]] = {}
        for table, rows in zip(tables, results, strict=True):
            for col in table.columns:
                has_transitions |= col.counter == "link_transitions"
                if col.inventory is not None:
                    self._inventory(col.inventory, rows[col.oid], inventory)
                else:
                    self._apply(table, col, rows[col.oid], values, bits)

        # names are re-read when the agent says its interface table changed, after a reboot,
        # or when rows appear or disappear
        indices = frozenset(values)
        if (self._names_stamp is None or rebooted or self._names_stamp != (table_change, indices)):
            await self._refresh_names()
            self._names_stamp = (table_change, indices)
        batch = SampleBatch(self.kind, self.device, [], 0)
        batch.modules += [ModuleInfo(self.device, self.names.get(idx) or f"ifIndex{idx}", ts_ns, fields)
                          for idx, fields in inventory.items()]
        if optics and self.profile.sensor_mib is not None:
            await self._sensors(self.profile, values, batch, ts_ns)
        if not has_transitions:
            for idx, v in values.items():
                if idx in self._last_change or idx in self._transitions:
                    v["link_transitions"] = self._transitions.get(idx, 0)
        samples = batch.samples
        include, exclude = self.cfg.include_ports, self.cfg.exclude_ports
        uptime_s = ticks / 100.0 if ticks is not None else None
        for idx, v in values.items():
            name = self.names.get(idx) or f"ifIndex{idx}"
            if include and not any(fnmatchcase(name, g) for g in include):
                continue
            if exclude and any(fnmatchcase(name, g) for g in exclude):
                continue
            samples.append(PortSample(self.device, name, ts_ns, v, self.port_tags.get(idx, self.tags), uptime_s,
                                      bits.get(idx)))
        if include or exclude:
            kept = {s.port for s in samples}
            batch.modules = [m for m in batch.modules if m.port in kept]
        batch.unmapped = self.unmapped
        return batch

    async def _sensors(self, profile: Profile, values: dict[int, dict[str, float]], batch: SampleBatch,
                       ts_ns: int) -> None:
        """DOM from the sensor MIB into the ports' values, inventory into the batch. An agent without
        the MIB answers nothing (no sensors); one that fails here fails this part, not the poll."""
        assert profile.sensor_mib is not None
        wanted = columns_wanted(profile.sensor_mib, profile.sensor_thresholds)
        try:
            rows = await self._walk([ber.encode_oid(c) for c in wanted])
        except TargetError as exc:
            batch.problems.append((exc.kind, f"{self.device}: DOM sensors: {exc}"))
            return
        cols = {c: {self._index(suffix): _plain(tag, value) for suffix, tag, value in rows[ber.encode_oid(c)]
                    if tag not in ber.EXCEPTIONS} for c in wanted}
        reading = read_sensors(cols, mib=profile.sensor_mib, thresholds=profile.sensor_thresholds,
                               names=self.name_lookup, port_of=self.names)
        self.dom_sensors, self.dom_unplaced = reading.sensors, reading.unplaced
        index_of = {name: idx for idx, name in self.names.items()}
        for port, dom in reading.values.items():
            values.setdefault(index_of[port], {}).update(dom)
        batch.modules += [ModuleInfo(self.device, port, ts_ns, inv) for port, inv in reading.inventory.items()]

    def _index(self, suffix: bytes) -> tuple[int, ...]:
        idx = self._index_cache.get(suffix)
        if idx is None:
            idx = self._index_cache[suffix] = ber.decode_arcs(suffix)
        return idx

    def _inventory(self, name: str, rows: list[tuple[bytes, int, ber.Value]],
                   out: dict[int, dict[str, str]]) -> None:
        for suffix, _tag, value in rows:
            arcs = self._index(suffix)
            if len(arcs) == 1 and isinstance(value, bytes):
                text = value.decode("utf-8", "replace").strip("\x00 ")[:120]
                if text and text.upper() not in ("N/A", "NA"):
                    out.setdefault(arcs[0], {})[name] = text

    def _apply(self, table: Table, col: Column, rows: list[tuple[bytes, int, ber.Value]],
               values: dict[int, dict[str, float]], bits: dict[int, dict[str, int]]) -> None:
        per_priority = table.index == "ifIndex.priority"
        per_lane = table.index == "ifIndex.lane"
        want = 2 if per_priority or per_lane else 1
        counter = col.counter
        by_priority = [counter.format(priority=p) for p in range(8)] if per_priority and counter else []
        by_lane = [counter.format(lane=n) for n in range(1, 9)] if per_lane and counter else []
        for suffix, tag, raw in rows:
            value: int | float
            if col.decimal and isinstance(raw, bytes):
                number = _decimal(raw)
                if number is None:
                    continue  # an empty lane ("") is no value, not a fault of the agent
                value = number
            elif isinstance(raw, int) and tag not in ber.EXCEPTIONS:
                value = raw
            else:
                self.unmapped += 1  # a string where a number belongs, or a hole in the table
                continue
            arcs = self._index(suffix)
            if len(arcs) != want:
                self.unmapped += 1
                continue
            idx = arcs[0]
            if col.role == "last_change":
                if isinstance(value, int):
                    prev = self._last_change.get(idx)
                    if prev is not None and prev != value:
                        self._transitions[idx] = self._transitions.get(idx, 0) + 1
                    self._last_change[idx] = value
                continue
            assert counter is not None
            if per_priority:
                if arcs[1] > 7:
                    self.unmapped += 1
                    continue
                name = by_priority[arcs[1]]
            elif per_lane:
                n = arcs[1] - table.lane_base
                if not 0 <= n < 8:
                    self.unmapped += 1
                    continue
                name = by_lane[n]
            else:
                name = counter
            port = values.get(idx)
            if port is None:
                port = values[idx] = {}
            if col.transform == "oper_status":
                port[name] = 1 if value == 1 else 0
            else:
                port[name] = value * col.scale if col.scale != 1 else value
            if col.bits != 64 and col.transform is None:
                b = bits.get(idx)
                if b is None:
                    b = bits[idx] = {}
                b[name] = col.bits
            elif idx in bits:
                bits[idx].pop(name, None)

    async def _refresh_names(self) -> None:
        wanted = [self.cfg.port_name, *(n for n in NAME_FALLBACK if n != self.cfg.port_name)]
        extra = [IF_TYPE] + ([NAME_COLUMNS["ifAlias"]] if "ifAlias" not in wanted else [])
        rows = await self._walk([NAME_COLUMNS[n] for n in wanted] + extra)
        names: dict[int, str] = {}
        lookup: dict[str, int] = {}
        for col in (*reversed(wanted), "ifAlias"):
            for suffix, _tag, value in rows.get(NAME_COLUMNS[col], []):
                arcs = self._index(suffix)
                if len(arcs) == 1 and isinstance(value, bytes) and value.strip(b"\x00 "):
                    lookup[value.decode("utf-8", "replace").strip("\x00 ")] = arcs[0]
        self.name_lookup = lookup
        for n in reversed(wanted):  # the preferred column is applied last and wins
            for suffix, _tag, value in rows[NAME_COLUMNS[n]]:
                arcs = self._index(suffix)
                if len(arcs) == 1 and isinstance(value, bytes) and value.strip(b"\x00 "):
                    names[arcs[0]] = value.decode("utf-8", "replace").strip("\x00 ")
        if names != self.names:
            log.info("snmp port names read", extra={"device": self.device, "ports": len(names)})
        self.names = names
        # per port: what kind of interface it is (when no fabric link) and the description an operator
        # wrote (ifAlias); one dict per port, kept until the next refresh (the pipeline caches by it)
        per_port: dict[int, dict[str, str]] = {}
        for suffix, _tag, value in rows[IF_TYPE]:
            arcs = self._index(suffix)
            if len(arcs) == 1 and isinstance(value, int) and value in NOT_LINKS:
                per_port.setdefault(arcs[0], {})["if_type"] = NOT_LINKS[value]
        for suffix, _tag, value in rows.get(NAME_COLUMNS["ifAlias"], []):
            arcs = self._index(suffix)
            if len(arcs) == 1 and isinstance(value, bytes) and value.strip(b"\x00 "):
                per_port.setdefault(arcs[0], {})["alias"] = value.decode("utf-8", "replace").strip("\x00 ")[:120]
        self.port_tags = {idx: {**self.tags, **t} for idx, t in per_port.items()}
        self.name_refreshes += 1


def _plain(tag: int, value: ber.Value) -> object:
    """A varbind value as the sensor reader takes it: ints, text, OIDs as dotted strings."""
    if tag == ber.OBJECT_IDENTIFIER and isinstance(value, bytes):
        return ber.oid_str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace").strip("\x00 ")
    return value


def _decimal(raw: bytes) -> float | None:
    """A number an agent writes as text; None for an empty or unreadable one."""
    try:
        x = float(raw.decode("ascii", "replace").strip("\x00 ") or "nan")
    except ValueError:
        return None
    return x if x == x and abs(x) != float("inf") else None
