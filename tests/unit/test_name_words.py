"""Principle 1 (every counter is evidence, so a known input must be read): an exporter nobody listed names its
counters in words an operator understands (`pfcRxPausePkts3`, `domTemperature`, `module_temp_c`). A name
whose every word is understood is that counter, however it is spelled; one word not understood leaves it
unread, never guessed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricwatch.core.batch import PortSample
from fabricwatch.core.counters import COUNTERS, PART
from fabricwatch.core.name_words import FILLER, IN, OUT, SUBJECTS, UNITS, read, words
from fabricwatch.core.names import canonical_fields, spellings
from fabricwatch.detection.interval_fold import ReplayReport, intervals_from_files
from fabricwatch.detection.replay import intervals_from_lp
from fabricwatch.pipeline.rates import RateEngine

READ = {
    "pfcRxPausePkts3": "pfc_rx_p3", "pfcTxPausePkts3": "pfc_tx_p3", "PfcTxFrames4": "pfc_tx_p4",
    "ecnMarkedPkts3": "ecn_marked", "domTemperature": "temperature_c", "module_temp_c": "temperature_c",
    "domRxPowerAvg": "rx_power_dbm_l1", "rx_power_dbm": "rx_power_dbm_l1", "rx_power_lane3_dbm": "rx_power_dbm_l3",
    "domTxBias": "tx_bias_ma_l1", "phy_raw_ber": "pre_fec_ber", "preFecBer": "pre_fec_ber",
    "post-fec-ber": "post_fec_ber", "fecCorrectedCodewords": "fec_corrected",
    "FEC_UNCORRECTABLE_BLOCKS": "fec_uncorrectable", "crcErrors": "fcs_errors", "egressDrops": "out_discards",
    "rx_octets": "in_octets", "tx_pause_frames": "pause_tx", "ifInErrors": "in_errors",
    "in-unicast-pkts": "in_pkts",  # as IF-MIB's ifHCInUcastPkts is read: the unicast packets are RDMA's
    # OpenConfig's transceiver physical channels and QoS queues, one field per channel or queue
    "input_power_instant_ch3": "rx_power_dbm_l3", "output_power_instant_ch2": "tx_power_dbm_l2",
    "rx_power_channel_6": "rx_power_dbm_l6", "ecn_marked_pkts_queue3": "ecn_marked",
    # IEEE 802.1Qbb's words for PFC frames (a request is one sent, an indication one received), a priority or a
    # queue as a `_pN` / `_qN` suffix, and a vendor's name before it, which says who wrote it, not what it is
    "aristaPfcPriorityRequests_p3": "pfc_tx_p3", "aristaPfcPriorityIndications_p4": "pfc_rx_p4",
    "aristaEgressQueueEcnMarkedPkts_q3": "ecn_marked", "aristaEgressQueuePktsDropped_q3": "out_discards",
    # EOS's own: a port's link status changes (its transitions, `show interfaces`), and a unicast queue's drops
    # (`UC3`, `show interfaces counters queue`)
    "linkStatusChanges": "link_transitions", "carrierChanges": "link_transitions", "uc3Drops": "out_discards",
    # NX-OS native names: per-priority pause (PPP) on a class of service, a queue group's marks and its drops
    # (whichever mechanism dropped: WRED, AFD, the tail), codewords, a module's channel and its laser
    "pfc_rxPPP_cos3": "pfc_rx_p3", "pfc_txPPP_cos3": "pfc_tx_p3", "queuing_ecnMarkedPkts_qg3": "ecn_marked",
    "queuing_wredAfdTailDropPkts_qg3": "out_discards", "fec_correctedCws": "fec_corrected",
    "fec_uncorrectedCws": "fec_uncorrectable", "ch3_laser_bias_ma": "tx_bias_ma_l3",
    "ingressOverflowDropPkts": "in_discards", "supply_voltage_v": "voltage_v",
    # SONiC's queue counters as a gNMI client flattens Queues/Ethernet0:3 into one point per port
    "Q3_SAI_QUEUE_STAT_DROPPED_PACKETS": "out_discards",
}
UNREAD = [
    "pfcWdDroppedPkts3", "queuing_wdTailDropPkts_qg3",  # a watchdog's drops: "wd" is no word we know
    "queuing_txPkts_qg0", "queuing_qDepthByts_qg3",  # a queue's own traffic and depth: no counter of the port
    "rx_prio3_pause_duration",  # a duration, not a count of frames
    "domRxPowerMin", "ifHCInMulticastPkts", "pfcRxPausePkts9",  # no priority 0-7 (none: `pfc_rx_any`)
    "tx_queue_dropped", "rx_queue_errors",  # the host's software queues (mlx5), not the port
    "rx_tx_octets", "temperature_dbm", "rxTemperature", "ieee8021PfcRequests", "rx_power_mw", "", "___",
]


@pytest.mark.parametrize("name", sorted(READ))
def test_a_name_whose_words_are_all_understood_is_that_counter(name: str) -> None:
    assert read(name) == READ[name]
    assert READ[name] in COUNTERS
    assert spellings([name])[name].canonical == READ[name]


# documented names whose words do not say it all, read through the table (value given -> canonical value)
DOCUMENTED = {
    "oper-status": ("oper_status", 2, 0.0),  # OpenConfig's leaf as a number, IF-MIB's numbering: 2 is down
    "admin-status": ("admin_status", 1, 1.0), "link": ("oper_status", 0, 0.0),  # Telegraf's ethtool input
    "interface_up": ("admin_status", 1, 1.0), "carrier-transitions": ("link_transitions", 3, 3.0),
    "rs-fec-uncorrectable-blocks": ("fec_uncorrectable", 5, 5.0),
    "fec-uncorrectable-words": ("fec_uncorrectable", 6, 6.0),  # OpenConfig's transceiver codewords the FEC lost
    "corrected-bits": ("fec_corrected_bits", 7, 7.0),
    "temperature/instant": ("temperature_c", 41.5, 41.5), "port-speed": ("speed_bps", 100_000, 100e9),
    "speed_bytes": ("speed_bps", 100_000_000_000, 8e11),  # node_exporter's netclass attribute, in bytes/s
    "a_octets_received_ok": ("in_octets", 9, 9.0), "a_frame_check_sequence_errors": ("fcs_errors", 1, 1.0),
    "rx_pause_prio_3": ("pfc_rx_p3", 4, 4.0), "tc_no_buffer_discard_uc_tc_3": ("buffer_discards", 2, 2.0),
    # Prometheus node_exporter's infiniband collector (HCA ports, from sysfs), with and without its namespace
    "node_infiniband_port_errors_received_total": ("rcv_errors", 3, 3.0),
    "port_data_received_bytes_total": ("in_octets", 8, 8.0),
    "port_transmit_wait_total": ("xmit_wait", 5, 5.0), "link_downed_total": ("link_downed", 1, 1.0),
    "port_discards_transmitted_total": ("xmit_discards", 2, 2.0),
    "excessive_buffer_overrun_errors_total": ("excessive_buffer_overrun_errors", 1, 1.0),
    "state_id": ("oper_status", 4, 1.0), "node_infiniband_state_id": ("oper_status", 1, 0.0),  # 4 Active, 1 Down
    "physical_state_id": ("admin_status", 3, 0.0),  # 3 Disabled: shut; 2 Polling is up, trying to train
    "rate_bytes_per_second": ("speed_bps", 5e10, 4e11),
    # UFM Telemetry's port state and width (IBA enumerations)
    "logical_state": ("oper_status", 4, 1.0), "phy_state": ("admin_status", 2, 1.0),
    "Link_width_active": ("link_width_active", 16, 2.0),  # LinkWidthActive 16 is 2x, 2 is 4x
    # mlx5's ethtool counters: symbol errors the FEC did not correct; the speed a driver cannot tell (-1 unsigned)
    "rx_pcs_symbol_err_phy": ("symbol_errors", 3, 3.0), "speed": ("speed_bps", 4294967295, 0.0),
    # Prometheus node_exporter: its ethtool collector (every `ethtool -S` stat under `node_ethtool_`) and its
    # netdev and netclass collectors (`node_network_*`; the speed in bytes/s)
    "node_ethtool_rx_out_of_buffer": ("buffer_discards", 5, 5.0), "node_ethtool_rx_bytes_phy": ("in_octets", 9, 9.0),
    "node_ethtool_tx_prio3_pause": ("pfc_tx_p3", 4, 4.0),
    "node_ethtool_rx_crc_errors_phy": ("fcs_errors", 2, 2.0), "node_network_carrier": ("oper_status", 0, 0.0),
    "node_network_carrier_changes_total": ("link_transitions", 6, 6.0),
    "node_network_speed_bytes": ("speed_bps", 5e10, 4e11), "node_network_receive_bytes_total": ("in_octets", 7, 7.0),
    "node_network_transmit_drop_total": ("out_discards", 1, 1.0),
    # node_exporter's ethtool collector lower-cases each stat and spells its rx and tx words out (received_,
    # transmitted_); a Cumulus Linux switch port's `ethtool -S` names (HwIf*) as it exposes them; netclass's
    # operstate as `up` and the interface flags (IFF_UP, bit 0, is the administrative state)
    "node_ethtool_received_bytes_phy": ("in_octets", 9, 9.0),
    "node_ethtool_transmitted_prio3_pause": ("pfc_tx_p3", 4, 4.0),
    "node_ethtool_received_corrected_bits_phy": ("fec_corrected_bits", 5, 5.0),
    "node_ethtool_link_down_events_phy": ("link_downed", 1, 1.0),
    "node_ethtool_hwifinoctets": ("in_octets", 9, 9.0), "node_ethtool_hwifoutucastpkts": ("out_pkts", 3, 3.0),
    "node_ethtool_hwifindot3frameerrors": ("fcs_errors", 2, 2.0),
    "node_ethtool_hwifindiscards": ("in_discards", 2, 2.0), "node_ethtool_hwifoutqdrops": ("buffer_discards", 2, 2.0),
    "node_ethtool_hwifinpfc3pkt": ("pfc_rx_p3", 4, 4.0), "HwIfOutPfc3Pkt": ("pfc_tx_p3", 4, 4.0),
    "node_network_up": ("oper_status", 0, 0.0), "node_network_flags": ("admin_status", 4098, 0.0),
}


@pytest.mark.parametrize(("flags", "admin"), [(4099, 1.0), (4098, 0.0), (0x1043, 1.0), (0, 0.0)])
def test_an_interfaces_flags_say_its_administrative_state_by_iff_up(flags: int, admin: float) -> None:
    found = spellings(["node_network_flags"])["node_network_flags"]
    assert (found.canonical, found.value(flags)) == ("admin_status", admin)


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_documented_exporters_names_are_read_in_the_vocabularys_units(name: str) -> None:
    canonical, given, read_as = DOCUMENTED[name]
    found = spellings([name]).get(name)
    assert found is not None and found.canonical == canonical
    assert found.value(given) == read_as


def test_words_never_outvote_a_document_and_two_readings_of_one_counter_are_neither() -> None:
    """A recorded bnxt_en `ethtool -S` has rx_discards, rx_stat_discard and rx_total_discard_pkts (ring and
    port levels): which one is the port's the words cannot say, so none is read. perfquery gives both
    PortXmitPkts (the table's) and PortUnicastXmitPkts: the documented name is the counter."""
    sample = {"rx_discards": 1.0, "rx_stat_discard": 2.0, "rx_total_discard_pkts": 3.0, "rx_bytes": 4.0,
              "PortXmitPkts": 5.0, "tx_total_frames": 6.0, "in_pkts": 7.0, "rx_total_frames": 8.0}
    got = canonical_fields(sample)
    assert {k: v for k, v in got.items() if k in COUNTERS} == {"in_octets": 4.0, "out_pkts": 5.0, "in_pkts": 7.0}
    assert {"rx_discards", "rx_stat_discard", "rx_total_discard_pkts", "tx_total_frames"} <= set(got)


@pytest.mark.parametrize("name", UNREAD)
def test_a_name_with_a_word_not_understood_or_missing_is_left_unread(name: str) -> None:
    assert read(name) is None


KNOWN_WORDS = sorted(IN | OUT | FILLER | set(SUBJECTS) | set(UNITS))


def _spell(ws: list[str], style: int) -> str:
    if style == 0:
        return "_".join(ws)
    if style == 1:
        return "-".join(w.upper() for w in ws)
    return ws[0] + "".join(w.capitalize() for w in ws[1:])


@given(st.sampled_from(sorted(READ)), st.integers(0, 2))
def test_the_spelling_does_not_change_the_reading(name: str, style: int) -> None:
    assert read(_spell(words(name), style)) == READ[name]


@given(st.sampled_from(sorted(READ)), st.from_regex(r"[a-z]{3,9}", fullmatch=True), st.integers(0, 4))
def test_one_word_more_that_is_not_understood_leaves_it_unread(name: str, extra: str, at: int) -> None:
    if extra in KNOWN_WORDS:
        return
    ws = words(name)
    ws.insert(min(at, len(ws)), extra)
    assert read("_".join(ws)) is None


@given(st.text(max_size=60))
def test_any_text_is_a_counter_of_the_vocabulary_or_none(text: str) -> None:
    got = read(text)
    assert got is None or got in COUNTERS


def test_words_split_at_case_digits_and_separators() -> None:
    assert words("ifHCInOctets") == ["if", "hc", "in", "octets"]
    assert words("pfc_rx-pause.Pkts3") == ["pfc", "rx", "pause", "pkts", "3"]
    assert all(re.fullmatch(r"[a-z]+|\d+", w) for w in words("SAI_PORT_STAT_PFC_3_RX_PKTS"))


def test_replay_reads_a_vendor_exporters_names_by_their_words(tmp_path: Path) -> None:
    tags = "device=leaf-1,port=Ethernet1/1,fabric=roce,role=leaf_down,peer_device=gpu01,peer_port=mlx5_0,speed=400G"
    path = tmp_path / "vendor.lp"
    path.write_text("".join(
        f"port_counters,{tags} ifHCOutOctets={k * 30 * 10**9}i,pfcTxPausePkts3={k * 30 * 500}i,"
        f"ecnMarkedPkts3={k * 30 * 2000}i,pfcWdDroppedPkts3=0i,domTemperature=51.5 "
        f"{1_700_000_000_000_000_000 + k * 30_000_000_000}\n" for k in range(8)))
    report = ReplayReport()
    batch = [iv for chunk in intervals_from_files([path], 30.0, report=report) for iv in chunk]
    for li in (batch[-1].links[0], intervals_from_lp([path], 30.0)[-1][1][0]):
        assert li.rates["pfc_tx_p3"] == pytest.approx(500.0)
        assert li.rates["ecn_marked"] == pytest.approx(2000.0)
        assert li.optics["temperature_c"] == pytest.approx(51.5)
    assert set(report.unread_fields) == {"pfcWdDroppedPkts3"}


def test_a_recording_of_two_exporters_reads_each_ones_names(tmp_path: Path) -> None:
    """One file, two device families: a leaf gives `in-octets` (read by its words), a spine the IEEE name
    `a_octets_received_ok` (documented). Each row reads its own; one row carrying two names that read alike
    by their words reads neither, and says so."""
    path = tmp_path / "two.lp"
    lines = []
    for k in range(8):
        t = 1_700_000_000_000_000_000 + k * 30_000_000_000
        lines.append(f"port_counters,device=leaf1,port=swp1,role=leaf_up,speed=400G in-octets={k * 30 * 1000}i {t}")
        lines.append(f"port_counters,device=spine1,port=swp1s0,role=spine,speed=400G "
                     f"a_octets_received_ok={k * 30 * 2000}i {t}")
        lines.append(f"port_counters,device=host1,port=eth0,role=host,speed=400G rx_discards={k * 30}i,"
                     f"rx_total_discard_pkts={k * 60}i,rx_bytes={k * 30 * 3000}i {t}")
    path.write_text("\n".join(lines) + "\n")
    report = ReplayReport()
    batch = [iv for chunk in intervals_from_files([path], 30.0, report=report) for iv in chunk]
    for links in (batch[-1].links, intervals_from_lp([path], 30.0)[-1][1]):
        rates = {li.device: li.rates for li in links}
        assert rates["leaf1"]["in_octets"] == pytest.approx(1000.0)
        assert rates["spine1"]["in_octets"] == pytest.approx(2000.0)
        assert rates["host1"]["in_octets"] == pytest.approx(3000.0)
        assert "in_discards" not in rates["host1"]
    assert {"rx_discards", "rx_total_discard_pkts"} <= set(report.unread_fields)


def test_a_counter_kept_per_traffic_class_is_the_ports_summed_over_its_classes() -> None:
    """A known input is read whole: mlxsw counts the drops for want of buffer per traffic class; the port's
    drops are their sum, whichever classes a sample carries, and a row with the port's own total reads that."""
    engine = RateEngine()
    for i, (tc0, tc3) in enumerate(((0, 0), (10, 5), (10, 25))):
        values = canonical_fields({"tc_no_buffer_discard_uc_tc_0": tc0, "tc_no_buffer_discard_uc_tc_3": tc3,
                                   "in_octets": 1000 * i})
        result = engine.process(PortSample("sw", "swp1", i * 10**10, values))
    assert result is not None and result.rates["buffer_discards"] == pytest.approx(2.0)
    assert not any(PART in n for n in result.rates)
    assert canonical_fields({"buffer_discards": 3, "tc_no_buffer_discard_uc_tc_3": 1})["buffer_discards"] == 3


@pytest.mark.parametrize(("name", "canonical"), [
    ("rdma_np_ecn_marked_roce_packets_total", "ecn_marked"), ("rdma_rp_cnp_handled_total", "cnp_handled"),
    ("site_xcvr_temperature_celsius", "temperature_c"), ("cl_phy_fec_uncorrectable_blocks_total", "fec_uncorrectable"),
    ("cl_qos_ecn_marked_tc3_total", "ecn_marked"), ("in_errors_total", "in_errors")])
def test_a_prometheus_metrics_namespace_and_counter_suffix_are_not_what_it_counts(name: str, canonical: str) -> None:
    """Prometheus names a metric `<namespace>_<name>` with `_total` on a counter (its naming practices): the first
    word says which exporter wrote it, the suffix that it is a counter; what it counts is the rest."""
    found = spellings([name]).get(name)
    assert found is not None and found.canonical == canonical


def test_lanes_numbered_from_zero_are_the_modules_lanes_from_one() -> None:
    """A module's lanes are the vocabulary's l1..l8; a writer that numbers them from 0 (lane0..lane3) names
    the first lane 0, and its names are read as such when any of them says lane 0."""
    names = [f"xcvr_rx_power_dbm_lane{n}" for n in range(4)]
    assert {n: c.canonical for n, c in spellings(names).items()} == {
        n: f"rx_power_dbm_l{k + 1}" for k, n in enumerate(names)}
    assert spellings(["xcvr_rx_power_dbm_lane2"])["xcvr_rx_power_dbm_lane2"].canonical == "rx_power_dbm_l2"
