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
