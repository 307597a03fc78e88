"""The same fault is found through every collector path (issue #35, item 6): the daemon against the
simulator over the real protocol, rules only, short intervals; each test names its path and fault.

Not here: `aging_optic` (the trend needs readings a minute apart over 20 minutes: test_optics_lead.py),
`dead` and `stream_abort` (collection faults, not a link's: test_bad_targets.py), and the ibdiag path
(the simulator serves no perfquery; tests/unit/test_downs_and_transitions.py reads recorded ones)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.daemon.config import parse
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.service import Simulator
from tests.apart import Runs, side_by_side
from tests.integration.helpers import start_runner, start_sim
from tests.servers import free_port

pytestmark = pytest.mark.integration

INTERVAL_S = 2.0  # the detector's; collectors poll every second (the simulator's clock ticks in seconds)
FLAP_WINDOW = 4  # intervals the flap rule counts transitions over (models/README.md)
WARMUP_S = 3 * INTERVAL_S  # every link has rates and a closed interval before the fault


@dataclass
class Outcome:
    raised_after_s: float | None  # from the injection to the fault's link being flagged
    findings: dict[tuple[str, str], Any]  # every finding seen, the first of each link
    conditions: dict[tuple[str, str], set[str]]  # every condition each link's findings named while watched


# the keys (device, port) any of which may be flagged for one fault, and the conditions one of which that
# finding must name (empty: any finding will do)
Group = tuple[set[tuple[str, str]], frozenset[str]]


def _config(collectors: dict[str, Any], tmp: Path) -> Any:
    return parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "detector": {"interval": INTERVAL_S},
        "collectors": collectors,
        # nobody answers: the spool keeps the points; the test reads the detector
        "sinks": {"influxdb": [{"api": "v1", "url": f"http://127.0.0.1:{free_port()}", "database": "x",
                                "flush_interval": 0.2, "spool": {"dir": str(tmp / "spool")}}]},
    }, "<test>")


def _met(group: Group, conditions: dict[tuple[str, str], set[str]]) -> bool:
    """One of the group's keys was flagged, naming one of its conditions when it asks for some."""
    keys, wanted = group
    return any(k in conditions and (not wanted or wanted & conditions[k]) for k in keys)


async def _run(sim: Simulator, collectors: dict[str, Any], tmp: Path, faults: list[Fault],
               deadline_s: float, expected: list[Group] | None = None) -> Outcome:
    """Start the daemon, inject `faults` after a warm-up, watch the findings for `deadline_s` or until
    each group of `expected` (by default each fault's own link, any finding) is met (`_met`)."""
    if expected is None:
        expected = [({(f.device, f.port or "*")}, frozenset()) for f in faults]
    expected = [g for g in expected if g[0]]
    runner, task = await start_runner(_config(collectors, tmp), sim)
    assert runner.detector is not None
    seen: dict[tuple[str, str], Any] = {}
    conditions: dict[tuple[str, str], set[str]] = {}
    raised: float | None = None
    try:
        await asyncio.sleep(WARMUP_S)
        for fault in faults:
            sim.fabric.inject(fault)
        t0 = time.monotonic()
        while time.monotonic() - t0 < deadline_s:
            await asyncio.sleep(0.25)
            for key, f in runner.detector.active.items():
                seen.setdefault(key, f)
                conditions.setdefault(key, set()).update(f.conditions)
            if expected and all(_met(g, conditions) for g in expected):
                raised = time.monotonic() - t0
                break
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    return Outcome(raised, seen, conditions)


async def _ufm_flap(tmp: Path) -> tuple[Outcome, list[Group]]:
    sim = await start_sim(fabric={"nodes": 4, "rails": 2, "spines": 2}, ufm={"enabled": True})
    collectors = {"ufm": sim.daemon_ufm_collectors(1.0)}
    fault = Fault.parse("flap:leaf-r0-0:1,period=4")
    return await _run(sim, collectors, tmp, [fault], deadline_s=(FLAP_WINDOW + 3) * INTERVAL_S), []


