"""Link detection: peer-relative features, hysteresis, rules, model files, replay."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fabricwatch.core.lineprotocol import parse_line
from fabricwatch.detection.detector import Finding, Hysteresis, LinkDetector, ModelError
from fabricwatch.detection.model_file import MODEL_VERSION
from fabricwatch.detection.rules import evaluate
from fabricwatch.lab.evaluation import Injection, simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.record import record
from fabricwatch.simulator.topology import FabricSpec
from tests.conftest import ROOT

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0


@pytest.fixture(scope="module")
def detector() -> LinkDetector:
    frames = []
    for seed in (1, 2):
        run = simulate(SPEC, 80, interval_s=INTERVAL, seed=seed)
        fb = FeatureBuilder(INTERVAL)
        frames += [fb.build(s, links) for s, links in run.frames]
    return LinkDetector(interval_s=INTERVAL).fit(frames)


LOAD = frozenset({"in_octets", "out_octets", "in_pkts", "out_pkts", "speed_bps", "oper_status", "admin_status"})


def scaled(links: list[LinkInterval], factor: float, only: set[tuple[str, str]] | None = None,
           keep: frozenset[str] = frozenset()) -> list[LinkInterval]:
    out = []
    for li in links:
        hit = only is None or (li.device, li.port) in only
        rates = {k: v if k in keep else v * factor for k, v in li.rates.items()} if hit else dict(li.rates)
        out.append(LinkInterval(li.start_ns, li.device, li.port, li.tags, rates))
    return out


def test_fabric_wide_step_is_quiet_one_link_step_is_not(detector: LinkDetector) -> None:
    """Principle 2: every link stepping up together is load; one link whose pauses and errors step up 12x
    alone at the same load (over the group rule's 8x bar per unit of load, which the forest's congestion
    causes share) is that link. (A link whose traffic steps up with its pauses carries more: polarisation.)"""
    run = simulate(SPEC, 12, interval_s=INTERVAL, seed=9)
    victim = (run.frames[0][1][0].device, run.frames[0][1][0].port)
    for only, expect in ((None, set()), ({victim}, {victim})):
        detector.reset()
        fb = FeatureBuilder(INTERVAL)
        flagged: set[tuple[str, str]] = set()
        for i, (start, links) in enumerate(run.frames):
            # from interval 6 on, PFC and every other counter x12 at the same load: on every link, or on one
            frame_links = scaled(links, 12.0, only, keep=LOAD) if i >= 6 else links
            flagged |= {(f.device, f.port) for f in detector.detect(fb.build(start, frame_links))}
        assert flagged == expect, only


class ScriptedScores(LinkDetector):
    """The detector's hysteresis on a scripted score for one link (the forest is tested above)."""

    def __init__(self, pattern: list[float], **kw) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kw)
        self.pattern = iter(pattern)

    def score(self, frame):  # type: ignore[no-untyped-def]
        scores = np.zeros(len(frame.links))
        scores[0] = next(self.pattern)
        return scores


