"""Principle 5 (state is a signal), over the hour as over the minute: a link that goes down once is a bounce
(a reseat, a host's firmware), and one that goes down again and again within minutes is a flap. A link that
goes down once every 10-20 minutes, its traffic moving to its siblings in between, is never two downs in the
flap window, yet each down stalls the jobs crossing it: three downs within an hour are a (slow) flap.
Downs a whole switch makes together (its reboot) are its event, not its links' flaps."""

from __future__ import annotations

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0


def _flapped(downs: tuple[int, ...], whole_leaf: bool = False, n: int = 140, ethernet: bool = False) -> list[int]:
    """Intervals a leaf uplink was found flapping in, IB style (LinkDownedCounter +1, no state seen down)
    at each of `downs`; with `whole_leaf`, every link of its leaf goes down at those times. Each down shows
    as one transition down in its interval and one up in the next; with `ethernet`, as nothing else."""
    det = LinkDetector(interval_s=INTERVAL)  # rules and state need no model
    fb = FeatureBuilder(INTERVAL)
    found = []
    target = None
    for i, (start, links) in enumerate(simulate(SPEC, n, interval_s=INTERVAL, seed=4).frames):
        ups = [li for li in links if li.tags.get("role") == "leaf_up"]
        target = target or (ups[0].device, ups[0].port)
        for li in links:
            li.rates.setdefault("link_transitions", 0.0)
            if not ethernet:
                li.rates.setdefault("link_downed", 0.0)
            hit = (li.device, li.port) == target or (whole_leaf and li.device == target[0])
            if hit and (i in downs or i - 1 in downs):
                li.rates["link_transitions"] = 1 / INTERVAL  # down in its interval, up in the next
            if hit and not ethernet and i in downs:
                li.rates["link_downed"] = 1 / INTERVAL  # an IB port counts the down too: one down, not two
        # the slow flap's own words: a single bounce of a port is the bounce rule's (a warning) and not judged here
        if any((f.device, f.port) == target and "flap" in f.conditions and "slow flap" in f.explanation
               for f in det.detect(fb.build(start, links))):
            found.append(i)
    return found


def test_three_downs_within_an_hour_are_a_slow_flap() -> None:
    found = _flapped((10, 40, 70))  # every 15 minutes
    assert found and 70 <= min(found) <= 72, found
    assert max(found) <= 70 + 4, found  # said at the down, for the flap window; not for the hour after


def test_two_downs_in_an_hour_or_downs_an_hour_apart_are_bounces() -> None:
    assert _flapped((10, 70)) == []
    assert _flapped((10, 135), n=140) == []
    # a port's transitions: a down and its up are one down, whichever intervals they fall in
    assert _flapped((10, 70), ethernet=True) == []
    found = _flapped((10, 40, 70), ethernet=True)
    assert found and 70 <= min(found) <= 72, found
    assert max(found) <= 70 + 3, found  # from when it went down, as the bounce rule's window


def test_a_switch_taking_every_link_down_together_is_not_its_links_flapping() -> None:
    assert _flapped((10, 40, 70), whole_leaf=True) == []


def _flapping_in(n: int, transitions: dict[int, float], unheard: range = range(0)) -> list[int]:
    """Intervals a leaf uplink was found flapping in over `n` intervals: `transitions` it counted at each
    interval given; during `unheard` no line of it came (an exporter sending on change)."""
    det = LinkDetector(interval_s=INTERVAL)
    fb = FeatureBuilder(INTERVAL)
    target = None
    flapped = []
    for i, (start, links) in enumerate(simulate(SPEC, n, interval_s=INTERVAL, seed=4).frames):
        ups = [li for li in links if li.tags.get("role") == "leaf_up"]
        target = target or (ups[0].device, ups[0].port)
        if i in unheard:
            links = [li for li in links if (li.device, li.port) != target]
        for li in links:
            li.rates["link_transitions"] = transitions.get(i, 0.0) / INTERVAL if (li.device, li.port) == target else 0.0
        if any((f.device, f.port) == target and "flap" in f.conditions for f in det.detect(fb.build(start, links))):
            flapped.append(i)
    return flapped


def test_a_flap_window_ages_in_time_while_the_link_says_nothing() -> None:
    """Principle 3 (a finding ends with its evidence): the flap window is the last minutes, not the link's last
    few samples. An exporter that sends on change (Telegraf's dedup, node_exporter scraped through it) sends
    nothing of a link that came back up and carries no traffic: its next line, ten intervals later, is no
    flap though its transitions were the last it sent."""
    flapped = _flapping_in(30, {10: 1, 11: 1}, unheard=range(12, 22))
    assert 10 in flapped or 11 in flapped  # the bounce itself is said
    assert not [i for i in flapped if i >= 22], flapped


def test_a_flap_is_over_once_the_link_has_held_its_state_for_two_intervals() -> None:
    """Principle 3 (a finding ends with its evidence): a link that bounced twice in a minute (a down and its up
    in each of two intervals) is flapping; once it has held its state for two whole intervals it is not, though
    the flap window (the last four intervals) still holds a bounce: said no later than two intervals after its
    last transition."""
    flapped = _flapping_in(24, {10: 2, 12: 2})
    assert 12 in flapped, flapped
    assert max(flapped) <= 12 + 2, flapped


def test_a_link_first_heard_with_one_transition_is_one_bounce_not_a_flap() -> None:
    """Principle 3: the intervals before a link was first heard hold nothing of it; its first report's one
    transition (it came up) is no flap, however long the fabric ran before it."""
    assert _flapping_in(16, {10: 1}, unheard=range(10)) == []
