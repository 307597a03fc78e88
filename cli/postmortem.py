"""`fabricwatch query`, `why` and `export`: post-mortems over what the daemon stored."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fabricwatch.cli.errors import CommandError, load_config
from fabricwatch.core.influxql import InfluxQL, InfluxQLError
from fabricwatch.core.promql import PromQL, PromQLError
from fabricwatch.core.timeparse import parse_time_ns
from fabricwatch.postmortem import queries
from fabricwatch.postmortem.history import History
from fabricwatch.postmortem.incidents import Incident
from fabricwatch.postmortem.influx import InfluxHistory
from fabricwatch.postmortem.store import Store, Window, store_for
from fabricwatch.postmortem.victoria import VictoriaHistory
from fabricwatch.sinks.influxdb.config import InfluxConfig


def store_from_args(args: argparse.Namespace) -> Store:
    """Storage from --influx-url/--influx-db, or from the first InfluxDB sink of -c CONFIG."""
    if getattr(args, "vm_url", None):
        raise CommandError("this command reads InfluxQL; over VictoriaMetrics (--vm-url) the `query` commands "
                           "are answered, not `why` nor `export` (give --influx-url or -c CONFIG)", 2)
    if args.influx_url:
        if not args.influx_db:
            raise CommandError("--influx-url needs --influx-db (for InfluxDB 2.x/3.x: the DBRP database name)", 2)
        auth = (args.influx_user, os.environ.get(args.influx_password_env or "", "")) if args.influx_user else None
        token = os.environ.get(args.influx_token_env) if args.influx_token_env else None
        return Store(InfluxQL(args.influx_url, args.influx_db, auth=auth, token=token, timeout=args.timeout))
    if not args.config:
        raise CommandError("say where the history is: -c CONFIG (its first [[sinks.influxdb]]) or --influx-url", 2)
    cfg = load_config(args.config)
    sinks = [s for s in cfg.storage_sink_configs() if isinstance(s, InfluxConfig)]
    if not sinks:
        raise CommandError(f"{args.config}: no [[sinks.influxdb]] to read from", 2)
    try:
        return store_for(sinks[0], timeout=args.timeout)
    except ValueError as exc:
        raise CommandError(f"{args.config}: {exc}", 2) from None


DEFAULT_FROM = "-1h"


def window_from_args(args: argparse.Namespace) -> Window:
    now = time.time_ns()
    try:
        return Window(parse_time_ns(args.from_ or DEFAULT_FROM, now_ns=now),
                      parse_time_ns(args.to or "now", now_ns=now))
    except ValueError as exc:
        raise CommandError(str(exc), 2) from None


def iso(ns: int | None) -> str:
    return "-" if ns is None else time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ns / 1e9))


def state(i: Incident) -> str:
    """When an incident cleared, or that it is ongoing as of the detector's newest stored interval."""
    return f"ongoing as of {iso(i.as_of_ns)}" if i.open else iso(i.cleared_ns)


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3g}"


def emit(args: argparse.Namespace, doc: Any, header: list[str], rows: Iterable[list[Any]], title: str) -> None:
    """--json: the whole answer as one document; --csv: the table; else a table on the terminal."""
    if args.json:
        print(json.dumps(doc, allow_nan=False, default=str))
        return
    if args.csv:
        out = csv.writer(sys.stdout)
        out.writerow(header)
        out.writerows(rows)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for h in header:
        table.add_column(h, overflow="fold")
    for r in rows:
        table.add_row(*(str(x) for x in r))
    # a pipe or a file gets the whole table, not one folded to 80 columns
    console = Console() if sys.stdout.isatty() else Console(width=200)
    console.print(table)


def _run(fn: Any, args: argparse.Namespace) -> int:
    try:
        return int(fn(args))
    except (InfluxQLError, PromQLError) as exc:
        raise CommandError(f"storage: {exc}") from None
    except LookupError as exc:
        raise CommandError(str(exc.args[0] if exc.args else exc)) from None
    except ValueError as exc:
        raise CommandError(str(exc), 2) from None


