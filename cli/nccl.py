"""`fabricwatch nccl parse`: nccl-tests output -> documented run records."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fabricwatch.cli.errors import load_config, warn
from fabricwatch.core.nccl_records import RunRecord
from fabricwatch.nccl.parser import COLLECTIVES, parse_file


def cmd_parse(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:
        try:
            runs = parse_file(path, args.collective)
        except (OSError, ValueError) as exc:
            warn(args, f"{exc}")
            status = 1
            continue
        if not any(r.rows for r in runs):
            warn(args, f"{path}: no result rows found")
            status = 1
        for run in runs:
            if run.stopped_at:
                print(f"{path}: incomplete run: parsed {len(run.rows)} rows, stopped after line "
                      f"{run.stopped_at['line']}: {run.stopped_at['reason']}", file=sys.stderr)
            if args.json:
                print(json.dumps(run.to_json()))
            else:
                flagged = sum(1 for r in run.rows if r.flags)
                plateau = max((r.out_of_place.busbw or 0.0) for r in run.rows if r.out_of_place) if run.rows else 0
                ranks = run.nranks if run.nranks is not None else "unknown"
                hosts = f"{len(run.hosts)} host{'' if len(run.hosts) == 1 else 's'}"
                if run.nranks is None and run.hosts:
                    hosts += " (of those its rank lines name)"  # a partial rank list: not all of them
                print(f"{path}: {run.collective or 'unknown collective'} ({run.collective_from}), "
                      f"{ranks} rank{'' if ranks == 1 else 's'} on {hosts}, {len(run.rows)} rows, "
                      f"peak busbw {plateau:g} GB/s, {flagged} rows flagged, "
                      f"{'complete' if run.complete else 'INCOMPLETE'}")
    return status


def _runs(paths: list[Path], err: list[str]) -> list[RunRecord]:
    runs = []
    for path in paths:
        try:
            runs += parse_file(path)
        except (OSError, ValueError) as exc:
            err.append(str(exc))
    return runs


def cmd_gate(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from fabricwatch.nccl.gate import gate, load_thresholds, not_judged, suggest

    errors: list[str] = []
    runs = _runs(args.runs, errors)
    for e in errors:
        warn(args, f"{e}")
    if args.suggest:
        if not runs:
            warn(args, "no runs to learn from")
            return 2
        text = suggest(runs)
        if args.out:
            args.out.write_text(text)
        else:
            print(text)
        return 0
    if args.thresholds is None:
        warn(args, "give --thresholds FILE (or --suggest to write one)")
        return 2
    try:
        thresholds = load_thresholds(args.thresholds)
    except ValueError as exc:
        warn(args, f"{exc}")
        return 2
    results = gate(thresholds, runs)
    left = not_judged(thresholds, runs)
    passed = all(r.passed for r in results) and not errors and not (args.strict and left)
    drains = _drain(args, runs, results) if args.drain else []
    if args.json:
        print(json.dumps({"verdict": "pass" if passed else "fail", "runs": [r.source for r in runs],
                          "unreadable": errors, "checks": [r.to_json() for r in results],
                          "not_judged": [{"run": r.source, "collective": r.collective, "nranks": r.nranks}
                                         for r in left], "drains": drains}))
    else:
        table = Table(title=f"NCCL acceptance gate: {'PASS' if passed else 'FAIL'}")
        for col in ("check", "runs", "worst busbw", "worst CV %", "verdict", "why"):
            table.add_column(col)
        for r in results:
            table.add_row(r.check.name(), str(len(r.runs)),
                          "" if r.worst_busbw is None else f"{r.worst_busbw:g}",
                          "" if r.worst_cv_pct is None else f"{r.worst_cv_pct:.1f}",
                          "[green]pass" if r.passed else "[red]FAIL", "\n".join(r.failures[:5]))
        Console().print(table)
        if left:
            print(f"{len(left)} run{'s' if len(left) != 1 else ''} not judged (no check matches them)"
                  f"{': --strict fails on them' if args.strict else '; --strict fails on them'}:")
            for run in left:
                print(f"  {run.source}: {run.collective or 'unknown collective'}, "
                      f"{run.nranks if run.nranks is not None else 'unknown'} ranks")
        if args.drain:
            from fabricwatch.cli.slurm import describe

            for entry in drains:
                print(describe(entry))
    return 0 if passed else 1


def _drain(args: argparse.Namespace, runs: list[RunRecord], results: list[Any]) -> list[dict[str, Any]]:
    """The hosts of every run that failed a check on its own (not a shortfall of runs or a variation across
    them, which no node is to blame for): all of a run's hosts, as a run cannot say which of them failed."""
    from fabricwatch.cli.slurm import drain_failed, record_passes

    by_source = {r.source: r for r in runs}
    failed: dict[str, str] = {}
    for res in results:
        for source, why in res.failed_runs.items():
            failed.setdefault(source, why)
    for source in failed:
        if not by_source[source].hosts:
            warn(args, f"{source} failed but names no hosts: nothing to drain for it")
    drains = drain_failed(args, [(s, list(by_source[s].hosts), why) for s, why in failed.items()])
    # a run judged by a check and failing none on its own: its hosts passed acceptance (for `actions resume`)
    judged = {source for res in results for source in res.runs}
    passed = [(s, list(by_source[s].hosts)) for s in sorted(judged - failed.keys()) if s in by_source]
    return drains + record_passes(args, passed, {h for s in failed for h in by_source[s].hosts})


