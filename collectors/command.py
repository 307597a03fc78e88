"""Run a command-line tool as an asyncio subprocess: its stdout, or a TargetError that names it.

The tool gets a minimal environment (PATH, LANG, HOME: never the daemon's secrets) and runs in its
own process group, which is killed whole on timeout and on cancellation (a wrapper script's
children do not linger). Output is read up to a bound: a tool that floods is cut and counted as
a failure, not held in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

from fabricwatch.core.errors import TargetError

MAX_OUTPUT = 64 << 20
_KEEP = ("PATH", "LANG", "LC_ALL", "HOME", "TZ")


def minimal_env() -> dict[str, str]:
    env = {k: os.environ[k] for k in _KEEP if k in os.environ}
    env.setdefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
    return env


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


async def run_command(argv: list[str], *, timeout: float, who: str) -> str:
    """stdout of argv; `timeout` (killed after), `command` (missing or non-zero exit) otherwise."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL,
            env=minimal_env(), start_new_session=True, limit=MAX_OUTPUT)
    except OSError as exc:
        raise TargetError("command", f"{who}: cannot run {argv[0]}: {exc.strerror}") from None
    try:
        async with asyncio.timeout(timeout):  # not wait_for: 3.11's can drop a cancellation
            out, err = await _communicate(proc)
    except TimeoutError:
        _kill_group(proc)
        await proc.wait()
        raise TargetError("timeout", f"{who}: {' '.join(argv)} took over {timeout:g}s") from None
    except asyncio.CancelledError:
        _kill_group(proc)
        with contextlib.suppress(Exception):
            await asyncio.shield(proc.wait())
        raise
    except _TooMuch:
        _kill_group(proc)
        await proc.wait()
        raise TargetError("command", f"{who}: {' '.join(argv)} printed more than {MAX_OUTPUT} bytes") from None
    _kill_group(proc)  # anything it left running in its group
    if proc.returncode != 0:
        raise TargetError("command", f"{who}: {' '.join(argv)} exited {proc.returncode}: "
                                     f"{err.decode(errors='replace').strip()[:200]}")
    return out.decode(errors="replace")


class _TooMuch(Exception):
    pass


async def _communicate(proc: asyncio.subprocess.Process) -> tuple[bytes, bytes]:
    assert proc.stdout is not None and proc.stderr is not None

    async def read(stream: asyncio.StreamReader) -> bytes:
        data = bytearray()
        while chunk := await stream.read(1 << 16):
            data += chunk
            if len(data) > MAX_OUTPUT:
                raise _TooMuch
        return bytes(data)

    out, err = await asyncio.gather(read(proc.stdout), read(proc.stderr))
    await proc.wait()
    return out, err
