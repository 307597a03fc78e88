#!/usr/bin/env python3
# ruff: noqa: E501
"""NOC DATA SHEET -- BE1, the GPU back-end fabric of training pod 1 (RoCEv2, lossy). Feed: `port_counters`.

FABRIC
  * RoCEv2 run LOSSY. PFC is off on every switch and every NIC (no pause counter ever moves; we do
    not even subscribe to them). Congestion control is DCQCN driven by ECN alone, and the
    ConnectX-7s run RC with selective repeat. So a few tail drops are normal on healthy ports:
    1e-7..1e-5 of a queue's packets while it is congested (incast, hot experts, ECMP collisions),
    in proportion to the congestion, and none when it is not. The NICs then count out-of-sequence
    arrivals and sequence-error NAKs. That is the price of running lossy, and nobody gets paged for it.
  * Rail-optimised, two tiers, 8 rails. GPU node gpuNNN (8 x ConnectX-7 400G, mlx5_0..7) has NIC r
    on a leaf of rail r. Pod 1 as built: 16 nodes; each rail has 2 leaves (`leaf-r<rail>-01/02`,
    8 nodes per leaf). Our other pods are bigger (3-4 leaves per rail, up to 32 nodes; see GENERATOR).
  * Leaves: Arista 7060X5, host ports Ethernet1/1..Ethernet8/1, uplinks from Ethernet49/1. Two
    400G links per leaf-spine pair, 2:1 oversubscribed: 8 hosts down, 4 uplinks to the 2 spines of
    the leaf's spine plane. Spines: Arista 7800R3 (`spine-01`..), linecard ports
    `Ethernet<slot>/<port>/1`. Pod 1 has 4 or 8 spines depending on which half of the row it was
    cabled in (the seed picks it): 2 or 4 planes of 2 spines, rail r on plane r mod #planes.
  * Storage: 4 storage appliances (`stor01`..`stor04`, 2 x 200G each, one port to each storage
    leaf) on their own pair of 7060X5 (`stor-leaf-01/02`, Ethernet1/1..Ethernet4/1 at 200G). Each
    storage leaf has one 400G uplink to every spine. The appliances are not instrumented.
  * ECMP hashes RoCE flows (UDP source port per QP). A leaf's uplinks differ by up to +-30% and
    the split changes whenever a job restarts (new QPs).
  * Job mix: a data-parallel pre-training job (all-reduce; checkpoints to storage every ~35 min),
    an MoE job (all-to-all, experts hot for tens of seconds), a 2-node streaming job, light
    dev/inference nodes, and short fine-tunes on the two spare nodes.
  * Site clock is UTC. The feed starts 21:40. The scheduler drains the pod for the night
    maintenance slot around 00:25, and the next job starts around 01:00.

COLLECTORS
  * Switches: gNMI (OpenConfig) streamed by gnmic, Influx output to InfluxDB 2.x. Subscriptions:
      if-counters  SAMPLE 10 s, suppress-redundant, heartbeat 5 min:
                   /interfaces/interface/state/counters/{in-octets,out-octets,in-unicast-pkts,
                   out-unicast-pkts,in-errors,in-fcs-errors,in-discards,out-discards,out-errors,
                   carrier-transitions}, /interfaces/interface/state/{oper-status,admin-status},
                   /interfaces/interface/ethernet/state/negotiated-port-speed
      qos-queue    SAMPLE 10 s, suppress-redundant, heartbeat 5 min, the RoCE queue only (tag
                   queue_name=TC3): /qos/interfaces/interface/output/queues/queue/state/dropped-pkts
                   (tail drops of the queue) plus the ECN counter from EOS native (origin
                   eos_native), which our gnmic merges onto the same event:
                   /Smash/qos/status/intfQueueCounter/ecnMarkedPkts  (packets CE-marked by the
                   queue; OpenConfig has no ECN leaf on our EOS release, so this is where it lives)
      optics       SAMPLE 60 s, suppress-redundant, heartbeat 5 min:
                   /components/component/transceiver/physical-channels/channel/state/input-power/instant
                   (dBm, 2 decimals, one point per lane, tag channel_index=1..4; -30.00 = LOS) and
                   per module /components/component/transceiver/state/module-temperature/instant
                   (degC), /components/component/transceiver/state/pre-fec-ber/instant, plus the
                   host-side RS(544,514) FEC counters that EOS maps onto the transceiver component:
                   /components/component/transceiver/state/fec-corrected-bits and
                   /components/component/transceiver/state/fec-uncorrectable-words (= uncorrected
                   codewords). Corrected bits follow the line BER whether or not there is traffic.
    Suppress-redundant means a leaf is only sent when it changed since the previous sample. So
    lines carry a varying subset of fields: an idle host port may send nothing for 20 s, error
    counters appear only when they move, and a lane appears only when its reading changes by
    0.01 dB. The full set is resent every 5 min (heartbeat, per-device phase) and after every
    (re)connect of a gNMI session. Counters are uint64, and gnmic's Influx output writes them
    with the `u` suffix. Strings are quoted: oper-status / admin-status "UP"/"DOWN",
    negotiated-port-speed "SPEED_400GB"/"SPEED_200GB". Optics values are floats.
    Timestamps are the switch's own: not aligned, a per-device phase, and a few hundred ms of jitter.
  * Hosts: a node-exporter textfile (ethtool -S and /sys/class/infiniband/*/ports/1/hw_counters of
    each ConnectX-7), scraped by Telegraf every 30 s (round_interval, ms of gather jitter).
    Prometheus values are float64, so these fields have no type suffix: rx_bytes_phy tx_bytes_phy
    rx_packets_phy tx_packets_phy rx_crc_errors_phy rx_discards_phy link_down_events_phy
    rx_corrected_bits_phy out_of_sequence packet_seq_err np_ecn_marked_roce_packets np_cnp_sent
    rp_cnp_handled rp_cnp_ignored. A firmware reset of the NIC zeroes all of them.
  * One measurement, `port_counters`. Our pipeline renames gnmic's `source` -> device and
    `interface_name` / `interface-id` / `component_name` -> port; on the Telegraf side it renames
    the host and the RDMA device -> device / port. Tags: device, port, fabric=be1, role (gpu-leaf,
    spine, stor-leaf, gpu-nic), rail (ports that belong to a rail: GPU leaves, spine ports facing
    a GPU leaf, NICs), and peer_device / peer_port from LLDP (on the NICs, from lldpd). The LLDP tags
    disappear ~2-2.5 min after a link goes down (hold time) and come back 5-30 s after it is up
    again, which starts a new series in Influx. Optics lane lines add channel_index, and queue
    lines add queue_name.
  * Known collection gaps: ~0.2% of points never arrive. gnmic sessions to single switches reset
    a few times a run (full resend). There is one 2-minute gnmic outage (no switch data at all,
    then a full resend), after the first 30% of this capture. A rebooted switch restarts every
    counter near zero.

HEALTHY PHENOMENA (nothing to page on; every kind but the gnmic outage also occurs in the first 30%)
  * jobs starting and stopping on node subsets (NCCL warm-up; ECMP re-hashes at each boundary)
  * all-reduce iterations, and the eval and checkpoint pauses of the pre-training job
  * MoE all-to-all: hot expert receivers for 20-90 s at a time. Their leaf ports mark at percent
    level and tail-drop, on all 8 rails at once (so on several leaves), and so do the spine
    ports towards those leaves.
  * checkpoint incasts to storage for 2-4 minutes: the storage leaves' ports and the spine ports
    towards the storage leaves drop 1e-6..1e-5 of packets and mark heavily. After a restart,
    the job reads its checkpoint back (a storage -> GPU fan-out, no congestion).
  * ECMP imbalance: uplinks of a leaf differ by up to +-30%, redrawn at job boundaries
  * a 2-node job on one leaf per rail, steady at 85-90% of line rate. It is 1:1, so it fills no
    queue: no ECN marks and no drops on its ports, while other ports of the fabric mark.
  * sporadic single uncorrectable FEC codewords / FCS errors on ~15% of the links (and CRC
    errors on ~15% of the NICs), a few per hour at most; a few FCS errors at some link-ups
  * planned spine reboots inside a drain window (one early, one in the night slot): traffic
    moves to the other spine of the plane, then the links drop on the leaf side, and the spine
    is silent for ~5 min. It comes back with every counter near zero and resends everything.
  * planned link maintenance (optic cleaning): a leaf port is shut and comes back ~7 min later
  * NIC firmware update on a spare node: all 8 links bounce twice, and the NIC counters restart from 0
  * idle stretches: a ~12-min lull when the pre-training job crashes and restarts, and the
    night-time drain (~35 min). Counters barely move during these.
  * a slow-receiver node (two NICs drain below line rate, PCIe). Its leaf ports mark more, and its
    NICs show bounded out_of_sequence and CNPs and a trickle of rx_discards_phy, all run.
  * light dev/inference traffic, 2-10% of line rate

FAULTS (labelled; none inside the first 30% of the capture, the fit window)
  ecn_disabled_switch   A GPU leaf loses its ECN profile. ecnMarkedPkts stays flat on all its ports,
                        and its host ports and uplinks tail-drop several times as much as other
                        leaves at the same load. The NICs behind it see far fewer
                        np_ecn_marked_roce_packets / np_cnp_sent and more out_of_sequence.
  cc_disabled_nic       DCQCN is off on one NIC (bad mlxconfig after a reset). rp_cnp_handled stops
                        and rp_cnp_ignored climbs. Its leaf port receives ~10% more than its siblings.
                        The queues its flows cross (its leaf's uplinks, and the spine ports and leaf
                        ports towards its job peers) mark and drop more, and its peers' np_cnp_sent rise.
  degrading_optic       Leaf-spine link. One lane's input power on the leaf side falls ~3 dB over
                        ~2 h and pre-FEC BER rises x1000. Uncorrectable codewords and in-fcs-errors
                        appear only in the last ~30 min, and only with traffic.
  flapping_link         Host link. Bursts of down/up cycles: carrier-transitions and
                        link_down_events_phy climb, oper-status is DOWN in some samples, and there
                        are CRC/FCS errors at link-up.
  bad_buffer_profile    One spine egress port with a shallow buffer profile: dropped-pkts ~100x its
                        siblings at the same load, only while it is congested.
  link_left_down        Leaf-spine link after a planned change window. The leaf port is admin UP
                        but oper DOWN; the 7800R3 end reports oper UP (it receives light, remote
                        fault only). No traffic either way, and the LLDP tags are gone on both ends.
  half_speed_link       A leaf-spine link bounces and renegotiates SPEED_200GB at both ends while its
                        siblings run 400G. ECMP still gives it a full share, so its queues (both
                        directions) mark and drop.
  module_overheating    A leaf host-port module heats from 50 to 80 degC over 40 min. Then pre-FEC
                        BER rises, and uncorrectable codewords and in-fcs-errors appear on that port.
  crc_errors            Dirty connector at a NIC: rx_crc_errors_phy at ~1e-7 of received frames,
                        whatever the load. The leaf side is clean.

GENERATOR
    python roce_lossy_gnmic.py OUTDIR [--seed N] [--hours H] [--nodes 16|24|32]

writes OUTDIR/port_counters.lp (InfluxDB line protocol, time-ordered, ns timestamps) and
OUTDIR/labels.json (faults and healthy phenomena in the scenario bank's label form, scored per
30 s interval; fit_first = the first 30% of the run). numpy + standard library only. The same
seed gives the same bytes. Another seed gives the other spine build and moves every fault and
event, in place and time. The default 16-node pod costs ~270-310 MB for 4 h because the 10 s
full-path gNMI feed is ~1 MB per switch port. `--nodes 24|32` builds the bigger pods (3-4 leaves
per rail, or 16 nodes per leaf with 4 spines per plane) at ~450 / ~600 MB for 4 h.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import zlib
from collections import defaultdict
from datetime import datetime, timezone

import numpy as np

STEP = 10                       # switch sample period (s)
NIC_EVERY = 3                   # NIC sample every 3 steps (30 s)
OPT_EVERY = 6                   # optics every 6 steps (60 s)
HEARTBEAT = 30                  # gNMI heartbeat: every 30 samples (5 min)
INTERVAL_S = 30                 # scoring interval
LINE_B = 400e9 / 8 * STEP       # bytes per step at 400G
T0 = int(datetime(2025, 6, 10, 21, 40, tzinfo=timezone.utc).timestamp())
MEAS = "port_counters"
FABRIC = "be1"

# (groups = leaves per rail, hosts per leaf, spines per leaf, spines) by node count. The 10 s full-path
# gNMI feed costs ~1 MB per switch port per 4 h, so only the 16-node builds stay under ~300 MB;
# --nodes 24/32 gives the bigger builds (~450 / ~600 MB for 4 h).
BUILDS = {16: [(2, 8, 2, 4), (2, 8, 2, 8)],
          24: [(3, 8, 2, 4), (3, 8, 2, 8)],
          32: [(4, 8, 2, 4), (4, 8, 2, 8), (2, 16, 4, 4), (2, 16, 4, 8)]}

P_IF = "/interfaces/interface/state/counters/"
SW_FIELDS = [  # (key, path) uint counters of the if-counters subscription
    ("in_oct", P_IF + "in-octets"), ("out_oct", P_IF + "out-octets"),
    ("in_pkt", P_IF + "in-unicast-pkts"), ("out_pkt", P_IF + "out-unicast-pkts"),
    ("in_err", P_IF + "in-errors"), ("in_fcs", P_IF + "in-fcs-errors"),
    ("in_disc", P_IF + "in-discards"), ("out_disc", P_IF + "out-discards"),
    ("out_err", P_IF + "out-errors"), ("carrier", P_IF + "carrier-transitions"),
]
F_OPER = "/interfaces/interface/state/oper-status"
F_ADMIN = "/interfaces/interface/state/admin-status"
F_SPEED = "/interfaces/interface/ethernet/state/negotiated-port-speed"
Q_FIELDS = [("q_drop", "/qos/interfaces/interface/output/queues/queue/state/dropped-pkts"),
            ("q_ecn", "/Smash/qos/status/intfQueueCounter/ecnMarkedPkts")]
F_LANE = "/components/component/transceiver/physical-channels/channel/state/input-power/instant"
F_TEMP = "/components/component/transceiver/state/module-temperature/instant"
F_BER = "/components/component/transceiver/state/pre-fec-ber/instant"
M_FIELDS = [("fec_corr", "/components/component/transceiver/state/fec-corrected-bits"),
            ("fec_unc", "/components/component/transceiver/state/fec-uncorrectable-words")]
NIC_FIELDS = ["rx_bytes_phy", "tx_bytes_phy", "rx_packets_phy", "tx_packets_phy", "rx_crc_errors_phy",
              "rx_discards_phy", "link_down_events_phy", "rx_corrected_bits_phy", "out_of_sequence",
              "packet_seq_err", "np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored"]

# switch port kinds
K_HOST, K_UP, K_SPL, K_SDN, K_SUP, K_SPS = range(6)   # leaf->host, leaf->spine, spine->leaf, stor-leaf->stor, stor-leaf->spine, spine->stor-leaf

# queue pressure per unit of gpress: host-facing egress vs fabric (uplink / spine) egress, where ECMP
# collisions of elephant flows add to it; BURST: peak-to-average of each traffic kind (comm phases)
BETA_HOST = {"allreduce": 0.22, "moe": 0.8, "stream": 0.0, "light": 0.1}
BETA_FAB = {"allreduce": 0.8, "moe": 0.9, "stream": 0.0, "light": 0.2}
BURST = {"allreduce": 1 / 0.6, "moe": 1 / 0.7, "stream": 1.0, "light": 1.5}


def gpress(d):
    """queue pressure from offered load / capacity at burst level (0 below ~30%)."""
    return np.minimum(np.clip((d - 0.3) / 0.7, 0.0, None) ** 2, 4.0)


def mark_frac(p):
    """DCQCN/RED marking: nothing below Kmin, then rising to a few percent."""
    return np.where(p > 0.08, np.minimum(0.004 * p + 0.006 * p * p, 0.06), 0.0)


def drop_frac(p):
    """tail drops once the queue is well above the marking range: 1e-7..1e-5 of packets."""
    return np.where(p > 0.25, 1.2e-6 * p * p, 0.0)


class Fabric:
    def __init__(self, seed: int, hours: float, nodes: int = 16):
        self.seed = seed
        self.nodes = nodes
        self.rng = np.random.default_rng([seed, zlib.crc32(b"roce_lossy_gnmic")])
        self.hours = hours
        self.k = hours / 4.0
        n = int(round(hours * 3600 / STEP / 3)) * 3
        self.dur = n * STEP
        self.T = n + 1
        self.ts = np.arange(self.T, dtype=np.int64) * STEP
        self.train_until = int(round(self.dur * 0.3 / 30)) * 30
        self.faults = []
        self.healthy = []

    # ---------------------------------------------------------------- helpers
    def m(self, x):
        """minute of the 4-hour timeline -> seconds on a 30 s boundary, scaled to --hours."""
        return int(round(x * 60 * self.k / 30)) * 30

    def frac(self, a, b):
        hi = np.minimum(self.ts, b)
        lo = np.maximum(self.ts - STEP, a)
        f = np.clip((hi - lo) / STEP, 0.0, 1.0)
        f[0] = 0.0
        return f

    def stepk(self, t):
        return int(min(self.T - 1, max(1, int(np.ceil(t / STEP)))))

    def ns(self, t):
        return int((T0 + t) * 10**9)

    # ---------------------------------------------------------------- topology
    def build(self):
        rng = self.rng
        builds = BUILDS[self.nodes]
        G, hpl, kps, S = builds[(self.seed + int(rng.integers(len(builds)))) % len(builds)] if len(builds) > 2 else builds[self.seed % len(builds)]
        self.G, self.hpl, self.kps, self.S = G, hpl, kps, S
        self.R = 8
        self.H = G * hpl
        self.NU = 2 * kps
        planes = S // kps
        self.spines_of_rail = [[(r % planes) * kps + j for j in range(kps)] for r in range(self.R)]
        self.host_names = [f"gpu{h + 1:03d}" for h in range(self.H)]
        sw = defaultdict(list)

        def add(dev, port, role, rail, kind, pdev, ppeer, speed=1.0, **kw):
            sw["dev"].append(dev); sw["port"].append(port); sw["role"].append(role)
            sw["rail"].append(rail); sw["kind"].append(kind); sw["pdev"].append(pdev)
            sw["pport"].append(ppeer); sw["speed"].append(speed)
            sw["lid"].append(kw.get("lid", -1)); sw["u"].append(kw.get("u", -1))
            sw["host"].append(kw.get("host", -1)); sw["sl"].append(kw.get("sl", -1))
            sw["spine"].append(kw.get("spine", -1)); sw["node"].append(kw.get("node", -1))
            return len(sw["dev"]) - 1

        self.leaf_names = []
        self.hostport = np.zeros((self.H, self.R), dtype=int)
        self.upport = np.zeros((self.R * G, self.NU), dtype=int)
        for r in range(self.R):
            for g in range(G):
                lid = r * G + g
                name = f"leaf-r{r}-{g + 1:02d}"
                self.leaf_names.append(name)
                for j in range(hpl):
                    h = g * hpl + j
                    self.hostport[h, r] = add(name, f"Ethernet{j + 1}/1", "gpu-leaf", r, K_HOST, self.host_names[h], f"mlx5_{r}", lid=lid, host=h)
                for u in range(self.NU):
                    s = self.spines_of_rail[r][u // 2]
                    self.upport[lid, u] = add(name, f"Ethernet{49 + u}/1", "gpu-leaf", r, K_UP, f"spine-{s + 1:02d}", "", lid=lid, u=u, spine=s)
        self.stor_leaf_names = ["stor-leaf-01", "stor-leaf-02"]
        self.stdown = np.zeros((2, 4), dtype=int)
        self.stup = np.zeros((2, S), dtype=int)
        for sl in range(2):
            for n in range(4):
                self.stdown[sl, n] = add(self.stor_leaf_names[sl], f"Ethernet{n + 1}/1", "stor-leaf", None, K_SDN, f"stor{n + 1:02d}", f"mlx5_{sl}", speed=0.5, sl=sl, node=n)
            for s in range(S):
                self.stup[sl, s] = add(self.stor_leaf_names[sl], f"Ethernet{49 + s}/1", "stor-leaf", None, K_SUP, f"spine-{s + 1:02d}", "", sl=sl, spine=s)
        self.spine_names = [f"spine-{s + 1:02d}" for s in range(S)]
        self.spport = np.full((self.R * G, self.NU), -1, dtype=int)
        self.spst = np.zeros((S, 2), dtype=int)
        for s in range(S):
            n = 0
            for lid in range(self.R * G):
                r = lid // G
                if s not in self.spines_of_rail[r]:
                    continue
                j = self.spines_of_rail[r].index(s)
                for l in range(2):
                    u = 2 * j + l
                    up = self.upport[lid, u]
                    pname = f"Ethernet{3 + n // 36}/{n % 36 + 1}/1"
                    i = add(self.spine_names[s], pname, "spine", r, K_SPL, self.leaf_names[lid], sw["port"][up], lid=lid, u=u, spine=s)
                    sw["pport"][up] = pname
                    self.spport[lid, u] = i
                    n += 1
            for sl in range(2):
                pname = f"Ethernet{3 + n // 36}/{n % 36 + 1}/1"
                i = add(self.spine_names[s], pname, "spine", None, K_SPS, self.stor_leaf_names[sl], sw["port"][self.stup[sl, s]], sl=sl, spine=s)
                sw["pport"][self.stup[sl, s]] = pname
                self.spst[s, sl] = i
                n += 1
        self.sw = {k: (np.array(v) if k in ("kind", "speed", "lid", "u", "host", "sl", "spine", "node") else v) for k, v in sw.items()}
        self.P = len(sw["dev"])
        peer = np.full(self.P, -1)
        for lid in range(self.R * G):
            for u in range(self.NU):
                a, b = self.upport[lid, u], self.spport[lid, u]
                peer[a], peer[b] = b, a
        for s in range(S):
            for sl in range(2):
                a, b = self.stup[sl, s], self.spst[s, sl]
                peer[a], peer[b] = b, a
        self.peer = peer
        # NICs
        self.NN = self.H * self.R
        self.nic_dev = [self.host_names[h] for h in range(self.H) for r in range(self.R)]
        self.nic_port = [f"mlx5_{r}" for h in range(self.H) for r in range(self.R)]
        self.nic_leafport = np.array([self.hostport[h, r] for h in range(self.H) for r in range(self.R)])
        self.devices = self.leaf_names + self.stor_leaf_names + self.spine_names
        self.dev_of_port = np.array([self.devices.index(d) for d in self.sw["dev"]])
        self.dev_ports = [np.where(self.dev_of_port == d)[0] for d in range(len(self.devices))]

    def nic(self, h, r):
        return h * self.R + r

    def pname(self, i):
        return f"{self.sw['dev'][i]}:{self.sw['port'][i]}"

    def nname(self, n):
        return f"{self.nic_dev[n]}:{self.nic_port[n]}"

    # ---------------------------------------------------------------- labels
    def fault(self, kind, device, ports, a, b, signature, peer_ends=(), related=()):
        assert a >= self.train_until, (kind, a)
        rel = defaultdict(list)
        for d, p in related:
            if p not in rel[d]:
                rel[d].append(p)
        self.faults.append({
            "kind": kind, "device": device, "ports": list(ports),
            "start_ns": self.ns(a), "end_ns": self.ns(min(b, self.dur)),
            "peer_ends": [{"device": d, "port": p} for d, p in peer_ends],
            "related": [{"device": d, "ports": ps} for d, ps in rel.items()],
            "signature": signature,
        })

    def healthy_event(self, kind, where, a, b, note, background=False):
        ev = {"kind": kind, "where": sorted(set(where)), "start_ns": self.ns(max(a, 0)), "end_ns": self.ns(min(b, self.dur)), "note": note}
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    def host_where(self, hosts, rails=range(8), nics=True):
        w = []
        for h in hosts:
            for r in rails:
                w.append(self.pname(self.hostport[h, r]))
                if nics:
                    w.append(self.nname(self.nic(h, r)))
        return w

    def leaf_uplinks_where(self, lids):
        return [self.pname(self.upport[lid, u]) for lid in lids for u in range(self.NU)] + \
               [self.pname(self.spport[lid, u]) for lid in lids for u in range(self.NU)]

    # ---------------------------------------------------------------- scenario
    def scenario(self):
        rng, M, G, H, R = self.rng, self.m, self.G, self.H, self.R
        T = self.T
        hpl = self.hpl
        group = np.arange(H) // hpl
        self.group = group
        # ---- host allocation
        order = list(rng.permutation(H))
        pool = {g: [h for h in order if group[h] == g] for g in range(G)}
        gC = int(rng.integers(G))
        C = pool[gC][:2]
        pool[gC] = pool[gC][2:]

        def take(n, avoid=()):
            """n hosts, each from the group with most hosts left (spreads every job over the leaves)."""
            out = []
            for _ in range(n):
                gs = sorted(pool, key=lambda g: (g in avoid, -len(pool[g]), (g + self.seed) % G))
                out.append(pool[gs[0]].pop(0))
            return out

        spares = take(1, avoid=(gC,))
        spares += take(1, avoid=(group[spares[0]],))
        n_light = 1 if H <= 16 else 2
        light = take(n_light)
        B = take(int(round(0.28 * H)))
        A = [h for g in range(G) for h in pool[g]]
        A = [h for h in order if h in A]
        self.A, self.B, self.C, self.spares, self.light = A, B, C, spares, light
        slow = A[int(rng.integers(len(A)))]
        slow_rails = sorted(rng.choice(R, 2, replace=False).tolist())
        self.slow, self.slow_rails = slow, slow_rails

        # ---- timeline (minutes of the 4 h default, every seed moves each event a little)
        def J(x, a):
            return float(x + rng.uniform(-a, a))

        a_crash = J(40, 3)
        a_back = a_crash + rng.uniform(10, 14)
        a_stop = J(166, 3)
        a2_start = J(200, 3)
        ck_times = [J(20, 3), J(65, 2), J(100, 4), J(133, 4), J(157, 3), J(226, 4)]
        b_start, b_stop, b2_start = J(6, 2), J(148, 3), a2_start + rng.uniform(2, 5)
        d_start = J(18, 3)
        d_stop = d_start + rng.uniform(12, 17)
        e_start = J(92, 3)
        e_stop = J(119, 2)
        self.tl = {"fw1": J(57, 3), "fw2": e_stop + rng.uniform(3, 6), "maint": J(24, 3), "collector": J(110, 14),
                   "f_ecn": J(96, 4), "f_ecn_len": rng.uniform(42, 52), "f_cc": J(104, 4), "f_cc_end": J(160, 3),
                   "f_degrade": J(108, 4), "f_flap": J(78, 3), "f_shallow": J(116, 5), "f_left": J(138, 4),
                   "f_half": J(122, 4), "f_half_len": rng.uniform(36, 44), "f_heat": J(176, 3), "f_crc": J(86, 4)}
        self.night = (M(a_stop), M(a2_start))

        comps = []

        def wave(start, end, level, kind, eval_every=None, pauses=(), warm=90):
            w = np.zeros(T)
            ts = self.ts
            act = (ts > start) & (ts <= end)
            w[act] = level * np.clip(1 + 0.06 * rng.standard_normal(act.sum()), 0.7, 1.25)
            wm = act & (ts <= start + warm)
            w[wm] = rng.uniform(0.02, 0.12, wm.sum())
            if kind == "moe":
                w[act] *= np.clip(rng.lognormal(0, 0.22, act.sum()), 0.5, 1.8)
            if eval_every:
                t = start + eval_every * rng.uniform(0.5, 1.0)
                while t < end:
                    d = rng.uniform(50, 110)
                    m_ = (ts > t) & (ts <= t + d)
                    w[m_] = np.minimum(w[m_], 0.03)
                    t += eval_every * rng.uniform(0.8, 1.2)
            for pa, pb in pauses:
                m_ = (ts > pa) & (ts <= pb)
                w[m_] = np.minimum(w[m_], 0.015)
            return np.clip(w, 0, 0.97)

        ck_windows = []
        for c in ck_times:
            a = M(c)
            ck_windows.append((a, a + int(rng.uniform(150, 230))))
        ck_A1 = [w for w in ck_windows if w[0] < M(a_stop)]
        ck_A2 = [w for w in ck_windows if w[0] >= M(a2_start)]
        lvlA = rng.uniform(0.58, 0.66)
        uA = wave(0 - 600, M(a_crash), lvlA, "allreduce", eval_every=1500, pauses=ck_A1)
        uA += wave(M(a_back), M(a_stop), lvlA, "allreduce", eval_every=1500, pauses=ck_A1)
        uA += wave(M(a2_start), self.dur + 10, rng.uniform(0.6, 0.68), "allreduce", eval_every=1500, pauses=ck_A2)
        comps.append({"name": "pretrain", "kind": "allreduce", "hosts": np.array(A), "u": uA})
        uB = wave(M(b_start), M(b_stop), rng.uniform(0.4, 0.48), "moe")
        uB += wave(M(b2_start), self.dur + 10, rng.uniform(0.4, 0.48), "moe")
        omega = np.ones((T, len(B)))
        hot_eps = []
        for (sa, sb) in [(M(b_start) + 120, M(b_stop)), (M(b2_start) + 120, self.dur)]:
            t = sa + rng.uniform(60, 200)
            while t < sb - 60:
                d = rng.uniform(20, 90)
                nh = int(rng.integers(1, min(3, len(B)) + 1))
                hh = rng.choice(len(B), nh, replace=False)
                m_ = (self.ts > t) & (self.ts <= t + d)
                for x in hh:
                    omega[m_, x] = rng.uniform(5, 9)
                hot_eps.append((int(t) - 10, int(t + d) + 10, [B[x] for x in hh]))
                t += d + rng.uniform(150, 420)
        comps.append({"name": "moe", "kind": "moe", "hosts": np.array(B), "u": uB, "omega": omega})
        uC = np.where(self.ts > 0, np.clip(rng.uniform(0.85, 0.89) + 0.008 * rng.standard_normal(T), 0, 0.95), 0)
        comps.append({"name": "stream2", "kind": "stream", "hosts": np.array(C), "u": uC})
        uL = np.clip(0.05 + np.cumsum(rng.normal(0, 0.004, T)), 0.015, 0.1) * np.clip(rng.lognormal(0, 0.3, T), 0.3, 3)
        nightm = (self.ts > self.night[0]) & (self.ts <= self.night[1])
        uL[nightm] *= 0.15
        comps.append({"name": "light", "kind": "light", "hosts": np.array(light), "u": uL})
        uD = wave(M(d_start), M(d_stop), rng.uniform(0.45, 0.55), "allreduce")
        comps.append({"name": "finetune-d", "kind": "allreduce", "hosts": np.array(spares + light[:1]), "u": uD})
        uE = wave(M(e_start), M(e_stop), rng.uniform(0.45, 0.55), "allreduce")
        comps.append({"name": "finetune-e", "kind": "allreduce", "hosts": np.array(spares), "u": uE})
        self.comps = comps
        self.ck_windows = ck_windows
        self.ck_A1, self.ck_A2 = ck_A1, ck_A2
        self.restore = [(M(a_back) + 40, M(a_back) + 40 + 150), (M(a2_start) + 30, M(a2_start) + 30 + 180)]

        # ---- link state containers
        P, NN = self.P, self.NN
        self.oper_down = defaultdict(list)     # switch port -> [(a, b)]
        self.admin_down = defaultdict(list)
        self.nic_down = defaultdict(list)      # nic -> [(a, b)]
        self.traffic_down = defaultdict(list)  # switch port (link, either end) -> [(a, b)] no traffic
        self.fcs_at_up = []                    # (switch port or ('nic', n), t, count)
        self.dev_absent = defaultdict(list)    # device index -> [(a, b)]
        self.dev_resync = defaultdict(list)    # device index -> [t]
        self.sw_reset = []                     # (ports, t)
        self.nic_reset = []                    # (nics, t)
        self.nic_absent = defaultdict(list)
        self.drain = defaultdict(list)         # spine -> [(a, b)]
        self.speed_half = defaultdict(list)    # switch port -> [(a, b)]
        self.lldp_gone = defaultdict(list)     # switch port / ('nic', n) -> [(a, b)]
        self.collector_out = []

        def link_bounce(i, a, b, nic=None, both=True, fcs=True):
            """switch port i (and its peer / nic) oper down in [a, b)."""
            self.oper_down[i].append((a, b))
            self.traffic_down[i].append((a, b))
            ends = [i]
            if nic is not None:
                self.nic_down[nic].append((a, b))
            elif both and self.peer[i] >= 0:
                self.oper_down[self.peer[i]].append((a, b))
                self.traffic_down[self.peer[i]].append((a, b))
                ends.append(self.peer[i])
            if b - a > 120:
                hold = a + 120 + rng.uniform(0, 30)
                back = b + rng.uniform(5, 30)
                for e in ends:
                    self.lldp_gone[e].append((hold, back))
                if nic is not None:
                    self.lldp_gone[("nic", nic)].append((a + 120 + rng.uniform(0, 30), b + rng.uniform(5, 30)))
            if fcs:
                for e in ends:
                    if rng.random() < 0.5:
                        self.fcs_at_up.append((e, b, int(rng.integers(1, 4))))
                if nic is not None and rng.random() < 0.5:
                    self.fcs_at_up.append((("nic", nic), b, int(rng.integers(1, 4))))

        self.link_bounce = link_bounce

        # ---- healthy: ECMP weights (redrawn at job boundaries)
        NL = R * G
        boundaries = sorted({M(x) for x in (b_start, d_start, d_stop, a_crash, a_back, e_start, e_stop, b_stop, a_stop, a2_start, b2_start)})
        self.wup = np.ones((T, NL, self.NU))
        self.zsp = np.ones((T, NL, self.NU))
        edges = [0] + boundaries + [self.dur + STEP]
        for a, b in zip(edges[:-1], edges[1:]):
            m_ = (self.ts >= a) & (self.ts < b)
            w = rng.uniform(0.7, 1.3, (NL, self.NU))
            z = rng.uniform(0.85, 1.15, (NL, self.NU))
            self.wup[m_] = w[None]
            self.zsp[m_] = z[None]
        self.healthy_event("ecmp_imbalance", self.leaf_uplinks_where(range(NL)), 0, self.dur,
                           "ECMP split of each leaf's uplinks differs by up to +-30% (and spine->leaf pairs +-15%); redrawn at every job boundary", background=True)

        # ---- healthy: jobs
        def job_where(hosts):
            lids = sorted({r * G + group[h] for h in hosts for r in range(R)})
            return self.host_where(hosts) + (self.leaf_uplinks_where(lids) if len({group[h] for h in hosts}) > 1 else [])

        for (name, hosts, a, b) in [("pretrain", A, 0, M(a_crash)), ("pretrain", A, M(a_back), M(a_stop)), ("pretrain-2", A, M(a2_start), self.dur),
                                    ("moe", B, M(b_start), M(b_stop)), ("moe-2", B, M(b2_start), self.dur),
                                    ("finetune-d", spares + light[:1], M(d_start), M(d_stop)), ("finetune-e", spares, M(e_start), M(e_stop))]:
            kind = "moe_alltoall" if name.startswith("moe") else "allreduce_iterations"
            self.healthy_event(kind, job_where(hosts), a, b, f"job {name} on {len(hosts)} nodes: {'all-to-all with expert imbalance' if kind == 'moe_alltoall' else 'all-reduce iterations, eval pauses, checkpoint pauses'}")
            for t in (a, b):
                if 0 < t < self.dur:
                    self.healthy_event("job_start_stop", job_where(hosts), t - 60, t + 240, f"job {name} {'starts (NCCL warm-up, new QPs re-hash ECMP)' if t == a else 'stops'}")
        for (ha, hb, hh) in hot_eps:
            lids = sorted({r * G + group[h] for h in hh for r in range(R)})
            w = self.host_where(hh) + self.leaf_uplinks_where(lids)
            self.healthy_event("moe_hot_receivers", w, ha, hb, f"MoE experts on {','.join(self.host_names[h] for h in hh)} hot: incast on their leaf ports on all rails (ECN at percent level, tail drops) and on the spine ports towards those leaves")
        for (a, b) in ck_windows:
            if (a < M(a_stop) or a >= M(a2_start)):
                w = [self.pname(i) for i in self.stdown.ravel()] + [self.pname(i) for i in self.spst.ravel()] + [self.pname(i) for i in self.stup.ravel()]
                lids = sorted({r * G + group[h] for h in A for r in range(R)})
                w += self.leaf_uplinks_where(lids) + self.host_where(A)
                self.healthy_event("checkpoint_incast", w, a, b + 30, "pre-training checkpoint: all its NICs write to the 4 storage nodes; storage leaf ports and spine ports towards the storage leaves saturate, mark heavily and drop 1e-6..1e-5 of packets")
        for (a, b) in self.restore:
            self.healthy_event("checkpoint_restore", [self.pname(i) for i in self.stdown.ravel()] + [self.pname(i) for i in self.stup.ravel()] + [self.pname(i) for i in self.spst.ravel()] + self.host_where(A), a, b, "job restart reads its checkpoint back from storage")
        self.healthy_event("two_host_steady_stream", self.host_where(C), 0, self.dur,
                           f"2-node job on {self.host_names[C[0]]},{self.host_names[C[1]]} (same leaf on every rail) at ~87% of line rate, 1:1, no queue: no ECN, no drops", background=True)
        self.healthy_event("light_traffic", self.host_where(light), 0, self.dur, "dev/inference nodes at 2-10% of line rate", background=True)
        self.healthy_event("slow_receiver", self.host_where([slow], slow_rails), 0, self.dur,
                           f"{self.host_names[slow]} NICs {slow_rails} drain slower than line rate (PCIe): leaf port marks more, bounded out_of_sequence/CNPs, rx_discards_phy trickle", background=True)
        self.healthy_event("idle_stretch", ["*"], M(a_crash), M(a_back) + 120, "pre-training job crashed and restarts from its checkpoint: most of the fabric idle")
        self.healthy_event("idle_stretch", ["*"], self.night[0], self.night[1] + 180, "night-time drain of the pod (maintenance slot): counters barely move except the 2-node stream and MoE tail")

        # ---- healthy: spine reboots (fit window and night)
        X, Y = [int(x) for x in rng.choice(self.S, 2, replace=False)]
        self.X, self.Y = X, Y
        for s, (da, ra) in [(X, (M(a_crash) + 60, M(a_crash) + 240)), (Y, (M(a_stop) + 360, M(a_stop) + 600))]:
            db = ra + int(rng.uniform(570, 720))
            rb = ra + int(rng.uniform(280, 340))
            self.drain[s].append((da, db))
            d = self.devices.index(self.spine_names[s])
            self.dev_absent[d].append((ra, rb))
            self.sw_reset.append((self.dev_ports[d], rb))
            for i in self.dev_ports[d]:
                up_at = rb + rng.uniform(10, 50)
                self.oper_down[i].append((ra, up_at))
                self.traffic_down[i].append((ra, up_at))
                self.lldp_gone[i].append((ra, up_at + rng.uniform(15, 35)))
                pe = self.peer[i]
                self.oper_down[pe].append((ra + rng.uniform(0, 1), up_at))
                self.traffic_down[pe].append((ra, up_at))
                self.lldp_gone[pe].append((ra + 120 + rng.uniform(0, 30), up_at + rng.uniform(5, 30)))
                if rng.random() < 0.3:
                    self.fcs_at_up.append((pe, up_at, int(rng.integers(1, 3))))
            w = [f"{self.spine_names[s]}:*"] + [self.pname(self.peer[i]) for i in self.dev_ports[d]]
            lids = [lid for lid in range(NL) if s in self.spines_of_rail[lid // G]]
            w += self.leaf_uplinks_where(lids)
            self.healthy_event("planned_spine_reboot", w, da, db + 60, f"{self.spine_names[s]} drained (traffic to the plane's other spine), rebooted (silent ~5 min, links down on the leaf side, counters restart near zero, full resend), undrained")

        # ---- healthy: NIC firmware updates on the spares
        for h, t in [(spares[0], M(self.tl["fw1"])), (spares[1], M(self.tl["fw2"]))]:
            d1 = rng.uniform(150, 200)
            gap = rng.uniform(330, 450)
            d2 = rng.uniform(40, 80)
            nics = [self.nic(h, r) for r in range(R)]
            for r in range(R):
                n = self.nic(h, r)
                link_bounce(self.hostport[h, r], t + rng.uniform(0, 3), t + d1 + rng.uniform(0, 5), nic=n)
                link_bounce(self.hostport[h, r], t + gap + rng.uniform(0, 3), t + gap + d2 + rng.uniform(0, 5), nic=n)
                self.nic_absent[n].append((t, t + d1))
            self.nic_reset.append((nics, t + d1))
            self.healthy_event("nic_firmware_update", self.host_where([h]), t - 30, t + gap + d2 + 240,
                               f"firmware update on spare {self.host_names[h]}: all 8 links bounce twice, NIC counters restart from zero, LLDP tags vanish during the first (long) bounce")

        # ---- healthy: planned link maintenance (fit window) -- succeeds
        rails = list(rng.permutation(R))
        self.fault_rails = rails

        def pick_uplink(r, avoid=(), gsel=None):
            g = int(rng.integers(G)) if gsel is None else gsel
            lid = r * G + g
            cands = [u for u in range(self.NU) if self.spines_of_rail[r][u // 2] not in avoid]
            if not cands:
                cands = [u for u in range(self.NU) if self.spines_of_rail[r][u // 2] != Y]
            u = int(rng.choice(cands))
            return lid, u

        lid_m, u_m = pick_uplink(rails[3], avoid=(X, Y))
        i_m = self.upport[lid_m, u_m]
        a = M(self.tl["maint"])
        b = a + int(rng.uniform(380, 460))
        self.admin_down[i_m].append((a, b))
        link_bounce(i_m, a, b + rng.uniform(5, 15))
        self.healthy_event("planned_link_maintenance", [self.pname(i_m), self.pname(self.peer[i_m])] + self.leaf_uplinks_where([lid_m]), a - 30, b + 240,
                           "change window: leaf port shut, fibre cleaned, port enabled again; traffic moves to siblings meanwhile")

        # ---- healthy: background sporadic FEC / FCS
        self.sporadic = np.zeros(P)
        pick = rng.random(P) < 0.15
        self.sporadic[pick] = rng.uniform(0.3, 2.5, pick.sum())   # events per hour
        self.nic_sporadic = np.zeros(NN)
        pickn = rng.random(NN) < 0.15
        self.nic_sporadic[pickn] = rng.uniform(0.3, 2.0, pickn.sum())
        self.healthy_event("sporadic_fec_fcs", [self.pname(i) for i in np.where(pick)[0]] + [self.nname(n) for n in np.where(pickn)[0]], 0, self.dur,
                           "single uncorrectable FEC codewords / FCS errors (NIC: rx_crc_errors_phy), 0.3-2.5 per hour", background=True)

        # ---- collector artefacts
        co = M(self.tl["collector"]) + int(rng.uniform(0, 29))
        self.collector_out.append((co, co + 120))
        self.healthy_event("collector_outage", ["*"], co, co + 150, "gnmic restarted: no switch data for 2 minutes, then a full resend of every leaf")
        nd = len(self.devices)
        for t in [M(rng.uniform(8, 65)), M(rng.uniform(80, 160)), M(rng.uniform(170, 235))]:
            d = int(rng.integers(nd))
            t = t + int(rng.uniform(0, 29))
            self.dev_resync[d].append(t)
            self.healthy_event("gnmi_resync", [f"{self.devices[d]}:*"], t - 10, t + 30, "gNMI session to this switch reset: full resend of every leaf (heartbeat phase changes)")
        self.missing_p = 0.002
        self.healthy_event("missing_samples", ["*"], 0, self.dur, "~0.2% of points lost in the pipeline", background=True)

        # ---------------------------------------------------------------- faults
        self.ecn_off_lid = None
        self.cc_off = None
        self.degrade = None
        self.overheat = None
        self.crc_nic = None
        self.shallow = None
        # 1. ECN disabled on a GPU leaf
        r1 = rails[0]
        cnt = [sum(1 for h in A + B if group[h] == g) for g in range(G)]
        g1 = int(np.argmax(cnt))
        lid1 = r1 * G + g1
        a1 = M(self.tl["f_ecn"])
        b1 = a1 + M(self.tl["f_ecn_len"])
        self.ecn_off_lid = (lid1, a1, b1)
        nics1 = [self.nic(h, r1) for h in range(H) if group[h] == g1]
        self.fault("ecn_disabled_switch", self.leaf_names[lid1], ["*"], a1, b1,
                   "ECN profile missing on every queue of this leaf: ecnMarkedPkts flat on all its ports while other leaves mark; its queues fill instead, so dropped-pkts/out-discards on its host ports and uplinks run several times those of other leaves at the same load; NICs behind it see far fewer np_ecn_marked_roce_packets / np_cnp_sent and more out_of_sequence",
                   peer_ends=[(self.nic_dev[n], self.nic_port[n]) for n in nics1],
                   related=[(self.sw["dev"][self.spport[lid1, u]], self.sw["port"][self.spport[lid1, u]]) for u in range(self.NU)])
        # 2. NIC with congestion control disabled
        r2 = rails[5]
        cands = [h for h in A if h != slow]
        h2 = cands[int(rng.integers(len(cands)))]
        n2 = self.nic(h2, r2)
        a2, b2 = M(self.tl["f_cc"]), M(self.tl["f_cc_end"])
        self.cc_off = (h2, r2, a2, b2)
        lid2 = r2 * G + group[h2]
        rel = [(self.sw["dev"][self.upport[lid2, u]], self.sw["port"][self.upport[lid2, u]]) for u in range(self.NU)]
        for g in range(G):
            lid = r2 * G + g
            for u in range(self.NU):
                rel.append((self.sw["dev"][self.spport[lid, u]], self.sw["port"][self.spport[lid, u]]))
        for h in A:
            if h != h2:
                i = self.hostport[h, r2]
                rel.append((self.sw["dev"][i], self.sw["port"][i]))
                rel.append((self.nic_dev[self.nic(h, r2)], self.nic_port[self.nic(h, r2)]))
        i2 = self.hostport[h2, r2]
        self.fault("cc_disabled_nic", self.nic_dev[n2], [self.nic_port[n2]], a2, b2,
                   "DCQCN reaction point disabled on this NIC: rp_cnp_handled flat while rp_cnp_ignored climbs; its leaf port receives ~10% more than its siblings; the queues its flows cross (its leaf's uplinks, the spine ports and leaf host ports towards its job peers on this rail) mark and drop more while the job communicates; its peers' np_cnp_sent rise",
                   peer_ends=[(self.sw["dev"][i2], self.sw["port"][i2])], related=rel)
        # 3. degrading optic on a leaf-spine link (leaf receive side)
        lid3, u3 = pick_uplink(rails[1], avoid=(Y,))
        i3 = self.upport[lid3, u3]
        a3, b3 = M(self.tl["f_degrade"]), self.dur
        self.degrade = (i3, a3, b3, int(rng.integers(4)))
        self.fault("degrading_optic", self.sw["dev"][i3], [self.sw["port"][i3]], a3, b3,
                   f"received optical power on lane {self.degrade[3] + 1} of this leaf uplink falls ~3 dB over ~2 h (input-power/instant), pre-fec-ber rises x1000 (1e-7 -> 1e-4), fec-corrected-bits with it; fec-uncorrectable-words and in-fcs-errors/in-errors appear only in the last ~30 min and only with traffic; the far (spine) end stays clean",
                   peer_ends=[(self.sw["dev"][self.peer[i3]], self.sw["port"][self.peer[i3]])])
        # 4. flapping host link
        r4 = rails[6]
        cands = [h for h in A if h not in (h2, slow)]
        h4 = cands[int(rng.integers(len(cands)))]
        i4 = self.hostport[h4, r4]
        n4 = self.nic(h4, r4)
        a4 = M(self.tl["f_flap"])
        t = a4
        b4 = a4
        for _burst in range(3):
            for _ in range(int(rng.integers(2, 7))):
                d = rng.uniform(2, 20)
                link_bounce(i4, t, t + d, nic=n4)
                b4 = t + d
                t += d + rng.uniform(4, 50)
            t += rng.uniform(240, 420)
        b4 = int(np.ceil(b4 / 30) * 30) + 30
        self.fault("flapping_link", self.sw["dev"][i4], [self.sw["port"][i4]], a4, b4,
                   "host link bounces in 3 bursts of 2-6 down/up cycles (2-20 s down): carrier-transitions +2 per cycle, oper-status DOWN in samples that land in a down, traffic gaps, in-fcs-errors at some link-ups; NIC side link_down_events_phy +1 per cycle, rx_crc_errors_phy at link-up",
                   peer_ends=[(self.nic_dev[n4], self.nic_port[n4])])
        # 5. shallow buffer profile on a spine egress port
        r5 = rails[2]
        busyB = [sum(1 for h in B if group[h] == g) + 0.1 * sum(1 for h in A if group[h] == g) for g in range(G)]
        lid5, u5 = pick_uplink(r5, avoid=(Y,), gsel=int(np.argmax(busyB)))
        i5 = self.spport[lid5, u5]
        a5, b5 = M(self.tl["f_shallow"]), self.dur
        self.shallow = (i5, a5, b5)
        self.fault("bad_buffer_profile", self.sw["dev"][i5], [self.sw["port"][i5]], a5, b5,
                   "spine egress towards a GPU leaf got a shallow buffer profile in a config push: dropped-pkts/out-discards ~100x those of its sibling ports at the same load, only while it is congested (nothing during the night drain); ECN marks slightly below its siblings",
                   peer_ends=[(self.sw["dev"][self.peer[i5]], self.sw["port"][self.peer[i5]])])
        # 6. link left down after maintenance
        lid6, u6 = pick_uplink(rails[3], avoid=(Y,))
        if lid6 == lid_m and u6 == u_m:
            u6 = [u for u in range(self.NU) if u != u_m and self.spines_of_rail[rails[3]][u // 2] != Y][0]
        i6 = self.upport[lid6, u6]
        j6 = self.peer[i6]
        a6w = M(self.tl["f_left"])
        b6w = a6w + int(rng.uniform(480, 600))
        b6w = int(np.ceil(b6w / 30)) * 30
        self.admin_down[i6].append((a6w, b6w))
        self.oper_down[i6].append((a6w, self.dur + 60))
        self.traffic_down[i6].append((a6w, self.dur + 60))
        self.traffic_down[j6].append((a6w, self.dur + 60))
        self.oper_down[j6].append((a6w + rng.uniform(0, 1), b6w + rng.uniform(6, 12)))
        self.lldp_gone[i6].append((a6w + 120 + rng.uniform(0, 30), self.dur + 60))
        self.lldp_gone[j6].append((a6w + 120 + rng.uniform(0, 30), self.dur + 60))
        self.healthy_event("planned_link_maintenance", [self.pname(i6), self.pname(j6)] + self.leaf_uplinks_where([lid6]), a6w - 30, b6w,
                           "change window: leaf port shut for an optic swap")
        self.fault("link_left_down", self.sw["dev"][i6], [self.sw["port"][i6]], b6w, self.dur,
                   "after the change window the leaf port is admin UP but stays oper DOWN (receive fibre not seated); the 7800R3 end goes back to oper UP (it gets light, remote fault only); no octets either way, LLDP tags gone on both ends, ECMP carries its share on the siblings",
                   peer_ends=[(self.sw["dev"][j6], self.sw["port"][j6])],
                   related=[(self.sw["dev"][self.upport[lid6, u]], self.sw["port"][self.upport[lid6, u]]) for u in range(self.NU) if u != u6])
        # 7. half speed leaf-spine link
        busyAB = [sum(1 for h in A + B if group[h] == g) for g in range(G)]
        lid7, u7 = pick_uplink(rails[4], avoid=(Y,), gsel=int(np.argmax(busyAB)))
        i7 = self.upport[lid7, u7]
        j7 = self.peer[i7]
        a7 = M(self.tl["f_half"])
        b7 = a7 + M(self.tl["f_half_len"])
        link_bounce(i7, a7, a7 + rng.uniform(4, 8))
        link_bounce(i7, b7, b7 + rng.uniform(4, 8))
        self.speed_half[i7].append((a7, b7))
        self.speed_half[j7].append((a7, b7))
        self.fault("half_speed_link", self.sw["dev"][i7], [self.sw["port"][i7]], a7, b7,
                   "link bounces and comes back with negotiated-port-speed SPEED_200GB at both ends while its siblings run SPEED_400GB; ECMP still gives it a full share, so its octets cap near 200G and both directions' queues mark at percent level and drop; it bounces back to 400G at the end",
                   peer_ends=[(self.sw["dev"][j7], self.sw["port"][j7])])
        # 8. module overheating (leaf host port)
        r8 = rails[7]
        cands = [h for h in A if h not in (h2, h4, slow)]
        h8 = cands[int(rng.integers(len(cands)))]
        i8 = self.hostport[h8, r8]
        a8 = M(self.tl["f_heat"])
        self.overheat = (i8, a8, a8 + 2400, self.dur)
        self.fault("module_overheating", self.sw["dev"][i8], [self.sw["port"][i8]], a8, self.dur,
                   "module-temperature/instant of this leaf host-port optic climbs 50 -> 80 degC over 40 min, then holds ~80-82; pre-fec-ber rises above ~70 degC; fec-uncorrectable-words and in-fcs-errors once it is hot (with traffic); the NIC behind it sees more rx_corrected_bits_phy",
                   peer_ends=[(self.nic_dev[self.nic(h8, r8)], self.nic_port[self.nic(h8, r8)])])
        # 9. CRC errors at a NIC (dirty connector)
        cands = [h for h in A if h not in (h2, h4, h8, slow)]
        h9 = cands[int(rng.integers(len(cands)))]
        r9 = int(rng.choice([r for r in range(R) if r not in (r1, r2, r4)]))
        n9 = self.nic(h9, r9)
        a9 = M(self.tl["f_crc"])
        self.crc_nic = (n9, a9, self.dur)
        i9 = self.hostport[h9, r9]
        self.fault("crc_errors", self.nic_dev[n9], [self.nic_port[n9]], a9, self.dur,
                   "dirty connector at the NIC: rx_crc_errors_phy at ~1e-7 of received frames whatever the load (nothing while idle), rx_corrected_bits_phy x20; the leaf port facing it shows no in-fcs-errors",
                   peer_ends=[(self.sw["dev"][i9], self.sw["port"][i9])])

    # ---------------------------------------------------------------- traffic
    def intervals_frac(self, ivs):
        f = np.zeros(self.T)
        for a, b in ivs:
            f += self.frac(a, b)
        return np.clip(f, 0, 1)

    def simulate(self):
        rng = self.rng
        T, P, H, R, G, NU = self.T, self.P, self.H, self.R, self.G, self.NU
        NL = R * G
        sw = self.sw
        # link up fractions (traffic)
        upf = np.ones((T, P))
        for i, ivs in self.traffic_down.items():
            upf[:, i] = 1 - self.intervals_frac(ivs)
        spd = np.ones((T, P)) * sw["speed"][None, :]
        for i, ivs in self.speed_half.items():
            spd[:, i] = np.where(self.intervals_frac(ivs) > 0, 0.5, spd[:, i])
        self.spd = spd
        nic_upf = upf[:, self.nic_leafport].reshape(T, H, R)
        # ECMP weights with failover / drain
        wup = self.wup.copy()
        for lid in range(NL):
            for u in range(NU):
                i = self.upport[lid, u]
                wup[:, lid, u] *= np.clip(upf[:, i], 0, 1)
                s = self.spines_of_rail[lid // G][u // 2]
                for a, b in self.drain[s]:
                    wup[:, lid, u] *= 1 - self.frac(a, b)
        wsum = wup.sum(2, keepdims=True)
        wn = np.where(wsum > 0, wup / np.maximum(wsum, 1e-9), 0.0)
        zsp = self.zsp.copy()
        for lid in range(NL):
            for u in range(NU):
                zsp[:, lid, u] *= np.clip(upf[:, self.spport[lid, u]], 0, 1)
        # normalise z within each spine pair
        zn = np.zeros_like(zsp)
        for j in range(self.kps):
            pair = zsp[:, :, 2 * j:2 * j + 2]
            ps = pair.sum(2, keepdims=True)
            zn[:, :, 2 * j:2 * j + 2] = np.where(ps > 0, pair / np.maximum(ps, 1e-9), 0.0)

        IN = np.zeros((T, P))
        OUT = np.zeros((T, P))
        DEM = np.zeros((T, P))         # offered/capacity on egress (queue view)
        BMIX = np.zeros((T, P))        # pressure coefficient mix of egress traffic
        BUR = np.ones((T, P))          # peak/average mix of egress traffic
        PEX = np.zeros((T, P))         # extra pressure
        hmul = rng.normal(1.0, 0.03, (H, R))
        TX = np.zeros((T, H, R))
        RX = np.zeros((T, H, R))
        comp_tx = []
        comp_rx = []
        for c in self.comps:
            comp_tx.append(np.zeros((T, len(c["hosts"]), R)))
            comp_rx.append(np.zeros((T, len(c["hosts"]), R)))
        cross_in_share = np.zeros((T, H, R))
        # per-rail leaf-level mark/drop inputs kept for the NIC model
        self.fr_in = np.zeros((T, R, G, G))
        cc = self.cc_off
        for r in range(R):
            lids = np.arange(G) + r * G
            rx_dem_tot = np.zeros((T, H))
            tmp = []
            for ci, c in enumerate(self.comps):
                hs = c["hosts"]
                if len(hs) == 0:
                    tmp.append(None)
                    continue
                noise = np.clip(1 + 0.03 * rng.standard_normal((T, len(hs))), 0.85, 1.15)
                txd = c["u"][:, None] * hmul[hs, r][None, :] * noise * nic_upf[:, hs, r]
                if cc and r == cc[1] and cc[0] in hs:
                    x = list(hs).index(cc[0])
                    m_ = self.frac(cc[2], cc[3]) > 0
                    txd[m_, x] *= 1.12
                om = c.get("omega", np.ones((T, len(hs))))
                W = om.sum(1)
                Stx = txd.sum(1)
                rxd = om / W[:, None] * Stx[:, None]
                rx_dem_tot[:, hs] += rxd
                tmp.append((txd, om, W, rxd))
            cap_h = 0.985 * nic_upf[:, :, r]
            if r in self.slow_rails:
                cap_h[:, self.slow] *= 0.72
            f = np.where(rx_dem_tot > cap_h, cap_h / np.maximum(rx_dem_tot, 1e-12), 1.0)
            # group flows
            Fx = np.zeros((T, G, G))
            Fc = []
            for ci, c in enumerate(self.comps):
                if tmp[ci] is None:
                    Fc.append(None)
                    continue
                txd, om, W, rxd = tmp[ci]
                hs = c["hosts"]
                gh = self.group[hs]
                Om = np.zeros((T, G))
                TXg = np.zeros((T, G))
                for x, g in enumerate(gh):
                    Om[:, g] += om[:, x] * f[:, hs[x]]
                    TXg[:, g] += txd[:, x]
                F = TXg[:, :, None] * Om[:, None, :] / W[:, None, None]
                Fc.append((F, Om, TXg))
                Fx += F
            eye = np.eye(G, dtype=bool)
            Fx[:, eye] = 0.0
            out = Fx.sum(2)                                  # (T, G) cross out of each leaf
            dem_up = out[:, :, None] * wn[:, lids, :]
            cap_up = 0.985 * spd[:, self.upport[lids]] * upf[:, self.upport[lids]]
            deliv = np.minimum(dem_up, cap_up)
            a = np.where(out > 0, deliv.sum(2) / np.maximum(out, 1e-12), 1.0)
            fr = np.where(out[:, :, None] > 0, Fx / np.maximum(out[:, :, None], 1e-12), 0.0)   # (T, g', g)
            # traffic entering each spine (by spine slot j) from g'
            in_s = deliv.reshape(T, G, self.kps, 2).sum(3)          # (T, G, kps)
            dem_sp = np.einsum("tgj,tgh->tjh", in_s, fr)             # (T, kps, G dest)
            dem_spl = np.zeros((T, G, NU))
            for j in range(self.kps):
                dem_spl[:, :, 2 * j:2 * j + 2] = dem_sp[:, j, :, None] * zn[:, lids, 2 * j:2 * j + 2]
            cap_spl = 0.985 * spd[:, self.spport[lids]] * upf[:, self.spport[lids]]
            tot_in = dem_spl.sum(2)
            b = np.where(tot_in > 0, np.minimum(dem_spl, cap_spl).sum(2) / np.maximum(tot_in, 1e-12), 1.0)
            beta_src = np.einsum("tgh,th->tg", fr, b)
            beta_src = np.where(out > 0, beta_src, 1.0)
            Sx = a[:, :, None] * b[:, None, :]
            Sx[:, eye] = 1.0
            up_out = deliv * beta_src[:, :, None]
            sp_out = np.minimum(dem_spl * b[:, :, None], cap_spl * 1.0)
            # final per component
            bmix_h = np.zeros((T, H))
            rxtot = np.zeros((T, H))
            bm_out = np.zeros((T, G))
            bm_in = np.zeros((T, G))
            bu_h = np.zeros((T, H))
            bu_out = np.zeros((T, G))
            bu_in = np.zeros((T, G))
            for ci, c in enumerate(self.comps):
                if tmp[ci] is None:
                    continue
                txd, om, W, rxd = tmp[ci]
                F, Om, TXg = Fc[ci]
                hs = c["hosts"]
                gh = self.group[hs]
                txf = txd / W[:, None] * np.einsum("tgh,th->tg", Sx, Om)[:, gh]
                if cc and r == cc[1] and cc[0] in hs:
                    x = list(hs).index(cc[0])
                    m_ = self.frac(cc[2], cc[3]) > 0
                    txf[m_, x] = txd[m_, x]
                rxf = om * f[:, hs] / W[:, None] * np.einsum("tg,tgh->th", TXg, Sx)[:, gh]
                comp_tx[ci][:, :, r] = txf
                comp_rx[ci][:, :, r] = rxf
                TX[:, hs, r] += txf
                RX[:, hs, r] += rxf
                bt = BETA_HOST[c["kind"]]
                bf = BETA_FAB[c["kind"]]
                bu = BURST[c["kind"]]
                bmix_h[:, hs] += bt * rxf
                bu_h[:, hs] += bu * rxf
                rxtot[:, hs] += rxf
                Fo = F.copy()
                Fo[:, eye] = 0
                bm_out += bf * Fo.sum(2)
                bm_in += bf * Fo.sum(1)
                bu_out += bu * Fo.sum(2)
                bu_in += bu * Fo.sum(1)
                # cross share of each receiver (for the NIC path model)
                xin = np.einsum("tg,tgh->th", TXg, np.where(eye[None], 0.0, Sx))[:, gh] * om * f[:, hs] / W[:, None]
                cross_in_share[:, hs, r] += xin
            hp = self.hostport[:, r]
            OUT[:, hp] += RX[:, :, r]
            IN[:, hp] += TX[:, :, r]
            DEM[:, hp] = rx_dem_tot / (0.985 * np.where(np.arange(H)[None, :] == self.slow, 0.72 if r in self.slow_rails else 1.0, 1.0))
            BMIX[:, hp] = np.where(rxtot > 0, bmix_h / np.maximum(rxtot, 1e-12), 0)
            BUR[:, hp] = np.where(rxtot > 0, bu_h / np.maximum(rxtot, 1e-12), 1)
            upp = self.upport[lids]
            spp = self.spport[lids]
            OUT[:, upp.ravel()] += up_out.reshape(T, -1)
            IN[:, spp.ravel()] += up_out.reshape(T, -1)
            OUT[:, spp.ravel()] += sp_out.reshape(T, -1)
            IN[:, upp.ravel()] += sp_out.reshape(T, -1)
            DEM[:, upp.ravel()] = (dem_up / (0.985 * spd[:, upp])).reshape(T, -1)
            DEM[:, spp.ravel()] = (dem_spl / (0.985 * spd[:, spp])).reshape(T, -1)
            BMIX[:, upp.ravel()] = np.repeat(np.where(out > 0, bm_out / np.maximum(out, 1e-12), 0), NU, axis=1)
            BUR[:, upp.ravel()] = np.repeat(np.where(out > 0, bu_out / np.maximum(out, 1e-12), 1), NU, axis=1)
            inx = Fx.sum(1)
            BMIX[:, spp.ravel()] = np.repeat(np.where(inx > 0, bm_in / np.maximum(inx, 1e-12), 0), NU, axis=1)
            BUR[:, spp.ravel()] = np.repeat(np.where(inx > 0, bu_in / np.maximum(inx, 1e-12), 1), NU, axis=1)
            frin = np.where(inx[:, None, :] > 0, Fx / np.maximum(inx[:, None, :], 1e-12), 0.0)
            self.fr_in[:, r] = frin
        cross_in_share = np.where(RX > 0, cross_in_share / np.maximum(RX, 1e-12), 0.0)

        # ---- storage: checkpoint writes and restore reads
        A = np.array(self.A)
        ck = np.zeros(T)
        for a, b in self.ck_windows:
            if a < self.night[0] or a >= self.night[1]:
                fr_ = self.frac(a, b)
                ck = np.maximum(ck, fr_)
        ck_dem = np.zeros((T, H, R))
        ck_dem[:, A, :] = 0.35 * ck[:, None, None] * hmul[A][None] * nic_upf[:, A, :]
        st_cap = 8 * 0.5 * 0.97
        tot = ck_dem.sum((1, 2))
        c_ck = np.where(tot > st_cap, st_cap / np.maximum(tot, 1e-12), 1.0)
        ck_tx = ck_dem * c_ck[:, None, None]
        rs = np.zeros(T)
        for a, b in self.restore:
            rs = np.maximum(rs, self.frac(a, b))
        rd_tot = 2.6 * rs * np.clip(1 + 0.05 * rng.standard_normal(T), 0.8, 1.2)
        rd = np.zeros((T, H, R))
        rd[:, A, :] = (rd_tot / (len(A) * R))[:, None, None] * nic_upf[:, A, :]
        self.ck_tx, self.rd = ck_tx, rd
        TXs = TX + ck_tx
        RXs = RX + rd
        node_w = rng.uniform(0.9, 1.1, (2, 4))
        node_w /= node_w.sum(1, keepdims=True)
        st_in_sp = np.zeros((T, self.S, 2))     # spine s -> stor leaf sl
        st_out_sp = np.zeros((T, self.S, 2))    # stor leaf sl -> spine s
        for r in range(R):
            lids = np.arange(G) + r * G
            for g in range(G):
                lid = lids[g]
                hs = np.where(self.group == g)[0]
                co = ck_tx[:, hs, r].sum(1)
                ci_ = rd[:, hs, r].sum(1)
                hp = self.hostport[hs, r]
                IN[:, hp] += ck_tx[:, hs, r]
                OUT[:, hp] += rd[:, hs, r]
                for u in range(NU):
                    s = self.spines_of_rail[r][u // 2]
                    w = wn[:, lid, u]
                    OUT[:, self.upport[lid, u]] += co * w
                    IN[:, self.spport[lid, u]] += co * w
                    IN[:, self.upport[lid, u]] += ci_ * w
                    OUT[:, self.spport[lid, u]] += ci_ * w
                    for sl in range(2):
                        st_in_sp[:, s, sl] += co * w / 2
                        st_out_sp[:, s, sl] += ci_ * w / 2
        for s in range(self.S):
            for sl in range(2):
                i, j = self.spst[s, sl], self.stup[sl, s]
                OUT[:, i] += st_in_sp[:, s, sl]
                IN[:, j] += st_in_sp[:, s, sl]
                OUT[:, j] += st_out_sp[:, s, sl]
                IN[:, i] += st_out_sp[:, s, sl]
                DEM[:, i] = st_in_sp[:, s, sl] / 0.985
                BMIX[:, i] = 0.4
                PEX[:, i] += ck * rng.uniform(0.9, 1.4, T) * (st_in_sp[:, s, sl] > 0.01)
        st_dem = np.zeros((T, 2))
        for sl in range(2):
            tot_sl = st_in_sp[:, :, sl].sum(1)
            rd_sl = st_out_sp[:, :, sl].sum(1)
            st_dem[:, sl] = ck_dem.sum((1, 2)) / 2
            for n in range(4):
                i = self.stdown[sl, n]
                OUT[:, i] += tot_sl * node_w[sl, n]
                IN[:, i] += rd_sl * node_w[sl, n]
                DEM[:, i] = st_dem[:, sl] * node_w[sl, n] / (0.5 * 0.985)
                BMIX[:, i] = 0.6
        # ---- control-plane / LLDP background so idle links still count a little
        self.ctrl_in = np.zeros((T, P))
        self.ctrl_out = np.zeros((T, P))
        self.ctrl_pin = np.zeros((T, P))
        self.ctrl_pout = np.zeros((T, P))
        kind = sw["kind"]
        lldp_ph_in = rng.integers(0, 3, P)
        lldp_ph_out = rng.integers(0, 3, P)
        kk = np.arange(T)[:, None]
        lin = ((kk % 3) == lldp_ph_in[None, :]).astype(float)
        lout = ((kk % 3) == lldp_ph_out[None, :]).astype(float)
        self.ctrl_in += lin * 320
        self.ctrl_out += lout * 320
        l3 = np.isin(kind, [K_UP, K_SPL, K_SUP, K_SPS])
        bfd = rng.poisson(34, (T, P)) * l3[None, :]
        self.ctrl_pin += bfd + rng.poisson(3, (T, P)) * l3[None, :]
        self.ctrl_pout += rng.poisson(34, (T, P)) * l3[None, :] + rng.poisson(3, (T, P)) * l3[None, :]
        self.ctrl_in += self.ctrl_pin * 70
        self.ctrl_out += self.ctrl_pout * 70
        # hosts: ND / ARP refresh from the hosts now and then
        hostp = kind == K_HOST
        nd = (rng.random((T, P)) < 0.05) * hostp[None, :]
        self.ctrl_pin += nd
        self.ctrl_in += nd * 86
        cup = upf > 0
        self.ctrl_in *= cup
        self.ctrl_out *= cup
        self.ctrl_pin *= cup
        self.ctrl_pout *= cup
        OUT = np.minimum(OUT, spd * upf * 0.995)
        IN = np.minimum(IN, spd * upf * 0.995)
        self.IN, self.OUT = IN, OUT
        self.TXs, self.RXs = TXs, RXs

        # ---- queue pressure, marks, drops
        p = BMIX * gpress(DEM * BUR) + PEX
        # slow receiver: its leaf ports queue more whenever it receives
        for r in self.slow_rails:
            i = self.hostport[self.slow, r]
            p[:, i] += 0.45 * np.clip(RX[:, self.slow, r] / 0.45, 0, 1.2)
        # storage leaf ports: saturated incast during checkpoints
        for sl in range(2):
            for n in range(4):
                i = self.stdown[sl, n]
                p[:, i] = np.where(ck > 0, np.clip(p[:, i], 1.0, 2.0), p[:, i] * 0.3)
        # CC-disabled NIC keeps the queues it crosses full
        if cc:
            h2, r2, a2, b2 = cc
            act = (self.frac(a2, b2) > 0) * np.clip(TX[:, h2, r2] / 0.5, 0, 1.3)
            lid2 = r2 * G + self.group[h2]
            for u in range(NU):
                p[:, self.upport[lid2, u]] += 0.7 * act
            for g in range(G):
                for u in range(NU):
                    if g != self.group[h2]:
                        p[:, self.spport[r2 * G + g, u]] += 0.6 * act
            for h in self.A:
                if h != h2:
                    p[:, self.hostport[h, r2]] += 0.6 * act
        p *= np.clip(rng.lognormal(0, 0.3, (T, P)), 0.4, 2.2)
        ecn_on = np.ones((T, P), dtype=bool)
        dmul = np.ones((T, P))
        if self.ecn_off_lid:
            lid1, a1, b1 = self.ecn_off_lid
            m_ = self.frac(a1, b1) > 0
            ports = np.concatenate([self.hostport[self.group == (lid1 % G), lid1 // G], self.upport[lid1]])
            for i in ports:
                ecn_on[m_, i] = False
                p[m_, i] *= 1.8
                dmul[m_, i] = 2.5
        self.press = p
        pk_size = rng.uniform(3700, 4150, P)
        self.pk_size = pk_size
        out_pk = OUT * LINE_B / pk_size[None, :]
        in_pk = IN * LINE_B / pk_size[None, :]
        mk = np.where(ecn_on, mark_frac(p), 0.0)
        if self.shallow:
            mk[:, self.shallow[0]] *= np.where(self.frac(self.shallow[1], self.shallow[2]) > 0, 0.75, 1.0)
        dr = np.minimum(np.minimum(drop_frac(p), 1.5e-5) * dmul, 5e-4)
        if self.shallow:
            i5, a5, b5 = self.shallow
            m_ = (self.frac(a5, b5) > 0) & (p[:, i5] > 0.03)
            dr[m_, i5] = np.minimum(120 * 1.2e-6 * p[m_, i5] ** 2, 5e-4)
        self.mk, self.dr = mk, dr
        marks = rng.poisson(np.minimum(out_pk * mk, 1e12))
        drops = rng.poisson(out_pk * dr)
        self.sw_inc = {
            "in_oct": np.rint(IN * LINE_B + self.ctrl_in), "out_oct": np.rint(OUT * LINE_B + self.ctrl_out),
            "in_pkt": np.rint(in_pk + self.ctrl_pin), "out_pkt": np.rint(out_pk + self.ctrl_pout),
            "q_drop": drops.astype(float), "q_ecn": marks.astype(float),
        }
        self.out_pk, self.in_pk = out_pk, in_pk
        self.cross_in_share = cross_in_share
        self.comp_tx, self.comp_rx = comp_tx, comp_rx

    # ---------------------------------------------------------------- errors, optics, NICs
    def physics(self):
        rng = self.rng
        T, P, NN = self.T, self.P, self.NN
        ts = self.ts
        sw = self.sw
        inc = self.sw_inc
        util_in = self.IN
        # ---- optics
        temp0 = rng.uniform(38, 56, P)
        lu = 0.5 * (self.IN + self.OUT)
        lag = np.zeros_like(lu)
        acc = lu[0].copy()
        for k in range(T):
            acc += (lu[k] - acc) * 0.03
            lag[k] = acc
        temp = temp0[None, :] + 3.0 * lag + np.cumsum(rng.normal(0, 0.01, (T, P)), 0) * 0.5 + rng.normal(0, 0.03, (T, P))
        lane_p = rng.uniform(-2.4, 0.9, (P, 4))
        lane_p += np.where(sw["kind"][:, None] == K_SDN, rng.uniform(-0.6, 0, (P, 1)), 0)
        lanes = lane_p[None, :, :] + rng.normal(0, 0.0012, (T, P, 4)) + np.cumsum(rng.normal(0, 0.0004, (T, P, 1)), 0)
        ber = 10 ** rng.uniform(-9, -7.2, P)
        berT = np.tile(ber, (T, 1)) * np.clip(rng.lognormal(0, 0.15, (T, P)), 0.5, 2)
        berT *= 10 ** np.clip((temp - 60) / 12, 0, None)
        unc_rate = np.zeros((T, P))   # uncorrectable codewords per second
        fcs = np.zeros((T, P))
        if self.degrade:
            i3, a3, b3, lane = self.degrade
            x = np.clip((ts - a3) / max(b3 - a3, 1), 0, 1)
            lanes[:, i3, lane] -= 3.0 * x ** 1.2
            berT[:, i3] = 1e-7 * 1000 ** x * np.clip(rng.lognormal(0, 0.1, T), 0.7, 1.4)   # a marginal link (1e-7) from the start
        if self.overheat:
            i8, a8, e8, _ = self.overheat
            ramp = np.clip((ts - a8) / (e8 - a8), 0, None)
            tt = np.where(ts < a8, 50 + rng.normal(0, 0.12, T), np.where(ramp < 1, 50 + 30 * ramp, 80 + 1.5 * np.clip(ramp - 1, 0, 1)) + rng.normal(0, 0.15, T))
            pre = ts < a8
            temp[pre, i8] = 50 + (temp[pre, i8] - temp[pre, i8].mean()) * 0.3
            temp[~pre, i8] = tt[~pre]
            berT[:, i8] = 1e-8 * np.clip(rng.lognormal(0, 0.1, T), 0.7, 1.4) * 10 ** np.clip((temp[:, i8] - 68) / 3, 0, None)
        thr = 2.5e-5
        unc_rate += np.where(berT > thr, 0.05 * ((berT - thr) / 1e-5) ** 2, 0.0)
        unc = rng.poisson(unc_rate * STEP).astype(float)
        occ = np.clip(util_in * 1.6, 0, 1)
        fcs += rng.binomial(unc.astype(np.int64), occ).astype(float)
        # sporadic singles
        ev = rng.poisson(np.tile(self.sporadic / 360.0, (T, 1)))
        ev[0] = 0
        unc += ev
        fcs += rng.binomial(ev, np.clip(0.2 + util_in * 1.5, 0, 1))
        # FCS at link-ups
        nic_fcs_up = np.zeros((T, NN))
        for e, t, c in self.fcs_at_up:
            k = self.stepk(t + 1)
            if isinstance(e, tuple):
                nic_fcs_up[k, e[1]] += c
            else:
                fcs[k, e] += c
                unc[k, e] += c
        corr = berT * 425e9 * STEP * np.clip(rng.lognormal(0, 0.05, (T, P)), 0.8, 1.2)
        for i, ivs in self.oper_down.items():
            corr[:, i] *= 1 - self.intervals_frac(ivs)
        for arr in (fcs, unc, corr):
            arr[0] = 0
        inc["in_fcs"] = fcs
        inc["in_err"] = fcs.copy()
        inc["fec_corr"] = np.rint(corr)
        inc["fec_unc"] = unc
        inc["out_disc"] = inc["q_drop"].copy()
        inc["in_disc"] = np.zeros((T, P))
        inc["out_err"] = np.zeros((T, P))
        car = np.zeros((T, P))
        for i, ivs in self.oper_down.items():
            for a, b in ivs:
                if a < self.dur:
                    car[self.stepk(a), i] += 1
                if b < self.dur:
                    car[self.stepk(b), i] += 1
        inc["carrier"] = car
        self.temp, self.lanes, self.berT = temp, lanes, berT

        # ---- NICs (per step, aggregated to 30 s at output)
        H, R = self.H, self.R
        RXs = self.RXs.reshape(T, NN)
        lp = self.nic_leafport
        rx_b = inc["out_oct"][:, lp]
        tx_b = inc["in_oct"][:, lp]
        rx_p = inc["out_pkt"][:, lp]
        tx_p = inc["in_pkt"][:, lp]
        mk, dr, out_pk = self.mk, self.dr, self.out_pk
        # path mark/drop fraction for cross traffic into each leaf, per rail
        G = self.G
        m_path = np.zeros((T, NN))
        d_path = np.zeros((T, NN))
        for r in range(R):
            lids = np.arange(G) + r * G
            upp = self.upport[lids]
            spp = self.spport[lids]
            wsp = self.OUT[:, spp] + 1e-12
            m_sp = (mk[:, spp] * wsp).sum(2) / wsp.sum(2)
            d_sp = (dr[:, spp] * wsp).sum(2) / wsp.sum(2)
            wu = self.OUT[:, upp] + 1e-12
            m_up = (mk[:, upp] * wu).sum(2) / wu.sum(2)
            d_up = (dr[:, upp] * wu).sum(2) / wu.sum(2)
            frin = self.fr_in[:, r]
            mp = m_sp + np.einsum("tgh,tg->th", frin, m_up)
            dp = d_sp + np.einsum("tgh,tg->th", frin, d_up)
            for h in range(H):
                n = self.nic(h, r)
                m_path[:, n] = mp[:, self.group[h]]
                d_path[:, n] = dp[:, self.group[h]]
        cs = self.cross_in_share.reshape(T, NN)
        ecn_rx = rx_p * (mk[:, lp] + cs * m_path)
        drop_rx = rx_p * (dr[:, lp] + cs * d_path)
        # storage paths: writers see CNPs from the storage nodes
        cnp_ratio = rng.uniform(0.35, 0.6, NN)
        np_ecn = rng.poisson(np.maximum(ecn_rx, 0)).astype(float)
        np_cnp = np.rint(np_ecn * cnp_ratio[None, :] * np.clip(rng.lognormal(0, 0.05, (T, NN)), 0.8, 1.2))
        oos_f = rng.uniform(25, 70, NN)
        oos = rng.poisson(np.maximum(drop_rx, 0) * oos_f[None, :]).astype(float)
        # CNPs and NAKs back to senders, per job
        cnp_back = np.zeros((T, NN))
        nak_back = np.zeros((T, NN))
        rxtot = self.RXs.reshape(T, NN) + 1e-12
        for ci, c in enumerate(self.comps):
            hs = c["hosts"]
            if len(hs) == 0:
                continue
            for r in range(R):
                ns_ = np.array([self.nic(h, r) for h in hs])
                share = self.comp_rx[ci][:, :, r] / rxtot[:, ns_]
                cnp_tot = (np_cnp[:, ns_] * share).sum(1)
                nak_tot = (drop_rx[:, ns_] * share).sum(1)
                txs = self.comp_tx[ci][:, :, r]
                ws = txs / np.maximum(txs.sum(1, keepdims=True), 1e-12)
                cnp_back[:, ns_] += cnp_tot[:, None] * ws
                nak_back[:, ns_] += nak_tot[:, None] * ws
        # checkpoint writers
        ckw = self.ck_tx.reshape(T, NN)
        st_ports = self.stdown.ravel()
        st_marks = (out_pk[:, st_ports] * mk[:, st_ports]).sum(1) + (out_pk[:, self.spst.ravel()] * mk[:, self.spst.ravel()]).sum(1)
        st_drops = (out_pk[:, st_ports] * dr[:, st_ports]).sum(1) + (out_pk[:, self.spst.ravel()] * dr[:, self.spst.ravel()]).sum(1)
        wsh = ckw / np.maximum(ckw.sum(1, keepdims=True), 1e-12)
        cnp_back += (st_marks * 0.45)[:, None] * wsh
        nak_back += st_drops[:, None] * wsh
        rp_handled = rng.poisson(np.maximum(cnp_back, 0)).astype(float)
        rp_ignored = np.zeros((T, NN))
        if self.cc_off:
            h2, r2, a2, b2 = self.cc_off
            n = self.nic(h2, r2)
            m_ = self.frac(a2, b2) > 0
            rp_ignored[m_, n] = rp_handled[m_, n] * 1.6
            rp_handled[m_, n] = rng.poisson(0.02, m_.sum())
        pse = rng.poisson(np.maximum(nak_back, 0)).astype(float)
        crc = np.zeros((T, NN))
        ev = rng.poisson(np.tile(self.nic_sporadic / 360.0, (T, 1)))
        ev[0] = 0
        crc += ev * (rx_p > 5000)
        crc += nic_fcs_up
        nber = 10 ** rng.uniform(-9, -7.2, NN)
        nberT = np.tile(nber, (T, 1)) * np.clip(rng.lognormal(0, 0.15, (T, NN)), 0.5, 2)
        if self.overheat:
            i8 = self.overheat[0]
            n8 = int(np.where(lp == i8)[0][0])
            nberT[:, n8] *= 10 ** np.clip((self.temp[:, i8] - 68) / 6, 0, None)
        if self.crc_nic:
            n9, a9, b9 = self.crc_nic
            m_ = self.frac(a9, b9) > 0
            crc[m_, n9] += rng.poisson(rx_p[m_, n9] * 1.0e-7 * np.clip(rng.lognormal(0, 0.1, m_.sum()), 0.7, 1.4))
            nberT[m_, n9] *= 20
        ncorr = nberT * 425e9 * STEP
        disc = np.zeros((T, NN))
        for r in self.slow_rails:
            n = self.nic(self.slow, r)
            disc[:, n] = rng.poisson(rx_p[:, n] * 1.5e-7 * (RXs[:, n] > 0.3))
        ldown = np.zeros((T, NN))
        nic_upfrac = np.ones((T, NN))
        for n, ivs in self.nic_down.items():
            for a, b in ivs:
                if a < self.dur:
                    ldown[self.stepk(a), n] += 1
            nic_upfrac[:, n] = 1 - self.intervals_frac(ivs)
        ncorr *= nic_upfrac
        self.nic_inc = {
            "rx_bytes_phy": rx_b, "tx_bytes_phy": tx_b, "rx_packets_phy": rx_p, "tx_packets_phy": tx_p,
            "rx_crc_errors_phy": crc, "rx_discards_phy": disc, "link_down_events_phy": ldown,
            "rx_corrected_bits_phy": np.rint(ncorr), "out_of_sequence": oos, "packet_seq_err": pse,
            "np_ecn_marked_roce_packets": np_ecn, "np_cnp_sent": np_cnp, "rp_cnp_handled": rp_handled,
            "rp_cnp_ignored": rp_ignored,
        }
        for v in self.nic_inc.values():
            v[0] = 0

    # ---------------------------------------------------------------- cumulative values
    def cumulate(self):
        rng = self.rng
        P, NN = self.P, self.NN

        def init_sw(key):
            if key in ("in_oct", "out_oct"):
                return (10 ** rng.uniform(14, 16.6, P)).astype(np.int64)
            if key in ("in_pkt", "out_pkt"):
                return (10 ** rng.uniform(10.5, 13, P)).astype(np.int64)
            if key == "q_ecn":
                return (10 ** rng.uniform(6, 10, P)).astype(np.int64)
            if key in ("q_drop", "out_disc"):
                return (10 ** rng.uniform(2, 6, P)).astype(np.int64)
            if key in ("in_fcs", "in_err"):
                return np.where(rng.random(P) < 0.6, 0, rng.geometric(0.02, P)).astype(np.int64)
            if key == "fec_corr":
                return (10 ** rng.uniform(11, 14.5, P)).astype(np.int64)
            if key == "fec_unc":
                return np.where(rng.random(P) < 0.5, 0, rng.geometric(0.03, P)).astype(np.int64)
            if key == "carrier":
                return 2 * rng.integers(1, 6, P)
            if key == "in_disc":
                return np.where(rng.random(P) < 0.7, 0, rng.integers(1, 400, P)).astype(np.int64)
            return np.zeros(P, dtype=np.int64)

        cum = {}
        for key, v in self.sw_inc.items():
            c = np.cumsum(v.astype(np.int64), axis=0)
            init = init_sw(key)
            cum[key] = c + init[None, :]
        cum["in_err"] = cum["in_fcs"] + (cum["in_err"][0] - cum["in_fcs"][0]).clip(0)[None, :]
        cum["out_disc"] = cum["q_drop"] + rng.integers(0, 50, P)[None, :]
        for ports, t in self.sw_reset:
            k = self.stepk(t)
            for key in cum:
                v = self.sw_inc[key][:, ports].astype(np.int64)
                c = np.cumsum(v[k:], axis=0)
                base = np.zeros(len(ports), dtype=np.int64)
                if key in ("in_oct", "out_oct"):
                    base = rng.integers(2000, 90000, len(ports))
                elif key in ("in_pkt", "out_pkt"):
                    base = rng.integers(20, 900, len(ports))
                cum[key][k:, ports] = c + base[None, :]
        self.sw_cum = cum
        ncum = {}
        for key, v in self.nic_inc.items():
            c = np.cumsum(v.astype(np.int64), axis=0)
            if key.endswith("bytes_phy"):
                init = (10 ** rng.uniform(14, 16.4, NN)).astype(np.int64)
            elif key.endswith("packets_phy"):
                init = (10 ** rng.uniform(10.5, 12.8, NN)).astype(np.int64)
            elif key in ("rx_corrected_bits_phy",):
                init = (10 ** rng.uniform(11, 14, NN)).astype(np.int64)
            elif key in ("np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled"):
                init = (10 ** rng.uniform(5, 9, NN)).astype(np.int64)
            elif key in ("out_of_sequence", "packet_seq_err"):
                init = (10 ** rng.uniform(3, 7, NN)).astype(np.int64)
            elif key == "link_down_events_phy":
                init = rng.integers(1, 6, NN)
            elif key == "rx_crc_errors_phy":
                init = np.where(rng.random(NN) < 0.6, 0, rng.geometric(0.05, NN))
            else:
                init = np.zeros(NN, dtype=np.int64)
            ncum[key] = c + init[None, :]
        for nics, t in self.nic_reset:
            k = self.stepk(t)
            for key in ncum:
                v = self.nic_inc[key][:, nics].astype(np.int64)
                ncum[key][k:, nics] = np.cumsum(v[k:], axis=0)
        self.nic_cum = ncum

    # ---------------------------------------------------------------- output
    def write(self, outdir):
        os.makedirs(outdir, exist_ok=True)
        rng = self.rng
        T, P, NN = self.T, self.P, self.NN
        sw = self.sw
        nd = len(self.devices)
        phase = rng.uniform(0.3, 9.7, nd)
        ophase = rng.uniform(0.5, 59.0, nd)
        hb_phase = rng.integers(0, HEARTBEAT, nd)
        port_off = rng.uniform(0.0, 0.06, P)
        dev_of = self.dev_of_port
        # tags
        pre_full = []
        pre_bare = []
        for i in range(P):
            rail = sw["rail"][i]
            base = f"{MEAS},device={sw['dev'][i]},port={sw['port'][i]},fabric={FABRIC},role={sw['role'][i]}" + ("" if rail is None else f",rail={rail}")
            pre_bare.append(base)
            pre_full.append(base + f",peer_device={sw['pdev'][i]},peer_port={sw['pport'][i]}")
        npre_full, npre_bare = [], []
        for n in range(NN):
            h, r = divmod(n, self.R)
            lp = self.nic_leafport[n]
            base = f"{MEAS},device={self.nic_dev[n]},port={self.nic_port[n]},fabric={FABRIC},role=gpu-nic,rail={r}"
            npre_bare.append(base)
            npre_full.append(base + f",peer_device={sw['dev'][lp]},peer_port={sw['port'][lp]}")

        def in_ivs(ivs, t):
            for a, b in ivs:
                if a <= t < b:
                    return True
            return False

        # per-step sample values for switch counters: interpolate inside the step by the device phase
        keys = [k for k, _ in SW_FIELDS]
        qkeys = [k for k, _ in Q_FIELDS]
        mkeys = [k for k, _ in M_FIELDS]
        names = {k: p + "=" for k, p in SW_FIELDS + Q_FIELDS + M_FIELDS}
        cum = self.sw_cum
        frac_ph = (phase[dev_of] / STEP)
        absent_dev = [self.dev_absent.get(d, []) for d in range(nd)]
        co = self.collector_out
        resync_steps = defaultdict(set)
        for d, tl in self.dev_resync.items():
            for t in tl:
                resync_steps[d].add(self.stepk(t))
        # after absence or collector outage: resend all
        for d in range(nd):
            for a, b in absent_dev[d] + co:
                resync_steps[d].add(self.stepk(b))
        # heartbeat phases restart after a resync
        hb_sched = []
        for d in range(nd):
            s = np.zeros(T, dtype=bool)
            starts = sorted([0] + list(resync_steps[d]))
            for j, st in enumerate(starts):
                en = starts[j + 1] if j + 1 < len(starts) else T
                ph = st if st > 0 else hb_phase[d]
                idx = np.arange(st, en)
                s[idx[(idx - ph) % HEARTBEAT == 0]] = True
                s[st] = True
            hb_sched.append(s)
        hb_sched = np.array(hb_sched)            # (nd, T)
        oper_ivs = [self.oper_down.get(i, []) for i in range(P)]
        admin_ivs = [self.admin_down.get(i, []) for i in range(P)]
        lldp_ivs = [self.lldp_gone.get(i, []) for i in range(P)]
        nlldp = [self.lldp_gone.get(("nic", n), []) for n in range(NN)]
        half_ivs = [self.speed_half.get(i, []) for i in range(P)]
        special = set(self.oper_down) | set(self.admin_down) | set(self.speed_half) | set(self.lldp_gone)
        base_speed = ["SPEED_200GB" if s == 0.5 else "SPEED_400GB" for s in sw["speed"]]
        prev_state = [None] * P
        prev_vals = None
        prev_q = None
        prev_m = [None] * P
        prev_lane = [[None] * 4 for _ in range(P)]
        # optics
        temp, lanes, berT = self.temp, self.lanes, self.berT
        n_lines = 0
        buf = []
        seq = 0
        fh = open(os.path.join(outdir, "port_counters.lp"), "w", buffering=1 << 22)
        t0ns = T0 * 10**9
        cumarr = np.stack([cum[k] for k in keys], axis=2)       # (T, P, F)
        qarr = np.stack([cum[k] for k in qkeys], axis=2)
        marr = np.stack([cum[k] for k in mkeys], axis=2)
        incarr = np.stack([self.sw_inc[k] if k in self.sw_inc else np.zeros((T, P)) for k in keys], axis=2)
        # spine reset: interpolation must not mix pre/post reset values -> fine, inc after reset start small
        nic_keys = NIC_FIELDS
        narr = np.stack([self.nic_cum[k] for k in nic_keys], axis=2)   # (T, NN, F)
        n_off = rng.uniform(0.002, 0.08, self.H)

        def flush(limit_ns):
            nonlocal buf, n_lines
            if not buf:
                return
            buf.sort()
            j = 0
            while j < len(buf) and buf[j][0] < limit_ns:
                j += 1
            if j:
                fh.write("".join(x[2] for x in buf[:j]))
                n_lines += j
                buf = buf[j:]

        dev_ports = self.dev_ports
        for k in range(T - 1):
            t_nom = k * STEP
            # ---- switch counters (10 s)
            vals = cumarr[k] + np.floor(incarr[k + 1] * frac_ph[:, None]).astype(np.int64)
            qv = qarr[k] + np.floor(np.stack([self.sw_inc[x][k + 1] for x in qkeys], 1) * frac_ph[:, None]).astype(np.int64)
            if prev_vals is None:
                ch = np.ones((P, len(keys)), dtype=bool)
                chq = np.ones((P, 2), dtype=bool)
            else:
                ch = vals != prev_vals
                chq = qv != prev_q
            prev_vals, prev_q = vals, qv
            dev_t = t_nom + phase + np.clip(rng.normal(0, 0.12, nd), -0.35, 0.35)
            lost_mask = rng.random(P) < self.missing_p
            lostq = rng.random(P) < self.missing_p
            for d in range(nd):
                td = dev_t[d]
                if td >= self.dur:
                    continue
                if any(a <= td < b for a, b in absent_dev[d]) or any(a <= td < b for a, b in co):
                    continue
                full = hb_sched[d, k]
                for i in dev_ports[d]:
                    ti = td + port_off[i]
                    if i in special:
                        oper = "DOWN" if in_ivs(oper_ivs[i], ti) else "UP"
                        admin = "DOWN" if in_ivs(admin_ivs[i], ti) else "UP"
                        speed = "SPEED_200GB" if in_ivs(half_ivs[i], ti) else base_speed[i]
                        pre = pre_bare[i] if in_ivs(lldp_ivs[i], ti) else pre_full[i]
                    else:
                        oper, admin, speed, pre = "UP", "UP", base_speed[i], pre_full[i]
                    st = (oper, admin, speed)
                    tsn = t0ns + int(ti * 1e9)
                    if full or prev_state[i] is None:
                        fl = [names[x] + f"{v}u" for x, v in zip(keys, vals[i].tolist())]
                        fl.append(f'{F_OPER}="{oper}"')
                        fl.append(f'{F_ADMIN}="{admin}"')
                        fl.append(f'{F_SPEED}="{speed}"')
                        qfl = [names[x] + f"{v}u" for x, v in zip(qkeys, qv[i].tolist())]
                    else:
                        row = ch[i]
                        vi = vals[i]
                        fl = [names[keys[j]] + f"{vi[j]}u" for j in np.flatnonzero(row).tolist()] if row.any() else []
                        ps = prev_state[i]
                        if ps[0] != oper:
                            fl.append(f'{F_OPER}="{oper}"')
                        if ps[1] != admin:
                            fl.append(f'{F_ADMIN}="{admin}"')
                        if ps[2] != speed:
                            fl.append(f'{F_SPEED}="{speed}"')
                        rq = chq[i]
                        qfl = [names[qkeys[j]] + f"{qv[i][j]}u" for j in np.flatnonzero(rq).tolist()] if rq.any() else []
                    prev_state[i] = st
                    if fl and not lost_mask[i]:
                        buf.append((tsn, seq, pre + " " + ",".join(fl) + f" {tsn}\n"))
                        seq += 1
                    if qfl and not lostq[i]:
                        tq = tsn + 1_000_000 + int(port_off[i] * 1e7)
                        buf.append((tq, seq, pre + ",queue_name=TC3 " + ",".join(qfl) + f" {tq}\n"))
                        seq += 1
            # ---- optics (60 s)
            if k % OPT_EVERY == 0:
                j = k // OPT_EVERY
                lost_o = rng.random((P, 5)) < self.missing_p
                for d in range(nd):
                    td = j * 60 + ophase[d] + float(np.clip(rng.normal(0, 0.12), -0.35, 0.35))
                    if td >= self.dur:
                        continue
                    if any(a <= td < b for a, b in absent_dev[d]) or any(a <= td < b for a, b in co):
                        continue
                    kk = min(T - 1, int(td // STEP) + 1)
                    full = j == 0 or (j - hb_phase[d]) % 5 == 0 or any(k - OPT_EVERY < s <= k for s in resync_steps[d])
                    mv = marr[kk]
                    for i in dev_ports[d]:
                        ti = td + port_off[i] * 0.5
                        if i in special and in_ivs(oper_ivs[i], ti):
                            lane_vals = None    # LOS: EOS reports -30.00 dBm
                        else:
                            lane_vals = lanes[kk, i]
                        pre = pre_bare[i] if (i in special and in_ivs(lldp_ivs[i], ti)) else pre_full[i]
                        tsn = t0ns + int(ti * 1e9)
                        pl = prev_lane[i]
                        for ln in range(4):
                            v = f"{-30.0 if lane_vals is None else float(lane_vals[ln]):.2f}"
                            if not full and v == pl[ln]:
                                continue    # suppress-redundant: DOM reading unchanged at 0.01 dB
                            pl[ln] = v
                            if lost_o[i, ln]:
                                continue
                            buf.append((tsn + ln * 1000, seq, f"{pre},channel_index={ln + 1} {F_LANE}={v} {tsn + ln * 1000}\n"))
                            seq += 1
                        if lost_o[i, 4]:
                            continue
                        fl = [f"{F_TEMP}={temp[kk, i]:.1f}", f"{F_BER}={berT[kk, i]:.2e}"]
                        mvi = mv[i].tolist()
                        pm = prev_m[i]
                        for q in range(2):
                            if full or pm is None or pm[q] != mvi[q]:
                                fl.append(names[mkeys[q]] + f"{mvi[q]}u")
                        prev_m[i] = mvi
                        tm = tsn + 5000
                        buf.append((tm, seq, pre + " " + ",".join(fl) + f" {tm}\n"))
                        seq += 1
            # ---- NICs (30 s)
            if k % NIC_EVERY == 0:
                nv = narr[k]
                lost_n = rng.random(NN) < self.missing_p
                for n in range(NN):
                    h = n // self.R
                    tn = t_nom + n_off[h] + rng.uniform(0, 0.004)
                    if tn >= self.dur or lost_n[n]:
                        continue
                    if n in self.nic_absent and in_ivs(self.nic_absent[n], tn):
                        continue
                    pre = npre_bare[n] if (n in self.lldp_gone_nic_set and in_ivs(nlldp[n], tn)) else npre_full[n]
                    tsn = t0ns + int(tn * 1e9)
                    buf.append((tsn, seq, pre + " " + ",".join(f"{f}={v}" for f, v in zip(nic_keys, nv[n].tolist())) + f" {tsn}\n"))
                    seq += 1
            flush(t0ns + int((t_nom + STEP - 0.5) * 1e9))
        flush(1 << 62)
        fh.close()
        self.n_lines = n_lines

    # ---------------------------------------------------------------- labels
    def labels(self, outdir):
        labels = {
            "scenario": "roce-lossy-gnmic", "scale": f"{self.H} nodes", "seed": self.seed, "fabric": "roce",
            "interval_s": INTERVAL_S, "sample_s": STEP, "nic_sample_s": STEP * NIC_EVERY, "optics_sample_s": STEP * OPT_EVERY,
            "t0_ns": self.ns(0), "t_end_ns": self.ns(self.dur), "train_until_ns": self.ns(self.train_until),
            "fit_first": f"{self.train_until // 60}m" if self.train_until % 60 == 0 else f"{self.train_until}s",
            "ports": self.P + self.NN, "switch_ports": self.P, "nic_ports": self.NN, "lines": self.n_lines,
            "topology": {"rails": self.R, "leaves_per_rail": self.G, "hosts_per_leaf": self.hpl, "spines": self.S,
                         "spines_per_leaf": self.kps, "nodes": self.H, "storage_nodes": 4},
            "faults": sorted(self.faults, key=lambda f: f["start_ns"]),
            "healthy_phenomena": sorted(self.healthy, key=lambda h: h["start_ns"]),
        }
        for f in labels["faults"]:
            assert f["start_ns"] >= labels["train_until_ns"], f
            assert (f["start_ns"] - labels["t0_ns"]) % (INTERVAL_S * 10**9) == 0, f
        with open(os.path.join(outdir, "labels.json"), "w") as fh:
            json.dump(labels, fh, indent=1)
        return labels

    def run(self, outdir):
        self.build()
        self.scenario()
        self.lldp_gone_nic_set = {e[1] for e in self.lldp_gone if isinstance(e, tuple)}
        self.simulate()
        self.physics()
        self.cumulate()
        self.write(outdir)
        return self.labels(outdir)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Labelled lossy RoCEv2 fabric fed by gnmic (switches) and Telegraf (NICs).")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=4.0)
    ap.add_argument("--nodes", type=int, default=16, choices=sorted(BUILDS), help="GPU nodes (default 16; 24/32 exceed ~300 MB at 4 h)")
    args = ap.parse_args(argv)
    if args.hours < 1.0:
        ap.error("--hours must be at least 1")
    t = time.time()
    lab = Fabric(args.seed, args.hours, args.nodes).run(args.outdir)
    size = os.path.getsize(os.path.join(args.outdir, "port_counters.lp"))
    print(f"{args.outdir}: {lab['topology']['nodes']} nodes, {lab['switch_ports']} switch ports + {lab['nic_ports']} NIC ports, "
          f"{lab['lines']:,} lines, {size / 1e6:.0f} MB, {len(lab['faults'])} faults, {len(lab['healthy_phenomena'])} healthy phenomena, "
          f"fit-first {lab['fit_first']} ({time.time() - t:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
