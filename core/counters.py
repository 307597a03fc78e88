"""The canonical counter vocabulary every collector maps into and every consumer reads."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    COUNTER = "counter"  # cumulative, only goes up (until wrap, saturation or reset)
    GAUGE = "gauge"
    STATE = "state"


@dataclass(frozen=True, slots=True)
class CounterSpec:
    name: str
    kind: Kind
    unit: str
    bits: int = 64  # width at which a device wraps (or saturates) the counter
    saturates: bool = False  # IB error counters stop at 2**bits - 1 instead of wrapping
    help: str = ""

    @property
    def max_value(self) -> int:
        return (1 << self.bits) - 1

    @property
    def integer(self) -> bool:
        """Stored as an integer field (counts, states, what the link trained to); other gauges as floats.
        InfluxDB keeps one type per field, whatever type each device sends its value as."""
        return self.kind is not Kind.GAUGE or self.name in TRAINED


PRIORITIES = range(8)
# what a link trains to when it comes up and holds while it is up: less than before is a degraded link
TRAINED = ("speed_bps", "link_width_active", "link_speed_active")

_BASE: tuple[CounterSpec, ...] = (
    CounterSpec("in_octets", Kind.COUNTER, "bytes", help="octets received"),
    CounterSpec("out_octets", Kind.COUNTER, "bytes", help="octets sent"),
    # what a packet count holds depends on the source: IF-MIB (ifHC*UcastPkts) and SONiC
    # (SAI_*_UCAST_PKTS) count unicast only; OpenConfig's in-pkts/out-pkts count every packet
    CounterSpec("in_pkts", Kind.COUNTER, "packets",
                help="packets received (unicast only over SNMP IF-MIB and SONiC; all over OpenConfig)"),
    CounterSpec("out_pkts", Kind.COUNTER, "packets",
                help="packets sent (unicast only over SNMP IF-MIB and SONiC; all over OpenConfig)"),
    CounterSpec("in_errors", Kind.COUNTER, "packets", help="inbound packets with errors"),
    CounterSpec("out_errors", Kind.COUNTER, "packets", help="outbound packets with errors"),
    CounterSpec("in_discards", Kind.COUNTER, "packets", help="inbound packets discarded"),
    CounterSpec("out_discards", Kind.COUNTER, "packets", help="outbound packets discarded"),
    CounterSpec("fcs_errors", Kind.COUNTER, "packets", help="frames with a bad FCS"),
    CounterSpec("buffer_discards", Kind.COUNTER, "packets", help="packets dropped for lack of buffer"),
    CounterSpec("pause_rx", Kind.COUNTER, "frames", help="802.3x pause frames received"),
    CounterSpec("pause_tx", Kind.COUNTER, "frames", help="802.3x pause frames sent"),
    CounterSpec("ecn_marked", Kind.COUNTER, "packets", help="packets marked CE"),
    CounterSpec("cnp_sent", Kind.COUNTER, "packets", help="RoCE congestion notifications sent"),
    CounterSpec("cnp_handled", Kind.COUNTER, "packets", help="RoCE CNPs handled"),
    CounterSpec("xmit_wait", Kind.COUNTER, "ticks", help="ticks with data to send but no credit"),
    # InfiniBand PortCounters: classic widths, saturating (IBA spec 16.1.3.5)
    CounterSpec("symbol_errors", Kind.COUNTER, "errors", 16, True, "IB SymbolErrorCounter"),
    CounterSpec("link_error_recovery", Kind.COUNTER, "events", 8, True, "IB LinkErrorRecovery"),
    CounterSpec("link_downed", Kind.COUNTER, "events", 8, True, "IB LinkDownedCounter"),
    CounterSpec("rcv_errors", Kind.COUNTER, "packets", 16, True, "IB PortRcvErrors"),
    CounterSpec(
        "rcv_remote_physical_errors", Kind.COUNTER, "packets", 16, True,
        "IB PortRcvRemotePhysicalErrors",
    ),
    CounterSpec("xmit_discards", Kind.COUNTER, "packets", 16, True, "IB PortXmitDiscards"),
    CounterSpec(
        "local_link_integrity_errors", Kind.COUNTER, "errors", 4, True,
        "IB LocalLinkIntegrityErrors",
    ),
    CounterSpec(
        "excessive_buffer_overrun_errors", Kind.COUNTER, "errors", 4, True,
        "IB ExcessiveBufferOverrunErrors",
    ),
    CounterSpec(
        "rcv_switch_relay_errors", Kind.COUNTER, "packets", 16, True, "IB PortRcvSwitchRelayErrors",
    ),
    CounterSpec("xmit_constraint_errors", Kind.COUNTER, "packets", 8, True, "IB PortXmitConstraintErrors"),
    CounterSpec("rcv_constraint_errors", Kind.COUNTER, "packets", 8, True, "IB PortRcvConstraintErrors"),
    CounterSpec("vl15_dropped", Kind.COUNTER, "packets", 16, True, "IB VL15Dropped"),
    # RoCE NIC (mlx5 hw_counters): congestion control and transport retries
    CounterSpec("cnp_ignored", Kind.COUNTER, "packets", help="RoCE CNPs received and ignored"),
    CounterSpec("out_of_sequence", Kind.COUNTER, "packets", help="RoCE packets received out of sequence"),
    CounterSpec("packet_seq_err", Kind.COUNTER, "events", help="RoCE NAK sequence errors received"),
    CounterSpec("local_ack_timeout_err", Kind.COUNTER, "events", help="RoCE ack timeouts (retransmits)"),
    CounterSpec("rnr_nak_retry_err", Kind.COUNTER, "events", help="RoCE RNR NAK retries exceeded"),
    CounterSpec("roce_adp_retrans", Kind.COUNTER, "events", help="RoCE adaptive retransmissions"),
    CounterSpec("pause_storm_events", Kind.COUNTER, "events", help="NIC pause storm warnings"),
    CounterSpec("link_transitions", Kind.COUNTER, "events", help="carrier up/down transitions"),
    # IF-MIB's ifLastChange: the agent's uptime (TimeTicks, 1/100 s) at the port's last state change. It only
    # moves forward while the agent runs, so its rate is above zero in an interval the port changed state in
    CounterSpec("last_change", Kind.COUNTER, "centiseconds", bits=32,
                help="the agent's uptime at the port's last state change (moves when it bounces)"),
    CounterSpec("oper_status", Kind.STATE, "1=up 0=down", help="operational state"),
    CounterSpec("admin_status", Kind.STATE, "1=up 0=down", help="administrative state (0: shut by an operator)"),
    CounterSpec("speed_bps", Kind.GAUGE, "bits/s", help="negotiated port speed"),
    CounterSpec("link_width_active", Kind.GAUGE, "lanes", help="active link width, as the device enumerates it"),
    CounterSpec("link_speed_active", Kind.GAUGE, "per lane", help="active lane speed, as the device enumerates it"),
)

_PFC: tuple[CounterSpec, ...] = (*(
    CounterSpec(f"pfc_{d}_p{p}", Kind.COUNTER, "frames", help=f"PFC frames {d.upper()} prio {p}")
    for d in ("rx", "tx")
    for p in PRIORITIES
), *(
    # IEEE 802.1Qbb's MIB counts a port's PFC requests and indications over all its priorities, and pollers
    # joining a per-priority table by its index name the field without the priority
    CounterSpec(f"pfc_{d}_any", Kind.COUNTER, "frames", help=f"PFC frames {d.upper()}, of a priority not named")
    for d in ("rx", "tx")
))

# The physical layer. FEC counts are 64-bit where devices give them (SAI, mlx5, OpenConfig); BER
# is a gauge the device computes over its own window (a ratio, not a count).
_FEC: tuple[CounterSpec, ...] = (
    CounterSpec("fec_corrected", Kind.COUNTER, "codewords", help="FEC codewords corrected"),
    CounterSpec("fec_uncorrectable", Kind.COUNTER, "codewords",
                help="FEC codewords that could not be corrected (each is a lost frame)"),
    CounterSpec("fec_corrected_bits", Kind.COUNTER, "bits", help="bits the FEC corrected (mlx5, Juniper)"),
    CounterSpec("fec_corrected_symbols", Kind.COUNTER, "symbols", help="FEC symbol errors corrected (SONiC)"),
    CounterSpec("pre_fec_ber", Kind.GAUGE, "ratio", help="bit error rate before FEC correction"),
    CounterSpec("post_fec_ber", Kind.GAUGE, "ratio", help="bit error rate after FEC correction"),
    CounterSpec("ib_raw_ber", Kind.GAUGE, "ratio", help="IB raw (pre-FEC) BER (UFM, mlxlink)"),
    CounterSpec("ib_effective_ber", Kind.GAUGE, "ratio", help="IB effective (post-FEC) BER"),
    CounterSpec("ib_symbol_ber", Kind.GAUGE, "ratio", help="IB symbol BER (after PLR)"),
)

# Per-lane values carry the lane, counted from 1 as on the module (CMIS lanes 1..8).
LANES = range(1, 9)
DOM_QUANTITIES: dict[str, tuple[str, str]] = {  # quantity -> (unit, what)
    "temperature_c": ("degC", "module temperature"),
    "voltage_v": ("V", "module supply voltage"),
    "rx_power_dbm": ("dBm", "receive optical power"),
    "tx_power_dbm": ("dBm", "transmit optical power"),
    "tx_bias_ma": ("mA", "laser bias current"),
}
PER_LANE = ("rx_power_dbm", "tx_power_dbm", "tx_bias_ma")
THRESHOLD_LEVELS = ("low_alarm", "low_warn", "high_warn", "high_alarm")


def lane(quantity: str, n: int) -> str:
    """Canonical name of one lane's DOM value, e.g. lane('rx_power_dbm', 3) == 'rx_power_dbm_l3'."""
    return f"{quantity}_l{n}"


