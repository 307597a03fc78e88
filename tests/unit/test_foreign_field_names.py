"""Bad input gets a clear answer, and a known one is read: InfiniBand PortCounters recorded by another tool
under the names perfquery, the kernel's sysfs counters and Telegraf's infiniband input use (port_xmit_data,
port_rcv_pkts, port_xmit_wait, port_rcv_errors...) are read as fabricwatch's own counters, the data counters
in their unit (4-octet words), by the batch replay and the sample path alike, and none is named unread."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.detection.interval_fold import ReplayReport, intervals_from_files
from fabricwatch.detection.replay import intervals_from_lp
from fabricwatch.detection.site_tags import site_tags
from fabricwatch.models.features import spread_over
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.topology import Topology

TAGS = "device=leaf-1,port=3,fabric=ib,role=leaf_down,peer_device=host-1,peer_port=mlx5_0,speed=200G"
STEP_NS = 15_000_000_000


def _read(path: Path, lines: list[str]) -> tuple[list[tuple[int, list[LinkInterval]]], ReplayReport]:
    """`lines` written to `path` and read back as replay reads them: (start, links) per interval, and the report."""
    path.write_text("\n".join(lines) + "\n")
    report = ReplayReport()
    return [(w.start_ns, w.links) for chunk in intervals_from_files([path], 30.0, report=report) for w in chunk], report



def _write(path: Path, words_per_s: int, waits_per_s: int, errors_every: int, steps: int = 12) -> None:
    lines = []
    for k in range(steps):
        t = 1_700_000_000_000_000_000 + k * STEP_NS
        lines.append(
            f"port_counters,{TAGS} port_xmit_data={k * 15 * words_per_s}i,port_rcv_data={k * 15 * words_per_s * 2}i,"
            f"port_xmit_pkts={k * 1500}i,port_rcv_pkts={k * 3000}i,port_xmit_wait={k * 15 * waits_per_s}i,"
            f"port_rcv_errors={k // errors_every}i,port_xmit_discards=0i,symbol_error=0i,link_downed=0i,"
            f"oper_status=1i,admin_status=1i {t}")
    path.write_text("\n".join(lines) + "\n")


def _rates(intervals: list) -> dict[str, float]:
    last = [li for _, links in intervals for li in links][-1]
    return dict(last.rates)


@settings(max_examples=15, deadline=None)
@given(words=st.integers(1, 10**9), waits=st.integers(0, 10**6), every=st.integers(1, 5))
def test_ib_port_counters_under_their_own_names_are_read_in_octets(tmp_path_factory: pytest.TempPathFactory,
                                                                    words: int, waits: int, every: int) -> None:
    path = tmp_path_factory.mktemp("lp") / "ib.lp"
    _write(path, words, waits, every)
    report = ReplayReport()
    batch = [iv for chunk in intervals_from_files([path], 30.0, report=report) for iv in chunk]
    sample = intervals_from_lp([path], 30.0)
    for rates in (_rates([(w.start_ns, w.links) for w in batch]), _rates(sample)):
        assert rates["out_octets"] == pytest.approx(4 * words)
        assert rates["in_octets"] == pytest.approx(8 * words)
        assert rates["out_pkts"] == pytest.approx(100.0)
        assert rates["xmit_wait"] == pytest.approx(waits)
        assert "rcv_errors" in rates and "symbol_errors" in rates and "xmit_discards" in rates
    assert not set(report.unread_fields) & {"port_xmit_data", "port_rcv_data", "port_xmit_wait", "port_rcv_errors",
                                            "port_xmit_pkts", "port_rcv_pkts", "symbol_error", "port_xmit_discards"}


def test_the_canonical_name_wins_where_a_line_carries_both(tmp_path: Path) -> None:
    path = tmp_path / "both.lp"
    lines = [f"port_counters,{TAGS} out_octets={k * 15 * 1000}i,port_xmit_data={k * 15 * 7}i "
             f"{1_700_000_000_000_000_000 + k * STEP_NS}" for k in range(6)]
    path.write_text("\n".join(lines) + "\n")
    batch = [iv for chunk in intervals_from_files([path], 30.0) for iv in chunk]
    assert _rates([(w.start_ns, w.links) for w in batch])["out_octets"] == pytest.approx(1000.0)
    assert _rates(intervals_from_lp([path], 30.0))["out_octets"] == pytest.approx(1000.0)


# -- the same principle for Ethernet: IF-MIB/EtherLike-MIB columns as an SNMP poller names them
# (RFC 2863, RFC 3635; Telegraf's snmp input and snmp_exporter keep the MIB's names), and the mlx5
# driver's `ethtool -S` and sysfs names a host exporter keeps (Telegraf's ethtool input)
SW_TAGS = "device=leaf-1,port=Ethernet1/1,fabric=roce,role=leaf_down,peer_device=gpu01,peer_port=mlx5_0,speed=400G"
NIC_TAGS = "device=gpu01,port=mlx5_0,fabric=roce,role=host,peer_device=leaf-1,peer_port=Ethernet1/1,speed=400G"


def _write_ethernet(path: Path, octets_per_s: int, errors_every: int, down_from: int, steps: int = 12) -> None:
    lines = []
    for k in range(steps):
        t = 1_700_000_000_000_000_000 + k * STEP_NS
        up = k < down_from
        lines.append(
            f"port_counters,{SW_TAGS} ifHCInOctets={k * 15 * octets_per_s}i,ifHCOutOctets={k * 15 * octets_per_s}i,"
            f"ifHCInUcastPkts={k * 1500}i,ifHCOutUcastPkts={k * 1500}i,ifInErrors={k // errors_every}i,"
            f"ifInDiscards=0i,ifOutDiscards=0i,dot3StatsFCSErrors={k // errors_every}i,"
            f"ifOperStatus={1 if up else 2}i,ifAdminStatus=1i,ifHighSpeed=400000i {t}")
        lines.append(
            f"port_counters,{NIC_TAGS} rx_bytes_phy={k * 15 * octets_per_s}i,tx_bytes_phy={k * 15 * octets_per_s}i,"
            f"rx_packets_phy={k * 1500}i,tx_packets_phy={k * 1500}i,rx_crc_errors_phy={k // errors_every}i,"
            f"rx_discards_phy=0i,rx_prio3_pause={k * 150}i,tx_prio3_pause=0i,np_ecn_marked_roce_packets={k * 30}i,"
            f"carrier={1 if up else 0}i,speed={400000 if up else -1}i {t + 1000}")
    path.write_text("\n".join(lines) + "\n")


@settings(max_examples=10, deadline=None)
@given(octets=st.integers(1, 10**10), every=st.integers(1, 5), down_from=st.integers(6, 12))
def test_if_mib_and_mlx5_names_are_read_as_the_vocabulary(tmp_path_factory: pytest.TempPathFactory,
                                                          octets: int, every: int, down_from: int) -> None:
    path = tmp_path_factory.mktemp("lp") / "eth.lp"
    _write_ethernet(path, octets, every, down_from)
    report = ReplayReport()
    batch = [(w.start_ns, w.links) for chunk in intervals_from_files([path], 30.0, report=report) for w in chunk]
    for intervals in (batch, intervals_from_lp([path], 30.0)):
        first = {li.device: li.rates for li in intervals[1][1]}
        last = {li.device: li.rates for li in intervals[-1][1]}
        for dev in ("leaf-1", "gpu01"):
            assert first[dev]["in_octets"] == pytest.approx(octets) and first[dev]["out_pkts"] == pytest.approx(100.0)
            assert "fcs_errors" in first[dev] and "in_discards" in first[dev]
            assert first[dev]["oper_status"] == 1.0 and first[dev]["speed_bps"] == pytest.approx(400e9)
        assert first["leaf-1"]["admin_status"] == 1.0
        assert first["gpu01"]["pfc_rx_p3"] == pytest.approx(10.0) and first["gpu01"]["ecn_marked"] == pytest.approx(2.0)
        if down_from < 10:  # IF-MIB's down(2), and the kernel's carrier 0 with speed -1: down, nothing trained
            assert last["leaf-1"]["oper_status"] == 0.0 and last["gpu01"]["oper_status"] == 0.0
            assert "speed_bps" not in last["gpu01"]
    assert not set(report.unread_fields) & {"ifHCInOctets", "ifOperStatus", "ifHighSpeed", "dot3StatsFCSErrors",
                                            "rx_bytes_phy", "rx_crc_errors_phy", "carrier", "speed"}


def test_sonic_counters_db_names_are_read_as_the_gnmi_collector_reads_them(tmp_path: Path) -> None:
    """One table of spellings: a recording of SONiC's COUNTERS_DB (SAI field names, as its gNMI server and
    exporters of it give them) is read by replay as our own SONiC collector reads the same fields."""
    from fabricwatch.collectors.gnmi.mapping import load_table

    sonic = load_table("sonic").leaves
    names = ["SAI_PORT_STAT_IF_IN_OCTETS", "SAI_PORT_STAT_IF_OUT_OCTETS", "SAI_PORT_STAT_IF_IN_ERRORS",
             "SAI_PORT_STAT_PFC_3_RX_PKTS", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"]
    path = tmp_path / "sonic.lp"
    lines = [f"port_counters,{SW_TAGS} " + ",".join(f"{n}={k * 15 * (j + 1)}i" for j, n in enumerate(names))
             + f" {1_700_000_000_000_000_000 + k * STEP_NS}" for k in range(6)]
    batch, report = _read(path, lines)
    for intervals in (batch, intervals_from_lp([path], 30.0)):
        rates = dict(intervals[-1][1][0].rates)
        for j, n in enumerate(names):
            assert rates[sonic[n]] == pytest.approx(j + 1.0), n
    assert not set(report.unread_fields) & set(names)


@pytest.mark.parametrize(("field", "up", "down"), [("oper_status", '"up"', '"down"'), ("operstate", '"up"', '"down"'),
                                                   ("oper_status", "1i", "0i")])
def test_a_port_state_given_as_a_word_is_read_as_up_or_down(tmp_path: Path, field: str, up: str, down: str) -> None:
    """A known input is read: SONiC's APPL_DB gives `oper_status="up"`, the kernel `operstate="down"`; replay
    reads them as the vocabulary's 1 and 0, in both paths, and a bool or another word is no state."""
    path = tmp_path / "words.lp"
    lines = [f"port_counters,{SW_TAGS} SAI_PORT_STAT_IF_IN_OCTETS={k * 1000}i,{field}={up if k < 6 else down},"
             f'admin_status="up",alias="etp1",flag=true {1_700_000_000_000_000_000 + k * STEP_NS}' for k in range(12)]
    path.write_text("\n".join(lines) + "\n")
    batch = [(w.start_ns, w.links) for chunk in intervals_from_files([path], 30.0) for w in chunk]
    for intervals in (batch, intervals_from_lp([path], 30.0)):
        first, last = dict(intervals[0][1][0].rates), dict(intervals[-1][1][0].rates)
        assert first["oper_status"] == 1.0 and last["oper_status"] == 0.0 and first["admin_status"] == 1.0
        assert "alias" not in first and "flag" not in first


