"""A signal is judged against the load of the direction that makes it: a switch queue marks CE on what it
sends, so a port that receives at line rate and sends nothing (a storage node's port during a read)
marks nothing and is not "ECN off"; one that sends as much and marks nothing still is.

The fabric is the project's simulator with ECN marks written onto the uplinks at 40 % load."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

from fabricwatch.detection.detector import Finding, LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder, marking_load
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.silence import MIN_RUN, UNSEEN_GRACE, silent_now
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
LINE = 400e9 / 8  # bytes/s of a 400G uplink
MARKS_PER_PKT = 4e-4  # of the packets a queue sends at 40 % of line rate


def _uplinks(links: list[LinkInterval]) -> list[LinkInterval]:
    return [li for li in links if li.tags.get("role") == "leaf_up"]


def _load(links: list[LinkInterval], receiving_only: str | None, sending_silent: str | None) -> None:
    """Every uplink sends and receives 40 % and marks what it sends; the uplinks of `receiving_only`
    receive 40 % and send 0.2 %, the uplinks of `sending_silent` send 40 % and mark nothing."""
    for li in _uplinks(links):
        out = 0.002 if li.device == receiving_only else 0.4
        li.rates["in_octets"], li.rates["out_octets"] = 0.4 * LINE, out * LINE
        li.rates["in_pkts"], li.rates["out_pkts"] = 0.4 * LINE / 4096, out * LINE / 4096
        quiet = li.device in (receiving_only, sending_silent)  # a queue sending 0.2 % marks nothing
        li.rates["ecn_marked"] = 0.0 if quiet else li.rates["out_pkts"] * MARKS_PER_PKT


Marking = Callable[[int, list[LinkInterval]], None]  # writes one interval's rates (its number, its links)


def _fitted(mark: Marking) -> LinkDetector:
    """A detector trained on 60 intervals of the simulator with `mark` written onto them."""
    fb = FeatureBuilder(INTERVAL)
    frames = []
    for i, (start, links) in enumerate(simulate(SPEC, 60, interval_s=INTERVAL, seed=1).frames):
        mark(i, links)
        frames.append(fb.build(start, links))
    return LinkDetector(interval_s=INTERVAL).fit(frames)


def _live(det: LinkDetector, n: int, mark: Marking) -> list[list[Finding]]:
    """Each interval's findings over `n` intervals of another simulated run with `mark` written on."""
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    out = []
    for i, (start, links) in enumerate(simulate(SPEC, n, interval_s=INTERVAL, seed=5).frames):
        mark(i, links)
        out.append(det.detect(fb.build(start, links)))
    return out


def _run(receiving_only: str | None, sending_silent: str | None) -> list[Finding]:
    det = _fitted(lambda i, links: _load(links, None, None))
    found = _live(det, 20, lambda i, links: _load(links, receiving_only if i >= 3 else None,
                                                   sending_silent if i >= 3 else None))
    return [f for fs in found for f in fs]


def _silent(found: list[Finding], device: str) -> list[Finding]:
    return [f for f in found if f.device == device and {"ecn_missing", "gone_quiet"} & set(f.conditions)]


def _two_leaves() -> tuple[str, str]:
    up = _uplinks(simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1])
    devices = sorted({li.device for li in up})
    return devices[0], devices[-1]


def test_a_switch_that_only_receives_is_not_ecn_off() -> None:
    """Principle 2 (load judged in its own terms): the uplinks of one leaf receive 40 % and send almost
    nothing for 17 intervals; they mark nothing, as a queue with nothing to send does. Not a finding;
    another leaf whose uplinks send 40 % and mark nothing is, as a device finding."""
    receiving, silent = _two_leaves()
    found = _run(receiving, silent)
    assert not _silent(found, receiving)
    device = [f for f in _silent(found, silent) if f.level == "device"]
    assert device and "carrying traffic" in device[0].explanation


def test_marking_load_is_what_a_switch_sends_and_what_a_nic_receives() -> None:
    """The load a mark is judged against: out_octets on a switch port, in_octets on a host NIC (it counts
    the marks it receives); the busier direction where that one is not reported."""
    fb = FeatureBuilder(INTERVAL)
    links = [
        LinkInterval(0, "leaf", "p1", {"role": "leaf_up", "speed": "400G"},
                     {"in_octets": 0.4 * LINE, "out_octets": 0.0}),
        LinkInterval(0, "gpu0", "mlx5_0", {"role": "host", "speed": "400G"},
                     {"in_octets": 0.4 * LINE, "out_octets": 0.0}),
        LinkInterval(0, "leaf", "p2", {"role": "leaf_up", "speed": "400G"}, {"in_octets": 0.3 * LINE}),
    ]
    frame = fb.build(0, links)
    assert np.allclose(marking_load(frame), [0.0, 40.0, 30.0])


