"""`fabricwatch check`: validate the config, check every sink, reach every target once.

`--config-only` (what the systemd unit runs before starting) stops after what the daemon needs
to start: the config, the topology and the model file. Unreachable sinks and targets never keep
the daemon from starting: it spools, retries and reports them on /metrics and /readyz.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from fabricwatch.core.errors import TargetError
from fabricwatch.core.protocols import Describes
from fabricwatch.daemon import config as config_mod
from fabricwatch.daemon.compose import build_collectors, load_topology
from fabricwatch.detection.detector import LinkDetector, ModelError
from fabricwatch.slurm.check import check as check_slurm

CONNECT_BOUND_S = 120.0  # a session that neither connects nor fails in this long (its own timeout is shorter)


async def _reach(collector: Any, timeout: float) -> str | None:
    """The session is opened under the collector's own connect timeout, so that a target that cannot
    be reached gets the diagnosis the daemon logs (refused, no answer, another service), not "no
    data"; then the first data has `timeout`."""
    try:
        async with asyncio.timeout(CONNECT_BOUND_S + timeout):
            async with collector:
                try:
                    async with asyncio.timeout(timeout):
                        async for _batch in collector.stream():
                            return None
                except TimeoutError:
                    return f"no data within {timeout:g}s"
        return "session ended without data"
    except TimeoutError:
        return f"no session within {CONNECT_BOUND_S + timeout:g}s"
    except TargetError as exc:
        return f"{exc.kind}: {exc}"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def exposure_warnings(cfg: config_mod.Config) -> list[str]:
    """Settings that work but send secrets in the clear or open the daemon to the network."""
    out = []
    if not config_mod.is_loopback(cfg.daemon.listen):
        out.append(f"daemon.listen {cfg.daemon.listen} is not loopback: /metrics and the JSON API are "
                   "reachable from the network")
    for i, g in enumerate(cfg.collectors.gnmi):  # type: ignore[attr-defined]
        if g.password is not None and not g.tls.enabled:
            out.append(f"collectors.gnmi[{i}] ({g.name}): insecure = true sends the password without TLS")
    for i, u in enumerate(cfg.collectors.ufm):  # type: ignore[attr-defined]
        if not u.tls.verify:
            out.append(f"collectors.ufm[{i}] ({u.name}): tls.verify = false accepts any certificate")
    for i, m in enumerate(cfg.sinks.mqtt):  # type: ignore[attr-defined]
        if m.password is not None and not m.tls.enabled:
            out.append(f"sinks.mqtt[{i}] ({m.name}): the password travels without TLS")
    rest = cfg.slurm.rest_url
    if rest is not None and rest.startswith("http://") \
            and not config_mod.is_loopback(rest.split("//", 1)[1].split("/", 1)[0]):
        out.append(f"slurm.rest_url: the token travels over plain http:// to {rest}")
    if cfg.nccl.mqtt is not None and cfg.nccl.mqtt.password is not None and not cfg.nccl.mqtt.tls.enabled:
        out.append("nccl.mqtt: the password travels without TLS")
    for kind in ("influxdb", "prometheus_remote_write"):
        for i, s in enumerate(getattr(cfg.sinks, kind)):
            if (s.password is not None or s.token is not None) and s.url.startswith("http://") \
                    and not config_mod.is_loopback(s.url.split("//", 1)[1].split("/", 1)[0]):
                out.append(f"sinks.{kind}[{i}] ({s.name}): credentials over plain http:// to {s.url}")
    return out


async def run_check(path: Path, *, timeout: float = 10.0, out: Any = None, config_only: bool = False) -> int:
    out = out or sys.stdout
    try:
        cfg = config_mod.load(path)
        load_topology(cfg)
    except (config_mod.ConfigError, ValueError) as exc:
        print(f"FAIL config\n{exc}", file=out)
        return 1
    print(f"ok   config {path}", file=out)
    for warning in exposure_warnings(cfg):
        print(f"WARN {warning}", file=out)
    failed = 0
    if cfg.detector.enabled and cfg.detector.model is not None:
        try:
            det = LinkDetector.load(cfg.detector.model)
            print(f"ok   detector model {cfg.detector.model} ({len(det.models)} classes)", file=out)
        except ModelError as exc:
            failed += 1
            print(f"FAIL detector model: {exc}", file=out)
    if config_only:
        print(f"{'FAILED' if failed else 'OK'}: {failed} problem(s) (config only: sinks and targets not tried)",
              file=out)
        return 1 if failed else 0
    for kind, sink_cfg in cfg.sink_configs():
        problem = await sink_cfg.check()
        failed += problem is not None
        print(f"{'FAIL' if problem else 'ok  '} sink {kind}:{sink_cfg.name}"
              + (f": {problem}" if problem else ""), file=out)
    if cfg.slurm.enabled:
        for status, line in await check_slurm(cfg.slurm):
            failed += status == "FAIL"
            print(f"{status:<4} {line}", file=out)
    collectors = build_collectors(cfg)
    results = await asyncio.gather(*(_reach(c, timeout) for c in collectors))
    for c, problem in zip(collectors, results, strict=True):
        failed += problem is not None
        detail = f": {problem}" if problem else (f": {c.describe()}" if isinstance(c, Describes) else "")
        print(f"{'FAIL' if problem else 'ok  '} target {c.key} {c.address}{detail}", file=out)
    print(f"{'FAILED' if failed else 'OK'}: {failed} problem(s)", file=out)
    return 1 if failed else 0
