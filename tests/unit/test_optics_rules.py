"""The optics rules in the detector, on hand-built intervals: hold and clear, and a hot switch as
one device finding."""

from __future__ import annotations

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval

S = 1_000_000_000
TAGS = {"fabric": "roce", "role": "leaf_down", "speed": "400G"}


def _interval(i: int, port: str, optics: dict[str, float], device: str = "leaf1") -> LinkInterval:
    start = i * 30 * S
    rates = {"in_octets": 1e9, "out_octets": 1e9, "in_pkts": 2e5, "out_pkts": 2e5}
    return LinkInterval(start, device, port, dict(TAGS), rates, optics=dict(optics), optics_ns=start + S)


def _run(frames: list[list[LinkInterval]]) -> list[list]:
    det, fb = LinkDetector(interval_s=30.0), FeatureBuilder(30.0)
    return [det.detect(fb.build(links[0].start_ns, links)) for links in frames]


LANES_OK = {f"rx_power_dbm_l{n}": -2.0 for n in range(1, 5)}


def test_a_hot_switch_is_one_device_finding_and_a_failing_lane_keeps_its_own() -> None:
    hot = {**LANES_OK, "temperature_c": 76.0}
    lane = {**hot, "rx_power_dbm_l3": -8.0}
    ports = [f"swp{n}" for n in range(1, 7)]

    def frame(i: int) -> list[LinkInterval]:
        return ([_interval(i, p, hot) for p in ports[:4]] + [_interval(i, ports[4], lane)]
                + [_interval(i, ports[5], {**LANES_OK, "temperature_c": 40.0})])

    # readings every 90 s (three intervals): one reading raises nothing, the second does
    out = _run([frame(0), frame(3), frame(6)])
    assert out[0] == []
    device = [f for f in out[1] if f.level == "device"]
    assert len(device) == 1 and device[0].ports == ports[:4]
    assert device[0].conditions == ["module_hot"] and "up to 76.0 degC" in device[0].explanation
    own = {f.port: f for f in out[1] if f.level == "link"}
    assert set(own) == {ports[4]}  # heat and a failing lane: its own finding, with both
    assert own[ports[4]].conditions == ["lane_outlier", "module_hot"]
    assert "lane 3 -8.0 dBm, 6.0 dB under its other lanes" in own[ports[4]].explanation


def test_low_rx_against_the_module_threshold_holds_and_clears_with_a_margin() -> None:
    limits = {"rx_power_dbm_low_warn": -10.0, "rx_power_dbm_low_alarm": -13.0, "rx_power_dbm_high_warn": 2.0,
              "rx_power_dbm_high_alarm": 4.0}
    readings = [-10.5, -10.6, -9.8, -9.2, -9.1]  # under, under, just over (within the margin), over, over
    frames = [[_interval(3 * i, "swp1", {**limits, "rx_power_dbm_l1": rx})] for i, rx in enumerate(readings)]
    flagged = [bool(f) and "rx_power_low" in f[0].conditions for f in _run(frames)]
    assert flagged == [False, True, True, True, False]


def test_a_pam4_link_working_its_fec_far_from_the_limit_is_background() -> None:
    """Every PAM4 link corrects errors all the time: a pre-FEC BER steady at a tenth of the RS(544,514) limit
    (2.4e-5: about 0.4 symbol errors per codeword where 15 are correctable) loses no frame, and a link's
    margin matters only within half a decade of the limit; there a warning, at half of it a critical page."""
    def frame(i: int) -> list[LinkInterval]:
        return [_interval(i, "swp1", {**LANES_OK, "pre_fec_ber": 2.6e-5}),
                _interval(i, "swp2", {**LANES_OK, "pre_fec_ber": 9e-5}),
                _interval(i, "swp3", {**LANES_OK, "pre_fec_ber": 1.3e-4})]

    out = _run([frame(3 * i) for i in range(4)])
    found = {f.port: f for f in out[-1] if "ber_high" in f.conditions}
    assert "swp1" not in found
    assert found["swp2"].severity == "warning" and found["swp3"].severity == "critical"


def test_a_manager_reading_every_poll_clears_as_fast_as_it_raises() -> None:
    """Principle 3 (a finding ends with its evidence): a manager that reads the module every 30 s (UFM's
    telemetry) gives a new reading every poll: a BER back under the limit after a repair clears after two such
    readings, as it raised; a 300 s sample re-served unchanged every poll is still one reading."""
    high, low = {**LANES_OK, "pre_fec_ber": 1.3e-4}, {**LANES_OK, "pre_fec_ber": 2e-8}
    fresh = [[_interval(i, "swp1", {**high, "pre_fec_ber": 1.3e-4 + i * 1e-7} if i < 4
                        else {**low, "pre_fec_ber": 2e-8 + i * 1e-10})] for i in range(8)]
    flagged = [bool(f) and "ber_high" in f[0].conditions for f in _run(fresh)]
    assert flagged == [False, True, True, True, True, False, False, False], flagged
    # the same reading re-served at every poll: it raises after two readings 60 s apart or more
    served = [[_interval(i, "swp1", high)] for i in range(4)]
    assert [bool(f) for f in _run(served)] == [False, False, True, True]
