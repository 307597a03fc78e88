"""The SNMP collector inside the daemon: simulated SNMP switches into a real InfluxDB, and bad agents."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.core.batch import SampleBatch
from fabricwatch.daemon.runner import Runner
from tests.integration.helpers import collectors_config, start_runner, start_sim
from tests.servers import InfluxDB1, free_port

pytestmark = pytest.mark.integration

M32 = (1 << 32) - 1
WIDE = {"in_octets", "in_pkts", "out_octets", "out_pkts"}
NARROW = {"in_errors", "out_errors", "in_discards", "out_discards"}
PFC = {f"pfc_{d}_p{p}" for d in ("rx", "tx") for p in range(8)}


def snmp_served(flavour: str, values: dict[str, int]) -> dict[str, int]:
    """What a simulated switch of this flavour answers over SNMP, in canonical names (from the MIBs:
    Counter32 for ifTable and dot3PauseTable, Counter64 in ifXTable and the vendor PFC tables)."""
    out = {k: values[k] for k in WIDE}
    out.update({k: values[k] & M32 for k in NARROW})
    out["oper_status"] = values["oper_status"]
    if flavour == "cumulus":  # pfcClCountersTable carries 64-bit link pause and the carrier count
        out.update({k: values[k] for k in ("pause_rx", "pause_tx", "link_transitions")})
    else:
        out.update({k: values[k] & M32 for k in ("pause_rx", "pause_tx")})
    if flavour in ("cumulus", "arista", "sonic"):
        out.update({k: values[k] for k in PFC})
    return out


async def test_simulated_snmp_switches_into_influxdb(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("fwsnmp")
    sim = await start_sim(snmp={"every": 1}, history=400)  # every switch speaks SNMP only
    assert {t.protocol for t in sim.targets} == {"snmp"}
    assert {t.flavour for t in sim.targets} == {"openconfig", "arista", "cumulus", "sonic"}
    cfg = collectors_config("snmp", sim.daemon_snmp_collectors(1.0), tmp_path, influx_url=influx.url,
                            database="fwsnmp")
    runner, task = await start_runner(cfg, sim)
    await asyncio.sleep(5)
    runner.stop()
    assert await task == 0
    await sim.stop()

    flavours = {d.name: d.flavour for d in sim.fabric.topology.devices.values()}
    ports = {(p.device, p.name): p for p in sim.fabric.ports}
    # the agents answer from snapshots on whole seconds; a poll reads the latest one before it ends
    snaps = sorted((s for s in sim.fabric.kept_snapshots() if s.ts_ns % 1_000_000_000 == 0),
                   key=lambda s: s.ts_ns)
    stored = influx.series_points("fwsnmp", "port_counters")
    assert {(d, p) for d, p, _ in stored} == set(ports), "every simulated port reached InfluxDB"
    checked = 0
    for (device, port, ts), fields in stored.items():
        candidates = [s for s in snaps if s.ts_ns <= ts][-2:]
        assert candidates, f"{device} {port}: stored before any snapshot"
        served = [snmp_served(flavours[device], s.port_values(ports[(device, port)])) for s in candidates]
        for name, _want in served[-1].items():
            assert name in fields, f"{device} {port} {ts}: {name} served but not stored"
            assert fields[name] in {sv[name] for sv in served}, f"{device} {port} {name}: {fields[name]}"
        assert fields["speed_bps"] == ports[(device, port)].speed_bps
        checked += 1
    assert checked >= 3 * len(ports)
    res = influx.query('SELECT count("in_octets") FROM "port_rates" GROUP BY "device"', "fwsnmp")
    assert {s["tags"]["device"] for s in res["results"][0]["series"]} == set(flavours)


async def test_bad_agents_are_counted_while_the_good_one_stays_on_time(tmp_path: Path) -> None:
    sim = await start_sim(snmp={"every": 1})
    modes = {"spine-0": "normal", "spine-1": "silent", "leaf-r0-0": "garbage", "leaf-r1-0": "truncated"}
    for device, mode in modes.items():
        sim.snmp_agents[device].mode = mode
    [section] = sim.daemon_snmp_collectors(1.0)
    nobody = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # bound, never answers
    nobody.bind(("127.0.0.1", 0))
    section["targets"].append({"device": "black-hole", "address": f"127.0.0.1:{nobody.getsockname()[1]}"})
    section["targets"].append({"device": "refused", "address": f"127.0.0.1:{free_port()}"})
    section.update(timeout=0.4, retries=1, backoff={"initial": 0.2, "max": 0.5})
    cfg = collectors_config("snmp", [section], tmp_path)
    arrivals: dict[str, list[float]] = {}

    def prepare(runner: Runner) -> None:
        handle = runner.ingest.handle

        async def timed(batch: SampleBatch, status: Any = None, *, target: str = "", accounted: bool = False) -> None:
            arrivals.setdefault(batch.device, []).append(time.monotonic())
            await handle(batch, status, target=target, accounted=accounted)

        runner.ingest.handle = timed  # type: ignore[method-assign]

    runner, task = await start_runner(cfg, sim, prepare)
    await asyncio.sleep(6)
    status = {t.device: t for t in runner.targets.values()}
    metrics = runner.metrics.exposition().decode()
    runner.stop()
    assert await task == 0
    await sim.stop()
    nobody.close()

    # polled every second for 6 s: polls queued behind the three silent agents' timeouts and
    # retries (3 x 0.4 s x 2 a round) would give the healthy agent two or three, not five
    good = arrivals["spine-0"]
    assert len(good) >= 5, f"the healthy agent's polls were held back by the bad ones: {len(good)}"
    assert not status["spine-0"].errors
    assert set(arrivals) == {"spine-0"}
    for device, kind in (("spine-1", "timeout"), ("black-hole", "timeout"), ("refused", "timeout"),
                         ("leaf-r0-0", "garbage"), ("leaf-r1-0", "garbage")):
        st = status[device]
        assert st.errors.get(kind, 0) >= 2, (device, st.errors)  # counted and retried
        assert device in st.last_error
        assert not st.up
    # what the operator sees: per-target error counters on /metrics, by kind
    assert 'kind="garbage"' in metrics and 'device="leaf-r0-0"' in metrics
    garbage = [line for line in metrics.splitlines() if line.startswith("fabricwatch_target_activity_total")
               and 'device="leaf-r1-0"' in line and 'what="garbage"' in line]
    assert garbage and float(garbage[0].rsplit(" ", 1)[1]) >= 2  # truncated answers, counted per datagram
    polls = [line for line in metrics.splitlines() if line.startswith("fabricwatch_target_activity_total")
             and 'device="spine-0"' in line and 'what="polls"' in line]
    assert polls and float(polls[0].rsplit(" ", 1)[1]) >= 4
