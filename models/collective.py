"""Collective variance: which NCCL runs depart from their repeats, from themselves, or scale badly.

Identical runs should give the same bus bandwidth. Per (collective, ranks) group:
- a **baseline** per message size: the median busbw over the group's runs;
- **run-to-run**: each run's median ratio to the baseline over the large-message plateau, scored
  robustly (median / MAD over the runs) — one run 15 % slower stands out even among few repeats;
- **within a run**: a row far below its neighbouring sizes or its in-place twin is a transient
  stall (a link pausing, a retransmit storm) — the row is named;
- an **isolation forest** over the runs' normalised curves when there are enough runs (>= 8)
  to learn what normal variation looks like;
- **scaling**: the plateau of a run on more nodes against runs of the same collective on fewer
  (but at least two) nodes.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fabricwatch.core.nccl_records import Row, RunRecord

PLATEAU_FRACTION = 0.25  # sizes >= this fraction of the largest are the large-message plateau


@dataclass(frozen=True)
class VarianceConfig:
    slow_ratio: float = 0.93  # a run whose plateau is below this share of the baseline is slow...
    robust_z: float = 3.5  # ...and this many robust deviations away from its repeats
    stall_ratio: float = 0.6  # a row below this share of its neighbours / twin is a stall
    scaling_ratio: float = 0.9  # a bigger run's plateau below this share of smaller runs'
    forest_min_runs: int = 8


@dataclass
class RunFinding:
    source: str
    kind: str  # slow_run, stall, forest, scaling, incomplete
    detail: str
    size: int | None = None
    value: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class GroupReport:
    collective: str
    nranks: int | None  # None: the runs did not list their ranks
    runs: list[str]
    baseline: dict[int, float]
    cv_pct: dict[int, float]
    run_ratio: dict[str, float]
    findings: list[RunFinding] = field(default_factory=list)

    def flagged(self) -> set[str]:
        return {f.source for f in self.findings}

    def to_json(self) -> dict[str, Any]:
        return {
            "collective": self.collective, "nranks": self.nranks, "runs": self.runs,
            "baseline_busbw": {str(k): round(v, 3) for k, v in self.baseline.items()},
            "cv_pct": {str(k): round(v, 2) for k, v in self.cv_pct.items()},
            "run_plateau_ratio": {k: round(v, 4) for k, v in self.run_ratio.items()},
            "findings": [f.to_json() for f in self.findings],
        }


def _bw(row: Row) -> float | None:
    m = row.out_of_place or row.in_place
    return m.busbw if m is not None else None


def _median(values: list[float]) -> float:
    """np.median's answer for a few finite floats, without its per-call cost (called per size and run)."""
    return float(values[0]) if len(values) == 1 else float(statistics.median(values))


def busbw_curve(run: RunRecord) -> dict[int, float]:
    """busbw per size; with -N repeated sweeps, the median over sweeps."""
    values: dict[int, list[float]] = defaultdict(list)
    for row in run.rows:
        bw = _bw(row)
        if bw is not None:
            values[row.size].append(bw)
    return {s: _median(v) for s, v in values.items()}


def _stalls(run: RunRecord, cfg: VarianceConfig) -> list[RunFinding]:
    out = []
    for sweep in sorted({r.sweep for r in run.rows}):
        rows = [r for r in run.rows if r.sweep == sweep and _bw(r) is not None]
        for i, row in enumerate(rows):
            bw = _bw(row) or 0.0
            neighbours = [_bw(r) or 0.0 for r in rows[max(0, i - 1) : i] + rows[i + 1 : i + 2]]
            # bandwidth grows with size: compare with the smaller and larger neighbour's mean
            if neighbours and min(neighbours) > 0.5 and bw < cfg.stall_ratio * min(neighbours):
                out.append(RunFinding(run.source, "stall", f"size {row.size}: busbw {bw:g} GB/s, its neighbours "
                                      f"{'/'.join(f'{n:g}' for n in neighbours)}", row.size, bw))
                continue
            o, p = row.out_of_place, row.in_place
            if o and p and o.busbw and p.busbw and max(o.busbw, p.busbw) > 0.5:
                low, high = sorted((o.busbw, p.busbw))
                if low < cfg.stall_ratio * high:
                    out.append(RunFinding(run.source, "stall", f"size {row.size}: out-of-place {o.busbw:g} vs "
                                          f"in-place {p.busbw:g} GB/s", row.size, low))
    return out


