"""The audit log of actions: one JSON object a line, appended and flushed before the action's result
is reported; what was drained (and not yet resumed) is read back from it, so caps survive restarts."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("fabricwatch.slurm.audit")
GATE = "nccl-gate"  # the device of a drain by the acceptance gate (`gate --drain`), in the audit and the reason


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, entry: dict[str, Any]) -> dict[str, Any]:
        """Write one entry (stamped now unless it carries `time_unix`) and return it."""
        now = float(entry.get("time_unix") or time.time())
        full = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)), "time_unix": round(now, 3), **entry}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(full, separators=(",", ":"), default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())
        return full

    def writable(self) -> str | None:
        """None when an entry can be appended now, else why not (no action is taken unaudited)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8"):
                return None
        except OSError as exc:
            return f"cannot write the audit log {self.path}: {exc.strerror}"

    def read(self) -> list[dict[str, Any]]:
        """Every entry, oldest first; a torn or foreign line is skipped and logged."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        out = []
        for n, raw in enumerate(text.splitlines(), 1):
            try:
                entry = json.loads(raw)
            except json.JSONDecodeError:
                log.warning("audit log line unreadable, skipped", extra={"path": str(self.path), "line": n})
                continue
            if isinstance(entry, dict):
                out.append(entry)
        return out


def outstanding(entries: list[dict[str, Any]], *, dry_run: bool = False) -> dict[str, dict[str, Any]]:
    """node -> the drain that holds it: drained by fabricwatch and not resumed since (in dry run: the
    drains it would have done)."""
    held: dict[str, dict[str, Any]] = {}
    done = "would" if dry_run else "done"
    for e in entries:
        if e.get("outcome") != done:
            continue
        if e.get("action") == "drain":
            held[str(e.get("node"))] = e
        elif e.get("action") == "resume":
            held.pop(str(e.get("node")), None)
    return held


def drains_since(entries: list[dict[str, Any]], since_unix: float, *, dry_run: bool = False) -> int:
    done = "would" if dry_run else "done"
    return sum(1 for e in entries if e.get("action") == "drain" and e.get("outcome") == done
               and float(e.get("time_unix") or 0) >= since_unix)
