"""Per-link interval means from per-sample rates: the record of one link over one interval
(`LinkInterval`) and the scalar fold that makes them (`IntervalAggregator`).

Each rate is a time-weighted mean over the interval; a counter a link has reported before and says
nothing of in an interval did not change (0); the module's readings are taken as read, not averaged.
The batch replay (`detection/interval_fold.py`) makes the same intervals from columns of samples.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from fabricwatch.core.counters import COUNTERS, OPTICS, PORT_STATES, TRAINED, Kind, whole


class RowRates(Mapping[str, float]):
    """One link's rates as a read-only mapping over a row of a matrix: a replay gives each of millions
    of link-intervals its rates without building a dict for each (few are ever looked into)."""

    __slots__ = ("_index", "_matrix", "_row")

    def __init__(self, matrix: np.ndarray, row: int, index: Mapping[str, int]) -> None:
        self._matrix, self._row, self._index = matrix, row, index

    def __getitem__(self, name: str) -> float:
        v = float(self._matrix[self._row, self._index[name]])
        if v != v:  # NaN: the link has no such rate in this interval
            raise KeyError(name)
        return v

    def __iter__(self) -> Iterator[str]:
        row = self._matrix[self._row]
        return (name for name, j in self._index.items() if row[j] == row[j])

    def __len__(self) -> int:
        return int(np.count_nonzero(~np.isnan(self._matrix[self._row])))


@dataclass(slots=True)
class LinkInterval:
    """Mean rates of one link over one interval."""

    start_ns: int
    device: str
    port: str
    tags: dict[str, str]
    rates: Mapping[str, float]
    saturated: frozenset[str] = frozenset()
    # the physical layer's latest reading in this interval (DOM gauges, FEC rates): taken as read,
    # not averaged, since it comes every few minutes, not with every sample; with its time
    optics: dict[str, float] = field(default_factory=dict)
    optics_ns: int = 0

    @property
    def link_class(self) -> str:
        t = self.tags
        return f"{t.get('fabric', '?')}/{t.get('role', '?')}/{t.get('speed', '?')}"


@dataclass(slots=True)
class _Acc:
    bucket: int
    sums: dict[str, float] = field(default_factory=dict)
    covered: float = 0.0
    read: dict[str, float] = field(default_factory=dict)  # per reading: the time the samples carrying it covered
    last_dt: float = 0.0  # the span of the newest instant: what a later part of the same sample weighs
    tags: dict[str, str] = field(default_factory=dict)
    saturated: set[str] = field(default_factory=set)
    optics: dict[str, float] = field(default_factory=dict)
    optics_ns: int = 0
    moved: bool = False  # traffic counted after the port's state was last reported: the port up since
    said: bool = False  # the port's state was reported in the interval
    last: dict[str, float] = field(default_factory=dict)  # per reading: the latest reported, what holds after


# values held over the time a sample covers, not rates over a counter's span: averaged over the
# samples that carry them
READINGS = frozenset({*TRAINED, *PORT_STATES})
BOUNCES = ("link_transitions", "link_downed")
UP_THROUGHOUT = 0.999  # an interval's mean state at 1: up at every sample
MOVED_RUN = 2  # intervals in a row with traffic counted after a port was said down that say it is up
TRAFFIC = ("in_octets", "out_octets", "in_pkts", "out_pkts")  # counters that move only through a port up
_NONE: frozenset[str] = frozenset()
# the counters whose rates are folded (summed over time): a link that reports one and says nothing of
# it in an interval had no change of it
FOLDED = frozenset(n for n, spec in COUNTERS.items() if spec.kind is Kind.COUNTER and n not in OPTICS)
_SETS: dict[frozenset[str], frozenset[str]] = {}


def _shared(names: frozenset[str]) -> frozenset[str]:
    """One object for each set of counter names: most links of a fabric have one of a few."""
    return _SETS.setdefault(names, names)


class IntervalAggregator:
    """Folds per-sample rates into per-interval mean rates, per link."""

    def __init__(self, interval_s: float = 30.0) -> None:
        self.interval_ns = int(interval_s * 1e9)
        self._acc: dict[tuple[str, str], _Acc] = {}
        self._done: dict[int, list[LinkInterval]] = {}
        self._carry: dict[tuple[str, str], tuple[dict[str, float], int]] = {}
        self._last_ts: dict[tuple[str, str], int] = {}  # per link: its newest counted sample
        self._known: dict[tuple[str, str], frozenset[str]] = {}  # per link: the folded counters it has sent
        self._states: dict[tuple[str, str], dict[str, float]] = {}  # per link: its port states last reported
        self._said: dict[tuple[str, str], int] = {}  # per link: when its port state was last reported
        self._moved_run: dict[tuple[str, str], int] = {}  # per link: its intervals in a row with traffic since
        self.late = 0  # parts left out: stamped before the interval their link was folding

    def add(self, device: str, port: str, ts_ns: int, rates: Mapping[str, float],
            tags: Mapping[str, str], saturated: Iterable[str] = (), dt_s: float | None = None, *,
            span_ns: int = 0, spans_ns: Mapping[str, int] | None = None,
            new_names: Iterable[str] | None = None, first: Mapping[str, float] | None = None) -> None:
        """One sample's rates. The link's covered time grows by the time since its previous sample
        (`dt_s` when given). Each rate weighs the span it was computed over, `span_ns` or its own in
        `spans_ns` (the rate engine's): a counter a device sends in a notification of its own time,
        or only when it changed, brings its whole increase into the interval, never a part diluted
        by the other notifications' times. Without spans, and for readings (the negotiated speed), a
        rate weighs the time the sample covers. Parts of one sample that come apart (several
        notifications at one timestamp) cover its time once: never diluted by the number of messages.
        `new_names`: what the port sent for the first time; a counter among them is one the link
        reports (its intervals without it: unchanged, 0), even before it has a rate. `first`: the states and
        trained readings of the port's first sample, which has no rates: each holds from it."""
        bucket = ts_ns // self.interval_ns
        key = (device, port)
        acc = self._acc.get(key)
        if acc is not None and acc.bucket != bucket:
            if bucket < acc.bucket:  # a part stamped before the interval being folded: left out
                self.late += 1
                return
            self._close(key, acc)
            del self._acc[key]
            acc = None
        if new_names:
            self._note(key, (whole(n) for n in new_names))
        if first:
            self._first(key, first)
            if any(k in first for k in PORT_STATES):
                self._said[key] = ts_ns
        if not rates:
            return
        if acc is None:
            acc = _Acc(bucket, tags=dict(tags))
            carried = self._carry.pop(key, None) if self._carry else None
            if carried is not None:
                acc.optics, acc.optics_ns = dict(carried[0]), carried[1]
            self._acc[key] = acc
        prev = self._last_ts.get(key)
        if prev is not None and ts_ns <= prev:
            # another part of an instant already counted, or of an earlier one (a device's notifications
            # need not come in the order of their timestamps): its time is covered already
            weight, new_time = acc.last_dt, False
        else:
            if dt_s is None:
                dt_s = (ts_ns - prev) / 1e9 if prev is not None else span_ns / 1e9
            weight, new_time = (dt_s if dt_s > 0 else 1.0), True
        common = span_ns / 1e9 if span_ns > 0 else weight
        if any(k in rates for k in PORT_STATES):  # what was counted before it says nothing of the state now
            self._said[key] = ts_ns
            acc.moved, acc.said = False, True
        said = self._said.get(key)
        for name in TRAFFIC:
            if rates.get(name, 0.0) > 0:
                span = spans_ns.get(name, span_ns) if spans_ns else span_ns
                acc.moved |= said is None or ts_ns - span >= said
        sums = acc.sums
        counted = False
        for name, value in rates.items():
            if name in OPTICS:
                acc.optics[name] = value
                acc.optics_ns = ts_ns
                continue
            if name in READINGS:
                w = weight
                acc.read[name] = acc.read.get(name, 0.0) + w
                acc.last[name] = value
            elif spans_ns and name in spans_ns:
                w = spans_ns[name] / 1e9
            else:
                w = common
            sums[name] = sums.get(name, 0.0) + value * w
            counted = True
        if counted and new_time:  # a reading of the module alone is no time covered by the counters
            self._last_ts[key] = ts_ns
            acc.covered += weight
            acc.last_dt = weight
            # a part arriving after its interval was scored weighs nothing: late samples are left out
        acc.saturated.update(saturated)

    def _close(self, key: tuple[str, str], acc: _Acc) -> None:
        if acc.covered <= 0 or not acc.sums:
            if acc.optics:  # a module reading in an interval without counters: it goes with the next one
                self._carry[key] = (acc.optics, acc.optics_ns)
            return
        read = acc.read
        rates = {k: v / (read[k] if k in READINGS else acc.covered) for k, v in acc.sums.items()}
        # a counter the link has reported before and not in this interval did not change: a device
        # that sends values only when they change (or a counter in another notification) says nothing
        # when there is nothing to say; only a counter never reported is missing
        known = self._known.get(key, _NONE)
        for name in known:
            if name not in rates and name not in acc.saturated:  # one at its ceiling cannot say it did not change
                rates[name] = 0.0
        self._note(key, rates)  # callers that do not pass new_names learn from the rates
        # a state holds until reported otherwise, or until the counters say otherwise: traffic through a
        # port is the port up
        held = self._states.setdefault(key, {})
        # only what was counted after the state was said can say otherwise, and only when it goes on: a
        # trickle counted just after a shut is what was queued, not the port back up
        run = (1 if acc.said else self._moved_run.get(key, 0) + 1) if acc.moved else 0
        self._moved_run[key] = run
        moving = run >= MOVED_RUN
        for name in PORT_STATES:
            if name in rates:
                held[name] = acc.last[name]  # what holds after is the latest report, not the interval's mean
            elif name in held:
                rates[name] = held[name] = 1.0 if moving else held[name]
        # what a link trained to holds while it stays up: a reading while down (the kernel's placeholder) is no
        # speed it runs at, and nothing is held past a down; an interval it went down or came up in is not given
        # the held one
        last_up = held.get("oper_status", 1.0) >= UP_THROUGHOUT
        up = wholly_up(rates)
        for name in TRAINED:
            if not last_up:
                held.pop(name, None)
            elif name in rates:
                held[name] = acc.last[name]
            elif up and name in held:
                rates[name] = held[name]
        self._done.setdefault(acc.bucket, []).append(LinkInterval(
            acc.bucket * self.interval_ns, key[0], key[1], acc.tags, rates, frozenset(acc.saturated),
            acc.optics, acc.optics_ns))

    def _first(self, key: tuple[str, str], readings: Mapping[str, float]) -> None:
        held = self._states.setdefault(key, {})
        held.update((k, readings[k]) for k in PORT_STATES if k in readings)
        if readings.get("oper_status", 1.0) >= UP_THROUGHOUT:  # trained to, while up
            held.update((k, readings[k]) for k in TRAINED if k in readings)

    def _note(self, key: tuple[str, str], names: Iterable[str]) -> None:
        known = self._known.get(key, _NONE)
        more = {n for n in names if n in FOLDED and n not in known}
        if more:
            self._known[key] = _shared(known | more)

    def complete(self, now_ns: int) -> list[tuple[int, list[LinkInterval]]]:
        """Intervals that ended before `now_ns` (plus one interval of grace), oldest first."""
        limit = now_ns // self.interval_ns - 1
        for key, acc in list(self._acc.items()):
            if acc.bucket < limit:
                self._close(key, acc)
                del self._acc[key]
        ready = sorted(b for b in self._done if b < limit)
        return [(b * self.interval_ns, self._done.pop(b)) for b in ready]

    def open_links(self) -> set[tuple[str, str]]:
        """Links with an interval being folded now."""
        return set(self._acc)

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        """Drop open and closed intervals of these links (their target was removed)."""
        gone = set(keys)
        for key in gone:
            self._acc.pop(key, None)
            self._carry.pop(key, None)
            self._last_ts.pop(key, None)
            self._known.pop(key, None)
            self._states.pop(key, None)
            self._said.pop(key, None)
            self._moved_run.pop(key, None)
        for bucket, links in self._done.items():
            self._done[bucket] = [li for li in links if (li.device, li.port) not in gone]

    def flush(self) -> list[tuple[int, list[LinkInterval]]]:
        for key, acc in list(self._acc.items()):
            self._close(key, acc)
        self._acc.clear()
        out = [(b * self.interval_ns, self._done.pop(b)) for b in sorted(self._done)]
        return out


def wholly_up(rates: Mapping[str, float]) -> bool:
    """Whether the link was up for the whole interval (or never said otherwise): no down, no bounce."""
    return rates.get("oper_status", 1.0) >= UP_THROUGHOUT and not any(rates.get(k, 0.0) > 0 for k in BOUNCES)


def was_down(li: LinkInterval) -> bool:
    """Whether the link was down in the interval, at a sample or between two (it bounced)."""
    r = li.rates
    return r.get("oper_status", 1.0) < 0.5 or r.get("link_downed", 0.0) > 0 or r.get("link_transitions", 0.0) > 0
