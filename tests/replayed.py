"""A few polls of line protocol written to a file and read back as replay reads it, by either reader."""

from __future__ import annotations

from pathlib import Path

from fabricwatch.detection.interval_fold import ReplayReport, intervals_from_files
from fabricwatch.detection.replay import intervals_from_lp
from fabricwatch.models.intervals import LinkInterval


def last_links(tmp_path: Path, reader: str, lines: list[str], polls: int = 3,
               t0: int = 1_700_000_000) -> dict[tuple[str, str], LinkInterval]:
    """The last interval's links as `reader` ("columns" or "samples") reads `polls` polls of `lines` (a line per
    series without its timestamp, `{n}` the poll's number), 30 s apart."""
    path = tmp_path / "polls.lp"
    path.write_text("".join(f"{line.format(n=n)} {t0 + 30 * n}000000000\n"
                            for n in range(1, polls + 1) for line in lines))
    if reader == "columns":
        last = [w.links for chunk in intervals_from_files([path], 30.0, report=ReplayReport()) for w in chunk][-1]
    else:
        last = intervals_from_lp([path], 30.0)[-1][1]
    return {(li.device, li.port): li for li in last}
