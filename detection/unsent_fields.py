"""Counters a series stopped sending while it keeps reporting: unchanged, not unknown.

Telegraf's dedup processor and gNMI's suppress-redundant send a field only when it changed (and again now and then):
a line of the series without it says it still holds its last value. A counter the series has not sent for half the
gap limit is filled in on the series' own lines (one measurement and tag set: another measurement with the same
tags is another series, polled at its own pace), so that its first change after a quiet stretch longer than the gap
limit has a rate at once. A field left out for less (a state notification between two polls) is not filled: its
next value counts over its own span. Across a silence of the series itself (no line for longer than the gap limit)
nothing is filled.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from fabricwatch.core.counters import OPTICS, whole
from fabricwatch.pipeline.rate_columns import RATED, common_dtype

# a row's source of a value, in `UnsentColumns.fill`'s running maximum: (position * 3 + kind)
_BREAK, _CARRIED, _OWN = 0, 1, 2


def _fillable(name: str) -> bool:
    return whole(name) in RATED and name not in OPTICS


class UnsentSamples:
    """The sample reader's: per series, its last line's time and, per counter it sent, its last value and when."""

    def __init__(self, max_gap_s: float = 300.0) -> None:
        self.max_gap_ns = int(max_gap_s * 1e9)
        self.quiet_ns = self.max_gap_ns // 2
        self._series: dict[object, tuple[int, dict[str, tuple[float, int]]]] = {}

    def fill(self, series: object, ts: int, values: dict[str, float]) -> dict[str, float]:
        """`values` with the counters the series has not sent for a while (`series`: its measurement and tags)."""
        held = self._series.get(series)
        if held is None or ts - held[0] > self.max_gap_ns or ts < held[0]:
            self._series[series] = (ts, {k: (v, ts) for k, v in values.items() if _fillable(k)})
            return values
        sent = held[1]
        out = values
        if not sent.keys() <= values.keys():
            quiet = {k: v for k, (v, at) in sent.items() if k not in values and ts - at >= self.quiet_ns}
            if quiet:
                out = {**quiet, **values}
        for k, v in values.items():
            if k in sent or _fillable(k):
                sent[k] = (v, ts)
        self._series[series] = (ts, sent)
        return out


class UnsentColumns:
    """The column reader's: per tag set (a series, its measurement among its keys), its last row's time and, per
    counter, its last value and when it was sent."""

    def __init__(self, max_gap_s: float = 300.0) -> None:
        self.max_gap_ns = int(max_gap_s * 1e9)
        self._last_ts = np.zeros(0, dtype=np.int64)
        self._has_last = np.zeros(0, dtype=bool)
        self._value: dict[str, np.ndarray] = {}
        self._sent_ts: dict[str, np.ndarray] = {}
        self._known: dict[str, np.ndarray] = {}

    def _grow(self, n: int) -> None:
        if len(self._last_ts) >= n:
            return
        extra = max(n, 2 * len(self._last_ts)) - len(self._last_ts)
        self._has_last = np.concatenate([self._has_last, np.zeros(extra, dtype=bool)])
        self._last_ts = np.concatenate([self._last_ts, np.zeros(extra, dtype=np.int64)])
        for name, v in self._value.items():
            self._value[name] = np.concatenate([v, np.zeros(extra, dtype=v.dtype)])
            self._sent_ts[name] = np.concatenate([self._sent_ts[name], np.zeros(extra, dtype=np.int64)])
            self._known[name] = np.concatenate([self._known[name], np.zeros(extra, dtype=bool)])

    def fill(self, tagset: np.ndarray, ts: np.ndarray, values: dict[str, np.ndarray],
             present: dict[str, np.ndarray], n_tagsets: int, own_widths: Collection[str] = ()) -> None:
        """Fill in place the counters a row's series has not sent for a while (rows in file order, each series' in
        time order); not those read from a spelling of their own width (`own_widths`), whose rows say it."""
        n = len(ts)
        if not n:
            return
        self._grow(n_tagsets)
        order = np.argsort(tagset, kind="stable")
        T, S = tagset[order], ts[order]
        start = np.ones(n, dtype=bool)
        start[1:] = T[1:] != T[:-1]
        prev = np.empty(n, dtype=np.int64)
        prev[1:] = S[:-1]
        prev[start] = self._last_ts[T[start]]
        before = np.ones(n, dtype=bool)
        before[start] = self._has_last[T[start]]
        heard = before & (S - prev <= self.max_gap_ns) & (S >= prev)
        last = np.flatnonzero(np.append(start[1:], True))  # each series' last row
        pos = np.arange(n, dtype=np.int64) * 3
        quiet = self.max_gap_ns // 2
        names = [k for k in values if _fillable(k) and k not in own_widths]
        # and those a series sent in an earlier chunk and none of this one's rows carries
        for name in [k for k, known in self._known.items()
                     if k not in values and k not in own_widths and known[T[start]].any()]:
            values[name] = np.zeros(n, dtype=self._value[name].dtype)
            present[name] = np.zeros(n, dtype=bool)
            names.append(name)
        for name in names:
            where = present[name][order]
            known = self._known.get(name)
            if known is None:
                known = self._known[name] = np.zeros(len(self._last_ts), dtype=bool)
                self._value[name] = np.zeros(len(self._last_ts), dtype=values[name].dtype)
                self._sent_ts[name] = np.zeros(len(self._last_ts), dtype=np.int64)
            carry, sent_ts = self._value[name], self._sent_ts[name]
            if carry.dtype != values[name].dtype:  # one exact type for both (`common_dtype`)
                dtype = common_dtype(carry[known], values[name])
                carry = self._value[name] = carry.astype(dtype)
                values[name] = values[name].astype(dtype)
            if where.all():  # every row carries it (a collector sending every field): only remember
                carry[T[last]] = values[name][order[last]]
                sent_ts[T[last]] = S[last]
                known[T[last]] = True
                continue
            V = values[name][order]
            code = np.full(n, -1, dtype=np.int64)
            code[where] = pos[where] + _OWN
            breaks = ~where & ~heard
            code[breaks] = pos[breaks] + _BREAK
            carried = ~where & heard & start
            code[carried] = pos[carried] + _CARRIED
            src = np.maximum.accumulate(code)
            kind, at = src % 3, src // 3
            own = kind == _OWN
            from_carry = (kind == _CARRIED) & known[T[at]]
            at_ts = np.where(own, S[at], sent_ts[T[at]])
            filled = ~where & (own | from_carry) & (S - at_ts >= quiet)
            if filled.any():
                out = V.copy()
                from_row = filled & own
                out[from_row] = V[at[from_row]]
                out[filled & ~own] = carry[T[at[filled & ~own]]]
                back = np.empty(n, dtype=np.int64)
                back[order] = np.arange(n)
                values[name] = out[back]
                present[name] = (where | filled)[back]
            elif not where.any():
                del values[name], present[name]
            L = last
            tl = T[L]
            own_l, carry_l = own[L], from_carry[L]
            carry[tl[own_l]] = V[at[L][own_l]]
            sent_ts[tl[own_l]] = S[at[L][own_l]]
            known[tl] = own_l | carry_l
        self._last_ts[T[last]] = S[last]
        self._has_last[T[last]] = True
