"""What share of their packets healthy links dropped at each load: the tails of congestion.

A queue that fills drops at its tail, the more the busier it runs, on whichever link the traffic piles
on. Links that share a situation (the links the fabric spreads one traffic over, else a switch's ports of
one role) and dropped a share of their packets at some load will drop it there again, and at any higher
load; below BUSY_PCT no queue fills and nothing is learned. What a situation is allowed is what two or
more of its links reached: one link dropping in training may have been a fault of its own. Another
situation's tails allow nothing (a storage leaf's uplinks dropping percents at each checkpoint say
nothing of a GPU leaf's), and each discard counter has its own (a queue's tail drops excuse no ingress
discards)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fabricwatch.core.counters import EVIDENCE, Evidence
from fabricwatch.models.class_model import LOAD_BIN_PCT, N_BINS

MIN_LINKS = 2  # links of a situation that dropped that share: one alone may have been a fault
# % of line rate: below it no queue fills from the link's own load, and a few drops (control-plane packets, a
# trickle at any load) are a large share of few packets, no tail
BUSY_PCT = 20.0


class DropShares:
    """Per situation, link, discard counter and load bin, the largest share of its packets one interval
    dropped; only intervals that dropped are kept (a healthy fabric keeps almost nothing)."""

    def __init__(self, names: Sequence[str]) -> None:
        self._names = list(names)
        self._columns = np.array([j for j, n in enumerate(self._names) if EVIDENCE.get(n) is Evidence.DISCARD],
                                 dtype=np.int64)
        self._peaks: dict[tuple[str, int, int, int], float] = {}  # (situation, link id, column, bin) -> share

    def add(self, ids: np.ndarray, situations: np.ndarray, counts: np.ndarray, packets: np.ndarray,
            util_pct: np.ndarray) -> None:
        """One block of link-intervals: link ids, the situation each shares (`features.situations`), evidence
        counts (columns as `names`), packets moved and utilisation in the interval."""
        if not len(self._columns):
            return
        drops = np.nan_to_num(counts[:, self._columns])
        busy = (packets > 0) & (np.nan_to_num(util_pct) >= BUSY_PCT)
        rows, cols = np.nonzero((drops >= 0.5) & busy[:, None])
        if not len(rows):
            return
        bins = np.minimum(np.nan_to_num(util_pct[rows]) // LOAD_BIN_PCT, N_BINS - 1).astype(np.int64)
        for r, c, b in zip(rows.tolist(), cols.tolist(), bins.tolist(), strict=True):
            key = (str(situations[r]), int(ids[r]), int(self._columns[c]), b)
            share = float(drops[r, c] / packets[r])
            if share > self._peaks.get(key, 0.0):
                self._peaks[key] = share

    def result(self) -> dict[str, dict[str, list[float]]]:
        """Per situation, per discard counter that two or more of its links counted: per load bin, the share
        the second worst of them dropped at that load or less (more load never means a smaller share)."""
        per_link: dict[tuple[str, int, int], np.ndarray] = {}
        for (where, link, col, b), share in self._peaks.items():
            row = per_link.setdefault((where, col, link), np.zeros(N_BINS))
            row[b] = max(row[b], share)
        by: dict[tuple[str, int], list[np.ndarray]] = {}
        for (where, col, _), row in per_link.items():
            by.setdefault((where, col), []).append(np.maximum.accumulate(row))
        out: dict[str, dict[str, list[float]]] = {}
        for (where, col), rows in sorted(by.items()):
            if len(rows) < MIN_LINKS:
                continue
            tail = -np.sort(-np.array(rows), axis=0)[MIN_LINKS - 1]
            if tail.any():
                out.setdefault(where, {})[self._names[col]] = [float(f"{v:.4g}") for v in tail]
        return out
