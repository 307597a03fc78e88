"""UFM polling CPU on a ~2,000-port simulated InfiniBand fabric, against the 30 s budget of one core.

The simulated UFM runs in a child process (`fabricwatch simulate`), so this process's CPU time
is the daemon side alone: HTTP, Telemetry CSV parsing, inventory, events, and the pipeline
(rates, saturation, line protocol). Prints CPU per poll, per port, and the ratio of CPU per
poll to the 30 s interval (lower is more headroom; target <= 0.25, i.e. 4x headroom).

    python bench/ufm_poll.py [--polls 10] [--format csv|prometheus]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricwatch.collectors.ufm.config import UfmConfig  # noqa: E402
from fabricwatch.pipeline.pipeline import Pipeline  # noqa: E402

INTERVAL_S = 30.0
TARGET_RATIO = 0.25
# 384 nodes x 4 rails on 16 leaves, 16 spines: 1,536 host-facing + 512 fabric ports = 2,048
SIM = """
faults = ["ber:leaf-r0-0:1,rate=50", "congested:leaf-r1-0"]
[fabric]
nodes = 384
rails = 4
leaves_per_rail = 4
spines = 16
[ufm]
enabled = true
"""


def start_simulator() -> tuple[subprocess.Popen[str], dict[str, str], int]:
    conf = Path(tempfile.mkdtemp(prefix="fw-bench-ufm-")) / "sim.toml"
    conf.write_text(SIM)
    proc = subprocess.Popen([sys.executable, "-m", "fabricwatch", "simulate", "-c", str(conf)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    text = ""
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("simulator exited")
        text += line
        if line.startswith("}"):
            info = json.loads(text)
            return proc, info["ufm"], int(info["ports"])


async def measure(urls: dict[str, str], polls: int, fmt: str) -> tuple[float, int]:
    os.environ["FW_BENCH_UFM_PW"] = "fabricwatch-sim"
    cfg = UfmConfig.model_validate({
        "url": urls["rest"], "telemetry_url": urls["telemetry"], "telemetry_format": fmt,
        "username": "admin", "password": {"env": "FW_BENCH_UFM_PW"}, "interval": 1,
        "inventory_interval": 1e9, "events_interval": 1e-3,
    })
    [collector] = cfg.build()
    pipeline = Pipeline()
    ports = 0
    async with collector:  # type: ignore[attr-defined]
        pipeline.process(await collector.poll())  # type: ignore[attr-defined]
        cpu0 = time.process_time()
        for _ in range(polls):
            await asyncio.sleep(1.0)  # the simulator moves on a 1 s tick: every poll reads new values
            batch = await collector.poll()  # type: ignore[attr-defined]
            pipeline.process(batch)
            ports = len(batch.samples)
        cpu = time.process_time() - cpu0
    return cpu / polls, ports


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--polls", type=int, default=10)
    ap.add_argument("--format", choices=["csv", "prometheus"], default="csv")
    args = ap.parse_args()
    proc, urls, sim_ports = start_simulator()
    try:
        per_poll, ports = asyncio.run(measure(urls, args.polls, args.format))
    finally:
        proc.terminate()
        proc.wait()
    ratio = per_poll / INTERVAL_S
    print(f"simulated UFM: {sim_ports} IB ports; Telemetry {args.format}; {args.polls} polls "
          "(Telemetry + events + unhealthy ports + pipeline; inventory read once before)")
    print(f"CPU per poll: {per_poll * 1000:.1f} ms  ({per_poll / max(ports, 1) * 1e6:.1f} us per port, "
          f"{ports} ports)")
    print(f"ratio CPU per poll / {INTERVAL_S:g} s interval on one core: {ratio:.4f} "
          f"(target <= {TARGET_RATIO:g}) -> {'OK' if ratio <= TARGET_RATIO else 'OVER TARGET'}; "
          f"one core could poll {INTERVAL_S / per_poll:.0f} such fabrics every {INTERVAL_S:g} s")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
