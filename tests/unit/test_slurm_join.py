"""Jobs <-> links: a host link hurts the jobs on its host; a leaf uplink or its spine port hurts the jobs
with hosts under that leaf and elsewhere, never a job wholly under one leaf; host lists expand as Slurm's."""

from __future__ import annotations

import pytest

from fabricwatch.core.topology import Topology
from fabricwatch.slurm.config import SlurmConfig
from fabricwatch.slurm.hostlist import expand
from fabricwatch.slurm.join import JobIndex
from fabricwatch.slurm.records import Job, SlurmAnswerError, parse_jobs, parse_nodes


def fabric() -> Topology:
    """Two leaves of two hosts each (node00/01 under leaf-a, node02/03 under leaf-b), one spine."""
    records: list[dict[str, object]] = []
    for leaf, hosts in (("leaf-a", ("node00", "node01")), ("leaf-b", ("node02", "node03"))):
        for i, host in enumerate(hosts):
            records.append({"device": leaf, "port": f"swp{i + 1}", "role": "leaf_down", "peer_device": host,
                            "peer_port": "mlx5_0/1"})
        records.append({"device": leaf, "port": "swp9", "role": "leaf_up", "peer_device": "spine",
                        "peer_port": f"to-{leaf}"})
        records.append({"device": "spine", "port": f"to-{leaf}", "role": "spine", "peer_device": leaf,
                        "peer_port": "swp9"})
    return Topology.from_records(records)


JOBS = [
    Job("11", "alice", "across", ("gpu00", "gpu02")),   # leaf-a and leaf-b
    Job("12", "bob", "local-a", ("gpu00", "gpu01")),    # wholly under leaf-a
    Job("13", "carol", "local-b", ("gpu03",)),          # wholly under leaf-b
]
NAMES = SlurmConfig(command="squeue", node_names={f"gpu0{i}": f"node0{i}" for i in range(4)})


def ids(index: JobIndex, device: str, port: str) -> list[str]:
    return [j.id for j in index.on_link(device, port)]


def test_a_leaf_uplink_finding_hurts_the_jobs_that_leave_the_leaf() -> None:
    index = JobIndex(JOBS, fabric(), NAMES.host_of)
    assert ids(index, "leaf-a", "swp9") == ["11"]  # not 12: it never leaves leaf-a
    assert ids(index, "spine", "to-leaf-a") == ["11"]  # the spine port facing leaf-a: the same jobs
    assert ids(index, "leaf-b", "swp9") == ["11"]  # 13 stays under leaf-b


def test_a_host_link_finding_hurts_the_jobs_on_that_host_through_the_name_mapping() -> None:
    index = JobIndex(JOBS, fabric(), NAMES.host_of)
    assert ids(index, "leaf-a", "swp1") == ["11", "12"]  # node00 = gpu00 in Slurm
    assert ids(index, "node00", "mlx5_0/1") == ["11", "12"]  # the host's own end of the cable
    assert ids(index, "leaf-b", "swp2") == ["13"]
    # without the mapping Slurm's names are not the fabric's hosts: nothing joins
    assert ids(JobIndex(JOBS, fabric(), lambda n: n), "leaf-a", "swp1") == []


def test_a_device_finding_hurts_every_job_crossing_the_switch_and_an_unknown_port_none() -> None:
    """A switch stuck as a whole (or with ECN off) slows every job whose traffic crosses it: the jobs of
    its host links and of its uplinks; a spine, the jobs that leave a leaf."""
    index = JobIndex(JOBS, fabric(), NAMES.host_of)
    assert ids(index, "leaf-a", "*") == ["11", "12"]  # 13 never touches leaf-a
    assert ids(index, "spine", "*") == ["11"]  # only 11 crosses the spine
    assert ids(index, "leaf-a", "swp7") == []
    assert ids(index, "nowhere", "*") == []


def test_host_lists_expand_as_slurm_writes_them() -> None:
    assert expand("node[000-002,007],gpu5") == ["node000", "node001", "node002", "node007", "gpu5"]
    assert expand("r[1-2]-n[08-09]") == ["r1-n08", "r1-n09", "r2-n08", "r2-n09"]
    assert expand("") == []
    for bad in ("node[1-", "node]1[", "node[a-b]", "node[5-1]", "n[0-99999999]"):
        with pytest.raises(ValueError):
            expand(bad)


def test_slurm_answers_are_read_and_others_refused() -> None:
    doc = {"jobs": [
        {"job_id": 7, "user_name": "alice", "name": "train", "nodes": "gpu[00-01]", "job_state": "RUNNING",
         "partition": "debug", "start_time": 100, "array_job_id": 0, "array_task_id": None},
        {"job_id": 9, "array_job_id": 8, "array_task_id": 1, "user_name": "bob", "name": "a", "nodes": "gpu02",
         "job_state": "RUNNING"},
        {"job_id": 10, "user_name": "bob", "name": "queued", "nodes": "", "job_state": "PENDING"},
    ]}
    jobs = parse_jobs(doc)
    assert [(j.id, j.nodes) for j in jobs] == [("7", ("gpu00", "gpu01")), ("8_1", ("gpu02",))]
    assert len(parse_jobs(doc, states=None)) == 3
    nodes = parse_nodes({"nodes": [{"name": "gpu00", "state": "idle", "state_flags": ["DRAIN"],
                                    "partitions": ["debug"], "reason": "x"},
                                   {"name": "gpu01", "state": "allocated", "state_flags": []}]})
    assert [n.drained for n in nodes] == [True, False]
    for bad in ({"jobs": "x"}, ["jobs"], {"jobs": [{"job_id": "7"}]},
                {"jobs": [{"job_id": 7, "job_state": "RUNNING", "nodes": 3}]}):
        with pytest.raises(ValueError):
            parse_jobs(bad)
    # a host list it cannot read fails the read, naming the job (the join stays as last read)
    with pytest.raises(SlurmAnswerError, match="job 7: unbalanced"):
        parse_jobs({"jobs": [{"job_id": 7, "job_state": "RUNNING", "nodes": "gpu[1-"}]})
