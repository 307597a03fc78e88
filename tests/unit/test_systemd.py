"""The unit file passes systemd's own checks; the daemon speaks the notify protocol."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

UNIT = ROOT / "systemd" / "fabricwatch.service"


def analyze() -> str:
    path = shutil.which("systemd-analyze")
    if path is None:
        raise RuntimeError("systemd-analyze is not installed: run scripts/test.sh")
    return path


def local_unit(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at this checkout's fabricwatch (verify checks it exists)."""
    exe = Path(sys.executable).parent / "fabricwatch"
    unit = tmp_path / "fabricwatch.service"
    unit.write_text(UNIT.read_text().replace("/usr/local/bin/fabricwatch", str(exe)))
    return unit


def test_unit_verifies(tmp_path: Path) -> None:
    res = subprocess.run([analyze(), "verify", str(local_unit(tmp_path))], capture_output=True, text=True,
                         timeout=60)
    problems = [line for line in res.stderr.splitlines() if "fabricwatch.service" in line]
    assert res.returncode == 0 and not problems, res.stderr


def test_unit_security_exposure_is_low(tmp_path: Path) -> None:
    res = subprocess.run([analyze(), "security", "--offline=true", str(local_unit(tmp_path))],
                         capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", res.stdout + res.stderr)
    assert m, res.stdout + res.stderr
    assert float(m.group(1)) <= 2.0, res.stdout[-3000:]  # "OK" per systemd-analyze


def unit_setting(key: str) -> str:
    """The value of `key=` in the unit (the last one wins, as for systemd)."""
    values = re.findall(rf"^{key}=(.*)$", UNIT.read_text(), re.M)
    assert values, f"{key}= is not in the unit"
    return str(values[-1]).strip()


def test_file_descriptors_leave_room_beyond_the_http_connection_cap() -> None:
    """1,050 slow clients used all of the default 1,024 descriptors; the listener's cap (1,024 by default)
    must sit well inside the unit's limit, with room for targets, sinks and the spool."""
    from fabricwatch.daemon.config import DaemonSection

    assert int(unit_setting("LimitNOFILE")) >= 16 * DaemonSection().http_max_connections


def test_no_core_files() -> None:
    """Core files would hold the secrets in the daemon's memory (the process also makes itself non-dumpable)."""
    assert unit_setting("LimitCORE") == "0"


def test_notify_ready_watchdog_reloading_stopping(tmp_path: Path) -> None:
    sock_path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(sock_path))
    sock.settimeout(0.2)
    conf = tmp_path / "fw.toml"
    conf.write_text('[daemon]\nlisten = "127.0.0.1:0"\n[detector]\nenabled = false\n')
    env = {**os.environ, "NOTIFY_SOCKET": str(sock_path), "WATCHDOG_USEC": "400000"}
    proc = subprocess.Popen([sys.executable, "-m", "fabricwatch", "run", "-c", str(conf)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    got: list[str] = []

    def collect(seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                got.append(sock.recv(4096).decode())
            except TimeoutError:
                pass

    try:
        collect(4)
        proc.send_signal(signal.SIGHUP)
        collect(1)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        collect(0.5)
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
    firsts = [m.splitlines()[0] for m in got]
    assert firsts[0] == "READY=1"
    assert firsts.count("WATCHDOG=1") >= 5  # every 0.2 s for a 0.4 s watchdog
    reload_at = firsts.index("RELOADING=1")
    assert "READY=1" in firsts[reload_at + 1 :]
    assert firsts[-1] == "STOPPING=1"  # nothing (no watchdog) after it


def test_the_kubernetes_example_carries_a_cluster_config_that_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The StatefulSet's ConfigMap is a config the daemon accepts, in cluster mode, and the pod's
    grace period covers the handover (one lease) and the sinks' flush."""
    import tomllib

    import yaml

    from fabricwatch.daemon.config import parse

    docs = list(yaml.safe_load_all((ROOT / "systemd" / "kubernetes" / "statefulset.yaml").read_text()))
    config_map = next(d for d in docs if d["kind"] == "ConfigMap")
    sts = next(d for d in docs if d["kind"] == "StatefulSet")

    monkeypatch.setenv("FABRICWATCH_UPLOAD_TOKEN", "t")  # the pod's Secret
    monkeypatch.setenv("FABRICWATCH_GNMI_PASSWORD", "p")
    cfg = parse(tomllib.loads(config_map["data"]["fabricwatch.toml"]), "statefulset.yaml")
    assert cfg.cluster.enabled and cfg.daemon.shard == "1/1"
    flush = max(s.close_timeout for s in cfg.storage_sink_configs())
    assert sts["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > cfg.cluster.lease + flush
    [container] = sts["spec"]["template"]["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
