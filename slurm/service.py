"""Slurm inside the daemon: the running jobs read every `every`, joined to findings on request (the
detector's `FindingContext`), and the actions taken after each detector interval (its observer)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from fabricwatch.core.lineprotocol import line, tag_prefix
from fabricwatch.core.topology import Topology
from fabricwatch.slurm.actions import Drainer, LinkFinding
from fabricwatch.slurm.audit import AuditLog
from fabricwatch.slurm.commands import SlurmError
from fabricwatch.slurm.config import SlurmConfig
from fabricwatch.slurm.control import NodeControl, Scontrol
from fabricwatch.slurm.join import JobIndex
from fabricwatch.slurm.readers import SlurmReader, reader_for

log = logging.getLogger("fabricwatch.slurm")
STORED_JOBS = 5  # job ids stored with a finding: enough to start a post-mortem from, bounded whatever the job count


class TimedFinding(LinkFinding, Protocol):
    """A finding with the start of the detector interval it was scored in (the time of its `link_anomaly` point)."""

    @property
    def time_ns(self) -> int: ...


def jobs_line(device: str, port: str, time_ns: int, total: int, ids: Sequence[str]) -> str:
    """One `link_anomaly_jobs` point: how many jobs the finding's link carried and the first ids (ascending)."""
    fields: dict[str, object] = {"jobs_total": total}
    if ids:
        fields["jobs"] = ",".join(ids[:STORED_JOBS])
    return line(tag_prefix("link_anomaly_jobs", {"device": device, "port": port}), fields, time_ns,
                ints={"jobs_total"}) or ""


class SlurmService:
    def __init__(self, cfg: SlurmConfig, topology: Callable[[], Topology], *,
                 emit: Callable[[str, dict[str, Any]], None] | None = None,
                 reader: SlurmReader | None = None, control: NodeControl | None = None,
                 write: Callable[[list[str]], Awaitable[None]] | None = None) -> None:
        self.cfg = cfg
        self.write = write  # storage: the jobs each flagged interval hurt, beside its link_anomaly point
        self._stored: list[str] = []
        self.topology = topology
        self.emit = emit
        self.reader = reader or reader_for(cfg)
        self.drainer = Drainer(cfg.actions, self.reader, control or Scontrol(cfg), AuditLog(cfg.actions.audit_log),
                               cfg.node_of)
        self.index: JobIndex | None = None
        self.read_unix = 0.0
        self.last_error: str | None = None
        self.reads = 0
        self.errors = 0
        self._pending: list[LinkFinding] | None = None
        self.flagged: list[tuple[str, str]] = []  # the links with an active finding, as of the last interval
        self._wake = asyncio.Event()

    async def refresh(self) -> None:
        """Read the running jobs once; on failure keep the last read and say so."""
        try:
            jobs = await self.reader.jobs()
        except SlurmError as exc:
            self.errors += 1
            if self.last_error != str(exc):
                log.warning("cannot read Slurm's jobs", extra={"error": str(exc)})
            self.last_error = str(exc)
            return
        topology = self.topology()
        # the leaves' hosts are worked out once per topology (a reload or a discovery gives a new one)
        under = self.index.under if self.index is not None and self.index.topology is topology else None
        self.index = JobIndex(jobs, topology, self.cfg.host_of, under=under)
        self.read_unix = time.time()
        self.reads += 1
        self.last_error = None

    async def run(self) -> None:
        while True:
            await self.refresh()
            await asyncio.sleep(self.cfg.every)

    def about(self, device: str, port: str) -> dict[str, Any]:
        """The jobs a finding on this link hurts, bounded: `jobs`, `jobs_total` (and `jobs_error`)."""
        out: dict[str, Any] = {}
        if self.last_error is not None:
            out["jobs_error"] = self.last_error
        if self.index is None:
            return {**out, "jobs": [], "jobs_total": None}
        jobs = self.index.on_link(device, port)
        return {**out, "jobs": [j.to_json() for j in jobs[: self.cfg.max_jobs_shown]], "jobs_total": len(jobs)}

    def observe(self, findings: Sequence[TimedFinding]) -> None:
        """One detector interval's active findings (never blocks: the actions run in their own task)."""
        self.drainer.observe(findings)
        if self.write is not None and self.index is not None and self.last_error is None:
            # jobs as Slurm last answered; none stored (unknown) while it does not answer
            for f in findings:
                jobs = self.index.on_link(f.device, f.port)
                self._stored.append(jobs_line(f.device, f.port, f.time_ns, len(jobs), [j.id for j in jobs]))
        self.flagged = [(f.device, f.port) for f in findings]
        self._pending = list(findings)
        self._wake.set()

    async def act(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            findings, self._pending = self._pending or [], None
            stored, self._stored = self._stored, []
            if stored and self.write is not None:
                await self.write(stored)
            for entry in await self.drainer.act(findings, self.topology()):
                if self.emit is not None:
                    self.emit("slurm_action", entry)
