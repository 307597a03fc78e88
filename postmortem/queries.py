"""The post-mortem questions, each one InfluxQL query or a few, answered as plain records."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fabricwatch.core.topology import job_links
from fabricwatch.pipeline.totals import ERROR_COUNTERS
from fabricwatch.postmortem.incidents import Flagged, Incident, incidents
from fabricwatch.postmortem.store import Store, Window, literal, quote

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


def rate_fields(store: Store) -> list[str]:
    return sorted({str(v[0]) for _, _, values in store.series('SHOW FIELD KEYS FROM "port_rates"') for v in values
                   if v and not str(v[0]).endswith("_saturated")})


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


def _where(window: Window, **tags: str | None) -> str:
    parts = [window.where] + [f"{quote(k)} = {literal(v)}" for k, v in tags.items() if v]
    return " AND ".join(parts)


# -- findings --------------------------------------------------------------------------------------
def findings(store: Store, window: Window, *, device: str | None = None, port: str | None = None) -> list[Incident]:
    q = (f'SELECT "explanation", "score", "ports", "severity" FROM "link_anomaly" '
         f'WHERE {_where(window, device=device, port=port)} AND "flagged" = true GROUP BY *')
    return incidents((Flagged.from_series(*s) for s in store.series(q)), end_ns=window.end_ns)


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


def modules(store: Store, keys: set[tuple[str, str]] | None = None) -> dict[tuple[str, str], dict[str, str]]:
    """The latest inventory of every port (or these): it is stored when it changes, so no time filter."""
    q = ('SELECT last("vendor") AS "vendor", last("part_number") AS "part_number", last("serial") AS "serial" '
         'FROM "transceivers" GROUP BY "device", "port"')
    out: dict[tuple[str, str], dict[str, str]] = {}
    for tags, columns, values in store.series(q):
        key = (tags.get("device", ""), tags.get("port", ""))
        if values and (keys is None or key in keys):
            row = dict(zip(columns, values[0], strict=True))
            out[key] = {c: str(row[c]) for c in ("vendor", "part_number", "serial") if row.get(c)}
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


def top(store: Store, window: Window, counter: str, *, limit: int = 10, by: str | None = None,
        fields: list[str] | None = None) -> dict[str, list[TopLink]]:
    """Links with the most of `counter` over the window (mean rate; peak beside it), worst first;
    per value of the `by` tag (rail, role, ...) when asked, else under one key ''. BER is a reading,
    not a rate: it comes from `port_counters`, and each link comes with its module's inventory."""
    ber = counter == "ber"
    if ber:
        names = list(BER_FIELDS)
    else:
        names = fields_for(counter, fields if fields is not None else rate_fields(store))
    if not names:
        return {}
    cols = ", ".join(f"mean({quote(f)}) AS {quote('mean_' + f)}, max({quote(f)}) AS {quote('max_' + f)}"
                     for f in names)
    q = f'SELECT {cols} FROM {quote("port_counters" if ber else "port_rates")} WHERE {window.where} GROUP BY *'
    measured = []
    for tags, columns, values in store.series(q):
        if not values:
            continue
        row = dict(zip(columns, values[0], strict=True))
        means = {f: float(row.get(f"mean_{f}") or 0.0) for f in names}
        peaks = {f: float(row.get(f"max_{f}") or 0.0) for f in names}
        if ber and not any(row.get(f"mean_{f}") is not None for f in names):
            continue  # a port whose points in the window carry no BER (its counters)
        measured.append((tags, combine(counter, means), combine(counter, peaks)))
    out = ranked(measured, limit=limit, by=by)
    if ber:
        inv = modules(store, {(x.device, x.port) for links in out.values() for x in links})
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


def _series(store: Store, window: Window, device: str, port: str, step_s: int, fields: list[str],
            times: list[int]) -> tuple[dict[str, list[float | None]], dict[str, str]]:
    wanted = {"gbps_in": ["in_octets"], "gbps_out": ["out_octets"], "pauses": fields_for("pauses", fields),
              "ecn": fields_for("ecn", fields), "errors": fields_for("errors", fields)}
    names = sorted({f for fs in wanted.values() for f in fs})
    out: dict[str, list[float | None]] = {s: [None] * len(times) for s in SERIES}
    tags: dict[str, str] = {}
    if not names:
        return out, tags
    cols = ", ".join(f"max({quote(f)}) AS {quote(f)}" for f in names)
    q = (f'SELECT {cols} FROM "port_rates" WHERE {_where(window, device=device, port=port)} '
         f"GROUP BY time({step_s}s), * fill(none)")
    index = {t: i for i, t in enumerate(times)}
    for series_tags, columns, values in store.series(q):
        tags = tags or series_tags
        for raw in values:
            i = index.get(int(raw[0]))
            if i is None:
                continue
            row = {c: v for c, v in zip(columns[1:], raw[1:], strict=True) if v is not None}
            for s, fs in wanted.items():
                got = [float(row[f]) for f in fs if f in row]
                if got:
                    value = sum(got) * (8e-9 if s.startswith("gbps") else 1.0)
                    old = out[s][i]
                    out[s][i] = value if old is None else max(old, value)
    return out, tags


