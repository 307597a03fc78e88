"""Principles 3 and 5: a link that went down and came back may carry another module (an optic swapped, a
cable reseated). What its physical layer said before, its BER history, its raised optics conditions, its
slow signals' baselines, belongs to what was there before: it is judged afresh, not paged for the module
that was taken out."""

from __future__ import annotations

import numpy as np

from fabricwatch.detection.optics import OpticsWatch
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.trends import TrendWatch

STEP_NS = 90 * 10**9  # one reading every 90 s (the optics' own pace)
KEY = ("spine-1", "Ethernet7")


def _reading(i: int, up: bool, **optics: float) -> LinkInterval:
    return LinkInterval(i * STEP_NS, *KEY, {"role": "spine", "speed": "400G"}, {"oper_status": 1.0 if up else 0.0},
                        optics=dict(optics), optics_ns=i * STEP_NS + 1)


def test_a_swapped_module_is_not_paged_for_the_ber_of_the_one_taken_out() -> None:
    watch = OpticsWatch()
    raised_before = False
    for i in range(80):  # BER rising 1e-8 -> ~1e-4 over two hours: the old module ageing
        watch.observe([_reading(i, True, pre_fec_ber=1e-8 * 10 ** (i / 20))], i * STEP_NS + 1)
        raised_before |= "ber_rising" in {h.condition for h in watch.hits(KEY)}
    assert raised_before
    watch.observe([_reading(80, False)], 80 * STEP_NS + 1)  # swapped: down for a reading, no light
    watch.observe([_reading(81, True, pre_fec_ber=2e-8)], 81 * STEP_NS + 1)  # the new module, clean
    assert watch.hits(KEY) == []


def test_a_new_module_running_warmer_than_the_old_one_is_no_trend() -> None:
    watch = TrendWatch()
    for i in range(60):
        watch.observe([_reading(i, True, temperature_c=45.0)])
    watch.observe([_reading(60, False)])
    raised = {}
    for i in range(61, 120):  # another model of module: 12 degC warmer, steady
        raised |= watch.observe([_reading(i, True, temperature_c=57.0)])
    assert KEY not in raised


def test_a_ber_of_zero_as_the_link_comes_back_is_no_level_to_judge_the_next_readings_by() -> None:
    """The device's BER window restarts with the link: its first reading is 0, the next half the port's usual
    level or less as the window fills, then the level (1e-7, wandering by a factor of 1.5) comes back. That is no
    rise: a baseline starts from what the link reads as it settles, not from its first reading."""
    rng = np.random.default_rng(2)
    watch = TrendWatch()
    raised = {}
    for i in range(120):
        # back from down, the window fills: 0, then half the level, then the level again
        ber = 0.0 if i in (40, 41) else 4e-8 if i == 42 else 1e-7 * rng.lognormal(0, 0.2)
        raised |= watch.observe([_reading(i, i != 40, pre_fec_ber=ber)])
    assert KEY not in raised
