"""Principle 2 for pauses: a storm is judged where it starts. A switch that pauses every sender of one
role alike (its buffers fill because something past it is congested) shows its congestion, not a storm on
one port, even where a paused host happens to be idle by choice; a port that pauses far more than the
ports of its switch in its role at the same moment is a storm of its own, whichever way it pauses."""

from __future__ import annotations

import numpy as np

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder, LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
LEAF = "leaf-r0-1"


def _storms(pausing: dict[str, float], idle: set[str], direction: str = "tx") -> set[str]:
    """The ports of LEAF with a pause-storm finding when its host ports send (tx) or receive (rx) the
    given PFC frames/s from interval 4 on, the ports in `idle` carrying almost nothing towards it."""
    run = simulate(SPEC, 8, interval_s=INTERVAL, seed=3)
    det = LinkDetector(interval_s=INTERVAL)  # rules need no model
    fb = FeatureBuilder(INTERVAL)
    found: set[str] = set()
    frozen = "in_octets" if direction == "tx" else "out_octets"
    for i, (start, links) in enumerate(run.frames):
        out = []
        for li in links:
            rates = dict(li.rates)
            if i >= 4 and li.device == LEAF and li.tags.get("role") == "leaf_down":
                rates[f"pfc_{direction}_p3"] = pausing.get(li.port, rates.get(f"pfc_{direction}_p3", 0.0))
                if li.port in idle:
                    rates[frozen] = 1e6
            out.append(LinkInterval(li.start_ns, li.device, li.port, li.tags, rates))
        found |= {f.port for f in det.detect(fb.build(start, out))
                  if f.device == LEAF and "pause_storm" in f.conditions}
    return found


def _host_ports() -> list[str]:
    run = simulate(SPEC, 1, interval_s=INTERVAL, seed=3)
    return [li.port for li in run.frames[0][1] if li.device == LEAF and li.tags.get("role") == "leaf_down"]


def test_a_switch_pausing_all_its_hosts_alike_is_not_a_storm_on_the_idle_ones() -> None:
    ports = _host_ports()
    rng = np.random.default_rng(1)
    # every host port paused at 4-15k/s; two hosts idle by choice (an evaluation) cross the storm bar
    pausing = {p: float(rng.uniform(4_000, 9_000)) for p in ports}
    pausing[ports[0]] = pausing[ports[1]] = 12_000.0
    assert _storms(pausing, idle={ports[0], ports[1]}) == set()


def test_one_port_pausing_far_beyond_its_siblings_is_a_storm_either_way() -> None:
    ports = _host_ports()
    # the switch's other ports pause a little (ordinary congestion); one sends (or receives) a storm
    # and its paused direction stops
    pausing = {p: 300.0 for p in ports}
    pausing[ports[2]] = 30_000.0
    assert _storms(pausing, idle={ports[2]}) == {ports[2]}
    assert _storms(pausing, idle={ports[2]}, direction="rx") == {ports[2]}


def test_a_switch_pausing_every_host_while_none_of_them_moves_is_a_storm_on_each() -> None:
    """The other side of the same principle: pauses shared by the ports of a switch are congestion passed
    back only while the direction they hold back still moves at the median port; a leaf pausing all its
    hosts at 30k/s while none of them sends anything has stopped them (a stuck switch): a storm on each."""
    ports = _host_ports()
    pausing = {p: 30_000.0 for p in ports}
    assert _storms(pausing, idle=set(ports)) == set(ports)
