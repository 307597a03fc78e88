"""What a finding is, and findings put at the right level: several ports of a switch as one device
finding, both ends of a cable as one."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fabricwatch.core.hits import worst
from fabricwatch.detection.explain import ECN, PFC_TX
from fabricwatch.detection.optics import OpticsWatch
from fabricwatch.models.features import FeatureFrame, marking_load
from fabricwatch.models.intervals import LinkInterval


@dataclass(frozen=True)
class Hysteresis:
    raise_k: int = 2  # k of the last n intervals above threshold raise a finding
    raise_n: int = 3
    clear_m: int = 3  # m clean intervals in a row clear it

    def __post_init__(self) -> None:
        if not 1 <= self.raise_k <= self.raise_n <= 16 or self.clear_m < 1:
            raise ValueError("hysteresis needs 1 <= raise_k <= raise_n <= 16 and clear_m >= 1")


@dataclass
class Finding:
    time_ns: int
    device: str
    port: str
    link_class: str
    score: float
    threshold: float
    flagged: bool  # the finding is active (after hysteresis, or by a rule)
    severity: str
    source: str  # model, rule, model+rule
    explanation: str
    top_features: list[dict[str, Any]] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)  # model, ecn_missing, and the rules' names
    level: str = "link"  # link, or device: a condition of the whole switch (port is "*")
    peer: tuple[str, str] | None = None  # the far end of the cable (device, port), from the topology
    ports: list[str] = field(default_factory=list)  # a device finding: the ports that show it

    def to_json(self) -> dict[str, Any]:
        out = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.time_ns / 1e9)),
            "time_ns": self.time_ns, "device": self.device, "port": self.port, "level": self.level,
            "class": self.link_class, "score": round(self.score, 4),
            "threshold": round(self.threshold, 4) if math.isfinite(self.threshold) else None,
            "severity": self.severity, "source": self.source,
            "explanation": self.explanation, "features": self.top_features, "conditions": self.conditions,
        }
        if self.peer is not None:
            out["peer"] = {"device": self.peer[0], "port": self.peer[1]}
        if self.ports:
            out["ports"] = self.ports
        return out

    def per_link(self) -> list[dict[str, Any]]:
        """One JSON object per flagged link-interval: a device finding flags each port it lists (each
        object keeps the device finding's level and its whole list), or the switch (port "*") when it
        lists none."""
        out = self.to_json()
        if self.level != "device" or not self.ports:
            return [out]
        return [{**out, "port": port} for port in self.ports]


def _peer(li: LinkInterval) -> tuple[str, str] | None:
    device, port = li.tags.get("peer_device"), li.tags.get("peer_port")
    return (device, port) if device and port else None


DEVICE_MIN_PORTS = 3  # ports of one switch with ECN missing at once: the switch, not its ports
SILENT = frozenset({"ecn_missing", "gone_quiet"})  # no marks where peers mark: now, or beyond the link's record


def _device_findings(frame: FeatureFrame, findings: list[Finding]) -> list[Finding]:
    """ECN missing on several ports of one switch is one condition of that switch (ECN disabled or
    its profile wrong), reported once as a device finding; the ports stay listed in it."""
    ecn_only: dict[str, list[Finding]] = {}
    for f in findings:
        if set(f.conditions) & SILENT and set(f.conditions) <= SILENT | {"anomaly"}:
            ecn_only.setdefault(f.device, []).append(f)
    grouped = {d: fs for d, fs in ecn_only.items() if len(fs) >= DEVICE_MIN_PORTS}
    if not grouped:
        return findings
    out = [f for f in findings if f.device not in grouped or f not in grouped[f.device]]
    row = {(li.device, li.port): i for i, li in enumerate(frame.links)}
    for device, fs in grouped.items():
        rows = [row[(f.device, f.port)] for f in fs]
        marks = float(np.median(frame.class_median_raw[rows, ECN]))
        sent = float(np.nansum(frame.own_raw[rows, PFC_TX]))
        usual = float(np.nansum(frame.class_median_raw[rows, PFC_TX]))
        loaded = int(np.count_nonzero((np.array([li.device == device for li in frame.links], dtype=bool))
                                      & (marking_load(frame) >= 5.0)))
        own = float(np.nanmedian(frame.own_raw[rows, ECN])) if rows else 0.0
        own = own if own == own else 0.0
        if not loaded or marks <= 0:
            words = (f"ECN marked nothing on {len(fs)} of its ports when last judged, and too little traffic now to "
                     "judge them: ECN disabled or misconfigured on the switch?")
        elif own > 0:
            words = (f"ECN marks next to nothing ({own:,.0f} per 1M pkts) on {len(fs)} of its {loaded} ports carrying "
                     f"traffic while ports of their classes mark {marks:,.0f}: ECN set too high on the switch?")
        else:
            words = (f"ECN marks nothing on {len(fs)} of its {loaded} ports carrying traffic while ports of their "
                     f"classes mark {marks:,.0f} per 1M pkts: ECN disabled or misconfigured on the switch?")
        if usual > 0 and sent > 2 * usual:
            words += f"; it sends {sent / usual:,.1f}x the pauses its peers do ({sent:,.3g}/s on those ports)"
        out.append(Finding(frame.start_ns, device, "*", "device", max(f.score for f in fs), 1.0, True,
                           worst([f.severity for f in fs]), "model", words,
                           [{"feature": "ecn_per_mpkt", "value": own, "expected": marks, "against": "peers",
                             "deviation": 0.0}],
                           sorted({c for f in fs for c in f.conditions} & SILENT), level="device",
                           ports=sorted(f.port for f in fs)))
    return out


EVIDENCE_CONDITIONS = frozenset({"corruption", "discards", "link_recovery", "fec_uncorrectable", "link_bounces",
                                 "path_loss"})


def _by_switch(findings: list[Finding], shows: Callable[[Finding], bool]) -> tuple[dict[str, list[Finding]],
                                                                                 list[Finding]]:
    """The link findings that `shows` picks, by switch where DEVICE_MIN_PORTS or more do; and the findings
    left once those are taken out."""
    picked: dict[str, list[Finding]] = {}
    for f in findings:
        if f.level == "link" and shows(f):
            picked.setdefault(f.device, []).append(f)
    grouped = {d: fs for d, fs in picked.items() if len(fs) >= DEVICE_MIN_PORTS}
    taken = {id(f) for fs in grouped.values() for f in fs}
    return grouped, [f for f in findings if id(f) not in taken]


def _devices_counting(start_ns: int, findings: list[Finding]) -> list[Finding]:
    """Several ports of one switch counting errors, discards or recoveries at once share what they have in
    common: the switch (its ASIC, a line card, its power or firmware), not that many cables. One device
    finding lists them; a port that shows more than that keeps its own finding."""
    grouped, out = _by_switch(findings, lambda f: bool(f.conditions) and set(f.conditions) <= EVIDENCE_CONDITIONS)
    for device, fs in grouped.items():
        conditions = sorted({c for f in fs for c in f.conditions})
        ports = sorted(f.port for f in fs)
        strongest = max(fs, key=lambda f: (f.severity == "critical", f.score))
        words = (f"{len(fs)} ports count {', '.join(conditions)} above their background at once "
                 f"({', '.join(ports[:8])}{', ...' if len(ports) > 8 else ''}): the switch (ASIC, line card, "
                 f"power or firmware) rather than {len(fs)} cables; e.g. {strongest.port}: {strongest.explanation}")
        out.append(Finding(start_ns, device, "*", "device", max(f.score for f in fs), float("inf"), True,
                           worst([f.severity for f in fs]), "rule", words, [], conditions,
                           level="device", ports=ports))
    return out


def _hot_switches(start_ns: int, findings: list[Finding], optics: OpticsWatch) -> list[Finding]:
    """Modules running hot on several ports of one switch are that switch's cooling (fans, inlet air,
    blanking), reported once as a device finding, not one page per module; a port with more than heat
    keeps its own finding."""
    grouped, out = _by_switch(findings, lambda f: f.conditions == ["module_hot"])
    for device, fs in grouped.items():
        temps = [t for f in fs if (t := optics.temperature((f.device, f.port))) is not None]
        hottest = f" (up to {max(temps):.1f} degC)" if temps else ""
        out.append(Finding(start_ns, device, "*", "device", 0.0, float("inf"), True, worst([f.severity for f in fs]),
                           "rule", f"{len(fs)} modules past their warning temperature{hottest}: the switch's "
                                   "cooling (fans, inlet air, blanking panels)?", [], ["module_hot"],
                           level="device", ports=sorted(f.port for f in fs)))
    return out


def _warming_switches(start_ns: int, findings: list[Finding]) -> list[Finding]:
    """A switch whose modules all warm together apart from the other switches (`models/trends.py`) is said
    once, as that switch's warning listing its modules, not once per module."""
    grouped, out = _by_switch(findings, lambda f: f.conditions == ["switch_trend"])
    for device, fs in grouped.items():
        out.append(Finding(start_ns, device, "*", "device", 0.0, float("inf"), True, worst([f.severity for f in fs]),
                           "rule", f"{len(fs)} modules: {fs[0].explanation}", [], ["switch_trend"],
                           level="device", ports=sorted(f.port for f in fs)))
    return out


