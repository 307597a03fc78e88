"""What the isolation forest sees that the per-feature limits do not, at the model's own thresholds.

The model path raises a link-interval when max(forest score / its threshold, worst peer deviation / its
limit) > 1 (`ClassModel.combined`). This splits that in two on labelled fabrics: per fault kind, the share
of the faulty link-intervals over the forest's threshold, over a per-feature limit, over the forest's only
(what the forest adds), and the same shares of healthy link-intervals (link-intervals of no fault and not
related to one: what each costs in false alarms). A forest earns its place where "forest only" is high on
faults and low on healthy links.

    python bench/forest_separation.py DIR [DIR ...]

Each DIR holds port_counters.lp and labels.json in the scenario bank's format (a fabric of bench/fabrics/
written with `SCRIPT DIR --seed N`, or a scenario of the bank).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fabricwatch.core.config_types import parse_duration
from fabricwatch.detection.detector import LinkDetector
from fabricwatch.detection.replay import intervals_from_lp
from fabricwatch.models.features import N_OWN, FeatureBuilder, FeatureFrame

GRACE_INTERVALS = 3  # a related link's side effects and a fault's tail are neither fault nor healthy


def _kind_of(labels: dict, start_ns: int, device: str, port: str, interval_ns: float) -> str | None:
    """The fault kind this link-interval belongs to, "" if it is near one (related, its tail), None if healthy."""
    near = False
    for f in labels["faults"]:
        if not f["start_ns"] - interval_ns <= start_ns <= f["end_ns"] + GRACE_INTERVALS * interval_ns:
            continue
        inside = f["start_ns"] <= start_ns <= f["end_ns"]
        ends = [{"device": f["device"], "ports": f["ports"]}] + [
            {"device": e["device"], "ports": [e["port"]]} for e in f.get("peer_ends", [])]
        if any(e["device"] == device and (e["ports"] == ["*"] or port in e["ports"]) for e in ends):
            if inside:
                return str(f["kind"])
            near = True
        if any(r["device"] == device and (r["ports"] == ["*"] or port in r["ports"]) for r in f.get("related", [])):
            near = True
    return "" if near else None


def separation(d: Path) -> dict[str, np.ndarray]:
    """{kind or "healthy": (forest over, limit over, forest only, rows)} over the fabric's scored part."""
    labels = json.loads((d / "labels.json").read_text())
    interval_s = float(labels.get("interval_s", 30))
    intervals = list(intervals_from_lp([str(d / "port_counters.lp")], interval_s))
    cut = intervals[0][0] + parse_duration(labels["fit_first"]) * 1e9
    fb = FeatureBuilder(interval_s)
    frames: list[FeatureFrame] = [fb.build(s, links) for s, links in intervals]
    det = LinkDetector(interval_s=interval_s).fit([f for f in frames if f.start_ns < cut])
    counts: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(4))
    for frame in frames:
        if frame.start_ns < cut:
            continue
        for c, m in det.models.items():
            rows = np.nonzero(np.array(frame.classes) == c)[0]
            if not len(rows):
                continue
            X = frame.X[rows]
            forest = -m.forest.score_samples(X) / m.threshold > 1.0
            limit = (np.abs(X[:, N_OWN:2 * N_OWN]) / m.peer_limits).max(axis=1) > 1.0 \
                if m.peer_limits is not None else np.zeros(len(rows), dtype=bool)
            for k, i in enumerate(rows.tolist()):
                li = frame.links[i]
                kind = _kind_of(labels, frame.start_ns, li.device, li.port, interval_s * 1e9)
                if kind == "":
                    continue
                counts[kind or "healthy"] += (forest[k], limit[k], forest[k] and not limit[k], 1)
    return dict(counts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+", type=Path)
    args = ap.parse_args()
    for d in args.dirs:
        print(f"{d.name}: share of link-intervals over each threshold")
        print(f"  {'':34s} {'forest':>8s} {'limits':>8s} {'forest only':>12s} {'rows':>9s}")
        result = separation(d)
        for kind in sorted(result, key=lambda k: (k == "healthy", k)):
            f, lim, only, n = result[kind]
            print(f"  {kind:34s} {f / n:8.4f} {lim / n:8.4f} {only / n:12.5f} {int(n):9,d}")
        h = result.get("healthy")
        faults = [v for k, v in result.items() if k != "healthy"]
        if h is not None and faults:
            gain = sum(v[2] for v in faults) / max(sum(v[3] for v in faults), 1)
            cost = h[2] / max(h[3], 1)
            # what the forest adds on faults against what it adds on healthy links, per link-interval
            print(f"  forest only: {gain:.4f} of faulty link-intervals, {cost:.5f} of healthy ones "
                  f"(ratio {gain / cost if cost else float('inf'):,.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
