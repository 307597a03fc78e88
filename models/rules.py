"""Deterministic rules for conditions that need no model: each gives a severity and a reason."""

from __future__ import annotations

from dataclasses import dataclass

from fabricwatch.models.features import LinkInterval

SEVERITIES = ("ok", "warning", "critical")


@dataclass(frozen=True)
class RuleConfig:
    pause_storm_per_s: float = 10_000.0  # PFC frames/s sent on one priority: a NIC or port stuck pausing
    flaps_critical: float = 2.0  # link transitions in one interval


@dataclass(frozen=True)
class RuleHit:
    severity: str
    reason: str
    condition: str = ""  # a stable name for alerting: link_down, flap, saturated, buffer_overrun, pause_storm


def evaluate(li: LinkInterval, interval_s: float, cfg: RuleConfig = RuleConfig()) -> list[RuleHit]:
    r = li.rates
    hits: list[RuleHit] = []
    if r.get("link_downed", 0.0) > 0:
        hits.append(RuleHit("critical", "link_downed rose: the link went down", "link_down"))
    flaps = r.get("link_transitions", 0.0) * interval_s
    if flaps >= cfg.flaps_critical:
        hits.append(RuleHit("critical", f"link flapped: {flaps:.0f} transitions in {interval_s:g}s", "flap"))
    elif flaps > 0:
        hits.append(RuleHit("warning", f"link changed state {flaps:.0f} time(s) in {interval_s:g}s", "flap"))
    for name in sorted(li.saturated):
        hits.append(RuleHit("warning", f"{name} is saturated at its ceiling (value is at least the max)", "saturated"))
    if r.get("excessive_buffer_overrun_errors", 0.0) > 0:
        hits.append(RuleHit("warning", "excessive buffer overrun errors", "buffer_overrun"))
    for p in range(8):
        rate = r.get(f"pfc_tx_p{p}", 0.0)
        if rate >= cfg.pause_storm_per_s:
            hits.append(RuleHit("critical", f"PFC pause storm: {rate:,.0f} pause frames/s sent on priority {p}",
                                "pause_storm"))
    return hits


def worst(severities: list[str]) -> str:
    return max(severities, key=SEVERITIES.index, default="ok")
