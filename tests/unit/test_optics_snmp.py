"""Transceiver DOM over SNMP, read from walks recorded on real switches by others (LibreNMS snmpsim
files): every value as the recording has it, scaled as RFC 3433 / the vendor MIB says."""

from __future__ import annotations

import binascii
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricwatch.collectors.snmp.sensors import columns_wanted, read_sensors

IF_DESCR, IF_NAME, IF_ALIAS = "1.3.6.1.2.1.2.2.1.2", "1.3.6.1.2.1.31.1.1.1.1", "1.3.6.1.2.1.31.1.1.1.18"


def _walk(path: Path) -> dict[str, tuple[str, str]]:
    out = {}
    for line in path.read_text(errors="replace").splitlines():
        parts = line.split("|", 2)
        if len(parts) == 3:
            out[parts[0]] = (parts[1], parts[2])
    return out


def _value(typ: str, raw: str) -> object:
    if typ in ("2", "65", "66", "67", "70"):
        return int(raw)
    if typ == "4x":
        return binascii.unhexlify(raw).decode("utf-8", "replace").strip("\x00 ")
    return raw.strip("\x00 ")


def _read(fixtures: Path, name: str, mib: str, thresholds: str | None, port_col: str = IF_NAME):
    rec = _walk(fixtures / "optics" / "snmp" / f"{name}.snmprec")
    cols: dict[str, dict[tuple[int, ...], object]] = {}
    for col in columns_wanted(mib, thresholds):
        rows = cols.setdefault(col, {})
        for oid, (typ, raw) in rec.items():
            if oid.startswith(col + "."):
                rows[tuple(int(a) for a in oid[len(col) + 1:].split("."))] = _value(typ, raw)
    names: dict[str, int] = {}
    port_of: dict[int, str] = {}
    for col in (IF_ALIAS, IF_DESCR, IF_NAME):
        for oid, (typ, raw) in rec.items():
            if oid.startswith(col + ".") and (text := str(_value(typ, raw))):
                idx = int(oid.rsplit(".", 1)[1])
                names[text] = idx
                if col == port_col or idx not in port_of:
                    port_of[idx] = text
    return read_sensors(cols, mib=mib, thresholds=thresholds, names=names, port_of=port_of), rec


def dbm(mw: float) -> float:
    return 10 * math.log10(mw)


def test_sonic_edgecore_lanes_by_name(fixtures: Path) -> None:
    r, _ = _read(fixtures, "edgecos_dcs203", "entity", None)
    port1 = r.values["Eth6/3(Port1)"]  # 'DOM TX Power Sensor for Eth6/3(Port1)/1': lane 1 of ifName Eth6/3(Port1)
    assert port1["tx_power_dbm_l1"] == pytest.approx(dbm(0.5890))  # 5890 W x 10^-3 x 10^-4 = 0.5890 mW
    assert port1["rx_power_dbm_l1"] == pytest.approx(dbm(0.5310))
    assert port1["tx_bias_ma_l1"] == pytest.approx(5.436)
    assert port1["voltage_v"] == pytest.approx(3.1100)
    assert port1["temperature_c"] == pytest.approx(24.039)
    # lanes 2-4 of an SFP read 0 with status unavailable(2): not values
    assert not any(k.endswith(("_l2", "_l3", "_l4")) for k in port1)
    assert len(r.values) == 29  # 35 modules in the walk; 6 answer no sensor with status ok(1)
    qsfp = [p for p, v in r.values.items() if "rx_power_dbm_l4" in v]
    assert qsfp == ["Eth56(Port56)"]  # the one QSFP28 whose four lanes answer ok (49-51 read unavailable)
    assert r.inventory["Eth6/3(Port1)"]["vendor"] == "FS"
    assert r.inventory["Eth6/3(Port1)"]["part_number"] == "SFP-10GSR-85"


def test_dell_sonic_qsfp28_four_lanes(fixtures: Path) -> None:
    r, rec = _read(fixtures, "dell-sonic", "entity", None)
    # 'DOM RX Power Sensor for Ethernet52/1': no IF-MIB name is Ethernet52 (ifName Eth1/53, standard
    # naming mode); sonic-snmpagent gives EthernetN the ifIndex N + 1
    assert list(r.values) == [rec[f"{IF_NAME}.53"][1]] == ["Eth1/53"]
    v = r.values["Eth1/53"]
    assert v["rx_power_dbm_l1"] == pytest.approx(dbm(0.8728)) and v["rx_power_dbm_l2"] == pytest.approx(dbm(0.8954))
    assert v["rx_power_dbm_l3"] == pytest.approx(dbm(0.8777))
    assert not any(k.startswith("tx_power_dbm_l") for k in v)  # TX power 0 with status 2
    assert v["tx_bias_ma_l1"] == pytest.approx(5.802)
    assert v["temperature_c"] == pytest.approx(28.9453) and v["voltage_v"] == pytest.approx(3.2962)


