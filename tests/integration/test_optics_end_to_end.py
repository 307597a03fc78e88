"""The physical layer end to end: simulator (gNMI, SNMP, UFM) -> daemon -> a real InfluxDB. DOM and
FEC equal what the simulator served; a module's inventory is stored once, not per reading."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from fabricwatch.simulator.flavours import served_optics
from fabricwatch.simulator.ufm_server import phy_values
from tests.integration.helpers import collectors_config, daemon_config, spool_dir, start_runner, start_sim
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration

DOM = ("temperature_c", "voltage_v", "pre_fec_ber", "rx_power_dbm_l3", "tx_bias_ma_l1", "rx_power_dbm_low_warn")


def _readings(influx: InfluxDB1, db: str, ports: set[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """DOM readings stored so far, per port of `ports`."""
    out = dict.fromkeys(ports, 0)
    for (device, port, _ts), fields in influx.series_points(db, "port_counters").items():
        if "temperature_c" in fields and (device, port) in out:
            out[(device, port)] += 1
    return out


def _inventory(influx: InfluxDB1, db: str) -> dict[tuple[str, str], list[dict]]:
    out: dict[tuple[str, str], list[dict]] = {}
    for (device, port, _ts), fields in influx.series_points(db, "transceivers").items():
        out.setdefault((device, port), []).append(fields)
    return out


async def test_gnmi_optics_and_inventory_into_influxdb(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("fwopt")
    sim = await start_sim()
    cfg = daemon_config(sim, {"api": "v1", "url": influx.url, "database": "fwopt", "flush_interval": 0.2,
                              "spool": spool_dir(tmp_path)}, interval=0.5, optics_interval=1.0)
    runner, task = await start_runner(cfg, sim)
    # the optics are read every second: run until every port has three readings stored (about 5 s;
    # longer on a loaded machine), at most 30 s
    every = {(p.device, p.name) for p in sim.fabric.ports}
    for _ in range(30):
        await asyncio.sleep(1)
        if all(n >= 3 for n in _readings(influx, "fwopt", every).values()):
            break
    runner.stop()
    assert await task == 0
    await sim.stop()

    snaps = {s.ts_ns: s for s in sim.fabric.kept_snapshots()}
    flavour = {d.name: d.flavour for d in sim.fabric.topology.devices.values()}
    ports = {(p.device, p.name): p for p in sim.fabric.ports}
    readings: dict[tuple[str, str], int] = {}
    for (device, port, ts), fields in influx.series_points("fwopt", "port_counters").items():
        if "temperature_c" not in fields and "fec_corrected" not in fields:
            continue
        want = served_optics(flavour[device], ports[(device, port)], snaps[ts])
        for name, value in want.items():
            if name in fields:
                assert fields[name] == value, f"{device} {port} {ts} {name}: stored {fields[name]}, served {value}"
        if "temperature_c" in fields:
            assert all(n in fields for n in DOM), f"{device} {port}: a DOM reading without all its values"
            readings[(device, port)] = readings.get((device, port), 0) + 1
    # every flavour: OpenConfig components, and SONiC's STATE_DB asked ONCE beside its COUNTERS_DB stream
    assert set(readings) == set(ports)
    assert all(n >= 3 for n in readings.values()), "the optics were read at their interval, again and again"
    inventory = _inventory(influx, "fwopt")
    assert set(inventory) == set(ports)
    for key, points in inventory.items():
        assert len(points) == 1, f"{key}: inventory stored {len(points)} times while it did not change"
        assert points[0]["serial"] == sim.fabric.module(ports[key])["serial"]
        assert points[0]["module_type"] in ("QSFP112", "QSFP28")  # the identity's prefix is gone


async def test_snmp_dom_and_inventory_into_influxdb(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("fwoptsnmp")
    sim = await start_sim(snmp={"every": 1}, history=400)
    sections = sim.daemon_snmp_collectors(1.0)
    for s in sections:
        s["optics_interval"] = 2.0
    cfg = collectors_config("snmp", sections, tmp_path, influx_url=influx.url, database="fwoptsnmp")
    runner, task = await start_runner(cfg, sim)
    await asyncio.sleep(5)
    runner.stop()
    assert await task == 0
    await sim.stop()

    ports = {(p.device, p.name): p for p in sim.fabric.ports}
    flavour = {d.name: d.flavour for d in sim.fabric.topology.devices.values()}
    snaps = sorted((s for s in sim.fabric.kept_snapshots() if s.ts_ns % 1_000_000_000 == 0), key=lambda s: s.ts_ns)
    seen: set[tuple[str, str]] = set()
    for (device, port, ts), fields in influx.series_points("fwoptsnmp", "port_counters").items():
        if "rx_power_dbm_l1" not in fields:
            continue
        seen.add((device, port))
        # the agent answers from the snapshot of the second it is asked in; a poll is stamped when its
        # counters are in, and its DOM walk comes after them (seconds later on a loaded machine)
        candidates = [served_optics("openconfig", ports[(device, port)], s) for s in snaps
                      if ts - 3_000_000_000 <= s.ts_ns <= ts + 10_000_000_000]
        for name in ("rx_power_dbm_l1", "rx_power_dbm_l4", "tx_power_dbm_l2"):
            # served in watts at 10^-7 W steps: equal to the model's dBm within that quantisation
            assert any(math.isclose(fields[name], c[name], abs_tol=0.02) for c in candidates), (device, port, name)
        assert any(math.isclose(fields["tx_bias_ma_l3"], c["tx_bias_ma_l3"], abs_tol=0.002) for c in candidates)
        assert any(math.isclose(fields["temperature_c"], c["temperature_c"], abs_tol=0.06) for c in candidates)
        if flavour[device] == "arista":  # ARISTA-ENTITY-SENSOR-MIB thresholds
            assert math.isclose(fields["rx_power_dbm_low_warn"], -10.0, abs_tol=0.01)
    assert seen == set(ports), "DOM from every port, placed by name (SONiC, EOS) or by entAliasMapping (the rest)"
    inventory = _inventory(influx, "fwoptsnmp")
    assert set(inventory) == set(ports) and all(len(v) == 1 for v in inventory.values())


async def test_ufm_phy_and_cable_inventory_into_influxdb(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("fwoptufm")
    sim = await start_sim(ufm={"enabled": True}, fabric={"nodes": 4, "rails": 2, "spines": 2, "fabric": "ib"})
    cfg = collectors_config("ufm", sim.daemon_ufm_collectors(1.0), tmp_path, influx_url=influx.url,
                            database="fwoptufm")
    runner, task = await start_runner(cfg, sim)
    await asyncio.sleep(4)
    runner.stop()
    assert await task == 0
    await sim.stop()

    stored = influx.series_points("fwoptufm", "port_counters")
    snaps = {s.ts_ns: s for s in sim.fabric.kept_snapshots()}
    ports = {(p.device, p.name): p for p in sim.fabric.ports}
    checked = 0
    for (device, port, ts), fields in stored.items():
        if "ib_raw_ber" not in fields:
            continue
        served = phy_values(snaps[ts], ports[(device, port)])  # the CSV cells UFM served at that instant
        assert fields["ib_raw_ber"] == float(served["Total_Raw_BER"])
        assert fields["temperature_c"] == float(served["Module_Temperature"])
        for n in range(4):
            assert fields[f"rx_power_dbm_l{n + 1}"] == float(served[f"RX_Power_Lane_{n}"])
            assert fields[f"tx_bias_ma_l{n + 1}"] == float(served[f"TX_Bias_Lane_{n}"])
            assert fields[f"lane_errors_l{n + 1}"] == int(served[f"Raw_Errors_Lane_{n}"])
        assert fields["fec_uncorrectable"] == 0
        checked += 1
    assert checked >= len(ports)
    inventory = _inventory(influx, "fwoptufm")
    assert inventory and all(len(v) == 1 and v[0]["length_m"] == "3" for v in inventory.values())
