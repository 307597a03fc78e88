#!/usr/bin/env python3
"""Cluster C4 scale-out fabric (rail-only RoCEv2 on SONiC): data sheet and labelled telemetry generator.

    python roce_rail_only_sonic.py OUTDIR [--seed N] [--hours H]      (defaults: seed 1, 4 h)

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement port_counters, raw cumulative
counters) and OUTDIR/labels.json (faults and healthy phenomena, the form score.py reads). Standalone
(stdlib + numpy), the same seed gives byte-identical files, ~6 s and ~550 MB for the default 4 h.

DATA SHEET (written by the C4 network on-call; the site as we run it)

Compute. Three GB200 NVL72 racks (r1..r3), 18 compute trays each, 54 trays. Hostnames c4-r<rack>-t<tray>,
e.g. c4-r2-t07. Each tray has 4 ConnectX-8 SuperNICs, one per GPU, 800G each, RoCE mode. The node exporter
sees them as netdevs enP2p3s0f0np0, enP6p3s0f0np0, enP18p3s0f0np0, enP22p3s0f0np0 (ibdev mlx5_0..mlx5_3);
NIC k is "rail k". NVLink inside a rack is not ours and not in this data. Four older service nodes
(c4-svc01..04, HGX boxes with CX-7 at 400G, netdevs enp26s0np0/enp60s0np0/enp156s0np0/enp188s0np0) hang off
the rails on breakout ports and run inference. Storage: six appliances c4-stor01..06, 2x400G each, one leg to
each xr switch; the appliances export nothing, we only see their switch ports.

Scale-out network, rail-only. Four rail switches c4-rail0..3 and two cross-rail switches c4-xr0/1, all
64x800G Tomahawk-5 boxes running SONiC (202405-based vendor build). Rail switch k takes NIC k of every tray:
cages 1-54 (Ethernet0..Ethernet424) are the trays in rack order (r1 t01..t18, r2, r3), cages 55-56 are broken
out 2x400G for the service nodes (Ethernet432/436, Ethernet440/444), cages 57-64 (Ethernet448..Ethernet504)
are the uplinks: 4x800G to c4-xr0 then 4x800G to c4-xr1. That is every cage of the box; the racks of 18 trays
were sized to it. xr switch j: cages 1-16 (Ethernet0..Ethernet120) face the rails, four per rail switch in
rail order; cages 17-19 are broken out 2x400G to the storage appliances (Ethernet128..Ethernet148, stor01..06);
the rest of the cages are empty. SONiC aliases are etp1..etp64, sub-ports etpNa/etpNb. All links are optics.
A rail switch carries intra-rail traffic only (NCCL rings/trees of rail k). Everything that changes rail -
MoE all-to-all (we run without PXN), storage, the service nodes' reads, ssh/scheduler/monitoring - goes up
to the xr tier. The rail switches spray per packet over their 8 uplinks (adaptive routing), so the uplinks of
a rail switch carry the same load within a few percent, and the NICs see out-of-order arrivals all the time
(out_of_sequence moves with cross-rail receive traffic; the CX-8 places them, it is not a problem).
QoS: RoCEv2 lossless on priority/queue 3 (PFC on 3 only, DCQCN with ECN marking on queue 3), TCP lossy on
queue 0 on the same ports. PFC watchdog: action drop on the rail switches' host-facing ports, action alert on
the rail uplinks and on the xr switches (after watchdog drops hit storage traffic last year).

Collectors.
- Switches: gnmic subscribes to SONiC telemetry (COUNTERS_DB: COUNTERS/Ethernet*, the Queues and Pfcwd virtual
  paths; APPL_DB PORT_TABLE; STATE_DB TRANSCEIVER_DOM_SENSOR), sample mode every 10 s; event processors trim the
  paths to SONiC's field names, turn numeric strings into integers, rename queue entries (Ethernet0:3/...) to
  Q3_<name> / Q0_<name> and merge everything into one point per port. The timestamp is the switch's notification
  time (ns, each switch on its own phase, jitter of a few hundred ms). COUNTERS_DB itself is refreshed by the
  flex counters: port counters every 1 s, queue counters every 10 s (so a queue counter can repeat a value for
  one sample and move twice as much in the next), PFC watchdog every 200 ms. Rates computed from a 1 s-stale
  counter over a jittered 10 s sample can read a few % above line rate; that is the collector, not the link.
- Tags on switch points: device, port (SONiC name), alias, role (rail|xr), rail (rail switches), and from the
  LLDP table at write time lldp_rem_sys_name / lldp_rem_port_id. Toward hosts the port id is the host's netdev
  (lldpd on the trays uses portidsubtype ifname); between switches it is the far end's alias (SONiC advertises
  its alias, etpN), not the Ethernet name; toward storage it is the appliance's MAC. A port without an LLDP
  neighbour (down for over two minutes, or right after a reboot) is written without the two lldp tags.
- Switch fields (cumulative, integers): SAI_PORT_STAT_IF_IN/OUT_OCTETS, _IF_IN/OUT_UCAST_PKTS, _IF_IN_ERRORS
  (frames failing CRC), _IF_IN_DISCARDS, _IF_OUT_DISCARDS, _IF_IN_FEC_CORRECTABLE_FRAMES,
  _IF_IN_FEC_NOT_CORRECTABLE_FRAMES, _IF_IN_FEC_SYMBOL_ERRORS (all FEC counters count codewords/symbols and move
  even on an idle link), SAI_PORT_STAT_PFC_3_RX_PKTS / _PFC_3_TX_PKTS, Q3_SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS,
  Q3_SAI_QUEUE_STAT_DROPPED_PACKETS, Q0_SAI_QUEUE_STAT_DROPPED_PACKETS, Q3_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED,
  Q3_PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS; from PORT_TABLE oper_status / admin_status as SONiC writes them
  (strings "up"/"down"), speed (Mb/s, the operational speed: 800000, 400000 on breakouts) and flap_count (oper
  down transitions since the last boot); temperature (transceiver DOM, deg C, float) on the first sub-port of
  each cage only, refreshed by xcvrd once a minute.
- NICs: telegraf on every tray scrapes the local node_exporter (ethtool collector + netclass + a textfile
  script for the RDMA hw_counters and the module temperature) every 15 s, aligned to the tray's own clock,
  and writes one port_counters point per netdev. Tags: device (hostname), port (netdev), ibdev, rack, rail,
  role (compute|service), lldp_rem_sys_name / lldp_rem_port_id (the rail switch and its port alias, from lldpd).
  Values are Prometheus float64s and are written without a type suffix. Fields: rx/tx_bytes_phy,
  rx/tx_packets_phy, rx_crc_errors_phy, rx_corrected_bits_phy (FEC), rx_discards_phy, rx_prio3_pause,
  tx_prio3_pause, np_ecn_marked_roce_packets, out_of_sequence, link_down_events_phy, carrier (0/1),
  carrier_changes_total, speed_bytes (bytes/s: 1e11 at 800G, 5e10 at 400G), module_temperature_celsius
  (1/256 deg C). Tray clocks are chrony-synced to a few ms; one tray's chrony lost its source and runs 1-4 s
  ahead and drifting. A gather is lost now and then (a 30 s gap on one tray).
- Every counter starts at a large value (boxes up for weeks). Times in this data start 2025-06-03T20:00Z.

What normal looks like.
- Training: job A (dense pretraining, 30 trays over r1/r2) and job B (MoE, 18 trays over r2/r3) run all-reduce
  inside the rails: rail-switch host ports at 40-90 % in bursts of 10-20 s, near idle in between; job C
  (fine-tune, 6 trays) comes and goes. Evals stop A's communication for ~2.5 min. Rail uplinks carry
  ~10-20 Gb/s (TCP, storage reads, the service nodes) most of the time.
- MoE all-to-all phases (every ~12-18 min, 2-4.5 min long): 3/4 of B's traffic changes rail; every uplink of
  every rail switch runs at ~95 %, ECN marks at 10^5-10^6/s and PFC at 10^3-10^4/s on all of them at once, the
  xr switches busy, out_of_sequence at B's NICs up 20-50x.
- Checkpoints of A (~every 50 min, 3-4 min): writes to the six storage nodes; the twelve 400G storage ports
  saturate (ECN ~10^6/s, a few lossy-queue drops), the appliances pause the xr ports, and pause spreads back:
  PFC_3_TX on the xr ports facing the rails, PFC_3_RX on every rail uplink, then the rail switches pause the
  writers' NICs. The uplinks themselves are only ~20 % busy during a checkpoint.
- One tray (all four NICs) has been a slow receiver since before this data: bounded tx_prio3_pause, up to a few
  thousand a second while it receives.
- Background: FEC corrected codewords 10^2-10^4/s on every link, always; an isolated FEC-uncorrectable codeword
  (sometimes a CRC frame) a few times an hour on ~10 % of switch ports and ~5 % of NICs; IF_IN_DISCARDS
  0.01-0.3/s on ~40 % of switch ports (LLDP/ND/multicast dropped at ingress); out_of_sequence on every NIC.

Planned work and events in a run (times scale with --hours; minutes below are for 4 h).
- ~112-132: the partition is held for a storage firmware upgrade, every job off: an idle stretch.
- ~152: drain, then a rail switch is rebooted (~154): no samples from it for ~3.5 min, all its ports and their
  far ends down ~3 min, its counters (and flap_count) restart from 0, link_down_events_phy +1 on its 58 NICs,
  flap_count +1 on the 8 xr ports facing it, LLDP tags missing for a minute or two. Jobs restart ~165.
- Once, ~130 or ~200: an operator runs "sonic-clear counters" on one switch. On our vendor build this resets
  the port counters in COUNTERS_DB (community SONiC only snapshots them for the CLI): every SAI_PORT_STAT_*
  field of that switch drops to 0 and counts on; queue, watchdog counters and flap_count do not.

LABELS (labels.json; the faults are placed on random devices and times per seed, never in the fit window)
- interval_s 30 (scoring interval; switch samples are 10 s, NIC samples 15 s: sample_s, nic_sample_s),
  t0_ns, t_end_ns, train_until_ns / fit_first ("70m" at 4 h: the first 29 %, healthy, holding all-to-all,
  checkpoints, evals, job starts), ports = switch ports + NIC ports (540), lines.
- faults[]: kind, device, ports (SONiC or netdev names; ["*"] for a whole switch), start_ns/end_ns on 30 s
  boundaries (the fault starts with the change that causes it: the first flap, the start of a temperature or
  pre-FEC ramp, a config change before any drop shows), peer_ends (the far end of the same cable when it is in
  the data: the NIC netdev for a host port, the other switch's port for a rail-xr link; storage appliances are
  not in the data), related (ports carrying knock-on effects: neutral for scoring), signature.
  Kinds, 9-11 per seed:
  dirty_optic            rail<->xr link, receive side of one end: pre-FEC (corrected, symbol errors) x40-x100
                         over an hour first, FEC-uncorrectable and IF_IN_ERRORS rising from ~20 min in; to the end.
                         (11-fault seeds may add a second one on a NIC: rx_corrected_bits_phy, rx_crc_errors_phy.)
  flapping_link          host link (switch port, peer NIC), bursts of down/up over ~15 min (11-fault seeds may
                         add a flapping rail uplink).
  pfc_storm              NIC stuck sending pause: PFC_3_RX 30-80k/s on its rail port, tx_prio3_pause on the NIC,
                         traffic to it ~0, watchdog storms and drops; its job stalls on every rail (the job's
                         trays, the rail switch and the xr ports facing it are related).
  ecn_disabled_switch    a rail switch with no ECN marking on any port for 30-40 min: marks flat while the
                         other rails mark; PFC from it several-fold (its NICs and xr neighbours related).
  uplink_oper_down       after the reboot one uplink of that rail switch stays admin up / oper down, no LLDP;
                         its xr end up with no traffic (BGP down); to the end of the run.
  module_overheat        a transceiver (switch DOM or NIC module) heating ~30 C over an hour, then FEC and CRC
                         errors, ending with the module swap (link down ~1 min).
  breakout_cage_errors   one 800G cage broken out 2x400G (service or storage cage): both sub-ports show FEC
                         uncorrectables, CRC and more corrected FEC together; one fault with both ports; to the end.
  pfc_deadlock_switch    an xr switch in a PFC deadlock for ~10 min: PFC both ways at 10^4/s on all its ports,
                         its throughput down to a few %, watchdog alerts; all rail switches and the other xr are
                         related (pause spreading, traffic sprayed away).
  half_speed_link        a host port bounces and comes back at 400000 (NIC speed_bytes 5e10), its egress queue
                         congests (ECN), the job slows; a second bounce when it is reseated at 800G.
  lossless_queue_drops   queue-3 drops (Q3 DROPPED_PACKETS, IF_OUT_DISCARDS) on one rail uplink in proportion
                         to its traffic, while its 7 siblings carry the same sprayed load without a drop.
- healthy_phenomena[]: kind, where ("device:port" | "device:*" | "*"), start_ns, end_ns, note, background (for
  all-run trickles): moe_all_to_all, checkpoint_incast, job_start, job_stop, job_pause (eval), job_restart (after
  the stuck NIC), idle_stretch, maintenance_drain, switch_reboot, counter_clear, slow_receiver_pfc,
  inference_traffic; background: out_of_order_spraying, fec_corrected_background, sporadic_fec_uncorrectable,
  control_plane_discards.
- Scoring: python score.py OUT/labels.json findings.jsonl; a finding is (time, device, port) with device/port
  exactly as the device and port tags of the data (a NIC finding names the tray and the netdev).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

T0_S = 1748980800          # 2025-06-03T20:00:00Z
DT = 5                     # model grid, seconds
SW_PERIOD = 10             # gnmic sample interval
NIC_PERIOD = 15            # telegraf interval on the trays
INTERVAL_S = 30            # scoring interval (labels are on 30 s boundaries)
DEFAULT_HOURS = 4.0

KAPPA = 0.03     # CE-marked fraction of egress packets per unit of queue pressure (capped at 3)
BETA = 1.5e-4    # pause frames per ingress packet per unit of squared ingress pressure
PHI = 3.0        # queue pressure multiplier where ECN marking is off
ETA = 0.5        # one hop of pause spreading

RAILS, RACKS, TRAYS = 4, 3, 18
NETDEV = ("enP2p3s0f0np0", "enP6p3s0f0np0", "enP18p3s0f0np0", "enP22p3s0f0np0")
SVC_NETDEV = ("enp26s0np0", "enp60s0np0", "enp156s0np0", "enp188s0np0")
N_SVC, N_STOR = 4, 6

SW_COUNTERS = [   # cumulative, written with the i suffix, alphabetical as the influx client sorts them
    "Q0_SAI_QUEUE_STAT_DROPPED_PACKETS",
    "Q3_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED",
    "Q3_PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS",
    "Q3_SAI_QUEUE_STAT_DROPPED_PACKETS",
    "Q3_SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS",
    "SAI_PORT_STAT_IF_IN_DISCARDS",
    "SAI_PORT_STAT_IF_IN_ERRORS",
    "SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES",
    "SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES",
    "SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS",
    "SAI_PORT_STAT_IF_IN_OCTETS",
    "SAI_PORT_STAT_IF_IN_UCAST_PKTS",
    "SAI_PORT_STAT_IF_OUT_DISCARDS",
    "SAI_PORT_STAT_IF_OUT_OCTETS",
    "SAI_PORT_STAT_IF_OUT_UCAST_PKTS",
    "SAI_PORT_STAT_PFC_3_RX_PKTS",
    "SAI_PORT_STAT_PFC_3_TX_PKTS",
]
QUEUE_FIELDS = {f for f in SW_COUNTERS if f.startswith("Q") and "PFC_WD" not in f}   # 10 s flex counter poll
WD_FIELDS = {f for f in SW_COUNTERS if "PFC_WD" in f}
PORT_FIELDS = [f for f in SW_COUNTERS if f.startswith("SAI_PORT_STAT")]                # what the clear zeroes
NIC_COUNTERS = [
    "carrier_changes_total", "link_down_events_phy", "np_ecn_marked_roce_packets", "out_of_sequence",
    "rx_bytes_phy", "rx_corrected_bits_phy", "rx_crc_errors_phy", "rx_discards_phy", "rx_packets_phy",
    "rx_prio3_pause", "tx_bytes_phy", "tx_packets_phy", "tx_prio3_pause",
]


def g_press(u):
    """Egress queue pressure from burst utilisation: ~0 below half load, ~1 at line rate."""
    return 0.02 * u ** 3 + np.clip((u - 0.55) / 0.45, 0.0, None) ** 2.5


# ------------------------------------------------------------------------------------------------
# topology


class Topo:
    def __init__(self, rng):
        self.rails = [f"c4-rail{k}" for k in range(RAILS)]
        self.xrs = [f"c4-xr{j}" for j in range(2)]
        self.nodes = [f"c4-r{r + 1}-t{t + 1:02d}" for r in range(RACKS) for t in range(TRAYS)]
        self.n_compute = len(self.nodes)
        self.nodes += [f"c4-svc{i + 1:02d}" for i in range(N_SVC)]
        self.stors = [f"c4-stor{s + 1:02d}" for s in range(N_STOR)]
        S = dict(dev=[], port=[], alias=[], kind=[], rail=[], xr=[], link=[], cap=[], nic=[], peer=[],
                 rsys=[], rport=[], dom=[], stor=[])

        def add(**kw):
            for k in S:
                S[k].append(kw.get(k, -1 if k in ("rail", "xr", "link", "nic", "peer", "stor") else None))
            return len(S["dev"]) - 1

        # NIC ports: compute trays then service nodes
        N = dict(dev=[], port=[], ibdev=[], rack=[], rail=[], role=[], cap=[], node=[], sw=[])
        nic_of = {}
        for n in range(self.n_compute):
            for k in range(RAILS):
                nic_of[(n, k)] = len(N["dev"])
                N["dev"].append(self.nodes[n]); N["port"].append(NETDEV[k]); N["ibdev"].append(f"mlx5_{k}")
                N["rack"].append(f"r{n // TRAYS + 1}"); N["rail"].append(k); N["role"].append("compute")
                N["cap"].append(800.0); N["node"].append(n); N["sw"].append(-1)
        for i in range(N_SVC):
            n = self.n_compute + i
            for k in range(RAILS):
                nic_of[(n, k)] = len(N["dev"])
                N["dev"].append(self.nodes[n]); N["port"].append(SVC_NETDEV[k]); N["ibdev"].append(f"mlx5_{k}")
                N["rack"].append("r0"); N["rail"].append(k); N["role"].append("service")
                N["cap"].append(400.0); N["node"].append(n); N["sw"].append(-1)
        self.nic_of = nic_of
        uplink = {}
        for k in range(RAILS):
            dev = self.rails[k]
            for c in range(self.n_compute):
                j = nic_of[(c, k)]
                i = add(dev=dev, port=f"Ethernet{8 * c}", alias=f"etp{c + 1}", kind="host", rail=k, cap=800.0,
                        nic=j, rsys=self.nodes[c], rport=NETDEV[k], dom=True)
                N["sw"][j] = i
            for s in range(N_SVC):
                cage, sub = 54 + s // 2, s % 2
                j = nic_of[(self.n_compute + s, k)]
                i = add(dev=dev, port=f"Ethernet{8 * cage + 4 * sub}", alias=f"etp{cage + 1}{'ab'[sub]}",
                        kind="svc", rail=k, cap=400.0, nic=j, rsys=self.nodes[self.n_compute + s],
                        rport=SVC_NETDEV[k], dom=(sub == 0))
                N["sw"][j] = i
            for l in range(8):
                cage = 56 + l
                uplink[(k, l)] = add(dev=dev, port=f"Ethernet{8 * cage}", alias=f"etp{cage + 1}", kind="up",
                                     rail=k, xr=l // 4, link=l % 4, cap=800.0, dom=True)
        for j in range(2):
            dev = self.xrs[j]
            for k in range(RAILS):
                for q in range(4):
                    cage = 4 * k + q
                    u = uplink[(k, 4 * j + q)]
                    i = add(dev=dev, port=f"Ethernet{8 * cage}", alias=f"etp{cage + 1}", kind="xdown", rail=k,
                            xr=j, link=q, cap=800.0, peer=u, rsys=self.rails[k], rport=S["alias"][u], dom=True)
                    S["peer"][u] = i
                    S["rsys"][u] = dev
                    S["rport"][u] = f"etp{cage + 1}"
            for s in range(N_STOR):
                cage, sub = 16 + s // 2, s % 2
                mac = ":".join(f"{x:02x}" for x in [0xb8, 0x3f, 0xd2] + [int(v) for v in rng.integers(0, 256, 3)])
                add(dev=dev, port=f"Ethernet{8 * cage + 4 * sub}", alias=f"etp{cage + 1}{'ab'[sub]}", kind="stor",
                    xr=j, cap=400.0, stor=s, rsys=self.stors[s], rport=mac, dom=(sub == 0))
        self.S = {k: (np.array(v) if k in ("rail", "xr", "link", "cap", "nic", "peer", "stor") else v)
                  for k, v in S.items()}
        self.N = {k: (np.array(v) if k in ("rail", "cap", "node", "sw") else v) for k, v in N.items()}
        self.NS = len(S["dev"])
        self.NN = len(N["dev"])
        kind = np.array(S["kind"])
        self.kind = kind
        self.host = np.where((kind == "host") | (kind == "svc"))[0]
        self.up = np.where(kind == "up")[0]
        self.xdown = np.where(kind == "xdown")[0]
        self.storp = np.where(kind == "stor")[0]
        self.sw_devs = self.rails + self.xrs
        self.dev_ports = {d: np.array([i for i in range(self.NS) if S["dev"][i] == d]) for d in self.sw_devs}
        self.node_nics = {d: np.array([j for j in range(self.NN) if N["dev"][j] == d]) for d in self.nodes}
        self.uplink = uplink
        self.index = {(S["dev"][i], S["port"][i]): i for i in range(self.NS)}

    def sname(self, i):
        return f"{self.S['dev'][i]}:{self.S['port'][i]}"

    def nname(self, j):
        return f"{self.N['dev'][j]}:{self.N['port'][j]}"


# ------------------------------------------------------------------------------------------------
# simulation


class Sim:
    def __init__(self, seed, hours):
        self.seed = seed
        self.rng = np.random.default_rng([seed, 0x5041C])
        self.hours = hours
        self.k = hours / DEFAULT_HOURS
        self.dur = int(round(hours * 3600 / 30)) * 30
        self.NB = self.dur // DT
        self.tb = np.arange(self.NB) * DT            # bin b covers [tb, tb + DT)
        self.fit = int(round(self.dur * 0.29 / 60)) * 60
        self.topo = Topo(self.rng)
        self.faults = []
        self.healthy = []

    # ---- time helpers
    def m(self, x):
        return int(round(x * 60 * self.k / 30)) * 30

    def bfrac(self, a, b):
        lo = np.maximum(self.tb, a)
        hi = np.minimum(self.tb + DT, b)
        return np.clip((hi - lo) / DT, 0.0, 1.0)

    def ns(self, t):
        return (T0_S + int(t)) * 10 ** 9

    def hev(self, kind, where, a, b, note, background=False):
        ev = {"kind": kind, "where": list(where), "start_ns": self.ns(max(0, a)), "end_ns": self.ns(min(b, self.dur)),
              "note": note}
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    def fault(self, kind, device, ports, a, b, signature, peer_ends=(), related=()):
        a = int(a // 30) * 30
        b = min(int(-(-b // 30)) * 30, self.dur)
        assert a >= self.fit, (kind, a, self.fit)
        self.faults.append({"kind": kind, "device": device, "ports": list(ports), "start_ns": self.ns(a),
                            "end_ns": self.ns(b), "peer_ends": list(peer_ends), "related": list(related),
                            "signature": signature})

    # ---- workload waveforms (1 s resolution)
    def wave(self, start, end, peak, period, comm, off=(), caps=(), warm=60, idle=0.012):
        rng = self.rng
        u = np.zeros(self.dur)
        start, end = max(0, int(start)), min(self.dur, int(end))
        if end <= start:
            return u
        w = min(start + (warm if start > 0 else 0), end)
        u[start:w] = 0.03 + 0.12 * rng.random(w - start)
        t = float(w)
        while t < end:
            c = 1.0
            for a, b, cap in caps:
                if a <= t < b:
                    c = min(c, cap)
            comp = period * (1 - comm) * rng.normal(1, 0.05)
            lvl = peak * rng.normal(1, 0.04)
            eff = min(lvl, c)
            cd = period * comm * rng.normal(1, 0.05) * (lvl / eff)
            a0, a1, a2 = int(t), int(t + comp), int(t + comp + cd)
            u[a0:a1] = idle
            u[a1:a2] = eff
            t = t + comp + cd
        u[end:] = 0.0
        for a, b, lvl in off:
            a, b = max(int(a), start), min(int(b), end)
            if b > a:
                u[a:b] = lvl
        return u

    def to_bins(self, x):
        return x.reshape(self.NB, DT).mean(1)

    def duty(self, u, thr):
        d = (u > thr).reshape(self.NB, DT).mean(1)
        return np.where(d > 0.02, d, 1.0)


def pick(rng, seq):
    seq = list(seq)
    return seq[int(rng.integers(len(seq)))]


# ------------------------------------------------------------------------------------------------


def build(seed, hours):
    sim = Sim(seed, hours)
    rng, m, T = sim.rng, sim.m, sim.topo
    S, N = T.S, T.N
    NB, NS, NN, dur = sim.NB, T.NS, T.NN, sim.dur
    fit = sim.fit

    def J(x):
        return float(rng.uniform(-x, x))

    # ---------------- timeline (minutes of the 4 h template, jittered per seed)
    node_idx = lambda r, t: r * TRAYS + t
    jobA = [node_idx(0, t) for t in range(15)] + [node_idx(1, t) for t in range(15)]
    jobB = [node_idx(1, t) for t in range(15, 18)] + [node_idx(2, t) for t in range(15)]
    jobC = [node_idx(0, t) for t in range(15, 18)] + [node_idx(2, t) for t in range(15, 18)]
    idle0 = m(112 + J(3))
    idle1 = idle0 + m(20 + J(2))
    drain = m(152 + J(5))
    reboot_t = drain + m(2.5) + int(rng.integers(0, 30))
    restart = drain + m(13 + J(1))
    evalsA = [m(31 + J(3)), m(82 + J(3)), m(188 + J(4)), m(226 + J(3))]
    ckA = [m(46 + J(3)), m(97 + J(3)), drain - m(7), m(203 + J(4))]
    ck_len = [m(3.5 + J(0.5)) for _ in ckA]
    c_on = [(m(21 + J(3)), m(104 + J(3))), (restart + m(8 + J(2)), dur)]
    clear_t = int(pick(rng, [m(128 + J(6)), m(200 + J(10))]))
    segs = [(0, idle0), (idle1, drain), (restart, dur)]       # when jobs A and B run

    def active(a, b, margin=60):
        return any(s0 + margin <= a and b <= s1 - margin for s0, s1 in segs)

    # MoE all-to-all phases of job B
    a2a = []
    t = m(6 + J(2))
    while t < dur - 60:
        L = m(rng.uniform(2.0, 4.5))
        if active(t, t + L, 30):
            a2a.append((t, t + L))
        t += L + m(rng.uniform(9, 14))

    # ---------------- fault placement
    kinds = ["dirty_optic", "flapping_link", "pfc_storm", "ecn_disabled_switch", "uplink_oper_down",
             "module_overheat", "breakout_cage_errors", "pfc_deadlock_switch", "half_speed_link",
             "lossless_queue_drops"]
    nsel = rng.choice([9, 10, 11], p=[0.15, 0.45, 0.4])
    if nsel == 9:
        kinds.remove(pick(rng, ["breakout_cage_errors", "lossless_queue_drops"]))
    extra = pick(rng, ["flapping_uplink", "dirty_optic_host"]) if nsel == 11 else None

    def place(length, lo, hi, need_active=False, avoid=(), tries=400):
        hi = max(lo, hi - length)
        for _ in range(tries):
            a = int(rng.uniform(lo, hi) // 30) * 30
            b = a + length
            if b > dur:
                continue
            if need_active and not active(a, b):
                continue
            if any(not (b <= x0 or a >= x1) for x0, x1 in avoid):
                continue
            return a, b
        a = int(lo // 30) * 30
        return a, min(dur, a + length)

    R_m = int(rng.integers(RAILS))                       # rail switch with the planned reboot
    R_e = pick(rng, [k for k in range(RAILS) if k != R_m])   # ECN off
    XR_d = int(rng.integers(2))                          # deadlocked xr
    clear_dev = pick(rng, [d for d in T.sw_devs if d != T.rails[R_m]])
    compute_nodes = list(range(T.n_compute))
    slow_node = pick(rng, jobA + jobB + jobC)
    used_nodes = {slow_node}
    used_up = set()

    def free_node(pool):
        c = [n for n in pool if n not in used_nodes]
        n = pick(rng, c)
        used_nodes.add(n)
        return n

    plan = {}
    # (the dead uplink, fault 5, follows the reboot)
    if "dirty_optic" in kinds:
        plan["dirty_optic"] = (int(rng.uniform(fit + m(8), fit + m(40)) // 30) * 30, dur)
    if "module_overheat" in kinds:
        L = m(60) + m(rng.uniform(20, 35))
        plan["module_overheat"] = place(L, fit + m(10), dur)
    if "breakout_cage_errors" in kinds:
        plan["breakout_cage_errors"] = (int(rng.uniform(fit + m(15), dur - m(60)) // 30) * 30, dur)
    if "lossless_queue_drops" in kinds:
        a, b = place(m(rng.uniform(55, 90)), fit + m(10), dur + m(30))
        plan["lossless_queue_drops"] = (a, min(b, dur))
    plan["flapping_link"] = place(m(15), fit + m(5), dur - m(5))
    storm = place(m(rng.uniform(10, 12)), fit + m(5), dur - m(10), need_active=True)
    plan["pfc_storm"] = storm
    ecn = place(m(rng.uniform(30, 40)), fit + m(5), dur - m(5), need_active=True, avoid=[storm])
    plan["ecn_disabled_switch"] = ecn
    cands = [(a, b) for a, b in a2a if a >= fit + m(5) and active(a, a + m(11))
             and not any(not (a + m(11) <= x0 or a >= x1) for x0, x1 in [storm])]
    if cands:
        a0 = pick(rng, cands)[0] + 30
        plan["pfc_deadlock_switch"] = (a0, a0 + m(rng.uniform(9, 11)))
    else:
        plan["pfc_deadlock_switch"] = place(m(10), fit + m(5), dur - m(5), need_active=True, avoid=[storm])
    plan["half_speed_link"] = place(m(rng.uniform(45, 70)), fit + m(5), dur - m(2),
                                    avoid=[storm, plan["pfc_deadlock_switch"]])
    if extra == "flapping_uplink":
        plan["flapping_uplink"] = place(m(rng.uniform(10, 15)), fit + m(5), dur - m(5))
    if extra == "dirty_optic_host":
        plan["dirty_optic_host"] = (int(rng.uniform(fit + m(10), dur - m(70)) // 30) * 30, dur)

    # stalls of the job behind the stuck NIC
    storm_node = free_node(jobA + jobB)
    storm_job = "A" if storm_node in jobA else "B"
    storm_rail = int(rng.integers(RAILS))
    stall = (storm[0] + 20, storm[1] + 40)
    half_node = free_node([n for n in jobA + jobB + jobC])
    half_rail = int(rng.integers(RAILS))
    half_job = "A" if half_node in jobA else ("B" if half_node in jobB else "C")
    hs = plan["half_speed_link"]

    # ---------------- jobs: per-second waveforms -> bins
    zeros = lambda: np.zeros((NB, NN))
    tl, xa, xw, rl, ra, rr = zeros(), zeros(), zeros(), zeros(), zeros(), zeros()
    dsum_t, dsum_r = zeros(), zeros()
    tcp_r = zeros()
    hmul = rng.normal(1.0, 0.03, NN)
    running = {}

    def add_load(nodes, ub, db, xb, rb=None):
        for n in nodes:
            for k in range(RAILS):
                j = T.nic_of[(n, k)]
                L = N["cap"][j]
                mu = hmul[j]
                m2 = mu * rng.normal(1, 0.01)
                x = np.minimum(ub * mu, 0.97 * db) * L
                y = np.minimum(ub * m2, 0.97 * db) * L
                tl[:, j] += x * (1 - xb)
                xa[:, j] += x * xb
                rl[:, j] += y * (1 - xb)
                ra[:, j] += y * xb
                dsum_t[:, j] += x * db
                dsum_r[:, j] += y * db

    def job_secs(segments, peak, period, comm, off, caps):
        u = np.zeros(dur)
        for a, b in segments:
            u += sim.wave(a, b, peak, period, comm, off=off, caps=caps)
        return u

    def run_mask(segments):
        r = np.zeros(NB)
        for a, b in segments:
            r += sim.bfrac(a, b)
        return np.clip(r, 0, 1)

    # job A: dense pretraining, all-reduce inside the rails
    offA = [(e, e + m(2.5), 0.012) for e in evalsA] + [(c, c + L, 0.01) for c, L in zip(ckA, ck_len)]
    capsA, capsB, capsC = [], [], []
    cap_hs = (hs[0] + 20, hs[1], 0.5)
    {"A": capsA, "B": capsB, "C": capsC}[half_job].append(cap_hs)
    offB = []
    if storm_job == "A":
        offA.append((stall[0], stall[1], 0.004))
    else:
        offB.append((stall[0], stall[1], 0.004))
    uA = job_secs(segs, rng.uniform(0.78, 0.9), rng.uniform(28, 40), 0.5, offA, capsA)
    ub, db = sim.to_bins(uA), sim.duty(uA, 0.04)
    add_load(jobA, ub, db, np.zeros(NB))
    running["A"] = run_mask(segs)
    # job B: MoE, dense phases inside rails, all-to-all phases across rails (no PXN)
    uB = job_secs(segs, rng.uniform(0.6, 0.75), rng.uniform(18, 26), 0.5, [], capsB)
    xs = np.zeros(dur)
    for a, b in a2a:
        n = b - a
        lvl = rng.uniform(0.78, 0.92)
        seg = lvl * rng.uniform(0.75, 1.0, n)
        gap = (np.arange(n) % int(rng.integers(6, 10))) == 0
        seg[gap] = 0.05
        for a_, b_, cap in capsB:
            lo_, hi_ = max(a_, a), min(b_, b)
            if hi_ > lo_:
                seg[lo_ - a:hi_ - a] = np.minimum(seg[lo_ - a:hi_ - a], cap)
        uB[a:b] = seg
        xs[a:b] = 0.75
    for a, b, lvl in offB:
        uB[a:b] = np.where(uB[a:b] > 0, lvl, 0)
        xs[a:b] = 0
    ub = sim.to_bins(uB)
    xb = np.where(ub > 1e-6, sim.to_bins(uB * xs) / np.maximum(ub, 1e-9), 0.0)
    add_load(jobB, ub, sim.duty(uB, 0.04), xb)
    running["B"] = run_mask(segs)
    # job C: fine-tune
    uC = job_secs(c_on, rng.uniform(0.55, 0.7), rng.uniform(14, 20), 0.4, [], capsC)
    add_load(jobC, sim.to_bins(uC), sim.duty(uC, 0.04), np.zeros(NB))
    running["C"] = run_mask(c_on)
    # checkpoint writes of job A (cross-rail, to the storage nodes on the xr switches)
    ck = np.zeros(NB)
    for c, L in zip(ckA, ck_len):
        ck += sim.bfrac(c, c + L) * rng.uniform(0.16, 0.24)
    for n in jobA:
        for k in range(RAILS):
            j = T.nic_of[(n, k)]
            xw[:, j] += ck * N["cap"][j] * hmul[j] * rng.lognormal(0, 0.05, NB)
            dsum_t[:, j] += ck * N["cap"][j]
    # data-loader reads from storage while a job runs
    for key, nodes in (("A", jobA), ("B", jobB), ("C", jobC)):
        for n in nodes:
            for k in range(RAILS):
                j = T.nic_of[(n, k)]
                r = running[key] * rng.uniform(0.004, 0.012) * N["cap"][j] * rng.lognormal(0, 0.2, NB)
                rr[:, j] += r
                dsum_r[:, j] += r
    # service nodes (older CX-7, 400G breakouts): inference, half rail-local, half storage
    for s in range(N_SVC):
        n = T.n_compute + s
        base = rng.uniform(0.06, 0.2)
        ph = rng.uniform(0, 2 * np.pi)
        shape = base * (1 + 0.3 * np.sin(2 * np.pi * sim.tb / 5400 + ph))
        for k in range(RAILS):
            j = T.nic_of[(n, k)]
            v = shape * rng.lognormal(0, 0.15, NB) * N["cap"][j]
            tl[:, j] += 0.5 * v
            xw[:, j] += 0.03 * v
            rl[:, j] += 0.45 * v
            rr[:, j] += 0.5 * v
            dsum_t[:, j] += 0.53 * v
            dsum_r[:, j] += 0.95 * v
    # background TCP (priority 0): health checks, monitoring, ssh, scheduler -- cross-rail
    bg = rng.uniform(0.0008, 0.003, NN)[None, :] * rng.lognormal(0, 0.3, (NB, NN)) * N["cap"][None, :]
    xa += bg
    ra += bg * rng.lognormal(0, 0.1, (NB, NN))
    dsum_t += bg
    dsum_r += bg
    tcp_r += bg + 0.002 * (rl + ra + rr)

    # ---------------- link events
    down = {}           # switch port -> [(a, b)]
    ndown = {}          # nic -> [(a, b)]
    absent = []         # (device, a, b)
    resets = []         # (device, t, fields|None)

    def add_down(i, a, b, both=True, peer_b=None):
        down.setdefault(i, []).append((a, b))
        if not both:
            return
        pb = b if peer_b is None else peer_b
        if S["nic"][i] >= 0:
            ndown.setdefault(int(S["nic"][i]), []).append((a, pb))
        elif S["peer"][i] >= 0:
            down.setdefault(int(S["peer"][i]), []).append((a, pb))

    def flap_bursts(i, a, b, bursts, per_burst=(3, 6), down_s=(2, 25)):
        starts = np.sort(np.r_[a + rng.uniform(5, 60), rng.uniform(a + 120, b - 150, bursts - 1)])
        times = []
        for st in starts:
            t = st
            for _ in range(int(rng.integers(per_burst[0], per_burst[1] + 1))):
                d = rng.uniform(*down_s)
                add_down(i, t, t + d)
                times.append((t, t + d))
                t += d + rng.uniform(8, 60)
                if t > b - 5:
                    break
        return times

    # planned maintenance: drain, reboot rail switch R_m
    rdev = T.rails[R_m]
    rports = T.dev_ports[rdev]
    boot_t = reboot_t + int(rng.integers(95, 115))
    back_t = reboot_t + int(rng.integers(195, 215))     # telemetry answers again
    dead_l = int(rng.integers(8))
    dead = T.uplink[(R_m, dead_l)]
    used_up.add(dead)
    link_up_t = {}
    for i in rports:
        a = reboot_t + rng.uniform(3, 8)
        b = reboot_t + rng.uniform(150, 190)
        if i == dead:
            add_down(i, a, dur + 60, both=True, peer_b=b + rng.uniform(2, 6))
        else:
            add_down(i, a, b)
        link_up_t[int(i)] = b
    absent.append((rdev, reboot_t, back_t))
    resets.append((rdev, boot_t, None))
    first_up = max(link_up_t[int(i)] for i in rports if i != dead)

    # ---------------- faults: link-level ones and their effect arrays
    ecn_off = np.zeros((NB, NS), bool)
    press_extra = np.zeros((NB, NS))
    corr_mult = np.ones((NB, NS))          # switch receive-side FEC corrected multiplier
    uncorr_rate = np.zeros((NB, NS))       # switch receive-side uncorrectable codewords /s (fault part)
    crc_extra = np.zeros((NB, NS))         # frames with CRC errors /s (fault part, scaled by load later)
    ncorr_mult = np.ones((NB, NN))
    nuncorr = np.zeros((NB, NN))
    temp_add_sw = np.zeros((NB, NS))
    temp_add_nic = np.zeros((NB, NN))
    q3drop_on = np.zeros((NB, NS))
    nic_pause = np.zeros((NB, NN))         # pause frames/s a NIC sends
    wd_drop = np.zeros((NB, NS))
    wd_events = {}                         # switch port -> [t]
    nic_rx_block = np.ones((NB, NN))
    xr_block = np.ones((NB, 2))            # throughput factor of an xr switch (deadlock)
    deadlock_pfc = np.zeros((NB, NS))
    speed = np.tile(S["cap"][None, :], (NB, 1))

    host_sw = lambda n, k: int(N["sw"][T.nic_of[(n, k)]])

    # 5: uplink left admin-up/oper-down after the maintenance (its far end up)
    a5 = int((first_up + 15) // 30) * 30
    a5 = max(a5, int(back_t // 30) * 30)
    sim.fault("uplink_oper_down", rdev, [S["port"][dead]], a5, dur,
              "after the planned reboot this uplink stays oper_status down with admin_status up: no traffic, "
              "flat counters, no LLDP neighbour; its xr end is up (BGP down, so no traffic) and the other 7 "
              "uplinks carry the sprayed load",
              peer_ends=[{"device": S["dev"][S["peer"][dead]], "port": S["port"][S["peer"][dead]]}])

    # 1: dirty optic on a rail<->xr link, receive side of one end
    if "dirty_optic" in plan:
        a, b = plan["dirty_optic"]
        cand = [int(u) for u in T.up if int(u) != dead]
        u = pick(rng, cand)
        used_up.add(u)
        rx_port = u if rng.random() < 0.5 else int(S["peer"][u])
        other = int(S["peer"][u]) if rx_port == u else u
        x = np.clip((sim.tb - a) / m(60), 0, None)
        on = sim.tb >= a
        ber = np.where(on, 10 ** (np.minimum(x, 1.25) * rng.uniform(1.6, 2.0)), 1.0)     # pre-FEC x40-x100 in an hour
        corr_mult[:, rx_port] *= ber
        # uncorrectable codewords: nothing for ~20 min, then rising over the hour
        uc = np.where(on, np.clip((x - 0.3) / 0.7, 0, None) ** 2 * rng.uniform(6, 12), 0.0)
        uncorr_rate[:, rx_port] += np.minimum(uc, 25.0) * rng.lognormal(0, 0.3, NB)
        sim.fault("dirty_optic", S["dev"][rx_port], [S["port"][rx_port]], a, b,
                  "FEC corrected codewords and symbol errors climb first (pre-FEC BER x40-x100 over the hour), "
                  "then FEC-uncorrectable codewords and IF_IN_ERRORS rise slowly from ~20 min in; present even "
                  "when the link idles (codewords flow regardless of traffic); far end clean",
                  peer_ends=[{"device": S["dev"][other], "port": S["port"][other]}])
    if plan.get("dirty_optic_host"):
        a, b = plan["dirty_optic_host"]
        n = free_node(compute_nodes)
        k = int(rng.integers(RAILS))
        hp = host_sw(n, k)
        j = T.nic_of[(n, k)]
        x = np.clip((sim.tb - a) / m(60), 0, None)
        on = sim.tb >= a
        ncorr_mult[:, j] *= np.where(on, 10 ** (np.minimum(x, 1.5) * 1.7), 1.0)
        nuncorr[:, j] += np.where(on, np.clip((x - 0.3) / 0.7, 0, None) ** 2 * rng.uniform(4, 9), 0.0)
        sim.fault("dirty_optic", N["dev"][j], [N["port"][j]], a, b,
                  "NIC receive side: rx_corrected_bits_phy climbs first, then rx_crc_errors_phy rises slowly "
                  "over the hour; the switch end is clean",
                  peer_ends=[{"device": S["dev"][hp], "port": S["port"][hp]}])

    # 2: flapping host link
    a, b = plan["flapping_link"]
    fn = free_node([n for n in compute_nodes if n != storm_node])
    fk = int(rng.integers(RAILS))
    fp = host_sw(fn, fk)
    times = flap_bursts(fp, a, b, int(rng.integers(2, 4)))
    first = min(t for t, _ in times)
    last = max(t for _, t in times)
    sim.fault("flapping_link", S["dev"][fp], [S["port"][fp]], first, max(b, last + 60),
              "oper_status down/up repeatedly on both ends (flap_count, link_down_events_phy, carrier_changes), "
              "traffic gaps, FEC uncorrectables and CRC at each link-up",
              peer_ends=[{"device": N["dev"][S["nic"][fp]], "port": N["port"][S["nic"][fp]]}])
    if plan.get("flapping_uplink"):
        a, b = plan["flapping_uplink"]
        u = pick(rng, [int(x) for x in T.up if int(x) not in used_up and S["rail"][x] != R_m])
        used_up.add(u)
        times = flap_bursts(u, a, b, 2, (2, 4))
        first = min(t for t, _ in times)
        last = max(t for _, t in times)
        sim.fault("flapping_link", S["dev"][u], [S["port"][u]], first, max(b, last + 60),
                  "rail uplink going down/up repeatedly: oper_status, flap_count on both ends, the sprayed load "
                  "moves to the sibling uplinks during each down",
                  peer_ends=[{"device": S["dev"][S["peer"][u]], "port": S["port"][S["peer"][u]]}])

    # 3: NIC stuck sending pause
    a, b = storm
    sj = T.nic_of[(storm_node, storm_rail)]
    sp = int(N["sw"][sj])
    f = sim.bfrac(a, b)
    nic_pause[:, sj] += f * rng.uniform(30000, 80000) * rng.lognormal(0, 0.1, NB)
    nic_rx_block[:, sj] = np.where(f > 0, 0.02 + 0.98 * (1 - f), 1.0)
    first = sim.bfrac(a, a + 60)
    press_extra[:, sp] += 4.0 * first + 0.4 * np.clip(f - first, 0, None)
    wd_drop[:, sp] += np.clip(f - first, 0, None) * rng.uniform(2000, 8000)
    ev = [a + 0.3]
    t = a + rng.uniform(60, 200)
    while t < b - 20:
        ev.append(t)
        t += rng.uniform(60, 240)
    wd_events.setdefault(sp, []).extend(ev)
    sdev = S["dev"][sp]
    jnodes = jobA if storm_job == "A" else jobB
    rel = [{"device": sdev, "ports": ["*"]}]
    rel += [{"device": S["dev"][S["peer"][u]], "ports": [S["port"][S["peer"][u]]]} for u in T.dev_ports[sdev]
            if S["kind"][u] == "up"]
    rel += [{"device": T.nodes[n], "ports": ["*"]} for n in jnodes]
    sim.fault("pfc_storm", sdev, [S["port"][sp]], a, b,
              "NIC stuck in its receive pipeline: SAI_PORT_STAT_PFC_3_RX_PKTS 30-80k/s on the rail-switch port "
              "(tx_prio3_pause on the NIC), traffic toward it ~0, PFC watchdog storms (DEADLOCK_DETECTED, "
              "TX_DROPPED); the job behind it stalls on every rail",
              peer_ends=[{"device": N["dev"][sj], "port": N["port"][sj]}], related=rel)
    sim.hev("job_restart", [f"{T.nodes[n]}:*" for n in jnodes] + [f"{r}:*" for r in T.rails], b, b + 360,
            f"job {storm_job} resumes after the stuck NIC is reset: NCCL warm-up, then bursts")

    # 4: ECN marking off on a whole rail switch
    a, b = ecn
    edev = T.rails[R_e]
    msk = (sim.tb >= a) & (sim.tb < b)
    ecn_off[np.ix_(msk, T.dev_ports[edev])] = True
    rel = [{"device": edev, "ports": ["*"]}]
    for i in T.dev_ports[edev]:
        if S["nic"][i] >= 0:
            rel.append({"device": N["dev"][S["nic"][i]], "ports": [N["port"][S["nic"][i]]]})
        elif S["peer"][i] >= 0:
            rel.append({"device": S["dev"][S["peer"][i]], "ports": [S["port"][S["peer"][i]]]})
    sim.fault("ecn_disabled_switch", edev, ["*"], a, b,
              "WRED/ECN profile missing on every queue 3 of the switch: Q3 WRED_ECN_MARKED flat on all its ports "
              "while the other rails mark under the same all-reduce/all-to-all load; PFC from it (PFC_3_TX on its "
              "host ports and uplinks, rx_prio3_pause on its NICs, PFC_3_RX on the xr ports) several-fold higher",
              related=rel)

    # 6: module heating slowly, then errors
    if "module_overheat" in plan:
        a, b = plan["module_overheat"]
        x = np.clip((sim.tb - a) / m(60), 0, None)
        rise = (rng.uniform(26, 34) * np.minimum(x, 1) ** 1.3
                + np.where(x > 1, rng.uniform(0, 3) * np.minimum(x - 1, 1), 0))
        swap = b - rng.uniform(60, 150)          # the optic is swapped: link down, a new cool module
        rise = rise * (sim.tb < swap)
        where_ = pick(rng, ["switch_host", "switch_up", "nic"])
        hot = np.clip((rise - 22) / 8, 0, None)       # errors once the module is ~22 C above its normal
        if where_ == "nic":
            n = free_node(compute_nodes)
            k = int(rng.integers(RAILS))
            j = T.nic_of[(n, k)]
            hp = int(N["sw"][j])
            temp_add_nic[:, j] += rise
            add_down(hp, swap, swap + rng.uniform(45, 100))
            ncorr_mult[:, j] *= 1 + 60 * hot ** 2
            nuncorr[:, j] += rng.uniform(2, 6) * hot ** 3
            corr_mult[:, hp] *= 1 + 8 * hot ** 2          # its laser degrades too: the switch end sees some
            uncorr_rate[:, hp] += 0.3 * hot ** 3
            sim.fault("module_overheat", N["dev"][j], [N["port"][j]], a, b,
                      "NIC module temperature (module_temperature_celsius) ramps ~30 C over an hour, then "
                      "rx_corrected_bits_phy and rx_crc_errors_phy rise; a little FEC on the switch end; ends with "
                      "the module swap (link down ~1 min)",
                      peer_ends=[{"device": S["dev"][hp], "port": S["port"][hp]}])
        else:
            if where_ == "switch_host":
                n = free_node(compute_nodes)
                i = host_sw(n, int(rng.integers(RAILS)))
                far = {"device": N["dev"][S["nic"][i]], "port": N["port"][S["nic"][i]]}
            else:
                i = pick(rng, [int(u) for u in T.up if int(u) not in used_up
                               and not (S["rail"][u] == R_m and a < restart and b > drain)])
                used_up.add(i)
                far = {"device": S["dev"][S["peer"][i]], "port": S["port"][S["peer"][i]]}
            temp_add_sw[:, i] += rise
            add_down(i, swap, swap + rng.uniform(45, 100))
            corr_mult[:, i] *= 1 + 60 * hot ** 2
            uncorr_rate[:, i] += rng.uniform(2, 6) * hot ** 3
            sim.fault("module_overheat", S["dev"][i], [S["port"][i]], a, b,
                      "transceiver DOM temperature ramps ~30 C over an hour (updated once a minute), then FEC "
                      "corrected/symbol errors, FEC-uncorrectable codewords and IF_IN_ERRORS rise on the port; ends "
                      "with the module swap (link down ~1 min)",
                      peer_ends=[far])

    # 7: a failing breakout cage: both 400G sub-ports of one 800G cage
    if "breakout_cage_errors" in plan:
        a, b = plan["breakout_cage_errors"]
        if rng.random() < 0.5:
            dev = T.rails[pick(rng, [k for k in range(RAILS) if k != R_m])]
            base = 432 + 8 * int(rng.integers(2))
        else:
            dev = T.xrs[int(rng.integers(2))]
            base = 128 + 8 * int(rng.integers(3))
        ports = [T.index[(dev, f"Ethernet{base}")], T.index[(dev, f"Ethernet{base + 4}")]]
        f = sim.bfrac(a, b)
        lvl = rng.uniform(0.6, 1.4)
        peers = []
        for i in ports:
            corr_mult[:, i] *= 1 + 25 * f * rng.lognormal(0, 0.2, NB)
            uncorr_rate[:, i] += f * lvl * rng.uniform(1, 4) * rng.lognormal(0, 0.4, NB)
            crc_extra[:, i] += f * lvl * rng.uniform(2, 6)
            if S["nic"][i] >= 0:
                j = int(S["nic"][i])
                nuncorr[:, j] += f * lvl * 0.5
                ncorr_mult[:, j] *= 1 + 5 * f
                peers.append({"device": N["dev"][j], "port": N["port"][j]})
        sim.fault("breakout_cage_errors", dev, [S["port"][i] for i in ports], a, b,
                  "both 400G sub-ports of one 800G cage show FEC-uncorrectable codewords, IF_IN_ERRORS and a "
                  "jump in corrected FEC together (one cage, one fault)", peer_ends=peers)

    # 8: PFC deadlock on an xr switch
    a, b = plan["pfc_deadlock_switch"]
    f = sim.bfrac(a, b)
    xr_block[:, XR_d] = 1 - 0.97 * f
    xdev = T.xrs[XR_d]
    xports = T.dev_ports[xdev]
    for i in xports:
        deadlock_pfc[:, i] += f * rng.uniform(8000, 30000) * rng.lognormal(0, 0.3, NB)
        press_extra[:, i] += 3.0 * f
        t = a + rng.uniform(1, 20)
        while t < b:
            wd_events.setdefault(int(i), []).append(t)
            t += rng.uniform(20, 90)
        if S["peer"][i] >= 0:
            u = int(S["peer"][i])
            deadlock_pfc[:, u] += f * rng.uniform(3000, 15000) * rng.lognormal(0, 0.3, NB)
            press_extra[:, u] += 2.0 * f
            t = a + rng.uniform(2, 40)
            while t < b:
                wd_events.setdefault(u, []).append(t)
                t += rng.uniform(30, 120)
    rel = [{"device": xdev, "ports": ["*"]}] + [{"device": r, "ports": ["*"]} for r in T.rails]
    rel += [{"device": T.xrs[1 - XR_d], "ports": ["*"]}]
    sim.fault("pfc_deadlock_switch", xdev, ["*"], a, b,
              "PFC deadlock: PFC_3_TX and PFC_3_RX at 10^4/s on every port of the xr switch, its throughput "
              "collapses to a few %, PFC watchdog (alert mode) storm detections; the rail switches pause their "
              "hosts and spray toward the other xr switch", related=rel)

    # 9: 400G negotiated where 800G is expected
    a, b = hs
    hj = T.nic_of[(half_node, half_rail)]
    hp = int(N["sw"][hj])
    add_down(hp, a + rng.uniform(0, 3), a + rng.uniform(9, 20))
    b2 = b - rng.uniform(15, 25)
    add_down(hp, b2, b2 + rng.uniform(8, 15))      # fixed: reseated, back at 800G
    msk = (sim.tb >= a + 20) & (sim.tb < b2)
    speed[msk, hp] = 400.0
    hsf = np.zeros(NB)
    hsf[msk] = 1.0
    sim.fault("half_speed_link", S["dev"][hp], [S["port"][hp]], a, b,
              "a bounce, then speed 400000 (NIC speed_bytes 5e10) on a host port that should run 800G: its egress "
              "queue congests (Q3 ECN marks, PFC toward the ports feeding it), the job slows to its pace; a second "
              "bounce when it is reseated back at 800G",
              peer_ends=[{"device": N["dev"][hj], "port": N["port"][hj]}],
              related=[{"device": S["dev"][hp], "ports": ["*"]}])

    # 10: lossless-class drops on a rail uplink
    if "lossless_queue_drops" in plan:
        a, b = plan["lossless_queue_drops"]
        u = pick(rng, [int(x) for x in T.up if int(x) not in used_up
                       and not (S["rail"][x] == R_m and a < restart and b > drain)])
        used_up.add(u)
        q3drop_on[:, u] = sim.bfrac(a, b) * rng.uniform(2e-5, 4e-5)
        sim.fault("lossless_queue_drops", S["dev"][u], [S["port"][u]], a, b,
                  "queue 3 (lossless) drops on one rail uplink under ordinary load: Q3 SAI_QUEUE_STAT_DROPPED_PACKETS "
                  "and IF_OUT_DISCARDS grow with its traffic while its 7 siblings, carrying the same sprayed load, "
                  "drop nothing",
                  peer_ends=[{"device": S["dev"][S["peer"][u]], "port": S["port"][S["peer"][u]]}])

    # slow receiver node (healthy, since the start)
    for k in range(RAILS):
        j = T.nic_of[(slow_node, k)]
        on = np.zeros(NB, bool)
        st = False
        for b_ in range(NB):
            if rng.random() < (0.08 if not st else 0.15):
                st = not st
            on[b_] = st
        load = np.clip((rl[:, j] + ra[:, j] + rr[:, j]) / N["cap"][j], 0, 1)
        rate = rng.uniform(1500, 3000) * on * load * rng.lognormal(0, 0.5, NB)
        nic_pause[:, j] += rate
        press_extra[:, int(N["sw"][j])] += rate / 20000.0
    slow_where = [f"{T.nodes[slow_node]}:*"] + [T.sname(host_sw(slow_node, k)) for k in range(RAILS)]
    sim.hev("slow_receiver_pfc", slow_where, 0, dur,
            "all four NICs of one tray pause their rail-switch ports while receiving (host memory pressure): "
            "bounded tx_prio3_pause / PFC_3_RX_PKTS up to a few thousand a second, since the start")

    # ---------------- link state arrays
    def frac_down(ivs):
        f = np.zeros(NB)
        for a, b in ivs:
            f += sim.bfrac(a, b)
        return np.clip(f, 0, 1)

    upf = np.ones((NB, NS))
    for i, ivs in down.items():
        upf[:, i] = 1 - frac_down(ivs)
    nupf = np.ones((NB, NN))
    for j, ivs in ndown.items():
        nupf[:, j] = 1 - frac_down(ivs)
    # the NIC side of a host link carries what the link carries
    link_up = np.ones((NB, NN))
    for j in range(NN):
        link_up[:, j] = np.minimum(upf[:, N["sw"][j]], nupf[:, j])

    # ---------------- traffic: NIC offered -> throttling -> ports
    noise = lambda sh: rng.lognormal(0, 0.025, sh)
    nic_cap = np.tile(N["cap"][None, :], (NB, 1))
    nic_cap[:, hj] = speed[:, hp]
    tl *= noise((NB, NN)); xa *= noise((NB, NN)); xw *= noise((NB, NN))
    rl *= noise((NB, NN)); ra *= noise((NB, NN)); rr *= noise((NB, NN))
    for X in (tl, xa, xw):
        X *= link_up
    for X in (rl, ra, rr):
        X *= link_up * nic_rx_block
    # availability of the rail<->xr links, including the deadlocked switch
    avail = upf.copy()
    for u in T.up:                       # a rail<->xr link carries nothing unless both ends are up
        x = int(S["peer"][u])
        both = np.minimum(upf[:, u], upf[:, x])
        avail[:, u] = both
        avail[:, x] = both
    for j in range(2):
        for i in T.dev_ports[T.xrs[j]]:
            avail[:, i] *= xr_block[:, j]
            if S["peer"][i] >= 0:
                avail[:, S["peer"][i]] *= xr_block[:, j]
    rail_of_nic = N["rail"]
    # storage capacity (12 x 400G) and writes/reads
    stor_cap = (400.0 * avail[:, T.storp]).sum(1)
    W_off = xw.sum(1)
    R_off = rr.sum(1)
    f_w = np.minimum(1.0, 0.95 * stor_cap / np.maximum(W_off, 1e-6))
    f_r = np.minimum(1.0, 0.95 * stor_cap / np.maximum(R_off, 1e-6))
    over_stor = np.maximum(W_off / np.maximum(stor_cap, 1) - 1, 0)
    xw *= f_w[:, None]
    rr *= f_r[:, None]
    over_up = np.zeros((NB, RAILS))
    over_dn = np.zeros((NB, RAILS))
    f_up = np.ones((NB, RAILS))
    for k in range(RAILS):
        js = np.where(rail_of_nic == k)[0]
        ups = [T.uplink[(k, l)] for l in range(8)]
        cap = (800.0 * avail[:, ups]).sum(1)
        off = (xa[:, js] + xw[:, js]).sum(1)
        over_up[:, k] = np.maximum(off / np.maximum(cap, 1) - 1, 0)
        f_up[:, k] = np.minimum(1.0, 0.96 * cap / np.maximum(off, 1e-6))
        xa[:, js] *= f_up[:, k][:, None]
        xw[:, js] *= f_up[:, k][:, None]
    g_up = f_up.mean(1)
    ra *= g_up[:, None]
    for k in range(RAILS):
        js = np.where(rail_of_nic == k)[0]
        xd = [int(S["peer"][T.uplink[(k, l)]]) for l in range(8)]
        cap = (800.0 * avail[:, xd]).sum(1)
        off = (ra[:, js] + rr[:, js]).sum(1)
        over_dn[:, k] = np.maximum(off / np.maximum(cap, 1) - 1, 0)
        f = np.minimum(1.0, 0.96 * cap / np.maximum(off, 1e-6))
        ra[:, js] *= f[:, None]
        rr[:, js] *= f[:, None]
    ntx = tl + xa + xw
    nrx = rl + ra + rr
    # a NIC never exceeds its line rate
    ntx = np.minimum(ntx, 0.985 * nic_cap * link_up)
    nrx = np.minimum(nrx, 0.985 * nic_cap * link_up)
    dut_t = np.clip(dsum_t / np.maximum(tl + xa + xw + 1e-9, 1e-9), 0.05, 1)
    dut_r = np.clip(dsum_r / np.maximum(rl + ra + rr + 1e-9, 1e-9), 0.05, 1)
    cross_t = np.clip((xa + xw) / np.maximum(ntx, 1e-9), 0, 1)
    cross_r = np.clip((ra + rr) / np.maximum(nrx, 1e-9), 0, 1)

    sin = np.zeros((NB, NS))     # Gb/s received by the switch port
    sout = np.zeros((NB, NS))    # Gb/s sent by the switch port
    duty = np.ones((NB, NS))
    js = N["sw"]
    sin[:, js] = ntx
    sout[:, js] = nrx
    duty[:, js] = dut_r
    # uplinks: per-packet spraying, equal within a few %
    for k in range(RAILS):
        jk = np.where(rail_of_nic == k)[0]
        up_tot = (xa[:, jk] + xw[:, jk]).sum(1)
        dn_tot = (ra[:, jk] + rr[:, jk]).sum(1)
        d_up = ((xa[:, jk] + xw[:, jk]) * dut_t[:, jk]).sum(1) / np.maximum(up_tot, 1e-9)
        d_dn = ((ra[:, jk] + rr[:, jk]) * dut_r[:, jk]).sum(1) / np.maximum(dn_tot, 1e-9)
        ups = np.array([T.uplink[(k, l)] for l in range(8)])
        w0 = rng.normal(1.0, 0.008, 8)
        w = avail[:, ups] * w0[None, :] * rng.lognormal(0, 0.01, (NB, 8))
        w = w / np.maximum(w.sum(1, keepdims=True), 1e-9)
        sout[:, ups] = up_tot[:, None] * w
        duty[:, ups] = np.where(up_tot > 1, d_up, 1.0)[:, None]
        # down: share through each xr follows the sources' spraying (capacity toward each xr)
        xd = np.array([int(S["peer"][u]) for u in ups])
        w2 = avail[:, xd] * rng.normal(1.0, 0.008, 8)[None, :] * rng.lognormal(0, 0.01, (NB, 8))
        w2 = w2 / np.maximum(w2.sum(1, keepdims=True), 1e-9)
        sin[:, ups] = dn_tot[:, None] * w2
        sout[:, xd] = sin[:, ups]
        sin[:, xd] = sout[:, ups]
        duty[:, xd] = np.where(dn_tot > 1, d_dn, 1.0)[:, None]
    # storage ports on the xr switches
    W = xw.sum(1)
    R = rr.sum(1)
    ws = rng.normal(1 / N_STOR, 0.004, N_STOR)
    sa = avail[:, T.storp]
    sshare = sa / np.maximum(sa.sum(1, keepdims=True), 1e-9)      # per storage port (12)
    for q, i in enumerate(T.storp):
        s = int(S["stor"][i])
        sout[:, i] = W * ws[s] * N_STOR * sshare[:, q] * rng.lognormal(0, 0.02, NB)
        sin[:, i] = R * ws[s] * N_STOR * sshare[:, q] * rng.lognormal(0, 0.02, NB)
    sout = np.minimum(sout, 0.99 * speed)
    sin = np.minimum(sin, 0.99 * speed)

    # ---------------- queues: pressure, PFC, ECN
    eu = sout / speed
    burst = np.clip(eu / np.clip(duty, 0.05, 1), 0, 1.3)
    p = g_press(np.minimum(burst, 1.0)) + 1.5 * np.maximum(burst - 1.0, 0) + press_extra
    for k in range(RAILS):
        ups = [T.uplink[(k, l)] for l in range(8)]
        p[:, ups] += 1.5 * over_up[:, k][:, None] * rng.lognormal(0, 0.2, (NB, 8))
        xd = [int(S["peer"][u]) for u in ups]
        p[:, xd] += 1.5 * over_dn[:, k][:, None] * rng.lognormal(0, 0.2, (NB, 8))
    p[:, T.storp] += 1.5 * over_stor[:, None] * rng.lognormal(0, 0.2, (NB, len(T.storp)))
    # half-speed host port: the job offers more than 400G in bursts
    p[:, hp] += hsf * 1.2 * (np.clip(eu[:, hp] / np.clip(duty[:, hp], 0.05, 1), 0, 1) > 0.3)
    p *= upf
    eff = p * np.where(ecn_off, PHI, 1.0)

    def wmean(idx, w, x):
        return (w[:, idx] * x[:, idx]).sum(1) / (w[:, idx].sum(1) + 1e-3)

    dem = np.maximum(sout, 1e-3)
    P_host = np.zeros((NB, RAILS))
    P_up = np.zeros((NB, RAILS))
    for k in range(RAILS):
        P_host[:, k] = wmean(T.host[S["rail"][T.host] == k], dem, eff)
        P_up[:, k] = wmean(T.up[S["rail"][T.up] == k], dem, eff)
    P_xr = np.zeros((NB, 2))
    P_xd = np.zeros((NB, 2))
    for j in range(2):
        ports = T.dev_ports[T.xrs[j]]
        P_xr[:, j] = wmean(ports, dem, eff)
        P_xd[:, j] = wmean(T.xdown[S["xr"][T.xdown] == j], dem, eff)
    Pin = np.zeros((NB, NS))
    for i in T.host:
        k = int(S["rail"][i])
        j = int(S["nic"][i])
        cf = cross_t[:, j]
        Pin[:, i] = (1 - cf) * P_host[:, k] + cf * (P_up[:, k] + ETA * P_xr.mean(1))
    for i in T.up:
        Pin[:, i] = P_host[:, int(S["rail"][i])]
    for i in T.xdown:
        Pin[:, i] = P_xr[:, int(S["xr"][i])] + ETA * P_host.mean(1)
    for i in T.storp:
        Pin[:, i] = P_xd[:, int(S["xr"][i])]
    Pin *= upf

    Bps = 1e9 / 8
    psz = rng.uniform(3300, 4100, NS)[None, :] * (1 + 0.01 * rng.standard_normal((NB, NS)))
    oct_in = sin * Bps * DT
    oct_out = sout * Bps * DT
    pk_in = oct_in / psz
    pk_out = oct_out / psz
    ln = lambda sig, shape=(NB, NS): rng.lognormal(-sig * sig / 2, sig, shape)
    pois = rng.poisson
    pfc_tx = BETA * (pk_in / DT) * np.minimum(Pin, 4.0) ** 2 * ln(0.6) + deadlock_pfc
    pfc_rx = np.zeros((NB, NS))
    for grp in (T.up, T.xdown):
        pfc_rx[:, grp] = pfc_tx[:, S["peer"][grp]]
    pfc_rx[:, N["sw"]] = nic_pause * ln(0.25, (NB, NN))
    pfc_rx[:, T.storp] = 2500 * np.minimum(eu[:, T.storp], 1) ** 3 * ln(0.5, (NB, len(T.storp)))
    pfc_tx *= upf
    pfc_rx *= upf
    mark_frac = KAPPA * np.minimum(p, 3.0) * ln(0.35) * (~ecn_off)
    marks = pk_out * mark_frac

    # ---------------- counter increments per bin (switch)
    inc = {}
    inc["SAI_PORT_STAT_IF_IN_OCTETS"] = oct_in
    inc["SAI_PORT_STAT_IF_OUT_OCTETS"] = oct_out
    inc["SAI_PORT_STAT_IF_IN_UCAST_PKTS"] = pk_in
    inc["SAI_PORT_STAT_IF_OUT_UCAST_PKTS"] = pk_out
    inc["SAI_PORT_STAT_PFC_3_TX_PKTS"] = pois(pfc_tx * DT)
    inc["SAI_PORT_STAT_PFC_3_RX_PKTS"] = pois(pfc_rx * DT)
    inc["Q3_SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] = pois(marks)
    q3 = pois(pk_out * q3drop_on * (0.3 + np.minimum(p, 3.0)) * ln(0.5))
    inc["Q3_SAI_QUEUE_STAT_DROPPED_PACKETS"] = q3
    tcp_share = np.full((NB, NS), 0.004)
    tcp_share[:, js] = np.clip(tcp_r / np.maximum(nrx, 1e-9), 0, 1)
    q0 = pois(pk_out * tcp_share * 0.01 * np.clip(p - 0.9, 0, 2.0))
    inc["Q0_SAI_QUEUE_STAT_DROPPED_PACKETS"] = q0
    wd = pois(wd_drop * DT * ln(0.4))
    inc["Q3_PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"] = wd
    ctrl = np.where(rng.random(NS) < 0.4, rng.uniform(0.01, 0.3, NS), 0.0)
    inc["SAI_PORT_STAT_IF_IN_DISCARDS"] = pois(np.tile(ctrl * DT, (NB, 1)))
    # FEC: codewords flow whether or not there is traffic
    corr_base = 10 ** rng.uniform(2.0, 4.3, NS) * (S["cap"] / 800.0)
    amb = 0.8 * np.sin(2 * np.pi * sim.tb / (3.1 * 3600) + rng.uniform(0, 6.3))
    corr = corr_base[None, :] * corr_mult * upf * rng.lognormal(0, 0.08, (NB, NS)) * np.exp(
        temp_add_sw / 40.0)
    corr *= np.clip(1 + amb[:, None] * 0.02, 0.9, 1.1)
    inc["SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES"] = pois(corr * DT)
    inc["SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS"] = pois(corr * DT * rng.uniform(1.05, 1.4, NS)[None, :])
    spor_sw = np.where(rng.random(NS) < 0.1, rng.uniform(0.5, 4.0, NS), 0.0)
    for i in [int(x) for x in np.where(spor_sw > 0)[0]]:
        if any(f_["device"] == S["dev"][i] and (f_["ports"] == ["*"] or S["port"][i] in f_["ports"])
               for f_ in sim.faults):
            spor_sw[i] = 0.0
    spor = pois(np.tile(spor_sw * DT / 3600.0, (NB, 1)))
    # link-up training errors
    lu_sw = np.zeros((NB, NS))
    ld_sw = np.zeros((NB, NS))
    for i, ivs in down.items():
        for a, b in ivs:
            ka, kb = int(a // DT), int(b // DT)
            if ka < NB:
                ld_sw[ka, i] += 1
            if kb < NB:
                lu_sw[kb, i] += 1
    uc = pois(uncorr_rate * DT * upf) + spor + pois(4.0 * lu_sw)
    inc["SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES"] = uc
    hit = np.clip(0.15 + sin / speed, 0, 1)
    inc["SAI_PORT_STAT_IF_IN_ERRORS"] = rng.binomial(uc.astype(np.int64), hit) + pois(
        crc_extra * DT * np.clip(sin / speed / 0.3, 0, 1.5)) + pois(0.8 * lu_sw)
    inc["SAI_PORT_STAT_IF_OUT_DISCARDS"] = q3 + q0 + wd + pois(60.0 * ld_sw)

    # ---------------- NIC side
    ninc = {}
    ninc["tx_bytes_phy"] = oct_in[:, js]
    ninc["rx_bytes_phy"] = oct_out[:, js]
    ninc["tx_packets_phy"] = pk_in[:, js]
    ninc["rx_packets_phy"] = pk_out[:, js]
    ninc["rx_prio3_pause"] = inc["SAI_PORT_STAT_PFC_3_TX_PKTS"][:, js]
    ninc["tx_prio3_pause"] = inc["SAI_PORT_STAT_PFC_3_RX_PKTS"][:, js]
    # ECN: marks from the rail switch plus marks made upstream on the cross-rail path
    up_mark = np.zeros((NB, NN))
    for k in range(RAILS):
        jk = np.where(rail_of_nic == k)[0]
        ups = [T.uplink[(k, l)] for l in range(8)]
        xd = [int(S["peer"][u]) for u in ups]
        fr = np.clip(KAPPA * (np.minimum(wmean(xd, dem, p), 3.0) + np.minimum(P_up.mean(1), 3.0) * 0.5), 0, 0.5)
        up_mark[:, jk] = fr[:, None]
    ninc["np_ecn_marked_roce_packets"] = pois(marks[:, js] + pk_out[:, js] * cross_r * up_mark)
    oos_k = rng.uniform(0.008, 0.03, NN)
    ninc["out_of_sequence"] = pois(pk_out[:, js] * cross_r * oos_k[None, :] * ln(0.3, (NB, NN)) + 0.02 * DT)
    ncorr_base = 10 ** rng.uniform(2.0, 4.3, NN) * (N["cap"] / 800.0)
    ncorr = ncorr_base[None, :] * ncorr_mult * link_up * rng.lognormal(0, 0.08, (NB, NN)) * np.exp(temp_add_nic / 40.0)
    ninc["rx_corrected_bits_phy"] = pois(ncorr * DT * rng.uniform(1.2, 2.0, NN)[None, :])
    spor_n = np.where(rng.random(NN) < 0.05, rng.uniform(0.5, 3.0, NN), 0.0)
    lu_n = np.zeros((NB, NN))
    ld_n = np.zeros((NB, NN))
    for j, ivs in ndown.items():
        for a, b in ivs:
            ka, kb = int(a // DT), int(b // DT)
            if ka < NB:
                ld_n[ka, j] += 1
            if kb < NB:
                lu_n[kb, j] += 1
    ucn = pois(nuncorr * DT * link_up) + pois(np.tile(spor_n * DT / 3600.0, (NB, 1)))
    ninc["rx_crc_errors_phy"] = rng.binomial(ucn.astype(np.int64), np.clip(0.15 + nrx / nic_cap, 0, 1)) + pois(
        0.8 * lu_n)
    ninc["rx_discards_phy"] = pois((nic_pause > 20000) * 300.0 * DT + 0.0)

    # ---------------- event (step) counters
    ev_sw = {"flap_count": {}, "Q3_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": {}}
    for i, ivs in down.items():
        ev_sw["flap_count"][i] = sorted(a for a, _ in ivs)
    for i, tl_ in wd_events.items():
        ev_sw["Q3_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"][i] = sorted(tl_)
    ev_nic = {"link_down_events_phy": {}, "carrier_changes_total": {}}
    for j, ivs in ndown.items():
        ev_nic["link_down_events_phy"][j] = sorted(a for a, _ in ivs)
        ev_nic["carrier_changes_total"][j] = sorted([a for a, _ in ivs] + [b for _, b in ivs])

    # ---------------- temperatures (continuous, per bin)
    def smooth(x, tau_bins=60):
        y = np.empty_like(x)
        acc = x[0].copy()
        a = 1.0 / tau_bins
        for b_ in range(x.shape[0]):
            acc += a * (x[b_] - acc)
            y[b_] = acc
        return y

    util_sw = smooth((sin + sout) / (2 * speed))
    temp_sw = (rng.uniform(36, 52, NS)[None, :] + 5 * util_sw + amb[:, None] + temp_add_sw)
    util_n = smooth((ntx + nrx) / (2 * nic_cap))
    amb_n = 0.6 * np.sin(2 * np.pi * sim.tb / (2.7 * 3600) + rng.uniform(0, 6.3))
    temp_n = rng.uniform(42, 58, NN)[None, :] + 6 * util_n + amb_n[:, None] + temp_add_nic

    # ---------------- counter clear, healthy labels
    resets.append((clear_dev, clear_t, PORT_FIELDS))
    lab = dict(sim=sim, inc=inc, ninc=ninc, ev_sw=ev_sw, ev_nic=ev_nic, down=down, ndown=ndown, absent=absent,
               resets=resets, speed=speed, nic_cap=nic_cap, temp_sw=temp_sw, temp_n=temp_n, dead=dead,
               reboot_t=reboot_t, back_t=back_t, link_up_t=link_up_t)

    allw = ["*"]
    A_where = [f"{T.nodes[n]}:*" for n in jobA]
    B_where = [f"{T.nodes[n]}:*" for n in jobB]
    C_where = [f"{T.nodes[n]}:*" for n in jobC]
    hostports = lambda nodes: [T.sname(host_sw(n, k)) for n in nodes for k in range(RAILS)]
    rails_all = [f"{r}:*" for r in T.rails]
    xr_all = [f"{x}:*" for x in T.xrs]
    for e in evalsA:
        if active(e, e + m(2.5), 0):
            sim.hev("job_pause", A_where + hostports(jobA), e, e + m(2.5) + 120,
                    "job A stops communicating for ~2.5 min (eval)")
    for c, L in zip(ckA, ck_len):
        sim.hev("checkpoint_incast", A_where + rails_all + xr_all, c, c + L + 60,
                "job A writes its checkpoint to the 6 storage nodes: storage ports at line rate with heavy ECN, "
                "PFC from the xr switches onto every rail uplink and from the rail switches onto the writers' NICs")
    for a, b in a2a:
        sim.hev("moe_all_to_all", B_where + rails_all + xr_all, a, b + 60,
                "MoE all-to-all phase (no PXN): cross-rail traffic saturates the rail uplinks, ECN and PFC on all "
                "uplinks of every rail switch at once, the xr tier busy, out_of_sequence up at the NICs")
    for key, where, segments in (("A", A_where + hostports(jobA), segs), ("B", B_where + hostports(jobB), segs),
                                 ("C", C_where + hostports(jobC), c_on)):
        for a, b in segments:
            if a > 0:
                sim.hev("job_start", where, a, a + 300, f"job {key} starts: NCCL warm-up, then bursts")
            if b < dur:
                sim.hev("job_stop", where, b, b + 300, f"job {key} ends / is drained")
    sim.hev("idle_stretch", allw, idle0, idle1 + 120,
            "the partition is held for a storage-controller firmware upgrade: every job off, near-idle counters")
    sim.hev("maintenance_drain", allw, drain, restart + 300,
            f"planned drain for the {rdev} reboot: all jobs stop, restart after it")
    rb_where = [f"{rdev}:*"] + [T.sname(int(S["peer"][u])) for u in T.dev_ports[rdev] if S["peer"][u] >= 0]
    rb_where += [T.nname(int(S["nic"][i])) for i in T.dev_ports[rdev] if S["nic"][i] >= 0]
    sim.hev("switch_reboot", rb_where, reboot_t - 30, back_t + 150,
            "planned reboot of a rail switch: no samples ~3.5 min, all its ports and their far ends down ~3 min, "
            "its counters restart from 0 (flap_count too), link_down_events_phy +1 on its 58 NICs, LLDP tags "
            "missing for a while, FEC errors as the links train")
    sim.hev("counter_clear", [f"{clear_dev}:*"], clear_t, clear_t + 60,
            "an operator cleared the port counters on one switch: every SAI_PORT_STAT_* field drops to 0 at "
            "once; queue, PFC-watchdog counters and flap_count keep counting")
    svc_where = [f"{T.nodes[T.n_compute + s]}:*" for s in range(N_SVC)] + [
        T.sname(host_sw(T.n_compute + s, k)) for s in range(N_SVC) for k in range(RAILS)]
    sim.hev("inference_traffic", svc_where, 0, dur, "service nodes on 400G breakouts: steady inference traffic")
    sim.hev("out_of_order_spraying", [f"{n}:*" for n in T.nodes], 0, dur,
            "per-packet spraying toward the xr tier: out_of_sequence at every NIC in proportion to its cross-rail "
            "receive traffic", background=True)
    sim.hev("fec_corrected_background", allw, 0, dur,
            "800G PAM4 links correct 10^2-10^4 codewords a second all the time (FEC corrected/symbol errors, "
            "rx_corrected_bits_phy), independent of traffic", background=True)
    sp_where = [T.sname(i) for i in np.where(spor_sw > 0)[0]] + [T.nname(j) for j in np.where(spor_n > 0)[0]]
    sim.hev("sporadic_fec_uncorrectable", sp_where, 0, dur,
            "isolated FEC-uncorrectable codewords (sometimes one CRC frame) on healthy links, a few an hour",
            background=True)
    sim.hev("control_plane_discards", [T.sname(i) for i in np.where(ctrl > 0)[0]], 0, dur,
            "IF_IN_DISCARDS at 0.01-0.3/s (LLDP/ND/unsupported multicast dropped at ingress), steady",
            background=True)
    return lab


# ------------------------------------------------------------------------------------------------
# sampling and output


def cum_at(C, t):
    """Cumulative counter (bin edges, shape (NB+1, P)) at times t (K,) for all columns -> (K, P)."""
    NB = C.shape[0] - 1
    x = np.clip(np.asarray(t, float) / DT, 0, NB)
    b = np.minimum(x.astype(np.int64), NB - 1)
    fr = (x - b)[:, None]
    return C[b] + fr * (C[b + 1] - C[b])


def steps_at(events, t):
    ev = np.asarray(events, float)
    return np.searchsorted(ev, np.asarray(t, float), side="right")


def write(lab, outdir):
    sim = lab["sim"]
    T, rng = sim.topo, sim.rng
    S, N = T.S, T.N
    dur, NB = sim.dur, sim.NB
    os.makedirs(outdir, exist_ok=True)

    # sample schedules
    sw_times = {}
    for d in T.sw_devs:
        ph = rng.uniform(0, SW_PERIOD)
        n = int((dur - ph) // SW_PERIOD) + 1
        t = ph + SW_PERIOD * np.arange(n) + rng.uniform(0.02, 0.45, n)
        t = t[t <= dur]
        for dev, a, b in lab["absent"]:
            if dev == d:
                t = t[~((t > a) & (t <= b))]
        sw_times[d] = t
    flex_ph = {d: (rng.uniform(0, 1), rng.uniform(0, SW_PERIOD)) for d in T.sw_devs}
    nic_times = {}
    skew_node = pick(rng, T.nodes[:T.n_compute])
    for nd in T.nodes:
        n = int(dur // NIC_PERIOD) + 1
        t = NIC_PERIOD * np.arange(n) + rng.uniform(0.003, 0.09, n)
        if nd == skew_node:
            off = 1.2 + 2.4 * t / dur                   # chrony lost its source: drifting seconds ahead
        else:
            off = rng.normal(0, 0.004) + 0 * t
        keep = rng.random(n) > 0.001                    # a telegraf gather that timed out now and then
        stamp = t + off
        keep &= (stamp >= 0) & (t <= dur)
        nic_times[nd] = (t[keep], stamp[keep])

    # initial values (devices up for weeks/months)
    P, NNn = T.NS, T.NN

    def init_sw(f):
        if "OCTETS" in f:
            return (10 ** rng.uniform(14, 16.8, P))
        if "UCAST_PKTS" in f:
            return (10 ** rng.uniform(10.5, 13.2, P))
        if "PFC_3" in f:
            return (10 ** rng.uniform(3, 8, P))
        if "ECN_MARKED" in f:
            return (10 ** rng.uniform(6, 11, P))
        if "FEC_CORRECTABLE" in f or "SYMBOL" in f:
            return (10 ** rng.uniform(8, 11.5, P))
        if "NOT_CORRECTABLE" in f or "IN_ERRORS" in f:
            return np.where(rng.random(P) < 0.4, 0, rng.geometric(0.01, P)).astype(float)
        if "DISCARDS" in f or "DROPPED" in f:
            return np.where(rng.random(P) < 0.5, 0, rng.geometric(0.002, P)).astype(float)
        if "DEADLOCK" in f:
            return np.where(rng.random(P) < 0.85, 0, rng.integers(1, 4, P)).astype(float)
        return np.zeros(P)

    def init_nic(f):
        if "bytes" in f:
            return 10 ** rng.uniform(13.5, 15.6, NNn)     # telegraf floats: stay below 2**53
        if "packets" in f:
            return 10 ** rng.uniform(10.5, 12.7, NNn)
        if "pause" in f:
            return 10 ** rng.uniform(3, 7.5, NNn)
        if "ecn" in f or "out_of_sequence" in f:
            return 10 ** rng.uniform(6, 10.5, NNn)
        if "corrected_bits" in f:
            return 10 ** rng.uniform(8.5, 12, NNn)
        if f in ("rx_crc_errors_phy", "rx_discards_phy"):
            return np.where(rng.random(NNn) < 0.5, 0, rng.geometric(0.01, NNn)).astype(float)
        if f == "link_down_events_phy":
            return rng.integers(1, 6, NNn).astype(float)
        if f == "carrier_changes_total":
            return 2 * rng.integers(1, 6, NNn).astype(float)
        return np.zeros(NNn)

    # --- switch values per device: (K, ports, fields)
    sw_vals = {}
    flap_init = rng.integers(0, 4, P)
    for d in T.sw_devs:
        sw_vals[d] = np.zeros((len(sw_times[d]), len(T.dev_ports[d]), len(SW_COUNTERS) + 1), np.int64)
    dev_resets = {}
    for dev, tr, flds in lab["resets"]:
        dev_resets.setdefault(dev, []).append((tr, flds))
    for fi, f in enumerate(SW_COUNTERS):
        if f in lab["ev_sw"]:
            init = init_sw(f)
            for d in T.sw_devs:
                ports = T.dev_ports[d]
                t = sw_times[d]
                tp = flex_ph[d][0] + np.floor(t - flex_ph[d][0])
                V = np.zeros((len(t), len(ports)))
                for c, i in enumerate(ports):
                    evs = lab["ev_sw"][f].get(int(i), [])
                    V[:, c] = init[i] + steps_at(evs, tp)
                    for tr, flds in dev_resets.get(d, []):
                        if flds is None or f in flds:
                            base = init[i] + steps_at(evs, [tr])[0]
                            V[:, c] = np.where(t > tr, np.maximum(V[:, c] - base, 0), V[:, c])
                sw_vals[d][:, :, fi] = V.astype(np.int64)
            continue
        incr = np.rint(lab["inc"][f]).astype(np.int64)
        C = np.vstack([np.zeros((1, P), np.int64), np.cumsum(incr, axis=0)]).astype(float)
        C += init_sw(f)[None, :]
        for d in T.sw_devs:
            ports = T.dev_ports[d]
            t = sw_times[d]
            if f in QUEUE_FIELDS:     # queue counters refresh in COUNTERS_DB every 10 s
                ph = flex_ph[d][1]
                tq = ph + SW_PERIOD * np.floor((t - ph) / SW_PERIOD)
            else:                     # port counters every second
                ph = flex_ph[d][0]
                tq = ph + np.floor(t - ph)
            tq = np.clip(tq, 0, dur)
            V = cum_at(C[:, ports], tq)
            for tr, flds in dev_resets.get(d, []):
                if flds is None or f in flds:
                    base = cum_at(C[:, ports], [tr])[0]
                    V = np.where((t > tr)[:, None], np.maximum(V - base[None, :], 0), V)
            sw_vals[d][:, :, fi] = np.floor(V).astype(np.int64)
    # flap_count (APPL_DB, restarts at 0 after a reboot)
    for d in T.sw_devs:
        ports = T.dev_ports[d]
        t = sw_times[d]
        for c, i in enumerate(ports):
            evs = lab["ev_sw"]["flap_count"].get(int(i), [])
            v = flap_init[i] + steps_at(evs, t)
            for tr, flds in dev_resets.get(d, []):
                if flds is None:
                    base = flap_init[i] + steps_at(evs, [tr])[0]
                    v = np.where(t > tr, v - base, v)
            sw_vals[d][:, c, -1] = v

    def is_down(ivs, t):
        dmask = np.zeros(len(t), bool)
        for a, b in ivs:
            dmask |= (t >= a) & (t < b)
        return dmask

    def lldp_missing(ivs, t):
        mk = np.zeros(len(t), bool)
        for a, b in ivs:
            if b - a > 120:
                mk |= (t >= a + 130) & (t < b + 40)
        return mk

    # --- NIC values per node
    nic_vals = {}
    for nd in T.nodes:
        nic_vals[nd] = np.zeros((len(nic_times[nd][0]), len(T.node_nics[nd]), len(NIC_COUNTERS)))
    for fi, f in enumerate(NIC_COUNTERS):
        init = init_nic(f)
        if f in lab["ev_nic"]:
            for nd in T.nodes:
                t = nic_times[nd][0]
                for c, j in enumerate(T.node_nics[nd]):
                    nic_vals[nd][:, c, fi] = init[j] + steps_at(lab["ev_nic"][f].get(int(j), []), t)
            continue
        incr = np.rint(lab["ninc"][f]).astype(np.int64)
        C = np.vstack([np.zeros((1, NNn), np.int64), np.cumsum(incr, axis=0)]).astype(float) + init[None, :]
        for nd in T.nodes:
            js = T.node_nics[nd]
            nic_vals[nd][:, :, fi] = np.floor(cum_at(C[:, js], nic_times[nd][0]))

    # --- formatting
    dead = lab["dead"]
    peer_dead = int(S["peer"][dead])
    reboot_dev = lab["absent"][0][0]
    sw_tag_full, sw_tag_bare, sw_tmpl = {}, {}, {}
    for i in range(P):
        d = S["dev"][i]
        extra = f",rail={S['rail'][i]},role=rail" if d.startswith("c4-rail") else ",role=xr"
        sw_tag_full[i] = (f"port_counters,alias={S['alias'][i]},device={d},lldp_rem_port_id={S['rport'][i]},"
                          f"lldp_rem_sys_name={S['rsys'][i]},port={S['port'][i]}{extra} ")
        sw_tag_bare[i] = f"port_counters,alias={S['alias'][i]},device={d},port={S['port'][i]}{extra} "
        body = ",".join(f"{f}=%di" for f in SW_COUNTERS)
        body += ',admin_status="up",flap_count=%di,oper_status="%s",speed=%di'
        if S["dom"][i]:
            body += ",temperature=%s"
        sw_tmpl[i] = body + " %d\n"
    nic_tag_full, nic_tag_bare = {}, {}
    for j in range(NNn):
        i = int(N["sw"][j])
        tail = f"port={N['port'][j]},rack={N['rack'][j]},rail={N['rail'][j]},role={N['role'][j]} "
        nic_tag_full[j] = (f"port_counters,device={N['dev'][j]},ibdev={N['ibdev'][j]},"
                           f"lldp_rem_port_id={S['alias'][i]},lldp_rem_sys_name={S['dev'][i]},{tail}")
        nic_tag_bare[j] = f"port_counters,device={N['dev'][j]},ibdev={N['ibdev'][j]},{tail}"
    nic_names = ["carrier"] + NIC_COUNTERS[:2] + ["module_temperature_celsius"] + NIC_COUNTERS[2:10] + [
        "speed_bytes"] + NIC_COUNTERS[10:]
    assert nic_names == sorted(nic_names), nic_names
    nic_body = ",".join(f"{f}=%s" for f in nic_names) + " %d\n"

    # per-device precomputation of gauges
    blocks = []     # (stamp_ns, order, kind, dev, k)
    order = {d: o for o, d in enumerate(T.sw_devs + T.nodes)}
    sw_aux = {}
    for d in T.sw_devs:
        ports = T.dev_ports[d]
        t = sw_times[d]
        ph = rng.uniform(0, 60)
        tdom = np.clip(ph + 60 * np.floor((t - ph) / 60), 0, dur - 1)
        bdom = np.minimum((tdom // DT).astype(int), NB - 1)
        oper = np.zeros((len(t), len(ports)), bool)
        lmiss = np.zeros((len(t), len(ports)), bool)
        spd = np.zeros((len(t), len(ports)), np.int64)
        temp = lab["temp_sw"][bdom][:, ports] + rng.normal(0, 0.06, (len(t), len(ports)))
        bsmp = np.minimum((t // DT).astype(int), NB - 1)
        for c, i in enumerate(ports):
            ivs = lab["down"].get(int(i), [])
            oper[:, c] = ~is_down(ivs, t)
            lmiss[:, c] = lldp_missing(ivs, t)
            spd[:, c] = (lab["speed"][bsmp, i] * 1000).astype(np.int64)
            if int(i) == peer_dead:
                lmiss[:, c] |= t >= lab["reboot_t"] + 130
            if d == reboot_dev:
                lmiss[:, c] |= (t > lab["reboot_t"]) & (t < lab["link_up_t"][int(i)] + 35)
        sw_aux[d] = (oper, lmiss, spd, np.round(temp * 256) / 256)
        ns = (np.int64(T0_S) * 10 ** 9 + np.rint(t * 1e9).astype(np.int64))
        for k in range(len(t)):
            blocks.append((int(ns[k]), order[d], 0, d, k))
    nic_aux = {}
    for nd in T.nodes:
        t, stamp = nic_times[nd]
        js = T.node_nics[nd]
        bsmp = np.minimum((np.clip(t, 0, dur - 1e-6) // DT).astype(int), NB - 1)
        carrier = np.zeros((len(t), len(js)), bool)
        lmiss = np.zeros((len(t), len(js)), bool)
        for c, j in enumerate(js):
            ivs = lab["ndown"].get(int(j), [])
            carrier[:, c] = ~is_down(ivs, t)
            lmiss[:, c] = lldp_missing(ivs, t)
        spd = (lab["nic_cap"][bsmp][:, js] * 125_000_000).astype(np.int64)
        temp = lab["temp_n"][bsmp][:, js] + rng.normal(0, 0.1, (len(t), len(js)))
        nic_aux[nd] = (carrier, lmiss, spd, np.round(temp * 256) / 256)
        ns = np.int64(T0_S) * 10 ** 9 + np.rint(stamp * 1e9).astype(np.int64)
        for k in range(len(t)):
            blocks.append((int(ns[k]), order[nd], 1, nd, k))
    blocks.sort(key=lambda x: (x[0], x[1]))

    n_lines = 0
    path = os.path.join(outdir, "port_counters.lp")
    with open(path, "w", buffering=1 << 22) as fh:
        buf = []
        for tsn, _, kind, d, k in blocks:
            if kind == 0:
                ports = T.dev_ports[d]
                oper, lmiss, spd, temp = sw_aux[d]
                rows = sw_vals[d][k].tolist()
                for c, i in enumerate(ports):
                    r = rows[c]
                    tag = sw_tag_bare[i] if lmiss[k, c] else sw_tag_full[i]
                    vals = r[:-1] + [r[-1], "up" if oper[k, c] else "down", int(spd[k, c])]
                    if S["dom"][i]:
                        vals.append(repr(float(temp[k, c])))
                    vals.append(tsn)
                    buf.append(tag + sw_tmpl[i] % tuple(vals))
            else:
                js = T.node_nics[d]
                carrier, lmiss, spd, temp = nic_aux[d]
                rows = nic_vals[d][k].tolist()
                for c, j in enumerate(js):
                    r = ["%d" % v for v in rows[c]]
                    vals = ["1" if carrier[k, c] else "0"] + r[:2] + [repr(float(temp[k, c]))] + r[2:10] + [
                        "%d" % spd[k, c]] + r[10:] + [tsn]
                    tag = nic_tag_bare[j] if lmiss[k, c] else nic_tag_full[j]
                    buf.append(tag + nic_body % tuple(vals))
            if len(buf) > 20000:
                n_lines += len(buf)
                fh.write("".join(buf))
                buf = []
        n_lines += len(buf)
        fh.write("".join(buf))

    labels = {
        "scenario": "roce-rail-only-sonic", "scale": "small", "seed": sim.seed, "fabric": "roce",
        "interval_s": INTERVAL_S, "sample_s": SW_PERIOD, "nic_sample_s": NIC_PERIOD,
        "t0_ns": sim.ns(0), "t_end_ns": sim.ns(dur), "train_until_ns": sim.ns(sim.fit),
        "fit_first": f"{sim.fit // 60}m", "ports": T.NS + T.NN, "switch_ports": T.NS, "nic_ports": T.NN,
        "lines": n_lines,
        "faults": sorted(sim.faults, key=lambda f: (f["start_ns"], f["device"])),
        "healthy_phenomena": sorted(sim.healthy, key=lambda h: (h["start_ns"], h["kind"])),
    }
    for f in labels["faults"]:
        assert f["start_ns"] >= labels["train_until_ns"], f
    with open(os.path.join(outdir, "labels.json"), "w") as fh:
        json.dump(labels, fh, indent=1)
    return labels


def main(argv=None):
    ap = argparse.ArgumentParser(description="Labelled telemetry of a rail-only RoCE fabric on SONiC (see docstring).")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=DEFAULT_HOURS)
    a = ap.parse_args(argv)
    if a.hours < 2.0:
        ap.error("--hours must be at least 2")
    t0 = time.time()
    lab = build(a.seed, a.hours)
    labels = write(lab, a.outdir)
    print(f"roce-rail-only-sonic seed {a.seed}: {labels['ports']} ports, {a.hours:g} h, {labels['lines']:,} lines, "
          f"{len(labels['faults'])} faults, {len(labels['healthy_phenomena'])} healthy phenomena, "
          f"fit-first {labels['fit_first']} ({time.time() - t0:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
