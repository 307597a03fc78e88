"""`fabricwatch report`: the acceptance report a customer signs — one self-contained HTML file
(inline SVG, no scripts, no network): one verdict at the top with what it was measured against,
busbw vs message size for every run with the thresholds and the line rate drawn on it, a table per
size, the hosts, every failing reason, the variance findings, the cabling check and the blamed
links."""

from __future__ import annotations

import html
import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from fabricwatch.core.nccl_records import RunRecord
from fabricwatch.models.collective import GroupReport, busbw_curve
from fabricwatch.nccl.gate import Check, CheckResult, format_size

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
W, H, PAD = 900, 420, 60
esc = html.escape


@dataclass
class Context:
    """What the verdict was measured against, said at the top of the report."""

    thresholds: str | None = None  # the thresholds file
    checks: list[Check] = field(default_factory=list)
    line_rate_gbps: float | None = None  # one NIC's line rate, Gb/s (busbw is GB/s per rank)
    cabling_plan: str | None = None
    cabling: list[dict[str, Any]] | None = None  # the cabling check's differences (None: not run)
    planned_cables: int = 0


def _checks_for(group: GroupReport, checks: list[Check]) -> list[Check]:
    return [c for c in checks if c.collective == group.collective and c.min_busbw
            and (c.nranks is None or c.nranks == group.nranks)]


ONE_HOST = "one host: busbw over NVLink/PCIe inside it, not the NIC (no line rate to compare)"


def one_host(group: GroupReport, runs: list[RunRecord]) -> bool:
    """Every run of the group listed all its ranks on one host: it crossed NVLink or PCIe, never a NIC."""
    mine = [r for r in runs if r.source in group.runs]
    return bool(mine) and all(r.nranks and len(r.hosts) == 1 for r in mine)


def _line_gbs(group: GroupReport, runs: list[RunRecord], ctx: Context) -> float | None:
    """One NIC's line rate in GB/s, for the runs that cross NICs."""
    return ctx.line_rate_gbps / 8 if ctx.line_rate_gbps and not one_host(group, runs) else None


