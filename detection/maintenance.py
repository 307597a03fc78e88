"""An operator's act or a restart is not a fault: a port shut or enabled, a link drained before it
bounced, a device back from being unreachable, a link idle because of its far end. And a link left
down once the maintenance is over is one: the fault an act leaves behind."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cached_property

import numpy as np

from fabricwatch.core.hits import RuleHit
from fabricwatch.detection.conditions import DOWN_INTERVALS, _utc
from fabricwatch.detection.crowds import SETTLE_INTERVALS
from fabricwatch.detection.explain import FLAPS
from fabricwatch.detection.findings import _peer
from fabricwatch.detection.under_repair import REPAIR_S, under_repair
from fabricwatch.models.class_model import UTIL
from fabricwatch.models.features import FeatureFrame, LinkState, group_medians, grown
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.topology import first_sight

RETURN_GAP = 3  # intervals since a device last reported before its reporting again is a return
RETURN_FACTOR = 3.0  # times a device's usual gap between reports: a longer silence is a return
QUIET_NEAR = 2  # intervals between a device's last report and a port going down for the two to be one event
RETURN_TRAIN = 2  # intervals a switch back from a restart has to train its links before one still down is left down
DRAINED_PCT = 1.0  # utilisation % under which a link carried nothing before it bounced: its traffic was moved off
DRAIN_SHARE = 2 / 3  # of its load the interval before: a link whose traffic clearly fell before it bounced was drained
DRAIN_QUIET = 8  # intervals without a transition before a bounce can be a drain's (twice the flap window)


class Cables:
    """One frame's links by (device, port), the far end of each cable and the devices with a port up: built
    when first asked, once per interval, by whichever decision needs them. A device not heard in this interval
    (polled at another moment) is as it said when last heard, while it reports within its cadence."""

    def __init__(self, frame: FeatureFrame, state: LinkState | None = None, restarts: Restarts | None = None) -> None:
        self._frame = frame
        self._state = state
        self._restarts = restarts

    @cached_property
    def at(self) -> dict[tuple[str, str], int]:
        return {(li.device, li.port): j for j, li in enumerate(self._frame.links)}

    @cached_property
    def alive(self) -> set[str]:
        oper = self._frame.reading("oper_status")
        here = {li.device for li, o in zip(self._frame.links, oper, strict=True) if not o < 0.5}
        if self._restarts is None:
            return here
        return here | self._restarts.said_up({li.device for li in self._frame.links})

    @cached_property
    def dark(self) -> set[str]:
        """The far devices with two links or more in the frame, every one of them down (a host powered off,
        which reports nothing itself): a device is its links."""
        topo = self._frame.layout
        far, names = topo.memo("far_device_ids", lambda: first_sight(topo.far_devices))
        up = ~(np.nan_to_num(self._frame.reading("oper_status"), nan=1.0) < 0.5)
        links = np.bincount(far, minlength=len(names))
        lit = np.bincount(far, weights=up, minlength=len(names))
        return {str(names[d]) for d in np.nonzero((links >= 2) & (lit == 0))[0].tolist() if names[d]}

    def far(self, i: int) -> int | None:
        """The row of the far end of link i's cable, if it is in the frame."""
        return self.at.get(_peer(self._frame.links[i]) or ("", ""))

    def far_link(self, i: int) -> int | None:
        """The state row of the far end of link i's cable, if it was ever heard."""
        key = _peer(self._frame.links[i])
        return None if self._state is None or key is None else self._state.index.get(key)

    def far_said(self, i: int) -> tuple[float, float]:
        """The far end's (oper, admin) status, 1 up, 0 down, NaN not known: from this interval, else from what
        it said when last heard if its device still reports within its cadence."""
        far = self.far(i)
        if far is not None:
            return float(self._frame.reading("oper_status")[far]), float(self._frame.reading("admin_status")[far])
        row, peer = self.far_link(i), self._frame.links[i].tags.get("peer_device", "")
        if row is None or self._state is None or self._restarts is None or not self._restarts.reporting(peer):
            return math.nan, math.nan
        return _said(self._state["said_oper"][row]), _said(self._state["admin_was"][row])


