"""Path tables turn recorded SubscribeResponses from real devices into canonical counters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.protobuf import json_format
from pygnmi.spec.v080 import gnmi_pb2

from fabricwatch.collectors.gnmi.mapping import Decoder, flavours, load_table
from fabricwatch.core.counters import COUNTERS


def responses(fixtures: Path, case: str) -> list:
    raw = json.loads((fixtures / "gnmi/telegraf-testcases" / case / "responses.json").read_text())
    return [json_format.Parse(json.dumps(r), gnmi_pb2.SubscribeResponse()) for r in raw]


def decode_all(decoder: Decoder, msgs: list) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for m in msgs:
        if m.HasField("update"):
            for s in decoder.decode(m.update):
                out.setdefault(s.port, {}).update(s.values)
    return out


def test_every_table_maps_only_to_canonical_counters() -> None:
    for flavour in flavours():
        table = load_table(flavour)
        assert table.leaves
        for template in table.leaves.values():
            keys = {"index": 3, "priority": 3, "lane": 2, **{k: v["WARNING"] for k, v in table.key_map.items()}}
            assert template.format(**keys) in COUNTERS


def test_issue_14530_openconfig_counters_with_interface_key(fixtures: Path) -> None:
    dec = Decoder(load_table("openconfig"), "dev", {})
    got = decode_all(dec, responses(fixtures, "issue_14530"))
    assert set(got) == {"Ethernet35"}
    assert got["Ethernet35"] == {
        "in_octets": 0, "out_octets": 0, "in_pkts": 0, "out_pkts": 0, "in_errors": 0,
        "out_errors": 0, "in_discards": 0, "out_discards": 0, "fcs_errors": 0,
    }
    # broadcast / multicast / unicast breakdowns are not in the vocabulary: counted, not lost silently
    assert dec.unmapped == 6


def test_issue_16476_ciena_port_from_name_leaf_and_real_values(fixtures: Path) -> None:
    dec = Decoder(load_table("openconfig"), "ciena", {})
    got = decode_all(dec, responses(fixtures, "issue_16476"))
    assert set(got) == {"1"}  # no key on the interface elem: the port is the quoted "name" leaf
    v = got["1"]
    assert v["in_octets"] == 95890972327359
    assert v["out_octets"] == 885293268981054
    assert v["in_pkts"] == 222159970919
    assert v["out_pkts"] == 677379680498
    assert v["in_discards"] == 236
    assert v["fcs_errors"] == 0  # in-crc-error-pkts
    assert v["link_transitions"] == 0  # link-flap-events


def test_issue_14063_string_encoded_uints_and_escaped_name(fixtures: Path) -> None:
    dec = Decoder(load_table("openconfig"), "dev", {})
    got = decode_all(dec, responses(fixtures, "issue_14063"))
    assert set(got) == {"1"}
    assert got["1"]["in_octets"] == 0 and got["1"]["out_pkts"] == 0
    assert len(got["1"]) == 9


def _sonic_notification(fixture: Path, path_elems: list[str]) -> object:
    val = gnmi_pb2.TypedValue(json_ietf_val=fixture.read_bytes())
    return gnmi_pb2.Notification(
        timestamp=1,
        prefix=gnmi_pb2.Path(target="COUNTERS_DB"),
        update=[gnmi_pb2.Update(path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=e) for e in path_elems]),
                                val=val)],
    )


def test_sonic_counters_db_single_port(fixtures: Path) -> None:
    dec = Decoder(load_table("sonic"), "sonic1", {})
    raw = json.loads((fixtures / "sonic" / "COUNTERS:Ethernet68.txt").read_text())
    (sample,) = dec.decode(_sonic_notification(fixtures / "sonic" / "COUNTERS:Ethernet68.txt",
                                               ["COUNTERS", "Ethernet68"]))
    assert sample.port == "Ethernet68"
    for p in range(8):
        assert sample.values[f"pfc_rx_p{p}"] == int(raw[f"SAI_PORT_STAT_PFC_{p}_RX_PKTS"])
        assert sample.values[f"pfc_tx_p{p}"] == int(raw[f"SAI_PORT_STAT_PFC_{p}_TX_PKTS"])
    assert sample.values["pfc_rx_p7"] == 2  # the one non-zero PFC value in the recording
    assert sample.values["in_octets"] == int(raw["SAI_PORT_STAT_IF_IN_OCTETS"])
    assert sample.values["in_discards"] == int(raw["SAI_PORT_STAT_IF_IN_DISCARDS"])


@pytest.mark.parametrize("name", ["COUNTERS:Ethernet_wildcard.txt", "COUNTERS:Ethernet_wildcard_PFC_7_RX.txt"])
def test_sonic_wildcard_gives_every_port(fixtures: Path, name: str) -> None:
    raw = json.loads((fixtures / "sonic" / name).read_text())
    dec = Decoder(load_table("sonic"), "sonic1", {})
    samples = dec.decode(_sonic_notification(fixtures / "sonic" / name, ["COUNTERS", "Ethernet*"]))
    by_port = {s.port: s.values for s in samples}
    assert set(by_port) == {p for p, fields in raw.items() if fields}
    for port, fields in raw.items():
        if "SAI_PORT_STAT_PFC_7_RX_PKTS" in fields:
            assert by_port[port]["pfc_rx_p7"] == int(fields["SAI_PORT_STAT_PFC_7_RX_PKTS"])


def test_sonic_queue_ecn_is_summed_per_port(fixtures: Path) -> None:
    dec = Decoder(load_table("sonic"), "sonic1", {})
    queues = {
        "Ethernet0:3": {"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "70"},
        "Ethernet0:4": {"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "5"},
        "Ethernet4:3": {"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "1"},
    }
    n = gnmi_pb2.Notification(
        timestamp=1, prefix=gnmi_pb2.Path(target="COUNTERS_DB", elem=[gnmi_pb2.PathElem(name="COUNTERS")]),
        update=[gnmi_pb2.Update(
            path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="Ethernet*"), gnmi_pb2.PathElem(name="Queues")]),
            val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(queues).encode()))],
    )
    got = {s.port: s.values for s in dec.decode(n)}
    assert got == {"Ethernet0": {"ecn_marked": 75}, "Ethernet4": {"ecn_marked": 1}}


def test_sonic_shapes_in_db_dump(fixtures: Path) -> None:
    """db_dump.json: a whole switch; every port's COUNTERS hash maps PFC and octet fields."""
    dump = json.loads((fixtures / "sonic" / "db_dump.json").read_text())
    counters_db = next(db for db in dump if any(k.startswith("COUNTERS:oid") for k in db))
    names = next(db for db in dump if "COUNTERS_PORT_NAME_MAP" in db)["COUNTERS_PORT_NAME_MAP"]
    table = load_table("sonic")
    checked = 0
    for port, oid in names["value"].items() if "value" in names else names.items():
        entry = counters_db.get(f"COUNTERS:{oid}")
        if not entry:
            continue
        fields = entry.get("value", entry)
        mapped = {table.leaves[f] for f in fields if f in table.leaves}
        assert {"in_octets", "out_octets", "pfc_rx_p3", "pfc_tx_p3"} <= mapped, port
        checked += 1
    assert checked >= 32


