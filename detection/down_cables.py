"""Cables down, remembered while their ports are unheard: an exporter sending on change only (gnmic's on-change
subscriptions, Telegraf's dedup) says a port went down once and then says nothing, and its state holds until it
says otherwise. The links parallel to a down cable carry its share (`models.groups.parallel_down`)."""

from __future__ import annotations

import numpy as np

from fabricwatch.models.features import FeatureFrame
from fabricwatch.models.groups import cables_down


class DownCables:
    """Per port last said down (at either end of its cable): its device and far device."""

    def __init__(self) -> None:
        self._down: dict[tuple[str, str], tuple[str, str]] = {}

    def observe(self, frame: FeatureFrame) -> set[tuple[str, str]]:
        """Note this interval's ports; the (device, far device) pairs, both ways, of cables down and not heard now.
        Costs a pass over the ports only while some cable is down (a healthy fabric's intervals cost next to none)."""
        down = cables_down(frame)
        if not down.any() and not self._down:
            return set()
        topo = frame.layout
        keys, devices, far_devices = topo.keys, topo.devices, topo.far_devices
        for i in np.flatnonzero(down).tolist():
            if far_devices[i]:
                self._down[keys[i]] = (devices[i], far_devices[i])
        if not self._down:
            return set()
        said_up = ~down & ~np.isnan(frame.reading("oper_status"))
        row = {key: i for i, key in enumerate(keys)}
        for key in [k for k in self._down if k in row and said_up[row[k]]]:
            del self._down[key]
        return {pair for key, (d, f) in self._down.items() if key not in row for pair in ((d, f), (f, d))}
