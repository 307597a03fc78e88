"""What the HTTP layer reads of the daemon, each as the narrow protocol its handlers use: the runtime
itself is never handed to it, so the layer runs on its own against fakes (tests/unit/test_http_layer.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from aiohttp import web

from fabricwatch.core.batch import ModuleInfo
from fabricwatch.daemon.config import DaemonSection
from fabricwatch.detection.detector import Finding
from fabricwatch.pipeline.history import LinkHistory
from fabricwatch.pipeline.pipeline import PortRateView
from fabricwatch.sinks.influxdb.sink import InfluxSink

Port = tuple[str, str]  # (device, port)
Settings = Callable[[], DaemonSection]  # the [daemon] section now: SIGHUP replaces it


class Health(Protocol):
    """/healthz and /readyz: since when the daemon runs, and why it is not ready (None when it is)."""

    @property
    def started_unix(self) -> float: ...

    def not_ready(self) -> str | None: ...


class Exposition(Protocol):
    """/metrics: the self-metrics in Prometheus' text format."""

    def exposition(self) -> bytes: ...


class LastValues(Protocol):
    def last_value(self, key: Port, name: str) -> float | None: ...


class Links(Protocol):
    """The pipeline's latest view of every port: rates, raw states and the last hour."""

    @property
    def latest(self) -> Mapping[Port, PortRateView]: ...

    @property
    def rates(self) -> LastValues: ...

    @property
    def history(self) -> LinkHistory | None: ...

    @property
    def modules(self) -> Mapping[Port, ModuleInfo]: ...


class Findings(Protocol):
    """The detector as the page and /api/findings show it."""

    @property
    def mode(self) -> str: ...

    @property
    def intervals(self) -> int: ...

    @property
    def interval_s(self) -> float: ...

    @property
    def active(self) -> Mapping[Port, Finding]: ...

    @property
    def cleared(self) -> Sequence[dict[str, Any]]: ...

    def ranked_findings(self) -> list[Finding]: ...

    def finding_json(self, f: Finding) -> dict[str, Any]: ...


class Uploads(Protocol):
    """The NCCL service's routes (/api/nccl) and its count of uploads a guard refused."""

    def routes(self, app: web.Application) -> None: ...

    def refuse(self, source: str, reason: str, where: str, message: str) -> None: ...


class ClusterStatus(Protocol):
    """/api/cluster: the members and what each polls."""

    async def status(self) -> dict[str, Any]: ...


Storage = Sequence[InfluxSink]  # the InfluxDB sinks: stored findings are read from the first, the page shows each