# -- query findings --------------------------------------------------------------------------------
def history_from_args(args: argparse.Namespace) -> History:
    """VictoriaMetrics' query API from --vm-url, else InfluxQL (--influx-url or -c CONFIG)."""
    if not getattr(args, "vm_url", None):
        return InfluxHistory(store_from_args(args))
    auth = (args.vm_user, os.environ.get(args.vm_password_env or "", "")) if args.vm_user else None
    return VictoriaHistory(PromQL(args.vm_url, auth=auth, timeout=args.timeout))


def cmd_findings(args: argparse.Namespace) -> int:
    history, window = history_from_args(args), window_from_args(args)
    found = queries.findings(history, window, device=args.device)
    emit(args, {"from_ns": window.start_ns, "to_ns": window.end_ns, "incidents": [i.to_json() for i in found]},
         ["raised", "cleared", "minutes", "severity", "device", "port", "conditions", "slurm jobs", "explanation"],
         ([iso(i.raised_ns), state(i), f"{i.duration_s / 60:.1f}", i.severity,
           i.device, i.port, "+".join(sorted(i.conditions)), stored_jobs(i), i.explanation] for i in found),
         f"{len(found)} incidents, {iso(window.start_ns)} to {iso(window.end_ns)} UTC, "
         "worst (duration x severity) first")
    return 0


def stored_jobs(i: Incident) -> str:
    """'3 (first 41873,41874,41880)'; '-' when no jobs were stored with it (no [slurm], or Slurm not answering)."""
    if i.jobs_total is None:
        return "-"
    return f"{i.jobs_total} (first {','.join(i.jobs)})" if i.jobs else str(i.jobs_total)


# -- query top -------------------------------------------------------------------------------------
def _ber(x: float) -> str:
    return f"{x:.2e}"


def _module(m: dict[str, str] | None) -> str:
    return " ".join(v for v in ((m or {}).get("vendor", ""), (m or {}).get("part_number", "")) if v) or "-"


def cmd_top(args: argparse.Namespace) -> int:
    history, window = history_from_args(args), window_from_args(args)
    groups = queries.top(history, window, args.counter, limit=args.limit, by=args.by)
    ber = args.counter == "ber"
    rows = [[g or "-", link.device, link.port, _ber(link.mean) if ber else _num(link.mean),
             _ber(link.peak) if ber else _num(link.peak), link.tags.get("role", ""), link.to_json()["peer"],
             *([_module(link.module), (link.module or {}).get("serial", "-")] if ber else [])]
            for g, links in groups.items() for link in links]
    emit(args, {"counter": args.counter, "by": args.by,
                "groups": {g: [x.to_json() for x in links] for g, links in groups.items()}},
         [args.by or "group", "device", "port", "mean pre-FEC BER" if ber else f"mean {args.counter}/s", "peak",
          "role", "far end", *(["module", "serial"] if ber else [])], rows,
         f"most {args.counter} ({queries.ALIASES.get(args.counter, args.counter)}), "
         f"{'mean reading' if ber else 'mean rate'} over the window")
    return 0


# -- query link ------------------------------------------------------------------------------------
def cmd_link(args: argparse.Namespace) -> int:
    history, window = history_from_args(args), window_from_args(args)
    rep = queries.link(history, window, args.device, args.port, points=args.points)
    peer = rep.peer or {}
    rows = [[iso(t)] + [_num(rep.mine[s][i]) for s in queries.SERIES] + [_num(peer[s][i]) if peer else "-"
                                                                         for s in ("gbps_in", "pauses", "errors")]
            for i, t in enumerate(rep.times)]
    far = queries._peer(rep.tags)
    emit(args, rep.to_json(), ["time", "Gb/s in", "Gb/s out", "pauses/s", "ecn/s", "errors/s",
                                "far Gb/s in", "far pauses/s", "far errors/s"], rows,
         f"{args.device} {args.port} ({rep.tags.get('role', '?')}, rail {rep.tags.get('rail', '?')}) <-> "
         f"{far['device'] + ' ' + far['port'] if far else 'far end unknown'}; highest per {rep.step_s:g} s")
    if not (args.json or args.csv):
        for e in rep.events:
            print(f"  {iso(e['time_ns'])}  {'far end ' if e.get('far') else ''}{e['kind']}: {e['detail']}")
        for i in rep.incidents:
            print(f"  finding {i.severity} {iso(i.raised_ns)} -> {state(i)}: "
                  f"{i.explanation}")
    return 0


