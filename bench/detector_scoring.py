"""Scoring speed: the link detector on 100k links against bare IsolationForest.score_samples.

The same feature matrix is scored twice: by `LinkDetector.score` (forest per class plus the
peer-deviation limits) and by calling each class's forest's `score_samples` directly, which is
the floor. `detect` (hysteresis, rules, explanations of flagged links) is timed too. Prints the
ratios; targets: score overhead <= 1.5x, the whole interval <= 3 CPU-seconds.

    python bench/detector_scoring.py [--links 100000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder, FeatureFrame
from fabricwatch.simulator.topology import FabricSpec

TARGET = 1.5
INTERVAL_LIMIT_S = 3.0  # CPU-seconds one interval of 100k links may take on one core


def best_of(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--links", type=int, default=100_000)
    args = ap.parse_args()
    spec = FabricSpec(nodes=64, rails=4, leaves_per_rail=2, spines=4)
    run = simulate(spec, 60, interval_s=30.0, seed=1)
    fb = FeatureBuilder(30.0)
    frames = [fb.build(s, links) for s, links in run.frames]
    det = LinkDetector(interval_s=30.0).fit(frames)
    # one interval of a 100k-link fabric: the last frame's links repeated, as distinct links
    base = frames[-1]
    reps = -(-args.links // len(base.links))
    links = []
    for r in range(reps):
        for li in base.links:
            links.append(type(li)(li.start_ns, f"{li.device}#{r}", li.port, li.tags, li.rates))
    links = links[: args.links]
    frame = fb.build(base.start_ns, links)
    n = len(frame.links)
    cls = np.array(frame.classes)
    per_class = {c: np.nonzero(cls == c)[0] for c in det.models}

    def bare() -> None:
        for c, m in det.models.items():
            m.forest.score_samples(frame.X[per_class[c]])

    t_bare = best_of(bare)
    t_score = best_of(lambda: det.score(frame))
    det.reset()
    t_detect = best_of(lambda: det.detect(frame))
    t_features = best_of(lambda: FeatureBuilder(30.0).build(base.start_ns, links), repeat=1)
    print(f"{n:,} links, {len(det.models)} classes, {det.n_estimators} trees")
    print(f"bare IsolationForest.score_samples  {t_bare:6.2f} cpu-s  ({n / t_bare:,.0f} links/s)")
    print(f"LinkDetector.score                   {t_score:6.2f} cpu-s  ratio {t_score / t_bare:.2f} "
          f"(target <= {TARGET})")
    print(f"LinkDetector.detect (+hysteresis, rules, explanations) {t_detect:6.2f} cpu-s  "
          f"ratio {t_detect / t_bare:.2f}")
    print(f"FeatureBuilder.build                 {t_features:6.2f} cpu-s  ratio {t_features / t_bare:.2f}")
    whole = t_features + t_detect
    print(f"whole interval (features, groups, forest, hysteresis, rules, explanations) {whole:6.2f} cpu-s  "
          f"ratio {whole / INTERVAL_LIMIT_S:.2f} of the {INTERVAL_LIMIT_S:g} cpu-s limit")
    ok = t_score / t_bare <= TARGET and whole <= INTERVAL_LIMIT_S
    print(f"{'PASS' if ok else 'BELOW TARGET'}")
    _ = FeatureFrame
    return 0


if __name__ == "__main__":
    sys.exit(main())