def test_openconfig_leaves_under_their_state_container_and_the_kernels_carrier_changes_are_read(tmp_path: Path) -> None:
    """A gNMI client names a leaf by its path under the subscription (`counters/in_pkts` of an interface's
    `state`): the container says where the leaf is, the leaf says what it counts, so the total packets are read
    (not left unread as a rival of the unicast ones) and the carrier's transitions are the link's; the kernel's
    `carrier_changes` (sysfs) is the host's. A path through anything but the state containers (a queue's, a
    priority's) is read by its words, as before."""
    from fabricwatch.core.names import spellings

    read = {n: c.canonical for n, c in spellings(["counters/in_pkts", "counters/in_unicast_pkts",
                                                  "counters/carrier_transitions", "state/counters/out_pkts",
                                                  "carrier_changes", "pfc_3/in_pkts"]).items()}
    assert read["counters/in_pkts"] == "in_pkts" and read["state/counters/out_pkts"] == "out_pkts"
    assert read["counters/carrier_transitions"] == read["carrier_changes"] == "link_transitions"
    assert read["pfc_3/in_pkts"] == "pfc_rx_p3"
    lines = [f"port_counters,device=spine1,port=et-0/0/{k} counters/in_pkts={i * 3000}i,counters/in_unicast_pkts="
             f"{i * 2990}i,counters/in_octets={i * 10**6}i,counters/carrier_transitions={i // 4}i "
             f"{1_700_000_000_000_000_000 + i * STEP_NS}" for i in range(8) for k in range(2)]
    path = tmp_path / "oc.lp"
    batch, report = _read(path, lines)
    rates = batch[-1][1][0].rates
    assert rates["in_pkts"] == pytest.approx(200.0) and "link_transitions" in rates
    assert "counters/in_pkts" not in report.unread_fields