def cmd_ingest(args: argparse.Namespace) -> int:
    """Parse files and write nccl_results through the config's sinks (spooled if storage is down)."""
    import asyncio

    from fabricwatch.nccl.ingest import prepare
    from fabricwatch.sinks.spool import SpoolInUse

    cfg = load_config(args.config)
    try:
        sinks = [s.build() for s in cfg.storage_sink_configs()]
    except SpoolInUse as exc:
        warn(args, f"{exc}; a running daemon takes runs through POST /api/nccl (nccl/README.md)")
        return 1
    if not sinks:
        warn(args, "the config has no storage sink to write to")
        return 2

    async def main() -> int:
        status = 0
        for sink in sinks:
            await sink.start()
        try:
            for path in args.files:
                try:
                    prepared = prepare(path.read_bytes(), str(path), path=path, site=cfg.daemon.site,
                                       collective=args.collective)
                except (OSError, ValueError) as exc:
                    warn(args, f"{exc}")
                    status = 1
                    continue
                for run, lines in prepared:
                    for sink in sinks:
                        await sink.write(lines)
                    print(f"{path}: {run.collective} {run.nranks} ranks, {len(run.rows)} rows -> {len(lines)} points")
        finally:
            for sink in sinks:
                await sink.close()
        spooled = sum(s.queue_depth for s in sinks)
        if spooled:
            print(f"fabricwatch nccl ingest: {spooled} points spooled (storage not reachable); "
                  "the daemon or the next ingest sends them", file=sys.stderr)
        return status

    return asyncio.run(main())


def cmd_blame(args: argparse.Namespace) -> int:
    from fabricwatch.core.influxql import InfluxQL
    from fabricwatch.core.timeparse import parse_time_ns
    from fabricwatch.core.topology import Topology
    from fabricwatch.nccl.blame import blame

    try:
        (run, *_) = parse_file(args.run)
        topology = Topology.load(args.topology)
    except (OSError, ValueError) as exc:
        warn(args, f"{exc}")
        return 2
    hosts = args.hosts.split(",") if args.hosts else run.hosts
    if not hosts:
        warn(args, "the run names no hosts; give --hosts")
        return 2

    try:
        end = parse_time_ns(args.end) if args.end else int(args.run.stat().st_mtime * 1e9)
        start = parse_time_ns(args.start) if args.start else end - int(3600e9)
    except ValueError as exc:
        warn(args, f"{exc}")
        return 2
    try:
        ranked = blame(InfluxQL(args.influx_url, args.influx_db), topology, hosts, start, end)
    except (OSError, ValueError) as exc:
        warn(args, f"{exc}")
        return 1
    if args.json:
        print(json.dumps({"run": str(args.run), "hosts": hosts, "start_ns": start, "end_ns": end,
                          "links": [c.to_json() for c in ranked]}))
    else:
        for i, c in enumerate(ranked[: args.top], 1):
            print(f"{i:2d}. {c.device}:{c.port} ({c.role}, {c.why_in_path}): {c.explanation}")
    return 0


def cmd_analyse(args: argparse.Namespace) -> int:
    from fabricwatch.models.collective import analyse

    errors: list[str] = []
    runs = _runs(args.runs, errors)
    for e in errors:
        warn(args, f"{e}")
    reports = analyse(runs)
    if args.json:
        for rep in reports:
            print(json.dumps(rep.to_json()))
    else:
        for rep in reports:
            worst_cv = max(rep.cv_pct.values(), default=0.0)
            print(f"{rep.collective}, {rep.nranks} ranks: {len(rep.runs)} runs, worst run-to-run CV {worst_cv:.1f}%")
            for f in rep.findings:
                print(f"  {f.kind:10s} {f.source}: {f.detail}")
    return 1 if any(rep.findings for rep in reports) else 0


