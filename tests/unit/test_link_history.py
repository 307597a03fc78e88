"""The link page's last hour, kept in memory: steps hold the highest value seen in them, steps
nobody reported in are gaps, what is older than the ring is gone, and the cost is bounded."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.core.batch import PortSample, SampleBatch
from fabricwatch.pipeline.history import SERIES, LinkHistory
from fabricwatch.pipeline.pipeline import Pipeline

S = 1_000_000_000
KEY = ("leaf-1", "swp1")


def test_a_step_keeps_its_highest_value_and_a_silent_step_is_a_gap() -> None:
    h = LinkHistory(step_s=60, slots=5)
    h.add(KEY, 0 * S, {"in_octets": 1.25e9, "pfc_rx_p3": 10.0})
    h.add(KEY, 30 * S, {"in_octets": 0.25e9, "pfc_rx_p3": 50.0, "pause_tx": 5.0, "fcs_errors": 2.0})
    h.add(KEY, 130 * S, {"in_octets": 2.5e9})  # step 2; step 1 heard nothing
    got = h.of(KEY, 150 * S)
    assert got["step_s"] == 60 and got["start_ns"] == -2 * 60 * S
    assert got["series"]["in_gbps"] == [None, None, 10.0, None, 20.0]
    assert got["series"]["pauses"] == [None, None, 55.0, None, 0.0]
    assert got["series"]["errors"] == [None, None, 2.0, None, 0.0]


def test_what_is_older_than_the_ring_is_gone() -> None:
    h = LinkHistory(step_s=1, slots=3)
    for t in range(10):
        h.add(KEY, t * S, {"out_octets": t * 1.25e8})
    assert h.of(KEY, 9 * S)["series"]["out_gbps"] == [7.0, 8.0, 9.0]
    h.add(KEY, 2 * S, {"out_octets": 1e12})  # a late sample for a step the ring no longer holds
    assert h.of(KEY, 9 * S)["series"]["out_gbps"][0] == 7.0
    assert h.of(KEY, 30 * S)["series"]["out_gbps"] == [None, None, None]  # nothing heard since


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3_000), st.floats(0, 1e12)), max_size=80), st.integers(1, 12))
def test_every_step_is_the_max_of_what_fell_in_it(samples: list[tuple[int, float]], slots: int) -> None:
    h = LinkHistory(step_s=10, slots=slots)
    for t, v in samples:
        h.add(KEY, t * S, {"ecn_marked": v})
    now = max((t for t, _ in samples), default=0)
    got = h.of(KEY, now * S)["series"]["ecn"]
    assert len(got) == slots
    newest = now // 10
    for i, value in enumerate(got):
        step = newest - slots + 1 + i
        # a sample reaches its step unless a newer one had already moved the ring past it
        seen = [v for j, (t, v) in enumerate(samples) if t // 10 == step
                and all(t2 // 10 < step + slots for t2, _ in samples[:j])]
        if seen:
            assert value is not None and abs(value - max(seen)) <= max(seen) * 1e-3 + 1e-30  # float32
        else:
            assert value is None


def test_ports_beyond_the_bound_are_counted_not_kept() -> None:
    h = LinkHistory(step_s=60, slots=60, max_ports=100)
    for i in range(150):
        h.add(("d", f"p{i}"), 0, {"in_octets": 1.0})
    assert len(h) == 100 and h.refused_ports == 50
    assert all(v is None for v in h.of(("d", "p120"), 0)["series"]["in_gbps"])


def test_the_pipeline_keeps_a_ports_merged_rates_and_its_events_and_forgets_them_with_it() -> None:
    h = LinkHistory(step_s=60, slots=10)
    pipe = Pipeline(history=h)
    for t, up in ((0, 1), (10, 1), (20, 0), (30, 1)):
        # octets and PFC arrive in separate notifications: the history sums the merged view
        pipe.process(SampleBatch("gnmi", "leaf-1", [
            PortSample("leaf-1", "swp1", t * S, {"in_octets": t * 1e9, "oper_status": up}),
            PortSample("leaf-1", "swp1", t * S + 1, {"pfc_rx_p3": t * 100.0, "pfc_tx_p3": t * 10.0}),
        ]), target="gnmi:x:leaf-1")
    got = h.of(KEY, 30 * S)
    assert got["series"]["in_gbps"][-1] == 8.0 and got["series"]["pauses"][-1] == 110.0
    assert [e["kind"] for e in got["events"]] == ["oper_down", "oper_up"]
    pipe.forget_target("gnmi:x:leaf-1")
    assert len(h) == 0 and h.of(KEY, 30 * S)["events"] == []


def test_series_names_are_what_the_page_draws() -> None:
    js = (__import__("pathlib").Path(__file__).resolve().parents[2] / "daemon/static/fabric.js").read_text()
    for name in SERIES:
        assert f"{name}:" in js


def test_the_fabrics_own_signals_are_kept_only_for_the_ports_that_report_them() -> None:
    h = LinkHistory(step_s=60, slots=3)
    roce, ib = ("leaf-1", "swp1"), ("ib-leaf", "9")
    h.add(roce, 0, {"in_octets": 1.0, "pfc_rx_p3": 10.0, "pfc_tx_p3": 5.0, "pfc_rx_p0": 0.0, "in_discards": 2.0,
                    "out_discards": 1.0, "fec_corrected": 7.0}, {"pre_fec_ber": 1e-8, "temperature_c": 40.0})
    h.add(ib, 0, {"xmit_wait": 3e5, "symbol_errors": 4.0, "link_downed": 0.5}, {"ib_raw_ber": 2e-9})
    h.add_gauges(ib, 70 * S, {"temperature_c": 41.5})  # the module's readings alone, a step later
    r, i = h.of(roce, 70 * S)["series"], h.of(ib, 70 * S)["series"]
    assert r["pfc_p3"] == [None, 15.0, None] and r["pfc_p0"] == [None, 0.0, None] and r["discards"][1] == 3.0
    assert r["ber"][1] == 1e-8 and r["temperature"][1] == 40.0 and r["fec_corrected"][1] == 7.0
    assert not {"xmit_wait", "symbol_errors", "link_downed", "pfc_p1"} & set(r)
    assert i["xmit_wait"][1] == 3e5 and i["symbol_errors"][1] == 4.0 and i["ber"][1] == 2e-9
    assert i["temperature"] == [None, None, 41.5] and i["in_gbps"][2] is None  # a reading is no traffic
    assert not any(k.startswith("pfc_p") for k in i)
    # a silent step is a gap in these too
    h.add(ib, 250 * S, {"xmit_wait": 1.0})
    assert h.of(ib, 250 * S)["series"]["temperature"] == [None, None, None]


def test_the_pipeline_keeps_the_modules_readings_taken_apart_from_the_counters() -> None:
    h = LinkHistory(step_s=1, slots=5)
    pipe = Pipeline(history=h)
    pipe.process(SampleBatch("gnmi", "leaf-1", [PortSample("leaf-1", "swp1", 0, {"in_octets": 0.0})]))
    pipe.process(SampleBatch("gnmi", "leaf-1", [PortSample("leaf-1", "swp1", 2 * S, {"in_octets": 2e9}),
                                                PortSample("leaf-1", "swp1", 3 * S, {"temperature_c": 55.0,
                                                                                     "pre_fec_ber": 3e-6})]))
    got = h.of(KEY, 4 * S)["series"]
    assert got["temperature"][3] == 55.0 and got["ber"][3] == 3e-6 and got["in_gbps"][2] == 8.0


def test_a_count_that_first_moves_late_reads_0_before_and_costs_nothing_while_0() -> None:
    h = LinkHistory(step_s=1, slots=4)
    for t in range(3):
        h.add(KEY, t * S, {"in_octets": 1.0, "symbol_errors": 0.0, "pfc_rx_p1": 0.0})
    assert h._rings[KEY].values.shape == (4, len(SERIES))  # nothing allocated for counts that stayed 0
    h.add(KEY, 3 * S, {"in_octets": 1.0, "symbol_errors": 6.0, "pfc_rx_p1": 0.0})
    got = h.of(KEY, 3 * S)["series"]
    assert got["symbol_errors"] == [0.0, 0.0, 0.0, 6.0] and got["pfc_p1"] == [0.0, 0.0, 0.0, 0.0]
    assert "pfc_p2" not in got and "xmit_wait" not in got  # never reported: not drawn as 0
