"""A collector worker process: runs the targets the daemon hands it and sends back their batches.

The daemon sends the config it runs (`config`, again at each reload: never the file on disk, which
may be mid-edit), then `start`/`stop` of target keys, then `exit`. The worker sends `batch`,
`status` and `emit` messages, a `beat` every `[daemon] worker_heartbeat` (by which the daemon tells
a hung worker), and `fatal` with the reason before it exits on a failure.

    python -m fabricwatch.daemon.worker_process --fd N --index K --event-loop uvloop --log-level info
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import socket
import sys
import time
from typing import Any, get_args

from fabricwatch.core import event_loop
from fabricwatch.core.batch import SampleBatch
from fabricwatch.core.event_loop import EventLoop
from fabricwatch.core.protocols import Collector
from fabricwatch.daemon import config as config_mod
from fabricwatch.daemon.hardening import no_core_dumps
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.daemon.targets import run_target
from fabricwatch.daemon.worker_wire import OUTBOX_MAX, Message, WireError, frame, frames, pack, receive

log = logging.getLogger("fabricwatch.workers")


def snapshot(status: TargetStatus, polls: list[float]) -> dict[str, Any]:
    """What the daemon keeps of a target's state; the poll durations since the last one (then cleared)."""
    out = {"up": status.up, "connects": status.connects, "samples": status.samples, "unmapped": status.unmapped,
           "errors": dict(status.errors), "activity": dict(status.activity), "last_error": status.last_error,
           "polls": list(polls)}
    polls.clear()
    return out


class WorkerProcess:
    def __init__(self, index: int) -> None:
        self.index = index
        self.collectors: dict[str, Collector] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.writer: asyncio.StreamWriter | None = None
        self.heartbeat = 1.0
        # what the targets hand over in one pass of the event loop goes as one frame: one encoding
        # and one write instead of one per batch (a loop that is not saturated wakes per message)
        self._outbox: list[Message] = []

    def configure(self, data: dict[str, Any], source: str) -> None:
        """Build the targets of the config the daemon runs (raises ConfigError as `parse` does)."""
        cfg = config_mod.parse(data, source)
        self.collectors = {c.key: c for _, section in cfg.collector_configs() for c in section.build()}
        self.heartbeat = cfg.daemon.worker_heartbeat

    def _post(self, message: Message) -> None:
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
        for data in frames(out, self._refused):
            self.writer.write(data)

    @staticmethod
    def _refused(message: Message, exc: WireError) -> None:
        log.error("a message too big or odd to send was dropped", extra={"kind": message[0], "error": str(exc)})

    async def _send(self, message: Message) -> None:
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
                self._post(["batch", key, pack(batch)])
                await self._send(["status", key, snapshot(status, polls)])
            else:
                await self._send(["batch", key, pack(batch)])

        def emit(kind: str, payload: dict[str, Any]) -> None:
            self._post(["emit", kind, payload])

        async def run() -> None:
            def polled(seconds: float) -> None:
                polls.append(seconds)
                self._post(["status", key, snapshot(status, polls)])

            await run_target(collector, status, deliver=deliver, emit=emit, polled=polled)

        self.tasks[key] = asyncio.create_task(run(), name=key)

    async def stop(self, key: str) -> None:
        task = self.tasks.pop(key, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _beat(self) -> None:
        """Tell the daemon this loop still turns (sent even while back-pressure holds the targets)."""
        while True:
            self._post(["beat"])
            await asyncio.sleep(self.heartbeat)

    async def _obey(self, message: Message) -> bool:
        """Act on one message from the daemon; False when it says to exit."""
        kind = message[0]
        if kind == "exit":
            return False
        if kind == "config":
            try:
                self.configure(message[1], message[2])
            except config_mod.ConfigError as exc:
                # the daemon validated it first: this is a bug, and the running targets stay
                log.error("worker could not take the daemon's config", extra={"error": str(exc)})
        elif kind == "start":
            self.start(message[1])
        elif kind == "stop":
            await self.stop(message[1])
        return True

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> int:
        self.writer = writer
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)  # systemd signals the whole group: the daemon decides
        beat = asyncio.create_task(self._beat(), name="heartbeat")
        reading = asyncio.create_task(receive(reader))
        stopping = asyncio.create_task(stop.wait())
        try:
            while True:
                done, _ = await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stopping in done:
                    break
                message = reading.result()
                if message is None or not await self._obey(message):
                    break
                reading = asyncio.create_task(receive(reader))
        finally:
            for task in (beat, reading, stopping):
                task.cancel()
            for key in list(self.tasks):
                await self.stop(key)
            self._flush()
        with contextlib.suppress(OSError, ConnectionError):
            await writer.drain()
            writer.close()
            await writer.wait_closed()
        return 0


async def _run(fd: int, index: int) -> int:
    reader, writer = await asyncio.open_unix_connection(sock=socket.socket(fileno=fd))
    try:
        return await WorkerProcess(index).serve(reader, writer)
    except Exception as exc:
        # the daemon shows why this worker failed (its targets' last_error, /readyz), not only an exit code
        log.exception("worker failed")
        with contextlib.suppress(OSError, ConnectionError, WireError, TimeoutError):
            writer.write(frame(["fatal", f"{type(exc).__name__}: {exc}"[:500]]))
            writer.write_eof()
            # read what the daemon still sends until it closes: leaving it unread would reset the socket,
            # and the daemon would lose the reason with it
            async with asyncio.timeout(5):
                while await reader.read(65536):
                    pass
        return 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="fabricwatch-worker")
    ap.add_argument("--fd", type=int, required=True)
    ap.add_argument("--index", type=int, required=True)
    ap.add_argument("--event-loop", choices=get_args(EventLoop), default="uvloop")
    ap.add_argument("--log-level", default="info")
    args = ap.parse_args(argv)
    no_core_dumps()  # a worker holds the targets' secrets, and exec made it dumpable again
    from fabricwatch.daemon import logs

    logs.setup(args.log_level)
    return event_loop.run(_run(args.fd, args.index), loop=args.event_loop)


if __name__ == "__main__":
    sys.exit(main())
