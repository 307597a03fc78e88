"""Config of the UFM collector: one UFM (REST + Telemetry) per section, for one InfiniBand fabric."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import PositiveDuration, StrictModel, Tags, check_no_userinfo
from fabricwatch.core.secrets import SecretRef
from fabricwatch.core.tls import TlsConfig

if TYPE_CHECKING:
    from fabricwatch.collectors.ufm.collector import UfmCollector


def _url(v: str) -> str:
    parts = urlsplit(v)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http(s) URL like 'https://ufm.example'")
    check_no_userinfo(v, 'username = "..." and password = { env = "NAME" }, or token = { env = "NAME" } '
                         "(file = or credential = work too)")
    return v.rstrip("/")


class UfmConfig(StrictModel):
    name: str = "ufm"
    url: str  # the UFM REST base, e.g. https://ufm.example
    # rest: /ufmRest with basic auth; v3: /ufmRestV3 with an access token; auto: v3 when a token is given
    api: Literal["auto", "rest", "v3"] = "auto"
    username: str | None = None
    password: SecretRef | None = None
    token: SecretRef | None = None
    telemetry_url: str | None = None  # default: http://<UFM host>:9001
    telemetry_format: Literal["csv", "prometheus"] = "csv"
    telemetry_path: str = "/csv/cset/converted_enterprise"
    interval: PositiveDuration = 30.0  # Telemetry poll
    inventory_interval: PositiveDuration = 300.0  # ports, systems, links
    events_interval: PositiveDuration = 30.0  # app/events and app/unhealthy_ports
    events_backfill: bool = False  # also publish events UFM held before the first poll
    timeout: PositiveDuration = 10.0
    # an answer (REST or Telemetry) longer than this is refused, not read: a UFM cannot fill the daemon's memory
    max_response_bytes: int = Field(128 << 20, ge=1024)
    tls: TlsConfig = TlsConfig()  # an https:// URL uses TLS; verify, ca_file, client cert
    backoff: Backoff = Backoff(initial=5.0, max=300.0)
    tags: Tags = Field(default_factory=dict)

    _u = field_validator("url")(classmethod(lambda cls, v: _url(v)))

    @field_validator("telemetry_url")
    @classmethod
    def _telemetry(cls, v: str | None) -> str | None:
        return None if v is None else _url(v)

    @model_validator(mode="after")
    def _auth(self) -> UfmConfig:
        basic = self.username is not None or self.password is not None
        if basic and self.token is not None:
            raise ValueError("give either username/password (basic auth) or token, not both")
        if basic and (self.username is None or self.password is None):
            raise ValueError("basic auth needs both username and password")
        if not basic and self.token is None:
            raise ValueError("give username and password, or token")
        if self.api == "v3" and self.token is None:
            raise ValueError("api 'v3' (/ufmRestV3) authenticates with a token")
        return self

    @property
    def rest_prefix(self) -> str:
        v3 = self.api == "v3" or (self.api == "auto" and self.token is not None)
        return "/ufmRestV3" if v3 else "/ufmRest"

    @property
    def telemetry_base(self) -> str:
        if self.telemetry_url:
            return self.telemetry_url
        return f"http://{urlsplit(self.url).hostname}:9001"

    def build(self) -> list[UfmCollector]:
        # imported when built: a worker loads the code of the kinds it runs only
        from fabricwatch.collectors.ufm.collector import UfmCollector

        return [UfmCollector(self)]
