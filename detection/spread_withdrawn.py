"""Load is judged against the groups the traffic forms, and so is its absence. The fabric spreads a switch's
traffic up the tiers over its ports in that role (ECMP, adaptive routing), and down the tiers over the
parallel links towards one far switch. A link of such a group that is up and carried its share, but now
carries (nearly) nothing in one direction while its siblings carry load, has left the spread: a next hop
missing from the ECMP group, a withdrawn route. Nothing errs and nothing drops; the fabric runs a link short.

Carrying less than the siblings is hashing (polarised ECMP puts 4 % on one uplink and 37 % on another), and
a group idle together or lightly loaded says nothing. Links leaving the spread at once between one switch and
several others are that switch being drained.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fabricwatch.core.hits import RuleHit
from fabricwatch.models.features import (
    IDLE_PCT,
    MIN_SPREAD,
    MIN_SPREAD_LOAD,
    FeatureFrame,
    LinkState,
    group_medians,
    grown,
    spread_ids,
)
from fabricwatch.models.topology import first_sight

CARRIED = 0.25  # of its group's median: the link carried a share (polarised or not)
WITHDRAWN = 0.05  # of its group's median, and under IDLE_PCT of its line rate: nothing
RAISE_K, RAISE_N = 3, 4  # withdrawn in RAISE_K of the last RAISE_N intervals
DRAINING = 2  # switches one switch's links leaving the spread at once lead to or come from: it is drained
DIRECTIONS = ("receives", "sends")  # in, out

STATE = {"spread_carried": ((2,), np.bool_), "spread_carried_seeded": ((), np.bool_),
         "spread_bits": ((2,), np.uint8)}
# the directions a link carried its share in, as the model file lists them: index in + 2 * out
DIRECTIONS_CARRIED: tuple[tuple[str, ...], ...] = ((), ("receives",), ("sends",), ("receives", "sends"))


def _shares(frame: FeatureFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per link and direction (in, out): % of line rate it carries, its group's median, whether that median
    is loaded enough to judge, its share of it; and the group names and each link's group number."""
    names, gid, spread = spread_ids(frame.layout)
    usable = spread & (np.bincount(gid, minlength=len(names))[gid] >= MIN_SPREAD)
    up = ~(frame.reading("oper_status") < 0.5)
    octets = np.column_stack([frame.reading("in_octets"), frame.reading("out_octets")])
    reported = ~np.isnan(octets)
    util = np.where(up[:, None], np.nan_to_num(octets) * 8 * 100.0 / frame.line_bps[:, None], 0.0)
    median = group_medians(gid, util, len(names))[gid] if len(names) else np.zeros_like(util)
    loaded = usable[:, None] & reported & (median >= MIN_SPREAD_LOAD)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(loaded, util / median, np.nan)
    return util, median, loaded, share, names, gid


def carried_now(frame: FeatureFrame) -> np.ndarray:
    """(n, 2): the links carrying their share of a loaded group now, per direction."""
    _, _, loaded, share, _, _ = _shares(frame)
    return loaded & (share >= CARRIED)


class SpreadFit:
    """Which links carried their share of their group in a stream of frames, per direction: a daemon started
    after a link left the spread knows from the fit that the share was there."""

    def __init__(self) -> None:
        self._carried = np.zeros((0, 2), dtype=bool)

    def add(self, frame: FeatureFrame, ids: np.ndarray) -> None:
        """One interval; `ids[i]` is the link id of `frame.links[i]`."""
        if not len(ids):
            return
        self._carried = grown(self._carried, int(ids.max()) + 1)
        self._carried[ids] |= carried_now(frame)

    def result(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], tuple[bool, bool]]:
        n = min(len(keys), len(self._carried))
        return {keys[i]: (bool(self._carried[i, 0]), bool(self._carried[i, 1]))
                for i in np.nonzero(self._carried[:n].any(axis=1))[0].tolist()}


def to_json(carried: dict[tuple[str, str], tuple[bool, bool]]) -> list[list[Any]]:
    return sorted([d, p, *DIRECTIONS_CARRIED[int(i) + 2 * int(o)]] for (d, p), (i, o) in carried.items())


