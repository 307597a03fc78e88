"""The topology parsers take what hosts and operators hand them: any JSON as lldpd output, any text
as a cabling plan, any flagged points as incidents. Only the project's own errors escape."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricwatch.postmortem.incidents import Flagged, incidents
from fabricwatch.postmortem.store import Row
from fabricwatch.topology.check import check, load_plan
from fabricwatch.topology.sources import from_lldpctl

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                           lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=10), c, max_size=4),
                           max_leaves=25)
lldp_shaped = st.builds(lambda ifs: {"lldp": {"interface": ifs}},
                        st.lists(st.dictionaries(st.text(max_size=8), json_values, max_size=2), max_size=4)
                        | st.dictionaries(st.text(max_size=8), json_values, max_size=3))


@settings(max_examples=300, deadline=None)
@given(json_values | lldp_shaped)
def test_any_json_as_lldpd_output_gives_cables_or_problems(doc: object) -> None:
    f = from_lldpctl(json.dumps(doc), "h1")
    for c in f.cables.values():
        assert c.a[0] == "h1" and c.a[1] and c.b[0] and c.b[1]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300), st.booleans())
def test_any_text_as_a_plan_is_read_or_refused_with_value_error(tmp_path: Path, text: str, as_csv: bool) -> None:
    path = tmp_path / ("plan.csv" if as_csv else "plan.json")
    path.write_bytes(text.encode("utf-8", "replace"))
    try:
        plan = load_plan(path)
    except ValueError:
        return
    assert check(plan, plan) == []  # whatever was read, the plan matches itself


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["d1", "d2"]), st.sampled_from(["p1", "*"]), st.integers(0, 50),
                          st.sampled_from(["warning", "critical", "", "bogus"])), max_size=40))
def test_incidents_cover_every_flagged_point_once(points: list[tuple[str, str, int, str]]) -> None:
    rows = [Row(t * 30_000_000_000, {"device": d, "port": p, "severity": s}, {"explanation": "x"})
            for d, p, t, s in points]
    found = incidents(Flagged.from_rows(rows), as_of_ns=51 * 30_000_000_000)
    distinct = {(d, p, t) for d, p, t, _ in points}
    assert sum(i.intervals for i in found) == len(rows)
    assert {(i.device, i.port) for i in found} == {(d, p) for d, p, _ in distinct}
    for i in found:
        assert i.raised_ns <= i.last_ns and i.duration_s > 0
    ranks = [i.rank for i in found]
    assert ranks == sorted(ranks, reverse=True)


@settings(max_examples=200, deadline=None)
@given(st.integers(4, 12), st.lists(st.tuples(st.sampled_from(["swap", "remove", "miswire", "slow"]),
                                              st.integers(0, 11), st.integers(0, 11)), max_size=3))
def test_check_names_every_touched_cable_and_nothing_else(n: int, ops: list[tuple[str, int, int]]) -> None:
    from fabricwatch.topology.check import PlannedEnd

    plan = {}
    for i in range(n):
        a, b = ("leaf", str(i)), (f"host{i}", "eth0")
        plan[a], plan[b] = PlannedEnd(b, "400G"), PlannedEnd(a, "400G")
    actual = {k: PlannedEnd(v.peer, v.speed) for k, v in plan.items()}
    touched: set[tuple[str, str]] = set()
    for op, i, j in ops:
        i, j = i % n, j % n
        a, c = ("leaf", str(i)), ("leaf", str(j))
        if a in touched or c in touched or a not in actual or c not in actual:
            continue
        b, d = actual[a].peer, actual[c].peer
        if b in touched or d in touched:
            continue
        if op == "swap" and i != j:
            actual[a], actual[d] = PlannedEnd(d, "400G"), PlannedEnd(a, "400G")
            actual[c], actual[b] = PlannedEnd(b, "400G"), PlannedEnd(c, "400G")
            touched |= {a, b, c, d}
        elif op == "remove":
            del actual[a], actual[b]
            touched |= {a, b}
        elif op == "miswire":
            spare = ("spare", str(i))
            del actual[b]
            actual[a], actual[spare] = PlannedEnd(spare, "400G"), PlannedEnd(a, "400G")
            touched |= {a, b, spare}
        elif op == "slow":
            actual[a], actual[b] = PlannedEnd(b, "200G"), PlannedEnd(a, "200G")
            touched |= {a, b}
    diffs = check(plan, actual)
    named = {e for d in diffs for e in (*d.ends, *d.planned)}
    assert named <= touched, (named - touched, [d.text() for d in diffs])
    assert touched <= named, (touched - named, [d.text() for d in diffs])
