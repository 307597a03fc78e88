"""Config errors that name the file and the key path: `fabricwatch.toml: sinks.influxdb[0].url: ...`."""

from __future__ import annotations

from pydantic import ValidationError


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
    lines = []
    for err in exc.errors():
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        lines.append(f"{source}: {key_path(loc)}: {msg}")
    return "\n".join(lines)
