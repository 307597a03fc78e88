"""`fabricwatch actions list|resume NODE`: the Slurm actions taken on findings and their undo; and the
Slurm job behind `fabricwatch query job JOBID`."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from fabricwatch.cli.errors import CommandError, load_config
from fabricwatch.postmortem.jobs import RanJob
from fabricwatch.slurm.audit import GATE, AuditLog, outstanding
from fabricwatch.slurm.commands import SlurmError
from fabricwatch.slurm.config import SlurmConfig
from fabricwatch.slurm.records import RUNNING, Job

# slurmctld's default MinJobAge: a job that ended longer ago is gone from it, and only accounting
# (slurmdbd, `sacct`) would know it
NOW_ISH_S = 300.0


def _slurm(args: argparse.Namespace) -> tuple[SlurmConfig, str]:
    cfg = load_config(args.config)
    host, _, port = cfg.daemon.listen.rpartition(":")
    if host in ("0.0.0.0", "[::]", "::", ""):
        host = "127.0.0.1"  # a wildcard listener answers on loopback too
    return cfg.slurm, f"http://{host}:{port}"


def slurm_job(args: argparse.Namespace, job_id: str) -> tuple[Job, list[str]]:
    """The job and its fabric hosts (through [slurm] node_names), read from the Slurm of -c CONFIG."""
    if not args.config:
        raise CommandError("a Slurm job id needs -c CONFIG (its [slurm] says where Slurm is)", 2)
    from fabricwatch.slurm.lookup import find_job

    cfg, _ = _slurm(args)
    if not cfg.enabled:
        raise CommandError(f"{args.config}: no [slurm] rest_url or command: cannot read job {job_id}", 2)
    try:
        job = asyncio.run(find_job(cfg, job_id))
    except SlurmError as exc:
        raise CommandError(f"slurm: {exc}") from None
    return job, [cfg.host_of(n) for n in job.nodes]


def jobs_at(args: argparse.Namespace, at_ns: int) -> tuple[list[RanJob] | None, str]:
    """The jobs Slurm holds, for `why` at a moment near now; None and the reason when they cannot be known."""
    cfg = load_config(args.config).slurm if args.config else None
    if cfg is None or not cfg.enabled:
        return None, "jobs: unknown (no [slurm] in -c CONFIG to read them from)"
    if abs(time.time() - at_ns / 1e9) > NOW_ISH_S:
        return None, ("jobs: unknown at a past time: only the jobs slurmctld still holds are read (running, or "
                      "ended within its MinJobAge); Slurm's accounting (slurmdbd, sacct) is not read here")
    from fabricwatch.slurm.readers import reader_for

    try:
        held = asyncio.run(reader_for(cfg).jobs(running=False))
    except SlurmError as exc:
        return None, f"jobs: unknown (slurm: {exc})"
    # a running job's end_time is its time limit, not an end
    jobs = [RanJob(j.id, j.user, j.name, frozenset(cfg.host_of(n) for n in j.nodes), len(j.nodes), j.start_unix,
                   0 if j.state in RUNNING else j.end_unix) for j in held]
    return jobs, f"jobs: as Slurm held them at {time.strftime('%H:%M:%S', time.gmtime())} UTC"




def drain_failed(args: argparse.Namespace, failed: list[tuple[str, list[str], str]]) -> list[dict[str, Any]]:
    """`gate --drain`: the nodes of the runs that failed, (source, hosts, first failure) each, through the
    daemon's Drainer: [slurm.actions] enabled, its caps and audit log, a dry run unless it says otherwise."""
    from fabricwatch.slurm.actions import Drainer, HostDrain
    from fabricwatch.slurm.control import Scontrol
    from fabricwatch.slurm.readers import reader_for

    if not args.config:
        raise CommandError("--drain needs -c CONFIG (its [slurm] and [slurm.actions])", 2)
    cfg, _ = _slurm(args)
    if not cfg.enabled or not cfg.actions.enabled:
        raise CommandError(f"{args.config}: --drain needs [slurm] (rest_url or command) and [slurm.actions] "
                           "enabled = true", 2)
    actions = cfg.actions.model_copy(update={"dry_run": True}) if args.dry_run else cfg.actions
    wanted: dict[str, HostDrain] = {}
    for source, hosts, why in failed:
        for host in hosts:
            wanted.setdefault(host, HostDrain(host, GATE, Path(source).name, why))
    drainer = Drainer(actions, reader_for(cfg), Scontrol(cfg), AuditLog(actions.audit_log), cfg.node_of)
    try:
        return asyncio.run(drainer.drain_hosts(list(wanted.values()), by="gate"))
    except SlurmError as exc:
        raise CommandError(f"slurm: {exc}") from None


