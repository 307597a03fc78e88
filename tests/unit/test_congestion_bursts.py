"""Principle 2 (load is judged against the links sharing its situation), in time as in space: congestion is
bursty. During an all-to-all every uplink waits for credits, and one of them now and then waits a hundred
times more than its siblings for a poll or two: a burst, which heavy tails make. A link is suspect when it
stands out over the links sharing its situation interval after interval (the persistence the group rule
asks for), whichever layer (the forest or the group rule) notices it first."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
LEAF = "leaf-r0-0"


def _waits(i: int, links: list[LinkInterval], rng: np.random.Generator, shared: float) -> None:
    """Every leaf uplink waits for credits in proportion to its load; `shared` times more in a shared phase."""
    for li in links:
        if li.tags.get("role") == "leaf_up":
            li.rates["xmit_wait"] = 1e6 * shared * rng.lognormal(0, 0.3)


def _fitted(waits: Callable[[int, list[LinkInterval], np.random.Generator], None]) -> LinkDetector:
    """A detector fitted on a healthy history whose credit waits `waits` writes."""
    rng = np.random.default_rng(1)
    fb = FeatureBuilder(INTERVAL)
    frames = []
    for i, (start, links) in enumerate(simulate(SPEC, 80, interval_s=INTERVAL, seed=1).frames):
        waits(i, links, rng)
        frames.append(fb.build(start, links))
    return LinkDetector(interval_s=INTERVAL).fit(frames)


@pytest.fixture(scope="module")
def detector() -> LinkDetector:
    # an all-to-all phase in the healthy history
    return _fitted(lambda i, links, rng: _waits(i, links, rng, 20.0 if 30 <= i < 45 else 1.0))


def _flagged(detector: LinkDetector, burst: range) -> set[int]:
    """Intervals the bursting uplink was found in, every uplink in an all-to-all, it bursting in `burst`."""
    detector.reset()
    rng = np.random.default_rng(2)
    fb = FeatureBuilder(INTERVAL)
    found = set()
    target = None
    for i, (start, links) in enumerate(simulate(SPEC, 14, interval_s=INTERVAL, seed=9).frames):
        _waits(i, links, rng, 20.0)
        ups = [li for li in links if li.device == LEAF and li.tags.get("role") == "leaf_up"]
        target = (ups[0].device, ups[0].port)
        if i in burst:
            ups[0].rates["xmit_wait"] *= 100
        if any((f.device, f.port) == target for f in detector.detect(fb.build(start, links))):
            found.add(i)
    return found


def test_one_uplinks_burst_in_a_shared_all_to_all_is_no_finding(detector: LinkDetector) -> None:
    assert _flagged(detector, range(5, 7)) == set()


def test_one_uplink_standing_out_interval_after_interval_is_found(detector: LinkDetector) -> None:
    found = _flagged(detector, range(5, 12))
    assert found and min(found) <= 5 + 3, found



def _host_waits(links: list[LinkInterval], rng: np.random.Generator) -> None:
    for li in links:
        if li.tags.get("role") == "leaf_down":
            li.rates["xmit_wait"] = 1e5 * rng.lognormal(0, 0.3)


@pytest.fixture(scope="module")
def host_detector() -> LinkDetector:
    return _fitted(lambda i, links, rng: _host_waits(links, rng))


def _host_flagged(detector: LinkDetector, burst: range) -> set[int]:
    """Intervals a host port was found in, it waiting 100x its class's usual in `burst`, nothing shared."""
    detector.reset()
    rng = np.random.default_rng(3)
    fb = FeatureBuilder(INTERVAL)
    found = set()
    for i, (start, links) in enumerate(simulate(SPEC, 14, interval_s=INTERVAL, seed=9).frames):
        _host_waits(links, rng)
        target = [li for li in links if li.tags.get("role") == "leaf_down"][5]
        if i in burst:
            target.rates["xmit_wait"] *= 100
        if any((f.device, f.port) == (target.device, target.port) for f in detector.detect(fb.build(start, links))):
            found.add(i)
    return found


def test_one_host_ports_burst_against_its_class_is_no_finding(host_detector: LinkDetector) -> None:
    """The same in time for a link with no siblings sharing its situation: waiting a hundred times its class
    for a poll is a burst; only waiting so interval after interval makes the forest's finding."""
    assert _host_flagged(host_detector, range(5, 7)) == set()
    found = _host_flagged(host_detector, range(5, 12))
    assert found and min(found) <= 5 + 3, found
