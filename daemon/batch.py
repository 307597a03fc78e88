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
class SampleBatch:
    """Samples from one collector target; batches, not single numbers, because fabrics are big."""

    collector: str
    device: str
    samples: list[PortSample]
    # updates the collector received but could not map to a canonical counter
    unmapped: int = 0

    def __len__(self) -> int:
        return len(self.samples)

    def value_count(self) -> int:
        return sum(len(s.values) for s in self.samples)
