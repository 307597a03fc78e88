"""Runs of a test module side by side, each in a process of its own.

A test whose run waits on a clock (a simulated fabric's, a lease's) far more than it computes, or
whose run is CPU-bound and independent of its neighbours', is split in two: its run, a function in
the module's RUNS (test name -> function of a scratch directory, sync or async, returning what the
test checks as JSON-able data), and the test itself, which takes that data from the module's
`side_by_side` fixture and checks it. The fixture starts the runs of the selected tests together,
in test order, `at_once` at a time, each as

    python -m tests.apart MODULE TEST_NAME TMP_DIR OUT.json

so each test still fails alone, with its own run's message (a run that raised: its traceback)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(module: str, name: str, tmp: Path) -> Any:
    tmp.mkdir()
    out = tmp / "out.json"
    res = subprocess.run([sys.executable, "-m", "tests.apart", module, name, str(tmp), str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert res.returncode == 0, f"the run of {name} failed:\n{res.stderr[-4000:]}"
    return json.loads(out.read_text())


class Runs:
    def __init__(self, futures: dict[str, Future[Any]]) -> None:
        self.futures = futures

    def of(self, request: pytest.FixtureRequest) -> Any:
        """What this test's run returned (its JSON); raises what the run's process said if it failed."""
        return self.futures[request.node.name].result()


def side_by_side(at_once: int) -> Any:
    """The module's fixture: `at_once` runs at a time (for CPU-bound runs: the CPUs there are). It is
    autouse: the runs start with the module's first test, whichever it is, and go on while the module's
    other tests run."""

    @pytest.fixture(scope="module", autouse=True)
    def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
        module = request.module
        table = module.RUNS
        dotted = ".".join(Path(module.__file__).resolve().relative_to(ROOT).with_suffix("").parts)
        names = [item.name for item in request.session.items
                 if getattr(item, "module", None) is module and item.name in table]
        tmp = tmp_path_factory.mktemp("apart")
        with ThreadPoolExecutor(max(1, min(at_once, len(names)))) as pool:
            futures = {name: pool.submit(_run, dotted, name, tmp / str(i)) for i, name in enumerate(names)}
            try:
                yield Runs(futures)
            finally:
                for f in futures.values():
                    f.cancel()

    return runs


def main(argv: list[str]) -> int:
    module, name, tmp, out = argv
    result = importlib.import_module(module).RUNS[name](Path(tmp))
    if inspect.isawaitable(result):
        result = asyncio.run(result)
    Path(out).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
