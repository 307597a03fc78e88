"""The rate engine's rules (rates.py) over columns: every sample of a window at once, per counter.

The same decisions as `RateEngine` for samples in time order, with the same float operations, so
a replay gives the rates the daemon computed: a first value, a repeated instant or a gap give no
rate; a saturating counter going down was cleared, one at its ceiling since the last sample has no
known rate; any other counter going down wrapped if the wrap gives less than half its range, else
it was reset. Carried between calls per link, so a long window goes through in chunks.
Not here: device uptime (line protocol does not store it); a sample's own widths come from its spelling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fabricwatch.core.counters import COUNTERS, OPTICS, PART, Kind, whole
from fabricwatch.pipeline.rates import NARROW_OCTETS, SLOW_MAX_GAP_S


def common_dtype(*arrays: np.ndarray) -> type:
    """The dtype several value columns can all be held in exactly: int64, uint64 (counters past 2**63,
    none negative) or float64."""
    kinds = {a.dtype for a in arrays}
    if len(kinds) == 1:
        return next(iter(kinds)).type
    if kinds <= {np.dtype(np.int64), np.dtype(np.uint64)} and all(not len(a) or a.min() >= 0 for a in arrays):
        return np.uint64
    return np.float64



RATED = frozenset(n for n, s in COUNTERS.items() if s.kind is Kind.COUNTER)


@dataclass
class ColumnStats:
    wraps: int = 0
    resets: int = 0
    gaps: int = 0


class ColumnResult(NamedTuple):
    rates: dict[str, np.ndarray]  # per counter, its rate at every row; NaN where none
    spans_ns: dict[str, np.ndarray]  # per counter, the time its rate at a row covers (since its previous value)
    saturated: dict[str, np.ndarray]  # per saturating counter, the rows at its ceiling


class _Carry:
    """Per link: the last value and time of one counter."""

    def __init__(self, dtype: type) -> None:
        self.value: np.ndarray = np.zeros(0, dtype=dtype)
        self.ts = np.zeros(0, dtype=np.int64)
        self.has = np.zeros(0, dtype=bool)

    def grow(self, n: int) -> None:
        if n > len(self.ts):
            extra = max(n, 2 * len(self.ts)) - len(self.ts)
            self.value = np.concatenate([self.value, np.zeros(extra, dtype=self.value.dtype)])
            self.ts = np.concatenate([self.ts, np.zeros(extra, dtype=np.int64)])
            self.has = np.concatenate([self.has, np.zeros(extra, dtype=bool)])


class ColumnRates:
    def __init__(self, max_gap_s: float = 300.0) -> None:
        self.max_gap_ns = int(max_gap_s * 1e9)
        self.slow_gap_ns = int(max(max_gap_s, SLOW_MAX_GAP_S) * 1e9)
        self.stats = ColumnStats()
        self._carry: dict[str, _Carry] = {}

    def forget(self) -> None:
        self._carry.clear()

    def rates(self, link: np.ndarray, ts: np.ndarray, values: dict[str, np.ndarray],
              present: dict[str, np.ndarray], n_links: int,
              widths: dict[str, np.ndarray] | None = None, line_bytes: np.ndarray | None = None) -> ColumnResult:
        """Per counter, its rate at every row (NaN where none), the span each covers, and, for
        saturating counters, the rows at their ceiling. Rows must be in (link, time) order, none older
        than its link's last call; `widths`: per counter, a row's own width where not the vocabulary's (0);
        `line_bytes`: per row, the bytes a second its link can carry (0: not known)."""
        rates: dict[str, np.ndarray] = {}
        spans: dict[str, np.ndarray] = {}
        saturated: dict[str, np.ndarray] = {}
        n = len(ts)
        for name, mask in present.items():
            if name not in RATED and (PART not in name or whole(name) not in RATED):
                continue
            spec = COUNTERS[whole(name)]
            idx = np.flatnonzero(mask)
            if not len(idx):
                continue
            V = values[name][idx]
            carry = self._carry.get(name)
            if carry is None:
                carry = self._carry[name] = _Carry(V.dtype.type)
            if carry.value.dtype != V.dtype:  # a float somewhere, or past 2**63: one exact type for both
                dtype = common_dtype(carry.value[carry.has], V)
                carry.value = carry.value.astype(dtype)
                V = V.astype(dtype)
            carry.grow(n_links)
            L, T = link[idx], ts[idx]
            same = np.zeros(len(idx), dtype=bool)
            same[1:] = L[1:] == L[:-1]
            first = ~same
            prev_v = np.empty_like(V)
            prev_v[1:] = V[:-1]
            prev_t = np.empty_like(T)
            prev_t[1:] = T[:-1]
            prev_v[first] = carry.value[L[first]]
            prev_t[first] = carry.ts[L[first]]
            ok = same | carry.has[L]
            dt = T - prev_t
            ok &= dt > 0
            gap = ok & (dt > (self.slow_gap_ns if name in OPTICS else self.max_gap_ns))
            self.stats.gaps += int(gap.sum())
            ok &= ~gap
            down = V < prev_v
            delta = V - prev_v  # uint64: modulo 2**64 where it went down
            rate = np.full(len(idx), np.nan)
            d = delta.astype(np.float64)
            # a row read from a spelling of its own width (an extended, 64-bit variant of a classic IB error
            # counter) wraps at that width and never saturates
            row_bits = None
            if widths and name in widths:
                w_idx = widths[name][idx].astype(np.int64)
                row_bits = np.where(w_idx > 0, w_idx, spec.bits)
            if spec.saturates:
                # ... and so does one read past its classic width's all-ones under the classic name (ibdiagnet's
                # PortCountersExtended)
                wide = (np.maximum(V, prev_v) > spec.max_value) & ok
                if wide.any():
                    row_bits = np.where(wide, 64, spec.bits if row_bits is None else row_bits)
                stops = np.ones(len(idx), dtype=bool) if row_bits is None else row_bits == spec.bits
                reset = ok & down & stops
                ok &= ~reset
                at_ceiling = ok & stops & (V >= spec.max_value)
                ok &= ~(at_ceiling & (prev_v >= spec.max_value))  # stuck there: no rate at all
                if at_ceiling.any():
                    sat = np.zeros(n, dtype=bool)
                    sat[idx[at_ceiling]] = True
                    saturated[name] = sat
                self.stats.resets += int(reset.sum())
            if line_bytes is not None and name in NARROW_OCTETS and row_bits is not None:
                # the link can fill it more than once between the two samples: no rate (`rates.RateEngine`)
                blind = ok & (row_bits <= 32) & (line_bytes[idx] * dt / 1e9 >= np.exp2(row_bits.astype(np.float64)))
                if blind.any():
                    ok &= ~blind
                    sat = saturated.get(name, np.zeros(n, dtype=bool))
                    sat[idx[blind]] = True
                    saturated[name] = sat
            # held at the all-ones of a narrow width: a counter that saturates where the vocabulary says it wraps
            # (the kernel's 32-bit PortXmitWait) has stopped counting, and says nothing of now
            bits_now = np.full(len(idx), spec.bits) if row_bits is None else row_bits
            held = ok & (V == prev_v) & (bits_now <= 32)
            if spec.saturates:
                held &= ~stops
            stuck = held & (V.astype(np.float64) == np.exp2(bits_now.astype(np.float64)) - 1)
            if stuck.any():
                ok &= ~stuck
                sat = saturated.get(name, np.zeros(n, dtype=bool))
                sat[idx[stuck]] = True
                saturated[name] = sat
            neg = ok & down
            if neg.any():
                neg_bits = np.full(int(neg.sum()), spec.bits) if row_bits is None else row_bits[neg]
                w = np.empty(len(neg_bits))
                for bits in np.unique(neg_bits).tolist():
                    of = neg_bits == bits
                    w[of] = self._wrapped(V[neg][of], prev_v[neg][of], int(bits))
                wrapped = (w >= 0) & (w < np.exp2(neg_bits.astype(np.float64) - 1))
                d[neg] = w
                reset_rows = np.flatnonzero(neg)[~wrapped]
                ok[reset_rows] = False
                self.stats.wraps += int(wrapped.sum())
                self.stats.resets += len(reset_rows)
            rate[ok] = d[ok] * 1e9 / dt[ok].astype(np.float64)
            col = np.full(n, np.nan)
            col[idx] = rate
            rates[name] = col
            span = np.zeros(n, dtype=np.int64)
            span[idx] = dt
            spans[name] = span
            last = np.ones(len(idx), dtype=bool)
            last[:-1] = L[1:] != L[:-1]
            carry.value[L[last]] = V[last]
            carry.ts[L[last]] = T[last]
            carry.has[L[last]] = True
        if any(PART in name for name in rates):
            _sum_parts(rates, spans, saturated)
        return ColumnResult(rates, spans, saturated)

    @staticmethod
    def _wrapped(value: np.ndarray, prev: np.ndarray, bits: int) -> np.ndarray:
        """value + 2**bits - prev, as the scalar engine computes it (exactly, for integers)."""
        if value.dtype == np.float64:
            return (value + float(1 << bits)) - prev
        if value.dtype == np.uint64:
            fall = prev - value  # exact: prev > value here
            if bits >= 64:
                return (value - prev).astype(np.float64)  # 2**64 - fall, modulo arithmetic
            room = np.uint64(1 << bits)
            return np.where(fall <= room, (room - np.minimum(fall, room)).astype(np.float64), -1.0)
        if bits >= 63:  # modulo 2**64 in unsigned arithmetic is the wrapped delta itself
            return (value.astype(np.uint64) - prev.astype(np.uint64)).astype(np.float64)
        return (value - prev + (1 << bits)).astype(np.float64)


def _sum_parts(rates: dict[str, np.ndarray], spans: dict[str, np.ndarray], saturated: dict[str, np.ndarray]) -> None:
    """Each part's rates summed into its whole's, as the scalar engine sums them: per row, the parts' counts over
    the newest span among those with a rate (NaN where none has one)."""
    counts: dict[str, np.ndarray] = {}
    newest: dict[str, np.ndarray] = {}
    for name in sorted(n for n in rates if PART in n):
        to = whole(name)
        rate, span = rates.pop(name), spans.pop(name)
        has = ~np.isnan(rate)
        counts[to] = counts.get(to, 0.0) + np.where(has, rate * span, 0.0)
        newest[to] = np.minimum(newest.get(to, _NO_SPAN), np.where(has, span, _NO_SPAN))
        if name in saturated:
            saturated[to] = saturated.pop(name) | saturated.get(to, False)
    for to, count in counts.items():
        has = newest[to] < _NO_SPAN
        rate = np.where(has, count / np.where(has, newest[to], 1), np.nan)
        span = np.where(has, newest[to], 0)
        if to in rates:  # rows that carry the whole itself
            rate, span = np.where(has, rate, rates[to]), np.where(has, span, spans[to])
        rates[to], spans[to] = rate, span


_NO_SPAN = np.iinfo(np.int64).max
