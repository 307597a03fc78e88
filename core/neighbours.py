"""An LLDP neighbour as any source reports it: the local port and what is at its far end."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Neighbour:
    local_port: str
    remote: str  # the far end's system name (or chassis id)
    remote_port: str
    remote_is_host: bool = False
