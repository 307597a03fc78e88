"""port_rates lines -> a snappy-compressed WriteRequest: one series per (counter, port), topology labels only.

Cardinality is bounded by construction: a series is a canonical cumulative counter's rate (core/counters.py,
never a gauge, a flag or a name a device made up) on a port, labelled with the port's topology tags and
nothing else (no speed, no kind, no value-bearing tag), so a fabric of P ports makes at most P x counters
series, whatever its devices send.
"""

from __future__ import annotations

from collections.abc import Iterable

import cramjam

from fabricwatch.core.counters import COUNTERS, Kind
from fabricwatch.core.lineprotocol import LineProtocolError, parse_line
from fabricwatch.sinks.prometheus_remote_write.proto import TimeSeries, WriteRequest

MEASUREMENT = "port_rates"
LINE_PREFIX = MEASUREMENT + ","  # every port_rates line has tags (device, port)
TOPOLOGY_LABELS = ("device", "port", "fabric", "role", "rail", "peer_device", "peer_port")
RATED = tuple(c.name for c in COUNTERS.values() if c.kind is Kind.COUNTER)
_NUMBER = (int, float)  # not bool (a flag such as <counter>_saturated), not str
MAX_CACHED_PORTS = 500_000  # serialized label sets kept between batches; beyond, the cache starts again


def metric_name(prefix: str, counter: str) -> str:
    """'fabricwatch_port_' + 'pfc_rx_p3' -> 'fabricwatch_port_pfc_rx_p3_per_second'."""
    return f"{prefix}{counter}_per_second"


class Encoder:
    """Turns the port_rates lines of a spooled batch into a WriteRequest (and its sample count)."""

    def __init__(self, prefix: str, labels: Iterable[str], counters: Iterable[str]) -> None:
        self.labels = tuple(sorted(labels))  # sorted once: every series' labels go out in name order
        self.names = {c: metric_name(prefix, c) for c in counters}
        # a series' labels, serialized once and merged into each batch's TimeSeries: building 8 Label
        # messages a series in Python cost 3x the rest of the encoding together
        self._name_labels = {c: TimeSeries(labels=[{"name": "__name__", "value": n}]).SerializeToString()
                             for c, n in self.names.items()}
        self._port_labels: dict[tuple[str, ...], bytes] = {}

    def _labels(self, values: tuple[str, ...]) -> bytes:
        """A port's topology labels as a serialized TimeSeries (labels only); an empty value is no label."""
        cached = self._port_labels.get(values)
        if cached is None:
            if len(self._port_labels) >= MAX_CACHED_PORTS:
                self._port_labels.clear()
            cached = TimeSeries(labels=[{"name": k, "value": v} for k, v in zip(self.labels, values, strict=True)
                                        if v]).SerializeToString()
            self._port_labels[values] = cached
        return cached

    def request(self, payload: bytes) -> tuple[bytes, int, int]:
        """The compressed body, its sample count, and how many lines could not be read (left out)."""
        ports: dict[tuple[str, ...], list[tuple[int, dict[str, object]]]] = {}
        labels = self.labels
        unreadable = 0
        prefix = LINE_PREFIX.encode()
        for raw in payload.split(b"\n"):
            if not raw.startswith(prefix):
                continue
            try:
                _, tags, fields, ts = parse_line(raw.decode())
            except (LineProtocolError, UnicodeDecodeError):
                unreadable += 1
                continue
            if ts is None:
                unreadable += 1
                continue
            ports.setdefault(tuple(tags.get(k, "") for k in labels), []).append((ts // 1_000_000, fields))
        req = WriteRequest()
        add = req.timeseries.add
        samples = 0
        for values, rows in ports.items():
            port = self._labels(values)
            for name, points in self._series(rows):
                ts_msg = add()
                # merging serialized messages appends their repeated fields: __name__, then the port's labels
                ts_msg.MergeFromString(name + port)
                for ms, value in points:
                    ts_msg.samples.add(value=value, timestamp=ms)
                samples += len(points)
        return bytes(cramjam.snappy.compress_raw(req.SerializeToString())), samples, unreadable

    def _series(self, rows: list[tuple[int, dict[str, object]]]) -> list[tuple[bytes, list[tuple[int, object]]]]:
        """A port's lines as (serialized __name__ label, samples oldest first), one per counter it has a rate of."""
        names = self._name_labels
        if len(rows) == 1:  # the usual batch: one interval of each port
            ms, fields = rows[0]
            return [(names[f], [(ms, v)]) for f, v in fields.items() if f in names and type(v) in _NUMBER]
        rows.sort(key=lambda row: row[0])  # a batch holding two intervals of a port: its samples go oldest first
        series: dict[bytes, list[tuple[int, object]]] = {}
        for ms, fields in rows:
            for f, v in fields.items():
                if f in names and type(v) in _NUMBER:
                    series.setdefault(names[f], []).append((ms, v))
        return list(series.items())
