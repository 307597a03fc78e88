"""Rates for storage that holds raw `port_counters` only (an `export` loaded elsewhere, or history
written before the daemon stored rates): one link's counters are read and turned into rates by the
pipeline's own rate engine, so wraps, clears, saturated counters and gaps give what the daemon would
have stored, not what a server-side derivative makes of them (a clear is no spike)."""

from __future__ import annotations

from collections.abc import Iterator

from fabricwatch.core.batch import PortSample
from fabricwatch.pipeline.rates import RateEngine
from fabricwatch.postmortem.store import Store, Window, literal, quote

MAX_GAP_S = 300.0  # the pipeline's default [pipeline] max_gap: a sample this far back gives the first rate


def rates_from_counters(store: Store, window: Window, names: list[str], *, device: str,
                        port: str) -> Iterator[tuple[dict[str, str], int, dict[str, float]]]:
    """(tags, time, rates of `names`) of every sample of the link in the window that has a rate."""
    lead = int(MAX_GAP_S * 1e9)
    cols = ", ".join(quote(n) for n in names)
    q = (f'SELECT {cols} FROM "port_counters" WHERE time >= {window.start_ns - lead} AND time < {window.end_ns} '
         f'AND "device" = {literal(device)} AND "port" = {literal(port)} GROUP BY *')
    engine = RateEngine(MAX_GAP_S)
    wanted = set(names)
    for row in sorted(store.rows(q), key=lambda r: r.time_ns):
        values = {k: float(v) for k, v in row.values.items()
                  if isinstance(v, int | float) and not isinstance(v, bool)}
        if not values:
            continue
        result = engine.process(PortSample(device, port, row.time_ns, values,
                                           {k: v for k, v in row.tags.items() if k not in ("device", "port")}))
        if result is None or row.time_ns < window.start_ns:
            continue
        rates = {k: v for k, v in result.rates.items() if k in wanted}
        if rates:
            yield row.tags, row.time_ns, rates
