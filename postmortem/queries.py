"""The post-mortem questions, answered as plain records from any `History` (InfluxDB or
VictoriaMetrics): each asks the server for a few aggregates and joins them here."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fabricwatch.core.topology import job_links
from fabricwatch.pipeline.totals import ERROR_COUNTERS
from fabricwatch.postmortem.history import History, Measured
from fabricwatch.postmortem.incidents import Incident, attach_jobs, incidents
from fabricwatch.postmortem.store import Window

# what `query top` and the tables call a counter: one stored rate, or a sum of several
ALIASES = {
    "pauses": "every pfc_* and pause_* rate (frames/s, both directions)",
    "errors": "every error and discard rate: " + ", ".join(ERROR_COUNTERS),
    "ecn": "ecn_marked",
    "gbps": "the busier direction's octets, as Gb/s",
    "ber": "pre-FEC BER (pre_fec_ber, IB ib_raw_ber), with each port's module: the RMA list",
}
BER_FIELDS = ("pre_fec_ber", "ib_raw_ber")
ERROR_WEIGHT = 1000.0  # one errored frame a second says more than a thousand pause frames


def fields_for(counter: str, fields: list[str]) -> list[str]:
    if counter == "pauses":
        return [f for f in fields if f.startswith(("pfc_", "pause_"))]
    if counter == "errors":
        return [f for f in fields if f in ERROR_COUNTERS]
    if counter == "ecn":
        return [f for f in fields if f == "ecn_marked"]
    if counter == "gbps":
        return [f for f in fields if f in ("in_octets", "out_octets")]
    if counter not in fields:
        raise ValueError(f"no stored rate named {counter!r}; try one of {', '.join(ALIASES)} or "
                         f"a stored rate ({', '.join(fields[:12])}{', ...' if len(fields) > 12 else ''})")
    return [counter]


def combine(counter: str, values: dict[str, float]) -> float:
    if counter == "ber":
        return max(values.values(), default=0.0)
    if counter == "gbps":
        return max(values.get("in_octets", 0.0), values.get("out_octets", 0.0)) * 8e-9
    return sum(values.values())


# -- findings --------------------------------------------------------------------------------------
def findings(history: History, window: Window, *, device: str | None = None,
             port: str | None = None) -> list[Incident]:
    """The window's incidents; whether each is still open is judged by how far the detector got."""
    flagged = history.flagged(window, device=device, port=port)
    lasts = [max(s.times) for s in flagged if s.times]
    if not lasts:
        return []
    after = Window(min(lasts), window.end_ns)  # only what the detector wrote after the incidents matters
    scored = history.scored(after, device=device, port=port)
    everywhere = scored if device is None and port is None else history.scored(after)
    found = incidents(flagged, as_of_ns=max(everywhere.values(), default=None), scored=scored)
    attach_jobs(found, history.jobs(window, device=device, port=port))
    return found


# -- top -------------------------------------------------------------------------------------------
@dataclass(slots=True)
class TopLink:
    device: str
    port: str
    mean: float
    peak: float
    tags: dict[str, str]
    module: dict[str, str] | None = None  # the port's transceiver (vendor, part_number, serial), for BER

    def to_json(self) -> dict[str, Any]:
        out = {"device": self.device, "port": self.port, "mean": self.mean, "peak": self.peak,
               "rail": self.tags.get("rail", ""), "role": self.tags.get("role", ""),
               "peer": f"{self.tags.get('peer_device', '')}:{self.tags.get('peer_port', '')}"
               if self.tags.get("peer_device") else ""}
        if self.module is not None:
            out["module"] = self.module
        return out


def ranked(measured: Iterable[tuple[dict[str, str], float, float]], *, limit: int,
           by: str | None) -> dict[str, list[TopLink]]:
    """(series tags, mean, peak) per stored series -> the worst links per value of the `by` tag. A
    port whose tags changed in the window has two series: the larger counts."""
    merged: dict[tuple[str, str], TopLink] = {}
    for tags, mean, peak in measured:
        key = (tags.get("device", ""), tags.get("port", ""))
        have = merged.get(key)
        if have is None:
            merged[key] = TopLink(key[0], key[1], mean, peak, tags)
        else:
            have.mean, have.peak = max(have.mean, mean), max(have.peak, peak)
    groups: dict[str, list[TopLink]] = defaultdict(list)
    for link in merged.values():
        groups[link.tags.get(by, "") if by else ""].append(link)
    return {g: sorted(links, key=lambda x: (-x.mean, x.device, x.port))[:limit] for g, links in sorted(groups.items())}


