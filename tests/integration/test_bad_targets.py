"""Failing targets are counted and retried while every other target stays on time."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.daemon.config import parse
from tests.apart import Runs, side_by_side
from tests.integration.helpers import start_runner, start_sim
from tests.servers import free_port

pytestmark = pytest.mark.integration

INTERVAL = 0.5


def config(sim, tmp_path: Path, extra_targets=(), **section):  # type: ignore[no-untyped-def]
    sections = sim.daemon_collectors(INTERVAL)
    for s in sections:
        s["backoff"] = {"initial": 0.2, "max": 0.5}
        s["timeout"] = 2.0
        s.update(section)
    sections[0]["targets"] = sections[0]["targets"] + list(extra_targets)
    return parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "collectors": {"gnmi": sections},
        "sinks": {"influxdb": [{"api": "v1", "database": "x", "url": f"http://127.0.0.1:{free_port()}",
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")


async def run_for(cfg, sim, seconds: float) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Run the daemon for `seconds`; what the tests check of its targets, as JSON (tests/apart.py)."""
    runner, task = await start_runner(cfg, sim)
    await asyncio.sleep(seconds)
    after = {k: (t.samples, dict(t.errors), t.up, t.unmapped) for k, t in runner.targets.items()}
    runner.stop()
    assert await task == 0
    await sim.stop()
    return {"after": after, "connects": {k: t.connects for k, t in runner.targets.items()},
            "last_error": {k.rsplit(":", 1)[-1]: t.last_error for k, t in runner.targets.items()},
            "ports": {d.name: len(d.ports) for d in sim.fabric.topology.devices.values()}}


def healthy_on_time(ran: dict[str, Any], skip: set[str], seconds: float) -> None:
    """Every healthy device delivered its ports at (nearly) every tick."""
    for key, (samples, errors, up, _) in ran["after"].items():
        device = key.rsplit(":", 1)[-1]
        if device in skip:
            continue
        ports = ran["ports"][device]
        assert up and not errors, (key, errors)
        assert samples >= ports * (seconds / INTERVAL - 3), (key, samples)


# each test's run: a simulator and the daemon on the wall clock for a few seconds, ~15% of a CPU; they
# run side by side, each in a process of its own (tests/apart.py), and each test checks its own

async def _stream_closed(tmp_path: Path) -> dict[str, Any]:
    sim = await start_sim(faults=["stream_abort:spine-1,after=30"])
    return await run_for(config(sim, tmp_path), sim, 5)


def test_stream_closed_midway_is_counted_and_reconnected(runs: Runs, request: pytest.FixtureRequest) -> None:
    ran = runs.of(request)
    key = next(k for k in ran["after"] if k.endswith(":spine-1"))
    samples, errors, _, _ = ran["after"][key]
    assert errors.get("rpc", 0) >= 3, errors  # UNAVAILABLE each time, retried with backoff
    assert samples > 0
    assert ran["connects"][key] >= 3
    healthy_on_time(ran, {"spine-1"}, 5)


async def _unreachable(tmp_path: Path) -> dict[str, Any]:
    sim = await start_sim()
    dead = {"device": "ghost", "address": f"127.0.0.1:{free_port()}"}
    # a TCP service that is not gNMI: accepts and says nothing
    other = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    mute = {"device": "mute", "address": f"127.0.0.1:{other.sockets[0].getsockname()[1]}"}
    try:
        return await run_for(config(sim, tmp_path, [dead, mute]), sim, 6)
    finally:
        other.close()


def test_unreachable_target_does_not_delay_the_others(runs: Runs, request: pytest.FixtureRequest) -> None:
    ran = runs.of(request)
    samples, errors, up, _ = next(v for k, v in ran["after"].items() if k.endswith(":ghost"))
    assert not up and samples == 0 and errors.get("connect", 0) >= 1
    healthy_on_time(ran, {"ghost", "mute"}, 6)
    # the error says why, in words an operator can act on
    said = ran["last_error"]
    assert "connection refused by 127.0.0.1:" in said["ghost"], said["ghost"]
    assert "accepts TCP but no gNMI session came up" in said["mute"], said["mute"]


