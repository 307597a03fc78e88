"""The simulated fabric: topology shape, realistic dynamics, live fault injection over HTTP."""

from __future__ import annotations

import base64
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


def test_a_retrained_link_bounces_once_and_comes_back_on_a_quarter_of_its_lanes() -> None:
    """`retrained`: the link goes down once, trains back up on 1 of its 4 lanes (400G -> 100G) and carries
    what that speed carries; cleared, it bounces once more and comes back whole. Every server reports it
    from the snapshot (ifHighSpeed, UFM's active_width, sysfs rate, OpenConfig's negotiated-port-speed)."""
    from fabricwatch.simulator.flavours import speed_notification
    from fabricwatch.simulator.host_sysfs import host_port_files

    fab = Fabric(FabricSpec(nodes=8, rails=2, spines=2), seed=3, start_ns=0)
    leaf = fab.topology.devices["leaf-r0-0"]
    port, peer = [p for p in leaf.ports if p.role == "leaf_down"][:2]
    fab.snapshot(10 * S)
    fab.inject(Fault.parse(f"retrained:{leaf.name}:{port.name}"))
    snaps = [fab.snapshot(t * S) for t in range(10, 31)]
    up = [bool(s.oper_up[port.index]) for s in snaps]
    assert up[0] and not up[1] and not up[2] and all(up[3:]), up  # down for 2 s, then up for good
    assert int(snaps[-1].counters[port.index, COL["link_transitions"]]) \
        - int(snaps[0].counters[port.index, COL["link_transitions"]]) == 2
    before, after = snaps[0], snaps[-1]
    assert before.port_lanes(port) == 4 and before.port_speed_bps(port) == 400 * 10**9
    assert after.port_lanes(port) == 1 and after.port_speed_bps(port) == 100 * 10**9
    assert after.port_values(port)["speed_bps"] == 100 * 10**9
    assert after.port_speed_bps(peer) == 400 * 10**9  # its neighbours are whole
    sent = [int(snaps[-1].counters[p.index, COL["in_octets"]]) - int(snaps[5].counters[p.index, COL["in_octets"]])
            for p in (port, peer)]
    assert 0.2 < sent[0] / sent[1] < 0.3, sent  # its traffic capped to a quarter
    assert host_port_files(after, port)["rate"] == "100 Gb/sec (1X NDR)"
    assert host_port_files(after, peer)["rate"] == "400 Gb/sec (4X NDR)"
    for flavour, value in (("arista", "SPEED_100GB"), ("openconfig", "openconfig-if-ethernet:SPEED_100GB")):
        n = speed_notification(flavour, port, after)
        assert n is not None and n.update[0].val.string_val == value
    assert speed_notification("sonic", port, after) is None  # COUNTERS_DB has no speed

    assert fab.clear_faults() == 1
    later = [fab.snapshot(t * S) for t in range(31, 41)]
    assert [bool(s.oper_up[port.index]) for s in later[:4]] == [False, False, True, True]
    assert later[-1].port_speed_bps(port) == 400 * 10**9

    two = Fault.parse(f"retrained:{leaf.name}:{port.name},lanes=2")
    assert two.lanes == 2 and two.to_dict()["lanes"] == 2
    with pytest.raises(ValueError, match="lanes=3"):
        Fault.parse(f"retrained:{leaf.name}:{port.name},lanes=3")


async def test_a_retrained_link_is_served_at_its_new_width_over_ufm_and_snmp() -> None:
    """UFM's resources/ports say the width the link trained to ("1x"; "NoState" while down) and SNMP's
    ifHighSpeed its speed in Mb/s, both read from the fabric when asked."""
    from fabricwatch.simulator.snmp_agent import IF_X_TABLE, AgentView

    sim = await start_sim(ufm={"enabled": True})
    try:
        leaf = sim.fabric.topology.devices["leaf-r0-0"]
        port = next(p for p in leaf.ports if p.role == "leaf_down")
        sim.fabric.inject(Fault.parse(f"retrained:{leaf.name}:{port.name}"))
        assert sim.ufm is not None
        snap = sim.ufm.state.snapshot()
        ts = snap.ts_ns + 4 * S
        sim.ufm.state.clock = lambda: ts
        basic = base64.b64encode(f"{sim.config.ufm.username}:{sim.config.ufm.password}".encode()).decode()
        async with aiohttp.ClientSession(headers={"Authorization": f"Basic {basic}"}) as s:
            async with s.get(f"{sim.ufm.rest_url}/ufmRest/resources/ports") as resp:
                ports = {(r["system_name"], r["dname"]): r for r in await resp.json()}
            async with s.get(f"{sim.ufm.rest_url}/ufmRest/resources/links") as resp:
                links = {(r["source_port"]): r for r in await resp.json()
                         if r["source_guid"] == sim.ufm.state.guids[leaf.name]}
        assert ports[(leaf.name, port.name)]["active_width"] == "1x"
        assert ports[(leaf.name, port.name)]["active_speed"] == "NDR"  # the lanes' rate is the same
        assert {r["active_width"] for k, r in ports.items() if k != (leaf.name, port.name)} == {"4x"}
        assert {r["width"] for r in links.values()} == {"4x"}  # the links between switches are whole
        view = AgentView(sim.fabric, leaf)
        get = view.getters[view.oids.index((*IF_X_TABLE, 15, AgentView.if_index(1)))]
        assert int(get(sim.fabric.snapshot(ts), 0)) == 100_000
        assert int(get(sim.fabric.snapshot(snap.ts_ns), 0)) == 400_000
    finally:
        await sim.stop()


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
