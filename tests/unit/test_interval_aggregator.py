"""IntervalAggregator: a link's interval rate is the time-weighted mean of its samples' rates,
whatever number of messages a sample came in (devices split one port's counters over several gNMI
notifications at one timestamp) and whether the covered time is given or taken from the stream."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.models.intervals import IntervalAggregator

S = 1_000_000_000
NAMES = ("in_octets", "out_octets", "link_transitions", "pfc_tx_p3", "symbol_errors")


def _rates(aggregator: IntervalAggregator) -> dict[int, dict[str, float]]:
    return {start: li.rates for start, links in aggregator.flush() for li in links}


samples = st.lists(st.fixed_dictionaries({n: st.floats(0, 1e6) for n in NAMES}), min_size=2, max_size=12)


@settings(max_examples=200, deadline=None)
@given(samples=samples, period_ms=st.sampled_from([250, 500, 700, 1000]),
       cuts=st.lists(st.integers(1, len(NAMES) - 1), max_size=3))
def test_a_sample_split_into_messages_gives_the_rates_of_the_whole_sample(
        samples: list[dict[str, float]], period_ms: int, cuts: list[int]) -> None:
    whole, split = IntervalAggregator(2.0), IntervalAggregator(2.0)
    bounds = [0, *sorted(set(cuts)), len(NAMES)]
    for i, rates in enumerate(samples):
        ts = 100 * S + (i + 1) * period_ms * 1_000_000
        whole.add("sw", "p1", ts, rates, {})
        for a, b in itertools.pairwise(bounds):
            if a < b:
                split.add("sw", "p1", ts, {n: rates[n] for n in NAMES[a:b]}, {})
    got, want = _rates(split), _rates(whole)
    assert got.keys() == want.keys()
    for start in want:
        for name in NAMES:
            assert abs(got[start][name] - want[start][name]) <= 1e-9 * max(1.0, abs(want[start][name])), (start, name)


def test_a_flap_in_one_of_four_samples_is_one_transition_per_interval() -> None:
    """A link that goes down and up once in a 2 s interval sampled every 0.5 s shows 0.5 transitions
    a second over that interval, even when the transition counter comes in its own notification."""
    agg = IntervalAggregator(2.0)
    base = 100 * S
    agg.add("sw", "p1", base - 1, {"in_octets": 1.0, "link_transitions": 0.0}, {})  # the previous interval
    for k in range(1, 5):
        ts = base + k * S // 2 - 1  # all four in [100 s, 102 s)
        agg.add("sw", "p1", ts, {"in_octets": 1.0}, {})
        agg.add("sw", "p1", ts, {"link_transitions": 2.0 if k == 2 else 0.0}, {})  # 1 transition in 0.5 s
        agg.add("sw", "p1", ts, {"pfc_tx_p3": 0.0}, {})
    rates = _rates(agg)[base]
    assert abs(rates["link_transitions"] - 0.5) < 1e-9  # 1 transition over the 2 s of the interval
    assert abs(rates["in_octets"] - 1.0) < 1e-9


def test_the_stream_weighs_as_replay_does_when_the_spans_are_given() -> None:
    given_dt, from_stream = IntervalAggregator(2.0), IntervalAggregator(2.0)
    times = [100 * S + t for t in (0, 300_000_000, 1_100_000_000, 1_500_000_000, 2_400_000_000, 3_900_000_000)]
    for i, ts in enumerate(times):
        rates = {"in_octets": float(i * i), "symbol_errors": float(i % 2)}
        from_stream.add("sw", "p1", ts, rates, {})
        if i:
            given_dt.add("sw", "p1", ts, rates, {}, dt_s=(ts - times[i - 1]) / 1e9)
    a, b = _rates(given_dt), _rates(from_stream)
    # the very first sample has no span; from the second on the two agree
    assert a[102 * S] == b[102 * S]


def _interleaved_samples() -> list:
    """One port over 120 s: interface counters every 10 s; PFC in its own notification 0.3 s after
    them (a device stamps each path's notification itself); an error counter sent only when it changes
    (suppressed redundant values): +6 every 60 s."""
    from fabricwatch.core.batch import PortSample

    out = []
    for k in range(13):
        t = k * 10 * S
        out.append(PortSample("sw", "p1", t, {"in_octets": k * 1e9, "out_octets": k * 2e9, "speed_bps": 4e11},
                              {"role": "leaf"}))
        out.append(PortSample("sw", "p1", t + 3 * S // 10, {"pfc_rx_p3": k * 1000.0}, {"role": "leaf"}))
        if k % 6 == 0:
            out.append(PortSample("sw", "p1", t, {"in_errors": k * 1.0}, {"role": "leaf"}))
    return out


def _check_interleaved(intervals: list) -> None:
    got = {start: li for start, links in intervals for li in links}
    assert sorted(got) == [0, 30 * S, 60 * S, 90 * S, 120 * S]
    for start in (30 * S, 60 * S, 90 * S):  # whole intervals: the first one starts with no rate
        rates = got[start].rates
        assert abs(rates["in_octets"] - 1e8) < 1e-3 * 1e8, (start, rates)
        assert abs(rates["out_octets"] - 2e8) < 1e-3 * 2e8, (start, rates)
        assert abs(rates["pfc_rx_p3"] - 100.0) < 1e-3 * 100, (start, rates)  # was 3.0: weighed 0.3 s of 10
        # the negotiated speed is a reading of the samples that carry it, not diluted by the others
        assert abs(rates["speed_bps"] - 4e11) < 1e-6 * 4e11, (start, rates)
    # the six errors counted at 60 s happened since the sample before (unchanged values are not sent):
    # all of them are in that interval, none lost
    assert abs(got[60 * S].rates["in_errors"] - 6 / 30) < 1e-9, got[60 * S].rates
    # not sent in the others: unchanged, so none, not "not reported" (the port sent it at 0 s)
    assert got[30 * S].rates["in_errors"] == 0.0 and got[90 * S].rates["in_errors"] == 0.0


def test_counters_in_notifications_of_their_own_time_or_sent_on_change_weigh_the_time_they_cover() -> None:
    """Replay: each rate weighs the span it was computed over (since that counter's previous value),
    not the time since the port's previous message."""
    from fabricwatch.detection.replay import intervals_from_samples

    _check_interleaved(intervals_from_samples(_interleaved_samples(), 30.0))


def test_the_daemon_folds_interleaved_and_on_change_counters_as_replay_does() -> None:
    """The live path (pipeline -> detector service) gives the same intervals as replay, from the first
    whole one on (in the first, the daemon does not know when the port's sample before its first rates
    was taken), whatever order a port's notifications arrive in."""
    from fabricwatch.core.batch import SampleBatch
    from fabricwatch.detection.config import DetectorConfig
    from fabricwatch.detection.replay import intervals_from_samples
    from fabricwatch.detection.service import DetectorService
    from fabricwatch.pipeline.pipeline import Pipeline

    async def write(lines: list[str]) -> None:
        return None

    now = [0]
    service = DetectorService(DetectorConfig(interval=30.0), write, clock=lambda: now[0])
    pipeline = Pipeline()
    pipeline.on_rates = service.add
    for s in _interleaved_samples():  # the error counter's part comes after the PFC part stamped later
        now[0] = max(now[0], s.ts_ns)  # the device's clock is right
        pipeline.process(SampleBatch("gnmi", s.device, [s]), target="gnmi:sw")
    live = service.aggregator.flush()
    _check_interleaved(live)
    replay = intervals_from_samples(_interleaved_samples(), 30.0)
    assert [(s, [li.rates for li in links]) for s, links in live][1:] == \
        [(s, [li.rates for li in links]) for s, links in replay][1:]
    assert service.aggregator.late == 0


def test_a_part_stamped_before_the_interval_being_folded_is_left_out_counted_and_closes_nothing() -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    from fabricwatch.detection.config import DetectorConfig
    from fabricwatch.detection.metrics import DetectorMetrics
    from fabricwatch.detection.service import DetectorService

    async def write(lines: list[str]) -> None:
        return None

    now = [0]
    service = DetectorService(DetectorConfig(interval=30.0), write, clock=lambda: now[0])
    for k in range(1, 8):  # 10 s samples from 10 s to 70 s
        now[0] = k * 10 * S
        service.add("sw", "p1", k * 10 * S, {"in_octets": 100.0}, {}, [], span_ns=10 * S)
    # a part of the 50 s sample, arriving after the 60 s interval opened
    service.add("sw", "p1", 50 * S + 5, {"pfc_rx_p3": 9.0}, {}, [], span_ns=10 * S)
    now[0] = 80 * S
    service.add("sw", "p1", 80 * S, {"in_octets": 100.0}, {}, [], span_ns=10 * S)
    got = {start: li.rates for start, links in service.aggregator.flush() for li in links}
    assert got[60 * S] == {"in_octets": 100.0}  # the open interval was neither closed early nor changed
    assert abs(got[30 * S]["in_octets"] - 100.0) < 1e-9 and "pfc_rx_p3" not in got[30 * S]
    registry = CollectorRegistry()
    registry.register(DetectorMetrics(service))
    assert "fabricwatch_detector_late_parts_total 1.0" in generate_latest(registry).decode()


def test_an_interval_closed_by_a_sample_without_rates_is_given_once() -> None:
    """A sample that only brings counters seen for the first time closes its link's open interval; the
    interval is not given again when the fold is flushed (hypothesis found it given twice)."""
    agg = IntervalAggregator(30.0)
    agg.add("sw", "p1", 1 * S, {"in_octets": 5.0}, {}, span_ns=S)
    agg.add("sw", "p1", 400 * S, {}, {}, new_names=["ecn_marked"])
    assert [(start, len(links)) for start, links in agg.flush()] == [(0, 1)]
