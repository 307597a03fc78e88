"""ibdiag collector: topology from ibnetdiscover, per-switch counters from perfquery, as subprocesses."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from fabricwatch.collectors.command import run_command
from fabricwatch.collectors.ibdiag.parsers import IbPort, Topology, parse_perfquery, parse_topology
from fabricwatch.collectors.polling import PolledCollector
from fabricwatch.collectors.transitions import with_transitions
from fabricwatch.core.batch import PortSample, SampleBatch
from fabricwatch.core.errors import TargetError

if TYPE_CHECKING:
    from fabricwatch.collectors.ibdiag.config import IbDiagConfig

log = logging.getLogger("fabricwatch.ibdiag")


class IbDiagCollector(PolledCollector):
    kind = "ibdiag"
    cfg: IbDiagConfig

    def __init__(self, cfg: IbDiagConfig) -> None:
        super().__init__(cfg, cfg.fabric, cfg.ibnetdiscover[0], dict(cfg.tags))
        self.topology = Topology()
        self._ports_by_guid: dict[str, dict[str, IbPort]] = {}
        self._topology_at = float("-inf")
        self._sem = asyncio.Semaphore(cfg.max_concurrency)

    async def run(self, argv: list[str]) -> str:
        async with self._sem:
            return await run_command(argv, timeout=self.cfg.timeout, who=self.device)

    async def refresh_topology(self) -> list[str]:
        text = await self.run(self.cfg.ibnetdiscover)
        topo = parse_topology(text)
        if not topo.ports:
            raise TargetError("parse", f"{self.device}: ibnetdiscover gave no ports ({len(text)} bytes)")
        self.topology = topo
        # per switch, its ports: each perfquery answer looks its peers up here
        by_guid: dict[str, dict[str, IbPort]] = {}
        for p in topo.ports:
            by_guid.setdefault(p.guid, {})[p.port] = p
        self._ports_by_guid = by_guid
        log.info("ib topology read", extra={"target": self.key, "ports": len(topo.ports),
                                             "switches": len(topo.switches())})
        return topo.problems

    async def _query(self, guid: str, lid: int, name: str) -> tuple[list[PortSample], list[tuple[str, str]]]:
        argv = [a.replace("{lid}", str(lid)).replace("{guid}", guid) for a in self.cfg.perfquery]
        try:
            text = await self.run(argv)
        except TargetError as exc:
            return [], [(exc.kind, f"{name} (lid {lid}): {exc}")]
        res = parse_perfquery(text)
        now = time.time_ns()
        peers = self._ports_by_guid.get(guid, {})
        samples = []
        for pp in res.ports:
            self.unmapped += len(pp.unmapped)
            peer = peers.get(pp.port)
            tags = {**self.tags, **({"peer_device": peer.peer_name, "peer_port": peer.peer_port}
                                    if peer and peer.peer_name else {})}
            values: dict[str, float] = dict(pp.values)
            with_transitions(values)
            samples.append(PortSample(name, pp.port, now, values, tags, None, pp.bits or None))
        return samples, [("parse", f"{name} (lid {lid}): perfquery {p}") for p in res.problems]

    async def poll(self) -> SampleBatch:
        loop = asyncio.get_running_loop()
        problems: list[tuple[str, str]] = []
        if loop.time() - self._topology_at >= self.cfg.topology_interval:
            try:
                found = await self.refresh_topology()
                problems += [("parse", f"{self.device}: ibnetdiscover {p}") for p in found[:20]]
                self._topology_at = loop.time()
            except TargetError as exc:
                if not self.topology.ports:
                    raise  # nothing to query without a topology
                problems.append((exc.kind, str(exc)))
        nodes = {p.guid: (p.lid, p.name) for p in self.topology.ports
                 if p.node_type == "SW" or (self.cfg.include_hosts and p.node_type == "CA")}
        results = await asyncio.gather(*(self._query(g, lid, name) for g, (lid, name) in nodes.items()))
        samples = [s for ss, _ in results for s in ss]
        for _, ps in results:
            problems += ps
        if nodes and not samples:
            raise TargetError(problems[0][0] if problems else "command",
                              f"{self.device}: no switch answered perfquery"
                              + (f"; first: {problems[0][1]}" if problems else ""))
        return SampleBatch(self.kind, self.device, samples, self.unmapped, [], problems)
