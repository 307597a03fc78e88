"""`fabricwatch check` for `[slurm]`: read the jobs and nodes once; find scontrol when drains are real."""

from __future__ import annotations

import shutil

from fabricwatch.slurm.commands import SlurmError
from fabricwatch.slurm.config import SlurmConfig
from fabricwatch.slurm.readers import reader_for


def source(cfg: SlurmConfig) -> str:
    return f"slurmrestd {cfg.rest_url}" if cfg.rest_url is not None else f"{cfg.command} --json"


async def check(cfg: SlurmConfig) -> list[tuple[str, str]]:
    """(status, line) pairs: status is ok, WARN or FAIL."""
    out: list[tuple[str, str]] = []
    reader = reader_for(cfg)
    try:
        jobs, nodes = await reader.jobs(), await reader.nodes()
        out.append(("ok", f"slurm {source(cfg)}: {len(jobs)} running jobs on {len(nodes)} nodes"))
    except SlurmError as exc:
        out.append(("FAIL", f"slurm {source(cfg)}: {exc}"))
    a = cfg.actions
    if a.enabled and not a.dry_run:
        found = shutil.which(cfg.scontrol)
        out.append(("ok" if found else "FAIL", f"slurm actions drain nodes through {found or cfg.scontrol}"
                    + ("" if found else ": not found")))
        out.append(("WARN", f"slurm actions are live (dry_run = false): up to {a.max_per_hour} nodes an hour, "
                            f"{a.max_total} in all, audited in {a.audit_log}"))
    elif a.enabled:
        out.append(("ok", f"slurm actions in dry run: what would be drained goes to {a.audit_log}"))
    return out
