"""`why --html`: the timeline as one self-contained page (inline SVG, no script, no external file):
the link's rates beside its far end's, findings shaded, events and NCCL runs marked."""

from __future__ import annotations

import html
import time

from fabricwatch.postmortem.timeline import Timeline

W, H, PAD = 900, 140, 36
TITLES = {"gbps_in": "Gb/s in", "gbps_out": "Gb/s out", "pauses": "pause frames/s", "ecn": "ECN marks/s",
          "errors": "errors/s"}
CSS = """body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}h1{font-size:1.3em}
svg{background:#fafafa;border:1px solid #ddd;margin:.3em 0}.mine{fill:none;stroke:#1f6feb;stroke-width:1.6}
.far{fill:none;stroke:#8250df;stroke-width:1.2;stroke-dasharray:4 3}.finding{fill:#f85149;opacity:.15}
.event{stroke:#d29922;stroke-width:1}.run{stroke:#2da44e;stroke-width:1;stroke-dasharray:2 2}
td{padding:2px 8px;vertical-align:top}.t{white-space:nowrap;color:#555}"""


def _iso(ns: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ns / 1e9))


def _peaks(mine: list[float | None], far: list[float | None] | None) -> str:
    """The label's numbers: the largest value drawn of each end (the scale of an all-0 plot is not one)."""
    def peak(values: list[float | None] | None) -> float | None:
        return max((v for v in values or [] if v is not None), default=None)

    m, f = peak(mine), peak(far)
    said = [f"max {m:.3g}" if m is not None else "no data" if f is None else "this end no data"]
    if f is not None:
        said.append(f"far end max {f:.3g}")
    return "; ".join(said)


def _plot(tl: Timeline, series: str) -> str:
    rep = tl.report
    t0, t1 = tl.window.start_ns, tl.window.end_ns

    def x(t: int) -> float:
        return PAD + (t - t0) / (t1 - t0) * (W - 2 * PAD)

    mine = rep.mine[series]
    far = rep.peer[series] if rep.peer else None
    known = [v for v in [*mine, *(far or [])] if v is not None]
    top = max(known, default=0.0) or 1.0

    def y(v: float) -> float:
        return H - PAD / 2 - v / top * (H - PAD)

    parts = [f'<svg width="{W}" height="{H}" role="img" aria-label="{html.escape(TITLES[series])}">']
    for inc in rep.incidents:
        end = t1 if inc.open else inc.cleared_ns
        parts.append(f'<rect class="finding" x="{x(max(inc.raised_ns, t0)):.1f}" y="0" '
                     f'width="{max(2.0, x(min(end, t1)) - x(max(inc.raised_ns, t0))):.1f}" height="{H}"/>')
    for e in rep.events:
        parts.append(f'<line class="event" x1="{x(e["time_ns"]):.1f}" x2="{x(e["time_ns"]):.1f}" y1="0" y2="{H}"/>')
    for run in tl.runs:
        parts.append(f'<line class="run" x1="{x(run.time_ns):.1f}" x2="{x(run.time_ns):.1f}" y1="0" y2="{H}"/>')
    for values, cls in ((far, "far"), (mine, "mine")):
        if not values:
            continue
        run_pts: list[str] = []
        for t, v in [*zip(rep.times, values, strict=True), (0, None)]:
            if v is None:
                if run_pts:
                    parts.append(f'<polyline class="{cls}" points="{" ".join(run_pts)}"/>')
                run_pts = []
            else:
                run_pts.append(f"{x(t):.1f},{y(v):.1f}")
    parts.append(f'<text x="4" y="14">{html.escape(TITLES[series])} ({_peaks(mine, far)})</text>')
    parts.append(f'<text x="{PAD}" y="{H - 2}" font-size="11">{_iso(t0)}</text>'
                 f'<text x="{W - PAD - 120}" y="{H - 2}" font-size="11">{_iso(t1)}</text></svg>')
    return "".join(parts)


def timeline_page(tl: Timeline) -> str:
    rep = tl.report
    peer = rep.tags.get("peer_device")
    far = f"{rep.tags.get('peer_device')} {rep.tags.get('peer_port', '')}" if peer else "unknown"
    head = (f"{rep.device} {rep.port} around {_iso(tl.at_ns)} UTC")
    rows = "".join(f'<tr><td class="t">{_iso(e["time_ns"])}</td><td>{html.escape(e["what"])}</td>'
                   f'<td>{html.escape(e["text"])}</td></tr>' for e in tl.entries) or \
        "<tr><td>nothing happened on this link in the window</td></tr>"
    plots = "".join(_plot(tl, s) for s in ("gbps_in", "gbps_out", "pauses", "errors"))
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(head)}</title>'
            f"<style>{CSS}</style></head><body><h1>{html.escape(head)}</h1>"
            f"<p>role {html.escape(rep.tags.get('role', '?'))}, rail {html.escape(rep.tags.get('rail', '?'))}, "
            f"far end {html.escape(far)}. Solid: this end; dashed: the far end; shaded: a finding; "
            f"amber lines: link events; green dashes: NCCL runs that crossed the link.</p>"
            f"{plots}<h2>timeline</h2><table>{rows}</table></body></html>")
