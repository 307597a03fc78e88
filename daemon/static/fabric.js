// The fabric page: polls /api/fabric, draws every port by tier, rail and switch, coloured by its
// worst condition; a port opens its link view (#link/<device>/<port>). No external code; every
// value from the daemon is put in the page as text, never as markup.
"use strict";
const REFRESH_MS = 5000;
const SERIES = {in_gbps: "Gb/s in", out_gbps: "Gb/s out", pauses: "pause frames/s", ecn: "ECN marks/s", errors: "errors/s"};
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

function spark(title, mine, far) {
  // this end solid, the far end dashed; a gap where nothing was heard in a step
  const w = 260, h = 48;
  const known = [...mine, ...(far || [])].filter(v => v !== null);
  const max = Math.max(...known, 1e-9);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "spark"); svg.setAttribute("width", w); svg.setAttribute("height", h);
  for (const [vals, cls] of [[far, "far"], [mine, "mine"]]) {
    if (!vals) continue;
    let run = [];
    const flush = () => {
      if (run.length) {
        const line = document.createElementNS(ns, "polyline");
        line.setAttribute("class", cls); line.setAttribute("points", run.join(" "));
        svg.append(line);
      }
      run = [];
    };
    vals.forEach((v, i) => {
      if (v === null) { flush(); return; }
      run.push(`${(i / Math.max(vals.length - 1, 1)) * w},${h - 2 - (v / max) * (h - 4)}`);
      if (run.length === 1 && (i === vals.length - 1 || vals[i + 1] === null)) run.push(`${(i / Math.max(vals.length - 1, 1)) * w + 2},${h - 2 - (v / max) * (h - 4)}`);
    });
    flush();
  }
  const last = [...mine].reverse().find(v => v !== null);
  return el("div", {class: "chart", "data-series": title},
    el("div", {text: `${SERIES[title]}  latest step ${last === undefined ? "-" : fmt(last)}  max ${known.length ? fmt(Math.max(...known)) : "-"}`}), svg);
}

function fmt(v) { return v === 0 ? "0" : v.toPrecision(3); }

function when(ns) { return new Date(ns / 1e6).toLocaleTimeString(); }

async function drawLink(device, port) {
  const r = await fetch(`api/link?device=${encodeURIComponent(device)}&port=${encodeURIComponent(port)}`);
  const view = document.getElementById("link-view");
  document.getElementById("link-title").textContent = `${device} ${port}`;
  if (!r.ok) { document.getElementById("link-finding").textContent = "no data for this port"; return; }
  const l = await r.json();
  const state = l.admin === 0 ? "shut by an operator (admin down)" : l.oper === 0 ? "DOWN" : l.oper === 1 ? "up" : "state unknown";
  document.getElementById("link-title").textContent = `${device} ${port} · ${l.aggregate ? "aggregate, " : ""}${state}`;
  view.dataset.device = device; view.dataset.port = port;
  const f = l.finding || l.device_finding;
  document.getElementById("link-finding").replaceChildren(f
    ? el("p", {class: `sev-${f.severity}`, text: `${f.severity}: ${f.explanation}`})
    : el("p", {text: "no finding on this link"}));
  document.getElementById("link-peer").replaceChildren(l.peer
    ? el("p", {}, "far end: ", el("a", {href: `#link/${encodeURIComponent(l.peer.device)}/${encodeURIComponent(l.peer.port)}`, text: `${l.peer.device} ${l.peer.port}`}),
         el("span", {text: l.peer.finding ? ` (finding: ${l.peer.finding.explanation})` : ""}))
    : el("p", {text: "far end unknown (no topology for this port)"}));
  const hist = l.history;
  const charts = document.getElementById("link-charts");
  if (!hist) {
    charts.replaceChildren(el("p", {class: "tier-title", text: "no history kept ([pipeline] history = 0)"}));
  } else {
    const span = Math.round(hist.step_s * hist.series.in_gbps.length / 60);
    const farSeries = l.peer && l.peer.history ? l.peer.history.series : null;
    charts.replaceChildren(
      el("p", {class: "tier-title", text: `the last ${span} min, one point per ${hist.step_s} s (the highest in it); ` +
                                          (farSeries ? "dashed: the far end" : "far end not watched")}),
      ...Object.keys(SERIES).map(n => spark(n, hist.series[n], farSeries && farSeries[n])));
    const events = [...hist.events, ...((l.peer && l.peer.history) ? l.peer.history.events.map(e => ({...e, far: true})) : [])]
      .sort((a, b) => b.time_ns - a.time_ns);
    document.getElementById("link-events").replaceChildren(
      el("tr", {}, ...["time", "end", "event", "detail"].map(x => el("th", {text: x}))),
      ...(events.length ? events.map(e => el("tr", {class: "event", "data-kind": e.kind},
        el("td", {text: when(e.time_ns)}), el("td", {text: e.far ? "far" : "this"}),
        el("td", {text: e.kind}), el("td", {text: e.detail}))) : [el("tr", {}, el("td", {text: "no events kept for this link"}))]));
  }
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
    document.getElementById("status").textContent = `updated ${new Date().toLocaleTimeString()}, every ${REFRESH_MS / 1000} s`;
    document.body.dataset.loaded = "1";
  } catch (e) {
    document.getElementById("status").textContent = `cannot reach the daemon (${e.message}); retrying`;
  }
}

document.getElementById("metric").addEventListener("change", () => doc && drawFabric());
window.addEventListener("hashchange", refresh);
refresh();
setInterval(refresh, REFRESH_MS);
