"""Counter names read by their words, for exporters no table lists.

`pfcRxPausePkts3` is PFC pause frames received on priority 3, `domTemperature` the module's temperature,
`rx_power_dbm` its receive power, `phy_raw_ber` its BER before the FEC: an operator reads an unknown exporter
this way, and so does `read`. A name is read only when every one of its words is understood and they name
one counter with its direction (and, for PFC, its priority); one word not understood (`pfcWdDroppedPkts3`:
"wd", `rx_prio3_pause_duration`: "duration", a unit we do not convert) leaves it unread, and named so where
the unread names are reported. `core/names.spellings` tries its table of documented spellings first.
"""

from __future__ import annotations

import re

# "QoS" is one word however it is cased beside others (`mellanoxQoSPFCTxPausePkts`)
_WORDS = re.compile(r"QoS|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

# IEEE 802.1Qbb counts PFC frames as indications (received) and requests (sent)
IN = frozenset({"rx", "in", "ingress", "rcv", "recv", "received", "receive", "input", "indications"})
OUT = frozenset({"tx", "out", "egress", "xmit", "xmt", "sent", "send", "transmit", "transmitted", "output",
                 "requests"})
# words that name where a value is kept or how it is counted, not what it is
FILLER = frozenset({"port", "if", "hc", "phy", "dom", "module", "total", "stat", "stats", "count", "counter",
                    "counters", "num", "sfp", "qsfp", "transceiver", "xcvr", "optic", "optical", "prio",
                    "priority", "pkts", "packets", "frames", "avg", "average", "ucast", "unicast", "instant",
                    "p",  # a priority's number as a suffix: `_p3`
                    "cos",  # a class of service: the priority its number names (`pfc_rxPPP_cos3`)
                    "qos",  # counted by the QoS machinery (`qos_ecn_marked_tc3`): where, not what
                    "supply", "laser",  # a module's supply voltage is its voltage, its laser's bias its bias
                    # how a packet was dropped (a queue's WRED or AFD, its tail, its buffer overflowing) says
                    # nothing of which drops they are
                    "wred", "afd", "tail", "overflow",
                    # a vendor's name before its counters says who wrote them, not what they are
                    "arista", "cisco", "juniper", "mellanox", "nvidia", "broadcom", "dell", "hpe", "nokia",
                    "sai"})  # and SAI's (the Switch Abstraction Interface SONiC counts through) likewise
# words that say the name's number is a queue's: understood only with that number (a queue's ECN marks are the
# port's), not alone (mlx5's `tx_queue_dropped` counts the host's software queues, not the port's)
# `qg`: a queue group (NX-OS); `uc`: a unicast queue (EOS's `UC3`)
QUEUE = frozenset({"queue", "tc", "q", "qg", "queuing", "uc"})
# subject words -> the subject; several words may name one
SUBJECTS = {
    "pfc": "pfc", "ppp": "pfc", "pause": "pause", "ecn": "ecn", "marked": "", "marks": "", "ce": "",
    "fcs": "fcs", "crc": "fcs",
    "discards": "discards", "discard": "discards", "drops": "discards", "drop": "discards", "dropped": "discards",
    "errors": "errors", "error": "errors", "err": "errors", "errs": "errors",
    "octets": "octets", "bytes": "octets",
    "temperature": "temp", "temp": "temp", "power": "power", "bias": "bias", "voltage": "voltage",
    "vcc": "voltage", "ber": "ber", "raw": "ber_pre", "pre": "ber_pre", "prefec": "ber_pre",
    "effective": "ber_post", "post": "ber_post", "postfec": "ber_post", "fec": "fec",
    "corrected": "corrected", "correctable": "corrected", "uncorrectable": "uncorrectable",
    "uncorrected": "uncorrectable", "codewords": "", "cws": "", "blocks": "",
    # a reading's present value (`jnxDomCurrent...`), or the unit word of a laser's bias current: no subject, and
    # no filler either (a supply current is no reading a measurement's words could name)
    "current": "",
    "symbol": "symbol", "lane": "lane", "ch": "lane", "channel": "lane",  # a module's physical channel
    # a link's (or its carrier's) status changing: its transitions, up or down
    "link": "link", "carrier": "link", "status": "", "changes": "changes", "transitions": "changes",
}
PACKETS = frozenset({"pkts", "packets", "frames"})
# unit words and the subject each is the unit of
UNITS = {"c": "temp", "degc": "temp", "celsius": "temp", "dbm": "power", "ma": "bias", "v": "voltage",
         "volts": "voltage"}


def words(name: str) -> list[str]:
    """The words of a name, lower case: `pfcRxPausePkts3` -> pfc, rx, pause, pkts, 3."""
    return [w.lower() for w in _WORDS.findall(name)]


def read(name: str) -> str | None:
    """The vocabulary's name for `name` by its words, or None where a word is not understood or the words
    name no one counter."""
    ws = words(name)
    if not ws:
        return None
    direction: set[str] = set()
    subjects: set[str] = set()
    units: set[str] = set()
    numbers: list[int] = []
    for w in ws:
        if w.isdigit():
            numbers.append(int(w))
        elif w in IN:
            direction.add("in")
        elif w in OUT:
            direction.add("out")
        elif w in SUBJECTS:
            if SUBJECTS[w]:
                subjects.add(SUBJECTS[w])
        elif w in UNITS:
            units.add(UNITS[w])
        elif w not in FILLER and w not in QUEUE:
            return None
    if len(direction) > 1 or len(numbers) > 1 or (QUEUE & set(ws) and not numbers):
        return None
    way = next(iter(direction), "")
    number = numbers[0] if numbers else None
    if not subjects and PACKETS & set(ws) and number is None:
        return f"{way}_pkts" if way else None
    if not units <= subjects:  # a unit names the quantity the name is of, or the words disagree
        return None
    return _counter(frozenset(subjects), way, number, bool({"prio", "priority"} & set(ws)), bool(QUEUE & set(ws)))


def _counter(subjects: frozenset[str], way: str, number: int | None, prio: bool, queued: bool = False) -> str | None:
    """The counter the subjects, direction ("in", "out", "") and number name, or None; `prio`: the name
    says its number is a priority (pause frames on a priority are PFC); `queued`: that it is a queue's."""
    rx_tx = {"in": "rx", "out": "tx"}.get(way)
    lane = number if number is not None and 1 <= number <= 8 else None
    if subjects in ({"pfc"}, {"pfc", "pause"}) or (subjects == {"pause"} and prio):
        if rx_tx and number is None:
            return f"pfc_{rx_tx}_any"  # a count over all priorities, or one the name leaves to its row's index
        return f"pfc_{rx_tx}_p{number}" if rx_tx and number is not None and 0 <= number <= 7 else None
    a_queues = subjects == {"ecn"} or (queued and subjects == {"discards"})
    if number is not None and not a_queues and "lane" not in subjects:
        return None  # a number is a priority (PFC), a queue's (its ECN marks, its drops) or a lane, nothing else
    if subjects == {"pause"}:
        return f"pause_{rx_tx}" if rx_tx else None
    if subjects == {"ecn"}:
        return "ecn_marked" if way in ("", "out") else None
    if subjects in ({"fcs"}, {"fcs", "errors"}):
        return "fcs_errors" if way in ("", "in") else None
    if subjects == {"symbol", "errors"}:
        return "symbol_errors" if way in ("", "in") else None
    if subjects in ({"discards"}, {"errors"}, {"octets"}):
        what = next(iter(subjects))
        way = way or ("out" if queued and what == "discards" else "")  # a queue drops what it would have sent
        return f"{way}_{what}" if way else None
    if subjects == {"temp"}:
        return "temperature_c" if not way else None
    if subjects == {"voltage"}:
        return "voltage_v" if not way else None
    if subjects in ({"power"}, {"power", "lane"}):
        return f"{rx_tx}_power_dbm_l{lane or 1}" if rx_tx and (number is None or lane) else None
    if subjects in ({"bias"}, {"bias", "lane"}):
        return f"tx_bias_ma_l{lane or 1}" if way in ("", "out") and (number is None or lane) else None
    if subjects in ({"ber", "ber_pre"}, {"ber", "ber_pre", "fec"}):
        return "pre_fec_ber" if not way else None
    if subjects in ({"ber", "ber_post"}, {"ber", "ber_post", "fec"}):
        return "post_fec_ber" if not way else None
    if subjects == {"fec", "corrected"}:
        return "fec_corrected" if way in ("", "in") else None
    if subjects == {"fec", "uncorrectable"}:
        return "fec_uncorrectable" if way in ("", "in") else None
    if subjects == {"link", "changes"}:
        return "link_transitions" if not way else None
    return None


def a_part(name: str, canonical: str) -> bool:
    """Whether `name`, read as `canonical`, is one queue's share of a port's counter: its number names no
    counter of the vocabulary (a priority's PFC frames and a lane's reading carry theirs)."""
    return any(w.isdigit() for w in words(name)) and not any(c.isdigit() for c in canonical)


def named_by(measurement: str, name: str) -> str:
    """`name`, or, where its own words name nothing (a gNMI leaf's `instant` under a container a subscription names
    the measurement after: `xcvr_temp`), the measurement's words before it where those read as one counter."""
    if not names_nothing(name):
        return name
    said = f"{measurement}_{name}"
    return said if read(said) is not None else name


def names_nothing(name: str) -> bool:
    """Whether every word of `name` only says where or how a value is kept (`instant`, `avg`)."""
    ws = words(name)
    return bool(ws) and all(w in FILLER for w in ws)
