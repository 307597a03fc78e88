"""What many links share at one moment is what they share, not that many faults; each test names the
principle it checks. The fabric is the project's simulator (4 spines, one cable from each to each leaf,
hosts with a NIC on each of 4 rails) with counts written into chosen links."""

from __future__ import annotations

import itertools

import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.detection.explain import under_group
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.class_model import UTIL
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.groups import GROUPED, group_view, parallel_down
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
LEAF = "leaf-r0-1"


@pytest.fixture(scope="module")
def detector() -> LinkDetector:
    run = simulate(SPEC, 80, interval_s=INTERVAL, seed=1)
    fb = FeatureBuilder(INTERVAL)
    return LinkDetector(interval_s=INTERVAL).fit([fb.build(s, links) for s, links in run.frames])


def _found(detector: LinkDetector, change, condition: str, n: int = 12) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    detector.reset()
    fb = FeatureBuilder(INTERVAL)
    out: set[tuple[str, str]] = set()
    for i, (start, links) in enumerate(simulate(SPEC, n, interval_s=INTERVAL, seed=5).frames):
        for li in links:
            li.rates.setdefault("oper_status", 1.0)
            li.rates.setdefault("admin_status", 1.0)
        if i >= 3:
            change(links)
        out |= {(f.device, p["port"]) for f in detector.detect(fb.build(start, links)) for p in f.per_link()
                if condition in f.conditions}
    return out


def _waits(links: list[LinkInterval], where) -> None:  # type: ignore[no-untyped-def]
    for li in links:
        if where(li):
            li.rates["xmit_wait"] = li.rates.get("xmit_wait", 0.0) + 5e7


@pytest.mark.parametrize("spines", [1, 4])
def test_credit_waits_down_the_tiers_are_judged_against_the_parallel_links_to_the_same_switch(
        detector: LinkDetector, spines: int) -> None:
    """Principle 2: the tier above spreads the traffic towards a switch over the parallel links down to it,
    so a switch that cannot drain (a storage incast behind it) makes all of them wait: its load, however far
    the spines' ports towards it stand from their other ports. One of them waiting alone is that cable."""
    paused = {f"spine-{k}" for k in range(spines)}
    found = _found(detector, lambda links: _waits(
        links, lambda li: li.device in paused and li.tags.get("peer_device") == LEAF), "outlier_in_group")
    on_spines = {k for k in found if k[0].startswith("spine")}
    assert len(on_spines) == (1 if spines == 1 else 0), found


@pytest.mark.parametrize("leaves", [1, 6])
def test_one_uplink_waiting_on_each_of_many_switches_at_once_is_traffic_to_one_place(
        detector: LinkDetector, leaves: int) -> None:
    """Principle 2 (and 4): faults are rare and independent; the same signal standing out on one link of
    each of many switches at the same moment is what those links share (a hot destination routed over one
    uplink of each leaf), not that many faults. One uplink of one leaf standing out is that link."""
    chosen: dict[str, str] = {}

    def change(links: list[LinkInterval]) -> None:
        for li in links:
            if li.tags.get("role") == "leaf_up" and (li.device in chosen or len(chosen) < leaves):
                chosen.setdefault(li.device, li.port)
        _waits(links, lambda li: chosen.get(li.device) == li.port)

    found = _found(detector, change, "outlier_in_group")
    assert len(found) == (1 if leaves == 1 else 0), found


def test_uplinks_that_take_turns_standing_out_on_many_switches_are_one_crowd(detector: LinkDetector) -> None:
    """Principle 2: a crowd is judged over the window a finding is: an incast towards one host makes one uplink
    of each of six leaves wait, two of them steadily and four every other interval (the flows shift between
    them). At no moment do three switches hold a standing-out link for enough intervals to page, yet six take
    turns standing out within the same few intervals: what they share, no finding on the steady two."""
    chosen: dict[str, str] = {}
    turn = iter(range(1000))

    def change(links: list[LinkInterval]) -> None:
        for li in links:
            if li.tags.get("role") == "leaf_up" and (li.device in chosen or len(chosen) < 6):
                chosen.setdefault(li.device, li.port)
        now = next(turn)
        steady = sorted(chosen)[:2]
        _waits(links, lambda li: chosen.get(li.device) == li.port and (li.device in steady or now % 2 == 0))

    found = _found(detector, change, "outlier_in_group")
    assert not found, found


