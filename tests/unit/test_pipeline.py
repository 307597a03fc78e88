"""The pipeline: topology tags, raw and rate lines, link events, sharding of targets."""

from __future__ import annotations

import msgpack

from fabricwatch.core.batch import PortSample, SampleBatch, coalesce
from fabricwatch.core.topology import Topology
from fabricwatch.daemon.config import parse
from fabricwatch.daemon.runner import build_collectors
from fabricwatch.pipeline.pipeline import Pipeline

S = 1_000_000_000


def batch(ts: float, **values: float) -> SampleBatch:
    return SampleBatch("gnmi", "leaf1", [PortSample("leaf1", "swp1", int(ts * S), dict(values), {"fabric": "roce"})])


def test_tags_lines_and_events() -> None:
    topo = Topology.from_records([{"device": "leaf1", "port": "swp1", "role": "leaf_down", "rail": "2",
                                   "peer_device": "node007", "peer_port": "mlx5_2"}])
    events = []
    p = Pipeline(topology=topo)
    p.on_event = events.append
    first = p.process(batch(0, in_octets=100, oper_status=1, link_transitions=4))
    assert first.lines == [
        "port_counters,device=leaf1,fabric=roce,peer_device=node007,peer_port=mlx5_2,port=swp1,rail=2,"
        "role=leaf_down in_octets=100i,oper_status=1i,link_transitions=4i 0"
    ]
    second = p.process(batch(10, in_octets=1100, oper_status=0, link_transitions=5))
    rate_line = next(line for line in second.lines if line.startswith("port_rates,"))
    assert rate_line.endswith(" in_octets=100.0,link_transitions=0.1 10000000000")
    assert {e.kind for e in events} == {"oper_down", "flap"}
    assert sum(line.startswith("link_events,") for line in second.lines) == 2
    assert p.latest[("leaf1", "swp1")].rates["in_octets"] == 100.0


def test_saturation_raises_one_event_and_flags_the_rate() -> None:
    p = Pipeline()
    p.process(batch(0, symbol_errors=65530))
    out = p.process(batch(10, symbol_errors=65535))
    assert any("symbol_errors_saturated=true" in line for line in out.lines)
    assert [e.kind for e in out.events] == ["saturated"]
    again = p.process(batch(20, symbol_errors=65535))
    assert again.events == []


def test_infiniband_link_downed_is_a_flap_and_device_events_become_points() -> None:
    from fabricwatch.core.batch import DeviceEvent

    topo = Topology.from_records([{"device": "leaf1", "port": "swp1", "role": "leaf_down", "rail": "1"}])
    p = Pipeline(topology=topo)
    seen = []
    p.on_event = seen.append
    p.process(batch(0, link_downed=2))
    out = p.process(batch(10, link_downed=3))
    assert [(e.kind, e.detail) for e in out.events] == [("flap", "link_downed rose")]
    ufm = SampleBatch("ufm", "ufm-a", [], events=[DeviceEvent(
        20 * S, "leaf1", "swp1", "ufm_link_went_down", "port swp1 is down", "Critical", "ufm", "17")])
    lines = p.process(ufm).lines
    assert lines == ['link_events,device=leaf1,kind=ufm_link_went_down,port=swp1,rail=1,role=leaf_down,'
                     'severity=Critical,source=ufm detail="port swp1 is down",count=1i,event_id="17" 20000000000']
    assert [e.kind for e in seen] == ["flap", "ufm_link_went_down"]
    assert seen[1].tags["source"] == "ufm" and seen[1].tags["severity"] == "Critical"  # for the MQTT event


def test_coalesce_merges_one_port_one_instant() -> None:
    a = SampleBatch("gnmi", "d", [PortSample("d", "p", 5, {"pfc_rx_p3": 1})])
    b = SampleBatch("gnmi", "d", [PortSample("d", "p", 5, {"pfc_tx_p3": 2}), PortSample("d", "q", 5, {"x": 1})], 3)
    merged = coalesce([a, b])
    assert [(s.port, s.values) for s in merged.samples] == [("p", {"pfc_rx_p3": 1, "pfc_tx_p3": 2}), ("q", {"x": 1})]
    assert merged.unmapped == 3


