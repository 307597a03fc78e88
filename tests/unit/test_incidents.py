"""Incidents are cut from flagged points a series at a time with numpy; they must be what taking
the points one by one in time order gives (the model below: raise, extend while the gap is at most
two intervals, clear), whatever mix of tags, fields, gaps and series a link has."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.postmortem.incidents import RANK, Flagged, Incident, attach_jobs, incidents
from fabricwatch.postmortem.store import Row

STEP = 30_000_000_000


def one_by_one(rows: list[Row], end_ns: int) -> list[dict[str, Any]]:
    """The model: every point in time order (ties in the order given), one incident open per link."""
    points = sorted(rows, key=lambda r: r.time_ns)
    last: dict[tuple[str, str], int] = {}
    steps = []
    for r in points:
        key = (r.tags.get("device", ""), r.tags.get("port", ""))
        if key in last and r.time_ns > last[key]:
            steps.append(r.time_ns - last[key])
        last[key] = r.time_ns
    gap = 2 * (min(steps) if steps else STEP)
    current: dict[tuple[str, str], dict[str, Any]] = {}
    done = []
    for r in points:
        key = (r.tags.get("device", ""), r.tags.get("port", ""))
        inc = current.get(key)
        if inc is not None and r.time_ns - inc["last"] > gap:
            done.append(inc)
            inc = None
        if inc is None:
            inc = current[key] = {"key": key, "raised": r.time_ns, "last": r.time_ns, "n": 0, "severity": "warning",
                                  "explanation": "", "conditions": set(), "ports": "", "open": False,
                                  "tags": dict(r.tags)}
        inc["last"] = r.time_ns
        inc["n"] += 1
        severity = str(r.tags.get("severity") or r.values.get("severity") or "warning")
        if RANK.get(severity, 1) > RANK.get(inc["severity"], 1) or not inc["explanation"]:
            inc["explanation"] = str(r.values.get("explanation") or "")
        if RANK.get(severity, 1) > RANK.get(inc["severity"], 1):
            inc["severity"] = severity
        condition = r.tags.get("condition") or r.tags.get("source") or str(r.values.get("source") or "")
        inc["conditions"].update(c for c in condition.split("+") if c)
        if r.values.get("ports"):
            inc["ports"] = str(r.values["ports"])
    newest = max([end_ns] + [r.time_ns for r in points])  # the detector's newest interval
    for inc in current.values():
        inc["open"] = newest - inc["last"] <= gap
        done.append(inc)
    return sorted(({"device": i["key"][0], "port": i["key"][1], "raised_ns": i["raised"], "last_ns": i["last"],
                    "intervals": i["n"], "severity": i["severity"], "explanation": i["explanation"],
                    "conditions": sorted(i["conditions"]), "ports": i["ports"], "open": i["open"], "tags": i["tags"]}
                   for i in done), key=lambda d: (d["device"], d["port"], d["raised_ns"]))


def cut(rows: list[Row], end_ns: int) -> list[dict[str, Any]]:
    return sorted(({"device": i.device, "port": i.port, "raised_ns": i.raised_ns, "last_ns": i.last_ns,
                    "intervals": i.intervals, "severity": i.severity, "explanation": i.explanation,
                    "conditions": sorted(i.conditions), "ports": i.ports, "open": i.open, "tags": i.tags}
                   for i in incidents(Flagged.from_rows(rows), as_of_ns=end_ns)),
                  key=lambda d: (d["device"], d["port"], d["raised_ns"]))


tag_sets = st.fixed_dictionaries({"device": st.sampled_from(["leaf1", "leaf2"]), "port": st.sampled_from(["p1", "*"])},
                                 optional={"severity": st.sampled_from(["warning", "critical", "ok", "bogus", ""]),
                                           "condition": st.sampled_from(["pause_storm", "flap+errors", ""]),
                                           "source": st.sampled_from(["rule", "forest"])})
field_sets = st.fixed_dictionaries({}, optional={
    "explanation": st.sampled_from(["", "PFC storm", "errors rising"]),
    "severity": st.sampled_from(["warning", "critical", ""]),
    "source": st.sampled_from(["rule", "forest+rule", ""]),
    "ports": st.sampled_from(["", "p1,p2", "p3"])})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(tag_sets, st.integers(0, 60), field_sets), max_size=60), st.integers(0, 70),
       st.sampled_from([STEP, STEP // 3, 7 * STEP]))
def test_incidents_are_the_points_taken_one_by_one(points: list[tuple[dict[str, str], int, dict[str, Any]]],
                                                   end: int, step: int) -> None:
    rows = [Row(t * step, tags, values) for tags, t, values in points]
    # points of one link at one instant from two series: the series that came first comes first
    series = list(dict.fromkeys(tuple(sorted(r.tags.items())) for r in rows))
    in_series_order = sorted(rows, key=lambda r: series.index(tuple(sorted(r.tags.items()))))
    assert cut(rows, end * step) == one_by_one(in_series_order, end * step)


def test_a_series_as_influxql_answers_it() -> None:
    """Columns in any order, missing ones, and nulls where a point has no such field."""
    tags = {"device": "leaf1", "port": "p1", "severity": "critical", "condition": "pause_storm"}
    values = [[t * STEP, None, "PFC storm" if t == 1 else None, 2.5] for t in (0, 1, 2, 9, 10)]
    found = incidents([Flagged.from_series(tags, ["time", "ports", "explanation", "score"], values)],
                      as_of_ns=11 * STEP)
    assert [(i.raised_ns, i.last_ns, i.intervals, i.open) for i in found] == [(0, 2 * STEP, 3, False),
                                                                             (9 * STEP, 10 * STEP, 2, True)]
    assert [i.explanation for i in found] == ["PFC storm", ""]
    assert all(i.severity == "critical" and i.conditions == {"pause_storm"} for i in found)


def test_an_incident_keeps_the_jobs_stored_in_its_own_intervals_on_its_own_link() -> None:
    first = Incident("leaf1", "swp1", raised_ns=10 * STEP, last_ns=12 * STEP, interval_ns=STEP)
    second = Incident("leaf1", "swp1", raised_ns=20 * STEP, last_ns=20 * STEP, interval_ns=STEP)
    other = Incident("leaf1", "swp2", raised_ns=10 * STEP, last_ns=12 * STEP, interval_ns=STEP)
    unstored = Incident("leaf2", "swp1", raised_ns=10 * STEP, last_ns=12 * STEP, interval_ns=STEP)
    attach_jobs([first, second, other, unstored], [
        ("leaf1", "swp1", 10 * STEP, 2, ["900", "41873"]),
        ("leaf1", "swp1", 11 * STEP, 7, ["41873", "1000", "1001", "1002", "1003"]),  # the first 5 of 7 stored
        ("leaf1", "swp1", 12 * STEP, 0, []),  # the jobs ended before the finding did
        ("leaf1", "swp1", 20 * STEP, 1, ["5"]),
        ("leaf1", "swp2", 11 * STEP, 0, []),
    ])
    # the most in one interval; the first ids of them all, in Slurm's (numeric) order, as many as a point keeps
    assert (first.jobs_total, first.jobs) == (7, ["900", "1000", "1001", "1002", "1003"])
    assert (second.jobs_total, second.jobs) == (1, ["5"])
    assert (other.jobs_total, other.jobs) == (0, [])  # Slurm was read: no job on it
    assert unstored.jobs_total is None and unstored.to_json()["jobs_total"] is None  # not known, not zero
