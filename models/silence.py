"""A protective signal gone quiet: congestion marks absent where the link's load-matched peers
show them, for more intervals in a row than the link ever was in healthy history.

ECN marks and PFC pauses are how a lossless fabric protects itself; a port that stops producing them
while the ports of its class at the same load do (ECN or PFC off on a switch or a queue, a NIC whose PFC
was reset) loses that protection without one error counter moving. One interval of silence is nothing:
a link's own queue may simply not fill. A run of them, longer than any the link showed while healthy, is.
Only intervals where the link carries traffic and most of its peers show the signal count; the
others neither lengthen nor break a run. The record is learned per link (a port that never congests has
long runs and is judged by them). A link never judged in healthy history is not judged now: what its
queue does when its peers mark is unknown (a polarised uplink that always carries less than its siblings
never marks with them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fabricwatch.models.background import log10_poisson_sf
from fabricwatch.models.features import (
    LOAD_BINS,
    OWN_NAMES,
    UNITS,
    FeatureFrame,
    group_medians,
    grown,
    marking_load,
    marks_received,
)
from fabricwatch.models.topology import first_sight

# ECN marks follow the queue's configured thresholds at a given load; pauses follow who sends to whom
# and stay silent on healthy ports for long stretches (PFC silence judged this way paged 500 healthy
# link-intervals in 6 h of an independent 3-tier RoCE fabric), so they are not judged by their absence
SIGNALS = ("ecn_per_mpkt",)
S_INDEX = [OWN_NAMES.index(n) for n in SIGNALS]
MIN_UTIL = 5.0  # % of line rate: a link carrying less is not expected to mark or pause
PEERS_SHOWING = 0.75  # share of the load-matched peers on other switches that must show the signal
MIN_PEERS = 3
MIN_PARALLEL = 2  # parallel paths on other switches carrying traffic before their silence speaks for the traffic
TRICKLE = 0.01  # of the load-matched peers' marking: paths marking less than this mark next to nothing
MIN_RUN = 6  # intervals in a row, whatever the record
UNSEEN_GRACE = 2  # intervals a silence finding outlives the last interval that could judge it
RUN_MARGIN = 2.0  # times the link's longest healthy run
MIN_ELIGIBLE = 20  # intervals a link must have been judged in training for its own record to count
UNKNOWN = -1.0
SEEN_SILENT = -2.0  # judged too seldom to have a record, but seen silent as a habit: its silence may be its traffic's
INSTANT_RECORD = 1  # longest silent run in healthy history for which silence is a finding at once


def _pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Each (a, b) pair's number among the pairs that occur (not among all a x b: a fabric's devices times
    its far devices would not fit in memory)."""
    return np.unique(a * (int(b.max(initial=0)) + 1) + b, return_inverse=True)[1].reshape(-1)


def silent_now(frame: FeatureFrame, showing_share: float = PEERS_SHOWING) -> tuple[np.ndarray, np.ndarray]:
    """(judged, silent), each (n, len(SIGNALS)): the link carries traffic and most of its load-matched
    peers on other switches show the signal (PEERS_SHOWING of them: with half, silence is a coin's
    throw); of those, the link shows none of it. Its own switch's ports are not its witnesses: a switch
    with ECN off has every port silent. Only links whose role is known are judged: it says who their peers are."""
    n = len(frame.links)
    own = frame.own_raw[:, S_INDEX]
    util = marking_load(frame)  # every signal here is ECN's: judged by the load of the marked direction
    reports = ~np.isnan(own)
    showing = reports & (np.nan_to_num(own) > 0)
    bins = len(LOAD_BINS) + 1
    load_bin = np.digitize(util, LOAD_BINS)
    group = frame.layout.class_ids * bins + load_bin
    device = frame.layout.device_ids
    mine = _pairs(device, group)
    judged = np.zeros((n, len(SIGNALS)), dtype=bool)
    for j in range(len(SIGNALS)):
        peers = np.bincount(group, weights=reports[:, j])[group] - np.bincount(mine, weights=reports[:, j])[mine]
        show = np.bincount(group, weights=showing[:, j])[group] - np.bincount(mine, weights=showing[:, j])[mine]
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(peers >= MIN_PEERS, show / np.maximum(peers, 1), 0.0)
        judged[:, j] = reports[:, j] & (util >= MIN_UTIL) & (share >= showing_share)
    # a port whose role nothing says (no tag, no far end heard) has no known peers: a spine's downlinks and the
    # leaves' host ports would be one class, and a spine marking less than leaves facing hosts is no fault
    layout = frame.layout
    judged &= layout.memo("role_known", lambda: np.array([bool(r) for r in layout.roles], dtype=bool))[:, None]
    if judged.any():
        judged &= ~_quiet_paths(frame, own, util >= MIN_UTIL, reports) & ~_witnessed_by_the_queue(frame)
    return judged, judged & ~showing


