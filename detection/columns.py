"""`port_counters` line protocol read into columns, a chunk of lines at a time.

The lines fabricwatch writes (no escapes, no strings, one space between sections) are decoded a
column at a time by C-level string and numpy routines: a regular expression checks a whole
column's text at once and numpy converts it. Anything else (escapes, quoted strings, odd values,
other measurements, bad lines) goes through `parse_line`, line by line, with the same answers as
`read_samples`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise, repeat
from typing import IO, Any

import numpy as np

from fabricwatch.core.counters import COUNTERS, FIELD_ALIASES
from fabricwatch.core.lineprotocol import LineProtocolError, parse_line
from fabricwatch.detection.replay import ReadReport
from fabricwatch.pipeline.rate_columns import common_dtype

MEASUREMENT = "port_counters"
TAG_KEYS = ("device", "port")
_TIME = re.compile(r"-?[0-9]+")
INT63 = 1 << 63


@dataclass
class ColumnsReport(ReadReport):
    """What was read: lines, samples, skipped lines and the first 20 errors, where they are."""

    def error(self, where: str, text: str) -> None:
        self.skipped += 1
        if len(self.errors) < 20:
            self.errors.append(f"{where}: {text}")


@dataclass
class Columns:
    """Rows of one chunk, in file order: the link and tag set each belongs to, its time, and per
    field a value column (int64 where every value is an integer, else float64) with a mask."""

    link: np.ndarray  # int64 index into Catalog.links
    tagset: np.ndarray  # int64 index into Catalog.tagsets
    ts: np.ndarray  # int64 ns
    values: dict[str, np.ndarray]
    present: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.ts)

    def take(self, rows: np.ndarray) -> Columns:
        """These rows only (an index array or a mask)."""
        present = {k: m[rows] for k, m in self.present.items()}
        keep = [k for k, m in present.items() if m.any()]
        return Columns(self.link[rows], self.tagset[rows], self.ts[rows],
                       {k: self.values[k][rows] for k in keep}, {k: present[k] for k in keep})


def concat(parts: list[Columns]) -> Columns:
    """The rows of several chunks, one after the other; a field missing from a part is absent there."""
    parts = [p for p in parts if len(p)]
    if len(parts) == 1:
        return parts[0]
    names = list(dict.fromkeys(k for p in parts for k in p.values))
    values, present = {}, {}
    for k in names:
        cols = [p.values[k] if k in p.values else np.zeros(len(p), dtype=np.int64) for p in parts]
        dtype = common_dtype(*cols)
        values[k] = np.concatenate([c.astype(dtype, copy=False) for c in cols]) if cols else np.zeros(0)
        present[k] = np.concatenate([p.present[k] if k in p.present else np.zeros(len(p), dtype=bool)
                                     for p in parts])
    return Columns(np.concatenate([p.link for p in parts]) if parts else np.zeros(0, dtype=np.int64),
                   np.concatenate([p.tagset for p in parts]) if parts else np.zeros(0, dtype=np.int64),
                   np.concatenate([p.ts for p in parts]) if parts else np.zeros(0, dtype=np.int64),
                   values, present)


class Catalog:
    """Links (device, port) and tag sets seen so far, numbered in the order first seen; the same
    numbers across chunks and files, so that state carried between chunks stays the link's."""

    def __init__(self) -> None:
        self.links: list[tuple[str, str]] = []
        self.tagsets: list[dict[str, str]] = []
        self._link: dict[tuple[str, str], int] = {}
        self._tagset: dict[tuple[tuple[str, str], ...], int] = {}
        self._series: dict[str, tuple[int, int] | None] = {}  # raw series text -> (link, tagset)
        self._codes: dict[str, int] = {}  # raw series text -> link << 32 | tagset, or -1

    def ids(self, tags: dict[str, str]) -> tuple[int, int] | None:
        if not all(k in tags for k in TAG_KEYS):
            return None
        key = (tags["device"], tags["port"])
        link = self._link.get(key)
        if link is None:
            link = self._link[key] = len(self.links)
            self.links.append(key)
        extra = tuple(sorted((k, v) for k, v in tags.items() if k not in TAG_KEYS))
        ts = self._tagset.get(extra)
        if ts is None:
            ts = self._tagset[extra] = len(self.tagsets)
            self.tagsets.append(dict(extra))
        return link, ts

    def codes(self, heads: list[str]) -> list[int]:
        """Per series text, link << 32 | tagset, or -1 for a series that is not a port's counters."""
        cache = self._codes
        out = list(map(cache.get, heads))
        if None in out:
            for i, head in enumerate(heads):
                if out[i] is None:
                    ids = self.series(head)
                    cache[head] = out[i] = -1 if ids is None else (ids[0] << 32 | ids[1])
        return out  # type: ignore[return-value]

    def series(self, head: str) -> tuple[int, int] | None:
        """(link, tagset) of a plain series text ('port_counters,k=v,...'); None if not ours."""
        try:
            return self._series[head]
        except KeyError:
            pass
        parts = head.split(",")
        ids = None
        if parts[0] == MEASUREMENT and all("=" in p for p in parts[1:]):
            ids = self.ids(dict(p.split("=", 1) for p in parts[1:]))
        self._series[head] = ids
        return ids


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


