"""`fabricwatch report`: one self-contained HTML file (inline SVG, no scripts, no network) with
busbw vs message size for every run, the run-to-run band, the gate's verdict per threshold, the
variance findings and the blamed links."""

from __future__ import annotations

import html
import math
import time
from typing import Any

from fabricwatch.core.nccl_records import RunRecord
from fabricwatch.models.collective import GroupReport, busbw_curve
from fabricwatch.nccl.gate import CheckResult

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
W, H, PAD = 900, 420, 60


def _fmt_size(n: float) -> str:
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= div:
            return f"{n / div:g}{unit}"
    return f"{n:g}"


def chart(group: GroupReport, runs: list[RunRecord]) -> str:
    curves = {r.source: busbw_curve(r) for r in runs if r.source in group.runs}
    sizes = sorted({s for c in curves.values() for s in c if s > 0})
    if not sizes:
        return "<p>no data</p>"
    top = max((v for c in curves.values() for v in c.values()), default=1.0) * 1.1 or 1.0
    lo, hi = math.log2(sizes[0]), math.log2(sizes[-1]) if len(sizes) > 1 else math.log2(sizes[0]) + 1

    def x(size: float) -> float:
        return PAD + (math.log2(size) - lo) / max(hi - lo, 1e-9) * (W - 2 * PAD)

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
    for s in sizes:
        parts.append(f'<text x="{x(s):.1f}" y="{H - PAD + 16}" font-size="10" '
                     f'text-anchor="middle">{_fmt_size(s)}</text>')
    for i in range(5):
        v = top * i / 4
        parts.append(f'<text x="{PAD - 6}" y="{y(v) + 3:.1f}" font-size="10" text-anchor="end">{v:.0f}</text>')
    parts.append(f'<text x="{W / 2}" y="{H - 12}" font-size="12" text-anchor="middle">message size (bytes)</text>')
    parts.append(f'<text x="14" y="{H / 2}" font-size="12" transform="rotate(-90 14 {H / 2})" '
                 'text-anchor="middle">busbw (GB/s)</text>')
    for n, (src, c) in enumerate(curves.items()):
        colour = COLOURS[n % len(COLOURS)]
        line = " ".join(f"{x(s):.1f},{y(c[s]):.1f}" for s in sizes if s in c)
        name = html.escape(src.rsplit("/", 1)[-1])
        parts.append(f'<polyline class="run" data-run="{name}" points="{line}" fill="none" stroke="{colour}" '
                     'stroke-width="1.8"/>')
        parts.append(f'<text x="{W - PAD + 4}" y="{PAD + 14 * n}" font-size="10" fill="{colour}">{name}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render(runs: list[RunRecord], groups: list[GroupReport], verdict: list[CheckResult] | None = None,
           blamed: list[dict[str, Any]] | None = None) -> str:
    esc = html.escape
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>fabricwatch NCCL report</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:13px}"
        ".pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}</style></head><body>",
        "<h1>NCCL acceptance report</h1>",
        f"<p>generated {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())} from {len(runs)} run(s)</p>",
    ]
    if verdict is not None:
        ok = all(r.passed for r in verdict)
        out.append(f"<h2>Verdict: <span class='{'pass' if ok else 'fail'}'>{'PASS' if ok else 'FAIL'}</span></h2>")
        out.append("<table id='verdict'><tr><th>check</th><th>runs</th><th>worst busbw</th><th>worst CV %</th>"
                   "<th>verdict</th><th>why</th></tr>")
        for r in verdict:
            out.append(
                f"<tr><td>{esc(r.check.name())}</td><td>{len(r.runs)}</td><td>{r.worst_busbw or ''}</td>"
                f"<td>{'' if r.worst_cv_pct is None else f'{r.worst_cv_pct:.1f}'}</td>"
                f"<td class='{'pass' if r.passed else 'fail'}'>{'pass' if r.passed else 'FAIL'}</td>"
                f"<td>{'<br>'.join(esc(f) for f in r.failures[:10])}</td></tr>")
        out.append("</table>")
    for g in groups:
        ranks = g.nranks if g.nranks is not None else "?"
        out.append(f"<h2>{esc(g.collective)}, {ranks} ranks: {len(g.runs)} run(s)</h2>")
        out.append(chart(g, runs))
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