def _said(code: int) -> float:
    """A remembered state (0 not reported, 1 down, 2 up) as a reading."""
    return math.nan if code == 0 else float(code == 2)


def remember_said(frame: FeatureFrame, rows: np.ndarray, state: LinkState) -> None:
    """Keep each link's operational state as it said it (0 not reported, 1 down, 2 up) for the intervals its
    device is not heard in."""
    oper = frame.reading("oper_status")
    now = np.where(np.isnan(oper), 0, np.where(oper >= 0.5, 2, 1)).astype(np.int8)
    state["said_oper"][rows] = np.where(now > 0, now, state["said_oper"][rows])


class Restarts:
    """Which devices have reported, and which came back from being unreachable (a restart, a replacement)."""

    def __init__(self) -> None:
        self.heard: set[str] = set()  # devices that have reported: one gone quiet is down, not unmonitored
        self._last_heard: dict[str, int] = {}  # per device, the last interval it reported in
        self._last_heard_ns: dict[str, int] = {}  # the same, as the interval's start
        self._quiet_ns: dict[str, int] = {}  # per device back from a restart, its last report before it
        self._back_at: dict[str, int] = {}  # per device back from a restart, the interval it came back in
        self._usual_gap: dict[str, float] = {}  # per device, the intervals between its reports (its poll cadence)
        self._dark: set[str] = set()  # far devices whose every link was down in the last interval
        self._down_links: dict[str, int] = {}  # per device still training, its links down in the last interval
        self._up: dict[str, bool] = {}  # per device, whether it had a port up when last heard
        self._tick = 0

    def returned(self, frame: FeatureFrame) -> np.ndarray:
        """Per link, whether its device reports again after at least one interval unheard."""
        tick: int = self._tick
        self._tick += 1
        devices = {li.device for li in frame.links}
        # unheard for RETURN_GAP intervals or more: one late or missed poll is not a restart
        gaps = {d: tick - self._last_heard.get(d, tick - 1) for d in devices}
        # unheard for RETURN_GAP intervals and 3x its usual gap: a device polled slower than the detector's
        # interval comes back every poll, which is its cadence, not a restart
        back = {d for d, g in gaps.items() if g > RETURN_GAP and g > RETURN_FACTOR * self._usual_gap.get(d, 1.0)}
        for d, g in gaps.items():
            self._usual_gap[d] = 0.8 * self._usual_gap.get(d, 1.0) + 0.2 * g
        self._quiet_ns.update({d: self._last_heard_ns[d] for d in back if d in self._last_heard_ns})
        self._last_heard.update(dict.fromkeys(devices, tick))
        self._last_heard_ns.update(dict.fromkeys(devices, frame.start_ns))
        oper = frame.reading("oper_status")
        up = {li.device for li, o in zip(frame.links, oper, strict=True) if not o < 0.5}
        self._up.update({d: d in up for d in devices})
        for d in [d for d, t in self._back_at.items() if tick - t >= RETURN_TRAIN]:
            del self._back_at[d]
            self._down_links.pop(d, None)
            self._quiet_ns.pop(d, None)
        self._back_at.update(dict.fromkeys(back, tick))
        if not back:
            return np.zeros(len(frame.links), dtype=bool)
        return np.fromiter((li.device in back for li in frame.links), dtype=bool, count=len(frame.links))

    def reporting(self, device: str) -> bool:
        """Whether `device` has reported within its cadence: unheard for longer than its usual gap between
        reports, it is not as it said last (a restart, an outage) but not known."""
        last = self._last_heard.get(device)
        return last is not None and self._tick - 1 - last < self.cadence(device) + 0.5

    def went_quiet_at(self, at_ns: int, interval_ns: int) -> set[str]:
        """The devices that stopped reporting within QUIET_NEAR intervals of `at_ns` and are away still, or back
        and training their links: what a port that went down then may be cabled to (a switch restarting)."""
        near = QUIET_NEAR * interval_ns
        away = {d for d, t in self._last_heard_ns.items() if abs(t - at_ns) <= near and not self.reporting(d)}
        training = self.training()
        return away | {d for d, t in self._quiet_ns.items() if abs(t - at_ns) <= near and d in training}

    def cadence(self, device: str) -> float:
        """The intervals between `device`'s reports, usually (its poll cadence; 1 until known)."""
        return max(1.0, self._usual_gap.get(device, 1.0))

    def said_up(self, present: set[str]) -> set[str]:
        """The devices not in `present` (this interval's) that had a port up when last heard, within their
        cadence."""
        return {d for d, up in self._up.items() if up and d not in present and self.reporting(d)}

    def lit(self, dark: set[str]) -> None:
        """Far devices dark before (every link down: a host powered off, which reports nothing itself) and not
        now are back: they train their links like a switch back from a restart (a host booting)."""
        for device in self._dark - dark:
            self._back_at[device] = self._tick - 1
        self._dark = dark

    def coming_up(self, links: list[LinkInterval], down: np.ndarray) -> None:
        """A device back from a restart trains on while its links keep coming up (fewer of them down than in
        the interval before): a switch brings its ports up one after another over minutes, however many polls
        that is. Call once per interval, after `returned`."""
        if not self._back_at:
            return
        counts = dict.fromkeys(self._back_at, 0)
        for i in np.nonzero(down)[0].tolist():
            li = links[i]
            for device in (li.device, li.tags.get("peer_device", "")):
                if device in counts:
                    counts[device] += 1
        for device, n in counts.items():
            if n < self._down_links.get(device, n):
                self._back_at[device] = self._tick - 1
            self._down_links[device] = n

    def training(self) -> set[str]:
        """The devices back from a restart for under RETURN_TRAIN intervals, or whose links were still coming up
        within them (`coming_up`): they still train their links."""
        return {d for d, t in self._back_at.items() if self._tick - 1 - t < RETURN_TRAIN}

    def forget(self, devices: Iterable[str]) -> None:
        # heard again later, a device is new, not back from a restart
        for device in devices:
            self._last_heard.pop(device, None)
            self._back_at.pop(device, None)
            self._usual_gap.pop(device, None)
            self._down_links.pop(device, None)
            self._up.pop(device, None)


