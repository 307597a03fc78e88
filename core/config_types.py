"""Building blocks shared by every config section: strict models, durations, addresses, tags."""

from __future__ import annotations

import re
import tomllib
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from fabricwatch.core.digits import parse_uint

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
PositiveDuration = Annotated[float, BeforeValidator(parse_duration), Field(gt=0)]


def check_address(value: str) -> str:
    """'host:port' with a port of 0-65535 (the host may be a bracketed IPv6 address), else ValueError."""
    host, sep, port = value.rpartition(":")
    number = parse_uint(port, max_digits=5)
    if not sep or not host or number is None or number > 65535:
        raise ValueError("must be 'host:port' with a port of 0-65535, e.g. '127.0.0.1:9465'")
    return value


Address = Annotated[str, AfterValidator(check_address)]


def check_no_userinfo(url: str, instead: str) -> str:
    """`url` unless it carries a user or password (`http://user:pass@host`), else a ValueError saying to
    give `instead`: an inline secret, shown wherever the URL is (logs, /api/targets, errors). The
    message never repeats the URL."""
    if "@" in urlsplit(url).netloc:
        raise ValueError(f"a user name or password in the URL is refused (it would be shown wherever the URL "
                         f"is: logs, /api/targets, error messages); write the URL without it and give {instead}")
    return url


def check_order(section: BaseModel, *names: str) -> None:
    """These durations of a section never shrink left to right (`interval` before `optics_interval`)."""
    for shorter, longer in pairwise(names):
        if getattr(section, longer) < getattr(section, shorter):
            raise ValueError(f"{longer} must be at least {shorter}")


class StrictModel(BaseModel):
    """Unknown keys are errors: a typo in the config must not be silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


Tags = dict[str, str]


class Target(Protocol):
    """What every target entry of a section has: the device it names."""

    @property
    def device(self) -> str: ...


T = TypeVar("T", bound=Target)


def check_unique_devices(targets: list[T]) -> list[T]:
    """A device listed twice in one section would poll it twice and mix its series."""
    seen: set[str] = set()
    for t in targets:
        if t.device in seen:
            raise ValueError(f"device {t.device!r} is listed twice")
        seen.add(t.device)
    return targets


# a section's targets: at least one, each device once
Targets = Annotated[list[T], Field(min_length=1), AfterValidator(check_unique_devices)]


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's table, or ValueError naming the file and what is wrong (unreadable, bad syntax)."""
    try:
        return tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
