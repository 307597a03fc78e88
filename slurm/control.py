"""Telling Slurm: drain a node (no new job lands on it) and resume it, through `scontrol update`
(slurmrestd 22.05's API cannot change a node's state)."""

from __future__ import annotations

from typing import Protocol

from fabricwatch.slurm.commands import run
from fabricwatch.slurm.config import SlurmConfig

MAX_REASON = 200  # Slurm keeps the reason in its state; a long explanation is cut


class NodeControl(Protocol):
    async def drain(self, node: str, reason: str) -> None: ...

    async def resume(self, node: str) -> None: ...


class Scontrol:
    """`scontrol update NodeName=N State=DRAIN Reason=...` and `State=RESUME`: needs Slurm operator
    (or admin) rights for the user the daemon runs as."""

    def __init__(self, cfg: SlurmConfig) -> None:
        self.cfg = cfg

    async def _update(self, *args: str) -> None:
        await run([self.cfg.scontrol, "update", *args], slurm_conf=self.cfg.slurm_conf, timeout=self.cfg.timeout)

    async def drain(self, node: str, reason: str) -> None:
        # one argv item: no shell, so quotes and spaces in the reason are the reason's own
        await self._update(f"NodeName={node}", "State=DRAIN", f"Reason={reason[:MAX_REASON]}")

    async def resume(self, node: str) -> None:
        await self._update(f"NodeName={node}", "State=RESUME")
