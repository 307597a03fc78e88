"""What a rule or a watch raises on a link: a severity, a reason and a stable condition name.

The shared vocabulary of the estimators in models/ (the trends) and the rules in detection/."""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("ok", "warning", "critical")


@dataclass(frozen=True)
class RuleHit:
    severity: str
    reason: str
    # a stable name for alerting: link_down, flap, saturated, buffer_overrun, pause_storm, speed_degraded
    condition: str = ""


def worst(severities: list[str]) -> str:
    return max(severities, key=SEVERITIES.index, default="ok")
