"""The `fabricwatch` command line: every command in one tree.

Commands import the layers they drive when they run (function-local imports, on purpose): a quick
`fabricwatch nccl parse` or `--version` must not pay two seconds of scikit-learn and gRPC imports.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import re
import socket
import sys
from pathlib import Path

import fabricwatch
from fabricwatch.cli.errors import CommandError, load_config, warn
from fabricwatch.core import event_loop
from fabricwatch.daemon import logs

log = logging.getLogger("fabricwatch.cli")


def listen_in_use(listen: str) -> bool:
    """Whether another process listens on host:port already (a second `run`): said before anything is opened."""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    if not port.isascii() or not port.isdigit() or int(port) == 0:
        return False
    try:
        with socket.create_server((host, int(port)), family=socket.AF_INET6 if ":" in host else socket.AF_INET):
            return False
    except OSError as exc:
        return exc.errno == errno.EADDRINUSE  # anything else the HTTP server reports as it starts


def _cmd_run(args: argparse.Namespace) -> int:
    from fabricwatch.daemon.runner import Runner

    cfg = load_config(args.config)
    logs.setup(cfg.daemon.log_level)
    listen = args.listen or cfg.daemon.listen
    if listen_in_use(listen):
        warn(args, f"cannot start: {listen} is in use (another fabricwatch run?): give another [daemon] listen "
                   "or --listen")
        return 2

    from fabricwatch.detection.detector import ModelError
    from fabricwatch.sinks.spool import SpoolInUse

    async def main() -> int:
        try:
            runner = Runner(cfg, config_path=Path(args.config), listen=args.listen)
        except (ModelError, ValueError, SpoolInUse) as exc:
            warn(args, f"cannot start: {exc}")
            return 2
        return await runner.run()

    return event_loop.run(main(), loop=cfg.daemon.event_loop)


def _cmd_check(args: argparse.Namespace) -> int:
    from fabricwatch.daemon.check import run_check

    logs.setup("error")
    return asyncio.run(run_check(Path(args.config), timeout=args.timeout, config_only=args.config_only))


def _cmd_simulate(args: argparse.Namespace) -> int:
    from fabricwatch.cli.simulate import run_simulate

    logs.setup(args.log_level)
    return asyncio.run(run_simulate(args))


def _cmd_demo(args: argparse.Namespace) -> int:
    from fabricwatch.cli.demo import run_demo

    return asyncio.run(run_demo(args))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fabricwatch", description="Watch the network fabric of GPU clusters.")
    p.add_argument("--version", action="version", version=f"fabricwatch {fabricwatch.__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run the daemon")
    run.add_argument("-c", "--config", required=True, help="TOML config file")
    run.add_argument("--listen", help="override daemon.listen (host:port)")
    run.set_defaults(func=_cmd_run)

    check = sub.add_parser("check", help="validate the config, check sinks, reach every target")
    check.add_argument("-c", "--config", required=True)
    check.add_argument("--timeout", type=float, default=10.0, help="seconds per target")
    check.add_argument("--config-only", action="store_true",
                       help="only what the daemon needs to start (config, topology, model): for ExecStartPre")
    check.set_defaults(func=_cmd_check)

    sim = sub.add_parser("simulate", help="run the simulated fabric alone")
    sim.add_argument("-c", "--config", help="simulator TOML (defaults: 8 nodes, 2 rails, 2 spines)")
    sim.add_argument("--fault", action="append", default=[],
                     help="inject at start: kind:device[:port][,key=value] (repeatable)")
    sim.add_argument("--out", type=Path,
                     help="write topology.json and a matching fabricwatch.toml into this folder")
    sim.add_argument("--interval", default="10s", help="sample interval written in fabricwatch.toml")
    sim.add_argument("--host-sysfs", type=Path,
                     help="keep a sysfs tree per simulated host under this folder (for the hostnic collector)")
    sim.add_argument("--log-level", default="info")
    sim.set_defaults(func=_cmd_simulate)

    demo = sub.add_parser("demo", help="simulator + daemon in one go, with a live view")
    demo.add_argument("--influx-url", default=None,
                      help="InfluxDB URL (env FABRICWATCH_INFLUX_URL; default http://127.0.0.1:8086); MQTT events "
                           "go to FABRICWATCH_MQTT_HOST:FABRICWATCH_MQTT_PORT (default 127.0.0.1:1883) when it answers")
    demo.add_argument("--influx-api", choices=["v1", "v2"], default="v1")
    demo.add_argument("--influx-db", default=None,
                      help="database (v1) or bucket (v2); default fabricwatch, fabricwatch_ib for --fabric ib")
    demo.add_argument("--state-dir", type=Path, default=None,
                      help="spool, model and log folder (default ~/.local/state/fabricwatch/demo-<fabric>)")
    demo.add_argument("--listen", default="127.0.0.1:9465")
    demo.add_argument("--nodes", type=int, default=16)
    demo.add_argument("--rails", type=int, default=4)
    demo.add_argument("--spines", type=int, default=2)
    demo.add_argument("--fabric", choices=["roce", "ib"], default="roce",
                      help="roce: switches over gNMI and SNMP; ib: an InfiniBand fabric behind a simulated UFM")
    demo.add_argument("--interval", type=float, default=2.0, help="sample interval, seconds")
    demo.add_argument("--fault", action="append", default=None,
                      help="fault to inject (default: a flapping link and a PFC storm; on ib a high BER)")
    demo.add_argument("--no-faults", action="store_true", help="a healthy fabric: inject no fault")
    demo.add_argument("--duration", type=float, default=None, help="stop after N seconds")
    demo.add_argument("--no-view", action="store_true", help="plain JSON logs instead of the live view")
    demo.set_defaults(func=_cmd_demo)

    from fabricwatch.cli.cluster import add_parsers as add_cluster
    from fabricwatch.cli.detector import add_parsers
    from fabricwatch.cli.nccl import add_parsers as add_nccl
    from fabricwatch.cli.postmortem import add_parsers as add_postmortem
    from fabricwatch.cli.slurm import add_parsers as add_slurm
    from fabricwatch.cli.topology import add_parsers as add_topology

    add_parsers(sub)
    add_nccl(sub)
    add_postmortem(sub)
    add_topology(sub)
    add_cluster(sub)
    add_slurm(sub)
    _name_commands(p)
    return p


def _name_commands(parser: argparse.ArgumentParser) -> None:
    """Each command knows its full name ("fabricwatch nccl parse"): the prefix of its messages."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.set_defaults(prog=sub.prog)
                _name_commands(sub)


# options whose value may be a relative time: argparse reads '-6h' as an option ("expected one argument")
TIME_OPTIONS = frozenset({"--from", "--to", "--at", "--start", "--end"})
_RELATIVE = re.compile(r"-\d")


def join_relative_times(argv: list[str]) -> list[str]:
    """`--from -6h` as `--from=-6h`, the one form argparse takes, so the documented form works."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return out + argv[i:]
        if arg in TIME_OPTIONS and i + 1 < len(argv) and _RELATIVE.match(argv[i + 1]):
            out.append(f"{arg}={argv[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line as main reads it (usage errors exit 2 with argparse's message)."""
    return build_parser().parse_args(join_relative_times(argv))


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        try:
            return int(args.func(args))
        except CommandError as exc:
            warn(args, str(exc))
            return exc.code
    except KeyboardInterrupt:
        # Ctrl-C before a command handles it itself (the daemon's start-up): stop, no traceback
        return 130
    except BrokenPipeError:
        # `... | head` closed the pipe: stop writing; stdout goes to /dev/null so the exit's flush is quiet too
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
