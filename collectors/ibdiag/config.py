"""Config of the ibdiag collector: an OpenSM-managed IB fabric read with infiniband-diags."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, model_validator

from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import PositiveDuration, StrictModel, Tags

if TYPE_CHECKING:
    from fabricwatch.collectors.ibdiag.collector import IbDiagCollector


class IbDiagConfig(StrictModel):
    name: str = "ibdiag"
    fabric: str = "ib"  # the device name of this target (one per fabric / HCA port used to query)
    # argv of each tool; {lid} and {guid} are filled per switch
    ibnetdiscover: list[str] = Field(default_factory=lambda: ["ibnetdiscover", "-p"])
    perfquery: list[str] = Field(default_factory=lambda: ["perfquery", "-x", "-l", "{lid}"])
    interval: PositiveDuration = 30.0
    topology_interval: PositiveDuration = 600.0
    timeout: PositiveDuration = 20.0  # per command
    max_concurrency: int = Field(8, ge=1, le=256)  # perfquery runs at once
    include_hosts: bool = False  # query CA (host) ports too, not only switches
    backoff: Backoff = Backoff(initial=5.0, max=300.0)
    tags: Tags = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> IbDiagConfig:
        if not self.ibnetdiscover or not self.perfquery:
            raise ValueError("ibnetdiscover and perfquery need a command")
        if not any("{lid}" in a or "{guid}" in a for a in self.perfquery):
            raise ValueError("perfquery needs '{lid}' or '{guid}' in its arguments")
        return self

    def build(self) -> list[IbDiagCollector]:
        # imported when built: a worker loads the code of the kinds it runs only
        from fabricwatch.collectors.ibdiag.collector import IbDiagCollector

        return [IbDiagCollector(self)]
