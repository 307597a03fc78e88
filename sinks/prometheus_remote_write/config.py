"""Config of the Prometheus remote-write sink: the shared batching layer and spool, a remote-write URL."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator, model_validator

from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import Duration, StrictModel, check_no_userinfo
from fabricwatch.core.counters import COUNTERS, Kind
from fabricwatch.core.secrets import SecretRef
from fabricwatch.sinks.batching import SpoolConfig

if TYPE_CHECKING:
    from fabricwatch.sinks.prometheus_remote_write.sink import RemoteWriteSink

TopologyLabel = Literal["device", "port", "fabric", "role", "rail", "peer_device", "peer_port"]
_ALL_LABELS: list[TopologyLabel] = ["device", "port", "fabric", "role", "rail", "peer_device", "peer_port"]


class RemoteWriteConfig(StrictModel):
    name: str = "prometheus_remote_write"
    url: str = "http://127.0.0.1:9090/api/v1/write"
    # basic auth, or a bearer token (Mimir, Thanos receive, a proxy in front of Prometheus)
    username: str | None = None
    password: SecretRef | None = None
    token: SecretRef | None = None
    metric_prefix: str = Field("fabricwatch_port_", pattern=r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
    # which topology tags become labels (device and port always): nothing else ever does
    labels: list[TopologyLabel] = Field(default_factory=lambda: list(_ALL_LABELS))
    # which canonical counters' rates are sent (empty: every cumulative counter of core/counters.py)
    counters: list[str] = Field(default_factory=list)
    batch_size: int = Field(500, ge=1, le=100_000)  # port_rates lines a request (~25 samples each)
    flush_interval: Duration = 1.0
    timeout: Duration = 10.0
    backoff: Backoff = Backoff(initial=0.5, max=30.0)
    close_timeout: Duration = 10.0  # at shutdown, keep sending this long; the rest stays spooled
    memory_max_points: int = Field(200_000, ge=1)
    spool: SpoolConfig = SpoolConfig(dir=Path("/var/lib/fabricwatch/spool-remote-write"))

    @field_validator("url")
    @classmethod
    def _no_userinfo(cls, v: str) -> str:
        return check_no_userinfo(v, 'username = "..." and password = { env = "NAME" }, or token = { env = "NAME" }; '
                                    "file = or credential = work too")

    @field_validator("counters")
    @classmethod
    def _canonical(cls, v: list[str]) -> list[str]:
        for name in v:
            spec = COUNTERS.get(name)
            if spec is None or spec.kind is not Kind.COUNTER:
                raise ValueError(f"{name!r} is not a cumulative counter of the canonical vocabulary (core/counters.py)")
        return v

    @model_validator(mode="after")
    def _check(self) -> RemoteWriteConfig:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        if self.password is not None and self.username is None:
            raise ValueError("password given without username")
        if self.token is not None and self.username is not None:
            raise ValueError("give username/password or token, not both")
        if "device" not in self.labels:  # a series without its port would merge every port's rates
            self.labels.append("device")
        if "port" not in self.labels:
            self.labels.append("port")
        if self.spool.segment_bytes > self.spool.max_bytes:
            raise ValueError("spool.segment_bytes cannot be larger than spool.max_bytes")
        return self

    async def check(self) -> str | None:
        """None if the receiver takes an empty write request, else what is wrong."""
        from fabricwatch.sinks.prometheus_remote_write.writer import RemoteWriter

        writer = RemoteWriter(self)
        try:
            return await writer.check()
        finally:
            await writer.close()

    def build(self) -> RemoteWriteSink:
        # imported when built: a collector worker reads this section and never writes (aiohttp)
        from fabricwatch.sinks.prometheus_remote_write.sink import RemoteWriteSink

        return RemoteWriteSink(self)
