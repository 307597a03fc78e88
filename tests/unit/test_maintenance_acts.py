"""Principle 5 (state is a signal, and an operator's act is not a fault):
- a link whose traffic was moved off before it went down once and came back is maintenance (a drained
  host's NIC firmware update), not a flap; the same single bounce under traffic is a warning, and a
  drained link that goes down again and again is still a flap;
- a cable is one link: a port down towards a switch that restarted is that switch's event until the
  switch has been back long enough to train its links; one still down after that is left down."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fabricwatch.detection.detector import Finding, LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
LINE = 400e9 / 8

Script = Callable[[int, LinkInterval], LinkInterval | None]  # interval number, link -> what is reported


def _run(script: Script, n: int = 16) -> list[list[Finding]]:
    det = LinkDetector(interval_s=INTERVAL)  # rules and state need no model
    fb = FeatureBuilder(INTERVAL)
    out = []
    for i, (start, links) in enumerate(simulate(SPEC, n, interval_s=INTERVAL, seed=2).frames):
        reported = []
        for li in links:
            li.rates.setdefault("oper_status", 1.0)
            li.rates.setdefault("admin_status", 1.0)
            kept = script(i, li)
            if kept is not None:
                reported.append(kept)
        out.append(det.detect(fb.build(start, reported)))
    return out


def _host_port() -> tuple[str, str, str]:
    li = next(li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1]
              if li.tags.get("role") == "leaf_down")
    return li.device, li.port, li.tags["peer_device"]


def _bounces(drained: bool, at: tuple[int, ...], drained_from: int = 8, left: float = 0.0,
             until: int | None = None) -> dict[int, set[str]]:
    """Per interval, the conditions on a host's link that bounces at `at`; with `drained`, the host's links on
    every rail carry `left` of their traffic from `drained_from` to `until` (default: one after the last bounce)."""
    device, port, host = _host_port()
    end = max(at) + 1 if until is None else until

    def script(i: int, li: LinkInterval) -> LinkInterval:
        if li.tags.get("peer_device") == host and drained and drained_from <= i <= end:
            for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                li.rates[k] *= left
        if (li.device, li.port) == (device, port) and i in at:
            li.rates["link_transitions"] = 2 / INTERVAL
        return li

    return {i: {c for f in fs if (f.device, f.port) == (device, port) for c in f.conditions}
            for i, fs in enumerate(_run(script, n=18))}


def _flapped(found: dict[int, set[str]]) -> list[int]:
    return [i for i, cs in found.items() if "flap" in cs]


def test_a_drained_link_that_bounces_once_is_maintenance() -> None:
    assert _flapped(_bounces(drained=True, at=(10,))) == []
    # its host drained in the interval before it went down, a third of the traffic still on its links then
    assert _flapped(_bounces(drained=True, at=(10,), drained_from=9, left=0.3)) == []
    assert _flapped(_bounces(drained=False, at=(10,)))
    # down and up again and again is a flap, however idle the link is between its bounces
    assert _flapped(_bounces(drained=True, at=(10, 11, 12)))
    # a link that bounced a few minutes ago and bounces again, its routes withdrawn since, is not drained
    assert [i for i in _flapped(_bounces(drained=True, at=(10, 14), until=17)) if i >= 14]
    # nothing known of a link before its first bounce: not a drain
    assert _flapped(_bounces(drained=True, at=(2,), drained_from=0))


def test_a_port_towards_a_restarting_switch_waits_for_it_to_train_its_links() -> None:
    up = [li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1] if li.tags.get("role") == "leaf_up"]
    leaf_port = up[0]
    spine = leaf_port.tags["peer_device"]

    def restart(trains_until: int) -> Script:
        def script(i: int, li: LinkInterval) -> LinkInterval | None:
            if li.device == spine and 3 <= i <= 6:
                return None  # unreachable while it reboots
            towards = (li.device, li.port) == (leaf_port.device, leaf_port.port) or (
                li.device == spine and li.port == leaf_port.tags["peer_port"])
            if 3 <= i < trains_until and towards:
                li.rates["oper_status"] = 0.0  # down with the switch; back with it, this one trains a little later
                for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                    li.rates[k] = 0.0
            return li
        return script

    def left_down(found: list[list[Finding]]) -> list[int]:
        return [i for i, fs in enumerate(found) for f in fs
                if f.device == leaf_port.device and f.port == leaf_port.port and "link_left_down" in f.conditions]

    # back at interval 7 with its other ports up, the one towards the leaf up one interval later: nothing
    assert left_down(_run(restart(trains_until=8))) == []
    # back at 7 with its other ports, this one never again: left down, once the switch had time to train it
    assert left_down(_run(restart(trains_until=99), n=18))


def test_a_switch_bringing_its_ports_up_one_after_another_is_still_training_them() -> None:
    """Principle 5 (a restart is an act): a switch back from a reboot brings its ports up over minutes, one
    after another, however many polls that is; while its ports keep coming up, one still down is in the queue,
    not left down. Once they stop coming up, one still down is left down."""
    spine = "spine-1"
    ports = {li.port: li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1] if li.device == spine}
    towards = sorted(ports)
    last = towards[-1]
    cable = {f"{spine}:{last}", f"{ports[last].tags['peer_device']}:{ports[last].tags['peer_port']}"}

    def restart(last_up: int) -> Script:
        def script(i: int, li: LinkInterval) -> LinkInterval | None:
            if li.device == spine and 3 <= i <= 6:
                return None  # unreachable while it reboots
            here = li.port if li.device == spine else li.tags.get("peer_port", "") \
                if li.tags.get("peer_device") == spine else None
            if here is None:
                return li
            # back at 7, its ports up a few at a time over 6 intervals, `last` at `last_up`
            up_at = last_up if here == last else 7 + towards.index(here) % 6
            if 3 <= i < up_at:
                li.rates["oper_status"] = 0.0
                for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                    li.rates[k] = 0.0
            return li
        return script

    def left_down(found: list[list[Finding]]) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for i, fs in enumerate(found):
            for f in fs:
                if "link_left_down" in f.conditions:
                    out.setdefault(f"{f.device}:{f.port}", []).append(i)
        return out

    assert left_down(_run(restart(last_up=12), n=18)) == {}
    stuck = left_down(_run(restart(last_up=99), n=22))
    assert stuck and set(stuck) <= cable, stuck


def _shut_then_restart(shut_at: int, enabled_at: int | None, restart_at: int | None, n: int) -> dict[int, set[str]]:
    """Per interval, the conditions on a leaf uplink an operator shut at `shut_at` (enabled again at
    `enabled_at`); its leaf unreachable for 3 intervals from `restart_at`, then back with its other links up."""
    leaf_port = next(li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1]
                     if li.tags.get("role") == "leaf_up")
    leaf, port, spine, spine_port = leaf_port.device, leaf_port.port, leaf_port.tags["peer_device"], \
        leaf_port.tags["peer_port"]
    gone = range(restart_at, restart_at + 3) if restart_at is not None else range(0)

    def script(i: int, li: LinkInterval) -> LinkInterval | None:
        if li.device == leaf and i in gone:
            return None
        shut = shut_at <= i and (enabled_at is None or i < enabled_at)
        if shut and (li.device, li.port) in ((leaf, port), (spine, spine_port)):
            li.rates["oper_status"] = 0.0
            li.rates["admin_status"] = 0.0 if li.device == leaf else 1.0
            for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                li.rates[k] = 0.0
        return li

    return {i: {c for f in fs if (f.device, f.port) in ((leaf, port), (spine, spine_port)) for c in f.conditions}
            for i, fs in enumerate(_run(script, n=n))}


def test_a_port_shut_for_its_switchs_restart_and_not_enabled_with_the_rest_is_left_shut() -> None:
    """Principle 5 (state is a signal): a port shut for a maintenance that restarts its switch is part of that
    maintenance. Once the switch is back and its other links are up, one still shut was left shut (its
    re-enable forgotten): a warning. A port shut on a running switch, or enabled again after the restart,
    or shut long before it (kept shut for its own reason), or already shut when first seen, stays planned."""
    def found(**kw: object) -> list[int]:
        return [i for i, cs in _shut_then_restart(**kw).items() if "left_shut" in cs]  # type: ignore[arg-type]

    left = found(shut_at=4, enabled_at=None, restart_at=7, n=24)
    assert left and min(left) <= 10 + 4 + 2, left  # back at 10: after its links train and DOWN_INTERVALS
    assert found(shut_at=4, enabled_at=None, restart_at=None, n=24) == []
    assert found(shut_at=4, enabled_at=11, restart_at=7, n=24) == []
    # shut two hours before the restart: kept shut for a reason of its own
    assert found(shut_at=2, enabled_at=None, restart_at=2 + 240, n=260) == []
    # shut when first seen: when, and why, nobody here saw (an unused port)
    assert found(shut_at=0, enabled_at=None, restart_at=5, n=24) == []


def test_a_switch_back_from_a_restart_settles_before_its_links_are_judged() -> None:
    """Principle 5 (a restart is an act): a spine back from being unreachable brings its traffic back over a
    few intervals; one of its ports still carrying next to nothing while its others carry again is the
    restart settling (as after a reboot whose bounces were seen), not a link the traffic no longer reaches."""
    fb = FeatureBuilder(INTERVAL)
    det = LinkDetector(interval_s=INTERVAL).fit(
        [fb.build(start, links) for start, links in simulate(SPEC, 60, interval_s=INTERVAL, seed=1).frames])
    det.reset()
    spine_port = next(li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1]
                      if li.tags.get("role") == "spine")

    def script(i: int, li: LinkInterval) -> LinkInterval | None:
        if li.device == spine_port.device and 3 <= i <= 6:
            return None  # unreachable while it reboots
        if (li.device, li.port) == (spine_port.device, spine_port.port) and 7 <= i <= 9:
            for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                li.rates[k] *= 1e-4  # its share of the traffic not back yet
        return li

    fb = FeatureBuilder(INTERVAL)
    found = []
    for i, (start, links) in enumerate(simulate(SPEC, 12, interval_s=INTERVAL, seed=2).frames):
        reported = [kept for li in links if (kept := script(i, li)) is not None]
        found += [f for f in det.detect(fb.build(start, reported)) if f.device == spine_port.device]
    assert not found, [(f.port, f.explanation) for f in found]


def test_a_link_raised_before_its_far_switch_went_down_says_nothing_of_that_switch_s_event(
        monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Principle 5 (a cable is one link): a link whose score kept it raised (hysteresis) has, once its far
    switch is unreachable and the link idle with it, nothing of its own to say: what it shows then is that
    switch's event, and hysteresis must not carry it into a finding."""
    import fabricwatch.detection.detector as ld

    monkeypatch.setattr(ld, "explain", lambda frame, i, **kw: ("util_pct 0% while its group carries 20%", []))
    fb = FeatureBuilder(INTERVAL)
    fitted = LinkDetector(interval_s=INTERVAL).fit(
        [fb.build(start, links) for start, links in simulate(SPEC, 60, interval_s=INTERVAL, seed=1).frames])
    uplink = next(li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1]
                  if li.tags.get("role") == "leaf_up")
    far = uplink.tags["peer_device"]
    pattern = {2: 3.0, 3: 3.0}  # over the threshold twice (raised), then quiet

    class Scripted(LinkDetector):
        tick = 0

        def score(self, frame):  # type: ignore[no-untyped-def]
            scores = np.zeros(len(frame.links))
            for k, li in enumerate(frame.links):
                if (li.device, li.port) == (uplink.device, uplink.port):
                    scores[k] = pattern.get(self.tick, 0.0)
            self.tick += 1
            return scores

    det = Scripted(interval_s=INTERVAL)
    det.models = fitted.models
    found = {}
    for i, (start, links) in enumerate(simulate(SPEC, 8, interval_s=INTERVAL, seed=2).frames):
        reported = []
        for li in links:
            if li.device == far and i >= 4:
                continue  # the far switch is unreachable from interval 4
            if (li.device, li.port) == (uplink.device, uplink.port) and i >= 4:
                li.rates["oper_status"] = 0.0
                for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                    li.rates[k] = 0.0
            reported.append(li)
        found[i] = [f for f in det.detect(fb.build(start, reported))
                    if (f.device, f.port) == (uplink.device, uplink.port)]
    assert found[3]  # raised on its own scores
    assert not any(found[i] for i in range(4, 8)), found


