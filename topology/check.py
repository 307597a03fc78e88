"""The cabling against the plan: every planned cable is there, to the planned port, up, at the
planned speed and width; nothing is cabled that the plan does not have. Each difference names
both ends; two cables whose far ends are exchanged are one swap, not two miswirings."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabricwatch.topology.cables import End, lanes, link_gbps

CSV_COLUMNS = ("device", "port", "peer_device", "peer_port")


@dataclass(slots=True)
class PlannedEnd:
    peer: End
    speed: str = ""
    width: str = ""
    state: str = ""


Ends = dict[End, PlannedEnd]


def load_plan(path: Path) -> Ends:
    """Our topology JSON (records with peer_device/peer_port) or a cabling CSV with the columns
    device, port, peer_device, peer_port and optionally speed, width (one row per cable or per end)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    if path.suffix.lower() == ".csv" or not text.lstrip().startswith(("[", "{")):
        return _from_csv(text, path)
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"{path}: not JSON: {exc}") from None
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of port records")
    return _from_records(data, str(path))


def _from_records(rows: list[Any], where: str) -> Ends:
    out: Ends = {}
    for i, r in enumerate(rows):
        if not isinstance(r, dict):
            raise ValueError(f"{where}: entry {i}: expected an object")
        if not r.get("peer_device") or not r.get("peer_port"):
            continue  # a port the plan leaves empty
        try:
            near = (str(r["device"]), str(r["port"]))
        except KeyError as exc:
            raise ValueError(f"{where}: entry {i}: missing {exc.args[0]!r}") from None
        far = (str(r["peer_device"]), str(r["peer_port"]))
        info = PlannedEnd(far, *(str(r.get(k, "") or "") for k in ("speed", "width", "state")))
        for a, b in ((near, far), (far, near)):
            have = out.get(a)
            if have is not None and have.peer != b:
                raise ValueError(f"{where}: entry {i}: {a[0]} {a[1]} is planned to two far ends "
                                 f"({have.peer[0]} {have.peer[1]} and {b[0]} {b[1]})")
            if have is None or (info.speed and not have.speed):
                out[a] = PlannedEnd(b, info.speed, info.width, info.state)
    return out


def _from_csv(text: str, path: Path) -> Ends:
    reader = csv.DictReader(io.StringIO(text))
    names = [n.strip().lower() for n in reader.fieldnames or []]
    missing = [c for c in CSV_COLUMNS if c not in names]
    if missing:
        raise ValueError(f"{path}: the header needs {', '.join(CSV_COLUMNS)} (missing {', '.join(missing)})")
    rows = [{k.strip().lower(): (v or "").strip() for k, v in row.items() if k} for row in reader]
    return _from_records(rows, str(path))


def actual_ends(records: list[dict[str, Any]]) -> Ends:
    return _from_records(records, "actual")


@dataclass(slots=True)
class Difference:
    kind: str  # miswired, swapped, missing, unexpected, down, speed, width; firmware, module (outliers)
    ends: list[End]
    planned: list[End] = field(default_factory=list)  # the far ends the plan has (miswired, swapped)
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "ends": [list(e) for e in self.ends],
                "planned": [list(e) for e in self.planned], "detail": self.detail}

    def text(self) -> str:
        def e(x: End) -> str:
            return f"{x[0]} {x[1]}"
        if self.kind == "swapped":
            a, b = self.ends[0], self.ends[1]
            return (f"swapped: {e(a)} and {e(b)} have each other's far ends "
                    f"({e(a)} reaches {e(self.planned[1])}, planned {e(self.planned[0])})")
        if self.kind == "miswired":
            also = f" (and {e(self.ends[1])} to {e(self.planned[1])})" if len(self.planned) > 1 else ""
            return f"miswired: {e(self.ends[0])} reaches {e(self.ends[1])}; planned to {e(self.planned[0])}{also}"
        if len(self.ends) == 1:  # a device's own (firmware)
            return f"{self.kind}: {self.ends[0][0]}" + (f": {self.detail}" if self.detail else "")
        return f"{self.kind}: {e(self.ends[0])} <-> {e(self.ends[1])}" + (f": {self.detail}" if self.detail else "")


def check(plan: Ends, actual: Ends) -> list[Difference]:
    out: list[Difference] = []
    pairs: set[tuple[End, End]] = set()

    def once(a: End, b: End) -> bool:
        key = (a, b) if a <= b else (b, a)
        if key in pairs:
            return False
        pairs.add(key)
        return True

    wrong: dict[End, End] = {}  # planned end -> where it actually goes, when elsewhere
    for near, want in sorted(plan.items()):
        got = actual.get(near)
        if got is None:
            far_now = actual.get(want.peer)
            if far_now is None:
                if once(near, want.peer):
                    out.append(Difference("missing", [near, want.peer], detail="no link at either end"))
            else:
                out.append(Difference("missing", [near, want.peer], detail=(
                    f"{near[0]} {near[1]} is not cabled; {want.peer[0]} {want.peer[1]} reaches "
                    f"{far_now.peer[0]} {far_now.peer[1]}")))
            continue
        if got.peer != want.peer:
            wrong[near] = got.peer
            continue
        if not once(near, want.peer):
            continue
        if got.state == "down" and want.state != "down":
            out.append(Difference("down", [near, want.peer], detail="cabled as planned, not up"))
        ws, gs = _gbps(want), _gbps(got)
        if ws and gs and gs < ws:
            out.append(Difference("speed", [near, want.peer], detail=f"{gs:g}G, planned {ws:g}G"))
        wl, gl = lanes(want.width), lanes(got.width)
        if wl and gl and gl < wl:
            out.append(Difference("width", [near, want.peer], detail=f"{got.width}, planned {want.width}"))
    done: set[End] = set()
    for near, goes in sorted(wrong.items()):
        if near in done:
            continue
        planned = plan[near].peer
        # a swap: this end reaches another planned end's far end, and that end reaches ours
        other = next((o for o, g in sorted(wrong.items()) if o != near and o not in done
                      and g == planned and plan[o].peer == goes), None)
        if other is not None:
            out.append(Difference("swapped", [near, other], [planned, goes]))
            done |= {near, other, planned, goes}
            continue
        theirs = [plan[goes].peer] if goes in plan else []
        out.append(Difference("miswired", [near, goes], [planned, *theirs]))
        done |= {near, goes}
    for near, got in sorted(actual.items()):
        if near in plan or got.peer in plan or not once(near, got.peer):
            continue
        out.append(Difference("unexpected", [near, got.peer], detail="cabled, not in the plan"))
    return out


def _gbps(end: PlannedEnd) -> float | None:
    return link_gbps(end.speed, end.width) if end.speed else None


def planned_cables(plan: Ends) -> int:
    """How many cables a plan has (each is in it from both ends)."""
    return len({(a, p.peer) if a <= p.peer else (p.peer, a) for a, p in plan.items()})