def analyse(runs: list[RunRecord], cfg: VarianceConfig = VarianceConfig()) -> list[GroupReport]:
    groups: dict[tuple[str, int | None], list[RunRecord]] = defaultdict(list)
    for r in runs:
        if r.collective and r.rows:
            groups[(r.collective, r.nranks)].append(r)
    reports = []
    for (coll, n), rs in sorted(groups.items()):
        curves = {r.source: busbw_curve(r) for r in rs}
        sizes = sorted({s for c in curves.values() for s in c})
        baseline = {s: _median([c[s] for c in curves.values() if s in c]) for s in sizes}
        cv = {}
        for s in sizes:
            vals = [c[s] for c in curves.values() if s in c]
            if len(vals) > 1 and np.mean(vals) > 0:
                cv[s] = float(np.std(vals, ddof=1) / np.mean(vals) * 100)
        plateau = [s for s in sizes if s >= max(sizes) * PLATEAU_FRACTION]
        ratio = {}
        for src, c in curves.items():
            rs_ = [c[s] / baseline[s] for s in plateau if s in c and baseline[s] > 0]
            ratio[src] = float(np.median(rs_)) if rs_ else float("nan")
        rep = GroupReport(coll, n, [r.source for r in rs], baseline, cv, ratio)
        values = np.array([v for v in ratio.values() if not math.isnan(v)])
        if len(values) >= 3:
            med = float(np.median(values))
            mad = float(np.median(np.abs(values - med))) * 1.4826
            for src, v in ratio.items():
                z = (med - v) / max(mad, 0.005)  # repeats within 0.5 % are as good as identical
                if v < cfg.slow_ratio * med and z > cfg.robust_z:
                    rep.findings.append(RunFinding(src, "slow_run", f"large-message busbw at {v / med:.0%} of its "
                                                   f"repeats ({z:.1f} robust deviations)", value=v))
        for r in rs:
            rep.findings += _stalls(r, cfg)
            if not r.complete:
                rep.findings.append(RunFinding(r.source, "incomplete", "the run stopped before its footer"))
        if len(rs) >= cfg.forest_min_runs:
            X = np.array([[curves[r.source].get(s, 0.0) / baseline[s] if baseline[s] else 1.0 for s in sizes]
                          for r in rs])
            from sklearn.ensemble import IsolationForest  # here: a daemon that never judges repeats never loads it

            forest = IsolationForest(n_estimators=200, random_state=7).fit(X)
            scores = -forest.score_samples(X)
            cut = float(np.median(scores) + 3 * np.median(np.abs(scores - np.median(scores))) * 1.4826)
            for r, sc in zip(rs, scores, strict=True):
                if sc > cut and sc > 0.6:
                    rep.findings.append(RunFinding(r.source, "forest", f"its busbw curve is unlike its repeats' "
                                                   f"(isolation score {sc:.2f})", value=float(sc)))
        reports.append(rep)
    _scaling(reports, runs, cfg)
    return reports


def _scaling(reports: list[GroupReport], runs: list[RunRecord], cfg: VarianceConfig) -> None:
    by_coll: dict[str, list[RunRecord]] = defaultdict(list)
    for r in runs:
        if r.collective and r.rows and len(r.hosts) >= 2:
            by_coll[r.collective].append(r)
    for coll, rs in by_coll.items():
        plateaus = [_plateau(r) for r in rs]
        for r, mine in zip(rs, plateaus, strict=True):
            smaller = [p for o, p in zip(rs, plateaus, strict=True) if len(o.hosts) < len(r.hosts)]
            if not smaller:
                continue
            theirs = float(np.median(smaller))
            if theirs > 0 and mine < cfg.scaling_ratio * theirs:
                rep = next((g for g in reports if g.collective == coll and r.source in g.runs), None)
                if rep is not None:
                    rep.findings.append(RunFinding(
                        r.source, "scaling", f"{len(r.hosts)} nodes reach {mine:g} GB/s where runs on fewer nodes "
                        f"reach {theirs:g} ({mine / theirs:.0%}): it scales worse than it should", value=mine))


def _plateau(run: RunRecord) -> float:
    c = busbw_curve(run)
    if not c:
        return 0.0
    top = max(c)
    return _median([v for s, v in c.items() if s >= top * PLATEAU_FRACTION])
