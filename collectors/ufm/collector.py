"""UFM collector: Telemetry counters every interval; inventory, events and unhealthy ports when due.

Each part of a poll fails alone: its error is counted and logged (batch.problems) while the
others go on. Bad credentials stop the session (kind `auth`) and back off like any failure,
never retried in a tight loop; a poll where every part failed fails the session too.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from fabricwatch.collectors.polling import PolledCollector
from fabricwatch.collectors.transitions import with_transitions
from fabricwatch.collectors.ufm.client import UfmClient
from fabricwatch.collectors.ufm.events import parse_events, parse_unhealthy
from fabricwatch.collectors.ufm.inventory import Inventory, parse_links, parse_ports, parse_systems, resolve_peers
from fabricwatch.collectors.ufm.telemetry import Parsed, TelemetryError, parse_csv, parse_prometheus
from fabricwatch.core.batch import DeviceEvent, ModuleInfo, PortSample, SampleBatch
from fabricwatch.core.errors import TargetError

if TYPE_CHECKING:
    from fabricwatch.collectors.ufm.config import UfmConfig

log = logging.getLogger("fabricwatch.ufm")


class UfmCollector(PolledCollector):
    kind = "ufm"
    cfg: UfmConfig

    def __init__(self, cfg: UfmConfig) -> None:
        super().__init__(cfg, cfg.name, cfg.url, dict(cfg.tags))
        self.client = UfmClient(cfg)
        self.inventory = Inventory()
        self._inventory_at = float("-inf")
        self._events_at = float("-inf")
        self._last_event_id: int | None = None
        self._unhealthy: dict[tuple[str, str], str] = {}

    async def open(self) -> None:
        await self.client.open()

    async def close(self) -> None:
        await self.client.close()

    # -- parts of a poll ---------------------------------------------------------------
    async def refresh_inventory(self) -> list[str]:
        inv = Inventory()
        parse_systems(await self.client.rest("resources/systems"), inv)
        parse_ports(await self.client.rest("resources/ports"), inv)
        links = parse_links(await self.client.rest("resources/links"), inv)
        resolve_peers(inv)
        self.inventory = inv
        log.info("ufm inventory read", extra={"target": self.key, "systems": len(inv.systems),
                                               "ports": len(inv.ports), "links": links})
        return inv.problems

    async def read_telemetry(self) -> Parsed:
        text = await self.client.telemetry()
        try:
            return parse_csv(text) if self.cfg.telemetry_format == "csv" else parse_prometheus(text)
        except TelemetryError as exc:
            raise TargetError("decode", f"{self.cfg.name}: Telemetry: {exc}") from None

    def samples(self, parsed: Parsed, now_ns: int) -> list[PortSample]:
        out = []
        for pc in parsed.ports:
            info = self.inventory.port(pc.guid, pc.port)
            tags = {**self.tags, **info.tags}
            values: dict[str, float] = dict(pc.values)
            with_transitions(values)
            if info.up is not None:
                values["oper_status"] = 1 if info.up else 0
            if info.width:
                values["link_width_active"] = info.width
            out.append(PortSample(info.device, info.port, pc.ts_ns or now_ns, values, tags, None, pc.bits or None))
        return out

    async def read_events(self) -> tuple[list[DeviceEvent], list[tuple[str, str]]]:
        data = await self.client.rest("app/events")
        first = self._last_event_id is None
        events, top, found = parse_events(data, self.inventory, self._last_event_id or 0)
        problems = [("schema", f"{self.cfg.name}: {p}") for p in found[:20]]
        self._last_event_id = top
        if first and not self.cfg.events_backfill:
            events = []  # what UFM held before we started is history, not news
        try:
            unhealthy_data = await self.client.rest("app/unhealthy_ports")
        except TargetError as exc:  # the events are read: keep them, count this
            if exc.kind == "auth":
                raise
            return events, [*problems, (exc.kind, str(exc))]
        unhealthy, more = parse_unhealthy(unhealthy_data, self.inventory)
        problems += [("schema", f"{self.cfg.name}: {p}") for p in more[:20]]
        now = time.time_ns()
        for key, cause in unhealthy.items():
            if key not in self._unhealthy:
                events.append(DeviceEvent(now, key[0], key[1], "unhealthy", cause, "Warning", "ufm"))
        for key in self._unhealthy.keys() - unhealthy.keys():
            events.append(DeviceEvent(now, key[0], key[1], "healthy", "no longer in unhealthy_ports", "Info", "ufm"))
        self._unhealthy = unhealthy
        return events, problems

    async def poll(self) -> SampleBatch:
        loop = asyncio.get_running_loop()
        problems: list[tuple[str, str]] = []
        failed_parts = 0
        parts = 1

        def note(exc: TargetError) -> None:
            nonlocal failed_parts
            if exc.kind == "auth":
                raise exc
            failed_parts += 1
            problems.append((exc.kind, str(exc)))

        modules: list[ModuleInfo] = []
        if loop.time() - self._inventory_at >= self.cfg.inventory_interval:
            parts += 1
            try:
                problems += [("schema", f"{self.cfg.name}: {p}") for p in (await self.refresh_inventory())[:20]]
                self._inventory_at = loop.time()
                now = time.time_ns()
                for (guid, number), fields in self.inventory.cables.items():
                    info = self.inventory.port(guid, number)
                    modules.append(ModuleInfo(info.device, info.port, now, fields))
            except TargetError as exc:
                note(exc)
        samples: list[PortSample] = []
        try:
            parsed = await self.read_telemetry()
            samples = self.samples(parsed, time.time_ns())
            problems += [("telemetry", f"{self.cfg.name}: {p}") for p in parsed.problems]
            self.unmapped += len(parsed.unmapped_columns)
        except TargetError as exc:
            note(exc)
        events: list[DeviceEvent] = []
        if loop.time() - self._events_at >= self.cfg.events_interval:
            parts += 1
            try:
                events, ev_problems = await self.read_events()
                problems += ev_problems
                self._events_at = loop.time()
            except TargetError as exc:
                note(exc)
        if failed_parts == parts:
            kind, message = problems[-1]
            raise TargetError(kind, message)
        return SampleBatch(self.kind, self.device, samples, self.unmapped, events, problems, modules)
