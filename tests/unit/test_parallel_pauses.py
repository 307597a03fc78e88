"""Principle 2 for pauses received between switches: they are judged against the links that carry the
same traffic into the switch pausing them. The tier above spreads the traffic towards a switch over the
parallel links down to it, so its congestion pauses them alike: that is its load. A port paused far more than
the parallel links towards the same far device is paused by that one cable's far port (a stuck queue, a storm
with no watchdog), and the generic layer finds it with no pause-storm rule, naming the group it was judged
against. Up the tiers there is no such group: a congested switch above pauses the leaves whose traffic heads
for its hot egress, by where their traffic goes, and a few leaves paused more than the rest is that load."""

from __future__ import annotations

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder, LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
LEAF = "leaf-r0-1"


def _outliers(paused: set[str], per_s: float = 30_000.0, towards: str = LEAF) -> dict[tuple[str, str], str]:
    """(device, port) -> reason of each `outlier_in_group` finding when the ports of the switches `paused`
    towards `towards` receive `per_s` PFC frames/s from interval 4 on (their transmit towards it slowed), the
    pause-storm rule switched off."""
    run = simulate(SPEC, 9, interval_s=INTERVAL, seed=3)
    det = LinkDetector(interval_s=INTERVAL)  # the group rule needs no model
    det.switched_off = frozenset({"pause_storm"})
    fb = FeatureBuilder(INTERVAL)
    found: dict[tuple[str, str], str] = {}
    for i, (start, links) in enumerate(run.frames):
        out = []
        for li in links:
            rates = dict(li.rates)
            if i >= 4 and li.device in paused and li.tags.get("peer_device") == towards:
                rates["pfc_rx_p3"] = per_s
                rates["out_octets"] = rates.get("out_octets", 0.0) * 0.3
            out.append(LinkInterval(li.start_ns, li.device, li.port, li.tags, rates))
        for f in det.detect(fb.build(start, out)):
            for line in f.per_link():
                if "outlier_in_group" in f.conditions:
                    found[(f.device, line["port"])] = f.explanation
    return found


def test_one_spine_port_paused_far_beyond_its_parallel_links_is_found_without_the_storm_rule() -> None:
    found = _outliers({"spine-0"})
    spine_ports = [k for k in found if k[0] == "spine-0"]
    assert len(spine_ports) == 1, found
    assert f"towards {LEAF}" in found[spine_ports[0]]


def test_a_leaf_pausing_every_spine_alike_is_its_load_not_a_cable() -> None:
    found = _outliers({"spine-0", "spine-1", "spine-2", "spine-3"})
    assert not [k for k in found if k[0].startswith("spine")], found


def test_a_spine_pausing_the_few_leaves_that_feed_its_hot_egress_is_load() -> None:
    found = _outliers({"leaf-r0-0", "leaf-r0-1"}, per_s=150.0, towards="spine-0")
    assert not [k for k in found if k[0].startswith("leaf")], found


def _host_side(li: LinkInterval, pfc_rx: float) -> LinkInterval:
    """The NIC's end of a leaf's host port: what the leaf sends it, it receives."""
    r = li.rates
    rates = {"in_octets": r.get("out_octets", 0.0), "out_octets": r.get("in_octets", 0.0),
             "in_pkts": r.get("out_pkts", 0.0), "out_pkts": r.get("in_pkts", 0.0), "pfc_rx_p3": pfc_rx}
    tags = {"fabric": "roce", "role": "host", "peer_device": li.device, "peer_port": li.port, "speed": "400G"}
    return LinkInterval(li.start_ns, li.tags["peer_device"], li.tags["peer_port"], tags, rates)


def _host_outliers(per_s: float) -> set[tuple[str, str]]:
    """The NIC links found standing out of their host's NICs when one NIC of node000 receives `per_s` pauses a
    second from interval 4 on and every other NIC under one a second."""
    run = simulate(SPEC, 9, interval_s=INTERVAL, seed=3)
    det = LinkDetector(interval_s=INTERVAL)
    det.switched_off = frozenset({"pause_storm"})
    fb = FeatureBuilder(INTERVAL)
    found = set()
    for i, (start, links) in enumerate(run.frames):
        nics = [_host_side(li, per_s if i >= 4 and li.tags["peer_device"] == "node000" and
                           li.tags["peer_port"] == "mlx5_0/1" else 0.5 + 0.1 * (k % 5))
                for k, li in enumerate(links) if li.tags.get("role") == "leaf_down"]
        for f in det.detect(fb.build(start, [*links, *nics])):
            if "outlier_in_group" in f.conditions:
                found |= {(f.device, line["port"]) for line in f.per_link()}
    return found


def test_a_nic_paused_a_few_times_a_second_more_than_its_siblings_is_no_matter_of_its_own() -> None:
    """Principle 1, severity from impact, on a host's NICs: 30 pauses a second hold a 400G NIC a quarter of one
    per cent of the time at most, though it is 40x what its host's other NICs receive; a NIC receiving 3,000 a
    second (up to a quarter of the time) while they receive one is its own."""
    assert ("node000", "mlx5_0/1") in _host_outliers(3_000.0)
    assert not _host_outliers(30.0)
