"""Config errors that name the file and the key path: `fabricwatch.toml: sinks.influxdb[0].url: ...`."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

# how pydantic names the members of a union in an error's path: `workers.literal['auto']`, `workers.int`
_MEMBER = re.compile(r"^(literal\[.*\]|int|float|str|bool|none|list\[.*\]|dict\[.*\]|.+\[.*\])$")


class ConfigError(Exception):
    """A config problem; str() is ready to show to an operator."""


def key_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def format_errors(source: str, exc: ValidationError) -> str:
    """One line per problem; a value no member of a union takes is one line naming what each takes
    (`daemon.workers: expected 'auto' or a valid integer, got 'two'`), not one per member."""
    lines: list[str | tuple[int | str, ...]] = []
    members: dict[tuple[int | str, ...], tuple[list[str], Any]] = {}
    errors = [(tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))), err)
              for err in exc.errors()]
    for loc, err in errors:
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        key = loc[:-1]
        if loc and isinstance(loc[-1], str) and _MEMBER.match(loc[-1]) and \
                sum(1 for other, _ in errors if other[:-1] == key) > 1:
            if key not in members:
                members[key] = ([], err.get("input"))
                lines.append(key)
            members[key][0].append(msg.removeprefix("Input should be ").split(", ")[0])
            continue
        lines.append(f"{source}: {key_path(loc)}: {msg}")
    return "\n".join(
        line if isinstance(line, str) else
        f"{source}: {key_path(line)}: expected {' or '.join(members[line][0])}, got {members[line][1]!r}"
        for line in lines)