def test_one_interval_spikes_elsewhere_are_no_crowd_for_a_link_that_waits_throughout(detector: LinkDetector) -> None:
    """Principle 2, the other side (faults are rare, heavy tails are common): one uplink waits 5e7/s every interval
    (credit-starved), while each interval another leaf has one uplink spike once (a heavy tail, the next leaf each
    time). Those spikes stand out on many switches within a few intervals, but none of them twice: they share no
    load with the one that waits throughout, which is found."""
    ups: dict[str, list[str]] = {}
    turn = iter(range(1000))

    def change(links: list[LinkInterval]) -> None:
        for li in links:
            if li.tags.get("role") == "leaf_up":
                ups.setdefault(li.device, [])
                if li.port not in ups[li.device]:
                    ups[li.device].append(li.port)
        leaves = sorted(ups)
        victim = (leaves[0], ups[leaves[0]][0])
        now = next(turn)
        other = leaves[1 + now % (len(leaves) - 1)]
        spiking = {(other, ups[other][1])}
        _waits(links, lambda li: (li.device, li.port) == victim or (li.device, li.port) in spiking)

    found = _found(detector, change, "outlier_in_group", n=14)
    leaves = sorted(ups)
    assert (leaves[0], ups[leaves[0]][0]) in found, found


def test_a_host_whose_every_link_is_down_is_down_itself(detector: LinkDetector) -> None:
    """Principle 5 (a cable is one link; a device is its links): a host whose NICs are all down (powered off,
    not polled itself) is one event of that host, not a link left down on each leaf; while its other NICs are
    up, the one still down is left down."""
    host = next(li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=5).frames[0][1]
                if li.tags.get("role") == "leaf_down")
    name = host.tags["peer_device"]

    def down(links: list[LinkInterval], only: tuple[str, str] | None) -> None:
        for li in links:
            if li.tags.get("peer_device") == name and (only is None or (li.device, li.port) == only):
                li.rates.update(oper_status=0.0, in_octets=0.0, out_octets=0.0, in_pkts=0.0, out_pkts=0.0)

    assert not _found(detector, lambda links: down(links, None), "link_left_down")
    assert _found(detector, lambda links: down(links, (host.device, host.port)), "link_left_down") == {
        (host.device, host.port)}
    # powered on again: one NIC first, the others an interval later (a host booting) is nothing; one that
    # never comes back while the others are up is left down
    nics = sorted((li.device, li.port) for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=5).frames[0][1]
                  if li.tags.get("peer_device") == name)
    first = next(k for k in nics if k != (host.device, host.port))
    for late, expect in ((1, set()), (99, {(host.device, host.port)})):
        up_at = {k: 7 if k == first else 8 + late if k == (host.device, host.port) else 8 for k in nics}
        steps = itertools.count(1)

        def boot(links: list[LinkInterval], up_at: dict[tuple[str, str], int] = up_at,
                 steps: itertools.count[int] = steps) -> None:
            step = next(steps)
            for k, at in up_at.items():
                if step < at:
                    down(links, k)

        assert _found(detector, boot, "link_left_down", n=24) == expect


