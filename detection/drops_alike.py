"""Drops a busy link shares with a link carrying as much. A queue drops at its tail the more the busier it runs,
and a hash can pile the traffic a switch spreads over several links on two or three of them: those drop, the
others do not. A link dropping while another link of its spread group, at the same load, drops now and dropped
within GROUP_MARGIN of it over the window its verdict judged (the margin the group rule asks of a link standing
out of its situation: drops grow faster than load, and tails are heavy), the links that drop being the group's
busiest now (every calm link carries less, and they SAME_LOAD more than the group's median: piled on), does what
that load does; a fault drops alone or far beyond it, and a witness's old burst excuses nothing now. Where every
link of the group drops (a trickle of control-plane packets on all of a switch's ports) none stands out as the
busiest: no witness. Below BUSY_PCT no queue fills, and drops shared there are no load's (`lone_drops`); links
that drop together at about their group's load are a line card or a switch, not a hash (`findings`: one device
finding)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from fabricwatch.core.counters import EVIDENCE, Evidence
from fabricwatch.detection.conditions import CROWD_LEAST
from fabricwatch.detection.explain import GROUP_MARGIN
from fabricwatch.detection.lone_drops import SAME_LOAD
from fabricwatch.models.background import EVIDENCE_NAMES, WINDOWS, EvidenceWindows
from fabricwatch.models.drop_shares import BUSY_PCT
from fabricwatch.models.features import OWN_NAMES, FeatureFrame, spread_ids

UTIL = OWN_NAMES.index("util_pct")
RECENT_WINDOW = WINDOWS[0]  # intervals a witness must have dropped in: now, not once in the window
_DISCARDS = np.array([k for k, n in enumerate(EVIDENCE_NAMES) if EVIDENCE[n] is Evidence.DISCARD])


def _habit(windows: EvidenceWindows, key: tuple[str, str], window: int) -> tuple[float, float, bool] | None:
    """(drops over the last `window` intervals, mean utilisation over them, whether it drops now: CROWD_LEAST or
    more in its last RECENT_WINDOW intervals), or None when nothing is held."""
    held = windows.held(key)
    if held is None:
        return None
    counts, util = held
    drops = counts[-window:, _DISCARDS].sum(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        load = float(np.nanmean(util[-window:]))
    return float(drops.sum()), load, float(drops[-RECENT_WINDOW:].sum()) >= CROWD_LEAST


def drops_alike(frame: FeatureFrame, i: int, windows: EvidenceWindows, window: int = RECENT_WINDOW) -> str | None:
    """The link of row i's spread group that carried as much as it over the last `window` intervals (the window a
    verdict judged), drops now and dropped within GROUP_MARGIN of what row i dropped in them, where the links of the
    group that drop are its busiest now (every calm link of the group carries less than both, and both carry
    SAME_LOAD more than the group's median: the traffic piled on them), as "device port", or None."""
    _names, gid, member = spread_ids(frame.layout)
    keys = frame.layout.keys
    if not member[i] or (own := _habit(windows, keys[i], window)) is None or not own[1] >= BUSY_PCT:
        return None
    drops, load, _ = own
    group = [j for j in np.nonzero(member & (gid == gid[i]))[0].tolist() if j != i]
    habits = {j: _habit(windows, keys[j], window) for j in group}
    util = np.nan_to_num(frame.own_raw[:, UTIL])
    median = float(frame.group_util[i]) if frame.group_util is not None else math.nan
    calm = [j for j in group if (h := habits[j]) is None or not h[2]]
    for j in group:
        theirs = habits[j]
        if theirs is None or not theirs[2] or not abs(theirs[1] - load) <= SAME_LOAD * load:
            continue
        least = min(util[i], util[j])
        busiest = calm and max(util[k] for k in calm) < least and least > (1 + SAME_LOAD) * median
        if theirs[0] * GROUP_MARGIN >= drops and busiest:
            return f"{frame.links[j].device} {frame.links[j].port}"
    return None
