"""Profiles are data: each loads, names canonical counters only, and is chosen by sysObjectID."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricwatch.collectors.snmp import profile as profiles
from fabricwatch.collectors.snmp.profile import ProfileError, load_profile, profile_names, select


def test_every_profile_loads_documents_itself_and_says_ecn_is_not_exposed() -> None:
    names = profile_names()
    assert {"if-mib", "cisco-nxos", "cumulus", "arista", "sonic", "mellanox-onyx"} <= set(names)
    for name in names:
        p = load_profile(name)
        assert p.description and p.source, name
        assert any("ecn" in line.lower() for line in p.not_exposed), name
        assert {"in_octets", "out_octets", "in_errors", "oper_status"} <= p.counters(), name


@pytest.mark.parametrize(("sys_object_id", "profile"), [
    ("1.3.6.1.4.1.9.12.3.1.3.1626", "cisco-nxos"),
    ("1.3.6.1.4.1.40310", "cumulus"),
    ("1.3.6.1.4.1.30065.1.3011.7050.3741.32", "arista"),
    ("1.3.6.1.4.1.33049.1.1.1.2700", "mellanox-onyx"),
    ("1.3.6.1.4.1.8072.3.2.10", "if-mib"),  # net-snmp on Linux (and SONiC): the fallback
    ("1.3.6.1.4.1.403101", "if-mib"),  # a prefix must end on an arc, not inside one
    (None, "if-mib"),
])
def test_selection_by_sys_object_id(sys_object_id: str | None, profile: str) -> None:
    assert select(sys_object_id).name == profile


def test_vendor_pfc_columns_map_per_priority() -> None:
    cumulus = {t.name: t for t in load_profile("cumulus").tables}["pfcClCountersTable"]
    cols = {c.sub: c.counter for c in cumulus.columns}
    for n in range(8):
        assert cols[4 + 2 * n] == f"pfc_rx_p{n}" and cols[5 + 2 * n] == f"pfc_tx_p{n}"
    sonic = {t.name: t for t in load_profile("sonic").tables}["cpfcIfPriorityTable"]
    assert sonic.index == "ifIndex.priority"
    assert {c.sub: c.counter for c in sonic.columns} == {2: "pfc_tx_p{priority}", 3: "pfc_rx_p{priority}"}


def test_counter32_columns_are_declared_32_bit() -> None:
    tables = {t.name: t for t in load_profile("if-mib").tables}
    assert {c.counter: c.bits for c in tables["ifTable"].columns if c.counter and c.transform is None} == {
        "in_discards": 32, "in_errors": 32, "out_discards": 32, "out_errors": 32}
    assert {c.bits for c in tables["dot3PauseTable"].columns} == {32}
    assert {c.bits for c in tables["ifXTable"].columns} == {64}


def test_a_bad_profile_names_the_file_and_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken.toml").write_text(
        'name = "broken"\n[[tables]]\nname = "t"\nentry = "1.3.6.1.2.1.2.2.1"\n[tables.columns]\n14 = "in_errorz"\n')
    monkeypatch.setattr(profiles, "PROFILE_DIR", tmp_path)
    load_profile.cache_clear()
    try:
        with pytest.raises(ProfileError, match=r"broken.toml: tables.t.columns.14: 'in_errorz' is not a canonical"):
            load_profile("broken")
        with pytest.raises(ProfileError, match="unknown SNMP profile 'nope'"):
            load_profile("nope")
    finally:
        load_profile.cache_clear()
