"""Unit conversions of the physical layer, done here and nowhere else."""

from __future__ import annotations

import math

NO_LIGHT_DBM = -40.0  # what 0 mW (or a reading below it) is stored as: no light, not -inf


def mw_to_dbm(mw: float) -> float:
    """Optical power in dBm from mW; no light (0 or less) is NO_LIGHT_DBM, never -inf."""
    if not mw > 0.0:  # also NaN
        return NO_LIGHT_DBM
    return max(NO_LIGHT_DBM, 10.0 * math.log10(mw))


def dbm_to_mw(dbm: float) -> float:
    return 0.0 if dbm <= NO_LIGHT_DBM else 10.0 ** (dbm / 10.0)


def parse_length_m(text: str) -> str:
    """A cable or reach length as metres, from '3m', '0.5 m', '2km', '300m'; '' when unknown."""
    t = text.strip().lower().replace(" ", "")
    for suffix, mult in (("km", 1000.0), ("m", 1.0)):
        if t.endswith(suffix):
            try:
                value = float(t[: -len(suffix)]) * mult
            except ValueError:
                return ""
            return f"{value:g}"
    try:
        return f"{float(t):g}"
    except ValueError:
        return ""
