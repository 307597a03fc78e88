"""A NIC's transport retries as the witness of loss on the path behind it. A retry (an ack that timed out, a
sequence NAK, an adaptive retransmission) counts a packet lost anywhere between two endpoints. Where the fabric's
switches are watched, the hop that lost it is found by its own counters, and the NIC's retries say nothing of its
link; where none is (a tenant sees only its hosts) and its far end is not heard, the NIC is the only witness, and
its retries far above its background are a finding on it. Retries many NICs show at once (a job slowed by a drop
elsewhere, or aborting) are their situation's, as a crowd of drops is, and stay so in the windows that hold them."""

from __future__ import annotations

import numpy as np

from fabricwatch.core.counters import EVIDENCE, Evidence
from fabricwatch.detection.conditions import dropping_now
from fabricwatch.detection.crowds import _crowd
from fabricwatch.detection.explain import GROUP_MARGIN
from fabricwatch.models.background import EVIDENCE_NAMES, BackgroundRates
from fabricwatch.models.features import DOWN_ROLES, SPREAD_ROLES, FeatureFrame
from fabricwatch.models.groups import FACING_HOSTS

SWITCH_ROLES = SPREAD_ROLES | DOWN_ROLES | {FACING_HOSTS}
PATH_COLUMNS = np.array([k for k, n in enumerate(EVIDENCE_NAMES) if EVIDENCE[n] is Evidence.PATH])


class PathWitness:
    """Whether the fabric's switches are watched, once any has been heard: a switch polled less often than the
    NICs, or its collector down a while, leaves frames with no switch in them, and the NICs are no more the only
    witnesses then."""

    def __init__(self) -> None:
        self.switches_heard = False

    def unwatched(self, frame: FeatureFrame) -> np.ndarray:
        """Per row, whether no hop of the path behind the link is watched: no switch heard yet, and the link's far
        end not heard now."""
        layout = frame.layout
        n = len(frame.links)
        self.switches_heard |= any(role in SWITCH_ROLES for role in layout.roles)
        if self.switches_heard:
            return np.zeros(n, dtype=bool)
        heard = layout.heard
        return np.fromiter((far not in heard for far in layout.far_devices), dtype=bool, count=n)

    def witnessed(self, frame: FeatureFrame, counts: np.ndarray, background: BackgroundRates,
                  interval_s: float) -> None:
        """Take out of `counts` (the interval's evidence counts, changed here) the retries no finding may rest
        on: where a hop of the path is watched, and those of links retrying beyond their background together
        with much of their situation now, each within GROUP_MARGIN of what the crowd's links retry (a few NICs
        retrying their usual few at the moment one retries a thousand times make no crowd of that one)."""
        counts[np.ix_(~self.unwatched(frame), PATH_COLUMNS)] = 0.0
        beyond = dropping_now(frame, counts, background, interval_s, PATH_COLUMNS)
        if not beyond.any():
            return
        crowd = _crowd(frame, beyond)
        if not crowd.any():
            return
        retries = np.nansum(counts[:, PATH_COLUMNS], axis=1)
        crowd &= retries <= GROUP_MARGIN * float(np.median(retries[crowd]))
        counts[np.ix_(crowd, PATH_COLUMNS)] = 0.0