def test_a_switch_polled_slower_than_the_interval_is_not_back_from_a_restart_at_each_poll() -> None:
    """A restart is a silence longer than the device's own cadence: a switch whose collector polls it every
    4th interval comes back at each poll by its cadence; taking that for a restart would settle its links
    for good. Its flapping link is found."""
    up = next(li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1]
              if li.tags.get("role") == "spine")

    def script(i: int, li: LinkInterval) -> LinkInterval | None:
        if li.device != up.device:
            return li
        if i % 4:
            return None  # polled every 4th interval
        if li.port == up.port and i >= 24:
            li.rates["link_transitions"] = 4 / INTERVAL  # down and up twice between polls, poll after poll
        return li

    found = _run(script, n=40)
    assert [i for i, fs in enumerate(found) for f in fs if (f.device, f.port) == (up.device, up.port)
            and "flap" in f.conditions]


def _shut_together(enabled: dict[int, int | None], shut_at: dict[int, int], n: int = 30,
                   leaves: int = 1) -> dict[int, list[int]]:
    """Per uplink k (shut at `shut_at[k]`, enabled again at `enabled[k]`, None: never) of one leaf, or of
    `leaves` leaves in turn: the intervals it was found left shut in."""
    ups = [li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1]
           if li.tags.get("role") == "leaf_up"]
    devices = list(dict.fromkeys(li.device for li in ups))[:leaves]
    per_leaf = [[li for li in ups if li.device == d] for d in devices]
    chosen = [per_leaf[k % leaves][k // leaves] for k in range(len(shut_at))]
    ends = [((li.device, li.port), (li.tags["peer_device"], li.tags["peer_port"])) for li in chosen]

    def script(i: int, li: LinkInterval) -> LinkInterval | None:
        for k, (near, far) in enumerate(ends):
            end = enabled.get(k)
            if shut_at[k] <= i and (end is None or i < end) and (li.device, li.port) in (near, far):
                li.rates["oper_status"] = 0.0
                li.rates["admin_status"] = 0.0 if (li.device, li.port) == near else 1.0
                for name in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                    li.rates[name] = 0.0
        return li

    found = _run(script, n=n)
    return {k: [i for i, fs in enumerate(found) for f in fs
                if (f.device, f.port) == near and "left_shut" in f.conditions]
            for k, (near, _) in enumerate(ends)}


def test_a_port_shut_with_others_and_not_enabled_with_them_is_left_shut() -> None:
    """Principle 5 (an act is over when what it acted on is back): uplinks an operator shut together for one
    maintenance, on a switch that keeps running, are planned while they are shut. Once the others of that act
    are enabled again, one still shut a few intervals later had its re-enable forgotten: a warning. A port shut
    alone, or in an act of its own long before, stays planned however long it stays shut."""
    left = _shut_together(enabled={0: 12, 1: 12, 2: 13, 3: None}, shut_at={0: 4, 1: 4, 2: 5, 3: 5})
    assert not left[0] and not left[1] and not left[2]
    assert left[3] and min(left[3]) <= 13 + 4 + 2, left
    assert _shut_together(enabled={0: None}, shut_at={0: 4})[0] == []
    # shut two hours before the others' act: its own reason
    apart = _shut_together(enabled={0: 250, 1: None}, shut_at={0: 245, 1: 4}, n=262)
    assert apart[1] == [], apart


def test_ports_of_several_switches_shut_within_minutes_are_one_act() -> None:
    """Principle 5 (an act is over when what it acted on is back): an operator cleaning optics works through
    uplinks of several leaves in one change, shutting each a minute or two after the last. Once the others are
    enabled again, the one still shut had its re-enable forgotten, whichever leaf it is on. A port of another
    switch shut half an hour before the act is no part of it: planned, however long it stays shut."""
    left = _shut_together(enabled={0: 14, 1: 15, 2: None}, shut_at={0: 4, 1: 6, 2: 8}, leaves=3)
    assert not left[0] and not left[1]
    assert left[2] and min(left[2]) <= 15 + 4 + 2, left
    apart = _shut_together(enabled={0: 75, 1: 76, 2: None}, shut_at={0: 64, 1: 65, 2: 4}, n=90, leaves=3)
    assert apart[2] == [], apart


def test_a_shorter_act_inside_a_longer_one_does_not_end_it() -> None:
    """Principle 5 (an act is over when what it acted on is back): ports shut at one moment are one act. Two
    uplinks shut for a maintenance window, and two more of the same switch shut four minutes later for a quick
    optic swap and enabled again ten minutes after: the swap is over, the window is not (the ports shut with
    the first two are still shut too), so nothing is left shut. Had one of the first two been enabled, the other
    would be."""
    nested = _shut_together(enabled={0: None, 1: None, 2: 21, 3: 21}, shut_at={0: 4, 1: 4, 2: 12, 3: 12}, n=30)
    assert not any(nested.values()), nested
    forgot = _shut_together(enabled={0: None, 1: 18, 2: 21, 3: 21}, shut_at={0: 4, 1: 4, 2: 12, 3: 12}, n=30)
    assert forgot[0] and not forgot[1] and not forgot[2] and not forgot[3], forgot


def _enabled_again(enable_at: int, up_at: int | None, n: int = 30) -> list[int]:
    """A leaf uplink shut at interval 4 and enabled again at `enable_at`, its link up at `up_at` (None: never):
    the intervals either end of it was found left down in."""
    up = next(li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1]
              if li.tags.get("role") == "leaf_up")
    ends = ((up.device, up.port), (up.tags["peer_device"], up.tags["peer_port"]))

    def script(i: int, li: LinkInterval) -> LinkInterval:
        if (li.device, li.port) in ends and 4 <= i and (up_at is None or i < up_at):
            li.rates["oper_status"] = 0.0
            li.rates["admin_status"] = 0.0 if li.device == up.device and i < enable_at else 1.0
            for name in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                li.rates[name] = 0.0
        return li

    return [i for i, fs in enumerate(_run(script, n=n)) for f in fs
            if (f.device, f.port) in ends and "link_left_down" in f.conditions]


def test_a_port_enabled_again_is_given_the_time_a_link_takes_to_come_up() -> None:
    """Principle 5 (state is a signal): a link is left down only for the time it has been down while enabled.
    An uplink shut for a quarter of an hour and enabled again trains for a minute before it is up: no page,
    though it has been down for 16 minutes. One that stays down once enabled is left down, counted from then."""
    assert _enabled_again(enable_at=19, up_at=21) == []
    never = _enabled_again(enable_at=19, up_at=None)
    assert never and 19 + 3 <= min(never) <= 19 + 4 + 2, never


def test_a_switch_drained_whole_and_restarted_in_its_drain_is_in_maintenance_until_its_ports_come_back() -> None:
    """Principle 5 (a planned admin-down is not a finding): a spine drained whole (every port shut) and
    restarted inside the drain comes back with every port still shut: none of its links came back, the drain
    goes on, and nothing is left shut. Once the operator enables its ports, one still shut is left shut."""
    spine = next(li.device for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=2).frames[0][1]
                 if li.tags.get("role") == "spine")

    def drained(forgotten: bool) -> dict[int, set[str]]:
        kept_shut: list[str] = []

        def script(i: int, li: LinkInterval) -> LinkInterval | None:
            if li.device == spine and 6 <= i < 9:
                return None  # restarting
            ours = li.device == spine or li.tags.get("peer_device") == spine
            if ours and not kept_shut and li.device == spine:
                kept_shut.append(li.port)
            shut = 4 <= i < 20 or (forgotten and i >= 20 and spine in (li.device, li.tags.get("peer_device"))
                                   and kept_shut[0] in (li.port, li.tags.get("peer_port")))
            if ours and shut:
                li.rates["oper_status"] = 0.0
                li.rates["admin_status"] = 0.0 if li.device == spine else 1.0
                for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                    li.rates[k] = 0.0
            return li

        return {i: {f.port for f in fs if f.device == spine and "left_shut" in f.conditions}
                for i, fs in enumerate(_run(script, n=30))}

    assert not any(drained(False).values()), {i: p for i, p in drained(False).items() if p}
    left = drained(True)
    assert not any(left[i] for i in range(20)), {i: p for i, p in left.items() if p}
    assert any(left[i] for i in range(20, 30)), left
