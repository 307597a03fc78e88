"""`ethtool -m` and `ethtool -S` physical-layer parsing, on modules recorded by others (SFF-8472)."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricwatch.collectors.hostnic.config import HostNicConfig
from fabricwatch.collectors.hostnic.ethtool import parse_ethtool_stats
from fabricwatch.collectors.hostnic.module import parse_module_info
from fabricwatch.core.optics import NO_LIGHT_DBM, mw_to_dbm


def _case(fixtures: Path, name: str, what: str) -> str:
    return (fixtures / "optics" / "ethtool" / name / what).read_text()


def test_sff8472_dom_and_thresholds_equal_the_recording(fixtures: Path) -> None:
    r = parse_module_info(_case(fixtures, "i40e_00_sfp_10g_sr85", "module_info"))
    assert r.values["tx_bias_ma_l1"] == 6.090
    assert r.values["tx_power_dbm_l1"] == -1.96  # ethtool's own dBm figure, not recomputed
    assert r.values["rx_power_dbm_l1"] == -1.88
    assert r.values["temperature_c"] == 39.18 and r.values["voltage_v"] == 3.3544
    assert r.values["rx_power_dbm_low_alarm"] == -14.10 and r.values["rx_power_dbm_low_warn"] == -12.10
    assert r.values["tx_bias_ma_high_alarm"] == 15.0 and r.values["temperature_c_high_warn"] == 70.0
    assert r.values["voltage_v_low_warn"] == 3.1350 and r.values["tx_power_dbm_low_warn"] == -7.50
    # a single-lane SFP has lane 1 only; every threshold quantity x level is there (20)
    assert not any(k.endswith(("_l2", "_l3", "_l4")) for k in r.values)
    assert len([k for k in r.values if k.endswith(("_warn", "_alarm"))]) == 20
    assert r.inventory == {"vendor": "FS", "part_number": "SFP-10GSR-85", "serial": "F2020533679",
                           "revision": "A", "module_type": "SFP", "media": "10G Ethernet: 10G Base-SR",
                           "length_m": "300"}
    assert r.unparsed == []


def test_second_module_and_the_first_nonzero_length(fixtures: Path) -> None:
    r = parse_module_info(_case(fixtures, "i40e_02_sfp_10_or_25g_sr", "module_info"))
    v = r.values
    assert (v["tx_bias_ma_l1"], v["tx_power_dbm_l1"], v["rx_power_dbm_l1"]) == (6.762, -2.88, -2.24)
    assert r.values["temperature_c"] == 40.01
    assert r.inventory["vendor"] == "OEM" and r.inventory["serial"] == "GJ2308161004"
    assert r.inventory["length_m"] == "80"  # 50 um OM2 reach, the first length the module states


def test_a_module_reading_nonsense_is_stored_as_read(fixtures: Path) -> None:
    """bnxt_en + FS module: DOM the driver misreads (0 degC, 99 mA). We store what the device said;
    the detector's thresholds come from the same module, so nonsense does not page by itself."""
    r = parse_module_info(_case(fixtures, "bnxt_en_00_sfp_10gsr85", "module_info"))
    assert r.values["tx_bias_ma_l1"] == 99.168 and r.values["temperature_c"] == 0.0
    assert r.values["tx_power_dbm_l1"] == 7.56 and r.values["rx_power_dbm_l1"] == 4.36
    assert r.inventory["serial"] == "S2109191251"


def test_ethtool_stats_fec_counters_from_the_recording(fixtures: Path) -> None:
    text = _case(fixtures, "bnxt_en_00_sfp_10gsr85", "statistics")
    values, unmapped, bits = parse_ethtool_stats(text)
    assert values["fec_corrected"] == 0 and values["fec_uncorrectable"] == 0
    assert values["symbol_errors"] == 0 and bits["symbol_errors"] == 64  # PCS symbol errors wrap at 64 bits
    assert unmapped > 0  # per-queue lines are not port counters


def test_mlx5_phy_counters() -> None:
    # no public recording of mlx5 PHY counters exists: names from the mlx5 driver's documentation
    text = "NIC statistics:\n     rx_corrected_bits_phy: 1234\n     rx_err_lane_0_phy: 5\n" \
           "     rx_err_lane_3_phy: 7\n     rx_symbol_err_phy: 2\n"
    values, _, bits = parse_ethtool_stats(text)
    assert values == {"fec_corrected_bits": 1234, "lane_errors_l1": 5, "lane_errors_l4": 7, "symbol_errors": 2}
    assert bits == {"symbol_errors": 64}


