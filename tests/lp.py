"""A small line-protocol reader for tests (our own lines: no spaces inside names)."""

from __future__ import annotations


def parse_line(line: str) -> tuple[str, dict[str, str], dict[str, object], int]:
    head, fields_text, ts = line.rsplit(" ", 2)
    measurement, *tag_parts = head.split(",")
    tags = dict(p.split("=", 1) for p in tag_parts)
    fields: dict[str, object] = {}
    for part in fields_text.split(","):
        key, value = part.split("=", 1)
        if value.endswith("i"):
            fields[key] = int(value[:-1])
        elif value in ("true", "false"):
            fields[key] = value == "true"
        elif value.startswith('"'):
            fields[key] = value[1:-1]
        else:
            fields[key] = float(value)
    return measurement, tags, fields, int(ts)


def points(lines: list[str], measurement: str) -> dict[tuple[str, str, int], dict[str, object]]:
    """(device, port, ts) -> fields, merging lines of one point as InfluxDB does."""
    out: dict[tuple[str, str, int], dict[str, object]] = {}
    for line in lines:
        m, tags, fields, ts = parse_line(line)
        if m == measurement:
            out.setdefault((tags["device"], tags["port"], ts), {}).update(fields)
    return out
