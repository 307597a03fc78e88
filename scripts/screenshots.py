"""The README's pictures: starts the simulator and a daemon watching it (RoCE over gNMI and SNMP,
then InfiniBand over UFM), lets the faults develop, and has headless Chromium write PNGs of the
fabric page, a flapping link, a PFC storm, an aging optic and an InfiniBand link into docs/.

    .venv/bin/python scripts/screenshots.py [--out docs] [--wait 180]

Everything listens on 127.0.0.1; nothing is stored (the InfluxDB sink points at a closed port and
spools to a temp dir). Needs `chromium` on PATH (scripts/test.sh installs it).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from fabricwatch.cli.demo import demo_faults
from fabricwatch.core.topology import Topology
from fabricwatch.daemon.config import parse
from fabricwatch.daemon.runner import Runner
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.service import SimConfig, Simulator
from fabricwatch.simulator.topology import Topology as SimTopology

# the fabrics pictured: the demo's RoCE fabric (a spine over SNMP), and a small InfiniBand one under UFM
ROCE_FABRIC = ({"nodes": 16, "rails": 4, "spines": 2}, {"snmp": {"devices": ["spine-1"]}})
IB_FABRIC = ({"nodes": 8, "rails": 2, "spines": 2, "fabric": "ib"}, {"ufm": {"enabled": True}})
# the demo's own faults (fabricwatch demo, scripts/demo.sh), by picture: docs/link-<label>.png
LABELS = {False: {"flap": "flap", "pfc_storm": "pfc-storm", "aging_optic": "aging-optic"},
          True: {"ber": "ib", "flap": "ib-flap", "aging_optic": "ib-aging-optic"}}
# at the pictures' pace: the optic ages in five minutes, not half an hour
PACE: dict[str, dict[str, Any]] = {"flap": {"period": 15.0}, "aging_optic": {"ramp": 300.0}}
# injected LATE_S before the pictures: the page shows a storm while it is news
LATE = {"pfc_storm"}
LATE_S = 30.0


def faults(topology: SimTopology, ib: bool) -> dict[str, str]:
    """The faults `fabricwatch demo` injects on this fabric, by picture label."""
    return {LABELS[ib][Fault.parse(spec).kind]: spec for spec in demo_faults(topology, ib)}


def chromium(url: str, png: Path, height: int) -> None:
    """One screenshot of `url`, after the page's script has drawn (virtual time runs its fetches)."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("chromium not found (apt-get install chromium)")
    subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size=1400,{height}", "--virtual-time-budget=6000", f"--screenshot={png}", url],
                   capture_output=True, timeout=120, check=True)
    print(f"wrote {png} ({png.stat().st_size // 1024} KB)", flush=True)


def _faulted(sim: Simulator, faults: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Inject the faults (at the pictures' pace); returns each fault's (device, port)."""
    where = {}
    for label, spec in faults.items():
        fault = Fault.parse(spec)
        sim.fabric.inject(dataclasses.replace(fault, **PACE.get(fault.kind, {})))
        where[label] = (fault.device, fault.port or "")
    return where


async def _scenario(fabric: tuple[dict[str, Any], dict[str, Any]], ib: bool, wait_s: float, spool: Path,
                    ) -> tuple[Simulator, Runner, asyncio.Task[int], dict[str, tuple[str, str]]]:
    sim = Simulator(SimConfig.model_validate({"fabric": fabric[0], **fabric[1]}))
    chosen = faults(sim.fabric.topology, ib)
    late = {label: spec for label, spec in chosen.items() if Fault.parse(spec).kind in LATE}
    where = _faulted(sim, {label: spec for label, spec in chosen.items() if label not in late})
    await sim.start()
    collectors = sim.collectors_config(1.0)
    for section in collectors.get("gnmi", []) + collectors.get("snmp", []):
        section["optics_interval"] = 2.0  # the module's readings every 2 s: the aging shows in a minute
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0", "site": "screenshots"},
        "detector": {"interval": "2s", "raise_k": 2, "raise_n": 3},
        "pipeline": {"history": "240s", "history_step": "4s"},
        "collectors": collectors,
        "sinks": {"influxdb": [{"api": "v1", "database": "x", "url": "http://127.0.0.1:9",
                                "spool": {"dir": str(spool)}}]},
    }, "<screenshots>")
    runner = Runner(cfg)
    runner.pipeline.topology = Topology.from_records(sim.fabric.topology.records())
    task = asyncio.create_task(runner.run(), name="daemon")
    print(f"daemon watching the simulator ({len(sim.fabric.ports)} ports); waiting {wait_s:.0f} s for the faults",
          flush=True)
    if late:
        await asyncio.sleep(max(wait_s - LATE_S, 0.0))
        where.update(_faulted(sim, late))
        await asyncio.sleep(min(LATE_S, wait_s))
    else:
        await asyncio.sleep(wait_s)
    return sim, runner, task, where


async def _stop(sim: Simulator, runner: Runner, task: asyncio.Task[int]) -> None:
    runner.stop()
    await task
    await sim.stop()


def _link(url: str, where: tuple[str, str]) -> str:
    return f"{url}/#link/{where[0]}/{where[1]}"


DOCS = Path(__file__).resolve().parents[1] / "docs"


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DOCS)
    ap.add_argument("--wait", type=float, default=180.0, help="seconds the faults develop before the pictures")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        sim, runner, task, where = await _scenario(ROCE_FABRIC, False, args.wait, Path(tmp) / "roce")
        try:
            assert runner.http is not None
            url = runner.http.url
            await asyncio.to_thread(chromium, f"{url}/", args.out / "fabric-page.png", 1000)
            for label in ("pfc-storm", "flap", "aging-optic"):
                await asyncio.to_thread(chromium, _link(url, where[label]), args.out / f"link-{label}.png", 2000)
        finally:
            await _stop(sim, runner, task)
        sim, runner, task, where = await _scenario(IB_FABRIC, True, min(args.wait, 90.0), Path(tmp) / "ib")
        try:
            assert runner.http is not None
            await asyncio.to_thread(chromium, _link(runner.http.url, where["ib"]), args.out / "link-ib.png", 1700)
        finally:
            await _stop(sim, runner, task)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
