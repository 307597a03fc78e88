"""Blame: for a slow or unstable NCCL run, rank the fabric links its traffic crossed.

The run's hosts -> their leaf ports (peer_device in the topology) -> those leaves' uplinks ->
the spine ports at the other end. For the run's time window, each link's findings
(`link_anomaly`) and rates (`port_rates`) are read from InfluxDB (InfluxQL, so 1.x, 2.x via
DBRP and 3.x answer) and the links are ranked: links the detector flagged first, then by how far
their errors, discards and pauses stand above the other candidates'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabricwatch.core.influxql import InfluxQL
from fabricwatch.core.topology import Topology, job_links

RATE_FIELDS = (
    "in_errors", "out_errors", "fcs_errors", "symbol_errors", "in_discards", "out_discards",
    "xmit_wait", "ecn_marked", "link_transitions", *(f"pfc_{d}_p{p}" for d in ("rx", "tx") for p in range(8)),
)
# how much one unit over the candidates' median weighs, per kind of evidence
WEIGHTS = {"errors": 100.0, "discards": 10.0, "flaps": 50.0, "pause": 1.0, "xmit_wait": 0.5}


@dataclass
class Candidate:
    device: str
    port: str
    role: str
    why_in_path: str
    flagged_intervals: int = 0
    max_score: float = 0.0
    evidence: dict[str, float] = field(default_factory=dict)
    badness: float = 0.0
    explanation: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "device": self.device, "port": self.port, "role": self.role, "path": self.why_in_path,
            "flagged_intervals": self.flagged_intervals, "max_score": round(self.max_score, 3),
            "badness": round(self.badness, 3), "evidence": {k: round(v, 3) for k, v in self.evidence.items()},
            "explanation": self.explanation,
        }


def path_links(topology: Topology, hosts: list[str]) -> list[Candidate]:
    """The links a job on these hosts uses (host-facing leaf ports, their leaves' uplinks, the spine
    ports those reach) as candidates."""
    return [Candidate(d, p, role, why) for d, p, role, why in job_links(topology.records(), hosts)]


def _by_link(series: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, float]]:
    out = {}
    for s in series:
        tags = s.get("tags", {})
        cols = s["columns"]
        row = s["values"][0]
        out[(tags.get("device", ""), tags.get("port", ""))] = {
            c: float(v) for c, v in zip(cols[1:], row[1:], strict=True) if isinstance(v, int | float)
        }
    return out


def blame(db: InfluxQL, topology: Topology, hosts: list[str], start_ns: int, end_ns: int) -> list[Candidate]:
    cands = path_links(topology, hosts)
    if not cands:
        return []
    window = f"time >= {start_ns} AND time <= {end_ns}"
    fields = ", ".join(f'mean("{f}") AS "{f}"' for f in RATE_FIELDS)
    rates = _by_link(db.query(f'SELECT {fields} FROM "port_rates" WHERE {window} GROUP BY "device", "port"'))
    flagged = _by_link(db.query(
        f'SELECT count("score") AS "n", max("score") AS "max" FROM "link_anomaly" '
        f'WHERE {window} AND "flagged" = true GROUP BY "device", "port"'))
    kinds = {
        "errors": ("in_errors", "out_errors", "fcs_errors", "symbol_errors"),
        "discards": ("in_discards", "out_discards"),
        "pause": tuple(f for f in RATE_FIELDS if f.startswith("pfc_")),
        "xmit_wait": ("xmit_wait",),
        "flaps": ("link_transitions",),
    }
    for c in cands:
        r = rates.get((c.device, c.port), {})
        # evidence a link's device does not report is absent, never zero (vendors differ)
        c.evidence = {kind: sum(r[f] for f in fs if f in r) for kind, fs in kinds.items()
                      if any(f in r for f in fs)}
        f = flagged.get((c.device, c.port), {})
        c.flagged_intervals = int(f.get("n", 0))
        c.max_score = f.get("max", 0.0)
    for kind, weight in WEIGHTS.items():
        values = sorted(c.evidence[kind] for c in cands if kind in c.evidence)
        if not values:
            continue
        median = values[len(values) // 2]
        for c in cands:
            if kind not in c.evidence:
                continue
            excess = max(0.0, c.evidence[kind] - median)
            # relative to the median for pauses and waits (busy is normal), absolute for errors
            relative = excess / (median + 1.0) if kind in ("pause", "xmit_wait") else excess
            c.badness += weight * relative
    for c in cands:
        parts = []
        if c.flagged_intervals:
            parts.append(f"flagged by the detector in {c.flagged_intervals} interval(s), max score {c.max_score:.2f}")
        for kind in ("errors", "discards", "flaps", "pause", "xmit_wait"):
            if c.evidence.get(kind, 0.0) > 0:
                parts.append(f"{kind} {c.evidence[kind]:,.3g}/s")
        c.explanation = "; ".join(parts) or "nothing unusual"
    cands.sort(key=lambda c: (-c.flagged_intervals, -c.badness, -c.max_score))
    return cands
