"""The same fault is found through every collector path (issue #35, item 6): the daemon against the
simulator over the real protocol, rules only, short intervals; each test names its path and fault."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.daemon.config import parse
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.service import Simulator
from tests.integration.helpers import start_runner, start_sim
from tests.servers import free_port

pytestmark = pytest.mark.integration

INTERVAL_S = 2.0  # the detector's; collectors poll every second (the simulator's clock ticks in seconds)
FLAP_WINDOW = 4  # intervals the flap rule counts transitions over (models/README.md)
WARMUP_S = 3 * INTERVAL_S  # every link has rates and a closed interval before the fault


@dataclass
class Outcome:
    raised_after_s: float | None  # from the injection to the fault's link being flagged
    findings: dict[tuple[str, str], Any]  # every finding seen, the first of each link


def _config(collectors: dict[str, Any], tmp: Path) -> Any:
    return parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "detector": {"interval": INTERVAL_S},
        "collectors": collectors,
        # nobody answers: the spool keeps the points; the test reads the detector
        "sinks": {"influxdb": [{"api": "v1", "url": f"http://127.0.0.1:{free_port()}", "database": "x",
                                "flush_interval": 0.2, "spool": {"dir": str(tmp / "spool")}}]},
    }, "<test>")


async def _run(sim: Simulator, collectors: dict[str, Any], tmp: Path, fault: Fault | None,
               deadline_s: float) -> Outcome:
    """Start the daemon, inject `fault` after a warm-up, watch the findings for `deadline_s`."""
    runner, task = await start_runner(_config(collectors, tmp), sim)
    assert runner.detector is not None
    seen: dict[tuple[str, str], Any] = {}
    raised: float | None = None
    try:
        await asyncio.sleep(WARMUP_S)
        if fault is not None:
            sim.fabric.inject(fault)
        t0 = time.monotonic()
        while time.monotonic() - t0 < deadline_s:
            await asyncio.sleep(0.25)
            for key, f in runner.detector.active.items():
                seen.setdefault(key, f)
            if fault is not None and raised is None and (fault.device, fault.port) in seen:
                raised = time.monotonic() - t0
                break
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    return Outcome(raised, seen)


async def test_ufm_flapping_link_is_flagged_within_the_flap_window(tmp_path: Path) -> None:
    """Path: UFM (REST + Telemetry CSV). Fault: a link flapping every 4 s. UFM's Telemetry counts
    LinkDownedCounter, not carrier transitions; the flap rule must still see the link go down and
    up again and again, within its window (4 intervals) and the interval that closes it."""
    sim = await start_sim(fabric={"nodes": 4, "rails": 2, "spines": 2}, ufm={"enabled": True})
    collectors = {"ufm": sim.daemon_ufm_collectors(1.0)}
    fault = Fault.parse("flap:leaf-r0-0:1,period=4")
    out = await _run(sim, collectors, tmp_path, fault, deadline_s=(FLAP_WINDOW + 3) * INTERVAL_S)
    assert out.raised_after_s is not None, f"the flapping link was not flagged; findings: {sorted(out.findings)}"
    f = out.findings[("leaf-r0-0", "1")]
    assert "flap" in f.conditions and "link flapped" in f.explanation, f.explanation
