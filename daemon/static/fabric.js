// The fabric page: polls /api/fabric, draws every port by tier, rail and switch, coloured by its
// worst condition; a port opens its link view (#link/<device>/<port>). No external code; every
// value from the daemon is put in the page as text, never as markup.
"use strict";
const REFRESH_MS = 5000;
let doc = null;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function colour(metric, p, f) {
  if (metric === "severity") return ["#2f6f4f", "#d9a400", "#e0413a"][p[f.severity]];
  const v = p[f[metric]];
  const scale = {pauses: 1e4, ecn: 1e5, errors: 10, util: 100}[metric];
  const x = metric === "util" ? Math.min(v / scale, 1) : Math.min(Math.log10(1 + v) / Math.log10(1 + scale), 1);
  const r = Math.round(40 + 200 * x), g = Math.round(110 - 60 * x), b = Math.round(80 - 40 * x);
  return `rgb(${r},${g},${b})`;
}

function drawFabric() {
  const metric = document.getElementById("metric").value;
  const f = Object.fromEntries(doc.port_fields.map((n, i) => [n, i]));
  const map = document.getElementById("heatmap");
  map.replaceChildren();
  const tiers = [["spine", "spines"], ["leaf", "leaves, by rail"], ["other", "other devices"]];
  for (const [tier, title] of tiers) {
    const devices = doc.devices.filter(d => d.tier === tier);
    if (!devices.length) continue;
    // InfiniBand fabrics (and Ethernet without rails in the topology) have leaves by tier alone
    const railed = tier === "leaf" && devices.some(d => d.rail);
    const box = el("div", {class: "tier", "data-tier": tier},
                   el("div", {class: "tier-title", text: tier === "leaf" && !railed ? "leaves" : title}));
    const rails = new Map();
    for (const d of devices) {
      const key = railed ? d.rail : "";
      if (!rails.has(key)) rails.set(key, []);
      rails.get(key).push(d);
    }
    for (const [rail, list] of [...rails.entries()].sort()) {
      const row = el("div", {class: "rail", "data-rail": rail});
      if (railed) row.append(el("div", {class: "tier-title", text: rail ? `rail ${rail}` : "no rail"}));
      for (const d of list) {
        const cells = el("div", {class: "cells"});
        const aggregates = el("div", {class: "cells aggregates"});
        for (const p of d.ports) {
          // shut by an operator is a state, not trouble: grey, apart from a link that fell down
          const disabled = p[f.admin] === 0, down = !disabled && p[f.oper] === 0;
          const cell = el("div", {
            class: `cell finding-${p[f.severity]}` + (down ? " down" : "") + (disabled ? " disabled" : ""),
            "data-device": d.device, "data-port": p[f.port], "data-severity": String(p[f.severity]),
            title: `${d.device} ${p[f.port]} (${p[f.agg] ? "aggregate" : p[f.role] || "?"}) -> ${p[f.peer] || "?"}\n` +
                   `pauses ${p[f.pauses]}/s  ecn ${p[f.ecn]}/s  errors ${p[f.errors]}/s  util ${p[f.util]}%` +
                   (disabled ? "\nADMIN DOWN (shut)" : down ? "\nDOWN" : ""),
          });
          if (!down && !disabled) cell.style.background = colour(metric, p, f);
          cell.addEventListener("click", () => { location.hash = `#link/${encodeURIComponent(d.device)}/${encodeURIComponent(p[f.port])}`; });
          (p[f.agg] ? aggregates : cells).append(cell);
        }
        const box = el("div", {class: `device sev-${d.severity}`, "data-device": d.device},
                       el("div", {class: "device-name", text: d.device}), cells);
        if (aggregates.children.length) box.append(el("div", {class: "device-name", text: "aggregates"}), aggregates);
        row.append(box);
      }
      box.append(row);
    }
    map.append(box);
  }
  const legend = document.getElementById("legend");
  legend.replaceChildren(
    ...[["#2f6f4f", "healthy"], ["#d9a400", "warning"], ["#e0413a", "critical"], ["#555", "down"], ["#30343a", "shut (admin down)"]].map(
      ([c, t]) => { const i = el("i"); i.style.background = c; return el("span", {}, i, t); }),
    el("span", {text: metric === "severity" ? "outline: the port has a finding" : `colour: ${metric}, outline: finding`}));
}

