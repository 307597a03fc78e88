"""ECN off or set too high on a switch: a link that marks nothing, or next to nothing, while its
load-matched peers mark. A log-scaled feature near zero cannot show this to the forest as strongly as
the fact itself, so it is tested directly, at once (then hysteresis)."""

from __future__ import annotations

import numpy as np

from fabricwatch.detection.explain import ECN
from fabricwatch.detection.findings import DEVICE_MIN_PORTS
from fabricwatch.models.features import OWN_NAMES, FeatureFrame, LinkState
from fabricwatch.models.groups import OUTLIER_K, OUTLIER_N
from fabricwatch.models.silence import (
    INSTANT_RECORD,
    PAUSING_MORE,
    SEEN_SILENT,
    SIGNALS,
    UNSEEN_GRACE,
    SilentRuns,
    calm,
    dropping,
    marking_fully,
    marking_switches,
    pausing_at_all,
    pausing_ratio,
    weak_now,
    witnessed_queues,
)

# per link: 1 + the intervals since its silence was last found, none of them judged (0: judged or marking since);
# and whether its silence beside marking ports of its switch was found in each of the last OUTLIER_N that judged it
# (forgotten once not judged for LONE_FORGOTTEN intervals)
STATE = {"ecn_unseen": ((), np.int32), "lone_silent": ((), np.uint8), "lone_unjudged": ((), np.int32)}
ECN_PEER_MIN = 200.0  # marks per 1M packets sent among peers (100 per 1M both ways) before silence counts
# intervals unjudged after which a lone port's past silences say nothing of now: a job's all-to-all phases come
# minutes apart, last week's two silences and one now are no silence that holds
LONE_FORGOTTEN = 16


def missing_marks(frame: FeatureFrame, judged: np.ndarray, silent: np.ndarray, silent_runs: SilentRuns,
                  state: LinkState, rows_of: np.ndarray) -> np.ndarray:
    """Links that mark nothing while their load-matched peers mark (ECN disabled or misconfigured on the
    switch), or mark next to nothing where most of their switch's ports do the same while it pauses.
    `state`/`rows_of`: each link's row of the detector's state (a lone port's silence must hold)."""
    # `silent` (silent_now): most load-matched peers on other switches mark; this link does not
    j = SIGNALS.index("ecn_per_mpkt")
    enough = frame.class_median_raw[:, ECN] >= ECN_PEER_MIN
    out = silent[:, j] & enough
    # marking next to nothing is ECN set too high where the switch's queues reach the pause threshold
    weak = weak_now(frame, judged)[:, j] & enough
    rows = np.nonzero(out | weak)[0]
    # a profile is configuration: it does not come and go with the traffic, as a port whose bursts cross the marking
    # threshold now and then does, so a lone port's silence, unlike its switch's, must hold (OUTLIER_K of the last
    # OUTLIER_N intervals that judge it)
    lone = np.zeros(len(out), dtype=bool)
    if len(rows):
        # the switch port whose queue marks what each link counts: a NIC behind a switch that exports no ECN
        # counter witnesses that switch, and that switch's pausing and calm are what its marks are judged by
        queue = witnessed_queues(frame)
        # not at once where healthy history saw the link silent for stretches while its peers marked (a
        # storage leaf's streams fill no queue): that is left to `gone_quiet`, which knows its record
        rec = silent_runs.records([(frame.links[i].device, frame.links[i].port) for i in rows.tolist()])
        # nor where its switch pauses clearly less than the switches that mark (under half their median, which a
        # storm elsewhere can lift among few): a queue ECN does not mark fills to the pause threshold, so a switch
        # with ECN off pauses at least as they do; this traffic fills no queue now. One with PFC off as well
        # (factory defaults) pauses nothing and drops what they would pause: judged at once where it drops
        # PAUSING_MORE times what they do
        pausing = pausing_ratio(frame, queue[rows], among=marking_switches(frame))
        # nor where healthy history saw it judged too seldom for a record but silent as a habit, each time or for
        # runs (a storage leaf's ports at checkpoints): its silence may be its traffic's
        habit = rec[:, j] == SEEN_SILENT
        out[rows] &= ~habit & (rec[:, j] <= INSTANT_RECORD) & ~calm(frame, queue[rows])
        # an ECN profile is set per switch (or per group of its ports): one port's silence beside ports of its switch
        # that still mark is its traffic's mix as often as not (an uplink carrying another job's streams; marking that
        # follows transient hot receivers leaves a port silent for an interval now and then while its peers mark), so
        # it is a finding at once only where DEVICE_MIN_PORTS of the switch's ports, and most of those of their role
        # that can be judged now, are silent with it (`_switch_wide`), and once it holds (`lone`) where its queue
        # shows that it fills unmarked: its switch pausing PAUSING_MORE times the switches that mark (a lossless queue
        # fills to the pause threshold; against every switch of the role, idle ones would make any pausing look
        # infinite), or the port
        # dropping PAUSING_MORE times its class now where its switch sends no pause (a lossy queue overflows at its
        # tail; where PFC holds it, a lossless one drops nothing of what ECN would have slowed, so its drops are not
        # this)
        at = np.nonzero(out[rows])[0]
        if len(at):
            found = rows[at]
            together = _switch_wide(frame, found, judged[:, j], queue)
            where_no_pause_holds = ~pausing_at_all(frame, queue[found])
            lone[found] = ~together & ((pausing[at] >= PAUSING_MORE)
                                       | (where_no_pause_holds & (dropping(frame, found) >= PAUSING_MORE)))
            out[found] = together
        # weak marking likewise, whatever the record, on most of the switch's judgeable ports whatever their role
        # (one port marking little while its switch pauses is as often that port's traffic mix; a port group
        # beside an incast that lifts their class's marking, storage-facing ports at a checkpoint, that incast),
        # and only where none of its ports marks as its peers do (a queue that fills and is marked: the pauses
        # are its congestion's, and the profile marks)
        weak_rows = rows[weak[rows] & (pausing >= PAUSING_MORE) & ~marking_fully(frame, rows)]
        if len(weak_rows):
            out[weak_rows] |= _switch_wide(frame, weak_rows, judged[:, j], queue, by_role=False)
    # over the intervals that judge it: a port whose peers mark only in a job's all-to-all phases is judged then
    now = judged[:, j] & enough
    unjudged = np.where(now, 0, state["lone_unjudged"][rows_of] + 1)
    state["lone_unjudged"][rows_of] = unjudged
    bits = np.where(unjudged > LONE_FORGOTTEN, np.uint8(0), state["lone_silent"][rows_of])
    bits = np.where(now, ((bits << 1) | lone.astype(np.uint8)) & np.uint8((1 << OUTLIER_N) - 1), bits)
    state["lone_silent"][rows_of] = bits
    return out | (lone & (np.bitwise_count(bits) >= OUTLIER_K))


