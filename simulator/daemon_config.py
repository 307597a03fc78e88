"""The fabricwatch.toml that polls a running simulator (what `fabricwatch simulate --out` writes)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import tomli_w

from fabricwatch.simulator.service import SIM_COMMUNITY_ENV, SIM_UFM_PASSWORD_ENV, Simulator


def sim_database(sim: Simulator, folder: Path) -> str:
    """The simulation's own database, from its folder and fabric (`/tmp/sim` -> `fabricwatch_sim_roce`):
    never the demo's `fabricwatch`, whose switches carry the same names."""
    slug = re.sub(r"[^a-z0-9]+", "_", folder.resolve().name.lower()).strip("_") or "sim"
    return f"fabricwatch_{slug}_{sim.config.fabric.fabric}"


def daemon_config(sim: Simulator, interval: str, topology: Path, database: str | None = None) -> dict[str, Any]:
    """The daemon config as data: InfluxDB v1 on localhost (the simulation's own database, created when
    missing) with a spool, plus a section per endpoint."""
    collectors: dict[str, list[dict[str, Any]]] = {}
    for section in sim.daemon_collectors():
        gnmi: dict[str, Any] = {"name": section["name"], "flavour": section["flavour"],
                                "sample_interval": interval, "tags": {"fabric": section["tags"]["fabric"]}}
        if "username" in section:
            gnmi["username"] = section["username"]
        gnmi["targets"] = [{"device": t["device"], "address": t["address"]} for t in section["targets"]]
        collectors.setdefault("gnmi", []).append(gnmi)
    for section in sim.daemon_snmp_collectors():
        collectors.setdefault("snmp", []).append({
            "name": section["name"], "community": {"env": SIM_COMMUNITY_ENV}, "interval": interval,
            "tags": {"fabric": section["tags"]["fabric"]},
            "targets": [{"device": t["device"], "address": t["address"],
                         **({"profile": t["profile"]} if "profile" in t else {})} for t in section["targets"]],
        })
    for section in sim.daemon_ufm_collectors():
        collectors.setdefault("ufm", []).append({
            "name": section["name"], "url": section["url"], "telemetry_url": section["telemetry_url"],
            "username": section["username"], "password": {"env": SIM_UFM_PASSWORD_ENV}, "interval": interval,
            "tags": {"fabric": "ib"},
        })
    return {
        "daemon": {"topology": str(topology)},
        "sinks": {"influxdb": [{"api": "v1", "url": "http://127.0.0.1:8086",
                                "database": database or sim_database(sim, topology.parent), "create_database": True,
                                "spool": {"dir": str(topology.parent / "spool")}}]},
        "collectors": collectors,
    }


def daemon_config_toml(sim: Simulator, interval: str, topology: Path, database: str | None = None) -> str:
    """The same as TOML (written by a TOML library: names and paths need no escaping by hand)."""
    db = database or sim_database(sim, topology.parent)
    header = ["# written by `fabricwatch simulate --out`: the daemon config for this simulated fabric",
              f"# stored in its own database {db!r} (created when missing), apart from the demo's 'fabricwatch'"]
    if sim.daemon_snmp_collectors():
        header.append(f"# SNMP-only switches: export {SIM_COMMUNITY_ENV}={sim.config.snmp.community}")
    if sim.daemon_ufm_collectors():
        header.append(f"# the simulated UFM: export {SIM_UFM_PASSWORD_ENV}={sim.config.ufm.password}")
    return "\n".join(header) + "\n" + tomli_w.dumps(daemon_config(sim, interval, topology, db))
