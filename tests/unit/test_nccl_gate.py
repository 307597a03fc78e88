"""The acceptance gate: healthy repeats pass, a degraded run fails, with exit codes and JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.nccl_logs import render

SIZES = [1 << p for p in range(20, 31)]  # 1 MiB .. 1 GiB
HOSTS = ["node001", "node002"]


def plateau(scale: float, jitter: float) -> dict[int, float]:
    # small messages are latency bound, large ones reach the plateau (~180 GB/s)
    return {s: round(180.0 * scale * (1 + jitter) * min(1.0, s / (64 << 20)) ** 0.5, 2) for s in SIZES}


def write_runs(tmp_path: Path) -> tuple[list[Path], Path]:
    healthy = []
    for i, jitter in enumerate((0.0, 0.006, -0.004, 0.003)):
        p = tmp_path / f"all_reduce_run{i}.log"
        p.write_text(render("all_reduce", HOSTS, 8, plateau(1.0, jitter)))
        healthy.append(p)
    slow = plateau(1.0, 0.0)
    for s in SIZES:
        if s >= 256 << 20:
            slow[s] = round(slow[s] * 0.85, 2)  # 15 % slower at large sizes: a degraded link
    degraded = tmp_path / "all_reduce_run_slow.log"
    degraded.write_text(render("all_reduce", HOSTS, 8, slow))
    return healthy, degraded


def fabricwatch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricwatch", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


def test_suggest_then_healthy_pass_and_degraded_fails(tmp_path: Path) -> None:
    healthy, degraded = write_runs(tmp_path)
    thresholds = tmp_path / "thresholds.toml"
    res = fabricwatch("gate", "--suggest", "--out", str(thresholds), *map(str, healthy[:3]))
    assert res.returncode == 0, res.stderr
    text = thresholds.read_text()
    assert 'collective = "all_reduce"' in text and "nranks = 16" in text and "min_busbw" in text

    ok = fabricwatch("gate", "--thresholds", str(thresholds), "--json", *map(str, healthy))
    assert ok.returncode == 0, ok.stdout
    verdict = json.loads(ok.stdout)
    assert verdict["verdict"] == "pass" and verdict["checks"][0]["passed"]
    assert len(verdict["checks"][0]["runs"]) == 4

    bad = fabricwatch("gate", "--thresholds", str(thresholds), "--json", *map(str, healthy), str(degraded))
    assert bad.returncode == 1
    verdict = json.loads(bad.stdout)
    assert verdict["verdict"] == "fail"
    failures = verdict["checks"][0]["failures"]
    assert any(str(degraded) in f and "busbw" in f for f in failures)
    assert any("varies" in f for f in failures)  # run-to-run variance now above the limit
    assert not any(str(h) in f for h in healthy for f in failures)

    table = fabricwatch("gate", "--thresholds", str(thresholds), *map(str, healthy), str(degraded))
    assert table.returncode == 1 and "FAIL" in table.stdout


def test_gate_needs_enough_runs_and_zero_wrong(tmp_path: Path) -> None:
    healthy, _ = write_runs(tmp_path)
    wrong = tmp_path / "all_reduce_wrong.log"
    lines = healthy[0].read_text().splitlines()
    big = next(i for i, line in enumerate(lines) if line.strip().startswith(str(512 << 20)))
    lines[big] = lines[big][: lines[big].rfind("0")] + "3"  # in-place #wrong of the 512 MiB row
    wrong.write_text("\n".join(lines) + "\n")
    thresholds = tmp_path / "t.toml"
    thresholds.write_text('[[check]]\ncollective = "all_reduce"\nmin_size = "256M"\nmin_runs = 3\n')
    res = fabricwatch("gate", "--thresholds", str(thresholds), "--json", str(wrong))
    verdict = json.loads(res.stdout)
    assert res.returncode == 1
    failures = verdict["checks"][0]["failures"]
    assert "1 matching run(s), 3 needed" in failures
    assert any("3 wrong elements" in f for f in failures)


def test_bad_thresholds_file_names_the_key(tmp_path: Path) -> None:
    healthy, _ = write_runs(tmp_path)
    t = tmp_path / "bad.toml"
    t.write_text('[[check]]\ncollective = "all_reduce"\nmin_busbww = 3\n')
    res = fabricwatch("gate", "--thresholds", str(t), str(healthy[0]))
    assert res.returncode == 2 and f"{t}: check[0].min_busbww: unknown key" in res.stderr
    t.write_text('[[check]]\ncollective = "allreduce"\n')
    res = fabricwatch("gate", "--thresholds", str(t), str(healthy[0]))
    assert res.returncode == 2 and "check[0].collective: unknown collective" in res.stderr


def test_html_report_holds_the_plots_and_the_verdict(tmp_path: Path) -> None:
    from html.parser import HTMLParser

    healthy, degraded = write_runs(tmp_path)
    thresholds = tmp_path / "t.toml"
    assert fabricwatch("gate", "--suggest", "--out", str(thresholds), *map(str, healthy[:3])).returncode == 0
    blame = tmp_path / "blame.json"
    blame.write_text('{"links": [{"device": "leaf-r0-0", "port": "swp3", "role": "leaf_down", '
                     '"explanation": "errors 45/s"}]}')
    out = tmp_path / "report.html"
    res = fabricwatch("report", *map(str, healthy), str(degraded), "--thresholds", str(thresholds),
                      "--blame", str(blame), "--out", str(out))
    assert res.returncode == 0, res.stderr

    class Walk(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[tuple[str, dict[str, str | None]]] = []
            self.text: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.append((tag, dict(attrs)))

        def handle_data(self, data: str) -> None:
            self.text.append(data)

    doc = out.read_text()
    w = Walk()
    w.feed(doc)
    assert sum(1 for t, _ in w.tags if t == "svg") == 1
    runs_plotted = [a["data-run"] for t, a in w.tags if t == "polyline"]
    assert len(runs_plotted) == 5 and degraded.name in runs_plotted  # every run on one chart
    assert any(t == "polygon" and a.get("class") == "band" for t, a in w.tags)  # the variance band
    text = " ".join(w.text)
    assert "Verdict:" in text and "FAIL" in text and "slow_run" in text and "leaf-r0-0:swp3" in text
    assert "<script" not in doc and "http://" not in doc.replace("http://www.w3.org/2000/svg", "")


def test_suggest_explains_each_threshold_and_takes_no_cv_limit_from_one_run(tmp_path: Path) -> None:
    import tomllib

    healthy, _ = write_runs(tmp_path)
    several, one = tmp_path / "several.toml", tmp_path / "one.toml"
    assert fabricwatch("gate", "--suggest", "--out", str(several), *map(str, healthy[:3])).returncode == 0
    lines = {ln.split("=", 1)[0].strip(): ln for ln in several.read_text().splitlines() if "=" in ln}
    assert "256 MiB: a quarter of the largest size" in lines["min_size"]
    assert "90% of the worst plateau row seen" in lines["min_busbw"] and "over 3 run(s)" in lines["min_busbw"]
    assert "twice the worst run-to-run CV seen" in lines["max_cv_pct"]
    assert fabricwatch("gate", "--suggest", "--out", str(one), str(healthy[0])).returncode == 0
    text = one.read_text()
    assert "max_cv_pct =" not in text and "one run shows no run-to-run variation" in text
    for path in (several, one):  # the comments leave a file the gate reads
        tomllib.loads(path.read_text())
        assert fabricwatch("gate", "--thresholds", str(path), *map(str, healthy)).returncode == 0


def test_runs_no_check_judges_are_listed_and_strict_fails_on_them(tmp_path: Path) -> None:
    """One check (8 ranks), 8 logs: the 2- and 16-rank runs and an all_gather are named as not judged;
    --strict fails on them."""
    runs = []
    for name, hosts, gpus in (("a", HOSTS, 4), ("b", HOSTS, 4), ("c", HOSTS, 4), ("d", HOSTS, 4),
                              ("two", HOSTS, 1), ("two_again", HOSTS, 1), ("sixteen", HOSTS, 8)):
        p = tmp_path / f"all_reduce_{name}.log"
        p.write_text(render("all_reduce", hosts, gpus, plateau(1.0, 0.0)))
        runs.append(p)
    gather = tmp_path / "all_gather.log"
    gather.write_text(render("all_gather", HOSTS, 4, plateau(1.0, 0.0)))
    runs.append(gather)
    thresholds = tmp_path / "t.toml"
    thresholds.write_text('[[check]]\ncollective = "all_reduce"\nnranks = 8\nmin_size = "256M"\nmin_busbw = 100.0\n')
    unjudged = {str(tmp_path / f"all_reduce_{n}.log") for n in ("two", "two_again", "sixteen")} | {str(gather)}

    res = fabricwatch("gate", "--thresholds", str(thresholds), "--json", *map(str, runs))
    assert res.returncode == 0, res.stdout  # what was judged passed
    verdict = json.loads(res.stdout)
    assert verdict["verdict"] == "pass" and len(verdict["checks"][0]["runs"]) == 4
    assert {u["run"] for u in verdict["not_judged"]} == unjudged
    assert {(u["collective"], u["nranks"]) for u in verdict["not_judged"]} == {
        ("all_reduce", 2), ("all_reduce", 16), ("all_gather", 8)}

    table = fabricwatch("gate", "--thresholds", str(thresholds), *map(str, runs))
    assert table.returncode == 0 and "PASS" in table.stdout
    assert "4 runs not judged (no check matches them)" in table.stdout, table.stdout
    for u in unjudged:
        assert Path(u).name in table.stdout
    assert "all_reduce, 16 ranks" in table.stdout and "all_reduce, 2 ranks" in table.stdout

    strict = fabricwatch("gate", "--thresholds", str(thresholds), "--strict", "--json", *map(str, runs))
    assert strict.returncode == 1 and json.loads(strict.stdout)["verdict"] == "fail"
    judged_only = fabricwatch("gate", "--thresholds", str(thresholds), "--strict", *map(str, runs[:4]))
    assert judged_only.returncode == 0, judged_only.stdout


def test_the_failures_of_a_run_are_told_apart_from_those_of_the_set(tmp_path: Path) -> None:
    from fabricwatch.nccl.gate import gate, load_thresholds
    from fabricwatch.nccl.parser import parse_file

    sizes = [1 << 20, 1 << 24]
    (tmp_path / "slow.log").write_text(render("all_reduce", ["h1"], 8, dict.fromkeys(sizes, 40.0)))
    (tmp_path / "ok.log").write_text(render("all_reduce", ["h2"], 8, dict.fromkeys(sizes, 150.0)))
    (tmp_path / "t.toml").write_text('[[check]]\ncollective = "all_reduce"\nmin_busbw = 100.0\nmin_runs = 3\n'
                                     "max_cv_pct = 5.0\n")
    runs = parse_file(tmp_path / "slow.log") + parse_file(tmp_path / "ok.log")
    (res,) = gate(load_thresholds(tmp_path / "t.toml"), runs)
    # too few runs and the variation across them are the set's: no run (no node) is to blame for them
    assert any("2 matching run(s), 3 needed" in f for f in res.failures)
    assert any("busbw varies" in f for f in res.failures)
    assert res.failed_runs == {str(tmp_path / "slow.log"): "size 1 MiB busbw 40 GB/s < 100"}
