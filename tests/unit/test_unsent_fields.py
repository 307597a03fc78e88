"""A counter a series stops sending while the series keeps reporting is unchanged, not unknown.

Principle checked (the same through every path): Telegraf's dedup processor and gNMI's suppress-redundant send a
field only when it changes. A recording made that way reads as the full recording does, in both folds: a quiet
counter is zero in the intervals it was not sent (an error burst ends when it ends, not when the counter is next
heard), and its first change after a quiet stretch longer than the gap limit has a rate at once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricwatch.detection.interval_fold import intervals_from_files
from fabricwatch.detection.replay import intervals_from_lp

STEP_S = 15
STORM = range(2350, 2800)  # s: pauses at 1,000/s; the quiet counter last re-sent 550 s before


def _pauses(t: int) -> int:
    return 1000 * max(0, min(t, STORM.stop) - STORM.start)


def _rows(end_s: int = 3600) -> list[tuple[int, dict[str, int]]]:
    return [(t, {"rx_bytes_phy": t * 10**9, "rx_crc_errors_phy": 3, "tx_prio3_pause": 50 + _pauses(t)})
            for t in range(0, end_s, STEP_S)]


def _lines(rows: list[tuple[int, dict[str, int]]], dedup: bool, resend_s: int = 600) -> list[str]:
    """Telegraf's dedup: a field is sent when it changed since last sent, or `resend_s` after it was."""
    sent: dict[str, tuple[int, int]] = {}
    out = []
    for t, fields in rows:
        keep = {k: v for k, v in fields.items()
                if not dedup or k not in sent or sent[k][0] != v or t - sent[k][1] >= resend_s}
        for k, v in keep.items():
            sent[k] = (v, t)
        if keep:
            out.append("ethtool,host=gpu1,interface=mlx5_0 " + ",".join(f"{k}={v}i" for k, v in keep.items())
                       + f" {t * 10**9}")
    return out


def _intervals(path: Path, fold: str) -> list[dict[str, float]]:
    ivs = (list(intervals_from_lp([path], 30.0)) if fold == "samples"
           else [iv for part in intervals_from_files([path], 30.0, chunk_bytes=2000) for iv in part])
    return [{k: v for k, v in li.rates.items() if k in ("in_octets", "pfc_tx_p3", "fcs_errors")}
            for iv in ivs for li in iv[1]]


@pytest.mark.parametrize("fold", ["samples", "columns"])
def test_a_deduplicated_recording_reads_as_the_full_one(tmp_path: Path, fold: str) -> None:
    full, dedup = tmp_path / "full.lp", tmp_path / "dedup.lp"
    full.write_text("\n".join(_lines(_rows(), dedup=False)) + "\n")
    dedup.write_text("\n".join(_lines(_rows(), dedup=True)) + "\n")
    expected = _intervals(full, fold)
    assert any(r.get("pfc_tx_p3") == pytest.approx(1000.0) for r in expected)
    got = _intervals(dedup, fold)
    assert len(got) == len(expected)
    for want, have in zip(expected, got, strict=True):
        assert have.keys() == want.keys()
        assert all(have[k] == pytest.approx(want[k]) for k in want)