def cmd_report(args: argparse.Namespace) -> int:
    from fabricwatch.models.collective import analyse
    from fabricwatch.nccl.gate import gate, load_thresholds
    from fabricwatch.nccl.report import Context, render
    from fabricwatch.topology import check as cabling
    from fabricwatch.topology.cables import speed_gbps

    errors: list[str] = []
    runs = _runs(args.runs, errors)
    for e in errors:
        warn(args, f"{e}")
    ctx = Context()
    verdict = None
    if args.thresholds:
        try:
            thresholds = load_thresholds(args.thresholds)
        except ValueError as exc:
            warn(args, f"{exc}")
            return 2
        verdict = gate(thresholds, runs)
        ctx.thresholds, ctx.checks = str(args.thresholds), thresholds.check
    if args.line_rate:
        ctx.line_rate_gbps = speed_gbps(args.line_rate)
        if ctx.line_rate_gbps is None:
            warn(args, f"--line-rate: not a speed: {args.line_rate!r} (e.g. 400G)")
            return 2
    if args.cabling_plan:
        if not args.actual:
            warn(args, "--cabling-plan needs --actual topology.json (from fabricwatch topology discover)")
            return 2
        try:
            plan = cabling.load_plan(args.cabling_plan)
            actual = cabling.actual_ends(json.loads(args.actual.read_text()))
        except (OSError, ValueError) as exc:
            warn(args, f"{exc}")
            return 2
        ctx.cabling_plan, ctx.cabling = str(args.cabling_plan), [d.to_json() for d in cabling.check(plan, actual)]
        ctx.planned_cables = cabling.planned_cables(plan)
    blamed = None
    if args.blame:
        blamed = json.loads(args.blame.read_text()).get("links", [])
    args.out.write_text(render(runs, analyse(runs), verdict, blamed, ctx))
    print(f"wrote {args.out}")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    rep = sub.add_parser("report", help="a self-contained HTML report over NCCL runs")
    rep.add_argument("runs", nargs="+", type=Path)
    rep.add_argument("--thresholds", type=Path, help="add the gate's verdict")
    rep.add_argument("--blame", type=Path, help="the JSON of `fabricwatch nccl blame --json`")
    rep.add_argument("--line-rate", help="one NIC's line rate (e.g. 400G): drawn on the plots, busbw as a share of it")
    rep.add_argument("--cabling-plan", type=Path, help="add the cabling check: the plan (topology JSON or CSV)")
    rep.add_argument("--actual", type=Path, help="with --cabling-plan: the discovered topology.json")
    rep.add_argument("--out", type=Path, required=True)
    rep.set_defaults(func=cmd_report)
    g = sub.add_parser("gate", help="acceptance verdict over NCCL runs (exit 0 pass, 1 fail)")
    g.add_argument("runs", nargs="+", type=Path, help="nccl-tests outputs (text or JSON)")
    g.add_argument("--thresholds", type=Path, help="operator thresholds (TOML)")
    g.add_argument("--json", action="store_true")
    g.add_argument("--strict", action="store_true", help="fail when a run is not judged (no check matches it)")
    g.add_argument("--suggest", action="store_true", help="write starting thresholds from these (healthy) runs")
    g.add_argument("--out", type=Path, help="with --suggest: the file to write")
    g.add_argument("--drain", action="store_true", help="drain the Slurm nodes of the runs that failed, as the "
                   "daemon drains ([slurm.actions] of -c: enabled, dry run unless it says not, caps, audit log)")
    g.add_argument("-c", "--config", type=Path, help="with --drain: the config whose [slurm] to use")
    g.add_argument("--dry-run", action="store_true", help="with --drain: a dry run whatever the config says")
    g.set_defaults(func=cmd_gate)

    nccl = sub.add_parser("nccl", help="NCCL test results")
    nsub = nccl.add_subparsers(dest="nccl_command", required=True)
    parse = nsub.add_parser("parse", help="parse nccl-tests output (text or -J JSON)")
    parse.add_argument("files", nargs="+", type=Path)
    parse.add_argument("--json", action="store_true", help="one JSON run record per line")
    parse.add_argument("--collective", choices=COLLECTIVES,
                       help="name the collective when the log does not (no header line, odd file name)")
    parse.set_defaults(func=cmd_parse)
    ing = nsub.add_parser("ingest", help="write runs to the config's sinks as nccl_results")
    ing.add_argument("-c", "--config", required=True, type=Path)
    ing.add_argument("files", nargs="+", type=Path)
    ing.add_argument("--collective", choices=COLLECTIVES)
    ing.set_defaults(func=cmd_ingest)
    bl = nsub.add_parser("blame", help="rank the links a run crossed by their findings and counters")
    bl.add_argument("run", type=Path)
    bl.add_argument("--topology", type=Path, required=True, help="port records with role and peer tags")
    bl.add_argument("--influx-url", required=True)
    bl.add_argument("--influx-db", required=True)
    bl.add_argument("--hosts", help="comma-separated hosts (default: the run's rank lines)")
    bl.add_argument("--from", "--start", dest="start",
                    help="window start: ISO 8601, '-2h', 'yesterday 22:00' (default: an hour before --to)")
    bl.add_argument("--to", "--end", dest="end", help="window end (default: the file's modification time)")
    bl.add_argument("--top", type=int, default=10)
    bl.add_argument("--json", action="store_true")
    bl.set_defaults(func=cmd_blame)
    an = nsub.add_parser("analyse", aliases=["analyze"],
                         help="run-to-run variance, stalls and scaling over repeated runs (exit 1 if any is flagged)")
    an.add_argument("runs", nargs="+", type=Path)
    an.add_argument("--json", action="store_true", help="one JSON report per (collective, ranks) group")
    an.set_defaults(func=cmd_analyse)
