"""The spool through a full disk, on a real tmpfs: every point accepted is delivered in order once
space and InfluxDB are back; what had to be dropped is exactly what /metrics says."""

from __future__ import annotations

import asyncio
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from fabricwatch.sinks.batching_metrics import SinkMetrics
from fabricwatch.sinks.influxdb.config import InfluxConfig
from fabricwatch.sinks.influxdb.sink import InfluxSink
from fabricwatch.sinks.spool import Spool, SpoolWriteError
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    mnt = tmp_path / "fs"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_short_write_is_rolled_back_and_the_spool_goes_on(small_fs: Path) -> None:
    sp = Spool(small_fs / "spool", max_bytes=10 << 20, segment_bytes=64 << 10, fsync="never")
    accepted, refused = [], 0
    for i in range(400):  # ~1.2 MB into 256 KiB
        payload = f"batch-{i:04d}-".encode() + os.urandom(1500).hex().encode()
        try:
            sp.append(payload, 1)
            accepted.append(payload)
        except SpoolWriteError as exc:
            assert exc.errno == errno.ENOSPC
            refused += 1
    assert accepted and refused
    got = []
    while (rec := sp.peek()) is not None:  # nothing torn: every accepted record reads back, in order
        got.append(rec.payload)
        sp.ack(rec)
    assert got == accepted
    sp.close()
    reopened = Spool(small_fs / "spool", max_bytes=10 << 20, segment_bytes=64 << 10)
    assert reopened.stats.truncated_bytes == 0 and reopened.pending_points == 0
    reopened.append(b"after", 1)  # space is back once sent records' segments are gone
    assert reopened.peek() is not None


async def test_full_disk_with_influxdb_down_then_both_back(small_fs: Path, tmp_path: Path) -> None:
    influx = InfluxDB1(tmp_path / "influx")
    cfg = InfluxConfig(url=influx.url, database="full", batch_size=200, flush_interval=0.05,
                       backoff={"initial": 0.1, "max": 0.5}, memory_max_points=3_000,
                       spool={"dir": str(small_fs / "spool"), "max_bytes": 8 << 20, "segment_bytes": 64 << 10,
                              "fsync": "never"})
    sink = InfluxSink(cfg)
    await sink.start()
    filler = small_fs / "filler"
    sent = 0
    try:
        # load while InfluxDB is down: the spool fills the disk, then batches are held in memory
        for i in range(40):
            await sink.write([f"m,host=h{j % 7} v={i * 1000 + j}i {1_700_000_000_000_000_000 + i * 1000 + j}"
                              for j in range(1000)])
            sent += 1000
            await asyncio.sleep(0.01)
        sink.flush()
        assert sink.stats.disk_full and sink.held_points > 0
        _fill(filler)  # and something else fills what is left
        assert not task_crashed(sink)
        dropped = sink.stats.points_dropped_memory
        assert dropped > 0  # more than memory_max_points was held: the oldest held went, counted
        # space back, InfluxDB up: everything not counted as dropped arrives
        filler.unlink()
        influx.start()
        influx.create_db("full")
        for _ in range(300):
            sink.flush()
            await asyncio.sleep(0.1)
            if not sink.queue_depth:
                break
        assert sink.queue_depth == 0, (sink.held_points, sink.spool.pending_points)
        res = influx.query('SELECT count("v") FROM "m"', "full")
        stored = res["results"][0]["series"][0]["values"][0][1]
        print(f"full disk: {sent} points accepted, {stored} stored, {dropped} dropped and counted")
        assert stored == sent - dropped
        registry = CollectorRegistry()
        registry.register(SinkMetrics([sink]))
        metrics = generate_latest(registry).decode()
        assert f'fabricwatch_points_dropped_total{{reason="disk_full",sink="influxdb"}} {float(dropped)}' in metrics
        assert sink.spool.stats.write_errors > 0 and not sink.stats.disk_full
    finally:
        await sink.close()
        influx.stop()


def task_crashed(sink: InfluxSink) -> bool:
    return any(t.crashes for t in sink.tasks)


def _fill(path: Path) -> None:
    with open(path, "wb") as f:
        try:
            f.write(b"\0" * (1 << 20))
        except OSError:
            pass
