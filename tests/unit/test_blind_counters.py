"""A counter that cannot count is no evidence, for its link or as its class's expectation.

The kernel's 32-bit credit-wait counter stops at its ceiling after hours of ordinary congestion: on a
fabric where a third of the HCAs' counters are full, the class's median wait is that of the counters
that still count, never the 0 the full ones read."""

from __future__ import annotations

import numpy as np

from fabricwatch.models.features import OWN_NAMES, FeatureBuilder
from fabricwatch.models.intervals import LinkInterval

WAIT = OWN_NAMES.index("xmit_wait")


def _hcas(full: int, counting: list[float]) -> list[LinkInterval]:
    tags = {"fabric": "ib", "role": "hca", "speed": "400G"}
    links = [LinkInterval(0, f"dgx{i}", "mlx5_0", dict(tags), {"in_octets": 1e9, "out_octets": 1e9,
                                                             "xmit_wait": 0.0}, frozenset({"xmit_wait"}))
             for i in range(full)]
    links += [LinkInterval(0, f"dgx{full + i}", "mlx5_0", dict(tags), {"in_octets": 1e9, "out_octets": 1e9,
                                                                       "xmit_wait": w})
              for i, w in enumerate(counting)]
    return links


def test_the_class_expectation_is_what_the_counters_that_count_say() -> None:
    counting = [1e5, 2e5, 3e5, 4e5, 5e5, 6e5, 7e5]
    frame = FeatureBuilder(30.0).build(0, _hcas(6, counting))
    assert np.allclose(frame.class_median_raw[:, WAIT], np.median(counting), rtol=1e-6)


def test_a_full_counter_is_not_read_as_no_waits() -> None:
    frame = FeatureBuilder(30.0).build(0, _hcas(6, [1e5, 2e5, 3e5, 4e5, 5e5, 6e5, 7e5]))
    peer_dev = frame.X[:, len(OWN_NAMES) + WAIT]
    assert np.all(peer_dev[:6] == 0.0)  # no deviation from its class: nothing is known of it
