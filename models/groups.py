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

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fabricwatch.models.features import OWN_NAMES, FeatureFrame

# the congestion signals judged this way; pauses a port *sends* are its switch's congestion elsewhere,
# and pauses received on a switch-to-switch link are the far switch's: only a host's NIC pausing its
# leaf port (pfc_rx on a host link) and credit waits are the link's own
GROUPED = ("xmit_wait", "pfc_rx", "pause")
G_INDEX = [OWN_NAMES.index(n) for n in GROUPED]
UTIL = OWN_NAMES.index("util_pct")
HOST_ROLES = frozenset({"leaf_down", "host"})
USUAL_QUANTILE = 0.95
MIN_GROUP = 4  # links in a group before its median means anything
MIN_UTIL = 1.0  # % of line rate: per-load values below this are not compared


@dataclass
class GroupView:
    """Each link's value per unit of load over its group's median at this moment (NaN: no group, or
    a signal the link's role cannot be blamed for), and the group it was judged against."""

    ratio: np.ndarray  # (n, len(GROUPED))
    median: np.ndarray  # (n, len(GROUPED)) the group's median value (not per load)
    group: list[str]
    size: np.ndarray  # (n,)


# links whose traffic the fabric spreads over the group (ECMP, adaptive routing): a leaf's uplinks, a
# spine's ports share one situation; a leaf's host ports do not (each host runs its own job)
SPREAD_ROLES = frozenset({"leaf_up", "spine", "spine_down", "spine_up", "core"})


def _group_keys(frame: FeatureFrame) -> list[str]:
    """A link's situation: the ports of its switch in its role where the fabric spreads traffic over them;
    for a host link, the links reaching the same host (its NICs on every rail run one job); else none."""
    out = []
    for li in frame.links:
        role = li.tags.get("role", "")
        if role in SPREAD_ROLES:
            out.append(f"{li.device} {role} ports")
        elif role in HOST_ROLES and li.tags.get("peer_device"):
            out.append(f"links to {li.tags['peer_device']}")
        else:
            out.append("")
    return out


def group_view(frame: FeatureFrame) -> GroupView:
    """Per link and grouped signal, (value / util) over the group's median of (value / util)."""
    n = len(frame.links)
    keys = _group_keys(frame)
    own = np.nan_to_num(frame.own_raw)
    util = np.maximum(own[:, UTIL], MIN_UTIL)
    per_load = own[:, G_INDEX] / util[:, None]
    ratio = np.full((n, len(GROUPED)), np.nan)
    median = np.zeros((n, len(GROUPED)))
    size = np.zeros(n, dtype=np.int64)
    members: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        if k:
            members.setdefault(k, []).append(i)
    for rows_l in members.values():
        if len(rows_l) < MIN_GROUP:
            continue
        rows = np.array(rows_l)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            med_pl = np.median(per_load[rows], axis=0)
            med = np.median(own[rows][:, G_INDEX], axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio[rows] = np.where(med_pl > 0, per_load[rows] / np.where(med_pl > 0, med_pl, 1.0), np.nan)
        median[rows] = med
        size[rows] = len(rows)
    host = np.fromiter((li.tags.get("role") in HOST_ROLES for li in frame.links), dtype=bool, count=n)
    for j, name in enumerate(GROUPED):
        if name in ("pfc_rx", "pause"):
            ratio[~host, j] = np.nan
    return GroupView(ratio, median, keys, size)


@dataclass
class SiblingRatios:
    """Fitted attribute `usual_`: per link that usually stands out of its group, how far it went (log10,
    the USUAL_QUANTILE of healthy history)."""

    usual_: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)

    def fit(self, frames: Iterable[FeatureFrame]) -> SiblingRatios:
        logs: dict[tuple[str, str], list[np.ndarray]] = {}
        for frame in frames:
            view = group_view(frame)
            with np.errstate(divide="ignore", invalid="ignore"):
                lr = np.log10(view.ratio)
            lr[~np.isfinite(lr)] = np.nan
            for li, row in zip(frame.links, lr, strict=True):
                if not np.isnan(row).all():
                    logs.setdefault((li.device, li.port), []).append(row)
        self.usual_ = {}
        for key, rows in logs.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                a = np.array(rows)
                med = np.nan_to_num(np.nanmedian(a, axis=0))
                high = np.nan_to_num(np.nanquantile(a, USUAL_QUANTILE, axis=0))
            # a link that usually stands out of its group (a slow HCA, a polarised uplink) is judged from
            # how far it went in healthy history; one that usually sits with it, from its group alone
            if med.max() >= 0.1:
                self.usual_[key] = np.where(med >= 0.1, np.maximum(high, 0.0), 0.0)
        return self

    def usual(self, keys: Sequence[tuple[str, str]]) -> np.ndarray:
        out = np.zeros((len(keys), len(GROUPED)))
        if self.usual_:
            for i, key in enumerate(keys):
                u = self.usual_.get(key)
                if u is not None:
                    out[i] = u
        return out

    def to_json(self) -> dict[str, Any]:
        return {"names": list(GROUPED),
                "links": [[d, p, [round(float(v), 3) for v in u]] for (d, p), u in sorted(self.usual_.items())]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SiblingRatios:
        names = list(data["names"])
        out = cls()
        for d, p, values in data["links"]:
            row = np.zeros(len(GROUPED))
            for name, v in zip(names, values, strict=True):
                if name in GROUPED:
                    row[GROUPED.index(name)] = float(v)
            out.usual_[(str(d), str(p))] = row
        return out
