"""Links that move together: a load swing over a crowd of a class, rail, switch or host, and a
device that bounces most of its links at once (a reboot, a firmware update)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from fabricwatch.models.class_model import _LOAD_FREE, UTIL
from fabricwatch.models.features import FeatureFrame, group_medians
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.topology import first_sight

SETTLE_INTERVALS = 4  # after a device-wide bounce (reboot, firmware update): at least the flap window
CROWD_CLASS = 0.15  # share of a class over its threshold at once: load, not that many faults
CROWD_RAIL = 0.5  # the same within one rail, or one device, of a class (a busy rail, one job's hosts)
# % of line rate: a machine's links carry clearly more than their class (an incast to it, its checkpoint), not
# a coin's toss around the class's median
HOT_MARGIN = 5.0
CROWD_FAR_END = 1 / 3  # the same among the links of a class that reach one far device (a host's NICs)
# machines of one class (and as many far ends) whose links show the same load signal furthest above the class at the
# same moment: faults are rare and independent, so this many at once is what they share (one job's hosts)
CROWD_MACHINES = 4


def alike(values: np.ndarray, over: np.ndarray, margin: float) -> np.ndarray:
    """The `over` rows whose value is within `margin` times another `over` row's, either way: a loss far away
    reaches many links at once, each about alike, wherever they are; healthy links showing a few make no crowd
    of one showing a thousand times more, nor does that one of them."""
    rows = np.flatnonzero(over)
    ordered = np.sort(values[rows])
    near = (np.searchsorted(ordered, values[rows] * margin, side="right")
            - np.searchsorted(ordered, values[rows] / margin, side="left"))
    out = np.zeros(len(values), dtype=bool)
    out[rows[near >= 2]] = True
    return out


def _busier_than_class(frame: FeatureFrame) -> np.ndarray:
    """Links carrying HOT_MARGIN more than the median link of their class now (all of it, not the peers at
    a similar load that the frame's medians are taken over)."""
    util = np.nan_to_num(frame.own_raw[:, UTIL])
    cid, names = first_sight(frame.classes)
    return util > group_medians(cid, util[:, None], len(names))[cid, 0] + HOT_MARGIN


def _crowd(frame: FeatureFrame, over: np.ndarray, *, far_end_only: bool = False, hot_machines: bool = False
           ) -> np.ndarray:
    """Links over the threshold together with much of their class, or of their rail in it: a load
    swing moves all of them (a job starting, an all-to-all, a hot rail), a degraded link moves alone.
    Corruption and flaps do not follow load, so links showing them are never part of a crowd.
    `hot_machines`: one machine's links (its own, or those reaching it) are a crowd only where they
    carry more than their class now (an incast to it, its checkpoint); a machine whose links carry what
    their class does and drop where the class does not is that machine's trouble (a host too slow to
    take what it is sent)."""
    n = len(frame.links)
    out = np.zeros(n, dtype=bool)
    if not over.any():
        return out
    own, med = frame.own_raw, frame.class_median_raw
    load_free = np.zeros(n, dtype=bool)
    for k in _LOAD_FREE:
        load_free |= np.nan_to_num(own[:, k]) > np.nan_to_num(med[:, k])
    by_class = [(c, "") for c in frame.classes]
    by_rail = [(c, li.tags.get("rail", "")) for c, li in zip(frame.classes, frame.links, strict=True)]
    by_device = [(c, li.device) for c, li in zip(frame.classes, frame.links, strict=True)]
    # one host's NICs on every rail (or one leaf's uplinks seen from the spines): traffic to and from
    # one machine (an incast to it, its checkpoint) moves all its links; a bad NIC or cable moves one
    by_far_end = [(c, li.tags.get("peer_device", "") or f"?{i}") for i, (c, li)
                  in enumerate(zip(frame.classes, frame.links, strict=True))]
    busier = _busier_than_class(frame) if hot_machines else np.ones(n, dtype=bool)
    groupings = [(CROWD_FAR_END, 3, by_far_end, busier)]
    if not far_end_only:
        everyone = np.ones(n, dtype=bool)
        groupings += [(CROWD_CLASS, 4, by_class, everyone), (CROWD_RAIL, 4, by_rail, everyone),
                      (CROWD_RAIL, 4, by_device, busier)]
    per_device: dict[tuple[str, str], int] = {}
    for g in by_device:
        per_device[g] = per_device.get(g, 0) + 1
    for share, least, keys, may in groupings:
        size: dict[tuple[str, str], int] = {}
        hot: dict[tuple[str, str], list[int]] = {}
        for i in range(n):
            g = keys[i]
            size[g] = size.get(g, 0) + 1
            if over[i] and may[i]:
                hot.setdefault(g, []).append(i)
        for g, rows in hot.items():
            # towards one far device, a crowd is that device's traffic (an incast), through whichever ports
            if len(rows) >= least and len(rows) >= share * size[g] and (
                    keys is by_far_end or not _part_of_one_switch(rows, by_device, per_device)):
                out[rows] = True
    if not far_end_only:
        out |= _same_signal_on_many_machines(frame, over)
    return out & ~load_free


def _same_signal_on_many_machines(frame: FeatureFrame, over: np.ndarray) -> np.ndarray:
    """Links over the threshold whose load signal furthest above their class's median now is the same as on links of
    that class on CROWD_MACHINES machines or more at once."""
    out = np.zeros(len(frame.links), dtype=bool)
    rows = np.flatnonzero(over)
    if len(rows) < CROWD_MACHINES:
        return out
    loaded = np.array([k for k in range(frame.own_raw.shape[1]) if k not in _LOAD_FREE and k != UTIL])
    own = np.nan_to_num(frame.own_raw[np.ix_(rows, loaded)])
    med = np.nan_to_num(frame.class_median_raw[np.ix_(rows, loaded)])
    signal = np.argmax(own / (np.abs(med) + 1.0), axis=1)
    machines: dict[tuple[str, int], set[str]] = {}
    far: dict[tuple[str, int], set[str]] = {}
    members: dict[tuple[str, int], list[int]] = {}
    for i, j in zip(rows.tolist(), signal.tolist(), strict=True):
        key, li = (frame.classes[i], j), frame.links[i]
        machines.setdefault(key, set()).add(li.device)
        far.setdefault(key, set()).add(li.tags.get("peer_device", "") or f"?{i}")
        members.setdefault(key, []).append(i)
    for key, devices in machines.items():
        # and as many far ends: the links of one host, each on a switch of its own, are that host's
        if len(devices) >= CROWD_MACHINES and len(far[key]) >= CROWD_MACHINES:
            out[members[key]] = True
    return out


def _part_of_one_switch(rows: list[int], by_device: list[tuple[str, str]], per_device: dict[tuple[str, str], int]
                        ) -> bool:
    """Whether a crowd is confined to under CROWD_RAIL of one switch's links of its class: that switch's (a line
    card, its profile), whatever share of the links heard at that moment it makes (a switch polled apart from
    the others is the class's only one then)."""
    device = by_device[rows[0]]
    return all(by_device[i] == device for i in rows) and len(rows) < CROWD_RAIL * per_device[device]


def _device_events(links: list[LinkInterval], bounced: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Links whose device, or the host at their far end, bounced several links together recently (at
    least 3, or all of them: a reboot, a firmware update, a rack of hosts restarting, maintenance; one cause,
    not that many cables). Second: links of a group where two bounced, so it may be one forming."""
    out = np.zeros(len(links), dtype=bool)
    forming = np.zeros(len(links), dtype=bool)
    for group_of in (lambda li: li.device, lambda li: li.tags.get("peer_device", "")):
        seen: dict[str, int] = {}
        down: dict[str, list[int]] = {}
        for i, li in enumerate(links):
            g = group_of(li)
            if not g:
                continue
            seen[g] = seen.get(g, 0) + 1
            if bounced[i]:
                down.setdefault(g, []).append(i)
        for g, rows in down.items():
            # or every one of its links, however few it has (a host dual-homed on two leaves rebooting)
            if len(rows) >= 3 or (len(rows) >= 2 and len(rows) == seen[g]):
                out[rows] = True
            elif len(rows) >= 2:
                forming[rows] = True
    return out, forming & ~out


class FarBounces:
    """Which far devices bounced every one of their links within the settle window, as their links were heard:
    a host whose NICs reach switches polled at different moments bounces them together over intervals none of
    which holds them all (a host dual-homed on a leaf pair polled in turn rebooting)."""

    def __init__(self) -> None:
        self._links: dict[str, set[tuple[str, str]]] = {}  # per far device, the links heard towards it
        self._far: dict[tuple[str, str], str] = {}  # per link, the far device it was last heard towards
        self._bounced: dict[str, dict[tuple[str, str], int]] = {}  # per far device, when each of its links bounced
        self._layout: object = None
        self._tick = 0

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        """These links are gone (their target was removed): no far device waits for them to bounce."""
        for key in keys:
            self._move(key, "")

    def _move(self, key: tuple[str, str], far: str) -> None:
        was = self._far.pop(key, "")
        if was:
            self._links[was].discard(key)
            if not self._links[was]:
                del self._links[was]
            self._bounced.get(was, {}).pop(key, None)
        if far:
            self._far[key] = far
            self._links.setdefault(far, set()).add(key)

    def observe(self, frame: FeatureFrame, bounced: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per link of the frame, whether every link towards its far device (two or more) bounced within the
        last SETTLE_INTERVALS intervals; second, the links that bounced now towards a far device whose other
        links are heard at other moments (theirs may follow); `bounced`: the links that bounced now."""
        self._tick += 1
        links = frame.links
        if frame.layout is not self._layout:
            self._layout = frame.layout
            # a link heard now is towards its far device now (re-cabled, or its far end no longer known)
            for li in links:
                key, far = (li.device, li.port), li.tags.get("peer_device", "")
                if self._far.get(key, "") != far:
                    self._move(key, far)
        out = np.zeros(len(links), dtype=bool)
        for i in np.nonzero(bounced)[0].tolist():
            li = links[i]
            if far := li.tags.get("peer_device", ""):
                self._bounced.setdefault(far, {})[(li.device, li.port)] = self._tick
        for far in list(self._bounced):
            recent = {k for k, t in self._bounced[far].items() if self._tick - t < SETTLE_INTERVALS}
            if not recent:
                del self._bounced[far]
        together = {far for far, ticks in self._bounced.items() if len(self._links.get(far, ())) >= 2
                    and self._links[far] <= {k for k, t in ticks.items() if self._tick - t < SETTLE_INTERVALS}}
        if together:
            for i, li in enumerate(links):
                out[i] = li.tags.get("peer_device", "") in together
        waiting = np.zeros(len(links), dtype=bool)
        here = frame.layout.memo("far_counts", lambda: _far_counts(links))
        for i in np.nonzero(bounced & ~out)[0].tolist():
            far = links[i].tags.get("peer_device", "")
            waiting[i] = bool(far) and len(self._links.get(far, ())) > here.get(far, 0)
        return out, waiting


def _far_counts(links: list[LinkInterval]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for li in links:
        if far := li.tags.get("peer_device", ""):
            counts[far] = counts.get(far, 0) + 1
    return counts
