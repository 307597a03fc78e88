#!/usr/bin/env python3
"""An independent, labelled InfiniBand XDR rail-optimised fabric for testing a degraded-link detector.

    python bench/fabrics/ib_rail_xdr.py OUTDIR [--seed N] [--hours H]

Writes OUTDIR/port_counters.lp (the `port_counters` measurement of shared/scenarios/README.md:
same tags, same field names, raw cumulative integers with the `i` suffix) and OUTDIR/labels.json
(the label form of the scenario bank, read by shared/scenarios/score.py; `fit_first` = 30% of the
run). Needs numpy only; the same seed gives byte-identical files. Written without reading the
detector or the bank's generators (generate.py, ib_fat_tree.py): only the bank's README and score.py.

Topology (own assumptions). 36 GPU hosts dgx000..dgx035 with 8 ConnectX-8 HCAs each (mlx5_0..7,
one per rail) and 4 storage nodes stor00..stor03 (one port per rail), all links XDR 800G
(`speed=800G`, `speed_bps=800000000000`). Rail-optimised two-level fat tree: per rail r two leaves
`leaf-r<r>-<g>` (g=0: dgx000-017, stor00-01; g=1: dgx018-035, stor02-03), 20 host ports (1-20)
and 20 uplinks (21-40) each, 1:1; 10 spines `spine-<s>`, every leaf wired to every spine by two
links (leaf uplink 21+2s+k <-> spine port 2*(2r+g)+k+1). 16 leaves x 40 + 10 spines x 32 = 960 switch
ports (320 leaf_down, 320 leaf_up, 320 spine). Spines only carry rail-local traffic between the two
leaves of a rail. Port names are the switch port numbers ("1".."40"); host ports have peer_port
mlx5_<rail>. Static (ftree-like) routing: per-leaf fixed weights over uplinks, failover away from
down links, no adaptive routing.

Sampling. One poll per 30 s from 2025-06-02T08:00:00Z, but each line carries the time stamped by
the switch: a per-device offset of 0.5-4 s after the nominal poll plus <=1 s jitter, so timestamps
are NOT on multiples of 30 s and differ between devices (the file stays time-ordered). Device
`leaf-r5-1` (fixed name, whatever the seed) answers late now and then (4% of polls stamped 8-20 s
late) and skips 2% of polls entirely (no lines; the next sample covers 60 s). Counter values are
the cumulative values at the stamp time (linear inside a 30 s model interval).

Counters model (per 30 s interval): host-to-host utilisation matrices per job component, the same
on every rail up to a few % rail noise; a host port carries its host's bytes on that rail; bytes
leaving a leaf group go over its uplinks by static weights; spine ports mirror the leaf uplinks.
`xmit_wait` (64-bit, PortCountersExtended; 8-byte ticks, 1.25e10 ticks/s at 800G) = fraction of
time an egress port waited for credits: per job component a coefficient times its utilisation on
that egress, times a fabric-wide burst factor and a per-port heavy-ish tail. Error counters are
events of their own physics (symbol errors per time, link-training errors at link-up, remote
physical errors per received packet). Widths: symbol_errors, rcv_errors, rcv_remote_physical_errors,
xmit_discards, rcv_switch_relay_errors 16 bit; link_error_recovery, link_downed,
xmit/rcv_constraint_errors 8 bit; local_link_integrity_errors, excessive_buffer_overrun_errors 4 bit;
saturated counters stay at 2^bits-1 until cleared. Data counters and xmit_wait are 64-bit.

Fields. Those of the README's IB vocabulary, plus (NOT in the README's vocabulary, so named as
literally as I could, after the IB PortCounters / CMIS module attributes; say so to the detector):
  admin_status            1 enabled / 0 administratively disabled (like oper_status, a gauge)
  rcv_switch_relay_errors PortRcvSwitchRelayErrors (16 bit)
  xmit_constraint_errors  PortXmitConstraintErrors (8 bit)
  rcv_constraint_errors   PortRcvConstraintErrors (8 bit)
  temperature             module temperature in deg C, a float gauge (e.g. `temperature=47.3`)
  pre_fec_ber             pre-FEC bit error ratio of the receive side, a float gauge (`3.214e-08`)
The fabric-wide clear zeroes every IB error counter (the extra ones too) and xmit_wait, not the
data counters, not link_transitions, not the gauges.

Size at the defaults: 960 ports x 361 samples = ~345,000 lines (a few skipped polls and the two
leaf outages have none), ~220 MB, ~5 s on one core. Every fault's link and time are in labels.json.

Timeline for the default 3 h (minutes; every time scales with --hours/3; fit window = first 54 min):
  jobs   A: data-parallel all-reduce on dgx000-011, dgx018-023 (iterations ~40-46 s, 16-19 s of
            communication at ~85% line rate), 3-118 and 132-180; checkpoint bursts to the 4 storage
            nodes 20-23, 75-78, 140-143 (storage host ports ~97% of line rate, xmit_wait on the leaf
            ports facing them); A is idle 118-132 (idle stretch).
         B: MoE on dgx012-017, dgx024-031: expert-parallel all-to-all inside each leaf group (narrow,
            little spine traffic) 5-95; restart 95-100 (silence); wide all-to-all over all 14 hosts
            100-160 and 172-180: credit waits on most spine and uplink ports at once, above anything
            in the fit window.
         inference: dgx032-035 light (2-8%), reading from storage, all run.
         whole fabric: all 36 GPU hosts, one all-reduce job, 36-42 (in the fit window) and 160-170
            (A and B pre-empted meanwhile, restarting at 172).
  healthy (must not be flagged):
         background symbol errors (1-6 per hour, sporadic) on ~3% of links, all run;
         one stale saturated counter (symbol_errors 65535 from months ago) until the clear;
         slow HCA on a job-A host: bounded xmit_wait (<=8% of time) on its leaf port, all run;
         static routing imbalance: 2 uplinks with 1.8x the weight of their siblings, all run;
         node firmware update: dgx032 at 22-27 (fit window) and dgx034 at 96-101, all 8 host links
            bounce twice (link_downed +2, link_transitions +4, oper_status 0 when sampled down);
         planned admin-down of one leaf uplink 100-160 (admin_status 0 and oper 0 on it, far end
            oper 0);
         leaf replacement inside a maintenance window 104-114 (the leaf unreachable, its spine ends
            down once, the new leaf's counters start at zero, a few relay errors on the spine ports
            while the SM re-sweeps);
         fabric-wide PortCounters clear at 125 (+12 s);
         switch (leaf) reboot inside a maintenance window 135-150 (unreachable 138-142, counters
            restart near zero, spine ends down once, training symbol errors);
         idle stretches: 0-3 (whole fabric), 95-100 (job B), 118-132 (job A);
         credit waits of the wide all-to-all; storage bursts; the late/skipped polls.
  faults (must be found; the leaf / spine / port chosen by the seed):
         module_overheating      spine port: temperature 55 -> 80 C over 70-130, pre_fec_ber up
                                 and symbol errors (rcv_errors ~5% of them) only above ~75 C (from
                                 ~120); start 70 (when the rise begins), end 180
         pre_fec_ber_degrading   leaf uplink: pre_fec_ber ~3e-8 -> 2e-4 log-linear over 80-170,
                                 post-FEC symbol errors only from ~150; start 80, end 180
         flapping_link           leaf uplink <-> spine: 4 bursts of 2-6 down/up cycles 64-88
                                 (link_downed, link_error_recovery, oper_status 0, training errors)
         symbol_errors_saturating spine port: symbol errors rising 2 -> 100/s from 60, stuck at
                                 65535 from ~100, cleared at 125, stuck again from ~145; rcv_errors
                                 ~4%, link_error_recovery every few min; far end ~2%; 60-180
         link_integrity_buffer_overrun leaf uplink: local_link_integrity_errors and
                                 excessive_buffer_overrun_errors (4 bit, saturate at 15) every few
                                 minutes, rcv_errors per overrun; 92-150
         relay_constraint_errors 6 ports of one spine: rcv_switch_relay_errors ~5-40/s with the
                                 ingress load, xmit/rcv_constraint_errors (8 bit, saturating); 100-140
         uplink_left_down        after the leaf replacement: one uplink of the new leaf stays
                                 oper_status 0 with admin_status 1 while its spine end is up
                                 (oper 1), no bytes either way; 114-180
         credit_starvation       leaf uplink: xmit_wait 10-100x the median of its sibling uplinks
                                 carrying the same bytes; 115-175
         hca_remote_physical_errors host port of a job-B HCA: rcv_remote_physical_errors 0.5-15/s
                                 following its transmit load, no symbol errors; a 1% trickle on the
                                 spine ports facing its leaf (`related`); 130-170
         credit_loop_spine       a whole spine (ports ["*"]): xmit_wait ~90-98% of time on every
                                 port while its throughput collapses to ~3%, HOQ xmit_discards; the
                                 leaf uplinks facing it wait too (`related`); jobs slow to 60%;
                                 146-158
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone

import numpy as np

PERIOD = 30
CAP = 800e9 / 8            # bytes per second at XDR 800G
TICKS = CAP / 8            # xmit_wait ticks per second (8-byte ticks)
SPEED_BPS = 800_000_000_000
T0 = int(datetime(2025, 6, 2, 8, 0, 0, tzinfo=timezone.utc).timestamp())

FIELDS = ["in_octets", "out_octets", "in_pkts", "out_pkts", "symbol_errors", "link_error_recovery",
          "link_downed", "rcv_errors", "rcv_remote_physical_errors", "xmit_discards", "xmit_wait",
          "local_link_integrity_errors", "excessive_buffer_overrun_errors", "rcv_switch_relay_errors",
          "xmit_constraint_errors", "rcv_constraint_errors", "link_transitions"]
GAUGES = ["oper_status", "admin_status", "speed_bps"]
FLOATS = ["temperature", "pre_fec_ber"]
FI = {f: i for i, f in enumerate(FIELDS)}
WIDTH = {"symbol_errors": 16, "rcv_errors": 16, "rcv_remote_physical_errors": 16, "xmit_discards": 16,
         "rcv_switch_relay_errors": 16, "link_error_recovery": 8, "link_downed": 8,
         "xmit_constraint_errors": 8, "rcv_constraint_errors": 8, "local_link_integrity_errors": 4,
         "excessive_buffer_overrun_errors": 4}
CLEARED = ["symbol_errors", "link_error_recovery", "link_downed", "rcv_errors", "rcv_remote_physical_errors",
           "xmit_discards", "xmit_wait", "local_link_integrity_errors", "excessive_buffer_overrun_errors",
           "rcv_switch_relay_errors", "xmit_constraint_errors", "rcv_constraint_errors"]

RAILS, GROUPS, SPINES, LINKS, HPL = 8, 2, 10, 2, 20
NH = 40
HOSTS = [f"dgx{i:03d}" for i in range(36)] + [f"stor{i:02d}" for i in range(4)]
GROUP_HOSTS = {0: list(range(0, 18)) + [36, 37], 1: list(range(18, 36)) + [38, 39]}
LATE_DEVICE = "leaf-r5-1"


def build_topology():
    ports = []
    host_group, host_slot = {}, {}
    for g, hs in GROUP_HOSTS.items():
        for slot, h in enumerate(hs):
            host_group[h], host_slot[h] = g, slot
    down_idx = np.zeros((16, HPL), int)
    up_idx = np.zeros((16, HPL), int)
    sp_idx = np.zeros((SPINES, 16, LINKS), int)
    devices = []
    for r in range(RAILS):
        for g in range(GROUPS):
            li = 2 * r + g
            dev = f"leaf-r{r}-{g}"
            devices.append(dev)
            for slot, h in enumerate(GROUP_HOSTS[g]):
                down_idx[li, slot] = len(ports)
                ports.append(dict(dev=dev, port=str(slot + 1), role="leaf_down", rail=r, peer_dev=HOSTS[h],
                                  peer_port=f"mlx5_{r}", li=li, host=h, spine=-1, link=-1))
            for u in range(HPL):
                s, k = divmod(u, LINKS)
                up_idx[li, u] = len(ports)
                ports.append(dict(dev=dev, port=str(21 + u), role="leaf_up", rail=r, peer_dev=f"spine-{s}",
                                  peer_port=str(2 * li + k + 1), li=li, host=-1, spine=s, link=k))
    for s in range(SPINES):
        dev = f"spine-{s}"
        devices.append(dev)
        for li in range(16):
            r, g = divmod(li, 2)
            for k in range(LINKS):
                sp_idx[s, li, k] = len(ports)
                ports.append(dict(dev=dev, port=str(2 * li + k + 1), role="spine", rail=r,
                                  peer_dev=f"leaf-r{r}-{g}", peer_port=str(21 + 2 * s + k), li=li, host=-1,
                                  spine=s, link=k))
    return ports, devices, down_idx, up_idx, sp_idx, host_group, host_slot


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=3.0)
    args = ap.parse_args(argv)
    t_start = time.time()
    rng = np.random.default_rng(args.seed)
    hours = args.hours
    N = int(round(hours * 3600 / PERIOD))
    DUR = N * PERIOD
    sc = hours / 3.0

    def T(m):  # minutes of the 3 h story -> seconds on a 30 s boundary
        return int(round(m * sc * 60 / PERIOD)) * PERIOD

    fit_s = int(round(0.3 * DUR / PERIOD)) * PERIOD
    ports, devices, down_idx, up_idx, sp_idx, host_group, host_slot = build_topology()
    P = len(ports)
    role = np.array([p["role"] for p in ports])
    pdev = [p["dev"] for p in ports]
    dev_ports = {d: [i for i, p in enumerate(ports) if p["dev"] == d] for d in devices}
    peer_of = {}
    for li in range(16):
        for u in range(HPL):
            s, k = divmod(u, LINKS)
            a, b = up_idx[li, u], sp_idx[s, li, k]
            peer_of[a], peer_of[b] = b, a

    K = N + 1                          # grid points 0..N; interval k covers (t_{k-1}, t_k]
    tmid = (np.arange(K) - 0.5) * PERIOD  # interval mid-times in seconds (index 0 unused)
    inc = np.zeros((len(FIELDS), P, K))
    up = np.ones((P, K))               # fraction of each interval the link is up
    down_iv = {}                       # port -> list of (t0, t1) seconds it is down
    admin_iv = {}                      # port -> list of (t0, t1) administratively down
    no_lines = {}                      # device -> list of (t0, t1) without lines
    resets = []                        # (time_s, list of port indices, fields) counters restart

    def kof(t):
        return int(min(max(np.ceil(t / PERIOD), 1), N))

    def add(field, p, t, n):
        if 0 < t <= DUR:
            inc[FI[field], p, kof(t)] += n

    def add_down(p, a, b):
        down_iv.setdefault(p, []).append((a, b))
        for k in range(kof(a), kof(min(b, DUR)) + 1):
            lo, hi = (k - 1) * PERIOD, k * PERIOD
            up[p, k] -= max(0.0, min(hi, b) - max(lo, a)) / PERIOD
        up[p] = np.clip(up[p], 0, 1)

    def bounce(plist, a, d, sym=(0, 6), recov=(0, 2)):
        for p in plist:
            add_down(p, a, a + d)
            add("link_downed", p, a, 1)
            add("link_transitions", p, a + d, 2)
            add("link_error_recovery", p, a, int(rng.integers(recov[0], recov[1] + 1)))
            add("symbol_errors", p, a + d, int(rng.integers(sym[0], sym[1] + 1)))

    def win(a_min, b_min):
        return (tmid >= T(a_min)) & (tmid < T(b_min))

    def iso(p):
        return f"{ports[p]['dev']}:{ports[p]['port']}"

    # ------------------------------------------------------------------ choices by seed
    leaves = [f"leaf-r{r}-{g}" for r in range(RAILS) for g in range(GROUPS)]
    li_of = {d: i for i, d in enumerate(leaves)}
    cand = [li for li in range(16) if leaves[li] != LATE_DEVICE]
    order = list(rng.permutation(cand))
    L_reboot, L_repl, L_flap, L_ber, L_lli, L_starve, L_admin, L_hca = [int(x) for x in order[:8]]
    sp_order = [int(x) for x in rng.permutation(SPINES)]
    S_loop, S_relay, S_sat, S_heat = sp_order[:4]

    def pick_up(li, avoid_spines):
        us = [u for u in range(HPL) if u // 2 not in avoid_spines]
        return int(rng.choice(us))

    busy_sp = {S_loop, S_relay, S_sat, S_heat}    # link faults on leaves stay off the spines with faults
    u_flap = pick_up(L_flap, busy_sp)
    u_ber = pick_up(L_ber, busy_sp)
    u_lli = pick_up(L_lli, busy_sp)
    u_starve = pick_up(L_starve, busy_sp)
    u_admin = pick_up(L_admin, busy_sp)
    u_left = pick_up(L_repl, busy_sp)
    li_sat = int(rng.choice([li for li in range(16) if li not in (L_reboot, L_repl, L_flap)]))
    p_sat = sp_idx[S_sat, li_sat, int(rng.integers(2))]
    li_heat = int(rng.choice([li for li in range(16) if li not in (L_reboot, L_repl, L_flap, li_sat)]))
    p_heat = sp_idx[S_heat, li_heat, int(rng.integers(2))]
    relay_lis = [int(x) for x in rng.choice([li for li in range(16) if li not in (L_reboot, L_repl)], 6,
                                            replace=False)]
    relay_ports = [int(sp_idx[S_relay, li, int(rng.integers(2))]) for li in sorted(relay_lis)]
    JOB_A = list(range(0, 12)) + list(range(18, 24))
    B0, B1 = list(range(12, 18)), list(range(24, 32))
    JOB_B = B0 + B1
    INF = [32, 33, 34, 35]
    STOR = [36, 37, 38, 39]
    GPU = list(range(36))
    h_hca = int(rng.choice(JOB_B))
    r_hca = int(rng.integers(RAILS))
    li_hca = 2 * r_hca + host_group[h_hca]
    p_hca = down_idx[li_hca, host_slot[h_hca]]
    h_slow = int(rng.choice([h for h in JOB_A if h != h_hca]))
    r_slow = int(rng.integers(RAILS))
    p_slow = down_idx[2 * r_slow + host_group[h_slow], host_slot[h_slow]]

    # ------------------------------------------------------------------ traffic (utilisation matrices)
    secs = np.arange(N * PERIOD) + 0.5

    def per_interval(x):
        out = np.zeros(K)
        out[1:] = x.reshape(N, PERIOD).mean(axis=1)
        return out

    def comm_activity(period_lo, period_hi, comm_lo, comm_hi, level):
        per = period_lo + (period_hi - period_lo) * (0.5 + 0.5 * np.sin(secs / 1700.0 + rng.uniform(0, 6)))
        phase = np.cumsum(1.0 / per)
        frac = phase - np.floor(phase)
        comm = (comm_lo + (comm_hi - comm_lo) * rng.uniform()) / per
        act = np.where(frac < comm, level, 0.04)
        return per_interval(act)

    def rings(hs, n_rings):
        m = np.zeros((NH, NH))
        for i in range(n_rings):
            perm = list(rng.permutation(hs))
            if i % 2:
                perm = perm[::-1]
            for a, b in zip(perm, perm[1:] + perm[:1]):
                m[a, b] += 1.0 / n_rings
        return m

    def a2a(hs):
        m = np.zeros((NH, NH))
        for a in hs:
            for b in hs:
                if a != b:
                    m[a, b] = 1.0 / (len(hs) - 1)
        return m

    comps = {}   # name -> (K, NH, NH) utilisation
    # job A
    actA = comm_activity(40, 46, 16, 19, 0.85)
    schedA = (win(3, 118) | win(132, 180)) & ~win(36, 42) & ~win(160, 172)
    ckpt = win(20, 23) | win(75, 78) | win(140, 143)
    evalA = win(48, 50) | win(110, 112)
    levA = actA * schedA
    levA = np.where(ckpt | evalA, 0.05 * schedA, levA)
    rampA = np.ones(K)
    for a in (3, 132, 172):
        w = win(a, a + 2)
        rampA[w] = 0.4
    levA *= rampA
    comps["A"] = levA[:, None, None] * rings(JOB_A, 4)[None]
    # storage bursts (job A checkpoints) + light reads from the inference nodes
    stor = np.zeros((K, NH, NH))
    m = np.zeros((NH, NH))
    for h in JOB_A:
        for s in STOR:
            m[h, s] = 0.97 / len(JOB_A)
            m[s, h] = 0.004
    lev = (ckpt & schedA).astype(float) * (0.9 + 0.1 * rng.random(K))
    stor += lev[:, None, None] * m[None]
    m2 = np.zeros((NH, NH))
    for h in INF:
        for s in STOR:
            m2[s, h] = 0.01
            m2[h, s] = 0.001
    stor += (0.5 + 0.5 * rng.random(K))[:, None, None] * m2[None]
    comps["stor"] = stor
    # job B
    narrow = win(5, 95) & ~win(36, 42)
    wide = win(100, 160) | win(172, 180)
    hot = np.exp(rng.normal(0, 0.3, (K, NH)))          # hot experts: receiver multipliers
    levB_n = narrow * (0.30 + 0.08 * rng.random(K))
    levB_w = wide * (0.50 + 0.10 * rng.random(K))
    mB_n = 0.85 * (a2a(B0) + a2a(B1)) + 0.15 * rings(JOB_B, 2)
    mB_w = a2a(JOB_B)
    comps["B_narrow"] = levB_n[:, None, None] * mB_n[None] * hot[:, None, :]
    comps["B_wide"] = levB_w[:, None, None] * mB_w[None] * hot[:, None, :]
    # inference
    mI = np.zeros((NH, NH))
    for a in INF:
        for b in INF:
            if a != b:
                mI[a, b] = 1.0 / 3
    levI = 0.02 + 0.06 * rng.random(K)
    comps["inf"] = levI[:, None, None] * mI[None]
    # whole fabric
    actW = comm_activity(29, 33, 17, 20, 0.9)
    levW = actW * (win(36, 42) | win(160, 170))
    for a in (36, 160):
        levW[win(a, a + 1)] *= 0.4
    comps["whole"] = levW[:, None, None] * rings(GPU, 6)[None]

    # credit loop slows the GPU jobs
    loop_w = win(146, 158)
    for c in ("A", "B_wide", "whole"):
        comps[c][loop_w] *= 0.6

    # host masks: firmware updates (host drained, all rails)
    hostmask = np.ones((K, NH))
    fw = [(32, 22), (34, 96)]
    fw_events = []
    for h, m0 in fw:
        a = T(m0)
        b = a + T(5) if T(5) > 0 else a + 300
        w = (tmid >= a) & (tmid < b)
        hostmask[w, h] = 0.0
        fw_events.append((h, a, b))
    # leaf outages (reboot, replacement): traffic through the leaf stops
    leafmask = np.ones((16, K))
    Rb, Re = T(138), T(142)
    Pb, Pe = T(104), T(114)
    for li, a, b in ((L_reboot, Rb, Re + 30), (L_repl, Pb, Pe + 30)):
        w = (tmid > a - 15) & (tmid < b + 15)
        leafmask[li, w] = 0.0

    # ------------------------------------------------------------------ link events (before routing)
    # routing imbalance
    w0 = np.ones((16, HPL))
    imb = []
    for li in [int(x) for x in rng.choice([x for x in range(16) if x not in (L_starve,)], 2, replace=False)]:
        u = int(rng.integers(HPL))
        w0[li, u] = 1.8
        imb.append(up_idx[li, u])
    # flapping link
    p_flap, q_flap = up_idx[L_flap, u_flap], peer_of[up_idx[L_flap, u_flap]]
    flap_start = T(64)
    t = flap_start + 5
    for b_min in (64, 71, 79, 85):
        t = max(t, T(b_min) + rng.uniform(5, 20))
        for _ in range(int(rng.integers(2, 7))):
            d = rng.uniform(3, 20)
            bounce([p_flap, q_flap], t, d, sym=(1, 20), recov=(1, 2))
            add("rcv_errors", p_flap, t + d, int(rng.integers(0, 4)))
            t += d + rng.uniform(5, 60)
    flap_end = min(DUR, int(np.ceil(t / PERIOD)) * PERIOD)
    # firmware update bounces
    fw_ports = []
    for h, a, b in fw_events:
        pl = [down_idx[2 * r + host_group[h], host_slot[h]] for r in range(RAILS)]
        fw_ports.append((h, pl, a, b))
        for p in pl:
            t1 = a + 60 + rng.uniform(0, 10)
            d1 = rng.uniform(40, 80)
            bounce([p], t1, d1, sym=(0, 2), recov=(0, 0))
            add("xmit_discards", p, t1, int(rng.integers(5, 200)))
            t2 = t1 + d1 + rng.uniform(60, 90)
            bounce([p], t2, rng.uniform(30, 60), sym=(0, 2), recov=(0, 0))
    # admin-down
    p_admin, q_admin = up_idx[L_admin, u_admin], peer_of[up_idx[L_admin, u_admin]]
    A0, A1 = T(100) + 7, T(160) + 11
    for p in (p_admin, q_admin):
        add_down(p, A0, A1)
        add("link_downed", p, A0, 1)
        add("link_transitions", p, A1, 2)
    admin_iv[p_admin] = [(A0, A1)]
    # leaf reboot and leaf replacement
    for li, a, b in ((L_reboot, Rb, Re), (L_repl, Pb, Pe)):
        dev = leaves[li]
        no_lines[dev] = [(a, b)]
        dp = dev_ports[dev]
        for p in dp:
            add_down(p, a, b + 25)
        resets.append((b, dp, FIELDS))
        for u in range(HPL):
            q = peer_of[up_idx[li, u]]
            add_down(q, a + 2, b + 25)
            add("link_downed", q, a + 2, 1)
            add("link_transitions", q, b + 25, 2)
            add("symbol_errors", q, b + 25, int(rng.integers(0, 8)))
            add("xmit_discards", q, a + 2, int(rng.integers(0, 60)))
            add("symbol_errors", up_idx[li, u], b + 26, int(rng.integers(0, 8)))
            add("link_transitions", up_idx[li, u], b + 26, 1)
        for slot in range(HPL):
            add("link_transitions", down_idx[li, slot], b + 26, 1)
    # the uplink left down after the replacement
    p_left, q_left = up_idx[L_repl, u_left], peer_of[up_idx[L_repl, u_left]]
    add_down(p_left, Pb, DUR + 60)
    down_iv[q_left] = [(Pb + 2, Pe + 25)]          # the spine end comes back up
    for q in (peer_of[up_idx[L_repl, u]] for u in range(HPL)):
        add("rcv_switch_relay_errors", q, Pe + 40, int(rng.integers(5, 50)))
    # the fabric-wide clear
    Tc = T(125) + 12
    resets.append((Tc, list(range(P)), CLEARED))

    # ------------------------------------------------------------------ routing and bytes
    fup = np.ones((P, K))
    fup[:] = up
    # a link is usable when its leaf end is up
    link_up = np.zeros((16, HPL, K))
    for li in range(16):
        link_up[li] = up[up_idx[li]]
    out_c, in_c = {}, {}
    noise_r = np.exp(rng.normal(0, 0.03, (RAILS, K)))
    tot_out = np.zeros((P, K))
    tot_in = np.zeros((P, K))
    for name, U in comps.items():
        o = np.zeros((P, K))
        i_ = np.zeros((P, K))
        for r in range(RAILS):
            lm = np.ones((K, NH))
            for g in range(GROUPS):
                for h in GROUP_HOSTS[g]:
                    lm[:, h] = leafmask[2 * r + g]
            msk = hostmask * lm
            Ur = U * (noise_r[r][:, None, None]) * msk[:, :, None] * msk[:, None, :]
            tx = Ur.sum(axis=2)       # (K, NH)
            rx = Ur.sum(axis=1)
            X = {}
            for g in range(GROUPS):
                li = 2 * r + g
                for h in GROUP_HOSTS[g]:
                    p = down_idx[li, host_slot[h]]
                    i_[p] += tx[:, h]
                    o[p] += rx[:, h]
                src, dst = GROUP_HOSTS[g], GROUP_HOSTS[1 - g]
                X[g] = Ur[:, src][:, :, dst].sum(axis=(1, 2))
            wn, sp = {}, {}
            for g in range(GROUPS):
                li, lo_ = 2 * r + g, 2 * r + 1 - g
                a = w0[li][:, None] * link_up[li]                     # (HPL, K)
                other = link_up[lo_].reshape(SPINES, LINKS, K).sum(axis=1).clip(0, 1)
                eff = a * np.repeat(other, LINKS, axis=0)
                s_ = eff.sum(axis=0)
                wn[g] = np.where(s_ > 0, eff / np.where(s_ > 0, s_, 1), 0)
                lu = link_up[li].reshape(SPINES, LINKS, K)
                ls = lu.sum(axis=1, keepdims=True)
                sp[g] = np.where(ls > 0, lu / np.where(ls > 0, ls, 1), 0).reshape(HPL, K)
            for g in range(GROUPS):
                li = 2 * r + g
                ups = up_idx[li]
                outu = X[g][None, :] * wn[g]
                via = (X[1 - g][None, :] * wn[1 - g]).reshape(SPINES, LINKS, K).sum(axis=1)
                inu = np.repeat(via, LINKS, axis=0) * sp[g]
                o[ups] += outu
                i_[ups] += inu
                for u in range(HPL):
                    s, k = divmod(u, LINKS)
                    q = sp_idx[s, li, k]
                    i_[q] += outu[u]
                    o[q] += inu[u]
        out_c[name], in_c[name] = o, i_
        tot_out += o
        tot_in += i_
    # credit loop: the spine's throughput collapses
    loop_ports = dev_ports[f"spine-{S_loop}"]
    loop_feeders = [peer_of[q] for q in loop_ports]
    lw = np.where(loop_w)[0]
    for arr in [tot_out, tot_in] + list(out_c.values()) + list(in_c.values()):
        for pl in (loop_ports, loop_feeders):
            arr[np.ix_(pl, lw)] *= 0.03
    tot_out = tot_out.clip(0, 0.985)
    tot_in = tot_in.clip(0, 0.985)

    # ------------------------------------------------------------------ xmit_wait
    coef = {"A": {"leaf_down": 0.010, "leaf_up": 0.008, "spine": 0.008},
            "stor": {"leaf_down": 0.02, "leaf_up": 0.05, "spine": 0.05},
            "B_narrow": {"leaf_down": 0.03, "leaf_up": 0.03, "spine": 0.03},
            "B_wide": {"leaf_down": 0.08, "leaf_up": 0.55, "spine": 0.55},
            "inf": {"leaf_down": 0.002, "leaf_up": 0.002, "spine": 0.002},
            "whole": {"leaf_down": 0.012, "leaf_up": 0.012, "spine": 0.012}}
    fwait = np.zeros((P, K))
    for name, o in out_c.items():
        cv = np.array([coef[name][r_] for r_ in role])
        fwait += cv[:, None] * o
    stor_ports = [down_idx[2 * r + host_group[h], host_slot[h]] for h in STOR for r in range(RAILS)]
    fwait[stor_ports] += 0.2 * out_c["stor"][stor_ports] * (out_c["stor"][stor_ports] > 0.3)
    common = np.exp(rng.normal(0, 0.2, K))
    fwait *= (0.5 + tot_out) * common[None, :] * np.exp(rng.normal(0, 0.35, (P, K)))
    # slow HCA: bounded, since the start
    fwait[p_slow] += np.minimum(0.08, 0.06 * np.minimum(1, tot_out[p_slow] / 0.3) *
                                np.exp(rng.normal(0, 0.2, K)))
    # credit starvation
    st0, st1 = T(115), T(175)
    stw = (tmid > st0) & (tmid <= st1)
    p_st = up_idx[L_starve, u_starve]
    sibs = [up_idx[L_starve, u] for u in range(HPL) if u != u_starve]
    sib_med = np.median(fwait[sibs], axis=0)
    fac = 10 ** rng.uniform(1.0, 2.0, K)
    fwait[p_st, stw] = np.maximum(fwait[p_st, stw], np.minimum(0.95, np.maximum(sib_med[stw], 2e-4 * (tot_out[p_st, stw] > 0.01)) * fac[stw]))
    # credit loop
    fwait[np.ix_(loop_ports, lw)] = rng.uniform(0.90, 0.98, (len(loop_ports), len(lw)))
    fwait[np.ix_(loop_feeders, lw)] = np.maximum(fwait[np.ix_(loop_feeders, lw)],
                                                 rng.uniform(0.5, 0.75, (len(loop_feeders), len(lw))))
    for q in loop_ports:
        for k in lw:
            add("xmit_discards", q, k * PERIOD, int(rng.integers(600, 3000)))
    fwait = fwait.clip(0, 0.985) * up
    inc[FI["xmit_wait"]] = np.floor(fwait * PERIOD * TICKS)

    # ------------------------------------------------------------------ bytes and packets
    mgmt = (up > 0) * rng.uniform(2e3, 2e4, (P, K))
    mgmt[[p_left, q_left]] = 0
    bo = tot_out * CAP * PERIOD + mgmt
    bi = tot_in * CAP * PERIOD + mgmt * 0.9
    for p in (p_left, q_left):
        w = tmid > Pe
        bo[p, w] = 0
        bi[p, w] = 0
    bo[:, 0] = bi[:, 0] = 0
    pk = 3700 * np.exp(rng.normal(0, 0.04, (P, K)))
    inc[FI["out_octets"]] = np.floor(bo)
    inc[FI["in_octets"]] = np.floor(bi)
    inc[FI["out_pkts"]] = np.floor(tot_out * CAP * PERIOD / pk + mgmt / 256)
    inc[FI["in_pkts"]] = np.floor(tot_in * CAP * PERIOD / pk + mgmt * 0.9 / 256)
    for p in (p_left, q_left):
        for f in ("out_pkts", "in_pkts"):
            inc[FI[f], p, tmid > Pe] = 0

    # ------------------------------------------------------------------ errors: healthy background
    links = [up_idx[li, u] for li in range(16) for u in range(HPL)] + [down_idx[li, s] for li in range(16)
                                                                      for s in range(HPL)]
    special = {p_flap, q_flap, p_sat, peer_of[p_sat], p_heat, peer_of[p_heat], p_hca, p_left, q_left,
               up_idx[L_ber, u_ber], up_idx[L_lli, u_lli], up_idx[L_starve, u_starve], p_admin, p_slow}
    special |= {peer_of[p] for p in list(special) if p in peer_of}
    bg_links = [int(x) for x in rng.choice([x for x in links if x not in special], 20, replace=False)]
    bg_where = []
    for p in bg_links:
        end = p if ports[p]["role"] == "leaf_down" or rng.random() < 0.5 else peer_of[p]
        rate = rng.uniform(1, 6) / 3600.0
        n = rng.poisson(rate * DUR)
        for t_ in rng.uniform(0, DUR, n):
            add("symbol_errors", end, t_, 1)
        bg_where.append(iso(end))
    stale = int(rng.choice([x for x in links if x not in special and x not in bg_links]))

    # ------------------------------------------------------------------ faults
    faults, healthy = [], []

    def fault(kind, p, a, b, sig, peer=True, related=None, device=None, plist=None):
        dev = device or ports[p]["dev"]
        fl = {"kind": kind, "device": dev,
              "ports": plist if plist is not None else [ports[p]["port"]],
              "start_ns": (T0 + int(a)) * 10**9, "end_ns": (T0 + int(b)) * 10**9,
              "peer_ends": ([{"device": ports[peer_of[p]]["dev"], "port": ports[peer_of[p]]["port"]}]
                            if peer and p in peer_of else []),
              "related": related or [], "signature": sig}
        faults.append(fl)

    # module overheating (temperature gauge built below)
    h0, h1 = T(70), T(130)
    # symbol errors saturating
    s0 = T(60)
    for k in range(kof(s0 + 1), N + 1):
        tt = tmid[k] - s0
        rate = 2 + 98 * min(1.0, tt / T(120) if T(120) else 1.0)
        n = rng.poisson(rate * PERIOD)
        inc[FI["symbol_errors"], p_sat, k] += n
        inc[FI["rcv_errors"], p_sat, k] += rng.binomial(n, 0.04)
        inc[FI["symbol_errors"], peer_of[p_sat], k] += rng.poisson(0.02 * rate * PERIOD)
        if rng.random() < 0.25 * PERIOD / 60 / 2:
            inc[FI["link_error_recovery"], p_sat, k] += 1
    fault("symbol_errors_saturating", p_sat, s0, DUR,
          "symbol_errors rising 2->100/s until stuck at 65535, again after the clear; rcv_errors ~4%, "
          "link_error_recovery every few minutes; far end ~2%")
    # pre-FEC BER ramp
    b0, b1 = T(80), T(170)
    p_ber = up_idx[L_ber, u_ber]
    # flapping
    fault("flapping_link", p_flap, flap_start, flap_end,
          "bursts of down/up cycles: link_downed, link_error_recovery, link_transitions, oper_status 0, "
          "symbol errors at link-up")
    # link integrity / buffer overrun
    l0, l1 = T(92), T(150)
    p_lli = up_idx[L_lli, u_lli]
    for k in range(kof(l0 + 1), kof(l1) + 1):
        if rng.random() < PERIOD / 240:
            inc[FI["local_link_integrity_errors"], p_lli, k] += 1
        if rng.random() < PERIOD / 180:
            inc[FI["excessive_buffer_overrun_errors"], p_lli, k] += 1
            inc[FI["rcv_errors"], p_lli, k] += int(rng.integers(5, 50))
    # make sure the first symptom is at the start
    inc[FI["local_link_integrity_errors"], p_lli, kof(l0 + 1)] += 1
    fault("link_integrity_buffer_overrun", p_lli, l0, l1,
          "local_link_integrity_errors and excessive_buffer_overrun_errors (4 bit) every few minutes, "
          "rcv_errors per overrun")
    # relay / constraint errors
    r0, r1 = T(100), T(140)
    for q in relay_ports:
        for k in range(kof(r0 + 1), kof(r1) + 1):
            inc[FI["rcv_switch_relay_errors"], q, k] += rng.poisson((5 + 40 * tot_in[q, k]) * PERIOD)
            inc[FI["xmit_constraint_errors"], q, k] += rng.poisson(0.06 * PERIOD)
            inc[FI["rcv_constraint_errors"], q, k] += rng.poisson(0.04 * PERIOD)
    fault("relay_constraint_errors", relay_ports[0], r0, r1,
          "rcv_switch_relay_errors with the ingress load, xmit/rcv_constraint_errors (8 bit) on a group of "
          "one spine's ports", peer=False, plist=[ports[q]["port"] for q in relay_ports])
    # uplink left down
    fault("uplink_left_down", p_left, Pe, DUR,
          "after the leaf was replaced: oper_status 0, admin_status 1, far end oper_status 1, no bytes "
          "either way")
    # credit starvation
    fault("credit_starvation", p_st, st0, st1, "xmit_wait 10-100x the median of its sibling uplinks at the "
          "same bytes")
    # HCA stomping
    c0, c1 = T(130), T(170)
    hca_rel = sorted({peer_of[up_idx[li_hca, u]] for u in range(HPL)})
    for k in range(kof(c0 + 1), kof(c1) + 1):
        load = tot_in[p_hca, k]
        lam = (0.5 + 14.5 * min(1.0, load / 0.6)) if load > 0.01 else 0.2
        n = rng.poisson(lam * PERIOD)
        inc[FI["rcv_remote_physical_errors"], p_hca, k] += n
        for q in rng.choice(hca_rel, 3, replace=False):
            inc[FI["rcv_remote_physical_errors"], q, k] += rng.poisson(0.01 * n / 3 + 0.01)
    inc[FI["rcv_remote_physical_errors"], p_hca, kof(c0 + 1)] += 1
    rel = {}
    for q in hca_rel:
        rel.setdefault(ports[q]["dev"], []).append(ports[q]["port"])
    fault("hca_remote_physical_errors", p_hca, c0, c1,
          "rcv_remote_physical_errors 0.5-15/s following the host's transmit load, no symbol errors",
          peer=False, related=[{"device": d, "ports": v} for d, v in sorted(rel.items())])
    # credit loop
    rel = {}
    for q in loop_feeders:
        rel.setdefault(ports[q]["dev"], []).append(ports[q]["port"])
    fault("credit_loop_spine", loop_ports[0], T(146), T(158),
          "xmit_wait ~90-98% of time on every port of the spine while its bytes collapse to ~3%; HOQ "
          "xmit_discards", peer=False, device=f"spine-{S_loop}", plist=["*"],
          related=[{"device": d, "ports": v} for d, v in sorted(rel.items())])

    # ------------------------------------------------------------------ gauges per grid point
    temp = np.zeros((P, K))
    base_t = rng.uniform(38, 54, P)
    base_t[p_heat] = 55.0
    drift = np.zeros((P, K))
    for d in devices:
        dp = dev_ports[d]
        drift[dp] = 1.2 * np.sin(np.arange(K) / (90 * sc + 1e-9) + rng.uniform(0, 6))[None, :]
    tgrid = np.arange(K) * PERIOD
    temp = base_t[:, None] + drift + 3.5 * np.maximum(tot_out, tot_in) + rng.normal(0, 0.2, (P, K))
    x = np.clip((tgrid - h0) / max(1, h1 - h0), 0, 1)
    heat_curve = 25 * x ** 1.3
    temp[p_heat] = 55 + heat_curve + 0.8 * (tgrid > h1) * rng.random(K) + rng.normal(0, 0.2, K)
    ber = 10 ** rng.uniform(-9, -6.3, P)[:, None] * np.exp(rng.normal(0, 0.2, (P, K)))
    ber[p_heat] = 1.2e-8 * np.exp(rng.normal(0, 0.2, K)) * 10 ** (np.maximum(0, temp[p_heat] - 72) / 2.5)
    for k in range(1, K):
        T_ = temp[p_heat, k]
        if T_ > 75:
            n = rng.poisson(0.02 * np.exp((T_ - 75) / 1.5) * PERIOD)
            inc[FI["symbol_errors"], p_heat, k] += n
            inc[FI["rcv_errors"], p_heat, k] += rng.binomial(n, 0.05)
        if T_ > 78 and rng.random() < PERIOD / 300:
            inc[FI["link_error_recovery"], p_heat, k] += 1
    fault("module_overheating", p_heat, h0, DUR,
          "temperature rising 55->80 C over an hour from the start; pre_fec_ber and symbol errors only above "
          "~75 C")
    lb0 = np.log10(3e-8)
    lb1 = np.log10(2e-4)
    y = np.clip((tgrid - b0) / max(1, b1 - b0), 0, 1)
    ber[p_ber] = 10 ** (lb0 + (lb1 - lb0) * y) * np.exp(rng.normal(0, 0.15, K))
    for k in range(1, K):
        bb = ber[p_ber, k]
        if bb > 4e-5:
            inc[FI["symbol_errors"], p_ber, k] += rng.poisson(50 * (bb / 2e-4) ** 3 * PERIOD)
            if rng.random() < PERIOD / 400:
                inc[FI["link_error_recovery"], p_ber, k] += 1
    fault("pre_fec_ber_degrading", p_ber, b0, DUR,
          "pre_fec_ber rising log-linearly ~3e-8 -> 2e-4 over 90 min; post-FEC symbol errors only at the end")
    ber = np.where(up > 0.5, ber, 0.0)
    ber[:, 0] = np.where(up[:, 1] > 0.5, ber[:, 1], 0.0)

    # ------------------------------------------------------------------ cumulative values
    C = np.zeros((len(FIELDS), P, K), dtype=np.int64)
    init = np.zeros((len(FIELDS), P), dtype=np.int64)
    init[FI["in_octets"]] = rng.integers(10**14, 4 * 10**16, P)
    init[FI["out_octets"]] = rng.integers(10**14, 4 * 10**16, P)
    init[FI["in_pkts"]] = init[FI["in_octets"]] // rng.integers(2500, 4000, P)
    init[FI["out_pkts"]] = init[FI["out_octets"]] // rng.integers(2500, 4000, P)
    init[FI["xmit_wait"]] = rng.integers(10**11, 10**14, P)
    init[FI["link_downed"]] = rng.integers(0, 4, P)
    init[FI["link_transitions"]] = 2 * init[FI["link_downed"]] + rng.integers(1, 4, P)
    init[FI["link_error_recovery"]] = rng.integers(0, 3, P) * (rng.random(P) < 0.2)
    init[FI["symbol_errors"]] = rng.integers(1, 400, P) * (rng.random(P) < 0.08)
    init[FI["symbol_errors"], stale] = 65535
    init[FI["rcv_errors"]] = rng.integers(1, 30, P) * (rng.random(P) < 0.05)
    init[FI["xmit_discards"]] = rng.integers(1, 300, P) * (rng.random(P) < 0.15)
    C[:, :, 0] = init
    C[:, :, 1:] = init[:, :, None] + np.cumsum(inc[:, :, 1:].astype(np.int64), axis=2)

    # stamps per device and sample
    nd = len(devices)
    offs = rng.uniform(0.5, 4.0, nd)
    stamps = (np.arange(K)[None, :] * PERIOD + offs[:, None]
              + np.clip(rng.normal(0, 0.4, (nd, K)), -1, 1)).astype(float)
    present = np.ones((nd, K), bool)
    di_late = devices.index(LATE_DEVICE)
    late = rng.random(K) < 0.04
    stamps[di_late, late] += rng.uniform(8, 20, late.sum())
    skip = (rng.random(K) < 0.02)
    skip[0] = False
    present[di_late, skip] = False
    stamps = np.round(stamps, 3)
    for di, d in enumerate(devices):
        for a, b in no_lines.get(d, []):
            present[di, (stamps[di] >= a) & (stamps[di] <= b)] = False
    dev_index = {d: i for i, d in enumerate(devices)}
    pdi = np.array([dev_index[d] for d in pdev])
    S = stamps[pdi]                                  # (P, K) stamp seconds per port

    def interp(Cf, s):
        xx = np.clip(s / PERIOD, 0, N)
        k0 = np.minimum(np.floor(xx).astype(int), N - 1)
        fr = xx - k0
        a = np.take_along_axis(Cf, k0, axis=1)
        b = np.take_along_axis(Cf, k0 + 1, axis=1)
        return a + np.floor((b - a) * fr).astype(np.int64)

    V = np.zeros((len(FIELDS), P, K), dtype=np.int64)
    for fi, f in enumerate(FIELDS):
        V[fi] = interp(C[fi], S)
    for t_r, plist, flds in sorted(resets, key=lambda x: x[0]):
        pl = np.array(plist)
        for f in flds:
            fi = FI[f]
            base = interp(C[fi][pl], np.full((len(pl), 1), float(t_r)))
            cur = interp(C[fi][pl], S[pl])
            m = S[pl] > t_r
            V[fi][pl] = np.where(m, cur - base, V[fi][pl])
    for f, w in WIDTH.items():
        np.minimum(V[FI[f]], 2**w - 1, out=V[FI[f]])
    V = np.maximum(V, 0)
    oper = np.ones((P, K), dtype=np.int64)
    for p, ivs in down_iv.items():
        for a, b in ivs:
            oper[p, (S[p] >= a) & (S[p] < b)] = 0
    admin = np.ones((P, K), dtype=np.int64)
    for p, ivs in admin_iv.items():
        for a, b in ivs:
            admin[p, (S[p] >= a) & (S[p] < b)] = 0
    kk = np.clip(np.round(S / PERIOD).astype(int), 0, N)
    tempS = np.take_along_axis(temp, kk, axis=1)
    berS = np.take_along_axis(ber, kk, axis=1)
    berS = np.where(oper == 1, berS, 0.0)

    # ------------------------------------------------------------------ write
    os.makedirs(args.outdir, exist_ok=True)
    prefix = [f"port_counters,device={p['dev']},port={p['port']},fabric=ib,role={p['role']},rail={p['rail']},"
              f"peer_device={p['peer_dev']},peer_port={p['peer_port']},speed=800G " for p in ports]
    fmt = ",".join(f"{f}=%di" for f in FIELDS + GAUGES) + ",temperature=%.1f,pre_fec_ber=%.3e"
    Vt = np.concatenate([V, oper[None], admin[None], np.full((1, P, K), SPEED_BPS, dtype=np.int64)], axis=0)
    Vt = np.transpose(Vt, (2, 1, 0))              # (K, P, F)
    lines = 0
    with open(os.path.join(args.outdir, "port_counters.lp"), "w", encoding="ascii", newline="\n") as fo:
        for k in range(K):
            rows = Vt[k].tolist()
            tl = tempS[:, k].tolist()
            bl = berS[:, k].tolist()
            ordr = sorted((stamps[di, k], di) for di in range(nd) if present[di, k])
            buf = []
            for st, di in ordr:
                ts = f" {(T0 * 10**9 + int(round(st * 1000)) * 10**6)}\n"
                for p in dev_ports[devices[di]]:
                    buf.append(prefix[p] + (fmt % (*rows[p], tl[p], bl[p])) + ts)
            lines += len(buf)
            fo.write("".join(buf))

    # ------------------------------------------------------------------ labels
    def ns(t):
        return (T0 + int(t)) * 10**9

    def H(kind, where, a, b, note, background=False):
        h = {"kind": kind, "where": where, "start_ns": ns(a), "end_ns": ns(b), "note": note}
        if background:
            h["background"] = True
        healthy.append(h)

    H("background_symbol_errors", bg_where, 0, DUR, "sporadic single symbol errors, 1-6 per hour", True)
    H("stale_saturated_counter", [iso(stale)], 0, Tc, "symbol_errors stuck at 65535 since before the run, "
      "zero after the clear", True)
    H("slow_hca", [iso(p_slow)], 0, DUR, "bounded xmit_wait (<=8% of time) on the leaf port facing a slow "
      "receiver, since the start")
    H("static_routing_imbalance", [iso(p) for p in imb] + [iso(peer_of[p]) for p in imb], 0, DUR,
      "uplinks with 1.8x the routing weight of their siblings")
    H("late_or_skipped_polls", [f"{LATE_DEVICE}:*"], 0, DUR, "4% of polls stamped 8-20 s late, 2% skipped")
    for h, pl, a, b in fw_ports:
        H("node_firmware_update", [iso(p) for p in pl], a, b, f"{HOSTS[h]}: all 8 host links bounce twice")
    H("planned_admin_down", [iso(p_admin), iso(q_admin)], A0, A1, "leaf uplink administratively disabled "
      "(admin_status 0) for an hour; far end oper down")
    H("leaf_replacement", [f"{leaves[L_repl]}:*"] + [iso(peer_of[up_idx[L_repl, u]]) for u in range(HPL)],
      Pb, Pe + 90, "leaf swapped in a maintenance window: unreachable, spine ends down once, new counters "
      "from zero, a few relay errors on its spine ends during the SM sweep")
    H("fabric_counter_clear", ["*"], Tc - 30, Tc + 60, "PortCounters cleared fabric-wide: error counters and "
      "xmit_wait to 0")
    H("switch_reboot", [f"{leaves[L_reboot]}:*"] + [iso(peer_of[up_idx[L_reboot, u]]) for u in range(HPL)],
      T(135), T(150), "leaf reboot inside a maintenance window: unreachable 4 min, counters restart, spine "
      "ends down once, training symbol errors")
    H("idle_stretch", ["*"], 0, T(3), "fabric idle before the jobs start")
    H("idle_stretch", [f"{ports[down_idx[2 * r + host_group[h], host_slot[h]]]['dev']}:"
                       f"{ports[down_idx[2 * r + host_group[h], host_slot[h]]]['port']}"
                       for h in JOB_B for r in range(RAILS)], T(95), T(100), "job B restarting")
    H("idle_stretch", [f"{ports[down_idx[2 * r + host_group[h], host_slot[h]]]['dev']}:"
                       f"{ports[down_idx[2 * r + host_group[h], host_slot[h]]]['port']}"
                       for h in JOB_A for r in range(RAILS)], T(118), T(132), "job A stopped")
    for a, b in ((20, 23), (75, 78), (140, 143)):
        H("storage_burst", [iso(p) for p in stor_ports], T(a), T(b),
          "checkpoint to the storage nodes: their ports near line rate, xmit_wait on the ports facing them")
    H("moe_all_to_all", ["*"], T(5), T(95), "expert-parallel all-to-all within leaf groups; credit-wait bursts")
    H("moe_all_to_all_wide", ["*"], T(100), T(160), "wider all-to-all: credit waits on most spine and uplink "
      "ports above anything in the fit window")
    H("moe_all_to_all_wide", ["*"], T(172), DUR, "wider all-to-all resumed")
    H("whole_fabric_job", ["*"], T(36), T(42), "one job over all 36 GPU hosts")
    H("whole_fabric_job", ["*"], T(160), T(172), "one job over all 36 GPU hosts, then restart of A and B")

    faults.sort(key=lambda f: (f["start_ns"], f["device"]))
    fit_min = fit_s / 60
    labels = {
        "scenario": "ib-rail-xdr", "scale": "small", "seed": args.seed, "fabric": "ib",
        "interval_s": PERIOD, "sample_s": PERIOD, "t0_ns": T0 * 10**9, "t_end_ns": (T0 + DUR) * 10**9,
        "train_until_ns": (T0 + fit_s) * 10**9,
        "fit_first": f"{int(fit_min)}m" if fit_min == int(fit_min) else f"{fit_s}s",
        "ports": P, "lines": lines, "hours": hours,
        "timestamps": "stamped by the switch: per-device offset 0.5-4 s plus jitter; one device late/skipped",
        "faults": faults, "healthy_phenomena": healthy,
    }
    with open(os.path.join(args.outdir, "labels.json"), "w", encoding="utf-8") as f:
        json.dump(labels, f, indent=1)
        f.write("\n")
    print(f"{args.outdir}: {P} ports, {K} samples, {lines} lines, {len(faults)} faults, "
          f"{len(healthy)} healthy phenomena, {time.time() - t_start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
