"""Slurm, for real: a private cluster (munged, slurmctld, a slurmd per node, slurmrestd) on 127.0.0.1.
A running job shows up joined to a finding on its host's link (/api/findings, MQTT, `query job`); with
actions on, the suspect node is drained with the reason, `actions resume` refuses while the finding is
active and resumes once it cleared; a burst drains no more than the caps; a dry run drains nothing."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import aiomqtt
import pytest
import tomli_w

from fabricwatch.core.topology import Topology
from fabricwatch.daemon.config import parse
from fabricwatch.simulator.faults import Fault
from fabricwatch.slurm.actions import Drainer
from fabricwatch.slurm.audit import AuditLog
from fabricwatch.slurm.commands import SlurmError
from fabricwatch.slurm.config import ActionsConfig, SlurmConfig
from fabricwatch.slurm.control import Scontrol
from fabricwatch.slurm.readers import CommandReader
from tests.e2e.test_fabric_page import chromium
from tests.integration.helpers import start_runner, start_sim
from tests.servers import InfluxDB1, Mosquitto, free_port
from tests.slurm_cluster import SlurmCluster

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
NODES = ["gpu000", "gpu001", "gpu002", "gpu003"]
NAMES = {n: n.replace("gpu", "node") for n in NODES}  # Slurm's gpu000 is the fabric's node000


@pytest.fixture(scope="module")
def slurm() -> Iterator[SlurmCluster]:
    cluster = SlurmCluster(NODES)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def clean(slurm: SlurmCluster) -> Iterator[SlurmCluster]:
    """Each test starts and ends with no job and no drained node."""
    yield slurm
    slurm.run("scancel", "--user=root", check=False)
    slurm.resume_all()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricwatch", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


async def collect(port: int, into: list[dict[str, Any]]) -> None:
    async with aiomqtt.Client("127.0.0.1", port, identifier="fw-slurm-test") as client:
        await client.subscribe("fabricwatch/+/events/#", qos=1)
        async for msg in client.messages:
            into.append(json.loads(msg.payload))  # type: ignore[arg-type]


async def until(what: str, ok: Any, timeout: float = 60.0) -> None:
    for _ in range(int(timeout / 0.25)):
        if await ok():
            return
        await asyncio.sleep(0.25)
    raise AssertionError(f"not {what} within {timeout} s")


async def test_a_job_is_joined_to_its_host_link_finding_drained_and_resumed_once_cleared(
        clean: SlurmCluster, influx: InfluxDB1, tmp_path: Path) -> None:
    slurm = clean
    job = slurm.sbatch("-N2", "-w", "gpu000,gpu001", "-J", "allreduce", "--wrap", "sleep 300")
    other = slurm.sbatch("-N1", "-w", "gpu003", "--wrap", "sleep 300")  # on another host: not hurt
    influx.create_db("slurm")
    broker = Mosquitto(tmp_path / "mqtt")
    broker.start()
    sim = await start_sim(fabric={"nodes": 4, "rails": 2, "spines": 2})
    port = next(p for d in sim.fabric.topology.devices.values() for p in d.ports
                if p.role == "leaf_down" and p.peer_device == "node000" and p.rail == 0)
    sim.fabric.inject(Fault.parse(f"pfc_storm:{port.device}:{port.name}"))
    (tmp_path / "jwt").write_text(slurm.token())
    audit = tmp_path / "actions.jsonl"
    listen = f"127.0.0.1:{free_port()}"
    section = {"rest_url": slurm.rest_url, "user": "root", "token": {"file": str(tmp_path / "jwt")},
               "node_names": NAMES, "every": "0.5s", "scontrol": "scontrol", "slurm_conf": str(slurm.conf),
               "actions": {"enabled": True, "dry_run": False, "persist_intervals": 2, "max_per_hour": 1,
                           "max_partition_share": 0.5, "audit_log": str(audit)}}
    sink = {"api": "v1", "url": influx.url, "database": "slurm", "flush_interval": 0.2,
            "spool": {"dir": str(tmp_path / "spool")}}
    # the commands read the same [slurm] and storage; the daemon runs in this process
    conf = tmp_path / "fw.toml"
    conf.write_text(tomli_w.dumps({"daemon": {"listen": listen}, "slurm": section, "sinks": {"influxdb": [sink]}}))
    cfg = parse({"daemon": {"listen": listen}, "detector": {"interval": "2s", "raise_k": 2, "raise_n": 3},
                 "collectors": {"gnmi": sim.daemon_collectors(0.5)}, "slurm": section,
                 "sinks": {"influxdb": [sink], "mqtt": [{"port": broker.port, "site": "lab", "client_id": "fw"}]}},
                "<test>")
    events: list[dict[str, Any]] = []
    sub = asyncio.create_task(collect(broker.port, events))
    runner, task = await start_runner(cfg, sim)
    assert runner.http is not None and runner.detector is not None
    api: dict[str, Any] = {}

    async def finding() -> dict[str, Any] | None:
        nonlocal api
        async with aiohttp.ClientSession() as s, s.get(f"{runner.http.url}/api/findings") as resp:
            api = await resp.json()
        return next((f for f in api["findings"] if (f["device"], f["port"]) == (port.device, port.name)), None)

    try:
        await until("the storm flagged with its jobs", lambda: _has_jobs(finding()))
        storm = await finding()
        assert storm is not None and storm["severity"] == "critical"
        assert storm["jobs"] == [{"id": job, "user": "root", "name": "allreduce", "nodes": ["gpu000", "gpu001"],
                                  "nodes_total": 2}]
        assert storm["jobs_total"] == 1 and other not in {j["id"] for j in storm["jobs"]}
        # the suspect node is drained, with the link and what is wrong with it as the reason
        await until("gpu000 drained", lambda: _async(lambda: "gpu000" in slurm.drained()))
        reason = slurm.node("gpu000")["reason"]
        assert reason.startswith(f"fabricwatch: {port.device} {port.name} PFC pause storm"), reason
        assert "Reason=fabricwatch:" in slurm.run("scontrol", "show", "node", "gpu000")
        assert slurm.drained() == {"gpu000"}
        def raised() -> list[dict[str, Any]]:
            return [e for e in events if e.get("kind") == "link_finding" and e.get("event") == "raised"
                    and e.get("port") == port.name and e.get("device") == port.device]

        def drained_event() -> bool:
            return any(e.get("kind") == "slurm_action" and e.get("node") == "gpu000" and e.get("outcome") == "done"
                       for e in events)

        await until("the MQTT events", lambda: _async(lambda: bool(raised()) and drained_event()), timeout=30)
        assert raised()[0]["jobs"][0]["id"] == job and raised()[0]["jobs_total"] == 1, raised()
        # the job's links and the findings that touched them, from storage and Slurm
        q = await asyncio.to_thread(cli, "query", "job", job, "-c", str(conf), "--json")
        assert q.returncode == 0, q.stderr
        doc = json.loads(q.stdout)
        assert doc["job"]["id"] == job and doc["hosts"] == ["node000", "node001"]
        assert any((f["device"], f["port"]) == (port.device, port.name) for f in doc["findings"]), doc["findings"]
        # resume refuses while the finding is active: the node stays drained
        r = await asyncio.to_thread(cli, "actions", "resume", "gpu000", "-c", str(conf))
        assert r.returncode == 1 and "still active" in r.stderr, (r.stdout, r.stderr)
        assert "gpu000" in slurm.drained()
        # the fault goes, the finding clears: now it resumes
        sim.fabric.clear_faults()
        await until("the storm cleared", lambda: _async(lambda: (port.device, port.name) not in runner.detector.active),
                    timeout=90)
        r = await asyncio.to_thread(cli, "actions", "resume", "gpu000", "-c", str(conf))
        assert r.returncode == 0, r.stderr
        assert "gpu000" not in slurm.drained()
        listed = json.loads((await asyncio.to_thread(cli, "actions", "list", "-c", str(conf), "--json")).stdout)
        assert [(e["action"], e["outcome"]) for e in listed["entries"]] == [("drain", "done"), ("resume", "done")]
        assert listed["drained"] == []
    finally:
        runner.stop()
        assert await task == 0
        sub.cancel()
        await sim.stop()
        broker.stop()


HOSTILE_JOB = '<img src=x onerror="document.body.dataset.pwned=1">train'


async def test_the_pages_show_a_findings_jobs_and_storage_keeps_them_after_the_job_ended(
        clean: SlurmCluster, influx: InfluxDB1, tmp_path: Path) -> None:
    """A real job under a hostile name beside its finding on the fabric page's list and on the link page
    (headless Chromium, kept as text); the jobs stored with the finding answer `query findings` and `why`
    after the job ended and Slurm no longer says where it ran."""
    slurm = clean
    job = slurm.sbatch("-N2", "-w", "gpu000,gpu001", "-J", HOSTILE_JOB, "--wrap", "sleep 300")
    influx.create_db("slurmpages")
    sim = await start_sim(fabric={"nodes": 4, "rails": 2, "spines": 2})
    port = next(p for d in sim.fabric.topology.devices.values() for p in d.ports
                if p.role == "leaf_down" and p.peer_device == "node000" and p.rail == 0)
    sim.fabric.inject(Fault.parse(f"pfc_storm:{port.device}:{port.name}"))
    (tmp_path / "jwt").write_text(slurm.token())
    section = {"rest_url": slurm.rest_url, "user": "root", "token": {"file": str(tmp_path / "jwt")},
               "node_names": NAMES, "every": "0.5s"}
    sink = {"api": "v1", "url": influx.url, "database": "slurmpages", "flush_interval": 0.2,
            "spool": {"dir": str(tmp_path / "spool")}}
    cfg = parse({"daemon": {"listen": "127.0.0.1:0"}, "detector": {"interval": "2s", "raise_k": 2, "raise_n": 3},
                 "collectors": {"gnmi": sim.daemon_collectors(0.5)}, "slurm": section, "sinks": {"influxdb": [sink]}},
                "<test>")
    runner, task = await start_runner(cfg, sim)
    assert runner.http is not None and runner.detector is not None
    key, detector = (port.device, port.name), runner.detector

    async def carried() -> bool:
        active = detector.active.get(key)
        return active is not None and bool(detector.finding_json(active).get("jobs"))

    try:
        await until("the storm flagged with its job", carried)
        url = runner.http.url
        fabric, page = (r.stdout for r in await asyncio.gather(  # two browsers side by side
            asyncio.to_thread(chromium, "--dump-dom", f"{url}/"),
            asyncio.to_thread(chromium, "--dump-dom", f"{url}/#link/{port.device}/{port.name}")))
        # the job ends; the finding goes on a few intervals more, then the fault goes too
        slurm.run("scancel", job)
        await until("the job gone", lambda: _async(lambda: not slurm.run("squeue", "-h", "-j", job,
                                                                         check=False).strip()))
        sim.fabric.clear_faults()
        await until("the storm cleared", lambda: _async(lambda: key not in detector.active), timeout=90)
        await asyncio.sleep(1.0)  # the last points flushed (flush_interval 0.2 s)
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    shown = f"{job} (root, &lt;img src=x onerror=\"document.body.dataset.pwned=1\"&gt;train, 2 nodes)"
    for dom in (fabric, page):
        assert 'data-loaded="1"' in dom, dom[:2000]
        # the hostile name stayed text: no element made of it, no handler ran
        assert "data-pwned" not in dom and "<img" not in dom
        assert f'<span class="job" data-job-id="{job}">{shown}</span>' in dom, dom[-4000:]
        assert '<div class="jobs" data-jobs-total="1"><span>1 Slurm job on this link: </span>' in dom
    # on the fabric page: beside its own finding in the list, and on no other finding
    item = re.search(rf'<li class="finding" data-device="{port.device}" data-port="{port.name}">.*?</li>', fabric, re.S)
    assert item and f'data-job-id="{job}"' in item.group(0) and fabric.count(f'data-job-id="{job}"') == 1
    # the past incident says which job it hurt, though Slurm has let the job go from its running list
    q = await asyncio.to_thread(cli, "query", "findings", "--influx-url", influx.url, "--influx-db", "slurmpages",
                                "--from", "-10m", "--json")
    assert q.returncode == 0, q.stderr
    incident = next(i for i in json.loads(q.stdout)["incidents"] if (i["device"], i["port"]) == key)
    assert incident["jobs_total"] == 1 and incident["jobs"] == [job] and not incident["open"], incident
    table = await asyncio.to_thread(cli, "query", "findings", "--influx-url", influx.url, "--influx-db", "slurmpages",
                                    "--from", "-10m")
    assert f"1 (first {job})" in table.stdout, table.stdout
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(incident["raised_ns"] / 1e9))
    why = await asyncio.to_thread(cli, "why", port.device, port.name, "--at", at, "--influx-url", influx.url,
                                  "--influx-db", "slurmpages")
    assert why.returncode == 0, why.stderr
    assert f"it hurt 1 Slurm job (first {job}), as stored then" in why.stdout, why.stdout


async def _has_jobs(found: Any) -> bool:
    f = await found
    return bool(f and f.get("jobs"))


async def _async(fn: Any) -> bool:
    return bool(await asyncio.to_thread(fn))


class Storm:
    """A critical finding on a host link (what the Drainer reads of the detector's Finding)."""

    def __init__(self, device: str, port: str) -> None:
        self.device, self.port = device, port
        self.severity = "critical"
        self.time_ns = 0
        self.explanation = "PFC pause storm: 60,000 pause frames/s received; 3 neighbours quiet"


def host_links() -> tuple[Topology, list[Storm]]:
    topo = Topology.from_records([{"device": "leaf-a", "port": f"swp{i}", "role": "leaf_down",
                                   "peer_device": f"node00{i}", "peer_port": "mlx5_0/1"} for i in range(4)])
    return topo, [Storm("leaf-a", f"swp{i}") for i in range(4)]


def drainer(slurm: SlurmCluster, tmp_path: Path, **actions: Any) -> Drainer:
    cfg = SlurmConfig(command="squeue", slurm_conf=slurm.conf, node_names=NAMES,
                      actions=ActionsConfig(enabled=True, persist_intervals=2, audit_log=tmp_path / "a.jsonl",
                                            **actions))
    return Drainer(cfg.actions, CommandReader(cfg), Scontrol(cfg), AuditLog(cfg.actions.audit_log), cfg.node_of)


async def test_a_burst_drains_no_more_than_the_caps(clean: SlurmCluster, tmp_path: Path) -> None:
    slurm = clean
    topo, storms = host_links()
    d = drainer(slurm, tmp_path, dry_run=False, max_per_hour=2, max_partition_share=1.0)
    d.observe(storms)
    assert await d.act(storms, topo) == []  # one interval is not persisting yet
    d.observe(storms)
    written = await d.act(storms, topo)
    assert slurm.drained() == {"gpu000", "gpu001"}
    assert [e["outcome"] for e in written] == ["done", "done", "refused", "refused"]
    assert all("max_per_hour = 2" in e["why"] for e in written[2:])
    assert all(e["refusal"] == "cap" for e in written[2:])
    d.observe(storms)
    assert await d.act(storms, topo) == []  # the same refusals are not audited again
    assert len(AuditLog(tmp_path / "a.jsonl").read()) == 4
    # a partition share: with half of the partition allowed, two of four nodes at most
    slurm.resume_all()
    d = drainer(slurm, tmp_path / "share", dry_run=False, max_per_hour=10, max_partition_share=0.5)
    d.observe(storms)
    d.observe(storms)
    written = await d.act(storms, topo)
    assert len(slurm.drained()) == 2
    assert [e["outcome"] for e in written].count("done") == 2
    assert "max_partition_share = 0.5" in written[-1]["why"]


async def test_a_dry_run_drains_nothing_and_says_what_it_would_do(
        clean: SlurmCluster, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    slurm = clean
    topo, storms = host_links()
    d = drainer(slurm, tmp_path, max_per_hour=1, max_partition_share=1.0)  # dry_run defaults to true
    caplog.set_level(logging.WARNING, logger="fabricwatch.slurm.actions")
    for _ in range(2):
        d.observe(storms[:1])
        written = await d.act(storms[:1], topo)
    assert slurm.drained() == set()
    assert [(e["outcome"], e["node"], e["dry_run"]) for e in written] == [("would", "gpu000", True)]
    assert "would drain gpu000: scontrol update NodeName=gpu000 State=DRAIN Reason=\"fabricwatch: leaf-a swp0 " \
        "PFC pause storm" in caplog.text


async def test_slurmrestd_and_squeue_give_the_same_jobs_and_nodes(clean: SlurmCluster, tmp_path: Path) -> None:
    from fabricwatch.slurm.readers import RestReader

    slurm = clean
    job = slurm.sbatch("-N3", "-J", "wide", "--wrap", "sleep 300")
    (tmp_path / "jwt").write_text(slurm.token())
    rest = RestReader(SlurmConfig(rest_url=slurm.rest_url, user="root", token={"file": str(tmp_path / "jwt")}))
    squeue = CommandReader(SlurmConfig(command="squeue", slurm_conf=slurm.conf))
    by_rest, by_squeue = await rest.jobs(), await squeue.jobs()
    assert by_rest == by_squeue
    assert [(j.id, j.user, j.name, len(j.nodes), j.state) for j in by_rest] == [(job, "root", "wide", 3, "RUNNING")]
    assert sorted(n.name for n in await rest.nodes()) == NODES
    assert {n.name: n.partitions for n in await squeue.nodes()} == {n: ("debug",) for n in NODES}
    # `fabricwatch check` reads Slurm once and says when drains are live
    conf = tmp_path / "fw.toml"
    conf.write_text(tomli_w.dumps({"slurm": {"rest_url": slurm.rest_url, "user": "root",
                                             "token": {"file": str(tmp_path / "jwt")},
                                             "actions": {"enabled": True, "dry_run": False}}}))
    res = await asyncio.to_thread(cli, "check", "-c", str(conf))
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"ok   slurm slurmrestd {slurm.rest_url}: 1 running jobs on 4 nodes" in res.stdout, res.stdout
    assert "WARN slurm actions are live (dry_run = false)" in res.stdout
    # a token Slurm does not accept is an error (22.05 says no more than this), not an empty cluster
    (tmp_path / "jwt").write_text("not-a-token")
    with pytest.raises(SlurmError, match=r"HTTP 500: Failed while looking for jobs \(Unspecified error\)"):
        await rest.jobs()
    res = await asyncio.to_thread(cli, "check", "-c", str(conf))
    assert res.returncode == 1 and "FAIL slurm slurmrestd" in res.stdout, res.stdout


async def test_max_total_counts_the_drains_not_yet_resumed(clean: SlurmCluster, tmp_path: Path) -> None:
    slurm = clean
    topo, storms = host_links()
    d = drainer(slurm, tmp_path, dry_run=False, max_per_hour=10, max_total=1, max_partition_share=1.0)
    d.observe(storms[:2])
    d.observe(storms[:2])
    written = await d.act(storms[:2], topo)
    assert slurm.drained() == {"gpu000"}
    assert "max_total = 1" in written[1]["why"]


def _write_rates(influx: InfluxDB1, db: str, links: list[tuple[str, str, str, str]], at_s: list[int]) -> None:
    """port_rates points of (device, port, role, far end) at each time: what `why` reads of a link."""
    import urllib.request

    lines = [f"port_rates,device={d},port={p},role={r},peer_device={far},peer_port=p1 in_octets=1.0 {t}"
             for d, p, r, far in links for t in at_s]
    req = urllib.request.Request(f"{influx.url}/write?db={db}&precision=s", data="\n".join(lines).encode())
    with urllib.request.urlopen(req, timeout=10):
        pass


async def test_why_names_the_jobs_that_ran_across_the_link_now_and_says_past_jobs_are_unknown(
        clean: SlurmCluster, influx: InfluxDB1, tmp_path: Path) -> None:
    import time

    slurm = clean
    under_a = slurm.sbatch("-N2", "-w", "gpu000,gpu001", "-J", "local", "--wrap", "sleep 300")  # wholly under leaf-a
    across = slurm.sbatch("-N2", "-w", "gpu002,gpu003", "-J", "wide", "--wrap", "sleep 300")  # leaf-a and leaf-b
    influx.create_db("why_jobs")
    now = int(time.time())
    _write_rates(influx, "why_jobs", [("leaf-a", "swp0", "leaf_down", "node000"),
                                      ("leaf-a", "swp2", "leaf_down", "node002"),
                                      ("leaf-a", "swp1", "leaf_down", "node001"),
                                      ("leaf-b", "swp3", "leaf_down", "node003"),
                                      ("leaf-a", "swp9", "leaf_up", "spine-a")], [now - 7200, now - 30])
    conf = tmp_path / "fw.toml"
    conf.write_text(tomli_w.dumps({
        "slurm": {"command": "squeue", "slurm_conf": str(slurm.conf), "node_names": NAMES},
        "sinks": {"influxdb": [{"api": "v1", "url": influx.url, "database": "why_jobs",
                                "spool": {"dir": str(tmp_path / "spool")}}]}}))
    started = next(j["start_time"] for j in json.loads(slurm.run("squeue", "--json"))["jobs"]
                   if str(j["job_id"]) == under_a)
    start = time.strftime("%H:%M", time.gmtime(int(started)))
    # a host link: the job on its host, not the other
    r = await asyncio.to_thread(cli, "why", "leaf-a", "swp0", "--at", "now", "-c", str(conf))
    assert r.returncode == 0, r.stderr
    assert f"job {under_a} (2 nodes, user root) ran across this link from {start}" in r.stdout, r.stdout
    assert f"job {across} " not in r.stdout
    # a leaf uplink: only the job with hosts under the leaf and elsewhere
    r = await asyncio.to_thread(cli, "why", "leaf-a", "swp9", "--at", "now", "-c", str(conf), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [(j["id"], j["user"], j["nodes_total"]) for j in doc["slurm_jobs"]] == [(across, "root", 2)], doc
    # two hours ago: slurmctld no longer holds what ran then, and there is no accounting to ask
    r = await asyncio.to_thread(cli, "why", "leaf-a", "swp0", "--at", "-2h", "-c", str(conf), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["slurm_jobs"] is None and "slurmdbd" in doc["slurm_jobs_note"], doc
    r = await asyncio.to_thread(cli, "why", "leaf-a", "swp0", "--at", "-2h", "-c", str(conf))
    assert "jobs: unknown" in r.stdout and f"job {under_a}" not in r.stdout, r.stdout


async def test_flagged_links_expose_their_job_count_and_first_ids_to_prometheus(clean: SlurmCluster) -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    from fabricwatch.slurm.metrics import SlurmMetrics
    from fabricwatch.slurm.service import SlurmService

    slurm = clean
    first = slurm.sbatch("-N1", "-w", "gpu000", "--wrap", "sleep 300")
    slurm.sbatch("-N1", "-w", "gpu001", "--wrap", "sleep 300")  # on a link that is not flagged: not exposed
    topo, storms = host_links()
    service = SlurmService(SlurmConfig(command="squeue", slurm_conf=slurm.conf, node_names=NAMES), lambda: topo)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SlurmMetrics(service))
    service.observe([storms[0], storms[2]])
    assert "fabricwatch_link_jobs{" not in generate_latest(registry).decode()  # before the first read: unknown
    await service.refresh()
    text = generate_latest(registry).decode()
    assert 'fabricwatch_link_jobs{device="leaf-a",port="swp0"} 1.0' in text, text
    assert f'fabricwatch_link_jobs_info{{device="leaf-a",first_jobs="{first}",port="swp0"}} 1.0' in text, text
    assert 'fabricwatch_link_jobs{device="leaf-a",port="swp2"} 0.0' in text  # flagged, no job on node002
    assert 'port="swp1"' not in text  # a job's link, not flagged


async def test_gate_drains_the_nodes_that_failed_acceptance_with_the_same_safety(
        clean: SlurmCluster, tmp_path: Path) -> None:
    from tests.nccl_logs import render

    slurm = clean
    sizes = [1 << 20, 1 << 24, 1 << 28]
    for name, host, bw in (("ok.log", "node002", 150.0), ("slow0.log", "node000", 40.0),
                           ("slow1.log", "node001", 50.0)):
        (tmp_path / name).write_text(render("all_reduce", [host], 8, dict.fromkeys(sizes, bw)))
    logs = [str(tmp_path / n) for n in ("ok.log", "slow0.log", "slow1.log")]
    (tmp_path / "t.toml").write_text('[[check]]\ncollective = "all_reduce"\nmin_busbw = 100.0\nmin_runs = 1\n')
    audit = tmp_path / "actions.jsonl"

    def conf(**actions: Any) -> str:
        path = tmp_path / "fw.toml"
        path.write_text(tomli_w.dumps({"slurm": {
            "command": "squeue", "slurm_conf": str(slurm.conf), "node_names": NAMES,
            "actions": {"audit_log": str(audit), "max_per_hour": 1, "max_partition_share": 1.0, **actions}}}))
        return str(path)

    def gate(*extra: str) -> subprocess.CompletedProcess[str]:
        return cli("gate", *logs, "--thresholds", str(tmp_path / "t.toml"), "--drain", *extra)

    # actions off: --drain refuses, nothing changes
    r = await asyncio.to_thread(gate, "-c", conf())
    assert r.returncode == 2 and "[slurm.actions] enabled" in r.stderr, (r.stdout, r.stderr)
    assert not audit.exists()
    # on, a dry run (the default): audited, within the caps (one an hour), nothing drained
    r = await asyncio.to_thread(gate, "-c", conf(enabled=True))
    assert r.returncode == 1, r.stderr
    assert "would drain gpu000" in r.stdout and "refused gpu001: cap:" in r.stdout, r.stdout
    assert slurm.drained() == set()
    entries = AuditLog(audit).read()
    assert [(e["outcome"], e["node"], e["by"], e["dry_run"]) for e in entries] == [
        ("would", "gpu000", "gate", True), ("refused", "gpu001", "gate", True)]
    assert entries[0]["reason"].startswith("fabricwatch: nccl-gate slow0.log size 1 MiB busbw 40 GB/s < 100")
    # live: the first failing node is drained with the failure as its reason, the cap holds back the second;
    # the node that passed is never touched
    r = await asyncio.to_thread(gate, "-c", conf(enabled=True, dry_run=False))
    assert r.returncode == 1, r.stderr
    assert slurm.drained() == {"gpu000"}, r.stdout
    assert slurm.node("gpu000")["reason"].startswith("fabricwatch: nccl-gate slow0.log size 1 MiB busbw 40 GB/s")
    assert [(e["outcome"], e["node"]) for e in AuditLog(audit).read()[2:]] == [("done", "gpu000"),
                                                                                ("refused", "gpu001")]
    # --dry-run overrides a live config
    slurm.resume_all()
    audit.unlink()
    r = await asyncio.to_thread(gate, "-c", conf(enabled=True, dry_run=False), "--dry-run")
    assert slurm.drained() == set() and "would drain gpu000" in r.stdout, r.stdout


async def test_a_node_the_gate_drained_resumes_only_once_an_acceptance_run_on_it_passed_since(
        clean: SlurmCluster, tmp_path: Path) -> None:
    """A gate drain has no link finding to clear: `actions resume` waits for the node's own acceptance run,
    made after the drain and passed by `gate --drain` (recorded in the audit log), not for the daemon."""
    from tests.nccl_logs import render

    slurm = clean
    sizes = [1 << 20, 1 << 24, 1 << 28]

    def log(name: str, host: str, bw: float, written: float) -> str:
        path = tmp_path / name
        path.write_text(render("all_reduce", [host], 8, dict.fromkeys(sizes, bw)))
        os.utime(path, (written, written))  # when the run's output was written: the run's time
        return str(path)

    (tmp_path / "t.toml").write_text('[[check]]\ncollective = "all_reduce"\nmin_busbw = 100.0\nmin_runs = 1\n')
    audit = tmp_path / "actions.jsonl"
    conf = tmp_path / "fw.toml"
    # no daemon listens here: a gate drain's resume must not need one
    conf.write_text(tomli_w.dumps({"daemon": {"listen": f"127.0.0.1:{free_port()}"}, "slurm": {
        "command": "squeue", "slurm_conf": str(slurm.conf), "node_names": NAMES,
        "actions": {"enabled": True, "dry_run": False, "audit_log": str(audit), "max_partition_share": 1.0}}}))

    def gate(*logs: str) -> subprocess.CompletedProcess[str]:
        return cli("gate", *logs, "--thresholds", str(tmp_path / "t.toml"), "--drain", "-c", str(conf))

    def resume() -> subprocess.CompletedProcess[str]:
        return cli("actions", "resume", "gpu000", "-c", str(conf))

    now = time.time()
    before = log("before.log", "node000", 150.0, now - 3600)  # passed an hour before it failed
    slow = log("slow.log", "node000", 40.0, now - 60)
    r = await asyncio.to_thread(gate, before, slow)
    assert r.returncode == 1 and slurm.drained() == {"gpu000"}, (r.stdout, r.stderr)
    # no acceptance run since the drain: it stays drained, and says what would let it go
    r = await asyncio.to_thread(resume)
    assert r.returncode == 1 and "no acceptance run on node000 has passed since" in r.stderr, (r.stdout, r.stderr)
    assert slurm.drained() == {"gpu000"}
    # a pass from before the drain, gated again, is no new evidence
    r = await asyncio.to_thread(gate, before)
    assert r.returncode == 0 and "accepted" not in r.stdout, r.stdout
    r = await asyncio.to_thread(resume)
    assert r.returncode == 1 and slurm.drained() == {"gpu000"}, r.stderr
    # a new run that fails again: still drained (no second drain either: it is drained already)
    r = await asyncio.to_thread(gate, log("slow2.log", "node000", 45.0, time.time() + 1))
    assert r.returncode == 1 and (await asyncio.to_thread(resume)).returncode == 1
    # the node fixed, its new acceptance run passes: the gate records it, then resume lets it go
    r = await asyncio.to_thread(gate, log("fixed.log", "node000", 150.0, time.time() + 2))
    assert r.returncode == 0 and "accepted gpu000: fixed.log passed" in r.stdout, (r.stdout, r.stderr)
    assert slurm.drained() == {"gpu000"}  # the gate records the pass; only `actions resume` resumes
    r = await asyncio.to_thread(resume)
    assert r.returncode == 0 and "after acceptance run fixed.log passed" in r.stdout, (r.stdout, r.stderr)
    assert slurm.drained() == set()
    entries = AuditLog(audit).read()
    assert [(e["action"], e["outcome"]) for e in entries][-2:] == [("accept", "passed"), ("resume", "done")]
    assert entries[-1]["acceptance"] == "fixed.log" and entries[-1]["forced"] is False