def test_qsff_channels_and_no_light() -> None:
    # SFF-8636 spelling (ethtool's qsfp.c); no public recording of a QSFP28 dump was found
    text = ("\tIdentifier : 0x11 (QSFP28)\n"
            "\tLaser tx bias current (Channel 1) : 6.594 mA\n"
            "\tLaser tx bias current (Channel 4) : 6.700 mA\n"
            "\tTransmit avg optical power (Channel 2) : 0.6870 mW / -1.63 dBm\n"
            "\tRcvr signal avg optical power(Channel 3) : 0.0000 mW / -inf dBm\n"
            "\tRcvr signal avg optical power(Channel 4) : 0.1000 mW\n")
    r = parse_module_info(text)
    assert r.values == {"tx_bias_ma_l1": 6.594, "tx_bias_ma_l4": 6.7, "tx_power_dbm_l2": -1.63,
                        "rx_power_dbm_l3": NO_LIGHT_DBM, "rx_power_dbm_l4": pytest.approx(-10.0)}
    assert r.inventory["module_type"] == "QSFP28"


def test_mw_to_dbm() -> None:
    assert mw_to_dbm(1.0) == 0.0 and mw_to_dbm(0.0) == NO_LIGHT_DBM and mw_to_dbm(-1.0) == NO_LIGHT_DBM
    assert mw_to_dbm(float("nan")) == NO_LIGHT_DBM
    assert mw_to_dbm(0.5890) == pytest.approx(-2.299, abs=1e-3)


@given(st.text(max_size=2000))
def test_module_parser_never_raises(text: str) -> None:
    r = parse_module_info(text)
    assert all(isinstance(v, float) for v in r.values.values())


def test_hostnic_reads_modules_at_their_own_interval(tmp_path: Path, fixtures: Path) -> None:
    """A fake ethtool (a script) answers -m with a recorded dump: DOM lands in the port's sample and
    the inventory in the batch, on the first poll and again only after optics_interval."""
    root = tmp_path / "root"
    port = root / "sys/class/infiniband/mlx5_0/ports/1"
    (port / "counters").mkdir(parents=True)
    (port / "counters" / "symbol_error").write_text("3\n")
    (port / "state").write_text("4: ACTIVE\n")
    (port / "link_layer").write_text("Ethernet\n")
    (root / "sys/class/infiniband/mlx5_0/device/net/ens1f0").mkdir(parents=True)
    dump = fixtures / "optics" / "ethtool" / "i40e_00_sfp_10g_sr85" / "module_info"
    calls = tmp_path / "calls"
    tool = tmp_path / "ethtool"
    tool.write_text(f"#!/bin/sh\necho \"$@\" >> {calls}\n[ \"$1\" = -m ] && exec cat {dump}\necho 'NIC statistics:'\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    cfg = HostNicConfig(host="gpu-1", sysfs_root=root, optics=True, optics_interval=300, ethtool_path=str(tool))
    (collector,) = cfg.build()
    first = asyncio.run(collector.poll())
    second = asyncio.run(collector.poll())
    assert first.samples[0].values["rx_power_dbm_l1"] == -1.88 and first.samples[0].values["symbol_errors"] == 3
    assert [m.fields["serial"] for m in first.modules] == ["F2020533679"] and first.modules[0].port == "mlx5_0/1"
    assert "rx_power_dbm_l1" not in second.samples[0].values and not second.modules
    assert calls.read_text().split("\n").count("-m ens1f0") == 1


def test_an_unreadable_module_is_a_problem_not_a_failed_poll(tmp_path: Path) -> None:
    root = tmp_path / "root"
    port = root / "sys/class/infiniband/mlx5_0/ports/1"
    (port / "counters").mkdir(parents=True)
    (port / "counters" / "symbol_error").write_text("3\n")
    (root / "sys/class/infiniband/mlx5_0/device/net/ens1f0").mkdir(parents=True)
    tool = tmp_path / "ethtool"
    tool.write_text("#!/bin/sh\necho 'netlink error: Invalid argument' >&2\nexit 1\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    (collector,) = HostNicConfig(host="h", sysfs_root=root, optics=True, ethtool_path=str(tool)).build()
    batch = asyncio.run(collector.poll())
    assert batch.samples[0].values["symbol_errors"] == 3
    assert [k for k, _ in batch.problems] == ["command"] and not batch.modules
