"""Per-link, per-interval features from pipeline rates: own, peer-relative and own-history.

A link's own rates are log-scaled; each is then compared with the median of its port class
(fabric x role x speed) at the same interval, so that a training job raising PFC and ECN on
every link at once moves nothing, while one link pausing ten times more than its peers does;
and with the link's own recent baseline (EWMA), so a link that changes stands out too.

It is long because the frame, the per-link state carried between intervals and the builder share one layout
of columns (RATE_KEYS, OWN_NAMES): split, each would repeat it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from fabricwatch.core.counters import EVIDENCE, OPTICS, TRAINED
from fabricwatch.core.speeds import IB_RATES, parse_speed  # noqa: F401  (imported from here by others)
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.said_peers import SaidPeers
from fabricwatch.models.topology import Topology

# (feature name, unit for explanations)
# Few, grouped features: an isolation forest isolates a point along one randomly chosen
# feature at a time, so a fault that moves one of forty features is found far less surely than
# one that moves one of ten. Error counters of every kind are one "errors" feature.
OWN_FEATURES: tuple[tuple[str, str], ...] = (
    ("pfc_rx", "/s"),
    ("pfc_tx", "/s"),
    ("pause", "/s"),
    ("ecn_per_mpkt", " per 1M pkts"),
    ("discards", "/s"),
    ("errors", "/s"),
    ("link_recovery", "/s"),
    ("xmit_wait", "/s"),
    ("util_pct", "%"),
    ("flaps", " per interval"),
)
ERROR_COUNTERS = ("in_errors", "out_errors", "fcs_errors", "symbol_errors", "rcv_errors",
                  "rcv_remote_physical_errors", "local_link_integrity_errors")
DISCARD_COUNTERS = ("in_discards", "out_discards", "xmit_discards")  # the "discards" feature's parts
OWN_NAMES = tuple(n for n, _ in OWN_FEATURES)
# what happened on a link (corruption, recoveries, flaps), not a level it runs at: these follow no load, and
# one the link does not report is unknown, never its peers' (their bounces are not its bounces)
EVENT_FEATURES = tuple(OWN_NAMES.index(n) for n in ("errors", "link_recovery", "flaps"))
UNITS = dict(OWN_FEATURES)
FEATURE_NAMES: tuple[str, ...] = (
    *OWN_NAMES,
    *(f"{n}_vs_peers" for n in OWN_NAMES),
    *(f"{n}_vs_own" for n in OWN_NAMES),
)
# links whose traffic the fabric spreads over the group (ECMP, adaptive routing): a leaf's uplinks, a
# spine's ports share one situation; a leaf's host ports do not (each host runs its own job)
SPREAD_ROLES = frozenset({"leaf_up", "spine", "spine_down", "spine_up", "core"})
# a switch's ports towards the tier below: what they carry is spread over them by the tier above, towards
# each far switch over the parallel links to it, so those parallel links (not the switch's other ports,
# which lead to other places) share a situation
DOWN_ROLES = frozenset({"spine", "spine_down", "core"})
MIN_SPREAD = 4  # links of a switch in one spread role before their median load means anything
# a spread group lightly loaded says nothing of a link it leaves idle (a few flows routed statically), for the
# rule and for the words that explain an anomaly alike; a link carrying less than IDLE_PCT carries nothing
MIN_SPREAD_LOAD = 10.0  # % of line rate the group's median carries
IDLE_PCT = 1.0
N_OWN = len(OWN_NAMES)
# utilisation % separating idle, light, busy and saturated links
LOAD_BINS = (5.0, 30.0, 70.0)
# a whole rail busy leaves only its few uplinks per leaf class at that load
MIN_PEERS = 3
BASELINE_STEP = 0.5  # log1p units a single interval may pull the own-history baseline


@dataclass
class FeatureFrame:
    """One interval of the fabric: a row per link."""

    start_ns: int
    links: list[LinkInterval]
    classes: list[str]
    own_raw: np.ndarray  # (n, N_OWN) values before log scaling
    X: np.ndarray  # (n, len(FEATURE_NAMES))
    class_median_raw: np.ndarray  # (n, N_OWN) the peers' median of each own value
    rates: np.ndarray | None = None  # (n, len(RATE_KEYS)) the links' rates, NaN where not reported
    speeds: np.ndarray | None = None  # (n,) nominal speed in bit/s from the `speed` tag, NaN if none
    # (n,) the median load of the links of its switch in its spread role, %, and how many (0: none)
    group_util: np.ndarray | None = None
    group_size: np.ndarray | None = None
    topology: Topology | None = None  # the links' layout, shared with the frames before it while it holds
    # (n, N_OWN) the own values a link does not report, at their peers' median in own_raw: no value of its own
    unreported: np.ndarray | None = None
    interval_s: float = 30.0  # what each rate was averaged over: a rate times it is the interval's count

    @property
    def layout(self) -> Topology:
        """The links as the fabric is wired (worked out once per layout)."""
        if self.topology is None:
            self.topology = Topology(self.links)
        return self.topology

    @property
    def line_bps(self) -> np.ndarray:
        """Each link's line rate in bit/s: its nominal speed, else the speed it trained to, else the default."""
        nominal = self.speeds if self.speeds is not None else nominal_speeds(self.links)
        return line_speeds(nominal, self.reading("speed_bps"))

    def rate(self, name: str) -> np.ndarray:
        """One rate of every link, 0 where not reported (from the links when built without the matrix)."""
        if self.rates is None:
            return np.fromiter((li.rates.get(name, 0.0) for li in self.links), dtype=np.float64,
                               count=len(self.links))
        return np.nan_to_num(self.rates[:, RATE_INDEX[name]])

    def reading(self, name: str) -> np.ndarray:
        """One reading (a state, the negotiated speed) of every link, NaN where the link has none."""
        if self.rates is None:
            return np.fromiter((li.rates.get(name, math.nan) for li in self.links), dtype=np.float64,
                               count=len(self.links))
        return self.rates[:, RATE_INDEX[name]]


