"""A far device whose links all bounce within a few intervals is that device's event (a host rebooting), as its
links are heard. Which links reach it follows the fabric as it is now: a link re-cabled to another host, or one
whose target was removed, is no longer one of its links (else it would wait for ever for that link to bounce)."""

from __future__ import annotations

import numpy as np

from fabricwatch.detection.crowds import FarBounces
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval

INTERVAL = 30.0


def _links(start: int, far_of: dict[tuple[str, str], str]) -> list[LinkInterval]:
    return [LinkInterval(start, dev, port, {"role": "leaf_down", "speed": "400G", "peer_device": far},
                         {"in_octets": 1e9, "out_octets": 1e9}) for (dev, port), far in sorted(far_of.items())]


def _bounce_together(watch: FarBounces, fb: FeatureBuilder, far_of: dict[tuple[str, str], str], start: int,
                     bouncing: set[tuple[str, str]]) -> set[tuple[str, str]]:
    links = _links(start, far_of)
    bounced = np.array([(li.device, li.port) in bouncing for li in links])
    together, _ = watch.observe(fb.build(start, links), bounced)
    return {(li.device, li.port) for li, t in zip(links, together, strict=True) if t}


def test_a_link_recabled_to_another_host_is_no_longer_waited_for() -> None:
    """Principle 4 (one event per device) on a fabric that changes: host H had three links; one is re-cabled to
    host G. When H reboots, its two remaining links bouncing together are H's event."""
    watch, fb = FarBounces(), FeatureBuilder(INTERVAL)
    before = {("A", "p1"): "H", ("B", "p1"): "H", ("C", "p1"): "H", ("C", "p2"): "G"}
    for t in range(3):
        _bounce_together(watch, fb, before, t * 30_000_000_000, set())
    after = {**before, ("C", "p1"): "G"}
    h = {("A", "p1"), ("B", "p1")}
    assert _bounce_together(watch, fb, after, 4 * 30_000_000_000, h) == h


def test_a_forgotten_link_is_no_longer_waited_for() -> None:
    """Principle 4, memory follows the links: a link whose target was removed is forgotten, so the host's links
    left bouncing together are its event."""
    watch, fb = FarBounces(), FeatureBuilder(INTERVAL)
    before = {("A", "p1"): "H", ("B", "p1"): "H", ("C", "p1"): "H"}
    for t in range(3):
        _bounce_together(watch, fb, before, t * 30_000_000_000, set())
    watch.forget([("C", "p1")])
    after = {k: v for k, v in before.items() if k != ("C", "p1")}
    h = {("A", "p1"), ("B", "p1")}
    assert _bounce_together(watch, fb, after, 4 * 30_000_000_000, h) == h
