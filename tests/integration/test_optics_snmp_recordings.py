"""DOM over SNMP through the real collector, snmpsim serving walks recorded on real switches."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricwatch.collectors.snmp.config import SnmpConfig
from fabricwatch.core.batch import SampleBatch
from tests.servers import SnmpSim

pytestmark = pytest.mark.integration

RECORDINGS = ("junos_qfx5100", "nxos_n3k-3064pq", "dell-sonic", "arista_eos", "dnos_z9100-on")


@pytest.fixture(scope="module")
def snmpsim(fixtures: Path) -> Iterator[SnmpSim]:
    sim = SnmpSim([fixtures / "optics" / "snmp" / f"{r}.snmprec" for r in RECORDINGS])
    sim.start()
    try:
        yield sim
    finally:
        sim.stop()


async def _poll(snmpsim: SnmpSim, recording: str, monkeypatch: pytest.MonkeyPatch, **extra: object) -> tuple[
        SampleBatch, SampleBatch, object]:
    monkeypatch.setenv("FW_TEST_COMMUNITY", recording)
    cfg = SnmpConfig.model_validate({
        "community": {"env": "FW_TEST_COMMUNITY"}, "timeout": 5, "max_repetitions": 20, **extra,
        "targets": [{"device": "sw", "address": f"127.0.0.1:{snmpsim.port}"}],
    })
    [collector] = cfg.build()
    async with collector:
        first = await collector.poll()
        second = await collector.poll()  # within optics_interval: counters only
    return first, second, collector


def _values(batch: SampleBatch) -> dict[str, dict[str, float]]:
    return {s.port: s.values for s in batch.samples}


async def test_junos_dom_mib_by_sysobjectid(snmpsim: SnmpSim, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second, collector = await _poll(snmpsim, "junos_qfx5100", monkeypatch)
    assert collector.profile.name == "junos"  # type: ignore[attr-defined]
    # jnxDomCurrentTable row of ifIndex 513 (xe-0/0/0): rx -230, bias 5588, tx -188, 42 degC
    xe = _values(first)["xe-0/0/0"]
    assert xe["rx_power_dbm_l1"] == pytest.approx(-2.30) and xe["tx_power_dbm_l1"] == pytest.approx(-1.88)
    assert xe["tx_bias_ma_l1"] == pytest.approx(5.588) and xe["temperature_c"] == 42
    assert xe["rx_power_dbm_low_alarm"] == pytest.approx(-13.09)
    assert xe["rx_power_dbm_low_warn"] == pytest.approx(-12.09)
    assert xe["temperature_c_high_warn"] == 85 and xe["tx_bias_ma_high_alarm"] == pytest.approx(50.0)
    assert "in_octets" in xe  # the counters came in the same sample
    assert not any("rx_power_dbm_l1" in v for v in _values(second).values())


async def test_nxos_cisco_sensor_mib_with_thresholds_and_inventory(snmpsim: SnmpSim,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    first, _, collector = await _poll(snmpsim, "nxos_n3k-3064pq", monkeypatch)
    e = _values(first)["Ethernet1/1"]
    assert e["rx_power_dbm_l1"] == pytest.approx(-13.187) and e["tx_bias_ma_l1"] == pytest.approx(20.116)
    assert e["rx_power_dbm_low_warn"] == pytest.approx(-25.228)
    inv = {m.port: m.fields for m in first.modules}
    assert inv["Ethernet1/1"]["part_number"] == "GLC-BX-D" and inv["Ethernet1/1"]["vendor"] == "CISCOSOLIDOPTICS"
    assert collector.dom_unplaced == 0  # type: ignore[attr-defined]
    # `fabricwatch check` says what the DOM round found
    assert f"{collector.dom_sensors} DOM sensors read" in collector.describe()  # type: ignore[attr-defined]
    assert collector.dom_sensors >= 8 * 5  # type: ignore[attr-defined]


@pytest.mark.parametrize("engine", ["fast", "pysnmp"])
async def test_sonic_entity_sensors_over_both_engines(snmpsim: SnmpSim, monkeypatch: pytest.MonkeyPatch,
                                                      engine: str) -> None:
    first, _, _ = await _poll(snmpsim, "dell-sonic", monkeypatch, engine=engine)
    v = _values(first)["Eth1/53"]
    assert v["voltage_v"] == pytest.approx(3.2962) and v["temperature_c"] == pytest.approx(28.9453)
    assert v["tx_bias_ma_l1"] == pytest.approx(5.802)
    assert [m.fields.get("module_type") for m in first.modules if m.port == "Eth1/53"] == ["QSFP28"]


async def test_dell_os9_transceiver_mib_numbers_written_as_text(snmpsim: SnmpSim,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    first, _, collector = await _poll(snmpsim, "dnos_z9100-on", monkeypatch)
    assert collector.profile.name == "dell-os9"  # type: ignore[attr-defined]
    # dellNetIfTransceiverDataTable row of ifIndex 2097156 (Te 1/1/1): FS QSFP28-SR4-100G, as recorded
    v = _values(first)["TenGigabitEthernet 1/1/1"]
    assert v["tx_power_dbm_l1"] == 1.091058 and v["rx_power_dbm_l1"] == -2.740884
    assert v["temperature_c"] == 35.484375 and v["voltage_v"] == 3.2834 and v["tx_bias_ma_l1"] == 6.676
    assert "rx_power_dbm_l2" not in v  # lanes 2-4 are empty strings in the walk: no value, not an error
    inv = {m.port: m.fields for m in first.modules}["TenGigabitEthernet 1/1/1"]
    assert inv == {"vendor": "FS", "part_number": "QSFP28-SR4-100G", "serial": "S1810378483", "media": "100GBASE-SR4"}
    assert len(first.modules) == 21  # the 21 of 49 rows that name a vendor, part or serial


async def test_optics_off_reads_no_sensor_table(snmpsim: SnmpSim, monkeypatch: pytest.MonkeyPatch) -> None:
    first, _, _ = await _poll(snmpsim, "arista_eos", monkeypatch, optics=False)
    assert not first.modules and not any("tx_power_dbm_l1" in v for v in _values(first).values())
    first_on, _, _ = await _poll(snmpsim, "arista_eos", monkeypatch)
    e1 = _values(first_on)["Ethernet1"]
    assert e1["rx_power_dbm_low_warn"] < e1["rx_power_dbm_high_warn"]