def threshold(quantity: str, level: str) -> str:
    """The module's own threshold for a DOM quantity, e.g. 'rx_power_dbm_low_warn'."""
    return f"{quantity}_{level}"


_DOM: tuple[CounterSpec, ...] = (
    CounterSpec("temperature_c", Kind.GAUGE, "degC", help="module temperature"),
    CounterSpec("voltage_v", Kind.GAUGE, "V", help="module supply voltage"),
    *(CounterSpec(lane(q, n), Kind.GAUGE, DOM_QUANTITIES[q][0], help=f"{DOM_QUANTITIES[q][1]}, lane {n}")
      for q in PER_LANE for n in LANES),
    *(CounterSpec(threshold(q, lvl), Kind.GAUGE, unit, help=f"{what}: the module's {lvl.replace('_', ' ')} threshold")
      for q, (unit, what) in DOM_QUANTITIES.items() for lvl in THRESHOLD_LEVELS),
    *(CounterSpec(lane("lane_errors", n), Kind.COUNTER, "errors",
                  help=f"bits the FEC corrected on lane {n} (mlx5 rx_err_lane_*_phy, UFM Raw_Errors_Lane_*)")
      for n in LANES),
)

OPTICS: frozenset[str] = frozenset(c.name for c in (*_FEC, *_DOM))

