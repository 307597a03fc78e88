"""Findings as incidents: the detector writes one `link_anomaly` point per flagged link per interval;
an incident is a run of them on one link (or switch) with no gap longer than two intervals, from
when it was raised to when it cleared, ranked by duration x severity.

An incident is open until the detector says it cleared: it scored the link unflagged after the
incident's last flagged interval, or its own later intervals went on for more than the gap without
it (a switch finding, or a link the detector scores only when flagged). Until then it is ongoing as of
the detector's newest stored interval, however old that is: the wall clock says nothing, a daemon
writes an interval some seconds after it ends, and a window can end in the past.

A day of a big fabric holds ~10^5 flagged points, so they are taken a stored series at a time
(`Flagged`: columns, not a record per point) and cut into incidents with numpy; only the first and
last points of an incident are looked at one by one (its explanation, its ports)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fabricwatch.postmortem.store import Row

SEVERITY_WEIGHT = {"critical": 3.0, "warning": 1.0}
RANK = {"ok": 0, "warning": 1, "critical": 2}
DEFAULT_INTERVAL_NS = 30_000_000_000


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
    open: bool = False  # the detector has not said it cleared: ongoing as of `as_of_ns`
    as_of_ns: int | None = None  # with open: the detector's newest stored interval
    tags: dict[str, str] = field(default_factory=dict)
    ports: str = ""
    jobs_total: int | None = None  # the most Slurm jobs stored on the link in one of its intervals; None: not stored
    jobs: list[str] = field(default_factory=list)  # the first stored job ids, ascending

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
               "as_of_ns": self.as_of_ns if self.open else None,
               "conditions": sorted(self.conditions), "explanation": self.explanation,
               "rank": round(self.rank, 1), "rail": self.tags.get("rail", ""), "role": self.tags.get("role", ""),
               "peer": f"{peer}:{self.tags.get('peer_port', '')}" if peer else ""}
        if self.ports:
            out["ports"] = self.ports.split(",")
        out["jobs_total"], out["jobs"] = self.jobs_total, list(self.jobs)
        return out


@dataclass(slots=True)
class Flagged:
    """One stored series of flagged points: its tags, and per point its time and fields. Severity and
    condition are tags since the migration; older points carry them as fields (`severity`, `source`)."""

    tags: dict[str, str]
    times: Sequence[int]
    explanations: Sequence[Any]  # per point: a string, or None when it has none
    ports: Sequence[Any]
    severities: Sequence[Any] | None = None  # per point, when no severity tag
    sources: Sequence[Any] | None = None  # per point, when no condition or source tag

    @classmethod
    def from_series(cls, tags: dict[str, str], columns: Sequence[str], values: Sequence[Sequence[Any]]) -> Flagged:
        """A series as InfluxQL answers it (`time` first)."""
        at = {c: i for i, c in enumerate(columns)}
        transposed = list(zip(*values, strict=True)) if values else [() for _ in columns]
        none = (None,) * len(values)

        def column(name: str) -> Sequence[Any]:
            i = at.get(name)
            return none if i is None else transposed[i]

        return cls(tags, transposed[0], column("explanation"), column("ports"),
                   None if tags.get("severity") else column("severity"),
                   None if tags.get("condition") or tags.get("source") else column("source"))

    @classmethod
    def from_rows(cls, rows: Iterable[Row]) -> list[Flagged]:
        """Points one by one (any order) as series: one per distinct set of tags."""
        grouped: dict[tuple[tuple[str, str], ...], list[Row]] = defaultdict(list)
        for r in rows:
            grouped[tuple(sorted(r.tags.items()))].append(r)
        columns = ["time", "explanation", "ports", "severity", "source"]
        return [cls.from_series(dict(key), columns, [[r.time_ns] + [r.values.get(c) for c in columns[1:]]
                                                     for r in group])
                for key, group in grouped.items()]

    def severity(self, i: int) -> str:
        return self.tags.get("severity") or str((self.severities[i] if self.severities else "") or "warning")

    def condition(self, i: int) -> str:
        return self.tags.get("condition") or self.tags.get("source") or str(
            (self.sources[i] if self.sources else "") or "")


@dataclass(slots=True)
class _Link:
    """A link's flagged points from all its series, in time order (stable: series order breaks ties)."""

    parts: list[Flagged]
    times: np.ndarray
    owner: np.ndarray  # which part each point is from
    index: np.ndarray  # its position in that part
    explained: np.ndarray  # the point has an explanation
    named: np.ndarray  # the point names its ports (a switch-level finding)
    anynamed: bool

    @classmethod
    def of(cls, parts: list[Flagged]) -> _Link:
        times = np.concatenate([np.asarray(p.times, dtype=np.int64) for p in parts])
        owner = np.repeat(np.arange(len(parts)), [len(p.times) for p in parts])
        index = np.concatenate([np.arange(len(p.times)) for p in parts])
        order = np.argsort(times, kind="stable")

        def nonempty(column: Sequence[Any]) -> np.ndarray:
            return np.array(column, dtype=object).astype(bool) if any(column) else np.zeros(len(column), dtype=bool)

        explained = np.concatenate([nonempty(p.explanations) for p in parts])
        named = np.concatenate([nonempty(p.ports) for p in parts])
        return cls(parts, times[order], owner[order], index[order], explained[order], named[order], bool(named.any()))

    def smallest_step(self) -> int | None:
        steps = np.diff(self.times)
        steps = steps[steps > 0]
        return int(steps.min()) if steps.size else None

    def ranks(self) -> np.ndarray:
        out = np.empty(self.times.size, dtype=np.int8)
        for o, p in enumerate(self.parts):
            mask = self.owner == o
            if p.tags.get("severity") or not p.severities:
                out[mask] = RANK.get(p.severity(0), 1)
            else:
                out[mask] = [RANK.get(p.severity(int(i)), 1) for i in self.index[mask]]
        return out

    def explanation(self, a: int, b: int) -> str:
        """The first explanation given in [a, b)."""
        if self.explained[a]:
            j = a
        else:
            hits = np.flatnonzero(self.explained[a:b])
            j = a + int(hits[0]) if hits.size else -1
        return str(self.parts[int(self.owner[j])].explanations[int(self.index[j])]) if j >= 0 else ""

    def ports(self, a: int, b: int) -> str:
        """The last list of ports named in [a, b)."""
        j = -1
        if self.named[b - 1]:
            j = b - 1
        elif self.anynamed:
            hits = np.flatnonzero(self.named[a:b])
            j = a + int(hits[-1]) if hits.size else -1
        return str(self.parts[int(self.owner[j])].ports[int(self.index[j])]) if j >= 0 else ""

    def conditions(self, a: int, b: int) -> set[str]:
        out: set[str] = set()
        owners, index = self.owner[a:b], self.index[a:b]
        for o in (owners[:1] if len(self.parts) == 1 else np.unique(owners)):
            part = self.parts[int(o)]
            picks = [0] if part.sources is None else index[owners == o]
            for i in {part.condition(int(i)) for i in picks}:
                out.update(c for c in i.split("+") if c)
        return out


