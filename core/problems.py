"""What a source could not read or tell, as a record: shown where it is shown, never parsed back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# unreachable: the source did not answer at all (what it told before still holds);
# unreadable: a record of its answer did not fit; conflict: answers that contradict each other
ProblemKind = Literal["unreachable", "unreadable", "conflict"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem: what read (`source`), about what (`target`: a device, an end, a file), what kind, and why."""

    source: str
    target: str
    kind: ProblemKind
    detail: str

    def __str__(self) -> str:
        return f"{self.target}: {self.detail}" if self.target else self.detail
