"""A port's pause total and its latest-rates view, against plain definitions of them (both sit on
the daemon's per-sample path and were made cheaper there)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.core.counters import COUNTERS
from fabricwatch.pipeline.pipeline import PortRateView
from fabricwatch.pipeline.totals import pause_rate

# a port's rates: named from the counter vocabulary, as the rate engine names them
RATES = st.dictionaries(st.sampled_from(sorted(COUNTERS)), st.floats(min_value=0, max_value=1e12, allow_nan=False),
                        max_size=60)


def _pause_by_definition(rates: dict[str, float]) -> float:
    return math.fsum(v for k, v in rates.items() if k.startswith(("pfc_", "pause_")))


@given(RATES)
@settings(max_examples=400)
def test_the_pause_total_is_every_pfc_and_pause_rate_summed(rates: dict[str, float]) -> None:
    assert math.isclose(pause_rate(rates), _pause_by_definition(rates), rel_tol=1e-12, abs_tol=1e-9)


class _Plain:
    """The view's rule, written plainly: newer rates taken, others kept until max_age old."""

    def __init__(self, ts: int, rates: dict[str, float]) -> None:
        self.ts, self.rates, self.updated = ts, dict(rates), dict.fromkeys(rates, ts)

    def merge(self, ts: int, rates: dict[str, float], max_age: int) -> None:
        self.ts = max(self.ts, ts)
        self.rates.update(rates)
        self.updated.update(dict.fromkeys(rates, ts))
        for name in [n for n, t in self.updated.items() if t < self.ts - max_age]:
            del self.updated[name]
            self.rates.pop(name, None)


MERGES = st.lists(st.tuples(st.integers(0, 400), st.dictionaries(
    st.sampled_from([f"c{i}" for i in range(8)]), st.floats(0, 1e6, allow_nan=False), max_size=8)),
    min_size=1, max_size=30)


@given(MERGES, st.integers(1, 120))
@settings(max_examples=400)
def test_a_ports_view_keeps_what_the_plain_rule_keeps(merges: list[tuple[int, dict[str, float]]],
                                                     max_age: int) -> None:
    (ts0, rates0), rest = merges[0], merges[1:]
    view = PortRateView(ts0, {}, dict(rates0), dict.fromkeys(rates0, ts0))
    plain = _Plain(ts0, rates0)
    for ts, rates in rest:
        view.merge(ts, {}, rates, max_age)
        plain.merge(ts, rates, max_age)
        assert (view.ts_ns, view.rates, view.updated) == (plain.ts, plain.rates, plain.updated)