def _switch_wide(frame: FeatureFrame, rows: np.ndarray, judged: np.ndarray, queue: np.ndarray,
                 by_role: bool = True) -> np.ndarray:
    """For each of `rows`: whether its switch shows the same on DEVICE_MIN_PORTS of its ports and on at least
    half of its ports that can be judged now, of the same role (`by_role`) or of any. An ECN profile is set per
    switch or per group of its ports (host-facing, fabric-facing): off, it leaves every port of the group silent;
    a few silent among many marking ones are their receivers' traffic."""
    topo = frame.layout
    device = topo.device_ids[queue]  # the switch whose queues mark what each link counts (`witnessed_queues`)
    group = device * (int(topo.role_ids.max(initial=0)) + 1) + topo.role_ids if by_role else device
    silent_in = np.bincount(group[rows], minlength=int(group.max(initial=-1)) + 1)
    judged_in = np.bincount(group[np.nonzero(judged)[0]], minlength=len(silent_in))
    silent_on = np.bincount(device[rows], minlength=int(device.max(initial=-1)) + 1)
    mine = group[rows]
    return (silent_on[device[rows]] >= DEVICE_MIN_PORTS) & (silent_in[mine] >= judged_in[mine] / 2)


def held_silence(frame: FeatureFrame, state: LinkState, rows: np.ndarray, missing: np.ndarray, judged: np.ndarray,
                 active: np.ndarray) -> np.ndarray:
    """Active links whose missing marks were found and that the last UNSEEN_GRACE intervals could not judge (the
    fabric fell quiet for a moment: nobody marks): still missing, as a silent run is held that long. An interval
    that judges the link decides again, and so does one in which it marks (its ECN works, whatever its peers
    carry); longer unjudged, its finding goes as any other (what nobody can see is no evidence either way)."""
    marking = np.nan_to_num(frame.own_raw[:, OWN_NAMES.index("ecn_per_mpkt")]) > 0
    unseen = state["ecn_unseen"][rows]
    unseen = np.where(missing, 1, np.where(judged | marking | (unseen == 0), 0, unseen + 1))
    state["ecn_unseen"][rows] = unseen
    return active & ~missing & (unseen >= 2) & (unseen <= UNSEEN_GRACE + 1)
