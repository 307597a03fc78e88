"""Trends before thresholds: slow signals against the link's own baseline (principle 3)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.trends import TrendWatch

STEP_NS = 30 * 10**9


def _reading(i: int, port: str, **optics: float) -> LinkInterval:
    return LinkInterval(i * STEP_NS, "leaf1", port, {"role": "leaf_up"}, {}, optics=dict(optics),
                        optics_ns=i * STEP_NS + 1)


def test_a_module_heating_for_an_hour_is_warned_about_long_before_any_limit() -> None:
    """Principle 3: a module heating from 55 to 78 degC over an hour (its warning threshold at 80 never
    reached, no error yet) is an early warning named by its temperature; a healthy module whose
    temperature wanders 3 degC with its load for the same hour is not."""
    rng = np.random.default_rng(4)
    watch = TrendWatch()
    warned_at = None
    healthy_flagged = False
    for i in range(240):
        heating = 55.0 + max(0, i - 120) * (23.0 / 120) + rng.normal(0, 0.5)
        wander = 55.0 + 3.0 * np.sin(i / 7) + rng.normal(0, 0.5)
        raised = watch.observe([_reading(i, "hot", temperature_c=heating),
                                _reading(i, "fine", temperature_c=wander)])
        if ("leaf1", "hot") in raised and warned_at is None:
            warned_at = i
            assert "temperature_c" in raised[("leaf1", "hot")][0].reason
            assert raised[("leaf1", "hot")][0].condition == "trend"
        healthy_flagged |= ("leaf1", "fine") in raised
    assert warned_at is not None and warned_at - 120 <= 60  # within half an hour of the heating's start
    assert not healthy_flagged


def test_a_module_cooling_back_once_its_airflow_is_restored_is_no_longer_warned_about() -> None:
    """Principle 3, worsening only: a module that heated 35 degC and is cooling back fast once its airflow is
    restored is the change ending, not going on; its warning stops as soon as it has come back half a material step
    from its worst, though it still stands well above its usual. A module that holds its heat, wandering 0.5 degC
    around its worst, is still warned about on every reading."""
    rng = np.random.default_rng(8)
    watch = TrendWatch()
    cooled: list[int] = []
    held: list[int] = []
    for i in range(260):
        heat = 35.0 * min(1.0, max(0, i - 100) / 90)
        cooling = heat - (2.5 * (i - 200) if i > 200 else 0.0)
        raised = watch.observe([_reading(i, "cools", temperature_c=45.0 + max(cooling, 0.0) + rng.normal(0, 0.3)),
                                _reading(i, "holds", temperature_c=45.0 + heat + rng.normal(0, 0.5))])
        if ("leaf1", "cools") in raised:
            cooled.append(i)
        if ("leaf1", "holds") in raised:
            held.append(i)
    assert cooled and min(cooled) < 150, cooled
    assert max(cooled) <= 202, max(cooled)  # 3 degC back from its worst: no longer
    assert held[-1] == 259 and held == list(range(held[0], 260)), held


def test_corrected_codewords_rising_are_warned_about_before_errors_get_through() -> None:
    """Principle 3: FEC corrected codewords rising x1.05 an interval (an ageing optic, errors still all
    corrected) are a warning within a few minutes; a steady count with 5 % noise never is."""
    rng = np.random.default_rng(5)
    watch = TrendWatch()
    first = None
    steady_flagged = False
    for i in range(200):
        rising = 150.0 * (1.05 ** max(0, i - 100)) * rng.lognormal(0, 0.05)
        steady = 150.0 * rng.lognormal(0, 0.05)
        raised = watch.observe([_reading(i, "aging", fec_corrected=rising),
                                _reading(i, "steady", fec_corrected=steady)])
        if ("leaf1", "aging") in raised and first is None:
            first = i
        steady_flagged |= ("leaf1", "steady") in raised
    assert first is not None and first - 100 <= 20
    assert not steady_flagged


def test_a_stale_reading_is_not_a_new_step() -> None:
    """A module read every few minutes travels with every interval: only a fresh reading moves the trend."""
    watch = TrendWatch()
    for i in range(30):
        watch.observe([_reading(i, "p", temperature_c=50.0)])
    hot = LinkInterval(30 * STEP_NS, "leaf1", "p", {}, {}, optics={"temperature_c": 70.0}, optics_ns=1)
    for _ in range(30, 40):
        assert not watch.observe([hot])


def test_no_light_from_a_dark_far_end_is_a_state_not_an_ageing_module() -> None:
    """Principles 3 and 5: a module that reads no light (the floor, -40 dBm) while its far end is down (a
    switch rebooting, a pulled cable) says nothing of its ageing; that is the link's state, judged as such.
    A receive power sliding 3 dB is still an ageing warning."""
    watch = TrendWatch()
    flagged: set[str] = set()
    for i in range(60):
        dark = -1.5 if not 30 <= i < 45 else -40.0
        sliding = -1.5 - max(0, i - 30) * 0.3
        down = {"oper_status": 0.0} if 30 <= i < 45 else {"oper_status": 1.0}
        links = [_reading(i, "dark", rx_power_dbm_l1=dark),
                 _reading(i, "down", rx_power_dbm_l1=-1.5 - 5.0 * (30 <= i < 45)),
                 _reading(i, "sliding", rx_power_dbm_l1=sliding)]
        links[1].rates.update(down)
        flagged |= {port for _, port in watch.observe(links)}
    assert flagged == {"sliding"}


def _switch(i: int, temps: dict[str, float]) -> list[LinkInterval]:
    return [_reading(i, port, temperature_c=t) for port, t in temps.items()]


def test_what_a_whole_switch_warms_by_is_its_air_not_one_modules_ageing() -> None:
    """Principles 2 and 3: a slow signal every module of a switch shares at once (its inlet air by day, a
    rack's cooling failing: +10 degC over 20 minutes and back) is the switch's; a module's own trend is what
    it does apart from its switch's other modules. One module heating 0.4 degC a minute on a switch whose
    modules swing 6 degC with the day is warned about within 25 minutes (+10 degC); the others never are."""
    rng = np.random.default_rng(7)
    watch = TrendWatch()
    ports = [f"Ethernet{k}" for k in range(12)]
    warned: dict[str, int] = {}
    for i in range(400):
        day = 6.0 * np.sin(i / 60)  # the inlet air, shared
        cooling = 10.0 * min(1.0, max(0.0, (i - 150) / 40)) * (1.0 if i < 230 else max(0.0, 1 - (i - 230) / 40))
        temps = {p: 50.0 + k + day + cooling + rng.normal(0, 0.3) for k, p in enumerate(ports)}
        temps["Ethernet5"] += 0.2 * max(0, i - 300)  # 0.4 degC a minute at 30 s readings
        for _, port in watch.observe(_switch(i, temps)):
            warned.setdefault(port, i)
    assert set(warned) == {"Ethernet5"}, warned
    assert warned["Ethernet5"] - 300 <= 50


def _first_warned(step_s: float, hours: float, start_h: float, decades_per_h: float) -> float | None:
    """Hours after `start_h` at which a pre-FEC BER rising `decades_per_h` from then on (5 % noise), read every
    `step_s` seconds, is first warned about; None if never. A steady link beside it must never be."""
    rng = np.random.default_rng(11)
    watch = TrendWatch()
    step_ns = int(step_s * 1e9)
    for i in range(int(hours * 3600 / step_s)):
        h = i * step_s / 3600
        rising = 1e-7 * 10 ** (decades_per_h * max(0.0, h - start_h)) * rng.lognormal(0, 0.05)
        links = [LinkInterval(i * step_ns, "leaf1", p, {"role": "leaf_up"}, {}, optics={"pre_fec_ber": v},
                              optics_ns=i * step_ns + 1)
                 for p, v in (("ageing", rising), ("steady", 1e-7 * rng.lognormal(0, 0.05)))]
        raised = watch.observe(links)
        assert ("leaf1", "steady") not in raised
        if ("leaf1", "ageing") in raised:
            return h - start_h
    return None


def test_a_slow_ramp_outruns_the_baseline_whatever_the_polling_rate() -> None:
    """Principle 3: the baseline follows what is steady over hours, not over a number of readings. A BER rising
    a third of a decade an hour (x1,000 over 9 h: an optic ageing through a working day) is warned about within
    about an hour of its start, polled every 30 s or every 10 s alike; a baseline that followed the last 100
    readings would trail such a ramp by less than the material step and never see it."""
    for step_s in (30.0, 10.0):
        warned = _first_warned(step_s, hours=6.0, start_h=2.0, decades_per_h=1 / 3)
        assert warned is not None and warned <= 1.5, (step_s, warned)


def test_every_lane_of_a_module_is_watched_whichever_way_its_laser_drifts() -> None:
    """Principle 3: a module's lanes are lasers and receivers of their own; one failing lane is its own slow
    signal, whichever lane it is. A laser on lane 3 of an 8-lane module whose bias current falls 2.5 mA and whose
    transmit power falls 2.5 dB over 40 minutes (the others steady) is warned about, by its lane, before the
    ramp ends; a laser on lane 6 of another module drawing 2.5 mA more (compensating its ageing) too; the
    lanes that wander together with the module's temperature never are."""
    rng = np.random.default_rng(13)
    watch = TrendWatch()
    warned: dict[str, tuple[int, str]] = {}
    for i in range(300):
        temp_wander = 0.3 * np.sin(i / 20)
        ramp = min(1.0, max(0.0, (i - 200) / 80))
        readings = []
        for port, lane_n, sign in (("falling", 3, -1.0), ("rising", 6, 1.0), ("fine", 0, 0.0)):
            optics: dict[str, float] = {}
            for n in range(1, 9):
                drift = 2.5 * ramp * sign if n == lane_n else 0.0
                optics[f"tx_bias_ma_l{n}"] = 7.0 + temp_wander + drift + rng.normal(0, 0.05)
                optics[f"tx_power_dbm_l{n}"] = (0.5 + (drift if sign < 0 else 0.0) + rng.normal(0, 0.05))
                optics[f"rx_power_dbm_l{n}"] = -1.0 + rng.normal(0, 0.05)
            readings.append(_reading(i, port, **optics))
        for (_, port), hits in watch.observe(readings).items():
            warned.setdefault(port, (i, hits[0].reason))
    assert set(warned) == {"falling", "rising"}, warned
    assert warned["falling"][0] < 280 and "_l3" in warned["falling"][1], warned
    assert warned["rising"][0] < 280 and "_l6" in warned["rising"][1], warned


def test_a_reading_taken_between_two_intervals_counters_is_still_a_reading() -> None:
    """Principle 3: modules polled apart from the counters (DOM every 5 minutes, counters every minute, at
    other moments) hand their reading to the link's next interval, stamped with when it was taken, which is
    before that interval began. Each such reading is new and moves the trend once: a receive power sliding
    1 dB every reading is warned about within a few readings."""
    watch = TrendWatch()
    warned = None
    for k in range(40):
        i = 10 * k + 1  # the interval after the one the module was read in
        taken_ns = (i - 1) * STEP_NS + 5 * 10**9
        power = -0.5 - max(0, k - 20) * 1.0
        li = LinkInterval(i * STEP_NS, "leaf1", "p", {"role": "leaf_up"}, {}, optics={"rx_power_dbm_l4": power},
                          optics_ns=taken_ns)
        if ("leaf1", "p") in watch.observe([li]) and warned is None:
            warned = k
    assert warned is not None and warned - 20 <= 6, warned


def test_what_a_switch_shares_is_read_from_its_modules_latest_readings() -> None:
    """Principles 2 and 3: a switch's modules read at moments of their own (one or two per interval) still share
    the switch's air: what they share is judged from each module's latest reading, whenever taken, so a day
    warming the whole switch 8 degC is no module's trend, read in any order; one module heating apart is."""
    rng = np.random.default_rng(17)
    watch = TrendWatch()
    ports = [f"Ethernet1/{k}" for k in range(1, 7)]
    warned: dict[str, int] = {}
    for i in range(600):
        day = 8.0 * np.sin(i / 90)
        port = ports[i % len(ports)]  # one module read per interval, in turn
        k = ports.index(port)
        t = 45.0 + k + day + rng.normal(0, 0.2) + (0.1 * max(0, i - 450) if port == "Ethernet1/4" else 0.0)
        for _, p in watch.observe([_reading(i, port, temperature_c=t)]):
            warned.setdefault(p, i)
    assert set(warned) == {"Ethernet1/4"}, warned


def _steady_then(watch: TrendWatch, start: int, n: int, temp: float) -> int | None:
    """Readings of one module at `temp` from reading `start` on: the first reading warned about, if any."""
    for i in range(start, start + n):
        if ("leaf1", "p") in watch.observe([_reading(i, "p", temperature_c=temp)]):
            return i - start
    return None


def test_baselines_learned_from_the_healthy_history_travel_with_the_model_file() -> None:
    """Principle 3: the baselines a model learned are part of it. A daemon started from the model file warns
    about a module already 10 degC over what the healthy history read at its first readings (the hold alone),
    not after a warm-up that takes the drifted value as the module's usual."""
    import json

    from fabricwatch.models.trends import TrendWatch as Watch

    learned = Watch()
    assert _steady_then(learned, 0, 30, 50.0) is None
    loaded = Watch.from_json(json.loads(json.dumps(learned.baselines().to_json())))
    assert _steady_then(loaded, 40, 10, 60.0) == 2  # the third reading away: HOLD readings in a row
    assert _steady_then(Watch(), 40, 20, 60.0) is None  # from nothing, 60 degC is where it starts


def test_a_baseline_not_read_for_a_day_starts_again() -> None:
    """A module unheard for a day may be another module (swapped while nothing watched): its old baseline is no
    expectation of the new one, whose first readings are where it starts."""
    learned = TrendWatch()
    _steady_then(learned, 0, 30, 50.0)
    day = int(86400 * 10**9 / STEP_NS) + 40
    assert _steady_then(learned.baselines(), day, 20, 60.0) is None


def test_a_daemon_started_from_a_model_file_warns_at_once_about_a_module_that_drifted(tmp_path: Path) -> None:
    """Principle 3 through the model file: the detector's saved baselines are what its loaded copy judges against."""
    from fabricwatch.detection.detector import LinkDetector
    from fabricwatch.lab.evaluation import simulate
    from fabricwatch.models.features import FeatureBuilder
    from fabricwatch.simulator.topology import FabricSpec

    frames = simulate(FabricSpec(nodes=8, rails=2, spines=2), 40, interval_s=30.0, seed=3).frames
    hot = (frames[0][1][0].device, frames[0][1][0].port)
    for k, (start, links) in enumerate(frames):
        for li in links:
            li.optics = {"temperature_c": 50.0 + 12.0 * (k >= 34 and (li.device, li.port) == hot)}
            li.optics_ns = start + 1
    fb = FeatureBuilder(30.0)
    LinkDetector(interval_s=30.0).fit([fb.build(s, links) for s, links in frames[:30]]).save(tmp_path / "m.fwm")
    det = LinkDetector.load(tmp_path / "m.fwm")
    warned = [k for k, (s, links) in enumerate(frames[30:], 30)
              if any((f.device, f.port) == hot and "temperature_c" in f.explanation
                     for f in det.detect(fb.build(s, links)))]
    assert warned and warned[0] <= 34 + 3, warned


def _fabric(i: int, temps: dict[str, dict[str, float]], role: str = "leaf_down") -> list[LinkInterval]:
    return [LinkInterval(i * STEP_NS, device, port, {"role": role}, {}, optics={"temperature_c": t},
                         optics_ns=i * STEP_NS + 1)
            for device, ports in temps.items() for port, t in ports.items()]


def test_a_switch_warming_apart_from_the_other_switches_is_its_cooling() -> None:
    """Principles 3 and 4: what every module of a switch shares is the switch's, and the switch is judged against
    the other switches as a module is against its switch's modules. Every module of one leaf warming 20 degC over
    an hour (a fan failing; no error yet) while the other leaves' modules swing 6 degC with the day is one
    warning about that switch, raised on its modules within 25 minutes; a day warming every switch alike is
    none, nor is a whole switch warming 2 degC with its load."""
    rng = np.random.default_rng(19)
    watch = TrendWatch()
    leaves = {f"leaf{k}": [f"Ethernet{p}" for p in range(8)] for k in range(6)}
    warned: dict[tuple[str, str], tuple[int, str]] = {}
    for i in range(400):
        day = 6.0 * np.sin(i / 80)
        temps = {d: {p: 48.0 + j + day + rng.normal(0, 0.3) for j, p in enumerate(ports)}
                 for d, ports in leaves.items()}
        for p in temps["leaf4"]:
            temps["leaf4"][p] += 2.0 * min(1.0, max(0.0, (i - 100) / 20))  # its load: 2 degC, then steady
        for p in temps["leaf2"]:
            temps["leaf2"][p] += 20.0 / 120 * max(0, i - 250)  # its fan: 20 degC an hour
        for key, hits in watch.observe(_fabric(i, temps)).items():
            warned.setdefault(key, (i, hits[0].reason))
    assert {d for d, _ in warned} == {"leaf2"}, warned
    assert len(warned) == len(leaves["leaf2"])  # on each of its modules: one device finding lists them
    first, reason = min(warned.values())
    assert first - 250 <= 50, first
    assert "other switches" in reason, reason


def test_switches_warming_together_are_the_room_not_each_switch() -> None:
    """Principle 2: several switches warming together at once (a row's cooling, a room's air) share what
    they have in common; judged apart from each other, none of them is a switch's own cooling."""
    rng = np.random.default_rng(23)
    watch = TrendWatch()
    leaves = {f"leaf{k}": [f"Ethernet{p}" for p in range(8)] for k in range(6)}
    warned = set()
    for i in range(400):
        temps = {d: {p: 48.0 + j + rng.normal(0, 0.3) for j, p in enumerate(ports)} for d, ports in leaves.items()}
        for d in ("leaf0", "leaf1", "leaf2"):
            for p in temps[d]:
                temps[d][p] += 20.0 / 120 * max(0, i - 250)
        warned |= {d for d, _ in watch.observe(_fabric(i, temps))}
    assert not warned, warned


def test_a_rack_warming_is_the_rack_even_when_one_of_its_switches_warms_less() -> None:
    """Principle 2: heat two switches share at one moment is their air (a rack's door cooler, a row), not one
    switch's fan, even where the other warms by a little less than the material step (it stands on the cold side
    of the rack): a switch is alone only when no other switch moved the same way by a third as much, then."""
    rng = np.random.default_rng(31)
    watch = TrendWatch()
    leaves = {f"leaf{k}{s}": [f"swp{p}" for p in range(8)] for k in range(5) for s in "ab"}
    warned = set()
    for i in range(300):
        temps = {d: {p: 40.0 + j + rng.normal(0, 0.3) for j, p in enumerate(ports)} for d, ports in leaves.items()}
        rack = min(1.0, max(0.0, (i - 200) / 10))
        for d, rise in (("leaf3a", 5.5), ("leaf3b", 9.0)):
            for p in temps[d]:
                temps[d][p] += rise * rack
        warned |= {d for d, _ in watch.observe(_fabric(i, temps))}
    assert not warned, warned


def test_a_switch_warming_alone_is_one_device_finding_listing_its_modules() -> None:
    """Principle 4 through the detector: a switch whose modules all warm apart from the other switches is one
    page, a device finding listing its modules, not a page per module."""
    from fabricwatch.detection.detector import LinkDetector
    from fabricwatch.lab.evaluation import simulate
    from fabricwatch.models.features import FeatureBuilder
    from fabricwatch.simulator.topology import FabricSpec

    frames = simulate(FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4), 90, interval_s=30.0, seed=3).frames
    leaf = next(li.device for li in frames[0][1] if li.tags.get("role") == "leaf_up")
    rng = np.random.default_rng(29)
    for k, (start, links) in enumerate(frames):
        for j, li in enumerate(links):
            fan = 0.4 * max(0, k - 40) if li.device == leaf else 0.0
            li.optics = {"temperature_c": 45.0 + j % 7 + fan + float(rng.normal(0, 0.2))}
            li.optics_ns = start + 1
    fb = FeatureBuilder(30.0)
    det = LinkDetector(interval_s=30.0).fit([fb.build(s, links) for s, links in frames[:30]])
    det.reset()
    warming = [f for s, links in frames[30:] for f in det.detect(fb.build(s, links)) if "switch_trend" in f.conditions]
    assert warming and {f.device for f in warming} == {leaf}, warming
    # a module of it past its own limit says so on its own (module_hot), the trend with it; the trend alone is the
    # device's
    assert all(f.level == "device" and f.port == "*" for f in warming if f.conditions == ["switch_trend"]), warming
    assert all("module_hot" in f.conditions for f in warming if f.level == "link"), warming
    modules = {li.port for li in frames[0][1] if li.device == leaf}
    assert set(warming[0].ports) == modules
