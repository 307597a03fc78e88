"""A queue dropping alone at the light load its group carries. The links a switch spreads its traffic over carry the
same load (adaptive routing sprays packets evenly; a hash, nearly so), and their queues fill alike: at the tail of
a busy queue they drop, which the class's tails (`models/drop_shares.py`) judge (near line rate one queue reaches
its tail before the others). A light load (under BUSY_PCT) fills no queue to its tail: a queue that drops there
while the queues beside it, carrying as much, drop nothing is the link's: a lossless queue set up wrong, a buffer
fault. Its own background, learned over the
busy hours its group dropped in together, would hide it. Only a queue's drops (egress): a port's ingress discards
count control-plane packets and unknown protocols, which a port sees whatever its siblings do."""

from __future__ import annotations

import numpy as np

from fabricwatch.core.hits import RuleHit
from fabricwatch.models.drop_shares import BUSY_PCT
from fabricwatch.models.features import OWN_NAMES, FeatureFrame, LinkState, spread_ids
from fabricwatch.models.groups import OUTLIER_K, OUTLIER_N

QUEUE_DROPS = ("out_discards", "buffer_discards", "xmit_discards")
SAME_LOAD = 0.25  # of its group's median load: a member carrying this much more is another queue's situation
LEAST_DROPS = 2.0  # packets in an interval: one is no queue's habit
MIN_LOAD = 1.0  # % of line rate its group carries: below it, nothing fills a queue to compare
STATE = {"alone": ((), np.uint8)}
UTIL = OWN_NAMES.index("util_pct")


def dropping_alone(frame: FeatureFrame, rows: np.ndarray, state: LinkState, quiet: np.ndarray,
                   interval_s: float) -> dict[int, RuleHit]:
    """Links whose queue drops at a light load while every other link of their spread group, at the same load,
    drops none, in OUTLIER_K of the last OUTLIER_N intervals; `quiet`: links settling or acted on, not judged now."""
    n = len(frame.links)
    present = [c for c in QUEUE_DROPS if frame.rates is None or not np.isnan(frame.reading(c)).all()]
    drops = np.zeros(n)
    for c in present:
        drops += frame.rate(c) * interval_s
    names, gid, member = spread_ids(frame.layout)
    util = np.nan_to_num(frame.own_raw[:, UTIL])
    group = np.nan_to_num(frame.group_util) if frame.group_util is not None else np.zeros(n)
    dropping = drops >= LEAST_DROPS
    same = member & (group >= MIN_LOAD) & (util < BUSY_PCT) & (np.abs(util - group) <= SAME_LOAD * group)
    droppers = np.bincount(gid[member & dropping], minlength=len(names))
    alone = same & dropping & (droppers[gid] == 1) & ~quiet
    bits = ((state["alone"][rows] << 1) | alone.astype(np.uint8)) & np.uint8((1 << OUTLIER_N) - 1)
    state["alone"][rows] = bits
    out = {}
    for i in np.nonzero(alone & (np.bitwise_count(bits) >= OUTLIER_K))[0].tolist():
        size = int(np.count_nonzero(gid == gid[i]))
        out[i] = RuleHit("warning", f"queue drops {drops[i] / interval_s:,.3g}/s at {util[i]:.0f}% load while the "
                                    f"{size - 1} other links of {names[gid[i]]}, at {group[i]:.0f}%, drop none, in "
                                    f"{int(np.bitwise_count(bits[i]))} of the last {OUTLIER_N} intervals: this "
                                    "link's queue, not the load", "drops_alone")
    return out

