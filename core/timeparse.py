"""One parser for the times users and devices write: ISO 8601, 'YYYY-mm-dd HH:MM:SS', relative."""

from __future__ import annotations

import datetime as dt
import time

from fabricwatch.core.config_types import parse_duration


def parse_time_ns(text: str, *, now_ns: int | None = None) -> int:
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
        try:
            hh, _, mm = (clock or "00:00").partition(":")
            return int((base + dt.timedelta(hours=int(hh), minutes=int(mm or 0))).timestamp() * 1e9)
        except ValueError:
            raise ValueError(f"not a time: {text!r} (e.g. 'yesterday 22:00')") from None
    try:
        t = dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"not a time: {text!r} (give ISO 8601, e.g. 2026-11-20T22:00:00Z, or '-2h')") from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.UTC)
    return int(t.timestamp() * 1e9)
