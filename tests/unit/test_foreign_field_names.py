"""Bad input gets a clear answer, and a known one is read: InfiniBand PortCounters recorded by another tool
under the names perfquery, the kernel's sysfs counters and Telegraf's infiniband input use (port_xmit_data,
port_rcv_pkts, port_xmit_wait, port_rcv_errors...) are read as fabricwatch's own counters, the data counters
in their unit (4-octet words), by the batch replay and the sample path alike, and none is named unread."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.detection.interval_fold import ReplayReport, intervals_from_files
from fabricwatch.detection.replay import intervals_from_lp

TAGS = "device=leaf-1,port=3,fabric=ib,role=leaf_down,peer_device=host-1,peer_port=mlx5_0,speed=200G"
STEP_NS = 15_000_000_000


def _write(path: Path, words_per_s: int, waits_per_s: int, errors_every: int, steps: int = 12) -> None:
    lines = []
    for k in range(steps):
        t = 1_700_000_000_000_000_000 + k * STEP_NS
        lines.append(
            f"port_counters,{TAGS} port_xmit_data={k * 15 * words_per_s}i,port_rcv_data={k * 15 * words_per_s * 2}i,"
            f"port_xmit_pkts={k * 1500}i,port_rcv_pkts={k * 3000}i,port_xmit_wait={k * 15 * waits_per_s}i,"
            f"port_rcv_errors={k // errors_every}i,port_xmit_discards=0i,symbol_error=0i,link_downed=0i,"
            f"oper_status=1i,admin_status=1i {t}")
    path.write_text("\n".join(lines) + "\n")


def _rates(intervals: list) -> dict[str, float]:
    last = [li for _, links in intervals for li in links][-1]
    return dict(last.rates)


@settings(max_examples=15, deadline=None)
@given(words=st.integers(1, 10**9), waits=st.integers(0, 10**6), every=st.integers(1, 5))
def test_ib_port_counters_under_their_own_names_are_read_in_octets(tmp_path_factory: pytest.TempPathFactory,
                                                                    words: int, waits: int, every: int) -> None:
    path = tmp_path_factory.mktemp("lp") / "ib.lp"
    _write(path, words, waits, every)
    report = ReplayReport()
    batch = [iv for chunk in intervals_from_files([path], 30.0, report=report) for iv in chunk]
    sample = intervals_from_lp([path], 30.0)
    for rates in (_rates([(w.start_ns, w.links) for w in batch]), _rates(sample)):
        assert rates["out_octets"] == pytest.approx(4 * words)
        assert rates["in_octets"] == pytest.approx(8 * words)
        assert rates["out_pkts"] == pytest.approx(100.0)
        assert rates["xmit_wait"] == pytest.approx(waits)
        assert "rcv_errors" in rates and "symbol_errors" in rates and "xmit_discards" in rates
    assert not set(report.unread_fields) & {"port_xmit_data", "port_rcv_data", "port_xmit_wait", "port_rcv_errors",
                                            "port_xmit_pkts", "port_rcv_pkts", "symbol_error", "port_xmit_discards"}


def test_the_canonical_name_wins_where_a_line_carries_both(tmp_path: Path) -> None:
    path = tmp_path / "both.lp"
    lines = [f"port_counters,{TAGS} out_octets={k * 15 * 1000}i,port_xmit_data={k * 15 * 7}i "
             f"{1_700_000_000_000_000_000 + k * STEP_NS}" for k in range(6)]
    path.write_text("\n".join(lines) + "\n")
    batch = [iv for chunk in intervals_from_files([path], 30.0) for iv in chunk]
    assert _rates([(w.start_ns, w.links) for w in batch])["out_octets"] == pytest.approx(1000.0)
    assert _rates(intervals_from_lp([path], 30.0))["out_octets"] == pytest.approx(1000.0)
