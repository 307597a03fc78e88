"""Collector worker processes: `[daemon] workers = N` (or "auto": one per core) runs the targets'
sessions in N child processes, each owning a stable share of the targets (by hash of the target's
key). A worker does what costs most per counter update — the session (gRPC, SNMP, HTTP), protobuf
or BER decoding, vendor path mapping — and hands each batch of port samples to the daemon's process
over a socket. The daemon's process keeps the pipeline (rates, tags, line protocol), the detector,
the fabric page, the HTTP API, the sinks and their one spool: every port stays in one place, so
findings see both ends of every link and the spool is written by one process.

A worker that dies is started again (backing off) and its targets resume; the daemon's SIGHUP
makes every worker read the config again before targets are restarted; SIGTERM stops the workers
first, then flushes the sinks.

    python -m fabricwatch.daemon.workers --config FILE --fd N --index K   (started by the daemon)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import logging
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector as MetricsCollector

from fabricwatch.core import event_loop
from fabricwatch.core.batch import PortSample, SampleBatch
from fabricwatch.core.protocols import Collector
from fabricwatch.daemon import config as config_mod
from fabricwatch.daemon.hardening import no_core_dumps
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.daemon.targets import run_target

log = logging.getLogger("fabricwatch.workers")
_HEADER = struct.Struct("!I")
MAX_FRAME = 256 << 20
OUTBOX_MAX = 2000  # messages in one frame at most (a frame stays a few MB)


def worker_of(key: str, n: int) -> int:
    """The worker that runs a target: stable across restarts and processes (not Python's hash())."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big") % n


def frame(message: tuple[Any, ...]) -> bytes:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(body)) + body


async def send(writer: asyncio.StreamWriter, message: tuple[Any, ...]) -> None:
    writer.write(frame(message))
    await writer.drain()


async def receive(reader: asyncio.StreamReader) -> tuple[Any, ...] | None:
    """The next message, or None at the end of the stream. Frames come only from the daemon's own
    child processes (a socketpair it made), which is why pickle is acceptable here."""
    try:
        head = await reader.readexactly(_HEADER.size)
        (size,) = _HEADER.unpack(head)
        if size > MAX_FRAME:
            raise ValueError(f"a frame of {size} bytes")
        body = await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        return None
    try:
        message = pickle.loads(body)
    except Exception as exc:  # whatever garbage raises, it is one kind of failure here
        raise ValueError(f"not a message: {exc!r}"[:300]) from None
    if not isinstance(message, tuple) or not message:
        raise ValueError("not a message")
    return message


Packed = tuple[Any, ...]


def pack(batch: SampleBatch) -> Packed:
    """A batch as plain tuples for the wire: pickled and read back ~3x faster than the
    dataclasses (their samples are most of what a worker sends)."""
    return (batch.collector, batch.device,
            [(s.device, s.port, s.ts_ns, s.values, s.tags, s.uptime_s, s.bits) for s in batch.samples],
            batch.unmapped, batch.events, batch.problems, batch.modules)


def unpack(packed: Packed) -> SampleBatch:
    collector, device, samples, unmapped, events, problems, modules = packed
    return SampleBatch(collector, device, [PortSample(*s) for s in samples], unmapped, events, problems, modules)


def _snapshot(status: TargetStatus, polls: list[float]) -> dict[str, Any]:
    out = {"up": status.up, "connects": status.connects, "last_update_unix": status.last_update_unix,
           "samples": status.samples, "unmapped": status.unmapped, "errors": dict(status.errors),
           "activity": dict(status.activity), "last_error": status.last_error, "polls": list(polls)}
    polls.clear()
    return out


# -- the parent: one handle per worker ---------------------------------------------------------------
Handle = Callable[[str, SampleBatch], Awaitable[None]]


