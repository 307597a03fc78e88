"""Detection when a cluster splits the fabric: each member scores only the links of the switches it
polls. On every scenario of an independent labelled bank, one model is fitted on the whole fabric's
fit window (one model file, deployed to every member, as `[detector] model` is), then the rest is
scored three ways: by one instance that sees everything; by N members that each see their
rendezvous share of the switches; and by N members whose shares keep a group together (by default
a scalable unit: the leaves of every rail that serve the same hosts, `leaf-r\\d+-(\\d+)`; a rail's
leaves, `--group-pattern 'leaf-r(\\d+)-'`, is the comparison that shows why). A member's detector
has its own state and sees only its links' peers: class medians, crowds and far ends are computed
over its share. The findings of all members are scored together, as an operator sees them (one
InfluxDB, one Alertmanager).

    python bench/cluster_detection.py BANK [--members 3] [--group-pattern REGEX] [--scenario NAME]

Last line: `whole_f1=… split_f1=… grouped_f1=… split_fa=… grouped_fa=…` (scripts read it).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fabricwatch.cluster.assign import group_of, owner
from fabricwatch.core.config_types import parse_duration
from fabricwatch.detection.detector import LinkDetector
from fabricwatch.detection.replay import intervals_from_lp
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval

INTERVAL = 30.0
Intervals = list[tuple[int, list[LinkInterval]]]


def member_of(members: list[str], pattern: re.Pattern[str] | None) -> Callable[[str], str]:
    """The member that polls a device, as cluster/member.py assigns it (collector "gnmi")."""
    cache: dict[str, str] = {}

    def of(device: str) -> str:
        if device not in cache:
            cache[device] = owner(f"gnmi:{group_of(device, pattern)}", members) or members[0]
        return cache[device]
    return of


def flagged(det: LinkDetector, rest: Intervals, of: Callable[[str], str] | None) -> list[tuple[int, str, str]]:
    """What every member flags, each with its own copy of the detector and only its links."""
    shares: dict[str, Intervals] = {}
    for start, links in rest:
        by: dict[str, list[LinkInterval]] = {}
        for li in links:
            by.setdefault(of(li.device) if of else "all", []).append(li)
        for m, own in by.items():
            shares.setdefault(m, []).append((start, own))
    out = []
    for share in shares.values():
        member, builder = copy.deepcopy(det), FeatureBuilder(INTERVAL)
        for start, links in share:
            out += [(start, f.device, f.port) for f in member.detect(builder.build(start, links))]
    return sorted(out)


def score(bank: Path, scen: Path, name: str, rows: list[tuple[int, str, str]]) -> dict:
    findings, report = scen / f"findings-{name}.jsonl", scen / f"score-{name}.json"
    findings.write_text("".join(json.dumps({"time_ns": t, "device": d, "port": p}) + "\n" for t, d, p in rows))
    subprocess.run([sys.executable, str(bank / "score.py"), str(scen / "labels.json"), str(findings),
                    "--json", str(report), "--quiet"], check=False, stdout=subprocess.DEVNULL)
    return json.loads(report.read_text())


def overall(scores: list[dict]) -> tuple[float, int, int, int]:
    tp = sum(s["detected"] for s in scores)
    n = sum(s["faults"] if isinstance(s["faults"], int) else len(s["faults"]) for s in scores)
    fa = sum(s["false_alarm_events"] for s in scores)
    p = tp / (tp + fa) if tp + fa else 0.0
    r = tp / n if n else 1.0
    return (2 * p * r / (p + r) if p + r else 0.0), tp, n, fa


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("bank", type=Path, help="folder with generate.py and score.py")
    ap.add_argument("--members", type=int, default=3)
    ap.add_argument("--group-pattern", default=r"leaf-r\d+-(\d+)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", default="all")
    args = ap.parse_args()
    members = [f"fw-{chr(ord('a') + i)}" for i in range(args.members)]
    ways = {"whole": None, "split": member_of(members, None),
            "grouped": member_of(members, re.compile(args.group_pattern))}
    results: dict[str, list[dict]] = {w: [] for w in ways}
    print(f"{'scenario':18} " + " ".join(f"{w + ' found/FA/F1':>22}" for w in ways))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        subprocess.run([sys.executable, str(args.bank / "generate.py"), str(out), "--seed", str(args.seed),
                        "--scenario", args.scenario], check=True, stdout=subprocess.DEVNULL)
        for scen in sorted(p for p in out.iterdir() if (p / "labels.json").is_file()):
            labels = json.loads((scen / "labels.json").read_text())
            intervals = intervals_from_lp([scen / "port_counters.lp"], INTERVAL)
            cut = intervals[0][0] + parse_duration(labels["fit_first"]) * 1e9
            fb = FeatureBuilder(INTERVAL)
            det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, li) for s, li in intervals if s < cut])
            rest = [iv for iv in intervals if iv[0] >= cut]
            cells = []
            for way, of in ways.items():
                s = score(args.bank, scen, way, flagged(det, rest, of))
                results[way].append(s)
                cells.append(f"{s['detected']}/{s['faults']} {s['false_alarm_events']:>3} {s['f1']:5.2f}")
            print(f"{scen.name:18} " + " ".join(f"{c:>22}" for c in cells), flush=True)
    tot = {w: overall(s) for w, s in results.items()}
    for w, (f1, tp, n, fa) in tot.items():
        print(f"{w:8} F1 {f1:.3f}  found {tp}/{n}  false alarms {fa}")
    print(f"members={args.members} group_pattern={args.group_pattern!r}")
    print(f"whole_f1={tot['whole'][0]:.3f} split_f1={tot['split'][0]:.3f} grouped_f1={tot['grouped'][0]:.3f} "
          f"split_fa={tot['split'][3]} grouped_fa={tot['grouped'][3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
