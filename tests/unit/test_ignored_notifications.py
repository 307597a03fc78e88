"""A sender that ignores most of the congestion notifications it receives does no congestion control: a NIC
with DCQCN off for its traffic sends on at full rate into a congested queue. Healthy NICs ignore a small share
of their CNPs (more of them under a burst, when many arrive at once); what tells the misconfigured one is the
share it ignores, not that its counter moved. Principle 1 (impact as a share) applied to congestion control."""

from __future__ import annotations

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.lab.evaluation import simulate
from fabricwatch.models.features import FeatureBuilder
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.simulator.topology import FabricSpec

SPEC = FabricSpec(nodes=16, rails=2, spines=4)
INTERVAL = 30.0


def _with_nics(links: list[LinkInterval], start: int, burst: bool, ignoring: str | None) -> list[LinkInterval]:
    """Eight hosts' NICs as their exporter reports them: each handles the CNPs its congested flows get and
    ignores a few in a thousand, many more of both under a burst."""
    nics = []
    for k in range(8):
        handled = (30_000.0 if burst else 300.0) + 10 * k
        rates = {"in_octets": 2e10, "out_octets": 2e10, "in_pkts": 5e6, "out_pkts": 5e6, "oper_status": 1.0,
                 "cnp_handled": handled, "cnp_ignored": handled * 0.002, "cnp_sent": 250.0}
        if f"gpu{k}" == ignoring:
            rates["cnp_handled"], rates["cnp_ignored"] = 0.5, handled
        nics.append(LinkInterval(start, f"gpu{k}", "mlx5_0", {"fabric": "roce", "role": "host", "speed": "400G",
                                                               "peer_device": f"leaf{k}", "peer_port": "p1"}, rates))
    return links + nics


def test_a_nic_ignoring_most_notifications_is_found_and_a_burst_ignoring_a_few_is_not() -> None:
    fb = FeatureBuilder(INTERVAL)
    frames = simulate(SPEC, 80, interval_s=INTERVAL, seed=4).frames
    det = LinkDetector(interval_s=INTERVAL).fit([fb.build(s, _with_nics(links, s, False, None))
                                                 for s, links in frames[:60]])
    found = [det.detect(fb.build(s, _with_nics(links, s, 4 <= i < 9, "gpu3" if i >= 12 else None)))
             for i, (s, links) in enumerate(frames[60:])]
    named = {(f.device, f.port, n) for n, fs in enumerate(found) for f in fs if "congestion_control" in f.conditions}
    assert {(d, p) for d, p, _ in named} == {("gpu3", "mlx5_0")}, named
    assert min(n for *_, n in named) <= 12 + 1
    assert not any(f.device.startswith("gpu") for fs in found[:12] for f in fs), found[:12]