def events(store: Store, window: Window, device: str, port: str | None = None) -> list[dict[str, Any]]:
    q = f'SELECT "detail" FROM "link_events" WHERE {_where(window, device=device, port=port)} GROUP BY *'
    return sorted(({"time_ns": r.time_ns, "device": r.tags.get("device", ""), "port": r.tags.get("port", ""),
                    "kind": r.tags.get("kind", ""), "detail": str(r.values.get("detail", "")),
                    "source": r.tags.get("source", "")} for r in store.rows(q)), key=lambda e: e["time_ns"])


def link(store: Store, window: Window, device: str, port: str, *, points: int = 60) -> LinkReport:
    step = step_for(window, points)
    first = window.start_ns - window.start_ns % (step * 1_000_000_000)
    times = list(range(first, window.end_ns, step * 1_000_000_000))
    fields = rate_fields(store)
    mine, tags = _series(store, window, device, port, step, fields, times)
    if not tags:
        raise LookupError(f"no rates stored for {device} {port} in the window")
    peer = _peer(tags)
    peer_series = _series(store, window, peer["device"], peer["port"], step, fields, times)[0] if peer else None
    evs = events(store, window, device, port)
    if peer:
        evs = sorted(evs + [{**e, "far": True} for e in events(store, window, peer["device"], peer["port"])],
                     key=lambda e: e["time_ns"])
    found = findings(store, window, device=device, port=port) + [
        i for i in findings(store, window, device=device, port="*") if port in i.ports.split(",")]
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


def device(store: Store, window: Window, name: str) -> list[PortSummary]:
    """Every port of a switch over the window, worst first: flagged, then pauses + 1000 x errors."""
    fields = rate_fields(store)
    groups = {s: fields_for(s, fields) for s in ("pauses", "errors", "ecn")}
    names = sorted({f for fs in groups.values() for f in fs} | {"in_octets", "out_octets"} & set(fields))
    ports: dict[str, PortSummary] = {}
    if names:
        cols = ", ".join(f"mean({quote(f)}) AS {quote('mean_' + f)}, max({quote(f)}) AS {quote('max_' + f)}"
                         for f in names)
        for tags, columns, values in store.series(
                f'SELECT {cols} FROM "port_rates" WHERE {_where(window, device=name)} GROUP BY *'):
            if not values:
                continue
            row = dict(zip(columns, values[0], strict=True))
            p = ports.setdefault(tags.get("port", ""), PortSummary(tags.get("port", ""), tags))
            for s, fs in groups.items():
                setattr(p, s, max(getattr(p, s), sum(float(row.get(f"mean_{f}") or 0.0) for f in fs)))
            p.gbps_peak = max(p.gbps_peak, 8e-9 * max(float(row.get("max_in_octets") or 0.0),
                                                       float(row.get("max_out_octets") or 0.0)))
    for e in events(store, window, name):
        if e["port"] in ports:
            ports[e["port"]].events += 1
    for inc in findings(store, window, device=name):
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


def stored_records(store: Store, window: Window) -> list[dict[str, str]]:
    """The topology as the points carry it: one record per port that had rates in the window."""
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for tags, _, values in store.series(f'SELECT last("in_octets") FROM "port_rates" WHERE {window.where} GROUP BY *'):
        if values and tags.get("device") and tags.get("port"):
            seen.setdefault((tags["device"], tags["port"]), dict(tags))
    return list(seen.values())


def run_of(store: Store, run: str) -> tuple[list[str], int, str]:
    """An NCCL run's hosts, time and collective, from what was stored of it."""
    q = f'SELECT "hosts" FROM "nccl_results" WHERE "run" = {literal(run)} GROUP BY "collective" LIMIT 1'
    for r in store.rows(q):
        return [h for h in str(r.values.get("hosts", "")).split(",") if h], r.time_ns, r.tags.get("collective", "")
    raise LookupError(f"no NCCL run {run!r} stored")


def job(store: Store, window: Window, hosts: list[str]) -> list[JobLink]:
    """The links a job on these hosts used (through the stored topology tags) and what happened on
    them in the window, worst first."""
    links = job_links(stored_records(store, window), hosts)
    if not links:
        raise LookupError(f"no stored link faces {', '.join(hosts[:5])}: are they hosts of this fabric?")
    by_device: dict[str, list[PortSummary]] = {}
    out = []
    for d, p, role, why in links:
        if d not in by_device:
            by_device[d] = device(store, window, d)
        summary = next((s for s in by_device[d] if s.port == p), PortSummary(p, {}))
        out.append(JobLink(summary, d, role, why))
    order = {"critical": 0, "warning": 1, "ok": 2}
    return sorted(out, key=lambda j: (order.get(j.summary.worst, 1), -j.summary.badness, j.device, j.summary.port))
