"""InfiniBand and RoCE NIC counter names, in every spelling we meet, to canonical counters.

The same IBA PortCounters appear as `SymbolErrorCounter` (perfquery, UFM CSV), `symbol_error`
(sysfs), `SymbolErrorCounterExtended` (extended counter sets), `Infiniband_SymbolErrors_u_Errors`
(UFM Telemetry JSON) ...: one table, looked up by a normalised key (lower case, no '_').
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IbCounter:
    canonical: str
    scale: int = 1  # PortXmitData/PortRcvData count 4-octet words
    bits: int | None = None  # width override: extended variants are 64-bit and wrap


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
    **{f"rx_prio{p}_pause": f"pfc_rx_p{p}" for p in range(8)},
    **{f"tx_prio{p}_pause": f"pfc_tx_p{p}" for p in range(8)},
    # the physical layer: mlx5 (`*_phy`), bnxt_en and others
    "rx_corrected_bits_phy": "fec_corrected_bits",
    **{f"rx_err_lane_{n}_phy": f"lane_errors_l{n + 1}" for n in range(8)},
    "rx_fec_corrected_blocks": "fec_corrected", "rx_fec_uncorrectable_blocks": "fec_uncorrectable",
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
# NIC symbol errors are 64-bit and wrap, unlike IB's 16-bit saturating SymbolErrorCounter
_NIC_WIDE = {"rx_symbol_err_phy": "symbol_errors", "rx_pcs_symbol_err": "symbol_errors"}


def _build() -> dict[str, IbCounter]:
    table: dict[str, IbCounter] = {}
    for name, canonical in _CLASSIC.items():
        table[_key(name)] = IbCounter(canonical)
        table[_key(name + "Extended")] = IbCounter(canonical, bits=64)
    for name, canonical in _DATA.items():
        table[_key(name)] = IbCounter(canonical, scale=4)
        table[_key(name + "Extended")] = IbCounter(canonical, scale=4, bits=64)
    for name, canonical in _SYSFS.items():
        table[_key(name)] = IbCounter(canonical)
    for name, canonical in _TELEMETRY.items():
        table[_key(f"Infiniband_{name}")] = IbCounter(canonical)
    for name, canonical in _NIC.items():
        table[_key(name)] = IbCounter(canonical)
    for name, canonical in _UFM_PHY.items():
        table[_key(name)] = IbCounter(canonical)
    for name, canonical in _NIC_WIDE.items():
        table[_key(name)] = IbCounter(canonical, bits=64)
    return table


TABLE = _build()


def lookup(name: str) -> IbCounter | None:
    """The canonical counter for a counter name in any known spelling, or None.

    UFM Telemetry's `_u_<unit>` suffix is ignored; `Infiniband_MBOut/MBIn` are not mapped: their
    unit is not documented in the samples we have."""
    base, sep, _unit = name.partition("_u_")
    return TABLE.get(_key(base if sep else name))


def with_transitions(values: dict[str, int | float]) -> None:
    """Add `link_transitions` from `link_downed` when the port counts downs only (IBA PortCounters).

    Each down of an InfiniBand link is a down and an up (one too many while it is still down), so
    the flap rules judge an IB port by the transitions an Ethernet port counts itself; a reset or a
    saturated LinkDownedCounter shows in both as the pipeline handles it."""
    downed = values.get("link_downed")
    if downed is not None and "link_transitions" not in values:
        values["link_transitions"] = 2 * downed
