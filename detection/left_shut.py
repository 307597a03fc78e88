"""State is a signal, and an operator's act is not a fault until the act is over. A port shut on a running
switch is planned however long it stays shut. A port shut shortly before its switch restarts was shut for
that maintenance (an optic cleaned, a module swapped before the firmware update): once the switch is back and
has brought its other links up, one still shut had its re-enable forgotten, and the fabric runs a link short.
"""

from __future__ import annotations

import numpy as np

from fabricwatch.core.hits import RuleHit
from fabricwatch.detection.conditions import DOWN_INTERVALS
from fabricwatch.models.features import FeatureFrame, LinkState

MAINTENANCE_S = 3600.0  # a shut this long before the restart belongs to the same maintenance
UNSEEN = 1 << 30  # intervals shut, for a port already shut when first seen: nobody here saw when
STATE = {"shut_for": ((), np.int32), "shut_for_restart": ((), np.int32)}


def left_shut(frame: FeatureFrame, rows: np.ndarray, state: LinkState, restarted: np.ndarray,
              training: set[str], interval_s: float) -> dict[int, RuleHit]:
    """Ports still administratively down DOWN_INTERVALS after their switch, back from the restart it was shut
    before, stopped training its links; `restarted`: per link, its device reports again after being unheard.
    Reads `admin_before` (`maintenance.operated_links`, earlier in the interval)."""
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
    after = np.where(shut & (after > 0), after + ~training_now, 0)
    state["shut_for_restart"][rows] = after
    out = {}
    for i in np.nonzero(after > DOWN_INTERVALS)[0].tolist():
        li = frame.links[i]
        out[i] = RuleHit("warning", f"administratively down since before {li.device}'s restart, "
                                    f"{(shut_for[i] * interval_s) / 60:,.0f} min, while its other links came back: "
                                    "shut for the maintenance and not enabled again?", "left_shut")
    return out
