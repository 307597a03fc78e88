"""A link down while someone replaces what was flagged on it. A finding on a link's physical layer (corruption, a
module's readings, a retrain to a lower speed) sends an operator to swap its optic or cable; the link is down at
both ends, administratively up, for the minutes that takes, which looks like a link left down. Down at both ends
after such a finding it is left down only once it stays down longer than a swap (REPAIR_S); down at one end with
the far end up is a one-way failure, not a swap. Back up for longer than a swap takes, the repair is over: down
again later, it is left down as any link is, unless a new finding sent someone to it."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from fabricwatch.models.features import FeatureFrame, LinkState

# what a finding on a link's physical layer names: the optic, cable or port an operator will replace next
PHYSICAL = frozenset({"corruption", "fec_uncorrectable", "link_recovery", "speed_degraded", "retrained_lower",
                      "module_hot", "ber_high", "ber_rising", "rx_power_low", "lane_outlier", "trend"})
REPAIR_S = 15 * 60.0  # the minutes a swap of an optic or a cable takes: down that long after its finding is the repair
# a link flagged this long before it went down: the finding that sent someone to it
REPAIR_AFTER_S = 2 * 3600.0


def mark_physical(state: LinkState, row: int, start_ns: int, conditions: Iterable[str]) -> None:
    """Note that the link of `row` has a finding on its physical layer now (`conditions`: the finding's)."""
    if PHYSICAL.intersection(conditions):
        state["physical_ns"][row] = start_ns


def under_repair(state: LinkState, row: int, far_row: int | None, since: int) -> bool:
    """Whether either end of a cable (`row`, `far_row`: state rows, the far one None when never heard) had a
    finding on its physical layer within REPAIR_AFTER_S before the link went down (`since`), and the link, back
    up since that finding, did not stay up longer than a swap takes before going down again (the repair was over:
    a swap of both ends' optics, or a reseat after it, goes down again within it)."""
    ends = [row] if far_row is None else [row, far_row]
    last = max(int(state["physical_ns"][r]) for r in ends)
    back = max(int(state["back_ns"][r]) for r in ends)
    over = back > last and since - back > REPAIR_S * 1e9
    return last > 0 and since - last <= REPAIR_AFTER_S * 1e9 and not over


def repairing(frame: FeatureFrame, rows: np.ndarray, state: LinkState, far_rows: list[int | None],
              far_up: np.ndarray) -> np.ndarray:
    """Per row of the frame, whether the link is down now at both ends (`far_up`: per row, its far end says it is
    up; down at one end is a one-way optic, no swap), under repair (`under_repair`), for no longer than a swap
    takes; `rows`: the frame's state rows; `far_rows`: per row, the state row of its cable's far end (None: never
    heard)."""
    oper = frame.reading("oper_status")
    # when each link last came back up after being down (`under_repair`: a repair ends once it stays up)
    back = rows[(oper >= 0.5) & (state["down"][rows] > 0)]
    state["back_ns"][back] = frame.start_ns
    down = (np.nan_to_num(oper, nan=1.0) < 0.5) & ~far_up
    out = np.zeros(len(rows), dtype=bool)
    for i in np.nonzero(down)[0].tolist():
        row = int(rows[i])
        since = int(state["down_from_ns"][row]) if state["down"][row] > 0 else frame.start_ns
        out[i] = frame.start_ns - since < REPAIR_S * 1e9 and under_repair(state, row, far_rows[i], since)
    return out
