"""The Prometheus remote-write sink against a real Prometheus 2.x started with --web.enable-remote-write-receiver:
what lands (rates of canonical counters, topology labels only), nothing lost while it is down or answers 5xx
(spooled, replayed in order, across a restart), refusals (out of order, duplicate, out of bounds, too old)
counted by reason and dropped without holding the rest back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from fabricwatch.daemon.config import parse
from fabricwatch.sinks.prometheus_remote_write.config import RemoteWriteConfig
from fabricwatch.sinks.prometheus_remote_write.sink import RemoteWriteSink
from tests.integration.helpers import start_runner, start_sim
from tests.servers import Prometheus, PrometheusReceiver, free_port

pytestmark = pytest.mark.integration

NOW_S = int(time.time()) - 600  # ten minutes ago: inside a fresh head's window, and its 5-minute look-back passed
TAGS = "fabric=roce,role=leaf_down,rail=2,peer_device=gpu001,peer_port=eth2,speed=400G"


def rate_line(port: str, t_s: float, value: float, device: str = "leaf-r2-0", tags: str = TAGS) -> str:
    return (f"port_rates,device={device},port={port},{tags} in_octets={value},pfc_rx_p3={value / 10},"
            f"symbol_errors_saturated=true {int(t_s * 1e9)}")


@pytest.fixture
def prometheus(tmp_path: Path) -> Iterator[PrometheusReceiver]:
    prom = PrometheusReceiver(tmp_path / "prometheus")
    prom.start()
    yield prom
    prom.stop()


def make_cfg(url: str, tmp_path: Path, **kw: Any) -> RemoteWriteConfig:
    return RemoteWriteConfig.model_validate({
        "url": url, "flush_interval": 0.05, "backoff": {"initial": 0.05, "max": 0.2},
        "spool": {"dir": str(tmp_path / "spool")}, **kw})


def make_sink(url: str, tmp_path: Path, **kw: Any) -> RemoteWriteSink:
    return RemoteWriteSink(make_cfg(url, tmp_path, **kw))


async def drain(sink: RemoteWriteSink, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while (sink.spool or sink._buffer) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not sink.spool, f"still spooled after {timeout} s: {sink.stats}"


def values(prom: PrometheusReceiver, metric: str, at: float) -> dict[str, list[tuple[float, float]]]:
    """port -> [(t, value)] of `metric`'s raw samples up to `at`."""
    return {dict(labels)["port"]: [(float(t), float(v)) for t, v in vals]
            for labels, vals in prom.samples(metric, at=at).items()}


async def test_rates_of_canonical_counters_land_with_topology_labels_only(prometheus: PrometheusReceiver,
                                                                         tmp_path: Path) -> None:
    sink = make_sink(prometheus.write_url, tmp_path)
    lines = [rate_line(f"swp{p}", NOW_S + 30 * i, 1000.0 * i + p) for i in range(3) for p in range(4)]
    lines += [  # never sent: raw counters, a gauge's and an unknown field's rates, events
        f"port_counters,device=leaf-r2-0,port=swp0,{TAGS} in_octets=5i {NOW_S * 10**9}",
        f"port_rates,device=leaf-r2-0,port=swp9 temperature_c=50,made_up_counter=3 {NOW_S * 10**9}",
        f'link_events,device=leaf-r2-0,port=swp0,kind=flap detail="x" {NOW_S * 10**9}',
    ]
    await sink.start()
    await sink.write(lines)
    await drain(sink)
    await sink.close()
    at = NOW_S + 120
    got = prometheus.samples('{__name__=~"fabricwatch_.+"}', at=at)
    names = {dict(labels)["__name__"] for labels in got}
    assert names == {"fabricwatch_port_in_octets_per_second", "fabricwatch_port_pfc_rx_p3_per_second"}
    assert len(got) == 8  # 2 counters x 4 ports: nothing from swp9, the counters, or the events
    for labels in got:
        assert {k for k, _ in labels} == {"__name__", "device", "port", "fabric", "role", "rail", "peer_device",
                                          "peer_port"}  # no speed, no field-borne label
    octets = values(prometheus, "fabricwatch_port_in_octets_per_second", at)
    assert octets["swp3"] == [(NOW_S, 3.0), (NOW_S + 30, 1003.0), (NOW_S + 60, 2003.0)]  # seconds, exact values
    assert values(prometheus, "fabricwatch_port_pfc_rx_p3_per_second", at)["swp1"][2] == (NOW_S + 60, 200.1)
    assert sink.stats.points_written == 13  # the port_rates lines; the rest never reached the spool
    assert sink.samples_written == 24 and sink.stats.points_rejected == 0


