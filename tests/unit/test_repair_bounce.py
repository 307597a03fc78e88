"""Principle 5 (state is a signal) and 4 (one page for one cause): the bounce that ends a degraded state is
its repair. A link that trained down stays degraded until someone reseats its cable or swaps its optic; the
link goes down and comes back whole. That down and up is the fix, not the link flapping: nothing is said of
it once the link is back at what it held. A link that bounces while whole is judged as ever, and so is a
repaired link that goes on bouncing."""

from __future__ import annotations

import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
TRAIN, N = 30, 84
# trains down at DEGRADED; down at REPAIRED, back whole the interval after (an hour on: the bounce it trained
# down in is long out of every window the link's bounces are counted over)
DEGRADED, REPAIRED = 32, 74
AGAIN = 79  # the repaired link of the last case bounces here, and the interval after


def _down(li: LinkInterval) -> None:
    li.rates["oper_status"] = 0.0
    for c in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
        li.rates[c] = 0.0


# how the reseat shows: down in one poll and up in the next; down and up between two polls, the speed read
# whole in that poll; or read still degraded in it (the reading is the poll's, the transitions since the last)
REPAIRS = ("over_two_polls", "within_one_poll", "read_degraded_in_it")


Frames = list[tuple[int, list[LinkInterval]]]


def _frames(tagged: bool, flaps_again: bool = False, repair: str = REPAIRS[0]
            ) -> tuple[Frames, tuple[str, str], tuple[str, str]]:
    frames = simulate(SPEC, N, interval_s=INTERVAL, seed=3).frames
    links = frames[0][1]
    bad = next(li for li in links if li.tags.get("role") == "leaf_down")
    whole = next(li for li in links if li.tags.get("role") == "leaf_down" and li.device != bad.device
                 and li.tags.get("peer_device") != bad.tags.get("peer_device"))
    for i, (_, frame) in enumerate(frames):
        for li in frame:
            li.rates.setdefault("oper_status", 1.0)
            li.rates["speed_bps"] = 400e9
            if tagged:
                li.tags["speed"] = "400G"
            else:
                li.tags.pop("speed", None)
            key = (li.device, li.port)
            if key in ((bad.device, bad.port), (whole.device, whole.port)) and i >= TRAIN:
                # a steady load (the simulated job's dips would read as traffic moved off before the bounce)
                li.rates.update(in_octets=1e10, out_octets=1e10, in_pkts=2.5e6, out_pkts=2.5e6)
            if key == (bad.device, bad.port):
                if i == DEGRADED:  # the bounce it trained down in
                    li.rates["link_transitions"] = 2 / INTERVAL
                if DEGRADED <= i < REPAIRED or (i == REPAIRED and repair == "read_degraded_in_it"):
                    li.rates["speed_bps"] = 200e9
                if repair == "over_two_polls":
                    if i == REPAIRED:  # reseated: down in this interval, up whole in the next
                        _down(li)
                        li.rates["link_transitions"] = 1 / INTERVAL
                    if i == REPAIRED + 1:
                        li.rates["link_transitions"] = 1 / INTERVAL
                elif i == REPAIRED:
                    li.rates["link_transitions"] = 2 / INTERVAL
                if flaps_again and i in (AGAIN, AGAIN + 1):
                    li.rates["link_transitions"] = 2 / INTERVAL
            if key == (whole.device, whole.port) and i == REPAIRED + 1:  # bounces while whole: its own flap
                li.rates["link_transitions"] = 2 / INTERVAL
    return frames, (bad.device, bad.port), (whole.device, whole.port)


def _findings(frames: list[tuple[int, list[LinkInterval]]]) -> dict[tuple[str, str], list[tuple[int, list[str]]]]:
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in frames[:TRAIN]])
    det.reset()
    out: dict[tuple[str, str], list[tuple[int, list[str]]]] = {}
    for i, (start, links) in enumerate(frames[TRAIN:], start=TRAIN):
        for f in det.detect(fb.build(start, links)):
            out.setdefault((f.device, f.port), []).append((i, list(f.conditions)))
    return out


@pytest.mark.parametrize("repair", REPAIRS)
@pytest.mark.parametrize("tagged", [True, False], ids=["nominal_tag", "own_history"])
def test_the_bounce_that_brings_a_degraded_link_back_whole_is_its_repair(tagged: bool, repair: str) -> None:
    frames, bad, whole = _frames(tagged, repair=repair)
    found = _findings(frames)
    said = found.get(bad, [])
    assert any(i < REPAIRED for i, _ in said), said  # it was found while degraded
    assert not [(i, c) for i, c in said if i > REPAIRED], said  # back whole: its repair is no flap
    assert any(i > REPAIRED and "flap" in c for i, c in found.get(whole, [])), found.get(whole)


@pytest.mark.parametrize("repair", REPAIRS)
def test_a_repaired_link_that_goes_on_bouncing_is_a_flap(repair: str) -> None:
    frames, bad, _ = _frames(True, flaps_again=True, repair=repair)
    said = _findings(frames).get(bad, [])
    assert not [(i, c) for i, c in said if REPAIRED < i < AGAIN], said
    assert any(i >= AGAIN and "flap" in c for i, c in said), said
