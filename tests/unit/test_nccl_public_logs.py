"""Ten real nccl-tests / rccl-tests logs from public repositories (../shared/fixtures/nccl/public-logs,
SOURCES.md there), each read exactly as an independent reading of every row says (expected.json):
rows (size, out-of-place and in-place busbw), collective, data type, ranks, hosts and their names,
and the footer's average busbw."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fabricwatch.core.nccl_records import Measurement
from fabricwatch.nccl.parser import parse_file
from tests.conftest import FIXTURES

LOGS = FIXTURES / "nccl" / "public-logs"
EXPECTED: dict[str, dict[str, Any]] = json.loads((LOGS / "expected.json").read_text())


def _busbw(m: Measurement | None) -> float | None:
    return None if m is None else m.busbw


def test_every_public_log_has_an_expected_reading() -> None:
    assert sorted(EXPECTED) == sorted(p.name for p in LOGS.glob("[0-9][0-9]_*.txt")) and len(EXPECTED) == 10


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_public_log_is_read_exactly(name: str) -> None:
    want = EXPECTED[name]
    runs = parse_file(LOGS / name)
    tables = want.get("tables") or [want]
    assert len(runs) == len(tables)
    for run, table in zip(runs, tables, strict=True):
        doc = run.to_json()
        assert [[r.size, _busbw(r.out_of_place), _busbw(r.in_place)] for r in run.rows] == table["rows"]
        assert run.collective == table.get("collective", want.get("collective"))
        dtype = table.get("dtype", want.get("dtype"))
        assert sorted({r.type for r in run.rows}) == ([dtype] if dtype else [])
        assert run.nranks == doc["nranks"] == table.get("nranks", want.get("nranks"))
        assert doc["nodes"] == table.get("hosts", want.get("hosts"))  # how many hosts the run had
        assert run.hosts == sorted(want["host_names"])  # the hosts its rank lines name
        assert run.footer.get("avg_busbw") == table.get("avg_busbw", want.get("avg_busbw"))
        assert run.complete == (table.get("avg_busbw", want.get("avg_busbw")) is not None)
