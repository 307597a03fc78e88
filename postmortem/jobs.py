"""The scheduler's jobs that ran across a link at a moment, for `why` (the caller reads them from Slurm)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RanJob:
    """A job as `why` tells it: its fabric hosts, and when it ran (end 0: still running)."""

    id: str
    user: str
    name: str
    hosts: frozenset[str]
    nodes_total: int
    start_unix: int
    end_unix: int = 0

    def to_json(self, crossed: str) -> dict[str, Any]:
        return {"id": self.id, "user": self.user, "name": self.name, "hosts": sorted(self.hosts),
                "nodes_total": self.nodes_total, "start_unix": self.start_unix, "end_unix": self.end_unix,
                "crossed": crossed}


def crossed(tags: Mapping[str, str], device: str, under: set[str], hosts: set[str]) -> str | None:
    """Why a set of hosts' traffic could use the link (a host end, or a leaf uplink when the hosts are
    under that leaf and elsewhere), or None; the same rule for NCCL runs and Slurm jobs."""
    ends = {device, tags.get("peer_device", "")}
    if hosts & ends:
        return f"host {', '.join(sorted(hosts & ends))} is an end of the link"
    if under and hosts & under and hosts - under:
        role = tags.get("role", "")
        leaf = device if role == "leaf_up" else tags.get("peer_device", "")
        return f"hosts under {leaf} ({len(hosts & under)}) talked to hosts elsewhere ({len(hosts - under)})"
    return None


def ran_at(jobs: Iterable[RanJob], at_unix: float) -> list[RanJob]:
    """The jobs that had started by the moment and had not ended before it."""
    return [j for j in jobs if 0 < j.start_unix <= at_unix and (j.end_unix == 0 or j.end_unix >= at_unix)]


def sentence(job: RanJob, why: str) -> str:
    """'job 41873 (8 nodes, user alice) ran across this link from 12:03'."""
    until = f" to {_hm(job.end_unix)}" if job.end_unix else ""
    return (f"job {job.id} ({job.nodes_total} nodes, user {job.user}) ran across this link from "
            f"{_hm(job.start_unix)}{until} ({job.name}); crossed because {why}")


def _hm(unix: int) -> str:
    return time.strftime("%H:%M", time.gmtime(unix))
