"""Optics that degrade, found before the link fails: pre-FEC BER climbing toward the FEC limit
(trend, not only level), uncorrectable codewords, receive power under the module's own warning
level or far under its peers', a module running hot, one lane out of line with its siblings.

Deterministic rules over the module's readings, which come every few minutes: each condition
must hold for `hold` readings in a row to raise and be gone as long to clear (power with a margin),
so one odd reading pages nobody. What this gives joins the link's finding as rule hits."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from fabricwatch.core.counters import LANES
from fabricwatch.core.hits import RuleHit
from fabricwatch.core.optics import NO_LIGHT_DBM
from fabricwatch.models.features import parse_speed
from fabricwatch.models.intervals import LinkInterval, was_down

DARK = NO_LIGHT_DBM + 0.1  # a lane at or under this has no light at all (unused, or the fibre is out)
CONDITIONS = ("fec_uncorrectable", "ber_high", "ber_rising", "rx_power_low", "module_hot", "lane_outlier")


@dataclass(frozen=True)
class OpticsConfig:
    # RS(544,514) "KP4", the FEC of 200/400/800G Ethernet and of HDR/NDR InfiniBand links: above
    # this pre-FEC BER, codewords stop being correctable and frames are lost
    ber_limit: float = 2.4e-4
    # pre-FEC BER within half a decade of the limit: a warning, trend or not. Under it the FEC corrects what
    # comes with room to spare (at a tenth of the limit a codeword carries ~0.4 symbol errors of the 15 it
    # can correct), which every PAM4 link does all the time: a rise is the trend's to judge, not the level's
    ber_high_share: float = 10 ** -0.5
    ber_floor: float = 1e-8  # a trend of a BER under this is no concern yet
    trend_window_s: float = 7200.0
    trend_min_points: int = 5
    trend_min_span_s: float = 1200.0
    trend_decades_per_hour: float = 0.3  # a healthy link's BER wanders; one that ages climbs
    trend_min_rise: float = 0.5  # decades over the window
    trend_r2: float = 0.8
    horizon_s: float = 86_400.0  # warn when the trend reaches the limit within this long
    lane_outlier_db: float = 4.0
    peer_margin_db: float = 6.0  # without module thresholds: this far under the class's median
    hot_default_c: float = 70.0  # without module thresholds: the common 0-70 degC case temperature
    hold: int = 2
    clear_margin_db: float = 0.5
    stale_s: float = 3600.0  # no reading for this long: what was raised on it goes
    # the same values closer than this are one reading (a manager that re-serves its 300 s sample every poll); new
    # values are a new reading however soon (a manager that reads the module at every poll)
    min_reading_gap_s: float = 60.0


@dataclass
class _Link:
    values: dict[str, float] = field(default_factory=dict)  # the latest of every reading
    ts_s: float = 0.0
    ber: deque[tuple[float, float]] = field(default_factory=lambda: deque(maxlen=256))  # (t, log10 BER)
    raising: dict[str, int] = field(default_factory=dict)
    clearing: dict[str, int] = field(default_factory=dict)
    active: dict[str, RuleHit] = field(default_factory=dict)


def _limits(v: dict[str, float], quantity: str) -> tuple[float | None, float | None, float | None, float | None]:
    """(low alarm, low warn, high warn, high alarm) when they make sense together, else Nones:
    a module whose EEPROM reads nonsense (all equal, crossed) gives no thresholds, not false ones."""
    la, lw, hw, ha = (v.get(f"{quantity}_{lvl}") for lvl in ("low_alarm", "low_warn", "high_warn", "high_alarm"))
    present = [x for x in (la, lw, hw, ha) if x is not None]
    if len(present) >= 2 and (max(present) - min(present) < 1e-9 or sorted(present) != [x for x in (la, lw, hw, ha)
                                                                                          if x is not None]):
        return None, None, None, None
    return la, lw, hw, ha


def _fmt_lanes(values: list[float]) -> str:
    if not values:
        return "no other lane"
    lo, hi = min(values), max(values)
    return f"{lo:.1f} dBm" if abs(hi - lo) < 0.05 else f"{lo:.1f} to {hi:.1f} dBm"


def ber_estimate(reading: dict[str, float], li: LinkInterval) -> float | None:
    """Pre-FEC BER from what the device gives: its own figure, else corrected bits (or codewords,
    a lower bound: one bit each) per second over the line rate."""
    for name in ("pre_fec_ber", "ib_raw_ber"):
        if name in reading:
            return max(reading[name], 0.0)
    speed = li.rates.get("speed_bps") or parse_speed(li.tags.get("speed"))
    for name in ("fec_corrected_bits", "fec_corrected", "fec_corrected_symbols"):
        if name in reading and speed > 0:
            return max(reading[name], 0.0) / speed
    return None


def _trend(points: list[tuple[float, float]]) -> tuple[float, float]:
    """(decades per hour, R^2) of log10 BER against time, least squares."""
    t = np.array([p[0] for p in points]) / 3600.0
    y = np.array([p[1] for p in points])
    t = t - t.mean()
    var = float((t * t).sum())
    if var <= 0:
        return 0.0, 0.0
    slope = float((t * (y - y.mean())).sum() / var)
    resid = y - (y.mean() + slope * t)
    total = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float((resid ** 2).sum()) / total if total > 0 else 0.0
    return slope, r2


class OpticsWatch:
    def __init__(self, cfg: OpticsConfig | None = None) -> None:
        self.cfg = cfg or OpticsConfig()
        self._links: dict[tuple[str, str], _Link] = {}
        self._peer_rx: dict[str, float] = {}  # link class -> median receive power of its live lanes

    @property
    def flagged(self) -> set[tuple[str, str]]:
        return {k for k, st in self._links.items() if st.active}

    def temperature(self, key: tuple[str, str]) -> float | None:
        st = self._links.get(key)
        return st.values.get("temperature_c") if st is not None else None

    def hits(self, key: tuple[str, str]) -> list[RuleHit]:
        st = self._links.get(key)
        return list(st.active.values()) if st is not None else []

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        for key in keys:
            self._links.pop(key, None)

    def observe(self, links: list[LinkInterval], now_ns: int) -> None:
        """Take this interval's readings; raise and clear conditions; drop what went stale. A link that went
        down (or bounced) may come back with another module: what its physical layer said is forgotten."""
        for li in links:
            if was_down(li):
                self._links.pop((li.device, li.port), None)
        fresh = [li for li in links if li.optics and not was_down(li)]
        if fresh:
            self._refresh_peers(links)
        for li in fresh:
            key = (li.device, li.port)
            st = self._links.get(key)
            if st is None:
                st = self._links[key] = _Link()
            # the same values again within the gap: a sample re-served, not a new reading
            again = all(st.values.get(k) == v for k, v in li.optics.items())
            st.values.update(li.optics)
            ts_s = (li.optics_ns or li.start_ns) / 1e9
            if st.ts_s and ts_s - st.ts_s < self.cfg.min_reading_gap_s and again:
                continue
            st.ts_s = ts_s
            ber = ber_estimate(li.optics, li)
            if ber is not None:
                st.ber.append((st.ts_s, math.log10(max(ber, 1e-18))))
            self._step(st, self._candidates(st, li, ber))
        cutoff = now_ns / 1e9 - self.cfg.stale_s
        for key in [k for k, st in self._links.items() if st.ts_s < cutoff]:
            del self._links[key]

    def _refresh_peers(self, links: list[LinkInterval]) -> None:
        by_class: dict[str, list[float]] = {}
        for li in links:
            st = self._links.get((li.device, li.port))
            if st is None:
                continue
            lanes = [st.values[f"rx_power_dbm_l{n}"] for n in LANES if f"rx_power_dbm_l{n}" in st.values]
            live = [x for x in lanes if x > DARK]
            if live:
                by_class.setdefault(li.link_class, []).append(float(np.median(live)))
        self._peer_rx = {c: float(np.median(v)) for c, v in by_class.items() if len(v) >= 5}

    def _step(self, st: _Link, found: dict[str, RuleHit]) -> None:
        hold = self.cfg.hold
        for cond, hit in found.items():
            st.clearing.pop(cond, None)
            st.raising[cond] = st.raising.get(cond, 0) + 1
            if cond in st.active or st.raising[cond] >= hold:
                st.active[cond] = hit
        for cond in [c for c in st.raising if c not in found]:
            del st.raising[cond]
        for cond in [c for c in st.active if c not in found]:
            st.clearing[cond] = st.clearing.get(cond, 0) + 1
            if st.clearing[cond] >= hold:
                del st.active[cond]
                del st.clearing[cond]

    def _candidates(self, st: _Link, li: LinkInterval, ber: float | None) -> dict[str, RuleHit]:
        cfg = self.cfg
        v = st.values
        out: dict[str, RuleHit] = {}
        if ber is not None:
            self._ber(st, ber, out)
        self._power(st, li, out)
        temp = li.optics.get("temperature_c")
        if temp is not None:
            _, _, hw, ha = _limits(v, "temperature_c")
            warn = hw if hw is not None else cfg.hot_default_c
            if temp > warn:
                sev = "critical" if ha is not None and temp > ha else "warning"
                what = f"module high-warning {hw:.0f} degC" if hw is not None else \
                    f"no module threshold, {cfg.hot_default_c:.0f} degC assumed"
                out["module_hot"] = RuleHit(sev, f"module temperature {temp:.1f} degC, {what}"
                                            + (f" (alarm {ha:.0f} degC)" if ha is not None else ""), "module_hot")
        return out

    def _ber(self, st: _Link, ber: float, out: dict[str, RuleHit]) -> None:
        cfg = self.cfg
        limit = cfg.ber_limit
        if ber >= cfg.ber_high_share * limit:
            sev = "critical" if ber >= 0.5 * limit else "warning"
            out["ber_high"] = RuleHit(sev, f"pre-FEC BER {ber:.1e} is {100 * ber / limit:.0f}% of the FEC limit "
                                           f"{limit:.1e}", "ber_high")
        now = st.ber[-1][0] if st.ber else 0.0
        points = [p for p in st.ber if p[0] >= now - cfg.trend_window_s]
        if (len(points) < cfg.trend_min_points or points[-1][0] - points[0][0] < cfg.trend_min_span_s
                or ber < cfg.ber_floor):
            return
        slope, r2 = _trend(points)
        rise = points[-1][1] - min(p[1] for p in points)
        if slope < cfg.trend_decades_per_hour or r2 < cfg.trend_r2 or rise < cfg.trend_min_rise:
            return
        eta_h = max(0.0, (math.log10(limit) - points[-1][1]) / slope)
        if eta_h * 3600 > cfg.horizon_s:
            return
        span_min = (points[-1][0] - points[0][0]) / 60
        out["ber_rising"] = RuleHit(
            "critical" if eta_h < 1.0 else "warning",
            f"pre-FEC BER rising {slope:.1f} decades/h ({10 ** points[0][1]:.1e} to {ber:.1e} "
            f"over {span_min:.0f} min): "
            f"at this pace it reaches the FEC limit {limit:.1e} in about {eta_h:.1f} h (optic or connector degrading?)",
            "ber_rising")

    def _power(self, st: _Link, li: LinkInterval, out: dict[str, RuleHit]) -> None:
        cfg = self.cfg
        v = st.values
        lanes = {n: li.optics[f"rx_power_dbm_l{n}"] for n in LANES if f"rx_power_dbm_l{n}" in li.optics}
        live = {n: x for n, x in lanes.items() if x > DARK}
        if not live:
            return  # no light on any lane: the link is down or the cage empty, which other rules say
        la, lw, _, _ = _limits(v, "rx_power_dbm")
        peer = self._peer_rx.get(li.link_class)
        margin = cfg.clear_margin_db if "rx_power_low" in st.active else 0.0
        worst_n = min(lanes, key=lambda n: lanes[n])
        worst = lanes[worst_n]
        others = [x for n, x in live.items() if n != worst_n]
        lane_word = f"lane {worst_n} " if len(lanes) > 1 else ""
        if lw is not None and worst < lw + margin:
            sev = "critical" if la is not None and worst < la else "warning"
            out["rx_power_low"] = RuleHit(sev, f"rx power {lane_word}{worst:.1f} dBm, module low-warning {lw:.1f} dBm"
                                          + (f" (alarm {la:.1f} dBm)" if la is not None else "")
                                          + (f", other lanes {_fmt_lanes(others)}" if len(lanes) > 1 else ""),
                                          "rx_power_low")
        elif lw is None and peer is not None and worst < peer - cfg.peer_margin_db + margin:
            out["rx_power_low"] = RuleHit("warning", f"rx power {lane_word}{worst:.1f} dBm, {peer - worst:.1f} dB "
                                                     f"under the median of its peers ({peer:.1f} dBm); the module "
                                                     "gives no thresholds", "rx_power_low")
        if len(live) >= 3:
            for n, x in sorted(live.items()):
                rest = [y for m, y in live.items() if m != n]
                med = float(np.median(rest))
                active_margin = cfg.clear_margin_db if "lane_outlier" in st.active else 0.0
                if x < med - cfg.lane_outlier_db + active_margin:
                    out["lane_outlier"] = RuleHit("warning", f"rx power lane {n} {x:.1f} dBm, {med - x:.1f} dB under "
                                                             f"its other lanes ({_fmt_lanes(rest)}): one lane failing "
                                                             "(fibre, connector or laser)", "lane_outlier")
                    break