def test_juniper_dom_mib_columns_are_read_in_their_documented_units(tmp_path: Path) -> None:
    """JUNIPER-DOM-MIB gives a module's temperature in degC, its voltage in mV, optical power in 0.01 dBm and
    bias current in uA: read in the vocabulary's units (degC, V, dBm, mA), so the trends watch them."""
    from fabricwatch.core.names import spellings

    read = spellings(["jnxDomCurrentModuleTemperature", "jnxDomCurrentModuleVoltage", "jnxDomCurrentRxLaserPower",
                      "jnxDomCurrentTxLaserOutputPower", "jnxDomCurrentTxLaserBiasCurrent"])
    assert {n: c.canonical for n, c in read.items()} == {
        "jnxDomCurrentModuleTemperature": "temperature_c", "jnxDomCurrentModuleVoltage": "voltage_v",
        "jnxDomCurrentRxLaserPower": "rx_power_dbm_l1", "jnxDomCurrentTxLaserOutputPower": "tx_power_dbm_l1",
        "jnxDomCurrentTxLaserBiasCurrent": "tx_bias_ma_l1"}
    lines = []
    for i in range(8):
        t = 1_700_000_000_000_000_000 + i * STEP_NS
        lines.append(f"port_counters,device=qfx1,port=et-0/0/1 ifHCInOctets={i * 10**9}i,ifOperStatus=1i {t}")
        lines.append(f"port_counters,device=qfx1,port=et-0/0/1 jnxDomCurrentModuleTemperature=41i,"
                     f"jnxDomCurrentModuleVoltage=3301i,jnxDomCurrentRxLaserPower=-212i,"
                     f"jnxDomCurrentTxLaserBiasCurrent=47410i {t + 1}")
    path = tmp_path / "dom.lp"
    batch, _ = _read(path, lines)
    optics = batch[-1][1][0].optics
    assert optics["temperature_c"] == pytest.approx(41.0) and optics["voltage_v"] == pytest.approx(3.301)
    assert optics["rx_power_dbm_l1"] == pytest.approx(-2.12) and optics["tx_bias_ma_l1"] == pytest.approx(47.41)


