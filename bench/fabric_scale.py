"""The daemon at fabric scale, over real gRPC: CPU per million counter updates end to end, updates/s,
p99 delay from a sample's device timestamp to its write, and RSS per 10k ports, with the targets run
in the daemon's process (workers = 1) and in worker processes (workers = N); and the decode-to-dict
limit on the same messages in the same run.

    python bench/fabric_scale.py [--ports 4000] [--interval 2] [--workers 2] [--seconds 30]

The load: a replay server in its own process (niced, so that it yields the cores) serves every
simulated switch on its own gRPC port, sending pre-encoded SubscribeResponses (the simulator's
notifications of a few ticks, encoded once; only the timestamp is written per send), so it costs
little CPU. The daemon writes to a discarding InfluxDB /write endpoint in this process, which reads
the timestamps of 1 line in 50 to measure the delay (printed as such: no real InfluxDB, whose own
cost would share the cores). Only the daemon's processes are counted (/proc CPU of the daemon and
its workers over the measured window); counter updates are the daemon's own count
(fabricwatch_counter_values_ingested_total). The daemon runs with its defaults otherwise (the last
hour of every link kept in memory for the link page included).

Last line: `speedup=... efficiency=... limit_ratio=... rss_mb_per_10k=... rss_mb_per_further_10k=...`
(scripts read it): the RSS at the measured scale per 10k ports, and what 10k ports add beyond a
daemon watching one switch.
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

from tests.servers import free_port  # noqa: E402

TARGETS = {"limit_ratio": 0.4, "efficiency": 0.9, "speedup": 1.8, "rss_mb_per_10k": 300.0}
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


def encode(ports: int, path: Path) -> dict[str, Any]:
    """Every device's notifications for TICKS ticks, serialized without their timestamp."""
    from gnmi_ingest import _values_in, fabric_for

    from fabricwatch.simulator.flavours import port_notifications

    fabric = fabric_for(ports, FLAVOURS)
    devices: dict[str, dict[str, Any]] = {}
    values = messages = 0
    for t in range(TICKS):
        snap = fabric.snapshot(fabric.start_ns + (t + 1) * 10_000_000_000)
        for dev in fabric.topology.devices.values():
            d = devices.setdefault(dev.name, {"flavour": dev.flavour, "ticks": [], "ports": len(dev.ports)})
            tick = []
            for port in dev.ports:
                for n in port_notifications(dev.flavour, port, snap):
                    if t == 0:
                        values += _values_in(n)
                        messages += 1
                    n.timestamp = 0
                    tick.append(n.SerializeToString())
            d["ticks"].append(tick)
    path.write_bytes(pickle.dumps(devices))
    return {"ports": len(fabric.ports), "devices": len(devices), "values_per_tick": values,
            "messages_per_tick": messages, "ports_of": {name: d["ports"] for name, d in devices.items()}}


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

    servers, addresses = [], {}
    for name, d in devices.items():
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            "gnmi.gNMI", {"Subscribe": handler_for(d["ticks"])})])
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
        procs.append(subprocess.Popen([sys.executable, __file__, "--receive", str(path), "--seconds", str(seconds),
                                       "--event-loop", loop],
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


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", type=int, default=4000)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--receive", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--event-loop", choices=("uvloop", "asyncio"), default="uvloop",
                    help="the daemon's [daemon] event_loop, also used by gRPC's receive alone")
    args = ap.parse_args()
    if args.serve:
        asyncio.run(serve(pickle.loads(args.serve.read_bytes()), args.interval))
        return 0
    if args.receive:
        from fabricwatch.core import event_loop

        event_loop.run(receive(json.loads(args.receive.read_text()), args.seconds), loop=args.event_loop)
        return 0
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        load = encode(args.ports, tmp / "load.pickle")
        offered = load["values_per_tick"] / args.interval
        print(f"{load['ports']:,} ports on {load['devices']} switches, {load['values_per_tick']:,} counter updates "
              f"a tick every {args.interval:g} s: {offered:,.0f} updates/s offered")
        lim = limit(tmp / "load.pickle")
        sharing = machine_sharing()
        server = subprocess.Popen(["nice", "-n", "10", sys.executable, __file__, "--serve", str(tmp / "load.pickle"),
                                   "--interval", str(args.interval)], stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            addresses = json.loads(server.stdout.readline())
            receiver = Receiver()
            floor = transport_floor(addresses, min(args.seconds, 15.0), tmp, loop=args.event_loop)
            floor_split = transport_floor(addresses, min(args.seconds, 15.0), tmp, args.workers, args.event_loop)
            runs = {w: run_daemon(w, addresses, receiver, args.interval, args.seconds, tmp, args.event_loop)
                    for w in (1, args.workers)}
            # the same daemon watching one switch: what it holds whatever the fabric (imports, workers)
            smallest = min(addresses, key=lambda name: load["ports_of"][name])
            base = run_daemon(args.workers, {smallest: addresses[smallest]}, receiver, args.interval, 5.0, tmp,
                              args.event_loop)
        finally:
            server.send_signal(signal.SIGTERM)
            lag = json.loads(server.stdout.readline() or "{}") if server.stdout else {}
            server.wait(30)
    per_message = load["values_per_tick"] / load["messages_per_tick"]
    floor_updates = floor["messages_per_cpu_s"] * per_message
    print(f"decode-to-dict limit (this process, same messages): {lim:,.0f} updates/cpu-s")
    print(f"event loop: {args.event_loop}")
    print(f"gRPC receive alone (grpc.aio, same server, own process): {floor['messages_per_cpu_s']:,.0f} messages/cpu-s"
          f" x {per_message:.1f} updates a message = {floor_updates:,.0f} updates/cpu-s "
          f"({floor_updates / lim:.2f} of the limit: no daemon over grpcio gets further)")
    for w, r in runs.items():
        print(f"workers={w}: {r['updates_per_s']:>10,.0f} updates/s  {r['cpu_per_million']:6.2f} cpu-s per million "
              f"({r['cpu_share']:.2f} cores)  p99 delay {r['p99_delay_s']:.2f} s (to a discarding /write)  "
              f"RSS {r['rss_mb']:.0f} MB" + (f"  (the workers {r['workers_per_million']:.2f} cpu-s per million of "
                                            f"it, the daemon's process "
                                            f"{r['cpu_per_million'] - r['workers_per_million']:.2f})" if w > 1 else ""))
    print(f"load generator: {lag.get('ticks', '?')} ticks sent late, longest lag {lag.get('max_lag_s', 0):.2f} s "
          "(late: the daemon, or the cores, could not take the offered load)")
    one, many = runs[1], runs[args.workers]
    speedup = many["updates_per_s"] / one["updates_per_s"]
    efficiency = one["cpu_per_million"] / many["cpu_per_million"]
    limit_ratio = 1e6 / one["cpu_per_million"] / lim
    rss_per_10k = many["rss_mb"] / load["ports"] * 10_000
    cores_100k = 100_000 * (load["values_per_tick"] / load["ports"]) / 30 * many["cpu_per_million"] / 1e6
    print(f"100k ports at 30 s ({100_000 * load['values_per_tick'] / load['ports'] / 30:,.0f} updates/s) need "
          f"{cores_100k:.1f} cores at workers={args.workers}'s cost per update")
    print(f"end to end over the gRPC receive alone: {1e6 / one['cpu_per_million'] / floor_updates:.2f}")
    grpc_split = floor_split["messages_per_cpu_s"] / floor["messages_per_cpu_s"]
    print(f"gRPC receive alone, the switches split over {args.workers} processes as between workers: "
          f"{floor_split['messages_per_cpu_s']:,.0f} messages/cpu-s = {grpc_split:.2f} of one process's "
          f"(gRPC's own efficiency when split); the daemon's over that: {efficiency / grpc_split:.2f}")
    print(f"this machine: a job run beside another takes {1 / sharing:.2f}x the CPU-seconds it takes alone; "
          f"efficiency over that: {efficiency / sharing:.2f} (the share of the loss that is the daemon's)")
    further = (many["rss_mb"] - base["rss_mb"]) / (load["ports"] - load["ports_of"][smallest]) * 10_000
    print(f"RSS at workers={args.workers}: {many['rss_mb']:.0f} MB for {load['ports']:,} ports = "
          f"{rss_per_10k:.0f} MB per 10k ports; of it {base['rss_mb']:.0f} MB is the daemon's watching one "
          f"switch of {load['ports_of'][smallest]} ports (imports, its processes), and each further 10k ports "
          f"add {further:.0f} MB")
    print(f"targets: {TARGETS}")
    print(f"speedup={speedup:.2f} efficiency={efficiency:.2f} limit_ratio={limit_ratio:.2f} "
          f"rss_mb_per_10k={rss_per_10k:.0f} rss_mb_per_further_10k={further:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