async def test_fewer_labels_and_counters_when_configured(prometheus: PrometheusReceiver, tmp_path: Path) -> None:
    sink = make_sink(prometheus.write_url, tmp_path, labels=["rail"], counters=["pfc_rx_p3"],
                     metric_prefix="fw_")
    await sink.start()
    await sink.write([rate_line("swp1", NOW_S, 50.0)])
    await drain(sink)
    await sink.close()
    got = prometheus.samples('{__name__=~"fw_.+"}', at=NOW_S + 1)
    assert list(got) == [(("__name__", "fw_pfc_rx_p3_per_second"), ("device", "leaf-r2-0"), ("port", "swp1"),
                          ("rail", "2"))]  # device and port always: without them ports would merge


async def test_down_then_up_nothing_lost_in_order_across_a_restart(tmp_path: Path) -> None:
    prom = PrometheusReceiver(tmp_path / "prometheus")  # not started: nothing listens on its port yet
    sink = make_sink(prom.write_url, tmp_path)
    await sink.start()
    await sink.write([rate_line("swp1", NOW_S + i, float(i)) for i in range(0, 20)])
    deadline = time.monotonic() + 10
    while sink.stats.points_retried == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await sink.write([rate_line("swp1", NOW_S + i, float(i)) for i in range(20, 40)])
    await sink.close()  # down: no grace period, everything stays spooled
    assert sink.spool.pending_points == 40 and sink.stats.points_written == 0
    assert sink.stats.write_errors.get("connection", 0) >= 1
    prom.start()
    try:
        again = make_sink(prom.write_url, tmp_path)  # the next run, the same spool
        await again.start()
        await again.write([rate_line("swp1", NOW_S + i, float(i)) for i in range(40, 50)])
        again.flush()
        await drain(again)
        await again.close()
        got = values(prom, "fabricwatch_port_in_octets_per_second", NOW_S + 60)["swp1"]
        assert got == [(NOW_S + i, float(i)) for i in range(50)]
        assert again.stats.points_written == 50 and again.stats.points_rejected == 0
    finally:
        prom.stop()


@pytest.fixture
async def flaky_front() -> AsyncIterator[Any]:
    """A real HTTP server that answers 503 to the first N writes, then passes each body to the real Prometheus."""
    runners: list[web.AppRunner] = []

    async def start(upstream: str, failures: int) -> tuple[str, list[int]]:
        answers: list[int] = []

        async def write(request: web.Request) -> web.Response:
            body = await request.read()
            if len(answers) < failures:
                answers.append(503)
                return web.Response(status=503, text="overloaded")
            async with aiohttp.ClientSession() as s, s.post(upstream, data=body, headers=dict(request.headers)) as r:
                answers.append(r.status)
                return web.Response(status=r.status, text=await r.text())

        app = web.Application()
        app.router.add_post("/api/v1/write", write)
        runner = web.AppRunner(app)
        await runner.setup()
        port = free_port()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        runners.append(runner)
        return f"http://127.0.0.1:{port}/api/v1/write", answers

    yield start
    for r in runners:
        await r.cleanup()


async def test_5xx_is_retried_until_taken(prometheus: PrometheusReceiver, flaky_front: Any, tmp_path: Path) -> None:
    url, answers = await flaky_front(prometheus.write_url, failures=3)
    sink = make_sink(url, tmp_path)
    await sink.start()
    await sink.write([rate_line("swp1", NOW_S + i, float(i)) for i in range(10)])
    await drain(sink)
    await sink.close()
    assert answers == [503, 503, 503, 204]
    assert sink.stats.write_errors == {"503": 3} and sink.stats.points_retried == 30
    assert values(prometheus, "fabricwatch_port_in_octets_per_second", NOW_S + 60)["swp1"] == \
        [(NOW_S + i, float(i)) for i in range(10)]


async def test_out_of_order_and_duplicates_are_dropped_by_reason_the_rest_written(prometheus: PrometheusReceiver,
                                                                                  tmp_path: Path) -> None:
    sink = make_sink(prometheus.write_url, tmp_path, batch_size=100)
    await sink.start()
    await sink.write([rate_line("swp1", NOW_S + 100, 1.0), rate_line("swp2", NOW_S + 100, 1.0)])
    await drain(sink)
    batch = [rate_line(f"swp{p}", NOW_S + 110, 2.0) for p in range(3, 20)]
    batch.insert(5, rate_line("swp1", NOW_S + 50, 9.0))  # older than what swp1 has: out of order
    batch.insert(11, rate_line("swp2", NOW_S + 100, 7.0))  # swp2's last time, another value: duplicate
    batch.append(rate_line("swp2", NOW_S + 100, 1.0))  # an exact repeat (a replay): taken
    await sink.write(batch)
    await drain(sink)
    await sink.close()
    assert sink.stats.rejected_reasons == {"out_of_order": 1, "duplicate": 1}
    assert sink.stats.points_rejected == 2 and sink.stats.points_written == 2 + 18
    got = values(prometheus, "fabricwatch_port_in_octets_per_second", NOW_S + 200)
    assert got["swp1"] == [(NOW_S + 100, 1.0)] and got["swp2"] == [(NOW_S + 100, 1.0)]
    assert all(got[f"swp{p}"] == [(NOW_S + 110, 2.0)] for p in range(3, 20))