def test_a_lane_given_as_a_tag_is_that_lane_of_the_module(tmp_path: Path) -> None:
    """Principle 3 (every lane is a slow signal) whatever the layout: JUNIPER-DOM-MIB's lane table comes one
    point per lane, the lane a tag numbered from 0 as Junos numbers them; each point's readings are that lane's
    (lane 0 is the module's first), and the lane tag is no tag of the link."""
    lines = []
    for i in range(8):
        t = 1_700_000_000_000_000_000 + i * STEP_NS
        lines.append(f"port_counters,device=qfx1,port=et-0/0/1,role=leaf_up ifHCInOctets={i * 10**9}i,"
                     f"ifOperStatus=1i {t}")
        lines += [f"port_counters,device=qfx1,lane={k},port=et-0/0/1,role=leaf_up "
                  f"jnxDomCurrentLaneTxLaserBiasCurrent={40000 + 1000 * k}i,jnxDomCurrentLaneRxLaserPower={-100 * k}i "
                  f"{t + 1}" for k in range(4)]
    path = tmp_path / "lanes.lp"
    batch, report = _read(path, lines)
    (li,) = batch[-1][1]
    assert li.tags == {"role": "leaf_up"}
    assert [li.optics[f"tx_bias_ma_l{n}"] for n in range(1, 5)] == pytest.approx([40.0, 41.0, 42.0, 43.0])
    assert [li.optics[f"rx_power_dbm_l{n}"] for n in range(1, 5)] == pytest.approx([0.0, -1.0, -2.0, -3.0])
    assert not {n for n in report.unread_fields if n.startswith("jnxDom")}


@pytest.mark.parametrize(("port_state", "phys", "oper", "admin"),
                         [(4, 5, 1.0, 1.0), (1, 2, 0.0, 1.0), (1, 3, 0.0, 0.0), (2, 5, 0.0, 1.0)])
def test_an_ib_ports_state_as_smpquery_names_it_is_its_state(tmp_path: Path, port_state: int, phys: int,
                                                              oper: float, admin: float) -> None:
    """Principle 5 (state is a signal) in the words IB tools use: PortInfo's PortState (4 Active is up; Down,
    Init and Armed are not) and PhysLinkState (3 Disabled: shut; 2 Polling: enabled, trying to train), as a
    perfquery/smpquery poller writes them, are the port's operational and administrative state."""
    lines = [f"port_counters,device=ib-leaf01,port=7 PortXmitData={i * 10**6}i,PortState={port_state}i,"
             f"PhysLinkState={phys}i {1_700_000_000_000_000_000 + i * STEP_NS}" for i in range(6)]
    path = tmp_path / "state.lp"
    batch, report = _read(path, lines)
    rates = batch[-1][1][0].rates
    assert rates["oper_status"] == oper and rates["admin_status"] == admin
    assert not {"PortState", "PhysLinkState"} & set(report.unread_fields)


def test_a_far_end_named_as_ibnetdiscover_names_it_is_the_links_peer(tmp_path: Path) -> None:
    """Principle 5 needs the far end: a poller tags a switch port with its remote node's description and port
    (`remote_node`, `remote_port`), and an HCA's node description is its host and device ("dgx-a03 mlx5_6"), the
    link the host's exporter reports as (dgx-a03, mlx5_6); a switch's is its name, its port the remote port."""
    lines = [f"port_counters,device=ib-leaf01,port=3,remote_node=dgx-a03\\ mlx5_6,remote_port=1 PortXmitData={i}i "
             f"{1_700_000_000_000_000_000 + i * STEP_NS}" for i in range(4)]
    lines += [f"port_counters,device=ib-leaf01,port=33,remote_node=ib-spine02,remote_port=7 PortXmitData={i}i "
              f"{1_700_000_000_000_000_001 + i * STEP_NS}" for i in range(4)]
    path = tmp_path / "remote.lp"
    path.write_text("\n".join(lines) + "\n")
    batch = [w.links for chunk in intervals_from_files([path], 30.0, report=ReplayReport()) for w in chunk]
    tags = {li.port: li.tags for li in batch[-1]}
    assert (tags["3"]["peer_device"], tags["3"]["peer_port"]) == ("dgx-a03", "mlx5_6")
    assert (tags["33"]["peer_device"], tags["33"]["peer_port"]) == ("ib-spine02", "7")


