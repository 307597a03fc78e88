"""Undoing a drain: only a node fabricwatch drained, and only once what drained it is over (or forced): for a
daemon's drain, its link finding has cleared; for the acceptance gate's, an acceptance run on the node, made
after the drain, has passed `gate --drain` (which records that in the audit log)."""

from __future__ import annotations

from typing import Any, Protocol

import aiohttp

from fabricwatch.slurm.audit import GATE, AuditLog, outstanding
from fabricwatch.slurm.commands import SlurmError
from fabricwatch.slurm.control import NodeControl


def passed_since(entries: list[dict[str, Any]], drain: dict[str, Any]) -> dict[str, Any] | None:
    """The newest recorded pass of an acceptance run on the drained host that was made after the drain."""
    for e in reversed(entries):
        if e.get("action") == "accept" and e.get("outcome") == "passed" and e.get("host") == drain.get("host") \
                and float(e.get("run_unix") or 0) > float(drain.get("time_unix") or 0):
            return e
    return None


class FindingState(Protocol):
    async def active(self, device: str, port: str) -> bool:
        """Whether a finding is active on the link now; SlurmError when that cannot be told."""
        ...


class DaemonFindings:
    """The running daemon's own answer: its `/api/findings`."""

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    async def active(self, device: str, port: str) -> bool:
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout)) as session, \
                    session.get(f"{self.url}/api/findings") as resp:
                if resp.status != 200:
                    raise SlurmError(f"{self.url}/api/findings: HTTP {resp.status}")
                doc = await resp.json()
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            raise SlurmError(f"cannot ask the daemon at {self.url} whether the finding cleared: "
                             f"{exc or type(exc).__name__}") from None
        if not isinstance(doc, dict) or not doc.get("enabled"):
            raise SlurmError(f"the daemon at {self.url} runs no detector: it cannot say whether the finding cleared")
        return any(isinstance(f, dict) and f.get("device") == device and f.get("port") == port
                   for f in doc.get("findings") or [])


class ResumeRefused(Exception):
    """The node stays drained; the message says why."""


async def resume(node: str, audit: AuditLog, control: NodeControl, findings: FindingState, *,
                 force: bool = False) -> dict[str, Any]:
    """Resume a node fabricwatch drained once the finding that drained it has cleared; the audit
    entry written. `force` resumes while the finding is active, or when that cannot be told."""
    entries = audit.read()
    drain = outstanding(entries).get(node)
    if drain is None:
        raise ResumeRefused(f"{node}: fabricwatch holds no drain of it (never drained, or resumed since); "
                            "a drain by someone else is theirs to undo")
    device, port = str(drain.get("device")), str(drain.get("port"))
    base = {"action": "resume", "node": node, "host": drain.get("host"), "device": device, "port": port,
            "by": "cli", "dry_run": False}
    if device == GATE:
        # no finding to clear: the node failed acceptance, so it comes back once it passes acceptance again
        passed = passed_since(entries, drain)
        if passed is None and not force:
            raise ResumeRefused(
                f"{node}: drained by the acceptance gate ({port}: {drain.get('why') or drain.get('reason', '')}); "
                f"no acceptance run on {drain.get('host')} has passed since: run the NCCL tests on it and "
                "`fabricwatch gate --drain -c CONFIG` over their output (--force resumes anyway)")
        base |= {"forced": passed is None, "acceptance": None if passed is None else passed.get("port")}
    else:
        try:
            still = await findings.active(device, port)
        except SlurmError as exc:
            if not force:
                raise ResumeRefused(f"{node}: {exc} (--force resumes anyway)") from None
            still = None
        if still and not force:
            raise ResumeRefused(f"{node}: the finding on {device} {port} is still active: the node stays drained "
                                "(--force resumes anyway)")
        base |= {"forced": force and still is not False, "finding_active": still}
    try:
        await control.resume(node)
    except SlurmError as exc:
        audit.append({**base, "outcome": "failed", "why": str(exc)})
        raise ResumeRefused(f"{node}: scontrol could not resume it: {exc}") from None
    return audit.append({**base, "outcome": "done"})
