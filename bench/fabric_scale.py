"""The daemon at fabric scale, over real gRPC: CPU per million counter updates end to end, updates/s,
p99 delay from a sample's device timestamp to its write, and RSS per 10k ports, with the targets run
in the daemon's process (workers = 1) and in worker processes (workers = N); the decode-to-dict limit
on the same messages, and a peer on the same switches: pygnmi's client glued to influxdb-client's
`Point` (bench/gnmi_peer.py), as a user would. For each shape of message (`--shape`): `recorded`, as
the recordings of real devices pack a notification (simulator/recorded.py: 15-36 updates an interface
counters notification), and `small`, a few counters a notification.

    python bench/fabric_scale.py [--ports 2000] [--interval 2] [--workers 2] [--seconds 10]
                                 [--shape recorded|small|both] [--updates-per-message N]

The load: a replay server in its own process (niced, so that it yields the cores) serves every
simulated switch on its own gRPC port, sending pre-encoded SubscribeResponses (the simulator's
notifications of a few ticks, encoded once; only the timestamp is written per send), so it costs
little CPU. `--updates-per-message N` splits every notification into messages of at most N updates.
The daemon writes to a discarding InfluxDB /write endpoint in this process, which reads
the timestamps of 1 line in 50 to measure the delay (printed as such: no real InfluxDB, whose own
cost would share the cores). Only the daemon's processes are counted (/proc CPU of the daemon and
its workers over the measured window); the daemon counts the counter values it stores
(fabricwatch_counter_values_ingested_total), turned into updates received with the load's own ratio
(updates sent a tick over the values they store), the unit the peer and the limit are counted in.
The daemon runs with its defaults otherwise (the last hour of every link kept in memory for the link
page included).

Last line, for the last shape measured (`recorded` by default): `speedup=... efficiency=...
limit_ratio=... peer_ratio=... rss_mb_per_further_10k=... cores_100k_30s=... cores_100k_10s=...`
(scripts read it): peer_ratio is our CPU per update over the peer's, one process each; the cores that
100k ports need at 30 s and at 10 s at the workers' cost per update; what 10k ports add to RSS beyond a
daemon watching one switch. A line per shape above it gives the same figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import tomli_w  # noqa: E402

from fabricwatch.simulator.flavours import SHAPES  # noqa: E402
from tests.servers import free_port  # noqa: E402

TARGETS = {"limit_ratio": 0.4, "efficiency": 0.9, "peer_ratio": 0.5, "rss_mb_per_10k": 300.0}
TICKS = 4
FLAVOURS = ("openconfig", "arista", "cumulus", "sonic")


# -- the load: pre-encoded gNMI responses --------------------------------------------------------------
def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def split(n: Any, per_message: int) -> list[Any]:
    """A notification as messages of at most `per_message` updates, each under its prefix and timestamp
    (a key-less one carries its "name" leaf in each, or its counters would have no port)."""
    from pygnmi.spec.v080 import gnmi_pb2

    if per_message <= 0 or len(n.update) <= per_message:
        return [n]
    name = [u for u in n.update if [e.name for e in u.path.elem] == ["name"]]
    rest = [u for u in n.update if not name or u is not name[0]]
    step = max(1, per_message - len(name))
    return [gnmi_pb2.Notification(timestamp=n.timestamp, prefix=n.prefix, update=[*name, *rest[i:i + step]])
            for i in range(0, len(rest), step)]


def encode(ports: int, path: Path, shape: str = "recorded", per_message: int = 0) -> dict[str, Any]:
    """Every device's notifications for TICKS ticks in `shape` (split to `per_message` updates at most),
    serialized without their timestamp; per tick the updates sent and the counter values they store."""
    from gnmi_ingest import _values_in, fabric_for

    from fabricwatch.collectors.gnmi.mapping import Decoder, load_table
    from fabricwatch.simulator.flavours import port_notifications

    fabric = fabric_for(ports, FLAVOURS)
    devices: dict[str, dict[str, Any]] = {}
    values = messages = stored = 0
    sent_by: dict[str, list[int]] = {}
    for t in range(TICKS):
        snap = fabric.snapshot(fabric.start_ns + (t + 1) * 10_000_000_000)
        for dev in fabric.topology.devices.values():
            d = devices.setdefault(dev.name, {"flavour": dev.flavour, "ticks": [], "ports": len(dev.ports)})
            decoder = Decoder(load_table(dev.flavour), dev.name, {})
            tick = []
            for port in dev.ports:
                counters: set[tuple[str, str]] = set()
                for whole in port_notifications(dev.flavour, port, snap, shape):
                    for n in split(whole, per_message):
                        if t == 0:
                            values += _values_in(n)
                            messages += 1
                            by = sent_by.setdefault(dev.flavour, [0, 0])
                            by[0], by[1] = by[0] + _values_in(n), by[1] + 1
                            counters |= {(s.port, c) for s in decoder.decode(n) for c in s.values}
                        n.timestamp = 0
                        tick.append(n.SerializeToString())
                stored += len(counters)
            d["ticks"].append(tick)
    path.write_bytes(pickle.dumps(devices))
    return {"ports": len(fabric.ports), "devices": len(devices), "values_per_tick": values,
            "messages_per_tick": messages, "stored_per_tick": stored,
            "per_message_by_flavour": {f: u / m for f, (u, m) in sent_by.items()},
            "ports_of": {name: d["ports"] for name, d in devices.items()}}


async def serve(devices: dict[str, Any], interval: float) -> None:
    """One gRPC server per device; each Subscribe gets a sync, then every tick's responses."""
    import grpc

    from fabricwatch.core.grpc_runtime import keep_grpc_aio

    keep_grpc_aio()
    sync = b"\x18\x01"  # SubscribeResponse.sync_response = true
    late = {"ticks": 0, "max_lag_s": 0.0}

    def handler_for(ticks: list[list[bytes]]) -> Any:
        async def subscribe(requests: Any, context: Any) -> Any:
            await anext(aiter(requests), None)
            yield sync
            k = 0
            while True:
                due = (time.time_ns() // int(interval * 1e9) + 1) * int(interval * 1e9)
                await asyncio.sleep(max(0.0, (due - time.time_ns()) / 1e9))
                ts = b"\x08" + _varint(due)
                for body in ticks[k % len(ticks)]:
                    n = ts + body
                    yield b"\x0a" + _varint(len(n)) + n
                k += 1
                lag = (time.time_ns() - due) / 1e9
                if lag > interval:
                    late["ticks"] += 1
                late["max_lag_s"] = max(late["max_lag_s"], lag)

        return grpc.stream_stream_rpc_method_handler(subscribe, request_deserializer=lambda b: b,
                                                     response_serializer=lambda b: b)

    async def answer(request: bytes, context: Any) -> bytes:
        return caps

    caps = b"\x12\x01\x02\x1a\x050.8.0"  # CapabilityResponse: supported_encodings [PROTO], gNMI_version
    capabilities = grpc.unary_unary_rpc_method_handler(answer, request_deserializer=lambda b: b,
                                                       response_serializer=lambda b: b)
    servers, addresses = [], {}
    for name, d in devices.items():
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            "gnmi.gNMI", {"Subscribe": handler_for(d["ticks"]), "Capabilities": capabilities})])
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        servers.append(server)
        addresses[name] = {"address": f"127.0.0.1:{port}", "flavour": d["flavour"]}
    print(json.dumps(addresses), flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    print(json.dumps(late), flush=True)
    for s in servers:
        await s.stop(0)


# -- the sink: a discarding InfluxDB /write endpoint -----------------------------------------------------
class Receiver:
    def __init__(self) -> None:
        self.lines = 0
        self.delays: list[float] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                now = time.time_ns()
                lines = body.split(b"\n")
                sampled = [(now - int(ln.rsplit(b" ", 1)[1])) / 1e9 for ln in lines[::50] if b" " in ln]
                with receiver.lock:
                    receiver.lines += len(lines)
                    receiver.delays += sampled
                self.send_response(204)
                self.end_headers()

            def do_GET(self) -> None:
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self) -> tuple[int, list[float]]:
        with self.lock:
            out = (self.lines, self.delays)
            self.lines, self.delays = 0, []
        return out


