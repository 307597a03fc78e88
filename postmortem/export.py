"""`fabricwatch export`: stored `port_counters` back out as line protocol, in time chunks (a day of a
big fabric never sits in memory), each field written with the type it is stored with, in time order
(as `replay` and `train` read: InfluxDB answers a chunk series by series, so the series of a chunk
are merged by time)."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from typing import Any

from fabricwatch.core.lineprotocol import line, tag_prefix
from fabricwatch.postmortem.store import Store, Window, quote

CHUNK_NS = 600 * 1_000_000_000  # ten minutes of a 10k-port fabric at 30 s: ~200k points per answer


def field_types(store: Store, measurement: str) -> dict[str, str]:
    return {str(v[0]): str(v[1]) for _, _, values in store.series(f"SHOW FIELD KEYS FROM {quote(measurement)}")
            for v in values}


def _typed(value: object, kind: str) -> object:
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def export_lines(store: Store, window: Window, *, measurement: str = "port_counters", chunk_ns: int = CHUNK_NS,
                 progress: Callable[[int, int], None] | None = None) -> Iterator[str]:
    """Line protocol for every point of `measurement` in the window, oldest chunk first."""
    types = field_types(store, measurement)
    chunks = list(window.chunks(chunk_ns))
    prefixes: dict[tuple[tuple[str, str], ...], str] = {}
    def points(prefix: str, names: list[str], values: list[list[Any]]) -> Iterator[tuple[int, str]]:
        for raw in values:
            fields = {c: _typed(v, types.get(c, "")) for c, v in zip(names, raw[1:], strict=True) if v is not None}
            ts = int(raw[0])
            text = line(prefix, fields, ts)
            if text:
                yield ts, text

    for n, part in enumerate(chunks):
        series = []
        for tags, columns, values in store.series(f"SELECT * FROM {quote(measurement)} WHERE {part.where} GROUP BY *"):
            key = tuple(sorted((k, v) for k, v in tags.items() if v))
            prefix = prefixes.get(key)
            if prefix is None:
                prefix = prefixes[key] = tag_prefix(measurement, dict(key))
            series.append(points(prefix, columns[1:], values))
        for _, text in heapq.merge(*series, key=lambda p: p[0]):
            yield text
        if progress is not None:
            progress(n + 1, len(chunks))
