"""Replay speed: `port_counters` line protocol through the whole offline path (parse, rates with
wraps and resets, interval folding, features, the detector with a fitted model) in lines per
CPU-second, against a bare split of the same file in the same run and the 50,000 lines/s target.

    python bench/replay.py [--ports 1024] [--steps 120]

The file is recorded from the simulated fabric (30 s steps), the model fitted on its first third.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricwatch.core.lineprotocol import parse_line  # noqa: E402
from fabricwatch.detection.replay import ReadReport, intervals_from_samples, read_samples  # noqa: E402
from fabricwatch.models.features import FeatureBuilder  # noqa: E402
from fabricwatch.models.link_detector import LinkDetector  # noqa: E402
from fabricwatch.simulator.fabric import Fabric  # noqa: E402
from fabricwatch.simulator.record import record  # noqa: E402
from fabricwatch.simulator.topology import FabricSpec  # noqa: E402

TARGET = 50_000  # lines per CPU-second, end to end
STEP_S = 30.0


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
        t0 = time.process_time()
        with open(path) as f:
            for ln in f:
                parse_line(ln)
        t_parse = time.process_time() - t0
        assert bare

        t0 = time.process_time()
        samples = list(read_samples([path], ReadReport()))
        t1 = time.process_time()
        intervals = intervals_from_samples(samples, STEP_S)
        t2 = time.process_time()
        builder = FeatureBuilder(STEP_S)
        frames = [builder.build(s, links) for s, links in intervals]
        t3 = time.process_time()
        fit = len(frames) // 3
        det = LinkDetector(interval_s=STEP_S).fit(frames[:fit])
        t4 = time.process_time()
        flagged = sum(len(det.detect(f)) for f in frames[fit:])
        t5 = time.process_time()
    # the detector's share is counted for the scored part only, scaled to the whole file
    detect = (t5 - t4) * len(frames) / max(1, len(frames) - fit)
    total = (t3 - t0) + detect
    rate = lines / total
    print(f"{lines:,} lines ({len(fabric.ports):,} ports x {args.steps} steps of {STEP_S:g} s), "
          f"{flagged} flagged link-intervals")
    print(f"  bare split      {lines / t_bare:12,.0f} lines/s")
    print(f"  parse_line      {lines / t_parse:12,.0f} lines/s")
    print(f"  read samples    {lines / (t1 - t0):12,.0f} lines/s")
    print(f"  rates+intervals {lines / (t2 - t1):12,.0f} lines/s")
    print(f"  features        {lines / (t3 - t2):12,.0f} lines/s")
    print(f"  detect          {lines / detect:12,.0f} lines/s")
    print(f"end to end {rate:,.0f} lines/s: ratio {rate / (lines / t_bare):.3f} of a bare split, "
          f"{rate / TARGET:.2f} of the {TARGET:,} target")
    print("PASS" if rate >= TARGET else "BELOW TARGET")
    return 0


if __name__ == "__main__":
    sys.exit(main())