# -- the daemon ---------------------------------------------------------------------------------------
def tree_cpu_rss(pid: int) -> tuple[float, float, float]:
    """(user + system CPU seconds, RSS MB, CPU seconds of the children alone) of a process and its
    children."""
    pids = [pid] + [int(x) for x in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                                     text=True).stdout.split()]
    cpu = rss = children = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        own = (int(fields[11]) + int(fields[12])) / tick
        cpu += own
        children += own if p != pid else 0.0
        m = re.search(r"VmRSS:\s+(\d+) kB", status)
        rss += int(m.group(1)) / 1024 if m else 0.0
    return cpu, rss, children


def values_ingested(url: str) -> float:
    text = urllib.request.urlopen(f"{url}/metrics", timeout=10).read().decode()
    return sum(float(m.group(1)) for m in re.finditer(r"^fabricwatch_counter_values_ingested_total\{.*\} (\S+)$",
                                                       text, re.M))


def run_daemon(workers: int, addresses: dict[str, Any], receiver: Receiver, interval: float, seconds: float,
               tmp: Path, loop: str = "uvloop") -> dict[str, float]:
    sections: dict[str, list[dict[str, str]]] = {}
    for name, a in addresses.items():
        sections.setdefault(a["flavour"], []).append({"device": name, "address": a["address"]})
    port = free_port()
    cfg = {"daemon": {"listen": f"127.0.0.1:{port}", "workers": workers, "log_level": "warning",
                      "event_loop": loop},
           "collectors": {"gnmi": [{"name": f"bench-{f}", "flavour": f, "sample_interval": interval,
                                    "optics": False, "targets": t} for f, t in sections.items()]},
           "sinks": {"influxdb": [{"api": "v1", "url": receiver.url, "database": "bench", "flush_interval": 1.0,
                                   "spool": {"dir": str(tmp / f"spool-{workers}")}}]}}
    path = tmp / f"fw-{workers}.toml"
    path.write_text(tomli_w.dumps(cfg))
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "fabricwatch", "run", "-c", str(path)],
                            stdout=subprocess.DEVNULL, stderr=open(tmp / f"daemon-{workers}.log", "wb"))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                targets = json.loads(urllib.request.urlopen(f"{url}/api/targets", timeout=5).read())
                if targets and all(t["up"] for t in targets) and values_ingested(url) > 0:
                    break
            except OSError:
                pass
            time.sleep(0.5)
        time.sleep(2 * interval)  # warm: rates started, caches filled
        v0, (c0, _, w0), t0 = values_ingested(url), tree_cpu_rss(proc.pid), time.monotonic()
        receiver.take()
        time.sleep(seconds)
        v1, (c1, rss, w1), t1 = values_ingested(url), tree_cpu_rss(proc.pid), time.monotonic()
        _, delays = receiver.take()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    delays.sort()
    updates = v1 - v0
    return {"updates_per_s": updates / (t1 - t0), "cpu_per_million": (c1 - c0) / updates * 1e6 if updates else 0.0,
            "cpu_share": (c1 - c0) / (t1 - t0), "p99_delay_s": delays[int(len(delays) * 0.99)] if delays else -1.0,
            "rss_mb": rss, "workers_per_million": (w1 - w0) / updates * 1e6 if updates else 0.0}


