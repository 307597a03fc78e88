"""`replay` and `train` on input that holds no port_counters sample (not line protocol, another
measurement, an empty file) fail with a non-zero exit that names the first bad line: "0 flagged"
and exit 0 read as a clean night."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.record import record
from fabricwatch.simulator.topology import FabricSpec
from tests.conftest import ROOT


def fw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricwatch", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("model")
    buf = io.StringIO()
    record(Fabric(FabricSpec(nodes=4, rails=2, spines=2), seed=3, start_ns=1_790_000_000_000_000_000), buf,
           steps=240, step_s=10)
    (d / "history.lp").write_text(buf.getvalue())
    res = fw("train", str(d / "history.lp"), "--out", str(d / "m.fwm"))
    assert res.returncode == 0, res.stderr
    return d / "m.fwm"


CASES = {
    "not_lp.txt": ("hello world\nthis is not line protocol\n", "not_lp.txt:1: field 'world' has no value"),
    "cpu.lp": ("cpu,host=a usage=1 1790000000000000000\n", "cpu.lp:1: measurement 'cpu'"),
    "empty.lp": ("", "empty.lp: no lines"),
}


@pytest.mark.parametrize("name", CASES)
def test_replay_and_train_of_no_samples_fail_naming_the_first_bad_line(name: str, model: Path,
                                                                      tmp_path: Path) -> None:
    text, first_bad = CASES[name]
    path = tmp_path / name
    path.write_text(text)
    for args in (("replay", str(path), "--model", str(model)), ("replay", str(path), "--fit-first", "1m"),
                 ("train", str(path), "--out", str(tmp_path / "x.fwm"))):
        res = fw(*args)
        assert res.returncode == 1, (args, res.stdout, res.stderr)
        assert f"fabricwatch {args[0]}: no port_counters sample read" in res.stderr, (args, res.stderr)
        assert first_bad in res.stderr, (args, res.stderr)
        assert "flagged" not in res.stdout and "Traceback" not in res.stderr
