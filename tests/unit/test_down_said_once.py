"""A link's state said once holds while it is unheard: an exporter that sends on change only (gnmic's on-change
subscriptions, Telegraf's dedup, node_exporter behind it) says a port went down once, and a down port's counters
do not move, so nothing more comes until it is up again. Left down while administratively up, it is a link left
down after as many intervals as one that keeps saying so; shut by an operator, or up again soon, it is not.

The fabric is the project's simulator; principle 5 (state is a signal) under silence that means "unchanged"."""

from __future__ import annotations

import copy

import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=16, rails=2, spines=4)
INTERVAL = 30.0
DOWN_AT = 3  # the interval the cable goes down in; said so here and in the next, unheard after


@pytest.fixture(scope="module")
def fitted() -> tuple[LinkDetector, list[tuple[int, list[LinkInterval]]]]:
    run = simulate(SPEC, 90, interval_s=INTERVAL, seed=23)
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in run.frames[:60]])
    return det, run.frames[60:]


def _said_down(li: LinkInterval, admin: float, first: bool) -> None:
    li.rates["oper_status"], li.rates["admin_status"] = 0.0, admin  # type: ignore[index]
    for c in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
        li.rates[c] = 0.0  # type: ignore[index]
    li.rates["link_transitions"] = (1.0 / INTERVAL) if first else 0.0  # type: ignore[index]


def _run(fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]]], admin: float,
         up_again: int | None) -> tuple[set[tuple[str, str]], dict[tuple[str, str], list[tuple[int, list[str]]]]]:
    """One leaf uplink's cable down at DOWN_AT, said so twice at both ends, then unheard (up again at `up_again`,
    heard as before, when given); the cable's two ends and what was found, per link, by interval."""
    det, frames = fitted
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    first = frames[0][1]
    up = min((li.device, li.port) for li in first if li.tags.get("role") == "leaf_up" and li.tags.get("peer_device"))
    far = next((li.tags["peer_device"], li.tags["peer_port"]) for li in first if (li.device, li.port) == up)
    cable = {up, far}
    found: dict[tuple[str, str], list[tuple[int, list[str]]]] = {}
    for i, (start, links) in enumerate(copy.deepcopy(frames[:24])):
        kept = []
        for li in links:
            if (li.device, li.port) in cable and i >= DOWN_AT and (up_again is None or i < up_again):
                if i > DOWN_AT + 1:
                    continue  # nothing changed: nothing sent
                _said_down(li, admin, i == DOWN_AT)
            kept.append(li)
        for f in det.detect(fb.build(start, kept)):
            found.setdefault((f.device, f.port), []).append((i, f.conditions))
    return cable, found


def _left_down_at(cable: set[tuple[str, str]], found: dict[tuple[str, str], list[tuple[int, list[str]]]]) -> list[int]:
    return sorted(i for key in cable for i, conditions in found.get(key, []) if "link_left_down" in conditions)


def test_a_link_said_down_once_and_then_unheard_is_left_down(
        fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]]]) -> None:
    cable, found = _run(fitted, admin=1.0, up_again=None)
    at = _left_down_at(cable, found)
    assert at, {k: found.get(k) for k in cable}
    assert at[0] <= DOWN_AT + 5, at  # as soon as a link that keeps saying it is down (DOWN_INTERVALS, and one late)
    assert at[-1] >= 20, at  # and for as long as it says nothing else


def test_a_port_shut_and_then_unheard_is_no_finding(
        fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]]]) -> None:
    cable, found = _run(fitted, admin=0.0, up_again=None)
    assert not _left_down_at(cable, found), {k: found.get(k) for k in cable}


def test_a_link_up_again_before_its_time_is_no_link_left_down(
        fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]]]) -> None:
    cable, found = _run(fitted, admin=1.0, up_again=DOWN_AT + 3)
    assert not _left_down_at(cable, found), {k: found.get(k) for k in cable}
