"""Simulator -> gNMI -> daemon -> a real server: every stored raw counter equals what was served."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.integration.helpers import (
    counter_names,
    daemon_config,
    expected_points,
    spool_dir,
    start_runner,
    start_sim,
)
from tests.servers import InfluxDB1, VictoriaMetrics

pytestmark = pytest.mark.integration


def _check_against_served(stored: dict, expected: dict) -> int:
    """Every stored field equals the served value; every tick has every served counter (but
    the last of each device, which the stop may have cut in the middle)."""
    assert stored, "nothing was stored"
    last_tick: dict[str, int] = {}
    for device, _port, ts in stored:
        last_tick[device] = max(ts, last_tick.get(device, 0))
    ticks_checked = 0
    for key, fields in stored.items():
        assert key in expected, f"stored point {key} matches no served snapshot"
        want = expected[key]
        for name, value in fields.items():
            assert name in want, f"{key}: stored {name} which the simulator did not serve"
            assert value == want[name], f"{key} {name}: stored {value}, served {want[name]}"
        if key[2] == last_tick[key[0]] or not counter_names(fields):
            continue  # the last tick may be cut; a module's reading comes apart from the counters
        missing = counter_names(want) - set(fields)
        assert not missing, f"{key}: served but not stored: {sorted(missing)}"
        ticks_checked += 1
    return ticks_checked


async def test_v1_path_into_influxdb_1x(influx: InfluxDB1, tmp_path: Path) -> None:
    influx.create_db("fw")
    sim = await start_sim()
    cfg = daemon_config(sim, {"api": "v1", "url": influx.url, "database": "fw",
                              "flush_interval": 0.2, "spool": spool_dir(tmp_path)})
    runner, task = await start_runner(cfg, sim)
    await asyncio.sleep(4)
    runner.stop()
    assert await task == 0
    await sim.stop()

    stored = influx.series_points("fw", "port_counters")
    n = _check_against_served(stored, expected_points(sim))
    ports = {(p.device, p.name) for p in sim.fabric.ports}
    assert {(d, p) for d, p, _ in stored} == ports, "some simulated port never reached InfluxDB"
    assert n >= 3 * len(ports), "expected several samples of every port"
    # the pipeline's rates are stored beside the raw counters, tagged from the topology
    res = influx.query('SELECT count("in_octets") FROM "port_rates" GROUP BY "role"', "fw")
    roles = {s["tags"]["role"] for s in res["results"][0]["series"]}
    assert roles == {"leaf_down", "leaf_up", "spine"}
    sink = runner.sinks[0]
    assert sink.spool.pending_points == 0
    assert sink.stats.points_written == sink.spool.stats.appended_points


async def test_v2_path_into_victoriametrics(victoria: VictoriaMetrics, tmp_path: Path) -> None:
    sim = await start_sim()
    cfg = daemon_config(sim, {"api": "v2", "url": victoria.url, "bucket": "fw", "org": "lab",
                              "flush_interval": 0.2, "spool": spool_dir(tmp_path)})
    runner, task = await start_runner(cfg, sim)
    await asyncio.sleep(4)
    runner.stop()
    assert await task == 0
    await sim.stop()
    victoria.flush()

    # VictoriaMetrics keeps milliseconds: two snapshots inside one millisecond (the devices'
    # first answers) cannot be told apart there, so those instants are left out of the check
    by_ms: dict[tuple[str, str, int], list[dict[str, int]]] = {}
    for (d, p, ts), v in expected_points(sim).items():
        by_ms.setdefault((d, p, ts // 1_000_000), []).append(v)
    expected = {k: v[0] for k, v in by_ms.items() if len(v) == 1}
    stored: dict[tuple[str, str, int], dict[str, float]] = {}
    for series in victoria.export('{__name__=~"port_counters_.*"}'):
        metric = series["metric"]
        field = metric["__name__"].removeprefix("port_counters_")
        for value, ts_ms in zip(series["values"], series["timestamps"], strict=True):
            key = (metric["device"], metric["port"], ts_ms)
            if key in expected or key not in by_ms:
                stored.setdefault(key, {})[field] = value
    n = _check_against_served(stored, expected)
    ports = {(p.device, p.name) for p in sim.fabric.ports}
    assert {(d, p) for d, p, _ in stored} == ports
    assert n >= 3 * len(ports)
    assert runner.sinks[0].spool.pending_points == 0
