"""The layout holds: layers point one way (import-linter), no private names cross packages, and an
upward import is caught. (A top-level `import models` cannot load a second copy: pytest runs with
--import-mode=importlib and puts no folder on sys.path.)"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "fabricwatch"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _modules() -> list[tuple[str, ast.Module]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        name = ".".join(("fabricwatch", *rel.parts)).removesuffix(".__init__")
        out.append((name, ast.parse(path.read_text(), str(path))))
    return out


def _imports(tree: ast.Module) -> list[tuple[str, list[str]]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
    return found


def test_the_layer_contracts_hold() -> None:
    res = subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "0 broken" in res.stdout


def test_an_upward_import_breaks_the_contracts(tmp_path: Path) -> None:
    """The contracts catch what they are for: core importing the runtime fails lint-imports."""
    copy = tmp_path / "src" / "fabricwatch"
    shutil.copytree(PACKAGE, copy, symlinks=False, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "core" / "upward.py").write_text("from fabricwatch.daemon import runner  # noqa\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    res = subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, env={"PYTHONPATH": str(tmp_path / "src"), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 1, res.stdout[-2000:] + res.stderr[-2000:]
    assert "fabricwatch.core.upward -> fabricwatch.daemon" in res.stdout


def test_no_module_imports_a_private_name_of_another_package() -> None:
    offenders = []
    for name, tree in _modules():
        own = ".".join(name.split(".")[:2])
        for module, names in _imports(tree):
            if not module.startswith("fabricwatch.") or module.startswith(own + ".") or module == own:
                continue
            offenders += [f"{name}: from {module} import {n}" for n in names if n.startswith("_")]
    assert not offenders, offenders


def test_each_layer_folder_is_linked_into_the_namespace() -> None:
    """fabricwatch/<layer> links ../<layer>: a folder at the top that is not linked would not install."""
    packages = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").is_file()
                and p.name not in {"tests", "bench", "fabricwatch"}}
    linked = {p.name for p in PACKAGE.iterdir() if p.is_symlink()}
    assert packages == linked, (packages - linked, linked - packages)
    for name in linked:
        assert (PACKAGE / name).resolve() == (ROOT / name).resolve()


def test_a_collector_worker_loads_no_models() -> None:
    """A worker process (`python -m fabricwatch.daemon.worker_process`) takes the config and runs
    collectors: scikit-learn and scipy (~120 MB of each worker's memory) stay in the daemon."""
    code = ("import sys, fabricwatch.daemon.worker_process, fabricwatch.daemon.config as c; "
            "print(sorted(m for m in ('sklearn', 'scipy', 'fabricwatch.models') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_daemon_on_rules_alone_loads_no_scikit_learn() -> None:
    """The daemon's own process imports scikit-learn and skops (~125 MB) only when a forest is
    read or fitted: with no `[detector] model` it runs on rules; a model file loads them."""
    code = ("import sys; from fabricwatch.cli.main import build_parser; from fabricwatch.daemon.config import parse; "
            "from fabricwatch.daemon.runner import Runner; build_parser(); "
            "Runner(parse({'daemon': {'listen': '127.0.0.1:0'}})); "
            "print(sorted(m for m in ('sklearn', 'skops', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
    code = ("import sys; from fabricwatch.detection.detector import LinkDetector, ModelError\n"
            "try:\n    LinkDetector.load('/nonexistent.model')\nexcept (ModelError, OSError):\n    pass\n"
            "print('sklearn' in sys.modules and 'skops' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True", out.stdout


def test_a_worker_loads_the_code_of_the_collector_kinds_it_runs_only() -> None:
    """A section's collector and a sink's client are imported when the section is built, not
    when the config is read: a worker running gNMI targets holds no HTTP client (aiohttp) nor
    SNMP or UFM code (~50 MB of each worker's memory); building an SNMP section loads SNMP's."""
    code = ("import sys; from fabricwatch.daemon.config import parse; "
            "cfg = parse({'sinks': {'influxdb': [{'url': 'http://127.0.0.1:1', 'database': 'x'}], "
            "'mqtt': [{'host': '127.0.0.1'}]}, "
            "'collectors': {'gnmi': [{'targets': [{'address': '127.0.0.1:1', 'device': 'leaf1'}]}], "
            "'snmp': [{'community': {'env': 'C'}, 'targets': [{'address': '127.0.0.1:1', 'device': 'leaf2'}]}]}}); "
            "[s.build() for k, s in cfg.collector_configs() if k == 'gnmi']; "
            "heavy = ('aiohttp', 'fabricwatch.collectors.snmp.collector', "
            "'fabricwatch.collectors.ufm.collector', 'fabricwatch.sinks.influxdb.sink'); "
            "print(sorted(m for m in heavy if m in sys.modules), "
            "'fabricwatch.collectors.gnmi.collector' in sys.modules); "
            "[s.build() for k, s in cfg.collector_configs() if k == 'snmp']; "
            "print('fabricwatch.collectors.snmp.collector' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "C": "public"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[] True", "True"], out.stdout
