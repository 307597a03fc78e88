"""A durable, bounded, in-order on-disk queue of write batches (append-only segments).

Every batch a sink flushes is appended here first and removed only after the server took it,
so a storage outage or a `kill -9` loses nothing the spool acknowledged. Layout::

    DIR/seg-<20-digit id>.log   records: magic 'FW' | u32 len | u32 points | u32 crc32 | payload
    DIR/cursor                  {"segment": id, "offset": n}: the first record not yet sent
    DIR/lock                    flock()ed by the one process that has the spool open (its pid inside)

One writer only: a second process (a second daemon, `nccl ingest` beside a running daemon) opening
the same directory would truncate what it takes for a torn tail and send records twice, so it gets
`SpoolInUse` before it reads anything. The lock goes with the process (flock), never stale.

On open, a torn tail (a record cut by a crash) in the newest segment is truncated; a bad record
anywhere else ends that segment's replay and is counted as corrupt, never a crash. A record
sent but not yet acknowledged when the process dies is sent again: InfluxDB overwrites a point
with the same series and timestamp, so replay is idempotent.

A full disk: a record is counted as spooled only once all of it is written; a short write or
ENOSPC is rolled back (the segment truncated to where the record began) and `append` raises
`SpoolWriteError`, so the caller keeps the batch (the InfluxDB sink holds it in memory, bounded and
counted) and tries again later. A cursor that cannot be saved stays in memory: a crash then replays
already-sent records (duplicates, never loss). Creating or removing a segment and replacing the
cursor fsync the directory, so that what was fsynced survives a power loss with its name.

Power loss with the default `fsync = "interval"` (1 s): the records appended since the last fsync
(about one second of data) can be lost; everything fsynced before is kept. `always` loses nothing
acknowledged, at one fsync per batch.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import struct
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

log = logging.getLogger("fabricwatch.spool")

_HEADER = struct.Struct("<2sIII")
_MAGIC = b"FW"
_SEG_PREFIX, _SEG_SUFFIX = "seg-", ".log"


class SpoolInUse(RuntimeError):
    """Another process (or another Spool of this one) has the directory open."""


@dataclass(frozen=True, slots=True)
class Record:
    segment: int
    offset: int
    payload: bytes
    points: int

    @property
    def end(self) -> int:
        return self.offset + _HEADER.size + len(self.payload)


class SpoolWriteError(OSError):
    """A record could not be written (no space, I/O error); nothing of it stays in the spool."""


@dataclass(slots=True)
class SpoolStats:
    appended_records: int = 0
    appended_points: int = 0
    acked_points: int = 0
    dropped_points: int = 0  # removed by the size bound: always counted, never silent
    corrupt_records: int = 0
    truncated_bytes: int = 0
    write_errors: int = 0  # appends refused by the disk (rolled back; the caller keeps the batch)
    cursor_errors: int = 0  # cursor saves that failed (kept in memory)


@dataclass(slots=True)
class _Segment:
    id: int
    size: int
    records: int
    points: int


class Spool:
    def __init__(
        self,
        directory: str | Path,
        *,
        max_bytes: int = 1 << 30,
        segment_bytes: int = 16 << 20,
        fsync: Literal["always", "interval", "never"] = "interval",
        fsync_interval_s: float = 1.0,
        drop: Literal["oldest", "newest"] = "oldest",
    ) -> None:
        self.dir = Path(directory)
        self._lock_fd: int | None = None
        self.dir.mkdir(parents=True, exist_ok=True)
        self._lock_fd = self._lock()
        self.max_bytes = max_bytes
        self.segment_bytes = segment_bytes
        self.fsync_policy = fsync
        self.fsync_interval_s = fsync_interval_s
        self.drop_policy = drop
        self.stats = SpoolStats()
        self._segments: list[_Segment] = []
        self._read_seg = 0
        self._read_off = 0
        self._wfd: int | None = None
        self._rfds: dict[int, int] = {}
        self._last_fsync = time.monotonic()
        self._dirty = False
        self._open()

    def _lock(self) -> int:
        fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT, 0o640)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise SpoolInUse(f"spool {self.dir} is in use by another process (pid {holder}): "
                             "one spool has one writer (give each daemon its own spool.dir)") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return fd

    def _unlock(self) -> None:
        fd = getattr(self, "_lock_fd", None)  # None, or not set when __init__ failed early
        if fd is not None:
            os.close(fd)  # closing the descriptor releases the flock
            self._lock_fd = None

    def __del__(self) -> None:
        self._unlock()

    # -- recovery ----------------------------------------------------------------------
    def _seg_path(self, seg_id: int) -> Path:
        return self.dir / f"{_SEG_PREFIX}{seg_id:020d}{_SEG_SUFFIX}"

    def _scan(self, seg_id: int, start: int, last: bool) -> _Segment:
        """Count valid records from `start`; truncate a torn tail of the newest segment."""
        path = self._seg_path(seg_id)
        data = path.read_bytes()
        off, records, points = start, 0, 0
        while off < len(data):
            rec = self._parse(data, off)
            if rec is None:
                break
            payload_len, count = rec
            off += _HEADER.size + payload_len
            records += 1
            points += count
        if off < len(data):
            if last:
                self.stats.truncated_bytes += len(data) - off
                log.warning("spool: truncating torn tail", extra={"segment": path.name,
                            "offset": off, "bytes": len(data) - off})
                with open(path, "r+b") as f:
                    f.truncate(off)
            else:
                self.stats.corrupt_records += 1
                log.error("spool: corrupt record, rest of segment skipped",
                          extra={"segment": path.name, "offset": off})
        return _Segment(seg_id, off, records, points)

    @staticmethod
    def _parse(data: bytes, off: int) -> tuple[int, int] | None:
        if off + _HEADER.size > len(data):
            return None
        magic, length, count, crc = _HEADER.unpack_from(data, off)
        end = off + _HEADER.size + length
        if magic != _MAGIC or end > len(data):
            return None
        if zlib.crc32(data[off + _HEADER.size : end]) != crc:
            return None
        return length, count

    def _open(self) -> None:
        ids = sorted(
            int(p.name[len(_SEG_PREFIX) : -len(_SEG_SUFFIX)])
            for p in self.dir.glob(f"{_SEG_PREFIX}*{_SEG_SUFFIX}")
        )
        cursor_seg, cursor_off = self._load_cursor()
        for i, seg_id in enumerate(ids):
            if seg_id < cursor_seg:
                self._seg_path(seg_id).unlink(missing_ok=True)  # fully sent before a crash
                continue
            last = i == len(ids) - 1
            start = cursor_off if seg_id == cursor_seg else 0
            seg = self._scan(seg_id, start, last)
            if seg_id == cursor_seg and cursor_off > seg.size:
                start = 0  # a cursor beyond the data (torn cursor?): replay the segment
                seg = self._scan(seg_id, 0, last)
            self._segments.append(seg)
            if not self._read_seg_set():
                self._read_seg, self._read_off = seg_id, start
        if not self._segments:
            next_id = max(ids[-1] + 1 if ids else 1, cursor_seg)
            self._new_segment(next_id)
            self._read_seg, self._read_off = next_id, 0
        else:
            last_seg = self._segments[-1]
            self._wfd = os.open(self._seg_path(last_seg.id), os.O_WRONLY | os.O_APPEND)
        log.info("spool opened", extra={"dir": str(self.dir), "pending_points": self.pending_points,
                                        "pending_bytes": self.pending_bytes})

    def _read_seg_set(self) -> bool:
        return self._read_seg != 0

    def _load_cursor(self) -> tuple[int, int]:
        path = self.dir / "cursor"
        try:
            data = json.loads(path.read_text())
            return int(data["segment"]), int(data["offset"])
        except FileNotFoundError:
            return 0, 0
        except (ValueError, KeyError, TypeError, json.JSONDecodeError):
            log.error("spool: unreadable cursor, replaying everything kept")
            return 0, 0

    def _save_cursor(self) -> None:
        tmp = self.dir / "cursor.tmp"
        try:
            with open(tmp, "w") as f:
                json.dump({"segment": self._read_seg, "offset": self._read_off}, f)
                f.flush()
                if self.fsync_policy != "never":
                    os.fsync(f.fileno())
            os.replace(tmp, self.dir / "cursor")
        except OSError as exc:  # a full disk: the cursor lives on in memory, a crash replays (duplicates)
            self.stats.cursor_errors += 1
            log.warning("spool: cursor not saved", extra={"error": str(exc)})
            return
        self._sync_dir()

    def _sync_dir(self) -> None:
        """Make a created, removed or renamed name durable (the file's own fsync does not)."""
        if self.fsync_policy == "never":
            return
        try:
            fd = os.open(self.dir, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            log.warning("spool: directory fsync failed", extra={"error": str(exc)})

    def _new_segment(self, seg_id: int) -> None:
        fd = os.open(self._seg_path(seg_id), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        if self._wfd is not None:
            if self.fsync_policy != "never":
                try:
                    os.fsync(self._wfd)
                except OSError as exc:
                    log.warning("spool: fsync failed", extra={"error": str(exc)})
            os.close(self._wfd)
        self._wfd = fd
        self._segments.append(_Segment(seg_id, 0, 0, 0))
        self._sync_dir()

    # -- state -------------------------------------------------------------------------
    @property
    def pending_bytes(self) -> int:
        total = sum(s.size for s in self._segments)
        return total - (self._read_off if self._segments and self._segments[0].id == self._read_seg else 0)

    @property
    def pending_points(self) -> int:
        return sum(s.points for s in self._segments)

    @property
    def pending_records(self) -> int:
        return sum(s.records for s in self._segments)

    def __bool__(self) -> bool:
        return self.pending_records > 0

    # -- writing -----------------------------------------------------------------------
    def fits(self, payload_bytes: int) -> bool:
        """Whether one record of this size can ever be held (the caller splits a larger batch)."""
        return _HEADER.size + payload_bytes <= self.max_bytes

    def append(self, payload: bytes, points: int) -> bool:
        """Durably queue one batch; False if the size bound made us drop it (policy 'newest').
        Raises SpoolWriteError when the disk refuses it: then nothing of it is in the spool."""
        size = _HEADER.size + len(payload)
        if size > self.max_bytes:
            raise ValueError(f"a record of {size} bytes cannot fit a spool of max_bytes {self.max_bytes}")
        if self.pending_bytes + size > self.max_bytes:
            if self.drop_policy == "newest" or not self._drop_oldest(size):
                self.stats.dropped_points += points
                log.error("spool full: batch dropped", extra={"points": points})
                return False
        active = self._segments[-1]
        if active.size and active.size + size > self.segment_bytes:
            try:
                self._new_segment(active.id + 1)
            except OSError as exc:
                self.stats.write_errors += 1
                raise SpoolWriteError(exc.errno, f"spool: cannot start a segment: {exc.strerror}") from None
            active = self._segments[-1]
        self._write_record(active, _HEADER.pack(_MAGIC, len(payload), points, zlib.crc32(payload)) + payload)
        active.size += size
        active.records += 1
        active.points += points
        self.stats.appended_records += 1
        self.stats.appended_points += points
        self._dirty = True
        self._maybe_fsync()
        return True

    def _write_record(self, seg: _Segment, data: bytes) -> None:
        """All of it, or nothing: a short write goes on from where it stopped; an error truncates
        the segment back to where the record began."""
        assert self._wfd is not None
        view = memoryview(data)
        written = 0
        try:
            while written < len(data):
                n = os.write(self._wfd, view[written:])
                if n <= 0:
                    raise OSError(28, "no space left on device")
                written += n
        except OSError as exc:
            self.stats.write_errors += 1
            try:
                os.ftruncate(self._wfd, seg.size)
            except OSError as trunc:  # the tail stays torn: the next open truncates it
                log.error("spool: cannot roll back a partial record", extra={"error": str(trunc)})
            raise SpoolWriteError(exc.errno or 28, f"spool: record not written: {exc.strerror or exc}") from None

    def _drop_oldest(self, need: int) -> bool:
        """Delete whole oldest segments (counted) until `need` more bytes fit."""
        while self.pending_bytes + need > self.max_bytes:
            if len(self._segments) == 1:
                self._new_segment(self._segments[-1].id + 1)
            oldest = self._segments.pop(0)
            self.stats.dropped_points += oldest.points
            log.error("spool full: oldest segment dropped",
                      extra={"segment": oldest.id, "points": oldest.points})
            self._close_reader(oldest.id)
            self._seg_path(oldest.id).unlink(missing_ok=True)
            self._read_seg, self._read_off = self._segments[0].id, 0
            self._save_cursor()
        return True

    def _maybe_fsync(self) -> None:
        if self._wfd is None or not self._dirty:
            return
        if self.fsync_policy == "always" or (
            self.fsync_policy == "interval"
            and time.monotonic() - self._last_fsync >= self.fsync_interval_s
        ):
            try:
                os.fsync(self._wfd)
            except OSError as exc:
                log.warning("spool: fsync failed", extra={"error": str(exc)})
                return
            self._last_fsync = time.monotonic()
            self._dirty = False

    def sync(self) -> None:
        if self._wfd is not None and self.fsync_policy != "never":
            try:
                os.fsync(self._wfd)
            except OSError as exc:
                log.warning("spool: fsync failed", extra={"error": str(exc)})
                return
            self._dirty = False

    # -- reading -----------------------------------------------------------------------
    def _reader(self, seg_id: int) -> int:
        fd = self._rfds.get(seg_id)
        if fd is None:
            fd = os.open(self._seg_path(seg_id), os.O_RDONLY)
            self._rfds[seg_id] = fd
        return fd

    def _close_reader(self, seg_id: int) -> None:
        fd = self._rfds.pop(seg_id, None)
        if fd is not None:
            os.close(fd)

    def peek(self) -> Record | None:
        """The oldest record not yet acknowledged, or None when everything was sent."""
        while self._segments:
            seg = self._segments[0]
            if seg.id != self._read_seg:
                self._read_seg, self._read_off = seg.id, 0
            if self._read_off < seg.size:
                fd = self._reader(seg.id)
                header = os.pread(fd, _HEADER.size, self._read_off)
                magic, length, count, crc = _HEADER.unpack(header)
                payload = os.pread(fd, length, self._read_off + _HEADER.size)
                if magic != _MAGIC or len(payload) != length or zlib.crc32(payload) != crc:
                    self.stats.corrupt_records += 1
                    log.error("spool: corrupt record skipped", extra={"segment": seg.id})
                    seg.size = self._read_off  # the rest of this segment cannot be trusted
                    continue
                return Record(seg.id, self._read_off, payload, count)
            if len(self._segments) == 1:
                return None  # caught up with the writer
            self._retire(seg)
        return None

    def _retire(self, seg: _Segment) -> None:
        self._segments.pop(0)
        self._close_reader(seg.id)
        self._seg_path(seg.id).unlink(missing_ok=True)
        self._read_seg, self._read_off = self._segments[0].id, 0
        self._save_cursor()  # also makes the removal durable (directory fsync)

    def ack(self, rec: Record) -> None:
        """The server has the record: move past it (and delete a finished, older segment)."""
        if not self._segments or rec.segment != self._read_seg or rec.offset != self._read_off:
            return  # already acked or dropped by the bound meanwhile
        seg = self._segments[0]
        seg.records -= 1
        seg.points -= rec.points
        self.stats.acked_points += rec.points
        self._read_off = rec.end
        if self._read_off >= seg.size and len(self._segments) > 1:
            self._retire(seg)
        else:
            self._save_cursor()

    def close(self) -> None:
        self.sync()
        if self._wfd is not None:
            os.close(self._wfd)
            self._wfd = None
        for seg_id in list(self._rfds):
            self._close_reader(seg_id)
        self._unlock()

    def iter_pending(self) -> list[Record]:
        """Every record not yet acknowledged, in order, without consuming (for tools and tests)."""
        out = []
        for seg in self._segments:
            data = self._seg_path(seg.id).read_bytes()
            off = self._read_off if seg.id == self._read_seg else 0
            while off < seg.size:
                parsed = self._parse(data, off)
                if parsed is None:
                    break
                length, count = parsed
                out.append(Record(seg.id, off, data[off + _HEADER.size : off + _HEADER.size + length], count))
                off += _HEADER.size + length
        return out
