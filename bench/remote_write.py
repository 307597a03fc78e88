"""Samples/s through the Prometheus remote-write sink (spool on: every batch goes through the durable spool
before it is sent) against a plain remote-write client posting the same samples, in the same batch sizes, to
the same real Prometheus in the same run.

The plain client is what a script that writes remote write by hand does: each sample's series built as a
protobuf TimeSeries (its labels, its sample) from the same run-time descriptor, the request snappy-compressed
with cramjam and posted over one kept-alive connection, one request at a time; its encoding is counted, as
the sink's is. The sink takes port_rates lines as the pipeline hands them over (a poll's worth at a time) and
does everything it does in the daemon: filter, spool, read back, encode, post. Each side writes its own
series (another device prefix), twice, alternating; the best of each counts. For scale, the same bodies
posted pre-encoded (Prometheus' own cost plus the wire) are timed too.

    python bench/remote_write.py [--ports 2000] [--steps 4] [--batch 500]

Last line: `ratio=<sink samples/s / plain client samples/s> target=0.8` (scripts read it).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import cramjam

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricwatch.core.lineprotocol import parse_line  # noqa: E402
from fabricwatch.sinks.prometheus_remote_write.config import RemoteWriteConfig  # noqa: E402
from fabricwatch.sinks.prometheus_remote_write.encode import TOPOLOGY_LABELS, metric_name  # noqa: E402
from fabricwatch.sinks.prometheus_remote_write.proto import WriteRequest  # noqa: E402
from fabricwatch.sinks.prometheus_remote_write.sink import RemoteWriteSink  # noqa: E402
from fabricwatch.sinks.prometheus_remote_write.writer import HEADERS  # noqa: E402
from tests.servers import PrometheusReceiver  # noqa: E402

TARGET = 0.8
COUNTERS = ("in_octets", "out_octets", "in_pkts", "out_pkts", "in_errors", "out_errors", "in_discards",
            "out_discards", "fcs_errors", "ecn_marked", "cnp_sent", "cnp_handled",
            *(f"pfc_{d}_p{p}" for d in ("rx", "tx") for p in (0, 3, 4, 5, 6)))
PREFIX = "fabricwatch_port_"
Sample = tuple[dict[str, str], float, int]  # labels, value, ms


def rate_lines(who: str, ports: int, steps: range, start_s: int) -> list[str]:
    """port_rates as the pipeline writes them: a port's topology tags, its counters' rates, a saturated flag."""
    rnd = random.Random(7)
    out = []
    for step in steps:
        ts = (start_s + step * 10) * 1_000_000_000
        for p in range(ports):
            tags = (f"device={who}-leaf-{p // 64:03d},port=Ethernet{p % 64},fabric=roce,role=leaf_down,"
                    f"rail={p // 64 % 8},peer_device={who}-gpu{p:04d},peer_port=eth{p % 8},speed=400G")
            fields = ",".join(f"{c}={rnd.random() * 1e9:.3f}" for c in COUNTERS)
            out.append(f"port_rates,{tags} {fields},symbol_errors_saturated=false {ts}")
    return out


def samples_of(lines: list[str]) -> list[Sample]:
    """The samples the sink sends for these lines: (labels, value, ms), for the plain client."""
    out = []
    for line in lines:
        _, tags, fields, ts = parse_line(line)
        base = {k: tags[k] for k in TOPOLOGY_LABELS if k in tags}
        for c in COUNTERS:
            value = fields[c]
            assert isinstance(value, float)
            out.append(({"__name__": metric_name(PREFIX, c), **base}, value, (ts or 0) // 1_000_000))
    return out


def plain_body(samples: list[Sample]) -> bytes:
    req = WriteRequest()
    for labels, value, ms in samples:
        ts = req.timeseries.add()
        for name in sorted(labels):
            ts.labels.add(name=name, value=labels[name])
        ts.samples.add(value=value, timestamp=ms)
    return bytes(cramjam.snappy.compress_raw(req.SerializeToString()))


async def post_all(url: str, bodies: list[bytes] | None, batches: list[list[Sample]]) -> float:
    """The plain client (bodies None: it encodes each batch) or the pre-encoded bodies, one request at a time."""
    async with aiohttp.ClientSession(headers=HEADERS) as session:
        t0 = time.perf_counter()
        for i, batch in enumerate(batches):
            body = plain_body(batch) if bodies is None else bodies[i]
            async with session.post(url, data=body) as resp:
                if resp.status // 100 != 2:
                    raise RuntimeError(f"plain client: {resp.status} {await resp.text()}")
        return time.perf_counter() - t0


async def with_sink(url: str, lines: list[str], batch: int, spool: Path) -> float:
    sink = RemoteWriteSink(RemoteWriteConfig(url=url, batch_size=batch, flush_interval=0.2, spool={"dir": spool}))
    await sink.start()
    t0 = time.perf_counter()
    for i in range(0, len(lines), 1000):  # as the pipeline hands them over: a poll's worth at a time
        await sink.write(lines[i:i + 1000])
        await asyncio.sleep(0)
    sink.flush()
    while sink.stats.points_written + sink.stats.points_rejected < len(lines):
        await asyncio.sleep(0.002)
    elapsed = time.perf_counter() - t0
    await sink.close()
    if sink.stats.points_rejected:
        raise RuntimeError(f"the sink had points rejected: {sink.stats.rejected_reasons} {sink.stats.last_error}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", type=int, default=2000)
    ap.add_argument("--steps", type=int, default=4, help="intervals of every port a round")
    ap.add_argument("--batch", type=int, default=500, help="port_rates lines a request")
    args = ap.parse_args()
    start_s = int(time.time()) - 1800  # within the head's hour
    per_round = args.ports * args.steps * len(COUNTERS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        prom = PrometheusReceiver(root / "prometheus")
        prom.start()
        try:
            sink_s: list[float] = []
            plain_s: list[float] = []
            raw_s: list[float] = []
            for rnd in range(2):
                steps = range(rnd * args.steps, (rnd + 1) * args.steps)
                for who in (("sink", "plain", "raw") if rnd == 0 else ("raw", "plain", "sink")):
                    lines = rate_lines(who, args.ports, steps, start_s)
                    if who == "sink":
                        sink_s.append(asyncio.run(with_sink(prom.write_url, lines, args.batch, root / f"spool{rnd}")))
                        continue
                    samples = samples_of(lines)
                    n = args.batch * len(COUNTERS)
                    batches = [samples[i:i + n] for i in range(0, len(samples), n)]
                    bodies = [plain_body(b) for b in batches] if who == "raw" else None
                    (raw_s if who == "raw" else plain_s).append(asyncio.run(post_all(prom.write_url, bodies, batches)))
            stored = prom.query(f'count({{__name__="{metric_name(PREFIX, "in_octets")}", device=~"sink-.*"}})',
                                at=start_s + (2 * args.steps - 1) * 10)
        finally:
            prom.stop()
    count = int(float(stored[0]["value"][1])) if stored else 0
    assert count == args.ports, f"the sink's last interval has {count} of {args.ports} ports"
    sink_rate, plain_rate, raw_rate = per_round / min(sink_s), per_round / min(plain_s), per_round / min(raw_s)
    print(f"{per_round:,} samples a round ({args.ports:,} ports x {args.steps} intervals x {len(COUNTERS)} counters), "
          f"{args.batch} lines ({args.batch * len(COUNTERS):,} samples) a request, spool on")
    for name, rate, times in (("pre-encoded", raw_rate, raw_s), ("plain client", plain_rate, plain_s),
                              ("sink", sink_rate, sink_s)):
        print(f"{name:<13}{rate:>10,.0f} samples/s   (best of {', '.join(f'{t:.2f}' for t in times)} s)")
    print(f"sink / pre-encoded bodies (Prometheus and the wire alone): {sink_rate / raw_rate:.2f}")
    print(f"ratio={sink_rate / plain_rate:.2f} target={TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
