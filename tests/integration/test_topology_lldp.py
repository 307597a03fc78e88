"""LLDP over SNMP from real switches' walks (served by snmpsim): `topology discover -c CONFIG` reads
every SNMP target's neighbours, and each recorded neighbour row becomes a cable with its names."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from fabricwatch.cli.main import main
from tests.conftest import FIXTURES
from tests.servers import SnmpSim, free_udp_port

pytestmark = pytest.mark.integration
WALKS = ["dnos", "voss_7432cq", "arubaos-cx_8360", "fs-centec_s5850-48s2q4c"]


@pytest.fixture(scope="module")
def snmpsim() -> Iterator[SnmpSim]:
    sim = SnmpSim([FIXTURES / "lldp" / "snmp" / f"{w}.snmprec" for w in WALKS])
    sim.start()
    try:
        yield sim
    finally:
        sim.stop()


def _recorded(walk: str) -> dict[str, str]:
    """lldpRemSysName per row, straight from the recording."""
    rows = {}
    for line in (FIXTURES / "lldp" / "snmp" / f"{walk}.snmprec").read_text().splitlines():
        oid, _, rest = line.partition("|")
        if oid.startswith("1.0.8802.1.1.2.1.4.1.1.9."):
            rows[oid.removeprefix("1.0.8802.1.1.2.1.4.1.1.9.")] = rest.partition("|")[2]
    return rows


def test_discover_reads_lldp_neighbours_of_every_snmp_target(snmpsim: SnmpSim, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    targets = []
    for w in WALKS:
        env = "FW_C_" + w.replace("-", "_").replace(".", "_")
        monkeypatch.setenv(env, w)
        targets.append(f'  {{ device = "{w}", address = "127.0.0.1:{snmpsim.port}", '
                       f'community = {{ env = "{env}" }} }},')
    targets.append(f'  {{ device = "ghost", address = "127.0.0.1:{free_udp_port()}", '
                   f'community = {{ env = "{env}" }} }},')
    config = tmp_path / "fw.toml"
    config.write_text("\n".join([
        "[[collectors.snmp]]", "timeout = 2", "retries = 0", "targets = [", *targets, "]",
        "[[sinks.influxdb]]", 'database = "x"', f'spool = {{ dir = "{tmp_path / "spool"}" }}', ""]))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["topology", "discover", "-c", str(config)])
    assert code == 0, err.getvalue()
    recs = json.loads(out.getvalue())
    for w in WALKS:
        mine = [r for r in recs if r["device"] == w]
        named = {v for v in _recorded(w).values() if v and not v.startswith("<")}
        assert mine, w
        # every neighbour the walk names is a far end of one of its ports
        assert named <= {r["peer_device"] for r in mine}, (w, named)
    dnos = {(r["port"], r["peer_device"], r["peer_port"]) for r in recs if r["device"] == "dnos"}
    assert {(p, d) for _, d, p in dnos} == {("fortyGigE 1/50", "abc-cs2"), ("fortyGigE 1/53", "abc-ag7"),
                                           ("fortyGigE 1/54", "abc-ag7"), ("ManagementEthernet 1/1", "abc-ag7")}
    assert all(not p.isdigit() for p, _, _ in dnos)  # local ports by name, not by number
    assert "ghost: LLDP over SNMP failed" in err.getvalue()  # a dead target is said, the rest go on


def test_a_changed_or_lost_neighbour_is_a_link_event() -> None:
    from fabricwatch.daemon.discovery import neighbour_changes

    before = {("sw1", "1"): ("h1", "eth0"), ("sw1", "2"): ("h2", "eth0"), ("sw1", "3"): ("h3", "eth0")}
    after = {("sw1", "1"): ("h2", "eth0"), ("sw1", "2"): ("h2", "eth0"), ("sw1", "4"): ("h4", "eth0")}
    events = neighbour_changes(before, after, 7)
    assert [(e.port, e.kind, e.detail) for e in events] == [
        ("1", "neighbour_change", "h1 eth0 -> h2 eth0"), ("3", "neighbour_lost", "was h3 eth0")]
    assert all(e.source == "lldp" and e.ts_ns == 7 for e in events)
    assert not neighbour_changes(after, after, 8)


async def test_the_daemon_keeps_its_topology_from_lldp(snmpsim: SnmpSim, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from fabricwatch.daemon.config import parse
    from tests.integration.helpers import start_runner

    monkeypatch.setenv("FW_C_DNOS", "dnos")
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0", "topology": "discover", "topology_every": "1s"},
        "collectors": {"snmp": [{"interval": "1s", "timeout": 2, "community": {"env": "FW_C_DNOS"},
                                 "targets": [{"device": "dnos", "address": f"127.0.0.1:{snmpsim.port}"}]}]},
        "sinks": {"influxdb": [{"database": "x", "url": f"http://127.0.0.1:{free_udp_port()}",
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg)
    try:
        assert runner.topology_keeper is not None
        for _ in range(100):
            view = runner.pipeline.latest.get(("dnos", "fortyGigE 1/49"))
            if view is not None and view.tags.get("peer_device") == "abc-cs2":
                break
            await asyncio.sleep(0.1)
        # the points of the port LLDP names carry its neighbour, read from the fabric, not a file
        assert view is not None and view.tags["peer_device"] == "abc-cs2" and view.tags["peer_port"] == "fortyGigE 1/50"
        assert runner.topology_keeper.refreshes >= 1 and runner.topology_keeper.changes == 0
        assert runner.http is not None
        async with aiohttp.ClientSession() as s, s.get(f"{runner.http.url}/metrics") as resp:
            metrics = await resp.text()
        assert "fabricwatch_topology_neighbour_changes_total 0.0" in metrics
        assert "fabricwatch_topology_ports 8.0" in metrics  # both ends of dnos's four cables
    finally:
        runner.stop()
        assert await task == 0


async def test_lldp_over_gnmi_from_the_simulator_matches_its_cabling(tmp_path: Path) -> None:
    from fabricwatch.simulator.daemon_config import daemon_config_toml
    from tests.integration.helpers import start_sim

    sim = await start_sim(fabric={"nodes": 8, "rails": 2, "spines": 2,
                                  "flavours": ["openconfig", "arista", "cumulus"]})
    try:
        topo = tmp_path / "plan.json"
        sim.write_topology(topo)
        config = tmp_path / "fw.toml"
        config.write_text(daemon_config_toml(sim, "1s", topo).replace("http://127.0.0.1:8086",
                                                                       "http://127.0.0.1:9"))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = await asyncio.to_thread(main, ["topology", "discover", "-c", str(config)])
        assert code == 0, err.getvalue()
        found = json.loads(out.getvalue())
        actual = tmp_path / "actual.json"
        actual.write_text(json.dumps(found))
        plan = {(r["device"], r["port"]): (r["peer_device"], r["peer_port"]) for r in json.loads(topo.read_text())}
        # every switch port the simulator cabled is discovered with its far end, over gNMI
        got = {(r["device"], r["port"]): (r["peer_device"], r["peer_port"]) for r in found}
        wrong = [k for k, v in plan.items() if got.get(k) != v]
        assert plan and not wrong, wrong[:5]
        roles = {r["device"]: r["role"] for r in found}
        assert {roles[d] for d in roles if d.startswith("leaf")} <= {"leaf_down", "leaf_up"}
        assert {roles[d] for d in roles if d.startswith("spine")} == {"spine"}
        code, text, _ = await asyncio.to_thread(_cli, "topology", "check", "--plan", str(topo), "--actual", str(actual))
        assert code == 0 and "matches the plan" in text
    finally:
        await sim.stop()


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()