def chart(group: GroupReport, runs: list[RunRecord], ctx: Context | None = None) -> str:
    ctx = ctx or Context()
    curves = {r.source: busbw_curve(r) for r in runs if r.source in group.runs}
    sizes = sorted({s for c in curves.values() for s in c if s > 0})
    if not sizes:
        return "<p>no data</p>"
    checks = _checks_for(group, ctx.checks)
    line_gbs = _line_gbs(group, runs, ctx)
    top = max([v for c in curves.values() for v in c.values()] + [c.min_busbw or 0 for c in checks]
              + [line_gbs or 0], default=1.0) * 1.1 or 1.0
    lo, hi = math.log2(sizes[0]), math.log2(sizes[-1]) if len(sizes) > 1 else math.log2(sizes[0]) + 1

    def x(size: float) -> float:
        return PAD + (math.log2(max(size, 1)) - lo) / max(hi - lo, 1e-9) * (W - 2 * PAD)

    def y(bw: float) -> float:
        return H - PAD - bw / top * (H - 2 * PAD)

    parts = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             f'viewBox="0 0 {W} {H}" role="img" aria-label="busbw vs message size">']
    # the band: min..max busbw across runs per size
    band = [(s, min(c[s] for c in curves.values() if s in c), max(c[s] for c in curves.values() if s in c))
            for s in sizes]
    pts = [f"{x(s):.1f},{y(hi_):.1f}" for s, _, hi_ in band]
    pts += [f"{x(s):.1f},{y(lo_):.1f}" for s, lo_, _ in reversed(band)]
    parts.append(f'<polygon class="band" points="{" ".join(pts)}" fill="#999" fill-opacity="0.2" stroke="none"/>')
    parts.append(f'<line x1="{PAD}" y1="{H - PAD}" x2="{W - PAD}" y2="{H - PAD}" stroke="#333"/>')
    parts.append(f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{H - PAD}" stroke="#333"/>')
    step = max(1, math.ceil(len(sizes) / 12))  # at most a dozen labels: they must not overlap
    for s in sizes[::step]:
        parts.append(f'<text x="{x(s):.1f}" y="{H - PAD + 16}" font-size="10" '
                     f'text-anchor="middle">{format_size(s)}</text>')
    for i in range(5):
        v = top * i / 4
        parts.append(f'<text x="{PAD - 6}" y="{y(v) + 3:.1f}" font-size="10" text-anchor="end">{v:.0f}</text>')
    parts.append(f'<text x="{W / 2}" y="{H - 12}" font-size="12" text-anchor="middle">message size</text>')
    parts.append(f'<text x="14" y="{H / 2}" font-size="12" transform="rotate(-90 14 {H / 2})" '
                 'text-anchor="middle">busbw (GB/s)</text>')
    for c in checks:  # the threshold over the sizes it applies to
        assert c.min_busbw is not None
        x0, x1 = x(max(c.min_size, sizes[0])), x(min(c.max_size or sizes[-1], sizes[-1]))
        parts.append(f'<line class="threshold" x1="{x0:.1f}" x2="{x1:.1f}" y1="{y(c.min_busbw):.1f}" '
                     f'y2="{y(c.min_busbw):.1f}" stroke="#cf222e" stroke-dasharray="6 4" stroke-width="1.5"/>')
        label = f"threshold {c.min_busbw:g} GB/s"
        # ~6 px a character at 10 px: a label that would run past the plot ends where its line ends
        at = (f'x="{x0 + 4:.1f}"' if x0 + 4 + 6 * len(label) <= W - 4
              else f'x="{max(x1 - 4, 6 * len(label)):.1f}" text-anchor="end"')
        ty = y(c.min_busbw) - 4 if y(c.min_busbw) - 4 >= 12 else y(c.min_busbw) + 12
        parts.append(f'<text {at} y="{ty:.1f}" font-size="10" fill="#cf222e">{label}</text>')
    if ctx.line_rate_gbps and not line_gbs:
        parts.append(f'<text class="one-host" x="{W - PAD - 4}" y="{PAD - 8}" font-size="10" text-anchor="end">'
                     f'{ONE_HOST}</text>')
    if line_gbs:
        parts.append(f'<line class="line-rate" x1="{PAD}" x2="{W - PAD}" y1="{y(line_gbs):.1f}" '
                     f'y2="{y(line_gbs):.1f}" stroke="#555" stroke-dasharray="2 3"/>')
        parts.append(f'<text x="{W - PAD - 4}" y="{y(line_gbs) - 4:.1f}" font-size="10" text-anchor="end">'
                     f'NIC line rate {ctx.line_rate_gbps:g} Gb/s = {line_gbs:g} GB/s</text>')
    for n, (src, curve) in enumerate(curves.items()):
        colour = COLOURS[n % len(COLOURS)]
        line = " ".join(f"{x(s):.1f},{y(curve[s]):.1f}" for s in sizes if s in curve)
        name = esc(src.rsplit("/", 1)[-1])
        parts.append(f'<polyline class="run" data-run="{name}" points="{line}" fill="none" stroke="{colour}" '
                     'stroke-width="1.8"/>')
    parts.append("</svg>")
    # the legend beside the plot, as text: long run names wrap instead of being cut off
    legend = "".join(f'<li><span style="color:{COLOURS[n % len(COLOURS)]}">&#9632;</span> '
                     f'{esc(src.rsplit("/", 1)[-1])}</li>' for n, src in enumerate(curves))
    return "".join(parts) + f"<ul class='legend'>{legend}</ul>"


def size_table(group: GroupReport, runs: list[RunRecord], ctx: Context) -> str:
    curves = {r.source: busbw_curve(r) for r in runs if r.source in group.runs}
    sizes = sorted({s for c in curves.values() for s in c})
    line_gbs = _line_gbs(group, runs, ctx)
    checks = _checks_for(group, ctx.checks)
    head = ["size", "runs", "min busbw", "median", "max", "run-to-run CV %"]
    if line_gbs:
        head.append("median, % of line rate")
    if checks:
        head.append("threshold")
    rows = []
    for s in sizes:
        values = [c[s] for c in curves.values() if s in c]
        cells = [format_size(s), str(len(values)), f"{min(values):.2f}", f"{statistics.median(values):.2f}",
                 f"{max(values):.2f}", f"{group.cv_pct.get(s, 0.0):.1f}"]
        if line_gbs:
            cells.append(f"{100 * statistics.median(values) / line_gbs:.0f} %")
        if checks:
            limits = [c.min_busbw for c in checks if c.min_busbw and s >= c.min_size
                      and (c.max_size is None or s <= c.max_size)]
            below = limits and min(values) < max(limits)
            cells.append(("" if not limits else f"{max(limits):g}") + (" (below)" if below else ""))
        rows.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    return ("<table class='sizes'><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"
            + "".join(rows) + "</table>")


def render(runs: list[RunRecord], groups: list[GroupReport], verdict: list[CheckResult] | None = None,
           blamed: list[dict[str, Any]] | None = None, ctx: Context | None = None) -> str:
    ctx = ctx or Context()
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>fabricwatch acceptance report</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:13px;vertical-align:top}"
        ".pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}"
        ".legend{list-style:none;padding:0;columns:2;font-size:12px}.against{color:#555}</style></head><body>",
        "<h1>Acceptance report</h1>",
    ]
    parts_ok: list[bool] = []
    if verdict is not None:
        parts_ok.append(all(r.passed for r in verdict))
    if ctx.cabling is not None:
        parts_ok.append(not ctx.cabling)
    if parts_ok:
        ok = all(parts_ok)
        out.append(f"<h2 id='verdict-line'>Verdict: <span class='{'pass' if ok else 'fail'}'>"
                   f"{'PASS' if ok else 'FAIL'}</span></h2>")
    against = []
    if verdict is not None:
        failed = sum(1 for r in verdict if not r.passed)
        against.append(f"{len(verdict)} bandwidth and variance checks from {esc(ctx.thresholds or 'the thresholds')}"
                       f" ({failed} failed)")
    if ctx.cabling is not None:
        against.append(f"the cabling plan {esc(ctx.cabling_plan or '')} ({ctx.planned_cables:,} cables, "
                       f"{len(ctx.cabling)} differences)")
    if ctx.line_rate_gbps:
        inside = [g for g in groups if one_host(g, runs)]
        against.append(f"a NIC line rate of {ctx.line_rate_gbps:g} Gb/s"
                       + (f" (not for the {sum(len(g.runs) for g in inside)} run(s) on one host: they cross "
                          "NVLink/PCIe, not the NIC)" if inside else ""))
    out.append(f"<p class='against'>Measured against: {'; '.join(against) or 'nothing (no thresholds given)'}. "
               f"{len(runs)} run(s); generated {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}.</p>")
    hosts = sorted({h for r in runs for h in r.hosts})
    if hosts:
        out.append(f"<p>Hosts ({len(hosts)}): {esc(', '.join(hosts))}</p>")
    if verdict is not None:
        out.append("<table id='verdict'><tr><th>check</th><th>runs</th><th>worst busbw</th><th>worst CV %</th>"
                   "<th>verdict</th><th>why (every reason)</th></tr>")
        for r in verdict:
            out.append(
                f"<tr><td>{esc(r.check.name())}</td><td>{len(r.runs)}</td><td>{r.worst_busbw or ''}</td>"
                f"<td>{'' if r.worst_cv_pct is None else f'{r.worst_cv_pct:.1f}'}</td>"
                f"<td class='{'pass' if r.passed else 'fail'}'>{'pass' if r.passed else 'FAIL'}</td>"
                f"<td>{'<br>'.join(esc(f) for f in r.failures)}</td></tr>")
        out.append("</table>")
    if ctx.cabling is not None:
        out.append("<h2 id='cabling'>Cabling</h2>")
        if not ctx.cabling:
            out.append(f"<p class='pass'>The fabric is cabled as planned ({ctx.planned_cables:,} cables).</p>")
        else:
            out.append("<table id='cabling-differences'><tr><th>kind</th><th>ends</th><th>planned</th>"
                       "<th>detail</th></tr>")
            for d in ctx.cabling:
                ends = " ↔ ".join(f"{a} {b}" for a, b in d["ends"])
                planned = "; ".join(f"{a} {b}" for a, b in d.get("planned", []))
                out.append(f"<tr><td class='fail'>{esc(d['kind'])}</td><td>{esc(ends)}</td><td>{esc(planned)}</td>"
                           f"<td>{esc(d.get('detail', ''))}</td></tr>")
            out.append("</table>")
    for g in groups:
        ranks = g.nranks if g.nranks is not None else "?"
        out.append(f"<h2>{esc(g.collective)}, {ranks} ranks: {len(g.runs)} run(s)</h2>")
        out.append(chart(g, runs, ctx))
        out.append(size_table(g, runs, ctx))
        if g.findings:
            out.append("<table class='findings'><tr><th>run</th><th>finding</th><th>detail</th></tr>")
            for f in g.findings:
                out.append(f"<tr><td>{esc(f.source)}</td><td>{esc(f.kind)}</td><td>{esc(f.detail)}</td></tr>")
            out.append("</table>")
        else:
            out.append("<p>No run departs from its repeats.</p>")
    if blamed:
        out.append("<h2>Links to look at</h2><table id='blame'><tr><th>#</th><th>link</th><th>role</th>"
                   "<th>why</th></tr>")
        for i, b in enumerate(blamed[:20], 1):
            out.append(f"<tr><td>{i}</td><td>{esc(b['device'])}:{esc(b['port'])}</td><td>{esc(b['role'])}</td>"
                       f"<td>{esc(b['explanation'])}</td></tr>")
        out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out)
