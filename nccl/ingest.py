"""NCCL run records -> `nccl_results` line protocol (one point per run, size, sweep and place)."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from fabricwatch.core.lineprotocol import format_field, tag_prefix
from fabricwatch.core.nccl_records import RunRecord
from fabricwatch.core.timeparse import parse_time_ns
from fabricwatch.nccl.parser import parse_bytes


def run_id(run: RunRecord, content: bytes) -> str:
    """Stable id of a run: the same file ingested twice gives the same points (idempotent)."""
    return hashlib.sha256(content).hexdigest()[:16] + (f"-{run.collective}" if run.collective else "")


def run_time_ns(run: RunRecord, path: Path | None, start_time: str | None = None) -> int:
    """When the run happened: the JSON start_time, else the file's modification time."""
    if start_time:
        try:
            return parse_time_ns(start_time) if not start_time.startswith("-") else time.time_ns()
        except ValueError:
            pass
    if path is not None and path.exists():
        return int(path.stat().st_mtime * 1e9)
    return time.time_ns()


def to_lines(run: RunRecord, rid: str, ts_ns: int, site: str = "") -> list[str]:
    """One point per row and place. What is the same for every point of the run (its tags, the
    hosts string) is escaped once: a 200-row run of 100 hosts is 400 points."""
    # tags in InfluxDB's sorted order: collective, nodes, nranks | place | run, site | size, sweep
    head = tag_prefix("nccl_results", {
        "collective": run.collective or "unknown",
        "nodes": str(len(run.hosts) or ""),
        "nranks": "" if run.nranks is None else str(run.nranks),  # unknown: no tag, never "1"
    })
    mid = tag_prefix("", {"run": rid, "site": site})
    common = f"hosts={format_field(','.join(run.hosts))},complete={format_field(run.complete)}"
    out = []
    for row in run.rows:
        flagged = "true" if row.flags else "false"
        for place, m in (("out_of_place", row.out_of_place), ("in_place", row.in_place)):
            if m is None:
                continue
            parts = [f"{k}={t}" for k, v in (("busbw", m.busbw), ("algbw", m.algbw), ("time_us", m.time_us))
                     if v is not None and (t := format_field(v)) is not None]
            parts += [f"flagged={flagged}", common]
            if m.wrong is not None and (w := format_field(m.wrong)) is not None:
                parts.append(f"wrong={w}")
            out.append(f"{head},place={place}{mid},size={row.size},sweep={row.sweep} {','.join(parts)} {ts_ns}")
    return out


def prepare(content: bytes, source: str, *, path: Path | None = None, site: str = "",
            collective: str | None = None) -> list[tuple[RunRecord, list[str]]]:
    """The one ingest path (upload, MQTT, watched directory, `nccl ingest`): parse, then each run
    with its `nccl_results` points. Repeats of one collective in one log (`for i in …; do
    all_reduce_perf …; done > log`) are runs of their own: `SOURCE#k` and an id ending in `-k`, so
    that run-to-run variance sees each of them and their points do not overwrite each other."""
    runs = parse_bytes(content, source, collective)
    out = []
    for run in runs:
        rid = run_id(run, content) + (f"-{run.repeat}" if run.repeat else "")
        out.append((run, to_lines(run, rid, run_time_ns(run, path, run.start_time), site)))
    return out
