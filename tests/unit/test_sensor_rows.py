"""Principle 3 (trends before thresholds) watches a module's temperature, power and bias: it can only where they are
read as the pollers deliver them. An SNMP poller walking the ENTITY-SENSOR-MIB (RFC 3433) writes one row per sensor,
the port in the sensor's description, the value an integer to be scaled by the sensor's scale and precision."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricwatch.detection.sensor_rows import sensor_reading
from tests.replayed import last_links

T0 = 1_741_732_200


@pytest.mark.parametrize("reader", ["columns", "samples"])
def test_a_modules_sensor_rows_are_its_ports_readings(tmp_path: Path, reader: str) -> None:
    """Arista's descriptions name the port ("DOM Temperature Sensor for Ethernet1/1") and a lane as the port's
    last component where the port has lanes ("DOM Rx Power Sensor for Ethernet1/1/3": lane 3 of Ethernet1/1, no
    port of that name being heard); NX-OS says the lane in words ("Ethernet1/2 Lane 2 Transceiver Receive Power
    Sensor"). A breakout port heard by its own name (Ethernet1/5/2) is that port, not a lane. 452 at precision 1
    is 45.2 degC, -224 at precision 2 is -2.24 dBm, 6500 mA at scale milli(8) with precision 3 6.5 mA."""
    lines = [f"snmp_if,ifAlias=gpu1:mlx5_{k},ifName={p},source=leaf1 ifHCInOctets={{n}}000000i"
             for k, p in enumerate(("Ethernet1/1", "Ethernet1/2", "Ethernet1/5/2"))]
    lines += [
        r"snmp_dom,sensor=DOM\ Temperature\ Sensor\ for\ Ethernet1/1,source=leaf1,units=Celsius "
        "entPhySensorPrecision=1i,entPhySensorValue=45{n}i",
        r"snmp_dom,sensor=DOM\ Rx\ Power\ Sensor\ for\ Ethernet1/1/3,source=leaf1,units=dBm "
        "entPhySensorPrecision=2i,entPhySensorValue=-224i",
        r"snmp_dom,sensor=Ethernet1/2\ Lane\ 2\ Transceiver\ Receive\ Power\ Sensor,source=leaf1,units=dBm "
        "entPhySensorPrecision=1i,entPhySensorValue=-31i",
        r"snmp_dom,sensor=DOM\ Tx\ Bias\ Sensor\ for\ Ethernet1/5/2,source=leaf1 "
        "entPhySensorType=5i,entPhySensorScale=8i,entPhySensorPrecision=3i,entPhySensorValue=6500i",
        r"snmp_dom,sensor=Fan\ Tray\ 1\ Fan\ 1\ Sensor,source=leaf1,units=RPM entPhySensorValue=9000i",
    ]
    links = last_links(tmp_path, reader, lines, polls=4, t0=T0)
    assert set(links) == {("leaf1", "Ethernet1/1"), ("leaf1", "Ethernet1/2"), ("leaf1", "Ethernet1/5/2")}
    assert links[("leaf1", "Ethernet1/1")].optics == pytest.approx({"temperature_c": 45.4, "rx_power_dbm_l3": -2.24})
    assert links[("leaf1", "Ethernet1/2")].optics == pytest.approx({"rx_power_dbm_l2": -3.1})
    assert links[("leaf1", "Ethernet1/5/2")].optics == pytest.approx({"tx_bias_ma_l1": 6.5})
    assert links[("leaf1", "Ethernet1/1")].tags["peer_device"] == "gpu1"  # the sensor rows take nothing away


@given(description=st.text(max_size=80), value=st.one_of(st.integers(), st.floats(allow_nan=True), st.text()),
       precision=st.one_of(st.integers(-5, 12), st.text(max_size=3)), units=st.text(max_size=8))
def test_any_sensor_row_is_read_or_refused_never_raises(description: str, value: object, precision: object,
                                                        units: str) -> None:
    """A poller's rows are not ours: whatever their description, units and values, a row is a reading in the
    vocabulary's units or no reading."""
    got = sensor_reading("snmp_dom", {"source": "leaf1", "sensor": description, "units": units},
                         {"entPhySensorValue": value, "entPhySensorPrecision": precision}, lambda d, p: False)
    if got is not None:
        tags, values = got
        assert tags["source"] == "leaf1" and tags["ifName"]
        assert len(values) == 1 and all(isinstance(v, float) for v in values.values())
