"""ECN set too low on a switch (principles 2 and 4): most of a switch's ports marking many times what the
links at the same load on other switches mark is the switch's marking profile, one device finding. One link
marking more than its peers is congestion control doing its job on a busier link (an incast), and a load every
switch marks under (an all-to-all phase) is the load's: neither is a finding.

The fabric is the project's simulator, its marks as simulated (about 600 per 1M packets) except where a test
writes 30 % of the packets a port sends."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fabricwatch.detection.detector import Finding, LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
HEAVY = 0.3  # of the packets a port sends


@pytest.fixture(scope="module")
def detector() -> LinkDetector:
    fb = FeatureBuilder(INTERVAL)
    run = simulate(SPEC, 80, interval_s=INTERVAL, seed=1)
    return LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in run.frames])


def _live(det: LinkDetector, mark: Callable[[LinkInterval], float | bool], in_turn: str = ""
          ) -> list[list[Finding]]:
    """20 intervals with `mark`ed ports marking HEAVY (or the share `mark` gives) from the fourth on; `in_turn`,
    a switch heard every other interval only (polled at another moment than the others)."""
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    out = []
    for i, (start, links) in enumerate(simulate(SPEC, 20, interval_s=INTERVAL, seed=5).frames):
        for li in links:
            if i >= 3 and (share := mark(li)):
                li.rates["ecn_marked"] = (HEAVY if share is True else share) * li.rates["out_pkts"]
        if i % 2:
            links = [li for li in links if li.device != in_turn]
        out.append(det.detect(fb.build(start, links)))
    return out


def _leaf() -> str:
    links = simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1]
    return sorted(li.device for li in links if li.tags.get("role") == "leaf_down")[0]


def _excess(found: list[list[Finding]]) -> list[tuple[int, Finding]]:
    return [(n, f) for n, fs in enumerate(found) for f in fs if "ecn_excess" in f.conditions]


def test_a_switch_marking_far_more_than_its_load_matched_peers_is_one_device_finding(detector: LinkDetector) -> None:
    leaf = _leaf()
    found = _excess(_live(detector, lambda li: li.device == leaf))
    assert found, "a leaf marking 30 % of what every port sends was not found"
    n, f = found[0]
    assert n <= 3 + 4 and f.device == leaf and f.level == "device", (n, f.device, f.level, f.explanation)
    assert {g.device for _, g in found} == {leaf}
    assert "per 1M pkts" in f.explanation


def test_a_switch_polled_at_another_moment_is_held_by_its_own_reports(detector: LinkDetector) -> None:
    """What holds a switch's condition is its own reports: heard every other interval, it is found as soon as three
    of its last four reports show it."""
    leaf = _leaf()
    found = _excess(_live(detector, lambda li: li.device == leaf, in_turn=leaf))
    assert found and found[0][0] <= 3 + 8 and {f.device for _, f in found} == {leaf}, found[:1]


def test_one_link_marking_more_is_its_traffic(detector: LinkDetector) -> None:
    leaf = _leaf()
    port = sorted(li.port for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1] if li.device == leaf)[0]
    assert not _excess(_live(detector, lambda li: (li.device, li.port) == (leaf, port)))


def test_every_switch_marking_is_the_load(detector: LinkDetector) -> None:
    assert not _excess(_live(detector, lambda li: li.tags.get("role") in ("leaf_down", "leaf_up", "spine")))


@pytest.mark.parametrize("role", ["host", "nic"])
def test_marks_a_host_receives_are_the_fabrics_congestion_not_its_profile(role: str) -> None:
    """The marks a NIC counts were set by the switches towards it: hosts receiving many marks in an all-to-all
    (every one of their NICs) have no marking profile of their own to be wrong. A NIC is known by its role
    where the site names it so, else as what a switch's host-facing port (`leaf_down`) reaches."""
    from fabricwatch.detection.ecn_excess import MarkingWatch

    watch = MarkingWatch()
    fb = FeatureBuilder(INTERVAL)
    for start, links in simulate(SPEC, 6, interval_s=INTERVAL, seed=5).frames:
        down = [li for li in links if li.tags.get("role") == "leaf_down"]
        nics = []
        hosts = sorted({li.tags["peer_device"] for li in down})
        for li in down:  # the far end of every host port, as its NIC counts it; a quarter of the hosts marked heavily
            heavy = hosts.index(li.tags["peer_device"]) % 4 == 0
            rates = {"in_octets": li.rates["out_octets"], "out_octets": li.rates["in_octets"],
                     "in_pkts": li.rates["out_pkts"], "out_pkts": li.rates["in_pkts"],
                     "ecn_marked": (HEAVY if heavy else 0.001) * li.rates["out_pkts"]}
            nics.append(LinkInterval(start, li.tags["peer_device"], li.tags["peer_port"],
                                     {"role": role, "speed": li.tags.get("speed", "400G"),
                                      "peer_device": li.device, "peer_port": li.port}, rates))
        assert not {f.device for f in watch.observe(fb.build(start, links + nics)) if f.device in hosts}


def test_switches_of_one_role_marking_together_are_their_load(detector: LinkDetector) -> None:
    """Principle 2: an all-to-all in one pod makes its leaves mark far more than the other pod's at the same load,
    every one of them at once: what several switches of a role show together is their load, not each one's
    profile. Three of the eight leaves marking heavily together: nothing."""
    links = simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1]
    leaves = sorted({li.device for li in links if li.tags.get("role") == "leaf_down"})
    pod = set(leaves[:3])
    assert not _excess(_live(detector, lambda li: li.device in pod))


def test_a_switch_marking_as_its_parallel_paths_do_carries_their_traffic(detector: LinkDetector) -> None:
    """Principle 2 (groups the traffic forms): the switches whose ports reach the same far devices (a pod's
    spines towards its leaves) carry the same traffic; one marking heavily where its parallel paths mark within
    10x of it (an all-to-all through the pod) marks for that traffic, even where most links of its role at the
    same load, carrying other traffic, mark next to nothing. One spine's ports towards half the leaves mark 30 %,
    the other spines' ports towards the same leaves 4 %: nothing is that spine's profile."""
    links = simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1]
    spines = sorted({li.device for li in links if li.tags.get("role") == "spine"})
    far = set(sorted({li.tags["peer_device"] for li in links if li.device == spines[0]})[:4])

    def towards(li: LinkInterval) -> float:
        if li.tags.get("role") != "spine" or li.tags.get("peer_device") not in far:
            return 0.0
        return HEAVY if li.device == spines[0] else HEAVY / 8

    assert not _excess(_live(detector, towards))


def test_a_leaf_marking_as_its_rail_does_carries_the_rails_traffic(detector: LinkDetector) -> None:
    """Principle 2 (groups the traffic forms): a rail's leaves carry that rail's traffic; a hot rail marks on
    both its leaves, on some ports of one more than the other. A leaf marking heavily on every port while the
    other leaf of its rail marks as heavily on a third of its ports is the rail's load, not its profile."""
    links = simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1]
    rail = sorted({li.tags["rail"] for li in links if li.tags.get("role") == "leaf_down"})[0]
    a, b = sorted({li.device for li in links if li.tags.get("role") == "leaf_down" and li.tags["rail"] == rail})
    b_ports = sorted(li.port for li in links if li.device == b)
    some = set(b_ports[: len(b_ports) // 3])
    assert not _excess(_live(detector, lambda li: li.device == a or (li.device == b and li.port in some)))
