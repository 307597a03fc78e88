"""Conditions of one link turned into rule hits: evidence above its background, drops beyond its
load, a link left down, a link standing out of its group."""

from __future__ import annotations

import math
import time
from collections.abc import Set as AbstractSet

import numpy as np

from fabricwatch.core.counters import EVIDENCE, Evidence
from fabricwatch.core.hits import RuleHit
from fabricwatch.detection.explain import DISCARDS, Siblings, piled_on
from fabricwatch.models.background import EVIDENCE_NAMES, WIRE_CORRUPTION, WITHIN_SPEC, BackgroundRates, Verdict
from fabricwatch.models.class_model import UTIL, ClassModel
from fabricwatch.models.features import (
    OWN_NAMES,
    FeatureFrame,
)
from fabricwatch.models.groups import OUTLIER_K, OUTLIER_N

ERRORS = OWN_NAMES.index("errors")
OUTLIER_CRITICAL = 30.0
OUTLIER_MIN_UTIL = 5.0  # % of line rate: per unit of load, a few waits on an idle link are a ratio of near-zeros
# a pause holds a link for at most its full quanta (65,535 x 512 bit times): pauses that could not have held it
# PAUSED_SHARE of the time cost no job anything, however far above its group's near-nothing
PAUSE_HOLD_BITS = 65_535 * 512
PAUSED_SHARE = 0.01
CROWD_REPEATS = 2  # intervals of the last OUTLIER_N a link of a crowd stood out in: once is a heavy tail
# switches of one role showing the same outlier at once: faults are rare and independent, so that many at the
# same moment are what their links share (traffic towards one place), not that many faults
OUTLIER_SWITCHES = 3
DOWN_INTERVALS = 4  # intervals in a row a link stays down before it is a finding (a bounce is the flap rule's)


def _utc(ns: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ns / 1e9))
LOSS_CRITICAL = 1e-6  # counted per packet moved: where RDMA's go-back-N retransmissions start to cost
RECOVERIES_CRITICAL = 3  # link recoveries in a window: each stalls the link


def _drops_within_load(frame: FeatureFrame, i: int, v: Verdict, interval_s: float, model: ClassModel | None,
                       siblings: Siblings, carried: tuple[np.ndarray, np.ndarray] | None = None) -> bool:
    """The window's drops are what a link at this load drops: under the healthy ceiling of its class
    (and of this link) at its utilisation, what the class's links dropped at their queues' tails at the
    loads the window's intervals carried (`carried`: their packets and utilisation; where the traffic is not
    piled on this link alone now), or within reach of its siblings' drops now."""
    rate = v.total / (v.window * interval_s)
    util = float(np.nan_to_num(frame.own_raw[i, UTIL]))
    li = frame.links[i]
    if model is not None and rate <= model.ceiling(util, DISCARDS, (li.device, li.port)):
        return True
    if model is not None and carried is not None and not piled_on(frame, i, util):
        packets, loads = carried
        allowed = sum(model.drop_share(v.name, u) * p for p, u in zip(packets.tolist(), np.nan_to_num(loads).tolist(),
                                                                        strict=True))
        if v.total <= allowed:
            return True
    return siblings.like(i, DISCARDS, float(np.nan_to_num(frame.own_raw[i, DISCARDS]))) is not None


DISCARD_COLUMNS = np.array([k for k, n in enumerate(EVIDENCE_NAMES) if EVIDENCE[n] is Evidence.DISCARD])
CROWD_OVER = 3.0  # times a link's background drops per interval, and at least CROWD_LEAST packets
CROWD_LEAST = 2.0


def dropping_now(frame: FeatureFrame, counts: np.ndarray, background: BackgroundRates, interval_s: float,
                 columns: np.ndarray = DISCARD_COLUMNS, *, least: float = CROWD_LEAST, share: float = 0.0,
                 among: np.ndarray | None = None) -> np.ndarray:
    """Links dropping now beyond their own background (`counts`: the interval's evidence counts; `columns`: the
    counters that count the drops): at least `least` packets, at least `share` of the packets they moved, and more
    than CROWD_OVER times their usual; only `among` these rows when given. A crowd of drops is made of these. A
    switch's ports that each drop their usual trickle (control-plane packets) are no crowd that excuses one of them
    dropping far more."""
    drops = np.nansum(counts[:, columns], axis=1)
    candidate = drops >= least
    if share > 0.0:
        packets = np.nan_to_num(frame.rate("in_pkts")) + np.nan_to_num(frame.rate("out_pkts"))
        candidate &= drops >= share * packets * interval_s
    if among is not None:
        candidate &= among
    out = np.zeros(len(frame.links), dtype=bool)
    for i in np.nonzero(candidate)[0].tolist():
        li = frame.links[i]
        usual = float(background.background((li.device, li.port), frame.classes[i]).rate[columns].sum())
        out[i] = drops[i] > CROWD_OVER * usual * interval_s
    return out