COUNTERS: dict[str, CounterSpec] = {c.name: c for c in (*_BASE, *_PFC, *_FEC, *_DOM)}
STORED_AS_INT: frozenset[str] = frozenset(c.name for c in COUNTERS.values() if c.integer)
STORED_AS_FLOAT: frozenset[str] = frozenset(c.name for c in COUNTERS.values() if not c.integer)


# the port's states as a sample finds them, which the detector reads beside the rates
PORT_STATES = ("oper_status", "admin_status")


class Evidence(StrEnum):
    """What a counter's movement says about the link that counts it."""

    ERROR = "error"  # frames corrupted or lost on the wire: the link's physical layer
    DISCARD = "discard"  # packets dropped by the port (buffers, policy, watchdog)
    INTEGRITY = "integrity"  # the link had to retrain or recover
    STATE = "state"  # the link went down (and up): one bounce is maintenance, more than its background is not
    # a packet lost somewhere between two endpoints, counted by the transport that sent it again: the path's,
    # evidence against the NIC's link only where no watched hop explains it (`detection/path_witness.py`)
    PATH = "path"


# Every counter whose count is evidence against the link, judged against its own background rate
# (the detector needs no rule naming it): every error, discard and integrity counter of the
# vocabulary. Traffic, congestion signals (PFC, ECN, credit waits: load, judged against the links
# sharing it) and link state changes (the flap rules) are not in it. `tests/unit/test_counters.py`
# checks that every cumulative counter is classified here or named as not evidence.
EVIDENCE: dict[str, Evidence] = {
    **{n: Evidence.ERROR for n in (
        "in_errors", "out_errors", "fcs_errors", "symbol_errors", "rcv_errors", "rcv_remote_physical_errors",
        "local_link_integrity_errors", "excessive_buffer_overrun_errors", "rcv_switch_relay_errors",
        "xmit_constraint_errors", "rcv_constraint_errors", "fec_uncorrectable")},
    **{n: Evidence.DISCARD for n in ("in_discards", "out_discards", "buffer_discards", "xmit_discards",
                                     "vl15_dropped")},
    **{n: Evidence.INTEGRITY for n in ("link_error_recovery",)},
    **{n: Evidence.STATE for n in ("link_downed", "link_transitions")},
    **{n: Evidence.PATH for n in ("local_ack_timeout_err", "packet_seq_err", "roce_adp_retrans")},
}
NOT_EVIDENCE: frozenset[str] = frozenset({
    "in_octets", "out_octets", "in_pkts", "out_pkts", "pause_rx", "pause_tx", "ecn_marked", "cnp_sent",
    "cnp_handled", "cnp_ignored", "xmit_wait", "pause_storm_events",
    # when the port last changed state: its moves are bounces, which the flap rules judge as transitions
    "last_change",
    # packets received out of sequence are reordering as often as loss (adaptive routing sprays a flow over
    # paths of different lengths); a receiver-not-ready retry is a slow application at the far end, no loss
    "out_of_sequence", "rnr_nak_retry_err",
    # what the FEC corrected reaches no frame (every link's PHY corrects a trickle): its trend and the BER
    # it makes are the optics' to judge; per lane it is the same count as fec_corrected_bits
    "fec_corrected", "fec_corrected_bits", "fec_corrected_symbols", *(lane("lane_errors", n) for n in LANES),
    *(f"pfc_{d}_p{p}" for d in ("rx", "tx") for p in PRIORITIES), "pfc_rx_any", "pfc_tx_any",
})


def spec(name: str) -> CounterSpec | None:
    """The spec of a canonical counter, or None if the name is not in the vocabulary."""
    return COUNTERS.get(name)


def pfc(direction: str, priority: int) -> str:
    """Canonical name of a per-priority PFC counter, e.g. pfc('rx', 3) == 'pfc_rx_p3'."""
    return f"pfc_{direction}_p{priority}"


# one part of a port's counter kept per queue or traffic class (`ecn_marked_pkts_queue3` of `ecn_marked`): each
# part is rated on its own, since an exporter may send only the parts that changed, and the port's is their sum.
# A line break joins the names: no line-protocol field key can hold one, so no field is read as a part by its name
PART = "\n"


def part(whole_name: str, raw: str) -> str:
    """The name a part of `whole_name` is carried under until its rate is summed into the whole's."""
    return f"{whole_name}{PART}{raw}"


def whole(name: str) -> str:
    """The counter a part belongs to (a whole counter's own name for any other)."""
    return name.split(PART, 1)[0]
