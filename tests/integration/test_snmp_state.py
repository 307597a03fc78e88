"""SNMP state the collector keeps: port names re-read when the agent says so, reboots, flaps."""

from __future__ import annotations

import asyncio

import pytest

from fabricwatch.pipeline.pipeline import Pipeline
from fabricwatch.simulator.faults import Fault
from tests.integration.helpers import start_sim

pytestmark = pytest.mark.integration


def _collector(sim, device: str):  # type: ignore[no-untyped-def]
    from fabricwatch.collectors.snmp.config import SnmpConfig

    [section] = sim.daemon_snmp_collectors(1.0)
    section["targets"] = [t for t in section["targets"] if t["device"] == device]
    [c] = SnmpConfig.model_validate(section).build()
    return c


async def test_names_are_reread_only_when_the_interface_table_changes_or_the_switch_reboots() -> None:
    sim = await start_sim(snmp={"devices": ["leaf-r0-0"]})
    agent = sim.snmp_agents["leaf-r0-0"]
    pipeline = Pipeline()
    c = _collector(sim, "leaf-r0-0")
    try:
        async with c:
            first = await c.poll()
            pipeline.process(first)
            await asyncio.sleep(1.0)
            pipeline.process(await c.poll())
            assert c.name_refreshes == 1  # names are cached between polls

            idx = agent.view.if_index(1)
            agent.view.names[idx] = "swp1-renamed"
            b = await c.poll()
            assert c.name_refreshes == 1 and "swp1-renamed" not in {s.port for s in b.samples}
            agent.view.table_last_change = agent.view.ticks()  # the agent says: interfaces changed
            b = await c.poll()
            assert c.name_refreshes == 2 and "swp1-renamed" in {s.port for s in b.samples}

            agent.view.reboot()
            await asyncio.sleep(1.0)
            after = await c.poll()
            assert c.name_refreshes == 3
            assert all(s.uptime_s is not None and s.uptime_s < 10 for s in after.samples)
            out = pipeline.process(after)
            kinds = {(e.port, e.kind) for e in out.events}
            # sysUpTime went back: every port is a counter reset, not a wrap or a huge rate
            assert {k for _, k in kinds} == {"counter_reset"}
            assert pipeline.rates.stats.wraps == 0
    finally:
        await sim.stop()


async def test_a_flap_between_two_polls_is_seen_through_if_last_change() -> None:
    sim = await start_sim(snmp={"devices": ["spine-0"]})  # openconfig flavour: plain IF-MIB, no vendor count
    port = sim.fabric.topology.devices["spine-0"].ports[0].name
    pipeline = Pipeline()
    events = []
    c = _collector(sim, "spine-0")
    try:
        async with c:
            pipeline.process(await c.poll())
            # 3 s period: the link is down one second in three, so whole-second snapshots see it change
            sim.fabric.inject(Fault.parse(f"flap:spine-0:{port},period=3"))
            for _ in range(5):
                await asyncio.sleep(1.0)
                events += pipeline.process(await c.poll()).events
    finally:
        await sim.stop()
    assert any(e.port == port and e.kind == "flap" for e in events)
    assert not any(e.port != port and e.kind == "flap" for e in events)