def _evidence_hit(v: Verdict, interval_s: float) -> RuleHit:
    """A counter above its background as a finding named by that counter, with its impact."""
    every = f"1 in {1 / v.expected_share:,.0f} intervals" if v.expected_share > 0 else "never"
    rate_h = v.expected_rate * 3600
    words = (f"{v.name} {v.total:,.0f} in the last {v.window * interval_s / 60:g} min ({v.erred} of {v.window} "
             f"intervals), where its background is {every} ({rate_h:,.2g}/h); p=1e{v.log10_p:.0f}")
    if v.evidence is Evidence.INTEGRITY:
        severe = v.total >= RECOVERIES_CRITICAL
        words += ": the link keeps retraining (cable, optic or port?)"
    elif v.evidence is Evidence.STATE:
        severe = v.total >= RECOVERIES_CRITICAL
        words += ": the link goes down again and again (cable, optic, port or the NIC?)"
    else:
        severe = v.share_of_packets >= LOSS_CRITICAL
        if math.isfinite(v.share_of_packets):
            words += f", {v.share_of_packets:.2g} of its packets"
        if v.name in WIRE_CORRUPTION and v.share_of_packets < WITHIN_SPEC:
            words += ", within the error budget still, in most intervals: the link begins to degrade"
        words += {Evidence.ERROR: ": corruption on the wire (optic, cable or connector?)",
                  Evidence.DISCARD: ": the port drops packets",
                  Evidence.PATH: ": packets lost on the path behind this NIC, sent again, while its own switch "
                                 "loses nothing beyond its usual (the NIC or its host, its cable, a hop nobody "
                                 "watches?)"}[v.evidence]
    condition = {"fec_uncorrectable": "fec_uncorrectable"}.get(v.name, {
        Evidence.ERROR: "corruption", Evidence.DISCARD: "discards", Evidence.INTEGRITY: "link_recovery",
        Evidence.STATE: "link_bounces", Evidence.PATH: "path_loss"}[v.evidence])
    return RuleHit("critical" if severe else "warning", words, condition)


def on_many_switches(frame: FeatureFrame, held: np.ndarray) -> np.ndarray:
    """(n, signals): the links whose signal stands out (`held`) while the same signal stands out on links of
    the same role on OUTLIER_SWITCHES switches or more at the same moment: what those links share."""
    out = np.zeros(held.shape, dtype=bool)
    crowded_signals = np.nonzero(held.sum(axis=0) >= OUTLIER_SWITCHES)[0]
    if not len(crowded_signals):
        return out
    role, device = frame.layout.role_ids, frame.layout.device_ids
    for j in crowded_signals.tolist():
        rows = np.nonzero(held[:, j])[0]
        pairs = np.unique(np.column_stack([role[rows], device[rows]]), axis=0)
        roles, switches = np.unique(pairs[:, 0], return_counts=True)
        out[rows[np.isin(role[rows], roles[switches >= OUTLIER_SWITCHES])], j] = True
    return out


class DeviceHold:
    """Which devices show a condition in OUTLIER_K of their last OUTLIER_N reports. A device not heard in an
    interval (polled at another moment) holds what it showed: its own reports count, not the intervals."""

    def __init__(self) -> None:
        self._bits: dict[str, int] = {}

    def update(self, heard: AbstractSet[str], showing: set[str]) -> set[str]:
        """`heard`: the devices reporting now; `showing`: those of them with the condition now. The held ones."""
        mask = (1 << OUTLIER_N) - 1
        held = set()
        for device in (set(self._bits) | showing) & heard:
            bits = ((self._bits.get(device, 0) << 1) | (device in showing)) & mask
            if bits:
                self._bits[device] = bits
            else:
                self._bits.pop(device, None)
            if device in showing and bits.bit_count() >= OUTLIER_K:
                held.add(device)
        return held

    def forget(self, devices: set[str]) -> None:
        for d in devices:
            self._bits.pop(d, None)
