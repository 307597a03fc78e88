"""Small network helpers shared by the servers we run (daemon API, simulator endpoints)."""

from __future__ import annotations

from typing import Any


def bound_port(site: Any, asked: int) -> int:
    """The port an aiohttp TCPSite really listens on (asked for 0: the kernel picked one)."""
    server: Any = site._server
    sockets = getattr(server, "sockets", None) or []
    return int(sockets[0].getsockname()[1]) if sockets else asked
