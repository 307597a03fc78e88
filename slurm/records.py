"""Jobs and nodes as Slurm reports them (slurmrestd v0.0.38 and `squeue/sinfo --json` share the shape)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabricwatch.slurm.hostlist import expand

MAX_NODES_SHOWN = 64
RUNNING = frozenset({"RUNNING", "COMPLETING", "SUSPENDED"})  # states whose nodes are held


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    user: str
    name: str
    nodes: tuple[str, ...]  # Slurm's node names, expanded
    partition: str = ""
    state: str = ""
    start_unix: int = 0
    end_unix: int = 0

    def to_json(self, *, max_nodes: int = MAX_NODES_SHOWN) -> dict[str, Any]:
        """As the API and events show it: a 4,000-node job lists its first nodes and says how many."""
        return {"id": self.id, "user": self.user, "name": self.name, "nodes": list(self.nodes[:max_nodes]),
                "nodes_total": len(self.nodes)}


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    state: str  # idle, allocated, mixed, down...
    flags: frozenset[str] = field(default_factory=frozenset)  # DRAIN, ...
    partitions: tuple[str, ...] = ()
    reason: str = ""

    @property
    def drained(self) -> bool:
        """Drained or draining: no new job lands on it."""
        return "DRAIN" in self.flags or self.state.upper() in ("DRAINED", "DRAINING", "DOWN")


class SlurmAnswerError(ValueError):
    """An answer that is not what Slurm sends (a proxy's page, a version without these keys)."""


def _job_id(j: dict[str, Any]) -> str:
    jid = j.get("job_id")
    if not isinstance(jid, int):
        raise SlurmAnswerError(f"a job without a numeric job_id: {str(j)[:80]}")
    array, task = j.get("array_job_id"), j.get("array_task_id")
    if isinstance(array, int) and array and isinstance(task, int):
        return f"{array}_{task}"
    return str(jid)


def _int(v: object) -> int:
    if isinstance(v, dict):  # later API versions: {"set": true, "number": N}
        v = v.get("number")
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def parse_jobs(doc: object, *, states: frozenset[str] | None = RUNNING) -> list[Job]:
    """The jobs of a jobs answer in these states (None: every job Slurm still holds), with their nodes."""
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise SlurmAnswerError("not a Slurm jobs answer (no 'jobs' list)")
    out = []
    for j in doc["jobs"]:
        if not isinstance(j, dict):
            raise SlurmAnswerError("a job that is not an object")
        jid = _job_id(j)
        state = j.get("job_state")
        state = state[0] if isinstance(state, list) and state else state
        if states is not None and str(state) not in states:
            continue
        nodes = j.get("nodes") or ""
        if not isinstance(nodes, str):
            raise SlurmAnswerError(f"job {jid}: nodes is not a host list")
        try:
            names = tuple(expand(nodes))
        except ValueError as exc:
            raise SlurmAnswerError(f"job {jid}: {exc}") from None
        out.append(Job(jid, str(j.get("user_name") or j.get("user_id") or ""), str(j.get("name") or ""),
                       names, str(j.get("partition") or ""), str(state),
                       _int(j.get("start_time")), _int(j.get("end_time"))))
    return out


def parse_nodes(doc: object) -> list[Node]:
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise SlurmAnswerError("not a Slurm nodes answer (no 'nodes' list)")
    out = []
    for n in doc["nodes"]:
        if not isinstance(n, dict) or not isinstance(n.get("name"), str):
            raise SlurmAnswerError("a node without a name")
        state = n.get("state")
        words = ([str(s) for s in state] if isinstance(state, list) else [str(state or "")]) or [""]
        raw_flags = n.get("state_flags")
        flags = {f.upper() for f in raw_flags if isinstance(f, str)} if isinstance(raw_flags, list) else set()
        flags |= {w.upper() for w in words[1:]}
        parts = n.get("partitions") or []
        out.append(Node(n["name"], words[0].lower(), frozenset(flags),
                        tuple(str(p) for p in parts) if isinstance(parts, list) else (), str(n.get("reason") or "")))
    return out