def test_ufm_flapping_link_is_flagged_within_the_flap_window(runs: Runs,
                                                            request: pytest.FixtureRequest) -> None:
    """Path: UFM (REST + Telemetry CSV). Fault: a link flapping every 4 s. UFM's Telemetry counts
    LinkDownedCounter, not carrier transitions; the flap rule must still see the link go down and
    up again and again, within its window (4 intervals) and the interval that closes it."""
    out, _ = _outcome(runs.of(request))
    assert out.raised_after_s is not None, f"the flapping link was not flagged; findings: {sorted(out.findings)}"
    f = out.findings[("leaf-r0-0", "1")]
    assert "flap" in f.conditions and "link flapped" in f.explanation, f.explanation


# -- every fault kind through every path that can carry it -------------------------------------------

# path -> the simulator's config for it (the fabric it serves and over which protocol)
PATHS: dict[str, dict[str, Any]] = {
    **{f"gnmi-{fl}": {"fabric": {"nodes": 4, "rails": 2, "spines": 2, "flavours": [fl]}}
       for fl in ("openconfig", "arista", "cumulus", "sonic")},
    "snmp": {"fabric": {"nodes": 4, "rails": 2, "spines": 2}, "snmp": {"every": 1}},
    "ufm": {"fabric": {"nodes": 4, "rails": 2, "spines": 2}, "ufm": {"enabled": True}},
    # the hosts' NICs alone (sysfs): the host end of each leaf's link, nothing of the switches
    "hostnic": {"fabric": {"nodes": 4, "rails": 2, "spines": 2}},
}


def _collectors(path: str, sim: Simulator, tmp: Path) -> dict[str, Any]:
    if path == "snmp":
        return {"snmp": sim.daemon_snmp_collectors(1.0)}
    if path == "ufm":
        # UFM tells the width a port trained to in resources/ports, which the collector reads with its
        # inventory: every 5 s here (10 s by the simulator's default for a 1 s poll), so that a link that
        # came back narrower is seen within the flap window whatever the phase of the reads
        return {"ufm": [{**s, "inventory_interval": 5.0} for s in sim.daemon_ufm_collectors(1.0)]}
    if path == "hostnic":
        hosts = sorted({p.peer_device for p in sim.fabric.ports if p.role == "leaf_down"})
        return {"hostnic": [{"name": f"nic-{h}", "host": h, "sysfs_root": str(tmp / "hosts" / h),
                             "interval": 1.0, "tags": {"fabric": "roce"}} for h in hosts]}
    return {"gnmi": sim.daemon_collectors(1.0)}


