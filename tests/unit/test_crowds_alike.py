"""Principle 2 (load is judged against the links that share its situation now): a loss far away reaches many
links at once, each about alike; one link showing far more than the rest is not of their crowd."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fabricwatch.detection.crowds import alike


def test_one_link_retrying_a_thousand_times_is_no_crowd_of_healthy_links_retrying_a_few() -> None:
    values = np.array([3.0, 4.0, 1200.0, 0.0])
    over = np.array([True, True, True, False])
    assert alike(values, over, 8.0).tolist() == [True, True, False, False]


def test_a_link_alone_over_is_no_crowd() -> None:
    assert not alike(np.array([50.0, 50.0]), np.array([True, False]), 8.0).any()


@given(st.lists(st.tuples(st.floats(0.5, 1e6), st.booleans()), max_size=30), st.floats(1.0, 100.0))
def test_a_row_is_alike_exactly_when_another_over_row_is_within_the_margin(
        rows: list[tuple[float, bool]], margin: float) -> None:
    values = np.array([v for v, _ in rows])
    over = np.array([o for _, o in rows], dtype=bool)
    got = alike(values, over, margin)
    for i, (v, o) in enumerate(rows):
        want = o and any(j != i and oj and v / margin <= vj <= v * margin for j, (vj, oj) in enumerate(rows))
        assert got[i] == want