def from_json(rows: list[list[Any]]) -> dict[tuple[str, str], tuple[bool, bool]]:
    out = {}
    for d, p, *dirs in rows or []:
        out[(str(d), str(p))] = ("receives" in dirs, "sends" in dirs)
    return out


def spread_withdrawn(frame: FeatureFrame, rows: np.ndarray, state: LinkState, quiet: np.ndarray,
                     fitted: dict[tuple[str, str], tuple[bool, bool]], idle_switches: dict[str, bool]
                     ) -> dict[int, RuleHit]:
    """Links that left the spread of their group, by row; `quiet`: links whose device or operator acts now
    (a reboot settling, a bounce, a port shut), which say nothing of the routing; `fitted`: the directions
    each link carried its share in during the fit; `idle_switches`: per switch, whether it carried (nearly)
    nothing when last heard (kept here across intervals)."""
    util, median, loaded, share, names, gid = _shares(frame)
    _note_idle(frame, util, idle_switches)
    if not loaded.any():
        return {}
    up = ~(frame.reading("oper_status") < 0.5)
    before = state.seeded("spread_carried", rows, frame.layout.keys, lambda key: fitted.get(key, (False, False)))
    carried = before | (loaded & (share >= CARRIED))
    state["spread_carried"][rows] = carried
    gone = loaded & carried & up[:, None] & ~quiet[:, None] & (share < WITHDRAWN) & (util < IDLE_PCT)
    if gone.any():
        far_idle = np.array([idle_switches.get(f, False) for f in frame.layout.far_devices], dtype=bool)
        gone &= ~(_drained(frame, gone) | far_idle)[:, None]
    bits = ((state["spread_bits"][rows] << 1) | gone.astype(np.uint8)) & np.uint8((1 << RAISE_N) - 1)
    state["spread_bits"][rows] = bits
    held = gone & (np.bitwise_count(bits) >= RAISE_K)
    out = {}
    for i in np.nonzero(held.any(axis=1))[0].tolist():
        said = [f"{DIRECTIONS[d]} {util[i, d]:,.2g}% of line rate while the {names[gid[i]]} carry "
                f"{median[i, d]:,.0f}% (median)" for d in (0, 1) if held[i, d]]
        out[i] = RuleHit("warning", f"{'; '.join(said)}, where it carried its share before: left out of the spread "
                         "(a next hop missing from the ECMP group, a withdrawn route?); the fabric runs a link short",
                         "spread_withdrawn")
    return out


def _note_idle(frame: FeatureFrame, util: np.ndarray, idle_switches: dict[str, bool]) -> None:
    """Whether each switch heard now carries (nearly) nothing on most of its ports (`util`: per link and
    direction, % of line rate): a switch drained a while ago stays drained, and what is left of its links'
    groups loaded again later is not each of them withdrawn. A switch not heard in an interval (polled at
    another moment) is what it said last."""
    topo = frame.layout
    ids, devices = topo.memo("device_index", lambda: first_sight(topo.devices))
    idle = group_medians(ids, util.max(axis=1)[:, None], len(devices))[:, 0] < IDLE_PCT
    idle_switches.update(zip(map(str, devices), idle.tolist(), strict=True))


def _drained(frame: FeatureFrame, gone: np.ndarray) -> np.ndarray:
    """(n,): links of a switch drained now: its links towards DRAINING or more switches leave the spread at
    once, or links of DRAINING or more switches towards it do."""
    topo = frame.layout
    rows = np.nonzero(gone.any(axis=1))[0].tolist()
    reach: dict[str, set[str]] = {}
    for i in rows:
        near, far = topo.devices[i], topo.far_devices[i]
        if far:
            reach.setdefault(near, set()).add(far)
            reach.setdefault(far, set()).add(near)
    out = np.zeros(len(gone), dtype=bool)
    for i in rows:
        out[i] = any(len(reach.get(d, ())) >= DRAINING for d in (topo.devices[i], topo.far_devices[i]))
    return out
