"""One parser for the times users and devices write: ISO 8601, 'YYYY-mm-dd HH:MM:SS', relative."""

from __future__ import annotations

import datetime as dt
import time

from fabricwatch.core.config_types import parse_duration

# what InfluxDB (and line protocol) can store: signed 64-bit nanoseconds, 1677-09-21 to 2262-04-11
STORABLE_NS = range(-(2**63) + 2, 2**63 - 1)


def storable(ts_ns: int) -> bool:
    """A time storage can hold; a device or file stamping beyond it is bad input, not a time."""
    return ts_ns in STORABLE_NS


def parse_time_ns(text: str, *, now_ns: int | None = None) -> int:
    """See `_parse`; a time beyond what storage holds (before 1677 or after 2262) is a ValueError."""
    ns = _parse(text, now_ns=now_ns)
    if not storable(ns):
        raise ValueError(f"not a time: {text!r} is beyond what storage holds (1677-09-21 to 2262-04-11)")
    return ns


def _parse(text: str, *, now_ns: int | None = None) -> int:
    """Nanoseconds since the epoch. Accepts '2026-11-20T00:00:00Z', '2026-11-20 22:00:00[.123]'
    (no zone = UTC, as UFM and nccl-tests write), 'now', '-2h' / '-30m' before now, and
    'yesterday 22:00' / 'today 08:30' (UTC)."""
    s = text.strip()
    now = time.time_ns() if now_ns is None else now_ns
    if s == "now":
        return now
    if s.startswith("-"):
        try:
            return now - int(parse_duration(s[1:]) * 1e9)
        except ValueError:
            raise ValueError(f"not a time: {text!r} (relative times look like '-2h')") from None
    day, _, clock = s.partition(" ")
    if day in ("today", "yesterday"):
        # 'yesterday 22:00', 'today 08:30' (UTC, like every other time here)
        base = dt.datetime.fromtimestamp(now / 1e9, dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        if day == "yesterday":
            base -= dt.timedelta(days=1)
        hh, _, mm = (clock or "00:00").partition(":")
        try:
            hours, minutes = int(hh), int(mm or 0)
        except ValueError:
            hours = minutes = -1
        if not (0 <= hours < 24 and 0 <= minutes < 60):
            raise ValueError(f"not a time: {text!r} (e.g. 'yesterday 22:00')")
        return int((base + dt.timedelta(hours=hours, minutes=minutes)).timestamp() * 1e9)
    try:
        t = dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"not a time: {text!r} (give ISO 8601, e.g. 2026-11-20T22:00:00Z, or '-2h')") from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.UTC)
    return int(t.timestamp() * 1e9)
