"""Load judged at the same moment, against the links that share a situation.

A congestion signal many links show at once (an all-to-all, a job spanning pods, a storage burst) is
load, however far above the training window it is. A link is suspect when it stands far from the links
that share its situation *now* — the ports of its switch in the same role (a leaf's uplinks), the ports
reaching the same far device — per unit of the load it carries, and further than it usually stands from
them. The groups are data: each link's group is named in the finding it raises.

`SiblingRatios.fit` learns each link's usual log-ratio to its group from healthy history (a slow HCA
that always waits 3x its siblings, a polarised uplink); `score` gives the ratio of every link now.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from fabricwatch.models.features import (
    DOWN_ROLES,
    OWN_NAMES,
    SPREAD_ROLES,
    FeatureFrame,
    group_medians,
    spread_over,
)
from fabricwatch.models.topology import Topology, first_sight

# the congestion signals judged this way (groups: `_group_key`); pauses a port *sends* are its switch's
# congestion elsewhere
GROUPED = ("xmit_wait", "pfc_rx", "pause")
G_INDEX = [OWN_NAMES.index(n) for n in GROUPED]
PAUSES_RECEIVED = [GROUPED.index(n) for n in ("pfc_rx", "pause")]
WAITS = [GROUPED.index("xmit_wait")]
UTIL = OWN_NAMES.index("util_pct")
HOST_ROLES = frozenset({"leaf_down", "host"})
FACING_HOSTS = "leaf_down"  # a switch's port towards a host
FLOWING_PCT = 10.0  # % of line rate the paused direction still carries: the pauses pace it, they do not stop it
USUAL_QUANTILE = 0.95
# how far healthy links of a class stand from their group now and then: beyond this quantile of their ratios, and
# beyond OUTLIER_RATIO, a link stands out (where every port's waits are heavy-tailed the tail is no finding)
TAIL_QUANTILE = 0.99
OUTLIER_K, OUTLIER_N = 3, 4  # intervals of the last N a link must stand out in: one interval's spike is a heavy tail
OUTLIER_RATIO = 8.0  # per unit of load over its group's median, beyond the link's usual ratio to it
# healthy links of a class that held a standing for OUTLIER_K of OUTLIER_N intervals: one alone may have been a fault
HELD_LINKS = 2
HELD_MARGIN = 2.0  # within this factor of what they held, a link does what they did (ratios of heavy tails are noisy)
_FITS = itertools.count()
MIN_GROUP = 4  # links in a group before its median means anything
MIN_UTIL = 1.0  # % of line rate: per-load values below this are not compared


@dataclass
class GroupView:
    """Each link's value per unit of load over its group's median at this moment (NaN: no group, or
    a signal the link's role cannot be blamed for), and the group it was judged against."""

    ratio: np.ndarray  # (n, len(GROUPED))
    median: np.ndarray  # (n, len(GROUPED)) the group's median value (not per load)
    group: np.ndarray  # (n, len(GROUPED)) of str: the group each signal of the link was judged against
    size: np.ndarray  # (n, len(GROUPED)) its links (0: none)




def _group_key(device: str, role: str, peer: str) -> tuple[str, str, str]:
    """A link's situation, for its credit waits and for the pauses it receives. Up the tiers, the ports of its
    switch in its role, which the switch spreads its traffic over (for waits; pauses received there follow
    where the traffic goes, and have none). Down the tiers, the parallel links towards the same far switch,
    which the tier above spreads the traffic towards it over: a switch that cannot drain makes them all wait
    and pauses them all; their waits are also held against the switch's own ports in the role (third), and
    the nearer of the two is what they are judged against: a link is its own only where no group sharing its
    situation explains it (waits are heavy-tailed, and ten parallel links are few). For a host link, the
    links reaching the same host (its NICs on every rail run one job): a leaf's ports towards it, or its own
    NICs. Else none."""
    spread = spread_over(device, role, peer)
    if role in DOWN_ROLES and peer:
        return spread, spread, f"{device} {role} ports"
    if spread:
        return spread, "", ""
    if role == FACING_HOSTS and peer:
        return f"links to {peer}", f"links to {peer}", ""
    if role in HOST_ROLES:  # a host's own NICs: their far ends are leaves, each serving other hosts' jobs too
        return f"links of {device}", f"links of {device}", ""
    return "", "", ""


Grouping = tuple[np.ndarray, np.ndarray]  # (group names, per link its group's number into them)


def _group_ids(topology: Topology) -> list[Grouping]:
    """Per link its three groups (`_group_key`: waits, pauses received, waits also)."""
    keys = [_group_key(d, r, p) for d, r, p in zip(topology.devices, topology.roles, topology.far_devices,
                                                    strict=True)]
    out = []
    for col in (0, 1, 2):
        gid, names = first_sight([g[col] for g in keys])
        out.append((np.array(names, dtype=object).reshape(len(names)), gid))
    return out


def _against(grouping: Grouping, per_load: np.ndarray, values: np.ndarray, carrying: np.ndarray
             ) -> tuple[np.ndarray, ...]:
    """(ratio, median, size, usable) of each column of `per_load` against its group's median now, over the
    group's links `carrying` traffic: one drained or idle shares no situation with those carrying the load."""
    names, gid = grouping
    n, k = per_load.shape
    ratio, median = np.full((n, k), np.nan), np.zeros((n, k))
    if not len(gid):
        return ratio, median, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    n_of = np.bincount(gid[carrying], minlength=len(names))[gid]
    usable = (n_of >= MIN_GROUP) & (names[gid] != "")
    if usable.any():
        rows = np.nonzero(carrying)[0]
        present, at = np.unique(gid[rows], return_inverse=True)  # the groups with a link carrying
        med_c = group_medians(at.reshape(-1), np.hstack([per_load, values])[rows], len(present))
        med = np.zeros((n, 2 * k))
        med[usable] = med_c[np.searchsorted(present, gid[usable])]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(med[:, :k] > 0, per_load / np.where(med[:, :k] > 0, med[:, :k], 1.0), np.nan)
        ratio[usable] = r[usable]
        median[usable] = med[usable, k:]
    return ratio, median, np.where(usable, n_of, 0), usable


def paced_by_host(frame: FeatureFrame) -> np.ndarray:
    """Per link, whether it is a switch's port towards a host that receives pauses while what it sends the host
    still flows (FLOWING_PCT of its line rate or more): the host pacing what it is sent (a slow receiver), not
    the link's fault; pauses that stop the traffic are a storm, which the rules judge."""
    facing = np.array([r == FACING_HOSTS for r in frame.layout.roles], dtype=bool)
    speeds = frame.line_bps
    sends = frame.rate("out_octets") * 8 * 100.0 / speeds
    return facing & (sends >= FLOWING_PCT)


def cables_down(frame: FeatureFrame) -> np.ndarray:
    """Per link, whether its cable is down now: either end says so (light one way only: a port whose receive fibre is
    not seated is down, its far end still getting light reports up)."""
    down = np.nan_to_num(frame.reading("oper_status"), nan=1.0) < 0.5
    far = frame.layout.far_rows
    down[far >= 0] |= down[far[far >= 0]]
    return down


def parallel_down(frame: FeatureFrame, unheard: Collection[tuple[str, str]] = ()) -> np.ndarray:
    """Per link, whether another link of its device towards the same far device is down now (at either end of its
    cable): the traffic spread over them runs on the ones left, which carry the down link's share as well (its
    consequence, not their fault)."""
    topo = frame.layout
    down = cables_down(frame)
    out = np.zeros(len(topo), dtype=bool)
    if not down.any() and not unheard:
        return out
    pairs, names = first_sight(list(zip(topo.devices, topo.far_devices, strict=True)))
    has_far = np.array([bool(f) for f in topo.far_devices], dtype=bool)
    with_down = np.union1d(pairs[down & has_far], [k for k, pair in enumerate(names) if pair in unheard])
    return np.isin(pairs, with_down) & has_far & ~down


def group_view(frame: FeatureFrame) -> GroupView:
    """Per link and grouped signal, (value / util) over the group's median of (value / util)."""
    n = len(frame.links)
    topo = frame.layout
    by_signal = topo.memo("group_ids", lambda: _group_ids(topo))
    own = np.nan_to_num(frame.own_raw)
    carrying = own[:, UTIL] >= MIN_UTIL
    util = np.maximum(own[:, UTIL], MIN_UTIL)
    values = own[:, G_INDEX]
    per_load = values / util[:, None]
    ratio = np.full((n, len(GROUPED)), np.nan)
    median = np.zeros((n, len(GROUPED)))
    size = np.zeros((n, len(GROUPED)), dtype=np.int64)
    for col, signals in ((0, WAITS), (1, PAUSES_RECEIVED)):
        r, m, k, _ = _against(by_signal[col], per_load[:, signals], values[:, signals], carrying)
        ratio[:, signals], median[:, signals], size[:, signals] = r, m, k[:, None]
    ratio[np.ix_(paced_by_host(frame), np.array(PAUSES_RECEIVED))] = np.nan
    names = topo.memo("group_names", lambda: _group_names(by_signal, n))
    also = by_signal[2]
    if (also[0] != "").any():
        r, m, k, usable = _against(also, per_load[:, WAITS], values[:, WAITS], carrying)
        first = ratio[:, WAITS[0]]
        nearer = usable & ~np.isnan(r[:, 0]) & (np.isnan(first) | (r[:, 0] < first))
        if nearer.any():
            ratio[nearer, WAITS[0]], median[nearer, WAITS[0]], size[nearer, WAITS[0]] = r[nearer, 0], m[nearer, 0], \
                k[nearer]
            names = names.copy()
            names[nearer, WAITS[0]] = also[0][also[1][nearer]]
    if frame.unreported is not None:  # a value at its peers' median is no standing of its own
        ratio[frame.unreported[:, G_INDEX]] = np.nan
    return GroupView(ratio, median, names, size)


def _group_names(by_signal: list[Grouping], n: int) -> np.ndarray:
    """(n, len(GROUPED)): the name of the group each signal of each link is judged against first."""
    group = np.empty((n, len(GROUPED)), dtype=object)
    for col, signals in ((0, WAITS), (1, PAUSES_RECEIVED)):
        names, gid = by_signal[col]
        group[:, signals] = names[gid][:, None]
    return group


K = TypeVar("K")


def _per_row(table: Mapping[K, np.ndarray], keys: Sequence[K]) -> np.ndarray:
    """(n, len(GROUPED)): each key's row of a fitted table (0 where it has none)."""
    out = np.zeros((len(keys), len(GROUPED)))
    if table:
        for i, key in enumerate(keys):
            row = table.get(key)
            if row is not None:
                out[i] = row
    return out


@dataclass
class SiblingRatios:
    """Fitted attributes `usual_`: per link that usually stands out of its group, how far it went (log10,
    the USUAL_QUANTILE of healthy history); `tails_`: per link class, how far its links that sit with their
    group went now and then (log10, the TAIL_QUANTILE of their healthy history pooled); `known_`: the links
    seen in their group for MIN_STANDING intervals at least (a counter stuck at its ceiling shows nothing)."""

    usual_: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    tails_: dict[str, np.ndarray] = field(default_factory=dict)
    # per link class, how far HELD_LINKS of its links that sit with their group stood in OUTLIER_K of OUTLIER_N
    # intervals (log10): a standing held that long is what the class does, though any one interval of it is rare
    held_: dict[str, np.ndarray] = field(default_factory=dict)
    # per link class, how many intervals in a row HELD_LINKS of those links stood OUTLIER_RATIO out: a standing held
    # longer than healthy links held one is the link's, however far healthy links stood for a while
    held_for_: dict[str, np.ndarray] = field(default_factory=dict)
    # per link, the signals whose standing in its group healthy history showed (None: a model file from before)
    known_: dict[tuple[str, str], np.ndarray] | None = None
    fit_id: int = field(default_factory=lambda: next(_FITS))  # which fit these are: what a cache goes by

    def fit(self, frames: Iterable[FeatureFrame]) -> SiblingRatios:
        index: dict[tuple[str, str], int] = {}
        acc = SiblingFit()
        for frame in frames:
            keys = [(li.device, li.port) for li in frame.links]
            acc.add(frame, np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.int64))
        return acc.result(list(index), self)

    def usual(self, keys: Sequence[tuple[str, str]]) -> np.ndarray:
        return _per_row(self.usual_, keys)

    def known(self, keys: Sequence[tuple[str, str]]) -> np.ndarray:
        """(n, len(GROUPED)): whether healthy history showed where each link usually stands in its group."""
        out = np.ones((len(keys), len(GROUPED)), dtype=bool)
        if self.known_ is not None:
            none = np.zeros(len(GROUPED), dtype=bool)
            for i, key in enumerate(keys):
                out[i] = self.known_.get(key, none)
        return out

    def tails(self, classes: Sequence[str]) -> np.ndarray:
        """(n, len(GROUPED)): the tail of each link's class (0 where none was learned)."""
        return _per_row(self.tails_, classes)

    def held(self, classes: Sequence[str]) -> np.ndarray:
        """(n, len(GROUPED)): how far a link of each link's class may hold a standing, as healthy links of its class
        did (log10, within HELD_MARGIN of them; 0 where none was learned)."""
        t = _per_row(self.held_, classes)
        return np.where(t > 0, t + math.log10(HELD_MARGIN), 0.0)

    def held_for(self, classes: Sequence[str]) -> np.ndarray:
        """(n, len(GROUPED)): how many intervals in a row healthy links of each link's class stood out (0: none)."""
        return _per_row(self.held_for_, classes).astype(np.int64)

    def to_json(self) -> dict[str, Any]:
        return {"names": list(GROUPED),
                "links": [[d, p, [round(float(v), 3) for v in u]] for (d, p), u in sorted(self.usual_.items())],
                "tails": [[c, [round(float(v), 3) for v in t]] for c, t in sorted(self.tails_.items())],
                "held": [[c, [round(float(v), 3) for v in t]] for c, t in sorted(self.held_.items())],
                "held_for": [[c, [int(v) for v in t]] for c, t in sorted(self.held_for_.items())],
                **({} if self.known_ is None else {"known": [[d, p, [GROUPED[j] for j in np.nonzero(k)[0]]]
                                                              for (d, p), k in sorted(self.known_.items())]})}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SiblingRatios:
        names = list(data["names"])
        out = cls()

        def row_of(values: Iterable[float]) -> np.ndarray:
            row = np.zeros(len(GROUPED))
            for name, v in zip(names, values, strict=True):
                if name in GROUPED:
                    row[GROUPED.index(name)] = float(v)
            return row

        for d, p, values in data["links"]:
            out.usual_[(str(d), str(p))] = row_of(values)
        for c, values in data.get("tails", ()):  # a model file from before tails: none
            out.tails_[str(c)] = row_of(values)
        for c, values in data.get("held", ()):
            out.held_[str(c)] = row_of(values)
        for c, values in data.get("held_for", ()):
            out.held_for_[str(c)] = row_of(values).astype(np.int64)
        if "known" in data:
            out.known_ = {(str(d), str(p)): np.isin(np.array(GROUPED), [str(n) for n in signals])
                          for d, p, signals in data["known"]}
        return out