def test_hysteresis_needs_k_of_n_and_m_clean_to_clear(detector: LinkDetector,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # the scores are scripted on a healthy link: give it a cause, so that only hysteresis decides
    import fabricwatch.detection.detector as ld

    monkeypatch.setattr(ld, "explain", lambda frame, i, **kw: ("pfc_rx 900/s, 9x its class median (100/s)", []))
    pattern = [0, 0, 3, 0, 0, 0, 3, 0, 3, 3, 0, 0, 0, 0]  # a lone spike, then 2 of 3, a gap, clear
    det = ScriptedScores(pattern, interval_s=INTERVAL, hysteresis=Hysteresis(raise_k=2, raise_n=3, clear_m=2))
    det.models = detector.models
    run = simulate(SPEC, len(pattern), interval_s=INTERVAL, seed=5)
    fb = FeatureBuilder(INTERVAL)
    victim = (run.frames[0][1][0].device, run.frames[0][1][0].port)
    active = []
    for start, links in run.frames:
        found = {(f.device, f.port) for f in det.detect(fb.build(start, links))}
        assert found <= {victim}
        active.append(victim in found)
    # raised at the second hit within 3 intervals; the clean interval between hits does not
    # clear it; two clean in a row do
    assert active == [False, False, False, False, False, False, False, False, True, True, True, False, False, False]


def test_rules_need_no_model() -> None:
    li = LinkInterval(0, "leaf", "p1", {}, {"link_downed": 0.1, "pfc_tx_p3": 25_000.0, "in_octets": 0.0},
                      frozenset({"symbol_errors"}))
    hits = evaluate(li, INTERVAL)
    assert [h.severity for h in hits] == ["critical", "warning", "critical"]
    assert "pause storm" in hits[2].reason and "saturated" in hits[1].reason


def _findings_with(detector: LinkDetector, fault: Fault) -> list[Finding]:
    """Every finding of an 8-interval run with `fault` injected from interval 3."""
    detector.reset()
    run = simulate(SPEC, 8, [Injection(fault, 3, 8)], interval_s=INTERVAL, seed=4)
    fb = FeatureBuilder(INTERVAL)
    findings = []
    for start, links in run.frames:
        findings += detector.detect(fb.build(start, links))
    return findings


def test_explanation_names_the_feature_in_numbers(detector: LinkDetector) -> None:
    findings = _findings_with(detector, Fault("pfc_storm", "leaf-r0-1", "Ethernet2"))
    # the storm rule pages at once and says why; pauses a port sends are never the model's cause
    # (its buffers fill because something else is congested): the rule owns storms
    first = findings[0]
    assert first.source == "rule" and "PFC pause storm" in first.explanation
    assert first.conditions == ["pause_storm"] and first.severity == "critical"
    assert all("pfc_tx" not in f.explanation for f in findings)
    assert {(f.device, f.port) for f in findings} == {("leaf-r0-1", "Ethernet2")}


def test_model_explanation_states_the_cause_against_its_expectation(detector: LinkDetector) -> None:
    findings = _findings_with(detector, Fault("congested", "leaf-r0-1", "Ethernet2"))
    model = [f for f in findings if "model" in f.source]
    assert model and {(f.device, f.port) for f in model} == {("leaf-r0-1", "Ethernet2")}
    f = model[0]
    assert f.top_features[0]["feature"] in {"discards", "xmit_wait"}
    assert f.top_features[0]["value"] > f.top_features[0]["expected"]
    assert "healthy links of its class at" in f.explanation and "stay under" in f.explanation


def test_model_roundtrip_and_refusals(detector: LinkDetector, tmp_path: Path) -> None:
    path = tmp_path / "m.fwm"
    detector.save(path)
    loaded = LinkDetector.load(path)
    run = simulate(SPEC, 3, interval_s=INTERVAL, seed=8)
    frame = FeatureBuilder(INTERVAL).build(*run.frames[2])
    assert np.allclose(loaded.score(frame), detector.score(frame))
    assert loaded.models.keys() == detector.models.keys()
    with zipfile.ZipFile(path) as z:
        meta = json.loads(z.read("model.json"))
        blob = z.read("forests.skops")
    assert meta["version"] == MODEL_VERSION == 4 and meta["training"]["intervals"] == 160
    old = tmp_path / "old.fwm"
    with zipfile.ZipFile(old, "w") as z:
        z.writestr("model.json", json.dumps({**meta, "version": 1}))
        z.writestr("forests.pkl", b"a pickle")
    with pytest.raises(ModelError, match="model version 1 but this fabricwatch reads version 4"):
        LinkDetector.load(old)
    damaged = tmp_path / "bad.fwm"
    with zipfile.ZipFile(damaged, "w") as z:
        z.writestr("model.json", json.dumps(meta))
        z.writestr("forests.skops", blob[:-10] + b"0123456789")
    with pytest.raises(ModelError, match="checksum"):
        LinkDetector.load(damaged)
    path.chmod(0o666)
    with pytest.raises(ModelError, match="writable by group or others"):
        LinkDetector.load(path)


class _Boom:
    """What a crafted model file would carry: an object whose unpickling runs a command."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {self.marker}",))


def test_a_crafted_model_file_runs_nothing_when_loaded(detector: LinkDetector, tmp_path: Path) -> None:
    """A model whose checksum matches its own payload (so the old check passed) and whose payload
    executes code: refused, and the command never ran, whether the payload is a pickle in the old
    entry or a skops document that asks for other types."""
    import hashlib
    import pickle

    import skops.io as sio

    marker = tmp_path / "pwned"
    good = tmp_path / "good.fwm"
    detector.save(good)
    with zipfile.ZipFile(good) as z:
        meta = json.loads(z.read("model.json"))
    payloads = {
        "forests.skops": sio.dumps({"x": _Boom(marker)}),
        "forests.pkl": pickle.dumps(_Boom(marker)),
    }
    for name, blob in payloads.items():
        evil = tmp_path / f"evil-{name}.fwm"
        with zipfile.ZipFile(evil, "w") as z:
            z.writestr("model.json", json.dumps({**meta, "sha256": hashlib.sha256(blob).hexdigest()}))
            z.writestr(name, blob)
        with pytest.raises(ModelError):
            LinkDetector.load(evil)
        assert not marker.exists(), name
    pickle.loads(payloads["forests.pkl"])  # the payload is live: what the old loader did with it
    assert marker.exists()


def test_replay_cli_on_recorded_line_protocol(tmp_path: Path) -> None:
    fabric = Fabric(FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4), seed=3,
                    start_ns=1_790_000_000_000_000_000)
    storm = Fault("pfc_storm", "leaf-r2-1", "Ethernet3")

    def inject(f: Fabric, i: int) -> None:
        if i == 300:  # after 50 minutes of healthy traffic, every 10 s
            f.inject(storm)

    lp = tmp_path / "night.lp"
    with open(lp, "w") as out:
        record(fabric, out, steps=390, step_s=10, on_step=inject)
    parse_line(lp.read_text().splitlines()[0])  # what we wrote is valid line protocol
    res = subprocess.run([sys.executable, "-m", "fabricwatch", "replay", str(lp), "--fit-first", "45m", "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    findings = [json.loads(x) for x in res.stdout.splitlines()]
    assert findings, res.stderr
    assert {(f["device"], f["port"]) for f in findings} == {("leaf-r2-1", "Ethernet3")}
    assert all(f["severity"] == "critical" and "PFC pause storm" in f["explanation"] for f in findings)
    assert all(f["conditions"] == ["pause_storm"] and f["level"] == "link" for f in findings)
    assert all(f["peer"]["device"] and f["peer"]["port"] for f in findings)  # the far end is named
    assert set(findings[0]) >= {"time", "device", "port", "score", "severity", "explanation"}


def test_a_link_over_the_threshold_but_worse_at_nothing_raises_no_finding(detector: LinkDetector) -> None:
    """Scores over the threshold on a healthy link (only quieter or differently busy than its
    peers): no finding, so no "combination of small deviations" and no "below its class median"."""
    pattern = [3] * 6
    det = ScriptedScores(pattern, interval_s=INTERVAL, hysteresis=Hysteresis(raise_k=2, raise_n=3, clear_m=2))
    det.models = detector.models
    run = simulate(SPEC, len(pattern), interval_s=INTERVAL, seed=5)
    fb = FeatureBuilder(INTERVAL)
    for start, links in run.frames:
        for f in det.detect(fb.build(start, links)):
            assert f.source != "model", f.explanation
            assert "below its class median" not in f.explanation and "small deviations" not in f.explanation


def _bounce(links: list[LinkInterval], device: str | None = None, port: str | None = None,
            transitions: float = 2.0) -> None:
    for li in links:
        if li.device == device and (port is None or li.port == port):
            li.rates["link_transitions"] = transitions / INTERVAL


def test_a_switch_reboot_is_not_forty_link_flaps_but_a_flapping_link_is_found(detector: LinkDetector) -> None:
    """Every link of a leaf going down and up once together is a reboot (or maintenance); one link
    going down and up in interval after interval is a flapping link, found within two intervals."""
    detector.reset()
    run = simulate(SPEC, 10, interval_s=INTERVAL, seed=12)
    fb = FeatureBuilder(INTERVAL)
    leaf = run.frames[0][1][0].device
    victim = next(li for li in run.frames[0][1] if li.device != leaf)
    found: list[list[Finding]] = []
    for i, (start, links) in enumerate(run.frames):
        if i == 3:
            _bounce(links, leaf)  # the reboot: all its ports, once
        if i >= 6:
            _bounce(links, victim.device, victim.port, 1.0)  # flapping: again and again
        found.append(detector.detect(fb.build(start, links)))
    assert not any(f.device == leaf and "flap" in f.conditions for fs in found for f in fs)
    assert not any(f.device == leaf and f.source != "rule" for fs in found[3:7] for f in fs)
    flagged = [i for i, fs in enumerate(found) if any((f.device, f.port) == (victim.device, victim.port)
                                                    and "flap" in f.conditions for f in fs)]
    assert flagged and flagged[0] <= 7, flagged
    flap = next(f for f in found[flagged[0]] if f.port == victim.port)
    assert "link flapped: 2 transitions in the last 120s" in flap.explanation


def test_a_load_step_on_much_of_a_class_raises_nothing(detector: LinkDetector) -> None:
    """Half of a class pausing and waiting far more than in training at the same moment (a job
    starting, an all-to-all) is load: no model finding; the same on one link whose traffic it stops is one
    (a host pausing what still flows to it paces it: `test_slow_receiver.py`)."""
    detector.reset()
    run = simulate(SPEC, 8, interval_s=INTERVAL, seed=13)
    fb = FeatureBuilder(INTERVAL)
    crowd_found, single_found = set(), set()
    for i, (start, links) in enumerate(run.frames):
        down = [li for li in links if li.tags.get("role") == "leaf_down"]
        if i >= 3:
            for li in down[: len(down) // 2]:
                li.rates["pfc_rx_p3"] = li.rates.get("pfc_rx_p3", 0.0) * 50 + 5000.0
        for f in detector.detect(fb.build(start, links)):
            if f.source != "rule":
                crowd_found.add((f.device, f.port))
    assert not crowd_found
    detector.reset()
    fb = FeatureBuilder(INTERVAL)
    run = simulate(SPEC, 8, interval_s=INTERVAL, seed=13)
    lone = next(li for li in run.frames[0][1] if li.tags.get("role") == "leaf_down")
    for i, (start, links) in enumerate(run.frames):
        if i >= 3:
            for li in links:
                if (li.device, li.port) == (lone.device, lone.port):
                    li.rates["pfc_rx_p3"] = li.rates.get("pfc_rx_p3", 0.0) * 50 + 5000.0
                    li.rates["out_octets"] = 0.001 * 400e9 / 8
        single_found |= {(f.device, f.port) for f in detector.detect(fb.build(start, links))}
    assert (lone.device, lone.port) in single_found


def test_corruption_that_persists_is_found_and_a_stray_error_is_not(detector: LinkDetector) -> None:
    """Principle: every error counter is evidence rated against the link's own background. A few FCS
    errors interval after interval on an idle link (a dirty optic at low load) is a finding named by the
    counter; one stray error on another link is what healthy links do."""
    detector.reset()
    run = simulate(SPEC, 12, interval_s=INTERVAL, seed=14)
    fb = FeatureBuilder(INTERVAL)
    dirty = run.frames[0][1][5]
    stray = run.frames[0][1][9]
    found: set[tuple[str, str]] = set()
    for i, (start, links) in enumerate(run.frames):
        for li in links:
            if (li.device, li.port) == (dirty.device, dirty.port) and i >= 2:
                li.rates["fcs_errors"] = 3 / INTERVAL
            if (li.device, li.port) == (stray.device, stray.port) and i == 4:
                li.rates["fcs_errors"] = 1 / INTERVAL
        for f in detector.detect(fb.build(start, links)):
            if "corruption" in f.conditions:
                found.add((f.device, f.port))
                assert "fcs_errors" in f.explanation and "background" in f.explanation
    assert (dirty.device, dirty.port) in found
    assert (stray.device, stray.port) not in found


def _run_with(detector: LinkDetector, seed: int, change, n: int = 10) -> list[list[Finding]]:  # type: ignore[no-untyped-def]
    """Replay a healthy simulated run through the detector, `change(i, links)` editing each interval."""
    detector.reset()
    run = simulate(SPEC, n, interval_s=INTERVAL, seed=seed)
    fb = FeatureBuilder(INTERVAL)
    found = []
    for i, (start, links) in enumerate(run.frames):
        change(i, links)
        found.append(detector.detect(fb.build(start, links)))
    return found


def _host_links(links: list[LinkInterval], host: str) -> list[LinkInterval]:
    return [li for li in links if li.tags.get("peer_device") == host]


def test_traffic_to_one_host_on_every_rail_is_load_one_nic_is_a_finding(detector: LinkDetector) -> None:
    """An incast to one host overflows its leaf ports on every rail at once (at line rate towards it, drops,
    pauses): its workload, not four link faults; the same on one of its NICs alone is that link."""
    def incast(only_one: bool):  # type: ignore[no-untyped-def]
        def change(i: int, links: list[LinkInterval]) -> None:
            if i < 3:
                return
            for li in _host_links(links, "node005")[: 1 if only_one else None]:
                li.rates["out_octets"] = 0.95 * 400e9 / 8
                li.rates["out_discards"] = 2e-4 * li.rates["out_pkts"]
                li.rates["pfc_rx_p3"] = li.rates.get("pfc_rx_p3", 0.0) * 40 + 4000.0
        return change

    found = _run_with(detector, 21, incast(False))
    flagged = {(f.device, f.port) for fs in found for f in fs if f.peer and f.peer[0] == "node005"}
    assert not flagged, flagged
    found = _run_with(detector, 21, incast(True))
    alone = {(f.device, f.port) for fs in found for f in fs if f.peer and f.peer[0] == "node005"}
    assert len(alone) == 1
    f = next(f for fs in found for f in fs if f.peer and f.peer[0] == "node005")
    assert f.top_features and f.top_features[0]["feature"] in {"discards", "pfc_rx"}


def test_both_ends_of_one_cable_are_one_finding_that_names_the_far_end(detector: LinkDetector) -> None:
    run = simulate(SPEC, 1, interval_s=INTERVAL, seed=22)
    up = next(li for li in run.frames[0][1] if li.tags.get("role") == "leaf_up")
    far = (up.tags["peer_device"], up.tags["peer_port"])

    def dirty(i: int, links: list[LinkInterval]) -> None:
        for li in links:
            if i >= 2 and (li.device, li.port) in {(up.device, up.port), far}:
                li.rates["fcs_errors"] = 40.0 if li.device == up.device else 2.0

    found = _run_with(detector, 22, dirty)
    on_cable = [f for fs in found for f in fs if (f.device, f.port) in {(up.device, up.port), far}]
    assert on_cable
    assert all((f.device, f.port) == (up.device, up.port) for f in on_cable)  # the end receiving the errors
    assert all(f.peer == far for f in on_cable)
    assert any(f"its far end {far[0]}:{far[1]} shows it too" in f.explanation for f in on_cable)
    assert all(f.to_json()["peer"] == {"device": far[0], "port": far[1]} for f in on_cable)


def test_a_link_trained_below_its_nominal_speed_is_a_finding(detector: LinkDetector) -> None:
    run = simulate(SPEC, 1, interval_s=INTERVAL, seed=23)
    victim, other, third = run.frames[0][1][7], run.frames[0][1][8], run.frames[0][1][9]

    def renegotiate(i: int, links: list[LinkInterval]) -> None:
        for li in links:
            li.rates["speed_bps"] = 400e9
            if i >= 3 and (li.device, li.port) == (victim.device, victim.port):
                li.rates["speed_bps"] = 200e9
            if (li.device, li.port) == (other.device, other.port):
                # down: the kernel's rate of a port not up (10 Gb/s) is no speed it trained to
                li.rates.update(oper_status=0.0, speed_bps=10e9)
            if (li.device, li.port) == (third.device, third.port) and i == 3:
                # one interval's mean over a sample while down (10 Gb/s) and one up again: no speed it ran at
                li.rates["speed_bps"] = 205e9

    found = _run_with(detector, 23, renegotiate, n=6)
    slow = [f for fs in found[3:] for f in fs if "speed_degraded" in f.conditions]
    assert {(f.device, f.port) for f in slow} == {(victim.device, victim.port)}
    assert all("runs at 200G, below its nominal 400G" in f.explanation for f in slow)
    assert not any("speed_degraded" in f.conditions for fs in found for f in fs
                   if (f.device, f.port) == (other.device, other.port))


def test_a_host_whose_nics_go_down_one_after_another_is_maintenance(detector: LinkDetector) -> None:
    """A firmware update takes a host's NICs down and up over a minute or two, not in one interval:
    still the host's maintenance, not flapping links; a NIC bouncing alone again and again is."""
    def update(i: int, links: list[LinkInterval]) -> None:
        nics = _host_links(links, "node007")
        for k, li in enumerate(nics):
            if i in (3 + k // 2, 5 + k // 2):  # two bounces each, staggered over the NICs
                li.rates["link_transitions"] = 2 / INTERVAL
                li.rates["in_errors"] = 3 / INTERVAL  # link training errors as it comes up

    found = _run_with(detector, 24, update)
    assert not [f for fs in found for f in fs if f.peer and f.peer[0] == "node007"]


def test_explanations_hold_only_what_makes_the_link_worse(detector: LinkDetector) -> None:
    """A link quieter than its peers in everything but one feature is explained by that one only."""
    run = simulate(SPEC, 1, interval_s=INTERVAL, seed=25)
    victim = next(li for li in run.frames[0][1] if li.tags.get("role") == "leaf_down")

    def change(i: int, links: list[LinkInterval]) -> None:
        for li in links:
            if i >= 2 and (li.device, li.port) == (victim.device, victim.port):
                for k in ("pfc_tx_p3", "ecn_marked", "in_octets", "out_octets"):
                    li.rates[k] = li.rates.get(k, 0.0) * 0.01  # quieter than its class
                li.rates["out_discards"] = 1e-3 * li.rates["out_pkts"] + 500.0

    found = [f for fs in _run_with(detector, 25, change) for f in fs if f.port == victim.port
             and f.device == victim.device and "model" in f.source]
    assert found
    for f in found:
        assert [x["feature"] for x in f.top_features] == ["discards"], f.explanation
        assert all(x["value"] > x["expected"] for x in f.top_features)


def test_the_false_alarm_budget_maps_to_the_thresholds_as_stated() -> None:
    """A budget of B false alarms a day over L links at interval T is a share B / (L * 86400 / T) of
    link-intervals; each class's thresholds are its held-out healthy scores' quantile at that share
    (the strictest grid point not above it when set later), and stricter budgets never lower them."""
    frames = []
    for seed in (1, 2):
        run = simulate(SPEC, 60, interval_s=INTERVAL, seed=seed)
        fb = FeatureBuilder(INTERVAL)
        frames += [fb.build(s, links) for s, links in run.frames]
    det = LinkDetector(interval_s=INTERVAL, false_alarms_per_day=20.0).fit(frames)
    links = det.training["links"]
    assert links == len({(li.device, li.port) for f in frames for li in f.links})
    assert det.false_alarm_rate == pytest.approx(20.0 / (links * 86400 / INTERVAL))
    for m in det.models.values():
        exact = next(t for r, t, _ in m.by_rate if r == 1e-3)  # a grid point, computed the same way
        assert m.threshold >= exact if det.false_alarm_rate <= 1e-3 else m.threshold <= exact
    before = {c: m.threshold for c, m in det.models.items()}
    rate = det.apply_budget(0.2)
    assert rate == pytest.approx(0.2 / (links * 86400 / INTERVAL))
    for c, m in det.models.items():
        want = max((g for g in m.by_rate if g[0] <= rate), key=lambda g: g[0])
        assert m.threshold == want[1] and np.array_equal(m.peer_limits, want[2])
        assert m.threshold >= before[c]
    e = det.training["expected"]
    days = e["holdout_intervals"] * INTERVAL / 86400
    assert e["pages_per_day"] == pytest.approx(e["events"] / days)


def _rail_scaled(links: list[LinkInterval], rail: str, factor: float) -> None:
    """Every link of one rail carries `factor` x the bytes, with the pauses and marks that brings."""
    for li in links:
        if li.tags.get("rail") == rail:
            for k in list(li.rates):
                if k.endswith(("octets", "pkts")):
                    li.rates[k] *= factor
                elif k.startswith(("pfc_rx_p3", "pfc_tx_p3", "ecn_")) or k == "xmit_wait":
                    li.rates[k] = li.rates[k] * factor ** 4 + 50.0  # (PFC on the lossless class only)


def test_a_hot_rail_raises_nothing_a_hot_link_on_it_does(detector: LinkDetector) -> None:
    """One rail carrying 1.5x the bytes of the others, its pauses and marks far above theirs (one
    job's traffic pattern): load, not a fault on every link of the rail."""
    found = _run_with(detector, 26, lambda i, links: _rail_scaled(links, "1", 1.5) if i >= 3 else None, n=12)
    assert not [f for fs in found for f in fs], [(f.device, f.port, f.explanation) for fs in found for f in fs][:3]


def test_polarised_uplinks_raise_nothing() -> None:
    """ECMP hashing that sends 1.8x the bytes over a few uplinks, from the start (so also in the
    training history), with the pauses that brings: that link's normal, learned as such."""
    hot: set[tuple[str, str]] = set()

    def polarise(i: int, links: list[LinkInterval]) -> None:
        if not hot:
            ups = [li for li in links if li.tags.get("role") == "leaf_up"]
            hot.update((li.device, li.port) for li in ups[::7][:3])
        for li in links:
            if (li.device, li.port) in hot:
                for k in list(li.rates):
                    if k.endswith(("octets", "pkts")):
                        li.rates[k] *= 1.8
                    elif k.startswith(("pfc_rx", "pause_")) or k == "xmit_wait":
                        li.rates[k] = li.rates[k] * 12 + 800.0

    frames = []
    for seed in (1, 2):
        run = simulate(SPEC, 80, interval_s=INTERVAL, seed=seed)
        fb = FeatureBuilder(INTERVAL)
        for i, (s, links) in enumerate(run.frames):
            polarise(i, links)
            frames.append(fb.build(s, links))
    det = LinkDetector(interval_s=INTERVAL).fit(frames)
    found = _run_with(det, 27, polarise, n=12)
    assert not [f for fs in found for f in fs if (f.device, f.port) in hot]


def test_a_dirty_optic_is_found_at_full_load_as_at_idle(detector: LinkDetector) -> None:
    """Corruption is a fraction of the frames received, whatever the load: at full load that is many
    errors a second, and a busy link must not hide it."""
    run = simulate(SPEC, 1, interval_s=INTERVAL, seed=28)
    victim = next(li for li in run.frames[0][1] if li.tags.get("role") == "leaf_up")

    def busy_and_dirty(i: int, links: list[LinkInterval]) -> None:
        _rail_scaled(links, victim.tags["rail"], 1.6)  # its whole rail saturated
        for li in links:
            if i >= 3 and (li.device, li.port) == (victim.device, victim.port):
                li.rates["fcs_errors"] = 2e-7 * li.rates["in_pkts"]  # 2 in 10 million frames

    found = _run_with(detector, 28, busy_and_dirty)
    hits = [i for i, fs in enumerate(found) if any((f.device, f.port) == (victim.device, victim.port) for f in fs)]
    assert hits and hits[0] <= 5, hits
    f = next(f for f in found[hits[0]] if f.port == victim.port)
    assert "errors" in f.explanation


def _dual_homed_and_lone(links: list[LinkInterval]) -> tuple[str, list[tuple[str, str]], tuple[str, str]]:
    """A host kept on two of its leaf ports (on two leaves), those ports, and a port of another host on a third
    leaf."""
    hosts = sorted({li.tags["peer_device"] for li in links if li.tags.get("role") == "leaf_down"})
    dual, other = hosts[0], hosts[1]
    kept = sorted((li.device, li.port) for li in links if li.tags.get("peer_device") == dual)[:2]
    assert kept[0][0] != kept[1][0]
    lone = min((li.device, li.port) for li in links if li.tags.get("peer_device") == other
               and li.device not in (kept[0][0], kept[1][0]))
    return dual, kept, lone


@pytest.mark.parametrize("in_turn", [False, True])
def test_a_host_with_two_nics_rebooting_is_not_two_link_flaps(detector: LinkDetector, in_turn: bool) -> None:
    """Principle 4: every link of a device going down and up once together is that device's event (a host
    rebooting), however few links it has: a storage node dual-homed on two leaves, both its links bouncing once
    together, is no flap on either, also where the two leaves are polled in turn (each heard every other
    interval, the bounce in the first report of each); one of a host's four links bouncing alone is still one."""
    detector.reset()
    run = simulate(SPEC, 12, interval_s=INTERVAL, seed=12)
    fb = FeatureBuilder(INTERVAL)
    dual, kept, lone = _dual_homed_and_lone(run.frames[0][1])
    found: list[list[Finding]] = []
    said: set[tuple[str, str]] = set()
    for i, (start, links) in enumerate(run.frames):
        links = [li for li in links if li.tags.get("peer_device") != dual or (li.device, li.port) in kept]
        if in_turn:
            silent = kept[i % 2][0]
            links = [li for li in links if li.device != silent]
        if i >= 3:
            for li in links:
                key = (li.device, li.port)
                if (key in kept or key == lone) and key not in said:
                    li.rates["link_transitions"] = 2.0 / INTERVAL
                    said.add(key)
        found.append(detector.detect(fb.build(start, links)))
    flapped = {(f.device, f.port) for fs in found for f in fs if "flap" in f.conditions}
    assert not flapped & set(kept), flapped
    assert lone in flapped


def _nic_ports(start: int, host: str, toward: list[tuple[str, str]]) -> list[LinkInterval]:
    """The host's own NIC ports as its exporter reports them, one per leaf port it reaches."""
    return [LinkInterval(start, host, f"mlx5_{k}", {"fabric": "roce", "role": "host", "speed": "400G",
                                                    "peer_device": dev, "peer_port": port},
                         {"in_octets": 1e9, "out_octets": 1e9, "in_pkts": 2e5, "out_pkts": 2e5, "oper_status": 1.0})
            for k, (dev, port) in enumerate(toward)]


def test_a_link_that_bounces_while_its_far_host_is_unheard_is_that_hosts_restart(detector: LinkDetector) -> None:
    """Principle 4 with state as a signal (5): a host that stops reporting is down (rebooting, powered off), and
    its links going down and coming back up while it is unheard are its restart, not their flaps, even where
    each leaf says its port went down in one poll and came back in a later one. A host heard throughout whose
    link goes down and comes back is the link's flap."""
    detector.reset()
    run = simulate(SPEC, 18, interval_s=INTERVAL, seed=12)
    fb = FeatureBuilder(INTERVAL)
    rebooting, kept, lone = _dual_homed_and_lone(run.frames[0][1])
    heard = next(li.tags["peer_device"] for li in run.frames[0][1] if (li.device, li.port) == lone)
    bounce = {kept[0]: (4, 8), kept[1]: (5, 9), lone: (4, 6)}  # the interval each said down, and up
    flagged: set[tuple[str, str]] = set()
    for i, (start, links) in enumerate(run.frames):
        links = [li for li in links if li.tags.get("peer_device") != rebooting or (li.device, li.port) in kept]
        links = [li for li in links if li.device != kept[(i + 1) % 2][0]]  # the leaf pair is polled in turn
        links += _nic_ports(start, heard, [lone])
        if not 3 <= i < 11:  # unheard from interval 3 to 10: rebooting
            links += _nic_ports(start, rebooting, kept)
        for li in links:
            down, up = bounce.get((li.device, li.port), (-1, -1))
            if i in (down, up):
                li.rates["link_transitions"] = 1.0 / INTERVAL
            if down <= i < up:
                li.rates["oper_status"] = 0.0
                for c in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                    li.rates[c] = 0.0
        flagged |= {(f.device, f.port) for f in detector.detect(fb.build(start, links))}
    assert not flagged & set(kept), flagged
    assert lone in flagged
