"""The pieces of the Slurm actions that need no Slurm: the drain reason, what the audit log says is
drained, and the bound on the jobs a finding shows."""

from __future__ import annotations

from pathlib import Path

from fabricwatch.core.topology import Topology
from fabricwatch.slurm.actions import drain_reason
from fabricwatch.slurm.audit import AuditLog, drains_since, outstanding
from fabricwatch.slurm.config import SlurmConfig
from fabricwatch.slurm.join import JobIndex
from fabricwatch.slurm.records import Job
from fabricwatch.slurm.service import SlurmService


def test_the_reason_names_the_link_and_the_first_clause_within_what_slurm_keeps() -> None:
    r = drain_reason("leaf-r0-0", "swp2", "PFC pause storm: 60,000 pause frames/s received; peers quiet")
    assert r == "fabricwatch: leaf-r0-0 swp2 PFC pause storm: 60,000 pause frames/s received"
    long = drain_reason("leaf-r0-0", "swp2", "x" * 500)
    assert len(long) == 200 and long.endswith("...")


def test_the_audit_log_says_what_is_still_drained_and_skips_a_torn_line(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.jsonl")
    log.append({"action": "drain", "outcome": "done", "node": "gpu1", "time_unix": 100.0})
    log.append({"action": "drain", "outcome": "refused", "node": "gpu2", "time_unix": 200.0})
    log.append({"action": "drain", "outcome": "done", "node": "gpu3", "time_unix": 300.0})
    log.append({"action": "resume", "outcome": "done", "node": "gpu1", "time_unix": 400.0})
    log.append({"action": "drain", "outcome": "would", "node": "gpu4", "time_unix": 500.0})
    with open(tmp_path / "a.jsonl", "a") as f:
        f.write('{"action": "drain", "outc')  # a crash mid-write
    entries = log.read()
    assert len(entries) == 5 and entries[0]["time"] == "1970-01-01T00:01:40Z"
    assert sorted(outstanding(entries)) == ["gpu3"]
    assert sorted(outstanding(entries, dry_run=True)) == ["gpu4"]
    assert drains_since(entries, 250.0) == 1 and drains_since(entries, 0.0) == 2


def test_a_finding_shows_a_bounded_list_of_jobs_and_how_many_there_are() -> None:
    topo = Topology.from_records([{"device": "leaf", "port": "swp1", "role": "leaf_down", "peer_device": "n1"}])
    service = SlurmService(SlurmConfig(command="squeue", max_jobs_shown=3), lambda: topo)
    assert service.about("leaf", "swp1") == {"jobs": [], "jobs_total": None}  # Slurm not read yet
    service.index = JobIndex([Job(str(i), "u", f"j{i}", ("n1",)) for i in range(10, 0, -1)], topo, lambda n: n)
    about = service.about("leaf", "swp1")
    assert about["jobs_total"] == 10 and [j["id"] for j in about["jobs"]] == ["1", "2", "3"]
    wide = Job("99", "u", "wide", tuple(f"n{i}" for i in range(1, 5001)))
    service.index = JobIndex([wide], topo, lambda n: n)
    shown = service.about("leaf", "swp1")["jobs"][0]
    assert len(shown["nodes"]) == 64 and shown["nodes_total"] == 5000
    service.last_error = "slurmrestd jobs: HTTP 500"
    assert service.about("leaf", "swp1")["jobs_error"] == "slurmrestd jobs: HTTP 500"


def test_an_audit_log_that_cannot_be_written_says_so(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert AuditLog(tmp_path / "a.jsonl").writable() is None
    assert "cannot write the audit log" in str(AuditLog(tmp_path / "file" / "a.jsonl").writable())


class F:
    def __init__(self, device: str, port: str, severity: str = "critical") -> None:
        self.device, self.port, self.severity, self.explanation = device, port, severity, "x"
        self.time_ns = 0


def test_only_persisting_findings_on_host_links_of_enough_severity_are_due(tmp_path: Path) -> None:
    from fabricwatch.slurm.actions import Drainer
    from fabricwatch.slurm.config import ActionsConfig

    topo = Topology.from_records([
        {"device": "leaf", "port": "swp1", "role": "leaf_down", "peer_device": "n1", "peer_port": "mlx5_0/1"},
        {"device": "leaf", "port": "swp9", "role": "leaf_up", "peer_device": "spine", "peer_port": "p1"}])
    d = Drainer(ActionsConfig(enabled=True, persist_intervals=2), None, None,  # type: ignore[arg-type]
                AuditLog(tmp_path / "a.jsonl"), lambda h: h)
    host, uplink, warn = F("leaf", "swp1"), F("leaf", "swp9"), F("n1", "mlx5_0/1", "warning")
    d.observe([host, uplink, warn])
    assert d.due([host, uplink, warn], topo) == []  # one interval
    d.observe([host, uplink, warn])
    assert [(f.device, h) for f, h in d.due([host, uplink, warn], topo)] == [("leaf", "n1")]  # not the uplink
    d.observe([uplink])  # the host link's finding cleared for an interval: it starts again
    d.observe([host, uplink])
    assert d.due([host, uplink], topo) == []
    d.cfg = ActionsConfig(enabled=True, persist_intervals=1, severity="warning")
    d.observe([host, warn])
    assert {h for _, h in d.due([host, warn], topo)} == {"n1"} and len(d.due([host, warn], topo)) == 2


def test_a_flagged_link_exposes_its_job_count_and_only_the_first_ids() -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    from fabricwatch.slurm.metrics import FIRST_JOBS, SlurmMetrics

    topo = Topology.from_records([{"device": "leaf", "port": "swp1", "role": "leaf_down", "peer_device": "n1"}])
    service = SlurmService(SlurmConfig(command="squeue"), lambda: topo)
    service.index = JobIndex([Job(str(i), "u", f"j{i}", ("n1",)) for i in range(12, 0, -1)], topo, lambda n: n)
    service.observe([F("leaf", "swp1")])
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SlurmMetrics(service))
    text = generate_latest(registry).decode()
    assert FIRST_JOBS == 5
    assert 'fabricwatch_link_jobs{device="leaf",port="swp1"} 12.0' in text
    assert 'fabricwatch_link_jobs_info{device="leaf",first_jobs="1,2,3,4,5",port="swp1"} 1.0' in text
