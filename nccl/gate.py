"""The acceptance gate: operator thresholds over NCCL runs -> pass/fail, with the reasons.

No thresholds ship: a cluster's numbers are its own. `suggest` writes a starting file from runs
the operator trusts. Thresholds (TOML)::

    [[check]]
    collective = "all_reduce"      # required
    nranks = 16                    # optional: only runs with this many ranks
    min_size = "1G"                # rows at or above this size (default: all)
    max_size = "16G"
    min_busbw = 180.0              # GB/s, every row, out-of-place and in-place
    max_cv_pct = 3.0               # run-to-run coefficient of variation of busbw per size
    min_runs = 3                   # repeats needed for the verdict to count
    require_zero_wrong = true      # any #wrong > 0 fails
    require_complete = true        # a run that stopped early fails
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from fabricwatch.core.config_errors import format_errors
from fabricwatch.core.config_types import StrictModel, read_toml
from fabricwatch.core.nccl_records import Row, RunRecord
from fabricwatch.nccl.parser import COLLECTIVES

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*$", re.I)
_MULT = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def cv_pct(values: list[float]) -> float:
    """Sample coefficient of variation in percent (0 for fewer than two values or a zero mean)."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return 100.0 * std / mean if mean > 0 else 0.0


def format_size(n: float) -> str:
    """Sizes as people read them: 64 MiB, 1 GiB, 512 B."""
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:g} {unit}"
    return f"{n:g} B"


def parse_size(v: Any) -> int:
    if isinstance(v, int):
        return v
    m = _SIZE.match(str(v))
    if not m:
        raise ValueError(f"expected a size like 1048576, '64M' or '1G', got {v!r}")
    return int(float(m.group(1)) * _MULT[m.group(2).upper()])


class Check(StrictModel):
    collective: str
    nranks: int | None = Field(None, ge=1)
    min_size: int = 0
    max_size: int | None = None
    min_busbw: float | None = Field(None, gt=0)
    max_cv_pct: float | None = Field(None, gt=0)
    min_runs: int = Field(1, ge=1)
    require_zero_wrong: bool = True
    require_complete: bool = True

    @field_validator("collective")
    @classmethod
    def _collective(cls, v: str) -> str:
        if v not in COLLECTIVES:
            raise ValueError(f"unknown collective; known: {', '.join(COLLECTIVES)}")
        return v

    @field_validator("min_size", "max_size", mode="before")
    @classmethod
    def _size(cls, v: Any) -> int | None:
        return None if v is None else parse_size(v)

    def name(self) -> str:
        parts = [self.collective]
        if self.nranks:
            parts.append(f"{self.nranks} ranks")
        if self.min_size or self.max_size:
            parts.append(f"sizes {format_size(self.min_size)} to "
                         f"{format_size(self.max_size) if self.max_size else 'the largest'}")
        return ", ".join(parts)


class Thresholds(StrictModel):
    check: list[Check] = Field(min_length=1)


def load_thresholds(path: Path) -> Thresholds:
    data = read_toml(path)
    try:
        return Thresholds.model_validate(data)
    except ValidationError as exc:
        raise ValueError(format_errors(str(path), exc)) from None


@dataclass
class CheckResult:
    check: Check
    runs: list[str]
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    worst_busbw: float | None = None
    worst_cv_pct: float | None = None
    failed_runs: dict[str, str] = field(default_factory=dict)  # source -> its first failure, the run's own

    def fail_run(self, run: RunRecord, why: str) -> None:
        """A failure of one run (its hosts failed), not of the set (too few runs, variation across runs)."""
        self.failures.append(f"{run.source}: {why}")
        self.failed_runs.setdefault(run.source, why)

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check.name(), "passed": self.passed, "runs": self.runs,
            "worst_busbw": self.worst_busbw, "worst_cv_pct": self.worst_cv_pct,
            "failures": self.failures, "warnings": self.warnings,
            "thresholds": self.check.model_dump(exclude_none=True),
        }


def _rows(run: RunRecord, check: Check) -> list[Row]:
    return [r for r in run.rows
            if r.size >= check.min_size and (check.max_size is None or r.size <= check.max_size)]


def _busbw(row: Row) -> float | None:
    values = [m.busbw for m in (row.out_of_place, row.in_place) if m is not None and m.busbw is not None]
    return min(values) if values else None


def matches(check: Check, run: RunRecord) -> bool:
    return run.collective == check.collective and (check.nranks is None or run.nranks == check.nranks)


