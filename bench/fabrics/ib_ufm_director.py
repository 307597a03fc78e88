#!/usr/bin/env python3
"""Synthetic, labelled UFM-telemetry history of an InfiniBand NDR three-level fat tree with
director core switches (`ib_ufm_director`).

    python bench/fabrics/ib_ufm_director.py OUTDIR [--seed N]      # default seed 1

writes `OUTDIR/port_counters.lp` (InfluxDB line protocol, measurement `port_counters`) and
`OUTDIR/labels.json` (the label form `shared/scenarios/score.py` reads). numpy + standard
library only. The same seed gives byte-identical files; another seed moves every fault and every
device-level healthy phenomenon to other eligible ports/devices (each is picked from its
eligible candidates, in a fixed order, at a seed-rotated position, so consecutive seeds pick
different ones) and shifts every time by a few minutes; job-wide phenomena (jobs, checkpoints,
idle stretch, SU4 bring-up) keep their host sets and only move in time. 5 h of fabric time from
2025-05-13T19:00:00Z; `fit_first` = 90m (30 %), no fault starts inside it. Seed 1: 1,600 port
series, ~807k lines, ~540 MB, ~10 s and ~0.8 GB RSS on one core.

The generator is written from a description of real devices and exporters only; it is not tuned
to any detector.

Fabric
------
Rail-optimised, NDR 400G (4 lanes x 100G PAM4), three levels, seen through NVIDIA UFM Telemetry.

* Scalable units SU1-SU3 from the start, SU4 cabled and brought up mid-run. An SU is 8 DGX-style
  hosts `dgx<su><nn>` (`dgx101`..`dgx408`), each with 8 compute HCAs `mlx5_0`..`mlx5_7`; HCA r goes
  to the SU's rail-r leaf `leaf-su<su>-r<r>`. Leaves are 64-port Quantum-2-class switches
  (32 twin-port OSFP cages, ports `IB1/<cage>/<1|2>`), 8 host ports (`IB1/1/1`..`IB1/4/2`) and
  8 uplinks (`IB1/17/1`..`IB1/20/2`), two to each of the SU's four spines. Only cabled ports are
  exported.
* Spines `spine-su<su>-<1..4>` (64-port): 16 down ports `IB1/<rail+1>/<1|2>` (two per leaf) and 16
  uplinks `IB1/17/1`..`IB1/24/2`, eight to each director. 1:1 at every tier.
* Core: two modular directors `dir-1`, `dir-2` with line cards `L01`..`L09` of 16 ports
  (`L05/P12`). SU s uses line cards L(2s-1) and L(2s) of each director; consecutive ports of a
  line card alternate between the SU's four spines (P01 spine 1, P02 spine 2, .., P05 spine 1),
  so a line-card problem touches every spine of the SU.
* An older HDR group: `hdr-leaf-1`, `hdr-leaf-2` (40-port HDR switches, `IB1/<n>`) with eight
  storage servers `stor01`..`stor08` (two HDR HCAs each, `mlx5_0` to hdr-leaf-1, `mlx5_1` to
  hdr-leaf-2, passive copper). They hang off line card L09 of both directors through NDR splitter
  cables: each director cage `L09/P0c` is split into two 200G legs `L09/P0c/1` (to hdr-leaf-1)
  and `L09/P0c/2` (to hdr-leaf-2), four legs per HDR leaf per director, HDR speed (4 x 50G).
* Routing is static (LFT), spread evenly with a few percent of imbalance per link; the subnet
  manager re-routes around links that are down.

Traffic comes from the jobs below plus ~0.25 GB/s of storage reads per running host. Bytes follow
the paths: a host's traffic on rail r stays on its leaf when the peer is in the same SU, leaves
over the leaf's uplinks (per-link static weights) otherwise; spines send everything they get from
leaves to the directors (half to each), directors hand it to the destination SU's spines or to
the HDR legs. Every switch conserves bytes (except where the 1x link below clips).

Exporter and collector
----------------------
UFM Telemetry polls the switches every 30 s; a host agent reads the HCA port counters every
60 s (its own series, device = host, port = `mlx5_N`). Each point is stamped with the time the
device was read: a per-device slot in the collector's sweep (directors 0.4-2.5 s after the
30 s boundary, other switches 2.5-24 s, hosts anywhere in their 60 s), +-0.12 s jitter,
microsecond resolution. All ports of a device share one timestamp per sample. Lines are written in
the order the collector received them (so the file is time-ordered except where noted under
healthy phenomena). Counters are the raw cumulative values the devices report (64-bit
"Extended" port counters, so nothing saturates or wraps here), starting from large values on
devices up for months; new devices start at 0.

Tags
----
`device`, `port` (above), `fabric=ib`, `role` (`host` HCA port; `leaf_down` leaf port facing a host
or storage server; `leaf_up` leaf port facing a spine/director; `spine` spine port facing a leaf;
`spine_up` spine port facing a director; `core` director port), `rail` (the rail of the leaf, also
on the HCA and on the spine port facing that leaf; absent on `spine_up`, `core` and the HDR group,
which carry every rail), `peer_device`, `peer_port` (the far end of the cable), `speed` (the
configured speed, `400G` or `200G`; it does not follow a degraded link).

Fields (one set on every line; integer fields carry the `i` suffix)
--------------------------------------------------------------------
Counters, named with the project's canonical IB names; the UFM Telemetry field each comes from:

| field | UFM Telemetry | meaning |
|---|---|---|
| `in_octets`, `out_octets` | PortRcvDataExtended, PortXmitDataExtended | data octets received / sent |
| `in_pkts`, `out_pkts` | PortRcvPktsExtended, PortXmitPktsExtended | packets |
| `symbol_errors` | SymbolErrorCounterExtended | errors not corrected by the PHY (after FEC/PLR) |
| `link_error_recovery` | LinkErrorRecoveryCounterExtended | successful link retrains |
| `link_downed` | LinkDownedCounterExtended | link went down (not at the disabled end of an admin-disabled port) |
| `rcv_errors` | PortRcvErrorsExtended | bad packets received (only when packets flow) |
| `rcv_remote_physical_errors` | PortRcvRemotePhysicalErrorsExtended | EBP-marked packets (corrupted upstream) |
| `xmit_discards` | PortXmitDiscardsExtended | HoQ-lifetime discards, packets queued on a port whose link dropped |
| `xmit_wait` | PortXmitWaitExtended | ticks (8-byte times at the port's speed) with data to send and no credits |
| `local_link_integrity_errors` | LocalLinkIntegrityErrorsExtended | |
| `excessive_buffer_overrun_errors` | ExcessiveBufferOverrunErrorsExtended | |
| `Effective_Errors` | Effective_Errors (PPCNT) | bits FEC did not correct; PHY counter, 0 at each link-up |

`perfquery -R`-style clears zero the PortCounters group above (`symbol_errors` ..
`excessive_buffer_overrun_errors`, and `xmit_wait`); data and packet counters and the PHY counter
`Effective_Errors` keep counting. There is no `link_transitions` (IB has no such counter).

Gauges, sampled at the sample instant:

| field | source | values |
|---|---|---|
| `logical_state` | UFM `logical_state` (IB PortState) | 1 Down, 2 Init, 3 Armed, 4 Active |
| `phy_state` | UFM `phy_state` (PortPhysicalState) | 2 Polling, 3 Disabled, 5 LinkUp |
| `Link_width_active` | UFM `Link_width_active` | active lanes 4/2/1 (UFM shows `4x`), 0 when not LinkUp |
| `Link_speed_active` | UFM `Link_speed_active` | lane rate in Gb/s: 100 NDR, 50 HDR, 0 when not LinkUp |
| `oper_status` | collector, from `logical_state` | 1 iff Active (an Init/Armed port is 0 though physically up) |
| `speed_bps` | collector, width x lane rate | negotiated speed, 0 when not physically up |
| `Total_Raw_BER` | UFM `Total_Raw_BER` (pre-FEC) | firmware estimate over its window, float; 0 when not up |
| `Effective_BER`, `Symbol_BER` | UFM `Effective_BER`, `Symbol_BER` | post-FEC / post-PLR BER over the poll window (*) |
| `Temperature` | cable info `Temperature` | module temperature, integer C; 0 on passive copper (storage links) |

(*) 1.5e-254 (PPCNT coef 15, magnitude 255) when no error was seen in the window; 0 when the link is not up.

Timeline and jobs (base minutes; every seed shifts each by a few minutes)
-------------------------------------------------------------------------
* 0-171 job A, dense pre-training on SU1-SU3 (24 hosts): ~62 % of line rate per HCA, 45 % of it
  leaving the SU; it crashes at ~38 and is relaunched at ~45 after an `nccl-tests` all_to_all
  preflight (~40-43, near line rate); evaluation pauses (host links ~idle) at ~24, ~67, ~100,
  ~141; storage-bound checkpoints at ~54, ~115, ~161 (3-4 min).
* ~176-249 job B, MoE training on SU1-SU3: expert-parallel all-to-all, ~58 % of line rate with
  heavy burstiness, 62 % leaving the SU, smaller packets; a checkpoint at ~222.
* ~249-270 idle stretch; a leaf is rebooted inside it. ~271-300 job C, dense, SU1-SU4.
* SU4: powered ~124, switches discovered 1-3 min later, links train over the next minutes, hosts
  ~15 min later, acceptance tests (all_reduce burn-in, storage read test, all_to_all) until ~172,
  idle until job C.

Faults (labels.json `faults`; all start after the fit window, on 30 s boundaries)
-------------------------------------------------------------------------------
1. `port_stuck_init` (leaf uplink of SU1-3, base ~101 for ~1 h). The cable is re-seated
   (`link_downed` +1 both ends, training symbol errors), the link trains and both ends sit at
   phy_state LinkUp / logical_state Init for an hour: `oper_status` 0 while `speed_bps` and width
   still show 400G/4x, no data (SMP bytes only), the leaf's other uplinks carry its share. The
   SM then arms and activates it. Labelled on the leaf port, peer = spine port, related = the
   sibling uplinks and their spine ends.
2. `far_end_rx_errors` (spine-director link, base ~131 to the end). The transmitter laser at one
   end degrades: only the far end's receiver counts `symbol_errors` (0.01/s rising to ~1.6/s),
   `rcv_errors` (with traffic), `Effective_Errors` and a rising `Total_Raw_BER` (4e-7 -> 1e-4);
   the near end is clean. Labelled on the end with the bad laser, peer = the receiver; related =
   the next-hop receivers that count `rcv_remote_physical_errors`.
3. `load_dependent_crosstalk_errors` (host link of SU1-3, base ~96 to the end). One bounce (cable
   disturbed), then a marginal cable: `symbol_errors`/`rcv_errors` at both receivers in
   proportion to the bytes crossing (~0.018 per GB at the leaf, half at the HCA), a pre-FEC BER
   that follows utilisation, and nothing while the host idles (eval pauses, checkpoints, job
   changes, the idle stretch). Labelled on the leaf port, peer = the HCA.
4. `line_card_degrading` (six consecutive ports of one director line card of SU1-3, base ~183 to
   the end). Their receivers' `symbol_errors` rise together under one envelope (~0.005/s -> ~1/s,
   each port x0.5-2, common fluctuations), with `rcv_errors`, occasional `link_error_recovery` and
   `local_link_integrity_errors`, and `Total_Raw_BER` up together; the spine ends see ~8 %. The
   six ports face different spines, so the common factor is the line card. Labelled with the six
   director ports; peers = the six spine ports.
5. `link_width_degraded` (leaf uplink, base ~152 to the end). `link_downed` +1, retrain at
   `Link_width_active` 2 (70 % of seeds) or 1, same `Link_speed_active`, `speed_bps` 200G/100G under
   the 400G tag; stays up. Static routing keeps sending it its share: at 1x it saturates at
   91-97 % of its capacity in both directions under any job (at 2x only in all-to-all bursts),
   the HCAs on the leaf and the director ports feeding the spine end wait for credits (related).
6. `ber_degrading_cable` (spine-director link, base ~113 to the end). `Total_Raw_BER` at one
   receiver climbs from its background (<= 1e-7) by more than four decades (log-linear in
   x^1.3, ~1e-3 at the end); `Effective_Errors` appear only when it passes ~3e-4 (last ~10 min)
   and a few `symbol_errors`/`rcv_errors` after that: the change is visible for 2.5-3 h before
   any error. Labelled on the receiving end.
7. `hca_rx_stuck_congestion_tree` (host link of SU1-3, base ~119 for 30-35 min). The HCA stops
   draining: the leaf port toward it shows `xmit_wait` 85-95 % of all ticks and `xmit_discards`
   400-1500/s (HoQ lifetime), the HCA receives a trickle (5-12 % of line rate); credit waits spread
   to the spine ports feeding that leaf (25-45 %), the director ports feeding those spines
   (6-14 %), the other HCAs of the leaf (8-20 %), the leaf's uplinks and, faintly, the other SUs'
   spine uplinks (all `related`). Job A slows to 55 %; at the end the host is drained and job A
   relaunched without it. Labelled on the leaf port, peer = the HCA.
8. `flapping_link` (leaf uplink or spine-director link, base ~228 for an hour). Down/up every
   8-15 min (6-40 s down): `link_downed` +1 both ends each time, `link_error_recovery`, a burst of
   `symbol_errors`/`rcv_errors`, `xmit_discards` when it drops under load, phy_state Polling when a
   sample lands in a down, a traffic gap with the siblings taking over, `Effective_Errors` back to 0.
9. `port_left_disabled` (spine uplink, base ~138 to the end). Maintenance on the spine disables
   four uplinks to one director (phy_state Disabled at the spine, Polling at the director,
   `link_downed` +1 at the director end only); three are re-enabled after 10-13 min and re-swept,
   one stays Disabled to the end of the run. The fault starts when it is disabled.
10. `hca_module_overheating` (HCA port of SU1-3, base ~158 to the end). The HCA module's
    `Temperature` climbs ~26 C in an hour (to ~78-82 C under load), then `symbol_errors`,
    `rcv_errors` and `Total_Raw_BER` rise at the HCA receiver and, less, at the leaf port; errors
    follow temperature (fewer in the idle stretch). Labelled on the HCA, peer = the leaf port.

Healthy phenomena (labels.json `healthy_phenomena`; a detector should not flag them)
-----------------------------------------------------------------------------------
* `sm_resweep_after_reboot`: a leaf not involved in anything is rebooted in the idle stretch: no
  lines for 2.5-4 min, its peers Polling with `link_downed` +1 (HCAs included), then links train
  and the SM takes them Init -> Armed -> Active within 1-2 min; every counter of the leaf restarts
  from 0.
* `error_counter_clear` x2: `perfquery -R` on every port of a leaf (fit window, ~31) and on six
  ports later (~186: both ends of two background-AOC links and four spine ports): the error group
  and `xmit_wait` go back to 0, data counters keep counting.
* `clock_step`: one spine's clock ran 31.5-36 s fast; NTP steps it back once (~207): its
  timestamps go backwards once by a few seconds, and until then its lines carry stamps ~33 s
  ahead of the lines written around them.
* `duplicate_lines`: a collector buffer flush resends one batch of 1000 points (same timestamps,
  same values) right after the original (~153).
* `exporter_freeze`: one leaf's telemetry agent serves cached values for 18-22 min (every field
  repeated, timestamps fresh), then the accumulated counts arrive at once (~232).
* `aoc_background_symbol_errors` (background): 3 % of switch-switch links (long AOC) show 1-6
  symbol errors per hour at one receiver, some `rcv_errors`, pre-FEC BER near 1e-6.
* `prefec_ber_background` (background): every NDR receiver has its own `Total_Raw_BER` between
  1e-9 and 1e-6 (HDR 1e-11..1e-8), +-15 % sample to sample.
* `credit_wait_background` (background): `xmit_wait` grows with utilisation squared with a heavy
  tail (1 % of samples x4-15).
* Jobs: `job_restart` (job A crash and relaunch, in the fit window; relaunch after fault 7),
  `alltoall_preflight` (fit window: credit waits on many spine/core ports), `eval_pause` x4,
  `checkpoint_burst` x4 (storage HCAs and HDR legs at ~95 % of 200G, credit waits back along the
  spine uplinks, leaf uplinks and writer HCAs, a few HoQ discards on the legs), `job_switch`,
  `moe_all_to_all` (credit waits 5-50 % on many spine, spine-uplink and director ports at once,
  leaf ports less), `idle_stretch`, `job_start`.
* `new_su_bring_up`, `su_burn_in`, `storage_read_test`: SU4's series appear from zero mid-run,
  its links train, the director ports facing it leave Polling (they are in the stream from the
  start, Down/Polling with optics in), then near-line-rate acceptance tests.
* `planned_line_card_drain`: all 16 ports of one director line card (not involved in a fault)
  admin Disabled for 30 min (spine ends Polling, `link_downed` +1), traffic moves to the other
  line card (those ports run ~2x), then re-enabled and re-swept.
* `maintenance_port_disable`: the three siblings of fault 9, disabled and re-enabled.
* `static_routing_imbalance`: two leaf uplinks and one spine uplink carry ~1.7x the bytes of their
  siblings from the start (transmit direction).

Labels
------
`labels.json` has `scenario`, `scale`, `seed`, `fabric`, `interval_s` (30), `sample_s` (30),
`host_sample_s` (60), `t0_ns`, `t_end_ns`, `train_until_ns`, `fit_first` ("90m"), `ports` (series
in the file), `lines`, and the `faults` / `healthy_phenomena` lists in the form score.py reads
(`device`, `ports`, `start_ns`, `end_ns`, `peer_ends`, `related`, `signature`; `where`, `note`,
`background`).

Modelling limits
----------------
Per 30 s interval, not per packet. Credit waits are a per-port fraction of blocked time set by
load and by the congestion episodes above (not a queueing simulation), capped by the port's idle
time. Effective/Symbol BER are taken over the poll window; the raw BER is a gauge with noise, not
derived from lane counters (per-lane `Raw_Errors_Lane_*` are not exported).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import zlib
from datetime import UTC, datetime

import numpy as np

# ----------------------------------------------------------------------------------------------
# constants
# ----------------------------------------------------------------------------------------------
SCENARIO = "ib-ufm-director"
RUN_MIN = 300  # 5 h of fabric time
PERIOD = 30  # switch polling period (s); also the label interval
HOST_PERIOD = 60  # host-agent polling period (s)
RUN_S = RUN_MIN * 60
K = RUN_S // PERIOD + 1  # samples on the 30 s grid, k = 0..600
TK = np.arange(K, dtype=np.float64) * PERIOD
FIT_S = int(RUN_S * 0.3)  # 90 min
T0 = datetime(2025, 5, 13, 19, 0, 0, tzinfo=UTC)
T0_NS = int(T0.timestamp()) * 10**9
B400 = 400e9 / 8 * PERIOD  # bytes a 400G port moves in one 30 s interval
B200 = 200e9 / 8 * PERIOD
OLD_SUS = (1, 2, 3)
ALL_SUS = (1, 2, 3, 4)

# IB PortInfo encodings (what UFM reports as logical_state / phy_state)
DOWN, INIT, ARMED, ACTIVE = 1, 2, 3, 4
POLLING, DISABLED, LINKUP = 2, 3, 5

EFF_BER_FLOOR = 1.5e-254  # PPCNT coef 15, magnitude 255: "no error seen"

FIELDS_INT = [
    "in_octets",
    "out_octets",
    "in_pkts",
    "out_pkts",
    "symbol_errors",
    "link_error_recovery",
    "link_downed",
    "rcv_errors",
    "rcv_remote_physical_errors",
    "xmit_discards",
    "xmit_wait",
    "local_link_integrity_errors",
    "excessive_buffer_overrun_errors",
    "oper_status",
    "speed_bps",
    "logical_state",
    "phy_state",
    "Link_width_active",
    "Link_speed_active",
    "Effective_Errors",
    "Temperature",
]
FIELDS_FLT = ["Total_Raw_BER", "Effective_BER", "Symbol_BER"]
COUNTERS = [
    "in_octets",
    "out_octets",
    "in_pkts",
    "out_pkts",
    "symbol_errors",
    "link_error_recovery",
    "link_downed",
    "rcv_errors",
    "rcv_remote_physical_errors",
    "xmit_discards",
    "xmit_wait",
    "local_link_integrity_errors",
    "excessive_buffer_overrun_errors",
    "Effective_Errors",
]
ERR_GROUP = [
    "symbol_errors",
    "link_error_recovery",
    "link_downed",
    "rcv_errors",
    "rcv_remote_physical_errors",
    "xmit_discards",
    "xmit_wait",
    "local_link_integrity_errors",
    "excessive_buffer_overrun_errors",
]


def cov_of(mask: np.ndarray) -> np.ndarray:
    """Per-second boolean mask over the run -> fraction of each 30 s interval covered."""
    c = np.zeros(K)
    c[1:] = mask[:RUN_S].reshape(K - 1, PERIOD).mean(axis=1)
    return c


def smask(*wins) -> np.ndarray:
    m = np.zeros(RUN_S, dtype=bool)
    for a, b in wins:
        a, b = int(max(0, round(a))), int(min(RUN_S, round(b)))
        if b > a:
            m[a:b] = True
    return m


def ns(t: float) -> int:
    return T0_NS + round(t) * 10**9


# ----------------------------------------------------------------------------------------------
# topology
# ----------------------------------------------------------------------------------------------
class Fabric:
    def __init__(self):
        self.dname, self.dkind, self.dsu, self.dports = [], [], [], []
        self.pdev, self.pname, self.prole, self.prail, self.pspeed = [], [], [], [], []
        self.plink, self.pend = [], []
        self.la, self.lb, self.llane, self.lkind = [], [], [], []
        self.byname = {}
        self.dindex = {}

    def add_dev(self, name, kind, su):
        self.dname.append(name)
        self.dkind.append(kind)
        self.dsu.append(su)
        self.dports.append([])
        self.dindex[name] = len(self.dname) - 1
        return len(self.dname) - 1

    def add_port(self, d, name, role, rail, speed):
        i = len(self.pdev)
        self.pdev.append(d)
        self.pname.append(name)
        self.prole.append(role)
        self.prail.append(rail)
        self.pspeed.append(speed)
        self.plink.append(-1)
        self.pend.append(-1)
        self.dports[d].append(i)
        self.byname[(self.dname[d], name)] = i
        return i

    def connect(self, pa, pb, lane, kind):
        li = len(self.la)
        self.la.append(pa)
        self.lb.append(pb)
        self.llane.append(lane)
        self.lkind.append(kind)
        self.plink[pa], self.pend[pa] = li, 0
        self.plink[pb], self.pend[pb] = li, 1
        return li

    def peer(self, p):
        li = self.plink[p]
        return self.lb[li] if self.pend[p] == 0 else self.la[li]

    def dp(self, p):
        return self.dname[self.pdev[p]]


def build_fabric():
    f = Fabric()
    dport = {}
    dirs = [f.add_dev(f"dir-{d + 1}", "director", None) for d in range(2)]
    for di, d in enumerate(dirs):
        for lc in range(1, 9):
            for p in range(1, 17):
                dport[(di, lc, p)] = f.add_port(d, f"L{lc:02d}/P{p:02d}", "core", None, "400G")
        for c in range(1, 5):
            for x in (1, 2):
                dport[(di, 9, c, x)] = f.add_port(d, f"L09/P{c:02d}/{x}", "core", None, "200G")
    HL, LL, SL = {}, {}, {}
    spines, leaves, hosts = {}, {}, {}
    for a in ALL_SUS:
        for j in range(4):
            s = f.add_dev(f"spine-su{a}-{j + 1}", "spine", a)
            down = [[f.add_port(s, f"IB1/{r + 1}/{m + 1}", "spine", r, "400G") for m in range(2)] for r in range(8)]
            up = [f.add_port(s, f"IB1/{17 + u // 2}/{u % 2 + 1}", "spine_up", None, "400G") for u in range(16)]
            spines[a, j] = (s, down, up)
        for r in range(8):
            lf = f.add_dev(f"leaf-su{a}-r{r}", "leaf", a)
            down = [f.add_port(lf, f"IB1/{h // 2 + 1}/{h % 2 + 1}", "leaf_down", r, "400G") for h in range(8)]
            up = [f.add_port(lf, f"IB1/{17 + lk // 2}/{lk % 2 + 1}", "leaf_up", r, "400G") for lk in range(8)]
            leaves[a, r] = (lf, down, up)
        for h in range(8):
            hd = f.add_dev(f"dgx{a}{h + 1:02d}", "dgx", a)
            hosts[a, h] = (hd, [f.add_port(hd, f"mlx5_{r}", "host", r, "400G") for r in range(8)])
    hdr = {}
    for x in (1, 2):
        hdev = f.add_dev(f"hdr-leaf-{x}", "hdr_leaf", None)
        up = {}
        for di in range(2):
            for c in range(1, 5):
                up[di, c] = f.add_port(hdev, f"IB1/{32 + di * 4 + c}", "leaf_up", None, "200G")
        down = [f.add_port(hdev, f"IB1/{n}", "leaf_down", None, "200G") for n in range(1, 9)]
        hdr[x] = (hdev, up, down)
    stor = {}
    for n in range(1, 9):
        sd = f.add_dev(f"stor{n:02d}", "storage", None)
        stor[n] = (sd, [f.add_port(sd, f"mlx5_{x - 1}", "host", None, "200G") for x in (1, 2)])
    # cabling
    for a in ALL_SUS:
        for h in range(8):
            for r in range(8):
                HL[a, h, r] = f.connect(hosts[a, h][1][r], leaves[a, r][1][h], 100, "host")
        for r in range(8):
            for lk in range(8):
                LL[a, r, lk] = f.connect(leaves[a, r][2][lk], spines[a, lk // 2][1][r][lk % 2], 100, "leaf_spine")
        for j in range(4):
            for u in range(16):
                di, q = u // 8, u % 8
                lc = 2 * (a - 1) + 1 + q // 4
                p = 4 * (q % 4) + j + 1
                SL[a, j, u] = f.connect(spines[a, j][2][u], dport[(di, lc, p)], 100, "spine_core")
    LEG, STL = {}, {}
    for x in (1, 2):
        for di in range(2):
            for c in range(1, 5):
                LEG[di, c, x] = f.connect(hdr[x][1][di, c], dport[(di, 9, c, x)], 50, "hdr_up")
        for n in range(1, 9):
            STL[x, n] = f.connect(stor[n][1][x - 1], hdr[x][2][n - 1], 50, "stor")
    f.HL, f.LL, f.SL, f.LEG, f.STL = HL, LL, SL, LEG, STL
    f.spines, f.leaves, f.hosts, f.hdr, f.stor, f.dport = spines, leaves, hosts, hdr, stor, dport
    return f


# ----------------------------------------------------------------------------------------------
# generator
# ----------------------------------------------------------------------------------------------
class Gen:
    def __init__(self, seed: int):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.f = build_fabric()
        f = self.f
        self.P, self.L, self.D = len(f.pdev), len(f.la), len(f.dname)
        self.pdev = np.array(f.pdev)
        self.segs = [[] for _ in range(self.L)]
        self.wchg = [[] for _ in range(self.L)]
        self.faults, self.healthy = [], []
        self.busy_dev = set()
        self.busy_link = set()
        self.busy_lc = set()
        self.resets = []  # (port, k, group)
        self.dev_appear = np.zeros(self.D)
        self.dev_gone = [[] for _ in range(self.D)]
        self.period = np.array([HOST_PERIOD if k in ("dgx", "storage") else PERIOD for k in f.dkind])

    # ---------------------------------------------------------------- helpers
    def pick(self, cands, tag, ok=lambda c: True):
        """Seed-rotated choice among the eligible candidates, in a fixed (tag-seeded) order:
        consecutive seeds land `step` positions apart, so they never pick the same element of
        the same eligible list."""
        perm = np.random.default_rng(zlib.crc32(tag.encode())).permutation(len(cands))
        elig = [cands[i] for i in perm if ok(cands[i])]
        n = len(elig)
        if n == 0:
            raise RuntimeError("no eligible candidate for " + tag)
        step = next((s for s in (7, 11, 13, 17, 19, 23, 29, 31) if s % n), 1) if n > 1 else 0
        return elig[(self.seed * step) % n]

    def ln(self, sigma, size=None):
        return np.exp(self.rng.normal(0.0, sigma, size))

    def seg(self, lk, ts, te, sa, sb, lda=0, ldb=0, up=False):
        self.segs[lk].append((float(ts), float(te), sa[0], sa[1], sb[0], sb[1], lda, ldb, up))

    def bring_up(self, lk, t, init=None, armed=None):
        r = self.rng
        ti = r.uniform(3, 15) if init is None else init
        ta = r.uniform(1, 5) if armed is None else armed
        self.seg(lk, t, t + ti, (INIT, LINKUP), (INIT, LINKUP), up=True)
        self.seg(lk, t + ti, t + ti + ta, (ARMED, LINKUP), (ARMED, LINKUP))
        return t + ti + ta

    def bounce(self, lk, t, down, lda=1, ldb=1, init=None, armed=None):
        self.seg(lk, t, t + down, (DOWN, POLLING), (DOWN, POLLING), lda, ldb)
        return self.bring_up(lk, t + down, init, armed)

    def disable(self, lk, t, t_end, end, reenable=True):
        sa = (DOWN, DISABLED) if end == 0 else (DOWN, POLLING)
        sb = (DOWN, POLLING) if end == 0 else (DOWN, DISABLED)
        self.seg(lk, t, t_end, sa, sb, lda=0 if end == 0 else 1, ldb=1 if end == 0 else 0)
        if reenable:
            tr = self.rng.uniform(3, 9)
            self.seg(lk, t_end, t_end + tr, (DOWN, POLLING), (DOWN, POLLING))
            return self.bring_up(lk, t_end + tr, init=self.rng.uniform(8, 25), armed=self.rng.uniform(2, 8))
        return t_end

    def lname(self, lk):
        f = self.f
        return (f.dp(f.la[lk]), f.pname[f.la[lk]], f.dp(f.lb[lk]), f.pname[f.lb[lk]])

    def link_devs(self, lk):
        f = self.f
        return {f.dp(f.la[lk]), f.dp(f.lb[lk])}

    def link_ok(self, lk):
        f = self.f
        if lk in self.busy_link:
            return False
        for p in (f.la[lk], f.lb[lk]):
            d = f.dp(p)
            if f.dkind[f.pdev[p]] != "director" and d in self.busy_dev:
                return False
            if f.dkind[f.pdev[p]] == "director" and self.lc_of(p) in self.busy_lc:
                return False
        return True

    def lc_of(self, p):
        f = self.f
        return (f.dp(p), f.pname[p].split("/")[0])

    def mark_link(self, lk):
        f = self.f
        self.busy_link.add(lk)
        for p in (f.la[lk], f.lb[lk]):
            if f.dkind[f.pdev[p]] == "director":
                self.busy_lc.add(self.lc_of(p))
            else:
                self.busy_dev.add(f.dp(p))

    def pe(self, p):
        f = self.f
        return {"device": f.dp(p), "port": f.pname[p]}

    def related(self, ports):
        f = self.f
        out = {}
        for p in ports:
            out.setdefault(f.dp(p), []).append(f.pname[p])
        return [{"device": d, "ports": ps} for d, ps in out.items()]

    def where(self, ports=(), devs=()):
        f = self.f
        w = [f"{d}:*" for d in devs]
        w += [f"{f.dp(p)}:{f.pname[p]}" for p in ports]
        return w

    # ---------------------------------------------------------------- timeline & placement
    def plan(self):
        f, r = self.f, self.rng
        # sweep slots of the collector: directors first, then the edge switches, hosts on their own
        self.off = np.zeros(self.D)
        for d in range(self.D):
            k = f.dkind[d]
            if k == "director":
                self.off[d] = r.uniform(0.4, 2.5)
            elif k in ("dgx", "storage"):
                self.off[d] = r.uniform(0.5, 58.5)
            else:
                self.off[d] = r.uniform(2.5, 24.0)
        jit = np.clip(r.normal(0, 0.12, (self.D, K)), -0.45, 0.45)
        self.st = TK[None, :] + self.off[:, None] + jit  # true sample times (s from t0)

        def m(base, j=4):
            return float((base + int(r.integers(-j, j + 1))) * 60 + int(r.integers(0, 60)))

        def fm(base, j=4):
            t = (base + int(r.integers(-j, j + 1))) * 60 + 30 * int(r.integers(0, 2))
            return float(max(t, FIT_S + 120))

        ev = {}
        ev["A_crash"] = m(38, 3)
        ev["pre0"] = ev["A_crash"] + r.uniform(100, 140)
        ev["pre1"] = ev["pre0"] + r.uniform(150, 200)
        ev["A_restart"] = ev["pre1"] + r.uniform(60, 120)
        ev["evals"] = []
        for b in (24, 67, 100, 141):
            s = m(b, 3)
            ev["evals"].append((s, s + r.uniform(210, 300)))
        ev["ckA"] = []
        for b in (54, 115, 161):
            s = m(b, 3)
            ev["ckA"].append((s, s + r.uniform(170, 230)))
        ev["A_end"] = ev["ckA"][-1][1] + r.uniform(240, 480)
        ev["B_start"] = ev["A_end"] + r.uniform(180, 330)
        s = m(222, 3)
        ev["ckB"] = (s, s + r.uniform(180, 240))
        ev["B_end"] = m(249, 3)
        ev["C_start"] = ev["B_end"] + r.uniform(19 * 60, 24 * 60)
        ev["su4_power"] = m(124, 4)
        ev["su4_hosts"] = ev["su4_power"] + r.uniform(13 * 60, 17 * 60)
        ev["burn0"] = ev["su4_hosts"] + r.uniform(11 * 60, 14 * 60)
        ev["burn1"] = ev["burn0"] + r.uniform(9 * 60, 12 * 60)
        ev["stortest"] = (ev["burn1"] + r.uniform(60, 120), 0.0)
        ev["stortest"] = (ev["stortest"][0], ev["stortest"][0] + r.uniform(200, 280))
        ev["a2atest"] = (ev["stortest"][1] + r.uniform(30, 90), 0.0)
        ev["a2atest"] = (ev["a2atest"][0], ev["a2atest"][0] + r.uniform(150, 210))
        ev["drain"] = m(196, 4)
        ev["maint"] = fm(138, 3)
        ev["dup"] = m(153, 4)
        ev["clock"] = m(207, 4)
        ev["freeze"] = m(232, 4)
        ev["freeze_end"] = ev["freeze"] + r.uniform(18 * 60, 22 * 60)
        ev["clear1"] = m(31, 3)
        ev["clear2"] = m(186, 4)
        ev["reboot"] = ev["B_end"] + r.uniform(4 * 60, 8 * 60)
        # faults
        ev["F1"] = fm(101)
        ev["F1_end"] = ev["F1"] + r.uniform(58, 63) * 60
        ev["F2"] = fm(131)
        ev["F3"] = fm(96)
        ev["F4"] = fm(183)
        ev["F5"] = fm(152)
        ev["F6"] = fm(113)
        ev["F7"] = fm(119)
        ev["F7_end"] = ev["F7"] + 60 * int(r.integers(30, 36))
        ev["F8"] = fm(228)
        ev["F10"] = fm(158)
        self.ev = ev

        # ---------------- fault placement
        LL, SL, HL = f.LL, f.SL, f.HL
        leaf_links = [LL[a, rr, lk] for a in OLD_SUS for rr in range(8) for lk in range(8)]
        core_links = [SL[a, j, u] for a in OLD_SUS for j in range(4) for u in range(16)]
        host_links = [HL[a, h, rr] for a in OLD_SUS for h in range(8) for rr in range(8)]
        P = {}

        # F4 first (a whole line card slice)
        lcs = [(di, lc) for di in range(2) for lc in range(1, 7)]
        di, lc = self.pick(lcs, "F4-lc")
        p0 = int(r.integers(1, 12))
        f4_ports = [f.dport[(di, lc, p)] for p in range(p0, p0 + 6)]
        for p in f4_ports:
            self.mark_link(f.plink[p])
        P["F4"] = f4_ports
        # F9 maintenance on a spine's uplinks to one director (LC must be free)
        cands = [(a, j, d9, half) for a in OLD_SUS for j in range(4) for d9 in range(2) for half in range(2)]

        def f9ok(c):
            a, j, d9, half = c
            lcx = (f"dir-{d9 + 1}", f"L{2 * (a - 1) + 1 + half:02d}")
            return lcx not in self.busy_lc and f"spine-su{a}-{j + 1}" not in self.busy_dev

        a9, j9, d9, half9 = self.pick(cands, "F9-spine", f9ok)
        f9_links = [SL[a9, j9, d9 * 8 + half9 * 4 + q] for q in range(4)]
        left = f9_links[int(r.integers(0, 4))]
        for lk in f9_links:
            self.mark_link(lk)
        P["F9"] = (f9_links, left)
        P["F2"] = self.pick(core_links, "F2", self.link_ok)
        self.mark_link(P["F2"])
        P["F6"] = self.pick(core_links, "F6", self.link_ok)
        self.mark_link(P["F6"])
        P["F1"] = self.pick(leaf_links, "F1", self.link_ok)
        self.mark_link(P["F1"])
        P["F5"] = self.pick(leaf_links, "F5", self.link_ok)
        self.mark_link(P["F5"])
        P["F8"] = self.pick(leaf_links + core_links, "F8", self.link_ok)
        self.mark_link(P["F8"])

        def host_ok(lk):
            # host link faults: host and its leaf both free
            return self.link_ok(lk)

        P["F3"] = self.pick(host_links, "F3", host_ok)
        self.mark_link(P["F3"])
        P["F7"] = self.pick(host_links, "F7", host_ok)
        self.mark_link(P["F7"])
        P["F10"] = self.pick(host_links, "F10", host_ok)
        self.mark_link(P["F10"])
        # the F7 congestion tree occupies the leaf's spines too: keep healthy device events off them
        self.place = P

        # ---------------- healthy placement
        H = {}
        free_lcs = [
            (di, lc) for di in range(2) for lc in range(1, 7) if (f"dir-{di + 1}", f"L{lc:02d}") not in self.busy_lc
        ]
        H["drain"] = self.pick(free_lcs, "drain-lc")
        self.busy_lc.add((f"dir-{H['drain'][0] + 1}", f"L{H['drain'][1]:02d}"))
        old_leaves = [f"leaf-su{a}-r{rr}" for a in OLD_SUS for rr in range(8)]
        old_spines = [f"spine-su{a}-{j + 1}" for a in OLD_SUS for j in range(4)]
        H["reboot"] = self.pick(old_leaves, "reboot-leaf", lambda d: d not in self.busy_dev)
        self.busy_dev.add(H["reboot"])
        H["freeze"] = self.pick(old_leaves, "freeze-leaf", lambda d: d not in self.busy_dev)
        self.busy_dev.add(H["freeze"])
        H["clear1"] = self.pick(old_leaves, "clear1-leaf", lambda d: d not in self.busy_dev)
        self.busy_dev.add(H["clear1"])
        H["clock"] = self.pick(old_spines, "clock-spine", lambda d: d not in self.busy_dev)
        # routing imbalance: two leaf uplinks and one spine uplink, since the start
        imb = []
        for i in range(2):
            lk = self.pick(
                leaf_links,
                f"imb-leaf-{i}",
                lambda lk: self.link_ok(lk) and not (self.link_devs(lk) & {f.dp(f.la[x]) for x in imb}),
            )
            imb.append(lk)
            self.busy_link.add(lk)
        lk = self.pick(core_links, "imb-core", self.link_ok)
        imb.append(lk)
        self.busy_link.add(lk)
        H["imb"] = imb
        # long AOC links with a background of symbol errors (~3 % of switch-switch links)
        sw_links = leaf_links + core_links + [f.LEG[k] for k in sorted(f.LEG)]
        elig = [lk for lk in sw_links if self.link_ok(lk)]
        n_aoc = round(0.03 * len(sw_links))
        idx = r.choice(len(elig), n_aoc, replace=False)
        H["aoc"] = [elig[i] for i in sorted(idx)]
        for lk in H["aoc"]:
            self.busy_link.add(lk)
        # clear 2: both ends of two AOC links and four spine ports not involved in anything
        spine_ports = [
            p
            for p in range(self.P)
            if f.prole[p] in ("spine", "spine_up")
            and f.dsu[f.pdev[p]] in OLD_SUS
            and f.plink[p] not in self.busy_link
            and f.dp(p) not in self.busy_dev
            and f.dp(p) != H["clock"]
        ]
        c2 = []
        for i in sorted(r.choice(len(H["aoc"]), 2, replace=False)):
            c2 += [f.la[H["aoc"][i]], f.lb[H["aoc"][i]]]
        c2 += [spine_ports[i] for i in sorted(r.choice(len(spine_ports), 4, replace=False))]
        H["clear2"] = c2
        self.hplace = H

    # ---------------------------------------------------------------- link state timelines
    def build_states(self):
        f, r, ev, P, H = self.f, self.rng, self.ev, self.place, self.hplace
        # SU4: director ends cabled in advance (optics in, Polling); the SU is powered, cabled and
        # swept in mid-run, its hosts later
        t_pw = ev["su4_power"]
        for a in (4,):
            for j in range(4):
                d = f.dindex[f"spine-su{a}-{j + 1}"]
                self.dev_appear[d] = t_pw + r.uniform(70, 200)
            for rr in range(8):
                d = f.dindex[f"leaf-su{a}-r{rr}"]
                self.dev_appear[d] = t_pw + r.uniform(70, 200)
            for j in range(4):
                for u in range(16):
                    lk = f.SL[a, j, u]
                    dj = f.dindex[f"spine-su{a}-{j + 1}"]
                    t_up = self.dev_appear[dj] + r.uniform(40, 420)
                    self.seg(lk, 0, t_up, (DOWN, POLLING), (DOWN, POLLING))
                    self.bring_up(lk, t_up, init=r.uniform(20, 90), armed=r.uniform(5, 20))
            for rr in range(8):
                for li in range(8):
                    lk = f.LL[a, rr, li]
                    t_up = max(self.dev_appear[f.pdev[f.la[lk]]], self.dev_appear[f.pdev[f.lb[lk]]]) + r.uniform(
                        20, 300
                    )
                    self.seg(lk, 0, t_up, (DOWN, POLLING), (DOWN, POLLING))
                    self.bring_up(lk, t_up, init=r.uniform(20, 90), armed=r.uniform(5, 20))
            for h in range(8):
                d = f.dindex[f"dgx{a}{h + 1:02d}"]
                boot = ev["su4_hosts"] + r.uniform(0, 300)
                self.dev_appear[d] = boot + r.uniform(90, 150)
                for rr in range(8):
                    lk = f.HL[a, h, rr]
                    t_up = boot + r.uniform(40, 90)
                    self.seg(lk, 0, t_up, (DOWN, POLLING), (DOWN, POLLING))
                    self.bring_up(lk, t_up, init=r.uniform(10, 40), armed=r.uniform(2, 10))
        # planned drain of a director line card (admin Disabled 30 min, then back)
        di, lc = H["drain"]
        t = ev["drain"]
        self.drain_ports = [f.dport[(di, lc, p)] for p in range(1, 17)]
        self.drain_end = t + 30 * 60 + 60
        for i, p in enumerate(self.drain_ports):
            lk = f.plink[p]
            ts = t + i * r.uniform(0.5, 2.0)
            self.disable(lk, ts, t + 30 * 60 + r.uniform(0, 40), end=1)
        # leaf reboot inside the idle stretch -> SM re-sweep
        d = f.dindex[H["reboot"]]
        tb = ev["reboot"]
        dur = r.uniform(150, 230)
        self.dev_gone[d].append((tb, tb + dur))
        self.reboot_win = (tb, tb + dur)
        k_back = int(np.searchsorted(self.st[d], tb + dur))
        for p in f.dports[d]:
            self.resets.append((p, k_back, "all"))
        last = 0.0
        for p in f.dports[d]:
            lk = f.plink[p]
            end = f.pend[p]
            t_up = tb + dur + r.uniform(5, 55)
            self.seg(lk, tb, t_up, (DOWN, POLLING), (DOWN, POLLING), lda=1 if end == 1 else 0, ldb=1 if end == 0 else 0)
            last = max(last, self.bring_up(lk, t_up, init=r.uniform(20, 60), armed=r.uniform(5, 25)))
        self.reboot_end = last
        # F9: maintenance on a spine: four uplinks to one director disabled, three re-enabled
        f9_links, left = P["F9"]
        tm = ev["maint"]
        self.maint_end = tm
        for i, lk in enumerate(f9_links):
            ts = tm + i * r.uniform(2, 8)
            if lk == left:
                self.disable(lk, ts, RUN_S + 1, end=0, reenable=False)
            else:
                te = tm + r.uniform(10, 13) * 60 + i * r.uniform(5, 20)
                self.maint_end = max(self.maint_end, self.disable(lk, ts, te, end=0))
        # F1: cable re-seated, link trains, SM never activates it for an hour
        lk = P["F1"]
        self.bounce(lk, ev["F1"], r.uniform(60, 110), init=ev["F1_end"] - ev["F1"] - 90, armed=r.uniform(8, 20))
        # F3: host cable nudged during the SU4 cabling, comes back marginal
        self.bounce(P["F3"], ev["F3"], r.uniform(8, 20))
        # F5: link_downed, retrain at reduced width
        lk = P["F5"]
        self.f5_width = 2 if r.random() < 0.7 else 1
        t_up = self.bounce(lk, ev["F5"], r.uniform(10, 30))
        self.wchg[lk].append((ev["F5"] + 1.0, self.f5_width))
        # F8: slow flapping, once every 8-15 min for an hour
        lk = P["F8"]
        t = ev["F8"]
        flaps = []
        while t < ev["F8"] + 60 * 60 - 60:
            flaps.append(t)
            self.bounce(lk, t, r.uniform(6, 40), init=r.uniform(3, 12), armed=r.uniform(1, 4))
            t += r.uniform(8, 15) * 60
        self.f8_flaps = flaps
        ev["F8_end"] = flaps[-1] + 60
        # F7 remediation: the host is drained after the fault (job restarted without it)

    def compile_links(self):
        f = self.f
        P, L = self.P, self.L
        self.lst = np.full((P, K), ACTIVE, np.int8)
        self.phy = np.full((P, K), LINKUP, np.int8)
        self.width = np.full((P, K), 4, np.int8)
        self.avail = np.ones((L, K))
        self.avail[:, 0] = 0.0
        self.ld_inc = np.zeros((P, K))
        self.down_ev = []  # (port, k)
        self.up_ev = []  # (port, k)
        lo = TK - PERIOD
        for lk in range(L):
            if not self.segs[lk] and not self.wchg[lk]:
                continue
            pa, pb = f.la[lk], f.lb[lk]
            ta, tb = self.st[f.pdev[pa]], self.st[f.pdev[pb]]
            dt = np.zeros(K)
            for ts, te, sla, spa, slb, spb, lda, ldb, up in sorted(self.segs[lk]):
                ma = (ta >= ts) & (ta < te)
                mb = (tb >= ts) & (tb < te)
                self.lst[pa, ma] = sla
                self.phy[pa, ma] = spa
                self.lst[pb, mb] = slb
                self.phy[pb, mb] = spb
                dt += np.clip(np.minimum(TK, te) - np.maximum(lo, ts), 0, None)
                ka, kb = int(np.searchsorted(ta, ts)), int(np.searchsorted(tb, ts))
                if lda and ka < K:
                    self.ld_inc[pa, ka] += lda
                if ldb and kb < K:
                    self.ld_inc[pb, kb] += ldb
                for flag, pp, kx in ((lda or ldb) and ts > 0, pa, ka), ((lda or ldb) and ts > 0, pb, kb):
                    if flag and kx < K:
                        self.down_ev.append((pp, kx))
                for pp, kx in ((pa, ka), (pb, kb)):
                    if up and kx < K:
                        self.up_ev.append((pp, kx))
            self.avail[lk] = np.clip(1.0 - dt / PERIOD, 0.0, 1.0)
            self.avail[lk, 0] = 0.0
            for t, w in self.wchg[lk]:
                self.width[pa, ta >= t] = w
                self.width[pb, tb >= t] = w
        self.width[self.phy != LINKUP] = 0
        for p, k in self.up_ev:
            self.resets.append((p, k, "phy"))
        # per-link capacity of each interval (bytes), from the width at the interval's end
        lane = np.array(f.llane, dtype=np.float64)
        wa = self.width[np.array(f.la)].astype(np.float64)
        wa[wa == 0] = 4.0
        self.capl = lane[:, None] * 1e9 / 8 * PERIOD * wa

    # ---------------------------------------------------------------- workload
    def workload(self):
        r, ev = self.rng, self.ev
        NH = 32
        self.locu = np.zeros((NH, K))
        self.xu = np.zeros((NH, K))
        self.wr = np.zeros((NH, K))
        self.rd = np.zeros((NH, K))
        a2a_bytes = np.zeros(K)
        all_bytes = np.zeros(K)

        def hid(a, h):
            return (a - 1) * 8 + h

        a7, h7, _r7 = self.hostlink_idx(self.place["F7"])
        self.h7 = hid(a7, h7)
        old = [hid(a, h) for a in OLD_SUS for h in range(8)]
        su4 = [hid(4, h) for h in range(8)]
        f7w = (ev["F7"], ev["F7_end"])
        gap7 = (ev["F7_end"], ev["F7_end"] + r.uniform(150, 240))
        ev["A_restart2"] = gap7[1]
        # job A (dense pre-training, SU1-3): 1 run, 2 eval, 3 checkpoint, 4 stopped/restarting
        A = np.zeros(RUN_S, np.int8)
        A[: int(ev["A_end"])] = 1
        A[int(ev["A_crash"]) : int(ev["A_restart"])] = 4
        for s, e in ev["evals"]:
            A[int(s) : int(e)] = 2
        for s, e in ev["ckA"]:
            A[int(s) : int(e)] = 3
        A[int(gap7[0]) : int(gap7[1])] = 4
        A[int(ev["A_end"]) :] = 0
        slow = 1.0 - 0.45 * cov_of(smask(f7w))
        self.ck_mask = smask(*ev["ckA"], ev["ckB"])
        drained = cov_of(smask((ev["F7_end"], RUN_S)))  # host h7 after remediation

        def dense(hosts, covrun, u0, cf, extra=1.0, sj=0.05, sh=0.04):
            common = u0 * self.ln(sj, K) * extra
            for h in hosts:
                u = covrun * common * self.ln(sh, K)
                if h == self.h7:
                    u = u * (1.0 - drained)
                self.locu[h] += u * (1 - cf)
                self.xu[h] += u * cf
                all_bytes[:] += u

        covA = cov_of(A == 1)
        dense(old, covA, 0.62, 0.45, extra=slow)
        cev = cov_of(A == 2)
        for h in old:
            self.locu[h] += cev * 0.03 * (1 - (drained if h == self.h7 else 0))
        # preflight all-to-all (nccl-tests) after the crash
        cpre = cov_of(smask((ev["pre0"], ev["pre1"])))
        for h in old:
            u = cpre * 0.85 * self.ln(0.05, K)
            self.locu[h] += u * 0.32
            self.xu[h] += u * 0.68
            a2a_bytes[:] += u
            all_bytes[:] += u
        # job B: MoE training (expert-parallel all-to-all) on SU1-3 minus the drained host
        B = np.zeros(RUN_S, np.int8)
        B[int(ev["B_start"]) : int(ev["B_end"])] = 1
        B[int(ev["ckB"][0]) : int(ev["ckB"][1])] = 3
        covB = cov_of(B == 1)
        commonB = 0.58 * self.ln(0.15, K)
        for h in old:
            if h == self.h7:
                continue
            u = covB * commonB * self.ln(0.10, K)
            self.locu[h] += u * 0.38
            self.xu[h] += u * 0.62
            a2a_bytes[:] += u
            all_bytes[:] += u
        self.moe_cov = covB
        self.pre_cov = cpre
        # job C: dense job across SU1-4
        covC = cov_of(smask((ev["C_start"] + r.uniform(30, 90), RUN_S)))
        dense([h for h in old + su4 if h != self.h7], covC, 0.60, 0.5)
        # checkpoints: storage-bound writes from every job host
        sto_cap = 16 * B200 * 0.95
        for (s, e), hosts in [(w, old) for w in ev["ckA"]] + [(ev["ckB"], old)]:
            c = cov_of(smask((s, e)))
            ws = [h for h in hosts if not (h == self.h7 and s >= ev["F7_end"])]
            tot = c * sto_cap * self.ln(0.02, K)
            for h in ws:
                self.wr[h] += tot / len(ws) * self.ln(0.05, K)
        # training data reads
        for h in old + su4:
            run = covA * (1 if h in old else 0) + covB * (1 if h in old else 0) + covC
            if h == self.h7:
                run = run * (1 - drained)
            self.rd[h] += run * 0.25e9 * PERIOD * self.ln(0.2, K)
        # SU4 acceptance: all_reduce burn-in (leaf local), storage read test, all_to_all test
        cb = cov_of(smask((ev["burn0"], ev["burn1"])))
        cst = cov_of(smask(ev["stortest"]))
        cat = cov_of(smask(ev["a2atest"]))
        for h in su4:
            self.locu[h] += cb * 0.92 * self.ln(0.02, K) + cat * 0.85 * self.ln(0.04, K)
            self.rd[h] += cst * 16 * B200 * 0.9 / 8 * self.ln(0.02, K)
        tot = self.locu + self.xu
        scale = np.where(tot > 0.96, 0.96 / np.maximum(tot, 1e-12), 1.0)
        self.locu *= scale
        self.xu *= scale
        share = np.where(all_bytes > 0, a2a_bytes / np.maximum(all_bytes, 1e-12), 0.0)
        self.pkt_size = (4060.0 - 1100.0 * share) * self.ln(0.01, K)
        self.railn = r.uniform(0.97, 1.03, (NH, 8))

    def hostlink_idx(self, lk):
        f = self.f
        for (a, h, rr), li in f.HL.items():
            if li == lk:
                return a, h, rr
        raise KeyError(lk)

    # ---------------------------------------------------------------- traffic
    def traffic(self):
        f, r, ev, P = self.f, self.rng, self.ev, self.place
        L = self.L
        up = np.zeros((L, K))
        dn = np.zeros((L, K))
        av = self.avail
        Tl, Tx, Wr, Rd = {}, {}, {}, {}
        co = np.zeros((5, 8, K))
        for a in ALL_SUS:
            hids = [(a - 1) * 8 + h for h in range(8)]
            for rr in range(8):
                hl = [f.HL[a, h, rr] for h in range(8)]
                avh = av[hl]
                n = self.railn[hids, rr][:, None] * self.ln(0.03, (8, K))
                Tl[a, rr] = self.locu[hids] * B400 * n * avh
                Tx[a, rr] = self.xu[hids] * B400 * n * avh
                Wr[a, rr] = self.wr[hids] / 8 * self.ln(0.03, (8, K)) * avh
                Rd[a, rr] = self.rd[hids] / 8 * avh
                co[a, rr] = Tx[a, rr].sum(0)
        ci = co * self.ln(0.04, co.shape)
        so, si = co.sum(0), ci.sum(0)
        ci *= np.where(si > 0, so / np.maximum(si, 1e-9), 0.0)[None]
        # host receive shares
        R = {}
        for a in ALL_SUS:
            for rr in range(8):
                w = (Tl[a, rr] + Tx[a, rr]) * self.ln(0.03, (8, K))
                ws = w.sum(0)
                hl = [f.HL[a, h, rr] for h in range(8)]
                avh = av[hl]
                even = avh / np.maximum(avh.sum(0), 1e-9)
                sh = np.where(ws > 0, w / np.maximum(ws, 1e-9), even)
                R[a, rr] = sh * (Tl[a, rr].sum(0) + ci[a, rr]) + Rd[a, rr]
        # F7: HCA not draining -> the host receives a trickle; the rest is never sent
        a7, h7, r7 = self.hostlink_idx(P["F7"])
        c7 = cov_of(smask((ev["F7"], ev["F7_end"])))
        rcap = B400 * r.uniform(0.05, 0.12, K) * c7 + R[a7, r7][h7] * (1 - c7)
        deficit = np.clip(R[a7, r7][h7] - rcap, 0, None)
        tot_in = Tl[a7, r7].sum(0) + ci[a7, r7]
        dc = np.where(tot_in > 0, deficit * ci[a7, r7] / np.maximum(tot_in, 1e-9), 0.0)
        dl = deficit - dc
        oth = [h for h in range(8) if h != h7]
        lsum = Tl[a7, r7][oth].sum(0)
        Tl[a7, r7][oth] *= np.clip(1 - dl / np.maximum(lsum, 1e-9), 0, 1)[None]
        ci[a7, r7] -= dc
        rem = [a for a in ALL_SUS if a != a7]
        rsum = sum(co[a, r7] for a in rem)
        fac = np.clip(1 - dc / np.maximum(rsum, 1e-9), 0, 1)
        for a in rem:
            Tx[a, r7] *= fac[None]
            co[a, r7] *= fac
        R[a7, r7][h7] = rcap
        self.f7_deficit = deficit
        # leaf uplinks
        self.w_up = r.uniform(0.93, 1.07, (5, 8, 8))
        self.w_dn = r.uniform(0.93, 1.07, (5, 8, 8))
        for lk in self.hplace["imb"]:
            if f.lkind[lk] == "leaf_spine":
                for (a, rr, li), x in f.LL.items():
                    if x == lk:
                        self.w_up[a, rr, li] *= 1.7
        self.ov_up = np.zeros(K)
        self.ov_dn = np.zeros(K)
        f5 = P["F5"]
        for a in ALL_SUS:
            for rr in range(8):
                ls = [f.LL[a, rr, li] for li in range(8)]
                avl = av[ls]
                wu = self.w_up[a, rr][:, None] * avl
                wd = self.w_dn[a, rr][:, None] * avl
                wu = wu / np.maximum(wu.sum(0), 1e-9)
                wd = wd / np.maximum(wd.sum(0), 1e-9)
                upt = co[a, rr] + Wr[a, rr].sum(0)
                dnt = ci[a, rr] + Rd[a, rr].sum(0)
                bu = upt[None] * wu
                bd = dnt[None] * wd
                if f5 in ls:
                    i5 = ls.index(f5)
                    capu = self.capl[f5] * r.uniform(0.91, 0.97, K) * np.maximum(av[f5], 1e-9)
                    capd = self.capl[f5] * r.uniform(0.91, 0.97, K) * np.maximum(av[f5], 1e-9)
                    ou = np.clip(bu[i5] - capu, 0, None)
                    od = np.clip(bd[i5] - capd, 0, None)
                    bu[i5] -= ou
                    bd[i5] -= od
                    self.ov_up, self.ov_dn = ou / capu, od / capd
                    # senders on this leaf are slowed by what could not pass; receivers get less
                    txs = Tx[a, rr].sum(0)
                    Tx[a, rr] *= np.clip(1 - ou / np.maximum(txs, 1e-9), 0, 1)[None]
                    rs = R[a, rr].sum(0)
                    R[a, rr] *= np.clip(1 - od / np.maximum(rs, 1e-9), 0, 1)[None]
                for i, lk in enumerate(ls):
                    up[lk] = bu[i]
                    dn[lk] = bd[i]
        for a in ALL_SUS:
            for h in range(8):
                for rr in range(8):
                    lk = f.HL[a, h, rr]
                    up[lk] = Tl[a, rr][h] + Tx[a, rr][h] + Wr[a, rr][h]
                    dn[lk] = R[a, rr][h]
        # spines
        self.w_sp = r.uniform(0.94, 1.06, (5, 4, 16))
        self.w_spd = r.uniform(0.94, 1.06, (5, 4, 16))
        for lk in self.hplace["imb"]:
            if f.lkind[lk] == "spine_core":
                for (a, j, u), x in f.SL.items():
                    if x == lk:
                        self.w_sp[a, j, u] *= 1.7
        for a in ALL_SUS:
            for j in range(4):
                s_up = sum(up[f.LL[a, rr, li]] for rr in range(8) for li in (2 * j, 2 * j + 1))
                s_dn = sum(dn[f.LL[a, rr, li]] for rr in range(8) for li in (2 * j, 2 * j + 1))
                for di in range(2):
                    ls = [f.SL[a, j, di * 8 + q] for q in range(8)]
                    avl = av[ls]
                    wu = self.w_sp[a, j, di * 8 : di * 8 + 8][:, None] * avl
                    wd = self.w_spd[a, j, di * 8 : di * 8 + 8][:, None] * avl
                    wu = wu / np.maximum(wu.sum(0), 1e-9)
                    wd = wd / np.maximum(wd.sum(0), 1e-9)
                    for i, lk in enumerate(ls):
                        up[lk] = 0.5 * s_up * wu[i]
                        dn[lk] = 0.5 * s_dn * wd[i]
        # HDR group: storage writes arrive over the split legs, reads leave over them
        Wtot = sum(Wr[k].sum(0) for k in Wr)
        Rtot = sum(Rd[k].sum(0) for k in Rd)
        for x in (1, 2):
            for di in range(2):
                w = r.uniform(0.97, 1.03, 4)
                w = w / w.sum()
                for c in range(1, 5):
                    lk = f.LEG[di, c, x]
                    dn[lk] = 0.5 * 0.5 * Wtot * w[c - 1]
                    up[lk] = 0.5 * 0.5 * Rtot * w[c - 1]
            ws = r.uniform(0.98, 1.02, 8)
            ws /= ws.sum()
            for n in range(1, 9):
                lk = f.STL[x, n]
                dn[lk] = 0.5 * Wtot * ws[n - 1]
                up[lk] = 0.5 * Rtot * ws[n - 1]
        # management/SMP traffic on every physically up link
        kinds = np.array([k in ("host", "stor") for k in f.lkind])
        lo_, hi_ = np.where(kinds, 2e4, 1.5e3), np.where(kinds, 6e4, 6e3)
        base = r.uniform(lo_, hi_)
        mgu = base[:, None] * av * self.ln(0.25, (L, K))
        mgd = base[:, None] * av * self.ln(0.25, (L, K))
        # a link in Init/Armed only carries SMPs (VL15)
        l1 = P["F1"]
        c1 = cov_of(smask((ev["F1"], ev["F1_end"])))
        mgu[l1] += 1.2e3 * c1 * self.ln(0.3, K)
        mgd[l1] += 1.2e3 * c1 * self.ln(0.3, K)
        self.mg_up, self.mg_dn = mgu, mgd
        self.up_b, self.dn_b = up, dn
        # per-port transmit/receive
        la, lb = np.array(f.la), np.array(f.lb)
        self.tx = np.zeros((self.P, K))
        self.mg = np.zeros((self.P, K))
        self.tx[la] = up + mgu
        self.tx[lb] = dn + mgd
        self.mg[la] = mgu
        self.mg[lb] = mgd
        peer = np.array([f.peer(p) for p in range(self.P)])
        self.peer_arr = peer
        self.rx = self.tx[peer]
        self.capnom = np.array([B400 if s == "400G" else B200 for s in f.pspeed])
        self.u_out = self.tx / self.capnom[:, None]
        self.u_in = self.rx / self.capnom[:, None]

    # ---------------------------------------------------------------- credit waits, discards
    def congestion(self):
        f, r, ev, P = self.f, self.rng, self.ev, self.place
        Pn = self.P
        role = np.array(f.prole)
        su = np.array([f.dsu[d] if f.dsu[d] is not None else 0 for d in f.pdev])
        base_by_role = {
            "host": 0.006,
            "leaf_down": 0.02,
            "leaf_up": 0.012,
            "spine": 0.015,
            "spine_up": 0.012,
            "core": 0.012,
        }
        base = np.array([base_by_role[x] for x in role]) * r.uniform(0.5, 1.5, Pn)
        tail = self.ln(0.9, (Pn, K)) * np.where(r.random((Pn, K)) < 0.01, r.uniform(4, 15, (Pn, K)), 1.0)
        p = base[:, None] * self.u_out**2 * tail
        hdr_leg_core = np.array([f.pname[i].startswith("L09") for i in range(Pn)])
        fabric_old = np.isin(su, OLD_SUS) | ((role == "core") & ~hdr_leg_core)
        # all-to-all: many spine/core ports wait at once (MoE job + the preflight nccl-tests)
        inten = {
            "spine": (0.05, 0.22),
            "spine_up": (0.04, 0.18),
            "core": (0.04, 0.18),
            "leaf_up": (0.02, 0.07),
            "leaf_down": (0.03, 0.09),
            "host": (0.01, 0.04),
        }
        lo = np.array([inten[x][0] for x in role])
        hi = np.array([inten[x][1] for x in role])
        inten_p = r.uniform(lo, hi) * fabric_old
        loaded = np.clip(self.u_out / 0.05, 0, 1)  # a port only waits if it has data to send
        a2a = (self.moe_cov + 0.6 * self.pre_cov)[None, :]
        p += inten_p[:, None] * a2a * self.ln(0.5, (Pn, K)) * loaded
        # checkpoint congestion tree rooted at the storage HCAs
        ck = cov_of(self.ck_mask)[None, :]
        legs_out = np.array([f.pname[i].startswith("L09") for i in range(Pn)])  # director -> HDR
        hdr_down = np.array([f.dkind[f.pdev[i]] == "hdr_leaf" and role[i] == "leaf_down" for i in range(Pn)])
        tree = (
            legs_out * r.uniform(0.35, 0.6, Pn)
            + hdr_down * r.uniform(0.03, 0.1, Pn)
            + ((role == "spine_up") & np.isin(su, OLD_SUS)) * r.uniform(0.04, 0.14, Pn)
            + ((role == "leaf_up") & np.isin(su, OLD_SUS)) * r.uniform(0.02, 0.06, Pn)
            + ((role == "host") & np.isin(su, OLD_SUS)) * r.uniform(0.05, 0.2, Pn)
        )
        p += tree[:, None] * ck * self.ln(0.2, (Pn, K)) * loaded
        # F7 congestion tree
        a7, h7, r7 = self.hostlink_idx(P["F7"])
        c7 = cov_of(smask((ev["F7"], ev["F7_end"])))[None, :]
        l7 = P["F7"]
        root = f.lb[l7]
        t7 = np.zeros(Pn)
        rel7 = []
        t7[root] = 0.0
        for li in range(8):
            ll = f.LL[a7, r7, li]
            t7[f.lb[ll]] = r.uniform(0.25, 0.45)
            rel7.append(f.lb[ll])  # spine -> leaf
            t7[f.la[ll]] = r.uniform(0.02, 0.06)
            rel7.append(f.la[ll])  # leaf uplinks
        for h in range(8):
            if h != h7:
                hp = f.la[f.HL[a7, h, r7]]
                t7[hp] = r.uniform(0.08, 0.2)
                rel7.append(hp)
        for j in range(4):
            for u in range(16):
                ll = f.SL[a7, j, u]
                t7[f.lb[ll]] = r.uniform(0.06, 0.14)
                rel7.append(f.lb[ll])  # director -> spine
        for a in OLD_SUS:
            if a == a7:
                continue
            for j in range(4):
                for u in range(16):
                    ll = f.SL[a, j, u]
                    t7[f.la[ll]] = r.uniform(0.01, 0.04)
                    rel7.append(f.la[ll])
        p += t7[:, None] * c7 * self.ln(0.3, (Pn, K)) * loaded
        rootp = np.clip(r.uniform(0.85, 0.95, K) * self.ln(0.03, K), 0, 0.97)
        p[root] = p[root] * (1 - c7[0]) + rootp * c7[0]
        self.rel7 = rel7
        # F5: narrower link -> the feeders of its queue wait
        l5 = P["F5"]
        leaf5 = f.pdev[f.la[l5]]
        spine5 = f.pdev[f.lb[l5]]
        rel5 = []
        for ll in f.HL.values():
            if f.pdev[f.lb[ll]] == leaf5:
                p[f.la[ll]] += 0.35 * self.ov_up * self.ln(0.3, K)
                rel5.append(f.la[ll])
        for q in f.dports[spine5]:
            if f.prole[q] == "spine_up":
                pp = f.peer(q)
                p[pp] += 0.15 * self.ov_dn * self.ln(0.3, K)
                rel5.append(pp)
        self.rel5 = rel5
        p = np.clip(p, 0, None)
        p = np.minimum(p, np.clip(0.985 - self.u_out, 0, None))
        tick = np.array([(400e9 if s == "400G" else 200e9) / 64 for s in f.pspeed])
        la = np.array(f.la)
        lb = np.array(f.lb)
        avp = np.zeros((Pn, K))
        avp[la] = self.avail
        avp[lb] = self.avail
        self.avp = avp
        self.xw = p * tick[:, None] * PERIOD * avp
        # discards: HoQ lifetime at the F7 root, a trickle on the checkpoint legs, and packets
        # queued for a port at the moment its link went down
        xd = np.zeros((Pn, K))
        xd[root] += r.poisson(c7[0] * r.uniform(400, 1500, K) * PERIOD)
        for ll in [f.LL[a7, r7, li] for li in range(8)]:
            xd[f.lb[ll]] += r.poisson(c7[0] * 4 * PERIOD)
        xd += r.poisson(legs_out[:, None] * ck * 2.0)
        for pp, k in self.down_ev:
            u = max(self.u_out[pp, max(k - 1, 0)], self.u_out[pp, k])
            if u > 0.01:
                xd[pp, k] += r.poisson(20 + 600 * u)
        self.xd = xd

    # ---------------------------------------------------------------- errors, BER, temperature
    def errors(self):
        f, r, ev, P, H = self.f, self.rng, self.ev, self.place, self.hplace
        Pn = self.P
        sym, rcv, ler, rrpe, llie, ebo, eff = (np.zeros((Pn, K)) for _ in range(7))
        lane = np.array([100 if s == "400G" else 50 for s in f.pspeed])
        # background pre-FEC BER per receiver
        b0 = np.where(lane == 100, 10 ** r.uniform(-9, -6, Pn), 10 ** r.uniform(-11, -8, Pn))
        # DAC to the storage nodes: no FEC margin problem, no module temperature
        dac = np.array([f.lkind[f.plink[i]] == "stor" for i in range(Pn)])
        ber_mult = np.ones((Pn, K))
        ber_add = np.zeros((Pn, K))
        tm_k = TK
        # long AOC links: a few symbol errors per hour at one receiver
        self.aoc_rx = []
        for lk in H["aoc"]:
            pr = f.la[lk] if r.random() < 0.5 else f.lb[lk]
            self.aoc_rx.append(pr)
            lam = r.uniform(1, 6) / 120.0
            s = r.poisson(lam * self.avp[pr])
            sym[pr] += s
            rcv[pr] += r.binomial(s.astype(np.int64), np.clip(0.15 + self.u_in[pr], 0, 0.9))
            eff[pr] += r.poisson(s * 1.5)
            b0[pr] = max(b0[pr], 10 ** r.uniform(-6.6, -6.0))
        # link training at every link-up
        for pp, k in self.up_ev:
            sym[pp, k] += r.poisson(1.2)
        for pp, k in self.down_ev:
            ler[pp, k] += r.poisson(0.5)

        def xfrac(t0, t1):
            return np.clip((tm_k - t0) / max(t1 - t0, 1.0), 0, 1) * (tm_k >= t0)

        self.rrpe_related = {}

        def remote_phys(src, tag, frac=0.05):
            # packets corrupted at src are cut-through forwarded EBP-marked: the next hops'
            # receivers count rcv_remote_physical_errors
            d = f.pdev[src]
            cands = [q for q in f.dports[d] if q != src and f.dsu[f.pdev[f.peer(q)]] != 4]
            outs = [cands[i] for i in sorted(r.choice(len(cands), min(6, len(cands)), replace=False))]
            rel = []
            for q in outs:
                pq = f.peer(q)
                rrpe[pq] += r.binomial(rcv[src].astype(np.int64), frac)
                rel.append(pq)
            self.rrpe_related[tag] = rel

        # F2: laser degrading at one end -> errors only at the far end's receiver
        l2 = P["F2"]
        near = f.la[l2] if r.random() < 0.5 else f.lb[l2]
        far = f.peer(near)
        self.f2_near, self.f2_far = near, far
        x = xfrac(ev["F2"], RUN_S)
        on = tm_k > ev["F2"]
        rate = 10 ** (-2.0 + 2.2 * x) * self.ln(0.35, K) * on
        s = r.poisson(rate * PERIOD * self.avp[far])
        sym[far] += s
        rcv[far] += r.binomial(s.astype(np.int64), np.clip(0.1 + 1.5 * self.u_in[far], 0, 0.9))
        eff[far] += r.poisson(s * 2.0)
        ler[far] += r.poisson(rate * PERIOD * 0.002)
        ber_add[far] += on * 10 ** (-6.4 + 2.4 * x)
        remote_phys(far, "F2")
        # F3: marginal cable: errors in proportion to the traffic crossing it
        l3 = P["F3"]
        hp, lp = f.la[l3], f.lb[l3]
        on3 = tm_k > ev["F3"] + 30
        for pr, kap in ((lp, 0.018), (hp, 0.009)):
            gb = self.rx[pr] / 1e9
            s = r.poisson(kap * gb * on3 * self.ln(0.2, K))
            sym[pr] += s
            rcv[pr] += r.binomial(s.astype(np.int64), 0.85)
            eff[pr] += r.poisson(s * 1.5)
            ber_add[pr] += on3 * 4e-6 * np.clip(self.u_in[pr], 0, 1)
        remote_phys(lp, "F3")
        # F4: line-card degradation: six consecutive ports' receivers rise together
        ports4 = P["F4"]
        x = xfrac(ev["F4"], RUN_S)
        on = tm_k > ev["F4"]
        env = 10 ** (-2.3 + 2.2 * x**1.1) * self.ln(0.35, K) * on
        for q in ports4:
            mlt = r.uniform(0.5, 2.0)
            rate = env * mlt * self.ln(0.2, K)
            s = r.poisson(rate * PERIOD * self.avp[q])
            sym[q] += s
            rcv[q] += r.binomial(s.astype(np.int64), np.clip(0.05 + 0.6 * self.u_in[q], 0, 0.6))
            eff[q] += r.poisson(s * 1.8)
            ler[q] += r.poisson(rate * PERIOD * 0.003)
            llie[q] += r.poisson(0.05 * (rate > 0.3))
            ber_mult[q] *= np.where(on, 10 ** (2.2 * x**1.1), 1.0)
            pq = f.peer(q)
            sym[pq] += r.poisson(0.08 * rate * PERIOD * self.avp[pq])
        remote_phys(ports4[0], "F4")
        # F6: a cable degrading slowly: pre-FEC BER up by decades, FEC/PLR hide it until the end
        l6 = P["F6"]
        rx6 = f.la[l6] if r.random() < 0.5 else f.lb[l6]
        self.f6_rx = rx6
        lb0 = np.log10(b0[rx6])
        lb0 = min(lb0, -7.0)
        b0[rx6] = 10**lb0
        x = xfrac(ev["F6"], RUN_S)
        lber = lb0 + (-3.0 - lb0) * x**1.3
        ber6 = 10**lber * self.ln(0.1, K)
        ber_mult[rx6] = ber6 / b0[rx6]
        bits = 400e9 * PERIOD
        e6 = r.poisson(np.minimum(bits * 1e-15 * (ber6 / 2.4e-4) ** 7, 1e6) * self.avp[rx6])
        eff[rx6] += e6
        s6 = r.binomial(e6.astype(np.int64), 0.08)
        sym[rx6] += s6
        rcv[rx6] += r.binomial(s6, np.clip(0.1 + 1.2 * self.u_in[rx6], 0, 0.8))
        ler[rx6] += r.poisson(e6 * 0.002)
        llie[rx6] += r.poisson(0.1 * (ber6 > 5e-4))
        # F10: HCA module overheating, then errors on both directions of its link
        l10 = P["F10"]
        hp10, lp10 = f.la[l10], f.lb[l10]
        self.temp_ramp = np.zeros(K)
        t10 = ev["F10"]
        xr = np.clip((tm_k - t10) / 3600.0, 0, 1)
        tail = np.clip((tm_k - t10 - 3600) / 3600.0, 0, 1)
        self.f10_T = (xr**1.2) * 1.0, tail
        # temperature computed in gauges(); errors here from the same curve
        self.f10_base = None
        self._errs = dict(sym=sym, rcv=rcv, ler=ler, rrpe=rrpe, llie=llie, ebo=ebo, eff=eff)
        self.b0, self.ber_mult, self.ber_add, self.dac = b0, ber_mult, ber_add, dac
        self.hp10, self.lp10 = hp10, lp10
        # F8: flapping link: errors bunch at each flap
        l8 = P["F8"]
        for t in self.f8_flaps:
            for pp in (f.la[l8], f.lb[l8]):
                k = int(np.searchsorted(self.st[f.pdev[pp]], t))
                if k < K:
                    sym[pp, k] += r.poisson(15)
                    ler[pp, k] += r.poisson(2)
                    rcv[pp, k] += r.poisson(3)
        # F5 and F1 retrains: a few training errors more
        for lk in (P["F5"], P["F1"]):
            for pp in (f.la[lk], f.lb[lk]):
                t = ev["F5"] if lk == P["F5"] else ev["F1"]
                k = int(np.searchsorted(self.st[f.pdev[pp]], t))
                if k < K:
                    sym[pp, k] += r.poisson(4)
                    ler[pp, k] += 1

    def gauges(self):
        f, r = self.f, self.rng
        Pn = self.P
        E = self._errs
        kindp = [f.dkind[d] for d in f.pdev]
        tbase = np.array([r.normal(52, 3.5) if k in ("dgx", "storage") else r.normal(46, 4) for k in kindp])
        util = 0.5 * (self.u_in + self.u_out)
        temp = tbase[:, None] + 3.5 * util + r.normal(0, 0.35, (Pn, K))
        temp -= 1.5 * (self.phy != LINKUP)
        # F10 ramp on the HCA module: +~26 C over an hour, then creeping
        hp, lp = self.hp10, self.lp10
        xr, tail = self.f10_T
        T10 = tbase[hp] + 3.5 * util[hp] + (78.0 - tbase[hp]) * xr + 2.0 * tail + r.normal(0, 0.3, K)
        temp[hp] = T10
        over = np.clip(T10 - 71.0, 0, None)
        rate = 0.002 * (10 ** (over / 4.0) - 1.0)
        for pr, m in ((hp, 1.0), (lp, 0.6)):
            s = r.poisson(rate * m * PERIOD * self.avp[pr])
            E["sym"][pr] += s
            E["rcv"][pr] += r.binomial(s.astype(np.int64), np.clip(0.05 + 1.0 * self.u_in[pr], 0, 0.7))
            E["eff"][pr] += r.poisson(s * 1.6)
            self.ber_add[pr] += np.where(T10 > 64.0, 10 ** (-7.5 + 0.22 * (T10 - 66.0)), 0.0) * (m if m == 1.0 else 0.3)
        # remote physical errors downstream of the leaf port
        d = f.pdev[lp]
        outs = [q for q in f.dports[d] if f.prole[q] == "leaf_up"]
        outs = [outs[i] for i in sorted(r.choice(len(outs), 4, replace=False))]
        rel = []
        for q in outs:
            pq = f.peer(q)
            E["rrpe"][pq] += r.binomial(E["rcv"][lp].astype(np.int64), 0.08)
            rel.append(pq)
        self.rrpe_related["F10"] = rel
        temp[self.dac] = 0.0
        self.temp = np.rint(temp).astype(np.int64)
        # pre-FEC BER gauge (firmware estimate over its window), 0 when the link is not up
        raw = (self.b0[:, None] * self.ber_mult + self.ber_add) * self.ln(0.15, (Pn, K))
        raw[self.phy != LINKUP] = 0.0
        self.raw_ber = raw

    # ---------------------------------------------------------------- cumulative fields
    def assemble(self):
        f, r = self.f, self.rng
        Pn = self.P
        E = self._errs
        su4 = np.array([f.dsu[d] == 4 for d in f.pdev])
        core_su4 = np.zeros(Pn, bool)
        for (a, _j, _u), lk in f.SL.items():
            if a == 4:
                core_su4[f.lb[lk]] = True
        fresh = su4 | core_su4
        hostp = np.array([f.dkind[d] in ("dgx", "storage") for d in f.pdev])

        def lu(lo, hi, n):
            return 10 ** r.uniform(np.log10(lo), np.log10(hi), n)

        def spars(p0, lo, hi):
            v = np.where(r.random(Pn) < p0, 0, np.floor(lu(lo, hi, Pn)))
            return np.where(fresh, 0, v)

        oct_hi = np.where(hostp, 5e15, 2e17)
        init = {}
        init["in_octets"] = np.where(fresh, 0, np.floor(10 ** r.uniform(14, np.log10(oct_hi))))
        init["out_octets"] = np.where(fresh, 0, np.floor(init["in_octets"] * r.uniform(0.8, 1.25, Pn)))
        init["in_pkts"] = np.floor(init["in_octets"] / r.uniform(2600, 4000, Pn))
        init["out_pkts"] = np.floor(init["out_octets"] / r.uniform(2600, 4000, Pn))
        init["symbol_errors"] = spars(0.6, 1, 2000)
        for pr in self.aoc_rx:
            init["symbol_errors"][pr] = np.floor(10 ** r.uniform(2, 4.7))
        init["link_error_recovery"] = spars(0.7, 1, 20)
        init["link_downed"] = np.where(fresh, 0, r.integers(0, 5, Pn))
        init["rcv_errors"] = spars(0.6, 1, 500)
        init["rcv_remote_physical_errors"] = spars(0.8, 1, 100)
        init["xmit_discards"] = spars(0.3, 1, 1e5)
        init["xmit_wait"] = np.where(fresh, 0, np.floor(10 ** r.uniform(11, 14.7, Pn)))
        init["local_link_integrity_errors"] = spars(0.9, 1, 5)
        init["excessive_buffer_overrun_errors"] = spars(0.95, 1, 3)
        init["Effective_Errors"] = spars(0.8, 1, 50)
        # increments
        size = self.pkt_size[None, :]
        data_tx = np.clip(self.tx - self.mg, 0, None)
        pk_tx = data_tx / size + self.mg / 280.0
        pk_rx = pk_tx[self.peer_arr]
        inc = {
            "in_octets": self.rx,
            "out_octets": self.tx,
            "in_pkts": pk_rx,
            "out_pkts": pk_tx,
            "symbol_errors": E["sym"],
            "link_error_recovery": E["ler"],
            "link_downed": self.ld_inc,
            "rcv_errors": E["rcv"],
            "rcv_remote_physical_errors": E["rrpe"],
            "xmit_discards": self.xd,
            "xmit_wait": self.xw,
            "local_link_integrity_errors": E["llie"],
            "excessive_buffer_overrun_errors": E["ebo"],
            "Effective_Errors": E["eff"],
        }
        self.inc_sym, self.inc_eff = E["sym"], E["eff"]
        V = {}
        for name in COUNTERS:
            c = np.floor(np.cumsum(inc[name], axis=1)).astype(np.int64)
            V[name] = c + init[name].astype(np.int64)[:, None]
        # resets in time order: device restart (all counters), operator clear (error group),
        # link-up (PHY counters)
        groups = {"all": COUNTERS, "err": ERR_GROUP, "phy": ["Effective_Errors"]}
        for p, k, g in sorted(self.resets, key=lambda x: (x[1], x[0], x[2])):
            if k <= 0 or k >= K:
                continue
            for name in groups[g]:
                V[name][p, k:] -= V[name][p, k - 1]
        # gauges
        lst, phy, wid = self.lst, self.phy, self.width
        lane = np.array([100 if s == "400G" else 50 for s in f.pspeed])[:, None]
        up = phy == LINKUP
        V["oper_status"] = (lst == ACTIVE).astype(np.int64)
        V["speed_bps"] = (wid.astype(np.int64) * lane * 10**9) * up
        V["logical_state"] = lst.astype(np.int64)
        V["phy_state"] = phy.astype(np.int64)
        V["Link_width_active"] = wid.astype(np.int64)
        V["Link_speed_active"] = (lane * up).astype(np.int64)
        V["Temperature"] = self.temp
        # BER gauges: effective/symbol BER over the device's polling window
        win = np.where(np.array([self.period[d] for d in f.pdev]) == HOST_PERIOD, 2, 1)[:, None]
        e1 = self.inc_eff.copy()
        s1 = self.inc_sym.copy()
        e2 = e1.copy()
        s2 = s1.copy()
        e2[:, 1:] += e1[:, :-1]
        s2[:, 1:] += s1[:, :-1]
        ew = np.where(win == 2, e2, e1)
        sw = np.where(win == 2, s2, s1)
        bits = V["speed_bps"].astype(np.float64) * PERIOD * win
        with np.errstate(divide="ignore", invalid="ignore"):
            eber = np.where(ew > 0, ew / np.maximum(bits, 1), EFF_BER_FLOOR)
            sber = np.where(sw > 0, sw / np.maximum(bits, 1), EFF_BER_FLOOR)
        eber[~up] = 0.0
        sber[~up] = 0.0
        F = {"Total_Raw_BER": self.raw_ber, "Effective_BER": eber, "Symbol_BER": sber}
        # exporter freeze: cached values served for ~20 min, then the jump
        d = f.dindex[self.hplace["freeze"]]
        st = self.st[d]
        fk = np.nonzero((st >= self.ev["freeze"]) & (st < self.ev["freeze_end"]))[0]
        ps = f.dports[d]
        for arr in list(V.values()) + list(F.values()):
            arr[np.ix_(ps, fk)] = arr[ps, fk[0] - 1][:, None]
        self.V, self.F = V, F

    # ---------------------------------------------------------------- presence, order, output
    def presence(self):
        pres = np.ones((self.D, K), bool)
        for d in range(self.D):
            st = self.st[d]
            pres[d] &= st >= self.dev_appear[d]
            for a, b in self.dev_gone[d]:
                pres[d] &= ~((st >= a) & (st < b))
            if self.period[d] == HOST_PERIOD:
                pres[d, 1::2] = False
        self.pres = pres

    def write(self, outdir):
        f, r, ev, H = self.f, self.rng, self.ev, self.hplace
        os.makedirs(outdir, exist_ok=True)
        pres_p = self.pres[self.pdev]
        pp, kk = np.nonzero(pres_p)
        wt = self.st[self.pdev[pp], kk]
        order = np.lexsort((pp, wt))
        pp, kk, wt = pp[order], kk[order], wt[order]
        # timestamps: device agent clocks (NTP); one spine's clock runs fast until it is stepped back
        stamp_s = self.st.copy()
        dc = f.dindex[H["clock"]]
        self.clock_delta = float(r.uniform(31.5, 36.0))
        stamp_s[dc] += np.where(self.st[dc] < ev["clock"], self.clock_delta, 0.0)
        stamp_ns = T0_NS + np.rint(stamp_s * 1e6).astype(np.int64) * 1000
        ts = stamp_ns[self.pdev[pp], kk]
        # collector buffer flush resends one batch of points once
        i0 = int(np.searchsorted(wt, ev["dup"]))
        nb = 1000
        idx = np.concatenate([np.arange(0, i0 + nb), np.arange(i0, i0 + nb), np.arange(i0 + nb, len(pp))])
        self.dup_devs = sorted({f.dname[self.pdev[p]] for p in pp[i0 : i0 + nb]})
        self.dup_t = (float(wt[i0]), float(wt[i0 + nb - 1]))
        pp, kk, ts = pp[idx], kk[idx], ts[idx]
        self.n_lines = len(pp)
        # line prefixes
        pref = []
        for p in range(self.P):
            rail = "" if f.prail[p] is None else f",rail={f.prail[p]}"
            q = f.peer(p)
            pref.append(
                f"port_counters,device={f.dp(p)},port={f.pname[p]},fabric=ib,"
                f"role={f.prole[p]}{rail},peer_device={f.dp(q)},peer_port={f.pname[q]},"
                f"speed={f.pspeed[p]} "
            )
        body = ",".join(f"{n}={{:d}}i" for n in FIELDS_INT) + "," + ",".join(f"{n}={{:.4g}}" for n in FIELDS_FLT)
        fmt = body + " {:d}\n"
        VI = np.stack([self.V[n] for n in FIELDS_INT])  # (F, P, K)
        VF = np.stack([self.F[n] for n in FIELDS_FLT])
        path = os.path.join(outdir, "port_counters.lp")
        CH = 50000
        with open(path, "w", encoding="ascii", newline="\n") as fh:
            for a in range(0, len(pp), CH):
                sp, sk = pp[a : a + CH], kk[a : a + CH]
                ints = VI[:, sp, sk].T.tolist()
                flts = VF[:, sp, sk].T.tolist()
                tl = ts[a : a + CH].tolist()
                spl = sp.tolist()
                out = []
                for p, iv, fv, t in zip(spl, ints, flts, tl, strict=True):
                    out.append(pref[p] + fmt.format(*iv, *fv, t))
                fh.write("".join(out))
        self.n_ports = int(pres_p.any(axis=1).sum())
        self.labels(outdir)

    # ---------------------------------------------------------------- labels
    def labels(self, outdir):
        f, ev, P, H = self.f, self.ev, self.place, self.hplace
        faults = []

        def fault(kind, ports, t0, t1, peers, related, sig):
            dev = f.dp(ports[0])
            faults.append(
                {
                    "kind": kind,
                    "device": dev,
                    "ports": [f.pname[p] for p in ports],
                    "start_ns": ns(t0),
                    "end_ns": ns(t1),
                    "peer_ends": [self.pe(q) for q in peers],
                    "related": self.related(related),
                    "signature": sig,
                }
            )

        l1 = P["F1"]
        sib1 = [f.la[x] for x in self.siblings_leafup(l1)]
        fault(
            "port_stuck_init",
            [f.la[l1]],
            ev["F1"],
            ev["F1_end"],
            [f.lb[l1]],
            sib1 + [f.peer(q) for q in sib1],
            "cable re-seated (link_downed +1 both ends), then phy_state LinkUp(5) with logical_state "
            "Init(2) at both ends for ~1 h: oper_status 0, speed_bps/width still reported, no data "
            "(SMP bytes only); the leaf's other uplinks carry its share; SM activates it at the end",
        )
        fault(
            "far_end_rx_errors",
            [self.f2_near],
            ev["F2"],
            RUN_S,
            [self.f2_far],
            self.rrpe_related["F2"],
            "transmitter laser of this port degrading: symbol_errors (0.01/s rising to ~1.6/s), "
            "rcv_errors, Effective_Errors and Total_Raw_BER rise only at the far end's receiver "
            "(peer); this port's own counters stay clean; downstream receivers count "
            "rcv_remote_physical_errors",
        )
        l3 = P["F3"]
        fault(
            "load_dependent_crosstalk_errors",
            [f.lb[l3]],
            ev["F3"],
            RUN_S,
            [f.la[l3]],
            self.rrpe_related["F3"],
            "host cable nudged (one bounce), then a marginal cable: symbol_errors/rcv_errors at "
            "both receivers in proportion to the bytes crossing it (~0.018 per GB at the leaf, half "
            "at the HCA), none while the host idles (eval pauses, checkpoints, idle stretch)",
        )
        p4 = P["F4"]
        fault(
            "line_card_degrading",
            p4,
            ev["F4"],
            RUN_S,
            [f.peer(q) for q in p4],
            self.rrpe_related["F4"],
            "six consecutive ports of one director line card (facing different spines) with "
            "symbol_errors rising together (common envelope 0.005/s -> ~1/s per port, x0.5-2), "
            "rcv_errors, link_error_recovery, Total_Raw_BER up together; far ends ~8 % of it",
        )
        l5 = P["F5"]
        fault(
            "link_width_degraded",
            [f.la[l5]],
            ev["F5"],
            RUN_S,
            [f.lb[l5]],
            self.rel5,
            f"link_downed +1, retrain at Link_width_active {self.f5_width} (was 4), Link_speed_active "
            f"unchanged, speed_bps {self.f5_width * 100}G under a 400G tag; stays up; its bytes cap "
            "at the narrower rate when loaded and the feeding HCAs / director ports wait for credits",
        )
        fault(
            "ber_degrading_cable",
            [self.f6_rx],
            ev["F6"],
            RUN_S,
            [f.peer(self.f6_rx)],
            [],
            "pre-FEC Total_Raw_BER at this receiver rising from its ~1e-8 background by >4 decades "
            "(x^1.3 over the rest of the run, reaching ~1e-3); Effective_Errors and a few "
            "symbol_errors/rcv_errors only in the last ~15 min (FEC + PLR hide it until then)",
        )
        l7 = P["F7"]
        fault(
            "hca_rx_stuck_congestion_tree",
            [f.lb[l7]],
            ev["F7"],
            ev["F7_end"],
            [f.la[l7]],
            self.rel7,
            "HCA receive side not draining: xmit_wait on the leaf port ~85-95 % of ticks, "
            "xmit_discards 400-1500/s (HoQ lifetime), HCA in_octets a trickle; credit waits spread to "
            "the spine ports feeding that leaf, the director ports feeding those spines and the other "
            "HCAs of the leaf; the job slows (x0.55); host drained at the end",
        )
        l8 = P["F8"]
        fault(
            "flapping_link",
            [f.la[l8]],
            ev["F8"],
            ev["F8_end"],
            [f.lb[l8]],
            [f.la[x] for x in self.siblings(l8)],
            f"{len(self.f8_flaps)} down/up cycles 8-15 min apart (6-40 s down): link_downed +1 both "
            "ends each time, link_error_recovery, symbol_errors burst, phy_state Polling when a "
            "sample lands in a down, traffic gap, PHY counters (Effective_Errors) restart",
        )
        f9_links, left = P["F9"]
        sib9 = [f.la[x] for x in f9_links if x != left]
        fault(
            "port_left_disabled",
            [f.la[left]],
            ev["maint"],
            RUN_S,
            [f.lb[left]],
            sib9 + [f.peer(q) for q in sib9] + [f.la[x] for x in self.siblings(left) if x not in f9_links],
            "maintenance on the spine disabled four uplinks to one director; three came back within "
            "~12 min, this one stays phy_state Disabled(3)/logical Down at the spine (far end "
            "Polling, link_downed +1 there) to the end of the run; siblings carry its share",
        )
        l10 = P["F10"]
        fault(
            "hca_module_overheating",
            [f.la[l10]],
            ev["F10"],
            RUN_S,
            [f.lb[l10]],
            self.rrpe_related["F10"],
            "HCA port module Temperature climbing ~26 C over an hour (to ~78-80 C), then symbol_errors, "
            "rcv_errors and Total_Raw_BER rising at the HCA receiver and (less) at the leaf port",
        )

        hl = []

        def healthy(kind, where, t0, t1, note, background=False):
            e = {"kind": kind, "where": where, "start_ns": ns(t0), "end_ns": ns(t1), "note": note}
            if background:
                e["background"] = True
            hl.append(e)

        old_hosts = [f"dgx{a}{h + 1:02d}:*" for a in OLD_SUS for h in range(8)]
        old_leaves = [f"leaf-su{a}-r{rr}:*" for a in OLD_SUS for rr in range(8)]
        old_spines = [f"spine-su{a}-{j + 1}:*" for a in OLD_SUS for j in range(4)]
        su4 = (
            [f"dgx4{h + 1:02d}:*" for h in range(8)]
            + [f"leaf-su4-r{rr}:*" for rr in range(8)]
            + [f"spine-su4-{j + 1}:*" for j in range(4)]
        )
        stor_devs = ["hdr-leaf-1:*", "hdr-leaf-2:*"] + [f"stor{n:02d}:*" for n in range(1, 9)]
        legs = self.where([f.lb[lk] for lk in f.LEG.values()])
        healthy(
            "job_restart",
            old_hosts + old_leaves,
            ev["A_crash"],
            ev["A_restart"] + 120,
            "job A crashed; its hosts idle, then relaunch",
        )
        healthy(
            "alltoall_preflight",
            old_hosts + old_leaves + old_spines + ["dir-1:*", "dir-2:*"],
            ev["pre0"],
            ev["pre1"],
            "nccl-tests all_to_all before the relaunch: near line rate, credit waits on many spine/core ports",
        )
        for s, e in ev["evals"]:
            healthy("eval_pause", old_hosts + old_leaves, s, e, "job A evaluation: host links nearly idle")
        for s, e in ev["ckA"] + [ev["ckB"]]:
            healthy(
                "checkpoint_burst",
                stor_devs + legs + old_hosts + old_spines + old_leaves,
                s,
                e,
                "storage-bound checkpoint writes: storage HCAs and HDR legs saturated, credit waits "
                "from the L09 split legs back to the spines, leaf uplinks and writer HCAs; a few HoQ "
                "discards on the legs",
            )
        healthy(
            "job_restart",
            old_hosts + old_leaves,
            ev["F7_end"],
            ev["A_restart2"] + 120,
            "job A restarted without the drained host",
        )
        healthy(
            "job_switch", old_hosts + old_leaves, ev["A_end"], ev["B_start"] + 120, "job A done, MoE job B launched"
        )
        healthy(
            "moe_all_to_all",
            old_hosts + old_leaves + old_spines + ["dir-1:*", "dir-2:*"],
            ev["B_start"],
            ev["B_end"],
            "expert-parallel all-to-all across SU1-3: smaller packets, bursty, credit waits "
            "(xmit_wait) on many spine, spine-uplink and director ports at once",
        )
        healthy("idle_stretch", ["*"], ev["B_end"], ev["C_start"] + 120, "no jobs: only SMP/IPoIB traffic")
        healthy(
            "job_start", old_hosts + old_leaves + su4, ev["C_start"], ev["C_start"] + 300, "dense job C across SU1-4"
        )
        healthy(
            "new_su_bring_up",
            su4 + self.where([f.lb[f.SL[4, j, u]] for j in range(4) for u in range(16)]),
            ev["su4_power"],
            ev["su4_hosts"] + 600,
            "SU4 switches powered and discovered (new series from zero), links train Polling -> "
            "Init -> Armed -> Active, director ports leave Polling; hosts appear later",
        )
        healthy(
            "su_burn_in",
            su4,
            ev["burn0"],
            ev["a2atest"][1],
            "SU4 acceptance: nccl-tests all_reduce near line rate, storage read test, all_to_all",
        )
        healthy(
            "storage_read_test",
            stor_devs + su4 + legs,
            ev["stortest"][0],
            ev["stortest"][1],
            "SU4 reads from every storage HCA at ~90 % of 200G",
        )
        dr = self.drain_ports
        healthy(
            "planned_line_card_drain",
            self.where(dr + [f.peer(q) for q in dr]),
            ev["drain"],
            self.drain_end + 120,
            "director line card drained: ports admin Disabled(3) 30 min, spine ends Polling with "
            "link_downed +1, traffic moves to the other line card, then re-enabled and re-swept",
        )
        d = f.dindex[H["reboot"]]
        rb = f.dports[d]
        healthy(
            "sm_resweep_after_reboot",
            [f"{H['reboot']}:*", *self.where([f.peer(q) for q in rb])],
            self.reboot_win[0],
            self.reboot_end + 180,
            "leaf rebooted in the idle stretch: no lines while down, peers Polling with "
            "link_downed +1, then Polling -> Init -> Armed -> Active over 1-2 min; all its "
            "counters restart from 0",
        )
        healthy(
            "maintenance_port_disable",
            self.where(sib9 + [f.peer(q) for q in sib9]),
            ev["maint"],
            self.maint_end + 120,
            "three spine uplinks disabled for maintenance and re-enabled",
        )
        healthy(
            "error_counter_clear",
            [f"{H['clear1']}:*"],
            ev["clear1"],
            ev["clear1"] + 60,
            "perfquery -R on every port of a leaf: error counters and xmit_wait back to 0, data counters keep counting",
        )
        healthy(
            "error_counter_clear",
            self.where(H["clear2"]),
            ev["clear2"],
            ev["clear2"] + 60,
            "perfquery -R on a few ports (two AOC links with background errors, four spine ports)",
        )
        healthy(
            "clock_step",
            [f"{H['clock']}:*"],
            ev["clock"] - 60,
            ev["clock"] + 120,
            f"switch clock ran {self.clock_delta:.1f} s fast, NTP stepped it back once: its "
            "timestamps go backwards once",
        )
        healthy(
            "duplicate_lines",
            [f"{d}:*" for d in self.dup_devs],
            self.dup_t[0],
            self.dup_t[1] + 30,
            "collector buffer flush resent one batch of 1000 points (same timestamps, same values)",
        )
        healthy(
            "exporter_freeze",
            [f"{H['freeze']}:*"],
            ev["freeze"],
            ev["freeze_end"] + 60,
            "the leaf's telemetry agent served cached values ~20 min (all fields repeated, fresh "
            "timestamps), then the accumulated counts jump in at once",
        )
        healthy(
            "static_routing_imbalance",
            self.where([f.la[lk] for lk in H["imb"]] + [f.lb[lk] for lk in H["imb"]]),
            0,
            RUN_S,
            "static LFT routing: these uplinks carry ~1.7x their siblings' bytes from the start",
        )
        healthy(
            "aoc_background_symbol_errors",
            self.where(self.aoc_rx),
            0,
            RUN_S,
            "long AOC links: 1-6 symbol errors per hour at one receiver, some rcv_errors",
            background=True,
        )
        healthy(
            "prefec_ber_background",
            ["*"],
            0,
            RUN_S,
            "every NDR receiver's Total_Raw_BER 1e-9..1e-6 (HDR 1e-11..1e-8); Effective_BER and "
            "Symbol_BER at the 1.5e-254 firmware floor when no error is seen",
            background=True,
        )
        healthy(
            "credit_wait_background",
            ["*"],
            0,
            RUN_S,
            "xmit_wait grows with load squared with a heavy tail on every port",
            background=True,
        )
        labels = {
            "scenario": SCENARIO,
            "scale": "small",
            "seed": self.seed,
            "fabric": "ib",
            "interval_s": PERIOD,
            "sample_s": PERIOD,
            "host_sample_s": HOST_PERIOD,
            "t0_ns": T0_NS,
            "t_end_ns": ns(RUN_S),
            "train_until_ns": ns(FIT_S),
            "fit_first": f"{FIT_S // 60}m",
            "ports": self.n_ports,
            "lines": self.n_lines,
            "generator": "bench/fabrics/ib_ufm_director.py",
            "faults": faults,
            "healthy_phenomena": hl,
        }
        with open(os.path.join(outdir, "labels.json"), "w", encoding="utf-8") as fh:
            json.dump(labels, fh, indent=1)
            fh.write("\n")

    def siblings_leafup(self, lk):
        return [x for x in self.siblings(lk)]

    def siblings(self, lk):
        f = self.f
        for (a, rr, li), x in f.LL.items():
            if x == lk:
                return [f.LL[a, rr, q] for q in range(8) if q != li]
        for (a, j, u), x in f.SL.items():
            if x == lk:
                di = u // 8
                return [f.SL[a, j, di * 8 + q] for q in range(8) if di * 8 + q != u]
        return []

    # ---------------------------------------------------------------- run
    def run(self, outdir):
        self.plan()
        self.build_states()
        # clears (perfquery -R): error counters and xmit_wait
        H, ev, f = self.hplace, self.ev, self.f
        for i, p in enumerate(f.dports[f.dindex[H["clear1"]]]):
            k = int(np.searchsorted(self.st[f.pdev[p]], ev["clear1"] + i * 1.2))
            self.resets.append((p, k, "err"))
        for i, p in enumerate(H["clear2"]):
            k = int(np.searchsorted(self.st[f.pdev[p]], ev["clear2"] + i * 3.0))
            self.resets.append((p, k, "err"))
        self.compile_links()
        self.workload()
        self.traffic()
        self.congestion()
        self.errors()
        self.gauges()
        self.assemble()
        self.presence()
        self.write(outdir)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Synthetic UFM-telemetry history of an IB NDR fat tree with director core switches, with labels."
    )
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    t = time.time()
    g = Gen(args.seed)
    g.run(args.outdir)
    print(f"{args.outdir}: {g.n_lines} lines, {g.n_ports} ports, {time.time() - t:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
