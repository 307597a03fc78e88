"""`fabricwatch simulate`: the simulated fabric alone, until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fabricwatch.daemon.config import format_errors
from fabricwatch.simulator.service import SIM_COMMUNITY_ENV, SIM_UFM_PASSWORD_ENV, SimConfig, Simulator

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


def daemon_config_toml(sim: Simulator, interval: str, topology: Path) -> str:
    """A fabricwatch.toml that polls this simulator (spool-only InfluxDB v1 on localhost)."""
    lines = [
        "# written by `fabricwatch simulate --out`: the daemon config for this simulated fabric",
        "[daemon]",
        f'topology = "{topology}"',
        "",
        "[[sinks.influxdb]]",
        'api = "v1"',
        'url = "http://127.0.0.1:8086"',
        'database = "fabricwatch"',
        f'spool = {{ dir = "{topology.parent / "spool"}" }}',
        "",
    ]
    for section in sim.daemon_collectors():
        lines += [
            "[[collectors.gnmi]]",
            f'name = "{section["name"]}"',
            f'flavour = "{section["flavour"]}"',
            f'sample_interval = "{interval}"',
            f'tags = {{ fabric = "{section["tags"]["fabric"]}" }}',
        ]
        if "username" in section:
            lines.append(f'username = "{section["username"]}"')
        lines.append("targets = [")
        for t in section["targets"]:
            lines.append(f'  {{ device = "{t["device"]}", address = "{t["address"]}" }},')
        lines += ["]", ""]
    for section in sim.daemon_snmp_collectors():
        lines += [
            "# SNMP-only switches; export the community first:",
            f'#   export {SIM_COMMUNITY_ENV}={sim.config.snmp.community}',
            "[[collectors.snmp]]",
            f'name = "{section["name"]}"',
            f'community = {{ env = "{SIM_COMMUNITY_ENV}" }}',
            f'interval = "{interval}"',
            f'tags = {{ fabric = "{section["tags"]["fabric"]}" }}',
            "targets = [",
        ]
        for t in section["targets"]:
            profile = f', profile = "{t["profile"]}"' if "profile" in t else ""
            lines.append(f'  {{ device = "{t["device"]}", address = "{t["address"]}"{profile} }},')
        lines += ["]", ""]
    for section in sim.daemon_ufm_collectors():
        lines += [
            "# the simulated UFM; export its password first:",
            f"#   export {SIM_UFM_PASSWORD_ENV}={sim.config.ufm.password}",
            "[[collectors.ufm]]",
            f'name = "{section["name"]}"',
            f'url = "{section["url"]}"',
            f'telemetry_url = "{section["telemetry_url"]}"',
            f'username = "{section["username"]}"',
            f'password = {{ env = "{SIM_UFM_PASSWORD_ENV}" }}',
            f'interval = "{interval}"',
            'tags = { fabric = "ib" }',
            "",
        ]
    return "\n".join(lines)


async def run_simulate(args: argparse.Namespace) -> int:
    try:
        cfg = load_sim_config(args.config, args.fault)
        sim = Simulator(cfg)
    except (ValueError, OSError) as exc:
        print(f"fabricwatch simulate: {exc}")
        return 2
    await sim.start()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        topo = (args.out / "topology.json").resolve()
        sim.write_topology(topo)
        (args.out / "fabricwatch.toml").write_text(daemon_config_toml(sim, args.interval, topo))
    print(json.dumps({
        "control": sim.control_url,
        "ports": len(sim.fabric.ports),
        "targets": [t.__dict__ for t in sim.targets],
        "faults": [f.to_dict() for f in sim.fabric.faults],
        **({"ufm": {"rest": sim.ufm.rest_url, "telemetry": sim.ufm.telemetry_url}} if sim.ufm else {}),
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
    import time

    from fabricwatch.simulator.host_sysfs import write_host_trees

    while not stop.is_set():
        snap = sim.fabric.snapshot(time.time_ns() // 1_000_000_000 * 1_000_000_000)
        await asyncio.to_thread(write_host_trees, sim.fabric, snap, root)
        try:
            await asyncio.wait_for(stop.wait(), every_s)
        except TimeoutError:
            pass