def record_passes(args: argparse.Namespace, passed: list[tuple[str, list[str]]],
                  failed_hosts: set[str]) -> list[dict[str, Any]]:
    """`gate --drain`: for each host the gate drained (and not resumed) whose run, (source, hosts) each, passed
    its checks and was written after the drain, an `accept` entry in the audit log: what lets `actions resume`
    let it go. A host that also failed a run here is not accepted; nothing is done to Slurm."""
    cfg, _ = _slurm(args)
    audit = AuditLog(cfg.actions.audit_log)
    held = outstanding(audit.read())
    out = []
    for source, hosts in passed:
        written = _written(source)
        for host in hosts:
            node = cfg.node_of(host)
            drain = held.get(node)
            if host in failed_hosts or drain is None or drain.get("device") != GATE or written is None \
                    or written <= float(drain.get("time_unix") or 0):
                continue
            out.append(audit.append({
                "action": "accept", "outcome": "passed", "node": node, "host": host, "device": GATE,
                "port": Path(source).name, "run_unix": written, "by": "gate", "dry_run": False,
                "why": f"{Path(source).name} passed (written {time.strftime('%H:%M:%S', time.gmtime(written))} UTC, "
                       f"after the drain); `fabricwatch actions resume {node}` resumes it"}))
    return out


def _written(source: str) -> float | None:
    """When a run's output was written (its file's mtime: a log carries no time of its own); None if unknown."""
    path, _, k = source.rpartition("#")
    try:
        return Path(path if path and k.isdigit() else source).stat().st_mtime
    except OSError:
        return None


def describe(entry: dict[str, Any]) -> str:
    """One audited decision as a line: 'would drain gpu000: ...', 'refused gpu001: cap: ...'."""
    node, outcome = entry.get("node", "?"), entry.get("outcome")
    if outcome == "would":
        return f"dry run: would drain {node}: Reason=\"{entry.get('reason', '')}\""
    if outcome == "done":
        return f"drained {node}: Reason=\"{entry.get('reason', '')}\""
    if outcome == "passed":
        return f"accepted {node}: {entry.get('why', '')}"
    return f"{outcome} {node}: {entry.get('why', '')}"


def _audit(args: argparse.Namespace) -> AuditLog:
    if args.audit_log:
        return AuditLog(args.audit_log)
    if not args.config:
        raise CommandError("give -c CONFIG (its [slurm.actions] audit_log) or --audit-log FILE", 2)
    return AuditLog(_slurm(args)[0].actions.audit_log)


def _when(e: dict[str, Any]) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(float(e.get("time_unix") or 0)))


def cmd_list(args: argparse.Namespace) -> int:
    entries = _audit(args).read()
    held = outstanding(entries)
    if args.json:
        print(json.dumps({"entries": entries, "drained": sorted(held)}, default=str))
        return 0
    for e in entries[-args.limit:]:
        mode = " (dry run)" if e.get("dry_run") else ""
        print(f"{_when(e)}  {e.get('action', '?'):<6} {e.get('outcome', '?'):<8} {e.get('node', '?'):<16} "
              f"{e.get('device', '')} {e.get('port', '')}{mode}: {e.get('why') or e.get('reason') or ''}")
    names = f": {', '.join(sorted(held))}" if held else ""
    print(f"{len(held)} nodes drained by fabricwatch and not resumed{names}")
    return 0


def cmd_resume(args: argparse.Namespace) -> int:
    if not args.config:
        raise CommandError("resume needs -c CONFIG ([slurm] for scontrol and the audit log, the daemon's listen)", 2)
    from fabricwatch.slurm.control import Scontrol
    from fabricwatch.slurm.resume import DaemonFindings, ResumeRefused, resume

    cfg, daemon_url = _slurm(args)
    audit = AuditLog(args.audit_log or cfg.actions.audit_log)
    findings = DaemonFindings(args.daemon or daemon_url, timeout=cfg.timeout)
    try:
        entry = asyncio.run(resume(args.node, audit, Scontrol(cfg), findings, force=args.force))
    except ResumeRefused as exc:
        raise CommandError(f"refused: {exc}") from None
    forced = " (forced)" if entry.get("forced") else ""
    after = f" after acceptance run {entry['acceptance']} passed" if entry.get("acceptance") else ""
    print(f"{args.node} resumed{forced}{after}: it was drained for {entry['device']} {entry['port']}")
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("actions", help="scheduler actions taken on findings (Slurm drains) and their undo")
    s = p.add_subparsers(dest="actions_cmd", required=True)
    ls = s.add_parser("list", help="the audit log: every drain, refusal, dry run and resume")
    ls.add_argument("-c", "--config", type=Path)
    ls.add_argument("--audit-log", type=Path, help="instead of -c: the audit log file")
    ls.add_argument("--limit", type=int, default=50, help="the last N entries (default %(default)s)")
    ls.add_argument("--json", action="store_true", help="every entry, and the nodes still drained")
    ls.set_defaults(func=cmd_list)
    rs = s.add_parser("resume", help="resume a node fabricwatch drained, once its finding has cleared")
    rs.add_argument("node", help="the Slurm node name")
    rs.add_argument("-c", "--config", type=Path, required=True)
    rs.add_argument("--audit-log", type=Path, help="override [slurm.actions] audit_log")
    rs.add_argument("--daemon", help="the daemon's URL to ask whether the finding cleared "
                    "(default: http://<daemon.listen>)")
    rs.add_argument("--force", action="store_true", help="resume even while the finding is active, or unknown")
    rs.set_defaults(func=cmd_resume)