def _fabric_marks(links: list[LinkInterval], quiet_towards: str | None, ecn_off: str | None,
                  first_spine: str = "") -> None:
    """Every uplink and spine port sends 40 % and marks; the ports of every spine towards `quiet_towards`
    carry traffic that fills no queue (`first_spine`'s mark nothing, the others' a mark now and then);
    `ecn_off` marks nothing at all."""
    for li in links:
        if li.tags.get("role") not in ("leaf_up", "spine"):
            continue
        li.rates["in_octets"] = li.rates["out_octets"] = 0.4 * LINE
        li.rates["in_pkts"] = li.rates["out_pkts"] = 0.4 * LINE / 4096
        quiet = li.tags.get("peer_device") == quiet_towards or li.device == ecn_off
        li.rates["ecn_marked"] = 0.0 if quiet else li.rates["out_pkts"] * MARKS_PER_PKT
        if quiet and li.device != ecn_off and li.device != first_spine:
            li.rates["ecn_marked"] = li.rates["out_pkts"] * 1e-6  # a mark now and then: a trickle, not a queue


def test_silence_shared_by_every_path_to_one_device_is_its_traffic() -> None:
    """Principle 2 (judged against the links carrying the same traffic): the ports of every spine towards
    one leaf mark nothing or next to nothing (that leaf's job sends smoothly) while the other ports at the
    same load mark: the silence is on every parallel path, so it is the traffic's: no finding. A spine
    with ECN off is silent where the other spines' ports towards the same leaves mark: found, as one
    device finding."""
    up = simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1]
    spines = sorted({li.device for li in up if li.tags.get("role") == "spine"})
    leaf = sorted({li.device for li in _uplinks(up)})[1]
    det = _fitted(lambda i, links: _fabric_marks(links, None, None))

    def live(quiet_towards: str | None, ecn_off: str | None) -> list[Finding]:
        found = _live(det, 30, lambda i, links: _fabric_marks(links, quiet_towards if i >= 3 else None,
                                                              ecn_off if i >= 3 else None, spines[0]))
        return [f for fs in found for f in fs]

    found = live(leaf, None)
    paths = [f for f in found if {"ecn_missing", "gone_quiet"} & set(f.conditions)]
    assert not paths, [(f.device, f.port, f.explanation) for f in paths]
    assert [f for f in _silent(live(None, spines[2]), spines[2]) if f.level == "device"]


@pytest.mark.parametrize("seldom", [False, True])
def test_a_switch_whose_uplinks_were_only_seen_silent_in_healthy_history_is_not_ecn_off_now(seldom: bool) -> None:
    """Principle 1 (against its own background): a leaf whose uplinks send 40 % and mark nothing all
    through training, as now (a storage leaf, 1:1, its streams never fill a queue), while the other
    leaves' uplinks mark: its silence is its normal, not ECN switched off. So too where they carried almost
    nothing through training but at a few checkpoints, silent each time (`seldom`: too few for a record,
    and silent whenever seen). A leaf whose uplinks marked with their peers all through training and stop is
    found within 2 intervals, as one device finding."""
    quiet_leaf, victim = _two_leaves()
    det = _fitted(lambda i, links: _load(links, quiet_leaf if seldom and i % 12 else None, quiet_leaf))

    def stops(i: int, links: list[LinkInterval]) -> None:
        _load(links, None, quiet_leaf)
        for li in _uplinks(links):
            if i >= 3 and li.device == victim:
                li.rates["ecn_marked"] = 0.0

    found = _live(det, 20, stops)
    assert not _silent([f for fs in found for f in fs], quiet_leaf)
    first = next(i for i, fs in enumerate(found) if [f for f in _silent(fs, victim) if f.level == "device"])
    assert first <= 3 + 2


def _uplink(device: str, port: str, far: str, marks_per_pkt: float) -> LinkInterval:
    pkts = 0.4 * LINE / 4096
    return LinkInterval(0, device, port, {"role": "leaf_up", "speed": "400G", "peer_device": far},
                        {"in_octets": 0.4 * LINE, "out_octets": 0.4 * LINE, "in_pkts": pkts, "out_pkts": pkts,
                         "ecn_marked": pkts * marks_per_pkt})


def test_a_switch_with_many_links_on_one_path_is_one_vote_on_it() -> None:
    """Principle 2 (the parallel paths are the other switches' links): leaf A has ECN off and 4 uplinks to
    spine S0; leaves B and C have one each, marking. The path's silence is A's alone, so A's links are
    judged silent, not excused as the traffic's (a median over links would be A's zeros)."""
    links = [_uplink("A", f"p{k}", "S0", 0.0) for k in range(4)]
    links += [_uplink(leaf, "p0", "S0", MARKS_PER_PKT) for leaf in ("B", "C")]
    links += [_uplink(f"L{i}", "p1", "S1", MARKS_PER_PKT) for i in range(8)]
    _, silent = silent_now(FeatureBuilder(INTERVAL).build(0, links))
    assert silent[:4, 0].all() and not silent[4:, 0].any()


def test_silence_is_judged_in_memory_that_follows_the_links() -> None:
    """20,000 links on 5,000 switches, half of them without a far-end tag (each its own path): judging
    silence holds memory for the links, not for every switch times every path (that was 0.5 GB here)."""
    links = []
    for d in range(5000):
        for k in range(4):
            li = _uplink(f"sw{d}", f"p{k}", f"far{k}", MARKS_PER_PKT * (d % 7 != 0))
            if k % 2:
                li.tags.pop("peer_device")
            links.append(li)
    frame = FeatureBuilder(INTERVAL).build(0, links)
    tracemalloc.start()
    silent_now(frame)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50e6, peak


