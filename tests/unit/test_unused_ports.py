"""Principle 5 (state is a signal, against the link's own history): a port that has never been up (a port
never cabled: down from the start, administratively up, no far end) is an unused port, not a link left
down, at the start of detection and after a collector outage that makes every switch "come back"; a link
that was up and went down while administratively up still is left down."""

from __future__ import annotations

import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
TRAIN, N = 30, 60
OUTAGE = range(40, 46)  # no sample from any device: the collector was down


def _frames() -> list[tuple[int, list[LinkInterval]]]:
    out = []
    for start, links in simulate(SPEC, N, interval_s=INTERVAL, seed=4).frames:
        for li in links:
            li.rates.setdefault("oper_status", 1.0)
            li.rates.setdefault("admin_status", 1.0)
        leaf = links[0].device
        unused = LinkInterval(start, leaf, "Ethernet99", {"fabric": "roce", "role": "leaf_down", "speed": "400G"},
                              {"oper_status": 0.0, "admin_status": 1.0, "in_octets": 0.0, "out_octets": 0.0,
                               "in_pkts": 0.0, "out_pkts": 0.0})
        out.append((start, [*links, unused]))
    return out


@pytest.mark.parametrize("trained", [True, False])
def test_a_port_never_up_is_unused_while_a_link_that_was_up_and_stays_down_is_left_down(trained: bool) -> None:
    frames = _frames()
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL)
    if trained:
        det.fit([fb.build(start, links) for start, links in frames[:TRAIN]])
        det.reset()
    host = next(li for li in frames[0][1] if li.tags.get("role") == "leaf_down")
    fb = FeatureBuilder(INTERVAL)
    left: set[tuple[str, str]] = set()
    for i, (start, links) in enumerate(frames[TRAIN:], TRAIN):
        if i in OUTAGE:
            continue
        for li in links:
            if (li.device, li.port) == (host.device, host.port) and i >= 50:
                li.rates.update(oper_status=0.0, in_octets=0.0, out_octets=0.0, in_pkts=0.0, out_pkts=0.0)
        left |= {(f.device, p["port"]) for f in det.detect(fb.build(start, links)) for p in f.per_link()
                 if "link_left_down" in f.conditions}
    assert (host.device, "Ethernet99") not in left
    assert (host.device, host.port) in left
