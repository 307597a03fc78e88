"""`export` writes in time order, as `replay` and `train` read: InfluxDB answers a chunk series by
series, and replay left out every sample older than what it had folded (1,303 of 14,874 lines of its
own export). Real InfluxDB filled with a simulated fabric's counters."""

from __future__ import annotations

import io
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.record import record
from fabricwatch.simulator.topology import FabricSpec
from tests.conftest import ROOT
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration
START_NS = 1_790_000_000_000_000_000


def fw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricwatch", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_export_is_in_time_order_and_replays_as_the_recording_does(influx: InfluxDB1, tmp_path: Path) -> None:
    buf = io.StringIO()
    record(Fabric(FabricSpec(nodes=4, rails=2, spines=2), seed=9, start_ns=START_NS), buf, steps=120, step_s=10)
    original = tmp_path / "original.lp"
    original.write_text(buf.getvalue())
    influx.create_db("order")
    lines = buf.getvalue().splitlines()
    for i in range(0, len(lines), 5000):
        req = urllib.request.Request(f"{influx.url}/write?db=order&precision=ns",
                                     data="\n".join(lines[i: i + 5000]).encode())
        assert urllib.request.urlopen(req, timeout=60).status == 204

    exported = tmp_path / "export.lp"
    res = fw("export", "--influx-url", influx.url, "--influx-db", "order", "--from", "2026-09-21T00:00:00Z",
             "--to", "2026-09-23T00:00:00Z", "-o", str(exported))
    assert res.returncode == 0, res.stderr
    out = exported.read_text().splitlines()
    assert len(out) == len({(ln.split(" ")[0], ln.rsplit(" ", 1)[1]) for ln in lines})
    times = [int(ln.rsplit(" ", 1)[1]) for ln in out]
    assert times == sorted(times)

    replay = ["--fit-first", "10m", "--json"]
    from_export, from_original = fw("replay", str(exported), *replay), fw("replay", str(original), *replay)
    assert from_export.returncode == 0, from_export.stderr
    assert "out of time order" not in from_export.stderr, from_export.stderr
    assert from_export.stdout == from_original.stdout
