"""`query top` and `query findings` over VictoriaMetrics' own query API (MetricsQL), for a daemon
whose InfluxDB sink writes to VictoriaMetrics (it answers PromQL, not InfluxQL).

VictoriaMetrics keeps what the daemon writes as one series per measurement and numeric field
(`port_rates_pause_rx{device=..,port=..,...}`) in milliseconds; string fields are not stored, so a
finding read from it has no explanation. Windows are the same as InfluxDB's: from `--from`
included to `--to` excluded (an instant query at `--to` minus 1 ms looking back over the window);
VictoriaMetrics hides points newer than its `-search.latencyOffset` (30 s by default) from queries.
"""

from __future__ import annotations

import re
from collections import defaultdict

from fabricwatch.core.promql import PromQL
from fabricwatch.postmortem.incidents import Flagged, Incident, incidents
from fabricwatch.postmortem.queries import BER_FIELDS, TopLink, combine, fields_for, ranked
from fabricwatch.postmortem.store import Window

_HIDDEN = frozenset({"__name__", "db"})  # the metric name, and the database VictoriaMetrics adds as a label


def _label(value: str) -> str:
    """A label value in double quotes (names come from devices)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


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


def rate_fields(vm: PromQL) -> list[str]:
    prefix = "port_rates_"
    return sorted(n[len(prefix):] for n in vm.names('{__name__=~"port_rates_.+"}')
                  if not n.endswith("_saturated"))


def top(vm: PromQL, window: Window, counter: str, *, limit: int = 10, by: str | None = None,
        device: str | None = None) -> dict[str, list[TopLink]]:
    """What `queries.top` answers from InfluxDB, from VictoriaMetrics: mean and peak per link over the
    window, computed by the server (avg_over_time, max_over_time), worst first."""
    ber = counter == "ber"
    measurement = "port_counters" if ber else "port_rates"
    names = list(BER_FIELDS) if ber else fields_for(counter, rate_fields(vm))
    if not names:
        return {}
    at, span = _lookback(window)
    sel = _selector([f"{measurement}_{n}" for n in names], device=device)
    per_series: dict[tuple[tuple[str, str], ...], tuple[dict[str, float], dict[str, float], dict[str, str]]] = {}
    for fn, slot in (("avg_over_time", 0), ("max_over_time", 1)):
        for item in vm.query(f"{fn}({sel}[{span}]) keep_metric_names", at):
            metric = item.get("metric") or {}
            field = str(metric.get("__name__", ""))[len(measurement) + 1:]
            tags = _tags(metric)
            key = tuple(sorted(tags.items()))
            entry = per_series.setdefault(key, ({}, {}, tags))
            values: dict[str, float] = entry[0] if slot == 0 else entry[1]
            values[field] = float(item["value"][1])
    return ranked(((tags, combine(counter, means), combine(counter, peaks))
                   for means, peaks, tags in per_series.values()), limit=limit, by=by)


def findings(vm: PromQL, window: Window, *, device: str | None = None, port: str | None = None) -> list[Incident]:
    """The window's flagged `link_anomaly` points as incidents, as `queries.findings` makes them (no
    explanations: VictoriaMetrics keeps no strings)."""
    start_s = window.start_ns / 1e9
    end_s = (window.end_ns // 1_000_000 - 1) / 1000.0
    sel = _selector(["link_anomaly_flagged"], device=device, port=port)
    flagged: dict[tuple[tuple[str, str], ...], set[int]] = defaultdict(set)
    tags_of: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    for series in vm.export(sel, start_s, end_s):
        tags = _tags(series.get("metric") or {})
        key = tuple(sorted(tags.items()))
        tags_of[key] = tags
        pairs = zip(series.get("timestamps") or [], series.get("values") or [], strict=False)
        flagged[key].update(int(t) for t, v in pairs if v)
    parts = []
    for key, times in flagged.items():
        kept = sorted(t for t in times if window.start_ns <= t * 1_000_000 < window.end_ns)
        parts.append(Flagged(tags_of[key], [t * 1_000_000 for t in kept], [""] * len(kept), [""] * len(kept)))
    return incidents(parts, end_ns=window.end_ns)
