"""A NIC's transport retries witness loss on the path behind it: where no switch of the fabric is watched (a
tenant sees only its hosts), they are the only witness; where switches are, they are the NIC's own only while its
own switch loses nothing beyond its background and no other NIC retries alike.

Each test names the principle it checks. The fabric is the project's simulator seen from the hosts: each leaf
port towards a host becomes that host's NIC (its far end, with the directions swapped)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from fabricwatch.detection.detector import Finding, LinkDetector
from fabricwatch.detection.path_witness import PathWitness
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.background import EVIDENCE_NAMES, BackgroundRates
from fabricwatch.models.features import FeatureBuilder, evidence_counts
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
RETRIES = ("local_ack_timeout_err", "packet_seq_err", "roce_adp_retrans")
Change = Callable[[int, list[LinkInterval]], None]


def _as_nic(li: LinkInterval) -> LinkInterval:
    """The host's end of a leaf's port towards it, as the host's exporter reports it."""
    swap = {"in": "out", "out": "in"}
    rates = {}
    for name, value in li.rates.items():
        way, _, rest = name.partition("_")
        rates[f"{swap[way]}_{rest}" if way in swap and rest in ("octets", "pkts") else name] = value
    tags = {"role": "host", "rail": li.tags.get("rail", ""), "speed": li.tags.get("speed", ""),
            "peer_device": li.device, "peer_port": li.port}
    return LinkInterval(li.start_ns, li.tags["peer_device"], li.tags["peer_port"], tags, rates)


def _frames(n: int, seed: int, change: Change, hosts_only: bool = True) -> list[tuple[int, list[LinkInterval]]]:
    out = []
    for i, (start, links) in enumerate(simulate(SPEC, n, interval_s=INTERVAL, seed=seed).frames):
        nics = [_as_nic(li) for li in links if li.tags.get("role") == "leaf_down"]
        for li in nics:
            for name in RETRIES:
                li.rates[name] = 0.0
        change(i, nics)
        # where switches are watched, they are polled every other interval (the NICs every one)
        out.append((start, nics if hosts_only or i % 2 else links + nics))
    return out


def _sporadic(rng: np.random.Generator) -> Change:
    """A third of the NICs retry a few times now and then, as healthy RoCE NICs do (a late answer, a
    reordered burst)."""
    def change(i: int, nics: list[LinkInterval]) -> None:
        for li in nics[::3]:
            if rng.random() < 0.3:
                li.rates["packet_seq_err"] = float(rng.integers(1, 4)) / INTERVAL
                li.rates["local_ack_timeout_err"] = float(rng.integers(0, 2)) / INTERVAL
    return change


def _detector(hosts_only: bool = True) -> LinkDetector:
    fb = FeatureBuilder(INTERVAL)
    frames = _frames(80, 1, _sporadic(np.random.default_rng(1)), hosts_only)
    return LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in frames])


def _run(det: LinkDetector, change: Change, hosts_only: bool = True, sporadic: bool = True
         ) -> list[tuple[int, Finding]]:
    det.reset()
    fb = FeatureBuilder(INTERVAL)
    background = _sporadic(np.random.default_rng(2)) if sporadic else (lambda i, nics: None)
    found = []

    def both(i: int, nics: list[LinkInterval]) -> None:
        background(i, nics)
        change(i, nics)

    for i, (start, links) in enumerate(_frames(40, 8, both, hosts_only)):
        found += [(i, f) for f in det.detect(fb.build(start, links))]
    return found


def _storm(i: int, nics: list[LinkInterval]) -> None:
    """From the tenth interval on, one NIC's path loses packets: its transport retries 40 times a second."""
    if i >= 10:
        nics[5].rates.update(local_ack_timeout_err=8.0, packet_seq_err=12.0, roce_adp_retrans=20.0)


@pytest.fixture(scope="module")
def hosts_only() -> LinkDetector:
    return _detector()


