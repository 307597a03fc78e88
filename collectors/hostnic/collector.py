"""Host NIC collector: this host's RDMA ports (IB and RoCE) every interval, as role=host ports."""

from __future__ import annotations

import asyncio
import time

from collectors.hostnic.config import HostNicConfig
from collectors.hostnic.ethtool import parse_ethtool_stats
from collectors.hostnic.sysfs import read_ports
from collectors.polling import PolledCollector
from daemon.batch import PortSample, SampleBatch
from daemon.errors import TargetError


class HostNicCollector(PolledCollector):
    kind = "hostnic"

    def __init__(self, cfg: HostNicConfig) -> None:
        self.cfg = cfg
        self.device = cfg.host
        self.address = str(cfg.sysfs_root)
        self.tags = {**cfg.tags, "role": "host"}
        self.unmapped = 0

    async def _ethtool(self, netdev: str) -> dict[str, int]:
        try:
            proc = await asyncio.create_subprocess_exec(
                self.cfg.ethtool_path, "-S", netdev,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        except OSError as exc:
            raise TargetError("command", f"{self.device}: cannot run {self.cfg.ethtool_path}: {exc}") from None
        try:
            out, err = await asyncio.wait_for(proc.communicate(), self.cfg.ethtool_timeout)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise TargetError("timeout", f"{self.device}: ethtool -S {netdev} took over "
                                         f"{self.cfg.ethtool_timeout:g}s") from None
        if proc.returncode != 0:
            raise TargetError("command", f"{self.device}: ethtool -S {netdev}: {err.decode(errors='replace')[:200]}")
        values, unmapped = parse_ethtool_stats(out.decode(errors="replace"))
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
