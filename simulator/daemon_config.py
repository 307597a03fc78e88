"""The fabricwatch.toml that polls a running simulator (what `fabricwatch simulate --out` writes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomli_w

from fabricwatch.simulator.service import SIM_COMMUNITY_ENV, SIM_UFM_PASSWORD_ENV, Simulator


def daemon_config(sim: Simulator, interval: str, topology: Path) -> dict[str, Any]:
    """The daemon config as data: spool-only InfluxDB v1 on localhost plus a section per endpoint."""
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
        "sinks": {"influxdb": [{"api": "v1", "url": "http://127.0.0.1:8086", "database": "fabricwatch",
                                "spool": {"dir": str(topology.parent / "spool")}}]},
        "collectors": collectors,
    }


def daemon_config_toml(sim: Simulator, interval: str, topology: Path) -> str:
    """The same as TOML (written by a TOML library: names and paths need no escaping by hand)."""
    header = ["# written by `fabricwatch simulate --out`: the daemon config for this simulated fabric"]
    if sim.daemon_snmp_collectors():
        header.append(f"# SNMP-only switches: export {SIM_COMMUNITY_ENV}={sim.config.snmp.community}")
    if sim.daemon_ufm_collectors():
        header.append(f"# the simulated UFM: export {SIM_UFM_PASSWORD_ENV}={sim.config.ufm.password}")
    return "\n".join(header) + "\n" + tomli_w.dumps(daemon_config(sim, interval, topology))
