"""Slurm's command-line tools as asyncio subprocesses: a bounded time, a small environment, errors named."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

_KEEP = ("PATH", "LANG", "LC_ALL", "HOME", "TZ")


class SlurmError(Exception):
    """Slurm could not be read or told (unreachable, refused, a tool that failed)."""


def environment(slurm_conf: Path | None) -> dict[str, str]:
    """What a Slurm tool needs and nothing else of the daemon's (never its secrets)."""
    env = {k: os.environ[k] for k in _KEEP if k in os.environ}
    env.setdefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
    conf = slurm_conf or os.environ.get("SLURM_CONF")
    if conf:
        env["SLURM_CONF"] = str(conf)
    return env


async def run(argv: list[str], *, slurm_conf: Path | None, timeout: float) -> str:
    """The tool's stdout; SlurmError when it cannot run, fails or takes longer than `timeout`."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL,
            env=environment(slurm_conf), start_new_session=True)
    except OSError as exc:
        raise SlurmError(f"cannot run {argv[0]}: {exc.strerror}") from None
    try:
        async with asyncio.timeout(timeout):
            out, err = await proc.communicate()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        raise SlurmError(f"{argv[0]} took over {timeout:g}s") from None
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        raise
    if proc.returncode != 0:
        raise SlurmError(f"{' '.join(argv[:3])} exited {proc.returncode}: {err.decode(errors='replace').strip()[:300]}")
    return out.decode(errors="replace")
