#!/usr/bin/env python3
"""Labelled synthetic telemetry of a multi-plane RoCEv2 GPU fabric, for testing a degraded-link detector.

    python roce_multiplane.py OUTDIR --seed N [--hours H]        (defaults: seed 1, 4.5 h)

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement `port_counters`, raw cumulative
switch-port counters) and OUTDIR/labels.json (faults and healthy phenomena, in the form the scenario
bank's score.py reads). numpy only; the same seed gives byte-identical files, another seed moves the
faults and healthy phenomena to other ports and times and redraws the noise.

Fabric: 4 independent planes, each a 2-tier leaf/spine Clos: 8 leaves (`leaf-p<plane>-<n>`) x 4 spines
(`spine-p<plane>-<n>`), two 800G links per leaf-spine pair. 64 GPU hosts (`gpu001`..) with 4 x 400G
NICs, NIC p on plane p (`mlx5_<p>`), 8 hosts per leaf; 4 storage hosts (`stor01`..) with one NIC per
plane on two leaves of every plane. 784 switch ports. The `rail` tag carries the plane. One plane is an
older vendor family (`Eth1/<n>` port names): 32-bit packet counters that wrap, no `ecn_marked` field
and no pre-FEC BER. Counters are polled every 20 s per device with jitter (a per-device phase, tens
of ms to a few s of jitter); one leaf answers late now and then and sometimes not at all.

How the counters are made (a model at the level of what a switch counter sees, on a 5 s grid, then
sampled at each poll's own instant by interpolating the cumulative counts):
- per-NIC offered load from jobs: all-reduce iterations (compute gaps, synchronised communication
  bursts), all-to-all phases, inference with a slow daily-like swing, storage reads, checkpoints
  (many-to-few), incast, background; NICs cap at line rate; a drained plane's share moves to the
  other three planes;
- a leaf spreads the bytes leaving its hosts over its 8 uplinks by ECMP hashing (static per-link
  weights, slowly re-drawn hash collisions, links that are down or withdrawn get nothing); the spine
  ports mirror the leaf uplinks;
- each egress queue gets a pressure from its burst utilisation (not the poll average) and from
  overload (incast, checkpoint, a link below its nominal speed), from hot receivers in all-to-all
  phases and from pauses received; ECN marks are a pressure-dependent fraction of the packets it
  sends; PFC pauses are sent on the ingress ports whose traffic heads into pressured queues and
  received by the neighbour, with one hop of spreading leaf -> spine -> leaf;
- FEC corrects codewords at the link's own pre-FEC BER whether or not traffic flows; uncorrectable
  codewords corrupt the frames they hit (FCS errors follow them in proportion to load); link
  training at every link-up leaves a few;
- link state, counter resets (reboot), the error-counter clear, 32-bit wraps, missing polls and
  timestamps are applied at sampling time.
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import sys
import time

import numpy as np

T0 = calendar.timegm((2025, 6, 2, 18, 0, 0))   # start of the run (UTC)
POLL = 20                  # s between polls of one device
DT = 5                     # s, resolution of the load model
UNIT = 400e9 / 8           # bytes/s of one 400G lane group (loads are in these units)
NPL, NLF, NSP, HPL, LPS = 4, 8, 4, 8, 2    # planes, leaves/plane, spines/plane, hosts/leaf, links per pair
NHOST, NSTOR = 64, 4
NUP = NSP * LPS            # uplinks per leaf
BASE_H = 4.5               # the timeline is written for a 4.5 h run and scaled to --hours

FIELDS = ["in_octets", "out_octets", "in_pkts", "out_pkts", "in_errors", "out_errors", "in_discards",
          "out_discards", "fcs_errors", "buffer_discards", "pfc_rx_p3", "pfc_tx_p3", "ecn_marked",
          "link_transitions", "oper_status", "admin_status", "speed_bps", "fec_corrected",
          "fec_uncorrectable"]
GAUGES = {"oper_status", "admin_status", "speed_bps"}
CLEARED = ["in_errors", "out_errors", "in_discards", "out_discards", "fcs_errors", "buffer_discards",
           "fec_corrected", "fec_uncorrectable"]          # what the fabric-wide error-counter clear zeroes
WRAP32_OLD = ["in_pkts", "out_pkts"]                      # 32-bit on the older vendor family

KAPPA = 0.015      # ECN-marked fraction of departing packets per unit of egress pressure (capped at 3)
ETA = 5.0          # egress pressure added per unit of paused time imposed by the neighbour (capped at 3)
PFC_MAX = 4.0e4    # pause frames/s that keep a 400-800G port paused all the time


def qfun(rho):
    """Egress queue pressure from burst utilisation (offered burst load / capacity)."""
    return 0.3 * rho ** 2 + 2.5 * np.clip(rho - 0.72, 0, None) ** 2 + 1.5 * np.clip(rho - 1.0, 0, None)


def pausefrac(qin):
    """Fraction of the time an ingress port sits above its PFC XOFF threshold."""
    return np.minimum(0.9, 0.08 * qin ** 2.5)


# ---------------------------------------------------------------------------------------------- topology


class Topo:
    def __init__(self, rng):
        self.old_plane = int(rng.integers(NPL))
        sl = sorted(int(x) for x in rng.choice(NLF, 2, replace=False))
        self.stor_leaves = sl
        self.ep_leaf = np.array([h // HPL for h in range(NHOST)] + [sl[0], sl[0], sl[1], sl[1]])
        self.ep_name = [f"gpu{h + 1:03d}" for h in range(NHOST)] + [f"stor{s + 1:02d}" for s in range(NSTOR)]
        self.NE = NHOST + NSTOR
        D = {k: [] for k in ("dev", "port", "role", "plane", "pdev", "pport", "ep", "leaf", "spine", "j", "cap", "n")}

        def pn(old, n):
            return f"Eth1/{n + 1}" if old else f"Ethernet{8 * n}"

        def add(**kw):
            for key, v in kw.items():
                D[key].append(v)
            return len(D["dev"]) - 1

        self.HP = np.full((self.NE, NPL), -1)
        self.UP = np.full((NPL, NLF, NUP), -1)
        self.SPP = np.full((NPL, NSP, NLF, LPS), -1)
        self.devices = []
        for p in range(NPL):
            old = p == self.old_plane
            for L in range(NLF):
                name = f"leaf-p{p}-{L}"
                self.devices.append(name)
                n = 0
                for e in np.where(self.ep_leaf == L)[0]:
                    self.HP[e, p] = add(dev=name, port=pn(old, n), role=0, plane=p, pdev=self.ep_name[e],
                                        pport=f"mlx5_{p}", ep=int(e), leaf=p * NLF + L, spine=-1, j=-1, cap=1, n=n)
                    n += 1
                for j in range(NUP):
                    self.UP[p, L, j] = add(dev=name, port=pn(old, n), role=1, plane=p, pdev=f"spine-p{p}-{j // LPS}",
                                           pport="", ep=-1, leaf=p * NLF + L, spine=p * NSP + j // LPS, j=j, cap=2, n=n)
                    n += 1
            for s in range(NSP):
                name = f"spine-p{p}-{s}"
                self.devices.append(name)
                for L in range(NLF):
                    for kk in range(LPS):
                        n = L * LPS + kk
                        u = int(self.UP[p, L, s * LPS + kk])
                        i = add(dev=name, port=pn(old, n), role=2, plane=p, pdev=f"leaf-p{p}-{L}", pport=D["port"][u],
                                ep=-1, leaf=p * NLF + L, spine=p * NSP + s, j=s * LPS + kk, cap=2, n=n)
                        D["pport"][u] = pn(old, n)
                        self.SPP[p, s, L, kk] = i
        self.P = len(D["dev"])
        self.dev, self.port, self.pdev, self.pport = D["dev"], D["port"], D["pdev"], D["pport"]
        for key in ("role", "plane", "ep", "leaf", "spine", "j", "cap", "n"):
            setattr(self, key, np.array(D[key]))
        self.peer = np.full(self.P, -1)
        for p in range(NPL):
            for L in range(NLF):
                for j in range(NUP):
                    u = self.UP[p, L, j]
                    v = self.SPP[p, j // LPS, L, j % LPS]
                    self.peer[u], self.peer[v] = v, u
        self.old = self.plane == self.old_plane
        self.is_host, self.is_up, self.is_sp = self.role == 0, self.role == 1, self.role == 2
        self.dev_ports = {d: np.array([i for i in range(self.P) if self.dev[i] == d]) for d in self.devices}
        self.dev_of = np.array([self.devices.index(d) for d in self.dev])
        self.index = {(d, q): i for i, (d, q) in enumerate(zip(self.dev, self.port, strict=True))}
        self.leaf_host_ports = [np.where(self.is_host & (self.leaf == g))[0] for g in range(NPL * NLF)]
        self.leaf_up_ports = [self.UP[g // NLF, g % NLF] for g in range(NPL * NLF)]
        self.spine_ports = [np.where(self.is_sp & (self.spine == g))[0] for g in range(NPL * NSP)]

    def name(self, i):
        return f"{self.dev[i]}:{self.port[i]}"


# ---------------------------------------------------------------------------------------------- the model


class Sim:
    def __init__(self, seed, hours):
        self.seed = seed
        self.rng = rng = np.random.default_rng(seed)
        self.k = hours / BASE_H
        self.dur = int(round(hours * 3600 / POLL)) * POLL
        self.NF = self.dur // DT + 24
        self.NS = self.NF * DT
        self.tb = np.arange(self.NF) * DT                 # bin start times
        self.topo = t = Topo(rng)
        self.train_until = int(round(self.dur * 0.3 / 30)) * 30
        NF = self.NF
        NC = t.NE * NPL                                   # host NIC columns, col = ep * NPL + plane
        self.NC = NC
        z = lambda: np.zeros((NF, NC))
        self.tx_a, self.tx_p, self.txx_a, self.txx_p = z(), z(), z(), z()
        self.rx_a, self.rx_p, self.rxx_a, self.rxx_p = z(), z(), z(), z()
        self.rx_over = z()          # offered receive load beyond line rate (incast, checkpoint), per unit
        self.hq_extra = z()         # extra egress pressure on host-facing leaf queues
        self.nic_pause = z()        # pause frames/s the host NIC sends to its leaf port
        self.pm = np.ones((NF, NPL))                      # per-plane share multiplier (plane drain)
        self.hmul = rng.normal(1.0, 0.025, (t.NE, NPL))
        self.down = {}              # port -> [(a, b)] oper down (b may be inf)
        self.admin = {}             # port -> [(a, b)] admin down
        self.routeoff = {}          # uplink port -> [(a, b)] link up but carrying nothing (withdrawn)
        self.speed_chg = {}         # port -> (time, bps)
        self.resets = []            # (ports, time, fields | None)
        self.absent = []            # (ports, a, b): no lines in [a, b)
        self.faults, self.healthy = [], []
        self.fx = {}                # fault parameters used by the engine

    # ---- time helpers
    def M(self, x):
        """Template minute (of the 4.5 h timeline) -> seconds on a 30 s boundary."""
        return int(round(x * 60 * self.k / 30)) * 30

    def J(self, x, j):
        return self.M(x + self.rng.uniform(-j, j))

    def D(self, minutes):
        """A duration in minutes, shortened for runs shorter than the template."""
        return int(round(minutes * 60 * min(1.0, self.k) / 30)) * 30

    def frac(self, a, b):
        return np.clip((np.minimum(self.tb + DT, b) - np.maximum(self.tb, a)) / DT, 0.0, 1.0)

    def ns(self, tsec):
        return int(round((T0 + tsec) * 1e9))

    # ---- labels
    def fault(self, kind, ports, a, b, signature, peer_ends=(), related=(), device=None):
        t = self.topo
        if device is None:
            device, pnames = t.dev[ports[0]], [t.port[i] for i in ports]
        else:
            pnames = ["*"]
        self.faults.append({"kind": kind, "device": device, "ports": pnames,
                            "start_ns": self.ns(a), "end_ns": self.ns(min(b, self.dur)),
                            "peer_ends": [{"device": t.dev[i], "port": t.port[i]} for i in peer_ends],
                            "related": list(related), "signature": signature})

    def ok(self, kind, where, a, b, note, background=False):
        ev = {"kind": kind, "where": list(where), "start_ns": self.ns(max(a, 0)),
              "end_ns": self.ns(min(b, self.dur)), "note": note}
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    def W(self, ports):
        return [self.topo.name(int(i)) for i in ports]

    # ---- link events
    def link_down(self, i, a, b, both=True, admin=False):
        self.down.setdefault(int(i), []).append((a, b))
        if admin:
            self.admin.setdefault(int(i), []).append((a, b))
        j = int(self.topo.peer[i])
        if both and j >= 0:
            self.down.setdefault(j, []).append((a, b))

    def downfrac(self, i):
        f = np.zeros(self.NF)
        for a, b in self.down.get(int(i), []):
            f += self.frac(a, b)
        return np.clip(f, 0, 1)

    # ---- workload
    def cols(self, eps):
        eps = np.asarray(eps)
        return (eps[:, None] * NPL + np.arange(NPL)[None, :]).ravel()

    def bins(self, u, thr):
        ur = u[:self.NS].reshape(self.NF, DT)
        avg = ur.mean(1)
        act = ur > thr
        cnt = act.sum(1)
        pk = np.where(cnt > 0, (ur * act).sum(1) / np.maximum(cnt, 1), avg)
        return avg, np.maximum(pk, avg)

    def add(self, eps, avg, pk, cf, direction="both", rx_scale=1.0):
        """Per-NIC load of endpoints eps (per plane, in 400G units, as in the 4-plane layout)."""
        c = self.cols(eps)
        pl = c % NPL
        base = self.pm[:, pl] * self.hmul.ravel()[c][None, :]
        if np.ndim(avg) == 1:
            A, Pk = avg[:, None] * base, pk[:, None] * base
        else:
            A, Pk = np.repeat(avg, NPL, axis=1) * base, np.repeat(pk, NPL, axis=1) * base
        cfv = np.repeat(np.broadcast_to(np.asarray(cf, float), (len(eps),)), NPL)[None, :]
        if direction in ("both", "tx"):
            self.tx_a[:, c] += A
            self.tx_p[:, c] += Pk
            self.txx_a[:, c] += A * cfv
            self.txx_p[:, c] += Pk * cfv
        if direction in ("both", "rx"):
            A2, P2 = A * rx_scale, Pk * rx_scale
            self.rx_a[:, c] += A2
            self.rx_p[:, c] += P2
            self.rxx_a[:, c] += A2 * cfv
            self.rxx_p[:, c] += P2 * cfv

    def cross(self, eps, c_alg):
        """Fraction of a member's collective traffic that leaves its leaf."""
        lv = self.topo.ep_leaf[np.asarray(eps)]
        n = len(eps)
        same = np.array([(lv == x).sum() for x in lv])
        return c_alg * (n - same) / max(n - 1, 1)

    def allreduce(self, runs, peak, period, comm, off=(), scale=()):
        """1-s offered load of one data-parallel job: NCCL warm-up, then compute / communication
        iterations. runs: [(a, b)] when the job runs; off: [(a, b, level)] no collectives (eval,
        checkpoint write, all-to-all phase, stall); scale: [(a, b, factor)]."""
        rng = self.rng
        u = np.zeros(self.NS)
        for a, b in runs:
            b = min(b, self.NS)
            w = min(a + 75, b)
            u[a:w] = 0.02 + 0.08 * rng.random(w - a)
            tt = float(w)
            while tt < b:
                comp = period * (1 - comm) * rng.normal(1, 0.06)
                cd = period * comm * rng.normal(1, 0.06)
                a1, a2 = int(tt + comp), int(tt + comp + cd)
                u[int(tt):a1] = 0.008
                u[a1:a2] = peak * rng.normal(1, 0.03) * rng.normal(1, 0.02, max(0, min(a2, self.NS) - a1))
                tt += comp + cd
        run_mask = np.zeros(self.NS, bool)
        for a, b in runs:
            run_mask[a:b] = True
        u[~run_mask] = 0.0
        for a, b, lvl in off:
            m = run_mask[a:b]
            u[a:b] = np.where(m, lvl, 0.0)
        for a, b, f in scale:
            u[a:b] *= f
        return u

    # ---- scenario
    def build(self):
        rng, t, J, D = self.rng, self.topo, self.J, self.D
        dur, NF = self.dur, self.NF
        tb = self.tb
        perm = rng.permutation(NHOST)
        A = sorted(int(x) for x in perm[:40])        # large training job, MoE all-to-all phases
        B = sorted(int(x) for x in perm[40:56])      # fine-tune job that starts and stops
        C = sorted(int(x) for x in perm[56:64])      # inference service
        S = list(range(NHOST, NHOST + NSTOR))        # storage hosts
        self.jobs = (A, B, C)
        swing = 0.5 - 0.5 * np.cos(2 * np.pi * tb / (180 * 60 * self.k))   # low at the start, high at ~1/3
        self.swing = swing
        allp = list(range(NPL))

        # ---------------- the timeline (template minutes of a 4.5 h run, jittered per seed)
        a2a = [(J(x, 3), 0) for x in (22, 74, 128, 186, 240)]
        a2a = [(a, a + int(rng.uniform(3, 5) * 60 // 30) * 30) for a, _ in a2a]
        evals = [(a, a + 120) for a in (J(x, 2) for x in (32, 101, 171, 250))]
        ckpts = [(a, a + 180) for a in (J(x, 2) for x in (45, 116, 205))]
        b_runs = [(J(8, 2), J(57, 2)), (J(67, 2), J(121, 2)), (J(134, 2), dur)]
        incasts = [(a, a + 180) for a in (J(x, 3) for x in (52, 160))]
        host_rb = J(37, 2)
        fw0 = J(86, 3)
        drain_a = J(139, 3)
        drain_b = drain_a + D(30)
        clear_t = J(181, 3)
        srb = J(214, 3)
        adm_a = J(200, 4)
        adm_b = adm_a + D(60)
        f1a, f1b = J(96, 4), J(160, 4)
        f3a = J(105, 3)
        f3b = f3a + 360
        f4a = J(121, 3)
        f2a = J(146, 4)
        f8a = J(150, 3)
        f6a = J(177, 4)
        f5a = J(191, 4)
        f9a = J(227, 4)
        f9b = f9a + 240
        self.timeline = dict(a2a=a2a, evals=evals, ckpts=ckpts, b_runs=b_runs, incasts=incasts)

        # ---------------- where things happen
        pd = int(rng.integers(NPL))                                   # drained plane
        new_planes = [p for p in allp if p != t.old_plane]
        f1_plane = int(rng.choice([p for p in new_planes if p != pd]))
        used_links = set()      # uplink port ids of links taken by a fault or a labelled healthy event

        def link_of(i):
            return int(i) if t.is_up[i] else int(t.peer[i])

        def pick_uplink(planes, leaves=None, avoid_spines=(), busy=False):
            cands = []
            for p in planes:
                for L in range(NLF):
                    if leaves is not None and L not in leaves:
                        continue
                    for j in range(NUP):
                        u = int(t.UP[p, L, j])
                        if u in used_links or (p * NSP + j // LPS) in avoid_spines:
                            continue
                        cands.append(u)
            if busy:   # a leaf among the busiest (most hosts in the two training jobs)
                nb = np.array([sum(1 for e in A + B if t.ep_leaf[e] == t.leaf[u] % NLF) for u in cands])
                cands = [u for u, x in zip(cands, nb, strict=True) if x >= nb.max() - 1]
                u = int(rng.choice(cands))
            else:
                u = int(rng.choice(cands))
            used_links.add(u)
            return u

        # ECMP weights: static hash imbalance, slow re-draws of hash collisions, polarisation
        self.w_up = rng.normal(1.0, 0.05, t.P)
        self.w_dn = self.w_up * rng.normal(1.0, 0.03, t.P)
        pol_leaf = (int(rng.integers(NPL)), int(rng.integers(NLF)))
        pj = rng.choice(NUP, 2, replace=False)
        pol = [int(t.UP[pol_leaf[0], pol_leaf[1], j]) for j in pj]
        for u in pol:
            used_links.add(u)
            self.w_up[u] = 1.7 * rng.normal(1, 0.02)
            self.w_dn[u] = 1.7 * rng.normal(1, 0.03)

        # ---------------- plane drain: the plane's share moves to the other three
        fd = self.frac(drain_a, drain_b)
        ramp = np.clip((tb - drain_a) / 60, 0, 1) * np.clip((drain_b - tb) / 60, 0, 1)
        ramp = np.maximum(ramp, 0) * (fd > 0)
        self.pm[:, pd] = 1 - ramp
        for p in allp:
            if p != pd:
                self.pm[:, p] = 1 + ramp / 3
        self.ok("plane_drain", [f"{d}:*" for d in t.devices], drain_a, drain_b + 120,
                f"plane {pd} drained for maintenance (30 min): its ports idle but up; the other three planes carry "
                "its share and get ~1.33x busier (NICs near line rate, more ECN)")

        # ---------------- jobs
        # job A: data parallel all-reduce with MoE all-to-all phases, evals and checkpoints
        f9s = (f9a + 20, f9b + 40)
        offA = [(a, b, 0.008) for a, b in evals] + [(a, b, 0.006) for a, b in ckpts] + [(a, b, 0.0) for a, b in a2a]
        uA = self.allreduce([(0, dur + 120)], 0.90, 36, 0.6, off=offA, scale=[(f9s[0], f9s[1], 0.45)])
        self.add(A, *self.bins(uA, 0.05), self.cross(A, 0.95))
        ua = np.zeros(self.NS)
        for a, b in a2a:
            n = b - a
            env = np.clip(np.arange(n) / 20, 0, 1) * np.clip((n - np.arange(n)) / 20, 0, 1)
            ua[a:b] = env * rng.uniform(0.55, 0.95, n)
        self.add(A, *self.bins(ua, 0.05), self.cross(A, 1.0))
        a2a_on = np.zeros(NF)
        for a, b in a2a:
            a2a_on += self.frac(a, b)
        self.a2a_on = np.clip(a2a_on, 0, 1)
        hotc = self.cols(A)
        self.hq_extra[:, hotc] += self.a2a_on[:, None] * rng.lognormal(-1.6, 0.9, (NF, len(hotc)))
        for a, b in a2a:
            self.ok("alltoall_phase", ["*"], a, b + 60,
                    "MoE all-to-all phase of the 40-host job: hot receivers, ECN and PFC up on every spine port of "
                    "every plane at once, and on the uplinks")
        for a, b in evals:
            self.ok("job_pause", self.job_where(A), a, b + 60, "the training job evaluates: two minutes without collectives")
        self.ok("allreduce_iterations", ["*"], 0, dur,
                "all-reduce iterations (compute gaps and communication bursts every ~25-40 s): counters swing "
                "between polls")
        # job B: starts, stops, restarts; stalls behind the stuck NIC (fault 3)
        f3_host = int(rng.choice(B))
        offB = [(f3a + 20, f3b + 60, 0.004)]
        uB = self.allreduce(b_runs, 0.80, 24, 0.5, off=offB)
        self.add(B, *self.bins(uB, 0.05), self.cross(B, 0.9))
        for a, b in b_runs:
            self.ok("job_start", self.job_where(B), a, a + 300, f"fine-tune job starts on {len(B)} hosts")
            if b < dur:
                self.ok("job_stop", self.job_where(B), b, b + 300, "fine-tune job ends")
        # job C: inference with the slow swing
        lvl = (0.04 + 0.30 * swing)[:, None] * rng.lognormal(0, 0.12, (NF, len(C)))
        gate = np.ones((NF, len(C)))
        # rolling NIC firmware update on C's hosts (drained one by one), a host reboot in the fit window
        fw_hosts = list(C)
        rng.shuffle(fw_hosts)
        tt = fw0
        fw_where = []
        for h in fw_hosts:
            for p in allp:
                d0 = tt + 30 + rng.uniform(0, 40) + 10 * p
                self.link_down(t.HP[h, p], d0, d0 + rng.uniform(15, 45), both=False)
            ci = C.index(h)
            gate[:, ci] *= 1 - self.frac(tt, tt + 150)
            self.ok("nic_firmware_update", self.W(t.HP[h]), tt, tt + 240,
                    f"rolling NIC firmware update: {t.ep_name[h]} drained, each of its 4 NICs bounces once "
                    "(one down, one up), traffic back afterwards")
            fw_where += self.W(t.HP[h])
            tt += int(rng.uniform(3.5, 5.0) * 60)
        rb_host = int(rng.choice(C))
        for p in allp:
            d0 = host_rb + 20 + rng.uniform(0, 4)
            self.link_down(t.HP[rb_host, p], d0, d0 + rng.uniform(90, 130), both=False)
        gate[:, C.index(rb_host)] *= 1 - self.frac(host_rb, host_rb + 200)
        self.ok("host_reboot", self.W(t.HP[rb_host]), host_rb, host_rb + 260,
                f"{t.ep_name[rb_host]} rebooted (kernel update): its 4 NICs go down and up once together")
        uc = lvl * gate
        self.add(C, uc, np.minimum(uc / 0.7, 0.97), 0.7, "tx")
        self.add(C, uc * 0.6, np.minimum(uc * 0.6 / 0.7, 0.97), 0.7, "rx")
        self.ok("diurnal_load_swing", ["*"], 0, dur,
                "inference, storage reads and background traffic follow a slow daily-like swing (low at the start, "
                "high at about 1.5 h and 4.5 h)")
        # background on every endpoint: monitoring, health checks, logging
        bgl = rng.uniform(0.001, 0.004, t.NE)[None, :] * (0.7 + 0.6 * swing)[:, None] * rng.lognormal(0, 0.3, (NF, t.NE))
        self.add(list(range(t.NE)), bgl, bgl, 0.85)
        # storage reads (data loading) towards job A
        sr = (0.10 + 0.12 * swing)[:, None] * rng.lognormal(0, 0.1, (NF, NSTOR))
        self.add(S, sr, sr, 0.9, "tx")
        per = sr.sum(1) / len(A)
        self.add(A, per, per, 0.9, "rx")
        # checkpoints to the 4 storage hosts (many-to-few)
        st_where = self.W(t.HP[S].ravel()) + [f"leaf-p{p}-{L}:*" for p in allp for L in t.stor_leaves] + \
            [f"spine-p{p}-{s}:*" for p in allp for s in range(NSP)]
        cfA_st = np.array([0.0 if t.ep_leaf[e] in t.stor_leaves else 1.0 for e in A])
        for a, b in ckpts:
            f = self.frac(a, b)
            share = 0.97 * NSTOR / len(A)
            self.add(A, share * f, share * f, cfA_st, "tx")
            self.add(S, 0.97 * f, 0.97 * f, 0.85, "rx")
            ov = rng.uniform(2.0, 2.8)
            self.rx_over[:, self.cols(S)] += (ov - 1) * f[:, None] * np.tile(self.pm, (1, NSTOR))
            self.ok("checkpoint_burst", st_where + self.job_where(A), a, b + 90,
                    "checkpoint: 40 hosts write to the 4 storage hosts: storage ports saturated with heavy ECN, PFC "
                    "from the storage leaves onto their uplinks and the spines, spreading to the other leaves")
        # incast to one host
        inc_hosts = [int(rng.choice(A)), int(rng.choice([h for h in A + B if h != f3_host]))]
        for (a, b), h in zip(incasts, inc_hosts, strict=True):
            f = self.frac(a, b)
            senders = [x for x in A + B if x != h]
            self.add([h], 0.97 * f, 0.97 * f, 0.9, "rx")
            self.add(senders, 0.97 / len(senders) * f, 0.97 / len(senders) * f, 0.9, "tx")
            ov = rng.uniform(1.8, 2.5)
            self.rx_over[:, self.cols([h])] += (ov - 1) * f[:, None] * self.pm
            self.ok("incast", self.W(t.HP[h]) + [f"{t.dev[i]}:*" for i in t.HP[h]] +
                    [f"spine-p{p}-{s}:*" for p in allp for s in range(NSP)], a, b + 60,
                    f"many-to-one burst to {t.ep_name[h]}: its leaf ports at line rate, ECN high, PFC from its leaves "
                    "onto uplinks and spines")
        self.inc_hosts = inc_hosts

        # ---------------- healthy maintenance events on links
        # planned spine reboot
        avoid = set()
        # the spines that faults use are chosen first so the reboot can avoid them
        f1_spine = int(rng.integers(NSP))
        avoid.add(f1_plane * NSP + f1_spine)
        # fault 9: spine port of a busy leaf in a plane other than the ECN one
        f9_u = pick_uplink([p for p in allp if p != f1_plane], avoid_spines=avoid, busy=True)
        avoid.add(int(t.spine[f9_u]))
        f5_u = pick_uplink([p for p in allp if p != pd], avoid_spines=avoid, busy=True)
        avoid.add(int(t.spine[f5_u]))
        f6_u = pick_uplink([p for p in allp if p != pd], avoid_spines=avoid, busy=True)
        avoid.add(int(t.spine[f6_u]))
        rb_cands = [g for g in range(NPL * NSP) if g not in avoid]
        rb_g = int(rng.choice(rb_cands))
        avoid.add(rb_g)
        rb_name = f"spine-p{rb_g // NSP}-{rb_g % NSP}"
        rb_ports = t.dev_ports[rb_name]
        boot = srb + 150
        for v in rb_ports:
            u = int(t.peer[v])
            used_links.add(u)
            dn = srb + rng.uniform(1, 3)
            up = srb + rng.uniform(160, 200)
            self.down.setdefault(int(v), []).append((dn, up))
            self.down.setdefault(u, []).append((dn + rng.uniform(0, 0.5), up + rng.uniform(0, 1)))
            self.routeoff.setdefault(u, []).extend([(srb - 60, dn), (up, up + 60)])
        self.absent.append((rb_ports, srb, srb + 180))
        self.resets.append((rb_ports, boot, None))
        self.ok("spine_reboot", [f"{rb_name}:*"] + self.W(t.peer[rb_ports]), srb - 60, srb + 330,
                f"planned reboot of {rb_name}: traffic moved off a minute before, unreachable 3 min, every counter "
                "restarts from zero, each of its links goes down and up once (both ends), traffic back after")
        # planned admin-down of two ports for an hour
        adm = [pick_uplink([p for p in allp if p != pd], avoid_spines=avoid) for _ in range(2)]
        for u in adm:
            self.link_down(u, adm_a + rng.uniform(0, 20), adm_b + rng.uniform(0, 20), admin=True)
        self.ok("admin_down", self.W(adm) + self.W(t.peer[adm]), adm_a, adm_b + 90,
                "planned: two uplinks shut by an operator for an hour (admin_status 0, one transition down and one "
                "up at each end), their siblings carry their share")
        self.ok("ecmp_polarization", self.W(pol) + self.W(t.peer[pol]), 0, dur,
                "ECMP hash polarisation: two uplinks carry ~1.7x the bytes of their siblings since the start (more "
                "ECN there in bursts)")

        # ---------------- faults
        # (1) ECN mis-set on one spine
        sp1 = f"spine-p{f1_plane}-{f1_spine}"
        f1 = self.frac(f1a, f1b)
        self.fx["f1"] = dict(ports=t.dev_ports[sp1], f=f1, mark_div=rng.uniform(16, 24), pfc_mult=rng.uniform(3.2, 4.8))
        self.fault("ecn_misconfigured_switch", list(t.dev_ports[sp1]), f1a, f1b,
                   "ECN thresholds mis-set: the spine still marks but ~20x fewer marks per packet than its peer "
                   "spines at the same load; pauses from it (pfc_tx_p3, pfc_rx_p3 on the leaf uplinks facing it) 3-5x",
                   device=sp1, related=[{"device": sp1, "ports": ["*"]}] +
                   [{"device": t.dev[u], "ports": [t.port[u]]} for u in t.peer[t.dev_ports[sp1]]])
        for v in t.dev_ports[sp1]:
            used_links.add(int(t.peer[v]))
        # (3) NIC stuck sending pause frames
        p3 = int(rng.choice([p for p in allp if p != pd]))
        i3 = int(t.HP[f3_host, p3])
        c3 = f3_host * NPL + p3
        f3 = self.frac(f3a, f3b)
        self.fx["f3"] = dict(i=i3, c=c3, f=f3, first=self.frac(f3a, f3a + DT))
        self.nic_pause[:, c3] += f3 * rng.uniform(36000, 44000) * rng.lognormal(0, 0.06, NF)
        L3 = int(t.leaf[i3])
        self.fault("pfc_storm", [i3], f3a, f3b,
                   "host NIC stuck sending pause frames: pfc_rx_p3 ~40k/s on its leaf port, transmit to the host ~0, "
                   "PFC-watchdog drops (out_discards); its job stalls",
                   related=[{"device": t.dev[i3], "ports": ["*"]}] +
                   [{"device": t.dev[t.peer[u]], "ports": [t.port[t.peer[u]]]} for u in t.leaf_up_ports[L3]] +
                   [{"device": t.dev[i], "ports": [t.port[i]]} for i in t.HP[B].ravel() if i != i3])
        # (4) intermittent flap with a long period
        f4_u = pick_uplink([p for p in allp if p != pd], avoid_spines=avoid)
        tt = f4a
        for n in range(5):
            d = rng.uniform(4, 30) if n != 2 else rng.uniform(30, 55)
            self.link_down(f4_u, tt, tt + d)
            last_up = tt + d
            tt += rng.uniform(6.3, 7.7) * 60
        f4b = int(last_up // 30) * 30 + 60
        self.fault("flapping_link", [f4_u], f4a, f4b,
                   "leaf-spine link goes down 5 times, once every ~7 min (seconds to a minute each): oper_status 0 "
                   "when a poll lands in a down, link_transitions +2 each, traffic shifts to siblings, FCS/FEC "
                   "errors at link-up", peer_ends=[int(t.peer[f4_u])])
        # (2) leaf line card: 4 consecutive ports
        lc_leaves = [(p, L) for p in allp if p != pd for L in range(NLF) if L not in t.stor_leaves]
        p2, L2 = lc_leaves[int(rng.integers(len(lc_leaves)))]
        blocks = []
        for st in (0, 4, 8, 12):
            names = [f"leaf-p{p2}-{L2}"]
            blk = [int(t.index[(names[0], (f"Eth1/{st + q + 1}" if p2 == t.old_plane else f"Ethernet{8 * (st + q)}"))])
                   for q in range(4)]
            if i3 not in blk and not any(link_of(i) in used_links for i in blk if not t.is_host[i]):
                blocks.append(blk)
        lc = blocks[int(rng.integers(len(blocks)))]
        for i in lc:
            if not t.is_host[i]:
                used_links.add(link_of(i))
        self.fx["f2"] = dict(ports=lc, a=f2a)
        self.fault("line_card_fcs", lc, f2a, dur,
                   "a line card/port group going bad: FCS and in_errors on 4 consecutive ports of one leaf, rising "
                   "together (with uncorrectable and corrected FEC codewords), in proportion to the frames received",
                   peer_ends=[int(t.peer[i]) for i in lc if t.peer[i] >= 0])
        # (8) aging optic
        f8_u = pick_uplink(allp, avoid_spines=avoid)
        f8_i = f8_u if rng.random() < 0.5 else int(t.peer[f8_u])
        r8 = D(90)
        e8 = D(20)
        f8b = f8a + r8 + e8
        self.fx["f8"] = dict(i=f8_i, a=f8a, r=r8, e=e8)
        self.fault("aging_optic", [f8_i], f8a, f8b,
                   "aging optic on the receive side: pre-FEC BER and corrected FEC codewords rising steadily for "
                   "~90 min, then uncorrectable codewords and FCS errors in the last ~20 min",
                   peer_ends=[int(t.peer[f8_i])])
        # (7) link left down after maintenance (in the drained plane)
        f7_u = pick_uplink([pd], avoid_spines=avoid)
        f7_i = f7_u if rng.random() < 0.5 else int(t.peer[f7_u])
        f7a = drain_b - int(rng.uniform(3, 9)) * 60
        self.down.setdefault(f7_i, []).append((f7a, np.inf))
        self.routeoff.setdefault(f7_u, []).append((f7a, np.inf))
        self.fx["f7"] = dict(i=f7_i, far=int(t.peer[f7_i]), a=f7a)
        self.fault("link_down_after_maintenance", [f7_i], f7a, dur,
                   "link left down after the plane's maintenance: admin_status 1, oper_status 0 for the rest of the "
                   "run, the far end oper up, no traffic either way (routing withdrew it)",
                   peer_ends=[int(t.peer[f7_i])])
        # (6) uplink that drops only while congested
        self.fx["f6"] = dict(i=f6_u, a=f6a, k=rng.uniform(1.2e-3, 2.0e-3))
        self.fault("bad_buffer_profile", [f6_u], f6a, dur,
                   "uplink egress queue left on a lossy buffer profile: out_discards and buffer_discards in proportion "
                   "to its congestion (ECMP collisions, all-to-all, checkpoints), zero while it is not congested",
                   peer_ends=[int(t.peer[f6_u])])
        # (5) uplink renegotiated at half speed
        bounce = rng.uniform(8, 20)
        self.link_down(f5_u, f5a, f5a + bounce)
        for i in (f5_u, int(t.peer[f5_u])):
            self.speed_chg[i] = (f5a + bounce, 400_000_000_000)
        self.fx["f5"] = dict(i=f5_u, t=f5a + bounce)
        self.fault("half_speed_link", [f5_u], f5a, dur,
                   "uplink bounced and came back at 400G under its 800G tag (speed_bps halves at both ends); ECMP "
                   "still gives it a full share, so it congests: ECN marks, PFC, capped throughput",
                   peer_ends=[int(t.peer[f5_u])],
                   related=[{"device": t.dev[f5_u], "ports": ["*"]}, {"device": t.dev[t.peer[f5_u]], "ports": ["*"]}])
        # (9) spine port without PFC watchdog receiving a pause storm from a leaf
        v9 = int(t.peer[f9_u])
        f9 = self.frac(f9a, f9b)
        self.fx["f9"] = dict(v=v9, u=f9_u, f=f9, spread=rng.uniform(2500, 6000))
        sp9 = t.dev[v9]
        self.fault("pause_storm_no_watchdog", [v9], f9a, f9b,
                   "spine port with the PFC watchdog off receives a pause storm from its leaf (pfc_rx_p3 ~50k/s) for "
                   "4 min: its transmit stops, no watchdog drops, pauses spread from the spine to the other leaves",
                   peer_ends=[f9_u],
                   related=[{"device": sp9, "ports": ["*"]}, {"device": t.dev[f9_u], "ports": ["*"]}] +
                   [{"device": t.dev[u], "ports": [t.port[u]]} for u in t.peer[t.dev_ports[sp9]]])

        # ---------------- more healthy: slow receiver, counter clear, sporadic errors, polls
        sl_host = int(rng.choice([h for h in A if h not in inc_hosts]))
        sl_p = int(rng.integers(NPL))
        self.slow = (sl_host * NPL + sl_p, rng.uniform(700, 1400))
        self.ok("slow_receiver_pfc", self.W([t.HP[sl_host, sl_p]]), 0, dur,
                f"{t.ep_name[sl_host]} NIC {sl_p} pauses its leaf port under receive load (PCIe/host memory pressure): "
                "pfc_rx_p3 at a steady moderate level since the start, traffic continues")
        self.clear_t = clear_t
        for d in t.devices:
            tc = clear_t + rng.uniform(0, 45)
            self.resets.append((t.dev_ports[d], tc, CLEARED))
        self.ok("counter_clear", ["*"], clear_t, clear_t + 120,
                "error counters cleared fabric-wide (fcs, in/out errors and discards, buffer discards, FEC): every "
                "device drops them to zero within a minute; data, PFC and ECN counters keep counting")
        fault_ports = set()
        for f in self.faults:
            ps = t.dev_ports[f["device"]] if f["ports"] == ["*"] else [t.index[(f["device"], q)] for q in f["ports"]]
            fault_ports.update(int(i) for i in ps)
            fault_ports.update(t.index[(e["device"], e["port"])] for e in f["peer_ends"])
        pool = [i for i in range(t.P) if i not in fault_ports and i not in rb_ports]
        n3 = int(round(0.03 * t.P))
        spo = rng.choice(pool, 2 * n3, replace=False)
        self.spor_fcs = np.zeros(t.P)
        self.spor_unc = np.zeros(t.P)
        self.spor_fcs[spo[:n3]] = rng.uniform(0.5, 2.5, n3)
        self.spor_unc[spo[n3:]] = rng.uniform(0.3, 2.0, n3)
        self.ok("sporadic_fcs", self.W(spo[:n3]), 0, dur,
                "an isolated FCS error now and then (0.5-2.5 an hour) on ~3% of healthy links, since the start",
                background=True)
        self.ok("sporadic_fec_uncorrectable", self.W(spo[n3:]), 0, dur,
                "a stray uncorrectable FEC codeword now and then (0.3-2 an hour, an FCS error when it hits a frame) on "
                "~3% of healthy links, since the start", background=True)
        self.ctrl = np.where(rng.random(t.P) < 0.2, rng.uniform(0.01, 0.3, t.P), 0.0)
        self.ok("ingress_control_drops", self.W(np.where(self.ctrl > 0)[0]), 0, dur,
                "in_discards at 0.01-0.3/s (control-plane packets dropped at ingress), steady since the start",
                background=True)
        self.late_leaf = f"leaf-p{int(rng.integers(NPL))}-{int(rng.integers(NLF))}"
        self.ok("late_polls", [f"{self.late_leaf}:*"], 0, dur,
                "this leaf answers its polls late now and then (4-13 s) and misses ~3.5% of them", background=True)
        self.ok("poll_jitter", ["*"], 0, dur, "20 s polls with a per-device phase and tens of ms of jitter",
                background=True)
        self.pd, self.drain = pd, (drain_a, drain_b)

    def job_where(self, hosts):
        t = self.topo
        ports = t.HP[np.asarray(hosts)].ravel()
        leaves = sorted({t.dev[i] for i in ports})
        return self.W(ports) + [f"{d}:*" for d in leaves] + \
            [f"spine-p{p}-{s}:*" for p in range(NPL) for s in range(NSP)]

    # ---------------------------------------------------------------------------------------- engine
    def run(self):
        t, rng, NF, P, NC = self.topo, self.rng, self.NF, self.topo.P, self.NC
        ln = lambda sig, shape: rng.lognormal(-sig * sig / 2, sig, shape)
        hp_of_col = t.HP.ravel()                          # col -> port
        # host NIC availability
        avail_h = np.ones((NF, NC))
        for c in range(NC):
            avail_h[:, c] = 1 - self.downfrac(hp_of_col[c])
        # NIC line-rate cap (the NIC cannot send faster)
        sc = np.minimum(1.0, 0.97 / np.maximum(self.tx_p, 1e-9)) * avail_h
        for a in (self.tx_a, self.tx_p, self.txx_a, self.txx_p):
            a *= sc
        sc = np.minimum(1.0, 0.97 / np.maximum(self.rx_p, 1e-9)) * avail_h
        f3 = self.fx["f3"]
        rx_offered3 = self.rx_a[:, f3["c"]] * avail_h[:, f3["c"]]
        sc[:, f3["c"]] *= 1 - 0.995 * f3["f"]               # the leaf cannot send to the paused host
        for a in (self.rx_a, self.rx_p, self.rxx_a, self.rxx_p):
            a *= sc
        self.rx_over *= avail_h
        # slow receiver
        c_s, lvl = self.slow
        self.nic_pause[:, c_s] += lvl * np.clip(self.rx_a[:, c_s] / 0.25, 0, 1) * ln(0.25, NF)
        self.hq_extra[:, c_s] += self.nic_pause[:, c_s] / 8000.0

        in_u = np.zeros((NF, P))
        out_u = np.zeros((NF, P))
        rho = np.zeros((NF, P))
        cap = np.broadcast_to(t.cap.astype(float), (NF, P)).copy()
        for i, (ts_, bps) in self.speed_chg.items():
            cap[self.tb >= ts_, i] = bps / 400e9
        hp = hp_of_col
        in_u[:, hp] = self.tx_a
        out_u[:, hp] = self.rx_a
        rho[:, hp] = self.rx_p
        # ECMP: link availability and slowly re-drawn hash collisions
        ups = np.where(t.is_up)[0]
        avail_l = {}
        for u in ups:
            f = 1 - self.downfrac(u)
            f -= self.downfrac(t.peer[u]) * (f > 0)
            for a, b in self.routeoff.get(int(u), []):
                f -= self.frac(a, b)
            avail_l[int(u)] = np.clip(f, 0, 1)
        nblk = NF // 36 + 2          # elephant flows re-hashed as collectives change (every ~3 min)
        slow_up = np.repeat(rng.lognormal(-0.06, 0.35, (nblk, P)), 36, axis=0)[:NF]
        slow_dn = np.repeat(rng.lognormal(-0.06, 0.35, (nblk, P)), 36, axis=0)[:NF]
        fast = ln(0.04, (NF, P))
        f9 = self.fx["f9"]
        for g in range(NPL * NLF):
            hc = np.array([c for c in range(NC) if t.leaf[hp_of_col[c]] == g])
            U = t.leaf_up_ports[g]
            V = t.peer[U]
            Xa, Xp = self.txx_a[:, hc].sum(1), self.txx_p[:, hc].sum(1)
            Ya, Yp = self.rxx_a[:, hc].sum(1), self.rxx_p[:, hc].sum(1)
            av = np.stack([avail_l[int(u)] for u in U], 1)
            wu = self.w_up[U][None, :] * slow_up[:, U] * fast[:, U] * av
            wu /= np.maximum(wu.sum(1, keepdims=True), 1e-9)
            wd = self.w_dn[U][None, :] * slow_dn[:, U] * fast[:, V] * av
            wd /= np.maximum(wd.sum(1, keepdims=True), 1e-9)
            out_u[:, U] = Xa[:, None] * wu
            rho[:, U] = Xp[:, None] * wu / cap[:, U]
            in_u[:, U] = Ya[:, None] * wd
            rho[:, V] = Yp[:, None] * wd / cap[:, V]
        # links carry at most their (negotiated) capacity
        out_u[:, ups] = np.minimum(out_u[:, ups], 0.97 * cap[:, ups])
        in_u[:, ups] = np.minimum(in_u[:, ups], 0.97 * cap[:, ups])
        sps = t.peer[ups]
        in_u[:, sps] = out_u[:, ups]
        out_u[:, sps] = in_u[:, ups]
        # fault 9: the paused spine port sends nothing; the stalled flows and head-of-line blocking
        v9, u9, ff9 = f9["v"], f9["u"], f9["f"]
        out_u[:, v9] *= 1 - 0.995 * ff9
        in_u[:, u9] = out_u[:, v9]
        out_u[:, u9] *= 1 - 0.5 * ff9
        in_u[:, v9] = out_u[:, u9]
        others9 = np.array([v for v in t.spine_ports[t.spine[v9]] if v != v9])
        out_u[:, others9] *= (1 - 0.3 * ff9)[:, None]
        in_u[:, t.peer[others9]] = out_u[:, others9]

        # ---- egress pressure
        q = qfun(rho)
        q[:, hp] += 1.5 * self.rx_over + self.hq_extra
        q[:, t.is_sp] += self.a2a_on[:, None] * ln(0.5, (NF, int(t.is_sp.sum()))) * 0.8 * \
            np.clip(out_u[:, t.is_sp] / 0.15, 0, 1)
        q[:, ups] += self.a2a_on[:, None] * ln(0.5, (NF, len(ups))) * 0.25 * np.clip(out_u[:, ups] / 0.15, 0, 1)
        q[:, v9] = q[:, v9] * (1 - ff9) + 3.0 * ff9
        f3c_port = f3["i"]
        q[:, f3c_port] += 3.0 * f3["f"]

        def wmean(idx):
            w = out_u[:, idx]
            return (w * q[:, idx]).sum(1) / (w.sum(1) + 0.02)

        nG, nS = NPL * NLF, NPL * NSP
        Qdn = np.stack([wmean(t.leaf_host_ports[g]) for g in range(nG)], 1)
        Qin = np.zeros((NF, P))
        Qin[:, ups] = Qdn[:, t.leaf[ups]]
        # leaves pausing spines: spine egress towards a pressured leaf backs up
        q[:, sps] += np.minimum(3.0, ETA * pausefrac(Qin[:, ups]))
        Qsp = np.stack([wmean(t.spine_ports[g]) for g in range(nS)], 1)
        Qin[:, sps] = Qsp[:, t.spine[sps]]
        f1 = self.fx["f1"]
        p1 = f1["ports"]
        # a spine whose queues run deeper (ECN too late) pauses more: the leaf uplinks facing it back up
        q[:, ups] += np.minimum(3.0, ETA * pausefrac(Qin[:, sps]) *
                                np.where(np.isin(sps, p1)[None, :], 1 + 3.0 * f1["f"][:, None], 1.0))
        Qup = np.stack([wmean(t.leaf_up_ports[g]) for g in range(nG)], 1)
        cfx = self.txx_a / np.maximum(self.tx_a, 1e-9)
        Qin[:, hp] = cfx * Qup[:, t.leaf[hp]] + (1 - cfx) * Qdn[:, t.leaf[hp]]
        self.dbg = dict(q=q, Qin=Qin, in_u=in_u, out_u=out_u, rho=rho)

        # ---- packets
        base = rng.uniform(3500, 4100, P)            # mean data packet size (4096 MTU, some smaller messages)
        up_state = np.ones((NF, P))
        for i in self.down:
            up_state[:, i] = 1 - self.downfrac(i)
        trickle = np.where(t.is_host, 1.0, 8.0)[None, :] * up_state        # LLDP/BGP/BFD packets/s
        di = in_u * UNIT * ln(0.01, (NF, P))                              # RDMA data bytes/s
        do = out_u * UNIT * ln(0.01, (NF, P))
        pdi, pdo = di / base[None, :], do / base[None, :]
        acki, acko = pdo / 12, pdi / 12                                    # coalesced RC ACKs come back
        acko[:, v9] *= 1 - 0.995 * ff9                                    # a paused port sends no ACKs either
        acko[:, f3["i"]] *= 1 - 0.995 * f3["f"]
        octi = di + 64 * acki + 140 * trickle
        octo = do + 64 * acko + 140 * trickle
        pki = pdi + acki + trickle
        pko = pdo + acko + trickle
        f7 = self.fx["f7"]
        gone = self.tb >= f7["a"] + DT
        for arr in (octi, pki):
            arr[:, f7["i"]] = np.where(gone, 0.0, arr[:, f7["i"]])
            arr[:, f7["far"]] = np.where(gone, 0.0, arr[:, f7["far"]])
        lldp = 0.25 * ln(0.3, NF)                                         # the far end still says hello
        octo[:, f7["far"]] = np.where(gone, 140 * lldp, octo[:, f7["far"]])
        pko[:, f7["far"]] = np.where(gone, lldp, pko[:, f7["far"]])
        inc = {}
        inc["in_octets"] = octi * DT
        inc["out_octets"] = octo * DT
        inc["in_pkts"] = pki * DT
        inc["out_pkts"] = pko * DT

        # ---- ECN marks at egress
        marks = pdo * KAPPA * np.minimum(q, 3.0) * ln(0.3, (NF, P))       # data packets are marked
        marks[:, p1] /= (1 + (f1["mark_div"] - 1) * f1["f"])[:, None]
        inc["ecn_marked"] = rng.poisson(marks * DT).astype(float)

        # ---- PFC
        act = np.clip(in_u / (0.2 * cap), 0, 1)
        pfc_tx = PFC_MAX * pausefrac(Qin) * act * ln(0.45, (NF, P))
        pfc_tx[:, p1] *= (1 + (f1["pfc_mult"] - 1) * f1["f"])[:, None]
        L3 = t.leaf[f3["i"]]
        pfc_tx[:, t.leaf_up_ports[L3]] += 3000 * f3["first"][:, None] * ln(0.3, (NF, NUP))
        pfc_tx[:, u9] = pfc_tx[:, u9] * (1 - ff9) + ff9 * rng.uniform(46000, 54000) * ln(0.05, NF)
        pfc_tx[:, others9] += (f9["spread"] * ff9)[:, None] * np.clip(in_u[:, others9] / 0.1, 0.2, 1) * \
            ln(0.3, (NF, len(others9)))
        pfc_tx *= up_state
        pfc_rx = np.zeros((NF, P))
        pfc_rx[:, ups] = pfc_tx[:, sps]
        pfc_rx[:, sps] = pfc_tx[:, ups]
        pfc_rx[:, hp] = self.nic_pause * ln(0.1, (NF, NC)) * up_state[:, hp]
        inc["pfc_tx_p3"] = rng.poisson(pfc_tx * DT).astype(float)
        inc["pfc_rx_p3"] = rng.poisson(pfc_rx * DT).astype(float)

        # ---- link edges (for training errors and flushes)
        edn = np.zeros((NF, P))
        eup = np.zeros((NF, P))
        for i, ivs in self.down.items():
            for a, b in ivs:
                ka = int(a // DT)
                if 0 <= ka < NF:
                    edn[ka, i] += 1
                if np.isfinite(b):
                    kb = int(b // DT)
                    if 0 <= kb < NF:
                        eup[kb, i] += 1

        # ---- discards
        lossy = pko * 2e-6 * np.clip(q - 1.0, 0, None)
        f6 = self.fx["f6"]
        on6 = self.tb >= f6["a"]
        lossy6 = on6 * pko[:, f6["i"]] * f6["k"] * np.clip(q[:, f6["i"]] - 0.06, 0, None)
        bufd = rng.poisson(lossy * DT).astype(float)
        bufd[:, f6["i"]] += rng.poisson(lossy6 * DT * ln(0.3, NF))
        wd = np.zeros((NF, P))
        wd[:, f3["i"]] = f3["f"] * rx_offered3 * UNIT / 3800 + f3["f"] * 40   # PFC watchdog drops the queue
        outd = bufd + rng.poisson(wd * DT) + rng.poisson(25.0 * edn * (out_u > 0.02))
        inc["out_discards"] = outd
        inc["buffer_discards"] = bufd
        inc["in_discards"] = rng.poisson(self.ctrl[None, :] * DT * up_state).astype(float)
        inc["out_errors"] = np.zeros((NF, P))

        # ---- FEC, FCS
        ber0 = 10 ** rng.uniform(-8.7, -6.6, P)
        drift = np.repeat(rng.lognormal(0, 0.12, (NF // 60 + 2, P)), 60, axis=0)[:NF]
        ber = ber0[None, :] * drift * ln(0.08, (NF, P))
        unc = np.zeros((NF, P))
        f2 = self.fx["f2"]
        x2 = np.clip((self.tb - f2["a"]) / max(self.dur - f2["a"], 1), 0, 1)
        on2 = (self.tb >= f2["a"]).astype(float)
        r2 = on2 * 0.02 * 10 ** (2.4 * x2)                       # uncorrectable codewords/s: 0.02 -> ~5
        for i in f2["ports"]:
            wgt = rng.uniform(0.7, 1.4)
            unc[:, i] += r2 * wgt * ln(0.3, NF)
            ber[:, i] *= 1 + on2 * 40 * x2 * wgt
        f8 = self.fx["f8"]
        x8 = np.clip((self.tb - f8["a"]) / f8["r"], 0, 1)
        y8 = np.clip((self.tb - f8["a"] - f8["r"]) / f8["e"], 0, 1)
        on8 = (self.tb >= f8["a"]).astype(float)
        i8 = f8["i"]
        b8 = max(ber0[i8], 5e-8)
        ber[:, i8] = np.where(on8 > 0, b8 * 10 ** (2.2 * x8 + 0.7 * y8) * ln(0.06, NF), ber[:, i8])
        unc[:, i8] += (y8 > 0) * 0.3 * 10 ** (2.2 * y8) * ln(0.3, NF)
        unc += self.spor_unc[None, :] / 3600.0
        bitrate = cap * 400e9
        sig_ok = up_state.copy()
        sig_ok[:, f7["far"]] = 1.0                                # the far end still receives light
        fec_c = ber * bitrate / 1.35 * sig_ok
        inc["fec_corrected"] = rng.poisson(fec_c * DT).astype(float)
        nunc = rng.poisson(unc * DT * sig_ok) + rng.poisson(2.0 * eup)
        inc["fec_uncorrectable"] = nunc.astype(float)
        hitp = np.clip(0.1 + in_u / cap, 0, 1)
        fcs = rng.binomial(nunc.astype(np.int64), hitp) + rng.poisson(self.spor_fcs[None, :] / 3600.0 * DT *
                                                                      (in_u > 0.001)) + rng.poisson(1.0 * eup)
        inc["fcs_errors"] = fcs.astype(float)
        inc["in_errors"] = fcs + rng.poisson(0.04 * fcs)
        self.ber = ber
        self.dbg.update(pfc_tx=pfc_tx, pfc_rx=pfc_rx, marks=marks, pko=pko, bufd=bufd, fec_c=fec_c, unc=unc)
        return inc

    # ---------------------------------------------------------------------------------------- sampling
    def sample_times(self):
        t, rng = self.topo, self.rng
        K = self.dur // POLL + 1
        nd = len(t.devices)
        phase = rng.uniform(0.3, 6.0, nd)
        jit = rng.normal(0, 0.05, (K, nd)) + (rng.random((K, nd)) < 0.01) * rng.uniform(0.5, 3.0, (K, nd))
        present_dev = np.ones((K, nd), bool)
        li = t.devices.index(self.late_leaf)
        late = rng.random(K) < 0.12
        jit[:, li] += late * rng.uniform(4, 13, K)
        present_dev[:, li] &= rng.random(K) >= 0.035
        tdev = np.arange(K)[:, None] * POLL + phase[None, :] + np.abs(jit)
        S = tdev[:, t.dev_of] + 0.0015 * t.n[None, :]          # the walk takes a moment per port
        S = np.round(S * 1e6) / 1e6
        present = present_dev[:, t.dev_of]
        for ports, a, b in self.absent:
            m = (S[:, ports] >= a) & (S[:, ports] < b)
            sub = present[:, ports]
            sub[m] = False
            present[:, ports] = sub
        return S, present

    def interp(self, cum_inc, S):
        """Cumulative increments on the grid -> values at the sample instants."""
        NFp1 = cum_inc.shape[0]
        j = np.clip((S // DT).astype(np.int64), 0, NFp1 - 2)
        fr = (S - j * DT) / DT
        cols = np.arange(S.shape[1])[None, :]
        c0 = cum_inc[j, cols]
        c1 = cum_inc[j + 1, cols]
        return c0 + fr * (c1 - c0)

    def counters(self):
        t, rng = self.topo, self.rng
        inc = self.run()
        S, present = self.sample_times()
        K, P = S.shape
        V = np.zeros((K, P, len(FIELDS)), dtype=np.int64)
        resets = sorted(self.resets, key=lambda r: r[1])
        init = {
            "in_octets": (10 ** rng.uniform(14, 16.6, P)), "out_octets": (10 ** rng.uniform(14, 16.6, P)),
            "pfc_rx_p3": 10 ** rng.uniform(3, 8.5, P), "pfc_tx_p3": 10 ** rng.uniform(3, 8.5, P),
            "ecn_marked": 10 ** rng.uniform(5, 10.5, P), "fec_corrected": 10 ** rng.uniform(9, 13, P),
        }
        init["in_pkts"] = init["in_octets"] / rng.uniform(2500, 3900, P)
        init["out_pkts"] = init["out_octets"] / rng.uniform(2500, 3900, P)
        for f in ("fcs_errors", "in_discards", "out_discards", "buffer_discards", "fec_uncorrectable"):
            init[f] = np.where(rng.random(P) < 0.6, 0, rng.geometric(0.003, P))
        init["in_errors"] = init["fcs_errors"] + np.where(rng.random(P) < 0.8, 0, rng.integers(1, 40, P))
        init["out_errors"] = np.zeros(P)
        init["link_transitions"] = 2 * rng.integers(1, 7, P)
        for fi, f in enumerate(FIELDS):
            if f in GAUGES:
                continue
            if f == "link_transitions":
                raw = np.zeros((K, P))
                for i, ivs in self.down.items():
                    edges = sorted([a for a, b in ivs] + [b for a, b in ivs if np.isfinite(b)])
                    raw[:, i] = np.searchsorted(np.array(edges), S[:, i], side="right")
                at = lambda i, tr: float(sum(1 for a, b in self.down.get(int(i), []) for e in (a, b) if e <= tr))
            else:
                x = inc[f]
                if f not in ("in_octets", "out_octets", "in_pkts", "out_pkts"):
                    x = np.rint(x)
                cum = np.vstack([np.zeros((1, P)), np.cumsum(x, axis=0)])
                raw = np.floor(self.interp(cum, S))
                at = None
            val = raw + np.floor(init[f])[None, :]
            for ports, tr, flist in resets:
                if flist is not None and f not in flist:
                    continue
                ports = np.asarray(ports)
                if at is None:
                    base = np.floor(self.interp(cum, np.full((1, P), float(tr))))[0, ports]
                else:
                    base = np.array([at(i, tr) for i in ports])
                m = S[:, ports] >= tr
                sub = val[:, ports]
                sub = np.where(m, raw[:, ports] - base[None, :], sub)
                val[:, ports] = sub
            if f in WRAP32_OLD:
                old = t.old
                val[:, old] = np.mod(val[:, old], 2 ** 32)
            V[:, :, fi] = val.astype(np.int64)
            del raw, val
        # gauges
        oper = np.ones((K, P), dtype=np.int64)
        adm = np.ones((K, P), dtype=np.int64)
        for i, ivs in self.down.items():
            for a, b in ivs:
                oper[(S[:, i] >= a) & (S[:, i] < b), i] = 0
        for i, ivs in self.admin.items():
            for a, b in ivs:
                adm[(S[:, i] >= a) & (S[:, i] < b), i] = 0
        spd = np.broadcast_to(t.cap * 400_000_000_000, (K, P)).astype(np.int64).copy()
        for i, (ts_, bps) in self.speed_chg.items():
            spd[S[:, i] >= ts_, i] = bps
        V[:, :, FIELDS.index("oper_status")] = oper
        V[:, :, FIELDS.index("admin_status")] = adm
        V[:, :, FIELDS.index("speed_bps")] = spd
        # pre-FEC BER: read with the optics, every 15th poll (300 s), where the platform gives it
        nd = len(t.devices)
        ph = rng.integers(0, 15, nd)[t.dev_of]
        ber_s = (np.arange(K)[:, None] % 15 == ph[None, :]) & (~t.old)[None, :] & (oper == 1)
        j = np.clip((S // DT).astype(np.int64), 0, self.NF - 1)
        berv = self.ber[j, np.arange(P)[None, :]]
        return S, present, V, ber_s, berv

    # ---------------------------------------------------------------------------------------- output
    def write(self, outdir):
        t = self.topo
        os.makedirs(outdir, exist_ok=True)
        S, present, V, ber_s, berv = self.counters()
        K, P = S.shape
        fmts, fmts_b = [], []
        for i in range(P):
            role = ("leaf_down", "leaf_up", "spine")[t.role[i]]
            speed = "400G" if t.cap[i] == 1 else "800G"
            tags = (f"port_counters,device={t.dev[i]},port={t.port[i]},fabric=roce,role={role},rail={t.plane[i]},"
                    f"peer_device={t.pdev[i]},peer_port={t.pport[i]},speed={speed}")
            body = ",".join(f"{f}=%di" for f in FIELDS if not (f == "ecn_marked" and t.old[i]))
            fmts.append(tags + " " + body + " %d\n")
            fmts_b.append(tags + " " + body + ",pre_fec_ber=%.3e %d\n")
        tsn = (np.round(S * 1e6).astype(np.int64) * 1000) + T0 * 10 ** 9
        kk, ii = np.nonzero(present)
        order = np.lexsort((ii, tsn[kk, ii]))
        kk, ii = kk[order], ii[order]
        n_lines = 0
        with open(os.path.join(outdir, "port_counters.lp"), "w", buffering=1 << 22) as fh:
            CH = 40000
            for s0 in range(0, len(kk), CH):
                k_, i_ = kk[s0:s0 + CH], ii[s0:s0 + CH]
                rows = V[k_, i_].tolist()
                ts_ = tsn[k_, i_].tolist()
                bs = ber_s[k_, i_].tolist()
                bv = berv[k_, i_].tolist()
                old = t.old[i_].tolist()
                eci = FIELDS.index("ecn_marked")
                buf = []
                for r, i, tt, b, bvv, o in zip(rows, i_.tolist(), ts_, bs, bv, old, strict=True):
                    if o:
                        del r[eci]
                    if b:
                        buf.append(fmts_b[i] % (*r, bvv, tt))
                    else:
                        buf.append(fmts[i] % (*r, tt))
                n_lines += len(buf)
                fh.write("".join(buf))
        labels = {
            "scenario": "roce-multiplane", "scale": "small", "seed": self.seed, "fabric": "roce",
            "interval_s": 30, "sample_s": POLL,
            "t0_ns": self.ns(0), "t_end_ns": self.ns(self.dur), "train_until_ns": self.ns(self.train_until),
            "fit_first": f"{self.train_until // 60}m" if self.train_until % 60 == 0 else f"{self.train_until}s",
            "ports": P, "lines": n_lines, "samples_per_port": K,
            "notes": {
                "planes": NPL, "old_vendor_plane": t.old_plane,
                "old_vendor": "32-bit in_pkts/out_pkts (wrap), no ecn_marked field, no pre_fec_ber",
                "drained_plane": self.pd, "late_leaf": self.late_leaf,
                "timestamps": "per-device poll instants (20 s, phase and jitter), not on a grid",
                "extra_fields": "admin_status (vendor field); pre_fec_ber float every 15th poll on new-vendor ports",
            },
            "faults": sorted(self.faults, key=lambda f: f["start_ns"]),
            "healthy_phenomena": sorted(self.healthy, key=lambda h: h["start_ns"]),
        }
        for f in labels["faults"]:
            assert f["start_ns"] >= labels["train_until_ns"], f
        with open(os.path.join(outdir, "labels.json"), "w") as fh:
            json.dump(labels, fh, indent=1)
        return labels


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=BASE_H)
    a = ap.parse_args(argv)
    if not 2.0 <= a.hours <= 12.0:
        ap.error("--hours must be between 2 and 12")
    t0 = time.time()
    sim = Sim(a.seed, a.hours)
    sim.build()
    lab = sim.write(a.outdir)
    print(f"roce-multiplane seed {a.seed}: {lab['ports']} ports, {a.hours:g} h polled every {POLL} s, "
          f"{lab['lines']:,} lines, {len(lab['faults'])} faults, {len(lab['healthy_phenomena'])} healthy phenomena, "
          f"fit-first {lab['fit_first']} ({time.time() - t0:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
