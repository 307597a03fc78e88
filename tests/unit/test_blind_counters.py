"""A counter that cannot count is no evidence, for its link or as its class's expectation.

The kernel's 32-bit credit-wait counter stops at its ceiling after hours of ordinary congestion: on a
fabric where many of the HCAs' counters are full, the class's median wait is that of the counters that
still count, never the 0 the full ones read, and a full one is no deviation from its class."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fabricwatch.detection.replay import intervals_from_lp
from fabricwatch.models.features import OWN_NAMES, FeatureBuilder

WAIT = OWN_NAMES.index("xmit_wait")
COUNTING = [1e5, 2e5, 3e5, 4e5, 5e5, 6e5, 7e5]  # ticks/s of the HCAs whose counters still count


def _frames(tmp_path: Path) -> list:
    """Six HCAs whose port_transmit_wait sits at 2**32 - 1 and seven that count, as node_exporter gives them."""
    lines = []
    for i in range(8):
        t = i * 30_000_000_000
        for h in range(13):
            wait = 2**32 - 1 if h < 6 else int(COUNTING[h - 6] * 30 * i)
            lines.append(f"port_counters,device=dgx{h},fabric=ib,port=mlx5_0,role=hca,speed=400G "
                         f"port_data_received_bytes_total={10**10 * i},port_transmit_wait_total={wait} {t}")
    path = tmp_path / "hcas.lp"
    path.write_text("\n".join(lines) + "\n")
    fb = FeatureBuilder(30.0)
    return [fb.build(start, links) for start, links in intervals_from_lp([path], 30.0)]


def test_the_class_expectation_is_what_the_counters_that_count_say(tmp_path: Path) -> None:
    frame = _frames(tmp_path)[-1]
    assert np.allclose(frame.class_median_raw[:, WAIT], np.median(COUNTING), rtol=1e-3)


def test_a_full_counter_is_not_read_as_no_waits(tmp_path: Path) -> None:
    frame = _frames(tmp_path)[-1]
    full = [i for i, li in enumerate(frame.links) if li.device in {f"dgx{h}" for h in range(6)}]
    assert len(full) == 6
    assert np.all(frame.X[full, len(OWN_NAMES) + WAIT] == 0.0)  # no deviation from its class: nothing known


def test_traffic_no_counter_can_tell_is_unknown_not_stopped_nor_idle() -> None:
    """Unknown is not zero: a spine port whose octet counters cannot count (32-bit on 400G, no rate) receiving
    pauses is no storm "while it carries nothing", and is no shortfall "while its siblings carry": nothing says
    it carries nothing. The same port with its octets counted at 0 is both."""
    from fabricwatch.detection.explain import under_group
    from fabricwatch.detection.rules import evaluate
    from fabricwatch.lab.evaluation import simulate
    from fabricwatch.models.class_model import UTIL
    from fabricwatch.simulator.topology import FabricSpec

    start, links = simulate(FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4), 1, interval_s=30.0,
                            seed=5).frames[0]
    for li in links:
        for k in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
            li.rates[k] = 0.4 * 400e9 / 8
    port = next(li for li in links if li.device == "spine-0")
    port.rates["pfc_rx_p3"] = 20_000.0
    port.rates.pop("util_pct", None)  # the simulator's own figure: here the load is what the octets say
    for blind in (True, False):
        for k in ("in_octets", "out_octets"):
            if blind:
                port.rates.pop(k, None)
            else:
                port.rates[k] = 0.0
        port.saturated = frozenset({"in_octets", "out_octets"}) if blind else frozenset()
        storm = [h for h in evaluate(port, 30.0) if h.condition == "pause_storm"]
        frame = FeatureBuilder(30.0).build(start, links)
        i = next(k for k, li in enumerate(frame.links) if li is port)
        short = under_group(frame, i, float(np.nan_to_num(frame.own_raw[i, UTIL])))
        assert (storm == [] and short is None) if blind else (storm != [] and short is not None), (blind, storm, short)


def test_links_whose_load_is_unknown_are_not_judged_as_idle_peers_of_each_other() -> None:
    """Unknown is not zero, in a crowd too: where a whole line card's octet counters cannot count, those ports'
    load is unknown, not that of the idle ports they would be binned with; a feature they lack sits at what their
    class's ports of known load show, and none of them is a shortfall against its busy siblings."""
    from fabricwatch.detection.explain import under_group
    from fabricwatch.lab.evaluation import simulate
    from fabricwatch.models.class_model import UTIL
    from fabricwatch.simulator.topology import FabricSpec

    start, links = simulate(FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4), 1, interval_s=30.0,
                            seed=5).frames[0]
    blind = [li for li in links if li.device == "spine-0"]
    for li in links:
        li.rates.pop("util_pct", None)
        for k in ("in_octets", "out_octets"):
            li.rates[k] = 0.4 * 400e9 / 8
    for li in blind:
        for k in ("in_octets", "out_octets"):
            li.rates.pop(k)
        li.saturated = frozenset({"in_octets", "out_octets"})
    frame = FeatureBuilder(30.0).build(start, links)
    rows = [i for i, li in enumerate(frame.links) if li.device == "spine-0"]
    assert len(rows) >= 8
    assert all(frame.own_raw[i, UTIL] == pytest.approx(40.0, rel=0.05) for i in rows), frame.own_raw[rows, UTIL]
    assert all(under_group(frame, i, float(frame.own_raw[i, UTIL])) is None for i in rows)
