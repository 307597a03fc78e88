"""`[detector]`: apart from the service, so that loading a config (a collector worker does) does
not import the models and scikit-learn."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from fabricwatch.core.config_types import Duration, StrictModel


class DetectorConfig(StrictModel):
    enabled: bool = True
    model: Path | None = None  # from `fabricwatch train`; without it, rules only
    interval: Duration = 30.0
    raise_k: int = Field(2, ge=1, le=16)
    raise_n: int = Field(3, ge=1, le=16)
    clear_m: int = Field(3, ge=1)
    pause_storm_per_s: float = Field(10_000.0, gt=0)
    # the budget in pages for the whole fabric; the model's thresholds are re-derived from its
    # held-out history (without it, the model keeps the thresholds it was trained with)
    false_alarms_per_day: float | None = Field(None, gt=0)
    link_metrics: Literal["all", "flagged"] = "all"  # per-link score series on /metrics