def test_arista_and_cumulus_priority_keys() -> None:
    def upd(path: str, value: int) -> object:
        from fabricwatch.collectors.gnmi.collector import parse_path

        return gnmi_pb2.Update(path=parse_path(path), val=gnmi_pb2.TypedValue(uint_val=value))

    arista = Decoder(load_table("arista"), "a", {})
    n = gnmi_pb2.Notification(timestamp=5, update=[
        upd("/interfaces/interface[name=Ethernet1]/ethernet/pfc/priorities/priority[index=3]/state/in-frames", 11),
        upd("/interfaces/interface[name=Ethernet1]/ethernet/pfc/priorities/priority[index=3]/state/out-frames", 12),
    ])
    assert {s.port: s.values for s in arista.decode(n)} == {"Ethernet1": {"pfc_rx_p3": 11, "pfc_tx_p3": 12}}
    cumulus = Decoder(load_table("cumulus"), "c", {})
    n = gnmi_pb2.Notification(timestamp=5, update=[
        upd("/qos/interfaces/interface[interface-id=swp1]/switch-priority[priority=4]/state/counters/in-pause-pkts", 7),
        upd("/interfaces/interface[name=swp1]/state/counters/carrier-up-transitions", 3),
        upd("/interfaces/interface[name=swp1]/state/counters/carrier-down-transitions", 2),
    ])
    assert {s.port: s.values for s in cumulus.decode(n)} == {
        "swp1": {"pfc_rx_p4": 7, "link_transitions": 5}
    }


def test_sonic_lldp_neighbour_from_the_recorded_appl_db(fixtures: Path) -> None:
    """The one LLDP_ENTRY_TABLE hash in db_dump.json, as SONiC's gNMI sends APPL_DB (a JSON hash per
    key), reads as that switch port's neighbour; a hash without a name is reported, not invented."""
    from fabricwatch.collectors.gnmi.lldp import parse_sonic
    from fabricwatch.core.neighbours import Neighbour

    dump = json.loads((fixtures / "sonic" / "db_dump.json").read_text())
    appl = next(db for db in dump if "LLDP_ENTRY_TABLE:eth0" in db)
    fields = appl["LLDP_ENTRY_TABLE:eth0"]
    fields = fields.get("value", fields)

    def note(port: str, value: object) -> object:
        return gnmi_pb2.Notification(prefix=gnmi_pb2.Path(target="APPL_DB"), update=[gnmi_pb2.Update(
            path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="LLDP_ENTRY_TABLE"), gnmi_pb2.PathElem(name=port)]),
            val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(value).encode()))])

    found, problems = parse_sonic([note("eth0", fields), note("Ethernet8", {"lldp_rem_index": "1"})])
    assert found == [Neighbour("eth0", "swtor-b2lab2-1103", "ethernet1/1/3", False)]  # caps 68 00: bridge+router
    assert problems == ["LLDP_ENTRY_TABLE Ethernet8: a neighbour without a name or a port"]


