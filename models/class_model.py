"""The forest of one port class and what healthy links of the class showed: thresholds from a
false-alarm budget on held-out healthy data, and the ceilings each load-driven feature stayed under."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from fabricwatch.models.features import EVENT_FEATURES, N_OWN, OWN_NAMES, grown

if TYPE_CHECKING:
    from sklearn.ensemble import IsolationForest


# features that do not follow load (corruption, recoveries, flaps): no load-matched allowance
_LOAD_FREE = list(EVENT_FEATURES)
MIN_CLASS_ROWS = 50
TRAIN_NOISE = 0.1  # in log1p units
MIN_PEER_LIMIT = 0.7  # log1p units: never flag a feature for being under 2x its peers
UTIL = OWN_NAMES.index("util_pct")
PEER_MARGIN = 1.2  # over the budget quantile of held-out healthy deviations


@dataclass
class ClassModel:
    forest: IsolationForest
    threshold: float  # forest anomaly score (higher = stranger) above which an interval counts
    train_rows: int
    holdout_rows: int
    # per own feature: the deviation from load-matched peers (log units) that held-out healthy
    # intervals exceed at the false-alarm budget; catches one feature far off when the forest,
    # which splits on one random feature at a time, scores it only moderately
    peer_limits: np.ndarray | None = None
    # (load bin, own feature): the most a healthy link of the class showed at that utilisation in
    # training (a high quantile, with margin): what "worse than expected at its load" is measured by
    ceilings: np.ndarray | None = None
    # per link seen in training: the most it showed of each load-driven feature, with margin (a
    # storage port's checkpoint drops, a slow receiver's pauses: that link's healthy, not its class's)
    link_ceilings: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    # (false-alarm rate, forest threshold, peer limits) on a grid of rates, from the held-out
    # history: a budget set later (`[detector] false_alarms_per_day`) picks its thresholds here
    by_rate: list[tuple[float, float, np.ndarray]] = field(default_factory=list)
    # per discard counter, per load bin: the share of their packets the class's healthy links dropped at
    # their queues' tails at that load (`drop_shares.DropShares`)
    drop_shares: dict[str, list[float]] = field(default_factory=dict)

    def ceiling(self, util_pct: float, k: int, link: tuple[str, str] | None = None) -> float:
        mine = self.link_ceiling(util_pct, k, link)
        if self.ceilings is None:
            return mine
        b = min(load_bin(util_pct), len(self.ceilings) - 1)
        return max(float(self.ceilings[b, k]), mine)

    def drop_share(self, name: str, util_pct: float) -> float:
        """The share of its packets a healthy link of the class drops at its queue's tail on discard counter
        `name` at this load (`drop_shares.DropShares`); 0 where none was seen."""
        tail = self.drop_shares.get(name)
        return float(tail[min(load_bin(util_pct), len(tail) - 1)]) if tail else 0.0

    def link_ceiling(self, util_pct: float, k: int, link: tuple[str, str] | None) -> float:
        """What this link showed in training at most, or in proportion to its load; 0 if unknown."""
        own = self.link_ceilings.get(link) if link is not None else None
        if own is None:
            return 0.0
        # a link carries at most its line rate: more is a counter glitch, not more allowance
        per_load = float(own[N_OWN + k]) * min(max(util_pct, 1.0), 100.0) if len(own) > N_OWN else 0.0
        return max(float(own[k]), per_load)

    def to_json(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "train_rows": self.train_rows, "holdout_rows": self.holdout_rows,
                "peer_limits": None if self.peer_limits is None else self.peer_limits.tolist(),
                "ceilings": None if self.ceilings is None else self.ceilings.tolist(),
                "link_ceilings": [[d, p, [float(f"{v:.4g}") for v in row]]
                                  for (d, p), row in sorted(self.link_ceilings.items())],
                "by_rate": [[r, t, lim.tolist()] for r, t, lim in self.by_rate],
                "drop_shares": self.drop_shares}

    @classmethod
    def from_json(cls, forest: IsolationForest, info: dict[str, Any]) -> ClassModel:
        return cls(forest, info["threshold"], info["train_rows"], info["holdout_rows"],
                   None if info.get("peer_limits") is None else np.array(info["peer_limits"]),
                   None if info.get("ceilings") is None else np.array(info["ceilings"]),
                   {(str(d), str(p)): np.array(row, dtype=np.float64) for d, p, row in info.get("link_ceilings") or []},
                   [(float(r), float(t), np.array(lim, dtype=np.float64)) for r, t, lim in info.get("by_rate") or []],
                   {str(n): [float(v) for v in tail] for n, tail in (info.get("drop_shares") or {}).items()})

    def combined(self, forest_scores: np.ndarray, X: np.ndarray) -> np.ndarray:
        """max(forest score / its threshold, worst peer deviation / its limit): > 1 is anomalous."""
        ratio = forest_scores / self.threshold
        if self.peer_limits is not None:
            peer = np.abs(X[:, N_OWN : 2 * N_OWN]) / self.peer_limits
            ratio = np.maximum(ratio, peer.max(axis=1))
        return ratio


LOAD_BIN_PCT = 10.0  # utilisation bins of the healthy ceilings
N_BINS = int(100 // LOAD_BIN_PCT) + 1


def load_bin(util_pct: float) -> int:
    return min(int(max(util_pct, 0.0) // LOAD_BIN_PCT), N_BINS - 1)


def load_bins(util_pct: np.ndarray) -> np.ndarray:
    """`load_bin` of each value (NaN: unknown, the lowest bin)."""
    return np.minimum(np.maximum(np.nan_to_num(util_pct), 0.0) // LOAD_BIN_PCT, N_BINS - 1).astype(np.int64)


CEILING_QUANTILE = 0.999
CEILING_MARGIN = 1.5
MIN_BIN_ROWS = 50


LINK_CEILING_MARGIN = 1.5
PER_LOAD_MIN_UTIL = 20.0


def _link_ceilings(keys: list[tuple[str, str]], own: np.ndarray) -> dict[tuple[str, str], np.ndarray]:
    """Per link, the most of each load-driven feature it showed in training, and the most per percent
    of utilisation (a slow receiver pauses in proportion to what it receives), each times a margin:
    2 x N_OWN values. Load-free features (errors, flaps) get none: a stray error in training must not
    hide a dirty optic later."""
    values = np.nan_to_num(np.maximum(own, 0.0))
    values[:, _LOAD_FREE] = 0.0
    # per percent of load only from busy intervals: a few pauses at 1 % must not extrapolate upwards
    util = values[:, [UTIL]]
    per_load = np.where(util >= PER_LOAD_MIN_UTIL, values / np.maximum(util, 1.0), 0.0)
    per_load[:, UTIL] = 0.0
    both = np.hstack([values, per_load])
    peaks: dict[tuple[str, str], np.ndarray] = {}
    for key, row in zip(keys, both, strict=True):
        have = peaks.get(key)
        peaks[key] = row.copy() if have is None else np.maximum(have, row)
    return {k: v * LINK_CEILING_MARGIN for k, v in peaks.items() if v.any()}


def _ceilings(own: np.ndarray) -> np.ndarray:
    """Per 10 % utilisation bin, the healthy ceiling of every own feature: the class's 99.9th
    percentile there, times a margin. A bin with too few rows takes the next busier bin's (more
    load never means less pausing), and every bin at least the ones below it."""
    n_bins = N_BINS
    bins = load_bins(own[:, OWN_NAMES.index("util_pct")])
    values = np.nan_to_num(own)
    overall = np.quantile(values, CEILING_QUANTILE, axis=0) * CEILING_MARGIN
    out = np.tile(overall, (n_bins, 1))
    have = np.zeros(n_bins, dtype=bool)
    for b in range(n_bins):
        rows = values[bins == b]
        if len(rows) >= MIN_BIN_ROWS:
            out[b] = np.quantile(rows, CEILING_QUANTILE, axis=0) * CEILING_MARGIN
            have[b] = True
    for b in range(n_bins - 2, -1, -1):  # sparse bins borrow from busier ones
        if not have[b]:
            out[b] = out[b + 1]
    return np.maximum.accumulate(out, axis=0)


RATE_GRID = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7)
MIN_RATE, MAX_RATE = RATE_GRID[-1], RATE_GRID[0]


def _thresholds(hold_scores: np.ndarray, peer_hold: np.ndarray, rate: float) -> tuple[float, np.ndarray]:
    """The forest score and the per-feature peer deviations that held-out healthy intervals exceed
    at `rate` (a share of link-intervals)."""
    q = 1.0 - rate
    threshold = float(np.quantile(hold_scores, q, method="higher"))
    limits = np.maximum(np.quantile(peer_hold, q, axis=0, method="higher") * PEER_MARGIN, MIN_PEER_LIMIT)
    return threshold, limits


def budget_rate(per_day: float, links: int, interval_s: float) -> float:
    """A fabric-wide budget of false alarms per day as a share of link-intervals: the budget over
    the link-intervals of a day, clamped to what a held-out history can resolve."""
    per_day_intervals = max(links, 1) * 86400.0 / interval_s
    return min(max(per_day / per_day_intervals, MIN_RATE), MAX_RATE)


SAMPLE_ROWS = 100_000  # link-interval rows a class keeps for its forest and ceilings (a uniform sample beyond)


class ClassSample:
    """A uniform sample of at most `cap` rows of one class (the rows of the smallest random priorities, so
    the sample of any part of the history is uniform too); every row while the history is under `cap`.
    Each row: its interval's start, its link's id, its features X and its own raw values."""

    def __init__(self, cap: int, seed: int) -> None:
        self.cap = cap
        self.seen = 0
        self._rng = np.random.default_rng(seed)
        self._parts: list[tuple[np.ndarray, ...]] = []  # (prio, start, link, X, own) blocks, merged when large
        self._size = 0
        self._kth = np.inf  # the largest priority kept once full: rows above it cannot enter

    def add(self, start_ns: int, ids: np.ndarray, X: np.ndarray, own: np.ndarray) -> None:
        m = len(ids)
        self.seen += m
        prio = self._rng.random(m)
        keep = prio < self._kth
        if not keep.all():
            prio, ids, X, own = prio[keep], ids[keep], X[keep], own[keep]
        if not len(prio):
            return
        self._parts.append((prio, np.full(len(prio), start_ns, dtype=np.int64), ids.astype(np.int64),
                            X.astype(np.float64), own.astype(np.float64)))
        self._size += len(prio)
        if self._size > self.cap + max(self.cap // 4, 1):
            self._merge()

    def _merge(self) -> None:
        cols = [np.concatenate(c) for c in zip(*self._parts, strict=True)]
        if len(cols[0]) > self.cap:
            top = np.argpartition(cols[0], self.cap - 1)[: self.cap]
            cols = [c[top] for c in cols]
            self._kth = float(cols[0].max())
        self._parts = [tuple(cols)]
        self._size = len(cols[0])

    def rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(start, link id, X, own) of the sampled rows, in no particular order."""
        if not self._parts:
            return (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 0)), np.zeros((0, 0)))
        self._merge()
        _, start, ids, X, own = self._parts[0]
        return start, ids, X, own


