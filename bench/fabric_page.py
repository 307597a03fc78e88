"""One refresh of the fabric page at 10k ports: CPU time and bytes of `/api/fabric`.

Builds a daemon's state as it is after a while on a 10k-port fabric (latest rates of every port,
topology tags, a few findings), then times `fabric_document` plus its JSON encoding, the work of
one refresh of the page, against the limits (50 ms of CPU and 1 MB per refresh). Prints the ratios.

    python bench/fabric_page.py [--ports 10000]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fabricwatch.daemon.config import parse
from fabricwatch.daemon.fabric_view import fabric_document, link_document
from fabricwatch.daemon.runner import Runner
from fabricwatch.detection.detector import Finding
from fabricwatch.pipeline.pipeline import PortRateView

CPU_LIMIT_S = 0.050
BYTES_LIMIT = 1_000_000
HISTORY_LIMIT_B = 2048  # per port for the hour the link page plots (100k ports: 200 MB at most)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", type=int, default=10_000)
    args = ap.parse_args()
    runner = Runner(parse({"daemon": {"listen": "127.0.0.1:0"}, "sinks": {"influxdb": [
        {"database": "x", "spool": {"dir": "/tmp/fabricwatch-bench-page-spool"}}]}}, "<bench>"))
    per_leaf = 64
    for i in range(args.ports):
        leaf, port = divmod(i, per_leaf)
        role = "leaf_up" if port >= 48 else "leaf_down"
        tags = {"fabric": "roce", "role": role, "rail": str(leaf % 8), "speed": "400G",
                "peer_device": f"spine-{port % 16}" if role == "leaf_up" else f"gpu{leaf:03d}",
                "peer_port": f"Ethernet{leaf}" if role == "leaf_up" else f"mlx5_{leaf % 8}"}
        rates = {"in_octets": 2.1e10 + i, "out_octets": 2.0e10, "in_pkts": 5e6, "out_pkts": 5e6,
                 "pfc_rx_p3": float(i % 97), "pfc_tx_p3": float(i % 89), "ecn_marked": 1200.0 + i % 50,
                 "fcs_errors": 0.0, "in_discards": 0.0, "out_discards": 0.0}
        runner.pipeline.latest[(f"leaf-{leaf:03d}", f"Ethernet{port}")] = PortRateView(0, tags, rates)
    assert runner.detector is not None
    for i in range(20):  # a bad day: twenty findings
        f = Finding(0, f"leaf-{i:03d}", "Ethernet3", "roce/leaf_down/400G", 2.5, 1.0, True, "critical", "model",
                    "pfc_rx 5.2e+04/s, 800x its class median (65/s); healthy links of its class at 62% load "
                    "stay under 2.1e+03/s", [], ["anomaly"], peer=(f"gpu{i:03d}", "mlx5_0"))
        runner.detector.active[(f.device, f.port)] = f
    best = float("inf")
    size = 0
    for _ in range(5):
        t0 = time.process_time()
        doc = fabric_document(site=runner.config.daemon.site, findings=runner.detector, links=runner.pipeline,
                              targets=runner.targets, storage=runner.http.storage)
        body = json.dumps(doc, separators=(",", ":"))
        best = min(best, time.process_time() - t0)
        size = len(body.encode())
    print(f"{args.ports:,} ports: one /api/fabric refresh {best * 1000:.1f} ms CPU "
          f"(ratio {best / CPU_LIMIT_S:.2f} of the {CPU_LIMIT_S * 1000:.0f} ms limit), {size:,} bytes "
          f"(ratio {size / BYTES_LIMIT:.2f} of 1 MB)")
    # the link page: an hour of history for every port (the daemon's default ring), one link opened
    history = runner.pipeline.history
    assert history is not None
    gc.collect()
    tracemalloc.start()
    for step in range(history.slots):
        ts = step * history.step_ns
        for key, view in runner.pipeline.latest.items():
            history.add(key, ts, view.rates)
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    now = (history.slots - 1) * history.step_ns
    link = ("leaf-003", "Ethernet3")
    link_best, link_size = float("inf"), 0
    for _ in range(20):
        t0 = time.process_time()
        doc = link_document(runner.pipeline, runner.detector, *link) or {}
        body = json.dumps({**doc, "_": history.of(link, now)}, separators=(",", ":"))
        link_best = min(link_best, time.process_time() - t0)
        link_size = len(body.encode())
    per_port = held / len(history)
    print(f"link history: {held / 2**20:.1f} MiB for {len(history):,} ports x {history.slots} steps "
          f"({per_port:.0f} B per port, ratio {per_port / HISTORY_LIMIT_B:.2f} of {HISTORY_LIMIT_B} B); "
          f"one /api/link {link_best * 1000:.2f} ms CPU, {link_size:,} bytes")
    ok = best <= CPU_LIMIT_S and size <= BYTES_LIMIT and per_port <= HISTORY_LIMIT_B
    print("PASS" if ok else "OVER THE LIMIT")
    return 0


if __name__ == "__main__":
    sys.exit(main())
