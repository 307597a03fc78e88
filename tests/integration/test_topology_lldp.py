"""LLDP over SNMP from real switches' walks (served by snmpsim): `topology discover -c CONFIG` reads
every SNMP target's neighbours, and each recorded neighbour row becomes a cable with its names."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

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
