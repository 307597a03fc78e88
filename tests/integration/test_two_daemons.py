"""A second daemon on the same listen address, or on the same spool, stops at start with one clear
line and opens nothing (no spool recovery, no traceback); the spool is locked while a process has it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricwatch.sinks.spool import Spool, SpoolInUse
from tests.conftest import ROOT
from tests.servers import free_port, terminate

pytestmark = pytest.mark.integration


def config(tmp_path: Path, name: str, port: int, spool: Path) -> Path:
    path = tmp_path / f"{name}.toml"
    # storage that is never there (a closed port): the daemon spools, which is what it must not share
    path.write_text(f'[daemon]\nlisten = "127.0.0.1:{port}"\n[[sinks.influxdb]]\nurl = "http://127.0.0.1:{free_port()}"\n'
                    f'database = "fw"\nspool = {{ dir = "{spool}" }}\n')
    return path


def run(path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "fabricwatch", "run", "-c", str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def first(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    port, spool = free_port(), tmp_path / "spool"
    proc = run(config(tmp_path, "first", port, spool))
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                break
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.3)
    try:
        yield port, spool
    finally:
        terminate(proc)  # type: ignore[arg-type]


def test_a_second_daemon_on_the_same_port_says_so_in_one_line(first: tuple[int, Path], tmp_path: Path) -> None:
    port, _ = first
    other_spool = tmp_path / "other-spool"
    res = subprocess.run([sys.executable, "-m", "fabricwatch", "run", "-c",
                          str(config(tmp_path, "second", port, other_spool))],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2, res.stderr
    assert res.stderr.splitlines() == [f"fabricwatch run: cannot start: 127.0.0.1:{port} is in use "
                                       "(another fabricwatch run?): give another [daemon] listen or --listen"]
    assert not other_spool.exists()  # nothing was opened


def test_a_second_daemon_on_the_same_spool_says_so_in_one_line(first: tuple[int, Path], tmp_path: Path) -> None:
    _, spool = first
    before = sorted((p.name, p.stat().st_size) for p in spool.iterdir())
    res = subprocess.run([sys.executable, "-m", "fabricwatch", "run", "-c",
                          str(config(tmp_path, "second", free_port(), spool))],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.splitlines()
    assert line.startswith(f"fabricwatch run: cannot start: spool {spool} is in use by another process (pid "), line
    assert sorted((p.name, p.stat().st_size) for p in spool.iterdir()) == before


def test_the_spool_is_locked_until_closed(tmp_path: Path) -> None:
    sp = Spool(tmp_path)
    with pytest.raises(SpoolInUse, match=f"pid {os.getpid()}"):
        Spool(tmp_path)
    sp.close()
    Spool(tmp_path).close()
