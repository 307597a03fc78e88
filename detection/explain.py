"""Why a link is worse than expected, in words and numbers: against its load-matched peers, its
siblings at the same moment and its own history."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from fabricwatch.models.class_model import _LOAD_FREE, ClassModel
from fabricwatch.models.features import (
    DISCARD_COUNTERS,
    DOWN_ROLES,
    IDLE_PCT,
    MIN_SPREAD_LOAD,
    N_OWN,
    OWN_NAMES,
    UNITS,
    FeatureFrame,
)
from fabricwatch.models.groups import G_INDEX
from fabricwatch.models.intervals import LinkInterval

ECN = OWN_NAMES.index("ecn_per_mpkt")
FLAPS = OWN_NAMES.index("flaps")
LINK_RECOVERY = OWN_NAMES.index("link_recovery")
PFC_TX = OWN_NAMES.index("pfc_tx")
PFC_RX = OWN_NAMES.index("pfc_rx")
PAUSE = OWN_NAMES.index("pause")
UTIL_PCT = OWN_NAMES.index("util_pct")
PACED = (PFC_RX, PAUSE)  # pauses a port receives (802.3x pauses: where it receives more than it sends)

_NOT_CAUSES = ("util_pct", "ecn_per_mpkt", "pfc_tx", "flaps")
_CAUSES = [k for k, name in enumerate(OWN_NAMES) if name not in _NOT_CAUSES]
DISCARDS = OWN_NAMES.index("discards")
DISCARDS_PER_PKT = 1e-6  # drops below one per million packets are noise on any fabric
# roles whose far end is a switch: pauses received there spread congestion from another egress
SWITCH_TO_SWITCH = frozenset({"leaf_up", "spine", "spine_down", "core"})
# times the median load of the links its traffic is spread over: a hash spreads flows unevenly (a link
# at 1.5-2x its group's median is common), not this unevenly
PILED_ON = 4.0


def _packets(li: LinkInterval) -> float:
    return li.rates.get("in_pkts", 0.0) + li.rates.get("out_pkts", 0.0)


SIBLING_MARGIN = 2.0  # within this factor of its siblings' median, a link does what they do
# a congestion signal is the link's own only as far over the links sharing its situation per unit of
# load, beyond its usual, as the group rule asks (conditions.OUTLIER_RATIO: waits grow faster than load,
# and heavy tails spike)
GROUP_MARGIN = 8.0
GROUPED_AT = {k: j for j, k in enumerate(G_INDEX)}
MIN_SIBLINGS = 4


class Siblings:
    """The links of one class on the same rail, and on the same switch, at the same moment. A link
    doing what its siblings do carries their load (a hot rail, a busy switch); a faulty link stands
    out of them. Built on first use: most intervals explain nothing."""

    def __init__(self, frame: FeatureFrame) -> None:
        self.frame = frame
        self._groups: dict[tuple[str, str, str], np.ndarray] | None = None
        self._of: list[list[tuple[str, str, str]]] = []
        self._median: dict[tuple[str, str, str], np.ndarray] = {}

    def _build(self) -> None:
        groups: dict[tuple[str, str, str], list[int]] = {}
        self._of = []
        for i, (c, li) in enumerate(zip(self.frame.classes, self.frame.links, strict=True)):
            keys = [(c, "rail", li.tags.get("rail", "")), (c, "device", li.device)]
            keys = [k for k in keys if k[2]]
            self._of.append(keys)
            for k in keys:
                groups.setdefault(k, []).append(i)
        self._groups = {k: np.array(v) for k, v in groups.items() if len(v) >= MIN_SIBLINGS}

    def like(self, i: int, k: int, value: float) -> tuple[str, float] | None:
        """(group, its median) if row i's feature k is within the margin of a sibling group's median."""
        if self._groups is None:
            self._build()
        assert self._groups is not None
        for key in self._of[i]:
            rows = self._groups.get(key)
            if rows is None:
                continue
            med = self._median.get(key)
            if med is None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    med = np.nan_to_num(np.nanmedian(self.frame.own_raw[rows], axis=0))
                self._median[key] = med
            if med[k] > 0 and value <= SIBLING_MARGIN * med[k]:
                return f"{key[1]} {key[2]}", float(med[k])
        return None


def piled_on(frame: FeatureFrame, i: int, util: float) -> bool:
    """Whether row i carries several times what the links its traffic is spread over carry: the hash sends it
    what should be shared (a polarised ECMP group), not the traffic's own peaks."""
    if frame.group_util is None or not np.isfinite(frame.group_util[i]):
        return False
    return util > PILED_ON * max(float(frame.group_util[i]), IDLE_PCT)


