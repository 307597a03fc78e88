"""`fabricwatch train` and `fabricwatch replay`: fit the link detector, re-run recorded counters."""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from fabricwatch.cli.errors import CommandError, warn
from fabricwatch.core.config_types import parse_duration
from fabricwatch.core.influxql import InfluxQL
from fabricwatch.detection.detector import LinkDetector, ModelError
from fabricwatch.detection.interval_fold import ReplayReport, Window, intervals_from_files, windows_from_influx
from fabricwatch.detection.replay import why_not_a_sample
from fabricwatch.models.features import FeatureBuilder, FeatureFrame
from fabricwatch.models.intervals import LinkInterval


def _frames(intervals: Iterable[tuple[int, list[LinkInterval]] | Window], interval_s: float) -> list[FeatureFrame]:
    builder = FeatureBuilder(interval_s)
    return [builder.build(iv[0], iv[1], iv.rates if isinstance(iv, Window) else None) for iv in intervals]


def _check_files(paths: list[Path]) -> None:
    for p in paths:
        if not p.is_file():
            raise CommandError(f"{p}: no such file", 2)


def _windows(paths: list[Path], interval_s: float, report: ReplayReport, err: Console) -> Iterator[Window]:
    """The files' intervals, a chunk of lines at a time (the columnar path: memory follows the chunk),
    with a progress bar on a terminal."""
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("reading port_counters", total=None)

        def step(done: int, total: int) -> None:
            progress.update(task, total=total, completed=done)

        for chunk in intervals_from_files(paths, interval_s, report=report, progress=step):
            yield from chunk


def _no_samples(args: argparse.Namespace) -> int:
    """Nothing to judge is an error, not a clean night: say the first line that is no sample."""
    warn(args, f"no port_counters sample read: {why_not_a_sample(args.files)}")
    return 1


def _say_read(report: ReplayReport, windows: int, err: Console) -> None:
    late = f", {report.late:,} out of time order (left out)" if report.late else ""
    err.print(f"read {report.lines:,} lines: {report.samples:,} port_counters samples, "
              f"{report.skipped:,} skipped{late}, {windows:,} intervals")
    for e in report.errors:
        print(f"  {e}", file=sys.stderr)
    if report.unread_fields:
        names = ", ".join(f"{k} ({v:,} samples)" for k, v in sorted(report.unread_fields.items()))
        err.print(f"not read, no counter of fabricwatch's vocabulary: {names}", markup=False, soft_wrap=True)


