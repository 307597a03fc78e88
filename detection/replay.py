"""Recorded `port_counters` line protocol -> rates -> per-link intervals (offline pipeline)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from fabricwatch.core.batch import PortSample
from fabricwatch.core.counters import COUNTERS, OPTICS, PART, lane, whole
from fabricwatch.core.lineprotocol import LineProtocolError, parse_line
from fabricwatch.core.name_words import named_by
from fabricwatch.core.names import canonical_fields, numeric_fields
from fabricwatch.detection.nic_names import DIRECT, JOINED, NicNames
from fabricwatch.detection.recorded_shapes import FIRST_LANE, RecordedShapes
from fabricwatch.detection.sensor_rows import sensor_reading
from fabricwatch.detection.series_names import PortSeries, link_tags, port_of, queue_of, why_no_port
from fabricwatch.detection.site_tags import site_tags
from fabricwatch.detection.transceiver_ports import is_component, module_port
from fabricwatch.detection.unsent_fields import UnsentSamples
from fabricwatch.detection.wiring import Wiring
from fabricwatch.models.intervals import IntervalAggregator, LinkInterval
from fabricwatch.pipeline.rates import RateEngine, covered_s, detector_view, first_readings

log = logging.getLogger("fabricwatch.replay")


@dataclass
class ReadReport:
    lines: int = 0
    samples: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)
    # fields of the samples that are no counter of the vocabulary (core/counters.py), with how many samples
    # carried each: read past, and named so that what was left out is known
    unread_fields: dict[str, int] = field(default_factory=dict)


_VOCABULARY = frozenset(COUNTERS)


def read_samples(paths: Iterable[Path], report: ReadReport, max_gap_s: float = 300.0) -> Iterator[PortSample]:
    """PortSamples from the lines of a port's counters (`series_names.py`) and of its module's sensors
    (`sensor_rows.py`); other series are skipped, bad lines reported."""
    heard: set[tuple[str, str]] = set()
    ports: dict[str, list[str]] = {}  # device -> its ports heard, in the order first heard
    modules: dict[tuple[str, str], str] = {}  # a transceiver component -> the port it sits in
    wholes: dict[tuple[str, str], set[str]] = {}  # per link, the counters a series has sent it whole
    shapes = RecordedShapes()
    nics = NicNames()
    unsent = UnsentSamples(max_gap_s)
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                report.lines += 1
                if not line.strip() or line.startswith("#"):
                    continue
                try:
                    measurement, tags, fields, ts = parse_line(line)
                except LineProtocolError as exc:
                    report.skipped += 1
                    if len(report.errors) < 20:
                        report.errors.append(f"{path}:{lineno}: {exc}")
                    continue
                series = port_of(measurement, tags)
                if series is None and ts is not None and (reading := sensor_reading(
                        measurement, tags, fields, lambda device, port: (device, port) in heard)):
                    series = port_of(measurement, reading[0])
                    tags, fields = reading[0], dict(reading[1])
                if series is None or ts is None:
                    report.skipped += 1
                    continue
                if (series.device, series.port) not in heard:
                    key = (series.device, series.port)
                    fed = modules.get(key) or module_port(series.port, ports.get(series.device, ()))
                    if fed is None and is_component(series.port):
                        report.skipped += 1  # a module heard before its port
                        continue
                    if fed is not None:
                        modules[key] = fed
                        series = PortSeries(series.device, fed, series.naming)
                link_said, lane_said = shapes.lane(measurement, series.device, tags)
                nics.learn(series, tags)
                source = DIRECT
                if (joined := nics.joined(series)) is not None:
                    series, source = joined, JOINED
                # numbers only, unless a bool or string field is there (rare): then a filtered copy
                values = cast(dict[str, float], fields)
                if not all(type(v) is int or type(v) is float for v in fields.values()):
                    values = numeric_fields(fields)
                widths: dict[str, int] = {}
                if queue := queue_of(series, tags):
                    values = shapes.queue_parts(queue, values)
                if not _VOCABULARY.issuperset(values):  # a recording by another tool: its own spellings
                    values = {named_by(measurement, k): v for k, v in values.items()}
                    values = canonical_fields(values, widths)
                if lane_said > 1:
                    values = {lane(k[:-len(FIRST_LANE)], lane_said) if k.endswith(FIRST_LANE) and k in OPTICS else k: v
                              for k, v in values.items()}
                # a part of a counter (one queue's) is not read once a series has sent the counter whole
                link_wholes = wholes.setdefault((series.device, series.port), set())
                if any(PART in k for k in values):
                    values = {k: v for k, v in values.items() if PART not in k or whole(k) not in link_wholes}
                link_wholes.update(k for k in values if PART not in k and k in COUNTERS)
                # a writer keeps a series' tags in one order (InfluxDB's and Telegraf's: sorted)
                values = unsent.fill((measurement, *tags.items()), ts, values)
                if nics.joins((series.device, series.port)):
                    values = nics.read_here((series.device, series.port), values, source)
                if _VOCABULARY.isdisjoint(values) and not any(whole(n) in _VOCABULARY for n in values):
                    # nothing we read is no moment of the port's (an info series: `rdma_netdev_info`); its tags
                    # still tell the wiring (a topology series: ibnetdiscover's)
                    report.skipped += 1
                    yield PortSample(series.device, series.port, ts, {}, site_tags(link_tags(series, link_said)), None)
                    continue
                if (series.device, series.port) not in heard:
                    heard.add((series.device, series.port))
                    ports.setdefault(series.device, []).append(series.port)
                report.samples += 1
                extra = site_tags(link_tags(series, link_said))
                yield PortSample(series.device, series.port, ts, values, extra, None, widths or None)


def why_not_a_sample(paths: Iterable[Path]) -> str:
    """The first line that is no port's sample, where and why: said when none was read."""
    names = []
    for path in paths:
        names.append(str(path))
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip() or line.startswith("#"):
                    continue
                try:
                    measurement, tags, fields, ts = parse_line(line)
                except LineProtocolError as exc:
                    return f"{path}:{lineno}: {exc}"
                if port_of(measurement, tags) is None:
                    return f"{path}:{lineno}: {why_no_port(measurement, tags)}"
                if ts is None:
                    return f"{path}:{lineno}: no timestamp"
                if not any(isinstance(v, int | float) and not isinstance(v, bool) for v in fields.values()):
                    return f"{path}:{lineno}: no numeric field"
    return f"{', '.join(names)}: no lines"


