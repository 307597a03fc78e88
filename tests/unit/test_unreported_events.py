"""A link's events are only what it reports: a port whose device does not count link transitions did not
bounce because the links of its class that do count them bounced. A level it does not report may sit at its
peers' median for the forest (no deviation, nothing known); an event it does not report is no event.

The fabric is the project's simulator at the daemon tests' size (two leaves, two spines, so each spine faces
two leaf uplinks); the switches of one vendor report no transition counter, as some gNMI flavours do not."""

from __future__ import annotations

import numpy as np
import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.detection.explain import FLAPS
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=8, rails=2, spines=2)
INTERVAL = 2.0
FLAPPING = ("leaf-r0-0", "swp9")  # faces spine-0; the other link facing spine-0 is leaf-r1-0's, which counts none
SILENT = "leaf-r1-0"


def _without_transitions(links: list[LinkInterval]) -> list[LinkInterval]:
    for li in links:
        if li.device == SILENT:
            li.rates.pop("link_transitions", None)  # type: ignore[attr-defined]
    return links


def _frames(n: int, seed: int) -> list[tuple[int, list[LinkInterval]]]:
    return [(s, _without_transitions(links)) for s, links in simulate(SPEC, n, interval_s=INTERVAL, seed=seed).frames]


def _flapping(links: list[LinkInterval]) -> list[LinkInterval]:
    for li in links:
        if (li.device, li.port) == FLAPPING:
            li.rates["link_transitions"] = 1.0 / INTERVAL  # type: ignore[index]
    return links


@pytest.fixture(scope="module")
def detector() -> tuple[LinkDetector, FeatureBuilder]:
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in _frames(60, 1)])
    return det, fb


def test_a_port_that_counts_no_transitions_did_not_bounce_with_its_class() -> None:
    fb = FeatureBuilder(INTERVAL)
    frame = None
    for s, links in _frames(3, 2):
        frame = fb.build(s, _flapping(links))
    assert frame is not None
    silent = [i for i, li in enumerate(frame.links) if li.device == SILENT]
    assert silent and "link_transitions" not in frame.links[silent[0]].rates
    flapping = next(i for i, li in enumerate(frame.links) if (li.device, li.port) == FLAPPING)
    assert frame.own_raw[flapping, FLAPS] > 0
    assert not np.any(np.nan_to_num(frame.own_raw[silent, FLAPS]) > 0), frame.own_raw[silent, FLAPS]


def test_a_flapping_link_is_flagged_though_the_other_link_to_its_switch_counts_no_transitions(
        detector: tuple[LinkDetector, FeatureBuilder]) -> None:
    """Both links facing spine-0 'bouncing' would read as spine-0's own event (a reboot), and the flap as none
    of the link's: only one of them said it bounced."""
    det, fb = detector
    det.reset()
    flagged = False
    for s, links in _frames(8, 3):
        found = det.detect(fb.build(s, _flapping(links)))
        flagged = flagged or any((f.device, f.port) == FLAPPING for f in found)
    assert flagged
