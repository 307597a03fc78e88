"""Bad input gets a clear answer, and a known one is read: a port's nominal speed as the topology or a
collector tags it: "400G", "100000M", and InfiniBand's generation names as UFM's `active_speed` gives
them (a 4x port: HDR is 200G, NDR 400G; HDR100 is a split 2x HDR port). Anything else is the default,
never an exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricwatch.models.features import parse_speed


@pytest.mark.parametrize(("tag", "bps"), [
    ("400G", 400e9), ("100000M", 100e9), ("0.8T", 800e9), ("EDR", 100e9), ("HDR", 200e9), ("hdr", 200e9),
    ("NDR", 400e9), ("XDR", 800e9), ("HDR100", 100e9), ("NDR200", 200e9), ("FDR", 56e9), ("QDR", 40e9),
])
def test_known_speed_tags(tag: str, bps: float) -> None:
    assert parse_speed(tag) == pytest.approx(bps)


@given(st.text(max_size=12))
def test_any_tag_is_a_speed_or_the_default(tag: str) -> None:
    value = parse_speed(tag, default_bps=1.0)
    assert isinstance(value, float) and value == value and value >= 0
