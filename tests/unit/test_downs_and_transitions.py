"""A link's bounces are judged the same whether its port counts carrier transitions (Ethernet) or
downs (InfiniBand's LinkDownedCounter, which the IB collectors turn into transitions too)."""

from __future__ import annotations

from pathlib import Path

from fabricwatch.collectors.ibdiag.config import IbDiagConfig
from fabricwatch.collectors.transitions import with_transitions
from fabricwatch.core.batch import PortSample, SampleBatch
from fabricwatch.detection.rules import evaluate
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.pipeline.pipeline import Pipeline
from tests.ibtools import ib_stand_ins

INTERVAL = 10.0


def _rates(counts: dict[str, int]) -> dict[str, float]:
    """An IB port's counts over one interval, as the collectors hand them on, as rates."""
    values: dict[str, int | float] = dict(counts)
    with_transitions(values)
    return {k: v / INTERVAL for k, v in values.items()}


def test_an_ib_port_counting_downs_carries_twice_as_many_transitions() -> None:
    values: dict[str, int | float] = {"link_downed": 3, "symbol_errors": 0}
    with_transitions(values)
    assert values["link_transitions"] == 6
    # a port that counts its transitions itself keeps its own count
    own: dict[str, int | float] = {"link_downed": 3, "link_transitions": 5}
    with_transitions(own)
    assert own["link_transitions"] == 5


def test_one_bounce_is_the_same_finding_over_ethernet_and_infiniband() -> None:
    """Principle: the same fault through every path. One down and one up is a reboot or maintenance
    (a warning at most); an IB port that went down once must not page critical where an Ethernet
    port that went down once does not."""
    ethernet = LinkInterval(0, "leaf", "swp1", {}, {"link_transitions": 2 / INTERVAL}, frozenset())
    infiniband = LinkInterval(0, "leaf", "1", {}, _rates({"link_downed": 1}), frozenset())
    eth = [(h.severity, h.condition) for h in evaluate(ethernet, INTERVAL)]
    ib = [(h.severity, h.condition) for h in evaluate(infiniband, INTERVAL)]
    assert eth == ib == [("warning", "flap")]


def test_a_flapping_link_is_critical_over_ethernet_and_infiniband() -> None:
    """Principle: the same fault through every path: down and up again and again is a flap, critical."""
    ethernet = LinkInterval(0, "leaf", "swp1", {}, {"link_transitions": 2 / INTERVAL}, frozenset())
    infiniband = LinkInterval(0, "leaf", "1", {}, _rates({"link_downed": 1}), frozenset())
    for li in (ethernet, infiniband):
        hits = evaluate(li, INTERVAL, recent_flaps=6)
        assert ("critical", "flap") in [(h.severity, h.condition) for h in hits], li.port


async def test_ibdiag_samples_carry_transitions_from_their_downs(fixtures: Path, tmp_path: Path) -> None:
    """Principle: the same fault through every path. perfquery's LinkDownedCounter is what UFM and
    sysfs count: an ibdiag sample carries the transitions the flap rule reads, as theirs do."""
    disc, perf = ib_stand_ins(tmp_path, fixtures)
    [collector] = IbDiagConfig(ibnetdiscover=[disc, "-p"], perfquery=[perf, "-x", "{lid}"], timeout=5.0).build()
    async with collector:
        batch = await collector.poll()
    downs = [s for s in batch.samples if "link_downed" in s.values]
    assert downs, "the recorded perfquery outputs count LinkDownedCounter"
    for s in downs:
        assert s.values["link_transitions"] == 2 * s.values["link_downed"], (s.device, s.port)


def test_an_ib_flap_event_names_the_counter_the_device_keeps() -> None:
    """The link event of an IB port's flap says link_downed rose (what the switch counted), not the
    transitions a collector derived from it."""
    s = 1_000_000_000

    def ib(ts: int, downed: int) -> SampleBatch:
        values: dict[str, int | float] = {"link_downed": downed}
        with_transitions(values)
        return SampleBatch("ufm", "ufm", [PortSample("leaf1", "1", ts * s, dict(values), {"fabric": "ib"})])

    p = Pipeline()
    p.process(ib(0, 2))
    out = p.process(ib(10, 3))
    assert [(e.kind, e.detail) for e in out.events] == [("flap", "link_downed rose")]


def test_a_recording_that_counts_only_downs_flaps_as_the_collectors_read_it(tmp_path: Path) -> None:
    """Principle 6, the same through every path: an ibdiagnet sweep recorded by another tool counts only
    LinkDownedCounter, as the IB collectors read it before they add the transitions; replayed, a port that went
    down once a minute for five minutes is a flap (critical) as through the collectors, and its neighbour that
    went down once is not paged critical."""
    from fabricwatch.detection.detector import LinkDetector
    from fabricwatch.detection.replay import intervals_from_lp
    from fabricwatch.models.features import FeatureBuilder

    lines = []
    for i in range(16):
        t = 1_700_000_000_000_000_000 + i * 60_000_000_000
        flapping = min(max(i - 5, 0), 5)
        once = 1 if i >= 8 else 0
        for port, downs in (("58", flapping), ("57", once)):
            lines.append(f"ibdiag_port,node_desc=MF0;ib-l04:MQM9700/U1,port_num={port} "
                         f"port_xmit_data={10**12 * i}i,port_rcv_data={10**12 * i}i,link_downed_counter={downs}i,"
                         f"port_state=4i {t}")
    path = tmp_path / "sweep.lp"
    path.write_text("\n".join(lines) + "\n")
    det = LinkDetector(interval_s=60.0)
    fb = FeatureBuilder(60.0)
    found: dict[str, set[str]] = {"57": set(), "58": set()}
    for start, links in intervals_from_lp([path], 60.0):
        for f in det.detect(fb.build(start, links)):
            for line in f.per_link():
                found[str(line["port"])].add(f.severity)
    assert "critical" in found["58"], found
    assert "critical" not in found["57"], found
