"""Every command line in the README's code blocks: each parses as written, and those that need no
external system (no daemon, switch or storage) run as written in a folder holding the files they name."""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fabricwatch.cli.main import parse_args
from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.record import record
from fabricwatch.simulator.topology import FabricSpec
from fabricwatch.topology.sources import from_ibnetdiscover
from tests.conftest import FIXTURES, ROOT
from tests.nccl_logs import render

# these need a switch, a daemon, storage or run until stopped
EXTERNAL = re.compile(r"^fabricwatch (run|demo|simulate|check -c|query|why|export|replay --influx-url)\b")


def readme_commands() -> list[str]:
    """The `fabricwatch ...` lines of the README's sh blocks, comments off, `[optional]` brackets dropped."""
    lines, inside = [], False
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("```"):
            inside = line.strip() in ("```sh", "```bash") if not inside else False
            continue
        if inside and line.startswith("fabricwatch"):
            words = shlex.split(line, comments=True)
            lines.append(" ".join(w if "*" in w else shlex.quote(w.strip("[]")) for w in words))  # the shell globs
    return lines


COMMANDS = readme_commands()


def test_the_readme_has_the_commands_this_file_reads() -> None:
    assert len(COMMANDS) >= 25 and any("--from -6h" in c for c in COMMANDS)


@pytest.mark.parametrize("line", COMMANDS)
def test_every_readme_command_line_parses_as_written(line: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        args = parse_args(shlex.split(line)[1:])
    except SystemExit as exc:  # --version exits 0 after printing; a usage error exits 2
        assert exc.code == 0, capsys.readouterr().err
        return
    for option, dest in (("--from", "from_"), ("--to", "to"), ("--at", "at")):
        words = shlex.split(line)
        if option in words:
            assert getattr(args, dest) == words[words.index(option) + 1], line


def test_relative_times_are_read_in_every_documented_form() -> None:
    for argv in (["query", "top", "pauses", "--from", "-6h"], ["query", "top", "pauses", "--from=-6h"]):
        assert parse_args(argv).from_ == "-6h"
    args = parse_args(["replay", "x.lp", "--from", "-2h", "--to", "-1h", "--model", "m.fwm"])
    assert (args.from_, args.to, [str(f) for f in args.files]) == ("-2h", "-1h", ["x.lp"])
    assert parse_args(["why", "d", "p", "--at", "-30m"]).at == "-30m"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with every file the README's commands name."""
    d = tmp_path_factory.mktemp("readme")
    nccl = FIXTURES / "nccl"
    shutil.copy(nccl / "superbench_nccl_allreduce.log", d / "all_reduce.log")
    (d / "runs").mkdir()
    hosts = ["node001", "node002"]
    for i, jitter in enumerate((0.0, 0.004, -0.003)):
        busbw = {1 << p: round(180.0 * (1 + jitter), 2) for p in range(20, 31)}
        (d / "runs" / f"all_reduce_{i}.log").write_text(render("all_reduce", hosts, 8, busbw))
    (d / "t.toml").write_text('[[check]]\ncollective = "all_reduce"\nmin_busbw = 150.0\n')
    ib = FIXTURES / "ib" / "ibnetdiscover_director.txt"
    shutil.copy(ib, d / "fabric.txt")
    shutil.copytree(FIXTURES / "ufm" / "ndt_topoparse_data", d / "ufm-export")
    shutil.copy(FIXTURES / "lldp" / "lldpctl" / "clnet36.json", d / "gpu001-lldp.json")
    cables = from_ibnetdiscover(ib.read_text()).cables
    rows = ["device,port,peer_device,peer_port"] + [f"{c.a[0]},{c.a[1]},{c.b[0]},{c.b[1]}" for c in cables.values()]
    (d / "cabling.csv").write_text("\n".join(rows) + "\n")
    fabric = Fabric(FabricSpec(nodes=4, rails=2, spines=2), seed=3, start_ns=1_790_000_000_000_000_000)
    buf = io.StringIO()
    record(fabric, buf, steps=240, step_s=10)  # 40 minutes: train wants at least 30
    (d / "history.lp").write_text(buf.getvalue())
    buf = io.StringIO()
    record(fabric, buf, steps=60, step_s=10)
    (d / "night.lp").write_text(buf.getvalue())
    (d / "fabricwatch.toml").write_text('[daemon]\nlisten = "127.0.0.1:0"\n')
    return d


LOCAL = [c for c in COMMANDS if not EXTERNAL.match(c)]


def test_the_local_commands_are_the_ones_expected() -> None:
    names = {" ".join(shlex.split(c)[1:3]) for c in LOCAL}
    assert {"train history.lp", "replay night.lp", "nccl parse", "gate --thresholds", "--version"} <= names


@pytest.mark.parametrize("line", LOCAL)
def test_every_local_readme_command_runs_as_written(line: str, folder: Path) -> None:
    # `...` stands for the config named on the line above; `fabricwatch` is this checkout's
    line = line.replace(" ...", " fabricwatch.toml")
    res = subprocess.run(f"{shlex.quote(sys.executable)} -m {line}", shell=True, cwd=folder, capture_output=True,
                         text=True, timeout=300)
    assert "Traceback" not in res.stderr and "usage:" not in res.stderr, res.stderr
    ok = {"topology check": (0, 1), "gate --thresholds": (0, 1)}  # a verdict either way
    assert res.returncode in ok.get(" ".join(shlex.split(line)[1:3]), (0,)), res.stderr
    if "--json" in line:
        for out in res.stdout.splitlines():
            json.loads(out)
