"""Slurm's compressed host lists ("node[000-003,007],gpu[1-2]-ib") expanded to names."""

from __future__ import annotations

import re

MAX_NAMES = 100_000  # a list naming more is refused, not expanded into memory
MAX_GROUPS = 8  # bracket groups in one name pattern ("rack[1-4]-node[01-16]" has two)
_RANGE = re.compile(r"([0-9]{1,9})(?:-([0-9]{1,9}))?")


def _split_top(text: str) -> list[str]:
    """Split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ']' in host list {text[:80]!r}")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"unbalanced '[' in host list {text[:80]!r}")
    parts.append(text[start:])
    return [p for p in parts if p]


def _ranges(body: str) -> list[str]:
    out: list[str] = []
    for item in body.split(","):
        m = _RANGE.fullmatch(item.strip())
        if m is None:
            raise ValueError(f"not a range in a host list: {item[:40]!r}")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        width = len(lo)  # "000-015": zero-padded to the width of the low end, as Slurm does
        if int(hi) < int(lo) or int(hi) - int(lo) >= MAX_NAMES:
            raise ValueError(f"bad range in a host list: {item[:40]!r}")
        out += [str(n).zfill(width) for n in range(int(lo), int(hi) + 1)]
    return out


def _expand_one(pattern: str) -> list[str]:
    open_at = pattern.find("[")
    if open_at < 0:
        return [pattern]
    close_at = pattern.find("]", open_at)
    head, body, tail = pattern[:open_at], pattern[open_at + 1:close_at], pattern[close_at + 1:]
    rests = _expand_one(tail)
    out = [f"{head}{n}{rest}" for n in _ranges(body) for rest in rests]
    if len(out) > MAX_NAMES:
        raise ValueError(f"host list names more than {MAX_NAMES} nodes")
    return out


def expand(text: str) -> list[str]:
    """Every node name of a Slurm host list, in order; ValueError on a malformed or huge one."""
    names: list[str] = []
    for part in _split_top(text.strip()):
        if part.count("[") > MAX_GROUPS:
            raise ValueError(f"more than {MAX_GROUPS} bracket groups in one host list name: {part[:80]!r}")
        names += _expand_one(part.strip())
        if len(names) > MAX_NAMES:
            raise ValueError(f"host list names more than {MAX_NAMES} nodes")
    return names
