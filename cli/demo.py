"""`fabricwatch demo`: simulator + daemon in one process, with a live terminal view."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import aiohttp
from rich.console import Group
from rich.live import Live
from rich.table import Table

from fabricwatch.core.topology import Topology
from fabricwatch.daemon import logs
from fabricwatch.daemon.config import parse
from fabricwatch.daemon.runner import Runner
from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.pipeline.history import LinkHistory
from fabricwatch.pipeline.pipeline import PortRateView
from fabricwatch.pipeline.ranking import recent_totals, worst_links
from fabricwatch.pipeline.totals import error_rate
from fabricwatch.simulator.service import SimConfig, Simulator
from fabricwatch.simulator.topology import FabricSpec
from fabricwatch.simulator.topology import Topology as SimTopology
from fabricwatch.sinks.influxdb.sink import InfluxSink

log = logging.getLogger("fabricwatch.demo")

DEMO_INTERVAL_S = 10.0
DEMO_TRAIN_MIN = 90
# and an optic that ages over half an hour: its failing lane is flagged a quarter of an hour before
# its errors get through the FEC
DEFAULT_FAULTS = ["flap:leaf-r0-0:{p0},period=20", "pfc_storm:leaf-r1-0:{p1}", "aging_optic:leaf-r0-0:{p2},ramp=1800"]
# on InfiniBand (UFM): a flapping link and a dirty optic whose 16-bit symbol error counter fills up
DEFAULT_IB_FAULTS = ["flap:leaf-r0-0:{p0},period=20", "ber:leaf-r1-0:{p1},rate=200",
                     "aging_optic:leaf-r0-0:{p2},ramp=1800"]
DEMO_OPTICS_S = 30.0  # the demo reads modules every 30 s, not 300 s, so that half an hour shows the aging


def demo_faults(topology: SimTopology, ib: bool) -> list[str]:
    """The faults the demo injects, on this simulated fabric's port names (scripts/screenshots.py
    pictures the same)."""
    leaf0 = topology.devices.get("leaf-r0-0")
    leaf1 = topology.devices.get("leaf-r1-0") or leaf0
    return [f.format(p0=leaf0.ports[0].name if leaf0 else "", p1=leaf1.ports[1].name if leaf1 else "",
                     p2=leaf0.ports[2].name if leaf0 and len(leaf0.ports) > 2 else "")
            for f in (DEFAULT_IB_FAULTS if ib else DEFAULT_FAULTS)]


def _demo_collectors(sim: Any, interval: float) -> dict[str, list[dict[str, Any]]]:
    sections = sim.collectors_config(interval)
    for kind in ("gnmi", "snmp"):
        for section in sections.get(kind, []):
            section["optics_interval"] = max(DEMO_OPTICS_S, interval)
    return sections


async def _broker_reachable(host: str, port: int) -> bool:
    try:
        async with asyncio.timeout(1.0):
            _, writer = await asyncio.open_connection(host, port)
    except (OSError, TimeoutError):
        return False
    writer.close()
    return True


async def _prepare_influx(url: str, api: str, db: str) -> str | None:
    """Create the demo database when InfluxDB 1.x answers; None if reachable, else why not."""
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as s:
            async with s.get(f"{url}/ping") as resp:
                if resp.status >= 300:
                    return f"{url}/ping answered {resp.status}"
            if api == "v1":
                async with s.post(f"{url}/query", data={"q": f'CREATE DATABASE "{db}"'}) as resp:
                    if resp.status != 200:
                        return f"CREATE DATABASE answered {resp.status}"
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _train_demo_model(spec: FabricSpec, path: Path) -> None:
    """A model for the demo's fabric, fitted on simulated healthy history (another seed)."""
    run = simulate(spec, int(DEMO_TRAIN_MIN * 60 / DEMO_INTERVAL_S), interval_s=DEMO_INTERVAL_S, seed=97,
                   as_served=True)
    builder = FeatureBuilder(DEMO_INTERVAL_S)
    frames = [builder.build(start, links) for start, links in run.frames]
    LinkDetector(interval_s=DEMO_INTERVAL_S).fit(frames).save(path)


def _findings(runner: Runner) -> Table:
    table = Table(title="link findings (detector)", expand=True)
    for col in ("device", "port", "severity", "source", "score", "explanation"):
        table.add_column(col)
    det = runner.detector
    if det is None:
        return table
    for f in det.ranked_findings()[:8]:
        colour = "red" if f.severity == "critical" else "yellow"
        table.add_row(f.device, f.port, f"[{colour}]{f.severity}", f.source, f"{f.score:.2f}",
                      f.explanation[:110])
    if not det.active:
        table.add_row("", "", "", "", "", f"none yet ({det.intervals} intervals of {det.interval_s:g}s scored)")
    return table


