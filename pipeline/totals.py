"""A port's pause and error totals from its rates: the same sums everywhere a link is ranked,
coloured or plotted."""

from __future__ import annotations

from collections.abc import Mapping

from fabricwatch.core.counters import COUNTERS

ERROR_COUNTERS = ("in_errors", "out_errors", "fcs_errors", "in_discards", "out_discards", "symbol_errors",
                  "rcv_errors", "link_error_recovery", "xmit_discards")


# a port's rates are named from the counter vocabulary (the rate engine computes no others)
PAUSE_COUNTERS = tuple(k for k in COUNTERS if k.startswith(("pfc_", "pause_")))


def pause_rate(rates: Mapping[str, float]) -> float:
    """PFC of every priority plus 802.3x pause, frames/s, both directions."""
    get = rates.get
    return float(sum([get(k, 0.0) for k in PAUSE_COUNTERS]))


def error_rate(rates: Mapping[str, float]) -> float:
    return float(sum(rates.get(k, 0.0) for k in ERROR_COUNTERS))
