r"""InfluxDB line protocol encoding (fast path: tag sets are escaped once per port and cached).

Names come from devices, so any text must be stored. Commas, equals signs and spaces are escaped as
InfluxDB wants. Two things have no escape that InfluxDB 1.x reads back: a newline (it ends the line)
and a backslash before what line protocol could take it to escape (`,` `=` space, another backslash,
`n`, `"`, or the end: InfluxDB 1.6.7 refuses `port=Eth1\` with "invalid tag format" and keeps `\\`
as two backslashes, where other parsers, ours too, read one). So a name is stored as `stored_name`
gives it: such a backslash becomes U+29F5 (reverse solidus operator, which looks the same) and a
newline U+2424 (symbol for newline); every other character, a backslash before anything else too,
is stored as it is. Every server and
`parse_line` read the same name back, and the post-mortem queries ask for `stored_name` of the name
they are given, so a device's own name finds its points. (Two names differing only there, `a\`
and `a` + U+29F5, are one series: a price paid for names no device should send.)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet

_BACKSLASH = re.compile(r"\\(?=[,= \\n\"]|$)")
_TAG_ESCAPES = str.maketrans({",": r"\,", "=": r"\=", " ": r"\ "})
_MEAS_ESCAPES = str.maketrans({",": r"\,", " ": r"\ "})
_STR_ESCAPES = str.maketrans({'"': r"\"", "\\": "\\\\", "\n": r"\n"})
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
_INF = float("inf")


def stored_name(name: str) -> str:
    """A name (tag value, tag or field key, measurement) as storage keeps it: see the module's docstring."""
    if "\n" in name:
        name = name.replace("\n", "\u2424")
    if "\\" in name:
        name = _BACKSLASH.sub("\u29f5", name)
    return name


def escape_tag(value: str) -> str:
    return stored_name(value).translate(_TAG_ESCAPES)


def _escape_measurement(value: str) -> str:
    return stored_name(value).translate(_MEAS_ESCAPES)


def tag_prefix(measurement: str, tags: Mapping[str, str]) -> str:
    """'measurement,k=v,...' with keys sorted (InfluxDB's canonical order); empty values skipped."""
    parts = [_escape_measurement(measurement)]
    for key in sorted(tags):
        value = tags[key]
        if value != "":
            parts.append(f"{escape_tag(key)}={escape_tag(str(value))}")
    return ",".join(parts)


