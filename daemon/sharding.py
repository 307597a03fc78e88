"""shard = "k/N": which targets this daemon polls, by stable hashing of the device name."""

from __future__ import annotations

import hashlib


def shard_of(device: str, n: int) -> int:
    """0-based shard of a device; the same scheme as Prometheus' hashmod relabelling
    (md5, last 8 bytes as a big-endian integer, modulo N), so both can split a fleet alike."""
    digest = hashlib.md5(device.encode(), usedforsecurity=False).digest()
    return int.from_bytes(digest[8:], "big") % n


def owns(device: str, k: int, n: int) -> bool:
    """True if shard k (1-based, as written in the config) of n polls this device."""
    return n == 1 or shard_of(device, n) == k - 1