@pytest.mark.parametrize(("width", "lanes"), [("4x", 4.0), ("2x", 2.0), ("1x", 1.0)])
def test_an_ibdiagnet_sweep_line_is_read_in_its_own_words(tmp_path: Path, width: str, lanes: float) -> None:
    """Principle 5 (state is a signal) in ibdiagnet's words: a port named by its node's description and number,
    its active width as the word IB tools print ("2x": two lanes), its PortPhyState (3 Disabled: shut) and its PHY
    counters (rs_fec_*) are the port's trained width, administrative state and FEC counters; none is unread."""
    lines = [f"ibdiag_port,node_desc=MF0;ib-l07-su2:MQM9700/U1,node_guid=0xfc6a1c0300947,port_num=17 "
             f"port_xmit_data={i * 10**6}i,port_state=4i,port_phy_state={3 if i > 3 else 5}i,"
             f"rs_fec_corrected_blocks={i * 100}i,rs_fec_uncorrectable_blocks=0i,link_width_active=\"{width}\" "
             f"{1_700_000_000_000_000_000 + i * STEP_NS}" for i in range(8)]
    path = tmp_path / "ibdiag.lp"
    batch, report = _read(path, lines)
    last = batch[-1][1][0]
    assert (last.device, last.port) == ("ib-l07-su2", "17")
    assert batch[0][1][0].rates["admin_status"] == 1.0 and last.rates["admin_status"] == 0.0
    assert last.rates["link_width_active"] == lanes
    assert last.optics["fec_corrected"] == pytest.approx(100 / 15)
    assert not report.unread_fields


def test_a_far_end_named_by_ibnetdiscovers_node_description_is_the_links_peer(tmp_path: Path) -> None:
    """Principle 5 needs the far end: ibnetdiscover's links, converted to line protocol, name each end by its node
    description and port number; a switch's description holds its name ("MF0;ib-s03-su1:MQM9700/U1"), an HCA's
    is its host and device: the links its counters and its host's exporter report as."""
    ends = [("MF0;ib-l01-su1:MQM9700/U1", "1", "gpu001\\ mlx5_0", "1"),
            ("MF0;ib-l01-su1:MQM9700/U1", "33", "MF0;ib-s01-su1:MQM9700/U1", "1"),
            ("gpu001\\ mlx5_0", "1", "MF0;ib-l01-su1:MQM9700/U1", "1")]
    lines = [line for i in range(4) for node, port, far, far_port in ends for line in (
        f"ib_link,node_desc={node},port_num={port},remote_desc={far},remote_port={far_port} lid={i}i "
        f"{1_700_000_000_000_000_000 + i * STEP_NS}",
        f"ibdiag_port,node_desc={node},port_num={port} port_xmit_data={i * 1000}i "
        f"{1_700_000_000_000_000_000 + i * STEP_NS}")]
    path = tmp_path / "links.lp"
    path.write_text("\n".join(lines) + "\n")
    batch = [w.links for chunk in intervals_from_files([path], 30.0, report=ReplayReport()) for w in chunk]
    tags = {(li.device, li.port): li.tags for li in batch[-1]}
    assert (tags[("ib-l01-su1", "1")]["peer_device"], tags[("ib-l01-su1", "1")]["peer_port"]) == ("gpu001", "mlx5_0")
    assert (tags[("ib-l01-su1", "33")]["peer_device"], tags[("ib-l01-su1", "33")]["peer_port"]) == ("ib-s01-su1", "1")
    assert (tags[("gpu001", "mlx5_0")]["peer_device"], tags[("gpu001", "mlx5_0")]["peer_port"]) == ("ib-l01-su1", "1")


@pytest.mark.parametrize(("said", "role"), [
    ("leaf-hca", "leaf_down"), ("leaf-spine", "leaf_up"), ("spine-leaf", "spine"), ("tor_to_host", "leaf_down"),
    ("spine-core", "spine_up"), ("leaf_up", "leaf_up"), ("hca", "host"), ("server", "host"), ("gpu-node", "host"),
    ("agg", "spine"), ("leaf", "leaf"), ("spine-spine", "spine-spine"), ("border", "border")])
def test_a_role_named_by_its_two_tiers_is_read_as_the_vocabularys(tmp_path: Path, said: str, role: str) -> None:
    """Principle 2 needs the groups the traffic forms, and they come from roles: a site that names a port's role by
    its own tier and its far end's ("leaf-hca", "spine-leaf") names the leaf's host port, the spine's port
    towards a leaf; an end node's tier ("hca", "gpu-node") is the host's own port, a spine's alone ("agg") a spine's;
    anything else is kept as written."""
    path = tmp_path / "role.lp"
    path.write_text(f"port_counters,device=sw1,port=1,role={said} PortXmitData=1i 1700000000000000000\n"
                    f"port_counters,device=sw1,port=1,role={said} PortXmitData=2i 1700000030000000000\n")
    batch = [w.links for chunk in intervals_from_files([path], 30.0, report=ReplayReport()) for w in chunk]
    assert batch[-1][0].tags["role"] == role