async def receive(addresses: dict[str, Any], seconds: float) -> None:
    """gRPC's receive path alone: grpc.aio Subscribe calls to every switch, each response
    deserialized (as the daemon's stub does) and dropped; prints messages and CPU-seconds."""
    import grpc
    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

    from fabricwatch.core.grpc_runtime import keep_grpc_aio

    keep_grpc_aio()
    count = [0]

    async def one(address: str) -> None:
        call = gnmi_pb2_grpc.gNMIStub(grpc.aio.insecure_channel(address)).Subscribe()
        await call.write(gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList()))
        while await call.read() is not grpc.aio.EOF:
            count[0] += 1

    tasks = [asyncio.create_task(one(a["address"])) for a in addresses.values()]
    await asyncio.sleep(3)
    n0, c0 = count[0], time.process_time()
    await asyncio.sleep(seconds)
    print(json.dumps({"messages": count[0] - n0, "cpu_s": time.process_time() - c0}), flush=True)
    for t in tasks:
        t.cancel()


def receive_sync(addresses: dict[str, Any], seconds: float) -> None:
    """gRPC's receive path alone through its sync API, a thread per switch (what pygnmi's client
    does); prints messages and CPU-seconds."""
    import grpc
    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

    count = [0]

    def one(address: str) -> None:
        stub = gnmi_pb2_grpc.gNMIStub(grpc.insecure_channel(address))
        for _ in stub.Subscribe(iter([gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList())])):
            count[0] += 1

    for a in addresses.values():
        threading.Thread(target=one, args=(a["address"],), daemon=True).start()
    time.sleep(3)
    n0, c0 = count[0], time.process_time()
    time.sleep(seconds)
    print(json.dumps({"messages": count[0] - n0, "cpu_s": time.process_time() - c0}), flush=True)
    os._exit(0)  # the streams' threads do not end on their own


