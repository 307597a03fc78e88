"""The sinks as one: line protocol to every storage sink, events to every event sink."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabricwatch.core.protocols import EventSink, StorageSink
from fabricwatch.core.supervise import Supervised


class Outputs:
    def __init__(self, storage: list[StorageSink], events: list[EventSink]) -> None:
        self.storage = storage
        self.events = events

    async def start(self) -> None:
        for sink in [*self.storage, *self.events]:
            await sink.start()

    async def close(self) -> None:
        """Flush every sink (each keeps or counts what it cannot send)."""
        for sink in [*self.storage, *self.events]:
            await sink.close()

    async def write(self, lines: list[str]) -> None:
        for sink in self.storage:
            await sink.write(lines)

    def emit(self, kind: str, payload: dict[str, Any]) -> None:
        """An event for the event sinks (MQTT); never blocks, never fails the caller."""
        for sink in self.events:
            sink.event(kind, payload)

    def tasks(self) -> Iterator[Supervised]:
        """The storage sinks' own supervised tasks (sender, flusher)."""
        return (t for sink in self.storage for t in sink.tasks)
