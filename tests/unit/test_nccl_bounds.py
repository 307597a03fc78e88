"""Memory stays bounded under a flood of NCCL results: history by rows over all groups, groups
(and so /metrics label sets) by count, each beyond-the-bound run still stored and counted."""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from fabricwatch.nccl import service
from fabricwatch.nccl.config import NcclSection
from fabricwatch.nccl.metrics import NcclMetrics
from fabricwatch.nccl.service import MAX_GROUPS, MAX_HISTORY_ROWS, NcclService
from tests.nccl_logs import render

BOUND_BYTES = 96 << 20  # what the kept history may cost at most (50k rows at ~0.6 KB, with margin)
# The row bound is lowered fivefold for the flood (tracemalloc makes each parsed row slow): memory held is
# measured against the rows kept, so the budget is BOUND_BYTES scaled by the same factor. Every cost that
# grows with the rows ingested or kept scales with them; those of the 64 groups and 272 runs do not, so the
# lowered bound holds them to a tighter budget than the shipped one would.
ROWS_KEPT = MAX_HISTORY_ROWS // 5
SIZES = {1024 * (i + 1): 10.0 + i / 100 for i in range(40)}
# (collective, ranks) groups: a few beyond MAX_GROUPS; repeats of each: together more rows than the history keeps
GROUPS, REPEATS = MAX_GROUPS + 4, 4
RUNS = GROUPS * REPEATS


async def test_a_flood_of_runs_keeps_memory_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[int] = []

    async def write(lines: list[str]) -> None:
        written.append(len(lines))

    monkeypatch.setattr(service, "MAX_HISTORY_ROWS", ROWS_KEPT)
    assert REPEATS * MAX_GROUPS * len(SIZES) > ROWS_KEPT  # the groups kept overrun the row bound
    svc = NcclService(NcclSection(max_upload_bytes=64 << 20), write)
    logs: dict[int, bytes] = {}  # each group's log, ingested REPEATS times (held, so counted below)
    tracemalloc.start()
    try:
        for i in range(RUNS):  # 68 (collective, ranks) groups of 40-row runs: 10,880 rows in all
            g = i % GROUPS
            if g not in logs:
                logs[g] = render("all_reduce", [f"n{j}" for j in range(2 + g)], 1, SIZES).encode()
            await svc.ingest(logs[g], f"run{i}.log")
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"nccl flood: {current / 2**20:.1f} MiB held, {peak / 2**20:.1f} MiB peak, "
          f"{svc.history_rows} rows kept, {svc.overflow} runs beyond {MAX_GROUPS} groups")
    assert svc.ingested_runs == RUNS and len(written) == RUNS  # every run stored
    assert len(svc.recent) == MAX_GROUPS and svc.overflow == RUNS - REPEATS * MAX_GROUPS
    assert svc.history_rows <= ROWS_KEPT
    assert sum(len(runs) for runs in svc.recent.values()) < REPEATS * MAX_GROUPS  # the oldest were evicted
    assert sum(len(r.rows) for runs in svc.recent.values() for r in runs) == svc.history_rows
    assert current < BOUND_BYTES * ROWS_KEPT / MAX_HISTORY_ROWS
    registry = CollectorRegistry()
    registry.register(NcclMetrics(svc))
    series = [ln for ln in generate_latest(registry).decode().splitlines()
              if ln.startswith("fabricwatch_nccl_last_busbw_gbps{")]
    assert len(series) <= MAX_GROUPS
