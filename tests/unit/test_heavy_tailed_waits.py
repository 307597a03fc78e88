"""Principle 2 (load is judged against the links that share its situation, and against what healthy links of
the class do): where credit waits are heavy-tailed on every port, a healthy uplink's waits per unit of load
stand 10-40x its siblings' median now and then, several intervals running. That tail, learned from healthy
history, is no finding; an uplink waiting far beyond it is. The fabric is the project's simulator."""

from __future__ import annotations

import numpy as np

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=32, rails=4, leaves_per_rail=2, spines=4)
INTERVAL = 30.0
SIGMA = 1.6  # of the log of a port's waits per unit of load: P(> 8x the median) ~ 10 % an interval
LINE = 400e9 / 8


def _heavy_tailed(links: list[LinkInterval], rng: np.random.Generator) -> None:
    for li in links:
        li.rates.setdefault("oper_status", 1.0)
        li.rates.setdefault("admin_status", 1.0)
        if li.tags.get("role") == "leaf_up":
            util = 100 * li.rates.get("out_octets", 0.0) / LINE
            li.rates["xmit_wait"] = 1e5 * util * float(rng.lognormal(0.0, SIGMA))


def _outliers(starved: tuple[str, str] | None) -> set[tuple[str, str]]:
    rng = np.random.default_rng(3)
    fb = FeatureBuilder(INTERVAL)
    frames = []
    for start, links in simulate(SPEC, 120, interval_s=INTERVAL, seed=1).frames:
        _heavy_tailed(links, rng)
        frames.append(fb.build(start, links))
    det = LinkDetector(interval_s=INTERVAL).fit(frames)
    fb = FeatureBuilder(INTERVAL)
    found: set[tuple[str, str]] = set()
    for start, links in simulate(SPEC, 60, interval_s=INTERVAL, seed=5).frames:
        _heavy_tailed(links, rng)
        for li in links:
            if (li.device, li.port) == starved:
                li.rates["xmit_wait"] *= 1000
        found |= {(f.device, p["port"]) for f in det.detect(fb.build(start, links)) for p in f.per_link()
                  if "outlier_in_group" in f.conditions}
    return found


def test_the_tail_healthy_links_of_the_class_reach_is_no_finding_and_far_beyond_it_is() -> None:
    assert _outliers(None) == set()
    up = next(li for li in simulate(SPEC, 1, interval_s=INTERVAL, seed=5).frames[0][1]
              if li.tags.get("role") == "leaf_up")
    assert _outliers((up.device, up.port)) == {(up.device, up.port)}