# -- query device ----------------------------------------------------------------------------------
def cmd_device(args: argparse.Namespace) -> int:
    history, window = history_from_args(args), window_from_args(args)
    ports = queries.device(history, window, args.device)
    if not ports:
        raise CommandError(f"no rates stored for {args.device} in the window")
    emit(args, {"device": args.device, "ports": [p.to_json() for p in ports]},
         ["port", "worst", "flagged intervals", "pauses/s", "errors/s", "ecn/s", "peak Gb/s", "events", "role",
          "far end"],
         ([p.port, p.worst, p.flagged_intervals, _num(p.pauses), _num(p.errors), _num(p.ecn), _num(p.gbps_peak),
           p.events, p.tags.get("role", ""), p.to_json()["peer"] and "{device} {port}".format(**p.to_json()["peer"])]
          for p in ports),
         f"{args.device}: every port, worst first (mean rates over the window)")
    return 0


# -- query job -------------------------------------------------------------------------------------
def cmd_job(args: argparse.Namespace) -> int:
    from fabricwatch.slurm.lookup import is_job_id

    history = history_from_args(args)
    if bool(args.run) == bool(args.hosts):
        raise CommandError("give an NCCL RUN id, a Slurm JOBID or --hosts H1,H2 (not one and another)", 2)
    if args.run and is_job_id(args.run):
        return _slurm_job(args, history)
    if args.run:
        hosts, at, _ = history.run(args.run)
        # the run's own window unless one was given: its points carry the time it was ingested at
        window = window_from_args(args) if args.from_ or args.to else \
            Window(at - 900 * 1_000_000_000, at + 60 * 1_000_000_000)
    else:
        hosts, window = [h for h in args.hosts.split(",") if h], window_from_args(args)
    links = queries.job(history, window, hosts)
    emit(args, {"hosts": hosts, "from_ns": window.start_ns, "to_ns": window.end_ns,
                "links": [j.to_json() for j in links]},
         ["link", "role", "worst", "flagged intervals", "pauses/s", "errors/s", "ecn/s", "peak Gb/s", "events",
          "path"],
         ([f"{j.device} {j.summary.port}", j.role, j.summary.worst, j.summary.flagged_intervals,
           _num(j.summary.pauses), _num(j.summary.errors), _num(j.summary.ecn), _num(j.summary.gbps_peak),
           j.summary.events, j.why] for j in links),
         f"{len(links)} links used by {len(hosts)} hosts, {iso(window.start_ns)} to {iso(window.end_ns)} UTC, "
         "worst first")
    return 0


def _slurm_job(args: argparse.Namespace, history: History) -> int:
    """A Slurm job: its nodes (from Slurm, mapped to fabric hosts), its links, and the findings on them
    while it ran (or in --from/--to)."""
    from fabricwatch.cli.slurm import slurm_job

    job, hosts = slurm_job(args, args.run)
    now = time.time_ns()
    end = job.end_unix * 1_000_000_000 if job.end_unix and job.state not in ("RUNNING", "SUSPENDED") else now
    window = window_from_args(args) if args.from_ or args.to or not job.start_unix else \
        Window(job.start_unix * 1_000_000_000, min(end, now))
    links = queries.job(history, window, hosts)
    ends = {(j.device, j.summary.port) for j in links}
    touched = [i for i in queries.findings(history, window) if (i.device, i.port) in ends]
    emit(args, {"job": {**job.to_json(), "state": job.state, "partition": job.partition}, "hosts": hosts,
                "from_ns": window.start_ns, "to_ns": window.end_ns, "findings": [i.to_json() for i in touched],
                "links": [j.to_json() for j in links]},
         ["raised", "cleared", "severity", "device", "port", "conditions", "explanation"],
         ([iso(i.raised_ns), state(i), i.severity, i.device, i.port,
           "+".join(sorted(i.conditions)), i.explanation] for i in touched),
         f"Slurm job {job.id} ({job.name}, {job.user}) on {len(hosts)} hosts, {len(links)} links: {len(touched)} "
         f"findings touched them, {iso(window.start_ns)} to {iso(window.end_ns)} UTC")
    return 0


