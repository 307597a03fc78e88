"""Principle 2 (load is judged against the groups the traffic forms), for traffic that is missing: the fabric
spreads a leaf's traffic over its uplinks (ECMP, adaptive routing). An uplink that is up, error-free and
carried its share, but now carries (nearly) nothing in one direction while its siblings carry load, has left
the spread: a next hop missing from the ECMP group, a withdrawn route. The fabric runs a link short. The
same withdrawal seen from many switches towards one far switch is that switch being drained. A group idle
together, or lightly loaded, says nothing."""

from __future__ import annotations

from collections.abc import Callable
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
CONTROL = 2e3  # bytes/s: routing protocol and LLDP, all a withdrawn link still sends

Change = Callable[[list[LinkInterval]], None]


def _run(change: Change, at: int = AT, model: Path | None = None) -> dict[tuple[str, str], list[int]]:
    """Intervals after `at` at which each link was found withdrawn, `change` applied to every interval from
    `at`; with `model`, the fitted detector is saved there and a fresh one loaded from it, as a daemon starts."""
    frames = simulate(SPEC, N, interval_s=INTERVAL, seed=3).frames
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in frames[:TRAIN]])
    if model is not None:
        det.save(model)
        det = LinkDetector.load(model)
    det.reset()
    found: dict[tuple[str, str], list[int]] = {}
    for k, (start, links) in enumerate(frames[TRAIN:], start=TRAIN):
        for li in links:
            li.rates.setdefault("oper_status", 1.0)
        if k >= at:
            change(links)
        for f in det.detect(fb.build(start, links)):
            if "spread_withdrawn" in f.conditions:
                found.setdefault((f.device, f.port), []).append(k - at)
    return found


def _uplinks(links: list[LinkInterval], device: str) -> list[LinkInterval]:
    return [li for li in links if li.device == device and li.tags.get("role") == "leaf_up"]


BAD = ("leaf-r1-0", "swp18")


def _withdraw(links: list[LinkInterval]) -> None:
    """BAD leaves its leaf's ECMP group: its egress falls to control traffic, its siblings take its share."""
    ups = _uplinks(links, BAD[0])
    gone = next(u for u in ups if (u.device, u.port) == BAD)
    share = gone.rates["out_octets"] / (len(ups) - 1)
    for u in ups:
        if u is not gone:
            u.rates["out_octets"] += share
    gone.rates["out_octets"] = CONTROL


def test_an_uplink_left_out_of_its_leafs_spread_is_found_in_the_direction_it_lost() -> None:
    found = _run(_withdraw)
    assert set(found) == {BAD}, found
    assert min(found[BAD]) <= 3
    assert len(found[BAD]) >= N - AT - 4  # held while it lasts


def test_a_daemon_started_on_a_saved_model_finds_an_uplink_withdrawn_before_it_started(tmp_path: Path) -> None:
    """What the fit saw the link carry is part of the model: the daemon that loads it knows the share was
    there, though it never saw the link carry anything itself."""
    found = _run(_withdraw, at=TRAIN, model=tmp_path / "model.fwm")
    assert set(found) == {BAD}, found
    assert min(found[BAD]) <= 3


def test_a_far_switch_drained_of_traffic_is_not_every_leafs_uplink_fault() -> None:
    def drain_spine(links: list[LinkInterval]) -> None:
        for li in links:
            if li.tags.get("peer_device") == "spine-2" or li.device == "spine-2":
                li.rates["out_octets"] = li.rates["in_octets"] = CONTROL

    assert _run(drain_spine) == {}


def test_a_leaf_whose_uplinks_idle_together_has_nothing_missing() -> None:
    def idle_leaf(links: list[LinkInterval]) -> None:
        for li in links:
            if li.device == BAD[0] or li.tags.get("peer_device") == BAD[0]:
                li.rates["out_octets"] = li.rates["in_octets"] = CONTROL

    assert _run(idle_leaf) == {}


def test_an_uplink_idle_while_its_siblings_carry_little_is_hashing_not_a_fault() -> None:
    def light(links: list[LinkInterval]) -> None:
        for li in links:
            for k in ("in_octets", "out_octets"):
                li.rates[k] = li.rates[k] * 0.05  # ~2 % of line rate
        _withdraw(links)

    assert _run(light) == {}


@pytest.mark.parametrize("every", [1, 2])
def test_links_towards_a_switch_drained_a_while_ago_are_not_withdrawn_when_their_group_loads_again(every: int) -> None:
    """A switch drained stays drained: while spine-2 carries nothing, the leaves' groups are too lightly loaded to
    judge; one leaf's group loaded again later (a storage incast on it) leaves its uplink to spine-2 idle as the
    drain does, which is that spine's state, not the uplink withdrawn; also where spine-2 and that leaf are polled
    every other interval, in turn (what the spine carries is what it said last)."""
    step = iter(range(10**6))

    def drain_then_load(links: list[LinkInterval]) -> None:
        k = next(step)
        if every > 1:
            links[:] = [li for li in links if li.device != ("spine-2" if k % 2 else BAD[0])]
        for li in links:
            if li.tags.get("role") in ("leaf_up", "spine"):
                li.rates["out_octets"] = li.rates["in_octets"] = 0.02 * 400e9 / 8  # light: nothing to judge
            if li.tags.get("peer_device") == "spine-2" or li.device == "spine-2":
                li.rates["out_octets"] = li.rates["in_octets"] = CONTROL
            elif k >= 5 and li.device == BAD[0] and li.tags.get("role") == "leaf_up":
                li.rates["out_octets"] = li.rates["in_octets"] = 0.4 * 400e9 / 8

    assert _run(drain_then_load) == {}
