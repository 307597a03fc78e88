"""A protective signal gone quiet is evidence: ECN marks or pauses absent where the link's load-matched
peers show them, for longer in a row than the link's healthy record, with no rule written for the fault.

The fabric is the project's simulator with ECN marks written onto the uplinks at 40 % load."""

from __future__ import annotations

import numpy as np
import pytest

from fabricwatch.detection.detector import Finding, LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.silence import MIN_RUN, SEEN_SILENT, UNSEEN_GRACE, SilenceFit, SilentRuns
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
MARKS_PER_PKT = 2e-4  # 200 per 1M packets: an uplink's queue at 40 % of line rate


def _uplinks(links: list[LinkInterval]) -> list[LinkInterval]:
    return [li for li in links if li.tags.get("role") == "leaf_up"]


def _marking(links: list[LinkInterval], silent: set[tuple[str, str]]) -> None:
    for li in _uplinks(links):
        li.rates["in_octets"] = li.rates["out_octets"] = 0.4 * 400e9 / 8
        li.rates["in_pkts"] = li.rates["out_pkts"] = 0.4 * 400e9 / 8 / 4096
        li.rates["ecn_marked"] = 0.0 if (li.device, li.port) in silent else 2 * li.rates["in_pkts"] * MARKS_PER_PKT


