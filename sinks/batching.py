"""The batching layer every storage sink shares: lines batched by size and time, every batch
spooled (sinks/spool.py) before it is sent, one sender in order with retries. A batch the server
refuses for good is counted by reason and dropped, never retried for ever; one it cannot take now
(down, 5xx, 429) stays spooled and is sent again."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from pydantic import Field

from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import Duration, StrictModel
from fabricwatch.core.supervise import Supervised
from fabricwatch.sinks.batching_metrics import SinkMetrics
from fabricwatch.sinks.spool import Record, Spool, SpoolWriteError

BLOCKED_RETRY_S = 5.0  # retry cadence while the server refuses until an operator acts


class SpoolConfig(StrictModel):
    dir: Path = Path("/var/lib/fabricwatch/spool")
    max_bytes: int = Field(1 << 30, ge=1 << 20)
    segment_bytes: int = Field(16 << 20, ge=1 << 16)
    fsync: Literal["always", "interval", "never"] = "interval"
    fsync_interval: Duration = 1.0
    drop: Literal["oldest", "newest"] = "oldest"


class BatchingConfig(Protocol):
    """The part of a sink's section the batching layer reads."""

    @property
    def name(self) -> str: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def flush_interval(self) -> float: ...
    @property
    def backoff(self) -> Backoff: ...
    @property
    def close_timeout(self) -> float: ...
    @property
    def memory_max_points(self) -> int: ...
    @property
    def spool(self) -> SpoolConfig: ...


@dataclass
class WriteOutcome:
    ok: bool
    retryable: bool = False
    status: int | None = None
    message: str = ""
    retry_after_s: float | None = None
    # the server will not take it until an operator acts (auth, missing database): hold, retry slowly
    blocked: bool = False
    too_large: bool = False
    # InfluxDB 1.x answers a batch with bad lines "partial write": it kept the others; how many it refused
    partial_rejected: int | None = None
    reason: str = ""  # why a refusal is for good, in a word (out_of_order, too_old): counted by it
    per_line: bool = False  # refused for some of its lines whatever the status (Prometheus' 500 'too old sample')

    @property
    def refused_lines(self) -> bool:
        """The server refused lines of the request (malformed, a field type conflict, an out-of-order
        sample): the rest of the request may be good."""
        return (self.status in (400, 422) or self.per_line) and self.partial_rejected is None

    @property
    def why(self) -> str:
        return self.reason or (str(self.status) if self.status is not None else "connection")


class Writer(Protocol):
    async def write(self, payload: bytes) -> WriteOutcome: ...
    async def check(self) -> str | None: ...
    async def close(self) -> None: ...


@dataclass(slots=True)
class SinkStats:
    points_written: int = 0
    points_retried: int = 0  # points in sends that failed and were tried again
    points_rejected: int = 0  # refused by the server with an error retrying cannot fix
    rejected_reasons: dict[str, int] = field(default_factory=dict)  # points_rejected by reason
    write_errors: dict[str, int] = field(default_factory=dict)
    last_success_unix: float = 0.0
    last_error: str = ""
    blocked: bool = False
    disk_full: bool = False  # the spool refuses writes: batches are held in memory
    points_dropped_memory: int = 0  # held batches dropped beyond memory_max_points


