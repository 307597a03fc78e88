"""Replay speed: `port_counters` line protocol through the whole offline path (parse, rates with
wraps and resets, interval folding, features, the detector with a fitted model) in lines per
CPU-second, as `fabricwatch replay` runs it (columnar, chunked, the forest scored in batches, no
cyclic GC), against a bare split of the same file and the scalar per-sample path (the daemon's) in
the same run, and the 50,000 lines/s target.

    python bench/replay.py [--ports 1024] [--steps 120]

The file is recorded from the simulated fabric (30 s steps), the model fitted on its first third.
CPU time is the process's (all threads). The last line reads `lines_per_s=… ratio_bare=… ratio_scalar=…`.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricwatch.detection.detector import LinkDetector  # noqa: E402
from fabricwatch.detection.interval_fold import ReplayReport, intervals_from_files  # noqa: E402
from fabricwatch.detection.replay import ReadReport, intervals_from_samples, read_samples  # noqa: E402
from fabricwatch.models.features import FeatureBuilder  # noqa: E402
from fabricwatch.simulator.fabric import Fabric  # noqa: E402
from fabricwatch.simulator.record import record  # noqa: E402
from fabricwatch.simulator.topology import FabricSpec  # noqa: E402

TARGET = 50_000  # lines per CPU-second, end to end
STEP_S = 30.0


def columnar(path: Path, det: LinkDetector) -> tuple[float, float, float, int]:
    """(intervals, features, detect) CPU-seconds of the replay command's path, and findings."""
    t0 = time.process_time()
    windows = [w for chunk in intervals_from_files([path], STEP_S, report=ReplayReport()) for w in chunk]
    t1 = time.process_time()
    builder = FeatureBuilder(STEP_S)
    frames = [builder.build(w.start_ns, w.links, w.rates) for w in windows]
    t2 = time.process_time()
    det.reset()
    found = sum(len(f) for f in det.detect_many(frames))
    t3 = time.process_time()
    return t1 - t0, t2 - t1, t3 - t2, found


def scalar(path: Path, det: LinkDetector) -> tuple[float, int]:
    """CPU-seconds of the per-sample path (RateEngine, IntervalAggregator, a frame at a time)."""
    t0 = time.process_time()
    intervals = intervals_from_samples(read_samples([path], ReadReport()), STEP_S)
    builder = FeatureBuilder(STEP_S)
    det.reset()
    found = sum(len(det.detect(builder.build(s, links))) for s, links in intervals)
    return time.process_time() - t0, found


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=120)
    args = ap.parse_args()
    nodes = max(2, args.ports // 10)
    fabric = Fabric(FabricSpec(nodes=nodes, rails=8, leaves_per_rail=1, spines=4), seed=3, start_ns=0)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "port_counters.lp"
        with open(path, "w") as out:
            lines = record(fabric, out, steps=args.steps, step_s=STEP_S)
        t0 = time.process_time()
        with open(path) as f:
            bare = sum(len(ln.split(" ")) for ln in f)  # the floor: reading and splitting each line
        t_bare = time.process_time() - t0
        assert bare
        with open(path) as f:
            fields = f.readline().split(" ")[1].count(",") + 1
        windows = [w for chunk in intervals_from_files([path], STEP_S) for w in chunk]
        fb = FeatureBuilder(STEP_S)
        det = LinkDetector(interval_s=STEP_S).fit(
            [fb.build(w.start_ns, w.links, w.rates) for w in windows[: len(windows) // 3]])
        del windows
        gc.collect()
        gc.disable()  # as `fabricwatch replay` runs
        t_iv, t_feat, t_det, found = columnar(path, det)
        gc.enable()
        t_scalar, found_scalar = scalar(path, det)
    total = t_iv + t_feat + t_det
    rate = lines / total
    print(f"{lines:,} lines ({len(fabric.ports):,} ports x {args.steps} steps of {STEP_S:g} s, "
          f"{fields} fields a line), {found} findings "
          f"(scalar path: {found_scalar})")
    print(f"  bare split        {lines / t_bare:12,.0f} lines/s")
    print(f"  scalar path       {lines / t_scalar:12,.0f} lines/s (per sample, as the daemon)")
    print(f"  columnar: intervals {lines / t_iv:10,.0f} lines/s, features {lines / t_feat:10,.0f}, "
          f"detect {lines / t_det:10,.0f}")
    print(f"end to end {rate:,.0f} lines/s: {rate / (lines / t_bare):.3f} of a bare split, "
          f"{t_scalar / total:.1f}x the scalar path, {rate / TARGET:.2f} of the {TARGET:,} target: "
          + ("PASS" if rate >= TARGET else "BELOW TARGET"))
    print(f"lines_per_s={rate:.0f} ratio_bare={rate / (lines / t_bare):.4f} ratio_scalar={t_scalar / total:.2f} "
          f"target_ratio={rate / TARGET:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