async def _silent(tmp_path: Path) -> dict[str, Any]:
    sim = await start_sim(faults=["dead:leaf-r0-0"])
    return await run_for(config(sim, tmp_path, stale_after=1.0), sim, 5)


def test_silent_target_is_detected_as_stale(runs: Runs, request: pytest.FixtureRequest) -> None:
    ran = runs.of(request)
    _, errors, up, _ = next(v for k, v in ran["after"].items() if k.endswith(":leaf-r0-0"))
    assert not up and errors.get("stale", 0) >= 1, errors
    healthy_on_time(ran, {"leaf-r0-0"}, 5)


async def _unmapped(tmp_path: Path) -> dict[str, Any]:
    sim = await start_sim()
    return await run_for(config(sim, tmp_path), sim, 3)


def test_unmapped_paths_are_counted_data_still_flows(runs: Runs, request: pytest.FixtureRequest) -> None:
    after = runs.of(request)["after"]
    # devices send leaves fabricwatch does not map, as the recorded ones do (broadcast and multicast
    # breakdowns, size buckets, queue octets; SONiC's IP and IPv6 counters)
    spine0 = next(v for k, v in after.items() if k.endswith(":spine-0"))
    assert spine0[3] > 0 and spine0[0] > 0
    sonic = next(v for k, v in after.items() if k.endswith(":leaf-r1-0"))
    assert sonic[3] > 0 and sonic[0] > 0


async def _wrong_password(tmp_path: Path) -> dict[str, Any]:
    os.environ["SIM_PW"], os.environ["DAEMON_PW"] = "right", "wrong"  # the run's own process
    sim = await start_sim(gnmi={"username": "noc", "password": {"env": "SIM_PW"}})
    return await run_for(config(sim, tmp_path, username="noc", password={"env": "DAEMON_PW"}, insecure=True), sim, 2)


def test_wrong_password_is_an_auth_error(runs: Runs, request: pytest.FixtureRequest) -> None:
    for _key, (samples, errors, up, _) in runs.of(request)["after"].items():
        assert samples == 0 and not up and errors.get("auth", 0) >= 1, errors


RUNS = {"test_stream_closed_midway_is_counted_and_reconnected": _stream_closed,
        "test_unreachable_target_does_not_delay_the_others": _unreachable,
        "test_silent_target_is_detected_as_stale": _silent,
        "test_unmapped_paths_are_counted_data_still_flows": _unmapped,
        "test_wrong_password_is_an_auth_error": _wrong_password}
runs = side_by_side(at_once=5)


async def test_readyz_says_what_ready_means_and_can_require_targets_up(tmp_path: Path) -> None:
    import aiohttp

    from tests.integration.helpers import start_runner

    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "collectors": {"gnmi": [{"flavour": "arista", "timeout": 1.0, "backoff": {"initial": 0.2, "max": 0.5},
                                 "targets": [{"device": "ghost", "address": f"127.0.0.1:{free_port()}"}]}]},
        "sinks": {"influxdb": [{"api": "v1", "database": "x", "url": f"http://127.0.0.1:{free_port()}",
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg)
    try:
        assert runner.http is not None
        async with aiohttp.ClientSession() as s:
            async with s.get(f"{runner.http.url}/readyz") as resp:
                plain = (resp.status, await resp.json())
            async with s.get(f"{runner.http.url}/readyz?require=any") as resp:
                some = (resp.status, await resp.json())
            async with s.get(f"{runner.http.url}/readyz?require=maybe") as resp:
                bad = resp.status
    finally:
        runner.stop()
        assert await task == 0
    assert plain[0] == 200 and plain[1]["ready"] is True
    assert plain[1]["targets"] == 1 and plain[1]["targets_up"] == 0 and plain[1]["targets_down"] == ["ghost"]
    assert "targets may be down" in plain[1]["means"]
    assert some[0] == 503 and some[1]["reason"] == "no target up (0 of 1)"
    assert bad == 400
