#!/usr/bin/env python3
"""Labelled telemetry of a rail-optimised RoCEv2 leaf-spine on Arista EOS, NICs through node_exporter,
where lossy-class tail drops on hot ECMP members are part of a normal day.

    python roce_ecmp_tails.py OUTDIR [--seed N] [--hours H]        (defaults: seed 1, 4.65 h)

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement `port_counters`, one line per port per
poll, raw cumulative counters) and OUTDIR/labels.json (faults and healthy phenomena, the form the scenario
bank's score.py reads). Standard library + numpy; the same seed gives byte-identical files.
Default run: 4 h 39 min (559 polls, the first 70 min healthy and the fit window, `fit_first` 70m), 1,184 ports,
~660,000 lines, ~297 MB, ~4 s on one core. `--hours 5` gives 5 h at ~320 MB; the fit window stays 70 min and the
post-fit timeline stretches.

DATA SHEET
==========

Fabric
------
- 64 compute hosts `gpu001`..`gpu064`, 8 GPUs and 8 ConnectX-7 NICs each, 400G. Rail-optimised: NIC k of every
  host goes to rail leaf `leaf-r<k>` (k = 0..7), which has 64 host-facing ports (Arista 7060X6-64PE, 800G cages
  split 2x400G: `Ethernet1/1`, `Ethernet1/5`, ..., `Ethernet32/5`; host h on `Ethernet<h//2+1>/<1|5>`).
- One storage leaf `leaf-stor` with 4 storage nodes `stor01`..`stor04`, two 400G ports each (`enp65s0f0np0`,
  `enp65s0f1np1`) on `Ethernet1/1`..`Ethernet4/5`.
- 8 spines `spine01`..`spine08`. Every leaf has 8x400G uplinks, one to each spine (`Ethernet33/1`..`Ethernet36/5`,
  uplink to spine s+1 is the s-th); spine port `Ethernet<L//2+1>/<1|5>` faces leaf L (rail leaves 0..7, then
  `leaf-stor`). Rail leaves are 8:1 oversubscribed: collectives inside a rail stay on the leaf; the spines carry
  cross-rail traffic (MoE all-to-all without PXN, small jobs, TCP) and everything to and from storage.
- Ports: 512 compute NIC + 8 storage NIC + 520 leaf down + 72 leaf up + 72 spine = 1,184. All 400G, all optical.
- Traffic classes: priority 3 / UC queue 3 is lossless RoCEv2 (PFC + ECN, DCQCN on the NICs); priority 0 /
  UC queue 0 is lossy (TCP: storage NFS, data loading, control traffic) sharing the same ports, no PFC; it tail-drops.
- Tags: `device`, `port`, `fabric=roce`, `role` (`leaf_down` | `leaf_up` | `spine` | `nic`), `rail` (0..7; the
  storage leaf, the spine ports facing it and storage NICs carry `rail=storage`), `peer_device`, `peer_port`
  (the far end of the cable, both ways), `speed=400G`.

Collectors
----------
- Switches: EOS counters streamed by gNMI (TerminAttr native paths) into Telegraf, flattened to EOS's own names,
  one poll per switch every 30 s; every port of a switch carries its poll's timestamp (+0.35 ms per port).
  Each switch polls at its own offset (1-6 s after the 30 s mark) with ~0.1 s jitter and a late poll (1-4 s)
  about 1% of the time. Timestamps are therefore NOT multiples of 30 s; counters are the values at that instant.
- Hosts: node_exporter (ethtool + netclass collectors) scraped by Prometheus every 30 s at a per-target offset
  of 2-20 s; fields keep the mlx5 ethtool stat names. One line per NIC netdev (`enp24s0np0`, `enp42s0np0`,
  `enp59s0np0`, `enp93s0np0`, `enp154s0np0`, `enp171s0np0`, `enp186s0np0`, `enp219s0np0` for rails 0..7).
- Missed polls: ~0.15% of switch polls and ~0.1% of host scrapes are missing, one leaf has a 2-4 poll collector
  gap and one host a 3-6 scrape gap; a rebooting switch has no lines while it is down.

Fields, switch ports (all cumulative integers unless noted)
-------------------------------------------------------
  inOctets outOctets inUcastPkts outUcastPkts   traffic (both classes)
  inDiscards                                    ingress drops (control-plane trickle; lossless-ingress drops)
  outDiscards                                   egress drops = uc0Drops + uc3Drops + link flush (increments;
                                                the cumulative values started from different clears)
  fcsErrors                                     frames received with a bad FCS
  uc0Drops uc3Drops                             egress unicast queue 0 (lossy) / queue 3 (lossless) drops,
                                                queue 3 includes PFC-watchdog drops
  rxPfc3 txPfc3                                 PFC pause frames for priority 3 received / sent
  ecnMarked3                                    packets CE-marked by egress queue 3 (WRED-ECN)
  fecCorrected fecUncorrected                   RS-FEC (KP4) codewords, receive side
  linkStatusChanges                             +1 per oper state change (a down+up flap is +2)
  operStatus adminStatus                        gauges, IF-MIB encoding: 1 = up, 2 = down
  xcvrTemp                                      gauge, float (0.1 C), temperature of the port's optic
  (no speed field: the `speed` tag says 400G and nothing renegotiates here)
Fields, NIC ports (node_exporter; its ethtool metrics-include filter keeps bytes, errors, pause and ECN/CNP
stats, not packet counts)
  rx_bytes_phy tx_bytes_phy rx_discards_phy rx_crc_errors_phy
  rx_prio3_pause tx_prio3_pause               pause frames received from / sent to the leaf (priority 3)
  np_ecn_marked_roce_packets                  CE-marked RoCE packets received (notification point)
  rp_cnp_handled                              CNPs received and acted on (reaction point, i.e. as sender)
  link_down_events_phy                        +1 per carrier loss
  carrier                                     gauge, 1 = carrier up, 0 = down (netclass)

What is normal here
-------------------
- Jobs: one dense pre-training job on 22-26 hosts (rail-local all-reduce, 6-10% of bytes cross rails, checkpoints
  about hourly, two short eval pauses), one MoE job on 16 hosts (16% cross-rail, and all-to-all phases of 3-9 min
  every 15-40 min where ~40% of its bytes cross rails), three lanes of short jobs (15-75 min) starting and
  stopping on 14 hosts, 4 inference hosts with steady light traffic, 4-8 idle hosts. Host ports run ~30-45%
  (all-reduce bursts near line rate), idle ones ~0.1%.
- ECMP: every job start/stop (and the spine drain/undrain) re-hashes the flows: each leaf's uplinks get unequal
  shares, +-20-50% around the mean, redrawn at each change. Spine ports toward a leaf are more even (they
  average over the sending leaves). Uplinks and spine ports carry ~25-45% normally; in all-to-all phases spine
  ports run 70-90% (median ~77%) and uplinks 40-100%, the hottest ECMP members offered more than line rate.
- Lossy tail drops: egress queue 0 of an uplink, spine port or storage-leaf port drops once it is full (offered a
  little beyond line rate): ~1e-7 of all its packets there, up to ~1e-5 when offered 2.5x. 95% of the
  uplink/spine intervals with such drops are at >= 90% load, none below ~85%. In the fit window they appear in ~40 of 140 intervals: the 4-6 hottest
  uplinks of an all-to-all phase, and the storage-facing ports in the first checkpoint (each episode is
  labelled `hot_port_lossy_drops`). Lossless queue 3 never drops (except in link flushes and PFC-watchdog
  action). Host-facing ports drop lossy packets only under extreme incast (rare).
- Checkpoint incast: all hosts of a job write to the 4 storage nodes (mostly RDMA on priority 3, ~30% NFS on
  priority 0) for 3-8 min at 1.3-2.2x what the storage leaf can take: the spine ports facing `leaf-stor` and its
  storage ports sit at ~97%, mark heavily, drop lossy packets (2-5e-6 of all their packets, ~1e-5 of the lossy
  ones), and PFC spreads back through the
  spines to the rail leaves and hosts; storage NICs pause their leaf a little.
- ECN marks are always present on busy lossless queues; PFC is routine at the host ports during all-reduce
  bursts (10^1-10^3 frames/s), much more during checkpoints.
- FEC: corrected codewords at a steady per-link rate (10^2.5-10^4.5 /s) on every link, independent of load;
  ~15% of cables see isolated uncorrectable codewords and FCS/CRC errors, 1-5 per hour.
- Two slow-receiver hosts pause their leaf port now and then (bounded, <~2,500 frames/s).
- ~30% of switch ports show a steady inDiscards trickle (0.01-0.3/s, control-plane drops).
- Optic temperatures 36-52 C per module, +~2.5 C with load, a slow +-0.8 C room cycle.
- Planned maintenance after the fit window: one spine is BGP-drained, its ports admin-down (adminStatus 2,
  operStatus 2 on both ends, linkStatusChanges +1), rebooted (no lines for 4-5.5 min, then every counter of the
  spine restarts from ~0, linkStatusChanges from 0), admin-up after 20 min, undrained a minute later.

Faults (9 per seed, a 10th on about half the seeds), all after the fit window, placed by the seed
-------------------------------------------------------------------------------------------------
- ecmp_polarization: at a job change one uplink of a rail leaf gets 5-20x the hash share of its siblings for
  30-60 min: offered load beyond line rate, queue-0 tail drops, heavy ECN, PFC from the leaf to its hosts.
- bad_buffer_profile: a spine egress port with a shallow/misconfigured queue-0 buffer: tail-drops from 40-50%
  load (~1e-6..3e-5 of its packets, more at higher load) where its siblings do not drop at all; starts with the
  first such drop (the port is one that runs between 40% and 75% during the window).
- dirty_optic: on a leaf uplink, a spine port or a host-facing leaf port (receive side): fecCorrected x20-100,
  fecUncorrected growing from ~0.02/s to 1-10/s, fcsErrors with them (far end ~3%); ends with the cleaning bounce.
- flapping_link: a leaf-spine or host link goes down/up 4-15 times in 2-3 bursts (linkStatusChanges +2 each,
  operStatus 2 in samples that land in a down, carrier/link_down_events_phy on the host, flush drops, FCS/FEC
  at link-up, ECMP shifting to siblings).
- pfc_storm: a host NIC sends pause frames without end (tx_prio3_pause / rxPfc3 30-80k/s), the leaf sends
  ~nothing to it, the PFC watchdog drops queue 3; its job stalls (related: the leaf, the job's ports).
- ecn_disabled_switch: one rail leaf stops CE-marking on all ports while the other rail leaves, carrying the same
  jobs, keep marking; it pauses its hosts and spines several-fold more (related: neighbours).
- link_down_after_maintenance: after the spine is restored one of its links stays oper-down with both ends
  admin-up, until it is reseated 30-80 min later.
- lossless_drops: a host-facing leaf port without PFC/no-drop on priority 3: uc3Drops (and inDiscards)
  at 1e-6..1e-4 of its traffic under ordinary load, and it never sends PFC.
- overheating_optic: a module heats ~20 C over an hour, then FEC/FCS errors on the link for 15-30 min, then
  it is replaced (a 4-8 min bounce) and reads normal again.
- (about half the seeds) dirty_optic on the host side: rx_crc_errors_phy growing on one NIC.
Label times: on 30 s boundaries (nominal grid; the polls lag it by seconds); start at the first symptom; end when
it stops. Interval k is (t0 + 30(k-1), t0 + 30k]; the polls of interval k lie in the 30 s after t0 + 30k.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import zlib
from collections import defaultdict

import numpy as np

DT = 30
NSEC = 10**9
T0 = 1748851200                 # 2025-06-02T08:00:00Z
LINE = 400e9 / 8 * DT           # bytes per interval at 400 Gb/s
NR, NH, NS = 8, 64, 8           # rails (= rail leaves), compute hosts, spines
NSN = 8                         # storage NIC ports (4 nodes x 2)
LS, NL = 8, 9                   # storage leaf index, number of leaves
BUS = (24, 42, 59, 93, 154, 171, 186, 219)
SZ3, SZ0 = 3900.0, 2100.0       # mean frame bytes: RoCE (4 KiB MTU, some ACK/CNP) and the TCP mix
KAPPA, BETA, PHI, ETA = 0.03, 1.5e-4, 2.3, 0.5
PHI_CK = 0.3                    # share of checkpoint bytes on the lossy class (NFS)
C3, C0 = 0, 1                   # class index: priority 3 (lossless), priority 0 (lossy)

SW_FIELDS = ["inOctets", "outOctets", "inUcastPkts", "outUcastPkts", "inDiscards", "outDiscards", "fcsErrors",
             "uc0Drops", "uc3Drops", "rxPfc3", "txPfc3", "ecnMarked3",
             "fecCorrected", "fecUncorrected", "linkStatusChanges", "operStatus",
             "adminStatus"]                                  # + xcvrTemp (float)
NIC_FIELDS = ["rx_bytes_phy", "tx_bytes_phy", "rx_discards_phy",
              "rx_crc_errors_phy", "rx_prio3_pause", "tx_prio3_pause", "np_ecn_marked_roce_packets",
              "rp_cnp_handled", "link_down_events_phy", "carrier"]
GAUGES = {"operStatus", "adminStatus", "carrier"}


def eos(n):
    """n-th 400G port of a 64x800G box with every cage split in two."""
    return f"Ethernet{n // 2 + 1}/{1 + 4 * (n % 2)}"


def nicname(r):
    return f"enp{BUS[r]}s0np0"


def railtag(L):
    return "storage" if L == LS else str(L)


# ----------------------------------------------------------------------------------------------------------
# topology


class Fabric:
    ROLES = ("leaf_down", "leaf_up", "spine", "nic")

    def __init__(self):
        self.dev, self.port, self.role, self.rail, self.pdev, self.pport = [], [], [], [], [], []
        self.leaf, self.spine, self.host, self.peer = [], [], [], []
        self.leafname = [f"leaf-r{r}" for r in range(NR)] + ["leaf-stor"]
        self.spinename = [f"spine{s + 1:02d}" for s in range(NS)]
        self.down = [[] for _ in range(NL)]
        self.up = [[0] * NS for _ in range(NL)]
        self.sp = [[0] * NL for _ in range(NS)]
        self.nic = np.zeros((NH, NR), dtype=int)
        self.snic = []
        for L in range(NL):
            for j in range(NH if L < LS else NSN):
                if L < LS:
                    pd, pp, h = f"gpu{j + 1:03d}", nicname(L), j
                else:
                    pd, pp, h = f"stor{j // 2 + 1:02d}", f"enp65s0f{j % 2}np{j % 2}", NH + j
                self.down[L].append(self._add(self.leafname[L], eos(j), 0, railtag(L), pd, pp, L, -1, h))
            for s in range(NS):
                self.up[L][s] = self._add(self.leafname[L], eos(64 + s), 1, railtag(L), self.spinename[s],
                                          eos(L), L, s, -1)
        for s in range(NS):
            for L in range(NL):
                i = self._add(self.spinename[s], eos(L), 2, railtag(L), self.leafname[L], eos(64 + s), L, s, -1)
                self.sp[s][L] = i
                self._link(i, self.up[L][s])
        for h in range(NH):
            for r in range(NR):
                i = self._add(f"gpu{h + 1:03d}", nicname(r), 3, str(r), self.leafname[r], eos(h), r, -1, h)
                self.nic[h, r] = i
                self._link(i, self.down[r][h])
        for n in range(NSN):
            i = self._add(f"stor{n // 2 + 1:02d}", f"enp65s0f{n % 2}np{n % 2}", 3, "storage", "leaf-stor", eos(n),
                          LS, -1, NH + n)
            self.snic.append(i)
            self._link(i, self.down[LS][n])
        self.P = len(self.dev)
        self.role_a = np.array(self.role)
        self.peer_a = np.array(self.peer)
        self.leaf_a = np.array(self.leaf)
        self.spine_a = np.array(self.spine)
        self.is_sw = self.role_a < 3
        self.is_nic = self.role_a == 3
        self.dev_ports = defaultdict(list)
        for i, d in enumerate(self.dev):
            self.dev_ports[d].append(i)
        self.devices = list(self.dev_ports)
        self.dev_of = np.array([self.devices.index(d) for d in self.dev])
        self.pos_in_dev = np.zeros(self.P, dtype=int)
        for d, ps in self.dev_ports.items():
            for k, i in enumerate(ps):
                self.pos_in_dev[i] = k

    def _add(self, dev, port, role, rail, pdev, pport, leaf, spine, host):
        for lst, v in ((self.dev, dev), (self.port, port), (self.role, role), (self.rail, rail),
                       (self.pdev, pdev), (self.pport, pport), (self.leaf, leaf), (self.spine, spine),
                       (self.host, host), (self.peer, -1)):
            lst.append(v)
        return len(self.dev) - 1

    def _link(self, a, b):
        self.peer[a] = b
        self.peer[b] = a

    def name(self, i):
        return f"{self.dev[i]}:{self.port[i]}"


def g_press(b):
    """Egress queue pressure from burst utilisation: ~0 below half load, ~1 at line rate."""
    return 0.02 * b ** 3 + np.clip((b - 0.55) / 0.45, 0.0, None) ** 2.5


def frac0_of(p):
    """Healthy lossy-class (queue 0) tail-drop fraction of a queue under pressure p: none until the queue is
    full (p 1.2: offered a little beyond line rate): 5e-7 of its lossy packets there (~1e-7 of all its
    packets), ~5e-5 (~1e-5 of all) when offered 2.5x line rate."""
    return np.where(p >= 1.2, np.minimum(5e-7 * (np.maximum(p, 1e-9) / 1.2) ** 3.3, 2e-4), 0.0)


# ----------------------------------------------------------------------------------------------------------


class Gen:
    def __init__(self, seed, hours):
        self.seed = seed
        self.rng = np.random.default_rng([seed, zlib.crc32(b"roce-ecmp-tails")])
        self.N = int(round(hours * 3600 / DT))
        self.T = self.N + 1
        self.dur = self.N * DT
        self.ts = np.arange(self.T, dtype=np.int64) * DT
        self.fit = self.M(70)
        self.f = Fabric()
        self.faults, self.healthy = [], []

    # ---- time helpers
    def M(self, x):
        """minutes of the 5-hour design timeline -> seconds from t0 on the 30 s grid; the fit window (70 min)
        is kept as is, later times are stretched onto the run's length"""
        if x > 70:
            x = 70 + (x - 70) * (self.dur / 60 - 70) / 230
        return int(round(x * 60 / DT)) * DT

    def frac(self, a, b):
        hi = np.minimum(self.ts, b)
        lo = np.maximum(self.ts - DT, a)
        f = np.clip((hi - lo) / DT, 0.0, 1.0)
        f[0] = 0.0
        return f

    def ns(self, t):
        return int((T0 + t) * NSEC)

    def ln(self, sig, shape):
        return self.rng.lognormal(-sig * sig / 2, sig, shape)

    def U(self, a, b):
        return float(self.rng.uniform(a, b))

    # ---- labels
    def fault(self, kind, ports, a, b, signature, related=(), device=None):
        f = self.f
        a = int(a // DT) * DT
        b = int(-(-b // DT)) * DT
        assert a >= self.fit, (kind, a, self.fit)
        if device is None:
            device, pn = f.dev[ports[0]], [f.port[i] for i in ports]
            peers = [int(f.peer_a[i]) for i in ports if f.peer_a[i] >= 0]
        else:
            pn, peers = ["*"], []
        self.faults.append({"kind": kind, "device": device, "ports": pn, "start_ns": self.ns(a),
                            "end_ns": self.ns(min(b, self.dur)),
                            "peer_ends": [{"device": f.dev[j], "port": f.port[j]} for j in peers],
                            "related": list(related), "signature": signature})

    def healthy_ev(self, kind, where, a, b, note, background=False):
        ev = {"kind": kind, "where": list(where), "start_ns": self.ns(max(0, int(a))),
              "end_ns": self.ns(min(self.dur, int(b))), "note": note}
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    def wp(self, ports):
        return [self.f.name(int(i)) for i in ports]

    def host_where(self, hosts):
        f = self.f
        return self.wp([f.nic[h, r] for h in hosts for r in range(NR)]) + \
            self.wp([f.down[r][h] for h in hosts for r in range(NR)])

    # ------------------------------------------------------------------------------------------------------
    def schedule(self):
        rng, M = self.rng, self.M
        perm = [int(x) for x in rng.permutation(NH)]
        n1 = int(rng.integers(22, 27))
        self.J1 = sorted(perm[:n1])
        self.J2 = sorted(perm[n1:n1 + 16])
        rest = perm[n1 + 16:]
        self.INF = sorted(rest[:4])
        pool = rest[4:18]
        self.IDLE = sorted(rest[18:])
        self.lanes = [pool[0:6], pool[6:10], pool[10:14]]
        # dense pre-training job: whole run, two evals, checkpoints about hourly (first inside the fit window)
        ck, t = [], M(self.U(22, 42))
        while t < M(292):
            d = M(self.U(3, 8))
            ck.append((t, min(t + d, self.dur)))
            t += d + M(self.U(50, 70))
        ev = sorted(M(x) for x in self.rng.uniform(10, 290, 2))
        ev = [(a, a + M(self.U(2, 3.5))) for a in ev if all(not (c0 - 300 < a < c1 + 60) for c0, c1 in ck)]
        self.job1 = dict(name="pretrain-dense", hosts=self.J1, start=0, end=self.dur, peak=self.U(0.8, 0.92),
                         d=self.U(0.42, 0.58), cross=self.U(0.06, 0.10), ckpts=ck, offs=ev, a2a=[])
        # MoE job: starts a few minutes in, all-to-all phases, two checkpoints
        s2 = M(self.U(3, 9))
        a2a, t = [], s2 + M(self.U(8, 14))
        while t < M(292):
            d = M(self.U(3, 9))
            a2a.append((t, min(t + d, self.dur)))
            t += d + M(self.U(14, 32))
        ck2 = []
        for lo, hi in ((80, 150), (180, 280)):
            for _ in range(20):
                a = M(self.U(lo, hi))
                b = a + M(self.U(3, 7))
                if all(b < x - 60 or a > y + 60 for x, y in a2a + ck):
                    ck2.append((a, b))
                    break
        self.job2 = dict(name="moe-pretrain", hosts=self.J2, start=s2, end=self.dur, peak=0.68, d=0.45,
                         cross=0.16, ckpts=ck2, offs=[], a2a=a2a)
        # lanes of short jobs
        self.short = []
        for li, lane in enumerate(self.lanes):
            t = M(self.U(0, 25))
            while t < M(285):
                d = M(self.U(15, 75))
                n = len(lane) if rng.random() < 0.6 else int(rng.integers(2, len(lane) + 1))
                hosts = sorted(int(x) for x in rng.choice(lane, n, replace=False))
                self.short.append(dict(name=f"job-{li}{len(self.short):02d}", hosts=hosts, start=t,
                                       end=min(t + d, self.dur), peak=self.U(0.5, 0.85), d=self.U(0.35, 0.6),
                                       cross=self.U(0.12, 0.3), ckpts=[], offs=[], a2a=[]))
                t += d + M(self.U(5, 40))
        changes = sorted({j["start"] for j in self.short + [self.job2] if j["start"] > 0}
                         | {j["end"] for j in self.short if j["end"] < self.dur})
        self.changes = changes
        # ---- faults: places and times
        rails = [int(x) for x in rng.permutation(NR)]
        self.r_pol, self.r_ecn, self.r_storm, self.r_ll, self.r_dirty, self.r_heat, self.r_flap, self.r_bb = rails
        self.s_m = int(rng.integers(NS))
        others = [s for s in range(NS) if s != self.s_m]
        self.s_bb = int(rng.choice(others))
        self.t_m = M(self.U(95, 185))
        cand = [c for c in changes if M(78) <= c <= M(240)]
        self.t_pol = int(rng.choice(cand)) if cand else min(c for c in changes if c >= M(78))
        self.t_pol_end = min(self.t_pol + M(self.U(30, 60)), self.dur - 2 * DT)
        self.pol_factor = self.U(5, 20)
        self.pol_s = int(rng.integers(NS))
        self.t_bb = M(self.U(80, 190))
        self.t_bb_end = min(self.t_bb + M(self.U(60, 110)), self.dur)
        self.t_dirty = M(self.U(80, 200))
        self.t_dirty_end = min(self.t_dirty + M(self.U(60, 140)), self.M(292))
        self.t_flap = M(self.U(80, 270))
        self.t_flap_end = min(self.t_flap + M(self.U(10, 25)), self.dur - 4 * DT)
        self.t_storm = M(self.U(80, 280))
        self.t_storm_end = min(self.t_storm + M(self.U(5, 15)), self.dur - 2 * DT)
        self.t_ecn = M(self.U(80, 240))
        self.t_ecn_end = min(self.t_ecn + M(self.U(30, 60)), self.dur)
        self.t_ll = M(self.U(80, 220))
        self.t_ll_end = min(self.t_ll + M(self.U(40, 100)), self.dur)
        self.t_heat = M(self.U(78, 190))
        self.extra = bool(rng.random() < 0.5)
        self.t_x = M(self.U(80, 230))
        self.t_x_end = min(self.t_x + M(self.U(40, 120)), self.dur)
        self.h_storm = int(rng.choice(self.J1))
        self.h_ll = int(rng.choice([h for h in self.J1 + self.J2 if h != self.h_storm]))

    # ------------------------------------------------------------------------------------------------------
    def workload(self):
        rng, T, f = self.rng, self.T, self.f
        self.hmul = rng.normal(1.0, 0.03, (NH, NR))
        z = lambda: np.zeros((T, NH, NR))
        self.intra, self.intra_rx, self.x3, self.ck, self.rd, self.tcp, self.hot = z(), z(), z(), z(), z(), z(), z()
        self.duty = np.ones((T, NH))
        self.a2a_on = np.zeros(T)
        self.ck_on = np.zeros(T)
        self.jobs_x = []            # (hosts, cross tx per rail (T, NR)) for the receive side
        storm = self.frac(self.t_storm, self.t_storm_end)
        for job in [self.job1, self.job2] + self.short:
            self.add_job(job, storm if self.h_storm in job["hosts"] else None)
        # inference hosts: steady light, a lot of TCP
        for h in self.INF:
            u = self.U(0.03, 0.08) * self.ln(0.15, (T, NR)) * self.hmul[h]
            self.intra[:, h] += 0.6 * u
            self.intra_rx[:, h] += 0.6 * u * self.ln(0.05, (T, NR))
            self.x3[:, h] += 0.4 * u
            self.jobs_x.append(([h], 0.4 * u))
            self.tcp[:, h] += self.U(0.02, 0.05) * self.ln(0.2, (T, NR))
        # background TCP and data loading on every host
        for h in range(NH):
            busy = 1.0 if h in self.J1 + self.J2 else 0.5
            if h in self.IDLE:
                busy = 0.08
            self.tcp[:, h] += busy * self.U(0.004, 0.012) * self.ln(0.25, (T, NR))
            self.rd[:, h] += busy * self.U(0.002, 0.006) * self.ln(0.3, (T, NR))
        self.tcp[0] = self.rd[0] = 0
        for x in (self.intra, self.intra_rx, self.x3, self.ck, self.hot):
            x[0] = 0
        # labels
        self.healthy_ev("idle_hosts", self.host_where(self.IDLE), 0, self.dur,
                        "hosts without a job: near-zero counters (only health checks and a trickle of TCP)")
        self.healthy_ev("inference_traffic", self.host_where(self.INF), 0, self.dur,
                        "steady light inference traffic, TCP-heavy")

    def add_job(self, job, storm):
        rng, T, M = self.rng, self.T, self.M
        hosts, n = job["hosts"], len(job["hosts"])
        a, b = job["start"], job["end"]
        act = self.frac(a, b)
        m = act - 0.7 * self.frac(a, a + 90)
        offs = job["offs"] + job["ckpts"]
        for oa, ob in offs:
            fo = self.frac(oa, ob)
            m = m * (1 - fo) + 0.015 * fo * act
        if storm is not None:
            m = m * (1 - 0.85 * storm)
        lvl = job["peak"] * job["d"] * m[:, None, None] * self.hmul[hosts][None] \
            * self.ln(0.05, (T, n, 1)) * self.ln(0.02, (T, n, NR))
        cross = np.full(T, job["cross"])
        duty = np.where(act > 0.5, job["d"] * rng.normal(1, 0.04, T), 1.0)
        a2a_m = np.zeros(T)
        for pa, pb in job["a2a"]:
            fa = self.frac(pa, pb)
            a2a_m = np.maximum(a2a_m, fa)
        if job["a2a"]:
            lvl_a = self.U(0.62, 0.70) * self.hmul[hosts][None] * self.ln(0.05, (T, n, NR))
            lvl = lvl * (1 - a2a_m[:, None, None]) + lvl_a * a2a_m[:, None, None] * (m > 0.5)[:, None, None]
            cross = cross * (1 - a2a_m) + rng.uniform(0.37, 0.42, T) * a2a_m
            duty = duty * (1 - a2a_m) + 0.9 * a2a_m
            hot = a2a_m[:, None, None] * rng.lognormal(-1.6, 0.9, (T, n, NR))
            self.hot[:, hosts] += hot
            self.a2a_on = np.maximum(self.a2a_on, a2a_m)
            for pa, pb in job["a2a"]:
                self.healthy_ev("moe_alltoall", [f"{s}:*" for s in self.f.spinename]
                                + self.wp([self.f.up[L][s] for L in range(NR) for s in range(NS)])
                                + self.host_where(hosts), pa, pb + 60,
                                "MoE all-to-all phase: ~45% of the job's bytes cross rails, uplinks and spine ports "
                                "at 80-95% (hottest ECMP members offered >100%), ECN and PFC, lossy tail drops on "
                                "the hottest")
        x = lvl * cross[:, None, None]
        self.intra[:, hosts] += lvl - x
        self.intra_rx[:, hosts] += (lvl - x) * self.ln(0.03, lvl.shape)
        self.x3[:, hosts] += x
        self.jobs_x.append((hosts, x.sum(1)))
        for h_i, h in enumerate(hosts):
            self.duty[:, h] = np.where(act > 0.5, duty, self.duty[:, h])
        for ca, cb in job["ckpts"]:
            fc = self.frac(ca, cb)
            ratio = self.U(1.3, 2.2)
            per = ratio * 0.97 * NS / (n * NR)
            self.ck[:, hosts] += per * fc[:, None, None] * self.ln(0.08, (T, n, NR))
            self.ck_on = np.maximum(self.ck_on, fc)
            f = self.f
            self.healthy_ev("checkpoint_incast",
                            [f"leaf-stor:*"] + self.wp(f.snic) + [f"{s}:*" for s in f.spinename]
                            + self.wp([f.up[L][s] for L in range(NL) for s in range(NS)])
                            + self.host_where(hosts), ca, cb + 90,
                            f"{job['name']} writes a checkpoint to the 4 storage nodes ({ratio:.1f}x what the storage "
                            "leaf can take): storage-leaf and spine ports toward it saturated, heavy ECN, lossy drops, "
                            "PFC spreading back through spines and rail leaves to the hosts")
        where = self.host_where(hosts)
        if a > 0:
            self.healthy_ev("job_start", where, a, a + 300, f"{job['name']} starts on {n} hosts (load step)")
        if b < self.dur:
            self.healthy_ev("job_stop", where, b, b + 300, f"{job['name']} ends (load drops)")
        for oa, ob in job["offs"]:
            self.healthy_ev("job_pause", where, oa, ob + 120, f"{job['name']} pauses for an eval")

    # ------------------------------------------------------------------------------------------------------
    def links(self):
        """Link events: maintenance, faults that take links down. Returns per-port state arrays."""
        rng, f, M = self.rng, self.f, self.M
        self.down = defaultdict(list)      # port -> [(a, b, planned)]
        self.admin = defaultdict(list)     # port -> [(a, b)]
        self.absent = []                   # (ports, a, b)
        self.resets = []                   # (ports, t)

        def cable(i, a, b, planned=False):
            self.down[i].append((a, b, planned))
            j = int(f.peer_a[i])
            if j >= 0:
                self.down[j].append((a, b, planned))

        # planned maintenance of spine s_m
        s, tm = self.s_m, self.t_m
        sp_ports = f.dev_ports[f.spinename[s]]
        t_adm, t_rb = tm + 60, tm + 180
        rb_len = int(self.U(240, 330))
        t_up = tm + M(20)
        self.t_undrain = t_up + 90
        self.L_ld = int(rng.choice([L for L in range(NR) if L not in (self.r_ecn, self.r_pol)]))
        ld_port = f.sp[s][self.L_ld]
        self.t_ld_fix = min(t_up + M(self.U(30, 80)), self.dur - 3 * DT)
        for i in sp_ports:
            self.admin[i].append((t_adm, t_up))
            up_at = t_up + self.U(8, 40)
            if i == ld_port:
                up_at = self.t_ld_fix + self.U(5, 25)
            cable(i, t_adm + self.U(0, 3), up_at, planned=True)
        self.absent.append((sp_ports, t_rb, t_rb + rb_len))
        self.resets.append((sp_ports, t_rb + rb_len))
        self.t_rb, self.rb_len = t_rb, rb_len
        mw = [f"{f.spinename[s]}:*"] + self.wp([f.up[L][x] for L in range(NL) for x in range(NS)])
        self.healthy_ev("maintenance_drain", mw, tm, self.t_undrain + 300,
                        f"planned: {f.spinename[s]} BGP-drained, its ports admin-down (adminStatus 2, operStatus 2 "
                        "both ends, linkStatusChanges +1), restored after 20 min and undrained; the other spines "
                        "take its share (+14% on every uplink)")
        self.healthy_ev("switch_reboot", [f"{f.spinename[s]}:*"] + self.wp([f.up[L][s] for L in range(NL)]),
                        t_rb, t_rb + rb_len + 600,
                        f"{f.spinename[s]} rebooted inside the maintenance: no lines for {rb_len} s, then every "
                        "counter of the spine restarts near zero (linkStatusChanges too)")
        # fault: link left down after the maintenance
        self.fault("link_down_after_maintenance", [ld_port], t_up, self.t_ld_fix + 30,
                   "after the maintenance the port is admin-up (adminStatus 1) but stays oper-down (operStatus 2) at "
                   "both ends, no traffic; the leaf hashes over its 7 other uplinks; until reseated")
        # fault: flapping link (a leaf-spine link or a host link)
        L = self.r_flap
        if rng.random() < 0.5:
            fl = f.up[L][int(rng.choice([x for x in range(NS) if x != self.s_m]))]
        else:
            fl = int(f.down[L][int(rng.choice(self.J1 + self.J2))])
        a, b = self.t_flap, self.t_flap_end
        times = []
        for st in np.sort(rng.uniform(a + 5, b - 200, int(rng.integers(2, 4)))):
            t = float(st)
            for _ in range(int(rng.integers(2, 6))):
                d = self.U(2, 25)
                cable(fl, t, t + d)
                times.append((t, t + d))
                t += d + self.U(8, 60)
                if t > b - 30:
                    break
        self.flap_port = fl
        times.sort()
        self.fault("flapping_link", [fl], times[0][0], max(b_ for _, b_ in times) + 30,
                   f"{len(times)} down/up cycles in bursts: linkStatusChanges +2 each, operStatus 2 when a poll lands "
                   "in a down, traffic gaps (ECMP shifts to siblings on an uplink), flush drops, FCS/FEC at link-up")
        # dirty optic: cleaned at the end (link down 2-4 min)
        L = self.r_dirty
        kind = rng.random()
        if kind < 0.35:
            dp = f.up[L][int(rng.choice([x for x in range(NS) if x != self.s_m]))]
        elif kind < 0.7:
            dp = f.sp[int(rng.choice([x for x in range(NS) if x != self.s_m]))][L]
        else:
            dp = int(f.down[L][int(rng.choice(self.J1 + self.J2))])
        self.dirty_port = dp
        self.t_dirty_up = self.t_dirty_end + self.U(120, 240)
        cable(dp, self.t_dirty_end, self.t_dirty_up)
        # overheating optic: ramp 60 min, errors 15-30 min, replaced (down 4-8 min)
        L = self.r_heat
        if rng.random() < 0.5:
            s2 = int(rng.choice([x for x in range(NS) if x != self.s_m]))
            hp = f.up[L][s2] if rng.random() < 0.5 else f.sp[s2][L]
        else:
            hp = int(f.down[L][int(rng.choice(self.J1 + self.J2))])
        self.heat_port = hp
        self.t_heat_err = self.t_heat + M(60)
        self.t_heat_rep = self.t_heat_err + M(self.U(15, 30))
        self.t_heat_up = self.t_heat_rep + self.U(240, 480)
        cable(hp, self.t_heat_rep, self.t_heat_up)

    def link_state(self):
        T, P, ts = self.T, self.f.P, self.ts
        upf = np.ones((T, P))
        oper = np.ones((T, P), dtype=np.int64)
        adm = np.ones((T, P), dtype=np.int64)
        ndn = np.zeros((T, P))
        nup = np.zeros((T, P))
        nup_unpl = np.zeros((T, P))
        ndn_unpl = np.zeros((T, P))
        for i, ivs in self.down.items():
            for a, b, planned in ivs:
                upf[:, i] -= self.frac(a, b)
                oper[(ts >= a) & (ts < b), i] = 2
                ka, kb = int(np.searchsorted(ts, a, "left")), int(np.searchsorted(ts, b, "left"))
                if ka < T:
                    ndn[ka, i] += 1
                    if not planned:
                        ndn_unpl[ka, i] += 1
                if kb < T:
                    nup[kb, i] += 1
                    if not planned:
                        nup_unpl[kb, i] += 1
        for i, ivs in self.admin.items():
            for a, b in ivs:
                adm[(ts >= a) & (ts < b), i] = 2
        self.upf = np.clip(upf, 0, 1)
        self.oper, self.adm, self.ndn, self.nup, self.nup_unpl, self.ndn_unpl = oper, adm, ndn, nup, nup_unpl, ndn_unpl

    # ------------------------------------------------------------------------------------------------------
    def ecmp(self):
        """Per-epoch ECMP shares of each leaf's uplinks, redrawn at every job start/stop."""
        rng, T, f = self.rng, self.T, self.f
        bounds = sorted(set([0] + [c for c in self.changes] + [self.t_pol_end, self.t_m, self.t_undrain,
                                                                  self.t_ld_fix + 60]))
        W = np.ones((T, NL, NS))
        ep_k = np.searchsorted(bounds, self.ts - 1, "right") - 1
        self.epochs = []
        for e, a in enumerate(bounds):
            b = bounds[e + 1] if e + 1 < len(bounds) else self.dur
            amp = rng.uniform(0.2, 0.5, NL)
            w = 1 + amp[:, None] * rng.uniform(-1, 1, (NL, NS))
            w = w / w.mean(1, keepdims=True)
            W[ep_k == e] = w[None]
            self.epochs.append((a, b, float(amp.min()), float(amp.max())))
        W *= self.ln(0.04, (T, NL, NS))
        # polarisation fault: one uplink takes factor x its siblings' mean
        m = self.frac(self.t_pol, self.t_pol_end) > 0.5
        L, s = self.r_pol, self.pol_s
        sib = np.delete(W[:, L, :], s, axis=1).mean(1)
        W[m, L, s] = self.pol_factor * sib[m] * rng.lognormal(0, 0.05, int(m.sum()))
        self.W = W
        ups = [f"{f.spinename[x]}:*" for x in range(NS)] + \
            self.wp([f.up[Lx][x] for Lx in range(NL) for x in range(NS)])
        for a, b, lo, hi in self.epochs:
            self.healthy_ev("ecmp_imbalance", ups, a, b,
                            f"flows re-hashed at a job start/stop: each leaf's uplinks carry unequal shares "
                            f"(+-{int(100 * lo)}..{int(100 * hi)}% around the mean) until the next change")

    # ------------------------------------------------------------------------------------------------------
    def traffic(self):
        rng, T, f = self.rng, self.T, self.f
        up_nic = self.upf[:, f.nic]                          # (T, NH, NR)
        for x in (self.intra, self.intra_rx, self.x3, self.ck, self.rd, self.tcp):
            x *= up_nic
        # offered leaf-to-leaf traffic matrix per class
        TM = np.zeros((T, 2, NL, NL))
        off = 1 - np.eye(NR)
        xs = self.x3.sum(1)
        TM[:, C3, :NR, :NR] += xs[:, :, None] * off[None] / (NR - 1)
        cks = self.ck.sum(1)
        TM[:, C3, :NR, LS] += (1 - PHI_CK) * cks
        TM[:, C0, :NR, LS] += PHI_CK * cks
        tcs = self.tcp.sum(1)
        TM[:, C0, :NR, LS] += 0.35 * tcs
        TM[:, C0, :NR, :NR] += 0.65 * tcs[:, :, None] * off[None] / (NR - 1)
        TM[:, C0, LS, :NR] += 0.35 * tcs * self.ln(0.1, (T, NR))
        rds = self.rd.sum(1)
        TM[:, C3, LS, :NR] += 0.5 * rds
        TM[:, C0, LS, :NR] += 0.5 * rds
        # ECMP: leaf A to leaf B over spine s needs both links up and the spine not drained
        upl = np.stack([self.upf[:, f.up[L]] for L in range(NL)], 1)          # (T, NL, NS)
        drain = np.ones((T, NS))
        drain[:, self.s_m] = 1 - self.frac(self.t_m, self.t_undrain)
        w = (self.W * upl * drain[:, None, :])
        Wn = w[:, :, None, :] * upl[:, None, :, :]                              # (T, A, B, s)
        Wn = Wn / np.maximum(Wn.sum(3, keepdims=True), 1e-12)
        F = TM[..., None] * Wn[:, None]                                          # (T, c, A, B, s)
        Uoff = F.sum((1, 3))                                                     # (T, A, s)
        Doff = F.sum((1, 2))                                                     # (T, B, s)
        cap = 0.97 * upl
        rU = np.divide(Uoff, cap, out=np.zeros_like(Uoff), where=cap > 1e-6)
        rD = np.divide(Doff, cap, out=np.zeros_like(Doff), where=cap > 1e-6)
        ratio = 1.0 / np.maximum(1.0, np.maximum(rU[:, :, None, :], rD[:, None, :, :]))
        Fp = F * ratio[:, None]
        self.Fp = Fp
        self.overU, self.overD = np.maximum(rU - 1, 0), np.maximum(rD - 1, 0)
        rho = np.divide(Fp.sum((1, 4)), F.sum((1, 4)), out=np.ones((T, NL, NL)), where=F.sum((1, 4)) > 1e-12)
        self.rho = rho
        # host side after throttling
        rhoX = (rho[:, :NR, :NR] * off[None]).sum(2) / (NR - 1)                  # (T, A)
        rhoS = rho[:, :NR, LS]
        rhoR = rho[:, LS, :NR]
        tx3 = self.intra + self.x3 * rhoX[:, None] + (1 - PHI_CK) * self.ck * rhoS[:, None]
        tx0 = self.tcp * (0.35 * rhoS + 0.65 * rhoX)[:, None] + PHI_CK * self.ck * rhoS[:, None]
        rx3 = self.intra_rx + 0.5 * self.rd * rhoR[:, None]
        for hosts, xj in self.jobs_x:
            inc = np.einsum("ta,tab->tb", xj / (NR - 1), rho[:, :NR, :NR] * off[None])
            rx3[:, hosts] += (inc[:, None, :] / len(hosts)) * self.ln(0.04, (T, len(hosts), NR))
        # TCP received: from the other rails, and the storage leaf's TCP (its reads are counted apart)
        tcp_w = self.tcp / np.maximum(tcs[:, None], 1e-12)
        tin = (0.65 * tcs[:, :, None] * off[None] / (NR - 1) * rho[:, :NR, :NR]).sum(1) \
            + (TM[:, C0, LS, :NR] - 0.5 * rds) * rhoR
        rx0 = tcp_w * tin[:, None] + 0.5 * self.rd * rhoR[:, None]
        # storm: the leaf barely transmits to the paused NIC
        hs, rs = self.h_storm, self.r_storm
        fs = self.frac(self.t_storm, self.t_storm_end)
        rx3[:, hs, rs] *= 1 - 0.98 * fs
        rx0[:, hs, rs] *= 1 - 0.98 * fs
        # NIC line-rate caps
        overN = np.zeros((T, NH, NR))
        for a3, a0, isrx in ((tx3, tx0, False), (rx3, rx0, True)):
            tot = a3 + a0
            sc = np.where(tot > 0.97, 0.97 / np.maximum(tot, 1e-12), 1.0)
            if isrx:
                overN = np.maximum(tot - 0.97, 0) / 0.97
            a3 *= sc
            a0 *= sc
        # storage NICs
        sw_in = rng.dirichlet(np.full(NSN, 40.0))
        sw_out = rng.dirichlet(np.full(NSN, 40.0))
        s_in = Fp[:, :, :, LS, :].sum((2, 3))                                    # (T, c)
        s_out = Fp[:, :, LS, :, :].sum((2, 3))
        # per-port volumes (line fractions per interval), per class
        P = f.P
        out = np.zeros((T, 2, P))
        inn = np.zeros((T, 2, P))
        nic = f.nic
        out[:, C3, nic.ravel()] = tx3.reshape(T, -1)
        out[:, C0, nic.ravel()] = tx0.reshape(T, -1)
        inn[:, C3, nic.ravel()] = rx3.reshape(T, -1)
        inn[:, C0, nic.ravel()] = rx0.reshape(T, -1)
        sn = np.array(f.snic)
        out[:, :, sn] = s_out[:, :, None] * sw_out[None, None] * self.ln(0.03, (T, 1, NSN))
        inn[:, :, sn] = s_in[:, :, None] * sw_in[None, None] * self.ln(0.03, (T, 1, NSN))
        tot = inn[:, :, sn].sum(1)
        s_over = np.maximum(tot - 0.97, 0) / 0.97
        inn[:, :, sn] *= np.where(tot > 0.97, 0.97 / np.maximum(tot, 1e-12), 1.0)[:, None]
        tot = out[:, :, sn].sum(1)
        out[:, :, sn] *= np.where(tot > 0.97, 0.97 / np.maximum(tot, 1e-12), 1.0)[:, None]
        allnic = np.where(f.is_nic)[0]
        dn = f.peer_a[allnic]
        out[:, :, dn] = inn[:, :, allnic]
        inn[:, :, dn] = out[:, :, allnic]
        upt = Fp.sum(3)                                                          # (T, c, A, s)
        spt = Fp.sum(2)                                                          # (T, c, B, s)
        for L in range(NL):
            for s in range(NS):
                u, q = f.up[L][s], f.sp[s][L]
                out[:, :, u] = upt[:, :, L, s]
                inn[:, :, u] = spt[:, :, L, s]
                out[:, :, q] = spt[:, :, L, s]
                inn[:, :, q] = upt[:, :, L, s]
        out *= 1 + 0.004 * rng.standard_normal(out.shape)
        out *= self.upf[:, None, :]                    # nothing crosses a link while it is down
        np.clip(out, 0, 1, out=out)
        # the far end receives what this end sent
        sw = np.where(f.is_sw)[0]
        inn[:, :, sw] = out[:, :, f.peer_a[sw]]
        inn[:, :, allnic] = out[:, :, f.peer_a[allnic]]
        self.out, self.inn = out, inn
        self.tx3, self.tx0, self.rx3 = tx3, tx0, rx3
        over = np.zeros((T, P))
        over[:, f.peer_a[nic.ravel()]] = overN.reshape(T, -1)
        over[:, f.peer_a[sn]] = s_over
        for L in range(NL):
            for s in range(NS):
                over[:, f.up[L][s]] = self.overU[:, L, s]
                over[:, f.sp[s][L]] = self.overD[:, L, s]
        self.over = over
        # duty (burstiness) of what leaves each port
        duty = np.full((T, P), 0.85)
        duty[:, f.peer_a[nic.ravel()]] = np.repeat(self.duty, NR, axis=1)
        duty[:, nic.ravel()] = np.repeat(self.duty, NR, axis=1)
        agg = np.where((f.role_a == 1) | (f.role_a == 2))[0]
        duty[:, agg] = 0.85 + 0.05 * self.a2a_on[:, None]
        duty[:, f.down[LS]] = 0.7
        self.duty_p = duty
        # intra share of what each host sends (to split its ingress pressure)
        txa = tx3 + tx0
        intra_sh = np.divide(self.intra, txa, out=np.ones_like(txa), where=txa > 1e-9)
        self.intra_sh = np.clip(intra_sh, 0, 1)
        self.upl = upl

    # ------------------------------------------------------------------------------------------------------
    def counters(self):
        rng, T, f, P = self.rng, self.T, self.f, self.f.P
        out, inn, upf = self.out, self.inn, self.upf
        pois = rng.poisson
        sz3 = SZ3 * rng.uniform(0.95, 1.05, P)
        sz0 = SZ0 * rng.uniform(0.85, 1.15, P)
        pk_out3 = out[:, C3] * LINE / sz3
        pk_out0 = out[:, C0] * LINE / sz0
        pk_in3 = inn[:, C3] * LINE / sz3[f.peer_a]
        pk_in0 = inn[:, C0] * LINE / sz0[f.peer_a]
        sw = f.is_sw
        role = f.role_a
        # ---- egress pressure of queue 3 on switch ports
        u = out.sum(1)
        b = np.minimum(u / np.clip(self.duty_p, 0.05, 1), 1.3)
        extra = np.zeros((T, P))
        extra[:, f.peer_a[f.nic.ravel()]] += self.hot.reshape(T, -1)
        extra[:, f.down[LS]] += 0.8 * self.ck_on[:, None] * self.ln(0.2, (T, NSN))
        # slow receivers (healthy) and the storm
        self.nic_pause = np.zeros((T, P))
        for hsr in rng.choice([h for h in self.J1 + self.J2 if h not in (self.h_storm, self.h_ll)], 2, replace=False):
            i = int(f.nic[int(hsr), int(rng.integers(NR))])
            lvl = self.U(800, 2500)
            on = np.zeros(T, bool)
            st = False
            for k in range(T):
                if rng.random() < (0.15 if not st else 0.3):
                    st = not st
                on[k] = st
            rate = lvl * on * np.clip(inn[:, :, i].sum(1) / 0.5, 0, 1) * self.ln(0.5, T)
            self.nic_pause[:, i] += rate
            extra[:, f.peer_a[i]] += rate / 4000.0
            self.healthy_ev("slow_receiver_pfc", self.wp([i, f.peer_a[i]]), 0, self.dur,
                            f"a host NIC that pauses its leaf port under receive load now and then (host memory "
                            f"pressure): bounded PFC up to ~{int(lvl)}/s, traffic continues")
        for n, i in enumerate(f.snic):
            self.nic_pause[:, i] += self.ck_on * self.U(500, 3000) * self.ln(0.4, T)
        si = int(f.nic[self.h_storm, self.r_storm])
        sd = int(f.peer_a[si])
        fs = self.frac(self.t_storm, self.t_storm_end)
        self.nic_pause[:, si] += fs * self.U(30000, 80000) * self.ln(0.1, T)
        first = self.frac(self.t_storm, self.t_storm + 60)
        extra[:, sd] += 4.0 * first + 0.3 * np.clip(fs - first, 0, 1)
        p = (g_press(np.minimum(b, 1.0)) + 1.5 * np.maximum(b - 1.0, 0) + 1.5 * self.over + extra) * upf
        p[:, ~sw] = 0
        self.p = p
        ecn_off = np.zeros((T, P), bool)
        me = (self.ts > self.t_ecn) & (self.ts <= self.t_ecn_end)
        ecn_ports = np.array(f.dev_ports[f.leafname[self.r_ecn]])
        ecn_off[np.ix_(me, ecn_ports)] = True
        eff = p * np.where(ecn_off, PHI, 1.0)

        def wmean(idx, x):
            w = out[:, :, idx].sum(1)
            return (w * x[:, idx]).sum(1) / (w.sum(1) + 1e-3)

        Pd = np.stack([wmean(f.down[L], eff) for L in range(NL)], 1)
        Psm = np.stack([wmean(f.dev_ports[f.spinename[s]], eff) for s in range(NS)], 1)
        eff2 = eff.copy()
        for L in range(NL):
            for s in range(NS):
                eff2[:, f.sp[s][L]] += ETA * Pd[:, L]
                eff2[:, f.up[L][s]] += ETA * Psm[:, s]
        Pu = np.stack([wmean(f.up[L], eff2) for L in range(NL)], 1)
        Pin = np.zeros((T, P))
        for L in range(NL):
            d = np.array(f.down[L])
            nics = f.peer_a[d]
            if L < LS:
                ish = self.intra_sh[:, :, L]
            else:
                ish = np.zeros((T, NSN))
            Pin[:, d] = ish * Pd[:, L:L + 1] + (1 - ish) * Pu[:, L:L + 1]
            for s in range(NS):
                Pin[:, f.up[L][s]] = Pd[:, L]
        for s in range(NS):
            for A in range(NL):
                fl = self.Fp[:, :, A, :, s].sum(1)                               # (T, B)
                ps = np.stack([eff2[:, f.sp[s][B]] for B in range(NL)], 1)
                Pin[:, f.sp[s][A]] = (fl * ps).sum(1) / np.maximum(fl.sum(1), 1e-9)
        Pin *= upf
        Pin[:, ~sw] = 0
        # ---- PFC
        pfc_tx = BETA * (pk_in3 / DT) * np.minimum(Pin, 4.0) ** 2 * self.ln(0.6, (T, P))
        pfc_tx[:, ~sw] = 0
        # storm: the leaf pauses its uplinks for the first minute
        for s in range(NS):
            pfc_tx[:, f.up[self.r_storm][s]] += first * self.U(500, 3000)
        # lossless-drop fault port: no PFC at all on it
        lp = int(f.down[self.r_ll][self.h_ll])
        m_ll = self.frac(self.t_ll, self.t_ll_end)
        pfc_tx[:, lp] *= 1 - m_ll
        pfc_tx_n = pois(pfc_tx * DT).astype(float)
        nic_p = pois(self.nic_pause * DT * self.ln(0.2, (T, P))).astype(float)
        tx_p = np.where(sw[None], pfc_tx_n, nic_p)
        rx_p = tx_p[:, f.peer_a] * (upf > 0.02)
        self.pfc_tx, self.pfc_rx = tx_p, rx_p
        # ---- ECN
        marks = pois(pk_out3 * KAPPA * np.minimum(p, 3.0) * self.ln(0.35, (T, P)) * (~ecn_off)).astype(float)
        marks[:, ~sw] = 0
        self.marks = marks
        # ---- queue drops
        thr_role = np.where(role == 0, 3.5, 0.0)
        thr_role[f.down[LS]] = 0.0
        fr0 = frac0_of(p) * (p >= thr_role[None]) * self.ln(0.5, (T, P))
        q0h = pois(pk_out0 * fr0).astype(float)
        q0h[:, ~sw] = 0
        q0f = np.zeros((T, P))
        q3 = np.zeros((T, P))
        ind = np.zeros((T, P))
        # bad buffer profile on a spine egress port
        # (the port: of the spine ports that run between its onset and ~75% most often during the window)
        self.bb_thr = self.U(0.4, 0.5)
        mbb = self.frac(self.t_bb, self.t_bb_end) > 0.5
        best = []
        for s_ in range(NS):
            for L_ in range(NR):
                if s_ == self.s_m or L_ in (self.r_pol, self.r_ecn):
                    continue
                q = f.sp[s_][L_]
                best.append((float(((u[mbb, q] > self.bb_thr + 0.03) & (u[mbb, q] < 0.75)).mean()), s_, L_))
        best.sort(reverse=True)
        _, self.s_bb, self.r_bb = best[int(rng.integers(3))]
        bb = f.sp[self.s_bb][self.r_bb]
        self.bb_port = bb
        bb_base = 10 ** self.U(-5.2, -4.5)
        mbb = self.frac(self.t_bb, self.t_bb_end)
        ub = u[:, bb]
        frb = bb_base * np.clip((ub - self.bb_thr) / 0.1 + 0.3, 0, 4) * (ub > self.bb_thr) * mbb * self.ln(0.4, T)
        q0f[:, bb] += pois(pk_out0[:, bb] * frb)
        # lossless drops on a leaf port: egress queue 3 and ingress
        ll_base = 10 ** self.U(-5.3, -4.6)
        q3[:, lp] += pois(pk_out3[:, lp] * ll_base * np.clip(p[:, lp] / 0.4, 0.05, 5) * m_ll * self.ln(0.5, T))
        ind[:, lp] += pois(pk_in3[:, lp] * 0.3 * ll_base * np.clip(Pin[:, lp] / 0.3, 0.02, 5) * m_ll
                           * self.ln(0.5, T))
        self.ll_port = lp
        # storm: PFC watchdog drops on queue 3 after the first interval
        q3[:, sd] += pois(np.clip(fs - first, 0, 1) * self.U(2000, 8000) * DT * self.ln(0.3, T))
        # flush drops when a link goes down unplanned (queued packets)
        q3 += pois(80.0 * self.ndn_unpl) * sw[None]
        q0f += pois(40.0 * self.ndn_unpl) * sw[None]
        # control-plane ingress trickle
        cp = (rng.random(P) < 0.3) & sw
        self.ctrl_ports = np.where(cp)[0]
        ind += pois(rng.uniform(0.01, 0.3, P)[None] * cp[None] * DT * upf)
        self.q0h, self.q0f, self.q3, self.ind = q0h, q0f, q3, ind
        # ---- physical layer: FEC, FCS, CRC
        corr_rate = 10 ** rng.uniform(2.5, 4.5, P)
        corr = corr_rate[None] * DT * self.ln(0.1, (T, P)) * upf
        unc = np.zeros((T, P))
        unc_x = np.zeros((T, P))                 # expected uncorrectable from faults
        crc_nic = np.zeros((T, P))
        cables = [i for i in range(P) if i < f.peer_a[i]]
        fault_ports = self.fault_port_set()
        cands = [i for i in cables if i not in fault_ports and f.peer_a[i] not in fault_ports]
        pick = rng.choice(cands, int(round(0.15 * len(cables))), replace=False)
        spor = []
        for i in pick:
            ends = [int(i), int(f.peer_a[i])]
            if rng.random() < 0.6:
                ends = [ends[int(rng.integers(2))]]
            for e in ends:
                lam = self.U(1, 5) / 3600 * DT
                if sw[e]:
                    unc[:, e] += pois(lam * np.ones(T) * upf[:, e])
                else:
                    crc_nic[:, e] += pois(lam * np.ones(T) * upf[:, e])
                spor.append(e)
        self.healthy_ev("sporadic_fec_crc", self.wp(spor), 0, self.dur,
                        "isolated uncorrectable FEC codewords / FCS or CRC errors, 1-5 an hour, since the start",
                        background=True)
        self.healthy_ev("fec_corrected_background", ["*"], 0, self.dur,
                        "corrected FEC codewords at a steady per-link rate (10^2.5-10^4.5 /s), independent of load",
                        background=True)
        self.healthy_ev("ingress_control_drops", self.wp(self.ctrl_ports), 0, self.dur,
                        "inDiscards at 0.01-0.3/s (control-plane packets dropped at ingress), steady",
                        background=True)
        # link-up training: a few corrected/uncorrectable codewords and FCS
        corr += self.nup * rng.uniform(1e4, 1e5, (T, P))
        unc += pois(8.0 * self.nup_unpl)
        # dirty optic
        dp = self.dirty_port
        x = np.clip((self.ts - self.t_dirty) / max(self.t_dirty_end - self.t_dirty, 1), 0, 1)
        md = self.frac(self.t_dirty, self.t_dirty_end)
        r1 = self.U(1, 10)
        ur = 0.02 * (r1 / 0.02) ** x * md
        corr[:, dp] *= 1 + md * (20 + 80 * x)
        self.add_errors(dp, ur, unc_x, crc_nic)
        self.add_errors(int(f.peer_a[dp]), 0.03 * ur, unc_x, crc_nic)
        # overheating optic: errors after the ramp, both directions
        hp = self.heat_port
        me_ = self.frac(self.t_heat_err, self.t_heat_rep)
        y = np.clip((self.ts - self.t_heat_err) / max(self.t_heat_rep - self.t_heat_err, 1), 0, 1)
        uh = me_ * 0.05 * (40.0 ** y)
        ramp = np.clip((self.ts - self.t_heat) / (self.t_heat_err - self.t_heat), 0, 1) * (self.ts < self.t_heat_rep)
        corr[:, hp] *= 1 + 3 * ramp ** 4 + me_ * (10 + 60 * y)
        corr[:, f.peer_a[hp]] *= 1 + 2 * ramp ** 4 + me_ * (8 + 40 * y)
        self.add_errors(hp, uh, unc_x, crc_nic)
        self.add_errors(int(f.peer_a[hp]), 0.7 * uh, unc_x, crc_nic)
        # extra: host-side CRC growth
        if self.extra:
            cand = [h for h in self.J1 + self.J2 + self.INF if h not in (self.h_storm, self.h_ll)]
            hx = int(rng.choice(cand))
            rx_ = int(rng.choice([r for r in range(NR) if r != self.r_storm]))
            xp = int(f.nic[hx, rx_])
            if xp in self.fault_port_set() or f.peer_a[xp] in self.fault_port_set():
                xp = int(f.nic[hx, (rx_ + 1) % NR])
            self.x_port = xp
            mx = self.frac(self.t_x, self.t_x_end)
            xx = np.clip((self.ts - self.t_x) / max(self.t_x_end - self.t_x, 1), 0, 1)
            crc_nic[:, xp] += pois(mx * (0.03 + self.U(0.5, 3) * xx) * DT * np.clip(inn[:, :, xp].sum(1) / 0.2, 0.05, 1.5))
        unc += pois(unc_x * DT)
        uin = inn.sum(1)
        fcs = rng.binomial(unc.astype(np.int64), np.clip(0.15 + 1.2 * uin, 0, 1)).astype(float)
        fcs += pois(3.0 * self.nup_unpl)
        self.corr, self.unc, self.fcs, self.crc_nic = corr, unc, fcs, crc_nic
        # ---- host-side ECN/CNP
        self.host_ecn(marks, pk_out3)
        self.pk = (pk_in3 + pk_in0, pk_out3 + pk_out0)

    def add_errors(self, i, rate, unc_x, crc_nic):
        if self.f.is_sw[i]:
            unc_x[:, i] += rate
        else:
            crc_nic[:, i] += self.rng.poisson(rate * DT * np.clip(0.15 + 1.2 * self.inn[:, :, i].sum(1), 0, 1))

    def fault_port_set(self):
        f, s = self.f, set()
        for attr in ("flap_port", "dirty_port", "heat_port", "bb_port", "ll_port"):
            if hasattr(self, attr):
                s.add(int(getattr(self, attr)))
        s.add(int(f.nic[self.h_storm, self.r_storm]))
        s.add(int(f.down[self.r_ll][self.h_ll]))
        s.add(int(f.up[self.r_pol][self.pol_s]))
        s.add(int(f.sp[self.s_bb][self.r_bb]))
        return s

    def host_ecn(self, marks, pk_out3):
        """np_ecn_marked on each receiving NIC, rp_cnp_handled on each sending NIC."""
        f, T = self.f, self.T
        Fp = self.Fp.sum(1)                                                      # (T, A, B, s)
        npm = np.zeros((T, f.P))
        cnp = np.zeros((T, f.P))
        up_m = np.stack([np.stack([marks[:, f.up[L][s]] for s in range(NS)], 1) for L in range(NL)], 1)  # T,A,s
        sp_m = np.stack([np.stack([marks[:, f.sp[s][L]] for s in range(NS)], 1) for L in range(NL)], 1)  # T,B,s
        upsh = Fp / np.maximum(Fp.sum(2, keepdims=True), 1e-12)                  # share of (A,s) going to B
        spsh = Fp / np.maximum(Fp.sum(1, keepdims=True), 1e-12)                  # share of (s,B) coming from A
        arriving = (up_m[:, :, None, :] * upsh).sum((1, 3)) + sp_m.sum(2)        # (T, B) marks on cross rx
        caused = up_m.sum(2) + (sp_m[:, None, :, :] * spsh).sum((2, 3))          # (T, A) marks on cross tx
        for L in range(NL):
            d = np.array(f.down[L])
            nics = f.peer_a[d]
            rx = self.out[:, C3, d]
            if L < LS:
                xr = np.clip(self.rx3[:, :, L] - self.intra_rx[:, :, L], 0, None)
                xt = self.x3[:, :, L] * self.rho[:, L, :NR].mean(1)[:, None] + self.ck[:, :, L]
                it = self.intra[:, :, L]
            else:
                xr = rx
                xt = self.out[:, C3, nics]
                it = np.zeros_like(xt)
            xsh = xr / np.maximum(xr.sum(1, keepdims=True), 1e-12)
            npm[:, nics] = marks[:, d] + arriving[:, L:L + 1] * xsh
            # marks on intra-leaf traffic go back to the senders on the same leaf
            loc = (marks[:, d] * np.clip(1 - xr / np.maximum(rx, 1e-12), 0, 1)).sum(1)
            ish = it / np.maximum(it.sum(1, keepdims=True), 1e-12)
            tsh = xt / np.maximum(xt.sum(1, keepdims=True), 1e-12)
            cnp[:, nics] = 0.45 * (loc[:, None] * ish + caused[:, L:L + 1] * tsh)
        self.np_ecn = self.rng.poisson(npm).astype(float)
        self.cnp = self.rng.poisson(cnp * self.ln(0.1, cnp.shape)).astype(float)

    # ------------------------------------------------------------------------------------------------------
    def temperature(self):
        rng, T, f, P = self.rng, self.T, self.f, self.f.P
        base = rng.uniform(36, 52, P)
        ph = rng.uniform(0, 2 * np.pi, len(f.devices))[f.dev_of]
        load = (self.out.sum(1) + self.inn.sum(1)) / 2
        k = np.ones(8) / 8
        load = np.apply_along_axis(lambda x: np.convolve(x, k, "same"), 0, load)
        temp = base[None] + 2.5 * load + 0.8 * np.sin(2 * np.pi * self.ts[:, None] / (4 * 3600) + ph[None]) \
            + 0.12 * rng.standard_normal((T, P))
        temp -= 2.0 * (self.upf < 0.05)
        hp = self.heat_port
        r = np.clip((self.ts - self.t_heat) / (self.t_heat_err - self.t_heat), 0, 1)
        rise = 20.0 * (0.4 * r + 0.6 * r ** 2) + 1.5 * np.clip((self.ts - self.t_heat_err) / 1200, 0, 1)
        rise = np.where(self.ts < self.t_heat_rep, rise, 0.0)
        temp[:, hp] += rise
        temp[self.ts >= self.t_heat_rep, hp] += rng.uniform(-4, 1)          # the replacement module
        self.temp = temp
        self.healthy_ev("optic_temperature", ["*"], 0, self.dur,
                        "optic temperatures 36-52 C per module, +~2.5 C under load, a slow +-0.8 C room cycle",
                        background=True)

    # ------------------------------------------------------------------------------------------------------
    def assemble(self):
        """Cumulative counters per port (T, P) for each field."""
        rng, T, f, P = self.rng, self.T, self.f, self.f.P
        pin, pout = self.pk
        inc = {}
        inc["inOctets"] = self.inn.sum(1) * LINE
        inc["outOctets"] = self.out.sum(1) * LINE
        inc["inUcastPkts"] = pin
        inc["outUcastPkts"] = pout
        inc["inDiscards"] = self.ind
        inc["uc0Drops"] = self.q0h + self.q0f
        inc["uc3Drops"] = self.q3
        inc["outDiscards"] = self.q0h + self.q0f + self.q3
        inc["fcsErrors"] = self.fcs
        inc["rxPfc3"] = self.pfc_rx
        inc["txPfc3"] = self.pfc_tx
        inc["ecnMarked3"] = self.marks
        inc["fecCorrected"] = self.corr
        inc["fecUncorrected"] = self.unc
        inc["linkStatusChanges"] = self.ndn + self.nup
        # NIC (their own names; a NIC port's "in" is what it receives)
        inc["rx_bytes_phy"] = inc["inOctets"]
        inc["tx_bytes_phy"] = inc["outOctets"]
        fs = self.frac(self.t_storm, self.t_storm_end)
        rxd = rng.poisson(0.002 * DT * np.ones((T, P)))
        si = int(f.nic[self.h_storm, self.r_storm])
        rxd[:, si] += rng.poisson(fs * self.U(50, 400) * DT)
        inc["rx_discards_phy"] = rxd.astype(float)
        inc["rx_crc_errors_phy"] = self.crc_nic + rng.poisson(3.0 * self.nup_unpl)
        inc["rx_prio3_pause"] = self.pfc_rx
        inc["tx_prio3_pause"] = self.pfc_tx
        inc["np_ecn_marked_roce_packets"] = self.np_ecn
        inc["rp_cnp_handled"] = self.cnp
        inc["link_down_events_phy"] = self.ndn
        cum = {}
        for name, x in inc.items():
            v = np.rint(x).astype(np.int64)
            v[0] = 0
            cum[name] = self.init_value(name)[None] + np.cumsum(v, axis=0)
        # reboot: every counter of the rebooted spine restarts near zero
        for ports, tb in self.resets:
            kb = int(np.searchsorted(self.ts, tb, "left"))       # first sample after the boot
            ports = np.array(ports)
            for name, c in cum.items():
                boot = (rng.integers(0, 3000, len(ports)) if "Octets" in name or "Pkts" in name and "Drop" not in name
                        and "Ecn" not in name else np.zeros(len(ports), dtype=np.int64))
                base = c[kb - 1, ports]
                c[kb:, ports] = c[kb:, ports] - base[None] + boot[None]
        self.inc = inc
        cum["operStatus"] = self.oper
        cum["adminStatus"] = self.adm
        cum["carrier"] = (self.oper == 1).astype(np.int64)
        self.cum = cum

    def init_value(self, name):
        rng, P = self.rng, self.f.P
        # counters were last cleared 1-3 weeks ago (previous maintenance), NIC counters at the last host boot
        if "Octets" in name or "bytes" in name:
            return (10 ** rng.uniform(12.5, 15.9, P)).astype(np.int64)
        if name in ("inUcastPkts", "outUcastPkts"):
            return (10 ** rng.uniform(9, 12.2, P)).astype(np.int64)
        if "Pfc" in name or "pause" in name:
            return (10 ** rng.uniform(3, 8, P)).astype(np.int64)
        if "Ecn" in name or "ecn" in name or "cnp" in name:
            return (10 ** rng.uniform(6, 10.5, P)).astype(np.int64)
        if name == "fecCorrected":
            return (10 ** rng.uniform(8.3, 11.3, P)).astype(np.int64)
        if name in ("linkStatusChanges",):
            return 1 + 2 * rng.integers(0, 6, P)
        if name == "link_down_events_phy":
            return rng.integers(0, 6, P)
        if name == "uc3Drops":
            return np.where(rng.random(P) < 0.6, 0, rng.integers(1, 400, P)).astype(np.int64)
        if name in ("uc0Drops", "outDiscards", "inDiscards", "rx_discards_phy"):
            return np.where(rng.random(P) < 0.3, 0, rng.geometric(2e-4, P)).astype(np.int64)
        return np.where(rng.random(P) < 0.6, 0, rng.geometric(0.01, P)).astype(np.int64)

    # ------------------------------------------------------------------------------------------------------
    def label_faults(self):
        f, M = self.f, self.M
        T = self.T
        # polarisation
        pu = f.up[self.r_pol][self.pol_s]
        rel = [{"device": f.leafname[self.r_pol], "ports": ["*"]}] + \
            [{"device": f.dev[f.sp[s][self.r_pol]], "ports": [f.port[f.sp[s][self.r_pol]]]} for s in range(NS)] + \
            [{"device": f"gpu{h + 1:03d}", "ports": [nicname(self.r_pol)]} for h in range(NH)]
        self.fault("ecmp_polarization", [pu], self.t_pol, self.t_pol_end,
                   f"after a job change the uplink gets {self.pol_factor:.0f}x the hash share of each sibling: most of "
                   "the leaf's upward bytes, offered load beyond line rate, uc0Drops tail drops, heavy ECN "
                   "and PFC; siblings carry little", related=rel)
        # bad buffer: starts with the first drop it causes, ends with the last (or the revert)
        bb = self.bb_port
        k = np.where(self.q0f[:, bb] > 0)[0]
        if len(k):
            a = self.ts[k[0]] - DT
            b = min(self.ts[k[-1]] + DT, self.t_bb_end)
            self.fault("bad_buffer_profile", [bb], a, b,
                       f"spine egress with a shallow queue-0 buffer: tail drops (uc0Drops) from "
                       f"{100 * self.bb_thr:.0f}% load, where its sibling ports drop nothing below ~70%",
                       related=[{"device": f.dev[bb], "ports": ["*"]}])
        else:
            self.bb_missing = True
        # dirty optic
        dp = self.dirty_port
        self.fault("dirty_optic", [dp], self.t_dirty, self.t_dirty_up + 30,
                   "receive side: fecCorrected x20-100, fecUncorrected growing from ~0.02/s to "
                   "1-10/s with fcsErrors (when frames are on the wire); the far end ~3%; cleaned at the end "
                   "(one bounce)")
        # storm
        si = int(f.nic[self.h_storm, self.r_storm])
        rel = [{"device": f.leafname[self.r_storm], "ports": ["*"]}] + \
            [{"device": f.dev[f.sp[s][self.r_storm]], "ports": [f.port[f.sp[s][self.r_storm]]]} for s in range(NS)]
        for h in self.J1:
            rel.append({"device": f"gpu{h + 1:03d}", "ports": [nicname(r) for r in range(NR)]})
            for r in range(NR):
                if r != self.r_storm:
                    rel.append({"device": f.leafname[r], "ports": [eos(h)]})
        self.fault("pfc_storm", [si], self.t_storm, self.t_storm_end,
                   "the NIC sends pause frames without end: tx_prio3_pause / rxPfc3 on its leaf port 30-80k/s, "
                   "the leaf sends ~nothing to it, PFC-watchdog drops on uc3Drops, its job stalls, the leaf "
                   "pauses its uplinks for the first minute", related=rel)
        # ECN disabled leaf
        dev = f.leafname[self.r_ecn]
        rel = [{"device": dev, "ports": ["*"]}]
        for i in f.dev_ports[dev]:
            j = int(f.peer_a[i])
            rel.append({"device": f.dev[j], "ports": [f.port[j]]})
        self.fault("ecn_disabled_switch", list(f.dev_ports[dev]), self.t_ecn, self.t_ecn_end,
                   "no ecnMarked3 on any port of the leaf while the other rail leaves, carrying the same jobs, "
                   "mark; several-fold more PFC from it (txPfc3; rx_prio3_pause on its hosts, rxPfc3 on the "
                   "spines); np_ecn_marked on its hosts falls", related=rel, device=dev)
        # lossless drops
        lp = self.ll_port
        k = np.where(self.q3[:, lp] > 0)[0]
        k = k[(self.ts[k] > self.t_ll) & (self.ts[k] <= self.t_ll_end + DT)]
        self.fault("lossless_drops", [lp], self.ts[k[0]] - DT, min(self.ts[k[-1]], self.t_ll_end),
                   "priority-3 (lossless) drops: uc3Drops at 1e-6..1e-4 of its RoCE packets and inDiscards, "
                   "under ordinary load; no PFC sent on the port (PFC/no-drop missing on it)")
        # heating optic
        hp = self.heat_port
        self.fault("overheating_optic", [hp], self.t_heat, self.t_heat_up + 30,
                   "xcvrTemp rising ~20 C over an hour, then fecCorrected up, fecUncorrected and FCS errors "
                   "on both ends of the link, then the module is replaced (a 4-8 min bounce)")
        if self.extra:
            xp = self.x_port
            self.fault("dirty_optic", [xp], self.t_x, self.t_x_end,
                       "host side: rx_crc_errors_phy on the NIC growing from ~1/min to 0.5-3/s of received traffic; "
                       "the switch end sees nothing")

    def label_drops(self):
        """Healthy lossy tail-drop episodes, port by port (merged when less than 5 min apart)."""
        f = self.f
        fault_mask = np.zeros((self.T, f.P), bool)
        pu = f.up[self.r_pol][self.pol_s]
        fault_mask[:, pu] = (self.ts > self.t_pol) & (self.ts <= self.t_pol_end + 2 * DT)
        fault_mask[:, f.peer_a[pu]] = fault_mask[:, pu]
        fault_mask[:, self.bb_port] |= (self.ts > self.t_bb) & (self.ts <= self.t_bb_end)
        d = (self.q0h > 0) & ~fault_mask
        self.fit_drop_ports = sorted({int(i) for i in np.where(d[self.ts <= self.fit].any(0))[0]})
        n = 0
        for i in np.where(d.any(0))[0]:
            ks = np.where(d[:, i])[0]
            st = pr = ks[0]
            groups = []
            for k in ks[1:]:
                if k - pr > 10:
                    groups.append((st, pr))
                    st = k
                pr = k
            groups.append((st, pr))
            for a, b in groups:
                tot = int(self.q0h[a:b + 1, i].sum())
                pk = float(self.pk[1][a:b + 1, i].sum())
                self.healthy_ev("hot_port_lossy_drops", self.wp([i, f.peer_a[i]]), self.ts[a] - DT, self.ts[b],
                                f"queue-0 tail drops on a hot port: {tot} packets ({tot / max(pk, 1):.1e} of its "
                                "packets)")
                n += 1
        return n

    # ------------------------------------------------------------------------------------------------------
    def write(self, outdir):
        rng, T, f, P = self.rng, self.T, self.f, self.f.P
        cum = self.cum
        os.makedirs(outdir, exist_ok=True)
        nd = len(f.devices)
        is_sw_dev = np.array([not (d.startswith("gpu") or d.startswith("stor")) for d in f.devices])
        off = np.where(is_sw_dev, rng.uniform(1.0, 6.0, nd), rng.uniform(2.0, 20.0, nd))
        jit = np.where(is_sw_dev[None], rng.normal(0, 0.12, (T, nd)), rng.normal(0, 0.05, (T, nd)))
        late = rng.random((T, nd)) < np.where(is_sw_dev, 0.01, 0.005)[None]
        jit += late * rng.uniform(1, 4, (T, nd))
        poll = np.clip(off[None] + jit, 0.2, 27.0)                                 # seconds after the 30 s mark
        # missed polls and gaps
        miss = rng.random((T, nd)) < np.where(is_sw_dev, 0.0015, 0.001)[None]
        miss[0] = False
        gl = f.devices.index(f.leafname[int(rng.integers(NL))])
        kg = int(rng.integers(10, T - 10))
        ng = int(rng.integers(2, 5))
        miss[kg:kg + ng, gl] = True
        self.healthy_ev("collector_gap", [f"{f.devices[gl]}:*"], self.ts[kg] - DT, self.ts[kg + ng - 1] + 2 * DT,
                        f"no lines from {f.devices[gl]} for {ng} polls (collector restart); its counters kept counting")
        hg = f.devices.index(f"gpu{int(rng.integers(NH)) + 1:03d}")
        kh = int(rng.integers(10, T - 10))
        nh = int(rng.integers(3, 7))
        miss[kh:kh + nh, hg] = True
        self.healthy_ev("collector_gap", [f"{f.devices[hg]}:*"], self.ts[kh] - DT, self.ts[kh + nh - 1] + 2 * DT,
                        f"node_exporter on {f.devices[hg]} not scraped for {nh} polls")
        present = ~miss[:, f.dev_of]
        for ports, a, b in self.absent:
            m = (self.ts + poll[:, f.dev_of[ports[0]]] > a) & (self.ts + poll[:, f.dev_of[ports[0]]] <= b + 5)
            present[np.ix_(m, ports)] = False
        # values at the poll instant: interpolate into the next interval
        frac_p = poll[:, f.dev_of] / DT                                            # (T, P)
        sw_idx = np.where(f.is_sw)[0]
        nic_idx = np.where(f.is_nic)[0]

        def at_poll(name, idx):
            c = cum[name][:, idx]
            if name in GAUGES:
                return c
            nxt = np.zeros_like(c)
            nxt[:-1] = c[1:] - c[:-1]
            nxt[-1] = nxt[-2]
            nxt = np.maximum(nxt, 0)
            return c + np.floor(frac_p[:, idx] * nxt).astype(np.int64)

        SW = np.stack([at_poll(n, sw_idx) for n in SW_FIELDS], 2)
        NI = np.stack([at_poll(n, nic_idx) for n in NIC_FIELDS], 2)
        temp = np.round(self.temp[:, sw_idx], 1)
        tsns = (T0 + self.ts[:, None]) * NSEC + np.rint(poll[:, f.dev_of] * NSEC).astype(np.int64) \
            + f.pos_in_dev[None] * 350_000
        tags = [f"port_counters,device={f.dev[i]},port={f.port[i]},fabric=roce,role={Fabric.ROLES[f.role[i]]},"
                f"rail={f.rail[i]},peer_device={f.pdev[i]},peer_port={f.pport[i]},speed=400G " for i in range(P)]
        swfmt = ",".join(f"{n}=%di" for n in SW_FIELDS) + ",xcvrTemp=%.1f %d\n"
        nicfmt = ",".join(f"{n}=%di" for n in NIC_FIELDS) + " %d\n"
        pos = np.zeros(P, dtype=int)
        pos[sw_idx] = np.arange(len(sw_idx))
        pos[nic_idx] = np.arange(len(nic_idx))
        is_sw = f.is_sw
        n_lines = 0
        path = os.path.join(outdir, "port_counters.lp")
        with open(path, "w", buffering=1 << 22) as fh:
            for k in range(T):
                order = np.argsort(tsns[k], kind="stable")
                order = order[present[k, order]]
                swr = SW[k].tolist()
                nir = NI[k].tolist()
                tr = temp[k].tolist()
                tk = tsns[k].tolist()
                buf = []
                for i in order.tolist():
                    j = pos[i]
                    if is_sw[i]:
                        buf.append(tags[i] + swfmt % (*swr[j], tr[j], tk[i]))
                    else:
                        buf.append(tags[i] + nicfmt % (*nir[j], tk[i]))
                n_lines += len(buf)
                fh.write("".join(buf))
        return n_lines

    # ------------------------------------------------------------------------------------------------------
    def run(self, outdir):
        self.schedule()
        self.workload()
        self.links()
        self.link_state()
        self.ecmp()
        self.traffic()
        self.counters()
        self.temperature()
        self.assemble()
        self.label_faults()
        n_ep = self.label_drops()
        n_lines = self.write(outdir)
        labels = {
            "scenario": "roce-ecmp-tails", "scale": "medium", "seed": self.seed, "fabric": "roce",
            "interval_s": DT, "sample_s": DT, "t0_ns": self.ns(0), "t_end_ns": self.ns(self.dur),
            "train_until_ns": self.ns(self.fit), "fit_first": f"{self.fit // 60}m" if self.fit % 60 == 0
            else f"{self.fit}s",
            "ports": self.f.P, "lines": n_lines,
            "collectors": {"switch": "Arista EOS via gNMI/Telegraf, EOS counter names, IF-MIB status codes "
                                     "(1 up, 2 down)",
                           "nic": "node_exporter ethtool (mlx5 stat names) + netclass carrier"},
            "switch_fields": SW_FIELDS + ["xcvrTemp"], "nic_fields": NIC_FIELDS,
            "faults": sorted(self.faults, key=lambda x: x["start_ns"]),
            "healthy_phenomena": sorted(self.healthy, key=lambda x: x["start_ns"]),
        }
        for fl in labels["faults"]:
            assert fl["start_ns"] >= labels["train_until_ns"], fl
            assert fl["end_ns"] > fl["start_ns"], fl
        with open(os.path.join(outdir, "labels.json"), "w") as fh:
            json.dump(labels, fh, indent=1)
        return labels, n_ep


def main(argv=None):
    ap = argparse.ArgumentParser(description="labelled RoCEv2 rail-optimised leaf-spine telemetry (EOS + "
                                             "node_exporter) with ECMP tails")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=4.65)
    a = ap.parse_args(argv)
    wall = time.time()
    g = Gen(a.seed, a.hours)
    labels, n_ep = g.run(a.outdir)
    size = os.path.getsize(os.path.join(a.outdir, "port_counters.lp"))
    print(f"{labels['ports']} ports x {g.T} polls, {labels['lines']} lines, {size / 1e6:.0f} MB, "
          f"{len(labels['faults'])} faults, {len(labels['healthy_phenomena'])} healthy phenomena "
          f"({n_ep} lossy-drop episodes) -> {a.outdir} in {time.time() - wall:.1f} s")


if __name__ == "__main__":
    main()
