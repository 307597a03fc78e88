"""Live state of each collector target, read by /metrics, /api and the demo view."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class TargetStatus:
    collector: str  # kind, e.g. "gnmi"
    name: str  # the config section's name
    device: str
    address: str
    up: bool = False
    connects: int = 0
    last_update_unix: float = 0.0
    samples: int = 0
    values: int = 0
    unmapped: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    # what the collector counts of its own (requests, garbage datagrams, overruns...), cumulative
    activity: dict[str, float] = field(default_factory=dict)
    last_error: str = ""

    def error(self, kind: str, message: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        self.last_error = f"{kind}: {message}"[:300]
        self.up = False
