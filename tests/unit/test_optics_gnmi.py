"""The physical layer over gNMI: Junos native optics as recorded (Telegraf issue_17154), OpenConfig
transceiver components (no public recording: shapes from openconfig-platform-transceiver)."""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path

from pygnmi.spec.v080 import gnmi_pb2

from fabricwatch.collectors.gnmi.mapping import Decoder, load_table
from tests.unit.test_gnmi_mapping import decode_all, responses


def _recorded(fixtures: Path) -> dict:
    raw = json.loads((fixtures / "gnmi/telegraf-testcases/issue_17154/responses.json").read_text())
    return {"/".join(e["name"] for e in u["path"]["elem"]) + str([e.get("key") for e in u["path"]["elem"]]): u["val"]
            for u in raw[0]["update"]["update"]}


def test_junos_optics_equal_the_recording(fixtures: Path) -> None:
    dec = Decoder(load_table("juniper"), "qfx", {})
    got = decode_all(dec, responses(fixtures, "issue_17154"))["et-0/0/0"]
    rec = _recorded(fixtures)
    assert got["temperature_c"] == rec["optics/module_temp[None, None]"]["floatVal"] == 36.66
    assert got["rx_power_dbm_low_warn"] == -10 and got["rx_power_dbm_low_alarm"] == -13
    assert got["tx_bias_ma_low_warn"] == 40.959 and got["temperature_c_high_warn"] == 75
    for lane in range(4):
        key = f"[None, None, {{'lane_number': '{lane}'}}, None]"
        for leaf, name in (("lane_laser_receiver_power_dbm", "rx_power_dbm"),
                           ("lane_laser_output_power_dbm", "tx_power_dbm")):
            raw = base64.b64decode(rec[f"optics/lanediags/lane/{leaf}{key}"]["bytesVal"])
            want = float(f"{struct.unpack('>f', raw)[0]:.7g}")  # a 4-byte IEEE float, as Junos sends it
            assert got[f"{name}_l{lane + 1}"] == want  # lane 0 on the device is lane 1 here
        assert got[f"tx_bias_ma_l{lane + 1}"] == 90
    assert (got["rx_power_dbm_l1"], got["rx_power_dbm_l4"]) == (-0.07, 1.53)
    assert got["fec_corrected_bits"] == 0 and got["fec_uncorrectable"] == 0  # summed over the four lanes


def _u(path: list[tuple[str, dict[str, str]]], **val: object) -> gnmi_pb2.Update:
    return gnmi_pb2.Update(path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n, key=k) for n, k in path]),
                           val=gnmi_pb2.TypedValue(**val))


def test_openconfig_transceiver_component_mapped_to_its_interface() -> None:
    dec = Decoder(load_table("openconfig"), "leaf1", {})
    comp = [("components", {}), ("component", {"name": "xcvr-Ethernet1/1"})]
    mapping = gnmi_pb2.Notification(timestamp=1, update=[
        _u([("interfaces", {}), ("interface", {"name": "Ethernet1/1"}), ("state", {}), ("transceiver", {})],
           string_val="xcvr-Ethernet1/1")])
    dom = gnmi_pb2.Notification(timestamp=2, prefix=gnmi_pb2.Path(elem=[
        gnmi_pb2.PathElem(name=n, key=k) for n, k in comp]), update=[
        _u([("transceiver", {}), ("physical-channels", {}), ("channel", {"index": "2"}), ("state", {}),
            ("input-power", {}), ("instant", {})], double_val=-9.8),
        _u([("transceiver", {}), ("state", {}), ("pre-fec-ber", {}), ("instant", {})], double_val=2.5e-7),
        _u([("transceiver", {}), ("thresholds", {}), ("threshold", {"severity": "WARNING"}), ("state", {}),
            ("input-power-lower", {})], double_val=-8.5),
        _u([("transceiver", {}), ("thresholds", {}), ("threshold", {"severity": "NOTICE"}), ("state", {}),
            ("input-power-lower", {})], double_val=-1.0),
        _u([("state", {}), ("serial-no", {})], string_val="ABC123"),
        _u([("transceiver", {}), ("state", {}), ("form-factor", {})], string_val="oc-opt-types:QSFP28"),
    ])
    assert dec.decode(mapping) == []
    (sample,) = dec.decode(dom)
    assert sample.port == "Ethernet1/1"
    assert sample.values == {"rx_power_dbm_l3": -9.8, "pre_fec_ber": 2.5e-7, "rx_power_dbm_low_warn": -8.5}
    assert dec.unmapped == 1  # a NOTICE threshold has no canonical name
    assert dec.drain_inventory() == {"Ethernet1/1": {"serial": "ABC123", "module_type": "QSFP28"}}
    assert dec.drain_inventory() == {}


def test_a_component_nobody_maps_keeps_its_own_name() -> None:
    dec = Decoder(load_table("openconfig"), "leaf1", {})
    n = gnmi_pb2.Notification(timestamp=1, update=[
        _u([("components", {}), ("component", {"name": "Ethernet7"}), ("state", {}), ("temperature", {}),
            ("instant", {})], double_val=41.5)])
    (sample,) = dec.decode(n)
    assert (sample.port, sample.values) == ("Ethernet7", {"temperature_c": 41.5})