def test_silence_is_judged_at_once_only_where_the_switch_pauses_as_its_peers_do() -> None:
    """Principle 2 (ECN off shows as pauses): a queue that is not marked fills to the pause threshold, so a switch
    with ECN off pauses its senders at least as much as the switches of its role at the same load. A leaf whose
    uplinks stop marking while it pauses a tenth of what the others do carries traffic that fills no queue at that
    moment: no finding, at once or later (a calm interval does not lengthen its silent run: once its queues fill
    unmarked it pauses as they do, and is found); the same silence while it pauses 5x the other leaves is found at
    once, as ECN off. One that pauses nothing at all is either calm too or has PFC off as well (a switch left at
    factory defaults): its queues then overflow, so it is found at once where it drops what the others pause, and
    not where it drops nothing (a partner spine drained, it carries the pod's all-reduce, which fills no queue)."""
    _, victim = _two_leaves()
    det = _fitted(lambda i, links: _load(links, None, None))

    def silent(pause_factor: float, drops: float = 0.0) -> list[list[Finding]]:
        def mark(i: int, links: list[LinkInterval]) -> None:
            _load(links, None, victim if i >= 3 else None)
            if i >= 3:
                for li in links:
                    if li.device == victim:
                        li.rates["pfc_tx_p3"] = li.rates.get("pfc_tx_p3", 0.0) * pause_factor
                        li.rates["out_discards"] = drops * li.rates.get("out_pkts", 0.0)
        return _live(det, 12, mark)

    calm = silent(0.1)
    assert not [f for fs in calm[:5] for f in _silent(fs, victim)]
    assert not [f for fs in calm for f in _silent(fs, victim)]  # nor later: while calm, its silence is the traffic's
    # pausing nothing at all and dropping: PFC is off too (a switch left at factory defaults), at once
    assert [f for fs in silent(0.0, drops=1e-3)[:5] for f in _silent(fs, victim) if f.level == "device"]
    assert not [f for fs in silent(0.0)[:5] for f in _silent(fs, victim)]
    pausing = silent(5.0)
    assert [f for fs in pausing[:5] for f in _silent(fs, victim) if f.level == "device"]


def test_marking_far_under_its_peers_while_pausing_more_is_ecn_mis_set() -> None:
    """Principle 2 (a protective signal judged by its amount, against the same load now): a leaf whose
    ports still mark, but 1/20 of what the other leaves' ports mark at the same load, while it pauses
    its senders 4x as much, has ECN set too high (its queues reach the pause threshold first): found as one
    device finding within 2 intervals. Marking as little while pausing no more than the others is a calmer
    queue, not a fault."""
    _, victim = _two_leaves()
    det = _fitted(lambda i, links: _load(links, None, None))

    def weak(pause_factor: float) -> list[list[Finding]]:
        def mark(i: int, links: list[LinkInterval]) -> None:
            _load(links, None, None)
            if i >= 3:
                for li in links:
                    if li.device == victim:
                        li.rates["pfc_tx_p3"] = li.rates.get("pfc_tx_p3", 0.0) * pause_factor
                        li.rates["ecn_marked"] = li.rates.get("ecn_marked", 0.0) / 20  # the switch's profile
        return _live(det, 10, mark)

    assert not [f for fs in weak(1.0) for f in _silent(fs, victim)]
    found = weak(4.0)
    first = next(i for i, fs in enumerate(found) if [f for f in _silent(fs, victim) if f.level == "device"])
    assert first <= 3 + 2
    device = next(f for fs in found for f in _silent(fs, victim) if f.level == "device")
    assert "next to nothing" in device.explanation and "paus" in device.explanation


def test_a_switch_with_ecn_off_stays_found_through_a_lull_that_cannot_judge_it() -> None:
    """Principle 4 and 1 (a condition of the switch, absence judged only while seen): a leaf with ECN off is found
    while its peers mark; when the whole fabric falls quiet for a moment (UNSEEN_GRACE intervals: between
    iterations) nothing can say whether it would mark, so the finding is neither cleared nor dropped from those
    intervals: one page, not one per busy phase. A longer lull is no evidence either way: the finding goes (it is
    found again at once when its peers mark). Busy in a lull on its own (its peers idle, so nothing judges it)
    and marking, its ECN works: it clears."""
    _, victim = _two_leaves()
    det = _fitted(lambda i, links: _load(links, None, None))

    def mark(lull: range, fixed_at: int = 99, alone_busy: bool = False) -> Marking:
        def write(i: int, links: list[LinkInterval]) -> None:
            off = 3 <= i < fixed_at
            _load(links, None, victim if off else None)
            for li in _uplinks(links):
                if i in lull and not (alone_busy and li.device == victim):  # 1 % of line rate: nobody marks
                    for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                        li.rates[k] *= 0.025
                    li.rates["ecn_marked"] = 0.0
                if li.device == victim and off:
                    li.rates["pfc_tx_p3"] = li.rates.get("pfc_tx_p3", 0.0) * 5.0
        return write

    def device_found(found: list[list[Finding]]) -> list[int]:
        return [i for i, fs in enumerate(found) if [f for f in _silent(fs, victim) if f.level == "device"]]

    short = range(8, 8 + UNSEEN_GRACE)
    found = device_found(_live(det, 16, mark(short)))
    assert found and found[0] < 8 and found == list(range(found[0], 16)), found
    long = range(8, 16)
    found = device_found(_live(det, 20, mark(long)))
    assert set(short) <= set(found) and not set(found) & set(range(8 + UNSEEN_GRACE, 16)), found
    alone = device_found(_live(det, 16, mark(long, fixed_at=9, alone_busy=True)))
    assert not set(alone) & set(range(9 + 3, 16)), alone