// the Slurm jobs a finding's link carries (from [slurm]): absent without Slurm; each job as
// "id (user, name, N nodes)", the first `full` in full, then the next ids, then how many more
function jobsOf(x, full) {
  if (x.jobs_total === undefined) return "";
  const box = el("div", {class: "jobs", "data-jobs-total": x.jobs_total === null ? "unknown" : String(x.jobs_total)});
  if (x.jobs_error) box.append(el("span", {class: "bad", text: `Slurm not answering (${x.jobs_error}); `}));
  if (x.jobs_total === null) { box.append(el("span", {class: "dim", text: "Slurm jobs: not read yet"})); return box; }
  if (!x.jobs_total) { box.append(el("span", {class: "dim", text: "no Slurm job on this link"})); return box; }
  const jobs = x.jobs || [];
  box.append(el("span", {text: `${x.jobs_total} Slurm job${x.jobs_total === 1 ? "" : "s"} on this link: `}));
  jobs.slice(0, full).forEach((j, i) => box.append(i ? ", " : "", el("span", {class: "job", "data-job-id": j.id,
    text: `${j.id} (${j.user}, ${j.name}, ${j.nodes_total} node${j.nodes_total === 1 ? "" : "s"})`})));
  const ids = jobs.slice(full).map(j => j.id);
  if (ids.length) box.append(el("span", {class: "job-ids", text: `; then ${ids.join(", ")}`}));
  const more = x.jobs_total - jobs.length;  // the API lists at most [slurm] max_jobs_shown
  if (more > 0) box.append(el("span", {class: "jobs-more", text: ` and ${more} more`}));
  return box;
}

function drawSide() {
  const t = doc.targets;
  const findings = doc.findings;
  const crit = findings.filter(x => x.severity === "critical").length;
  document.getElementById("site").textContent = doc.site ? `· ${doc.site}` : "";
  document.getElementById("summary").replaceChildren(
    el("span", {class: t.up < t.total ? "bad" : "", text: `collectors up ${t.up}/${t.total}`}),
    el("span", {class: crit ? "bad" : "", text: `findings ${findings.length} (${crit} critical)`}),
    el("span", {text: `ports ${doc.devices.reduce((n, d) => n + d.ports.length, 0)}`}),
    el("span", {text: doc.detector ? `detector ${doc.detector.mode}, ${doc.detector.intervals} intervals` : "detector off"}));
  const list = document.getElementById("findings");
  list.replaceChildren(...(findings.length ? findings.map(x => {
    const where = x.port === "*" ? `${x.device} (whole switch)` : `${x.device} ${x.port}`;
    const li = el("li", {class: "finding", "data-device": x.device, "data-port": x.port},
      el("b", {class: `sev-${x.severity}`, text: `${x.severity} `}),
      el("a", {href: x.port === "*" ? "#" : `#link/${encodeURIComponent(x.device)}/${encodeURIComponent(x.port)}`, text: where}),
      x.peer ? el("span", {text: ` ↔ ${x.peer.device} ${x.peer.port}`}) : "",
      el("div", {text: x.explanation}),
      jobsOf(x, 3),
      el("small", {text: `raised ${x.raised}, last seen ${x.time}`}));
    return li;
  }) : [el("li", {text: "none: every link is as healthy links are at its load"})]),
    ...doc.cleared.map(x => el("li", {class: "cleared", "data-device": x.device, "data-port": x.port},
      el("b", {text: "cleared "}), el("span", {text: `${x.device} ${x.port}: ${x.explanation}`}),
      el("div", {}, el("small", {text: `raised ${x.raised}, cleared ${x.cleared}`})))));
  const targets = document.getElementById("targets");
  targets.replaceChildren(el("tr", {}, el("th", {text: "device"}), el("th", {text: "via"}), el("th", {text: "state"}), el("th", {text: "last error"})),
    ...t.list.map(x => el("tr", {}, el("td", {text: x.device}), el("td", {text: x.collector}),
      el("td", {class: x.up ? "up" : "dn", text: x.up ? "up" : "down"}), el("td", {text: x.last_error || ""}))));
  const storage = document.getElementById("storage");
  storage.replaceChildren(el("tr", {}, ...["sink", "written", "spooled", "dropped", "last error"].map(h => el("th", {text: h}))),
    ...doc.storage.map(s => el("tr", {}, el("td", {text: s.name}), el("td", {text: String(s.written)}),
      el("td", {class: s.spooled ? "bad" : "", text: String(s.spooled)}),
      el("td", {class: s.dropped ? "bad" : "", text: String(s.dropped)}), el("td", {text: s.last_error || ""}))));
}

