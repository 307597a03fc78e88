#!/usr/bin/env python3
"""An independent, labelled 3-tier RoCEv2 fabric for testing a degraded-link detector.

    python bench/fabrics/roce_three_tier.py OUTDIR [--seed N] [--hours H]

Writes OUTDIR/port_counters.lp (the `port_counters` schema of shared/scenarios/README.md plus a
`tier` tag: 1 leaf, 2 pod spine, 3 super-spine) and OUTDIR/labels.json (its label form).
Needs numpy only. Written without reading the detector or the other scenario generators.

Topology (own assumptions): 2 pods, each 16 servers x 6 NICs rail-optimised onto 6 leaves
(`pod<p>-leaf-r<r>`, 16 host ports, 16 uplinks: 4 x 400G to each of 4 pod spines, 1:1), pod spines
(`pod<p>-spine-<s>`, 24 down, 8 up: 2 x 400G to each of 4 super-spines, 3:1 since most traffic is
pod-local), super-spines `sspine-<k>` (16 ports). 704 switch ports, 10 s samples.
Servers gpu015, gpu030, gpu031 are storage nodes stor01..03 (one NIC per rail).
Vendor A (pod 0 and super-spines, ports EthernetN) reports FEC and PFC p3+p4; vendor B (pod 1,
ports Eth1/N) has no FEC and no p4 counters, but buffer_discards and out_errors. RDMA jobs use
priority 3, storage (checkpoints) priority 4; both lossless. A rail- / spine-less port
(pod spine <-> super-spine) carries rail=-1.
Counters model per 10 s: offered load per host NIC from jobs, ECMP over uplinks, per-egress queue
pressure from burst-scaled utilisation, ECN marks (DCQCN) before PFC, pauses sent on the ingress
ports feeding pressured queues, one hop of spreading per tier (leaf -> spine -> super-spine).
All event times are given for a 4 h run and scaled to --hours.
"""
from __future__ import annotations

import argparse
import json
import math
import os

import numpy as np

T0 = 1741730400                      # 2025-03-11T22:00:00Z
SAMPLE = 10
CAP = 400e9 / 8 * SAMPLE             # bytes per sample at line rate
STOR = {15: "stor01", 30: "stor02", 31: "stor03"}
FA = ("in_octets out_octets in_pkts out_pkts in_errors fcs_errors in_discards out_discards pfc_rx_p3 "
      "pfc_tx_p3 pfc_rx_p4 pfc_tx_p4 ecn_marked link_transitions oper_status speed_bps "
      "fec_uncorrectable fec_corrected").split()
FB = ("in_octets out_octets in_pkts out_pkts in_errors out_errors fcs_errors in_discards out_discards "
      "buffer_discards pfc_rx_p3 pfc_tx_p3 ecn_marked link_transitions oper_status speed_bps").split()
COUNTERS = sorted(set(FA + FB) - {"oper_status", "speed_bps"})


def vendor(dev):
    return "A" if dev.startswith(("pod0", "sspine")) else "B"


def pname(dev, i):
    return f"Ethernet{i * 8}" if vendor(dev) == "A" else f"Eth1/{i + 1}"


leaf = lambda p, r: f"pod{p}-leaf-r{r}"
spine = lambda p, s: f"pod{p}-spine-{s}"
sup = lambda k: f"sspine-{k}"


def build():
    ports, HP, LU = [], np.zeros((2, 6, 16), int), np.zeros((2, 6, 16), int)
    SD, SU, SS = np.zeros((2, 4, 6, 4), int), np.zeros((2, 4, 8), int), np.zeros((4, 2, 4, 2), int)

    def add(dev, i, role, tier, rail, pdev, pport):
        ports.append(dict(device=dev, port=pname(dev, i), role=role, tier=tier, rail=rail,
                          peer_device=pdev, peer_port=pport))
        return len(ports) - 1
    for p in range(2):
        for r in range(6):
            L = leaf(p, r)
            for s in range(16):
                g = p * 16 + s
                HP[p, r, s] = add(L, s, "leaf_down", 1, r, STOR.get(g, f"gpu{g:03d}"), f"mlx5_{r}")
            for j in range(16):
                s, l = divmod(j, 4)
                LU[p, r, j] = add(L, 16 + j, "leaf_up", 1, r, spine(p, s), pname(spine(p, s), r * 4 + l))
    for p in range(2):
        for s in range(4):
            S = spine(p, s)
            for r in range(6):
                for l in range(4):
                    SD[p, s, r, l] = add(S, r * 4 + l, "spine", 2, r, leaf(p, r), pname(leaf(p, r), 16 + s * 4 + l))
            for k in range(8):
                q, l = divmod(k, 2)
                SU[p, s, k] = add(S, 24 + k, "spine", 2, -1, sup(q), pname(sup(q), p * 8 + s * 2 + l))
    for q in range(4):
        for p in range(2):
            for s in range(4):
                for l in range(2):
                    SS[q, p, s, l] = add(sup(q), p * 8 + s * 2 + l, "spine", 3, -1, spine(p, s),
                                         pname(spine(p, s), 24 + q * 2 + l))
    a = np.concatenate([[LU[p, r, s * 4 + l] for p in range(2) for r in range(6) for s in range(4) for l in range(4)],
                        [SU[p, s, q * 2 + l] for p in range(2) for s in range(4) for q in range(4) for l in range(2)]])
    b = np.concatenate([[SD[p, s, r, l] for p in range(2) for r in range(6) for s in range(4) for l in range(4)],
                        [SS[q, p, s, l] for p in range(2) for s in range(4) for q in range(4) for l in range(2)]])
    return ports, HP, LU, SD, SU, SS, a, b


