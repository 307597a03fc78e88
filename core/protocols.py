"""The contracts between the layers: what the runtime may expect of a collector, a storage sink and
an event sink. Implementations do not inherit from these; they only have to fit them (mypy checks)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol, runtime_checkable

from prometheus_client.registry import Collector as MetricsCollector

from fabricwatch.core.backoff import Backoff
from fabricwatch.core.batch import SampleBatch
from fabricwatch.core.neighbours import Neighbour
from fabricwatch.core.problems import Problem
from fabricwatch.core.supervise import Supervised


class TargetSettings(Protocol):
    """The part of a collector's config section the runtime reads."""

    @property
    def name(self) -> str: ...

    @property
    def backoff(self) -> Backoff: ...


class Collector(Protocol):
    """One target: `async with` it (connect / close), then iterate `stream()`, one batch a poll or
    a stream message. A failure raises `TargetError`; the runtime counts it, backs off and retries."""

    @property
    def kind(self) -> str: ...  # the registry name: "gnmi", "snmp", ...

    @property
    def key(self) -> str: ...  # unique per target: "<kind>:<section name>:<device>"

    @property
    def device(self) -> str: ...  # the target's name (what `shard` hashes), not its samples' devices

    @property
    def address(self) -> str: ...

    @property
    def cfg(self) -> TargetSettings: ...

    def fingerprint(self) -> str:
        """Changes when anything that affects the session changes (what SIGHUP compares)."""
        ...

    async def __aenter__(self) -> object: ...

    async def __aexit__(self, *exc: object) -> None: ...

    def stream(self) -> AsyncIterator[SampleBatch]: ...

    def activity(self) -> dict[str, float]:
        """Cumulative counts of the collector's own work (polls, requests, garbage datagrams...)."""
        ...


@runtime_checkable
class Describes(Protocol):
    """A collector that can say, after a poll, what it found (the profile it chose and why, how
    many interfaces, what it cannot give): `fabricwatch check` prints it."""

    def describe(self) -> str: ...


@runtime_checkable
class ReadsNeighbours(Protocol):
    """A collector that can read its device's LLDP neighbours (topology discovery), in a session of
    its own: what it found, and what it could not tell."""

    @property
    def kind(self) -> str: ...

    @property
    def device(self) -> str: ...

    async def neighbours(self) -> tuple[list[Neighbour], list[Problem]]: ...


class Sink(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def name(self) -> str: ...

    async def start(self) -> None: ...

    async def check(self) -> str | None:
        """None when the destination answers and is usable, else what is wrong (`fabricwatch check`)."""
        ...

    async def close(self) -> None:
        """Flush what can be flushed; whatever must stay behind is kept (spool) or counted."""
        ...


class StorageSink(Sink, Protocol):
    """Takes line protocol; never loses it silently (spool, counted drops)."""

    async def write(self, lines: list[str]) -> None: ...

    @property
    def tasks(self) -> Sequence[Supervised]:
        """The sink's background tasks (sender, flusher), supervised: /readyz and /metrics read them."""
        ...

    @property
    def queue_depth(self) -> int:
        """Points accepted but not yet stored (memory and spool)."""
        ...

    @classmethod
    def metrics(cls, sinks: Sequence[Any]) -> MetricsCollector:
        """The self-metrics of every sink of this kind, as one prometheus_client Collector."""
        ...


class EventSink(Sink, Protocol):
    """Takes events (findings, link state, collector state, NCCL runs); never blocks the caller."""

    def event(self, kind: str, payload: dict[str, Any]) -> None: ...

    @classmethod
    def metrics(cls, sinks: Sequence[Any]) -> MetricsCollector: ...


class CollectorConfig(Protocol):
    """A `[[collectors.<kind>]]` section: the config is the factory of its targets."""

    def build(self) -> Sequence[Collector]: ...


class StorageSinkConfig(Protocol):
    def build(self) -> StorageSink: ...


class EventSinkConfig(Protocol):
    def build(self) -> EventSink: ...
