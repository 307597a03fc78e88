#!/usr/bin/env python3
"""Labelled telemetry of a rail-optimised RoCEv2 GPU fabric as a mixed SNMP + ethtool collector
stack records it, for testing a degraded-link detector.

usage: roce_snmp_ethtool.py OUTDIR [--seed N]          (default seed 1; 4 h of data)

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement `port_counters`, one point per
polled port per poll, raw cumulative counters as the exporters read them, time-ordered, ns
timestamps) and OUTDIR/labels.json (faults, healthy phenomena, notes on every tag and field).
Standalone: standard library + numpy, deterministic per seed.

Fabric: 8 rail leaves (51.2T, 64 OSFP cages; cages 1-16 split 2x400G toward the GPU hosts, cage 17
split toward one storage NIC plus a never-cabled spare, cages 18-33 800G uplinks, two to each of 8
spines, cages 34-40 empty and reserved), 8 modular spines (two 800G line-card ports per leaf),
32 GPU hosts x 8 mlx5 NICs (NIC r on the rail-r leaf) and 4 storage hosts x 2 NICs.
Switches are polled by SNMP every 30 s (IF-MIB names, a vendor PFC/ECN table on the leaves and on
four of the spines only, a DOM table); host NICs are read every 10 s by an ethtool-style exporter
(mlx5 `ethtool -S` names plus sysfs carrier/operstate/speed and `ethtool -m` / mlxlink gauges).
The model runs on a 10 s grid of per-step increments; every poll reads the cumulative counters at
its own (jittered) instant, interpolated inside the 10 s step.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

T0 = 1749340800                    # 2025-06-08T00:00:00Z, a multiple of 30 s
DT = 10                            # model grid and NIC exporter cadence (s)
SNMP_S = 30                        # switch SNMP cadence (s) = the label interval
DUR = 4 * 3600                     # run length (s)
NR, NSP, NH, NST = 8, 8, 32, 4     # rails (= leaves), spines, GPU hosts, storage hosts
B400 = 400e9 / 8 * DT              # bytes per model step at 400 Gb/s
KAPPA = 2e-3                       # CE-marked fraction of egress packets per unit of queue pressure
BETA = 7e-6                        # pause frames per ingress packet per unit of squared switch pressure
PHI = 3.0                          # queue pressure multiplier where ECN marking is off
ETA = 0.5                          # pressure coming back one hop through received pauses
DLOSS = 3e-6                       # ingress drops per packet per unit of squared pressure on a lossy queue
C32 = 1 << 32

SW_INT = ["ifHCInOctets", "ifHCOutOctets", "ifHCInUcastPkts", "ifHCOutUcastPkts", "ifHCInMulticastPkts",
          "ifHCOutMulticastPkts", "ifInErrors", "ifOutErrors", "ifInDiscards", "ifOutDiscards",
          "ifInUnknownProtos", "dot3StatsFCSErrors", "ifOperStatus", "ifAdminStatus", "ifHighSpeed",
          "ifLastChange", "pfcRxPausePkts3", "pfcTxPausePkts3", "ecnMarkedPkts3", "pfcWdStormDetected3",
          "pfcWdDroppedPkts3"]
SW_MIB = SW_INT[16:]
SW_FLT = ["domTemperature", "domRxPowerAvg", "domRxPowerMin", "domTxPowerAvg", "domTxBias"]
NIC_INT = ["rx_bytes_phy", "tx_bytes_phy", "rx_packets_phy", "tx_packets_phy", "rx_multicast_phy",
           "rx_crc_errors_phy", "rx_symbol_err_phy", "rx_corrected_bits_phy", "rx_discards_phy",
           "rx_out_of_buffer", "rx_prio3_pause", "tx_prio3_pause", "rx_prio3_pause_duration",
           "tx_prio3_pause_duration", "tx_pause_storm_warning_events", "tx_pause_storm_error_events",
           "np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored", "out_of_sequence",
           "local_ack_timeout_err", "link_down_events_phy", "carrier", "speed"]
NIC_FLT = ["phy_raw_ber", "module_temp_c", "rx_power_dbm", "tx_power_dbm"]
# model accumulators (per 10 s step, per port) and the field each feeds
ACC = ["rxb", "txb", "rxp", "txp", "rxm", "txm", "crc", "oerr", "idisc", "odisc", "unk", "pfc_rx", "pfc_tx",
       "ecn", "wd_storm", "wd_drop", "sym", "corr", "rdisc", "oob", "prx_dur", "ptx_dur", "stw", "ste",
       "cnp_sent", "ecn_rx", "cnp_h", "cnp_i", "oos", "lat"]
SW_SRC = {"ifHCInOctets": "rxb", "ifHCOutOctets": "txb", "ifHCInUcastPkts": "rxp", "ifHCOutUcastPkts": "txp",
          "ifHCInMulticastPkts": "rxm", "ifHCOutMulticastPkts": "txm", "ifInErrors": "crc",
          "ifOutErrors": "oerr", "ifInDiscards": "idisc", "ifOutDiscards": "odisc", "ifInUnknownProtos": "unk",
          "dot3StatsFCSErrors": "crc", "pfcRxPausePkts3": "pfc_rx", "pfcTxPausePkts3": "pfc_tx",
          "ecnMarkedPkts3": "ecn", "pfcWdStormDetected3": "wd_storm", "pfcWdDroppedPkts3": "wd_drop"}
NIC_SRC = {"rx_bytes_phy": "rxb", "tx_bytes_phy": "txb", "rx_packets_phy": "rxp", "tx_packets_phy": "txp",
           "rx_multicast_phy": "rxm", "rx_crc_errors_phy": "crc", "rx_symbol_err_phy": "sym",
           "rx_corrected_bits_phy": "corr", "rx_discards_phy": "rdisc", "rx_out_of_buffer": "oob",
           "rx_prio3_pause": "pfc_rx", "tx_prio3_pause": "pfc_tx", "rx_prio3_pause_duration": "prx_dur",
           "tx_prio3_pause_duration": "ptx_dur", "tx_pause_storm_warning_events": "stw",
           "tx_pause_storm_error_events": "ste", "np_cnp_sent": "cnp_sent", "np_ecn_marked_roce_packets": "ecn_rx",
           "rp_cnp_handled": "cnp_h", "rp_cnp_ignored": "cnp_i", "out_of_sequence": "oos",
           "local_ack_timeout_err": "lat"}
COUNTER32 = {"ifInErrors", "ifOutErrors", "ifInDiscards", "ifOutDiscards", "ifInUnknownProtos", "dot3StatsFCSErrors"}


# --------------------------------------------------------------------------------------------
# topology

def topology():
    P = []

    def add(**kw):
        d = dict(kind="sw", role="", peer=None, speed=400, cabled=True, module=True, leaf=-1, spine=-1, link=-1,
                 host=-1, stor=-1, rail=-1, cage=None, mib=True)
        d.update(kw)
        P.append(d)
        return len(P) - 1

    leaves = [f"leaf-rail{r}" for r in range(NR)]
    spines = [f"spine{s + 1:02d}" for s in range(NSP)]
    hosts = [f"gpu{h + 1:02d}" for h in range(NH)]
    stors = [f"stor{i + 1}" for i in range(NST)]
    for r in range(NR):
        for h in range(NH):
            add(device=leaves[r], port=f"Ethernet{h // 2 + 1}/{1 if h % 2 == 0 else 5}", role="leaf_down",
                leaf=r, host=h, rail=r, cage=(leaves[r], h // 2 + 1))
        add(device=leaves[r], port="Ethernet17/1", role="leaf_down", leaf=r, stor=r // 2, rail=r,
            cage=(leaves[r], 17))
        add(device=leaves[r], port="Ethernet17/5", role="leaf_down", leaf=r, rail=r, cabled=False,
            cage=(leaves[r], 17))
        for s in range(NSP):
            for m in range(2):
                c = 18 + 2 * s + m
                add(device=leaves[r], port=f"Ethernet{c}/1", role="leaf_up", leaf=r, spine=s, link=m, rail=r,
                    speed=800, cage=(leaves[r], c))
        for c in range(34, 41):
            add(device=leaves[r], port=f"Ethernet{c}/1", role="leaf_up", leaf=r, rail=r, speed=800,
                cabled=False, module=False)
    for s in range(NSP):
        for m in range(2):
            for L in range(NR):
                add(device=spines[s], port=f"Ethernet{3 + m}/{L + 1}/1", role="spine", leaf=L, spine=s, link=m,
                    rail=L, speed=800, cage=(spines[s], m, L))
            for x in (9, 10):
                add(device=spines[s], port=f"Ethernet{3 + m}/{x}/1", role="spine", spine=s, speed=800,
                    cabled=False, module=False)
    Ps = len(P)
    for h in range(NH):
        for r in range(NR):
            add(kind="nic", device=hosts[h], port=f"mlx5_{r}", role="host", host=h, rail=r)
    for i in range(NST):
        for k in range(2):
            add(kind="nic", device=stors[i], port=f"mlx5_{k}", role="host", stor=i, rail=2 * i + k)
    idx = {(p["device"], p["port"]): i for i, p in enumerate(P)}
    peer = np.full(len(P), -1)

    def link(a, b):
        peer[a], peer[b] = b, a

    for r in range(NR):
        for h in range(NH):
            link(idx[(leaves[r], f"Ethernet{h // 2 + 1}/{1 if h % 2 == 0 else 5}")], idx[(hosts[h], f"mlx5_{r}")])
        link(idx[(leaves[r], "Ethernet17/1")], idx[(stors[r // 2], f"mlx5_{r % 2}")])
        for s in range(NSP):
            for m in range(2):
                link(idx[(leaves[r], f"Ethernet{18 + 2 * s + m}/1")], idx[(spines[s], f"Ethernet{3 + m}/{r + 1}/1")])
    for i, p in enumerate(P):
        if peer[i] >= 0:
            p["peer_device"], p["peer_port"] = P[peer[i]]["device"], P[peer[i]]["port"]
    return P, Ps, peer, idx, leaves, spines, hosts, stors


# --------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="labelled RoCEv2 SNMP + ethtool fabric telemetry")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    wall = time.time()
    rng = np.random.default_rng(a.seed)

    P, Ps, peer, idx, leaves, spines, hosts, stors = topology()
    G = len(P)
    Pn = G - Ps
    K = DUR // DT
    tg = np.arange(K + 1) * float(DT)           # grid; step k covers (tg[k] - DT, tg[k]]
    tmid = tg - DT / 2
    train_until = int(0.3 * DUR)
    N_SW = DUR // SNMP_S
    N_H = DUR // DT
    ns = lambda t: int(T0 * 10**9 + round(t * 1e9))
    f30 = lambda t: int(t // 30) * 30
    c30 = lambda t: int(-(-t // 30)) * 30

    def ln(sig, shape):
        return rng.lognormal(-sig * sig / 2, sig, shape)

    def pois(x):
        x = np.maximum(np.nan_to_num(x), 0)
        return np.where(x < 1e7, rng.poisson(np.minimum(x, 1e7)), np.rint(x)).astype(float)

    def win(a, b):
        return (tmid >= a) & (tmid < b) & (tg > 0)

    def frac(a, b):
        hi = np.minimum(tg, b)
        lo = np.maximum(tg - DT, a)
        f = np.clip((hi - lo) / DT, 0.0, 1.0)
        f[0] = 0.0
        return f

    def m(x, jit=0.0):                          # story minute (+- jitter) -> seconds on the 30 s grid
        v = (x + (rng.uniform(-jit, jit) if jit else 0.0)) * 60
        return int(round(v / 30)) * 30

    kind = np.array([p["kind"] for p in P])
    role = np.array([p["role"] for p in P])
    cabled = np.array([p["cabled"] for p in P])
    module = np.array([p["module"] for p in P])
    pleaf = np.array([p["leaf"] for p in P])
    pspine = np.array([p["spine"] for p in P])
    phost = np.array([p["host"] for p in P])
    pstor = np.array([p["stor"] for p in P])
    prail = np.array([p["rail"] for p in P])
    plink = np.array([p["link"] for p in P])
    gbps = np.array([p["speed"] for p in P], float)
    nic = np.arange(Ps, G)
    nic_host = phost[nic]
    nic_stor = pstor[nic]
    nic_rail = prail[nic]
    leafport_of_nic = peer[nic]
    nics_on_leaf = [np.where(nic_rail == L)[0] for L in range(NR)]
    up_of_leaf = [np.where((role == "leaf_up") & cabled & (pleaf == L))[0] for L in range(NR)]
    sp_of_spine = [np.where((role == "spine") & cabled & (pspine == s))[0] for s in range(NSP)]
    sp_toward_leaf = [np.where((role == "spine") & cabled & (pleaf == L))[0] for L in range(NR)]
    all_up = np.concatenate(up_of_leaf)
    all_sp = np.concatenate(sp_of_spine)
    down_ports = np.where((role == "leaf_down") & cabled)[0]
    devs = list(dict.fromkeys(p["device"] for p in P))
    dev_ports = {d: np.array([i for i, p in enumerate(P) if p["device"] == d]) for d in devs}
    sw_devs = leaves + spines
    mib_spines = sorted(int(x) for x in rng.choice(NSP, 4, replace=False))
    for s in range(NSP):
        if s not in mib_spines:
            for i in dev_ports[spines[s]]:
                P[i]["mib"] = False
    pname = lambda i: {"device": P[i]["device"], "port": P[i]["port"]}
    hp = lambda h, r: idx[(hosts[h], f"mlx5_{r}")]          # NIC port of host h, rail r
    lp = lambda h, r: int(peer[hp(h, r)])                    # leaf port facing it

    # ---------------------------------------------------------------- story (minutes of 240)
    hostsA = sorted(int(x) for x in rng.choice(NH, 24, replace=False))
    hostsB = [h for h in range(NH) if h not in hostsA]
    a2a = [(m(40, 1), m(55, 1)), (m(122, 1), m(147, 1)), (m(203, 1), m(218, 1))]
    ck_starts = [m(30, 2), m(90, 2), max(m(151, 1), a2a[1][1] + 120), m(228, 1)]
    ckpt = [(s, s + 30 * int(rng.integers(7, 10))) for s in ck_starts]
    crashA = m(60, 1)
    restartA = crashA + 30 * int(rng.integers(10, 14))
    b_start, b_stop, b_inf = m(15, 2), m(92, 1), m(128, 1)

    t_storm = m(78, 1.5)
    t_storm_end = t_storm + 30 * int(rng.integers(16, 25))
    t_dirty = m(84, 2)
    t_heat = m(92, 2)
    t_heat_fix = m(205, 1)
    t_reload = m(100, 1) + int(rng.integers(3, 25))
    t_drv = m(112, 1) + int(rng.integers(2, 25))
    t_oob, t_oob_end = m(118, 2), m(200, 2)
    t_ecn, t_ecn_end = m(125, 1), m(165, 2)
    t_gap = m(135, 1) + int(rng.integers(1, 20))
    t_flap, t_flap_end = m(144, 2), m(164, 1)
    t_fix_ld = m(168, 2) + int(rng.integers(2, 25))
    t_half, t_half_end = m(172, 1.5) + int(rng.integers(2, 25)), m(222, 1.5) + int(rng.integers(2, 25))
    t_card, t_card_end = m(185, 2), m(225, 1.5) + int(rng.integers(2, 25))
    t_maint = m(190, 1) + int(rng.integers(2, 25))
    t_lossy = m(195, 1)

    used_hosts = set()

    def take(pool):
        c = [h for h in pool if h not in used_hosts]
        h = int(c[int(rng.integers(len(c)))])
        used_hosts.add(h)
        return h

    storm_h, storm_r = take(hostsA), int(rng.integers(NR))
    half_h = take(hostsA)
    half_r = int(rng.choice([r for r in range(NR) if r != storm_r]))
    oob_h = take(hostsA)
    flap_h = take(hostsB)
    flap_r = int(rng.integers(NR))
    drv_h = take(hostsB)
    maint_h = take(hostsB)
    maint_r = int(rng.choice([r for r in range(NR) if r != flap_r]))
    # heating module: a host-facing cage (two breakout ports, two hosts) whose hosts are not used above
    cages_ok = [c for c in range(16) if 2 * c not in used_hosts and 2 * c + 1 not in used_hosts]
    heat_c = int(cages_ok[int(rng.integers(len(cages_ok)))])
    used_hosts.update((2 * heat_c, 2 * heat_c + 1))
    heat_r = int(rng.choice([r for r in range(NR) if r not in (storm_r, half_r)]))
    ecn_L = int(rng.choice([r for r in range(NR) if r not in (storm_r, heat_r, half_r)]))
    s_lossy = int(rng.choice(mib_spines))
    s_card = int(rng.choice([s for s in range(NSP) if s not in mib_spines]))
    s_reload = int(rng.choice([s for s in range(NSP) if s not in (s_lossy, s_card)]))
    s_dirty = int(rng.choice([s for s in range(NSP) if s not in (s_reload, s_card, s_lossy)]))
    dirty_L = int(rng.choice([r for r in range(NR) if r != ecn_L]))
    ld_L = int(rng.choice([r for r in range(NR) if r not in (dirty_L,)]))
    lossy_L = int(rng.choice([r for r in range(NR) if r not in (ld_L, ecn_L)]))
    card_L0 = int(rng.integers(0, NR - 3))
    gap_L = int(rng.choice([r for r in range(NR) if r not in (ecn_L,)]))
    pol_L = int(rng.choice([r for r in range(NR) if r not in (dirty_L, ld_L, lossy_L)]))

    def up_port(L, s, mm):
        return idx[(leaves[L], f"Ethernet{18 + 2 * s + mm}/1")]

    def sp_port(s, L, mm):
        return idx[(spines[s], f"Ethernet{3 + mm}/{L + 1}/1")]

    p_storm, n_storm = lp(storm_h, storm_r), hp(storm_h, storm_r)
    p_half, n_half = lp(half_h, half_r), hp(half_h, half_r)
    p_flap, n_flap = lp(flap_h, flap_r), hp(flap_h, flap_r)
    p_maint, n_maint = lp(maint_h, maint_r), hp(maint_h, maint_r)
    p_heat = [lp(2 * heat_c, heat_r), lp(2 * heat_c + 1, heat_r)]
    n_heat = [hp(2 * heat_c, heat_r), hp(2 * heat_c + 1, heat_r)]
    dm = int(rng.integers(2))
    p_dirty = up_port(dirty_L, s_dirty, dm)
    ldm = int(rng.integers(2))
    q_ld, p_ld = sp_port(s_reload, ld_L, ldm), up_port(ld_L, s_reload, ldm)
    lm = int(rng.integers(2))
    q_lossy = sp_port(s_lossy, lossy_L, lm)
    q_card = [sp_port(s_card, L, 0) for L in range(card_L0, card_L0 + 4)]
    pol_ups = [up_port(pol_L, int(s), int(rng.integers(2))) for s in rng.choice(NSP, 2, replace=False)]

    # ---------------------------------------------------------------- link state events
    downs = [[] for _ in range(G)]      # (a, b): oper down at this end
    lasers = [[] for _ in range(G)]     # (a, b): this end's transmitter dark (the far end reads LOS)
    admin = [[] for _ in range(G)]
    speeds = [[] for _ in range(G)]     # (a, b, Mb/s) renegotiated speed
    upburst = np.zeros((K + 1, G))      # FCS/CRC burst size at link-up

    def link_down(i, a, b, dark=(), burst=1.2):
        for j in (i, int(peer[i])):
            if j < 0:
                continue
            downs[j].append((float(a), float(b)))
            if b < DUR:
                upburst[min(K, int(np.ceil(b / DT))), j] += burst
        for j in dark:
            lasers[j].append((float(a), float(b)))

    # spine reload (healthy): unreachable 150 s, every port down 2.5-3.3 min, counters from zero
    reload_ports = [int(i) for i in dev_ports[spines[s_reload]] if cabled[i]]
    reload_absent = (t_reload, t_reload + 150)
    reload_reset = t_reload + 90
    up_times = {}
    for q in reload_ports:
        a_q = t_reload + rng.uniform(0, 1.5)
        b_q = t_reload + 150 + rng.uniform(10, 45)
        if q == q_ld:
            b_q = t_fix_ld + rng.uniform(2, 8)          # left down until an operator bounces it
        up_times[q] = b_q
        link_down(q, a_q, b_q, dark=(q,), burst=2.0)
    ld_start = f30(max(v for q, v in up_times.items() if q != q_ld))
    ld_end = c30(up_times[q_ld])

    # NIC driver reload (healthy): exporter gap, links bounce, NIC counters from zero
    drv_gap = (t_drv, t_drv + 30 * int(rng.integers(1, 2)) + int(rng.integers(0, 6)))
    drv_reset = t_drv + 3
    for r in range(NR):
        n = hp(drv_h, r)
        a_ = t_drv + rng.uniform(0.5, 2.0)
        link_down(n, a_, a_ + rng.uniform(8, 14), dark=(n,))
    # planned admin-down of one host port (healthy maintenance)
    maint_end = t_maint + 1200
    admin[p_maint].append((float(t_maint), float(maint_end)))
    link_down(p_maint, t_maint + 0.3, maint_end + rng.uniform(3, 8), dark=(p_maint,))
    # half-speed retrain (fault)
    a_ = t_half + rng.uniform(1, 5)
    half_up = a_ + rng.uniform(8, 20)
    link_down(p_half, a_, half_up)
    half_up2 = t_half_end + rng.uniform(6, 12)
    link_down(p_half, t_half_end, half_up2)
    for j in (p_half, n_half):
        speeds[j].append((half_up, half_up2, 200000))
    # flapping host link (fault)
    flap_times = []
    for st in np.sort(rng.uniform(t_flap + 5, t_flap_end - 240, 3)):
        t = st
        for _ in range(int(rng.integers(3, 7))):
            d = rng.uniform(2, 20)
            link_down(p_flap, t, t + d, burst=3.0)
            flap_times.append((t, t + d))
            t += d + rng.uniform(8, 60)
    flap_start, flap_end = f30(flap_times[0][0]), c30(flap_times[-1][1])
    # heating module replaced (end of that fault)
    heat_up = t_heat_fix + rng.uniform(180, 240)
    for i in p_heat:
        link_down(i, t_heat_fix, heat_up, dark=(i,))
    heat_end = c30(heat_up)
    # bad line card power-cycled (end of that fault)
    card_ups = []
    for q in q_card:
        u_ = t_card_end + rng.uniform(150, 200)
        card_ups.append(u_)
        link_down(q, t_card_end + rng.uniform(0, 1), u_, dark=(q,), burst=2.0)
    card_end = c30(max(card_ups))

    df = np.zeros((K + 1, G))
    for i in range(G):
        for a_, b_ in downs[i]:
            df[:, i] += frac(a_, b_)
    upf = 1.0 - np.clip(df, 0, 1)

    # ---------------------------------------------------------------- workload (NIC utilisation)
    utx = np.zeros((K + 1, Pn))
    urx = np.zeros((K + 1, Pn))
    ctx = np.full((K + 1, Pn), 0.05)
    crx = np.full((K + 1, Pn), 0.05)
    brx = np.full((K + 1, Pn), 0.1)
    a2a_m = np.zeros(K + 1, bool)
    for x, y in a2a:
        a2a_m |= win(x, y)
    ck_m = np.zeros(K + 1, bool)
    for x, y in ckpt:
        ck_m |= win(x, y)
    cA = np.isin(nic_host, hostsA)
    cB = np.isin(nic_host, hostsB)
    cS = nic_stor >= 0
    nA, nB, nS = int(cA.sum()), int(cB.sum()), int(cS.sum())
    hostfac = ln(0.04, NH)[nic_host]
    # job A: 24 hosts, data-parallel training (rail-local rings), MoE all-to-all phases, checkpoints
    lvl = 0.58 * (1 + 0.1 * np.sin(2 * np.pi * tg / 1800 + rng.uniform(0, 6.3))) * ln(0.06, K + 1)
    uA = lvl[:, None] * ln(0.05, (K + 1, nA)) * hostfac[cA]
    cxA = np.full((K + 1, nA), 0.04)
    bA = np.full((K + 1, nA), 0.25)
    am = a2a_m
    uA[am] = rng.uniform(0.78, 0.9, (int(am.sum()), 1)) * ln(0.04, (int(am.sum()), nA))
    cxA[am], bA[am] = 0.55, 2.5
    rxA = uA * ln(0.02, uA.shape)
    ck_tx = NST * 2 * 0.96 / nA
    uA[ck_m] = ck_tx * ln(0.03, (int(ck_m.sum()), nA))
    rxA[ck_m] = 0.004 * ln(0.2, (int(ck_m.sum()), nA))
    cxA[ck_m], bA[ck_m] = 7 / 8, 0.1
    idle = win(crashA, restartA)
    warm = win(restartA, restartA + 120)
    stall = win(t_storm + 20, t_storm_end + 20)
    warm2 = win(t_storm_end + 20, t_storm_end + 110)
    slow = win(half_up, half_up2)
    for msk, lv in ((idle, 0.002), (warm, 0.15), (stall, 0.012), (warm2, 0.18)):
        uA[msk] = lv * ln(0.3, (int(msk.sum()), nA))
        rxA[msk] = lv * ln(0.3, (int(msk.sum()), nA))
        cxA[msk], bA[msk] = 0.05, 0.1
    uA[slow] *= 0.58
    rxA[slow] *= 0.58
    utx[:, cA], urx[:, cA], ctx[:, cA], crx[:, cA], brx[:, cA] = uA, rxA, cxA, cxA, bA
    # job B: 8 hosts, a fine-tune until b_stop, idle, then bursty inference serving
    uB = np.full((K + 1, nB), 0.0)
    bB = np.full((K + 1, nB), 0.1)
    cxB = np.full((K + 1, nB), 0.05)
    tr_ = win(b_start, b_stop)
    uB[tr_] = 0.36 * ln(0.08, (int(tr_.sum()), 1)) * ln(0.05, (int(tr_.sum()), nB))
    bB[tr_], cxB[tr_] = 0.25, 0.08
    inf_ = win(b_inf, DUR + 1)
    uB[inf_] = 0.12 * ln(0.3, (int(inf_.sum()), nB))
    bB[inf_], cxB[inf_] = 1.0, 0.3
    rxB = uB * np.where(inf_[:, None], ln(0.2, uB.shape), ln(0.02, uB.shape))
    utx[:, cB], urx[:, cB], ctx[:, cB], crx[:, cB], brx[:, cB] = uB, rxB, cxB, cxB, bB
    # background (health checks, monitoring, data loading) on every GPU NIC
    gpu = ~cS
    utx[:, gpu] += 0.0015 * ln(0.3, (K + 1, int(gpu.sum())))
    urx[:, gpu] += 0.0015 * ln(0.3, (K + 1, int(gpu.sum())))
    # storage NICs: checkpoint sink (rail-striped: 7/8 of it crosses the spines), data loading source
    trainingA = ~(idle | stall | ck_m)
    urx[:, cS] = np.where(ck_m[:, None], np.minimum(0.985, 0.965 * ln(0.01, (K + 1, nS))),
                          0.003 * ln(0.3, (K + 1, nS)))
    utx[:, cS] = np.where(trainingA[:, None], 0.03, 0.004) * ln(0.3, (K + 1, nS))
    crx[:, cS] = np.where(ck_m[:, None], 7 / 8, 0.3)
    ctx[:, cS] = 7 / 8
    brx[:, cS] = np.where(ck_m[:, None], 6.0, 0.2)
    # fault effects on the workload
    ns_ = n_storm - Ps
    sm = win(t_storm, t_storm_end)
    urx[sm, ns_], utx[sm, ns_] = 0.0008, 0.001
    nh_ = n_half - Ps
    hs = win(half_up, half_up2)
    utx[hs, nh_] = np.minimum(utx[hs, nh_], 0.47 * ln(0.01, int(hs.sum())))
    urx[hs, nh_] = np.minimum(urx[hs, nh_], 0.47 * ln(0.01, int(hs.sum())))
    brx[hs, nh_] = 3.0
    utx = np.clip(utx, 0, 0.985)
    urx = np.clip(urx, 0, 0.985)

    # ---------------------------------------------------------------- bytes and packets
    A = {k: np.zeros((K + 1, G)) for k in ACC}

    def pkts(b, cap):
        x = np.clip(b / cap, 0, 1)
        size = (300 + 3880 * x / (x + 0.03)) * ln(0.015, b.shape)
        return b / size

    nbt = utx * B400 * upf[:, nic]
    nbr = urx * B400 * upf[:, nic]
    npt, npr = pkts(nbt, B400), pkts(nbr, B400)
    A["txb"][:, nic], A["rxb"][:, nic] = nbt, nbr
    A["txp"][:, nic], A["rxp"][:, nic] = npt, npr
    for k_ in ("rxb", "txb", "rxp", "txp"):
        A[k_][:, leafport_of_nic] = A[{"rxb": "txb", "txb": "rxb", "rxp": "txp", "txp": "rxp"}[k_]][:, nic]
    xo = nbt * ctx
    xi = nbr * crx
    w0 = np.ones(G)
    w0[all_up] = rng.normal(1, 0.05, all_up.size)
    w0[pol_ups] *= 1.5                               # ECMP polarisation (healthy, all run)
    for L in range(NR):
        u_ = up_of_leaf[L]
        cross_out = xo[:, nics_on_leaf[L]].sum(1)
        cross_in = xi[:, nics_on_leaf[L]].sum(1)
        wo = w0[u_] * ln(0.03, (K + 1, u_.size)) * upf[:, u_]
        wi = w0[u_] * ln(0.03, (K + 1, u_.size)) * upf[:, u_]
        wo /= np.maximum(wo.sum(1, keepdims=True), 1e-9)
        wi /= np.maximum(wi.sum(1, keepdims=True), 1e-9)
        A["txb"][:, u_] = np.minimum(cross_out[:, None] * wo, 0.98 * 2 * B400)
        A["rxb"][:, u_] = np.minimum(cross_in[:, None] * wi, 0.98 * 2 * B400)
    A["txp"][:, all_up] = pkts(A["txb"][:, all_up], 2 * B400)
    A["rxp"][:, all_up] = pkts(A["rxb"][:, all_up], 2 * B400)
    for k_, o in (("rxb", "txb"), ("txb", "rxb"), ("rxp", "txp"), ("txp", "rxp")):
        A[k_][:, peer[all_up]] = A[o][:, all_up]
    # multicast trickle (LLDP, ND): switch side generated, the NIC sees the leaf's
    live = upf * (cabled | (kind == "nic"))
    A["rxm"] = pois(rng.uniform(0.05, 0.6, G) * DT * live)
    A["txm"] = pois(rng.uniform(0.05, 0.6, G) * DT * live)
    A["rxm"][:, nic] = A["txm"][:, leafport_of_nic]

    # ---------------------------------------------------------------- congestion: ECN, PFC
    cap = np.where(gbps == 800, 2 * B400, B400)
    capk = np.broadcast_to(cap, (K + 1, G)).copy()
    capk[hs, p_half] = B400 / 2
    uo = A["txb"] / capk
    pe = np.zeros((K + 1, G))
    pe[:, leafport_of_nic] = brx * (uo[:, leafport_of_nic] / 0.9) ** 3
    bup = 1 + 1.5 * a2a_m
    bsp = 1 + 2.0 * a2a_m + 1.0 * ck_m
    pe[:, all_up] = bup[:, None] * (uo[:, all_up] / 0.9) ** 3
    pe[:, all_sp] = bsp[:, None] * (uo[:, all_sp] / 0.9) ** 3
    pe *= ln(0.35, pe.shape)
    pe[sm, p_storm] = 0.0                               # the PFC watchdog drops instead of queueing
    ecn_on = np.ones((K + 1, G), bool)
    ecn_off_m = win(t_ecn, t_ecn_end)
    ecn_on[np.ix_(ecn_off_m, dev_ports[leaves[ecn_L]])] = False
    pe_eff = np.where(ecn_on, pe, pe * PHI)
    A["ecn"] = pois(A["txp"] * np.clip(KAPPA * pe, 0, 0.2) * ecn_on * (kind == "sw") * cabled)

    def pdest(ports, pe_):
        w = A["txb"][:, ports]
        return (w * pe_[:, ports]).sum(1) / np.maximum(w.sum(1), 1.0)

    leafP = np.stack([pdest(dev_ports[leaves[L]], pe_eff) for L in range(NR)], 1)
    pe_sp = pe_eff.copy()
    for L in range(NR):
        pe_sp[:, sp_toward_leaf[L]] += ETA * leafP[:, L:L + 1]
    spineP = np.stack([pdest(sp_of_spine[s], pe_sp) for s in range(NSP)], 1)
    for L in range(NR):
        tot_in = A["rxb"][:, dev_ports[leaves[L]]].sum(1)
        xshare = A["txb"][:, up_of_leaf[L]].sum(1) / np.maximum(tot_in, 1.0)
        leafP[:, L] += ETA * np.clip(xshare, 0, 1) * spineP.mean(1)
    storm_first = win(t_storm, t_storm + 30)
    leafP[storm_first, storm_r] += 8.0                 # the stuck queue fills before the watchdog fires
    devP = np.zeros((K + 1, G))
    for L in range(NR):
        devP[:, dev_ports[leaves[L]]] = leafP[:, L:L + 1]
    for s in range(NSP):
        devP[:, dev_ports[spines[s]]] = spineP[:, s:s + 1]
    swin = (kind == "sw") & cabled
    pfc_sw = BETA * A["rxp"] * devP ** 2 * ln(0.4, (K + 1, G)) * swin
    lossy_m = win(t_lossy, DUR + 1)
    lossy_drop = pois(DLOSS * A["rxp"][:, q_lossy] * devP[:, q_lossy] ** 2 * lossy_m)
    pfc_sw[lossy_m, q_lossy] = 0.0
    A["idisc"][:, q_lossy] += lossy_drop
    A["pfc_tx"] = pois(pfc_sw)
    # NIC-originated pauses: two bounded slow receivers (healthy) and the stuck NIC (fault)
    slow_rx = []
    for _ in range(2):
        h = int(rng.choice([x for x in hostsA if x not in used_hosts]))
        used_hosts.add(h)
        r = int(rng.integers(NR))
        n = hp(h, r)
        slow_rx.append(n)
        lvl_ = rng.uniform(8, 40)
        A["pfc_tx"][:, n] += pois(lvl_ * DT * (urx[:, n - Ps] / 0.5) ** 2 * ln(0.6, K + 1))
    fs = frac(t_storm, t_storm_end)
    A["pfc_tx"][:, n_storm] += np.rint(fs * rng.uniform(25000, 45000) * DT * ln(0.05, K + 1))
    A["stw"][:, n_storm] += pois(fs * 0.3 * DT)
    wd_m = fs * (1 - frac(t_storm, t_storm + 2))
    A["wd_storm"][:, p_storm] += pois(wd_m * 0.4 * DT)
    A["wd_drop"][:, p_storm] += pois(wd_m * rng.uniform(4000, 12000) * DT * ln(0.3, K + 1))
    A["odisc"][:, p_storm] += A["wd_drop"][:, p_storm]
    # pauses: received by the far end of each link
    sw_c = np.where((kind == "sw") & cabled)[0]
    A["pfc_rx"][:, sw_c] = A["pfc_tx"][:, peer[sw_c]]
    A["pfc_rx"][:, nic] = A["pfc_tx"][:, leafport_of_nic]
    A["prx_dur"][:, nic] = np.minimum(A["pfc_rx"][:, nic] * rng.uniform(3, 10, Pn), 0.985e7)
    A["ptx_dur"][:, nic] = np.minimum(A["pfc_tx"][:, nic] * rng.uniform(3, 10, Pn), 0.985e7)
    A["ptx_dur"][:, n_storm] = np.maximum(A["ptx_dur"][:, n_storm], np.rint(fs * 0.985e7 * ln(0.01, K + 1)))

    # DCQCN: marked packets reach the receiver NIC, which sends CNPs back to the senders
    ecn_rx = A["ecn"][:, leafport_of_nic].copy()
    loc_part = ecn_rx.copy()
    xr = nbr * crx
    for L in range(NR):
        nl = nics_on_leaf[L]
        tot = np.maximum(xr[:, nl].sum(1, keepdims=True), 1.0)
        ecn_rx[:, nl] += A["ecn"][:, sp_toward_leaf[L]].sum(1, keepdims=True) * xr[:, nl] / tot
    ecn_rx += A["ecn"][:, all_up].sum(1, keepdims=True) * xr / np.maximum(xr.sum(1, keepdims=True), 1.0)
    ecn_rx = pois(ecn_rx)
    ratio = 0.8 / (1 + ecn_rx / DT / 3e4)
    cnp = pois(ecn_rx * ratio)
    cnp_loc = cnp * np.clip(loc_part / np.maximum(ecn_rx, 1.0), 0, 1)
    cnp_x = cnp - cnp_loc
    lt = nbt * (1 - ctx)
    xt = nbt * ctx
    cnp_h = np.zeros((K + 1, Pn))
    for L in range(NR):
        nl = nics_on_leaf[L]
        cnp_h[:, nl] += cnp_loc[:, nl].sum(1, keepdims=True) * lt[:, nl] / np.maximum(lt[:, nl].sum(1, keepdims=True), 1.0)
    cnp_h += cnp_x.sum(1, keepdims=True) * xt / np.maximum(xt.sum(1, keepdims=True), 1.0)
    cnp_h = pois(cnp_h)
    A["ecn_rx"][:, nic], A["cnp_sent"][:, nic], A["cnp_h"][:, nic] = ecn_rx, cnp, cnp_h
    A["cnp_i"][:, nic] = pois(cnp_h * 0.002)

    # ---------------------------------------------------------------- errors, drops, DOM
    corrupt = np.zeros((K + 1, G))                  # fraction of received frames with a bad FCS
    # dirty optic on a leaf uplink (receive side): abrupt loss on two lanes, errors growing
    xd = np.clip((tg - t_dirty) / max(DUR - t_dirty, 1), 0, 1)
    dm_ = tg > t_dirty
    corrupt[:, p_dirty] += dm_ * 3e-7 * (5e-6 / 3e-7) ** xd * ln(0.2, K + 1)
    # heating module: temperature ramp, then errors at the NICs it transmits to (and a little on its rx)
    hmin = (tg - t_heat) / 60
    heat_dT = np.where(hmin < 0, 0.0, np.where(hmin < 60, 0.4 * hmin, 24 + 0.06 * (hmin - 60)))
    heat_dT[tg >= t_heat_fix] = 0.0
    heat_err = 2e-9 * 10 ** (np.clip(heat_dT - 23, 0, None) / 1.5) * (heat_dT > 23)
    for n in n_heat:
        corrupt[:, n] += heat_err * ln(0.25, K + 1) * rng.uniform(0.6, 1.5)
    for i in p_heat:
        corrupt[:, i] += 0.15 * heat_err * ln(0.3, K + 1)
    heat_first_err = float(tg[np.argmax(heat_err > 0)]) if (heat_err > 0).any() else None
    # bad spine line card: several consecutive ports corrupt together (rx), their far ends a little
    cm = win(t_card, t_card_end)
    cc = cm * 10 ** np.linspace(-6.2, -5.5, K + 1) * ln(0.45, K + 1)
    for q in q_card:
        corrupt[:, q] += cc * rng.uniform(0.6, 1.5)
        corrupt[:, peer[q]] += 0.35 * cc * rng.uniform(0.6, 1.5)
        A["oerr"][:, q] += pois(cc * 0.05 * A["txp"][:, q])
    # flapping link: a marginal cable, a few errors between flaps too
    fm = win(flap_start, flap_end)
    corrupt[:, n_flap] += fm * 2e-8
    corrupt[:, p_flap] += fm * 2e-8
    A["crc"] = pois(corrupt * A["rxp"]) + pois(upburst)
    # sporadic single errors on a few healthy links (background)
    fault_ports = {p_storm, n_storm, p_half, n_half, p_flap, n_flap, p_dirty, int(peer[p_dirty]), q_ld, p_ld,
                   q_lossy, int(peer[q_lossy]), *p_heat, *n_heat, *q_card, *[int(peer[q]) for q in q_card],
                   p_maint, n_maint, *[hp(oob_h, r) for r in range(NR)], *[lp(oob_h, r) for r in range(NR)]}
    cand = [i for i in range(G) if (cabled[i] and i not in fault_ports and
                                    not (kind[i] == "nic" and nic_host[i - Ps] in (drv_h,)))]
    sporadic = [int(i) for i in rng.choice(cand, 6, replace=False)]
    for i in sporadic:
        rate = rng.uniform(0.6, 3.0) / 3600
        A["crc"][:, i] += (rng.random(K + 1) < rate * DT) * upf[:, i]
    # symbol errors (uncorrectable FEC) and corrected bits on NICs
    A["sym"][:, nic] = pois(A["crc"][:, nic] * rng.uniform(1.2, 2.5, Pn) + 8 * upburst[:, nic])
    ber_base = 10 ** rng.uniform(-9.0, -6.9, Pn)
    ber = ber_base * ln(0.12, (K + 1, Pn))
    for n in n_heat:
        ber[:, n - Ps] *= 10 ** (np.clip(heat_dT - 16, 0, None) / 5)
    ber[:, n_flap - Ps] *= np.where(fm, 12.0, 1.0)
    A["corr"][:, nic] = pois(ber * 425e9 * DT * upf[:, nic])
    # ingress discards (control plane), unknown protocols: steady trickles since the start (background)
    ctrl = np.array([i for i in np.where(swin & (rng.random(G) < 0.3))[0] if i not in fault_ports])
    A["idisc"][:, ctrl] += pois(rng.uniform(0.01, 0.3, ctrl.size) * DT * upf[:, ctrl])
    unkp = np.where(swin & (role == "leaf_down") & (rng.random(G) < 0.4))[0]
    A["unk"][:, unkp] += pois(rng.uniform(0.005, 0.05, unkp.size) * DT * upf[:, unkp])
    # rx_out_of_buffer: a slow host (fault) and short bursts at job starts on a few hosts (healthy)
    om = win(t_oob, t_oob_end)
    xo_ = np.clip((tg - t_oob) / (t_oob_end - t_oob), 0, 1)
    for r in range(NR):
        n = hp(oob_h, r) - Ps
        rate = om * (3 + 900 * xo_ ** 1.5 * rng.uniform(0.5, 1.5)) * np.clip(urx[:, n] / 0.4, 0.05, 1.5)
        A["oob"][:, n + Ps] = pois(rate * DT * ln(0.3, K + 1))
    oob_bursts = []
    for t_ev, pool in ((b_start, hostsB), (restartA, hostsA), (b_inf, hostsB)):
        h = int(rng.choice([x for x in pool if x not in used_hosts]))
        k0 = int(np.ceil((t_ev + rng.uniform(20, 90)) / DT))
        for r in range(NR):
            A["oob"][k0:k0 + 2, hp(h, r)] += pois(np.full(2, rng.uniform(50, 600)))
        oob_bursts.append((h, t_ev))
    # out-of-sequence (go-back-N retransmits) at the receivers of dropped frames
    oos = pois(np.full((K + 1, Pn), 0.003 * DT)) + A["crc"][:, nic]
    xr_tot = np.maximum(xr.sum(1, keepdims=True), 1.0)
    for L in range(NR):
        nl = nics_on_leaf[L]
        drops_L = A["crc"][:, up_of_leaf[L]].sum(1) + A["crc"][:, leafport_of_nic[nl]].sum(1)
        oos[:, nl] += drops_L[:, None] * xr[:, nl] / np.maximum(xr[:, nl].sum(1, keepdims=True), 1.0)
    g_drops = A["crc"][:, all_sp].sum(1) + A["idisc"][:, q_lossy] + A["wd_drop"][:, p_storm] * 0.001
    oos += g_drops[:, None] * xr / xr_tot
    A["oos"][:, nic] = pois(oos)
    # local ACK timeouts: senders toward the stuck NIC, QPs of links that went down
    lat = np.zeros((K + 1, Pn))
    lat[:, (nic_rail == storm_r) & cA] += pois(np.outer(fs, np.full(nA // 8, 0.05 * DT)))
    for i in range(Ps, G):
        for a_, b_ in downs[i]:
            k_ = min(K, int(np.ceil(a_ / DT)))
            lat[k_, i - Ps] += rng.poisson(3) if urx[max(k_ - 1, 0), i - Ps] > 0.01 else 0
    A["lat"][:, nic] = lat
    A["rdisc"][:, nic] = pois(np.where(ck_m[:, None] & cS[None, :], 2.0, 0.0) * DT)

    # DOM: per-cage temperature (breakout ports share a module), per-end optical power
    cage_ids = {}
    cage_of = np.full(G, -1)
    for i in range(Ps):
        if P[i]["module"]:
            cage_of[i] = cage_ids.setdefault(P[i]["cage"], len(cage_ids))
    nC = len(cage_ids)
    dev_of_cage = np.zeros(nC, int)
    for i in range(Ps):
        if cage_of[i] >= 0:
            dev_of_cage[cage_of[i]] = sw_devs.index(P[i]["device"])
    dev_util = np.stack([uo[:, [i for i in dev_ports[d] if cabled[i]]].mean(1) for d in sw_devs], 1)
    cbase = rng.uniform(42, 56, nC)
    temp_c = (cbase + 6.0 * dev_util[:, dev_of_cage]
              + rng.uniform(0.3, 1.0, nC) * np.sin(2 * np.pi * tg[:, None] / rng.uniform(2400, 7200, nC)
                                                    + rng.uniform(0, 6.3, nC))
              + rng.normal(0, 0.12, (K + 1, nC)))
    hc = cage_of[p_heat[0]]
    temp_c[:, hc] += heat_dT
    txpow = np.tile(rng.uniform(-0.3, 2.0, G), (K + 1, 1)) + rng.normal(0, 0.02, (K + 1, G))
    for i in p_heat:
        txpow[:, i] -= 0.08 * np.clip(heat_dT - 10, 0, None)
    loss = rng.uniform(0.3, 1.6, G)
    loss[peer[peer >= 0]] = loss[peer >= 0]
    rxpow = np.full((K + 1, G), -40.0)
    hasp = peer >= 0
    rxpow[:, hasp] = txpow[:, peer[hasp]] - loss[hasp] + rng.normal(0, 0.03, (K + 1, int(hasp.sum())))
    spread = rng.uniform(0.2, 0.8, G)
    rxmin = rxpow - spread - np.abs(rng.normal(0, 0.05, (K + 1, G)))
    rxpow[:, p_dirty] -= dm_ * (0.9 + 0.5 * xd)
    rxmin[:, p_dirty] -= dm_ * (3.2 + 1.0 * xd)
    bias = np.tile(rng.uniform(6.0, 9.5, G), (K + 1, 1)) + rng.normal(0, 0.03, (K + 1, G))
    for i in p_heat:
        bias[:, i] += 0.12 * heat_dT
    ntemp = (rng.uniform(38, 50, Pn) + 5 * urx + rng.uniform(0.2, 0.6, Pn) *
             np.sin(2 * np.pi * tg[:, None] / rng.uniform(3000, 9000, Pn) + rng.uniform(0, 6.3, Pn))
             + rng.normal(0, 0.1, (K + 1, Pn)))

    # ---------------------------------------------------------------- polls
    sw_off = rng.uniform(0.8, 6.0, len(sw_devs))
    sw_t = np.arange(N_SW)[None, :] * float(SNMP_S) + sw_off[:, None] + np.clip(
        rng.normal(0, 0.12, (len(sw_devs), N_SW)), -0.4, 0.4)
    late = rng.random(sw_t.shape) < 0.004
    sw_t[late] += rng.uniform(1.5, 9.0, int(late.sum()))
    sw_present = rng.random(sw_t.shape) >= 0.0025
    hdevs = hosts + stors
    h_off = rng.uniform(0.1, 3.0, len(hdevs))
    h_t = np.arange(N_H)[None, :] * float(DT) + h_off[:, None] + np.clip(
        rng.normal(0, 0.03, (len(hdevs), N_H)), -0.1, 0.1)
    late = rng.random(h_t.shape) < 0.002
    h_t[late] += rng.uniform(0.5, 4.0, int(late.sum()))
    h_present = rng.random(h_t.shape) >= 0.0015
    d_rl = sw_devs.index(spines[s_reload])
    sw_present[d_rl] &= ~((sw_t[d_rl] > reload_absent[0]) & (sw_t[d_rl] <= reload_absent[1]))
    d_gap = sw_devs.index(leaves[gap_L])
    sw_present[d_gap] &= ~((sw_t[d_gap] > t_gap) & (sw_t[d_gap] <= t_gap + 240))
    h_present[drv_h] &= ~((h_t[drv_h] > drv_gap[0]) & (h_t[drv_h] <= drv_gap[1]))
    sw_t = np.round(sw_t, 6)
    h_t = np.round(h_t, 6)

    # cumulative counters on the grid (in place: A[k] becomes the cumulative series)
    for k_ in ACC:
        A[k_][0] = 0
        np.cumsum(A[k_], axis=0, out=A[k_])

    def at(name, t, cols):
        k = np.minimum((t // DT).astype(np.int64), K - 1)
        f = ((t - k * DT) / DT)[:, None]
        c0 = A[name][np.ix_(k, cols)]
        c1 = A[name][np.ix_(k + 1, cols)]
        return np.floor(c0 + f * (c1 - c0)).astype(np.int64)

    def gauge_k(t):
        return np.minimum((t // DT).astype(np.int64), K)

    def in_ivs(ivs, t):
        msk = np.zeros(t.shape, bool)
        for a_, b_ in ivs:
            msk |= (t >= a_) & (t < b_)
        return msk

    def init_all(cols, is_nic):
        v = {f: init(f, cols, is_nic) for f in ACC}
        n = len(cols)
        u = lambda lo, hi: rng.uniform(lo, hi, n)
        v["rxp"] = (v["rxb"] / u(2800, 4000)).astype(np.int64)
        v["txp"] = (v["txb"] / u(2800, 4000)).astype(np.int64)
        v["sym"] = (v["crc"] * u(1.2, 3.0)).astype(np.int64) + v["sym"] // 3
        v["prx_dur"] = (v["pfc_rx"] * u(3, 10)).astype(np.int64)
        v["ptx_dur"] = (v["pfc_tx"] * u(3, 10)).astype(np.int64)
        v["cnp_sent"] = (v["ecn_rx"] * u(0.2, 0.8)).astype(np.int64)
        v["cnp_i"] = (v["cnp_h"] * u(0.0005, 0.003)).astype(np.int64)
        v["wd_drop"] = np.where(v["wd_storm"] > 0, v["wd_drop"], 0)
        v["odisc"] = v["odisc"] + v["wd_drop"]
        v["_ierr"] = v["crc"] + np.where(rng.random(n) < 0.8, 0, rng.integers(1, 40, n)) * (cabled[cols] | is_nic)
        return v

    def init(field, cols, is_nic):
        n = len(cols)
        cab = cabled[cols] | is_nic
        geo = lambda p_, pz: np.where(rng.random(n) < pz, 0, rng.geometric(p_, n))
        if field in ("rxb", "txb"):
            v = 10 ** (rng.uniform(13.5, 16.0, n) if is_nic else rng.uniform(15.0, 17.3, n))
        elif field in ("rxp", "txp"):
            v = 10 ** (rng.uniform(13.5, 16.0, n) if is_nic else rng.uniform(15.0, 17.3, n)) / rng.uniform(2800, 4000, n)
        elif field in ("rxm", "txm"):
            v = 10 ** rng.uniform(4.5, 6.8, n)
        elif field in ("crc", "sym"):
            v = geo(0.01, 0.7) * (3 if field == "sym" else 1)
        elif field == "corr":
            v = 10 ** rng.uniform(11, 14.5, n)
        elif field in ("idisc", "odisc", "rdisc", "oob"):
            v = geo(0.002, 0.6)
        elif field == "unk":
            v = geo(0.0005, 0.6)
        elif field in ("pfc_rx", "pfc_tx"):
            v = 10 ** rng.uniform(3, 8, n)
        elif field in ("prx_dur", "ptx_dur"):
            v = 10 ** rng.uniform(4, 9, n)
        elif field in ("ecn", "ecn_rx", "cnp_sent", "cnp_h"):
            v = 10 ** rng.uniform(5, 10, n)
        elif field in ("oos", "cnp_i"):
            v = 10 ** rng.uniform(1, 4.5, n)
        elif field in ("wd_storm", "stw", "lat"):
            v = geo(0.3, 0.85)
        elif field == "wd_drop":
            v = geo(1e-4, 0.85)
        else:
            v = np.zeros(n)
        return (np.asarray(v, float) * cab).astype(np.int64)

    # boot times, sysUpTime and ifLastChange defaults
    boot = {d: -rng.uniform(20, 200) * 86400 for d in sw_devs}
    lc_default = {}
    for i in range(Ps):
        d = P[i]["device"]
        if not cabled[i]:
            lc_default[i] = 0
        elif rng.random() < 0.25:
            lc_default[i] = int(rng.uniform(0.1, 0.9) * -boot[d] * 100)
        else:
            lc_default[i] = int(rng.uniform(60, 200) * 100)

    groups = {}          # device -> list of (templates, I, F, S) for its port classes
    lines_per_dev = {}
    esc = lambda s: s.replace(",", r"\,").replace(" ", r"\ ").replace("=", r"\=")

    def tagstr(i):
        p = P[i]
        s = (f"port_counters,device={esc(p['device'])},port={esc(p['port'])},fabric=roce,role={p['role']}")
        if peer[i] >= 0:
            s += f",peer_device={esc(p['peer_device'])},peer_port={esc(p['peer_port'])}"
        return s + f",speed={int(p['speed'])}G "

    # --- switches
    for di, d in enumerate(sw_devs):
        t = sw_t[di]
        cols = dev_ports[d]
        nP = len(cols)
        reset = d == spines[s_reload]
        vals = {}
        I0 = init_all(cols, False)
        for f in SW_INT:
            if f in SW_SRC:
                src = SW_SRC[f]
                v = at(src, t, cols)
                c0 = I0["_ierr"] if f == "ifInErrors" else I0[src]
                if reset:
                    aft = t > reload_reset
                    base = at(src, np.array([reload_reset]), cols)[0]
                    v = np.where(aft[:, None], v - base[None, :], v + c0[None, :])
                else:
                    v = v + c0[None, :]
                if f in COUNTER32:
                    v %= C32
                vals[f] = v
        # gauges
        oper = np.ones((len(t), nP), np.int64)
        adm = np.ones((len(t), nP), np.int64)
        hspd = np.tile((gbps[cols] * 1000).astype(np.int64), (len(t), 1))
        lch = np.zeros((len(t), nP), np.int64)
        bt = np.full(len(t), boot[d])
        if reset:
            bt[t > reload_reset] = reload_reset
        for j, i in enumerate(cols):
            if not cabled[i]:
                oper[:, j] = 2 if module[i] else 6
                adm[:, j] = 2 if module[i] else 1
                lch[:, j] = 0
                continue
            oper[in_ivs(downs[i], t), j] = 2
            adm[in_ivs(admin[i], t), j] = 2
            for a_, b_, sp in speeds[i]:
                hspd[(t >= a_) & (t < b_), j] = sp
            ch = np.sort(np.array([x for iv in downs[i] for x in iv[:2]] + [x for iv in admin[i] for x in iv], float))
            last = np.full(len(t), -np.inf)
            if ch.size:
                pos = np.searchsorted(ch, t, "right") - 1
                last = np.where(pos >= 0, ch[np.maximum(pos, 0)], -np.inf)
            after_boot = last >= bt
            since = ((np.where(np.isfinite(last), last, bt) - bt) * 100).astype(np.int64)
            lch[:, j] = np.where(after_boot, since, np.where(bt == boot[d], lc_default[i], 0))
        lch %= C32
        vals["ifOperStatus"], vals["ifAdminStatus"], vals["ifHighSpeed"], vals["ifLastChange"] = oper, adm, hspd, lch
        # DOM
        kk = gauge_k(t)
        F = np.zeros((len(t), nP, len(SW_FLT)))
        cg = np.maximum(cage_of[cols], 0)
        F[:, :, 0] = temp_c[kk][:, cg]
        F[:, :, 1] = rxpow[np.ix_(kk, cols)]
        F[:, :, 2] = rxmin[np.ix_(kk, cols)]
        F[:, :, 3] = txpow[np.ix_(kk, cols)]
        F[:, :, 4] = bias[np.ix_(kk, cols)]
        for j, i in enumerate(cols):
            if peer[i] >= 0 and lasers[peer[i]]:
                dark = in_ivs(lasers[peer[i]], t)
                F[dark, j, 1] = -40.0
                F[dark, j, 2] = -40.0
            if lasers[i]:
                F[in_ivs(lasers[i], t), j, 3] = -40.0
            if not cabled[i]:
                F[:, j, 1] = -40.0
                F[:, j, 2] = -40.0
        # port classes
        cls = {}
        for j, i in enumerate(cols):
            key = (bool(module[i]), bool(P[i]["mib"]))
            cls.setdefault(key, []).append(j)
        glist = []
        for (has_mod, has_mib), js in cls.items():
            js = np.array(js)
            ints = [f for f in SW_INT if has_mib or f not in SW_MIB]
            I = np.stack([vals[f][:, js] for f in ints], 2)
            flt = SW_FLT if has_mod else []
            Fm = F[:, js][:, :, :len(flt)] if flt else None
            tm = []
            for j in js:
                body = ",".join(f"{f}=%di" for f in ints)
                if flt:
                    body += "," + ",".join(f"{f}=%.{3 if 'Bias' in f else 2}f" for f in flt)
                tm.append(tagstr(cols[j]) + body + " %d\n")
            glist.append((tm, I, Fm, None))
        groups[d] = glist

    # --- host NICs
    for hi, d in enumerate(hdevs):
        t = h_t[hi]
        cols = dev_ports[d]
        nP = len(cols)
        reset = hi == drv_h
        vals = {}
        I0 = init_all(cols, True)
        for f in NIC_INT:
            if f in NIC_SRC:
                src = NIC_SRC[f]
                v = at(src, t, cols)
                c0 = I0[src]
                if reset:
                    aft = t > drv_reset
                    base = at(src, np.array([drv_reset]), cols)[0]
                    v = np.where(aft[:, None], v - base[None, :], v + c0[None, :])
                else:
                    v = v + c0[None, :]
                vals[f] = v
        ldn = np.zeros((len(t), nP), np.int64)
        car = np.ones((len(t), nP), np.int64)
        spd = np.full((len(t), nP), 400000, np.int64)
        c0l = rng.integers(1, 7, nP)
        for j, i in enumerate(cols):
            st_ = np.sort(np.array([iv[0] for iv in downs[i]], float))
            cnt = np.searchsorted(st_, t, "right")
            if reset:
                cnt = np.where(t > drv_reset, cnt - np.searchsorted(st_, drv_reset, "right"), cnt + c0l[j])
            else:
                cnt = cnt + c0l[j]
            ldn[:, j] = cnt
            for a_, b_, sp in speeds[i]:
                spd[(t >= a_) & (t < b_), j] = sp
            dn = in_ivs(downs[i], t)
            car[dn, j] = 0
            spd[dn, j] = -1
        vals["link_down_events_phy"], vals["carrier"], vals["speed"] = ldn, car, spd
        kk = gauge_k(t)
        F = np.zeros((len(t), nP, len(NIC_FLT)))
        F[:, :, 0] = ber[np.ix_(kk, cols - Ps)]
        F[:, :, 1] = ntemp[np.ix_(kk, cols - Ps)]
        F[:, :, 2] = rxpow[np.ix_(kk, cols)]
        F[:, :, 3] = txpow[np.ix_(kk, cols)]
        for j, i in enumerate(cols):
            if lasers[peer[i]]:
                F[in_ivs(lasers[peer[i]], t), j, 2] = -40.0
            if lasers[i]:
                F[in_ivs(lasers[i], t), j, 3] = -40.0
        S = np.where(car == 1, "up", "down")
        I = np.stack([vals[f] for f in NIC_INT], 2)
        body = ",".join(f"{f}=%di" for f in NIC_INT) + ',operstate="%s",' + \
            "phy_raw_ber=%.3e,module_temp_c=%.1f,rx_power_dbm=%.2f,tx_power_dbm=%.2f"
        tm = [tagstr(i) + body + " %d\n" for i in cols]
        # operstate sits between the ints and the floats in the template
        groups[d] = [(tm, I, F, S)]

    # ---------------------------------------------------------------- write, time-ordered
    ev_t, ev_d, ev_j = [], [], []
    for di, d in enumerate(sw_devs):
        js = np.where(sw_present[di])[0]
        ev_t.append(sw_t[di, js]); ev_d.append(np.full(js.size, di)); ev_j.append(js)
    for hi, d in enumerate(hdevs):
        js = np.where(h_present[hi])[0]
        ev_t.append(h_t[hi, js]); ev_d.append(np.full(js.size, len(sw_devs) + hi)); ev_j.append(js)
    ev_t, ev_d, ev_j = np.concatenate(ev_t), np.concatenate(ev_d), np.concatenate(ev_j)
    ev_ns = T0 * 10**9 + np.rint(ev_t * 1e6).astype(np.int64) * 1000
    order = np.lexsort((ev_d, ev_ns))
    alldevs = sw_devs + hdevs
    os.makedirs(a.outdir, exist_ok=True)
    n_lines = 0
    with open(os.path.join(a.outdir, "port_counters.lp"), "w", buffering=1 << 22) as fh:
        for e in order:
            dname = alldevs[ev_d[e]]
            j = int(ev_j[e])
            tsn = int(ev_ns[e])
            out = []
            for tm, I, F, S in groups[dname]:
                rows = I[j].tolist()
                if S is not None:
                    fr = F[j].tolist()
                    sr = S[j].tolist()
                    out.extend(tm[x] % (*rows[x], sr[x], *fr[x], tsn) for x in range(len(rows)))
                elif F is not None:
                    fr = F[j].tolist()
                    out.extend(tm[x] % (*rows[x], *fr[x], tsn) for x in range(len(rows)))
                else:
                    out.extend(tm[x] % (*rows[x], tsn) for x in range(len(rows)))
            n_lines += len(out)
            fh.write("".join(out))

    # ---------------------------------------------------------------- labels
    faults = []
    nm = lambda i: P[i]["port"]

    def rel_dev(d, extra=()):
        return [{"device": d, "ports": ["*"]}] + [{"device": P[i]["device"], "ports": [P[i]["port"]]} for i in extra]

    def fault(kind_, dev, ports_, a_, b_, onset, fields, desc, peer_ends=(), related=()):
        faults.append({"kind": kind_, "device": dev, "ports": ports_, "start_ns": ns(a_), "end_ns": ns(min(b_, DUR)),
                       "onset": onset, "peer_ends": [pname(i) for i in peer_ends], "related": list(related),
                       "fields": fields, "description": desc, "signature": desc})

    storm_leaf_nb = [int(peer[u]) for u in up_of_leaf[storm_r]]
    fault("pfc_storm", P[p_storm]["device"], [nm(p_storm)], f30(t_storm), c30(t_storm_end), "abrupt",
          ["tx_prio3_pause", "tx_prio3_pause_duration", "tx_pause_storm_warning_events", "pfcRxPausePkts3",
           "pfcWdStormDetected3", "pfcWdDroppedPkts3", "ifOutDiscards", "ifHCOutOctets", "rx_bytes_phy"],
          f"NIC {hosts[storm_h]}/mlx5_{storm_r} stuck sending priority-3 pause frames: tx_prio3_pause "
          "25-45k/s and tx_prio3_pause_duration ~1e6 us per s (paused all the time), "
          "tx_pause_storm_warning_events ticking (storm prevention not armed: no error events); on its leaf "
          "port pfcRxPausePkts3 at the same rate, ifHCOutOctets toward the host ~0, the PFC watchdog fires "
          "(pfcWdStormDetected3, pfcWdDroppedPkts3 = ifOutDiscards); the leaf pauses its other ingress ports "
          "for the first 30 s; the whole job stalls (local_ack_timeout_err on its rail peers, traffic ~0 "
          "everywhere in job A)",
          peer_ends=[n_storm],
          related=rel_dev(leaves[storm_r], storm_leaf_nb) + [{"device": hosts[h], "ports": ["*"]} for h in hostsA]
          + [{"device": leaves[r], "ports": [P[lp(h, r)]["port"] for h in hostsA]} for r in range(NR)])
    fault("dirty_optic", leaves[dirty_L], [nm(p_dirty)], f30(t_dirty), DUR, "abrupt then growing",
          ["domRxPowerMin", "domRxPowerAvg", "ifInErrors", "dot3StatsFCSErrors", "out_of_sequence"],
          "contaminated connector on a leaf uplink (receive side): at the start two of the eight lanes lose "
          "3-4 dB (domRxPowerMin drops ~3.2 dB, domRxPowerAvg ~0.9 dB, both sinking a little further), "
          "ifInErrors = dot3StatsFCSErrors at 3e-7 of received frames growing to 5e-6 by the end, following "
          "the frames received (little when the uplink is quiet), nothing at the spine end; receivers on "
          "the leaf see the retransmits (out_of_sequence)",
          peer_ends=[int(peer[p_dirty])])
    fault("overheating_module", leaves[heat_r], [nm(i) for i in p_heat], f30(t_heat), heat_end, "slow",
          ["domTemperature", "domTxBias", "domTxPowerAvg", "rx_power_dbm", "phy_raw_ber", "rx_corrected_bits_phy",
           "rx_crc_errors_phy", "rx_symbol_err_phy", "ifInErrors"],
          f"the 2x400G module in cage {heat_c + 1} (both breakout ports) heats up: domTemperature ramps "
          "+0.4 C/min from the start for an hour (+24 C) and keeps creeping, domTxBias rises and "
          "domTxPowerAvg falls (so rx_power_dbm falls at both NICs); phy_raw_ber / rx_corrected_bits_phy on "
          "the two NICs climb after ~40 min, CRC and symbol errors at the NICs "
          f"(and a few ifInErrors on the leaf ports) from ~{int((heat_first_err or 0) - t_heat) // 60} min "
          "after the start; it ends when the module is swapped (both ports down ~3-4 min, then clean)",
          peer_ends=n_heat)
    fault("uplink_left_down_after_reload", leaves[ld_L], [nm(p_ld)], ld_start, ld_end, "abrupt",
          ["ifOperStatus", "ifLastChange", "domRxPowerAvg", "domRxPowerMin", "ifHCInOctets", "ifHCOutOctets"],
          f"after {spines[s_reload]} reloaded (healthy, see healthy_phenomena) every port came back except the "
          f"far end of this uplink: the spine port stays ifOperStatus 2 with ifAdminStatus 1 and its "
          "transmitter dark, so the leaf uplink reads ifOperStatus 2, domRxPowerAvg/Min -40 dBm and no "
          "traffic while the spine itself answers SNMP and its other ports forward; sibling uplinks carry the "
          "share; ends when an operator bounces the spine port",
          peer_ends=[q_ld],
          related=[{"device": leaves[ld_L], "ports": [nm(u) for u in up_of_leaf[ld_L]]}])
    fault("slow_receiver_out_of_buffer", hosts[oob_h], ["*"], f30(t_oob), c30(t_oob_end), "slow",
          ["rx_out_of_buffer"],
          "the host is slow to post receive buffers (CPU/memory pressure): rx_out_of_buffer rises on all "
          "8 of its NICs from a few per second to ~1000/s over 80 min while it receives (job A traffic), "
          "while every other host of the same job, with the same traffic, stays at 0; ends when the "
          "offending process is killed",
          peer_ends=[lp(oob_h, r) for r in range(NR)])
    ecn_nb = [int(peer[i]) for i in dev_ports[leaves[ecn_L]] if peer[i] >= 0]
    fault("ecn_disabled_switch", leaves[ecn_L], ["*"], f30(t_ecn), c30(t_ecn_end), "abrupt",
          ["ecnMarkedPkts3", "pfcTxPausePkts3", "rx_prio3_pause", "np_ecn_marked_roce_packets", "np_cnp_sent",
           "rp_cnp_handled", "pfcRxPausePkts3"],
          "ECN marking silently off on every queue of the leaf (a QoS config push): ecnMarkedPkts3 flat on all "
          "its ports while other leaves under the same all-to-all and checkpoint load mark; its queues run "
          "deeper, so pfcTxPausePkts3 from it is several times that of its peers (rx_prio3_pause on its "
          "hosts, pfcRxPausePkts3 on the spine ports facing it); its hosts' np_ecn_marked_roce_packets and "
          "np_cnp_sent and their rail peers' rp_cnp_handled drop to the spine-marked remainder",
          related=[{"device": leaves[ecn_L], "ports": ["*"]}] +
          [{"device": P[i]["device"], "ports": [P[i]["port"]]} for i in ecn_nb])
    fault("flapping_link", leaves[flap_r], [nm(p_flap)], flap_start, flap_end, "abrupt",
          ["ifOperStatus", "ifLastChange", "link_down_events_phy", "carrier", "operstate", "speed",
           "rx_crc_errors_phy", "rx_symbol_err_phy", "ifInErrors", "phy_raw_ber", "local_ack_timeout_err"],
          f"marginal cable to {hosts[flap_h]}/mlx5_{flap_r}: {len(flap_times)} down/up cycles in three bursts "
          "(2-20 s down, seconds to a minute apart): link_down_events_phy steps, carrier 0 / operstate down / "
          "speed -1 and ifOperStatus 2 when a poll lands in a down, ifLastChange jumps, CRC and symbol errors "
          "at each link-up, phy_raw_ber ~10x, traffic gaps",
          peer_ends=[n_flap])
    fault("half_speed_link", leaves[half_r], [nm(p_half)], f30(t_half), c30(half_up2), "abrupt",
          ["ifHighSpeed", "speed", "link_down_events_phy", "ifLastChange", "ifHCOutOctets", "tx_bytes_phy",
           "ecnMarkedPkts3", "np_ecn_marked_roce_packets"],
          f"link to {hosts[half_h]}/mlx5_{half_r} bounced and retrained at 200G (ifHighSpeed 200000 on the leaf, "
          "speed 200000 on the NIC, the speed tag stays 400G): its bytes can never exceed ~47% of 400G and "
          "job A slows to its pace, so every job port carries ~0.58x its earlier bytes (the same as this "
          "one: bytes alone do not single it out); at 200G its leaf egress queue runs near full, so "
          "ecnMarkedPkts3 there (np_ecn_marked_roce_packets at the NIC) is ~10x its sibling ports'; ends "
          "with a second bounce back to 400G",
          peer_ends=[n_half],
          related=[{"device": leaves[half_r], "ports": ["*"]}] +
          [{"device": hosts[h], "ports": [f"mlx5_{half_r}"]} for h in hostsA])
    fault("line_card_errors", spines[s_card], ["*"], f30(t_card), card_end, "abrupt",
          ["ifInErrors", "dot3StatsFCSErrors", "ifOutErrors"],
          f"bad line card in slot 3 of {spines[s_card]} (a switch without the PFC/ECN MIB): the four "
          f"consecutive ports Ethernet3/{card_L0 + 1}/1-Ethernet3/{card_L0 + 4}/1 (facing four different "
          "leaves) corrupt frames together, ifInErrors = dot3StatsFCSErrors at ~1e-6..3e-6 of received frames "
          "with a shared time pattern, a few ifOutErrors, the leaf ends see ~35% of it; ends with a "
          "line-card power cycle (the four links down ~3 min)",
          peer_ends=[int(peer[q]) for q in q_card])
    lossy_first = None
    kk_ = np.where(lossy_drop > 0)[0]
    if kk_.size:
        lossy_first = float(tg[kk_[0]] - DT)
    fault("lossy_queue_pfc_disabled", spines[s_lossy], [nm(q_lossy)], f30(lossy_first or t_lossy), DUR,
          "conditional",
          ["ifInDiscards", "pfcTxPausePkts3", "pfcRxPausePkts3", "out_of_sequence"],
          f"after a config push at +{t_lossy // 60} min PFC is off for priority 3 on this spine port: when "
          "the spine congests (all-to-all, checkpoints) it drops at ingress (ifInDiscards ~ in proportion to "
          "congestion) instead of pausing, so its pfcTxPausePkts3 (and the leaf uplink's pfcRxPausePkts3) "
          "stay flat while its sibling ports pause; receivers see retransmits (out_of_sequence); nothing "
          "shows while the fabric is uncongested, so the label starts at the first drop",
          peer_ends=[int(peer[q_lossy])],
          related=[{"device": spines[s_lossy], "ports": ["*"]}])

    healthy = []

    def hev(kind_, where, a_, b_, note, background=False):
        e = {"kind": kind_, "where": list(where), "start_ns": ns(max(a_, 0)), "end_ns": ns(min(b_, DUR)),
             "note": note}
        if background:
            e["background"] = True
        healthy.append(e)

    W = lambda i: f"{P[i]['device']}:{P[i]['port']}"
    for x, y in a2a:
        hev("all_to_all_phase", ["*"], x, y, "job A switches to MoE all-to-all: 80-90% load, half of it across "
            "the spines; ECN marks, CNPs (np_*/rp_*) and some PFC on many ports of every switch at once")
    for x, y in ckpt:
        hev("checkpoint_burst", ["*"], x, y + 60, "job A writes a checkpoint to stor1-4: storage ports "
            "saturated (ECN, PFC from the leaves toward the writers and the spines, spreading one hop), "
            "training traffic paused; a few rx_discards_phy on the storage NICs (lossy class)")
    hev("job_stop_start", [f"{hosts[h]}:*" for h in hostsA], crashA, restartA + 180,
        "job A crashes and restarts: its links idle ~5-7 min, then NCCL warm-up")
    hev("job_stop_start", [f"{hosts[h]}:*" for h in hostsB], b_start - 60, b_start + 180, "job B starts (fine-tune)")
    hev("job_stop_start", [f"{hosts[h]}:*" for h in hostsB], b_stop - 60, b_stop + 180, "job B ends: its links idle")
    hev("job_stop_start", [f"{hosts[h]}:*" for h in hostsB], b_inf - 60, b_inf + 180,
        "bursty inference serving starts on job B's hosts")
    hev("job_stalled_by_fault", [f"{hosts[h]}:*" for h in hostsA], t_storm, t_storm_end + 150,
        "job A waits behind the stuck NIC (knock-on of the pfc_storm fault): its links go near idle")
    hev("job_slowed_by_fault", [f"{hosts[h]}:*" for h in hostsA], f30(half_up), c30(half_up2) + 60,
        "job A runs at the half-speed link's pace (knock-on): ~0.58x bytes on every job port")
    rl_where = [f"{spines[s_reload]}:*"] + [W(int(peer[q])) for q in reload_ports]
    hev("switch_reload", rl_where, f30(t_reload), c30(max(v for q, v in up_times.items() if q != q_ld)) + 60,
        f"{spines[s_reload]} reloads: no SNMP answer for 150 s, all its links down 2.7-3.3 min (the leaf ends "
        "read ifOperStatus 2 and -40 dBm), every counter of the spine restarts from 0 (ifLastChange and "
        "sysUpTime too); ECMP moves the traffic to the other spines")
    hev("nic_driver_reload", [f"{hosts[drv_h]}:*"] + [W(lp(drv_h, r)) for r in range(NR)], f30(t_drv),
        c30(drv_gap[1]) + 60,
        f"mlx5 driver reloaded on idle {hosts[drv_h]} (with a firmware reset): no exporter lines for "
        "~30 s, its 8 links bounce ~10 s (leaf ifOperStatus / ifLastChange), every NIC counter incl. the "
        "_phy ones restarts from 0")
    hev("collector_gap", [f"{leaves[gap_L]}:*"], f30(t_gap), c30(t_gap + 240),
        "SNMP timeouts on this one switch for 4 min: no lines from it; the counters keep counting")
    hev("planned_admin_down", [W(p_maint), W(n_maint)], f30(t_maint), c30(maint_end) + 30,
        "maintenance: the leaf port is shut for 20 min (ifAdminStatus 2, ifOperStatus 2, its laser off so the "
        "NIC reads -40 dBm, carrier 0, link_down_events_phy +1)")
    for n in slow_rx:
        hev("slow_receiver_pfc", [W(n), W(int(peer[n]))], 0, DUR,
            "the NIC pauses its leaf port under receive load (tx_prio3_pause 8-40/s at most), since the start")
    for h, t_ev in oob_bursts:
        hev("rx_out_of_buffer_burst", [f"{hosts[h]}:*"], f30(t_ev), c30(t_ev + 150),
            "a short rx_out_of_buffer burst while a job's processes start (buffers posted late once)")
    hev("sporadic_crc", [W(i) for i in sporadic], 0, DUR,
        "isolated single CRC/FCS errors, 0.6-3 per hour, since the start", background=True)
    hev("ingress_control_drops", [W(i) for i in ctrl], 0, DUR,
        "ifInDiscards 0.01-0.3/s (control-plane packets dropped at ingress), since the start", background=True)
    hev("unknown_protocols", [W(i) for i in unkp], 0, DUR,
        "ifInUnknownProtos trickle from host-side protocols the leaf does not run", background=True)
    hev("ecmp_polarisation", [W(i) for i in pol_ups] + [W(int(peer[i])) for i in pol_ups], 0, DUR,
        "two uplinks of one leaf carry ~1.5x their siblings' bytes (hash polarisation), since the start",
        background=True)
    hev("never_cabled_ports", [W(i) for i in range(Ps) if not cabled[i]], 0, DUR,
        "ports with no cable (no peer tags): ifOperStatus 2 (breakout spare, module present, admin down, "
        "-40 dBm) or 6 notPresent (empty cage, no DOM fields), counters frozen", background=True)
    hev("poll_jitter_and_missed_polls", ["*"], 0, DUR,
        "poll instants jitter by ~0.1 s, ~0.4% of SNMP polls and 0.2% of NIC reads are late by 1-9 s, "
        "~0.25% / 0.15% are missing (no lines)", background=True)

    devices = []
    for d in leaves:
        devices.append({"name": d, "type": "leaf", "model": "51.2T fixed, 64x OSFP 800G (vendor A)",
                        "collector": "snmp", "poll_s": SNMP_S, "pfc_ecn_mib": True, "ports": int(len(dev_ports[d]))})
    for s, d in enumerate(spines):
        devices.append({"name": d, "type": "spine",
                        "model": "modular chassis, 800G line cards in slots 3-4 " +
                                 ("(vendor A OS, PFC/ECN MIB)" if s in mib_spines else "(vendor B OS, no PFC/ECN MIB)"),
                        "collector": "snmp", "poll_s": SNMP_S, "pfc_ecn_mib": s in mib_spines,
                        "ports": int(len(dev_ports[d]))})
    for d in hosts + stors:
        devices.append({"name": d, "type": "gpu_host" if d in hosts else "storage_host",
                        "collector": "ethtool", "poll_s": DT, "ports": int(len(dev_ports[d])),
                        "job": "A" if d in hosts and hosts.index(d) in hostsA else ("B" if d in hosts else "storage")})

    notes = {
        "summary": "RoCEv2 rail-optimised 2-tier leaf/spine: 8 rail leaves (leaf-railR, NIC R of every host), "
                   "8 spines (spineNN), 32 GPU hosts x 8 NICs (gpuNN mlx5_R), 4 storage hosts x 2 NICs "
                   "(storN mlx5_0/1 on leaf-rail 2N-2 / 2N-1). Leaf host ports are 400G breakouts "
                   "(EthernetC/1 and EthernetC/5 of 800G cage C), uplinks 800G, two per spine. Lossless "
                   "priority 3 (PFC), ECN on priority 3 at the switches, DCQCN on the NICs.",
        "timing": "Switches are polled by SNMP every 30 s, each at its own phase (0.8-6 s into the 30 s slot), "
                  "host NICs every 10 s (0.1-3 s into the slot); all ports of one device share a timestamp per "
                  "poll; timestamps carry the jitter (ns resolution, us precision). interval_s=30 is the "
                  "slowest (switch) cadence and the label grid; sample_s=10 is the finest cadence in the file. "
                  "A counter read at time t holds everything up to t.",
        "tags": {
            "device": "switch (leaf-railR, spineNN) or host (gpuNN, storN) name",
            "port": "switch interface name (EthernetC/L on leaves, EthernetS/P/1 on spine line cards) or the "
                    "host's mlx5 device",
            "fabric": "always roce",
            "role": "leaf_down: leaf port toward a host NIC (also the never-cabled breakout spare); leaf_up: leaf "
                    "port toward a spine (also empty reserved cages); spine: spine port; host: NIC port",
            "peer_device": "device at the far end of the cable (absent on never-cabled ports)",
            "peer_port": "port at the far end of the cable (absent on never-cabled ports)",
            "speed": "nominal speed of the port, 400G or 800G (does not change when a link renegotiates)",
        },
        "fields_switch": {
            "ifHCInOctets/ifHCOutOctets": "IF-MIB 64-bit octet counters",
            "ifHCInUcastPkts/ifHCOutUcastPkts": "IF-MIB 64-bit unicast packet counters",
            "ifHCInMulticastPkts/ifHCOutMulticastPkts": "IF-MIB 64-bit multicast packets (LLDP, ND): a trickle",
            "ifInErrors": "IF-MIB Counter32: received frames with errors (here: FCS errors)",
            "ifOutErrors": "IF-MIB Counter32: transmit errors",
            "ifInDiscards": "IF-MIB Counter32: received frames dropped (control-plane drops; ingress drops of a lossy queue)",
            "ifOutDiscards": "IF-MIB Counter32: frames dropped at egress (PFC watchdog drops)",
            "ifInUnknownProtos": "IF-MIB Counter32: frames of protocols the switch does not run",
            "dot3StatsFCSErrors": "EtherLike-MIB Counter32: frames received with a bad FCS",
            "ifOperStatus": "gauge: 1 up, 2 down, 6 notPresent (empty cage)",
            "ifAdminStatus": "gauge: 1 up, 2 down (shut)",
            "ifHighSpeed": "gauge: negotiated speed in Mb/s (400000, 800000; 200000 after a half-speed retrain)",
            "ifLastChange": "gauge: sysUpTime (TimeTicks, 1/100 s since the agent booted) at the port's last "
                            "oper-state change; 0 if none since boot; restarts with a reload",
            "pfcRxPausePkts3/pfcTxPausePkts3": "vendor PFC MIB (leaves, and spines whose pfc_ecn_mib is true): "
                                               "priority-3 pause frames received from / sent to the neighbour, 64-bit",
            "ecnMarkedPkts3": "vendor QoS MIB: priority-3 packets CE-marked by this egress queue, 64-bit",
            "pfcWdStormDetected3": "vendor PFC watchdog: times a priority-3 pause storm was detected on the port",
            "pfcWdDroppedPkts3": "vendor PFC watchdog: packets dropped on the port's priority-3 queue while the "
                                 "watchdog action was active (also in ifOutDiscards)",
            "domTemperature": "DOM: module temperature, C (the two breakout ports of one cage share the module)",
            "domRxPowerAvg/domRxPowerMin": "DOM: receive power in dBm, mean over the port's lanes and the worst "
                                           "lane; -40 = loss of signal (no light from the far end)",
            "domTxPowerAvg": "DOM: transmit power, dBm (-40 while the transmitter is off)",
            "domTxBias": "DOM: laser bias current, mA",
            "absent": "the vendor PFC/ECN fields are absent on spines without that MIB; DOM fields are absent on "
                      "empty cages",
        },
        "fields_host": {
            "rx_bytes_phy/tx_bytes_phy/rx_packets_phy/tx_packets_phy": "mlx5 ethtool -S physical-port counters",
            "rx_multicast_phy": "multicast frames received",
            "rx_crc_errors_phy": "frames received with a bad CRC",
            "rx_symbol_err_phy": "uncorrectable FEC symbol errors",
            "rx_corrected_bits_phy": "bits corrected by FEC (grows while the link is up, loaded or not)",
            "rx_discards_phy": "frames dropped for lack of receive buffer in the port (lossy classes)",
            "rx_out_of_buffer": "packets dropped because no receive WQE/buffer was posted by software",
            "rx_prio3_pause/tx_prio3_pause": "priority-3 pause frames received from / sent to the leaf",
            "rx_prio3_pause_duration/tx_prio3_pause_duration": "time paused / pausing on priority 3, microseconds",
            "tx_pause_storm_warning_events": "times the NIC kept sending pauses past the stall warning watermark",
            "tx_pause_storm_error_events": "times the NIC's pause-storm prevention shut pausing off (not armed: 0)",
            "np_ecn_marked_roce_packets": "RoCE packets received with CE set (notification point)",
            "np_cnp_sent": "CNPs sent back to senders (notification point)",
            "rp_cnp_handled": "CNPs received and acted on by this sender (reaction point)",
            "rp_cnp_ignored": "CNPs received and ignored",
            "out_of_sequence": "RoCE packets received out of sequence (retransmits after a drop)",
            "local_ack_timeout_err": "RoCE transport ACK timeouts at this sender",
            "link_down_events_phy": "link-down events counted by the PHY",
            "carrier": "gauge: sysfs carrier 1/0",
            "operstate": "string gauge: sysfs operstate up/down",
            "speed": "gauge: sysfs speed in Mb/s (400000; 200000 after a half-speed retrain; -1 while down)",
            "phy_raw_ber": "gauge: pre-FEC (raw physical) BER of the last 10 s, as mlxlink reports it",
            "module_temp_c": "gauge: module temperature, C (ethtool -m)",
            "rx_power_dbm/tx_power_dbm": "gauge: module receive / transmit power, dBm, lane mean (-40 = no light)",
        },
        "counters": "All counters are raw cumulative values as read, 64-bit unless noted Counter32, never cleared "
                    "except: the reloaded spine (every counter of it restarts from 0 when it boots) and the host "
                    "whose NIC driver was reloaded (every NIC counter restarts from 0). Devices had been up for "
                    "weeks or months, so counters start from large values. A poll missing means no line.",
        "faults": "start_ns = first evidence in the counters (floored to the 30 s grid), end_ns = when the "
                  "evidence stops; peer_ends = the far end of the same cable; related = ports carrying knock-on "
                  "effects (neutral for scoring while the fault lasts).",
    }
    faults.sort(key=lambda f: f["start_ns"])
    labels = {
        "scenario": "roce-snmp-ethtool", "scale": "small", "seed": a.seed, "fabric": "roce",
        "interval_s": SNMP_S, "sample_s": DT, "poll_s": {"switch_snmp": SNMP_S, "host_ethtool": DT},
        "t0_ns": ns(0), "t_end_ns": ns(DUR), "train_until_ns": ns(train_until),
        "fit_first": f"{train_until // 60}m", "ports": int(G), "lines": int(n_lines),
        "devices": devices, "notes": notes, "faults": faults,
        "healthy_phenomena": sorted(healthy, key=lambda h: h["start_ns"]),
    }
    for f in faults:
        assert f["start_ns"] >= labels["train_until_ns"], f
        assert f["end_ns"] > f["start_ns"], f
    with open(os.path.join(a.outdir, "labels.json"), "w") as fh:
        json.dump(labels, fh, indent=1)
    print(f"roce-snmp-ethtool seed {a.seed}: {G} ports ({Ps} switch, {Pn} NIC), {n_lines:,} lines, "
          f"{len(faults)} faults, {len(healthy)} healthy phenomena -> {a.outdir} in {time.time() - wall:.1f}s")


if __name__ == "__main__":
    main()