def _lone_port_idle(leaf: str) -> Marking:
    """Training where every uplink marks but `leaf`'s first, which carries next to nothing (no record of marking)."""
    def mark(i: int, links: list[LinkInterval]) -> None:
        _load(links, None, None)
        lone = sorted(li.port for li in _uplinks(links) if li.device == leaf)[0]
        for li in _uplinks(links):
            if li.device == leaf and li.port == lone:
                for k in ("in_octets", "out_octets", "in_pkts", "out_pkts", "ecn_marked"):
                    li.rates[k] *= 0.01
    return mark


def test_one_port_never_seen_marking_is_not_ecn_off_while_its_switch_marks() -> None:
    """Principle 2 (ECN is set per switch, judged against the ports that share its switch's profile): one uplink
    that carried next to nothing through healthy history (no record of whether it marks) sends 40 % now and marks
    nothing, while its leaf's other uplinks mark with their peers: that is its traffic's mix (another job's
    smooth streams), not the switch's profile; no finding. The same uplink with all of its leaf's uplinks silent
    is the switch, found at once as one device finding."""
    _, leaf = _two_leaves()

    det = _fitted(_lone_port_idle(leaf))

    def one_silent(i: int, links: list[LinkInterval]) -> None:
        _load(links, None, None)
        lone = sorted(li.port for li in _uplinks(links) if li.device == leaf)[0]
        for li in _uplinks(links):
            if li.device == leaf and li.port == lone and i >= 3:
                li.rates["ecn_marked"] = 0.0

    found = [f for fs in _live(det, 12, one_silent) for f in fs]
    assert not _silent(found, leaf), [(f.port, f.explanation) for f in _silent(found, leaf)]
    whole = [f for fs in _live(det, 12, lambda i, links: _load(links, None, leaf if i >= 3 else None)) for f in fs]
    assert [f for f in _silent(whole, leaf) if f.level == "device"]


