"""Where the history is, and reading it: InfluxQL over HTTP (InfluxDB 1.x, 2.x through its DBRP
mapping, 3.x), the same client as train, replay and blame."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fabricwatch.core.influxql import InfluxQL
from fabricwatch.core.lineprotocol import stored_name
from fabricwatch.core.secrets import reveal
from fabricwatch.sinks.influxdb.config import InfluxConfig


def quote(name: str) -> str:
    """An identifier in double quotes (measurement, tag or field names), as storage keeps it."""
    return '"' + stored_name(name).replace("\\", "\\\\").replace('"', '\\"') + '"'


def literal(value: str) -> str:
    """A tag value in single quotes, as storage keeps it: device and port names come from devices."""
    return "'" + stored_name(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True, slots=True)
class Window:
    start_ns: int
    end_ns: int

    def __post_init__(self) -> None:
        if self.end_ns <= self.start_ns:
            raise ValueError("the window ends before it starts (--to must be after --from)")

    @property
    def where(self) -> str:
        return f"time >= {self.start_ns} AND time < {self.end_ns}"

    def chunks(self, step_ns: int) -> Iterator[Window]:
        """The window in pieces of at most `step_ns`, so that no answer holds a whole day."""
        lo = self.start_ns
        while lo < self.end_ns:
            hi = min(self.end_ns, lo + step_ns)
            yield Window(lo, hi)
            lo = hi


@dataclass(slots=True)
class Row:
    """One stored point as a query returns it: tags of its series and its columns."""

    time_ns: int
    tags: dict[str, str]
    values: dict[str, Any]


class Store:
    def __init__(self, db: InfluxQL) -> None:
        self.db = db

    def rows(self, q: str) -> Iterator[Row]:
        for series in self.db.query(q):
            tags = series.get("tags") or {}
            cols = series["columns"]
            for raw in series.get("values", []):
                yield Row(int(raw[0]), tags, {c: v for c, v in zip(cols[1:], raw[1:], strict=True) if v is not None})

    def series(self, q: str) -> Iterator[tuple[dict[str, str], list[str], list[list[Any]]]]:
        for series in self.db.query(q):
            yield series.get("tags") or {}, series["columns"], series.get("values", [])


def store_for(sink: InfluxConfig, *, timeout: float = 120.0) -> Store:
    """Read back what an InfluxDB sink writes: its URL, database and credentials. A v2 sink is read
    with InfluxQL through the DBRP mapping of its bucket (the `database` key names the mapping when
    it differs from the bucket's name)."""
    db = sink.database if sink.api == "v1" else (sink.database or sink.bucket)
    if not db:
        raise ValueError(f"sink {sink.name} names no database to read from")
    token = reveal(sink.token) if sink.api == "v2" else None
    auth = (sink.username, reveal(sink.password) or "") if sink.username and token is None else None
    return Store(InfluxQL(sink.url, db, auth=auth, token=token, timeout=timeout))