def _roles_read(tmp_path: Path, reader: str, ports: list[tuple[str, str, str, str]], far_tag: str,
                role_tag: str = "role") -> dict[tuple[str, str], str]:
    """Each port's role as `reader` reads three polls of `ports` (device, port, role words, far device)."""
    lines = [f"port_counters,device={d},port={p},{role_tag}={r},{far_tag}={far} out_octets={n}i "
             f"{1700000000 + 30 * n}000000000" for n in (1, 2, 3) for d, p, r, far in ports]
    path = tmp_path / "roles.lp"
    path.write_text("\n".join(lines) + "\n")
    if reader == "columns":
        last = [w.links for chunk in intervals_from_files([path], 30.0, report=ReplayReport()) for w in chunk][-1]
    else:
        last = intervals_from_lp([path], 30.0)[-1][1]
    return {(li.device, li.port): li.tags["role"] for li in last}


@pytest.mark.parametrize("reader", ["columns", "samples"])
def test_a_role_a_site_gives_a_whole_device_is_read_port_by_port_from_the_far_end(tmp_path: Path, reader: str) -> None:
    """Principle 2 needs the groups the traffic forms, and they come from each port's role: an exporter labels a
    device, not a port, so every port of a ToR for GPU nodes says `tor-gpu`, its uplinks too. Where the far device
    is heard with a tier of its own (`agg`, `gpu-node`), a port's role is its device's tier towards its far end's:
    the ToR's port to the aggregation switch is its uplink, the one to a GPU node its host port; towards a device
    not heard, the site's words as before. Both readers replay uses read it alike."""
    ports = [("tor1", "swp1", "tor-gpu", "agg1"), ("tor1", "swp2", "tor-gpu", "hgx1"),
             ("tor1", "swp3", "tor-gpu", "nas9"), ("agg1", "swp1", "agg", "tor1"), ("hgx1", "eth0", "gpu-node", "tor1")]
    roles = _roles_read(tmp_path, reader, ports, "peer")
    assert roles == {("tor1", "swp1"): "leaf_up", ("tor1", "swp2"): "leaf_down", ("tor1", "swp3"): "leaf_down",
                     ("agg1", "swp1"): "spine", ("hgx1", "eth0"): "host"}, roles


@pytest.mark.parametrize("reader", ["columns", "samples"])
def test_a_switch_hosts_hang_off_is_a_leaf_whatever_the_site_calls_it(tmp_path: Path, reader: str) -> None:
    """Principle 2 needs the groups the traffic forms, and they come from each port's role: where a site's word for
    a switch names no tier (`rail` for the rail switches of a rail-only fabric), the wiring says it: a switch
    whose ports face hosts (devices heard with a host's words, `compute`) is a leaf, its ports towards the hosts
    its host ports and those towards other switches its uplinks. A switch facing no host keeps its site's word, and
    so does a port towards a device not heard (a host without telemetry, or a switch)."""
    ports = [("rail0", "Ethernet0", "rail", "t01"), ("rail0", "Ethernet8", "rail", "t02"),
             ("rail0", "Ethernet448", "rail", "xr0"), ("rail0", "Ethernet456", "rail", "xr1"),
             ("rail0", "Ethernet464", "rail", "svc9"), ("xr0", "Ethernet0", "xr", "rail0"),
             ("xr1", "Ethernet0", "xr", "rail0"), ("t01", "enp0", "compute", "rail0"),
             ("t02", "enp0", "compute", "rail0")]
    roles = _roles_read(tmp_path, reader, ports, "lldp_rem_sys_name")
    assert roles == {("rail0", "Ethernet0"): "leaf_down", ("rail0", "Ethernet8"): "leaf_down",
                     ("rail0", "Ethernet448"): "leaf_up", ("rail0", "Ethernet456"): "leaf_up",
                     ("rail0", "Ethernet464"): "rail", ("xr0", "Ethernet0"): "xr", ("xr1", "Ethernet0"): "xr",
                     ("t01", "enp0"): "host", ("t02", "enp0"): "host"}, roles


