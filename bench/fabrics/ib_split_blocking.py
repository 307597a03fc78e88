#!/usr/bin/env python3
"""ORION-2 training fabric -- NOC data sheet (InfiniBand NDR, 2:1 blocking, split-port pod).

    python ib_split_blocking.py OUTDIR [--seed N] [--hours H]     (defaults: seed 1, 4 h)

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement `port_counters`, raw cumulative
counters exactly as the two collectors store them) and OUTDIR/labels.json (faults and healthy
phenomena, the form /work/shared/scenarios/score.py reads). Standard library + numpy, deterministic
per seed (same seed -> byte-identical files).

FABRIC
  Two-level fat tree, NVIDIA Quantum-2 (QM9700, 64 NDR ports each), adaptive routing (AR) on,
  SHARPv3 enabled for one tenant. 10 leaves, 8 spines, every leaf has 16 uplinks (ports 49-64),
  two to each spine (uplink 49+2s+l goes to spine sp-0<s+1>, spine port 2L+l+1 faces leaf L in the
  order lf-a01..a04, lf-b01..b04, lf-s01, lf-s02). Leaves are rack leaves (one leaf per 4 hosts,
  all 8 rails of a host on the same leaf), so everything a job sends to another rack crosses the
  spines. Blocking is 2:1 at the compute leaves: 32 host-facing ports against 16 uplinks.
    pod A  lf-a01..lf-a04  4 x DGX H100 (dgx-a01..dgx-a16), full NDR 400G (4x) host ports "1".."32"
           (port 8k+r+1 = host k of the rack, HCA mlx5_<r>). Bandwidth 12.8T down : 6.4T up.
    pod B  lf-b01..lf-b04  4 x HGX H100 with NDR200 HCAs (hgx-b01..hgx-b16). Split ports: 16
           NDR ports split in two, each half a 2-lane 200G port to one host: "5.1" and "5.2" (the
           form UFM and our inventory use for split ports). Cage c (1..16) serves rail (c-1)%8 of two
           neighbouring hosts (half .1 the first, .2 the second). link_width_active is 2 on every
           split port by design. Uplinks are full NDR: 2:1 in ports, 6.4T : 6.4T in bandwidth.
    storage lf-s01, lf-s02: ports 1..32 take the two storage HCAs of every host (mlx5_8 on lf-s01,
           mlx5_9 on lf-s02, host order dgx-a01..a16, hgx-b01..b16), ports 33..40 the four storage
           servers stor-01..04 (ib0..ib3, no host collector on them), uplinks 49..64 as everywhere.
    spines sp-01..sp-08, ports "1".."20" used.
  Hosts: 10 HCAs each, mlx5_0..mlx5_7 compute (one per GPU rail), mlx5_8/mlx5_9 storage (NDR 400G).
  GUIDs: switch node_guid 0xfc6a1c0300e4a000 + 0x100 * (switch index, leaves first).

COLLECTORS AND NAMING (both land in measurement `port_counters`)
  UFM Telemetry (switch ports): Prometheus endpoint scraped by Telegraf every 30 s, timestamps on the
  30 s grid. Tags: device (switch name), port (port number or split name), node_guid, tier
  (leaf|spine), peer_node_name, peer_port_dname (from the UFM topology export: the far end's
  device and port exactly as that end's own series is tagged; a storage server for ports 33-40),
  source=ufm_telemetry. Fields, integers unless noted:
    port_xmit_data, port_rcv_data         64-bit, in 4-octet WORDS (IB PMA units: x4 for bytes)
    port_xmit_pkts, port_rcv_pkts          64-bit
    port_xmit_wait                         64-bit extended counter, ticks with data queued and no credits
    symbol_error_counter 16b, link_error_recovery_counter 8b, link_downed_counter 8b,
    port_rcv_errors 16b, port_rcv_remote_physical_errors 16b, port_rcv_switch_relay_errors 16b,
    port_xmit_discards 16b, excessive_buffer_overrun_errors 4b, local_link_integrity_errors 4b,
    vl15_dropped 16b -- classic PortCounters widths: they stick at 2^bits-1 until cleared.
    phy_raw_errors (pre-FEC bits corrected, all lanes), phy_effective_errors (post-FEC bits), 64-bit,
      PPCNT physical-layer counters: NOT cleared by perfquery, only by a switch reboot.
    raw_ber, effective_ber                 floats (UFM's pre-/post-FEC BER over the last window)
    link_width_active (lanes: 4, or 2 on split ports), link_speed_active (Gb/s per lane, 100 = NDR),
    logical_state (1 Down, 2 Init, 3 Armed, 4 Active), physical_state (2 Polling, 3 Disabled, 5 LinkUp)
  node_exporter infiniband collector (host HCAs): scraped by Prometheus every 15 s, each host at its
  own fixed offset inside the 15 s (timestamps in ms, not on the grid); remote-written into the
  same measurement with the `node_infiniband_` prefix stripped. Tags: device (host name), port
  (HCA, mlx5_N), hca_port=1, tier=host, peer_node_name, peer_port_dname (the leaf port),
  source=node_exporter. Fields: port_data_transmitted_bytes_total, port_data_received_bytes_total
  (BYTES, the collector multiplies by 4), port_packets_transmitted_total,
  port_packets_received_total, port_transmit_wait_total (sysfs reads the 32-bit PortXmitWait: it
  sits at 4294967295 on busy HCAs), symbol_error_total, link_error_recovery_total,
  link_downed_total, port_errors_received_total, port_receive_remote_physical_errors_total,
  port_receive_switch_relay_errors_total, port_discards_transmitted_total,
  excessive_buffer_overrun_errors_total, local_link_integrity_errors_total, vl15_dropped_total
  (same widths as above), rate_bytes_per_second (5e10 at 400G, 2.5e10 at 200G; a down port reads
  1.25e9), state_id, physical_state_id (same codes as the switch side). No PHY counters on hosts.

WHAT NORMAL LOOKS LIKE
  * pod A runs an MoE job (3 racks, 12 DGX): data-parallel steps at ~30 % of line rate, and every
    7-13 min an expert all-to-all of 1.5-3.5 min that asks ~1.3x what the 2:1 uplinks can carry:
    every uplink of those leaves and every spine port facing them runs full with port_xmit_wait
    up two to three orders of magnitude, at once; the DGX HCAs wait for credits too, and the
    spines' shared buffers lift the waits on every other uplink of the fabric as well. The job
    stops at ~118 min and restarts at ~141 min (pod A is idle in between).
  * pod B runs an LLM job with SHARP: its all-reduce terminates in the switches, so its host ports
    carry ~50 % of NDR200 while the pod B uplinks and the spines see about an eighth of that.
  * the fourth pod A rack runs short evaluation / fine-tuning jobs (starts, stops, model loading
    from storage).
  * checkpoints: both jobs write to storage for ~3.5 min now and then; the storage server ports
    run full and the storage HCAs and leaf ports wait for credits (incast); compute traffic pauses.
  * AR keeps the 16 uplinks of a leaf within a few per cent of each other. Credit waits are
    heavy-tailed on every switch port under load. A few links show a symbol error now and then
    (1-6 an hour). A handful of switch ports count port_rcv_switch_relay_errors steadily (known,
    benign firmware behaviour; vendor case closed "expected, no action"); one of them may stick at
    65535.
  * many DGX HCAs show port_transmit_wait_total stuck at 4294967295 (32-bit sysfs counter).

PLANNED WORK (all within the record)
  * ~108 min: firmware update of one eval host (reboot): its 10 HCA ports go down for ~3 min, the
    host is not scraped for ~5 min, its HCA counters restart from zero.
  * ~147-170 min: maintenance of the eval rack's leaf: jobs drained, leaf rebooted at ~152 min,
    unreachable ~3 min, every counter of it restarts from zero, its links bounce once.
  * ~196 min: an operator clears the counters fabric-wide (perfquery -x -R over every LID, ~2 min
    from the first switch to the last HCA): data, packet, error and wait counters of switches and
    HCAs drop to zero; phy_* counters are not touched.

FAULTS (9-11 per seed, on ports and devices drawn by the seed, all after the fit window)
  width_degraded        a full NDR link retrained at 2x: link_width_active 4 -> 2 at both ends,
                        capacity halves, credit waits climb, no error counter moves
  symbol_errors_saturating  a leaf-spine cable: symbol errors rise until the 16-bit counter
                        sticks at 65535, BER and rcv errors up, a little at the far end
  flapping_link         a leaf-spine link goes down/up in bursts (link_downed, link_error_recovery,
                        symbol errors at link-up, traffic moved to the siblings by AR)
  hca_stomping          an HCA sends packets it stomped: port_rcv_remote_physical_errors on its
                        leaf port, a trickle on the spine ports they are forwarded to (related)
  credit_loop_spine     one spine: port_xmit_wait on every port while its throughput falls
                        (the leaf uplinks facing it wait too: related)
  hoq_discards          port_xmit_discards on one uplink (head-of-queue lifetime) under ordinary
                        load while its 15 siblings have none
  split_cage_failing    both halves of one split port (N.1 and N.2, two hosts) with symbol errors,
                        BER and link error recoveries together: one fault, both ports
  uplink_left_down      after the leaf maintenance one uplink stays Disabled (physical_state 3)
                        while its spine end is enabled and Polling
  ber_degradation       raw BER of one receiver rises over about an hour before post-FEC errors
                        and symbol errors appear
  link_error_recovery_bursts  bursts of link error recoveries (no down) on one link
  (sometimes a second flapping or symbol-error link on a host cable; sometimes no HoQ or LER one)

LABELS (labels.json, the form score.py reads)
  interval_s 30 (the UFM sample; host series come every 15 s off-grid), t0_ns, t_end_ns,
  train_until_ns / fit_first (the first ~29 %: 70m of 4 h, no fault in it, every routine phenomenon
  but the planned work in it), ports = all series (656 switch ports + 320 HCAs). A fault names the
  device and port tags of the port where it shows (["*"] for the spine-wide one, both split halves
  for the cage), peer_ends the far end of the same cable (a switch port or an HCA series), related
  the ports that carry its knock-on effects (spine ports reached by stomped packets, leaf uplinks
  facing the looping spine, the siblings of a narrowed uplink). Starts are on 30 s boundaries at the
  first symptom or at the change (the BER ramp starts long before any counter moves).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

T0 = 1750132800              # 2025-06-17T04:00:00Z
DT = 15                      # simulation step = node_exporter scrape interval (s)
SS = 30                      # UFM Telemetry scrape interval (s)
NDR = 50e9                   # bytes/s of a 4x NDR port
TICK_HZ = 2.5e8              # PortXmitWait ticks per second
SCENARIO = "ib-split-blocking"

SW_CNT = [  # (field, bits or 0 for 64-bit, cleared by perfquery)
    ("port_xmit_data", 0, True), ("port_rcv_data", 0, True), ("port_xmit_pkts", 0, True),
    ("port_rcv_pkts", 0, True), ("port_xmit_wait", 0, True), ("symbol_error_counter", 16, True),
    ("link_error_recovery_counter", 8, True), ("link_downed_counter", 8, True),
    ("port_rcv_errors", 16, True), ("port_rcv_remote_physical_errors", 16, True),
    ("port_rcv_switch_relay_errors", 16, True), ("port_xmit_discards", 16, True),
    ("excessive_buffer_overrun_errors", 4, True), ("local_link_integrity_errors", 4, True),
    ("vl15_dropped", 16, True), ("phy_raw_errors", 0, False), ("phy_effective_errors", 0, False),
]
SW_GAUGE = ["link_width_active", "link_speed_active", "logical_state", "physical_state"]
H_CNT = [
    ("port_data_transmitted_bytes_total", 0), ("port_data_received_bytes_total", 0),
    ("port_packets_transmitted_total", 0), ("port_packets_received_total", 0),
    ("port_transmit_wait_total", 32), ("symbol_error_total", 16), ("link_error_recovery_total", 8),
    ("link_downed_total", 8), ("port_errors_received_total", 16),
    ("port_receive_remote_physical_errors_total", 16), ("port_receive_switch_relay_errors_total", 16),
    ("port_discards_transmitted_total", 16), ("excessive_buffer_overrun_errors_total", 4),
    ("local_link_integrity_errors_total", 4), ("vl15_dropped_total", 16),
]
H_GAUGE = ["rate_bytes_per_second", "state_id", "physical_state_id"]
# internal short names for the increments, in the order of SW_CNT / H_CNT
SW_KEYS = ["xd", "rd", "xp", "rp", "xw", "sym", "ler", "ldn", "rce", "rpe", "rly", "xdc", "ebo", "lli",
           "vl15", "praw", "peff"]
H_KEYS = ["xd", "rd", "xp", "rp", "xw", "sym", "ler", "ldn", "rce", "rpe", "rly", "xdc", "ebo", "lli", "vl15"]


# --------------------------------------------------------------------------------------------
# topology

def topology():
    hosts = [f"dgx-a{i + 1:02d}" for i in range(16)] + [f"hgx-b{i + 1:02d}" for i in range(16)]
    hp = []
    for h, name in enumerate(hosts):
        for r in range(10):
            split = r < 8 and h >= 16
            hp.append(dict(dev=name, port=f"mlx5_{r}", host=h, rail=r, width=2 if split else 4,
                           cap=NDR / 2 if split else NDR, peer_dev="", peer_port="", psw=-1))
    sw = []
    leaves, spines = [], []

    def add(**kw):
        d = dict(leaf=-1, spine=-1, psw=-1, ph=-1, width=4, cap=NDR, cage=0, peer_dev="", peer_port="")
        d.update(kw)
        sw.append(d)
        return len(sw) - 1

    def link_h(i, j):
        sw[i]["ph"], hp[j]["psw"] = j, i
        sw[i]["peer_dev"], sw[i]["peer_port"] = hp[j]["dev"], hp[j]["port"]
        hp[j]["peer_dev"], hp[j]["peer_port"] = sw[i]["dev"], sw[i]["port"]

    names = [(f"lf-a{i + 1:02d}", "a") for i in range(4)] + [(f"lf-b{i + 1:02d}", "b") for i in range(4)] \
        + [("lf-s01", "s"), ("lf-s02", "s")]
    for L, (name, pod) in enumerate(names):
        guid = f"0x{0xfc6a1c0300e4a000 + 0x100 * L:016x}"
        lv = dict(name=name, pod=pod, dn=[], up=[], srv=[], hosts=[], guid=guid)
        if pod == "a":
            for k in range(4):
                h = 4 * L + k
                lv["hosts"].append(h)
                for r in range(8):
                    i = add(dev=name, port=str(8 * k + r + 1), guid=guid, tier="leaf", role="host", leaf=L)
                    link_h(i, 10 * h + r)
                    lv["dn"].append(i)
        elif pod == "b":
            base = 16 + 4 * (L - 4)
            lv["hosts"] = list(range(base, base + 4))
            for c in range(1, 17):
                r, pair = (c - 1) % 8, (c - 1) // 8
                for half in (1, 2):
                    h = base + 2 * pair + half - 1
                    i = add(dev=name, port=f"{c}.{half}", guid=guid, tier="leaf", role="host", leaf=L,
                            width=2, cap=NDR / 2, cage=c)
                    link_h(i, 10 * h + r)
                    lv["dn"].append(i)
        else:
            x = L - 8
            for h in range(32):
                i = add(dev=name, port=str(h + 1), guid=guid, tier="leaf", role="host", leaf=L)
                link_h(i, 10 * h + 8 + x)
                lv["dn"].append(i)
            for j in range(4):
                for q in range(2):
                    i = add(dev=name, port=str(33 + 2 * j + q), guid=guid, tier="leaf", role="stor", leaf=L,
                            peer_dev=f"stor-{j + 1:02d}", peer_port=f"ib{2 * x + q}")
                    lv["srv"].append(i)
        for u in range(16):
            lv["up"].append(add(dev=name, port=str(49 + u), guid=guid, tier="leaf", role="up", leaf=L,
                                spine=u // 2))
        leaves.append(lv)
    for s in range(8):
        name = f"sp-{s + 1:02d}"
        guid = f"0x{0xfc6a1c0300e4a000 + 0x100 * (10 + s):016x}"
        sp = dict(name=name, ports=[], guid=guid)
        for L in range(len(leaves)):
            for l in range(2):
                i = add(dev=name, port=str(2 * L + l + 1), guid=guid, tier="spine", role="spine", leaf=L, spine=s)
                u = leaves[L]["up"][2 * s + l]
                sw[i]["psw"], sw[u]["psw"] = u, i
                sw[i]["peer_dev"], sw[i]["peer_port"] = sw[u]["dev"], sw[u]["port"]
                sw[u]["peer_dev"], sw[u]["peer_port"] = name, sw[i]["port"]
                sp["ports"].append(i)
        spines.append(sp)
    return hosts, hp, sw, leaves, spines


# --------------------------------------------------------------------------------------------

class Gen:
    def __init__(self, seed, hours):
        self.seed = seed
        self.rng = np.random.default_rng([seed, 0x1B5B])
        self.k = hours / 4.0
        self.N = max(120, int(round(hours * 3600 / SS)))   # switch intervals
        self.M = 2 * self.N                                # 15 s steps
        self.dur = self.N * SS
        self.t = np.arange(self.M + 1, dtype=float) * DT   # end of each step
        self.train = int(round(self.dur * 70 / 240 / 60)) * 60
        self.hosts, self.hp, self.sw, self.leaves, self.spines = topology()
        self.PS, self.PH = len(self.sw), len(self.hp)
        self.devs = sorted({p["dev"] for p in self.sw}, key=lambda d: (d[:4] == "sp-0", d))
        self.dev_idx = {d: i for i, d in enumerate(self.devs)}
        self.sw_dev = np.array([self.dev_idx[p["dev"]] for p in self.sw])
        self.sw_idx = {(p["dev"], p["port"]): i for i, p in enumerate(self.sw)}
        self.h_idx = {(p["dev"], p["port"]): i for i, p in enumerate(self.hp)}
        self.faults, self.healthy = [], []
        M1, PS, PH = self.M + 1, self.PS, self.PH
        self.isw = {k: np.zeros((M1, PS)) for k in SW_KEYS}
        self.ih = {k: np.zeros((M1, PH)) for k in H_KEYS}
        self.sw_down = {}         # port -> [(a, b, phys)]
        self.h_down = {}
        self.wf_sw = np.ones((M1, PS))   # width factor (1 = as built, 0.5 = degraded 4x -> 2x)
        self.wf_h = np.ones((M1, PH))
        self.arf = np.ones((M1, PS))     # AR weight factor on uplinks
        self.bx_sw = np.zeros((M1, PS))  # extra blocked fraction (credit waits)
        self.bx_h = np.zeros((M1, PH))
        self.ber_sw = np.zeros((M1, PS))
        self.sw_absent = []       # (ports, a, b): no UFM sample with a < t <= b
        self.h_absent = []        # (host, a, b)
        self.sw_resets = []       # (port, t, all_fields)
        self.h_resets = []        # (hca, t)
        self.used = set()         # link keys (leaf-side switch port index) taken by faults

    # ---- time helpers
    def tm(self, x):
        """minute x of the default 4 h timeline -> seconds on a 30 s boundary"""
        return int(round(x * 60 * self.k / 30)) * 30

    def frac(self, a, b):
        t = self.t
        f = np.clip((np.minimum(t, b) - np.maximum(t - DT, a)) / DT, 0.0, 1.0)
        f[0] = 0.0
        return f

    def ns(self, s):
        return int((T0 + s) * 10**9)

    def step_of(self, s):
        return int(np.ceil(s / DT - 1e-9))

    # ---- names and labels
    def sname(self, i):
        return f"{self.sw[i]['dev']}:{self.sw[i]['port']}"

    def hname(self, j):
        return f"{self.hp[j]['dev']}:{self.hp[j]['port']}"

    def end_of(self, i):
        p = self.sw[i]
        if p["psw"] >= 0:
            return ("s", p["psw"])
        if p["ph"] >= 0:
            return ("h", p["ph"])
        return None

    def ref(self, e):
        kind, i = e
        d = self.sw[i] if kind == "s" else self.hp[i]
        return {"device": d["dev"], "port": d["port"]}

    def fault(self, kind, i, ports, a, b, signature, peer_ends=(), related=()):
        a = max(int(np.ceil(a / SS)) * SS, self.train + SS)
        b = min(max(int(np.ceil(b / SS)) * SS, a + 4 * SS), self.dur)
        assert a >= self.train + SS and b > a, (kind, a, b, self.train)
        self.faults.append({
            "kind": kind, "device": self.sw[i]["dev"], "ports": list(ports),
            "start_ns": self.ns(a), "end_ns": self.ns(b),
            "peer_ends": [self.ref(e) for e in peer_ends],
            "related": list(related), "signature": signature})
        return a, b

    def healthy_event(self, kind, where, a, b, note, background=False):
        ev = {"kind": kind, "where": list(where), "start_ns": self.ns(max(0, a)),
              "end_ns": self.ns(min(b, self.dur)), "note": note}
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    # ---- link state
    def down(self, e, a, b, phys=2):
        kind, i = e
        (self.sw_down if kind == "s" else self.h_down).setdefault(i, []).append((a, b, phys))

    def link_down(self, i, a, b, phys_here=2, phys_far=2):
        self.down(("s", i), a, b, phys_here)
        e = self.end_of(i)
        if e is not None:
            self.down(e, a, b, phys_far)

    def down_arrays(self, lists, P):
        M1 = self.M + 1
        df, edn, eup = np.zeros((M1, P)), np.zeros((M1, P)), np.zeros((M1, P))
        for i, ivs in lists.items():
            for a, b, _ in ivs:
                df[:, i] += self.frac(a, b)
                ka, kb = self.step_of(a), self.step_of(b)
                if 1 <= ka <= self.M:
                    edn[ka, i] += 1
                if 1 <= kb <= self.M and b < self.dur:
                    eup[kb, i] += 1
        return np.clip(df, 0, 1), edn, eup

    def states(self, lists, i, times):
        lg = np.full(len(times), 4, dtype=np.int64)
        ph = np.full(len(times), 5, dtype=np.int64)
        for a, b, phys in lists.get(i, []):
            m = (times >= a) & (times < b)
            lg[m], ph[m] = 1, phys
            m2 = (times >= b) & (times < b + 8) & ~m
            lg[m2] = 2
        return lg, ph

    # --------------------------------------------------------------------------------------------
    # workload

    def build_workload(self):
        rng, M1, PH = self.rng, self.M + 1, self.PH
        tm, frac = self.tm, self.frac
        self.txl, self.txc = np.zeros((M1, PH)), np.zeros((M1, PH))
        self.rxl, self.rxc = np.zeros((M1, PH)), np.zeros((M1, PH))
        self.hot = np.zeros((M1, PH))        # transient hot receivers (a2a): extra egress pressure on leaf ports
        self.a2a = np.zeros(M1)
        bg = rng.uniform(0.001, 0.004, PH)[None, :] * rng.lognormal(0, 0.3, (M1, PH))
        self.txl += 0.5 * bg
        self.txc += 0.5 * bg
        bgr = bg * rng.lognormal(0, 0.2, (M1, PH))
        self.rxl += 0.5 * bgr
        self.rxc += 0.5 * bgr
        hmul = rng.normal(1.0, 0.03, PH)

        def comp(h):
            return [10 * h + r for r in range(8)]

        def stor(h):
            return [10 * h + 8, 10 * h + 9]

        def add(ports, u, cf, rx_ratio=1.0, rxu=None):
            ports = list(ports)
            n = len(ports)
            x = u[:, None] * hmul[ports][None, :] * rng.lognormal(0, 0.03, (M1, n))
            y = (u if rxu is None else rxu)[:, None] * hmul[ports][None, :] * rng.lognormal(0, 0.03, (M1, n)) * rx_ratio
            c = cf if np.ndim(cf) == 0 else cf[:, None]
            self.txl[:, ports] += x * (1 - c)
            self.txc[:, ports] += x * c
            self.rxl[:, ports] += y * (1 - c)
            self.rxc[:, ports] += y * c

        # pod A: leaves of the MoE job and the eval rack (drawn by seed)
        order = [int(x) for x in rng.permutation(4)]
        self.LE = order[3]
        self.moe_leaves = sorted(order[:3])
        self.moe_hosts = [4 * L + q for L in self.moe_leaves for q in range(4)]
        self.eval_hosts = [4 * self.LE + q for q in range(4)]
        self.sharp_hosts = list(range(16, 32))
        self.sharp_leaves = [4, 5, 6, 7]
        dur = self.dur

        # ---- MoE job on pod A
        runs = [(0, tm(118)), (tm(141), dur)]
        base = np.zeros(M1)
        for a, b in runs:
            f = frac(a, b)
            w = frac(a, a + 90) if a > 0 else 0
            base += 0.32 * f * rng.lognormal(0, 0.06, M1) * (1 - 0.8 * w)
        phases = []
        for a, b in runs:
            tt = a + (240 if a == 0 else 420) + rng.uniform(0, 120)
            while True:
                L = rng.uniform(90, 210)
                if tt + L > b - 60:
                    break
                phases.append((tt, tt + L))
                tt += rng.uniform(7 * 60, 13 * 60)
        fa = np.zeros(M1)
        for a, b in phases:
            fa += frac(a, b)
        fa = np.clip(fa, 0, 1)
        self.a2a = fa
        self.moe_phases = phases
        ck_moe = [tm(62), tm(188)]
        ckf = np.zeros(M1)
        for c in ck_moe:
            ckf += frac(c, c + 210)
        ckf = np.clip(ckf, 0, 1)
        on = (base > 0.05).astype(float)
        dp = base * (1 - fa)
        aa = 0.88 * fa * on * rng.lognormal(0, 0.04, M1)
        u = (dp + aa) * (1 - ckf) + 0.02 * ckf * on
        cross = (0.6 * dp + 0.73 * aa) * (1 - ckf) + 0.3 * 0.02 * ckf * on
        cf = np.where(u > 1e-4, np.clip(cross / np.maximum(u, 1e-9), 0, 0.9), 0.6)
        for h in self.moe_hosts:
            add(comp(h), u, cf)
            self.hot[:, comp(h)] += fa[:, None] * rng.lognormal(-3.0, 0.9, (M1, 8))
        run_on = sum(frac(a, b) for a, b in runs)
        for h in self.moe_hosts:
            add(stor(h), 0.75 * ckf * rng.lognormal(0, 0.05, M1), 0.0,
                rxu=0.025 * run_on * rng.lognormal(0, 0.3, M1))
        self.moe_ck = ck_moe

        # ---- SHARP job on pod B (whole run)
        sf = np.ones(M1)
        sf[0] = 0
        pauses = [(tm(45), tm(45) + 180), (tm(172), tm(172) + 180)]
        ck_sh = [tm(30), tm(95), tm(160), tm(225)]
        pf = sum(frac(a, b) for a, b in pauses)
        ckb = np.clip(sum(frac(c, c + 210) for c in ck_sh if c + 210 <= dur), 0, 1)
        us = 0.5 * sf * rng.lognormal(0, 0.05, M1)
        us = us * (1 - pf) + 0.015 * pf
        us = us * (1 - ckb) + 0.03 * ckb
        for h in self.sharp_hosts:
            add(comp(h), us, 0.125)
            add(stor(h), 0.75 * ckb * rng.lognormal(0, 0.05, M1), 0.0, rxu=0.02 * sf * rng.lognormal(0, 0.3, M1))
        self.sharp_pauses, self.sharp_ck = pauses, [c for c in ck_sh if c + 210 <= dur]

        # ---- eval rack
        E = self.eval_hosts
        self.fw_host = E[3]
        ej = [("eval-1", E[:2], tm(5), tm(32), 0.18), ("eval-2", E, tm(38), tm(96), 0.25),
              ("ft-small", E[:3], tm(101), tm(147), 0.30), ("eval-3", E, tm(170), tm(232), 0.22)]
        self.eval_jobs = ej
        for name, hs, a, b, lvl in ej:
            f = frac(a, b)
            for h in hs:
                add(comp(h), lvl * f * rng.lognormal(0, 0.08, M1), 0.03)
                add(stor(h), 0.01 * f, 0.0, rxu=0.45 * frac(a, a + 120) + 0.01 * f)

    # --------------------------------------------------------------------------------------------
    # planned events

    def planned(self):
        rng, tm = self.rng, self.tm
        LE = self.LE
        lv = self.leaves[LE]
        # node firmware update on an idle eval host
        h = self.fw_host
        ta = tm(108) + rng.uniform(0, 20)
        tb = ta + rng.uniform(150, 210)
        hcas = list(range(10 * h, 10 * h + 10))
        for j in hcas:
            i = self.hp[j]["psw"]
            self.link_down(i, ta + rng.uniform(1, 5), tb + rng.uniform(0, 10))
            self.h_resets.append((j, tb))
        self.h_absent.append((h, ta - 20, tb + rng.uniform(40, 70)))
        self.fw = (h, ta, tb)
        leafports = [self.sname(self.hp[j]["psw"]) for j in hcas]
        self.healthy_event("node_firmware_update", [f"{self.hosts[h]}:*"] + leafports, ta - 60, tb + 240,
                           f"{self.hosts[h]} reboots for an HCA/BIOS firmware update: its 10 HCA links go down "
                           "~3 min (link_downed +1 both ends), the host is not scraped ~5 min and its HCA counters "
                           "restart from zero")
        # leaf maintenance: drain, reboot, one uplink left disabled (a fault, labelled in faults())
        ra = tm(152) + rng.uniform(0, 30)
        rb = ra + rng.uniform(170, 200)
        self.maint = (ra, rb)
        ports = lv["dn"] + lv["up"]
        self.left_down = lv["up"][int(rng.integers(16))]
        self.fix_t = min(self.dur + 60, rb + self.tm(rng.uniform(45, 70)))
        ups = {}
        for i in ports:
            a = ra + rng.uniform(0, 2)
            if i == self.left_down:
                self.link_down(i, a, self.fix_t, phys_here=3, phys_far=2)
            else:
                b = rb + rng.uniform(5, 40)
                ups[i] = b
                self.link_down(i, a, b)
            self.sw_resets.append((i, rb, True))
        self.sw_absent.append((np.array(ports), ra, rb + 20))
        self.maint_up = max(ups.values())
        where = [f"{lv['name']}:*"] + [self.sname(self.sw[i]["psw"]) for i in lv["up"]] \
            + [f"{self.hosts[q]}:*" for q in lv["hosts"]]
        self.healthy_event("leaf_maintenance_reboot", where, ra - 60, self.maint_up + 180,
                           f"planned: {lv['name']} rebooted in a drain window: no samples ~3 min, every counter "
                           "of it restarts from zero, all its links bounce once (link_downed +1 at the far ends)")
        self.healthy_event("maintenance_drain", [f"{lv['name']}:*"] + [f"{self.hosts[q]}:*" for q in lv["hosts"]],
                           tm(147), tm(170) + 300, "eval rack drained before the leaf maintenance, jobs restart after")
        # fabric-wide counter clear (perfquery -x -R over every LID)
        tr = tm(196) + rng.uniform(0, 60)
        span = rng.uniform(90, 130)
        self.clear = (tr, tr + span)
        for d in self.devs:
            td = tr + rng.uniform(0, span * 0.7)
            for i in np.where(self.sw_dev == self.dev_idx[d])[0]:
                self.sw_resets.append((int(i), td, False))
        for j in range(self.PH):
            self.h_resets.append((j, tr + rng.uniform(0, span)))
        self.healthy_event("counter_reset", ["*"], tr, tr + span + 60,
                           "operator clears PortCounters fabric-wide (perfquery -x -R on every LID, ~2 min from first "
                           "to last): data, packet, error and wait counters of switches and HCAs drop to zero; "
                           "phy_raw_errors/phy_effective_errors keep counting")

    # --------------------------------------------------------------------------------------------
    # faults: choose, apply structural parts before the traffic, error parts after

    def pick(self, pool):
        cand = [int(i) for i in pool if int(i) not in self.used]
        i = cand[int(self.rng.integers(len(cand)))]
        self.used.add(i)
        return i

    def plan_faults(self):
        rng, tm = self.rng, self.tm
        F = 70
        lvs = self.leaves
        not_le = [L for L in range(10) if L != self.LE]
        self.loop_spine = int(rng.integers(8))
        ups = [i for L in not_le for i in lvs[L]["up"] if self.sw[i]["spine"] != self.loop_spine]
        busy_ups = [i for L in self.moe_leaves + self.sharp_leaves for i in lvs[L]["up"]
                    if self.sw[i]["spine"] != self.loop_spine]
        hostA = [i for L in self.moe_leaves for i in lvs[L]["dn"]]
        hostB = [i for L in self.sharp_leaves for i in lvs[L]["dn"]]
        # exclude the fw-update host's storage ports and the eval rack everywhere
        kinds = ["width_degraded", "symbol_errors_saturating", "flapping_link", "hca_stomping",
                 "credit_loop_spine", "hoq_discards", "split_cage_failing", "uplink_left_down",
                 "ber_degradation", "link_error_recovery_bursts"]
        r = rng.random()
        if r < 1 / 3:
            kinds.remove(["hoq_discards", "link_error_recovery_bursts"][int(rng.integers(2))])
        elif r >= 2 / 3:
            kinds.append(["flapping_host_link", "cable_symbol_errors"][int(rng.integers(2))])
        self.kinds = kinds
        W = lambda lo, hi: rng.uniform(lo, hi)
        spec = {}
        if "width_degraded" in kinds:
            i = self.pick(ups if rng.random() < 0.6 else hostA)
            s = W(F + 5, 170)
            spec["width_degraded"] = dict(i=i, a=tm(s), b=min(self.dur, tm(s + W(50, 120))))
        i = self.pick(ups)
        s = W(F + 3, 120)
        spec["symbol_errors_saturating"] = dict(i=i, a=tm(s), b=self.dur if rng.random() < 0.6 else tm(s + W(100, 118)))
        i = self.pick(ups)
        s = W(F + 3, 200)
        spec["flapping_link"] = dict(i=i, a=tm(s), b=tm(s + W(15, 30)))
        i = self.pick(hostA + hostB)
        s = W(F + 3, 190)
        spec["hca_stomping"] = dict(i=i, a=tm(s), b=tm(s + W(30, 50)))
        s = W(F + 5, 215)
        spec["credit_loop_spine"] = dict(s=self.loop_spine, a=tm(s), b=tm(s + W(8, 20)))
        if "hoq_discards" in kinds:
            i = self.pick(busy_ups)
            s = W(F + 3, 200)
            spec["hoq_discards"] = dict(i=i, a=tm(s), b=min(self.dur, tm(s + W(30, 90))))
        cages = sorted({(self.sw[i]["leaf"], self.sw[i]["cage"]) for i in hostB})
        while True:
            L, c = cages[int(rng.integers(len(cages)))]
            pr = [i for i in lvs[L]["dn"] if self.sw[i]["cage"] == c]
            if not any(i in self.used for i in pr):
                break
        self.used.update(pr)
        s = W(F + 3, 195)
        spec["split_cage_failing"] = dict(ports=pr, a=tm(s), b=min(self.dur, tm(s + W(30, 80))))
        self.used.add(self.left_down)
        i = self.pick(ups + hostA)
        s = W(F + 3, 145)
        ramp = W(55, 75)
        spec["ber_degradation"] = dict(i=i, a=tm(s), ramp=tm(ramp), b=min(self.dur, tm(s + ramp + W(15, 30))),
                                       far=bool(self.sw[i]["role"] == "up" and rng.random() < 0.5))
        if "link_error_recovery_bursts" in kinds:
            i = self.pick(ups + hostA + hostB)
            s = W(F + 3, 185)
            spec["link_error_recovery_bursts"] = dict(i=i, a=tm(s), b=tm(s + W(30, 70)))
        if "flapping_host_link" in kinds:
            i = self.pick(hostA + hostB)
            s = W(F + 3, 200)
            spec["flapping_host_link"] = dict(i=i, a=tm(s), b=tm(s + W(10, 25)))
        if "cable_symbol_errors" in kinds:
            i = self.pick(hostA + hostB)
            s = W(F + 3, 170)
            spec["cable_symbol_errors"] = dict(i=i, a=tm(s), b=min(self.dur, tm(s + W(40, 90))))
        self.spec = spec

    def flap_times(self, a, b, bursts, per=(2, 5)):
        rng = self.rng
        starts = np.sort(rng.uniform(a + 20, max(a + 30, b - 200), bursts))
        starts[0] = a + rng.uniform(1, 10)
        out = []
        for st in starts:
            t = st
            for _ in range(int(rng.integers(per[0], per[1] + 1))):
                d = rng.uniform(3, 25)
                if t + d > b - 5:
                    break
                out.append((t, t + d))
                t += d + rng.uniform(10, 60)
        return out

    def apply_structural(self):
        rng, sp = self.rng, self.spec
        f = self.frac
        if "width_degraded" in sp:
            x = sp["width_degraded"]
            i, a, b = x["i"], x["a"], x["b"]
            w = f(a, b)
            self.wf_sw[:, i] *= 1 - 0.5 * w
            kind, j = self.end_of(i)
            (self.wf_sw if kind == "s" else self.wf_h)[:, j] *= 1 - 0.5 * w
            x["on"] = w
        for key in ("flapping_link", "flapping_host_link"):
            if key in sp:
                x = sp[key]
                x["downs"] = self.flap_times(x["a"], x["b"], int(rng.integers(2, 4)))
                for a, b in x["downs"]:
                    self.link_down(x["i"], a, b)
        if "credit_loop_spine" in sp:
            x = sp["credit_loop_spine"]
            w = self.frac(x["a"], x["b"])
            x["on"] = w
            ups = [self.sw[i]["psw"] for i in self.spines[x["s"]]["ports"]]
            self.arf[:, ups] *= (1 - w * rng.uniform(0.6, 0.75))[:, None]

    def apply_errors(self):
        rng, sp, M1 = self.rng, self.spec, self.M + 1
        f, t, pois = self.frac, self.t, rng.poisson
        S, H = self.isw, self.ih
        bits = lambda i: self.sw[i]["cap"] * 8 * DT * self.wf_sw[:, i]

        def far(i):
            return self.end_of(i)

        # width degraded: no error counter moves; both ends wait for credits
        if "width_degraded" in sp:
            x = sp["width_degraded"]
            i, w = x["i"], x["on"]
            for kind, j in (("s", i), far(i)):
                if kind == "s":
                    u = self.utx_sw[:, j]
                    self.bx_sw[:, j] += w * (0.03 + 0.35 * np.clip(u, 0, 1) ** 1.5) * rng.lognormal(0, 0.4, M1)
                else:
                    u = self.utx_h[:, j]
                    self.bx_h[:, j] += w * (0.03 + 0.35 * np.clip(u, 0, 1) ** 1.5) * rng.lognormal(0, 0.4, M1)
            e = far(i)
            rel = []
            if self.sw[i]["role"] == "up":
                L = self.sw[i]["leaf"]
                rel = [{"device": self.leaves[L]["name"], "ports": [self.sw[u]["port"] for u in self.leaves[L]["up"] if u != i]}]
            self.fault("width_degraded", i, [self.sw[i]["port"]], x["a"], x["b"],
                       "link_width_active 4 -> 2 at both ends (host: rate_bytes_per_second 5e10 -> 2.5e10) after a "
                       "silent retrain; capacity halves, AR gives it about half its siblings' bytes, port_xmit_wait "
                       "climbs at both ends; no error counter moves", peer_ends=[e], related=rel)

        # cable with symbol errors until the 16-bit counter sticks
        x = sp["symbol_errors_saturating"]
        up = x["i"]
        spn = self.sw[up]["psw"]
        a, b = x["a"], x["b"]
        w = f(a, b)
        xx = np.clip((t - a) / max(b - a, 1), 0, 1)
        r0, r1 = rng.uniform(0.3, 1.0), rng.uniform(40, 120)
        rate = w * r0 * (r1 / r0) ** xx * rng.lognormal(0, 0.3, M1)
        sym = pois(rate * DT).astype(float)
        S["sym"][:, spn] += sym
        S["rce"][:, spn] += rng.binomial(sym.astype(np.int64), 0.05)
        S["peff"][:, spn] += sym * rng.uniform(3, 10, M1)
        self.ber_sw[:, spn] = np.maximum(self.ber_sw[:, spn], w * 3e-6 * (40.0 ** xx) * rng.lognormal(0, 0.2, M1))
        S["sym"][:, up] += pois(0.03 * rate * DT)
        for tt in np.arange(a + rng.uniform(60, 300), b, rng.uniform(300, 600)):
            k = self.step_of(tt)
            if k <= self.M:
                S["ler"][k, spn] += 1
                S["ler"][k, up] += 1
        cum = np.cumsum(sym)
        ka, kb = self.step_of(a), min(self.M, self.step_of(b))
        target = cum[ka + int((kb - ka) * rng.uniform(0.35, 0.55))]
        x["init"] = max(0, 65535 - int(target))
        x["spn"] = spn
        self.fault("symbol_errors_saturating", spn, [self.sw[spn]["port"]], a, b,
                   "bad leaf-spine cable: symbol_error_counter rising from ~1/s to ~100/s until it sticks at 65535 "
                   "(fills again after the counter clear), port_rcv_errors ~5% of it, raw/effective BER up, "
                   "link_error_recovery every 5-10 min at both ends, ~3% of the symbol errors at the far end",
                   peer_ends=[("s", up)])

        # flapping leaf-spine link (and optional host link)
        for key in ("flapping_link", "flapping_host_link"):
            if key not in sp:
                continue
            x = sp[key]
            i = x["i"]
            e = far(i)
            ends = [("s", i), e]
            for (da, db) in x["downs"]:
                ka, kb = self.step_of(da), self.step_of(db)
                for en in ends:
                    kind, j = en
                    A = S if kind == "s" else H
                    A["ler"][ka, j] += 1
                    A["sym"][min(kb, self.M), j] += rng.integers(1, 20)
                    A["rce"][min(kb, self.M), j] += rng.integers(0, 3)
                    if rng.random() < 0.4:
                        A["lli"][ka, j] += 1
            for tt in rng.uniform(x["a"], x["b"], int(rng.integers(1, 5))):
                k = self.step_of(tt)
                for kind, j in ends:
                    (S if kind == "s" else H)["ler"][k, j] += 1
            first = min(d[0] for d in x["downs"])
            kind_name = "flapping_link"
            self.fault(kind_name, i, [self.sw[i]["port"]], int(first // SS) * SS, x["b"],
                       ("leaf-spine" if key == "flapping_link" else "host") +
                       " link going down and up in bursts (2-25 s down): link_downed_counter and "
                       "link_error_recovery_counter at both ends, logical_state 1 when a sample lands in a down, "
                       "symbol errors at link-up, xmit discards at each down, traffic moved to the siblings",
                       peer_ends=[e])

        # HCA stomping packets: remote physical errors on its leaf port
        x = sp["hca_stomping"]
        i = x["i"]
        j = self.sw[i]["ph"]
        a, b = x["a"], x["b"]
        w = f(a, b)
        ut = np.clip(self.utx_h[:, j], 0, 1)
        rate = w * (0.5 + 12 * ut) * rng.lognormal(0, 0.6, M1)
        S["rpe"][:, i] += pois(rate * DT)
        L = self.sw[i]["leaf"]
        cfm = 0.6 if L in self.moe_leaves else 0.125
        rel = []
        for u in self.leaves[L]["up"]:
            q = self.sw[u]["psw"]
            S["rpe"][:, q] += pois(rate * cfm / 16 * DT)
            rel.append({"device": self.sw[q]["dev"], "ports": [self.sw[q]["port"]]})
        self.fault("hca_stomping", i, [self.sw[i]["port"]], a, b,
                   "HCA ending packets with EBP: port_rcv_remote_physical_errors 0.5-15/s on its leaf port, following "
                   "the host's transmit load, no symbol errors; a trickle on the spine ports they are forwarded to",
                   peer_ends=[("h", j)], related=rel)

        # credit-loop-like congestion on one spine
        x = sp["credit_loop_spine"]
        s = x["s"]
        w = x["on"]
        sps = self.spines[s]["ports"]
        self.bx_sw[:, sps] += w[:, None] * rng.uniform(0.45, 0.85) * rng.lognormal(0, 0.15, (M1, len(sps)))
        ups = [self.sw[q]["psw"] for q in sps]
        self.bx_sw[:, ups] += w[:, None] * rng.uniform(0.25, 0.5) * rng.lognormal(0, 0.3, (M1, len(ups)))
        S["xdc"][:, sps] += pois(w[:, None] * rng.uniform(0.5, 5, len(sps))[None, :] * DT)
        rel = {}
        for q in ups:
            rel.setdefault(self.sw[q]["dev"], []).append(self.sw[q]["port"])
        self.fault("credit_loop_spine", sps[0], ["*"], x["a"], x["b"],
                   "credit-loop-like deadlock on one spine: port_xmit_wait near the whole interval on every port of "
                   "it while its throughput falls to ~30% of its siblings (AR moves traffic away); a few HoQ "
                   "discards; the leaf uplinks facing it wait too (related)",
                   related=[{"device": d, "ports": p} for d, p in rel.items()])

        # HoQ-lifetime discards on one uplink
        if "hoq_discards" in sp:
            x = sp["hoq_discards"]
            i = x["i"]
            w = f(x["a"], x["b"])
            r = rng.uniform(3e-6, 1e-5)
            S["xdc"][:, i] += pois(w * self.pkt_x[:, i] * r * rng.lognormal(0, 0.5, M1))
            self.fault("hoq_discards", i, [self.sw[i]["port"]], x["a"], x["b"],
                       "port_xmit_discards on one uplink (head-of-queue lifetime expiry, a per-port HoQLife set too "
                       "low) in proportion to its ordinary traffic, while its 15 siblings carrying the same load "
                       "discard nothing; the 16-bit counter may stick at 65535", peer_ends=[far(i)])

        # split cage failing: both halves
        x = sp["split_cage_failing"]
        pr = x["ports"]
        a, b = x["a"], x["b"]
        w = f(a, b)
        xx = np.clip((t - a) / max(b - a, 1), 0, 1)
        common = w * 0.1 * (rng.uniform(2, 8) / 0.1) ** xx * rng.lognormal(0, 0.5, M1)
        peers = []
        for i in pr:
            j = self.sw[i]["ph"]
            peers.append(("h", j))
            rt = common * rng.lognormal(0, 0.2, M1)
            sy = pois(rt * DT).astype(float)
            S["sym"][:, i] += sy
            S["rce"][:, i] += rng.binomial(sy.astype(np.int64), 0.15)
            S["peff"][:, i] += sy * rng.uniform(2, 6, M1)
            self.ber_sw[:, i] = np.maximum(self.ber_sw[:, i], w * 1e-5 * 6.0 ** xx * rng.lognormal(0, 0.2, M1))
            H["sym"][:, j] += pois(0.1 * rt * DT)
        for tt in np.arange(a + rng.uniform(30, 200), b, rng.uniform(300, 720)):
            k = self.step_of(tt)
            for i in pr:
                S["ler"][k, i] += 1
                H["ler"][k, self.sw[i]["ph"]] += 1
        self.fault("split_cage_failing", pr[0], [self.sw[i]["port"] for i in pr], a, b,
                   "one split NDR port (two NDR200 halves to two hosts) failing: symbol errors, rcv errors, raw BER "
                   "and link error recoveries on both halves at the same times; the two HCAs see a little",
                   peer_ends=peers)

        # uplink left down after the maintenance
        i = self.left_down
        first_seen = int((self.maint[1] + 20) // SS) * SS     # last boundary before the leaf answers again
        self.fault("uplink_left_down", i, [self.sw[i]["port"]], first_seen, self.fix_t,
                   "after the planned leaf reboot every link came back but this uplink: leaf side physical_state 3 "
                   "(Disabled), logical_state 1, zero traffic; its spine end is enabled and Polling "
                   "(physical_state 2); the leaf's other 15 uplinks carry its share",
                   peer_ends=[far(i)])

        # slow BER degradation
        x = sp["ber_degradation"]
        i = x["i"]
        tgt = far(i)[1] if x["far"] else i
        a, b, ramp = x["a"], x["b"], x["ramp"]
        w = f(a, b)
        xx = np.clip((t - a) / ramp, 0, 1)
        b0 = max(self.ber0[tgt], 2e-9)
        top = rng.uniform(1.2e-4, 2e-4)
        raw = b0 * (top / b0) ** xx * rng.lognormal(0, 0.12, M1)
        raw = np.where(w > 0, raw, 0)
        self.ber_sw[:, tgt] = np.maximum(self.ber_sw[:, tgt], raw)
        eff = 1e-9 * (raw / 2.4e-4) ** 6
        ebits = pois(eff * bits(tgt))
        S["peff"][:, tgt] += ebits
        sy = pois(ebits / 4.0).astype(float)
        S["sym"][:, tgt] += sy
        S["rce"][:, tgt] += rng.binomial(sy.astype(np.int64), 0.2)
        self.fault("ber_degradation", tgt, [self.sw[tgt]["port"]], a, b,
                   "receiver degrading: raw_ber rising exponentially from its baseline to ~1.5e-4 over about an hour "
                   "(phy_raw_errors with it), effective_ber and phy_effective_errors only near the end, then "
                   "symbol errors; the change starts at start_ns, long before any error counter moves",
                   peer_ends=[far(tgt)])

        # link error recovery bursts
        if "link_error_recovery_bursts" in sp:
            x = sp["link_error_recovery_bursts"]
            i = x["i"]
            e = far(i)
            tt = x["a"] + rng.uniform(1, 20)
            first = tt
            while tt < x["b"] - 30:
                for q in range(int(rng.integers(2, 7))):
                    k = min(self.M, self.step_of(tt + rng.uniform(0, 75)))
                    S["ler"][k, i] += 1
                    (S if e[0] == "s" else H)["ler"][k, e[1]] += 1
                    S["sym"][k, i] += rng.integers(3, 25)
                    S["rce"][k, i] += rng.integers(0, 4)
                tt += rng.uniform(300, 720)
            self.fault("link_error_recovery_bursts", i, [self.sw[i]["port"]], int(first // SS) * SS, x["b"],
                       "bursts of 2-6 link_error_recovery_counter increments (retrains without going down) every "
                       "5-12 min at both ends, each with a few symbol errors; link never drops", peer_ends=[e])

        # steady symbol errors on a host cable (extra)
        if "cable_symbol_errors" in sp:
            x = sp["cable_symbol_errors"]
            i = x["i"]
            w = f(x["a"], x["b"])
            xx = np.clip((t - x["a"]) / max(x["b"] - x["a"], 1), 0, 1)
            rt = w * (0.05 + rng.uniform(1, 3) * xx) * rng.lognormal(0, 0.3, M1)
            sy = pois(rt * DT).astype(float)
            S["sym"][:, i] += sy
            S["rce"][:, i] += rng.binomial(sy.astype(np.int64), 0.1)
            S["peff"][:, i] += sy * 4
            self.ber_sw[:, i] = np.maximum(self.ber_sw[:, i], w * 5e-6 * rng.lognormal(0, 0.2, M1))
            self.fault("cable_symbol_errors", i, [self.sw[i]["port"]], x["a"], x["b"],
                       "host cable with symbol errors rising from ~0.05/s to a few per second on the leaf's receive "
                       "side, port_rcv_errors ~10% of it, raw BER up", peer_ends=[far(i)])

    # --------------------------------------------------------------------------------------------
    # traffic and credit waits

    def traffic(self):
        rng, M1, PS, PH = self.rng, self.M + 1, self.PS, self.PH
        sw, hp = self.sw, self.hp
        self.sdf, self.sedn, self.seup = self.down_arrays(self.sw_down, PS)
        self.hdf, self.hedn, self.heup = self.down_arrays(self.h_down, PH)
        cap_h = np.array([p["cap"] for p in hp])
        cap_s = np.array([p["cap"] for p in sw])
        hx, hr = np.zeros((M1, PH)), np.zeros((M1, PH))     # host tx / rx bytes per step
        sx, sr = np.zeros((M1, PS)), np.zeros((M1, PS))     # switch xmit / rcv bytes per step
        nL = len(self.leaves)
        P_up, P_dn = np.zeros((M1, nL)), np.zeros((M1, nL))
        P_srv = np.zeros((M1, nL))
        ar0 = rng.lognormal(0, 0.01, PS)
        eps = 1e-9

        def host_side(D):
            Hs = np.array([sw[i]["ph"] for i in D])
            av = 1 - self.hdf[:, Hs]
            capn = cap_h[Hs][None, :] * DT
            lim = 0.97 * capn * self.wf_h[:, Hs]
            out = []
            for l_, c_ in ((self.txl, self.txc), (self.rxl, self.rxc)):
                dl, dc = l_[:, Hs] * capn * av, c_[:, Hs] * capn * av
                sc = np.minimum(1, lim / np.maximum(dl + dc, eps))
                out += [dl * sc, dc * sc]
            return Hs, out

        def spread(L, tot_up, tot_dn):
            U = np.array(self.leaves[L]["up"])
            capu = cap_s[U][None, :] * DT * self.wf_sw[:, U] * (1 - self.sdf[:, U])
            w1 = capu * self.arf[:, U] * ar0[U] * rng.lognormal(0, 0.02, capu.shape)
            w2 = capu * self.arf[:, U] * ar0[U] * rng.lognormal(0, 0.02, capu.shape)
            w1 /= np.maximum(w1.sum(1, keepdims=True), eps)
            w2 /= np.maximum(w2.sum(1, keepdims=True), eps)
            ut = np.minimum(tot_up[:, None] * w1, 0.98 * capu)
            ud = np.minimum(tot_dn[:, None] * w2, 0.98 * capu)
            sx[:, U], sr[:, U] = ut, ud
            pe = np.array([sw[u]["psw"] for u in U])
            sr[:, pe], sx[:, pe] = ut, ud
            return capu.sum(1)

        for L, lv in enumerate(self.leaves):
            if lv["pod"] == "s":
                continue
            D = np.array(lv["dn"])
            Hs, (tl, tc, rl, rc) = host_side(D)
            U = np.array(lv["up"])
            C = (cap_s[U][None, :] * DT * self.wf_sw[:, U] * (1 - self.sdf[:, U])).sum(1)
            cu, cd = tc.sum(1), rc.sum(1)
            P_up[:, L] = cu / np.maximum(C, eps)
            P_dn[:, L] = cd / np.maximum(C, eps)
            su = np.minimum(1, 0.97 * C / np.maximum(cu, eps))
            sd = np.minimum(1, 0.97 * C / np.maximum(cd, eps))
            tx = tl + tc * su[:, None]
            rx = rl + rc * sd[:, None]
            hx[:, Hs], hr[:, Hs] = tx, rx
            sr[:, D], sx[:, D] = tx, rx
            spread(L, cu * su, cd * sd)
        # storage leaves
        Wd, Rd, res = {}, {}, {}
        for L, lv in enumerate(self.leaves):
            if lv["pod"] != "s":
                continue
            D = np.array(lv["dn"])
            Hs, (tl, tc, rl, rc) = host_side(D)
            res[L] = (D, Hs, tl + tc, rl + rc)
            Wd[L], Rd[L] = (tl + tc).sum(1), (rl + rc).sum(1)
        SL = sorted(res)
        Csrv = 8 * NDR * DT
        sc = {}
        for L in SL:
            o = SL[1] if L == SL[0] else SL[0]
            IN = 0.9 * Wd[L] + 0.1 * Wd[o]
            P_srv[:, L] = IN / Csrv
            sc[L] = np.minimum(1, 0.97 * Csrv / np.maximum(IN, eps))
        for L in SL:
            o = SL[1] if L == SL[0] else SL[0]
            D, Hs, W, R = res[L]
            eff = 0.9 * sc[L] + 0.1 * sc[o]
            tx = W * eff[:, None]
            hx[:, Hs], hr[:, Hs] = tx, R
            sr[:, D], sx[:, D] = tx, R
            Sv = np.array(self.leaves[L]["srv"])
            into = (0.9 * Wd[L] * sc[L] + 0.1 * Wd[o] * sc[L])
            outof = 0.9 * Rd[L] + 0.1 * Rd[o]
            sx[:, Sv] = into[:, None] / 8 * rng.lognormal(0, 0.03, (M1, 8))
            sr[:, Sv] = outof[:, None] / 8 * rng.lognormal(0, 0.03, (M1, 8))
            spread(L, 0.1 * Wd[L] * sc[o] + 0.1 * Rd[o], 0.1 * Wd[o] * sc[L] + 0.1 * Rd[L])
        self.hx, self.hr, self.sx, self.sr = hx, hr, sx, sr
        capeff_s = cap_s[None, :] * DT * self.wf_sw
        capeff_h = cap_h[None, :] * DT * self.wf_h
        self.utx_sw = sx / capeff_s
        self.utx_h = hx / capeff_h
        self.P_up, self.P_dn, self.P_srv = P_up, P_dn, P_srv

        def psize(b, cap):
            x = b / cap
            return (256 + 3840 * x / (x + 0.02)) * rng.lognormal(0, 0.03, b.shape)

        self.pkt_x = sx / psize(sx, capeff_s)
        self.pkt_r = sr / psize(sr, capeff_s)
        self.hpkt_x = hx / psize(hx, capeff_h)
        self.hpkt_r = hr / psize(hr, capeff_h)

    def waits(self):
        rng, M1, PS, PH = self.rng, self.M + 1, self.PS, self.PH
        sw = self.sw
        role = np.array([p["role"] for p in sw])
        leaf = np.array([p["leaf"] for p in sw])
        ub = np.clip(self.utx_sw / 0.5, 0, 1.2)
        P = np.zeros((M1, PS))
        up = role == "up"
        P[:, up] = np.maximum(self.P_up[:, leaf[up]], self.P_dn[:, leaf[up]])
        spn = role == "spine"
        P[:, spn] = self.P_dn[:, leaf[spn]]
        st = role == "stor"
        P[:, st] = self.P_srv[:, leaf[st]]
        over = np.clip(P - 0.8, 0, 0.6) ** 1.3
        # shared-buffer pressure in the spines during an all-to-all reaches every uplink and spine port
        sbp = np.where((up | spn)[None, :], 0.003 * self.a2a[:, None] * rng.lognormal(0, 0.8, (M1, PS)), 0.0)
        base = 0.004 * ub ** 3 + 0.55 * over + self.hot_sw + sbp
        swf = rng.lognormal(0, 0.5, (M1, len(self.devs)))[:, self.sw_dev]
        spike = np.where(rng.random((M1, PS)) < 0.02 + 0.08 * np.clip(self.utx_sw, 0, 1),
                         1 + 5 * rng.pareto(1.3, (M1, PS)), 1.0)
        b = base * swf * rng.lognormal(0, 0.35, (M1, PS)) * spike + self.bx_sw
        b = np.clip(b, 0, 0.97) * (1 - self.sdf)
        self.isw["xw"] += b * TICK_HZ * DT
        # hosts
        hh = np.array([p["host"] for p in self.hp])
        rail = np.array([p["rail"] for p in self.hp])
        hleaf = np.array([sw[p["psw"]]["leaf"] for p in self.hp])
        Ph = np.where(rail[None, :] < 8, self.P_up[:, hleaf], self.P_srv[:, hleaf])
        ubh = np.clip(self.utx_h / 0.5, 0, 1.2)
        hf = rng.lognormal(0, 0.4, (M1, len(self.hosts)))[:, hh]
        bh = (0.0006 * ubh ** 2 + 0.45 * np.clip(Ph - 0.8, 0, 0.6) ** 1.3) * hf * rng.lognormal(0, 0.3, (M1, PH))
        bh = np.clip(bh + self.bx_h, 0, 0.97) * (1 - self.hdf)
        self.ih["xw"] += bh * TICK_HZ * DT

    # --------------------------------------------------------------------------------------------

    def background(self):
        """Healthy trickles: BER floor, sporadic symbol errors, relay errors; link-event side effects."""
        rng, M1, PS = self.rng, self.M + 1, self.PS
        S, H = self.isw, self.ih
        self.ber0 = 10 ** rng.uniform(-9.5, -7.3, PS)
        # links with sporadic symbol errors (~2 %), not on fault links
        fault_ports = set()
        for i in self.used:
            fault_ports.add(i)
            e = self.end_of(i)
            if e and e[0] == "s":
                fault_ports.add(e[1])
        for q in self.spines[self.loop_spine]["ports"]:
            fault_ports.add(q)
            fault_ports.add(self.sw[q]["psw"])
        links = [i for i, p in enumerate(self.sw) if p["role"] in ("host", "up") and i not in fault_ports
                 and p["leaf"] != self.LE and not (p["role"] == "host" and self.hp[p["ph"]]["host"] == self.fw_host)]
        n = max(4, int(round(0.02 * len(links))))
        pick = rng.choice(links, n, replace=False)
        where = []
        for i in pick:
            i = int(i)
            e = ("s", i) if rng.random() < 0.6 else self.end_of(i)
            rate = rng.uniform(1, 6) / 3600
            kind, j = e
            A = S if kind == "s" else H
            sy = rng.poisson(rate * DT, M1).astype(float)
            sy[0] = 0
            A["sym"][:, j] += sy
            if kind == "s":
                self.ber0[j] = 10 ** rng.uniform(-6.9, -6.3)
                S["peff"][:, j] += sy * rng.integers(2, 8)
            where.append(self.sname(j) if kind == "s" else self.hname(j))
        self.healthy_event("background_symbol_errors", where, 0, self.dur,
                           "a symbol error now and then (1-6 an hour) on ~2% of links, steady since the start",
                           background=True)
        # benign relay errors on a few switch ports
        cand = [i for i, p in enumerate(self.sw) if p["role"] in ("host", "spine", "stor") and i not in fault_ports
                and p["leaf"] != self.LE]
        rp = [int(i) for i in rng.choice(cand, 4, replace=False)]
        self.relay = {}
        for q, i in enumerate(rp):
            r = rng.uniform(0.05, 1.5)
            S["rly"][:, i] += rng.poisson(r * DT * rng.lognormal(0, 0.3, M1))
            self.relay[i] = r
        self.relay_sat = rp[0]
        self.healthy_event("switch_relay_errors", [self.sname(i) for i in rp], 0, self.dur,
                           "port_rcv_switch_relay_errors counting steadily (0.05-1.5/s): known benign Quantum-2 "
                           "firmware behaviour; one of them sticks at 65535 during the run", background=True)

    def link_effects(self):
        """Side effects of every down/up on counters (both collectors)."""
        rng = self.rng
        for A, edn, eup, ux, df in ((self.isw, self.sedn, self.seup, self.utx_sw, self.sdf),
                                    (self.ih, self.hedn, self.heup, self.utx_h, self.hdf)):
            A["ldn"] += edn
            A["sym"] += rng.poisson(1.2 * eup)
            A["rce"] += rng.poisson(0.2 * eup)
            A["vl15"] += rng.poisson(0.3 * eup)
            prev = np.vstack([ux[:1], ux[:-1]])
            A["xdc"] += rng.poisson(edn * (3 + 400 * np.clip(prev, 0, 1)))

    def phy(self):
        rng, M1 = self.rng, self.M + 1
        cap_s = np.array([p["cap"] for p in self.sw])
        noise = rng.lognormal(0, 0.25, (M1, self.PS))
        raw = self.ber0[None, :] * noise
        raw = np.maximum(raw, self.ber_sw)
        up = 1 - self.sdf
        bits = cap_s[None, :] * 8 * DT * self.wf_sw * up
        self.isw["praw"] += raw * bits
        self.raw_ber = raw
        self.bits = bits

    # --------------------------------------------------------------------------------------------
    # healthy phenomena of the workload

    def label_workload(self):
        tm = self.tm
        H = self.hosts
        spines = [f"{s['name']}:*" for s in self.spines]
        moe_where = [f"{H[h]}:*" for h in self.moe_hosts] + [f"{self.leaves[L]['name']}:*" for L in self.moe_leaves] + spines
        a2a_where = moe_where + [f"{lv['name']}:*" for L, lv in enumerate(self.leaves) if L not in self.moe_leaves]
        for a, b in self.moe_phases:
            self.healthy_event("alltoall_congestion", a2a_where, a, b + 60,
                               "MoE expert all-to-all: demand ~1.3x the 2:1 uplinks; every uplink of the MoE leaves and "
                               "every spine port facing them full with port_xmit_wait up 100-1000x at once, the DGX "
                               "HCAs wait for credits, and spine buffer pressure lifts the waits on every other uplink")
        self.healthy_event("job_stop", moe_where, tm(118), tm(118) + 300, "MoE job ends (checkpointed)")
        self.healthy_event("idle_stretch", moe_where, tm(118), tm(141), "pod A compute idle between MoE runs")
        self.healthy_event("job_start", moe_where, tm(141), tm(141) + 300, "MoE job restarts on the same 12 hosts")
        st = ["lf-s01:*", "lf-s02:*"] + spines
        for c in self.moe_ck:
            self.healthy_event("checkpoint_burst", st + moe_where, c, c + 210 + 60,
                               "MoE checkpoint: storage HCAs write at ~75% of NDR, storage server ports full, credit "
                               "waits on the storage leaves and HCAs (incast), compute traffic pauses")
        sh_where = [f"{H[h]}:*" for h in self.sharp_hosts] + [f"{self.leaves[L]['name']}:*" for L in self.sharp_leaves]
        for c in self.sharp_ck:
            self.healthy_event("checkpoint_burst", st + sh_where, c, c + 210 + 60,
                               "SHARP job checkpoint: storage HCAs write at ~75% of NDR, storage server ports full, "
                               "credit waits on the storage leaves and HCAs, compute traffic pauses")
        for a, b in self.sharp_pauses:
            self.healthy_event("job_pause", sh_where + spines, a, b + 120,
                               "SHARP job evaluation: compute traffic ~1.5% for 3 minutes")
        self.healthy_event("sharp_in_network_reduction", sh_where + spines, 0, self.dur,
                           "SHARP all-reduce terminates in the switches: pod B host ports at ~50% of NDR200 while "
                           "its uplinks and the spines carry about an eighth of that")
        self.healthy_event("blocking_credit_waits", [f"{lv['name']}:*" for lv in self.leaves] + spines, 0, self.dur,
                           "2:1 blocking with AR: port_xmit_wait on uplinks and spine ports under load, heavy-tailed "
                           "(occasional single-sample spikes 5-50x)", background=True)
        self.healthy_event("host_xmit_wait_saturated", [f"{x}:*" for x in H], 0, self.dur,
                           "port_transmit_wait_total of many HCAs sticks at 4294967295 (32-bit sysfs counter); it "
                           "counts again after the counter clear or a reboot until it sticks again", background=True)
        ew = lambda hs: [f"{H[h]}:*" for h in hs] + [f"{self.leaves[self.LE]['name']}:*"]
        for name, hs, a, b, lvl in self.eval_jobs:
            if a > 0:
                self.healthy_event("job_start", ew(hs) + ["lf-s01:*", "lf-s02:*"], a, a + 300,
                                   f"{name} starts on {len(hs)} hosts (model loaded from storage)")
            if b < self.dur:
                self.healthy_event("job_stop", ew(hs), b, b + 300, f"{name} ends")

    # --------------------------------------------------------------------------------------------

    def run(self):
        self.build_workload()
        self.planned()
        self.plan_faults()
        self.apply_structural()
        self.traffic()
        M1, PS = self.M + 1, self.PS
        self.hot_sw = np.zeros((M1, PS))
        for i, p in enumerate(self.sw):
            if p["role"] == "host" and p["ph"] >= 0:
                self.hot_sw[:, i] = self.hot[:, p["ph"]]
        self.background()
        self.apply_errors()
        self.waits()
        self.link_effects()
        self.phy()
        self.label_workload()
        S, Hh = self.isw, self.ih
        S["xd"] += self.sx / 4.0
        S["rd"] += self.sr / 4.0
        S["xp"] += self.pkt_x
        S["rp"] += self.pkt_r
        Hh["xd"] += self.hx
        Hh["rd"] += self.hr
        Hh["xp"] += self.hpkt_x
        Hh["rp"] += self.hpkt_r

    # --------------------------------------------------------------------------------------------
    # cumulative values, resets, saturation, output

    def init_values(self, keys, P, host):
        rng = self.rng
        v = {}
        for k in keys:
            if k in ("xd", "rd"):
                v[k] = (10 ** rng.uniform(12.5, 15.4, P)).astype(np.int64)
            elif k in ("xp", "rp"):
                v[k] = (10 ** rng.uniform(10, 12.5, P)).astype(np.int64)
            elif k == "xw":
                if host:
                    v[k] = np.where(rng.random(P) < 0.5, 2**32 - 1,
                                    rng.integers(0, 2**32 - 1, P)).astype(np.int64)
                else:
                    v[k] = (10 ** rng.uniform(9, 12.5, P)).astype(np.int64)
            elif k in ("sym", "rce"):
                v[k] = np.where(rng.random(P) < 0.7, 0, rng.geometric(0.01, P)).astype(np.int64)
            elif k in ("ldn", "ler"):
                v[k] = np.where(rng.random(P) < 0.6, 0, rng.integers(1, 6, P)).astype(np.int64)
            elif k == "xdc":
                v[k] = np.where(rng.random(P) < 0.5, 0, rng.geometric(0.002, P)).astype(np.int64)
            elif k in ("vl15", "rpe"):
                v[k] = np.where(rng.random(P) < 0.8, 0, rng.integers(1, 40, P)).astype(np.int64)
            elif k == "rly":      # HCAs never relay: only switch ports carry old relay errors
                v[k] = np.where(rng.random(P) < 0.9, 0, rng.integers(1, 30, P)).astype(np.int64) * (not host)
            elif k == "lli":
                v[k] = np.where(rng.random(P) < 0.85, 0, rng.integers(1, 4, P)).astype(np.int64)
            elif k in ("praw",):
                v[k] = (10 ** rng.uniform(9, 13, P)).astype(np.int64)
            elif k == "peff":
                v[k] = np.where(rng.random(P) < 0.6, 0, rng.geometric(0.002, P)).astype(np.int64)
            else:
                v[k] = np.zeros(P, dtype=np.int64)
        return v

    def cum_at(self, C, i, s):
        """cumulative increment of series i at time s (linear inside a 15 s step)"""
        m0 = min(self.M - 1, max(0, int(s // DT)))
        fr = min(1.0, max(0.0, (s - m0 * DT) / DT))
        return int(C[m0, i] + round(fr * (C[m0 + 1, i] - C[m0, i])))

    def values(self):
        rng, N, M, PS, PH = self.rng, self.N, self.M, self.PS, self.PH
        # switch side
        init = self.init_values(SW_KEYS, PS, False)
        x = self.spec["symbol_errors_saturating"]
        init["sym"][x["spn"]] = x["init"]
        r0 = self.relay[self.relay_sat]
        init["rly"][self.relay_sat] = max(0, 65535 - int(r0 * self.dur * rng.uniform(0.3, 0.55)))
        ts = np.arange(N + 1) * SS
        VS = {}
        Cs = {}
        for k in SW_KEYS:
            inc = np.rint(self.isw[k]).astype(np.int64)
            inc[0] = 0
            C = np.cumsum(inc, axis=0)
            Cs[k] = C
            VS[k] = init[k][None, :] + C[::2]
        for i, tr, all_f in sorted(self.sw_resets, key=lambda z: z[1]):
            kk = ts > tr
            for (name, bits, clr), k in zip(SW_CNT, SW_KEYS):
                if clr or all_f:
                    VS[k][kk, i] = Cs[k][::2][kk, i] - self.cum_at(Cs[k], i, tr)
        for (name, bits, clr), k in zip(SW_CNT, SW_KEYS):
            if bits:
                np.minimum(VS[k], (1 << bits) - 1, out=VS[k])
        # BER over the sample (mean of its two steps)
        raw = self.raw_ber
        rb = np.empty((N + 1, PS))
        rb[0] = raw[0]
        rb[1:] = 0.5 * (raw[1::2] + raw[2::2])
        peff = self.isw["peff"]
        eb = np.zeros((N + 1, PS))
        bits = self.bits
        eb[1:] = (peff[1::2] + peff[2::2]) / np.maximum(bits[1::2] + bits[2::2], 1)
        down_s = self.sdf[::2] >= 1
        rb[down_s] = 0.0
        g = np.zeros((N + 1, PS, 4), dtype=np.int64)
        widths = np.array([p["width"] for p in self.sw])
        wf = self.wf_sw[::2]
        g[:, :, 0] = np.rint(widths[None, :] * wf).astype(np.int64)
        g[:, :, 1] = 100
        g[:, :, 2] = 4
        g[:, :, 3] = 5
        tsf = ts.astype(float)
        for i in self.sw_down:
            lg, ph = self.states(self.sw_down, i, tsf)
            g[:, i, 2], g[:, i, 3] = lg, ph
        present = np.ones((N + 1, PS), dtype=bool)
        for ports, a, b in self.sw_absent:
            m = (ts > a) & (ts <= b)
            present[np.ix_(m, ports)] = False
        self.S_out = (VS, rb, eb, g, present, ts)
        # hosts
        initH = self.init_values(H_KEYS, PH, True)
        off = rng.uniform(0.5, 14.5, len(self.hosts))
        jit = rng.integers(0, 25, (M, len(self.hosts))) / 1000.0
        hh = np.array([p["host"] for p in self.hp])
        th_host = np.arange(M)[:, None] * DT + off[None, :] + jit          # (M, hosts)
        th_host = np.round(th_host * 1000) / 1000
        th = th_host[:, hh]                                                 # (M, PH)
        fr = (th - np.arange(M)[:, None] * DT) / DT
        VH, Ch = {}, {}
        for k in H_KEYS:
            inc = np.rint(self.ih[k]).astype(np.int64)
            inc[0] = 0
            C = np.cumsum(inc, axis=0)
            Ch[k] = C
            Ci = C[:-1] + np.rint(fr * (C[1:] - C[:-1])).astype(np.int64)
            VH[k] = initH[k][None, :] + Ci
            Ch[k + "_i"] = Ci
        for j, tr in sorted(self.h_resets, key=lambda z: z[1]):
            kk = th[:, j] > tr
            for k in H_KEYS:
                VH[k][kk, j] = Ch[k + "_i"][kk, j] - self.cum_at(Ch[k], j, tr)
        for (name, bits), k in zip(H_CNT, H_KEYS):
            if bits:
                np.minimum(VH[k], (1 << bits) - 1, out=VH[k])
        gh = np.zeros((M, PH, 3), dtype=np.int64)
        caps = np.array([p["cap"] for p in self.hp])
        wfh = self.wf_h[np.minimum(np.arange(M) + 1, M)]
        gh[:, :, 0] = np.rint(caps[None, :] * wfh).astype(np.int64)
        gh[:, :, 1] = 4
        gh[:, :, 2] = 5
        for j in self.h_down:
            lg, ph = self.states(self.h_down, j, th[:, j])
            gh[:, j, 1], gh[:, j, 2] = lg, ph
            gh[lg == 1, j, 0] = 1250000000
        presH = np.ones((M, len(self.hosts)), dtype=bool)
        for h, a, b in self.h_absent:
            presH[(th_host[:, h] > a) & (th_host[:, h] <= b), h] = False
        self.H_out = (VH, gh, presH, th_host)

    def write(self, outdir):
        os.makedirs(outdir, exist_ok=True)
        N, PS, PH = self.N, self.PS, self.PH
        VS, rb, eb, g, present, ts = self.S_out
        VH, gh, presH, th_host = self.H_out
        sfmt = []
        for p in self.sw:
            tags = (f"port_counters,device={p['dev']},port={p['port']},node_guid={p['guid']},tier={p['tier']},"
                    f"peer_node_name={p['peer_dev']},peer_port_dname={p['peer_port']},source=ufm_telemetry ")
            flds = ",".join(f"{n}=%di" for n, _, _ in SW_CNT) + "," + ",".join(f"{n}=%di" for n in SW_GAUGE)
            sfmt.append(tags + flds + ",raw_ber=%.3e,effective_ber=%.3e %d\n")
        hfmt = []
        for p in self.hp:
            tags = (f"port_counters,device={p['dev']},port={p['port']},hca_port=1,tier=host,"
                    f"peer_node_name={p['peer_dev']},peer_port_dname={p['peer_port']},source=node_exporter ")
            flds = ",".join(f"{n}=%di" for n, _ in H_CNT) + "," + ",".join(f"{n}=%di" for n in H_GAUGE)
            hfmt.append(tags + flds + " %d\n")
        SI = np.concatenate([np.stack([VS[k] for k in SW_KEYS], axis=2), g], axis=2)   # (N+1, PS, 21)
        SF = np.stack([rb, eb], axis=2)
        HI = np.concatenate([np.stack([VH[k] for k in H_KEYS], axis=2), gh], axis=2)   # (M, PH, 18)
        hports = [list(range(10 * h, 10 * h + 10)) for h in range(len(self.hosts))]
        n_lines = 0
        path = os.path.join(outdir, "port_counters.lp")
        with open(path, "w", buffering=1 << 22) as fh:
            for k in range(N + 1):
                tsn = self.ns(int(ts[k]))
                ir = SI[k].tolist()
                fr = SF[k].tolist()
                pr = present[k]
                buf = [sfmt[i] % (*ir[i], *fr[i], tsn) for i in range(PS) if pr[i]]
                n_lines += len(buf)
                fh.write("".join(buf))
                if k == N:
                    break
                for j in (2 * k, 2 * k + 1):
                    hir = HI[j].tolist()
                    order = np.argsort(th_host[j], kind="stable")
                    buf = []
                    for h in order:
                        if not presH[j, h]:
                            continue
                        tns = (T0 * 1000 + int(round(th_host[j, h] * 1000))) * 10**6
                        buf.extend(hfmt[q] % (*hir[q], tns) for q in hports[h])
                    n_lines += len(buf)
                    fh.write("".join(buf))
        labels = {
            "scenario": SCENARIO, "scale": "small", "seed": self.seed, "fabric": "ib",
            "interval_s": SS, "sample_s": SS, "host_sample_s": DT,
            "t0_ns": self.ns(0), "t_end_ns": self.ns(self.dur), "train_until_ns": self.ns(self.train),
            "fit_first": f"{self.train // 60}m", "ports": PS + PH, "switch_ports": PS, "host_ports": PH,
            "lines": n_lines,
            "faults": sorted(self.faults, key=lambda f: (f["start_ns"], f["kind"])),
            "healthy_phenomena": sorted(self.healthy, key=lambda h: (h["start_ns"], h["kind"])),
        }
        for f in labels["faults"]:
            assert f["start_ns"] >= labels["train_until_ns"], f
            assert f["end_ns"] <= labels["t_end_ns"], f
        with open(os.path.join(outdir, "labels.json"), "w") as fh:
            json.dump(labels, fh, indent=1)
        return labels


def main(argv=None):
    ap = argparse.ArgumentParser(description="labelled UFM Telemetry + node_exporter history of a 2:1 blocking "
                                             "InfiniBand NDR fat tree with a split-port pod")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=4.0)
    a = ap.parse_args(argv)
    wall = time.time()
    g = Gen(a.seed, a.hours)
    g.run()
    g.values()
    lab = g.write(a.outdir)
    print(f"{lab['ports']} ports ({lab['switch_ports']} switch, {lab['host_ports']} HCA), {lab['lines']} lines, "
          f"{len(lab['faults'])} faults, fit_first {lab['fit_first']} -> {a.outdir} in {time.time() - wall:.1f}s")


if __name__ == "__main__":
    main()