def higher_index(n: int, q: float) -> int:
    """The index of np.quantile(a, q, method="higher") in `a` sorted (n values)."""
    return int(np.ceil((n - 1) * q))


class Tail:
    """The `k` largest values of each column seen, and how many rows: np.quantile(..., method="higher") at
    any q with (n - 1 - higher_index(n, q)) < k, exactly, without keeping every row."""

    def __init__(self, k: int, columns: int) -> None:
        self.k = max(k, 1)
        self.n = 0
        self._top = np.zeros((0, columns))
        self._pending: list[np.ndarray] = []
        self._pending_rows = 0

    def add(self, rows: np.ndarray) -> None:
        self.n += len(rows)
        self._pending.append(rows)
        self._pending_rows += len(rows)
        if self._pending_rows > self.k + 65_536:
            self._fold()

    def _fold(self) -> None:
        a = np.vstack([self._top, *self._pending])
        if len(a) > self.k:
            a = -np.partition(-a, self.k - 1, axis=0)[: self.k]
        self._top = a
        self._pending, self._pending_rows = [], 0

    def quantile(self, q: float) -> np.ndarray:
        self._fold()
        rank = self.n - 1 - higher_index(self.n, q)  # 0: the largest
        if not 0 <= rank < len(self._top):
            raise ValueError(f"quantile {q} of {self.n} rows is not among the {len(self._top)} kept")
        return -np.sort(-self._top, axis=0)[rank]


