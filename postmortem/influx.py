"""The history in InfluxDB (1.x, 2.x through DBRP, 3.x): each question as one InfluxQL query."""

from __future__ import annotations

from typing import Any

from fabricwatch.postmortem.counter_rates import rates_from_counters
from fabricwatch.postmortem.history import Bucket, Measured
from fabricwatch.postmortem.incidents import Flagged, StoredJobs
from fabricwatch.postmortem.store import Store, Window, literal, quote


def where(window: Window, **tags: str | None) -> str:
    parts = [window.where] + [f"{quote(k)} = {literal(v)}" for k, v in tags.items() if v]
    return " AND ".join(parts)


class InfluxHistory:
    kind = "InfluxDB"

    def __init__(self, store: Store) -> None:
        self.store = store

    def rate_fields(self) -> list[str]:
        """The stored rates' names; with none stored, the counters' (their rates are computed: `buckets`)."""
        for measurement in ("port_rates", "port_counters"):
            q = f"SHOW FIELD KEYS FROM {quote(measurement)}"
            names = sorted({str(v[0]) for _, _, values in self.store.series(q)
                            for v in values if v and not str(v[0]).endswith("_saturated")})
            if names:
                return names
        return []

    def summaries(self, window: Window, measurement: str, names: list[str], *,
                  device: str | None = None) -> list[Measured]:
        cols = ", ".join(f"mean({quote(f)}) AS {quote('mean_' + f)}, max({quote(f)}) AS {quote('max_' + f)}"
                         for f in names)
        q = f"SELECT {cols} FROM {quote(measurement)} WHERE {where(window, device=device)} GROUP BY *"
        out = []
        for tags, columns, values in self.store.series(q):
            if not values:
                continue
            row = dict(zip(columns, values[0], strict=True))
            out.append((tags, {f: float(row[f"mean_{f}"]) for f in names if row.get(f"mean_{f}") is not None},
                        {f: float(row[f"max_{f}"]) for f in names if row.get(f"max_{f}") is not None}))
        return out

    def buckets(self, window: Window, step_s: int, names: list[str], *, device: str, port: str) -> list[Bucket]:
        """Stored rates; for a link with none stored in the window, rates computed from its counters."""
        cols = ", ".join(f"max({quote(f)}) AS {quote(f)}" for f in names)
        q = (f'SELECT {cols} FROM "port_rates" WHERE {where(window, device=device, port=port)} '
             f"GROUP BY time({step_s}s), * fill(none)")
        stored = [(tags, int(raw[0]), {c: float(v) for c, v in zip(columns[1:], raw[1:], strict=True)
                                       if v is not None})
                  for tags, columns, values in self.store.series(q) for raw in values]
        return stored or self._computed_buckets(window, step_s, names, device=device, port=port)

    def _computed_buckets(self, window: Window, step_s: int, names: list[str], *, device: str,
                          port: str) -> list[Bucket]:
        step_ns = step_s * 1_000_000_000
        merged: dict[int, Bucket] = {}
        for tags, t, rates in rates_from_counters(self.store, window, names, device=device, port=port):
            bucket = t - t % step_ns
            row = merged.setdefault(bucket, (tags, bucket, {}))[2]
            for name, value in rates.items():
                row[name] = max(row.get(name, value), value)
        return sorted(merged.values(), key=lambda b: b[1])

    def events(self, window: Window, device: str, port: str | None = None) -> list[dict[str, Any]]:
        q = f'SELECT "detail" FROM "link_events" WHERE {where(window, device=device, port=port)} GROUP BY *'
        out = [{"time_ns": r.time_ns, "device": r.tags.get("device", ""), "port": r.tags.get("port", ""),
                "kind": r.tags.get("kind", ""), "detail": str(r.values.get("detail", "")),
                "source": r.tags.get("source", "")} for r in self.store.rows(q)]
        return sorted(out, key=lambda e: (e["time_ns"], e["device"], e["port"], e["kind"]))  # ties: one order

    def flagged(self, window: Window, *, device: str | None = None, port: str | None = None) -> list[Flagged]:
        q = (f'SELECT "explanation", "score", "ports", "severity" FROM "link_anomaly" '
             f'WHERE {where(window, device=device, port=port)} AND "flagged" = true GROUP BY *')
        return [Flagged.from_series(*s) for s in self.store.series(q)]

    def jobs(self, window: Window, *, device: str | None = None, port: str | None = None) -> list[StoredJobs]:
        q = (f'SELECT "jobs_total", "jobs" FROM "link_anomaly_jobs" WHERE {where(window, device=device, port=port)} '
             'GROUP BY "device", "port"')
        out = [(r.tags.get("device", ""), r.tags.get("port", ""), r.time_ns, int(r.values.get("jobs_total") or 0),
                [j for j in str(r.values.get("jobs") or "").split(",") if j]) for r in self.store.rows(q)]
        return sorted(out, key=lambda p: p[2])

    def scored(self, window: Window, *, device: str | None = None,
               port: str | None = None) -> dict[tuple[str, str], int]:
        q = (f'SELECT last("score") FROM "link_anomaly" WHERE {where(window, device=device, port=port)} '
             'GROUP BY "device", "port"')
        return {(tags.get("device", ""), tags.get("port", "")): int(values[0][0])
                for tags, _, values in self.store.series(q) if values}

    def port_tags(self, window: Window) -> list[dict[str, str]]:
        seen: dict[tuple[str, str], dict[str, str]] = {}
        q = f'SELECT last("in_octets") FROM "port_rates" WHERE {window.where} GROUP BY *'
        for tags, _, values in self.store.series(q):
            if values and tags.get("device") and tags.get("port"):
                seen.setdefault((tags["device"], tags["port"]), dict(tags))
        return list(seen.values())

    def run(self, run: str) -> tuple[list[str], int, str]:
        q = f'SELECT "hosts" FROM "nccl_results" WHERE "run" = {literal(run)} GROUP BY "collective" LIMIT 1'
        for r in self.store.rows(q):
            return ([h for h in str(r.values.get("hosts", "")).split(",") if h], r.time_ns,
                    r.tags.get("collective", ""))
        raise LookupError(f"no NCCL run {run!r} stored")

    def modules(self, keys: set[tuple[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
        # inventory is stored when it changes, so no time filter
        q = ('SELECT last("vendor") AS "vendor", last("part_number") AS "part_number", last("serial") AS "serial" '
             'FROM "transceivers" GROUP BY "device", "port"')
        out: dict[tuple[str, str], dict[str, str]] = {}
        for tags, columns, values in self.store.series(q):
            key = (tags.get("device", ""), tags.get("port", ""))
            if values and key in keys:
                row = dict(zip(columns, values[0], strict=True))
                out[key] = {c: str(row[c]) for c in ("vendor", "part_number", "serial") if row.get(c)}
        return out
