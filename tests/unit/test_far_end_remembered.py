"""A link's far end is what it last said: neighbours learned by LLDP age out of a link that stays down (a
switch forgets them after its hold time, about two minutes), but the cable is still there. The spine ports of
a leaf that is rebooting lose their peer tags while it is away; they are still that leaf's, and its restart is
no link left down. A spine port left down towards a leaf that is up and heard is still found, tags or none.

The fabric is the project's simulator; principle 5 (state is a signal) judged with the topology as last said."""

from __future__ import annotations

import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=16, rails=2, spines=4)
INTERVAL = 30.0
LLDP_HOLD = 4  # intervals a down link keeps its neighbour before LLDP ages it out
AWAY = range(5, 20)  # the intervals the rebooting leaf is unheard


@pytest.fixture(scope="module")
def fitted() -> tuple[LinkDetector, list[tuple[int, list[LinkInterval]]]]:
    run = simulate(SPEC, 90, interval_s=INTERVAL, seed=21)
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in run.frames[:60]])
    return det, run.frames[60:]


def _down(li: LinkInterval, since: int, i: int) -> None:
    li.rates["oper_status"], li.rates["admin_status"] = 0.0, 1.0  # type: ignore[index]
    for c in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
        li.rates[c] = 0.0  # type: ignore[index]
    if i == since:
        li.rates["link_transitions"] = 1.0 / INTERVAL  # type: ignore[index]
    if i - since >= LLDP_HOLD:
        li.tags = {k: v for k, v in li.tags.items() if k not in ("peer_device", "peer_port")}


def test_a_rebooting_leafs_links_are_its_restart_after_lldp_forgets_them(
        fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]]]) -> None:
    det, frames = fitted
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    first = frames[0][1]
    leaf = next(li.device for li in first if li.tags.get("role") == "leaf_up")
    towards = {(li.device, li.port) for li in first if li.tags.get("peer_device") == leaf}
    other_leaf = next(li.tags["peer_device"] for li in first
                      if li.tags.get("role") == "spine" and li.tags.get("peer_device") != leaf)
    left = min((li.device, li.port) for li in first if li.tags.get("peer_device") == other_leaf)
    far_of_left = next((li.tags["peer_device"], li.tags["peer_port"]) for li in first if (li.device, li.port) == left)
    found: dict[tuple[str, str], list[str]] = {}
    for i, (start, links) in enumerate(frames[:25]):
        kept = []
        for li in links:
            if li.device == leaf and i in AWAY:
                continue  # rebooting: nothing from it
            key = (li.device, li.port)
            if key in towards and i in AWAY:
                _down(li, AWAY[0], i)
            if (key == left or key == far_of_left) and i >= 5:
                _down(li, 5, i)  # left down after a replacement, its leaf up and heard
            kept.append(li)
        for f in det.detect(fb.build(start, kept)):
            found.setdefault((f.device, f.port), []).extend(f.conditions)
    assert not set(found) & towards, {k: found[k] for k in set(found) & towards}
    assert "link_left_down" in found.get(left, []) + found.get(far_of_left, []), found