class UpRecord:
    """Which links were ever up in a stream of frames: a port never up is unused (never cabled), not a link
    left down. `result` gives the links that reported their state and were down throughout."""

    def __init__(self) -> None:
        self._reported = np.zeros(0, dtype=bool)
        self._up = np.zeros(0, dtype=bool)

    def add(self, frame: FeatureFrame, ids: np.ndarray) -> None:
        """One interval; `ids[i]` is the link id of `frame.links[i]`."""
        if not len(ids):
            return
        top = int(ids.max()) + 1
        self._reported, self._up = grown(self._reported, top), grown(self._up, top)
        oper = frame.reading("oper_status")
        self._reported[ids] |= ~np.isnan(oper)
        self._up[ids] |= ~(oper < 0.5)  # a link reporting no state counts as up, as `links_left_down` reads it

    def result(self, keys: list[tuple[str, str]]) -> set[tuple[str, str]]:
        """The links (`keys[i]` names link id i) that reported down in every interval they reported."""
        n = min(len(keys), len(self._up))
        return {keys[i] for i in np.nonzero(self._reported[:n] & ~self._up[:n])[0].tolist()}


def operated_links(frame: FeatureFrame, rows: np.ndarray, state: LinkState, flap_window: int,
                   cables: Cables) -> np.ndarray:
    """Links whose administrative state changed, at either end of the cable, within the flap window
    and the settle after it: an operator shut or enabled the port, and the transitions are that act."""
    admin = frame.reading("admin_status")
    now = np.where(np.isnan(admin), 0, np.where(admin >= 0.5, 2, 1)).astype(np.int8)  # 0: not reported
    was = state["admin_was"][rows]
    changed = (now > 0) & (was > 0) & (now != was)
    state["admin_before"][rows] = was
    state["admin_was"][rows] = np.where(now > 0, now, was)
    for i in np.nonzero(changed)[0].tolist():
        far = cables.far(i)
        if far is not None:
            changed[far] = True
    hold = flap_window + SETTLE_INTERVALS
    left = np.where(changed, hold, np.maximum(state["operated"][rows] - 1, 0))
    state["operated"][rows] = left
    return left > 0