def test_shard_selects_targets() -> None:
    targets = [{"device": f"leaf{i}", "address": f"127.0.0.1:{1000 + i}"} for i in range(40)]
    owned = []
    for k in (1, 2, 3):
        cfg = parse({"daemon": {"shard": f"{k}/3"}, "collectors": {"gnmi": [{"targets": targets}]}})
        owned.append({c.device for c in build_collectors(cfg)})
    assert set.union(*owned) == {t["device"] for t in targets}
    assert sum(len(o) for o in owned) == 40 and all(owned)


def test_forgetting_a_target_keeps_ports_another_target_still_reports() -> None:
    """A UFM and an ibdiag target can both read one fabric: removing one must not blank the other."""
    p = Pipeline()
    for ts in (0, 10):
        p.process(SampleBatch("ufm", "ufm-a", [PortSample("sw1", "1", ts * S, {"xmit_wait": ts}, {}),
                                              PortSample("sw1", "2", ts * S, {"xmit_wait": ts}, {})]),
                  target="ufm:a:ufm-a")
        p.process(SampleBatch("ibdiag", "ib", [PortSample("sw1", "2", ts * S + 1, {"xmit_wait": ts}, {})]),
                  target="ibdiag:b:ib")
    assert set(p.latest) == {("sw1", "1"), ("sw1", "2")}
    assert p.forget_target("ufm:a:ufm-a") == [("sw1", "1")]
    assert set(p.latest) == {("sw1", "2")} and not p.rates.tracks(("sw1", "1")) and p.rates.tracks(("sw1", "2"))
    assert p.forget_target("ibdiag:b:ib") == [("sw1", "2")]
    assert not p.latest and p.forget_target("never-seen") == []


def test_ports_that_go_silent_are_forgotten() -> None:
    p = Pipeline()
    for ts in (0, 10, 20):
        p.process(SampleBatch("gnmi", "leaf1", [PortSample("leaf1", "swp1", ts * S, {"in_octets": ts}, {})]
                              + ([PortSample("leaf1", "swp2", ts * S, {"in_octets": ts}, {})] if ts < 20 else [])),
                  target="t")
    assert p.expire(15 * S) == [("leaf1", "swp2")]
    assert set(p.latest) == {("leaf1", "swp1")} and not p.rates.tracks(("leaf1", "swp2"))
    assert p.forget_target("t") == [("leaf1", "swp1")]


def test_latest_rates_merge_counters_that_arrive_in_separate_notifications() -> None:
    """gNMI flavours that send a port's counters in several notifications (octets in one, PFC and
    ECN in another) must show all of them, not whichever arrived last."""
    p = Pipeline()
    p.process(batch(0, in_octets=0))
    p.process(batch(0.1, pfc_rx_p3=0, ecn_marked=0))
    p.process(batch(10, in_octets=2_500_000_000))
    p.process(batch(10.1, pfc_rx_p3=500, ecn_marked=1000))
    view = p.latest[("leaf1", "swp1")]
    assert view.rates == {"in_octets": 250_000_000.0, "pfc_rx_p3": 50.0, "ecn_marked": 100.0}
    assert view.ts_ns == int(10.1 * S)
    # a counter the port stops reporting does not stay on screen for ever
    p.process(batch(400, in_octets=3_000_000_000))
    p.process(batch(410, in_octets=3_500_000_000))
    assert set(p.latest[("leaf1", "swp1")].rates) == {"in_octets"}


def test_a_port_shut_by_an_operator_and_a_link_retrained_slower_are_link_events() -> None:
    from fabricwatch.core.batch import PortSample, SampleBatch
    from fabricwatch.pipeline.pipeline import Pipeline

    pipe = Pipeline()
    kinds: list[tuple[str, str]] = []
    for t, admin, oper, speed in ((0, 1, 1, 400e9), (10, 1, 1, 400e9), (20, 1, 1, 200e9), (30, 0, 0, 200e9),
                                  (40, 1, 1, 400e9)):
        out = pipe.process(SampleBatch("gnmi", "leaf-1", [PortSample(
            "leaf-1", "Ethernet1", t * 1_000_000_000,
            {"in_octets": t * 1e9, "admin_status": admin, "oper_status": oper, "speed_bps": speed})]))
        kinds += [(e.kind, e.detail) for e in out.events]
    assert kinds == [("speed_change", "400G->200G"), ("oper_down", "1->0"), ("admin_down", "1->0"),
                     ("oper_up", "0->1"), ("admin_up", "0->1"), ("speed_change", "200G->400G")]
    assert all(ln.startswith(("port_counters", "port_rates", "link_events")) for ln in out.lines)


