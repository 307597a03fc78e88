"""What share of their packets a class's healthy links dropped at each load: the tails of congestion.

A queue that fills drops at its tail, the more the busier it runs, on whichever link the traffic piles
on (the hottest member of an ECMP group). A class whose healthy links dropped a share of their packets at
some load, each while most of the links sharing its situation did not, will drop it there again, and at
any higher load. Drops most of a situation's links show at once (a storage leaf's uplinks at each
checkpoint) are that situation's load, judged as a crowd when they come, and no tail of the class; below
BUSY_PCT no queue fills and nothing is learned. What a class is allowed is what two or more of its links
reached: one link dropping in training may have been a fault of its own. Each discard counter has its own
tails (a queue's tail drops excuse no ingress discards)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fabricwatch.core.counters import EVIDENCE, Evidence
from fabricwatch.models.class_model import N_BINS, load_bins

MIN_LINKS = 2  # links of the class that dropped that share: one alone may have been a fault
CROWD_SHARE = 0.5  # of a situation's links dropping at once: their load, no link's tail
# % of line rate: below it no queue fills from the link's own load, and a few drops (control-plane packets, a
# trickle at any load) are a large share of few packets, no tail
BUSY_PCT = 20.0


class DropShares:
    """Per link, discard counter and load bin, the largest share of its packets one interval dropped alone
    in its situation; only intervals that dropped are kept (a healthy fabric keeps almost nothing)."""

    def __init__(self, names: Sequence[str]) -> None:
        self._names = list(names)
        self._columns = np.array([j for j, n in enumerate(self._names) if EVIDENCE.get(n) is Evidence.DISCARD],
                                 dtype=np.int64)
        self._peaks: dict[tuple[int, int, int], float] = {}  # (link id, column, bin) -> share

    def add(self, ids: np.ndarray, situations: np.ndarray, counts: np.ndarray, packets: np.ndarray,
            util_pct: np.ndarray) -> None:
        """One block of link-intervals: link ids, the number of the situation each shares (`features.situations`),
        evidence counts (columns as `names`), packets moved and utilisation in the interval."""
        if not len(self._columns):
            return
        drops = np.nan_to_num(counts[:, self._columns])
        dropped = drops >= 0.5
        busy = (packets > 0) & (np.nan_to_num(util_pct) >= BUSY_PCT)
        if not (dropped & busy[:, None]).any():
            return
        size = np.bincount(situations)
        crowd = np.zeros(dropped.shape, dtype=bool)
        for c in np.nonzero(dropped.any(axis=0))[0].tolist():
            together = np.bincount(situations, weights=dropped[:, c], minlength=len(size))
            crowd[:, c] = together[situations] >= CROWD_SHARE * size[situations]
        rows, cols = np.nonzero(dropped & busy[:, None] & ~crowd)
        if not len(rows):
            return
        bins = load_bins(util_pct[rows])
        for r, c, b in zip(rows.tolist(), cols.tolist(), bins.tolist(), strict=True):
            key = (int(ids[r]), int(self._columns[c]), b)
            share = float(drops[r, c] / packets[r])
            if share > self._peaks.get(key, 0.0):
                self._peaks[key] = share

    def result(self) -> dict[str, list[float]]:
        """Per discard counter that two or more links counted: per load bin, the share the second worst of
        them dropped at that load or less (more load never means a smaller share dropped)."""
        per_link: dict[tuple[int, int], np.ndarray] = {}
        for (link, col, b), share in self._peaks.items():
            row = per_link.setdefault((col, link), np.zeros(N_BINS))
            row[b] = max(row[b], share)
        out: dict[str, list[float]] = {}
        for col in sorted({c for c, _ in per_link}):
            rows = np.array([np.maximum.accumulate(r) for (c, _), r in per_link.items() if c == col])
            if len(rows) < MIN_LINKS:
                continue
            tail = -np.sort(-rows, axis=0)[MIN_LINKS - 1]
            if tail.any():
                out[self._names[col]] = [float(f"{v:.4g}") for v in tail]
        return out
