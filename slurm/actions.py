"""Keeping the next job off a degraded host link: drain the node behind a critical host-link finding
that persisted, within caps (per hour, in total, a share of each partition), every decision audited.

Off unless `[slurm.actions] enabled`; a dry run (the default) audits and logs what it would do and
touches nothing. A node someone else drained is left alone. A refusal is audited once per finding
and looked at again each interval (a cap frees up as the hour passes). The acceptance gate asks for
its failed hosts directly (`drain_hosts`), through the same refusals, caps, dry run and audit."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from fabricwatch.core.topology import Topology
from fabricwatch.slurm.audit import AuditLog, drains_since, outstanding
from fabricwatch.slurm.commands import SlurmError
from fabricwatch.slurm.config import ActionsConfig
from fabricwatch.slurm.control import MAX_REASON, NodeControl
from fabricwatch.slurm.join import suspect_host
from fabricwatch.slurm.readers import SlurmReader
from fabricwatch.slurm.records import Node

log = logging.getLogger("fabricwatch.slurm.actions")
HOUR_S = 3600.0
RANK = {"warning": 1, "critical": 2}  # [slurm.actions] severity is the least a finding needs

Key = tuple[str, str]


class LinkFinding(Protocol):
    """What an action reads of a finding (the detector's Finding fits)."""

    @property
    def device(self) -> str: ...

    @property
    def port(self) -> str: ...

    @property
    def severity(self) -> str: ...

    @property
    def explanation(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a node is not drained now: `left_alone` for this finding's whole episode, `cap` until it frees."""

    kind: Literal["left_alone", "cap"]
    why: str


@dataclass(frozen=True, slots=True)
class HostDrain:
    """A drain asked for a host itself (the acceptance gate): no finding to wait on, no topology."""

    host: str
    device: str  # what the audit and the reason name in place of a link: "nccl-gate"
    port: str  # and the run
    explanation: str
    severity: str = "critical"


def drain_reason(device: str, port: str, explanation: str) -> str:
    """`fabricwatch: <device> <port> <short explanation>`, within what Slurm keeps."""
    head = f"fabricwatch: {device} {port} "
    short = explanation.split(";")[0].strip()
    room = MAX_REASON - len(head)
    return head + (short if len(short) <= room else short[: max(0, room - 3)] + "...")


class Drainer:
    def __init__(self, cfg: ActionsConfig, reader: SlurmReader, control: NodeControl, audit: AuditLog,
                 node_of: Callable[[str], str], *, clock: Callable[[], float] = time.time) -> None:
        self.cfg = cfg
        self.reader = reader
        self.control = control
        self.audit = audit
        self.node_of = node_of
        self.clock = clock
        self.streak: dict[Key, int] = {}  # consecutive intervals each finding has been active
        self.settled: set[Key] = set()  # findings acted on (or left alone for good) in this episode
        self.noted: dict[Key, str] = {}  # the last refusal audited for each finding
        self.counts: dict[str, int] = {}  # outcome -> actions audited since start (/metrics)

    def observe(self, findings: Sequence[LinkFinding]) -> None:
        """One detector interval's active findings: count how long each has persisted."""
        now = {(f.device, f.port) for f in findings}
        self.streak = {k: self.streak.get(k, 0) + 1 for k in now}
        self.settled &= now
        self.noted = {k: v for k, v in self.noted.items() if k in now}

    def due(self, findings: Sequence[LinkFinding], topology: Topology) -> list[tuple[LinkFinding, str]]:
        """Findings that call for a drain now, with the host behind each."""
        out = []
        for f in findings:
            key = (f.device, f.port)
            if f.port == "*" or RANK.get(f.severity, 0) < RANK[self.cfg.severity] or key in self.settled:
                continue
            if self.streak.get(key, 0) < self.cfg.persist_intervals:
                continue
            host = suspect_host(topology, f.device, f.port)
            if host is not None:
                out.append((f, host))
        return out

    async def act(self, findings: Sequence[LinkFinding], topology: Topology) -> list[dict[str, Any]]:
        """Decide on, and (unless a dry run) carry out, the drains these findings call for."""
        if not self.cfg.enabled:
            return []
        due = self.due(findings, topology)
        if not due:
            return []
        try:
            return await self._decide(due, by="daemon")
        except SlurmError as exc:
            log.error("no action this interval", extra={"error": str(exc)})
            return []

    async def drain_hosts(self, wanted: Sequence[HostDrain], *, by: str) -> list[dict[str, Any]]:
        """Drain these hosts' nodes now, within the caps (a dry run unless live); SlurmError when no decision
        can be made (actions off, no audit log, Slurm's nodes unread)."""
        if not self.cfg.enabled:
            raise SlurmError("[slurm.actions] enabled is false: fabricwatch changes nothing in Slurm")
        return await self._decide([(w, w.host) for w in wanted], by=by)

    async def _decide(self, due: Sequence[tuple[LinkFinding, str]], *, by: str) -> list[dict[str, Any]]:
        problem = self.audit.writable()
        if problem is not None:
            raise SlurmError(f"no action without an audit log: {problem}")
        try:
            nodes = {n.name: n for n in await self.reader.nodes()}
        except SlurmError as exc:
            raise SlurmError(f"cannot read Slurm's nodes: {exc}") from None
        entries = self.audit.read()
        written = []
        for f, host in due:
            entry = await self._one(f, host, nodes, entries, by)
            if entry is not None:
                entries.append(entry)
                written.append(entry)
        return written

    async def _one(self, f: LinkFinding, host: str, nodes: dict[str, Node],
                   entries: list[dict[str, Any]], by: str) -> dict[str, Any] | None:
        key = (f.device, f.port)
        node = self.node_of(host)
        reason = drain_reason(f.device, f.port, f.explanation)
        base = {"action": "drain", "node": node, "host": host, "device": f.device, "port": f.port,
                "severity": f.severity, "explanation": f.explanation, "reason": reason,
                "dry_run": self.cfg.dry_run, "by": by}
        refusal = self._refusal(node, nodes, entries)
        if refusal is not None:
            if refusal.kind == "left_alone":
                self.settled.add(key)
            if self.noted.get(key) == refusal.why:
                return None
            self.noted[key] = refusal.why
            log.warning("drain refused", extra={"node": node, "device": f.device, "port": f.port,
                                                "why": refusal.why})
            return self._audit({**base, "outcome": "refused", "refusal": refusal.kind, "why": refusal.why})
        self.settled.add(key)
        if self.cfg.dry_run:
            log.warning(f"dry run: would drain {node}: scontrol update NodeName={node} State=DRAIN "
                        f"Reason=\"{reason}\"", extra={"node": node, "device": f.device, "port": f.port})
            return self._audit({**base, "outcome": "would", "why": "dry_run = true"})
        try:
            await self.control.drain(node, reason)
        except SlurmError as exc:
            self.settled.discard(key)  # tried again next interval; the failure is audited once
            log.error("drain failed", extra={"node": node, "error": str(exc)})
            if self.noted.get(key) == f"failed: {exc}":
                return None
            self.noted[key] = f"failed: {exc}"
            return self._audit({**base, "outcome": "failed", "why": str(exc)})
        log.warning("node drained", extra={"node": node, "device": f.device, "port": f.port, "reason": reason})
        return self._audit({**base, "outcome": "done"})

    def _refusal(self, node: str, nodes: dict[str, Node], entries: list[dict[str, Any]]) -> Refusal | None:
        """Why this node must not be drained now, or None."""
        me = nodes.get(node)
        if me is None:
            return Refusal("left_alone", f"left alone: Slurm knows no node {node} (map it in [slurm] node_names)")
        held = outstanding(entries, dry_run=self.cfg.dry_run)
        if self.cfg.dry_run:  # nobody resumes a dry run's drain: it would hold while its finding lasts
            held = {n: e for n, e in held.items() if (e.get("device"), e.get("port")) in self.streak}
        if node in held:
            return Refusal("left_alone", "left alone: already drained by fabricwatch")
        if me.drained:
            return Refusal("left_alone", f"left alone: already drained or down in Slurm ({me.reason or me.state})")
        recent = drains_since(entries, self.clock() - HOUR_S, dry_run=self.cfg.dry_run)
        if recent >= self.cfg.max_per_hour:
            return Refusal("cap", f"cap: {recent} nodes drained in the last hour "
                                  f"(max_per_hour = {self.cfg.max_per_hour})")
        if len(held) >= self.cfg.max_total:
            return Refusal("cap", f"cap: {len(held)} nodes drained and not resumed "
                                  f"(max_total = {self.cfg.max_total})")
        for part in me.partitions:
            members = [n for n in nodes.values() if part in n.partitions]
            drained = sum(1 for n in members if n.drained or n.name in held)
            if (drained + 1) > self.cfg.max_partition_share * len(members):
                return Refusal("cap", f"cap: draining {node} would leave {drained + 1} of {len(members)} nodes of "
                                      f"partition {part} drained "
                                      f"(max_partition_share = {self.cfg.max_partition_share:g})")
        return None

    def _audit(self, entry: dict[str, Any]) -> dict[str, Any]:
        self.counts[entry["outcome"]] = self.counts.get(entry["outcome"], 0) + 1
        return self.audit.append({**entry, "time_unix": self.clock()})
