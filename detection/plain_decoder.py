"""The fast path of the line reader: plain `port_counters` fields and times decoded a column at a time.

Plain lines (no escapes, no strings, one space between sections) are decoded by C-level string and
numpy routines: a whole column's text is checked at once and numpy converts it. A line with anything
but plain numbers is handed back, by its position, for `parse_line` to judge (`line_reader.py`).
"""

from __future__ import annotations

import re
import warnings
from itertools import pairwise, repeat
from typing import NamedTuple

import numpy as np

from fabricwatch.pipeline.rate_columns import common_dtype

_TIME = re.compile(r"-?[0-9]+")
INT63 = 1 << 63


class Plain(NamedTuple):
    """Plain lines decoded: per line its time, per field a value column with a mask, and the lines
    handed back (their positions) for the full parser."""

    ts: np.ndarray  # int64 ns
    values: dict[str, np.ndarray]
    present: dict[str, np.ndarray]
    fell: list[int]


_FLOAT_CHARS = frozenset("0123456789-+.eE,")


def _fromstring(text: str, dtype: type, n: int) -> np.ndarray | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "could not be read to its end": None below
        try:
            arr: np.ndarray = np.fromstring(text, dtype=dtype, sep=",")
        except ValueError:
            return None
    if len(arr) != n:
        return None
    limits = np.iinfo(arr.dtype) if arr.dtype.kind in "iu" else None
    if limits is not None and n and (arr.max() == limits.max or (arr.dtype.kind == "i" and arr.min() == limits.min)):
        return None  # numpy stops a number beyond 64 bits at the limit: the full parser reads it
    return arr


def _plain_ints(text: str, n: int, suffix: str) -> str | None:
    """The digits of n comma-separated integers each ending in `suffix`, or None if they are not.
    numpy reads what is left exactly when the count matches, except a sign or blank before a number
    (which line protocol does not allow: refused here) and a number beyond 64 bits (`_fromstring`)."""
    if text[-1:] != suffix or text.count(suffix) != n or text.count(suffix + ",") != n - 1:
        return None
    digits = text.replace(suffix, "")
    if "+" in digits or "\t" in digits or "\x0b" in digits or "\x0c" in digits or (suffix == "u" and "-" in digits):
        return None
    return digits


def _decode_ints(values: list[str], rows: int, k: int) -> np.ndarray | None:
    """A (rows, k) int64 block when every value is a plain signed integer (`5i`), else None."""
    return _decode_ints_text(",".join(values), rows, k)


def _decode_ints_text(text: str, rows: int, k: int) -> np.ndarray | None:
    """`_decode_ints` of the values joined by commas."""
    digits = _plain_ints(text, rows * k, "i")
    block = _fromstring(digits, np.int64, rows * k) if digits is not None else None
    return block.reshape(rows, k) if block is not None else None


def _decode(col: list[str]) -> np.ndarray | None:
    """One field's values (text as in line protocol) as int64 or float64; None if any is not a
    plain number (then `parse_line` judges the lines)."""
    return _decode_text(",".join(col), len(col))


def _decode_text(text: str, n: int) -> np.ndarray | None:
    """`_decode` of n values joined by commas. Checked by the characters of the whole column and by
    numpy reading exactly one number per value."""
    suffix = text[-1:]
    if suffix in ("i", "u"):
        digits = _plain_ints(text, n, suffix)
        if digits is None:
            return None
        if suffix == "i":
            return _fromstring(digits, np.int64, n)
        arr = _fromstring(digits, np.uint64, n)
        if arr is None:
            return None
        return arr.astype(np.int64) if not n or arr.max() < INT63 else arr
    if set(text) <= _FLOAT_CHARS:
        return _fromstring(text, np.float64, n)
    return None


def _one_layout(fields: list[str], k: int) -> tuple[list[str], list[np.ndarray | None]] | None:
    """When each of these field sections has k fields, named as the first one's in the same order:
    the names, and per field its decoded values (None where `_decode` refuses them). None otherwise
    (non-ASCII text, a field without or with two '=', another layout), for the per-field path to judge.
    Found on the bytes with numpy, not by splitting each field into strings: the values' text handed to
    the decoders is the same as that path joins."""
    text = "\n".join(fields) + "\n"
    if not text.isascii():
        return None
    b = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    n = len(fields)
    eq = np.flatnonzero(b == 61)  # '='
    ends = np.flatnonzero((b == 44) | (b == 10))  # ',' or the line's end
    if len(eq) != n * k or len(ends) != n * k:
        return None
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    # one '=' in each field, after a name of at least one character
    if not ((starts < eq) & (eq < ends)).all():
        return None
    name_len = (eq - starts).reshape(n, k)
    if not (name_len == name_len[0]).all():
        return None
    # the text is name, '=', value, separator, over and over: a mask of either is runs of those lengths
    runs = np.empty(2 * len(eq), dtype=np.int64)
    runs[0::2] = eq - starts
    runs[1::2] = ends - eq + 1
    in_name = np.repeat(np.tile(np.array([True, False]), len(eq)), runs)
    names_bytes = b[in_name]
    if not (names_bytes.reshape(n, -1) == names_bytes[:int(name_len[0].sum())]).all():
        return None
    names = [f.split("=", 1)[0] for f in fields[0].split(",")]
    # each value with the separator after it, which becomes a comma: "v,v,...,v,"
    runs[0::2] += 1
    runs[1::2] -= 1
    values = b[np.repeat(np.tile(np.array([False, True]), len(eq)), runs)]
    values[values == 10] = 44
    block = _decode_ints_text(values[:-1].tobytes().decode("ascii"), n, k)
    if block is not None:
        return names, list(block.T)
    # some field is not an integer: one text per field, its values in row order
    lengths = ends - eq
    field_of = np.repeat(np.tile(np.arange(k, dtype=np.int16), n), lengths)
    by_field = values[np.argsort(field_of, kind="stable")].tobytes().decode("ascii")
    bounds = np.concatenate([[0], np.cumsum(lengths.reshape(n, k).sum(axis=0))]).tolist()
    return names, [_decode_text(by_field[lo:hi - 1], n) for lo, hi in pairwise(bounds)]