async def test_out_of_bounds_and_too_old_are_dropped_not_retried(tmp_path: Path) -> None:
    plain = PrometheusReceiver(tmp_path / "plain")
    window = PrometheusReceiver(tmp_path / "window", out_of_order="1h")  # older samples admitted up to 1 h
    plain.start()
    window.start()
    try:
        for prom, reason in ((plain, "out_of_bounds"), (window, "too_old")):
            sink = make_sink(prom.write_url, tmp_path / reason)
            await sink.start()
            await sink.write([rate_line("swp1", NOW_S, 1.0)])
            await drain(sink)
            # a port never seen, 3 h older than the head: older than what the head (or the window) admits
            await sink.write([rate_line("swp2", NOW_S - 3 * 3600, 1.0), rate_line("swp3", NOW_S + 1, 1.0)])
            await drain(sink)
            await sink.close()
            assert sink.stats.rejected_reasons == {reason: 1}, prom
            assert sink.stats.points_written == 2
            assert set(values(prom, "fabricwatch_port_in_octets_per_second", NOW_S + 60)) == {"swp1", "swp3"}
        assert window.samples("fabricwatch_port_in_octets_per_second", at=NOW_S - 3 * 3600 + 1) == {}
    finally:
        plain.stop()
        window.stop()


async def test_check_says_what_is_wrong(prometheus: PrometheusReceiver, tmp_path: Path) -> None:
    assert await make_cfg(prometheus.write_url, tmp_path).check() is None
    no_receiver = Prometheus(tmp_path / "no-receiver", targets=[], rule_files=[], alertmanager=None)
    no_receiver.start()
    try:
        problem = await make_cfg(f"{no_receiver.url}/api/v1/write", tmp_path).check()
        assert problem is not None and "--web.enable-remote-write-receiver" in problem
    finally:
        no_receiver.stop()
    down = await make_cfg(f"http://127.0.0.1:{free_port()}/api/v1/write", tmp_path).check()
    assert down is not None and down.startswith("cannot reach")


async def test_no_receiver_holds_the_data_until_it_is_enabled(tmp_path: Path) -> None:
    no_receiver = Prometheus(tmp_path / "no-receiver", targets=[], rule_files=[], alertmanager=None)
    no_receiver.start()
    sink = make_sink(f"{no_receiver.url}/api/v1/write", tmp_path)
    await sink.start()
    await sink.write([rate_line("swp1", NOW_S, 1.0)])
    deadline = time.monotonic() + 10
    while not sink.stats.blocked and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await sink.close()
    assert sink.stats.blocked and "--web.enable-remote-write-receiver" in sink.stats.last_error
    assert sink.spool.pending_points == 1 and sink.stats.points_rejected == 0  # held, not dropped
    no_receiver.stop()


async def test_the_daemon_fills_prometheus_and_shows_both_sinks_once_on_metrics(prometheus: PrometheusReceiver,
                                                                                tmp_path: Path) -> None:
    sim = await start_sim()
    cfg = parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "collectors": {"gnmi": [{**s, "backoff": {"initial": 0.2, "max": 1.0}} for s in sim.daemon_collectors(0.5)]},
        "sinks": {"prometheus_remote_write": [{"name": "prom", "url": prometheus.write_url, "flush_interval": 0.2,
                                               "spool": {"dir": str(tmp_path / "spool-prom")}}],
                  # nothing answers here: its points stay spooled, its metrics stand beside the other's
                  "influxdb": [{"name": "influx", "url": f"http://127.0.0.1:{free_port()}", "database": "fw",
                                "spool": {"dir": str(tmp_path / "spool-influx")}}]},
    }, "<test>")
    runner, task = await start_runner(cfg, sim)
    try:
        ports = {(d.name, p.name) for d in sim.fabric.topology.devices.values() for p in d.ports}
        got: dict = {}
        for _ in range(120):
            await asyncio.sleep(0.5)
            got = {(r["metric"]["device"], r["metric"]["port"]): r["metric"]
                   for r in prometheus.query("fabricwatch_port_in_octets_per_second")}
            if set(got) >= ports:
                break
        assert set(got) >= ports, f"{len(ports - set(got))} ports have no rate in Prometheus"
        exposition = runner.metrics.exposition().decode()
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
    names = {n for labels in got.values() for n in labels} - {"__name__"}
    assert names <= {"device", "port", "fabric", "role", "rail", "peer_device", "peer_port"}
    assert {"role", "peer_device"} <= names  # the topology reached the labels
    helps = [line for line in exposition.splitlines() if line.startswith("# HELP fabricwatch_points_written")]
    assert len(helps) == 1, helps  # one family for every batching sink, or a scrape fails on the repeat
    assert 'fabricwatch_points_written_total{sink="prom"}' in exposition
    assert 'fabricwatch_spool_points{sink="influx"}' in exposition
