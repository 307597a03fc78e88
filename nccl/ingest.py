"""NCCL run records -> `nccl_results` line protocol (one point per run, size, sweep and place)."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from fabricwatch.core.lineprotocol import line, tag_prefix
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
    base = {
        "collective": run.collective or "unknown",
        "nranks": "" if run.nranks is None else str(run.nranks),  # unknown: no tag, never "1"
        "nodes": str(len(run.hosts) or ""),
        "run": rid,
        "site": site,
    }
    out = []
    hosts = ",".join(run.hosts)
    for row in run.rows:
        for place, m in (("out_of_place", row.out_of_place), ("in_place", row.in_place)):
            if m is None:
                continue
            fields: dict[str, object] = {
                "busbw": m.busbw, "algbw": m.algbw, "time_us": m.time_us, "flagged": bool(row.flags),
                "hosts": hosts, "complete": run.complete,
            }
            if m.wrong is not None:
                fields["wrong"] = m.wrong
            text = line(tag_prefix("nccl_results", {**base, "size": str(row.size), "place": place,
                                                    "sweep": str(row.sweep)}),
                        {k: v for k, v in fields.items() if v is not None}, ts_ns)
            if text:
                out.append(text)
    return out


def prepare(content: bytes, source: str, *, path: Path | None = None, site: str = "",
            collective: str | None = None) -> list[tuple[RunRecord, list[str]]]:
    """The one ingest path (upload, MQTT, watched directory, `nccl ingest`): parse, then each run
    with its `nccl_results` points."""
    return [(run, to_lines(run, run_id(run, content), run_time_ns(run, path, run.start_time), site))
            for run in parse_bytes(content, source, collective)]