@pytest.mark.parametrize("reader", ["columns", "samples"])
def test_a_tier_a_site_tags_each_device_with_is_its_role_words(tmp_path: Path, reader: str) -> None:
    """Principle 2 needs each port's role: a site that tags each device with its tier (`tier=leaf`, as UFM's
    groups or an inventory name it) rather than each port with a role says as much as role words do: a leaf's
    port towards a host is its host port, towards a spine its uplink, a spine's towards a leaf a spine's port."""
    ports = [("lf1", "1", "leaf", "dgx1"), ("lf1", "33", "leaf", "sp1"), ("sp1", "5", "spine", "lf1"),
             ("dgx1", "mlx5_0", "host", "lf1")]
    assert _roles_read(tmp_path, reader, ports, "peer_node_name", role_tag="tier") == {
        ("lf1", "1"): "leaf_down", ("lf1", "33"): "leaf_up", ("sp1", "5"): "spine", ("dgx1", "mlx5_0"): "host"}


@pytest.mark.parametrize("tag", ["peer", "neighbor", "peer_device"])
def test_a_far_end_named_by_its_lldp_neighbour_is_the_links_peer(tag: str) -> None:
    """Principle 2 needs each link's far end (the groups down the tiers are the parallel links towards one far
    switch): an exporter that tags a port with its LLDP neighbour as `peer` or `neighbor` names it."""
    tags = site_tags({tag: "ai1-tor-g01", "peer_port": "swp33", "role": "agg"})
    assert (tags["peer_device"], tags["peer_port"], tags["role"]) == ("ai1-tor-g01", "swp33", "spine")


@pytest.mark.parametrize(("device_tag", "port_tag"), [("lldp_rem_sys_name", "lldp_rem_port_id"),
                                                       ("lldpRemSysName", "lldpRemPortId"),
                                                       ("peer_node_name", "peer_port_dname")])
def test_a_far_end_named_by_the_lldp_mibs_remote_columns_is_the_links_peer(device_tag: str, port_tag: str) -> None:
    """Principle 2 needs each link's far end: a poller tagging a port with its LLDP-MIB remote table's system name
    and port id names its far device and port, and so does one tagging it with UFM's port resource's peer
    (`peer_node_name`, `peer_port_dname`)."""
    tags = site_tags({device_tag: "c4-xr0", port_tag: "etp57", "role": "rail"})
    assert (tags["peer_device"], tags["peer_port"]) == ("c4-xr0", "etp57")


def test_a_far_port_named_by_its_alias_is_that_port() -> None:
    """Principle 2 needs each link's far end as a link of the frame: LLDP advertises a port by its id, which a
    SONiC switch sets to the port's alias (`etp57`), not its name (`Ethernet448`). A far end named by a port's
    alias, where the far device tags its ports with their aliases, is that port."""
    def link(device: str, port: str, alias: str, far: str, far_port: str) -> LinkInterval:
        return LinkInterval(0, device, port, {"alias": alias, "peer_device": far, "peer_port": far_port}, {})

    links = [link("rail0", "Ethernet448", "etp57", "xr0", "etp1"), link("xr0", "Ethernet0", "etp1", "rail0", "etp57"),
             link("xr0", "Ethernet8", "etp2", "rail9", "etp1")]
    assert Topology(links).far_rows.tolist() == [1, 0, -1]


def test_ports_down_the_tiers_whose_far_end_is_unknown_share_no_situation() -> None:
    """Principle 2 (the groups the traffic forms): a spine spreads nothing over its ports towards different
    leaves; only the parallel links towards one leaf share what the tier above sends it. Where no port says
    its far end, the spine's ports are no group (its idle ports towards an idle leaf are not withdrawn)."""
    assert spread_over("sp1", "spine", "leaf1") == "spine ports towards leaf1"
    assert spread_over("sp1", "spine", "") == ""
    assert spread_over("lf1", "leaf_up", "") == "lf1 leaf_up ports"


@pytest.mark.parametrize(("flags", "up", "oper", "admin"),
                         [(4099, 1, 1.0, 1.0), (4099, 0, 0.0, 1.0), (4098, 0, 0.0, 0.0)])
def test_an_interfaces_flags_and_up_as_node_exporter_gives_them_are_its_state(tmp_path: Path, flags: int, up: int,
                                                                              oper: float, admin: float) -> None:
    """Principle 5 (state is a signal) in node_exporter's words, through the column reader replay uses:
    node_network_up is the operational state, IFF_UP of node_network_flags (4099 up, 4098 shut) the
    administrative one, as numbers, not the bitmask read as a state."""
    lines = [f"port_counters,device=sw1,port=swp1 node_network_receive_bytes_total={i * 10**6},"
             f"node_network_flags={flags},node_network_up={up} {1_700_000_000_000_000_000 + i * STEP_NS}"
             for i in range(6)]
    path = tmp_path / "flags.lp"
    path.write_text("\n".join(lines) + "\n")
    batch = [w.links for chunk in intervals_from_files([path], 30.0, report=ReplayReport()) for w in chunk]
    rates = batch[-1][0].rates
    assert (rates["oper_status"], rates["admin_status"]) == (oper, admin)


