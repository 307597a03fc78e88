"""One job by its id, as Slurm still holds it (running, or finished within its MinJobAge)."""

from __future__ import annotations

import re

from fabricwatch.slurm.config import SlurmConfig
from fabricwatch.slurm.readers import SlurmReader, reader_for
from fabricwatch.slurm.records import Job

JOB_ID = re.compile(r"[0-9]{1,12}(?:_[0-9]{1,9})?")  # 1234, or an array task 1234_7


def is_job_id(text: str) -> bool:
    return JOB_ID.fullmatch(text) is not None


async def find_job(cfg: SlurmConfig, job_id: str, reader: SlurmReader | None = None) -> Job:
    """The job, or LookupError when Slurm no longer (or never) held it."""
    for job in await (reader or reader_for(cfg)).jobs(running=False):
        if job.id == job_id:
            return job
    raise LookupError(f"Slurm holds no job {job_id} (finished jobs leave slurmctld after MinJobAge; "
                      "give its hosts with --hosts and --from/--to)")