@contextmanager
def _batch() -> Iterator[None]:
    """No cyclic garbage collection while a window is replayed: its millions of small records hold
    no cycles, and full collections over them cost more than the replay itself."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _fit(frames: list[FeatureFrame] | Callable[[], Iterable[FeatureFrame]], interval_s: float,
         args: argparse.Namespace, err: Console) -> LinkDetector:
    det = LinkDetector(interval_s=interval_s, false_alarm_rate=args.false_alarm_rate,
                       false_alarms_per_day=args.false_alarms_per_day)
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("fitting port classes", total=None)

        def step(cls: str, done: int, total: int) -> None:
            progress.update(task, total=total, completed=done, description=f"fitted {cls}")

        det.fit(frames, progress=step)
    return det


def _read_influx(args: argparse.Namespace, start: str, end: str, interval_s: float, err: Console) -> list[Window]:
    auth = None
    if args.influx_user:
        auth = (args.influx_user, os.environ.get(args.influx_password_env or "", ""))
    report = ReplayReport()
    with Progress(console=err, transient=True) as progress, _batch():
        task = progress.add_task("reading port_counters from InfluxDB", total=None)

        def step(done: int, total: int) -> None:
            progress.update(task, total=total, completed=done)

        db = InfluxQL(args.influx_url, args.influx_db, auth=auth, timeout=300.0)
        windows = [w for chunk in windows_from_influx(db, start, end, interval_s, report=report,
                                                       progress=step) for w in chunk]
    late = f", {report.late:,} out of time order (left out)" if report.late else ""
    err.print(f"read {report.samples:,} port_counters samples from {args.influx_url}{late}, "
              f"{len(windows):,} intervals")
    return windows


def _frame_stream(source: Callable[[], Iterable[tuple[int, list[LinkInterval]] | Window]],
                  interval_s: float) -> Callable[[], Iterator[FeatureFrame]]:
    """The intervals' frames, built afresh each time they are asked for (the fit reads its history more
    than once rather than holding it)."""
    def frames() -> Iterator[FeatureFrame]:
        builder = FeatureBuilder(interval_s)
        for iv in source():
            yield builder.build(iv[0], iv[1], iv.rates if isinstance(iv, Window) else None)
    return frames


def cmd_train(args: argparse.Namespace) -> int:
    err = Console(stderr=True)
    interval = parse_duration(args.interval)
    report: ReplayReport | None = None
    source: Callable[[], Iterable[tuple[int, list[LinkInterval]] | Window]]
    if args.influx_url:
        if not (args.influx_db and args.from_):
            warn(args, "--influx-url needs --influx-db and --from (and --to, default now)")
            return 2
        try:
            # read once ("now" moves): the windows stay in memory, their frames are built per pass
            windows = _read_influx(args, args.from_, args.to, interval, err)
        except (OSError, ValueError) as exc:
            warn(args, f"{exc}")
            return 1

        def source() -> Iterable[tuple[int, list[LinkInterval]] | Window]:
            return windows
    elif args.files:
        _check_files(args.files)
        report = ReplayReport()
        reports = [report]

        def source() -> Iterable[tuple[int, list[LinkInterval]] | Window]:
            # the first reading is the one reported; the fit's later passes read the same files again
            return _windows(args.files, interval, reports.pop() if reports else ReplayReport(), err)
    else:
        warn(args, "give line-protocol FILES or --influx-url")
        return 2
    try:
        det = _fit(_frame_stream(source, interval), interval, args, err)
    except ModelError as exc:
        if report is not None and not report.samples:
            _say_read(report, 0, err)
            return _no_samples(args)
        warn(args, f"{exc}")
        return 1
    if report is not None:
        _say_read(report, int(det.training.get("intervals", 0)), err)
    problems = unfit(det)
    for p in problems:
        warn(args, p)
    if problems and not args.force:
        warn(args, f"{args.out} not written (--force writes it anyway)")
        return 1
    det.save(args.out)
    table = Table(title=f"model {args.out}")
    for col in ("class", "train intervals", "held out", "forest threshold"):
        table.add_column(col)
    for cls, m in sorted(det.models.items()):
        table.add_row(cls, f"{m.train_rows:,}", f"{m.holdout_rows:,}", f"{m.threshold:.4f}")
    Console().print(table)
    print(expected_pages(det))
    return 0


MIN_HISTORY_S = 1800.0  # under this, neither the healthy range nor the expected pages are measured
OVER_BUDGET = 10.0  # held-out history paging this many times the budget was not healthy history


def unfit(det: LinkDetector) -> list[str]:
    """Why the model should not be used: too little history, or history that pages far over the budget
    (a fault in it, which the model now takes for healthy)."""
    out = []
    t = det.training
    span_s = (t.get("to_ns", 0) - t.get("from_ns", 0)) / 1e9
    if span_s < MIN_HISTORY_S:
        out.append(f"only {span_s / 60:.0f} minutes of history ({t.get('intervals', 0):,} intervals): too little "
                   f"to learn the fabric's healthy range or to measure its pages; train on at least "
                   f"{MIN_HISTORY_S / 60:g} minutes (hours are better) of healthy history")
    e = t.get("expected") or {}
    links = int(t.get("links") or 0)
    budget = det.false_alarms_per_day if det.false_alarms_per_day is not None \
        else det.false_alarm_rate * links * 86400 / det.interval_s
    if e.get("events") and e.get("pages_per_day", 0.0) > OVER_BUDGET * budget:
        out.append(f"expected pages {e['pages_per_day']:,.1f}/day against a budget of {budget:,.1f}/day "
                   f"({e['events']} finding events in the held-out history): it was not healthy (a fault in "
                   "it?) or it is too short to say")
    return out


def expected_pages(det: LinkDetector) -> str:
    """What the thresholds mean to the on-call engineer, measured on the held-out healthy history."""
    e = det.training.get("expected") or {}
    links = det.training.get("links", 0)
    hours = e.get("holdout_intervals", 0) * det.interval_s / 3600
    budget = (f"budget {det.false_alarms_per_day:g} false alarms/day over {links:,} links "
              f"= {det.false_alarm_rate:.2g} of link-intervals" if det.false_alarms_per_day is not None
              else f"false-alarm rate {det.false_alarm_rate:.2g} of link-intervals over {links:,} links")
    if e.get("events"):
        seen = (f"expected pages: {e['pages_per_day']:,.1f}/day on this fabric, "
                f"{e['pages_per_day_per_10k_links']:,.1f}/day per 10k links "
                f"({e['events']} finding events in {hours:,.1f} h of held-out healthy history)")
    else:
        seen = (f"expected pages: none in {hours:,.1f} h of held-out healthy history "
                f"(fewer than {e.get('upper_per_day', 0):,.1f}/day at 95 % confidence; hold out more "
                "history for a tighter bound)")
    return f"{budget}; {seen}"


def cmd_replay(args: argparse.Namespace) -> int:
    err = Console(stderr=True)
    interval = parse_duration(args.interval)
    det: LinkDetector | None = None
    if args.model:
        try:
            det = LinkDetector.load(args.model)
        except ModelError as exc:
            warn(args, str(exc))
            return 2
        interval = det.interval_s  # the model's own interval, also for reading the data
    elif not args.fit_first:
        warn(args, "give --model FILE or --fit-first DURATION")
        return 2
    report = ReplayReport()
    if args.influx_url:
        if args.files or not args.influx_db:
            warn(args, "--influx-url needs --influx-db (and --from/--to), and no FILES")
            return 2
        source: Iterator[tuple[int, list[LinkInterval]] | Window] = iter(_read_influx(args, args.from_, args.to,
                                                                                      interval, err))
    elif not args.files:
        warn(args, "give line-protocol FILES or --influx-url")
        return 2
    else:
        _check_files(args.files)
        source = _windows(args.files, interval, report, err)
    rows = []
    seen_classes: set[str] = set()
    windows = 0
    with _batch():
        if det is None:
            first = parse_duration(args.fit_first)
            fit_part: list[tuple[int, list[LinkInterval]] | Window] = []
            rest: list[tuple[int, list[LinkInterval]] | Window] = []
            for iv in source:
                windows += 1
                if fit_part and iv[0] >= fit_part[0][0] + first * 1e9:
                    rest.append(iv)
                    break
                fit_part.append(iv)
            if not fit_part:
                if not args.influx_url and not report.samples:
                    return _no_samples(args)
                warn(args, "no data")
                return 1
            try:
                det = _fit(_frames(fit_part, interval), interval, args, err)
            except ModelError as exc:
                warn(args, f"{exc}")
                return 1
            del fit_part
            source = itertools.chain(rest, source)
            windows -= len(rest)
        builder = FeatureBuilder(interval)

        def frames() -> Iterator[FeatureFrame]:
            nonlocal windows
            for iv in source:
                windows += 1
                frame = builder.build(iv[0], iv[1], iv.rates if isinstance(iv, Window) else None)
                seen_classes.update(frame.classes)
                yield frame

        for findings in det.detect_many(frames()):
            for finding in findings:
                rows.append(finding)
                if args.json:
                    for line in finding.per_link():
                        print(json.dumps(line, allow_nan=False), flush=True)
    if not args.influx_url:
        _say_read(report, windows, err)
        if not report.samples:
            return _no_samples(args)
    if args.model and seen_classes and not seen_classes & set(det.models):
        warn(args, f"the model has no class for this data (model: {', '.join(sorted(det.models))}; "
                   f"data: {', '.join(sorted(seen_classes))}): only the rules ran")
        return 1
    if not args.json:
        table = Table(title=f"{len(rows)} flagged link-intervals")
        for col in ("time", "device", "port", "severity", "score", "explanation"):
            table.add_column(col)
        for f in rows:
            j = f.to_json()
            table.add_row(j["time"], f.device, f.port, f.severity, f"{f.score:.2f}", f.explanation)
        Console().print(table)
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    train = sub.add_parser("train", help="fit the link detector on healthy history (line-protocol files)")
    train.add_argument("files", nargs="*", type=Path, help="port_counters line protocol")
    train.add_argument("--influx-url", help="read history from InfluxDB (InfluxQL /query) instead of files")
    train.add_argument("--influx-db")
    train.add_argument("--influx-user")
    train.add_argument("--influx-password-env", help="environment variable holding the password")
    train.add_argument("--from", "--start", dest="from_",
                       help="with --influx-url: window start, ISO 8601, '-6h', 'yesterday 22:00' (UTC)")
    train.add_argument("--to", "--end", dest="to", default="now", help="window end (default: now)")
    train.add_argument("--out", type=Path, required=True, help="model file to write")
    train.add_argument("--interval", default="30s")
    train.add_argument("--false-alarm-rate", type=float, default=1e-4,
                       help="share of healthy held-out link-intervals allowed over the threshold")
    train.add_argument("--false-alarms-per-day", type=float,
                       help="the budget in pages: false alarms per day for the whole fabric (overrides the rate)")
    train.add_argument("--force", action="store_true",
                       help=f"write the model even from under {MIN_HISTORY_S / 60:g} minutes of history or history "
                            "that pages far over the budget (warned either way)")
    train.set_defaults(func=cmd_train)

    replay = sub.add_parser("replay", help="run pipeline + detector over recorded port_counters")
    replay.add_argument("files", nargs="*", type=Path, help="port_counters line protocol (or --influx-url)")
    replay.add_argument("--influx-url", help="read the window from InfluxDB (InfluxQL /query) instead of files")
    replay.add_argument("--influx-db")
    replay.add_argument("--influx-user")
    replay.add_argument("--influx-password-env", help="environment variable holding the password")
    replay.add_argument("--from", dest="from_", default="-1h", help="window start: ISO 8601, '-2h', 'yesterday 22:00'")
    replay.add_argument("--to", default="now")
    replay.add_argument("--model", type=Path)
    replay.add_argument("--fit-first", help="fit on the first DURATION of the data, score the rest")
    replay.add_argument("--interval", default="30s", help="with --fit-first (a model brings its own)")
    replay.add_argument("--false-alarm-rate", type=float, default=1e-4)
    replay.add_argument("--false-alarms-per-day", type=float,
                        help="with --fit-first: the budget for the whole fabric (overrides the rate)")
    replay.add_argument("--json", action="store_true", help="one JSON object per flagged link-interval")
    replay.set_defaults(func=cmd_replay)

