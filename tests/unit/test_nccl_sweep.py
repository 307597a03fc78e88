"""A log holding many runs (a sweep) is judged once per (collective, ranks) over all its runs, and
the verdict is the one run-by-run ingestion reaches for its newest run."""

from __future__ import annotations

from fabricwatch.nccl.config import NcclSection
from fabricwatch.nccl.service import NcclService
from tests.nccl_logs import render

SIZES = {1 << p: 10.0 + p for p in range(20, 30)}


def _runs(n: int) -> list[str]:
    # one run in five slow at every size: the variance is not zero
    return [render("all_reduce", ["n1", "n2"], 2, {s: b * (0.7 if i % 5 == 3 else 1.0) for s, b in SIZES.items()})
            for i in range(n)]


async def _service(events: list[tuple[str, dict]]) -> NcclService:
    async def write(lines: list[str]) -> None:
        pass
    return NcclService(NcclSection.model_validate({"keep_runs": 8}), write,
                       emit=lambda kind, payload: events.append((kind, payload)))


async def test_a_sweep_in_one_log_is_judged_once_with_every_run_as_a_repeat() -> None:
    logs = _runs(12)
    whole_events: list[tuple[str, dict]] = []
    whole = await _service(whole_events)
    runs = await whole.ingest("\n".join(logs).encode(), "sweep.log")
    assert len(runs) == 12 and whole.ingested_runs == 12
    assert [k for k, _ in whole_events].count("nccl_run") == 12
    one_by_one = await _service([])
    for i, log in enumerate(logs):
        await one_by_one.ingest(log.encode(), f"run{i}.log")
    key = ("all_reduce", 4)
    # the history is bounded the same way, and the verdict is that of the newest run over it
    assert len(whole.recent[key]) == len(one_by_one.recent[key]) == 8
    assert whole.cv_pct[key] == one_by_one.cv_pct[key] > 0
    assert whole.flagged_runs[key] == one_by_one.flagged_runs[key]
    assert whole.last[key][:2] == one_by_one.last[key][:2]
