"""A link's nominal speed from its tag ("400G", "100000M", "HDR", "HDR100"), in bit/s."""

from __future__ import annotations

import re

# InfiniBand generations as UFM's `active_speed` and ibstat name a 4x port's rate; a split port carries
# its own after the name ("HDR100")
IB_RATES = {"SDR": 10e9, "DDR": 20e9, "QDR": 40e9, "FDR10": 40e9, "FDR": 56e9, "EDR": 100e9, "HDR": 200e9,
            "NDR": 400e9, "XDR": 800e9}
_SPEED = re.compile(r"(\d{1,7}(?:\.\d{1,6})?)([GMT]?)")
_IB_SPLIT = re.compile(r"([A-Z]DR)(\d{2,3})")


def parse_speed(text: str | None, default_bps: float = 400e9) -> float:
    """A nominal speed tag ("400G", "100000M", "HDR", "HDR100") in bit/s; `default_bps` for anything else."""
    if not text:
        return default_bps
    t = text.strip().upper()
    if t in IB_RATES:
        return IB_RATES[t]
    if (m := _IB_SPLIT.fullmatch(t)) and m.group(1) in IB_RATES:
        return float(m.group(2)) * 1e9
    if m := _SPEED.fullmatch(t):
        return float(m.group(1)) * {"G": 1e9, "M": 1e6, "T": 1e12}.get(m.group(2), 1.0)
    return default_bps
