#!/usr/bin/env python3
"""ib_ibdiag_sweep.py -- labelled telemetry of an NDR InfiniBand training cluster, as its own
collectors wrote it (no UFM: an ibdiagnet sweep script, ibnetdiscover, node_exporter).

    python ib_ibdiag_sweep.py OUTDIR --seed N [--hours H] [--sort] [--no-hosts]

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, ns timestamps) and OUTDIR/labels.json
(the scenario-bank label form that score.py reads). Same seed -> byte-identical files. python3 +
numpy only. Default 5.5 h: 1.5 h fit window (no faults) then 4 h scored.

=====================================================================================================
DATA SHEET  (site "hx1", compute fabric "ib0", as the site's network engineer would describe it)
=====================================================================================================

FABRIC
  1024 GPUs: 128 HGX H100 nodes gpu001..gpu128, 8 single-port ConnectX-7 HCAs each (mlx5_0..mlx5_7,
  one per GPU, one per rail), NDR 4x 400 Gb/s. Three-level fat tree, rail-optimised leaves, adaptive
  routing (AR) on, full bisection at leaf and spine level.
  * 4 scalable units (SU) of 32 nodes: su1 = gpu001-032, su2 = gpu033-064, su3 = gpu065-096,
    su4 = gpu097-128.
  * Leaves: 8 per SU, QM9700 (64 x 400G ports in 32 twin-port OSFP cages; ports 2c-1 and 2c share
    cage c, i.e. one module and one temperature). ib-lRR-suU is rail RR-1 of SU U: port k (1-32) is
    node k of the SU, mlx5_<RR-1>; ports 33-64 go up, 4 links to each of the SU's 8 spines
    (port 33 + 4(s-1) + k, k = 0..3, to spine s).
  * Spines: 8 per SU, QM9700, ib-sSS-suU. Ports 1-32 down (port 4(r-1)+k+1 to leaf ib-lRR, k = 0..3),
    ports 33-48 up to core ib-c(2S-1) (16 links), ports 49-63 up to core ib-c(2S) (15 links),
    port 64 empty (given to storage, so compute is 32:31 at the spine-core tier).
  * Core: 16 x QM9700 ib-c01..ib-c16 in 8 planes; plane S = ib-c(2S-1), ib-c(2S) and spine SS of
    every SU. Core port (U-1)*16 + m is SU U's spine, link m. Even cores keep ports 16, 32 (to
    ib-stl01) and 48, 64 (to ib-stl02) for storage.
  * Storage: 8 nodes stor01..stor08, 2 x ConnectX-6 each (mlx5_0 -> ib-stl01, mlx5_1 -> ib-stl02),
    on two old EDR switches kept from the previous storage fabric: ib-stl01/02, MSB7800 (Switch-IB 2,
    36 ports): ports 1-8 storage nodes, ports 19-34 uplinks (2 to each even core), stl01 port 36 is
    the management node mgmt01 (runs opensm, the sweep and Telegraf). Storage links run 4x EDR
    (100 Gb/s); the core ports facing them negotiate EDR too.
  * Cabling: all switch-switch and switch-HCA links are optical (OSFP twin-port transceivers +
    MPO fibre; spine-core runs are the long ones, 30-70 m). Storage links are QSFP28 AOCs.
  * Switch GUIDs: QM9700 0xfc6a1c0300xxxxxx, MSB7800 0x248a070300xxxxxx; HCA node GUIDs 0x946dae...
    (CX-7), 0x0c42a1... (CX-6). Ports per sweep: 5,137 switch ports (every cabled one).

COLLECTORS (all land in one Telegraf on mgmt01, [[outputs.file]] in line protocol, omit_hostname,
flush_interval 10 s; the file is in arrival order: blocks of up to a minute can be out of time order.
--sort writes it time-ordered instead.)
  1. Switch sweep (measurement ibdiag_port). Telegraf [[inputs.exec]] every 60 s runs
     /opt/hx1/ibsweep.sh: `ibdiagnet -o /run/ibsweep --pm_pause_time 0 --get_phy_info
     --get_cable_info` (PM counters read through PortCountersExtended, as `perfquery -x` shows
     them; never --pc, so nothing is cleared by the sweep) and converts
     ibdiagnet2.pm / ibdiagnet2.db_csv / net_dump_ext / cables to line protocol with ibdiagnet's own
     names. ONE timestamp per sweep: the script's clock when it finishes parsing, so a switch's
     counters were actually read 5-30 s (in a long sweep up to ~100 s) before the stamp, in BFS order
     from mgmt01 (stl01, the cores, ..., the leaves last). The run takes 20-32 s; about 1.5 % of runs
     hit MAD time-outs and take 65-115 s, and Telegraf then skips the next interval ("collection took
     longer than expected"), so stamps are ~60 s apart with ~1 s jitter and the odd 120 s gap.
       tags:   node_desc (as the switch reports it: MF0;ib-l07-su2:MQM9700/U1), node_guid
               (0x + 16 hex), port_num (1..64 / 1..36)
       fields: PM counters, 64-bit (QM9700: PortCountersExtended has every counter):
                 symbol_error_counter link_error_recovery_counter link_downed_counter
                 port_rcv_errors port_rcv_remote_physical_errors port_rcv_switch_relay_errors
                 port_xmit_discards port_xmit_constraint_errors port_rcv_constraint_errors
                 local_link_integrity_errors excessive_buffer_overrun_errors vl15_dropped
                 port_xmit_data port_rcv_data (4-byte WORDS, as IB PM counts them: x4 for bytes)
                 port_xmit_pkts port_rcv_pkts port_xmit_wait (ticks, ~1e8/s when fully blocked)
               PortInfo:  port_state (1 Down, 2 Init, 3 Armed, 4 Active), port_phy_state
                 (2 Polling, 3 Disabled, 5 LinkUp, 6 LinkErrorRecovery), link_width_active
                 ("4x", "2x", "1x"), link_speed_active ("NDR", "EDR")
               PHY (--get_phy_info): raw_ber (pre-FEC), effective_ber (post-FEC), symbol_ber,
                 rs_fec_corrected_blocks, rs_fec_uncorrectable_blocks. BERs are computed by the
                 firmware over the time since the PHY counters were last cleared (a nightly
                 `ibdiagnet --reset_phy_info` at 02:00Z, 2 h before this file starts, or the last
                 reboot), so they are running averages, not per-sweep values. A BER with no errors
                 since the clear prints as 1.5e-254 (ibdiagnet's zero).
               cable info (--get_cable_info): module_temperature (deg C, integer, per cage).
       MSB7800 (ib-stl01/02) has PortCountersExtended for data and packets only: every error counter
       comes from the legacy PortCounters and saturates at its width (symbol_error_counter,
       port_rcv_errors, ..._physical/relay_errors, port_xmit_discards, vl15_dropped 16 bit;
       link_error_recovery/link_downed/constraint 8 bit; local_link_integrity, excessive_buffer_
       overrun 4 bit; port_xmit_wait 32 bit). Its storage-facing ports have had port_xmit_wait
       pinned at 4294967295 for months (every checkpoint saturates them); that is normal here.
       EDR links run without FEC (rs_fec_* stay 0; the three BERs are the same raw rate).
       Down ports are still swept (PM and PortInfo read through the switch). A switch that is
       rebooting is not discovered: no lines at all for its ports.
  2. Topology (measurement ib_link): `ibnetdiscover -p` every 10 min (cron on mgmt01, same
     converter), one line per connected port, seen from its own node (switch-switch links appear
     from both ends, HCA links from the switch port and from the HCA):
       tags:   node_desc, node_guid, node_type (SW|CA), port_num, remote_desc, remote_guid,
               remote_port, remote_type   (HCA node_desc is "<host> <device>", e.g. "gpu017 mlx5_3";
               the space is escaped in line protocol)
       fields: lid, remote_lid, link_width ("4x"), link_speed ("NDR"/"EDR")
     Only links that are up appear; a rebooting switch and its links are missing from a snapshot.
  3. Hosts (measurement prometheus_remote_write): node_exporter (infiniband collector) on every
     compute and storage node, scraped by Prometheus every 15 s (fixed per-target offset inside the
     15 s, ms timestamps), remote_write -> Telegraf [[inputs.http_listener_v2]] data_format =
     "prometheusremotewrite" (metric_version 2) + [[aggregators.merge]], write_relabel keeping
     node_infiniband_* counters below. Prometheus relabels instance to the bare hostname.
       tags:   device (mlx5_N), instance (gpu017 / stor03), job (node), port (1)
       fields (floats, as Prometheus stores them): node_infiniband_port_data_received_bytes_total,
               ..._port_data_transmitted_bytes_total, ..._port_packets_received_total,
               ..._port_packets_transmitted_total, ..._port_transmit_wait_total,
               ..._port_errors_received_total, ..._port_discards_transmitted_total,
               ..._symbol_error_total, ..._link_downed_total, ..._link_error_recovery_total,
               ..._state_id, ..._physical_state_id, ..._rate_bytes_per_second
       mlx5 sysfs reads data/packets through the extended counters (bytes = words x 4) but every
       error counter and port_xmit_wait through legacy PortCounters: transmit_wait (32 bit) is
       pinned at 4294967295 on long-up busy nodes, symbol/errors 16 bit, downed/recovery 8 bit.
       A rebooted node's counters restart at 0. A down port: state_id 1, physical_state_id 2,
       rate_bytes_per_second 1.25e9 (the 10 Gb/s sysfs shows for a port that is not up).
  Naming for findings/labels: a switch port is device = the hostname inside node_desc
  (ib-l07-su2), port = port_num ("17"); an HCA end is device = instance / host ("gpu017"),
  port = the mlx5 device ("mlx5_3"). ib_link gives the map between the two.

WHAT IS NORMAL HERE
  * Jobs. A 60-node MoE job spans two SUs (AllReduce phases, plus 2.5-5 min expert all-to-all phases
    every 12-22 min that lift port_xmit_wait to ~1e7/s on ~1,000 spine and ~500 core ports at once,
    and on the leaf uplinks of those SUs); dense data-parallel jobs inside one SU (rail traffic stays
    in the leaf: their uplinks and spines carry only storage traffic); small jobs starting and
    stopping; eval pauses; NCCL warm-up; checkpoint restore reads from storage at every job start;
    a data-loader trickle from storage; a management trickle (MADs, IPoIB) on every live link.
  * Checkpoints: every job writes to storage every ~45-70 min for 1-4.5 min. Storage is the
    bottleneck (16 x EDR): the storage-facing ports of ib-stl01/02 run at ~95% with heavy
    port_xmit_wait, the even-core ports feeding them wait too, spine uplinks to even cores a little.
  * Background symbol errors (post-FEC, 0.5-4 per hour) and the odd link_error_recovery on ~6% of
    the long spine-core optical links, all run; raw (pre-FEC) BER 1e-9..3e-7 on NDR optics is
    normal (FEC corrects it); historical non-zero error counts that do not move.
  * An operator clears the PM counters of a handful of healthy ports (`perfquery -x -R`): every PM
    counter of those ports, data included, drops to 0 with no reboot (PHY counters untouched).
  * Planned maintenance: rolling firmware upgrade of two leaves of one of the MoE job's SUs (the job
    saves a checkpoint and stops, the SU is drained, the job restarts ~10 min after the second leaf
    is back): each leaf vanishes from the sweep for 4-6 min, its spine and HCA neighbours
    show the links Down/Polling and link_downed +1, the leaf comes back with every counter near 0
    (a few symbol errors from link training). Node drain + reboot: its 8 leaf ports go Down for
    ~8 min, node_exporter silent ~9 min, its counters restart from 0.
  * A 5-minute sweep outage (mgmt01's HCA went through mlx5 health recovery: ibdiagnet "Failed to
    open port"): no ibdiag_port lines at all, hosts unaffected; stl01 port 36 link_downed +1.

FAULTS (placed per seed after the fit window; kind names as in labels.json)
  credit_loop                  a spine with a deadlock-prone route: port_xmit_wait climbs to near
                               saturation on all its ports within minutes while its data throughput
                               collapses to a few %, HoQ discards (port_xmit_discards) rise; AR moves
                               the load to the sibling spines; leaf/core ports feeding it wait too
                               (related). Lasts 25-45 min until opensm re-routes.
  optical_module_overheating   a spine uplink twin-port cage heats 52 -> 80 C over ~80 min, then
                               stays near 80; raw BER climbs once past ~66 C, post-FEC symbol errors
                               only past ~74 C (both ports of the cage and, less, their core ends).
                               Labelled from the start of the heating.
  pre_fec_ber_degradation      one receive side of a spine-core link: true pre-FEC BER ramps from its
                               normal ~1e-8 to 5e-5 over ~2 h (rs_fec_corrected_blocks accelerate,
                               raw_ber (running average) rises); effective BER and symbol errors only
                               in the last ~30 min of the ramp. Labelled from the ramp start.
  switch_relay_errors          after an opensm re-route, 4-8 host-facing ports of one leaf count
                               port_rcv_switch_relay_errors (packets to DLIDs missing from the new
                               LFT) in proportion to their traffic, until the next heavy sweep.
  hca_credit_starvation        an HCA stops returning credits: port_xmit_wait on the leaf port to it
                               near saturation, its receive bytes ~0, port_xmit_discards (HoQ) rising
                               on that leaf port; the job it belongs to stalls (its other nodes' HCAs
                               wait: related); ends with an HCA reset (link bounce).
  link_down_after_reseat       a leaf uplink reseated and left down: leaf end port_state 1 /
                               port_phy_state 3 (Disabled), spine end 1 / 2 (Polling), link_downed +1,
                               no traffic, missing from ib_link, never recovered.
  flapping_link                bursts of down/up cycles: link_downed and link_error_recovery step on
                               both ends, a sweep sometimes lands in a down, traffic gaps, symbol
                               errors at each re-train.
  degraded_link_width          after the firmware upgrade a leaf uplink comes back at 2x:
                               link_width_active "2x" at both ends, AR gives it about half its
                               siblings' bytes, more port_xmit_wait.
  symbol_counter_saturated     an old MSB7800 port (storage uplink, EDR AOC) with a bad cable:
                               symbol errors at 6-60/s until the 16-bit counter sticks at 65535 and
                               stops moving while errors continue; port_rcv_errors ~3% of them,
                               link_error_recovery every 6-15 min; the core end sees ~5%.
  excessive_buffer_overrun     a leaf port whose HCA overruns the receive buffer (sends past its
                               credits): excessive_buffer_overrun_errors and port_rcv_errors climb.
  marginal_cable_rcv_errors    a leaf-spine cable: steady port_rcv_errors (and post-FEC symbol
                               errors, raw BER ~1e-5) at the receiving spine port in proportion to
                               its traffic, less at the leaf end; the stomped packets it forwards show
                               as port_rcv_remote_physical_errors on the core ports downstream
                               (related).
  Some seeds add a second flapping link or marginal cable.

VOLUME
  Default run: ~3.2 M lines, ~2.4 GB (ibdiag_port 1.65 M lines / 1.35 GB: 5,137 ports x ~325 sweeps
  at ~820 bytes a line with ibdiagnet's field names; prometheus_remote_write 1.37 M / 0.98 GB;
  ib_link 0.2 M / 54 MB); ~20 s and ~2 GB RAM to generate. --no-hosts leaves out the host path.

LABELS
  interval_s 60 (the sweep); fault starts on 60 s boundaries of the nominal sweep grid after
  train_until_ns; ports = 5,137 switch ports + 1,040 HCA ports (switch ports only with --no-hosts). device/port naming as above;
  peer_ends = far end of the same cable; related = knock-on ports (neutral for scoring).
  Planned maintenance is a healthy phenomenon with "planned": true. Extra keys (node_guid,
  node_desc, signature, slow) are informational.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone

import numpy as np

T0 = datetime(2025, 9, 16, 4, 0, 0, tzinfo=timezone.utc)
T0_NS = int(T0.timestamp()) * 10**9
DT = 5.0                      # simulation grid (s)
SWEEP_S, SCRAPE_S, TOPO_S = 60, 15, 600
PHY_CLEAR = -7200.0           # nightly --reset_phy_info at 02:00Z
NSU, NPS, NRAIL, NSP = 4, 32, 8, 8
NDR_B, EDR_B = 50e9, 12.5e9   # data bytes/s at 4x
CAPN, CAPE = NDR_B * 0.97, EDR_B * 0.97
BITS_NDR, BITS_EDR = 425e9, 103.125e9   # line bits/s at 4x (BER denominators)
TICK = 1.0e8                  # port_xmit_wait ticks/s when fully blocked
W_CAP = 16 * CAPE * 0.96      # what the storage servers absorb
BER_ZERO = 1.5e-254

KEYS = ["sym", "ler", "ld", "rcv", "rpe", "relay", "xd", "xce", "rce", "lli", "ebo", "vl15"]
PM = {"sym": "symbol_error_counter", "ler": "link_error_recovery_counter",
      "ld": "link_downed_counter", "rcv": "port_rcv_errors",
      "rpe": "port_rcv_remote_physical_errors", "relay": "port_rcv_switch_relay_errors",
      "xd": "port_xmit_discards", "xce": "port_xmit_constraint_errors",
      "rce": "port_rcv_constraint_errors", "lli": "local_link_integrity_errors",
      "ebo": "excessive_buffer_overrun_errors", "vl15": "vl15_dropped"}
LEGACY = {"sym": 16, "ler": 8, "ld": 8, "rcv": 16, "rpe": 16, "relay": 16, "xd": 16, "xce": 8,
          "rce": 8, "lli": 4, "ebo": 4, "vl15": 16, "wait": 32}


def sat(bits):
    return (1 << bits) - 1


# --------------------------------------------------------------------------------------------------
# the site (same hardware for every seed)
# --------------------------------------------------------------------------------------------------
class Site:
    def __init__(self):
        g = np.random.default_rng(0x1B0D1A6)
        self.sw_name, self.sw_model, self.sw_kind, self.sw_su = [], [], [], []

        def addsw(name, model, kind, su):
            self.sw_name.append(name)
            self.sw_model.append(model)
            self.sw_kind.append(kind)
            self.sw_su.append(su)

        for u in range(NSU):
            for r in range(NRAIL):
                addsw(f"ib-l{r + 1:02d}-su{u + 1}", "MQM9700", "leaf", u)
        for u in range(NSU):
            for s in range(NSP):
                addsw(f"ib-s{s + 1:02d}-su{u + 1}", "MQM9700", "spine", u)
        for c in range(16):
            addsw(f"ib-c{c + 1:02d}", "MQM9700", "core", -1)
        for j in range(2):
            addsw(f"ib-stl{j + 1:02d}", "MSB7800", "stl", -1)
        self.NSW = len(self.sw_name)
        self.legacy = np.array([m == "MSB7800" for m in self.sw_model])
        suf = g.choice(1 << 24, self.NSW + 2000, replace=False)
        self.sw_guid = [("0x248a070300%06x" if self.legacy[i] else "0xfc6a1c0300%06x") % suf[i]
                        for i in range(self.NSW)]
        self.sw_desc = [f"MF0;{n}:{m}/U1" for n, m in zip(self.sw_name, self.sw_model)]
        lids = g.permutation(np.arange(1, self.NSW + 1))
        self.sw_lid = [int(x) for x in lids]

        # HCA ports: 0..1023 compute (n*8+r), 1024..1039 storage (1024+k*2+j), 1040 mgmt01
        self.h_host, self.h_dev, self.h_guid, self.h_lid, self.h_edr = [], [], [], [], []
        k0 = self.NSW
        hl = g.permutation(np.arange(100, 100 + 1041))
        for n in range(128):
            for r in range(NRAIL):
                self.h_host.append(f"gpu{n + 1:03d}")
                self.h_dev.append(f"mlx5_{r}")
                self.h_guid.append("0x946dae0300%06x" % suf[k0])
                self.h_edr.append(False)
                k0 += 1
        for k in range(8):
            for j in range(2):
                self.h_host.append(f"stor{k + 1:02d}")
                self.h_dev.append(f"mlx5_{j}")
                self.h_guid.append("0x0c42a10300%06x" % suf[k0])
                self.h_edr.append(True)
                k0 += 1
        self.h_host.append("mgmt01")
        self.h_dev.append("mlx5_0")
        self.h_guid.append("0x043f720300%06x" % suf[k0])
        self.h_edr.append(True)
        self.h_lid = [int(x) for x in hl]
        self.NH = len(self.h_host)            # 1041
        self.NHM = 1040                       # HCA ports with node_exporter (not mgmt01)

        # links: ends are ("S", sw, portnum) or ("H", hca)
        self.lk_cls, self.lk_a, self.lk_b, self.lk_edr = [], [], [], []

        def link(cls, a, b, edr=False):
            self.lk_cls.append(cls)
            self.lk_a.append(a)
            self.lk_b.append(b)
            self.lk_edr.append(edr)
            return len(self.lk_cls) - 1

        self.L_HL = np.zeros((128, NRAIL), int)
        for n in range(128):
            u, loc = divmod(n, NPS)
            for r in range(NRAIL):
                self.L_HL[n, r] = link("HL", ("H", n * 8 + r), ("S", u * 8 + r, loc + 1))
        self.L_SH = np.zeros((8, 2), int)
        for k in range(8):
            for j in range(2):
                self.L_SH[k, j] = link("SH", ("H", 1024 + k * 2 + j), ("S", 80 + j, k + 1), True)
        self.L_MG = link("MG", ("H", 1040), ("S", 80, 36), True)
        self.L_LS = np.zeros((NSU, NRAIL, NSP, 4), int)
        for u in range(NSU):
            for r in range(NRAIL):
                for s in range(NSP):
                    for k in range(4):
                        self.L_LS[u, r, s, k] = link("LS", ("S", u * 8 + r, 33 + s * 4 + k),
                                                     ("S", 32 + u * 8 + s, r * 4 + k + 1))
        self.L_SC = np.zeros((NSU, NSP, 31), int)
        for u in range(NSU):
            for s in range(NSP):
                for m in range(31):
                    if m < 16:
                        core, cp = 2 * s, u * 16 + m + 1
                    else:
                        core, cp = 2 * s + 1, u * 16 + (m - 16) + 1
                    self.L_SC[u, s, m] = link("SC", ("S", 32 + u * 8 + s, 33 + m), ("S", 64 + core, cp))
        self.L_CS = np.zeros((2, NSP, 2), int)
        for j in range(2):
            for s in range(NSP):
                for i in range(2):
                    cp = (16, 32)[i] if j == 0 else (48, 64)[i]
                    self.L_CS[j, s, i] = link("CS", ("S", 80 + j, 19 + s * 2 + i), ("S", 64 + 2 * s + 1, cp), True)
        self.NL = len(self.lk_cls)
        self.lk_edr = np.array(self.lk_edr)

        # unified ports: switch ports sorted by (switch, port number), then HCA ports
        sw_ports = []
        for l in range(self.NL):
            for side, e in ((0, self.lk_a[l]), (1, self.lk_b[l])):
                if e[0] == "S":
                    sw_ports.append((e[1], e[2], l, side))
        sw_ports.sort()
        self.PS = len(sw_ports)
        self.P = self.PS + self.NH
        self.p_sw = np.full(self.P, -1)
        self.p_num = np.ones(self.P, int)
        self.p_link = np.zeros(self.P, int)
        self.p_side = np.zeros(self.P, int)
        self.p_dev, self.p_port = [], []
        for i, (sw, num, l, side) in enumerate(sw_ports):
            self.p_sw[i], self.p_num[i], self.p_link[i], self.p_side[i] = sw, num, l, side
            self.p_dev.append(self.sw_name[sw])
            self.p_port.append(str(num))
        self.swport = {(sw, num): i for i, (sw, num, _, _) in enumerate(sw_ports)}
        for h in range(self.NH):
            i = self.PS + h
            self.p_link[i] = [l for l in range(self.NL) if self.lk_a[l] == ("H", h)][0] if h >= 1024 \
                else self.L_HL[h // 8, h % 8]
            self.p_side[i] = 0
            self.p_dev.append(self.h_host[h])
            self.p_port.append(self.h_dev[h])
        self.lk_pa = np.zeros(self.NL, int)
        self.lk_pb = np.zeros(self.NL, int)
        for l in range(self.NL):
            for side, e in ((0, self.lk_a[l]), (1, self.lk_b[l])):
                pid = self.swport[(e[1], e[2])] if e[0] == "S" else self.PS + e[1]
                (self.lk_pa if side == 0 else self.lk_pb)[l] = pid
        self.p_edr = self.lk_edr[self.p_link]
        self.p_peer = np.where(self.p_side == 0, self.lk_pb[self.p_link], self.lk_pa[self.p_link])
        self.p_legacy = np.zeros(self.P, bool)
        self.p_legacy[:self.PS] = self.legacy[self.p_sw[:self.PS]]

    def port_of(self, sw, num):
        return self.swport[(sw, num)]

    def hca_port(self, h):
        return self.PS + h

    def ident(self, p):
        return {"device": self.p_dev[p], "port": self.p_port[p]}


# --------------------------------------------------------------------------------------------------
# the scenario
# --------------------------------------------------------------------------------------------------
class Job:
    def __init__(self, name, nodes, start, end, kind, rng):
        self.name, self.nodes, self.start, self.end, self.kind = name, list(nodes), start, end, kind
        self.peak = rng.uniform(0.78, 0.92)
        self.comm = rng.uniform(0.32, 0.55) if kind == "dense" else rng.uniform(0.22, 0.32)
        self.beat = rng.uniform(40, 200)
        self.phase = rng.uniform(0, 6.28)
        self.a2a, self.ckpt, self.evals, self.stalls = [], [], [], []
        self.restore = None


class Sim:
    def __init__(self, site: Site, seed: int, hours: float):
        self.s = site
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.DUR = int(round(hours * 60)) * 60
        self.train = int(round(self.DUR / 60 * 90 / 330)) * 60
        self.Ls = self.DUR - self.train
        self.NT = int((self.DUR + 400) // DT) + 2
        self.tg = np.arange(self.NT) * DT
        self.faults, self.healthy = [], []
        self.down = []          # (link, a, b, phys_a, phys_b, count_ld, retrain)
        self.sw_down = []       # (sw, a, b)
        self.host_off = []      # (host name, a, b)  node_exporter silent
        self.resets = {}        # port -> [(t, "all"|"pm")]
        self.wmod = []          # (link, a, b, factor) AR weight changes
        self.width = {}         # link -> (t, "2x")
        self.used_links, self.used_ports = set(), set()
        self.fault_starts = []
        self.ev = {k: {} for k in KEYS}
        self.raw_over = {}      # port -> array of true raw BER (NT)
        self.temp_over = {}     # port -> array (NT)

    # ---- helpers
    def ix(self, t):
        return int(np.clip(t // DT, 0, self.NT - 1))

    def at(self, lo, hi, sep=240, avoid_outage=True, dur=0, avoid=()):
        for _ in range(3000):
            t = self.train + self.rng.uniform(lo, hi) * self.Ls
            t = int(t // 60) * 60
            if t < self.train + 60:
                continue
            if any(abs(t - x) < sep for x in self.fault_starts):
                continue
            if avoid_outage and hasattr(self, "outage") and self.outage[0] - 120 <= t <= self.outage[1] + 60:
                continue
            if any(t < b and t + dur > a for a, b in avoid):
                continue
            return t
        raise RuntimeError("no time slot")

    def add_ev(self, key, port, a, b, rate):
        """Poisson events at `rate` per second (scalar or per-grid-step array over [a, b))."""
        i0, i1 = self.ix(a), self.ix(b)
        if i1 <= i0:
            return
        arr = self.ev[key].setdefault(port, np.zeros(self.NT, np.int64))
        lam = np.broadcast_to(np.asarray(rate, float), (i1 - i0,)) * DT
        arr[i0:i1] += self.rng.poisson(np.maximum(lam, 0))

    def add_n(self, key, port, t, n=1):
        arr = self.ev[key].setdefault(port, np.zeros(self.NT, np.int64))
        arr[self.ix(t)] += n

    def ns(self, t):
        return T0_NS + int(round(t * 1e9))

    def reset(self, port, t, kind):
        self.resets.setdefault(port, []).append((t, kind))

    def fault(self, kind, ports, a, b, signature, peer_ends=(), related=(), device=None, slow=False):
        s = self.s
        if device is None:
            dev = s.p_dev[ports[0]]
            pn = [s.p_port[p] for p in ports]
            sw = s.p_sw[ports[0]]
        else:
            dev, pn, sw = s.sw_name[device], ["*"], device
        f = {"kind": kind, "device": dev, "ports": pn, "start_ns": self.ns(a), "end_ns": self.ns(min(b, self.DUR)),
             "peer_ends": [s.ident(p) for p in peer_ends], "related": list(related), "signature": signature}
        if sw >= 0:
            f["node_guid"], f["node_desc"] = s.sw_guid[sw], s.sw_desc[sw]
        if slow:
            f["slow"] = True
        self.faults.append(f)
        self.fault_starts.append(a)

    def healthy_ev(self, kind, where, a, b, note, background=False, planned=False):
        e = {"kind": kind, "where": list(where), "start_ns": self.ns(max(a, 0)), "end_ns": self.ns(min(b, self.DUR)),
             "note": note}
        if background:
            e["background"] = True
        if planned:
            e["planned"] = True
        self.healthy.append(e)

    def where_ports(self, ports):
        return [f"{self.s.p_dev[p]}:{self.s.p_port[p]}" for p in ports]

    def related_ports(self, ports):
        by = {}
        for p in ports:
            by.setdefault(self.s.p_dev[p], []).append(self.s.p_port[p])
        return [{"device": d, "ports": v} for d, v in by.items()]

    def link_ports(self, l):
        return self.s.lk_pa[l], self.s.lk_pb[l]

    def link_down(self, l, a, b, phys_a=2, phys_b=2, count=True, retrain=True):
        self.down.append((l, a, b, phys_a, phys_b, count, retrain))

    # ---------------------------------------------------------------------------------------------
    def schedule(self):
        s, R, D = self.s, self.rng, self.DUR
        m = 60
        # sweep outage first (other picks avoid it)
        o0 = int((self.train + R.uniform(0.12, 0.9) * self.Ls) // 60) * 60 + 20
        self.outage = (o0, o0 + int(R.uniform(270, 330)))

        perm = [int(x) for x in R.permutation(NSU)]
        suA, suC, suD = perm[:2], perm[2], perm[3]
        u_fw = suA[1]                      # the upgraded leaves are in one half of the MoE job
        self.u_fw, self.suA, self.suC, self.suD = u_fw, suA, suC, suD
        nodes = lambda u, lo, hi: [u * NPS + i for i in range(lo, hi)]
        jobs = []

        # --- maintenance timeline: firmware upgrade of two leaves of u_fw
        F0 = int((self.train + R.uniform(0.2, 0.42) * self.Ls) // 60) * 60
        rA, rB = [int(x) for x in R.choice(NRAIL, 2, replace=False)]
        la = F0 + R.uniform(300, 420)
        la_up = la + R.uniform(240, 360)
        lb = la_up + R.uniform(600, 900)
        lb_up = lb + R.uniform(240, 360)
        resume = lb_up + R.uniform(480, 720)
        self.fw = (F0, (rA, la, la_up), (rB, lb, lb_up), resume)

        # --- MoE job over two SUs: checkpointed and stopped before the drain, restarted after
        moe_nodes = nodes(suA[0], 0, 32) + nodes(suA[1], 0, 28)
        a0 = R.uniform(5, 12) * m
        stopA = F0 - R.uniform(60, 180)
        A1 = Job("moe-pretrain", moe_nodes, a0, stopA, "moe", R)
        A2 = Job("moe-pretrain", moe_nodes, resume, D + 600, "moe", R)
        A2.peak, A2.comm, A2.beat, A2.phase = A1.peak, A1.comm, A1.beat, A1.phase
        for J_ in (A1, A2):
            t = J_.start + R.uniform(7, 11) * m
            while t < min(J_.end, D) - 60:
                d = R.uniform(150, 300)
                J_.a2a.append((t, min(t + d, J_.end)))
                t += d + R.uniform(12, 22) * m
            t = J_.start + R.uniform(26, 38) * m
            while t < min(J_.end, D) - 420:
                d = R.uniform(150, 270)
                J_.ckpt.append((t, t + d))
                t += d + R.uniform(50, 70) * m
            J_.restore = (J_.start + 5, J_.start + R.uniform(60, 110))
        A1.a2a = [(x, y) for x, y in A1.a2a if y < stopA - 300]
        A1.ckpt = [(x, y) for x, y in A1.ckpt if y < stopA - 600]
        A1.ckpt.append((stopA - R.uniform(200, 260), stopA - 15))     # save before the maintenance
        self.moe_off = (stopA - 60, resume + 600)
        jobs += [A1, A2]
        A = A1

        # --- dense jobs in suC
        b_end = self.train + R.uniform(0.35, 0.7) * self.Ls
        B = Job("dense-7b", nodes(suC, 0, 24), -3600, b_end, "dense", R)
        b2s = b_end + R.uniform(4, 12) * m
        B2 = Job("dense-13b", nodes(suC, 0, 16), b2s, D + 600, "dense", R)
        B2.restore = (b2s + 5, b2s + R.uniform(50, 100))
        e1s = R.uniform(14, 45) * m
        E1 = Job("sweep-lr-a", nodes(suC, 24, 30), e1s, e1s + R.uniform(20, 45) * m, "dense", R)
        E1.restore = (e1s + 5, e1s + 45)
        e2s = max(E1.end + 5 * m, self.train + R.uniform(0.2, 0.6) * self.Ls)
        E2 = Job("sweep-lr-b", nodes(suC, 24, 32), e2s, e2s + R.uniform(25, 60) * m, "dense", R)
        E2.restore = (e2s + 5, e2s + 50)
        jobs += [B, B2, E1, E2]

        # --- suD: a long VLM job, an RL job that ends, a short NCCL debug job
        C = Job("dense-vlm", nodes(suD, 0, 16), -3600, D + 600, "dense", R)
        dst = R.uniform(20, 55) * m
        Dj = Job("dense-rl", nodes(suD, 16, 28), dst, self.train + R.uniform(0.4, 0.85) * self.Ls, "dense", R)
        Dj.restore = (dst + 5, dst + 70)
        e3s = R.uniform(8, 30) * m
        E3 = Job("debug-nccl", nodes(suD, 28, 32), e3s, e3s + R.uniform(10, 25) * m, "dense", R)
        jobs += [C, Dj, E3]
        self.dense_long = [B, B2, C, Dj]

        for j in jobs:
            if j.kind == "dense":
                t = max(j.start, 0) + R.uniform(30, 45) * m
                while t < min(j.end, D):
                    d = R.uniform(90, 180)
                    j.evals.append((t, t + d))
                    t += d + R.uniform(30, 45) * m
                if j.end - j.start > 40 * m:
                    t = max(j.start, -600) + R.uniform(35, 65) * m
                    while t < min(j.end, D) - 120:
                        d = R.uniform(60, 150)
                        j.ckpt.append((t, t + d))
                        t += d + R.uniform(55, 85) * m
        self.jobs = jobs

        # healthy: job starts/stops, all-to-all, storage bursts
        def job_where(j):
            sus = sorted({n // NPS for n in j.nodes})
            w = [f"{s.sw_name[u * 8 + r]}:*" for u in sus for r in range(NRAIL)]
            w += [f"{s.sw_name[32 + u * 8 + q]}:*" for u in sus for q in range(NSP)]
            w += [f"{s.h_host[n * 8]}:*" for n in j.nodes]
            if len(sus) > 1:
                w += [f"{s.sw_name[64 + c]}:*" for c in range(16)]
            return w

        for j in jobs:
            if 0 <= j.start < D:
                self.healthy_ev("job_start", job_where(j), j.start, j.start + 300,
                                f"{j.name} on {len(j.nodes)} nodes: restore from storage, NCCL warm-up")
            if 0 <= j.end < D:
                self.healthy_ev("job_stop", job_where(j), j.end - 60, j.end + 180, f"{j.name} ends")
        sus = sorted(set(suA))
        a2a_where = [f"{s.sw_name[u * 8 + r]}:*" for u in sus for r in range(NRAIL)]
        a2a_where += [f"{s.sw_name[32 + u * 8 + q]}:*" for u in sus for q in range(NSP)]
        a2a_where += [f"{s.sw_name[64 + c]}:*" for c in range(16)]
        for a, b in A1.a2a + A2.a2a:
            self.healthy_ev("alltoall_phase", a2a_where, a, b, "MoE expert all-to-all: xmit_wait on spine/core ports")
        stor_where = ["ib-stl01:*", "ib-stl02:*"] + [f"{s.sw_name[64 + 2 * q + 1]}:*" for q in range(NSP)]
        for j in jobs:
            for a, b in j.ckpt:
                if b > 0 and a < D:
                    self.healthy_ev("storage_burst", stor_where, a, b,
                                    f"{j.name} checkpoint: storage ports saturated, xmit_wait on ports feeding them")

        # firmware upgrade events
        fw_notes = []
        for (r, a, b) in ((rA, la, la_up), (rB, lb, lb_up)):
            leaf = u_fw * 8 + r
            for n in range(u_fw * NPS, (u_fw + 1) * NPS):
                self.link_down(s.L_HL[n, r], a, b, 2, 2, True, True)
            for q in range(NSP):
                for k in range(4):
                    self.link_down(s.L_LS[u_fw, r, q, k], a, b, 2, 2, True, True)
            self.sw_down.append((leaf, a, b))
            for p in range(s.PS):
                if s.p_sw[p] == leaf:
                    self.reset(p, b, "all")
                    self.used_ports.add(p)
            far = [s.p_peer[p] for p in range(s.PS) if s.p_sw[p] == leaf]
            self.healthy_ev("firmware_upgrade", [f"{s.sw_name[leaf]}:*"] + self.where_ports(far), a - 60, b + 240,
                            f"planned rolling MLNX-OS upgrade of {s.sw_name[leaf]} (SU drained): switch absent "
                            f"{(b - a) / 60:.1f} min, links down/up, counters restart", planned=True)
            fw_notes.append(s.sw_name[leaf])
        self.healthy_ev("su_drain", [f"{s.sw_name[u_fw * 8 + r]}:*" for r in range(NRAIL)]
                        + [f"{s.sw_name[32 + u_fw * 8 + q]}:*" for q in range(NSP)],
                        F0 - 300, resume + 300, f"su{u_fw + 1} drained for the firmware upgrade of "
                        + " and ".join(fw_notes), planned=True)

        # node drain + reboot (an idle node of suA[1])
        nb = suD * NPS + int(R.integers(28, 32))
        rb = int((max(self.train, E3.end + 300) + R.uniform(0.1, 0.85) * (self.DUR - max(self.train, E3.end + 300)))
                 // 60) * 60 + 10
        lup = rb + R.uniform(460, 500)
        for r in range(NRAIL):
            self.link_down(s.L_HL[nb, r], rb + 25, lup + R.uniform(0, 8), 2, 2, True, True)
            self.reset(s.hca_port(nb * 8 + r), lup - 5, "all")
        self.host_off.append((s.h_host[nb * 8], rb + 15, lup + R.uniform(40, 70)))
        lp = [s.lk_pb[s.L_HL[nb, r]] for r in range(NRAIL)]
        hp_ = [s.hca_port(nb * 8 + r) for r in range(NRAIL)]
        self.used_ports.update(lp + hp_)
        self.healthy_ev("node_reboot", self.where_ports(lp + hp_) + [f"{s.h_host[nb * 8]}:*"], rb, rb + 600,
                        f"{s.h_host[nb * 8]} drained and rebooted (kernel update): 8 HCA links down ~8 min",
                        planned=True)

        # sweep outage (stl01 port 36 to mgmt01 bounces)
        self.link_down(s.L_MG, self.outage[0] + 2, self.outage[0] + 40, 2, 2, True, False)
        self.healthy_ev("sweep_outage", ["*"], self.outage[0] - 60, self.outage[1] + 60,
                        "no ibdiag_port lines: mgmt01 HCA in mlx5 health recovery, ibdiagnet failed")

        # ---------------- faults
        self.place_faults(A, self.dense_long, suA, suC, u_fw, (rB, lb_up))

        # counter clear by an operator: healthy ports
        K = int((self.train + R.uniform(0.1, 0.9) * self.Ls) // 60) * 60 + 33
        cand = [p for p in range(s.PS) if s.p_sw[p] < 80 and p not in self.used_ports
                and s.p_link[p] not in self.used_links]
        cl = [int(x) for x in R.choice(cand, int(R.integers(4, 7)), replace=False)]
        for p in cl:
            self.reset(p, K, "pm")
        self.healthy_ev("counter_clear", self.where_ports(cl), K - 30, K + 90,
                        "operator ran perfquery -x -R on these ports: every PM counter to 0, no reboot")
        self.cleared = cl

        # background symbol errors on long optical spine-core links
        sc = [l for l in s.L_SC.ravel() if l not in self.used_links]
        nbg = int(len(sc) * 0.06)
        bg = [int(x) for x in R.choice(sc, nbg, replace=False)]
        bgp = []
        for l in bg:
            ends = [s.lk_pa[l], s.lk_pb[l]]
            which = ends if R.random() < 0.3 else [ends[int(R.integers(2))]]
            for p in which:
                rate = R.uniform(0.5, 4) / 3600
                self.add_ev("sym", p, 0, self.DUR + 300, rate)
                self.pre_sym = getattr(self, "pre_sym", {})
                self.pre_sym[p] = int(R.poisson(rate * 7200))
                if R.random() < 0.35:
                    self.add_ev("ler", p, 0, self.DUR + 300, R.uniform(0.03, 0.12) / 3600)
                self.raw_base_mult = getattr(self, "raw_base_mult", {})
                self.raw_base_mult[p] = R.uniform(3, 12)
                bgp.append(p)
        self.healthy_ev("background_symbol_errors", self.where_ports(bgp), 0, self.DUR,
                        "sporadic post-FEC symbol errors / link_error_recovery on long optical spine-core links",
                        background=True)
        stl_down = [p for p in range(s.PS) if s.p_sw[p] >= 80 and s.p_num[p] <= 8]
        self.healthy_ev("legacy_counter_saturated", self.where_ports(stl_down), 0, self.DUR,
                        "MSB7800 32-bit port_xmit_wait pinned at 4294967295 on storage-facing ports",
                        background=True)

    # ---------------------------------------------------------------------------------------------
    def place_faults(self, A, Bs, suA, suC, u_fw, fw_b):
        s, R, D = self.s, self.rng, self.DUR
        m = 60
        rngi = lambda n: int(R.integers(n))

        def free_link(l):
            return l not in self.used_links and s.lk_pa[l] not in self.used_ports and s.lk_pb[l] not in self.used_ports

        def take(l):
            self.used_links.add(int(l))
            self.used_ports.update([int(s.lk_pa[l]), int(s.lk_pb[l])])

        # 1. credit loop on a spine of an MoE SU
        ux = suA[rngi(2)]
        sx = rngi(NSP)
        X = 32 + ux * 8 + sx
        S1 = self.at(0.15, 0.8, dur=46 * m, avoid=[self.moe_off])
        E1 = S1 + R.uniform(25, 45) * m
        self.cl = (ux, sx, S1, E1)
        xports = [p for p in range(s.PS) if s.p_sw[p] == X]
        nbr = [int(s.p_peer[p]) for p in xports]
        for p in xports:
            self.used_ports.add(p)
        for l in list(s.L_LS[ux, :, sx, :].ravel()) + list(s.L_SC[ux, sx, :]):
            self.used_links.add(int(l))
        self.fault("credit_loop", xports, S1, E1,
                   "port_xmit_wait near saturation on every port of the spine within minutes, its data "
                   "throughput collapses to ~3%, port_xmit_discards (HoQ lifetime) rise; AR shifts load to "
                   "sibling spines; leaf/core ports facing it wait too (related)",
                   related=self.related_ports(nbr), device=X)

        # 2. optical module overheating: a spine uplink cage
        while True:
            u2, s2 = rngi(NSU), rngi(NSP)
            if (u2, s2) == (ux, sx):
                continue
            q = rngi(15)
            l1, l2 = s.L_SC[u2, s2, 2 * q], s.L_SC[u2, s2, 2 * q + 1]
            if free_link(l1) and free_link(l2):
                break
        take(l1), take(l2)
        S2 = self.at(0.02, 0.22)
        heat = R.uniform(75, 85) * m
        base = R.uniform(50.5, 53.5)
        i0 = self.ix(S2)
        x = np.clip((self.tg - S2) / heat, 0, None)
        ramp = np.where(x <= 1, base + (80 - base) * x ** 1.15, 80 + 1.5 * (1 - np.exp(-(x - 1) * 3)))
        ramp[:i0] = base
        near = [s.lk_pa[l1], s.lk_pa[l2]]
        far = [s.lk_pb[l1], s.lk_pb[l2]]
        self.heat = (int(near[0]), base, (ramp - base).astype(float))   # delta over the cage's normal reading
        Tt = ramp
        for j, p in enumerate(near):
            w = 1.0 if j == 0 else R.uniform(0.3, 0.7)
            self.raw_over[p] = ("mult", np.where(Tt > 66, 10 ** ((Tt - 66) / 5.0), 1.0))
            self.add_ev("sym", p, S2, D + 300, w * np.where(Tt[i0:self.ix(D + 300)] > 73,
                                                          0.02 * 10 ** ((Tt[i0:self.ix(D + 300)] - 73) / 2.5), 0))
            self.add_ev("ler", p, S2, D + 300, np.where(Tt[i0:self.ix(D + 300)] > 78, w / 700, 0))
        for j, p in enumerate(far):
            w = 0.3 if j == 0 else 0.15
            self.raw_over[p] = ("mult", np.where(Tt > 68, 10 ** ((Tt - 68) / 6.0), 1.0))
            self.add_ev("sym", p, S2, D + 300, w * np.where(Tt[i0:self.ix(D + 300)] > 74,
                                                          0.02 * 10 ** ((Tt[i0:self.ix(D + 300)] - 74) / 2.5), 0))
        self.fault("optical_module_overheating", near, S2, D,
                   f"twin-port OSFP cage temperature {base:.0f} -> 80 C over {heat / 60:.0f} min then ~80 C "
                   "(module_temperature, both ports of the cage); raw BER up past ~66 C, post-FEC symbol errors "
                   "past ~74 C, the core ends see less", peer_ends=far, slow=True)

        # 3. pre-FEC BER ramp on a spine-core link
        while True:
            l3 = s.L_SC[rngi(NSU), rngi(NSP), rngi(31)]
            if free_link(l3):
                break
        take(l3)
        S3 = self.at(0.02, 0.15)
        rx = [s.lk_pa[l3], s.lk_pb[l3]][rngi(2)]
        raw0 = 10 ** R.uniform(-8.3, -7.7)
        x = np.clip((self.tg - S3) / 7200.0, 0, None)
        ber = np.where(x <= 1, raw0 * (5e-5 / raw0) ** x, 5e-5 * (1 + 0.4 * (x - 1)))
        ber[self.tg < S3] = raw0
        self.raw_over[rx] = ("abs", ber)
        eff = np.where(ber > 1e-5, BITS_NDR * 1e-15 * (ber / 1e-5) ** 5, 0)
        i0 = self.ix(S3)
        self.add_ev("sym", rx, S3, D + 300, eff[i0:self.ix(D + 300)])
        self.add_ev("rcv", rx, S3, D + 300, 0.6 * eff[i0:self.ix(D + 300)])
        self.fault("pre_fec_ber_degradation", [rx], S3, D,
                   "true pre-FEC BER ramps ~1e-8 -> 5e-5 over ~2 h (rs_fec_corrected_blocks accelerate, raw_ber "
                   "running average rises); effective BER and symbol errors only in the last ~30 min",
                   peer_ends=[s.p_peer[rx]], slow=True)

        # 4. switch relay errors on a group of host ports of one leaf (MoE hosts)
        u4 = suA[0]
        r4 = rngi(NRAIL)
        n0 = rngi(NPS - 8)
        g4 = int(R.integers(4, 9))
        grp_nodes = [u4 * NPS + n0 + i for i in range(g4)]
        S4 = self.at(0.1, 0.8, dur=71 * m, avoid=[self.moe_off])
        E4 = S4 + R.uniform(35, 70) * m
        g_ports = [s.lk_pb[s.L_HL[n, r4]] for n in grp_nodes]
        for n in grp_nodes:
            take(s.L_HL[n, r4])
        self.relay = (grp_nodes, r4, S4, E4, [R.uniform(2e-6, 1.2e-5) for _ in grp_nodes])
        self.fault("switch_relay_errors", g_ports, S4, E4,
                   "after an opensm re-route, port_rcv_switch_relay_errors on a group of host-facing ports of "
                   "one leaf in proportion to their received packets, until the next heavy sweep",
                   peer_ends=[s.p_peer[p] for p in g_ports])

        # 5. HCA that stops returning credits: a host of a dense job in suC
        for _ in range(200):
            S5 = self.at(0.1, 0.8)
            E5 = S5 + R.uniform(15, 25) * m
            jobs = [j for j in Bs if j.start + 600 <= S5 and E5 + 600 <= j.end]
            if jobs:
                break
        J5 = jobs[0]
        n5 = J5.nodes[rngi(len(J5.nodes))]
        r5 = rngi(NRAIL)
        l5 = s.L_HL[n5, r5]
        take(l5)
        J5.stalls.append((S5, E5 + 150 + R.uniform(120, 300)))
        bounce = (E5, E5 + R.uniform(60, 90))
        self.link_down(l5, bounce[0], bounce[1], 2, 2, True, True)
        self.reset(s.hca_port(n5 * 8 + r5), bounce[0] + 1, "all")
        self.hca = (n5, r5, S5, E5, J5)
        rel = []
        for n in J5.nodes:
            if n != n5:
                rel += [s.lk_pb[s.L_HL[n, r5]], s.hca_port(n * 8 + r5)]
        self.fault("hca_credit_starvation", [s.lk_pb[l5]], S5, bounce[1],
                   "HCA stops returning credits: port_xmit_wait on the leaf port to it near saturation, its "
                   "receive bytes ~0, port_xmit_discards (HoQ) rising; its job stalls (job peers on the same rail "
                   "wait: related); ends with an HCA reset (link bounce)",
                   peer_ends=[s.hca_port(n5 * 8 + r5)], related=self.related_ports(rel))

        # 6. link left down after a reseat: a leaf uplink
        while True:
            u6 = [suA[0], suA[1], suC][rngi(3)]
            l6 = s.L_LS[u6, rngi(NRAIL), rngi(NSP), rngi(4)]
            if free_link(l6):
                break
        take(l6)
        S6 = self.at(0.1, 0.9)
        self.link_down(l6, S6, D + 1000, 3, 2, True, False)
        self.fault("link_down_after_reseat", [s.lk_pa[l6]], S6, D,
                   "leaf uplink reseated and left down: leaf end port_state 1 / port_phy_state 3 (Disabled), spine "
                   "end 1 / 2 (Polling), link_downed +1, no traffic, gone from ib_link, never recovered",
                   peer_ends=[s.lk_pb[l6]])

        # 7. flapping link (spine-core or leaf-spine)
        def flapping(l, S, dur):
            t, first = S, True
            while t < S + dur:
                for _ in range(int(R.integers(2, 7))):
                    d = R.uniform(4, 35)
                    ph = 6 if R.random() < 0.3 else 2
                    self.link_down(l, t, t + d, ph, ph, True, True)
                    t += d + R.uniform(5, 40)
                for p in self.link_ports(l):
                    self.add_n("ler", p, t + R.uniform(10, 60), int(R.integers(1, 3)))
                t += R.uniform(180, 480)
            return t

        while True:
            l7 = s.L_SC[rngi(NSU), rngi(NSP), rngi(31)] if R.random() < 0.5 else \
                s.L_LS[suA[rngi(2)], rngi(NRAIL), rngi(NSP), rngi(4)]
            if free_link(l7):
                break
        take(l7)
        S7 = self.at(0.1, 0.8)
        e7 = flapping(l7, S7, R.uniform(15, 30) * m)
        self.fault("flapping_link", [s.lk_pa[l7]], S7, e7,
                   "bursts of 2-6 down/up cycles (3-20 s down): link_downed and link_error_recovery step at both "
                   "ends, state Down/Polling when a sweep lands in a down, traffic gaps, symbol errors at re-train",
                   peer_ends=[s.lk_pb[l7]])

        # 8. reduced width after the firmware upgrade of leaf B
        rB, lb_up = fw_b
        l8 = s.L_LS[u_fw, rB, rngi(NSP), rngi(4)]
        take(l8)
        self.width[int(l8)] = (lb_up, "2x")
        self.wmod.append((int(l8), lb_up, D + 1000, 0.5))
        S8 = int(lb_up // 60) * 60          # label on the sweep-minute grid, just before the link came up
        self.fault("degraded_link_width", [s.lk_pa[l8]], S8, D,
                   "after the leaf firmware upgrade this uplink trained at 2x: link_width_active \"2x\" at both ends, "
                   "about half its siblings' bytes, more port_xmit_wait under load", peer_ends=[s.lk_pb[l8]])
        self.fault_starts[-1] = -10**9   # on the maintenance timeline, not a free pick

        # 9. MSB7800 16-bit symbol counter saturating: a storage uplink
        l9 = s.L_CS[rngi(2), rngi(NSP), rngi(2)]
        take(l9)
        S9 = self.at(0.04, 0.3)
        p9 = s.lk_pa[l9]
        i0, i1 = self.ix(S9), self.ix(D + 300)
        x = (self.tg[i0:i1] - S9) / 1800.0
        rate = (6 + 54 * np.clip(x, 0, 1)) * np.exp(R.normal(0, 0.25, i1 - i0))
        self.add_ev("sym", p9, S9, D + 300, rate)
        self.add_ev("rcv", p9, S9, D + 300, 0.03 * rate)
        t = S9 + R.uniform(120, 400)
        while t < D + 300:
            self.add_n("ler", p9, t)
            t += R.uniform(360, 900)
        self.add_ev("sym", s.lk_pb[l9], S9, D + 300, 0.05 * rate)
        self.sat9 = (p9, S9)
        self.fault("symbol_counter_saturated", [p9], S9, D,
                   "MSB7800 (legacy 16-bit PortCounters) storage uplink with a bad AOC: symbol errors 6-60/s until "
                   "symbol_error_counter sticks at 65535 while errors continue; port_rcv_errors ~3% of them, "
                   "link_error_recovery every 6-15 min; the core end (64-bit) sees ~5%",
                   peer_ends=[s.lk_pb[l9]])

        # 10. excessive buffer overrun on a host port of the MoE job (other leaf than 4.)
        while True:
            n10 = A.nodes[rngi(len(A.nodes))]
            r10 = rngi(NRAIL)
            l10 = s.L_HL[n10, r10]
            if free_link(l10) and not (n10 // NPS == u4 and r10 == r4):
                break
        take(l10)
        S10 = self.at(0.1, 0.8, dur=15 * m, avoid=[self.moe_off])
        E10 = min(D, S10 + R.uniform(40, 100) * m)
        p10 = s.lk_pb[l10]
        i0, i1 = self.ix(S10), self.ix(E10)
        ebo = R.uniform(0.04, 0.25) * np.exp(R.normal(0, 0.9, i1 - i0))
        self.add_ev("ebo", p10, S10, E10, ebo)
        self.add_ev("rcv", p10, S10, E10, ebo * R.uniform(3, 9))
        self.fault("excessive_buffer_overrun", [p10], S10, E10,
                   "HCA sends past its credits: excessive_buffer_overrun_errors and port_rcv_errors climb on the "
                   "leaf port receiving from it", peer_ends=[s.hca_port(n10 * 8 + r10)])

        # 11. marginal leaf-spine cable: rcv errors at the spine end, remote physical errors downstream
        self.marginal = []

        def marginal(l, S):
            self.marginal.append((int(l), S, R.uniform(1e-7, 3e-7), R.uniform(1e-5, 3e-5)))

        while True:
            u11 = suA[rngi(2)]
            s11 = rngi(NSP)
            l11 = s.L_LS[u11, rngi(NRAIL), s11, rngi(4)]
            if free_link(l11) and (u11, s11) != (ux, sx):
                break
        take(l11)
        S11 = self.at(0.05, 0.8, dur=15 * m, avoid=[self.moe_off])
        marginal(l11, S11)
        down = [s.lk_pb[l] for l in s.L_SC[u11, s11, :]]
        self.fault("marginal_cable_rcv_errors", [s.lk_pb[l11]], S11, D,
                   "marginal leaf-spine cable: steady port_rcv_errors (+ post-FEC symbol errors, raw BER ~1e-5) at "
                   "the receiving spine port in proportion to its traffic, ~15% of that at the leaf end; stomped "
                   "packets show as port_rcv_remote_physical_errors on the core ports downstream (related)",
                   peer_ends=[s.lk_pa[l11]], related=self.related_ports(down))

        # 12. (some seeds) a second flapping link or marginal cable
        extra = R.random()
        if extra < 0.35:
            while True:
                n12 = A.nodes[rngi(len(A.nodes))]
                l12 = s.L_HL[n12, rngi(NRAIL)]
                if free_link(l12):
                    break
            take(l12)
            S12 = self.at(0.1, 0.85, dur=21 * m, avoid=[self.moe_off])
            e12 = flapping(l12, S12, R.uniform(10, 20) * m)
            self.fault("flapping_link", [s.lk_pb[l12]], S12, e12,
                       "host link flapping: link_downed / link_error_recovery step on the leaf port and the HCA, "
                       "Down/Polling when a sample lands in a down, the job's traffic gaps",
                       peer_ends=[s.lk_pa[l12]])
        elif extra < 0.7:
            while True:
                u12, s12 = suA[rngi(2)], rngi(NSP)
                l12 = s.L_SC[u12, s12, rngi(31)]
                if free_link(l12) and (u12, s12) != (ux, sx):
                    break
            take(l12)
            S12 = self.at(0.05, 0.8, dur=15 * m, avoid=[self.moe_off])
            marginal(l12, S12)
            self.fault("marginal_cable_rcv_errors", [s.lk_pb[l12]], S12, D,
                       "marginal spine-core cable: steady port_rcv_errors (+ symbol errors, raw BER ~1e-5) at the "
                       "receiving core port in proportion to its traffic, ~15% at the spine end",
                       peer_ends=[s.lk_pa[l12]])

    # ---------------------------------------------------------------------------------------------
    def render_jobs(self):
        NT, R, tg = self.NT, self.rng, self.tg
        U = np.zeros((NT, 128), np.float32)
        X = np.zeros((NT, 128), np.float32)
        A2 = np.zeros((NT, 128), np.float32)
        ckw = []   # (node list, a, b) checkpoint writers
        rst = []   # restore readers
        for j in self.jobs:
            a, b = max(j.start, 0), min(j.end, self.DUR + 400)
            if b <= a:
                continue
            i0, i1 = self.ix(a), self.ix(b)
            n = i1 - i0
            tt = tg[i0:i1]
            base = j.peak * j.comm
            u = base * (1 + 0.22 * np.sin(2 * np.pi * tt / j.beat + j.phase)) * np.exp(R.normal(0, 0.06, n))
            a2 = np.zeros(n, np.float32)
            if j.start >= 0:
                w = min(n, int(R.uniform(60, 150) / DT))
                u[:w] = R.uniform(0.02, 0.08, w)
            for (x, y) in j.evals:
                u[(tt >= x) & (tt < y)] = 0.01
            for (x, y) in j.ckpt:
                u[(tt >= x) & (tt < y)] = 0.03
                if y > 0:
                    ckw.append((j.nodes, x, y))
            for (x, y) in j.a2a:
                sel = (tt >= x) & (tt < y)
                u[sel] = R.uniform(0.7, 0.85) * np.exp(R.normal(0, 0.05, sel.sum()))
                a2[sel] = 1.0
            for (x, y) in j.stalls:
                sel = (tt >= x) & (tt < y)
                u[sel] = 0.015 * np.exp(R.normal(0, 0.3, sel.sum()))
            if j.restore:
                rst.append((j.nodes, j.restore[0], j.restore[1]))
            nodes = np.array(j.nodes)
            N = len(nodes)
            own = np.array([sum(1 for q in j.nodes if q // NPS == x // NPS) for x in nodes])
            xar = 0.5 * (N - own) / N
            xa2 = (N - own) / N
            node_noise = np.exp(R.normal(0, 0.02, (n, N)))
            U[i0:i1, nodes] = np.clip(u[:, None] * node_noise, 0, 0.97)
            X[i0:i1, nodes] = np.where(a2[:, None] > 0, xa2[None, :], xar[None, :])
            A2[i0:i1, nodes] = a2[:, None]
        # storage: checkpoint writes (storage-limited), restores, data-loader trickle
        Wn = np.zeros((NT, 128), np.float32)
        Rn = np.zeros((NT, 128), np.float32)
        wcount = np.zeros(NT)
        for nodes, a, b in ckw:
            wcount[self.ix(max(a, 0)):self.ix(b)] += len(nodes)
        for nodes, a, b in ckw:
            i0, i1 = self.ix(max(a, 0)), self.ix(b)
            tot = W_CAP * R.uniform(0.9, 0.97, i1 - i0)
            Wn[i0:i1, nodes] += (tot / (np.maximum(wcount[i0:i1], 1) * 8))[:, None]
        rcount = np.zeros(NT)
        for nodes, a, b in rst:
            rcount[self.ix(a):self.ix(b)] += len(nodes)
        for nodes, a, b in rst:
            i0, i1 = self.ix(a), self.ix(b)
            tot = W_CAP * R.uniform(0.85, 0.95, i1 - i0)
            Rn[i0:i1, nodes] += (tot / (np.maximum(rcount[i0:i1], 1) * 8))[:, None]
        Rn += (U > 0.005) * (1.2e-4 * CAPN)
        self.U, self.X, self.A2, self.Wn, self.Rn = U, X, A2, Wn, Rn

    # ---------------------------------------------------------------------------------------------
    def traffic(self):
        s, NT, R = self.s, self.NT, self.rng
        self.render_jobs()
        U, X, A2, Wn, Rn = self.U, self.X, self.A2, self.Wn, self.Rn
        ln = lambda shape, sg: np.exp(R.normal(0, sg, shape)).astype(np.float32)
        railfac = (1 + 0.015 * R.normal(0, 1, (128, NRAIL))).astype(np.float32)
        base = U[:, :, None] * np.float32(CAPN) * railfac[None]          # NT,128,8
        h2l = base * ln(base.shape, 0.02) + Wn[:, :, None]
        l2h = base * ln(base.shape, 0.02) + Rn[:, :, None]
        symu = (base * X[:, :, None]).reshape(NT, NSU, NPS, NRAIL).sum(2)
        symd = symu * ln(symu.shape, 0.015)
        storu = np.repeat(Wn.reshape(NT, NSU, NPS).sum(2)[:, :, None], NRAIL, axis=2)
        stord = np.repeat(Rn.reshape(NT, NSU, NPS).sum(2)[:, :, None], NRAIL, axis=2)

        # AR weights
        Wl = np.ones((NT, NSU, NRAIL, 32), np.float32)
        Ws = np.ones((NT, NSU, NSP, 31), np.float32)
        lspos, scpos = {}, {}
        for u in range(NSU):
            for r in range(NRAIL):
                for q in range(NSP):
                    for k in range(4):
                        lspos[int(s.L_LS[u, r, q, k])] = (u, r, q * 4 + k)
            for q in range(NSP):
                for mm in range(31):
                    scpos[int(s.L_SC[u, q, mm])] = (u, q, mm)
        mods = [(l, a, b, 0.0) for (l, a, b, *_r) in self.down] + list(self.wmod)
        if hasattr(self, "cl"):
            ux, sx, S1, E1 = self.cl
            for r in range(NRAIL):
                for k in range(4):
                    mods.append((int(s.L_LS[ux, r, sx, k]), S1, E1, 0.03))
        for (l, a, b, f) in mods:
            i0, i1 = self.ix(a), self.ix(b) + (1 if f == 0 else 0)
            if l in lspos:
                u, r, j = lspos[l]
                Wl[i0:i1, u, r, j] *= f
            elif l in scpos:
                u, q, mm = scpos[l]
                Ws[i0:i1, u, q, mm] *= f
        share = Wl / np.maximum(Wl.sum(-1, keepdims=True), 1e-9)
        ls_up = (symu + storu)[..., None] * share * ln(share.shape, 0.03)
        ls_dn = (symd + stord)[..., None] * share * ln(share.shape, 0.03)
        fs = share.reshape(NT, NSU, NRAIL, NSP, 4).sum(-1)
        sym_in = (symu[..., None] * fs).sum(2)
        stor_in = (storu[..., None] * fs).sum(2)
        sym_out = (symd[..., None] * fs).sum(2)
        stor_out = (stord[..., None] * fs).sum(2)
        shs = Ws / np.maximum(Ws.sum(-1, keepdims=True), 1e-9)
        WB = Ws[..., 16:]
        shB = WB / np.maximum(WB.sum(-1, keepdims=True), 1e-9)
        sc_up = sym_in[..., None] * shs
        sc_up[..., 16:] += stor_in[..., None] * shB
        sc_up *= ln(sc_up.shape, 0.03)
        sc_dn = sym_out[..., None] * shs
        sc_dn[..., 16:] += stor_out[..., None] * shB
        sc_dn *= ln(sc_dn.shape, 0.03)
        Wtot = storu.sum((1, 2))
        Rtot = stord.sum((1, 2))
        cs_dn = (Wtot / 32)[:, None, None, None] * ln((NT, 2, NSP, 2), 0.04)
        cs_up = (Rtot / 32)[:, None, None, None] * ln((NT, 2, NSP, 2), 0.04)
        sh_dn = (Wtot / 16)[:, None, None] * ln((NT, 8, 2), 0.03)
        sh_up = (Rtot / 16)[:, None, None] * ln((NT, 8, 2), 0.03)

        NL = s.NL
        up = np.zeros((NT, NL), np.float32)
        dn = np.zeros((NT, NL), np.float32)
        up[:, s.L_HL.ravel()] = h2l.reshape(NT, -1)
        dn[:, s.L_HL.ravel()] = l2h.reshape(NT, -1)
        up[:, s.L_SH.ravel()] = sh_up.reshape(NT, -1)   # storage host -> stl (reads)
        dn[:, s.L_SH.ravel()] = sh_dn.reshape(NT, -1)
        up[:, s.L_MG] = 2e5
        dn[:, s.L_MG] = 3e5
        up[:, s.L_LS.ravel()] = ls_up.reshape(NT, -1)
        dn[:, s.L_LS.ravel()] = ls_dn.reshape(NT, -1)
        up[:, s.L_SC.ravel()] = sc_up.reshape(NT, -1)
        dn[:, s.L_SC.ravel()] = sc_dn.reshape(NT, -1)
        up[:, s.L_CS.ravel()] = cs_up.reshape(NT, -1)
        dn[:, s.L_CS.ravel()] = cs_dn.reshape(NT, -1)
        cap = np.where(s.lk_edr, CAPE, CAPN).astype(np.float32)
        # management trickle on every live link: SA/PM MADs, IPoIB ARP and multicast
        bg = (10 ** R.uniform(3.3, 4.5, (2, NL))).astype(np.float32)
        up += bg[0] * ln((NT, NL), 0.3)
        dn += bg[1] * ln((NT, NL), 0.3)

        # xmit_wait (ticks/s) by egress: "up" = egress at end a, "dn" = egress at end b
        A2su = A2.reshape(NT, NSU, NPS).mean(2)                   # NT,4
        sb = (Wtot / W_CAP).astype(np.float32)
        rb = (Rtot / W_CAP).astype(np.float32)
        wu = np.float32(3e-4) * (up / cap) ** 2 * ln((NT, NL), 0.5)
        wd = np.float32(3e-4) * (dn / cap) ** 2 * ln((NT, NL), 0.5)
        hl = s.L_HL.ravel()
        a2n = np.repeat(A2, NRAIL, axis=1)
        un = np.repeat(U, NRAIL, axis=1)
        wu[:, hl] += 0.01 * a2n * ln((NT, 1024), 0.7)
        wd[:, hl] += (0.03 * a2n + 0.002 * un) * ln((NT, 1024), 0.7)
        ls = s.L_LS.reshape(NSU, -1)
        for u in range(NSU):
            wu[:, ls[u]] += (0.04 * A2su[:, u:u + 1] + 0.005 * sb[:, None]) * ln((NT, ls.shape[1]), 0.7)
            wd[:, ls[u]] += 0.10 * A2su[:, u:u + 1] * ln((NT, ls.shape[1]), 0.7)
            scu = s.L_SC[u].ravel()
            wu[:, scu] += 0.12 * A2su[:, u:u + 1] * ln((NT, scu.size), 0.7)
            scb = s.L_SC[u][:, 16:].ravel()
            wu[:, scb] += 0.03 * sb[:, None] * ln((NT, scb.size), 0.5)
            wd[:, scu] += 0.15 * A2su[:, u:u + 1] * ln((NT, scu.size), 0.7)
        cs = s.L_CS.ravel()
        wd[:, cs] += 0.35 * sb[:, None] * ln((NT, cs.size), 0.3)
        wu[:, cs] += 0.04 * rb[:, None] * ln((NT, cs.size), 0.5)
        sh = s.L_SH.ravel()
        wd[:, sh] += 0.6 * sb[:, None] * ln((NT, sh.size), 0.2)

        # ---- faults on traffic / waits
        def sl(a, b):
            return slice(self.ix(a), self.ix(b))

        def ramp(a, b, lo, hi, tau=240):
            t = self.tg[sl(a, b)]
            return (lo + (hi - lo) * np.clip((t - a) / tau, 0, 1)).astype(np.float32)

        if hasattr(self, "cl"):
            ux, sx, S1, E1 = self.cl
            X_ = 32 + ux * 8 + sx
            sp_ls = s.L_LS[ux, :, sx, :].ravel()
            sp_sc = s.L_SC[ux, sx, :]
            n1 = self.ix(E1) - self.ix(S1)
            r1 = ramp(S1, E1, 0.15, 0.95)[:, None]
            wd[sl(S1, E1), sp_ls] = r1 * np.exp(R.normal(0, 0.03, (n1, sp_ls.size)))  # spine egress down
            wu[sl(S1, E1), sp_sc] = r1 * np.exp(R.normal(0, 0.03, (n1, sp_sc.size)))  # spine egress up
            wu[sl(S1, E1), sp_ls] = 0.75 * r1 * np.exp(R.normal(0, 0.1, (n1, sp_ls.size)))  # leaves toward it
            wd[sl(S1, E1), sp_sc] = 0.7 * r1 * np.exp(R.normal(0, 0.1, (n1, sp_sc.size)))   # cores toward it
            up[sl(S1, E1), sp_sc] *= 0.03
            dn[sl(S1, E1), sp_sc] *= 0.03
            for l in sp_ls:
                self.add_ev("xd", s.lk_pb[l], S1, E1, ramp(S1, E1, 20, 250, 600) * R.uniform(0.5, 1.5))
            for l in sp_sc:
                self.add_ev("xd", s.lk_pa[l], S1, E1, ramp(S1, E1, 20, 250, 600) * R.uniform(0.5, 1.5))

        if hasattr(self, "hca"):
            n5, r5, S5, E5, J5 = self.hca
            l5 = s.L_HL[n5, r5]
            n = self.ix(E5) - self.ix(S5)
            dn[sl(S5, E5), l5] = 0.002 * CAPN * np.exp(R.normal(0, 0.3, n))
            wd[sl(S5, E5), l5] = 0.97 * np.exp(R.normal(0, 0.01, n))
            self.add_ev("xd", s.lk_pb[l5], S5, E5, ramp(S5, E5, 300, 1500, 300))
            for q in J5.nodes:
                if q != n5:
                    wu[sl(S5, E5), s.L_HL[q, r5]] += 0.25 * np.exp(R.normal(0, 0.3, n))

        for l, a, b, f in self.wmod:
            if f == 0.5:
                util = (up[sl(a, b), l] / CAPN)
                wu[sl(a, b), l] += 0.08 * np.clip(util * 4, 0, 1)
                wd[sl(a, b), l] += 0.05 * np.clip(util * 4, 0, 1)

        # down intervals: nothing moves
        for (l, a, b, *_r) in self.down:
            i0, i1 = self.ix(a), self.ix(b) + 1
            up[i0:i1, l] = 0
            dn[i0:i1, l] = 0
            wu[i0:i1, l] = 0
            wd[i0:i1, l] = 0
        np.clip(wu, 0, 0.985, out=wu)
        np.clip(wd, 0, 0.985, out=wd)
        self.up, self.dn = up, dn
        self.wu, self.wd = wu * np.float32(TICK), wd * np.float32(TICK)
        self.cap = cap

    # ---------------------------------------------------------------------------------------------
    def errors(self):
        """Sparse error events that depend on traffic, link-state events, PHY baselines."""
        s, R = self.s, self.rng
        # relay errors ~ received packets on the group's host-facing ports
        if hasattr(self, "relay"):
            nodes, r4, S4, E4, fr = self.relay
            i0, i1 = self.ix(S4), self.ix(E4)
            for n, f in zip(nodes, fr):
                l = s.L_HL[n, r4]
                pk = self.up[i0:i1, l] / 4000.0
                self.add_ev("relay", s.lk_pb[l], S4, E4, pk * f)
        for (l, S, frac, raw) in self.marginal:
            i0, i1 = self.ix(S), self.ix(self.DUR + 300)
            pa, pb = s.lk_pa[l], s.lk_pb[l]
            pk_b = self.up[i0:i1, l] / 4000.0        # packets arriving at end b
            pk_a = self.dn[i0:i1, l] / 4000.0
            self.add_ev("rcv", pb, S, self.DUR + 300, pk_b * frac)
            self.add_ev("sym", pb, S, self.DUR + 300, pk_b * frac * 0.8)
            self.add_ev("rcv", pa, S, self.DUR + 300, pk_a * frac * 0.15)
            self.add_ev("sym", pa, S, self.DUR + 300, pk_a * frac * 0.12)
            rb = np.full(self.NT, np.nan)
            rb[i0:] = raw
            self.raw_over[pb] = ("absnan", rb)
            if s.lk_cls[l] == "LS":
                u, q = divmod(s.p_sw[pb] - 32, 8)
                for l2 in s.L_SC[u, q, :]:
                    self.add_ev("rpe", s.lk_pb[l2], S, self.DUR + 300, pk_b * frac * 0.45 / 31.0)
        # link down / up events
        sw_dead = {}
        for sw, a, b in self.sw_down:
            sw_dead.setdefault(sw, []).append((a, b))

        def alive(p, t):
            sw = s.p_sw[p]
            return sw < 0 or all(not (a <= t < b) for a, b in sw_dead.get(sw, []))

        for (l, a, b, pa_, pb_, count, retrain) in self.down:
            for p in (s.lk_pa[l], s.lk_pb[l]):
                if count and alive(p, a):
                    self.add_n("ld", p, a)
                if retrain and b < self.DUR + 300 and alive(p, b + 1):
                    self.add_n("sym", p, b + 1, int(R.poisson(1.2)))
        # PHY baselines
        P = s.P
        raw0 = np.where(s.p_edr, 10 ** R.uniform(-14, -12, P), 10 ** R.uniform(-9, -6.5, P))
        for p, mlt in getattr(self, "raw_base_mult", {}).items():
            raw0[p] *= mlt
        self.raw0 = raw0
        # temperatures: per cage base
        cage_base = {}
        tb = {"leaf": (44, 55), "spine": (42, 53), "core": (40, 51), "stl": (35, 44)}
        self.p_tbase = np.zeros(s.PS)
        self.p_tphase = np.zeros(s.PS)
        for p in range(s.PS):
            sw = s.p_sw[p]
            key = (sw, (s.p_num[p] - 1) // 2)
            if key not in cage_base:
                lo, hi = tb[s.sw_kind[sw]]
                cage_base[key] = R.uniform(lo, hi)
                if hasattr(self, "heat") and s.p_sw[self.heat[0]] == sw and (s.p_num[self.heat[0]] - 1) // 2 == key[1]:
                    cage_base[key] = self.heat[1] - 1.0
            self.p_tbase[p] = cage_base[key]
            self.p_tphase[p] = (sw * 0.37) % 6.283

    # ---------------------------------------------------------------------------------------------
    def initial_values(self):
        s, R = self.s, self.rng
        P = s.P
        sw_days = {}
        for i in range(s.NSW):
            k = s.sw_kind[i]
            sw_days[i] = R.uniform(*{"leaf": (20, 160), "spine": (60, 300), "core": (60, 300), "stl": (400, 900)}[k])
        days = np.array([sw_days[x] if x >= 0 else R.uniform(2, 30) for x in s.p_sw])
        secs = days * 86400
        avg = R.uniform(0.04, 0.2, P)
        capb = np.where(s.p_edr, CAPE, CAPN)
        init = {}
        txb = avg * capb * secs * R.uniform(0.9, 1.1, P)
        rxb = avg * capb * secs * R.uniform(0.9, 1.1, P)
        hmask = s.p_sw < 0
        hb = R.uniform(0.01, 0.06, P) * capb * secs             # hosts: days up, float64-exact (< 2^53)
        txb[hmask] = (hb * R.uniform(0.97, 1.03, P))[hmask]
        rxb[hmask] = (hb * R.uniform(0.97, 1.03, P))[hmask]
        self.pkt = R.uniform(3300, 4050, P)
        init["tx_words"] = (txb / 4).astype(np.int64)
        init["rx_words"] = (rxb / 4).astype(np.int64)
        init["tx_pkts"] = (txb / self.pkt).astype(np.int64)
        init["rx_pkts"] = (rxb / self.pkt).astype(np.int64)
        init["wait"] = (secs * TICK * 10 ** R.uniform(-3.5, -2, P)).astype(np.int64)
        leg = s.p_legacy
        stl_down = leg & (s.p_num <= 8)
        init["wait"][stl_down] = sat(32)
        init["wait"][leg & ~stl_down] = R.integers(10**8, 3 * 10**9, (leg & ~stl_down).sum())
        init["wait"][hmask] = R.integers(0, sat(32), hmask.sum())
        hsat = hmask & (R.random(P) < 0.25)
        init["wait"][hsat] = sat(32)
        for k in KEYS:
            init[k] = np.zeros(P, np.int64)
        optical_long = np.array([s.lk_cls[l] == "SC" for l in s.p_link])
        init["sym"] = np.where(optical_long, R.poisson(30, P), R.poisson(0.6, P)) * (R.random(P) < 0.5)
        init["ld"] = R.choice([0, 0, 0, 1, 1, 2, 3, 4], P)
        init["ler"] = R.choice([0, 0, 0, 0, 1, 2, 5], P)
        init["rcv"] = R.poisson(2, P) * (R.random(P) < 0.3)
        init["xd"] = R.poisson(800, P) * (R.random(P) < 0.2) * (s.p_sw >= 32)
        init["relay"] = R.poisson(50, P) * (R.random(P) < 0.05)
        init["vl15"] = R.poisson(3, P) * (R.random(P) < 0.03)
        init["lli"] = (R.random(P) < 0.01).astype(int)
        for k in KEYS:
            init[k] = init[k].astype(np.int64)
        init["sym"][s.p_edr & ~hmask] += R.poisson(300, (s.p_edr & ~hmask).sum())
        if hasattr(self, "sat9"):
            init["sym"][self.sat9[0]] = int(R.integers(40, 600))
        self.init = init

    # ---------------------------------------------------------------------------------------------
    def cum(self):
        NT = self.NT
        self.cup = np.zeros((NT + 1, self.s.NL))
        np.cumsum(self.up.astype(np.float64) * DT, axis=0, out=self.cup[1:])
        self.cdn = np.zeros((NT + 1, self.s.NL))
        np.cumsum(self.dn.astype(np.float64) * DT, axis=0, out=self.cdn[1:])
        self.cwu = np.zeros((NT + 1, self.s.NL))
        np.cumsum(self.wu.astype(np.float64) * DT, axis=0, out=self.cwu[1:])
        self.cwd = np.zeros((NT + 1, self.s.NL))
        np.cumsum(self.wd.astype(np.float64) * DT, axis=0, out=self.cwd[1:])
        self.cev = {k: {p: np.concatenate([[0], np.cumsum(a)]) for p, a in d.items()} for k, d in self.ev.items()}
        # raw-error integrals for ports with an overridden true BER
        self.craw = {}
        for p, (mode, arr) in self.raw_over.items():
            b = self.raw0[p]
            if mode == "mult":
                ber = b * arr
            elif mode == "abs":
                ber = arr
            else:
                ber = np.where(np.isnan(arr), b, arr)
            self.craw[p] = np.concatenate([[0], np.cumsum(ber * DT)])

    def sample_rate(self, cu, rate, idx, frac, lk):
        return cu[idx, lk] + frac * rate[np.minimum(idx, self.NT - 1), lk].astype(np.float64)

    def sample(self, ports, tau):
        """Cumulative values for `ports` (array) at times tau (K x len(ports))."""
        s = self.s
        idx = np.clip((tau // DT).astype(np.int64), 0, self.NT - 1)
        frac = tau - idx * DT
        lk = s.p_link[ports][None, :]
        side = s.p_side[ports][None, :]
        txA = self.sample_rate(self.cup, self.up, idx, frac, lk)
        txB = self.sample_rate(self.cdn, self.dn, idx, frac, lk)
        tx = np.where(side == 0, txA, txB)
        rx = np.where(side == 0, txB, txA)
        wA = self.sample_rate(self.cwu, self.wu, idx, frac, lk)
        wB = self.sample_rate(self.cwd, self.wd, idx, frac, lk)
        wt = np.where(side == 0, wA, wB)
        out = {"tx": tx, "rx": rx, "wait": wt}
        col = {int(p): i for i, p in enumerate(ports)}
        for k in KEYS:
            v = np.zeros(tau.shape)
            for p, c in self.cev[k].items():
                if p in col:
                    i = col[p]
                    v[:, i] = c[idx[:, i] + 1]
            out[k] = v
        return out, idx, col

    def apply_resets(self, vals, ports, tau, col, fields, kind_ok):
        """Counters zero at a reset: value = C(t) - C(reset) after it, init + C(t) before."""
        s = self.s
        after = np.zeros(tau.shape, bool)
        base = {f: np.zeros(tau.shape) for f in fields}
        for p, lst in self.resets.items():
            if p not in col:
                continue
            i = col[p]
            for (tr, kind) in sorted(lst):
                if kind not in kind_ok:
                    continue
                m = tau[:, i] >= tr
                if not m.any():
                    continue
                one = np.array([[tr]])
                o, _, _ = self.sample(np.array([p]), one)
                after[m, i] = True
                for f in fields:
                    base[f][m, i] = -o[f][0, 0]
        return after, base

    # ---------------------------------------------------------------------------------------------
    def sweeps(self):
        """Sweep schedule: stamps and per-switch read offsets."""
        s, R = self.s, self.rng
        order = [80] + [64 + 2 * q + 1 for q in range(NSP)] + [81] + [64 + 2 * q for q in range(NSP)] \
            + list(range(32, 64)) + list(range(0, 32))
        pos = np.zeros(s.NSW)
        for i, sw in enumerate(order):
            pos[sw] = i
        stamps, reads = [], []
        busy = -1.0
        k = 0
        while 60 * k < self.DUR:
            nom = 60.0 * k
            k += 1
            if self.outage[0] <= nom < self.outage[1] or nom < busy:
                continue
            start = nom + R.uniform(0.02, 0.9)
            long_ = R.random() < 0.015
            disc = R.uniform(3.4, 4.6)
            off = disc + pos * R.uniform(0.10, 0.115) + R.uniform(0, 0.05, s.NSW)
            if long_:          # MAD time-outs/retries on one switch hold back everything after it
                q = R.integers(0, s.NSW)
                off = off + np.where(pos >= q, R.uniform(25, 60), 0)
                dur = max(off.max() + R.uniform(15, 25), R.uniform(65, 115))
            else:
                dur = off.max() + R.uniform(12, 15)
            busy = start + dur
            stamps.append(start + dur + R.uniform(0.2, 1.4))
            reads.append(start + off)
        self.stamps = np.array(stamps)
        self.reads = np.array(reads)

    def switch_values(self):
        """All switch-port field values for all sweeps: dict of (S x PS) arrays."""
        s = self.s
        ports = np.arange(s.PS)
        tau = self.reads[:, s.p_sw[ports]]
        S = tau.shape[0]
        out, idx, col = self.sample(ports, tau)
        fields = ["tx", "rx", "wait"] + KEYS
        after, base = self.apply_resets(out, ports, tau, col, fields, ("all", "pm"))
        I = self.init
        v = {}
        for f in fields:
            init = {"tx": I["tx_words"] * 4.0, "rx": I["rx_words"] * 4.0}.get(f, I.get(f))
            init = np.asarray(init[:s.PS], float)[None, :]
            v[f] = np.where(after, out[f] + base[f], out[f] + init)
        pkt = self.pkt[None, :s.PS]
        res = {}
        res["port_xmit_data"] = (v["tx"] / 4).astype(np.int64)
        res["port_rcv_data"] = (v["rx"] / 4).astype(np.int64)
        res["port_xmit_pkts"] = (v["tx"] / pkt).astype(np.int64)
        res["port_rcv_pkts"] = (v["rx"] / pkt).astype(np.int64)
        res["port_xmit_wait"] = v["wait"].astype(np.int64)
        for k in KEYS:
            res[PM[k]] = np.round(v[k]).astype(np.int64)
        leg = s.p_legacy[:s.PS]
        for k in KEYS + ["wait"]:
            name = PM.get(k, "port_xmit_wait")
            res[name][:, leg] = np.minimum(res[name][:, leg], sat(LEGACY[k]))

        # state / width / presence
        st = np.full((S, s.PS), 4, np.int8)
        ph = np.full((S, s.PS), 5, np.int8)
        present = np.ones((S, s.PS), bool)
        width = np.zeros((S, s.PS), np.int8)     # 0 "4x", 1 "2x"
        for (l, a, b, pa_, pb_, *_r) in self.down:
            for p, phys in ((s.lk_pa[l], pa_), (s.lk_pb[l], pb_)):
                if p < s.PS:
                    m = (tau[:, p] >= a) & (tau[:, p] < b)
                    st[m, p] = 1
                    ph[m, p] = phys
        for sw, a, b in self.sw_down:
            cols = np.where(s.p_sw[:s.PS] == sw)[0]
            m = (tau[:, cols] >= a - 20) & (tau[:, cols] < b + 40)
            present[:, cols] &= ~m
        for l, (t, w) in self.width.items():
            for p in (s.lk_pa[l], s.lk_pb[l]):
                if p < s.PS:
                    width[tau[:, p] >= t, p] = 1
        # PHY: since-clear BER, FEC, temperature
        clear = np.full((S, s.PS), PHY_CLEAR)
        for sw, a, b in self.sw_down:
            cols = np.where(s.p_sw[:s.PS] == sw)[0]
            clear[:, cols] = np.where(tau[:, cols] >= b, b, clear[:, cols])
        edr = s.p_edr[:s.PS][None, :]
        bits_rate = np.where(edr, BITS_EDR, BITS_NDR) * np.where(width == 1, 0.5, 1.0)
        el = np.maximum(tau - clear, 1.0)
        bits = bits_rate * el
        raw0 = self.raw0[None, :s.PS]
        raw_err = raw0 * bits
        for p, c in self.craw.items():
            if p < s.PS:
                i = col[p]
                ti = tau[:, i]
                ci = np.clip((ti // DT).astype(int), 0, self.NT - 1)
                ck = np.clip((clear[:, i] // DT).astype(int), 0, self.NT - 1)
                integral = c[ci + 1] - np.where(clear[:, i] >= 0, c[ck], 0) \
                    + np.where(clear[:, i] < 0, self.raw0[p] * (-clear[:, i]), 0)
                raw_err[:, i] = integral * bits_rate[:, i]
        # post-FEC symbol errors since the PHY clear
        symc = np.zeros((S, s.PS))
        pre = getattr(self, "pre_sym", {})
        for p, c in self.cev["sym"].items():
            if p < s.PS:
                i = col[p]
                ci = np.clip((tau[:, i] // DT).astype(int), 0, self.NT - 1)
                ck = np.clip((clear[:, i] // DT).astype(int), 0, self.NT - 1)
                symc[:, i] = c[ci + 1] - np.where(clear[:, i] >= 0, c[ck + 1], 0) + \
                    np.where(clear[:, i] < 0, pre.get(p, 0), 0)
        raw_ber = np.where(edr, np.where(symc > 0, symc / bits, BER_ZERO), raw_err / bits)
        eff_ber = np.where(symc > 0, np.where(edr, symc, 2.6 * symc) / bits, BER_ZERO)
        sym_ber = np.where(symc > 0, symc / bits, BER_ZERO)
        fec_c = np.where(edr, 0, raw_err / 1.3).astype(np.int64)
        fec_u = np.where(edr, 0, symc).astype(np.int64)
        # temperature
        ii = np.clip((tau // DT).astype(int), 0, self.NT - 1)
        lk = s.p_link[:s.PS][None, :]
        util = (self.up[ii, lk] + self.dn[ii, lk]) / (2 * self.cap[lk])
        twin = np.array([s.swport.get((s.p_sw[p], s.p_num[p] + (1 if s.p_num[p] % 2 else -1)), p)
                         for p in range(s.PS)])
        # one module per twin-port cage: one reading for both ports
        temp = self.p_tbase[None, :] + 1.0 * np.sin(2 * np.pi * tau / 2700 + self.p_tphase[None, :]) \
            + 1.25 * (util + util[:, twin])
        if hasattr(self, "heat"):
            p, base, delta = self.heat
            for q in {p, int(twin[p])}:
                temp[:, q] += delta[ii[:, q]]
        res["raw_ber"] = raw_ber
        res["effective_ber"] = eff_ber
        res["symbol_ber"] = sym_ber
        res["rs_fec_corrected_blocks"] = fec_c
        res["rs_fec_uncorrectable_blocks"] = fec_u
        res["module_temperature"] = np.round(temp).astype(np.int64)
        res["port_state"], res["port_phy_state"], res["width"] = st, ph, width
        self.sv, self.present = res, present

    # ---------------------------------------------------------------------------------------------
    def hosts(self):
        """Prometheus scrape times per instance and the node_exporter values at them."""
        s, R = self.s, self.rng
        inst = sorted({s.h_host[h] for h in range(s.NHM)}, key=lambda x: (x[:3] != "gpu", x))
        self.inst = inst
        hp = {i: [h for h in range(s.NHM) if s.h_host[h] == i] for i in inst}
        offs = {i: R.uniform(0, SCRAPE_S) for i in inst}
        J = int(self.DUR // SCRAPE_S) + 1
        times = np.zeros((J, len(inst)))
        for a, i in enumerate(inst):
            times[:, a] = offs[i] + SCRAPE_S * np.arange(J) + R.normal(0, 0.002, J)
        times = np.round(times, 3)
        ok = times < self.DUR
        for (h, a, b) in self.host_off:
            ai = inst.index(h)
            ok[(times[:, ai] >= a) & (times[:, ai] < b), ai] = False
        self.htimes, self.hok = times, ok
        ports = np.array([s.hca_port(h) for i in inst for h in hp[i]])
        col_inst = np.array([inst.index(s.h_host[p - s.PS]) for p in ports])
        tau = times[:, col_inst]
        out, idx, col = self.sample(ports, tau)
        fields = ["tx", "rx", "wait"] + KEYS
        after, base = self.apply_resets(out, ports, tau, col, fields, ("all",))
        I = self.init
        v = {}
        for f in fields:
            init = {"tx": I["tx_words"] * 4.0, "rx": I["rx_words"] * 4.0}.get(f, I.get(f))
            init = np.asarray(init, float)[None, ports]
            v[f] = np.where(after, out[f] + base[f], out[f] + init)
        pkt = self.pkt[None, ports]
        r = {}
        r["node_infiniband_port_data_received_bytes_total"] = (np.floor(v["rx"] / 4) * 4).astype(np.int64)
        r["node_infiniband_port_data_transmitted_bytes_total"] = (np.floor(v["tx"] / 4) * 4).astype(np.int64)
        r["node_infiniband_port_packets_received_total"] = (v["rx"] / pkt).astype(np.int64)
        r["node_infiniband_port_packets_transmitted_total"] = (v["tx"] / pkt).astype(np.int64)
        r["node_infiniband_port_transmit_wait_total"] = np.minimum(v["wait"], sat(32)).astype(np.int64)
        r["node_infiniband_port_errors_received_total"] = np.minimum(v["rcv"], sat(16)).astype(np.int64)
        r["node_infiniband_port_discards_transmitted_total"] = np.minimum(v["xd"], sat(16)).astype(np.int64)
        r["node_infiniband_symbol_error_total"] = np.minimum(v["sym"], sat(16)).astype(np.int64)
        r["node_infiniband_link_downed_total"] = np.minimum(v["ld"], sat(8)).astype(np.int64)
        r["node_infiniband_link_error_recovery_total"] = np.minimum(v["ler"], sat(8)).astype(np.int64)
        st = np.full(tau.shape, 4, np.int64)
        ph = np.full(tau.shape, 5, np.int64)
        for (l, a, b, pa_, pb_, *_r) in self.down:
            p = s.lk_pa[l]
            if p in col:
                i = col[p]
                m = (tau[:, i] >= a) & (tau[:, i] < b)
                st[m, i] = 1
                ph[m, i] = pa_
                m2 = (tau[:, i] >= b) & (tau[:, i] < b + 12)
                st[m2, i] = 2          # Init until the SM activates it
        edr = s.p_edr[ports][None, :]
        rate = np.where(st == 1, 1.25e9, np.where(edr, 12.5e9, 50e9)).astype(np.int64)
        r["node_infiniband_state_id"] = st
        r["node_infiniband_physical_state_id"] = ph
        r["node_infiniband_rate_bytes_per_second"] = rate
        self.hv = r
        self.hports = ports
        self.h_inst_cols = {i: [col[s.hca_port(h)] for h in hp[i]] for i in inst}

    # ---------------------------------------------------------------------------------------------
    def topo_snapshots(self):
        R = self.rng
        snaps = []
        q = 0
        while TOPO_S * q < self.DUR:
            t = TOPO_S * q + R.uniform(20, 40)
            q += 1
            if self.outage[0] - 30 <= t < self.outage[1]:
                continue
            if t < self.DUR:
                snaps.append(t)
        self.snaps = snaps

    def link_up_at(self, l, t):
        if not hasattr(self, "_dby"):
            self._dby = {}
            for (ll, a, b, *_r) in self.down:
                self._dby.setdefault(int(ll), []).append((a, b))
        for (a, b) in self._dby.get(int(l), ()):
            if a <= t < b:
                return False
        s = self.s
        for sw, a, b in self.sw_down:
            if a - 20 <= t < b + 30 and (s.p_sw[s.lk_pa[l]] == sw or s.p_sw[s.lk_pb[l]] == sw):
                return False
        for h, a, b in self.host_off:
            pa = s.lk_pa[l]
            if pa >= s.PS and s.h_host[pa - s.PS] == h and a + 10 <= t < b - 60:
                return False
        return True

    # ---------------------------------------------------------------------------------------------
    def write(self, outdir, sort=False, with_hosts=True):
        s = self.s
        os.makedirs(outdir, exist_ok=True)
        path = os.path.join(outdir, "port_counters.lp")
        sv = self.sv
        pre = [f"ibdiag_port,node_desc={s.sw_desc[s.p_sw[p]]},node_guid={s.sw_guid[s.p_sw[p]]},"
               f"port_num={s.p_num[p]} " for p in range(s.PS)]
        speed = ["EDR" if s.p_edr[p] else "NDR" for p in range(s.PS)]
        ints = [PM[k] for k in KEYS] + ["port_xmit_data", "port_rcv_data", "port_xmit_pkts", "port_rcv_pkts",
                                        "port_xmit_wait", "port_state", "port_phy_state",
                                        "rs_fec_corrected_blocks", "rs_fec_uncorrectable_blocks",
                                        "module_temperature"]
        flts = ["raw_ber", "effective_ber", "symbol_ber"]
        tmpl = ",".join(f"{n}=%di" for n in ints) + "," + ",".join(f"{n}=%.3g" for n in flts) + \
            ',link_width_active="%s",link_speed_active="%s" '
        IV = np.stack([sv[n].astype(np.int64) for n in ints], axis=-1)       # S, PS, 22
        FV = np.stack([sv[n] for n in flts], axis=-1)                        # S, PS, 3
        wnames = ("4x", "2x")
        R = self.rng
        events = []
        for k, st in enumerate(self.stamps):
            events.append((st, st + 0.05, 0, k))
        if with_hosts:
            J, NI = self.htimes.shape
            arr = self.htimes + R.uniform(0.5, 5.0, self.htimes.shape)
            jj, aa = np.nonzero(self.hok)
            for j, a_, t, av in zip(jj.tolist(), aa.tolist(), self.htimes[jj, aa].tolist(), arr[jj, aa].tolist()):
                events.append((t, av, 1, (j, a_)))
        for q, t in enumerate(self.snaps):
            events.append((t, t + 1.5, 2, q))
        if sort:
            events.sort(key=lambda e: (e[0], e[1]))
        else:   # Telegraf flushes every 10 s, in arrival order
            events.sort(key=lambda e: (-(-e[1] // 10.0), e[1]))
        if with_hosts:
            hsorted = sorted(self.hv.keys())
            htmpl = ",".join(f"{n}=%d" for n in hsorted) + " "
            HV = np.stack([self.hv[n] for n in hsorted], axis=-1)            # J, NP, 13
            hpre, hcols = [], []
            for i in self.inst:
                cols = self.h_inst_cols[i]
                hcols.append(np.array(cols))
                hpre.append([f"prometheus_remote_write,device={s.p_port[self.hports[c]]},instance={i},"
                             f"job=node,port=1 " for c in cols])
        lines = 0
        counts = {"ibdiag_port": 0, "ib_link": 0, "prometheus_remote_write": 0}
        with open(path, "w", buffering=1 << 22) as fh:
            for (ts, arrv, kind, i) in events:
                if kind == 0:
                    tsn = f"{self.ns(ts)}\n"
                    pres = self.present[i].tolist()
                    iv = IV[i].tolist()
                    fv = FV[i].tolist()
                    wi = self.sv["width"][i].tolist()
                    buf = [pre[p] + tmpl % (*iv[p], *fv[p], wnames[wi[p]], speed[p]) + tsn
                           for p in range(s.PS) if pres[p]]
                    counts["ibdiag_port"] += len(buf)
                elif kind == 1:
                    j, a_ = i
                    tsn = f"{T0_NS + int(round(self.htimes[j, a_] * 1000)) * 10**6}\n"
                    rows = HV[j, hcols[a_]].tolist()
                    buf = [pf + htmpl % tuple(r) + tsn for pf, r in zip(hpre[a_], rows)]
                    counts["prometheus_remote_write"] += len(buf)
                else:
                    t = self.snaps[i]
                    tsn = f"{self.ns(t)}\n"
                    buf = []
                    for l in range(s.NL):
                        if not self.link_up_at(l, t):
                            continue
                        w = "2x" if (l in self.width and t >= self.width[l][0]) else "4x"
                        sp = "EDR" if s.lk_edr[l] else "NDR"
                        for me, other in ((s.lk_pa[l], s.lk_pb[l]), (s.lk_pb[l], s.lk_pa[l])):
                            buf.append(self.topo_line(me, other, w, sp) + tsn)
                    counts["ib_link"] += len(buf)
                fh.write("".join(buf))
                lines += len(buf)
        self.lines, self.counts = lines, counts
        return path

    def node_info(self, p):
        s = self.s
        if p < s.PS:
            sw = s.p_sw[p]
            return s.sw_desc[sw], s.sw_guid[sw], "SW", s.p_num[p], s.sw_lid[sw]
        h = p - s.PS
        return f"{s.h_host[h]}\\ {s.h_dev[h]}", s.h_guid[h], "CA", 1, s.h_lid[h]

    def topo_line(self, me, other, w, sp):
        d, g, ty, pn, lid = self.node_info(me)
        rd, rg, rty, rpn, rlid = self.node_info(other)
        return (f"ib_link,node_desc={d},node_guid={g},node_type={ty},port_num={pn},remote_desc={rd},"
                f"remote_guid={rg},remote_port={rpn},remote_type={rty} lid={lid}i,link_speed=\"{sp}\","
                f"link_width=\"{w}\",remote_lid={rlid}i ")

    # ---------------------------------------------------------------------------------------------
    def labels(self, outdir, hours, with_hosts=True):
        s = self.s
        self.faults.sort(key=lambda f: f["start_ns"])
        tr_ns = self.ns(self.train)
        for f in self.faults:
            assert f["start_ns"] >= tr_ns, f
        lab = {
            "scenario": "ib-ibdiag-sweep", "scale": "site-4su-1024gpu", "seed": self.seed, "fabric": "ib",
            "interval_s": SWEEP_S, "sample_s": SWEEP_S, "host_sample_s": SCRAPE_S, "topology_s": TOPO_S,
            "t0_ns": T0_NS, "t_end_ns": self.ns(self.DUR), "train_until_ns": tr_ns,
            "fit_first": f"{self.train // 60}m", "hours": hours,
            "ports": s.PS + (s.NHM if with_hosts else 0), "switch_ports": s.PS, "hca_ports": s.NHM if with_hosts else 0,
            "lines": self.lines, "lines_by_measurement": self.counts,
            "identity": {
                "switch_port": "device = hostname in node_desc (MF0;<hostname>:<model>/U1), port = port_num",
                "hca_port": "device = instance (host), port = mlx5 device; ib_link maps switch ports to HCAs",
                "measurements": {"ibdiag_port": ["node_desc", "node_guid", "port_num"],
                                 "ib_link": ["node_desc", "node_guid", "node_type", "port_num", "remote_desc",
                                             "remote_guid", "remote_port", "remote_type"],
                                 "prometheus_remote_write": ["device", "instance", "job", "port"]}},
            "faults": self.faults,
            "healthy_phenomena": self.healthy,
        }
        with open(os.path.join(outdir, "labels.json"), "w") as fh:
            json.dump(lab, fh, indent=1)
        return lab


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=5.5)
    ap.add_argument("--sort", action="store_true", help="write the file time-ordered instead of arrival order")
    ap.add_argument("--no-hosts", action="store_true", help="leave out the node_exporter lines")
    a = ap.parse_args(argv)
    if a.hours < 2:
        ap.error("--hours must be at least 2")
    wall = time.time()
    site = Site()
    sim = Sim(site, a.seed, a.hours)
    sim.schedule()
    sim.traffic()
    sim.errors()
    sim.initial_values()
    sim.cum()
    sim.sweeps()
    sim.switch_values()
    sim.topo_snapshots()
    if not a.no_hosts:
        sim.hosts()
    path = sim.write(a.outdir, sort=a.sort, with_hosts=not a.no_hosts)
    lab = sim.labels(a.outdir, a.hours, with_hosts=not a.no_hosts)
    size = os.path.getsize(path)
    print(f"{path}: {sim.lines:,} lines ({', '.join(f'{k} {v:,}' for k, v in sim.counts.items())}), "
          f"{size / 1e6:.0f} MB; {len(lab['faults'])} faults, {len(lab['healthy_phenomena'])} healthy events; "
          f"fit-first {lab['fit_first']}; {time.time() - wall:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
