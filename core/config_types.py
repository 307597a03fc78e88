"""Building blocks shared by every config section: strict models, durations, tags."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}


def parse_duration(value: Any) -> float:
    """'500ms', '10s', '5m', '1h', '2d' or a bare number of seconds -> seconds."""
    if isinstance(value, bool):
        raise ValueError("expected a duration like '10s', got a boolean")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str) and (m := _DURATION.match(value)):
        seconds = float(m.group(1)) * _UNIT_S[m.group(2)]
    else:
        raise ValueError(f"expected a duration like '10s', '5m' or a number of seconds, got {value!r}")
    if seconds < 0:
        raise ValueError("a duration cannot be negative")
    return seconds


Duration = Annotated[float, BeforeValidator(parse_duration)]


class StrictModel(BaseModel):
    """Unknown keys are errors: a typo in the config must not be silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


Tags = dict[str, str]


def check_unique_devices(targets: list[Any]) -> None:
    """A device listed twice in one section would poll it twice and mix its series."""
    seen: set[str] = set()
    for t in targets:
        if t.device in seen:
            raise ValueError(f"device {t.device!r} is listed twice")
        seen.add(t.device)


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's table, or ValueError naming the file and what is wrong (unreadable, bad syntax)."""
    try:
        return tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
