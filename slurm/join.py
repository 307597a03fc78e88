"""Jobs <-> links: which running jobs a link carries traffic of, from the topology's roles.

A host link (`leaf_down`, the far end is the host; or the host's own `host` port) carries the jobs
on that host. A leaf uplink (`leaf_up`) or the spine port facing it (`spine`, the far end is the
leaf) carries the jobs with hosts both under that leaf and elsewhere: traffic between them leaves
the leaf. A job wholly under one leaf never crosses its uplinks. A device finding (port "*": a switch
stuck as a whole, ECN off on it, its ASIC counting errors) hurts every job whose traffic crosses the
switch: the jobs of each of its links."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from fabricwatch.core.digits import parse_uint
from fabricwatch.core.topology import Topology
from fabricwatch.slurm.records import Job


def leaf_hosts(records: Iterable[Mapping[str, str]]) -> dict[str, frozenset[str]]:
    """Each leaf's hosts: the far ends of its `leaf_down` ports."""
    out: dict[str, set[str]] = {}
    for r in records:
        if r.get("role") == "leaf_down" and r.get("peer_device"):
            out.setdefault(r["device"], set()).add(r["peer_device"])
    return {leaf: frozenset(hosts) for leaf, hosts in out.items()}


def suspect_host(topology: Topology, device: str, port: str) -> str | None:
    """The host at the end of a host link, or None for a link between switches. The host's own end
    (a NIC the topology lists only as the far end of a `leaf_down` port) is a host link too."""
    tags = topology.tags(device, port)
    role = tags.get("role")
    if role == "leaf_down":
        return tags.get("peer_device") or None
    if role == "host":
        return device
    if role is None and tags.get("peer_device"):
        far = topology.tags(tags["peer_device"], tags.get("peer_port", ""))
        if far.get("role") == "leaf_down" and far.get("peer_device") == device:
            return device
    return None


class JobIndex:
    """The running jobs by fabric host, and the leaves' hosts, for one topology and one read of Slurm."""

    def __init__(self, jobs: Iterable[Job], topology: Topology, host_of: Callable[[str], str], *,
                 under: dict[str, frozenset[str]] | None = None) -> None:
        self.topology = topology
        records = topology.records()
        self.under = leaf_hosts(records) if under is None else under  # `under`: the same topology's
        self.ports_of: dict[str, list[str]] = {}
        for r in records:
            if r.get("device") and r.get("port"):
                self.ports_of.setdefault(r["device"], []).append(r["port"])
        self.hosts_of_job: dict[str, frozenset[str]] = {}
        self.jobs_on: dict[str, list[Job]] = {}
        self.jobs: dict[str, Job] = {}
        for job in jobs:
            hosts = frozenset(host_of(n) for n in job.nodes)
            self.jobs[job.id] = job
            self.hosts_of_job[job.id] = hosts
            for h in hosts:
                self.jobs_on.setdefault(h, []).append(job)

    def on_link(self, device: str, port: str) -> list[Job]:
        """The jobs whose traffic this link may carry, by job id."""
        if port == "*":
            crossing = {j.id: j for p in self.ports_of.get(device, ()) for j in self.on_link(device, p)}
            return sorted(crossing.values(), key=_order)
        host = suspect_host(self.topology, device, port)
        if host is not None:
            return sorted(self.jobs_on.get(host, []), key=_order)
        tags = self.topology.tags(device, port)
        role = tags.get("role")
        leaf = device if role == "leaf_up" else tags.get("peer_device", "") if role == "spine" else ""
        under = self.under.get(leaf)
        if not under:
            return []
        return sorted((self.jobs[jid] for jid, hosts in self.hosts_of_job.items()
                       if hosts & under and hosts - under), key=_order)


def _order(job: Job) -> tuple[int, str]:
    return (parse_uint(job.id.split("_")[0]) or 0, job.id)
