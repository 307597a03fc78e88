"""Untrusted NCCL results: whatever arrives, parsing and ingest either succeed or raise ValueError
(which every ingest path counts and moves on from); nothing else escapes, no input costs
super-linear work."""

from __future__ import annotations

import json
import string
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricwatch.nccl.ingest import prepare
from fabricwatch.nccl.parser import MAX_COLUMNS, parse_bytes, parse_text

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) \
    | st.text(max_size=20) | st.integers(min_value=-(10**30), max_value=10**30)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=20)
keys = st.sampled_from(["config", "devices", "results", "start_time", "end_time", "nccl_version", "args",
                        "size", "count", "type", "redop", "root", "out_of_place", "in_place", "time",
                        "alg_bw", "bus_bw", "nwrong", "rank", "pid", "hostname", "device", "group",
                        "nthread", "ngpus", "out_of_place_per_iter", "per_iteration"])
# documents shaped like -J output, with every field of any type
shaped = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(keys, inner, max_size=6), max_leaves=30)


def _ingest(content: bytes) -> None:
    try:
        for run, lines in prepare(content, "fuzz", site="s"):
            json.dumps(run.to_json())
            assert all(isinstance(line, str) for line in lines)
    except ValueError:
        pass


@FUZZ
@given(st.dictionaries(keys, shaped, max_size=8) | json_values)
def test_any_json_document_is_ingested_or_refused_with_value_error(doc: object) -> None:
    _ingest(json.dumps(doc).encode())


def test_the_documents_that_took_the_daemon_down() -> None:
    for doc in ({"config": [1]}, {"start_time": 5}, {"results": [{"size": float("inf")}]},
                {"config": {"devices": [7, None, {"rank": "x"}]}, "results": "abc"},
                {"nccl_version": 10**400}, {"results": [{"out_of_place": {"time": 10**400}}]}):
        _ingest(json.dumps(doc).encode())
    _ingest(b"{" + b'"a":[' * 50_000 + b"1" + b"]" * 50_000 + b"}")  # deeper than the JSON decoder goes
    _ingest(b"{\xff\xfe not json")


HEADER = "# nThread 1 nGpus 8 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20\n"
LINES = [line for p in sorted(DATA.glob("*.log")) for line in p.read_text().splitlines()]


@FUZZ
@given(st.lists(st.sampled_from(LINES) | st.text(string.printable, max_size=80), max_size=60),
       st.randoms(use_true_random=False))
def test_any_mix_of_log_lines_is_parsed_or_refused(lines: list[str], rnd) -> None:  # type: ignore[no-untyped-def]
    cut = [ln[: rnd.randint(0, len(ln))] if rnd.random() < 0.2 else ln for ln in lines]
    _ingest("\n".join(cut).encode())


def test_a_table_with_thousands_of_columns_is_not_read() -> None:
    """16,000 `time` columns cost 0.86 s per row before (quadratic); beyond MAX_COLUMNS a table is
    not nccl-tests output and its rows are skipped, counted and warned about."""
    cols = ["size", "count", "type", "redop", "root"] + ["time", "algbw", "busbw", "#wrong"] * 4000
    row = ["1024", "256", "float", "sum", "-1"] + ["10.0", "0.10", "0.10", "0"] * 4000
    text = HEADER + "# " + " ".join(cols) + "\n" + "\n".join(" ".join(row) for _ in range(50)) + "\n"
    [run] = parse_text(text, "wide")
    assert run.rows == [] and run.skipped_lines == 50
    assert any("unreadable table row" in w for w in run.warnings)
    # just under the cap it is read, each group once
    n = (MAX_COLUMNS - 5) // 4
    cols = ["size", "count", "type", "redop", "root"] + ["time", "algbw", "busbw", "#wrong"] * n
    row = ["1024", "256", "float", "sum", "-1"] + ["10.0", "0.10", "0.10", "0"] * n
    [run] = parse_text(HEADER + "# " + " ".join(cols) + "\n" + " ".join(row) + "\n", "wide")
    assert len(run.rows) == 1 and run.rows[0].in_place is not None


def test_parse_bytes_reads_both_formats() -> None:
    text = (DATA / "broadcast_old_2.11.log").read_bytes()
    assert parse_bytes(text, "t")[0].rows
    assert parse_bytes((DATA / "sendrecv_json.json").read_bytes(), "j")[0].rows