// what the link page plots: key in the history -> [title, unit, log scale]; the first five every
// port has, the fabric's own signals only when the port reports them
const SERIES = {in_gbps: ["received", "Gb/s"], out_gbps: ["sent", "Gb/s"], pauses: ["pause frames, all priorities", "frames/s"],
  ecn: ["ECN-marked packets", "packets/s"], errors: ["errors and discards", "per s"]};
const EXTRA = {discards: ["discards", "packets/s"], xmit_wait: ["xmit wait (data queued, no credit)", "ticks/s"],
  symbol_errors: ["symbol errors", "per s"], link_downed: ["link downed", "downs/s"],
  fec_corrected: ["FEC corrected", "codewords/s"], fec_corrected_bits: ["FEC-corrected bits", "bits/s"], fec_uncorrectable: ["FEC uncorrectable", "codewords/s"],
  ber: ["pre-FEC BER", "ratio", true], temperature: ["module temperature", "°C"]};
for (let p = 0; p < 8; p++) EXTRA[`pfc_p${p}`] = [`PFC priority ${p}, rx + tx`, "frames/s"];
const FABRIC_CHARTS = {
  roce: ["in_gbps", "out_gbps", "util", "pauses", "pfc_p0", "pfc_p1", "pfc_p2", "pfc_p3", "pfc_p4", "pfc_p5", "pfc_p6", "pfc_p7",
         "ecn", "discards", "errors", "fec_corrected", "fec_corrected_bits", "fec_uncorrectable"],
  ib: ["in_gbps", "out_gbps", "util", "xmit_wait", "symbol_errors", "link_downed", "errors", "ber"],
};
const NS = "http://www.w3.org/2000/svg";

function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function iso(ns) { return new Date(ns / 1e6).toISOString().replace(/\.\d+Z$/, "Z"); }
function hhmm(ns) { return new Date(ns / 1e6).toISOString().slice(11, 16) + "Z"; }
function when(ns) { return iso(ns); }

function fmt(v) {
  if (v === null || v === undefined) return "-";
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e9 || a < 1e-3) return v.toExponential(2);
  for (const [d, s] of [[1e6, "M"], [1e3, "k"]]) if (a >= d) return `${+(v / d).toPrecision(3)}${s}`;
  return `${+v.toPrecision(3)}`;
}

function niceMax(m) {
  if (!(m > 0)) return 1;
  const e = Math.pow(10, Math.floor(Math.log10(m)));
  for (const k of [1, 1.2, 1.6, 2, 3, 4, 6, 8, 10]) if (m <= k * e) return k * e;  // a quarter of each is round
  return 10 * e;
}