def tail_thresholds(tail: Tail, rate: float) -> tuple[float, np.ndarray]:
    """`_thresholds` from a Tail of (score, |peer deviation| per own feature) rows of held-out data."""
    q = tail.quantile(1.0 - rate)
    return float(q[0]), np.maximum(q[1:] * PEER_MARGIN, MIN_PEER_LIMIT)


class LinkPeaks:
    """`_link_ceilings` over a stream: per link id, the most of each value and per-load value seen."""

    def __init__(self) -> None:
        self._peaks = np.zeros((0, 2 * N_OWN))
        self._seen = np.zeros(0, dtype=bool)

    def add(self, ids: np.ndarray, own: np.ndarray) -> None:
        values = np.nan_to_num(np.maximum(own, 0.0))
        values[:, _LOAD_FREE] = 0.0
        util = values[:, [UTIL]]
        per_load = np.where(util >= PER_LOAD_MIN_UTIL, values / np.maximum(util, 1.0), 0.0)
        per_load[:, UTIL] = 0.0
        both = np.hstack([values, per_load])
        top = int(ids.max()) + 1 if len(ids) else 0
        self._peaks, self._seen = grown(self._peaks, top), grown(self._seen, top)
        # values are >= 0, so a peak starting at 0 is the max over the rows seen
        np.maximum.at(self._peaks, ids, both)
        self._seen[ids] = True

    def result(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], np.ndarray]:
        return {keys[i]: self._peaks[i] * LINK_CEILING_MARGIN for i in np.nonzero(self._seen)[0].tolist()
                if self._peaks[i].any()}
