"""Post-mortem queries over a window of a big fabric: `query top pauses` and `query findings` end to
end (InfluxQL, decoding, combining, ranking or grouping into incidents), against the same InfluxQL
sent by curl in the same run (the server's own cost plus transfer: the floor). Prints wall time,
ratio (target <= 1.5) and this process's peak RSS.

    python bench/postmortem_query.py [--ports 2000] [--hours 4]

InfluxDB 1.x is started on 127.0.0.1 with a temp dir and filled with `port_rates` every 30 s and a
detector's `link_anomaly` points (1 % of links flagged now and then).
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricwatch.core.influxql import InfluxQL  # noqa: E402
from fabricwatch.postmortem import queries  # noqa: E402
from fabricwatch.postmortem.influx import InfluxHistory  # noqa: E402
from fabricwatch.postmortem.store import Store, Window  # noqa: E402
from tests.servers import InfluxDB1  # noqa: E402

STEP_S = 30
START_NS = 1_790_000_000 * 1_000_000_000
TARGET = 1.5


def fill(url: str, ports: int, hours: float) -> int:
    rnd = random.Random(5)
    steps = int(hours * 3600 / STEP_S)
    written = 0
    tags = [f"device=leaf-{p // 64:03d},fabric=roce,peer_device=gpu{p:05d},peer_port=mlx5_0,port=Ethernet{p % 64},"
            f"rail={p // 64 % 8},role=leaf_down" for p in range(ports)]
    flagged = set(rnd.sample(range(ports), max(1, ports // 100)))
    batch: list[str] = []

    def flush() -> None:
        nonlocal batch
        body = "\n".join(batch).encode()
        req = urllib.request.Request(f"{url}/write?db=pm&precision=ns", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=120):
            pass
        batch = []

    for s in range(steps):
        ts = START_NS + s * STEP_S * 1_000_000_000
        for p in range(ports):
            storm = p in flagged and (s // 20) % 3 == 0
            pfc = 30000.0 if storm else rnd.random() * 50
            batch.append(f"port_rates,{tags[p]} in_octets={rnd.random() * 2e10},out_octets={rnd.random() * 2e10},"
                         f"pfc_rx_p3={rnd.random() * 50},pfc_tx_p3={pfc},ecn_marked={rnd.random() * 100},"
                         f"fcs_errors=0,in_discards=0 {ts}")
            if storm:
                batch.append(f"link_anomaly,{tags[p]},severity=critical,source=rule,condition=pause_storm,level=link "
                             f'score=2.5,flagged=true,explanation="PFC pause storm" {ts}')
            written += 1
            if len(batch) >= 20_000:
                flush()
    if batch:
        flush()
    return written


def curl(url: str, q: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(["curl", "-s", "-o", "/dev/null", "-G", f"{url}/query", "--data-urlencode", "db=pm",
                    "--data-urlencode", "epoch=ns", "--data-urlencode", f"q={q}"], check=True, timeout=600)
    return time.perf_counter() - t0


def best(fn, n: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", type=int, default=2000)
    ap.add_argument("--hours", type=float, default=4)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        influx = InfluxDB1(Path(tmp) / "influx")
        influx.start()
        try:
            influx.create_db("pm")
            t0 = time.perf_counter()
            points = fill(influx.url, args.ports, args.hours)
            print(f"{points:,} port_rates points ({args.ports:,} ports x {args.hours:g} h at {STEP_S} s) "
                  f"written in {time.perf_counter() - t0:.0f} s")
            store = InfluxHistory(Store(InfluxQL(influx.url, "pm", timeout=600)))
            window = Window(START_NS, START_NS + int(args.hours * 3600e9))
            fields = store.rate_fields()
            names = queries.fields_for("pauses", fields)
            cols = ", ".join(f'mean("{f}") AS "mean_{f}", max("{f}") AS "max_{f}"' for f in names)
            top_q = f'SELECT {cols} FROM "port_rates" WHERE {window.where} GROUP BY *'
            find_q = (f'SELECT "explanation", "score", "ports", "severity" FROM "link_anomaly" '
                      f'WHERE {window.where} AND "flagged" = true GROUP BY *')
            rows = []
            cases = (("query top pauses", lambda: queries.top(store, window, "pauses", fields=fields), top_q),
                     ("query findings", lambda: queries.findings(store, window), find_q))
            for name, ours, q in cases:
                t_ours = best(ours)
                t_curl = min(curl(influx.url, q) for _ in range(3))
                rows.append((name, t_ours, t_curl))
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            found = queries.findings(store, window)
            top = queries.top(store, window, "pauses", fields=fields)[""][0]
        finally:
            influx.stop()
    ok = True
    for name, t_ours, t_curl in rows:
        ratio = t_ours / t_curl
        ok &= ratio <= TARGET
        print(f"{name:18s} ours {t_ours:7.2f} s   curl {t_curl:7.2f} s   ratio {ratio:.2f} (target <= {TARGET})")
    print(f"{len(found)} incidents; worst pauses {top.device} {top.port} mean {top.mean:,.0f}/s; "
          f"peak RSS of this process {rss:.0f} MB")
    print("PASS" if ok else "OVER THE TARGET")
    return 0


if __name__ == "__main__":
    sys.exit(main())
