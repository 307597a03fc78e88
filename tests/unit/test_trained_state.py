"""Principle 5 (state is a signal, judged against the link's own history): what a link trains to when it
comes up (its negotiated speed, its active width, its lanes' speed) is fixed while it is up. A link up with
less than it held before is degraded, whatever the device's enumeration of the reading (IBA's
LinkWidthActive says 2 for 4x, perfquery-style exporters say 4), with or without a nominal speed tag,
and from the first interval after a restart when the fit saw it whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
TRAIN, N, AT = 30, 50, 40

# (reading, healthy value, degraded value): lanes as counted, lanes as IBA enumerates them, lane speed in
# Gb/s, and the negotiated speed on a link without a nominal speed tag
CASES = {
    "width_lanes": ("link_width_active", 4.0, 1.0),
    "width_iba_enum": ("link_width_active", 2.0, 1.0),
    "lane_speed": ("link_speed_active", 50.0, 25.0),
    "speed_untagged": ("speed_bps", 400e9, 200e9),
}


def _frames(reading: str, healthy: float, degraded: float) -> tuple[list[tuple[int, list[LinkInterval]]],
                                                                    tuple[str, str], tuple[str, str]]:
    frames = simulate(SPEC, N, interval_s=INTERVAL, seed=3).frames
    links = frames[0][1]
    bad = next(li for li in links if li.tags.get("role") == "leaf_down")
    flapper = next(li for li in links if li.tags.get("role") == "leaf_down" and li.device != bad.device)
    for i, (_, frame) in enumerate(frames):
        for li in frame:
            li.rates.setdefault("oper_status", 1.0)
            li.rates[reading] = healthy
            if reading == "speed_bps":
                li.tags.pop("speed", None)
            if (li.device, li.port) == (bad.device, bad.port) and i >= AT:
                li.rates[reading] = degraded
            if (li.device, li.port) == (flapper.device, flapper.port) and i == AT:
                li.rates["link_transitions"] = 2 / INTERVAL  # bounced and came back whole
    return frames, (bad.device, bad.port), (flapper.device, flapper.port)


def _found(det: LinkDetector, frames: list[tuple[int, list[LinkInterval]]]) -> dict[tuple[str, str], list[str]]:
    fb = FeatureBuilder(INTERVAL)
    found: dict[tuple[str, str], list[str]] = {}
    for start, links in frames:
        for f in det.detect(fb.build(start, links)):
            if "retrained_lower" in f.conditions:
                found.setdefault((f.device, f.port), []).append(f.explanation)
    return found


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_link_up_with_less_than_it_held_is_degraded(case: str) -> None:
    reading, healthy, degraded = CASES[case]
    frames, bad, flapper = _frames(reading, healthy, degraded)
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in frames[:TRAIN]])
    det.reset()
    found = _found(det, frames[TRAIN:])
    assert set(found) == {bad} and flapper not in found, found
    assert len(found[bad]) == N - AT  # while it stays degraded
    assert reading in found[bad][0]


def test_a_link_already_degraded_when_a_restarted_daemon_starts_is_judged_against_the_saved_fit(tmp_path: Path) -> None:
    frames, bad, _ = _frames("link_width_active", 4.0, 1.0)
    fb = FeatureBuilder(INTERVAL)
    LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in frames[:TRAIN]]).save(tmp_path / "m")
    found = _found(LinkDetector.load(tmp_path / "m"), frames[AT:])
    assert set(found) == {bad}, found


def _under_a_nominal_tag() -> tuple[list[tuple[int, list[LinkInterval]]], tuple[str, str], LinkDetector]:
    """A link tagged 400G that trains down to 200G at AT, and a detector fitted before it."""
    frames, bad, _ = _frames("speed_bps", 400e9, 200e9)
    for _, links in frames:
        for li in links:
            li.tags["speed"] = "400G"
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in frames[:TRAIN]])
    det.reset()
    return frames, bad, det


def test_a_speed_under_its_nominal_tag_is_said_once() -> None:
    frames, bad, det = _under_a_nominal_tag()
    fb = FeatureBuilder(INTERVAL)
    said = [f for s, links in frames[TRAIN:] for f in det.detect(fb.build(s, links)) if (f.device, f.port) == bad]
    assert len(said) == N - AT - 1  # from its second interval under the nominal speed: it holds
    assert all("speed_degraded" in f.conditions and "retrained_lower" not in f.conditions for f in said)


def test_with_the_nominal_rule_switched_off_the_link_is_still_found_against_its_own_history() -> None:
    """Principle 7's ablation: a kind's own rule off, the generic layer (the link's own history) still finds it."""
    frames, bad, det = _under_a_nominal_tag()
    det.switched_off = frozenset({"speed_degraded"})
    assert bad in _found(det, frames[TRAIN:])