def decode_lines(lines: list[str], catalog: Catalog, report: ColumnsReport, *, where: str = "",
                 first_lineno: int = 1, text: str | None = None) -> Columns:
    """Columns of the port_counters samples among `lines` (without line ends); `text` is the same
    lines joined by newlines, when the caller has it."""
    n_lines = len(lines)
    report.lines += n_lines
    blob = "\n".join(lines) if text is None else text
    plain_chunk = "\\" not in blob and '"' not in blob and "\r" not in blob
    spaces = list(map(str.count, lines, repeat(" ", n_lines)))
    if plain_chunk and spaces.count(2) == n_lines:
        # every line has three sections: split them all at once
        flat = blob.replace(" ", "\n").split("\n")
        del blob
        heads, fields, times = flat[0::3], flat[1::3], flat[2::3]
        codes = catalog.codes(heads)
        fast_pos = [i for i, c in enumerate(codes) if c >= 0] if -1 in codes else list(range(n_lines))
        if len(fast_pos) < n_lines:
            slow = [i for i, c in enumerate(codes) if c < 0]
            fields = [fields[i] for i in fast_pos]
            times = [times[i] for i in fast_pos]
            codes = [codes[i] for i in fast_pos]
        else:
            slow = []
    else:
        del blob
        fast_pos, codes, fields, times, slow = [], [], [], [], []
        for pos, ln in enumerate(lines):
            p = ln.split(" ")
            if len(p) == 3 and (plain_chunk or ("\\" not in ln and '"' not in ln and "\r" not in ln)):
                code = catalog.codes([p[0]])[0]
                if code >= 0:
                    fast_pos.append(pos)
                    codes.append(code)
                    fields.append(p[1])
                    times.append(p[2])
                    continue
            slow.append(pos)
    rows_pos: list[np.ndarray] = []
    parts: list[Columns] = []
    if fast_pos:
        decoded, fell = _decode_fast(codes, fields, times)
        if fell:
            slow.extend(fast_pos[i] for i in fell)
            keep = np.ones(len(fast_pos), dtype=bool)
            keep[fell] = False
            decoded = decoded.take(keep)
            rows_pos.append(np.asarray(fast_pos, dtype=np.int64)[keep])
        else:
            rows_pos.append(np.asarray(fast_pos, dtype=np.int64))
        parts.append(decoded)
    if slow:
        slow.sort()
        part, pos_kept = _decode_slow(lines, slow, catalog, report, where, first_lineno)
        parts.append(part)
        rows_pos.append(pos_kept)
    out = concat(parts) if parts else _empty()
    if len(parts) > 1:  # back to file order: the order rates see samples of the same instant in
        order = np.argsort(np.concatenate(rows_pos), kind="stable")
        out = out.take(order)
    report.samples += len(out)
    return out


def _empty() -> Columns:
    z = np.zeros(0, dtype=np.int64)
    return Columns(z, z, z, {}, {})


def _decode_fast(codes: list[int], fields: list[str], times: list[str]) -> tuple[Columns, list[int]]:
    """Plain lines, grouped by their field names; lines with anything but plain numbers are handed
    back (their positions in the second value) for `parse_line` to judge."""
    n = len(fields)
    code_arr = np.array(codes, dtype=np.int64)
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
    out = Columns(code_arr >> 32, code_arr & 0xFFFFFFFF, ts, values, present)
    return out, sorted(fell)


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


def _decode_slow(lines: list[str], positions: list[int], catalog: Catalog, report: ColumnsReport,
                 where: str, first_lineno: int) -> tuple[Columns, np.ndarray]:
    """Lines the fast path did not take, through the full parser: read_samples's rules exactly."""
    kept: list[int] = []
    link, tagset, ts = [], [], []
    rows: list[dict[str, float]] = []
    for pos in positions:
        line = lines[pos]
        if not line.strip() or line.startswith("#"):
            continue
        try:
            measurement, tags, flds, t = parse_line(line)
        except LineProtocolError as exc:
            report.error(f"{where}:{first_lineno + pos}", str(exc))
            continue
        ids = catalog.ids(tags) if measurement == MEASUREMENT and t is not None else None
        if ids is None:
            report.skipped += 1
            continue
        kept.append(pos)
        link.append(ids[0])
        tagset.append(ids[1])
        ts.append(t)
        rows.append({k: v for k, v in flds.items()
                     if isinstance(v, int | float) and not isinstance(v, bool)})
    n = len(kept)
    values: dict[str, np.ndarray] = {}
    present: dict[str, np.ndarray] = {}
    for i, r in enumerate(rows):
        for k, v in r.items():
            col = values.get(k)
            if col is None:
                values[k] = col = np.zeros(n, dtype=np.int64)
                present[k] = np.zeros(n, dtype=bool)
            if type(v) is float or v < -INT63 or v >= 1 << 64:
                if col.dtype != np.float64:
                    values[k] = col = col.astype(np.float64)
            elif v >= INT63 and col.dtype == np.int64:
                values[k] = col = col.astype(np.uint64 if col[:i][present[k][:i]].min(initial=0) >= 0
                                             else np.float64)
            col[i] = v
            present[k][i] = True
    return (Columns(np.array(link, dtype=np.int64), np.array(tagset, dtype=np.int64),
                    np.array(ts, dtype=np.int64), values, present), np.array(kept, dtype=np.int64))