MIN_STANDING = 10  # intervals a link is seen in its group before where it usually stands is known
SIBLING_ROWS = 512  # intervals of its history a link keeps for its usual ratio (a uniform sample beyond)


class SiblingFit:
    """`SiblingRatios.fit` over a stream of frames: per link id, its log-ratios to its group in every
    interval while it has at most `cap` of them, a uniform sample (reservoir) of `cap` beyond."""

    def __init__(self, cap: int = SIBLING_ROWS, seed: int = 7) -> None:
        self.cap = cap
        self._rng = np.random.default_rng(seed)
        self._rows = np.zeros((0, cap, len(GROUPED)))
        self._seen = np.zeros(0, dtype=np.int64)
        self._class = np.zeros(0, dtype=object)
        # per link id, online over its whole history: its last OUTLIER_N log-ratios, the most it stood in
        # OUTLIER_K of OUTLIER_N of them, its run of intervals OUTLIER_RATIO out and its longest such run
        self._last = np.zeros((0, OUTLIER_N, len(GROUPED)))
        self._held_most = np.zeros((0, len(GROUPED)))
        self._run = np.zeros((0, len(GROUPED)), dtype=np.int64)
        self._run_most = np.zeros((0, len(GROUPED)), dtype=np.int64)

    def add(self, frame: FeatureFrame, ids: np.ndarray) -> None:
        """One interval; `ids[i]` is the link id of `frame.links[i]` (each link once)."""
        view = group_view(frame)
        with np.errstate(divide="ignore", invalid="ignore"):
            lr = np.log10(view.ratio)
        lr[~np.isfinite(lr)] = np.nan
        some = ~np.isnan(lr).all(axis=1)
        if not some.any():
            return
        ids, lr = ids[some], lr[some]
        top = int(ids.max()) + 1
        if top > len(self._seen):
            grow = max(top, len(self._seen) + len(self._seen) // 4 + 64)
            self._rows = np.concatenate([self._rows, np.full((grow - len(self._rows), self.cap, len(GROUPED)),
                                                             np.nan)])
            self._seen = np.concatenate([self._seen, np.zeros(grow - len(self._seen), dtype=np.int64)])
            self._class = np.concatenate([self._class, np.full(grow - len(self._class), "", dtype=object)])
            more = grow - len(self._last)
            self._last = np.concatenate([self._last, np.full((more, OUTLIER_N, len(GROUPED)), -np.inf)])
            self._held_most = np.concatenate([self._held_most, np.full((more, len(GROUPED)), -np.inf)])
            self._run = np.concatenate([self._run, np.zeros((more, len(GROUPED)), dtype=np.int64)])
            self._run_most = np.concatenate([self._run_most, np.zeros((more, len(GROUPED)), dtype=np.int64)])
        self._class[ids] = np.asarray(frame.classes, dtype=object)[some]
        x = np.nan_to_num(lr, nan=-np.inf)
        last = np.concatenate([self._last[ids, 1:], x[:, None, :]], axis=1)
        self._last[ids] = last
        held = np.sort(last, axis=1)[:, OUTLIER_N - OUTLIER_K]
        self._held_most[ids] = np.maximum(self._held_most[ids], held)
        run = np.where(x >= math.log10(OUTLIER_RATIO), self._run[ids] + 1, 0)
        self._run[ids] = run
        self._run_most[ids] = np.maximum(self._run_most[ids], run)
        t = self._seen[ids]
        slot = np.where(t < self.cap, t, self._rng.integers(0, np.maximum(t, 1) + 1))
        keep = slot < self.cap
        self._rows[ids[keep], slot[keep]] = lr[keep]
        self._seen[ids] = t + 1

    def result(self, keys: Sequence[tuple[str, str]], into: SiblingRatios | None = None) -> SiblingRatios:
        """The fitted ratios; `keys[i]` names link id i."""
        out = into if into is not None else SiblingRatios()
        out.usual_ = {}
        for i in np.nonzero(self._seen)[0].tolist():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                a = self._rows[i, : min(int(self._seen[i]), self.cap)]
                med = np.nan_to_num(np.nanmedian(a, axis=0))
                high = np.nan_to_num(np.nanquantile(a, USUAL_QUANTILE, axis=0))
            # a link that usually stands out of its group (a slow HCA, a polarised uplink) is judged from
            # how far it went in healthy history; one that usually sits with it, from its group alone
            if med.max() >= 0.1:
                out.usual_[keys[i]] = np.where(med >= 0.1, np.maximum(high, 0.0), 0.0)
        out.tails_ = self._tails()
        out.held_, out.held_for_ = self._held()
        shown = (~np.isnan(self._rows)).sum(axis=1) >= np.minimum(self._seen, MIN_STANDING)[:, None]
        out.known_ = {keys[i]: shown[i] & (self._seen[i] >= MIN_STANDING) for i in np.nonzero(self._seen)[0].tolist()}
        out.fit_id = next(_FITS)
        return out

    def _tails(self) -> dict[str, np.ndarray]:
        """Per class, the TAIL_QUANTILE of its links' log-ratios, pooled over the links that sit with their
        group (a link that usually stands out is judged from its own history)."""
        out = {}
        seen = np.nonzero(self._seen)[0]
        for c in sorted(set(self._class[seen].tolist())):
            of = seen[self._class[seen] == c]
            rows = self._rows[of]  # (k, cap, G); NaN beyond each link's rows
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                sits = np.nan_to_num(np.nanmedian(rows, axis=1)) < 0.1  # (k, G)
                pooled = np.where(sits[:, None, :], rows, np.nan).reshape(-1, len(GROUPED))
                tail = np.nanquantile(pooled, TAIL_QUANTILE, axis=0)
            out[c] = np.maximum(np.nan_to_num(tail), 0.0)
        return out


    def _held(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Per class, over its links that sit with their group, the HELD_LINKS-th highest of the most each stood in
        OUTLIER_K of OUTLIER_N intervals in a row, and of the longest run of intervals each stood OUTLIER_RATIO
        out (one link's may have been a fault of its own)."""
        held, held_for = {}, {}
        seen = np.nonzero(self._seen)[0]
        for c in sorted(set(self._class[seen].tolist())):
            of = seen[self._class[seen] == c]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                sits = np.nan_to_num(np.nanmedian(self._rows[of], axis=1)) < 0.1  # (k, G)
            if int(sits.sum(axis=0).max(initial=0)) < HELD_LINKS:
                continue
            most = np.where(sits, self._held_most[of], -np.inf)
            second = -np.sort(-most, axis=0)[HELD_LINKS - 1]
            held[c] = np.maximum(np.where(np.isfinite(second), second, 0.0), 0.0)
            held_for[c] = -np.sort(-np.where(sits, self._run_most[of], 0), axis=0)[HELD_LINKS - 1]
        return held, held_for


@dataclass
class DeviceView:
    """Each switch's spread ports (uplinks, spine ports) against the switches sharing its situation now (those of
    its role facing the same devices, else all of its role): the median of their grouped signals per unit of load
    over those switches' median of those medians, the share of its spread ports showing each signal, and its
    median load against theirs."""

    devices: list[str]
    role: list[str]
    ratio: np.ndarray  # (d, len(GROUPED)); NaN where the role has fewer than MIN_GROUP switches
    share: np.ndarray  # (d, len(GROUPED)) share of its spread ports with the signal above its class median
    util: np.ndarray  # (d,) the median load of its spread ports, %
    role_util: np.ndarray  # (d,) the median of that over the switches sharing its situation
    peers: np.ndarray  # (d,) switches sharing its situation
    # (d,) share of its spread ports sending PFC pauses: a switch stuck as a whole holds its senders back,
    # one whose ports are only paused waits on its neighbours' congestion
    pushing: np.ndarray = field(default_factory=lambda: np.zeros(0))


def _device_ids(topo: Topology) -> tuple[np.ndarray, np.ndarray, list[str], list[str], np.ndarray, np.ndarray]:
    """`device_view`'s layout: the spread ports' rows, each one's (switch, role) number, the switches and their
    roles (sorted), and each switch's number among the switches it shares its situation with: those of its role
    facing the same devices (a pod's spines, a plane's), where MIN_GROUP do, else all of its role."""
    spread = np.array([r in SPREAD_ROLES for r in topo.roles], dtype=bool).reshape(len(topo))
    rows = np.nonzero(spread)[0]
    if not len(rows):
        return rows, rows, [], [], rows, rows
    keys = np.array([f"{topo.devices[i]}\0{topo.roles[i]}" for i in rows.tolist()], dtype=object)
    names, gid = np.unique(keys, return_inverse=True)
    gid = gid.reshape(-1)
    devices, role = zip(*(str(k).split("\0") for k in names), strict=True)
    fars: list[set[str]] = [set() for _ in names]
    for g, i in zip(gid.tolist(), rows.tolist(), strict=True):
        fars[g].add(topo.far_devices[i])
    facing = [f"{r}\0{chr(1).join(sorted(f))}" for r, f in zip(role, fars, strict=True)]
    _, fid, n_facing = np.unique(np.array(facing, dtype=object), return_inverse=True, return_counts=True)
    _, rid = np.unique(np.array(role, dtype=object), return_inverse=True)
    fid, rid = fid.reshape(-1), rid.reshape(-1)
    # one numbering of both kinds of group: the facing groups first, then the roles
    sid = np.where(n_facing[fid] >= MIN_GROUP, fid, len(n_facing) + rid)
    return rows, gid, list(devices), list(role), np.unique(sid, return_inverse=True)[1].reshape(-1), rid


def device_view(frame: FeatureFrame) -> DeviceView:
    """A switch whose every spread port waits, per unit of what it carries, far more than the other
    switches of its tier is stuck as a whole (a credit loop, a PFC deadlock, a wedged ASIC)."""
    topo = frame.layout
    rows, gid, devices, role, sid, _ = topo.memo("device_view", lambda: _device_ids(topo))
    if not len(rows):
        return DeviceView([], [], np.zeros((0, len(GROUPED))), np.zeros((0, len(GROUPED))), np.zeros(0),
                          np.zeros(0), np.zeros(0, dtype=int), np.zeros(0))
    own = np.nan_to_num(frame.own_raw[rows])
    util = own[:, UTIL]
    values = own[:, G_INDEX]
    per_load = values / np.maximum(util, MIN_UTIL)[:, None]
    d = len(devices)
    med = group_medians(gid, np.hstack([per_load, util[:, None]]), d)
    n_sib = int(sid.max()) + 1
    role_med = group_medians(sid, med, n_sib)[sid]
    peers = np.bincount(sid, minlength=n_sib)[sid]
    # a port of it shows the signal when it waits per unit of load more than twice the tier's median switch
    showing = (values > 0) & (per_load > 2 * role_med[gid, : len(GROUPED)])
    counts = np.bincount(gid, minlength=d)
    share = np.stack([np.bincount(gid, weights=showing[:, j], minlength=d) for j in range(len(GROUPED))],
                     axis=1).astype(np.float64)
    share /= np.maximum(counts, 1)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        # a tier where the median switch waits nothing gives no scale to stand out of
        ratio = np.where(role_med[:, : len(GROUPED)] > 0, med[:, : len(GROUPED)] / role_med[:, : len(GROUPED)],
                         np.nan)
    ratio[peers < MIN_GROUP] = np.nan
    sending = own[:, OWN_NAMES.index("pfc_tx")] > 0
    pushing = np.bincount(gid, weights=sending, minlength=d) / np.maximum(counts, 1)
    return DeviceView(list(devices), list(role), ratio, share, med[:, len(GROUPED)], role_med[:, len(GROUPED)], peers,
                      pushing)
