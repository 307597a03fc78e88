"""Degraded-link detection: an isolation forest per port class, a threshold from a false-alarm
budget on held-out healthy data, hysteresis, rules beside it, and an explanation per finding."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import time
import warnings
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fabricwatch.core.counters import Evidence
from fabricwatch.models.background import EVIDENCE_NAMES, BackgroundRates, EvidenceWindows, Verdict
from fabricwatch.models.features import (
    FEATURE_NAMES,
    N_OWN,
    OWN_NAMES,
    UNITS,
    FeatureFrame,
    LinkInterval,
    LinkState,
    evidence_counts,
)
from fabricwatch.models.groups import G_INDEX, GROUPED, SiblingRatios, group_view
from fabricwatch.models.optics import OpticsWatch
from fabricwatch.models.rules import RuleConfig, RuleHit, evaluate, speed_degraded_rows, worst
from fabricwatch.models.trends import TrendWatch

if TYPE_CHECKING:
    from sklearn.ensemble import IsolationForest

# scikit-learn and skops (~125 MB of a process) are imported where a forest is fitted, read or
# written: a daemon on rules alone, and every collector worker, never load them

MODEL_VERSION = 3  # the version of the file layout below; another is refused with the way to retrain
MIN_CLASS_ROWS = 50
TRAIN_NOISE = 0.1  # in log1p units
MIN_PEER_LIMIT = 0.7  # log1p units: never flag a feature for being under 2x its peers
ECN = OWN_NAMES.index("ecn_per_mpkt")
FLAPS = OWN_NAMES.index("flaps")
LINK_RECOVERY = OWN_NAMES.index("link_recovery")
PFC_TX = OWN_NAMES.index("pfc_tx")
PFC_RX = OWN_NAMES.index("pfc_rx")
UTIL = OWN_NAMES.index("util_pct")
ECN_PEER_MIN = 100.0  # marks per 1M packets among peers before silence counts as missing ECN
PEER_MARGIN = 1.2  # over the budget quantile of held-out healthy deviations


FORESTS = "forests.skops"
# what skops must not build unless told: the trees of the forests, nothing else
TRUSTED_TYPES = frozenset({"sklearn.tree._tree.Tree"})


def _check_owner(path: Path) -> None:
    """A model is code-free, but still decides what pages: refuse one others may have written."""
    try:
        st = path.stat()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read: {exc.strerror}") from None
    if st.st_mode & 0o022:
        raise ModelError(f"{path}: writable by group or others (mode {st.st_mode & 0o777:o}); chmod go-w it")
    if st.st_uid not in (0, os.geteuid()):
        raise ModelError(f"{path}: owned by uid {st.st_uid}, neither root nor this user")


class ModelError(Exception):
    """A model file that cannot be used; the message says why."""


@dataclass
class ClassModel:
    forest: IsolationForest
    threshold: float  # forest anomaly score (higher = stranger) above which an interval counts
    train_rows: int
    holdout_rows: int
    # per own feature: the deviation from load-matched peers (log units) that held-out healthy
    # intervals exceed at the false-alarm budget; catches one feature far off when the forest,
    # which splits on one random feature at a time, scores it only moderately
    peer_limits: np.ndarray | None = None
    # (load bin, own feature): the most a healthy link of the class showed at that utilisation in
    # training (a high quantile, with margin): what "worse than expected at its load" is measured by
    ceilings: np.ndarray | None = None
    # per link seen in training: the most it showed of each load-driven feature, with margin (a
    # storage port's checkpoint drops, a slow receiver's pauses: that link's healthy, not its class's)
    link_ceilings: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    # (false-alarm rate, forest threshold, peer limits) on a grid of rates, from the held-out
    # history: a budget set later (`[detector] false_alarms_per_day`) picks its thresholds here
    by_rate: list[tuple[float, float, np.ndarray]] = field(default_factory=list)

    def ceiling(self, util_pct: float, k: int, link: tuple[str, str] | None = None) -> float:
        mine = self.link_ceiling(util_pct, k, link)
        if self.ceilings is None:
            return mine
        b = min(int(max(util_pct, 0.0) // LOAD_BIN_PCT), len(self.ceilings) - 1)
        return max(float(self.ceilings[b, k]), mine)

    def link_ceiling(self, util_pct: float, k: int, link: tuple[str, str] | None) -> float:
        """What this link showed in training at most, or in proportion to its load; 0 if unknown."""
        own = self.link_ceilings.get(link) if link is not None else None
        if own is None:
            return 0.0
        # a link carries at most its line rate: more is a counter glitch, not more allowance
        per_load = float(own[N_OWN + k]) * min(max(util_pct, 1.0), 100.0) if len(own) > N_OWN else 0.0
        return max(float(own[k]), per_load)

    def combined(self, forest_scores: np.ndarray, X: np.ndarray) -> np.ndarray:
        """max(forest score / its threshold, worst peer deviation / its limit): > 1 is anomalous."""
        ratio = forest_scores / self.threshold
        if self.peer_limits is not None:
            peer = np.abs(X[:, N_OWN : 2 * N_OWN]) / self.peer_limits
            ratio = np.maximum(ratio, peer.max(axis=1))
        return ratio


@dataclass(frozen=True)
class Hysteresis:
    raise_k: int = 2  # k of the last n intervals above threshold raise a finding
    raise_n: int = 3
    clear_m: int = 3  # m clean intervals in a row clear it

    def __post_init__(self) -> None:
        if not 1 <= self.raise_k <= self.raise_n <= 16 or self.clear_m < 1:
            raise ValueError("hysteresis needs 1 <= raise_k <= raise_n <= 16 and clear_m >= 1")


@dataclass
class Finding:
    time_ns: int
    device: str
    port: str
    link_class: str
    score: float
    threshold: float
    flagged: bool  # the finding is active (after hysteresis, or by a rule)
    severity: str
    source: str  # model, rule, model+rule
    explanation: str
    top_features: list[dict[str, Any]] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)  # model, ecn_missing, and the rules' names
    level: str = "link"  # link, or device: a condition of the whole switch (port is "*")
    peer: tuple[str, str] | None = None  # the far end of the cable (device, port), from the topology
    ports: list[str] = field(default_factory=list)  # a device finding: the ports that show it

    def to_json(self) -> dict[str, Any]:
        out = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.time_ns / 1e9)),
            "time_ns": self.time_ns, "device": self.device, "port": self.port, "level": self.level,
            "class": self.link_class, "score": round(self.score, 4),
            "threshold": round(self.threshold, 4) if math.isfinite(self.threshold) else None,
            "severity": self.severity, "source": self.source,
            "explanation": self.explanation, "features": self.top_features, "conditions": self.conditions,
        }
        if self.peer is not None:
            out["peer"] = {"device": self.peer[0], "port": self.peer[1]}
        if self.ports:
            out["ports"] = self.ports
        return out


def _peer(li: LinkInterval) -> tuple[str, str] | None:
    device, port = li.tags.get("peer_device"), li.tags.get("peer_port")
    return (device, port) if device and port else None


DEVICE_MIN_PORTS = 3  # ports of one switch with ECN missing at once: the switch, not its ports


def _device_findings(frame: FeatureFrame, findings: list[Finding]) -> list[Finding]:
    """ECN missing on several ports of one switch is one condition of that switch (ECN disabled or
    its profile wrong), reported once as a device finding; the ports stay listed in it."""
    ecn_only: dict[str, list[Finding]] = {}
    for f in findings:
        if "ecn_missing" in f.conditions and set(f.conditions) <= {"ecn_missing", "anomaly"}:
            ecn_only.setdefault(f.device, []).append(f)
    grouped = {d: fs for d, fs in ecn_only.items() if len(fs) >= DEVICE_MIN_PORTS}
    if not grouped:
        return findings
    out = [f for f in findings if f.device not in grouped or f not in grouped[f.device]]
    row = {(li.device, li.port): i for i, li in enumerate(frame.links)}
    for device, fs in grouped.items():
        rows = [row[(f.device, f.port)] for f in fs]
        marks = float(np.median(frame.class_median_raw[rows, ECN]))
        sent = float(np.nansum(frame.own_raw[rows, PFC_TX]))
        usual = float(np.nansum(frame.class_median_raw[rows, PFC_TX]))
        loaded = sum(1 for li in frame.links if li.device == device
                     and float(np.nan_to_num(frame.own_raw[row[(li.device, li.port)], UTIL])) >= 5.0)
        words = (f"ECN marks nothing on {len(fs)} of its {loaded} ports carrying traffic while ports of their "
                 f"classes mark {marks:,.0f} per 1M pkts: ECN disabled or misconfigured on the switch?")
        if usual > 0 and sent > 2 * usual:
            words += f"; it sends {sent / usual:,.1f}x the pauses its peers do ({sent:,.3g}/s on those ports)"
        out.append(Finding(frame.start_ns, device, "*", "device", max(f.score for f in fs), 1.0, True,
                           worst([f.severity for f in fs]), "model", words,
                           [{"feature": "ecn_per_mpkt", "value": 0.0, "expected": marks, "against": "peers",
                             "deviation": 0.0}],
                           ["ecn_missing"], level="device", ports=sorted(f.port for f in fs)))
    return out


EVIDENCE_CONDITIONS = frozenset({"corruption", "discards", "link_recovery", "fec_uncorrectable"})


def _devices_counting(start_ns: int, findings: list[Finding]) -> list[Finding]:
    """Several ports of one switch counting errors, discards or recoveries at once share what they have in
    common: the switch (its ASIC, a line card, its power or firmware), not that many cables. One device
    finding lists them; a port that shows more than that keeps its own finding."""
    counting: dict[str, list[Finding]] = {}
    for f in findings:
        if f.level == "link" and f.conditions and set(f.conditions) <= EVIDENCE_CONDITIONS:
            counting.setdefault(f.device, []).append(f)
    grouped = {d: fs for d, fs in counting.items() if len(fs) >= DEVICE_MIN_PORTS}
    if not grouped:
        return findings
    out = [f for f in findings if f.device not in grouped or f not in grouped[f.device]]
    for device, fs in grouped.items():
        conditions = sorted({c for f in fs for c in f.conditions})
        ports = sorted(f.port for f in fs)
        strongest = max(fs, key=lambda f: (f.severity == "critical", f.score))
        words = (f"{len(fs)} ports count {', '.join(conditions)} above their background at once "
                 f"({', '.join(ports[:8])}{', ...' if len(ports) > 8 else ''}): the switch (ASIC, line card, "
                 f"power or firmware) rather than {len(fs)} cables; e.g. {strongest.port}: {strongest.explanation}")
        out.append(Finding(start_ns, device, "*", "device", max(f.score for f in fs), float("inf"), True,
                           worst([f.severity for f in fs]), "rule", words, [], conditions,
                           level="device", ports=ports))
    return out


def _hot_switches(start_ns: int, findings: list[Finding], optics: OpticsWatch) -> list[Finding]:
    """Modules running hot on several ports of one switch are that switch's cooling (fans, inlet air,
    blanking), reported once as a device finding, not one page per module; a port with more than heat
    keeps its own finding."""
    hot: dict[str, list[Finding]] = {}
    for f in findings:
        if f.level == "link" and f.conditions == ["module_hot"]:
            hot.setdefault(f.device, []).append(f)
    grouped = {d: fs for d, fs in hot.items() if len(fs) >= DEVICE_MIN_PORTS}
    if not grouped:
        return findings
    out = [f for f in findings if f.device not in grouped or f not in grouped[f.device]]
    for device, fs in grouped.items():
        temps = [t for f in fs if (t := optics.temperature((f.device, f.port))) is not None]
        hottest = f" (up to {max(temps):.1f} degC)" if temps else ""
        out.append(Finding(start_ns, device, "*", "device", 0.0, float("inf"), True, worst([f.severity for f in fs]),
                           "rule", f"{len(fs)} modules past their warning temperature{hottest}: the switch's "
                                   "cooling (fans, inlet air, blanking panels)?", [], ["module_hot"],
                           level="device", ports=sorted(f.port for f in fs)))
    return out


def _one_per_cable(findings: list[Finding]) -> list[Finding]:
    """Both ends of one cable flagged in the same interval are one problem: keep the stronger end
    and say what its far end shows (the scorer of a page is the on-call engineer, not the port count)."""
    at = {(f.device, f.port): f for f in findings if f.level == "link"}
    dropped: set[int] = set()
    for f in findings:
        if f.peer is None or id(f) in dropped:
            continue
        other = at.get(f.peer)
        if other is None or other is f or id(other) in dropped or other.peer != (f.device, f.port):
            continue
        keep, drop = sorted((f, other), key=lambda x: (x.severity == "critical", x.score), reverse=True)
        keep.explanation += f"; its far end {drop.device}:{drop.port} shows it too ({drop.explanation})"
        keep.conditions = sorted(set(keep.conditions) | set(drop.conditions))
        dropped.add(id(drop))
    return [f for f in findings if id(f) not in dropped]


# What a link can be blamed for. Utilisation is the context a link is judged in, never a cause.
# More ECN marks than its peers is congestion control doing its job on a busier link (incast, hash
# polarisation): for ECN only its absence is a fault (`_ecn_missing`). Pauses a port *sends* say its
# switch's buffers fill because an egress elsewhere is congested (a checkpoint to storage, an
# incast): the cause is not this link, and a switch pausing everywhere is a device finding. Flaps
# belong to the flap rule, which looks over several intervals (one bounce is maintenance).
_NOT_CAUSES = ("util_pct", "ecn_per_mpkt", "pfc_tx", "flaps")
_CAUSES = [k for k, name in enumerate(OWN_NAMES) if name not in _NOT_CAUSES]
DISCARDS = OWN_NAMES.index("discards")
DISCARDS_PER_PKT = 1e-6  # drops below one per million packets are noise on any fabric
# roles whose far end is a switch: pauses received there spread congestion from another egress
SWITCH_TO_SWITCH = frozenset({"leaf_up", "spine", "spine_down", "core"})


def _packets(li: LinkInterval) -> float:
    return li.rates.get("in_pkts", 0.0) + li.rates.get("out_pkts", 0.0)


SIBLING_MARGIN = 2.0  # within this factor of its siblings' median, a link does what they do
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


def explain(frame: FeatureFrame, i: int, top: int = 3, model: ClassModel | None = None,
            just_bounced: bool = False, siblings: Siblings | None = None) -> tuple[str, list[dict[str, Any]]]:
    """The features that make row i *worse* than expected, in words and numbers: above its
    load-matched class peers, or above its own history. Empty when nothing is worse (a link that
    only stands out by being quieter than its peers is not degraded)."""
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
        if k == PFC_RX and frame.links[i].tags.get("role") in SWITCH_TO_SWITCH:
            continue  # the far switch pausing it: that switch's congestion elsewhere, not this cable
        if just_bounced and (k in _LOAD_FREE or k == DISCARDS):
            continue  # a link coming up counts a few errors while it trains, and one going down drops
            # what was queued for it: the flap rule judges bounces
        if siblings is not None and k not in _LOAD_FREE and siblings.like(i, k, value) is not None:
            continue  # its rail or its switch does the same: their load, not this link
        # what healthy links of the class did at this load in training: a busy link pausing as
        # busy links do is not worse than expected, however far it stands from an idle median
        link = (frame.links[i].device, frame.links[i].port)
        ceiling = model.ceiling(util, k, link) if model is not None and k not in _LOAD_FREE else 0.0
        if value <= ceiling:
            continue
        if value > median and peer_dev[k] >= 2.0:
            candidates.append((float(peer_dev[k]), k, "peers", median))
        elif hist_dev[k] >= 4.0:  # worse than itself: baseline back out of the log-scaled deviation
            baseline = float(np.expm1(max(np.log1p(value) - float(X[i, 2 * N_OWN + k]), 0.0)))
            if value > baseline:
                candidates.append((float(hist_dev[k]) / 2, k, "history", baseline))
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


LOAD_BIN_PCT = 10.0  # utilisation bins of the healthy ceilings
CEILING_QUANTILE = 0.999
CEILING_MARGIN = 1.5
MIN_BIN_ROWS = 50


LINK_CEILING_MARGIN = 1.5
PER_LOAD_MIN_UTIL = 20.0


def _link_ceilings(keys: list[tuple[str, str]], own: np.ndarray) -> dict[tuple[str, str], np.ndarray]:
    """Per link, the most of each load-driven feature it showed in training, and the most per percent
    of utilisation (a slow receiver pauses in proportion to what it receives), each times a margin:
    2 x N_OWN values. Load-free features (errors, flaps) get none: a stray error in training must not
    hide a dirty optic later."""
    values = np.nan_to_num(np.maximum(own, 0.0))
    values[:, _LOAD_FREE] = 0.0
    # per percent of load only from busy intervals: a few pauses at 1 % must not extrapolate upwards
    util = values[:, [UTIL]]
    per_load = np.where(util >= PER_LOAD_MIN_UTIL, values / np.maximum(util, 1.0), 0.0)
    per_load[:, UTIL] = 0.0
    both = np.hstack([values, per_load])
    peaks: dict[tuple[str, str], np.ndarray] = {}
    for key, row in zip(keys, both, strict=True):
        have = peaks.get(key)
        peaks[key] = row.copy() if have is None else np.maximum(have, row)
    return {k: v * LINK_CEILING_MARGIN for k, v in peaks.items() if v.any()}


def _ceilings(own: np.ndarray) -> np.ndarray:
    """Per 10 % utilisation bin, the healthy ceiling of every own feature: the class's 99.9th
    percentile there, times a margin. A bin with too few rows takes the next busier bin's (more
    load never means less pausing), and every bin at least the ones below it."""
    util = np.nan_to_num(own[:, OWN_NAMES.index("util_pct")])
    n_bins = int(100 // LOAD_BIN_PCT) + 1
    bins = np.minimum((util // LOAD_BIN_PCT).astype(int), n_bins - 1)
    values = np.nan_to_num(own)
    overall = np.quantile(values, CEILING_QUANTILE, axis=0) * CEILING_MARGIN
    out = np.tile(overall, (n_bins, 1))
    have = np.zeros(n_bins, dtype=bool)
    for b in range(n_bins):
        rows = values[bins == b]
        if len(rows) >= MIN_BIN_ROWS:
            out[b] = np.quantile(rows, CEILING_QUANTILE, axis=0) * CEILING_MARGIN
            have[b] = True
    for b in range(n_bins - 2, -1, -1):  # sparse bins borrow from busier ones
        if not have[b]:
            out[b] = out[b + 1]
    return np.maximum.accumulate(out, axis=0)


ERRORS = OWN_NAMES.index("errors")
OUTLIER_RATIO = 8.0  # per unit of load over its group's median, beyond the link's usual ratio to it
OUTLIER_CRITICAL = 30.0
OUTLIER_K, OUTLIER_N = 3, 4  # intervals of the last N: one interval's spike is what heavy tails do
DOWN_INTERVALS = 4  # intervals in a row a link stays down before it is a finding (a bounce is the flap rule's)


def _utc(ns: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ns / 1e9))
LOSS_CRITICAL = 1e-6  # counted per packet moved: where RDMA's go-back-N retransmissions start to cost
RECOVERIES_CRITICAL = 3  # link recoveries in a window: each stalls the link


def _drops_within_load(frame: FeatureFrame, i: int, v: Verdict, interval_s: float, model: ClassModel | None,
                       siblings: Siblings) -> bool:
    """The window's drops are what a link at this load drops: under the healthy ceiling of its class
    (and of this link) at its utilisation, or within reach of its siblings' drops now."""
    rate = v.total / (v.window * interval_s)
    util = float(np.nan_to_num(frame.own_raw[i, UTIL]))
    li = frame.links[i]
    if model is not None and rate <= model.ceiling(util, DISCARDS, (li.device, li.port)):
        return True
    return siblings.like(i, DISCARDS, float(np.nan_to_num(frame.own_raw[i, DISCARDS]))) is not None


