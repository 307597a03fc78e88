"""A private Slurm cluster on 127.0.0.1 for the tests: munged, slurmctld, one slurmd per node
(MULTIPLE_SLURMD) and slurmrestd (API v0.0.38), on free ports in a temporary folder, all stopped after."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.servers import free_port, require, terminate


class SlurmCluster:
    def __init__(self, nodes: list[str], partition: str = "debug") -> None:
        # munged wants o+x on every folder above its socket: pytest's own temp folders are 0700
        self.dir = Path(tempfile.mkdtemp(prefix="fw-slurm-"))
        self.dir.chmod(0o755)
        self.nodes = nodes
        self.partition = partition
        self.conf = self.dir / "slurm.conf"
        self.ctld_port = free_port()
        self.node_ports = {n: free_port() for n in nodes}
        self.rest_port = free_port()
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}

    @property
    def rest_url(self) -> str:
        return f"http://127.0.0.1:{self.rest_port}"

    def _write_conf(self) -> None:
        d = self.dir
        lines = [
            "ClusterName=fwtest", "SlurmctldHost=localhost", f"SlurmctldPort={self.ctld_port}", "SlurmUser=root",
            f"AuthInfo=socket={d}/munge.sock", "AuthAltTypes=auth/jwt", f"AuthAltParameters=jwt_key={d}/jwt.key",
            f"StateSaveLocation={d}/state", f"SlurmdSpoolDir={d}/spool/%n", f"SlurmdPidFile={d}/spool/%n.pid",
            f"SlurmctldPidFile={d}/ctld.pid", "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "SlurmdParameters=config_overrides", "SchedulerParameters=batch_sched_delay=0,sched_min_interval=0",
            "ReturnToService=2",
        ]
        lines += [f"NodeName={n} NodeHostname=localhost NodeAddr=127.0.0.1 Port={p} CPUs=1 RealMemory=100"
                  for n, p in self.node_ports.items()]
        lines.append(f"PartitionName={self.partition} Nodes=ALL Default=YES State=UP")
        self.conf.write_text("\n".join(lines) + "\n")

    def _spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        with open(self.dir / f"{name}.log", "ab") as log:
            self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env or self.env)

    def start(self) -> None:
        d = self.dir
        for sub in ("state", "spool"):
            (d / sub).mkdir()
        subprocess.run([require("mungekey"), "--create", f"--keyfile={d}/munge.key"], check=True)
        (d / "jwt.key").write_bytes(os.urandom(32))
        (d / "jwt.key").chmod(0o600)
        subprocess.run([require("munged"), f"--key-file={d}/munge.key", f"--socket={d}/munge.sock",
                        f"--pid-file={d}/munged.pid", f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed"],
                       check=True)
        self._write_conf()
        self._spawn("slurmctld", [require("slurmctld"), "-D", "-f", str(self.conf)])
        for n in self.nodes:
            self._spawn(f"slurmd-{n}", [require("slurmd"), "-D", "-N", n, "-f", str(self.conf)])
        self._spawn("slurmrestd", [require("slurmrestd"), "-f", str(self.conf), "-a", "rest_auth/jwt",
                                   "-s", "openapi/v0.0.38", f"127.0.0.1:{self.rest_port}"],
                    env={**self.env, "SLURM_JWT": "daemon", "SLURMRESTD_SECURITY": "disable_user_check"})
        self._wait(lambda: all(n["state"] == "idle" and not n["state_flags"] for n in self.sinfo()), "nodes idle")
        self._wait(lambda: "jobs" in self.rest("jobs"), "slurmrestd answering")

    def _wait(self, ok: Any, what: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            dead = [name for name, p in self.procs.items() if p.poll() is not None]
            if dead:
                raise RuntimeError(f"Slurm's {dead} exited: see {self.dir}/*.log")
            try:
                if ok():
                    return
            except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as exc:
                last = exc
            time.sleep(0.2)
        raise RuntimeError(f"Slurm: not {what} within {timeout} s ({last}); logs in {self.dir}")

    def run(self, *argv: str, check: bool = True) -> str:
        res = subprocess.run(list(argv), env=self.env, capture_output=True, text=True, timeout=60)
        if check and res.returncode != 0:
            raise subprocess.CalledProcessError(res.returncode, argv, res.stdout, res.stderr)
        return res.stdout

    def token(self) -> str:
        return self.run("scontrol", "token").strip().split("=", 1)[1]

    def rest(self, path: str) -> dict[str, Any]:
        req = urllib.request.Request(f"{self.rest_url}/slurm/v0.0.38/{path}",
                                     headers={"X-SLURM-USER-NAME": "root", "X-SLURM-USER-TOKEN": self.token()})
        with urllib.request.urlopen(req, timeout=10) as resp:
            return dict(json.loads(resp.read()))

    def sinfo(self) -> list[dict[str, Any]]:
        return list(json.loads(self.run("sinfo", "--json"))["nodes"])

    def node(self, name: str) -> dict[str, Any]:
        return next(n for n in self.sinfo() if n["name"] == name)

    def drained(self) -> set[str]:
        return {n["name"] for n in self.sinfo() if "DRAIN" in n["state_flags"]}

    def sbatch(self, *args: str) -> str:
        """Submit a job; its id once it runs."""
        # the job's output goes to the cluster's folder, not the submitter's working directory
        out = self.run("sbatch", "--parsable", f"--output={self.dir}/job-%j.out", *args).strip()
        job = out.split(";")[0]
        self._wait(lambda: self.run("squeue", "-h", "-j", job, "-o", "%T").strip() == "RUNNING", f"job {job} running")
        return job

    def resume_all(self) -> None:
        for n in self.drained():
            self.run("scontrol", "update", f"NodeName={n}", "State=RESUME")

    def stop(self) -> None:
        """As ENVIRONMENT.md says: cancel the jobs, wait for none, stop slurmrestd, `scontrol shutdown`
        (slurmctld and every slurmd), munged last; whatever is left is killed."""
        try:
            if self.procs.get("slurmctld") and self.procs["slurmctld"].poll() is None:
                self.run("scancel", "--user=root", check=False)
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and self.run("squeue", "-h", check=False).strip():
                    time.sleep(0.2)
            terminate(self.procs.pop("slurmrestd", None))
            self.run("scontrol", "shutdown", check=False)
            for proc in self.procs.values():
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    terminate(proc)
        finally:
            for proc in self.procs.values():
                if proc.poll() is None:
                    terminate(proc)
            subprocess.run([require("munged"), "--stop", f"--socket={self.dir}/munge.sock"], check=False,
                           capture_output=True)
            shutil.rmtree(self.dir, ignore_errors=True)