def witnessed_queues(frame: FeatureFrame) -> np.ndarray:
    """Per link, the row of the switch port whose queue marks what it counts: its far end where it counts the
    marks it receives (a NIC) and that far end reports none of its own (a switch exporting no ECN counter: its
    marking is witnessed where its marks arrive); itself otherwise. The switch judged by a link's marks is that
    row's device."""
    far = frame.layout.far_rows
    unreported = frame.unreported if frame.unreported is not None else np.isnan(frame.own_raw)
    witness = marks_received(frame.layout) & (far >= 0)
    witness[witness] &= unreported[far[witness], S_INDEX[0]]
    return np.where(witness, far, np.arange(len(far)))


def _witnessed_by_the_queue(frame: FeatureFrame) -> np.ndarray:
    """(n, len(SIGNALS)): links counting the marks they receive (a NIC) whose far end, the switch port whose queue
    marks for them, reports the signal itself. ECN is set and counted on the switches: the port's own count says
    what its queue does, and a NIC's silence behind it only what its job's traffic crossed. Behind a port that does
    not report it, the NIC is the only witness and is judged."""
    far = frame.layout.far_rows
    received = marks_received(frame.layout)
    has_far = far >= 0
    # a signal a link does not report reads as its class's median in own_raw
    unreported = frame.unreported if frame.unreported is not None else np.isnan(frame.own_raw)
    reports = ~unreported[:, S_INDEX]
    far_reports = np.zeros_like(reports)
    far_reports[has_far] = reports[far[has_far]]
    return received[:, None] & far_reports


PFC_TX = OWN_NAMES.index("pfc_tx")
DISCARDS = OWN_NAMES.index("discards")
UTIL = OWN_NAMES.index("util_pct")
ECN_MARKS = OWN_NAMES.index("ecn_per_mpkt")


WEAK = 0.1  # of the load-matched peers' marking: a link marking less marks next to nothing
# a NIC counts the marks of its whole path: behind a switch that marks next to nothing it still receives what the
# switches before it mark, so under half its peers' is its switch marking next to nothing (judged, as any weak
# marking, only where that switch pauses PAUSING_MORE times the marking switches and on most of its ports)
WITNESS_WEAK = 0.5
PAUSING_LESS = 0.5  # of the median switch's pausing per unit of load: a switch pausing less fills no queue now
PAUSING_MORE = 2.0  # times the median switch's pausing per unit of load: its queues reach the pause threshold
CHANCE_COUNT = 1.0  # events an interval that chance gives a switch at rest: no peer median predicts fewer
LOG10_BEYOND_CHANCE = -3.0  # a count more likely than 1e-3 under the peers' rate is as theirs


def calm(frame: FeatureFrame, rows: np.ndarray) -> np.ndarray:
    """Per row of `rows`: its traffic fills no queue now, so its silence says nothing of its ECN. Its switch
    pauses clearly less than its role's switches that mark now (under PAUSING_LESS of their median) and does
    not drop in their place (PFC off too would); the marking switches are the reference because their marks
    are what its silence is judged against: idle switches, or silent ones carrying a calm job, pause nothing
    and say nothing of how a filling queue pauses. Or, where no pause holds its queue (its switch sends none)
    and its load-matched peers drop at their tails now (the fabric runs lossy), the port drops under
    PAUSING_LESS of what they do: a queue ECN does not mark fills past theirs and overflows first."""
    switch_calm = ((pausing_ratio(frame, rows, among=marking_switches(frame)) < PAUSING_LESS)
                   & ~(pausing_ratio(frame, rows, DISCARDS) >= PAUSING_MORE))
    peers_drop = np.nan_to_num(frame.class_median_raw[rows, DISCARDS]) > 0
    lossy_calm = ~pausing_at_all(frame, rows) & peers_drop & (dropping(frame, rows) < PAUSING_LESS)
    return switch_calm | lossy_calm