def _evidence_hit(v: Verdict, interval_s: float) -> RuleHit:
    """A counter above its background as a finding named by that counter, with its impact."""
    every = f"1 in {1 / v.expected_share:,.0f} intervals" if v.expected_share > 0 else "never"
    rate_h = v.expected_rate * 3600
    words = (f"{v.name} {v.total:,.0f} in the last {v.window * interval_s / 60:g} min ({v.erred} of {v.window} "
             f"intervals), where its background is {every} ({rate_h:,.2g}/h); p=1e{v.log10_p:.0f}")
    if v.evidence is Evidence.INTEGRITY:
        severe = v.total >= RECOVERIES_CRITICAL
        words += ": the link keeps retraining (cable, optic or port?)"
    else:
        severe = v.share_of_packets >= LOSS_CRITICAL
        if math.isfinite(v.share_of_packets):
            words += f", {v.share_of_packets:.2g} of its packets"
        words += (": corruption on the wire (optic, cable or connector?)" if v.evidence is Evidence.ERROR
                  else ": the port drops packets")
    condition = {"fec_uncorrectable": "fec_uncorrectable"}.get(v.name, {
        Evidence.ERROR: "corruption", Evidence.DISCARD: "discards", Evidence.INTEGRITY: "link_recovery"}[v.evidence])
    return RuleHit("critical" if severe else "warning", words, condition)

