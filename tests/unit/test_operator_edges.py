"""What an operator meets on the first day, each said in one line: a config value of the wrong kind,
a pipe closed early, Ctrl-C while the daemon starts, `train` on a few minutes of faulted history,
`train`'s window named as every other command names it."""

from __future__ import annotations

import io
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from fabricwatch.cli.main import parse_args
from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.record import record
from fabricwatch.simulator.topology import FabricSpec
from tests.conftest import FIXTURES, ROOT

FW = f"{shlex.quote(sys.executable)} -m fabricwatch"


def fw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricwatch", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_workers_of_the_wrong_kind_is_one_line_naming_the_key(tmp_path: Path) -> None:
    path = tmp_path / "fw.toml"
    path.write_text('[daemon]\nworkers = "two"\n')
    res = fw("check", "--config-only", "-c", str(path))
    assert res.returncode == 1
    assert res.stdout.splitlines()[1:] == [f"{path}: daemon.workers: expected 'auto' or a valid integer, got 'two'"]


def test_nccl_parse_into_a_pipe_closed_early_ends_quietly(tmp_path: Path) -> None:
    logs = " ".join(shlex.quote(str(FIXTURES / "nccl" / "superbench_nccl_allreduce.log")) for _ in range(400))
    res = subprocess.run(f"{FW} nccl parse {logs} --json | head -c 100 > /dev/null; echo \"${{PIPESTATUS[0]}}\"",
                         shell=True, executable="/bin/bash", cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.stderr == "", res.stderr
    assert res.stdout.strip() in ("0", "141"), res.stdout  # what a closed pipe ends a program with, no traceback


def test_nccl_parse_counts_hosts_in_words() -> None:
    res = fw("nccl", "parse", str(FIXTURES / "nccl" / "public-logs" / "10_gb200_1440rank_tail_only_header.txt"))
    assert res.returncode == 0, res.stderr
    assert "unknown ranks on 1 host (of those its rank lines name), 6 rows" in res.stdout, res.stdout
    res = fw("nccl", "parse", str(next((FIXTURES / "nccl" / "public-logs").glob("07_*.txt"))))
    assert "16 ranks on 2 hosts, 32 rows" in res.stdout, res.stdout


def test_ctrl_c_while_the_daemon_starts_is_quiet(tmp_path: Path) -> None:
    path = tmp_path / "fw.toml"
    path.write_text(f'[daemon]\nlisten = "127.0.0.1:0"\n[[sinks.influxdb]]\ndatabase = "x"\n'
                    f'spool = {{ dir = "{tmp_path / "spool"}" }}\n')
    # started as from a terminal, where Ctrl-C is not ignored: a test run in the background (`cmd &` in a
    # script) hands its children SIGINT ignored, and the daemon would only hear it once it handles it itself
    proc = subprocess.Popen([sys.executable, "-m", "fabricwatch", "run", "-c", str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(0.8)  # importing the daemon's layers: before it handles signals itself
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    # 130: stopped by main; -SIGINT: killed before Python handles signals (a loaded machine starts slowly)
    assert proc.returncode in (0, 130, -signal.SIGINT), (proc.returncode, err)


def test_train_names_its_window_from_to_as_every_command_does() -> None:
    for argv in (["train", "--influx-url", "u", "--from", "-6h", "--to", "-1h", "--out", "m.fwm"],
                 ["train", "--influx-url", "u", "--start", "-6h", "--end", "-1h", "--out", "m.fwm"]):
        args = parse_args(argv)
        assert (args.from_, args.to) == ("-6h", "-1h")


def test_train_on_minutes_of_faulted_history_fails_and_says_why(tmp_path: Path) -> None:
    fabric = Fabric(FabricSpec(nodes=16, rails=4, spines=2), seed=4, start_ns=1_790_000_000_000_000_000)
    fabric.inject(Fault.parse("pfc_storm:leaf-r0-0:swp2"))
    buf = io.StringIO()
    record(fabric, buf, steps=36, step_s=10)  # six minutes
    history = tmp_path / "faulted.lp"
    history.write_text(buf.getvalue())
    model = tmp_path / "m.fwm"
    res = fw("train", str(history), "--out", str(model))
    assert res.returncode == 1, (res.stdout, res.stderr)
    assert "fabricwatch train: only 6 minutes of history (12 intervals)" in res.stderr, res.stderr
    assert "expected pages" in res.stderr and "against a budget of" in res.stderr, res.stderr
    assert not model.exists()  # a model a daemon may load is not replaced by this one
    forced = fw("train", str(history), "--out", str(model), "--force")
    assert forced.returncode == 0 and model.exists(), forced.stderr
    assert "only 6 minutes of history" in forced.stderr