def format_field(value: object) -> str | None:
    """One field value; None when it cannot be stored (NaN, or an int beyond int64)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value}i" if -INT64_MAX - 1 <= value <= INT64_MAX else None
    if isinstance(value, float):
        return repr(value) if -_INF < value < _INF else None
    return '"' + str(value).translate(_STR_ESCAPES) + '"'


_KEYS: dict[str, str] = {}


def _key(name: str) -> str:
    escaped = _KEYS.get(name)
    if escaped is None:
        escaped = escape_tag(name)
        if len(_KEYS) < 10_000:
            _KEYS[name] = escaped
    return escaped


def _as_int(value: object) -> str | None:
    """A number as an integer field (a float rounded, a bool 0 or 1); anything else is not stored."""
    if isinstance(value, float):
        return format_field(round(value)) if -_INF < value < _INF else None
    return format_field(int(value)) if isinstance(value, int) else None


def _as_float(value: object) -> str | None:
    """A number as a float field; anything else is not stored."""
    if isinstance(value, int):
        try:
            return format_field(float(value))
        except OverflowError:  # an int beyond any float
            return None
    return format_field(value) if isinstance(value, float) else None


_NONE: frozenset[str] = frozenset()


def line(prefix: str, fields: Mapping[str, object], ts_ns: int, *, ints: AbstractSet[str] = _NONE,
         floats: AbstractSet[str] = _NONE) -> str | None:
    """One point; the fields named in `ints` are written as integers and those in `floats` as
    floats whatever type their value has (a field keeps one type in storage)."""
    parts = []
    keys = _KEYS
    for key, value in fields.items():
        tv = type(value)
        if tv is int and 0 <= value <= INT64_MAX and key not in floats:  # type: ignore[operator]
            text: str | None = f"{value}i"
        elif tv is float and -_INF < value < _INF and key not in ints:  # type: ignore[operator]  # not NaN nor inf
            text = repr(value)
        elif key in ints:
            text = _as_int(value)
        elif key in floats:
            text = _as_float(value)
        else:
            text = format_field(value)
        if text is not None:
            parts.append(f"{keys.get(key) or _key(key)}={text}")
    if not parts:
        return None
    return f"{prefix} {','.join(parts)} {ts_ns}"


class LineProtocolError(ValueError):
    """A line that is not valid line protocol; says where."""


def _split_unescaped(text: str, sep: str, *, quotes: bool = False) -> list[str]:
    """Split on unescaped `sep`; with `quotes`, not inside a string field value (a quote opens one
    only right after an unescaped '=', as in line protocol's fields)."""
    parts, cur, i, in_q, after_eq = [], [], 0, False, False
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur.append(text[i : i + 2])
            i += 2
            after_eq = False
            continue
        if quotes and c == '"' and (in_q or after_eq):
            in_q = not in_q
        if c == sep and not in_q:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        after_eq = c == "=" and not in_q
        i += 1
    parts.append("".join(cur))
    return parts


_UNESCAPE = re.compile(r"\\([,= \\n\n\"])")
_UNESCAPED = {",": ",", "=": "=", " ": " ", "\\": "\\", "n": "\n", "\n": "\n", '"': '"'}


def _unescape(text: str) -> str:
    """One pass, left to right: `\\,` `\\=` `\\ ` `\\\\` `\\n` `\\"`; any other backslash is itself."""
    if "\\" not in text:
        return text
    return _UNESCAPE.sub(lambda m: _UNESCAPED[m.group(1)], text)


def _partition(part: str) -> tuple[str, str, str]:
    """key, '=', value at the first unescaped '='."""
    if "\\" not in part:
        return part.partition("=")
    first = _split_unescaped(part, "=")[0]
    if len(first) == len(part):
        return part, "", ""
    return first, "=", part[len(first) + 1 :]


def _head(text: str) -> tuple[str, str, str]:
    """measurement and tags | the rest, at the first unescaped space."""
    first = _split_unescaped(text, " ")[0]
    return first, " ", text[len(first) + 1 :]


_TRUE = frozenset(("t", "T", "true", "True", "TRUE"))
_FALSE = frozenset(("f", "F", "false", "False", "FALSE"))


def _parse_plain(text: str) -> tuple[str, dict[str, str], dict[str, object], int | None] | None:
    """parse_line for a line without backslashes or quotes: plain splits, the same answers. None
    hands the line to the full parser (which also says what is wrong with it)."""
    sections = text.split(" ")
    if "" in sections:
        return None
    head = sections[0].split(",")
    tags = {}
    for part in head[1:]:
        k, sep, v = part.partition("=")
        if not sep:
            return None
        tags[k] = v
    fields: dict[str, object] = {}
    for part in sections[1].split(","):
        k, sep, v = part.partition("=")
        if not sep or not v or "_" in v:  # int() and float() take 1_000; line protocol does not
            return None
        last = v[-1]
        if last == "i" or last == "u":
            digits = v[:-1]
            if not (digits.isdecimal() or (digits[:1] == "-" and digits[1:].isdecimal())):
                return None
            number = int(digits)
            if not (-INT64_MAX - 1 <= number <= INT64_MAX if last == "i" else 0 <= number <= UINT64_MAX):
                return None  # the full parser says what is wrong
            fields[k] = number
        elif v in _TRUE:
            fields[k] = True
        elif v in _FALSE:
            fields[k] = False
        else:
            try:
                fields[k] = float(v)
            except ValueError:
                return None
    ts = None
    if len(sections) == 3:
        try:
            ts = int(sections[2])
        except ValueError:
            return None
    return head[0], tags, fields, ts


def parse_line(line: str) -> tuple[str, dict[str, str], dict[str, object], int | None]:
    """measurement, tags, fields, timestamp (ns, or None when the line has none)."""
    # only line ends and leading blanks go: a name may begin with a tab (escaped spaces stay)
    text = line.rstrip("\r\n").lstrip(" ")
    if "\\" not in text and '"' not in text and 1 <= text.count(" ") <= 2:
        fast = _parse_plain(text)  # what we write ourselves: no escapes, no strings, single spaces
        if fast is not None:
            return fast
    return _parse_full(text)


def _parse_full(text: str) -> tuple[str, dict[str, str], dict[str, object], int | None]:
    head_text, _, rest = text.partition(" ") if "\\" not in text else _head(text)
    sections = [head_text, *(s for s in _split_unescaped(rest, " ", quotes=True) if s != "")]
    if len(sections) not in (2, 3):
        raise LineProtocolError("expected 'measurement[,tags] fields [timestamp]'")
    head = _split_unescaped(sections[0], ",")
    measurement = _unescape(head[0])
    tags = {}
    for part in head[1:]:
        k, sep, v = _partition(part)
        if not sep:
            raise LineProtocolError(f"tag {part!r} has no '='")
        tags[_unescape(k)] = _unescape(v)
    fields: dict[str, object] = {}
    for part in _split_unescaped(sections[1], ",", quotes=True):
        k, sep, v = _partition(part)
        if not sep or not v:
            raise LineProtocolError(f"field {part!r} has no value")
        key = _unescape(k)
        if v.startswith('"'):
            fields[key] = _unescape(v[1:-1])
        elif v[-1] in "iu" and (v[:-1].isdecimal() or (v[:1] == "-" and v[1:-1].isdecimal())):
            number = int(v[:-1])
            if not (-INT64_MAX - 1 <= number <= INT64_MAX if v[-1] == "i" else 0 <= number <= UINT64_MAX):
                raise LineProtocolError(f"field {key!r}: {v!r} is out of range for "
                                        f"{'a signed' if v[-1] == 'i' else 'an unsigned'} 64-bit integer")
            fields[key] = number
        elif v in ("t", "T", "true", "True", "TRUE"):
            fields[key] = True
        elif v in ("f", "F", "false", "False", "FALSE"):
            fields[key] = False
        else:
            try:
                fields[key] = float(v)
            except ValueError:
                raise LineProtocolError(f"field {key!r}: bad value {v!r}") from None
    ts = None
    if len(sections) == 3:
        try:
            ts = int(sections[2])
        except ValueError:
            raise LineProtocolError(f"bad timestamp {sections[2]!r}") from None
    return measurement, tags, fields, ts
