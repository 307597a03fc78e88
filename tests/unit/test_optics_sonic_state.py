"""SONiC STATE_DB transceiver tables, as sonic-utilities' mock and two real dumps have them."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from pygnmi.spec.v080 import gnmi_pb2

from fabricwatch.collectors.gnmi.sonic_state import decode, parse_fields, split_key
from fabricwatch.core.optics import NO_LIGHT_DBM


def _state(path: Path) -> dict[str, dict]:
    raw = json.loads(path.read_text())
    if isinstance(raw, list):  # db_dump.json: one dict per redis database, STATE_DB among them
        raw = next(db for db in raw if any(k.startswith("TRANSCEIVER_") for k in db))
    # sonic-db-dump wraps each key as {expireat, ttl, type, value}
    return {k: v["value"] if isinstance(v, dict) and "value" in v and "type" in v else v for k, v in raw.items()}


def test_mock_state_db_dom_thresholds_pm_and_inventory(fixtures: Path) -> None:
    db = _state(fixtures / "optics/sonic/mock_state_db.json")
    v, _ = parse_fields("TRANSCEIVER_DOM_SENSOR", db["TRANSCEIVER_DOM_SENSOR|Ethernet0"])
    assert v["temperature_c"] == 30.9258 and v["voltage_v"] == 3.2824
    assert [v[f"rx_power_dbm_l{n}"] for n in range(1, 5)] == [0.3802, -0.4871, -0.0860, 0.3830]
    assert v["tx_bias_ma_l4"] == 6.75 and "tx_power_dbm_l1" not in v  # "N/A" is no value
    eight, _ = parse_fields("TRANSCEIVER_DOM_SENSOR", db["TRANSCEIVER_DOM_SENSOR|Ethernet72"])
    assert eight["rx_power_dbm_l8"] == 0.3 and eight["tx_power_dbm_l8"] == 0.4 and eight["tx_bias_ma_l5"] == 6.4
    t, _ = parse_fields("TRANSCEIVER_DOM_THRESHOLD", db["TRANSCEIVER_DOM_THRESHOLD|Ethernet0"])
    assert t["rx_power_dbm_low_warn"] == -9.5001 and t["rx_power_dbm_low_alarm"] == -13.5067
    assert t["temperature_c_high_warn"] == 70.0 and t["voltage_v_low_warn"] == 3.1349
    assert t["tx_bias_ma_high_alarm"] == 10.0
    pm, _ = parse_fields("TRANSCEIVER_PM", db["TRANSCEIVER_PM|Ethernet44"])
    assert pm == {"pre_fec_ber": 0.00046578129838019075}
    _, inv = parse_fields("TRANSCEIVER_INFO", db["TRANSCEIVER_INFO|Ethernet0"])
    assert inv == {"vendor": "Mellanox", "part_number": "MFA1A00-C003", "serial": "MT1706FT02064", "revision": "AC",
                   "module_type": "QSFP28 or later", "length_m": "3", "media": "40G Active Cable (XLPPI)"}
    _, fw = parse_fields("TRANSCEIVER_FIRMWARE_INFO", db["TRANSCEIVER_FIRMWARE_INFO|Ethernet8"])
    assert fw == {"firmware": "2.1.1"}


def test_real_t1_dump_of_passive_dacs(fixtures: Path) -> None:
    """A real sonic-db-dump (copper DACs): no light (-inf) is stored as such, N/A is nothing."""
    db = _state(fixtures / "optics/sonic/t1_state_db.json")
    infos = {split_key(k)[1]: parse_fields("TRANSCEIVER_INFO", v)[1] for k, v in db.items()  # type: ignore[index]
             if k.startswith("TRANSCEIVER_INFO|")}
    assert len(infos) == 32 and infos["Ethernet0"]["vendor"] == "Molex" and infos["Ethernet0"]["serial"] == "901120073"
    v, _ = parse_fields("TRANSCEIVER_DOM_SENSOR", db["TRANSCEIVER_DOM_SENSOR|Ethernet0"])
    assert v["rx_power_dbm_l1"] == NO_LIGHT_DBM and v["temperature_c"] == 0.0 and "tx_power_dbm_l1" not in v


def test_older_xcvrd_keeps_thresholds_in_the_sensor_table(fixtures: Path) -> None:
    db = _state(fixtures / "sonic/db_dump.json")
    v, _ = parse_fields("TRANSCEIVER_DOM_SENSOR", db["TRANSCEIVER_DOM_SENSOR|Ethernet4"])
    assert v["temperature_c_high_alarm"] == -0.0039 and v["voltage_v_low_warn"] == 6.5535  # as the DAC reads them
    _, inv = parse_fields("TRANSCEIVER_INFO", db["TRANSCEIVER_INFO|Ethernet4"])
    assert inv["revision"] == "E" and inv["media"] == "40GBASE-CR4" and inv["length_m"] == "1"


def test_a_gnmi_notification_of_state_db_both_shapes() -> None:
    def n(elems: list[str], obj: dict) -> gnmi_pb2.Notification:
        return gnmi_pb2.Notification(timestamp=5, prefix=gnmi_pb2.Path(target="STATE_DB", elem=[
            gnmi_pb2.PathElem(name=elems[0])]), update=[gnmi_pb2.Update(
                path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=e) for e in elems[1:]]),
                val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(obj).encode()))])

    one, _, bad = decode(n(["TRANSCEIVER_DOM_SENSOR", "Ethernet0"], {"temperature": "41.5"}), "sw", {})
    many, inv, _ = decode(n(["TRANSCEIVER_INFO"], {"Ethernet0": {"serial": "A"}, "Ethernet4": {"serial": "B"}}),
                          "sw", {})
    assert [(s.port, s.values) for s in one] == [("Ethernet0", {"temperature_c": 41.5})] and bad == 0
    assert many == [] and inv == {"Ethernet0": {"serial": "A"}, "Ethernet4": {"serial": "B"}}


@given(st.dictionaries(st.text(max_size=20), st.text(max_size=30) | st.integers() | st.none(), max_size=20),
       st.sampled_from(["TRANSCEIVER_DOM_SENSOR", "TRANSCEIVER_DOM_THRESHOLD", "TRANSCEIVER_PM", "TRANSCEIVER_INFO",
                        "TRANSCEIVER_FIRMWARE_INFO"]))
def test_parse_never_raises(fields: dict, table: str) -> None:
    values, inventory = parse_fields(table, fields)
    assert all(isinstance(x, float) for x in values.values()) and all(isinstance(x, str) for x in inventory.values())


def test_counters_db_fec_fields_through_the_sonic_path_table(fixtures: Path) -> None:
    """COUNTERS_DB FEC fields as sonic-utilities' mock has them (its values are synthetic, its key
    names are xcvrd's and syncd's), served the way sonic-gnmi serves COUNTERS/<port>."""
    from fabricwatch.collectors.gnmi.mapping import Decoder, load_table

    db = json.loads((fixtures / "optics/sonic/mock_counters_db.json").read_text())
    names = db["COUNTERS_PORT_NAME_MAP"]
    dec = Decoder(load_table("sonic"), "sonic1", {})
    got = {}
    for port, oid in names.items():
        fields = db.get(f"COUNTERS:{oid}")
        if not fields or "SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES" not in fields:
            continue
        n = gnmi_pb2.Notification(timestamp=1, prefix=gnmi_pb2.Path(target="COUNTERS_DB", elem=[
            gnmi_pb2.PathElem(name="COUNTERS")]), update=[gnmi_pb2.Update(
                path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=port)]),
                val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(fields).encode()))])
        (sample,) = dec.decode(n)
        got[port] = sample.values
        assert sample.values["fec_corrected"] == int(fields["SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES"])
        assert sample.values["fec_uncorrectable"] == int(fields["SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES"])
        assert sample.values["fec_corrected_symbols"] == int(fields["SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS"])
    assert set(got) == {"Ethernet0", "Ethernet4", "Ethernet8"}  # the ports its name map names
    assert got["Ethernet0"]["fec_corrected"] == 130402
