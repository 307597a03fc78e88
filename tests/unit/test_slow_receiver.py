"""Principle 2 (load is judged against what the traffic does): flow control that lets the traffic through is
doing its job. A host that asks its leaf port to pause now and then while the port keeps sending it what
it can take (a slow receiver: host memory, a storage node's disks) paces its own traffic; the link is
healthy. Pauses that stop the traffic (a NIC stuck sending pause: its port sends nothing) are a storm."""

from __future__ import annotations

import numpy as np
import pytest

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
TRAIN, N, AT = 40, 70, 50


def _found(pauses_per_s: float, sends_share: float) -> tuple[tuple[str, str], set[tuple[str, str]]]:
    run = simulate(SPEC, N, interval_s=INTERVAL, seed=5)
    bad = next(li for li in run.frames[0][1] if li.tags.get("role") == "leaf_down")
    key = (bad.device, bad.port)
    rng = np.random.default_rng(5)
    fb = FeatureBuilder(INTERVAL)
    frames = []
    for i, (start, links) in enumerate(run.frames):
        for li in links:
            if (li.device, li.port) == key and i >= AT:
                li.rates["pfc_rx_p3"] = pauses_per_s * rng.uniform(0.5, 1.5)  # the host asks it to pause
                li.rates["out_octets"] = sends_share * 400e9 / 8  # what the port sends the host, of its line rate
        frames.append(fb.build(start, links))
    det = LinkDetector(interval_s=INTERVAL).fit(frames[:TRAIN])
    det.reset()
    flagged = {(f.device, f.port) for fr in frames[AT:] for f in det.detect(fr)}
    return key, flagged


@pytest.mark.parametrize("pauses_per_s", [800.0, 5000.0])
def test_a_host_pacing_the_traffic_it_is_sent_is_no_fault_of_its_link(pauses_per_s: float) -> None:
    key, flagged = _found(pauses_per_s, sends_share=0.4)
    assert key not in flagged


def test_pauses_that_stop_the_traffic_are_a_storm() -> None:
    key, flagged = _found(40_000.0, sends_share=0.0005)
    assert key in flagged
