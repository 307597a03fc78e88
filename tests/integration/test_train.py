"""`fabricwatch train` from InfluxDB history and from files; the daemon uses the model."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from fabricwatch.daemon.config import parse
from fabricwatch.daemon.runner import Runner
from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.record import record
from fabricwatch.simulator.topology import FabricSpec
from tests.conftest import ROOT
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration
START_NS = 1_790_000_000_000_000_000  # 2026-09-21T...


def fabricwatch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricwatch", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_train_from_influxdb_and_files_then_run_with_the_model(influx: InfluxDB1, tmp_path: Path) -> None:
    fabric = Fabric(FabricSpec(nodes=16, rails=4, spines=2), seed=5, start_ns=START_NS)
    buf = io.StringIO()
    record(fabric, buf, steps=240, step_s=10)  # 40 minutes of healthy counters
    text = buf.getvalue()
    lp = tmp_path / "history.lp"
    lp.write_text(text)
    influx.create_db("hist")
    lines = text.splitlines()
    for i in range(0, len(lines), 5000):
        req = urllib.request.Request(f"{influx.url}/write?db=hist&precision=ns",
                                     data="\n".join(lines[i : i + 5000]).encode())
        assert urllib.request.urlopen(req, timeout=60).status == 204

    from_db, from_file, budget = tmp_path / "db.fwm", tmp_path / "file.fwm", tmp_path / "budget.fwm"
    with ThreadPoolExecutor(3) as pool:  # three trainings, each a process of its own, side by side
        trained_from_db = pool.submit(fabricwatch, "train", "--influx-url", influx.url, "--influx-db", "hist",
                                      "--from", "2026-09-01T00:00:00Z", "--to", "2026-10-01T00:00:00Z",
                                      "--out", str(from_db))
        trained_from_file = pool.submit(fabricwatch, "train", str(lp), "--out", str(from_file))
        trained_to_budget = pool.submit(fabricwatch, "train", str(lp), "--out", str(budget),
                                        "--false-alarms-per-day", "2")
    res = trained_from_db.result()
    assert res.returncode == 0, res.stderr
    assert "roce/leaf_down/400G" in res.stdout and "roce/spine/400G" in res.stdout
    assert "expected pages:" in res.stdout and "held-out healthy history" in res.stdout
    res = trained_from_file.result()
    assert res.returncode == 0, res.stderr
    res = trained_to_budget.result()
    assert res.returncode == 0, res.stderr
    assert "budget 2 false alarms/day over" in res.stdout and "expected pages:" in res.stdout

    def meta(p: Path) -> dict:
        with zipfile.ZipFile(p) as z:
            return json.loads(z.read("model.json"))

    a, b = meta(from_db), meta(from_file)
    assert a["classes"].keys() == b["classes"].keys()
    for c in a["classes"]:  # the same history gives the same model, whichever way it was read
        assert a["classes"][c]["train_rows"] == b["classes"][c]["train_rows"]
        assert a["classes"][c]["threshold"] == pytest.approx(b["classes"][c]["threshold"])

    cfg = parse({"detector": {"model": str(from_db)},
                 "sinks": {"influxdb": [{"database": "x", "spool": {"dir": str(tmp_path / "spool")}}]}})
    runner = Runner(cfg)
    assert runner.detector is not None and runner.detector.mode == "model+rules"
    # the budget set in the daemon's config re-derives the model's thresholds from its held-out grid
    cfg = parse({"detector": {"model": str(from_db), "false_alarms_per_day": 0.5},  # the first runner has its spool
                 "sinks": {"influxdb": [{"database": "x", "spool": {"dir": str(tmp_path / "spool2")}}]}})
    runner = Runner(cfg)
    assert runner.detector is not None and runner.detector.detector.false_alarms_per_day == 0.5

    # a model of another version is refused at start with a clear message
    old = tmp_path / "old.fwm"
    with zipfile.ZipFile(from_db) as z, zipfile.ZipFile(old, "w") as out:
        out.writestr("model.json", json.dumps({**meta(from_db), "version": 99}))
        out.writestr("forests.skops", z.read("forests.skops"))
    conf = tmp_path / "fw.toml"
    conf.write_text(f'[daemon]\nlisten = "127.0.0.1:0"\n[detector]\nmodel = "{old}"\n')
    res = fabricwatch("run", "-c", str(conf))
    assert res.returncode == 2 and "model version 99" in res.stderr
    res = fabricwatch("check", "-c", str(conf))
    assert res.returncode == 1 and "FAIL detector model" in res.stdout
