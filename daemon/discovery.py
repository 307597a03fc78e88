"""`[daemon] topology = "discover"`: the daemon reads its topology from the fabric — LLDP neighbours
from every SNMP and gNMI target, every `topology_every` — so that tags follow recabling; a port
whose neighbour changed (or went) is a `link_events` point and an MQTT event."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Protocol

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from fabricwatch.core.batch import DeviceEvent, SampleBatch
from fabricwatch.core.protocols import CollectorConfig
from fabricwatch.core.topology import Topology
from fabricwatch.pipeline.pipeline import Processed
from fabricwatch.topology.roles import records
from fabricwatch.topology.sources import from_lldp, neighbour_readers

log = logging.getLogger("fabricwatch.topology")
End = tuple[str, str]


def neighbour_changes(before: dict[End, End], after: dict[End, End], ts_ns: int) -> list[DeviceEvent]:
    """What changed between two readings of the fabric, as link events of the near end."""
    out = []
    for end, far in sorted(after.items()):
        was = before.get(end)
        if was is not None and was != far:
            out.append(DeviceEvent(ts_ns, end[0], end[1], "neighbour_change",
                                   f"{was[0]} {was[1]} -> {far[0]} {far[1]}", severity="warning", source="lldp"))
    for end, was in sorted(before.items()):
        if end not in after:
            out.append(DeviceEvent(ts_ns, end[0], end[1], "neighbour_lost", f"was {was[0]} {was[1]}",
                                   severity="warning", source="lldp"))
    return out


class Tagging(Protocol):
    """The pipeline, as discovery uses it: it takes the topology read, and turns link events into points."""

    def set_topology(self, topology: Topology) -> None: ...

    def process(self, batch: SampleBatch, *, target: str = "") -> Processed: ...


class TopologyKeeper:
    def __init__(self, sections: Callable[[], Iterable[CollectorConfig]], every_s: Callable[[], float],
                 tagging: Tagging, write: Callable[[list[str]], Awaitable[None]]) -> None:
        """`sections` and `every_s` are read at each refresh: a SIGHUP changes them."""
        self.sections, self.every_s, self.tagging, self.write = sections, every_s, tagging, write
        self.ends: dict[End, End] = {}
        self.records: dict[End, dict[str, str]] = {}
        self.refreshes = 0
        self.changes = 0

    async def run(self) -> None:
        while True:
            await self.refresh()
            await asyncio.sleep(self.every_s())

    async def refresh(self) -> None:
        readers = neighbour_readers(self.sections())
        if not readers:
            log.warning("topology = \"discover\" but no SNMP or gNMI target to read LLDP from")
            return
        fabric = await from_lldp(readers)
        for problem in fabric.problems[:20]:
            log.warning("topology discovery", extra={"problem": str(problem), "source": problem.source,
                                                     "target": problem.target, "kind": problem.kind})
        fresh = {(r["device"], r["port"]): r for r in records(fabric)}
        # a device that did not answer this time keeps what was read before: silence is no recabling
        failed = {p.target for p in fabric.problems if p.kind == "unreachable"}
        kept = {end: rec for end, rec in self.records.items() if end[0] in failed and end not in fresh}
        now = {**kept, **fresh}
        after = {end: (r["peer_device"], r["peer_port"]) for end, r in now.items()}
        events = neighbour_changes(self.ends, after, time.time_ns()) if self.refreshes else []
        self.ends, self.records = after, now
        self.refreshes += 1
        self.changes += len(events)
        as_records: list[dict[str, object]] = [dict(r) for r in now.values()]
        self.tagging.set_topology(Topology.from_records(as_records))
        if events:
            for e in events:
                log.warning("link neighbour changed", extra={"device": e.device, "port": e.port, "detail": e.detail})
            processed = self.tagging.process(SampleBatch("lldp", "", [], events=events), target="lldp")
            await self.write(processed.lines)
        log.info("topology discovered", extra={"links": len(fabric.cables), "ports": len(after)})


class TopologyMetrics(Collector):
    """`fabricwatch_topology_*`: how often the fabric was read, how many neighbours changed."""

    def __init__(self, keeper: TopologyKeeper) -> None:
        self.keeper = keeper

    def collect(self) -> Iterator[Metric]:
        refreshes = CounterMetricFamily("fabricwatch_topology_refreshes", "Readings of the fabric's LLDP neighbours")
        refreshes.add_metric([], self.keeper.refreshes)
        changes = CounterMetricFamily("fabricwatch_topology_neighbour_changes",
                                      "Ports whose LLDP neighbour changed or went since the daemon started")
        changes.add_metric([], self.keeper.changes)
        ports = GaugeMetricFamily("fabricwatch_topology_ports", "Ports with a discovered neighbour")
        ports.add_metric([], len(self.keeper.ends))
        yield from (refreshes, changes, ports)
