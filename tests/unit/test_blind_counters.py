"""A counter that cannot count is no evidence, for its link or as its class's expectation.

The kernel's 32-bit credit-wait counter stops at its ceiling after hours of ordinary congestion: on a
fabric where many of the HCAs' counters are full, the class's median wait is that of the counters that
still count, never the 0 the full ones read, and a full one is no deviation from its class."""

from __future__ import annotations

from pathlib import Path

import numpy as np

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
