"""The live view's "top links by pause and error rate": a training job pauses its links in bursts
(all-reduce) with quiet compute phases between them, so the rate of the last poll alone is 0 on every
busy link a third of the time. The ranking and the numbers shown go by the last minute."""

from __future__ import annotations

from rich.console import Console

from fabricwatch.cli.demo import top_links_table
from fabricwatch.core.batch import PortSample, SampleBatch
from fabricwatch.pipeline.history import LinkHistory
from fabricwatch.pipeline.pipeline import Pipeline
from fabricwatch.pipeline.ranking import worst_links

S = 1_000_000_000
BUSY = [("leaf-r0-0", f"swp{i}") for i in range(1, 5)]
IDLE = [("leaf-r2-0", f"Ethernet{i}") for i in range(1, 13)]


def _fed(until_s: int) -> Pipeline:
    """Polls every 2 s; the busy ports pause 600 frames/s in 4 s bursts, then 2 s of compute (none)."""
    pipe = Pipeline(history=LinkHistory(step_s=5, slots=720))
    pfc = {k: 0.0 for k in BUSY}
    for t in range(0, until_s + 1, 2):
        if t and (t % 6) != 0:  # the 2 s ending at a multiple of 6 are compute: no pause
            for k in BUSY:
                pfc[k] += 600 * 2
        for device in ("leaf-r2-0", "leaf-r0-0"):  # the idle first: a tie keeps them ahead
            samples = [PortSample(d, p, t * S, {"in_octets": t * 1e9, "out_octets": t * 1e9,
                                                "pfc_rx_p3": pfc.get((d, p), 0.0), "pfc_tx_p3": 0.0,
                                                "in_errors": 0.0})
                       for d, p in IDLE + BUSY if d == device]
            pipe.process(SampleBatch("gnmi", device, samples))
    return pipe


def test_a_busy_link_in_a_compute_phase_still_ranks_above_idle_ones() -> None:
    pipe = _fed(60)  # t = 60 s ends a compute phase: the last poll saw no pause on any link
    assert all(pipe.latest[k].rates["pfc_rx_p3"] == 0.0 for k in BUSY)
    top = worst_links(pipe.latest, history=pipe.history, limit=4)
    assert sorted(k for k, _ in top) == sorted(BUSY)


def test_the_table_shows_the_last_minutes_pauses_of_the_links_it_ranks() -> None:
    pipe = _fed(60)
    console = Console(width=160, record=True)
    console.print(top_links_table(pipe.latest, pipe.history, {}, ib=False))
    text = console.export_text()
    rows = [line for line in text.splitlines() if "leaf-r" in line]
    assert len(rows) == 10 and all("leaf-r0-0" in r for r in rows[:4]), text
    assert all(" 600 " in r for r in rows[:4]), text  # pauses/s, the highest of the last minute
    assert "last minute" in text
