"""State is a signal, over the hour as over the minute. A link that goes down once is a bounce (a reseat, a
host's firmware), one that goes down again and again within minutes is a flap. One that goes down every 10-20
minutes, its traffic moving to its siblings in between, never shows two downs in the flap window, yet every down
stalls the jobs crossing it: SLOW_FLAP_DOWNS downs within SLOW_FLAP_S are a (slow) flap.
"""

from __future__ import annotations

import numpy as np

from fabricwatch.core.hits import RuleHit
from fabricwatch.models.features import FeatureFrame, LinkState

SLOW_FLAP_DOWNS = 3
SLOW_FLAP_S = 3600.0
# the times of a link's last downs, oldest first (0: none); transitions counted towards the next down
STATE = {"downs_ns": ((SLOW_FLAP_DOWNS,), np.int64), "transitions_left": ((), np.float32),
         "went_down_ns": ((), np.int64)}  # when the transition a pending down began with came


def slow_flaps(frame: FeatureFrame, rows: np.ndarray, state: LinkState, transitions: np.ndarray,
               downed: np.ndarray, own: np.ndarray, hold_ns: float) -> dict[int, RuleHit]:
    """Links whose last SLOW_FLAP_DOWNS downs fall within SLOW_FLAP_S, by row, said from the last down for
    at most `hold_ns` (the flap window; the detector ends it sooner once the link has held its state): a link that
    stopped going down is no longer flapping. A down is what an IB
    port's LinkDownedCounter counts (`downed`, NaN where a port has none), else two of a port's transitions (a
    down and its up, in one interval or two); `own`: links whose transitions now are theirs (not their
    device's event, not an operator's act)."""
    counted = ~np.isnan(downed)  # a port that counts its downs: its transitions are those downs and their ups
    before = state["transitions_left"][rows]
    left = before + np.where(own & ~counted, np.nan_to_num(transitions), 0.0)
    by_transitions = np.floor(left / 2)
    state["transitions_left"][rows] = left - 2 * by_transitions
    # a down and its up in two intervals is a down when it went down
    began = np.where(before >= 1, state["went_down_ns"][rows], frame.start_ns)
    state["went_down_ns"][rows] = np.where(left - 2 * by_transitions >= 1, frame.start_ns, began)
    downs = np.where(own, np.where(counted, np.round(np.nan_to_num(downed)), by_transitions), 0)
    down_now = downs >= 1
    times = state["downs_ns"][rows]
    if down_now.any():
        when = np.where(counted, frame.start_ns, began)[down_now]
        times[down_now] = np.column_stack([times[down_now, 1:], when])
        state["downs_ns"][rows] = times
    oldest = times[:, 0]
    held = (oldest > 0) & (times[:, -1] - oldest <= SLOW_FLAP_S * 1e9) & (frame.start_ns - times[:, -1] < hold_ns)
    out = {}
    for i in np.nonzero(held)[0].tolist():
        minutes = (int(times[i, -1]) - int(oldest[i])) / 60e9
        out[i] = RuleHit("critical", f"the link went down {SLOW_FLAP_DOWNS} times in {minutes:,.0f} min, up in between "
                                     "(a slow flap: a connector, a module or a cable failing now and then)", "flap")
    return out
