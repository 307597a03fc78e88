"""`fabricwatch simulate`: the simulated fabric alone, until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fabricwatch.cli.errors import warn
from fabricwatch.core.config_errors import format_errors
from fabricwatch.simulator.daemon_config import daemon_config_toml, sim_database
from fabricwatch.simulator.host_sysfs import write_host_trees
from fabricwatch.simulator.service import SimConfig, Simulator

log = logging.getLogger("fabricwatch.simulator")


def load_sim_config(path: str | None, faults: list[str]) -> SimConfig:
    data: dict[str, Any] = {}
    if path:
        data = tomllib.loads(Path(path).read_text())
    data["faults"] = list(data.get("faults", [])) + list(faults)
    try:
        return SimConfig.model_validate(data)
    except ValidationError as exc:
        raise ValueError(format_errors(path or "<simulator>", exc)) from None


async def run_simulate(args: argparse.Namespace) -> int:
    try:
        cfg = load_sim_config(args.config, args.fault)
        sim = Simulator(cfg)
    except (ValueError, OSError) as exc:
        warn(args, str(exc))
        return 2
    await sim.start()
    written: dict[str, Any] = {}
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        topo = (args.out / "topology.json").resolve()
        sim.write_topology(topo)
        db = sim_database(sim, args.out)
        conf = args.out.resolve() / "fabricwatch.toml"
        conf.write_text(daemon_config_toml(sim, args.interval, topo, db))
        written = {"config": {"path": str(conf), "database": db}}
        print(f"wrote {conf}: it stores this fabric in database {db!r} (created when missing), "
              f"not the demo's 'fabricwatch'", file=sys.stderr, flush=True)
    print(json.dumps({
        "control": sim.control_url,
        "ports": len(sim.fabric.ports),
        "targets": [t.__dict__ for t in sim.targets],
        "faults": [f.to_dict() for f in sim.fabric.faults],
        **({"ufm": {"rest": sim.ufm.rest_url, "telemetry": sim.ufm.telemetry_url}} if sim.ufm else {}),
        **written,
    }, indent=1), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    host_trees = None
    if args.host_sysfs:
        host_trees = asyncio.create_task(_write_host_trees(sim, args.host_sysfs, stop), name="host-sysfs")
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    if host_trees is not None:
        await host_trees
    await sim.stop()
    return 0


async def _write_host_trees(sim: Simulator, root: Path, stop: asyncio.Event, every_s: float = 2.0) -> None:
    """Refresh every host's sysfs tree from the fabric until stopped."""
    while not stop.is_set():
        snap = sim.fabric.snapshot(time.time_ns() // 1_000_000_000 * 1_000_000_000)
        await asyncio.to_thread(write_host_trees, sim.fabric, snap, root)
        try:
            async with asyncio.timeout(every_s):
                await stop.wait()
        except TimeoutError:
            pass
