"""The daemon's side of its collector worker processes: `[daemon] workers = N` (or "auto": one per
core) runs the targets' sessions in N child processes, each owning a stable share of the targets (by
hash of the target's key). A worker does what costs most per counter update — the session (gRPC,
SNMP, HTTP), decoding, vendor path mapping — and hands each batch to the daemon's process over a
socket (`daemon/worker_wire.py`); the daemon keeps the pipeline, the detector and the sinks.

Each worker is handed the config the daemon runs (at start, at each restart and at SIGHUP), never
the file. It beats every `worker_heartbeat`; one the daemon has heard nothing from for
`worker_timeout` (SIGSTOP, a hung library call), or that sends a malformed frame, is killed; its
targets are marked down at once with the reason, and it is started again (backing off), as is a
worker that dies. While a worker is down or not yet running well again, /readyz says which and why.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabricwatch.core.batch import SampleBatch
from fabricwatch.daemon.config import Config
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.daemon.worker_wire import Message, WireError, frame, unpack
from fabricwatch.daemon.worker_wire import receive as receive_message

log = logging.getLogger("fabricwatch.workers")
Handle = Callable[[str, SampleBatch], Awaitable[None]]
WORKER = [sys.executable, "-m", "fabricwatch.daemon.worker_process"]
# before its first frame a worker may still be importing (grpc, pysnmp) on a loaded machine
START_GRACE = 30.0
_STATUS = ("up", "connects", "samples", "unmapped", "errors", "activity", "last_error")


def _count(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _counts(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and _count(v) for k, v in value.items())


def _status_values(snap: Any) -> dict[str, Any]:
    """A worker's target status, checked before it goes onto the daemon's (which /metrics and /api
    read): values of the wrong type are a malformed message, not a broken scrape later."""
    values = {name: snap[name] for name in _STATUS}
    if not (isinstance(values["up"], bool) and isinstance(values["last_error"], str)
            and all(_count(values[n]) for n in ("connects", "samples", "unmapped"))
            and _counts(values["errors"]) and _counts(values["activity"])):
        raise WireError("a 'status' message of the wrong shape: a value of the wrong type")
    return values


def worker_of(key: str, n: int) -> int:
    """The worker that runs a target: stable across restarts and processes (not Python's hash())."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big") % n


def exit_reason(code: int | None, fatal: str) -> str:
    """How a worker process ended, in words: what it said before exiting, else its exit status."""
    if fatal:
        return f"failed: {fatal}"
    if code is None:
        return "ended"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
    return f"exited ({code})"


@dataclass(slots=True)
class Worker:
    index: int
    proc: asyncio.subprocess.Process | None = None
    writer: asyncio.StreamWriter | None = None
    keys: set[str] = field(default_factory=set)  # the targets it should run
    restarts: int = 0
    hangs: int = 0  # times it was killed for silence
    bad_frames: int = 0  # times it was killed for a malformed frame
    started_monotonic: float = 0.0
    heard_monotonic: float = 0.0  # when the daemon last got a frame from it (or finished handling one)
    spoken: bool = False  # it has sent (begun) a frame since it started
    fatal: str = ""  # what it said before exiting on a failure
    killed: bool = False  # this process was killed by the daemon, which said why
    problem: str = ""  # why it is down or restarting; "" once it has run well again

    @property
    def up(self) -> bool:
        return self.proc is not None and self.proc.returncode is None and self.writer is not None

    def cpu_seconds(self) -> float:
        """User + system CPU of the process (Linux /proc), 0 when it is not running."""
        if self.proc is None:
            return 0.0
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class WorkerPool:
    def __init__(self, config: Config, *, statuses: dict[str, TargetStatus], handle: Handle,
                 emit: Callable[[str, dict[str, Any]], None], polled: Callable[[str, float], None],
                 command: Sequence[str] = WORKER) -> None:
        self.config, self.command = config, list(command)
        self.n = config.daemon.worker_count
        self.statuses, self.handle, self.emit, self.polled = statuses, handle, emit, polled
        self.workers = [Worker(i) for i in range(self.n)]
        self._closing = False
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._keep(w), name=f"worker-{w.index}") for w in self.workers]

    def _config_message(self) -> Message:
        data, source = self.config.source
        return ["config", data, source]

    async def _spawn(self, w: Worker) -> asyncio.StreamReader:
        mine, theirs = socket.socketpair()
        daemon = self.config.daemon
        cmd = [*self.command, "--fd", str(theirs.fileno()), "--index", str(w.index),
               "--event-loop", daemon.event_loop, "--log-level", daemon.log_level]
        try:
            w.proc = await asyncio.create_subprocess_exec(*cmd, pass_fds=(theirs.fileno(),),
                                                          stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        reader, w.writer = await asyncio.open_unix_connection(sock=mine)
        w.started_monotonic = w.heard_monotonic = time.monotonic()
        w.spoken, w.fatal, w.killed = False, "", False
        self._tell(w, self._config_message())
        for key in sorted(w.keys):
            self._tell(w, ["start", key])
        return reader

    @staticmethod
    def _tell(w: Worker, message: Message) -> None:
        """Send without waiting: a stopped worker that reads nothing must not hold the caller (SIGHUP, a
        target's start) until it is killed; what waits is a few small messages, or the config, per worker."""
        if w.writer is not None and not w.writer.is_closing():
            w.writer.write(frame(message))

    async def _keep(self, w: Worker) -> None:
        """Run worker `w`, read what it sends; when it dies or is killed, start it again (backing off)."""
        delay = 0.5
        while not self._closing:
            try:
                reader = await self._spawn(w)
            except (OSError, WireError) as exc:
                self._down(w, f"cannot be started: {exc}")
                if w.proc is not None and w.proc.returncode is None:
                    w.proc.kill()
                await self._reap(w)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
                continue
            watch = asyncio.create_task(self._watch(w), name=f"worker-{w.index}-watch")
            try:
                await self._read(w, reader)
            finally:
                watch.cancel()
                if w.writer is not None:
                    w.writer.close()  # a worker that said why it fails waits for this end before exiting
                w.writer = None
            code = await self._reap(w)
            if self._closing:
                break
            w.restarts += 1
            if not w.killed:  # a hang or a bad frame already said why and marked its targets
                self._down(w, exit_reason(code, w.fatal))
            delay = 0.5 if time.monotonic() - w.started_monotonic > 60 else min(delay * 2, 10.0)
            await asyncio.sleep(delay)

    async def _read(self, w: Worker, reader: asyncio.StreamReader) -> None:
        def begun() -> None:  # a frame under way is hearing from it: past its start, on worker_timeout
            w.heard_monotonic, w.spoken = time.monotonic(), True

        try:
            while (message := await receive_message(reader, begun)) is not None and not w.killed:
                w.heard_monotonic, w.spoken = time.monotonic(), True
                await self._dispatch(w, message)
                w.heard_monotonic = time.monotonic()  # silence is counted while waiting, not while handling
        except WireError as exc:
            w.bad_frames += 1
            self._kill(w, f"sent a malformed frame ({exc})")
        except (OSError, ConnectionError):
            pass  # the worker is gone (a reset when it exits with our messages unread): its exit says how

    async def _watch(self, w: Worker) -> None:
        """Kill the worker when nothing came from it for worker_timeout; a worker that has run well
        for that long is no longer restarting."""
        daemon = self.config.daemon
        tick = daemon.worker_heartbeat / 2
        last = time.monotonic()
        while True:
            await asyncio.sleep(tick)
            now = time.monotonic()
            if now - last > tick + daemon.worker_timeout / 2:
                w.heard_monotonic = now  # this loop was held up itself: the worker's frames may be waiting unread
            last = now
            silent = now - w.heard_monotonic
            if silent > (daemon.worker_timeout if w.spoken else max(daemon.worker_timeout, START_GRACE)):
                w.hangs += 1
                self._kill(w, f"sent nothing for {silent:.1f} s (hung or stopped): killed")
                return
            if w.problem and w.spoken and now - w.started_monotonic > daemon.worker_timeout:
                w.problem = ""

    def _kill(self, w: Worker, reason: str) -> None:
        """Kill a worker that cannot be trusted any more; its targets are down from now on."""
        w.killed = True
        self._down(w, reason)
        if w.proc is not None and w.proc.returncode is None:
            w.proc.kill()  # SIGKILL: also ends a stopped process
        if w.writer is not None:
            w.writer.close()  # the reader sees the end at once, whoever else holds the socket

    def _down(self, w: Worker, reason: str) -> None:
        w.problem = reason
        log.error("worker down: starting it again", extra={"worker": w.index, "reason": reason,
                                                           "targets": len(w.keys)})
        for key in w.keys:
            status = self.statuses.get(key)
            if status is not None:
                status.error("worker", f"worker {w.index} {reason}; starting it again")

    @staticmethod
    async def _reap(w: Worker) -> int | None:
        if w.proc is None:
            return None
        try:
            async with asyncio.timeout(10):
                return await w.proc.wait()
        except TimeoutError:
            w.proc.kill()
            return await w.proc.wait()

    async def _dispatch(self, w: Worker, message: Message, *, nested: bool = False) -> None:
        """Act on one message; WireError when its shape is wrong (a bug in the daemon's own handling of a
        good message is logged, not held against the worker)."""
        kind, args = message[0], message[1:]
        try:
            if kind == "many" and not nested:
                [parts] = args
                for part in parts:
                    if not isinstance(part, list) or not part:
                        raise WireError("a part of a 'many' message is not a message")
                    await self._dispatch(w, part, nested=True)
                return
            if kind == "beat":
                return
            if kind == "batch":
                key, packed = args
                batch = unpack(packed)
                status = self.statuses.get(key)
                if status is not None:
                    status.last_update_unix = time.time()  # the age of data is counted from here
                    await self._handled(self.handle(key, batch))
            elif kind == "status":
                key, snap = args
                values = _status_values(snap)
                polls = [float(s) for s in snap["polls"]]
                status = self.statuses.get(key)
                if status is not None:
                    for name, value in values.items():
                        setattr(status, name, value)
                    for seconds in polls:
                        self.polled(status.collector, seconds)
            elif kind == "emit":
                what, payload = args
                if not isinstance(payload, dict):
                    raise WireError("an emit payload that is not a map")
                self.emit(str(what), payload)
            elif kind == "fatal":
                [reason] = args
                w.fatal = str(reason)[:500]
            else:
                raise WireError(f"a message of unknown kind {str(kind)[:40]!r}")
        except (ValueError, TypeError, KeyError) as exc:
            if isinstance(exc, WireError):
                raise
            raise WireError(f"a {str(kind)[:40]!r} message of the wrong shape: {exc!r}"[:300]) from None

    @staticmethod
    async def _handled(work: Awaitable[None]) -> None:
        try:
            await work
        except Exception:  # a bug on this side must not lose the worker's other targets
            log.exception("handling a worker's batch failed")

    def _worker(self, key: str) -> Worker:
        return self.workers[worker_of(key, self.n)]

    def not_ready(self) -> str | None:
        """Which workers are down or restarting, and why; None when every one runs well."""
        down = [f"worker {w.index} {w.problem}" for w in self.workers if w.problem]
        return "; ".join(down)[:1000] if down else None

    async def start_target(self, key: str) -> None:
        w = self._worker(key)
        w.keys.add(key)
        self._tell(w, ["start", key])

    async def stop_target(self, key: str) -> None:
        w = self._worker(key)
        w.keys.discard(key)
        self._tell(w, ["stop", key])

    async def reload(self, config: Config) -> None:
        """Every worker takes the daemon's new config (targets are then stopped and started as changed)."""
        self.config = config
        message = self._config_message()
        for w in self.workers:
            self._tell(w, message)

    async def close(self) -> None:
        """Stop every worker (their targets close their sessions); what they sent is handled."""
        self._closing = True
        for w in self.workers:
            self._tell(w, ["exit"])
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(15):
                await asyncio.gather(*self._tasks, return_exceptions=True)
        for t in self._tasks:
            t.cancel()
        for w in self.workers:
            if w.proc is not None and w.proc.returncode is None:
                w.proc.kill()
                await w.proc.wait()
