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
        self._name_labels = {n: TimeSeries(labels=[{"name": "__name__", "value": n}]).SerializeToString()
                             for n in self.names.values()}
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
        series: dict[tuple[str, tuple[str, ...]], list[tuple[int, float]]] = {}
        names, labels = self.names, self.labels
        unreadable = 0
        for raw in payload.split(b"\n"):
            if not raw.startswith(LINE_PREFIX.encode()):
                continue
            try:
                _, tags, fields, ts = parse_line(raw.decode())
            except (LineProtocolError, UnicodeDecodeError):
                unreadable += 1
                continue
            if ts is None:
                unreadable += 1
                continue
            ms = ts // 1_000_000
            values = tuple(tags.get(k, "") for k in labels)
            for field, value in fields.items():
                name = names.get(field)
                if name is None or isinstance(value, bool) or not isinstance(value, int | float):
                    continue
                series.setdefault((name, values), []).append((ms, float(value)))
        req = WriteRequest()
        samples = 0
        name_labels = self._name_labels
        for (name, values), points in series.items():
            ts_msg = req.timeseries.add()
            # merging serialized messages appends their repeated fields: __name__, then the port's labels
            ts_msg.MergeFromString(name_labels[name] + self._labels(values))
            points.sort()  # a batch may hold two intervals of a port: a series' samples go oldest first
            for ms, value in points:
                ts_msg.samples.add(value=value, timestamp=ms)
            samples += len(points)
        return bytes(cramjam.snappy.compress_raw(req.SerializeToString())), samples, unreadable