@pytest.mark.parametrize("spines", [1, 4])
def test_a_shortfall_down_the_tiers_is_judged_against_the_parallel_links_to_the_same_switch(spines: int) -> None:
    """Principle 2: the traffic down to a switch is what its hosts receive, spread over the parallel links
    from the tier above. A leaf whose hosts are drained or powered off receives nothing over any of them:
    its load, however busy the spines' other ports are. One of them carrying nothing while its parallels
    carry is a link the traffic no longer reaches."""
    idle = {f"spine-{k}" for k in range(spines)}
    start, links = simulate(SPEC, 1, interval_s=INTERVAL, seed=5).frames[0]
    for li in links:
        scale = 1e-4 if li.device in idle and li.tags.get("peer_device") == LEAF else 1.0
        for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
            li.rates[k] = (li.rates.get(k, 0.0) + 0.4 * 400e9 / 8) * scale  # every link busy but these
    frame = FeatureBuilder(INTERVAL).build(start, links)
    short = {(li.device, li.port) for i, li in enumerate(frame.links) if li.device.startswith("spine")
             and under_group(frame, i, float(frame.own_raw[i, UTIL])) is not None}
    assert len(short) == (1 if spines == 1 else 0), short


def test_a_lightly_loaded_group_says_nothing_of_a_link_it_leaves_idle() -> None:
    """Principle 2, one rule for every path: a group lightly loaded says nothing. The spines' parallel links
    towards a leaf carrying 6 % (a few flows, routed statically, in a job's evaluation pause) leave one of
    them idle now and then: no shortfall in the words that explain an anomaly either, as none for the rule."""
    start, links = simulate(SPEC, 1, interval_s=INTERVAL, seed=5).frames[0]
    for li in links:
        scale = 0.0 if li.device == "spine-0" and li.tags.get("peer_device") == LEAF else 1.0
        for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
            li.rates[k] = 0.06 * 400e9 / 8 * scale
    frame = FeatureBuilder(INTERVAL).build(start, links)
    short = {(li.device, li.port) for i, li in enumerate(frame.links) if li.device.startswith("spine")
             and under_group(frame, i, float(frame.own_raw[i, UTIL])) is not None}
    assert short == set(), short


def test_a_link_just_up_is_given_the_time_routing_takes_to_spread_traffic_onto_it(detector: LinkDetector) -> None:
    """Principle 2 (and 5): a link that comes up (a port enabled after a drain, a replaced cable) carries nothing
    until routing spreads traffic onto it (a subnet manager's sweep, ECMP converging): no shortfall against its
    busy siblings in its first intervals up. One still idle after that has left the spread."""
    chosen: dict[str, str] = {}

    def change(step: int, links: list[LinkInterval], idle_until: int) -> None:
        for li in links:
            if li.device == "spine-0" and li.tags.get("peer_device") == LEAF:
                chosen.setdefault("port", li.port)
            for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                li.rates[k] = li.rates.get(k, 0.0) + 0.3 * 400e9 / 8
            if (li.device, li.port) == ("spine-0", chosen.get("port")):
                if step < 8:  # drained and shut
                    li.rates["oper_status"] = li.rates["admin_status"] = 0.0
                if step < idle_until:
                    for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                        li.rates[k] = 0.0

    def found(idle_until: int) -> set[tuple[str, str]]:
        steps = itertools.count(1)
        detector.reset()
        fb = FeatureBuilder(INTERVAL)
        out: set[tuple[str, str]] = set()
        for start, links in simulate(SPEC, 20, interval_s=INTERVAL, seed=5).frames:
            for li in links:
                li.rates.setdefault("oper_status", 1.0)
                li.rates.setdefault("admin_status", 1.0)
            change(next(steps), links, idle_until)
            out |= {(f.device, p["port"]) for f in detector.detect(fb.build(start, links)) for p in f.per_link()
                    if "no longer reaches this link" in f.explanation}
        return out

    assert found(idle_until=10) == set()
    assert found(idle_until=99) == {("spine-0", chosen["port"])}


