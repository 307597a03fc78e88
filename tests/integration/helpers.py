"""Run the simulator and the daemon in the test's event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fabricwatch.core.topology import Topology
from fabricwatch.daemon.config import parse
from fabricwatch.daemon.runner import Runner
from fabricwatch.simulator.fabric import COUNTER_NAMES
from fabricwatch.simulator.flavours import served, served_optics
from fabricwatch.simulator.service import SimConfig, Simulator


async def start_sim(**overrides: Any) -> Simulator:
    data: dict[str, Any] = {"fabric": {"nodes": 4, "rails": 2, "spines": 2}, "history": 400}
    data.update(overrides)
    sim = Simulator(SimConfig.model_validate(data))
    await sim.start()
    return sim


def daemon_config(sim: Simulator, sink: dict[str, Any], interval: float = 0.5,
                  **collector_overrides: Any) -> Any:
    sections = sim.daemon_collectors(interval)
    for s in sections:
        s.update(collector_overrides)
        s.setdefault("backoff", {"initial": 0.2, "max": 1.0})
    snmp = sim.daemon_snmp_collectors(interval)
    for s in snmp:
        s["backoff"] = {"initial": 0.2, "max": 1.0}
    return parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "collectors": {"gnmi": sections, "snmp": snmp},
        "sinks": {"influxdb": [sink]},
    }, "<test>")


async def start_runner(
    cfg: Any, sim: Simulator | None = None, prepare: Callable[[Runner], None] | None = None
) -> tuple[Runner, asyncio.Task[int]]:
    runner = Runner(cfg)
    if sim is not None:
        runner.pipeline.topology = Topology.from_records(sim.fabric.topology.records())
    if prepare is not None:
        prepare(runner)
    task = asyncio.create_task(runner.run(install_signals=False))
    for _ in range(100):
        if runner.ready:
            break
        await asyncio.sleep(0.05)
    return runner, task


def expected_points(sim: Simulator) -> dict[tuple[str, str, int], dict[str, int]]:
    """(device, port, ts) -> canonical values the simulator could have served at ts."""
    out = {}
    for snap in sim.fabric.kept_snapshots():
        for dev in sim.fabric.topology.devices.values():
            for port in dev.ports:
                out[(dev.name, port.name, snap.ts_ns)] = {**served(dev.flavour, snap.port_values(port)),
                                                          **served_optics(dev.flavour, port, snap)}
    return out


def counter_names(values: dict[str, int]) -> set[str]:
    return {k for k in values if k in COUNTER_NAMES}


def spool_dir(tmp: Path) -> dict[str, str]:
    return {"dir": str(tmp / "spool")}


def collectors_config(kind: str, sections: list[dict[str, Any]], tmp: Path, *, influx_url: str | None = None,
                      database: str = "x") -> Any:
    """A daemon config with these collector sections and one InfluxDB v1 sink; without a URL the
    sink points at a closed port (the test looks at the collectors, the spool keeps the points)."""
    from tests.servers import free_port

    url = influx_url or f"http://127.0.0.1:{free_port()}"
    return parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "collectors": {kind: sections},
        "sinks": {"influxdb": [{"api": "v1", "url": url, "database": database, "flush_interval": 0.2,
                                "spool": spool_dir(tmp)}]},
    }, "<test>")
