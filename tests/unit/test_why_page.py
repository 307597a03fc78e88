"""`why --html`: each plot's label states the values it draws, as the text output does."""

from __future__ import annotations

import re

from fabricwatch.postmortem.html import timeline_page
from fabricwatch.postmortem.queries import LinkReport
from fabricwatch.postmortem.store import Window
from fabricwatch.postmortem.timeline import Timeline

T0 = 1_700_000_000_000_000_000
STEP = 10_000_000_000


def _page(mine: dict[str, list[float | None]], peer: dict[str, list[float | None]] | None) -> str:
    times = [T0 + i * STEP for i in range(4)]
    rep = LinkReport(device="leaf1", port="swp3", tags={"role": "leaf_down", "peer_device": "node7",
                                                         "peer_port": "eth0"},
                     step_s=10.0, times=times, mine=mine, peer=peer, events=[])
    return timeline_page(Timeline(at_ns=times[1], window=Window(times[0], times[-1]), report=rep))


def _labels(page: str) -> dict[str, str]:
    """Each plot's title text, by its aria-label."""
    return dict(re.findall(r'<svg [^>]*aria-label="([^"]+)">.*?<text x="4" y="14">([^<]*)</text>', page))


SERIES = ("gbps_in", "gbps_out", "pauses", "ecn", "errors")


def test_an_all_zero_plot_says_max_0_not_max_1() -> None:
    mine: dict[str, list[float | None]] = {s: [0.0, 0.0, None, 0.0] for s in SERIES}
    mine["gbps_in"] = [12.5, 40.0, None, 3.0]
    page = _page(mine, None)
    labels = _labels(page)
    assert labels["errors/s"] == "errors/s (max 0)", labels
    assert labels["pause frames/s"] == "pause frames/s (max 0)", labels
    assert labels["Gb/s in"] == "Gb/s in (max 40)", labels


def test_the_label_names_each_ends_maximum_and_no_data_as_such() -> None:
    mine: dict[str, list[float | None]] = {s: [0.0, 0.0, 0.0, 0.0] for s in SERIES}
    peer: dict[str, list[float | None]] = {s: [None, None, None, None] for s in SERIES}
    peer["errors"] = [0.0, 2.0, 0.5, 0.0]
    mine["pauses"] = [None, None, None, None]
    labels = _labels(_page(mine, peer))
    assert labels["errors/s"] == "errors/s (max 0; far end max 2)", labels
    assert labels["pause frames/s"] == "pause frames/s (no data)", labels