# the link columns of the live view: what matters on each fabric (RoCE: pauses and marks, the highest
# of the last minute, as ranked; IB has neither, its trouble is symbol errors, downed links, credit
# waits and receive errors)
ROCE_COLUMNS = (("pauses", "pauses", ".0f"), ("errors", "errors", ".1f"), ("ecn", "ecn", ".0f"))
IB_COLUMNS = (("symbol err", lambda r: r.get("symbol_errors", 0), ".2f"),
              ("link downed", lambda r: r.get("link_downed", 0), ".3f"),
              ("xmit wait", lambda r: r.get("xmit_wait", 0), ".3g"),
              ("rcv err", lambda r: r.get("rcv_errors", 0) + r.get("rcv_remote_physical_errors", 0), ".2f"))


class IngestRate:
    """Counter values per second over the last minute: pollers that answer every 10-30 s (UFM,
    SNMP) would read as 0 most seconds if measured second by second."""

    def __init__(self, window_s: float = 60.0) -> None:
        self.window_s = window_s
        self._seen: list[tuple[float, int]] = []

    def update(self, now: float, total: int) -> float:
        self._seen.append((now, total))
        while len(self._seen) > 2 and now - self._seen[1][0] >= self.window_s:
            self._seen.pop(0)
        t0, v0 = self._seen[0]
        return (total - v0) / (now - t0) if now > t0 else 0.0


def top_links_table(latest: Mapping[tuple[str, str], PortRateView], history: LinkHistory | None,
                    scores: Mapping[tuple[str, str], float], ib: bool) -> Table:
    """The live view's worst links: on RoCE ranked and shown by the highest pauses and errors of
    their last minute (a job's compute phases leave every link's last poll at 0 pauses)."""
    if ib:  # errors first, then credit waits
        title = "top links by error and credit-wait rate (per second)"
        order = sorted(latest.items(), key=lambda kv: (error_rate(kv[1].rates),
                       kv[1].rates.get("xmit_wait", 0.0)), reverse=True)[:10]
    else:
        title = ("top links by pause and error rate (per second, the highest of the last minute)"
                 if history is not None
                 else "top links by pause and error rate (per second)")
        order = worst_links(latest, limit=10, history=history)
    links = Table(title=title, expand=True)
    for col in ("device", "port", "role", "score", *(c[0] for c in (IB_COLUMNS if ib else ROCE_COLUMNS)), "Gb/s in"):
        links.add_column(col)
    for key, view in order:
        r = view.rates
        score = scores.get(key)
        if ib:
            cells = [format(fn(r), fmt) for _, fn, fmt in IB_COLUMNS]
        else:
            totals = recent_totals(key, view, history)
            cells = [format(totals[name], fmt) for _, name, fmt in ROCE_COLUMNS]
        links.add_row(key[0], key[1], view.tags.get("role", ""), "" if score is None else f"{score:.2f}",
                      *cells, f"{r.get('in_octets', 0) * 8 / 1e9:.1f}")
    return links


def _view(runner: Runner, influx_note: str, rates: dict[str, float], ib: bool = False) -> Group:
    targets = Table(title="targets", expand=True)
    for col in ("device", "collector", "up", "samples", "errors", "last error"):
        targets.add_column(col)
    for t in sorted(runner.targets.values(), key=lambda t: t.device):
        targets.add_row(
            t.device, t.name, "[green]up" if t.up else "[red]down", str(t.samples),
            str(sum(t.errors.values())), t.last_error[:50],
        )
    storage = Table(title="storage", expand=True)
    for col in ("sink", "written", "spooled points", "spool bytes", "dropped", "last error"):
        storage.add_column(col)
    for s in runner.sinks:
        if not isinstance(s, InfluxSink):
            continue
        storage.add_row(
            s.name, str(s.stats.points_written), str(s.spool.pending_points),
            str(s.spool.pending_bytes),
            str(s.spool.stats.dropped_points + s.stats.points_rejected), s.stats.last_error[:50],
        )
    scores = runner.detector.scores if runner.detector is not None else {}
    links = top_links_table(runner.pipeline.latest, runner.pipeline.history, scores, ib)
    up = sum(t.up for t in runner.targets.values())
    header = Table.grid(expand=True)
    header.add_row(
        f"[bold]fabricwatch demo[/] targets up {up}/{len(runner.targets)}   "
        f"ingest {rates.get('values', 0):,.0f} counter values/s   "
        f"fabric page {runner.http.url if runner.http else ''}/   {influx_note}   Ctrl-C stops"
    )
    return Group(header, targets, storage, _findings(runner), links)


def demo_places(fabric: str, state_dir: Path | None, db: str | None) -> tuple[Path, str]:
    """Each fabric's demo its own state (spool, model, log) and database: a RoCE and an IB run of
    the same switch names must not mix, nor one run's spool flush into the other's data."""
    base = Path(os.environ.get("XDG_STATE_HOME", Path.home() / ".local/state")) / "fabricwatch"
    default_db = "fabricwatch" if fabric == "roce" else f"fabricwatch_{fabric}"
    return state_dir or base / f"demo-{fabric}", db or default_db


