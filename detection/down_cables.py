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
        """Note this interval's ports; the (device, far device) pairs, both ways, of cables down and not heard now."""
        topo = frame.layout
        down = cables_down(frame)
        said = ~np.isnan(frame.reading("oper_status"))
        for i, (key, device, far_device) in enumerate(zip(topo.keys, topo.devices, topo.far_devices, strict=True)):
            if down[i] and far_device:
                self._down[key] = (device, far_device)
            elif said[i]:
                self._down.pop(key, None)
        heard = set(topo.keys)
        return {pair for key, (d, f) in self._down.items() if key not in heard for pair in ((d, f), (f, d))}
