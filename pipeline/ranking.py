"""The one "worst links first" order, for /api/links and the live view.

A link's badness is its pause rate (PFC of every priority plus 802.3x pause, frames/s) plus 1,000 x
its error and discard rate: one errored frame a second says more about a link than a thousand
pause frames, which a busy but healthy fabric sends all the time.
"""

from __future__ import annotations

from collections.abc import Mapping

from fabricwatch.pipeline.pipeline import PortRateView
from fabricwatch.pipeline.totals import error_rate, pause_rate

ERROR_WEIGHT = 1000.0


def badness(rates: Mapping[str, float]) -> float:
    return pause_rate(rates) + ERROR_WEIGHT * error_rate(rates)


def worst_links(latest: Mapping[tuple[str, str], PortRateView], *, by: str = "",
                limit: int | None = None) -> list[tuple[tuple[str, str], PortRateView]]:
    """Links sorted worst first: by one counter's rate when `by` names it, else by `badness`."""
    def key(item: tuple[tuple[str, str], PortRateView]) -> float:
        rates = item[1].rates
        return float(rates.get(by, 0.0)) if by else badness(rates)

    ranked = sorted(latest.items(), key=key, reverse=True)
    return ranked if limit is None else ranked[:limit]
