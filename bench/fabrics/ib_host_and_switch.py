#!/usr/bin/env python3
"""Labelled 8-hour telemetry history of an InfiniBand NDR GPU fabric, seen through two real exporters.

usage: python ib_host_and_switch.py OUTDIR [--seed N]        (default seed 1; numpy only)

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement ``port_counters``, one point per port per
sample, raw cumulative counters as the exporters report them) and OUTDIR/labels.json (faults to find, healthy
phenomena not to flag, in the form the scenario bank's score.py reads). The same seed gives byte-identical files;
another seed moves every fault to another port of the same kind, redraws job membership and noise, and moves
every time by a few minutes. Cost: ~1.96M lines, ~700 MB, ~10 s and ~0.8 GB of memory on one core. The file is
larger than the bank's because real field names are long: tags + timestamp + the four traffic fields alone take
~285 bytes a point (~560 MB); the rest is what the dedup below lets through.

Fabric
------
A two-level fat tree of 4 scalable units (SU), rail-optimised, 1:1, every link 400G (4x NDR, 4 lanes of 100G).

| what | count | device names | ports |
|---|---|---|---|
| hosts (DGX-like) | 16 per SU, 64 | ``su<a>-dgx<ii>`` | 8 HCAs: rail r is ``mlx5_{0,3,4,5,6,9,10,11}[r]`` |
| leaves (QM9700-like) | 8 per SU, 32 | ``su<a>-leaf<r>`` | ``1``-``16`` down, ``17``-``32`` up |
| spines (QM9700-like) | 8, shared | ``spine-<s>`` | ``1``-``64``, all down to leaves |

HCA r of every host of SU a goes to leaf r of SU a (port = host number ii + 1); the HCA names follow DGX H100
(mlx5_1/2/7/8 are storage/Ethernet and not here). Leaf port 17 + 2s + k is link k (0, 1) to spine s: two links to
every spine, 16 up for 16 down (1:1). Spine port 2L + k + 1 is link k to leaf L = 8a + r, so a spine's 64 ports
face the 32 leaves twice. 512 host links + 512 leaf-spine links = 2,048 port series: 512 ``leaf_down``,
512 ``leaf_up``, 512 ``spine`` (from UFM) and 512 ``hca`` (from node_exporter).

Tags (sorted by key, as Telegraf writes them): ``device``, ``fabric=ib``, ``peer_device``, ``peer_port``,
``port``, ``rail`` (a spine port carries the rail of the leaf it faces), ``role``, ``speed=400G`` (the planned
speed; it does not change when a link trains slower). ``role=hca`` is an HCA port: a point of its own whose
``device`` is the host, ``port`` the HCA (port 1) and ``peer_device``/``peer_port`` the leaf port.

Exporters and fields
--------------------
Both exporters reach InfluxDB through Telegraf's ``inputs.prometheus`` (``metric_version = 2``: one float sample
per metric), so every field is a float written like Go's ``FormatFloat(v, 'f', -1, 64)``: no ``i`` suffix, no
exponent (``1234567890123456``, ``0.0000000021``); counters above 2**53 carry float64 rounding. A lookup
processor maps the exporters' labels (UFM ``node_guid``/``port_num``, node_exporter ``device``/``port``) to the
topology tags, ``tagexclude = ["host", "url"]`` drops Telegraf's own, and ``aggregators.merge`` joins the samples
of one port and one scrape into one ``port_counters`` point. ``processors.dedup`` with ``dedup_interval = "240s"``
(selected with ``metricpass``) covers the error counters, the transmit-wait counters and the state gauges: those
fields are in a point when they changed and at least every ~4.5 min (so a rate engine with a 5-min gap rule still
sees every increment; a reader that diffs adjacent points only loses the increments that follow a point without
the field). The four traffic fields are in every point. Field order: traffic, dedup'd, then (switches) PHY.

Switch ports: NVIDIA UFM Telemetry (UFM Enterprise), Prometheus endpoint; field = UFM's counter name.

| field | unit, width | in the point |
|---|---|---|
| ``PortXmitDataExtended``, ``PortRcvDataExtended`` | 4-octet words (PortCountersExtended raw), 64-bit | always |
| ``PortXmitPktsExtended``, ``PortRcvPktsExtended`` | packets, 64-bit | always |
| ``PortXmitWaitExtended`` | ticks with data to send and no credit, 64-bit | dedup |
| ``SymbolErrorCounterExtended``, ``PortRcvErrorsExtended`` | counts, 64-bit (never saturate) | dedup |
| ``LinkDownedCounterExtended``, ``LinkErrorRecoveryCounterExtended`` | counts, 64-bit | dedup |
| ``PortXmitDiscardsExtended``, ``PortRcvSwitchRelayErrorsExtended`` | counts, 64-bit | dedup |
| ``PortRcvRemotePhysicalErrorsExtended``, ``LocalLinkIntegrityErrorsExtended`` | counts, 64-bit | dedup |
| ``ExcessiveBufferOverrunErrorsExtended`` | counts, 64-bit | dedup |
| ``phy_state`` | 5 LinkUp, 2 Polling (not up, trying), 3 Disabled (shut by an operator) | every 300 s |
| ``logical_state`` | 4 Active, 1 Down | every 300 s |
| ``Link_width_active`` | IBA LinkWidthActive: 2 = 4x, 16 = 2x; absent while the link is down | every 300 s |
| ``Module_Temperature`` | degC of the cable module in the cage, integer | every 300 s |
| ``Total_Raw_BER`` | pre-FEC bit error ratio; absent while the link is down | every 300 s |

UFM samples all ports of a switch at one instant. Its low-frequency (secondary, 300 s) fields come with the
30 s counters of samples k where k % 10 == 3, in the same point. Transmit-wait ticks: the model counts 6.25e9
ticks per second of full blocking (8 bytes of line time a tick).

HCA ports: Prometheus node_exporter ``infiniband`` collector (kernel sysfs read through procfs), one Telegraf
per host scraping localhost:9100 every 30 s; ``processors.strings`` trims the ``node_infiniband_`` prefix from
the field keys (``port_data_received_bytes_total`` is ``node_infiniband_port_data_received_bytes_total``) and
``fieldinclude`` keeps:

| field | unit, width (the kernel's counter) | in the point |
|---|---|---|
| ``port_data_received_bytes_total``, ``port_data_transmitted_bytes_total`` | bytes (words x 4), 64-bit | always |
| ``port_packets_received_total``, ``port_packets_transmitted_total`` | packets, 64-bit | always |
| ``port_transmit_wait_total`` | ticks, 32-bit, stops at 4294967295 | dedup |
| ``symbol_error_total``, ``port_errors_received_total`` | counts, 16-bit, stop at 65535 | dedup |
| ``port_receive_remote_physical_errors_total``, ``port_discards_transmitted_total`` | 16-bit, stop at 65535 | dedup |
| ``link_downed_total``, ``link_error_recovery_total`` | counts, 8-bit, stop at 255 | dedup |
| ``excessive_buffer_overrun_errors_total``, ``local_link_integrity_errors_total`` | 4-bit, stop at 15 | dedup |
| ``state_id`` | 4 Active, 1 Down | dedup |
| ``physical_state_id`` | 5 LinkUp, 2 Polling | dedup |
| ``rate_bytes_per_second`` | 5e10 at 4x NDR, 2.5e10 at 2x, 1.25e9 (10 Gb/s) while not up | dedup |

procfs multiplies the kernel's 4-octet data words by 4, so the HCA byte counters are always multiples of 4 while
the switch's data counters are words. ~38 % of the HCAs' ``port_transmit_wait_total`` sit at 4294967295 from the
start (saturated long ago); busy HCAs may reach it during the run. A host reboot zeroes its counters and restarts
its Telegraf, so the first point after the boot carries every field.

Time: 30 s samples for 8 h from 2025-06-02T20:00:00Z (961 samples, 960 intervals); each device's timestamp is
jittered by up to +-3 s per sample (UFM's sweep, Telegraf's collection jitter), nanoseconds; counters are the
values at that instant. About 0.15 % of (device, sample) points are missing. Lines are in time order.
Fit window: the first 30 % (``fit_first`` 144m), no fault, the healthy variation of the rest.

Healthy phenomena (must not be flagged; minutes, seed 1, a few minutes off on other seeds)
----------------------------------------------------------------------------------------
Jobs (members redrawn per seed): ``pretrain`` on 36 hosts (9 per SU, ~65 % of its bytes leave the leaf through
the spines) at ~42 % of line rate; ``moe`` on 16 hosts (4 per SU) at ~20 % with two all-to-all phases;
``small-a`` (SU0+SU1, 4 hosts) and ``small-b`` (SU2+SU3, 4 hosts); 4 spare hosts (one per SU) carry only
background traffic (subnet management, monitoring: 0.1-0.3 % of line rate). Adaptive routing spreads each leaf's
cross-SU bytes over its 16 uplinks within +-2 % (over the survivors when one is down).

| kind | when | where |
|---|---|---|
| ``job_start``, ``job_stop``, ``job_pause`` | 20-70, 95/110, 100-138, 150-250, 300/360, 370-450 | the job's devices |
| ``alltoall_congestion`` | 40-56 (fit), 205-232 | every spine and leaf, the MoE hosts |
| ``idle_stretch``, ``idle_hour`` | ~95-110 (fit), 300-360 | everything |
| ``telemetry_restart`` | ~178, 3 min | every switch |
| ``switch_firmware_update`` (prelude of fault 7) | ~232, 4 min | one leaf and its 32 far ends |
| ``host_reboot`` | ~262, ~4 min | a spare host, its 8 leaf ports, their leaves |
| ``spine_drain`` | ~385, 10 min | one spine and the 64 uplinks facing it |
| ``counter_clear`` | ~415 | one leaf |
| ``background_symbol_errors``, ``adaptive_routing``, ``sampling_jitter``, ``hca_xmit_wait_saturated`` | all | |

- jobs: traffic steps, ~2 min of NCCL warm-up at ~12 % of the job's load; evals stop communicating for 2 min.
- all-to-all: bytes x3 on the MoE hosts and credit waits on many ports at once: ``PortXmitWaitExtended`` 6-20x on
  every spine port and 2-6x on every uplink (medians x35 and x12), 4-12x on the MoE hosts' leaf ports,
  ``port_transmit_wait_total`` 5-15x on their HCAs. The fit window holds a phase as strong as the later one.
- idle: near-zero bytes and credit waits everywhere (15 min in the fit window, an hour later).
- telemetry restart: no switch points for 6 samples; the counters kept counting.
- firmware update: the leaf is unreachable 4 min, its 32 links are down (far ends: ``phy_state``/
  ``physical_state_id`` 2, link downed +1, ``state_id`` 1 on the HCAs), its counters restart from 0.
- host reboot: no points from the host for ~5 min; its leaf ports poll (``phy_state`` 2) and count
  ``LinkDownedCounterExtended`` +1; its HCA counters restart from 0; a few ``PortRcvSwitchRelayErrorsExtended``
  on two uplinks of each of its leaves (packets for its LIDs while it is gone).
- spine drain: planned and visible as planned: the spine's 64 ports are shut by the operator (``phy_state`` 3
  Disabled, ``logical_state`` 1, no link downed on the spine side); the spine reboots inside the window (no points
  for 4 min, counters from 0); the leaf ends poll (``phy_state`` 2, link downed +1); every leaf's other 14 uplinks
  carry +14 %.
- counter clear: ``perfquery -x -R`` on every port of one leaf: data, packets, transmit wait and every error
  counter drop to ~0 at once.
- background symbol errors: 0.5-6 an hour on ~3 % of links (one end), since the start.

Faults (must be found; all start after the fit window)
------------------------------------------------------
| # | kind | label's device:ports (peer_ends) | when |
|---|---|---|---|
| 1 | ``link_width_degraded`` | a host link's leaf port (its HCA) | ~158-end |
| 2 | ``slow_flap`` | a leaf uplink (its spine port) | ~172, 2 h |
| 3 | ``bad_switch_transmitter`` | a host link's leaf port (its HCA) | ~212-end |
| 4 | ``slow_drain_hca`` | a host link's leaf port (its HCA); 6 ``related`` | ~240-296 |
| 5 | ``module_overheating`` | a leaf uplink (its spine port) | ~190-end |
| 6 | ``link_down_after_maintenance`` | a spare host's leaf port (its HCA) | ~176-end |
| 7 | ``firmware_symbol_errors`` | a leaf, ``ports: ["*"]`` (none: the far ends are clean) | ~246-end |
| 8 | ``excessive_buffer_overrun`` | an HCA port (its leaf port) | ~370-end |
| 9 | ``dirty_optic`` | a spine port (its leaf uplink) | ~255-end |
| 10 | ``routing_hole`` (own choice) | 6 ports of one spine (their leaf uplinks) | ~420, ~35 min |

1. A reseat: down ~1 min (link downed +1 at both ends), then trained at 2x: ``Link_width_active`` 16 at the leaf,
   ``rate_bytes_per_second`` 2.5e10 at the HCA, the ``speed`` tag still 400G; no errors; its bytes capped at
   200G (flat tops when the job pushes more). The model does not slow the rest of the job.
2. One down/up every 10-20 min for 2 h, 4-25 s each: ``LinkDownedCounterExtended`` +1 at both ends, now and then
   link error recovery / local link integrity, symbol errors at link-up, ``PortXmitDiscardsExtended`` bursts, the
   lost seconds of traffic moving to its 15 siblings. Starts at its first flap.
3. The leaf port's transmitter is bad, so only the HCA counts it: ``symbol_error_total`` 0.3-1.5/s rising,
   ``port_errors_received_total`` ~4e-8 of the received packets, an occasional ``link_error_recovery_total``.
   The leaf end (its own receiver, its ``Total_Raw_BER``) is clean.
4. The HCA returns credits slowly (host memory/PCIe): the leaf port's ``PortXmitWaitExtended`` 20-60x its
   siblings' at the same load, 40 % fewer bytes to the host; congestion spreads to 3 spine ports facing that leaf
   (x4-10) and to 3 uplinks of the same-rail leaves of other SUs toward those spines (x3-6): ``related``.
5. ``Module_Temperature`` 55 -> 80 degC over 90 min (then ~81), ``Total_Raw_BER`` rising 1e-8 -> 3e-6 with it;
   from ~75 degC (about 70 min in) symbol errors at the leaf end growing to 1-3/s, receive errors 5 % of them,
   link error recovery every ~15 min; the far end counts 10 % of it. Starts when the module starts heating.
6. Down in a cable swap and never back: leaf ``logical_state`` 1, ``phy_state`` 2 (Polling, not the drain's 3
   Disabled); HCA ``state_id`` 1, ``physical_state_id`` 2, ``rate_bytes_per_second`` 1.25e9. The host is up and
   its 7 other HCAs are active; no bytes either way, the link's data counters flat for 5 hours.
7. Ten minutes after its firmware update (the healthy reboot above) ~70 % of the leaf's 32 ports (host ports and
   uplinks) count symbol errors, each rising over 2 h to 0.05-1/s, receive errors ~3 % of them,
   ``Total_Raw_BER`` x10-100; the far ends are clean. A device-level fault: ``ports: ["*"]`` as in the bank.
8. ``excessive_buffer_overrun_errors_total`` +1 every 2.5-5 min under receive load until the 4-bit counter stops
   at 15; ``port_errors_received_total`` 0.5-3/s (overrun drops) goes on after it; the leaf end is clean.
9. ``PortRcvErrorsExtended`` at a steady 3-6e-8 of the received packets (nothing when the link idles), symbol
   errors ~1.5x that, ``Total_Raw_BER`` 2-5e-6; the far end (the leaf uplink) ~3 % of it.
10. After a subnet-manager failover the spine's forwarding table misses the LIDs of two hosts: packets for them
    arriving from the same-rail leaves of the other SUs are dropped: ``PortRcvSwitchRelayErrorsExtended`` at
    0.2-0.6 % of the received packets (~1e4/s) on those 6 ports, no physical errors anywhere; it ends with the
    next heavy sweep. (Its healthy cousin: the reboot's few relay errors.)

labels.json: ``faults`` (kind, device, ports, start_ns, end_ns, peer_ends, related, signature) and
``healthy_phenomena`` (kind, where, start_ns, end_ns, note, background) as in the bank's README, plus
``fit_first``, ``train_until_ns``, ``ports`` and ``lines``. A fault starts with its change (the reseat, the module
starting to heat, the firmware taking effect) or its first symptom (the first flap).

Model: per-interval loads, not packets; a job's traffic stays on its rail (rail-optimised with PXN); a leaf spreads
its cross-SU bytes over its uplinks that are up and a spine port mirrors the uplink it faces; credit waits grow
with egress utilisation, with per-switch and per-port lognormal noise and rare spikes; symbol errors come per
time, receive errors per packet. Widths, saturation, resets, jitter, dedup and float rounding are applied last.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict

import numpy as np

DT = 30
N = 960                          # intervals (8 h); samples 0..N
T = N + 1
DUR = N * DT
T0 = 1748894400                  # 2025-06-02T20:00:00Z
NSEC = 1_000_000_000
LINE = 400e9 / 8 * DT            # bytes in a 30 s interval at 4x NDR
TICKS = 6.25e9 * DT              # xmit-wait ticks in 30 s of full blocking (model)
N_SU, N_RAIL, N_HPS, N_SPINE, N_LPS = 4, 8, 16, 8, 2
N_LEAF, N_HOST = N_SU * N_RAIL, N_SU * N_HPS
HCA = ("mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11")
LD, LU, SP, HC = 0, 1, 2, 3
ROLES = ("leaf_down", "leaf_up", "spine", "hca")
TRAIN = round(DUR * 0.3 / DT) * DT
DEDUP_S = 240
SEC_EVERY, SEC_PHASE = 10, 3
JITTER_S = 3.0
MISS_P = 0.0015

UFM_ALWAYS = ("PortRcvDataExtended", "PortRcvPktsExtended", "PortXmitDataExtended",
              "PortXmitPktsExtended")
UFM_SPARSE = (("ExcessiveBufferOverrunErrorsExtended", "ebo"), ("LinkDownedCounterExtended", "ldn"),
              ("LinkErrorRecoveryCounterExtended", "ler"), ("LocalLinkIntegrityErrorsExtended", "lli"),
              ("PortRcvErrorsExtended", "rcv"), ("PortRcvRemotePhysicalErrorsExtended", "rpe"),
              ("PortRcvSwitchRelayErrorsExtended", "relay"), ("PortXmitDiscardsExtended", "disc"),
              ("PortXmitWaitExtended", "xw"), ("SymbolErrorCounterExtended", "sym"))
HOST_ALWAYS = ("port_data_received_bytes_total", "port_data_transmitted_bytes_total",
               "port_packets_received_total", "port_packets_transmitted_total")
HOST_SPARSE = (("excessive_buffer_overrun_errors_total", "ebo"), ("link_downed_total", "ldn"),
               ("link_error_recovery_total", "ler"), ("local_link_integrity_errors_total", "lli"),
               ("physical_state_id", "g_phys"), ("port_discards_transmitted_total", "disc"),
               ("port_errors_received_total", "rcv"),
               ("port_receive_remote_physical_errors_total", "rpe"),
               ("rate_bytes_per_second", "g_rate"), ("state_id", "g_state"),
               ("port_transmit_wait_total", "xw"), ("symbol_error_total", "sym"))
HOST_BITS = {"sym": 16, "rcv": 16, "rpe": 16, "disc": 16, "ldn": 8, "ler": 8, "lli": 4, "ebo": 4,
             "xw": 32}
ERRS = ("sym", "rcv", "ldn", "ler", "lli", "ebo", "rpe", "relay", "disc")


def leaf_name(L: int) -> str:
    return f"su{L // N_RAIL}-leaf{L % N_RAIL}"


def host_name(h: int) -> str:
    return f"su{h // N_HPS}-dgx{h % N_HPS:02d}"


class Fabric:
    """Every port series: switch ports (UFM) and HCA ports (node_exporter), peers both ways."""

    def __init__(self) -> None:
        self.dev: list[str] = []
        self.port: list[str] = []
        role, rail, leaf, spine, host = [], [], [], [], []
        self.dn = np.zeros((N_LEAF, N_HPS), np.int64)
        self.up = np.zeros((N_LEAF, N_SPINE, N_LPS), np.int64)
        self.sp = np.zeros((N_SPINE, N_LEAF, N_LPS), np.int64)
        self.hp = np.zeros((N_HOST, N_RAIL), np.int64)

        def add(d, p, ro, ra, lf, s, h):
            self.dev.append(d)
            self.port.append(p)
            role.append(ro)
            rail.append(ra)
            leaf.append(lf)
            spine.append(s)
            host.append(h)
            return len(self.dev) - 1

        for L in range(N_LEAF):
            a, r = divmod(L, N_RAIL)
            for i in range(N_HPS):
                self.dn[L, i] = add(leaf_name(L), str(i + 1), LD, r, L, -1, a * N_HPS + i)
            for s in range(N_SPINE):
                for k in range(N_LPS):
                    self.up[L, s, k] = add(leaf_name(L), str(17 + 2 * s + k), LU, r, L, s, -1)
        for s in range(N_SPINE):
            for L in range(N_LEAF):
                for k in range(N_LPS):
                    self.sp[s, L, k] = add(f"spine-{s}", str(2 * L + k + 1), SP, L % N_RAIL, L, s, -1)
        for h in range(N_HOST):
            for r in range(N_RAIL):
                self.hp[h, r] = add(host_name(h), HCA[r], HC, r, (h // N_HPS) * N_RAIL + r, -1, h)
        self.P = len(self.dev)
        self.role = np.array(role)
        self.rail = np.array(rail)
        self.leaf = np.array(leaf)
        self.spine = np.array(spine)
        self.host = np.array(host)
        self.peer = np.full(self.P, -1, np.int64)
        for L in range(N_LEAF):
            a, r = divmod(L, N_RAIL)
            for i in range(N_HPS):
                d, h = self.dn[L, i], self.hp[a * N_HPS + i, r]
                self.peer[d], self.peer[h] = h, d
            for s in range(N_SPINE):
                for k in range(N_LPS):
                    u, q = self.up[L, s, k], self.sp[s, L, k]
                    self.peer[u], self.peer[q] = q, u
        assert (self.peer >= 0).all()
        self.is_sw = self.role != HC
        self.devices = list(dict.fromkeys(self.dev))
        did = {d: i for i, d in enumerate(self.devices)}
        self.dev_id = np.array([did[d] for d in self.dev])
        self.dev_ports = [np.flatnonzero(self.dev_id == i) for i in range(len(self.devices))]
        self.dev_sw = np.array([not d.startswith("su") or "-leaf" in d for d in self.devices])
        self.index = {(d, p): i for i, (d, p) in enumerate(zip(self.dev, self.port, strict=True))}

    def name(self, p: int) -> str:
        return f"{self.dev[p]}:{self.port[p]}"

    def tags(self, p: int) -> str:
        q = self.peer[p]
        return (f"port_counters,device={self.dev[p]},fabric=ib,peer_device={self.dev[q]},"
                f"peer_port={self.port[q]},port={self.port[p]},rail={self.rail[p]},"
                f"role={ROLES[self.role[p]]},speed=400G ")


class Scenario:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = np.random.default_rng([seed, 20250602])
        self.fab = Fabric()
        self.P = self.fab.P
        self.tn = np.arange(T) * float(DT)
        nd = len(self.fab.devices)
        self.jit = self.rng.uniform(-JITTER_S, JITTER_S, (nd, T))
        self.tsp = self.tn[:, None] + self.jit[self.fab.dev_id].T          # (T, P) seconds
        self.dev_present = self.rng.random((nd, T)) > MISS_P
        self.dev_present[:, 0] = True
        self.faults: list[dict] = []
        self.healthy: list[dict] = []
        self.downs: list[tuple] = []
        self.resets: list[tuple] = []       # (ports, t): counters restart from 0
        self.dedup_reset: list[tuple] = []  # (ports, t): the host's Telegraf restarts
        z = np.zeros
        self.err = {k: z((T, self.P)) for k in ERRS}
        self.cap = np.ones((T, self.P))
        self.temp_override: dict[int, np.ndarray] = {}
        self.ber_mul = np.ones((T, self.P))
        self.ber_override: dict[int, tuple] = {}

    # ---- time helpers
    @staticmethod
    def snap(t: float) -> float:
        return float(round(t / DT) * DT)

    def at(self, minute: float, spread: float = 4.0) -> float:
        return self.snap(minute * 60 + self.rng.uniform(-spread, spread) * 60)

    def mins(self, m: float, spread: float = 0.0) -> float:
        return self.snap(m * 60 + self.rng.uniform(-spread, spread) * 60)

    def frac(self, a: float, b: float) -> np.ndarray:
        """Fraction of each interval (t_k - DT, t_k] inside [a, b)."""
        hi = np.minimum(self.tn, b)
        lo = np.maximum(self.tn - DT, a)
        f = np.clip((hi - lo) / DT, 0.0, 1.0)
        f[0] = 0.0
        return f

    @staticmethod
    def ival(t: float) -> int:
        return int(min(N, max(1, np.ceil(t / DT - 1e-9))))

    @staticmethod
    def ns(t: float) -> int:
        return round((T0 + t) * NSEC)

    # ---- labels
    def where_dev(self, devs) -> list[str]:
        return [f"{d}:*" for d in devs]

    def fault(self, kind, device, ports, a, b, signature, peer_ends=(), related=()):
        self.faults.append({
            "kind": kind, "device": device, "ports": list(ports),
            "start_ns": self.ns(a), "end_ns": self.ns(min(b, DUR)),
            "peer_ends": [{"device": self.fab.dev[q], "port": self.fab.port[q]} for q in peer_ends],
            "related": list(related), "signature": signature})

    def port_fault(self, kind, p, a, b, signature, related=()):
        f = self.fab
        self.fault(kind, f.dev[p], [f.port[p]], a, b, signature, [f.peer[p]], related)

    def event(self, kind, where, a, b, note, background=False):
        ev = {"kind": kind, "where": list(where), "start_ns": self.ns(max(a, 0.0)),
              "end_ns": self.ns(min(b, DUR)), "note": note}
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    # ---- link and device events
    def link_down(self, p, t0, t1, phy=(2, 2), count=(1, 1), ler=0.0, lli=0.0, sym_up=2.0):
        self.downs.append((int(p), int(self.fab.peer[p]), t0, t1, phy, count, ler, lli, sym_up))

    def absent(self, devs, a, b):
        """No points from these devices for sample times in (a, b]."""
        m = (self.tn > a) & (self.tn <= b)
        for d in devs:
            self.dev_present[self.fab.devices.index(d), m] = False

    # ---- scenario
    def plan(self) -> None:
        rng, f = self.rng, self.fab
        at, mins = self.at, self.mins
        # --- jobs (membership per seed)
        self.P_hosts, self.M_hosts, pool, self.spares = [], [], [], []
        for a in range(N_SU):
            perm = a * N_HPS + rng.permutation(N_HPS)
            self.P_hosts += perm[:9].tolist()
            self.M_hosts += perm[9:13].tolist()
            pool.append(perm[13:15].tolist())
            self.spares.append(int(perm[15]))
        self.S1 = pool[0] + pool[1]
        self.S2 = pool[2] + pool[3]
        ev = {}
        ev["a1"] = at(40, 3)
        ev["a1e"] = ev["a1"] + mins(16, 2)
        ev["p_stop1"] = at(95, 3)
        ev["p_start2"] = ev["p_stop1"] + mins(15, 2)
        ev["s1"] = [(at(20, 3), at(70, 3)), (at(150, 3), at(250, 3))]
        ev["s2"] = [(at(100, 3), at(138, 2)), (at(370, 3), at(450, 3))]
        ev["ufm"] = at(178, 4)
        ev["a2"] = at(205, 3)
        ev["a2e"] = ev["a2"] + mins(27, 3)
        ev["reboot"] = at(262, 4)
        ev["idle_a"] = at(300, 3)
        ev["idle_b"] = ev["idle_a"] + mins(60, 2)
        ev["drain"] = at(385, 4)
        ev["clear"] = at(415, 4)
        ev["f1"] = at(158, 4)
        ev["f2"] = at(172, 4)
        ev["f6"] = at(176, 4)
        ev["f5"] = at(190, 4)
        ev["f3"] = at(212, 4)
        ev["t7"] = at(232, 3)
        ev["f7"] = ev["t7"] + 240 + mins(10, 2)
        ev["f4"] = at(240, 3)
        ev["f4e"] = ev["idle_a"] - mins(4, 1)
        ev["f9"] = at(255, 4)
        ev["f8"] = ev["idle_b"] + mins(10, 3)
        ev["f10"] = at(420, 4)
        ev["f10e"] = ev["f10"] + mins(35, 5)
        self.ev = ev
        # --- where the faults go
        P_hosts = list(self.P_hosts)
        rng.shuffle(P_hosts)
        used_leaves: set[int] = set()

        def host_link(h, avoid):
            rails = [r for r in rng.permutation(N_RAIL) if f.leaf[f.hp[h, r]] not in avoid]
            r = int(rails[0])
            return int(f.dn[f.leaf[f.hp[h, r]], h % N_HPS]), r

        self.p1, _ = host_link(P_hosts[0], used_leaves)
        used_leaves.add(int(f.leaf[self.p1]))
        self.p3, _ = host_link(P_hosts[1], used_leaves)
        used_leaves.add(int(f.leaf[self.p3]))
        self.p4, _ = host_link(P_hosts[2], used_leaves)
        used_leaves.add(int(f.leaf[self.p4]))
        h8 = P_hosts[3]
        d8, r8 = host_link(h8, used_leaves)
        used_leaves.add(int(f.leaf[d8]))
        self.p8 = int(f.hp[h8, r8])
        sp = list(self.spares)
        rng.shuffle(sp)
        self.p6, _ = host_link(sp[0], used_leaves)
        used_leaves.add(int(f.leaf[self.p6]))
        self.reboot_host = sp[1]
        free = [L for L in rng.permutation(N_LEAF) if L not in used_leaves]
        self.L7, self.L2, self.L5, self.Lc = (int(x) for x in free[:4])
        spines = [int(s) for s in rng.permutation(N_SPINE)]
        self.s_drain, self.s9, self.s10, s2, s5 = spines[:5]
        self.p2 = int(f.up[self.L2, s2, rng.integers(N_LPS)])
        self.p5 = int(f.up[self.L5, s5, rng.integers(N_LPS)])
        busy = used_leaves | {self.L7, self.L2, self.L5, self.Lc}
        L9 = int(next(L for L in rng.permutation(N_LEAF) if L not in busy))
        self.p9 = int(f.sp[self.s9, L9, rng.integers(N_LPS)])
        self.hole_leaf = int(rng.integers(N_LEAF))
        hr, ha = self.hole_leaf % N_RAIL, self.hole_leaf // N_RAIL
        self.p10 = [int(f.sp[self.s10, a * N_RAIL + hr, k]) for a in range(N_SU) if a != ha
                    for k in range(N_LPS)]

    def loads(self) -> None:
        """Per-interval utilisation of every port's transmit side (fraction of 400G)."""
        rng, ev = self.rng, self.ev
        R = N_RAIL
        hmul = rng.normal(1.0, 0.03, (N_HOST, R))
        htx = np.zeros((T, N_HOST, R))
        hrx = np.zeros((T, N_HOST, R))
        ctx = np.zeros((T, N_HOST, R))
        crx = np.zeros((T, N_HOST, R))

        def series(level, windows, sigma=0.08, dips=(), warm=150.0):
            x = np.zeros(T)
            lv = level * rng.lognormal(0, sigma, T)
            for a, b in windows:
                fa = self.frac(a, b)
                fw = self.frac(a, a + warm) if a > 0 else np.zeros(T)
                x += (fa - fw) * lv + fw * 0.12 * level
            for a, b, v in dips:
                fd = self.frac(a, b)
                x = x * (1 - fd) + fd * v * (x > 0)
            x[0] = 0.0
            return x

        def add_job(hosts, x, c, sig=0.05, hot=0.0):
            hosts = np.asarray(hosts)
            m = hmul[hosts][None] * rng.lognormal(0, sig, (T, len(hosts), R))
            tx = x[:, None, None] * m
            rx = tx * rng.lognormal(0, 0.04 + hot, tx.shape)
            htx[:, hosts] += tx
            hrx[:, hosts] += rx
            ctx[:, hosts] += tx * c
            crx[:, hosts] += rx * c

        pw = [(0.0, ev["p_stop1"]), (ev["p_start2"], ev["idle_a"]), (ev["idle_b"], DUR + DT)]
        dips = [(a, a + 120.0, 0.02) for a in (self.at(m, 3) for m in (65, 200, 270, 430))]
        self.dips = dips
        add_job(self.P_hosts, series(0.42, pw, 0.10, dips), 0.65)
        mw = [(0.0, ev["idle_a"]), (ev["idle_b"] + 120.0, DUR + DT)]
        add_job(self.M_hosts, series(0.20, mw, 0.15), 0.76)
        self.a2a = self.frac(ev["a1"], ev["a1e"]) + self.frac(ev["a2"], ev["a2e"])
        add_job(self.M_hosts, 0.5 * self.a2a * rng.lognormal(0, 0.1, T), 0.8, sig=0.25, hot=0.2)
        add_job(self.S1, series(0.33, ev["s1"]), 0.53)
        add_job(self.S2, series(0.30, ev["s2"]), 0.53)
        bg = rng.uniform(0.0008, 0.003, (N_HOST, R))[None] * rng.lognormal(0, 0.3, (T, N_HOST, R))
        htx += bg
        hrx += bg * rng.lognormal(0, 0.1, bg.shape)
        ctx += 0.5 * bg
        crx += 0.5 * bg
        self.htx, self.hrx = htx, hrx
        self.cf_tx = ctx / np.maximum(htx, 1e-12)
        self.cf_rx = crx / np.maximum(hrx, 1e-12)

    def schedule_events(self) -> None:
        rng, f, ev = self.rng, self.fab, self.ev
        # fault 1: reseat, then 2x
        a = ev["f1"]
        self.link_down(self.p1, a, a + rng.uniform(40, 80), sym_up=0.0)
        m = self.tn > a + 60
        for q in (self.p1, f.peer[self.p1]):
            self.cap[m, q] = 0.5
        self.port_fault("link_width_degraded", self.p1, a, DUR,
                        "reseated host link came back at 2x: Link_width_active 16 (2x) at the leaf, "
                        "rate_bytes_per_second 2.5e10 at the HCA, speed tag still 400G; no errors; its "
                        "bytes capped at 200G")
        # fault 2: slow flap
        t = ev["f2"] + rng.uniform(0, 180)
        first = t
        end2 = ev["f2"] + 7200.0
        while t < end2 - 60:
            d = rng.uniform(4, 25)
            self.link_down(self.p2, t, t + d, ler=0.5, lli=0.3, sym_up=8.0)
            t += d + rng.uniform(600, 1200)
        self.port_fault("slow_flap", self.p2, float(int(first // DT) * DT), end2,
                        "one down/up every 10-20 min for 2 h: LinkDownedCounterExtended +1 at both ends, "
                        "link error recovery / local link integrity now and then, symbol errors at "
                        "link-up, xmit discards, traffic shifting to the sibling uplinks")
        # fault 6: left down after a cable swap
        self.link_down(self.p6, ev["f6"], DUR + 3600.0)
        self.port_fault("link_down_after_maintenance", self.p6, ev["f6"], DUR,
                        "host link down since a cable swap and never back: leaf logical_state 1 / phy_state "
                        "2 (Polling, not Disabled), HCA state_id 1 / physical_state_id 2 / rate 1.25e9, "
                        "its host up with 7 active HCAs; no bytes either way")
        # host reboot (healthy)
        h, t = self.reboot_host, ev["reboot"]
        hn = host_name(h)
        hports = f.hp[h]
        for q in hports:
            self.link_down(f.peer[q], t + rng.uniform(0, 5), t + 240 + rng.uniform(0, 30),
                           phy=(2, 2), count=(1, 0))
        self.absent([hn], t - 15, t + 300)
        self.resets.append((hports, t + 200))
        self.dedup_reset.append((hports, t + 300))
        for q in hports:
            L = f.leaf[q]
            for u in rng.choice(f.up[L].ravel(), 2, replace=False):
                self.err["relay"][self.ival(t + 10), u] += rng.poisson(rng.uniform(5, 40))
        self.event("host_reboot", [f"{hn}:*"] + [f.name(f.peer[q]) for q in hports]
                   + self.where_dev(sorted({f.dev[f.peer[q]] for q in hports})), t - 60, t + 420,
                   "a host reboots: no host points ~5 min, its 8 leaf ports polling and link downed +1, "
                   "its HCA counters restart from 0, a few switch relay errors for its LIDs")
        # switch firmware update of leaf L7 (healthy prelude of fault 7)
        L7, t7 = self.L7, ev["t7"]
        lp = np.concatenate([f.dn[L7], f.up[L7].ravel()])
        for q in lp:
            self.link_down(q, t7 + rng.uniform(0, 2), t7 + 240 + rng.uniform(5, 40), count=(0, 1))
        self.absent([leaf_name(L7)], t7, t7 + 240)
        self.resets.append((lp, t7 + 200))
        self.event("switch_firmware_update", [f"{leaf_name(L7)}:*"] + [f.name(f.peer[q]) for q in lp],
                   t7 - 30, t7 + 540, "planned leaf firmware update: the leaf is unreachable 4 min, its "
                   "32 links down (far ends polling, link downed +1), its counters restart from 0")
        # spine drain (healthy, planned)
        s, td = self.s_drain, ev["drain"]
        sports = f.sp[s].ravel()
        for q in sports:
            self.link_down(q, td + rng.uniform(0, 20), td + 600 + rng.uniform(0, 20), phy=(3, 2),
                           count=(0, 1))
        self.absent([f"spine-{s}"], td + 150, td + 390)
        self.resets.append((sports, td + 360))
        self.event("spine_drain", [f"spine-{s}:*"] + [f.name(f.peer[q]) for q in sports], td - 30,
                   td + 720, "planned firmware upgrade: all 64 ports of the spine shut by the operator "
                   "(phy_state 3 Disabled, logical_state 1) for 10 min, the spine reboots inside the "
                   "window, the leaf ends poll (phy_state 2, link downed +1), traffic moves to the other "
                   "14 uplinks of every leaf")
        # counter clear (healthy)
        Lc, tc = self.Lc, ev["clear"]
        cp = np.concatenate([f.dn[Lc], f.up[Lc].ravel()])
        self.resets.append((cp, tc))
        self.event("counter_clear", [f"{leaf_name(Lc)}:*"], tc - 30, tc + 60,
                   "an operator clears every counter of the leaf (perfquery -x -R): data, packets, "
                   "xmit wait and errors of its 32 ports restart from ~0 at once")
        # UFM Telemetry restart (healthy)
        tu = ev["ufm"]
        sw = [d for d, s_ in zip(f.devices, f.dev_sw, strict=True) if s_]
        self.absent(sw, tu, tu + 180)
        self.event("telemetry_restart", self.where_dev(sw), tu, tu + 240,
                   "UFM Telemetry restarts: no switch points for 3 minutes, counters kept counting")

    def apply_links(self) -> None:
        f = self.fab
        self.downf = np.zeros((T, self.P))
        self.up_at = np.ones((T, self.P), bool)
        self.phy_at = np.full((T, self.P), 5, np.int64)
        rng = self.rng
        for a, b, t0, t1, phy, count, ler, lli, sym_up in self.downs:
            fr = self.frac(t0, t1)
            for q, ph, c in ((a, phy[0], count[0]), (b, phy[1], count[1])):
                self.downf[:, q] += fr
                m = (self.tsp[:, q] >= t0) & (self.tsp[:, q] < t1)
                self.up_at[m, q] = False
                self.phy_at[m, q] = ph
                k0 = self.ival(t0)
                if c:
                    self.err["ldn"][k0, q] += 1
                if ler and rng.random() < ler:
                    self.err["ler"][k0, q] += 1
                if lli and rng.random() < lli:
                    self.err["lli"][k0, q] += 1
                self.err["disc"][k0, q] += rng.poisson(40 if f.is_sw[q] else 4)
                if t1 < DUR and sym_up > 0:
                    self.err["sym"][self.ival(t1), q] += rng.poisson(sym_up)
        self.downf = np.clip(self.downf, 0.0, 1.0)
        self.linkdown = np.maximum(self.downf, self.downf[:, f.peer])

    def traffic(self) -> None:
        rng, f, ev = self.rng, self.fab, self.ev
        u = np.zeros((T, self.P))
        avail = 1.0 - self.linkdown
        H = np.arange(N_HOST)
        for r in range(N_RAIL):
            hpp = f.hp[H, r]
            dnp = f.peer[hpp]
            u[:, hpp] = np.minimum(self.htx[:, H, r], 0.97 * self.cap[:, hpp]) * avail[:, hpp]
            u[:, dnp] = np.minimum(self.hrx[:, H, r], 0.97 * self.cap[:, dnp]) * avail[:, dnp]
        # fault 4: the slow HCA drains 40 % less
        f4 = self.frac(ev["f4"], ev["f4e"])
        u[:, self.p4] *= 1 - 0.4 * f4
        for L in range(N_LEAF):
            a, r = divmod(L, N_RAIL)
            hs = a * N_HPS + np.arange(N_HPS)
            hpp = f.hp[hs, r]
            cu = (u[:, hpp] * self.cf_tx[:, hs, r]).sum(1)
            cd = (u[:, f.dn[L]] * self.cf_rx[:, hs, r]).sum(1)
            ups = f.up[L].ravel()
            av = avail[:, ups]
            wu = rng.normal(1.0, 0.02, av.shape) * av
            wd = rng.normal(1.0, 0.02, av.shape) * av
            wu /= np.maximum(wu.sum(1, keepdims=True), 1e-9)
            wd /= np.maximum(wd.sum(1, keepdims=True), 1e-9)
            u[:, ups] = np.minimum(cu[:, None] * wu, 0.98 * av)
            u[:, f.peer[ups]] = np.minimum(cd[:, None] * wd, 0.98 * av)
        self.u = np.clip(u, 0.0, None)
        tx_bytes = self.u * LINE
        psz = rng.uniform(2900, 4100, self.P)
        size = 256 + (psz - 256) * (self.u / (self.u + 0.02)) * rng.lognormal(0, 0.01, (T, self.P))
        self.tx_words = np.rint(tx_bytes / 4)
        self.tx_pkts = np.rint(tx_bytes / np.maximum(size, 64))
        self.tx_words[0] = 0
        self.tx_pkts[0] = 0
        self.rx_pkts = self.tx_pkts[:, f.peer]

    def credit_waits(self) -> None:
        rng, f, ev = self.rng, self.fab, self.ev
        u = self.u / self.cap
        blk = 1.5e-4 * u + 2.5e-3 * u ** 3
        nd = len(f.devices)
        blk *= rng.lognormal(0, 0.5, (T, nd))[:, f.dev_id] * rng.lognormal(0, 0.3, (T, self.P))
        spike = rng.random((T, self.P)) < 0.02
        blk[spike] *= 1 + 4 * rng.pareto(1.5, int(spike.sum()))
        host = f.role == HC
        blk[:, host] *= 0.05
        a2 = self.a2a[:, None]
        sp = np.flatnonzero(f.role == SP)
        up = np.flatnonzero(f.role == LU)
        mh = f.hp[np.asarray(self.M_hosts)].ravel()
        md = f.peer[mh]
        for ports, lo, hi in ((sp, 6, 20), (up, 2, 6), (md, 4, 12), (mh, 5, 15)):
            g = rng.uniform(lo, hi, len(ports)) * rng.lognormal(0, 0.4, (T, len(ports)))
            blk[:, ports] *= 1 + a2 * g
        # fault 4: slow-drain HCA and the congestion spreading from it
        f4 = self.frac(ev["f4"], ev["f4e"])
        p4 = self.p4
        u4 = self.hrx[:, f.host[p4], f.rail[p4]]
        base = 1.5e-4 * u4 + 2.5e-3 * u4 ** 3
        slow = base * rng.uniform(20, 60, T) * rng.lognormal(0, 0.2, T)
        blk[:, p4] = blk[:, p4] * (1 - f4) + slow * f4
        L4, r4 = int(f.leaf[p4]), int(f.rail[p4])
        rel = []
        for s in rng.choice(N_SPINE, 3, replace=False):
            q = int(f.sp[s, L4, rng.integers(N_LPS)])
            blk[:, q] *= 1 + f4 * rng.uniform(3, 9) * rng.lognormal(0, 0.2, T)
            rel.append(q)
            others = [a * N_RAIL + r4 for a in range(N_SU) if a * N_RAIL + r4 != L4]
            Lo = int(rng.choice(others))
            q2 = int(f.up[Lo, s, rng.integers(N_LPS)])
            blk[:, q2] *= 1 + f4 * rng.uniform(2, 5) * rng.lognormal(0, 0.2, T)
            rel.append(q2)
        self.port_fault("slow_drain_hca", p4, ev["f4"], ev["f4e"],
                        "the HCA returns credits slowly: PortXmitWaitExtended on its leaf port 20-60x "
                        "its siblings' at the same load, 40 % fewer bytes to the host; spine ports facing "
                        "the leaf and same-rail uplinks of other SUs wait more (related)",
                        related=[{"device": f.dev[q], "ports": [f.port[q]]} for q in rel])
        self.xw = np.rint(TICKS * np.minimum(blk, 0.95) * (1 - self.linkdown))
        self.xw[0] = 0

    def errors(self) -> None:
        rng, f, ev, e = self.rng, self.fab, self.ev, self.err
        up = 1.0 - self.linkdown
        fault_ports = {self.p1, self.p2, self.p3, self.p4, self.p5, self.p6, self.p8, self.p9,
                       *self.p10}
        fault_ports |= {int(f.peer[q]) for q in list(fault_ports)}
        L7p = set(f.dn[self.L7].tolist()) | set(f.up[self.L7].ravel().tolist())
        # background symbol errors on ~3 % of links, one end
        links = [q for q in range(self.P) if q < f.peer[q] and q not in fault_ports
                 and f.peer[q] not in fault_ports and q not in L7p and f.peer[q] not in L7p]
        n_bg = round(0.03 * self.P / 2)
        bgp = []
        for q in rng.choice(links, n_bg, replace=False):
            q = int(q) if rng.random() < 0.5 else int(f.peer[q])
            rate = rng.uniform(0.5, 6.0) / 3600 * DT
            e["sym"][:, q] += rng.poisson(rate, T) * (up[:, q] > 0.5)
            bgp.append(q)
        self.event("background_symbol_errors", [f.name(q) for q in bgp], 0, DUR,
                   "0.5-6 symbol errors an hour on ~3 % of links, steady since the start",
                   background=True)
        e["rcv"] += rng.binomial(e["sym"].astype(np.int64), 0.04)
        # fault 3: bad switch transmitter, seen at the HCA only
        a, p3 = ev["f3"], self.p3
        h3 = int(f.peer[p3])
        on = self.frac(a, DUR + DT)
        x = np.clip((self.tn - a) / (DUR - a), 0, 1)
        rate = (rng.uniform(0.3, 0.5) + x * rng.uniform(0.5, 1.0)) * on * up[:, h3]
        e["sym"][:, h3] += rng.poisson(rate * DT)
        e["rcv"][:, h3] += rng.binomial(self.rx_pkts[:, h3].astype(np.int64),
                                        rng.uniform(3e-8, 6e-8) * on)
        t = a + rng.uniform(300, 900)
        while t < DUR:
            e["ler"][self.ival(t), h3] += 1
            t += rng.uniform(1200, 2400)
        self.port_fault("bad_switch_transmitter", p3, a, DUR,
                        "the leaf port's transmitter is bad: only the HCA counts it (symbol_error_total "
                        "0.3-1.5/s rising, port_errors_received_total ~4e-8 of received packets, an "
                        "occasional link_error_recovery_total); the leaf end is clean")
        # fault 5: module heating, then errors
        a5, p5 = ev["f5"], self.p5
        base = rng.uniform(53, 57)
        ramp = np.clip((self.tsp[:, p5] - a5) / 5400.0, 0, 1)
        after = np.clip((self.tsp[:, p5] - a5 - 5400.0) / (DUR - a5), 0, 1)
        temp = base + (80 - base) * ramp + 2.0 * after + rng.normal(0, 0.3, T)
        self.temp_override[p5] = temp
        excess = np.clip(temp - 75.0, 0, None)
        r5 = np.where(temp > 74.5, 0.02 * np.exp(excess / 1.3), 0.0) * up[:, p5]
        e["sym"][:, p5] += rng.poisson(r5 * DT)
        e["sym"][:, f.peer[p5]] += rng.poisson(0.1 * r5 * DT)
        e["rcv"][:, p5] += rng.binomial(e["sym"][:, p5].astype(np.int64), 0.05)
        hot = np.flatnonzero(temp > 77)
        for k in hot[:: max(1, 30)]:
            e["ler"][k, p5] += 1
        self.ber_mul[:, p5] *= 10 ** (np.clip(temp - 60, 0, None) / 8)
        self.port_fault("module_overheating", p5, a5, DUR,
                        "Module_Temperature 55 -> 80 degC over 90 min (300 s telemetry) with Total_Raw_BER "
                        "rising, then symbol errors from ~75 degC (growing to 1-3/s), receive errors, link "
                        "error recovery; the far end sees 10 %")
        # fault 7: leaf firmware -> symbol errors on most ports
        a7, L7 = ev["f7"], self.L7
        lp = np.concatenate([f.dn[L7], f.up[L7].ravel()])
        hitp = rng.choice(lp, round(0.7 * len(lp)), replace=False)
        ramp = np.clip((self.tn - a7) / 7200.0, 0, 1) * (self.tn > a7)
        for q in hitp:
            rq = rng.lognormal(np.log(0.15), 0.8) * (0.05 + 0.95 * ramp) * (self.tn > a7)
            s = rng.poisson(rq * DT * up[:, q])
            e["sym"][:, q] += s
            e["rcv"][:, q] += rng.binomial(s, 0.03)
            self.ber_mul[:, q] *= 1 + (self.tn > a7) * rng.uniform(10, 100) * (0.1 + 0.9 * ramp)
        self.fault("firmware_symbol_errors", leaf_name(L7), ["*"], a7, DUR,
                   "after its firmware update ~70 % of the leaf's 32 ports count symbol errors, rising "
                   "over 2 h to 0.05-1/s each, receive errors ~3 % of them, Total_Raw_BER x10-100; "
                   "the far ends are clean")
        # fault 8: excessive buffer overrun on one HCA
        a8, p8 = ev["f8"], self.p8
        busy = (self.u[:, f.peer[p8]] > 0.15) & (self.tn > a8)
        gap = rng.uniform(150, 300)
        e["ebo"][:, p8] += rng.random(T) < busy * DT / gap
        e["rcv"][:, p8] += rng.poisson(rng.uniform(0.5, 3.0) * DT * busy)
        self.port_fault("excessive_buffer_overrun", p8, a8, DUR,
                        "excessive_buffer_overrun_errors_total +1 every 2.5-5 min under receive load until "
                        "the 4-bit counter stops at 15; port_errors_received_total 0.5-3/s (overrun drops) "
                        "goes on; the leaf end is clean")
        # fault 9: dirty optic on a spine port
        a9, p9 = ev["f9"], self.p9
        on = (self.tn > a9)
        pr = rng.uniform(3e-8, 6e-8) * rng.lognormal(0, 0.1, T) * on
        bad = rng.binomial(self.rx_pkts[:, p9].astype(np.int64), pr)
        e["rcv"][:, p9] += bad
        e["sym"][:, p9] += bad + rng.poisson(0.5 * bad)
        q9 = int(f.peer[p9])
        e["rcv"][:, q9] += rng.binomial(self.rx_pkts[:, q9].astype(np.int64), 0.03 * pr)
        self.ber_override[p9] = (on, rng.uniform(2e-6, 5e-6))
        self.port_fault("dirty_optic", p9, a9, DUR,
                        "PortRcvErrorsExtended at a steady 3-6e-8 of the received packets (nothing when the "
                        "link idles), symbol errors ~1.5x that, Total_Raw_BER ~3e-6; the far end ~3 %")
        # fault 10: routing hole after an SM failover
        a10, b10 = ev["f10"], ev["f10e"]
        f10 = self.frac(a10, b10)
        for q in self.p10:
            lam = self.rx_pkts[:, q] * rng.uniform(0.002, 0.006) * rng.lognormal(0, 0.3, T) * f10
            e["relay"][:, q] += rng.poisson(lam)
        self.fault("routing_hole", f"spine-{self.s10}", [f.port[q] for q in self.p10], a10, b10,
                   "after a subnet-manager failover the spine's forwarding table misses two hosts' "
                   f"LIDs (behind {leaf_name(self.hole_leaf)}): PortRcvSwitchRelayErrorsExtended at "
                   "0.2-0.6 % of the received packets on its ports facing the same-rail leaves of the "
                   "other SUs; no physical errors", peer_ends=[f.peer[q] for q in self.p10])

    # ---- cumulative values as sampled
    def cumulate(self, inc: np.ndarray, init: np.ndarray, cols: np.ndarray,
                 bits: int | None = None) -> np.ndarray:
        """Cumulative counter of the given port columns, read at each device's jittered instant."""
        inc = np.rint(inc[:, cols]).astype(np.int64)
        inc[0] = 0
        C = init[None, :].astype(np.int64) + np.cumsum(inc, axis=0)
        pos = {int(c): i for i, c in enumerate(cols)}
        for ports, tr in self.resets:
            idx = [pos[int(q)] for q in ports if int(q) in pos]
            if not idx:
                continue
            kr = self.ival(tr)
            after = (self.tn[kr] - tr) / DT
            keep = np.rint(inc[kr, idx] * after).astype(np.int64)
            C[kr:, idx] -= (C[kr, idx] - keep)[None, :]
        jp = self.tsp[:, cols] - self.tn[:, None]
        nxt = np.vstack([inc[1:], inc[-1:]])
        d = np.where(jp > 0, nxt, inc) * (jp / DT)
        V = np.maximum(C + np.floor(d).astype(np.int64), 0)
        if bits is not None:
            np.minimum(V, (1 << bits) - 1, out=V)
        return V

    def init_values(self, key: str, n: int, host: bool) -> np.ndarray:
        rng = self.rng

        def sparse(p0, hi):
            return np.where(rng.random(n) < p0, 0, rng.integers(1, hi, n))

        if key == "words":
            return (10 ** rng.uniform(12.3, 15.1, n)).astype(np.int64)
        if key == "xw":
            if host:
                v = rng.integers(0, 3_500_000_000, n)
                return np.where(rng.random(n) < 0.35, (1 << 32) - 1, v)
            return (10 ** rng.uniform(9, 12.5, n)).astype(np.int64)
        table = {"sym": (0.7, 3000), "rcv": (0.75, 300), "ldn": (0.4, 6), "ler": (0.6, 8),
                 "lli": (0.95, 3), "ebo": (0.98, 3), "rpe": (0.9, 40), "relay": (0.7, 5000),
                 "disc": (0.5, 2000)}
        p0, hi = table[key]
        if host:
            hi = min(hi, 50) if key in ("ldn", "ler", "lli", "ebo") else min(hi, 400)
        return sparse(p0, hi)

    def build_values(self) -> None:
        f = self.fab
        sw = np.flatnonzero(f.is_sw)
        hc = np.flatnonzero(~f.is_sw)
        self.sw, self.hc = sw, hc
        peer = f.peer
        rx_words = self.tx_words[:, peer]
        # initial data counters: words since the switch booted / the HCA was reset
        iw = self.init_values("words", self.P, False)
        iw[hc] = (10 ** self.rng.uniform(13.0, 15.6, len(hc))).astype(np.int64)
        ratio = self.rng.uniform(2500, 4000, self.P)
        ipk = (iw * 4 / ratio).astype(np.int64)
        irx = (iw * self.rng.uniform(0.8, 1.2, self.P)).astype(np.int64)
        irp = (irx * 4 / ratio).astype(np.int64)
        V: dict[str, np.ndarray] = {}
        for cols, host in ((sw, False), (hc, True)):
            tag = "h" if host else "s"
            V[f"{tag}_rx_words"] = self.cumulate(rx_words, irx[cols], cols)
            V[f"{tag}_tx_words"] = self.cumulate(self.tx_words, iw[cols], cols)
            V[f"{tag}_rx_pkts"] = self.cumulate(self.rx_pkts, irp[cols], cols)
            V[f"{tag}_tx_pkts"] = self.cumulate(self.tx_pkts, ipk[cols], cols)
            bits = HOST_BITS["xw"] if host else None
            V[f"{tag}_xw"] = self.cumulate(self.xw, self.init_values("xw", len(cols), host), cols,
                                           bits)
            for key in ERRS:
                if host and key == "relay":
                    continue
                b = HOST_BITS.get(key) if host else None
                V[f"{tag}_{key}"] = self.cumulate(self.err[key], self.init_values(key, len(cols), host),
                                                  cols, b)
        self.V = V
        self.host_sat = [int(hc[i]) for i in np.flatnonzero(V["h_xw"][0] == (1 << 32) - 1)]

    def gauges(self) -> None:
        f = self.fab
        hc = self.hc
        up = self.up_at[:, hc]
        self.G = {
            "g_state": np.where(up, 4, 1),
            "g_phys": self.phy_at[:, hc],
            "g_rate": np.where(up, np.where(self.cap[:, hc] < 1, 25_000_000_000, 50_000_000_000),
                               1_250_000_000),
        }
        sw = self.sw
        rng = self.rng
        n = len(sw)
        base = np.clip(rng.normal(50, 4, n), 38, 62)
        load = np.clip(self.u[:, sw] + self.u[:, f.peer[sw]], 0, 2) * 2.0
        drift = np.sin(2 * np.pi * self.tn[:, None] / 7200.0 + rng.uniform(0, 6.3, n)) * 1.0
        temp = base[None] + load + drift + rng.normal(0, 0.4, (T, n))
        pos = {int(c): i for i, c in enumerate(sw)}
        for q, tv in self.temp_override.items():
            temp[:, pos[q]] = tv + load[:, pos[q]] * 0.3
        self.temp = np.rint(temp).astype(np.int64)
        ber = 10 ** rng.uniform(-9.3, -7.3, n)[None] * rng.lognormal(0, 0.25, (T, n))
        self.ber = ber * self.ber_mul[:, sw]
        for q, (on, level) in self.ber_override.items():
            i = pos[q]
            self.ber[:, i] = np.where(on, level * rng.lognormal(0, 0.15, T), self.ber[:, i])

    # ---- output
    def write(self, outdir: str) -> dict:
        f = self.fab
        os.makedirs(outdir, exist_ok=True)
        sw, hc = self.sw, self.hc
        col = np.empty(self.P, np.int64)
        col[sw] = np.arange(len(sw))
        col[hc] = np.arange(len(hc))
        V = self.V
        # the always-present traffic fields, as Telegraf's floats (float64 rounding)
        A = np.zeros((T, self.P, 4), np.int64)
        for cols, tag, mul in ((sw, "s", 1), (hc, "h", 4)):
            if tag == "s":
                seq = (V["s_rx_words"], V["s_rx_pkts"], V["s_tx_words"], V["s_tx_pkts"])
            else:
                seq = (V["h_rx_words"] * mul, V["h_tx_words"] * mul, V["h_rx_pkts"], V["h_tx_pkts"])
            for j, arr in enumerate(seq):
                A[:, cols, j] = arr.astype(np.float64).astype(np.int64)
        head = []
        for p in range(self.P):
            names = UFM_ALWAYS if f.is_sw[p] else HOST_ALWAYS
            head.append(f.tags(p) + ",".join(f"{n}=%d" for n in names))
        # dedup'd fields: (name, values (T, ncols), cols)
        sparse = [(name, V[f"s_{key}"], sw) for name, key in UFM_SPARSE]
        for name, key in HOST_SPARSE:
            arr = self.G[key] if key.startswith("g_") else V[f"h_{key}"]
            sparse.append((name, arr, hc))
        last_v = [np.full(len(c), -1, np.int64) for _, _, c in sparse]
        last_t = [np.full(len(c), -1e18) for _, _, c in sparse]
        resets = sorted(self.dedup_reset, key=lambda x: x[1])
        present = self.dev_present[f.dev_id].T          # (T, P)
        ts_dev = ((T0 + self.tn[None, :] + self.jit) * NSEC).round().astype(np.int64)
        sec_names = ("Link_width_active", "Module_Temperature", "Total_Raw_BER", "logical_state",
                     "phy_state")
        width = np.where(self.cap[:, sw] < 1, 16, 2)
        n_lines = 0
        path = os.path.join(outdir, "port_counters.lp")
        with open(path, "w", buffering=1 << 22) as fh:
            for k in range(T):
                tk = self.tn[k]
                for ports, tr in resets:
                    if tr <= tk < tr + DT:
                        for j, (_, _, cols) in enumerate(sparse):
                            m = np.isin(cols, ports)
                            last_t[j][m] = -1e18
                ex: dict[int, list[str]] = defaultdict(list)
                pres = present[k]
                for j, (name, arr, cols) in enumerate(sparse):
                    v = arr[k]
                    pc = pres[cols]
                    emit = pc & ((v != last_v[j]) | (tk - last_t[j] >= DEDUP_S))
                    idx = np.flatnonzero(emit)
                    last_v[j][idx] = v[idx]
                    last_t[j][idx] = tk
                    for c, val in zip(cols[idx].tolist(), v[idx].tolist(), strict=True):
                        ex[c].append(f",{name}={val}")
                if k % SEC_EVERY == SEC_PHASE:
                    upk = self.up_at[k, sw]
                    phyk = self.phy_at[k, sw]
                    for i, c in enumerate(sw.tolist()):
                        if not pres[c]:
                            continue
                        if upk[i]:
                            ber = np.format_float_positional(float(f"{self.ber[k, i]:.2g}"), trim="-")
                            ex[c].append(f",{sec_names[0]}={width[k, i]},{sec_names[1]}="
                                         f"{self.temp[k, i]},{sec_names[2]}={ber},{sec_names[3]}=4,"
                                         f"{sec_names[4]}={phyk[i]}")
                        else:
                            ex[c].append(f",{sec_names[1]}={self.temp[k, i]},{sec_names[3]}=1,"
                                         f"{sec_names[4]}={phyk[i]}")
                rows = A[k].tolist()
                order = np.argsort(ts_dev[:, k], kind="stable")
                buf = []
                for d in order.tolist():
                    tss = f" {ts_dev[d, k]}\n"
                    for p in f.dev_ports[d].tolist():
                        if pres[p]:
                            e = ex.get(p)
                            buf.append(head[p] % tuple(rows[p]) + ("".join(e) if e else "") + tss)
                n_lines += len(buf)
                fh.write("".join(buf))
        return self.labels(outdir, n_lines)

    def jobs_healthy(self) -> None:
        f, ev = self.fab, self.ev

        def where(hosts):
            hs = sorted(hosts)
            leaves = sorted({leaf_name((h // N_HPS) * N_RAIL + r) for h in hs for r in range(N_RAIL)})
            w = [f"{host_name(h)}:*" for h in hs] + [f"{lf}:*" for lf in leaves]
            if len({h // N_HPS for h in hs}) > 1:
                w += [f"spine-{s}:*" for s in range(N_SPINE)]
            return w

        jobs = [("pretrain", self.P_hosts, [(0.0, ev["p_stop1"]), (ev["p_start2"], ev["idle_a"]),
                                            (ev["idle_b"], DUR)]),
                ("moe", self.M_hosts, [(0.0, ev["idle_a"]), (ev["idle_b"] + 120, DUR)]),
                ("small-a", self.S1, ev["s1"]), ("small-b", self.S2, ev["s2"])]
        for name, hosts, wins in jobs:
            w = where(hosts)
            for a, b in wins:
                if a > 0:
                    self.event("job_start", w, a, a + 300, f"{name} starts on {len(hosts)} hosts "
                               "(NCCL warm-up, then its usual load)")
                if b < DUR:
                    self.event("job_stop", w, b, b + 300, f"{name} ends")
        for a, b, _ in self.dips:
            self.event("job_pause", where(self.P_hosts), a, b + 120,
                       "pretrain stops communicating for two minutes (eval)")
        allw = ["*"]
        self.event("idle_stretch", allw, ev["p_stop1"], ev["p_start2"] + 300,
                   "the pretrain job is requeued: ~15 min of light traffic (fit window)")
        self.event("idle_hour", allw, ev["idle_a"], ev["idle_b"] + 420,
                   "every job stopped for an hour: near-zero traffic and credit waits everywhere")
        a2w = ([f"spine-{s}:*" for s in range(N_SPINE)] + [f"{leaf_name(L)}:*" for L in range(N_LEAF)]
               + [f"{host_name(h)}:*" for h in sorted(self.M_hosts)])
        for a, b in ((ev["a1"], ev["a1e"]), (ev["a2"], ev["a2e"])):
            self.event("alltoall_congestion", a2w, a, b + 120,
                       "MoE all-to-all phase: bytes x3 on its hosts, PortXmitWaitExtended 6-20x on every "
                       "spine port and 2-6x on every uplink at once, hot receivers' leaf ports 4-12x, "
                       "its HCAs' transmit wait 5-15x")
        self.event("adaptive_routing", allw, 0, DUR, "adaptive routing spreads every leaf's cross-SU "
                   "bytes over its uplinks within +-2 % (and over the survivors when one is down)",
                   background=True)
        self.event("sampling_jitter", allw, 0, DUR, "timestamps jittered +-3 s per device and "
                   "sample, ~0.15 % of points missing", background=True)
        self.event("hca_xmit_wait_saturated", [f.name(q) for q in self.host_sat], 0, DUR,
                   "the 32-bit port_transmit_wait_total of these HCAs sits at 4294967295 (saturated) "
                   "since before the start", background=True)

    def labels(self, outdir: str, n_lines: int) -> dict:
        for fl in self.faults:
            assert fl["start_ns"] >= self.ns(TRAIN), fl
        labels = {
            "scenario": "ib-host-and-switch", "scale": "small", "seed": self.seed, "fabric": "ib",
            "interval_s": DT, "sample_s": DT, "t0_ns": self.ns(0), "t_end_ns": self.ns(DUR),
            "train_until_ns": self.ns(TRAIN), "fit_first": f"{TRAIN // 60}m",
            "ports": self.P, "lines": n_lines,
            "exporters": {"switch": "NVIDIA UFM Telemetry (Prometheus endpoint) via Telegraf",
                          "hca": "Prometheus node_exporter infiniband collector via Telegraf "
                                 "(node_infiniband_ prefix trimmed)"},
            "faults": sorted(self.faults, key=lambda x: x["start_ns"]),
            "healthy_phenomena": sorted(self.healthy, key=lambda x: x["start_ns"]),
        }
        with open(os.path.join(outdir, "labels.json"), "w") as fh:
            json.dump(labels, fh, indent=1)
        return labels

    def run(self, outdir: str) -> dict:
        self.plan()
        self.loads()
        self.schedule_events()
        self.apply_links()
        self.traffic()
        self.credit_waits()
        self.errors()
        self.build_values()
        self.gauges()
        self.jobs_healthy()
        return self.write(outdir)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    wall = time.time()
    lab = Scenario(args.seed).run(args.outdir)
    size = os.path.getsize(os.path.join(args.outdir, "port_counters.lp"))
    print(f"ib-host-and-switch seed {args.seed}: {lab['ports']} ports, {T} samples, {lab['lines']:,} "
          f"lines, {size / 1e6:.0f} MB, {len(lab['faults'])} faults, "
          f"{len(lab['healthy_phenomena'])} healthy phenomena, fit-first {lab['fit_first']} "
          f"({time.time() - wall:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