async def run_demo(args: argparse.Namespace) -> int:
    state, db = demo_places(args.fabric, args.state_dir, args.influx_db)
    args.influx_db = db
    state.mkdir(parents=True, exist_ok=True)
    if args.no_view:
        logs.setup("info")
    else:
        logs.setup("info", path=state / "demo.log")
    url = (args.influx_url or os.environ.get("FABRICWATCH_INFLUX_URL") or "http://127.0.0.1:8086").rstrip("/")
    ib = args.fabric == "ib"
    sim = Simulator(SimConfig.model_validate({
        "fabric": {"nodes": args.nodes, "rails": args.rails, "spines": args.spines},
        # RoCE: one spine and every other leaf from rail 2 on speak SNMP only, the rest gNMI (the
        # default faults sit on gNMI leaves, whose flaps stream live); InfiniBand: UFM manages all
        **({"ufm": {"enabled": True}} if ib else
           {"snmp": {"devices": ["spine-1", *(f"leaf-r{r}-0" for r in range(2, args.rails, 2))]}}),
    }))
    faults = [] if args.no_faults else args.fault if args.fault is not None else \
        demo_faults(sim.fabric.topology, ib)
    from fabricwatch.simulator.faults import Fault

    for text in faults:
        sim.fabric.inject(Fault.parse(text))
    await sim.start()
    problem = await _prepare_influx(url, args.influx_api, args.influx_db)
    influx_note = (f"InfluxDB {url} db={args.influx_db}" if problem is None
                   else f"InfluxDB not reachable ({url}): spooling to {state / 'spool'}")
    sink: dict[str, Any] = {
        "api": args.influx_api, "url": url, "spool": {"dir": str(state / "spool")},
        "close_timeout": 3.0,
    }
    sink["database" if args.influx_api == "v1" else "bucket"] = args.influx_db
    mqtt_host = os.environ.get("FABRICWATCH_MQTT_HOST", "127.0.0.1")
    mqtt_port = int(os.environ.get("FABRICWATCH_MQTT_PORT", "1883"))
    mqtt: list[dict[str, Any]] = []
    if await _broker_reachable(mqtt_host, mqtt_port):  # Mosquitto when it is there, nothing otherwise
        mqtt = [{"host": mqtt_host, "port": mqtt_port, "site": "demo", "client_id": "fabricwatch-demo"}]
        influx_note += f"   MQTT events on {mqtt_host}:{mqtt_port} fabricwatch/demo/#"
    model_path = state / "demo-link-model.fwm"
    print(f"fabricwatch demo: fitting the link detector on {DEMO_TRAIN_MIN} simulated minutes of healthy "
          f"traffic ({len(sim.fabric.ports)} ports)...", flush=True)
    await asyncio.to_thread(_train_demo_model, sim.fabric.spec, model_path)
    cfg = parse({
        "daemon": {"listen": args.listen, "site": "demo"},
        "detector": {"model": str(model_path)},
        # the link page plots the last hour at the demo's own pace, not one point a minute
        "pipeline": {"history": "1h", "history_step": f"{max(args.interval, 5.0)}s"},
        "collectors": _demo_collectors(sim, args.interval),
        "sinks": {"influxdb": [sink], "mqtt": mqtt},
    }, "<demo>")
    runner = Runner(cfg)
    runner.pipeline.topology = Topology.from_records(sim.fabric.topology.records())
    log.info("demo starting", extra={"influx": influx_note, "ports": len(sim.fabric.ports)})
    run_task = asyncio.create_task(runner.run(), name="daemon")
    stop_timer = None
    if args.duration:
        stop_timer = asyncio.get_running_loop().call_later(args.duration, runner.stop)
    try:
        if args.no_view:
            await run_task
        else:
            rates: dict[str, float] = {}
            ingest = IngestRate()
            with Live(_view(runner, influx_note, rates, ib), refresh_per_second=2, screen=False) as live:
                # leave the live view as soon as a stop is asked for: the flush that follows
                # must not wait behind a terminal redraw
                while not run_task.done() and not runner.stopping:
                    await asyncio.wait({run_task}, timeout=1.0)
                    if runner.stopping:
                        break
                    rates["values"] = ingest.update(time.monotonic(), sum(t.values for t in runner.targets.values()))
                    live.update(_view(runner, influx_note, rates, ib))
            if runner.stopping:
                print("fabricwatch demo: stopping, flushing to storage...", flush=True)
        code = await run_task
    finally:
        if stop_timer is not None:
            stop_timer.cancel()
        with contextlib.suppress(Exception):
            await sim.stop()
    print(f"fabricwatch demo stopped. {influx_note}. Log: {state / 'demo.log'}")
    return code
