"""InfluxDB line protocol encoding (fast path: tag sets are escaped once per port and cached)."""

from __future__ import annotations

from collections.abc import Mapping

_TAG_ESCAPES = str.maketrans({",": r"\,", "=": r"\=", " ": r"\ ", "\n": r"\n"})
_MEAS_ESCAPES = str.maketrans({",": r"\,", " ": r"\ ", "\n": r"\n"})
_STR_ESCAPES = str.maketrans({'"': r"\"", "\\": "\\\\", "\n": r"\n"})
INT64_MAX = (1 << 63) - 1


def escape_tag(value: str) -> str:
    return value.translate(_TAG_ESCAPES)


def tag_prefix(measurement: str, tags: Mapping[str, str]) -> str:
    """'measurement,k=v,...' with keys sorted (InfluxDB's canonical order); empty values skipped."""
    parts = [measurement.translate(_MEAS_ESCAPES)]
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
        return repr(value) if value == value and value not in (float("inf"), float("-inf")) else None
    return '"' + str(value).translate(_STR_ESCAPES) + '"'


_KEYS: dict[str, str] = {}


def _key(name: str) -> str:
    escaped = _KEYS.get(name)
    if escaped is None:
        escaped = escape_tag(name)
        if len(_KEYS) < 10_000:
            _KEYS[name] = escaped
    return escaped


def line(prefix: str, fields: Mapping[str, object], ts_ns: int) -> str | None:
    parts = []
    for key, value in fields.items():
        tv = type(value)
        if tv is int and 0 <= value <= INT64_MAX:  # type: ignore[operator]
            text: str | None = f"{value}i"
        elif tv is float and value == value and value not in (float("inf"), float("-inf")):
            text = repr(value)
        else:
            text = format_field(value)
        if text is not None:
            parts.append(f"{_key(key)}={text}")
    if not parts:
        return None
    return f"{prefix} {','.join(parts)} {ts_ns}"
