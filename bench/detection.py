"""Degraded-link detection on labelled simulator runs: isolation forest vs two baselines.

Trains on healthy load (jobs starting and stopping, a whole rail busy, incast bursts), then
scores runs on other topologies and seeds with every fault type at several intensities, plus
healthy runs for the false-alarm rate. Prints event-level precision, recall, F1, intervals to
detect (median, p95) and false alarms per 1,000 link-hours for all three, then what was missed.

    python bench/detection.py [--quick] [--bank DIR]

`--bank DIR` also runs the three side by side on every scenario of an independent labelled
scenario bank (a folder with generate.py and score.py; see bench/scenario_bank.py).
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scenario_bank import print_bank, score_bank
from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import EwmaZ, Injection, Run, Score, StaticThresholds, evaluate_many, simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.topology import FabricSpec

INTERVAL = 30.0
MINDER = "ByteDance Minder (NSDI 2025): precision 0.904, F1 0.893"


def healthy_swings(seed: int):  # type: ignore[no-untyped-def]
    """Load swings that are not faults: one rail busy while others idle, short incast bursts."""
    rng = np.random.default_rng(seed)

    def load(fabric: Fabric, i: int) -> None:
        base = fabric._jitter_base if hasattr(fabric, "_jitter_base") else fabric._jitter.copy()
        fabric._jitter_base = base  # type: ignore[attr-defined]
        jitter = base.copy()
        phase = (i // 15) % 4
        if phase == 1:  # one rail busy, the others nearly idle
            rail = int(rng.integers(0, fabric.spec.rails))
            for p in fabric.ports:
                if p.rail is not None and p.rail != rail:
                    jitter[p.index] *= 0.25
        if rng.random() < 0.3:  # an incast burst on a few host-facing ports for one interval
            downs = [p.index for p in fabric.ports if p.role == "leaf_down"]
            for idx in rng.choice(downs, size=min(3, len(downs)), replace=False):
                jitter[idx] *= 1.12
        fabric._jitter = jitter

    return load


def fault_plan(fabric_spec: FabricSpec, rng: np.random.Generator, intervals: int) -> list[Injection]:
    probe = Fabric(fabric_spec, seed=0, start_ns=0).topology
    leaves = [d for d in probe.devices.values() if d.kind == "leaf"]
    spines = [d for d in probe.devices.values() if d.kind == "spine"]

    def leaf_port(role: str = "leaf_down") -> tuple[str, str]:
        dev = leaves[int(rng.integers(len(leaves)))]
        ports = [p for p in dev.ports if p.role == role]
        return dev.name, ports[int(rng.integers(len(ports)))].name

    def spine_port() -> tuple[str, str]:
        dev = spines[int(rng.integers(len(spines)))]
        return dev.name, dev.ports[int(rng.integers(len(dev.ports)))].name

    kinds = [
        ("flap", {"period": 20}), ("flap", {"period": 90}),
        ("ber", {"rate": 50}), ("ber", {"rate": 5}), ("ber", {"rate": 0.5}),  # last: a slowly degrading optic
        ("pfc_storm", {"priority": 3}), ("pfc_storm", {"priority": 0}),
        ("ecn_off", {}), ("congested", {}),
    ]
    plan = []
    start = 12
    # a different order per run, so no fault type always lands in the same load phase
    for k in rng.permutation(len(kinds)):
        kind, opts = kinds[int(k)]
        if start + 8 >= intervals:
            break
        if kind == "ecn_off":
            fault = Fault(kind=kind, device=leaves[int(rng.integers(len(leaves)))].name, **opts)
        elif kind == "congested":
            d, p = spine_port()
            fault = Fault(kind=kind, device=d, port=p, **opts)
        else:
            d, p = leaf_port("leaf_down" if rng.random() < 0.7 else "leaf_up")
            fault = Fault(kind=kind, device=d, port=p, **opts)
        plan.append(Injection(fault, start, start + 8))
        start += 8 + 10
    return plan


def detector_flagger(det: LinkDetector):  # type: ignore[no-untyped-def]
    builder = FeatureBuilder(INTERVAL)
    det.reset()

    def flag(start: int, links: list[LinkInterval]) -> set[tuple[str, str]]:
        # a device finding stands for the ports it lists (the scoring counts links)
        return {(f.device, p) for f in det.detect(builder.build(start, links)) for p in (f.ports or [f.port])}

    return flag


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller fabrics and fewer runs")
    ap.add_argument("--healthy-hours", type=float, default=10_000.0,
                    help="link-hours of an extra long healthy run for the false-alarm rate (0: none)")
    ap.add_argument("--bank", type=Path, help="a scenario bank folder (generate.py, score.py) to score too")
    ap.add_argument("--fabric", action="append", default=None,
                    help="SCRIPT[:SEED] of another author's fabric to score with the bank (default: the bank's "
                         "ib_fat_tree.py at seeds 5150, 7, 2024 and bench/fabrics/*.py)")
    args = ap.parse_args()
    bank_ok = True
    if args.bank:
        second = args.bank / "ib_fat_tree.py"
        fabrics = args.fabric if args.fabric is not None else [
            *(f"{second}:{s}" for s in (5150, 7, 2024) if second.exists()),
            *(f"{p}:11" for p in sorted((Path(__file__).parent / "fabrics").glob("*.py")))]
        with tempfile.TemporaryDirectory() as tmp:
            bank_ok = print_bank(score_bank(args.bank, Path(tmp), fabrics=tuple(fabrics)))
        print(f"scenario bank: {'PASS' if bank_ok else 'BELOW TARGET'}")
    train_spec = FabricSpec(nodes=64 if not args.quick else 32, rails=4, leaves_per_rail=2, spines=4)
    t0 = time.process_time()
    train_runs = [simulate(train_spec, 160 if not args.quick else 100, interval_s=INTERVAL, seed=s,
                           load=healthy_swings(s), name=f"train{s}") for s in (11, 12)]
    frames = []
    for run in train_runs:
        fb = FeatureBuilder(INTERVAL)
        frames += [fb.build(start, links) for start, links in run.frames]
    det = LinkDetector(interval_s=INTERVAL).fit(frames)
    print(f"trained on {sum(len(f.links) for f in frames):,} link-intervals, "
          f"{len(det.models)} classes, thresholds "
          + ", ".join(f"{c}={m.threshold:.3f}" for c, m in sorted(det.models.items())))

    test_specs = [
        FabricSpec(nodes=64, rails=4, leaves_per_rail=2, spines=4),
        FabricSpec(nodes=48, rails=8, leaves_per_rail=1, spines=4),
        FabricSpec(nodes=32, rails=2, leaves_per_rail=2, spines=2),
    ][: 2 if args.quick else 3]
    scores = {"isolation forest": Score("isolation forest"), "static rules": Score("static rules"),
              "EWMA z-score": Score("EWMA z-score"), "no forest": Score("no forest")}
    ablated = copy.copy(det)  # the same fitted classes, scored by the expectation alone
    ablated.use_forest = False
    ablated.reset()
    runs: list[Run] = []
    for n, spec in enumerate(test_specs):
        rng = np.random.default_rng(100 + n)
        intervals = 180 if not args.quick else 130
        runs.append(simulate(spec, intervals, fault_plan(spec, rng, intervals), interval_s=INTERVAL,
                             seed=200 + n, load=healthy_swings(300 + n), name=f"faults{n}"))
        runs.append(simulate(spec, intervals, [], interval_s=INTERVAL, seed=400 + n,
                             load=healthy_swings(500 + n), name=f"healthy{n}"))
    if args.healthy_hours:
        # a long healthy run, streamed, so the false-alarm rate rests on enough link-hours
        big = FabricSpec(nodes=64, rails=8, leaves_per_rail=2, spines=8)
        ports = len(Fabric(big, seed=0, start_ns=0).ports)
        intervals = int(args.healthy_hours * 3600 / INTERVAL / ports) + 1
        runs.append(simulate(big, intervals, [], interval_s=INTERVAL, seed=900, load=healthy_swings(901),
                             name="long-healthy", stream=True))
    for run in runs:
        evaluate_many(run, {"isolation forest": detector_flagger(det), "static rules": StaticThresholds(INTERVAL),
                            "EWMA z-score": EwmaZ(INTERVAL), "no forest": detector_flagger(ablated)}, scores)
    print(f"{sum(len(r.injections) for r in runs)} injected faults over {len(runs)} runs "
          f"({len(test_specs)} topologies + a long healthy run), interval {INTERVAL:g}s; "
          f"CPU {time.process_time() - t0:.0f}s")
    for s in scores.values():
        print(s.line())
    forest = scores["isolation forest"]
    print(f"anchor: {MINDER}")
    print("missed by isolation forest: " + (", ".join(forest.missed) or "none"))
    for name in ("static rules", "EWMA z-score", "no forest"):
        print(f"missed by {name}: " + (", ".join(scores[name].missed) or "none"))
    nf = scores["no forest"]
    print(f"what the forest adds over the expectation alone: F1 {forest.f1:.3f} vs {nf.f1:.3f}, "
          f"false alarms {forest.fa_per_1000_link_hours:.2f} vs {nf.fa_per_1000_link_hours:.2f} per 1000 link-h")
    base_ok = all(forest.f1 > scores[n].f1 and forest.false_alarms <= scores[n].false_alarms
                  for n in ("static rules", "EWMA z-score"))
    med = float(np.median(forest.delays)) if forest.delays else float("inf")
    ok = forest.f1 >= 0.95 and forest.fa_per_1000_link_hours <= 1.0 and med <= 2 and base_ok and bank_ok
    print(f"{'PASS' if ok else 'BELOW TARGET'}: F1 {forest.f1:.3f} (>= 0.95), false alarms "
          f"{forest.fa_per_1000_link_hours:.2f}/1000 link-h (<= 1), median detect {med:.1f} intervals (<= 2), "
          f"beats both baselines: {base_ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
