"""nccl-tests output (text or `-J` JSON) -> run records, robust to what real logs contain.

Text: the header (`# nThread ...`), rank lines (with or without `Group`, PCI as `[0000:06:00]`
or `[0x06]`), the column header that names the table's columns (so the old <= 2.11 layout, whose
columns differ by collective and end in `error`, and `-I` per-iteration columns parse alike),
rows interleaved with `NCCL INFO` / `NCCL WARN` and MPI noise, `-N` repeated sweeps, the footer
(`# Out of bounds values`, `# Avg bus bandwidth` with OK/FAILED against NCCL_TESTS_MIN_BW), and
runs that crashed before it: parsed as far as they go, with where they stopped.

Every row is checked: busbw = algbw x the collective's factor, algbw = size / time. Rows that
disagree are flagged, never silently accepted. The JSON `env` block can hold secrets: it is
never stored.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

from fabricwatch.core.digits import parse_int
from fabricwatch.core.nccl_records import Measurement, RankInfo, Row, RunRecord

# busbw = algbw * factor(n): nccl-tests' PERFORMANCE.md
BUS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "sendrecv": lambda n: 1.0,
    "hypercube": lambda n: (n - 1) / n,
    "gather": lambda n: (n - 1) / n,
    "scatter": lambda n: (n - 1) / n,
}
COLLECTIVES = tuple(BUS_FACTOR)
TOLERANCE = 0.05  # printed values carry 2-3 significant digits

_HEADER = re.compile(
    r"#\s*nThread\s+(?P<nthread>\d+)\s+nGpus\s+(?P<ngpus>\d+)\s+minBytes\s+(?P<min>\d+)\s+maxBytes\s+(?P<max>\d+)"
    r"\s+step:\s*(?P<step>\d+)\((?P<step_kind>\w+)\)\s+warmup iters:\s*(?P<warmup>\d+)\s+iters:\s*(?P<iters>\d+)"
    r"(?:\s+agg iters:\s*(?P<agg>\d+))?(?:\s+validation:\s*(?P<validation>\d+))?(?:\s+graph:\s*(?P<graph>\d+))?"
    r"(?:\s+unalign:\s*(?P<unalign>\d+))?"
)
_RANK = re.compile(  # rccl-tests' rank lines may end at the PCI address (no GPU name)
    r"#\s+Rank\s+(?P<rank>\d+)(?:\s+Group\s+(?P<group>\d+))?\s+Pid\s+(?P<pid>\d+)\s+on\s+(?P<host>\S+)"
    r"\s+device\s+(?P<device>\d+)\s+\[(?P<pci>[^\]]*)\](?:\s+(?P<gpu>.*?))?\s*$"
)
_VERSION = re.compile(r"#\s*nccl-tests version\s+(?P<v>\S+)(?:.*nccl-library=(?P<lib>\d+))?")
_STARTING = re.compile(r"#\s*Collective test starting:\s*(?P<name>\S+)")
_NCCL_VERSION = re.compile(r"NCCL INFO NCCL version\s+(?P<v>[\d.]+)")
_OOB = re.compile(r"#?\s*Out of bounds values\s*:\s*(?P<n>\d+)\s*(?P<verdict>OK|FAILED)?")
_AVG = re.compile(r"#?\s*Avg bus bandwidth\s*:\s*(?P<bw>[-+\d.eE]+|nan|inf)\s*(?P<verdict>OK|FAILED)?")
_NOISE = re.compile(r"NCCL (INFO|WARN|TRACE)|^\[[\d,]+\]|^--------|^\S+:\d+:\d+ \[")
_NUM = re.compile(r"^[-+]?\d")


def _collective_from_name(name: str) -> str | None:
    base = Path(name).name.lower().replace("-", "_")
    for c in sorted(COLLECTIVES, key=len, reverse=True):
        if c in base or c.replace("_", "") in base.replace("_", ""):
            return c
    return None


def _num(tok: str) -> float | None:
    if tok in ("N/A", "n/a", "-"):
        return None
    try:
        return float(tok)
    except ValueError:
        return None


def _check(row: Row, collective: str | None, nranks: int | None) -> None:
    for name, m in (("out_of_place", row.out_of_place), ("in_place", row.in_place)):
        if m is None or m.time_us is None or m.algbw is None or m.busbw is None:
            continue
        if m.time_us > 0 and row.size > 0:
            expect_alg = row.size / (m.time_us * 1e-6) / 1e9
            if m.algbw > 0.01 and abs(expect_alg - m.algbw) > max(0.02, TOLERANCE * m.algbw):
                row.flags.append(f"{name}: algbw {m.algbw} but size/time gives {expect_alg:.3g}")
        if collective in BUS_FACTOR and nranks and m.algbw > 0.01:
            expect_bus = m.algbw * BUS_FACTOR[collective](nranks)
            if abs(expect_bus - m.busbw) > max(0.02, TOLERANCE * max(expect_bus, m.busbw)):
                row.flags.append(f"{name}: busbw {m.busbw} but algbw x factor gives {expect_bus:.3g}")
        if m.wrong:
            row.flags.append(f"{name}: {m.wrong:g} wrong elements")


def _infer_collective(rows: list[Row], nranks: int | None) -> str | None:
    """From the busbw/algbw ratio and the redop/root columns, when nothing names the test."""
    ratios = [m.busbw / m.algbw for r in rows for m in (r.out_of_place, r.in_place)
              if m is not None and m.algbw and m.busbw and m.algbw > 0.05]
    if not ratios or (nranks is not None and nranks < 2):
        return None
    ratio = sorted(ratios)[len(ratios) // 2]
    has_redop = any(r.redop not in (None, "none") for r in rows)
    rooted = any(r.root not in (None, -1) for r in rows)
    if nranks is None:
        # ranks not stated (a cut log): only all_reduce's factor 2(n-1)/n exceeds 1 (every other is at most 1),
        # so a ratio clearly above 1 names it whatever n is
        return "all_reduce" if 1.1 < ratio < 2.0 + 0.05 and has_redop and not rooted else None
    candidates = [c for c in ("all_reduce", "reduce_scatter", "all_gather", "broadcast", "reduce")
                  if abs(BUS_FACTOR[c](nranks) - ratio) < 0.05]
    for c in candidates:
        reduces, has_root = c in ("all_reduce", "reduce_scatter", "reduce"), c in ("broadcast", "reduce")
        if reduces == has_redop and has_root == rooted:
            return c
    return candidates[0] if len(candidates) == 1 else None


def _finish(run: RunRecord) -> None:
    """Name the collective if nothing did, then check every row against it."""
    if run.collective is None:
        inferred = _infer_collective(run.rows, run.nranks)
        if inferred:
            run.collective, run.collective_from = inferred, "inferred"
    for row in run.rows:
        _check(row, run.collective, run.nranks)


def parse_text(text: str, source: str = "<text>", collective: str | None = None) -> list[RunRecord]:
    runs: list[RunRecord] = []
    run: RunRecord | None = None
    columns: list[str] | None = None
    last_size = -1
    sweep = 0
    lines = text.splitlines()

    def new_run() -> RunRecord:
        nonlocal columns, last_size, sweep
        columns, last_size, sweep = None, -1, 0
        named = collective or _collective_from_name(source)
        r = RunRecord(source, "text", named, "given" if collective else ("filename" if named else "unknown"))
        runs.append(r)
        return r

    pending_version: str | None = None
    pending_name: str | None = None
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if (prefix := _LAUNCHER.match(line)) is not None:
            line = line[prefix.end():]  # srun --label, mpirun --tag-output, torchrun's [rank]: prefixes
        stripped = line.strip()
        if not stripped:
            continue
        if m := _VERSION.match(stripped):
            pending_version = m.group("v")
            continue
        if m := _STARTING.match(stripped):
            pending_name = m.group("name")
            continue
        if m := _HEADER.match(stripped):
            run = new_run()
            run.nccl_tests_version = pending_version
            if pending_name and not collective:
                c = _collective_from_name(pending_name)
                if c:
                    run.collective, run.collective_from = c, "header"
            pending_version = pending_name = None
            g = m.groupdict()
            run.config = {
                "nthread": int(g["nthread"]), "ngpus": int(g["ngpus"]), "min_bytes": int(g["min"]),
                "max_bytes": int(g["max"]), "step": int(g["step"]), "step_kind": g["step_kind"],
                "warmup_iters": int(g["warmup"]), "iters": int(g["iters"]),
                **{k: int(g[k]) for k in ("agg", "validation", "graph", "unalign") if g[k] is not None},
            }
            if "agg" in run.config:
                run.config["agg_iters"] = run.config.pop("agg")
            continue
        if run is None:
            if _NCCL_VERSION.search(stripped) or _NOISE.search(stripped):
                continue
            if _NUM.match(stripped) or _RANK.match(stripped):
                run = new_run()  # a table or rank list with no header (cut log, rccl-tests): still read it
            else:
                continue
        if m := _NCCL_VERSION.search(stripped):
            run.nccl_version = run.nccl_version or m.group("v")
            continue
        if "NCCL WARN" in stripped:
            run.warnings.append(stripped[:300])
            continue
        if m := _RANK.match(stripped):
            g = m.groupdict()
            run.ranks.append(RankInfo(int(g["rank"]), int(g["group"]) if g["group"] else None, int(g["pid"]),
                                      g["host"], int(g["device"]), g["pci"], g["gpu"] or ""))
            continue
        if m := _OOB.match(stripped):
            run.footer["out_of_bounds"] = int(m.group("n"))
            run.footer["out_of_bounds_ok"] = m.group("verdict") != "FAILED"
            continue
        if m := _AVG.match(stripped):
            bw = _num(m.group("bw"))
            # nccl-tests' unweighted mean over every size: kept, never used as the health metric
            run.footer["avg_busbw"] = bw
            if m.group("verdict"):
                run.footer["min_bw_check"] = m.group("verdict")
            run.complete = True
            continue
        if stripped.startswith("#"):
            body = stripped.lstrip("#").split()
            if body and body[0] == "size" and ("time" in body):
                columns = body
            continue
        if _NOISE.search(stripped) or not _NUM.match(stripped):
            run.skipped_lines += 1
            continue
        tokens = stripped.split()
        row = _row(tokens, columns, sweep, lineno)
        if row is None:
            run.skipped_lines += 1
            if len(run.warnings) < 50:
                run.warnings.append(f"line {lineno}: unreadable table row: {stripped[:120]}")
            continue
        if row.size <= last_size:
            sweep += 1  # -N: a new sweep starts from the smallest size again
            row.sweep = sweep
        last_size = row.size
        run.rows.append(row)
    for r in runs:
        _finish(r)
        if not r.complete:
            last = r.rows[-1].line if r.rows else None
            r.stopped_at = {"line": last, "reason": "no footer: the run ended early (crash, timeout or cut log)"}
    number_repeats(runs)
    return runs


def number_repeats(runs: list[RunRecord]) -> None:
    """Repeats of one collective in one log (`for i in 1 2 3; do all_reduce_perf …; done > log`) are
    runs of their own: each gets its number (`repeat`) and its source becomes `SOURCE#k`, so that
    run-to-run variance sees each one. The only run of its collective, or one without rows, keeps 0."""
    counts = Counter(r.collective for r in runs if r.rows)
    seen: Counter[str | None] = Counter()
    for r in runs:
        if r.rows and counts[r.collective] > 1:
            seen[r.collective] += 1
            r.repeat = seen[r.collective]
            r.source = f"{r.source}#{r.repeat}"


# what launchers put before each line of a rank's output
_LAUNCHER = re.compile(r"^\s*(?:\d+:\s|\[\d+,\d+\]<std(?:out|err)>:\s?|\[(?:default)?\d+\]:\s?)")
# leading columns an older nccl-tests leaves blank where they do not apply (alltoall has no redop)
_BLANKABLE = ("redop", "root")

MAX_COLUMNS = 512  # a real table has 13 (-I adds a few per iteration); more is not nccl-tests output


def _groups(cols: tuple[str, ...]) -> tuple[int, list[tuple[int, int]]] | None:
    """Where the leading columns end and each (time, algbw, busbw, ...) group starts and ends."""
    if "time" not in cols:
        return None
    starts = [i for i, c in enumerate(cols) if c == "time"]
    return starts[0], list(zip(starts, [*starts[1:], len(cols)], strict=True))


_DEFAULT_COLUMNS = ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                    "time", "algbw", "busbw", "#wrong")
_GROUPS: dict[tuple[str, ...], tuple[int, list[tuple[int, int]]] | None] = {}


def _row(tokens: list[str], columns: list[str] | None, sweep: int, lineno: int) -> Row | None:
    cols = tuple(columns) if columns else _DEFAULT_COLUMNS
    if len(cols) > MAX_COLUMNS:
        return None
    if len(tokens) < len(cols):
        # a blank redop/root prints as nothing: drop those header columns whose cell is a number
        lead = cols.index("time") if "time" in cols else 0
        for name in _BLANKABLE:
            if len(tokens) < len(cols) and name in cols[:lead]:
                i = cols.index(name)
                if i < len(tokens) and _num(tokens[i]) is not None:
                    cols = cols[:i] + cols[i + 1:]
                    lead -= 1
        if len(tokens) < len(cols):
            return None
    layout = _GROUPS.get(cols)
    if layout is None and cols not in _GROUPS:
        if len(_GROUPS) > 64:  # column headers come from the input: keep the cache small
            _GROUPS.clear()
        layout = _GROUPS[cols] = _groups(cols)
    if layout is None:
        return None
    lead, spans = layout
    head = dict(zip(cols[:lead], tokens[:lead], strict=True))
    try:
        size, count = int(head["size"]), int(head["count"])
    except (KeyError, ValueError):
        return None
    groups: list[Measurement] = []
    for i, j in spans:
        names = cols[i:j]
        values = dict(zip(names, tokens[i:j], strict=True))
        m = Measurement(_num(values.get("time", "")), _num(values.get("algbw", "")), _num(values.get("busbw", "")))
        if m.time_us is None and values.get("time") not in ("N/A",):
            return None
        if "#wrong" in values:
            m.wrong = _num(values["#wrong"])
        if "error" in values:
            m.error = _num(values["error"])
        per_iter = {k: _num(values[k]) for k in names if k.startswith("i_")}
        m.per_iteration = {k: v for k, v in per_iter.items() if v is not None}
        groups.append(m)
    root = head.get("root")
    return Row(size, count, head.get("type", ""), head.get("redop"),
               parse_int(root, max_digits=18) if root not in (None, "none") else None,
               groups[0] if groups else None, groups[1] if len(groups) > 1 else None, sweep, lineno)


# -J output is untrusted JSON: every field is checked for its type, a wrong one reads as absent
def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _int(v: Any, default: int = 0) -> int:
    if isinstance(v, bool):
        return default
    if isinstance(v, int):
        return v if abs(v) < 1 << 63 else default
    if isinstance(v, float) and math.isfinite(v) and abs(v) < 2.0**63:
        return int(v)
    if isinstance(v, str):
        number = parse_int(v.strip(), max_digits=18)
        return number if number is not None else default
    return default


def _str(v: Any, limit: int = 300) -> str:
    return v[:limit] if isinstance(v, str) else ("" if v is None or isinstance(v, dict | list) else str(v)[:limit])


def parse_json(doc: Any, source: str, collective: str | None = None) -> RunRecord:
    """nccl-tests `-J` output. The `env` block is dropped: it can hold tokens and passwords."""
    if not isinstance(doc, dict):
        raise ValueError(f"{source}: JSON but not an nccl-tests -J document (top level is {type(doc).__name__})")
    cfg = _dict(doc.get("config"))
    args = _list(doc.get("args"))
    name = collective or _collective_from_name(_str(args[0]) if args else "") or _collective_from_name(source)
    run = RunRecord(source, "json", name, "given" if collective else ("json" if name else "unknown"))
    lib = doc.get("nccl_version")
    if isinstance(lib, int) and not isinstance(lib, bool) and 0 <= lib < 10**8:
        run.nccl_version = f"{lib // 10000}.{lib // 100 % 100}.{lib % 100}"
    elif isinstance(lib, str):
        run.nccl_version = lib[:40]
    run.config = {k: v for k, v in cfg.items()
                  if k != "devices" and isinstance(v, int | float | str | bool) and len(str(k)) < 64}
    start = doc.get("start_time")
    run.start_time = start if isinstance(start, str) else None
    for d in _list(cfg.get("devices")) or _list(doc.get("devices")):
        d = _dict(d)
        group = d.get("group")
        run.ranks.append(RankInfo(_int(d.get("rank")), group if isinstance(group, int) else None, _int(d.get("pid")),
                                  _str(d.get("hostname")), _int(d.get("device")),
                                  _str(d.get("device_hex")), _str(d.get("device_info"))))
    last_size, sweep = -1, 0
    for i, res in enumerate(_list(doc.get("results"))):
        res = _dict(res)
        size = _int(res.get("size"))
        if size <= last_size:
            sweep += 1
        last_size = size
        root = _str(res.get("root")).strip()
        redop = res.get("redop")
        oop, ip = _json_measurement(res, "out_of_place"), _json_measurement(res, "in_place")
        if size <= 0 or (oop is None and ip is None):
            run.skipped_lines += 1  # no size or no timing: not a result
            continue
        run.rows.append(Row(size, _int(res.get("count")), _str(res.get("type")),
                            redop if isinstance(redop, str) else None,
                            parse_int(root, max_digits=18),
                            oop, ip, sweep, i + 1))
    _finish(run)
    run.complete = "end_time" in doc
    if not run.complete:
        run.stopped_at = {"line": None, "reason": "no end_time: the run ended early"}
    return run


def _json_measurement(res: dict[str, Any], place: str) -> Measurement | None:
    d = _dict(res.get(place))
    if not d:
        return None
    t = d.get("time", d.get("cpu_time"))
    per = _dict(res.get(f"{place}_per_iter")) or _dict(d.get("per_iteration"))
    return Measurement(_jnum(t), _jnum(d.get("alg_bw")), _jnum(d.get("bus_bw")), _jnum(d.get("nwrong")),
                       per_iteration={str(k): float(v) for k, v in per.items()
                                      if isinstance(v, int | float) and not isinstance(v, bool)
                                      and math.isfinite(float(v))})


def _jnum(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float):
        try:
            return float(v)
        except OverflowError:  # an int beyond float range
            return None
    if isinstance(v, str) and len(v) < 40:
        try:
            return float(v)
        except ValueError:
            return None
    return None


def parse_bytes(content: bytes, source: str, collective: str | None = None) -> list[RunRecord]:
    """Text or `-J` JSON, told apart by the first character; what every ingest path calls."""
    text = content.decode("utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: JSON but not valid ({exc}); a truncated -J file cannot be read") from None
        except RecursionError:
            raise ValueError(f"{source}: JSON nested too deep to be nccl-tests output") from None
        return [parse_json(doc, source, collective)]
    return parse_text(text, source, collective)


def parse_file(path: str | Path, collective: str | None = None) -> list[RunRecord]:
    path = Path(path)
    return parse_bytes(path.read_bytes(), str(path), collective)
