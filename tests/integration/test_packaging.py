"""`pip install .` (not editable) puts one package, fabricwatch, in site-packages, and it works."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration


def test_the_wheel_installs_only_fabricwatch_and_it_runs(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    [wheel] = wheels.glob("fabricwatch-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"fabricwatch", wheel.name.split("-py3")[0] + ".dist-info"}
    # the data files the code reads at run time travel with it
    assert "fabricwatch/collectors/gnmi/paths/arista.toml" in names
    assert "fabricwatch/collectors/snmp/profiles/if-mib.toml" in names

    # a fresh venv, the wheel in it, and this venv's dependencies beside it (not its editable finder)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    res = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                          str(wheel)], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    def run(code: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(py), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)

    gone = run("import daemon")
    assert gone.returncode == 1 and "No module named 'daemon'" in gone.stderr
    for name in ("collectors", "sinks", "models", "simulator", "core"):
        assert run(f"import {name}").returncode == 1, name
    ok = run("import fabricwatch, fabricwatch.daemon.runner, fabricwatch.collectors.gnmi.mapping as m; "
             "m.load_table('arista'); print(fabricwatch.__file__)")
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert ok.stdout.strip().startswith(str(site))
    version = subprocess.run([str(env_dir / "bin" / "fabricwatch"), "--version"], capture_output=True, text=True,
                             timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("fabricwatch 0."), version.stderr
