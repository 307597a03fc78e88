"""How early is an aging optic flagged, over each protocol? Hours of fabric time in seconds.

A simulated fabric runs on its own clock; the collectors read it through their real code: gNMI
through the flavours' own notifications and the collector's decoder, SNMP through the simulator's
agent over UDP on 127.0.0.1 and the real SNMP collector, UFM through the simulator's REST and
Telemetry over HTTP and the real UFM collector. Batches go through the pipeline into the link
detector, interval by interval, as in the daemon. The result says when the first optics finding
on the aging link came, against the instant its errors start to get through the FEC, and what
was raised on any other link (a false alarm)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from fabricwatch.collectors.gnmi import sonic_state
from fabricwatch.collectors.gnmi.mapping import Decoder, load_table
from fabricwatch.collectors.snmp.config import SnmpConfig
from fabricwatch.collectors.ufm.config import UfmConfig
from fabricwatch.core.batch import ModuleInfo, SampleBatch, coalesce
from fabricwatch.core.topology import Topology
from fabricwatch.detection.detector import LinkDetector
from fabricwatch.detection.optics import CONDITIONS
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import IntervalAggregator
from fabricwatch.pipeline.pipeline import Pipeline
from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.flavours import optics_notifications, port_notifications
from fabricwatch.simulator.snmp_agent import start_agent
from fabricwatch.simulator.topology import IB_FLAVOUR, FabricSpec
from fabricwatch.simulator.ufm_server import UfmServer

START_NS = 1_700_000_000 * 1_000_000_000
COMMUNITY = "lab"
SECRET_ENV = "FABRICWATCH_LAB_SECRET"  # the lab's own community and UFM password, for its own servers


@dataclass
class LeadResult:
    protocol: str
    link: tuple[str, str] | None
    failure_s: float | None  # fabric time the aging optic's errors start to pass the FEC
    warned_s: float | None = None  # first optics finding on the aging link
    conditions: list[str] = field(default_factory=list)
    explanation: str = ""
    false_alarms: list[tuple[float, str, str, str]] = field(default_factory=list)  # (t, device, port, what)
    modules: int = 0  # distinct ports whose inventory came in
    hours: float = 0.0

    @property
    def lead_s(self) -> float | None:
        if self.warned_s is None or self.failure_s is None:
            return None
        return self.failure_s - self.warned_s


class _Clock:
    def __init__(self) -> None:
        self.ns = START_NS

    def __call__(self) -> int:
        return self.ns


Source = Callable[[int, bool], Awaitable[list[SampleBatch]]]


def _gnmi_sources(fabric: Fabric) -> list[tuple[str, Source]]:
    out: list[tuple[str, Source]] = []
    for dev in fabric.topology.devices.values():
        if dev.kind == "host":
            continue
        table = load_table(dev.flavour)
        decoder = Decoder(table, dev.name, {})

        async def poll(ts: int, optics: bool, dev=dev, decoder=decoder,
                       other_db=table.optics_target) -> list[SampleBatch]:
            snap = fabric.snapshot(ts)
            notes = [n for p in dev.ports for n in port_notifications(dev.flavour, p, snap)]
            batches = [SampleBatch("gnmi", dev.name, decoder.decode(n)) for n in notes]
            modules = []
            for n in (n for p in dev.ports for n in optics_notifications(dev.flavour, p, snap, fabric.module(p))) \
                    if optics else ():
                if other_db:  # SONiC: STATE_DB, which the collector asks ONCE and decodes apart
                    samples, inventory, _ = sonic_state.decode(n, dev.name, {})
                    batches.append(SampleBatch("gnmi", dev.name, samples))
                    modules += [ModuleInfo(dev.name, port, ts, f) for port, f in inventory.items()]
                else:
                    batches.append(SampleBatch("gnmi", dev.name, decoder.decode(n)))
            modules += [ModuleInfo(dev.name, port, ts, f) for port, f in decoder.drain_inventory().items()]
            merged = coalesce(batches)
            merged.modules = modules
            return [merged]

        out.append((f"gnmi:{dev.name}", poll))
    return out


async def _snmp_sources(fabric: Fabric, clock: _Clock, only: set[str] | None,
                        ) -> tuple[list[tuple[str, Source]], list[Callable[[], None]]]:
    out: list[tuple[str, Source]] = []
    stops: list[Callable[[], None]] = []
    for dev in fabric.topology.devices.values():
        if dev.kind == "host" or (only is not None and dev.name not in only):
            continue
        agent, port = await start_agent(fabric, dev, "127.0.0.1", 0, COMMUNITY)
        agent.clock = clock
        stops.append(agent.transport.close if agent.transport is not None else (lambda: None))
        cfg = SnmpConfig.model_validate({
            "community": {"env": SECRET_ENV}, "interval": 30, "optics_interval": 300, "timeout": 5,
            "targets": [{"device": dev.name, "address": f"127.0.0.1:{port}",
                         **({"profile": "sonic"} if dev.flavour == "sonic" else {})}]})
        (collector,) = cfg.build()
        collector.clock = clock
        await collector.open()

        async def poll(ts: int, optics: bool, collector=collector) -> list[SampleBatch]:
            return [await collector.poll()]

        out.append((f"snmp:{dev.name}", poll))
        stops.append(lambda c=collector: asyncio.ensure_future(c.close()))  # type: ignore[misc]
    return out, stops


async def _ufm_source(fabric: Fabric, clock: _Clock) -> tuple[Source, UfmServer, Callable[[], Awaitable[None]]]:
    devices = [d for d in fabric.topology.devices.values() if d.kind != "host"]
    server = UfmServer(fabric, devices, password=COMMUNITY)
    server.state.clock = clock
    await server.start()
    (collector,) = UfmConfig.model_validate({"url": server.rest_url, "api": "rest", "username": "admin",
                                             "password": {"env": SECRET_ENV}, "telemetry_url": server.telemetry_url,
                                             "interval": 30, "inventory_interval": 3600,
                                             "events_interval": 3600}).build()

    async def poll(ts: int, optics: bool) -> list[SampleBatch]:
        return [await collector.poll()]

    return poll, server, collector.close


async def run(protocol: str, *, hours: float = 6.0, aging: tuple[str, str] | None = None, ramp_s: float = 14_400.0,
              aging_start_s: float = 1800.0, interval_s: float = 30.0, optics_s: float = 300.0,
              spec: FabricSpec | None = None, seed: int = 1, only: set[str] | None = None) -> LeadResult:
    """`aging`: (device, port) of the optic that ages (None: a healthy run). `only`: the switches
    SNMP polls (the simulator's agent encodes with pysnmp, which costs a few ms a request)."""
    spec = spec or (FabricSpec(fabric="ib", flavours=(IB_FLAVOUR,)) if protocol == "ufm" else FabricSpec())
    os.environ.setdefault(SECRET_ENV, COMMUNITY)
    fabric = Fabric(spec, seed=seed, start_ns=START_NS)
    clock = _Clock()
    if aging is not None:
        fabric.inject(Fault(kind="aging_optic", device=aging[0], port=aging[1], ramp=ramp_s, start_s=aging_start_s))
    pipeline = Pipeline(topology=Topology.from_records(fabric.topology.records()))
    agg = IntervalAggregator(interval_s)
    features = FeatureBuilder(interval_s)
    detector = LinkDetector(interval_s=interval_s)
    pipeline.on_rates = agg.add
    result = LeadResult(protocol, aging, aging_start_s + ramp_s if aging else None, hours=hours)
    stops: list[Callable[[], None]] = []
    closers: list[Callable[[], Awaitable[None]]] = []
    server: UfmServer | None = None
    if protocol == "gnmi":
        sources = _gnmi_sources(fabric)
    elif protocol == "snmp":
        sources, stops = await _snmp_sources(fabric, clock, only)
    elif protocol == "ufm":
        poll, server, close = await _ufm_source(fabric, clock)
        sources = [("ufm:lab", poll)]
        closers.append(close)
    else:
        raise ValueError(f"unknown protocol {protocol!r}: gnmi, snmp or ufm")
    seen_modules: set[tuple[str, str]] = set()
    next_optics = 0
    try:
        for step in range(int(hours * 3600 / interval_s) + 1):
            ts = START_NS + int(step * interval_s * 1e9)
            clock.ns = ts
            optics = ts >= next_optics
            if optics:
                next_optics = ts + int(optics_s * 1e9)
            for key, source in sources:
                for batch in await source(ts, optics):
                    seen_modules.update((m.device, m.port) for m in batch.modules)
                    pipeline.process(batch, target=key)
            for start, links in agg.complete(ts):
                for f in detector.detect(features.build(start, links)):
                    optic = [c for c in f.conditions if c in CONDITIONS]
                    if not optic:
                        continue
                    t = (start - START_NS) / 1e9
                    if aging is not None and (f.device, f.port) in (aging, _peer(fabric, aging)):
                        if result.warned_s is None:
                            result.warned_s, result.conditions, result.explanation = t, optic, f.explanation
                    else:
                        result.false_alarms.append((t, f.device, f.port, "+".join(optic)))
    finally:
        for stop in stops:
            stop()
        for close in closers:
            await close()
        if server is not None:
            await server.stop()
    result.modules = len(seen_modules)
    return result


def _peer(fabric: Fabric, link: tuple[str, str]) -> tuple[str, str] | None:
    for p in fabric.ports:
        if (p.device, p.name) == link and p.peer_device:
            return (p.peer_device, p.peer_port)
    return None
