"""Shared fixtures: paths to the recorded fixtures, and the real servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import InfluxDB1, VictoriaMetrics

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures"


@pytest.fixture(scope="session")
def fixtures() -> Path:
    if not FIXTURES.is_dir():
        raise RuntimeError(f"recorded fixtures not found at {FIXTURES}")
    return FIXTURES


@pytest.fixture(scope="module")
def influx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InfluxDB1]:
    server = InfluxDB1(tmp_path_factory.mktemp("influxdb"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def victoria(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VictoriaMetrics]:
    server = VictoriaMetrics(tmp_path_factory.mktemp("victoria"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


HANG_REPORT_S = 150.0  # well before pytest-timeout's 300 s: say where a hung test waits


@pytest.fixture(autouse=True)
def _report_a_hang(request: pytest.FixtureRequest) -> Iterator[None]:
    """If a test runs past HANG_REPORT_S, print every asyncio task's stack of the loops in this
    process (pytest-timeout shows only threads, and an asyncio hang sits in select())."""
    import asyncio
    import gc
    import sys
    import threading

    done = threading.Event()

    def watch() -> None:
        if done.wait(HANG_REPORT_S):
            return
        print(f"\n=== {request.node.nodeid} still running after {HANG_REPORT_S:g}s; asyncio tasks:",
              file=sys.stderr)
        for obj in gc.get_objects():
            if isinstance(obj, asyncio.AbstractEventLoop) and obj.is_running():
                for task in list(asyncio.all_tasks(obj)):
                    print(f"--- {task.get_name()}: {task.get_coro()!r}", file=sys.stderr)
                    task.print_stack(limit=12, file=sys.stderr)

    threading.Thread(target=watch, daemon=True, name="hang-report").start()
    try:
        yield
    finally:
        done.set()