def test_a_hosts_nics_are_judged_against_each_other_not_against_other_hosts_behind_the_same_leaf() -> None:
    """Principle 2 (judged against the links that share its situation now): a host's NICs on every rail run one
    job, so what one NIC waits is judged against its own host's other NICs. The NICs of other hosts behind the same
    leaf run other jobs: a host whose whole job waits 50x as much as theirs is its job, not its links."""
    hosts, rails = 5, 4
    links = []
    for h in range(hosts):
        for r in range(rails):
            waits = 5e6 if h == 0 else 1e5
            links.append(LinkInterval(0, f"gpu{h}", f"mlx5_{r}",
                                      {"fabric": "roce", "role": "host", "speed": "400G",
                                       "peer_device": f"leaf-r{r}", "peer_port": f"Ethernet{h}"},
                                      {"out_octets": 0.4 * 50e9, "in_octets": 0.4 * 50e9, "xmit_wait": waits,
                                       "oper_status": 1.0, "admin_status": 1.0}))
    view = group_view(FeatureBuilder(INTERVAL).build(0, links))
    j = GROUPED.index("xmit_wait")
    first = [i for i, li in enumerate(links) if li.device == "gpu0"]
    assert all(view.group[i, j] == "links of gpu0" for i in first), view.group[first, j]
    assert view.ratio[first, j] == pytest.approx(1.0)


@pytest.mark.parametrize("down_end", ["near", "far", "none"])
def test_a_link_whose_parallel_cable_is_down_at_either_end_carries_its_share(down_end: str) -> None:
    """Principle 4 (findings at the right level): a leaf cabled twice to one spine spreads that spine's traffic over
    both; one cable down, the other carries both shares. A cable is down when either end says so: a port whose
    receive fibre is not seated is down while the far end, which still gets light, reports up; the cables' other
    ends, on the leaf, are parallel links as well. The spine's port towards another leaf shares nothing with
    them."""
    def port(device: str, name: str, far: str, far_port: str, up: float) -> LinkInterval:
        return LinkInterval(0, device, name, {"fabric": "roce", "role": "spine", "speed": "400G",
                                              "peer_device": far, "peer_port": far_port},
                            {"out_octets": 0.5 * 50e9, "in_octets": 0.5 * 50e9, "oper_status": up,
                             "admin_status": 1.0})

    links = [port("spine-03", "Et1", "leaf-1", "Et50", 1.0),
             port("spine-03", "Et2", "leaf-1", "Et51", 0.0 if down_end == "near" else 1.0),
             port("spine-03", "Et3", "leaf-2", "Et50", 1.0),
             port("leaf-1", "Et51", "spine-03", "Et2", 0.0 if down_end == "far" else 1.0),
             port("leaf-1", "Et50", "spine-03", "Et1", 1.0)]
    twins = parallel_down(FeatureBuilder(INTERVAL).build(0, links))
    down = down_end != "none"
    assert twins.tolist() == [down, False, False, False, down]


@pytest.mark.parametrize("switches", [1, 6])
def test_the_same_anomaly_on_many_machines_at_once_is_their_shared_load(detector: LinkDetector, switches: int) -> None:
    """Principle 2: faults are rare and independent. Pauses far above anything in the fit window on one
    host-facing port of each of many switches at the same moment (a job's hosts slowed together after its
    checkpoint, one NIC each) are what those ports share, not that many faults; on one switch's port alone they
    are that port's."""
    chosen: dict[str, str] = {}
    hosts: set[str] = set()

    def change(links: list[LinkInterval]) -> None:
        for li in links:  # each towards a host of its own: no one machine's traffic
            if (li.tags.get("role") == "leaf_down" and li.device not in chosen and len(chosen) < switches
                    and li.tags["peer_device"] not in hosts):
                chosen[li.device] = li.port
                hosts.add(li.tags["peer_device"])
        for li in links:
            if chosen.get(li.device) == li.port:
                li.rates["pfc_rx_p3"] = 40_000.0

    found = _found(detector, change, "anomaly")
    assert len(found) == (1 if switches == 1 else 0), found
