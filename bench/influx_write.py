"""Points/s through the InfluxDB sink (spool on: every batch goes through the durable spool before
it is sent) against curl POSTing the same line protocol in the same batch sizes to the same InfluxDB
in the same run (one curl process, one kept-alive connection: the server's own cost plus the wire).
Each side writes into its own database, twice, alternating; the best of each counts.

    python bench/influx_write.py [--points 400000] [--batch 5000]

Last line: `ratio=<sink points/s / curl points/s> target=0.8` (scripts read it).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricwatch.sinks.influxdb.config import InfluxConfig  # noqa: E402
from fabricwatch.sinks.influxdb.sink import InfluxSink  # noqa: E402
from tests.servers import InfluxDB1  # noqa: E402

TARGET = 0.8
START_NS = 1_790_000_000 * 1_000_000_000


def lines(n: int, ports: int = 2000) -> list[str]:
    """`port_counters` as the daemon writes them: tags of a port, a dozen integer counters."""
    rnd = random.Random(3)
    out = []
    for i in range(n):
        p, step = i % ports, i // ports
        tags = f"device=leaf-{p // 64:03d},fabric=roce,port=Ethernet{p % 64},rail={p // 64 % 8},role=leaf_down"
        fields = ",".join(f"{name}={rnd.randrange(1 << 40)}i" for name in (
            "in_octets", "out_octets", "in_pkts", "out_pkts", "in_discards", "out_discards", "fcs_errors",
            "pfc_rx_p3", "pfc_tx_p3", "ecn_marked", "symbol_errors", "link_downed"))
        out.append(f"port_counters,{tags} {fields} {START_NS + step * 10_000_000_000}")
    return out


def with_curl(url: str, db: str, batches: list[Path]) -> float:
    args = ["curl", "-s", "-f", "-o", "/dev/null"]
    for i, b in enumerate(batches):
        if i:
            args.append("--next")
        args += ["-s", "-f", "-o", "/dev/null", "--data-binary", f"@{b}", f"{url}/write?db={db}&precision=ns"]
    t0 = time.perf_counter()
    subprocess.run(args, check=True, timeout=600)
    return time.perf_counter() - t0


async def with_sink(url: str, db: str, data: list[str], batch: int, spool: Path) -> float:
    sink = InfluxSink(InfluxConfig(url=url, database=db, batch_size=batch, flush_interval=0.2,
                                   spool={"dir": str(spool)}))
    await sink.start()
    t0 = time.perf_counter()
    for i in range(0, len(data), 1000):  # as the pipeline hands them over: a poll's worth at a time
        await sink.write(data[i:i + 1000])
    sink.flush()
    while sink.stats.points_written < len(data):
        await asyncio.sleep(0.005)
    elapsed = time.perf_counter() - t0
    await sink.close()
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=400_000)
    ap.add_argument("--batch", type=int, default=5000)
    args = ap.parse_args()
    data = lines(args.points)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = []
        for i in range(0, len(data), args.batch):
            f = root / f"batch-{i // args.batch:05d}.lp"
            f.write_text("\n".join(data[i:i + args.batch]))
            files.append(f)
        influx = InfluxDB1(root / "influx")
        influx.start()
        try:
            curl_s, sink_s = [], []
            for rnd in range(2):
                for who in ("curl", "sink"):
                    db = f"{who}{rnd}"
                    influx.create_db(db)
                    if who == "curl":
                        curl_s.append(with_curl(influx.url, db, files))
                    else:
                        sink_s.append(asyncio.run(with_sink(influx.url, db, data, args.batch, root / f"spool{rnd}")))
            stored = influx.query('SELECT count("in_octets") FROM "port_counters"', "sink1")
            count = stored["results"][0]["series"][0]["values"][0][1]
        finally:
            influx.stop()
    assert count == args.points, f"the sink stored {count} of {args.points} points"
    curl_rate, sink_rate = args.points / min(curl_s), args.points / min(sink_s)
    print(f"{args.points:,} points in batches of {args.batch:,} (spool on)")
    print(f"curl  {curl_rate:>10,.0f} points/s   (best of {', '.join(f'{t:.2f}' for t in curl_s)} s)")
    print(f"sink  {sink_rate:>10,.0f} points/s   (best of {', '.join(f'{t:.2f}' for t in sink_s)} s)")
    ratio = sink_rate / curl_rate
    print(f"ratio={ratio:.2f} target={TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