def not_judged(thresholds: Thresholds, runs: list[RunRecord]) -> list[RunRecord]:
    """The runs no check matches (another collective or rank count): a verdict says nothing of them."""
    return [r for r in runs if not any(matches(c, r) for c in thresholds.check)]


def evaluate(check: Check, runs: list[RunRecord]) -> CheckResult:
    chosen = [r for r in runs if matches(check, r)]
    res = CheckResult(check, [r.source for r in chosen])
    if len(chosen) < check.min_runs:
        res.failures.append(f"{len(chosen)} matching run(s), {check.min_runs} needed")
    per_size: dict[int, list[float]] = defaultdict(list)
    for run in chosen:
        if check.require_complete and not run.complete:
            where = run.stopped_at["line"] if run.stopped_at else "?"
            res.fail_run(run, f"incomplete (stopped after line {where})")
        rows = _rows(run, check)
        if not rows:
            res.fail_run(run, "no rows in the checked size range")
        for row in rows:
            bw = _busbw(row)
            if bw is not None:
                res.worst_busbw = bw if res.worst_busbw is None else min(res.worst_busbw, bw)
                per_size[row.size].append(bw)  # every sweep of every run is a repeat
                if check.min_busbw is not None and bw < check.min_busbw:
                    res.fail_run(run, f"size {format_size(row.size)} busbw {bw:g} GB/s < {check.min_busbw:g}")
            wrong = [m.wrong for m in (row.out_of_place, row.in_place) if m is not None and m.wrong]
            if check.require_zero_wrong and wrong:
                res.fail_run(run, f"size {format_size(row.size)}: {max(wrong):g} wrong elements")
            for flag in row.flags:
                if "wrong elements" not in flag:
                    res.warnings.append(f"{run.source}: size {format_size(row.size)}: {flag}")
    if check.max_cv_pct is not None:
        for size, values in sorted(per_size.items()):
            if len(values) < 2:
                continue
            cv = cv_pct(values)
            res.worst_cv_pct = cv if res.worst_cv_pct is None else max(res.worst_cv_pct, cv)
            if cv > check.max_cv_pct:
                res.failures.append(f"size {format_size(size)}: busbw varies {cv:.1f}% across {len(values)} runs "
                                    f"(> {check.max_cv_pct:g}%)")
    return res


def gate(thresholds: Thresholds, runs: list[RunRecord]) -> list[CheckResult]:
    return [evaluate(c, runs) for c in thresholds.check]


def suggest(runs: list[RunRecord], margin: float = 0.9) -> str:
    """A starting thresholds file from healthy runs: per collective and rank count, the
    large-message plateau (sizes >= a quarter of the largest) at `margin` of its worst run,
    and twice the observed variation (at least 2 %)."""
    groups: dict[tuple[str, int | None], list[RunRecord]] = defaultdict(list)
    for r in runs:
        if r.collective and r.rows:
            groups[(r.collective, r.nranks)].append(r)
    out = ["# written by `fabricwatch gate --suggest` from runs the operator trusts: review before use", ""]
    for (coll, n), rs in sorted(groups.items()):
        largest = max(row.size for r in rs for row in r.rows)
        floor = largest // 4
        plateau = [b for r in rs for row in r.rows if row.size >= floor and (b := _busbw(row)) is not None]
        per_size: dict[int, list[float]] = defaultdict(list)
        for r in rs:
            for row in r.rows:
                if row.size >= floor and (b := _busbw(row)) is not None:
                    per_size[row.size].append(b)
        cvs = {size: cv_pct(values) for size, values in per_size.items() if len(values) > 1}
        worst = min(plateau)
        out += ["[[check]]", f'collective = "{coll}"']
        if n is not None:
            out.append(f"nranks = {n}  # the runs' rank count: runs of another size are judged by their own check")
        out += [
            f"min_size = {floor}  # {format_size(floor)}: a quarter of the largest size, where busbw plateaus",
            f"min_busbw = {round(worst * margin, 2)}  # {margin:.0%} of the worst plateau row seen "
            f"({worst:g} GB/s over {len(rs)} run(s))",
        ]
        if len(rs) < 2 or not cvs:
            out.append("# no max_cv_pct: one run shows no run-to-run variation; suggest again from 2 or more "
                       "(better 5) repeats")
        else:
            size, cv = max(cvs.items(), key=lambda kv: kv[1])
            out.append(f"max_cv_pct = {round(max(2.0, 2 * cv), 1)}  # twice the worst run-to-run CV seen "
                       f"({cv:.1f} % at {format_size(size)}), at least 2 %")
        out += [f"min_runs = {min(3, len(rs))}  # repeats needed before the verdict counts", ""]
    return "\n".join(out)