def test_arista_with_vendor_thresholds_and_no_light(fixtures: Path) -> None:
    r, _ = _read(fixtures, "arista_eos", "entity", "arista")
    e1 = r.values["Ethernet1"]
    assert e1["tx_power_dbm_l1"] == pytest.approx(dbm(0.6322))
    assert e1["rx_power_dbm_l1"] == pytest.approx(dbm(0.0001))  # RX 1 -> 0.0001 mW (-40 dBm): no light
    assert e1["tx_bias_ma_l1"] == pytest.approx(33.45)  # 3345 A x 10^-3 x 10^-2
    # ARISTA-ENTITY-SENSOR-MIB thresholds of the RX sensor: low warn 363, low critical 229 (same scale)
    assert e1["rx_power_dbm_low_warn"] == pytest.approx(dbm(0.0363))
    assert e1["rx_power_dbm_low_alarm"] == pytest.approx(dbm(0.0229))
    assert e1["rx_power_dbm_high_alarm"] == pytest.approx(dbm(2.2387))
    assert len(r.values) >= 35
    assert r.inventory["Ethernet1"] == {"vendor": "Arista Networks", "part_number": "SFP-10GLR-31",
                                        "serial": "G1904016438", "revision": "0002", "module_type": "Xcvr"}


def test_cisco_nxos_dbm_sensors_and_threshold_table(fixtures: Path) -> None:
    r, _ = _read(fixtures, "nxos_n3k-3064pq", "cisco", "cisco")
    e = r.values["Ethernet1/1"]
    assert e["rx_power_dbm_l1"] == pytest.approx(-13.187) and e["tx_power_dbm_l1"] == pytest.approx(-5.883)
    assert e["tx_bias_ma_l1"] == pytest.approx(20.116)  # 20116 at micro amperes
    assert e["temperature_c"] == pytest.approx(30.855) and e["voltage_v"] == pytest.approx(3.381)
    # entSensorThresholdTable rows of the RX sensor:
    # (major, >) -1999, (minor, >) -3001, (major, <) -26989, (minor, <) -25228
    assert (e["rx_power_dbm_high_alarm"], e["rx_power_dbm_high_warn"]) == (pytest.approx(-1.999), pytest.approx(-3.001))
    assert (e["rx_power_dbm_low_alarm"], e["rx_power_dbm_low_warn"]) == (pytest.approx(-26.989), pytest.approx(-25.228))
    assert set(p for p in r.values if p.startswith("Ethernet1/")) == {f"Ethernet1/{n}" for n in range(1, 9)}
    assert r.inventory["Ethernet1/1"]["vendor"] == "CISCOSOLIDOPTICS"
    assert r.inventory["Ethernet1/1"]["serial"] == "SOSB43L_WAU27"


def test_exos_sensors_placed_through_entity_alias_mapping(fixtures: Path) -> None:
    """EXOS names no interface in its sensor descriptions: entAliasMappingTable places them."""
    r, rec = _read(fixtures, "xos_sfp", "entity", None)
    # sensor 135 ('SFP TX Power Sensor', watts at micro, 10646) is in entity 4, which maps to ifIndex 1001
    port = str(_value(*rec[f"{IF_NAME}.1001"]))
    assert port == "1:1"
    assert r.values[port]["tx_power_dbm_l1"] == pytest.approx(dbm(10.646))
    assert r.values[port]["temperature_c"] == 32
    assert r.unplaced == 0 and len(r.values) > 10


def test_junos_entity_sensors_place_nothing(fixtures: Path) -> None:
    """Junos keeps DOM in its own MIB (the junos profile reads it); its ENTITY-SENSOR rows are
    chassis sensors, which must land on no interface and count as no miss."""
    r, _ = _read(fixtures, "junos_qfx5100", "entity", None)
    assert r.values == {} and r.unplaced == 0


_INDEX = st.tuples(st.integers(0, 2**31)) | st.tuples(st.integers(0, 9), st.integers(0, 9))


@given(st.dictionaries(st.sampled_from(columns_wanted("cisco", "cisco")),
                       st.dictionaries(_INDEX, st.integers(-2**31, 2**31) | st.text(max_size=40), max_size=6),
                       max_size=12))
def test_sensor_reader_never_raises(cols: dict) -> None:
    read_sensors(cols, mib="cisco", thresholds="cisco", names={"Ethernet1": 1}, port_of={1: "Ethernet1"})


def test_sensors_named_by_interface_without_dom_words() -> None:
    """IOS-XE's spelling (no public walk here: written from its entPhysicalDescr style): the
    interface is named, 'DOM' or 'transceiver' is not. A PoE current is no laser bias; a CPU
    sensor belongs to no interface and is no miss."""
    base = "1.3.6.1.4.1.9.9.91.1.1.1.1"
    ent = "1.3.6.1.2.1.47.1.1.1.1"
    sensors = {1001: ("Te1/0/1 Module Temperature Sensor", 8, 9, 1, 345),
               1002: ("Te1/0/1 Receive Power Sensor", 14, 9, 1, -23),
               1003: ("Te1/0/1 Bias Current Sensor", 5, 7, 0, 6500),
               2001: ("Gi1/0/2 PoE Current Sensor", 5, 8, 0, 120),
               3001: ("CPU Temperature Sensor", 8, 9, 0, 55)}
    cols: dict[str, dict[tuple[int, ...], object]] = {c: {} for c in columns_wanted("cisco", None)}
    for e, (descr, kind, scale, precision, value) in sensors.items():
        cols[f"{ent}.2"][(e,)] = descr
        for c, v in ((1, kind), (2, scale), (3, precision), (4, value), (5, 1)):
            cols[f"{base}.{c}"][(e,)] = v
    r = read_sensors(cols, mib="cisco", thresholds=None, names={"Te1/0/1": 1, "Gi1/0/2": 2},
                     port_of={1: "Te1/0/1", 2: "Gi1/0/2"})
    assert r.values == {"Te1/0/1": {"temperature_c": 34.5, "rx_power_dbm_l1": -2.3, "tx_bias_ma_l1": 6.5}}
    assert r.unplaced == 0