def test_a_nic_retrying_far_beyond_its_background_where_no_switch_is_watched_is_a_finding(
        hosts_only: LinkDetector) -> None:
    """Principle 1 (every counter is evidence against its own background) with attribution: a retry counts a
    packet lost anywhere between two endpoints; where no hop of the path is watched, the NIC is the only witness,
    and its retries far above its background are a finding on it, named by the counter, within a few intervals.
    Its healthy background (a few retries now and then on a third of the NICs) pages nothing."""
    found = _run(hosts_only, _storm)
    nic = _frames(1, 8, lambda i, nics: None)[0][1][5]
    on_it = [i for i, f in found if (f.device, f.port) == (nic.device, nic.port)]
    assert on_it and min(on_it) <= 10 + 3, on_it
    assert any(name in f.explanation for _, f in found for name in RETRIES)
    assert not [f for _, f in found if (f.device, f.port) != (nic.device, nic.port)], found[:3]


def test_retries_many_nics_share_at_once_are_the_jobs_not_each_links(hosts_only: LinkDetector) -> None:
    """Principle 2 (what many links share at once is their situation's): every NIC of a rail retrying at once (a
    drop elsewhere slowing the whole job, or the job aborting) is no finding on each of them."""
    def together(i: int, nics: list[LinkInterval]) -> None:
        if i >= 10:
            for li in nics:
                if li.tags["rail"] == "1":
                    li.rates.update(local_ack_timeout_err=2.0, packet_seq_err=4.0)

    assert not _run(hosts_only, together)


@pytest.fixture(scope="module")
def watched() -> LinkDetector:
    return _detector(hosts_only=False)


def _switch_corrupting(victim: LinkInterval, own: bool = True) -> Change:
    """From the tenth interval on, an uplink of the switch `victim` (a NIC) reaches (or, not `own`, of another
    leaf) counts corrupted frames far above its background."""
    def change(i: int, links: list[LinkInterval]) -> None:
        leaf = victim.tags["peer_device"]
        ups = sorted((li for li in links if li.tags.get("role") == "leaf_up" and (li.device == leaf) == own),
                     key=lambda li: (li.device, li.port))
        if i >= 10 and ups:  # polled every other interval
            ups[0].rates["in_errors"] = 5.0
    return change


@pytest.mark.parametrize("elsewhere", [False, True])
def test_retries_no_watched_hop_explains_are_the_nics_where_the_switches_are_watched(watched: LinkDetector,
                                                                                      elsewhere: bool) -> None:
    """Principle 1 (every counter is evidence against what it counts) with attribution: where the fabric's switches
    are watched, a loss is found at the hop that loses it, by that hop's own counters; one NIC retrying 40 times a
    second alone while its own switch loses nothing beyond its background is lost at its own end (the NIC, its
    host, its cable where no switch counts it): a finding on it, also with the switches polled every other interval,
    and also while another leaf's uplink corrupts (a large fabric loses somewhere most of the time; loss there
    reaches the NICs of many flows, not this one alone)."""
    nic = _frames(1, 8, lambda i, nics: None)[0][1][5]
    watched.reset()
    fb = FeatureBuilder(INTERVAL)
    background = _sporadic(np.random.default_rng(2))
    corrupting = _switch_corrupting(nic, own=False)

    def both(i: int, nics: list[LinkInterval]) -> None:
        background(i, nics)
        _storm(i, nics)

    found = []
    for i, (start, links) in enumerate(_frames(40, 8, both, hosts_only=False)):
        if elsewhere:
            corrupting(i, links)
        found += [(i, f) for f in watched.detect(fb.build(start, links))]
    on_it = [i for i, f in found if (f.device, f.port) == (nic.device, nic.port)]
    assert on_it and min(on_it) <= 10 + 4, found[:3]
    others = [f for _, f in found if (f.device, f.port) != (nic.device, nic.port)]
    assert not [f for f in others if "path_loss" in f.conditions] and bool(others) == elsewhere, others[:3]


def test_retries_while_the_nics_own_switch_loses_are_that_switchs(watched: LinkDetector) -> None:
    """Principle 1's attribution: the same NIC's retries while an uplink of its own switch (the one hop surely on
    its path) loses frames beyond its background are that hop's loss, found on the uplink by its own counters, not
    on the NIC (also in the intervals the switches, polled every other one, are not heard in). Loss farther away
    reaches the NICs of many flows at once, and their crowd is its."""
    watched.reset()
    fb = FeatureBuilder(INTERVAL)
    background = _sporadic(np.random.default_rng(2))
    nic = _frames(1, 8, lambda i, nics: None)[0][1][5]
    corrupting = _switch_corrupting(nic)

    def both(i: int, nics: list[LinkInterval]) -> None:
        background(i, nics)
        _storm(i, nics)

    found = []
    for i, (start, links) in enumerate(_frames(40, 8, both, hosts_only=False)):
        corrupting(i, links)
        found += watched.detect(fb.build(start, links))
    assert not [f for f in found if (f.device, f.port) == (nic.device, nic.port)], found[:3]
    assert [f for f in found if f.device == nic.tags["peer_device"] and "in_errors" in f.explanation], found[:3]


