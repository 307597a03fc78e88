#!/usr/bin/env python3
# ruff: noqa: E501
"""FABRIC DATA SHEET: "hx-ib1" GPU training fabric (InfiniBand NDR, no UFM)
===========================================================================

Usage:  python ib_perfquery_telegraf.py OUTDIR [--seed N]
        -> OUTDIR/port_counters.lp  (InfluxDB line protocol, measurement `port_counters`,
                                     time-ordered, nanosecond timestamps)
           OUTDIR/labels.json       (scenario-bank label form; faults + healthy phenomena)
Same seed -> byte-identical files.  Another seed moves every fault and healthy phenomenon to
other ports/devices/hosts and shifts their times.  numpy + standard library only.

1. Fabric
---------
* Two-level NDR (400 Gb/s, 4X x 106.25 Gb/s lanes) fat tree, 1:1, rail-optimised, two
  half-SUs ("A" and "B").  Subnet manager: OpenSM on the management host ibmgmt01
  (sweep 10 s, adaptive routing on for SL 0 and SL 1).  No UFM.
* 16 leaves ib-leaf01..ib-leaf16 and 4 spines ib-spine01..ib-spine04, all NVIDIA Quantum-2
  QM9700 (64 NDR ports = 32 twin-port OSFP cages).  Node description "MF0;<name>:MQM9700/U1".
  - ib-leaf01..08 = SU-A rails 0..7, ib-leaf09..16 = SU-B rails 0..7
    (leaf index L = 8*su + rail).
  - Leaf ports 1..8 (cages 1-4) go to the 8 hosts of its SU, host slot i on port i
    (rail r of dgx-a03 is ib-leaf0{r+1} port 3).
  - Leaf ports 33..40 (cages 17-20) are the uplinks: spine s (0-based) on ports 33+2s and 34+2s
    (two links per leaf-spine pair).
  - Spine port 2L+1 and 2L+2 (L = 0-based leaf index) face leaf L's ports 33+2s / 34+2s.
  - Port names are the plain IB port numbers exactly as `perfquery <lid> <port>` takes them
    ("35"), not the MLNX-OS "1/18/1" names.  Unused ports are not polled.
* 16 DGX-H100-like hosts dgx-a01..a08 (SU-A) and dgx-b01..b08 (SU-B), each with 8 ConnectX-7
  HCAs mlx5_0..mlx5_7 (IB port 1), HCA mlx5_r on the rail-r leaf of its SU.  Node
  description of an HCA is "<hostname> mlx5_<r>" (set by rdma-ndd).
* NCCL runs with PXN: all collective and all-to-all traffic stays on its rail.  Traffic between
  hosts of the same SU never leaves the leaf; traffic between SU-A and SU-B crosses a spine.
  Adaptive routing spreads it per packet over the 8 uplinks of the leaf.
* Ports: 16 x 16 leaf + 4 x 32 spine = 384 switch ports, 128 HCA ports: 512 ports, 256 links.

2. Collectors
-------------
(a) Switch ports: `ibpoll.py` on ibmgmt01 (systemd timer, every 60 s, RandomizedDelaySec ~1 s).
    One sweep walks the switches in name order (leaves, then spines) and every cabled port
    in port order: `perfquery -x <lid> <port>` (PortCountersExtended: 64-bit data/packets),
    `perfquery <lid> <port>` (classic PortCounters: error counters, PortXmitWait) and the
    SM's PortInfo (`smpquery portinfo`).  A full sweep takes ~20 s, so a leaf's ports are
    stamped ~0.05 s apart and ports of different switches seconds apart.  Timestamps are the
    poller's clock at the read of each port (ns, not aligned to anything).  An unreachable
    switch costs ~3-4 s of MAD timeouts and is skipped (no lines).
    Tags:  device      = switch name parsed from the node description ("ib-leaf07")
           port        = IB port number ("35")
           remote_node = far end from the ibnetdiscover topology file: a switch name, or the
                         HCA node description verbatim, with its space ("dgx-a03 mlx5_6",
                         escaped as `dgx-a03\\ mlx5_6` in line protocol)
           remote_port = far-end port number ("1" for an HCA)
           role        = leaf-hca | leaf-spine | spine-leaf
           fabric      = ib
    Fields (perfquery's own names; integers):
           PortXmitData PortRcvData            64-bit, in 4-octet words (x4 = bytes)
           PortXmitPkts PortRcvPkts            64-bit
           SymbolErrorCounter                  16-bit, saturates at 65535
           LinkErrorRecoveryCounter            8-bit,  saturates at 255
           LinkDownedCounter                   8-bit,  saturates at 255
           PortRcvErrors                       16-bit
           PortRcvRemotePhysicalErrors         16-bit
           PortRcvSwitchRelayErrors            16-bit
           PortXmitDiscards                    16-bit
           PortXmitConstraintErrors            8-bit
           PortRcvConstraintErrors             8-bit
           LocalLinkIntegrityErrors            4-bit,  saturates at 15
           ExcessiveBufferOverrunErrors        4-bit,  saturates at 15
           VL15Dropped                         16-bit
           PortXmitWait                        32-bit, saturates at 4294967295; 64 ns ticks
                                               (a fully stalled port adds ~1.56e7/s)
           PortState        1 Down, 2 Init, 3 Armed, 4 Active       (SM's view)
           PhysLinkState    2 Polling, 3 Disabled, 5 LinkUp
           LinkWidthActive  PortInfo encoding: 1 = 1X, 2 = 4X, 16 = 2X (4 = 8X, 8 = 12X unused)
           LinkSpeedExtActive  8 = NDR 106.25 Gb/s per lane
    Reset behaviour on switch ports:
      - threshold reset: after reading a port, if any error counter is at/over its site limit
        the script runs `perfquery -R <lid> <port>` with the error-counter mask.  Limits:
        SymbolErrorCounter, PortRcvErrors, PortRcvRemotePhysicalErrors,
        PortRcvSwitchRelayErrors, PortXmitDiscards, VL15Dropped >= 1000;
        LinkErrorRecoveryCounter, LinkDownedCounter, Port*ConstraintErrors >= 100;
        LocalLinkIntegrityErrors, ExcessiveBufferOverrunErrors >= 8.  All twelve error
        counters of that port go to 0 right after the read; PortXmitWait and the 64-bit
        data/packet counters are NOT reset.  The reset is not logged in the data: the next
        sample simply shows the count since the reset (a 16-bit counter read as 65535 after a
        reset means ">= 65535 in that minute").
      - nightly `ibclearcounters` (cron on ibmgmt01 at 00:00 CEST = 22:00 UTC): every node,
        switch and HCA, that the SM can reach: all PortCounters error counters and
        PortXmitWait to 0 (takes ~10 s to walk the fabric).  The 64-bit extended data
        counters are untouched.  An HCA whose link is down at that moment is not cleared.
      - a switch reboot (firmware upgrade) restarts every counter of the switch from 0.
(b) Host HCAs: Telegraf 1.3x `inputs.infiniband` (gather_rdma = true) on every host, interval
    30 s, round_interval = true, precision 1 s: timestamps are exactly on :00/:30 (NTP-good).
    Telegraf writes TWO lines per HCA per interval with the same tags and timestamp: one with
    the /sys/class/infiniband/mlx5_N/ports/1/counters fields, one with the hw_counters
    fields (that is what the plugin does).  Field order inside a line is random (Go map order).
    Site config: name_override = "port_counters"; global tag fabric=ib; input tag role=hca;
    processors: rename tag device -> hca, then template device = {{.Tag "host"}} and
    port = {{.Tag "hca"}}.  So an HCA line is tagged
        device=dgx-a03,fabric=ib,hca=mlx5_6,host=dgx-a03,port=mlx5_6,role=hca
    (host/device/port/hca: the recording's device is the host, its port is the HCA name).
    counters line fields: port_xmit_data port_rcv_data (64-bit, 4-octet words, from the
      extended counters), port_xmit_packets port_rcv_packets unicast_xmit_packets
      unicast_rcv_packets multicast_xmit_packets multicast_rcv_packets (64-bit),
      symbol_error link_error_recovery link_downed port_rcv_errors
      port_rcv_remote_physical_errors port_rcv_switch_relay_errors port_xmit_discards
      port_xmit_constraint_errors port_rcv_constraint_errors local_link_integrity_errors
      excessive_buffer_overrun_errors VL15_dropped port_xmit_wait (classic widths as above,
      saturating; port_xmit_wait 32-bit saturating).
    hw_counters line fields: duplicate_request implied_nak_seq_err lifespan
      local_ack_timeout_err out_of_buffer out_of_sequence packet_seq_err req_cqe_error
      req_cqe_flush_error req_remote_access_errors req_remote_invalid_request resp_cqe_error
      resp_cqe_flush_error resp_local_length_error resp_remote_access_errors rnr_nak_retry_err
      rx_atomic_requests rx_read_requests rx_write_requests (32-bit Q counters: they WRAP, not
      saturate; rx_write_requests wraps every few days on a busy HCA).
    Host counters reset to 0 when the host reboots (at mlx5 driver load).  Telegraf sends
    nothing while the host is down.  Telegraf keeps reporting an HCA whose link is down
    (its counters then stay flat).  Telegraf knows nothing about link state or width.

3. Workload (what "normal" looks like)
--------------------------------------
* pretrain: long LLM pre-training job on 9 hosts spread over both SUs, ~50% of line rate per
  HCA, checkpoints every 30 min (IB nearly idle for ~2 min while writing to storage, which is
  on Ethernet), evaluation phases of 3-5 min.  Its busiest host ports saturate their 32-bit
  PortXmitWait / port_xmit_wait late in the evening (nightly clear brings them back).
* moe: mixture-of-experts job on 4 hosts (2 per SU), service level SL 1, starting early in the
  recording; 10-20 min expert-parallel all-to-all phases with hot receivers make PortXmitWait
  climb on leaf uplinks, leaf host ports and all spine ports at once (a receiver never takes
  more than ~95% of its link: the rest of an incast waits for credits at the senders).
* pool: the 3 remaining hosts run short jobs (nccl-tests sweeps at line rate, fine-tunes,
  inference, evals); single-host jobs put nothing on IB.  Job teardown bumps
  req_cqe_flush_error / resp_cqe_flush_error on the job's HCAs (QPs flushed), which is normal.
* Every link carries ~20 kB/s of SM/IPoIB chatter even when idle.
* Healthy error background: a few links with sporadic symbol errors (1-6/h) and 2-3 links with
  steady 150-400/h symbol errors since before the recording (so they hit the 1000 limit and
  get threshold resets); PortRcvSwitchRelayErrors trickle (IPoIB multicast that would be
  sent back out of its ingress port) on about a quarter of the leaf host ports: known benign,
  `ibqueryerrors` suppresses it by default.  HCA hw_counters out_of_sequence/packet_seq_err
  tick slowly on busy HCAs (adaptive routing).

4. Healthy phenomena in the recording (labelled, must not be flagged)
---------------------------------------------------------------------
job starts and stops; checkpoint and eval dips of pretrain; MoE all-to-all phases; a pool host
rebooted (its 8 links bounce twice: at shutdown and at driver load; Telegraf silent ~7-9 min;
its counters restart from 0); the nightly ibclearcounters; threshold perfquery -R resets on
healthy ports; 32-bit saturation of PortXmitWait on busy ports; a maintenance drain of one SU
with a firmware upgrade of one leaf (spine side of its uplinks administratively disabled,
PhysLinkState 3; leaf unreachable for 5-7 min, absent from the poll; its HCAs' links down;
leaf counters restart from 0; uplinks back when re-enabled; jobs restarted after the window);
adaptive routing moving load from one spine to another for 10-25 min; sporadic/steady
background symbol errors and benign relay errors all run (background); a poller gap of 5-9
minutes with no switch lines at all (Telegraf lines continue).

5. Faults (labelled; 10-14 per seed on random eligible ports, after the fit window)
-----------------------------------------------------------------------------------
symbol_errors_saturating   leaf-spine cable (or an HCA's receive side as an extra): symbol
    errors rising exponentially from ~0.3-1/s to 1500-4000/s over 1-1.5 h at one receiving
    end; at first the threshold reset fires every ~half hour, then every sweep, then the
    16-bit counter reads 65535 every sweep (on an HCA, with no poller resets, it stays at
    65535 until the nightly clear).  PortRcvErrors ~0.5% of it, LinkErrorRecoveryCounter
    every few minutes, LocalLinkIntegrityErrors at high rates; the next hop sees a trickle of
    PortRcvRemotePhysicalErrors (related).  Independent of load (IB links always signal).
    An uplink ends with the cable being replaced: one 1.5-5 min down, LinkDownedCounter +1
    on both ends, training errors at link-up.  On an HCA it is still there when the
    recording ends.
flapping_link              leaf-spine link (or a host link as an extra): 2-4 bursts of 2-6
    down/up cycles (4-35 s down); LinkDownedCounter +1 per cycle on both ends, PortState 1 /
    PhysLinkState 2 when a poll lands in a down, training symbol errors at each link-up,
    adaptive routing moves the load to the siblings; on a host link the host's job stalls.
width_degraded             host link of a busy host whose link silently drops lanes (NDR
    width reduction, no link down): LinkWidthActive 2 -> 16 (2X) or 1 (1X) on the leaf port;
    the HCA is capped at 200/100 Gb/s so the whole job slows to its pace (related); credit
    waits on the leaf port toward it; no extra errors.  Ends with a reseat (one bounce, 4X).
switch_relay_errors        one spine lost LFT entries for one HCA's LID (partial LFT update):
    PortRcvSwitchRelayErrors rising on the two spine ports that receive from the sending
    leaf, following the traffic; the destination HCA sees out_of_sequence and the senders
    local_ack_timeout_err (related).  Fixed by a heavy SM sweep.
lossy_link_retransmits     spine->leaf link dropping ~2e-7..8e-7 of packets (0.5-3/s): PortRcvErrors
    (and ~2.5x as many symbol errors) at the leaf uplink port, following load; the fault is
    the link, and the HCAs on that rail see the consequences (related): out_of_sequence /
    duplicate_request at receivers, packet_seq_err / local_ack_timeout_err at senders.
    Ends with a cable replacement (one down, LinkDownedCounter +1).
hca_link_down_polling      an idle host's HCA link goes down and stays down ~1 h: the leaf port
    shows PortState 1 / PhysLinkState 2 (Polling) on every poll, LinkDownedCounter +1; the
    host keeps reporting the HCA through Telegraf (link_downed +1, counters flat).  Ends when
    the cable is reseated.
credit_starvation          device fault on one spine ("*"): PortXmitWait rises on all its
    ports (saturating the 32-bit counters within tens of minutes) while its throughput falls
    to about a third (adaptive routing sends the rest to the other spines); leaf uplinks
    facing it wait more too (related).
excessive_buffer_overrun   leaf port receiving from an HCA (or from a spine, extra) that
    overruns its buffer: ExcessiveBufferOverrunErrors (4-bit: reads 8-15 at every sweep,
    reset every sweep) and PortRcvErrors, following the sender's load.
link_error_recovery_bursts leaf-spine or host link retraining silently: bursts of 2-10
    LinkErrorRecoveryCounter increments on both ends every 4-15 min, symbol errors with
    each, PortState stays 4, LinkDownedCounter unchanged.  An uplink ends with a cable
    replacement (one down); on a host link it lasts to the end of the recording.
xmit_discards_slvl         one egress port with a bad SL-to-VL/VL-arbitration setting for SL 1:
    PortXmitDiscards (head-of-queue lifetime drops, ~2e-6..6e-6 of its SL 1 packets) only for
    the MoE job's traffic through it, several times more in its all-to-all phases, none while
    the MoE job is stopped; lasts to the end; MoE senders retransmit (related).

6. Notes for readers of the data
--------------------------------
Switch samples are ~60 s apart and not aligned to anything; HCA samples are 30 s apart on the
half minute.  A switch sample and an HCA sample of the same cable never share a timestamp.
Rates must be computed from counter differences over the actual time between a port's own
samples, taking threshold resets, nightly clears, reboots, saturation (16/8/4/32-bit) and
32-bit wraps (hw_counters only) into account.  Labels: fault starts are on 30 s boundaries
after train_until_ns; `fit_first` is the first 30% of the run.
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import UTC, datetime, timedelta

import numpy as np

# ----------------------------------------------------------------------------- constants
RUN_S = 4 * 3600
STEP = 10                      # internal simulation step (s)
PAD = 120                      # simulate a little before t0 and after the end
K = (RUN_S + 2 * PAD) // STEP
EDGES = -PAD + STEP * np.arange(K + 1, dtype=float)   # seconds relative to t0
FIT_S = int(RUN_S * 0.3)       # 72 min
LINE_B = 50e9                  # bytes/s at 400 Gb/s
TICK = 1.5625e7                # PortXmitWait ticks per second of full stall (64 ns)
H, R, NSP = 16, 8, 4
HOSTS = [f"dgx-{'ab'[h // 8]}{h % 8 + 1:02d}" for h in range(H)]
LEAVES = [f"ib-leaf{i + 1:02d}" for i in range(16)]
SPINES = [f"ib-spine{s + 1:02d}" for s in range(NSP)]
T0_BASE = datetime(2025, 9, 16, 19, 0, 0, tzinfo=UTC)
CLEAR_UTC = datetime(2025, 9, 16, 22, 0, 0, tzinfo=UTC)

# internal counter keys -> (switch field, hca sysfs field, bits)
CNT = [
    ("xdata", "PortXmitData", "port_xmit_data", 64),
    ("rdata", "PortRcvData", "port_rcv_data", 64),
    ("xpkts", "PortXmitPkts", "port_xmit_packets", 64),
    ("rpkts", "PortRcvPkts", "port_rcv_packets", 64),
    ("sym", "SymbolErrorCounter", "symbol_error", 16),
    ("ler", "LinkErrorRecoveryCounter", "link_error_recovery", 8),
    ("ldn", "LinkDownedCounter", "link_downed", 8),
    ("rerr", "PortRcvErrors", "port_rcv_errors", 16),
    ("rpe", "PortRcvRemotePhysicalErrors", "port_rcv_remote_physical_errors", 16),
    ("relay", "PortRcvSwitchRelayErrors", "port_rcv_switch_relay_errors", 16),
    ("xdisc", "PortXmitDiscards", "port_xmit_discards", 16),
    ("xcon", "PortXmitConstraintErrors", "port_xmit_constraint_errors", 8),
    ("rcon", "PortRcvConstraintErrors", "port_rcv_constraint_errors", 8),
    ("lli", "LocalLinkIntegrityErrors", "local_link_integrity_errors", 4),
    ("ebo", "ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors", 4),
    ("vl15", "VL15Dropped", "VL15_dropped", 16),
    ("xwait", "PortXmitWait", "port_xmit_wait", 32),
]
KEYS = [c[0] for c in CNT]
BITS = {c[0]: c[3] for c in CNT}
DATA_KEYS = ["xdata", "rdata", "xpkts", "rpkts"]
ERR_KEYS = ["sym", "ler", "ldn", "rerr", "rpe", "relay", "xdisc", "xcon", "rcon", "lli", "ebo", "vl15"]
THRESH = {"sym": 1000, "rerr": 1000, "rpe": 1000, "relay": 1000, "xdisc": 1000, "vl15": 1000,
          "ler": 100, "ldn": 100, "xcon": 100, "rcon": 100, "lli": 8, "ebo": 8}
HW = ["duplicate_request", "implied_nak_seq_err", "lifespan", "local_ack_timeout_err", "out_of_buffer",
      "out_of_sequence", "packet_seq_err", "req_cqe_error", "req_cqe_flush_error", "req_remote_access_errors",
      "req_remote_invalid_request", "resp_cqe_error", "resp_cqe_flush_error", "resp_local_length_error",
      "resp_remote_access_errors", "rnr_nak_retry_err", "rx_atomic_requests", "rx_read_requests", "rx_write_requests"]
W_4X, W_2X, W_1X = 2, 16, 1


def step_of(t):
    return int(np.clip((t + PAD) // STEP, 0, K - 1))


def cover(intervals):
    """Fraction of every simulation step covered by the union of [a, b) intervals."""
    f = np.zeros(K)
    for a, b in intervals:
        a, b = max(a, EDGES[0]), min(b, EDGES[-1])
        if b <= a:
            continue
        ia, ib = int((a + PAD) // STEP), int((b + PAD) // STEP)
        if ia == ib:
            f[ia] += (b - a) / STEP
            continue
        f[ia] += (EDGES[ia + 1] - a) / STEP
        f[ia + 1:ib] += 1.0
        if ib < K:
            f[ib] += (b - EDGES[ib]) / STEP
    return np.clip(f, 0.0, 1.0)


def in_any(t, intervals):
    return any(a <= t < b for a, b, *_ in intervals)


def ar1(rng, n, sigma, rho):
    e = rng.normal(0, sigma * np.sqrt(1 - rho * rho), n)
    x = np.empty(n)
    x[0] = rng.normal(0, sigma)
    for i in range(1, n):
        x[i] = rho * x[i - 1] + e[i]
    return x


# ----------------------------------------------------------------------------- topology
class Topo:
    def __init__(self):
        self.ports = []
        self.leafhost = np.zeros((2, R, 8), int)
        self.leafup = np.zeros((2, R, NSP, 2), int)
        self.spine = np.zeros((NSP, 2, R, 2), int)
        self.hca = np.zeros((H, R), int)
        for L in range(16):
            g, r = divmod(L, 8)
            for slot in range(8):
                h = g * 8 + slot
                self.leafhost[g, r, slot] = self._add(LEAVES[L], str(slot + 1), "leaf-hca", f"{HOSTS[h]} mlx5_{r}", "1", g=g, r=r, h=h)
            for s in range(NSP):
                for ln in range(2):
                    self.leafup[g, r, s, ln] = self._add(LEAVES[L], str(33 + 2 * s + ln), "leaf-spine", SPINES[s], str(2 * L + ln + 1), g=g, r=r, s=s, ln=ln)
        for s in range(NSP):
            for L in range(16):
                g, r = divmod(L, 8)
                for ln in range(2):
                    self.spine[s, g, r, ln] = self._add(SPINES[s], str(2 * L + ln + 1), "spine-leaf", LEAVES[L], str(33 + 2 * s + ln), g=g, r=r, s=s, ln=ln)
        self.nsw = len(self.ports)
        for h in range(H):
            for r in range(R):
                self.hca[h, r] = self._add(HOSTS[h], f"mlx5_{r}", "hca", "", "", g=h // 8, r=r, h=h)
        self.np = len(self.ports)
        self.peer = np.zeros(self.np, int)
        for g in range(2):
            for r in range(R):
                for slot in range(8):
                    a, b = self.leafhost[g, r, slot], self.hca[g * 8 + slot, r]
                    self.peer[a], self.peer[b] = b, a
                for s in range(NSP):
                    for ln in range(2):
                        a, b = self.leafup[g, r, s, ln], self.spine[s, g, r, ln]
                        self.peer[a], self.peer[b] = b, a
        self.by_dev = {}
        for p in self.ports:
            self.by_dev.setdefault(p["dev"], []).append(p["idx"])

    def _add(self, dev, port, role, rnode, rport, **kw):
        d = dict(idx=len(self.ports), dev=dev, port=port, role=role, rnode=rnode, rport=rport, **kw)
        self.ports.append(d)
        return d["idx"]

    def name(self, p):
        return self.ports[p]["dev"], self.ports[p]["port"]


# ----------------------------------------------------------------------------- generator
class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.T = Topo()
        rng = self.rng
        off = int(rng.integers(0, 76))
        self.t0 = T0_BASE + timedelta(minutes=off)
        self.t0_ns = int(self.t0.timestamp()) * 10**9
        self.clear_t = (CLEAR_UTC - self.t0).total_seconds() + 2.0
        NP = self.T.np
        self.E = {k: np.zeros((NP, K)) for k in [*ERR_KEYS, "xwait"]}   # per-step counts (rates x STEP)
        self.EV = {k: {} for k in KEYS}                                   # exact point events
        self.HWE = {k: {} for k in HW}                                    # hca hw point events
        self.HWS = {k: np.zeros((H, R, K)) for k in ["duplicate_request", "implied_nak_seq_err", "local_ack_timeout_err",
                                                     "out_of_sequence", "packet_seq_err", "rx_read_requests", "rx_write_requests"]}
        self.down = {}        # port -> list of (a, b, PortState, PhysLinkState)
        self.init = {}        # port -> list of (a, b, PortState)
        self.width = {}       # port -> list of (a, b, code)
        self.reset_all = {}   # port -> list of t (reboot / driver load)
        self.sw_absent = {}   # switch -> list of (a, b)
        self.host_absent = {}  # host -> list of (a, b)
        self.hca_cap = {}     # (h, r) -> list of (a, b, bytes/s)
        self.xw_extra = np.zeros((NP, K))     # extra wait fraction from faults
        self.ar_mult = np.ones((K, NSP))      # leaf->spine adaptive-routing weight multipliers
        self.faults = []
        self.healthy = []
        self.used_links = set()
        self.fault_ports = set()

    # ---- small helpers
    def ev(self, key, p, t, n=1):
        if n > 0:
            self.EV[key].setdefault(p, []).append((float(t), int(n)))

    def hwev(self, key, h, r, t, n):
        if n > 0:
            self.HWE[key].setdefault((h, r), []).append((float(t), int(n)))

    def link_down(self, p, a, b, ps=1, phys=2, both=True, phys_peer=2, init_s=None):
        q = self.T.peer[p]
        self.down.setdefault(p, []).append((a, b, ps, phys))
        if both:
            self.down.setdefault(q, []).append((a, b, ps, phys_peer))
        s = init_s if init_s is not None else float(self.rng.uniform(2, 6))
        for x in ((p, q) if both else (p,)):
            self.init.setdefault(x, []).append((b, b + s, 2))

    def link_of(self, p):
        return min(p, self.T.peer[p])

    def lab(self, p):
        d, port = self.T.name(p)
        return {"device": d, "port": port}

    def where(self, ps):
        return [f"{self.T.ports[p]['dev']}:{self.T.ports[p]['port']}" for p in ps]

    def related(self, ps):
        out = {}
        for p in ps:
            d, port = self.T.name(p)
            out.setdefault(d, []).append(port)
        return [{"device": d, "ports": sorted(v, key=lambda x: (len(x), x))} for d, v in out.items()]

    def add_healthy(self, kind, where, a, b, note, background=False):
        e = {"kind": kind, "where": where, "start_ns": self.ns(a), "end_ns": self.ns(b), "note": note}
        if background:
            e["background"] = True
        self.healthy.append(e)

    def ns(self, t):
        return self.t0_ns + round(t * 1e9)

    def slot30(self, lo, hi):
        return 30.0 * int(self.rng.integers(int(lo // 30), int(hi // 30) + 1))

    # ------------------------------------------------------------------ schedule
    def schedule(self):
        rng = self.rng
        # --- hosts into jobs: pretrain 9 (5+4), moe 4 (2+2), pool 3
        ga, gb = list(rng.permutation(8)), list(rng.permutation(8) + 8)
        if rng.random() < 0.5:
            ga, gb = gb, ga
        self.j1_hosts = sorted(ga[:5] + gb[:4])
        self.j2_hosts = sorted(ga[5:7] + gb[4:6])
        self.pool = sorted(ga[7:] + gb[6:])
        # --- maintenance drain + leaf firmware upgrade (post-fit)
        for _ in range(200):
            D0 = self.slot30(85 * 60, 150 * 60)
            if not (D0 - 600 < self.clear_t < D0 + 50 * 60):
                break
        self.fw_leaf = int(rng.integers(0, 16))
        self.G = self.fw_leaf // 8
        self.rfw = self.fw_leaf % 8
        self.D0 = D0
        self.dis_t = D0 + float(rng.uniform(4.5, 6.0)) * 60           # spine side disabled
        self.Tr = D0 + float(rng.uniform(8, 12)) * 60                 # leaf reboot
        self.Tb = self.Tr + float(rng.uniform(5, 7)) * 60             # leaf back, links trained
        self.ren_t = self.Tb + float(rng.uniform(2, 4)) * 60          # spine side re-enabled
        self.D1 = self.Tb + float(rng.uniform(8, 14)) * 60            # drain window ends
        self.j1_restart = self.D1 + float(rng.uniform(2, 5)) * 60
        self.j2_restart = self.D1 + float(rng.uniform(3, 8)) * 60
        # --- poller gap (post-fit), not over the leaf outage nor the clear
        for _ in range(500):
            g0 = float(rng.uniform(80, 225)) * 60
            glen = float(rng.uniform(5, 9)) * 60
            if g0 + glen < self.Tr - 120 or g0 > self.Tb + 120:
                if not (g0 - 120 < self.clear_t < g0 + glen + 120):
                    break
        self.gap = (g0, g0 + glen)
        # --- pool host reboot
        self.h_reboot = int(rng.choice(self.pool))
        for _ in range(500):
            ts = float(rng.uniform(80, 215)) * 60
            if not (ts - 300 < self.clear_t < ts + 700) and not (self.D0 - 600 < ts < self.D1 + 300):
                break
        self.t_shut = ts
        self.t_drv = ts + float(rng.uniform(6, 9)) * 60
        # --- pretrain checkpoints / evals
        ph = float(rng.uniform(0, 1800))
        self.ckpt = [(t, t + float(rng.uniform(100, 150))) for t in np.arange(ph - 1800, RUN_S + 1, 1800)]
        e1 = float(rng.uniform(15, 60)) * 60
        e2 = float(rng.uniform(90, 225)) * 60
        self.evals = [(e1, e1 + float(rng.uniform(180, 300))), (e2, e2 + float(rng.uniform(180, 300)))]
        # --- moe job start and all-to-all phases
        self.j2_start = self.slot30(12 * 60, 28 * 60)
        p1 = float(rng.uniform(self.j2_start / 60 + 8, 56)) * 60
        a2a = [(p1, p1 + float(rng.uniform(10, 16)) * 60)]
        tries = 0
        while len(a2a) < 3 and tries < 500:
            tries += 1
            a = float(rng.uniform(80, 222)) * 60
            b = a + float(rng.uniform(10, 20)) * 60
            if b > RUN_S - 60:
                continue
            if a < self.j2_restart + 120 and b > self.D0 - 60:
                continue
            if any(a < y + 600 and b > x - 600 for x, y in a2a):
                continue
            a2a.append((a, b))
        self.a2a = sorted(a2a)
        # --- adaptive routing episodes
        self.ar_eps = []
        a = float(rng.uniform(8, 50)) * 60
        self.ar_eps.append((a, a + float(rng.uniform(10, 20)) * 60))
        for _ in range(200):
            a = float(rng.uniform(78, 215)) * 60
            b = a + float(rng.uniform(12, 25)) * 60
            if not (a < self.D1 and b > self.D0):
                self.ar_eps.append((a, b))
                break

    # ------------------------------------------------------------------ jobs
    def jobs(self):
        self.joblist = []
        # pretrain
        self.joblist.append(dict(name="pretrain", hosts=self.j1_hosts, segs=[(-3 * 3600, self.D0), (self.j1_restart, RUN_S + PAD)], kind="pretrain"))
        self.joblist.append(dict(name="moe", hosts=self.j2_hosts, segs=[(self.j2_start, self.D0), (self.j2_restart, RUN_S + PAD)], kind="moe"))
        # pool blocks
        blocks = {h: [] for h in self.pool}
        blocks[self.h_reboot].append((self.t_shut - 240, self.t_drv + 240))
        for h in self.pool:
            if h // 8 == self.G:
                blocks[h].append((self.D0 - 60, self.D1 + 60))
        self.pool_blocks = blocks

    def pool_jobs(self):
        rng = self.rng
        kinds = [("nccl-tests", 4, 10, 0.86), ("finetune", 20, 50, 0.35), ("inference", 15, 40, 0.06), ("eval", 8, 20, 0.15)]
        t = -float(rng.uniform(5, 25)) * 60
        n = 0
        while t < RUN_S - 300:
            k = kinds[int(rng.choice(4, p=[0.25, 0.35, 0.2, 0.2]))]
            dur = float(rng.uniform(k[1], k[2])) * 60
            size = int(rng.choice([1, 2, 2, 3, 3]))
            free = [h for h in self.pool if not any(a < t + dur and b > t for a, b in self.pool_blocks[h])]
            if not free:
                t += 300
                continue
            hs = sorted(int(x) for x in rng.choice(free, min(size, len(free)), replace=False))
            n += 1
            self.joblist.append(dict(name=f"pool-{n}-{k[0]}", hosts=hs, segs=[(t, t + dur)], kind=k[0], u=k[3]))
            t += dur + float(rng.uniform(2, 12)) * 60

    def job_util(self, job):
        """Per step, rail, host transmit utilisation (fraction of 400G) and destination weights."""
        rng = self.rng
        act = cover(job["segs"])
        n = K
        if job["kind"] == "pretrain":
            base = 0.52 + 0.035 * np.sin(2 * np.pi * (EDGES[:-1]) / 2200 + rng.uniform(0, 6.3)) + ar1(rng, n, 0.025, 0.8)
            dip = np.maximum(cover(self.ckpt), cover(self.evals))
            base = base * (1 - 0.95 * dip)
            W = np.exp(rng.normal(0, 0.06, (n, R, H)))
        elif job["kind"] == "moe":
            ph = cover(self.a2a)
            base = 0.2 + ar1(rng, n, 0.035, 0.7) + ph * (0.36 + np.abs(rng.normal(0, 0.12, n)))
            sig = 0.15 + 0.6 * ph
            W = np.exp(rng.normal(0, 1, (n, R, H)) * sig[:, None, None])
        else:
            base = job["u"] * (1 + ar1(rng, n, 0.08, 0.6))
            W = np.exp(rng.normal(0, 0.1, (n, R, H)))
        base = np.clip(base, 0.0, 0.93) * act
        u = base[:, None, None] * np.clip(1 + rng.normal(0, 0.03, (n, R, H)), 0.85, 1.15)
        mask = np.zeros(H, bool)
        mask[job["hosts"]] = True
        u[:, :, ~mask] = 0
        W[:, :, ~mask] = 0
        return u, W, act

    # ------------------------------------------------------------------ faults
    def eligible_link(self, cands):
        cands = [p for p in cands if self.link_of(p) not in self.used_links]
        return cands

    def take(self, p):
        self.used_links.add(self.link_of(p))

    def busy_ok(self, a, b):
        return not (a < self.j2_restart + 300 and b > self.D0 - 120)

    def gap_ok(self, a):
        return not (self.gap[0] - 90 < a < self.gap[1] + 60)

    def pick_start(self, dur_lo, dur_hi, busy=True, lo=None, hi=None, until_end=False):
        rng = self.rng
        lo = FIT_S + 180 if lo is None else lo
        for _ in range(2000):
            dur = float(rng.uniform(dur_lo, dur_hi)) * 60
            hi_ = (RUN_S - dur - 300) if hi is None else hi
            if hi_ < lo:
                continue
            a = self.slot30(lo, hi_)
            b = RUN_S if until_end else min(a + dur, RUN_S)
            if b - a < 12 * 60:
                continue
            if not self.gap_ok(a):
                continue
            if busy and not self.busy_ok(a, a + 600):
                continue
            return a, b
        raise RuntimeError("no start found")

    def uplinks_ok(self):
        """Leaf-spine link ends not touching the firmware leaf or the starved spine."""
        T = self.T
        out = []
        for g in range(2):
            for r in range(R):
                if g * 8 + r == self.fw_leaf:
                    continue
                for s in range(NSP):
                    if s == getattr(self, "s_starve", -1):
                        continue
                    for ln in range(2):
                        out.append(T.leafup[g, r, s, ln])
        return out

    def hostlinks_ok(self, hosts, exclude_hosts=()):
        T = self.T
        out = []
        for h in hosts:
            if h in exclude_hosts:
                continue
            for r in range(R):
                if (h // 8) * 8 + r == self.fw_leaf:
                    continue
                out.append(T.leafhost[h // 8, r, h % 8])
        return out

    def faults_plan(self):
        rng = self.rng
        plan = ["symbol_errors_saturating", "flapping_link", "width_degraded", "switch_relay_errors", "lossy_link_retransmits",
                "hca_link_down_polling", "credit_starvation", "excessive_buffer_overrun", "link_error_recovery_bursts", "xmit_discards_slvl"]
        extras = ["symbol_errors_saturating:hca", "flapping_link:host", "link_error_recovery_bursts:other", "excessive_buffer_overrun:spine"]
        n_extra = int(rng.integers(0, 5))
        plan += list(rng.choice(extras, n_extra, replace=False))
        self.s_starve = int(rng.integers(0, NSP))
        self.s_relay = int(rng.choice([s for s in range(NSP) if s != self.s_starve]))
        self.h_down = int(rng.choice([h for h in self.pool if h != self.h_reboot]))
        self.fault_plan = plan

    # ------------------------------------------------------------------ build
    def build(self):
        self.schedule()
        self.jobs()
        self.faults_plan()
        # the HCA-down fault blocks its host for pool jobs
        a, b = self.pick_start(55, 70, busy=False)
        self.hdown_win = (a, b)
        self.pool_blocks[self.h_down].append((a - 300, b + 300))
        self.pool_jobs()
        self.place_faults()
        self.traffic()
        self.background()
        self.healthy_events()
        self.fault_symptoms()
        self.poll_times()
        self.evaluate()

    def place_faults(self):
        """Choose ports and windows; link-state parts are applied here (traffic needs them)."""
        rng, T = self.rng, self.T
        busy_hosts = self.j1_hosts + self.j2_hosts
        self.F = []
        for kind in self.fault_plan:
            f = {"kind": kind.split(":")[0], "variant": kind}
            if kind == "symbol_errors_saturating":
                cands = self.eligible_link(self.uplinks_ok())
                p = int(rng.choice(cands))
                if rng.random() < 0.5:
                    p = int(T.peer[p])                # spine end receives
                a, b = self.pick_start(100, 150, busy=False, hi=130 * 60)
                f.update(p=p, a=a, b=b)
            elif kind == "symbol_errors_saturating:hca":
                cands = self.eligible_link(self.hostlinks_ok(range(H), (self.h_reboot, self.h_down)))
                p = int(T.peer[int(rng.choice(cands))])   # the HCA end receives
                a, b = self.pick_start(100, 150, busy=False, hi=130 * 60, until_end=True)
                f.update(p=p, a=a, b=b)
            elif kind == "flapping_link":
                p = int(rng.choice(self.eligible_link(self.uplinks_ok())))
                if rng.random() < 0.5:
                    p = int(T.peer[p])
                a, b = self.pick_start(15, 30, busy=False)
                f.update(p=p, a=a, b=b)
            elif kind == "flapping_link:host":
                cands = self.eligible_link(self.hostlinks_ok(range(H), (self.h_reboot, self.h_down)))
                p = int(rng.choice(cands))
                a, b = self.pick_start(15, 30, busy=True)
                f.update(p=p, a=a, b=b)
            elif kind == "width_degraded":
                cands = self.eligible_link(self.hostlinks_ok(busy_hosts))
                p = int(rng.choice(cands))
                a, b = self.pick_start(50, 100, busy=True)
                f.update(p=p, a=a, b=b, code=int(rng.choice([W_2X, W_1X])))
            elif kind == "switch_relay_errors":
                s = self.s_relay
                # sending leaf: a leaf whose SU has pretrain hosts on the other side too (always true)
                Ls = [L for L in range(16) if L != self.fw_leaf]
                L = int(rng.choice(Ls))
                g, r = divmod(L, 8)
                ps = [int(T.spine[s, g, r, 0]), int(T.spine[s, g, r, 1])]
                if any(self.link_of(x) in self.used_links for x in ps):
                    ps = None
                tries = 0
                while ps is None and tries < 100:
                    tries += 1
                    L = int(rng.choice(Ls))
                    g, r = divmod(L, 8)
                    ps = [int(T.spine[s, g, r, 0]), int(T.spine[s, g, r, 1])]
                    if any(self.link_of(x) in self.used_links for x in ps):
                        ps = None
                dst_cands = [h for h in self.j1_hosts if h // 8 != g]
                a, b = self.pick_start(40, 80, busy=True)
                f.update(ps=ps, p=ps[0], a=a, b=b, g=g, r=r, dst=int(rng.choice(dst_cands)))
            elif kind == "lossy_link_retransmits":
                cands = [p for p in self.eligible_link(self.uplinks_ok())]
                p = int(rng.choice(cands))       # leaf uplink end receives the damage
                a, b = self.pick_start(60, 110, busy=True)
                f.update(p=p, a=a, b=b)
            elif kind == "hca_link_down_polling":
                r = int(rng.choice([r for r in range(R) if (self.h_down // 8) * 8 + r != self.fw_leaf]))
                p = int(T.hca[self.h_down, r])
                a, b = self.hdown_win
                f.update(p=p, a=a, b=b)
            elif kind == "credit_starvation":
                a, b = self.pick_start(25, 45, busy=True)
                f.update(s=self.s_starve, a=a, b=b)
            elif kind == "excessive_buffer_overrun":
                cands = self.eligible_link(self.hostlinks_ok(busy_hosts))
                p = int(rng.choice(cands))        # leaf port receiving from the HCA
                a, b = self.pick_start(40, 90, busy=True)
                f.update(p=p, a=a, b=b)
            elif kind == "excessive_buffer_overrun:spine":
                p = int(rng.choice(self.eligible_link(self.uplinks_ok())))   # leaf uplink receiving from spine
                a, b = self.pick_start(40, 90, busy=True)
                f.update(p=p, a=a, b=b)
            elif kind == "link_error_recovery_bursts":
                p = int(rng.choice(self.eligible_link(self.uplinks_ok())))
                if rng.random() < 0.5:
                    p = int(T.peer[p])
                a, b = self.pick_start(50, 100, busy=False)
                f.update(p=p, a=a, b=b)
            elif kind == "link_error_recovery_bursts:other":
                cands = self.eligible_link(self.hostlinks_ok(range(H), (self.h_reboot, self.h_down)))
                p = int(rng.choice(cands))
                a, b = self.pick_start(50, 100, busy=False, hi=RUN_S - 80 * 60, until_end=True)
                f.update(p=p, a=a, b=b)
            elif kind == "xmit_discards_slvl":
                # an egress port carrying MoE (SL 1) traffic: leaf port toward an MoE host, or a spine port toward its leaf
                if rng.random() < 0.5:
                    cands = self.eligible_link(self.hostlinks_ok(self.j2_hosts))
                else:
                    cands = []
                    for h in self.j2_hosts:
                        for r in range(R):
                            if (h // 8) * 8 + r == self.fw_leaf:
                                continue
                            for s in range(NSP):
                                if s not in (self.s_starve, self.s_relay):
                                    cands += [int(T.spine[s, h // 8, r, ln]) for ln in range(2)]
                    cands = self.eligible_link(sorted(set(cands)))
                p = int(rng.choice(cands))
                a, b = self.pick_start(40, 60, busy=True, until_end=True, hi=RUN_S - 60 * 60)
                f.update(p=p, a=a, b=b)
            if "ps" in f:
                for x in f["ps"]:
                    self.take(x)
            elif "p" in f:
                self.take(f["p"])
            self.F.append(f)
        # link-state parts needed before traffic
        for f in self.F:
            v = f["variant"]
            if v in ("symbol_errors_saturating", "lossy_link_retransmits", "link_error_recovery_bursts") and f["b"] < RUN_S - 60:
                # the cable is replaced: one long down, LinkDownedCounter +1 on both ends, training errors at link-up
                p, b = f["p"], f["b"]
                q = int(T.peer[p])
                dlen = float(rng.uniform(90, 300))
                f["repair"] = b - dlen
                self.link_down(p, b - dlen, b)
                for z in (p, q):
                    self.ev("ldn", z, b - dlen)
                    self.ev("sym", z, b, int(rng.poisson(6)))
            if v.startswith("flapping_link"):
                self.flaps(f)
            elif v == "width_degraded":
                p, a, b = f["p"], f["a"], f["b"]
                q = int(T.peer[p])
                self.width.setdefault(p, []).append((a, b, f["code"]))
                lanes = {W_2X: 2, W_1X: 1}[f["code"]]
                h, r = T.ports[q]["h"], T.ports[q]["r"]
                self.hca_cap.setdefault((h, r), []).append((a, b, LINE_B * lanes / 4 * 0.95))
                # fixed by a reseat at the end: one bounce
                self.link_down(p, b, b + float(rng.uniform(8, 15)))
                self.ev("ldn", p, b)
                self.ev("ldn", q, b)
            elif v == "hca_link_down_polling":
                p, a, b = f["p"], f["a"], f["b"]
                q = int(T.peer[p])
                f["a_exact"] = a + float(rng.uniform(1, 25))
                self.link_down(q, f["a_exact"], b, ps=1, phys=2, phys_peer=2)
                self.ev("ldn", q, f["a_exact"])
                self.ev("ldn", p, f["a_exact"])
            self.fault_ports.update(self.fault_own_ports(f))

    def fault_own_ports(self, f):
        T = self.T
        if f["kind"] == "credit_starvation":
            return set(T.by_dev[SPINES[f["s"]]])
        ps = f.get("ps", [f["p"]])
        return set(ps) | {int(T.peer[x]) for x in ps}

    def flaps(self, f):
        rng = self.rng
        p, a, b = f["p"], f["a"], f["b"]
        q = int(self.T.peer[p])
        nb = int(rng.integers(2, 5))
        starts = [a + float(rng.uniform(1, 25)), *sorted(float(x) for x in rng.uniform(a + 240, b - 150, nb - 1))]
        last = a
        cycles = []
        for t in starts:
            t = max(t, last + 60)
            for _ in range(int(rng.integers(2, 7))):
                d = float(rng.uniform(4, 35))
                if t + d > b + 240:
                    break
                cycles.append((t, t + d))
                t = t + d + float(rng.uniform(8, 90))
            last = t
        for x, y in cycles:
            self.link_down(p, x, y)
            for z in (p, q):
                self.ev("ldn", z, x)
                self.ev("sym", z, y, int(rng.poisson(9)))
                self.ev("ler", z, y, int(rng.random() < 0.5))
                self.ev("rerr", z, y, int(rng.poisson(0.6)))
        f["cycles"] = cycles
        f["b"] = min(RUN_S, 30 * np.ceil(cycles[-1][1] / 30) + 30)

    # ------------------------------------------------------------------ traffic
    def traffic(self):
        rng, T = self.rng, self.T
        NP = T.np
        # link availability per port (1 = up)
        avail = np.ones((NP, K))
        for p, lst in self.down.items():
            avail[p] = np.minimum(avail[p], 1 - cover([(a, b) for a, b, *_ in lst]))
        # healthy link downs are added in healthy_events(); they are drained or idle links, but AR still needs them
        self.healthy_links()
        for p, lst in self.down.items():
            avail[p] = np.minimum(avail[p], 1 - cover([(a, b) for a, b, *_ in lst]))
        for p in range(NP):
            avail[p] = np.minimum(avail[p], avail[T.peer[p]])
        self.avail = avail
        hca_av = np.stack([avail[T.hca[:, r]] for r in range(R)], axis=1)   # (H, R, K)
        F = np.zeros((K, R, H, H))
        self.F_j2 = np.zeros((K, R, H, H))
        self.job_act = {}
        for job in self.joblist:
            u, W, act = self.job_util(job)
            self.job_act[job["name"]] = act
            hs = job["hosts"]
            if len(hs) < 2:
                continue
            # coupling: a synchronous job goes at the pace of its slowest member link
            mult = np.ones(K)
            for h in hs:
                for r in range(R):
                    mult = np.minimum(mult, hca_av[h, r])
                    for a, b, cap in self.hca_cap.get((h, r), []):
                        c = cover([(a, b)])
                        want = np.maximum(u[:, r, h] * LINE_B, 1.0)
                        mult = np.minimum(mult, 1 - c + c * np.minimum(1.0, cap / want))
            u = u * mult[:, None, None]
            job["mult"] = mult
            Wsum = W.sum(axis=2)                                 # (K, R)
            den = Wsum[:, :, None] - W                           # (K, R, H) for sender s
            den = np.where(den > 0, den, 1.0)
            Fj = (u * LINE_B / den)[:, :, :, None] * W[:, :, None, :]
            idx = np.arange(H)
            Fj[:, :, idx, idx] = 0.0
            F += Fj
            if job["name"] == "moe":
                self.F_j2 = Fj
        # a receiver cannot take more than its link: incast beyond ~95% of line rate (or a reduced
        # width) is held back at the senders by credits (that shows as waits, not as bytes)
        rx = F.sum(axis=2)            # (K, R, H)
        cap = np.full((K, R, H), 0.95 * LINE_B)
        for (h, r), lst in self.hca_cap.items():
            for a_, b_, c_ in lst:
                c = cover([(a_, b_)])
                cap[:, r, h] = np.minimum(cap[:, r, h], (1 - c) * cap[:, r, h] + c * c_)
        sc = np.minimum(1.0, cap / np.maximum(rx, 1.0))
        F *= sc[:, :, None, :]
        self.F_j2 *= sc[:, :, None, :]
        self.Fflow = F
        tx = F.sum(axis=3)            # (K, R, H)
        rx = F.sum(axis=2)
        self.tx, self.rx = tx, rx
        grp = np.arange(H) // 8
        cross = (grp[:, None] != grp[None, :]).astype(float)
        U = np.zeros((K, 2, R))
        for g in range(2):
            sm = (grp == g).astype(float)
            U[:, g, :] = np.einsum("krsd,s,sd->kr", F, sm, cross)
        self.U = U
        # adaptive routing weights leaf(g,r) -> spine s link ln
        base_w = np.exp(rng.normal(0, 0.04, (2, R, NSP, 2)))
        w = base_w[None] * np.exp(rng.normal(0, 0.03, (K, 2, R, NSP, 2)))
        w *= self.ar_mult[:, None, None, :, None]
        for g in range(2):
            for r in range(R):
                for s in range(NSP):
                    for ln in range(2):
                        w[:, g, r, s, ln] *= avail[T.leafup[g, r, s, ln]]
        # a spine that lost both links to the destination leaf is avoided for that destination
        for g in range(2):
            for r in range(R):
                for s in range(NSP):
                    dest_ok = np.maximum(avail[T.spine[s, 1 - g, r, 0]], avail[T.spine[s, 1 - g, r, 1]])
                    w[:, g, r, s, :] *= dest_ok[:, None]
        wsum = w.sum(axis=(3, 4), keepdims=True)
        wn = w / np.where(wsum > 0, wsum, 1.0)
        self.wn = wn
        z = np.exp(rng.normal(0, 0.03, (K, 2, R, NSP, 2)))
        for g in range(2):
            for r in range(R):
                for s in range(NSP):
                    for ln in range(2):
                        z[:, g, r, s, ln] *= avail[T.spine[s, g, r, ln]]
        zs = z.sum(axis=4, keepdims=True)
        zn = z / np.where(zs > 0, zs, 1.0)
        xb = np.zeros((NP, K))       # transmitted bytes/s per port
        for h in range(H):
            g, slot = h // 8, h % 8
            for r in range(R):
                xb[T.hca[h, r]] = tx[:, r, h]
                xb[T.leafhost[g, r, slot]] = rx[:, r, h]
        V = U[:, :, :, None] * wn.sum(axis=4)       # (K, g, R, s) bytes from leaf(g,r) through spine s
        for g in range(2):
            for r in range(R):
                for s in range(NSP):
                    for ln in range(2):
                        xb[T.leafup[g, r, s, ln]] = U[:, g, r] * wn[:, g, r, s, ln]
                        xb[T.spine[s, g, r, ln]] = V[:, 1 - g, r, s] * zn[:, g, r, s, ln]
        # background SM / IPoIB chatter on every port that is up
        bgb = rng.uniform(1.2e4, 3.5e4, NP)
        xb += bgb[:, None] * avail
        self.xb = xb
        self.rb = xb[T.peer]
        self.util = xb / LINE_B
        psize = rng.uniform(3850, 4150, NP)
        self.xp = (xb - bgb[:, None] * avail) / psize[:, None] + (bgb / 300.0)[:, None] * avail
        self.rp = self.xp[T.peer]
        self.mcast = (rng.uniform(2, 8, NP)[:, None] * avail)      # multicast pkts/s (IPoIB)

    def healthy_links(self):
        """Link-state effects of healthy phenomena (needed before traffic)."""
        rng, T = self.rng, self.T
        # host reboot: bounce at shutdown, host absent, bounce at driver load
        h = self.h_reboot
        self.host_absent.setdefault(HOSTS[h], []).append((self.t_shut, self.t_drv + 40))
        d1 = self.t_shut + float(rng.uniform(15, 40))
        self.reboot_bounces = []
        for r in range(R):
            p = int(T.leafhost[h // 8, r, h % 8])
            q = int(T.hca[h, r])
            x1, y1 = d1 + float(rng.uniform(0, 2)), d1 + float(rng.uniform(60, 150))
            x2, y2 = self.t_drv + float(rng.uniform(0, 3)), self.t_drv + float(rng.uniform(10, 25))
            for x, y in ((x1, y1), (x2, y2)):
                self.link_down(p, x, y)
                self.ev("ldn", p, x)
                self.ev("sym", p, y, int(rng.poisson(4)))
            self.reset_all.setdefault(q, []).append(self.t_drv)
            self.ev("sym", q, y2 + 0.5, int(rng.poisson(3)))
            self.reboot_bounces.append((p, x1, y2))
        # leaf firmware upgrade
        L = self.fw_leaf
        g, r = divmod(L, 8)
        self.sw_absent.setdefault(LEAVES[L], []).append((self.Tr, self.Tb))
        for p in T.by_dev[LEAVES[L]]:
            self.reset_all.setdefault(p, []).append(self.Tr)
        for s in range(NSP):
            for ln in range(2):
                ps = int(T.spine[s, g, r, ln])
                pl = int(T.leafup[g, r, s, ln])
                # spine side administratively disabled, leaf side polls (or is rebooting)
                self.down.setdefault(ps, []).append((self.dis_t, self.ren_t, 1, 3))
                self.down.setdefault(pl, []).append((self.dis_t, self.ren_t, 1, 2))
                self.init.setdefault(ps, []).append((self.ren_t, self.ren_t + float(rng.uniform(2, 8)), 2))
                self.init.setdefault(pl, []).append((self.ren_t, self.ren_t + float(rng.uniform(2, 8)), 2))
                self.ev("sym", ps, self.ren_t + 1, int(rng.poisson(5)))
                self.ev("sym", pl, self.ren_t + 1, int(rng.poisson(5)))
        for slot in range(8):
            hh = g * 8 + slot
            pl = int(T.leafhost[g, r, slot])
            q = int(T.hca[hh, r])
            up = self.Tb + float(rng.uniform(5, 30))
            self.down.setdefault(q, []).append((self.Tr, up, 1, 2))
            self.down.setdefault(pl, []).append((self.Tr, up, 1, 2))
            self.init.setdefault(pl, []).append((up, up + float(rng.uniform(10, 45)), int(rng.choice([2, 3]))))
            self.ev("ldn", q, self.Tr + float(rng.uniform(0, 1)))
            self.ev("sym", q, up, int(rng.poisson(4)))
            self.ev("sym", pl, up, int(rng.poisson(4)))
        # SM sweep storms after the reboot drop a few SMPs on spine ports
        for s in range(NSP):
            for p in rng.choice(T.by_dev[SPINES[s]], 3, replace=False):
                self.ev("vl15", int(p), self.Tb + float(rng.uniform(5, 60)), int(rng.integers(1, 4)))
        # AR episodes: load moves from one spine to another (healthy)
        self.ar_pairs = []
        for a, b in self.ar_eps:
            s_from, s_to = [int(x) for x in rng.choice(NSP, 2, replace=False)]
            c = cover([(a, b)])
            ramp = np.convolve(c, np.ones(12) / 12, mode="same")
            self.ar_mult[:, s_from] *= 1 - 0.45 * ramp
            self.ar_mult[:, s_to] *= 1 + 0.7 * ramp
            self.ar_pairs.append((s_from, s_to, a, b))
        # credit starvation fault throttles the spine (AR moves load away)
        for f in self.F:
            if f["kind"] == "credit_starvation":
                c = cover([(f["a"], f["b"])])
                ramp = np.convolve(c, np.ones(18) / 18, mode="full")[:K]
                self.ar_mult[:, f["s"]] *= 1 - 0.62 * ramp
                f["ramp"] = ramp

    # ------------------------------------------------------------------ background
    def background(self):
        rng, T = self.rng, self.T
        NP = T.np
        util_x = self.util
        avail = self.avail
        # credit waits: per-port queue sensitivity (heavy tailed), util^2.5, burstiness
        kq = np.exp(rng.normal(np.log(0.009), 0.75, NP))
        hca_mask = np.array([p["role"] == "hca" for p in T.ports])
        kq[hca_mask] *= 0.6
        self.kq = kq
        noise = np.exp(rng.normal(0, 0.35, (NP, K)))
        wf = kq[:, None] * np.clip(util_x, 0, 1) ** 2.5 * noise
        # MoE all-to-all: hot receivers, spines and uplinks of the MoE leaves wait
        ph = cover(self.a2a) * self.job_act["moe"]
        rx_j2 = self.F_j2.sum(axis=2)   # (K, R, H)
        for h in self.j2_hosts:
            g, slot = h // 8, h % 8
            for r in range(R):
                share = rx_j2[:, r, h] / np.maximum(rx_j2[:, r, :].sum(axis=1) / 4, 1.0)
                wf[T.leafhost[g, r, slot]] += 0.035 * ph * np.clip(share, 0, 4) ** 1.5 * np.exp(rng.normal(0, 0.3, K))
                wf[T.hca[h, r]] += 0.012 * ph * np.exp(rng.normal(0, 0.4, K))
        for g in range(2):
            for r in range(R):
                for s in range(NSP):
                    for ln in range(2):
                        wf[T.spine[s, g, r, ln]] += 0.022 * ph * np.exp(rng.normal(0, 0.45, K))
                        wf[T.leafup[g, r, s, ln]] += 0.008 * ph * np.exp(rng.normal(0, 0.45, K))
        wf += self.xw_extra
        wf = np.clip(wf, 0, 0.9) * avail
        self.E["xwait"] += wf * TICK * STEP
        # historical waits since yesterday's clear
        since = 86400.0 - self.clear_t - PAD        # seconds from yesterday's clear to the grid start
        hutil = {h: (0.5 if h in self.j1_hosts else 0.3 if h in self.j2_hosts else 0.12) for h in range(H)}
        hist_util = np.array([hutil[p["h"]] if p["role"] in ("hca", "leaf-hca") else 0.17 for p in T.ports])
        hist = kq * hist_util ** 2.5 * TICK * np.exp(rng.normal(0, 0.4, NP))
        self.init_xwait = np.minimum(hist * since, 2**32 - 1)
        self.since_clear = since
        # background symbol errors
        links = sorted({self.link_of(p) for p in range(NP)})
        free_links = [x for x in links if x not in self.used_links]
        nb = max(4, int(0.03 * len(links)))
        sel = rng.choice(free_links, nb + 3, replace=False)
        self.bg_ports, self.chatty_ports = [], []
        for i, lk in enumerate(sel):
            p = int(lk) if rng.random() < 0.5 else int(T.peer[int(lk)])
            if i < nb:
                lam = float(rng.uniform(1, 6)) / 3600
                self.bg_ports.append(p)
            else:
                if T.ports[p]["role"] == "hca":
                    p = int(T.peer[p])
                lam = float(rng.uniform(150, 400)) / 3600
                self.chatty_ports.append(p)
            self.E["sym"][p] += rng.poisson(lam * STEP, K)
            self.E["rerr"][p] += rng.poisson(lam * STEP * 0.01, K)
        # benign multicast relay errors on leaf host ports
        self.relay_ports = []
        for p in range(T.nsw):
            if T.ports[p]["role"] == "leaf-hca" and T.ports[p]["dev"] != LEAVES[self.fw_leaf] and rng.random() < 0.25:
                lam = float(np.exp(rng.uniform(np.log(0.004), np.log(0.05))))
                self.E["relay"][p] += rng.poisson(lam * STEP * avail[p])
                self.relay_ports.append((p, lam))
        # HCA hw_counters: AR reordering and rare timeouts on busy HCAs, RDMA write/read requests
        for h in range(H):
            for r in range(R):
                q = T.hca[h, r]
                ux = self.util[q]
                self.HWS["out_of_sequence"][h, r] += rng.poisson(0.004 * STEP * ux)
                self.HWS["packet_seq_err"][h, r] += rng.poisson(0.002 * STEP * ux)
                self.HWS["duplicate_request"][h, r] += rng.poisson(0.0015 * STEP * ux)
                self.HWS["local_ack_timeout_err"][h, r] += rng.poisson(0.00003 * STEP * ux)
                self.HWS["rx_write_requests"][h, r] += self.rb[q] / 262144.0 * STEP
                self.HWS["rx_read_requests"][h, r] += self.rb[q] / 4.2e6 * STEP

    # ------------------------------------------------------------------ healthy labels & events
    def healthy_events(self):
        rng, T = self.rng, self.T
        # job starts and stops (+ QP flush errors at teardown)
        for job in self.joblist:
            hs = job["hosts"]
            where = [f"{HOSTS[h]}:*" for h in hs] + self.where([T.leafhost[h // 8, r, h % 8] for h in hs for r in range(R)])
            for a, b in job["segs"]:
                if 0 <= a < RUN_S:
                    self.add_healthy("job_start", where, a - 30, a + 240, f"{job['name']} ({job['kind']}) starts on {len(hs)} host(s)")
                if 0 <= b < RUN_S:
                    self.add_healthy("job_stop", where, b - 30, b + 180, f"{job['name']} stops; QPs flushed (req/resp_cqe_flush_error jump on its HCAs)")
                    for h in hs:
                        if HOSTS[h] in self.host_absent and in_any(b, self.host_absent[HOSTS[h]]):
                            continue
                        for r in range(R):
                            tt = b + float(rng.uniform(1, 8))
                            self.hwev("req_cqe_flush_error", h, r, tt, int(rng.integers(80, 3000)))
                            self.hwev("resp_cqe_flush_error", h, r, tt, int(rng.integers(40, 1500)))
                            if rng.random() < 0.15:
                                self.hwev("req_cqe_error", h, r, tt, int(rng.integers(1, 4)))
        j1w = [f"{HOSTS[h]}:*" for h in self.j1_hosts]
        for a, b in self.ckpt:
            if b > 0 and a < RUN_S and not (self.D0 <= a <= self.j1_restart):
                self.add_healthy("checkpoint_pause", j1w, a, b + 60, "pretrain writes a checkpoint to storage (Ethernet): its IB traffic nearly stops for ~2 min")
        for a, b in self.evals:
            self.add_healthy("eval_phase", j1w, a, b + 60, "pretrain evaluation: IB traffic nearly stops")
        spw = [f"{s}:*" for s in SPINES]
        upw = self.where([p for p in range(T.nsw) if T.ports[p]["role"] == "leaf-spine"])
        for a, b in self.a2a:
            self.add_healthy("moe_alltoall_phase", spw + upw + [f"{HOSTS[h]}:*" for h in self.j2_hosts] +
                             self.where([T.leafhost[h // 8, r, h % 8] for h in self.j2_hosts for r in range(R)]),
                             a, b + 120, "MoE expert-parallel all-to-all: PortXmitWait climbs on all spine ports, leaf uplinks and the MoE hosts' ports at once")
        # host reboot
        h = self.h_reboot
        lp = [T.leafhost[h // 8, r, h % 8] for r in range(R)]
        self.add_healthy("host_reboot", [f"{HOSTS[h]}:*", *self.where(lp)], self.t_shut, self.t_drv + 240,
                         f"{HOSTS[h]} rebooted: links bounce at shutdown and at driver load (LinkDownedCounter +2), Telegraf silent, HCA counters restart from 0")
        # nightly clear
        if 0 < self.clear_t < RUN_S:
            self.add_healthy("ibclearcounters", ["*"], self.clear_t - 2, self.clear_t + 120,
                             "nightly ibclearcounters (22:00 UTC): error counters and PortXmitWait of every reachable switch port and HCA to 0, data counters untouched")
        # drain + firmware upgrade
        L = self.fw_leaf
        g, r = divmod(L, 8)
        gh = [hh for hh in range(H) if hh // 8 == g]
        sp = [T.spine[s, g, r, ln] for s in range(NSP) for ln in range(2)]
        self.add_healthy("maintenance_drain", [f"{HOSTS[x]}:*" for x in gh] + [f"{LEAVES[x]}:*" for x in range(16)] + spw,
                         self.D0 - 60, self.j2_restart + 300,
                         f"SU-{'AB'[g]} drained for maintenance: pretrain and moe checkpointed and stopped, restarted after the window")
        self.add_healthy("leaf_firmware_upgrade", [f"{LEAVES[L]}:*"] + self.where(sp) + [f"{HOSTS[x]}:mlx5_{r}" for x in gh],
                         self.dis_t - 30, self.ren_t + 300,
                         f"{LEAVES[L]} firmware upgrade: spine ports disabled (PhysLinkState 3), leaf rebooted and absent from the poll, its counters restart at 0, HCA links down/up")
        # AR shifts
        for s_from, s_to, a, b in self.ar_pairs:
            ps = [T.leafup[gg, rr, s, ln] for gg in range(2) for rr in range(R) for s in (s_from, s_to) for ln in range(2)]
            self.add_healthy("adaptive_routing_shift", [f"{SPINES[s_from]}:*", f"{SPINES[s_to]}:*", *self.where(ps)], a - 60, b + 180,
                             f"adaptive routing moves load from {SPINES[s_from]} to {SPINES[s_to]} (no extra waits on the lighter spine)")
        # poller gap
        self.add_healthy("poller_gap", ["*"], self.gap[0], self.gap[1] + 90, "ibpoll.py hung: no switch lines at all, Telegraf lines continue")
        # background
        self.add_healthy("background_symbol_errors", self.where(self.bg_ports), 0, RUN_S, "sporadic single symbol errors (1-6/h), all run", background=True)
        self.add_healthy("background_symbol_errors", self.where(self.chatty_ports), 0, RUN_S,
                         "steady 150-400 symbol errors/h since before the recording (within spec); threshold resets every few hours", background=True)
        self.add_healthy("benign_multicast_relay_errors", self.where([p for p, _ in self.relay_ports]), 0, RUN_S,
                         "PortRcvSwitchRelayErrors trickle from IPoIB multicast not sent back out of its ingress port (benign)", background=True)

    # ------------------------------------------------------------------ fault symptoms
    def fault_symptoms(self):
        rng, T = self.rng, self.T
        tt = EDGES[:-1] + STEP / 2
        for f in self.F:
            v, a, b = f["variant"], f["a"], f.get("repair", f["b"])
            win = ((tt >= a) & (tt < b)).astype(float)
            fr = np.clip((tt - a) / max(b - a, 1), 0, 1)
            if v.startswith("symbol_errors_saturating"):
                p = f["p"]
                q = int(T.peer[p])
                lam0 = float(rng.uniform(0.3, 1.0))
                lam1 = float(rng.uniform(1500, 4000))
                ramp = float(rng.uniform(60, 95)) * 60
                x = np.clip((tt - a) / ramp, 0, 1)
                lam = lam0 * np.exp(np.log(lam1 / lam0) * x) * win * np.exp(rng.normal(0, 0.15, K))
                self.E["sym"][p] += rng.poisson(lam * STEP)
                self.E["sym"][q] += rng.poisson(lam * STEP * 0.002)
                self.E["rerr"][p] += rng.poisson(lam * STEP * 0.005)
                self.E["ler"][p] += rng.poisson(win * (lam > 100) * STEP / 240)
                self.E["ler"][q] += rng.poisson(win * (lam > 100) * STEP / 400)
                self.E["lli"][p] += rng.poisson(win * (lam > 400) * STEP * 0.03)
                rel = []
                role = T.ports[p]["role"]
                if role == "leaf-spine":     # leaf forwards EBP-marked packets to its hosts
                    g, r = T.ports[p]["g"], T.ports[p]["r"]
                    for slot in range(8):
                        hq = T.hca[g * 8 + slot, r]
                        share = self.rb[hq] / LINE_B
                        self.E["rpe"][hq] += rng.poisson(lam * STEP * 0.003 * share)
                        if (g * 8 + slot) in self.j1_hosts + self.j2_hosts:
                            rel.append(int(hq))
                elif role == "spine-leaf":   # spine forwards to the other SU's leaf on the same rail
                    g, r, s = T.ports[p]["g"], T.ports[p]["r"], T.ports[p]["s"]
                    for ln in range(2):
                        pq = T.leafup[1 - g, r, s, ln]
                        self.E["rpe"][pq] += rng.poisson(lam * STEP * 0.002)
                        rel.append(int(pq))
                f["related"] = rel
                f["sig"] = (f"SymbolErrorCounter rising from ~{lam0:.1f}/s to ~{lam1:.0f}/s over {ramp / 60:.0f} min at the receiving end; threshold resets then 16-bit saturation (65535) every sample; "
                            "PortRcvErrors ~0.5%, LinkErrorRecovery every few minutes; next hop sees PortRcvRemotePhysicalErrors")
                if role == "hca":
                    f["sig"] = (f"HCA symbol_error rising from ~{lam0:.1f}/s to ~{lam1:.0f}/s over {ramp / 60:.0f} min; the sysfs 16-bit counter sticks at 65535 until the nightly clear (no poller resets on hosts); "
                                "port_rcv_errors ~0.5%, local_link_integrity_errors saturating at 15")
            elif v.startswith("flapping_link"):
                p = f["p"]
                q = int(T.peer[p])
                rel = []
                if T.ports[p]["role"] in ("leaf-spine", "spine-leaf"):
                    lp = p if T.ports[p]["role"] == "leaf-spine" else q
                    g, r = T.ports[lp]["g"], T.ports[lp]["r"]
                    rel = [int(T.leafup[g, r, s, ln]) for s in range(NSP) for ln in range(2) if T.leafup[g, r, s, ln] != lp]
                    f["sig"] = "bursts of {} down/up cycles: LinkDownedCounter +1 per cycle on both ends, PortState 1/PhysLinkState 2 when a poll lands in a down, symbol errors at each link-up; adaptive routing shifts load to the sibling uplinks".format(len(f["cycles"]))
                else:
                    h = T.ports[q]["h"]
                    job = self.job_of(h, a)
                    if job:
                        rel = [int(T.hca[x, r]) for x in job["hosts"] if x != h for r in range(R)]
                        rel += [int(T.leafhost[x // 8, r, x % 8]) for x in job["hosts"] if x != h for r in range(R)]
                    f["sig"] = "host link: bursts of {} down/up cycles: LinkDownedCounter / link_downed +1 per cycle on both ends, PortState 1 at polls in a down, the host's job stalls during each down".format(len(f["cycles"]))
                f["related"] = rel
            elif v == "width_degraded":
                p, q = f["p"], int(T.peer[f["p"]])
                h = T.ports[q]["h"]
                self.xw_extra_add(p, win * float(rng.uniform(0.04, 0.1)) * self.job_act_of(self.T.ports[q]["h"]))
                job = self.job_of(h, a)
                rel = []
                if job:
                    rel = [int(T.hca[x, r]) for x in job["hosts"] for r in range(R) if int(T.hca[x, r]) != q]
                    rel += [int(T.leafhost[x // 8, r, x % 8]) for x in job["hosts"] for r in range(R) if int(T.leafhost[x // 8, r, x % 8]) != p]
                f["related"] = rel
                f["sig"] = "LinkWidthActive 2 (4X) -> {} ({}) on the leaf port without a link down (NDR width reduction); HCA capped at {} Gb/s, the job slows to its pace; credit waits on the leaf port toward it; no extra errors; ends with a reseat bounce".format(
                    f["code"], {W_2X: "2X", W_1X: "1X"}[f["code"]], {W_2X: 200, W_1X: 100}[f["code"]])
            elif v == "switch_relay_errors":
                rho = 2e-6 * np.exp(np.log(20) * fr) * win
                for x in f["ps"]:
                    self.E["relay"][x] += rng.poisson(rho * self.rp[x] * STEP)
                dst = f["dst"]
                r = f["r"]
                g = f["g"]
                tot = sum(rho * self.rp[x] for x in f["ps"])
                self.HWS["out_of_sequence"][dst, r] += rng.poisson(tot * STEP * 0.8)
                senders = [x for x in range(H) if x // 8 == g and self.tx[:, r, x].max() > 0 and x in self.j1_hosts]
                for x in senders:
                    self.HWS["local_ack_timeout_err"][x, r] += rng.poisson(tot * STEP * 0.15 / max(len(senders), 1))
                    self.HWS["packet_seq_err"][x, r] += rng.poisson(tot * STEP * 0.5 / max(len(senders), 1))
                f["related"] = [int(T.hca[dst, r])] + [int(T.hca[x, r]) for x in senders]
                f["sig"] = "PortRcvSwitchRelayErrors rising (~2e-6 -> 4e-5 of received packets) on the two {} ports receiving from {} (LFT entries for {}'s LID lost); destination HCA out_of_sequence, senders local_ack_timeout_err".format(
                    SPINES[self.s_relay], LEAVES[g * 8 + r], HOSTS[dst] + f" mlx5_{r}")
            elif v == "lossy_link_retransmits":
                p = f["p"]          # leaf uplink receiving
                g, r = T.ports[p]["g"], T.ports[p]["r"]
                pdrop = float(np.exp(rng.uniform(np.log(1.5e-7), np.log(6e-7)))) * (1 + 0.3 * fr) * win
                drops = rng.poisson(pdrop * self.rp[p] * STEP)
                self.E["rerr"][p] += drops
                self.E["sym"][p] += rng.poisson(drops * 2.5 + win * 0.02 * STEP)
                rx_c = np.zeros((K, H))
                tx_c = np.zeros((K, H))
                for d in range(H):
                    if d // 8 == g:
                        rx_c[:, d] = self.Fflow[:, r, :, d][:, np.arange(H) // 8 != g].sum(axis=1)
                    else:
                        tx_c[:, d] = self.Fflow[:, r, d, :][:, np.arange(H) // 8 == g].sum(axis=1)
                rxs = rx_c / np.maximum(rx_c.sum(axis=1, keepdims=True), 1.0)
                txs = tx_c / np.maximum(tx_c.sum(axis=1, keepdims=True), 1.0)
                rel = []
                for d in range(H):
                    if rx_c[:, d].max() > 0:
                        self.HWS["out_of_sequence"][d, r] += rng.poisson(drops * rxs[:, d] * 1.6)
                        self.HWS["duplicate_request"][d, r] += rng.poisson(drops * rxs[:, d] * 0.3)
                        rel.append(int(T.hca[d, r]))
                    if tx_c[:, d].max() > 0:
                        self.HWS["packet_seq_err"][d, r] += rng.poisson(drops * txs[:, d] * 0.9)
                        self.HWS["local_ack_timeout_err"][d, r] += rng.poisson(drops * txs[:, d] * 0.2)
                        rel.append(int(T.hca[d, r]))
                f["related"] = sorted(set(rel))
                f["sig"] = f"spine->leaf link dropping ~2e-7..8e-7 of packets: PortRcvErrors (and a few symbol errors) at the leaf uplink, following load; job HCAs on rail {r} retransmit (out_of_sequence, duplicate_request, packet_seq_err, local_ack_timeout_err)"
            elif v == "hca_link_down_polling":
                f["related"] = []
                f["sig"] = f"HCA link down ~{(b - a) / 60:.0f} min on an idle host: leaf port PortState 1 / PhysLinkState 2 (Polling) on every poll, LinkDownedCounter +1 both ends, HCA counters flat (Telegraf still reports it); up after a reseat"
            elif v == "credit_starvation":
                s = f["s"]
                ramp = f["ramp"] * (tt < b + 60)
                lvl = float(rng.uniform(0.12, 0.3))
                for p in T.by_dev[SPINES[s]]:
                    self.xw_extra_add(p, ramp * lvl * np.exp(rng.normal(0, 0.25, K)) * np.clip(self.util[p] * 8, 0.3, 1.5))
                rel = []
                for g in range(2):
                    for r in range(R):
                        for ln in range(2):
                            pl = T.leafup[g, r, s, ln]
                            self.xw_extra_add(pl, ramp * float(rng.uniform(0.02, 0.05)))
                            rel.append(int(pl))
                f["related"] = rel
                f["sig"] = (f"PortXmitWait on all {len(T.by_dev[SPINES[s]])} ports of {SPINES[s]} rising {lvl * 30:.0f}-{lvl * 100:.0f}% of the time (32-bit counters saturate within tens of minutes) "
                            "while its throughput falls to ~35% as adaptive routing moves traffic to the other spines; its leaf uplinks wait more")
            elif v.startswith("excessive_buffer_overrun"):
                p = f["p"]
                q = int(T.peer[p])
                k = float(rng.uniform(0.15, 0.6))
                ev = rng.poisson(k * np.clip(self.rb[p] / (0.5 * LINE_B), 0, 2) * win * STEP)
                self.E["ebo"][p] += ev
                self.E["rerr"][p] += ev
                if T.ports[q]["role"] == "hca":
                    h, r = T.ports[q]["h"], T.ports[q]["r"]
                    self.HWS["local_ack_timeout_err"][h, r] += rng.poisson(ev * 0.3)
                    self.HWS["packet_seq_err"][h, r] += rng.poisson(ev * 0.6)
                f["related"] = []
                f["sig"] = "ExcessiveBufferOverrunErrors ~{:.2f}/s at 50% load on the leaf port receiving from {} (4-bit: threshold reset at 8, saturates at 15 within a sweep), PortRcvErrors alike, following the sender's load".format(
                    k, T.ports[q]["dev"] + ":" + T.ports[q]["port"])
            elif v.startswith("link_error_recovery_bursts"):
                p = f["p"]
                q = int(T.peer[p])
                t = a + float(rng.uniform(1, 25))
                nb = 0
                while t < b - 60:
                    for _ in range(int(rng.integers(2, 11))):
                        x = t + float(rng.uniform(0, 40))
                        for z in (p, q):
                            self.ev("ler", z, x)
                        self.ev("sym", p, x, int(rng.poisson(6)))
                        self.ev("sym", q, x, int(rng.poisson(1.5)))
                        self.ev("rerr", p, x, int(rng.random() < 0.3))
                    nb += 1
                    t += float(rng.uniform(4, 15)) * 60
                f["related"] = []
                f["sig"] = f"{nb} bursts of 2-10 LinkErrorRecoveryCounter increments on both ends, 4-15 min apart, symbol errors with each; PortState stays Active, LinkDownedCounter unchanged"
            elif v == "xmit_discards_slvl":
                p = f["p"]
                role = T.ports[p]["role"]
                g, r = T.ports[p]["g"], T.ports[p]["r"]
                if role == "leaf-hca":
                    h = T.ports[p]["h"]
                    j2 = self.F_j2[:, r, :, h].sum(axis=1)
                else:
                    s, ln = T.ports[p]["s"], T.ports[p]["ln"]
                    src = np.arange(H) // 8 != g
                    dst = np.arange(H) // 8 == g
                    flow = self.F_j2[:, r][:, src][:, :, dst].sum(axis=(1, 2))
                    share = self.xb[p] / np.maximum(sum(self.xb[T.spine[x, g, r, y]] for x in range(NSP) for y in range(2)), 1.0)
                    j2 = flow * share
                dl = float(np.exp(rng.uniform(np.log(1.5e-6), np.log(6e-6))))
                disc = rng.poisson(j2 / 4000.0 * dl * STEP * win * (1 + 2.5 * cover(self.a2a)))
                self.E["xdisc"][p] += disc
                rel = []
                for x in self.j2_hosts:
                    if x // 8 != g or role == "leaf-hca":
                        self.HWS["local_ack_timeout_err"][x, r] += rng.poisson(disc * 0.1 / 3)
                        self.HWS["packet_seq_err"][x, r] += rng.poisson(disc * 0.3 / 3)
                        rel.append(int(T.hca[x, r]))
                f["related"] = rel
                f["sig"] = "PortXmitDiscards (head-of-queue lifetime drops) only for SL 1 (MoE job) traffic through this egress port after a bad SL2VL/VLArb setting; bursts during all-to-all, zero when the MoE job is stopped; MoE senders retransmit"
        for f in self.F:
            if "repair" in f:
                f["sig"] += "; ends with a cable replacement (one down, LinkDownedCounter +1 on both ends)"

    def xw_extra_add(self, p, arr):
        self.xw_extra[p] += arr
        # background() already ran for traffic-independent parts: add directly to the counts
        self.E["xwait"][p] += np.clip(arr, 0, 0.9) * self.avail[p] * TICK * STEP

    def job_act_of(self, h):
        act = np.zeros(K)
        for job in self.joblist:
            if h in job["hosts"] and len(job["hosts"]) > 1:
                act = np.maximum(act, self.job_act[job["name"]])
        return act

    def job_of(self, h, t):
        for job in self.joblist:
            if h in job["hosts"] and any(a <= t < b for a, b in job["segs"]):
                return job
        return None

    # ------------------------------------------------------------------ poll timing
    def poll_times(self):
        rng, T = self.rng, self.T
        sw_order = LEAVES + SPINES
        ports_of = {d: sorted(T.by_dev[d], key=lambda p: int(T.ports[p]["port"])) for d in sw_order}
        samples = {p: [] for p in range(T.nsw)}
        for j in range(RUN_S // 60):
            t = 60.0 * j + 0.3 + float(rng.uniform(0, 1.1))
            if self.gap[0] <= t < self.gap[1]:
                continue
            for d in sw_order:
                if in_any(t, self.sw_absent.get(d, [])):
                    t += 3.0 + float(rng.uniform(0, 1.0))      # MAD timeouts, skipped
                    continue
                t += 0.06 + float(rng.exponential(0.02))
                if rng.random() < 0.004:
                    t += float(rng.uniform(1, 3))              # a slow switch
                for p in ports_of[d]:
                    samples[p].append(t)
                    t += 0.046 + float(rng.exponential(0.006))
        self.sw_samples = {p: np.array(v) for p, v in samples.items()}
        self.host_samples = {}
        for h in range(H):
            ts = 30.0 * np.arange(RUN_S // 30)
            ab = self.host_absent.get(HOSTS[h], [])
            keep = np.array([not in_any(t, ab) for t in ts])
            self.host_samples[h] = ts[keep]

    # ------------------------------------------------------------------ counter evaluation
    def ev_cum(self, key, p, ts):
        lst = self.EV[key].get(p)
        if not lst:
            return np.zeros(len(ts))
        lst = sorted(lst)
        tt = np.array([x[0] for x in lst])
        cc = np.cumsum([x[1] for x in lst])
        i = np.searchsorted(tt, ts, side="right")
        return np.where(i > 0, cc[np.maximum(i - 1, 0)], 0).astype(float)

    def cum(self, key, p, ts, C):
        v = np.floor(np.interp(ts, EDGES, C[p])) if C is not None else np.zeros(len(ts))
        return v + self.ev_cum(key, p, ts)

    def evaluate(self):
        rng, T = self.rng, self.T
        NP = T.np
        # cumulative step counts
        C = {}
        for k in [*ERR_KEYS, "xwait"]:
            arr = self.E[k]
            C[k] = np.concatenate([np.zeros((NP, 1)), np.cumsum(arr, axis=1)], axis=1) if arr.any() else None
        Cd = {}
        for k, arr in (("xdata", self.xb / 4.0), ("rdata", self.rb / 4.0), ("xpkts", self.xp), ("rpkts", self.rp)):
            Cd[k] = np.concatenate([np.zeros((NP, 1)), np.cumsum(arr * STEP, axis=1)], axis=1)
        Cm = np.concatenate([np.zeros((NP, 1)), np.cumsum(self.mcast * STEP, axis=1)], axis=1)
        # initial values
        init = {}
        dev_up = {d: float(rng.uniform(20, 240)) * 86400 for d in LEAVES + SPINES}
        sw_up = np.array([dev_up.get(p["dev"], 0.0) for p in T.ports])
        host_up = rng.uniform(2, 45, H) * 86400
        upt = np.array([host_up[p["h"]] if p["role"] == "hca" else sw_up[p["idx"]] for p in T.ports])
        hist = rng.uniform(0.04, 0.3, NP) * LINE_B
        init["xdata"] = np.floor(upt * hist / 4)
        init["rdata"] = np.floor(upt * hist * rng.uniform(0.9, 1.1, NP) / 4)
        init["xpkts"] = np.floor(upt * hist / 3900)
        init["rpkts"] = np.floor(upt * hist / 3900 * rng.uniform(0.9, 1.1, NP))
        since = self.since_clear
        for k in ERR_KEYS:
            init[k] = np.zeros(NP)
        init["ldn"] = np.where(rng.random(NP) < 0.04, rng.integers(1, 3, NP), 0).astype(float)
        init["vl15"] = np.where(rng.random(NP) < 0.1, rng.integers(1, 6, NP), 0).astype(float)
        init["rerr"] = np.where(rng.random(NP) < 0.02, rng.integers(1, 4, NP), 0).astype(float)
        for p in self.bg_ports:
            init["sym"][p] = rng.poisson(since / 3600 * 3)
        for p in self.chatty_ports:
            init["sym"][p] = rng.integers(0, 900)
        for p, lam in self.relay_ports:
            init["relay"][p] = min(rng.poisson(lam * since), int(rng.integers(0, 1000)))
        init["xwait"] = self.init_xwait.copy()
        for k in ERR_KEYS:
            init[k] = np.minimum(init[k], 2 ** BITS[k] - 1)
        self.initv = init
        # nightly clear times per port (HCAs only if reachable)
        clear_at = {}
        if 0 < self.clear_t < RUN_S:
            order = rng.permutation(NP)
            for i, p in enumerate(order):
                tc = self.clear_t + 10.0 * i / NP
                if T.ports[p]["role"] == "hca":
                    h = T.ports[p]["h"]
                    if in_any(tc, self.host_absent.get(HOSTS[h], [])) or in_any(tc, self.down.get(p, [])):
                        continue
                elif in_any(tc, self.sw_absent.get(T.ports[p]["dev"], [])):
                    continue
                clear_at[p] = tc
        self.clear_at = clear_at
        # -------- switch ports
        self.sw_values = {}
        self.threshold_resets = []
        for p in range(T.nsw):
            ts = self.sw_samples[p]
            if len(ts) == 0:
                self.sw_values[p] = None
                continue
            hard = sorted(self.reset_all.get(p, []))
            vals = {}
            for k in DATA_KEYS:
                vals[k] = self.data_eval(Cd[k][p], ts, init[k][p], hard)
            # xwait: hard resets + clear
            rs = sorted(hard + ([clear_at[p]] if p in clear_at else []))
            vals["xwait"] = self.reset_eval("xwait", p, ts, C["xwait"], init["xwait"][p], rs)
            # error counters with threshold resets
            rs_err = sorted(hard + ([clear_at[p]] if p in clear_at else []))
            cums = {k: self.cum(k, p, ts, C[k]) for k in ERR_KEYS}
            cum_at_r = {k: (lambda tr, k=k, p=p: float(self.cum(k, p, np.array([tr]), C[k])[0])) for k in ERR_KEYS}
            n = len(ts)
            out = {k: np.zeros(n) for k in ERR_KEYS}
            base = {k: init[k][p] for k in ERR_KEYS}
            ref = {k: 0.0 for k in ERR_KEYS}
            ri = 0
            for i in range(n):
                t = ts[i]
                while ri < len(rs_err) and rs_err[ri] <= t:
                    tr = rs_err[ri]
                    for k in ERR_KEYS:
                        base[k] = 0.0
                        ref[k] = cum_at_r[k](tr)
                    ri += 1
                over = False
                for k in ERR_KEYS:
                    v = base[k] + cums[k][i] - ref[k]
                    v = min(v, 2 ** BITS[k] - 1)
                    out[k][i] = v
                    if v >= THRESH[k]:
                        over = True
                if over:
                    tr = t + 0.05 + float(rng.uniform(0, 0.03))
                    self.threshold_resets.append((p, tr))
                    for k in ERR_KEYS:
                        base[k] = 0.0
                        ref[k] = cum_at_r[k](tr)
            vals.update(out)
            # state fields
            st = np.zeros((n, 4), int)
            for i, t in enumerate(ts):
                ps, phys = 4, 5
                for a, b, s1, s2 in self.down.get(p, []):
                    if a <= t < b:
                        ps, phys = s1, s2
                        break
                else:
                    for a, b, s1 in self.init.get(p, []):
                        if a <= t < b:
                            ps = s1
                            break
                wd = W_4X
                for a, b, c in self.width.get(p, []):
                    if a <= t < b:
                        wd = c
                st[i] = (ps, phys, wd, 8)
            vals["state"] = st
            self.sw_values[p] = vals
        # -------- HCA ports
        self.hca_values = {}
        for h in range(H):
            ts = self.host_samples[h]
            for r in range(R):
                p = int(T.hca[h, r])
                hard = sorted(self.reset_all.get(p, []))
                vals = {}
                for k in DATA_KEYS:
                    vals[k] = self.data_eval(Cd[k][p], ts, init[k][p], hard)
                vals["mx"] = self.data_eval(Cm[p] * 0.5, ts, int(rng.integers(10**5, 10**7)), hard)
                vals["mr"] = self.data_eval(Cm[p], ts, int(rng.integers(10**5, 10**7)), hard)
                rs = sorted(hard + ([clear_at[p]] if p in clear_at else []))
                for k in [*ERR_KEYS, "xwait"]:
                    vals[k] = self.reset_eval(k, p, ts, C[k], init[k][p], rs)
                # hw counters: reset only at driver load, 32-bit wrap
                hw = {}
                for k in HW:
                    if k == "lifespan":
                        hw[k] = np.full(len(ts), 10.0)
                        continue
                    i0 = self.hw_init(k)
                    if k in self.HWS:
                        Ch = np.concatenate([[0.0], np.cumsum(self.HWS[k][h, r])])
                        c = np.floor(np.interp(ts, EDGES, Ch))
                    else:
                        Ch = None
                        c = np.zeros(len(ts))
                    lst = sorted(self.HWE[k].get((h, r), []))
                    if lst:
                        tt = np.array([x[0] for x in lst])
                        cc = np.cumsum([x[1] for x in lst])
                        ii = np.searchsorted(tt, ts, side="right")
                        c = c + np.where(ii > 0, cc[np.maximum(ii - 1, 0)], 0)
                    base = np.full(len(ts), float(i0))
                    for tr in hard:
                        c_tr = (np.floor(np.interp(tr, EDGES, Ch)) if Ch is not None else 0.0)
                        if lst:
                            j = np.searchsorted(tt, tr, side="right")
                            c_tr += cc[j - 1] if j > 0 else 0
                        base[ts >= tr] = -c_tr
                    hw[k] = np.mod(base + c, 2**32)
                vals["hw"] = hw
                self.hca_values[p] = (ts, vals)

    @staticmethod
    def data_eval(Crow, ts, init, hard):
        """64-bit counter: exact integer arithmetic (values reach 1e17)."""
        c = np.interp(ts, EDGES, Crow)
        ref = np.zeros(len(ts))
        base = np.full(len(ts), int(init), dtype=np.int64)
        for tr in hard:
            m = ts >= tr
            ref[m] = np.interp(tr, EDGES, Crow)
            base[m] = 0
        return base + np.floor(c - ref).astype(np.int64)

    def hw_init(self, k):
        rng = self.rng
        table = {"rx_write_requests": (0, 2**32), "rx_read_requests": (0, 4e8), "req_cqe_flush_error": (1e3, 5e5),
                 "resp_cqe_flush_error": (5e2, 2e5), "out_of_sequence": (0, 5e4), "packet_seq_err": (0, 2e3),
                 "local_ack_timeout_err": (0, 40), "duplicate_request": (0, 1e4), "implied_nak_seq_err": (0, 500),
                 "out_of_buffer": (0, 1e4), "req_cqe_error": (0, 50), "resp_cqe_error": (0, 50)}
        if k in table:
            lo, hi = table[k]
            return int(rng.uniform(lo, hi))
        return 0

    def reset_eval(self, key, p, ts, C, init, resets):
        """Counter value at ts with hard resets (to 0) and saturation at its width."""
        c = self.cum(key, p, ts, C)
        base = np.full(len(ts), float(init))
        for tr in resets:
            c_tr = float(self.cum(key, p, np.array([tr]), C)[0])
            base[ts >= tr] = -c_tr
        return np.minimum(base + c, 2 ** BITS[key] - 1)

    # ------------------------------------------------------------------ output
    def write(self, outdir):
        rng, T = self.rng, self.T
        os.makedirs(outdir, exist_ok=True)
        recs = []     # (ts_ns, order, line)

        def esc(s):
            return s.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=").replace(" ", "\\ ")
        sw_fields = [c[1] for c in CNT] + ["PortState", "PhysLinkState", "LinkWidthActive", "LinkSpeedExtActive"]
        sw_tmpl = ",".join(f"{f}=%di" for f in sw_fields)
        for p in range(T.nsw):
            v = self.sw_values[p]
            if v is None:
                continue
            d = T.ports[p]
            tags = f"port_counters,device={esc(d['dev'])},fabric=ib,port={d['port']},remote_node={esc(d['rnode'])},remote_port={d['rport']},role={d['role']}"
            ts = self.sw_samples[p]
            arr = [list(map(int, row)) for row in zip(*[v[k].tolist() for k in KEYS], strict=True)]
            stl = v["state"].tolist()
            tns = [self.ns(t) for t in ts]
            for i in range(len(ts)):
                recs.append((tns[i], 1, p, tags + " " + (sw_tmpl % tuple(arr[i] + stl[i])) + f" {tns[i]}"))
        # Telegraf lines: random field order per line (Go map iteration)
        c_names = [c[2] for c in CNT] + ["unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets", "multicast_rcv_packets"]
        perms_c = [rng.permutation(len(c_names)) for _ in range(48)]
        perms_h = [rng.permutation(len(HW)) for _ in range(48)]
        tm_c = [",".join(f"{c_names[i]}=%di" for i in pm) for pm in perms_c]
        tm_h = [",".join(f"{HW[i]}=%di" for i in pm) for pm in perms_h]
        for h in range(H):
            for r in range(R):
                p = int(T.hca[h, r])
                ts, v = self.hca_values[p]
                tags = f"port_counters,device={HOSTS[h]},fabric=ib,hca=mlx5_{r},host={HOSTS[h]},port=mlx5_{r},role=hca"
                uni_x = v["xpkts"] - v["mx"]
                uni_r = v["rpkts"] - v["mr"]
                cc = np.column_stack([np.asarray(v[k]).astype(np.int64) for k in KEYS] + [uni_x, uni_r, v["mx"], v["mr"]])
                cc = np.maximum(cc, 0).tolist()
                hh = np.column_stack([v["hw"][k].astype(np.int64) for k in HW]).tolist()
                pc = rng.integers(0, 48, len(ts))
                ph = rng.integers(0, 48, len(ts))
                for i in range(len(ts)):
                    tn = self.ns(ts[i])
                    row = cc[i]
                    pm = perms_c[pc[i]]
                    recs.append((tn, 0, p * 2, tags + " " + (tm_c[pc[i]] % tuple(row[j] for j in pm)) + f" {tn}"))
                    row = hh[i]
                    pm = perms_h[ph[i]]
                    recs.append((tn, 0, p * 2 + 1, tags + " " + (tm_h[ph[i]] % tuple(row[j] for j in pm)) + f" {tn}"))
        recs.sort(key=lambda x: (x[0], x[1], x[2]))
        with open(os.path.join(outdir, "port_counters.lp"), "w", encoding="utf-8", newline="\n") as fh:
            fh.write("\n".join(x[3] for x in recs))
            fh.write("\n")
        self.nlines = len(recs)
        self.write_labels(outdir)

    def write_labels(self, outdir):
        T = self.T
        faults = []
        for f in self.F:
            kind = f["kind"]
            if kind == "credit_starvation":
                dev, ports, peers = SPINES[f["s"]], ["*"], []
            else:
                ps = f.get("ps", [f["p"]])
                dev = T.ports[ps[0]]["dev"]
                ports = [T.ports[x]["port"] for x in ps]
                peers = [self.lab(int(T.peer[x])) for x in ps]
            own = self.fault_own_ports(f)
            rel = [x for x in f.get("related", []) if x not in own]
            faults.append({"kind": kind, "device": dev, "ports": ports, "start_ns": self.ns(f["a"]), "end_ns": self.ns(f["b"]),
                           "peer_ends": peers, "related": self.related(sorted(set(rel))), "signature": f["sig"]})
        order = sorted(range(len(faults)), key=lambda i: (faults[i]["start_ns"], faults[i]["device"]))
        faults = [faults[i] for i in order]
        # healthy: threshold resets on non-fault ports, xmit-wait saturation
        healthy = list(self.healthy)
        rel_win = {}
        for f in self.F:
            for x in f.get("related", []):
                rel_win.setdefault(x, []).append((f["a"], f["b"] + 120))
        for p, tr in sorted(self.threshold_resets, key=lambda x: (x[1], x[0])):
            if p in self.fault_ports or not (0 <= tr < RUN_S) or in_any(tr, rel_win.get(p, [])):
                continue
            healthy.append({"kind": "perfquery_threshold_reset", "where": self.where([p]), "start_ns": self.ns(tr), "end_ns": self.ns(tr + 120),
                            "note": "ibpoll.py ran perfquery -R after an error counter passed its limit: error counters of this port restart from 0"})
        sat = []
        for p in range(T.nsw):
            v = self.sw_values[p]
            if v is None or p in self.fault_ports:
                continue
            m = v["xwait"] >= 2**32 - 1
            if m.any():
                ts = self.sw_samples[p][m]
                sat.append((float(ts[0]), float(ts[-1]), p))
        for p, (ts, v) in self.hca_values.items():
            if p in self.fault_ports:
                continue
            m = v["xwait"] >= 2**32 - 1
            if m.any():
                sat.append((float(ts[m][0]), float(ts[m][-1]), p))
        for a, b, p in sorted(sat):
            healthy.append({"kind": "xmit_wait_32bit_saturated", "where": self.where([p]), "start_ns": self.ns(a), "end_ns": self.ns(b),
                            "note": "busy port: 32-bit PortXmitWait/port_xmit_wait stuck at 4294967295 until the nightly clear"})
        healthy.sort(key=lambda e: (e["start_ns"], e["kind"], e["where"][0]))
        labels = {
            "scenario": "ib-perfquery-telegraf",
            "scale": "small",
            "seed": self.seed,
            "fabric": "ib",
            "interval_s": 30,
            "sample_s": 30,
            "t0_ns": self.t0_ns,
            "t_end_ns": self.ns(RUN_S),
            "train_until_ns": self.ns(FIT_S),
            "fit_first": f"{FIT_S // 60}m",
            "ports": T.np,
            "lines": self.nlines,
            "faults": faults,
            "healthy_phenomena": healthy,
        }
        with open(os.path.join(outdir, "labels.json"), "w", encoding="utf-8") as fh:
            json.dump(labels, fh, indent=1)
            fh.write("\n")
        self.labels = labels


def main(argv=None):
    ap = argparse.ArgumentParser(description="IB NDR fabric recorded by a perfquery poller (switches, 60 s) and Telegraf (HCAs, 30 s), with labels.")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    g = Gen(args.seed)
    g.build()
    g.write(args.outdir)
    n_f = len(g.labels["faults"])
    print(f"{args.outdir}: {g.nlines} lines, {g.T.np} ports ({g.T.nsw} switch, {g.T.np - g.T.nsw} HCA), {n_f} faults, "
          f"{len(g.labels['healthy_phenomena'])} healthy phenomena, fit_first {g.labels['fit_first']}")


if __name__ == "__main__":
    main()
