"""A switch stuck as a whole (a credit loop, a PFC deadlock, a wedged ASIC) is one device finding: its
spread ports wait, per unit of what they carry, far more than the other switches of its tier at the same
moment, on most of its ports, while it carries less than they do, for several intervals. The links of
other switches that wait on it are its symptom and go into its finding, not pages of their own."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np

from fabricwatch.core.hits import worst
from fabricwatch.detection.conditions import DeviceHold
from fabricwatch.detection.findings import Finding
from fabricwatch.models.features import OWN_NAMES, FeatureFrame
from fabricwatch.models.groups import GROUPED, OUTLIER_RATIO, device_view

STALL_SHARE = 0.5  # of a switch's spread ports showing the signal: the switch, not a few of its links
STALL_LOAD = 0.5  # of the median switch of its tier's load, at most
CONGESTION_ONLY = frozenset({"anomaly", "outlier_in_group"})  # what a waiting link is flagged for


@dataclass(frozen=True)
class Stall:
    device: str
    role: str
    signal: str
    ratio: float  # per unit of load over the median switch of its role
    share: float  # of its spread ports showing the signal
    util: float  # median load of its spread ports, %
    role_util: float  # the same for the median switch of its role
    peers: int  # switches of its role


class StallWatch:
    """Which switches have stood out of their tier in OUTLIER_K of their last OUTLIER_N reports."""

    def __init__(self) -> None:
        self._hold = DeviceHold()

    def observe(self, frame: FeatureFrame) -> tuple[dict[str, Stall], set[str]]:
        """The switches stuck now and held so (OUTLIER_K of OUTLIER_N), and those standing out of their
        tier now whose stall may be forming."""
        view = device_view(frame)
        strong = np.nan_to_num(view.ratio, nan=0.0, posinf=np.inf) >= OUTLIER_RATIO
        strong &= view.share >= STALL_SHARE
        # and carrying less than its tier: a busy switch waits more per unit of load (waits grow faster
        # than load), a stuck one waits while its throughput falls
        strong &= (view.util < STALL_LOAD * view.role_util)[:, None]
        # pauses received say a neighbour will not take more; stuck itself, a switch pauses its senders too
        strong[:, GROUPED.index("pfc_rx")] &= view.pushing >= STALL_SHARE
        now: dict[str, Stall] = {}
        for d, j in zip(*np.nonzero(strong), strict=True):
            d, j = int(d), int(j)
            if view.devices[d] not in now:
                now[view.devices[d]] = Stall(view.devices[d], view.role[d], GROUPED[j], float(view.ratio[d, j]),
                                             float(view.share[d, j]), float(view.util[d]),
                                             float(view.role_util[d]), int(view.peers[d]))
        held_now = self._hold.update(frame.layout.heard, set(now))
        held = {d: now[d] for d in held_now}
        return held, set(now) - set(held)

    def forget(self, devices: set[str]) -> None:
        self._hold.forget(devices)


def _waiting(frame: FeatureFrame, device: str, k: int) -> tuple[list[str], list[str]]:
    """The device's ports, and the links of other switches facing it, whose signal `k` stands over twice
    the median of the links of their role elsewhere (not on it, not facing it)."""
    values = np.nan_to_num(frame.own_raw[:, k])
    role = np.array([li.tags.get("role", "") for li in frame.links], dtype=object)
    near = np.fromiter((li.device == device or li.tags.get("peer_device") == device for li in frame.links),
                       dtype=bool, count=len(frame.links))
    own: list[str] = []
    facing: list[str] = []
    for r in set(role[near].tolist()):
        elsewhere = values[(role == r) & ~near]
        bar = 2 * float(np.median(elsewhere)) if len(elsewhere) else 0.0
        for i in np.nonzero(near & (role == r) & (values > bar))[0].tolist():
            li = frame.links[i]
            if li.device == device:
                own.append(li.port)
            else:
                facing.append(f"{li.device}:{li.port}")
    return sorted(own), sorted(facing)


def fold_stalls(frame: FeatureFrame, findings: list[Finding], stalls: dict[str, Stall],
                forming: AbstractSet[str] = frozenset()) -> list[Finding]:
    """One device finding per stuck switch, listing its ports that wait and the links of other switches
    that wait on it; link findings for congestion alone on it, or on links facing it, are its symptom
    and go into it. While a switch's stall is forming, such findings wait: they are its symptom if it
    holds."""
    if not stalls and not forming:
        return findings
    absorbed: dict[str, list[Finding]] = {d: [] for d in stalls}
    out = []
    for f in findings:
        near = {f.device, f.peer[0] if f.peer else ""}
        on = next((d for d in near if d in stalls or d in forming), None)
        if on is not None and f.level == "link" and f.conditions and set(f.conditions) <= CONGESTION_ONLY:
            if on in absorbed:
                absorbed[on].append(f)
        else:
            out.append(f)
    for device, s in stalls.items():
        own, facing = _waiting(frame, device, OWN_NAMES.index(s.signal))
        words = (f"{s.signal} on {s.share:.0%} of its {s.role} ports, {s.ratio:,.0f}x per unit of load the median "
                 f"of the {s.peers} switches of its tier sharing its situation, while its ports carry {s.util:.0f}% "
                 f"of line rate where theirs carry {s.role_util:.0f}%: the switch is stuck as a whole (a credit loop, "
                 "a PFC deadlock, a wedged ASIC?), not its links")
        if facing:
            words += f"; {len(facing)} links of other switches wait on it ({', '.join(facing[:6])}" \
                     f"{', ...' if len(facing) > 6 else ''})"
        severity = worst(["critical" if s.ratio >= 30 else "warning",
                          *(f.severity for f in absorbed[device])])
        out.append(Finding(frame.start_ns, device, "*", "device", s.ratio, float("inf"), True, severity, "rule",
                           words, [{"feature": s.signal, "value": s.ratio, "expected": 1.0, "against": "tier",
                                    "deviation": round(s.ratio, 2)}],
                           ["stalled_switch"], level="device", ports=own))
    return out
