"""The history in VictoriaMetrics, through its own query API (MetricsQL and raw export), for a daemon
whose InfluxDB sink writes to VictoriaMetrics (it answers PromQL, not InfluxQL).

VictoriaMetrics keeps what the daemon writes as one series per measurement and numeric field
(`port_rates_pause_rx{device=..,port=..,...}`) in milliseconds; string fields are not stored, so a
finding read from it has no explanation, a link event no detail (it is there through its `count`
field), a port no module inventory, and an NCCL run no hosts (give `--hosts`). Windows are the same as
InfluxDB's: from `--from` included to `--to` excluded (an instant query at `--to` minus 1 ms looking
back over the window); VictoriaMetrics hides points newer than its `-search.latencyOffset` (30 s by
default) from queries.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from fabricwatch.core.lineprotocol import stored_name
from fabricwatch.core.promql import PromQL
from fabricwatch.postmortem.history import Bucket, Measured
from fabricwatch.postmortem.incidents import Flagged, StoredJobs
from fabricwatch.postmortem.store import Window

_HIDDEN = frozenset({"__name__", "db"})  # the metric name, and the database VictoriaMetrics adds as a label
SeriesKey = tuple[tuple[str, str], ...]


def _label(value: str) -> str:
    """A label value in double quotes, as storage keeps it (names come from devices)."""
    return '"' + stored_name(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _selector(names: list[str], **labels: str | None) -> str:
    alternatives = "|".join(re.escape(n) for n in names)
    parts = [f"__name__=~{_label(alternatives)}"] + [f"{k}={_label(v)}" for k, v in labels.items() if v]
    return "{" + ",".join(parts) + "}"


def _tags(metric: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in metric.items() if k not in _HIDDEN}


def _lookback(window: Window) -> tuple[float, str]:
    """(the instant, the lookbehind) that cover [start, end) in milliseconds."""
    span_ms = max(1, (window.end_ns - window.start_ns) // 1_000_000)
    return (window.end_ns // 1_000_000 - 1) / 1000.0, f"{span_ms}ms"


class VictoriaHistory:
    kind = "VictoriaMetrics"

    def __init__(self, vm: PromQL) -> None:
        self.vm = vm

    def _samples(self, window: Window, names: list[str], **labels: str | None,
                 ) -> Iterator[tuple[str, dict[str, str], list[tuple[int, Any]]]]:
        """Raw samples in the window: (metric name, tags, [(time_ns, value), ...]) per series."""
        start_s, end_s = window.start_ns / 1e9, (window.end_ns // 1_000_000 - 1) / 1000.0
        for series in self.vm.export(_selector(names, **labels), start_s, end_s):
            metric = series.get("metric") or {}
            pairs = ((int(t) * 1_000_000, v) for t, v in zip(series.get("timestamps") or [],
                                                             series.get("values") or [], strict=False))
            yield str(metric.get("__name__", "")), _tags(metric), [
                (t, v) for t, v in pairs if window.start_ns <= t < window.end_ns]

    def rate_fields(self) -> list[str]:
        prefix = "port_rates_"
        return sorted(n[len(prefix):] for n in self.vm.names('{__name__=~"port_rates_.+"}')
                      if not n.endswith("_saturated"))

    def summaries(self, window: Window, measurement: str, names: list[str], *,
                  device: str | None = None) -> list[Measured]:
        at, span = _lookback(window)
        sel = _selector([f"{measurement}_{n}" for n in names], device=device)
        per_series: dict[SeriesKey, Measured] = {}
        for fn, mean in (("avg_over_time", True), ("max_over_time", False)):
            for item in self.vm.query(f"{fn}({sel}[{span}]) keep_metric_names", at):
                metric = item.get("metric") or {}
                field = str(metric.get("__name__", ""))[len(measurement) + 1:]
                tags = _tags(metric)
                entry = per_series.setdefault(tuple(sorted(tags.items())), (tags, {}, {}))
                (entry[1] if mean else entry[2])[field] = float(item["value"][1])
        return list(per_series.values())

    def buckets(self, window: Window, step_s: int, names: list[str], *, device: str, port: str) -> list[Bucket]:
        step_ns = step_s * 1_000_000_000
        merged: dict[tuple[SeriesKey, int], Bucket] = {}
        for name, tags, samples in self._samples(window, [f"port_rates_{n}" for n in names],
                                                 device=device, port=port):
            field = name[len("port_rates_"):]
            key = tuple(sorted(tags.items()))
            for t, v in samples:
                bucket = t - t % step_ns
                row = merged.setdefault((key, bucket), (tags, bucket, {}))[2]
                row[field] = max(row.get(field, float(v)), float(v))
        return sorted(merged.values(), key=lambda b: b[1])

    def events(self, window: Window, device: str, port: str | None = None) -> list[dict[str, Any]]:
        out = [{"time_ns": t, "device": tags.get("device", ""), "port": tags.get("port", ""),
                "kind": tags.get("kind", ""), "detail": "", "source": tags.get("source", "")}
               for _, tags, samples in self._samples(window, ["link_events_count"], device=device, port=port)
               for t, _ in samples]
        return sorted(out, key=lambda e: (e["time_ns"], e["device"], e["port"], e["kind"]))

    def flagged(self, window: Window, *, device: str | None = None, port: str | None = None) -> list[Flagged]:
        flagged: dict[SeriesKey, set[int]] = defaultdict(set)
        tags_of: dict[SeriesKey, dict[str, str]] = {}
        for _, tags, samples in self._samples(window, ["link_anomaly_flagged"], device=device, port=port):
            key = tuple(sorted(tags.items()))
            tags_of[key] = tags
            flagged[key].update(t for t, v in samples if v)
        return [Flagged(tags_of[key], sorted(times), [""] * len(times), [""] * len(times))
                for key, times in flagged.items()]

    def jobs(self, window: Window, *, device: str | None = None, port: str | None = None) -> list[StoredJobs]:
        # VictoriaMetrics keeps numbers only: the count, never the ids
        out: list[StoredJobs] = [
            (tags.get("device", ""), tags.get("port", ""), t, int(v), [])
            for _, tags, samples in self._samples(window, ["link_anomaly_jobs_jobs_total"], device=device, port=port)
            for t, v in samples]
        return sorted(out, key=lambda p: p[2])

    def scored(self, window: Window, *, device: str | None = None,
               port: str | None = None) -> dict[tuple[str, str], int]:
        out: dict[tuple[str, str], int] = {}
        for _, tags, samples in self._samples(window, ["link_anomaly_flagged"], device=device, port=port):
            if samples:
                key = (tags.get("device", ""), tags.get("port", ""))
                out[key] = max(out.get(key, 0), max(t for t, _ in samples))
        return out

    def port_tags(self, window: Window) -> list[dict[str, str]]:
        at, span = _lookback(window)
        seen: dict[tuple[str, str], dict[str, str]] = {}
        for item in self.vm.query(f"last_over_time(port_rates_in_octets[{span}])", at):
            tags = _tags(item.get("metric") or {})
            if tags.get("device") and tags.get("port"):
                seen.setdefault((tags["device"], tags["port"]), tags)
        return list(seen.values())

    def run(self, run: str) -> tuple[list[str], int, str]:
        raise LookupError(f"VictoriaMetrics keeps no strings, so not the hosts of NCCL run {run!r}: "
                          "give --hosts H1,H2 with --from/--to")

    def modules(self, keys: set[tuple[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
        return {}  # vendor, part and serial are strings: not kept
