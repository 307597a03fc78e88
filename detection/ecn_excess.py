"""ECN set too low on a switch: most of its ports carrying traffic mark many times what the links carrying as
much or more on other switches mark, for several intervals. One link marking more than its peers is congestion control
doing its job on a busier link (an incast, hash polarisation); a load every switch marks under is the load's, and
so is what the switches reaching the same far devices (its parallel paths) or serving the same rail mark as much
of;
a whole switch marking where its load-matched peers barely do is its marking profile (WRED thresholds set too
low), and its senders back off for nothing. One device finding lists its ports."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np

from fabricwatch.detection.conditions import DeviceHold
from fabricwatch.detection.explain import ECN
from fabricwatch.detection.findings import DEVICE_MIN_PORTS, Finding
from fabricwatch.models.features import LOAD_BINS, FeatureFrame, marking_load, marks_received
from fabricwatch.models.groups import FACING_HOSTS
from fabricwatch.models.silence import MIN_UTIL, loudest_other, path_ids, rail_ids

EXCESS_RATIO = 10.0  # times what links at the same load on other switches mark
EXCESS_SHARE = 0.5  # of a switch's ports carrying traffic: its profile, not a few busy links
MATERIAL_PER_MPKT = 10_000.0  # one packet in a hundred: marking senders back off from, not a trickle
CRITICAL_RATIO = 30.0


@dataclass(frozen=True)
class Excess:
    device: str
    ports: list[str]
    busy: int  # its ports carrying traffic that could be judged
    marks: float  # median marks per 1M packets of the ports marking in excess
    peers: float  # median of what the links at their loads on other switches mark
    role: str  # the role of most of those ports
    apart: bool  # most of its ports carrying traffic also mark many times what their parallel paths mark


def excess_now(frame: FeatureFrame, hosts: AbstractSet[str] = frozenset()) -> dict[str, Excess]:
    """The switches marking in excess of their load-matched peers now, on most of their ports carrying traffic
    (and whether apart from their parallel paths too); `hosts`: devices known to be hosts (what switches'
    host-facing ports reach)."""
    own = frame.own_raw[:, ECN]
    load = marking_load(frame)
    # the marks a NIC counts were set by the switches towards it: it has no marking profile of its own
    endpoint = marks_received(frame.layout)
    if hosts:
        endpoint = endpoint | np.fromiter((d in hosts for d in frame.layout.devices), dtype=bool,
                                          count=len(frame.links))
    busy = ~np.isnan(own) & (load >= MIN_UTIL) & ~endpoint
    if busy.sum() < 2 * DEVICE_MIN_PORTS:
        return {}
    topo = frame.layout
    device = topo.device_ids
    rows = np.nonzero(busy)[0]
    cls, load_bin, dev, marks = topo.class_ids[rows], np.digitize(load[rows], LOAD_BINS), device[rows], own[rows]
    # its peers: the links of its class carrying as much as it does or more (a queue marks more as it fills,
    # so a switch marking far more than links carrying more marks too early); a set one switch makes half of
    # or more has no peers elsewhere to judge it by
    peers = np.full(len(rows), np.nan)
    judged = np.zeros(len(rows), dtype=bool)
    for c in np.unique(cls).tolist():
        in_c = cls == c
        for b in np.unique(load_bin[in_c]).tolist():
            ref = in_c & (load_bin >= b)
            at = in_c & (load_bin == b)
            peers[at] = np.median(marks[ref])
            per_device = np.bincount(dev[ref])
            judged[at] = 2 * per_device[dev[at]] < ref.sum()
    # and many times what any other switch carrying the same traffic marks: one reaching the same far devices
    # (an all-to-all through a pod marks on all its spines), or serving the same rail (a hot rail's leaves); one
    # such witness marking within EXCESS_RATIO of it says the traffic marks so, and a misconfigured switch still
    # marks many times what its partner does
    parallel = np.maximum(loudest_other(frame, own, busy, path_ids(frame)),
                          loudest_other(frame, own, busy, rail_ids(frame)))[rows]
    excess = judged & (marks >= np.maximum(EXCESS_RATIO * peers, MATERIAL_PER_MPKT))
    apart = excess & (marks >= EXCESS_RATIO * parallel)
    n_dev = int(device.max(initial=-1)) + 1
    n_busy = np.bincount(dev, minlength=n_dev)
    n_excess = np.bincount(dev, weights=excess, minlength=n_dev)
    n_apart = np.bincount(dev, weights=apart, minlength=n_dev)
    out = {}
    for d in np.nonzero((n_excess >= DEVICE_MIN_PORTS) & (n_excess >= EXCESS_SHARE * n_busy))[0].tolist():
        at = excess & (dev == d)
        name = topo.devices[int(rows[np.argmax(at)])]
        roles = [topo.roles[i] for i in rows[at].tolist()]
        out[name] = Excess(name, sorted(frame.links[i].port for i in rows[at].tolist()), int(n_busy[d]),
                           float(np.median(marks[at])), float(np.median(peers[at])), max(set(roles), key=roles.count),
                           bool(n_apart[d] >= max(DEVICE_MIN_PORTS, EXCESS_SHARE * n_busy[d])))
    return out


class MarkingWatch:
    """Switches marking in excess of their load-matched peers in OUTLIER_K of their last OUTLIER_N reports, alone
    of their role: what several switches of a role show at once (each as its latest report said) is their load
    (an all-to-all through one pod), not each one's profile."""

    def __init__(self) -> None:
        self._hold = DeviceHold()
        self._hosts: set[str] = set()  # the devices switches' host-facing ports reach, whenever heard
        self._showing: dict[str, str] = {}  # the switches whose latest report showed excess, and their role

    def observe(self, frame: FeatureFrame) -> list[Finding]:
        topo = frame.layout
        self._hosts |= topo.memo("hosts_faced", lambda: frozenset(
            far for role, far in zip(topo.roles, topo.far_devices, strict=True) if role == FACING_HOSTS and far))
        now = excess_now(frame, self._hosts)
        held = self._hold.update(topo.heard, set(now))
        for device in topo.heard:
            self._showing.pop(device, None)
        self._showing.update({d: e.role for d, e in now.items()})
        roles = list(self._showing.values())
        return [_finding(frame.start_ns, now[d]) for d in sorted(held)
                if now[d].apart and roles.count(now[d].role) < 2]


def _finding(start_ns: int, e: Excess) -> Finding:
    ratio = e.marks / e.peers if e.peers > 0 else float("inf")
    times = f"{ratio:,.0f}x" if ratio != float("inf") else "where they mark nothing,"
    words = (f"ECN marks {e.marks:,.0f} per 1M pkts on {len(e.ports)} of its {e.busy} ports carrying traffic, {times} "
             f"what links at the same load on other switches mark ({e.peers:,.0f}): its marking thresholds set too "
             "low? Its senders back off for congestion that is not there")
    return Finding(start_ns, e.device, "*", "device", min(ratio, 1e6), float("inf"), True,
                   "critical" if ratio >= CRITICAL_RATIO else "warning", "rule", words,
                   [{"feature": "ecn_per_mpkt", "value": e.marks, "expected": e.peers,
                     "against": "peers at the same load", "deviation": round(min(ratio, 1e6), 2)}],
                   ["ecn_excess"], level="device", ports=e.ports)
