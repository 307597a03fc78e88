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
