"""The topology read from real saved outputs (a 2,328-node HDR fabric's ibnetdiscover, a lab's UFM
resources, hosts' lldpd JSON), and the cabling check on a plan made from it with cables swapped,
removed, miswired and downshifted on purpose: it reports exactly those, with both ends."""

from __future__ import annotations

import contextlib
import copy
import csv
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.cli.main import main
from fabricwatch.core.errors import TargetError
from fabricwatch.core.neighbours import Neighbour
from fabricwatch.core.problems import Problem
from fabricwatch.core.protocols import ReadsNeighbours
from fabricwatch.topology.check import actual_ends, check, load_plan
from fabricwatch.topology.roles import load_rules, records
from fabricwatch.topology.sources import from_ibnetdiscover, from_lldp, from_lldpctl, from_ufm

FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures"
IB = FIXTURES / "ib" / "ibnetdiscover_director.txt"
UFM = FIXTURES / "ufm" / "ndt_topoparse_data"


@pytest.fixture(scope="module")
def ib() -> list[dict[str, str]]:
    return records(from_ibnetdiscover(IB.read_text()), fabric_name="ib")


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_a_2328_node_hdr_fabric_with_every_switch_host_and_link(ib: list[dict[str, str]]) -> None:
    fabric = from_ibnetdiscover(IB.read_text())
    kinds = Counter(n.kind for n in fabric.nodes.values())
    # 2,328 adapters: 280 servers' 2,225 grouped into one host each, 103 default-named ones a host each
    assert kinds == {"switch": 400, "host": 383} and len(fabric.cables) == 8723
    # 103 adapters kept the default description: one name on many GUIDs, told apart, reported
    [(name, guids)] = fabric.duplicates.items()
    assert name.startswith("MT4123 ConnectX6") and len(guids) == 103
    role_of = {r["device"]: r["role"] for r in ib}
    by_model: dict[str, set[str]] = {}
    for device, role in role_of.items():
        model = "MQM8700" if ":MQM8700/" in device else "MCS8500/L" if "/L" in device else \
            "MCS8500/S" if "/S" in device else "host"
        by_model.setdefault(model, set()).add(role)
    # the shape of the graph gives what the names say: top-of-rack MQM8700 leaves, the director's
    # line blades as spines and its spine blades as super-spines; hosts are hosts
    assert by_model == {"MQM8700": {"leaf_down", "leaf_up"}, "MCS8500/L": {"spine", "spine_up"},
                        "MCS8500/S": {"super_spine"}, "host": {"host"}}, by_model
    assert all("role" in r["guessed"] for r in ib)  # nothing was stated: every role is a guess
    # each named host has 8 HDR NICs: rails 0-7 in NIC order, and the leaf port facing a NIC has its rail
    hosts = [r for r in ib if r["role"] == "host" and not r["device"].startswith("MT4123")]
    assert Counter(r["rail"] for r in hosts) == Counter({str(i): len(hosts) // 8 for i in range(8)}) or \
        set(Counter(r["rail"] for r in hosts)) == {str(i) for i in range(8)}
    down = {(r["device"], r["port"]): r["rail"] for r in ib if r["role"] == "leaf_down" and "rail" in r}
    for r in hosts:
        assert down[(r["peer_device"], r["peer_port"])] == r["rail"]
    speeds = Counter((r["speed"], r["width"]) for r in ib)
    assert speeds == {("200G", "4x"): 2 * 8719, ("100G", "4x"): 2 * 4}  # four links came up at EDR


def test_ufm_resources_give_the_systems_and_links_ufm_knows() -> None:
    systems, ports, links = (json.loads((UFM / f"{n}.json").read_text()) for n in ("systems", "ports", "links"))
    fabric = from_ufm(systems, ports, links)
    recs = records(fabric)
    types = {s["system_name"].strip(): s["type"] for s in systems if s.get("system_name")}
    # UFM's links, less the few whose end is claimed by two links of the lab's recabled, partly
    # stale inventory: each of those is reported, never silently merged
    conflicts = [p for p in fabric.problems if p.kind == "conflict" and "two far ends" in p.detail]
    assert len(fabric.cables) >= 0.99 * len(links) and len(fabric.cables) + len(conflicts) >= len(links)
    assert fabric.duplicates == {"Infiniscale-IV Mellanox Technologies": fabric.duplicates[
        "Infiniscale-IV Mellanox Technologies"]} and len(fabric.duplicates["Infiniscale-IV Mellanox Technologies"]) == 5
    for r in recs:
        if r["device"] in types and types[r["device"]] == "switch":
            assert r["role"] not in ("host",), r
        if r["device"] in types and types[r["device"]] == "host":
            assert r["role"] == "host", r
    link_ends = {(r["device"], r["port"]) for r in recs}
    assert len(link_ends) == 2 * len(fabric.cables)
    assert {r["width"] for r in recs if "width" in r} <= {"1x", "4x", "8x", "12x"}


def test_hosts_lldp_neighbours_from_lldpd_json() -> None:
    f = from_lldpctl((FIXTURES / "lldp/lldpctl/clnet36.json").read_text(), "clnet36")
    assert {(c.a, c.b, c.speed) for c in f.cables.values()} == {
        (("clnet36", "ens14f0np0"), ("CL-A052A", "Twenty-FiveGigE1/0/16"), "25G"),
        (("clnet36", "eth0"), ("CL-RLF233", "FourHundredGigE1/0/98"), ""),
    }
    assert not from_lldpctl((FIXTURES / "lldp/lldpctl/empty.json").read_text(), "x").cables
    bad = from_lldpctl("{not json", "h1")
    assert not bad.cables and (bad.problems[0].target, bad.problems[0].kind) == ("h1", "unreadable")
    assert str(bad.problems[0]).startswith("h1: not lldpd JSON")
    recs = records(f)
    assert {r["role"] for r in recs if r["device"] == "clnet36"} == {"host"}
    assert {r["role"] for r in recs if r["device"].startswith("CL-")} == {"leaf_down"}


def test_role_rules_state_what_the_graph_cannot_know(tmp_path: Path) -> None:
    rules = tmp_path / "roles.toml"
    rules.write_text('[[role]]\ndevice = "MCS8500/S"\nrole = "spine"\n')
    recs = records(from_ibnetdiscover(IB.read_text()), rules=load_rules(rules))
    stated = [r for r in recs if "MCS8500/S" in r["device"]]
    assert stated and all("role" not in r.get("guessed", "") for r in stated)
    rules.write_text('[[role]]\ndevice = "("\nrole = "spine"\n')
    with pytest.raises(ValueError, match=r"role\[0\]\.device: not a regular expression"):
        load_rules(rules)


def _cables(recs: list[dict[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
    return {(r["device"], r["port"]): r for r in recs}


def _rewire(actual: dict[tuple[str, str], dict[str, str]], a: tuple[str, str], b: tuple[str, str]) -> None:
    """Cable end a to end b (both records), whatever they reached before."""
    for near, far in ((a, b), (b, a)):
        rec = actual.setdefault(near, {"device": near[0], "port": near[1]})
        rec["peer_device"], rec["peer_port"] = far


def test_check_reports_exactly_what_was_changed_with_both_ends(ib: list[dict[str, str]], tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(ib))
    actual = _cables(copy.deepcopy(ib))
    hosts = sorted(k for k, r in actual.items() if r["role"] == "host" and not k[0].startswith("MT4123"))
    (a, c, gone, mis, slow, narrow) = hosts[0], hosts[1], hosts[2], hosts[3], hosts[4], hosts[5]
    b, d = (actual[a]["peer_device"], actual[a]["peer_port"]), (actual[c]["peer_device"], actual[c]["peer_port"])
    _rewire(actual, a, d)  # a swapped pair: a <-> d, c <-> b
    _rewire(actual, c, b)
    gone_far = (actual[gone]["peer_device"], actual[gone]["peer_port"])
    del actual[gone], actual[gone_far]  # a cable taken out
    mis_far = (actual[mis]["peer_device"], actual[mis]["peer_port"])
    free = ("MF0;spare-leaf:MQM8700/U1", "40")
    del actual[mis_far]
    _rewire(actual, mis, free)  # plugged into a spare port
    for k in (slow, (actual[slow]["peer_device"], actual[slow]["peer_port"])):
        actual[k]["speed"] = "100G"  # came up at EDR
    for k in (narrow, (actual[narrow]["peer_device"], actual[narrow]["peer_port"])):
        actual[k]["width"] = "1x"
    _rewire(actual, ("MF0;spare-leaf:MQM8700/U1", "1"), ("new-host mlx5_0", "1"))  # not in the plan
    path = tmp_path / "actual.json"
    path.write_text(json.dumps(list(actual.values())))

    diffs = check(load_plan(plan), actual_ends(list(actual.values())))
    got = Counter(d.kind for d in diffs)
    assert got == {"swapped": 1, "missing": 2, "miswired": 1, "speed": 1, "width": 1, "unexpected": 1}, \
        [d.text() for d in diffs]
    swap = next(d for d in diffs if d.kind == "swapped")
    # told from either side: two ends that have each other's far ends
    assert {frozenset(swap.ends), frozenset(swap.planned)} == {frozenset((a, c)), frozenset((b, d))}
    missing = {tuple(sorted(x.ends)) for x in diffs if x.kind == "missing"}
    assert missing == {tuple(sorted((gone, gone_far))), tuple(sorted((mis_far, mis)))}
    mw = next(d for d in diffs if d.kind == "miswired")
    assert mw.ends == [mis, free] and mw.planned == [mis_far]
    assert next(d for d in diffs if d.kind == "speed").detail == "100G, planned 200G"
    assert next(d for d in diffs if d.kind == "width").detail == "1x, planned 4x"
    # through the command line: exit 1, one line each, and the same with the plan as a CSV
    code, out, _ = cli("topology", "check", "--plan", str(plan), "--actual", str(path))
    assert code == 1 and "7 differences from the plan" in out and "swapped: " in out
    assert len(out.strip().splitlines()) == 8 and f"{mis[0]} {mis[1]} reaches {free[0]} {free[1]}" in out
    sheet = tmp_path / "plan.csv"
    with open(sheet, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Device", "Port", "Peer_Device", "Peer_Port", "Speed", "Width"])
        for r in ib[::2]:  # one row per cable is enough: the check reads both directions
            w.writerow([r["device"], r["port"], r["peer_device"], r["peer_port"], r.get("speed", ""),
                        r.get("width", "")])
    code, out, _ = cli("topology", "check", "--plan", str(sheet), "--actual", str(path), "--json")
    doc: dict[str, Any] = json.loads(out)
    assert code == 1 and Counter(x["kind"] for x in doc["differences"]) == got
    code, out, _ = cli("topology", "check", "--plan", str(plan), "--ibnetdiscover", str(IB))
    assert code == 0 and "8,723 planned cables: matches the plan" in out


def test_a_plan_that_cannot_be_read_says_why(tmp_path: Path) -> None:
    bad = tmp_path / "plan.csv"
    bad.write_text("a,b\n1,2\n")
    code, _, err = cli("topology", "check", "--plan", str(bad), "--actual", str(bad))
    assert code == 2 and "the header needs device, port, peer_device, peer_port" in err
    two = tmp_path / "two.json"
    two.write_text(json.dumps([{"device": "s1", "port": "1", "peer_device": "h1", "peer_port": "1"},
                               {"device": "s1", "port": "1", "peer_device": "h2", "peer_port": "1"}]))
    with pytest.raises(ValueError, match="s1 1 is planned to two far ends"):
        load_plan(two)


def test_firmware_and_module_outliers_among_switches_of_a_model(tmp_path: Path) -> None:
    """The lab's UFM resources as saved (firmware N/A, cable_info empty): nothing is an outlier.
    The same with firmware and cables filled in, one switch and one cable odd: exactly those two,
    through `topology check --ufm-dir` as an operator runs it."""
    from fabricwatch.topology.outliers import outliers

    systems, ports, links = (json.loads((UFM / f"{n}.json").read_text()) for n in ("systems", "ports", "links"))
    assert outliers(from_ufm(systems, ports, links)) == []
    systems, links = copy.deepcopy(systems), copy.deepcopy(links)
    model = Counter(s["model"] for s in systems if s.get("type") == "switch").most_common(1)[0][0]
    of_model = [s for s in systems if s.get("model") == model]
    for s in of_model:
        s["fw_version"] = "27.2010.6102"
    odd_switch = of_model[3]
    odd_switch["fw_version"] = "27.2008.3328"
    for ln in links:
        ln["cable_info"] = {"vendor": "Mellanox", "part_number": "MCP1650-H002E26", "serial_number": "MT0001",
                            "length": "2 m", "identifier": "QSFP56"}
    odd_link = links[10]
    odd_link["cable_info"] = {**odd_link["cable_info"], "part_number": "MFS1S00-H003E", "vendor": "Mellanox"}
    found = outliers(from_ufm(systems, ports, links))
    kinds = Counter(d.kind for d in found)
    assert kinds["firmware"] == 1 and found[0].ends == [(odd_switch["system_name"].strip(), "")]
    assert f"{len(of_model) - 1} of {len(of_model)} {model} switches run 27.2010.6102" in found[0].detail
    modules = [d for d in found if d.kind == "module"]
    assert modules and all("MFS1S00-H003E" in d.detail for d in modules)  # the odd cable, at its switch ends
    assert len(modules) <= 2
    ufm = tmp_path / "ufm"
    ufm.mkdir()
    for name, data in (("systems", systems), ("ports", ports), ("links", links)):
        (ufm / f"{name}.json").write_text(json.dumps(data))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(records(from_ufm(systems, ports, links))))
    code, out, _ = cli("topology", "check", "--plan", str(plan), "--ufm-dir", str(ufm))
    assert code == 1 and "firmware: " + odd_switch["system_name"].strip() in out and "module: " in out


class _Reader:
    """A target that reads LLDP without being any collector kind."""

    kind = "fake"

    def __init__(self, device: str, found: list[Neighbour] | None) -> None:
        self.device, self.found = device, found

    async def neighbours(self) -> tuple[list[Neighbour], list[Problem]]:
        if self.found is None:
            raise TargetError("timeout", "no answer")
        return self.found, [Problem("lldp", self.device, "unreadable", "swp9: an LLDP neighbour without a port")]


async def test_lldp_is_read_from_any_target_that_reads_neighbours() -> None:
    readers = [_Reader("sw1", [Neighbour("swp1", "h1", "eth0", True)]), _Reader("sw2", None)]
    assert all(isinstance(r, ReadsNeighbours) for r in readers)
    fabric = await from_lldp(readers)
    assert [c.key for c in fabric.cables.values()] == [(("h1", "eth0"), ("sw1", "swp1"))]
    # a target that did not answer is a record the daemon reads its device from, not a sentence
    assert [(p.target, p.kind) for p in fabric.problems] == [("sw1", "unreadable"), ("sw2", "unreachable")]
    assert str(fabric.problems[1]) == "sw2: LLDP over FAKE failed: no answer"
