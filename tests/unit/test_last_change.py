"""Principle 5 (state is a signal) and 1 (a known input is read): a port that goes down for a few seconds
between two polls is up at every poll, but IF-MIB's ifLastChange (the agent's uptime at the port's last state
change) moves. A port whose last change moved has bounced, whether or not a poll caught it down: a port in
a flap loop is a flap finding; one whose last change stays put is not, nor one whose last change moved once
(at least one change, perhaps a planned one: one bounce is no flap)."""

from __future__ import annotations

from pathlib import Path

from fabricwatch.detection.detector import LinkDetector
from fabricwatch.detection.interval_fold import ReplayReport, intervals_from_files
from fabricwatch.models.features import FeatureBuilder

TAGS = "fabric=roce,role=leaf_down,speed=400G"
STEP = 30_000_000_000
N, TRAIN, FROM = 120, 80, 95


def _write(path: Path) -> None:
    lines = []
    for k in range(N):
        t = 1_700_000_000_000_000_000 + k * STEP
        for port in range(1, 9):
            octets = k * 30 * 10**10 + port
            # port 3 bounces between polls every interval from FROM: its last change moves; port 5 bounces once
            last = 4242 + (3000 * (k - FROM + 1) if port == 3 and k >= FROM else 0) + (
                3000 if port == 5 and k >= FROM + 5 else 0)
            lines.append(f"port_counters,device=leaf1,port=Ethernet{port},peer_device=host{port},{TAGS} "
                         f"ifHCInOctets={octets}i,ifHCOutOctets={octets}i,ifHCInUcastPkts={k * 30 * 10**6}i,"
                         f"ifHCOutUcastPkts={k * 30 * 10**6}i,ifInErrors=0i,ifOperStatus=1i,ifAdminStatus=1i,"
                         f"ifLastChange={last}i {t}")
    path.write_text("\n".join(lines) + "\n")


def test_a_port_whose_last_change_keeps_moving_flaps_though_every_poll_finds_it_up(tmp_path: Path) -> None:
    path = tmp_path / "snmp.lp"
    _write(path)
    report = ReplayReport()
    windows = [w for chunk in intervals_from_files([path], 30.0, report=report) for w in chunk]
    assert "ifLastChange" not in report.unread_fields
    fb = FeatureBuilder(30.0)
    frames = [fb.build(w.start_ns, w.links) for w in windows]
    det = LinkDetector(interval_s=30.0).fit(frames[:TRAIN])
    det.reset()
    flaps = {(f.device, f.port) for fr in frames[TRAIN:] for f in det.detect(fr) if "flap" in f.conditions}
    assert flaps == {("leaf1", "Ethernet3")}