def test_fields_named_by_their_whole_gnmi_path_as_gnmic_writes_them_are_read(tmp_path: Path) -> None:
    """The same counters through every path (principle 6): gnmic's Influx output names each field by its whole
    OpenConfig path (`/interfaces/interface/state/counters/in-octets`), writes counters unsigned (`u`) and states
    and speeds as their enum words ("UP", "SPEED_200GB"), a queue's counters on a line of their own tagged with the
    queue, a gauge by its `instant` statistic and a module's lanes one point each, tagged `channel_index`. The
    path's containers say where a leaf is, the leaf what it counts (a gauge: the container of its statistic), so
    every one is read as the vocabulary's counter and none is left unread: a queue's drops are its share of the
    port's buffer discards (the interface's out-discards stay the port's), its ECN marks the port's."""
    lines = []
    for i in range(8):
        t = 1_700_000_000_000_000_000 + i * STEP_NS
        where = "port_counters,device=leaf1,port=Ethernet1/1,role=leaf_up"
        lines.append(f"{where} /interfaces/interface/state/counters/in-octets={i * 15 * 10**9}u,"
                     f"/interfaces/interface/state/counters/out-octets={i * 15 * 10**9}u,"
                     f"/interfaces/interface/state/counters/in-unicast-pkts={i * 3000}u,"
                     f"/interfaces/interface/state/counters/in-fcs-errors={i * 15}u,"
                     f"/interfaces/interface/state/counters/out-discards={i * 30}u,"
                     f"/interfaces/interface/state/counters/carrier-transitions=4u,"
                     f'/interfaces/interface/state/oper-status="UP",'
                     f'/interfaces/interface/ethernet/state/negotiated-port-speed="SPEED_200GB" {t}')
        lines.append(f"{where},queue_name=TC3 /qos/interfaces/interface/output/queues/queue/state/dropped-pkts="
                     f"{i * 75}u,/Smash/qos/status/intfQueueCounter/ecnMarkedPkts={i * 600}u {t + 1000}")
        lines.append(f"{where} /components/component/transceiver/state/module-temperature/instant=54.5,"
                     f"/components/component/transceiver/state/pre-fec-ber/instant=2.5e-08 {t + 2000}")
        lines += [f"port_counters,channel_index={k},device=leaf1,port=Ethernet1/1,role=leaf_up "
                  f"/components/component/transceiver/physical-channels/channel/state/input-power/instant={-k} "
                  f"{t + 3000}" for k in (1, 2, 3, 4)]
    path = tmp_path / "gnmic.lp"
    batch, report = _read(path, lines)
    (li,) = batch[-1][1]
    assert li.rates["in_octets"] == pytest.approx(10**9) and li.rates["in_pkts"] == pytest.approx(200.0)
    assert li.rates["fcs_errors"] == pytest.approx(1.0) and li.rates["out_discards"] == pytest.approx(2.0)
    assert li.rates["buffer_discards"] == pytest.approx(5.0) and li.rates["ecn_marked"] == pytest.approx(40.0)
    assert li.rates["oper_status"] == 1.0 and li.rates["speed_bps"] == pytest.approx(200e9)
    assert li.optics["temperature_c"] == pytest.approx(54.5) and li.optics["pre_fec_ber"] == pytest.approx(2.5e-8)
    assert [li.optics[f"rx_power_dbm_l{n}"] for n in range(1, 5)] == pytest.approx([-1.0, -2.0, -3.0, -4.0])
    assert not [n for n in report.unread_fields if n.startswith("/")], report.unread_fields


@pytest.mark.parametrize(("field", "canonical"), [
    ("node_infiniband_np_ecn_marked_roce_packets_received_total", "ecn_marked"),
    ("node_infiniband_np_cnp_packets_sent_total", "cnp_sent"),
    ("node_infiniband_rp_cnp_packets_handled_total", "cnp_handled"),
    ("node_infiniband_rp_cnp_ignored_packets_received_total", "cnp_ignored"),
    ("node_infiniband_out_of_sequence_packets_received_total", "out_of_sequence"),
    ("node_infiniband_packet_sequence_errors_total", "packet_seq_err"),
    ("node_infiniband_local_ack_timeout_errors_total", "local_ack_timeout_err"),
    ("node_infiniband_rnr_nak_retry_packets_received_total", "rnr_nak_retry_err"),
    ("node_infiniband_roce_adp_retransmits_total", "roce_adp_retrans"),
    ("node_infiniband_out_of_buffer_drops_total", "buffer_discards"),
])
def test_node_exporters_rdma_hw_counters_are_the_nics_counters(field: str, canonical: str) -> None:
    """node_exporter's infiniband collector gives an mlx5 port's hw_counters names of its own (the `_total` of a
    Prometheus counter, words spelled out): the same counters as Telegraf's infiniband input and `ethtool -S`."""
    from fabricwatch.core.names import spellings
    assert spellings([field])[field].canonical == canonical
