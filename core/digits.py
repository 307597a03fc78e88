"""Whole numbers written as text by devices, tools and people, read without surprises.

`str.isdigit()` also says yes to '²' (which `int()` refuses) and to other scripts' digits, and `int()`
refuses strings of more than 4,300 digits: a check with one and a read with the other turns an odd
byte from a device into an exception. These take ASCII decimals of a bounded length only.
"""

from __future__ import annotations


def parse_uint(text: str, *, max_digits: int = 20) -> int | None:
    """ASCII digits only, at most `max_digits` significant ones (20: every u64); else None."""
    if not text.isascii() or not text.isdigit() or len(text.lstrip("0")) > max_digits:
        return None
    return int(text)


def parse_int(text: str, *, max_digits: int = 20) -> int | None:
    """As `parse_uint`, with an optional leading '-'."""
    if text[:1] == "-":
        value = parse_uint(text[1:], max_digits=max_digits)
        return -value if value is not None else None
    return parse_uint(text, max_digits=max_digits)
