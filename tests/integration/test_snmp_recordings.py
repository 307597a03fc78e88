"""SNMP collector against snmpsim serving real Cisco Nexus walks: every value as recorded."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricwatch.collectors.snmp.config import SnmpConfig
from tests.servers import SnmpSim

pytestmark = pytest.mark.integration

RECORDINGS = ("nxos-n9000", "nxos_lag-mib")
IF = "1.3.6.1.2.1.2.2.1"
IFX = "1.3.6.1.2.1.31.1.1.1"
PAUSE = "1.3.6.1.2.1.10.7.10.1"
# (column OID, canonical name): written from RFC 2863 / RFC 3635, not from the profile files
EXPECTED_COLUMNS = {
    f"{IF}.13": "in_discards", f"{IF}.14": "in_errors", f"{IF}.19": "out_discards", f"{IF}.20": "out_errors",
    f"{IFX}.6": "in_octets", f"{IFX}.7": "in_pkts", f"{IFX}.10": "out_octets", f"{IFX}.11": "out_pkts",
    f"{PAUSE}.3": "pause_rx", f"{PAUSE}.4": "pause_tx",
}


def read_snmprec(path: Path) -> dict[str, tuple[str, str]]:
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            oid, typ, value = line.split("|", 2)
            out[oid] = (typ, value)
    return out


def expected_ports(rec: dict[str, tuple[str, str]]) -> dict[str, dict[str, float]]:
    """port name -> canonical values, straight from the recording."""
    by_index: dict[int, dict[str, float]] = {}
    for oid, (_typ, value) in rec.items():
        col, _, idx = oid.rpartition(".")
        if col in EXPECTED_COLUMNS:
            by_index.setdefault(int(idx), {})[EXPECTED_COLUMNS[col]] = int(value)
        elif col == f"{IF}.8":
            by_index.setdefault(int(idx), {})["oper_status"] = 1.0 if value == "1" else 0.0
        elif col == f"{IF}.7":
            by_index.setdefault(int(idx), {})["admin_status"] = 1.0 if value == "1" else 0.0
        elif col == f"{IFX}.15":
            by_index.setdefault(int(idx), {})["speed_bps"] = int(value) * 1_000_000
    out = {}
    for idx, values in by_index.items():
        name = rec.get(f"{IFX}.1.{idx}", rec.get(f"{IF}.2.{idx}", ("4", f"ifIndex{idx}")))[1]
        out[name] = values
    return out


@pytest.fixture(scope="module")
def snmpsim(fixtures: Path) -> Iterator[SnmpSim]:
    sim = SnmpSim([fixtures / "snmp" / f"{r}.snmprec" for r in RECORDINGS])
    sim.start()
    try:
        yield sim
    finally:
        sim.stop()


@pytest.mark.parametrize("engine", ["fast", "pysnmp"])
@pytest.mark.parametrize("recording", RECORDINGS)
async def test_every_interface_value_equals_the_recording(
    snmpsim: SnmpSim, fixtures: Path, recording: str, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FW_TEST_COMMUNITY", recording)
    cfg = SnmpConfig.model_validate({
        "engine": engine, "community": {"env": "FW_TEST_COMMUNITY"}, "timeout": 5, "max_repetitions": 20,
        "targets": [{"device": "nexus", "address": f"127.0.0.1:{snmpsim.port}"}],
    })
    [collector] = cfg.build()
    async with collector:
        batch = await collector.poll()
    rec = read_snmprec(fixtures / "snmp" / f"{recording}.snmprec")
    assert collector.sys_object_id == rec["1.3.6.1.2.1.1.2.0"][1]
    assert collector.profile is not None and collector.profile.name == "cisco-nxos"
    want = expected_ports(rec)
    got = {s.port: s for s in batch.samples}
    assert set(got) == set(want), "ports differ from the recording's ifName rows"
    assert len(got) == {"nxos-n9000": 125, "nxos_lag-mib": 107}[recording]
    for port, values in want.items():
        sample = got[port]
        for name, value in values.items():
            assert sample.values[name] == value, f"{port} {name}"
        # Counter32 columns are declared 32-bit so the pipeline wraps them right
        for name in ("in_errors", "out_discards", "pause_rx"):
            if name in values:
                assert sample.bits and sample.bits[name] == 32
        assert "in_octets" not in (sample.bits or {})
    uptime = rec.get("1.3.6.1.2.1.1.3.0")
    assert {s.uptime_s for s in batch.samples} == {int(uptime[1]) / 100 if uptime else None}
    if recording == "nxos-n9000":  # the walk with EtherLike pause counters: some are non-zero
        assert sum(1 for s in batch.samples if s.values.get("pause_rx", 0) > 0) >= 4
    assert batch.unmapped == 0
    # the LAG walk holds 14 ports an operator shut (ifAdminStatus down(2)): they read as admin down
    shut = sum(1 for s in batch.samples if s.values.get("admin_status") == 0)
    assert shut == {"nxos-n9000": 0, "nxos_lag-mib": 14}[recording]
    # interfaces that are no fabric link are tagged by their ifType: port-channels, VLAN SVIs, loopbacks
    kinds = {s.port: s.tags.get("if_type", "") for s in batch.samples}
    if recording == "nxos_lag-mib":
        assert {p for p, k in kinds.items() if k == "aggregate"} == {p for p in kinds if p.startswith("port-channel")}
    assert all(k == "vlan" for p, k in kinds.items() if p.startswith("Vlan"))
    assert all(k == "" for p, k in kinds.items() if p.startswith("Ethernet") and "." not in p)
    assert all(k == "vlan" for p, k in kinds.items() if p.startswith("Ethernet") and "." in p)  # sub-interfaces


async def test_profile_override_and_port_filters(snmpsim: SnmpSim, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FW_TEST_COMMUNITY", "nxos_lag-mib")
    cfg = SnmpConfig.model_validate({
        "community": {"env": "FW_TEST_COMMUNITY"}, "timeout": 5, "port_name": "ifDescr",
        "include_ports": ["Ethernet*"], "exclude_ports": ["Ethernet1/1*"],
        "targets": [{"device": "nexus", "address": f"127.0.0.1:{snmpsim.port}", "profile": "if-mib"}],
    })
    [collector] = cfg.build()
    async with collector:
        batch = await collector.poll()
    assert collector.profile is not None and collector.profile.name == "if-mib"
    ports = {s.port for s in batch.samples}
    assert ports and all(p.startswith("Ethernet") and not p.startswith("Ethernet1/1") for p in ports)
    assert "Ethernet1/2" in ports


async def test_wrong_community_times_out_naming_the_device(snmpsim: SnmpSim, monkeypatch: pytest.MonkeyPatch) -> None:
    from fabricwatch.core.errors import TargetError

    monkeypatch.setenv("FW_TEST_COMMUNITY", "not-a-recording")
    cfg = SnmpConfig.model_validate({
        "community": {"env": "FW_TEST_COMMUNITY"}, "timeout": 0.3, "retries": 1,
        "targets": [{"device": "nexus-x", "address": f"127.0.0.1:{snmpsim.port}"}],
    })
    [collector] = cfg.build()
    async with collector:
        with pytest.raises(TargetError) as err:
            await collector.poll()
    assert err.value.kind == "timeout" and "nexus-x" in str(err.value)
    assert os.environ["FW_TEST_COMMUNITY"] not in str(err.value)  # the community is never printed
    assert "stays silent on a wrong community" in str(err.value)  # what a silence most often means


async def test_check_says_which_profile_each_device_got_and_why(snmpsim: SnmpSim, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from fabricwatch.daemon.check import run_check

    monkeypatch.setenv("FW_GOOD", "nxos-n9000")
    monkeypatch.setenv("FW_BAD", "not-a-recording")
    config = tmp_path / "fw.toml"
    config.write_text(f"""
[[collectors.snmp]]
timeout = 0.5
retries = 0
targets = [
  {{ device = "nexus", address = "127.0.0.1:{snmpsim.port}", community = {{ env = "FW_GOOD" }} }},
  {{ device = "nexus-x", address = "127.0.0.1:{snmpsim.port}", community = {{ env = "FW_BAD" }} }},
]
[[sinks.influxdb]]
database = "x"
url = "http://127.0.0.1:9"
spool = {{ dir = "{tmp_path / 'spool'}" }}
""")
    out = io.StringIO()
    assert await run_check(config, timeout=5, out=out) == 1
    text = out.getvalue()
    good = next(ln for ln in text.splitlines() if "target snmp:snmp:nexus " in ln)
    assert good.startswith("ok") and "profile cisco-nxos (sysObjectID 1.3.6.1.4.1.9." in good, good
    assert "125 interfaces" in good and "cannot give ecn_marked" in good
    bad = next(ln for ln in text.splitlines() if "nexus-x" in ln)
    assert bad.startswith("FAIL") and "wrong community" in bad
