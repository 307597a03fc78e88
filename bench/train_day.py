"""A day of a big fabric in bounded memory: `fabricwatch train` on a recorded history of a simulated
fabric, then `fabricwatch replay --model` over the same file, each in its own process; peak RSS
(ru_maxrss) and CPU time (user + system) of each, against the 2 GB limit, and replay lines per
CPU-second (the process's whole CPU, start-up included).

    python bench/train_day.py [--ports 2000] [--hours 1] [--step 30]

The full size (a day of 10k ports at 30 s: 28.8M lines, ~18 GB of line protocol in the temporary
directory; recording it alone takes ~35 min here):

    python bench/train_day.py --ports 10000 --hours 24

Below the full size, the figures at the full size are printed as an EXTRAPOLATION (not measured), above
the start-up's (`replay --help`): both RSSes linear in ports through a second train and replay of a
fabric half the size, flat in hours (train re-reads its files and keeps a bounded sample per class and
running sums per link; replay streams a chunk of lines and the detector's batch of 64 intervals at a
time, at most 50,000 link-intervals: measure at least an hour, so that the per-class samples (100k
link-intervals) are full), CPU linear in lines.
The last line reads `train_rss_mb=… replay_rss_mb=… replay_lines_per_cpu_s=… rss_ratio=…
full=measured|extrapolated` (rss_ratio: the larger peak at the full size over 2 GB).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricwatch.simulator.fabric import Fabric  # noqa: E402
from fabricwatch.simulator.record import record  # noqa: E402
from fabricwatch.simulator.topology import FabricSpec  # noqa: E402

LIMIT_MB = 2048.0
FULL_PORTS, FULL_HOURS = 10_000, 24.0
CLI = [sys.executable, "-c", "import sys; from fabricwatch.cli.main import main; sys.exit(main())"]


def fabric_of(ports: int) -> Fabric:
    """A rail-optimised RoCE fabric of about `ports` ports (8 rails, a leaf per 32 nodes and rail, 4 spines)."""
    nodes = max(2, ports // 10)
    return Fabric(FabricSpec(nodes=nodes, rails=8, leaves_per_rail=max(1, nodes // 32), spines=4),
                  seed=7, start_ns=0)


def run(args: list[str], out: Path | None = None) -> tuple[float, float]:
    """(peak RSS in MB, CPU seconds) of one command, run to its end in its own process."""
    with open(out or os.devnull, "w") as stdout:
        proc = subprocess.Popen(CLI + args, stdout=stdout, stderr=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{err}")
    return usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def measure(ports: int, hours: float, step_s: float, tmp: Path) -> tuple[dict[str, float], Path]:
    """Record the history, train on it, replay it: the figures of one size, and the model."""
    fabric = fabric_of(ports)
    steps = int(hours * 3600 / step_s)
    path = tmp / f"port_counters_{steps}.lp"
    t0 = time.perf_counter()
    with open(path, "w") as out:
        lines = record(fabric, out, steps=steps, step_s=step_s)
    rec_s = time.perf_counter() - t0
    model = tmp / f"model_{steps}.json"
    train_rss, train_cpu = run(["train", str(path), "--out", str(model), "--interval", f"{step_s:g}s", "--force"])
    findings = tmp / f"findings_{steps}.json"
    replay_rss, replay_cpu = run(["replay", str(path), "--model", str(model), "--json"], out=findings)
    found = sum(1 for _ in open(findings))
    r = {"ports": len(fabric.ports), "hours": hours, "lines": lines, "link_intervals": len(fabric.ports) * steps,
         "mb": path.stat().st_size / 2**20, "train_rss": train_rss, "train_cpu": train_cpu,
         "replay_rss": replay_rss, "replay_cpu": replay_cpu, "findings": found}
    print(f"{r['ports']:,} ports x {hours:g} h at {step_s:g} s: {lines:,} lines ({r['mb']:,.0f} MB, recorded in "
          f"{rec_s:.0f} s)\n"
          f"  train   peak RSS {train_rss:8,.0f} MB  CPU {train_cpu:7.1f} s  ({lines / train_cpu:,.0f} lines/CPU-s)\n"
          f"  replay  peak RSS {replay_rss:8,.0f} MB  CPU {replay_cpu:7.1f} s  ({lines / replay_cpu:,.0f} lines/CPU-s),"
          f" {found} findings")
    path.unlink()
    return r, model


def extrapolate(big: dict[str, float], half: dict[str, float], base: dict[str, float],
                full_li: float) -> dict[str, float]:
    """The figures at the full size from the measured ones: train keeps a bounded sample per class and
    per-link sums, replay streams; both grow with ports (per-link state), through the two fabrics
    measured, not with hours; CPU linear in link-intervals above the start-up."""
    grow_li = full_li / big["link_intervals"]
    ports = big["ports"] - half["ports"]

    def in_ports(key: str) -> float:
        return big[key] + (big[key] - half[key]) / ports * (FULL_PORTS - big["ports"])

    return {"train_rss": in_ports("train_rss"), "replay_rss": in_ports("replay_rss"),
            "train_cpu": base["cpu"] + (big["train_cpu"] - base["cpu"]) * grow_li,
            "replay_cpu": base["cpu"] + (big["replay_cpu"] - base["cpu"]) * grow_li}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", type=int, default=2000)
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--step", type=float, default=30.0, help="seconds between polls")
    args = ap.parse_args()
    full_li = FULL_PORTS * FULL_HOURS * 3600 / args.step
    with tempfile.TemporaryDirectory() as tmp:
        rss, cpu = run(["replay", "--help"])  # the start-up: the interpreter and every import
        base = {"rss": rss, "cpu": cpu}
        print(f"start-up (replay --help): peak RSS {rss:,.0f} MB, CPU {cpu:.1f} s")
        big, _ = measure(args.ports, args.hours, args.step, Path(tmp))
        full = big["link_intervals"] >= 0.99 * full_li
        if not full:
            half, _ = measure(args.ports // 2, args.hours, args.step, Path(tmp))
    if full:
        at = {k: big[k] for k in ("train_rss", "replay_rss", "train_cpu", "replay_cpu")}
        label = "measured"
    else:
        at = extrapolate(big, half, base, full_li)
        label = "extrapolated"
        print(f"EXTRAPOLATED to {FULL_PORTS:,} ports x {FULL_HOURS:g} h ({full_li:,.0f} link-intervals), not measured: "
              f"both RSSes linear in ports through the two sizes measured (flat in hours), CPU in link-intervals "
              f"above the start-up ({base['rss']:,.0f} MB, {base['cpu']:.1f} CPU-s):\n"
              f"  train   peak RSS {at['train_rss']:8,.0f} MB  CPU {at['train_cpu']:8,.0f} s\n"
              f"  replay  peak RSS {at['replay_rss']:8,.0f} MB  CPU {at['replay_cpu']:8,.0f} s")
    worst = max(at["train_rss"], at["replay_rss"])
    verdict = "within" if worst <= LIMIT_MB else "OVER"
    print(f"full size ({label}): peak RSS {worst:,.0f} MB, {worst / LIMIT_MB:.2f} of the {LIMIT_MB:,.0f} MB limit: "
          f"{verdict}")
    print(f"train_rss_mb={big['train_rss']:.0f} replay_rss_mb={big['replay_rss']:.0f} "
          f"replay_lines_per_cpu_s={big['lines'] / big['replay_cpu']:.0f} "
          f"train_cpu_s={big['train_cpu']:.1f} replay_cpu_s={big['replay_cpu']:.1f} "
          f"full_train_rss_mb={at['train_rss']:.0f} full_replay_rss_mb={at['replay_rss']:.0f} "
          f"rss_ratio={worst / LIMIT_MB:.2f} full={label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
