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


def line(prefix: str, fields: Mapping[str, object], ts_ns: int) -> str | None:
    parts = []
    for key, value in fields.items():
        text = format_field(value)
        if text is not None:
            parts.append(f"{escape_tag(key)}={text}")
    if not parts:
        return None
    return f"{prefix} {','.join(parts)} {ts_ns}"
