"""The shipped alert rules pass promtool (check + unit tests); the Alertmanager example passes amtool."""

from __future__ import annotations

import shutil
import subprocess

from tests.conftest import ROOT

PROM = ROOT / "prometheus"


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(f"{name} is not installed: run scripts/test.sh")
    return path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120, cwd=PROM)


def test_promtool_check_rules() -> None:
    res = run(tool("promtool"), "check", "rules", "rules/fabricwatch.yml")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SUCCESS: 25 rules found" in res.stdout


def test_promtool_unit_tests() -> None:
    res = run(tool("promtool"), "test", "rules", "tests/fabricwatch_test.yml")
    assert res.returncode == 0, res.stdout + res.stderr


def test_every_alert_has_a_runbook_and_a_test() -> None:
    rules = (PROM / "rules" / "fabricwatch.yml").read_text()
    readme = (PROM / "README.md").read_text()
    tests = (PROM / "tests" / "fabricwatch_test.yml").read_text()
    names = [line.split(":", 1)[1].strip() for line in rules.splitlines() if line.strip().startswith("- alert:")]
    assert len(names) == 25
    for name in names:
        assert f"### {name}" in readme, name
        assert f"alertname: {name}" in tests, name
        assert f"#{name.lower()}" in rules, name


def test_amtool_check_config() -> None:
    res = run(tool("amtool"), "check-config", "alertmanager.yml")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "4 inhibit rules" in res.stdout


def test_every_link_alert_names_the_slurm_jobs_on_the_link() -> None:
    rules = (PROM / "rules" / "fabricwatch.yml").read_text().split("      - alert:")
    links = [r for r in rules if "fabricwatch_link_condition" in r]
    assert len(links) == 12
    assert all("jobs: &jobs" in r or "jobs: *jobs" in r for r in links), [r.split()[0] for r in links]
    assert "fabricwatch_link_jobs_info" in links[0]