class BatchingSink:
    """Lines in, batches of `batch_size` spooled, sent in order by one sender; what each kind of
    server says is its Writer's to classify (`WriteOutcome`)."""

    kind = "batching"

    def __init__(self, cfg: BatchingConfig, writer: Writer) -> None:
        self.cfg = cfg
        self.name = cfg.name
        self.writer = writer
        self._log = logging.getLogger(f"fabricwatch.sink.{self.kind}")
        sp = cfg.spool
        self.spool = Spool(
            sp.dir, max_bytes=sp.max_bytes, segment_bytes=sp.segment_bytes, fsync=sp.fsync,
            fsync_interval_s=sp.fsync_interval, drop=sp.drop,
        )
        self.stats = SinkStats()
        self._buffer: list[str] = []
        self._held: deque[tuple[bytes, int]] = deque()  # batches the disk refused, oldest first
        self.held_points = 0
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.tasks: list[Supervised] = []
        self._closing = False
        self._last_ok = True

    # -- interface ---------------------------------------------------------------------
    @property
    def queue_depth(self) -> int:
        """Points waiting: in memory (buffered and held off a full disk) plus spooled."""
        return len(self._buffer) + self.held_points + self.spool.pending_points

    @classmethod
    def metrics(cls, sinks: Sequence[BatchingSink]) -> SinkMetrics:
        return SinkMetrics(sinks)

    async def start(self) -> None:
        self.tasks = [Supervised(f"sink:{self.name}:sender", self._sender),
                      Supervised(f"sink:{self.name}:flusher", self._flusher)]
        self._tasks = [asyncio.create_task(s.run(), name=s.name) for s in self.tasks]
        if self.spool:
            self._wake.set()  # replay what a previous run left behind

    async def write(self, lines: list[str]) -> None:
        self._buffer.extend(lines)
        if len(self._buffer) >= self.cfg.batch_size:
            self.flush()

    def flush(self) -> None:
        """Move the in-memory buffer to the spool (durable) in batch_size chunks. What the disk
        refuses (full, failing) is held in memory, in order, up to `memory_max_points` (the oldest
        beyond that is dropped and counted) and spooled again at the next flush."""
        buf = self._buffer
        self._buffer = []
        size = self.cfg.batch_size
        for i in range(0, len(buf), size):
            chunk = buf[i : i + size]
            records = self._records(chunk)
            self._formed(records)
            self._held.extend(records)
            self.held_points += len(chunk)
        while self._held:
            payload, points = self._held[0]
            try:
                self.spool.append(payload, points)
            except SpoolWriteError as exc:
                if not self.stats.disk_full:
                    self._log.error("spool cannot write: holding batches in memory", extra={
                        "sink": self.name, "error": str(exc), "held_points": self.held_points})
                self.stats.disk_full = True
                break
            self._held.popleft()
            self.held_points -= points
            if self.stats.disk_full:
                self._log.info("spool writes again", extra={"sink": self.name})
                self.stats.disk_full = False
        while self.held_points > self.cfg.memory_max_points and len(self._held) > 1:
            _, points = self._held.popleft()
            self.held_points -= points
            self.stats.points_dropped_memory += points
        self._wake.set()

    def _records(self, lines: list[str]) -> list[tuple[bytes, int]]:
        """One spool record per chunk, halved until each fits the spool's bound."""
        payload = "\n".join(lines).encode()
        if self.spool.fits(len(payload)) or len(lines) == 1:
            if not self.spool.fits(len(payload)):  # one line larger than the whole spool
                self._reject(1, "too_large")
                return []
            return [(payload, len(lines))]
        mid = len(lines) // 2
        return self._records(lines[:mid]) + self._records(lines[mid:])

    async def check(self) -> str | None:
        return await self.writer.check()

    async def close(self) -> None:
        """Flush to the spool, keep sending up to close_timeout, leave the rest spooled."""
        self._closing = True
        self.flush()
        if self._held:  # never reached the disk: lost with the process, and said so
            self._log.error("sink closed with batches the disk refused", extra={"sink": self.name,
                                                                         "points": self.held_points})
            self.stats.points_dropped_memory += self.held_points
            self._held.clear()
            self.held_points = 0
        self._wake.set()
        deadline = time.monotonic() + self.cfg.close_timeout
        # keep sending while the server takes writes; a down server gets no grace period
        while self.spool and time.monotonic() < deadline and self._last_ok:
            await asyncio.sleep(0.05)
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            try:
                await t
            except asyncio.CancelledError:
                pass
        self.spool.close()
        await self.writer.close()
        if self.spool.pending_points:
            self._log.warning("sink closed with points still spooled; they are sent at next start",
                        extra={"sink": self.name, "points": self.spool.pending_points})

    # -- background --------------------------------------------------------------------
    async def _flusher(self) -> None:
        while True:
            await asyncio.sleep(self.cfg.flush_interval)
            self.flush()
            self.spool._maybe_fsync()

    async def _sender(self) -> None:
        delays = self.cfg.backoff.delays()
        while True:
            rec = self.spool.peek()
            if rec is None:
                self._wake.clear()
                await self._wake.wait()
                continue
            outcome = await self._send(rec.payload)
            self._last_ok = outcome.ok
            if outcome.ok:
                self._done(rec, outcome)
                delays.reset()
                continue
            if await self._refused(outcome):
                continue
            self._count_error(outcome)
            if outcome.partial_rejected is not None:  # the server kept the rest of the batch
                self._partly_done(rec, outcome)
                continue
            if outcome.too_large or (outcome.refused_lines and rec.points > 1):
                # too large: in halves; refused lines (the whole request refused, as InfluxDB 2.x
                # does for one bad line): halves until the lines it refuses are found
                if await self._send_split(rec):
                    continue
                outcome = WriteOutcome(ok=False, status=None, message="a part of a split send failed; retrying",
                                       retryable=True)
            if not outcome.retryable:
                self._reject(rec.points, outcome.why)
                self._log.error("server rejected a batch; not retried",
                          extra={"sink": self.name, "status": outcome.status,
                                 "server_message": outcome.message, "points": rec.points})
                self.spool.ack(rec)
                continue
            self.stats.points_retried += rec.points
            self.stats.blocked = outcome.blocked
            # a server that refuses until an operator acts (auth, a missing database) is retried at
            # a steady few seconds: slow enough not to hammer it, quick to catch up once fixed
            wait = min(delays.longest(), BLOCKED_RETRY_S) if outcome.blocked else delays.next()
            wait = max(wait, outcome.retry_after_s or 0.0)
            self._log.warning("write failed, will retry",
                        extra={"sink": self.name, "status": outcome.status,
                               "server_message": outcome.message, "retry_in_s": round(wait, 2),
                               "spooled_points": self.spool.pending_points})
            await asyncio.sleep(wait)

    async def _send(self, payload: bytes) -> WriteOutcome:
        return await self.writer.write(payload)

    async def _send_split(self, rec: Record) -> bool:
        """The record in halves, in order: for a server that wants smaller requests (413), and for
        one that refused the request for some of its lines (the halves it takes are written, the
        lines it refuses alone are counted as rejected; past a budget of requests a refused part is
        rejected whole). A part that fails in a way retrying can fix (timeout, 5xx) leaves the
        record unacknowledged: it is sent again whole later (the parts already taken are
        overwritten with the same points)."""
        lines = rec.payload.split(b"\n")
        parts = [lines]
        written = rejected = 0
        reasons: dict[str, int] = {}  # counted once the record is acknowledged (a resend would count again)
        refusal: WriteOutcome | None = None
        budget = 32 + 4 * len(lines).bit_length()  # one bad line in 2**k costs ~2k requests
        while parts:
            part = parts.pop(0)
            if budget <= 0 and refusal is not None:  # refused lines everywhere: the rest is not tried
                rejected += len(part)
                reasons[refusal.why] = reasons.get(refusal.why, 0) + len(part)
                continue
            outcome = await self._send(b"\n".join(part))
            budget -= 1
            if outcome.ok:
                written += len(part)
            elif (outcome.too_large or (outcome.refused_lines and budget > 0)) and len(part) > 1:
                mid = len(part) // 2
                parts[:0] = [part[:mid], part[mid:]]
            elif outcome.retryable:
                self._count_error(outcome)
                return False
            else:
                refused = len(part) if outcome.partial_rejected is None else min(len(part), outcome.partial_rejected)
                written += len(part) - refused
                rejected += refused
                reasons[outcome.why] = reasons.get(outcome.why, 0) + refused
                refusal = refusal or outcome
                self._count_error(outcome)
        self.stats.points_written += written
        for reason, n in reasons.items():
            self._reject(n, reason)
        self.spool.ack(rec)
        if refusal is not None:
            self._log.error("server rejected points of a batch, wrote the rest; not retried", extra={
                "sink": self.name, "status": refusal.status, "server_message": refusal.message,
                "points": rejected, "written": written})
        return True

    def _partly_done(self, rec: Record, outcome: WriteOutcome) -> None:
        """A 'partial write': the server kept every line but those it names."""
        refused = min(rec.points, outcome.partial_rejected or 0)
        self.spool.ack(rec)
        self.stats.points_written += rec.points - refused
        self._reject(refused, outcome.why)
        self._log.error("server rejected points of a batch and kept the rest; not retried",
                  extra={"sink": self.name, "status": outcome.status, "server_message": outcome.message,
                         "points": refused})

    def _done(self, rec: Record, outcome: WriteOutcome) -> None:
        self.spool.ack(rec)
        self.stats.points_written += rec.points
        self.stats.last_success_unix = time.time()
        if self.stats.blocked:
            self._log.info("server accepts writes again", extra={"sink": self.name})
        self.stats.blocked = False

    def _formed(self, records: list[tuple[bytes, int]]) -> None:
        """A kind's chance to prepare the batches it is about to spool (encode them while the request before
        is in flight)."""

    async def _refused(self, outcome: WriteOutcome) -> bool:
        """A kind's chance to fix what the server refused (a missing database): True sends again at once."""
        return False

    def _reject(self, points: int, reason: str) -> None:
        self.stats.points_rejected += points
        self.stats.rejected_reasons[reason] = self.stats.rejected_reasons.get(reason, 0) + points

    def _count_error(self, outcome: WriteOutcome) -> None:
        kind = str(outcome.status) if outcome.status is not None else "connection"
        self.stats.write_errors[kind] = self.stats.write_errors.get(kind, 0) + 1
        self.stats.last_error = f"{kind}: {outcome.message}"[:300]
