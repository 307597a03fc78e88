"""Devices whose clocks are off: where the daemon places their samples in time for detection.

A gNMI sample carries the device's own timestamp. A device whose clock is minutes off (NTP broken)
would have its links folded into intervals the rest of the fabric closed long ago: scored alone,
several times an interval, never beside their peers. A device whose timestamps stray from this
host's clock by more than the tolerance is placed by arrival instead: one offset per device, so its
samples keep their own spacing (rates and spans are the device's), re-taken only when it strays again.
The stored samples keep the device's timestamps; only the detector's intervals are shifted.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger("fabricwatch.detector")


class DeviceClocks:
    def __init__(self, tolerance_s: float, *, clock: Callable[[], int] = time.time_ns) -> None:
        self.tolerance_ns = int(tolerance_s * 1e9)
        self.clock = clock
        self.offsets_ns: dict[str, int] = {}  # device -> this host's clock minus the device's, where corrected

    def place(self, device: str, ts_ns: int) -> int:
        """The time to fold a sample of `device` stamped `ts_ns` at."""
        offset = self.offsets_ns.get(device, 0)
        now = self.clock()
        placed = ts_ns + offset
        if abs(now - placed) <= self.tolerance_ns:
            return placed
        offset = now - ts_ns
        if abs(offset) <= self.tolerance_ns:  # back within the tolerance: the device's own time again
            self.offsets_ns.pop(device, None)
            return ts_ns
        if device not in self.offsets_ns:
            log.warning("device clock off: its samples are placed by arrival for detection (check its NTP)",
                        extra={"device": device, "offset_s": round(offset / 1e9, 1)})
        self.offsets_ns[device] = offset
        return now
