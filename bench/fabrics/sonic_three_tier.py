#!/usr/bin/env python3
"""Labelled synthetic telemetry of a three-tier RoCEv2 GPU fabric with two switch vendors.

usage: sonic_three_tier.py OUTDIR [--seed N] [--hours H]        (defaults: seed 1, 4 h)

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement `port_counters`, one point per
polled switch port per poll, raw values exactly as each exporter reads them, time-ordered,
nanosecond timestamps) and OUTDIR/labels.json (faults that a degraded-link detector should find,
healthy phenomena it should not flag, and notes describing every tag and field).
Standalone: Python 3.10+, standard library and numpy only; deterministic per seed.

Fabric: 2 pods + 4 super-spines (tier "core"), 832 polled switch ports, hosts not polled.
  pod1 (SONiC, COUNTERS_DB/APPL_DB/STATE_DB streamed by the SONiC gNMI telemetry server, sampled
        every 10 s by Telegraf inputs.gnmi): 8 rail leaves (16 x 400G GPU NICs, 8 x 400G uplinks,
        4 never-cabled ports), 1 storage leaf + 1 front-end leaf (16 x 100G breakout ports, 12
        cabled, 4 x 400G uplinks), 4 spines (18 x 400G down, 8 x 400G up, 2 never cabled).
  pod2 (second vendor, polled every 20 s over SNMPv2c by Telegraf inputs.snmp: IF-MIB,
        EtherLike-MIB, IEEE8021-PFC-MIB): the same layout.
  core01..core04 (SONiC super-spines): 2 x 400G to each of the 8 spines, 4 never cabled.
The model runs on a 10 s grid: jobs -> host NIC demand -> leaf/spine/core flows with ECMP and
DCQCN-style throttling at saturated tiers -> per-egress-queue pressure -> ECN marks, PFC pauses
(sent on the ingress ports that feed a pressured switch, received by the neighbour, one hop of
spreading), queue watermarks; FEC codeword statistics from each link's pre-FEC BER; link state,
resets, wraps, jitter and gaps applied last. Poll instants are jittered; a counter read at time t
is the cumulative value interpolated at t.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections import defaultdict

import numpy as np

DT = 10                         # model grid and SONiC gNMI sample period (s)
SNMP_EVERY = 2                  # vendor-B SNMP poll every 2 grid steps = 20 s
INTERVAL_S = 20                 # slowest switch poll cadence = the scoring interval
T0_S = 1758056400               # 2025-09-16T21:00:00Z
NS = 10**9
B400 = 400e9 / 8 * DT           # bytes per grid interval at 400G
B100 = 100e9 / 8 * DT
U32 = 1 << 32

# internal counter order (cumulative, integer)
CF = ["in_oct", "out_oct", "in_pkt", "out_pkt", "in_err", "out_err", "in_disc", "out_disc", "fcs",
      "fec_corr", "fec_unc", "fec_sym", "pfc_rx", "pfc_tx", "q_pkts", "q_drop", "ecn", "wd_det", "wd_drop"]
CI = {f: i for i, f in enumerate(CF)}

SONIC_NAMES = {
    "in_oct": "SAI_PORT_STAT_IF_IN_OCTETS", "out_oct": "SAI_PORT_STAT_IF_OUT_OCTETS",
    "in_pkt": "SAI_PORT_STAT_IF_IN_UCAST_PKTS", "out_pkt": "SAI_PORT_STAT_IF_OUT_UCAST_PKTS",
    "in_err": "SAI_PORT_STAT_IF_IN_ERRORS", "out_err": "SAI_PORT_STAT_IF_OUT_ERRORS",
    "in_disc": "SAI_PORT_STAT_IF_IN_DISCARDS", "out_disc": "SAI_PORT_STAT_IF_OUT_DISCARDS",
    "fcs": "SAI_PORT_STAT_ETHER_STATS_CRC_ALIGN_ERRORS",
    "fec_corr": "SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES",
    "fec_unc": "SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES",
    "fec_sym": "SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS",
    "pfc_rx": "SAI_PORT_STAT_PFC_3_RX_PKTS", "pfc_tx": "SAI_PORT_STAT_PFC_3_TX_PKTS",
    "q_pkts": "SAI_QUEUE_STAT_PACKETS", "q_drop": "SAI_QUEUE_STAT_DROPPED_PACKETS",
    "ecn": "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS",
    "wd_det": "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "wd_drop": "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS",
}
SONIC_ORDER = CF
SNMP_NAMES = {
    "in_oct": "ifHCInOctets", "out_oct": "ifHCOutOctets", "in_pkt": "ifHCInUcastPkts",
    "out_pkt": "ifHCOutUcastPkts", "in_disc": "ifInDiscards", "in_err": "ifInErrors",
    "out_disc": "ifOutDiscards", "out_err": "ifOutErrors", "fcs": "dot3StatsFCSErrors",
    "pfc_rx": "ieee8021PfcIndications", "pfc_tx": "ieee8021PfcRequests",
}
SNMP_ORDER = ["in_oct", "out_oct", "in_pkt", "out_pkt", "in_disc", "in_err", "out_disc", "out_err", "fcs",
              "pfc_rx", "pfc_tx"]
SNMP_C32 = ["in_disc", "in_err", "out_disc", "out_err", "fcs", "pfc_rx", "pfc_tx"]   # Counter32 objects


# ------------------------------------------------------------------------------------------ topology
def vend(p):
    return "sonic" if p == 0 else "snmp"


def leaf_name(p, li):
    if li < 8:
        return f"pod{p + 1}-leaf{li + 1:02d}"
    return f"pod{p + 1}-sleaf01" if li == 8 else f"pod{p + 1}-fleaf01"


def spine_name(p, j):
    return f"pod{p + 1}-spine{j + 1:02d}"


def core_name(c):
    return f"core{c + 1:02d}"


def pname(v, i):
    return f"Ethernet{8 * i}" if v == "sonic" else f"Ethernet1/{i + 1}"


def pname_bo(v, cage, lane):        # 4 x 100G breakout of an 8-lane 400G cage
    return f"Ethernet{8 * cage + 2 * lane}" if v == "sonic" else f"Ethernet1/{cage + 1}/{lane + 1}"


class Fabric:
    def __init__(self):
        self.ports = []
        self.dev = {}
        self.order = []

    def device(self, name, vendor, tier, pod):
        self.dev[name] = dict(name=name, vendor=vendor, tier=tier, pod=pod, ports=[])
        self.order.append(name)

    def port(self, dev, pn, role, speed, kind, peer_dev=None, peer_port=None, **meta):
        i = len(self.ports)
        self.ports.append(dict(idx=i, device=dev, port=pn, role=role, speed=speed, kind=kind,
                               peer_device=peer_dev, peer_port=peer_port,
                               vendor=self.dev[dev]["vendor"], **meta))
        self.dev[dev]["ports"].append(i)
        return i


def build():
    F = Fabric()
    for p in range(2):
        for li in range(10):
            F.device(leaf_name(p, li), vend(p), "leaf", p + 1)
        for j in range(4):
            F.device(spine_name(p, j), vend(p), "spine", p + 1)
    for c in range(4):
        F.device(core_name(c), "sonic", "core", None)
    ix = dict(gd=np.full((2, 16, 8), -1), lu=np.full((2, 8, 4, 2), -1), sdn=np.full((2, 4, 8, 2), -1),
              sd=np.full((2, 12), -1), fd=np.full((2, 12), -1), su=np.full((2, 4), -1), fu=np.full((2, 4), -1),
              sdn_s=np.full((2, 4), -1), sdn_f=np.full((2, 4), -1), sup=np.full((2, 4, 4, 2), -1),
              co=np.full((4, 2, 4, 2), -1))
    for p in range(2):
        v = vend(p)
        for r in range(8):
            L = leaf_name(p, r)
            for s in range(16):
                ix["gd"][p, s, r] = F.port(L, pname(v, s), "leaf_down", 400, "gd", f"gpu{p * 16 + s + 1:03d}",
                                           f"mlx5_{r}", pod=p, rail=r, slot=s)
            for j in range(4):
                for m in range(2):
                    ix["lu"][p, r, j, m] = F.port(L, pname(v, 16 + 2 * j + m), "leaf_up", 400, "lu", spine_name(p, j),
                                                  pname(v, 2 * r + m), pod=p, rail=r, spine=j, link=m)
            for u in range(4):
                F.port(L, pname(v, 24 + u), "leaf_down", 400, "unused", pod=p)
        for li, kd, ku, host in ((8, "sd", "su", "stor"), (9, "fd", "fu", "fe")):
            L = leaf_name(p, li)
            for i in range(16):
                if i < 12:
                    ix[kd][p, i] = F.port(L, pname_bo(v, i // 4, i % 4), "leaf_down", 100, kd,
                                          f"{host}{p * 12 + i + 1:02d}", "mlx5_0", pod=p, slot=i)
                else:
                    F.port(L, pname_bo(v, i // 4, i % 4), "leaf_down", 100, "unused", pod=p)
            for j in range(4):
                ix[ku][p, j] = F.port(L, pname(v, 4 + j), "leaf_up", 400, ku, spine_name(p, j),
                                      pname(v, 16 + li - 8), pod=p, spine=j)
        for j in range(4):
            S = spine_name(p, j)
            for r in range(8):
                for m in range(2):
                    ix["sdn"][p, j, r, m] = F.port(S, pname(v, 2 * r + m), "spine_down", 400, "sdn", leaf_name(p, r),
                                                   pname(v, 16 + 2 * j + m), pod=p, rail=r, spine=j, link=m)
            ix["sdn_s"][p, j] = F.port(S, pname(v, 16), "spine_down", 400, "sdn_s", leaf_name(p, 8),
                                       pname(v, 4 + j), pod=p, spine=j)
            ix["sdn_f"][p, j] = F.port(S, pname(v, 17), "spine_down", 400, "sdn_f", leaf_name(p, 9),
                                       pname(v, 4 + j), pod=p, spine=j)
            for c in range(4):
                for m in range(2):
                    ix["sup"][p, j, c, m] = F.port(S, pname(v, 18 + 2 * c + m), "spine_up", 400, "sup", core_name(c),
                                                   pname("sonic", 8 * p + 2 * j + m), pod=p, spine=j, core=c, link=m)
            for u in range(2):
                F.port(S, pname(v, 26 + u), "spine_up", 400, "unused", pod=p)
    for c in range(4):
        C = core_name(c)
        for p in range(2):
            for j in range(4):
                for m in range(2):
                    ix["co"][c, p, j, m] = F.port(C, pname("sonic", 8 * p + 2 * j + m), "core", 400, "co",
                                                  spine_name(p, j), pname(vend(p), 18 + 2 * c + m),
                                                  pod=p, spine=j, core=c, link=m)
        for u in range(4):
            F.port(C, pname("sonic", 16 + u), "core", 400, "unused")
    where = {(q["device"], q["port"]): q["idx"] for q in F.ports}
    F.peer = np.full(len(F.ports), -1)
    for q in F.ports:
        if q["peer_device"] and (q["peer_device"], q["peer_port"]) in where:
            F.peer[q["idx"]] = where[(q["peer_device"], q["peer_port"])]
    for q in F.ports:                                    # wiring is symmetric
        if F.peer[q["idx"]] >= 0:
            assert F.peer[F.peer[q["idx"]]] == q["idx"], q
    F.ix = ix
    F.where = where
    return F


# ------------------------------------------------------------------------------------------ workload
def job_series(rng, N, k0, k1, coll_every, coll_len, xp_coll, xr_norm, xr_coll, ckpts=(), evals=(), warm=0,
               xp_norm=0.05):
    util, xr, xp, st = np.zeros(N), np.zeros(N), np.zeros(N), np.zeros(N)
    coll, ck = np.zeros(N, bool), np.zeros(N, bool)
    k0, k1 = max(0, k0), min(N, k1)
    if k1 <= k0:
        return util, xr, xp, st, coll, ck
    n = k1 - k0
    ar = np.zeros(n)
    e = rng.normal(0, 0.025, n)
    for i in range(1, n):
        ar[i] = 0.96 * ar[i - 1] + e[i]
    util[k0:k1] = np.clip(0.46 + ar + rng.normal(0, 0.02, n), 0.28, 0.62)
    xr[k0:k1], xp[k0:k1] = xr_norm, xp_norm
    if warm:
        w = min(warm, n)
        util[k0:k0 + w] = rng.uniform(0.02, 0.12, w)
    t = k0 + warm + int(rng.integers(6, coll_every))
    while t < k1:
        L = int(rng.integers(coll_len[0], coll_len[1] + 1))
        e_ = min(k1, t + L)
        util[t:e_] = rng.uniform(0.86, 0.95, e_ - t)
        xp[t:e_], xr[t:e_], coll[t:e_] = xp_coll, xr_coll, True
        t += coll_every + int(rng.integers(-6, 7))
    for a, b in ckpts:
        a, b = max(a, k0), min(b, k1)
        if b > a:
            util[a:b] = rng.uniform(0.10, 0.14, b - a)
            st[a:b], xp[a:b], xr[a:b], ck[a:b], coll[a:b] = 0.9, 0.0, 0.03, True, False
    for a, b in evals:
        a, b = max(a, k0), min(b, k1)
        if b > a:
            util[a:b] = rng.uniform(0.02, 0.05, b - a)
            xp[a:b], xr[a:b], coll[a:b] = 0.0, 0.05, False
    return util, xr, xp, st, coll, ck


def theta(r):
    return np.minimum(1.0, 0.97 / np.maximum(r, 1e-12))


def sdiv(a, b):
    return np.where(b > 0, a / np.where(b > 0, b, 1.0), 0.0)


def pkt_size(u):
    return 300.0 + 3900.0 * u / (u + 0.02)


# ------------------------------------------------------------------------------------------ main model
def simulate(seed, hours):
    rng = np.random.default_rng(seed)
    F = build()
    P = len(F.ports)
    ix = F.ix
    N = round(hours * 3600 / DT)
    T = N * DT
    kind = np.array([q["kind"] for q in F.ports])
    vendor = np.array([q["vendor"] for q in F.ports])
    speed = np.array([q["speed"] for q in F.ports])
    cabled = kind != "unused"
    cap = np.where(speed == 400, B400, B100)
    sw_link = F.peer >= 0
    scale_t = hours / 4.0

    def km(minutes, spread=1.5):
        """minutes from the start (scaled to --hours, jittered per seed) -> grid index on a 20 s boundary"""
        m = minutes * scale_t + rng.uniform(-spread, spread) * scale_t
        return int(np.clip(round(m * 60 / INTERVAL_S) * SNMP_EVERY, 0, N))

    def mk(minutes):
        return round(minutes * scale_t * 60 / DT)

    k_train = round(0.3 * N / SNMP_EVERY) * SNMP_EVERY

    # ---------------- timeline
    tl = {}
    tl["ckpt1"] = km(40)
    tl["eval"] = km(56)
    tl["fec_ramp"] = km(80)
    tl["blackhole"] = km(85)
    tl["warm"] = km(92)
    tl["preber"] = km(95)
    tl["ecn_change"] = km(98)
    tl["egdisc"] = km(101)
    tl["ckpt2"] = km(106)
    tl["maint"] = km(109)
    tl["clear"] = km(118)
    tl["lowrx"] = km(121)
    tl["gap"] = km(128, 1.0)
    tl["deadlock"] = km(137, 1.0)
    tl["blackhole_end"] = km(141)
    tl["ckpt3"] = km(150, 1.0)
    tl["egdisc_end"] = km(151)
    tl["ecn_revert"] = km(157, 1.0)
    tl["night"] = km(161, 1.0)
    tl["fec_ramp_end"] = km(176)
    tl["jobc"] = km(196, 1.0)
    tl["preber_end"] = km(201)
    tl["halfspeed"] = km(203)
    tl["flap"] = km(207)
    tl["reboot"] = km(214, 1.0)
    tl["flap_end"] = km(225)
    assert tl["deadlock"] > tl["gap"] + mk(6) and tl["night"] > tl["ckpt3"] + mk(5)

    # ---------------- choices (per seed)
    p1l = [int(x) for x in rng.permutation(8)]
    L_bh, L_pre, L_ecn, L_low, L_warm = p1l[:5]
    p1s = [int(x) for x in rng.permutation(4)]
    S_dead, S_fec = p1s[:2]
    p2s = [int(x) for x in rng.permutation(4)]
    S_eg, S_clear = p2s[:2]
    r_eg, m_eg = int(rng.integers(0, 8)), int(rng.integers(0, 2))
    c_fec, m_fec = int(rng.integers(0, 4)), int(rng.integers(0, 2))
    j_pre, m_pre = int(rng.integers(0, 4)), int(rng.integers(0, 2))
    j_bh, m_bh = int(rng.integers(0, 4)), int(rng.integers(0, 2))
    s_low, lane_low = int(rng.integers(0, 8)), int(rng.integers(1, 5))
    r2 = [int(x) for x in rng.permutation(8)]
    r_half, r_flap = r2[:2]
    s_half, s_flap = int(rng.integers(0, 8)), int(rng.integers(0, 8))
    c_boot = int(rng.integers(0, 4))
    j_stuck, m_stuck = int(rng.integers(0, 4)), int(rng.integers(0, 2))

    P_fec = ix["sup"][0, S_fec, c_fec, m_fec]          # receive side: pod1 spine port facing a core
    P_pre = ix["lu"][0, L_pre, j_pre, m_pre]           # receive side: pod1 leaf uplink
    P_bh = ix["lu"][0, L_bh, j_bh, m_bh]               # pod1 leaf uplink not used by the leaf's ECMP
    P_low = ix["gd"][0, s_low, L_low]                  # pod1 leaf port facing a GPU NIC
    P_eg = ix["sdn"][1, S_eg, r_eg, m_eg]              # pod2 spine port dropping on egress
    P_half = ix["gd"][1, s_half, r_half]               # pod2 leaf port to a NIC running at 200G
    P_flap = ix["gd"][1, s_flap, r_flap]               # pod2 leaf port in a flap loop
    P_stuck = ix["co"][c_boot, 1, j_stuck, m_stuck]    # core port left down after the reboot
    dev_ports = {d: np.array(F.dev[d]["ports"]) for d in F.order}

    # ---------------- link state events (seconds from t0): down intervals per port, admin-down per port
    down_ev = defaultdict(list)
    admin_ev = defaultdict(list)
    absent = defaultdict(list)             # device -> [(a_s, b_s)] no samples
    resets = []                            # (ports array, grid k): counters restart after grid k

    def link_down(pi, a, b, both=True):
        down_ev[pi].append((a, b))
        if both and F.peer[pi] >= 0:
            down_ev[F.peer[pi]].append((a, b))

    # FEC-ramp optic replaced at the end (40 s down), pre-FEC link reseated (30 s down)
    t_fec_fix = tl["fec_ramp_end"] * DT + float(rng.uniform(1, 8))
    link_down(P_fec, t_fec_fix, t_fec_fix + 40.0)
    t_pre_fix = tl["preber_end"] * DT + float(rng.uniform(1, 8))
    link_down(P_pre, t_pre_fix, t_pre_fix + 30.0)
    # half-speed: renegotiation bounce
    t_half = tl["halfspeed"] * DT + float(rng.uniform(1, 6))
    link_down(P_half, t_half, t_half + 4.5)
    # flap loop
    flaps = []
    t = tl["flap"] * DT + float(rng.uniform(0.5, 4))
    while t < tl["flap_end"] * DT - 20:
        d = float(rng.uniform(2.0, 9.0))
        flaps.append((t, t + d))
        link_down(P_flap, t, t + d)
        t += d + float(rng.uniform(14.0, 75.0))
    flap_last = flaps[-1][1]
    # planned maintenance: whole pod2 front-end leaf admin-down 15 min
    t_maint = tl["maint"] * DT + 2.0
    fleaf2 = leaf_name(1, 9)
    for pi in dev_ports[fleaf2]:
        admin_ev[pi].append((t_maint, t_maint + 900.0))
        if cabled[pi]:
            link_down(pi, t_maint, t_maint + 900.0)
    # core cold reboot: all links down 4 min, device absent, counters restart; one link stays down
    t_boot = tl["reboot"] * DT + 3.0
    t_back = t_boot + 240.0
    core_b = core_name(c_boot)
    for pi in dev_ports[core_b]:
        if cabled[pi] and pi != P_stuck:
            link_down(pi, t_boot, t_back)
    link_down(P_stuck, t_boot, T + 1.0)
    absent[core_b].append((t_boot - 2.0, t_back + 12.0))
    k_back = math.ceil((t_back + 12.0) / DT)
    resets.append((dev_ports[core_b], int(t_back // DT)))
    # warm reboot of a pod1 leaf: no samples for 2 min, counters restart, forwarding and links stay up
    warm_dev = leaf_name(0, L_warm)
    t_warm = tl["warm"] * DT + 1.0
    absent[warm_dev].append((t_warm, t_warm + 120.0))
    resets.append((dev_ports[warm_dev], int(t_warm // DT) + 1))
    # operator clears a vendor-B spine's counters
    clear_dev = spine_name(1, S_clear)
    resets.append((dev_ports[clear_dev], tl["clear"]))
    # collector gap
    t_gap = tl["gap"] * DT + 4.0
    gap = (t_gap, t_gap + 300.0)

    upf = np.ones((N, P))
    upf[:, ~cabled] = 0.0
    grid = np.arange(N) * DT

    def frac_down(a, b):
        lo = np.clip(a - grid, 0, DT)
        hi = np.clip(b - grid, 0, DT)
        return (hi - lo) / DT

    for pi, evs in down_ev.items():
        for a, b in evs:
            upf[:, pi] -= frac_down(a, b)
    np.clip(upf, 0.0, 1.0, out=upf)

    # ---------------- jobs
    night0, night1 = tl["night"], tl["jobc"]
    util_bg = 2e-5
    U = np.full((N, 2, 16, 8), util_bg)
    fXR = np.zeros((N, 2, 16, 8))
    fXP = np.zeros((N, 2, 16, 8))
    fST = np.zeros((N, 2, 16, 8))
    coll_any = np.zeros(N, bool)
    ckpt = np.zeros((N, 2), bool)
    def ck_len():
        return mk(1) + int(rng.integers(0, mk(1) + 1))
    ckpts = [(tl["ckpt1"], tl["ckpt1"] + ck_len()), (tl["ckpt2"], tl["ckpt2"] + ck_len()),
             (tl["ckpt3"], tl["ckpt3"] + ck_len())]
    evals = [(tl["eval"], tl["eval"] + mk(6))]
    jobA_hosts = [(0, s) for s in range(16)] + [(1, s) for s in range(8)]
    jobB_hosts = [(1, s) for s in range(8, 16)]
    jobC_hosts = [(0, s) for s in range(8)] + [(1, s) for s in range(8)]
    stallA = np.ones(N)
    stallC = np.ones(N)
    k_dead0 = tl["deadlock"]
    k_dead1 = k_dead0 + mk(8)
    stallA[k_dead0:k_dead1] = 0.3
    capC = np.full(N, np.inf)
    capC[int(t_half // DT) + 1:] = 0.485      # collectives run at the pace of the 200G NIC
    jobs = {}

    def place(name, hosts, series, stall):
        util, xr, xp, st, coll, ck = series
        n_pod = [sum(1 for h in hosts if h[0] == p) for p in range(2)]
        srv = rng.lognormal(0, 0.02, len(hosts))
        active = util > 0
        for i, (p, s) in enumerate(hosts):
            scale = min(1.0, n_pod[1 - p] / n_pod[p]) if n_pod[1 - p] else 0.0
            noise = rng.lognormal(0, 0.04, (N, 8)) * srv[i]
            U[active, p, s, :] = (util * stall)[active, None] * noise[active]
            fXR[active, p, s, :] = xr[active, None]
            fXP[active, p, s, :] = (xp * scale)[active, None]
            fST[active, p, s, :] = st[active, None]
        coll_any[coll] = True
        for p in range(2):
            if n_pod[p]:
                ckpt[ck, p] = True
        jobs[name] = dict(hosts=hosts, coll=coll, ck=ck, active=active)

    place("A", jobA_hosts, job_series(rng, N, 0, night0, 72, (9, 15), 0.6, 0.15, 0.08, ckpts, evals), stallA)
    place("B", jobB_hosts, job_series(rng, N, 0, night0 - mk(2), 54, (8, 12), 0.0, 0.25, 0.35, (), (),
                                      xp_norm=0.0), np.ones(N))
    place("C", jobC_hosts, job_series(rng, N, night1, N, 60, (9, 15), 0.55, 0.15, 0.08, (), (), warm=12), stallC)
    for p, s in jobC_hosts:
        U[:, p, s, :] = np.minimum(U[:, p, s, :], capC[:, None])
    # flapping host: its job traffic suffers during the loop
    fl0, fl1 = int(flaps[0][0] // DT), int(flap_last // DT) + 1
    U[fl0:fl1, 1, s_flap, :] *= rng.uniform(0.35, 0.8, (fl1 - fl0, 1))

    # host NIC link state and speed
    gd = ix["gd"]
    speedfac = np.ones((N, 2, 16, 8))
    speedfac[int(t_half // DT) + 1:, 1, s_half, r_half] = 0.5
    int(t_half // DT)
    upf_h = upf[:, gd]                                   # (N,2,16,8)
    capnic = B400 * upf_h * speedfac
    TXD = np.minimum(U * B400, 0.97 * np.maximum(capnic, 1.0))
    TXD *= np.minimum(1.0, upf_h * 1.0)

    # storage reads, front-end traffic
    day = np.ones(N)
    day[night0:night1] = 0.0
    active_pod = np.zeros((N, 2), bool)
    for jb in jobs.values():
        for p in range(2):
            if any(h[0] == p for h in jb["hosts"]):
                active_pod[:, p] |= jb["active"] & ~jb["ck"]
    sr_u = np.clip(0.22 + 0.05 * np.sin(np.arange(N)[:, None] / 37.0 + np.array([0.0, 1.3])) +
                   rng.normal(0, 0.02, (N, 2)), 0.1, 0.35)
    SR = 12 * B100 * np.where(active_pod, sr_u, 0.002)
    fe_u = np.clip(0.07 + rng.normal(0, 0.01, (N, 2)), 0.03, 0.12) * np.where(day[:, None] > 0, 1.0, 0.06)
    fe_up = upf[:, ix["fd"]].mean(axis=2)               # (N,2)  (0 during the maintenance)
    FE = 12 * B100 * fe_u * fe_up

    # ---------------- flows
    LOC = TXD * (1 - fXR - fXP - fST)
    XRo = TXD * fXR
    XPo = TXD * fXP
    STo = TXD * fST
    XRo_L, XPo_L, STo_L = XRo.sum(2), XPo.sum(2), STo.sum(2)        # (N,2,8)
    XRi_L = (XRo_L.sum(2, keepdims=True) - XRo_L) / 7.0
    XPi_L = XPo_L[:, ::-1, :]
    SRi_L = np.repeat(SR[:, :, None] / 8.0, 8, axis=2)
    FEi_L = np.repeat(FE[:, :, None] / 8.0, 8, axis=2)
    FEo_L = FEi_L * rng.uniform(0.8, 1.2, (N, 2, 8))

    lu = ix["lu"]
    bh = np.zeros((N, 2, 8, 4, 2))
    bh[tl["blackhole"]:tl["blackhole_end"], 0, L_bh, j_bh, m_bh] = 1.0
    upf_lu = upf[:, lu]                                  # (N,2,8,4,2)
    cap_lu_out = B400 * (upf_lu * (1 - bh)).sum((3, 4))
    cap_lu_in = B400 * upf_lu.sum((3, 4))
    rho_lu_out = sdiv(XRo_L + XPo_L + STo_L + FEo_L, cap_lu_out)
    rho_lu_in = sdiv(XRi_L + XPi_L + SRi_L + FEi_L, cap_lu_in)
    upf_sup = upf[:, ix["sup"]]                          # (N,2,4,4,2)
    cap_su = B400 * upf_sup.sum((2, 3, 4))               # (N,2)
    rho_su_out = sdiv(XPo_L.sum(2), cap_su)
    rho_su_in = sdiv(XPi_L.sum(2), cap_su)
    ST_dem = STo_L.sum(2)                                # (N,2)
    cap_sdn = B100 * upf[:, ix["sd"]].sum(2)
    cap_sup = B400 * upf[:, ix["su"]].sum(2)
    rho_sd = sdiv(ST_dem, cap_sdn)
    rho_sup_in = sdiv(ST_dem, cap_sup)
    rho_sup_out = sdiv(SR, cap_sup)

    th_out, th_in = theta(rho_lu_out), theta(rho_lu_in)
    th_core = np.minimum(theta(rho_su_out), theta(rho_su_in)[:, ::-1])            # (N,2) src pod
    XPo_La = XPo_L * th_out * th_core[:, :, None] * th_in[:, ::-1, :]
    XPi_La = XPo_La[:, ::-1, :]
    XRo_La = XRo_L * th_out * th_in.mean(2, keepdims=True)
    XRi_La = (XRo_La.sum(2, keepdims=True) - XRo_La) / 7.0
    th_st = np.minimum(theta(rho_sd), theta(rho_sup_in))
    STo_La = STo_L * th_out * th_st[:, :, None]
    ST_in_a = STo_La.sum(2)
    SRi_La = SRi_L * th_in * theta(rho_sup_out)[:, :, None]
    SR_out_a = SRi_La.sum(2)
    FEi_La = FEi_L * th_in
    FEo_La = FEo_L * th_out
    r_xr, r_xp, r_st = sdiv(XRo_La, XRo_L), sdiv(XPo_La, XPo_L), sdiv(STo_La, STo_L)

    TX_a = LOC + XRo * r_xr[:, :, None, :] + XPo * r_xp[:, :, None, :] + STo * r_st[:, :, None, :] \
        + (FEo_La / 16.0)[:, :, None, :] * upf_h
    offdem = TXD * (fXR + fXP + fST) + 1e3 * upf_h
    share = offdem / offdem.sum(2, keepdims=True)
    LOC_rx = LOC * rng.lognormal(0, 0.03, LOC.shape)
    RX_dem = LOC_rx + (XRi_L + XPi_L + SRi_L + FEi_L)[:, :, None, :] * share
    RX_a = LOC_rx + (XRi_La + XPi_La + SRi_La + FEi_La)[:, :, None, :] * share
    lim = 0.97 * capnic
    TX_a = np.minimum(TX_a, lim)
    RX_a = np.minimum(RX_a, lim)

    in_o = np.zeros((N, P))
    out_o = np.zeros((N, P))
    q = np.zeros((N, P))
    Bf = 1.0 + 0.22 * coll_any                            # burstiness of collective phases
    Bst = 1.0 + 0.3 * ckpt                                # incast burstiness (N,2)
    def nz(shape):
        return rng.lognormal(0, 0.08, shape)

    # leaf ports facing GPU NICs
    in_o[:, gd] = TX_a
    out_o[:, gd] = RX_a
    q[:, gd] = sdiv(RX_dem, np.maximum(capnic, 1.0) / 0.97 * 0.97) * Bf[:, None, None, None] * nz(gd.shape)
    q[:, gd] *= upf_h > 0
    # storage / front-end node ports
    wn = rng.lognormal(0, 0.1, (2, 12))
    wn /= wn.sum(1, keepdims=True)
    wn2 = rng.lognormal(0, 0.1, (2, 12))
    wn2 /= wn2.sum(1, keepdims=True)
    sd, fd = ix["sd"], ix["fd"]
    upf_sd = upf[:, sd]
    out_o[:, sd] = np.minimum(ST_in_a[:, :, None] * wn * 12 / 12, 0.97 * B100) * upf_sd
    in_o[:, sd] = SR_out_a[:, :, None] * wn2 * upf_sd
    q[:, sd] = (ST_dem[:, :, None] * wn / B100 * Bst[:, :, None] + 0.02) * nz(sd.shape) * (upf_sd > 0)
    fe_to = FEi_La.sum(2)       # what GPU leaves receive from the FE leaf
    fe_from = FEo_La.sum(2)
    upf_fd = upf[:, fd]
    out_o[:, fd] = fe_from[:, :, None] * wn * upf_fd
    in_o[:, fd] = fe_to[:, :, None] * wn2 * upf_fd
    q[:, fd] = sdiv(out_o[:, fd], B100) * nz(fd.shape)

    # GPU leaf uplinks and the spine ports facing them
    wo_s = rng.lognormal(0, 0.05, (2, 8, 4, 2))
    wi_s = rng.lognormal(0, 0.05, (2, 8, 4, 2))
    polar = []                                             # healthy ECMP polarisation since the start
    for p in range(2):
        r_, j_, m_ = int(rng.integers(0, 8)), int(rng.integers(0, 4)), int(rng.integers(0, 2))
        if (p == 0 and r_ in (L_bh, L_pre)):
            r_ = next(x for x in range(8) if x not in (L_bh, L_pre))
        wo_s[p, r_, j_, m_] *= 1.4
        polar.append(lu[p, r_, j_, m_])
    wo = wo_s * rng.lognormal(0, 0.03, (N, 2, 8, 4, 2)) * upf_lu * (1 - bh)
    wi = wi_s * rng.lognormal(0, 0.03, (N, 2, 8, 4, 2)) * upf_lu
    won = wo / np.maximum(wo.sum((3, 4), keepdims=True), 1e-12)
    win = wi / np.maximum(wi.sum((3, 4), keepdims=True), 1e-12)
    OUT_L = XRo_La + XPo_La + STo_La + FEo_La
    IN_L = XRi_La + XPi_La + SRi_La + FEi_La
    lu_out = OUT_L[..., None, None] * won
    lu_in = IN_L[..., None, None] * win
    in_o[:, lu] = lu_in
    out_o[:, lu] = lu_out
    q[:, lu] = rho_lu_out[..., None, None] * won * 8 * Bf[:, None, None, None, None] * nz(lu.shape)
    sdn = ix["sdn"]                                        # [p,j,r,m]
    sdn_t = np.transpose(sdn, (0, 2, 1, 3))                # [p,r,j,m] aligned with lu
    in_o[:, sdn_t] = lu_out
    out_o[:, sdn_t] = lu_in
    q[:, sdn_t] = rho_lu_in[..., None, None] * win * 8 * Bf[:, None, None, None, None] * nz(lu.shape)

    # storage / front-end leaf uplinks
    for _kd, ku, kdn, OUTv, INv, rq_out, rq_in, bb in (
            ("sd", "su", "sdn_s", SR_out_a, ST_in_a, rho_sup_out, rho_sup_in, Bst),
            ("fd", "fu", "sdn_f", fe_to, fe_from, sdiv(fe_to, 4 * B400), sdiv(fe_from, 4 * B400),
             np.ones((N, 2)))):
        upk = upf[:, ix[ku]]                               # (N,2,4)
        w = rng.lognormal(0, 0.05, (2, 4)) * rng.lognormal(0, 0.03, (N, 2, 4)) * upk
        wnm = w / np.maximum(w.sum(2, keepdims=True), 1e-12)
        w2 = rng.lognormal(0, 0.05, (2, 4)) * rng.lognormal(0, 0.03, (N, 2, 4)) * upk
        wnm2 = w2 / np.maximum(w2.sum(2, keepdims=True), 1e-12)
        o = OUTv[:, :, None] * wnm
        i_ = INv[:, :, None] * wnm2
        out_o[:, ix[ku]] = o
        in_o[:, ix[ku]] = i_
        out_o[:, ix[kdn]] = i_
        in_o[:, ix[kdn]] = o
        q[:, ix[ku]] = rq_out[:, :, None] * wnm * 4 * bb[:, :, None] * nz((2, 4))
        q[:, ix[kdn]] = rq_in[:, :, None] * wnm2 * 4 * bb[:, :, None] * Bf[:, None, None] * nz((2, 4))

    # spine uplinks and core ports
    xp_sp_out = (XPo_La[..., None] * won.sum(4)).sum(2)    # (N,2,4) per spine
    xp_sp_in = (XPi_La[..., None] * win.sum(4)).sum(2)
    sup = ix["sup"]
    wsu = rng.lognormal(0, 0.05, (2, 4, 4, 2)) * rng.lognormal(0, 0.03, (N, 2, 4, 4, 2)) * upf_sup
    wsi = rng.lognormal(0, 0.05, (2, 4, 4, 2)) * rng.lognormal(0, 0.03, (N, 2, 4, 4, 2)) * upf_sup
    wsun = wsu / np.maximum(wsu.sum((3, 4), keepdims=True), 1e-12)
    wsin = wsi / np.maximum(wsi.sum((3, 4), keepdims=True), 1e-12)
    su_out = xp_sp_out[..., None, None] * wsun
    su_in = xp_sp_in[..., None, None] * wsin
    out_o[:, sup] = su_out
    in_o[:, sup] = su_in
    nup = np.maximum(upf_sup.sum((2, 3, 4), keepdims=True), 1e-9)
    rel_o = su_out / np.maximum(xp_sp_out.sum(2)[:, :, None, None, None], 1e-9) * nup
    rel_i = su_in / np.maximum(xp_sp_in.sum(2)[:, :, None, None, None], 1e-9) * nup
    q[:, sup] = rho_su_out[:, :, None, None, None] * rel_o * Bf[:, None, None, None, None] * nz(sup.shape)
    co_t = np.transpose(ix["co"], (1, 2, 0, 3))            # [p,j,c,m] aligned with sup
    in_o[:, co_t] = su_out
    out_o[:, co_t] = su_in
    q[:, co_t] = rho_su_in[:, :, None, None, None] * rel_i * Bf[:, None, None, None, None] * nz(sup.shape)

    # control plane (LLDP, BGP, BFD) on every cabled port
    ctrl = np.where(sw_link, 2.0e4, 3.0e3)[None, :] * rng.lognormal(0, 0.1, (N, P)) * upf
    in_o += ctrl
    out_o += ctrl * rng.lognormal(0, 0.05, (N, P))
    q *= (upf > 0)
    q[:, ~cabled] = 0.0

    # PFC deadlock: the spine's queues and its neighbours' queues towards it stop draining
    dead_dev = spine_name(0, S_dead)
    dead_ports = dev_ports[dead_dev][cabled[dev_ports[dead_dev]]]
    dead_peers = F.peer[dead_ports]
    both = np.concatenate([dead_ports, dead_peers])
    dsl = slice(k_dead0, k_dead1)
    in_o[dsl, both] = ctrl[dsl, both] + in_o[dsl, both] * 0.02
    out_o[dsl, both] = ctrl[dsl, both] + out_o[dsl, both] * 0.02

    # ECN thresholds mis-set: queues of that leaf run deeper (DCQCN reacts late)
    ecn_dev = leaf_name(0, L_ecn)
    ecn_ports = dev_ports[ecn_dev]
    esl = slice(tl["ecn_change"], tl["ecn_revert"])
    q_before_ecn = q[:, ecn_ports].copy()
    q[esl, ecn_ports] *= 1.7

    # ---------------- packets
    u_in = in_o / cap
    u_out = out_o / cap
    in_pk = in_o / pkt_size(u_in)
    out_pk = out_o / pkt_size(u_out)

    # ---------------- PFC (priority 3) with one hop of spreading
    switches = F.order
    dev_cab = {d: dev_ports[d][cabled[dev_ports[d]]] for d in switches}
    KP, RMAX = 0.4, 5.0e4

    def pfc_from(qq):
        x = np.clip(qq - 1.0, 0.0, None) ** 1.5
        tx = np.zeros((N, P))
        for d in switches:
            idx = dev_cab[d]
            X = x[:, idx].sum(1, keepdims=True)
            inn = in_o[:, idx]
            sh = inn / np.maximum(inn.sum(1, keepdims=True), 1.0)
            tx[:, idx] = RMAX * (1.0 - np.exp(-KP * X * sh)) * DT
        return tx

    pfc_tx = pfc_from(q)
    rx = np.zeros((N, P))
    rx[:, sw_link] = pfc_tx[:, F.peer[sw_link]]
    q2 = q + 0.5 * np.minimum(3.0, rx / (1.0e4 * DT))
    pfc_tx = pfc_from(q2) * rng.lognormal(0, 0.1, (N, P))
    pfc_rx = np.zeros((N, P))
    pfc_rx[:, sw_link] = pfc_tx[:, F.peer[sw_link]] * rng.lognormal(0, 0.01, (N, int(sw_link.sum())))
    # host NICs pausing their leaf port: storage nodes under incast, a slow-receiver trickle on some GPU NICs
    pfc_rx[:, sd] += np.clip(q[:, sd] - 1.2, 0, None) * 3.0e3 * DT * rng.lognormal(0, 0.2, (N, 2, 12))
    slow = rng.random(gd.shape) < 0.1
    pfc_rx[:, gd] += slow[None] * rng.uniform(1, 30, gd.shape)[None] * DT * (u_out[:, gd] > 0.4)
    q_final = q2

    # ---------------- ECN marks (queue 3) and queue watermark depth
    qp = out_pk * 0.985
    pmark = 0.2 * np.clip((q_final - 0.75) / 0.65, 0, 1) + 2e-5 * np.clip(q_final, 0, 3) ** 3
    pmark[esl, ecn_ports] = 0.2 * np.clip((q_final[esl, ecn_ports] - 1.8) / 1.5, 0, 1)
    ecn = qp * pmark * rng.lognormal(0, 0.1, (N, P))
    depth = np.minimum(16.5e6, 1500 + 2.2e6 * np.clip(q_final, 0, None) ** 2 * rng.lognormal(0, 0.25, (N, P)))
    depth[:, ~cabled] = 0

    # ---------------- deadlock overrides
    nd = len(dead_ports)
    d_rx = rng.uniform(3e4, 7e4, (k_dead1 - k_dead0, nd)) * DT
    d_tx = rng.uniform(2e4, 6e4, (k_dead1 - k_dead0, nd)) * DT
    pfc_rx[dsl, dead_ports] = d_rx
    pfc_tx[dsl, dead_ports] = d_tx
    pfc_rx[dsl, dead_peers] = d_tx * 1.002
    pfc_tx[dsl, dead_peers] = d_rx * 0.998
    ecn[dsl, both] = 0
    depth[dsl, both] = 16.5e6
    wd_det = np.zeros((N, P))
    wd_drop = np.zeros((N, P))
    wd_det[dsl, dead_ports] = rng.poisson(4, (k_dead1 - k_dead0, nd))
    wd_det[dsl, dead_peers] = rng.poisson(0.6, (k_dead1 - k_dead0, nd))
    normal_pk = out_pk[k_dead0 - 6:k_dead0].mean(0)
    wd_drop[dsl, dead_ports] = normal_pk[dead_ports] * rng.uniform(0.2, 0.5, (k_dead1 - k_dead0, nd))
    wd_drop[dsl, dead_peers] = wd_det[dsl, dead_peers] * rng.uniform(2e3, 2e4, (k_dead1 - k_dead0, nd))

    # ---------------- discards and errors
    in_disc = np.zeros((N, P))
    cp = (rng.random(P) < 0.3) & cabled
    in_disc[:, cp] = rng.poisson(rng.uniform(0.01, 0.3, int(cp.sum())) * DT, (N, int(cp.sum())))
    out_disc = np.zeros((N, P))
    es = slice(tl["egdisc"], tl["egdisc_end"])
    ue = u_out[es, P_eg]
    out_disc[es, P_eg] = rng.poisson(out_pk[es, P_eg] * 3e-4 * np.clip((ue - 0.15) / 0.3, 0, 1)
                                     * rng.lognormal(0, 0.2, ue.shape))
    # a vendor-B port with a heavy control-plane discard rate (its 32-bit ifInDiscards wraps)
    vb_up = [int(x) for x in ix["lu"][1].ravel()]
    P_wrapdisc = vb_up[int(rng.integers(0, len(vb_up)))]
    in_disc[:, P_wrapdisc] = rng.poisson(260.0 * DT, N) * (upf[:, P_wrapdisc] > 0)

    # FEC: pre-FEC BER per receive side, codeword statistics
    lbits = np.where(speed == 400, 425e9, 103.125e9)
    cwr = np.where(speed == 400, 425e9 / 5440, 103.125e9 / 5280)
    b0 = np.where(speed == 400, 10 ** rng.uniform(-8.3, -6.4, P), 10 ** rng.uniform(-11, -8.6, P))
    ber = b0[None, :] * rng.lognormal(0, 0.18, (N, P))
    fec_unc = np.zeros((N, P))
    # fault: FEC-uncorrectable ramp over about an hour and a half on a spine uplink
    fa, fb = tl["fec_ramp"], tl["fec_ramp_end"]
    fr = np.linspace(0, 1, fb - fa)
    b_fec0 = b0[P_fec]
    ber[fa:fb, P_fec] = b_fec0 * (3e-5 / b_fec0) ** fr * rng.lognormal(0, 0.15, fb - fa)
    fec_unc[fa:fb, P_fec] = rng.poisson(0.003 * (20 / 0.003) ** fr * DT * rng.lognormal(0, 0.3, fb - fa))
    ber[fb + 5:, P_fec] = b0[P_fec] * 0.7 * rng.lognormal(0, 0.18, N - fb - 5)
    # fault: pre-FEC BER ramp on a leaf uplink (corrected codewords x1000, uncorrectables only at the end)
    pa, pb = tl["preber"], tl["preber_end"]
    prf = np.linspace(0, 1, pb - pa)
    b_pre0 = b0[P_pre]
    ber[pa:pb, P_pre] = b_pre0 * (1.6e-4 / b_pre0) ** prf * rng.lognormal(0, 0.12, pb - pa)
    fec_unc[pa:pb, P_pre] = rng.poisson(0.05 * np.clip((ber[pa:pb, P_pre] - 6e-5) / 1e-4, 0, None) ** 2 * DT)
    ber[pb + 4:, P_pre] = b_pre0 * rng.lognormal(0, 0.18, N - pb - 4)
    # fault: low rx power on one lane of a GPU-facing optic
    la = tl["lowrx"]
    ber[la:, P_low] = 2.5e-5 * rng.lognormal(0, 0.3, N - la)
    fec_unc[la:, P_low] = rng.poisson(0.03 * DT * rng.lognormal(0, 0.4, N - la))
    ber *= upf > 0
    ber[:, ~cabled] = 0
    sym = lbits * ber * 0.9 * DT * upf
    spcw = sym / np.maximum(cwr * DT, 1)
    fec_corr = cwr * DT * upf * (1 - np.exp(-spcw)) * rng.lognormal(0, 0.02, (N, P))
    fec_sym = sym * rng.lognormal(0, 0.02, (N, P))

    # sporadic single FEC-uncorrectable / FCS events on healthy links (background)
    bad = {P_fec, P_pre, P_low, P_eg, P_half, P_flap, P_stuck, P_bh}
    sporadic = []
    cand = [i for i in range(P) if cabled[i] and i not in bad]
    for pi in rng.choice(cand, 16, replace=False):
        pi = int(pi)
        for _ in range(int(rng.integers(1, 3))):
            k = int(rng.integers(2, N - 2))
            fec_unc[k, pi] += int(rng.integers(1, 3))
            sporadic.append((pi, k))
    fcs = rng.binomial(fec_unc.astype(np.int64), np.clip(u_in * 1.05 + 0.02, 0, 0.99)).astype(float)
    # vendor-B ports have no FEC counters: their CRC events are drawn directly
    vbp = [i for i in cand if vendor[i] == "snmp"]
    for pi in rng.choice(vbp, 8, replace=False):
        pi = int(pi)
        k = int(rng.integers(2, N - 2))
        fcs[k, pi] += 1
        sporadic.append((pi, k))

    # link-up errors after every outage (training / CDR lock)
    for pi, evs in list(down_ev.items()):
        for _a, b in evs:
            if b < T:
                k = int(b // DT)
                fec_unc[k, pi] += rng.poisson(3)
                fcs[k, pi] += rng.poisson(1.5)
    in_err = fcs.copy()
    out_err = np.zeros((N, P))
    q_drop = np.zeros((N, P))

    inc = dict(in_oct=in_o, out_oct=out_o, in_pkt=in_pk, out_pkt=out_pk, in_err=in_err, out_err=out_err,
               in_disc=in_disc, out_disc=out_disc, fcs=fcs, fec_corr=fec_corr, fec_unc=fec_unc, fec_sym=fec_sym,
               pfc_rx=pfc_rx, pfc_tx=pfc_tx, q_pkts=qp, q_drop=q_drop, ecn=ecn, wd_det=wd_det, wd_drop=wd_drop)
    for f in inc:
        inc[f][:, ~cabled] = 0.0

    # ---------------- cumulative values
    C = np.zeros((N + 1, P, len(CF)), np.int64)
    init = initial_values(rng, P, cabled, vendor, inc)
    for f, j in CI.items():
        x = np.rint(inc[f]).astype(np.int64)
        C[0, :, j] = init[f]
        np.cumsum(x, axis=0, out=C[1:, :, j])
        C[1:, :, j] += init[f][None, :]
        inc[f] = None
    del inc
    for ports_, kr in resets:
        C[kr + 1:, ports_, :] -= C[kr, ports_, :][None]
    # forced 32-bit wraps (devices up for months: some Counter32 values sit close to 2^32)
    wraps = []
    vb_cab = [i for i in range(P) if vendor[i] == "snmp" and cabled[i]]
    for f, count in (("pfc_tx", 3), ("pfc_rx", 2)):
        j = CI[f]
        tot = C[N, vb_cab, j] - C[0, vb_cab, j]
        order = np.argsort(-tot)
        picked = 0
        for o in order:
            pi = vb_cab[int(o)]
            d = F.ports[pi]["device"]
            if d == clear_dev or tot[o] < 1000:
                continue
            shift = U32 - int(tot[o] * rng.uniform(0.3, 0.7)) - int(C[0, pi, j])
            C[:, pi, j] += shift
            picked += 1
            if picked >= count:
                break
    j = CI["in_disc"]
    tot = C[N, P_wrapdisc, j] - C[0, P_wrapdisc, j]
    C[:, P_wrapdisc, j] += U32 - int(tot * rng.uniform(0.35, 0.65)) - int(C[0, P_wrapdisc, j])
    for j in [CI[f] for f in SNMP_C32]:
        for pi in vb_cab:
            col = C[:, pi, j]
            w = np.flatnonzero(np.diff(col // U32) > 0)
            for k in w:
                wraps.append((pi, int(k), CF[j]))

    # ---------------- gauges
    # queue watermark: PERIODIC_WATERMARKS (queue watermark polled every 60 s, cleared every 120 s)
    n60 = N // 6 + 2
    dpad = np.zeros((n60 * 6, P))
    dpad[:N] = depth
    wm60 = dpad.reshape(n60, 6, P).max(1)
    # DOM rx power per lane (xcvrd every 60 s) for SONiC ports with an optic
    dom_base = np.where(speed[:, None] == 400, rng.normal(-1.2, 0.8, (P, 4)), rng.normal(-1.8, 0.8, (P, 4)))
    dom_base = np.clip(dom_base, -4.5, 2.5)
    dom = dom_base[None] + rng.normal(0, 0.03, (n60, P, 4)) + \
        0.1 * np.sin(np.arange(n60)[:, None, None] / 23.0 + rng.uniform(0, 6.28, (1, P, 1)))
    m_low = math.ceil(la * DT / 60.0)
    dom[m_low:, P_low, lane_low - 1] -= 8.7 + rng.normal(0, 0.15, n60 - m_low)
    m_swap = math.ceil((t_fec_fix + 40) / 60.0)
    dom[m_swap:, P_fec, :] += rng.normal(0.4, 0.2, 4)
    dom = np.round(dom, 2) + 0.0                        # no "-0.00"

    # ---------------- states for line writing
    st = dict(F=F, N=N, T=T, P=P, C=C, wm60=wm60, dom=dom, cabled=cabled, vendor=vendor, speed=speed,
              down_ev=down_ev, admin_ev=admin_ev, absent=absent, gap=gap, P_half=P_half, t_half=t_half,
              P_stuck=P_stuck, rng=rng)
    # ---------------- labels
    ecn_q = q_before_ecn[tl["ecn_change"]:tl["ecn_revert"]].max(1)
    hot = np.flatnonzero(ecn_q > 0.9)
    k_ecn0 = tl["ecn_change"] + (int(hot[0]) if len(hot) else 0)
    k_ecn0 -= k_ecn0 % SNMP_EVERY
    info = dict(N=N, k_train=k_train, tl=tl, jobs=jobs, ckpts=ckpts, evals=evals, coll_any=coll_any,
                t_fec_fix=t_fec_fix, t_pre_fix=t_pre_fix, t_half=t_half, flaps=flaps, flap_last=flap_last,
                t_maint=t_maint, t_boot=t_boot, t_back=t_back, t_warm=t_warm, gap=gap, k_dead=(k_dead0, k_dead1),
                k_ecn0=k_ecn0, polar=polar, sporadic=sporadic, wraps=wraps, P_wrapdisc=P_wrapdisc, cp=cp,
                ports=dict(fec=P_fec, pre=P_pre, bh=P_bh, low=P_low, eg=P_eg, half=P_half, flap=P_flap,
                           stuck=P_stuck),
                devs=dict(dead=dead_dev, ecn=ecn_dev, warm=warm_dev, clear=clear_dev, core=core_b, fleaf=fleaf2),
                dead_ports=dead_ports, lane_low=lane_low, slow=slow, k_back=k_back)
    return st, info


def initial_values(rng, P, cabled, vendor, inc):
    iv = {}
    oct_ = (10 ** rng.uniform(14, 17, P)).astype(np.int64)
    iv["in_oct"] = oct_
    iv["out_oct"] = (oct_ * rng.uniform(0.8, 1.2, P)).astype(np.int64)
    iv["in_pkt"] = iv["in_oct"] // rng.integers(1500, 4000, P)
    iv["out_pkt"] = iv["out_oct"] // rng.integers(1500, 4000, P)
    def sparse(pz, p):
        return np.where(rng.random(P) < pz, 0, rng.geometric(p, P)).astype(np.int64)
    iv["fcs"] = sparse(0.7, 0.01)
    iv["in_err"] = iv["fcs"] + sparse(0.9, 0.1)
    iv["out_err"] = sparse(0.95, 0.2)
    iv["in_disc"] = sparse(0.4, 0.0005)
    iv["out_disc"] = sparse(0.6, 0.001)
    fc = inc["fec_corr"]
    rate = fc.sum(0) / np.maximum((fc > 0).sum(0), 1) / DT
    iv["fec_corr"] = (rate * rng.uniform(2e6, 2e7, P)).astype(np.int64)
    iv["fec_sym"] = (iv["fec_corr"] * rng.uniform(1.0, 1.1, P)).astype(np.int64)
    iv["fec_unc"] = sparse(0.6, 0.05)
    snmp = vendor == "snmp"
    iv["pfc_rx"] = np.where(snmp, rng.integers(0, U32, P), (10 ** rng.uniform(3, 9, P)).astype(np.int64))
    iv["pfc_tx"] = np.where(snmp, rng.integers(0, U32, P), (10 ** rng.uniform(3, 9, P)).astype(np.int64))
    iv["q_pkts"] = (iv["out_pkt"] * 0.98).astype(np.int64)
    iv["q_drop"] = sparse(0.9, 0.001)
    iv["ecn"] = (10 ** rng.uniform(5, 10, P)).astype(np.int64)
    iv["wd_det"] = sparse(0.85, 0.5)
    iv["wd_drop"] = np.where(iv["wd_det"] > 0, rng.integers(1000, 10**7, P), 0).astype(np.int64)
    for f in iv:
        iv[f] = np.where(cabled, iv[f], 0).astype(np.int64)
    return iv


# ------------------------------------------------------------------------------------------ writing
def down_at(evs, t):
    for a, b in evs:
        if a <= t < b:
            return True
    return False


def last_change(evs, t, default):
    best = None
    for a, b in evs:
        for x in (a, b):
            if x <= t and (best is None or x > best):
                best = x
    return default if best is None else best


def write_lp(st, info, path, seed):
    F, N, P, C = st["F"], st["N"], st["P"], st["C"]
    rng = np.random.default_rng(seed + 7919)
    cabled, _vendor, speed = st["cabled"], st["vendor"], st["speed"]
    down_ev, admin_ev, absent, gap = st["down_ev"], st["admin_ev"], st["absent"], st["gap"]
    wm60, dom = st["wm60"], st["dom"]
    T = st["T"]
    # per-device poll schedule
    polls = []
    dev_meta = {}
    for di, d in enumerate(F.order):
        v = F.dev[d]["vendor"]
        if v == "sonic":
            off = float(rng.uniform(0.05, 0.6))
            ks = np.arange(N)
            jit = rng.uniform(0.0, 0.25, N)
            miss = rng.random(N) < 0.002
            wm_phase = float(rng.uniform(0, 60))
            clr_phase = float(rng.uniform(0, 120))
            dom_phase = float(rng.uniform(0, 60))
        else:
            off = float(rng.uniform(0.5, 6.0))
            ks = np.arange(0, N, SNMP_EVERY)
            jit = rng.uniform(0.0, 1.2, len(ks))
            miss = rng.random(len(ks)) < 0.006
            wm_phase = clr_phase = dom_phase = 0.0
        dev_meta[d] = dict(vendor=v, upt0=int(rng.uniform(30, 300) * 86400 * 100), wm_phase=wm_phase,
                           clr_phase=clr_phase, dom_phase=dom_phase)
        for k, jt, ms in zip(ks, jit, miss, strict=False):
            t = k * DT + off + jt
            if ms or t >= T:
                continue
            if gap[0] <= t < gap[1]:
                continue
            if any(a <= t < b for a, b in absent.get(d, ())):
                continue
            polls.append((t, di, int(k)))
    polls.sort()
    # per-port templates
    tmpl, _base_status = [], []
    lastchg0 = np.zeros(P, np.int64)
    for q in F.ports:
        i = q["idx"]
        tags = (f"port_counters,device={q['device']},port={q['port']},fabric=roce,role={q['role']}")
        if q["peer_device"]:
            tags += f",peer_device={q['peer_device']},peer_port={q['peer_port']}"
        tags += f",speed={q['speed']}G "
        if q["vendor"] == "sonic":
            body = ",".join(f"{SONIC_NAMES[f]}=%di" for f in SONIC_ORDER)
            body += ',SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES=%di,admin_status="%s",oper_status="%s"'
            if cabled[i]:
                body += ",rx1power=%.2f,rx2power=%.2f,rx3power=%.2f,rx4power=%.2f"
        else:
            body = ",".join(f"{SNMP_NAMES[f]}=%di" for f in SNMP_ORDER)
            body += ",ifAdminStatus=%di,ifOperStatus=%di,ifHighSpeed=%di,ifLastChange=%di"
            upt0 = dev_meta[q["device"]]["upt0"]
            lastchg0[i] = int(upt0 * rng.uniform(0.001, 0.4)) if cabled[i] else 0
        tmpl.append(tags + body + " %d\n")
    sonic_cols = [CI[f] for f in SONIC_ORDER]
    snmp_cols = [CI[f] for f in SNMP_ORDER]
    c32 = np.array([f in SNMP_C32 for f in SNMP_ORDER])
    uncab_admin_down = set(int(i) for i in np.flatnonzero(~cabled) if rng.random() < 0.5)
    ev_ports = set(down_ev) | set(admin_ev)
    dev_ports = {d: np.array(F.dev[d]["ports"]) for d in F.order}
    dev_evp = {d: [i for i in dev_ports[d] if i in ev_ports] for d in F.order}
    n_lines = 0
    t0_ns = T0_S * NS
    with open(path, "w", buffering=1 << 23) as fh:
        buf = []
        for t, di, k in polls:
            d = F.order[di]
            meta = dev_meta[d]
            idx = dev_ports[d]
            frac = (t - k * DT) / DT
            a = C[k, idx]
            b = C[k + 1, idx]
            diff = b - a
            vals = np.where(diff >= 0, a + np.floor(frac * diff).astype(np.int64),
                            np.floor(frac * b).astype(np.int64))
            ts = t0_ns + round(t * 1e9)
            dev_evp[d]
            if meta["vendor"] == "sonic":
                rows = vals[:, sonic_cols].tolist()
                # watermark: max of 60 s polls since the last periodic clear
                clr = meta["clr_phase"] + 120.0 * math.floor((t - meta["clr_phase"]) / 120.0)
                wp = meta["wm_phase"]
                first = wp + 60.0 * math.ceil((clr - wp) / 60.0 + 1e-9)
                wmv = np.zeros(len(idx))
                pt = first
                while pt <= t:
                    m = int(pt // 60.0)
                    if 0 <= m < wm60.shape[0]:
                        wmv = np.maximum(wmv, wm60[m, idx])
                    pt += 60.0
                wmv = wmv.astype(np.int64).tolist()
                md = int(max(0.0, t - meta["dom_phase"]) // 60.0)
                md = min(md, dom.shape[0] - 1)
                tdom = md * 60.0 + meta["dom_phase"]
                for n_, i in enumerate(idx):
                    i = int(i)
                    if cabled[i]:
                        dn = down_at(down_ev[i], t) if i in ev_ports else False
                        adm = "down" if (i in admin_ev and down_at(admin_ev[i], t)) else "up"
                        ops = "down" if dn else "up"
                        if i in ev_ports and down_at(down_ev[i], tdom) and i != st["P_stuck"]:
                            dv = (-40.0, -40.0, -40.0, -40.0)
                        else:
                            dv = tuple(dom[md, i])
                        buf.append(tmpl[i] % (*rows[n_], wmv[n_], adm, ops, *dv, ts))
                    else:
                        adm = "down" if i in uncab_admin_down else "up"
                        buf.append(tmpl[i] % (*rows[n_], 0, adm, "down", ts))
            else:
                sv = vals[:, snmp_cols]
                sv[:, c32] %= U32
                rows = sv.tolist()
                upt_t = meta["upt0"] + int(t * 100)
                for n_, i in enumerate(idx):
                    i = int(i)
                    spd = q_speed = int(speed[i]) * 1000
                    if i == st["P_half"] and t >= st["t_half"] + 4.5:
                        spd = 200000
                    if cabled[i]:
                        if i in ev_ports:
                            dn = down_at(down_ev[i], t)
                            adm = 2 if (i in admin_ev and down_at(admin_ev[i], t)) else 1
                            evs = down_ev[i] + admin_ev.get(i, [])
                            lc = last_change(evs, t, None)
                            lcv = int(lastchg0[i]) if lc is None else meta["upt0"] + int(lc * 100)
                        else:
                            dn, adm, lcv = False, 1, int(lastchg0[i])
                        ops = 2 if dn else 1
                    else:
                        adm = 2 if i in uncab_admin_down else 1
                        ops, lcv = 6, 0
                    buf.append(tmpl[i] % (*rows[n_], adm, ops, spd, lcv % U32, ts))
                _ = upt_t, q_speed
            if len(buf) > 20000:
                n_lines += len(buf)
                fh.write("".join(buf))
                buf = []
        n_lines += len(buf)
        fh.write("".join(buf))
    return n_lines


# ------------------------------------------------------------------------------------------ labels
def make_labels(st, info, seed, hours, n_lines):
    F, N = st["F"], info["N"]
    tl = info["tl"]
    def ns(k):
        return (T0_S + round(k * DT)) * NS if isinstance(k, (int, np.integer)) else None
    def ns_t(t):
        return T0_S * NS + round(t * 1e9)
    def nk(k):
        return T0_S * NS + int(k) * DT * NS
    def Pn(i):
        return F.ports[i]
    def name(i):
        return f"{Pn(i)['device']}:{Pn(i)['port']}"
    def peer_end(i):
        return [{"device": Pn(F.peer[i])["device"], "port": Pn(F.peer[i])["port"]}] if F.peer[i] >= 0 else []
    pt = info["ports"]
    dv = info["devs"]
    faults = []

    def fault(kind, dev, ports, a_ns, b_ns, desc, fields, peer_ends=(), related=()):
        faults.append(dict(kind=kind, device=dev, ports=ports, start_ns=int(a_ns), end_ns=int(b_ns),
                           description=desc, signature=desc, fields=fields, peer_ends=list(peer_ends),
                           related=list(related)))

    i = pt["fec"]
    fault("fec_uncorrectable_ramp", Pn(i)["device"], [Pn(i)["port"]], nk(tl["fec_ramp"]),
          ns_t(info["t_fec_fix"] + 40),
          "Degrading optic on a spine uplink (spine_up, receive side of the spine port): "
          "SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES rises slowly from ~0.003/s to ~20/s over ~95 min "
          "(exponential ramp, present even when the link idles), SAI_PORT_STAT_ETHER_STATS_CRC_ALIGN_ERRORS and "
          "SAI_PORT_STAT_IF_IN_ERRORS follow it in proportion to received load; corrected codewords "
          "(SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES/SYMBOL_ERRORS) climb with it from the link's normal "
          "level to ~100-1000x (pre-FEC BER to ~3e-5). Ends when the "
          "optic is replaced: the link is down ~40 s (oper_status down on both ends), then clean. The far end "
          "(core port) shows nothing but the link-up errors of the swap. Labelled from the onset of the ramp: "
          "uncorrectable codewords are rare (a few per 10 min) for the first ~20 min, corrected codewords start "
          "inside the spread of healthy links.",
          ["SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES", "SAI_PORT_STAT_ETHER_STATS_CRC_ALIGN_ERRORS",
           "SAI_PORT_STAT_IF_IN_ERRORS", "SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES",
           "SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS"], peer_end(i))
    i = pt["bh"]
    fault("ecmp_member_blackhole", Pn(i)["device"], [Pn(i)["port"]], nk(tl["blackhole"]), nk(tl["blackhole_end"]),
          "One leaf uplink (leaf_up) is up but missing from the leaf's ECMP next-hop group: "
          "SAI_PORT_STAT_IF_OUT_OCTETS/OUT_UCAST_PKTS drop to control-plane level (~2 kB/s) while its 7 sibling "
          "uplinks carry 1/7 more each; receive direction (IN_OCTETS, from the spine) unchanged; oper_status up, "
          "no errors. The far end (spine_down port) shows the mirror: IN_OCTETS ~0, OUT normal. Evidence is "
          "strongest during collective phases when siblings run at 50-90%.",
          ["SAI_PORT_STAT_IF_OUT_OCTETS", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS", "SAI_QUEUE_STAT_PACKETS"],
          peer_end(i))
    i = pt["pre"]
    fault("pre_fec_ber_ramp", Pn(i)["device"], [Pn(i)["port"]], nk(tl["preber"]), ns_t(info["t_pre_fix"] + 30),
          "Pre-FEC BER on a leaf uplink (receive side of the leaf port) climbs "
          "exponentially from the link's own level (5e-9..4e-7) to "
          "~1.6e-4 (the KP4 FEC cliff) over ~105 min: SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES and "
          "SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS grow ~3000x, independent of traffic (also through the idle "
          "night); post-FEC stays clean until the last ~15 min, when a few "
          "SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES (and CRC/IN_ERRORS) appear. Labelled from the start of "
          "the ramp, when it is still inside the spread of healthy links (400G links here run pre-FEC BER "
          "5e-9..4e-7); ends with a reseat (link down ~30 s).",
          ["SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES", "SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS",
           "SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES"], peer_end(i))
    i = pt["eg"]
    fault("egress_discards", Pn(i)["device"], [Pn(i)["port"]], nk(tl["egdisc"]), nk(tl["egdisc_end"]),
          "Vendor-B spine port towards a rail leaf (spine_down) drops on egress at moderate load (bad buffer "
          "carving on that port): ifOutDiscards ~0.01-0.03% of transmitted packets (hundreds per second) "
          "whenever its utilisation is above "
          "~15-45%, zero when idle, while its sibling ports (same spine, other links to the same leaf, same load) "
          "drop nothing. ifOutDiscards is a 32-bit Counter32.",
          ["ifOutDiscards"], peer_end(i))
    fault("ecn_threshold_misconfig", dv["ecn"], ["*"], nk(info["k_ecn0"]), nk(tl["ecn_revert"]),
          "WRED/ECN profile pushed with Kmin/Kmax far too high on one pod1 rail leaf (all its egress queues): it "
          "marks far too late. Under its job's congestion (collective phases) "
          "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS is ~5-20x lower than on sibling leaves carrying the same load "
          "(some marks remain at the worst peaks), SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES runs deeper, and "
          "SAI_PORT_STAT_PFC_3_TX_PKTS from the leaf (to hosts and spines) is several-fold higher; spine ports "
          "facing it receive those pauses (related). Nothing shows while it is not congested. Starts at the first "
          "congestion after the change, ends at the revert.",
          ["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES",
           "SAI_PORT_STAT_PFC_3_TX_PKTS", "SAI_PORT_STAT_PFC_3_RX_PKTS"], (),
          [{"device": Pn(F.peer[x])["device"], "ports": [Pn(F.peer[x])["port"]]}
           for x in F.dev[dv["ecn"]]["ports"] if F.peer[x] >= 0])
    i = pt["low"]
    fault("optic_low_rx_power_lane", Pn(i)["device"], [Pn(i)["port"]], nk(tl["lowrx"]), nk(N),
          f"Optic facing a GPU NIC (leaf_down) loses ~8.7 dB on lane {info['lane_low']} (dirty/damaged "
          f"connector): rx{info['lane_low']}power drops from about -1 dBm to about -10 dBm (TRANSCEIVER_DOM_SENSOR, "
          "refreshed every 60 s, so it can lag the counters by up to a minute) while the other lanes stay put; "
          "pre-FEC BER jumps to ~2.5e-5 (SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES/SYMBOL_ERRORS x100-1000), "
          "~0.03/s SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES with CRC_ALIGN_ERRORS/IN_ERRORS following the "
          "received load. Lasts to the end of the run. The host end is not polled.",
          [f"rx{info['lane_low']}power", "SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES",
           "SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS", "SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES",
           "SAI_PORT_STAT_ETHER_STATS_CRC_ALIGN_ERRORS", "SAI_PORT_STAT_IF_IN_ERRORS"])
    k0, k1 = info["k_dead"]
    dp = info["dead_ports"]
    fault("pfc_deadlock", dv["dead"], ["*"], nk(k0), nk(k1),
          "PFC deadlock (cyclic buffer dependency) through one pod1 spine: every cabled port of the spine receives "
          "and sends 2e4-7e4 pause frames/s (SAI_PORT_STAT_PFC_3_RX_PKTS and _TX_PKTS), throughput on all its "
          "ports collapses to ~2% (IN/OUT_OCTETS), the PFC watchdog fires repeatedly on queue 3 "
          "(PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED +~4 per 10 s per port, PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS "
          "in the 1e5-1e6 range), queue watermarks pinned at the maximum. The neighbours' ports facing it "
          "mirror the pause counts and stall too (related). The training job crossing the pods slows to ~30% "
          "everywhere for the duration (knock-on).",
          ["SAI_PORT_STAT_PFC_3_RX_PKTS", "SAI_PORT_STAT_PFC_3_TX_PKTS", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED",
           "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS", "SAI_PORT_STAT_IF_OUT_OCTETS", "SAI_PORT_STAT_IF_IN_OCTETS"],
          (), [{"device": Pn(F.peer[x])["device"], "ports": [Pn(F.peer[x])["port"]]} for x in dp])
    i = pt["half"]
    rel = [{"device": Pn(i)["device"], "ports": [Pn(x)["port"] for x in F.dev[Pn(i)["device"]]["ports"]
                                                if Pn(x)["role"] == "leaf_up"]}]
    fault("half_speed_link", Pn(i)["device"], [Pn(i)["port"]], ns_t(info["t_half"] - 1), nk(N),
          "A GPU NIC renegotiates at 200G after a bounce (ifOperStatus down once ~4 s, ifLastChange moves): "
          "ifHighSpeed 200000 on the vendor-B leaf port while the speed tag says 400G; ifHCOutOctets/ifHCInOctets "
          "capped at ~half line rate while sibling NIC ports run at 80-95% in collective phases; the leaf's egress "
          "queue to that NIC is persistently pressured, so the leaf pauses its uplinks (ieee8021PfcRequests up on "
          "its leaf_up ports, related). The job on it runs its collectives "
          "at the pace of the slow NIC (every NIC of that job capped near 50% "
          "of 400G, knock-on), so in bytes the port looks like its siblings; it is the one running at the line rate "
          "of its negotiated speed.",
          ["ifHighSpeed", "ifOperStatus", "ifLastChange", "ifHCOutOctets", "ifHCInOctets"], (), rel)
    i = pt["flap"]
    fl = info["flaps"]
    fault("flapping_link", Pn(i)["device"], [Pn(i)["port"]], ns_t(fl[0][0]), ns_t(info["flap_last"] + DT),
          f"Host link (vendor-B leaf_down port to a GPU NIC) in a flap loop: {len(fl)} down/up cycles, down 2-9 s, "
          "up 14-75 s: ifOperStatus 2 when a poll lands in a down, ifLastChange jumps at every transition, "
          "dot3StatsFCSErrors/ifInErrors small bursts at link-up, traffic gaps and the host's job traffic reduced. "
          "The host end is not polled.",
          ["ifOperStatus", "ifLastChange", "dot3StatsFCSErrors", "ifInErrors", "ifHCInOctets", "ifHCOutOctets"])
    i = pt["stuck"]
    fault("link_down_after_reboot", Pn(i)["device"], [Pn(i)["port"]], ns_t(info["t_back"] + 12), nk(N),
          "After a planned cold reboot of a super-spine, every link comes back except one (admin up, oper down: "
          "SerDes/link training never completes; optic rx power stays normal because the far end's laser is on): "
          "oper_status \"down\"/admin_status \"up\" on the core port, ifOperStatus 2/ifAdminStatus 1 on the "
          "vendor-B spine port at the far end, no octets on either, ECMP carries its share on the siblings. "
          "Starts at the first poll after the device is back.",
          ["oper_status", "admin_status", "ifOperStatus", "SAI_PORT_STAT_IF_IN_OCTETS", "ifHCInOctets"],
          peer_end(i))
    faults.sort(key=lambda f: f["start_ns"])
    for f in faults:
        assert f["start_ns"] >= T0_S * NS + info["k_train"] * DT * NS, f["kind"]

    # ---------------- healthy phenomena
    H = []

    def healthy(kind, where, a_ns, b_ns, note, background=False):
        e = dict(kind=kind, where=list(where), start_ns=int(a_ns), end_ns=int(b_ns), note=note)
        if background:
            e["background"] = True
        H.append(e)

    def spans(mask):
        e = np.flatnonzero(np.diff(np.r_[0, mask.astype(int), 0]))
        return list(zip(e[::2], e[1::2], strict=False))

    for a, b in spans(info["coll_any"]):
        healthy("collective_allreduce", ["*"], nk(a), nk(b),
                "collective phase: NICs at 86-95% of line rate, cross-pod all-reduce saturating the spine_up/core "
                "tier (ECN marks ~10-20% of packets, PFC on many ports at once, watermarks deep), fabric-wide")
    def stor(p):
        return [f"{leaf_name(p, 8)}:*"] + [f"{spine_name(p, j)}:*" for j in range(4)] + \
            [f"{leaf_name(p, r)}:*" for r in range(8)]
    for a, b in info["ckpts"]:
        healthy("storage_incast", stor(0) + stor(1), nk(a), nk(b),
                "checkpoint: GPU servers write to the 12 storage nodes of their pod at once: storage-facing 100G "
                "ports saturated, storage nodes pause their leaf port, storage leaf pauses its uplinks heavily, one "
                "hop of pause spreading to the spines and rail-leaf uplinks; training traffic paused meanwhile")
    for a, b in info["evals"]:
        healthy("job_eval_lull", ["*"], nk(a), nk(b), "evaluation phase: training traffic drops to 2-5%")
    tl_ = info["tl"]
    healthy("idle_night", ["*"], nk(tl_["night"]), nk(tl_["jobc"]),
            "both jobs finished: traffic near zero everywhere (control plane, storage/front-end trickle); FEC "
            "corrected-codeword counts continue (they count idle codewords too)")
    healthy("new_job_half_hosts", ["*"], nk(tl_["jobc"]), nk(min(N, tl_["jobc"] + 30)),
            "a new training job starts on half the GPU servers (pod1 gpu001-008, pod2 gpu017-024): NCCL warm-up "
            "then iterations and collective phases; the other half stays idle to the end")
    healthy("warm_reboot", [f"{info['devs']['warm']}:*"], ns_t(info["t_warm"]), ns_t(info["t_warm"] + 120 + 20),
            "SONiC warm reboot of a pod1 leaf: no samples for 2 min, every counter restarts near zero, forwarding "
            "and links stay up (no oper_status change on it or its neighbours)")
    healthy("planned_maintenance_admin_down", [f"{info['devs']['fleaf']}:*"] +
            [f"{spine_name(1, j)}:{pname('snmp', 17)}" for j in range(4)],
            ns_t(info["t_maint"]), ns_t(info["t_maint"] + 900 + 20),
            "planned maintenance: every port of the pod2 front-end leaf admin-down for 15 min (ifAdminStatus 2, "
            "ifOperStatus 2; the spine ports facing it oper down, admin up); front-end hosts idle; FCS at link-up")
    healthy("counter_clear", [f"{info['devs']['clear']}:*"], nk(tl_["clear"]), nk(tl_["clear"] + 2),
            "operator ran clear counters on a vendor-B spine: every IF-MIB/EtherLike-MIB/IEEE8021-PFC-MIB counter of "
            "it restarts from zero at once (no reboot, links stay up, ifLastChange unchanged)")
    healthy("collector_gap", ["*"], ns_t(info["gap"][0]), ns_t(info["gap"][1]),
            "telemetry collector outage: no lines from any device for 5 min; counters keep counting")
    cb = info["devs"]["core"]
    where_cb = [f"{cb}:*"] + [f"{Pn(F.peer[x])['device']}:{Pn(F.peer[x])['port']}"
                              for x in F.dev[cb]["ports"] if F.peer[x] >= 0]
    healthy("planned_cold_reboot", where_cb, ns_t(info["t_boot"]), ns_t(info["t_back"] + 12 + 20),
            "planned cold reboot of a super-spine: no samples ~4 min, all its links down meanwhile (the spine_up "
            "ports facing it oper down, rx power -40 dBm on SONiC spines), ECMP shifts to the other three cores, "
            "every counter restarts from zero, FEC/CRC at link-up")
    for pi in info["polar"]:
        healthy("ecmp_polarisation", [name(pi)], nk(0), nk(N),
                "this rail-leaf uplink carries ~1.4x the average of its siblings since the start (hash polarisation)",
                background=True)
    for pi, k in info["sporadic"]:
        healthy("sporadic_fec_fcs", [name(pi)], nk(k), nk(k + 1),
                "a single burst: 1-2 uncorrectable FEC codewords (SONiC) / one FCS error (vendor B) on a healthy "
                "link", background=True)
    for pi, k, f in info["wraps"]:
        nm = SNMP_NAMES[f]
        healthy("counter32_wrap", [name(pi)], nk(max(0, k - 1)), nk(k + 2),
                f"{nm} is a Counter32: it wraps modulo 2^32 here (value drops by ~4.29e9 minus the increment)",
                background=True)
    k0d, k1d = info["k_dead"]
    healthy("job_slowdown_knock_on", ["*"], nk(k0d), nk(k1d),
            "knock-on of the PFC deadlock: the cross-pod training job stalls, its traffic drops to ~30% on every "
            "port it uses (not a link fault away from the deadlocked spine and its neighbours)")
    healthy("job_slowdown_knock_on", ["*"], ns_t(info["t_half"]), nk(N),
            "knock-on of the half-speed NIC: the new job's collectives run at the pace of the 200G NIC, every "
            "NIC of that job capped near 50% of 400G from here on")
    cpn = [name(i) for i in np.flatnonzero(info["cp"])] + [name(info["P_wrapdisc"])]
    healthy("ingress_control_drops", cpn, nk(0), nk(N),
            "steady ingress discards (SAI_PORT_STAT_IF_IN_DISCARDS / ifInDiscards, 0.01-0.3/s; one vendor-B uplink "
            "~260/s of unwanted multicast, its Counter32 wraps) since the start", background=True)
    slow = info["slow"]
    healthy("slow_receiver_trickle", [name(int(x)) for x in F.ix["gd"][slow]], nk(0), nk(N),
            "a few GPU NICs send 1-30 pause frames/s to their leaf port under load", background=True)
    healthy("missed_polls_and_jitter", ["*"], nk(0), nk(N),
            "SONiC samples every 10 s (+0.05-0.85 s), vendor-B polls every 20 s (+0.5-7.2 s); 0.2% of SONiC samples "
            "and 0.6% of SNMP polls missing (whole device)", background=True)
    H.sort(key=lambda h: (h["start_ns"], h["kind"]))

    devices = []
    for d in F.order:
        dd = F.dev[d]
        devices.append(dict(name=d, tier=dd["tier"], pod=dd["pod"], vendor="SONiC" if dd["vendor"] == "sonic"
                            else "vendor B (SNMP)", exporter="SONiC gNMI telemetry -> Telegraf inputs.gnmi"
                            if dd["vendor"] == "sonic" else "SNMPv2c -> Telegraf inputs.snmp",
                            poll_s=DT if dd["vendor"] == "sonic" else DT * SNMP_EVERY,
                            ports=len(dd["ports"]),
                            never_cabled=int(sum(1 for x in dd["ports"] if F.ports[x]["kind"] == "unused"))))
    k_train = info["k_train"]
    labels = dict(
        scenario="sonic-three-tier", seed=seed, fabric="roce", interval_s=INTERVAL_S, sample_s=DT,
        sample_s_by_exporter={"sonic_gnmi": DT, "snmp": DT * SNMP_EVERY},
        t0_ns=T0_S * NS, t_end_ns=nk(N), train_until_ns=nk(k_train), fit_first=f"{k_train * DT // 60}m",
        hours=hours, ports=st["P"], lines=n_lines, devices=devices, notes=notes(), faults=faults,
        healthy_phenomena=H)
    return labels


def notes():
    sonic_src = ("SONiC COUNTERS_DB, table COUNTERS, key = the port's SAI object id, read through the SONiC gNMI "
                 "telemetry server (sonic-gnmi, target COUNTERS_DB, virtual path COUNTERS/Ethernet*; "
                 "sonic-net/SONiC doc/system-telemetry/grpc_telemetry.md); names are the SAI port statistic "
                 "identifiers of sai_port_stat_t (opencomputeproject/SAI inc/saiport.h)")
    q_src = ("SONiC COUNTERS_DB, queue 3 of the port (key EthernetN:3 of virtual path COUNTERS/Ethernet*/Queues), "
             "sai_queue_stat_t names (SAI inc/saiqueue.h); WRED/ECN queue counters come from the WRED_ECN_QUEUE "
             "flex-counter group (sonic-net/SONiC WRED and ECN statistics HLD)")
    wd_src = ("SONiC PFC watchdog statistics written by orchagent into the queue's COUNTERS entry "
              "(sonic-swss orchagent/pfcactionhandler.cpp; shown by `pfcwd show stats`)")
    c64 = "unsigned 64-bit cumulative counter (never wraps in this run); resets to 0 on reboot"
    c32 = ("Counter32 (SNMPv2-SMI): cumulative modulo 2^32, wraps to 0 after 4294967295; resets on reboot or "
           "`clear counters` on this vendor")
    f = {}
    for _k, n in SONIC_NAMES.items():
        f[n] = dict(exporter="sonic_gnmi", type="integer counter", width=c64)
    f["SAI_PORT_STAT_IF_IN_OCTETS"].update(unit="octets", meaning="octets received on the port", source=sonic_src)
    f["SAI_PORT_STAT_IF_OUT_OCTETS"].update(unit="octets", meaning="octets transmitted", source=sonic_src)
    f["SAI_PORT_STAT_IF_IN_UCAST_PKTS"].update(unit="packets", meaning="unicast packets received", source=sonic_src)
    f["SAI_PORT_STAT_IF_OUT_UCAST_PKTS"].update(unit="packets", meaning="unicast packets transmitted",
                                                source=sonic_src)
    f["SAI_PORT_STAT_IF_IN_ERRORS"].update(unit="packets", meaning="received packets with errors (includes CRC)",
                                           source=sonic_src)
    f["SAI_PORT_STAT_IF_OUT_ERRORS"].update(unit="packets", meaning="transmit errors", source=sonic_src)
    f["SAI_PORT_STAT_IF_IN_DISCARDS"].update(unit="packets", meaning="ingress discards (here: control-plane/ACL "
                                             "drops)", source=sonic_src)
    f["SAI_PORT_STAT_IF_OUT_DISCARDS"].update(unit="packets", meaning="egress discards", source=sonic_src)
    f["SAI_PORT_STAT_ETHER_STATS_CRC_ALIGN_ERRORS"].update(unit="frames", meaning="frames received with a bad "
                                                           "FCS (RMON etherStatsCRCAlignErrors)", source=sonic_src)
    f["SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES"].update(
        unit="FEC codewords", meaning="RS-FEC codewords received with errors that were corrected (counts idle "
        "codewords too; healthy 400G PAM4 links show 1e2-1e5/s)", source=sonic_src)
    f["SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES"].update(
        unit="FEC codewords", meaning="RS-FEC codewords that could not be corrected", source=sonic_src)
    f["SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS"].update(unit="FEC symbols", meaning="RS-FEC symbol errors "
                                                      "corrected", source=sonic_src)
    f["SAI_PORT_STAT_PFC_3_RX_PKTS"].update(unit="PFC frames", meaning="PFC frames received for priority 3 (the "
                                            "lossless RoCE class): the neighbour paused this port", source=sonic_src)
    f["SAI_PORT_STAT_PFC_3_TX_PKTS"].update(unit="PFC frames", meaning="PFC frames sent for priority 3: this "
                                            "switch paused the neighbour", source=sonic_src)
    f["SAI_QUEUE_STAT_PACKETS"].update(unit="packets", meaning="packets transmitted from egress queue 3",
                                       source=q_src)
    f["SAI_QUEUE_STAT_DROPPED_PACKETS"].update(unit="packets", meaning="packets dropped at egress queue 3",
                                               source=q_src)
    f["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"].update(unit="packets", meaning="packets CE-marked by WRED/ECN "
                                                       "at egress queue 3", source=q_src)
    f["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"].update(unit="events", meaning="PFC storms/deadlocks detected by the "
                                                     "PFC watchdog on queue 3", source=wd_src)
    f["PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"].update(unit="packets", meaning="packets dropped by the watchdog's "
                                                      "drop action while queue 3 was stormed", source=wd_src)
    f["SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"] = dict(
        exporter="sonic_gnmi", type="integer gauge", unit="bytes",
        meaning="peak shared-buffer occupancy of egress queue 3 since the last periodic clear (queue watermark "
        "flex counter polled every 60 s, PERIODIC_WATERMARKS cleared every 120 s, so it reads 0 right after a "
        "clear)", source="SONiC COUNTERS_DB table PERIODIC_WATERMARKS, key = queue object id (watermarkorch; "
        "`show queue watermark`), read through sonic-gnmi")
    f["oper_status"] = dict(exporter="sonic_gnmi", type="string", unit="\"up\"|\"down\"",
                            meaning="operational state of the port at the poll instant",
                            source="SONiC APPL_DB PORT_TABLE:EthernetN field oper_status (gNMI target APPL_DB)")
    f["admin_status"] = dict(exporter="sonic_gnmi", type="string", unit="\"up\"|\"down\"",
                             meaning="administrative state of the port",
                             source="SONiC APPL_DB PORT_TABLE:EthernetN field admin_status")
    for lane in range(1, 5):
        f[f"rx{lane}power"] = dict(
            exporter="sonic_gnmi", type="float gauge", unit="dBm",
            meaning=f"received optical power on lane {lane} of the port's transceiver, refreshed by xcvrd every 60 s; "
            "-40.0 when no light arrives; absent on never-cabled ports (no transceiver)",
            source="SONiC STATE_DB TRANSCEIVER_DOM_SENSOR|EthernetN field rx{lane}power (xcvrd, "
            "sonic-platform-daemons)")
    mib = {
        "ifHCInOctets": ("IF-MIB ifXTable (RFC 2863)", "Counter64", "octets", "octets received"),
        "ifHCOutOctets": ("IF-MIB ifXTable (RFC 2863)", "Counter64", "octets", "octets transmitted"),
        "ifHCInUcastPkts": ("IF-MIB ifXTable (RFC 2863)", "Counter64", "packets", "unicast packets received"),
        "ifHCOutUcastPkts": ("IF-MIB ifXTable (RFC 2863)", "Counter64", "packets", "unicast packets transmitted"),
        "ifInDiscards": ("IF-MIB ifTable (RFC 2863)", "Counter32", "packets", "inbound packets discarded"),
        "ifInErrors": ("IF-MIB ifTable (RFC 2863)", "Counter32", "packets", "inbound packets with errors"),
        "ifOutDiscards": ("IF-MIB ifTable (RFC 2863)", "Counter32", "packets", "outbound packets discarded"),
        "ifOutErrors": ("IF-MIB ifTable (RFC 2863)", "Counter32", "packets", "outbound errors"),
        "dot3StatsFCSErrors": ("EtherLike-MIB dot3StatsTable (RFC 3635)", "Counter32", "frames",
                               "frames received with a bad FCS"),
        "ieee8021PfcIndications": ("IEEE8021-PFC-MIB ieee8021PfcIfTable (IEEE 802.1Q)", "Counter32", "PFC frames",
                                   "PFC frames received (M_CONTROL.indication), all priorities summed: this vendor "
                                   "exposes no per-priority split; only priority 3 is lossless here"),
        "ieee8021PfcRequests": ("IEEE8021-PFC-MIB ieee8021PfcIfTable (IEEE 802.1Q)", "Counter32", "PFC frames",
                                "PFC frames sent (M_CONTROL.request), all priorities summed"),
    }
    for n, (src, ty, unit, mean) in mib.items():
        f[n] = dict(exporter="snmp", type="integer counter", width=c64 if ty == "Counter64" else c32, unit=unit,
                    meaning=mean, source=src + "; column name as Telegraf inputs.snmp names it from the MIB")
    f["ifAdminStatus"] = dict(exporter="snmp", type="integer gauge", unit="enum", meaning="1 up, 2 down",
                              source="IF-MIB ifTable (RFC 2863)")
    f["ifOperStatus"] = dict(exporter="snmp", type="integer gauge", unit="enum",
                             meaning="1 up, 2 down, 6 notPresent (never-cabled port without transceiver), at the poll "
                             "instant", source="IF-MIB ifTable (RFC 2863)")
    f["ifHighSpeed"] = dict(exporter="snmp", type="integer gauge", unit="Mb/s",
                            meaning="current (negotiated) speed: 400000, 100000, or 200000 for a NIC renegotiated at "
                            "half speed", source="IF-MIB ifXTable (RFC 2863)")
    f["ifLastChange"] = dict(exporter="snmp", type="integer gauge", unit="TimeTicks (1/100 s of sysUpTime)",
                             meaning="sysUpTime of the device at the port's last oper-state change; moves at every "
                             "flap/admin change", source="IF-MIB ifTable (RFC 2863)")
    return dict(
        summary=("Three-tier RoCEv2 fabric: 2 pods (8 rail leaves with 16 x 400G GPU NICs each, 1 storage leaf and "
                 "1 front-end leaf with 12 x 100G hosts, 4 spines) and 4 super-spines (tier core). Lossless priority "
                 "3 with PFC, ECN/DCQCN. Only switch ports are polled (hosts are not); 832 ports of which "
                 "112 never cabled. Rail-optimised pods: same-rail traffic inside a pod stays on the leaf; "
                 "cross-rail traffic crosses the pod's spines; cross-pod traffic crosses the super-spines "
                 "(2.25:1 oversubscribed at the spine_up tier). GPU leaves 2:1 oversubscribed."),
        exporters=dict(
            sonic_gnmi=("pod1 leaves and spines and all four super-spines run SONiC. Their counters are streamed by "
                        "the SONiC gNMI telemetry server (targets COUNTERS_DB, APPL_DB, STATE_DB) and sampled every "
                        "10 s by Telegraf inputs.gnmi; processors.converter turns the string values of COUNTERS_DB "
                        "into integers (names unchanged); the queue-3 entry and the APPL_DB/STATE_DB fields are merged "
                        "into the port's point. One timestamp per device sample (the notification timestamp). SONiC's "
                        "own `sonic-clear counters` only snapshots for the CLI and does not touch COUNTERS_DB, so the "
                        "SONiC devices see no counter clear; a reboot (warm or cold) restarts every counter."),
            snmp=("pod2 leaves and spines run a second vendor's NOS polled every 20 s with SNMPv2c by Telegraf "
                  "inputs.snmp (IF-MIB ifTable/ifXTable, EtherLike-MIB dot3StatsTable, IEEE8021-PFC-MIB "
                  "ieee8021PfcIfTable); field names are the MIB object names. It has only some of SONiC's counter "
                  "set: PFC only as totals over all priorities (no per-priority split), no ECN-marked count, no FEC "
                  "codeword counters, no queue watermark, no PFC watchdog, no optics. Its error, discard and PFC "
                  "counters are Counter32 and wrap; its `clear counters` resets the SNMP counters too. One timestamp "
                  "per device poll (Telegraf gather time, walk takes up to ~1 s).")),
        tags=dict(
            device="switch hostname (podN-leafNN = rail leaf of rail NN-1, podN-sleaf01 storage leaf, podN-fleaf01 "
                   "front-end leaf, podN-spineNN, coreNN = super-spine)",
            port="switch port name as the NOS names it (SONiC EthernetN with N = first SerDes lane, 100G breakouts "
                 "EthernetN+2k; vendor B Ethernet1/N, breakouts Ethernet1/N/k)",
            fabric="always roce",
            role=("leaf_down = leaf port facing a host (GPU NIC, storage node or front-end host); leaf_up = leaf port "
                  "facing a spine; spine_down = spine port facing a leaf; spine_up = spine port facing a super-spine; "
                  "core = super-spine port facing a spine. Never-cabled ports carry the role of their planned "
                  "position and no peer tags."),
            peer_device="far end of the cable (switch name, or host gpuNNN/storNN/feNN); absent on never-cabled "
                        "ports",
            peer_port="far-end port (switch port name, or the host's RDMA device mlx5_<rail>); absent on never-cabled "
                      "ports",
            speed="nominal speed of the port (400G or 100G); it does not change when a link negotiates lower"),
        fields=f,
        timing=("Model grid 10 s. SONiC devices: a sample every 10 s at grid + 0.05-0.6 s device offset + 0-0.25 s "
                "jitter. Vendor-B devices: a poll every 20 s at even grid points + 0.5-6 s device offset + 0-1.2 s "
                "jitter. A counter read at time t is the cumulative value at t. interval_s = 20 (the slowest switch "
                "poll cadence) is the scoring interval; fit_first is the first 30% of the run and holds no fault."),
        irregularities=("no lines during the 5-min collector gap, while a device reboots, or for a missed poll; "
                        "every counter restarts from zero after a reboot (warm or cold) and after the vendor-B "
                        "clear; vendor-B Counter32 fields wrap modulo 2^32; string fields oper_status/admin_status "
                        "and float fields rxNpower appear only on SONiC lines; rxNpower absent on never-cabled "
                        "ports; SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES and the rxNpower values are refreshed every "
                        "60 s, not every sample."),
    )


def main():
    ap = argparse.ArgumentParser(description="labelled three-tier RoCEv2 SONiC + SNMP fabric telemetry")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=4.0)
    a = ap.parse_args()
    if a.hours < 2.0:
        ap.error("--hours must be at least 2 (the timeline needs room)")
    wall = time.time()
    os.makedirs(a.outdir, exist_ok=True)
    st, info = simulate(a.seed, a.hours)
    n_lines = write_lp(st, info, os.path.join(a.outdir, "port_counters.lp"), a.seed)
    labels = make_labels(st, info, a.seed, a.hours, n_lines)
    with open(os.path.join(a.outdir, "labels.json"), "w") as fh:
        json.dump(labels, fh, indent=1)
    print(f"{labels['ports']} ports, {n_lines} lines, {len(labels['faults'])} faults, "
          f"fit-first {labels['fit_first']} -> {a.outdir} in {time.time() - wall:.1f}s")


if __name__ == "__main__":
    main()