def _one_per_cable(findings: list[Finding]) -> list[Finding]:
    """Both ends of one cable flagged in the same interval are one problem: keep the stronger end
    and say what its far end shows (the scorer of a page is the on-call engineer, not the port count)."""
    at = {(f.device, f.port): f for f in findings if f.level == "link"}
    dropped: set[int] = set()
    for f in findings:
        if f.peer is None or id(f) in dropped:
            continue
        other = at.get(f.peer)
        if other is None or other is f or id(other) in dropped or other.peer != (f.device, f.port):
            continue
        keep, drop = sorted((f, other), key=lambda x: (x.severity == "critical", x.score), reverse=True)
        keep.explanation += f"; its far end {drop.device}:{drop.port} shows it too ({drop.explanation})"
        keep.conditions = sorted(set(keep.conditions) | set(drop.conditions))
        dropped.add(id(drop))
    return [f for f in findings if id(f) not in dropped]


# What a link can be blamed for. Utilisation is the context a link is judged in, never a cause.
# More ECN marks than its peers is congestion control doing its job on a busier link (incast, hash
# polarisation): for ECN only its absence or near-absence is a fault (`ecn_missing.py`). Pauses a port
# *sends* say its switch's buffers fill because an egress elsewhere is congested (a checkpoint to storage, an
# incast): the cause is not this link, and a switch pausing everywhere is a device finding. Flaps
# belong to the flap rule, which looks over several intervals (one bounce is maintenance).
