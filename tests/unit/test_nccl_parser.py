"""nccl-tests parsing: the recorded real log, and logs written in every other format."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fabricwatch.nccl.parser import parse_file, parse_text
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "nccl"


def test_real_roce_log_with_info_lines_inside_the_table(fixtures: Path) -> None:
    (run,) = parse_file(fixtures / "nccl" / "allreduce_roce_2x1gpu_interleaved_info.log")
    assert run.collective == "all_reduce" and run.complete and run.stopped_at is None
    assert run.nccl_version == "2.26.2"
    assert run.config["min_bytes"] == 1073741824 and run.config["step"] == 2147483648
    assert run.config["step_kind"] == "bytes" and run.config["iters"] == 20 and run.config["agg_iters"] == 1
    assert [r.host for r in run.ranks] == ["MOC-R4PCC04U37", "MOC-R4PCC04U35"]
    assert {r.gpu for r in run.ranks} == {"NVIDIA H100 80GB HBM3"} and run.nranks == 2
    assert len(run.rows) == 13
    first, last = run.rows[0], run.rows[-1]
    assert (first.size, first.count, first.type, first.redop, first.root) == (1073741824, 268435456, "float", "sum", -1)
    assert first.out_of_place is not None and first.in_place is not None
    assert (first.out_of_place.time_us, first.out_of_place.algbw, first.out_of_place.busbw) == (71024, 15.12, 15.12)
    assert first.out_of_place.wrong == 0 and first.in_place.time_us == 70967
    assert last.size == 26843545600 and last.in_place is not None and last.in_place.busbw == 15.00
    assert run.footer == {"out_of_bounds": 0, "out_of_bounds_ok": True, "avg_busbw": 15.0418}
    assert not any(r.flags for r in run.rows)  # 2 ranks: busbw = algbw, algbw = size / time


def test_all_gather_warn_and_mpi_noise_sweeps_na_and_a_row_that_disagrees() -> None:
    (run,) = parse_file(DATA / "all_gather_8x8_sweeps_warn.log")
    assert run.collective == "all_gather" and run.collective_from == "header"
    assert run.nccl_tests_version == "2.17.1" and run.config["unalign"] == 0
    assert run.hosts == ["node001", "node002"] and run.nranks == 4
    assert [r.sweep for r in run.rows] == [0, 0, 0, 1, 1, 1]  # -N 2: two sweeps, one header
    assert all(r.out_of_place and r.out_of_place.wrong is None for r in run.rows)  # -c 0: N/A
    assert any("NCCL WARN" in w for w in run.warnings)
    (bad,) = [r for r in run.rows if r.flags]
    assert bad.sweep == 1 and bad.size == 2097152 and "busbw 12.48" in bad.flags[0]
    assert run.footer["min_bw_check"] == "FAILED" and run.footer["avg_busbw"] == 9.37


def test_old_2_11_broadcast_without_redop_and_with_error_column() -> None:
    (run,) = parse_file(DATA / "broadcast_old_2.11.log")
    assert run.collective == "broadcast" and run.nranks == 4
    assert [r.group for r in run.ranks] == [None] * 4 and run.ranks[0].pci == "0x1a"
    assert [r.root for r in run.rows] == [0, 0, 0] and {r.redop for r in run.rows} == {None}
    big = run.rows[-1]
    assert big.out_of_place is not None and big.out_of_place.error == 2e-06 and big.out_of_place.wrong is None
    assert run.complete and run.footer["avg_busbw"] == 8.46667 and "min_bw_check" not in run.footer


def test_per_iteration_columns_and_a_truncated_run() -> None:
    (run,) = parse_file(DATA / "all_reduce_iters_truncated.log")
    assert len(run.rows) == 2 and not run.complete
    assert run.stopped_at is not None and run.stopped_at["line"] == 18 and "no footer" in run.stopped_at["reason"]
    stalled = run.rows[1].out_of_place
    assert stalled is not None
    assert stalled.per_iteration == {"i_min": 600.2, "i_max": 890.4, "i_p99": 880.1, "i_cv%": 12.4}
    assert not any(r.flags for r in run.rows)  # 8 ranks: busbw = algbw x 2*7/8
    assert any("unreadable table row" in w for w in run.warnings)


def test_json_output_never_keeps_env() -> None:
    (run,) = parse_file(DATA / "sendrecv_json.json")
    assert run.format == "json" and run.collective == "sendrecv" and run.nccl_version == "2.27.3"
    assert run.hosts == ["node010", "node011"] and len(run.rows) == 3 and run.complete
    assert run.rows[0].out_of_place is not None and run.rows[0].out_of_place.wrong is None
    assert run.rows[2].in_place is not None and run.rows[2].in_place.busbw == 30.0
    text = json.dumps(run.to_json())
    assert "hf_SECRET" not in text and "HF_TOKEN" not in text and "env" not in run.to_json()


def test_collective_inferred_from_bandwidth_when_nothing_names_it() -> None:
    log = (DATA / "all_gather_8x8_sweeps_warn.log").read_text()
    log = log.replace("# Collective test starting: all_gather_perf\n", "")
    (run,) = parse_text(log, "results.txt")
    assert run.collective == "all_gather" and run.collective_from == "inferred"


def test_cli_json_and_truncation_message() -> None:
    res = subprocess.run([sys.executable, "-m", "fabricwatch", "nccl", "parse", "--json",
                          str(DATA / "all_reduce_iters_truncated.log")],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0
    record = json.loads(res.stdout)
    assert record["nranks"] == 8 and record["nodes"] == 1 and record["gpu_model"] == "NVIDIA H200"
    assert "stopped after line 18" in res.stderr


@pytest.mark.parametrize("junk", ["", "just some text\nno table here\n"])
def test_nothing_to_parse_is_an_error(tmp_path: Path, junk: str) -> None:
    p = tmp_path / "x.log"
    p.write_text(junk)
    res = subprocess.run([sys.executable, "-m", "fabricwatch", "nccl", "parse", str(p)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode == 1 and "no result rows" in res.stderr


def _recorded_rows(text: str) -> list[list[str]]:
    """The table rows of a log, read independently: after any launcher prefix, a line of numbers
    whose first is the size, at least time/algbw/busbw twice."""
    rows = []
    for line in text.splitlines():
        body = re.sub(r"^\s*(\d+:\s|\[\d+,\d+\]<stdout>:|\[default\d+\]:)", "", line).split()
        if len(body) >= 9 and body[0].isdigit() and body[1].isdigit() and not any("NCCL" in t for t in body):
            rows.append(body)
    return rows


@pytest.mark.parametrize("name", sorted(p.name for p in (Path(__file__).resolve().parents[2] / ".." / "shared" /
                                                          "fixtures" / "nccl").iterdir()
                                                 if p.is_file() and "LICENSE" not in p.name))  # public-logs/: own test
def test_every_recorded_log_parses_with_every_row(fixtures: Path, name: str) -> None:
    text = (fixtures / "nccl" / name).read_text(errors="replace")
    [run] = [r for r in parse_text(text, name) if r.rows]
    recorded = _recorded_rows(text)
    assert len(run.rows) == len(recorded), name
    for row, rec in zip(run.rows, recorded, strict=True):
        assert row.size == int(rec[0])
        # each place ends in time, algbw, busbw, #wrong (or error): busbw is second from the end
        assert row.out_of_place is not None and row.in_place is not None
        assert (row.out_of_place.busbw, row.in_place.busbw) == (float(rec[-6]), float(rec[-2])), rec
    assert run.complete and run.nranks is not None and run.nranks >= 2


def test_launcher_prefixes_and_an_unknown_rank_count(fixtures: Path) -> None:
    text = (fixtures / "nccl" / "superbench_nccl_allreduce.log").read_text()
    plain = parse_text(text, "allreduce.log")[0]
    for prefix in ("[1,0]<stdout>:", "[default0]:", " 0: "):
        tagged = "\n".join(prefix + line for line in text.splitlines())
        run = parse_text(tagged, "allreduce.log")[0]
        assert [r.size for r in run.rows] == [r.size for r in plain.rows] and run.nranks == plain.nranks, prefix
    # a log cut before its rank lines does not know how many ranks ran: null, never 1
    table = "\n".join(line for line in text.splitlines() if not line.lstrip("# ").startswith("Rank"))
    cut = parse_text(table, "allreduce.log")[0]
    assert cut.rows and cut.nranks is None and cut.to_json()["nranks"] is None
