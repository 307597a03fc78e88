"""Memory stays bounded under a flood of NCCL results: history by rows over all groups, groups
(and so /metrics label sets) by count, each beyond-the-bound run still stored and counted."""

from __future__ import annotations

import gc
import tracemalloc

from prometheus_client import CollectorRegistry, generate_latest

from fabricwatch.nccl.config import NcclSection
from fabricwatch.nccl.metrics import NcclMetrics
from fabricwatch.nccl.service import MAX_GROUPS, MAX_HISTORY_ROWS, NcclService
from tests.nccl_logs import render

SIZES = {1024 * (i + 1): 10.0 + i / 100 for i in range(200)}
BOUND_BYTES = 96 << 20  # what the kept history may cost at most (50k rows at ~0.6 KB, with margin)


async def test_a_flood_of_runs_keeps_memory_bounded() -> None:
    written: list[int] = []

    async def write(lines: list[str]) -> None:
        written.append(len(lines))

    svc = NcclService(NcclSection(max_upload_bytes=64 << 20), write)
    tracemalloc.start()
    try:
        for i in range(400):  # 100 (collective, ranks) groups of 200-row runs: 80,000 rows in all
            hosts = [f"n{j}" for j in range(2 + i % 100)]
            await svc.ingest(render("all_reduce", hosts, 1, SIZES).encode(), f"run{i}.log")
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"nccl flood: {current / 2**20:.1f} MiB held, {peak / 2**20:.1f} MiB peak, "
          f"{svc.history_rows} rows kept, {svc.overflow} runs beyond {MAX_GROUPS} groups")
    assert svc.ingested_runs == 400 and len(written) == 400  # every run stored
    assert len(svc.recent) == MAX_GROUPS and svc.overflow == 400 - 4 * MAX_GROUPS
    assert svc.history_rows <= MAX_HISTORY_ROWS
    assert sum(len(r.rows) for runs in svc.recent.values() for r in runs) == svc.history_rows
    assert current < BOUND_BYTES
    registry = CollectorRegistry()
    registry.register(NcclMetrics(svc))
    series = [ln for ln in generate_latest(registry).decode().splitlines()
              if ln.startswith("fabricwatch_nccl_last_busbw_gbps{")]
    assert len(series) <= MAX_GROUPS
