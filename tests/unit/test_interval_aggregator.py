"""IntervalAggregator: a link's interval rate is the time-weighted mean of its samples' rates,
whatever number of messages a sample came in (devices split one port's counters over several gNMI
notifications at one timestamp) and whether the covered time is given or taken from the stream."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.models.features import IntervalAggregator

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
