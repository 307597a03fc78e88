"""Load is judged against the group the traffic forms, shortfall included: a link the fabric spreads
traffic over (a leaf's uplinks) that carries nothing while its siblings carry is the link's own finding,
named with its group, with no rule that reads its state; unless that is an operator's act or another
switch's event.

The fabric is the project's simulator with every leaf uplink at 40 % of line rate (ECMP spreads it)."""

from __future__ import annotations

import pytest

from fabricwatch.detection.detector import Finding, LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
STATE_RULES = frozenset({"link_left_down", "link_down", "flap"})  # the rules that read a link's state


def _spread(links: list[LinkInterval]) -> None:
    for li in links:
        if li.tags.get("role") in ("leaf_up", "spine"):
            li.rates["in_octets"] = li.rates["out_octets"] = 0.4 * 400e9 / 8
            li.rates["in_pkts"] = li.rates["out_pkts"] = 0.4 * 400e9 / 8 / 4096
            li.rates["oper_status"] = li.rates["admin_status"] = 1.0


@pytest.fixture(scope="module")
def detector() -> LinkDetector:
    fb = FeatureBuilder(INTERVAL)
    frames = []
    for start, links in simulate(SPEC, 80, interval_s=INTERVAL, seed=1).frames:
        _spread(links)
        frames.append(fb.build(start, links))
    return LinkDetector(interval_s=INTERVAL).fit(frames)


@pytest.fixture(scope="module")
def cable() -> tuple[tuple[str, str], tuple[str, str]]:
    links = simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1]
    up = next(li for li in links if li.tags.get("role") == "leaf_up" and li.tags.get("peer_port"))
    return (up.device, up.port), (up.tags["peer_device"], up.tags["peer_port"])


def _live(det: LinkDetector, cable, *, far_admin: float = 1.0,  # type: ignore[no-untyped-def]
          both_down_no_admin: bool = False) -> list[Finding]:
    """Every finding of 20 intervals in which the cable's leaf end is down from interval 3 on (its far
    end up, idle) while the leaf's other uplinks carry 40 %; or both ends down, reporting no admin state."""
    near, far = cable
    det.reset()
    det.switched_off = STATE_RULES
    fb = FeatureBuilder(INTERVAL)
    out = []
    try:
        for i, (start, links) in enumerate(simulate(SPEC, 20, interval_s=INTERVAL, seed=5).frames):
            _spread(links)
            for li in links:
                if i >= 3 and (li.device, li.port) in cable:
                    li.rates["in_octets"] = li.rates["out_octets"] = li.rates["in_pkts"] = li.rates["out_pkts"] = 0
                    li.rates["oper_status"] = 0.0 if (li.device, li.port) == near or both_down_no_admin else 1.0
                    li.rates["admin_status"] = far_admin if (li.device, li.port) == far else 1.0
                    if both_down_no_admin:
                        del li.rates["admin_status"]
            out += det.detect(fb.build(start, links))
    finally:
        det.switched_off = frozenset()
    return out


def _on(found: list[Finding], port: tuple[str, str]) -> list[Finding]:
    return [f for f in found if (f.device, f.port) == port]


def test_an_uplink_carrying_nothing_while_its_siblings_carry_is_found_and_named_by_its_group(  # type: ignore[no-untyped-def]
        detector, cable) -> None:
    """Principle 2 (the group the traffic forms) with every rule that reads a link's state switched off: a
    leaf uplink left down (far end up) while the leaf's other uplinks carry 40 % is found, and the
    finding names the group it fell short of; the far end of the cable, idle because of it, raises no
    finding of its own (a cable is one link, named at the end that is down)."""
    near, far = cable
    found = _live(detector, cable)
    mine = _on(found, near)
    assert mine
    assert "leaf_up ports of" in mine[0].explanation and "no longer reaches this link" in mine[0].explanation
    assert not _on(found, far)


def test_a_cable_an_operator_shut_is_not_a_finding(detector, cable) -> None:  # type: ignore[no-untyped-def]
    """Principle 5 (an operator's act is not a fault): the same idle uplink with the far end of its cable
    administratively down pages nothing, and neither does one down at both ends with no administrative
    state at all (a planned shutdown looks the same)."""
    near = cable[0]
    assert not _on(_live(detector, cable, far_admin=0.0), near)
    assert not _on(_live(detector, cable, both_down_no_admin=True), near)
