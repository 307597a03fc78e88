"""Host NIC collector: this host's RDMA ports (IB and RoCE) every interval, as role=host ports."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from fabricwatch.collectors.command import run_command
from fabricwatch.collectors.hostnic.ethtool import parse_ethtool_stats
from fabricwatch.collectors.hostnic.module import parse_module_info
from fabricwatch.collectors.hostnic.sysfs import read_ports
from fabricwatch.collectors.polling import PolledCollector
from fabricwatch.collectors.transitions import with_transitions
from fabricwatch.core.batch import ModuleInfo, PortSample, SampleBatch
from fabricwatch.core.errors import TargetError

if TYPE_CHECKING:
    from fabricwatch.collectors.hostnic.config import HostNicConfig


class HostNicCollector(PolledCollector):
    kind = "hostnic"
    cfg: HostNicConfig

    def __init__(self, cfg: HostNicConfig) -> None:
        super().__init__(cfg, cfg.host, str(cfg.sysfs_root), {**cfg.tags, "role": "host"})
        self._optics_due = 0.0  # monotonic time of the next `ethtool -m` round

    async def _ethtool(self, netdev: str, bits: dict[str, int]) -> dict[str, int]:
        text = await run_command([self.cfg.ethtool_path, "-S", netdev], timeout=self.cfg.ethtool_timeout,
                                 who=self.device)
        values, unmapped, widths = parse_ethtool_stats(text)
        self.unmapped += unmapped
        bits.update(widths)
        return values

    async def _module(self, netdev: str, port: str, ts_ns: int, values: dict[str, float],
                      batch: SampleBatch) -> None:
        """DOM into the port's values, inventory into the batch; a module that cannot be read (a DAC
        without EEPROM, an empty cage) is a problem of this port, not of the poll."""
        try:
            text = await run_command([self.cfg.ethtool_path, "-m", netdev], timeout=self.cfg.ethtool_timeout,
                                     who=self.device)
        except TargetError as exc:
            batch.problems.append((exc.kind, str(exc)))
            return
        reading = parse_module_info(text)
        values.update(reading.values)
        if reading.inventory:
            batch.modules.append(ModuleInfo(self.device, port, ts_ns, reading.inventory))

    async def poll(self) -> SampleBatch:
        ports = await asyncio.to_thread(read_ports, self.cfg.sysfs_root, self.cfg.devices,
                                        hw_counters=self.cfg.hw_counters)
        ts_ns = time.time_ns()
        optics = self.cfg.optics and time.monotonic() >= self._optics_due
        if optics:
            self._optics_due = time.monotonic() + self.cfg.optics_interval
        batch = SampleBatch(self.kind, self.device, [], 0)
        for p in ports:
            values: dict[str, float] = dict(p.values)
            bits = dict(p.bits)
            if self.cfg.ethtool and p.link_layer.lower() == "ethernet":
                for netdev in p.netdevs:
                    values.update(await self._ethtool(netdev, bits))
            if optics:
                for netdev in p.netdevs[:1]:  # the module of the port, read through its first netdev
                    await self._module(netdev, p.name, ts_ns, values, batch)
            self.unmapped += p.unmapped
            with_transitions(values)
            batch.samples.append(PortSample(self.device, p.name, ts_ns, values, self.tags, None, bits or None))
        batch.unmapped = self.unmapped
        return batch