def test_one_port_never_seen_marking_is_ecn_off_where_its_switch_pauses_beyond_the_switches_that_mark() -> None:
    """Principle 2 (load judged against the links that share the situation now): a queue ECN does not mark fills
    to the pause threshold, so a lone port without a record of marking, silent while its switch pauses 5x what the
    switches that mark do, is an unmarked queue: found. Pausing as much as the marking switches while the idle
    half of the leaves pauses nothing (the median leaf pauses nothing, so any pausing would look infinite against
    it) is its traffic's mix: no finding. Nor is the same port silent every other interval while its switch pauses
    5x (its bursts cross the marking threshold now and then, as its siblings' do more often): a profile is
    configuration, it does not come and go with the traffic, so a lone port's silence is its switch's only where it
    holds, in OUTLIER_K of the last OUTLIER_N intervals that could judge it (its peers marking only in the
    all-to-all phases of a job, two intervals in six, its silence in each of them holds; not for ever: silences
    sixteen unjudged intervals apart do not add up)."""
    _, leaf = _two_leaves()
    leaves = sorted({li.device for li in _uplinks(simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1])})
    idle = set([d for d in leaves if d != leaf][: len(leaves) // 2])

    det = _fitted(_lone_port_idle(leaf))

    def lone_silent(pausing: float, silent_at: Callable[[int], bool] = lambda i: i >= 3,
                    marking_at: Callable[[int], bool] = lambda i: True) -> Marking:
        def mark(i: int, links: list[LinkInterval]) -> None:
            _load(links, None, None)
            if not marking_at(i):  # a phase that fills no queue: nobody marks, and nothing is judged
                for li in links:
                    li.rates["ecn_marked"] = 0.0
            lone = sorted(li.port for li in _uplinks(links) if li.device == leaf)[0]
            for li in links:
                if li.device not in leaves:
                    continue
                for k in [k for k in li.rates if k.startswith("pfc_tx")]:
                    li.rates[k] = 0.0
                if li.device in idle:
                    for k in ("in_octets", "out_octets", "in_pkts", "out_pkts", "ecn_marked"):
                        li.rates[k] = 0.0
                    continue
                li.rates["pfc_tx_p3"] = 1000.0 * (pausing if li.device == leaf and i >= 3 else 1.0)
                if li.device == leaf and li.port == lone and silent_at(i):
                    li.rates["ecn_marked"] = 0.0
        return mark

    now_and_then = [f for fs in _live(det, 16, lone_silent(5.0, lambda i: i >= 3 and i % 2 == 0)) for f in fs]
    assert not _silent(now_and_then, leaf), [(f.port, f.explanation) for f in _silent(now_and_then, leaf)]
    as_they_do = [f for fs in _live(det, 12, lone_silent(1.0)) for f in fs]
    assert not _silent(as_they_do, leaf), [(f.port, f.explanation) for f in _silent(as_they_do, leaf)]
    assert _silent([f for fs in _live(det, 12, lone_silent(5.0)) for f in fs], leaf)
    # its peers mark only in the all-to-all phases, two intervals in six: it holds over the intervals that judge it
    phases = lone_silent(5.0, marking_at=lambda i: i % 6 in (0, 1))
    assert _silent([f for fs in _live(det, 26, phases) for f in fs], leaf)
    # but two silences, then 20 intervals nobody marks, then two more: what it did ten minutes ago says nothing
    apart = lone_silent(5.0, marking_at=lambda i: i < 5 or i >= 25)
    assert not _silent([f for fs in _live(det, 27, apart) for f in fs], leaf)


def test_one_silent_port_beside_marking_siblings_is_found_at_once_only_where_its_queue_shows_it_fills() -> None:
    """Principle 2 (load judged against the links that share the situation now), in a lossy fabric (PFC off: no
    pause counted anywhere): an uplink that marked whenever its peers did falls silent while its leaf's other
    uplinks still mark. Marking that follows transient hot receivers leaves one port silent for an interval now and
    then, so its silence alone is not ECN off at once (left to its record, `gone_quiet`); dropping 5x what its class
    drops now (a queue ECN does not mark overflows at its tail where no pause holds it), it is found at once; in a
    lossless fabric the same drops are not that sign (its switch's pauses would be)."""
    _, leaf = _two_leaves()

    def lossy(drops_per_s: float, silent_from: int = 3, pfc: bool = False) -> Marking:
        def mark(i: int, links: list[LinkInterval]) -> None:
            _load(links, None, None)
            lone = sorted(li.port for li in _uplinks(links) if li.device == leaf)[0]
            for li in links if not pfc else ():
                for k in [k for k in li.rates if k.startswith(("pfc", "pause"))]:
                    del li.rates[k]
            for li in _uplinks(links):
                li.rates["out_discards"] = 1.0
                if li.device == leaf and li.port == lone and i >= silent_from:
                    li.rates["ecn_marked"] = 0.0
                    li.rates["out_discards"] = drops_per_s
        return mark

    det = _fitted(lossy(1.0, silent_from=10**6))
    at_once = range(3, 3 + MIN_RUN - 1)  # before the silent run could pass any record
    quiet = _live(det, 12, lossy(1.0))
    assert not [f for i in at_once for f in _silent(quiet[i], leaf)]
    dropping = _live(det, 12, lossy(5.0))
    assert [f for i in at_once for f in _silent(dropping[i], leaf)]
    # where PFC holds the queue, drops are not its sign of filling (its switch's pauses are): not at once
    held = _live(_fitted(lossy(1.0, silent_from=10**6, pfc=True)), 12, lossy(5.0, pfc=True))
    assert not [f for i in at_once for f in _silent(held[i], leaf)]


def _with_nics(links: list[LinkInterval], quiet_host: str | None) -> list[LinkInterval]:
    """The simulator's fabric with every leaf host port sending 40 % and marking, and the host NIC behind it
    (role host: it counts the marks it receives) receiving as much and counting its marks; `quiet_host`'s job
    crosses no filling queue: its NICs and the leaf ports facing them mark nothing."""
    _load(links, None, None)
    nics = []
    for li in [li for li in links if li.tags.get("role") == "leaf_down"]:
        pkts = 0.4 * LINE / 4096
        quiet = li.tags.get("peer_device") == quiet_host
        marks = 0.0 if quiet else pkts * MARKS_PER_PKT
        li.rates.update(in_octets=0.4 * LINE, out_octets=0.4 * LINE, in_pkts=pkts, out_pkts=pkts, ecn_marked=marks)
        nics.append(LinkInterval(li.start_ns, li.tags["peer_device"], li.tags["peer_port"],
                                 {"fabric": "roce", "role": "host", "speed": "400G", "peer_device": li.device,
                                  "peer_port": li.port},
                                 {"in_octets": 0.4 * LINE, "out_octets": 0.4 * LINE, "in_pkts": pkts,
                                  "out_pkts": pkts, "ecn_marked": marks}))
    return links + nics


def test_a_host_whose_job_crosses_no_filling_queue_is_not_ecn_off() -> None:
    """Principle 2 (a queue is judged by its own counters): ECN is set and counted on the switches; a host NIC
    counts the marks it receives, a witness of the queues its traffic crossed, not of a profile of its own. A host
    whose job fills no queue (a two-node stream) receives no marks on any of its NICs while the other hosts'
    NICs do: that is no finding on the host, nor on the leaf ports facing it (one silent port beside marking
    siblings, nothing filling). The leaf port's own count says what its queue does, so the NIC behind a port
    that reports marks is not judged by its silence; behind one that does not, it is the only witness and is."""
    fb = FeatureBuilder(INTERVAL)
    frames = [fb.build(start, _with_nics(links, None))
              for start, links in simulate(SPEC, 60, interval_s=INTERVAL, seed=1).frames]
    det = LinkDetector(interval_s=INTERVAL).fit(frames)
    host = "node003"
    fb = FeatureBuilder(INTERVAL)
    found = [f for i, (start, links) in enumerate(simulate(SPEC, 12, interval_s=INTERVAL, seed=5).frames)
             for f in det.detect(fb.build(start, _with_nics(links, host if i >= 3 else None)))]
    assert not _silent(found, host), [(f.port, f.level, f.explanation) for f in _silent(found, host)]
    assert not [f for f in found if {"ecn_missing", "gone_quiet"} & set(f.conditions)]

    links = _with_nics(simulate(SPEC, 1, interval_s=INTERVAL, seed=5).frames[0][1], host)
    for li in links:
        if li.tags.get("role") == "leaf_down" and li.tags.get("peer_device") == host:
            del li.rates["ecn_marked"]  # its switch port does not count marks: the NIC is the only witness
    frame = FeatureBuilder(INTERVAL).build(0, links)
    judged, silent = silent_now(frame)
    nic = [i for i, li in enumerate(links) if li.device == host]
    assert nic and judged[nic, 0].all() and silent[nic, 0].all()


def test_a_port_silent_for_long_in_a_lossy_fabric_is_ecn_off_only_while_its_queue_drops_beyond_its_peers() -> None:
    """Principle 2 (load judged against the links that share the situation now), in a lossy fabric (no pause
    counted anywhere, its marking peers dropping a little at their tails): an uplink that marked with its peers
    falls silent for 20 intervals while dropping nothing. A queue that ECN does not mark fills past its peers',
    and with no pause to hold it, overflows: one that drops nothing while its peers drop is not filling (marking
    that follows transient hot receivers leaves a port silent for runs), so its silence is not judged: no
    finding, however long. Silent and dropping as its peers do, it is judged by its record (`gone_quiet`), as
    where no port drops at all (a lossless fabric without pause counters: nothing says how its queue fills)."""
    _, leaf = _two_leaves()

    def lossy(silent_drops: float, class_drops: float, silent_from: int = 3) -> Marking:
        def mark(i: int, links: list[LinkInterval]) -> None:
            _load(links, None, None)
            lone = sorted(li.port for li in _uplinks(links) if li.device == leaf)[0]
            for li in links:
                for k in [k for k in li.rates if k.startswith(("pfc", "pause"))]:
                    del li.rates[k]
            for li in _uplinks(links):
                li.rates["out_discards"] = class_drops
                if li.device == leaf and li.port == lone and i >= silent_from:
                    li.rates["ecn_marked"] = 0.0
                    li.rates["out_discards"] = silent_drops
        return mark

    det = _fitted(lossy(1.0, 1.0, silent_from=10**6))
    not_filling = [f for fs in _live(det, 24, lossy(0.0, 1.0)) for f in _silent(fs, leaf)]
    assert not not_filling, [(f.port, f.explanation) for f in not_filling]
    assert [f for fs in _live(det, 24, lossy(1.0, 1.0)) for f in _silent(fs, leaf) if "gone_quiet" in f.conditions]
    det = _fitted(lossy(0.0, 0.0, silent_from=10**6))
    assert [f for fs in _live(det, 24, lossy(0.0, 0.0)) for f in _silent(fs, leaf) if "gone_quiet" in f.conditions]


def test_a_few_silent_ports_among_many_marking_ones_are_not_their_switch_at_once() -> None:
    """Principle 4 (a finding at the level of its cause): ECN is set per switch, so a switch with ECN off leaves
    every port it could be judged on silent. Three of a leaf's 16 host ports falling silent (each with a record of
    marking whenever judged) while the other 13 mark with their peers is those ports' traffic (receivers that are
    not hot now), not the switch: no device finding at once. The whole leaf silent is, at once."""
    fb = FeatureBuilder(INTERVAL)
    frames = [fb.build(start, _with_nics(links, None))
              for start, links in simulate(SPEC, 60, interval_s=INTERVAL, seed=1).frames]
    det = LinkDetector(interval_s=INTERVAL).fit(frames)
    leaf = sorted({li.device for li in _uplinks(simulate(SPEC, 1, interval_s=INTERVAL, seed=1).frames[0][1])})[1]

    def live(ports: int) -> list[list[Finding]]:
        det.reset()
        fb = FeatureBuilder(INTERVAL)
        out = []
        for i, (start, links) in enumerate(simulate(SPEC, 3 + MIN_RUN - 1, interval_s=INTERVAL, seed=5).frames):
            links = _with_nics(links, None)
            down = sorted((li for li in links if li.device == leaf), key=lambda li: li.port)[:ports]
            for li in down if i >= 3 else ():
                li.rates["ecn_marked"] = 0.0
            out.append(det.detect(fb.build(start, links)))
        return out

    few = [f for fs in live(3) for f in _silent(fs, leaf) if f.level == "device"]
    assert not few, [(f.ports, f.explanation) for f in few]
    assert [f for fs in live(20) for f in _silent(fs, leaf) if f.level == "device"]


def test_a_port_group_marking_little_under_an_incast_while_its_switch_marks_is_not_ecn_mis_set() -> None:
    """Principle 4 (a finding at the level of its cause), against `test_marking_far_under_its_peers_while_pausing_
    more_is_ecn_mis_set`: a leaf's uplinks marking 1/20 of what their peers mark while it pauses 4x (an incast
    towards the ports they feed: their class's marking lifted by it), while its 16 host ports mark with theirs, is
    the incast, not a profile set too high: a switch's threshold shows on most of its ports, whatever their role."""
    fb = FeatureBuilder(INTERVAL)
    frames = [fb.build(start, _with_nics(links, None))
              for start, links in simulate(SPEC, 60, interval_s=INTERVAL, seed=1).frames]
    det = LinkDetector(interval_s=INTERVAL).fit(frames)
    _, leaf = _two_leaves()
    fb = FeatureBuilder(INTERVAL)
    found = []
    for i, (start, links) in enumerate(simulate(SPEC, 3 + MIN_RUN - 1, interval_s=INTERVAL, seed=5).frames):
        links = _with_nics(links, None)
        for li in [li for li in links if li.device == leaf] if i >= 3 else ():
            li.rates["pfc_tx_p3"] = li.rates.get("pfc_tx_p3", 0.0) * 4.0
            if li.tags.get("role") == "leaf_up":
                li.rates["ecn_marked"] = li.rates["ecn_marked"] / 20
        found += [f for f in _silent(det.detect(fb.build(start, links)), leaf) if f.level == "device"]
    assert not found, [(f.ports, f.explanation) for f in found]


def test_a_switch_whose_congested_ports_mark_as_their_peers_do_is_not_ecn_mis_set_by_its_others() -> None:
    """Principle 4 (a finding at the level of its cause): a switch pausing 4x its peers while most of its ports
    mark 1/20 of what theirs do is ECN set too high only where none of its queues marks as their peers do. A
    storage leaf at a checkpoint: the three ports feeding the storage nodes mark 3x their peers (their queues
    fill, ECN marks them), the pauses it sends its senders come from those queues, and its other ports, whose
    own queues do not fill, mark little: no finding. Where no port marks as its peers do, it is found."""
    fb = FeatureBuilder(INTERVAL)
    frames = [fb.build(start, _with_nics(links, None))
              for start, links in simulate(SPEC, 60, interval_s=INTERVAL, seed=1).frames]
    det = LinkDetector(interval_s=INTERVAL).fit(frames)
    _, leaf = _two_leaves()

    def found(congested: int) -> list[Finding]:
        det.reset()
        fb = FeatureBuilder(INTERVAL)
        out = []
        for i, (start, links) in enumerate(simulate(SPEC, 3 + MIN_RUN - 1, interval_s=INTERVAL, seed=5).frames):
            links = _with_nics(links, None)
            ports = sorted((li for li in links if li.device == leaf), key=lambda li: li.port)
            for n, li in enumerate(ports if i >= 3 else ()):
                li.rates["pfc_tx_p3"] = li.rates.get("pfc_tx_p3", 0.0) * 4.0
                li.rates["ecn_marked"] = li.rates["ecn_marked"] * (3.0 if n < congested else 1 / 20)
            out += [f for f in _silent(det.detect(fb.build(start, links)), leaf) if f.level == "device"]
        return out

    assert not found(3), [(f.ports, f.explanation) for f in found(3)]
    assert found(0)


def _witnessed_at_nics(links: list[LinkInterval], victim: str | None, pause_factor: float,
                       fewer: float = 20.0, idle_behind: bool = False) -> list[LinkInterval]:
    """Switches that export no ECN counter (EOS and Onyx over SNMP): every leaf's host port sends 40 % and
    pauses its host a little; each host's NIC behind it receives that 40 % and counts the CE marks that arrive.
    The NICs behind `victim` receive 1/`fewer` of the marks, and `victim` pauses `pause_factor` times as much;
    with `idle_behind`, one host behind every leaf is idle (0.1 %), a few of its few packets marked (three times the
    share its busy peers see)."""
    nics = []
    idle: set[str] = set()
    for li in links:
        li.rates.pop("ecn_marked", None)
        if li.tags.get("role") != "leaf_down":
            continue
        share = 0.4
        if idle_behind and li.device not in idle:
            idle.add(li.device)
            share = 0.001
        pkts = share * LINE / 4096
        li.rates["out_octets"], li.rates["out_pkts"] = share * LINE, pkts
        li.rates["pfc_tx_p3"] = 50.0 * (pause_factor if li.device == victim else 1.0)
        marks = pkts * MARKS_PER_PKT / (fewer if li.device == victim and share > 0.01 else 1 / 3 if share < 0.01 else 1)
        nics.append(LinkInterval(li.start_ns, li.tags["peer_device"], li.tags["peer_port"],
                                 {"fabric": "roce", "role": "host", "peer_device": li.device, "peer_port": li.port,
                                  "speed": "400G"},
                                 {"in_octets": share * LINE, "in_pkts": pkts, "out_octets": 0.01 * LINE,
                                  "out_pkts": pkts / 40, "ecn_marked": marks, "pfc_rx_p3": li.rates["pfc_tx_p3"]}))
    return links + nics


@pytest.mark.parametrize(("fewer", "idle_behind"), [(20.0, False), (4.0, False), (4.0, True)])
def test_a_switch_that_counts_no_marks_is_witnessed_by_the_nics_its_marks_reach(fewer: float,
                                                                                idle_behind: bool) -> None:
    """Principle 2 (a protective signal judged by its amount, against the same load now), where a switch exports
    no ECN counter: the CE marks its queues set are counted where they arrive, at the receiving NICs. A leaf
    whose hosts' NICs receive 1/20 of the marks the NICs behind the other leaves receive at the same load,
    while it pauses its hosts 4x as much, has ECN set too high: its NICs are found within 3 intervals. A NIC
    counts the marks of its whole path, the spines' too, so behind a leaf that marks nothing it still receives
    what they mark: a quarter of its peers' is as clear, where the leaf pauses 4x as much. Receiving as few
    marks behind a leaf that pauses no more than the others is a calmer queue. An idle host behind it, a few of its
    few packets marked, says nothing of its queues (a port marking as its peers do shows its profile marks only
    where it carries traffic)."""
    _, victim = _two_leaves()
    fb = FeatureBuilder(INTERVAL)
    frames = [fb.build(start, _witnessed_at_nics(links, None, 1.0, idle_behind=idle_behind))
              for start, links in simulate(SPEC, 60, interval_s=INTERVAL, seed=1).frames]
    det = LinkDetector(interval_s=INTERVAL).fit(frames)

    def run(pause_factor: float) -> list[list[Finding]]:
        det.reset()
        fb = FeatureBuilder(INTERVAL)
        return [det.detect(fb.build(start, _witnessed_at_nics(
            links, victim if i >= 3 else None, pause_factor, fewer, idle_behind)))
                for i, (start, links) in enumerate(simulate(SPEC, 10, interval_s=INTERVAL, seed=5).frames)]

    def behind(found: list[list[Finding]]) -> list[int]:
        return [i for i, fs in enumerate(found) for f in fs
                if f.peer is not None and f.peer[0] == victim and "ecn_missing" in f.conditions]

    assert not behind(run(1.0))
    found = behind(run(4.0))
    assert found and min(found) <= 3 + 3, found


@pytest.mark.parametrize(("pauses_per_s", "found"), [(1 / INTERVAL, False), (3 / INTERVAL, False), (50.0, True)])
def test_a_switch_pausing_more_than_its_peers_is_a_count_beyond_chance_not_a_ratio_of_near_zeros(
        pauses_per_s: float, found: bool) -> None:
    """Principle 1 (a rate is evidence only where its count is significantly above what its peers' rate
    predicts): no leaf pauses while the fabric's load marks; one leaf's ports mark 1/20 of what their peers do
    (a checkpoint's incast spreads its marks unevenly over a storage leaf's ports). One or three pause frames
    in an interval from that leaf are "more than its peers" only as a ratio over zero: no finding. Pausing 50/s
    on every port while marking so little is its queues reaching the pause threshold first: ECN set too high."""
    _, victim = _two_leaves()

    def mark(i: int, links: list[LinkInterval]) -> None:
        _load(links, None, None)
        for li in links:
            for k in [k for k in li.rates if k.startswith("pfc_tx")]:
                li.rates[k] = 0.0
        ports = sorted((li for li in links if li.device == victim), key=lambda li: li.port)
        for n, li in enumerate(ports if i >= 3 else ()):
            li.rates["ecn_marked"] = li.rates.get("ecn_marked", 0.0) / 20
            li.rates["pfc_tx_p3"] = pauses_per_s if pauses_per_s >= 1 or n == 0 else 0.0

    det = _fitted(mark)
    live = [f for fs in _live(det, 10, mark) for f in _silent(fs, victim) if f.level == "device"]
    assert bool(live) == found, [(f.ports, f.explanation) for f in live]


def test_ports_whose_role_is_unknown_have_no_peers_to_be_silent_beside() -> None:
    """Principle 2 (a link is judged against the links that share its situation): where nothing says what a port
    faces (no role tag, no far end in a tag, a description or LLDP), a spine's downlinks and the leaves' host ports
    fall in one class, and a spine marking a twentieth of what leaves facing hosts mark is no switch with ECN set
    too high. Silence is judged only where the role says who the peers are; the same ports with their role
    are."""
    def port(device: str, k: int, marks_per_pkt: float, role: str | None) -> LinkInterval:
        li = _uplink(device, f"p{k}", "", marks_per_pkt)
        li.tags.pop("peer_device")
        li.tags.pop("role")
        if role:
            li.tags["role"] = role
        return li

    for role in (None, "leaf_up"):
        links = [port("spine1", k, 0.0, role) for k in range(4)]
        links += [port(f"leaf{d}", k, MARKS_PER_PKT, role) for d in range(4) for k in range(4)]
        _, silent = silent_now(FeatureBuilder(INTERVAL).build(0, links))
        assert silent[:4, 0].all() == (role is not None) and not silent[4:, 0].any()
