"""Counter names in every spelling we meet, to the vocabulary's (`core/counters.py`).

The same IBA PortCounters appear as `SymbolErrorCounter` (perfquery, UFM CSV), `symbol_error`
(sysfs), `SymbolErrorCounterExtended` (extended counter sets), `Infiniband_SymbolErrors_u_Errors`
(UFM Telemetry JSON); an Ethernet port's as IF-MIB columns (`ifHCInOctets`, as SNMP pollers name them)
or the NIC driver's `ethtool -S` names (`rx_bytes_phy`) ...: one table, looked up by a normalised key
(lower case, no '_'), for the collectors and for recordings made by other tools alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from fabricwatch.core import name_words
from fabricwatch.core.counters import COUNTERS, part


@dataclass(frozen=True, slots=True)
class CounterName:
    canonical: str
    scale: int = 1  # one count in the canonical unit: PortXmitData/PortRcvData count 4-octet words
    per: int = 1  # a gauge given in 1/per of the canonical unit (JUNIPER-DOM-MIB's 0.01 dBm: 100)
    bits: int | None = None  # width override: extended variants are 64-bit and wrap
    # an enumeration, as (raw, the vocabulary's value) pairs, and the value of any raw value not listed:
    # IF-MIB's ifOperStatus up(1) is 1, down(2), testing(3) ... lowerLayerDown(7) are not up
    enum: tuple[tuple[float, float], ...] = ()
    otherwise: float = 0.0
    by_words: bool = False  # read by its words (`core/name_words.py`), not from a document
    # raw values that say the writer cannot tell (ethtool's SPEED_UNKNOWN, -1 read unsigned): read as 0, nothing
    unknown: tuple[float, ...] = ()
    part: bool = False  # one queue's or class's share of the port's counter (`core/counters.part`): summed
    flag: int = 0  # a bit of a bitmask: 1 where the raw value has it set (IFF_UP of an interface's flags)


    def value(self, raw: float) -> float:
        """A value of this name in the canonical unit (and the vocabulary's 1 up / 0 down)."""
        if raw in self.unknown:
            return 0.0
        if self.flag:
            return 1.0 if int(raw) & self.flag else 0.0
        if self.enum:
            return next((v for r, v in self.enum if raw == r), self.otherwise)
        return raw * self.scale if self.per == 1 else raw * self.scale / self.per


def _key(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


# classic IBA PortCounters (perfquery / UFM names) -> canonical
_CLASSIC = {
    "SymbolErrorCounter": "symbol_errors",
    "LinkErrorRecoveryCounter": "link_error_recovery",
    "LinkDownedCounter": "link_downed",
    "PortRcvErrors": "rcv_errors",
    "PortRcvRemotePhysicalErrors": "rcv_remote_physical_errors",
    "PortRcvSwitchRelayErrors": "rcv_switch_relay_errors",
    "PortXmitDiscards": "xmit_discards",
    "PortXmitConstraintErrors": "xmit_constraint_errors",
    "PortRcvConstraintErrors": "rcv_constraint_errors",
    "LocalLinkIntegrityErrors": "local_link_integrity_errors",
    "ExcessiveBufferOverrunErrors": "excessive_buffer_overrun_errors",
    "VL15Dropped": "vl15_dropped",
    "PortXmitWait": "xmit_wait",
    "PortXmitPkts": "out_pkts",
    "PortRcvPkts": "in_pkts",
}
_DATA = {"PortXmitData": "out_octets", "PortRcvData": "in_octets"}
# sysfs file names that are not just the snake case of the classic name
_SYSFS = {
    "symbol_error": "symbol_errors", "link_error_recovery": "link_error_recovery",
    "link_downed": "link_downed", "port_xmit_packets": "out_pkts", "port_rcv_packets": "in_pkts",
}
# UFM Telemetry JSON: Infiniband_<name>_u_<unit>
_TELEMETRY = {
    "SymbolErrors": "symbol_errors", "LinkRecovers": "link_error_recovery", "LinkDowned": "link_downed",
    "RcvErrors": "rcv_errors", "RcvRemotePhysErrors": "rcv_remote_physical_errors",
    "RcvSwRelayErrors": "rcv_switch_relay_errors", "XmtDiscards": "xmit_discards",
    "XmtConstraintErrors": "xmit_constraint_errors", "RcvConstraintErrors": "rcv_constraint_errors",
    "LinkIntegrityErrors": "local_link_integrity_errors", "ExcBufOverrunErrors": "excessive_buffer_overrun_errors",
    "VL15Dropped": "vl15_dropped", "XmitWait": "xmit_wait", "PckOut": "out_pkts", "PckIn": "in_pkts",
}
# mlx5 hw_counters (RoCE) and ethtool -S names
_NIC = {
    "np_ecn_marked_roce_packets": "ecn_marked", "np_cnp_sent": "cnp_sent", "rp_cnp_handled": "cnp_handled",
    "rp_cnp_ignored": "cnp_ignored", "out_of_sequence": "out_of_sequence", "packet_seq_err": "packet_seq_err",
    "local_ack_timeout_err": "local_ack_timeout_err", "rnr_nak_retry_err": "rnr_nak_retry_err",
    "roce_adp_retrans": "roce_adp_retrans",
    "rx_pause_ctrl_phy": "pause_rx", "tx_pause_ctrl_phy": "pause_tx",
    "tx_pause_storm_warning_events": "pause_storm_events",
    # packets the NIC dropped because no receive buffer was posted (a host slow to keep up)
    "rx_out_of_buffer": "buffer_discards", "out_of_buffer": "buffer_discards",
    **{f"rx_prio{p}_pause": f"pfc_rx_p{p}" for p in range(8)},
    **{f"tx_prio{p}_pause": f"pfc_tx_p{p}" for p in range(8)},
    # the physical layer: mlx5 (`*_phy`), bnxt_en and others
    "rx_corrected_bits_phy": "fec_corrected_bits",
    **{f"rx_err_lane_{n}_phy": f"lane_errors_l{n + 1}" for n in range(8)},
    "rx_fec_corrected_blocks": "fec_corrected", "rx_fec_uncorrectable_blocks": "fec_uncorrectable",
    # ibdiagnet's PHY counters (--get_phy_info), as its db_csv names them
    "rs_fec_corrected_blocks": "fec_corrected", "rs_fec_uncorrectable_blocks": "fec_uncorrectable",
}
# UFM Telemetry's low-frequency ("secondary") physical-layer fields, 300 s by default: BER as UFM
# computes it, corrected bits per lane, bits the FEC could not correct, and the module's DOM. Names as
# UFM Enterprise documents them; no public recording of this set exists (tested on the simulator)
_UFM_PHY = {
    "Total_Raw_BER": "ib_raw_ber", "Raw_BER": "ib_raw_ber", "Effective_BER": "ib_effective_ber",
    "Symbol_BER": "ib_symbol_ber",
    **{f"Raw_Errors_Lane_{n}": f"lane_errors_l{n + 1}" for n in range(4)},
    "Effective_Errors": "fec_uncorrectable",  # error bits the FEC did not correct: any is a lost frame
    "Module_Temperature": "temperature_c", "Module_Voltage": "voltage_v",
    **{f"RX_Power_Lane_{n}": f"rx_power_dbm_l{n + 1}" for n in range(4)},
    **{f"TX_Power_Lane_{n}": f"tx_power_dbm_l{n + 1}" for n in range(4)},
    **{f"TX_Bias_Lane_{n}": f"tx_bias_ma_l{n + 1}" for n in range(4)},
}
_IF_UP = ((1.0, 1.0),)
# IBA PortState (4 Active is up; 1 Down, 2 Init, 3 Armed are not) and PortPhysicalState (3 Disabled: an
# operator shut it; 2 Polling is enabled and trying to train, 5 LinkUp)
# Prometheus node_exporter's netdev and netclass collectors (the kernel's interface statistics; the speed in
# bytes/s); its ethtool collector names every `ethtool -S` stat `node_ethtool_<stat>` (`ETHTOOL_PREFIX`)
_NODE_EXPORTER_NET = {
    "node_network_receive_bytes_total": CounterName("in_octets"),
    "node_network_transmit_bytes_total": CounterName("out_octets"),
    "node_network_receive_packets_total": CounterName("in_pkts"),
    "node_network_transmit_packets_total": CounterName("out_pkts"),
    "node_network_receive_errs_total": CounterName("in_errors"),
    "node_network_transmit_errs_total": CounterName("out_errors"),
    "node_network_receive_drop_total": CounterName("in_discards"),
    "node_network_transmit_drop_total": CounterName("out_discards"),
    "node_network_carrier": CounterName("oper_status", enum=((1.0, 1.0),)),
    "node_network_carrier_changes_total": CounterName("link_transitions"),
    "node_network_speed_bytes": CounterName("speed_bps", scale=8),
    "node_network_up": CounterName("oper_status", enum=((1.0, 1.0),)),
    "node_network_flags": CounterName("admin_status", flag=0x1),  # IFF_UP: the administrative state
    # the netclass attribute's own name, as a scrape relabelled without namespace and subsystem writes it
    "speed_bytes": CounterName("speed_bps", scale=8),
}
ETHTOOL_PREFIX = "node_ethtool_"
# node_exporter's ethtool collector spells a stat's rx and tx words out: `rx_bytes_phy` is `received_bytes_phy`
_SPELLED_OUT = ((re.compile(r"(^|_)received(_|$)"), r"\1rx\2"), (re.compile(r"(^|_)transmitted(_|$)"), r"\1tx\2"))
# Cumulus Linux's `ethtool -S swpN` on a Spectrum switch (its "ethtool Counter Definitions")
_CUMULUS_ETHTOOL = {
    "HwIfInOctets": "in_octets", "HwIfOutOctets": "out_octets", "HwIfInUcastPkts": "in_pkts",
    "HwIfOutUcastPkts": "out_pkts", "HwIfInDiscards": "in_discards", "HwIfOutDiscards": "out_discards",
    "HwIfInErrors": "in_errors", "HwIfOutErrors": "out_errors", "HwIfInDot3FrameErrors": "fcs_errors",
    "HwIfOutQDrops": "buffer_discards", "HwIfInPausePkt": "pause_rx", "HwIfOutPausePkt": "pause_tx",
    **{f"HwIfInPfc{p}Pkt": f"pfc_rx_p{p}" for p in range(8)}, **{f"HwIfOutPfc{p}Pkt": f"pfc_tx_p{p}" for p in range(8)},
}
_IB_ACTIVE = ((4.0, 1.0),)
_IB_DISABLED = ((3.0, 0.0),)
# Prometheus node_exporter's infiniband collector (sysfs counters of an HCA port; the `node_infiniband_`
# namespace may be trimmed): the kernel's widths, as the vocabulary's IB counters have them, but for the
# 32-bit PortXmitWait; data in bytes (the kernel's 4-octet words times 4)
_NODE_EXPORTER_IB = {
    "port_data_received_bytes_total": CounterName("in_octets"),
    "port_data_transmitted_bytes_total": CounterName("out_octets"),
    "port_packets_received_total": CounterName("in_pkts"),
    "port_packets_transmitted_total": CounterName("out_pkts"),
    "port_errors_received_total": CounterName("rcv_errors"),
    "port_discards_transmitted_total": CounterName("xmit_discards"),
    "port_receive_remote_physical_errors_total": CounterName("rcv_remote_physical_errors"),
    "port_receive_switch_relay_errors_total": CounterName("rcv_switch_relay_errors"),
    "port_constraint_errors_received_total": CounterName("rcv_constraint_errors"),
    "port_constraint_errors_transmitted_total": CounterName("xmit_constraint_errors"),
    "port_transmit_wait_total": CounterName("xmit_wait", bits=32),
    "symbol_error_total": CounterName("symbol_errors"),
    "link_downed_total": CounterName("link_downed"),
    "link_error_recovery_total": CounterName("link_error_recovery"),
    "local_link_integrity_errors_total": CounterName("local_link_integrity_errors"),
    "excessive_buffer_overrun_errors_total": CounterName("excessive_buffer_overrun_errors"),
    "vl15_dropped_total": CounterName("vl15_dropped"),
    "state_id": CounterName("oper_status", enum=_IB_ACTIVE),
    "physical_state_id": CounterName("admin_status", enum=_IB_DISABLED, otherwise=1.0),
    "rate_bytes_per_second": CounterName("speed_bps", scale=8),
    # an mlx5 port's hw_counters, as the collector names them (the `_NIC` table's counters)
    "np_ecn_marked_roce_packets_received_total": CounterName("ecn_marked"),
    "np_cnp_packets_sent_total": CounterName("cnp_sent"),
    "rp_cnp_packets_handled_total": CounterName("cnp_handled"),
    "rp_cnp_ignored_packets_received_total": CounterName("cnp_ignored"),
    "out_of_sequence_packets_received_total": CounterName("out_of_sequence"),
    "packet_sequence_errors_total": CounterName("packet_seq_err"),
    "local_ack_timeout_errors_total": CounterName("local_ack_timeout_err"),
    "rnr_nak_retry_packets_received_total": CounterName("rnr_nak_retry_err"),
    "roce_adp_retransmits_total": CounterName("roce_adp_retrans"),
    "out_of_buffer_drops_total": CounterName("buffer_discards"),
}
# UFM Telemetry's port state fields, and its active width as IBA's LinkWidthActive enumerates it (in lanes)
_UFM_STATE = {
    "logical_state": CounterName("oper_status", enum=_IB_ACTIVE),
    "phy_state": CounterName("admin_status", enum=_IB_DISABLED, otherwise=1.0),
    # the same PortInfo fields as smpquery portinfo and perfquery-based pollers name them
    "PortState": CounterName("oper_status", enum=_IB_ACTIVE),
    "PhysLinkState": CounterName("admin_status", enum=_IB_DISABLED, otherwise=1.0),
    "PortPhyState": CounterName("admin_status", enum=_IB_DISABLED, otherwise=1.0),  # ibdiagnet's PortInfo dump
    "Link_width_active": CounterName("link_width_active", enum=((1.0, 1.0), (2.0, 4.0), (4.0, 8.0), (8.0, 12.0),
                                                                (16.0, 2.0)), otherwise=float("nan")),
}
# NIC symbol errors are 64-bit and wrap, unlike IB's 16-bit saturating SymbolErrorCounter
_NIC_WIDE = {"rx_symbol_err_phy": "symbol_errors", "rx_pcs_symbol_err": "symbol_errors",
             "rx_pcs_symbol_err_phy": "symbol_errors"}
# SONiC's COUNTERS_DB fields (SAI attribute names, saiport.h / saiqueue.h), as its gNMI server and exporters of
# it give them; ECN marks are per queue (a port's are the sum over its queues)
SAI_FIELDS: dict[str, str] = {
    "SAI_PORT_STAT_IF_IN_OCTETS": "in_octets",
    "SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES": "fec_corrected",
    "SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES": "fec_uncorrectable",
    "SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS": "fec_corrected_symbols",
    "SAI_PORT_STAT_IF_OUT_OCTETS": "out_octets",
    "SAI_PORT_STAT_IF_IN_UCAST_PKTS": "in_pkts",
    "SAI_PORT_STAT_IF_OUT_UCAST_PKTS": "out_pkts",
    "SAI_PORT_STAT_IF_IN_ERRORS": "in_errors",
    "SAI_PORT_STAT_IF_OUT_ERRORS": "out_errors",
    "SAI_PORT_STAT_IF_IN_DISCARDS": "in_discards",
    "SAI_PORT_STAT_IF_OUT_DISCARDS": "out_discards",
    "SAI_PORT_STAT_ETHER_STATS_CRC_ALIGN_ERRORS": "fcs_errors",
    "SAI_PORT_STAT_PAUSE_RX_PKTS": "pause_rx",
    "SAI_PORT_STAT_PAUSE_TX_PKTS": "pause_tx",
    "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "ecn_marked",
    **{f"SAI_PORT_STAT_PFC_{p}_{d.upper()}_PKTS": f"pfc_{d}_p{p}" for p in range(8) for d in ("rx", "tx")},
}
# SONiC's STATE_DB TRANSCEIVER_DOM_SENSOR fields, per lane
_SONIC_DOM = {
    **{f"rx{n}power": f"rx_power_dbm_l{n}" for n in range(1, 9)},
    **{f"tx{n}power": f"tx_power_dbm_l{n}" for n in range(1, 9)},
    **{f"tx{n}bias": f"tx_bias_ma_l{n}" for n in range(1, 9)},
}
# mlx5's port-wide physical counters (`ethtool -S`, the `_phy` group: every frame the port saw)
_NIC_PORT = {
    "rx_bytes_phy": "in_octets", "tx_bytes_phy": "out_octets", "rx_packets_phy": "in_pkts",
    "tx_packets_phy": "out_pkts", "rx_crc_errors_phy": "fcs_errors", "rx_discards_phy": "in_discards",
    "link_down_events_phy": "link_downed",
}
# IF-MIB (RFC 2863) and EtherLike-MIB (RFC 3635) columns as SNMP pollers name the fields (the MIB's own
# object names); the 32-bit Counter32 columns wrap at 2^32, the ifX HC columns are 64-bit
_IF_MIB_32 = {
    "ifInOctets": "in_octets", "ifOutOctets": "out_octets", "ifInUcastPkts": "in_pkts",
    "ifOutUcastPkts": "out_pkts", "ifInErrors": "in_errors", "ifOutErrors": "out_errors",
    "ifInDiscards": "in_discards", "ifOutDiscards": "out_discards", "dot3StatsFCSErrors": "fcs_errors",
    "dot3InPauseFrames": "pause_rx", "dot3OutPauseFrames": "pause_tx",
}
_IF_MIB_64 = {
    "ifHCInOctets": "in_octets", "ifHCOutOctets": "out_octets", "ifHCInUcastPkts": "in_pkts",
    "ifHCOutUcastPkts": "out_pkts", "dot3HCInPauseFrames": "pause_rx", "dot3HCOutPauseFrames": "pause_tx",
}
# port states where 1 is up and anything else is not: IF-MIB's columns, OpenConfig's leaves given as numbers
# (their enums as words are `numeric_fields`'), Telegraf's ethtool input (`interface_up`: the interface is
# set up; `link`: the carrier is detected)
_IF_MIB_TICKS = {"ifLastChange": "last_change"}
_IF_STATUS = {"ifOperStatus": "oper_status", "ifAdminStatus": "admin_status", "oper-status": "oper_status",
              "admin-status": "admin_status", "link": "oper_status", "interface_up": "admin_status"}
# OpenConfig leaves as gNMI clients name the fields (the leaf, or the gauge's container for `/instant`) that
# their words do not say: the collector's own table is `collectors/gnmi/paths/openconfig.toml`
_OPENCONFIG = {
    "carrier-transitions": "link_transitions", "interface-transitions": "link_transitions",
    "link-flap-events": "link_transitions", "in-mac-pause-frames": "pause_rx", "out-mac-pause-frames": "pause_tx",
    "fec-corrected-bits": "fec_corrected_bits", "corrected-bits": "fec_corrected_bits",
    "fec-uncorrectable-blocks": "fec_uncorrectable", "rs-fec-uncorrectable-blocks": "fec_uncorrectable",
    "fec-uncorrectable-words": "fec_uncorrectable",
    "in-crc-error-pkts": "fcs_errors",
}
# IEEE 802.3 clause 30 MAC attributes, as the Linux mlxsw driver's `ethtool -S` gives them (a_octets_received_ok)
_IEEE8023 = {
    "aFramesTransmittedOK": "out_pkts", "aFramesReceivedOK": "in_pkts", "aFrameCheckSequenceErrors": "fcs_errors",
    "aOctetsTransmittedOK": "out_octets", "aOctetsReceivedOK": "in_octets",
    "aPAUSEMACCtrlFramesTransmitted": "pause_tx", "aPAUSEMACCtrlFramesReceived": "pause_rx",
    "aSymbolErrorDuringCarrier": "symbol_errors",
    # mlxsw's per-priority and per-traffic-class groups: PFC frames, and packets dropped for want of buffer
    **{f"rx_pause_prio_{p}": f"pfc_rx_p{p}" for p in range(8)},
    **{f"tx_pause_prio_{p}": f"pfc_tx_p{p}" for p in range(8)},
}
# mlxsw's per-traffic-class drops for want of buffer: parts of the port's
_PER_CLASS = {f"tc_no_buffer_discard_uc_tc_{p}": "buffer_discards" for p in range(8)}
# in Mbit/s: IF-MIB's ifHighSpeed, and the kernel's /sys/class/net/<if>/speed and ethtool's (-1 while down: no
# speed, which a collector reading it unsigned writes as 2**32 - 1)
SPEED_UNKNOWN = float(2**32 - 1)
_MBPS = {"ifHighSpeed": "speed_bps", "speed": "speed_bps", "port-speed": "speed_bps",
         "negotiated-port-speed": "speed_bps"}
# the kernel's /sys/class/net/<if>/carrier (1 up, 0 down), and module gauges written without their unit
_PLAIN = {
    "carrier": "oper_status", "operstate": "oper_status", "carrier_changes": "link_transitions",
    "temperature": "temperature_c",
    "module_temperature": "temperature_c", "voltage": "voltage_v",
}


# JUNIPER-DOM-MIB's jnxDomCurrentTable and its lane table, in their documented units: degC, mV, 0.01 dBm, uA (a
# lane's columns come one point per lane, the lane a tag: lane 1's name here, the reader puts each in its lane)
_JUNIPER_DOM = {
    "jnxDomCurrentModuleTemperature": CounterName("temperature_c"),
    "jnxDomCurrentModuleVoltage": CounterName("voltage_v", per=1000),
    "jnxDomCurrentRxLaserPower": CounterName("rx_power_dbm_l1", per=100),
    "jnxDomCurrentTxLaserOutputPower": CounterName("tx_power_dbm_l1", per=100),
    "jnxDomCurrentTxLaserBiasCurrent": CounterName("tx_bias_ma_l1", per=1000),
    "jnxDomCurrentLaneRxLaserPower": CounterName("rx_power_dbm_l1", per=100),
    "jnxDomCurrentLaneTxLaserOutputPower": CounterName("tx_power_dbm_l1", per=100),
    "jnxDomCurrentLaneTxLaserBiasCurrent": CounterName("tx_bias_ma_l1", per=1000),
}


def _build() -> dict[str, CounterName]:
    table: dict[str, CounterName] = {}
    for name, canonical in _CLASSIC.items():
        table[_key(name)] = CounterName(canonical)
        table[_key(name + "Extended")] = CounterName(canonical, bits=64)
    for name, canonical in _DATA.items():
        table[_key(name)] = CounterName(canonical, scale=4)
        table[_key(name + "Extended")] = CounterName(canonical, scale=4, bits=64)
    for name, canonical in _SYSFS.items():
        table[_key(name)] = CounterName(canonical)
    for name, canonical in _TELEMETRY.items():
        table[_key(f"Infiniband_{name}")] = CounterName(canonical)
    for name, canonical in _NIC.items():
        table[_key(name)] = CounterName(canonical)
    for name, canonical in _UFM_PHY.items():
        table[_key(name)] = CounterName(canonical)
    for name, canonical in _NIC_WIDE.items():
        table[_key(name)] = CounterName(canonical, bits=64)
    for name, canonical in _NIC_PORT.items():
        table[_key(name)] = CounterName(canonical, bits=64)
    for name, canonical in _CUMULUS_ETHTOOL.items():
        table[_key(name)] = CounterName(canonical, bits=64)
    for name, canonical in _IF_MIB_32.items():
        table[_key(name)] = CounterName(canonical, bits=32)
    for name, canonical in _IF_MIB_64.items():
        table[_key(name)] = CounterName(canonical, bits=64)
    for name, canonical in _IF_MIB_TICKS.items():
        table[_key(name)] = CounterName(canonical, bits=32)
    for name, canonical in _IF_STATUS.items():
        table[_key(name)] = CounterName(canonical, enum=_IF_UP)
    for name, spelled in _NODE_EXPORTER_IB.items():
        table[_key(name)] = table[_key(f"node_infiniband_{name}")] = spelled
    table.update({_key(name): spelled for name, spelled in _UFM_STATE.items()})
    table.update({_key(name): spelled for name, spelled in _NODE_EXPORTER_NET.items()})
    table.update({_key(name): spelled for name, spelled in _JUNIPER_DOM.items()})
    for name, canonical in _PER_CLASS.items():
        table[_key(name)] = CounterName(canonical, part=True)
    for name, canonical in _MBPS.items():
        table[_key(name)] = CounterName(canonical, scale=1_000_000, unknown=(SPEED_UNKNOWN,))
    for name, canonical in (*_PLAIN.items(), *SAI_FIELDS.items(), *_SONIC_DOM.items(), *_OPENCONFIG.items(),
                            *_IEEE8023.items()):
        table[_key(name)] = CounterName(canonical)
    return table


TABLE = _build()


# OpenConfig's containers of an interface's state, as a gNMI client names a leaf by its path under the
# subscription (`counters/in_pkts`): where the leaf is, not what it counts
_STATE_CONTAINERS = frozenset({"state", "counters"})


# a gNMI client that names a field by its whole path (gnmic's Influx output: `/interfaces/interface/state/counters/
# in-octets`): the containers say where the leaf is, the leaf what it counts; a gauge's statistic (openconfig-types'
# `instant`, `avg` ...) is a reading of its container (`input-power/instant`)
_STATISTICS = frozenset({"instant", "avg", "min", "max"})
_KEYS = re.compile(r"\[[^\]]*\]")
# a path through a queue: its leaf is that queue's, and a queue's drops are packets it had no buffer for
_QUEUE_CONTAINERS = frozenset({"queue", "queues"})
_DROPS = frozenset({"dropped", "drops", "drop", "discards", "discard"})


def _leaf(name: str) -> str:
    """`name` without the state containers its path starts with, or without the path a whole gNMI path names its
    leaf by (the statistic's container for a gauge's statistic); any other path is left whole."""
    if name.startswith("/"):
        *path, leaf = [e for e in _KEYS.sub("", name).split("/") if e] or [name]
        return path[-1] if leaf in _STATISTICS and path else leaf
    *path, leaf = name.split("/")
    return leaf if path and all(p in _STATE_CONTAINERS for p in path) else name


def _queue_drops(name: str) -> CounterName | None:
    """A whole gNMI path's leaf that counts a queue's drops: its share of the port's buffer discards."""
    if not name.startswith("/") or not _QUEUE_CONTAINERS & set(_KEYS.sub("", name).split("/")):
        return None
    leaf = _leaf(name)
    return CounterName("buffer_discards", part=True) if _DROPS & {w.lower() for w in name_words.words(leaf)} else None


def lookup(name: str) -> CounterName | None:
    """The canonical counter for a counter name in any known spelling, or None.

    UFM Telemetry's `_u_<unit>` suffix is ignored; `Infiniband_MBOut/MBIn` are not mapped: their
    unit is not documented in the samples we have."""
    if (queue := _queue_drops(name)) is not None:
        return queue
    if (leaf := _leaf(name)) != name:
        return CounterName(leaf) if leaf in COUNTERS else lookup(leaf)
    base, sep, _unit = name.partition("_u_")
    if name.startswith(ETHTOOL_PREFIX):
        base, sep = name[len(ETHTOOL_PREFIX):], "ethtool"
        found = TABLE.get(_key(base))
        if found is None:
            for words, short in _SPELLED_OUT:
                base = words.sub(short, base)
        return found or TABLE.get(_key(base))
    return TABLE.get(_key(base if sep else name))


def spellings(names: Iterable[str]) -> dict[str, CounterName]:
    """The names (of a sample, or of a chunk of a recording) that are counters of the vocabulary under another
    spelling: by the table first, then by their words (`core/name_words.py`, `CounterName.by_words`). Words are
    a reading, not a document: where a row also carries the counter by the vocabulary's name or a documented
    spelling, the words give way; where two names of a row read as one counter (`rx_discards`,
    `rx_total_discard_pkts`: ring and port), neither is read (`rivals`)."""
    names = [n for n in names if n not in COUNTERS]
    out = {n: c for n in names if (c := lookup(n)) is not None}
    from_zero = any(_LANE_ZERO.search(n) for n in names)
    for n in names:
        for said in (_leaf(n).removeprefix(ETHTOOL_PREFIX), *_prometheus_rest(n)):
            if n in out:
                break
            if said != n and (c := lookup(said)) is not None:
                out[n] = c
                continue
            said = _LANE.sub(lambda m: f"{m[1]}{int(m[2]) + 1}", said) if from_zero else said
            if (canonical := name_words.read(said)) in COUNTERS:
                out[n] = CounterName(str(canonical), by_words=True, part=name_words.a_part(said, str(canonical)))
    return out


# Prometheus names a metric `<namespace>_<name>`, a counter with `_total` (its naming practices): the namespace
# says which exporter wrote it, the suffix that it counts; what it counts is the rest
PROMETHEUS_COUNTER = "_total"


def _prometheus_rest(name: str) -> list[str]:
    """`name` without its counter suffix, then without its namespace too (where a name is left)."""
    base = name.removesuffix(PROMETHEUS_COUNTER)
    out = [base] if base != name else []
    _, sep, rest = base.partition("_")
    return [*out, rest] if sep and rest else out


# a module's lanes numbered from 0 by their writer (lane0..lane3): the vocabulary's are l1..l8
_LANE = re.compile(r"(lane_?)(\d)(?!\d)", re.IGNORECASE)
_LANE_ZERO = re.compile(r"lane_?0(?!\d)", re.IGNORECASE)


def rivals(spelled: dict[str, CounterName]) -> dict[str, list[str]]:
    """Per name read by its words, the other names read by their words as the same counter (parts of one
    counter are no rivals: they sum)."""
    by: dict[str, list[str]] = {}
    for n, c in spelled.items():
        if c.by_words and not c.part:
            by.setdefault(c.canonical, []).append(n)
    return {n: [m for m in same if m != n] for same in by.values() for n in same}


def canonical_fields(values: dict[str, float], widths: dict[str, int] | None = None) -> dict[str, float]:
    """A sample's fields under the vocabulary's names, in its units, where another writer spells them its own
    way (a canonical name the sample also carries wins); names of no known spelling are kept as they are.
    `widths` receives the width of each counter whose spelling has its own (`SymbolErrorCounterExtended`: 64)."""
    out = {}
    aliased = []
    spelled = spellings(values)
    contested = {n for n, others in rivals(spelled).items() if others}
    for name, value in values.items():
        if name in COUNTERS:
            out[name] = value
        elif (spelling := spelled.get(name)) is not None and name not in contested:
            aliased.append((spelling, name, value))
        else:
            out[name] = value
    aliased.sort(key=lambda a: (a[0].part, a[0].by_words))  # a whole first, a documented spelling first
    for spelling, name, value in aliased:
        if spelling.part and spelling.canonical not in out:  # parts are read where the row has no whole
            out[part(spelling.canonical, name)] = spelling.value(value)
        elif spelling.canonical not in out:
            out[spelling.canonical] = spelling.value(value)
            if widths is not None and spelling.bits is not None:
                widths[spelling.canonical] = spelling.bits
        else:
            out[name] = value
    return out


_STATE_WORDS = {"up": 1.0, "down": 0.0, "true": 1.0, "false": 0.0}
# openconfig-if-ethernet's ETHERNET_SPEED identities as words, with or without their module
# ("openconfig-if-ethernet:SPEED_400GB"); SPEED_UNKNOWN (nothing negotiated) is no reading
_SPEED_WORD = re.compile(r"(?:[\w-]+:)?SPEED_(\d+)(MB|GB)")
_WIDTH_WORD = re.compile(r"(\d{1,2})[xX]")  # a link's active width as IB tools print it ("4x", "2x"): its lanes


def numeric_fields(fields: dict[str, object]) -> dict[str, float]:
    """A line's fields as numbers: bools and other strings are no counters, but a port's state given as a word
    (SONiC's APPL_DB `oper_status="up"`, the kernel's `operstate="down"`) is the vocabulary's 1 or 0, a speed
    given as OpenConfig's identity ("SPEED_400GB") its bit/s, and a width as IB tools print it ("2x") its lanes."""
    out: dict[str, float] = {}
    for name, value in fields.items():
        if type(value) is int or type(value) is float:
            out[name] = value
        elif isinstance(value, str) and value.lower() in _STATE_WORDS:
            spelling = lookup(name)
            canonical = name if name in COUNTERS else spelling.canonical if spelling is not None else ""
            if canonical in ("oper_status", "admin_status"):  # under its canonical name unless the line has that
                out[name if canonical in fields else canonical] = _STATE_WORDS[value.lower()]
        elif isinstance(value, str) and (speed := _SPEED_WORD.fullmatch(value)) and "speed_bps" not in fields:
            spelling = lookup(name)
            if spelling is not None and spelling.canonical == "speed_bps":
                out["speed_bps"] = int(speed[1]) * (10**9 if speed[2] == "GB" else 10**6)
        elif isinstance(value, str) and (width := _WIDTH_WORD.fullmatch(value.strip())):
            spelling = None if name in COUNTERS else lookup(name)
            lanes = float(width[1])
            if name == "link_width_active":  # the vocabulary's own name counts lanes
                out[name] = lanes
            elif spelling is not None and spelling.canonical == "link_width_active":
                # in the field's own enumeration where it has one (IBA's LinkWidthActive)
                raw = next((r for r, v in spelling.enum if v == lanes), None) if spelling.enum else lanes
                if raw is not None:
                    out[name] = raw
    return out
