"""Run a command-line tool as an asyncio subprocess: its stdout, or a TargetError that names it."""

from __future__ import annotations

import asyncio

from fabricwatch.core.errors import TargetError


async def run_command(argv: list[str], *, timeout: float, who: str) -> str:
    """stdout of argv; `timeout` (killed after), `command` (missing or non-zero exit) otherwise."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    except OSError as exc:
        raise TargetError("command", f"{who}: cannot run {argv[0]}: {exc.strerror}") from None
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise TargetError("timeout", f"{who}: {' '.join(argv)} took over {timeout:g}s") from None
    if proc.returncode != 0:
        raise TargetError("command", f"{who}: {' '.join(argv)} exited {proc.returncode}: "
                                     f"{err.decode(errors='replace').strip()[:200]}")
    return out.decode(errors="replace")
