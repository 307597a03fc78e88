"""The daemon and its collector workers hold secrets in memory (switch passwords, tokens, keys): a
crash must not write them to a core file. Here the kernel writes `core` into the crashing process's
working directory (core_pattern), and a process that may dump does so when RLIMIT_CORE allows it."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.servers import free_port, terminate

pytestmark = pytest.mark.integration


def allow_cores() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(p) for p in (task / "children").read_text().split()]
    return out


def wait_for(what: str, ok: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ok():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_crash_of_the_daemon_or_a_worker_writes_no_core(tmp_path: Path) -> None:
    assert Path("/proc/sys/kernel/core_pattern").read_text().strip() == "core", "the test needs core_pattern=core"
    # the machine does write cores here: a plain Python crashing in the same conditions leaves one
    probe = tmp_path / "probe"
    probe.mkdir()
    crash = subprocess.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGABRT)"],
                           cwd=probe, preexec_fn=allow_cores, timeout=60)
    assert crash.returncode == -signal.SIGABRT and any(p.name.startswith("core") for p in probe.iterdir())

    run = tmp_path / "run"
    run.mkdir()
    conf = run / "fw.toml"
    conf.write_text(f'[daemon]\nlisten = "127.0.0.1:{free_port()}"\nworkers = 2\n[detector]\nenabled = false\n')
    proc = subprocess.Popen([sys.executable, "-m", "fabricwatch", "run", "-c", str(conf)], cwd=run,
                            preexec_fn=allow_cores, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for("two workers", lambda: len(children(proc.pid)) == 2)
        time.sleep(1.0)  # the workers are past their start
        worker = children(proc.pid)[0]
        os.kill(worker, signal.SIGABRT)
        wait_for("the worker to be started again", lambda: worker not in children(proc.pid)
                 and len(children(proc.pid)) == 2)
        os.kill(proc.pid, signal.SIGABRT)
        assert proc.wait(30) == -signal.SIGABRT
    finally:
        terminate(proc)
    assert not [p.name for p in run.iterdir() if p.name.startswith("core")]
