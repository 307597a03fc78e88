"""Load and validate the TOML config; every error names the file and the key path."""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, PrivateAttr, ValidationError, create_model, field_validator, model_validator

from fabricwatch.cluster.config import ClusterConfig
from fabricwatch.core.config_errors import ConfigError, format_errors
from fabricwatch.core.config_types import Address, Duration, PositiveDuration, StrictModel, check_order
from fabricwatch.core.event_loop import EventLoop
from fabricwatch.core.protocols import CollectorConfig, EventSinkConfig, StorageSinkConfig
from fabricwatch.daemon import registry
from fabricwatch.detection.config import DetectorConfig
from fabricwatch.nccl.config import NcclSection
from fabricwatch.pipeline.pipeline import MAX_PORTS_PER_DEVICE
from fabricwatch.slurm.config import SlurmConfig

__all__ = ["Config", "ConfigError", "load", "parse"]

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?|\[?[0-9A-Fa-f:.]+\]?")


class DaemonSection(StrictModel):
    listen: Address = "127.0.0.1:9465"
    shard: str = "1/1"
    log_level: str = "info"
    site: str = "default"
    # a JSON list of ports with role/peer/rail tags, or "discover": LLDP over SNMP, every topology_every
    topology: Literal["discover"] | Path | None = None
    topology_every: Duration = 600.0
    # collector worker processes: 1 runs the targets in the daemon's own process; "auto" one per core
    workers: Literal["auto"] | int = 1
    # a worker says it is alive every worker_heartbeat; one silent for worker_timeout (stopped, hung in
    # a library call) is killed and started again, and its targets are marked down at once
    worker_heartbeat: PositiveDuration = 1.0
    worker_timeout: PositiveDuration = 15.0
    # a target whose newest data is older than this is stale: /readyz lists it and ?require=all fails
    stale_after: PositiveDuration = 300.0
    # uvloop: gRPC's receive costs ~7-15% less CPU a message than on asyncio's loop (bench/fabric_scale.py)
    event_loop: EventLoop = "uvloop"
    # names (beside the listen address, localhost and loopback addresses) a request may carry in Host:
    # anything else is refused, so a page whose name is re-pointed at this machine (DNS rebinding) reads nothing
    allowed_hosts: list[str] = Field(default_factory=list)
    # a client has this long to send a request's headers (from connecting, or from its last response)
    # and this long to send its body; beyond http_max_connections a new connection is closed at once
    http_header_timeout: Duration = 10.0
    http_body_timeout: Duration = 60.0
    http_max_connections: int = Field(1024, ge=4, le=60_000)
    # /api/findings?from=: a stored query's total deadline (504 beyond) and how many run at once (503 beyond)
    query_timeout: PositiveDuration = 30.0
    max_queries: int = Field(2, ge=1, le=32)

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, v: list[str]) -> list[str]:
        for name in v:
            if not _HOST_NAME.fullmatch(name):
                raise ValueError(f"{name!r}: give a host name as clients write it, without scheme or port, "
                                 "e.g. 'fabricwatch.example' or '10.0.0.5'")
        return [n.lower().rstrip(".") for n in v]

    @field_validator("shard")
    @classmethod
    def _shard(cls, v: str) -> str:
        m = re.fullmatch(r"(\d+)/(\d+)", v)
        if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
            raise ValueError("shard must be 'k/N' with 1 <= k <= N, e.g. '2/4'")
        return v

    @field_validator("log_level")
    @classmethod
    def _level(cls, v: str) -> str:
        if v.lower() not in {"debug", "info", "warning", "error"}:
            raise ValueError("log_level must be one of debug, info, warning, error")
        return v.lower()

    @field_validator("workers")
    @classmethod
    def _workers(cls, v: Literal["auto"] | int) -> Literal["auto"] | int:
        if v != "auto" and not 1 <= v <= 256:
            raise ValueError('workers must be "auto" or 1 to 256')
        return v

    @model_validator(mode="after")
    def _heartbeat(self) -> DaemonSection:
        if self.worker_timeout < 2 * self.worker_heartbeat:
            raise ValueError("worker_timeout must be at least twice worker_heartbeat")
        return self

    @property
    def worker_count(self) -> int:
        return (os.cpu_count() or 1) if self.workers == "auto" else int(self.workers)

    @property
    def shard_k_n(self) -> tuple[int, int]:
        k, n = self.shard.split("/")
        return int(k), int(n)