def transport_floor(addresses: dict[str, Any], seconds: float, tmp: Path, processes: int = 1,
                    loop: str = "uvloop") -> dict[str, float]:
    """Messages per CPU-second of `receive`, in processes of their own (their CPU is all gRPC's),
    the switches split between `processes` of them as the daemon splits them between workers."""
    from fabricwatch.daemon.worker_pool import worker_of

    shares: list[dict[str, Any]] = [{} for _ in range(processes)]
    for name, a in addresses.items():
        shares[worker_of(name, processes)][name] = a
    procs = []
    for k, share in enumerate(shares):
        path = tmp / f"addresses-{processes}-{k}.json"
        path.write_text(json.dumps(share))
        how = ["--receive-sync", str(path)] if loop == "sync" else ["--receive", str(path), "--event-loop", loop]
        procs.append(subprocess.Popen([sys.executable, __file__, *how, "--seconds", str(seconds)],
                                      stdout=subprocess.PIPE, text=True))
    messages = cpu = 0.0
    for proc in procs:
        out, _ = proc.communicate(timeout=seconds + 120)
        got = json.loads(out.strip().splitlines()[-1])
        messages, cpu = messages + got["messages"], cpu + got["cpu_s"]
    return {"messages_per_cpu_s": messages / cpu if cpu else 0.0, "messages_per_s": messages / seconds}


def _busy(rounds: int) -> float:
    """A fixed amount of the daemon's kind of work (dicts, strings, floats); its CPU-seconds."""
    t0 = time.process_time()
    acc: dict[str, float] = {}
    for i in range(rounds):
        key = f"port{i % 4096}"
        acc[key] = acc.get(key, 0.0) * 0.5 + (i % 97) / 7.0
        if i % 64 == 0:
            ",".join(f"{k}={v:.3f}" for k, v in list(acc.items())[:8])
    return time.process_time() - t0


