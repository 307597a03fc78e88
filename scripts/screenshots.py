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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from fabricwatch.core.topology import Topology
from fabricwatch.daemon.config import parse
from fabricwatch.daemon.runner import Runner
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.service import SimConfig, Simulator

# {up}: leaf-r0-0's first uplink (both ends watched: the far end is plotted dashed); p1, p2: host ports
ROCE_FAULTS = {"flap": "flap:leaf-r0-0:{up},period=15", "aging-optic": "aging_optic:leaf-r0-0:{p2},ramp=300"}
# injected LATE_S before the pictures: the page shows a storm while it is news
LATE_FAULTS = {"pfc-storm": "pfc_storm:leaf-r1-0:{p1}"}
LATE_S = 30.0
IB_FAULTS = {"ib-link": "ber:leaf-r0-0:{up},rate=200", "ib-flap": "flap:leaf-r1-0:{p1},period=15"}


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
    """Inject the faults on real port names; returns each fault's (device, port)."""
    ports = {d: sim.fabric.topology.devices[d].ports for d in ("leaf-r0-0", "leaf-r1-0")}
    names = {"up": next(p.name for p in ports["leaf-r0-0"] if p.role == "leaf_up"),
             "p1": ports["leaf-r1-0"][1].name, "p2": ports["leaf-r0-0"][2].name}
    where = {}
    for label, text in faults.items():
        spec = text.format(**names)
        sim.fabric.inject(Fault.parse(spec))
        _, device, port = spec.split(",")[0].split(":")
        where[label] = (device, port)
    return where


async def _scenario(fabric: dict[str, Any], extra: dict[str, Any], faults: dict[str, str], wait_s: float,
                    spool: Path, late: dict[str, str] | None = None,
                    ) -> tuple[Simulator, Runner, asyncio.Task[int], dict[str, tuple[str, str]]]:
    sim = Simulator(SimConfig.model_validate({"fabric": fabric, **extra}))
    where = _faulted(sim, faults)
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
        sim, runner, task, where = await _scenario(
            {"nodes": 16, "rails": 4, "spines": 2}, {"snmp": {"devices": ["spine-1"]}}, ROCE_FAULTS, args.wait,
            Path(tmp) / "roce", LATE_FAULTS)
        try:
            assert runner.http is not None
            url = runner.http.url
            await asyncio.to_thread(chromium, f"{url}/", args.out / "fabric-page.png", 1000)
            for label in ("pfc-storm", "flap", "aging-optic"):
                await asyncio.to_thread(chromium, _link(url, where[label]), args.out / f"link-{label}.png", 2000)
        finally:
            await _stop(sim, runner, task)
        sim, runner, task, where = await _scenario(
            {"nodes": 8, "rails": 2, "spines": 2, "fabric": "ib"}, {"ufm": {"enabled": True}}, IB_FAULTS,
            min(args.wait, 90.0), Path(tmp) / "ib")
        try:
            assert runner.http is not None
            await asyncio.to_thread(chromium, _link(runner.http.url, where["ib-link"]), args.out / "link-ib.png", 1700)
        finally:
            await _stop(sim, runner, task)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
