"""Batches in, line protocol out: raw counters, rates and link events, tagged from topology."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from fabricwatch.core.batch import DeviceEvent, ModuleInfo, PortSample, SampleBatch
from fabricwatch.core.counters import STORED_AS_FLOAT, STORED_AS_INT
from fabricwatch.core.lineprotocol import line, tag_prefix
from fabricwatch.core.topology import Topology
from fabricwatch.pipeline.history import LinkHistory
from fabricwatch.pipeline.rates import (
    RateEngine,
    RateResult,
    covered_s,
    detector_view,
    first_readings,
    optic_gauges,
)

log = logging.getLogger("fabricwatch.pipeline")
_INF = float("inf")
# a switch has at most a few thousand ports (breakouts and sub-interfaces included), an InfiniBand
# director 800: a device naming more is inventing them (a key that carries a counter or a time)
MAX_PORTS_PER_DEVICE = 16_384


class RatesListener(Protocol):
    """Takes what the detector is given of one sample: rates (and module readings), the time each
    rate covers (`span_ns`, or its own in `spans_ns`; none for readings alone), the time since the port's
    previous sample (`dt_s`: what the sample covers), and the names the port sent for the first time (what
    the link reports, before it has rates of them)."""

    def __call__(self, device: str, port: str, ts_ns: int, rates: Mapping[str, float], tags: Mapping[str, str],
                 saturated: list[str], *, span_ns: int = 0, spans_ns: Mapping[str, int] | None = None,
                 new_names: Sequence[str] | None = None, first: Mapping[str, float] | None = None,
                 dt_s: float | None = None) -> None: ...


@dataclass(slots=True)
class LinkEvent:
    ts_ns: int
    device: str
    port: str
    kind: str  # oper_down, oper_up, admin_down, admin_up, speed_change, flap, saturated, counter_reset
    detail: str
    tags: dict[str, str]


@dataclass(slots=True)
class Processed:
    lines: list[str] = field(default_factory=list)
    events: list[LinkEvent] = field(default_factory=list)
    values: int = 0


@dataclass(slots=True)
class PortRateView:
    """The latest rates of one port: what the live view and /api read."""

    ts_ns: int
    tags: dict[str, str]
    rates: dict[str, float]
    updated: dict[str, int] = field(default_factory=dict)  # when each rate was last computed
    oldest: int = -(1 << 62)  # no rate in `updated` is older than this (a bound, not always the min)

    def merge(self, ts_ns: int, tags: dict[str, str], rates: dict[str, float], max_age_ns: int) -> None:
        """Take the newer rates and keep the others: a port's counters may arrive in several
        notifications (octets in one, PFC in another); a rate not renewed within max_age goes."""
        if ts_ns > self.ts_ns:
            self.ts_ns = ts_ns
        self.tags = tags
        self.rates.update(rates)
        self.updated.update(dict.fromkeys(rates, ts_ns))
        if ts_ns < self.oldest:
            self.oldest = ts_ns
        cutoff = self.ts_ns - max_age_ns
        if self.oldest >= cutoff:
            return  # nothing can be stale: the scan below runs once per max_age, not per merge
        updated = self.updated
        for name in [n for n, t in updated.items() if t < cutoff]:
            del updated[name]
            self.rates.pop(name, None)
        self.oldest = min(updated.values(), default=self.ts_ns)


class Pipeline:
    def __init__(self, *, topology: Topology | None = None, max_gap_s: float = 300.0,
                 history: LinkHistory | None = None, max_ports_per_device: int = MAX_PORTS_PER_DEVICE) -> None:
        self.topology = topology or Topology()
        # the ports kept per device are bounded: samples of further ports are dropped and counted
        self.max_ports_per_device = max_ports_per_device
        self._device_ports: dict[str, int] = {}
        self.refused_samples: dict[str, int] = {}
        self.history = history  # the last hour per link, for the link page (None: not kept)
        self.rates = RateEngine(max_gap_s)
        self.latest: dict[tuple[str, str], PortRateView] = {}
        self._prefixes: dict[tuple[str, str], tuple[dict[str, str], str, str, str, dict[str, str]]] = {}
        # which targets report each port: a removed target's ports are forgotten once no other reports them
        self._owners: dict[tuple[str, str], set[str]] = {}
        self._ports_of: dict[str, set[tuple[str, str]]] = {}
        # what each port holds (transceiver inventory): a point is written when it changes, not per poll
        self.modules: dict[tuple[str, str], ModuleInfo] = {}
        self.on_event: Callable[[LinkEvent], None] | None = None
        # every sample that gave rates, module readings or counters the port sent for the first time
        self.on_rates: RatesListener | None = None

    def set_topology(self, topology: Topology) -> None:
        self.topology = topology
        self._prefixes.clear()

    def forget_target(self, target: str) -> list[tuple[str, str]]:
        """Forget the ports only this target reported (rates, latest view, tags); returns them."""
        gone = []
        for key in self._ports_of.pop(target, set()):
            owners = self._owners.get(key)
            if owners is not None:
                owners.discard(target)
                if owners:
                    continue
                del self._owners[key]
                self._release(key)
            gone.append(key)
            self.rates.forget_port(key)
            self.modules.pop(key, None)
            self.latest.pop(key, None)
            self._prefixes.pop(key, None)
        if self.history is not None:
            self.history.forget(gone)
        return gone

    def expire(self, before_ns: int) -> list[tuple[str, str]]:
        """Forget ports no target has reported since `before_ns` (gone from the device: a port
        removed, a breakout changed), so that their state does not stay for ever; returns them."""
        gone = set(self.rates.idle(before_ns))
        gone |= {k for k, v in self.latest.items() if v.ts_ns < before_ns and not self.rates.tracks(k)}
        for key in gone:
            self.rates.forget_port(key)
            self.latest.pop(key, None)
            self._prefixes.pop(key, None)
            self.modules.pop(key, None)
            owners = self._owners.pop(key, None)
            if owners is not None:
                self._release(key)
                for target in owners:
                    self._ports_of.get(target, set()).discard(key)
        if self.history is not None:
            self.history.forget(gone)
        return sorted(gone)

    def _own(self, key: tuple[str, str], target: str) -> bool:
        """Record that `target` reports the port; False for a new port its device has no room for."""
        owners = self._owners.get(key)
        if owners is None:
            if not self._admit(key[0]):
                return False
            owners = self._owners[key] = set()
        if target not in owners:
            owners.add(target)
            self._ports_of.setdefault(target, set()).add(key)
        return True

    def _finite(self, s: PortSample) -> PortSample:
        """The sample without its NaN or infinite values (counted): they would poison the rates (after
        an inf every real value looks like a reset), the latest view and the detector."""
        values = {k: v for k, v in s.values.items() if type(v) is not float or -_INF < v < _INF}
        self.rates.stats.bad_values += len(s.values) - len(values)
        return dataclasses.replace(s, values=values)

    def _admit(self, device: str) -> bool:
        known = self._device_ports.get(device, 0)
        if known < self.max_ports_per_device:
            self._device_ports[device] = known + 1
            return True
        if device not in self.refused_samples:
            log.warning("device reports more ports than [pipeline] max_ports_per_device: the samples of "
                        "further ports are dropped (fabricwatch_samples_refused_total)",
                        extra={"device": device, "max_ports_per_device": self.max_ports_per_device})
        self.refused_samples[device] = self.refused_samples.get(device, 0) + 1
        return False

    def _release(self, key: tuple[str, str]) -> None:
        left = self._device_ports.get(key[0], 0) - 1
        if left > 0:
            self._device_ports[key[0]] = left
        else:
            self._device_ports.pop(key[0], None)

    def _tags(self, s: PortSample, target: str) -> tuple[dict[str, str], str, str, str, dict[str, str]] | None:
        """The port's tags and line-protocol prefixes; None when its device has no room for it."""
        key = (s.device, s.port)
        if not self._own(key, target):  # every time: two targets may report one port with equal tags
            return None
        cached = self._prefixes.get(key)
        # equal, not only the same dict: batches from a worker process are decoded, new dicts each time
        if cached is not None and (cached[0] is s.tags or cached[0] == s.tags):
            return cached
        tags = {**s.tags, **self.topology.tags(s.device, s.port), "device": s.device, "port": s.port}
        entry = (
            s.tags,
            tag_prefix("port_counters", tags),
            tag_prefix("port_rates", tags),
            tag_prefix("link_events", tags),
            tags,
        )
        self._prefixes[key] = entry
        return entry

    def process(self, batch: SampleBatch, *, target: str = "") -> Processed:
        """`target` is the key of the collector target the batch came from (what forgetting goes by)."""
        out = Processed()
        lines = out.lines
        for s in batch.samples:
            for v in s.values.values():
                if type(v) is float and not -_INF < v < _INF:  # NaN, inf: no reading (ints always are)
                    s = self._finite(s)
                    break
            entry = self._tags(s, target)
            if entry is None:
                continue
            _, raw_prefix, rate_prefix, _, tags = entry
            out.values += len(s.values)
            raw = line(raw_prefix, s.values, s.ts_ns, ints=STORED_AS_INT, floats=STORED_AS_FLOAT)
            if raw is not None:
                lines.append(raw)
            result = self.rates.process(s)
            if result is None:
                continue
            if result.rates:
                fields: dict[str, object] = dict(result.rates)
                for name in result.saturated:
                    fields[f"{name}_saturated"] = True
                rl = line(rate_prefix, fields, s.ts_ns)
                if rl is not None:
                    lines.append(rl)
                view = self.latest.get((s.device, s.port))
                if view is None:
                    view = self.latest[(s.device, s.port)] = PortRateView(
                        s.ts_ns, tags, dict(result.rates), dict.fromkeys(result.rates, s.ts_ns))
                else:
                    view.merge(s.ts_ns, tags, result.rates, self.rates.max_gap_ns)
                if self.history is not None:  # merged: all of the port
                    self.history.add((s.device, s.port), s.ts_ns, view.rates, optic_gauges(s))
                if self.on_rates is not None:
                    self.on_rates(s.device, s.port, s.ts_ns, detector_view(s, result), tags, result.saturated,
                                  span_ns=result.span_ns, spans_ns=result.spans_ns, new_names=result.new_names,
                                  dt_s=covered_s(result))
            else:
                # a reading of the module alone (DOM comes every few minutes, apart from the counters), a state
                # sent on its own when it changed, or the port's first sample
                gauges = optic_gauges(s)
                if gauges and self.history is not None:
                    self.history.add_gauges((s.device, s.port), s.ts_ns, gauges)
                if self.on_rates is not None:
                    given = gauges if result.first else detector_view(s, result)
                    first = first_readings(s, result) if result.first else None
                    if given or result.new_names or first:
                        self.on_rates(s.device, s.port, s.ts_ns, given, tags, result.saturated,
                                      new_names=result.new_names, first=first, dt_s=covered_s(result))
            self._events(s, result, tags, out)
        for dev_event in batch.events:
            self._device_event(dev_event, out)
        for module in batch.modules:
            self._module(module, out)
        return out

    def _module(self, m: ModuleInfo, out: Processed) -> None:
        """A `transceivers` point when what a port holds changed (or was first seen); a swapped
        module (another serial number) is a link event too: an RMA or a reseat is part of the story."""
        key = (m.device, m.port)
        before = self.modules.get(key)
        # devices report a module's fields in several notifications (component state, transceiver
        # state): what comes adds to what is known; a new serial number is another module
        if before is not None and m.fields.get("serial", before.fields.get("serial")) == before.fields.get("serial"):
            m = ModuleInfo(m.device, m.port, m.ts_ns, {**before.fields, **m.fields})
        if before is not None and before.fingerprint() == m.fingerprint():
            return
        self.modules[key] = m
        tags = {**self.topology.tags(m.device, m.port), "device": m.device, "port": m.port}
        fields = {k: v for k, v in m.fields.items() if v}
        if not fields:
            return
        pl = line(tag_prefix("transceivers", tags), fields, m.ts_ns)
        if pl is not None:
            out.lines.append(pl)
        old, new = (before.fields.get("serial", "") if before else ""), m.fields.get("serial", "")
        if before is not None and old != new:
            ev = LinkEvent(m.ts_ns, m.device, m.port, "module_change",
                           f"serial {old or '?'} -> {new or '(none)'}", tags)
            el = line(tag_prefix("link_events", {**tags, "kind": ev.kind}), {"detail": ev.detail, "count": 1}, ev.ts_ns)
            if el is not None:
                out.lines.append(el)
            out.events.append(ev)
            if self.on_event is not None:
                self.on_event(ev)

    def _device_event(self, e: DeviceEvent, out: Processed) -> None:
        tags = {**self.topology.tags(e.device, e.port), "device": e.device, "port": e.port,
                **({"source": e.source} if e.source else {}), **({"severity": e.severity} if e.severity else {})}
        # the event stream (MQTT) carries who reported it and how bad, like the stored point
        ev = LinkEvent(e.ts_ns, e.device, e.port, e.kind, e.detail, tags)
        point_tags = {**tags, "kind": e.kind}
        # count: a number, so that a store keeping numbers only (VictoriaMetrics) keeps the event too
        fields: dict[str, object] = {"detail": e.detail, "count": 1}
        if e.event_id:
            fields["event_id"] = e.event_id
        el = line(tag_prefix("link_events", point_tags), fields, e.ts_ns)
        if el is not None:
            out.lines.append(el)
        out.events.append(ev)
        if self.history is not None:
            self.history.add_event((e.device, e.port), e.ts_ns, e.kind, e.detail)
        if self.on_event is not None:
            self.on_event(ev)

    def _events(
        self, s: PortSample, r: RateResult, tags: dict[str, str], out: Processed
    ) -> None:
        events: list[LinkEvent] = []
        if r.state_changes:
            changes = r.state_changes
            if "oper_status" in changes:
                old, new = changes["oper_status"]
                kind = "oper_up" if new else "oper_down"
                events.append(LinkEvent(s.ts_ns, s.device, s.port, kind, f"{old:g}->{new:g}", tags))
            if "admin_status" in changes:
                old, new = changes["admin_status"]
                # shut or enabled by an operator: a state, not a fault (the detector ignores it)
                events.append(LinkEvent(s.ts_ns, s.device, s.port, "admin_up" if new else "admin_down",
                                        f"{old:g}->{new:g}", tags))
            if "speed_bps" in changes:
                old, new = changes["speed_bps"]
                if old > 0 and new > 0:
                    events.append(LinkEvent(s.ts_ns, s.device, s.port, "speed_change",
                                            f"{old / 1e9:g}G->{new / 1e9:g}G", tags))
        # InfiniBand's own count of a link going down first: the IB collectors derive transitions from it
        if r.rates.get("link_downed", 0) > 0:
            events.append(LinkEvent(s.ts_ns, s.device, s.port, "flap", "link_downed rose", tags))
        elif r.rates.get("link_transitions", 0) > 0:
            events.append(LinkEvent(s.ts_ns, s.device, s.port, "flap", "link_transitions rose", tags))
        for name in r.newly_saturated:
            events.append(
                LinkEvent(s.ts_ns, s.device, s.port, "saturated", f"{name} at its ceiling", tags)
            )
        if r.reset:
            events.append(LinkEvent(s.ts_ns, s.device, s.port, "counter_reset", "reset", tags))
        for ev in events:
            # kind is a tag so that two events of one port at one instant are two points
            el = line(tag_prefix("link_events", {**tags, "kind": ev.kind}), {"detail": ev.detail, "count": 1}, ev.ts_ns)
            if el is not None:
                out.lines.append(el)
            out.events.append(ev)
            if self.history is not None:
                self.history.add_event((ev.device, ev.port), ev.ts_ns, ev.kind, ev.detail)
            if self.on_event is not None:
                self.on_event(ev)
