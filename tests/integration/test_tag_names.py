"""Device and port names that line protocol and InfluxDB 1.6.7 disagree on (a trailing backslash, a
backslash before a comma, a quote, an `n` or another backslash, a newline), through the encoder into a
real InfluxDB and back through the post-mortem queries: every point is stored, under the name
`stored_name` gives, and a query by the device's own name finds it."""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator

import pytest

from fabricwatch.core.influxql import InfluxQL
from fabricwatch.core.lineprotocol import line, parse_line, stored_name, tag_prefix
from fabricwatch.postmortem.influx import InfluxHistory
from fabricwatch.postmortem.store import Store, Window
from tests.servers import InfluxDB1, VictoriaMetrics

NAMES = ["Eth1\\", "a\\\\b", "a\\b", "line\nbreak", "sp ace,comma=eq", "back\\ slash", "q\"uo'te", "\\",
         "tail\\\\", "x\\,y", "x\\=y", "x\\n", "x\\\"", "Ethernet1/1"]
T0 = 1_700_000_000_000_000_000


@pytest.fixture(scope="module")
def influx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InfluxDB1]:
    server = InfluxDB1(tmp_path_factory.mktemp("influx"))
    server.start()
    server.create_db("fw")
    yield server
    server.stop()


def test_stored_names_are_what_influxdb_keeps() -> None:
    assert stored_name("Eth1\\") == "Eth1\u29f5" and stored_name("a\\b") == "a\\b"
    assert stored_name("a\\\\b") == "a\u29f5\\b" and stored_name("line\nbreak") == "line\u2424break"
    for name in NAMES:
        assert stored_name(stored_name(name)) == stored_name(name)


def test_every_name_is_stored_and_found_by_its_own_name(influx: InfluxDB1) -> None:
    lines = [line(tag_prefix("port_rates", {"device": f"dev-{name}", "port": name}), {"in_gbps": float(i)},
                  T0 + i) for i, name in enumerate(NAMES)]
    body = "\n".join(str(x) for x in lines).encode()
    with urllib.request.urlopen(urllib.request.Request(f"{influx.url}/write?db=fw", data=body), timeout=30) as resp:
        assert resp.status == 204  # a refused line is a 400 for the batch, and every point of that name lost
    # what the file formats read back (export, replay) is what the server keeps
    assert [parse_line(str(x))[1]["port"] for x in lines] == [stored_name(n) for n in NAMES]
    res = influx.query('SHOW TAG VALUES FROM "port_rates" WITH KEY = "port"', "fw")
    kept = {v[1] for v in res["results"][0]["series"][0]["values"]}
    assert kept == {stored_name(n) for n in NAMES}
    history = InfluxHistory(Store(InfluxQL(influx.url, "fw")))
    window = Window(T0 - 60_000_000_000, T0 + 60_000_000_000)
    for i, name in enumerate(NAMES):
        got = history.buckets(window, 60, ["in_gbps"], device=f"dev-{name}", port=name)
        assert [b[2]["in_gbps"] for b in got] == [float(i)], name


def test_victoriametrics_keeps_the_same_names(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The other line protocol parser here reads what InfluxDB 1.6.7 keeps: one stored form everywhere."""
    vm = VictoriaMetrics(tmp_path_factory.mktemp("vm"))
    vm.start()
    try:
        now = time.time_ns()
        body = "\n".join(str(line(tag_prefix("port_rates", {"device": "d", "port": name}), {"in_gbps": float(i)}, now))
                         for i, name in enumerate(NAMES)).encode()
        with urllib.request.urlopen(urllib.request.Request(f"{vm.url}/write", data=body), timeout=30) as resp:
            assert resp.status == 204
        query = urllib.parse.urlencode({"match[]": '{__name__="port_rates_in_gbps"}'})
        kept: set[str] = set()
        for _ in range(100):  # searchable a moment after the flush
            urllib.request.urlopen(f"{vm.url}/internal/force_flush", timeout=30).read()
            with urllib.request.urlopen(f"{vm.url}/api/v1/export?{query}", timeout=30) as resp:
                kept = {json.loads(row)["metric"]["port"] for row in resp.read().decode().splitlines()}
            if len(kept) == len(NAMES):
                break
            time.sleep(0.1)
        assert kept == {stored_name(n) for n in NAMES}
    finally:
        vm.stop()