# -- why -------------------------------------------------------------------------------------------
def cmd_why(args: argparse.Namespace) -> int:
    from fabricwatch.postmortem.html import timeline_page
    from fabricwatch.postmortem.timeline import why, why_run

    store = store_from_args(args)
    if args.run:
        rt = why_run(store, args.run, before_s=args.before, after_s=args.after)
        if args.json:
            print(json.dumps(rt.to_json(), allow_nan=False, default=str))
            return 0
        print(f"NCCL run {args.run}: {len(rt.links)} links between {len(rt.run.hosts)} hosts, "
              f"{iso(rt.window.start_ns)} to {iso(rt.window.end_ns)} UTC")
        for e in rt.entries:
            print(f"  {iso(e['time_ns'])}  {e['what']:<15} {e['text']}")
        return 0
    if not (args.device and args.port and args.at):
        raise CommandError("give DEVICE PORT --at TIME, or --run NCCL_RUN", 2)
    try:
        at = parse_time_ns(args.at)
    except ValueError as exc:
        raise CommandError(str(exc), 2) from None
    from fabricwatch.cli.slurm import jobs_at

    jobs, note = jobs_at(args, at)
    tl = why(store, args.device, args.port, at, before_s=args.before, after_s=args.after, jobs=jobs, jobs_note=note)
    if args.html:
        args.html.write_text(timeline_page(tl))
    if args.json:
        print(json.dumps(tl.to_json(), allow_nan=False, default=str))
        return 0
    rep = tl.report
    far = queries._peer(rep.tags)
    print(f"{rep.device} {rep.port}: role {rep.tags.get('role', '?')}, rail {rep.tags.get('rail', '?')}, "
          f"far end {far['device'] + ' ' + far['port'] if far else 'unknown'}")
    print(f"around {iso(at)} UTC ({iso(tl.window.start_ns)} to {iso(tl.window.end_ns)})")
    for e in tl.entries:
        print(f"  {iso(e['time_ns'])}  {e['what']:<15} {e['text']}")
    if not tl.entries:
        print("  nothing happened on this link in the window: no event, no finding, no NCCL run crossed it")
    if tl.jobs is None:
        stored = any(i.jobs_total is not None for i in rep.incidents)
        print(f"  {tl.jobs_note}" + ("; the findings above say the jobs stored with them" if stored else ""))
    elif not tl.jobs:
        print(f"  no Slurm job ran across this link at {iso(at)} UTC ({tl.jobs_note})")
    peaks = {s: max((v for v in rep.mine[s] if v is not None), default=None) for s in queries.SERIES}
    print("  peaks: " + ", ".join(f"{s} {_num(v)}" for s, v in peaks.items()))
    if args.html:
        print(f"  the page: {args.html}")
    return 0


# -- export ----------------------------------------------------------------------------------------
def cmd_export(args: argparse.Namespace) -> int:
    from fabricwatch.postmortem.export import export_lines

    store, window = store_from_args(args), window_from_args(args)
    out = open(args.out, "w") if args.out else sys.stdout
    n = 0
    try:
        def progress(done: int, total: int) -> None:
            print(f"\rexport: {done}/{total} chunks, {n:,} lines", end="", file=sys.stderr, flush=True)

        for text in export_lines(store, window, measurement=args.measurement,
                                 progress=progress if args.out else None):
            out.write(text + "\n")
            n += 1
    finally:
        if args.out:
            out.close()
            print(file=sys.stderr)
    if n == 0:
        print(f"{args.prog}: nothing stored in {args.measurement} in the window", file=sys.stderr)
        return 1
    return 0


