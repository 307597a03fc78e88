"""UFM collector against the simulated UFM over real HTTP: into InfluxDB, events, and bad answers."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.collectors.ufm.config import UfmConfig
from fabricwatch.core.errors import TargetError
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.service import Simulator
from fabricwatch.simulator.ufm_server import CSV_PATH, telemetry_values
from tests.integration.helpers import collectors_config, start_runner, start_sim
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration

# Telemetry column -> canonical counter, octets from 4-octet words (IBA PortCountersExtended)
CANONICAL = {
    "PortXmitDataExtended": ("out_octets", 4), "PortRcvDataExtended": ("in_octets", 4),
    "PortXmitPktsExtended": ("out_pkts", 1), "PortRcvPktsExtended": ("in_pkts", 1),
    "SymbolErrorCounter": ("symbol_errors", 1), "LinkErrorRecoveryCounter": ("link_error_recovery", 1),
    "LinkDownedCounter": ("link_downed", 1), "PortRcvErrors": ("rcv_errors", 1),
    "PortRcvRemotePhysicalErrors": ("rcv_remote_physical_errors", 1),
    "PortRcvSwitchRelayErrors": ("rcv_switch_relay_errors", 1), "PortXmitDiscards": ("xmit_discards", 1),
    "PortXmitConstraintErrors": ("xmit_constraint_errors", 1),
    "PortRcvConstraintErrors": ("rcv_constraint_errors", 1),
    "LocalLinkIntegrityErrors": ("local_link_integrity_errors", 1),
    "ExcessiveBufferOverrunErrors": ("excessive_buffer_overrun_errors", 1), "VL15Dropped": ("vl15_dropped", 1),
    "PortXmitWaitExtended": ("xmit_wait", 1),
}


def _collector(sim: Simulator, **overrides: Any) -> Any:
    [section] = sim.daemon_ufm_collectors(1.0)
    section.update(overrides)
    [c] = UfmConfig.model_validate(section).build()
    return c


async def test_simulated_ufm_into_influxdb_with_events_and_saturation(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("fwufm")
    sim = await start_sim(ufm={"enabled": True}, history=400)
    [section] = sim.daemon_ufm_collectors(1.0)
    section["events_interval"] = 0.5
    cfg = collectors_config("ufm", [section], tmp_path, influx_url=influx.url, database="fwufm")
    runner, task = await start_runner(cfg, sim)
    await asyncio.sleep(2.5)
    # faults injected while the daemon runs show up as UFM events
    sim.fabric.inject(Fault.parse("flap:leaf-r0-0:1,period=1"))
    sim.fabric.inject(Fault.parse("ber:leaf-r1-0:2,rate=60000"))  # 16-bit SymbolErrorCounter full in ~1 s
    await asyncio.sleep(5)
    runner.stop()
    assert await task == 0
    await sim.stop()

    ports = {(p.device, p.name): p for p in sim.fabric.ports}
    snaps = {s.ts_ns: s for s in sim.fabric.kept_snapshots()}
    stored = influx.series_points("fwufm", "port_counters")
    assert {(d, p) for d, p, _ in stored} == set(ports), "every simulated IB port reached InfluxDB"
    checked = 0
    for (device, port, ts), fields in stored.items():
        assert ts in snaps, "points carry the Telemetry timestamp of the snapshot served"
        served = telemetry_values(snaps[ts], ports[(device, port)])
        for column, (name, scale) in CANONICAL.items():
            assert fields[name] == served[column] * scale, f"{device} {port} {name}"
        checked += 1
    assert checked >= 4 * len(ports)

    res = influx.query('SELECT "detail","event_id" FROM "link_events" GROUP BY "device","port","kind","source"',
                       "fwufm")
    seen = {(s["tags"]["device"], s["tags"]["port"], s["tags"]["kind"]) for s in res["results"][0]["series"]}
    assert ("leaf-r1-0", "2", "ufm_symbol_error_counter_rate_exceeded_threshold") in seen
    assert ("leaf-r1-0", "2", "unhealthy") in seen
    assert ("leaf-r0-0", "1", "ufm_link_went_down") in seen
    # the saturated 16-bit counter: a finding, and no rate while it sits at its ceiling
    assert ("leaf-r1-0", "2", "saturated") in seen
    sat = [f for (d, p, _), f in sorted(stored.items(), key=lambda kv: kv[0][2])
           if (d, p) == ("leaf-r1-0", "2") and f["symbol_errors"] == 65535]
    assert len(sat) >= 3
    rates = influx.query("SELECT \"symbol_errors\",\"symbol_errors_saturated\" FROM \"port_rates\" "
                         "WHERE \"device\"='leaf-r1-0' AND \"port\"='2'", "fwufm")
    rows = rates["results"][0]["series"][0]["values"]
    stuck = [r for r in rows if r[2] is True]
    assert stuck and all(r[1] is None for r in stuck[1:]), "no bogus rate while stuck at 65535"


async def test_each_bad_answer_is_counted_and_the_rest_of_the_poll_goes_on() -> None:
    sim = await start_sim(ufm={"enabled": True})
    assert sim.ufm is not None
    broken = sim.ufm.state.broken
    try:
        c = _collector(sim, timeout=1.0)
        async with c:
            good = await c.poll()
            n_ports = len(good.samples)
            assert n_ports == len(sim.fabric.ports) and not good.problems

            broken["app/events"] = "500"
            c._events_at = float("-inf")
            b = await c.poll()
            assert len(b.samples) == n_ports
            assert [k for k, _ in b.problems] == ["http"] and "HTTP 500" in b.problems[0][1]
            broken.clear()

            # events read but unhealthy_ports failing: the events are kept, the failure counted
            sim.fabric.inject(Fault.parse("ber:leaf-r0-0:1,rate=5"))
            broken["app/unhealthy_ports"] = "500"
            c._events_at = float("-inf")
            b = await c.poll()
            assert [e.kind for e in b.events] == ["ufm_symbol_error_counter_rate_exceeded_threshold"]
            assert [k for k, _ in b.problems] == ["http"] and "unhealthy_ports: HTTP 500" in b.problems[0][1]
            broken.clear()
            sim.fabric.clear_faults()

            broken["resources/systems"] = "html"
            c._inventory_at = float("-inf")
            b = await c.poll()
            assert len(b.samples) == n_ports
            kinds = dict(b.problems)
            assert "expected JSON, got text/html" in kinds["decode"] and "sim-ufm" in kinds["decode"]
            broken.clear()

            broken[CSV_PATH] = "slow"
            c._events_at = float("-inf")
            b = await c.poll()
            assert b.samples == [] and [k for k, _ in b.problems] == ["timeout"]
            broken.clear()

            broken[CSV_PATH] = "column"
            b = await c.poll()
            assert len(b.samples) == n_ports and not b.problems and c.unmapped >= 1

            broken[CSV_PATH] = "truncated"
            b = await c.poll()
            assert len(b.samples) == n_ports - 1
            assert b.problems[0][0] == "telemetry" and f"line {n_ports + 1} truncated" in b.problems[0][1]
            broken.clear()

        fresh = _collector(sim)
        broken["resources/ports"] = "rename"
        async with fresh:
            b = await fresh.poll()
        assert len(b.samples) == n_ports  # the systems list still names the switches
        assert {s.device for s in b.samples} == set(sim.fabric.topology.devices)
        schema = [m for k, m in b.problems if k == "schema"]
        assert schema and "no systemID/guid or number" in schema[0]
        broken.clear()
    finally:
        await sim.stop()
    down = _collector(sim)
    async with down:
        with pytest.raises(TargetError) as err:
            await down.poll()  # nothing answers: every part failed, the session fails
    assert err.value.kind == "connect"


async def test_bad_credentials_are_a_clear_auth_error_not_a_tight_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sim = await start_sim(ufm={"enabled": True})
    assert sim.ufm is not None
    [section] = sim.daemon_ufm_collectors(1.0, token=True)
    monkeypatch.setenv("FW_BAD_TOKEN", "not-the-token")
    section["token"] = {"env": "FW_BAD_TOKEN"}
    cfg = collectors_config("ufm", [section], tmp_path)
    runner, task = await start_runner(cfg, sim)
    await asyncio.sleep(4)
    [status] = runner.targets.values()
    runner.stop()
    assert await task == 0
    await sim.stop()
    assert status.errors.get("auth", 0) >= 1 and not status.up
    assert "sim-ufm" in status.last_error and "/ufmRestV3/" in status.last_error and "credentials" in status.last_error
    assert "not-the-token" not in status.last_error
    assert sim.ufm.state.unauthorized <= 3, "401s must back off (5 s first), not hammer UFM"


async def test_tls_is_verified_by_default_and_a_ca_file_makes_it_work(tmp_path: Path) -> None:
    from tests.certs import self_signed

    cert, key = self_signed(tmp_path, "ufm.sim", ip="127.0.0.1")
    sim = await start_sim(ufm={"enabled": True, "tls_cert_file": str(cert), "tls_key_file": str(key)})
    try:
        assert sim.ufm is not None and sim.ufm.rest_url.startswith("https://")
        unverified = _collector(sim)  # default: verify against the system CAs, which do not know this one
        async with unverified:
            b = await unverified.poll()  # Telemetry (plain HTTP here) still answers; REST fails
        assert b.samples and {k for k, _ in b.problems} == {"connect"}
        assert any("certificate" in m.lower() for _, m in b.problems)
        trusted = _collector(sim, tls={"ca_file": str(cert)})
        async with trusted:
            b = await trusted.poll()
        assert not b.problems and {s.device for s in b.samples} == set(sim.fabric.topology.devices)
    finally:
        await sim.stop()


async def test_a_hostile_ufm_fails_only_the_part_it_answers_and_is_read_up_to_a_cap() -> None:
    """JSON nested 200k deep on resources/systems is a decode error of the inventory (it failed the
    whole poll with a RecursionError); 600 MB on the Telemetry or a REST path, announced or chunked,
    is read up to max_response_bytes and refused (it was read whole: RSS 2 GB)."""
    import resource

    sim = await start_sim(ufm={"enabled": True})
    assert sim.ufm is not None
    broken = sim.ufm.state.broken
    try:
        c = _collector(sim, timeout=5.0, max_response_bytes=4 << 20)
        async with c:
            n_ports = len((await c.poll()).samples)
            broken["resources/systems"] = "nested"
            c._inventory_at = float("-inf")
            b = await c.poll()
            assert len(b.samples) == n_ports
            assert [k for k, _ in b.problems] == ["decode"] and "nested" in b.problems[0][1]
            broken.clear()
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            for how in ("huge", "huge-chunked"):
                broken[CSV_PATH] = how
                b = await c.poll()
                assert b.samples == [] and [k for k, _ in b.problems] == ["http"]
                assert "max_response_bytes" in b.problems[0][1]
                broken.clear()
                broken["app/events"] = how
                c._events_at = float("-inf")
                b = await c.poll()
                assert len(b.samples) == n_ports and [k for k, _ in b.problems] == ["http"]
                broken.clear()
            assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 100 << 10  # KiB: under 100 MB
            assert len((await c.poll()).samples) == n_ports
    finally:
        await sim.stop()
