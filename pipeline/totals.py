"""A port's pause and error totals from its rates: the same sums everywhere a link is ranked,
coloured or plotted."""

from __future__ import annotations

import math
from collections.abc import Mapping

from fabricwatch.core.counters import COUNTERS

ERROR_COUNTERS = ("in_errors", "out_errors", "fcs_errors", "in_discards", "out_discards", "symbol_errors",
                  "rcv_errors", "link_error_recovery", "xmit_discards")


_PAUSE_PREFIXES = ("pfc_", "pause_")
_PAUSE = frozenset(k for k in COUNTERS if k.startswith(_PAUSE_PREFIXES))
_KNOWN = frozenset(COUNTERS)


def pause_rate(rates: Mapping[str, float]) -> float:
    """PFC of every priority plus 802.3x pause, frames/s, both directions."""
    if rates.keys() <= _KNOWN:  # the per-sample case: the set operations run in C
        return math.fsum([rates[k] for k in _PAUSE.intersection(rates)])
    return math.fsum(v for k, v in rates.items() if k.startswith(_PAUSE_PREFIXES))


def error_rate(rates: Mapping[str, float]) -> float:
    return float(sum(rates.get(k, 0.0) for k in ERROR_COUNTERS))