@pytest.mark.parametrize("one_machine", [False, True])
def test_retries_several_nics_show_at_once_are_a_far_hops_where_switches_are_watched(
        watched: LinkDetector, one_machine: bool) -> None:
    """Principle 2 (what links share at once is their situation's) with principle 1's attribution: a hop losing
    packets that no switch counts beyond its background (a line card dropping in a relay nobody exports) reaches
    the NICs of the flows crossing it, several at once: two NICs on different leaves (of two hosts, or of one host
    on two rails) each retrying a few hundred times an interval, where they never did, are that hop's, not two
    findings."""
    nics = _frames(1, 8, lambda i, nics: None)[0][1]
    pair = [nics[5], next(li for li in nics if li.tags["peer_device"] != nics[5].tags["peer_device"]
                          and (li.device == nics[5].device) == one_machine)]

    def far_hop(i: int, nics: list[LinkInterval]) -> None:
        if i >= 10:  # a few hundred each interval: beyond what a path of links within their budget loses
            for li in nics:
                if (li.device, li.port) in {(p.device, p.port) for p in pair}:
                    li.rates.update(packet_seq_err=200.0 / INTERVAL, local_ack_timeout_err=100.0 / INTERVAL)

    for sporadic in (False, True):  # with or without others retrying a few now and then, as healthy NICs do
        found = _run(watched, far_hop, hosts_only=False, sporadic=sporadic)
        assert not [f for _, f in found if "path_loss" in f.conditions], [f for _, f in found][:3]
    # one of them alone is its own end's
    alone = (pair[0].device, pair[0].port)
    found = _run(watched, lambda i, nics: far_hop(i, [li for li in nics if (li.device, li.port) == alone]),
                 hosts_only=False, sporadic=False)
    assert {(f.device, f.port) for _, f in found if "path_loss" in f.conditions} == {alone}

    def unlike(i: int, nics: list[LinkInterval]) -> None:  # the other retrying a hundredth as much
        far_hop(i, nics)
        for li in nics:
            if (li.device, li.port) == (pair[1].device, pair[1].port) and i >= 10:
                li.rates.update(packet_seq_err=2.0 / INTERVAL, local_ack_timeout_err=1.0 / INTERVAL)

    found = _run(watched, unlike, hosts_only=False, sporadic=False)
    assert {(f.device, f.port) for _, f in found if "path_loss" in f.conditions} == {alone}


def test_a_switchs_loss_explains_its_nics_retries_now_and_for_two_intervals_after() -> None:
    """Principle 1's attribution, in time: a switch polled every other interval, and a transport whose retry timers
    fire a while after the loss, put the retries in the intervals after the loss was counted: a loss explains its
    NICs' retries in its own interval and the two after it, not the third."""
    fb = FeatureBuilder(INTERVAL)
    witness = PathWitness()

    def frame(t: int, losing: bool) -> np.ndarray:
        leaf = LinkInterval(t, "leaf1", "p1", {"role": "leaf_down", "peer_device": "gpu1", "peer_port": "mlx5_0"},
                            {"in_octets": 1e9, "out_octets": 1e9, "in_errors": 5.0 if losing else 0.0})
        nic = LinkInterval(t, "gpu1", "mlx5_0", {"role": "host", "peer_device": "leaf1", "peer_port": "p1"},
                           {"in_octets": 1e9, "out_octets": 1e9})
        f = fb.build(t, [leaf, nic])
        counts = np.nan_to_num(np.maximum(evidence_counts(f, EVIDENCE_NAMES, INTERVAL), 0.0))
        witness.observe(f, counts, BackgroundRates(), INTERVAL)
        return witness.unexplained(f)

    judged = [bool(frame(int(k * INTERVAL * 1e9), k == 0)[1]) for k in range(5)]
    assert judged == [False, False, False, True, True]