def _not_its_own(frame: FeatureFrame, i: int, cables: Cables, admin: np.ndarray, heard: set[str]) -> bool:
    """Link i's being down or idle is not its own: shut by an operator at either end of its cable, or
    towards a switch that has reported before and now has no port up (a reboot, a replacement)."""
    if admin[i] == 0 or cables.far_said(i)[1] == 0:
        return True
    far_device = frame.links[i].tags.get("peer_device", "")
    return far_device in heard and far_device not in cables.alive


def idle_not_its_own(frame: FeatureFrame, rows: np.ndarray, heard: set[str], cables: Cables,
                     idle_switches: dict[str, bool], repairing: np.ndarray | None = None) -> np.ndarray:
    """Per row of `rows` (indices into the frame), whether its carrying nothing is another's event:
    `_not_its_own`, its far end down, down at both ends with no administrative state, towards a switch that
    carried (nearly) nothing on most of its ports when last heard (drained: `idle_switches`), or down while
    someone replaces its optic or cable (`repairing`, per frame row: `under_repair.repairing`)."""
    out = np.zeros(len(rows), dtype=bool)
    if not len(rows):
        return out
    oper = frame.reading("oper_status")
    admin = frame.reading("admin_status")
    for n, i in enumerate(rows.tolist()):
        far_oper = cables.far_said(i)[0]
        known = not math.isnan(far_oper)
        up, far_up = not oper[i] < 0.5, known and not far_oper < 0.5
        # a cable is one link, named at the end that is down; down at both ends with no administrative
        # state is what a planned shutdown looks like (as for `links_left_down`)
        out[n] = (_not_its_own(frame, i, cables, admin, heard) or (up and known and not far_up)
                  or (not up and not far_up and admin[i] != 1)
                  or idle_switches.get(frame.links[i].tags.get("peer_device", ""), False)
                  or (repairing is not None and bool(repairing[i])))
    return out


def drained_links(frame: FeatureFrame, rows: np.ndarray, recent_flaps: np.ndarray, state: LinkState) -> np.ndarray:
    """Per link, whether its traffic was moved off before the transitions now in its flap window (a drained
    host's firmware update): nothing left the interval before, or under DRAIN_SHARE of the interval before
    that while the links to the same far device fell with it; and only after DRAIN_QUIET intervals without
    a transition (a link that keeps bouncing, its routes withdrawn after each, is not drained)."""
    own = frame.own_raw
    hist = state["util_hist"][rows]  # the last three intervals' load, newest first
    hist = np.column_stack([np.nan_to_num(own[:, UTIL]), hist[:, :2]])
    state["util_hist"][rows] = hist
    quiet_for = np.where(np.nan_to_num(own[:, FLAPS]) > 0, 0, np.minimum(state["quiet_for"][rows] + 1, 1 << 30))
    state["quiet_for"][rows] = quiet_for
    calm = recent_flaps == 0
    before = state["util_before"][rows]
    before[calm] = np.column_stack([np.nan_to_num(own[calm, UTIL]), before[calm, 0]])
    state["util_before"][rows] = before
    quiet_before = state["quiet_before"][rows]
    quiet_before[calm] = quiet_for[calm]
    state["quiet_before"][rows] = quiet_before
    candidate = (recent_flaps > 0) & (quiet_before >= DRAIN_QUIET)
    drained = candidate & (before[:, 0] < DRAINED_PCT)
    fell = candidate & ~drained & (before[:, 0] < DRAIN_SHARE * before[:, 1])
    if fell.any():
        number: dict[str, int] = {}
        far = np.fromiter((number.setdefault(li.tags.get("peer_device", "") or f"\0{k}", len(number))
                           for k, li in enumerate(frame.links)), dtype=np.int64, count=len(frame.links))
        with np.errstate(divide="ignore", invalid="ignore"):  # what each carries now against two intervals ago
            ratio = np.where(hist[:, 2] > 0, hist[:, :2].min(axis=1) / hist[:, 2], 1.0)
        median = group_medians(far, ratio[:, None], len(number))[far, 0]
        size = np.bincount(far, minlength=len(number))[far]
        drained |= fell & (size >= 2) & (median < DRAIN_SHARE)
    # decided as the window opens, held while it lasts (its siblings' loads move on meanwhile); another
    # bounce while it is open is down and up again: no drain
    was_open = state["in_window"][rows]
    now = np.nan_to_num(own[:, FLAPS])
    since_open = np.where(calm, 0.0, np.where(was_open, state["window_flaps"][rows], 0.0) + now)
    state["window_flaps"][rows] = since_open
    again = since_open > 2.5  # more than one down and one up since the window opened
    held = np.where(was_open, state["drain_held"][rows], drained) & ~calm & ~again
    state["drain_held"][rows] = held
    state["in_window"][rows] = ~calm
    return held


