#!/usr/bin/env python3
"""RoCEv2 dual-homed leaf-spine fabric (NOT rail-optimised): a labelled test fabric for a degraded-link
detector.

    python bench/fabrics/roce_dual_homed.py OUTDIR [--seed N] [--hours H] [--readme-fields-only]

writes OUTDIR/port_counters.lp (the `port_counters` line protocol of the scenario bank's README:
same measurement, tags and field names, raw cumulative integers with the `i` suffix) and
OUTDIR/labels.json (the form /work/shared/scenarios/score.py reads; `fit_first` = 30% of the run,
no fault inside it). Needs only Python 3 and numpy. Same seed -> byte-identical files. Another seed
moves every fault and healthy phenomenon to other eligible devices/ports (the timeline, the job
host sets and the story stay). Defaults: seed 1, 3 h -> 721 polling rounds, 504,240 lines,
~257 MB, ~5 s and ~0.4 GB RAM on one core; fit window `--fit-first 54m`.

Provenance: written from /work/shared/scenarios/README.md (schema, tags, field vocabulary, label
format) and score.py (scoring) only, WITHOUT reading the detector's code or the other scenario
generators. Nothing here is tuned to any detector.


TOPOLOGY
--------
* 48 GPU hosts gpu000..gpu047 in 4 racks of 12 (rack r = gpu{12r}..gpu{12r+11}). Each host has
  4 dual-port 200G NICs = 8 ports mlx5_0..mlx5_7 (NIC n = mlx5_{2n}, mlx5_{2n+1}). Dual-homed:
  NIC 0,1 -> leaf pair A of its rack (mlx5_0, mlx5_2 -> a0; mlx5_1, mlx5_3 -> a1), NIC 2,3 -> leaf
  pair B (mlx5_4, mlx5_6 -> b0; mlx5_5, mlx5_7 -> b1). Every host has 2 ports on each of the 4
  leaves of its rack.  (Racks are 12 hosts, not 8: with 200G host links, 2 x 400G per leaf-spine
  pair and 4 spines that is what gives exactly 1.5:1 and 700+ ports.)
* 16 GPU leaves leaf-rk<r>-{a0,a1,b0,b1}: 24 x 200G host ports + 8 x 400G uplinks
  (4.8T : 3.2T = 1.5:1 oversubscribed).
* 2 storage leaves leaf-stor-0/1: 16 storage nodes stor00..stor15, 2 x 200G each (mlx5_0 ->
  leaf-stor-0, mlx5_1 -> leaf-stor-1); 16 host ports + 8 uplinks each (1:1).
* 4 spines spine-0..spine-3, 36 x 400G each. Every leaf has 2 links to every spine: leaf uplink
  u = 0..7 goes to spine u//2, link u%2; spine port Ethernet{2l+k+1} faces leaf l (l = 0..15 in the
  order rk0-a0, rk0-a1, rk0-b0, rk0-b1, rk1-a0, ..., rk3-b1; 16, 17 = leaf-stor-0/1), link k.
* Ports: 416 leaf_down + 144 leaf_up + 144 spine = 704 switch ports (560 links). Host NIC counters
  are not included (switch ports only), as in the README.
* Tags: device, port, fabric=roce, role (leaf_down | leaf_up | spine), rail, peer_device,
  peer_port (gpuNNN / storNN and mlx5_<q> on host ports), speed (200G on host ports, 400G on
  uplinks and spine ports). There are no GPU rails here: `rail` carries the leaf's position in its
  rack (a0=0, a1=1, b0=2, b1=3; leaf-stor-0/1 = 0/1); a spine port carries the rail of the leaf it
  faces. speed_bps = 200000000000 / 400000000000 (100000000000 on the half-speed fault).
* Three switch families (port naming, counter widths and field sets differ):
  - leaf-rk0-*, leaf-rk1-* ("SNMP" family): ports Eth1/1..Eth1/24 (hosts), Eth1/49..Eth1/56
    (uplinks). in_pkts/out_pkts are 32-bit and wrap (value = cumulative count mod 2^32, well under
    one wrap per sample); octets are 64-bit. This vendor does not report ECN marks at all: the
    ecn_marked field is ABSENT on its lines (not zero). No FEC fields.
  - leaf-rk2-*, leaf-rk3-*, leaf-stor-* ("FEC" family, SONiC-like): ports Ethernet0..Ethernet92
    step 4 (200G host ports), Ethernet96..Ethernet152 step 8 (uplinks). 64-bit counters,
    ecn_marked, and four fields that are NOT in the README vocabulary (the README lists no FEC,
    BER or temperature names): fec_corrected and fec_uncorrectable (cumulative codeword counts,
    integers with `i`), pre_fec_ber (gauge, float, e.g. 2.310e-08; 0.0 while the link is down) and
    module_temperature (gauge, float, deg C, one decimal). `--readme-fields-only` drops these four.
  - spines: Ethernet1..Ethernet36, 64-bit, ecn_marked, no FEC fields.
  The vocabulary has no admin_status, so none is written (admin-down shows as oper_status 0).
* Lossless class: priority 3 with PFC (pfc_rx_p3 / pfc_tx_p3) and DCQCN ECN marking.


SAMPLING
--------
* t0 = 2025-03-11T22:00:00Z (a night shift). Polling every 15 s: round k = 0..N (N = 240 x hours).
  Every device stamps its round k at t0 + 15k s + jitter, jitter uniform in [0, 2) s drawn per
  device and per round (ms resolution); all ports of a device share the stamp and the counters are
  interpolated to that instant. Lines are time-ordered (within a round, devices by stamp).
* labels.json: interval_s = 30 (scoring unit), sample_s = 15, t_end_ns = t0 + hours; every fault
  starts on a 30 s boundary after train_until_ns.
* No lines for a device while it is absent (collector gap, reboot, replacement).


COUNTER MODEL
-------------
* Offered load comes from jobs. A job gives every host a burst rate (fraction of its 8 x 200G)
  and a per-15 s duty (share of time in the communication phase of its iterations, simulated at
  1 s resolution: iterations of 28-42 s, comm phase 40-55%). A host spreads its bytes evenly over
  its up ports. Destinations: ring neighbours for all-reduce (job A/A2 ranks placed without regard
  to racks, B and C ranks grouped by rack with a few swaps), all peers with transient hot receivers
  for all-to-all, storage nodes for checkpoints, job hosts for loads/incast. From a port on plane p
  70% of the bytes go to the destination's ports on the same plane, 30% to its other planes
  (cross-NIC); storage traffic is spread over all ports. Same-leaf traffic is switched locally;
  everything else leaves by the leaf's uplinks (ECMP weights: equal, except polarised and down
  links), crosses a spine and goes down one of the 2 links to the destination leaf. So unlike a
  rail-optimised fabric, traffic between different planes of the SAME rack crosses the spines.
* Delivered bytes per direction = min(demand, 97% of negotiated speed) x fraction of the interval
  the link was up; the two ends of a switch-switch link mirror each other exactly (out of one =
  in of the other). Control traffic (LLDP/BGP/telemetry) on every up link. Packets = bytes / a
  per-port mean size (3300-4000 B) + control packets.
* Congestion per egress queue from its burst utilisation ub (burst demand / speed):
  ECN marks = departing packets x 0.02 x ((ub-0.45)/0.4)^2 (capped at 30%). PFC: when ub > 0.95
  the switch sends 1200 x duty x ((ub-0.95)/0.1)^1.5 pauses/s to the ingress ports that feed the
  queue: a host-facing queue pauses its leaf's uplinks (the share that came from the spines) and
  the local host ports; an uplink queue pauses the host ports in proportion to what they send;
  a spine queue towards leaf m pauses the spine ports facing the leaves sending to m, plus half
  the pauses that leaf m sends it (one hop of spreading back). pfc_rx_p3 on a switch-switch port
  equals pfc_tx_p3 of its far end; host NICs pause their leaf port a little under incast.
  A spine without ECN lets queues reach the pause threshold at ub 0.65 (2x the rate).
* Errors: fcs_errors (in_errors = fcs_errors + 0), 1-8 FCS at each link-up on both ends (link
  training). FEC family: fec_corrected per interval = pre-FEC BER x lane bit rate (1.0625 x speed)
  x 15 s x up-fraction (idle frames are coded too, so it does not follow load); uncorrectable
  codewords ~ Poisson(1000 x (BER/2e-4)^5 per s); each becomes an FCS error with probability
  ~0.9 x receive utilisation. Healthy per-link BER lognormal around 2e-8 (5e-10..6e-7); module
  temperature 36-50 C + 7 C x utilisation + a slow +-1 C wave.
* Start values are large and random (devices up for months); a rebooted or replaced switch
  restarts every counter from 0 at boot (link_transitions counts its own link-up as 1).
  oper_status is the state at the stamped instant; link_transitions +1 per edge (down, up).
* Discards: none in healthy operation (lossless class, no lossy drops modelled).


TIMELINE (minutes from t0 for the default 3 h; --hours H scales every time by H/3)
--------
Fit window 0-54 (train_until = 54 min, `--fit-first 54m`): it holds all-reduce iterations, job
starts and short jobs, an evaluation pause, two checkpoints, one storage incast, polarisation,
sporadic errors, wraps and jitter, but NOT the all-to-all phase, the idle night or any outage.

Jobs (fixed host sets):
  A   gpu000-015 (racks 0-1), all-reduce, random rank placement: 0-62; crash at 62 (silent
      62-67.5); reload from storage 67.5-68.5; train 68.5-124; ends at 124.
  A2  gpu000-015, new job: load 140-141, all-reduce 141-180 (heavier, the spine load in 141-172).
  B   gpu016-039 (racks 1-3): load 3-4, all-reduce 4-96 (eval pauses to ~8% at 40-43, 85-88,
      160-163); MoE all-to-all 96-121; all-reduce 121-124; paused 124-138; reload 138-139;
      all-reduce 139-180.
  C1..C4  gpu040-047 short jobs: 8-30, 36-50, 70-118, 145-180.
  Checkpoint writes of every running job to the 16 storage nodes (training paused meanwhile):
      20-21.5, 45-46.5, 117-118.5, 165-166.5.
  Storage incast: all 16 storage nodes read into gpu044-046 at ~2x their port rate in bursts:
      35-37, 88-90, 146-148.
  Dataset-streaming trickle storage -> all GPU hosts all run (lower in the idle night).

Healthy phenomena (labelled in healthy_phenomena; must NOT be flagged). Placements for seed 1:
  * all-reduce iterations everywhere, all run (per-sample load, ECN and PFC oscillate).
  * job starts/stops/crash-restart/eval pauses/short jobs as above.
  * all-to-all phase 96-121: uplinks and spine ports over capacity in bursts; ECN and PFC on
    most spine and uplink ports at once, PFC ~10-100x the fit window (spine pfc_tx p50 ~2e4/s).
  * storage incast x3 (35, 88, 146): ECN on the target ports, pauses from their leaves to the
    spines and from the spines to the storage leaves.
  * checkpoints x4 (20, 45, 117, 165).
  * ECMP polarisation since the start on three uplinks (1.65-1.9x their siblings):
    leaf-stor-1:Ethernet128, leaf-rk3-a0:Ethernet144, leaf-rk3-b1:Ethernet112 (+ spine far ends).
  * sporadic single uncorrectable FEC codewords / single FCS errors on 17 links (~3%), 0.7-4 per
    hour each, all run (background).
  * FEC corrected codewords and module temperature moving with load on every FEC port (background).
  * 32-bit in_pkts/out_pkts wraps on leaf-rk0-*/leaf-rk1-*: every ~15-30 min per busy port.
  * planned leaf reboot leaf-rk3-a1, 114-118.5: no lines from 114 to 118.5, all its links down
    114.05-~118.3 (its 8 spine far ends oper_status 0, link_transitions +2, FCS at training),
    every counter restarts at 0, its hosts' traffic moves to their other ports/planes.
  * leaf replacement (RMA) leaf-rk1-a0, 84-100: no lines 84-100, all links down, new switch with
    counters from 0 (one uplink does not come back: fault below).
  * uplink administratively down for an hour, 60-120: leaf-stor-0:Ethernet96 <-> spine-0:Ethernet33
    (oper_status 0 both ends, +1/+1 transitions, ECMP moves its bytes to the 7 siblings).
  * collector gap: no samples from spine-1 for 104-109 (counters keep counting).
  * idle night 124-138: no job running, only control traffic and a trickle.
  * knock-on of faults on other ports: jobs stalled by the pause loop (78-93) and by the PFC
    storm (102-114), job B slowed by the half-speed link (148-180).
  * timestamp jitter up to 2 s per device, all run.

FAULTS (must be found; kinds of own naming where the README has none). Seed-1 placement:
  1. module_overheating, leaf-rk2-b0:Ethernet136 (uplink -> spine-2:Ethernet22), 60-180.
     module_temperature ramps ~50 -> ~80 C over 60-120 then creeps to ~81; pre-FEC BER follows
     temperature (x10 per 5 C above 64 C): fec_corrected visibly up from ~95-100, uncorrectable
     codewords from ~110, FCS/in_errors with traffic from ~112 (hundreds/interval after 120);
     the far end sees ~30% of the FCS. Only FCS/in_errors are in the README vocabulary.
  2. fec_ber_degrading, leaf-rk2-a0:Ethernet44 (host link gpu029 mlx5_2), 66-180. pre_fec_ber
     2e-8 -> 2e-4 exponentially over 66-156 (fec_corrected with it), uncorrectable codewords from
     ~135-140 (about one per interval), ~1000/s after 156; FCS follows with traffic.
  3. dirty_optic, spine-2:Ethernet7 (receive side; far end leaf-rk0-b1:Eth1/53), 72-180:
     fcs_errors/in_errors ~8e-7 of received frames, steady, zero when idle; far end ~3% of it.
  4. pause_loop (credit/pause loop), leaf-rk1-b0 ["*"], 78-93: every port sends and receives
     8-40k pauses/s while its in/out bytes fall to ~6%; watchdog out_discards/buffer_discards in
     the last 8 min on half its ports; its spine far ends pause back (related). Jobs A and B stall.
  5. ingress_discards_rising, leaf-rk3-b0:Ethernet128 (uplink -> spine-2:Ethernet29), 57-120:
     in_discards growing quadratically over 57-97 to ~2e-3 of received frames, flat to 120, then
     fixed. No FCS, no PFC change.
  6. flapping_link, leaf-rk1-b1:Eth1/3 (host link gpu013 mlx5_5), 97-110.5: 4 bursts of 2-7
     down/up cycles (2-25 s down, 3-60 s apart), link_transitions +2 each, oper_status 0 when a
     stamp lands in a down, traffic moves to the host's other ports, FCS at each link-up.
  7. pfc_storm, leaf-rk0-b0:Eth1/3 (host gpu001 mlx5_4), 102-114: pfc_rx_p3 30-80k/s, out_octets
     to the host ~0, watchdog out_discards 300-3000/s; the leaf pauses its uplinks for the first
     minute (related); job A stalls.
  8. link_down_after_replacement, leaf-rk1-a0:Eth1/55 (uplink -> spine-3:Ethernet9), 100-180:
     after the replaced leaf returns (fresh counters) this uplink stays oper_status 0 with admin up
     and the far-end spine up (its port also oper down), link_transitions 0, no traffic; the
     sibling link to the same spine carries double (related: spine-3, sibling uplink).
  9. ecn_disabled_switch, spine-0 ["*"], 140-172: ecn_marked flat on every spine-0 port while the
     other spines mark ~0.5-1% of packets under the same (A2) load; spine-0 pauses its feeders
     ~10x more (pfc_tx_p3 here, pfc_rx_p3 on the leaf uplinks facing it = related).
 10. half_speed_link, leaf-rk2-a1:Ethernet88 (host gpu035 mlx5_1), 148-180: a 6 s bounce, then
     speed_bps 100000000000 under the 200G tag; the port runs flat out at ~80-90 Gb/s, its egress
     queue marks and pauses more, fec_corrected halves (lane rate), job B slows to ~55%.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # keep numpy single-threaded: this is a modest-CPU tool

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

# ----------------------------------------------------------------------------------------------
# constants
# ----------------------------------------------------------------------------------------------
SCENARIO = "roce-dual-homed"
T0_NS = 1741730400 * 10**9          # 2025-03-11T22:00:00Z
SAMPLE_S = 15                       # polling period
INTERVAL_S = 30                     # scoring interval written to labels.json
JITTER_S = 2.0                      # per-device timestamp jitter, uniform in [0, 2) s
STORY_MIN = 180.0                   # the timeline below is written for 3 h and scaled by --hours

N_RACKS, HOSTS_PER_RACK = 4, 12
N_GPU, N_STOR = 48, 16
N_HOSTS = N_GPU + N_STOR
N_GPU_LEAVES, N_LEAVES, N_SPINES, N_UP = 16, 18, 4, 8
NQ_MAX = 8
LEAF_POS = ("a0", "a1", "b0", "b1")
PLANE_OF_Q = (0, 1, 0, 1, 2, 3, 2, 3)          # mlx5_q -> leaf position in the rack
PORTS_ON_PLANE = {0: (0, 2), 1: (1, 3), 2: (4, 6), 3: (5, 7)}
HOST_BPS, UP_BPS = 200e9, 400e9
WRAP32 = 2**32

BASE_FIELDS = ["in_octets", "out_octets", "in_pkts", "out_pkts", "in_errors", "out_errors",
               "in_discards", "out_discards", "fcs_errors", "buffer_discards", "pfc_rx_p3",
               "pfc_tx_p3", "ecn_marked", "link_transitions", "oper_status", "speed_bps"]
FEC_INT_FIELDS = ["fec_corrected", "fec_uncorrectable"]
FEC_FLOAT_FIELDS = ["pre_fec_ber", "module_temperature"]
COUNTERS = [f for f in BASE_FIELDS if f not in ("link_transitions", "oper_status", "speed_bps")] \
    + FEC_INT_FIELDS


def leaf_name(l):
    return f"leaf-rk{l // 4}-{LEAF_POS[l % 4]}" if l < N_GPU_LEAVES else f"leaf-stor-{l - N_GPU_LEAVES}"


def leaf_family(l):
    return "snmp32" if l < 8 else "fec"


def host_name(h):
    return f"gpu{h:03d}" if h < N_GPU else f"stor{h - N_GPU:02d}"


def host_rack(h):
    return h // HOSTS_PER_RACK if h < N_GPU else N_RACKS


def host_nq(h):
    return 8 if h < N_GPU else 2


def host_leaf(h, q):
    return 4 * host_rack(h) + PLANE_OF_Q[q] if h < N_GPU else N_GPU_LEAVES + q


def leaf_host_port_name(l, i):
    return f"Eth1/{i + 1}" if leaf_family(l) == "snmp32" else f"Ethernet{4 * i}"


def leaf_up_port_name(l, u):
    return f"Eth1/{49 + u}" if leaf_family(l) == "snmp32" else f"Ethernet{96 + 8 * u}"


def spine_port_name(l, k):
    return f"Ethernet{2 * l + k + 1}"


# ----------------------------------------------------------------------------------------------
# topology
# ----------------------------------------------------------------------------------------------
class Topo:
    def __init__(self):
        self.devices = [leaf_name(l) for l in range(N_LEAVES)] + [f"spine-{s}" for s in range(N_SPINES)]
        self.family = [leaf_family(l) for l in range(N_LEAVES)] + ["spine"] * N_SPINES
        P = []  # list of dicts

        def add(**kw):
            P.append(kw)
            return len(P) - 1

        self.HP = -np.ones((N_HOSTS, NQ_MAX), dtype=np.int64)
        self.UP = -np.ones((N_LEAVES, N_UP), dtype=np.int64)
        self.SPP = -np.ones((N_SPINES, N_LEAVES, 2), dtype=np.int64)
        self.dev_ports = []
        for l in range(N_LEAVES):
            first = len(P)
            rail = l % 4 if l < N_GPU_LEAVES else l - N_GPU_LEAVES
            if l < N_GPU_LEAVES:
                r, p = divmod(l, 4)
                hp = []
                for hl in range(HOSTS_PER_RACK):
                    h = HOSTS_PER_RACK * r + hl
                    for t in (0, 1):
                        hp.append((2 * hl + t, h, PORTS_ON_PLANE[p][t]))
            else:
                hp = [(s, N_GPU + s, l - N_GPU_LEAVES) for s in range(N_STOR)]
            for i, h, q in hp:
                self.HP[h, q] = add(dev=l, name=leaf_host_port_name(l, i), role="leaf_down", rail=rail,
                                    peer_device=host_name(h), peer_port=f"mlx5_{q}", speed="200G",
                                    cap=HOST_BPS, kind=0, h=h, q=q, leaf=l)
            for u in range(N_UP):
                s, k = divmod(u, 2)
                self.UP[l, u] = add(dev=l, name=leaf_up_port_name(l, u), role="leaf_up", rail=rail,
                                    peer_device=f"spine-{s}", peer_port=spine_port_name(l, k), speed="400G",
                                    cap=UP_BPS, kind=1, leaf=l, u=u, s=s, k=k)
            self.dev_ports.append(np.arange(first, len(P)))
        for s in range(N_SPINES):
            first = len(P)
            for l in range(N_LEAVES):
                for k in range(2):
                    rail = l % 4 if l < N_GPU_LEAVES else l - N_GPU_LEAVES
                    self.SPP[s, l, k] = add(dev=N_LEAVES + s, name=spine_port_name(l, k), role="spine",
                                            rail=rail, peer_device=leaf_name(l),
                                            peer_port=leaf_up_port_name(l, 2 * s + k), speed="400G",
                                            cap=UP_BPS, kind=2, leaf=l, u=2 * s + k, s=s, k=k)
            self.dev_ports.append(np.arange(first, len(P)))
        self.ports = P
        self.n = len(P)
        self.kind = np.array([p["kind"] for p in P])
        self.dev = np.array([p["dev"] for p in P])
        self.cap0 = np.array([p["cap"] for p in P])
        self.peer = -np.ones(self.n, dtype=np.int64)
        for l in range(N_LEAVES):
            for u in range(N_UP):
                a, b = self.UP[l, u], self.SPP[u // 2, l, u % 2]
                self.peer[a], self.peer[b] = b, a
        self.fec = np.array([self.family[d] == "fec" for d in self.dev])
        self.name = [p["name"] for p in P]

    def dname(self, p):
        return self.devices[self.dev[p]]


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------
def overlap_frac(windows, NI):
    """fraction of each 15 s interval (15i, 15i+15] covered by [a, b) windows in seconds"""
    a0 = np.arange(NI) * float(SAMPLE_S)
    a1 = a0 + SAMPLE_S
    f = np.zeros(NI)
    for a, b in windows:
        f += np.clip(np.minimum(b, a1) - np.maximum(a, a0), 0, SAMPLE_S) / SAMPLE_S
    return np.clip(f, 0, 1)


def iteration_duty(rng, NI, period, comm, t_start):
    """per-interval fraction of time in the communication phase of training iterations"""
    n = NI * SAMPLE_S
    t = np.arange(n) + 0.5
    m = int(n / period * 1.3) + 20
    lens = rng.normal(period, 0.04 * period, size=m).clip(0.5 * period)
    edges = t_start + np.concatenate([[0.0], np.cumsum(lens)])
    idx = np.searchsorted(edges, t, side="right") - 1
    ok = idx >= 0
    idx = idx.clip(0, m - 1)
    phase = (t - edges[idx]) / lens[idx]
    c = ok & (phase >= 1 - comm)
    return c.reshape(NI, SAMPLE_S).mean(1)


def pfc_gen(ub, duty, thr=0.95, k=1200.0):
    """pause frames/s a switch sends because of one egress queue at burst utilisation ub"""
    x = np.clip((ub - thr) / 0.1, 0, 6)
    return k * duty * x ** 1.5


def ecn_frac(ub):
    """DCQCN/RED marking: fraction of departing packets marked at burst utilisation ub"""
    return np.minimum(0.3, 0.02 * np.clip((ub - 0.45) / 0.4, 0, 5) ** 2)


def uncorr_rate(ber):
    """uncorrectable RS(544,514) codewords per second as a function of pre-FEC BER"""
    return 1e3 * (np.minimum(ber, 2.2e-4) / 2e-4) ** 5


def fmt_dur(seconds):
    s = int(round(seconds))
    if s % 3600 == 0:
        return f"{s // 3600}h"
    if s % 60 == 0:
        return f"{s // 60}m"
    return f"{s}s"


# ----------------------------------------------------------------------------------------------
# the scenario
# ----------------------------------------------------------------------------------------------
def build(seed: int, hours: float, readme_only: bool = False):
    rng = np.random.default_rng(seed)
    topo = Topo()
    P = topo.n
    N = int(round(hours * 3600 / SAMPLE_S))
    NI = N + 1                     # interval i covers (15 i, 15 i + 15]; sample k reads C[k], C[k+1]
    run_s = N * SAMPLE_S
    sc = hours / 3.0

    def S(m):                      # story minute -> seconds on the 30 s grid
        return int(round(m * sc * 60 / INTERVAL_S)) * INTERVAL_S

    def Sx(m):                     # story minute -> seconds (1 s resolution)
        return float(round(m * sc * 60))

    tmid = np.arange(NI) * float(SAMPLE_S) + SAMPLE_S / 2

    def win(a, b):                 # seconds
        return (tmid >= a) & (tmid < b)

    END = run_s + SAMPLE_S * 2
    fit_s = int(round(0.3 * run_s))

    # ------------------------------------------------------------------ seeded placement
    spn = list(rng.permutation(N_SPINES))
    ecn_spine, gap_spine, dirty_spine = int(spn[0]), int(spn[1]), int(spn[2])
    fec_gpu = [l for l in range(8, 16)]
    snmp_gpu = [l for l in range(0, 8)]
    used = set()

    def pick(pool):
        c = [l for l in pool if l not in used]
        v = int(rng.choice(c))
        used.add(v)
        return v

    f2_leaf = pick(fec_gpu)                     # pre-FEC BER ramp, host link
    f1_leaf = pick(fec_gpu + [16, 17])          # module heating, uplink
    f4_leaf = pick(snmp_gpu)                    # pause loop, device-wide
    f6_leaf = pick(snmp_gpu)                    # flapping host link
    f7_leaf = pick(range(16))                   # NIC PFC storm
    f10_leaf = pick(range(4, 16))               # half-speed host link (a host of job B or C)
    f5_leaf = pick(range(16))                   # ingress discards rising, uplink
    f8_leaf = pick(range(16))                   # link left down after leaf replacement
    reboot_leaf = pick(fec_gpu + snmp_gpu)      # planned reboot (healthy)
    admin_leaf = pick(range(18))                # uplink admin-down for an hour (healthy)
    f3_leaf = pick(range(18))                   # leaf at the far end of the dirty spine optic
    ok_up = [u for u in range(N_UP) if u // 2 != ecn_spine]
    f8_up = int(rng.choice([u for u in ok_up if u // 2 not in (dirty_spine, gap_spine)]))
    f1_up = int(rng.choice([u for u in ok_up if u // 2 not in (gap_spine, f8_up // 2)]))
    f5_up = int(rng.choice([u for u in ok_up if u // 2 != f8_up // 2]))
    admin_up = int(rng.choice(range(N_UP)))
    f3_k = int(rng.integers(2))
    pol_leaves = [pick(range(18)) for _ in range(3)]
    pol = [(l, int(rng.integers(N_UP)), float(w)) for l, w in zip(pol_leaves, (1.8, 1.65, 1.9))]

    # jobs (fixed host sets; the timeline is the story)
    A_hosts = list(range(0, 16))
    B_hosts = list(range(16, 40))
    C_hosts = list(range(40, 48))
    incast_targets = [44, 45, 46]

    def rack_hosts(l):
        r = l // 4
        return list(range(HOSTS_PER_RACK * r, HOSTS_PER_RACK * (r + 1)))

    def pick_host_port(l, hosts=None):
        hs = [h for h in rack_hosts(l) if hosts is None or h in hosts]
        h = int(rng.choice(hs))
        q = int(rng.choice(PORTS_ON_PLANE[l % 4]))
        return h, q

    f2_h, f2_q = pick_host_port(f2_leaf, B_hosts)
    f6_h, f6_q = pick_host_port(f6_leaf)
    f7_h, f7_q = pick_host_port(f7_leaf)
    f10_h, f10_q = pick_host_port(f10_leaf, B_hosts + C_hosts)

    # ------------------------------------------------------------------ timeline (story minutes)
    T = dict(
        a_crash=(62, 67.5), a_load=(67.5, 68.5), a_end=124, a2=(140, 141, 180),
        b=(3, 4, 96), a2a=(96, 121), b_idle=(124, 138), b_load=(138, 139),
        b_evals=[(40, 43), (85, 88), (160, 163)],
        c_jobs=[(8, 30), (36, 50), (70, 118), (145, 180)],
        ckpt=[(20, 21.5), (45, 46.5), (117, 118.5), (165, 166.5)],
        incast=[(35, 37), (88, 90), (146, 148)],
        admin=(60, 120), gap=(104, 109), reboot=(114, 118.2, 118.5), replace=(84, 100),
        f1=(60, 120, 180), f2=(66, 156, 180), f3=(72, 180), f4=(78, 93), f5=(57, 97, 120),
        f6=(97, 110.5), f7=(102, 114), f8=(100, 180), f9=(140, 172), f10=(148, 180),
    )

    # ------------------------------------------------------------------ link events
    downs = {}            # leaf-side port index -> list of [a, b) seconds (far end shares it)
    up_events = {}        # leaf-side port index -> list of up times (link training FCS)

    def link_key(p):
        return p if topo.kind[p] != 2 else int(topo.peer[p])

    def add_down(p, a, b):
        key = link_key(p)
        downs.setdefault(key, []).append((a, b))
        if b < END:
            up_events.setdefault(key, []).append(b)

    absent = {}           # device -> list of [a, b) seconds without lines
    resets = {}           # device -> reset instant (s): counters restart from ~0 after it

    # planned leaf reboot
    rb_a, rb_up, rb_back = S(T["reboot"][0]), Sx(T["reboot"][1]), Sx(T["reboot"][2])
    for p in topo.dev_ports[reboot_leaf]:
        add_down(int(p), rb_a + 3, rb_up + float(rng.uniform(0, 8)))
    absent.setdefault(reboot_leaf, []).append((rb_a, rb_back))
    resets[reboot_leaf] = rb_a + 20
    # leaf replacement; one uplink stays down (fault F8)
    rp_a, rp_b = S(T["replace"][0]), S(T["replace"][1])
    f8_port = int(topo.UP[f8_leaf, f8_up])
    for p in topo.dev_ports[f8_leaf]:
        p = int(p)
        if p == f8_port:
            add_down(p, rp_a + 2, END)
        else:
            add_down(p, rp_a + 2, rp_b - 60 + float(rng.uniform(0, 20)))
    absent.setdefault(f8_leaf, []).append((rp_a, rp_b))
    resets[f8_leaf] = rp_a + 30
    # uplink administratively down for an hour
    adm_port = int(topo.UP[admin_leaf, admin_up])
    add_down(adm_port, S(T["admin"][0]) + 4, S(T["admin"][1]) + 4)
    # collector gap on one spine
    absent.setdefault(N_LEAVES + gap_spine, []).append((S(T["gap"][0]), S(T["gap"][1])))
    # flapping host link (F6): bursts of down/up cycles, first flap exactly at the fault start
    f6_port = int(topo.HP[f6_h, f6_q])
    t = float(S(T["f6"][0]))
    flaps = []
    for b_off in (0.0, 3.5, 7.5, 11.0):
        t = max(t, S(T["f6"][0]) + Sx(b_off))
        for _ in range(int(rng.integers(2, 8))):
            d = float(rng.uniform(2, 25))
            flaps.append((t, t + d))
            t += d + float(rng.uniform(3, 60))
    for a, b in flaps:
        add_down(f6_port, a, b)
    f6_end = int(np.ceil(flaps[-1][1] / INTERVAL_S)) * INTERVAL_S
    # half-speed renegotiation (F10): a bounce, then 100G on a 200G port
    f10_port = int(topo.HP[f10_h, f10_q])
    t10 = S(T["f10"][0])
    add_down(f10_port, t10, t10 + 6)

    # availability per port and interval
    av = np.ones((NI, P))
    for key, ws in downs.items():
        f = 1 - overlap_frac(ws, NI)
        av[:, key] *= f
        if topo.peer[key] >= 0:
            av[:, topo.peer[key]] *= f
    cap = np.tile(topo.cap0, (NI, 1))
    cap[tmid >= t10, f10_port] = 100e9
    half_mask = tmid >= t10

    # ------------------------------------------------------------------ traffic: flows
    HPs = np.where(topo.HP >= 0, topo.HP, P)
    valid = topo.HP >= 0
    av_pad = np.concatenate([av, np.zeros((NI, 1))], axis=1)
    avhp = av_pad[:, HPs] * valid                         # [NI, NH, 8]
    SH = avhp / np.maximum(avhp.sum(2, keepdims=True), 1e-12)
    HPLEAF = np.zeros((N_HOSTS, NQ_MAX), dtype=np.int64)
    HQL = np.zeros((N_HOSTS, NQ_MAX, N_LEAVES))
    for h in range(N_HOSTS):
        for q in range(host_nq(h)):
            HPLEAF[h, q] = host_leaf(h, q)
            HQL[h, q, HPLEAF[h, q]] = 1
    LCLS = np.array([l % 4 if l < N_GPU_LEAVES else 4 for l in range(N_LEAVES)])
    WB = np.zeros((5, N_HOSTS, NQ_MAX))
    for k in range(N_GPU):
        for c in range(4):
            WB[c, k, :] = [0.35 if PLANE_OF_Q[q] == c else 0.05 for q in range(8)]
        WB[4, k, :] = 1 / 8
    WB[:, N_GPU:, 0:2] = 0.5
    MIX = WB[None] * avhp[:, None]
    MIX /= np.maximum(MIX.sum(3, keepdims=True), 1e-12)   # [NI, 5, NH, 8]
    MIXL = np.einsum("ickq,kql->ickl", MIX, HQL)           # [NI, 5, NH, NL]
    kk = np.arange(N_HOSTS)[:, None].repeat(NQ_MAX, 1)
    qq = np.arange(NQ_MAX)[None, :].repeat(N_HOSTS, 0)
    MIXG = MIX[:, LCLS[HPLEAF], kk, qq] * valid            # [NI, NH, 8] mixing weight from own leaf

    acc = dict(tx_b=np.zeros((NI, N_HOSTS, NQ_MAX)), tx_a=np.zeros((NI, N_HOSTS, NQ_MAX)),
               rx_b=np.zeros((NI, N_HOSTS, NQ_MAX)), rx_a=np.zeros((NI, N_HOSTS, NQ_MAX)),
               loc_b=np.zeros((NI, N_HOSTS, NQ_MAX)),
               M_b=np.zeros((NI, N_LEAVES, N_LEAVES)), M_a=np.zeros((NI, N_LEAVES, N_LEAVES)))

    def add_flow(Tb, duty, D):
        txp = Tb[:, :, None] * SH
        AL = np.einsum("ihq,hql->ilh", txp, HQL)               # [NI, NL, NH]
        X = AL @ D                                              # [NI, NL, NH]
        XC = np.stack([X[:, LCLS == c].sum(1) for c in range(5)], axis=1)
        rx = np.einsum("ick,ickq->ikq", XC, MIX)
        loc = X[:, HPLEAF, kk] * MIXG
        M = np.zeros((NI, N_LEAVES, N_LEAVES))
        for c in range(5):
            ls = np.where(LCLS == c)[0]
            M[:, ls] = np.einsum("ilk,ikm->ilm", X[:, ls], MIXL[:, c])
        d = duty[:, None, None]
        acc["tx_b"] += txp
        acc["tx_a"] += txp * d
        acc["rx_b"] += rx
        acc["rx_a"] += rx * d
        acc["loc_b"] += loc
        acc["M_b"] += M
        acc["M_a"] += M * d

    def ring(hosts, r, mode):
        """ring order: 'random' (ranks placed without regard to racks) or 'rack' (ranks grouped by
        rack, a few swapped)"""
        if mode == "random":
            perm = [int(h) for h in r.permutation(hosts)]
        else:
            perm = []
            for rk in sorted({host_rack(h) for h in hosts}):
                perm += [int(h) for h in r.permutation([h for h in hosts if host_rack(h) == rk])]
            for _ in range(max(1, len(perm) // 8)):
                i, j = r.integers(len(perm), size=2)
                perm[i], perm[j] = perm[j], perm[i]
        D = np.zeros((N_HOSTS, N_HOSTS))
        n = len(perm)
        for i, h in enumerate(perm):
            D[h, perm[(i + 1) % n]] += 0.5
            D[h, perm[(i - 1) % n]] += 0.5
        return D

    def to_storage(hosts):
        D = np.zeros((N_HOSTS, N_HOSTS))
        for h in hosts:
            D[h, N_GPU:] = 1 / N_STOR
        return D

    def from_storage(targets):
        D = np.zeros((N_HOSTS, N_HOSTS))
        D[N_GPU:, targets] = 1 / len(targets)
        return D

    storm_port = int(topo.HP[f7_h, f7_q])
    loop_hosts = set(rack_hosts(f4_leaf))

    def job_factor(hosts, active):
        """stalls and slowdowns (evaluations, checkpoints, fault knock-on)"""
        f = np.ones(NI)
        hs = set(hosts)
        if hs & loop_hosts:
            f[win(S(T["f4"][0]), S(T["f4"][1]))] *= 0.08
        if f7_h in hs:
            f[win(S(T["f7"][0]), S(T["f7"][1]))] *= 0.03
        if f10_h in hs:
            f[half_mask] *= 0.55
        for a, b in T["ckpt"]:
            f[win(S(a), S(b))] *= 0.15
        return f * active

    def hostvec(hosts, r):
        v = np.zeros(N_HOSTS)
        v[hosts] = r.uniform(0.95, 1.05, size=len(hosts))
        return v

    jr = np.random.default_rng(seed * 7919 + 11)
    job_active = {}

    def allreduce_job(name, hosts, segs, B, comm, period, evals=(), mode="rack"):
        active = np.zeros(NI)
        for a, b in segs:
            active[win(S(a), S(b))] = 1
        for a, b in evals:
            active[win(S(a), S(b)) & (active > 0)] = 0.08
        job_active[name] = (hosts, active.copy())
        fac = job_factor(hosts, active)
        duty = iteration_duty(jr, NI, period, comm, S(segs[0][0]))
        duty = np.where(fac < 0.5, np.maximum(duty, 0.3), duty)
        noise = np.exp(jr.normal(0, 0.04, size=(NI, N_HOSTS)))
        Tb = B * 8 * HOST_BPS * fac[:, None] * hostvec(hosts, jr)[None] * noise
        add_flow(Tb, duty, ring(hosts, jr, mode))
        return fac

    def storage_flow(Tstor, duty, D):
        Tb = np.zeros((NI, N_HOSTS))
        Tb[:, N_GPU:] = Tstor[:, None] * np.exp(jr.normal(0, 0.05, size=(NI, N_STOR)))
        add_flow(Tb, duty, D)

    # job A: 16 hosts, crash at 62 and restart, stops at 124; A2 on the same hosts from 140
    allreduce_job("A", A_hosts, [(0, T["a_crash"][0]), (T["a_load"][1], T["a_end"])], 0.9, 0.45, 36,
                  mode="random")
    storage_flow(0.85 * 2 * HOST_BPS * win(S(T["a_load"][0]), S(T["a_load"][1])),
                 np.full(NI, 0.8), from_storage(A_hosts))
    allreduce_job("A2", A_hosts, [(T["a2"][1], T["a2"][2])], 0.9, 0.55, 33, mode="random")
    storage_flow(0.85 * 2 * HOST_BPS * win(S(T["a2"][0]), S(T["a2"][1])),
                 np.full(NI, 0.8), from_storage(A_hosts))
    # job B: 24 hosts over three racks; all-reduce, MoE all-to-all phase, idle, resume
    bsegs = [(T["b"][1], T["b"][2]), (T["a2a"][1], T["b_idle"][0]), (T["b_load"][1], STORY_MIN)]
    allreduce_job("B", B_hosts, bsegs, 0.9, 0.5, 42, T["b_evals"])
    for a, b in (T["b"][:2], T["b_load"]):
        storage_flow(0.85 * 2 * HOST_BPS * win(S(a), S(b)), np.full(NI, 0.8), from_storage(B_hosts))
    # all-to-all with transient hot receivers
    a2a = win(S(T["a2a"][0]), S(T["a2a"][1])).astype(float)
    job_active["B-a2a"] = (B_hosts, a2a.copy())
    fac = job_factor(B_hosts, a2a)
    Da = np.zeros((NI, N_HOSTS, N_HOSTS))
    for i in np.where(a2a > 0)[0]:
        w = np.zeros(N_HOSTS)
        w[B_hosts] = 1.0
        w[jr.choice(B_hosts, size=3, replace=False)] = 3.0
        M_ = np.tile(w, (N_HOSTS, 1))
        np.fill_diagonal(M_, 0)
        Da[i] = M_ / np.maximum(M_.sum(1, keepdims=True), 1e-12)
    Tb = 0.9 * 8 * HOST_BPS * fac[:, None] * hostvec(B_hosts, jr)[None] \
        * np.exp(jr.normal(0, 0.06, size=(NI, N_HOSTS)))
    add_flow(Tb, np.clip(0.72 + jr.normal(0, 0.05, NI), 0.5, 0.9), Da)
    # short jobs C1..C4 on the last 8 hosts
    for n, (a, b) in enumerate(T["c_jobs"]):
        allreduce_job(f"C{n + 1}", C_hosts, [(a, b)], 0.85, 0.4, 28 + 3 * n)
    # checkpoint writes of the running jobs
    ck = np.zeros((NI, N_HOSTS))
    for a, b in T["ckpt"]:
        m = win(S(a), S(b))
        for name, (hs, act) in job_active.items():
            ck[np.ix_(m & (act > 0.5), hs)] = 100e9
    add_flow(ck, np.full(NI, 0.6), to_storage(A_hosts + B_hosts + C_hosts))
    # storage incast: reads to three hosts from all 16 storage nodes
    inc = np.zeros(NI)
    for a, b in T["incast"]:
        inc[win(S(a), S(b))] = 1
    storage_flow(0.9 * 2 * HOST_BPS * 1.6 * inc, np.full(NI, 0.55), from_storage(incast_targets))
    # dataset streaming trickle, lower at night
    night = win(S(T["b_idle"][0]), S(T["b_idle"][1]))
    storage_flow(np.where(night, 10e9, 48e9), np.ones(NI), from_storage(list(range(N_GPU))))

    # ------------------------------------------------------------------ traffic: links
    tx_b, tx_a, rx_b, rx_a, loc_b = (acc[k] for k in ("tx_b", "tx_a", "rx_b", "rx_a", "loc_b"))
    M_b, M_a = acc["M_b"].copy(), acc["M_a"].copy()
    for l in range(N_LEAVES):
        M_b[:, l, l] = 0
        M_a[:, l, l] = 0
    WP = np.ones((N_LEAVES, N_UP))
    for l, u, w in pol:
        WP[l, u] = w
    avup = av[:, topo.UP]                                   # [NI, NL, 8]
    W = WP[None] * avup
    W /= np.maximum(W.sum(2, keepdims=True), 1e-12)
    Ws = W.reshape(NI, N_LEAVES, N_SPINES, 2).sum(3)        # [NI, NL, NS]
    V = avup.reshape(NI, N_LEAVES, N_SPINES, 2)
    V = V / np.maximum(V.sum(3, keepdims=True), 1e-12)      # [NI, NL(dst), NS, 2]
    Uout_b = M_b.sum(2)[:, :, None] * W
    Uout_a = M_a.sum(2)[:, :, None] * W
    E_b = np.einsum("ilm,ils->ism", M_b, Ws)[..., None] * V.transpose(0, 2, 1, 3)   # [NI, NS, NL, 2]
    E_a = np.einsum("ilm,ils->ism", M_a, Ws)[..., None] * V.transpose(0, 2, 1, 3)

    out_b = np.zeros((NI, P))
    out_a = np.zeros((NI, P))
    in_a = np.zeros((NI, P))
    hp_idx = topo.HP[valid]
    out_b[:, hp_idx] = rx_b[:, valid]
    out_a[:, hp_idx] = rx_a[:, valid]
    in_a[:, hp_idx] = tx_a[:, valid]
    upi = topo.UP.reshape(-1)
    out_b[:, upi] = Uout_b.reshape(NI, -1)
    out_a[:, upi] = Uout_a.reshape(NI, -1)
    spi = topo.SPP.reshape(-1)                                # order s, l, k
    out_b[:, spi] = E_b.reshape(NI, -1)
    out_a[:, spi] = E_a.reshape(NI, -1)
    loc_frac = np.zeros((NI, P))
    loc_frac[:, hp_idx] = (loc_b[:, valid] / np.maximum(rx_b[:, valid], 1e-9)).clip(0, 1)

    # half-speed port: its channel paces the job, so the port runs flat out at 100G
    hs_on = half_mask & (av[:, f10_port] > 0.5)
    out_b[hs_on, f10_port] = 1.08 * 100e9
    out_a[hs_on, f10_port] = 0.93 * 100e9 * (0.8 + 0.2 * jr.random(hs_on.sum()))
    in_a[hs_on, f10_port] = np.minimum(in_a[hs_on, f10_port] * 1.6, 0.9 * 100e9)
    # PFC storm port: nothing can be sent to the host
    storm = win(S(T["f7"][0]), S(T["f7"][1]))
    out_a[storm, storm_port] = 2e6
    in_a[storm, storm_port] *= 0.02

    noise = np.exp(jr.normal(0, 0.03, size=(NI, P)))
    cap_eff = 0.97 * cap
    out_del = np.minimum(out_a * noise, cap_eff) * av
    in_del = np.zeros((NI, P))
    in_del[:, hp_idx] = np.minimum(in_a[:, hp_idx] * noise[:, hp_idx], cap_eff[:, hp_idx]) * av[:, hp_idx]
    loop = win(S(T["f4"][0]), S(T["f4"][1]))
    loop_ports = topo.dev_ports[f4_leaf]
    loop_far = topo.peer[loop_ports][topo.peer[loop_ports] >= 0]
    lp_fac = np.where(loop, 0.06, 1.0)[:, None]
    out_del[:, loop_ports] *= lp_fac
    in_del[:, loop_ports] *= lp_fac
    out_del[:, loop_far] *= lp_fac
    sw = np.where(topo.peer >= 0)[0]
    in_del[:, sw] = out_del[:, topo.peer[sw]]
    # baseline control traffic (LLDP, BGP, telemetry) on every up link
    base_bps = np.where(topo.kind == 0, 8e3, 4e4)[None] * av
    out_del += base_bps
    in_del += base_bps

    # ------------------------------------------------------------------ congestion: ECN, PFC
    ub = np.where(cap > 0, out_b / cap, 0) * (av > 0)
    duty_q = np.where(out_b > 0, out_a / np.maximum(out_b, 1), 0).clip(0, 1)
    ecn_off = np.zeros((NI, P), dtype=bool)
    f9_win = win(S(T["f9"][0]), S(T["f9"][1]))
    ecn_off[np.ix_(f9_win, topo.dev_ports[N_LEAVES + ecn_spine])] = True
    thr = np.where(ecn_off, 0.65, 0.95)
    kp = np.where(ecn_off, 2400.0, 1200.0)
    R = pfc_gen(ub, duty_q, thr, kp)                         # per egress queue
    R += 3.0 * (ub > 0.72) * duty_q                          # micro-burst floor
    pfc_tx = np.zeros((NI, P))
    pfc_rx = np.zeros((NI, P))
    for l in range(N_LEAVES):
        hp = topo.dev_ports[l][topo.kind[topo.dev_ports[l]] == 0]
        ups = topo.UP[l]
        Rh = R[:, hp]
        xq = 1 - loc_frac[:, hp]
        to_up = 0.5 * (Rh * xq).sum(1)
        to_local = 0.25 * (Rh * (1 - xq)).sum(1)
        pfc_tx[:, ups] += to_up[:, None] * (av[:, ups] > 0)
        tx_hp = np.zeros((NI, len(hp)))
        for j, p in enumerate(hp):
            tx_hp[:, j] = tx_b[:, topo.ports[p]["h"], topo.ports[p]["q"]]
        rel = tx_hp / np.maximum(tx_hp.mean(1, keepdims=True), 1e3)
        up_mean = R[:, ups].mean(1)
        pfc_tx[:, hp] += (to_local[:, None] + up_mean[:, None] * rel) * (tx_hp > 0)
    # spines: egress queue pressure plus the pauses received from the leaf (one hop back)
    upR = np.zeros((NI, N_SPINES, N_LEAVES, 2))
    for s in range(N_SPINES):
        for k in range(2):
            upR[:, s, :, k] = pfc_tx[:, topo.UP[:, 2 * s + k]]
    Rs = R[:, spi].reshape(NI, N_SPINES, N_LEAVES, 2) + 0.5 * upR
    Rsm = Rs.sum(3)                                            # [NI, NS, NL(dst)]
    contrib = M_b[:, :, None, :] * Ws[:, :, :, None]           # [NI, NL(src), NS, NL(dst)]
    frac = contrib / np.maximum(contrib.sum(1, keepdims=True), 1e-9)
    sp_tx = 3.0 * np.einsum("ism,ilsm->isl", Rsm, frac)      # [NI, NS, NL(src)]
    Wk = W.reshape(NI, N_LEAVES, N_SPINES, 2) / np.maximum(Ws[..., None], 1e-9)
    for s in range(N_SPINES):
        for k in range(2):
            pfc_tx[:, topo.SPP[s, :, k]] += sp_tx[:, s, :] * 2 * Wk[:, :, s, k]
    # host NICs pause their leaf a little when receiving far beyond line rate (incast)
    pfc_rx[:, hp_idx] += 40 * np.clip((ub[:, hp_idx] - 0.95) / 0.1, 0, 6) * duty_q[:, hp_idx]

    # fault overrides on the pause counters (before mirroring across links)
    t7a = S(T["f7"][0])
    pfc_rx[storm, storm_port] = jr.uniform(30e3, 80e3, storm.sum())
    pulse = np.where(storm, 15e3 * np.exp(-(tmid - t7a) / 30.0), 0) * (tmid - t7a < 60)
    pfc_tx[:, topo.UP[f7_leaf]] += pulse[:, None]
    lp = loop[:, None]
    lp_hp = loop_ports[topo.kind[loop_ports] == 0]
    pfc_tx[:, loop_ports] += lp * jr.uniform(8e3, 40e3, (NI, len(loop_ports)))
    pfc_rx[:, lp_hp] += lp * jr.uniform(8e3, 40e3, (NI, len(lp_hp)))
    pfc_tx[:, loop_far] += lp * jr.uniform(8e3, 40e3, (NI, len(loop_far)))
    pfc_tx = np.minimum(pfc_tx, 9e4) * (av > 0)
    # mirror: pauses sent on one end of a switch-switch link are received by the other end
    pfc_rx[:, sw] = pfc_tx[:, topo.peer[sw]]
    pfc_rx = np.minimum(pfc_rx, 9e4) * (av > 0)

    # ------------------------------------------------------------------ counters per interval
    dt = float(SAMPLE_S)
    psize = jr.uniform(3300, 4000, P)
    inc = {}
    inc["out_octets"] = out_del / 8 * dt
    inc["in_octets"] = in_del / 8 * dt
    ctl_pps = np.where(topo.kind == 0, 3.0, 12.0)[None] * av
    inc["out_pkts"] = inc["out_octets"] / psize + ctl_pps * dt
    inc["in_pkts"] = inc["in_octets"] / psize + ctl_pps * dt
    lam_noise = np.exp(jr.normal(0, 0.35, size=(NI, P)))
    inc["pfc_tx_p3"] = jr.poisson(pfc_tx * dt * lam_noise).astype(float)
    inc["pfc_rx_p3"] = np.where(np.isin(np.arange(P), sw)[None], 0, jr.poisson(pfc_rx * dt)).astype(float)
    inc["pfc_rx_p3"][:, sw] = inc["pfc_tx_p3"][:, topo.peer[sw]]
    inc["pfc_rx_p3"][storm, storm_port] = np.floor(pfc_rx[storm, storm_port] * dt)
    mf = np.where(ecn_off, 0.0, ecn_frac(ub))
    mf[loop[:, None] & np.isin(np.arange(P), loop_ports)[None]] = 0.25
    inc["ecn_marked"] = jr.poisson(inc["out_pkts"] * mf * np.exp(jr.normal(0, 0.25, (NI, P)))).astype(float)
    for k_ in ("in_errors", "out_errors", "in_discards", "out_discards", "fcs_errors", "buffer_discards",
               "fec_corrected", "fec_uncorrectable"):
        inc[k_] = np.zeros((NI, P))

    util_in = (in_del / np.maximum(cap, 1)).clip(0, 1)
    util = ((in_del + out_del) / 2 / np.maximum(cap, 1)).clip(0, 1)

    # link training errors at each link-up, both ends
    for key, ts in up_events.items():
        for tu in ts:
            i = int(tu // SAMPLE_S)
            if i >= NI:
                continue
            for p in (key, int(topo.peer[key])):
                if p >= 0:
                    inc["fcs_errors"][i, p] += int(jr.integers(1, 9))

    # FEC-reporting ports: pre-FEC BER, temperature, corrected / uncorrectable codewords
    fec_ports = np.where(topo.fec & (topo.kind != 2))[0]
    is400 = topo.cap0 >= UP_BPS
    temp_base = np.where(is400, jr.uniform(42, 50, P), jr.uniform(36, 46, P))
    phase = jr.uniform(0, 2 * np.pi, P)
    temp = temp_base[None] + 7.0 * util + 1.0 * np.sin(2 * np.pi * tmid[:, None] / 7200 + phase[None]) \
        + jr.normal(0, 0.25, (NI, P))
    ber0 = np.exp(jr.normal(np.log(2e-8), 1.0, P)).clip(5e-10, 6e-7)
    ber = ber0[None] * np.exp(jr.normal(0, 0.12, (NI, P)))
    # F1: module heating on a leaf uplink
    f1_port = int(topo.UP[f1_leaf, f1_up])
    a1, r1 = S(T["f1"][0]), S(T["f1"][1])
    ramp = np.clip((tmid - a1) / (r1 - a1), 0, 1)
    post = np.clip((tmid - r1) / (run_s - r1 + 1), 0, 1)
    temp[:, f1_port] = 48.5 + 2.0 * util[:, f1_port] + 30.0 * ramp + 1.2 * post + jr.normal(0, 0.2, NI)
    ber[:, f1_port] = 9e-8 * np.exp(jr.normal(0, 0.1, NI)) \
        * 10 ** (np.maximum(temp[:, f1_port] - 64.0, 0) / 5.0)
    # F2: pre-FEC BER ramping exponentially on a host link
    f2_port = int(topo.HP[f2_h, f2_q])
    a2_, r2 = S(T["f2"][0]), S(T["f2"][1])
    x = np.clip((tmid - a2_) / (r2 - a2_), 0, 1)
    ber[:, f2_port] = np.where(tmid >= a2_, 2e-8 * (1e4 ** x), ber[:, f2_port]) * np.exp(jr.normal(0, 0.08, NI))
    ber = ber.clip(0, 2.6e-4)
    lane = cap * 1.0625
    corr = ber * lane * dt * av * np.exp(jr.normal(0, 0.05, (NI, P)))
    unc = jr.poisson(uncorr_rate(ber) * dt * av).astype(float)
    unc_fcs = jr.binomial(unc.astype(np.int64), np.minimum(1.0, 0.9 * util_in)).astype(float)
    for p in (f1_port, f2_port):
        inc["fec_uncorrectable"][:, p] += unc[:, p]
        inc["fcs_errors"][:, p] += unc_fcs[:, p]
    inc["fec_corrected"][:, fec_ports] = np.floor(corr[:, fec_ports])
    # F1's hot transmitter also hurts the far end a little
    f1_far = int(topo.peer[f1_port])
    inc["fcs_errors"][:, f1_far] += jr.binomial(unc_fcs[:, f1_port].astype(np.int64), 0.3)

    # F3: dirty optic on a spine port (receive side), a steady fraction of received frames
    f3_port = int(topo.SPP[dirty_spine, f3_leaf, f3_k])
    m3 = tmid >= S(T["f3"][0])
    frac3 = 8e-7 * np.exp(jr.normal(0, 0.15, NI))
    inc["fcs_errors"][:, f3_port] += jr.poisson(inc["in_pkts"][:, f3_port] * frac3 * m3)
    f3_far = int(topo.peer[f3_port])
    inc["fcs_errors"][:, f3_far] += jr.poisson(inc["in_pkts"][:, f3_far] * frac3 * 0.03 * m3)

    # F5: ingress discards growing on one uplink
    f5_port = int(topo.UP[f5_leaf, f5_up])
    a5, r5, e5 = S(T["f5"][0]), S(T["f5"][1]), S(T["f5"][2])
    g = np.clip((tmid - a5) / (r5 - a5), 0, 1) ** 2 * ((tmid >= a5) & (tmid < e5))
    inc["in_discards"][:, f5_port] += jr.poisson(inc["in_pkts"][:, f5_port] * 2e-3 * g
                                                 * np.exp(jr.normal(0, 0.15, NI)))

    # F7 watchdog drops, F4 watchdog drops late in the loop
    inc["out_discards"][storm, storm_port] += jr.poisson(jr.uniform(300, 3000, storm.sum()) * dt)
    late = loop & (tmid >= S(T["f4"][0]) + 420)
    some = jr.random(len(loop_ports)) < 0.5
    for j, p in enumerate(loop_ports):
        if some[j]:
            inc["out_discards"][late, p] += jr.poisson(jr.uniform(10, 200) * dt, late.sum())
            inc["buffer_discards"][late, p] += np.floor(inc["out_discards"][late, p] * 0.5)

    # background: sporadic single FCS errors / uncorrectable codewords on ~3% of links
    links = sorted(set(int(link_key(p)) for p in range(P)))
    fault_ports = {f1_port, f1_far, f2_port, f3_port, f3_far, f5_port, f6_port, storm_port, f8_port,
                   f10_port, int(topo.peer[f5_port]), int(topo.peer[f8_port])}
    cand = [k_ for k_ in links if k_ not in fault_ports and int(topo.peer[k_]) not in fault_ports]
    bg_links = [int(v) for v in jr.choice(cand, size=int(round(0.03 * len(links))), replace=False)]
    bg_ports = []
    for k_ in bg_links:
        p = k_ if topo.peer[k_] < 0 or jr.random() < 0.5 else int(topo.peer[k_])
        bg_ports.append(p)
        rate_h = jr.uniform(0.7, 4.0)
        ev = jr.poisson(rate_h / 3600 * dt, NI).clip(0, 1) * (av[:, p] > 0.5)
        if topo.fec[p] and topo.kind[p] != 2:
            inc["fec_uncorrectable"][:, p] += ev
            inc["fcs_errors"][:, p] += ev * (jr.random(NI) < 0.85)
        else:
            inc["fcs_errors"][:, p] += ev
    inc["in_errors"] = inc["fcs_errors"].copy()

    # ------------------------------------------------------------------ cumulative, sampled
    jit = np.floor(jr.uniform(0, JITTER_S, (len(topo.devices), NI)) * 1000) / 1000   # ms resolution
    tau = np.arange(NI)[None, :] * float(SAMPLE_S) + jit                             # [ND, NI]
    tau_p = tau[topo.dev]                                                            # [P, NI]
    fjit = (jit[topo.dev] / SAMPLE_S).T                                              # [NI, P]

    init = {}
    oct0 = np.where(is400, jr.uniform(2e16, 4e17, P), jr.uniform(5e15, 1.5e17, P))
    init["in_octets"] = oct0 * jr.uniform(0.9, 1.1, P)
    init["out_octets"] = oct0 * jr.uniform(0.9, 1.1, P)
    init["in_pkts"] = init["in_octets"] / psize
    init["out_pkts"] = init["out_octets"] / psize
    init["fcs_errors"] = jr.integers(0, 400, P).astype(float)
    init["in_errors"] = init["fcs_errors"] + jr.integers(0, 30, P)
    init["out_errors"] = jr.integers(0, 3, P).astype(float)
    init["in_discards"] = jr.integers(0, 2000, P).astype(float)
    init["out_discards"] = jr.integers(0, 500, P).astype(float)
    init["buffer_discards"] = jr.integers(0, 200, P).astype(float)
    init["pfc_rx_p3"] = np.floor(10 ** jr.uniform(6, 9, P))
    init["pfc_tx_p3"] = np.floor(10 ** jr.uniform(6, 9, P))
    init["ecn_marked"] = np.floor(10 ** jr.uniform(7, 11, P))
    init["fec_corrected"] = np.floor(10 ** jr.uniform(11, 13, P))
    init["fec_uncorrectable"] = jr.integers(0, 60, P).astype(float)

    vals = {}
    for f in COUNTERS:
        d = np.floor(inc[f]).astype(np.int64)
        C = np.zeros((NI + 1, P), dtype=np.int64)
        C[0] = np.floor(init[f]).astype(np.int64)
        C[1:] = C[0][None] + np.cumsum(d, axis=0)
        v = C[:-1] + np.floor((C[1:] - C[:-1]) * fjit).astype(np.int64)       # [NI, P] at tau
        for dev, tr in resets.items():
            ps = topo.dev_ports[dev]
            i = int(tr // SAMPLE_S)
            ctr = C[i, ps] + np.floor((C[i + 1, ps] - C[i, ps]) * ((tr - i * SAMPLE_S) / SAMPLE_S)).astype(np.int64)
            after = (tau_p[ps] >= tr).T
            v[:, ps] = np.where(after, v[:, ps] - ctr[None], v[:, ps])
        vals[f] = v

    # link state at the sample instants
    oper = np.ones((NI, P), dtype=np.int64)
    ltr = np.zeros((NI, P), dtype=np.int64)
    lt0 = 2 * jr.integers(1, 7, P)
    for key, ws in downs.items():
        for p in (key, int(topo.peer[key])):
            if p < 0:
                continue
            tp = tau_p[p]
            rst = resets.get(int(topo.dev[p]))
            for a, b in ws:
                if rst is not None and a < rst:       # the reboot/removal itself is before the reset
                    continue
                oper[(tp >= a) & (tp < b), p] = 0
                ltr[:, p] += (tp >= a).astype(np.int64) + (tp >= b).astype(np.int64)
    for dev, tr in resets.items():
        for p in topo.dev_ports[dev]:
            p = int(p)
            key = link_key(p)
            ws = downs.get(key, [])
            for a, b in ws:
                if a < tr:
                    tp = tau_p[p]
                    oper[(tp >= a) & (tp < b), p] = 0
                    if b < END:   # came up after boot: one transition in the fresh counter
                        ltr[:, p] += (tp >= b).astype(np.int64)
    reset_mask = np.zeros((NI, P), dtype=bool)
    for dev, tr in resets.items():
        ps = topo.dev_ports[dev]
        reset_mask[:, ps] = (tau_p[ps] >= tr).T
    vals["link_transitions"] = np.where(reset_mask, ltr, lt0[None] + ltr)
    vals["oper_status"] = oper
    vals["speed_bps"] = cap.astype(np.int64)
    # 32-bit packet counters on the SNMP leaf family
    snmp_ports = np.array([topo.family[d] == "snmp32" for d in topo.dev])
    for f in ("in_pkts", "out_pkts"):
        vals[f][:, snmp_ports] %= WRAP32
    ber_g = np.where(oper > 0, ber, 0.0)
    temp_g = np.round(temp, 1)

    # ------------------------------------------------------------------ presence and timestamps
    present = np.ones((len(topo.devices), NI), dtype=bool)
    knom = np.arange(NI) * SAMPLE_S
    for dev, ws in absent.items():
        for a, b in ws:
            present[dev, (knom >= a) & (knom < b)] = False
    ts_ns = T0_NS + np.round(tau * 1000).astype(np.int64) * 1_000_000                # [ND, NI]

    # ------------------------------------------------------------------ labels
    def ns(sec):
        return int(T0_NS + int(sec) * 10**9)

    def pn(p):
        return topo.name[p]

    def pe(p):
        return [{"device": topo.dname(p), "port": pn(p)}] if p >= 0 else []

    def spine_ports_facing(l):
        out = []
        for s in range(N_SPINES):
            out.append({"device": f"spine-{s}", "ports": [pn(int(topo.SPP[s, l, k])) for k in range(2)]})
        return out

    def leaf_uplinks(l):
        return {"device": leaf_name(l), "ports": [pn(int(p)) for p in topo.UP[l]]}

    def leaf_hostports(l, exclude=()):
        ps = topo.dev_ports[l][topo.kind[topo.dev_ports[l]] == 0]
        return {"device": leaf_name(l), "ports": [pn(int(p)) for p in ps if int(p) not in exclude]}

    end_ns = ns(run_s)
    faults = []

    def fault(kind, p, a, b, peer, related, sig, dev=None):
        faults.append({"kind": kind, "device": dev if dev else topo.dname(p),
                       "ports": ["*"] if p is None else [pn(p)], "start_ns": ns(a),
                       "end_ns": min(ns(b), end_ns), "peer_ends": peer, "related": related, "signature": sig})

    fault("module_overheating", f1_port, a1, run_s, pe(f1_far), [],
          "module_temperature ramps ~50->80 C over 60 min, then pre_fec_ber and fec_corrected climb, "
          "fec_uncorrectable then fcs_errors/in_errors follow (far end sees ~30% of the FCS); "
          "fields outside the README vocabulary until the FEC/FCS stage")
    fault("fec_ber_degrading", f2_port, a2_, run_s, [], [],
          "pre_fec_ber x1e4 over 90 min (2e-8 -> 2e-4, exponential), fec_corrected with it; "
          "fec_uncorrectable from ~75 min in, fcs_errors/in_errors with traffic; host link")
    fault("dirty_optic", f3_port, S(T["f3"][0]), run_s, pe(f3_far), [],
          "fcs_errors/in_errors ~8e-7 of received frames, steady, not load-driven; far end ~3%")
    fault("pause_loop", None, S(T["f4"][0]), S(T["f4"][1]), [],
          spine_ports_facing(f4_leaf),
          "every port of the switch sends and receives 8-40k pauses/s while in/out octets fall to ~6%; "
          "watchdog out_discards/buffer_discards late in the loop; its jobs stall", dev=leaf_name(f4_leaf))
    fault("ingress_discards_rising", f5_port, a5, e5, pe(int(topo.peer[f5_port])), [],
          "in_discards on a leaf uplink growing quadratically over 40 min to ~2e-3 of received frames, "
          "then flat until fixed; no FCS, no PFC change")
    fault("flapping_link", f6_port, flaps[0][0], f6_end, [], [],
          f"{len(flaps)} down/up cycles in 4 bursts (2-25 s down), link_transitions +2 each, oper_status 0 "
          "when a sample lands in a down, traffic shifts to the host's other ports, FCS at each link-up")
    fault("pfc_storm", storm_port, t7a, S(T["f7"][1]), [],
          [leaf_uplinks(f7_leaf)] + spine_ports_facing(f7_leaf),
          "pfc_rx_p3 30-80k/s on the host-facing port, out_octets to the host ~0, watchdog out_discards; "
          "the leaf pauses its uplinks for the first minute; the host's job stalls")
    f8_s, f8_k = divmod(f8_up, 2)
    f8_sib = int(topo.UP[f8_leaf, 2 * f8_s + (1 - f8_k)])
    fault("link_down_after_replacement", f8_port, rp_b, run_s, pe(int(topo.peer[f8_port])),
          [{"device": leaf_name(f8_leaf), "ports": [pn(f8_sib)]}, {"device": f"spine-{f8_s}", "ports": ["*"]}],
          "after the leaf came back from replacement (fresh counters) this uplink stays oper_status 0 "
          "(admin up; far-end spine up, its port also oper down), link_transitions flat, no traffic")
    ecn_rel = [{"device": leaf_name(l), "ports": [pn(int(topo.UP[l, 2 * ecn_spine + k])) for k in range(2)]}
               for l in range(N_LEAVES)]
    fault("ecn_disabled_switch", None, S(T["f9"][0]), S(T["f9"][1]), [], ecn_rel,
          "ecn_marked flat on every port of the spine while the other spines mark under the same load; "
          "it pauses its feeders ~3-10x more (pfc_tx_p3 here, pfc_rx_p3 on the leaf uplinks)",
          dev=f"spine-{ecn_spine}")
    fault("half_speed_link", f10_port, t10, run_s, [],
          [leaf_uplinks(f10_leaf), leaf_hostports(f10_leaf, (f10_port,))] + spine_ports_facing(f10_leaf),
          "a bounce, then speed_bps 100000000000 under a 200G speed tag; the port runs flat out at half "
          "rate, its egress queue congests (ECN, PFC), the job slows to its pace")

    healthy = []

    def hp_(kind, where, a, b, note, background=False):
        e = {"kind": kind, "where": where, "start_ns": ns(a), "end_ns": min(ns(b), end_ns), "note": note}
        if background:
            e["background"] = True
        healthy.append(e)

    def leaves_of_hosts(hosts):
        return sorted({host_leaf(h, q) for h in hosts for q in range(host_nq(h))})

    def where_leaves(ls, spines=True):
        return [f"{leaf_name(l)}:*" for l in ls] + ([f"spine-{s}:*" for s in range(N_SPINES)] if spines else [])

    AB = where_leaves(leaves_of_hosts(A_hosts))
    BB = where_leaves(leaves_of_hosts(B_hosts))
    CB = where_leaves(leaves_of_hosts(C_hosts))
    hp_("allreduce_iterations", ["*"], 0, run_s,
        "all-reduce iterations of 28-42 s: per-sample load and ECN oscillate with the phase of the iteration")
    hp_("job_start", AB, 0, S(1), "job A (gpu000-015) starts")
    hp_("job_start", BB, S(3), S(5), "job B (gpu016-039) loads its checkpoint from storage and starts")
    hp_("job_crash_restart", AB, S(T["a_crash"][0]), S(T["a_load"][1]) + 60,
        "job A crashes (silence), reloads from storage, restarts")
    hp_("job_stop", AB, S(T["a_end"]) - 30, S(T["a_end"]) + 60, "job A ends")
    hp_("job_start", AB, S(T["a2"][0]), S(T["a2"][1]) + 60, "job A2 (same hosts) loads and starts")
    for n, (a, b) in enumerate(T["c_jobs"]):
        hp_("short_job", CB, S(a), S(b) + 30, f"short job C{n + 1} on gpu040-047 starts and stops")
    for a, b in T["b_evals"]:
        hp_("eval_pause", BB, S(a), S(b) + 30, "job B evaluation: its traffic drops to ~8% for 3 min")
    hp_("alltoall_phase", ["*"], S(T["a2a"][0]), S(T["a2a"][1]) + 30,
        "job B switches to MoE all-to-all with transient hot receivers: uplinks and spine ports over "
        "capacity in bursts, ECN and PFC on many spine and uplink ports at once, far above the fit window")
    hp_("job_pause_resume", BB, S(T["b_idle"][0]), S(T["b_load"][1]) + 60,
        "job B pauses for the night window and resumes after reloading from storage")
    hp_("idle_night", ["*"], S(T["b_idle"][0]), S(T["b_idle"][1]),
        "no job running: only control-plane and a dataset-streaming trickle")
    stor_where = where_leaves([16, 17])
    for a, b in T["ckpt"]:
        hp_("checkpoint", ["*"], S(a), S(b) + 30,
            "checkpoint writes from every running job to the 16 storage nodes; training pauses meanwhile")
    tgt_where = [f"{leaf_name(host_leaf(h, q))}:{pn(int(topo.HP[h, q]))}" for h in incast_targets for q in range(8)]
    for a, b in T["incast"]:
        hp_("storage_incast", tgt_where + where_leaves(leaves_of_hosts(incast_targets)) + stor_where,
            S(a), S(b) + 30,
            "all 16 storage nodes read into gpu044-046 at ~2x their port rate in bursts: ECN on those ports, "
            "PFC from their leaves to the spines, from the spines to the storage leaves")
    pol_where = []
    for l, u, w in pol:
        p = int(topo.UP[l, u])
        pol_where += [f"{leaf_name(l)}:{pn(p)}", f"{topo.dname(int(topo.peer[p]))}:{pn(int(topo.peer[p]))}"]
    hp_("ecmp_polarisation", pol_where, 0, run_s,
        "three leaf uplinks carry 1.65-1.9x the bytes of their siblings since the start (their queues "
        "mark and pause more)")
    bg_where = [f"{topo.dname(p)}:{pn(p)}" for p in bg_ports]
    hp_("sporadic_fec_fcs", bg_where, 0, run_s,
        "single uncorrectable FEC codewords (FEC leaves) and single FCS errors, 0.7-4 per hour", True)
    hp_("fec_corrected_background", [f"{leaf_name(l)}:*" for l in range(8, 18)], 0, run_s,
        "every FEC-reporting port corrects codewords all the time (pre-FEC BER 5e-10..6e-7, per link)", True)
    hp_("module_temperature_load", [f"{leaf_name(l)}:*" for l in range(8, 18)], 0, run_s,
        "module temperatures 36-60 C, +7 C with load, slow +-1 C drift", True)
    hp_("counter_wrap32", [f"{leaf_name(l)}:*" for l in range(8)], 0, run_s,
        "in_pkts/out_pkts of the SNMP leaf family are 32-bit and wrap every ~15-30 min under load", True)
    rbw = [f"{leaf_name(reboot_leaf)}:*"] + [f"{topo.dname(int(topo.peer[p]))}:{pn(int(topo.peer[p]))}"
                                             for p in topo.UP[reboot_leaf]]
    hp_("planned_leaf_reboot", rbw, rb_a, int(rb_back) + 60,
        "planned reboot: no lines for ~4.5 min, all its links down (far ends oper 0, +2 transitions), "
        "every counter restarts near zero, FCS at link training, traffic to its ports moves to other planes")
    rpw = [f"{leaf_name(f8_leaf)}:*"] + [f"{topo.dname(int(topo.peer[p]))}:{pn(int(topo.peer[p]))}"
                                         for p in topo.UP[f8_leaf]]
    hp_("leaf_replacement", rpw, rp_a, rp_b + 60,
        "leaf swapped (RMA): no lines for 16 min, all its links down, the new switch starts its counters at 0")
    ap_ = adm_port
    hp_("uplink_admin_down", [f"{leaf_name(admin_leaf)}:{pn(ap_)}",
                              f"{topo.dname(int(topo.peer[ap_]))}:{pn(int(topo.peer[ap_]))}"],
        S(T["admin"][0]), S(T["admin"][1]) + 60,
        "uplink administratively down for an hour (oper_status 0 both ends; no admin_status field in the "
        "vocabulary), ECMP moves its bytes to the 7 siblings")
    hp_("collector_gap", [f"spine-{gap_spine}:*"], S(T["gap"][0]), S(T["gap"][1]) + 30,
        "no samples from this spine for 5 min; counters continue")
    hp_("job_stall_knock_on", AB + BB + CB, S(T["f4"][0]), S(T["f4"][1]) + 60,
        "jobs with hosts under the pause-loop leaf stall: traffic drops on their other ports")
    hp_("job_stall_knock_on", ["*"], t7a, S(T["f7"][1]) + 60,
        "the job of the pausing NIC stalls: traffic drops on its other ports")
    hp_("job_slowdown_knock_on", ["*"], t10, run_s,
        "the job of the half-speed host link runs at ~55% of its pace")

    labels = {
        "scenario": SCENARIO, "scale": "small", "seed": seed, "fabric": "roce",
        "interval_s": INTERVAL_S, "sample_s": SAMPLE_S, "t0_ns": T0_NS, "t_end_ns": end_ns,
        "train_until_ns": ns(fit_s), "fit_first": fmt_dur(fit_s), "ports": P, "lines": 0,
        "faults": faults, "healthy_phenomena": healthy,
        "generator": "bench/fabrics/roce_dual_homed.py (written without reading the detector)",
        "extra_fields": [] if readme_only else FEC_INT_FIELDS + FEC_FLOAT_FIELDS,
    }
    for f in faults:
        assert f["start_ns"] >= labels["train_until_ns"], f
        assert (f["start_ns"] - T0_NS) % (INTERVAL_S * 10**9) == 0, f

    return dict(topo=topo, NI=NI, vals=vals, ber=ber_g, temp=temp_g, present=present, ts_ns=ts_ns,
                labels=labels, snmp=snmp_ports, readme_only=readme_only,
                debug=dict(ub=ub, R=R, pfc_tx=pfc_tx, pfc_rx=pfc_rx, mf=mf, out_del=out_del, in_del=in_del,
                           cap=cap, tmid=tmid, inc=inc, av=av, temp=temp, berr=ber))


# ----------------------------------------------------------------------------------------------
# writing
# ----------------------------------------------------------------------------------------------
def write(res, outdir):
    topo = res["topo"]
    NI = res["NI"]
    vals = res["vals"]
    present = res["present"]
    ts_ns = res["ts_ns"]
    readme_only = res["readme_only"]
    os.makedirs(outdir, exist_ok=True)
    prefix = []
    for p, d in enumerate(topo.ports):
        prefix.append(
            f"port_counters,device={topo.devices[d['dev']]},port={d['name']},fabric=roce,role={d['role']},"
            f"rail={d['rail']},peer_device={d['peer_device']},peer_port={d['peer_port']},speed={d['speed']} ")
    fam_fields = {}
    for fam in ("snmp32", "fec", "spine"):
        fl = [f for f in BASE_FIELDS if not (fam == "snmp32" and f == "ecn_marked")]
        fi = fl + (FEC_INT_FIELDS if fam == "fec" and not readme_only else [])
        fmt = ",".join(f"{f}=%di" for f in fi)
        if fam == "fec" and not readme_only:
            fmt += ",pre_fec_ber=%.3e,module_temperature=%.1f"
        fam_fields[fam] = (fi, fmt)
    ND = len(topo.devices)
    dev_fam = topo.family
    # per device: ports that carry FEC gauges (spine-facing leaf ports and host ports of FEC leaves)
    nlines = 0
    path = os.path.join(outdir, "port_counters.lp")
    with open(path, "w", encoding="ascii", newline="\n") as fh:
        for k in range(NI):
            order = sorted((int(ts_ns[d, k]), d) for d in range(ND) if present[d, k])
            chunks = []
            for ts, d in order:
                fam = dev_fam[d]
                fi, fmt = fam_fields[fam]
                ps = topo.dev_ports[d]
                rows = np.stack([vals[f][k, ps] for f in fi], axis=1).tolist()
                tail = f" {ts}\n"
                if fam == "fec" and not readme_only:
                    b = res["ber"][k, ps].tolist()
                    t = res["temp"][k, ps].tolist()
                    for j, p in enumerate(ps):
                        chunks.append(prefix[p] + fmt % (*rows[j], b[j], t[j]) + tail)
                else:
                    for j, p in enumerate(ps):
                        chunks.append(prefix[p] + fmt % tuple(rows[j]) + tail)
            nlines += len(chunks)
            fh.write("".join(chunks))
    labels = dict(res["labels"])
    labels["lines"] = nlines
    with open(os.path.join(outdir, "labels.json"), "w", encoding="ascii") as fh:
        json.dump(labels, fh, indent=1)
        fh.write("\n")
    return nlines


def main(argv=None):
    ap = argparse.ArgumentParser(description="RoCEv2 dual-homed leaf-spine scenario (port_counters + labels)")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=3.0)
    ap.add_argument("--readme-fields-only", action="store_true",
                    help="omit the FEC/BER/temperature fields that are not in the README's vocabulary")
    a = ap.parse_args(argv)
    if a.hours < 0.5:
        ap.error("--hours must be at least 0.5")
    res = build(a.seed, a.hours, a.readme_fields_only)
    n = write(res, a.outdir)
    lab = res["labels"]
    print(f"{SCENARIO}: {lab['ports']} ports, {n} lines, {len(lab['faults'])} faults, "
          f"fit_first={lab['fit_first']} -> {a.outdir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