SETTLE_INTERVALS = 4  # after a device-wide bounce (reboot, firmware update): at least the flap window
CROWD_CLASS = 0.15  # share of a class over its threshold at once: load, not that many faults
CROWD_RAIL = 0.5  # the same within one rail, or one device, of a class (a busy rail, one job's hosts)
CROWD_FAR_END = 1 / 3  # the same among the links of a class that reach one far device (a host's NICs)
_LOAD_FREE = [OWN_NAMES.index(n) for n in ("errors", "link_recovery", "flaps")]


def _crowd(frame: FeatureFrame, over: np.ndarray, *, far_end_only: bool = False) -> np.ndarray:
    """Links over the threshold together with much of their class, or of their rail in it: a load
    swing moves all of them (a job starting, an all-to-all, a hot rail), a degraded link moves alone.
    Corruption and flaps do not follow load, so links showing them are never part of a crowd."""
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
    groupings = [(CROWD_FAR_END, 3, by_far_end)]
    if not far_end_only:
        groupings += [(CROWD_CLASS, 4, by_class), (CROWD_RAIL, 4, by_rail), (CROWD_RAIL, 4, by_device)]
    for share, least, keys in groupings:
        size: dict[tuple[str, str], int] = {}
        hot: dict[tuple[str, str], list[int]] = {}
        for i in range(n):
            g = keys[i]
            size[g] = size.get(g, 0) + 1
            if over[i]:
                hot.setdefault(g, []).append(i)
        for g, rows in hot.items():
            if len(rows) >= least and len(rows) >= share * size[g]:
                out[rows] = True
    return out & ~load_free


