"""LLDP discovery on its own: the keeper reads neighbours from the sections it is given, hands the
topology to whatever tags samples, and writes a changed neighbour as a link event (fakes, no daemon)."""

from __future__ import annotations

from collections.abc import Sequence

from fabricwatch.core.batch import SampleBatch
from fabricwatch.core.neighbours import Neighbour
from fabricwatch.core.problems import Problem
from fabricwatch.core.protocols import Collector
from fabricwatch.core.topology import Topology
from fabricwatch.daemon.discovery import TopologyKeeper
from fabricwatch.pipeline.pipeline import Processed


class Reader:
    """A target that reads its LLDP neighbours (core.protocols.ReadsNeighbours)."""

    kind = "snmp"

    def __init__(self, device: str, found: list[Neighbour]) -> None:
        self.device, self.found = device, found

    async def neighbours(self) -> tuple[list[Neighbour], list[Problem]]:
        return self.found, []


class Section:
    def __init__(self, readers: list[Reader]) -> None:
        self.readers = readers

    def build(self) -> Sequence[Collector]:
        return self.readers  # type: ignore[return-value]  # readers only: discovery asks nothing else


class Tagging:
    def __init__(self) -> None:
        self.topologies: list[Topology] = []

    def set_topology(self, topology: Topology) -> None:
        self.topologies.append(topology)

    def process(self, batch: SampleBatch, *, target: str = "") -> Processed:
        return Processed(lines=[f"link_events {e.device} {e.port} {e.kind}: {e.detail}" for e in batch.events])


async def test_a_recabled_port_retags_and_is_written_as_a_neighbour_change() -> None:
    leaf = Reader("leaf-r0-0", [Neighbour("swp1", "spine-0", "swp1")])
    tagging, written = Tagging(), []

    async def write(lines: list[str]) -> None:
        written.extend(lines)

    keeper = TopologyKeeper(lambda: [Section([leaf])], lambda: 600.0, tagging, write)
    await keeper.refresh()
    assert tagging.topologies[-1].tags("leaf-r0-0", "swp1")["peer_device"] == "spine-0"
    assert written == [] and keeper.refreshes == 1  # the first reading is the baseline, not a change
    leaf.found = [Neighbour("swp1", "spine-1", "swp4")]
    await keeper.refresh()
    assert tagging.topologies[-1].tags("leaf-r0-0", "swp1")["peer_device"] == "spine-1"
    assert written == ["link_events leaf-r0-0 swp1 neighbour_change: spine-0 swp1 -> spine-1 swp4",
                       "link_events spine-0 swp1 neighbour_lost: was leaf-r0-0 swp1"]  # its far end, seen from here
    assert keeper.changes == 2


async def test_no_section_that_reads_lldp_leaves_the_topology_alone() -> None:
    tagging = Tagging()

    async def write(lines: list[str]) -> None:
        raise AssertionError("nothing to write")

    keeper = TopologyKeeper(lambda: [], lambda: 600.0, tagging, write)
    await keeper.refresh()
    assert tagging.topologies == [] and keeper.refreshes == 0