@dataclass(slots=True)
class Worker:
    index: int
    proc: asyncio.subprocess.Process | None = None
    writer: asyncio.StreamWriter | None = None
    keys: set[str] = field(default_factory=set)  # the targets it should run
    restarts: int = 0
    started_monotonic: float = 0.0

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
    def __init__(self, n: int, config_path: Path, *, statuses: dict[str, TargetStatus], handle: Handle,
                 emit: Callable[[str, dict[str, Any]], None], polled: Callable[[str, float], None]) -> None:
        self.n, self.config_path = n, config_path
        self.statuses, self.handle, self.emit, self.polled = statuses, handle, emit, polled
        self.workers = [Worker(i) for i in range(n)]
        self._closing = False
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._keep(w), name=f"worker-{w.index}") for w in self.workers]

    async def _spawn(self, w: Worker) -> asyncio.StreamReader:
        mine, theirs = socket.socketpair()
        cmd = [sys.executable, "-m", "fabricwatch.daemon.workers", "--config", str(self.config_path),
               "--fd", str(theirs.fileno()), "--index", str(w.index)]
        w.proc = await asyncio.create_subprocess_exec(*cmd, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        theirs.close()
        reader, w.writer = await asyncio.open_unix_connection(sock=mine)
        w.started_monotonic = time.monotonic()
        for key in sorted(w.keys):
            await send(w.writer, ("start", key))
        return reader

    async def _keep(self, w: Worker) -> None:
        """Run worker `w`, read what it sends; when it dies, start it again (backing off)."""
        delay = 0.5
        while not self._closing:
            try:
                reader = await self._spawn(w)
            except OSError as exc:
                log.error("cannot start a worker", extra={"worker": w.index, "error": str(exc)})
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
                continue
            try:
                while (message := await receive(reader)) is not None:
                    try:
                        await self._dispatch(message)
                    except Exception:  # a bug on this side must not lose the worker's other targets
                        log.exception("handling a worker's message failed", extra={"worker": w.index})
            except (ValueError, OSError) as exc:
                log.error("worker sent garbage: restarting it", extra={"worker": w.index, "error": str(exc)})
                if w.proc is not None and w.proc.returncode is None:
                    w.proc.kill()
            finally:
                w.writer = None
            code = await self._reap(w)
            if self._closing:
                break
            w.restarts += 1
            for key in w.keys:
                status = self.statuses.get(key)
                if status is not None:
                    status.error("worker", f"worker {w.index} exited ({code}); starting it again")
            log.error("worker exited: starting it again", extra={"worker": w.index, "code": code,
                                                                "targets": len(w.keys)})
            delay = 0.5 if time.monotonic() - w.started_monotonic > 60 else min(delay * 2, 10.0)
            await asyncio.sleep(delay)

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

    async def _dispatch(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "many":  # what a worker had to say in one pass of its event loop
            for part in message[1]:
                await self._dispatch(part)
        elif kind == "batch":
            _, key, packed = message
            if key in self.statuses:
                await self.handle(key, unpack(packed))
        elif kind == "status":
            _, key, snap = message
            status = self.statuses.get(key)
            if status is not None:
                for name in ("up", "connects", "last_update_unix", "samples", "unmapped", "errors", "activity",
                             "last_error"):
                    setattr(status, name, snap[name])
                for seconds in snap["polls"]:
                    self.polled(status.collector, seconds)
        elif kind == "emit":
            self.emit(message[1], message[2])

    def _worker(self, key: str) -> Worker:
        return self.workers[worker_of(key, self.n)]

    async def start_target(self, key: str) -> None:
        w = self._worker(key)
        w.keys.add(key)
        if w.writer is not None:
            await send(w.writer, ("start", key))

    async def stop_target(self, key: str) -> None:
        w = self._worker(key)
        w.keys.discard(key)
        if w.writer is not None:
            with contextlib.suppress(OSError, ConnectionError):
                await send(w.writer, ("stop", key))

    async def reload(self) -> None:
        """Every worker reads the config again (targets are then stopped and started as changed)."""
        for w in self.workers:
            if w.writer is not None:
                with contextlib.suppress(OSError, ConnectionError):
                    await send(w.writer, ("reload",))

    async def close(self) -> None:
        """Stop every worker (their targets close their sessions); what they sent is handled."""
        self._closing = True
        for w in self.workers:
            if w.writer is not None:
                with contextlib.suppress(OSError, ConnectionError):
                    await send(w.writer, ("exit",))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(15):
                await asyncio.gather(*self._tasks, return_exceptions=True)
        for t in self._tasks:
            t.cancel()
        for w in self.workers:
            if w.proc is not None and w.proc.returncode is None:
                w.proc.kill()
                await w.proc.wait()


class WorkerMetrics(MetricsCollector):
    """`fabricwatch_worker_*`: each collector worker process, its targets, restarts and CPU."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("fabricwatch_worker_up", "1 if the worker process runs", labels=["worker"])
        targets = GaugeMetricFamily("fabricwatch_worker_targets", "Targets the worker runs", labels=["worker"])
        restarts = CounterMetricFamily("fabricwatch_worker_restarts", "Times the worker died and was started "
                                       "again", labels=["worker"])
        cpu = CounterMetricFamily("fabricwatch_worker_cpu_seconds", "User + system CPU of the worker process "
                                  "since it last started", labels=["worker"])
        for w in self.pool.workers:
            label = [str(w.index)]
            up.add_metric(label, 1.0 if w.up else 0.0)
            targets.add_metric(label, len(w.keys))
            restarts.add_metric(label, w.restarts)
            cpu.add_metric(label, w.cpu_seconds())
        yield from (up, targets, restarts, cpu)


# -- the child ---------------------------------------------------------------------------------------
class WorkerProcess:
    def __init__(self, config_path: Path, index: int) -> None:
        self.config_path, self.index = config_path, index
        self.collectors: dict[str, Collector] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.writer: asyncio.StreamWriter | None = None
        # what the targets hand over in one pass of the event loop goes as one frame: one pickling
        # and one write instead of one per batch (a loop that is not saturated wakes per message)
        self._outbox: list[tuple[Any, ...]] = []
        self.load()

    def load(self) -> None:
        cfg = config_mod.load(self.config_path)
        self.collectors = {c.key: c for _, section in cfg.collector_configs() for c in section.build()}

    def _post(self, message: tuple[Any, ...]) -> None:
        """Queue a message for the frame sent at the end of this pass of the loop."""
        if not self._outbox:
            asyncio.get_running_loop().call_soon(self._flush)
        self._outbox.append(message)
        if len(self._outbox) >= OUTBOX_MAX:
            self._flush()

    def _flush(self) -> None:
        out, self._outbox = self._outbox, []
        if not out or self.writer is None or self.writer.is_closing():
            return
        self.writer.write(frame(("many", out)))

    async def _send(self, message: tuple[Any, ...]) -> None:
        """Post, then wait while the daemon has not read what was sent before (back-pressure)."""
        assert self.writer is not None
        self._post(message)
        await self.writer.drain()

    def start(self, key: str) -> None:
        collector = self.collectors.get(key)
        if collector is None or key in self.tasks:
            return
        status = TargetStatus(collector.kind, collector.cfg.name, collector.device, collector.address)
        polls: list[float] = []
        told = [0.0, False]  # when the daemon last heard of this target's state, and whether it was up

        async def deliver(batch: SampleBatch) -> None:
            now = time.monotonic()
            # the state at most once a second (and at once when it goes up): not a message per batch
            if now - told[0] >= 1.0 or status.up != told[1]:
                told[0], told[1] = now, status.up
                self._post(("batch", key, pack(batch)))
                await self._send(("status", key, _snapshot(status, polls)))
            else:
                await self._send(("batch", key, pack(batch)))

        def emit(kind: str, payload: dict[str, Any]) -> None:
            self._post(("emit", kind, payload))

        async def run() -> None:
            def polled(seconds: float) -> None:
                polls.append(seconds)
                self._post(("status", key, _snapshot(status, polls)))

            await run_target(collector, status, deliver=deliver, emit=emit, polled=polled)

        self.tasks[key] = asyncio.create_task(run(), name=key)

    async def stop(self, key: str) -> None:
        task = self.tasks.pop(key, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def serve(self, fd: int) -> int:
        sock = socket.socket(fileno=fd)
        reader, self.writer = await asyncio.open_unix_connection(sock=sock)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)  # systemd signals the whole group: the daemon decides
        reading = asyncio.create_task(receive(reader))
        stopping = asyncio.create_task(stop.wait())
        while True:
            done, _ = await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if stopping in done:
                break
            message = reading.result()
            if message is None or message[0] == "exit":
                break
            if message[0] == "start":
                self.start(message[1])
            elif message[0] == "stop":
                await self.stop(message[1])
            elif message[0] == "reload":
                try:
                    self.load()
                except config_mod.ConfigError as exc:
                    log.error("worker reload failed; keeping the running config", extra={"error": str(exc)})
            reading = asyncio.create_task(receive(reader))
        reading.cancel()
        stopping.cancel()
        for key in list(self.tasks):
            await self.stop(key)
        self._flush()
        with contextlib.suppress(OSError, ConnectionError):
            await self.writer.drain()
            self.writer.close()
            await self.writer.wait_closed()
        return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="fabricwatch-worker")
    ap.add_argument("--config", type=Path, required=True)
    ap.add_argument("--fd", type=int, required=True)
    ap.add_argument("--index", type=int, required=True)
    args = ap.parse_args(argv)
    no_core_dumps()  # a worker holds the targets' secrets, and exec made it dumpable again
    from fabricwatch.daemon import logs

    daemon = config_mod.load(args.config).daemon
    logs.setup(daemon.log_level)
    return event_loop.run(WorkerProcess(args.config, args.index).serve(args.fd), loop=daemon.event_loop)


if __name__ == "__main__":
    sys.exit(main())