def links_left_down(frame: FeatureFrame, rows: np.ndarray, state: LinkState, settling: np.ndarray,
                    restarted: np.ndarray, restarts: Restarts, cables: Cables, interval_s: float,
                    up_before: np.ndarray) -> tuple[dict[int, RuleHit], dict[int, tuple[int, str, int]], set[int]]:
    """Links operationally down for DOWN_INTERVALS (by the clock, seen down twice) while administratively up, or
    while the far end of their cable says it is up: a port left down after a replacement, a one-way optic, a
    cable pulled. A cable is one link: shut at either end, it is planned. Towards a switch that is
    itself down or unheard (a reboot, a replacement), it is that switch's event, not the link's. Down
    at both ends with no administrative state is left alone: a planned shutdown looks the same. A port
    never up (`up_before`: up in its healthy history, per row) is unused, never cabled: nothing was left.
    Towards a device whose every link is down (a host powered off), it is that device's event. Also gives, per
    row down and not excused so, since when it counts as down, why it is left down and how long it must stay down
    before it is (ns; longer under repair) (`DownUnheard` holds it
    while the link is unheard), and the rows down, with no far end known, by another device's act or restart at
    that moment: nothing of theirs to say while it lasts."""
    oper = frame.reading("oper_status")
    admin = frame.reading("admin_status")
    remember_said(frame, rows, state)
    down = np.nan_to_num(oper, nan=1.0) < 0.5
    state["been_up"][rows] |= ~down
    state["down_ns"][rows] = np.where(down, frame.start_ns, state["down_ns"][rows])  # when it was last seen down
    # an end enabled again counts its time down from then: a link trains for a while after its port is enabled
    shut_now = np.nan_to_num(admin, nan=1.0) < 0.5
    interval_ns = int(interval_s * 1e9)
    # when each shut began (a port heard shut that was not shut when last heard: one unheard for a while, its
    # switch or its collector restarting, and shut as before is in the same shut)
    said = state["shut_said"][rows]
    began = shut_now & ~said & (frame.start_ns - state["shut_ns"][rows] > (QUIET_NEAR + 1) * interval_ns)
    state["shut_from_ns"][rows] = np.where(began, frame.start_ns, state["shut_from_ns"][rows])
    state["shut_ns"][rows] = np.where(shut_now, frame.start_ns, state["shut_ns"][rows])
    state["shut_said"][rows] = np.where(np.isnan(admin), said, shut_now)
    was_up = state["been_up"][rows] | up_before
    # a device coming back settles (its links train), and the time down counts on meanwhile
    count = np.where(down, state["down"][rows] + 1, 0)
    state["down"][rows] = count
    # down since the report that first saw it down: a switch polled less often than the intervals reports its
    # port down fewer times in as long
    state["down_from_ns"][rows] = np.where(count == 1, frame.start_ns, state["down_from_ns"][rows])
    # a run that began as its device came back from being unreachable (a restart, a replacement: every
    # port trains again); links bounced by a neighbour's restart are that neighbour's
    state["from_restart"][rows] = down & np.where(count == 1, restarted, state["from_restart"][rows])
    # what an administrative state said before the restart (2 up, 1 down, 0 not reported)
    state["admin_at_restart"][rows] = np.where(count == 1, state["admin_before"][rows], state["admin_at_restart"][rows])
    restarts.heard |= {li.device for li in frame.links}
    restarts.lit(cables.dark if down.any() else set())
    restarts.coming_up(frame.links, down)
    candidates = np.nonzero(down & ~settling & was_up)[0]
    if not len(candidates):
        return {}, {}, set()
    alive = cables.alive  # a missing state is up, as for `down`
    out, held, elsewhere = {}, {}, set()
    training = restarts.training()
    for i in candidates.tolist():
        li = frame.links[i]
        far_oper, _ = cables.far_said(i)
        far = cables.far_link(i)
        # not back with the rest of its switch: a port shut while the switch ran is not this
        left_behind = bool(state["from_restart"][rows[i]]) and li.device in alive
        # back from its switch's restart shut where it was up before: no one shut it while the switch ran
        unsaved = left_behind and admin[i] == 0 and state["admin_at_restart"][rows[i]] == 2
        if (not unsaved and _not_its_own(frame, i, cables, admin, restarts.heard)) \
                or li.tags.get("peer_device", "") in cables.dark:
            continue
        if li.device in training or li.tags.get("peer_device", "") in training:
            continue  # a switch just back from a restart still trains its links
        far_up = far_oper >= 0.5
        far_device = li.tags.get("peer_device", "")
        if not far_device and (far_link_unknown_and_away(i, state, rows, restarts, interval_ns)
                               or shut_elsewhere_then(frame, i, state, rows, shut_now, interval_ns)):
            elsewhere.add(i)
            continue
        if not far_up and admin[i] != 1 and not left_behind:
            continue
        since = int(state["down_from_ns"][rows[i]])
        shut = int(max(state["shut_ns"][rows[i]], state["shut_ns"][far] if far is not None else 0))
        if not unsaved and shut >= since:  # down since its port (or the far one) was enabled again
            since = shut + interval_ns
        why = (f"it came back from {li.device}'s restart administratively down, where it was up before (a "
               "configuration not saved?)" if unsaved
               else f"its far end {li.tags['peer_device']}:{li.tags['peer_port']} reports up" if far_up
               else "administratively up" + (f", {far_device} up" if far_device in alive else "")
               if admin[i] == 1 else f"the other links of {li.device} came back from its restart")
        # down after its optic or cable was flagged: someone replacing it, for as long as a swap takes
        repair = int(REPAIR_S * 1e9) if not far_up and under_repair(state, int(rows[i]), far, since) else 0
        wait = max((DOWN_INTERVALS - 1) * interval_ns, repair)
        held[i] = (since, why, wait)
        if count[i] >= 2 and frame.start_ns - since >= wait:
            out[i] = RuleHit("critical", left_down_reason(since, frame.start_ns, interval_s, why), "link_left_down")
    return out, held, elsewhere