def test_inventory_is_written_once_per_change_and_a_swap_is_an_event() -> None:
    from fabricwatch.core.batch import ModuleInfo

    p = Pipeline()
    events: list[str] = []
    p.on_event = lambda ev: events.append(f"{ev.kind} {ev.detail}")
    fields = {"vendor": "FS", "part_number": "SFP-10GSR-85", "serial": "A1"}

    def poll(ts: int, serial: str) -> list[str]:
        batch = SampleBatch("hostnic", "h1", [], modules=[ModuleInfo("h1", "p1", ts, {**fields, "serial": serial})])
        return [ln for ln in p.process(batch).lines if ln.startswith("transceivers")]

    first = poll(1, "A1")
    assert first == ['transceivers,device=h1,port=p1 vendor="FS",part_number="SFP-10GSR-85",serial="A1" 1']
    assert poll(2, "A1") == [] and poll(3, "A1") == []  # unchanged: nothing stored
    assert len(poll(4, "B2")) == 1
    assert events == ["module_change serial A1 -> B2"]


def test_inventory_in_parts_is_merged_not_rewritten() -> None:
    """gNMI devices send a module's vendor and serial in one notification, its form factor in another."""
    from fabricwatch.core.batch import ModuleInfo

    p = Pipeline()

    def send(ts: int, fields: dict[str, str]) -> int:
        batch = SampleBatch("gnmi", "sw", [], modules=[ModuleInfo("sw", "Ethernet1", ts, fields)])
        return sum(ln.startswith("transceivers") for ln in p.process(batch).lines)

    written = [send(t, f) for t in (1, 3, 5) for f in ({"vendor": "X", "serial": "S1"}, {"module_type": "QSFP28"})]
    assert written == [1, 1, 0, 0, 0, 0]
    assert p.modules[("sw", "Ethernet1")].fields == {"vendor": "X", "serial": "S1", "module_type": "QSFP28"}


def test_a_ports_tags_are_escaped_once_when_its_batches_come_from_a_worker(monkeypatch) -> None:
    """Batches from a collector worker are decoded from its frames: each carries an equal but new tags dict. The
    line-protocol prefixes of a port are still made once, not once per batch (they were remade for
    every sample, a fifth of the daemon's CPU with workers), and a change of tags still remakes them."""
    from fabricwatch.daemon.worker_wire import pack, unpack
    from fabricwatch.pipeline import pipeline as pipeline_mod

    made: list[str] = []
    real = pipeline_mod.tag_prefix

    def counting(measurement: str, tags: dict[str, str]) -> str:
        made.append(measurement)
        return real(measurement, tags)

    monkeypatch.setattr(pipeline_mod, "tag_prefix", counting)
    p = Pipeline()
    outs = [p.process(unpack(msgpack.unpackb(msgpack.packb(pack(batch(t, in_octets=100 * t))))), target="w")
            for t in range(5)]
    assert sorted(made) == ["link_events", "port_counters", "port_rates"]
    assert all(o.lines[0].startswith("port_counters,device=leaf1,fabric=roce,port=swp1 ") for o in outs)
    retagged = SampleBatch("gnmi", "leaf1", [PortSample("leaf1", "swp1", 6 * S, {"in_octets": 700},
                                                         {"fabric": "ib"})])
    assert p.process(retagged, target="w").lines[0].startswith("port_counters,device=leaf1,fabric=ib,port=swp1 ")
    assert len(made) == 6


