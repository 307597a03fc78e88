"""The peer of bench/fabric_scale.py: what a user gluing pygnmi's client to influxdb-client writes.

Each switch gets a pygnmi `gNMIclient` and a STREAM subscription (`subscribe2`), read in a thread of its
own; every response (pygnmi's dict) becomes one influxdb-client `Point` per notification — the
measurement the prefix without keys, the keys as tags, the leaves as fields — written as line protocol
with a SYNCHRONOUS write API in batches. Its own process: prints updates and CPU-seconds.

    python bench/gnmi_peer.py ADDRESSES.json --url http://127.0.0.1:PORT --seconds 20
"""

from __future__ import annotations

import argparse
import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

from influxdb_client import InfluxDBClient, Point, WritePrecision
from influxdb_client.client.write_api import SYNCHRONOUS
from pygnmi.client import gNMIclient

from fabricwatch.collectors.gnmi.mapping import load_table

KEY = re.compile(r"\[([^=\]]+)=([^\]]*)\]")
BATCH = 5000


def _number(value: Any) -> Any:
    """SONiC sends numbers as strings: a user stores them as numbers."""
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def points(device: str, response: dict[str, Any]) -> tuple[list[Point], int]:
    """A response's points and how many updates it carried (a JSON object counts its leaves)."""
    upd = response.get("update")
    if not upd or not upd.get("update"):
        return [], 0
    prefix = upd.get("prefix", "")
    measurement = KEY.sub("", prefix) or "gnmi"
    ts = upd.get("timestamp", 0)
    point = Point(measurement).tag("device", device).time(ts, WritePrecision.NS)
    for k, v in KEY.findall(prefix):
        point.tag(k, v)
    out, count = [], 0
    for u in upd["update"]:
        path, val = u.get("path") or "value", u.get("val")
        if not isinstance(val, dict):
            point.field(path, _number(val))
            count += 1
            if not out or out[0] is not point:
                out.insert(0, point)
            continue
        # a JSON object (SONiC): one point per object, its key a tag
        rows = val.items() if all(isinstance(x, dict) for x in val.values()) else [(path, val)]
        for key, fields in rows:
            p = Point(measurement).tag("device", device).tag("key", key).time(ts, WritePrecision.NS)
            for name, x in fields.items():
                p.field(name, _number(x))
                count += 1
            if fields:
                out.append(p)
    return out, count


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("addresses", type=Path)
    ap.add_argument("--url", required=True)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--warm", type=float, default=4.0)
    args = ap.parse_args()
    addresses: dict[str, dict[str, str]] = json.loads(args.addresses.read_text())
    client = InfluxDBClient(url=args.url, token="bench", org="bench")
    write = client.write_api(write_options=SYNCHRONOUS)
    counts = {"updates": 0, "lines": 0}
    lock = threading.Lock()

    def follow(device: str, address: str, flavour: str) -> None:
        host, port = address.rsplit(":", 1)
        gc = gNMIclient(target=(host, int(port)), insecure=True)
        gc.connect()
        table = load_table(flavour)
        paths = [{"path": p, "mode": "sample", "sample_interval": 2_000_000_000} for p in table.subscribe_sample]
        pending: list[Point] = []
        for response in gc.subscribe2(subscribe={"subscription": paths, "mode": "stream", "encoding": "proto"}):
            got, n = points(device, response)
            pending += got
            with lock:
                counts["updates"] += n
            if len(pending) >= BATCH:
                write.write(bucket="bench", org="bench", record=pending)
                with lock:
                    counts["lines"] += len(pending)
                pending = []

    for device, a in addresses.items():
        threading.Thread(target=follow, args=(device, a["address"], a["flavour"]), daemon=True).start()
    time.sleep(args.warm)
    with lock:
        u0, l0 = counts["updates"], counts["lines"]
    c0 = time.process_time()
    time.sleep(args.seconds)
    with lock:
        u1, l1 = counts["updates"], counts["lines"]
    cpu = time.process_time() - c0
    print(json.dumps({"updates": u1 - u0, "lines": l1 - l0, "cpu_s": cpu}), flush=True)
    os._exit(0)  # pygnmi's stream threads do not end on their own


if __name__ == "__main__":
    raise SystemExit(main())
