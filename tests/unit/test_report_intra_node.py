"""The acceptance report judges each run against what it crosses: a run on one host goes over NVLink
or PCIe, never the NIC, so the NIC line rate is neither drawn on its plot nor a share in its table;
and a threshold's label stays inside the plot."""

from __future__ import annotations

import re

from fabricwatch.models.collective import analyse
from fabricwatch.nccl.gate import Check
from fabricwatch.nccl.parser import parse_text
from fabricwatch.nccl.report import Context, W, chart, render, size_table
from tests.nccl_logs import render as log

CURVE = {1 << 20: 20.0, 1 << 26: 150.0, 1 << 30: 224.0}  # NVLink: far past a 400G NIC's 50 GB/s
NET = {1 << 20: 10.0, 1 << 26: 40.0, 1 << 30: 46.0}


def _runs(hosts: list[str], curve: dict[int, float], n: int = 2) -> list:
    return [r for i in range(n) for r in parse_text(log("all_reduce", hosts, 8, curve), f"run{len(hosts)}-{i}.log")]


def test_a_single_host_run_is_not_a_share_of_the_nic_line_rate() -> None:
    runs = _runs(["node001"], CURVE)
    [group] = analyse(runs)
    ctx = Context(line_rate_gbps=400.0)
    svg, table = chart(group, runs, ctx), size_table(group, runs, ctx)
    assert 'class="line-rate"' not in svg and "NIC line rate" not in svg
    assert "% of line rate" not in table and "448 %" not in table
    assert "one host" in svg and "NVLink" in svg  # what it crossed instead, said on the plot
    page = render(runs, [group], ctx=ctx)
    assert "not the NIC" in page


def test_a_multi_host_run_keeps_the_line_rate() -> None:
    runs = _runs(["node001", "node002"], NET)
    [group] = analyse(runs)
    ctx = Context(line_rate_gbps=400.0)
    assert 'class="line-rate"' in chart(group, runs, ctx)
    assert "% of line rate" in size_table(group, runs, ctx) and "92 %" in size_table(group, runs, ctx)


def test_a_threshold_label_over_the_largest_sizes_stays_inside_the_plot() -> None:
    runs = _runs(["node001", "node002"], NET)
    [group] = analyse(runs)
    check = Check(collective="all_reduce", min_size=1 << 30, min_busbw=45.0)
    svg = chart(group, runs, Context(checks=[check]))
    tag = re.search(r"<text ([^>]*)>threshold 45 GB/s</text>", svg)
    assert tag, svg
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', tag.group(1)))
    x, anchor = float(attrs["x"]), attrs.get("text-anchor", "start")
    width = len("threshold 45 GB/s") * 6  # 10 px sans-serif: ~6 px a character
    right = x if anchor == "end" else x + width
    assert right <= W, (x, anchor)
