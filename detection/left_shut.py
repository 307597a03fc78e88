"""State is a signal, and an operator's act is not a fault until the act is over. A port shut on its own is
planned however long it stays shut. A port shut shortly before its switch restarts was shut for that
maintenance (an optic cleaned, a module swapped before the firmware update), and a port shut with others of
its switch, or minutes from others anywhere (an operator working through a change list), was shut for their
maintenance: once the switch is back and has brought its other links up, or
the others of the act are enabled again, one still shut had its re-enable forgotten, and the fabric runs a
link short.
"""

from __future__ import annotations

import numpy as np

from fabricwatch.core.hits import RuleHit
from fabricwatch.detection.conditions import DOWN_INTERVALS
from fabricwatch.models.features import FeatureFrame, LinkState

MAINTENANCE_S = 3600.0  # a shut this long before the restart (or before others of its switch) is the same maintenance
# ports shut this close to each other are one act wherever they are: an operator working through a change list
# shuts one after the other, on one switch or several
ACT_S = 600.0
UNSEEN = 1 << 30  # intervals shut, for a port already shut when first seen: nobody here saw when
# per port: when the shut it is in was seen (0: not seen), and when it was last enabled after a seen shut,
# with when that shut began
STATE = {"shut_for": ((), np.int32), "shut_for_restart": ((), np.int32), "shut_since": ((), np.int64),
         "enabled_at": ((), np.int64), "enabled_shut_since": ((), np.int64)}


def left_shut(frame: FeatureFrame, rows: np.ndarray, state: LinkState, restarted: np.ndarray,
              training: set[str], interval_s: float) -> dict[int, RuleHit]:
    """Ports still administratively down DOWN_INTERVALS after their switch, back from the restart it was shut
    before, stopped training its links and has links of its own up; `restarted`: per link, its device reports
    again after being unheard. Reads `admin_before` (`maintenance.operated_links`, earlier in the interval)."""
    admin = frame.reading("admin_status")
    shut = admin < 0.5  # NaN (not reported) is not shut
    # counted from the act seen (administratively up in the interval before), else from long ago
    was = state["shut_for"][rows]
    shut_for = np.where(shut, np.where(was > 0, np.minimum(was, UNSEEN - 1) + 1,
                                       np.where(state["admin_before"][rows] == 2, 1, UNSEEN)), 0)
    state["shut_for"][rows] = shut_for
    # counts the intervals since the switch stopped training; 1 marks a port shut for the restart
    after = state["shut_for_restart"][rows]
    after = np.where(restarted, shut & (shut_for <= MAINTENANCE_S / interval_s), after).astype(np.int32)
    n = len(frame.links)
    training_now = (np.fromiter((li.device in training for li in frame.links), dtype=bool, count=n) if training
                    else np.zeros(n, dtype=bool))
    # counted while the switch has brought links of its own back up: one drained whole, its ports all shut
    # through the restart, is still in its maintenance (its act's end is `_left_by_its_act`'s to judge)
    after = np.where(shut & (after > 0), after + (~training_now & _with_links_up(frame, shut)), 0)
    state["shut_for_restart"][rows] = after
    out = {}
    for i in np.nonzero(after > DOWN_INTERVALS)[0].tolist():
        li = frame.links[i]
        out[i] = RuleHit("warning", f"administratively down since before {li.device}'s restart, "
                                    f"{(shut_for[i] * interval_s) / 60:,.0f} min, while its other links came back: "
                                    "shut for the maintenance and not enabled again?", "left_shut")
    for i, words in _left_by_its_act(frame, rows, state, shut, shut_for, interval_s).items():
        out.setdefault(i, RuleHit("warning", words, "left_shut"))
    return out


def _with_links_up(frame: FeatureFrame, shut: np.ndarray) -> np.ndarray:
    """Per link, whether its switch has a link up now that is not shut."""
    up = ~shut & (np.nan_to_num(frame.reading("oper_status"), nan=1.0) >= 0.5)
    device = frame.layout.device_ids
    return np.bincount(device[up], minlength=int(device.max(initial=-1)) + 1)[device] > 0


def _left_by_its_act(frame: FeatureFrame, rows: np.ndarray, state: LinkState, shut: np.ndarray,
                     shut_for: np.ndarray, interval_s: float) -> dict[int, str]:
    """Ports still shut DOWN_INTERVALS after others shut in the same maintenance were enabled again: others of
    their switch shut within MAINTENANCE_S of them, of any switch within ACT_S. Ports shut at one moment are one
    act: a port shut nearer in time to others still shut than to any enabled again is in an act still going on
    (a quick swap done inside a longer window does not end the window)."""
    now = frame.start_ns
    since = state["shut_since"][rows]
    admin = frame.reading("admin_status")
    enabled = ~shut & (since > 0) & (admin >= 0.5)
    state["enabled_at"][rows[enabled]] = now
    state["enabled_shut_since"][rows[enabled]] = since[enabled]
    since = np.where(shut, np.where(shut_for == 1, now, since), 0)  # only a shut seen happening has a time
    state["shut_since"][rows] = since
    wait_ns = DOWN_INTERVALS * interval_s * 1e9
    left = np.flatnonzero(shut & (since > 0) & (now - since > wait_ns))
    if not len(left):
        return {}
    at, began = state["enabled_at"][rows], state["enabled_shut_since"][rows]
    enabled_before = np.flatnonzero((at > 0) & (now - at > wait_ns))
    device = frame.layout.device_ids
    still = np.flatnonzero(shut & (since > 0))
    out = {}
    for i in left.tolist():
        js = enabled_before[(enabled_before != i) & (at[enabled_before] >= since[i])]
        apart = np.abs(began[js] - since[i])
        near = (apart <= ACT_S * 1e9) | ((device[js] == device[i]) & (apart <= MAINTENANCE_S * 1e9))
        back, apart = js[near], apart[near]
        ks = still[still != i]
        with_it = np.abs(since[ks] - since[i])
        with_it = with_it[(with_it <= ACT_S * 1e9) | ((device[ks] == device[i]) & (with_it <= MAINTENANCE_S * 1e9))]
        if len(back) and len(with_it) and with_it.min() < apart.min():
            continue  # shut with others still shut: their act goes on
        if len(back):
            where = sorted({frame.links[j].device for j in back.tolist()})
            out[i] = (f"administratively down for {(now - since[i]) / 6e10:,.0f} min while {len(back)} other "
                      f"port(s) shut in the same maintenance ({', '.join(where[:3])}"
                      f"{', ...' if len(where) > 3 else ''}) were enabled again: not enabled with them?")
    return out
