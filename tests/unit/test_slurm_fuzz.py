"""Slurm's answers are input from elsewhere: any text as a host list, any JSON as a jobs or nodes answer,
gives names or a ValueError (SlurmAnswerError), never another exception or an unbounded list."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from fabricwatch.slurm.hostlist import MAX_NAMES, expand
from fabricwatch.slurm.records import SlurmAnswerError, parse_jobs, parse_nodes

HOSTLISTY = st.text(alphabet="gpu0123456789[]-,_٣²", max_size=60)
SCALAR = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12) | HOSTLISTY
JSON = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=10), inner, max_size=5), max_leaves=20)
STATE = st.sampled_from(["RUNNING", "PENDING"]) | st.lists(st.sampled_from(["RUNNING", "DRAIN"]), max_size=2) | JSON
JOB = st.fixed_dictionaries(
    {"job_id": st.integers(0, 10**6) | JSON, "job_state": STATE, "nodes": HOSTLISTY | JSON},
    optional={"array_job_id": JSON, "array_task_id": JSON, "user_name": JSON, "name": JSON, "start_time": JSON,
              "state": STATE, "state_flags": JSON, "partitions": JSON, "name ": JSON})


@given(HOSTLISTY | st.text(max_size=60))
@settings(max_examples=400, deadline=None)
def test_any_host_list_expands_or_is_refused(text: str) -> None:
    try:
        names = expand(text)
    except ValueError:
        return
    assert len(names) <= MAX_NAMES and all(isinstance(n, str) and n for n in names)


@given(st.dictionaries(st.sampled_from(["jobs", "nodes", "meta"]), st.lists(JOB, max_size=3) | JSON) | JSON)
@settings(max_examples=400, deadline=None)
@example({"nodes": [{"name": "gpu1", "state": "idle", "state_flags": 5, "partitions": "debug"}]})
@example({"nodes": [{"name": "gpu2", "state": []}]})  # a state list with no word (found by CI's hypothesis run)
def test_any_answer_reads_or_is_refused(doc: object) -> None:
    for parse in (parse_jobs, parse_nodes):
        try:
            parse(doc)
        except SlurmAnswerError:
            pass
