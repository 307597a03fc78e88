"""Config of the host NIC collector: this host's IB/RoCE ports from sysfs, optionally ethtool."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, model_validator

from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import Duration, PositiveDuration, StrictModel, Tags, check_order

if TYPE_CHECKING:
    from fabricwatch.collectors.hostnic.collector import HostNicCollector


class HostNicConfig(StrictModel):
    name: str = "hostnic"
    host: str = Field(default_factory=socket.gethostname)  # the device name of this host's ports
    sysfs_root: Path = Path("/")  # tests and containers point this at another tree
    devices: list[str] = Field(default_factory=list)  # globs on RDMA device names; empty = all
    interval: PositiveDuration = 10.0
    hw_counters: bool = True  # mlx5 RoCE congestion and retry counters
    ethtool: bool = False  # per-priority pause from `ethtool -S <netdev>`
    ethtool_path: str = "ethtool"
    ethtool_timeout: Duration = 5.0
    # transceiver DOM and inventory from `ethtool -m <netdev>`, at their own, slower interval
    # (reading a module's EEPROM takes the driver's I2C bus: modules expect minutes, not seconds)
    optics: bool = False
    optics_interval: Duration = 300.0
    backoff: Backoff = Backoff()
    tags: Tags = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> HostNicConfig:
        check_order(self, "interval", "optics_interval")
        return self

    def build(self) -> list[HostNicCollector]:
        # imported when built: a worker loads the code of the kinds it runs only
        from fabricwatch.collectors.hostnic.collector import HostNicCollector

        return [HostNicCollector(self)]