async def _write_hosts(sim: Simulator, root: Path) -> None:
    """The hosts' sysfs trees follow the fabric, as a kernel's would."""
    from fabricwatch.simulator.host_sysfs import write_host_trees

    while True:
        snap = sim.fabric.snapshot(time.time_ns() // 1_000_000_000 * 1_000_000_000)
        await asyncio.to_thread(write_host_trees, sim.fabric, snap, root)
        await asyncio.sleep(0.5)


@dataclass(frozen=True)
class Case:
    fault: str  # the kind, simulator/faults.py
    where: str  # leaf_down, leaf_up or device: which link (or switch) of leaf-r0-0 it hits
    options: str = ""
    deadline_intervals: int = FLAP_WINDOW + 3
    expect: str = "link"  # link: that link is flagged (at either end); device: that switch ("*"); none: nothing is
    fabric: tuple[int, int] | None = None  # (nodes, rails) when the fault needs more of a fabric to stand out
    # the finding names one of these (empty: any finding): a fault whose side effects another rule also
    # flags (a retrained link bounced once on its way down) is found for what it is, not for the side effect
    conditions: frozenset[str] = frozenset()


CASES = {
    "flap": Case("flap", "leaf_down", ",period=4"),
    "ber": Case("ber", "leaf_down", ",rate=50"),
    "pfc_storm": Case("pfc_storm", "leaf_down"),
    # a switch whose links mark nothing while their load-matched peers mark: peers enough to mark
    "ecn_off": Case("ecn_off", "device", expect="device", deadline_intervals=12, fabric=(16, 4)),
    "congested": Case("congested", "leaf_up"),
    # shut by an operator: a state, not a fault of the link
    "shutdown": Case("shutdown", "leaf_down", expect="none"),
    # bounced once and came back at a quarter of its width (4x -> 1x, 400G -> 100G): below what it held
    # before, or below its nominal speed where the path knows it (then that is said instead)
    "retrained": Case("retrained", "leaf_down", conditions=frozenset({"retrained_lower", "speed_degraded"})),
}
# what a path cannot carry, and why (a fault it cannot see is no failure of the detector)
CANNOT = {
    ("gnmi-openconfig", "pfc_storm"): "OpenConfig interfaces carry no per-priority PFC counters",
    ("ufm", "pfc_storm"): "InfiniBand has no PFC (credit-based flow control)",
    ("ufm", "ecn_off"): "InfiniBand switches mark no ECN the way RoCE does; UFM Telemetry has no ECN column",
    ("snmp", "ecn_off"): "no standard or vendor MIB exposes ECN-marked packets (collectors/snmp/profiles)",
    # SONiC keeps a port's oper state and flap count in APPL_DB/STATE_DB; the collector reads COUNTERS_DB
    # (and the simulator serves no more): no transitions, no state, so no flap can be seen
    ("gnmi-sonic", "flap"): "the SONiC path carries neither oper state nor a flap count (COUNTERS_DB only)",
    ("hostnic", "pfc_storm"): "the host collector reads PFC from ethtool -S only (off here); sysfs has none",
    ("hostnic", "ecn_off"): "a switch with ECN off is judged over its ports; the hosts see their own links only",
    ("hostnic", "congested"): "the congested port faces a spine: no host is at either end",
    # SONiC writes a port's operational speed to STATE_DB PORT_TABLE (its configured one to APPL_DB); the
    # collector reads COUNTERS_DB every sample and STATE_DB's transceiver tables only
    ("gnmi-sonic", "retrained"): "the SONiC path carries no port speed or width (COUNTERS_DB only)",
}


def _fault(sim: Simulator, case: Case, device: str = "leaf-r0-0", nth: int = 0) -> tuple[Fault, Group]:
    """The fault on `device` (its `nth` port of the case's role) and the keys the detector may flag for it
    (empty: nothing), with the conditions it must name: a link is found at either end of its cable (the
    host's NIC sees the leaf port's link)."""
    dev = sim.fabric.topology.devices[device]
    if case.where == "device":
        fault = Fault.parse(f"{case.fault}:{dev.name}{case.options}")
        return fault, ({(dev.name, "*")} if case.expect == "device" else set(), case.conditions)
    port = [p for p in dev.ports if p.role == case.where][nth]
    fault = Fault.parse(f"{case.fault}:{dev.name}:{port.name}{case.options}")
    keys = {(dev.name, port.name), (port.peer_device, port.peer_port)} if case.expect == "link" else set()
    return fault, (keys, case.conditions)


MATRIX = [pytest.param(path, kind, id=f"{path}-{kind}",
                       marks=[pytest.mark.skip(reason=CANNOT[(path, kind)])] if (path, kind) in CANNOT else [])
          for path in PATHS for kind in CASES]


async def _path_run(path: str, tmp: Path, faults: list[tuple[Case, str, int]], fabric: dict[str, int] | None = None,
                    deadline_intervals: int = FLAP_WINDOW + 3) -> tuple[Outcome, list[Group]]:
    """The daemon over `path`, each (case, switch, nth port) of `faults` injected together after the warm-up."""
    overrides = PATHS[path]
    if fabric is not None:
        overrides = {**overrides, "fabric": {**overrides["fabric"], **fabric}}
    sim = await start_sim(**overrides)
    writer = asyncio.create_task(_write_hosts(sim, tmp / "hosts")) if path == "hostnic" else None
    try:
        if writer is not None:
            await asyncio.sleep(0.6)  # the trees exist before the collectors read them
        made = [_fault(sim, case, device, nth) for case, device, nth in faults]
        out = await _run(sim, _collectors(path, sim, tmp), tmp, [f for f, _ in made],
                         deadline_intervals * INTERVAL_S, [group for _, group in made])
    finally:
        if writer is not None:
            writer.cancel()
    return out, [group for _, group in made]


def _said(findings: dict[tuple[str, str], Any]) -> dict[tuple[str, str], str]:
    return {k: f.explanation[:160] for k, f in findings.items()}


def _check(path: str, what: str, out: Outcome, groups: list[Group]) -> None:
    """Each group was met (`_met`; an empty group: nothing flagged), and nothing outside them was flagged."""
    allowed: set[tuple[str, str]] = set().union(*(keys for keys, _ in groups))
    if not allowed:
        assert not out.findings, _said(out.findings)
        return
    missing = [(sorted(keys), sorted(wanted)) for keys, wanted in groups if keys and not _met((keys, wanted),
                                                                                               out.conditions)]
    assert out.raised_after_s is not None and not missing, \
        f"{path}/{what}: none of {missing} flagged (as named); findings: {_said(out.findings)}, " \
        f"conditions: {out.conditions}"
    others = {k: v for k, v in _said(out.findings).items() if k not in allowed}
    assert not others, f"{path}/{what}: flagged beside {sorted(allowed)}: {others}"


# -- in every run: each path carries every link fault it can at once, each on its own switch ---------

# each fault on its own host and no switch with more than two faulted links (a device finding takes
# three), so no group a link is judged against holds two faults; the storm sits on the Cumulus leaf,
# whose SNMP MIB carries PFC (the simulator's OpenConfig leaf serves IF-MIB alone over SNMP)
SWITCH_OF = {"flap": ("leaf-r0-0", 0), "pfc_storm": ("leaf-r0-0", 2), "ber": ("leaf-r0-1", 0),
             "shutdown": ("leaf-r0-1", 1), "congested": ("leaf-r1-1", 0),
             # rail 1's first leaf: node001 (node000, node002, node004 and node005 hold the others)
             "retrained": ("leaf-r1-0", 1)}
FOUR_LEAVES = {"nodes": 8, "rails": 2, "leaves_per_rail": 2}


def _kinds(path: str) -> list[str]:
    return [k for k in SWITCH_OF if (path, k) not in CANNOT]


def _all_faults(path: str) -> Callable[[Path], Awaitable[tuple[Outcome, list[Group]]]]:
    return lambda tmp: _path_run(path, tmp, [(CASES[k], *SWITCH_OF[k]) for k in _kinds(path)], FOUR_LEAVES)


@pytest.mark.slow
@pytest.mark.parametrize("path", list(PATHS))
def test_every_link_fault_the_path_carries_is_found_at_once(path: str, runs: Runs,
                                                           request: pytest.FixtureRequest) -> None:
    """Path: `path`. Faults: every link fault kind the path can carry, injected together on four leaves
    (a shut port among them). Principle: detection is the same through every collector (issue #35 item
    6) and judges each link apart: each faulted link is flagged within the flap window, the shut port
    and every healthy link of the fabric raise nothing. The one-by-one matrix is `-m matrix`."""
    out, groups = _outcome(runs.of(request))
    _check(path, "+".join(_kinds(path)), out, groups)


async def _ecn_off(tmp: Path) -> tuple[Outcome, list[Group]]:
    case = CASES["ecn_off"]
    nodes, rails = case.fabric or (16, 4)
    return await _path_run("gnmi-arista", tmp, [(case, "leaf-r0-0", 0)], {"nodes": nodes, "rails": rails},
                           case.deadline_intervals)


@pytest.mark.slow
def test_a_switch_with_ecn_off_is_found_over_gnmi(runs: Runs, request: pytest.FixtureRequest) -> None:
    """Path: gNMI (Arista). Fault: ECN off on a whole leaf while its load-matched peers mark. Principle:
    ECN silence where the peers mark under the same load is one device finding (issue #35 item 4)."""
    out, groups = _outcome(runs.of(request))
    _check("gnmi-arista", "ecn_off", out, groups)


# -- the runs above, side by side -----------------------------------------------------------------------
# Each run waits on the fabric's clock far more than it computes (~15% of a CPU): they run four at a time,
# each in a process of its own (tests/apart.py), and each test checks its own outcome. The matrix below
# runs each in the test.


@dataclass
class Seen:
    """A finding as a run in another process saw it: what the checks read of it."""

    explanation: str
    conditions: list[str]


def _as_json(run: Callable[[Path], Awaitable[tuple[Outcome, list[Group]]]]) -> Callable[[Path], Awaitable[Any]]:
    async def as_json(tmp: Path) -> dict[str, Any]:
        out, groups = await run(tmp)
        return {"raised_after_s": out.raised_after_s,
                "findings": [[*k, f.explanation, list(f.conditions)] for k, f in out.findings.items()],
                "conditions": [[*k, sorted(c)] for k, c in out.conditions.items()],
                "groups": [[sorted(keys), sorted(wanted)] for keys, wanted in groups]}
    return as_json


def _outcome(doc: dict[str, Any]) -> tuple[Outcome, list[Group]]:
    out = Outcome(doc["raised_after_s"], {(d, p): Seen(e, c) for d, p, e, c in doc["findings"]},
                  {(d, p): set(c) for d, p, c in doc["conditions"]})
    return out, [({(d, p) for d, p in keys}, frozenset(wanted)) for keys, wanted in doc["groups"]]


RUNS = {
    "test_ufm_flapping_link_is_flagged_within_the_flap_window": _as_json(_ufm_flap),
    **{f"test_every_link_fault_the_path_carries_is_found_at_once[{p}]": _as_json(_all_faults(p)) for p in PATHS},
    "test_a_switch_with_ecn_off_is_found_over_gnmi": _as_json(_ecn_off),
}
runs = side_by_side(at_once=4)


# -- on demand (`scripts/test.sh -m matrix`, ~12 min): each fault alone through each path, and a
# healthy fabric through each path ------------------------------------------------------------------

@pytest.mark.matrix
@pytest.mark.parametrize("path", list(PATHS))
async def test_healthy_fabric_raises_nothing(path: str, tmp_path: Path) -> None:
    """Path: each. Fault: none. Load swings (jobs starting and stopping) and the FEC's trickle of
    corrected bits on every link are no finding, whatever path brings them."""
    out, _ = await _path_run(path, tmp_path, [])
    assert not out.findings, _said(out.findings)


@pytest.mark.matrix
@pytest.mark.parametrize(("path", "kind"), MATRIX)
async def test_fault_is_found_through_the_path(path: str, kind: str, tmp_path: Path) -> None:
    """Path: `path`. Fault: `kind` on leaf-r0-0, injected after a warm-up: its link (at either end) or
    its switch is flagged within the stated delay, and nothing else is; a shut port raises nothing."""
    case = CASES[kind]
    fabric = {"nodes": case.fabric[0], "rails": case.fabric[1]} if case.fabric else None
    out, groups = await _path_run(path, tmp_path, [(case, "leaf-r0-0", 0)], fabric, case.deadline_intervals)
    _check(path, kind, out, groups)
