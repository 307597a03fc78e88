"""`fabricwatch why`: one timeline of a link around a moment — its rates and its far end's, link
events (downs, flaps, resets, UFM events), findings raised and cleared, and the NCCL runs that
crossed it with how they went; and, when the caller could read them, the Slurm jobs that ran across it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from fabricwatch.core.topology import job_links
from fabricwatch.postmortem.incidents import Incident
from fabricwatch.postmortem.influx import InfluxHistory
from fabricwatch.postmortem.jobs import RanJob, crossed, ran_at, sentence
from fabricwatch.postmortem.queries import LinkReport, findings, link
from fabricwatch.postmortem.store import Store, Window, literal


@dataclass(slots=True)
class NcclRun:
    run: str
    collective: str
    nranks: str
    time_ns: int
    hosts: list[str]
    peak_busbw: float
    flagged_rows: int
    rows: int
    why: str = ""  # how it crossed the link

    def to_json(self) -> dict[str, Any]:
        return {"run": self.run, "collective": self.collective, "nranks": self.nranks, "time_ns": self.time_ns,
                "hosts": self.hosts, "peak_busbw_gbps": self.peak_busbw, "flagged_rows": self.flagged_rows,
                "rows": self.rows, "crossed": self.why}


@dataclass(slots=True)
class Timeline:
    at_ns: int
    window: Window
    report: LinkReport
    runs: list[NcclRun] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)  # time-ordered: what happened
    jobs: list[tuple[RanJob, str]] | None = None  # (job, why it crossed); None: not known
    jobs_note: str = ""  # where the jobs came from, or why they are not known

    def to_json(self) -> dict[str, Any]:
        return {"at_ns": self.at_ns, "from_ns": self.window.start_ns, "to_ns": self.window.end_ns,
                "link": self.report.to_json(), "nccl_runs": [r.to_json() for r in self.runs],
                "slurm_jobs": None if self.jobs is None else [j.to_json(w) for j, w in self.jobs],
                "slurm_jobs_note": self.jobs_note, "timeline": self.entries}


def hosts_under(store: Store, leaf: str) -> set[str]:
    """The hosts a leaf's host-facing ports lead to, from the tags stored with its rates."""
    q = (f'SHOW TAG VALUES FROM "port_rates" WITH KEY = "peer_device" WHERE "device" = {literal(leaf)} '
         f"AND \"role\" = 'leaf_down'")
    return {str(v[1]) for _, _, values in store.series(q) for v in values}


def nccl_runs(store: Store, window: Window) -> list[NcclRun]:
    q = (f'SELECT "busbw", "flagged", "hosts" FROM "nccl_results" WHERE {window.where} '
         'GROUP BY "run", "collective", "nranks"')
    runs: dict[str, NcclRun] = {}
    for r in store.rows(q):
        rid = r.tags.get("run", "")
        run = runs.get(rid)
        if run is None:
            hosts = [h for h in str(r.values.get("hosts", "")).split(",") if h]
            run = runs[rid] = NcclRun(rid, r.tags.get("collective", ""), r.tags.get("nranks", ""), r.time_ns,
                                      hosts, 0.0, 0, 0)
        run.rows += 1
        run.peak_busbw = max(run.peak_busbw, float(r.values.get("busbw") or 0.0))
        run.flagged_rows += 1 if r.values.get("flagged") is True else 0
        run.time_ns = min(run.time_ns, r.time_ns)
    return sorted(runs.values(), key=lambda r: r.time_ns)


def crossing(store: Store, report: LinkReport, runs: list[NcclRun]) -> list[NcclRun]:
    """Runs whose traffic could have used the link: a host end in the run, or a leaf uplink (or the
    spine port facing it) when the run has hosts both under that leaf and elsewhere."""
    under = _under(store, report)
    out = []
    for run in runs:
        why = crossed(report.tags, report.device, under, set(run.hosts))
        if why is not None:
            run.why = why
            out.append(run)
    return out


def _under(store: Store, report: LinkReport) -> set[str]:
    """The hosts under the leaf whose uplink this is (a `leaf_up` port, or the spine port facing it)."""
    role = report.tags.get("role", "")
    leaf = report.device if role == "leaf_up" else report.tags.get("peer_device", "") if role == "spine" else ""
    return hosts_under(store, leaf) if leaf else set()


def jobs_crossing(store: Store, report: LinkReport, jobs: list[RanJob], at_ns: int) -> list[tuple[RanJob, str]]:
    """The jobs running at the moment whose traffic could have used the link, with why."""
    under = _under(store, report)
    out = []
    for job in ran_at(jobs, at_ns / 1e9):
        why = crossed(report.tags, report.device, under, set(job.hosts))
        if why is not None:
            out.append((job, why))
    return out


def _iso(ns: int | None) -> str:
    return "-" if ns is None else time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ns / 1e9))


def hurt(inc: Incident) -> str:
    """What was stored of the Slurm jobs on the link while it was flagged ('' when nothing was)."""
    if inc.jobs_total is None:
        return ""
    if not inc.jobs_total:
        return "; no Slurm job on the link then"
    ids = f" (first {', '.join(inc.jobs)})" if inc.jobs else ""
    return f"; it hurt {inc.jobs_total} Slurm job{'s' if inc.jobs_total != 1 else ''}{ids}, as stored then"


