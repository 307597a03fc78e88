#!/usr/bin/env python3
"""Labelled synthetic telemetry of a mixed-generation InfiniBand fat tree: HDR leaves, NDR spines.

    python bench/fabrics/ib_hdr_ndr_mixed.py OUTDIR [--seed N]

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement `port_counters`, one point per
switch port per poll, raw cumulative counters as a perfquery/UFM-style exporter reads them) and
OUTDIR/labels.json (faults that a degraded-link detector should find, healthy phenomena that it should
not flag, and notes describing every tag and field). Self-contained: standard library + numpy,
deterministic per seed, under ten seconds per run.

Fabric (numbers are the same for every seed; times and targets move with the seed):
  * 16 compute/storage leaves, HDR (200G) 40-port switches, rail-optimised per scalable unit (SU):
      SU a: racks 0-2, 24 GPU hosts with 8 HCAs        -> leaf-a-r0 .. leaf-a-r7
      SU b: racks 3-5, 24 GPU hosts with 4 HCAs        -> leaf-b-r0 .. leaf-b-r3
      SU c: rack 6 storage (8 hosts, 4 HCAs), rack 7 GPU (8 hosts, 4 HCAs), rack 8 = a new rack
            (8 GPU hosts, 4 HCAs) cabled and brought up mid-run   -> leaf-c-r0 .. leaf-c-r3
    plus 2 service leaves (leaf-svc-1/2) of another switch family whose exporter only has the classic
    32-bit PortCounters (data counters wrap, in 4-octet words), dual-homing 24 service nodes.
    Leaf ports 1-24 face hosts, 25-36 go to the spines (3 links to each of 4 spines, 2:1
    oversubscribed), 37-40 were never cabled (~10 % of leaf ports).
  * 4 NDR (400G) spines: OSFP cages 1-27 split 2x200G towards the HDR leaves (ports "c/1", "c/2"),
    cages 28-32 unsplit 400G and not cabled.
  * Leaves polled every 15 s, spines every 60 s (an aggregating collector), collector timestamps with
    per-device offsets and jitter; one 6-minute collector outage; one leaf reset by an operator.
The model runs on 5 s ticks: host offered load from jobs -> leaf host ports -> static routing over
the uplinks -> spine ports (mirrors of the leaf uplinks); credit waits (xmit_wait) from egress load and
from congestion trees; errors from their physics; link state, resets, wraps and saturation last.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import datetime, timezone

import numpy as np

T0 = int(datetime(2025, 6, 4, 6, 0, tzinfo=timezone.utc).timestamp())   # nominal start of the run
MIN = 60
DUR = 270 * MIN                 # 4.5 h
TRAIN = 80 * MIN                # healthy training history (fit_first)
TICK = 5                        # model resolution, s
NT = DUR // TICK + 4            # a few ticks past the end: polls land a few seconds after nominal
LEAF_POLL, SPINE_POLL = 15, 60
NR = DUR // LEAF_POLL + 1       # poll rounds 0..1080 (a spine answers every 4th round)
INTERVAL_S = 60                 # scoring interval: the slowest poll cadence
LINE_Bps = 200e9 / 8            # one HDR link, bytes/s
WORDS_PER_TICK = LINE_Bps * TICK / 4
WAIT_TICK_NS = 4                # port_xmit_wait tick
WAITS_PER_TICK = TICK * 1e9 / WAIT_TICK_NS
N_SPINE, N_UP_PER_SPINE, N_HOSTPORTS, N_LEAFPORTS = 4, 3, 24, 40
UP0 = N_HOSTPORTS + 1           # first uplink port number (25)

RATE_FIELDS = ["port_xmit_data", "port_rcv_data", "port_xmit_pkts", "port_rcv_pkts", "port_xmit_wait"]
EVENT_FIELDS = ["symbol_errors", "link_error_recovery", "link_downed", "port_rcv_errors",
                "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors", "port_xmit_discards",
                "port_xmit_constraint_errors", "port_rcv_constraint_errors", "local_link_integrity_errors",
                "excessive_buffer_overrun_errors", "vl15_dropped"]
GAUGE_FIELDS = ["phys_state", "port_state", "oper_status", "admin_status", "link_width_active",
                "link_speed_active"]
COUNTERS = RATE_FIELDS + EVENT_FIELDS
# classic PortCounters widths: these counters stop at 2**bits - 1 (IBA saturating semantics)
SAT_BITS = {"symbol_errors": 16, "link_error_recovery": 8, "link_downed": 8, "port_rcv_errors": 16,
            "port_rcv_remote_physical_errors": 16, "port_rcv_switch_relay_errors": 16,
            "port_xmit_discards": 16, "port_xmit_constraint_errors": 8, "port_rcv_constraint_errors": 8,
            "local_link_integrity_errors": 4, "excessive_buffer_overrun_errors": 4, "vl15_dropped": 16}
PHYS_POLLING, PHYS_TRAINING, PHYS_LINKUP = 2, 4, 5
STATE_DOWN, STATE_INIT, STATE_ACTIVE = 1, 2, 4

ts = np.arange(NT, dtype=np.float64) * TICK          # start of each tick


def snap(t, q=TICK):
    return int(round(float(t) / q)) * q


def ns(t):
    return (T0 * 10**9) + int(round(float(t) * 1e9))


def win(a, b, ramp=0.0):
    """Per tick: the fraction of the tick inside [a, b) (with linear ramps of `ramp` s if given)."""
    if ramp > 0:
        x = ts + TICK / 2
        return np.clip(np.minimum((x - a) / ramp, (b - x) / ramp), 0.0, 1.0)
    lo = np.maximum(ts, a)
    hi = np.minimum(ts + TICK, b)
    return np.clip((hi - lo) / TICK, 0.0, 1.0)


def ar1(rng, n, phi, sigma):
    e = rng.normal(0.0, sigma, n)
    out = np.empty(n)
    acc = 0.0
    for i in range(n):
        acc = phi * acc + e[i]
        out[i] = acc
    return out


# ---------------------------------------------------------------------------------------------
# topology


class Fabric:
    def __init__(self):
        self.dev, self.port, self.role, self.rail, self.peer_dev, self.peer_port = [], [], [], [], [], []
        self.speed, self.fam, self.cabled, self.kind = [], [], [], []
        self.leaf_of, self.spine_of, self.j_of, self.q_of = [], [], [], []
        self.devices = []            # (name, kind, model, family, poll_s)
        self.leaves = []             # (name, su, rail)
        self.hosts = []              # dict(name, rack, kind, links=[q])
        self.links = []              # host links q: dict(host, hca, leaf, p)
        self.index = {}

    def add(self, dev, port, role, rail, peer_dev, peer_port, speed, fam, cabled, kind,
            leaf=-1, spine=-1, j=-1, q=-1):
        i = len(self.dev)
        for lst, v in ((self.dev, dev), (self.port, port), (self.role, role), (self.rail, rail),
                       (self.peer_dev, peer_dev), (self.peer_port, peer_port), (self.speed, speed),
                       (self.fam, fam), (self.cabled, cabled), (self.kind, kind), (self.leaf_of, leaf),
                       (self.spine_of, spine), (self.j_of, j), (self.q_of, q)):
            lst.append(v)
        self.index[(dev, port)] = i
        return i

    def name(self, i):
        return f"{self.dev[i]}:{self.port[i]}"


def spine_port_name(L, j):
    idx = 3 * L + j                    # leaf L's j-th link to this spine
    return f"{idx // 2 + 1}/{idx % 2 + 1}"


def build_fabric():
    F = Fabric()
    su_racks = {"a": (0, 1, 2), "b": (3, 4, 5), "c": (6, 7, 8)}
    for r in range(8):
        F.leaves.append((f"leaf-a-r{r}", "a", r))
    for su in ("b", "c"):
        for r in range(4):
            F.leaves.append((f"leaf-{su}-r{r}", su, r))
    F.leaves += [("leaf-svc-1", "svc", 0), ("leaf-svc-2", "svc", 1)]
    host_ix = {}

    def host(name, rack, kind):
        if name not in host_ix:
            host_ix[name] = len(F.hosts)
            F.hosts.append(dict(name=name, rack=rack, kind=kind, links=[]))
        return host_ix[name]

    F.up = {}                          # (L, s, j) -> leaf uplink port index
    for L, (leaf, su, r) in enumerate(F.leaves):
        fam = "hdr-pc32" if su == "svc" else "hdr-ext64"
        F.devices.append((leaf, "leaf", "QM8790" if su == "svc" else "QM8700", fam, LEAF_POLL))
        rail = None if su == "svc" else str(r)
        for p in range(1, N_HOSTPORTS + 1):
            if su == "svc":
                hname, rack, hk, k = f"svc-{p:02d}", "svc", "svc", r
            else:
                rack = su_racks[su][(p - 1) // 8]
                slot = (p - 1) % 8 + 1
                if rack == 6:
                    hname, hk = f"stor-r6-{slot:02d}", "storage"
                else:
                    hname, hk = f"gpu-r{rack}-{slot:02d}", {"a": "gpu-a", "b": "gpu-b"}.get(su, "gpu-c")
                    if rack == 8:
                        hk = "gpu-new"
                k = r
            h = host(hname, rack, hk)
            q = len(F.links)
            i = F.add(leaf, str(p), "leaf_down", rail, hname, f"mlx5_{k}", "200G", fam, True, "host",
                      leaf=L, q=q)
            F.links.append(dict(host=h, hca=k, leaf=L, p=i))
            F.hosts[h]["links"].append(q)
        for s in range(N_SPINE):
            for j in range(N_UP_PER_SPINE):
                pn = UP0 + N_UP_PER_SPINE * s + j
                F.up[(L, s, j)] = F.add(leaf, str(pn), "leaf_up", rail, f"spine-{s + 1}",
                                        spine_port_name(L, j), "200G", fam, True, "up", leaf=L, spine=s, j=j)
        for pn in range(UP0 + N_SPINE * N_UP_PER_SPINE, N_LEAFPORTS + 1):
            F.add(leaf, str(pn), "leaf_down", rail, None, None, "200G", fam, False, "uncabled", leaf=L)
    F.sp = {}                          # (s, L, j) -> spine port index
    for s in range(N_SPINE):
        sname = f"spine-{s + 1}"
        F.devices.append((sname, "spine", "QM9700", "ndr-ext64", SPINE_POLL))
        for L, (leaf, su, r) in enumerate(F.leaves):
            for j in range(N_UP_PER_SPINE):
                F.sp[(s, L, j)] = F.add(sname, spine_port_name(L, j), "spine", None if su == "svc" else str(r),
                                        leaf, str(UP0 + N_UP_PER_SPINE * s + j), "200G", "ndr-ext64", True,
                                        "spine", leaf=L, spine=s, j=j)
        for c in range(3 * len(F.leaves) // 2 + 1, 33):
            F.add(sname, str(c), "spine", None, None, None, "400G", "ndr-ext64", False, "uncabled", spine=s)
    F.P = len(F.dev)
    F.Q = len(F.links)
    F.peer = np.full(F.P, -1)
    for (L, s, j), u in F.up.items():
        F.peer[u] = F.sp[(s, L, j)]
        F.peer[F.sp[(s, L, j)]] = u
    F.dev_ports = {}
    for i, d in enumerate(F.dev):
        F.dev_ports.setdefault(d, []).append(i)
    F.leaf_idx = {name: L for L, (name, _, _) in enumerate(F.leaves)}
    F.q_leafport = np.array([l["p"] for l in F.links])
    F.q_leaf = np.array([l["leaf"] for l in F.links])
    F.q_host = np.array([l["host"] for l in F.links])
    return F


# ---------------------------------------------------------------------------------------------
# the run


def generate(outdir, seed):
    wall = time.time()
    rng = np.random.default_rng([seed, 0x1B4D])
    F = build_fabric()
    P, Q = F.P, F.Q
    kind = np.array(F.kind)
    fam = np.array(F.fam)
    cabled = np.array(F.cabled)
    is_host, is_up, is_sp = kind == "host", kind == "up", kind == "spine"
    leaves = F.leaves
    L_a = [L for L, x in enumerate(leaves) if x[1] == "a"]
    L_b = [L for L, x in enumerate(leaves) if x[1] == "b"]
    L_c = [L for L, x in enumerate(leaves) if x[1] == "c"]
    L_svc = [L for L, x in enumerate(leaves) if x[1] == "svc"]
    hk = np.array([F.hosts[h]["kind"] for h in F.q_host])
    hrack = np.array([F.hosts[h]["rack"] if F.hosts[h]["rack"] != "svc" else -1 for h in F.q_host])
    faults, healthy = [], []
    W = lambda ports: [F.name(int(i)) for i in ports]
    devw = lambda names: [f"{d}:*" for d in names]
    spines_all = [f"spine-{s + 1}" for s in range(N_SPINE)]

    def hp(kind_, where, a, b, note, background=False):
        e = dict(kind=kind_, where=list(where), start_ns=ns(max(a, 0)), end_ns=ns(min(b, DUR)), note=note)
        if background:
            e["background"] = True
        healthy.append(e)

    # ---------------------------------------------------------------- schedule
    # training job J1 (SU a): checkpoints and evaluation pauses alternate, both inside the fit window too
    ckpts, evals = [], []
    t, nxt = rng.uniform(18, 26) * MIN, "ckpt"
    while t < DUR - 12 * MIN:
        d = (rng.uniform(3, 5) if nxt == "ckpt" else rng.uniform(6, 9)) * MIN
        (ckpts if nxt == "ckpt" else evals).append((snap(t, 60), snap(t + d, 60)))
        t += d + rng.uniform(22, 32) * MIN
        nxt = "eval" if nxt == "ckpt" else "ckpt"
    busy = ckpts + evals
    incasts = []
    t = rng.uniform(30, 65) * MIN
    while t < DUR - 8 * MIN:
        d = rng.uniform(2, 4) * MIN
        a, b = snap(t, 30), snap(t + d, 30)
        if all(b + 120 <= x or a >= y + 120 for x, y in busy):
            incasts.append((a, b))
            t += rng.uniform(40, 60) * MIN
        else:
            t += 5 * MIN
    t_pc = snap(rng.uniform(95, 135) * MIN, 60)          # planned rack power cycle
    t_nr = snap(rng.uniform(150, 195) * MIN, 60)         # new rack cabling starts
    while True:                                          # 6-minute collector outage
        t_out = snap(rng.uniform(100, 235) * MIN, 15)
        if not (t_pc - 3 * MIN < t_out + 360 and t_out < t_pc + 16 * MIN) and \
                not (t_nr - 2 * MIN < t_out + 360 and t_out < t_nr + 15 * MIN):
            break
    out_lo, out_hi = t_out, t_out + 360
    in_outage = lambda x: out_lo - 90 <= x <= out_hi + 30
    while True:
        t_rst = snap(rng.uniform(110, 250) * MIN, 15)
        if not (out_lo - 120 <= t_rst <= out_hi + 120):
            break
    sweeps = []
    t = rng.uniform(4, 12) * MIN
    while t < DUR - 2 * MIN:
        sweeps.append(snap(t, 5))
        t += rng.uniform(12, 18) * MIN

    # ---------------------------------------------------------------- link state
    up = np.tile(cabled, (NT, 1))                        # physically up during the tick
    training_last = np.zeros((NT, P), bool)              # last down tick before a link-up: training
    EV = {f: np.zeros((NT, P)) for f in EVENT_FIELDS}
    module = np.tile(cabled, (NT, 1))                    # a transceiver is plugged (temperature reads)
    width = np.full((NT, P), 4.0)
    link_events = []                                     # (time, kind) for SM sweeps

    def down(i, a, b, both=True, disc=(0, 300), sym_up=(0, 5)):
        """Port i (and its link peer) down for ticks in [a, b): a, b on tick boundaries."""
        ia, ib = int(a // TICK), int(b // TICK)
        ends = [i] + ([int(F.peer[i])] if both and F.peer[i] >= 0 else [])
        for e in ends:
            up[ia:ib, e] = False
            if ib > ia:
                training_last[ib - 1, e] = True
            if ia < NT:
                EV["link_downed"][ia, e] += 1
                EV["port_xmit_discards"][ia, e] += rng.integers(*disc) if disc[1] > 0 else 0
            if ib < NT:
                EV["symbol_errors"][ib, e] += rng.integers(*sym_up)
        link_events.append(a)

    # new rack (rack 8): never cabled until t_nr, then technicians plug the links one by one
    q_new = [q for q in range(Q) if hk[q] == "gpu-new"]
    p_new = F.q_leafport[q_new]
    up[:, p_new] = False
    module[:, p_new] = False
    cab_t = np.sort(np.array([snap(t_nr + x) for x in rng.uniform(0, 12 * MIN, len(q_new))]))
    cab_t = cab_t[rng.permutation(len(q_new))]
    for i, c in zip(p_new, cab_t):
        module[int(c // TICK):, i] = True
        ib = int((c + TICK) // TICK)                     # link trains ~5 s after the plug
        up[ib:, i] = True
        training_last[ib - 1, i] = True
        EV["symbol_errors"][ib, i] += rng.integers(0, 4)
    nr_last_up = int(cab_t.max()) + TICK
    link_events += [t_nr, nr_last_up]

    # planned power cycle of one rack of SU b; one HCA of one host stays down afterwards (fault 7)
    R_pc = int(rng.choice([3, 4, 5]))
    pc_hosts = [h for h in range(len(F.hosts)) if F.hosts[h]["rack"] == R_pc]
    h7 = int(rng.choice(pc_hosts))
    k7 = int(rng.integers(0, 4))
    pc_ports, pc_up_max, q7 = [], 0, None
    host_off = {}
    for h in pc_hosts:
        off = snap(t_pc + rng.uniform(0, 45))
        on = snap(t_pc + rng.uniform(540, 660))
        host_off[h] = off
        for q in F.hosts[h]["links"]:
            i = int(F.q_leafport[q])
            pc_ports.append(i)
            u = snap(on + rng.uniform(0, 10))
            if h == h7 and F.links[q]["hca"] == k7:
                q7 = q
                continue
            down(i, off + snap(rng.uniform(0, 3)), u, both=False)
            pc_up_max = max(pc_up_max, u)
    link_events += [t_pc, pc_up_max]
    p7 = int(F.q_leafport[q7])
    sib_up = 0                                           # when the host's other rails are back
    for q in F.hosts[h7]["links"]:
        if q != q7:
            i = int(F.q_leafport[q])
            sib_up = max(sib_up, int(np.where(~up[:, i])[0].max() + 1) * TICK)
    f7_a = sib_up
    f7_fix = snap(f7_a + rng.uniform(35, 90) * MIN, 60)
    f7_b = f7_fix if f7_fix < DUR - 8 * MIN else DUR
    down(p7, host_off[h7] + snap(rng.uniform(0, 3)), f7_b if f7_b < DUR else NT * TICK, both=False)
    j2_drain = (t_pc - 4 * MIN, pc_up_max + snap(rng.uniform(4, 7) * MIN, 60))

    # ---------------------------------------------------------------- fault schedule and targets
    def pick_start(lo, hi, q=60):
        while True:
            a = snap(rng.uniform(lo, hi) * MIN, q)
            if not in_outage(a):
                return a

    fault_devs = set()
    # 1: uplink of an SU b leaf (busy with J2's all-to-all) comes back at 1x width after a bounce
    L1 = int(rng.choice(L_b))
    s1, j1 = int(rng.integers(N_SPINE)), int(rng.integers(N_UP_PER_SPINE))
    u1, sp1 = F.up[(L1, s1, j1)], F.sp[(s1, L1, j1)]
    f1_a = pick_start(88, 200)
    f1_bounce = snap(rng.uniform(20, 40))
    f1_fix = snap(f1_a + rng.uniform(25, 60) * MIN, 60)
    f1_fix_d = snap(rng.uniform(40, 90))
    if f1_fix + f1_fix_d >= DUR - 5 * MIN:
        f1_fix = None
    # 2: a cable with load-proportional symbol errors (host link of SU a, or an SU a uplink)
    if rng.random() < 0.5:
        q2 = int(rng.choice([q for q in range(Q) if hk[q] == "gpu-a"]))
        p2 = int(F.q_leafport[q2])
        f2_rx = p2                                       # the leaf receives the errors
    else:
        La2 = int(rng.choice(L_a))
        cand = [F.up[(La2, s, j)] for s in range(N_SPINE) for j in range(N_UP_PER_SPINE)
                if F.up[(La2, s, j)] != u1]
        p2 = int(rng.choice(cand))
        f2_rx = p2 if rng.random() < 0.5 else int(F.peer[p2])
    f2_a = pick_start(88, 190)
    f2_fix = snap(f2_a + rng.uniform(50, 100) * MIN, 60)
    f2_fix_d = snap(rng.uniform(60, 150))
    if f2_fix + f2_fix_d >= DUR - 5 * MIN:
        f2_fix = None
    # 3: slow HCA (PCIe degraded) on an SU a host
    while True:
        q3 = int(rng.choice([q for q in range(Q) if hk[q] == "gpu-a"]))
        if F.q_leafport[q3] != p2:
            break
    p3, L3 = int(F.q_leafport[q3]), int(F.q_leaf[q3])
    s3, j3 = int(rng.integers(N_SPINE)), int(rng.integers(N_UP_PER_SPINE))  # the route of its LID
    f3_a = pick_start(90, 225)
    f3_b = snap(f3_a + rng.uniform(20, 40) * MIN, 60)
    # 5: host HCA port flapping (SU b or rack 7 J2 host outside the power-cycled rack)
    cand5 = [q for q in range(Q) if (hk[q] == "gpu-b" and hrack[q] != R_pc)
             or (hk[q] == "gpu-c" and hrack[q] == 7 and F.hosts[F.q_host[q]]["name"][-2:] in ("01", "02", "03", "04"))]
    q5 = int(rng.choice(cand5))
    p5 = int(F.q_leafport[q5])
    f5_a = pick_start(90, 255, 5)
    # 6: spine port with HoQ-lifetime discards while its traffic falls (towards an SU b/c leaf)
    while True:
        L6 = int(rng.choice(L_b + L_c))
        s6, j6 = int(rng.integers(N_SPINE)), int(rng.integers(N_UP_PER_SPINE))
        if (L6, s6, j6) != (L1, s1, j1):
            break
    sp6, u6 = F.sp[(s6, L6, j6)], F.up[(L6, s6, j6)]
    f6_a = pick_start(90, 230)
    f6_b = snap(f6_a + rng.uniform(20, 40) * MIN, 60)
    # 8: relay-error burst on 4 consecutive ports (one ASIC port group) of a spine
    while True:
        s8, g8 = int(rng.integers(N_SPINE)), int(rng.integers(0, 12))   # groups facing compute leaves
        grp = [F.index[(f"spine-{s8 + 1}", f"{c}/{h}")] for c in (2 * g8 + 1, 2 * g8 + 2) for h in (1, 2)]
        if not {sp1, sp6, int(F.peer[p2]) if F.peer[p2] >= 0 else -1} & set(grp):
            break
    f8_a = pick_start(90, 250, 30)
    f8_b = snap(f8_a + rng.uniform(8, 18) * MIN, 30)
    # 9: excessive buffer overruns + local link integrity errors on a leaf uplink
    while True:
        L9 = int(rng.choice(L_a + L_b + L_c))
        s9, j9 = int(rng.integers(N_SPINE)), int(rng.integers(N_UP_PER_SPINE))
        u9 = F.up[(L9, s9, j9)]
        if u9 not in (u1, u6, p2) and F.peer[u9] not in grp:
            break
    f9_a = pick_start(90, 225, 30)
    f9_b = snap(f9_a + rng.uniform(20, 45) * MIN, 30)

    # 4: leaf with a failing fan (a leaf no other fault touches)
    used = {F.leaf_of[i] for i in (u1, p2, f2_rx, p3, p5, p7, u6, u9) if F.leaf_of[i] >= 0}
    L4 = int(rng.choice([L for L in L_a + L_b + L_c if L not in used]))
    f4_a = pick_start(85, 150)
    f4_repl = snap(f4_a + rng.uniform(95, 120) * MIN, 60)
    if f4_repl > DUR - 15 * MIN:
        f4_repl = None

    # the operator's perfquery -R: a leaf that carries no fault end
    busy_devs = {F.dev[i] for i in (u1, p2, p3, p5, p7, u6, u9)} | {leaves[L4][0]}
    L_rst = int(rng.choice([L for L in L_a + L_b + L_c if leaves[L][0] not in busy_devs]))
    rst_dev = leaves[L_rst][0]

    # fault link events (bounces)
    down(u1, f1_a, f1_a + f1_bounce, disc=(50, 2000))
    f1_a_up = f1_a + f1_bounce
    if f1_fix is not None:
        down(u1, f1_fix, f1_fix + f1_fix_d, disc=(50, 2000))
        f1_b = f1_fix + f1_fix_d
    else:
        f1_b = DUR
    w1 = win(f1_a_up, f1_b)
    width[w1 > 0, u1] = 1
    width[w1 > 0, sp1] = 1
    if f2_fix is not None:
        down(p2, f2_fix, f2_fix + f2_fix_d, disc=(50, 1500))
        f2_b = f2_fix + f2_fix_d
    else:
        f2_b = DUR
    # flaps: 6 downs in 5 minutes
    while True:
        st = np.sort(rng.choice(np.arange(0, 290, TICK), 6, replace=False))
        if np.all(np.diff(st) >= 20):
            break
    flap = []
    for x in st:
        a = f5_a + int(x)
        d = snap(rng.uniform(5, 15))
        flap.append((a, a + d))
        down(p5, a, a + d, both=False, disc=(0, 80), sym_up=(0, 9))
        if rng.random() < 0.4:
            EV["link_error_recovery"][int((a + d) // TICK), p5] += 1
    f5_b = flap[-1][1]

    # ---------------------------------------------------------------- workload (per host link)
    TX = np.zeros((NT, Q))        # host -> leaf (leaf port receives), fraction of line
    RX = np.zeros((NT, Q))        # leaf -> host (leaf port transmits)
    OTX = np.zeros((NT, Q))       # parts of TX / RX that cross the leaf's uplinks
    ORX = np.zeros((NT, Q))
    bg = rng.uniform(0.0005, 0.002, Q) * rng.lognormal(0, 0.3, (NT, Q))
    TX += bg
    RX += bg * rng.lognormal(0, 0.2, (NT, Q))
    OTX += 0.5 * bg
    ORX += 0.5 * bg

    # J1: data-parallel pretraining on SU a, all-reduce bursts, evaluation pauses, checkpoints
    qa = np.array([q for q in range(Q) if hk[q] == "gpu-a"])
    c1 = rng.beta(6, 3, NT) * (1 + ar1(rng, NT, 0.995, 0.01))
    lvl1 = 0.8 * np.clip(c1, 0, 1.2)
    pause1 = np.zeros(NT)
    for a, b in evals:
        pause1 = np.maximum(pause1, win(a, b, 40))
    ck1 = np.zeros(NT)
    for a, b in ckpts:
        ck1 = np.maximum(ck1, win(a, b, 20))
    lvl1 = lvl1 * (1 - 0.97 * np.maximum(pause1, ck1))
    m1 = rng.normal(1.0, 0.03, len(qa))
    foff1 = np.clip(0.16 + 0.03 * ar1(rng, NT, 0.99, 0.1), 0.08, 0.26)
    x = lvl1[:, None] * m1[None, :]
    TX[:, qa] += x * rng.lognormal(0, 0.04, x.shape)
    RX[:, qa] += x * rng.lognormal(0, 0.04, x.shape)
    OTX[:, qa] += x * foff1[:, None]
    ORX[:, qa] += x * foff1[:, None]

    # J2: MoE training over SU b and rack 7 hosts 1-4: dense and light phases, drained for the power cycle
    q2job = np.array([q for q in range(Q) if hk[q] == "gpu-b" or
                      (hk[q] == "gpu-c" and hrack[q] == 7 and F.hosts[F.q_host[q]]["name"][-2:] in ("01", "02", "03", "04"))])
    ph = np.empty(NT)
    dense = np.zeros(NT, bool)
    t, isd = 0, bool(rng.random() < 0.5)
    while t < NT:
        n = int(rng.uniform(15, 40) * MIN / TICK)
        ph[t:t + n] = rng.uniform(0.68, 0.78) if isd else rng.uniform(0.38, 0.48)
        dense[t:t + n] = isd
        t += n
        isd = not isd
    drain = win(*j2_drain, 30)
    warm = win(j2_drain[1], j2_drain[1] + 90, 0) * 0.5
    lvl2 = ph * rng.beta(3, 2.5, NT) * 1.35 * (1 - drain) * (1 - warm)
    m2 = rng.normal(1.0, 0.05, len(q2job))
    foff2 = np.where(hk[q2job] == "gpu-c", 0.9, 0.45)     # all-to-all: mostly cross-rail
    x = lvl2[:, None] * m2[None, :] * rng.lognormal(0, 0.08, (NT, len(q2job)))
    TX[:, q2job] += x
    RX[:, q2job] += x * rng.lognormal(0, 0.06, x.shape)
    OTX[:, q2job] += x * foff2[None, :]
    ORX[:, q2job] += x * foff2[None, :]
    j2_dense_win = []
    edges = np.flatnonzero(np.diff(np.r_[0, dense.astype(int), 0]))
    for a, b in zip(edges[::2], edges[1::2]):
        j2_dense_win.append((int(a) * TICK, int(b) * TICK))

    # rack 7 hosts 5-7: an inference service, steady with slow variation
    qinf = np.array([q for q in range(Q) if hk[q] == "gpu-c" and hrack[q] == 7 and
                     F.hosts[F.q_host[q]]["name"][-2:] in ("05", "06", "07")])
    x = (0.06 + 0.04 * np.sin(2 * np.pi * ts / (5.3 * 3600) + rng.uniform(0, 6)))[:, None] * \
        rng.lognormal(0, 0.25, (NT, len(qinf)))
    TX[:, qinf] += x
    RX[:, qinf] += 0.7 * x
    OTX[:, qinf] += 0.5 * x
    ORX[:, qinf] += 0.35 * x

    # storage: data loading reads (storage -> GPU hosts) all the time, checkpoint writes from J1
    qst = np.array([q for q in range(Q) if hk[q] == "storage"])
    rd = 0.03 * (1 + 0.3 * ar1(rng, NT, 0.99, 0.08))[:, None] * rng.lognormal(0, 0.15, (NT, len(qst)))
    rd = np.clip(rd, 0.005, 0.08)
    TX[:, qst] += rd
    OTX[:, qst] += rd
    qreaders = np.r_[qa, q2job]
    share = rd.sum(1) / len(qreaders)
    RX[:, qreaders] += share[:, None]
    ORX[:, qreaders] += share[:, None]
    ckf = np.zeros(NT)
    for a, b in ckpts:
        ckf = np.maximum(ckf, win(a + 30, b, 20))
    cs = 0.95 * len(qst) / len(qa)
    x = cs * ckf[:, None] * rng.lognormal(0, 0.05, (NT, len(qa)))
    TX[:, qa] += x
    OTX[:, qa] += x
    srx = np.minimum(0.955, x.sum(1) / len(qst))[:, None] * rng.lognormal(0, 0.01, (NT, len(qst)))
    RX[:, qst] += srx
    ORX[:, qst] += srx
    TX[:, qst] += 0.01 * ckf[:, None]
    OTX[:, qst] += 0.01 * ckf[:, None]

    # service nodes (dual-homed on the 32-bit leaves): light, kept well under 9 Gb/s per port
    qsv = np.array([q for q in range(Q) if hk[q] == "svc"])
    nsv = len(qsv)
    svc_no = np.array([int(F.hosts[F.q_host[q]]["name"][-2:]) for q in qsv])
    base = np.select([svc_no <= 2, svc_no <= 6, svc_no <= 10, svc_no <= 18],
                     [0.002, 0.006, 0.015, 0.014], 0.002)
    burst = np.where((svc_no > 10) & (svc_no <= 18), 1.0, 0.0)
    x = base[None, :] * rng.lognormal(0, 0.35, (NT, nsv))
    x += burst[None, :] * 0.012 * (rng.random((NT, nsv)) < 0.15)
    x = np.minimum(x, 0.028)
    TX[:, qsv] += x
    RX[:, qsv] += np.minimum(0.8 * x * rng.lognormal(0, 0.2, x.shape), 0.028)
    OTX[:, qsv] += 0.9 * x
    ORX[:, qsv] += 0.9 * np.minimum(0.8 * x, 0.028)

    # new rack: burn-in (nccl-tests) after all its links are up, then idle
    t_burn = snap(nr_last_up + rng.uniform(180, 300), 30)
    t_burn_b = snap(t_burn + rng.uniform(8, 12) * MIN, 30)
    qn = np.array(q_new)
    bw = win(t_burn, t_burn_b, 20)
    x = bw[:, None] * 0.88 * rng.beta(12, 2, (NT, len(qn)))
    TX[:, qn] += x
    RX[:, qn] += x * rng.lognormal(0, 0.02, x.shape)
    OTX[:, qn] += 0.04 * x
    ORX[:, qn] += 0.04 * x

    # parameter-server incast: J1's hosts push to the 4 HCAs of a host in rack 7
    h_ps = [h for h in range(len(F.hosts)) if F.hosts[h]["name"] == "gpu-r7-08"][0]
    q_ps = sorted(F.hosts[h_ps]["links"], key=lambda q: F.links[q]["hca"])
    inc_f = np.zeros(NT)
    for a, b in incasts:
        inc_f = np.maximum(inc_f, win(a, b, 15))
    ps_route = [(int(rng.integers(N_SPINE)), int(rng.integers(N_UP_PER_SPINE))) for _ in range(4)]
    incast_ports = set()
    flows = []                                           # (uplink port, dir 'x' leaf->spine / 'r', array)
    for k, q in enumerate(q_ps):
        rxk = 0.955 * inc_f * rng.lognormal(0, 0.01, NT)
        RX[:, q] += rxk
        sk, jk = ps_route[k]
        src = [L for L in L_a if leaves[L][2] % 4 == k]
        senders = [qq for qq in qa if F.q_leaf[qq] in src]
        TX[:, senders] += (rxk / len(senders))[:, None]
        for L in src:
            flows.append((F.up[(L, sk, jk)], "x", rxk / len(src)))
            incast_ports.add(F.up[(L, sk, jk)])
        Lps = int(F.q_leaf[q])
        flows.append((F.up[(Lps, sk, jk)], "r", rxk))
        incast_ports |= {F.sp[(sk, Lps, jk)], int(F.q_leafport[q])}

    # fault 3: slow HCA (rx ~1/3 of its siblings)
    f3w = win(f3_a, f3_b, 10)
    RX[:, q3] *= 1 - f3w * (1 - 0.33 * rng.lognormal(0, 0.06, NT))
    ORX[:, q3] *= 1 - f3w * 0.67
    TX[:, q3] *= 1 - 0.12 * f3w

    # links down carry nothing
    hup = up[:, F.q_leafport]
    for A in (TX, RX, OTX, ORX):
        A *= hup
    TX = np.minimum(TX, 0.975)
    RX = np.minimum(RX, 0.975)

    # ---------------------------------------------------------------- port traffic
    X = np.zeros((NT, P))         # xmit utilisation of each port
    R = np.zeros((NT, P))         # rcv utilisation
    X[:, F.q_leafport] = RX
    R[:, F.q_leafport] = TX
    w_out = rng.normal(1.0, 0.06, P)
    pol = [int(x) for x in rng.choice(np.where(is_up & np.isin(np.array(F.leaf_of), L_a + L_b))[0], 2, replace=False)]
    w_out[pol] *= 1.45
    w_in = w_out * rng.normal(1.0, 0.04, P)
    for L in range(len(leaves)):
        ups = np.array([F.up[(L, s, j)] for s in range(N_SPINE) for j in range(N_UP_PER_SPINE)])
        qs = np.where(F.q_leaf == L)[0]
        out_b, in_b = OTX[:, qs].sum(1), ORX[:, qs].sum(1)
        for arr, tot, w in ((X, out_b, w_out), (R, in_b, w_in)):
            ww = w[ups][None, :] * rng.lognormal(0, 0.04, (NT, len(ups))) * up[:, ups]
            ww = ww / np.maximum(ww.sum(1, keepdims=True), 1e-9)
            arr[:, ups] += tot[:, None] * ww
    for u, d, arr in flows:
        (X if d == "x" else R)[:, u] += arr
    X = np.minimum(X, 0.975)
    R = np.minimum(R, 0.975)
    # fault 1: 1x width, both directions capped at a quarter of the line
    off1_x, off1_r = X[:, u1].copy(), R[:, u1].copy()
    cap = 0.243
    X[:, u1] = np.where(w1 > 0, np.minimum(X[:, u1], cap * rng.uniform(0.96, 1.0, NT)), X[:, u1])
    R[:, u1] = np.where(w1 > 0, np.minimum(R[:, u1], cap * rng.uniform(0.96, 1.0, NT)), R[:, u1])
    # fault 6: the spine egress towards L6 delivers less and less (its far end returns few credits)
    f6w = win(f6_a, f6_b)
    prog6 = np.clip((ts - f6_a) / max(f6_b - f6_a, 1), 0, 1)
    keep6 = 1 - f6w * (0.3 + 0.55 * prog6) * rng.uniform(0.9, 1.1, NT)
    off6 = R[:, u6].copy()
    R[:, u6] *= np.clip(keep6, 0.08, 1)
    # spine ports mirror the leaf uplinks; nothing on a down link
    for (L, s, j), u in F.up.items():
        spp = F.sp[(s, L, j)]
        X[:, spp], R[:, spp] = R[:, u], X[:, u]
    X *= up
    R *= up

    # ---------------------------------------------------------------- credit waits (fraction of time)
    a_p = np.where(is_host, 0.05, np.where(is_up, 0.10, 0.12)) * rng.lognormal(0, 0.3, P)
    a_p[fam == "hdr-pc32"] *= 0.2
    Wt = a_p[None, :] * X ** 2.2 * rng.lognormal(-0.2, 0.7, (NT, P))
    spk = rng.random((NT, P)) < 0.01
    Wt = np.where(spk, Wt * (1 + 4 * rng.pareto(1.5, (NT, P))), Wt)
    a2a = np.zeros(NT)
    for a, b in j2_dense_win:
        a2a = np.maximum(a2a, win(a, b))
    a2a *= (1 - drain)
    j2ports = is_up & np.isin(np.array(F.leaf_of), L_b + L_c) | (is_sp & np.isin(np.array(F.leaf_of), L_b + L_c))
    Wt[:, j2ports] *= 1 + a2a[:, None] * rng.uniform(1.0, 2.5, (NT, int(j2ports.sum())))
    # checkpoint congestion tree: storage ports, spine ports into SU c, SU a uplinks
    ckports_st = F.q_leafport[qst]
    ckports_sp = [F.sp[(s, L, j)] for s in range(N_SPINE) for L in L_c for j in range(N_UP_PER_SPINE)]
    ckports_up = [F.up[(L, s, j)] for L in L_a for s in range(N_SPINE) for j in range(N_UP_PER_SPINE)]
    for grp_, lo, hi in ((ckports_st, 0.08, 0.25), (ckports_sp, 0.08, 0.3), (ckports_up, 0.02, 0.08)):
        grp_ = np.array(grp_)
        Wt[:, grp_] += ckf[:, None] * rng.uniform(lo, hi, (NT, len(grp_)))
    # incast tree
    for k, q in enumerate(q_ps):
        sk, jk = ps_route[k]
        Lps = int(F.q_leaf[q])
        Wt[:, int(F.q_leafport[q])] += inc_f * rng.uniform(0.06, 0.18, NT)
        Wt[:, F.sp[(sk, Lps, jk)]] += inc_f * rng.uniform(0.3, 0.55, NT)
        for L in L_a:
            if leaves[L][2] % 4 == k:
                Wt[:, F.up[(L, sk, jk)]] += inc_f * rng.uniform(0.15, 0.35, NT)
    # fault 1: the 1x link's two egresses wait most of the time while traffic is hashed onto it
    for i, off in ((u1, off1_x), (sp1, off1_r)):
        Wt[:, i] = np.where(w1 > 0, np.minimum(0.93, 0.65 * (off / cap) ** 1.3 + 0.05), Wt[:, i])
    rel1 = []
    for L in rng.choice([L for L in L_a + L_b + L_c if L != L1], 4, replace=False):
        i = F.up[(int(L), s1, j1)]
        rel1.append(i)
        Wt[:, i] += w1 * rng.uniform(0.03, 0.10, NT) * np.clip(off1_r / cap, 0, 2)
    # fault 3: slow HCA: heavy waits on its leaf port, spreading to its route's spine port and senders
    act1 = lvl1 / 0.53
    Wt[:, p3] += f3w * np.clip(0.55 + 0.25 * act1, 0.1, 0.88) * rng.uniform(0.9, 1.05, NT)
    sp3 = F.sp[(s3, L3, j3)]
    Wt[:, sp3] += f3w * np.clip(0.15 + 0.15 * act1, 0.05, 0.4) * rng.uniform(0.8, 1.1, NT)
    rel3 = [sp3]
    for L in L_a:
        if L != L3:
            i = F.up[(L, s3, j3)]
            rel3.append(i)
            Wt[:, i] += f3w * np.clip(0.04 + 0.06 * act1, 0.01, 0.14) * rng.uniform(0.7, 1.2, NT)
    # fault 6: the spine port waits for credits, more and more
    Wt[:, sp6] += f6w * (0.4 + 0.5 * prog6) * rng.uniform(0.9, 1.05, NT)
    Wt = np.clip(Wt, 0, 0.95) * up
    Wt[:, fam == "hdr-pc32"] = np.minimum(Wt[:, fam == "hdr-pc32"], 0.002)

    # ---------------------------------------------------------------- errors and events
    # background: sporadic isolated symbol errors on a few % of healthy links
    fault_ports = {u1, sp1, p2, int(F.peer[p2]) if F.peer[p2] >= 0 else -1, p3, p5, p7, sp6, u6, u9,
                   int(F.peer[u9]), *grp, *F.dev_ports[leaves[L4][0]]}
    pool = [i for i in np.where(cabled)[0] if i not in fault_ports and i not in set(p_new)]
    spor = sorted(int(i) for i in rng.choice(pool, int(0.04 * len(pool)), replace=False))
    rate_h = rng.uniform(0.5, 3.0, len(spor))
    ev = rng.poisson(rate_h[None, :] / 3600 * TICK, (NT, len(spor)))
    EV["symbol_errors"][:, spor] += ev
    EV["port_rcv_errors"][:, spor] += rng.binomial(ev, 0.3)
    # background: a trickle of switch relay errors on a few leaf host ports (packets to stale LIDs)
    pool2 = [i for i in np.where(is_host & cabled)[0] if i not in fault_ports and i not in set(p_new)]
    relay_bg = sorted(int(i) for i in rng.choice(pool2, 8, replace=False))
    EV["port_rcv_switch_relay_errors"][:, relay_bg] += rng.poisson(
        rng.uniform(0.002, 0.01, 8)[None, :] * TICK, (NT, 8))
    # subnet manager heavy sweeps (periodic and after topology changes): a few VL15 drops
    trig = []
    for x in sorted(link_events):                       # one triggered sweep per burst of link changes
        if not trig or x - trig[-1] > 120:
            trig.append(x)
    sweep_all = sorted(set(sweeps) | {snap(x + rng.uniform(5, 20)) for x in trig})
    upnow = np.where(cabled)[0]
    for sw in sweep_all:
        i = int(sw // TICK)
        if i >= NT:
            continue
        cand = upnow[up[i, upnow]]
        pr = np.where(is_host[cand], 0.02, 0.08)
        hit = cand[rng.random(len(cand)) < pr]
        EV["vl15_dropped"][i, hit] += rng.integers(1, 4, len(hit))
    # fault 2: symbol errors and link error recoveries in proportion to the traffic the receiver gets
    f2w = win(f2_a, f2_fix if f2_fix is not None else DUR)
    rx2 = R[:, f2_rx]
    c2 = rng.uniform(4, 8) if is_host[f2_rx] else rng.uniform(9, 16)
    lam = f2w * c2 * rx2 * TICK * rng.lognormal(0, 0.2, NT)
    s_ev = rng.poisson(lam)
    EV["symbol_errors"][:, f2_rx] += s_ev
    EV["port_rcv_errors"][:, f2_rx] += rng.binomial(s_ev, 0.12)
    ler2 = rng.poisson(f2w * rx2 * TICK / 200.0)
    EV["link_error_recovery"][:, f2_rx] += ler2
    EV["symbol_errors"][:, f2_rx] += ler2 * rng.integers(5, 40, NT)
    first2 = np.flatnonzero(s_ev + ler2)
    f2_a_ev = int(first2[0]) * TICK if len(first2) else f2_a
    # fault 4: fan failure -> module temperatures climb ~20 C in an hour, then symbol errors on some ports
    leaf4 = leaves[L4][0]
    ports4 = np.array([i for i in F.dev_ports[leaf4] if cabled[i]])
    ramp = np.clip((ts - f4_a) / (60 * MIN), 0, None)
    dT = 19.0 * np.where(ramp < 1, ramp ** 1.15, 1 + 0.06 * np.tanh((ramp - 1) * 2))
    dT[ts < f4_a] = 0
    if f4_repl is not None:
        k_r = ts >= f4_repl
        dT[k_r] = dT[int(f4_repl // TICK)] * np.exp(-(ts[k_r] - f4_repl) / 180.0)
        f4_b = snap(f4_repl + 180.0 * np.log(dT[int(f4_repl // TICK)] / 1.0) + 30, 30)
    else:
        f4_b = DUR
    err4 = [int(i) for i in rng.choice(ports4, int(rng.integers(3, 7)), replace=False)]
    first4 = NT
    for i in err4:
        thr = rng.uniform(16.0, 18.5)
        kk = rng.uniform(0.06, 0.25)
        lam4 = kk * np.clip(dT - thr, 0, None) * TICK * np.clip(0.3 + R[:, i], 0.3, 1.3)
        e4 = rng.poisson(lam4) * up[:, i]
        EV["symbol_errors"][:, i] += e4
        EV["port_rcv_errors"][:, i] += rng.binomial(e4, 0.1)
        nz = np.flatnonzero(e4)
        if len(nz):
            first4 = min(first4, int(nz[0]))
    # fault 6: HoQ lifetime discards rising while traffic falls
    lam6 = f6w * (2 + 38 * prog6) * np.clip(off6 / max(off6[f6w > 0].mean(), 1e-3), 0.2, 2.0) * TICK
    EV["port_xmit_discards"][:, sp6] += rng.poisson(lam6) * up[:, sp6]
    # fault 8: switch relay errors on one spine's 4-port group, following received packets
    f8w = win(f8_a, f8_b)
    for i in grp:
        c8 = rng.uniform(40, 120)
        EV["port_rcv_switch_relay_errors"][:, i] += rng.poisson(
            f8w * c8 * np.maximum(R[:, i], 0.02) * TICK * rng.lognormal(0, 0.3, NT)) * up[:, i]
    # fault 9: excessive buffer overruns and local link integrity errors on a leaf uplink
    t = f9_a + snap(rng.uniform(0, 40))
    ev9 = []
    while t < f9_b:
        ev9.append(t)
        t += snap(rng.exponential(rng.uniform(70, 150)) + 15)
    for x in ev9:
        i = int(x // TICK)
        if rng.random() < 0.85:
            EV["excessive_buffer_overrun_errors"][i, u9] += 1
        if rng.random() < 0.6:
            EV["local_link_integrity_errors"][i, u9] += 1
            EV["symbol_errors"][i, u9] += rng.integers(3, 30)
        EV["port_rcv_errors"][i, u9] += rng.integers(20, 400)
    f9_a_ev, f9_b_ev = ev9[0], ev9[-1] + TICK

    # ---------------------------------------------------------------- gauges
    state = np.where(up, STATE_ACTIVE, STATE_DOWN)
    first_up = up & ~np.vstack([up[:1], up[:-1]])
    first_up[0] = False
    state[first_up] = STATE_INIT                          # the SM activates the port at its next sweep
    phys = np.where(up, PHYS_LINKUP, np.where(training_last, PHYS_TRAINING, PHYS_POLLING))
    oper = (state == STATE_ACTIVE).astype(np.int64)
    admin = np.ones((NT, P), np.int64)
    widthg = np.where(up, width, 0)
    lane = np.where(up, 50, 0)
    base_t = np.where(is_host, rng.uniform(38, 48, P), rng.uniform(43, 54, P))
    devs = sorted(F.dev_ports)
    amb = {d: 1.3 * np.sin(2 * np.pi * ts / rng.uniform(3.5, 6) / 3600 + rng.uniform(0, 6.3)) for d in devs}
    dev_arr = np.array(F.dev)
    temp = base_t[None, :] + 2.5 * (X + R) / 2 + rng.normal(0, 0.25, (NT, P))
    for d in devs:
        temp[:, dev_arr == d] += amb[d][:, None]
    temp[:, ports4] += dT[:, None] * rng.uniform(0.88, 1.12, len(ports4))[None, :]

    # ---------------------------------------------------------------- counters per tick
    size = rng.uniform(2600, 3900, P)

    def pkt(u):
        b = u * LINE_Bps * TICK
        s = size[None, :] * (0.15 + 0.85 * u / (u + 0.01))
        return b / s + up * rng.uniform(0.3, 0.8, P)[None, :] * TICK   # + MADs (SM sweeps, perf queries)

    INC = {
        "port_xmit_data": np.rint(X * WORDS_PER_TICK),
        "port_rcv_data": np.rint(R * WORDS_PER_TICK),
        "port_xmit_pkts": np.rint(pkt(X)),
        "port_rcv_pkts": np.rint(pkt(R)),
        "port_xmit_wait": np.rint(Wt * WAITS_PER_TICK),
    }
    del X, R, Wt

    # start values: switches have been up for months
    start = {}
    for f in ("port_xmit_data", "port_rcv_data"):
        start[f] = (10 ** rng.uniform(11, 14.3, P))
    for f in ("port_xmit_pkts", "port_rcv_pkts"):
        start[f] = start[f.replace("pkts", "data")] * 4 / rng.uniform(2500, 3800, P)
    start["port_xmit_wait"] = 10 ** rng.uniform(9, 12.5, P)
    pc32 = fam == "hdr-pc32"
    for f in ("port_xmit_data", "port_rcv_data", "port_xmit_pkts", "port_rcv_pkts"):
        start[f][pc32] = rng.uniform(0, 2**32, int(pc32.sum()))
    start["port_xmit_wait"][pc32] = rng.uniform(0, 2e7, int(pc32.sum()))
    for f in EVENT_FIELDS:
        z = rng.random(P)
        if f in ("local_link_integrity_errors", "excessive_buffer_overrun_errors"):
            v = np.where(z < 0.9, 0, rng.integers(1, 3, P))
        elif f in ("link_downed", "link_error_recovery"):
            v = np.where(z < 0.5, 0, rng.integers(1, 7, P))
        elif f in ("port_xmit_constraint_errors", "port_rcv_constraint_errors", "port_rcv_remote_physical_errors"):
            v = np.where(z < 0.93, 0, rng.integers(1, 40, P))
        else:
            v = np.where(z < 0.6, 0, rng.geometric(0.01, P))
        start[f] = v.astype(np.float64)
    start["excessive_buffer_overrun_errors"][u9] = 0
    start["local_link_integrity_errors"][u9] = 0
    for f in start:
        start[f] = np.floor(start[f])
        start[f][~cabled] = 0
        start[f][p_new] = 0

    # ---------------------------------------------------------------- polling: who answers when
    dev_list = [d[0] for d in F.devices]
    dev_poll = {d[0]: d[4] for d in F.devices}
    off_d = {d: (rng.uniform(0.5, 5.5) if dev_poll[d] == LEAF_POLL else rng.uniform(3.0, 8.0)) for d in dev_list}
    tau = np.zeros((NR, P))
    present = np.zeros((NR, P), bool)
    rounds = np.arange(NR) * LEAF_POLL
    port_order = np.zeros(P)
    for d in dev_list:
        ix = np.array(F.dev_ports[d])
        port_order[ix] = np.arange(len(ix))
        jit = np.clip(rng.normal(0, 0.35, NR), -1.2, 1.2) + np.where(rng.random(NR) < 0.02,
                                                                     rng.uniform(0.5, 2.5, NR), 0)
        td = rounds + off_d[d] + jit
        tau[:, ix] = td[:, None] + port_order[ix][None, :] * 0.0008
        ok = np.ones(NR, bool) if dev_poll[d] == LEAF_POLL else (np.arange(NR) % (SPINE_POLL // LEAF_POLL) == 0)
        ok &= ~((rounds >= out_lo) & (rounds < out_hi))
        present[:, ix] = ok[:, None]
    ti = np.floor(tau / TICK).astype(np.int64)
    fr = tau / TICK - ti
    cols = np.broadcast_to(np.arange(P), (NR, P))
    rst_ports = np.array(F.dev_ports[rst_dev])
    i_rst = int(t_rst // TICK)
    after_rst = tau[:, rst_ports] >= t_rst

    NF = len(COUNTERS) + len(GAUGE_FIELDS) + 1
    V = np.zeros((NR, P, NF), np.int64)
    for fi, f in enumerate(COUNTERS):
        inc = INC[f] if f in INC else np.rint(EV[f])
        c = np.zeros((NT + 1, P))
        np.cumsum(inc, axis=0, out=c[1:])
        c += start[f][None, :]
        if f in RATE_FIELDS:
            v = c[ti, cols] + np.floor(fr * inc[ti, cols])
        else:
            v = c[ti + 1, cols]
        base_r = c[i_rst, rst_ports]
        sub = v[:, rst_ports]
        v[:, rst_ports] = np.where(after_rst, sub - base_r[None, :], sub)
        if f in SAT_BITS:
            v = np.minimum(v, 2 ** SAT_BITS[f] - 1)
        v = v.astype(np.int64)
        if f in ("port_xmit_data", "port_rcv_data", "port_xmit_pkts", "port_rcv_pkts"):
            v[:, pc32] %= (1 << 32)
        if f == "port_xmit_wait":
            v[:, pc32] = np.minimum(v[:, pc32], 2**32 - 1)
        V[:, :, fi] = v
        INC.pop(f, None)
    for gi, g in enumerate((phys, state, oper, admin, widthg, lane)):
        V[:, :, len(COUNTERS) + gi] = g[ti, cols]
    V[:, :, -1] = np.rint(temp[ti, cols]).astype(np.int64)
    has_mod = module[ti, cols]

    # ---------------------------------------------------------------- write
    os.makedirs(outdir, exist_ok=True)
    fields = COUNTERS + GAUGE_FIELDS
    tmpl_m, tmpl_n = [], []
    for i in range(P):
        tags = f"port_counters,device={F.dev[i]},port={F.port[i]},fabric=ib,role={F.role[i]}"
        if F.rail[i] is not None:
            tags += f",rail={F.rail[i]}"
        if F.peer_dev[i] is not None:
            tags += f",peer_device={F.peer_dev[i]},peer_port={F.peer_port[i]}"
        tags += f",speed={F.speed[i]} "
        body = ",".join(f"{f}=%di" for f in fields)
        tmpl_n.append(tags + body + " %d\n")
        tmpl_m.append(tags + body + ",module_temperature=%di %d\n")
    tns = (np.int64(T0) * 10**9 + np.rint(tau * 1e9).astype(np.int64))
    n_lines = 0
    with open(os.path.join(outdir, "port_counters.lp"), "w", buffering=1 << 22) as fh:
        for k in range(NR):
            idx = np.flatnonzero(present[k])
            if not len(idx):
                continue
            idx = idx[np.argsort(tns[k, idx], kind="stable")]
            rows = V[k, idx].tolist()
            tk = tns[k, idx].tolist()
            hm = has_mod[k, idx].tolist()
            buf = []
            for i, row, t_, m in zip(idx.tolist(), rows, tk, hm):
                if m:
                    buf.append(tmpl_m[i] % (*row, t_))
                else:
                    buf.append(tmpl_n[i] % (*row[:-1], t_))
            n_lines += len(buf)
            fh.write("".join(buf))

    # ---------------------------------------------------------------- labels
    def pe(i):
        """The far end of port i's cable: a polled switch port, or a host HCA that is not polled."""
        if F.peer[i] >= 0:
            return [{"device": F.dev[int(F.peer[i])], "port": F.port[int(F.peer[i])]}]
        if F.peer_dev[i] is not None:
            return [{"device": F.peer_dev[i], "port": F.peer_port[i], "polled": False}]
        return []

    def rel(ports):
        out = {}
        for i in ports:
            out.setdefault(F.dev[int(i)], []).append(F.port[int(i)])
        return [{"device": d, "ports": p} for d, p in out.items()]

    def fault(kind_, dev, ports, a, b, peers, related, signature, **extra):
        faults.append(dict(kind=kind_, device=dev, ports=ports, start_ns=ns(a), end_ns=ns(min(b, DUR)),
                           peer_ends=peers, related=related, signature=signature, **extra))

    hname = lambda q: F.hosts[F.q_host[q]]["name"]
    fault("reduced_link_width", F.dev[u1], [F.port[u1]], f1_a, f1_b, pe(u1), rel(rel1),
          "leaf uplink bounced (link_downed +1 on both ends) and retrained at 1x: link_width_active 1 "
          "instead of 4 on both ends while the speed tag and link_speed_active stay HDR; port_xmit_data/"
          "port_rcv_data capped at ~1/4 of 200G; port_xmit_wait on both egresses most of the time because "
          "static routing still hashes the same flows onto it; mild waits on other leaves' uplinks into the "
          "same spine (related)" + ("; fixed by a reseat (second bounce), back at 4x" if f1_fix is not None
                                    else "; not fixed before the end of the run"))
    f2_end = f2_b
    fault("load_dependent_symbol_errors", F.dev[f2_rx], [F.port[f2_rx]], f2_a_ev, f2_end, pe(f2_rx), [],
          "bad cable: symbol_errors at the receiving port in proportion to the traffic it receives (about "
          f"{c2:.0f}/s at full load, ~0 when the job pauses), port_rcv_errors ~12 % of them, "
          "link_error_recovery every few minutes under load (with a burst of symbol errors)"
          + ("; the cable is replaced at the end (a link down/up)" if f2_fix is not None else ""))
    fault("slow_hca_pcie", F.dev[p3], [F.port[p3]], f3_a, f3_b, pe(p3), rel(rel3),
          f"HCA {hname(q3)}/mlx5_{F.links[q3]['hca']} degraded on PCIe: the leaf port transmits ~1/3 of what "
          "the same host's sibling rails receive, port_xmit_wait on the leaf port 55-85 % of the time while "
          "the job communicates; congestion spreads to the spine port that routes its LID and to the "
          "uplinks of the other SU a leaves that send to it (related)")
    err4_peers = [x for i in err4 for x in pe(i)]
    fault("fan_failure_overheating", leaf4, ["*"], f4_a, f4_b, err4_peers, [],
          "fan failure: module_temperature on every cabled port of the leaf climbs ~20 C over an hour (a "
          "slow fault: only temperature for the first ~50 min), then symbol_errors (with a few "
          f"port_rcv_errors) on {len(err4)} ports ({', '.join(F.port[i] for i in err4)}) growing with the "
          "temperature" + ("; the fan is replaced and temperatures fall back within minutes"
                           if f4_repl is not None else "; not fixed before the end of the run"),
          first_error_ns=ns(first4 * TICK) if first4 < NT else None)
    fault("flapping_host_link", F.dev[p5], [F.port[p5]], flap[0][0], f5_b, pe(p5), [],
          f"host port to {hname(q5)}/mlx5_{F.links[q5]['hca']}: six link down/up cycles in five minutes "
          "(link_downed +6, 5-15 s each, phys_state Polling and oper_status 0 in the samples that land in "
          "a down, port_state Init right after), traffic gaps, symbol errors at link-up, a few "
          "link_error_recovery")
    fault("hoq_discards_spine", F.dev[sp6], [F.port[sp6]], f6_a, f6_b, pe(sp6), [],
          "spine egress towards a leaf: port_xmit_discards (HoQ lifetime expiry) rising from a few to "
          "~40/s while port_xmit_data falls to ~15-30 % of its sibling links, port_xmit_wait high "
          "(the far end returns few credits)")
    fault("host_link_left_down", F.dev[p7], [F.port[p7]], f7_a, f7_b, pe(p7), [],
          f"after the planned power cycle of rack {R_pc}, {hname(q7)} and its other rails came back but "
          f"mlx5_{k7} did not: phys_state Polling, port_state Down, oper_status 0 with admin_status 1, "
          "no traffic" + ("; fixed by a reseat (link up)" if f7_b < DUR else "; still down at the end"))
    fault("switch_relay_errors_port_group", F.dev[grp[0]], [F.port[i] for i in grp], f8_a, f8_b,
          [x for i in grp for x in pe(i)], [],
          "bad ASIC port group: port_rcv_switch_relay_errors burst on 4 consecutive spine ports (two split "
          "cages) at tens per second, following their received packets; nothing elsewhere on the spine")
    fault("buffer_overrun_link_integrity", F.dev[u9], [F.port[u9]], f9_a_ev, f9_b_ev, pe(u9), [],
          "leaf uplink: excessive_buffer_overrun_errors and local_link_integrity_errors (4-bit counters, "
          "they stop at 15) increment every minute or two, each with a burst of port_rcv_errors "
          "(tens to hundreds) and, with the integrity errors, a few symbol_errors")
    for f in faults:
        assert f["start_ns"] >= ns(TRAIN), f
        assert f["end_ns"] > f["start_ns"], f

    # healthy phenomena
    j1w = devw([leaves[L][0] for L in L_a])
    hp("training_job_allreduce", j1w, 0, DUR,
       "J1 data-parallel pretraining on SU a: all-reduce bursts (host ports 30-70 % of line, varying "
       "from sample to sample), ~16 % of it crossing the uplinks (cross-rail)", True)
    hp("training_job_moe", W(F.q_leafport[q2job]) + devw([leaves[L][0] for L in L_b + L_c]) + devw(spines_all),
       0, DUR, "J2 MoE training on SU b and rack 7: dense (all-to-all heavy) and light phases of 15-40 min; "
                "credit waits on SU b/c uplinks and spine ports rise in the dense phases", True)
    for a, b in j2_dense_win:
        hp("moe_dense_phase", devw([leaves[L][0] for L in L_b + L_c]) + devw(spines_all), a, b,
           "J2 dense phase: more traffic and xmit_wait on SU b/c uplinks and spine ports")
    for a, b in evals:
        hp("evaluation_pause", j1w, a, b, "J1 evaluation: host ports and SU a uplinks nearly idle, then back")
    for a, b in ckpts:
        hp("checkpoint_burst", W(ckports_st) + j1w + devw([leaves[L][0] for L in L_c]) + devw(spines_all), a,
           b + 60, "J1 writes a checkpoint to the 8 storage hosts (rack 6): storage leaf ports near line rate, "
                   "xmit_wait on storage ports, on spine ports into SU c and on SU a uplinks; J1's all-reduce "
                   "pauses meanwhile")
    for a, b in incasts:
        hp("parameter_server_incast", W(sorted(incast_ports)), a, b + 30,
           "J1's 48 hosts per rail push to a parameter server (gpu-r7-08): its 4 leaf ports at line rate, "
           "xmit_wait on them, on the spine port routing each of its LIDs and on the SU a uplinks that "
           "carry the flows (several leaf and spine ports at once)")
    hp("planned_rack_power_cycle", W(pc_ports), t_pc, pc_up_max + 30,
       f"rack {R_pc} powered off and on (~10 min): all its hosts' leaf ports go down (link_downed +1, a few "
       "port_xmit_discards of flushed packets), phys_state Polling, then come back, port_state Init for a "
       "moment, a few symbol errors at link-up")
    hp("job_drain_restart", W(F.q_leafport[q2job]) + devw([leaves[L][0] for L in L_b + L_c]) + devw(spines_all),
       j2_drain[0], j2_drain[1] + 120, "J2 drained before the rack power cycle and restarted after it")
    uncab = [i for i in range(P) if not cabled[i]]
    hp("never_cabled_ports", W(uncab), 0, DUR,
       "leaf ports 37-40 and spine cages 28-32 never cabled: phys_state Polling, port_state Down, "
       "admin_status 1, all counters 0, no module_temperature", True)
    hp("new_rack_cabled", W(p_new), t_nr, nr_last_up + 60,
       "rack 8 (8 hosts x 4 HCAs) cabled one link at a time: module_temperature appears, the link trains, "
       "port_state Init then Active, counters count from 0 (never used before)")
    hp("new_rack_burn_in", W(p_new), t_burn, t_burn_b + 30,
       "nccl-tests burn-in on the new rack: its host ports near line rate for ~10 min, mostly leaf-local")
    hp("sporadic_symbol_errors", W(spor), 0, DUR,
       "isolated symbol errors (0.5-3 an hour, sometimes with one port_rcv_error) on ~4 % of healthy links",
       True)
    hp("relay_error_trickle", W(relay_bg), 0, DUR,
       "a slow steady trickle of port_rcv_switch_relay_errors on a few host ports (0.002-0.01/s)", True)
    hp("routing_imbalance", W(pol) + W([F.peer[i] for i in pol]), 0, DUR,
       "static routing puts ~1.45x the flows of their siblings on two uplinks, since the start", True)
    for sw in sweep_all:
        hp("sm_heavy_sweep", ["*"], sw, sw + 30,
           "subnet manager heavy sweep (periodic, or after a topology change): vl15_dropped +1-3 on a few % "
           "of ports, MAD packets everywhere")
    hp("sm_light_sweeps", ["*"], 0, DUR, "SM light sweeps and the collector's own MADs: a few packets/s on "
                                          "every up port even when idle", True)
    hp("collector_outage", ["*"], out_lo, out_hi + LEAF_POLL,
       "no samples from any device for 6 minutes; counters keep counting, the next delta spans the gap")
    hp("operator_counter_reset", [f"{rst_dev}:*"], t_rst, t_rst + 120,
       f"operator ran perfquery -R (and -x -R) on every port of {rst_dev}: every counter, data and error, "
       "restarts from 0")
    hp("counter_wrap_32bit", devw([leaves[L][0] for L in L_svc]), 0, DUR,
       "leaf-svc-1/2 export classic 32-bit PortCounters: port_xmit_data/port_rcv_data (4-octet words) and "
       "packet counters wrap modulo 2^32 (data every ~20 s to minutes; at most one wrap per 15 s poll)", True)
    hp("ambient_temperature_drift", ["*"], 0, DUR,
       "module temperatures drift +-1.3 C with the room and follow load by ~2 C", True)

    devices = [dict(name=d, role=r, model=m, family=fa, poll_s=p,
                    data_counter_bits=32 if fa == "hdr-pc32" else 64,
                    ports=len(F.dev_ports[d])) for d, r, m, fa, p in F.devices]
    notes = {
        "summary": (f"mixed InfiniBand fat tree: {len(L_a + L_b + L_c)} HDR compute/storage leaves "
                    f"(QM8700, 40 ports), 2 HDR service leaves of another family (32-bit PortCounters only), "
                    f"4 NDR spines (QM9700, cages 1-27 split 2x200G towards the leaves, 28-32 unsplit 400G "
                    f"and unused); {Q} host links, {int(is_up.sum())} leaf-spine links, {P} polled ports."),
        "hosts": "racks 0-2: 24 GPU hosts x 8 HCAs (SU a, leaf-a-r0..7); racks 3-5: 24 GPU hosts x 4 HCAs "
                 "(SU b, leaf-b-r0..3); rack 6: 8 storage hosts x 4 HCAs, rack 7: 8 GPU hosts x 4 HCAs, "
                 "rack 8: new rack (8 GPU hosts x 4 HCAs, cabled mid-run) on SU c (leaf-c-r0..3); 24 service "
                 "nodes dual-homed on leaf-svc-1 (mlx5_0) and leaf-svc-2 (mlx5_1). One rail per HCA: HCA "
                 "mlx5_k of a host goes to its SU's rail-k leaf.",
        "ports": "leaf ports 1-24 face hosts (role leaf_down), 25-36 face the spines (leaf_up; port 25+3s+j is "
                 "the j-th link to spine-(s+1)), 37-40 never cabled. Spine port 'c/h' is half h of split cage "
                 "c (role spine); unsplit cages 28-32 are ports '28'..'32' at 400G, never cabled.",
        "tags": {"device": "switch node description", "port": "switch port", "fabric": "ib",
                 "role": "leaf_down | leaf_up | spine (no host-side counters are modelled)",
                 "rail": "rail of the leaf (a spine port carries the rail of the leaf it faces); absent on "
                         "the service leaves and unused spine ports",
                 "peer_device/peer_port": "far end from the cabling plan (host name and HCA mlx5_k for host "
                                          "ports); absent on never-cabled ports; present on the new rack's "
                                          "ports from the start (planned)",
                 "speed": "nominal port speed: 200G (HDR, also split NDR ports), 400G (unsplit NDR)"},
        "fields": {
            "port_xmit_data / port_rcv_data": "cumulative data in 4-octet words (PortXmitData/PortRcvData); "
                                              "64-bit (PortCountersExtended) except family hdr-pc32 where "
                                              "they are 32-bit and wrap modulo 2^32",
            "port_xmit_pkts / port_rcv_pkts": "cumulative packets; 64-bit, 32-bit wrapping on hdr-pc32",
            "port_xmit_wait": f"ticks ({WAIT_TICK_NS} ns) during which the port had data but no credits; "
                              "64-bit, 32-bit saturating on hdr-pc32",
            "symbol_errors, port_rcv_errors, port_rcv_remote_physical_errors, port_rcv_switch_relay_errors, "
            "port_xmit_discards, vl15_dropped": "16-bit, saturate at 65535",
            "link_error_recovery, link_downed, port_xmit_constraint_errors, port_rcv_constraint_errors":
                "8-bit, saturate at 255",
            "local_link_integrity_errors, excessive_buffer_overrun_errors": "4-bit, saturate at 15",
            "phys_state": "gauge, PortPhysicalState: 2 Polling (no peer / peer off), 4 training, 5 LinkUp",
            "port_state": "gauge, logical PortState: 1 Down, 2 Init (up, not yet activated by the SM), 4 Active",
            "oper_status": "gauge, 1 when port_state is Active, else 0",
            "admin_status": "gauge, 1 enabled (every port here is enabled)",
            "link_width_active": "gauge, active lanes (4 normally, 1 when degraded, 0 when down)",
            "link_speed_active": "gauge, per-lane signalling in Gb/s (50 = HDR; 0 when down)",
            "module_temperature": "gauge, cable module temperature in C; field absent when no module is "
                                  "plugged (never-cabled ports, the new rack before its cables)",
        },
        "timestamps": "collector time of each reply: per-device offset (leaves 0.5-5.5 s, spines 3-8 s after the "
                      "poll round) + jitter (sd 0.35 s, occasionally +0.5-2.5 s) + ~1 ms per port; lines are "
                      "time-ordered. Leaves answer every 15 s, spines every 60 s.",
        "interval_s": "60, the slowest poll cadence (score.py groups findings within 2 intervals, so a spine "
                      "port's consecutive findings stay one event); sample_s is the leaf cadence",
        "irregularities": (f"collector outage {out_lo // 60}-{out_hi // 60} min: no lines from any device; "
                           f"{rst_dev} counters reset to 0 by an operator at {t_rst / 60:.2f} min; 32-bit "
                           "wraps on leaf-svc-1/2 (at most one per 15 s poll, but several across the outage, "
                           "where their delta is ambiguous); IB error counters saturate at their classic widths"),
        "peer_ends": "for host-facing ports the far end is the host HCA, which is not polled: listed with "
                     "polled=false",
        "fault_times": "start = first evidence in the counters (a fault's physical onset, or its first error "
                       "event); end = when its evidence stops (repair, recovery, or the end of the run)",
    }
    labels = dict(
        scenario="ib-hdr-ndr-mixed", scale="single", seed=seed, fabric="ib",
        interval_s=INTERVAL_S, sample_s=LEAF_POLL, poll_s={"leaf": LEAF_POLL, "spine": SPINE_POLL},
        t0_ns=ns(0), t_end_ns=ns(DUR), train_until_ns=ns(TRAIN), fit_first=f"{TRAIN // 60}m",
        ports=P, lines=n_lines, devices=devices, notes=notes,
        faults=sorted(faults, key=lambda f: f["start_ns"]),
        healthy_phenomena=sorted(healthy, key=lambda h: h["start_ns"]),
    )
    with open(os.path.join(outdir, "labels.json"), "w") as fh:
        json.dump(labels, fh, indent=1)
    return labels, time.time() - wall


def main(argv=None):
    ap = argparse.ArgumentParser(description="labelled mixed HDR/NDR InfiniBand fat-tree telemetry")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    lab, secs = generate(a.outdir, a.seed)
    print(f"ib-hdr-ndr-mixed seed {a.seed}: {lab['ports']} ports, {lab['lines']:,} lines, "
          f"{len(lab['faults'])} faults, fit-first {lab['fit_first']} -> {a.outdir} ({secs:.1f} s)")


if __name__ == "__main__":
    main()