def far_link_unknown_and_away(i: int, state: LinkState, rows: np.ndarray, restarts: Restarts,
                              interval_ns: int) -> bool:
    """With no far end known (no LLDP, no description), a port that went down as a device stopped reporting
    is taken to be cabled to it: its restart's, while that device is away or trains its links."""
    return bool(restarts.went_quiet_at(int(state["down_from_ns"][rows[i]]), interval_ns))


def shut_elsewhere_then(frame: FeatureFrame, i: int, state: LinkState, rows: np.ndarray, shut_now: np.ndarray,
                        interval_ns: int) -> bool:
    """With no far end known, a port that went down as an operator shut a port of another device (still shut, as
    heard now or as last heard: a state said holds while unheard) is taken to be that port's far end: the shut's."""
    since = int(state["down_from_ns"][rows[i]])
    near = shut_now & (np.abs(state["shut_from_ns"][rows] - since) <= QUIET_NEAR * interval_ns)
    devices = frame.layout.devices
    if any(devices[j] != devices[i] for j in np.flatnonzero(near).tolist()):
        return True
    unheard = state["shut_said"].copy()
    unheard[rows] = False
    unheard &= np.abs(state["shut_from_ns"] - since) <= QUIET_NEAR * interval_ns
    if not unheard.any():
        return False
    return any(device != devices[i] for (device, _), r in state.index.items() if unheard[r])


def left_down_reason(since_ns: int, now_ns: int, interval_s: float, why: str) -> str:
    minutes = (now_ns - since_ns) / 60e9 + interval_s / 60
    return (f"link down since {_utc(since_ns)} ({minutes:,.0f} min) while {why}: a port left down after a "
            "replacement, a one-way optic or a pulled cable?")
