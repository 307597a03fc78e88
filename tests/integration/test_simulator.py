"""The simulated fabric: topology shape, realistic dynamics, live fault injection over HTTP."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from fabricwatch.simulator.fabric import COL, Fabric
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.topology import FabricSpec, build
from tests.integration.helpers import start_sim

S = 1_000_000_000


def test_rail_optimised_fat_tree() -> None:
    topo = build(FabricSpec(nodes=16, rails=4, leaves_per_rail=2, spines=4))
    leaves = [d for d in topo.devices.values() if d.kind == "leaf"]
    assert len(leaves) == 8 and sum(d.kind == "spine" for d in topo.devices.values()) == 4
    for leaf in leaves:
        down = [p for p in leaf.ports if p.role == "leaf_down"]
        up = [p for p in leaf.ports if p.role == "leaf_up"]
        assert len(down) == 8 and len(up) == 4
        assert {p.rail for p in leaf.ports} == {int(leaf.name.split("-")[1][1:])}  # one rail per leaf
        assert {p.peer_port for p in down} == {f"mlx5_{down[0].rail}/1"}
    by_name = {(p.device, p.name): p for p in topo.ports}
    for p in topo.ports:
        if p.role == "leaf_up":
            peer = by_name[(p.peer_device, p.peer_port)]
            assert peer.role == "spine" and (peer.peer_device, peer.peer_port) == (p.device, p.name)


def test_congestion_raises_pfc_and_ecn_everywhere_and_faults_stand_out() -> None:
    fab = Fabric(FabricSpec(nodes=8, rails=2, spines=2), seed=3, start_ns=0)
    leaf = fab.topology.devices["leaf-r0-0"]
    fab.inject(Fault.parse(f"ecn_off:{leaf.name}"))
    a, b = fab.snapshot(0), fab.snapshot(120 * S)
    delta = (b.counters.astype(float) - a.counters.astype(float))
    pfc, ecn = delta[:, COL["pfc_rx_p3"]], delta[:, COL["ecn_marked"]]
    on_leaf = [p.index for p in leaf.ports]
    others = [p.index for p in fab.ports if p.device != leaf.name]
    assert (pfc[others] > 0).all() and (ecn[others] > 0).all()  # busy fabric: every link pauses and marks
    assert (ecn[on_leaf] == 0).all()  # the switch with ECN off marks nothing...
    assert pfc[on_leaf].mean() > 3 * pfc[others].mean()  # ...and pauses more
    assert (b.counters >= a.counters).all()


async def test_live_fault_injection_over_http() -> None:
    sim = await start_sim()
    try:
        port = sim.fabric.topology.devices["leaf-r1-0"].ports[0]
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{sim.control_url}/faults", json={"kind": "pfc_storm", "device": "leaf-r1-0",
                                                                  "port": port.name}) as resp:
                assert resp.status == 201
            async with s.post(f"{sim.control_url}/faults", json={"kind": "meteor", "device": "x"}) as resp:
                assert resp.status == 400 and "unknown fault kind" in (await resp.json())["error"]
            async with s.get(f"{sim.control_url}/faults") as resp:
                assert [f["kind"] for f in (await resp.json())["faults"]] == ["pfc_storm"]
        t0 = sim.fabric.kept_snapshots()[-1].ts_ns if sim.fabric.kept_snapshots() else sim.fabric.start_ns
        a = sim.fabric.snapshot(t0 + S)
        b = sim.fabric.snapshot(t0 + 11 * S)
        storm = (int(b.counters[port.index, COL["pfc_tx_p3"]]) - int(a.counters[port.index, COL["pfc_tx_p3"]])) / 10
        assert storm >= 30000
        async with aiohttp.ClientSession() as s, s.delete(f"{sim.control_url}/faults") as resp:
            assert (await resp.json())["removed"] == 1
    finally:
        await sim.stop()


@pytest.mark.parametrize("overrides", [{"snmp": {"every": 2}}, {"ufm": {"enabled": True}}])
async def test_simulate_out_writes_a_daemon_config_that_loads(
    tmp_path: Path, overrides: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fabricwatch simulate --out` writes a config for every protocol the simulator serves."""
    import tomllib

    from fabricwatch.daemon.config import parse
    from fabricwatch.simulator.daemon_config import daemon_config_toml
    from fabricwatch.simulator.service import SIM_COMMUNITY_ENV, SIM_UFM_PASSWORD_ENV
    sim = await start_sim(**overrides)
    try:
        text = daemon_config_toml(sim, "10s", tmp_path / "topology.json")
    finally:
        await sim.stop()
    monkeypatch.setenv(SIM_COMMUNITY_ENV, sim.config.snmp.community)
    monkeypatch.setenv(SIM_UFM_PASSWORD_ENV, sim.config.ufm.password)
    cfg = parse(tomllib.loads(text), "fabricwatch.toml")
    kinds = {kind for kind, _ in cfg.collector_configs()}
    assert kinds == ({"gnmi", "snmp"} if "snmp" in overrides else {"ufm"})
    devices = {c.device for _, section in cfg.collector_configs() for c in section.build()}
    assert devices == ({t.device for t in sim.targets} if "snmp" in overrides else {"sim-ufm"})