def why(store: Store, device: str, port: str, at_ns: int, *, before_s: float = 1800.0,
        after_s: float = 900.0, jobs: list[RanJob] | None = None, jobs_note: str = "") -> Timeline:
    """The link's timeline; `jobs` (None: not known) are the Slurm jobs to join, `jobs_note` says whence."""
    window = Window(at_ns - int(before_s * 1e9), at_ns + int(after_s * 1e9))
    report = link(InfluxHistory(store), window, device, port)
    runs = crossing(store, report, nccl_runs(store, window))
    joined = None if jobs is None else jobs_crossing(store, report, jobs, at_ns)
    entries: list[dict[str, Any]] = []
    for job, how in joined or []:
        entries.append({"time_ns": job.start_unix * 1_000_000_000, "what": "slurm job", "text": sentence(job, how)})
    for e in report.events:
        where = "far end" if e.get("far") else "this end"
        entries.append({"time_ns": e["time_ns"], "what": "event", "text":
                        f"{e['kind']} on {where} ({e['device']} {e['port']}): {e['detail']}"
                        + (f" [{e['source']}]" if e.get("source") else "")})
    for inc in report.incidents:
        target = "the switch" if inc.port == "*" else "the link"
        entries.append({"time_ns": inc.raised_ns, "what": "finding raised", "text":
                        f"{inc.severity} finding on {target} ({'+'.join(sorted(inc.conditions))}): {inc.explanation}"
                        + hurt(inc)})
        if inc.open:
            entries.append({"time_ns": inc.as_of_ns, "what": "finding ongoing",
                            "text": f"ongoing as of {_iso(inc.as_of_ns)} UTC, the newest stored interval "
                                    f"({inc.intervals} intervals flagged so far)"})
        else:
            entries.append({"time_ns": inc.cleared_ns, "what": "finding cleared",
                            "text": f"cleared after {inc.duration_s:.0f} s ({inc.intervals} intervals flagged)"})
    for run in runs:
        verdict = f"{run.flagged_rows} of {run.rows} rows flagged" if run.flagged_rows else "no row flagged"
        entries.append({"time_ns": run.time_ns, "what": "nccl run", "text":
                        f"{run.collective} {run.nranks} ranks on {len(run.hosts)} hosts (run {run.run}): "
                        f"peak busbw {run.peak_busbw:g} GB/s, {verdict}; crossed because {run.why}"})
    entries.sort(key=lambda e: e["time_ns"])
    return Timeline(at_ns, window, report, runs, entries, joined, jobs_note)


@dataclass(slots=True)
class RunTimeline:
    run: NcclRun
    window: Window
    links: list[tuple[str, str, str, str]]  # (device, port, role, why in the path)
    entries: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"run": self.run.to_json(), "from_ns": self.window.start_ns, "to_ns": self.window.end_ns,
                "links": [{"device": d, "port": p, "role": r, "path": w} for d, p, r, w in self.links],
                "timeline": self.entries}


def why_run(store: Store, run: str, *, before_s: float = 900.0, after_s: float = 300.0) -> RunTimeline:
    """`why --run`: around an NCCL run, what happened on every link its hosts used."""
    history = InfluxHistory(store)
    hosts, at, _ = history.run(run)
    window = Window(at - int(before_s * 1e9), at + int(after_s * 1e9))
    found = next((r for r in nccl_runs(store, window) if r.run == run), None)
    if found is None:
        raise LookupError(f"NCCL run {run!r} is not in its own window")
    links = job_links(history.port_tags(window), hosts)
    mine = {(d, p) for d, p, _, _ in links}
    entries: list[dict[str, Any]] = []
    verdict = f"{found.flagged_rows} of {found.rows} rows flagged" if found.flagged_rows else "no row flagged"
    entries.append({"time_ns": found.time_ns, "what": "nccl run", "text": (
        f"{found.collective} {found.nranks} ranks on {len(hosts)} hosts: peak busbw {found.peak_busbw:g} GB/s, "
        f"{verdict}; its traffic crossed {len(links)} links")})
    for device in sorted({d for d, _, _, _ in links}):
        for e in history.events(window, device):
            if (e["device"], e["port"]) in mine:
                entries.append({"time_ns": e["time_ns"], "what": "event", "text":
                                f"{e['kind']} on {e['device']} {e['port']}: {e['detail']}"})
        for inc in findings(history, window, device=device):
            ports = inc.ports.split(",") if inc.port == "*" else [inc.port]
            if any((device, p) in mine for p in ports):
                entries.append({"time_ns": inc.raised_ns, "what": "finding raised", "text":
                                f"{inc.severity} on {device} {inc.port}: {inc.explanation}"})
                if inc.open:
                    entries.append({"time_ns": inc.as_of_ns, "what": "finding ongoing",
                                    "text": f"{device} {inc.port} ongoing as of {_iso(inc.as_of_ns)} UTC"})
                else:
                    entries.append({"time_ns": inc.cleared_ns, "what": "finding cleared",
                                    "text": f"{device} {inc.port} after {inc.duration_s:.0f} s"})
    entries.sort(key=lambda e: e["time_ns"])
    return RunTimeline(found, window, links, entries)
