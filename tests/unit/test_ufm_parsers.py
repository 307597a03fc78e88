"""UFM REST and Telemetry parsers on recorded data from real fabrics, and on broken input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabricwatch.collectors.ufm.events import parse_events
from fabricwatch.collectors.ufm.inventory import (
    Inventory,
    norm_guid,
    parse_links,
    parse_ports,
    parse_systems,
    resolve_peers,
    topology_records,
)
from fabricwatch.collectors.ufm.telemetry import TelemetryError, parse_csv, parse_json
from fabricwatch.core.topology import Topology


def _load(fixtures: Path, name: str) -> object:
    return json.loads((fixtures / "ufm" / "ndt_topoparse_data" / name).read_text())


def _inventory(fixtures: Path, sub: str = "") -> Inventory:
    inv = Inventory()
    parse_systems(_load(fixtures, f"{sub}systems.json"), inv)
    parse_ports(_load(fixtures, f"{sub}ports.json"), inv)
    parse_links(_load(fixtures, f"{sub}links.json"), inv)
    resolve_peers(inv)
    return inv


def test_real_inventory_ports_systems_and_links(fixtures: Path) -> None:
    ports = _load(fixtures, "ports.json")
    systems = _load(fixtures, "systems.json")
    links = _load(fixtures, "links.json")
    assert isinstance(ports, list) and isinstance(systems, list) and isinstance(links, list)
    assert (len(ports), len(systems), len(links)) == (3369, 756, 1034)
    inv = _inventory(fixtures)
    assert not inv.problems
    listed = {(norm_guid(p["systemID"]), str(p["number"])) for p in ports}
    ends = {(norm_guid(link[f"{e}_guid"]), str(link[f"{e}_port"])) for link in links
            for e in ("source", "destination")}
    assert listed <= inv.ports.keys() and len(listed) == 3369
    assert inv.ports.keys() - listed <= ends  # link ends resources/ports did not list are still known
    names = {norm_guid(s["system_guid"]): s["system_name"] for s in systems}
    for p in ports:  # systems.json misses some; their ports name them
        names.setdefault(norm_guid(p["systemID"]), p["system_name"])
    # every link, both ends, carries the other end as its peer, by system name
    for link in links:
        a = (norm_guid(link["source_guid"]), str(link["source_port"]))
        b = (norm_guid(link["destination_guid"]), str(link["destination_port"]))
        for near, far in ((a, b), (b, a)):
            info = inv.port(*near)
            assert info.tags["peer_device"] == names.get(far[0], "0x" + far[0])
            assert info.tags["peer_port"] == far[1]
    one = ports[0]
    info = inv.port(norm_guid(one["systemID"]), str(one["number"]))
    assert info.device == one["system_name"] and info.up == (one["logical_state"] == "Active")
    # the inventory is a topology with the right peers
    topo = Topology.from_records(topology_records(inv))
    src = links[0]
    tags = topo.tags(names[norm_guid(src["source_guid"])], str(src["source_port"]))
    assert tags["peer_device"] == names[norm_guid(src["destination_guid"])]
    assert tags["peer_port"] == str(src["destination_port"])


def test_newer_schema_with_peer_fields(fixtures: Path) -> None:
    inv = _inventory(fixtures, "ufm_samples/")
    ports = _load(fixtures, "ufm_samples/ports.json")
    assert isinstance(ports, list) and len(ports) == 2
    for p in ports:  # neither port is a link end in links.json: the peer comes from the peer_* fields
        info = inv.port(norm_guid(p["systemID"]), str(p["number"]))
        assert info.device == p["system_name"]
        assert (info.tags["peer_device"], info.tags["peer_port"]) == (p["peer_node_name"], p["peer_port_dname"])
    # the one link: its spine end is in no systems list; the link's end description names it
    link = inv.port("1c34da0300728606", "37")
    assert (link.device, link.tags["peer_device"], link.tags["peer_port"]) == ("SLG01-02", "SSPINE1-13", "2")
    assert inv.port("1c34da0300728a06", "2").tags["peer_device"] == "SLG01-02"


def test_a_renamed_or_missing_field_is_reported_and_the_rest_parsed() -> None:
    inv = Inventory()
    parse_ports([
        {"name": "aa_1", "guid": "aa", "systemID": "aa", "number": 1, "system_name": "sw1", "logical_state": "Active"},
        {"name": "aa_2", "guid": "aa", "systemID": "aa", "num": 2, "system_name": "sw1"},  # renamed 'number'
    ], inv)
    assert inv.port("00000000000000aa", "1").device == "sw1"
    assert len(inv.ports) == 1 and "aa_2" in inv.problems[0] and "number" in inv.problems[0]


def test_real_telemetry_json_message(fixtures: Path) -> None:
    text = (fixtures / "ufm" / "small_telemetry.json").read_text()
    raw = json.loads(text)["values"]
    parsed = parse_json(text)
    assert len(parsed.ports) == len(raw) and not parsed.problems
    for row, pc in zip(raw, parsed.ports, strict=True):
        assert pc.guid == norm_guid(row["node_guid"]) and pc.port == str(row["port_num"])
        assert pc.ts_ns == row["timestamp"] * 1000
        assert pc.values["symbol_errors"] == row["Infiniband_SymbolErrors_u_Errors"]
        assert pc.values["xmit_wait"] == row["Infiniband_XmitWait_u_Ticks"]
        assert pc.values["out_pkts"] == row["Infiniband_PckOut_u_Packets"]
        assert pc.values["link_downed"] == row["Infiniband_LinkDowned_u_Errors"]
    assert "Infiniband_MBOut_u_Gb" in parsed.unmapped_columns  # unit not documented: not guessed


HEADER = "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,PortXmitDataExtended,SymbolErrorCounter"


def test_csv_by_header_name_with_an_added_column() -> None:
    text = (HEADER.replace("Port_Number,", "Port_Number,BrandNewCounter,") + "\n"
            "1709652347161873,0xaa,,0x00000000000000aa,0xaa,3,99,1000,7\n")
    parsed = parse_csv(text)
    [pc] = parsed.ports
    assert (pc.guid, pc.port, pc.ts_ns) == ("00000000000000aa", "3", 1709652347161873000)
    assert pc.values == {"out_octets": 4000, "symbol_errors": 7} and pc.bits == {"out_octets": 64}
    assert parsed.unmapped_columns == ["BrandNewCounter"]


def test_csv_truncated_last_line_parses_up_to_it() -> None:
    rows = [f"1,0xaa,,0xaa,0xaa,{n},{n * 10},{n}" for n in range(1, 6)]
    text = HEADER + "\n" + "\n".join(rows) + "\n"
    cut = text[: len(text) - 5]  # the last row loses its end (and the newline)
    parsed = parse_csv(cut)
    assert [pc.port for pc in parsed.ports] == ["1", "2", "3", "4"]
    assert parsed.problems == ["line 6 truncated (7 of 8 fields): parsed up to line 5"]


def test_csv_without_the_key_columns_is_an_error() -> None:
    with pytest.raises(TelemetryError, match="no Node_GUID"):
        parse_csv("<html><body>UFM Telemetry is starting</body></html>\n")


def test_prometheus_text_with_and_without_counter_types() -> None:
    from fabricwatch.collectors.ufm.telemetry import parse_prometheus

    text = (
        "# TYPE PortXmitDataExtended counter\n"
        'PortXmitDataExtended{node_guid="0xaa",port_num="1"} 5 1700000000000\n'
        'SymbolErrorCounter{node_guid="0xaa",port_num="1"} 65535 1700000000000\n'
        'PortRcvPktsExtended{node_guid="0xaa"} 9\n'
    )
    parsed = parse_prometheus(text)
    [pc] = parsed.ports
    assert (pc.guid, pc.port, pc.ts_ns) == ("00000000000000aa", "1", 1_700_000_000_000_000_000)
    assert pc.values == {"out_octets": 20, "symbol_errors": 65535} and pc.bits == {"out_octets": 64}
    assert parsed.problems == ["PortRcvPktsExtended: sample without node_guid/port_num labels"]


def test_events_incremental_by_id_old_and_new_schema() -> None:
    inv = Inventory(systems={"00000000000000aa": "sw1"})
    data = [
        {"id": 7, "name": "Link is down", "severity": "Critical", "timestamp": "2024-03-05 16:26:11",
         "object_name": "aa_3", "description": "port 3 down"},
        {"id": 8, "name": "x", "event_type": "High BER", "severity": "Warning", "timestamp": "2024-03-05 16:26:12",
         "object_name": "aa"},
        {"name": "no id"},
    ]
    events, top, problems = parse_events(data, inv, 6)
    assert top == 8 and len(problems) == 1 and "no numeric id" in problems[0]
    assert [(e.device, e.port, e.kind, e.severity) for e in events] == [
        ("sw1", "3", "ufm_link_is_down", "Critical"), ("sw1", "", "ufm_high_ber", "Warning")]
    assert events[0].ts_ns // 1_000_000_000 == 1709655971
    again, top2, _ = parse_events(data, inv, top)
    assert again == [] and top2 == 8


def test_the_width_each_port_trained_to_is_read_and_a_port_with_none_has_none(fixtures: Path) -> None:
    """Principle 6 (the same through every path): the active width UFM reports ("4x", "NoState" while
    down) is what the detector judges a link's training by, so the UFM path must carry it."""
    ports = _load(fixtures, "ports.json")
    assert isinstance(ports, list)
    inv = _inventory(fixtures)
    widths = {}
    for p in ports:
        info = inv.port(norm_guid(p["systemID"]), str(p["number"]))
        widths[p["active_width"]] = widths.get(p["active_width"], set()) | {info.width}
    assert widths["4x"] == {4} and widths["NoState"] == {None}
    # a forged width is no width, not an error
    forged = Inventory()
    parse_ports([{"systemID": "0x1", "system_name": "sw", "number": 1, "active_width": "x4x"},
                 {"systemID": "0x1", "system_name": "sw", "number": 2, "active_width": 12},
                 {"systemID": "0x1", "system_name": "sw", "number": 3, "active_width": "1X"}], forged)
    assert [forged.port(norm_guid("0x1"), str(n)).width for n in (1, 2, 3)] == [None, None, 1]