def top(history: History, window: Window, counter: str, *, limit: int = 10, by: str | None = None,
        fields: list[str] | None = None, device: str | None = None) -> dict[str, list[TopLink]]:
    """Links with the most of `counter` over the window (mean rate; peak beside it), worst first;
    per value of the `by` tag (rail, role, ...) when asked, else under one key ''. BER is a reading,
    not a rate: it comes from `port_counters`, and each link comes with its module's inventory."""
    ber = counter == "ber"
    names = list(BER_FIELDS) if ber else fields_for(counter, fields if fields is not None else history.rate_fields())
    if not names:
        return {}
    measured = history.summaries(window, "port_counters" if ber else "port_rates", names, device=device)
    out = ranked(((tags, combine(counter, means), combine(counter, peaks)) for tags, means, peaks in measured
                  if means or not ber), limit=limit, by=by)  # a port whose points carry no BER is left out
    if ber:
        inv = history.modules({(x.device, x.port) for links in out.values() for x in links})
        for links in out.values():
            for x in links:
                x.module = inv.get((x.device, x.port), {})
    return out


# -- one link --------------------------------------------------------------------------------------
SERIES = ("gbps_in", "gbps_out", "pauses", "ecn", "errors")


@dataclass(slots=True)
class LinkReport:
    device: str
    port: str
    tags: dict[str, str]
    step_s: float
    times: list[int]
    mine: dict[str, list[float | None]]
    peer: dict[str, list[float | None]] | None
    events: list[dict[str, Any]]
    incidents: list[Incident] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"device": self.device, "port": self.port, "rail": self.tags.get("rail", ""),
                "role": self.tags.get("role", ""), "peer": _peer(self.tags), "step_s": self.step_s,
                "times_ns": self.times, "series": self.mine, "peer_series": self.peer, "events": self.events,
                "findings": [i.to_json() for i in self.incidents]}


def _peer(tags: dict[str, str]) -> dict[str, str] | None:
    return {"device": tags["peer_device"], "port": tags.get("peer_port", "")} if tags.get("peer_device") else None


def step_for(window: Window, points: int = 60) -> int:
    """A GROUP BY time() step giving about `points` rows over the window, in whole seconds."""
    return max(1, round((window.end_ns - window.start_ns) / 1e9 / points))


def _series(history: History, window: Window, device: str, port: str, step_s: int, fields: list[str],
            times: list[int]) -> tuple[dict[str, list[float | None]], dict[str, str]]:
    wanted = {"gbps_in": ["in_octets"], "gbps_out": ["out_octets"], "pauses": fields_for("pauses", fields),
              "ecn": fields_for("ecn", fields), "errors": fields_for("errors", fields)}
    names = sorted({f for fs in wanted.values() for f in fs})
    out: dict[str, list[float | None]] = {s: [None] * len(times) for s in SERIES}
    tags: dict[str, str] = {}
    if not names:
        return out, tags
    index = {t: i for i, t in enumerate(times)}
    for series_tags, t, row in history.buckets(window, step_s, names, device=device, port=port):
        tags = tags or series_tags
        i = index.get(t)
        if i is None:
            continue
        for s, fs in wanted.items():
            got = [row[f] for f in fs if f in row]
            if got:
                value = sum(got) * (8e-9 if s.startswith("gbps") else 1.0)
                old = out[s][i]
                out[s][i] = value if old is None else max(old, value)
    return out, tags