def machine_sharing(rounds: int = 1_500_000) -> float:
    """CPU-seconds of a fixed job alone over the same job's while another process runs it too
    (1.0: the cores share nothing; below: the VM's cores slow each other, which no daemon can
    avoid). Measured in this run, in processes of its own."""
    here = str(Path(__file__).parent)
    code = f"import sys; sys.path.insert(0, {here!r}); import fabric_scale as f; print(f._busy({rounds}))"
    alone = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    pair = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    together = [float(p.communicate()[0]) for p in pair]
    return alone / (sum(together) / 2)


def limit(path: Path) -> float:
    """Decode every pre-encoded response and read every value into a dict: updates per CPU-second."""
    from gnmi_ingest import limit_run
    from pygnmi.spec.v080 import gnmi_pb2

    devices = pickle.loads(path.read_bytes())
    ticks = []
    for t in range(TICKS):
        tick = []
        for d in devices.values():
            for body in d["ticks"][t]:
                n = gnmi_pb2.Notification.FromString(body)
                from gnmi_ingest import _values_in

                tick.append(("", gnmi_pb2.SubscribeResponse(update=n).SerializeToString(), _values_in(n)))
        ticks.append(tick)
    return max(u / c for u, c in (limit_run(ticks) for _ in range(3)))


def peer(addresses: dict[str, Any], url: str, seconds: float, tmp: Path) -> dict[str, float]:
    """pygnmi + influxdb-client (bench/gnmi_peer.py) on the same switches, in its own process."""
    path = tmp / "peer-addresses.json"
    path.write_text(json.dumps(addresses))
    proc = subprocess.run([sys.executable, str(Path(__file__).parent / "gnmi_peer.py"), str(path), "--url", url,
                           "--seconds", str(seconds)], capture_output=True, text=True, timeout=seconds + 120)
    lines = proc.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"the pygnmi peer printed nothing: {proc.stderr[-2000:]}")
    got = json.loads(lines[-1])
    return {"updates_per_s": got["updates"] / seconds, "cpu_per_million": got["cpu_s"] / got["updates"] * 1e6
            if got["updates"] else float("inf"), "cpu_share": got["cpu_s"] / seconds}


