"""`[cluster]`: members coordinated through etcd (leases, rendezvous hashing, takeover)."""

from __future__ import annotations

import re
import socket
import urllib.parse

from pydantic import Field, field_validator, model_validator

from fabricwatch.core.config_types import Duration, StrictModel
from fabricwatch.core.secrets import SecretRef
from fabricwatch.core.tls import TlsConfig

MEMBER_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")  # a key in etcd: what a member may be called


class ClusterConfig(StrictModel):
    etcd: list[str] = Field(default_factory=list)  # empty: no cluster (shard = "k/N" still works)
    name: str = Field(default_factory=socket.gethostname)
    lease: Duration = 10.0
    prefix: str = "/fabricwatch/default"  # one cluster's keys; another prefix is another cluster
    # optional: a regex over target device names; its first group (or match) keeps a group on one member
    group_pattern: str | None = None
    username: str | None = None
    password: SecretRef | None = None
    tls: TlsConfig = TlsConfig()
    timeout: Duration = 3.0  # per etcd request, before the next endpoint is tried

    @property
    def enabled(self) -> bool:
        return bool(self.etcd)

    @field_validator("etcd")
    @classmethod
    def _urls(cls, v: list[str]) -> list[str]:
        for url in v:
            u = urllib.parse.urlsplit(url)
            if u.scheme not in ("http", "https") or not u.hostname or not u.port:
                raise ValueError(f"{url!r}: give each etcd endpoint as http://host:port or https://host:port")
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not MEMBER_NAME.fullmatch(v):
            raise ValueError("name: letters, digits, '.', '_' and '-' only (it is a key in etcd)")
        return v

    @field_validator("group_pattern")
    @classmethod
    def _pattern(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"group_pattern is not a regular expression: {exc}") from None
        return v

    @model_validator(mode="after")
    def _lease(self) -> ClusterConfig:
        if not 2 <= self.lease <= 300:
            raise ValueError("lease must be 2 s to 300 s")
        if self.timeout >= self.lease / 2:
            raise ValueError("timeout must be under half the lease, or a member loses its lease waiting")
        if (self.username is None) != (self.password is None):
            raise ValueError("username and password go together")
        return self

    @property
    def pattern(self) -> re.Pattern[str] | None:
        return re.compile(self.group_pattern) if self.group_pattern else None