def incidents(series: Iterable[Flagged], *, as_of_ns: int | None = None,
              scored: Mapping[tuple[str, str], int] | None = None, interval_ns: int | None = None) -> list[Incident]:
    """Flagged points → incidents, worst first. `as_of_ns` is the detector's newest stored interval and
    `scored` each link's newest stored point, flagged or not (both default to what the flagged points
    show). The detector's interval, unless given, is read from the spacing of its own points (the
    smallest step seen on any link)."""
    grouped: dict[tuple[str, str], list[Flagged]] = defaultdict(list)
    for s in series:
        if s.times:
            grouped[(s.tags.get("device", ""), s.tags.get("port", ""))].append(s)
    links = {key: _Link.of(parts) for key, parts in grouped.items()}
    steps = [s for s in (link.smallest_step() for link in links.values()) if s is not None]
    step = interval_ns or (min(steps) if steps else DEFAULT_INTERVAL_NS)
    gap = 2 * step
    newest = max([as_of_ns or 0] + [int(link.times[-1]) for link in links.values()])
    done: list[Incident] = []
    for (device, port), link in links.items():
        ranks = link.ranks()
        starts = np.concatenate([[0], np.flatnonzero(np.diff(link.times) > gap) + 1])
        ends = np.append(starts[1:], link.times.size)
        worst = np.maximum.reduceat(ranks, starts).tolist()
        raised, last = link.times[starts].tolist(), link.times[ends - 1].tolist()
        constant = link.conditions(0, 1) if len(link.parts) == 1 and link.parts[0].sources is None else None
        for k, (a, b) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
            inc = Incident(device, port, raised[k], last[k], step, intervals=b - a,
                           tags=dict(link.parts[int(link.owner[a])].tags),
                           conditions=set(constant) if constant is not None else link.conditions(a, b))
            first = a  # the explanation of the worst point first raised, or the next one that has any
            if worst[k] > RANK["warning"]:
                inc.severity = "critical"
                first = a + int(np.argmax(ranks[a:b] > RANK["warning"]))
            inc.explanation = link.explanation(first, b)
            inc.ports = link.ports(a, b)
            done.append(inc)
        latest = done[-1]
        said_cleared = (scored or {}).get((device, port), latest.last_ns) > latest.last_ns
        if not said_cleared and newest - latest.last_ns <= gap:
            latest.open, latest.as_of_ns = True, newest
    return sorted(done, key=lambda i: (-i.rank, i.raised_ns, i.device, i.port))


# one `link_anomaly_jobs` point: device, port, time, how many jobs the link carried, the first ids
StoredJobs = tuple[str, str, int, int, Sequence[str]]
JOB_IDS = 5  # ids an incident keeps: what each point stored


def _job_order(job: str) -> tuple[int, str]:
    head = job.split("_", 1)[0]
    return (int(head), job) if head.isdigit() else (1 << 62, job)


def attach_jobs(found: Iterable[Incident], stored: Iterable[StoredJobs]) -> None:
    """Each incident's Slurm jobs, from the points stored in its flagged intervals on its link: the most
    in one interval, and the first ids of all of them (ascending). No point: unknown (None), not zero."""
    by_link: dict[tuple[str, str], list[tuple[int, int, Sequence[str]]]] = defaultdict(list)
    for device, port, t, total, ids in stored:
        by_link[(device, port)].append((t, total, ids))
    for inc in found:
        points = [(total, ids) for t, total, ids in by_link.get((inc.device, inc.port), ())
                  if inc.raised_ns <= t <= inc.last_ns]
        if points:
            inc.jobs_total = max(total for total, _ in points)
            inc.jobs = sorted({j for _, ids in points for j in ids}, key=_job_order)[:JOB_IDS]