def measure(args: argparse.Namespace, shape: str, tmp: Path, receiver: Receiver, base_too: bool) -> dict[str, Any]:
    """One shape of messages: the limit, gRPC's receive alone, the daemon at 1 and N workers, the peer."""
    load = encode(args.ports, tmp / f"load-{shape}.pickle", shape, args.updates_per_message)
    per_message = load["values_per_tick"] / load["messages_per_tick"]
    label = shape + (f", {args.updates_per_message} updates a message at most" if args.updates_per_message else "")
    offered = load["values_per_tick"] / args.interval
    print(f"\n== shape {label}: {load['ports']:,} ports on {load['devices']} switches, "
          f"{load['values_per_tick']:,} updates in {load['messages_per_tick']:,} messages a tick every "
          f"{args.interval:g} s ({per_message:.1f} updates a message: "
          + ", ".join(f"{f} {m:.1f}" for f, m in load["per_message_by_flavour"].items())
          + f"), storing {load['stored_per_tick']:,} counter values: {offered:,.0f} updates/s offered", flush=True)
    lim = limit(tmp / f"load-{shape}.pickle")
    server = subprocess.Popen(["nice", "-n", "10", sys.executable, __file__, "--serve",
                               str(tmp / f"load-{shape}.pickle"), "--interval", str(args.interval)],
                              stdout=subprocess.PIPE, text=True)
    base: dict[str, float] = {}
    smallest = ""
    try:
        assert server.stdout is not None
        addresses = json.loads(server.stdout.readline())
        short = min(args.seconds, 6.0)
        floor = transport_floor(addresses, short, tmp, loop=args.event_loop)
        # gRPC's split and its sync API depend on messages, not on what is in them: measured once
        floor_split = transport_floor(addresses, short, tmp, args.workers, args.event_loop) if base_too else {}
        floor_sync = transport_floor(addresses, short, tmp, loop="sync") if base_too else {}
        runs = {w: run_daemon(w, addresses, receiver, args.interval, args.seconds, tmp, args.event_loop)
                for w in (1, args.workers)}
        theirs = peer(addresses, receiver.url, args.seconds, tmp)
        if base_too:  # the same daemon watching one switch: what it holds whatever the fabric
            smallest = min(addresses, key=lambda name: load["ports_of"][name])
            base = run_daemon(args.workers, {smallest: addresses[smallest]}, receiver, args.interval, 5.0, tmp,
                              args.event_loop)
    finally:
        server.send_signal(signal.SIGTERM)
        lag = json.loads(server.stdout.readline() or "{}") if server.stdout else {}
        server.wait(30)
    # the daemon counts the counter values it stores; a device sends `sent` updates for each of them
    sent = load["values_per_tick"] / load["stored_per_tick"]
    for r in runs.values():
        r["cpu_per_million_sent"] = r["cpu_per_million"] / sent
        r["workers_per_million_sent"] = r["workers_per_million"] / sent
    floor_updates = floor["messages_per_cpu_s"] * per_message
    print(f"decode-to-dict limit (this process, same messages): {lim:,.0f} updates/cpu-s")
    print(f"gRPC receive alone (grpc.aio, same server, own process): {floor['messages_per_cpu_s']:,.0f} messages/cpu-s"
          f" x {per_message:.1f} updates a message = {floor_updates:,.0f} updates/cpu-s "
          f"({floor_updates / lim:.2f} of the limit: no daemon over grpcio gets further)")
    if floor_sync:
        sync = floor_sync["messages_per_cpu_s"]
        print(f"gRPC receive alone, sync API, a thread per switch (pygnmi's way): {sync:,.0f} messages/cpu-s = "
              f"{sync * per_message:,.0f} updates/cpu-s ({sync / floor['messages_per_cpu_s']:.2f}x grpc.aio's)")
    for w, r in runs.items():
        print(f"workers={w}: {r['updates_per_s'] * sent:>10,.0f} updates/s  {r['cpu_per_million_sent']:6.2f} cpu-s "
              f"per million updates ({r['cpu_per_million']:.2f} per million counter values stored; "
              f"{r['cpu_share']:.2f} cores)  p99 delay {r['p99_delay_s']:.2f} s (to a discarding /write)  "
              f"RSS {r['rss_mb']:.0f} MB" + (f"  (the workers {r['workers_per_million_sent']:.2f} cpu-s per "
                                            f"million updates, the daemon's process "
                                            f"{r['cpu_per_million_sent'] - r['workers_per_million_sent']:.2f})"
                                            if w > 1 else ""))
    print(f"pygnmi + influxdb-client Point (one process, a thread per switch): {theirs['updates_per_s']:>10,.0f} "
          f"updates/s  {theirs['cpu_per_million']:6.2f} cpu-s per million updates ({theirs['cpu_share']:.2f} cores)")
    one, many = runs[1], runs[args.workers]
    peer_ratio = one["cpu_per_million_sent"] / theirs["cpu_per_million"]
    print(f"ours over the peer, CPU per update, one process each: {peer_ratio:.2f} (target <= 0.5)")
    print(f"load generator: {lag.get('ticks', '?')} ticks sent late, longest lag {lag.get('max_lag_s', 0):.2f} s "
          "(late: the daemon, or the cores, could not take the offered load)")
    per_port = load["values_per_tick"] / load["ports"]
    cores = {s: 100_000 * per_port / s * many["cpu_per_million_sent"] / 1e6 for s in (30, 10)}
    print(f"100k ports ({per_port:.0f} updates each) need {cores[30]:.1f} cores at 30 s "
          f"({100_000 * per_port / 30:,.0f} updates/s) and {cores[10]:.1f} at 10 s, at workers={args.workers}'s "
          f"cost per update")
    efficiency = one["cpu_per_million"] / many["cpu_per_million"]
    print(f"end to end over the gRPC receive alone: {1e6 / one['cpu_per_million_sent'] / floor_updates:.2f}")
    if floor_split:
        grpc_split = floor_split["messages_per_cpu_s"] / floor["messages_per_cpu_s"]
        print(f"gRPC receive alone split over {args.workers} processes: {grpc_split:.2f} of one process's per "
              f"message; the daemon's efficiency over that: {efficiency / grpc_split:.2f}")
    out = {"speedup": many["updates_per_s"] / one["updates_per_s"], "efficiency": efficiency,
           "limit_ratio": 1e6 / one["cpu_per_million_sent"] / lim, "peer_ratio": peer_ratio,
           "cores_100k_30s": cores[30], "cores_100k_10s": cores[10],
           "rss_mb_per_10k": many["rss_mb"] / load["ports"] * 10_000}
    if base:
        out["rss_mb_per_further_10k"] = ((many["rss_mb"] - base["rss_mb"])
                                         / (load["ports"] - load["ports_of"][smallest]) * 10_000)
        print(f"RSS at workers={args.workers}: {many['rss_mb']:.0f} MB for {load['ports']:,} ports = "
              f"{out['rss_mb_per_10k']:.0f} MB per 10k ports; of it {base['rss_mb']:.0f} MB is the daemon's "
              f"watching one switch of {load['ports_of'][smallest]} ports (imports, its processes), and each "
              f"further 10k ports add {out['rss_mb_per_further_10k']:.0f} MB")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", type=int, default=2000)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--shape", choices=(*SHAPES, "both"), default="both",
                    help="what a notification carries: as the recordings (recorded), a few counters (small)")
    ap.add_argument("--updates-per-message", type=int, default=0,
                    help="split every notification into messages of at most this many updates (0: as shaped)")
    ap.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--receive", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--receive-sync", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--event-loop", choices=("uvloop", "asyncio"), default="uvloop",
                    help="the daemon's [daemon] event_loop, also used by gRPC's receive alone")
    args = ap.parse_args()
    if args.serve:
        asyncio.run(serve(pickle.loads(args.serve.read_bytes()), args.interval))
        return 0
    if args.receive_sync:
        receive_sync(json.loads(args.receive_sync.read_text()), args.seconds)
        return 0
    if args.receive:
        from fabricwatch.core import event_loop

        event_loop.run(receive(json.loads(args.receive.read_text()), args.seconds), loop=args.event_loop)
        return 0
    shapes = ["small", "recorded"] if args.shape == "both" else [args.shape]
    print(f"event loop: {args.event_loop}; {args.seconds:g} s a run")
    results = {}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        sharing = machine_sharing()
        receiver = Receiver()
        for k, shape in enumerate(shapes):
            results[shape] = measure(args, shape, tmp, receiver, base_too=k == len(shapes) - 1)
    print(f"\nthis machine: a job run beside another takes {1 / sharing:.2f}x the CPU-seconds it takes alone "
          f"(the efficiency any daemon loses to the cores themselves)")
    for shape, r in results.items():
        print(f"shape={shape}: speedup={r['speedup']:.2f} efficiency={r['efficiency']:.2f} "
              f"limit_ratio={r['limit_ratio']:.2f} peer_ratio={r['peer_ratio']:.2f} "
              f"cores_100k_30s={r['cores_100k_30s']:.1f} cores_100k_10s={r['cores_100k_10s']:.1f}")
    print(f"targets: {TARGETS}")
    last = results[shapes[-1]]
    print(f"speedup={last['speedup']:.2f} efficiency={last['efficiency']:.2f} limit_ratio={last['limit_ratio']:.2f} "
          f"peer_ratio={last['peer_ratio']:.2f} rss_mb_per_further_10k={last['rss_mb_per_further_10k']:.0f} "
          f"cores_100k_30s={last['cores_100k_30s']:.1f} cores_100k_10s={last['cores_100k_10s']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
