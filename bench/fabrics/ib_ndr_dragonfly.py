#!/usr/bin/env python3
"""Labelled test fabric: InfiniBand NDR (400G), three groups joined by a small global tier.

Written from /work/shared/scenarios/README.md (schema, tags, field vocabulary, label form) and
/work/shared/scenarios/score.py (how findings are scored) only; no other code of the project was
read. Needs Python 3 + numpy.

    python bench/fabrics/ib_ndr_dragonfly.py OUTDIR [--seed N] [--hours H] [--verbose]

writes OUTDIR/port_counters.lp (measurement `port_counters`, one line per switch port per poll,
time-ordered) and OUTDIR/labels.json (the form score.py reads; `fit_first` = 30 % of the run, no
fault inside it). Same seed -> byte-identical files; another seed moves the faults and the healthy
phenomena to other eligible switches/ports (and shifts their times by up to +-2 min). Default seed 1,
3 h: 936 ports, 541 polls, 504,906 lines (~276 MB), ~2.5 s, < 1 GB RAM. --verbose prints placements.

TOPOLOGY (3-tier, rail-aligned inside each group)
  * 72 GPU hosts gpu001..gpu072, 8 HCAs each (mlx5_0..mlx5_7), 24 hosts per group (groups 0, 1, 2).
  * Rail-aligned: HCA r of every host of group g is cabled to rail leaf `leaf-r<r>-<g>` (8 leaves per
    group, 24 leaves). Leaf ports 1/1..1/24 face the hosts (host slot i -> port 1/(i+1)); ports
    1/25..1/30 are uplinks, two parallel links to each of the 3 group spines (1/(25+2s+j)).
    Intra-group rail traffic never leaves the leaf; only cross-group bytes go up (leaves 4:1).
  * Group spines `gspine-<g>-<s>` (3 per group, 9): ports 1/1..1/16 face the 8 rail leaves of the
    group (1/(1+2r+j)), ports 1/17..1/20 face the global tier, two links to each core (1/(17+2m+j)).
  * Global tier: 2 director switches `core-0`, `core-1` with 3 line cards of 6 used ports
    (`<card>/<port>`); card c serves group c-1: ports (g*3+s)*2+j -> card idx//6+1, port idx%6+1.
  * Links: 576 host links (one switch end each), 144 leaf-spine links, 36 spine-core links; 936
    switch ports. All 400G (`speed=400G`).
  * Tags, in the README's order: device, port, fabric=ib, role, rail, peer_device, peer_port, speed.
    Roles: `leaf_down` (leaf port facing a host; peer gpuNNN / mlx5_<rail>), `leaf_up` (leaf port
    facing a group spine), `spine` (group-spine port facing a leaf) are the README's. Invented here:
    `spine_up` (group-spine port facing the global tier) and `core` (global-tier port facing a group
    spine). `rail` is the leaf's rail on leaf ports and on spine ports (the rail of the leaf they
    face); the global links carry every rail, so `spine_up` and `core` ports have NO rail tag.

COUNTERS PER SWITCH FAMILY (raw cumulative integers with `i`, gauges as floats)
  * Leaves and group spines (Quantum-2-like, full PortCounters + extended counters): all 16 README
    fields `in_octets out_octets in_pkts out_pkts symbol_errors link_error_recovery link_downed
    rcv_errors rcv_remote_physical_errors xmit_discards xmit_wait local_link_integrity_errors
    excessive_buffer_overrun_errors link_transitions oper_status speed_bps`, plus two float gauges that
    are NOT in the README's list (added because two faults live there; a detector that ignores
    unknown fields still sees those faults' late errors): `module_temp_c` (cable module temperature,
    0.1 degC) and `pre_fec_ber` (receiver pre-FEC bit error ratio, 0 while the link is down).
  * Core directors (older family polled through classic PortCounters): no `xmit_wait`, no
    `local_link_integrity_errors`, no `excessive_buffer_overrun_errors`, no gauges, and 32-bit
    `in_pkts`/`out_pkts` that wrap (cumulative modulo 2^32; ~<= 2.8e8 per poll, a wrap every
    ~15-60 min). Octets stay 64-bit.
  * IB error counters saturate at their classic widths (symbol_errors, rcv_errors,
    rcv_remote_physical_errors, xmit_discards 16 bit; link_error_recovery, link_downed 8 bit;
    local_link_integrity / excessive_buffer_overrun 4 bit). xmit_wait is the 64-bit extended counter
    in 8-byte ticks (6.25e9 ticks/s = waiting all the time at 400G). Counters start from large
    random values (switches up for months); error counters from small ones.
  * Polls every 20 s (`sample_s` 20; labels keep `interval_s` 30, the scoring unit). Each switch is
    stamped 0.05-5.5 s after the 20 s tick (fixed per-switch offset + per-poll jitter, ms resolution);
    its counters are the values at that instant. A rebooted/replaced switch restarts every counter
    from zero; no lines while a switch is unreachable or during a collector gap.

WORKLOAD
  * Job A: hosts slots 0-15 of every group (48 hosts), data-parallel all-reduce, ~41 s iterations,
    45 % communication at ~82 % of line rate, 5 % of its bytes cross groups.
  * Job B: slots 16-21 (18 hosts), MoE, 29 s iterations, 8 % cross-group; expert all-to-all phases.
  * Slots 22-23 (6 hosts): light dev/inference traffic; three of them are checkpoint cache hosts.
  * Cross-group bytes are spread over the leaf uplinks by static-routing weights (small skew), then
    over each spine's 4 global links; a down link's share moves to its parallel sibling to the same
    spine when that one is up, else to all others. Global-tier demand above its capacity throttles
    the jobs (collectives paced by the bottleneck) and turns into xmit_wait on the ports feeding it.

TIMELINE, default 3 h (minutes; fit window 0-54 = `fit_first` 54m). Seed 1 placements.
  Healthy phenomena (must NOT be flagged; all in labels.json `healthy_phenomena`):
    0-180  allreduce_iterations everywhere (background)                      where "*"
    0-180  timestamp_jitter (background)                                     where "*"
    0-180  sporadic_symbol_errors: 23 links (~3 %), single symbol errors at 0.5-5/h, no
           link_error_recovery (background)                                  e.g. leaf-r2-0:1/1
    0-180  routing_imbalance: leaf uplinks leaf-r5-1:1/26, leaf-r2-1:1/26, leaf-r0-2:1/25 and global
           link gspine-1-1:1/17 (core-0:2/3) carry 1.6-2.0x their siblings all run (both ends listed)
    24-28, 90-94, 147-151  all_to_all (job B): global-tier demand ~1.8x capacity, xmit_wait at
           ~25 % of the time on most spine_up ports and ~18 % on leaf uplinks at once (first one in
           the fit window)
    42-45, 106-109, 136-139  checkpoint_burst towards gpu023, gpu047, gpu072: their 24 leaf ports at
           ~93 % of line rate, xmit_wait ~8 % of the time there, spine ports towards their leaves wait
    66-70  planned_reboot of gspine-2-2: no samples 4 min, counters from zero, its 20 neighbour ports
           down ~3.6 min (link_downed +1, link_transitions +2, xmit_discards, symbol errors at link-up),
           traffic on the other spines
    84-91  collector_gap on leaf-r3-1 (7 min without lines, counters keep counting)
    97-107 switch_replacement of gspine-0-1 (10 min unreachable, new switch counts from zero)
    101-121 global_congestion: job A's 20-min cross-group phase spanning all groups; global tier at
           ~95 %, xmit_wait on leaf uplinks and spine_up ports, the job paced by it
    117-177 admin_down: leaf-r5-0:1/26 <-> gspine-0-0:1/12 disabled for an hour. The README schema
           has no admin-state field, so both ends report oper_status 0 (link_transitions +1 at each
           end at disable and enable, link_downed +1 on the spine end only); its parallel sibling
           leaf-r5-0:1/25 carries double
    162-174 idle: all jobs stopped 10 min (management traffic only), 2 min warm-up
  Faults (must be found; kind names are the README's where it has one, otherwise new):
    57-180  rcv_errors_rising        gspine-0-2:1/16 (spine end of leaf-r7-0:1/30): rcv_errors at 1e-7
            -> 1e-5 of received packets, exponential, load-following, no symbol errors, no BER change
    62-180  module_overheating       leaf-r0-0:1/30 (to gspine-0-2:1/2): module_temp_c +24 degC over
            62 min (load-independent) with no error; symbol_errors from ~130 (0.02/s -> 3/s),
            rcv_errors ~8 %, far end ~20 %, link_error_recovery only in the last ~25 min
    69-180  pre_fec_ber_ramp         gspine-2-1:1/18 (global link to core-0:3/4): pre_fec_ber ~4e-9
            -> 3e-5 over 90 min (x10 every ~23 min); symbol_errors once BER > 3e-6 (~140 on), up to
            ~50/s (16-bit counter may saturate), rcv_errors ~3 %, link_error_recovery at the end
    78-97   flapping_link            leaf-r5-0:1/14 (gpu014 mlx5_5): 3 bursts of 2-6 down/up cycles
            (link_downed, link_transitions +2, link_error_recovery, symbol errors at link-up,
            xmit_discards, oper_status 0 when a poll lands in a down)
    87-129  half_speed_link          leaf-r3-2:1/13 (gpu061 mlx5_3): bounce, back at HDR: speed_bps
            200000000000 under the 400G tag; at most 200G, i.e. twice its siblings' share of its
            negotiated speed; job A ~25 % slower; reseated at 129 (bounce back to 400G)
    107-180 link_down_after_replacement  gspine-0-1:1/3 <-> leaf-r1-0:1/27: the only link not back
            after the replacement; both ends oper_status 0, the new switch's port all zeros, no
            traffic; sibling leaf-r1-0:1/28 <-> gspine-0-1:1/4 carries double (listed `related`)
    118-152 hca_credit_starvation    leaf-r2-1:1/7 (gpu031 mlx5_2): xmit_wait ~17x the median of
            its job siblings on the same leaf (and ~25x its own history) at the same load
    128-142 credit_loop              gspine-1-2 (ports "*"; its 20 far ends are `peer_ends`):
            xmit_wait 75-95 % of the time on every port (60-90 % on the leaf uplinks feeding it),
            throughput through it ~6 % of normal, jobs ~40 % slower; overlaps a checkpoint burst
    138-174 line_card_errors         core-1 ports 1/1..1/6 (card 1, group 0's spines):
            rcv_remote_physical_errors at 2e-6..8e-6 of received packets, xmit_discards ~30 % of
            that, ~10 % on the gspine-0-* ends; quiet during the idle period
  All fault starts are on whole minutes after the fit window. With --hours H the story's times
  scale by H/3 (the short events keep their durations).

LABELS: `scenario` ib-ndr-dragonfly, `fabric` ib, `interval_s` 30, `sample_s` 20, `fit_first` e.g.
"54m", `ports` 936, `lines`; faults with `peer_ends` (far end of the same cable; for the credit loop
every far end) and `related` (the double-loaded sibling of the link left down); healthy phenomena
with `where` lists ("device:port", "device:*" or "*"), `background: true` only on the all-run
trickles (all-reduce, jitter, sporadic symbol errors).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

# ----------------------------------------------------------------------------------------------
# constants
# ----------------------------------------------------------------------------------------------
SCENARIO = "ib-ndr-dragonfly"
T0_NS = 1741730400 * 10**9          # 2025-03-11T22:00:00Z
SP = 20                             # poll period, seconds
INTERVAL_S = 30                     # scoring interval (score.py unit), as in the README
LINE_BPS = 400e9
LINE = LINE_BPS / 8.0               # bytes/s at 400G
G, RAILS, HPG, SPG, NCORE = 3, 8, 24, 3, 2
NHOST = G * HPG
JOB_A = range(0, 16)                # host slots per group
JOB_B = range(16, 22)
SPARE = range(22, 24)

F_INT = ["in_octets", "out_octets", "in_pkts", "out_pkts", "symbol_errors", "link_error_recovery",
         "link_downed", "rcv_errors", "rcv_remote_physical_errors", "xmit_discards", "xmit_wait",
         "local_link_integrity_errors", "excessive_buffer_overrun_errors", "link_transitions",
         "oper_status", "speed_bps"]
FI = {n: i for i, n in enumerate(F_INT)}
# counters accumulated from rates/increments (everything except the two state gauges)
CUM = F_INT[:14]
# classic PortCounters widths; xmit_wait is the 64-bit extended counter
SAT_BITS = {"symbol_errors": 16, "link_error_recovery": 8, "link_downed": 8, "rcv_errors": 16,
            "rcv_remote_physical_errors": 16, "xmit_discards": 16,
            "local_link_integrity_errors": 4, "excessive_buffer_overrun_errors": 4}
SUB_MISSING = {"xmit_wait", "local_link_integrity_errors", "excessive_buffer_overrun_errors"}


def mins(m):
    return int(round(m * 60))


# ----------------------------------------------------------------------------------------------
# topology
# ----------------------------------------------------------------------------------------------
class Fabric:
    def __init__(self):
        self.devs, self.dev_fam, self.dev_kind = [], [], []
        self.dev_index = {}
        self.p_dev, self.p_name, self.p_role, self.p_rail = [], [], [], []
        self.p_pdev, self.p_pport, self.p_link, self.p_end = [], [], [], []
        self.l_kind, self.l_a, self.l_b, self.l_meta = [], [], [], []
        self.leaf_port = {}   # (g, r, slot) -> port (slot 0..23 host, ('up', s, j))
        self.lg = {}          # (g, r, s, j) -> link
        self.gc = {}          # (g, s, m, j) -> link
        self.hostlink = {}    # (hid, r) -> link

    def dev(self, name, fam, kind):
        self.dev_index[name] = len(self.devs)
        self.devs.append(name)
        self.dev_fam.append(fam)
        self.dev_kind.append(kind)
        return self.dev_index[name]

    def port(self, dev, name, role, rail, pdev, pport):
        self.p_dev.append(dev)
        self.p_name.append(name)
        self.p_role.append(role)
        self.p_rail.append(rail)
        self.p_pdev.append(pdev)
        self.p_pport.append(pport)
        self.p_link.append(-1)
        self.p_end.append(0)
        return len(self.p_dev) - 1

    def link(self, kind, a, b, meta):
        li = len(self.l_kind)
        self.l_kind.append(kind)
        self.l_a.append(a)
        self.l_b.append(b)
        self.l_meta.append(meta)
        self.p_link[a] = li
        self.p_end[a] = 0
        if b >= 0:
            self.p_link[b] = li
            self.p_end[b] = 1
        return li


def leaf_name(g, r):
    return f"leaf-r{r}-{g}"


def spine_name(g, s):
    return f"gspine-{g}-{s}"


def core_name(m):
    return f"core-{m}"


def host_name(hid):
    return f"gpu{hid + 1:03d}"


def leaf_up_port(s, j):
    return f"1/{25 + 2 * s + j}"


def spine_down_port(r, j):
    return f"1/{1 + 2 * r + j}"


def spine_up_port(m, j):
    return f"1/{17 + 2 * m + j}"


def core_port(g, s, j):
    idx = (g * SPG + s) * 2 + j
    return f"{idx // 6 + 1}/{idx % 6 + 1}"


def build():
    fb = Fabric()
    # devices in output order: leaves, group spines, core
    for g in range(G):
        for r in range(RAILS):
            fb.dev(leaf_name(g, r), "full", "leaf")
    for g in range(G):
        for s in range(SPG):
            fb.dev(spine_name(g, s), "full", "spine")
    for m in range(NCORE):
        fb.dev(core_name(m), "sub", "core")
    # ports, grouped per device in device order
    pid = {}
    for g in range(G):
        for r in range(RAILS):
            d = fb.dev_index[leaf_name(g, r)]
            for hl in range(HPG):
                hid = g * HPG + hl
                pid[("ld", g, r, hl)] = fb.port(d, f"1/{hl + 1}", "leaf_down", r, host_name(hid), f"mlx5_{r}")
            for s in range(SPG):
                for j in range(2):
                    pid[("lu", g, r, s, j)] = fb.port(d, leaf_up_port(s, j), "leaf_up", r,
                                                      spine_name(g, s), spine_down_port(r, j))
    for g in range(G):
        for s in range(SPG):
            d = fb.dev_index[spine_name(g, s)]
            for r in range(RAILS):
                for j in range(2):
                    pid[("sd", g, s, r, j)] = fb.port(d, spine_down_port(r, j), "spine", r,
                                                      leaf_name(g, r), leaf_up_port(s, j))
            for m in range(NCORE):
                for j in range(2):
                    pid[("su", g, s, m, j)] = fb.port(d, spine_up_port(m, j), "spine_up", None,
                                                      core_name(m), core_port(g, s, j))
    for m in range(NCORE):
        d = fb.dev_index[core_name(m)]
        for g in range(G):
            for s in range(SPG):
                for j in range(2):
                    pid[("co", m, g, s, j)] = fb.port(d, core_port(g, s, j), "core", None,
                                                      spine_name(g, s), spine_up_port(m, j))
    # links
    for g in range(G):
        for r in range(RAILS):
            for hl in range(HPG):
                hid = g * HPG + hl
                fb.hostlink[(hid, r)] = fb.link("host", pid[("ld", g, r, hl)], -1, (g, r, hl, hid))
    for g in range(G):
        for r in range(RAILS):
            for s in range(SPG):
                for j in range(2):
                    fb.lg[(g, r, s, j)] = fb.link("lg", pid[("lu", g, r, s, j)], pid[("sd", g, s, r, j)],
                                                  (g, r, s, j))
    for g in range(G):
        for s in range(SPG):
            for m in range(NCORE):
                for j in range(2):
                    fb.gc[(g, s, m, j)] = fb.link("gc", pid[("su", g, s, m, j)], pid[("co", m, g, s, j)],
                                                  (g, s, m, j))
    fb.pid = pid
    fb.P = len(fb.p_dev)
    fb.L = len(fb.l_kind)
    fb.D = len(fb.devs)
    fb.p_dev = np.array(fb.p_dev)
    fb.p_link = np.array(fb.p_link)
    fb.p_end = np.array(fb.p_end)
    fb.l_a = np.array(fb.l_a)
    fb.l_b = np.array(fb.l_b)
    fb.p_full = np.array([fb.dev_fam[d] == "full" for d in fb.p_dev])
    fb.dev_ports = [np.nonzero(fb.p_dev == d)[0] for d in range(fb.D)]
    return fb


def pref(fb, p):
    """'device:port' string of a port."""
    return f"{fb.devs[fb.p_dev[p]]}:{fb.p_name[p]}"


def peer_of(fb, p):
    l = fb.p_link[p]
    a, b = fb.l_a[l], fb.l_b[l]
    return b if p == a else a


# ----------------------------------------------------------------------------------------------
# generation
# ----------------------------------------------------------------------------------------------
def generate(outdir, seed=1, hours=3.0):
    t_start = time.time()
    rng = np.random.default_rng(seed)
    fb = build()
    P, L, D = fb.P, fb.L, fb.D
    N = int(round(hours * 3600 / SP))           # samples 0..N
    K = N + 1                                   # simulated intervals (one past the last sample)
    TS = K * SP                                 # simulated seconds
    dur = N * SP
    sc = hours / 3.0                            # timeline scale (story written for 3 h)
    fit_s = int(round(0.3 * dur))
    edges = np.arange(K + 1) * SP

    def at(m3, jit=2):
        """A story time (minutes in the 3 h story) scaled to this run, jittered per seed, on a minute."""
        m = int(round(m3 * sc)) + int(rng.integers(-jit, jit + 1))
        return mins(max(m, 1))

    def dur_of(m3, scale=True):
        return mins(max(1, int(round(m3 * sc)))) if scale else mins(m3)

    def win(a, b):
        """per-interval fraction of [a, b) inside each interval."""
        return np.clip(np.minimum(b, edges[1:]) - np.maximum(a, edges[:-1]), 0, None) / SP

    # ---------------- timeline ----------------
    tl = {}
    tl["a2a"] = [(at(24), mins(4)), (at(90), mins(4)), (at(146), mins(4))]
    tl["ckpt"] = [(at(40), mins(3)), (at(108), mins(3)), (at(138), mins(3))]
    tl["reboot"] = at(64)
    tl["gap"] = (at(82), mins(7))
    tl["replace"] = at(98)
    tl["gcong"] = (at(102), mins(20) if hours >= 2 else mins(10))
    tl["admin"] = (at(115), dur_of(60))
    tl["idle"] = (at(162), mins(10))
    # faults (never before the fit window ends)
    def fstart(m3):
        t = at(m3)
        return max(t, fit_s - fit_s % 60 + mins(2))
    ft = {}
    ft["rcv_err"] = (fstart(58), dur)
    ft["heat"] = (fstart(60), dur)
    ft["prefec"] = (fstart(70), dur)
    ft["flap"] = (fstart(78), None)
    ft["half"] = (fstart(86), None)
    ft["hca"] = (fstart(118), None)
    ft["hca"] = (ft["hca"][0], ft["hca"][0] + dur_of(34))
    ft["loop"] = (fstart(130), None)
    ft["loop"] = (ft["loop"][0], ft["loop"][0] + dur_of(14))
    ft["lc"] = (fstart(140), None)
    ft["lc"] = (ft["lc"][0], min(dur, ft["lc"][0] + dur_of(36)))
    half_end = ft["half"][0] + dur_of(42)
    ft["half"] = (ft["half"][0], half_end)

    # ---------------- placements ----------------
    gperm = rng.permutation(G)
    R = (int(gperm[0]), int(rng.integers(SPG)))          # planned reboot spine
    Q = (int(gperm[1]), int(rng.integers(SPG)))          # replaced spine (one link left down)
    SL = (int(gperm[2]), int(rng.integers(SPG)))         # credit-loop spine
    busy_spines = {R, Q, SL}
    # hosts for host-link faults: distinct groups/leaves, hosts in a running job
    jobhosts = [g * HPG + hl for g in range(G) for hl in list(JOB_A) + list(JOB_B)]
    jobA_hosts = [g * HPG + hl for g in range(G) for hl in JOB_A]
    pick = rng.permutation(len(jobA_hosts))
    h_half = jobA_hosts[pick[0]]
    h_hca = jobA_hosts[pick[1]]
    h_flap = int(rng.choice([h for h in jobhosts if h not in (h_half, h_hca)]))
    r_half, r_hca, r_flap = [int(x) for x in rng.choice(RAILS, 3, replace=False)]
    # line card: core lc_m, the card serving the group of R or Q (not the credit-loop group)
    lc_m = int(rng.integers(NCORE))
    lc_g = int(rng.choice([R[0], Q[0]]))
    # global links (group-spine side) not on busy spines nor on the faulty line card
    free_gc = [(g, s, m, j) for (g, s, m, j) in fb.gc if (g, s) not in busy_spines and not (m == lc_m and g == lc_g)]
    order = rng.permutation(len(free_gc))
    gc_prefec = free_gc[order[0]]
    gc_imb = next(free_gc[i] for i in order[1:] if free_gc[i][:2] != gc_prefec[:2])
    # group-internal links not touching busy spines nor the pre-FEC spine, on six different leaves
    free_lg = [(g, r, s, j) for (g, r, s, j) in fb.lg if (g, s) not in busy_spines and (g, s) != gc_prefec[:2]]
    order = rng.permutation(len(free_lg))
    used_leafspine = set()
    used_leaf = set()
    chosen = []
    for i in order:
        key = free_lg[i]
        if key[:3] in used_leafspine or key[:2] in used_leaf:
            continue
        used_leafspine.add(key[:3])
        used_leaf.add(key[:2])
        chosen.append(key)
        if len(chosen) == 6:
            break
    lg_heat, lg_rcv, lg_admin, *lg_imb = chosen          # heating module, rcv_errors, admin-down, 3 imbalanced
    # replaced spine: the link left down (one of its leaf-facing ports)
    q_r, q_j = int(rng.integers(RAILS)), int(rng.integers(2))
    # collector gap device: a leaf with no fault port
    fault_leaves = {(lg_heat[0], lg_heat[1]), (lg_rcv[0], lg_rcv[1]), (lg_admin[0], lg_admin[1]),
                    (h_half // HPG, r_half), (h_hca // HPG, r_hca), (h_flap // HPG, r_flap), (Q[0], q_r)}
    gap_cands = [(g, r) for g in range(G) for r in range(RAILS) if (g, r) not in fault_leaves]
    gap_leaf = gap_cands[int(rng.integers(len(gap_cands)))]
    # checkpoint targets: 3 of the spare hosts
    spares = [g * HPG + hl for g in range(G) for hl in SPARE]
    ck_targets = sorted(int(x) for x in rng.choice(spares, 3, replace=False))

    # ---------------- workload (per second, then per interval) ----------------
    tsec = np.arange(TS) + 0.5

    def ar_wave(period, duty, burst, lo=0.012):
        n = int(TS / period * 1.4) + 20
        lens = period * np.clip(1 + 0.04 * rng.standard_normal(n), 0.85, 1.2)
        ends = np.cumsum(lens) - rng.uniform(0, period)
        starts = ends - lens
        i = np.searchsorted(ends, tsec, side="right")
        cstart = starts[i] + (1 - duty) * lens[i]
        return np.where(tsec >= cstart, burst * (0.93 + 0.1 * rng.random(TS)), lo)

    def per_int(x):
        return x.reshape(K, SP).mean(axis=1)

    def mask_sec(a, b):
        return (tsec >= a) & (tsec < b)

    # job A: data-parallel all-reduce, hierarchical (5 % of its bytes cross groups)
    wA = ar_wave(41.0, 0.45, 0.82)
    gc0, gcd = tl["gcong"]
    wAc = ar_wave(23.0, 0.72, 0.90)          # cross-group phase of job A
    mc = mask_sec(gc0, gc0 + gcd)
    wA = np.where(mc, wAc, wA)
    xA = np.where(mc, 0.30, 0.05)
    # job B: MoE; expert all-to-all phases
    wB = ar_wave(29.0, 0.35, 0.70)
    xB = np.full(TS, 0.08)
    ma2a = np.zeros(TS, bool)
    for a0, ad in tl["a2a"]:
        ma2a |= mask_sec(a0, a0 + ad)
    a2a_sec = 0.55 * np.clip(1 + 0.35 * rng.standard_normal(TS), 0.3, 1.6)
    wB = np.where(ma2a, a2a_sec, wB)
    xB = np.where(ma2a, 0.70, xB)
    # spares: light dev / inference traffic
    wS = np.clip(0.035 * np.exp(np.cumsum(0.02 * rng.standard_normal(TS))), 0.005, 0.12)

    idle0, idled = tl["idle"]
    run = np.ones(TS)
    run[mask_sec(idle0, idle0 + idled)] = 0.0
    run[mask_sec(idle0 + idled, idle0 + idled + 120)] = 0.3      # restart / warm-up
    slowA = np.ones(TS)
    slowB = np.ones(TS)
    slowA[mask_sec(ft["half"][0], ft["half"][1])] *= 0.75          # ring paced by the half-speed HCA
    slowA[mask_sec(ft["loop"][0], ft["loop"][1])] *= 0.6           # collectives stalling on the loop
    slowB[mask_sec(ft["loop"][0], ft["loop"][1])] *= 0.6

    aA = per_int(wA * run * slowA)
    aB = per_int(wB * run * slowB)
    aS = per_int(wS * run)
    xA_k = per_int(xA)
    xB_k = per_int(xB)

    # per host/rail tx and rx demand (fraction of line), intra-group and cross-group
    host_job = np.zeros(NHOST, int)
    for g in range(G):
        for hl in JOB_B:
            host_job[g * HPG + hl] = 1
        for hl in SPARE:
            host_job[g * HPG + hl] = 2
    hf = 1 + 0.015 * rng.standard_normal((NHOST, RAILS, 1))
    nz = lambda s: 1 + s * rng.standard_normal((NHOST, RAILS, K))
    act = np.where(host_job[:, None, None] == 0, aA[None, None, :],
                   np.where(host_job[:, None, None] == 1, aB[None, None, :], aS[None, None, :]))
    xfr = np.where(host_job[:, None, None] == 0, xA_k[None, None, :],
                   np.where(host_job[:, None, None] == 1, xB_k[None, None, :], 0.3))
    # all-to-all: transient hot receivers
    a2a_k = per_int(ma2a.astype(float))
    hot = np.where(a2a_k[None, None, :] > 0, np.clip(1 + 0.25 * rng.standard_normal((NHOST, RAILS, K)), 0.5, 1.7), 1.0)
    spare_var = np.exp(0.3 * rng.standard_normal((NHOST, 1, 1)))
    act = act * hf * np.where(host_job[:, None, None] == 2, spare_var, 1.0)
    tx = act * nz(0.025) * LINE
    rx = act * nz(0.025) * hot * LINE
    tx_x = tx * xfr
    rx_x = rx * xfr
    tx_i = tx - tx_x
    rx_i = rx - rx_x
    # checkpoint bursts: job A hosts write shards towards 3 cache hosts at line rate
    ck_k = np.zeros(K)
    for c0, cd in tl["ckpt"]:
        ck_k += win(c0, c0 + cd)
    ck_k = np.clip(ck_k, 0, 1) * per_int(run)
    tgt_rx = 0.95 * LINE * ck_k * (1 + 0.02 * rng.standard_normal(K))
    srcs = jobA_hosts
    per_src = 3 * tgt_rx / len(srcs)
    for h in srcs:
        g = h // HPG
        n_other = sum(1 for t in ck_targets if t // HPG != g)
        tx_x[h] += per_src * n_other / 3
        tx_i[h] += per_src * (3 - n_other) / 3
    for t in ck_targets:
        gt = t // HPG
        frac_x = sum(1 for h in srcs if h // HPG != gt) / len(srcs)
        rx_x[t] += tgt_rx * frac_x
        rx_i[t] += tgt_rx * (1 - frac_x)

    # ---------------- link state: availability per interval and events ----------------
    avail = np.ones((L, K))
    downs = [[] for _ in range(L)]          # (t_down, t_up)
    ev = []                                 # (port, field, time, count)

    def add_ev(p, field, t, n=1):
        if p >= 0 and n:
            ev.append((int(p), FI[field], float(t), int(n)))

    def link_down(l, td, tu, downed=(True, True), trans=(True, True), symerr=(0, 6), discards=(0, 0),
                  ler=0):
        tu_eff = tu if tu is not None else 1e18
        avail[l] -= win(td, min(tu_eff, TS + 1e6))
        downs[l].append((td, tu_eff))
        for e, p in enumerate((fb.l_a[l], fb.l_b[l])):
            if p < 0:
                continue
            if downed[e]:
                add_ev(p, "link_downed", td)
            if trans[e]:
                add_ev(p, "link_transitions", td)
                if tu is not None:
                    add_ev(p, "link_transitions", tu)
            if ler:
                add_ev(p, "link_error_recovery", td - 0.5, ler)
            if discards[1] > 0:
                add_ev(p, "xmit_discards", td + 0.2, int(rng.integers(discards[0], discards[1] + 1)))
            if tu is not None and symerr[1] > 0:
                add_ev(p, "symbol_errors", tu + 0.3, int(rng.integers(symerr[0], symerr[1] + 1)))

    def dev_links(sp):
        g, s = sp
        ls = [fb.lg[(g, r, s, j)] for r in range(RAILS) for j in range(2)]
        ls += [fb.gc[(g, s, m, j)] for m in range(NCORE) for j in range(2)]
        return ls

    unreach = [[] for _ in range(D)]        # (a, b) windows with no samples
    resets = {}                             # dev -> reset time
    # planned reboot of spine R: 4 min unreachable, links down ~3.6 min, counters from zero
    tr = tl["reboot"]
    dR = fb.dev_index[spine_name(*R)]
    unreach[dR].append((tr, tr + 240))
    resets[dR] = tr + 200
    for l in dev_links(R):
        a_is_R = fb.l_kind[l] == "gc"
        link_down(l, tr + rng.uniform(0.3, 2.0), tr + 214 + rng.uniform(0, 10),
                  downed=(not a_is_R, a_is_R), symerr=(0, 4), discards=(20, 400))
    # replacement of spine Q: 10 min unreachable, every link back but one
    tq = tl["replace"]
    dQ = fb.dev_index[spine_name(*Q)]
    unreach[dQ].append((tq, tq + 600))
    resets[dQ] = tq + 560
    l_left = fb.lg[(Q[0], q_r, Q[1], q_j)]
    l_left_sib = fb.lg[(Q[0], q_r, Q[1], 1 - q_j)]
    for l in dev_links(Q):
        a_is_Q = fb.l_kind[l] == "gc"
        if l == l_left:
            link_down(l, tq + rng.uniform(0.3, 2.0), None, downed=(True, False), trans=(True, True),
                      discards=(20, 300))
        else:
            link_down(l, tq + rng.uniform(0.3, 2.0), tq + 574 + rng.uniform(0, 12),
                      downed=(not a_is_Q, a_is_Q), symerr=(0, 4), discards=(20, 400))
    t_left = tq + 600                       # the fault: everything else is back, this one is not
    # collector gap
    dgap = fb.dev_index[leaf_name(*gap_leaf)]
    unreach[dgap].append((tl["gap"][0], tl["gap"][0] + tl["gap"][1]))
    # admin-disabled uplink (both ends oper down, the spine end counts link_downed)
    l_admin = fb.lg[lg_admin]
    l_admin_sib = fb.lg[(lg_admin[0], lg_admin[1], lg_admin[2], 1 - lg_admin[3])]
    ta0, tad = tl["admin"]
    link_down(l_admin, ta0 + 3.0, min(ta0 + tad, TS + 100), downed=(False, True), symerr=(0, 1))
    # flapping host link: three bursts of 2-6 down/up cycles
    l_flap = fb.hostlink[(h_flap, r_flap)]
    f0 = ft["flap"][0]
    bursts = [f0 + rng.uniform(4, 10), f0 + mins(8 * sc) + rng.uniform(0, 60),
              f0 + mins(16 * sc) + rng.uniform(0, 60)]
    flap_last = f0
    for bi, b0 in enumerate(bursts):
        t = b0
        add_ev(fb.l_a[l_flap], "link_error_recovery", t - 3.0, int(rng.integers(1, 3)))
        for c in range(int(rng.integers(2, 7))):
            d = rng.uniform(2, 25)
            link_down(l_flap, t, t + d, symerr=(2, 20), discards=(5, 120), ler=int(rng.random() < 0.6))
            if rng.random() < 0.3:
                add_ev(fb.l_a[l_flap], "local_link_integrity_errors", t + d + 0.5, 1)
            t = t + d + rng.uniform(5, 60)
        flap_last = t
    ft["flap"] = (f0, int(math.ceil(flap_last / 60.0)) * 60)
    # half-speed host link: bounce, renegotiated at HDR (200G), reseated at the end (bounce back)
    l_half = fb.hostlink[(h_half, r_half)]
    hs0, hs1 = ft["half"]
    link_down(l_half, hs0 + 0.5, hs0 + 9.5, symerr=(1, 8), discards=(5, 60))
    link_down(l_half, hs1 - 25.0, hs1 - 4.0, symerr=(1, 8), discards=(5, 60))
    half_lo, half_hi = hs0 + 9.5, hs1 - 25.0

    # ---------------- routing and flows ----------------
    # per-leaf uplink weights (static routing, small skew), three links at 1.5-2x their siblings
    def base_w(n, skew=0.05):
        return 1 + skew * rng.standard_normal(n)
    w_out = {}
    w_in = {}
    for g in range(G):
        for r in range(RAILS):
            w_out[(g, r)] = base_w(6)
            w_in[(g, r)] = base_w(6)
    imb_mult = {}
    for key in lg_imb:
        g, r, s, j = key
        m = rng.uniform(1.5, 2.0)
        imb_mult[key] = m
        i = 2 * s + j
        w_out[(g, r)][i] *= m
        w_in[(g, r)][i] *= rng.uniform(1.5, 2.0)
    v_out, v_in = {}, {}
    for g in range(G):
        for s in range(SPG):
            v_out[(g, s)] = base_w(4)
            v_in[(g, s)] = base_w(4)
    g_, s_, m_, j_ = gc_imb
    v_out[(g_, s_)][2 * m_ + j_] *= rng.uniform(1.5, 1.9)
    v_in[(g_, s_)][2 * m_ + j_] *= rng.uniform(1.5, 1.9)

    def eff_weights(w, a):
        n = len(w)
        W = w[:, None] * a
        for i in range(n):
            lost = w[i] * (1 - a[i])
            if not np.any(lost > 0):
                continue
            j = i ^ 1
            to_sib = lost * (a[j] > 0.999)
            W[j] += to_sib
            rest = lost - to_sib
            others = W.copy()
            others[i] = 0
            tot = others.sum(0)
            W += np.where(tot > 0, rest / np.where(tot > 0, tot, 1), 0) * others
        tot = W.sum(0)
        return W / np.where(tot > 0, tot, 1)

    # credit loop on spine SL: flows through it collapse (no reroute: the VL is deadlocked)
    loop_k = win(*ft["loop"])
    stall = 1 - 0.94 * loop_k
    sl_links = set(dev_links(SL))

    # spine_up capacity per group (for the global tier throttle)
    C_g = np.zeros((G, K))
    for (g, s, m, j), l in fb.gc.items():
        C_g[g] += 0.95 * LINE * avail[l] * (stall if l in sl_links else 1.0)
    hosts_of = lambda g: slice(g * HPG, (g + 1) * HPG)
    Dout = np.stack([tx_x[hosts_of(g)].sum(0) for g in range(G)])      # (G, RAILS, K)
    Din = np.stack([rx_x[hosts_of(g)].sum(0) for g in range(G)])
    Pout = Dout.sum(1) / C_g
    Pin = Din.sum(1) / C_g
    theta = np.minimum(1.0, np.minimum((1 / np.maximum(Pout, 1e-9)).min(0), (1 / np.maximum(Pin, 1e-9)).min(0)))
    # the collectives are paced by the global bottleneck: intra traffic slows with it
    slow_x = 0.5 + 0.5 * theta
    tx_c = tx_i * slow_x + tx_x * theta
    rx_c = rx_i * slow_x + rx_x * theta
    Dout_c = Dout * theta
    Din_c = Din * theta

    F = np.zeros((L, 2, K))          # dir 0: a->b, dir 1: b->a  (bytes/s)
    cap = np.full((L, K), 0.97 * LINE)
    half_k = win(half_lo, half_hi)
    cap[l_half] = 0.97 * LINE * (1 - 0.5 * half_k)
    for (hid, r), l in fb.hostlink.items():
        F[l, 0] = rx_c[hid, r]
        F[l, 1] = tx_c[hid, r]
    for g in range(G):
        for r in range(RAILS):
            ls = [fb.lg[(g, r, s, j)] for s in range(SPG) for j in range(2)]
            a = avail[ls]
            Wo = eff_weights(w_out[(g, r)], a)
            Wi = eff_weights(w_in[(g, r)], a)
            for i, l in enumerate(ls):
                F[l, 0] = Dout_c[g, r] * Wo[i]
                F[l, 1] = Din_c[g, r] * Wi[i]
    for l in sl_links:
        F[l] *= stall
    for g in range(G):
        for s in range(SPG):
            up_out = sum(F[fb.lg[(g, r, s, j)], 0] for r in range(RAILS) for j in range(2))
            up_in = sum(F[fb.lg[(g, r, s, j)], 1] for r in range(RAILS) for j in range(2))
            ls = [fb.gc[(g, s, m, j)] for m in range(NCORE) for j in range(2)]
            a = avail[ls]
            Vo = eff_weights(v_out[(g, s)], a)
            Vi = eff_weights(v_in[(g, s)], a)
            for i, l in enumerate(ls):
                F[l, 0] = up_out * Vo[i]
                F[l, 1] = up_in * Vi[i]
    # background management traffic on every link (SM MADs, monitoring), link availability, caps
    bg = rng.uniform(2e4, 2e5, (L, 2, 1))
    F = np.minimum(F, cap[:, None, :]) * avail[:, None, :] + bg * avail[:, None, :]

    # ---------------- per-port rates ----------------
    is_a = fb.p_end == 0
    out_r = np.where(is_a[:, None], F[fb.p_link, 0], F[fb.p_link, 1])   # (P, K)
    in_r = np.where(is_a[:, None], F[fb.p_link, 1], F[fb.p_link, 0])
    pav = avail[fb.p_link]
    p_half = fb.l_a[l_half]
    inc = np.zeros((len(CUM), P, K))
    inc[FI["in_octets"]] = in_r * SP
    inc[FI["out_octets"]] = out_r * SP
    psize = rng.uniform(3300, 4000, (P, 1))
    pktn = lambda: 1 + 0.03 * rng.standard_normal((P, K))
    mgmt = rng.uniform(60, 250, (P, 1)) * SP * pav
    inc[FI["in_pkts"]] = inc[FI["in_octets"]] / (psize * pktn()) + mgmt
    inc[FI["out_pkts"]] = inc[FI["out_octets"]] / (psize * pktn()) + mgmt

    # ---------------- credit waits (xmit_wait, 8-byte ticks) ----------------
    role = np.array(fb.p_role)
    ticks = np.full((P, K), LINE_BPS / 64.0)
    ticks[p_half] = np.where(half_k > 0.5, LINE_BPS / 128.0, LINE_BPS / 64.0)
    u_tx = out_r / LINE
    base_p = np.exp(rng.uniform(np.log(0.002), np.log(0.01), (P, 1)))
    f = base_p * u_tx ** 2 * np.exp(0.5 * rng.standard_normal((P, K)))
    cong = lambda x, x0, amp, sig: amp * np.clip(x - x0, 0, 2) ** 1.2 * np.exp(sig * rng.standard_normal((P, K)))
    p_group = np.zeros(P, int)
    p_leafg = np.zeros(P, int)
    p_leafr = np.zeros(P, int)
    for p in range(P):
        l = fb.p_link[p]
        meta = fb.l_meta[l]
        p_group[p] = meta[0]
        if fb.l_kind[l] in ("host", "lg"):
            p_leafr[p] = meta[1]
    Pdest = np.stack([np.mean([Pin[h] for h in range(G) if h != g], axis=0) for g in range(G)])
    m_lu = role == "leaf_up"
    m_su = role == "spine_up"
    m_sd = role == "spine"
    m_ld = role == "leaf_down"
    f += np.where(m_lu[:, None], cong(Pout[p_group], 0.9, 0.22, 0.35), 0)
    f += np.where(m_su[:, None], cong(Pdest[p_group], 0.85, 0.28, 0.5), 0)
    leaf_in_p = (Din[p_group, p_leafr]) / (6 * 0.95 * LINE)
    f += np.where(m_sd[:, None], cong(leaf_in_p, 0.8, 0.2, 0.3), 0)
    # checkpoint incast: the target HCAs' leaf ports, the spine ports feeding their leaves
    tgt_groups = sorted({t // HPG for t in ck_targets})
    for t in ck_targets:
        for r in range(RAILS):
            p = fb.l_a[fb.hostlink[(t, r)]]
            f[p] += ck_k * rng.uniform(0.04, 0.12, K)
    for p in np.nonzero(m_sd)[0]:
        if p_group[p] in tgt_groups:
            f[p] += ck_k * rng.uniform(0.01, 0.05, K)
    # HCA not returning credits: 10-25x its siblings at the same load
    hca0, hca1 = ft["hca"]
    hk = win(hca0, hca1)
    p_hca = fb.l_a[fb.hostlink[(h_hca, r_hca)]]
    g_h = h_hca // HPG
    sib = [fb.l_a[fb.hostlink[(g_h * HPG + hl, r_hca)]] for hl in JOB_A if g_h * HPG + hl != h_hca]
    sib_med = np.median(f[sib], axis=0)
    f[p_hca] = f[p_hca] * (1 - hk) + hk * np.maximum(sib_med, f[p_hca]) * rng.uniform(10, 25, K)
    out_r[p_hca] *= 1 - 0.08 * hk
    # credit loop: every port of the spine waits, as do the leaf uplinks feeding it
    sl_ports = fb.dev_ports[fb.dev_index[spine_name(*SL)]]
    f[sl_ports] = f[sl_ports] * (1 - loop_k) + loop_k * rng.uniform(0.75, 0.95, (len(sl_ports), K))
    sl_peers = [peer_of(fb, p) for p in sl_ports]
    sl_peer_full = [p for p in sl_peers if fb.p_full[p]]
    f[sl_peer_full] = f[sl_peer_full] * (1 - loop_k) + loop_k * rng.uniform(0.6, 0.9, (len(sl_peer_full), K))
    f = np.clip(f, 0, 0.98)
    inc[FI["xmit_wait"]] = f * ticks * SP * pav
    inc[FI["xmit_wait"], ~fb.p_full] = 0

    # ---------------- errors ----------------
    pois = lambda lam: rng.poisson(np.clip(lam, 0, None)).astype(float)
    # background: sporadic single symbol errors on ~3 % of links, 0.5-5 per hour
    fault_links = {fb.lg[lg_heat], fb.lg[lg_rcv], fb.gc[gc_prefec], l_flap, l_half, l_left,
                   fb.hostlink[(h_hca, r_hca)], l_admin}
    cand = [l for l in range(L) if l not in fault_links]
    n_bg = int(round(0.03 * L))
    bg_links = [cand[i] for i in sorted(rng.choice(len(cand), n_bg, replace=False))]
    bg_ports = []
    for l in bg_links:
        p = fb.l_a[l] if (fb.l_b[l] < 0 or rng.random() < 0.5) else fb.l_b[l]
        bg_ports.append(int(p))
        rate_h = rng.uniform(0.5, 5.0)
        inc[FI["symbol_errors"], p] += pois(np.full(K, rate_h * SP / 3600.0)) * pav[p]

    # F1: rcv_errors at 1e-7 .. 1e-5 of received packets, rising, on the spine end of a leaf uplink
    p_rcv = fb.l_b[fb.lg[lg_rcv]]
    r0, r1 = ft["rcv_err"]
    tk = (edges[:-1] + SP / 2 - r0) / max(r1 - r0, 1)
    frac = np.where(tk >= 0, 1e-7 * 100.0 ** np.clip(tk, 0, 1), 0.0)
    inc[FI["rcv_errors"], p_rcv] += pois(frac * inc[FI["in_pkts"], p_rcv])

    # F2: heating module on a leaf uplink (leaf end): +24 degC over ~an hour, errors only late
    p_heat = fb.l_a[fb.lg[lg_heat]]
    h0 = ft["heat"][0]
    ramp_s = mins(62 * min(1.0, sc) if sc < 1 else 62)
    tmid = edges[:-1] + SP / 2
    x = np.clip((tmid - h0) / ramp_s, 0, None)
    heat = np.where(x <= 1, 24 * x ** 1.3, 24 + 0.08 * (tmid - h0 - ramp_s) / 60.0)
    heat = np.where(tmid >= h0, heat, 0.0)
    err_t0 = h0 + ramp_s + mins(6)
    ek = np.clip((tmid - err_t0) / max(dur - err_t0, 60), 0, None)
    sym_rate = np.where(tmid >= err_t0, 0.02 * 150.0 ** np.clip(ek, 0, 1), 0.0)   # per s, 0.02 -> 3
    inc[FI["symbol_errors"], p_heat] += pois(sym_rate * SP) * pav[p_heat]
    inc[FI["rcv_errors"], p_heat] += pois(0.08 * sym_rate * SP) * pav[p_heat]
    p_heat_far = fb.l_b[fb.lg[lg_heat]]
    inc[FI["symbol_errors"], p_heat_far] += pois(0.2 * sym_rate * SP) * pav[p_heat_far]
    ler_t0 = err_t0 + (dur - err_t0) * 0.5
    inc[FI["link_error_recovery"], p_heat] += pois(np.where(tmid >= ler_t0, SP / 400.0, 0.0))

    # F3: pre-FEC BER ramp over 90 min on a global link (spine_up receive side), symbol errors late
    p_fec = fb.l_a[fb.gc[gc_prefec]]
    b0s = ft["prefec"][0]
    ramp_b = mins(90) if sc >= 1 else mins(max(20, 90 * sc))
    ber = np.where(fb.p_full[:, None], 10 ** rng.normal(-8.6, 0.6, (P, 1)), 0.0) * \
        10 ** (0.08 * rng.standard_normal((P, K)))
    lb0 = math.log10(float(np.median(ber[p_fec])))
    xb = np.clip((tmid - b0s) / ramp_b, 0, None)
    lber = np.where(xb <= 1, lb0 + (-4.5 - lb0) * xb, -4.5 + 0.2 * np.clip((xb - 1), 0, 1))
    ber[p_fec] = np.where(tmid >= b0s, 10 ** (lber + 0.05 * rng.standard_normal(K)), ber[p_fec])
    bf = ber[p_fec]
    sym_f = np.where(bf > 3e-6, 40.0 * ((bf - 3e-6) / 3e-5) ** 2, 0.0)
    inc[FI["symbol_errors"], p_fec] += pois(sym_f * SP) * pav[p_fec]
    inc[FI["rcv_errors"], p_fec] += pois(0.03 * sym_f * SP) * pav[p_fec]
    inc[FI["link_error_recovery"], p_fec] += pois(np.where(bf > 2e-5, SP / 600.0, 0.0))

    # F9: line card on core lc_m serving group lc_g: remote physical errors and relay discards
    lc_ports = [fb.pid[("co", lc_m, lc_g, s, j)] for s in range(SPG) for j in range(2)]
    lc0, lc1 = ft["lc"]
    lck = np.clip((tmid - lc0) / mins(5), 0, 1) * (tmid < lc1)
    for p in lc_ports:
        fr = rng.uniform(2e-6, 8e-6)
        e = pois(lck * fr * inc[FI["in_pkts"], p])
        inc[FI["rcv_remote_physical_errors"], p] += e
        inc[FI["xmit_discards"], p] += pois(0.3 * e)
        q = peer_of(fb, p)
        inc[FI["rcv_remote_physical_errors"], q] += pois(0.1 * lck * fr * inc[FI["in_pkts"], q])

    # ---------------- gauges: module temperature, pre-FEC BER ----------------
    role_hot = np.where(m_ld, 47.0, 52.0)
    T_base = np.clip(role_hot + rng.normal(0, 3.5, P), 38, 60)
    u_load = np.maximum(in_r, out_r) / LINE
    alpha = 1 - math.exp(-SP / 360.0)
    ema = np.zeros((P, K))
    e = u_load[:, 0].copy()
    for k in range(K):
        e += alpha * (u_load[:, k] - e)
        ema[:, k] = e
    amb_ph = rng.uniform(0, 2 * math.pi, D)
    amb = 1.2 * np.sin(2 * math.pi * tmid[None, :] / (4 * 3600) + amb_ph[fb.p_dev][:, None])
    temp = T_base[:, None] + 7.0 * ema + amb + 0.15 * rng.standard_normal((P, K)) - 3.0 * (1 - pav)
    temp[p_heat] += heat
    ber = ber * (pav > 0.5)

    # ---------------- sample times (per switch, jittered) ----------------
    off = rng.uniform(0.3, 3.5, D)
    t_act = np.arange(K)[None, :] * SP + np.clip(off[:, None] + 0.6 * rng.standard_normal((D, K)), 0.05, 5.5)
    t_act = np.round(t_act * 1000) / 1000.0
    tp = t_act[fb.p_dev]                                  # (P, K) per port

    # ---------------- cumulative values at the sample instants ----------------
    kk = np.arange(K)[None, :]
    fr_t = (tp - kk * SP) / SP

    vals = np.zeros((len(F_INT), P, K), dtype=np.int64)
    # start values: devices up for months
    start = np.zeros((len(CUM), P), dtype=np.int64)
    start[FI["in_octets"]] = rng.integers(10**13, 5 * 10**16, P)
    start[FI["out_octets"]] = rng.integers(10**13, 5 * 10**16, P)
    start[FI["in_pkts"]] = start[FI["in_octets"]] // rng.integers(3300, 4000, P)
    start[FI["out_pkts"]] = start[FI["out_octets"]] // rng.integers(3300, 4000, P)
    start[FI["symbol_errors"]] = np.where(rng.random(P) < 0.1, rng.integers(20, 400, P), rng.integers(0, 20, P))
    start[FI["link_error_recovery"]] = rng.integers(0, 4, P)
    start[FI["link_downed"]] = rng.integers(0, 5, P) + np.where(m_ld, rng.integers(0, 4, P), 0)
    start[FI["rcv_errors"]] = rng.integers(0, 12, P)
    start[FI["rcv_remote_physical_errors"]] = rng.integers(0, 3, P)
    start[FI["xmit_discards"]] = rng.integers(0, 60, P)
    start[FI["xmit_wait"]] = rng.integers(10**9, 10**12, P)
    start[FI["local_link_integrity_errors"]] = rng.integers(0, 2, P)
    start[FI["excessive_buffer_overrun_errors"]] = 0
    start[FI["link_transitions"]] = 2 * rng.integers(1, 6, P) + np.where(m_ld, 2 * rng.integers(0, 4, P), 0)
    # ports on the 32-bit family start anywhere in the 32-bit range for packets
    start[FI["in_pkts"], ~fb.p_full] %= 2**32
    start[FI["out_pkts"], ~fb.p_full] %= 2**32

    # events, as cumulative counts at the sample instants
    ev_arr = np.array([e_[:2] for e_ in ev], dtype=np.int64).reshape(-1, 2) if ev else np.zeros((0, 2), np.int64)
    ev_t = np.array([e_[2] for e_ in ev], dtype=float)
    ev_n = np.array([e_[3] for e_ in ev], dtype=np.int64)
    evc = np.zeros((len(CUM), P, K), dtype=np.int64)
    keys = sorted(set(map(tuple, ev_arr.tolist())))
    ev_groups = {}
    for key in keys:
        sel = (ev_arr[:, 0] == key[0]) & (ev_arr[:, 1] == key[1])
        o = np.argsort(ev_t[sel], kind="stable")
        ts_ = ev_t[sel][o]
        cs = np.concatenate([[0], np.cumsum(ev_n[sel][o])])
        ev_groups[key] = (ts_, cs)
        evc[key[1], key[0]] = cs[np.searchsorted(ts_, tp[key[0]], side="right")]

    def ev_at(p, fi, t):
        g_ = ev_groups.get((p, fi))
        if g_ is None:
            return 0
        return int(g_[1][np.searchsorted(g_[0], t, side="right")])

    reset_ports = {}
    for d, trs in resets.items():
        for p in fb.dev_ports[d]:
            reset_ports[int(p)] = trs

    for fi, name in enumerate(CUM):
        x = inc[fi]
        if name not in ("in_octets", "out_octets", "in_pkts", "out_pkts", "xmit_wait"):
            x = np.round(x)
        Cb = np.concatenate([np.zeros((P, 1)), np.cumsum(x, axis=1)], axis=1)    # boundaries 0..K
        cum = Cb[:, :K] + x * fr_t
        v = np.floor(cum).astype(np.int64) + evc[fi]
        for p, trs in reset_ports.items():
            kr = int(trs // SP)
            c_r = Cb[p, kr] + x[p, kr] * (trs - kr * SP) / SP
            after = tp[p] >= trs
            v_r = np.floor(cum[p] - c_r).astype(np.int64) + evc[fi, p] - ev_at(p, fi, trs)
            v[p] = np.where(after, np.maximum(v_r, 0), v[p] + start[fi, p])
        mask_noreset = np.ones(P, bool)
        mask_noreset[list(reset_ports)] = False
        v[mask_noreset] += start[fi, mask_noreset][:, None]
        if name in SAT_BITS:
            v = np.minimum(v, 2 ** SAT_BITS[name] - 1)
        if name in ("in_pkts", "out_pkts"):
            v[~fb.p_full] %= 2**32
        vals[fi] = v

    # state at the sample instant: oper_status, speed
    oper = np.ones((P, K), dtype=np.int64)
    for l in range(L):
        for (td, tu) in downs[l]:
            for p in (fb.l_a[l], fb.l_b[l]):
                if p >= 0:
                    oper[p] &= ~((tp[p] >= td) & (tp[p] < tu))
    vals[FI["oper_status"]] = oper
    spd = np.full((P, K), int(LINE_BPS), dtype=np.int64)
    spd[p_half] = np.where((tp[p_half] >= hs0 + 9.5) & (tp[p_half] < hs1 - 4.0), int(LINE_BPS // 2), int(LINE_BPS))
    vals[FI["speed_bps"]] = spd
    ber = np.where(oper == 1, ber, 0.0)

    # ---------------- write port_counters.lp ----------------
    os.makedirs(outdir, exist_ok=True)
    prefix = []
    for p in range(P):
        tags = [f"device={fb.devs[fb.p_dev[p]]}", f"port={fb.p_name[p]}", "fabric=ib", f"role={fb.p_role[p]}"]
        if fb.p_rail[p] is not None:
            tags.append(f"rail={fb.p_rail[p]}")
        tags += [f"peer_device={fb.p_pdev[p]}", f"peer_port={fb.p_pport[p]}", "speed=400G"]
        prefix.append("port_counters," + ",".join(tags) + " ")
    full_fields = F_INT
    sub_fields = [n for n in F_INT if n not in SUB_MISSING]
    fmt_full = ",".join(f"{n}=%di" for n in full_fields) + ",module_temp_c=%.1f,pre_fec_ber=%.3e %d\n"
    fmt_sub = ",".join(f"{n}=%di" for n in sub_fields) + " %d\n"
    sub_idx = [FI[n] for n in sub_fields]
    ts_ns = T0_NS + np.round(t_act * 1000).astype(np.int64) * 10**6
    n_lines = 0
    path = os.path.join(outdir, "port_counters.lp")
    tmp_lp = path + ".tmp"
    with open(tmp_lp, "w", encoding="ascii", newline="\n") as fh:
        for k in range(N + 1):
            order_d = np.argsort(t_act[:, k], kind="stable")
            rows = vals[:, :, k].T.tolist()
            tk_ = temp[:, k].tolist()
            bk_ = ber[:, k].tolist()
            buf = []
            for d in order_d:
                tt = t_act[d, k]
                if any(a <= tt < b for (a, b) in unreach[d]):
                    continue
                tsv = int(ts_ns[d, k])
                if fb.dev_fam[d] == "full":
                    for p in fb.dev_ports[d]:
                        buf.append(prefix[p] + fmt_full % (*rows[p], tk_[p], bk_[p], tsv))
                else:
                    for p in fb.dev_ports[d]:
                        r_ = rows[p]
                        buf.append(prefix[p] + fmt_sub % (*[r_[i] for i in sub_idx], tsv))
            n_lines += len(buf)
            fh.write("".join(buf))
    os.replace(tmp_lp, path)

    # ---------------- labels ----------------
    def ns(t):
        return int(T0_NS + int(round(t)) * 10**9)

    def pe(p):
        return {"device": fb.devs[fb.p_dev[p]], "port": fb.p_name[p]}

    t_end = dur
    faults = []

    def fault(kind, p_or_dev, ports, t0, t1, peers, related, sig):
        faults.append({"kind": kind, "device": p_or_dev, "ports": ports, "start_ns": ns(t0), "end_ns": ns(t1),
                       "peer_ends": peers, "related": related, "signature": sig})

    fault("rcv_errors_rising", fb.devs[fb.p_dev[p_rcv]], [fb.p_name[p_rcv]], r0, r1,
          [pe(peer_of(fb, p_rcv))], [],
          "rcv_errors on the spine end of a leaf uplink at 1e-7 -> 1e-5 of received packets (x100 over the "
          "fault, exponential), following its load; no symbol errors, no BER change; nothing when idle")
    fault("module_overheating", fb.devs[fb.p_dev[p_heat]], [fb.p_name[p_heat]], h0, t_end,
          [pe(p_heat_far)], [],
          f"module_temp_c +24 degC over {ramp_s // 60} min (load-independent) with no error; from +"
          f"{(err_t0 - h0) // 60} min symbol_errors 0.02/s -> 3/s (rcv_errors ~8 %, far end ~20 %), "
          "link_error_recovery in the last part")
    fault("pre_fec_ber_ramp", fb.devs[fb.p_dev[p_fec]], [fb.p_name[p_fec]], b0s, t_end,
          [pe(peer_of(fb, p_fec))], [],
          f"pre_fec_ber rising exponentially from ~{10 ** lb0:.0e} to 3e-5 over {ramp_b // 60} min on a global "
          "link (group-spine receive side); symbol_errors only once BER > 3e-6 (late), then up to ~40/s "
          "(16-bit counter may saturate), rcv_errors ~3 %, link_error_recovery every ~10 min at the end")
    fault("flapping_link", fb.devs[fb.p_dev[fb.l_a[l_flap]]], [fb.p_name[fb.l_a[l_flap]]], ft["flap"][0],
          ft["flap"][1], [], [],
          "host link: 3 bursts of 2-6 down/up cycles (2-25 s down): link_downed +1 and link_transitions +2 per "
          "cycle, link_error_recovery, symbol errors at each link-up, xmit_discards, traffic gaps, oper_status 0 "
          "when a poll lands in a down")
    fault("half_speed_link", fb.devs[fb.p_dev[p_half]], [fb.p_name[p_half]], hs0, hs1, [], [],
          "host link bounces and comes back at HDR: speed_bps 200000000000 under the 400G tag, bytes can never "
          "exceed 200G (twice its siblings' share of its negotiated speed), job A's iterations slow (~25 %); "
          "reseated at the end (second bounce, back at 400G)")
    fault("link_down_after_replacement", spine_name(*Q), [fb.p_name[fb.l_b[l_left]]], t_left, t_end,
          [pe(fb.l_a[l_left])], [{"device": pe(fb.l_a[l_left_sib])["device"], "ports": [pe(fb.l_a[l_left_sib])["port"]]},
                                  {"device": spine_name(*Q), "ports": [fb.p_name[fb.l_b[l_left_sib]]]}],
          "after the spine was swapped (unreachable 10 min, counters from zero) every port came back but this "
          "one: oper_status 0 at both ends, no traffic, no counter moves; its parallel sibling (same leaf, same "
          "spine) carries double")
    fault("hca_credit_starvation", fb.devs[fb.p_dev[p_hca]], [fb.p_name[p_hca]], hca0, hca1, [], [],
          "HCA stops returning credits promptly: its leaf port's xmit_wait 10-25x the median of its job siblings "
          "on the same leaf at the same load (bytes ~8 % lower); rest of the fabric normal")
    sl_dev = spine_name(*SL)
    fault("credit_loop", sl_dev, ["*"], ft["loop"][0], ft["loop"][1],
          [pe(q) for q in sl_peers], [],
          "credit loop through one group spine: xmit_wait on every port at 75-95 % of the time (and 60-90 % on "
          "the leaf uplinks feeding it) while its throughput collapses to ~6 %; no reroute; jobs slow to ~60 %")
    fault("line_card_errors", core_name(lc_m), [fb.p_name[p] for p in lc_ports], lc0, lc1,
          [pe(peer_of(fb, p)) for p in lc_ports], [],
          "one line card of a core director (6 consecutive ports): rcv_remote_physical_errors at 2e-6..8e-6 of "
          "received packets (following load), xmit_discards ~30 % of that; the group-spine ends see ~10 %")

    healthy = []

    def hp(kind, where, t0, t1, note, background=False):
        h = {"kind": kind, "where": where, "start_ns": ns(t0), "end_ns": ns(min(t1, t_end)), "note": note}
        if background:
            h["background"] = True
        healthy.append(h)

    spine_devs = [spine_name(g, s) for g in range(G) for s in range(SPG)]
    core_devs = [core_name(m) for m in range(NCORE)]
    lu_ports = [pref(fb, p) for p in range(P) if fb.p_role[p] == "leaf_up"]
    jobB_ports = [pref(fb, fb.l_a[fb.hostlink[(g * HPG + hl, r)]]) for g in range(G) for hl in JOB_B
                  for r in range(RAILS)]
    glob_where = [f"{d}:*" for d in spine_devs + core_devs] + lu_ports
    hp("allreduce_iterations", ["*"], 0, t_end,
       "job A (16 hosts per group, 41 s iterations, 45 % comm at ~82 % of line rate) and job B (6 hosts per "
       "group, 29 s) all run; intra-group traffic stays on the rail leaf", background=True)
    hp("timestamp_jitter", ["*"], 0, t_end,
       "each switch is polled 0.05-5.5 s after the 20 s tick (fixed offset per switch + per-poll jitter)",
       background=True)
    hp("sporadic_symbol_errors", [pref(fb, p) for p in bg_ports], 0, t_end,
       f"{len(bg_ports)} links (~3 %) with single symbol errors at 0.5-5 per hour, no link_error_recovery",
       background=True)
    imb_where = []
    for key in lg_imb:
        l = fb.lg[key]
        imb_where += [pref(fb, fb.l_a[l]), pref(fb, fb.l_b[l])]
    l = fb.gc[gc_imb]
    imb_where += [pref(fb, fb.l_a[l]), pref(fb, fb.l_b[l])]
    hp("routing_imbalance", imb_where, 0, t_end,
       "static routing (LFT) skew: three leaf uplinks and one global link carry 1.5-2x their siblings all run")
    for i, (a0, ad) in enumerate(tl["a2a"]):
        hp("all_to_all", glob_where + jobB_ports, a0, a0 + ad,
           "job B expert all-to-all (70 % of its bytes cross groups): global tier demand ~1.8x capacity, "
           "xmit_wait up on most spine_up ports and on leaf uplinks at once" + (" (inside the fit window)" if a0 + ad <= fit_s else ""))
    ck_where = [pref(fb, fb.l_a[fb.hostlink[(t, r)]]) for t in ck_targets for r in range(RAILS)]
    ck_where += [f"{spine_name(g, s)}:*" for g in tgt_groups for s in range(SPG)]
    ck_where += [pref(fb, p) for p in range(P) if fb.p_role[p] == "leaf_up"]
    for c0, cd in tl["ckpt"]:
        hp("checkpoint_burst", ck_where, c0, c0 + cd,
           f"job A writes checkpoint shards to cache hosts {', '.join(host_name(t) for t in ck_targets)}: "
           "their 8 leaf ports at ~95 % of line rate with bounded xmit_wait; spine ports towards their leaves wait a little")
    nbR = [pref(fb, peer_of(fb, p)) for p in fb.dev_ports[dR]]
    hp("planned_reboot", [f"{spine_name(*R)}:*"] + nbR, tr, tr + 240 + 2 * SP,
       "planned group-spine reboot: no samples for 4 min, every counter restarts from zero, its neighbours' "
       "ports down ~3.6 min (link_downed +1, link_transitions +2, xmit_discards), traffic moves to the other spines")
    nbQ = [pref(fb, peer_of(fb, p)) for p in fb.dev_ports[dQ]]
    hp("switch_replacement", [f"{spine_name(*Q)}:*"] + nbQ, tq, tq + 600 + 2 * SP,
       "group spine swapped: no samples for 10 min, counters of the new switch from zero, neighbours down and "
       "back (the one link that stays down is a fault from the moment the others are back)")
    hp("collector_gap", [f"{leaf_name(*gap_leaf)}:*"], tl["gap"][0], tl["gap"][0] + tl["gap"][1],
       "no samples from this leaf for 7 min; counters keep counting")
    hp("global_congestion", glob_where + [pref(fb, fb.l_a[fb.hostlink[(g * HPG + hl, r)]]) for g in range(G)
                                         for hl in JOB_A for r in range(RAILS)],
       gc0, gc0 + gcd,
       "job A (all three groups) enters a cross-group phase (30 % of its bytes cross groups): global tier at "
       "~95 % for its duration, credit waits on leaf uplinks and spine_up ports, the job paced by it")
    adm = [pref(fb, fb.l_a[l_admin]), pref(fb, fb.l_b[l_admin]), pref(fb, fb.l_a[l_admin_sib]),
           pref(fb, fb.l_b[l_admin_sib])]
    hp("admin_down", adm, ta0, ta0 + tad + 2 * SP,
       "leaf uplink administratively disabled for an hour (no admin-state field: both ends oper_status 0, "
       "link_transitions +1 at each end when disabled and when enabled, link_downed +1 on the spine end only); "
       "its parallel sibling carries double")
    hp("idle", ["*"], idle0, idle0 + idled + 120 + 2 * SP,
       "all jobs stopped for 10 min (only management traffic), then 2 min of warm-up at ~30 %")

    fit_m = fit_s / 60.0
    fit_first = f"{int(fit_m)}m" if abs(fit_m - round(fit_m)) < 1e-9 else f"{fit_s}s"
    labels = {
        "scenario": SCENARIO, "scale": "small", "seed": seed, "fabric": "ib",
        "interval_s": INTERVAL_S, "sample_s": SP, "t0_ns": T0_NS, "t_end_ns": ns(t_end),
        "train_until_ns": ns(fit_s), "fit_first": fit_first, "ports": P, "lines": n_lines,
        "faults": faults, "healthy_phenomena": healthy,
    }
    for fl in faults:
        assert fl["start_ns"] > labels["train_until_ns"], fl["kind"]
        assert (fl["start_ns"] - T0_NS) % (30 * 10**9) == 0, fl["kind"]
    with open(os.path.join(outdir, "labels.json"), "w", encoding="utf-8") as fh:
        json.dump(labels, fh, indent=1)
        fh.write("\n")
    return {"ports": P, "lines": n_lines, "faults": len(faults), "seconds": time.time() - t_start,
            "placements": {
                "reboot_spine": spine_name(*R), "replaced_spine": spine_name(*Q), "loop_spine": sl_dev,
                "faults": [(fl["kind"], fl["device"], fl["ports"][:6], (fl["start_ns"] - T0_NS) // 60e9,
                            (fl["end_ns"] - T0_NS) // 60e9) for fl in faults],
                "healthy": [(h["kind"], h["where"][:3], (h["start_ns"] - T0_NS) // 60e9,
                             (h["end_ns"] - T0_NS) // 60e9) for h in healthy]}}


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate the ib-ndr-dragonfly labelled fabric.")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=3.0)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    if a.hours < 1.0:
        ap.error("--hours must be at least 1")
    r = generate(a.outdir, a.seed, a.hours)
    print(f"{SCENARIO}: {r['ports']} ports, {r['lines']} lines, {r['faults']} faults, {r['seconds']:.1f} s "
          f"-> {a.outdir}")
    if a.verbose:
        for x in r["placements"]["faults"]:
            print("  fault", x)
        for x in r["placements"]["healthy"]:
            print("  healthy", x)
        print("  ", {k: v for k, v in r["placements"].items() if k.endswith("spine")})
    return 0


if __name__ == "__main__":
    sys.exit(main())
