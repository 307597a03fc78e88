"""The command tree: --version, and every error on stderr in one format, stdout left clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import fabricwatch
from fabricwatch.core import mqtt
from tests.conftest import ROOT


def fw(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricwatch", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_version() -> None:
    res = fw("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"fabricwatch {fabricwatch.__version__}"
    assert fabricwatch.__version__[0].isdigit()


def test_errors_name_the_command_on_stderr_and_leave_stdout_clean(tmp_path: Path) -> None:
    cases = [
        (("train", "--out", str(tmp_path / "m.fwm")), 2, "fabricwatch train: give line-protocol FILES or --influx-url"),
        (("replay", str(tmp_path / "nope.lp"), "--fit-first", "1m"), 2,
         f"fabricwatch replay: {tmp_path / 'nope.lp'}: no such file"),
        (("nccl", "parse", str(tmp_path / "missing.log")), 1, "fabricwatch nccl parse: "),
        (("gate", str(tmp_path / "missing.log")), 2, "fabricwatch gate: give --thresholds FILE"),
    ]
    for args, code, message in cases:
        res = fw(*args)
        assert res.returncode == code, (args, res.stderr)
        assert message in res.stderr, (args, res.stderr)
        prefix = message.split(":")[0] + ": "
        assert all(line.startswith(prefix) for line in res.stderr.splitlines()), (args, res.stderr)
        assert res.stdout == "", (args, res.stdout)
        assert "[red]" not in res.stderr and "Traceback" not in res.stderr


def test_a_config_error_names_the_file_and_key_for_every_command_that_reads_one(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[daemon]\nlisten = "127.0.0.1:0"\nshrad = "1/2"\n')
    for args in (("run", "-c", str(bad)), ("nccl", "ingest", "-c", str(bad), str(bad))):
        res = fw(*args)
        assert res.returncode == 2, res.stderr
        assert res.stderr.startswith(f"fabricwatch {' '.join(args[:-2] if args[0] == 'run' else args[:2])}: "
                                     "config error"), res.stderr
        assert f"{bad}: daemon.shrad: unknown key" in res.stderr


async def test_the_mqtt_adapter_reads_messages_as_attribute_and_as_method() -> None:
    """aiomqtt 2.x exposes `messages` as an attribute, 3.x as a method: core.mqtt takes both."""

    async def incoming():  # type: ignore[no-untyped-def]
        for i in range(3):
            yield i

    class V2:
        def __init__(self) -> None:
            self.messages = incoming()

    class V3:
        def messages(self):  # type: ignore[no-untyped-def]
            return incoming()

    for client in (V2(), V3()):
        assert [m async for m in mqtt.messages(client)] == [0, 1, 2]  # type: ignore[arg-type]


def test_each_demo_fabric_has_its_own_state_and_database(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from fabricwatch.cli.demo import demo_places

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    roce, ib = demo_places("roce", None, None), demo_places("ib", None, None)
    assert roce == (tmp_path / "fabricwatch" / "demo-roce", "fabricwatch")
    assert ib == (tmp_path / "fabricwatch" / "demo-ib", "fabricwatch_ib")
    assert demo_places("ib", tmp_path / "x", "mine") == (tmp_path / "x", "mine")  # what the user says wins
