"""Write what the simulated fabric would have stored: `port_counters` line protocol."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from fabricwatch.core.lineprotocol import line, tag_prefix
from fabricwatch.simulator.fabric import COUNTER_NAMES, Fabric


def record(fabric: Fabric, out: TextIO, *, steps: int, step_s: float,
           on_step: Callable[[Fabric, int], None] | None = None) -> int:
    """Snapshot every step_s for `steps` steps and write one line per port; returns lines."""
    prefixes = {
        (r["device"], r["port"]): tag_prefix("port_counters", {k: str(v) for k, v in r.items()})
        for r in fabric.topology.records()
    }
    written = 0
    for i in range(steps):
        if on_step is not None:
            on_step(fabric, i)
        snap = fabric.snapshot(fabric.start_ns + int((i + 1) * step_s * 1e9))
        for p in fabric.ports:
            row = snap.counters[p.index]
            values: dict[str, object] = {name: int(row[j]) for j, name in enumerate(COUNTER_NAMES)}
            values["oper_status"] = 1 if snap.oper_up[p.index] else 0
            text = line(prefixes[(p.device, p.name)], values, snap.ts_ns)
            if text:
                out.write(text + "\n")
                written += 1
    return written