def test_a_device_inventing_ports_is_held_to_max_ports_per_device_and_counted(caplog) -> None:  # type: ignore[no-untyped-def]
    """A device (a firmware bug, a key that carries a counter or a time) that names new ports on
    every sample must not grow the daemon's memory without bound: beyond `max_ports_per_device`
    its new ports' samples are dropped and counted, its known ports and other devices go on, and
    room comes back when ports are forgotten."""
    p = Pipeline(max_ports_per_device=3)
    for ts in range(5):
        out = p.process(SampleBatch("gnmi", "bad", [
            PortSample("bad", f"Ethernet{ts}-{k}" if ts else f"e{k}", ts * S, {"in_octets": ts}, {}) for k in range(2)]
            + [PortSample("good", "swp1", ts * S, {"in_octets": ts * 100}, {})]), target="t")
        if ts == 0:
            assert len(out.lines) == 3
    raw = {(ln.split("device=")[1].split(",")[0], ln.split("port=")[1].split(" ")[0])
           for ln in out.lines if ln.startswith("port_counters,")}
    assert raw == {("good", "swp1")}  # the bad device's new ports are dropped, the good one goes on
    assert {k for k in p.latest if k[0] == "good"} == {("good", "swp1")}
    assert p.refused_samples == {"bad": 7}  # 2 a sample beyond the first 3 ports (one taken at ts 1)
    assert len([r for r in caplog.records if "max_ports_per_device" in r.getMessage()]) == 1  # said once
    assert sum(1 for k in p._owners if k[0] == "bad") == 3
    p.expire(3 * S)  # the invented ports fall silent and are forgotten: room for real ones again
    out = p.process(SampleBatch("gnmi", "bad", [PortSample("bad", "Ethernet1", 9 * S, {"in_octets": 1}, {})]),
                    target="t")
    assert [ln for ln in out.lines if ln.startswith("port_counters,")]


async def test_the_daemon_takes_max_ports_per_device_from_its_config_and_counts_what_it_drops(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from fabricwatch.daemon.config import parse
    from fabricwatch.daemon.runner import Runner

    runner = Runner(parse({"pipeline": {"max_ports_per_device": 2},
                           "sinks": {"influxdb": [{"database": "x", "spool": {"dir": str(tmp_path)}}]}}, "<test>"))
    await runner.handle(SampleBatch("gnmi", "sw", [PortSample("sw", f"p{k}", S, {"in_octets": 1}, {})
                                                   for k in range(5)]), target="t")
    text = runner.metrics.exposition().decode()
    assert 'fabricwatch_samples_refused_total{device="sw"} 3.0' in text


def test_values_that_are_not_numbers_are_dropped_and_counted_not_rated() -> None:
    """gNMI JSON may carry NaN or Infinity (json.loads takes both), a string '1e999' reads as inf,
    UFM's Prometheus text writes NaN: such a value is not a reading. It must not reach the
    detector, the latest view or the rate engine's memory (after an inf, every real value looks
    like a counter reset)."""
    p = Pipeline()
    given: list[dict[str, float]] = []
    p.on_rates = lambda device, port, ts, rates, *a, **k: given.append(rates)  # type: ignore[assignment]
    events = []
    p.on_event = events.append
    for ts, v in [(0, 100), (10, float("inf")), (20, 300), (30, float("nan")), (40, 500)]:
        p.process(SampleBatch("gnmi", "d", [PortSample("d", "p", ts * S, {"in_octets": v, "rx_power_dbm_l1": v,
                                                                           "speed_bps": v}, {})]), target="t")
    finite = [x for rates in given for x in rates.values()]
    assert all(x == x and abs(x) != float("inf") for x in finite), given
    assert p.latest[("d", "p")].rates["in_octets"] == 10.0  # (500 - 300) / 20 s: the bad readings skipped
    assert not [e for e in events if e.kind == "counter_reset"]
    assert p.rates.stats.bad_values == 6


def test_a_state_notification_alone_reaches_the_detector_as_the_replay_reads_it() -> None:
    """The same through every path: a device that sends a port's state on its own when it changes (gNMI
    ON_CHANGE for oper-status, a dedup'd exporter's point with nothing else new) says the port is down; the
    daemon's detector is told so, as the replay of the same recording is, and so is the state and trained
    speed of a port's first sample, which has no rates yet."""
    seen: list[tuple[int, dict[str, float]]] = []
    p = Pipeline()
    p.on_rates = lambda device, port, ts, rates, *a, **k: seen.append((ts, {**rates, **(k.get("first") or {})}))
    p.process(batch(0, in_octets=100, oper_status=1, speed_bps=400e9))
    p.process(batch(10, in_octets=1100))
    p.process(batch(15, oper_status=0))
    assert (0, {"oper_status": 1.0, "speed_bps": 400e9}) in seen
    assert any(ts == 15 * S and rates.get("oper_status") == 0.0 for ts, rates in seen), seen
