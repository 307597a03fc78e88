"""Building blocks shared by every config section: strict models, durations, secrets, TLS."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    model_validator,
)

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


class SecretRef(StrictModel):
    """A secret read from an environment variable or a file, never written in the config."""

    env: str | None = None
    file: Path | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> SecretRef:
        if (self.env is None) == (self.file is None):
            raise ValueError("give exactly one of 'env' or 'file'")
        self.resolve()  # fail at load time, naming the key, not at first use
        return self

    def resolve(self) -> SecretStr:
        if self.env is not None:
            if self.env not in os.environ:
                raise ValueError(f"environment variable {self.env} is not set")
            return SecretStr(os.environ[self.env])
        assert self.file is not None
        try:
            return SecretStr(self.file.read_text().strip())
        except OSError as exc:
            raise ValueError(f"cannot read secret file {self.file}: {exc.strerror}") from exc


class TlsConfig(StrictModel):
    enabled: bool = False
    ca_file: Path | None = None
    cert_file: Path | None = None  # client certificate, for mTLS
    key_file: Path | None = None
    server_name: str | None = None  # override the name checked in the server certificate

    @model_validator(mode="after")
    def _pair(self) -> TlsConfig:
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("cert_file and key_file go together (mTLS)")
        return self


class Backoff(StrictModel):
    initial: Duration = 1.0
    max: Duration = 60.0
    multiplier: float = Field(2.0, ge=1.0)


Tags = dict[str, str]


def check_unique_devices(targets: list[Any]) -> None:
    """A device listed twice in one section would poll it twice and mix its series."""
    seen: set[str] = set()
    for t in targets:
        if t.device in seen:
            raise ValueError(f"device {t.device!r} is listed twice")
        seen.add(t.device)