def within_tails(frame: FeatureFrame, i: int, per_s: float, util: float, model: ClassModel) -> bool:
    """Whether row i's discards (`per_s`, of the discards feature) are a share of its packets its class's healthy
    links dropped at their queues' tails at this load (`drop_shares`), on a link the traffic is not piled on."""
    packets = _packets(frame.links[i])
    allowed = sum(model.drop_share(n, util) for n in DISCARD_COUNTERS)
    return packets > 0 and per_s <= allowed * packets and not piled_on(frame, i, util)


def _received_pauses(frame: FeatureFrame, i: int) -> bool:
    """Whether row i's 802.3x pauses are mostly ones it receives."""
    rates = frame.links[i].rates
    return rates.get("pause_rx", 0.0) >= rates.get("pause_tx", 0.0)


def under_group(frame: FeatureFrame, i: int, util: float) -> tuple[str, dict[str, Any]] | None:
    """Words when row i carries (nearly) nothing while the links the fabric spreads the same traffic over
    carry MIN_SPREAD_LOAD or more now (a leaf's uplinks, the spines' ports towards one leaf): traffic no longer
    spread onto it. Carrying less than them is hashing (polarised ECMP puts 4 % on one uplink and 37 % on
    another)."""
    if frame.group_util is None or frame.group_size is None or np.isnan(frame.own_raw[i, UTIL_PCT]):
        return None  # what it carries is unknown (no octet counter that can count), not nothing
    med = float(frame.group_util[i])
    if not med >= MIN_SPREAD_LOAD or util >= IDLE_PCT:
        return None
    li = frame.links[i]
    role, far = li.tags.get("role", ""), li.tags.get("peer_device", "")
    where = f"towards {far}" if role in DOWN_ROLES and far else f"of {li.device}"
    words = (f"util_pct {util:,.2g}% while the {int(frame.group_size[i])} {role} ports {where} carry {med:,.0f}% "
             "(median): the traffic spread over them no longer reaches this link (down, withdrawn from routing, "
             "or a hashing fault?)")
    return words, {"feature": "util_vs_group", "value": util, "expected": med, "against": "group",
                   "deviation": round(float(np.log1p(util) - np.log1p(med)), 2)}


