"""Labelled runs from the simulator, two baselines, and event-level scoring of any detector.

A run is a fabric observed interval by interval (mean rates from counter deltas, which is what
the pipeline computes) with faults injected on known links at known intervals. An *event* is one
injected fault; it is detected if any of its links is flagged while it lasts (plus one interval).
A *false alarm* is a finding raised on a link that no fault touches at that moment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fabricwatch.models.features import own_matrix
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.fabric import COUNTER_NAMES, Fabric
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.flavours import served
from fabricwatch.simulator.topology import FabricSpec

S = 1_000_000_000


@dataclass
class Injection:
    fault: Fault
    start: int  # interval index
    end: int  # exclusive

    def links(self, fabric: Fabric) -> set[tuple[str, str]]:
        if self.fault.port is not None:
            return {(self.fault.device, self.fault.port)}
        return {(p.device, p.name) for p in fabric.topology.devices[self.fault.device].ports}


@dataclass
class Run:
    name: str
    interval_s: float
    frames: Any  # list of (start_ns, links), or an iterator of them for a streamed run
    injections: list[Injection]
    fabric: Fabric

    def faulty(self, idx: int) -> set[tuple[str, str]]:
        out: set[tuple[str, str]] = set()
        for inj in self.injections:
            if inj.start <= idx < inj.end:
                out |= inj.links(self.fabric)
        return out


def simulate(spec: FabricSpec, intervals: int, injections: Iterable[Injection] = (), *,
             interval_s: float = 30.0, seed: int = 1, name: str = "run",
             load: Callable[[Fabric, int], None] | None = None, stream: bool = False,
             as_served: bool = False) -> Run:
    """Observe a fabric for `intervals` intervals; `load(fabric, i)` may change load per interval.
    With stream=True the frames are produced as they are read (one pass, little memory).
    With as_served=True each switch reports only the counters its vendor flavour carries over
    gNMI, as the daemon would see them (a model must learn from what it will be shown)."""
    fabric = Fabric(spec, seed=seed, start_ns=0)
    injections = list(injections)
    frames_iter = _observe(fabric, intervals, injections, interval_s, load, as_served)
    frames: Any = frames_iter if stream else list(frames_iter)
    return Run(name, interval_s, frames, injections, fabric)


def _observe(fabric: Fabric, intervals: int, injections: list[Injection], interval_s: float,
             load: Callable[[Fabric, int], None] | None,
             as_served: bool = False) -> Iterator[tuple[int, list[LinkInterval]]]:
    everything = dict.fromkeys((*COUNTER_NAMES, "oper_status"), 0)
    carried = {name: set(served(dev.flavour, everything)) if as_served else set(COUNTER_NAMES)
               for name, dev in fabric.topology.devices.items()}
    records = {(r["device"], r["port"]): {k: str(v) for k, v in r.items() if k not in ("device", "port")}
               for r in fabric.topology.records()}
    step = int(interval_s * S)
    prev = fabric.snapshot(0)
    for i in range(intervals):
        for inj in injections:
            if inj.start == i:
                fabric.inject(inj.fault)
            if inj.end == i and inj.fault in fabric.faults:
                fabric.faults.remove(inj.fault)
        if load is not None:
            load(fabric, i)
        snap = fabric.snapshot((i + 1) * step)
        delta = (snap.counters.astype(np.float64) - prev.counters.astype(np.float64)) / interval_s
        links = []
        for p in fabric.ports:
            keep = carried[p.device]
            rates = {k: v for k, v in zip(COUNTER_NAMES, delta[p.index].tolist(), strict=True) if k in keep}
            links.append(LinkInterval(i * step, p.device, p.name, records[(p.device, p.name)], rates))
        yield i * step, links
        prev = snap


@dataclass
class Score:
    name: str
    events: int = 0
    detected: int = 0
    delays: list[int] = field(default_factory=list)
    false_alarms: int = 0
    flagged_intervals: int = 0
    healthy_link_hours: float = 0.0
    missed: list[str] = field(default_factory=list)
    true_raises: int = 0

    @property
    def recall(self) -> float:
        return self.detected / self.events if self.events else 1.0

    @property
    def precision(self) -> float:
        raised = self.true_raises + self.false_alarms
        return self.true_raises / raised if raised else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def fa_per_1000_link_hours(self) -> float:
        return 1000.0 * self.false_alarms / self.healthy_link_hours if self.healthy_link_hours else 0.0

    def line(self) -> str:
        med = float(np.median(self.delays)) if self.delays else float("nan")
        p95 = float(np.percentile(self.delays, 95)) if self.delays else float("nan")
        return (f"{self.name:16s} precision {self.precision:.3f} recall {self.recall:.3f} F1 {self.f1:.3f}  "
                f"detect median {med:.1f} p95 {p95:.1f} intervals  "
                f"false alarms {self.fa_per_1000_link_hours:.2f}/1000 link-h ({self.false_alarms} in "
                f"{self.healthy_link_hours:,.0f} link-h)")


# A detector for evaluation: called once per interval in order, returns the links it flags.
Flagger = Callable[[int, list[LinkInterval]], set[tuple[str, str]]]


def evaluate(run: Run, flagger: Flagger, name: str, score: Score | None = None) -> Score:
    return evaluate_many(run, {name: flagger}, {name: score or Score(name)})[name]


def evaluate_many(run: Run, flaggers: dict[str, Flagger], scores: dict[str, Score]) -> dict[str, Score]:
    """Score several detectors in one pass over a run (a streamed run can be read only once)."""
    before: dict[str, set[tuple[str, str]]] = {n: set() for n in flaggers}
    first: dict[str, dict[int, int]] = {n: {} for n in flaggers}
    links_of = [inj.links(run.fabric) for inj in run.injections]
    for idx, (start, links) in enumerate(run.frames):
        faulty = run.faulty(idx)
        recently = faulty | run.faulty(idx - 1)
        for name, flagger in flaggers.items():
            score = scores[name]
            flagged = flagger(start, links)
            for link in flagged - before[name]:
                if link in recently:
                    score.true_raises += 1
                else:
                    score.false_alarms += 1
            for n, inj in enumerate(run.injections):
                if inj.start <= idx <= inj.end and n not in first[name] and flagged & links_of[n]:
                    first[name][n] = idx
            score.healthy_link_hours += (len(links) - len(faulty)) * run.interval_s / 3600.0
            score.flagged_intervals += len(flagged)
            before[name] = flagged
    for name in flaggers:
        score = scores[name]
        for n, inj in enumerate(run.injections):
            score.events += 1
            if n in first[name]:
                score.detected += 1
                score.delays.append(first[name][n] - inj.start + 1)
            else:
                score.missed.append(f"{run.name}:{inj.fault.kind}:{inj.fault.device}:{inj.fault.port or '*'}")
    return scores


class StaticThresholds:
    """NVSentinel-like defaults: any link_downed; symbol_error > 10/s; link_error_recovery
    > 5/min; port_rcv_errors > 10/s; xmit_discards > 100/s; carrier changes > 2 per interval."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s

    def __call__(self, start: int, links: list[LinkInterval]) -> set[tuple[str, str]]:
        out = set()
        for li in links:
            r = li.rates.get
            if (r("link_downed", 0) > 0 or r("symbol_errors", 0) > 10 or r("link_error_recovery", 0) * 60 > 5
                    or r("rcv_errors", 0) + r("in_errors", 0) > 10 or r("xmit_discards", 0) + r("out_discards", 0) > 100
                    or r("link_transitions", 0) * self.interval_s > 2):
                out.add((li.device, li.port))
        return out


class EwmaZ:
    """Per-link EWMA mean and variance of each log-scaled own feature; flag |z| > limit."""

    def __init__(self, interval_s: float, alpha: float = 0.1, limit: float = 6.0, warmup: int = 10) -> None:
        self.interval_s = interval_s
        self.alpha, self.limit, self.warmup = alpha, limit, warmup
        self.state: dict[tuple[str, str], tuple[np.ndarray, np.ndarray, int]] = {}

    def __call__(self, start: int, links: list[LinkInterval]) -> set[tuple[str, str]]:
        out = set()
        a = self.alpha
        own = np.log1p(np.maximum(np.nan_to_num(own_matrix(links, self.interval_s)), 0.0))
        for li, x in zip(links, own, strict=True):
            key = (li.device, li.port)
            mean, var, n = self.state.get(key, (x.copy(), np.full_like(x, 0.25), 0))
            z = np.abs(x - mean) / np.sqrt(var + 1e-3)
            if n >= self.warmup and (z > self.limit).any():
                out.add(key)
            d = x - mean
            mean = mean + a * d
            var = (1 - a) * (var + a * d * d)
            self.state[key] = (mean, var, n + 1)
        return out
