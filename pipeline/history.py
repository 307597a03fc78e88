"""The last hour of every link, in memory: what the link page plots without asking storage.

Each port keeps a ring of `slots` steps (default 60 x 1 min) of five series — Gb/s in and out,
pause frames/s, ECN marks/s and errors/s — and its latest link events. A step holds the highest
value seen in it, so a burst shorter than a step still shows. Cost: 60 x 5 float32 = 1.2 KB per
port plus the ring's overhead (~1.4 KB in all; 14 MB at 10k ports), bounded by `max_ports`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fabricwatch.pipeline.totals import error_rate, pause_rate

SERIES = ("in_gbps", "out_gbps", "pauses", "ecn", "errors")
Key = tuple[str, str]


@dataclass(slots=True)
class _Ring:
    values: np.ndarray  # (slots, len(SERIES)); NaN where nothing was heard in that step
    newest: int  # absolute step number of the newest step written


class LinkHistory:
    def __init__(self, *, step_s: float = 60.0, slots: int = 60, max_ports: int = 200_000,
                 events_per_port: int = 20) -> None:
        self.step_ns = int(step_s * 1e9)
        self.slots = slots
        self.max_ports = max_ports
        self.events_per_port = events_per_port
        self._rings: dict[Key, _Ring] = {}
        self._events: dict[Key, deque[dict[str, Any]]] = {}
        self.refused_ports = 0  # ports beyond max_ports: no history kept for them (counted)

    def __len__(self) -> int:
        return len(self._rings)

    def add(self, key: Key, ts_ns: int, rates: Mapping[str, float]) -> None:
        """A port's (merged) rates at one instant."""
        ring = self._rings.get(key)
        step = ts_ns // self.step_ns
        if ring is None:
            if len(self._rings) >= self.max_ports:
                self.refused_ports += 1
                return
            ring = self._rings[key] = _Ring(np.full((self.slots, len(SERIES)), np.nan, dtype=np.float32), step)
        elif step > ring.newest:
            # steps nobody reported in are gaps, not the values of an hour ago
            for s in range(ring.newest + 1, min(step, ring.newest + self.slots) + 1):
                ring.values[s % self.slots] = np.nan
            ring.newest = step
        elif step <= ring.newest - self.slots:
            return  # older than the ring holds
        row = ring.values[step % self.slots]
        now = (rates.get("in_octets", 0.0) * 8e-9, rates.get("out_octets", 0.0) * 8e-9,
               pause_rate(rates), rates.get("ecn_marked", 0.0), error_rate(rates))
        for i, v in enumerate(now):
            old = row[i]
            if not old >= v:  # NaN or smaller
                row[i] = v

    def add_event(self, key: Key, ts_ns: int, kind: str, detail: str) -> None:
        events = self._events.get(key)
        if events is None:
            if len(self._events) >= self.max_ports:
                return
            events = self._events[key] = deque(maxlen=self.events_per_port)
        events.append({"time_ns": ts_ns, "kind": kind, "detail": detail})

    def forget(self, keys: Iterable[Key]) -> None:
        for key in keys:
            self._rings.pop(key, None)
            self._events.pop(key, None)

    def of(self, key: Key, now_ns: int) -> dict[str, Any]:
        """The port's last `slots` steps up to now, oldest first (None where nothing was heard), and
        its events, newest last."""
        step_now = now_ns // self.step_ns
        first = step_now - self.slots + 1
        out: dict[str, Any] = {"step_s": self.step_ns / 1e9, "start_ns": first * self.step_ns,
                               "series": {name: [None] * self.slots for name in SERIES},
                               "events": list(self._events.get(key, ()))}
        ring = self._rings.get(key)
        if ring is None:
            return out
        for step in range(max(first, ring.newest - self.slots + 1), min(step_now, ring.newest) + 1):
            row = ring.values[step % self.slots]
            for i, name in enumerate(SERIES):
                v = float(row[i])
                if v == v:  # not NaN
                    out["series"][name][step - first] = float(f"{v:.4g}")  # float32 holds ~7 figures; 4 plot
        return out
