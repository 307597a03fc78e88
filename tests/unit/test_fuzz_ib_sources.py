"""The InfiniBand sources' decoders take whatever a tool or UFM hands them: infiniband-diags text, UFM
Telemetry (CSV, JSON, Prometheus text) and UFM REST JSON (systems, ports, links, events, unhealthy
ports). Any input gives a result with its problems listed, or the decoder's own error; a recorded
output cut anywhere parses as far as it goes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from fabricwatch.collectors.hostnic.sysfs import read_ports
from fabricwatch.collectors.ibdiag.parsers import (
    parse_ibnetdiscover,
    parse_ibnetdiscover_ports,
    parse_perfquery,
    parse_topology,
)
from fabricwatch.collectors.ufm.events import parse_events, parse_unhealthy
from fabricwatch.collectors.ufm.inventory import Inventory, parse_links, parse_ports, parse_systems, resolve_peers
from fabricwatch.collectors.ufm.telemetry import TelemetryError, parse_csv, parse_json, parse_prometheus
from fabricwatch.core.timeparse import parse_time_ns


def storable(ts_ns: int) -> bool:
    """What InfluxDB holds: signed 64-bit nanoseconds (1677-09-21 to 2262-04-11)."""
    return -(2**63) < ts_ns < 2**63 - 1


FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures"

# JSON as json.loads gives it, overflowing numbers included (1e999 reads as inf)
numbers = st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.integers(min_value=10**30)
scalars = st.none() | st.booleans() | numbers | st.text(max_size=16) | st.sampled_from(
    ["0x0c42a103007ab890", "0c42a103007ab890_1", "2026-11-20 22:00:00", "Active", "Down", "9999-12-31 23:59:59",
     "0001-01-01 00:00:00", "-1", "now", "1" * 5000])
json_values = st.recursive(scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=12), c,
                                                                                        max_size=4), max_leaves=20)
KEYS = ["id", "name", "event_type", "object_name", "timestamp", "severity", "description", "system_guid", "guid",
        "system_name", "role", "systemID", "number", "external_number", "active_speed", "peer", "peer_node_name",
        "peer_port_dname", "logical_state", "source_guid", "source_port", "destination_guid", "destination_port",
        "source_port_node_description", "destination_port_node_description", "cable_info", "length", "vendor",
        "port", "port_name", "port_number", "cause"]
records = st.lists(st.dictionaries(st.sampled_from(KEYS), json_values, max_size=8) | json_values, max_size=6)
# lines of infiniband-diags' own shapes with odd values in them, and anything else
ib_lines = st.one_of(
    st.text(max_size=80),
    st.builds("# Port extended counters: Lid {} port {} (CapMask: 0x5A00)".format, st.text("0123456789", min_size=1,
                                                                                        max_size=5000), st.integers()),
    st.builds("{}:{}{}".format, st.sampled_from(["PortXmitData", "PortRcvData", "SymbolErrorCounter", "PortSelect",
                                                "LinkDownedCounter", "Bogus"]), st.text(".", max_size=20),
              st.text("0123456789xabcdefX-", max_size=30)),
    st.builds("SW {} {} 0x{} 4x {} - CA {} {} 0x{} ( '{}' - '{}' )".format,
              *(st.text("0123456789", min_size=1, max_size=5000) for _ in range(2)), st.text("0123456789abcdef",
                                                                                              min_size=1, max_size=16),
              st.sampled_from(["EDR", "HDR", "???"]), st.text("0123456789", min_size=1, max_size=5000),
              st.text("0123456789", min_size=1, max_size=4), st.just("0c42"), st.text(max_size=10),
              st.text(max_size=10)),
    st.builds('Switch {} "S-{}" # "{}" base port 0 lid {} lmc 0'.format, st.text("0123456789", min_size=1,
                                                                                 max_size=4),
              st.text("0123456789abcdef", min_size=1, max_size=16), st.text(max_size=10).filter(lambda s: '"' not in s),
              st.text("0123456789", min_size=1, max_size=5000)),
    st.builds('[{}]"H-{}"[{}](0c42) # "{}" lid {} 4xHDR'.format, st.text("0123456789", min_size=1, max_size=4),
              st.text("0123456789abcdef", min_size=1, max_size=16), st.text("0123456789", min_size=1, max_size=4),
              st.text(max_size=10), st.text("0123456789", min_size=1, max_size=5000)),
)
ib_texts = st.lists(ib_lines, max_size=12).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(ib_texts)
@example("# Port extended counters: Lid " + "1" * 5000 + " port 1")
@example("SW " + "1" * 5000 + " 1 0x0c42 4x EDR - CA 1 1 0x0c43 ( 'a' - 'b' )")
@example('Switch 36 "S-0c42" # "sw" base port 0 lid ' + "1" * 5000 + " lmc 0")
@example('Switch 36 "S-0c42" # "sw" lid 1\n[1]"H-0c43"[1](0c43) # "h" lid ' + "9" * 5000 + " 4xHDR")
def test_infiniband_diags_text_parses_or_lists_its_problems(text: str) -> None:
    for parse in (parse_ibnetdiscover, parse_ibnetdiscover_ports, parse_topology):
        topo = parse(text)
        topo.records()
        topo.switches()
    res = parse_perfquery(text)
    assert all(isinstance(v, int) for p in res.ports for v in p.values.values())


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_recorded_perfquery_cut_anywhere_gives_only_values_the_whole_output_gives(data: st.DataObject) -> None:
    text = (FIXTURES / "ib" / "perfquery" / "0x7cfe9003009ce5b0.out").read_text()
    cut = data.draw(st.integers(0, len(text)))
    whole, part = parse_perfquery(text), parse_perfquery(text[:cut])
    assert len(part.ports) <= len(whole.ports)
    for got, full in zip(part.ports, whole.ports, strict=False):
        assert (got.lid, got.port) == (full.lid, full.port)
        assert got.values.items() <= full.values.items()  # never a number cut short
    if text[:cut].strip() and not text[:cut].endswith("\n"):
        assert part.problems  # and it says where it stopped


@settings(max_examples=200, deadline=None)
@given(records, records, records)
def test_ufm_inventory_takes_any_json(systems: object, ports: object, links: object) -> None:
    inv = Inventory()
    parse_systems(systems, inv)
    parse_ports(ports, inv)
    parse_links(links, inv)
    resolve_peers(inv)
    for (guid, number), info in inv.ports.items():
        assert isinstance(guid, str) and isinstance(number, str) and all(isinstance(v, str) for v in info.tags.values())
    for fields in inv.cables.values():
        assert all(isinstance(v, str) for v in fields.values())


@settings(max_examples=300, deadline=None)
@given(records | json_values, st.integers(0, 10**6), records | json_values)
@example([{"id": float("inf"), "object_name": "x"}], 0, [])
@example([{"id": 7, "object_name": "x", "timestamp": "9999-12-31 23:59:59"}], 0, [])
@example([{"id": 7, "object_name": "x", "timestamp": "0001-01-01 00:00:00"}], 0, [])
def test_ufm_events_and_unhealthy_ports_take_any_json(events: object, after: int, unhealthy: object) -> None:
    got, top, _ = parse_events(events, Inventory(), after)
    assert top >= after
    assert all(int(e.event_id) > after for e in got)
    assert all(isinstance(e.ts_ns, int) and storable(e.ts_ns) for e in got)
    parse_unhealthy(unhealthy, Inventory())


@settings(max_examples=300, deadline=None)
@given(json_values | st.builds(lambda rows: {"values": rows}, records))
@example({"values": [{"node_guid": "0c42", "port_num": 1, "timestamp": 10**17}]})
def test_ufm_telemetry_json_parses_or_says_telemetry_error(doc: object) -> None:
    try:
        parsed = parse_json(json.dumps(doc))
    except TelemetryError:
        return
    for pc in parsed.ports:
        assert pc.ts_ns is None or (isinstance(pc.ts_ns, int) and storable(pc.ts_ns))


csv_cells = st.text(",\n", max_size=0) | st.sampled_from(["", "0x1", "12", "-3", "1.5", "nan", "inf", "1" * 5000,
                                                          "1e999", "x"]) | st.text(max_size=8).filter(
    lambda s: "," not in s and "\n" not in s)
csv_texts = st.builds(lambda rows, tail: "timestamp,Node_GUID,Port_Number,PortXmitDataExtended\n"
                      + "\n".join(",".join(r) for r in rows) + tail,
                      st.lists(st.lists(csv_cells, min_size=2, max_size=5), max_size=5), st.sampled_from(["", "\n"]))


@settings(max_examples=300, deadline=None)
@given(csv_texts | st.text(max_size=200))
@example("timestamp,Node_GUID,Port_Number,PortXmitDataExtended\n" + "9" * 17 + ",0c42,1,5\n")
def test_ufm_telemetry_csv_parses_or_says_telemetry_error(text: str) -> None:
    try:
        parsed = parse_csv(text)
    except TelemetryError:
        return
    for pc in parsed.ports:
        assert pc.ts_ns is None or (isinstance(pc.ts_ns, int) and storable(pc.ts_ns))


prom_lines = st.one_of(
    st.text(max_size=60),
    st.builds('PortXmitDataExtended{{node_guid="{}",port_num="{}"}} {} {}'.format, st.text(max_size=6),
              st.text(max_size=4), st.sampled_from(["1", "1.5", "NaN", "+Inf", "-Inf", "1e999", "x"]),
              st.sampled_from(["", "1700000000000", "1e308", "99999999999999999999999"])),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(prom_lines, max_size=6).map("\n".join))
@example('PortXmitDataExtended{node_guid="0",port_num="0"} 1 1e308')
@example('PortXmitDataExtended{node_guid="0",port_num="0"} 1 99999999999999999999999')
def test_ufm_telemetry_prometheus_text_parses_or_says_telemetry_error(text: str) -> None:
    try:
        parsed = parse_prometheus(text + "\n")
    except TelemetryError:
        return
    for pc in parsed.ports:
        assert pc.ts_ns is None or (isinstance(pc.ts_ns, int) and storable(pc.ts_ns))


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40) | st.builds("{} {}:{}".format, st.sampled_from(["today", "yesterday"]),
                                        st.integers(-(10**20), 10**20), st.integers(-(10**20), 10**20))
       | st.builds("-{}{}".format, st.integers(0, 10**25), st.sampled_from(["s", "m", "h", "d", "w"]))
       | st.builds("{:04d}-{:02d}-{:02d} 00:00:00{}".format, st.integers(1, 9999), st.integers(1, 12),
                   st.integers(1, 28), st.sampled_from(["", "Z", "+14:00", "-12:00"])))
@example("today 999999999999:00")
@example("0001-01-01T00:00:00+05:00")
def test_any_text_is_a_storable_time_or_a_value_error(text: str) -> None:
    try:
        ns = parse_time_ns(text, now_ns=1_800_000_000_000_000_000)
    except ValueError as exc:
        assert "not a time" in str(exc)
        return
    assert storable(ns)


SYSFS_FILES = ["counters/port_xmit_data", "counters/symbol_error", "counters/link_downed",
               "hw_counters/out_of_sequence", "hw_counters/np_cnp_sent", "counters/unknown_thing", "state", "rate",
               "link_layer"]
file_bytes = st.binary(max_size=30) | st.sampled_from(
    [b"12\n", "\u00b2".encode(), "\u0663\u0664".encode(), b"1" * 5000, b"\xff\xfe", b"4: ACTIVE",
     b"1" * 400 + b" Gb/sec", b"100 Gb/sec (4X EDR)", b"-5", b"0x10", b"18446744073709551616"])


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(SYSFS_FILES), file_bytes, max_size=len(SYSFS_FILES)))
@example({"counters/symbol_error": "\u00b2".encode()})  # str.isdigit() says yes, int() says no
@example({"counters/port_xmit_data": b"\xff\xfe"})
@example({"rate": b"1" * 400 + b" Gb/sec"})
def test_a_sysfs_tree_with_any_bytes_in_its_files_reads_what_it_can(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        port_dir = Path(tmp) / "sys/class/infiniband/mlx5_0/ports/1"
        port_dir.mkdir(parents=True)
        for name, content in files.items():
            (port_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (port_dir / name).write_bytes(content)
        [port] = read_ports(Path(tmp), [])
    for name, value in port.values.items():
        assert isinstance(value, int) and value >= 0, name
    for name, content in files.items():
        if name.startswith("counters/") and not name.endswith("unknown_thing"):
            digits = content.strip()
            good = digits.isdigit() and len(digits.lstrip(b"0")) <= 20 and int(digits) < 2**64
            assert good == (name.split("/")[1] not in port.unreadable), name