// a plot with axes: y in the series' unit (linear from 0, or log by decades), x in UTC; this end
// solid, the far end dashed, the finding's time shaded
function chart(key, title, unit, log, mine, far, t0, stepNs, shade) {
  const W = 420, H = 160, L = 54, R = 12, T = 18, B = 30, w = W - L - R, h = H - T - B;
  const n = mine.length;
  const vals = [...mine, ...(far || [])].filter(v => v !== null && (!log || v > 0));
  let lo = 0, hi = niceMax(Math.max(...vals, 0));
  if (log) {
    lo = Math.floor(Math.log10(Math.min(...vals, 1e-9))); hi = Math.ceil(Math.log10(Math.max(...vals, 1e-15)));
    if (hi <= lo) hi = lo + 1;
  }
  const y = v => T + h - ((log ? Math.log10(v) : v) - lo) / (hi - lo) * h;
  const x = i => L + (i / Math.max(n - 1, 1)) * w;
  const svg = svgEl("svg", {class: "plot", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
                            "aria-label": `${title} (${unit})`});
  if (shade) {
    const a = Math.max(0, (shade[0] - t0) / stepNs), b = Math.min(n - 1, (shade[1] - t0) / stepNs);
    if (b >= a - 0.5) svg.append(svgEl("rect", {class: `finding-span ${shade[2] || ""}`, x: x(Math.max(a - 0.5, 0)), y: T,
                                               width: Math.max(x(Math.min(b + 0.5, n - 1)) - x(Math.max(a - 0.5, 0)), 3), height: h}));
  }
  const yAxis = svgEl("g", {class: "axis y"});
  const ticks = log ? Array.from({length: hi - lo + 1}, (_, i) => lo + i) : [0, 0.25, 0.5, 0.75, 1].map(f => f * hi);
  for (const t of ticks) {
    const py = log ? T + h - (t - lo) / (hi - lo) * h : y(t);
    yAxis.append(svgEl("line", {class: "grid", x1: L, x2: L + w, y1: py, y2: py}),
                 svgEl("text", {class: "tick", x: L - 4, y: py + 4, "text-anchor": "end"}, log ? `1e${t}` : fmt(t)));
  }
  yAxis.append(svgEl("text", {class: "unit", x: 2, y: 11}, unit));
  const xAxis = svgEl("g", {class: "axis x"});
  xAxis.append(svgEl("line", {class: "base", x1: L, x2: L + w, y1: T + h, y2: T + h}));
  // time marks on round UTC times, at most six of them
  const spanNs = Math.max(n - 1, 1) * stepNs;
  const every = [10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
    .map(sec => sec * 1e9).find(c => spanNs / c <= 6) || 86400e9;
  for (let t = Math.ceil(t0 / every) * every; t <= t0 + spanNs; t += every) {
    const px = L + (t - t0) / spanNs * w;
    xAxis.append(svgEl("line", {class: "grid", x1: px, x2: px, y1: T, y2: T + h + 4}),
                 svgEl("text", {class: "tick", x: px, y: T + h + 16, "text-anchor": px > L + w - 24 ? "end" : "middle", "data-time": iso(t)},
                       every < 60e9 ? iso(t).slice(11) : hhmm(t)));
  }
  xAxis.append(svgEl("text", {class: "unit", x: L + w, y: H - 2, "text-anchor": "end"}, "time (UTC)"));
  svg.append(yAxis, xAxis);
  for (const [series, cls] of [[far, "far"], [mine, "mine"]]) {
    if (!series) continue;
    let run = [];
    const flush = () => { if (run.length) svg.append(svgEl("polyline", {class: cls, points: run.join(" ")})); run = []; };
    series.forEach((v, i) => {
      if (v === null || (log && !(v > 0))) { flush(); return; }
      run.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
      if (run.length === 1 && (i === n - 1 || series[i + 1] === null)) run.push(`${(x(i) + 2).toFixed(1)},${y(v).toFixed(1)}`);
    });
    flush();
  }
  const last = [...mine].reverse().find(v => v !== null);
  const known = mine.filter(v => v !== null);
  return el("figure", {class: "chart", "data-series": key, "data-unit": unit},
    el("figcaption", {}, el("span", {class: "chart-title", text: `${title}`}), el("span", {class: "chart-unit", text: ` (${unit}${log ? ", log scale" : ""})`}),
       el("div", {class: "chart-values", text: `this end: latest ${fmt(last)}, max ${known.length ? fmt(Math.max(...known)) : "-"}` +
                                               (far ? `; far end: latest ${fmt([...far].reverse().find(v => v !== null))}` : "")})),
    svg);
}

function linkCharts(l, hist, farHist) {
  const series = {...hist.series};
  const farSeries = farHist ? {...farHist.series} : null;
  const speed = l.speed_gbps;
  const util = s => s.in_gbps.map((v, i) => v === null && s.out_gbps[i] === null ? null : Math.max(v || 0, s.out_gbps[i] || 0) * 100 / speed);
  if (speed) { series.util = util(series); if (farSeries) farSeries.util = util(farSeries); }
  const t0 = hist.start_ns, stepNs = hist.step_s * 1e9;
  const f = l.finding || l.device_finding;
  const shade = f ? [f.raised_ns || f.time_ns, Math.max(f.time_ns, l.now_ns), `sev-${f.severity}`] : null;
  const out = [], missing = [];
  for (const key of FABRIC_CHARTS[l.fabric] || FABRIC_CHARTS.roce) {
    const [title, unit, log] = key === "util" ? ["utilisation of the line rate", "%"] : SERIES[key] || EXTRA[key];
    // FEC corrections come counted in codewords or in bits, as the source counts them: either will do
    const counted = key === "fec_corrected" ? series.fec_corrected_bits : key === "fec_corrected_bits" ? series.fec_corrected : null;
    if (!series[key]) { if (!key.startsWith("pfc_p") && key !== "util" && !counted) missing.push(title); continue; }
    // a priority nobody pauses on is one line in the note, not a flat chart
    if (key.startsWith("pfc_p") && !series[key].some(v => v) && !(farSeries && farSeries[key] && farSeries[key].some(v => v))) continue;
    out.push(chart(key, title, unit, log, series[key], farSeries && farSeries[key], t0, stepNs, shade));
  }
  const quiet = Object.keys(EXTRA).filter(k => k.startsWith("pfc_p") && series[k] && !out.some(c => c.dataset.series === k));
  return [out, missing, quiet.map(k => k.slice(5))];
}

function optics(l, hist) {
  const o = l.optics, src = sourceName(l);
  const box = [];
  const mod = o.module;
  box.push(el("table", {class: "module"}, ...["vendor", "part_number", "serial", "revision", "media", "length_m"].map(k =>
    el("tr", {}, el("th", {text: k.replace("_", " ")}),
       el("td", {class: mod[k] ? "" : "dim", "data-field": k, text: mod[k] || `not reported by ${src}`})))));
  const lim = o.thresholds;
  const cell = (q, v) => {
    if (v === undefined) return el("td", {class: "dim", text: "-"});
    if (q === "lane_errors") return el("td", {class: "lane-value", text: fmt(v)});
    const t = lim[q] || {};
    const cls = (v <= t.low_alarm || v >= t.high_alarm) ? "alarm" : (v <= t.low_warn || v >= t.high_warn) ? "warn" : "";
    const td = el("td", {class: `lane-value ${cls}`, text: v.toFixed(2)});
    if (t.low_alarm !== undefined && t.high_alarm !== undefined) {
      const bar = el("span", {class: "gauge", title: `module thresholds: warn ${t.low_warn} … ${t.high_warn}, alarm ${t.low_alarm} … ${t.high_alarm}`});
      const mark = el("i"), pct = u => Math.min(100, Math.max(0, (u - t.low_alarm) / (t.high_alarm - t.low_alarm) * 100));
      if (t.low_warn !== undefined && t.high_warn !== undefined) {
        const a = pct(t.low_warn), b = pct(t.high_warn);
        bar.style.background = `linear-gradient(90deg, var(--warn) 0 ${a}%, #2f6f4f ${a}% ${b}%, var(--warn) ${b}%)`;
      }
      mark.style.left = `${Math.min(100, Math.max(0, (v - t.low_alarm) / (t.high_alarm - t.low_alarm) * 100))}%`;
      bar.append(mark); td.append(bar);
    }
    return td;
  };
  const qs = [["rx_power_dbm", "receive power (dBm)"], ["tx_power_dbm", "transmit power (dBm)"], ["tx_bias_ma", "laser bias (mA)"]];
  if (o.lanes.some(x => x.lane_errors !== undefined)) qs.push(["lane_errors", "FEC-corrected bits/s"]);
  if (o.lanes.length) {
    box.push(el("table", {class: "lanes"},
      el("tr", {}, el("th", {text: "lane"}), ...qs.map(([, t]) => el("th", {text: t}))),
      ...o.lanes.map(x => el("tr", {class: "lane", "data-lane": String(x.lane)}, el("td", {text: String(x.lane)}),
                              ...qs.map(([q]) => cell(q, x[q])))),
      el("tr", {class: "limits"}, el("td", {text: "module thresholds (warn / alarm)"}), ...qs.map(([q]) => {
        const t = lim[q];
        if (q === "lane_errors") return el("td", {class: "dim", text: "(no thresholds)"});
        return el("td", {class: "dim", text: t ? `warn ${fmt(t.low_warn)} … ${fmt(t.high_warn)}, alarm ${fmt(t.low_alarm)} … ${fmt(t.high_alarm)}`
                                                : `not reported by ${src}`});
      }))));
  } else {
    box.push(el("p", {class: "dim", text: `per-lane power and bias: not reported by ${src}`}));
  }
  const g = o.gauges, tl = lim.temperature_c;
  const ber = g.pre_fec_ber ?? g.ib_raw_ber;
  box.push(el("table", {class: "optics-gauges"},
    el("tr", {}, el("th", {text: "temperature"}), el("td", {"data-field": "temperature", text: g.temperature_c !== undefined
      ? `${g.temperature_c.toFixed(1)} °C` + (tl ? ` (warn at ${fmt(tl.high_warn)} °C, alarm at ${fmt(tl.high_alarm)} °C)` : "") : `not reported by ${src}`})),
    el("tr", {}, el("th", {text: "pre-FEC BER"}), el("td", {"data-field": "ber", text: ber !== undefined ? ber.toExponential(2) : `not reported by ${src}`})),
    el("tr", {}, el("th", {text: "post-FEC BER"}), el("td", {text: (g.post_fec_ber ?? g.ib_effective_ber) !== undefined ? (g.post_fec_ber ?? g.ib_effective_ber).toExponential(2) : `not reported by ${src}`})),
    el("tr", {}, el("th", {text: "FEC corrected"}), el("td", {"data-field": "fec_corrected", text:
      o.fec.fec_corrected !== undefined ? `${fmt(o.fec.fec_corrected)} codewords/s`
      : o.fec.fec_corrected_bits !== undefined ? `${fmt(o.fec.fec_corrected_bits)} bits/s`
      : o.fec.fec_corrected_symbols !== undefined ? `${fmt(o.fec.fec_corrected_symbols)} symbols/s`
      : o.lanes.some(x => x.lane_errors !== undefined) ? `${fmt(o.lanes.reduce((a, x) => a + (x.lane_errors || 0), 0))} bits/s (the lanes' sum)`
      : `not reported by ${src}`})),
    el("tr", {}, el("th", {text: "FEC uncorrectable"}), el("td", {"data-field": "fec_uncorrectable", text: o.fec.fec_uncorrectable !== undefined ? `${fmt(o.fec.fec_uncorrectable)} codewords/s` : `not reported by ${src}`}))));
  const plots = [];
  if (hist) {
    const f = l.finding || l.device_finding;
    const shade = f ? [f.raised_ns || f.time_ns, Math.max(f.time_ns, l.now_ns), `sev-${f.severity}`] : null;
    for (const key of ["ber", "temperature", "fec_corrected", "fec_uncorrectable"]) {
      if (!hist.series[key] || (l.fabric === "roce" && key.startsWith("fec_")) || (l.fabric === "ib" && key === "ber")) continue;
      const [title, unit, log] = EXTRA[key];
      plots.push(chart(key, title, unit, log, hist.series[key], null, hist.start_ns, hist.step_s * 1e9, shade));
    }
  }
  return [el("div", {class: "optics-tables"}, ...box), el("div", {class: "charts"}, ...plots)];
}

function sourceName(l) { return l.sources.length ? l.sources.join(", ") : `its collector (${l.tags.fabric || "?"} fabric)`; }

async function drawLink(device, port) {
  const r = await fetch(`api/link?device=${encodeURIComponent(device)}&port=${encodeURIComponent(port)}`);
  const view = document.getElementById("link-view");
  document.getElementById("link-title").textContent = `${device} ${port}`;
  if (!r.ok) { document.getElementById("link-finding").textContent = "no data for this port"; return; }
  const l = await r.json();
  const src = sourceName(l);
  const state = l.admin === 0 ? "shut by an operator (admin down)" : l.oper === 0 ? "DOWN" : l.oper === 1 ? "up"
    : `link state not reported by ${src}`;
  document.getElementById("link-title").textContent = `${device} ${port}`;
  document.getElementById("link-state").replaceChildren(
    el("span", {class: `state ${l.oper === 0 ? "dn" : l.oper === 1 ? "up" : "dim"}`, "data-state": l.admin === 0 ? "admin_down" : l.oper === 0 ? "down" : l.oper === 1 ? "up" : "not_reported", text: state}),
    el("span", {text: ` · ${l.fabric === "ib" ? "InfiniBand" : "RoCE (Ethernet)"}${l.aggregate ? " aggregate" : ""}` +
                      `${l.tags.speed ? ` · ${l.tags.speed}` : ""} · via ${src} · last sample ${iso(l.time_ns)}`}));
  view.dataset.device = device; view.dataset.port = port; view.dataset.fabric = l.fabric;
  const f = l.finding || l.device_finding;
  document.getElementById("link-finding").replaceChildren(f
    ? el("p", {class: `sev-${f.severity}`}, el("b", {text: `${f.severity}: `}), f.explanation,
         el("small", {text: ` (raised ${f.raised || f.time}, last seen ${f.time}; shaded on the plots)`}), jobsOf(f, 20))
    : el("p", {text: "no finding on this link"}));
  document.getElementById("link-peer").replaceChildren(l.peer
    ? el("p", {}, "far end: ", el("a", {href: `#link/${encodeURIComponent(l.peer.device)}/${encodeURIComponent(l.peer.port)}`, text: `${l.peer.device} ${l.peer.port}`}),
         el("span", {text: l.peer.finding ? ` (finding: ${l.peer.finding.explanation})` : ""}))
    : el("p", {text: "far end unknown (no topology for this port)"}));
  const hist = l.history;
  const charts = document.getElementById("link-charts");
  const farHist = l.peer && l.peer.history;
  if (!hist) {
    charts.replaceChildren(el("p", {class: "tier-title", text: "no history kept ([pipeline] history = 0)"}));
  } else {
    const span = Math.round(hist.step_s * hist.series.in_gbps.length / 60);
    const [plots, missing, quiet] = linkCharts(l, hist, farHist);
    const endN = hist.start_ns + (hist.series.in_gbps.length - 1) * hist.step_s * 1e9;
    charts.replaceChildren(
      el("p", {class: "tier-title", text: `${iso(hist.start_ns)} to ${iso(endN)} (UTC), one point per ${hist.step_s} s (the highest in it), the last ${span} min. ` +
                                          "Solid: this end" + (farHist ? "; dashed: the far end" : "; far end not watched") + (f ? "; shaded: the finding" : "")}),
      el("div", {class: "charts"}, ...plots),
      ...(quiet.length ? [el("p", {class: "dim", text: `PFC priorities ${quiet.join(", ")}: no pause frames in the hour`})] : []),
      ...(missing.length ? [el("p", {class: "dim", text: `not reported by ${src}: ${missing.join(", ")}`})] : []));
    const events = [...hist.events, ...(farHist ? farHist.events.map(e => ({...e, far: true})) : [])]
      .sort((a, b) => b.time_ns - a.time_ns);
    document.getElementById("link-events").replaceChildren(
      el("tr", {}, ...["time (UTC)", "end", "event", "detail"].map(x => el("th", {text: x}))),
      ...(events.length ? events.map(e => el("tr", {class: "event", "data-kind": e.kind},
        el("td", {text: when(e.time_ns)}), el("td", {text: e.far ? "far" : "this"}),
        el("td", {text: e.kind}), el("td", {text: e.detail}))) : [el("tr", {}, el("td", {text: "no events kept for this link"}))]));
  }
  document.getElementById("link-optics").replaceChildren(...optics(l, hist));
  document.getElementById("link-rates").replaceChildren(
    el("tr", {}, el("th", {text: "counter"}), el("th", {text: "per second"})),
    ...Object.entries(l.rates).sort().map(([k, v]) => el("tr", {}, el("td", {text: k}), el("td", {text: v.toPrecision(4)}))));
}

async function refresh() {
  try {
    const r = await fetch("api/fabric");
    if (!r.ok) throw new Error(`${r.status}`);
    doc = await r.json();
    const m = location.hash.match(/^#link\/([^/]+)\/(.+)$/);
    document.getElementById("fabric-view").hidden = !!m;
    document.getElementById("link-view").hidden = !m;
    drawSide();
    if (m) await drawLink(decodeURIComponent(m[1]), decodeURIComponent(m[2])); else drawFabric();
    document.getElementById("status").textContent = `updated ${iso(Date.now() * 1e6)} (all times UTC), every ${REFRESH_MS / 1000} s`;
    document.body.dataset.loaded = "1";
  } catch (e) {
    document.getElementById("status").textContent = `cannot reach the daemon (${e.message}); retrying`;
  }
}

document.getElementById("metric").addEventListener("change", () => doc && drawFabric());
window.addEventListener("hashchange", refresh);
refresh();
setInterval(refresh, REFRESH_MS);
