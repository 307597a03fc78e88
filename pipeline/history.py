"""The last hour of every link, in memory: what the link page plots without asking storage.

Each port keeps a ring of `slots` steps (default 60 x 1 min) of five series — Gb/s in and out,
pause frames/s, ECN marks/s and errors/s — and its latest link events. A step holds the highest
value seen in it, so a burst shorter than a step still shows. Cost: 60 x 5 float32 = 1.2 KB per
port plus the ring's overhead (~1.4 KB in all; 14 MB at 10k ports), bounded by `max_ports`.

The fabric's own signals (`EXTRA`: PFC per priority, discards, FEC, BER, temperature on RoCE;
xmit_wait, symbol errors, link downed, BER on InfiniBand) get a column (240 B) only once the port
reports them, a counted signal only once it is not 0: a priority nobody pauses on, or a link
without symbol errors, costs one bit and is read back as 0 in every step the port was heard
(`bench/fabric_page.py`: 1.75 KB per port with the simulator's RoCE counters, against 2 KB allowed;
it feeds no module readings, whose BER and temperature add 480 B where a module reports them).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fabricwatch.pipeline.totals import error_rate, pause_rate

SERIES = ("in_gbps", "out_gbps", "pauses", "ecn", "errors")
# series kept only for ports that report them: name -> (rate or gauge names summed, or the first
# of them present for a gauge)
_DISCARDS = ("in_discards", "out_discards", "xmit_discards", "buffer_discards")
EXTRA_RATES: dict[str, tuple[str, ...]] = {
    **{f"pfc_p{p}": (f"pfc_rx_p{p}", f"pfc_tx_p{p}") for p in range(8)},
    "discards": _DISCARDS,
    "xmit_wait": ("xmit_wait",), "symbol_errors": ("symbol_errors",), "link_downed": ("link_downed",),
    "fec_corrected": ("fec_corrected",), "fec_corrected_bits": ("fec_corrected_bits",),
    "fec_uncorrectable": ("fec_uncorrectable",),
}
EXTRA_GAUGES: dict[str, tuple[str, ...]] = {
    "ber": ("pre_fec_ber", "ib_raw_ber"), "temperature": ("temperature_c",),
}
EXTRA = (*EXTRA_RATES, *EXTRA_GAUGES)
_BIT = {name: 1 << i for i, name in enumerate(EXTRA)}
_RATE_OF = {source: name for name, sources in EXTRA_RATES.items() for source in sources}
_GAUGE_OF = {source: name for name, sources in EXTRA_GAUGES.items() for source in sources}
Key = tuple[str, str]


@dataclass(slots=True)
class _Ring:
    values: np.ndarray  # (slots, len(SERIES) + len(names)); NaN where nothing was heard in that step
    newest: int  # absolute step number of the newest step written
    names: tuple[str, ...] = ()  # the EXTRA series with a column, in the order of their columns
    seen: int = 0  # bit i: EXTRA[i] was reported (a column or, while it was only ever 0, none)


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

    def _ring(self, key: Key, step: int) -> _Ring | None:
        """The port's ring moved on to `step`; None when the port is refused or the step is gone."""
        ring = self._rings.get(key)
        if ring is None:
            if len(self._rings) >= self.max_ports:
                self.refused_ports += 1
                return None
            ring = self._rings[key] = _Ring(np.full((self.slots, len(SERIES)), np.nan, dtype=np.float32), step)
        elif step > ring.newest:
            # steps nobody reported in are gaps, not the values of an hour ago
            for s in range(ring.newest + 1, min(step, ring.newest + self.slots) + 1):
                ring.values[s % self.slots] = np.nan
            ring.newest = step
        elif step <= ring.newest - self.slots:
            return None  # older than the ring holds
        return ring

    def add(self, key: Key, ts_ns: int, rates: Mapping[str, float],
            gauges: Mapping[str, float] | None = None) -> None:
        """A port's (merged) rates at one instant, and the module's readings taken with them."""
        step = ts_ns // self.step_ns
        ring = self._ring(key, step)
        if ring is None:
            return
        row = ring.values[step % self.slots]
        now = (rates.get("in_octets", 0.0) * 8e-9, rates.get("out_octets", 0.0) * 8e-9,
               pause_rate(rates), rates.get("ecn_marked", 0.0), error_rate(rates))
        for i, v in enumerate(now):
            old = row[i]
            if not old >= v:  # NaN or smaller
                row[i] = v
        self._extra(ring, step, rates, _RATE_OF, summed=True)
        if gauges:
            self._extra(ring, step, gauges, _GAUGE_OF, summed=False)

    def add_gauges(self, key: Key, ts_ns: int, gauges: Mapping[str, float]) -> None:
        """The module's readings alone (DOM comes apart from the counters)."""
        step = ts_ns // self.step_ns
        ring = self._ring(key, step)
        if ring is not None:
            self._extra(ring, step, gauges, _GAUGE_OF, summed=False)

    def _extra(self, ring: _Ring, step: int, values: Mapping[str, float], table: dict[str, str],
               *, summed: bool) -> None:
        # one pass over what came (a port sends ~30 values), not one lookup per series: this runs per sample
        got: dict[str, float] = {}
        for k, v in values.items():
            name = table.get(k)
            if name is not None:
                if summed:
                    got[name] = got.get(name, 0.0) + v
                elif name not in got:  # a gauge: the first of its names the port gives
                    got[name] = v
        for name, v in got.items():
            ring.seen |= _BIT[name]
            if name in ring.names:
                col = len(SERIES) + ring.names.index(name)
            else:
                if summed and v == 0.0:
                    continue  # read back as 0 wherever the port was heard
                col = ring.values.shape[1]
                fresh = np.full((self.slots, 1), np.nan, dtype=np.float32)
                if summed:  # a count was 0 in the steps heard before it first moved
                    fresh[~np.isnan(ring.values[:, 0]), 0] = 0.0
                ring.values = np.hstack([ring.values, fresh])
                ring.names = (*ring.names, name)
            row = ring.values[step % self.slots]
            old = row[col]
            if not old >= v:
                row[col] = v

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

    def peaks(self, key: Key, since_ns: int, until_ns: int) -> dict[str, float]:
        """The highest value of each of SERIES in the steps from since to until ({} if none was heard)."""
        ring = self._rings.get(key)
        if ring is None:
            return {}
        first = max(since_ns // self.step_ns, ring.newest - self.slots + 1)
        last = min(until_ns // self.step_ns, ring.newest)
        if last < first:
            return {}
        rows = ring.values[[s % self.slots for s in range(first, last + 1)], :len(SERIES)]
        heard = rows[~np.isnan(rows[:, 0])]
        if not len(heard):
            return {}
        return {name: float(v) for name, v in zip(SERIES, heard.max(axis=0), strict=True)}

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
        for name in EXTRA:
            if not ring.seen & _BIT[name]:
                continue
            col = len(SERIES) + ring.names.index(name) if name in ring.names else None
            vals: list[float | None] = [None] * self.slots
            for step in range(max(first, ring.newest - self.slots + 1), min(step_now, ring.newest) + 1):
                if col is None:  # only ever 0: 0 where the port was heard
                    if ring.values[step % self.slots, 0] == ring.values[step % self.slots, 0]:
                        vals[step - first] = 0.0
                    continue
                v = float(ring.values[step % self.slots, col])
                if v == v:
                    vals[step - first] = float(f"{v:.4g}")
            out["series"][name] = vals
        return out
