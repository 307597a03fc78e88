"""Principle 1 with principle 5 (a gap in the data says nothing): a counter that filled to its ceiling is a
finding when it fills while watched, not for as long as it stays full; a collector outage, after which the
first sample gives no rate and so no sign of the ceiling, is no clear, and the full counter seen again after
it is no news."""

from __future__ import annotations

import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
COUNTER = "excessive_buffer_overrun_errors"


@pytest.mark.parametrize(("full_from", "expect"), [(0, False), (5, True)])
def test_a_full_counter_is_news_when_it_fills_not_after_an_outage(full_from: int, expect: bool) -> None:
    det = LinkDetector(interval_s=INTERVAL)
    fb = FeatureBuilder(INTERVAL)
    frames = simulate(SPEC, 30, interval_s=INTERVAL, seed=3).frames
    target = next((li.device, li.port) for li in frames[0][1] if li.tags.get("role") == "leaf_up")
    raised: list[int] = []
    for i, (start, links) in enumerate(frames):
        if 12 <= i < 18:
            continue  # the collector is down: nothing from anyone
        out = []
        for li in links:
            if (li.device, li.port) == target:
                # after the outage the first sample gives no rate, so no sign of the ceiling
                full = i >= full_from and i != 18
                li = LinkInterval(li.start_ns, li.device, li.port, li.tags, li.rates,
                                  frozenset({COUNTER}) if full else frozenset())
            out.append(li)
        raised += [i for f in det.detect(fb.build(start, out)) for p in f.per_link()
                   if (f.device, p["port"]) == target and "saturated" in f.conditions]
    assert bool(raised) == expect, raised
    assert all(i < 12 for i in raised), raised
