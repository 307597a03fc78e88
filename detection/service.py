"""The link detector inside the daemon: rates fold into intervals; each closed interval is
scored in a worker thread (never blocking collection); findings go to the sinks
(`link_anomaly`), to /metrics and to the event log."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from fabricwatch.core.lineprotocol import line, tag_prefix
from fabricwatch.detection.clocks import DeviceClocks
from fabricwatch.detection.config import DetectorConfig
from fabricwatch.detection.detector import Finding, Hysteresis, LinkDetector
from fabricwatch.detection.rules import RuleConfig
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import IntervalAggregator, LinkInterval

log = logging.getLogger("fabricwatch.detector")


class FindingContext(Protocol):
    """What else is known about a link, added to its finding in the API and events (the Slurm jobs on it)."""

    def about(self, device: str, port: str) -> dict[str, Any]: ...


class FindingObserver(Protocol):
    """Told the active findings after each scored interval (Slurm's actions); must not block."""

    def observe(self, findings: Sequence[Finding]) -> None: ...


class DetectorService:
    def __init__(self, cfg: DetectorConfig, write: Callable[[list[str]], Awaitable[None]],
                 emit: Callable[[str, dict[str, Any]], None] | None = None, *,
                 clock: Callable[[], int] = time.time_ns, context: FindingContext | None = None,
                 observer: FindingObserver | None = None) -> None:
        self.cfg = cfg
        self.context = context
        self.observer = observer
        self.clock = clock
        self.write = write
        self.emit = emit
        rules = RuleConfig(pause_storm_per_s=cfg.pause_storm_per_s)
        hysteresis = Hysteresis(cfg.raise_k, cfg.raise_n, cfg.clear_m)
        if cfg.model is not None:
            self.detector = LinkDetector.load(cfg.model)
            self.detector.rules = rules
            self.detector.hysteresis = hysteresis
            if cfg.false_alarms_per_day is not None:
                self.detector.apply_budget(cfg.false_alarms_per_day)
            interval = self.detector.interval_s
        else:
            self.detector = LinkDetector(interval_s=cfg.interval, rules=rules, hysteresis=hysteresis)
            interval = cfg.interval
        self.interval_s = interval
        self.aggregator = IntervalAggregator(interval)
        self.features = FeatureBuilder(interval)
        # an interval of grace is what the fold leaves late samples (complete()): beyond it, a
        # device's clock is off
        self.clocks = DeviceClocks(interval, clock=clock)
        self.scores: dict[tuple[str, str], float] = {}
        self.groups: dict[tuple[str, str], tuple[str, str]] = {}  # link -> (rail, role), for aggregates
        self.active: dict[tuple[str, str], Finding] = {}
        self.raised: dict[tuple[str, str], int] = {}  # when each active finding was raised (ns)
        self.cleared: deque[dict[str, Any]] = deque(maxlen=50)  # the latest cleared, newest last
        self.intervals = 0
        self.findings_total = 0
        self.last_seconds = 0.0

    @property
    def mode(self) -> str:
        return "model+rules" if self.detector.models else "rules"

    def add(self, device: str, port: str, ts_ns: int, rates: Mapping[str, float],
            tags: Mapping[str, str], saturated: list[str], *, span_ns: int = 0,
            spans_ns: Mapping[str, int] | None = None, new_names: Sequence[str] | None = None,
            first: Mapping[str, float] | None = None, dt_s: float | None = None) -> None:
        """One sample's rates (the pipeline's `RatesListener`)."""
        if tags.get("if_type"):
            return  # a LAG, VLAN or loopback interface: its traffic is its members' or none, not a link's
        self.aggregator.add(device, port, self.clocks.place(device, ts_ns), rates, tags, saturated, dt_s=dt_s,
                            span_ns=span_ns, spans_ns=spans_ns, new_names=new_names, first=first)

    def ranked_findings(self) -> list[Finding]:
        """Active findings, critical first, then by score."""
        return sorted(self.active.values(), key=lambda f: (f.severity != "critical", -f.score))

    def forget(self, keys: list[tuple[str, str]]) -> None:
        """Forget these links everywhere (their target was removed): no score, finding or history left."""
        self.aggregator.forget(keys)
        self.features.forget(keys)
        self.detector.forget(keys)
        for key in keys:
            self.scores.pop(key, None)
            self.groups.pop(key, None)
            self.active.pop(key, None)

    def _score(self, start: int, links: list[LinkInterval]) -> tuple[list[Finding], dict[tuple[str, str], float]]:
        frame = self.features.build(start, links)
        findings = self.detector.detect(frame)
        scores = self.detector.score(frame)
        return findings, {(li.device, li.port): float(s) for li, s in zip(links, scores, strict=True)
                          if s == s}

    async def run(self) -> None:
        while True:
            await asyncio.sleep(min(5.0, self.interval_s / 2))
            await self.process(self.clock())

    async def process(self, now_ns: int, *, flush: bool = False) -> list[Finding]:
        ready = self.aggregator.flush() if flush else self.aggregator.complete(now_ns)
        out: list[Finding] = []
        for start, links in ready:
            t0 = time.perf_counter()
            # the forest runs in a thread: collection and the HTTP server keep going
            findings, scores = await asyncio.to_thread(self._score, start, links)
            self.last_seconds = time.perf_counter() - t0
            self.intervals += 1
            self.findings_total += len(findings)
            self.scores = scores
            self.groups = {(li.device, li.port): (li.tags.get("rail", ""), li.tags.get("role", "")) for li in links}
            before = self.active
            self._events(findings)
            if self.observer is not None:
                self.observer.observe(list(self.active.values()))
            cleared = [f for key, f in before.items() if key not in self.active]
            await self.write(self._lines(start, links, findings, cleared))
            out += findings
        return out

    def finding_json(self, f: Finding) -> dict[str, Any]:
        """A finding as the API and the page show it: with when it was raised."""
        raised = self.raised.get((f.device, f.port), f.time_ns)
        return {**f.to_json(), **self._about(f), "raised": _iso(raised), "raised_ns": raised}

    def _about(self, f: Finding) -> dict[str, Any]:
        return self.context.about(f.device, f.port) if self.context is not None else {}

    def _events(self, findings: list[Finding]) -> None:
        now = {(f.device, f.port): f for f in findings}
        for key, f in now.items():
            if key not in self.active:
                self.raised[key] = f.time_ns
                log.warning("link finding raised", extra={"device": f.device, "port": f.port,
                            "severity": f.severity, "source": f.source, "explanation": f.explanation})
                if self.emit is not None:
                    self.emit("link_finding", {"event": "raised", **f.to_json(), **self._about(f)})
        for key, f in self.active.items():
            if key not in now:
                self.cleared.append({**self.finding_json(f), "cleared": _iso(self.clock())})
                self.raised.pop(key, None)
                log.info("link finding cleared", extra={"device": f.device, "port": f.port})
                if self.emit is not None:
                    self.emit("link_finding", {"event": "cleared", **f.to_json(), **self._about(f)})
        self.active = now

    def _lines(self, start: int, links: list[LinkInterval], findings: list[Finding],
               cleared: Sequence[Finding] = ()) -> list[str]:
        """`link_anomaly` points: one per scored or flagged link per interval, one per device
        finding (port "*"), and an unflagged one for each finding that cleared in this interval (rules
        only, nothing else would tell storage it ended). Severity, source and condition are tags, so
        that a post-mortem can `GROUP BY "severity"`; explanations and scores are fields."""
        by_link = {(f.device, f.port): f for f in findings}
        ended = {(f.device, f.port): f for f in cleared}
        tags_of = {(li.device, li.port): li.tags for li in links}
        out = []
        for li in links:
            key = (li.device, li.port)
            f = by_link.pop(key, None)
            score = self.scores.get(key)
            if f is None and score is None and key not in ended:
                continue
            ended.pop(key, None)
            out.append(anomaly_line(start, li.device, li.port, li.tags, score, f))
        for f in [*by_link.values(), *ended.values()]:  # device findings, findings without a link this interval
            tags = tags_of.get((f.device, f.ports[0]), {}) if f.ports else {}
            shared = {k: v for k, v in tags.items() if k in ("fabric", "rail", "role", "site", "speed")}
            flagged = (f.device, f.port) in by_link
            out.append(anomaly_line(start, f.device, f.port, shared, f.score if flagged else 0.0,
                                    f if flagged else None))
        return [ln for ln in out if ln]


def anomaly_line(start: int, device: str, port: str, tags: dict[str, str], score: float | None,
                 f: Finding | None) -> str:
    point_tags = {**tags, "device": device, "port": port, "severity": "ok" if f is None else f.severity}
    fields: dict[str, object] = {"score": round(score, 4) if score is not None else 0.0, "flagged": f is not None}
    if f is not None:
        point_tags.update(source=f.source, condition="+".join(f.conditions) or f.source, level=f.level)
        fields["explanation"] = f.explanation
        if f.ports:
            fields["ports"] = ",".join(f.ports)
        if f.peer is not None:
            fields["peer"] = f"{f.peer[0]}:{f.peer[1]}"
    return line(tag_prefix("link_anomaly", point_tags), fields, start) or ""


def _iso(ns: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ns / 1e9))
