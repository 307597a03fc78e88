"""Host NIC collector: this host's RDMA ports (IB and RoCE) every interval, as role=host ports."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from fabricwatch.collectors.command import run_command
from fabricwatch.collectors.hostnic.ethtool import parse_ethtool_stats
from fabricwatch.collectors.hostnic.sysfs import read_ports
from fabricwatch.collectors.polling import PolledCollector
from fabricwatch.core.batch import PortSample, SampleBatch

if TYPE_CHECKING:
    from fabricwatch.collectors.hostnic.config import HostNicConfig


class HostNicCollector(PolledCollector):
    kind = "hostnic"

    def __init__(self, cfg: HostNicConfig) -> None:
        self.cfg = cfg
        self.device = cfg.host
        self.address = str(cfg.sysfs_root)
        self.tags = {**cfg.tags, "role": "host"}
        self.unmapped = 0

    async def _ethtool(self, netdev: str) -> dict[str, int]:
        text = await run_command([self.cfg.ethtool_path, "-S", netdev], timeout=self.cfg.ethtool_timeout,
                                 who=self.device)
        values, unmapped = parse_ethtool_stats(text)
        self.unmapped += unmapped
        return values

    async def poll(self) -> SampleBatch:
        ports = await asyncio.to_thread(read_ports, self.cfg.sysfs_root, self.cfg.devices,
                                        hw_counters=self.cfg.hw_counters)
        ts_ns = time.time_ns()
        samples = []
        for p in ports:
            values: dict[str, float] = dict(p.values)
            if self.cfg.ethtool and p.link_layer.lower() == "ethernet":
                for netdev in p.netdevs:
                    values.update(await self._ethtool(netdev))
            self.unmapped += p.unmapped
            samples.append(PortSample(self.device, p.name, ts_ns, values, self.tags, None, p.bits or None))
        return SampleBatch(self.kind, self.device, samples, self.unmapped)
