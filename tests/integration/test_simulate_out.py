"""`fabricwatch simulate --out`: the written config stores the simulated fabric in a database of its
own (never the demo's `fabricwatch`), says which, and the daemon run from it fills that database."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def simulate(out: Path, *extra: str) -> tuple[subprocess.Popen[str], dict[str, Any], str]:
    """Start `fabricwatch simulate --out OUT`; its JSON answer and what it said on stderr so far."""
    proc = subprocess.Popen([sys.executable, "-m", "fabricwatch", "simulate", "--out", str(out), "--interval", "1s",
                             *extra], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.rstrip() == "}":
            break
    return proc, json.loads("".join(lines)), ""


def stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    return err


def test_each_simulation_writes_to_its_own_database_and_says_so(tmp_path: Path) -> None:
    ib_conf = tmp_path / "ib.toml"
    ib_conf.write_text("[fabric]\nfabric = \"ib\"\n[ufm]\nenabled = true\n")
    roce, roce_doc, _ = simulate(tmp_path / "lab-a")
    ib, ib_doc, _ = simulate(tmp_path / "lab b", "-c", str(ib_conf))
    try:
        roce_cfg = (tmp_path / "lab-a" / "fabricwatch.toml").read_text()
        ib_cfg = (tmp_path / "lab b" / "fabricwatch.toml").read_text()
    finally:
        roce_err, ib_err = stop(roce), stop(ib)
    dbs = []
    for text, doc, err in ((roce_cfg, roce_doc, roce_err), (ib_cfg, ib_doc, ib_err)):
        sink = tomllib.loads(text)["sinks"]["influxdb"][0]
        db = sink["database"]
        assert db != "fabricwatch", text  # the demo's
        assert sink["create_database"] is True
        assert doc["config"]["database"] == db and f"database {db!r}" in err, (doc, err)
        assert f"database {db!r}" in text.split("\n[", 1)[0]  # the header says so too
        dbs.append(db)
    assert dbs == ["fabricwatch_lab_a_roce", "fabricwatch_lab_b_ib"]


def test_the_daemon_run_from_the_written_config_fills_that_database(tmp_path: Path) -> None:
    influx = InfluxDB1(tmp_path / "influx")
    influx.start()
    sim, doc, _ = simulate(tmp_path / "sim")
    daemon = None
    try:
        conf = tmp_path / "sim" / "fabricwatch.toml"
        text = conf.read_text().replace("http://127.0.0.1:8086", influx.url)
        conf.write_text(text.replace("[daemon]", '[daemon]\nlisten = "127.0.0.1:0"'))
        db = doc["config"]["database"]
        daemon = subprocess.Popen([sys.executable, "-m", "fabricwatch", "run", "-c", str(conf)], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        stored = 0
        while time.monotonic() < deadline and not stored:
            time.sleep(1)
            res = influx.query("SHOW DATABASES")
            names = {v[0] for s in res["results"][0].get("series", []) for v in s.get("values", [])}
            if db in names:
                res = influx.query('SELECT count("in_octets") FROM "port_counters"', db)
                stored = sum(s["values"][0][1] for s in res["results"][0].get("series", []))
        assert stored > 0, f"nothing stored in {db}"
        assert "fabricwatch" not in names
    finally:
        if daemon is not None:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=30)
        stop(sim)
        influx.stop()
