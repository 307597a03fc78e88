"""PFC frames counted without their priority are PFC frames.

Principle 1 (every counter is evidence, so a known input must be read): IEEE 802.1Qbb's MIB counts a port's PFC
requests (sent) and indications (received) over all priorities, and SNMP pollers that join a vendor's
per-priority PFC table onto the interface row by its index name the field without the priority
(`aristaPfcPriorityRequests`, `mellanoxQoSPFCTxPausePkts`). Such a count is the port's PFC frames of any
priority: it feeds the PFC signals where the port reports no per-priority count, is never added to one, and a
storm it shows is a storm.
"""

from __future__ import annotations

import pytest

from fabricwatch.core.counters import COUNTERS
from fabricwatch.core.names import spellings
from fabricwatch.detection.rules import evaluate
from fabricwatch.models.features import OWN_NAMES, FeatureBuilder
from fabricwatch.models.intervals import LinkInterval

PFC_RX, PFC_TX = OWN_NAMES.index("pfc_rx"), OWN_NAMES.index("pfc_tx")


@pytest.mark.parametrize(("name", "canonical"), [
    ("aristaPfcPriorityRequests", "pfc_tx_any"), ("aristaPfcPriorityIndications", "pfc_rx_any"),
    ("mellanoxQoSPFCTxPausePkts", "pfc_tx_any"), ("mellanoxQoSPFCRxPausePkts", "pfc_rx_any"),
    ("pfcRxPausePkts", "pfc_rx_any"),
    ("aristaPfcPriorityRequests_p3", "pfc_tx_p3"),  # with its priority, that priority's
])
def test_a_pfc_count_without_its_priority_is_the_ports_pfc_of_any_priority(name: str, canonical: str) -> None:
    assert canonical in COUNTERS
    assert spellings([name])[name].canonical == canonical


@pytest.mark.parametrize("name", ["mellanoxQoSPFCRxPauseDuration", "pfcRxPausePkts9"])
def test_a_pfc_duration_or_a_priority_that_is_none_stays_unread(name: str) -> None:
    assert name not in spellings([name])


def _pfc(rates: dict[str, float]) -> tuple[float, float]:
    base = {"in_octets": 1e9, "out_octets": 1e9, "in_pkts": 1e6, "out_pkts": 1e6}
    frame = FeatureBuilder(30.0).build(0, [LinkInterval(0, "sw", "p1", {"role": "leaf_down"}, {**base, **rates})])
    return float(frame.own_raw[0, PFC_RX]), float(frame.own_raw[0, PFC_TX])


def test_a_count_of_any_priority_feeds_the_pfc_signals_where_no_priority_is_counted() -> None:
    assert _pfc({"pfc_rx_any": 40.0, "pfc_tx_any": 7.0}) == (40.0, 7.0)
    # a port counting both: its per-priority counts, not their sum with the total they make
    assert _pfc({"pfc_rx_any": 40.0, "pfc_rx_p3": 30.0, "pfc_rx_p4": 10.0, "pfc_tx_p3": 7.0}) == (40.0, 7.0)


def test_a_storm_counted_without_its_priority_is_a_storm() -> None:
    li = LinkInterval(0, "leaf1", "Ethernet1/1", {"role": "leaf_down", "speed": "400G"},
                      {"pfc_rx_any": 40_000.0, "out_octets": 1e6, "in_octets": 1e9})
    hits = [h for h in evaluate(li, 30.0) if h.condition == "pause_storm"]
    assert hits and "priority" in hits[0].reason
