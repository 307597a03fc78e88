"""Deterministic rules for conditions that need no model: each gives a severity and a reason."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fabricwatch.core.counters import EVIDENCE
from fabricwatch.core.hits import RuleHit
from fabricwatch.models.features import (
    OWN_NAMES,
    FeatureFrame,
    group_medians,
    line_speed,
    nominal_speeds,
    parse_speed,
)
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.topology import first_sight

SPEED_SHORTFALL = 0.95  # negotiated speed under this share of the nominal one: the link trained down
STALLED = 0.02  # of the link's speed: the paused direction has (nearly) stopped
# a port pausing this many times the median port of its switch in its role now pauses on its own; under
# it, the switch pauses its senders alike (its buffers fill because something past it is congested)
STORM_APART = 4.0
MIN_PAUSE_GROUP = 4  # ports of a switch in one role before their median says what the switch does
PAUSE_COLUMNS = [OWN_NAMES.index("pfc_tx"), OWN_NAMES.index("pfc_rx")]


@dataclass(frozen=True)
class RuleConfig:
    pause_storm_per_s: float = 10_000.0  # PFC frames/s sent on one priority: a NIC or port stuck pausing
    # link transitions over the last `flap_window` intervals (this one included): a down and an up
    # once is a reboot, a recabling or maintenance; a flapping link goes down and up again and again
    flaps_warning: float = 2.0
    flaps_critical: float = 4.0
    flap_window: int = 4
    settled_after: int = 2  # intervals without a transition: the link no longer flaps, whatever its window holds


def speed_degraded(li: LinkInterval) -> bool:
    """The link negotiated below its nominal speed (the `speed` tag); False when either is unknown, or while
    the link is down (a port not up reports a rate it trained to nothing at: the kernel's 10 Gb/s)."""
    nominal = li.tags.get("speed")
    negotiated = li.rates.get("speed_bps", 0.0)
    return bool(nominal) and not li.rates.get("oper_status", 1.0) < 0.5 \
        and 0 < negotiated < SPEED_SHORTFALL * parse_speed(nominal)


def speed_degraded_rows(frame: FeatureFrame) -> np.ndarray:
    """`speed_degraded` of every link of a frame at once."""
    nominal = frame.speeds if frame.speeds is not None else nominal_speeds(frame.links)
    negotiated = frame.rate("speed_bps")
    up = ~(frame.reading("oper_status") < 0.5)
    with np.errstate(invalid="ignore"):
        return ~np.isnan(nominal) & up & (negotiated > 0) & (negotiated < SPEED_SHORTFALL * nominal)


def shared_pausing(frame: FeatureFrame) -> np.ndarray:
    """(n, 2): whether the PFC pauses a link sends / receives are within STORM_APART of the median port
    of its device in its role at this moment, while that median port's paused direction still moves: what
    its switch does to all of them, not a storm of its own."""
    n = len(frame.links)
    topo = frame.layout
    gid = topo.memo("device_roles", lambda: first_sight(list(zip(topo.devices, topo.roles, strict=True)))[0])
    n_groups = int(gid.max(initial=-1)) + 1
    if not n:
        return np.zeros((0, 2), dtype=bool)
    values = np.nan_to_num(frame.own_raw[:, PAUSE_COLUMNS])
    # the direction each pauses holds back still moving at the median port: congestion passed back; where
    # the median port's is frozen too, the switch has stopped its senders (a stuck switch): a storm on each
    line = frame.line_bps / 8
    moving = np.column_stack([np.nan_to_num(frame.rate("in_octets")), np.nan_to_num(frame.rate("out_octets"))])
    moving = moving / line[:, None]
    median = group_medians(gid, np.hstack([values, moving]), n_groups)[gid]
    size = np.bincount(gid, minlength=n_groups)[gid]
    flowing = median[:, 2:] >= STALLED
    return (size >= MIN_PAUSE_GROUP)[:, None] & flowing & (values < STORM_APART * median[:, :2])


def full_evidence(li: LinkInterval) -> list[str]:
    """The link's evidence counters at their ceiling: a burst of faults filled them (a counter of load, such
    as credit waits, fills with hours of ordinary congestion: time, not a burst)."""
    return sorted(n for n in li.saturated if n in EVIDENCE) if li.saturated else []


def evaluate(li: LinkInterval, interval_s: float, cfg: RuleConfig = RuleConfig(), *,
             device_event: bool = False, recent_flaps: float = 0.0,
             shared_pauses: tuple[bool, bool] = (False, False), drained: bool = False,
             below_nominal: bool | None = None) -> list[RuleHit]:
    """`recent_flaps`: link transitions over the last `flap_window` intervals. `device_event`: most
    links of this link's device (or of the host at its far end) went down together: a reboot or
    maintenance, which is not N link faults. `shared_pauses`: the pauses it sends / receives are what
    the ports of its switch in its role show alike now (`shared_pausing`): no storm of its own. `drained`: the
    link carried nothing before the transitions of its flap window (its traffic moved off for maintenance):
    one down and up is that act; again and again is still a flap. `below_nominal`: the caller's judgement of
    `speed_degraded` (held over intervals), else this interval's."""
    r = li.rates
    hits: list[RuleHit] = []
    downs = r.get("link_downed", 0.0) * interval_s
    flaps = round(max(r.get("link_transitions", 0.0) * interval_s, recent_flaps))
    window = f"{cfg.flap_window * interval_s:g}s"
    if not device_event:
        # a down is a down and an up: only transitions beyond those the downs make corroborate them (an IB
        # port's transitions are its downs twice over, and one bounce is no more a page there than on Ethernet)
        beyond = flaps - 2 * round(downs)
        if downs >= 0.5 and (downs >= 2 or beyond >= cfg.flaps_warning or r.get("link_error_recovery", 0.0) > 0):
            hits.append(RuleHit("critical", f"link_downed rose by {downs:.0f}: the link went down", "link_down"))
        if flaps >= cfg.flaps_critical:
            hits.append(RuleHit("critical", f"link flapped: {flaps} transitions in the last {window}", "flap"))
        elif flaps >= cfg.flaps_warning and not drained:
            hits.append(RuleHit("warning", f"link flapped: {flaps} transitions in the last {window}", "flap"))
    if speed_degraded(li) if below_nominal is None else below_nominal:
        nominal, negotiated = li.tags.get("speed"), r["speed_bps"]
        # the link trained down (a bad lane, optic or cable): it carries a fraction of what its peers
        # do and every collective through it runs at its pace
        hits.append(RuleHit("critical", f"link runs at {negotiated / 1e9:,.0f}G, below its nominal {nominal}: "
                                        "it renegotiated down (lane, optic or cable?)", "speed_degraded"))
    for name in full_evidence(li):
        hits.append(RuleHit("warning", f"{name} is saturated at its ceiling (value is at least the max)", "saturated"))
    if r.get("excessive_buffer_overrun_errors", 0.0) > 0:
        hits.append(RuleHit("warning", "excessive buffer overrun errors", "buffer_overrun"))
    # a storm is pausing that stops the traffic: a NIC stuck sending pauses freezes what its port
    # would send it (a busy port that pauses hard but keeps moving data is congestion, not a storm); traffic no
    # counter can tell (a 32-bit octet counter on a fast port) is unknown, not stopped
    speed = line_speed(li.tags.get("speed"), r.get("speed_bps")) / 8
    for p in (*range(8), "any"):
        if p == "any" and any(h.condition == "pause_storm" for h in hits):
            break  # the frames of any priority hold those of the priority already found storming
        for sent, direction, frozen, shared in (("tx", "sent", "in_octets", shared_pauses[0]),
                                                ("rx", "received", "out_octets", shared_pauses[1])):
            if shared:
                continue
            rate = r.get(f"pfc_{sent}_{'any' if p == 'any' else f'p{p}'}", 0.0)
            if rate >= cfg.pause_storm_per_s and r.get(frozen, math.inf) < STALLED * speed:
                on = "of a priority its counter does not name" if p == "any" else f"on priority {p}"
                hits.append(RuleHit("critical", f"PFC pause storm: {rate:,.0f} pause frames/s {direction} {on} "
                                                f"while the paused direction carries "
                                                f"{r.get(frozen, 0.0) * 8 / 1e9:,.2f} Gb/s", "pause_storm"))
                break
    return hits