def _device_events(links: list[LinkInterval], bounced: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Links whose device, or the host at their far end, bounced most of its links recently (at
    least 3 and half of those seen): a reboot, a firmware update, maintenance. Second: links of a
    group where more than one link bounced but not yet enough, so it may be one forming."""
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
            if len(rows) >= 3 and 2 * len(rows) >= seen[g]:
                out[rows] = True
            elif len(rows) >= 2 and seen[g] >= 3:
                forming[rows] = True
    return out, forming & ~out


RATE_GRID = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7)
MIN_RATE, MAX_RATE = RATE_GRID[-1], RATE_GRID[0]


def _thresholds(hold_scores: np.ndarray, peer_hold: np.ndarray, rate: float) -> tuple[float, np.ndarray]:
    """The forest score and the per-feature peer deviations that held-out healthy intervals exceed
    at `rate` (a share of link-intervals)."""
    q = 1.0 - rate
    threshold = float(np.quantile(hold_scores, q, method="higher"))
    limits = np.maximum(np.quantile(peer_hold, q, axis=0, method="higher") * PEER_MARGIN, MIN_PEER_LIMIT)
    return threshold, limits


def budget_rate(per_day: float, links: int, interval_s: float) -> float:
    """A fabric-wide budget of false alarms per day as a share of link-intervals: the budget over
    the link-intervals of a day, clamped to what a held-out history can resolve."""
    per_day_intervals = max(links, 1) * 86400.0 / interval_s
    return min(max(per_day / per_day_intervals, MIN_RATE), MAX_RATE)


class LinkDetector:
    def __init__(self, *, interval_s: float = 30.0, false_alarm_rate: float = 1e-4,
                 false_alarms_per_day: float | None = None,
                 n_estimators: int = 100, hysteresis: Hysteresis = Hysteresis(),
                 rules: RuleConfig | None = None, seed: int = 7) -> None:
        self.interval_s = interval_s
        self.false_alarm_rate = false_alarm_rate
        self.false_alarms_per_day = false_alarms_per_day
        self.n_estimators = n_estimators
        self.hysteresis = hysteresis
        self.rules = rules or RuleConfig()
        self.seed = seed
        self.models: dict[str, ClassModel] = {}
        self.training: dict[str, Any] = {}
        # False scores by the expectation alone (peer and load-matched limits), no forest: what the
        # benches compare to show what the forest adds
        self.use_forest = True
        self.optics = OpticsWatch()
        # every error, discard and integrity counter against its background (a default one until fitted)
        self.background = BackgroundRates()
        # each link's usual ratio to the links sharing its situation (none until fitted)
        self.sibling_ratios = SiblingRatios()
        self.reset()

    # -- training ----------------------------------------------------------------------
    def fit(self, frames: list[FeatureFrame],
            progress: Callable[[str, int, int], None] | None = None) -> LinkDetector:
        """Fit one forest per class on healthy intervals; the threshold is the score that
        held-out intervals (the last 20 % in time) exceed at the false-alarm budget."""
        by_class: dict[str, list[tuple[int, str, str, np.ndarray]]] = {}
        own_rows: dict[str, list[np.ndarray]] = {}
        own_keys: dict[str, list[tuple[str, str]]] = {}
        self.background = BackgroundRates().fit(
            [(li.device, li.port) for f in frames for li in f.links], [c for f in frames for c in f.classes],
            np.vstack([evidence_counts(f, EVIDENCE_NAMES, self.interval_s) for f in frames])
            if frames else np.zeros((0, len(EVIDENCE_NAMES))), self.interval_s)
        self.sibling_ratios = SiblingRatios().fit(frames)
        for frame in frames:
            for i, c in enumerate(frame.classes):
                li = frame.links[i]
                by_class.setdefault(c, []).append((frame.start_ns, li.device, li.port, frame.X[i]))
                own_rows.setdefault(c, []).append(frame.own_raw[i])
                own_keys.setdefault(c, []).append((li.device, li.port))
        own_by_class = {c: np.array(rows) for c, rows in own_rows.items()}
        n_links = len({k for keys in own_keys.values() for k in keys})
        if self.false_alarms_per_day is not None:
            self.false_alarm_rate = budget_rate(self.false_alarms_per_day, n_links, self.interval_s)
        self.models.clear()
        classes = sorted(by_class)
        for n, c in enumerate(classes):
            # in time, then by link: the same history gives the same model however it was read
            rows = sorted(by_class[c], key=lambda r: r[:3])
            if len(rows) < MIN_CLASS_ROWS:
                continue
            X = np.array([r[3] for r in rows])
            cut = int(len(X) * 0.8)
            train, hold = X[:cut], X[cut:]
            # a feature that never moved in healthy data (errors, say) would give the forest
            # nothing to split on, and a link whose errors jump would look normal: a little
            # noise gives every feature a range, so values beyond it are isolated at once
            rng = np.random.default_rng(self.seed)
            train = train + rng.normal(0.0, TRAIN_NOISE, train.shape)
            from sklearn.ensemble import IsolationForest

            forest = IsolationForest(n_estimators=self.n_estimators, random_state=self.seed, n_jobs=1)
            forest.fit(train)
            hold_scores = -forest.score_samples(hold)
            peer_hold = np.abs(hold[:, N_OWN : 2 * N_OWN])
            threshold, limits = _thresholds(hold_scores, peer_hold, self.false_alarm_rate)
            grid = [(r, *_thresholds(hold_scores, peer_hold, r)) for r in RATE_GRID]
            self.models[c] = ClassModel(forest, threshold, len(train), len(hold), limits,
                                        _ceilings(own_by_class[c]),
                                        _link_ceilings(own_keys[c], own_by_class[c]), grid)
            if progress:
                progress(c, n + 1, len(classes))
        if not self.models:
            raise ModelError(f"no port class had {MIN_CLASS_ROWS} healthy intervals to learn from")
        starts = [f.start_ns for f in frames]
        self.training = {"from_ns": min(starts), "to_ns": max(starts) + int(self.interval_s * 1e9),
                         "intervals": len(frames), "links": n_links,
                         "expected": self._expected_pages(frames, n_links)}
        return self

    def _expected_pages(self, frames: list[FeatureFrame], n_links: int) -> dict[str, float]:
        """Finding events (a link raised after 3 clean intervals) the fitted detector raises on the
        held-out last 20 % of the healthy history, per day: what the on-call engineer should expect."""
        ordered = sorted(frames, key=lambda f: f.start_ns)
        hold = ordered[int(len(ordered) * 0.8):]
        self.reset()
        last_seen: dict[tuple[str, str], int] = {}
        events = 0
        for n, frame in enumerate(hold):
            for f in self.detect(frame):
                key = (f.device, f.port)
                if n - last_seen.get(key, -10) > 3:
                    events += 1
                last_seen[key] = n
        self.reset()
        days = max(len(hold), 1) * self.interval_s / 86400.0
        return {"holdout_intervals": len(hold), "events": events, "pages_per_day": events / days,
                "pages_per_day_per_10k_links": events / days * 10_000 / max(n_links, 1),
                "upper_per_day": max(events, 3) / days}  # rule of three: 0 in n days, < 3/n at 95 %

    def apply_budget(self, per_day: float) -> float:
        """Re-derive every class's thresholds from its held-out grid for a fabric-wide budget of false
        alarms per day; returns the share of link-intervals that means. Models without a grid keep theirs."""
        links = int(self.training.get("links") or 0)
        rate = budget_rate(per_day, links, self.interval_s)
        for m in self.models.values():
            stricter = [g for g in m.by_rate if g[0] <= rate]
            if stricter:
                _, m.threshold, m.peer_limits = max(stricter, key=lambda g: g[0])
        self.false_alarm_rate = rate
        self.false_alarms_per_day = per_day
        return rate

    def _ecn_missing(self, frame: FeatureFrame) -> np.ndarray:
        """Links that mark nothing while their load-matched peers mark: ECN disabled or
        misconfigured on the switch. A log-scaled feature near zero cannot show this to the
        forest as strongly as the fact itself, so it is tested directly (then hysteresis)."""
        own, med = frame.own_raw, frame.class_median_raw
        util = own[:, OWN_NAMES.index("util_pct")]
        return (own[:, ECN] == 0) & (med[:, ECN] >= ECN_PEER_MIN) & (util >= 5.0)

    def _evidence(self, frame: FeatureFrame, rows: np.ndarray, judged: np.ndarray) -> dict[int, list[Verdict]]:
        """Per row, the evidence counters standing above the link's background (rows not `judged`, a
        link training after a bounce or a reboot, add nothing: errors then are the bounce's)."""
        counts = np.nan_to_num(np.maximum(evidence_counts(frame, EVIDENCE_NAMES, self.interval_s), 0.0))
        counts[~judged] = 0.0
        counted = counts.any(axis=1)
        on = self._state["evidence"]
        out: dict[int, list[Verdict]] = {}
        for i in np.nonzero(counted | on[rows])[0].tolist():
            li = frame.links[i]
            key = (li.device, li.port)
            pkts = _packets(li) * self.interval_s
            win = self._windows.push(key, counts[i] if counted[i] else None, pkts)
            on[rows[i]] = win is not None
            if win is None:
                continue
            verdicts = self.background.score(win[0], win[1], self.background.background(key, frame.classes[i]),
                                             self.interval_s)
            if verdicts:
                out[i] = verdicts
        return out

    def _standing_out(self, frame: FeatureFrame, rows: np.ndarray, quiet: np.ndarray) -> dict[int, RuleHit]:
        """Links whose credit waits (or, on a host link, pauses received) per unit of load stand OUTLIER_RATIO
        times over the median of the links sharing their situation now, beyond their usual ratio to them,
        in OUTLIER_K of the last OUTLIER_N intervals: the link, not the load everyone shares."""
        view = group_view(frame)
        with np.errstate(divide="ignore", invalid="ignore"):
            lr = np.log10(view.ratio) - self.sibling_ratios.usual([(li.device, li.port) for li in frame.links]) \
                if self.sibling_ratios.usual_ else np.log10(view.ratio)
        own = np.nan_to_num(frame.own_raw[:, G_INDEX])
        # material: above what its class shows at this moment, not a ratio of two near-zeros
        material = own > 2 * np.nan_to_num(frame.class_median_raw[:, G_INDEX])
        strong = np.nan_to_num(lr, nan=-np.inf) >= math.log10(OUTLIER_RATIO)
        strong &= material & ~quiet[:, None]
        st = self._state
        bits = ((st["outlier"][rows] << 1) | strong.astype(np.uint8)) & np.uint8((1 << OUTLIER_N) - 1)
        st["outlier"][rows] = bits
        held = (np.bitwise_count(bits) >= OUTLIER_K) & strong
        out = {}
        util = np.nan_to_num(frame.own_raw[:, UTIL])
        for i, j in zip(*np.nonzero(held), strict=True):
            i, j = int(i), int(j)
            if i in out:
                continue
            name = GROUPED[j]
            ratio = float(view.ratio[i, j])
            unit = UNITS[name]
            out[i] = RuleHit("critical" if ratio >= OUTLIER_CRITICAL else "warning",
                             f"{name} {own[i, j]:,.3g}{unit} at {util[i]:.0f}% load, {ratio:,.0f}x per unit of load "
                             f"the median of the {view.size[i]} {view.group[i]} it shares its situation with "
                             f"({view.median[i, j]:,.3g}{unit}), in {int(np.bitwise_count(bits[i, j]))} of the last "
                             f"{OUTLIER_N} intervals: this link, not the load they share", "outlier_in_group")
        return out

    def _left_down(self, frame: FeatureFrame, rows: np.ndarray, settling: np.ndarray) -> dict[int, RuleHit]:
        """Links operationally down for DOWN_INTERVALS in a row while administratively up, or while the
        far end of their cable says it is up: a port left down after a replacement, a one-way optic, a
        cable pulled. Down at both ends with no administrative state is left alone: a planned shutdown
        looks the same."""
        oper = frame.reading("oper_status")
        down = np.nan_to_num(oper, nan=1.0) < 0.5
        st = self._state
        count = np.where(down & ~settling, st["down"][rows] + 1, 0)
        st["down"][rows] = count
        long = np.nonzero(count >= DOWN_INTERVALS)[0]
        if not len(long):
            return {}
        admin = frame.reading("admin_status")
        at = {(li.device, li.port): j for j, li in enumerate(frame.links)}
        out = {}
        for i in long.tolist():
            li = frame.links[i]
            if admin[i] == 0:
                continue  # shut by an operator
            far = at.get(_peer(li) or ("", ""))
            far_up = far is not None and oper[far] >= 0.5
            if not far_up and admin[i] != 1:
                continue
            since = frame.start_ns - (int(count[i]) - 1) * int(self.interval_s * 1e9)
            why = (f"its far end {li.tags['peer_device']}:{li.tags['peer_port']} reports up" if far_up
                   else "administratively up")
            out[i] = RuleHit("critical", f"link down since {_utc(since)} ({count[i] * self.interval_s / 60:,.0f} min) "
                                         f"while {why}: a port left down after a replacement, a one-way optic "
                                         "or a pulled cable?", "link_left_down")
        return out

    def reset(self) -> None:
        """Forget every link's hysteresis state (a new fabric or a new replay)."""
        self.optics = OpticsWatch(self.optics.cfg)
        # per link: the last raise_n over/under bits, clean intervals in a row, finding active
        self._state = LinkState(bits=((), np.uint16), clean=((), np.int32), active=((), np.bool_),
                                flaps=((self.rules.flap_window,), np.float32), settle=((), np.int8),
                                bounce=((), np.int8), evidence=((), np.bool_), down=((), np.int32),
                                outlier=((len(GROUPED),), np.uint8))
        self._windows = EvidenceWindows()
        self.trends = TrendWatch()

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        """Forget these links' hysteresis state (their target was removed)."""
        keys = list(keys)
        self._state.forget(keys)
        self.optics.forget(keys)
        self._windows.forget(keys)
        self.trends.forget(keys)

    # -- scoring -----------------------------------------------------------------------
    def score(self, frame: FeatureFrame) -> np.ndarray:
        """Anomaly score per row, relative to the class's thresholds (> 1 = over the budget);
        NaN for classes without a model."""
        return self.score_many([frame])[0]

    def score_many(self, frames: Sequence[FeatureFrame]) -> list[np.ndarray]:
        """`score` of several frames with one forest call per class: scikit-learn walks its trees in
        Python, so a call costs ~15 ms however few rows it has; a replay scores many intervals at once.
        Each row's score is the same as alone (the forest scores rows independently)."""
        cls = np.array([c for f in frames for c in f.classes])
        X_all = np.vstack([f.X for f in frames]) if frames else np.zeros((0, len(FEATURE_NAMES)))
        scores = np.full(len(cls), np.nan)
        for c, m in self.models.items():
            rows = np.nonzero(cls == c)[0]
            if len(rows):
                X = X_all[rows]
                forest = -m.forest.score_samples(X) if self.use_forest else np.zeros(len(rows))
                scores[rows] = m.combined(forest, X)
        bounds = np.cumsum([0, *(len(f.links) for f in frames)])
        return [scores[a:b] for a, b in itertools.pairwise(bounds)]

    def detect_many(self, frames: Iterable[FeatureFrame], *, batch: int = 64) -> Iterator[list[Finding]]:
        """`detect` of each frame in order, scored `batch` frames at a time: the same findings."""
        it = iter(frames)
        while chunk := list(itertools.islice(it, batch)):
            for frame, scores in zip(chunk, self.score_many(chunk), strict=True):
                yield self.detect(frame, scores=scores)

    def detect(self, frame: FeatureFrame, *, scores: np.ndarray | None = None) -> list[Finding]:
        """Score an interval (unless `scores` holds its `score`), apply hysteresis and rules; one
        finding per active link. Hysteresis state is kept in arrays, so a 100k-link fabric costs a
        few vector ops and Python work only for the links that are flagged or that a rule may concern."""
        h = self.hysteresis
        links = frame.links
        n = len(links)
        if scores is None:
            scores = self.score(frame)
        ecn_missing = self._ecn_missing(frame)
        has_model = np.array([c in self.models for c in frame.classes], dtype=bool)
        st = self._state
        rows = st.rows(links)
        own = frame.own_raw
        downed = frame.rate("link_downed") > 0
        bounced = (np.nan_to_num(own[:, FLAPS]) > 0) | downed
        # a device's links do not all bounce in the same interval (a host's firmware update takes its
        # NICs down one after another): links that bounced within the settle window count together
        recent = np.where(bounced, SETTLE_INTERVALS, np.maximum(st["bounce"][rows] - 1, 0))
        st["bounce"][rows] = recent
        if bounced.any():
            device_event, forming = _device_events(links, recent > 0)
        else:
            device_event = forming = np.zeros(n, dtype=bool)
        # a link of a device that just rebooted settles for a few intervals (link training errors,
        # traffic coming back): what it shows then is the reboot, not the link
        settle = np.where(device_event, SETTLE_INTERVALS, np.maximum(st["settle"][rows] - 1, 0))
        st["settle"][rows] = settle
        over_score = has_model & (np.nan_to_num(scores) > 1.0) & (settle == 0)
        # no marks on one job's hosts across every rail is that job's traffic (a steady stream marks
        # nothing), not a switch with ECN off: a switch's ports reach as many hosts as it has ports
        if ecn_missing.any():
            ecn_missing &= ~_crowd(frame, ecn_missing, far_end_only=True)
        over = (over_score & ~_crowd(frame, over_score)) | ecn_missing
        bits = ((st["bits"][rows] << 1) | over.astype(np.uint16)) & np.uint16((1 << h.raise_n) - 1)
        st["bits"][rows] = bits
        clean = np.where(over, 0, st["clean"][rows] + 1)
        st["clean"][rows] = clean
        active = st["active"][rows]
        active = (active | (over & (np.bitwise_count(bits) >= h.raise_k))) & ~(active & (clean >= h.clear_m))
        st["active"][rows] = active
        # transitions over the last few intervals: a link that keeps flapping, not one that bounced once
        flap_hist = np.concatenate([st["flaps"][rows][:, 1:], np.nan_to_num(own[:, FLAPS:FLAPS + 1])], axis=1)
        flap_hist[settle > 0] = 0.0  # a device's reboot is not its links flapping
        st["flaps"][rows] = flap_hist
        recent_flaps = flap_hist.sum(axis=1)
        # every error, discard and integrity counter against the link's own background: a stray error
        # now and then is what healthy links do; more often than its history and class explain is not
        evidence = self._evidence(frame, rows, ~((settle > 0) | (recent > 0)))
        # drops that the links sharing a situation show at once (one host's NICs on every rail in an
        # incast, a class in an all-to-all) are that load; errors are the link's own whatever others do
        # drops follow load: more than the background is a finding only beyond what healthy links of
        # the class (and this link) dropped at this load, and not what its siblings do now
        siblings = Siblings(frame)
        dropping = np.zeros(n, dtype=bool)
        for i, vs in evidence.items():
            dropping[i] = any(v.evidence is Evidence.DISCARD for v in vs)
        # the links that share a situation and drop now (a storage node's NICs in its checkpoint, the ports
        # of an incast): their crowd is the load's
        if dropping.any():
            crowd = _crowd(frame, dropping | (np.nan_to_num(frame.own_raw[:, DISCARDS]) > 0))
        else:
            crowd = dropping
        for i in np.nonzero(dropping)[0].tolist():
            model = self.models.get(frame.classes[i])
            kept = [v for v in evidence[i] if v.evidence is not Evidence.DISCARD
                    or not (crowd[i] or _drops_within_load(frame, i, v, self.interval_s, model, siblings))]
            if kept:
                evidence[i] = kept
            else:
                del evidence[i]
        evidence_rows = np.zeros(n, dtype=bool)
        evidence_rows[list(evidence)] = True
        # the physical layer: the modules' readings of this interval, then who has a condition raised
        self.optics.observe(links, frame.start_ns + int(self.interval_s * 1e9))
        optic = self.optics.flagged
        optic_rows = np.fromiter(((li.device, li.port) in optic for li in links), dtype=bool, count=n) \
            if optic else np.zeros(n, dtype=bool)
        maybe_rule = optic_rows | (
            (recent_flaps > 0) | (own[:, LINK_RECOVERY] > 0)
            | (own[:, PFC_TX] >= self.rules.pause_storm_per_s) | (own[:, PFC_RX] >= self.rules.pause_storm_per_s)
            | evidence_rows
            | np.fromiter((bool(li.saturated) for li in links), dtype=bool, count=n)
            | (frame.rate("excessive_buffer_overrun_errors") > 0) | speed_degraded_rows(frame)
        )
        left_down = self._left_down(frame, rows, settle > 0)
        maybe_rule[list(left_down)] = True
        standing_out = self._standing_out(frame, rows, (settle > 0) | (recent > 0))
        maybe_rule[list(standing_out)] = True
        trending = self.trends.observe(links, frame.start_ns)
        if trending:
            maybe_rule |= np.fromiter(((li.device, li.port) in trending for li in links), dtype=bool, count=n)
        out = []
        for i in np.nonzero(active | maybe_rule)[0].tolist():
            li = links[i]
            model_active = bool(active[i])
            # a bounce while siblings bounce too waits an interval: it may be the device's maintenance
            only_now = float(own[i, FLAPS]) >= recent_flaps[i]
            hold = bool(forming[i]) and only_now and recent_flaps[i] < self.rules.flaps_critical
            hits = evaluate(li, self.interval_s, self.rules, device_event=bool(settle[i] > 0) or hold,
                            recent_flaps=float(recent_flaps[i]))
            if optic_rows[i]:
                hits += self.optics.hits((li.device, li.port))
            hits += [_evidence_hit(v, self.interval_s) for v in evidence.get(i, ())]
            if i in left_down:
                hits.append(left_down[i])
            if i in standing_out:
                hits.append(standing_out[i])
            hits += trending.get((li.device, li.port), [])
            if not model_active and not hits:
                continue
            thr = 1.0 if has_model[i] else float("inf")
            severities = [hit.severity for hit in hits]
            if model_active:
                severities.append("critical" if scores[i] > 2 * thr else "warning")
            model = self.models.get(frame.classes[i])
            words, feats = explain(frame, i, model=model, just_bounced=bool(recent[i] > 0),
                                   siblings=siblings) if model_active else ("", [])
            if model_active and not words and not ecn_missing[i]:
                # over the forest's threshold without one feature worse than expected: quieter or
                # differently busy, not degraded; no page
                model_active = False
                severities = [hit.severity for hit in hits]
                if not hits:
                    continue
            if model_active and ecn_missing[i]:
                med = frame.class_median_raw[i, ECN]
                words = f"no ECN marks while its peers mark {med:,.0f} per 1M pkts (ECN off?); " + words
            reasons = [hit.reason for hit in hits] + ([words] if words else [])
            source = "+".join(s for s, on in (("model", model_active), ("rule", bool(hits))) if on)
            conditions = sorted({h.condition for h in hits if h.condition}
                                | ({"ecn_missing"} if model_active and ecn_missing[i] else set())
                                | ({"anomaly"} if model_active and not ecn_missing[i] else set()))
            out.append(Finding(frame.start_ns, li.device, li.port, frame.classes[i],
                               float(scores[i]) if not np.isnan(scores[i]) else 0.0, thr,
                               True, worst(severities), source, "; ".join(reasons), feats, conditions,
                               peer=_peer(li)))
        out = _devices_counting(frame.start_ns, _device_findings(frame, out))
        return _one_per_cable(_hot_switches(frame.start_ns, out, self.optics))

    # -- persistence -------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        import skops.io as sio

        blob = sio.dumps({c: m.forest for c, m in self.models.items()})
        meta = {
            "version": MODEL_VERSION,
            "features": list(FEATURE_NAMES),
            "interval_s": self.interval_s,
            "false_alarm_rate": self.false_alarm_rate,
            "false_alarms_per_day": self.false_alarms_per_day,
            "hysteresis": self.hysteresis.__dict__,
            "classes": {c: {"threshold": m.threshold, "train_rows": m.train_rows,
                            "holdout_rows": m.holdout_rows,
                            "peer_limits": None if m.peer_limits is None else m.peer_limits.tolist(),
                            "ceilings": None if m.ceilings is None else m.ceilings.tolist(),
                            "link_ceilings": [[d, p, [float(f"{v:.4g}") for v in row]]
                                              for (d, p), row in sorted(m.link_ceilings.items())],
                            "by_rate": [[r, t, lim.tolist()] for r, t, lim in m.by_rate]}
                        for c, m in self.models.items()},
            "training": self.training,
            "background": self.background.to_json(),
            "sibling_ratios": self.sibling_ratios.to_json(),
            "sha256": hashlib.sha256(blob).hexdigest(),
        }
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("model.json", json.dumps(meta, indent=1))
            z.writestr(FORESTS, blob)

    @classmethod
    def load(cls, path: str | Path) -> LinkDetector:
        """A model file, read without running anything it holds: the forests are in skops format
        and only the types an isolation forest is made of may be built from it."""
        import skops.io as sio
        from sklearn.ensemble import IsolationForest

        _check_owner(Path(path))
        try:
            with zipfile.ZipFile(path) as z:
                meta = json.loads(z.read("model.json"))
                if meta.get("version") != MODEL_VERSION:
                    raise ModelError(f"{path}: model version {meta.get('version')} but this fabricwatch reads "
                                     f"version {MODEL_VERSION}: retrain with `fabricwatch train`")
                blob = z.read(FORESTS)
        except (OSError, KeyError, zipfile.BadZipFile, json.JSONDecodeError, AttributeError) as exc:
            raise ModelError(f"{path}: not a fabricwatch model file: {exc}") from None
        if meta.get("version") != MODEL_VERSION:
            raise ModelError(f"{path}: model version {meta.get('version')} but this fabricwatch reads "
                             f"version {MODEL_VERSION}: retrain with `fabricwatch train`")
        if meta.get("features") != list(FEATURE_NAMES):
            raise ModelError(f"{path}: trained on other features; retrain with `fabricwatch train`")
        if hashlib.sha256(blob).hexdigest() != meta.get("sha256"):
            raise ModelError(f"{path}: checksum mismatch, the file is damaged")
        try:
            untrusted = set(sio.get_untrusted_types(data=blob)) - TRUSTED_TYPES
            if untrusted:
                raise ModelError(f"{path}: holds types a link model is not made of: {sorted(untrusted)[:5]}")
            forests = sio.loads(blob, trusted=sorted(TRUSTED_TYPES))
        except ModelError:
            raise
        except Exception as exc:  # skops refuses what it cannot build safely in many ways
            raise ModelError(f"{path}: the forests cannot be read: {exc}") from None
        if not isinstance(forests, dict) or not all(isinstance(f, IsolationForest) for f in forests.values()):
            raise ModelError(f"{path}: the forests are not isolation forests")
        det = cls(interval_s=meta["interval_s"], false_alarm_rate=meta["false_alarm_rate"],
                  false_alarms_per_day=meta.get("false_alarms_per_day"),
                  hysteresis=Hysteresis(**meta["hysteresis"]))
        det.models = {
            c: ClassModel(forests[c], info["threshold"], info["train_rows"], info["holdout_rows"],
                          None if info.get("peer_limits") is None else np.array(info["peer_limits"]),
                          None if info.get("ceilings") is None else np.array(info["ceilings"]),
                          {(str(d), str(p)): np.array(row, dtype=np.float64)
                           for d, p, row in info.get("link_ceilings") or []},
                          [(float(r), float(t), np.array(lim, dtype=np.float64))
                           for r, t, lim in info.get("by_rate") or []])
            for c, info in meta["classes"].items()
        }
        det.training = meta["training"]
        try:
            det.background = BackgroundRates.from_json(meta["background"])
            det.sibling_ratios = SiblingRatios.from_json(meta["sibling_ratios"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{path}: the background rates cannot be read: {exc!r}") from None
        return det
