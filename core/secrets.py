"""Secrets come from an environment variable or a file, never from the config itself."""

from __future__ import annotations

import os
from pathlib import Path
from typing import overload

from pydantic import SecretStr, model_validator

from fabricwatch.core.config_types import StrictModel


class SecretRef(StrictModel):
    """`{ env = "NAME" }`, `{ file = "/path" }` or `{ credential = "NAME" }` (a systemd credential:
    `LoadCredential=NAME:/path` in the unit, read from $CREDENTIALS_DIRECTORY/NAME); resolved at load
    time so a missing one names its key."""

    env: str | None = None
    file: Path | None = None
    credential: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _not_inline(cls, data: object) -> object:
        if isinstance(data, str | int | float):
            # never echo the value: it may be the secret itself
            raise ValueError('a secret is not written in the config: write { env = "NAME" }, '
                             '{ file = "/path" } or { credential = "NAME" } (a systemd credential)')
        return data

    @model_validator(mode="after")
    def _exactly_one(self) -> SecretRef:
        if sum(x is not None for x in (self.env, self.file, self.credential)) != 1:
            raise ValueError("give exactly one of 'env', 'file' or 'credential'")
        if self.credential is not None and ("/" in self.credential or self.credential in ("", ".", "..")):
            raise ValueError("a credential is a name, not a path")
        self.resolve()  # fail at load time, naming the key, not at first use
        return self

    def resolve(self) -> SecretStr:
        if self.env is not None:
            if self.env not in os.environ:
                raise ValueError(f"environment variable {self.env} is not set")
            return SecretStr(os.environ[self.env])
        if self.credential is not None:
            base = os.environ.get("CREDENTIALS_DIRECTORY")
            if not base:
                raise ValueError(f"credential {self.credential}: $CREDENTIALS_DIRECTORY is not set "
                                 "(LoadCredential= in the unit)")
            try:
                return SecretStr((Path(base) / self.credential).read_text().strip())
            except OSError as exc:
                raise ValueError(f"credential {self.credential}: cannot read: {exc.strerror}") from exc
        assert self.file is not None
        try:
            return SecretStr(self.file.read_text().strip())
        except OSError as exc:
            raise ValueError(f"cannot read secret file {self.file}: {exc.strerror}") from exc


@overload
def reveal(ref: SecretRef) -> str: ...
@overload
def reveal(ref: None) -> None: ...
@overload
def reveal(ref: SecretRef | None) -> str | None: ...
def reveal(ref: SecretRef | None) -> str | None:
    """The secret's text, read now (a rotated file or variable takes effect on the next session)."""
    return None if ref is None else ref.resolve().get_secret_value()
