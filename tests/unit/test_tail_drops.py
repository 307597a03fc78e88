"""Drops at the tail of a busy queue are the load's where the class's healthy links dropped as much at
such load; drops on a link the hash piles traffic on are the link's.

Each test names the principle it checks. The fabric is the project's simulator with load and drops
written into chosen uplinks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.detection.explain import explain
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.class_model import ClassModel
from fabricwatch.models.features import FeatureBuilder, FeatureFrame
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

WIDE = FabricSpec(nodes=32, rails=4, leaves_per_rail=4, spines=4)  # four uplinks a leaf
INTERVAL = 30.0
LINE_BPS = 400e9 / 8


def _uplinks(links: list[LinkInterval], leaf: str) -> list[LinkInterval]:
    return sorted((li for li in links if li.device == leaf and li.tags.get("role") == "leaf_up"),
                  key=lambda li: li.port)


def _carry(li: LinkInterval, util: float) -> None:
    for way in ("in", "out"):
        li.rates[f"{way}_octets"] = util * LINE_BPS
        li.rates[f"{way}_pkts"] = util * LINE_BPS / 4096


def _drop(li: LinkInterval, share: float, counter: str = "buffer_discards") -> None:
    li.rates[counter] = share * (li.rates["in_pkts"] + li.rates["out_pkts"])


def _build(fb: FeatureBuilder, start: int, links: list[LinkInterval]) -> FeatureFrame:
    """The interval's features, every switch port reporting its queue drops (0 where it dropped none), as a
    switch that counts them does."""
    for li in links:
        li.rates.setdefault("buffer_discards", 0.0)
    return fb.build(start, links)


History = Callable[[int, list[LinkInterval]], None]  # writes one healthy interval's load and drops


def _fitted(history: History) -> LinkDetector:
    """A detector fitted on 80 intervals of the simulator with `history` written onto them."""
    fb = FeatureBuilder(INTERVAL)
    frames = []
    for i, (start, links) in enumerate(simulate(WIDE, 80, interval_s=INTERVAL, seed=1).frames):
        history(i, links)
        frames.append(_build(fb, start, links))
    return LinkDetector(interval_s=INTERVAL).fit(frames)


def _dropping(det: LinkDetector, leaf: str, share: float, siblings: float = 0.9) -> list[tuple[int, str, str]]:
    """(interval, device, port) of the discards findings on `leaf` while, from the fourth interval on, one of its
    uplinks carries 90 % and drops `share` of its packets, and its other uplinks carry `siblings`."""
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    found = []
    for i, (start, links) in enumerate(simulate(WIDE, 24, interval_s=INTERVAL, seed=8).frames):
        ups = _uplinks(links, leaf)
        if i >= 4:
            for li in ups:
                _carry(li, siblings)
            _carry(ups[1], 0.9)
            _drop(ups[1], share)
        found += [(i, f.device, f.port) for f in det.detect(_build(fb, start, links))
                  if "discards" in f.conditions and f.device == leaf]
    return found


@pytest.fixture(scope="module")
def detector() -> LinkDetector:
    """Healthy history in which two uplinks of leaf-r3-0, each in a burst of the leaf's uplinks at 90 % of
    line rate, dropped 6 packets in a million at their tails, each alone: three link-intervals of 5,120; and
    every uplink of leaf-r1-0 (a storage leaf at its checkpoints, say) dropped one packet in a thousand, all
    at once, twice."""
    def history(i: int, links: list[LinkInterval]) -> None:
        for leaf, at, ports, share in (("leaf-r3-0", (20, 21), [0], 6e-6), ("leaf-r3-0", (50,), [2], 6e-6),
                                       ("leaf-r1-0", (30, 60), [0, 1, 2, 3], 1e-3)):
            if i in at:
                ups = _uplinks(links, leaf)
                for li in ups:
                    _carry(li, 0.9)
                for port in ports:
                    _drop(ups[port], share)

    return _fitted(history)


@pytest.mark.parametrize("polarised", [False, True])
def test_tail_drops_at_a_load_the_class_dropped_at_are_the_loads_unless_the_hash_piles_it_on_one_link(
        detector: LinkDetector, polarised: bool) -> None:
    """Principle 2 (load is judged against its own class at the same load, and against the links the
    traffic is spread over): a queue that fills drops at its tail, the more the busier it runs, on whichever
    link the traffic piles on; two uplinks of the class dropped 6 in a million at 90 % load (two: one link's
    drops in training may be its own fault). A leaf's uplinks all at 90 % again, one of them dropping 4 in a
    million for ten minutes, is that load: no page. The same link at 90 % while its sibling uplinks carry
    3 % (the hash sends it what should be spread over four) dropping as much is found."""
    dropped = _dropping(detector, "leaf-r3-0", 4e-6, siblings=0.03 if polarised else 0.9)
    assert bool(dropped) == polarised, dropped[:3]


def test_tail_drops_one_link_showed_in_training_are_no_class_allowance(detector: LinkDetector) -> None:
    """Principle 1 (a counter against its background): the allowance is what the class's links showed, two
    or more of them. Had only one uplink dropped at that load in training (its own fault, perhaps), another
    dropping likewise later is found: the class's history is read from its second worst link, not its
    worst."""
    def history(i: int, links: list[LinkInterval]) -> None:
        if i in (20, 21):
            ups = _uplinks(links, "leaf-r3-0")
            for li in ups:
                _carry(li, 0.9)
            _drop(ups[0], 6e-6)

    assert _dropping(_fitted(history), "leaf-r3-0", 4e-6)


def test_drops_on_idle_links_are_no_tail_that_load_explains() -> None:
    """Principle 2 (drops follow load only where a queue fills): a link near idle that counts a few drops
    (control-plane packets, a trickle at any load) shows a large share of its few packets, and no queue
    filled. Two uplinks at 0.05 % counting 3 drops an interval in training (8 in a million) allow nothing to a
    busy uplink that later drops 4 in a million of its packets: it is found."""
    def history(i: int, links: list[LinkInterval]) -> None:
        for at, port in (((20, 21), 0), ((50,), 2)):
            if i in at:
                up = _uplinks(links, "leaf-r3-0")[port]
                _carry(up, 0.0005)
                up.rates["buffer_discards"] = 3 / INTERVAL

    assert _dropping(_fitted(history), "leaf-r3-0", 4e-6)


@pytest.mark.parametrize("polarised", [False, True])
def test_the_words_of_a_finding_leave_out_tail_drops_at_a_load_the_class_dropped_at(polarised: bool) -> None:
    """Principle 2, as the forest's explanation reads it: the discards a link counts (in, out, transmit) at
    a share of its packets its class's healthy links dropped at this load are no cause to name; on a link
    carrying several times what its spread group carries they are."""
    run = simulate(WIDE, 6, interval_s=INTERVAL, seed=8)
    fb = FeatureBuilder(INTERVAL)
    for start, links in run.frames:
        ups = _uplinks(links, "leaf-r3-0")
        for li in ups:
            _carry(li, 0.03 if polarised else 0.9)
        _carry(ups[1], 0.9)
        _drop(ups[1], 4e-6, "out_discards")
        frame = _build(fb, start, links)
    i = next(n for n, li in enumerate(frame.links) if (li.device, li.port) == (ups[1].device, ups[1].port))
    tails = {"out_discards": [0.0, 0.0] + [6e-6] * 9}

    def words(shares: dict[str, list[float]]) -> str:
        model = ClassModel(None, 1.0, 0, 0, drop_shares=shares)  # type: ignore[arg-type]
        return explain(frame, i, model=model)[0]

    assert "discards" in words({})  # no tails learned: the drops are named
    assert ("discards" in words(tails)) == polarised


def test_drops_a_situation_showed_all_at_once_are_no_tail_of_the_class(detector: LinkDetector) -> None:
    """Principle 2 (load is judged against the groups the traffic itself forms): drops most of the links
    sharing a situation show at once (a storage leaf's uplinks, one packet in a thousand, at each checkpoint)
    are that situation's load, judged as a crowd when they come; they allow nothing to a link dropping alone.
    Another leaf's uplink dropping 50 in a million at 90 % with its siblings, none of which drops, is found:
    beyond the 6 in a million the class's links dropped alone, under the storage leaf's thousand."""
    assert _dropping(detector, "leaf-r2-0", 5e-5)


def test_the_tails_learned_travel_in_the_model_file(detector: LinkDetector, tmp_path: Path) -> None:
    """A daemon that loads a model fitted elsewhere judges tail drops as the fit did: the classes' tails are
    saved and read back."""
    path = tmp_path / "m.fwm"
    detector.save(path)
    loaded = LinkDetector.load(path)
    learned = {c: m.drop_shares for c, m in detector.models.items() if m.drop_shares}
    assert "buffer_discards" in next(iter(learned.values()))
    assert {c: m.drop_shares for c, m in loaded.models.items() if m.drop_shares} == learned


def test_drops_a_window_holds_are_judged_at_the_load_they_were_counted_at(detector: LinkDetector) -> None:
    """Principle 2 (load is judged at the same moment): a window of drops spans loads. An uplink dropping 5
    in a million at 90 % for five minutes, as the class's links do there, then 1 in ten million at 25 %
    when its job winds down: the window that still holds the busy minutes' drops is judged at the loads
    they were counted at, not at the 25 % of now, where the class drops nothing: no page."""
    detector.reset()
    run = simulate(WIDE, 24, interval_s=INTERVAL, seed=8)
    fb = FeatureBuilder(INTERVAL)
    found = []
    for i, (start, links) in enumerate(run.frames):
        ups = _uplinks(links, "leaf-r3-0")
        if i >= 4:
            for li in ups:
                _carry(li, 0.9 if i < 14 else 0.25)
            _drop(ups[1], 5e-6 if i < 14 else 1e-7)
        found.append(detector.detect(_build(fb, start, links)))
    dropped = [(n, f.port, f.explanation) for n, fs in enumerate(found) for f in fs
               if "discards" in f.conditions and f.device == "leaf-r3-0"]
    assert not dropped, dropped[:3]


def _busy_drops_in_fit(i: int, links: list[LinkInterval]) -> None:
    """Every leaf's uplinks carry the same load; in every fourth interval an all-to-all runs them at 90 % and
    they all drop at their tails, at a share of 1e-5; otherwise they carry 5 % and drop nothing."""
    for li in links:
        if li.tags.get("role") == "leaf_up":
            busy = i % 4 == 0
            _carry(li, 0.9 if busy else 0.05)
            _drop(li, 1e-5 if busy else 0.0, "out_discards")


@pytest.mark.parametrize(("counter", "alone", "load", "found"), [
    ("out_discards", True, 0.05, True),  # a queue that drops while the queues sharing its load do not: the link
    ("out_discards", False, 0.05, False),  # the whole group drops: what its load does
    ("in_discards", True, 0.05, False),  # ingress discards (control-plane packets, unknown protocols) are no queue's
    # near line rate one queue reaches its tail before the others (a burst, a flow's share): the tails' to judge
    ("out_discards", True, 0.93, False),
])
def test_a_queue_dropping_at_the_load_its_group_carries_without_a_drop_is_the_link(
        counter: str, alone: bool, load: float, found: bool) -> None:
    """Principle 2 (load judged against the links that share the situation now): the uplinks a leaf sprays its
    traffic over carry the same load, and their queues fill alike; in training they drop only together, at the
    tails of an all-to-all. A queue that drops at a light load, which fills no queue to its tail, where the
    queues beside it, at the same load, drop nothing is the link's (a lossless queue misconfigured, a buffer
    fault), though its own background, taken over the all-to-alls, counts far more: found within a few intervals."""
    det = _fitted(_busy_drops_in_fit)
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    hits = []
    for i, (start, links) in enumerate(simulate(WIDE, 16, interval_s=INTERVAL, seed=8).frames):
        leaf = next(li.device for li in links if li.tags.get("role") == "leaf_up")
        ups = _uplinks(links, leaf)
        for li in (li for li in links if li.tags.get("role") == "leaf_up"):
            _carry(li, load)
            li.rates["out_discards"] = 0.0
        for li in ups[1:2] if alone else ups:
            if i >= 4:
                _drop(li, 3e-6, counter)
        hits += [i for f in det.detect(_build(fb, start, links))
                 if f.device == leaf and f.port == ups[1].port and {"discards", "drops_alone"} & set(f.conditions)]
    assert (bool(hits) and min(hits) <= 4 + 4) if found else not hits, hits


def _hot_pair(det: LinkDetector, share: float, witness: float, others: float = 0.4) -> list[int]:
    """Intervals of the discards findings on a leaf's second uplink while, from the fourth interval on, its first
    two uplinks carry 90 % each and the other two `others` (0.4: the hash piles the leaf's traffic on the first
    two): the second drops `share` of its packets, the first `witness`, in turns (each every other interval)."""
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    found = []
    for i, (start, links) in enumerate(simulate(WIDE, 40, interval_s=INTERVAL, seed=8).frames):
        ups = _uplinks(links, "leaf-r2-0")
        if i >= 4:
            for k, li in enumerate(ups):
                _carry(li, 0.9 if k < 2 else others)
            _drop(ups[1 if i % 2 else 0], share if i % 2 else witness)
        found += [i for f in det.detect(_build(fb, start, links))
                  if "discards" in f.conditions and f.device == "leaf-r2-0" and f.port == ups[1].port]
    return found


@pytest.mark.parametrize(("share", "others", "found"), [(4e-6, 0.4, False), (8e-5, 0.4, True), (4e-6, 0.9, True),
                                                      (4e-6, 0.85, True)])
def test_drops_a_busy_link_shares_with_a_link_carrying_as_much_are_the_loads(share: float, others: float,
                                                                             found: bool) -> None:
    """Principle 2 (a link is judged against the links sharing its situation at the same load): a queue drops at
    its tail the more the busier it runs, and a hash can pile a leaf's traffic on two of its four uplinks. No link
    of the class dropped in training, so the class allows no tail; the two hot uplinks drop in turns, one 4 in a
    million, the other 1 in a million: each drops what a link beside it, carrying as much, drops, within the
    margin the group rule asks (GROUP_MARGIN): the load's, no page. The same uplink dropping 80 in a million
    while its hot sibling drops 1 in a million stands out of its load: found. Principle 4 (several ports of one
    device changing together are the device's): where all four carry 90 % (or the other two 85 %: nothing piled on
    the two), two of them dropping alike is no hash's doing: found (with its sibling, as the switch's)."""
    hits = _hot_pair(_fitted(lambda i, links: None), share, 1e-6, others)
    assert bool(hits) == found, hits


def test_a_witness_that_dropped_long_ago_excuses_no_drops_now() -> None:
    """Principle 2 (judged at the same moment): the hot sibling that dropped in a burst a quarter of an hour ago
    and a packet or two an interval since witnesses no load for an uplink beside it dropping a hundred in a million
    now: the drops are compared over the window the verdict judged, and the uplink is found."""
    det = _fitted(lambda i, links: None)
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    found = []
    for i, (start, links) in enumerate(simulate(WIDE, 40, interval_s=INTERVAL, seed=8).frames):
        ups = _uplinks(links, "leaf-r2-0")
        for k, li in enumerate(ups):
            _carry(li, 0.9 if k < 2 else 0.4)
        if 4 <= i < 13:
            _drop(ups[0], 1e-4)
        elif i >= 13:
            ups[0].rates["buffer_discards"] = 2 / INTERVAL
        if i >= 20:
            _drop(ups[1], 1e-4)
        found += [i for f in det.detect(_build(fb, start, links))
                  if "discards" in f.conditions and f.device == "leaf-r2-0" and f.port == ups[1].port]
    assert found and min(found) <= 20 + 4, found
