"""Findings as incidents: the detector writes one `link_anomaly` point per flagged link per interval;
an incident is a run of them on one link (or switch) with no gap longer than two intervals, from
when it was raised to when it cleared, ranked by duration x severity."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fabricwatch.postmortem.store import Row

SEVERITY_WEIGHT = {"critical": 3.0, "warning": 1.0}
RANK = {"ok": 0, "warning": 1, "critical": 2}


@dataclass(slots=True)
class Incident:
    device: str
    port: str
    raised_ns: int
    last_ns: int  # the last interval it was flagged in
    interval_ns: int
    severity: str = "warning"
    conditions: set[str] = field(default_factory=set)
    explanation: str = ""
    intervals: int = 0
    open: bool = False  # still flagged at the window's end
    tags: dict[str, str] = field(default_factory=dict)
    ports: str = ""

    @property
    def cleared_ns(self) -> int:
        return self.last_ns + self.interval_ns

    @property
    def duration_s(self) -> float:
        return (self.cleared_ns - self.raised_ns) / 1e9

    @property
    def rank(self) -> float:
        return self.duration_s * SEVERITY_WEIGHT.get(self.severity, 1.0)

    def to_json(self) -> dict[str, Any]:
        peer = self.tags.get("peer_device", "")
        out = {"device": self.device, "port": self.port, "severity": self.severity,
               "raised_ns": self.raised_ns, "cleared_ns": None if self.open else self.cleared_ns,
               "duration_s": self.duration_s, "intervals": self.intervals, "open": self.open,
               "conditions": sorted(self.conditions), "explanation": self.explanation,
               "rank": round(self.rank, 1), "rail": self.tags.get("rail", ""), "role": self.tags.get("role", ""),
               "peer": f"{peer}:{self.tags.get('peer_port', '')}" if peer else ""}
        if self.ports:
            out["ports"] = self.ports.split(",")
        return out


def interval_of(rows: list[Row], default_ns: int = 30_000_000_000) -> int:
    """The detector's interval, read from the spacing of its own points (the smallest step seen)."""
    steps = []
    by_link: dict[tuple[str, str], int] = {}
    for r in rows:
        key = (r.tags.get("device", ""), r.tags.get("port", ""))
        prev = by_link.get(key)
        if prev is not None and r.time_ns > prev:
            steps.append(r.time_ns - prev)
        by_link[key] = r.time_ns
    return min(steps) if steps else default_ns


def incidents(rows: Iterable[Row], *, end_ns: int, interval_ns: int | None = None) -> list[Incident]:
    """Flagged points (any order) → incidents, worst first."""
    points = sorted(rows, key=lambda r: r.time_ns)
    step = interval_ns or interval_of(points)
    gap = 2 * step
    current: dict[tuple[str, str], Incident] = {}
    done: list[Incident] = []
    for r in points:
        key = (r.tags.get("device", ""), r.tags.get("port", ""))
        inc = current.get(key)
        if inc is not None and r.time_ns - inc.last_ns > gap:
            done.append(inc)
            inc = None
        if inc is None:
            inc = current[key] = Incident(key[0], key[1], r.time_ns, r.time_ns, step, tags=dict(r.tags))
        inc.last_ns = r.time_ns
        inc.intervals += 1
        severity = str(r.tags.get("severity") or r.values.get("severity") or "warning")
        if RANK.get(severity, 1) > RANK.get(inc.severity, 1) or not inc.explanation:
            inc.explanation = str(r.values.get("explanation", ""))
        if RANK.get(severity, 1) > RANK.get(inc.severity, 1):
            inc.severity = severity
        condition = r.tags.get("condition") or r.tags.get("source") or str(r.values.get("source", ""))
        inc.conditions.update(c for c in condition.split("+") if c)
        if r.values.get("ports"):
            inc.ports = str(r.values["ports"])
    for inc in current.values():
        inc.open = end_ns - inc.last_ns <= gap
        done.append(inc)
    return sorted(done, key=lambda i: (-i.rank, i.raised_ns))