def pausing_at_all(frame: FeatureFrame, rows: np.ndarray) -> np.ndarray:
    """Per row of `rows`: whether its switch sends any pause now."""
    dev = frame.layout.device_ids
    sent = np.bincount(dev, weights=np.nan_to_num(frame.own_raw[:, PFC_TX]), minlength=int(dev.max(initial=-1)) + 1)
    return sent[dev[rows]] > 0


def dropping(frame: FeatureFrame, rows: np.ndarray) -> np.ndarray:
    """Per row of `rows`: its discards over its load-matched peers' median now (inf where they drop nothing
    and it does, 0 where neither does)."""
    own = np.nan_to_num(frame.own_raw[rows, DISCARDS])
    median = np.nan_to_num(frame.class_median_raw[rows, DISCARDS])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(median > 0, own / np.where(median > 0, median, 1.0), np.where(own > 0, np.inf, 0.0))


def marking_switches(frame: FeatureFrame) -> np.ndarray:
    """Per device: whether any of its links marks now (or a NIC counts its marks arriving, `witnessed_queues`). A
    silent switch's pausing is measured against these."""
    dev = frame.layout.device_ids
    return np.bincount(dev[witnessed_queues(frame)], weights=np.nan_to_num(frame.own_raw[:, ECN_MARKS]) > 0,
                       minlength=int(dev.max(initial=-1)) + 1) > 0


def marking_fully(frame: FeatureFrame, rows: np.ndarray) -> np.ndarray:
    """Per row of `rows`: whether a port of its switch marks now at least as its load-matched peers do (their
    median): that queue fills and the switch's ECN marks it, so its profile is not set too high; the pauses
    it sends come from such queues, and its ports marking little are ports whose own queues do not fill. Only a
    port carrying traffic (MIN_UTIL) shows it: a few marked packets among an idle port's few say nothing."""
    own = np.nan_to_num(frame.own_raw[:, ECN_MARKS])
    median = np.nan_to_num(frame.class_median_raw[:, ECN_MARKS])
    full = (median > 0) & (own >= median) & (marking_load(frame) >= MIN_UTIL)
    dev = frame.layout.device_ids[witnessed_queues(frame)]  # a NIC's marks are its far switch's queue's
    return np.bincount(dev, weights=full, minlength=int(dev.max(initial=-1)) + 1)[dev[rows]] > 0