def group_medians(gid: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """The median of each column of `values` per group id (0..n_groups-1), all groups at once."""
    out = np.empty((n_groups, values.shape[1]))
    counts = np.bincount(gid, minlength=n_groups)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    lo, hi = starts + (counts - 1) // 2, starts + counts // 2
    for j in range(values.shape[1]):
        order = np.lexsort((values[:, j], gid))
        v = values[order, j]
        out[:, j] = (v[lo] + v[hi]) / 2
    return out




def spread_over(device: str, role: str, far: str) -> str:
    """The links the fabric spreads a link's traffic over together, named ("": none): up the tiers the ports of
    its switch in its role, down the tiers the parallel links towards the same far switch (none where it is not
    known: a switch's ports towards different places share nothing)."""
    if role in DOWN_ROLES:
        return f"{role} ports towards {far}" if far else ""
    if role in SPREAD_ROLES:
        return f"{device} {role} ports"
    return ""


def situations(topology: Topology) -> np.ndarray:
    """Per link, the number of the links whose queues share its situation: the links the fabric spreads its
    traffic over with it (`spread_over`), else its switch's ports of its role; worked out once per layout."""

    def ids() -> np.ndarray:
        names = [spread_over(d, r, p) or f"{d} {r} ports"
                 for d, r, p in zip(topology.devices, topology.roles, topology.far_devices, strict=True)]
        return np.unique(np.array(names, dtype=object), return_inverse=True)[1].reshape(-1).astype(np.int64)

    return topology.memo("situations", ids)


def spread_ids(topology: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(group names, per link its group's number, per link whether it is in one) of `spread_over`, worked
    out once per layout."""

    def ids() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        keys = np.array([spread_over(d, r, p)
                         for d, r, p in zip(topology.devices, topology.roles, topology.far_devices, strict=True)],
                        dtype=object)
        names, gid = np.unique(keys, return_inverse=True)
        return names, gid.reshape(-1), keys != ""

    return topology.memo("spread_groups", ids)


def spread_groups(links: list[LinkInterval], util: np.ndarray,
                  topology: Topology | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per link, the median load of the links the fabric spreads its traffic over with it (NaN: not such a
    role, or fewer than MIN_SPREAD), and their number (0 then): up the tiers the ports of its switch in its
    role, down the tiers the parallel links towards the same far switch."""
    n = len(links)
    med = np.full(n, np.nan)
    size = np.zeros(n, dtype=np.int64)
    if not n:
        return med, size
    topo = topology if topology is not None else Topology(links)
    names, gid, spread = spread_ids(topo)
    counts = np.bincount(gid, minlength=len(names))
    usable = (counts[gid] >= MIN_SPREAD) & spread
    if usable.any():
        per = group_medians(gid, util[:, None], len(names))[:, 0]
        med[usable] = per[gid][usable]
        size[usable] = counts[gid][usable]
    return med, size


RATE_KEYS = (
    *(f"pfc_rx_p{p}" for p in range(8)), *(f"pfc_tx_p{p}" for p in range(8)), "pfc_rx_any", "pfc_tx_any",
    "pause_rx", "pause_tx", "ecn_marked", "in_pkts", "out_pkts", "in_octets", "out_octets",
    *DISCARD_COUNTERS, *ERROR_COUNTERS, "link_error_recovery",
    "link_downed", "xmit_wait", "link_transitions", "last_change", "excessive_buffer_overrun_errors", *TRAINED,
    "oper_status", "admin_status", "cnp_handled", "cnp_ignored",
)
# every evidence counter of the vocabulary that a sample carries (the physical layer's come as readings)
RATE_KEYS = (*RATE_KEYS, *(n for n in sorted(EVIDENCE) if n not in RATE_KEYS and n not in OPTICS))
RATE_INDEX = {k: i for i, k in enumerate(RATE_KEYS)}
_K = RATE_INDEX
_SPEEDS: dict[str, float] = {}


def evidence_counts(frame: FeatureFrame, names: Sequence[str], interval_s: float) -> np.ndarray:
    """Counts of each evidence counter per link over the interval, NaN where the link reports none; a
    counter of the physical layer (a module reading, every few minutes) counts at the reading's rate in
    the interval the reading arrived in, 0 in the others."""
    n = len(frame.links)
    out = np.full((n, len(names)), np.nan)
    in_rates = [(j, RATE_INDEX[name]) for j, name in enumerate(names) if name in RATE_INDEX]
    if frame.rates is not None and in_rates:
        cols = [j for j, _ in in_rates]
        out[:, cols] = frame.rates[:, [k for _, k in in_rates]] * interval_s
    else:
        for j, _ in in_rates:
            out[:, j] = [li.rates.get(names[j], math.nan) * interval_s for li in frame.links]
    read = [(j, name) for j, name in enumerate(names) if name in OPTICS]
    if read:
        for i, li in enumerate(frame.links):
            if not li.optics:
                continue
            fresh = li.optics_ns >= frame.start_ns
            for j, optic in read:
                v = li.optics.get(optic)
                if v is not None:
                    out[i, j] = v * interval_s if fresh else 0.0
    return out


def rate_matrix(links: list[LinkInterval]) -> np.ndarray:
    """The links' rates over RATE_KEYS, one row per link, NaN where a link does not report one."""
    nan = float("nan")
    return np.array([[r.get(k, nan) for k in RATE_KEYS] for r in (li.rates for li in links)],
                    dtype=np.float64).reshape(len(links), len(RATE_KEYS))


def line_speeds(nominal: np.ndarray, trained: np.ndarray | None = None) -> np.ndarray:
    """Line rates (bit/s) from nominal speeds (a tag), else the speeds the links report they trained to (a
    collector that tags none), else the default."""
    if trained is not None:
        nominal = np.where(np.isnan(nominal) | (nominal <= 0), trained, nominal)
    return np.where(np.isnan(nominal) | (nominal <= 0), parse_speed(None), nominal)


def line_speed(tag: str | None, trained_bps: float | None) -> float:
    """One link's line rate as `line_speeds` gives it: its tag's speed, else the speed it trained to, else the
    default."""
    nominal = parse_speed(tag, 0.0) if tag else 0.0
    if nominal <= 0 and trained_bps is not None and trained_bps > 0:
        return float(trained_bps)
    return nominal if nominal > 0 else parse_speed(None)


def nominal_speeds(links: list[LinkInterval]) -> np.ndarray:
    """Each link's nominal speed (bit/s) from its `speed` tag; NaN where it has none."""
    out = np.empty(len(links))
    cache = _SPEEDS
    for i, li in enumerate(links):
        text = li.tags.get("speed")
        if not text:
            out[i] = np.nan
            continue
        v = cache.get(text)
        if v is None:
            v = parse_speed(text)
            if len(cache) < 1000:
                cache[text] = v
        out[i] = v
    return out


# IB's PortRcvRemotePhysicalErrors counts packets that arrive already marked bad (EBP) by a switch that found them
# corrupted on an earlier hop. Where the far end is a switch, that hop counts its own errors and this link only
# received the damage; where the far end is an end node (a switch port facing an HCA), the node sent them bad.
MARKED_UPSTREAM = RATE_INDEX["rcv_remote_physical_errors"]
FED_BY_SWITCH_ROLES = SPREAD_ROLES | {"host"}


def fed_by_switch(topology: Topology) -> np.ndarray:
    """Per link, whether what it receives comes from a switch (its role says so)."""
    return topology.memo("fed_by_switch", lambda: np.array([r in FED_BY_SWITCH_ROLES for r in topology.roles],
                                                            dtype=bool).reshape(len(topology)))


def own_damage(R: np.ndarray, topology: Topology) -> np.ndarray:
    """`R` without what links fed by a switch count of packets corrupted before the hop that reached them."""
    fed = fed_by_switch(topology)
    if not fed.any() or np.isnan(R[fed, MARKED_UPSTREAM]).all():
        return R
    R = R.copy()
    R[fed, MARKED_UPSTREAM] = np.nan
    return R


# a NIC (the notification point) counts the CE marks it receives; a switch counts those its queues send
MARKS_RECEIVED_ROLES = frozenset({"host"})


def marks_received(topology: Topology) -> np.ndarray:
    """Per link, whether it counts the ECN marks it receives (a NIC) rather than those it sends."""
    return topology.memo("marks_received", lambda: np.array([r in MARKS_RECEIVED_ROLES for r in topology.roles],
                                                              dtype=bool).reshape(len(topology)))


def marked_direction(topology: Topology, inbound: np.ndarray, outbound: np.ndarray,
                     fallback: np.ndarray) -> np.ndarray:
    """Per link, the value of the direction its ECN marks are counted on (`fallback` where that direction
    is not reported): a port receiving a storage read at line rate and sending nothing marks nothing."""
    received = marks_received(topology)
    value = np.where(received, inbound, outbound)
    return np.where(np.isnan(value), fallback, value)


def marking_load(frame: FeatureFrame) -> np.ndarray:
    """Per link, % of line rate in the direction its ECN marks are counted on (its busier direction where
    that one is not reported): the load a queue's marks are judged against."""
    util = np.nan_to_num(frame.own_raw[:, OWN_NAMES.index("util_pct")])
    speeds = frame.line_bps
    with np.errstate(divide="ignore", invalid="ignore"):
        octets = marked_direction(frame.layout, frame.reading("in_octets"), frame.reading("out_octets"),
                                  np.full(len(frame.links), np.nan))
        load = octets * 8 * 100.0 / speeds
    return np.where(np.isnan(load), util, load)



def own_matrix(links: list[LinkInterval], interval_s: float, R: np.ndarray | None = None,
               nominal: np.ndarray | None = None, topology: Topology | None = None) -> np.ndarray:
    """The links' own feature values (before log scaling), one row per link. A feature none of
    whose counters the link reports is NaN: vendors expose different counters (no PFC over
    OpenConfig, tx-wait only on some), and "not reported" must not read as "zero"."""
    nan = float("nan")
    if R is None:
        R = rate_matrix(links)
    if nominal is None:
        nominal = nominal_speeds(links)
    speeds = line_speeds(nominal, R[:, _K["speed_bps"]])

    def col(*names: str) -> np.ndarray:
        block = R[:, [_K[n] for n in names]]
        present = ~np.isnan(block).all(axis=1)
        return np.where(present, np.nansum(block, axis=1), nan)

    def pfc(way: str) -> np.ndarray:
        """PFC frames over the priorities counted, else the count of any priority (never both: one is the
        other's sum)."""
        per = col(*(f"pfc_{way}_p{p}" for p in range(8)))
        return np.where(np.isnan(per), R[:, _K[f"pfc_{way}_any"]], per)

    pkts = marked_direction(topology if topology is not None else Topology(links), R[:, _K["in_pkts"]],
                            R[:, _K["out_pkts"]], col("in_pkts", "out_pkts"))
    pkts = np.nan_to_num(pkts)
    marks = R[:, _K["ecn_marked"]]
    with np.errstate(divide="ignore", invalid="ignore"):
        per_mpkt = np.where(pkts > 0, np.nan_to_num(marks) * 1e6 / np.where(pkts > 0, pkts, 1), 0.0)
        ecn = np.where(np.isnan(marks), nan, per_mpkt)
        # the busier direction: queues, pauses and drops build per direction, so a port saturated
        # one way (a checkpoint into storage) is a saturated port, not a half-loaded one
        octets = np.fmax(R[:, _K["in_octets"]], R[:, _K["out_octets"]])
        util = octets * 8 * 100.0 / speeds
    return np.column_stack([
        pfc("rx"),
        pfc("tx"),
        col("pause_rx", "pause_tx"),
        ecn,
        col(*DISCARD_COUNTERS),
        col(*ERROR_COUNTERS),
        col("link_error_recovery", "link_downed"),
        R[:, _K["xmit_wait"]],
        util,
        transitions(R, interval_s),
    ])


def transitions(R: np.ndarray, interval_s: float) -> np.ndarray:
    """Link transitions in the interval from a rate matrix: the port's own count, else twice its downs (a port
    that counts only its downs, InfiniBand's LinkDownedCounter as any tool records it, went down and up: as the
    IB collectors read it), else one where its last-change time moved (IF-MIB's ifLastChange says the state
    changed, at least once, not how often: one move alone is no flap, moves interval after interval are)."""
    counted = R[:, _K["link_transitions"]] * interval_s
    downs = 2 * R[:, _K["link_downed"]] * interval_s
    moved = R[:, _K["last_change"]]
    by_clock = np.where(moved > 0, 1.0, np.where(np.isnan(moved), np.nan, 0.0))
    return np.where(np.isnan(counted), np.where(np.isnan(downs), by_clock, downs), counted)


def grown(a: np.ndarray, top: int, fill: float = 0) -> np.ndarray:
    """`a` with at least `top` rows, doubling (new rows `fill`): a per-link array indexed by link id."""
    if top <= len(a):
        return a
    grow = max(top, 2 * len(a)) - len(a)
    return np.concatenate([a, np.full((grow, *a.shape[1:]), fill, dtype=a.dtype)])


class LinkState:
    """Per-link state kept in numpy arrays: stable row numbers for (device, port), and arrays
    that grow (doubling) as new links appear."""

    def __init__(self, **arrays: tuple[tuple[int, ...], type]) -> None:
        self.index: dict[tuple[str, str], int] = {}
        self._free: list[int] = []  # rows of forgotten links, reused (zeroed) by new ones
        self._rows = 0
        self._specs = arrays
        self.arrays: dict[str, np.ndarray] = {
            name: np.zeros((0, *shape), dtype=dtype) for name, (shape, dtype) in arrays.items()
        }
        # the layout last asked for and its rows: the same links again, nothing forgotten since, the same rows
        self._last: tuple[Topology, np.ndarray] | None = None

    def rows(self, links: list[LinkInterval], layout: Topology | None = None) -> np.ndarray:
        """Each link's row (read only); `layout`, the links' Topology, saves the lookups while it holds."""
        if layout is not None and self._last is not None and self._last[0] is layout:
            return self._last[1]
        rows = self._rows_of(links)
        self._last = (layout, rows) if layout is not None else None
        return rows

    def _rows_of(self, links: list[LinkInterval]) -> np.ndarray:
        index = self.index
        rows = np.empty(len(links), dtype=np.int64)
        reused = []
        for i, li in enumerate(links):
            key = (li.device, li.port)
            r = index.get(key)
            if r is None:
                if self._free:
                    r = self._free.pop()
                    reused.append(r)
                else:
                    r = self._rows
                    self._rows += 1
                index[key] = r
            rows[i] = r
        size = len(next(iter(self.arrays.values()))) if self.arrays else 0
        if self._rows > size:
            grow = max(self._rows, 2 * size) - size
            for name, (shape, dtype) in self._specs.items():
                self.arrays[name] = np.concatenate([self.arrays[name], np.zeros((grow, *shape), dtype=dtype)])
        for name in self.arrays:
            self.arrays[name][reused] = 0
        return rows

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        self._last = None
        for key in keys:
            r = self.index.pop(key, None)
            if r is not None:
                self._free.append(r)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def seeded(self, name: str, rows: np.ndarray, keys: Sequence[tuple[str, str]],
               fitted: Callable[[tuple[str, str]], object]) -> np.ndarray:
        """Column `name` at `rows` (`keys` names each row's link), a link's value first set from `fitted(key)`,
        what the fit learned of it; declare `name` and `name + "_seeded"`, a bool."""
        column, done = self.arrays[name], self.arrays[name + "_seeded"]
        new = ~done[rows]
        if new.any():
            for i in np.nonzero(new)[0].tolist():
                column[rows[i]] = fitted(keys[i])
            done[rows[new]] = True
        return column[rows]


class FeatureBuilder:
    """Turns intervals into feature rows; keeps each link's EWMA baseline between intervals."""

    def __init__(self, interval_s: float = 30.0, history_alpha: float = 0.1) -> None:
        self.interval_s = interval_s
        self.alpha = history_alpha
        self._state = LinkState(baseline=((N_OWN,), np.float64), seen=((), np.bool_))
        self._topology: Topology | None = None
        self._said = SaidPeers()

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        """Drop the history of these links; a link seen again later starts afresh."""
        keys = list(keys)
        self._state.forget(keys)
        self._said.forget(keys)

    def build(self, start_ns: int, links: list[LinkInterval], rates: np.ndarray | None = None) -> FeatureFrame:
        """The frame of one interval; `rates` is the links' `rate_matrix` when the caller has it."""
        R = rate_matrix(links) if rates is None else rates
        if self._topology is None or not self._topology.fits(links):  # a link came, went, or its tags changed
            self._said.fill(links)
        topology = self._topology if self._topology is not None and self._topology.fits(links) else Topology(links)
        self._topology = topology
        R = own_damage(R, topology)
        nominal = topology.memo("nominal_speeds", lambda: nominal_speeds(links)).copy()
        own_raw = own_matrix(links, self.interval_s, R, nominal, topology)
        missing = np.isnan(own_raw)
        own = np.log1p(np.maximum(own_raw, 0.0))  # NaN stays NaN
        classes = list(topology.classes)
        peer = np.zeros_like(own)
        median_raw = np.zeros_like(own)
        # peers = same class at the same moment and at a similar load, so that one rail busy
        # while the others idle is not an anomaly; a group too small falls back to the class
        load = own_raw[:, OWN_NAMES.index("util_pct")]
        util = np.nan_to_num(load)
        # a link whose load is unknown (octet counters that cannot count) is no idle link: its peers are its
        # class's links of known load
        unknown = np.isnan(load)
        load_bin = np.where(unknown, -1, np.digitize(util, LOAD_BINS))
        cls_arr = np.array(classes)
        for c in set(classes):
            in_class = cls_arr == c
            for b in np.unique(load_bin[in_class]):
                rows = np.nonzero(in_class & (load_bin == b))[0]
                known = np.nonzero(in_class & ~unknown)[0]
                rows_for_median = (known if len(known) >= MIN_PEERS else np.nonzero(in_class)[0]) if b < 0 \
                    else rows if len(rows) >= MIN_PEERS else np.nonzero(in_class)[0]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # a feature no peer reports
                    med = np.nan_to_num(np.nanmedian(own[rows_for_median], axis=0))
                peer[rows] = own[rows] - med
                median_raw[rows] = np.expm1(med)
        # a feature the link does not report sits at its peers' median: no deviation, no history; its events
        # stay unknown in what the rules read
        own = np.where(missing, np.log1p(median_raw), own)
        imputed = missing.copy()
        imputed[:, EVENT_FEATURES] = False
        own_raw = np.where(imputed, median_raw, own_raw)
        peer = np.where(missing, 0.0, peer)
        rows = self._state.rows(links, topology)
        baseline, seen = self._state["baseline"], self._state["seen"]
        new = ~seen[rows]
        baseline[rows[new]] = own[new]
        seen[rows] = True
        base = baseline[rows]
        hist = np.where(missing, 0.0, own - base)
        # the baseline follows slow change but is not dragged by an episode: each step is
        # clipped, so a link returning to normal does not look strange against it
        baseline[rows] = base + self.alpha * np.clip(hist, -BASELINE_STEP, BASELINE_STEP)
        group_util, group_size = spread_groups(links, np.nan_to_num(own_raw[:, OWN_NAMES.index("util_pct")]), topology)
        X = np.hstack([own, peer, hist])
        return FeatureFrame(start_ns, links, classes, own_raw, X, median_raw, R, nominal, group_util, group_size,
                            topology, imputed, self.interval_s)
