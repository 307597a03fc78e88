"""State is a signal: what a link trains to when it comes up (its speed, its width, its lanes' speed) and
holds while it is up, judged against what the same link held before. A link up with less is degraded (a
lane, an optic, a cable), whatever the device's enumeration of the reading: a change is judged, not a value.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fabricwatch.core.counters import TRAINED
from fabricwatch.core.hits import RuleHit
from fabricwatch.detection.rules import SPEED_SHORTFALL
from fabricwatch.models.features import FeatureFrame, LinkState, grown

STATE = {"trained": ((len(TRAINED),), np.float32), "trained_seeded": ((), np.bool_),
         "was_degraded": ((), np.bool_)}


def _readings(frame: FeatureFrame) -> np.ndarray:
    """(n, len(TRAINED)) of the frame's links while up, NaN where a link is down or says nothing."""
    now = np.column_stack([frame.reading(k) for k in TRAINED])
    down = frame.reading("oper_status") < 0.5
    now[down] = np.nan
    return now


class TrainedFit:
    """The most each link trained to while up in a stream of frames."""

    def __init__(self) -> None:
        self._max = np.full((0, len(TRAINED)), np.nan)

    def add(self, frame: FeatureFrame, ids: np.ndarray) -> None:
        """One interval; `ids[i]` is the link id of `frame.links[i]`."""
        if not len(ids):
            return
        self._max = grown(self._max, int(ids.max()) + 1, np.nan)
        self._max[ids] = np.fmax(self._max[ids], _readings(frame))

    def result(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], tuple[float, ...]]:
        n = min(len(keys), len(self._max))
        some = ~np.isnan(self._max[:n]).all(axis=1)
        return {keys[i]: tuple(float(v) for v in self._max[i]) for i in np.nonzero(some)[0].tolist()}


def to_json(held: dict[tuple[str, str], tuple[float, ...]]) -> dict[str, Any]:
    return {"readings": list(TRAINED),
            "links": sorted([d, p, *(None if math.isnan(v) else v for v in vals)] for (d, p), vals in held.items())}


def from_json(data: dict[str, Any]) -> dict[tuple[str, str], tuple[float, ...]]:
    """The fitted values, in today's TRAINED order (a reading the model did not know is NaN)."""
    names = list(data.get("readings") or [])
    out = {}
    for row in data.get("links") or []:
        d, p, *vals = row
        by_name = {n: (math.nan if v is None else float(v)) for n, v in zip(names, vals, strict=False)}
        out[(str(d), str(p))] = tuple(by_name.get(k, math.nan) for k in TRAINED)
    return out


def retrained_lower(frame: FeatureFrame, rows: np.ndarray, state: LinkState,
                    fitted: dict[tuple[str, str], tuple[float, ...]], below_nominal: np.ndarray) -> dict[int, RuleHit]:
    """Links up with less of a trained reading than they held before (in the fit or since), by row;
    updates what each link held. A speed `below_nominal` is said by that rule already."""
    held = state.seeded("trained", rows, frame.layout.keys,
                        lambda key: np.nan_to_num(fitted.get(key, 0.0))).astype(np.float64)
    now = _readings(frame)
    with np.errstate(invalid="ignore"):
        lower = now < SPEED_SHORTFALL * held
    state["trained"][rows] = np.fmax(held, now)
    lower[:, TRAINED.index("speed_bps")] &= ~below_nominal
    out = {}
    for i in np.nonzero(lower.any(axis=1))[0].tolist():
        said = [f"{k} {_shown(k, now[i, j])} where it held {_shown(k, held[i, j])}"
                for j, k in enumerate(TRAINED) if lower[i, j]]
        out[i] = RuleHit("critical", f"{', '.join(said)} before: the link trained down (a lane, optic or cable?)",
                         "retrained_lower")
    return out


def repaired(frame: FeatureFrame, rows: np.ndarray, state: LinkState, degraded: np.ndarray) -> np.ndarray:
    """Links up whole now that were last up `degraded` (below their nominal speed, or with less than they held):
    the bounce between was their repair (a cable reseated, an optic swapped), not the link flapping. Updates
    what each link was last seen as; a link down keeps it."""
    up = ~(frame.reading("oper_status") < 0.5)
    was = state["was_degraded"][rows]
    out = was & up & ~degraded
    state["was_degraded"][rows] = np.where(up, degraded, was)
    return out


def _shown(name: str, value: float) -> str:
    return f"{value / 1e9:,.0f}G" if name == "speed_bps" else f"{value:g}"