def explain(frame: FeatureFrame, i: int, top: int = 3, model: ClassModel | None = None,
            just_bounced: bool = False, siblings: Siblings | None = None,
            group_excess: np.ndarray | None = None, paced: np.ndarray | None = None, just_up: bool = False,
            twin_down: bool = False, drops_shared: bool = False) -> tuple[str, list[dict[str, Any]]]:
    """The features that make row i *worse* than expected, in words and numbers: above its
    load-matched class peers, or above its own history. Empty when nothing is worse (a link that
    only stands out by being quieter than its peers is not degraded). `group_excess` holds, per grouped
    congestion signal, log10 of how far the link stands over the links sharing its situation now per
    unit of load, beyond its usual (NaN: no group): within GROUP_MARGIN of them, it carries their load.
    `paced`: per link, a port towards a host whose pauses received pace traffic that still flows
    (`models.groups.paced_by_host`). `just_up`: the link came up within the settle window, and routing has yet
    to spread traffic onto it: carrying nothing is no shortfall. `twin_down`: a parallel link towards its far device
    is down (`models.groups.parallel_down`): its load is that link's share too. `drops_shared`: a link of its spread
    group carrying as much drops alike now (`drops_alike`): its drops are that load's."""
    X = frame.X
    cls = frame.classes[i]
    rows = [j for j, c in enumerate(frame.classes) if c == cls]
    spread = np.median(np.abs(X[rows, N_OWN : 2 * N_OWN]), axis=0) * 1.4826
    # deviation from the load-matched peers, in units of how much peers usually deviate;
    # the link's own history counts too: a link that changed stands out even if its peers did
    peer_dev = X[i, N_OWN : 2 * N_OWN] / (spread + 0.25)
    hist_dev = X[i, 2 * N_OWN :] / 0.5
    parts, feats = [], []
    candidates = []
    util = float(np.nan_to_num(frame.own_raw[i, OWN_NAMES.index("util_pct")]))
    for k in _CAUSES:
        value = float(frame.own_raw[i, k])
        median = float(frame.class_median_raw[i, k])
        if not value > 0:
            continue
        if k == DISCARDS and value < DISCARDS_PER_PKT * _packets(frame.links[i]):
            continue
        if twin_down and k not in _LOAD_FREE:
            continue  # it carries the share of a parallel link that is down: that link's consequence
        if just_bounced and (k in _LOAD_FREE or k == DISCARDS):
            continue  # a link coming up counts a few errors while it trains, and one going down drops
            # what was queued for it: the flap rule judges bounces
        excess = np.nan if group_excess is None or k not in GROUPED_AT else float(group_excess[GROUPED_AT[k]])
        if k == PFC_RX and frame.links[i].tags.get("role") in SWITCH_TO_SWITCH and np.isnan(excess):
            continue  # the far switch pausing it, with no parallel links to tell its congestion from this cable
        if k in PACED and paced is not None and paced[i] and (k == PFC_RX or _received_pauses(frame, i)):
            continue  # the host pacing what it is sent, which still flows
        if not np.isnan(excess):
            if excess < np.log10(GROUP_MARGIN):
                continue  # the links sharing its situation wait as much per unit of load: their load
        elif siblings is not None and k not in _LOAD_FREE and siblings.like(i, k, value) is not None:
            continue  # its rail or its switch does the same: their load, not this link
        # what healthy links of the class did at this load in training: a busy link pausing as
        # busy links do is not worse than expected, however far it stands from an idle median
        link = (frame.links[i].device, frame.links[i].port)
        ceiling = model.ceiling(util, k, link) if model is not None and k not in _LOAD_FREE else 0.0
        if value <= ceiling:
            continue
        if k == DISCARDS and (drops_shared or (model is not None and within_tails(frame, i, value, util, model))):
            continue
        if value > median and peer_dev[k] >= 2.0:
            candidates.append((float(peer_dev[k]), k, "peers", median))
        elif hist_dev[k] >= 4.0:  # worse than itself: baseline back out of the log-scaled deviation
            baseline = float(np.expm1(max(np.log1p(value) - float(X[i, 2 * N_OWN + k]), 0.0)))
            if value > baseline:
                candidates.append((float(hist_dev[k]) / 2, k, "history", baseline))
    spread_words = None if just_up else under_group(frame, i, util)
    if spread_words:
        parts.append(spread_words[0])
        feats.append(spread_words[1])
    for strength, k, against, expected in sorted(candidates, reverse=True)[:top]:
        name = OWN_NAMES[k]
        value = float(frame.own_raw[i, k])
        unit = UNITS[name]
        if against == "peers":
            ratio = f"{value / expected:,.0f}x its class median ({expected:,.3g}{unit})" if expected > 0 \
                else "where its class has none"
            words = f"{name} {value:,.3g}{unit}, {ratio}"
            if model is not None and model.ceilings is not None and k not in _LOAD_FREE:
                words += (f"; healthy links of its class at {util:.0f}% load stay under "
                          f"{model.ceiling(util, k):,.3g}{unit}")
                if link in model.link_ceilings:
                    words += f", this link under {model.link_ceiling(util, k, link):,.3g}{unit}"
        else:
            words = f"{name} {value:,.3g}{unit}, up from its usual {expected:,.3g}{unit}"
        parts.append(words)
        feats.append({"feature": name, "value": value, "expected": expected, "against": against,
                      "deviation": round(strength, 2)})
    return "; ".join(parts), feats