class PipelineSection(StrictModel):
    # a sample further than this from the previous one gives no rate (a gap, not a spike)
    max_gap: Duration = 300.0
    # a port no target has reported for this long is forgotten (removed, or renamed by a breakout)
    forget_after: Duration = 3600.0
    # how far back the link page plots each link, kept in memory (~1.4 KB per port at the defaults;
    # 0 keeps none), and the width of one plotted step
    history: Duration = 3600.0
    history_step: Duration = 60.0
    # the most ports kept for one device: a device naming more (a firmware bug, a key that carries a
    # counter) has the samples of its further ports dropped and counted, not the daemon's memory grown
    max_ports_per_device: int = Field(default=MAX_PORTS_PER_DEVICE, ge=1)

    @model_validator(mode="after")
    def _order(self) -> PipelineSection:
        check_order(self, "max_gap", "forget_after")
        if self.history and not 1 <= self.history / self.history_step <= 1440:
            raise ValueError("history must be 1 to 1440 steps of history_step")
        return self


def _section(name: str, table: dict[str, type]) -> Any:
    """A model with one list field per registry entry: [[collectors.gnmi]], [[sinks.influxdb]]..."""
    fields: dict[str, Any] = {
        kind: (list[cls], Field(default_factory=list))  # type: ignore[valid-type]
        for kind, cls in table.items()
    }
    return create_model(name, __base__=StrictModel, **fields)


CollectorsSection = _section("CollectorsSection", registry.COLLECTORS)
SinksSection = _section("SinksSection", registry.SINKS)


class Config(StrictModel):
    daemon: DaemonSection = DaemonSection()
    pipeline: PipelineSection = PipelineSection()
    detector: DetectorConfig = DetectorConfig()
    nccl: NcclSection = NcclSection()
    cluster: ClusterConfig = Field(default_factory=ClusterConfig)
    slurm: SlurmConfig = Field(default_factory=SlurmConfig)
    collectors: CollectorsSection = Field(default_factory=CollectorsSection)  # type: ignore[valid-type]
    sinks: SinksSection = Field(default_factory=SinksSection)  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _exposed_writes_need_a_token(self) -> Config:
        if self.nccl.upload and self.nccl.upload_token is None and not is_loopback(self.daemon.listen):
            raise ValueError(
                f"nccl.upload_token: required when daemon.listen ({self.daemon.listen}) is not a loopback "
                "address, or anyone who reaches it can write NCCL results; or set nccl.upload = false")
        return self

    @model_validator(mode="after")
    def _one_way_to_share(self) -> Config:
        if self.cluster.enabled and self.daemon.shard != "1/1":
            raise ValueError("daemon.shard: a cluster on etcd shares the targets itself; leave shard at '1/1' "
                             "(or remove cluster.etcd to keep the static shard)")
        return self

    # what it was parsed from (plain TOML data) and where: a worker process is handed the running config
    _source: tuple[dict[str, Any], str] = PrivateAttr(default=({}, "<config>"))

    @property
    def source(self) -> tuple[dict[str, Any], str]:
        """The data this config was parsed from and its name (the file), as `parse` takes them."""
        return self._source

    def collector_configs(self) -> list[tuple[str, CollectorConfig]]:
        return [(kind, c) for kind in registry.COLLECTORS for c in getattr(self.collectors, kind)]

    def sink_configs(self) -> list[tuple[str, Any]]:
        return [(kind, s) for kind in registry.SINKS for s in getattr(self.sinks, kind)]

    def storage_sink_configs(self) -> list[StorageSinkConfig]:
        """Sinks that take line protocol (and spool it)."""
        return [s for kind in registry.STORAGE_SINKS for s in getattr(self.sinks, kind)]

    def event_sink_configs(self) -> list[EventSinkConfig]:
        """Sinks that take events (MQTT)."""
        return [s for kind in registry.EVENT_SINKS for s in getattr(self.sinks, kind)]


def is_loopback(listen: str) -> bool:
    host = listen.rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere


def parse(data: dict[str, Any], source: str = "<config>") -> Config:
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_errors(source, exc)) from None
    config._source = (data, source)
    return config


def load(path: str | Path) -> Config:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse(data, str(path))
