"""The interface a transceiver component sits in, as platforms name the two. OpenConfig keeps a port's module in
/components under the platform's own name: Junos `FPC0:PIC0:PORT1:Xcvr0` for et-0/0/1 (and for its breakout
channels et-0/0/1:0, et-0/0/1:1), EOS `Ethernet3/1` for Ethernet3/1/1 (and the other interfaces of its lanes,
Ethernet3/1/2...), NX-OS and SONiC the interface's own name. A module's readings are read as the lowest-numbered
of its heard interfaces': one module, one set of readings. A Junos component heard before any of its interfaces
waits for one (`is_component`); an EOS one cannot be told from an interface of that name, and stays its own."""

from __future__ import annotations

import re
from collections.abc import Iterable

# Junos: the FPC (slot), PIC and port of the module; its interfaces name the same three after their media prefix
_JUNOS_MODULE = re.compile(r"FPC(\d+):PIC(\d+):PORT(\d+)(?::Xcvr\d+)?", re.IGNORECASE)
# the physical media only: Junos's logical and internal interfaces (lt-, pfe-, gr-) share the numbers
_JUNOS_PORT = re.compile(r"(?:et|xe|ge|mge|ce)-(\d+)/(\d+)/(\d+)(?::\d+)?")
_NUMBERS = re.compile(r"\d+")


def module_port(component: str, ports: Iterable[str]) -> str | None:
    """The heard interface (of `ports`, one device's) whose module `component` names, where it is not an interface
    itself: the first of those its name is the slot of; None where it names an interface or none is heard."""
    heard = list(ports)
    if component in heard:
        return None
    if (m := _JUNOS_MODULE.fullmatch(component)) is not None:
        slot = tuple(int(x) for x in m.groups())
        fed = [p for p in heard if (q := _JUNOS_PORT.fullmatch(p)) and tuple(int(x) for x in q.groups()) == slot]
    else:
        fed = [p for p in heard if p.startswith(component + "/") and p[len(component) + 1:].isdigit()]
    return min(fed, key=_in_number_order) if fed else None


def is_component(name: str) -> bool:
    """Whether `name` can only be a transceiver component, never an interface (Junos's)."""
    return _JUNOS_MODULE.fullmatch(name) is not None


def _in_number_order(port: str) -> list[int]:
    return [int(x) for x in _NUMBERS.findall(port)]