def generate(out, seed=11, hours=4.0):
    rng = np.random.default_rng(seed)
    f = hours / 4.0
    S = lambda m: int(round(m * f * 2)) * 30            # minutes of the 4 h story -> s, 30 s boundary
    T = int(round(hours * 3600 / SAMPLE)) + 1
    tt = np.arange(T) * float(SAMPLE)
    END = (T - 1) * SAMPLE
    win = lambda a, b: (tt > a) & (tt <= b)             # samples covering (a, b]
    ports, HP, LU, SD, SU, SS, PA, PB = build()
    P = len(ports)
    devs = list(dict.fromkeys(p["device"] for p in ports))
    dev_ix = {d: i for i, d in enumerate(devs)}
    pdev = np.array([dev_ix[p["device"]] for p in ports])
    isA = np.array([vendor(p["device"]) == "A" for p in ports])
    ref = lambda i: f"{ports[i]['device']}:{ports[i]['port']}"
    pe = lambda i: {"device": ports[i]["device"], "port": ports[i]["port"]}

    # ---- where things happen (moves with the seed, story fixed)
    r0, r1, s0, s1 = rng.permutation(6), rng.permutation(6), rng.permutation(4), rng.permutation(4)
    r_storm, r_deg, r_stuck, r_imb = r0[:4]
    r_flap, r_disc, r_boot, r_admin = r1[:4]
    s_repl, s_gap, s_deg = s0[0], s0[1], s0[2]
    s_ecn, s_buf, s_admin, s_imb1 = s1
    s_storm, s_flap, s_disc = int(rng.integers(0, 8)), int(rng.integers(6, 14)), int(rng.integers(8, 14))
    q_dirty, s_dirty, l_dirty = int(rng.integers(4)), int(rng.integers(4)), int(rng.integers(2))
    j_deg = s_deg * 4 + int(rng.integers(4))
    j_stuck = s_repl * 4 + int(rng.integers(4))
    j_admin = s_admin * 4 + int(rng.integers(4))
    j_imb = rng.choice(16, 2, replace=False)
    k_buf, k_imb1 = int(rng.integers(8)), int(rng.integers(8))
    P_storm, P_flap, P_disc = HP[0, r_storm, s_storm], HP[1, r_flap, s_flap], HP[1, r_disc, s_disc]
    P_dirty, P_deg, P_stuck = SS[q_dirty, 0, s_dirty, l_dirty], LU[0, r_deg, j_deg], LU[0, r_stuck, j_stuck]
    P_buf, P_admin = SU[1, s_buf, k_buf], LU[1, r_admin, j_admin]
    peer = np.full(P, -1)
    peer[PA], peer[PB] = PB, PA

    # ---- link state: per-port down intervals (s from t0)
    down = {}
    addd = lambda i, d, u: down.setdefault(int(i), []).append((d, u))
    for i in (P_admin, peer[P_admin]):                              # planned admin-down, 40 min
        addd(i, S(75) + 3, S(115) + 4)
    t, flaps, lim = S(95) + 7.0, [], S(110) - 60                   # flapping host link
    while t < lim:
        for _ in range(int(rng.integers(2, 8))):
            d = float(rng.uniform(2, 25))
            flaps.append((t, t + d))
            t += d + float(rng.uniform(3, 60))
        t += float(rng.uniform(120, 300))
    for d, u in flaps:
        addd(P_flap, d, u)
    R0, R1, STUCK_END = S(100), S(106), S(215)                      # spine replacement
    repl_ports = [i for i in range(P) if ports[i]["device"] == spine(0, s_repl)]
    for i in repl_ports:
        addd(i, R0 + 2, R1 + 25)
        addd(peer[i], R0 + 2, STUCK_END + 6 if peer[i] == P_stuck else R1 + 25)
    B0, B1 = S(200), S(204)                                         # planned leaf reboot
    boot_ports = [i for i in range(P) if ports[i]["device"] == leaf(1, r_boot)]
    for i in boot_ports:
        addd(i, B0 + 1, B1 + 20)
        if peer[i] >= 0:
            addd(peer[i], B0 + 1, B1 + 20)
    upf, oper, trans = np.ones((T, P)), np.ones((T, P), np.int64), np.zeros((T, P))
    for i, ivs in down.items():
        for d, u in ivs:
            upf[:, i] -= np.clip(np.minimum(tt, u) - np.maximum(tt - SAMPLE, d), 0, SAMPLE) / SAMPLE
            oper[(tt >= d) & (tt < u), i] = 0
            for e in (d, u):
                k = math.ceil(e / SAMPLE)
                if k < T:
                    trans[k, i] += 1
    upf = np.clip(upf, 0, 1)
    present = np.ones((T, len(devs)), bool)
    present[win(R0, R1), dev_ix[spine(0, s_repl)]] = False
    present[win(B0, B1), dev_ix[leaf(1, r_boot)]] = False
    present[win(S(155), S(158)), dev_ix[spine(0, s_gap)]] = False  # collector gap, 3 min

    # ---- host traffic (fractions of line rate per sample), shape (T, pod, rail, server)
    sh = (T, 2, 6, 16)
    jt, ju, jx, jb, busy = (np.zeros(sh) for _ in range(5))
    g8 = lambda a, b: list(range(a, b))
    jobs = [dict(n="A", g=g8(0, 8), seg=[(5, 192), (215, 240)], i=.75, fu=.3, fx=0, b=1.5),
            dict(n="B1", g=g8(8, 14) + g8(16, 22), seg=[(20, 60)], i=.7, fu=.8, fx=.45, b=1.4),
            dict(n="C", g=g8(22, 30), seg=[(40, 110)], i=.7, fu=.3, fx=0, b=1.5, a2a=(85, 100)),
            dict(n="D", g=g8(24, 30), seg=[(120, 190)], i=.6, fu=.3, fx=0, b=1.5),
            dict(n="B2", g=g8(8, 15) + g8(16, 24), seg=[(130, 190)], i=.88, fu=.85, fx=.55, b=1.45),
            dict(n="B3", g=g8(8, 14) + g8(16, 22), seg=[(215, 240)], i=.65, fu=.8, fx=.45, b=1.4)]
    ST0, ST1 = S(120), S(132)
    for jb_ in jobs:
        m = np.zeros(T, bool)
        for a, b in jb_["seg"]:
            m |= win(S(a), S(b))
        it = jb_["i"] * (0.82 + 0.18 * rng.random(T)) * m
        it[1:][m[1:] & ~m[:-1]] *= 0.5                               # ramp-up sample
        fu, fx, bb = np.full(T, jb_["fu"]), np.full(T, float(jb_["fx"])), np.full(T, jb_["b"])
        if "a2a" in jb_:
            a2 = win(S(jb_["a2a"][0]), S(jb_["a2a"][1]))
            it[a2], fu[a2], bb[a2] = 0.8 * (0.85 + 0.15 * rng.random(a2.sum())), 0.9, 2.4
        if jb_["n"] == "A":                                         # job stalls behind the PFC storm
            it[win(ST0 + 30, ST1)] *= 0.08
        for g in jb_["g"]:
            p, s = divmod(g, 16)
            x = it[:, None] * rng.lognormal(0, .05, (T, 6))
            jt[:, p, :, s] += x
            ju[:, p, :, s] += x * fu[:, None]
            jx[:, p, :, s] += x * fx[:, None]
            jb[:, p, :, s] += x * bb[:, None]
            busy[:, p, :, s] += m[:, None]
    IDLE = win(S(192), S(215))
    bg = 0.04 * rng.lognormal(0, .4, (1, 2, 1, 16)) * rng.lognormal(0, .1, sh) * np.where(IDLE, .25, 1)[:, None, None, None]
    for g in STOR:
        bg[:, g // 16, :, g % 16] *= 2.0
    tx3 = jt + bg
    fu3 = (ju + .5 * bg) / tx3
    fx3 = (jx + .2 * bg) / tx3
    bh = (jb + 1.2 * bg) / tx3
    rx3 = tx3 * rng.lognormal(0, .04, sh)
    # storage checkpoint bursts (priority 4): all busy GPU NICs write to the 3 storage nodes
    SB = np.zeros(T, bool)
    for a, b in ((30, 33), (88, 92), (170, 175)):
        SB |= win(S(a), S(b))
    snd = (busy > 0) & SB[:, None, None, None]
    for g in STOR:
        snd[:, g // 16, :, g % 16] = False
    Dr = 0.5 * snd.sum(axis=(1, 3)) / 3                             # demand per storage port (T, rail)
    theta = np.minimum(1, 1 / np.maximum(Dr, 1e-9))
    tx4 = 0.5 * snd * theta[:, None, :, None] * rng.lognormal(0, .05, sh)
    rx4 = np.zeros(sh)
    sent = tx4.sum(axis=3)                                          # (T, pod, rail)
    for g in STOR:
        rx4[:, g // 16, :, g % 16] = (sent[:, 0] + sent[:, 1]) / 3
    cs = np.array([2 / 3, 1 / 3])                                   # cross-pod share of a sender's checkpoint
    hostup = upf[:, HP]                                             # flap / reboot take the NIC's traffic
    for a in (tx3, rx3, tx4, rx4):
        a *= hostup
    st = win(ST0, ST1)
    pst = (0, r_storm, s_storm)
    tx3[(st,) + pst] *= 0.02; rx3[(st,) + pst] *= 0.002; tx4[(st,) + pst] = 0; rx4[(st,) + pst] = 0

    # ---- leaf aggregates and ECMP
    U3, X3 = (tx3 * fu3).sum(-1), (tx3 * fx3).sum(-1)
    D3, XD3 = (rx3 * fu3).sum(-1), (rx3 * fx3).sum(-1)
    for p in range(2):                                              # what leaves one pod enters the other
        k = X3[:, 1 - p].sum(-1) / np.maximum(XD3[:, p].sum(-1), 1e-9)
        new = XD3[:, p] * k[:, None]
        D3[:, p] += new - XD3[:, p]
        XD3[:, p] = new
    U4 = sent * cs[None, :, None]
    D4 = np.stack([sent[:, 1] / 3, 2 * sent[:, 0] / 3], axis=1)
    W0 = rng.lognormal(0, .03, (2, 6, 16))
    W0[0, r_imb, j_imb] = [1.75, 1.6]                              # ECMP polarisation since the start
    W = W0 * upf[:, LU] * rng.lognormal(0, .03, (T, 2, 6, 16))
    W /= np.maximum(W.sum(-1, keepdims=True), 1e-12)
    IN3, IN4, OUT3, OUT4 = (np.zeros((T, P)) for _ in range(4))
    IN3[:, HP], IN4[:, HP], OUT3[:, HP], OUT4[:, HP] = tx3, tx4, rx3, rx4
    OUT3[:, LU], OUT4[:, LU] = U3[..., None] * W, U4[..., None] * W
    IN3[:, LU], IN4[:, LU] = D3[..., None] * W, D4[..., None] * W
    Wsum = W.reshape(T, 2, 6, 4, 4).sum(-1)                         # (T, pod, rail, spine)
    Xs3, Xs4 = np.einsum("tpr,tprs->tps", X3, Wsum), np.einsum("tpr,tprs->tps", U4, Wsum)
    Wu0 = rng.lognormal(0, .03, (2, 4, 8))
    Wu0[1, s_imb1, k_imb1] = 1.65
    Wu = Wu0 * upf[:, SU] * rng.lognormal(0, .03, (T, 2, 4, 8))
    Wp = Wu / np.maximum(Wu.sum(axis=(2, 3), keepdims=True), 1e-12)
    Wu = Wu / np.maximum(Wu.sum(-1, keepdims=True), 1e-12)
    OUT3[:, SU], OUT4[:, SU] = Xs3[..., None] * Wu, Xs4[..., None] * Wu
    IN3[:, SU] = XD3.sum(-1)[:, :, None, None] * Wp
    IN4[:, SU] = D4.sum(-1)[:, :, None, None] * Wp
    for A in ((IN3, IN4), (OUT3, OUT4)):                            # a link carries at most line rate
        k = np.minimum(1, 0.985 / np.maximum(A[0] + A[1], 1e-12))
        A[0][:] *= k; A[1][:] *= k
    IN3[:, PB], IN4[:, PB], OUT3[:, PB], OUT4[:, PB] = OUT3[:, PA], OUT4[:, PA], IN3[:, PA], IN4[:, PA]

    # ---- queue pressure, ECN, PFC
    bl = ((tx3 * fu3 * bh).sum(-1) + 1.6 * U4) / np.maximum(U3 + U4, 1e-9)
    xs = (tx3 * fx3).sum(axis=(1, 2, 3))
    bx = ((tx3 * fx3 * bh).sum(axis=(1, 2, 3)) + 1.6 * U4.sum(axis=(1, 2))) / np.maximum(xs + U4.sum(axis=(1, 2)), 1e-9)
    bp = np.ones((T, P))
    bp[:, HP] = 1 + (bh - 1) * 0.3                                  # one NIC's queue: little burst build-up
    bp[:, LU] = bl[..., None]
    bp[:, SD] = bl[:, :, None, :, None]
    bp[:, SU], bp[:, SS] = bx[:, None, None, None], bx[:, None, None, None, None]
    ue = (OUT3 + OUT4) * bp * rng.lognormal(0, .06, (T, P))
    ue[:, HP[:, :, [15]]] = np.maximum(ue[:, HP[:, :, [15]]], 1.05 * Dr[:, None, :, None])
    ue[:, HP[1, :, 14]] = np.maximum(ue[:, HP[1, :, 14]], 1.05 * Dr)
    ECN0, ECN1 = S(140), S(185)
    eoff = np.zeros((T, P), bool)
    eoff[np.ix_(win(ECN0, ECN1), np.where(pdev == dev_ix[spine(1, s_ecn)])[0])] = True
    g = 3000 * np.clip((ue * np.where(eoff, 1.25, 1) - 0.9) / 0.4, 0, 2) ** 2 * np.where(eoff, 4, 1)
    q = np.clip((ue - 0.6) / 0.5, 0, 1.5)
    sat = lambda x: x / (x + 0.05)
    wm = lambda gg, w, ax: (gg * w).sum(ax) / np.maximum(w.sum(ax), 1e-12)
    PT3, PT4, PR3, PR4 = (np.zeros((T, P)) for _ in range(4))
    Gd3, Gd4 = wm(g[:, HP], OUT3[:, HP], -1)[..., None], wm(g[:, HP], OUT4[:, HP], -1)[..., None]
    Gu3, Gu4 = wm(g[:, LU], OUT3[:, LU], -1)[..., None], wm(g[:, LU], OUT4[:, LU], -1)[..., None]
    PT3[:, HP] = (fu3 * Gu3 + (1 - fu3) * Gd3) * sat(IN3[:, HP])
    PT4[:, HP] = (cs[None, :, None, None] * Gu4 + (1 - cs[None, :, None, None]) * Gd4) * sat(IN4[:, HP])
    PT3[:, LU], PT4[:, LU] = Gd3 * sat(IN3[:, LU]), Gd4 * sat(IN4[:, LU])
    m60 = win(ST0, ST0 + 60)                                        # the leaf pauses its uplinks at first
    PT3[np.ix_(m60, LU[0, r_storm])] += 5000 * rng.uniform(.6, 1.4, (m60.sum(), 16))
    PR3[:, SD], PR4[:, SD] = PT3[:, LU].reshape(T, 2, 6, 4, 4).transpose(0, 1, 3, 2, 4), PT4[:, LU].reshape(T, 2, 6, 4, 4).transpose(0, 1, 3, 2, 4)
    g3, g4 = g.copy(), g                                           # a paused egress queue backs up its own class
    g3[:, SD] += 0.8 * PR3[:, SD]
    g4[:, SD] += 0.8 * PR4[:, SD]
    Sd3 = wm(g3[:, SD].reshape(T, 2, 4, 24), OUT3[:, SD].reshape(T, 2, 4, 24), -1)
    Sd4 = wm(g4[:, SD].reshape(T, 2, 4, 24), OUT4[:, SD].reshape(T, 2, 4, 24), -1)
    Su3, Su4 = wm(g3[:, SU], OUT3[:, SU], -1), wm(g4[:, SU], OUT4[:, SU], -1)
    xf = (X3 / np.maximum(U3, 1e-9))[:, :, None, :, None]
    PT3[:, SD] = ((1 - xf) * Sd3[..., None, None] + xf * Su3[..., None, None]) * sat(IN3[:, SD])
    PT4[:, SD] = Su4[..., None, None] * sat(IN4[:, SD])
    PT3[:, SU], PT4[:, SU] = Sd3[..., None] * sat(IN3[:, SU]), Sd4[..., None] * sat(IN4[:, SU])
    for A, B in ((PR3, PT3), (PR4, PT4)):
        A[:, PA] = B[:, PB]
        A[:, PB[len(PB) - 64:]] = B[:, PA[len(PA) - 64:]]          # super-spine ports hear the spines
    g3[:, SS] += 0.8 * PR3[:, SS]
    g4[:, SS] += 0.8 * PR4[:, SS]
    G3 = wm(g3[:, SS].reshape(T, 4, 2, 8), OUT3[:, SS].reshape(T, 4, 2, 8), -1)
    G4 = wm(g4[:, SS].reshape(T, 4, 2, 8), OUT4[:, SS].reshape(T, 4, 2, 8), -1)
    PT3[:, SS] = G3[:, :, ::-1, None, None] * sat(IN3[:, SS])
    PT4[:, SS] = G4[:, :, ::-1, None, None] * sat(IN4[:, SS])
    PR3[:, PA[len(PA) - 64:]], PR4[:, PA[len(PA) - 64:]] = PT3[:, PB[len(PB) - 64:]], PT4[:, PB[len(PB) - 64:]]
    PR3[st, P_storm] = rng.uniform(30e3, 80e3, st.sum())           # NIC stuck sending pause

    # ---- per-sample increments
    pois = lambda lam: np.where(lam < 1e5, rng.poisson(np.minimum(lam, 1e5)), np.round(lam)).astype(np.int64)
    inc = {}
    inc["in_octets"] = np.round((IN3 + IN4) * CAP).astype(np.int64)
    inc["out_octets"] = np.round((OUT3 + OUT4) * CAP).astype(np.int64)
    ipk, opk = (IN3 / 2700 + IN4 / 4100) * CAP, (OUT3 / 2700 + OUT4 / 4100) * CAP
    inc["in_pkts"], inc["out_pkts"] = np.round(ipk).astype(np.int64), np.round(opk).astype(np.int64)
    inc["ecn_marked"] = np.where(eoff, 0, pois(opk * 0.006 * q ** 2))
    for n, A in (("pfc_tx_p3", PT3), ("pfc_tx_p4", PT4), ("pfc_rx_p3", PR3), ("pfc_rx_p4", PR4)):
        inc[n] = pois(A * SAMPLE)
    inc["link_transitions"] = trans.astype(np.int64)
    fcs, fec_u = np.zeros((T, P)), np.zeros((T, P))
    lam_c = rng.lognormal(math.log(300), 1.0, P) * SAMPLE           # pre-FEC corrections on every PAM4 link
    fec_c = lam_c[None] * upf
    ind, outd, bufd = np.zeros((T, P)), np.zeros((T, P)), np.zeros((T, P))
    # faults
    DO = S(80)
    m = tt > DO
    fcs[m, P_dirty] = ipk[m, P_dirty] * 3e-6 * rng.lognormal(0, .2, m.sum())
    fcs[m, peer[P_dirty]] = ipk[m, peer[P_dirty]] * 6e-8
    fec_c[m, P_dirty] *= 40
    fec_u[m, P_dirty] = fcs[m, P_dirty] * 1.05
    for d, u in flaps:                                              # link training errors at each link-up
        k = math.ceil(u / SAMPLE)
        if k < T:
            fcs[k, P_flap] += rng.integers(1, 30)
    outd[st, P_storm] = rng.uniform(500, 3000, st.sum()) * SAMPLE   # PFC watchdog drops
    DG0, DG1, DG2 = S(150), S(210), END
    ramp = np.clip((tt - DG0) / (DG1 - DG0), 0, None)
    fec_c[:, P_deg] *= np.exp(math.log(400) * np.minimum(ramp, 1)) * (1 + np.clip(ramp - 1, 0, None) * 2)
    late = np.clip((tt - DG1) / max(DG2 - DG1, 1), 0, 1) * (tt > DG1)
    fcs[:, P_deg] = np.where(tt > DG1, ipk[:, P_deg] * 1e-8 * 10 ** (3 * late), 0)
    fec_u[:, P_deg] = np.where(tt > DG1, 0.02 * SAMPLE * 10 ** (3 * late) * upf[:, P_deg], 0) + fcs[:, P_deg]
    BUF0 = S(120)
    m = tt > BUF0
    outd[m, P_buf] = 1500 * SAMPLE * np.clip((ue[m, P_buf] - 0.65) / 0.35, 0, 2)
    bufd[:, P_buf] = outd[:, P_buf]
    ID0, ID1 = S(165), S(205)
    m = win(ID0, ID1)
    ind[m, P_disc] = (0.5 + 400 * ((tt[m] - ID0) / (ID1 - ID0)) ** 1.5) * SAMPLE * (0.4 + 0.6 * sat(IN3[m, P_disc] + IN4[m, P_disc]) / sat(1.0))
    # healthy background: single FCS / uncorrectable codewords on ~5% of links, control-plane drops
    busy_ports = {P_storm, P_flap, P_disc, P_dirty, P_deg, P_stuck, P_buf, P_admin, *LU[0, r_imb, j_imb], SU[1, s_imb1, k_imb1]}
    busy_ports |= {int(peer[i]) for i in list(busy_ports) if peer[i] >= 0}
    pa = set(PA.tolist())
    cand = [i for i in range(P) if ports[i]["role"] == "leaf_down" or i in pa]
    cand = [i for i in cand if i not in busy_ports]
    bgerr = []
    for i in rng.choice(cand, int(round(0.05 * 448)), replace=False):
        i = int(i if ports[i]["role"] == "leaf_down" or rng.random() < .5 else peer[i])
        bgerr.append(i)
        ev = rng.random(T) < rng.uniform(.5, 3) / 360
        kind = rng.random(T)
        if isA[i]:
            fec_u[ev & (kind < .75), i] += 1
            fcs[ev & (kind > .5), i] += 1
        else:
            fcs[ev, i] += 1
    cpd = [int(i) for i in rng.choice([i for i in range(P) if i != P_disc], 21, replace=False)]
    for i in cpd:
        ind[:, i] += (rng.random(T) < .03) * rng.integers(1, 4, T)
    inc["fcs_errors"] = pois(fcs)
    inc["in_errors"] = inc["fcs_errors"].copy()
    inc["fec_uncorrectable"] = np.maximum(pois(fec_u), inc["fcs_errors"] * isA)
    inc["fec_corrected"] = pois(fec_c)
    inc["in_discards"], inc["out_discards"], inc["buffer_discards"] = pois(ind), pois(outd), pois(bufd)
    inc["out_errors"] = np.zeros((T, P), np.int64)
    for k in inc:
        inc[k][0] = 0
    # ---- cumulative counters, device restarts
    big = lambda lo, hi: rng.integers(lo, hi, P)
    base = {"in_octets": big(10**13, 5 * 10**15), "out_octets": big(10**13, 5 * 10**15),
            "in_pkts": big(10**10, 10**12), "out_pkts": big(10**10, 10**12),
            "fcs_errors": big(0, 5000), "in_discards": big(0, 10**5), "out_discards": big(0, 10**5),
            "buffer_discards": big(0, 10**5), "out_errors": big(0, 100), "ecn_marked": big(10**5, 10**9),
            "link_transitions": big(2, 30), "fec_uncorrectable": big(0, 2000), "fec_corrected": big(10**9, 10**12)}
    for n in ("pfc_rx_p3", "pfc_tx_p3", "pfc_rx_p4", "pfc_tx_p4"):
        base[n] = big(10**4, 10**8)
    base["in_errors"] = base["fcs_errors"] + big(0, 1000)
    cum = {}
    restarts = [(spine(0, s_repl), R1), (leaf(1, r_boot), B1)]
    for n in COUNTERS:
        c = np.cumsum(inc[n], axis=0) + base[n][None]
        for d, tb in restarts:
            cols = np.where(pdev == dev_ix[d])[0]
            k1 = int(tb // SAMPLE) + 1
            boot = rng.integers(0, 5000 if "octets" in n else 40 if "pkts" in n else 1, len(cols))
            c[k1:, cols] = c[k1:, cols] - c[k1 - 1, cols] + boot
        cum[n] = c
    cum["oper_status"] = oper
    cum["speed_bps"] = np.full((T, P), 400_000_000_000, np.int64)

    # ---- write line protocol
    os.makedirs(out, exist_ok=True)
    groups = []
    for vend, fl in (("A", FA), ("B", FB)):
        idx = np.where(isA if vend == "A" else ~isA)[0]
        arr = np.stack([cum[n][:, idx] for n in fl], axis=2)
        fmt = ",".join(f"{n}=%di" for n in fl)
        pre = [f"port_counters,device={ports[i]['device']},port={ports[i]['port']},fabric=roce,role={ports[i]['role']},"
               f"rail={ports[i]['rail']},peer_device={ports[i]['peer_device']},peer_port={ports[i]['peer_port']},"
               f"speed=400G,tier={ports[i]['tier']} " for i in idx]
        groups.append((idx, arr, fmt, pre))
    order = np.argsort(np.concatenate([gq[0] for gq in groups]), kind="stable")
    lines = 0
    with open(os.path.join(out, "port_counters.lp"), "w") as fh:
        for k in range(T):
            ts = f" {(T0 + k * SAMPLE) * 10**9}\n"
            rows = []
            for idx, arr, fmt, pre in groups:
                pr = present[k, pdev[idx]]
                rows += [pre[j] + fmt % tuple(v) + ts if pr[j] else None for j, v in enumerate(arr[k].tolist())]
            buf = [rows[o] for o in order if rows[o] is not None]
            lines += len(buf)
            fh.write("".join(buf))

    # ---- labels
    ns = lambda s: (T0 + int(s)) * 10**9
    up30 = lambda s: int(math.ceil(s / 30)) * 30
    devp = lambda d: [i for i in range(P) if ports[i]["device"] == d]
    rel = lambda idxs: [{"device": d, "ports": [ports[i]["port"] for i in idxs if ports[i]["device"] == d]}
                        for d in dict.fromkeys(ports[i]["device"] for i in idxs)]
    host_pe = lambda i: {"device": ports[i]["peer_device"], "port": ports[i]["peer_port"]}
    ecn_peers = [int(peer[i]) for i in devp(spine(1, s_ecn))]
    faults = [
        dict(kind="dirty_optic", device=ports[P_dirty]["device"], ports=[ports[P_dirty]["port"]], start_ns=ns(DO), end_ns=ns(END),
             peer_ends=[pe(peer[P_dirty])], related=[],
             signature="fcs_errors=in_errors ~3e-6 of received frames (not load-driven, nothing when idle), fec_corrected x40, "
                       "fec_uncorrectable ~= fcs; far end ~2% of it"),
        dict(kind="flapping_link", device=ports[P_flap]["device"], ports=[ports[P_flap]["port"]], start_ns=ns(S(95)),
             end_ns=ns(up30(flaps[-1][1])), peer_ends=[host_pe(P_flap)], related=[],
             signature=f"{len(flaps)} down/up cycles in bursts (2-25 s down), link_transitions +2 each, oper_status 0 when a "
                       "sample lands in a down, traffic gaps, 1-30 FCS at each link-up"),
        dict(kind="pfc_storm", device=ports[P_storm]["device"], ports=[ports[P_storm]["port"]], start_ns=ns(ST0), end_ns=ns(ST1),
             peer_ends=[host_pe(P_storm)], related=rel(list(LU[0, r_storm]) + [int(peer[i]) for i in LU[0, r_storm]]),
             signature="pfc_rx_p3 30-80k/s from the NIC, out_octets to the host ~0, out_discards 500-3000/s (PFC watchdog); "
                       "the leaf pauses its uplinks for the first minute; job A stalls"),
        dict(kind="ecn_disabled_switch", device=spine(1, s_ecn), ports=["*"], start_ns=ns(ECN0), end_ns=ns(ECN1),
             peer_ends=[], related=rel(ecn_peers),
             signature="ecn_marked flat on every port while the cross-pod job congests it; pfc_tx_p3 several-fold "
                       "(pfc_rx_p3 on the leaf uplinks and super-spine ports facing it)"),
        dict(kind="degrading_optic", device=ports[P_deg]["device"], ports=[ports[P_deg]["port"]], start_ns=ns(DG0), end_ns=ns(END),
             peer_ends=[pe(peer[P_deg])], related=[],
             signature="fec_corrected rising x400 over 60 min (any load, even idle) before fec_uncorrectable and FCS appear "
                       "(FCS 1e-8 -> 1e-5 of received frames over the last part)"),
        dict(kind="link_down_after_replacement", device=ports[P_stuck]["device"], ports=[ports[P_stuck]["port"]],
             start_ns=ns(up30(R1 + 25)), end_ns=ns(STUCK_END), peer_ends=[pe(peer[P_stuck])], related=[],
             signature=f"after {spine(0, s_repl)} was replaced, this uplink stays oper_status 0 while the far end reports up; "
                       "no bytes either way, ECMP on the siblings"),
        dict(kind="bad_buffer_profile", device=ports[P_buf]["device"], ports=[ports[P_buf]["port"]], start_ns=ns(BUF0), end_ns=ns(END),
             peer_ends=[pe(peer[P_buf])], related=[],
             signature="out_discards = buffer_discards (~10^3/s) in proportion to the egress congestion, zero when not congested "
                       "(congests from the cross-pod job at 130 min)"),
        dict(kind="ingress_discards_rising", device=ports[P_disc]["device"], ports=[ports[P_disc]["port"]], start_ns=ns(ID0),
             end_ns=ns(ID1), peer_ends=[host_pe(P_disc)], related=[],
             signature="in_discards growing from ~0.5/s to ~400/s over 40 min, nothing else wrong"),
    ]
    H = lambda kind, where, a, b, note, **kw: dict(kind=kind, where=where, start_ns=ns(a), end_ns=ns(b), note=note, **kw)
    hostw = lambda gids: [ref(HP[g // 16, r, g % 16]) for g in gids for r in range(6)]
    healthy = []
    for jb_ in jobs:
        for a, b in jb_["seg"]:
            healthy.append(H("job_start_stop", hostw(jb_["g"]), S(a), min(S(b), END), f"job {jb_['n']} runs ({jb_['fu']:.0%} leaves the leaf, {jb_['fx']:.0%} crosses pods)"))
    spines_all = [f"{spine(p, s)}:*" for p in range(2) for s in range(4)] + [f"{sup(k)}:*" for k in range(4)]
    for n, a, b in (("B1", 20, 60), ("B2", 130, 190), ("B3", 215, 240)):
        healthy.append(H("cross_pod_job_congestion", spines_all, S(a), min(S(b), END),
                         f"job {n} spans both pods: ECN and PFC rise together on every super-spine port (B2 far above the fit window)"))
    healthy.append(H("all_to_all_phase", [f"{leaf(1, r)}:*" for r in range(6)] + [f"{spine(1, s)}:*" for s in range(4)], S(85), S(100),
                     "job C all-to-all: 90% of its bytes cross the leaves, ECN/PFC up on many uplinks at once"))
    for a, b in ((30, 33), (88, 92), (170, 175)):
        healthy.append(H("storage_burst", ["*"], S(a), S(b) + 60, "checkpoint to stor01-03: storage ports saturated, PFC p4 spreading (p4 not visible on vendor B)"))
    healthy.append(H("sporadic_errors", [ref(i) for i in bgerr], 0, END, "single FCS errors / single fec_uncorrectable codewords", background=True))
    healthy.append(H("control_plane_drops", [ref(i) for i in cpd], 0, END, "a few in_discards now and then", background=True))
    healthy.append(H("idle_stretch", ["*"], S(192), S(215), "all jobs stopped, light background traffic only"))
    healthy.append(H("planned_admin_down", [ref(P_admin), ref(peer[P_admin])], S(75), S(115) + 30, "uplink admin-down for 40 min (both ends oper_status 0)"))
    imb = [int(i) for i in LU[0, r_imb, j_imb]] + [int(SU[1, s_imb1, k_imb1])]
    healthy.append(H("ecmp_imbalance", [ref(i) for i in imb] + [ref(peer[i]) for i in imb], 0, END, "polarised ECMP: 1.6-1.75x the siblings' bytes since the start"))
    healthy.append(H("collector_gap", [f"{spine(0, s_gap)}:*"], S(155), S(158), "no samples for 3 min"))
    healthy.append(H("device_reboot", [f"{leaf(1, r_boot)}:*"] + [ref(peer[i]) for i in boot_ports if peer[i] >= 0], B0, B1 + 30,
                     "planned leaf reboot in the idle stretch: 4 min without samples, counters restart near zero, links bounce"))
    healthy.append(H("switch_replacement", [f"{spine(0, s_repl)}:*"] + [ref(peer[i]) for i in repl_ports if peer[i] != P_stuck], R0, R1 + 30,
                     "pod spine swapped: 6 min gone, new counters from zero, all its links bounce once"))
    labels = dict(scenario="roce-three-tier", scale="small", seed=seed, fabric="roce", interval_s=30, sample_s=SAMPLE,
                  t0_ns=ns(0), t_end_ns=ns(END), train_until_ns=ns(S(72)), fit_first=f"{int(round(72 * f))}m",
                  ports=P, lines=lines, faults=faults, healthy_phenomena=healthy)
    with open(os.path.join(out, "labels.json"), "w") as fh:
        json.dump(labels, fh, indent=1)
    return labels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--hours", type=float, default=4.0)
    a = ap.parse_args()
    lab = generate(a.outdir, a.seed, a.hours)
    print(f"{lab['ports']} ports, {lab['lines']} lines, fit_first {lab['fit_first']}")
    for fl in lab["faults"]:
        print(f"  {fl['kind']:28s} {fl['device']}:{','.join(fl['ports'])}  "
              f"{(fl['start_ns'] - lab['t0_ns']) / 6e10:6.1f}-{(fl['end_ns'] - lab['t0_ns']) / 6e10:6.1f} min")


if __name__ == "__main__":
    main()