def add_storage_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-c", "--config", type=Path, help="read from the first [[sinks.influxdb]] of this config")
    p.add_argument("--influx-url", help="or: InfluxDB URL (InfluxQL /query: 1.x, 2.x via DBRP, 3.x)")
    p.add_argument("--influx-db", help="database (2.x/3.x: the DBRP database name)")
    p.add_argument("--influx-user")
    p.add_argument("--influx-password-env", help="environment variable holding the password")
    p.add_argument("--influx-token-env", help="environment variable holding a 2.x/3.x API token")
    p.add_argument("--vm-url", help="or: VictoriaMetrics' URL (its own query API; the `query` commands)")
    p.add_argument("--vm-user")
    p.add_argument("--vm-password-env", help="environment variable holding the VictoriaMetrics password")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds per query, for its whole answer however slowly it comes")


def _window_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--from", dest="from_", help=f"ISO 8601, '-2h', 'yesterday 22:00' (UTC); default {DEFAULT_FROM} "
                   "(query job RUN: the run's own window)")
    p.add_argument("--to", help="default: now")


def _output_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="one JSON document")
    g.add_argument("--csv", action="store_true", help="the table as CSV")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    query = sub.add_parser("query", help="post-mortem queries over storage (link, device, findings, top)")
    qsub = query.add_subparsers(dest="what", required=True)

    def command(name: str, help_: str, fn: Any) -> argparse.ArgumentParser:
        p = qsub.add_parser(name, help=help_)
        add_storage_arguments(p)
        _window_arguments(p)
        _output_arguments(p)
        p.set_defaults(func=lambda a: _run(fn, a))
        return p

    p = command("findings", "what was flagged in a window, as incidents (raised, cleared), worst first", cmd_findings)
    p.add_argument("--device", help="only this device's")
    p = command("top", "the links with the most of a counter in a window", cmd_top)
    p.add_argument("counter", help=f"{', '.join(queries.ALIASES)}, or any stored rate (e.g. pfc_rx_p3)")
    p.add_argument("--by", help="a tag to rank within (rail, role, fabric, ...)")
    p.add_argument("--limit", type=int, default=10)
    p = command("link", "one link over a window: rates beside its far end's, events, findings", cmd_link)
    p.add_argument("device")
    p.add_argument("port")
    p.add_argument("--points", type=int, default=30, help="rows over the window (default %(default)s)")
    p = command("device", "every port of a switch, worst first", cmd_device)
    p.add_argument("device")
    p = command("job", "the links an NCCL run's, a Slurm job's (or a set of) hosts used, and what happened on them",
                cmd_job)
    p.add_argument("run", nargs="?", help="an NCCL run id (the `run` tag of nccl_results), or a Slurm job id "
                   "(digits, or 123_4 for an array task: read from [slurm] of -c CONFIG)")
    p.add_argument("--hosts", help="or: the hosts, comma-separated (with --from/--to)")

    w = sub.add_parser("why", help="one timeline of a link around a moment: events, findings, NCCL runs, rates")
    add_storage_arguments(w)
    w.add_argument("device", nargs="?")
    w.add_argument("port", nargs="?")
    w.add_argument("--at", help="the moment: ISO 8601, '-2h', 'yesterday 22:00' (UTC)")
    w.add_argument("--run", help="instead of a link: an NCCL run id, and every link its hosts used")
    w.add_argument("--before", type=float, default=1800.0, help="seconds before --at (default %(default)s)")
    w.add_argument("--after", type=float, default=900.0, help="seconds after --at (default %(default)s)")
    w.add_argument("--html", type=Path, help="also write a self-contained page with plots")
    w.add_argument("--json", action="store_true")
    w.set_defaults(func=lambda a: _run(cmd_why, a))

    e = sub.add_parser("export", help="stored port_counters out as line protocol (archives, bug reports, replay)")
    add_storage_arguments(e)
    _window_arguments(e)
    e.add_argument("--measurement", default="port_counters")
    e.add_argument("-o", "--out", type=Path, help="file to write (default: standard output)")
    e.set_defaults(func=lambda a: _run(cmd_export, a))
