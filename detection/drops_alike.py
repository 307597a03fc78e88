"""Drops a busy link shares with a link carrying as much. A queue drops at its tail the more the busier it runs,
and a hash can pile the traffic a switch spreads over several links on two or three of them: those drop, the
others do not. A link dropping while a link of its spread group, at the same load over the window, drops within
GROUP_MARGIN of it (the margin the group rule asks of a link standing out of its situation: drops grow faster
than load, and tails are heavy) does what that load does; a fault drops alone or far beyond it. Below BUSY_PCT no
queue fills, and drops shared there are no load's (`lone_drops`)."""

from __future__ import annotations

import warnings

import numpy as np

from fabricwatch.core.counters import EVIDENCE, Evidence
from fabricwatch.detection.explain import GROUP_MARGIN
from fabricwatch.detection.lone_drops import SAME_LOAD
from fabricwatch.models.background import EVIDENCE_NAMES, EvidenceWindows
from fabricwatch.models.drop_shares import BUSY_PCT
from fabricwatch.models.features import FeatureFrame, spread_ids

_DISCARDS = np.array([k for k, n in enumerate(EVIDENCE_NAMES) if EVIDENCE[n] is Evidence.DISCARD])


def _habit(windows: EvidenceWindows, key: tuple[str, str]) -> tuple[float, float] | None:
    """(drops over the window held, mean utilisation over it), or None when nothing is held."""
    held = windows.held(key)
    if held is None:
        return None
    counts, util = held
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        load = float(np.nanmean(util))
    return float(counts[:, _DISCARDS].sum()), load


def drops_alike(frame: FeatureFrame, i: int, windows: EvidenceWindows) -> str | None:
    """The link of row i's spread group that carried as much as it over the window and dropped within
    GROUP_MARGIN of it, as "device port", or None."""
    li = frame.links[i]
    own = _habit(windows, (li.device, li.port))
    if own is None or not own[1] >= BUSY_PCT:
        return None
    drops, load = own
    _names, gid, member = spread_ids(frame.layout)
    if not member[i]:
        return None
    for j in np.nonzero(member & (gid == gid[i]))[0].tolist():
        other = frame.links[j]
        if j == i or (theirs := _habit(windows, (other.device, other.port))) is None:
            continue
        if abs(theirs[1] - load) <= SAME_LOAD * load and theirs[0] * GROUP_MARGIN >= drops:
            return f"{other.device} {other.port}"
    return None
