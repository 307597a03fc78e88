"""A fabric without topology (no LLDP, no descriptions naming the far end) still shows a switch's restart: the
switch stops reporting, and at that moment ports on its neighbours go down. Those ports are that switch's event
while it is away and while it trains its links after; one still down after that is left down, and a port that
goes down while no device went quiet is left down as ever.

The fabric is the project's simulator with every topology tag removed; principle 5 (state is a signal) judged
with the cable unknown: what the link shares in time stands for what it shares in wiring."""

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
AWAY = range(4, 14)  # the intervals the restarting spine is unheard
TOPOLOGY = ("peer_device", "peer_port", "role", "peer_role")
PEERS: dict[tuple[str, str], tuple[str, str]] = {}  # the cables, as the simulator wired them


def _blind(links: list[LinkInterval]) -> list[LinkInterval]:
    for li in links:
        li.tags = {k: v for k, v in li.tags.items() if k not in TOPOLOGY}
    return links


@pytest.fixture(scope="module")
def fitted() -> tuple[LinkDetector, list[tuple[int, list[LinkInterval]]], dict[tuple[str, str], str]]:
    run = simulate(SPEC, 90, interval_s=INTERVAL, seed=29)
    far = {(li.device, li.port): li.tags.get("peer_device", "") for li in run.frames[0][1]}
    PEERS.update({(li.device, li.port): (li.tags.get("peer_device", ""), li.tags.get("peer_port", ""))
                  for li in run.frames[0][1]})
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, _blind(links)) for s, links in run.frames[:60]])
    return det, run.frames[60:], far


def _down(li: LinkInterval) -> None:
    li.rates["oper_status"], li.rates["admin_status"] = 0.0, 1.0  # type: ignore[index]
    for c in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
        li.rates[c] = 0.0  # type: ignore[index]


def _run(fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]], dict[tuple[str, str], str]],
         stays_down: bool) -> tuple[set[tuple[str, str]], dict[tuple[str, str], list[int]], tuple[str, str]]:
    """A spine restarts (unheard through AWAY, the leaf ports towards it down meanwhile); one leaf port towards it
    stays down after (when `stays_down`); a leaf port towards another spine goes down for good at AWAY's start +
    8. The ports towards the spine, the findings of link_left_down per link by interval, and the other port."""
    det, frames, far = fitted
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    spine = sorted({d for d in far.values() if d.startswith("spine")})[0]
    other = sorted({d for d in far.values() if d.startswith("spine")})[1]
    towards = {key for key, d in far.items() if d == spine}
    stuck = min(towards)
    alone = min(key for key, d in far.items() if d == other)
    found: dict[tuple[str, str], list[int]] = {}
    for i, (start, links) in enumerate(copy.deepcopy(frames[:30])):
        kept = []
        for li in _blind(links):
            key = (li.device, li.port)
            if li.device == spine and i in AWAY:
                continue
            if (key in towards and i in AWAY) or (key == stuck and stays_down and i >= AWAY[0]) \
                    or (key == alone and i >= AWAY[0] + 8):
                _down(li)
            kept.append(li)
        for f in det.detect(fb.build(start, kept)):
            if "link_left_down" in f.conditions:
                found.setdefault((f.device, f.port), []).append(i)
    return towards, found, alone


def test_ports_down_while_a_switch_is_away_are_its_restart_not_left_down(
        fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]], dict[tuple[str, str], str]]) -> None:
    towards, found, alone = _run(fitted, stays_down=False)
    assert not set(found) & towards, {k: found[k] for k in set(found) & towards}
    assert alone in found, found  # down while nothing went quiet: left down


def test_a_port_still_down_after_the_switch_is_back_and_trained_is_left_down(
        fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]], dict[tuple[str, str], str]]) -> None:
    towards, found, _ = _run(fitted, stays_down=True)
    stuck = min(towards)
    assert set(found) & towards == {stuck}, found
    assert min(found[stuck]) > AWAY[-1], found[stuck]  # not while the switch was away


def test_a_port_down_as_an_operator_shut_a_port_elsewhere_is_that_shuts_far_end(
        fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]], dict[tuple[str, str], str]]) -> None:
    """A leaf port shut for an optic swap: its far end, on a spine, goes down at that moment, administratively up,
    and nothing says the two are one cable. The shut stands for the far end's cause while it lasts."""
    det, frames, far = fitted
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    shut = min(key for key, d in far.items() if d.startswith("spine"))
    at = AWAY[0]
    found: dict[tuple[str, str], list[int]] = {}
    far_end = PEERS[shut]
    for i, (start, links) in enumerate(copy.deepcopy(frames[:24])):
        for li in _blind(links):
            key = (li.device, li.port)
            if i >= at and key in (shut, far_end):
                _down(li)
                if key == shut:
                    li.rates["admin_status"] = 0.0  # type: ignore[index]
        for f in det.detect(fb.build(start, links)):
            if "link_left_down" in f.conditions:
                found.setdefault((f.device, f.port), []).append(i)
    assert not found, found


def test_a_flapping_port_whose_far_end_an_operator_then_shuts_has_nothing_more_to_say(
        fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]], dict[tuple[str, str], str]]) -> None:
    """The NOC shuts the leaf end of a flapping cable pending a new optic: the far end, with no topology to say
    which cable it is, goes down with the shut. Its flaps were found; from the shut on it is the shut's, and its
    evidence windows still counting the flaps are no page."""
    det, frames, far = fitted
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    shut = min(key for key, d in far.items() if d.startswith("spine"))
    far_end = PEERS[shut]
    at = AWAY[0] + 4
    found: dict[tuple[str, str], list[int]] = {}
    for i, (start, links) in enumerate(copy.deepcopy(frames[:24])):
        for li in _blind(links):
            key = (li.device, li.port)
            if key in (shut, far_end) and i in (at - 4, at - 2):
                li.rates["link_transitions"] = li.rates["link_downed"] = 2.0 / INTERVAL  # type: ignore[index]
            if i >= at and key in (shut, far_end):
                _down(li)
                if key == shut:
                    li.rates["admin_status"] = 0.0  # type: ignore[index]
        for f in det.detect(fb.build(start, links)):
            found.setdefault((f.device, f.port), []).append(i)
    assert min(found.get(far_end, [at])) < at, found  # the flaps were found
    assert not [i for i in found.get(far_end, []) if i > at], found


def test_a_shut_unheard_for_a_while_still_stands_for_its_far_end(
        fitted: tuple[LinkDetector, list[tuple[int, list[LinkInterval]]], dict[tuple[str, str], str]]) -> None:
    """Principle 5 (a state said once holds while unheard): the switch whose port the NOC shut goes unheard for a
    few intervals (its collector restarting) while the far end, heard throughout, stays down. The shut it last
    reported still stands for the far end's cause; nothing is left down."""
    det, frames, far = fitted
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    shut = min(key for key, d in far.items() if d.startswith("spine"))
    far_end = PEERS[shut]
    at = AWAY[0]
    gap = range(at + 8, at + 11)
    found: dict[tuple[str, str], list[int]] = {}
    for i, (start, links) in enumerate(copy.deepcopy(frames[:24])):
        kept = []
        for li in _blind(links):
            key = (li.device, li.port)
            if li.device == shut[0] and i in gap:
                continue
            if i >= at and key in (shut, far_end):
                _down(li)
                if key == shut:
                    li.rates["admin_status"] = 0.0  # type: ignore[index]
            kept.append(li)
        for f in det.detect(fb.build(start, kept)):
            if "link_left_down" in f.conditions:
                found.setdefault((f.device, f.port), []).append(i)
    assert not found, found
