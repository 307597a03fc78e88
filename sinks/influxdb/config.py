"""Config of the InfluxDB sink: one batching layer, a spool, and a v1 or v2 wire path."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator, model_validator

from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import Duration, StrictModel, check_no_userinfo
from fabricwatch.core.secrets import SecretRef
from fabricwatch.sinks.batching import SpoolConfig

if TYPE_CHECKING:
    from fabricwatch.sinks.influxdb.sink import InfluxSink


class InfluxConfig(StrictModel):
    name: str = "influxdb"
    api: Literal["v1", "v2"] = "v1"
    url: str = "http://127.0.0.1:8086"
    # v1: database, retention policy, basic auth
    database: str | None = None
    retention_policy: str | None = None
    # v1: create the database when the server says it does not exist (needs the right to)
    create_database: bool = False
    username: str | None = None
    password: SecretRef | None = None
    # v2: org, bucket, token
    org: str | None = None
    bucket: str | None = None
    token: SecretRef | None = None
    batch_size: int = Field(5000, ge=1, le=1_000_000)
    flush_interval: Duration = 1.0
    timeout: Duration = 10.0
    backoff: Backoff = Backoff(initial=0.5, max=30.0)
    close_timeout: Duration = 10.0  # at shutdown, keep sending this long; the rest stays spooled
    # batches held in memory while the spool's disk refuses writes; beyond, the oldest are dropped (counted)
    memory_max_points: int = Field(200_000, ge=1)
    spool: SpoolConfig = SpoolConfig()

    @field_validator("url")
    @classmethod
    def _no_userinfo(cls, v: str) -> str:
        return check_no_userinfo(v, 'username = "..." and password = { env = "NAME" } (api v1), or '
                                    'token = { env = "NAME" } (api v2); file = or credential = work too')

    @model_validator(mode="after")
    def _check(self) -> InfluxConfig:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        if self.api == "v1" and not self.database:
            raise ValueError("api = 'v1' needs 'database'")
        if self.api == "v2" and not self.bucket:
            raise ValueError("api = 'v2' needs 'bucket'")
        if self.password is not None and self.username is None:
            raise ValueError("password given without username")
        if self.spool.segment_bytes > self.spool.max_bytes:
            raise ValueError("spool.segment_bytes cannot be larger than spool.max_bytes")
        return self

    async def check(self) -> str | None:
        """None if the server answers and the database/bucket is there, else what is wrong."""
        from fabricwatch.sinks.influxdb.writers import V1Writer, V2Writer

        writer = V1Writer(self) if self.api == "v1" else V2Writer(self)
        try:
            return await writer.check()
        finally:
            await writer.close()

    def build(self) -> InfluxSink:
        # imported when built: a collector worker reads this section and never writes (aiohttp)
        from fabricwatch.sinks.influxdb.sink import InfluxSink

        return InfluxSink(self)