def read_chunks(f: IO[str], catalog: Catalog, report: ColumnsReport, *, where: str = "",
                chunk_bytes: int = 8 << 20) -> Iterator[Columns]:
    """Columns of a file, `chunk_bytes` of text at a time (cut at line ends)."""
    rest = ""
    lineno = 1
    while True:
        text = f.read(chunk_bytes)
        if not text:
            break
        text = rest + text
        cut = text.rfind("\n")
        if cut < 0:
            rest = text
            continue
        rest = text[cut + 1:]
        text = text[:cut]
        lines = text.split("\n")
        yield _canonical(decode_lines(lines, catalog, report, where=where, first_lineno=lineno, text=text), report)
        lineno += len(lines)
    if rest:
        yield _canonical(decode_lines([rest], catalog, report, where=where, first_lineno=lineno), report)


def _canonical(cols: Columns, report: ColumnsReport | None = None) -> Columns:
    """Fields another writer names its own way (`temperature` for `temperature_c`) under the canonical name;
    the fields that are no counter of the vocabulary counted in `report`."""
    for alias, name in FIELD_ALIASES.items():
        if alias in cols.values and name not in cols.values:
            cols.values[name] = cols.values.pop(alias)
            cols.present[name] = cols.present.pop(alias)
    if report is not None:
        for name, present in cols.present.items():
            if name not in COUNTERS and name not in FIELD_ALIASES:
                report.unread_fields[name] = report.unread_fields.get(name, 0) + int(present.sum())
    return cols


def _column(values: list[Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """One field of a series as InfluxDB's JSON gives it (None where a point lacks it, and bools or
    strings, which are not counters): its values and where they are; None if it has no number."""
    mask = np.fromiter((type(v) is int or type(v) is float for v in values), dtype=bool, count=len(values))
    if not mask.any():
        return None
    numbers: list[Any] = [v for v, m in zip(values, mask.tolist(), strict=True) if m]
    if all(type(v) is int for v in numbers):
        top, low = max(numbers), min(numbers)
        dtype: type = np.int64 if -INT63 <= low and top < INT63 else (np.uint64 if low >= 0 and top < 1 << 64
                                                                         else np.float64)
    else:
        dtype = np.float64
    col: np.ndarray = np.zeros(len(values), dtype=dtype)
    col[mask] = np.array(numbers, dtype=dtype)
    return col, mask


def columns_from_series(series: list[dict[str, object]], catalog: Catalog, report: ColumnsReport) -> Columns:
    """Columns of InfluxQL `SELECT * FROM "port_counters" ... GROUP BY *` answers (epoch=ns)."""
    parts: list[Columns] = []
    for s in series:
        tags = {k: v for k, v in (s.get("tags") or {}).items() if v}  # type: ignore[attr-defined]
        rows: list[list[object]] = s.get("values") or []  # type: ignore[assignment]
        ids = catalog.ids(tags)
        report.lines += len(rows)
        if ids is None or not rows:
            report.skipped += len(rows)
            continue
        names: list[str] = list(s["columns"])[1:]  # type: ignore[call-overload]
        n = len(rows)
        values: dict[str, np.ndarray] = {}
        present: dict[str, np.ndarray] = {}
        for j, name in enumerate(names, 1):
            got = _column([r[j] for r in rows])
            if got is not None:
                values[name], present[name] = got
        has_any = np.zeros(n, dtype=bool)
        for m in present.values():
            has_any |= m
        part = Columns(np.full(n, ids[0], dtype=np.int64), np.full(n, ids[1], dtype=np.int64),
                       np.array([int(r[0]) for r in rows], dtype=np.int64), values, present)  # type: ignore[call-overload]
        if not has_any.all():  # a point with no number at all is no sample (read_samples skips it too)
            part = part.take(has_any)
        report.skipped += n - len(part)
        parts.append(part)
    out = concat(parts) if parts else _empty()
    report.samples += len(out)
    return out