def decode_plain(fields: list[str], times: list[str]) -> Plain:
    """Plain lines, grouped by their field names; lines with anything but plain numbers are handed
    back (their positions in `fell`) for `parse_line` to judge."""
    n = len(fields)
    fell: set[int] = set()
    ts_text = ",".join(times)
    bare = ts_text.replace(",", "").replace("-", "")
    ts = _fromstring(ts_text, np.int64, n) if bare.isascii() and bare.isdigit() else None
    if ts is None:  # a bad timestamp somewhere: those lines go the slow way
        ts = np.zeros(n, dtype=np.int64)
        for i, t in enumerate(times):
            if _TIME.fullmatch(t):
                ts[i] = int(t)
            else:
                fell.add(i)
    # lines with the same number of fields, then the same names in the same order
    commas = list(map(str.count, fields, repeat(",", n)))
    by_count: dict[int, list[int]] = {}
    if commas and commas.count(commas[0]) == n:
        by_count[commas[0]] = list(range(n))
    else:
        for i, c in enumerate(commas):
            by_count.setdefault(c, []).append(i)
    values: dict[str, np.ndarray] = {}
    present: dict[str, np.ndarray] = {}
    for n_commas, rows in by_count.items():
        k = n_commas + 1
        got = _one_layout(fields if len(rows) == n else [fields[r] for r in rows], k)
        if got is not None:
            if len(set(got[0])) != k or any(c is None for c in got[1]):
                fell.update(rows)
                continue
            _put(values, present, n, got[0], got[1], np.asarray(rows, dtype=np.int64))
            continue
        text = ",".join(fields if len(rows) == n else [fields[r] for r in rows])
        flat = text.replace("=", ",").split(",")
        del text
        if len(flat) != 2 * k * len(rows):  # a field without '=' (or with two)
            fell.update(rows)
            continue
        uniform = flat[0::2] == flat[0:2 * k:2] * len(rows)
        if uniform:
            groups = [(flat[0:2 * k:2], rows, flat)]
        else:  # several layouts with as many fields: one group per layout
            layouts: dict[tuple[str, ...], list[int]] = {}
            for pos, _r in enumerate(rows):
                layouts.setdefault(tuple(flat[2 * k * pos:2 * k * (pos + 1):2]), []).append(pos)
            groups = []
            for layout, positions in layouts.items():
                sub = [x for pos in positions for x in flat[2 * k * pos:2 * k * (pos + 1)]]
                groups.append((list(layout), [rows[pos] for pos in positions], sub))
        for names, grows, gflat in groups:
            if len(set(names)) != k or "" in names:
                fell.update(grows)
                continue
            block = _decode_ints(gflat[1::2], len(grows), k)  # most lines: integers only, all at once
            if block is not None:
                cols: list[np.ndarray | None] = list(block.T)
            else:
                cols = [_decode(gflat[j + 1::2 * k]) for j in range(0, 2 * k, 2)]
            if any(c is None for c in cols):
                fell.update(grows)
                continue
            _put(values, present, n, names, cols, np.asarray(grows, dtype=np.int64))
    return Plain(ts, values, present, sorted(fell))


def _put(values: dict[str, np.ndarray], present: dict[str, np.ndarray], n: int, names: list[str],
         cols: list[np.ndarray | None], idx: np.ndarray) -> None:
    """Write a group's decoded fields into the chunk's columns at rows `idx`."""
    for name, col in zip(names, cols, strict=True):
        assert col is not None
        have = values.get(name)
        if have is None:
            values[name] = have = np.zeros(n, dtype=col.dtype)
            present[name] = np.zeros(n, dtype=bool)
        elif have.dtype != col.dtype:
            dtype = common_dtype(have[present[name]], col)
            values[name] = have = have.astype(dtype)
            col = col.astype(dtype)
        have[idx] = col
        present[name][idx] = True
