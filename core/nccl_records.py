"""The record of one nccl-tests run, as the parser produces it and the analysis reads it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Measurement:
    time_us: float | None
    algbw: float | None
    busbw: float | None
    wrong: float | None = None  # None: not checked (-c 0, `N/A`)
    error: float | None = None  # old format: max deviation
    per_iteration: dict[str, float] = field(default_factory=dict)


@dataclass
class Row:
    size: int
    count: int
    type: str
    redop: str | None
    root: int | None
    out_of_place: Measurement | None
    in_place: Measurement | None
    sweep: int
    line: int
    flags: list[str] = field(default_factory=list)


@dataclass
class RankInfo:
    rank: int
    group: int | None
    pid: int
    host: str
    device: int
    pci: str
    gpu: str


@dataclass
class RunRecord:
    source: str
    format: str  # text | json
    collective: str | None
    collective_from: str  # header | filename | json | inferred | unknown
    nccl_tests_version: str | None = None
    nccl_version: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    ranks: list[RankInfo] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    footer: dict[str, Any] = field(default_factory=dict)
    complete: bool = False
    stopped_at: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    skipped_lines: int = 0
    start_time: str | None = None  # JSON output only: when the run started (local time of the run)
    repeat: int = 0  # k of the k-th run of its collective in one log (SOURCE#k); 0: the only one

    @property
    def nranks(self) -> int | None:
        """Ranks the run listed; None when it did not say (a cut log, or rank lines that are not all of
        0..n-1, such as only the last one): never a guess of 1."""
        if not self.ranks or sorted(r.rank for r in self.ranks) != list(range(len(self.ranks))):
            return None
        return len(self.ranks)

    @property
    def hosts(self) -> list[str]:
        return sorted({r.host for r in self.ranks})

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["nranks"] = self.nranks
        out["hosts"] = self.hosts
        out["nodes"] = len(self.hosts) if self.nranks else None  # the hosts of a partial rank list are not all
        gpus = sorted({r.gpu for r in self.ranks})
        out["gpu_model"] = gpus[0] if len(gpus) == 1 else (gpus or None)
        out["rows_flagged"] = sum(1 for r in self.rows if r.flags)
        return out
