"""Parse `ethtool -S <netdev>` into canonical counters (per-priority pause, pause storms, FEC)."""

from __future__ import annotations

from fabricwatch.core.digits import parse_uint
from fabricwatch.core.names import lookup


def parse_ethtool_stats(text: str) -> tuple[dict[str, int], int, dict[str, int]]:
    """(canonical values, lines not mapped, width overrides). Lines look like '  rx_prio3_pause: 1234';
    per-queue lines ('[0]: rx_ucast_packets: 1') are not port counters and count as unmapped."""
    values: dict[str, int] = {}
    bits: dict[str, int] = {}
    unmapped = 0
    for line in text.splitlines():
        name, sep, value = line.strip().partition(":")
        if not sep or not name or name.startswith("NIC statistics"):
            continue
        counter = lookup(name.strip())
        number = parse_uint(value.strip())
        if counter is None or number is None:
            unmapped += 1
            continue
        values[counter.canonical] = number * counter.scale
        if counter.bits is not None:
            bits[counter.canonical] = counter.bits
    return values, unmapped, bits
