"""The one "worst links first" order, for /api/links and the live view.

A link's badness is its pause rate (PFC of every priority plus 802.3x pause, frames/s) plus 1,000 x
its error and discard rate: one errored frame a second says more about a link than a thousand
pause frames, which a busy but healthy fabric sends all the time.

Given the link history, a link is judged by the highest rates of its last minute, not by its last poll
alone: a training job pauses its links in all-reduce bursts with quiet compute phases between them,
and the last poll of every busy link is 0 pauses for a third of the time.
"""

from __future__ import annotations

from collections.abc import Mapping

from fabricwatch.pipeline.history import LinkHistory
from fabricwatch.pipeline.pipeline import PortRateView
from fabricwatch.pipeline.totals import error_rate, pause_rate

ERROR_WEIGHT = 1000.0
WINDOW_S = 60.0


def badness(rates: Mapping[str, float]) -> float:
    return pause_rate(rates) + ERROR_WEIGHT * error_rate(rates)


def recent_totals(key: tuple[str, str], view: PortRateView, history: LinkHistory | None,
                  window_s: float = WINDOW_S) -> dict[str, float]:
    """A port's pauses, errors and ECN marks per second: the highest of its last `window_s` of
    reports where the history keeps them (and of its last poll), else its last poll's."""
    rates = view.rates
    now = {"pauses": pause_rate(rates), "errors": error_rate(rates), "ecn": float(rates.get("ecn_marked", 0.0))}
    if history is None:
        return now
    peaks = history.peaks(key, view.ts_ns - int(window_s * 1e9), view.ts_ns)
    return {name: max(v, peaks.get(name, 0.0)) for name, v in now.items()}


def worst_links(latest: Mapping[tuple[str, str], PortRateView], *, by: str = "",
                limit: int | None = None, history: LinkHistory | None = None
                ) -> list[tuple[tuple[str, str], PortRateView]]:
    """Links sorted worst first: by one counter's rate when `by` names it, else by `badness` (of the
    last minute when the history is given)."""
    def key(item: tuple[tuple[str, str], PortRateView]) -> float:
        rates = item[1].rates
        if by:
            return float(rates.get(by, 0.0))
        if history is None:
            return badness(rates)
        t = recent_totals(item[0], item[1], history)
        return t["pauses"] + ERROR_WEIGHT * t["errors"]

    ranked = sorted(latest.items(), key=key, reverse=True)
    return ranked if limit is None else ranked[:limit]
