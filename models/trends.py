"""Trends before thresholds: slow signals watched for a sustained change against the link's own baseline.

An optic that ages corrects more FEC codewords, runs hotter, draws more bias current or receives less
light for an hour before its errors get through the FEC. Each slow signal of a link has a baseline that
follows it while it is steady (an EWMA over hours of the value, and of how far it strays), and is frozen while
the signal stands away from it; a change of at least a signal's material step that holds, one way, for
`hold` readings in a row is an early *warning* named by the signal. No limit needs to be reached: the
errors that follow make the finding critical through the background-rate evidence.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from fabricwatch.core.counters import LANES, lane
from fabricwatch.core.hits import RuleHit
from fabricwatch.core.optics import NO_LIGHT_DBM
from fabricwatch.models.intervals import LinkInterval, was_down


@dataclass(frozen=True)
class Slow:
    """A slow signal: how to read it, which way is worse, and the smallest change that matters."""

    name: str
    log: bool  # judged in decades (counts, BER) or in its own unit (degC, dB, mA)
    worse_up: bool
    step: float  # the material change, in decades or in units
    unit: str
    dark: float | None = None  # a reading at or under this is no signal (a receiver with no light), not a value
    # judged apart from what the device's other modules read now (their air, their load): what they share
    # is the device's, not this module's
    apart: bool = False
    both_ways: bool = False  # a change either way is the signal's (a laser's bias falls as it fails, rises as it ages)


SLOW_SIGNALS: tuple[Slow, ...] = (
    Slow("fec_corrected", True, True, 0.3, " codewords/s"),
    Slow("fec_corrected_bits", True, True, 0.3, " bits/s"),
    Slow("fec_corrected_symbols", True, True, 0.3, " symbols/s"),
    Slow("pre_fec_ber", True, True, 0.3, ""),
    Slow("ib_raw_ber", True, True, 0.3, ""),
    Slow("temperature_c", False, True, 6.0, " degC", apart=True),
    # every lane is a laser and a receiver of its own: one failing lane is its own slow signal
    *(Slow(lane("tx_bias_ma", n), False, True, 1.5, " mA", both_ways=True) for n in LANES),
    *(Slow(lane("tx_power_dbm", n), False, False, 2.0, " dB", dark=NO_LIGHT_DBM) for n in LANES),
    *(Slow(lane("rx_power_dbm", n), False, False, 2.0, " dB", dark=NO_LIGHT_DBM) for n in LANES),
)
# the baseline's time constant while the signal is steady: it follows what holds over hours, so an optic ageing
# through a day outruns it; a pace per reading would trail a slow ramp by less than its step at any polling rate
BASELINE_S = 4 * 3600.0
WARMUP = 10  # readings before a baseline is trusted
HOLD = 3  # readings in a row beyond the baseline
NOISE_MULT = 4.0  # a change must also stand this many times the signal's usual wander
# a module unheard this long may be another one (swapped while nothing watched): its baseline starts again
STALE_S = 24 * 3600.0
MIN_APART = 4  # modules of a device reading a signal before their median is what they share
# ... and devices of one kind (the roles of their links) before theirs is what the room shares
# another device moving the same way by this share of a device's move, at that moment, is their shared air
SHARED_SHARE = 1 / 3
DEVICE = "*"  # the port of a device's own track: what all its modules share
FLOOR = 1e-12  # a log signal's zero
# of its material step: a signal this far back from its worst is the change ending, not going on (worsening only)
RECEDING = 0.5


@dataclass
class _Track:
    base: float
    wander: float = 0.0
    n: int = 1
    away: int = 0  # readings in a row beyond the baseline, the worse way
    first: float = 0.0  # the value when it left the baseline
    peak: float = 0.0  # how far it has stood from the baseline at worst since it left, the worse way
    since_ns: int = 0
    last_ns: int = 0  # the reading before this one
    apart: bool = False  # judged against its device's other modules (else as read)


@dataclass
class TrendWatch:
    """Per link and slow signal, a baseline and how long the signal has stood away from it."""

    signals: tuple[Slow, ...] = SLOW_SIGNALS
    _tracks: dict[tuple[str, str, str], _Track] = field(default_factory=dict)
    _raised: dict[tuple[str, str], list[RuleHit]] = field(default_factory=dict)
    _read_ns: dict[tuple[str, str], int] = field(default_factory=dict)  # per link, when its last reading was taken
    # per (device, signal judged apart), each module's latest reading, whenever taken
    _latest: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    _kinds: dict[str, set[str]] = field(default_factory=dict)  # per device, the roles of its modules' links
    _devices: dict[str, dict[str, float]] = field(default_factory=dict)  # per signal, each device's latest share
    _raised_devices: dict[str, list[RuleHit]] = field(default_factory=dict)

    def observe(self, links: Iterable[LinkInterval]) -> dict[tuple[str, str], list[RuleHit]]:
        """Take this interval's fresh readings; the links with a trend raised, and why. A reading is fresh when
        taken after the link's last one, whenever it was taken (a module read at another moment than its
        counters hands its reading to the link's next interval). A link down
        says nothing of its module's ageing, nor does a receiver reading no light (its far end dark): that is
        its state. One that went down (or bounced) may come back with another module: its baselines start
        again."""
        fresh = []
        for li in links:
            if was_down(li):  # it may come back with another module: its baselines are the old one's
                for sig in self.signals:
                    if (t := self._tracks.get((li.device, li.port, sig.name))) is not None:
                        t.base = math.nan
                    self._latest.get((li.device, sig.name), {}).pop(li.port, None)
                self._raised.pop((li.device, li.port), None)
                continue
            key = (li.device, li.port)
            if li.optics and li.optics_ns > self._read_ns.get(key, -1):
                self._read_ns[key] = li.optics_ns
                fresh.append(li)
        shared = self._shared(fresh)
        self._judge_devices(fresh, shared)
        for li in fresh:
            key = (li.device, li.port)
            hits = []
            for s in self.signals:
                v = li.optics.get(s.name)
                if v is None or not math.isfinite(v) or (s.dark is not None and v <= s.dark):
                    continue
                if s.apart:
                    v -= shared.get((li.device, s.name), 0.0)
                hit = self._step(key, s, v, li.optics_ns, apart=(li.device, s.name) in shared)
                if hit is not None:
                    hits.append(hit)
            if hits:
                self._raised[key] = hits
            else:
                self._raised.pop(key, None)
        if not self._raised_devices:
            return self._raised
        raised = {k: list(v) for k, v in self._raised.items()}
        for device, hits in self._raised_devices.items():
            for port in {p for s in self.signals if s.apart for p in self._latest.get((device, s.name), {})}:
                raised.setdefault((device, port), []).extend(hits)
        return raised

    def _judge_devices(self, fresh: list[LinkInterval], shared: dict[tuple[str, str], float]) -> None:
        """What a device's modules share, judged as a module is against its device: against what the devices of
        its kind share (the room's air, the day), each device's latest whenever taken. One device away alone is
        its own cooling (a fan, its inlet, a blanking panel); several at once are the room's."""
        when: dict[str, int] = {}
        for li in fresh:
            self._kinds.setdefault(li.device, set()).add(li.tags.get("role", ""))
            when[li.device] = max(when.get(li.device, 0), li.optics_ns)
        for s in self.signals:
            if not s.apart:
                continue
            latest = self._devices.setdefault(s.name, {})
            touched = [d for (d, name) in shared if name == s.name]
            latest.update({d: shared[(d, s.name)] for d in touched})
            kinds: dict[frozenset[str], list[str]] = {}
            for d in latest:
                kinds.setdefault(frozenset(self._kinds.get(d, ())), []).append(d)
            hits: dict[str, RuleHit] = {}
            moved: dict[str, float] = {}  # per device, how far its share stands from its usual, the worse way
            judged: list[str] = []
            for members in kinds.values():
                if len(members) < MIN_APART:
                    continue
                room = statistics.median(latest[d] for d in members)
                judged += members
                for d in members:
                    if d in touched and (hit := self._step((d, DEVICE), s, latest[d] - room, when[d], apart=True,
                                                           device=True)):
                        hits[d] = hit
                    if (t := self._tracks.get((d, DEVICE, s.name))) is not None and math.isfinite(t.base):
                        moved[d] = (latest[d] - room - t.base) * (1 if s.worse_up else -1)
            for d in judged:
                if d in hits and not self._shares(d, moved):
                    self._raised_devices[d] = [hits[d]]
                elif d in touched or d not in hits:
                    self._raised_devices.pop(d, None)

    @staticmethod
    def _shares(device: str, moved: dict[str, float]) -> bool:
        """Whether another device moved the same way by at least SHARED_SHARE as much at this moment: their
        air (a rack, a row, the room), not one device's cooling, even where the other moved less than a step."""
        own = moved.get(device, 0.0)
        return own > 0 and any(m >= SHARED_SHARE * own for d, m in moved.items() if d != device)

    def _shared(self, links: list[LinkInterval]) -> dict[tuple[str, str], float]:
        """Per (device, signal) judged apart, the median of its modules' latest readings, whenever each was
        taken (MIN_APART or more of them): modules read at moments of their own share their switch's air."""
        touched = set()
        for s in self.signals:
            if s.apart:
                for li in links:
                    v = li.optics.get(s.name)
                    if v is not None and math.isfinite(v):
                        self._latest.setdefault((li.device, s.name), {})[li.port] = v
                        touched.add((li.device, s.name))
        return {k: statistics.median(vs.values()) for k in touched if len(vs := self._latest[k]) >= MIN_APART}

    def _step(self, key: tuple[str, str], s: Slow, value: float, ts_ns: int, apart: bool = False,
              device: bool = False) -> RuleHit | None:
        x = math.log10(max(value, FLOOR)) if s.log else value
        tk = (key[0], key[1], s.name)
        t = self._tracks.get(tk)
        if t is not None and (t.apart != apart or ts_ns - t.last_ns > STALE_S * 1e9):
            t.base = math.nan  # judged another way now, or long unheard: its baseline is of another reading
        if t is None or math.isnan(t.base):  # a baseline afresh (first heard, back from down, judged anew)
            # a count or BER of zero (the device's window restarting with the link) is no level to start from
            if s.log and value <= 0:
                return None
            if t is None:
                self._tracks[tk] = _Track(x, last_ns=ts_ns, apart=apart)
            else:  # how far the reading wanders is the port's: kept
                t.base, t.n, t.away, t.last_ns, t.apart = x, 1, 0, ts_ns, apart
            return None
        elapsed_s = max(ts_ns - t.last_ns, 0) / 1e9
        t.last_ns = ts_ns
        dev = x - t.base
        worse = abs(dev) if s.both_ways else dev if s.worse_up else -dev
        bar = max(s.step, NOISE_MULT * t.wander)
        material = worse >= bar
        if t.n >= WARMUP and material:
            if t.away == 0:
                t.first, t.since_ns, t.peak = x, ts_ns, worse
            t.away += 1
            t.peak = max(t.peak, worse)
        else:
            # steady (or better): the baseline follows, and so does what it usually strays by; while it warms up,
            # as the mean of what it has read (its first reading alone may be a window still filling)
            t.away = 0
            pace = max(min(elapsed_s / BASELINE_S, 1.0), 1.0 / (t.n + 1))
            t.base += pace * dev
            t.wander += pace * (abs(dev) - t.wander)
            t.n += 1
        if t.away < HOLD:
            return None
        if t.peak - worse >= RECEDING * bar:  # coming back from its worst (airflow restored, a module swapped)
            return None
        shown = (10 ** x, 10 ** t.base) if s.log else (x, t.base)
        change = f"{worse:.1f} decades" if s.log else f"{worse:.1f}{s.unit}"
        direction = "up" if (dev > 0 if s.both_ways else s.worse_up) else "down"
        if device:
            return RuleHit("warning", f"{s.name} of all its modules together against the other switches' "
                                      f"{shown[0]:+,.3g}{s.unit}, {change} {direction} from its usual "
                                      f"{shown[1]:+,.3g}{s.unit} for {t.away} readings: the switch's cooling (fans, "
                                      "inlet air, blanking panels)? (an early warning, before errors)", "switch_trend")
        what, sign = (f"{s.name} against its device's other modules", "+") if apart else (s.name, "")
        return RuleHit("warning", f"{what} {shown[0]:{sign},.3g}{s.unit}, {change} {direction} from its usual "
                                  f"{shown[1]:{sign},.3g}{s.unit} for {t.away} readings: the module or the link is "
                                  "ageing (an early warning, before errors)", "trend")

    def baselines(self) -> TrendWatch:
        """A watch with this one's baselines and nothing raised: what a healthy history taught, to start from."""
        return TrendWatch(self.signals, {k: replace(t, away=0) for k, t in self._tracks.items()}, {},
                          dict(self._read_ns), {k: dict(v) for k, v in self._latest.items()})

    def to_json(self) -> list[list[object]]:
        """The baselines, as a model file holds them: (device, port, signal, base, wander, readings, apart, last)."""
        return [[*k, t.base, t.wander, t.n, t.apart, t.last_ns]
                for k, t in self._tracks.items() if math.isfinite(t.base)]

    @classmethod
    def from_json(cls, rows: Iterable[list[object]]) -> TrendWatch:
        """A watch starting from saved baselines (`to_json`), nothing raised."""
        tracks = {}
        for device, port, name, base, wander, n, apart, last_ns in rows:
            tracks[(str(device), str(port), str(name))] = _Track(
                float(base), float(wander), int(n), apart=bool(apart), last_ns=int(last_ns))  # type: ignore[arg-type, call-overload]
        return cls(_tracks=tracks)

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        gone = set(keys)
        for tk in [tk for tk in self._tracks if (tk[0], tk[1]) in gone]:
            del self._tracks[tk]
        for key in gone:
            self._raised.pop(key, None)
            self._read_ns.pop(key, None)
            for s in self.signals:
                self._latest.get((key[0], s.name), {}).pop(key[1], None)
