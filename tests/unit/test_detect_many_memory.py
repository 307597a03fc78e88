"""Replay scores intervals in batches, bounded by link-intervals and not only by intervals, so that a
day of a fabric of any size replays in bounded memory (issue #34): a batch never pulls more intervals
than its row budget needs, and the findings are those of one interval at a time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import Injection, simulate
from fabricwatch.models.features import FeatureBuilder, FeatureFrame
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=16, rails=4, leaves_per_rail=1, spines=2)
INTERVAL = 30.0


@pytest.fixture(scope="module")
def setup() -> tuple[LinkDetector, list[FeatureFrame]]:
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit(
        [fb.build(s, links) for s, links in simulate(SPEC, 60, interval_s=INTERVAL, seed=1).frames])
    links = simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1]
    host_port = next(li for li in links if li.tags.get("role") == "leaf_down")
    run = simulate(SPEC, 30, [Injection(Fault("pfc_storm", host_port.device, host_port.port), 5, 25)],
                   interval_s=INTERVAL, seed=2)
    fb = FeatureBuilder(INTERVAL)
    return det, [fb.build(s, links) for s, links in run.frames]


def test_a_batch_pulls_no_more_intervals_than_its_row_budget(setup) -> None:  # type: ignore[no-untyped-def]
    det, frames = setup
    pulled = 0

    def lazily() -> Iterator[FeatureFrame]:
        nonlocal pulled
        for f in frames:
            pulled += 1
            yield f

    det.reset()
    it = det.detect_many(lazily(), batch=64, batch_rows=2 * len(frames[0].links))
    next(it)
    assert pulled == 2  # two intervals fill the budget; the other 28 are not built yet


def test_findings_are_the_same_whatever_the_batch(setup) -> None:  # type: ignore[no-untyped-def]
    det, frames = setup
    det.reset()
    one_by_one = [sorted((f.device, f.port, f.severity) for f in det.detect(frame)) for frame in frames]
    det.reset()
    batched = [sorted((f.device, f.port, f.severity) for f in found)
               for found in det.detect_many(frames, batch_rows=3 * len(frames[0].links) + 1)]
    assert batched == one_by_one
    assert any(one_by_one)  # the storm is found: the comparison is not between empty lists
