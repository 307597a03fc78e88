"""`fabricwatch check`: validate the config, check every sink, reach every target once."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from fabricwatch.core.errors import TargetError
from fabricwatch.daemon import config as config_mod
from fabricwatch.daemon.runner import build_collectors, load_topology
from fabricwatch.models.link_detector import LinkDetector, ModelError


async def _reach(collector: Any, timeout: float) -> str | None:
    try:
        async with asyncio.timeout(timeout):
            async with collector:
                async for _batch in collector.stream():
                    return None
        return "session ended without data"
    except TimeoutError:
        return f"no data within {timeout:g}s"
    except TargetError as exc:
        return f"{exc.kind}: {exc}"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


async def run_check(path: Path, *, timeout: float = 10.0, out: Any = None) -> int:
    out = out or sys.stdout
    try:
        cfg = config_mod.load(path)
        load_topology(cfg)
    except (config_mod.ConfigError, ValueError) as exc:
        print(f"FAIL config\n{exc}", file=out)
        return 1
    print(f"ok   config {path}", file=out)
    failed = 0
    if cfg.detector.enabled and cfg.detector.model is not None:
        try:
            det = LinkDetector.load(cfg.detector.model)
            print(f"ok   detector model {cfg.detector.model} ({len(det.models)} classes)", file=out)
        except ModelError as exc:
            failed += 1
            print(f"FAIL detector model: {exc}", file=out)
    for kind, sink_cfg in cfg.sink_configs():
        problem = await sink_cfg.check()
        failed += problem is not None
        print(f"{'FAIL' if problem else 'ok  '} sink {kind}:{sink_cfg.name}"
              + (f": {problem}" if problem else ""), file=out)
    collectors = build_collectors(cfg)
    results = await asyncio.gather(*(_reach(c, timeout) for c in collectors))
    for c, problem in zip(collectors, results, strict=True):
        failed += problem is not None
        print(f"{'FAIL' if problem else 'ok  '} target {c.key} {c.address}"
              + (f": {problem}" if problem else ""), file=out)
    print(f"{'FAILED' if failed else 'OK'}: {failed} problem(s)", file=out)
    return 1 if failed else 0