def link(history: History, window: Window, device: str, port: str, *, points: int = 60) -> LinkReport:
    step = step_for(window, points)
    first = window.start_ns - window.start_ns % (step * 1_000_000_000)
    times = list(range(first, window.end_ns, step * 1_000_000_000))
    fields = history.rate_fields()
    mine, tags = _series(history, window, device, port, step, fields, times)
    if not tags:
        raise LookupError(f"no rates stored for {device} {port} in the window")
    peer = _peer(tags)
    peer_series = _series(history, window, peer["device"], peer["port"], step, fields, times)[0] if peer else None
    evs = history.events(window, device, port)
    if peer:
        evs = sorted(evs + [{**e, "far": True} for e in history.events(window, peer["device"], peer["port"])],
                     key=lambda e: (e["time_ns"], e["device"], e["port"], e["kind"]))
    found = findings(history, window, device=device, port=port) + [
        i for i in findings(history, window, device=device, port="*") if port in i.ports.split(",")]
    return LinkReport(device, port, tags, float(step), times, mine, peer_series, evs, found)


# -- one switch ------------------------------------------------------------------------------------
@dataclass(slots=True)
class PortSummary:
    port: str
    tags: dict[str, str]
    gbps_peak: float = 0.0
    pauses: float = 0.0
    errors: float = 0.0
    ecn: float = 0.0
    events: int = 0
    flagged_intervals: int = 0
    worst: str = "ok"

    @property
    def badness(self) -> float:
        return self.pauses + ERROR_WEIGHT * self.errors

    def to_json(self) -> dict[str, Any]:
        return {"port": self.port, "role": self.tags.get("role", ""), "peer": _peer(self.tags),
                "gbps_peak": self.gbps_peak, "pauses": self.pauses, "errors": self.errors, "ecn": self.ecn,
                "events": self.events, "flagged_intervals": self.flagged_intervals, "worst": self.worst}


def device(history: History, window: Window, name: str) -> list[PortSummary]:
    """Every port of a switch over the window, worst first: flagged, then pauses + 1000 x errors."""
    fields = history.rate_fields()
    groups = {s: fields_for(s, fields) for s in ("pauses", "errors", "ecn")}
    names = sorted({f for fs in groups.values() for f in fs} | {"in_octets", "out_octets"} & set(fields))
    measured: list[Measured] = history.summaries(window, "port_rates", names, device=name) if names else []
    ports: dict[str, PortSummary] = {}
    for tags, means, peaks in measured:
        p = ports.setdefault(tags.get("port", ""), PortSummary(tags.get("port", ""), tags))
        for s, fs in groups.items():
            setattr(p, s, max(getattr(p, s), sum(means.get(f, 0.0) for f in fs)))
        p.gbps_peak = max(p.gbps_peak, 8e-9 * max(peaks.get("in_octets", 0.0), peaks.get("out_octets", 0.0)))
    for e in history.events(window, name):
        if e["port"] in ports:
            ports[e["port"]].events += 1
    for inc in findings(history, window, device=name):
        for port in ([inc.port] if inc.port != "*" else inc.ports.split(",")):
            if port in ports:
                p = ports[port]
                p.flagged_intervals += inc.intervals
                if (inc.severity == "critical") or (p.worst == "ok"):
                    p.worst = inc.severity
    order = {"critical": 0, "warning": 1, "ok": 2}
    return sorted(ports.values(), key=lambda p: (order.get(p.worst, 1), -p.badness, -p.events, p.port))


# -- a job -----------------------------------------------------------------------------------------
@dataclass(slots=True)
class JobLink:
    summary: PortSummary
    device: str
    role: str
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"device": self.device, **self.summary.to_json(), "role": self.role, "path": self.why}


def job(history: History, window: Window, hosts: list[str]) -> list[JobLink]:
    """The links a job on these hosts used (through the stored topology tags) and what happened on
    them in the window, worst first."""
    links = job_links(history.port_tags(window), hosts)
    if not links:
        raise LookupError(f"no stored link faces {', '.join(hosts[:5])}: are they hosts of this fabric?")
    by_device: dict[str, list[PortSummary]] = {}
    out = []
    for d, p, role, why in links:
        if d not in by_device:
            by_device[d] = device(history, window, d)
        summary = next((s for s in by_device[d] if s.port == p), PortSummary(p, {}))
        out.append(JobLink(summary, d, role, why))
    order = {"critical": 0, "warning": 1, "ok": 2}
    return sorted(out, key=lambda j: (order.get(j.summary.worst, 1), -j.summary.badness, j.device, j.summary.port))