def beyond_calm(frame: FeatureFrame, judged: np.ndarray, silent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(judged, silent) without the silent links whose switch is calm now: such an interval is not judged (it
    neither lengthens a silent run nor ends one), in training as in detection."""
    quiet_rows = np.nonzero(silent.any(axis=1))[0]
    if not len(quiet_rows):
        return judged, silent
    still = quiet_rows[calm(frame, quiet_rows)]
    judged, silent = judged.copy(), silent.copy()
    judged[still] = False
    silent[still] = False
    return judged, silent


def pausing_ratio(frame: FeatureFrame, rows: np.ndarray, column: int = PFC_TX,
                  among: np.ndarray | None = None) -> np.ndarray:
    """Per row of `rows`: how much its switch pauses its senders, per unit of what it carries, over the median
    switch with links of the same role now. A queue that ECN does not mark (or marks late) fills to the pause
    threshold, so a switch with ECN off or set too high pauses more than its peers; one pausing less carries
    traffic that fills no queue. NaN where the switch has fewer than MIN_PEERS peers (a switch that reports no
    pauses reads as its class's median, so as one of them). `column`: another signal of a filling queue,
    judged the same way (its drops, where PFC does not hold it). `among`: per device, which switches make the
    median (all of the role's where fewer than MIN_PEERS of them would)."""
    own = frame.own_raw
    topo = frame.layout
    dev = topo.device_ids
    n_dev = int(dev.max(initial=-1)) + 1
    role_id = topo.role_ids
    pfc = own[:, column]
    reports = np.bincount(dev, weights=~np.isnan(pfc), minlength=n_dev) > 0
    load = np.maximum(np.bincount(dev, weights=np.nan_to_num(own[:, UTIL]), minlength=n_dev), 1.0)
    sent_per_s = np.bincount(dev, weights=np.nan_to_num(pfc), minlength=n_dev)
    per_load = sent_per_s / load
    row_roles = role_id[rows]
    out = np.full(len(rows), np.nan)
    d = dev[rows]
    for role in np.unique(row_roles).tolist():
        peers = np.unique(dev[role_id == role])
        peers = peers[reports[peers]]
        if among is not None and int(among[peers].sum()) >= MIN_PEERS:
            peers = peers[among[peers]]
        if len(peers) < MIN_PEERS:
            continue
        median = float(np.median(per_load[peers]))
        mine = (row_roles == role) & reports[d]
        with np.errstate(divide="ignore", invalid="ignore"):
            out[mine] = np.where(median > 0, per_load[d[mine]] / median, np.where(per_load[d[mine]] > 0, np.inf, 1.0))
        # a ratio is evidence only with the counts behind it: the interval's count against the count the median
        # switch's rate predicts at this switch's load, never under one (what chance gives a switch at rest); one
        # pause frame where its peers sent none is no more than theirs (only PAUSING_MORE is asked of it)
        more = mine & (out >= PAUSING_MORE)
        for switch in np.unique(d[more]).tolist():
            sent = sent_per_s[switch] * frame.interval_s
            expected = max(median * load[switch] * frame.interval_s, CHANCE_COUNT)
            if sent <= expected or log10_poisson_sf(sent, expected) > LOG10_BEYOND_CHANCE:
                out[more & (d == switch)] = 1.0
    return out


def weak_now(frame: FeatureFrame, judged: np.ndarray) -> np.ndarray:
    """(n, len(SIGNALS)): of the links `judged` (silent_now), those showing the signal at under WEAK of
    their load-matched peers' median; a NIC witnessing its switch's queue (`witnessed_queues`) under
    WITNESS_WEAK of its peers'."""
    own = np.nan_to_num(frame.own_raw[:, S_INDEX])
    witness = witnessed_queues(frame) != np.arange(len(frame.links))
    share = np.where(witness, WITNESS_WEAK, WEAK)[:, None]
    return judged & (own > 0) & (own < share * frame.class_median_raw[:, S_INDEX])


def parallel_paths(frame: FeatureFrame, values: np.ndarray, busy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per link, what its parallel paths (same role, same far device: the links the traffic towards that device
    is spread over) show of `values` now: the median over the switches carrying traffic (`busy`) on that path,
    each switch one vote (its most showing link), and how many switches besides the link's own carry on it
    (0 where none)."""
    return witnesses(frame, values, busy, path_ids(frame))


def path_ids(frame: FeatureFrame) -> np.ndarray:
    """Per link, its parallel path: same role, same far device (each link alone where it has no far device)."""
    topo = frame.layout
    return topo.memo("parallel_paths", lambda: first_sight(
        [f"{r}\0{p}" if p else f"\0{i}" for i, (r, p) in enumerate(zip(topo.roles, topo.far_devices, strict=True))])[0])


def rail_ids(frame: FeatureFrame) -> np.ndarray:
    """Per link, its rail in its role: the switches whose links of a role serve one rail carry that rail's traffic
    (each link alone where it has no rail tag)."""
    topo = frame.layout
    return topo.memo("rail_paths", lambda: first_sight(
        [f"{r}\0{li.tags['rail']}" if li.tags.get("rail") else f"\0{i}"
         for i, (r, li) in enumerate(zip(topo.roles, frame.links, strict=True))])[0])


def loudest_other(frame: FeatureFrame, values: np.ndarray, busy: np.ndarray, gid: np.ndarray) -> np.ndarray:
    """Per link, the most any other switch's `busy` links of its group `gid` show of `values` now (0: none)."""
    n = len(values)
    out = np.zeros(n)
    rows = np.nonzero(busy)[0]
    if not len(rows):
        return out
    pair, vote, group_of_pair = _votes(frame, values, rows, gid)
    # each group's loudest and second loudest switch: a link's loudest other is the second where its own
    # switch is the loudest
    order = np.lexsort((-vote, group_of_pair))
    g_sorted = group_of_pair[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = g_sorted[1:] != g_sorted[:-1]
    top = np.full(int(gid.max()) + 1, -np.inf)
    second = np.full(int(gid.max()) + 1, -np.inf)
    top[g_sorted[first]] = vote[order][first]
    second_at = np.flatnonzero(~first & np.concatenate([[False], first[:-1]]))
    second[g_sorted[second_at]] = vote[order][second_at]
    own_vote = np.full(n, -np.inf)
    own_vote[rows] = vote[pair]
    best = np.where(own_vote >= top[gid], second[gid], top[gid])
    return np.where(np.isfinite(best), best, 0.0)


def _votes(frame: FeatureFrame, values: np.ndarray, rows: np.ndarray, gid: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each (switch, group) pair of the links `rows` one vote, its most showing link's value: per row its pair,
    and per pair its vote and its group."""
    pair = _pairs(frame.layout.device_ids[rows], gid[rows])
    n_pairs = int(pair.max()) + 1
    vote = np.full(n_pairs, -np.inf)
    np.maximum.at(vote, pair, np.nan_to_num(values[rows]))
    group_of_pair = np.zeros(n_pairs, dtype=np.int64)
    group_of_pair[pair] = gid[rows]
    return pair, vote, group_of_pair


def witnesses(frame: FeatureFrame, values: np.ndarray, busy: np.ndarray, pid: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Per link, the median of `values` over the switches with a link `busy` in its group `pid` (each switch one
    vote, its most showing link there), and how many switches besides the link's own have one (0: none)."""
    n = len(values)
    rows = np.nonzero(busy)[0]
    if not len(rows):
        return np.full(n, np.nan), np.zeros(n, dtype=np.int64)
    _, vote, path_of_pair = _votes(frame, values, rows, pid)
    path_no, path_of_pair = np.unique(path_of_pair, return_inverse=True)
    med = group_medians(path_of_pair, vote[:, None], len(path_no))[:, 0]
    switches = np.bincount(path_of_pair, minlength=len(path_no))
    at = np.searchsorted(path_no, pid)
    known = (at < len(path_no)) & (path_no[np.minimum(at, len(path_no) - 1)] == pid)
    at = np.minimum(at, len(path_no) - 1)
    own_counts = np.zeros(n, dtype=bool)
    own_counts[rows] = True  # the link's own switch is one of the group's switches only if it carries
    return np.where(known, med[at], np.nan), np.where(known, switches[at] - own_counts, 0)


def _quiet_paths(frame: FeatureFrame, own: np.ndarray, busy: np.ndarray, reports: np.ndarray) -> np.ndarray:
    """(n, len(SIGNALS)): the links whose parallel paths show next to none of the signal (at least MIN_PARALLEL
    switches besides the link's own, their median under TRICKLE of the load-matched peers'). Silence there
    is the traffic's."""
    out = np.zeros(own.shape, dtype=bool)
    peers_med = frame.class_median_raw[:, S_INDEX]
    for j in range(len(SIGNALS)):
        med, others = parallel_paths(frame, own[:, j], busy & reports[:, j])
        out[:, j] = (others >= MIN_PARALLEL) & (med < TRICKLE * peers_med[:, j])
    return out


def step(run: np.ndarray, judged: np.ndarray, silent: np.ndarray) -> np.ndarray:
    """Runs after one interval: a silent judged interval lengthens, a showing one ends, others hold."""
    return np.where(silent, run + 1, np.where(judged, 0, run))


@dataclass
class SilentRuns:
    """Fitted attributes: `record_`, per link judged often enough in training, its longest run of silent
    intervals per signal (UNKNOWN: judged too seldom)."""

    record_: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)

    def limits(self, keys: Sequence[tuple[str, str]]) -> np.ndarray:
        """Per link and signal, the run from which its silence is a finding (inf: no record)."""
        rec = self.records(keys)
        return np.where(rec < 0, np.inf, np.maximum(MIN_RUN, np.ceil(RUN_MARGIN * rec) + 1))

    def records(self, keys: Sequence[tuple[str, str]]) -> np.ndarray:
        """Per link and signal, its longest silent run in healthy history (UNKNOWN: judged too seldom)."""
        none = np.full(len(SIGNALS), UNKNOWN)
        return np.array([self.record_.get(k, none) for k in keys]).reshape(len(keys), len(SIGNALS))

    def to_json(self) -> dict[str, Any]:
        return {"names": list(SIGNALS),
                "links": [[d, p, r.astype(int).tolist()] for (d, p), r in sorted(self.record_.items())]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SilentRuns:
        names = list(data["names"])

        def row(values: Sequence[int]) -> np.ndarray:
            out = np.full(len(SIGNALS), UNKNOWN)
            for name, v in zip(names, values, strict=True):
                if name in SIGNALS:
                    out[SIGNALS.index(name)] = float(v)
            return out

        return cls({(str(d), str(p)): row(v) for d, p, v in data["links"]})


class SilenceFit:
    """`SilentRuns` over a stream of frames in time order; `ids[i]` is the link id of `frame.links[i]`."""

    def __init__(self) -> None:
        self._run = np.zeros((0, len(SIGNALS)), dtype=np.int64)
        self._longest = np.zeros((0, len(SIGNALS)), dtype=np.int64)
        self._judged = np.zeros((0, len(SIGNALS)), dtype=np.int64)
        self._unjudged = np.zeros((0, len(SIGNALS)), dtype=np.int64)
        self._shown = np.zeros((0, len(SIGNALS)), dtype=np.int64)

    def add(self, frame: FeatureFrame, ids: np.ndarray) -> None:
        if not len(ids):
            return
        top = int(ids.max()) + 1
        self._run, self._longest, self._judged, self._unjudged, self._shown = (
            grown(a, top) for a in (self._run, self._longest, self._judged, self._unjudged, self._shown))
        judged, silent = beyond_calm(frame, *silent_now(frame))
        # as in detection: a run held through more than MIN_RUN intervals that cannot judge it is forgotten
        unjudged = np.where(judged, 0, self._unjudged[ids] + 1)
        self._unjudged[ids] = unjudged
        run = np.where(unjudged > MIN_RUN, 0, step(self._run[ids], judged, silent))
        self._run[ids] = run
        self._longest[ids] = np.maximum(self._longest[ids], run)
        self._judged[ids] += judged
        self._shown[ids] += judged & ~silent

    def result(self, keys: Sequence[tuple[str, str]]) -> SilentRuns:
        """A link's record where it was judged MIN_ELIGIBLE intervals; SEEN_SILENT where it was judged fewer and
        silent in each, or silent longer in a row than INSTANT_RECORD (a few intervals prove a habit of silence,
        though not its longest run); nothing (UNKNOWN) otherwise."""
        out = SilentRuns()
        known = self._judged >= MIN_ELIGIBLE
        habit = (self._shown == 0) | (self._longest > INSTANT_RECORD)
        seen_silent = ~known & (self._judged > 0) & habit
        for i in np.nonzero((known | seen_silent).any(axis=1))[0].tolist():
            out.record_[keys[i]] = np.where(known[i], self._longest[i],
                                            np.where(seen_silent[i], SEEN_SILENT, UNKNOWN)).astype(float)
        return out


def describe(signal: str, run: int, limit: float, peer_median: float, interval_s: float) -> str:
    what = {"ecn_per_mpkt": ("no ECN marks", "ECN off or misconfigured on this queue or switch?")}[signal]
    return (f"{what[0]} in {run} intervals in a row ({run * interval_s / 60:,.0f} min) of traffic while its "
            f"load-matched peers show them (median {peer_median:,.3g}{UNITS[signal]}); healthy history: under "
            f"{limit:.0f} in a row: {what[1]}")
