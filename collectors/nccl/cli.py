"""`fabricwatch nccl parse`: nccl-tests output -> documented run records."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from collectors.nccl.parser import COLLECTIVES, parse_file


def cmd_parse(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:
        try:
            runs = parse_file(path, args.collective)
        except (OSError, ValueError) as exc:
            print(f"fabricwatch nccl parse: {exc}", file=sys.stderr)
            status = 1
            continue
        if not any(r.rows for r in runs):
            print(f"fabricwatch nccl parse: {path}: no result rows found", file=sys.stderr)
            status = 1
        for run in runs:
            if run.stopped_at:
                print(f"{path}: incomplete run: parsed {len(run.rows)} rows, stopped after line "
                      f"{run.stopped_at['line']}: {run.stopped_at['reason']}", file=sys.stderr)
            if args.json:
                print(json.dumps(run.to_json()))
            else:
                flagged = sum(1 for r in run.rows if r.flags)
                plateau = max((r.out_of_place.busbw or 0.0) for r in run.rows if r.out_of_place) if run.rows else 0
                print(f"{path}: {run.collective or 'unknown collective'} ({run.collective_from}), "
                      f"{run.nranks} ranks on {len(run.hosts)} hosts, {len(run.rows)} rows, "
                      f"peak busbw {plateau:g} GB/s, {flagged} rows flagged, "
                      f"{'complete' if run.complete else 'INCOMPLETE'}")
    return status


def add_parsers(sub: argparse._SubParsersAction) -> None:
    nccl = sub.add_parser("nccl", help="NCCL test results")
    nsub = nccl.add_subparsers(dest="nccl_command", required=True)
    parse = nsub.add_parser("parse", help="parse nccl-tests output (text or -J JSON)")
    parse.add_argument("files", nargs="+", type=Path)
    parse.add_argument("--json", action="store_true", help="one JSON run record per line")
    parse.add_argument("--collective", choices=COLLECTIVES,
                       help="name the collective when the log does not (no header line, odd file name)")
    parse.set_defaults(func=cmd_parse)
