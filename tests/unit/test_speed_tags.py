"""Bad input gets a clear answer, and a known one is read: a port's nominal speed as the topology or a
collector tags it: "400G", "100000M", and InfiniBand's generation names as UFM's `active_speed` gives
them (a 4x port: HDR is 200G, NDR 400G; HDR100 is a split 2x HDR port). Anything else is the default,
never an exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricwatch.models.features import OWN_NAMES, FeatureBuilder, parse_speed
from fabricwatch.models.intervals import LinkInterval


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


@pytest.mark.parametrize(("speed_tag", "trained_bps", "util"), [
    (None, 800e9, 87.5),  # no tag: the speed the port reports it trained to is its line rate
    ("800G", 400e9, 87.5),  # a tag names the line rate (a port trained under it is the speed rule's to judge)
    (None, None, 175.0),  # neither: the default line rate (400G)
])
def test_a_links_load_is_over_the_speed_it_is_tagged_with_else_the_speed_it_reports(
        speed_tag: str | None, trained_bps: float | None, util: float) -> None:
    """Principle 2 (load judged at the same moment) needs each link's load as a share of its line rate: a
    collector that tags no nominal speed but reports the speed the port trained to (SONiC's `speed`, a NIC's
    `speed_bytes`) gives the line rate; 700 Gb/s on an 800G port is 87.5 % of it, not 175 % of the default."""
    rates = {"in_octets": 700e9 / 8, "out_octets": 1e9, "in_pkts": 1e6, "out_pkts": 1e6}
    if trained_bps is not None:
        rates["speed_bps"] = trained_bps
    tags = {"role": "leaf_up"} if speed_tag is None else {"role": "leaf_up", "speed": speed_tag}
    frame = FeatureBuilder(30.0).build(0, [LinkInterval(0, "sw", "p1", tags, rates)])
    assert frame.own_raw[0, OWN_NAMES.index("util_pct")] == pytest.approx(util)
    assert frame.line_bps[0] == pytest.approx(700e9 * 100 / util)
