"""The sample batch: what a collector yields per poll or per stream message."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class PortSample:
    """Raw values of one (device, port) at one timestamp, keyed by canonical counter name."""

    device: str
    port: str
    ts_ns: int
    values: dict[str, float]
    tags: dict[str, str] = field(default_factory=dict)
    # device uptime in seconds when the sample was taken; going back means a reboot (reset)
    uptime_s: float | None = None
    # per-sample width overrides, e.g. SNMP Counter32 columns: {"pause_rx": 32}
    bits: dict[str, int] | None = None


@dataclass(slots=True)
class DeviceEvent:
    """An event a device or its manager reported (e.g. a UFM event), for `link_events`."""

    ts_ns: int
    device: str
    port: str
    kind: str  # e.g. ufm_link_down, ufm_symbol_errors, unhealthy, healthy
    detail: str
    severity: str = ""
    source: str = ""  # the system that reported it: ufm, ...
    event_id: str = ""


INVENTORY_FIELDS = ("vendor", "part_number", "serial", "revision", "firmware", "module_type", "media", "length_m")


@dataclass(slots=True)
class ModuleInfo:
    """What is plugged into a port (a transceiver or cable), as the device reports it: stored once
    per change (`transceivers`), never per sample. Empty strings are unknown."""

    device: str
    port: str
    ts_ns: int
    fields: dict[str, str]  # keys from INVENTORY_FIELDS

    def fingerprint(self) -> tuple[str, ...]:
        return tuple(self.fields.get(k, "") for k in INVENTORY_FIELDS)


@dataclass(slots=True)
class SampleBatch:
    """Samples from one collector target; batches, not single numbers, because fabrics are big."""

    collector: str
    device: str
    samples: list[PortSample]
    # updates the collector received but could not map to a canonical counter
    unmapped: int = 0
    events: list[DeviceEvent] = field(default_factory=list)
    # (kind, message) of parts of the poll that failed while the rest went on: counted, logged
    problems: list[tuple[str, str]] = field(default_factory=list)
    modules: list[ModuleInfo] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.samples)

    def value_count(self) -> int:
        return sum(len(s.values) for s in self.samples)


def coalesce(batches: list[SampleBatch]) -> SampleBatch:
    """One batch from several of one device: samples of the same (port, timestamp) merged.

    Devices often send one port's counters in many notifications (per path, per priority);
    merging them gives one raw point and one rate computation per port and instant."""
    first = batches[0]
    if len(batches) == 1:
        return first
    merged: dict[tuple[str, int], PortSample] = {}
    unmapped = 0
    for b in batches:
        unmapped += b.unmapped
        for s in b.samples:
            key = (s.port, s.ts_ns)
            have = merged.get(key)
            if have is None:
                merged[key] = s  # samples are fresh from a decoder: merging into them is safe
            else:
                have.values.update(s.values)
                if s.bits:
                    have.bits = {**(have.bits or {}), **s.bits}
    modules = [m for b in batches for m in b.modules]
    return SampleBatch(first.collector, first.device, list(merged.values()), unmapped,
                       events=[e for b in batches for e in b.events],
                       problems=[p for b in batches for p in b.problems], modules=modules)
