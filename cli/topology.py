"""`fabricwatch topology discover` and `topology check`: the fabric as it is cabled, and against the plan."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from fabricwatch.cli.errors import CommandError, load_config
from fabricwatch.topology import check as checking
from fabricwatch.topology.cables import Fabric
from fabricwatch.topology.outliers import outliers
from fabricwatch.topology.roles import load_rules, records
from fabricwatch.topology.sources import from_ibnetdiscover, from_lldp, from_lldpctl, from_ufm, neighbour_readers


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror or exc}", 2) from None


def _json(path: Path) -> Any:
    try:
        return json.loads(_read(path))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise CommandError(f"{path}: not JSON: {exc}", 2) from None


def discover(args: argparse.Namespace) -> tuple[Fabric, list[dict[str, str]]]:
    fabric = Fabric()
    if args.config:
        cfg = load_config(args.config)
        targets = neighbour_readers(s for _, s in cfg.collector_configs())
        if not targets:
            raise CommandError(f"{args.config}: no [[collectors.snmp]] or [[collectors.gnmi]] target to read "
                               "LLDP from", 2)
        fabric.merge(asyncio.run(from_lldp(targets)))
    for path in args.ibnetdiscover or []:
        fabric.merge(from_ibnetdiscover(_read(path)))
    if args.ufm_dir:
        names = {n: args.ufm_dir / f"{n}.json" for n in ("systems", "ports", "links")}
        missing = [str(p) for p in names.values() if not p.exists()]
        if missing:
            raise CommandError(f"--ufm-dir needs systems.json, ports.json and links.json "
                               f"(missing {', '.join(missing)})", 2)
        fabric.merge(from_ufm(*(_json(p) for p in names.values())))
    for spec in args.lldp or []:
        host, sep, file = spec.partition("=")
        path = Path(file if sep else host)
        fabric.merge(from_lldpctl(_read(path), host if sep else path.stem))
    if not fabric.cables and not fabric.problems:
        raise CommandError("nothing to discover from: give -c CONFIG (LLDP over SNMP), --ibnetdiscover FILE, "
                           "--ufm-dir DIR or --lldp HOST=FILE", 2)
    try:
        rules = load_rules(args.role_rules) if args.role_rules else []
    except ValueError as exc:
        raise CommandError(str(exc), 2) from None
    return fabric, records(fabric, fabric_name=args.fabric, rules=rules)


def cmd_discover(args: argparse.Namespace) -> int:
    fabric, recs = discover(args)
    text = json.dumps(recs, indent=1) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    kinds: dict[str, int] = {}
    for n in fabric.nodes.values():
        kinds[n.kind] = kinds.get(n.kind, 0) + 1
    roles: dict[str, int] = {}
    for r in recs:
        roles[r["role"]] = roles.get(r["role"], 0) + 1
    print(f"{args.prog}: {len(fabric.cables):,} links between {kinds.get('switch', 0):,} switches and "
          f"{kinds.get('host', 0):,} hosts; port roles " + ", ".join(f"{k} {v:,}" for k, v in sorted(roles.items()))
          + ("; roles and rails are guesses where 'guessed' says so" if any("guessed" in r for r in recs) else ""),
          file=sys.stderr)
    for note in fabric.notes:
        print(f"{args.prog}: {note}", file=sys.stderr)
    for name, guids in fabric.duplicates.items():
        print(f"{args.prog}: WARN {len(guids)} nodes share the name {name!r} (told apart by GUID)", file=sys.stderr)
    for p in fabric.problems[:20]:
        print(f"{args.prog}: WARN {p}", file=sys.stderr)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    try:
        plan = checking.load_plan(args.plan)
        fabric = None
        if args.actual:
            actual = checking.actual_ends(_json(args.actual))
        else:
            fabric, recs = discover(args)
            actual = checking.actual_ends(recs)
    except ValueError as exc:
        raise CommandError(str(exc), 2) from None
    diffs = checking.check(plan, actual)
    if fabric is not None:  # what the sources report of the switches and modules themselves
        diffs += outliers(fabric)
    cables = checking.planned_cables(plan)
    if args.json:
        print(json.dumps({"planned_cables": cables, "ok": not diffs, "differences": [d.to_json() for d in diffs]}))
    else:
        for d in diffs:
            print(d.text())
        verdict = "matches the plan" if not diffs else f"{len(diffs)} differences from the plan"
        print(f"{cables:,} planned cables: {verdict}")
    return 0 if not diffs else 1


def _sources(p: argparse.ArgumentParser) -> None:
    p.add_argument("-c", "--config", type=Path,
                   help="read LLDP neighbours from every SNMP and gNMI target of this config")
    p.add_argument("--ibnetdiscover", type=Path, action="append", help="saved ibnetdiscover output (either format)")
    p.add_argument("--ufm-dir", type=Path, help="saved UFM resources: systems.json, ports.json, links.json")
    p.add_argument("--lldp", action="append", metavar="HOST=FILE",
                   help="a host's `lldpcli -f json show neighbors` (HOST defaults to the file's name)")
    p.add_argument("--role-rules", type=Path, help='TOML: [[role]] device = "regex", role = "leaf" (first match wins)')
    p.add_argument("--fabric", default="", help="the fabric tag to give every port (e.g. ib, roce)")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser("topology", help="the topology from the fabric, and the cabling against the plan")
    tsub = top.add_subparsers(dest="what", required=True)
    d = tsub.add_parser("discover", help="write topology.json from what the fabric reports")
    _sources(d)
    d.add_argument("--out", type=Path, help="file to write (default: standard output)")
    d.set_defaults(func=cmd_discover)
    c = tsub.add_parser("check", help="the cabling against the plan; exit 0 when it matches, 1 when not")
    c.add_argument("--plan", type=Path, required=True, help="topology JSON or a cabling CSV "
                   "(device, port, peer_device, peer_port[, speed, width])")
    c.add_argument("--actual", type=Path, help="a discovered topology.json (or discover now, from the sources below)")
    _sources(c)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_check)