def intervals_from_lp(
    paths: Iterable[Path], interval_s: float = 30.0, *, report: ReadReport | None = None,
    max_gap_s: float = 300.0,
) -> list[tuple[int, list[LinkInterval]]]:
    """Run the rate engine over recorded counters (sorted by time) and fold into intervals."""
    report = report or ReadReport()
    return intervals_from_samples(read_samples(paths, report, max_gap_s), interval_s, max_gap_s)


def intervals_from_samples(samples: Iterable[PortSample], interval_s: float = 30.0,
                           max_gap_s: float = 300.0) -> list[tuple[int, list[LinkInterval]]]:
    """Rate engine + interval folding over samples in any order (they are sorted first)."""
    engine = RateEngine(max_gap_s)
    agg = IntervalAggregator(interval_s)
    # a port's far end and role as the wiring settles them from every series heard (a topology measurement's
    # too, which counts nothing), as the column reader does (its intervals are all here)
    wiring = Wiring()
    for s in sorted(samples, key=lambda s: s.ts_ns):
        wiring.learn(s.device, s.port, s.tags)
        result = engine.process(s)
        if result is None:
            continue
        view = detector_view(s, result) if not result.first else {}
        first = first_readings(s, result) if result.first else None
        if not view and not result.new_names and not first:
            continue
        agg.add(s.device, s.port, s.ts_ns, view, s.tags, result.saturated, dt_s=covered_s(result),
                span_ns=result.span_ns, spans_ns=result.spans_ns, new_names=result.new_names, first=first)
    out = agg.flush()
    for _, links in out:
        for li in links:
            li.tags = wiring.settled(li.device, li.port, li.tags)
    return out
