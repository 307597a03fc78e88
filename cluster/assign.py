"""Which member polls which target: rendezvous (highest-random-weight) hashing over the live
members. Every member computes the same answer from the same member list, with no coordinator;
when a member joins or leaves, only the targets it gains or loses move (about 1/N of them)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable


def weight(member: str, group: str) -> int:
    """A stable pseudo-random weight of (member, group): 64 bits of BLAKE2b (not Python's hash(),
    which differs between processes)."""
    digest = hashlib.blake2b(f"{member}\0{group}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def owner(group: str, members: Iterable[str]) -> str | None:
    """The member that owns a group: the highest weight (ties, which need equal hashes, by name)."""
    best: tuple[int, str] | None = None
    for m in members:
        w = (weight(m, group), m)
        if best is None or w > best:
            best = w
    return best[1] if best else None


def group_of(device: str, pattern: re.Pattern[str] | None) -> str:
    """The group a target's device belongs to: the pattern's first capture group (or whole match)
    where it matches, else the device alone. A group stays on one member, so that the detector
    sees both ends of the group's links."""
    if pattern is not None:
        m = pattern.search(device)
        if m:
            return m.group(1) if m.groups() and m.group(1) is not None else m.group(0)
    return device
