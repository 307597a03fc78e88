"""A NIC's transport retries as the witness of loss on the path behind it. A retry (an ack that timed out, a
sequence NAK, an adaptive retransmission) counts a packet lost anywhere between two endpoints. Where the fabric's
switches are watched, the hop that lost it is found by its own counters: while the NIC's own switch (the one hop
surely on its path) loses beyond its background, its retries are that switch's; while it does not, a NIC retrying
far above its background alone lost them at its own end (the NIC, its host, or a cable no switch counts on), and
that is a finding on it (loss farther away reaches the NICs of many flows at once: their crowd's). Where no switch
is watched (a tenant sees only its hosts) and its far end is not heard, the NIC is the only witness, and its
retries far above its background are a finding on it. Retries many NICs show at once (a job slowed by a drop
elsewhere, or aborting) are their situation's, as a crowd of drops is, and stay so in the windows that hold them."""

from __future__ import annotations

import numpy as np

from fabricwatch.core.counters import EVIDENCE, Evidence
from fabricwatch.detection.conditions import dropping_now
from fabricwatch.detection.crowds import _crowd, alike
from fabricwatch.detection.explain import GROUP_MARGIN
from fabricwatch.models.background import EVIDENCE_NAMES, WITHIN_SPEC, BackgroundRates
from fabricwatch.models.features import DOWN_ROLES, SPREAD_ROLES, FeatureFrame
from fabricwatch.models.groups import FACING_HOSTS

SWITCH_ROLES = SPREAD_ROLES | DOWN_ROLES | {FACING_HOSTS}
PATH_COLUMNS = np.array([k for k, n in enumerate(EVIDENCE_NAMES) if EVIDENCE[n] is Evidence.PATH])
LOSS_COLUMNS = np.array([k for k, n in enumerate(EVIDENCE_NAMES) if EVIDENCE[n] in (Evidence.ERROR, Evidence.DISCARD)])
# intervals a hop's loss explains retries after it was last seen: a switch polled every other interval, and a
# transport whose retry timers fire a while after the loss
LOSS_EXPLAINS = 2


class PathWitness:
    """Whether the fabric's switches are watched, once any has been heard (a switch polled less often than the NICs,
    or its collector down a while, leaves frames with no switch in them, and the NICs are no more the only
    witnesses then), and which switches lost packets lately."""

    def __init__(self) -> None:
        self.switches_heard = False
        # switch -> intervals for which its last loss still explains retries ("" : any switch's, for NICs whose
        # switch is not known)
        self.losing: dict[str, int] = {}

    def observe(self, frame: FeatureFrame, counts: np.ndarray, background: BackgroundRates,
                interval_s: float) -> None:
        """Note whether switches are watched and which lose beyond their background now (`counts`: the interval's
        evidence counts, before a crowd's drops are taken out: a crowd's drops are loss on its path too)."""
        layout = frame.layout
        n = len(frame.links)
        switch = layout.memo("switch_rows", lambda: np.array([role in SWITCH_ROLES for role in layout.roles],
                                                              dtype=bool).reshape(n))
        self.switches_heard |= bool(switch.any())
        self.losing = {d: k - 1 for d, k in self.losing.items() if k > 1}
        if not self.switches_heard:
            return
        losing = np.nonzero(dropping_now(frame, counts, background, interval_s, LOSS_COLUMNS, among=switch))[0]
        for i in losing.tolist():
            self.losing[layout.devices[i]] = self.losing[""] = LOSS_EXPLAINS + 1

    def unexplained(self, frame: FeatureFrame) -> np.ndarray:
        """Per row, whether no watched hop explains the link's retries (`observe` first). Where switches are
        watched: its own switch (its far end's) not losing beyond its background now or lately (the one hop surely
        on its path; loss farther away reaches many NICs at once, whose crowd is its); any switch, where its own is
        not known. Where none is: its far end not heard now."""
        layout = frame.layout
        n = len(frame.links)
        if not self.switches_heard:
            heard = layout.heard
            return np.fromiter((far not in heard for far in layout.far_devices), dtype=bool, count=n)
        if not self.losing:
            return np.ones(n, dtype=bool)
        return np.fromiter((far not in self.losing for far in layout.far_devices), dtype=bool, count=n)

    def witnessed(self, frame: FeatureFrame, counts: np.ndarray, background: BackgroundRates,
                  interval_s: float) -> None:
        """Take out of `counts` (the interval's evidence counts, changed here) the retries no finding may rest
        on: those a watched hop explains, and those of links retrying beyond their background together
        with much of their situation now, each within GROUP_MARGIN of what the crowd's links retry (a few NICs
        retrying their usual few at the moment one retries a thousand times make no crowd of that one)."""
        counts[np.ix_(~self.unexplained(frame), PATH_COLUMNS)] = 0.0
        retries = np.nansum(counts[:, PATH_COLUMNS], axis=1)
        beyond = dropping_now(frame, counts, background, interval_s, PATH_COLUMNS)
        crowd = _crowd(frame, beyond) if beyond.any() else beyond
        if crowd.any():
            crowd &= retries <= GROUP_MARGIN * float(np.median(retries[crowd]))
        if self.switches_heard:
            # a hop losing what no switch counts beyond its background reaches the NICs of the flows crossing it,
            # several at once (of one machine across its rails, or of several), alike: a NIC retrying alone lost
            # them at its own end. Retrying: at least one, and beyond what a path of links within their error
            # budget loses (healthy NICs retrying now and then are no crowd)
            retrying = dropping_now(frame, counts, background, interval_s, PATH_COLUMNS, least=1.0,
                                    share=WITHIN_SPEC)
            crowd |= alike(retries, retrying, GROUP_MARGIN)
        counts[np.ix_(crowd, PATH_COLUMNS)] = 0.0

