"""Parse `ethtool -S <netdev>` into canonical counters (per-priority pause, pause storms)."""

from __future__ import annotations

from fabricwatch.collectors.ibnames import lookup


def parse_ethtool_stats(text: str) -> tuple[dict[str, int], int]:
    """(canonical values, lines not mapped). Lines look like '     rx_prio3_pause: 1234'."""
    values: dict[str, int] = {}
    unmapped = 0
    for line in text.splitlines():
        name, sep, value = line.strip().partition(":")
        if not sep or not name or name.startswith("NIC statistics"):
            continue
        counter = lookup(name.strip())
        value = value.strip()
        if counter is None or not value.isdigit():
            unmapped += 1
            continue
        values[counter.canonical] = int(value) * counter.scale
    return values, unmapped