def _fit(quiet_now_and_then: tuple[str, str]) -> LinkDetector:
    """Trained where every uplink marks, but one that is silent in blocks of 8 intervals (its queue
    seldom fills: the record it is judged by)."""
    run = simulate(SPEC, 80, interval_s=INTERVAL, seed=1)
    fb = FeatureBuilder(INTERVAL)
    frames = []
    for i, (start, links) in enumerate(run.frames):
        _marking(links, {quiet_now_and_then} if (i // 8) % 2 else set())
        frames.append(fb.build(start, links))
    return LinkDetector(interval_s=INTERVAL).fit(frames)


@pytest.fixture(scope="module")
def ports() -> tuple[tuple[str, str], tuple[str, str]]:
    up = _uplinks(simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1])
    return (up[0].device, up[0].port), (up[9].device, up[9].port)


def _live(det: LinkDetector, silent_from: int, silent: set[tuple[str, str]], n: int = 30) -> list[list[Finding]]:
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    out = []
    for i, (start, links) in enumerate(simulate(SPEC, n, interval_s=INTERVAL, seed=5).frames):
        _marking(links, silent if i >= silent_from else set())
        out.append(det.detect(fb.build(start, links)))
    return out


def _quiet(found: list[Finding], port: tuple[str, str]) -> list[Finding]:
    return [f for f in found if (f.device, f.port) == port and "gone_quiet" in f.conditions]


def test_a_link_that_stops_marking_while_its_peers_mark_is_a_finding_after_its_record(ports) -> None:  # type: ignore[no-untyped-def]
    """Principle 1 (a counter against its own history, absence included): an uplink that marked whenever
    its load-matched peers did marks nothing from interval 5 on (ECN off on its queue). No rule for ECN
    is consulted: it is found, named by the signal, once the run passes its limit and not before."""
    victim, other = ports
    det = _fit(other)
    det.switched_off = frozenset({"ecn_missing"})
    found = _live(det, 5, {victim})
    first = next(i for i, fs in enumerate(found) if _quiet(fs, victim))
    assert first == 5 + MIN_RUN - 1
    assert "no ECN marks" in _quiet(found[first], victim)[0].explanation
    assert all(_quiet(fs, victim) for fs in found[first:])


def test_a_link_silent_as_long_in_healthy_history_is_not_a_finding(ports) -> None:  # type: ignore[no-untyped-def]
    """Principle 1 (its own background): the uplink whose queue was silent 8 intervals in a row in
    training is silent 12 in a row now: within twice its record, no finding; 20 in a row is one."""
    other = ports[1]
    det = _fit(other)
    assert not [f for fs in _live(det, 5, {other}, n=17) for f in _quiet(fs, other)]
    assert [f for fs in _live(det, 5, {other}, n=25) for f in _quiet(fs, other)]


def test_a_link_never_judged_in_healthy_history_is_not_judged_by_its_silence(ports) -> None:  # type: ignore[no-untyped-def]
    """Principle 1 (its own background, not its class's): an uplink that carried 1 % of line rate through
    all of training (a polarised or spare path) now carries 40 % and marks nothing while its peers mark:
    what its queue does then is unknown, so its silence pages nothing; the one that marked in training
    and stops is still found."""
    victim, spare = ports
    run = simulate(SPEC, 80, interval_s=INTERVAL, seed=1)
    fb = FeatureBuilder(INTERVAL)
    frames = []
    for start, links in run.frames:
        _marking(links, set())
        for li in _uplinks(links):
            if (li.device, li.port) == spare:
                li.rates["in_octets"] = li.rates["out_octets"] = 0.01 * 400e9 / 8
                li.rates["ecn_marked"] = 0.0
        frames.append(fb.build(start, links))
    det = LinkDetector(interval_s=INTERVAL).fit(frames)
    found = [f for fs in _live(det, 5, {victim, spare}) for f in fs]
    assert not _quiet(found, spare)
    assert _quiet(found, victim)


def test_the_silence_record_survives_the_model_file(ports, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The record a link is judged by is part of the model: a saved and loaded detector holds it."""
    det = _fit(ports[1])
    det.save(tmp_path / "m.fwm")
    (tmp_path / "m.fwm").chmod(0o600)
    back = LinkDetector.load(tmp_path / "m.fwm")
    keys = list(ports)
    assert np.array_equal(back.silent_runs.limits(keys), det.silent_runs.limits(keys))
    assert back.silent_runs.limits(keys)[1, 0] > MIN_RUN


def test_runs_hold_through_intervals_that_cannot_judge() -> None:
    """An interval where the link is idle or its peers are silent too neither lengthens nor ends a run:
    the fit's record of a link silent 3, then unjudged 2, then silent 3 intervals is 6."""
    fit = SilenceFit()
    run = simulate(SPEC, 9, interval_s=INTERVAL, seed=1)
    fb = FeatureBuilder(INTERVAL)
    up = _uplinks(run.frames[0][1])
    victim = (up[0].device, up[0].port)
    keys: dict[tuple[str, str], int] = {}
    for i, (start, links) in enumerate(run.frames):
        _marking(links, {victim} if i != 8 else set())
        if i in (3, 4):
            for li in _uplinks(links):
                li.rates["ecn_marked"] = 0.0  # the peers are silent too: nothing to judge
        ids = np.array([keys.setdefault((li.device, li.port), len(keys)) for li in links])
        fit.add(fb.build(start, links), ids)
    runs: SilentRuns = fit.result(list(keys))
    # judged under MIN_ELIGIBLE times: no record of its own yet, only that it is silent as a habit
    assert runs.records([victim])[0, 0] == SEEN_SILENT and len(runs.record_) == 1
    assert int(fit._longest[keys[victim], 0]) == 6


def test_a_silence_nobody_can_judge_any_more_ends_its_finding(ports) -> None:  # type: ignore[no-untyped-def]
    """Principle 1 (evidence is what is seen): the uplink's silence is a finding; then every uplink falls
    silent (the load that made their queues mark is gone, so nothing judges it). Its run is held for
    UNSEEN_GRACE intervals and then ends; the finding goes once hysteresis sees that many clean intervals,
    instead of holding on an absence no peer can show any more."""
    victim, other = ports
    det = _fit(other)
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    found = []
    for i, (start, links) in enumerate(simulate(SPEC, 40, interval_s=INTERVAL, seed=5).frames):
        _marking(links, {victim} if i >= 5 else set())
        if i >= 20:
            for li in _uplinks(links):
                li.rates["ecn_marked"] = 0.0
        found.append([f for f in det.detect(fb.build(start, links)) if (f.device, f.port) == victim])
    assert all(_quiet(fs, victim) for fs in found[15:20])
    assert all(found[20:20 + UNSEEN_GRACE])
    assert not any(found[20 + UNSEEN_GRACE + det.hysteresis.clear_m:])


@pytest.mark.parametrize(("pausing", "found_it"), [(0.1, False), (1.0, True)])
def test_silence_while_the_switch_pauses_far_less_than_its_peers_is_traffic_that_fills_no_queue(
        ports, pausing: float, found_it: bool) -> None:  # type: ignore[no-untyped-def]
    """Principle 2 (load in its own terms): a queue ECN does not mark fills to the pause threshold, so a
    switch with ECN off pauses its senders at least as much as its role's other switches. A leaf whose
    ports stop marking for a long run while it pauses a tenth of what the others do carries traffic that
    fills no queue (a job of two hosts on one leaf): no finding; silent while pausing as they do, it is."""
    victim, _ = ports
    run = simulate(SPEC, 1, interval_s=INTERVAL, seed=1)
    silent = {(li.device, li.port) for li in _uplinks(run.frames[0][1]) if li.device == victim[0]}
    det = _fit(("none", "none"))
    det.switched_off = frozenset({"ecn_missing"})
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    found = []
    for i, (start, links) in enumerate(simulate(SPEC, 30, interval_s=INTERVAL, seed=5).frames):
        _marking(links, silent if i >= 5 else set())
        for li in links:
            if i >= 5 and li.device == victim[0]:
                for k in [k for k in li.rates if k.startswith("pfc_tx")]:
                    li.rates[k] *= pausing
        found.append(det.detect(fb.build(start, links)))
    quiet = [f for fs in found for f in fs if f.device == victim[0] and "gone_quiet" in f.conditions]
    assert bool(quiet) == found_it


def test_training_judges_silence_as_detection_does() -> None:
    """Principle 1 (a background is learned from what detection would judge): a leaf whose uplinks are silent
    through healthy history while it pauses a tenth of what the other leaves do carries traffic that fills no
    queue: detection does not judge such intervals, so neither does the fit. The leaf gets no record of long
    silent runs (which would hide ECN switched off on it later) and is not taken for a port seen only silent."""
    fit = SilenceFit()
    run = simulate(SPEC, 30, interval_s=INTERVAL, seed=1)
    fb = FeatureBuilder(INTERVAL)
    leaf = _uplinks(run.frames[0][1])[0].device
    silent = {(li.device, li.port) for li in _uplinks(run.frames[0][1]) if li.device == leaf}
    keys: dict[tuple[str, str], int] = {}
    for start, links in run.frames:
        _marking(links, silent)
        for li in links:  # every leaf pauses its senders now and then; this one a tenth as much
            if li.device.startswith("leaf"):
                for k in [k for k in li.rates if k.startswith("pfc_tx")]:
                    li.rates[k] = 0.0
                li.rates["pfc_tx_p3"] = 100.0 if li.device == leaf else 1000.0
        ids = np.array([keys.setdefault((li.device, li.port), len(keys)) for li in links])
        fit.add(fb.build(start, links), ids)
    runs = fit.result(list(keys))
    assert not [k for k in silent if k in runs.record_], {k: runs.record_[k] for k in silent if k in runs.record_}
    others = [k for k, li in zip(keys, run.frames[0][1], strict=True) if li.tags.get("role") == "leaf_up"
              and k not in silent]
    assert all(k in runs.record_ for k in others)  # the marking uplinks were judged: each has a record


def test_a_few_judged_intervals_prove_a_habit_of_silence_though_not_its_longest_run() -> None:
    """Principle 1 (a background from what was seen, asymmetric in what it proves): an uplink judged 15 times in
    training (under MIN_ELIGIBLE, too few for a record of its longest silent run), silent 3 in a row then marking 3
    while its peers marked. That proves its silence is sometimes its traffic's, so it is marked seen silent (the
    instant ECN-off finding spares it, as one silent each time it was seen), not left unknown."""
    fit = SilenceFit()
    run = simulate(SPEC, 15, interval_s=INTERVAL, seed=1)
    fb = FeatureBuilder(INTERVAL)
    up = _uplinks(run.frames[0][1])
    victim, steady = (up[0].device, up[0].port), (up[9].device, up[9].port)
    keys: dict[tuple[str, str], int] = {}
    for i, (start, links) in enumerate(run.frames):
        _marking(links, {victim} if (i // 3) % 2 == 0 else set())
        ids = np.array([keys.setdefault((li.device, li.port), len(keys)) for li in links])
        fit.add(fb.build(start, links), ids)
    runs = fit.result(list(keys))
    assert runs.records([victim])[0, 0] == SEEN_SILENT
    assert steady not in runs.record_  # marked every time it was seen: nothing proven either way


@pytest.mark.parametrize(("pauses_per_s", "found_it"), [(0.0, False), (3000.0, True)])
def test_a_silent_switch_is_compared_for_pausing_with_the_switches_that_mark(
        ports, pauses_per_s: float, found_it: bool) -> None:  # type: ignore[no-untyped-def]
    """Principle 2 (load judged against the links that share the situation now): the marks a silent leaf is
    judged against come from the leaves whose queues fill, so its pausing is measured against theirs, not
    against every leaf of its role. Half the leaves are idle and pause nothing (the median leaf pauses
    nothing); three mark and pause 1000/s. The leaf whose ports mark nothing while it pauses nothing carries
    traffic that fills no queue (two hosts of one job on one leaf): no finding. Pausing 3x the marking
    leaves (its queues reach the pause threshold unmarked), it is ECN off."""
    victim, _ = ports
    det = _fit(("none", "none"))
    det.switched_off = frozenset({"ecn_missing"})
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    leaves = sorted({li.device for li in _uplinks(simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1])})
    idle = set([d for d in leaves if d != victim[0]][:4])
    found = []
    for i, (start, links) in enumerate(simulate(SPEC, 30, interval_s=INTERVAL, seed=5).frames):
        silent = {(li.device, li.port) for li in _uplinks(links) if li.device == victim[0]} if i >= 5 else set()
        _marking(links, silent)
        for li in links:
            if li.device not in leaves:
                continue
            for k in [k for k in li.rates if k.startswith("pfc_tx")]:
                li.rates[k] = 0.0
            if li.device in idle:
                for k in ("in_octets", "out_octets", "in_pkts", "out_pkts", "ecn_marked"):
                    li.rates[k] = 0.0
            elif li.device == victim[0]:
                li.rates["pfc_tx_p3"] = pauses_per_s if i >= 5 else 1000.0
            else:
                li.rates["pfc_tx_p3"] = 1000.0
        found.append(det.detect(fb.build(start, links)))
    quiet = [f for fs in found for f in fs if f.device == victim[0] and "gone_quiet" in f.conditions]
    assert bool(quiet) == found_it
