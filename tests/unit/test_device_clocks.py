"""A device whose clock is off (NTP broken): its links are scored beside their peers, once an
interval, as if its clock were right; the offset is on /metrics. Before, a device 300 s behind had
its links scored alone, once per sample (three times an interval)."""

from __future__ import annotations

import asyncio
import collections

from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, generate_latest

from fabricwatch.detection.clocks import DeviceClocks
from fabricwatch.detection.config import DetectorConfig
from fabricwatch.detection.metrics import DetectorMetrics
from fabricwatch.detection.service import DetectorService
from fabricwatch.models.intervals import LinkInterval

S = 1_000_000_000
T0 = 1_700_000_000 * S


async def _nothing(lines: list[str]) -> None:
    return None


def test_a_device_minutes_behind_is_scored_beside_its_peers_once_an_interval() -> None:
    now = [T0]
    service = DetectorService(DetectorConfig(interval=30.0), _nothing, clock=lambda: now[0])
    frames: list[tuple[int, list[LinkInterval]]] = []
    score = service._score

    def recording(start: int, links: list[LinkInterval]):  # type: ignore[no-untyped-def]
        frames.append((start, links))
        return score(start, links)

    service._score = recording  # type: ignore[method-assign]

    async def run() -> None:
        for k in range(40):  # a sample every 10 s for 400 s
            now[0] = T0 + k * 10 * S
            for device, skew in (("right", 0), ("behind", -300 * S), ("ahead", 200 * S)):
                for p in range(4):
                    service.add(device, f"p{p}", now[0] + skew, {"in_octets": 1e6 * (p + 1)}, {"role": "leaf"}, [],
                                span_ns=10 * S)
            await service.process(now[0])

    asyncio.run(run())
    starts = [start for start, _ in frames]
    assert len(starts) >= 10 and len(set(starts)) == len(starts)  # one frame an interval
    for start, links in frames[1:]:  # the first may hold part of a device's first interval only
        per_device = collections.Counter(li.device for li in links)
        assert per_device == {"right": 4, "behind": 4, "ahead": 4}, (start, per_device)
        for li in links:
            assert abs(li.rates["in_octets"] - 1e6 * (int(li.port[1:]) + 1)) < 1e-6 * 4e6
    registry = CollectorRegistry()
    registry.register(DetectorMetrics(service))
    text = generate_latest(registry).decode()
    assert 'fabricwatch_device_clock_offset_seconds{device="behind"} 300.0' in text
    assert 'fabricwatch_device_clock_offset_seconds{device="ahead"} -200.0' in text
    assert 'device="right"' not in text.split("fabricwatch_device_clock_offset_seconds", 1)[1].split("# HELP")[0]


@settings(max_examples=200, deadline=None)
@given(skew_s=st.integers(-86_400, 86_400), delays_ms=st.lists(st.integers(0, 5_000), min_size=2, max_size=30),
       tolerance_s=st.sampled_from([10.0, 30.0, 60.0]))
def test_placed_times_stay_near_this_host_and_keep_a_device_s_spacing(
        skew_s: int, delays_ms: list[int], tolerance_s: float) -> None:
    """Samples every 10 s from a device whose clock is `skew_s` off, arriving a few seconds late: each
    is placed within the tolerance of this host's clock, and consecutive placements keep the device's
    own spacing unless the offset had to be taken again."""
    now = [T0]
    clocks = DeviceClocks(tolerance_s, clock=lambda: now[0])
    placed = []
    for k, delay in enumerate(delays_ms):
        stamp = T0 + k * 10 * S + skew_s * S
        now[0] = T0 + k * 10 * S + delay * 1_000_000
        before = dict(clocks.offsets_ns)
        t = clocks.place("sw", stamp)
        assert abs(now[0] - t) <= tolerance_s * S
        if clocks.offsets_ns == before and placed:
            assert t - placed[-1][0] == stamp - placed[-1][1]  # the device's own spacing
        placed.append((t, stamp))
    if abs(skew_s) * S <= tolerance_s * S - 5 * S:  # within the tolerance whatever the delays: never moved
        assert clocks.offsets_ns == {} and all(t == stamp for t, stamp in placed)
