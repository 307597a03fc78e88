"""Per-second rates from raw cumulative counters: wrap, reset, saturation, gaps, disorder.

The only place in fabricwatch where these are handled; collectors hand over raw values and
dashboards read rates computed here.

Decisions, for a counter that goes down between two samples:
- a saturating counter (IB error counters) never wraps: going down means it was cleared;
- otherwise, if the value as a wrap of the declared width gives a delta smaller than half the
  counter range, it is a wrap; a bigger "wrap" is far more likely a clear or reboot (reset);
- device uptime going back is a reboot: every counter of the port restarts, no rate.
A reset, a gap longer than ``max_gap_s`` and the first sample of a port give no rate (never a
spike); a sample not newer than the previous one is out of order and is ignored for rates.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from fabricwatch.core.batch import PortSample
from fabricwatch.core.counters import COUNTERS, OPTICS, PART, PORT_STATES, TRAINED, Kind, whole
from fabricwatch.core.speeds import parse_speed

_SPECS = COUNTERS
_OPTIC_GAUGES = frozenset(n for n in OPTICS if COUNTERS[n].kind is Kind.GAUGE)
_TRAINED = frozenset(TRAINED)
_MODULE = frozenset(OPTICS)
# FEC counters come with the module's readings, every few minutes: a rate over up to this long is fine
SLOW_MAX_GAP_S = 1800.0


@dataclass(slots=True)
class RateStats:
    samples: int = 0
    wraps: int = 0
    resets: int = 0
    reboots: int = 0
    gaps: int = 0
    out_of_order: int = 0
    saturated: int = 0
    bad_values: int = 0  # NaN or infinite readings, dropped before anything used them


@dataclass(slots=True)
class _PortState:
    uptime_s: float | None
    # name -> (raw value, timestamp ns): per counter, because a device may send one port's
    # counters in several notifications (per priority, per path) with the same timestamp
    last: dict[str, tuple[float, int]]
    seen_ns: int  # the port's newest sample, whatever it carried
    counted_ns: int = 0  # its newest sample that carried more than the module's readings (0: none yet)
    saturated: set[str] = field(default_factory=set)


@dataclass(slots=True)
class RateResult:
    rates: dict[str, float]
    # counters that reached their saturation ceiling at this sample (rate is a lower bound)
    newly_saturated: list[str]
    saturated: list[str]
    reset: bool = False  # a reboot or clear was seen
    state_changes: dict[str, tuple[float, float]] | None = None  # name -> (old, new)
    trained: dict[str, float] | None = None  # what the link trained to (its speed, width), as the sample says
    # the time each rate covers (since its counter's previous value): `span_ns` for most, and
    # `spans_ns` for those whose span differs (a counter sent in its own notification, or only on
    # change); what the detector weighs each rate by
    span_ns: int = 0
    spans_ns: dict[str, int] | None = None
    # names the port sent for the first time (no rate yet): the detector learns what a link reports
    new_names: list[str] | None = None
    first: bool = False  # the port's first sample: no rates yet, but what it says of the port's state holds
    # the time since the port's previous sample that carried more than the module's readings (None for its
    # first): what this one covers (a sample after a gap of no rates covers only its own span, not the gap)
    since_ns: int | None = None


def with_trained(result: RateResult) -> dict[str, float]:
    """The rates, plus what the link trained to when the sample said (the detector compares it with the
    port's nominal speed and with what the link held before: a link trained down to half is a fault)."""
    if result.trained is None:
        return result.rates
    return {**result.rates, **result.trained}


def optic_gauges(sample: PortSample) -> dict[str, float]:
    """The module's readings in a sample (DOM, BER, thresholds): what the detector takes as read."""
    if _OPTIC_GAUGES.isdisjoint(sample.values):  # the counters' samples, nearly all of them: no loop
        return {}
    return {k: float(v) for k, v in sample.values.items() if k in _OPTIC_GAUGES}


def detector_view(sample: PortSample, result: RateResult) -> dict[str, float]:
    """What the detector is given of one sample: rates, negotiated speed, the port's state and the
    module's readings."""
    gauges = optic_gauges(sample)
    rates = with_trained(result)
    values = sample.values
    states = {k: float(values[k]) for k in PORT_STATES if k in values}
    if states:
        rates = {**rates, **states}
    return {**rates, **gauges} if gauges else rates


def _trained(sample: PortSample) -> dict[str, float] | None:
    """What the sample says the link trained to (nothing where it reads 0, or where the sample says the link is
    down: the kernel's placeholder speed)."""
    if _TRAINED.isdisjoint(sample.values) or sample.values.get("oper_status", 1.0) < 0.5:
        return None
    return {k: float(v) for k in TRAINED if (v := sample.values.get(k)) is not None and v > 0} or None


def first_readings(sample: PortSample, result: RateResult) -> dict[str, float]:
    """What a port's first sample says that holds until reported otherwise: its states and what it trained to."""
    values = sample.values
    held = {k: float(values[k]) for k in PORT_STATES if k in values}
    return {**held, **result.trained} if result.trained else held


# the counters a link fills at its line rate: one narrower than what the link carries between two samples wraps
# an unknown number of times (the others' rates are far below any width's range)
NARROW_OCTETS = frozenset({"in_octets", "out_octets"})


@functools.lru_cache(maxsize=256)
def line_bytes(speed_tag: str | None) -> float:
    """Bytes a second a link of this nominal speed tag can carry (0: no tag, not known)."""
    return parse_speed(speed_tag, 0.0) / 8


def _counts(sample: PortSample) -> bool:
    """Whether a sample carries more than the module's readings (which come apart, every few minutes)."""
    return not _MODULE.issuperset(sample.values)


def covered_s(result: RateResult) -> float | None:
    """The seconds a sample covers: since its port's previous sample that carried counters (None for its first)."""
    return None if result.since_ns is None else result.since_ns / 1e9


def _note_span(result: RateResult, name: str, dt_ns: int, span: int) -> int:
    """Record a rate's span that is not the sample's first one; returns the sample's span."""
    if not span:
        result.span_ns = dt_ns
        return dt_ns
    if result.spans_ns is None:
        result.spans_ns = {}
    result.spans_ns[name] = dt_ns
    return span


def _sum_parts(result: RateResult) -> None:
    """Each part's rate summed into its whole's (`core/counters.part`): their counts over the newest span among
    them (a part sent only when it changed covers the time since it last changed)."""
    rates, spans = result.rates, result.spans_ns or {}
    counts: dict[str, float] = {}
    newest: dict[str, int] = {}
    for name in sorted(n for n in rates if PART in n):
        dt = spans.pop(name, result.span_ns)
        to = whole(name)
        counts[to] = counts.get(to, 0.0) + rates.pop(name) * dt
        newest[to] = min(newest.get(to, dt), dt)
    for to, count in counts.items():
        rates[to] = count / newest[to]
        if newest[to] != result.span_ns:
            spans[to] = newest[to]
    result.spans_ns = spans or None


class RateEngine:
    def __init__(self, max_gap_s: float = 300.0) -> None:
        self.max_gap_ns = int(max_gap_s * 1e9)
        self.slow_gap_ns = int(max(max_gap_s, SLOW_MAX_GAP_S) * 1e9)
        self.stats = RateStats()
        self._ports: dict[tuple[str, str], _PortState] = {}

    def idle(self, before_ns: int) -> list[tuple[str, str]]:
        """Ports whose newest counter is older than `before_ns`."""
        return [key for key, st in self._ports.items()
                if not st.last or max(ts for _, ts in st.last.values()) < before_ns]

    def last_value(self, key: tuple[str, str], name: str) -> float | None:
        """The last raw value of one counter or state of a port (oper_status, say), or None."""
        st = self._ports.get(key)
        entry = st.last.get(name) if st is not None else None
        return None if entry is None else entry[0]

    def tracks(self, key: tuple[str, str]) -> bool:
        """Whether the engine holds state for this (device, port)."""
        return key in self._ports

    def forget_port(self, key: tuple[str, str]) -> None:
        """Drop the state of a (device, port) (its target was removed)."""
        self._ports.pop(key, None)

    def process(self, sample: PortSample) -> RateResult | None:
        """Rates for one sample; None when every value in it is out of order."""
        stats = self.stats
        stats.samples += 1
        key = (sample.device, sample.port)
        ts = sample.ts_ns
        state = self._ports.get(key)
        if state is None:
            self._ports[key] = _PortState(
                sample.uptime_s, {n: (v, ts) for n, v in sample.values.items()}, ts, ts if _counts(sample) else 0
            )
            return RateResult({}, [], [], new_names=list(sample.values), first=True, trained=_trained(sample))
        # a reading of the module alone, on a line of its own, is no time the counters cover
        result = RateResult({}, [], [], since_ns=ts - (state.counted_ns or state.seen_ns))
        state.seen_ns = max(state.seen_ns, ts)
        if _counts(sample):
            state.counted_ns = max(state.counted_ns, ts)
        last = state.last
        if (
            sample.uptime_s is not None
            and state.uptime_s is not None
            and sample.uptime_s < state.uptime_s
        ):
            stats.reboots += 1
            result.reset = True
            state.saturated.clear()
            last.clear()
        if sample.uptime_s is not None:
            state.uptime_s = sample.uptime_s
        stats_ooo = False
        gap = False
        bits_override = sample.bits
        rates = result.rates
        max_gap = self.max_gap_ns
        result.trained = _trained(sample)
        span = 0  # of the first rate; others that differ go to result.spans_ns
        parts = False
        for name, value in sample.values.items():
            prev_entry = last.get(name)
            if prev_entry is None:
                last[name] = (value, ts)
                if result.new_names is None:
                    result.new_names = []
                result.new_names.append(name)
                continue
            prev, prev_ts = prev_entry
            dt_ns = ts - prev_ts
            if dt_ns <= 0:
                if dt_ns == 0:
                    # the same instant again (a sum completed by a later notification): the
                    # newer value is the better base for the next rate
                    last[name] = (value, ts)
                else:
                    stats_ooo = True
                continue
            last[name] = (value, ts)
            spec = _SPECS.get(name)
            if spec is None:
                if PART not in name or (spec := _SPECS.get(whole(name))) is None:
                    continue
                parts = True
            if spec.kind is not Kind.COUNTER:
                # states, and the negotiated speed: a link retrained slower is an event too
                if (spec.kind is Kind.STATE or name == "speed_bps") and prev != value:
                    if result.state_changes is None:
                        result.state_changes = {}
                    result.state_changes[name] = (prev, value)
                continue
            if dt_ns > max_gap and (name not in OPTICS or dt_ns > self.slow_gap_ns):
                gap = True
                continue
            delta = value - prev
            # an extended (64-bit) variant of a classic IB error counter wraps, never saturates; so does one read
            # past its classic width's all-ones under the classic name (ibdiagnet's PortCountersExtended)
            wide = spec.saturates and max(value, prev) > spec.max_value
            saturates = spec.saturates and not wide and not (
                bits_override and bits_override.get(name, spec.bits) != spec.bits)
            if saturates:
                if delta < 0:  # a saturating counter only goes down when cleared
                    stats.resets += 1
                    result.reset = True
                    state.saturated.discard(name)
                    continue
                if value >= spec.max_value:
                    if name not in state.saturated:
                        state.saturated.add(name)
                        stats.saturated += 1
                        result.newly_saturated.append(name)
                    result.saturated.append(name)
                    if prev >= spec.max_value:
                        continue  # stuck at the ceiling: the true rate is unknown, so none at all
                rates[name] = delta * 1e9 / dt_ns  # reaching the ceiling: a lower bound
                if dt_ns != span:
                    span = _note_span(result, name, dt_ns, span)
                continue
            bits = 64 if wide else bits_override.get(name, spec.bits) if bits_override else spec.bits
            if bits <= 32 and name in NARROW_OCTETS and line_bytes(sample.tags.get("speed")) * dt_ns / 1e9 >= 1 << bits:
                # the link can fill it more than once between the two samples (IF-MIB's Counter32 ifInOctets on a
                # fast port): what it moved modulo its width is no rate, neither a trickle nor idle
                result.saturated.append(name)
                continue
            if delta == 0 and bits <= 32 and value == (1 << bits) - 1:
                # held at the all-ones of its width: a counter that saturates where the vocabulary says it
                # wraps (the kernel's 32-bit PortXmitWait) has stopped counting, and says nothing of now
                result.saturated.append(name)
                continue
            if delta < 0:
                wrapped = value + (1 << bits) - prev
                if 0 <= wrapped < (1 << (bits - 1)):
                    stats.wraps += 1
                    delta = wrapped
                else:
                    stats.resets += 1
                    result.reset = True
                    continue
            rates[name] = delta * 1e9 / dt_ns
            if dt_ns != span:
                span = _note_span(result, name, dt_ns, span)
        if parts:
            _sum_parts(result)
        if gap:
            stats.gaps += 1
        if stats_ooo:
            stats.out_of_order += 1
            if not rates and result.state_changes is None and not result.reset and not result.new_names:
                return None
        return result
