"""The spool: order, durability across reopen, torn tails, corruption and the size bound."""

from __future__ import annotations

from pathlib import Path

from fabricwatch.sinks.spool import Spool


def payloads(n: int, size: int = 50) -> list[bytes]:
    return [f"batch-{i:05d}-".encode() + b"x" * size for i in range(n)]


def drain(spool: Spool) -> list[bytes]:
    out = []
    while (rec := spool.peek()) is not None:
        out.append(rec.payload)
        spool.ack(rec)
    return out


def test_fifo_across_segments_and_reopen(tmp_path: Path) -> None:
    data = payloads(200)
    sp = Spool(tmp_path, segment_bytes=1024)
    for i, p in enumerate(data):
        assert sp.append(p, i + 1)
    assert sp.pending_points == sum(range(1, 201))
    first = [sp.peek()]
    assert first[0] is not None
    sp.ack(first[0])
    sp.close()
    reopened = Spool(tmp_path, segment_bytes=1024)
    assert reopened.pending_points == sum(range(2, 201))
    assert drain(reopened) == data[1:]
    assert reopened.pending_points == 0 and reopened.pending_bytes == 0
    # fully sent segments are deleted, only the active one stays
    assert len(list(tmp_path.glob("seg-*.log"))) == 1


def test_torn_tail_at_every_byte_never_breaks_replay(tmp_path: Path) -> None:
    data = payloads(5)
    src = tmp_path / "src"
    sp = Spool(src)
    for p in data:
        sp.append(p, 1)
    sp.close()
    (segment,) = src.glob("seg-*.log")
    whole = segment.read_bytes()
    record_ends = []
    off = 0
    for p in data:
        off += 14 + len(p)
        record_ends.append(off)
    for cut in range(len(whole) + 1):
        d = tmp_path / f"cut{cut}"
        d.mkdir()
        (d / segment.name).write_bytes(whole[:cut])
        survivors = sum(1 for end in record_ends if end <= cut)
        sp2 = Spool(d)
        assert drain(sp2) == data[:survivors], cut
        # and it keeps working after recovery
        sp2.append(b"after", 1)
        assert drain(sp2) == [b"after"]
        sp2.close()


def test_corrupt_record_in_old_segment_is_counted_not_fatal(tmp_path: Path) -> None:
    sp = Spool(tmp_path, segment_bytes=300)
    data = payloads(12)
    for p in data:
        sp.append(p, 1)
    sp.close()
    segments = sorted(tmp_path.glob("seg-*.log"))
    assert len(segments) > 2
    raw = bytearray(segments[0].read_bytes())
    in_first_segment = len(raw) // (14 + len(data[0]))
    raw[20] ^= 0xFF  # flip a payload byte of the first record
    segments[0].write_bytes(bytes(raw))
    sp2 = Spool(tmp_path, segment_bytes=300)
    got = drain(sp2)
    assert sp2.stats.corrupt_records == 1
    # the bad record and the rest of its segment are skipped; everything after is replayed
    assert got == data[in_first_segment:]


def test_bound_drops_oldest_and_counts(tmp_path: Path) -> None:
    sp = Spool(tmp_path, max_bytes=1 << 20, segment_bytes=64 << 10)
    big = b"y" * 10_000
    for _ in range(300):  # ~3 MB into a 1 MiB spool
        sp.append(big, 10)
    assert sp.pending_bytes <= 1 << 20
    assert sp.stats.dropped_points > 0
    assert sp.stats.dropped_points + sp.pending_points == 3000


def test_bound_newest_policy_refuses(tmp_path: Path) -> None:
    sp = Spool(tmp_path, max_bytes=1 << 20, segment_bytes=64 << 10, drop="newest")
    accepted = sum(sp.append(b"z" * 10_000, 1) for _ in range(300))
    assert accepted < 300
    assert sp.stats.dropped_points == 300 - accepted
    assert sp.pending_points == accepted
