"""Collective variance: a stalled size and a 15 % slower run are flagged, healthy repeats are not."""

from __future__ import annotations

from pathlib import Path

from fabricwatch.models.collective import analyse
from fabricwatch.nccl.parser import parse_file
from tests.nccl_logs import render

SIZES = [1 << p for p in range(20, 31)]


def curve(scale: float, jitter: float) -> dict[int, float]:
    return {s: round(180.0 * scale * (1 + jitter) * min(1.0, s / (64 << 20)) ** 0.5, 2) for s in SIZES}


def runs(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for i, jitter in enumerate((0.0, 0.005, -0.004, 0.002, -0.006)):
        p = tmp_path / f"all_reduce_h{i}.log"
        p.write_text(render("all_reduce", ["n1", "n2"], 8, curve(1.0, jitter)))
        paths[f"healthy{i}"] = p
    stalled = curve(1.0, 0.001)
    stalled[64 << 20] = round(stalled[64 << 20] * 0.35, 2)  # one size stalled (a transient pause)
    p = tmp_path / "all_reduce_stall.log"
    p.write_text(render("all_reduce", ["n1", "n2"], 8, stalled))
    paths["stalled"] = p
    slow = curve(1.0, 0.0)
    for s in SIZES:
        if s >= 256 << 20:
            slow[s] = round(slow[s] * 0.85, 2)
    p = tmp_path / "all_reduce_slow.log"
    p.write_text(render("all_reduce", ["n1", "n2"], 8, slow))
    paths["slow"] = p
    return paths


def test_stall_and_slow_run_flagged_healthy_not(tmp_path: Path) -> None:
    paths = runs(tmp_path)
    records = [r for p in paths.values() for r in parse_file(p)]
    (rep,) = analyse(records)
    assert rep.collective == "all_reduce" and rep.nranks == 16
    flagged = rep.flagged()
    assert flagged == {str(paths["stalled"]), str(paths["slow"])}
    kinds = {(f.source, f.kind) for f in rep.findings}
    assert (str(paths["stalled"]), "stall") in kinds and (str(paths["slow"]), "slow_run") in kinds
    stall = next(f for f in rep.findings if f.kind == "stall")
    assert stall.size == 64 << 20
    assert rep.cv_pct[1 << 30] > 5  # the slow run shows up as run-to-run variance at large sizes


def test_scaling_worse_on_more_nodes(tmp_path: Path) -> None:
    records = []
    for i, hosts in enumerate((["a", "b"], ["c", "d"], ["a", "b", "c", "d"])):
        scale = 0.75 if len(hosts) == 4 else 1.0  # 4 nodes reach only 75 % of the 2-node plateau
        p = tmp_path / f"all_reduce_{len(hosts)}n_{i}.log"
        p.write_text(render("all_reduce", hosts, 8, curve(scale, 0.0)))
        records += parse_file(p)
    reports = analyse(records)
    scaling = [f for rep in reports for f in rep.findings if f.kind == "scaling"]
    assert len(scaling) == 1 and "4 nodes" in scaling[0].detail and "scales worse" in scaling[0].detail
