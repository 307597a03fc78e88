"""`[slurm]`: where the jobs are read from, how Slurm's node names map to the fabric's hosts, and the
actions (off by default; dry run by default once on)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from fabricwatch.core.config_types import Duration, StrictModel
from fabricwatch.core.secrets import SecretRef


class ActionsConfig(StrictModel):
    """Draining a node whose host link has a critical finding: every limit holds even in a dry run."""

    enabled: bool = False
    dry_run: bool = True  # log and audit what would be done; touch nothing
    persist_intervals: int = Field(3, ge=1)  # detector intervals a finding must stay active before an action
    max_per_hour: int = Field(2, ge=0)  # nodes drained in any 60 minutes
    max_total: int = Field(10, ge=0)  # nodes drained by this daemon and not resumed, at any time
    max_partition_share: float = Field(0.1, ge=0.0, le=1.0)  # drained share of any partition the node is in
    audit_log: Path = Path("/var/lib/fabricwatch/slurm-actions.jsonl")
    severity: Literal["critical", "warning"] = "critical"  # the least severity of a finding that acts


class SlurmConfig(StrictModel):
    """Off unless `rest_url` or `command` is given."""

    rest_url: str | None = None  # slurmrestd, e.g. http://slurm-head:6820 (API v0.0.38)
    user: str = "fabricwatch"  # X-SLURM-USER-NAME
    token: SecretRef | None = None  # X-SLURM-USER-TOKEN (`scontrol token`); never in the file
    command: str | None = None  # "squeue": `squeue --json` (and `sinfo --json`) where no slurmrestd runs
    sinfo: str = "sinfo"
    scontrol: str = "scontrol"  # drains and resumes (slurmrestd 22.05 cannot)
    slurm_conf: Path | None = None  # SLURM_CONF for the commands, when not the system's
    node_names: dict[str, str] = Field(default_factory=dict)  # Slurm node name -> fabric host, where they differ
    every: Duration = 30.0  # how often the running jobs are read
    timeout: Duration = 10.0
    max_jobs_shown: int = Field(20, ge=1)  # per finding in /api/findings and events (the count is always given)
    actions: ActionsConfig = ActionsConfig()

    @model_validator(mode="after")
    def _source(self) -> SlurmConfig:
        if self.rest_url is not None and self.command is not None:
            raise ValueError("give rest_url (slurmrestd) or command (squeue), not both")
        if self.rest_url is not None and self.token is None:
            raise ValueError("rest_url needs token = { env = \"SLURM_JWT\" } (or file / credential)")
        if self.rest_url is not None and not self.rest_url.startswith(("http://", "https://")):
            raise ValueError("rest_url must start with http:// or https://")
        if self.actions.enabled and not self.enabled:
            raise ValueError("actions need rest_url or command to read the jobs and nodes from")
        return self

    @property
    def enabled(self) -> bool:
        return self.rest_url is not None or self.command is not None

    def host_of(self, node: str) -> str:
        """The fabric host a Slurm node name stands for."""
        return self.node_names.get(node, node)

    def node_of(self, host: str) -> str:
        """The Slurm node name of a fabric host (the mapping read backwards)."""
        for node, h in self.node_names.items():
            if h == host:
                return node
        return host