@pytest.mark.parametrize("flavour", ["openconfig", "arista", "cumulus", "sonic"])
def test_ports_of_one_path_share_one_leaf_table_and_decode_as_alone(flavour: str) -> None:
    """A device's ports send the same paths under their own prefix: what a leaf means is resolved
    once per path shape, not once per port (it was ~20% of the daemon's memory per port), and a
    decoder that has seen every port decodes each notification as one that sees that port alone."""
    from fabricwatch.simulator.fabric import Fabric
    from fabricwatch.simulator.flavours import port_notifications
    from fabricwatch.simulator.topology import FabricSpec

    fabric = Fabric(FabricSpec(nodes=16, rails=2, leaves_per_rail=1, spines=2, flavours=(flavour,)), seed=3,
                    start_ns=1_700_000_000_000_000_000)
    device = max(fabric.topology.devices.values(), key=lambda d: len(d.ports))
    table = load_table(flavour)
    shared = Decoder(table, device.name, {})
    alone = {port.name: Decoder(table, device.name, {}) for port in device.ports}
    tables = []  # leaf tables the shared decoder holds after each port
    for t in (1, 2):
        snap = fabric.snapshot(fabric.start_ns + t * 10_000_000_000)
        for port in device.ports:
            for n in port_notifications(flavour, port, snap):
                expect = [(s.port, s.ts_ns, s.values) for s in alone[port.name].decode(n)]
                assert [(s.port, s.ts_ns, s.values) for s in shared.decode(n)] == expect
            tables.append(len({id(p.leaves) for p in shared._prefix_cache.values()}))
    assert len(device.ports) >= 16
    if table.port_elem is None:  # SONiC names the port in each update's path, not in a prefix
        assert len(shared._prefix_cache) >= len(device.ports)
        assert tables[-1] == tables[0], tables  # after one port: it no longer grows with ports


def test_every_recorded_case_decodes_in_every_flavour_to_canonical_numbers(fixtures: Path) -> None:
    """Whatever a device sends (system, PSU, BGP, queue stats, deletes, native Sysdb paths), each
    flavour's decoder takes it: samples with canonical counters and numbers, or nothing."""
    cases = sorted(p.parent.name for p in (fixtures / "gnmi/telegraf-testcases").glob("*/responses.json"))
    assert len(cases) >= 20
    for flavour in flavours():
        for case in cases:
            dec = Decoder(load_table(flavour), "dev", {})
            for m in responses(fixtures, case):
                if not m.HasField("update"):
                    continue
                for s in dec.decode(m.update):
                    assert s.port and s.device == "dev", (flavour, case)
                    assert all(name in COUNTERS and isinstance(v, int | float) for name, v in s.values.items()), \
                        (flavour, case, s.values)


@pytest.mark.parametrize("flavour", ["openconfig", "arista", "cumulus", "juniper"])
def test_negotiated_port_speed_is_the_speed_the_link_trained_to(flavour: str) -> None:
    """Principle 6 (the same through every path): openconfig-if-ethernet's negotiated-port-speed is what the
    link trained to, read as speed_bps as SNMP's ifHighSpeed and a host's sysfs rate are. Devices send the
    ETHERNET_SPEED identity bare or with its module; SPEED_UNKNOWN (nothing negotiated) is 0, no reading; an
    identity nobody defined is counted, not guessed. Subscribed with the counters, sampled."""
    from fabricwatch.collectors.gnmi.collector import parse_path

    table = load_table(flavour)
    assert "/interfaces/interface/ethernet/state/negotiated-port-speed" in table.subscribe_sample
    dec = Decoder(table, "d", {})

    def speed(port: str, value: str) -> object:
        prefix = parse_path(f"/interfaces/interface[name={port}]/ethernet/state")
        return gnmi_pb2.Notification(timestamp=7, prefix=prefix, update=[gnmi_pb2.Update(
            path=parse_path("negotiated-port-speed"), val=gnmi_pb2.TypedValue(string_val=value))])

    got = {}
    for port, value in (("Ethernet1", "SPEED_400GB"), ("Ethernet2", "openconfig-if-ethernet:SPEED_100GB"),
                        ("Ethernet3", "oc-eth:SPEED_2500MB"), ("Ethernet4", "SPEED_UNKNOWN"),
                        ("Ethernet5", "SPEED_300GB")):
        got.update({s.port: s.values for s in dec.decode(speed(port, value))})
    assert got == {"Ethernet1": {"speed_bps": 400e9}, "Ethernet2": {"speed_bps": 100e9},
                   "Ethernet3": {"speed_bps": 2.5e9}, "Ethernet4": {"speed_bps": 0}}
    assert dec.unmapped == 1
