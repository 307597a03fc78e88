#!/usr/bin/env python3
"""Labelled NVIDIA Spectrum-X style RoCEv2 fabric telemetry for testing a degraded-link detector.

usage: python roce_spectrum_x.py OUTDIR [--seed N]          (default seed 1)

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, as Telegraf writes it into InfluxDB and as an
export of that InfluxDB gives it back, in time order) and OUTDIR/labels.json (faults and healthy
phenomena, the form /work/shared/scenarios/score.py reads). Self-contained: Python 3 + numpy only,
deterministic per seed (same seed -> byte-identical files). Another seed keeps the story but moves
every fault to another port of the same kind and shifts every time by a few minutes.

FABRIC
  2-tier leaf/spine Clos, rail-optimised, 8 rails, 1:1 (no oversubscription), Cumulus Linux 5.x on
  SN5600 (Spectrum-4, 64 x 800G OSFP cages), lossless RoCEv2 on priority/queue 3 (PFC + ECN/DCQCN),
  adaptive routing with per-packet spraying, so a leaf's uplinks carry nearly equal loads.
  - 40 GPU hosts gpu001..gpu040, 8 x 400G SuperNICs each (group 0: BlueField-3 B3140H, group 1:
    ConnectX-7), NIC of rail r is netdev NETDEV[r] (enp26s0np0 ... enp220s0np0) on the leaf of rail r.
  - 16 leaves leaf-g<group>-r<rail> (2 groups of 20 hosts x 8 rails). Group-0 leaves take their
    hosts on 10 cages broken out 2x400G (swp1s0, swp1s1 ... swp10s1); group-1 leaves on 20 cages run
    at 400G unbroken (swp1 ... swp20). Uplinks swp33..swp42: 2 x 800G to each of 5 spines
    (uplink to spine s, link l = swp(33+2s+l)).
  - 5 spines spine-01..spine-05; port swp(2L+l+1) faces leaf L (L = 8*group + rail), link l.
  - One more leaf, leaf-g2-r0 (first leaf of a third group under construction, no hosts yet), is
    cabled and brought up mid-run: its 10 uplinks and the spine ports swp33/swp34 facing it appear.
  Port series (measurement port_counters, one per tag set): 320 host NICs (role=host), 320 leaf
  host-facing ports (leaf_down), 170 leaf uplinks (leaf_up), 170 spine ports (spine) = 980.

EXPORTERS, TIMESTAMPS, FIELDS
  All lines are measurement `port_counters`. Tags (Telegraf sorts tag keys): device, peer_device,
  peer_port, port, rail, role (host | leaf_down | leaf_up | spine), speed (cabling-plan speed:
  400G for host links, 800G for leaf-spine links; a link that trained slower keeps its tag).
  Topology tags come from the NOC's cabling plan (Telegraf processors.lookup keyed on source+name;
  Telegraf's own `source`/`path`/`name`/`interface` tags are renamed to device/port or dropped).
  Integers carry the `i` suffix (Telegraf's InfluxDB output with influx_uint_support = false);
  every counter is a 64-bit counter (OpenConfig counter64, mlx5 u64): none wraps in 6 h; counters
  go back to 0 only at the documented reboots and the counter clear. Timestamps are nanoseconds.

  Switches: Telegraf inputs.gnmi (dial-in, proto encoding) against the Cumulus gNMI server. Field
  names are Telegraf's: the leaf name relative to the subscription path with '-' -> '_'; the
  lossless priority/queue key is folded into the name by the NOC's starlark before
  aggregators.merge puts one port's subscriptions sampled at the same instant on one line.
  Timestamps are the switch's notification time (ns): each switch samples on its own 10 s phase
  (0.3-8 s after the 10 s grid) with ~20 ms jitter, occasionally 0.1-0.6 s late; ports of one
  switch are a few microseconds apart.
  * 10 s SAMPLE subscription, suppress_redundant = true, heartbeat_interval = 60 s: a leaf is sent
    only when it changed since it was last sent, and at least every 60 s; a whole sync (every leaf)
    follows each (re)connect. So a line carries only the counters that moved (traffic counters
    move every sample: control traffic never stops on an up link) and every field is seen at least
    once a minute. Fields (all counter64):
      in_octets, out_octets, in_pkts, out_pkts, in_errors, in_discards, out_discards,
      carrier_transitions                      /interfaces/interface/state/counters/*
      in_fcs_errors                            /interfaces/interface/ethernet/state/counters/in-fcs-errors
      in_pause_pkts_prio3, out_pause_pkts_prio3   /qos/interfaces/interface/switch-priority[priority=3]
                                                  /state/counters/{in,out}-pause-pkts: PFC frames
                                                  received / sent for priority 3
      ecn_marked_pkts_queue3, wred_dropped_pkts_queue3, no_buffer_uc_dropped_pkts_queue3
                                               /qos/interfaces/interface/output/queues/queue[name=3]/state/*
  * ON_CHANGE subscription (written when it changes, and at every sync): oper_status and
    admin_status (strings "UP"/"DOWN", /interfaces/interface/state/*), port_speed (integer Mb/s,
    /interfaces/interface/ethernet/state/port-speed; 400000, 800000, 200000 when trained at half).
    Telegraf was (re)started at the first timestamp of the file, so every port starts with a sync.
  * 60 s SAMPLE subscription /interfaces/interface/ethernet/phy/state (own line, +0.35 s after the
    port's counter sample): corrected_bits (counter64, FEC-corrected bits), rs_fec_uncorrectable_blocks
    (counter64), effective_errors (counter64, post-FEC bit errors), raw_ber (float, pre-FEC BER of
    the worst lane over the last minute), effective_ber (float, post-FEC BER over the last minute);
    floats are written with 3 significant digits (e.g. raw_ber=2.1e-06, effective_ber=0).
  * 300 s SAMPLE subscription on the transceiver component (own line, +1.2 s): temperature_instant
    (float, deg C, the module's; both halves of a broken-out cage report the same module),
    input_power_instant_ch<N> and output_power_instant_ch<N> (float dBm per optical channel; a
    sub-port of a 2x400G breakout carries its own 4 channels: s0 ch1-4, s1 ch5-8; 400G modules
    ch1-4, 800G modules ch1-8). -40.00 dBm is no light.

  Hosts: Telegraf inputs.ethtool on every GPU node, interval 10 s, round_interval, precision 1 s
  (timestamps on the 10 s grid, now and then 1 s late), fieldpass to the counters below (raw mlx5
  `ethtool -S` names, u64), plus the plugin's own `speed` (Mb/s) and `link` (1/0):
      rx_bytes_phy, tx_bytes_phy, rx_packets_phy, tx_packets_phy, rx_crc_errors_phy,
      rx_discards_phy, rx_out_of_buffer, rx_prio3_pause (PFC frames received from the leaf),
      tx_prio3_pause (PFC frames the NIC sent), rx_pause_ctrl_phy (all pause frames received),
      np_ecn_marked_roce_packets, np_cnp_sent, rp_cnp_handled, link_down_events_phy, speed, link.
  A second ethtool instance every 60 s (collection_offset 5 s) sends rx_corrected_bits_phy and
  rx_pcs_symbol_err_phy on their own line. While a NIC's link is down the agent still reports it:
  link=0 and speed=4294967295 (ethtool's SPEED_UNKNOWN as the u32 Telegraf reads); the plugin's
  boolean interface_up and its interface/driver/namespace tags are dropped by the NOC's config.
  Irregularities: about 0.15 % of a switch's 10 s samples and 0.2 % of a host's are missing (lost
  by the collector); no lines from a switch while it reboots or its collector session is down, none
  from a host while it reboots; with suppress_redundant a counter that changed only in a lost
  sample is seen again at the next change or heartbeat.

MODEL (per 10 s interval)
  Jobs give each NIC its offered load (1 s waveforms averaged to 10 s): a 24-host pre-training job
  (all-reduce iterations of ~38 s, ~45 % communication at ~88 % of line rate, checkpoint pauses
  every 30 min), a 12-host MoE job with all-to-all phases, short jobs on 4 hosts. Traffic leaves a
  leaf for the other group's leaf of the same rail (and, during all-to-all, for other rails),
  is sprayed over every up uplink and spine (adaptive routing: near-equal shares, ~1 % noise) and
  delivered to the hosts of the destination leaf. Each end of a cable counts the same bytes and
  packets. Egress queue pressure comes from synchronized bursts, hot receivers, incast and being
  paused; ECN marks are a fraction of the packets leaving a pressured queue; above the PFC
  threshold a switch pauses the ingress ports feeding the queue (out_pause there = in_pause /
  rx_prio3_pause at the far end), two hops back (leaf -> spine -> other leaves). Physical layer:
  every receiver has its own pre-FEC BER (1e-7..1e-5, log-uniform) that follows module
  temperature (x~1.7 per 6 C; temperature follows load with a lag and the room); FEC corrects
  BER x line bits every interval whether or not traffic flows; an uncorrectable codeword happens a
  few times a day on a link and becomes an FCS error when it hits a frame.

HEALTHY PHENOMENA (labelled under healthy_phenomena; times are minutes from the start for seed 1
  +- a few minutes for other seeds; labels.json has the exact ones):
  - fit window 0-90 min (fit_first "90m"): jobs, all-to-all phases, incasts, checkpoint pauses,
    a host reboot: the variation the rest of the run has, and no fault.
  - job_start_stop: the jobs start, stop, restart (maintenance drain ~148-170, restarts after).
  - checkpoint_pause: the pre-training job stops communicating for ~70 s every 30 min.
  - all_to_all: MoE all-to-all phases (2-4 min, ~every 24 min): ECN marks on most ports of the job's
    leaves and on the spines, PFC pauses leaf->spine and spine->leaf on many ports at once.
  - incast: dataset-shard reads, 10-16 senders -> 1-3 hosts on several rails for 40-120 s: the
    target's leaf port marks heavily, its leaf pauses its uplinks, the spines facing it pause back.
  - host_reboot (~44 min, ~256 min): all 8 NIC links of a host down ~2.5 min, leaf ports see
    oper_status DOWN/UP and carrier_transitions +2; the host's counters restart from 0 and its agent
    is silent ~5 min.
  - counter_clear (~118 min): `nv action clear interface counters` on one leaf: every 10 s counter
    of its ports restarts from 0 (PHY counters are not cleared).
  - maintenance_window (~149-168): drained jobs; a group-1 leaf rebooted for an upgrade (leaf_reboot:
    no telemetry ~5.5 min, its ports and their far ends down ~5 min, all its counters restart from
    0 after boot); 4 uplinks of another leaf shut by the operator, 3 brought back (admin_down_planned).
  - spine_drain (~205-236): an operator shuts every port of one spine for ~30 min (admin DOWN on the
    spine, oper DOWN on the 32 leaf uplinks facing it); adaptive routing moves their load to the
    other four spines (+25 %), then back.
  - new_leaf (~248): leaf-g2-r0 and the spine ports facing it appear (a DOWN sync, then UP as each
    uplink comes up over ~2.5 min; control traffic only, no hosts yet).
  - collector_gap (~268-278): the collector's session to one switch is down 10 min: no lines from it,
    its counters keep counting (one big step), a full sync when it comes back.
  - optic_replaced (end of the dirty optic, ~236): the link is down ~3 min while the optic is
    swapped, then clean.
  - pfc_propagation_from_storm: the storm's pauses spreading to the leaf's uplinks and the spine
    ports facing it (also `related` of the storm fault), job_stalled_by_storm (the MoE job idles).
  - job_paced_by_half_speed_link: the pre-training job runs at the slow link's pace after ~167.
  - background (background: true): FEC-corrected bits on every link, rare uncorrectable codewords
    and single FCS errors, module temperature following load, ingress control-plane discards
    (in_discards 0.01-0.2/s on ~3 % of switch ports), missing samples and timestamp jitter.

SIZE (seed 1; other seeds within a few %): 2.47 M lines, ~0.9 GB, ~17 s and < 1 GB RSS on one core.
  By line kind: host 10 s ~690 k lines / 363 MB, switch 10 s ~1.38 M / 431 MB, switch PHY ~232 k / 58 MB,
  host PHY ~115 k / 22 MB, transceivers ~46 k / 24 MB, state changes ~1 k. 980 series x 2160 samples
  of 10 s with ~110 bytes of tags and timestamp per line cannot fit in a few hundred MB.

FAULTS (labelled under faults; device/port as the bank does; `peer_ends` = far end of the cable;
  start on 30 s boundaries after the fit window; seed-1 minutes):
  1. slow_receiver (~100-141): a host NIC (of the pre-training job) with rx_out_of_buffer rising
     (1e-5 -> 1e-3 of its received packets) that sends moderate PFC (tx_prio3_pause 80-600/s under
     load): in_pause_pkts_prio3 on its leaf port, more ECN marks there.
  2. half_speed_link (~160-end): a host link reseated in the maintenance window trains at 200G:
     port_speed 200000 / ethtool speed 200000 under a speed=400G tag; bytes capped at half, its
     leaf egress queue congests (ECN, some PFC); the whole job slows to its pace.
  3. admin_down_left (~163-end): one of the 4 uplinks shut for maintenance is not brought back when
     its 3 siblings are: admin_status DOWN on the leaf port, oper_status DOWN at both ends, counters
     flat, its load on the 9 other uplinks.
  4. dirty_optic (~176-236): on a loaded leaf uplink's receive side pre-FEC BER climbs to ~1e-4,
     uncorrectable codewords and FCS/in_errors rise over ~60 min (FCS only while frames flow);
     the far end sees a mild BER increase. Ends when the optic is replaced.
  5. rx_power_degrading (~185-end): one channel of a spine port's receive power falls from about
     -2 dBm toward -10 dBm over 2 h (the far-end leaf module's transmit power on that channel falls
     with it: an aging laser); corrected bits and raw_ber rise slowly (worst lane ~1e-4 at the end);
     uncorrectable codewords and FCS errors appear only in the last ~30 min of the decline and stay.
  6. silent_discards (~190-262): a spine port whose out_discards rise (2e-6 -> 3e-5 of its packets),
     no errors, no ECN/PFC difference, while its sibling ports carry the same load cleanly.
  7. ecn_misconfigured_switch (~200-292, ports ["*"]): a leaf whose lossless queue has ECN off and
     WRED drop on: ecn_marked_pkts_queue3 flat where its peers mark, wred_dropped_pkts_queue3 and
     out_discards under load, ~2x the PFC it sends.
  8. flapping_link (~241-292): a leaf uplink flapping in bursts (2-4 down/up cycles within two
     minutes, then quiet ~20 min, 3 bursts): oper_status DOWN/UP lines at both ends,
     carrier_transitions +2 per cycle, FCS and corrected-bit bursts at each link-up.
  9. module_overheating (~260-350 incl. the cool-down, both halves of a 2x400G cage): module
     temperature climbs from ~50 C to ~78 C over an hour (past 70 C warning, 75 C alarm), BER up
     with it (a few uncorrectable codewords above 75 C), transmit power droops; back down in ~8 min
     when the fan is fixed.
 10. pfc_storm (~306-319): a host NIC of the MoE job stuck sending PFC (tx_prio3_pause 30-60k/s):
     in_pause_pkts_prio3 on its leaf port, no traffic to the host, PFC-watchdog drops (out_discards);
     for the first ~90 s the leaf pauses all its uplinks and the spines facing it pause the other
     leaves (`related`, not faults); the MoE job stalls.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

# ----------------------------------------------------------------------------------------------
# constants

T0 = 1757923200                 # 2025-09-15T08:00:00Z
DT = 10                         # sample period (s)
SEC = 6 * 3600                  # 6 h
K = SEC // DT                   # 2160 samples / intervals; interval i = (10i, 10i+10]
FIT_S = 90 * 60
SCORE_S = 30
HEARTBEAT = 6                   # gNMI heartbeat, in samples (60 s)
PHY_EVERY = 6                   # switch PHY/FEC subscription, 60 s
DOM_EVERY = 30                  # transceiver subscription, 300 s
HPHY_EVERY = 6                  # host PHY ethtool instance, 60 s

NG, NR, HPG, NS, LPS = 2, 8, 20, 5, 2
NH = NG * HPG                   # 40 hosts
NN = NH * NR                    # 320 NICs
NL = NG * NR                    # 16 leaves
NLT = NL + 1                    # + the leaf added mid-run
NEW = NL
NETDEV = ["enp26s0np0", "enp60s0np0", "enp77s0np0", "enp94s0np0",
          "enp156s0np0", "enp188s0np0", "enp204s0np0", "enp220s0np0"]

LINEB = 400e9 / 8 * DT          # bytes per 10 s at 400G
UPB = 2 * LINEB                 # at 800G
LBITS = 425e9 * DT              # bits through the FEC per 10 s at 400G (53.125 GBd PAM4 x 4 lanes)
KAPPA = 0.004                   # ECN-marked fraction of egress packets per unit of queue pressure
Q_XOFF = 0.7                    # queue pressure above which the switch sends PFC
PFC_K = 1500.0                  # PFC frames/s per (pressure above XOFF)^1.5
PAUSE_DUTY = 50e-6              # seconds of pause per frame (quanta refreshed ~every 50 us)

SW_FIELDS = ["in_octets", "out_octets", "in_pkts", "out_pkts", "in_errors", "in_discards",
             "out_discards", "in_fcs_errors", "carrier_transitions", "in_pause_pkts_prio3",
             "out_pause_pkts_prio3", "ecn_marked_pkts_queue3", "wred_dropped_pkts_queue3",
             "no_buffer_uc_dropped_pkts_queue3"]
SWF = {f: j for j, f in enumerate(SW_FIELDS)}
PHY_FIELDS = ["corrected_bits", "rs_fec_uncorrectable_blocks", "effective_errors"]
H_FIELDS = ["rx_bytes_phy", "tx_bytes_phy", "rx_packets_phy", "tx_packets_phy", "rx_crc_errors_phy",
            "rx_discards_phy", "rx_out_of_buffer", "rx_prio3_pause", "tx_prio3_pause",
            "rx_pause_ctrl_phy", "np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled",
            "link_down_events_phy"]
HF = {f: j for j, f in enumerate(H_FIELDS)}
HPHY_FIELDS = ["rx_corrected_bits_phy", "rx_pcs_symbol_err_phy"]


def frac_in(a, b):
    """Fraction of each interval (10i, 10i+10] inside [a, b) (seconds from the start)."""
    lo = np.arange(K, dtype=float) * DT
    return np.clip((np.minimum(lo + DT, b) - np.maximum(lo, a)) / DT, 0.0, 1.0)


def iv(t):
    """Interval holding time t."""
    return int(min(K - 1, max(0, math.ceil(t / DT) - 1)))


def r30(t):
    return int(math.ceil(t / SCORE_S - 1e-9)) * SCORE_S


def ln(rng, sigma, shape):
    return rng.lognormal(-0.5 * sigma * sigma, sigma, shape)


def pkts_of(b, cap):
    """Packets for a byte count: RoCE 4 KB MTU frames when busy, small control frames when idle."""
    u = b / np.maximum(cap, 1.0)
    size = 190.0 + 3960.0 * u / (u + 0.004)
    return b / size


# ----------------------------------------------------------------------------------------------
# topology


class Topo:
    def __init__(self):
        self.leaf = [f"leaf-g{g}-r{r}" for g in range(NG) for r in range(NR)] + ["leaf-g2-r0"]
        self.spine = [f"spine-{s + 1:02d}" for s in range(NS)]
        self.host = [f"gpu{h + 1:03d}" for h in range(NH)]
        self.swdev = self.leaf + self.spine             # switch device d: leaf L -> L, spine s -> NLT+s
        c = {k: [] for k in ("dev", "port", "role", "rail", "pdev", "pport", "speed", "L", "s", "l",
                             "n", "cage", "lanes", "rank")}
        cages = {}

        def add(**kw):
            for k in c:
                c[k].append(kw.get(k, -1))
            return len(c["dev"]) - 1

        def cage(d, num):
            return cages.setdefault((d, num), len(cages))

        self.DN = np.zeros(NN, int)
        self.UP = np.zeros((NLT, NS, LPS), int)
        self.SP = np.zeros((NS, NLT, LPS), int)
        for h in range(NH):
            g, i = divmod(h, HPG)
            for r in range(NR):
                L, n = g * NR + r, h * NR + r
                if g == 0:
                    cn, pn, lanes = i // 2 + 1, f"swp{i // 2 + 1}s{i % 2}", (1, 2, 3, 4) if i % 2 == 0 else (5, 6, 7, 8)
                    rank = 2 * (i // 2) + i % 2
                else:
                    cn, pn, lanes, rank = i + 1, f"swp{i + 1}", (1, 2, 3, 4), 2 * i
                self.DN[n] = add(dev=L, port=pn, role="leaf_down", rail=r, pdev=self.host[h], pport=NETDEV[r],
                                 speed="400G", L=L, n=n, cage=cage(L, cn), lanes=lanes, rank=rank)
        eight = tuple(range(1, 9))
        for L in range(NLT):
            for s in range(NS):
                for l in range(LPS):
                    self.UP[L, s, l] = add(dev=L, port=f"swp{33 + 2 * s + l}", role="leaf_up", rail=self.rail_of(L),
                                           pdev=self.spine[s], pport=f"swp{2 * L + l + 1}", speed="800G", L=L, s=s,
                                           l=l, cage=cage(L, 33 + 2 * s + l), lanes=eight, rank=64 + 2 * s + l)
        for s in range(NS):
            for L in range(NLT):
                for l in range(LPS):
                    self.SP[s, L, l] = add(dev=NLT + s, port=f"swp{2 * L + l + 1}", role="spine", rail=self.rail_of(L),
                                           pdev=self.leaf[L], pport=f"swp{33 + 2 * s + l}", speed="800G", L=L, s=s,
                                           l=l, cage=cage(NLT + s, 2 * L + l + 1), lanes=eight, rank=2 * L + l)
        self.P = len(c["dev"])
        for k in ("dev", "rail", "L", "s", "l", "n", "cage", "rank"):
            setattr(self, "sw_" + k, np.array(c[k]))
        for k in ("port", "role", "pdev", "pport", "speed", "lanes"):
            setattr(self, "sw_" + k, c[k])
        self.NC = len(cages)
        self.ND = len(self.swdev)
        self.sw_is_up = np.array([x == "leaf_up" for x in self.sw_role])
        self.sw_is_sp = np.array([x == "spine" for x in self.sw_role])
        self.sw_is_dn = np.array([x == "leaf_down" for x in self.sw_role])
        self.sw_cap = np.where(self.sw_is_dn, LINEB, UPB)
        self.sw_bits = np.where(self.sw_is_dn, LBITS, 2 * LBITS)
        peer = np.full(self.P, -1)
        for L in range(NLT):
            for s in range(NS):
                for l in range(LPS):
                    peer[self.UP[L, s, l]] = self.SP[s, L, l]
                    peer[self.SP[s, L, l]] = self.UP[L, s, l]
        self.sw_peer = peer
        self.dev_ports = [np.where(self.sw_dev == d)[0] for d in range(self.ND)]
        # host series n = h*8 + r
        self.h_host = np.arange(NN) // NR
        self.h_rail = np.arange(NN) % NR
        self.h_leaf = (self.h_host // HPG) * NR + self.h_rail
        self.leaf_nics = [np.where(self.h_leaf == L)[0] for L in range(NLT)]
        # output order: by device, then port rank
        self.order = np.lexsort((self.sw_rank, self.sw_dev))

    @staticmethod
    def rail_of(L):
        return L % NR if L < NL else 0

    def group_of(self, L):
        return L // NR if L < NL else 2

    def sw_name(self, p):
        return self.swdev[self.sw_dev[p]], self.sw_port[p]

    def sw_tags(self, p):
        return (f"port_counters,device={self.swdev[self.sw_dev[p]]},peer_device={self.sw_pdev[p]},"
                f"peer_port={self.sw_pport[p]},port={self.sw_port[p]},rail={self.sw_rail[p]},"
                f"role={self.sw_role[p]},speed={self.sw_speed[p]} ")

    def h_tags(self, n):
        dn = self.DN[n]
        return (f"port_counters,device={self.host[self.h_host[n]]},peer_device={self.swdev[self.sw_dev[dn]]},"
                f"peer_port={self.sw_port[dn]},port={NETDEV[self.h_rail[n]]},rail={self.h_rail[n]},"
                f"role=host,speed=400G ")


# ----------------------------------------------------------------------------------------------
# the story: times (seconds from the start) and places, drawn per seed


def plan(rng, topo):
    u = rng.uniform
    m = 60.0
    P = {}
    P["A_stop"] = (148 + u(-2, 2)) * m
    P["maint_start"] = P["A_stop"] + 60
    P["M_start"] = (6 + u(-2, 2)) * m
    P["M_stop"] = P["A_stop"] - (1 + u(0, 1.5)) * m
    P["uplinks_down"] = P["maint_start"] + (2 + u(0, 1)) * m
    P["leaf_reboot"] = P["maint_start"] + (4 + u(0, 1.5)) * m
    P["reseat"] = P["maint_start"] + (10 + u(0, 2)) * m
    P["uplinks_back"] = P["uplinks_down"] + (11 + u(0, 1.5)) * m
    P["A_restart"] = max(P["uplinks_back"], P["reseat"], P["leaf_reboot"] + 420) + (3 + u(0, 2)) * m
    P["maint_end"] = P["A_restart"]
    P["M2_start"] = P["A_restart"] + (4 + u(0, 2)) * m
    P["M2_end"] = (352 + u(-3, 3)) * m
    P["host_reboot1"] = (44 + u(-3, 3)) * m
    P["host_reboot2"] = (256 + u(-3, 3)) * m
    P["counter_clear"] = (118 + u(-4, 4)) * m
    P["slowrx"] = ((100 + u(-3, 3)) * m, (141 + u(-2, 2)) * m)
    P["dirty"] = ((176 + u(-3, 3)) * m, None)
    P["dirty"] = (P["dirty"][0], P["dirty"][0] + (60 + u(-4, 4)) * m)
    P["rxdecl"] = ((185 + u(-3, 3)) * m, SEC)
    P["discard"] = ((190 + u(-3, 3)) * m, (262 + u(-3, 3)) * m)
    P["ecn"] = ((200 + u(-3, 3)) * m, (292 + u(-3, 3)) * m)
    P["drain"] = ((205 + u(-3, 3)) * m, None)
    P["drain"] = (P["drain"][0], P["drain"][0] + (30 + u(-2, 3)) * m)
    P["new_leaf"] = (248 + u(-3, 3)) * m
    b0 = (241 + u(-3, 3)) * m
    P["flap_bursts"] = [b0, b0 + (21 + u(-2, 3)) * m, b0 + (46 + u(-2, 3)) * m]
    P["heat"] = ((262 + u(-3, 3)) * m, (340 + u(-3, 3)) * m)
    P["gap"] = ((268 + u(-3, 3)) * m, None)
    P["gap"] = (P["gap"][0], P["gap"][0] + 600)
    P["storm"] = ((306 + u(-3, 3)) * m, None)
    P["storm"] = (P["storm"][0], P["storm"][0] + (13 + u(-1, 2)) * m)
    # a fault's first symptom sits on a 30 s boundary (the scoring interval)
    snap = lambda x: math.floor(x / SCORE_S) * SCORE_S
    for k_ in ("slowrx", "dirty", "rxdecl", "discard", "ecn", "heat", "storm"):
        P[k_] = (float(snap(P[k_][0])), P[k_][1])
    P["flap_bursts"][0] = float(snap(P["flap_bursts"][0]))
    P["reseat"] = float(snap(P["reseat"]))
    P["uplinks_back"] = float(snap(P["uplinks_back"]))
    # workload events
    P["a2a_M"] = [(t + u(-2, 2)) * m for t in (24, 47, 71, 96, 121)]
    P["a2a_M2"] = [(t + u(-2, 2)) * m for t in (190, 214, 239, 263, 287, 333)]
    P["incast"] = [(t + u(-2, 2)) * m for t in (19, 52, 83, 113, 199, 226, 250, 276, 298, 338)]
    P["ckpt_off"] = u(10, 18) * m
    P["S"] = [((20 + u(-2, 2)) * m, (72 + u(-2, 2)) * m, [36, 37, 38]),
              ((96 + u(-2, 2)) * m, (140 + u(-2, 2)) * m, [36, 37, 38, 39]),
              ((272 + u(-2, 2)) * m, (350 + u(-2, 2)) * m, [36, 37, 38, 39])]
    P["reboot_hosts"] = (39, 36)

    # ---- places (ports of the same kind, another one per seed)
    JA = list(range(0, 12)) + list(range(20, 32))
    JM = list(range(12, 20)) + list(range(32, 36))
    P["JA"], P["JM"] = JA, JM
    g1 = list(range(NR, NL))
    L_rb = int(rng.choice(g1))
    rest = [L for L in range(NL) if L != L_rb]
    rng.shuffle(rest)
    L_adm, L_ecn, L_dirty, L_flap, L_rx, L_disc = [int(x) for x in rest[:6]]
    s_drain = int(rng.integers(NS))
    others = [s for s in range(NS) if s != s_drain]
    P["L_rb"], P["L_adm"], P["L_ecn"] = L_rb, L_adm, L_ecn
    P["s_drain"] = s_drain
    shut = [(int(s), int(l)) for s, l in zip(rng.choice(NS, 4, replace=False), rng.integers(0, LPS, 4))]
    P["adm_shut"] = shut
    P["adm_left"] = shut[int(rng.integers(4))]
    P["dirty_link"] = (L_dirty, int(rng.choice(others)), int(rng.integers(LPS)))
    P["flap_link"] = (L_flap, int(rng.choice(others)), int(rng.integers(LPS)))
    P["rx_link"] = (L_rx, int(rng.choice(others)), int(rng.integers(LPS)))
    P["rx_lane"] = int(rng.integers(1, 9))
    P["disc_port"] = (int(rng.choice(others)), L_disc, int(rng.integers(LPS)))
    hA = [h for h in JA]
    rng.shuffle(hA)
    P["hs_nic"] = hA[0] * NR + int(rng.integers(NR))
    P["slowrx_nic"] = hA[1] * NR + int(rng.integers(NR))
    P["storm_nic"] = int(rng.choice(JM)) * NR + int(rng.integers(NR))
    nic_leaf = lambda n: (n // NR // HPG) * NR + n % NR
    busy = {L_rb, L_adm, L_ecn, L_dirty, L_flap, L_rx, L_disc} | {nic_leaf(P[k_]) for k_ in ("hs_nic", "slowrx_nic", "storm_nic")}
    g0 = [L for L in range(NR) if L not in busy] or [L for L in range(NR) if L not in (L_ecn, nic_leaf(P["storm_nic"]))]
    P["heat_leaf"] = int(rng.choice(g0))
    P["heat_cage"] = int(rng.integers(1, 11))          # cage swpN of a group-0 leaf = hosts 2N-2, 2N-1
    busy.add(P["heat_leaf"])
    free = [L for L in range(NL) if L not in busy]
    rng.shuffle(free)
    P["L_clear"] = int(free[0]) if free else int(rng.choice([L for L in range(NL) if L != nic_leaf(P["slowrx_nic"])]))
    spines_busy = {s_drain, P["dirty_link"][1], P["flap_link"][1], P["rx_link"][1], P["disc_port"][0]}
    free_sp = [s for s in range(NS) if s not in spines_busy]
    if len(free) > 1:
        P["gap_dev"] = int(free[1])
    elif free_sp:
        P["gap_dev"] = NLT + int(rng.choice(free_sp))
    else:
        P["gap_dev"] = NLT + int(rng.choice(others))
    return P


# ----------------------------------------------------------------------------------------------
# workload


def wave(rng, segs, ckpts=(), stalls=(), a2a=()):
    """1 s load of one job: NCCL warm-up, then iterations of communication and compute.
    segs: (start, end, period, comm fraction, comm level, warm-up s); a2a: (start, end, level)."""
    u = np.zeros(SEC)
    comm = np.zeros(SEC)
    for a, b, period, fc, level, warm in segs:
        a, b = int(max(0, a)), int(min(SEC, b))
        if b <= a:
            continue
        w = min(b, a + int(warm))
        u[a:w] = rng.uniform(0.01, 0.09, w - a)
        t = w - (int(rng.integers(0, int(period))) if warm == 0 else 0)
        while t < b:
            p = int(round(period * rng.uniform(0.96, 1.04)))
            cl = int(round(p * fc * rng.uniform(0.93, 1.07)))
            lo, mid, hi = max(t, w), min(max(t + cl, w), b), min(t + p, b)
            if mid > lo:
                u[lo:mid] = level * rng.uniform(0.93, 1.03)
                comm[lo:mid] = 1.0
            if hi > mid:
                u[mid:hi] = rng.uniform(0.006, 0.03)
            t += p
    a2a_mask = np.zeros(SEC)
    for a, b, level in a2a:
        a, b = int(max(0, a)), int(min(SEC, b))
        if b > a:
            u[a:b] = level * rng.uniform(0.85, 1.0, b - a)
            comm[a:b] = 1.0
            a2a_mask[a:b] = 1.0
    for a, b in ckpts:
        a, b = int(max(0, a)), int(min(SEC, b))
        u[a:b] = 0.004
        comm[a:b] = 0.0
    for a, b in stalls:
        a, b = int(max(0, a)), int(min(SEC, b))
        u[a:b] = 0.0
        comm[a:b] = 0.0
        a2a_mask[a:b] = 0.0
    r = lambda x: x.reshape(K, DT).mean(1)
    return r(u), r(comm), r(a2a_mask)


# ----------------------------------------------------------------------------------------------


class Sim:
    def __init__(self, seed):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.t = Topo()
        self.P = plan(self.rng, self.t)
        self.faults = []
        self.healthy = []

    # ---- labels
    def ns(self, t):
        return int((T0 + t) * 1e9) if isinstance(t, float) else (T0 + int(t)) * 10**9

    def sw_ref(self, p):
        d, port = self.t.sw_name(p)
        return {"device": d, "port": port}

    def h_ref(self, n):
        return {"device": self.t.host[self.t.h_host[n]], "port": NETDEV[self.t.h_rail[n]]}

    def fault(self, kind, device, ports, a, b, signature, peer_ends=(), related=()):
        a = r30(a)
        assert a >= FIT_S
        self.faults.append({"kind": kind, "device": device, "ports": list(ports),
                            "start_ns": (T0 + a) * 10**9, "end_ns": (T0 + int(min(SEC, r30(b)))) * 10**9,
                            "peer_ends": list(peer_ends), "related": list(related), "signature": signature})

    def healthy_event(self, kind, where, a, b, note, background=False):
        ev = {"kind": kind, "where": list(where), "start_ns": (T0 + int(max(0, a))) * 10**9,
              "end_ns": (T0 + int(min(SEC, b))) * 10**9, "note": note}
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    def w_sw(self, ps):
        return [f"{self.t.swdev[self.t.sw_dev[p]]}:{self.t.sw_port[p]}" for p in ps]

    def w_h(self, ns_):
        return [f"{self.t.host[self.t.h_host[n]]}:{NETDEV[self.t.h_rail[n]]}" for n in ns_]

    def w_hosts(self, hosts):
        out = []
        for h in hosts:
            out.append(f"{self.t.host[h]}:*")
            out += self.w_sw([self.t.DN[h * NR + r] for r in range(NR)])
        return out

    # ------------------------------------------------------------------------------------------
    def run(self):
        self.link_events()
        self.workload()
        self.traffic()
        self.congestion()
        self.physical()
        self.assemble()

    # ------------------------------------------------------------------------------------------
    # link state: windows (seconds) when a cable is down, who shut it, state-change lines
    def link_events(self):
        rng, t, P = self.rng, self.t, self.P
        self.hdown = [[] for _ in range(NN)]                      # host link n: (a, b)
        self.udown = {}                                          # (L, s, l): [(a, b, admin_end)]
        self.sw_state = []                                        # (time, p, dict of on-change leaves)
        self.carrier = np.zeros((K, t.P))                         # carrier_transitions increments
        self.hl_down = np.zeros((K, NN))                          # link_down_events_phy increments
        self.linkup_burst_sw = np.zeros((K, t.P))                 # link training errors at link-up
        self.linkup_burst_h = np.zeros((K, NN))
        self.sw_absent = [[] for _ in range(t.ND)]               # device: (a, b) no telemetry
        self.h_absent = [[] for _ in range(NH)]
        self.sw_resets = []                                      # (time, ports, fields or None=all)
        self.h_resets = []                                       # (time, nics)
        self.speed_half = np.zeros((K, NN), bool)

        def ud(L, s, l):
            return self.udown.setdefault((L, s, l), [])

        def sw_ev(tt, p, **kw):
            self.sw_state.append((float(tt), int(p), kw))

        def down_up(ports, a, b, admin_port=None, burst=True):
            """A cable down in [a, b): carrier transitions, state lines for switch ends."""
            for p in ports:
                if p is None:
                    continue
                if a > 0:
                    self.carrier[iv(a), p] += 1
                    if p == admin_port:
                        sw_ev(a, p, admin_status="DOWN", oper_status="DOWN")
                    else:
                        sw_ev(a + rng.uniform(0.05, 0.6), p, oper_status="DOWN")
                if b < SEC:
                    self.carrier[iv(b), p] += 1
                    if p == admin_port:
                        sw_ev(b - rng.uniform(2, 5), p, admin_status="UP")
                    sw_ev(b + rng.uniform(0.05, 0.6), p, oper_status="UP")
                    if burst:
                        self.linkup_burst_sw[iv(b), p] += 1

        def host_link_down(n, a, b, burst=True):
            self.hdown[n].append((a, b))
            down_up([t.DN[n]], a, b, burst=burst)
            if a > 0:
                self.hl_down[iv(a), n] += 1
            if b < SEC and burst:
                self.linkup_burst_h[iv(b), n] += 1

        def uplink_down(L, s, l, a, b, admin_end=None, burst=True):
            ud(L, s, l).append((a, b))
            pu, ps = t.UP[L, s, l], t.SP[s, L, l]
            adm = {None: None, "leaf": pu, "spine": ps}[admin_end]
            down_up([pu, ps], a, b, admin_port=adm, burst=burst)

        # host reboots (healthy): links down while the OS restarts, agent silent, counters reset
        self.host_reboot_info = []
        for h, tr in zip(P["reboot_hosts"], (P["host_reboot1"], P["host_reboot2"])):
            agent_back = tr + rng.uniform(280, 330)
            self.h_absent[h].append((tr, agent_back))
            ups = []
            for r in range(NR):
                n = h * NR + r
                a, b = tr + rng.uniform(12, 20), tr + rng.uniform(140, 200)
                host_link_down(n, a, b)
                ups.append(b)
            self.h_resets.append((min(ups) - 8.0, [h * NR + r for r in range(NR)]))
            self.host_reboot_info.append((h, tr, agent_back))
            self.healthy_event("host_reboot", self.w_hosts([h]), tr, agent_back + 30,
                               "host rebooted: its 8 NIC links down ~2.5 min (leaf ports oper_status DOWN/UP, "
                               "carrier_transitions +2), host counters restart from 0, agent silent ~5 min")

        # leaf reboot for an upgrade (healthy, maintenance window)
        L = P["L_rb"]
        tr = P["leaf_reboot"]
        back = tr + rng.uniform(270, 300)
        self.sw_absent[L].append((tr - 1, tr + rng.uniform(320, 345)))
        boot = tr + rng.uniform(180, 200)
        self.sw_resets.append((boot, t.dev_ports[L], None))
        for n in t.leaf_nics[L]:
            host_link_down(n, tr + rng.uniform(2, 6), back + rng.uniform(0, 25))
        for s in range(NS):
            for l in range(LPS):
                uplink_down(L, s, l, tr + rng.uniform(2, 6), back + rng.uniform(0, 25))
        self.leaf_reboot_info = (L, tr, back, boot)

        # maintenance: 4 uplinks of one leaf shut, 3 back, one left down (fault)
        L = P["L_adm"]
        for (s, l) in P["adm_shut"]:
            a = P["uplinks_down"] + rng.uniform(0, 20)
            b = SEC if (s, l) == P["adm_left"] else P["uplinks_back"] + rng.uniform(0, 40)
            uplink_down(L, s, l, a, b, admin_end="leaf")

        # half-speed link: reseated in the maintenance window, back at 200G
        n = P["hs_nic"]
        a, b = P["reseat"], P["reseat"] + rng.uniform(40, 70)
        host_link_down(n, a, b)
        self.speed_half[iv(b):, n] = True
        self.hs_up = b
        sw_ev(b + 0.7, t.DN[n], port_speed=200000)

        # spine drain: every port of one spine admin-down ~30 min
        s = P["s_drain"]
        a0, b0 = P["drain"]
        for L in range(NL):
            for l in range(LPS):
                uplink_down(L, s, l, a0 + rng.uniform(0, 3), b0 + rng.uniform(0, 6), admin_end="spine")

        # dirty optic replaced at the end of the fault
        L, s, l = P["dirty_link"]
        a = P["dirty"][1]
        self.optic_swap = (a, a + rng.uniform(150, 220))
        uplink_down(L, s, l, *self.optic_swap)

        # flapping uplink: bursts of 2-4 down/up cycles within two minutes
        L, s, l = P["flap_link"]
        self.flaps = []
        for b0 in P["flap_bursts"]:
            tt = b0
            for _ in range(int(rng.integers(2, 5))):
                d = rng.uniform(1.5, 20)
                uplink_down(L, s, l, tt, tt + d)
                self.flaps.append((tt, tt + d))
                tt += d + rng.uniform(5, 35)

        # new leaf: its uplinks come up one by one after it is added
        self.new_up = {}
        tn = P["new_leaf"]
        for s in range(NS):
            for l in range(LPS):
                b = tn + rng.uniform(40, 170)
                ud(NEW, s, l).append((-1.0, b))
                self.new_up[(s, l)] = b
                for p in (t.UP[NEW, s, l], t.SP[s, NEW, l]):
                    self.carrier[iv(b), p] += 1
                    sw_ev(b + rng.uniform(0.05, 0.6), p, oper_status="UP")
        self.sw_absent[NEW].append((-1.0, tn))

        # collector gap for one switch
        self.sw_absent[P["gap_dev"]].append(P["gap"])

        # up fractions per interval
        self.fu_h = np.ones((K, NN))
        for n in range(NN):
            for a, b in self.hdown[n]:
                self.fu_h[:, n] -= frac_in(a, b)
        self.fu_h = np.clip(self.fu_h, 0, 1)
        self.fu_u = np.ones((K, NLT, NS, LPS))
        for (L, s, l), ws in self.udown.items():
            for a, b in ws:
                self.fu_u[:, L, s, l] -= frac_in(a, b)
        self.fu_u = np.clip(self.fu_u, 0, 1)
        self.spf = np.where(self.speed_half, 0.5, 1.0)

    # ------------------------------------------------------------------------------------------
    def workload(self):
        rng, P = self.rng, self.P
        jobs = []
        A = dict(name="pretrain", hosts=P["JA"])
        ck = []
        tt = P["ckpt_off"]
        while tt < SEC:
            ck.append((tt, tt + rng.uniform(60, 85)))
            tt += 1800
        self.ckpts = ck
        segA = [(0, P["A_stop"], 38, 0.45, 0.88, 0),
                (P["A_restart"], SEC, 38 * 1.45, 0.82, 0.47, 180)]     # paced by the 200G link
        A["u"], A["burst"], A["a2a"] = wave(rng, segA, ckpts=ck)
        jobs.append(A)
        M = dict(name="moe", hosts=P["JM"])
        a2a = [(x, x + rng.uniform(120, 240), rng.uniform(0.7, 0.85)) for x in P["a2a_M"] + P["a2a_M2"]]
        self.a2a_windows = [(a, b) for a, b, _ in a2a]
        sa, sb = P["storm"]
        self.stall = (sa + 15, sb + 75)
        segM = [(P["M_start"], P["M_stop"], 26, 0.4, 0.8, 150),
                (P["M2_start"], self.stall[0], 26, 0.4, 0.8, 150),
                (self.stall[1], P["M2_end"], 26, 0.4, 0.8, 120)]
        a2a = [w for w in a2a if not (w[0] < self.stall[1] and w[1] > self.stall[0])]
        self.a2a_windows = [(a, b) for a, b, _ in a2a]
        M["u"], M["burst"], M["a2a"] = wave(rng, segM, a2a=a2a, stalls=[self.stall])
        jobs.append(M)
        for j, (a, b, hosts) in enumerate(P["S"]):
            S = dict(name=f"small{j}", hosts=hosts)
            S["u"], S["burst"], S["a2a"] = wave(rng, [(a, b, rng.uniform(12, 20), 0.5, rng.uniform(0.6, 0.85), 90)])
            jobs.append(S)
        self.jobs = jobs

        self.U = {}
        self.burst = np.zeros((K, NN))
        self.a2aN = np.zeros((K, NN))
        hf = ln(rng, 0.03, NH)
        rf = ln(rng, 0.02, NN)
        for J in jobs:
            nics = np.array([h * NR + r for h in J["hosts"] for r in range(NR)])
            J["nics"] = nics
            uj = np.zeros((K, NN))
            uj[:, nics] = J["u"][:, None] * hf[nics // NR] * rf[nics] * ln(rng, 0.015, (K, len(nics)))
            self.U[J["name"]] = uj
            self.burst[:, nics] += J["burst"][:, None]
            self.a2aN[:, nics] += J["a2a"][:, None]
        self.hot = np.where(self.a2aN > 0, ln(rng, 0.6, (K, NN)), 1.0)
        self.bgu = rng.uniform(0.0008, 0.003, NN)

    # ------------------------------------------------------------------------------------------
    def traffic(self):
        rng, t, P = self.rng, self.t, self.P
        cap_h = LINEB * self.fu_h * self.spf
        self.cap_h = cap_h
        comp = {name: u * LINEB for name, u in self.U.items()}
        comp["bg"] = self.bgu * LINEB * ln(rng, 0.3, (K, NN))
        # incast: dataset-shard reads, many senders -> a few hosts
        inc_tx = np.zeros((K, NN))
        inc_rx = np.zeros((K, NN))
        self.inc_press = np.zeros((K, NN))
        D_inc = np.zeros((K, NLT, NLT))
        loc_inc = np.zeros((K, NLT))
        self.incasts = []
        busy = P["JA"] + P["JM"]
        for x in P["incast"]:
            dur = rng.uniform(40, 120)
            f = frac_in(x, x + dur)
            targets = [int(h) for h in rng.choice(busy, int(rng.integers(1, 4)), replace=False)]
            rails = sorted(int(r) for r in rng.choice(NR, int(rng.integers(2, 9)), replace=False))
            rho = rng.uniform(1.6, 3.5)
            tn = []
            for h in targets:
                for r in rails:
                    n = h * NR + r
                    tn.append(n)
                    ns_ = int(rng.integers(10, 17))
                    cand = [hh for hh in range(NH) if hh != h and hh not in P["reboot_hosts"]]
                    snd = [int(hh) * NR + r for hh in rng.choice(cand, ns_, replace=False)]
                    deliver = 0.78 * LINEB * f * self.fu_h[:, n]
                    inc_rx[:, n] += deliver
                    self.inc_press[:, n] += f * (1.0 + 1.2 * (rho - 1))
                    Lt = t.h_leaf[n]
                    for m_ in snd:
                        inc_tx[:, m_] += deliver / ns_
                        Ls = t.h_leaf[m_]
                        if Ls == Lt:
                            loc_inc[:, Lt] += deliver / ns_
                        else:
                            D_inc[:, Ls, Lt] += deliver / ns_
            self.incasts.append((x, x + dur, targets, rails, tn))
        comp["inc"] = inc_tx
        total = sum(comp.values())
        scale = np.minimum(1.0, 0.97 * cap_h / np.maximum(total, 1.0))
        for k_ in comp:
            comp[k_] = comp[k_] * scale
        self.tx = sum(comp.values())
        self.comp = comp

        # leaf-to-leaf demand
        D = np.zeros((K, NLT, NLT))
        local = np.zeros((K, NLT))
        for J in self.jobs:
            hosts = np.array(J["hosts"])
            grp = hosts // HPG
            nj = len(hosts)
            chi = 0.03 + 0.3 * J["a2a"]
            tx = comp[J["name"]]
            cnt = [int((grp == g).sum()) for g in range(NG)]
            for g in range(NG):
                hg = hosts[grp == g]
                if len(hg) == 0:
                    continue
                fo = cnt[1 - g] / max(1, nj - 1)
                for r in range(NR):
                    L = g * NR + r
                    S = tx[:, hg * NR + r].sum(1)
                    local[:, L] += S * (1 - fo) * (1 - chi)
                    if cnt[1 - g]:
                        D[:, L, (1 - g) * NR + r] += S * fo * (1 - chi)
                    else:
                        local[:, L] += S * fo * (1 - chi)
                    wsum = sum(cnt)
                    for g2 in range(NG):
                        if cnt[g2] == 0:
                            continue
                        for r2 in range(NR):
                            if r2 != r:
                                D[:, L, g2 * NR + r2] += S * chi * cnt[g2] / wsum / (NR - 1)
        bg = comp["bg"]
        for L in range(NL):
            S = bg[:, t.leaf_nics[L]].sum(1)
            local[:, L] += 0.5 * S
            D[:, L, (1 - L // NR) * NR + L % NR] += 0.5 * S
        D += D_inc
        local += loc_inc
        self.D = D

        # adaptive routing / spraying over up uplinks and spines
        a = self.fu_u.sum(-1)                                               # (K, L, S)
        st_s = ln(rng, 0.012, (NLT, NS))                                   # static AR imbalance per leaf and spine
        w = a[:, :, None, :] * a[:, None, :, :] * ln(rng, 0.01, (K, NLT, 1, NS)) * st_s[None, :, None, :]
        ws = w.sum(-1, keepdims=True)
        p = np.where(ws > 0, w / np.where(ws > 0, ws, 1), 0.0)
        via = D[..., None] * p                                              # (K, L, M, S)
        self.via = via
        out_src = via.sum(2)                                                # (K, L, S)
        in_dst = via.sum(1)                                                 # (K, M, S)
        share = np.where(a[..., None] > 0, self.fu_u / np.where(a[..., None] > 0, a[..., None], 1), 0.0)
        st_l = ln(rng, 0.01, (NLT, NS, LPS))                               # and per link of a leaf-spine pair
        sh2 = share * st_l
        share = np.where(a[..., None] > 0, sh2 / np.maximum(sh2.sum(-1, keepdims=True), 1e-12), 0.0)
        self.up_out = out_src[..., None] * share * ln(rng, 0.004, share.shape)   # leaf L -> spine s link l
        self.sp_out = in_dst[..., None] * share * ln(rng, 0.004, share.shape)    # spine s -> leaf M link l (indexed M,s,l)
        cap_u = 0.985 * UPB * self.fu_u
        self.up_out = np.minimum(self.up_out, cap_u)
        self.sp_out = np.minimum(self.sp_out, cap_u)
        fabric_in = self.sp_out.sum((2, 3))                                  # (K, M)
        inc_fab = D_inc.sum(1)
        into = np.maximum(local - loc_inc + fabric_in - inc_fab, 0.0)

        # delivery to hosts
        rw = np.zeros((K, NN))
        for J in self.jobs:
            rw += comp[J["name"]] * self.hot
        rw += comp["bg"] + 1e3
        rw *= self.fu_h
        rx = np.zeros((K, NN))
        self.sf = np.zeros((K, NLT))
        for L in range(NL):
            nl = t.leaf_nics[L]
            ww = rw[:, nl]
            rx[:, nl] = into[:, L, None] * ww / np.maximum(ww.sum(1, keepdims=True), 1.0)
            tot = local[:, L] + fabric_in[:, L]
            self.sf[:, L] = np.where(tot > 0, fabric_in[:, L] / np.maximum(tot, 1.0), 0.0)
        rx += inc_rx
        demand = rx.copy()
        capr = 0.97 * cap_h
        ex = np.maximum(rx - capr, 0.0)
        rx -= ex
        for L in range(NL):                                                  # hand the excess to siblings
            nl = t.leaf_nics[L]
            head = np.maximum(capr[:, nl] - rx[:, nl], 0.0)
            give = np.minimum(ex[:, nl].sum(1, keepdims=True) * head / np.maximum(head.sum(1, keepdims=True), 1.0), head)
            rx[:, nl] += give
        self.dr = demand / np.maximum(cap_h, 1.0)
        self.rx = rx
        self.inc_rx = inc_rx

    # ------------------------------------------------------------------------------------------
    def congestion(self):
        rng, t, P = self.rng, self.t, self.P
        Pn = t.P
        DN, UP, SP = t.DN, t.UP, t.SP
        sw = {f: np.zeros((K, Pn)) for f in SW_FIELDS}
        self.sw = sw
        hh = {f: np.zeros((K, NN)) for f in H_FIELDS}
        self.hh = hh
        ctrl_u = 2.0e4 * self.fu_u                                        # BGP/BFD/LLDP bytes per 10 s
        ctrl_h = 5.0e3 * self.fu_h
        # bytes
        tx_h = self.tx + ctrl_h
        rx_h = self.rx + ctrl_h
        sw["in_octets"][:, DN] = tx_h
        sw["out_octets"][:, DN] = rx_h
        upo = self.up_out + ctrl_u
        spo = self.sp_out + ctrl_u
        for L in range(NLT):
            for s in range(NS):
                for l in range(LPS):
                    sw["out_octets"][:, UP[L, s, l]] = upo[:, L, s, l]
                    sw["in_octets"][:, SP[s, L, l]] = upo[:, L, s, l]
                    sw["out_octets"][:, SP[s, L, l]] = spo[:, L, s, l]
                    sw["in_octets"][:, UP[L, s, l]] = spo[:, L, s, l]
        cap = t.sw_cap[None, :]
        sw["in_pkts"] = pkts_of(sw["in_octets"], cap)
        sw["out_pkts"] = pkts_of(sw["out_octets"], cap)
        # cable ends count the same packets
        for L in range(NLT):
            for s in range(NS):
                for l in range(LPS):
                    sw["in_pkts"][:, SP[s, L, l]] = sw["out_pkts"][:, UP[L, s, l]]
                    sw["in_pkts"][:, UP[L, s, l]] = sw["out_pkts"][:, SP[s, L, l]]
        hh["tx_bytes_phy"] = tx_h
        hh["rx_bytes_phy"] = rx_h
        hh["tx_packets_phy"] = sw["in_pkts"][:, DN]
        hh["rx_packets_phy"] = sw["out_pkts"][:, DN]

        # ---- host NIC pauses (NIC -> leaf): slow receiver, storm, tiny healthy trickle
        tx_pause = np.zeros((K, NN))
        trick = rng.choice(NN, 6, replace=False)
        ur = self.rx / LINEB
        tx_pause[:, trick] = np.where(ur[:, trick] > 0.6, rng.poisson(3.0, (K, 6)) * 10.0, 0.0)
        self.trickle = trick
        n = P["slowrx_nic"]
        a, b = P["slowrx"]
        f = frac_in(a, b)
        x = np.clip((np.arange(K) * DT - a) / (b - a), 0, 1)
        tx_pause[:, n] += f * (80 + 520 * ur[:, n] / 0.5).clip(0, 600) * ln(rng, 0.3, K) * DT * (0.4 + 0.6 * x)
        oob_frac = f * 1e-5 * (100.0 ** x)
        ns_ = P["storm_nic"]
        sa, sb = P["storm"]
        fs = frac_in(sa, sb)
        storm_rate = rng.uniform(30000, 60000)
        tx_pause[:, ns_] += fs * storm_rate * ln(rng, 0.05, K) * DT
        duty_h = np.clip(tx_pause / DT * PAUSE_DUTY * 8, 0, 1)               # fraction of time paused
        duty_h[:, ns_] = np.maximum(duty_h[:, ns_], fs)

        # storm: no traffic to the host while it is paused
        self.rx[:, ns_] *= (1 - fs)
        sw["out_octets"][:, DN[ns_]] = self.rx[:, ns_] + ctrl_h[:, ns_] * (1 - fs)
        hh["rx_bytes_phy"][:, ns_] = sw["out_octets"][:, DN[ns_]]
        sw["out_pkts"][:, DN[ns_]] = pkts_of(sw["out_octets"][:, DN[ns_]], LINEB)
        hh["rx_packets_phy"][:, ns_] = sw["out_pkts"][:, DN[ns_]]

        # ---- leaf egress toward hosts: queue pressure
        ud = self.rx / np.maximum(self.cap_h, 1.0)
        qd = 0.06 * self.burst * (ud / 0.8) ** 4
        qd += 0.3 * self.a2aN * self.hot ** 2
        qd += 2.5 * np.maximum(self.dr - 0.9, 0.0)
        qd += self.inc_press
        qd += 4.0 * duty_h
        hs = P["hs_nic"]
        qd[:, hs] += np.where(self.speed_half[:, hs], 0.45 + 0.9 * self.burst[:, hs], 0.0)
        qd *= ln(rng, 0.25, (K, NN))
        ecn_off = np.zeros((K, NLT), bool)
        ea, eb = P["ecn"]
        ecn_off[iv(ea) + 1:iv(eb) + 1, P["L_ecn"]] = True
        self.ecn_off = ecn_off
        off_h = ecn_off[:, t.h_leaf]
        qd_eff = np.where(off_h, 2.2 * qd, qd)
        self.qd = qd_eff

        # ECN marks toward hosts and the leaf's PFC from them
        opk = sw["out_pkts"][:, DN]
        sw["ecn_marked_pkts_queue3"][:, DN] = np.where(off_h, 0.0, opk * KAPPA * np.minimum(qd_eff, 4.0) * ln(rng, 0.15, (K, NN)))
        wred_d = np.where(off_h, opk * 2.5e-4 * np.maximum(qd_eff - 0.5, 0) ** 1.5, 0.0)
        sw["wred_dropped_pkts_queue3"][:, DN] = wred_d
        gen = PFC_K * np.maximum(qd_eff - Q_XOFF, 0.0) ** 1.5 * DT * (1 - fs[:, None] * (np.arange(NN) == ns_))
        # leaf -> local hosts and -> uplinks
        up_pause = np.zeros((K, NLT, NS, LPS))                               # frames leaf sends on uplink
        host_rx_pause = np.zeros((K, NN))                                     # frames leaf sends to NIC
        fu_sum = self.fu_u.sum((2, 3))
        for L in range(NL):
            nl = t.leaf_nics[L]
            g_tot = gen[:, nl]
            fab = (g_tot * self.sf[:, L, None]).sum(1)
            loc = (g_tot * (1 - self.sf[:, L, None])).sum(1)
            up_pause[:, L] += fab[:, None, None] * self.fu_u[:, L] / np.maximum(fu_sum[:, L, None, None], 1e-9)
            txw = self.tx[:, nl] * self.fu_h[:, nl]
            host_rx_pause[:, nl] += loc[:, None] * txw / np.maximum(txw.sum(1, keepdims=True), 1.0)

        # storm propagation: for the first ~90 s the leaf pauses every uplink, then the watchdog
        Ls = t.h_leaf[ns_]
        first = frac_in(sa, sa + rng.uniform(75, 105))
        later = np.clip(fs - first, 0, 1) * (rng.random(K) < 0.35)
        prop = (first * rng.uniform(6000, 12000) + later * rng.uniform(150, 600)) * ln(rng, 0.3, K) * DT
        up_pause[:, Ls] += prop[:, None, None] * self.fu_u[:, Ls] / np.maximum(fu_sum[:, Ls, None, None], 1e-9) * 3
        nl = t.leaf_nics[Ls]
        host_rx_pause[:, nl] += (first * rng.uniform(1500, 3000) * DT)[:, None] * (self.tx[:, nl] > 0.05 * LINEB)
        host_rx_pause[:, ns_] = 0.0
        wd_drop = np.clip(fs - first, 0, 1) * rng.uniform(200, 900, K) * DT
        self.storm_first = first

        # ---- spines: paused by leaves -> pressure toward that leaf -> pause the other leaves
        duty_sp = np.clip(up_pause / DT * PAUSE_DUTY, 0, 1)                   # (K, L, S, l) spine egress -> L
        a2a_leaf = np.zeros((K, NLT))
        for L in range(NL):
            nl = t.leaf_nics[L]
            a2a_leaf[:, L] = (self.a2aN[:, nl] * self.hot[:, nl] ** 2).mean(1)
        us = self.sp_out / (UPB * np.maximum(self.fu_u, 1e-9))
        qs = 0.03 * (us / 0.6) ** 4 + 0.28 * a2a_leaf[:, :, None, None] + 3.0 * duty_sp
        # backpressure of hot leaf ports onto the spine queue feeding them
        qleaf = np.zeros((K, NLT))
        for L in range(NL):
            nl = t.leaf_nics[L]
            qleaf[:, L] = (self.qd[:, nl] * self.sf[:, L, None]).mean(1)
        qs = qs + 0.25 * qleaf[:, :, None, None]
        qs = qs * ln(rng, 0.25, qs.shape) * (self.fu_u > 0)
        self.qs = qs
        sp_gen = PFC_K * np.maximum(qs - Q_XOFF, 0.0) ** 1.5 * DT              # frames spine s sends because of egress -> M
        # storm: the spines facing the storm leaf pause the other leaves during the first minute
        sp_gen[:, Ls] += (first * rng.uniform(2000, 4000))[:, None, None] * DT * (self.fu_u[:, Ls] > 0)
        # spread to the ingress ports of spine s by traffic share (via[L, M, s])
        sp_pause = np.zeros((K, NLT, NS, LPS))                                 # frames spine sends to leaf L uplink
        genS = sp_gen.sum(-1)                                                  # (K, M, S)
        via = self.via                                                         # (K, L, M, S)
        vsum = via.sum(1)                                                      # (K, M, S)
        wshare = via / np.maximum(vsum[:, None], 1.0)                          # share of L in traffic to M via s
        tot = (wshare * genS[:, None]).sum(2)                                  # (K, L, S)
        sp_pause += tot[..., None] * self.fu_u / np.maximum(self.fu_u.sum(-1, keepdims=True), 1e-9)
        # leaf uplink egress paused by the spine -> leaf pauses its own hosts
        duty_up = np.clip(sp_pause / DT * PAUSE_DUTY, 0, 1)
        uu = self.up_out / (UPB * np.maximum(self.fu_u, 1e-9))
        qu = (0.02 * (uu / 0.6) ** 4 + 0.15 * a2a_leaf[:, :, None, None] + 3.0 * duty_up) * ln(rng, 0.25, uu.shape)
        qu *= (self.fu_u > 0)
        qu_eff = np.where(ecn_off[:, :, None, None], 2.2 * qu, qu)
        up_gen = (PFC_K * np.maximum(qu_eff - Q_XOFF, 0.0) ** 1.5 * DT).sum((2, 3))
        for L in range(NL):
            nl = t.leaf_nics[L]
            txw = self.tx[:, nl] * self.fu_h[:, nl]
            host_rx_pause[:, nl] += up_gen[:, L, None] * txw / np.maximum(txw.sum(1, keepdims=True), 1.0)
        host_rx_pause[:, ns_] *= (1 - fs)

        # ECN at uplinks / spines, WRED on the mis-set leaf's uplinks
        for L in range(NLT):
            for s in range(NS):
                for l in range(LPS):
                    pu, ps = UP[L, s, l], SP[s, L, l]
                    sw["ecn_marked_pkts_queue3"][:, ps] = sw["out_pkts"][:, ps] * KAPPA * np.minimum(qs[:, L, s, l], 4.0)
                    mk = sw["out_pkts"][:, pu] * KAPPA * np.minimum(qu_eff[:, L, s, l], 4.0)
                    sw["ecn_marked_pkts_queue3"][:, pu] = np.where(ecn_off[:, L], 0.0, mk)
                    sw["wred_dropped_pkts_queue3"][:, pu] = np.where(
                        ecn_off[:, L], sw["out_pkts"][:, pu] * 2.5e-4 * np.maximum(qu_eff[:, L, s, l] - 0.5, 0) ** 1.5, 0.0)
                    sw["out_pause_pkts_prio3"][:, pu] = up_pause[:, L, s, l]
                    sw["in_pause_pkts_prio3"][:, ps] = up_pause[:, L, s, l]
                    sw["out_pause_pkts_prio3"][:, ps] = sp_pause[:, L, s, l]
                    sw["in_pause_pkts_prio3"][:, pu] = sp_pause[:, L, s, l]
        sw["out_pause_pkts_prio3"][:, DN] = host_rx_pause
        sw["in_pause_pkts_prio3"][:, DN] = tx_pause
        hh["rx_prio3_pause"] = host_rx_pause
        hh["tx_prio3_pause"] = tx_pause
        hh["rx_pause_ctrl_phy"] = host_rx_pause

        # drops and discards
        sw["out_discards"] += sw["wred_dropped_pkts_queue3"]
        sw["out_discards"][:, DN[ns_]] += wd_drop
        dp = SP[P["disc_port"]]
        da, db = P["discard"]
        fdisc = frac_in(da, db)
        xd = np.clip((np.arange(K) * DT - da) / (db - da), 0, 1)
        sw["out_discards"][:, dp] += fdisc * sw["out_pkts"][:, dp] * 2e-6 * (15.0 ** xd) * ln(rng, 0.2, K)
        self.disc_p = dp
        cpd = rng.random(Pn) < 0.03
        sw["in_discards"][:, cpd] += rng.uniform(0.01, 0.2, int(cpd.sum())) * DT
        self.ctrl_drop_ports = np.where(cpd)[0]
        # host: ECN seen, CNPs
        spine_marks_in = np.zeros((K, NLT))
        for L in range(NLT):
            spine_marks_in[:, L] = sw["ecn_marked_pkts_queue3"][:, SP[:, L, :].ravel()].sum(1)
        np_ecn = sw["ecn_marked_pkts_queue3"][:, DN].copy()
        for L in range(NL):
            nl = t.leaf_nics[L]
            ww = self.rx[:, nl]
            np_ecn[:, nl] += spine_marks_in[:, L, None] * ww / np.maximum(ww.sum(1, keepdims=True), 1.0)
        hh["np_ecn_marked_roce_packets"] = np_ecn
        hh["np_cnp_sent"] = np_ecn * rng.uniform(0.2, 0.4, NN)
        cnp_h = np.zeros((K, NN))
        for r in range(NR):
            nr_ = np.arange(r, NN, NR)
            tot_c = hh["np_cnp_sent"][:, nr_].sum(1)
            ww = self.tx[:, nr_]
            cnp_h[:, nr_] = tot_c[:, None] * ww / np.maximum(ww.sum(1, keepdims=True), 1.0)
        hh["rp_cnp_handled"] = cnp_h
        hh["rx_out_of_buffer"][:, n] = oob_frac * hh["rx_packets_phy"][:, n]
        hh["link_down_events_phy"] = self.hl_down
        sw["carrier_transitions"] = self.carrier

    # ------------------------------------------------------------------------------------------
    def physical(self):
        """FEC, BER, uncorrectable codewords, FCS, module temperature and optics."""
        rng, t, P = self.rng, self.t, self.P
        sw, hh = self.sw, self.hh
        Pn = t.P
        fu_sw = np.ones((K, Pn))
        fu_sw[:, t.DN] = self.fu_h
        for L in range(NLT):
            for s in range(NS):
                for l in range(LPS):
                    fu_sw[:, t.UP[L, s, l]] = self.fu_u[:, L, s, l]
                    fu_sw[:, t.SP[s, L, l]] = self.fu_u[:, L, s, l]
        self.fu_sw = fu_sw
        bits = t.sw_bits[None, :] * fu_sw
        bits[:, t.DN] *= self.spf
        u_in = sw["in_octets"] / (t.sw_cap[None, :] * np.maximum(fu_sw, 1e-9))
        u_in = np.clip(np.nan_to_num(u_in), 0, 1)
        # module temperature: follows the load of the cage (EMA ~3 min) and the room
        NC = t.NC
        cage_load = np.zeros((K, NC))
        cnt = np.bincount(t.sw_cage, minlength=NC)
        np.add.at(cage_load.T, t.sw_cage, ((sw["in_octets"] + sw["out_octets"]) / (2 * t.sw_cap[None, :])).T)
        cage_load /= np.maximum(cnt, 1)
        ema = np.zeros_like(cage_load)
        acc = cage_load[0].copy()
        for i in range(K):
            acc += (cage_load[i] - acc) * 0.06
            ema[i] = acc
        tbase = rng.uniform(36, 50, NC)
        room = 1.2 * np.sin(2 * np.pi * (np.arange(K) * DT / (7 * 3600.0)) + rng.uniform(0, 6.3))
        temp = tbase[None, :] + 7.0 * ema + room[:, None] + 0.25 * rng.standard_normal((K, NC))
        # overheating module (fault 9)
        hl, hc = P["heat_leaf"], P["heat_cage"]
        hcage = t.sw_cage[t.DN[(2 * (hc - 1)) * NR + hl]]
        ha, hb = P["heat"]
        ts_ = np.arange(K) * DT
        ramp = 1 / (1 + np.exp(-(ts_ - (ha + 1800)) / 480.0))
        cool = np.clip((ts_ - hb) / 480.0, 0, 1)
        excess = (78.5 - (tbase[hcage] + 4)) * ramp * (1 - cool) * (ts_ >= ha)
        temp[:, hcage] += excess
        self.heat_ports = [t.DN[(2 * (hc - 1)) * NR + hl], t.DN[(2 * (hc - 1) + 1) * NR + hl]]
        self.temp = temp
        ptemp = temp[:, t.sw_cage]
        # BER per receiver
        b0 = 10 ** rng.uniform(-7, -5, Pn)
        ber = b0[None, :] * np.exp((ptemp - tbase[t.sw_cage][None, :]) / 11.0) * ln(rng, 0.05, (K, Pn))
        lanes_n = np.array([len(x) for x in t.sw_lanes])
        lane_spread = rng.uniform(1.2, 2.5, Pn)
        worst = ber * lane_spread
        unc_rate = 2e-5 * np.sqrt(b0 / 1e-6)[None, :] * np.ones((K, 1))
        # dirty optic (fault 4): receive side of a leaf uplink, BER up to ~1e-4 over the window
        L, s, l = P["dirty_link"]
        pd, pdp = t.UP[L, s, l], t.SP[s, L, l]
        da, db = P["dirty"]
        fd = (ts_ >= da) & (ts_ < db)
        xd = np.clip((ts_ - da) / (db - da), 0, 1)
        target = 1.2e-4
        ber[:, pd] = np.where(fd, ber[:, pd] * (target / b0[pd]) ** xd, ber[:, pd])
        worst[:, pd] = np.where(fd, ber[:, pd] * 1.6, worst[:, pd])
        unc_rate[:, pd] += np.where(fd, 0.02 * (5000.0 ** xd), 0.0)
        ber[:, pdp] = np.where(fd, ber[:, pdp] * (1 + 2.5 * xd), ber[:, pdp])
        self.dirty_ports = (pd, pdp)
        # aging far-end laser (fault 5): one channel of a spine port's receive power falls
        L, s, l = P["rx_link"]
        prx, ptx = t.SP[s, L, l], t.UP[L, s, l]
        ra = P["rxdecl"][0]
        xdec = np.clip((ts_ - ra) / 7200.0, 0, 1) * (ts_ >= ra)
        drop_db = 8.3 * xdec + 0.15 * rng.standard_normal(K) * (ts_ >= ra)
        self.rx_drop_db = drop_db
        self.rx_ports = (prx, ptx)
        lane_b0 = rng.uniform(2e-7, 4e-7)
        self.rx_p0 = rng.uniform(-2.4, -1.6)
        p_lane = self.rx_p0 - drop_db
        lane_ber = lane_b0 * 10 ** (0.6 * np.maximum(0.0, -6.0 - p_lane))        # ~2e-4 (FEC limit) at -10.5 dBm
        ber[:, prx] = ber[:, prx] + lane_ber / lanes_n[prx]
        worst[:, prx] = np.maximum(worst[:, prx], lane_ber)
        unc_rate[:, prx] += 0.01 * 10 ** (1.6 * np.maximum(0.0, -8.2 - p_lane)) * (p_lane < -8.2)
        # overheating: BER follows temperature already; past 75 C some codewords fail
        for p in self.heat_ports:
            unc_rate[:, p] += np.where(ptemp[:, p] > 75, 0.02 * (ptemp[:, p] - 75), 0.0)
        # counts
        corr = ber * bits * ln(rng, 0.02, (K, Pn))
        unc = rng.poisson(unc_rate * DT * fu_sw).astype(float)
        # link training at link-up: corrected-bit and error bursts
        lb = self.linkup_burst_sw
        corr += lb * rng.uniform(1e6, 1e8, (K, Pn))
        unc += lb * rng.integers(0, 25, (K, Pn))
        fcs = rng.binomial(unc.astype(np.int64), np.clip(u_in * 1.05, 0, 0.98)).astype(float)
        fcs += lb * rng.integers(0, 9, (K, Pn))
        sw["in_fcs_errors"] = fcs
        sw["in_errors"] = fcs + rng.poisson(1e-4, (K, Pn))
        self.phy = {"corrected_bits": corr, "rs_fec_uncorrectable_blocks": unc,
                    "effective_errors": unc * rng.integers(9, 41, (K, Pn))}
        self.ber_worst = worst
        self.bits = bits
        # host receivers
        hb0 = 10 ** rng.uniform(-7, -5, NN)
        hbits = LBITS * self.fu_h * self.spf
        hber = hb0[None, :] * ln(rng, 0.08, (K, NN))
        hunc = rng.poisson(2e-5 * np.sqrt(hb0 / 1e-6)[None, :] * DT * self.fu_h).astype(float)
        hunc += self.linkup_burst_h * rng.integers(0, 20, (K, NN))
        uh = np.clip(self.rx / LINEB, 0, 1)
        hh["rx_crc_errors_phy"] = rng.binomial(hunc.astype(np.int64), np.clip(uh * 1.05, 0, 0.98)).astype(float)
        hh["rx_crc_errors_phy"] += self.linkup_burst_h * rng.integers(0, 6, (K, NN))
        self.hphy = {"rx_corrected_bits_phy": hber * hbits + self.linkup_burst_h * rng.uniform(1e6, 5e7, (K, NN)),
                     "rx_pcs_symbol_err_phy": hunc * rng.integers(1, 4, (K, NN))}
        # optics per lane: receive power, transmit power (at DOM samples)
        self.lane_rx = rng.uniform(-3.2, -0.6, (Pn, 8))
        self.lane_tx = rng.uniform(0.4, 2.6, (Pn, 8))
        # the far end transmits what the near end receives: keep the pairs consistent-ish
        for p in range(Pn):
            q = t.sw_peer[p]
            if q >= 0:
                self.lane_rx[p] = np.clip(self.lane_tx[q] - rng.uniform(1.5, 3.8, 8), -3.6, -0.4)

    # ------------------------------------------------------------------------------------------
    def assemble(self):
        """Cumulative counters, sample instants, suppression, lines."""
        rng, t, P = self.rng, self.t, self.P
        Pn = t.P
        # ---- switch sample phases
        phase = rng.uniform(0.3, 8.0, t.ND)
        jit = np.clip(rng.normal(0, 0.02, (K, t.ND)), -0.1, 0.1)
        late = rng.random((K, t.ND)) < 0.003
        jit = np.where(late, rng.uniform(0.1, 0.6, (K, t.ND)), jit)
        sph = phase[None, :] + jit                                     # seconds after the 10 s tick
        self.sph = sph
        # reachability per device per tick
        reach = np.ones((K, t.ND), bool)
        tick_t = np.arange(K)[:, None] * DT + sph
        for d in range(t.ND):
            for a, b in self.sw_absent[d]:
                reach[:, d] &= ~((tick_t[:, d] >= a) & (tick_t[:, d] < b))
        missed = (rng.random((K, t.ND)) < 0.0015) & reach
        self.reach, self.missed = reach, missed
        exist = np.ones((K, Pn), bool)
        for p in list(t.dev_ports[NEW]) + [t.SP[s, NEW, l] for s in range(NS) for l in range(LPS)]:
            exist[:, p] = tick_t[:, t.sw_dev[p]] >= P["new_leaf"]
        self.exist = exist

        # ---- integer increments and cumulative values at each sample instant
        start = {}
        up_days = rng.uniform(12, 90, t.ND)[t.sw_dev] * 86400
        avg_u = rng.uniform(0.15, 0.35, Pn)
        start["in_octets"] = (t.sw_cap / DT * avg_u * up_days).astype(np.int64)
        start["out_octets"] = (start["in_octets"] * rng.uniform(0.97, 1.03, Pn)).astype(np.int64)
        start["in_pkts"] = start["in_octets"] // rng.integers(2800, 4000, Pn)
        start["out_pkts"] = start["out_octets"] // rng.integers(2800, 4000, Pn)
        for f in ("in_errors", "in_fcs_errors"):
            start[f] = rng.integers(0, 400, Pn)
        start["in_errors"] = start["in_fcs_errors"] + rng.integers(0, 5, Pn)
        start["in_discards"] = rng.integers(0, 2000, Pn)
        start["out_discards"] = rng.integers(0, 300, Pn)
        start["carrier_transitions"] = 2 * rng.integers(1, 6, Pn)
        start["in_pause_pkts_prio3"] = (up_days * rng.uniform(0.5, 20, Pn)).astype(np.int64)
        start["out_pause_pkts_prio3"] = (up_days * rng.uniform(0.5, 20, Pn)).astype(np.int64)
        start["ecn_marked_pkts_queue3"] = (up_days * rng.uniform(500, 20000, Pn)).astype(np.int64)
        start["wred_dropped_pkts_queue3"] = np.zeros(Pn, np.int64)
        start["no_buffer_uc_dropped_pkts_queue3"] = rng.integers(0, 3, Pn) * (rng.random(Pn) < 0.1)
        for p in list(t.dev_ports[NEW]) + [t.SP[s, NEW, l] for s in range(NS) for l in range(LPS)]:
            for f in start:
                start[f][p] = 0
            start["carrier_transitions"][p] = 0
        # new leaf: the spine ports facing it were never used
        self.sw["carrier_transitions"] = self.carrier
        frac = (sph / DT)[:, t.sw_dev]                                   # (K, P)
        inc_all = np.empty((K, Pn, len(SW_FIELDS)), np.int64)
        V = np.empty((K, Pn, len(SW_FIELDS)), np.int64)
        for j, f in enumerate(SW_FIELDS):
            inc_all[:, :, j] = np.rint(np.maximum(self.sw[f], 0))
            del self.sw[f]
            c = np.cumsum(inc_all[:, :, j], 0)
            V[1:, :, j] = c[:-1]
            V[0, :, j] = 0
            del c
            V[:, :, j] += start[f][None, :] + np.floor(inc_all[:, :, j] * frac).astype(np.int64)
        # resets: reboot (all counters from 0 at boot), counter clear
        t_c = P["counter_clear"]
        self.sw_resets.append((t_c, t.dev_ports[P["L_clear"]], None))
        sample_t = np.arange(K)[:, None] * DT + sph[:, t.sw_dev]          # (K, P)
        for tr, ports, _ in self.sw_resets:
            ports = np.asarray(ports)
            ir = iv(tr)
            fr = (tr - ir * DT) / DT
            # value at the reset instant (absolute): start + sum(inc[:ir]) + inc[ir]*fr
            base = np.array([start[f][ports] for f in SW_FIELDS]).T + inc_all[:ir, ports].sum(0) + np.floor(inc_all[ir, ports] * fr).astype(np.int64)
            after = sample_t[:, ports] > tr
            V[:, ports] = np.where(after[..., None], V[:, ports] - base[None], V[:, ports])
        np.maximum(V, 0, out=V)
        self.V = V
        del inc_all

        # PHY counters (same instants + 0.35 s)
        phy_start = {"corrected_bits": (self.bits[0] * 10 ** rng.uniform(-7, -5, Pn) / DT * up_days).astype(np.int64),
                     "rs_fec_uncorrectable_blocks": rng.integers(0, 40, Pn),
                     "effective_errors": rng.integers(0, 900, Pn)}
        for p in list(t.dev_ports[NEW]) + [t.SP[s, NEW, l] for s in range(NS) for l in range(LPS)]:
            for f in phy_start:
                phy_start[f][p] = 0
        frac2 = np.minimum((sph + 0.35) / DT, 0.999)[:, t.sw_dev]
        VP = np.empty((K, Pn, 3), np.int64)
        pinc = {f: np.rint(np.maximum(self.phy[f], 0)).astype(np.int64) for f in PHY_FIELDS}
        for j, f in enumerate(PHY_FIELDS):
            c = np.vstack([np.zeros((1, Pn), np.int64), np.cumsum(pinc[f], 0)[:-1]])
            VP[:, :, j] = phy_start[f][None, :] + c + np.floor(pinc[f] * frac2).astype(np.int64)
        L = self.leaf_reboot_info[0]
        tr, boot = self.leaf_reboot_info[1], self.leaf_reboot_info[3]
        ports = t.dev_ports[L]
        ir = iv(boot)
        base = VP[ir, ports]
        VP[:, ports] = np.where((sample_t[:, ports] > boot)[..., None], VP[:, ports] - base[None], VP[:, ports])
        VP = np.maximum(VP, 0)
        self.VP = VP

        # ---- hosts
        hstart = {}
        hup = rng.uniform(2, 40, NH)[t.h_host] * 86400
        hu = rng.uniform(0.15, 0.35, NN)
        hstart["rx_bytes_phy"] = (LINEB / DT * hu * hup).astype(np.int64)
        hstart["tx_bytes_phy"] = (hstart["rx_bytes_phy"] * rng.uniform(0.97, 1.03, NN)).astype(np.int64)
        hstart["rx_packets_phy"] = hstart["rx_bytes_phy"] // rng.integers(2800, 4000, NN)
        hstart["tx_packets_phy"] = hstart["tx_bytes_phy"] // rng.integers(2800, 4000, NN)
        hstart["rx_crc_errors_phy"] = rng.integers(0, 50, NN)
        hstart["rx_discards_phy"] = rng.integers(0, 5, NN)
        hstart["rx_out_of_buffer"] = rng.integers(0, 200, NN)
        hstart["rx_prio3_pause"] = (hup * rng.uniform(0.5, 15, NN)).astype(np.int64)
        hstart["tx_prio3_pause"] = (hup * rng.uniform(0.0, 0.05, NN)).astype(np.int64)
        hstart["rx_pause_ctrl_phy"] = hstart["rx_prio3_pause"] + rng.integers(0, 10, NN)
        hstart["np_ecn_marked_roce_packets"] = (hup * rng.uniform(300, 8000, NN)).astype(np.int64)
        hstart["np_cnp_sent"] = (hstart["np_ecn_marked_roce_packets"] * rng.uniform(0.2, 0.4, NN)).astype(np.int64)
        hstart["rp_cnp_handled"] = (hstart["np_cnp_sent"] * rng.uniform(0.8, 1.2, NN)).astype(np.int64)
        hstart["link_down_events_phy"] = rng.integers(0, 4, NN)
        hinc = {f: np.rint(np.maximum(self.hh[f], 0)).astype(np.int64) for f in H_FIELDS}
        hdelta = np.where(rng.random((K, NH)) < 0.03, 1.0, 0.0)            # whole-second lateness
        self.hdelta = hdelta
        hfr = (hdelta / DT)[:, t.h_host]
        HV = np.empty((K, NN, len(H_FIELDS)), np.int64)
        for j, f in enumerate(H_FIELDS):
            c = np.vstack([np.zeros((1, NN), np.int64), np.cumsum(hinc[f], 0)[:-1]])
            HV[:, :, j] = hstart[f][None, :] + c + np.floor(hinc[f] * hfr).astype(np.int64)
        hps = {"rx_corrected_bits_phy": (LBITS / DT * 10 ** rng.uniform(-7, -5, NN) * hup).astype(np.int64),
               "rx_pcs_symbol_err_phy": rng.integers(0, 100, NN)}
        HP = np.empty((K, NN, 2), np.int64)
        for j, f in enumerate(HPHY_FIELDS):
            ii = np.rint(np.maximum(self.hphy[f], 0)).astype(np.int64)
            c = np.vstack([np.zeros((1, NN), np.int64), np.cumsum(ii, 0)[:-1]])
            HP[:, :, j] = hps[f][None, :] + c + (ii // 2)
        hsample_t = np.arange(K)[:, None] * DT + hdelta[:, t.h_host]
        for tr, nics in self.h_resets:
            nics = np.asarray(nics)
            ir = iv(tr)
            b1 = HV[ir, nics]
            HV[:, nics] = np.where((hsample_t[:, nics] > tr)[..., None], HV[:, nics] - b1[None], HV[:, nics])
            b2 = HP[ir, nics]
            HP[:, nics] = np.where((hsample_t[:, nics] > tr)[..., None], HP[:, nics] - b2[None], HP[:, nics])
        self.HV, self.HP = np.maximum(HV, 0), np.maximum(HP, 0)
        hreach = np.ones((K, NH), bool)
        for h in range(NH):
            for a, b in self.h_absent[h]:
                hreach[:, h] &= ~((hsample_t[:, h * NR] >= a) & (hsample_t[:, h * NR] < b))
        self.hreach = hreach & ~(rng.random((K, NH)) < 0.002)
        # link state seen by the host agent
        hlink = np.ones((K, NN), np.int64)
        for n in range(NN):
            for a, b in self.hdown[n]:
                hlink[:, n] &= ~((hsample_t[:, n] >= a) & (hsample_t[:, n] < b))
        self.hlink = hlink
        hspeed = np.where(self.speed_half, 200000, 400000)
        self.hspeed = np.where(hlink == 1, hspeed, 4294967295)   # SPEED_UNKNOWN (u32 -1) while the link is down

    # ------------------------------------------------------------------------------------------
    def write(self, outdir):
        t = self.t
        os.makedirs(outdir, exist_ok=True)
        Pn = t.P
        F = len(SW_FIELDS)
        V, VP = self.V, self.VP
        # suppress_redundant + heartbeat: decide which leaves each sample carries
        last_val = np.zeros((Pn, F), np.int64)
        last_k = np.full((Pn, F), -10**6)
        session = np.zeros(Pn, bool)          # collector has a session with the port's device (and the port exists)
        reach_p = self.reach[:, t.sw_dev] & self.exist
        miss_p = self.missed[:, t.sw_dev]
        sw_tags = [t.sw_tags(p) for p in range(Pn)]
        h_tags = [t.h_tags(n) for n in range(NN)]
        names = [f + "=" for f in SW_FIELDS]
        # state lines: group by tick window
        oper = np.array(["UP"] * Pn, dtype=object)
        admin = np.array(["UP"] * Pn, dtype=object)
        speed = np.where(t.sw_is_dn, 400000, 800000).astype(object)
        # initial states: links of the new leaf down until they come up
        for p in list(t.dev_ports[NEW]) + [t.SP[s, NEW, l] for s in range(NS) for l in range(LPS)]:
            oper[p] = "DOWN"
        events = sorted(self.sw_state, key=lambda e: e[0])
        ev_i = 0
        order = t.order
        rank_us = np.zeros(Pn)
        for d in range(t.ND):
            ps = [p for p in order if t.sw_dev[p] == d]
            for j, p in enumerate(ps):
                rank_us[p] = j * 12e-6
        n_lines = 0
        path = os.path.join(outdir, "port_counters.lp")
        hnames = H_FIELDS
        htmpl = ",".join(f"{f}=%di" for f in hnames) + ",speed=%di,link=%di %d\n"
        hphy_tmpl = ",".join(f"{f}=%di" for f in HPHY_FIELDS) + " %d\n"
        phy_ph = (self.rng.integers(0, PHY_EVERY, t.ND))
        dom_ph = (self.rng.integers(0, DOM_EVERY, t.ND))
        hphy_ph = self.rng.integers(0, HPHY_EVERY, NH)
        with open(path, "w", buffering=1 << 22) as fh:
            for k in range(K):
                items = []
                t_lo = k * DT
                # on-change state lines in this window
                while ev_i < len(events) and events[ev_i][0] < t_lo + DT:
                    tt, p, kw = events[ev_i]
                    ev_i += 1
                    if "oper_status" in kw:
                        oper[p] = kw["oper_status"]
                    if "admin_status" in kw:
                        admin[p] = kw["admin_status"]
                    if "port_speed" in kw:
                        speed[p] = kw["port_speed"]
                    d = t.sw_dev[p]
                    # emitted only when the collector has a session and the port is in the plan
                    tk = min(K - 1, max(0, int(tt // DT)))
                    if not (self.reach[tk, d] and self.exist[tk, p]) or tt < 0:
                        continue
                    fs = ",".join(f'{a}="{b}"' if isinstance(b, str) else f"{a}={b}i" for a, b in sorted(kw.items()))
                    items.append((int(round((T0 + tt) * 1e9)), sw_tags[p] + fs))
                # switch counter samples
                rp = reach_p[k]
                sync = rp & ~session
                vk = V[k]
                changed = vk != last_val
                due = (k - last_k) >= HEARTBEAT
                pres = (changed | due | sync[:, None]) & rp[:, None]
                last_val[pres] = vk[pres]
                last_k[pres] = k
                session = rp
                emit = rp & ~miss_p[k]
                tsp = ((T0 + k * DT + self.sph[k, t.sw_dev] + rank_us) * 1e9).round().astype(np.int64)
                vl = vk.tolist()
                pl = pres.tolist()
                tl = tsp.tolist()
                for p in order[emit[order]]:
                    m = pl[p]
                    if not any(m):
                        continue
                    v = vl[p]
                    items.append((tl[p], sw_tags[p] + ",".join([names[j] + str(v[j]) + "i" for j in range(F) if m[j]])))
                # sync state lines after a (re)connect
                for p in np.where(sync & ~miss_p[k])[0]:
                    items.append((tl[p] + 1000, sw_tags[p] + f'admin_status="{admin[p]}",oper_status="{oper[p]}",port_speed={speed[p]}i'))
                # PHY lines (60 s)
                dmask = (k % PHY_EVERY) == phy_ph
                if dmask.any():
                    vp = VP[k]
                    win = max(0, k - PHY_EVERY)
                    dbits = self.bits[win:k + 1].sum(0)
                    derr = VP[k, :, 2] - VP[win, :, 2]
                    wber = self.ber_worst[win:k + 1].mean(0)
                    for p in order[(emit & dmask[t.sw_dev])[order]]:
                        eb = max(0, derr[p]) / dbits[p] if dbits[p] > 0 else 0.0
                        rb = wber[p] if self.fu_sw[k, p] > 0 else 0.0
                        items.append((tl[p] + 350_000_000, sw_tags[p] + "corrected_bits=%di,rs_fec_uncorrectable_blocks=%di,effective_errors=%di,raw_ber=%.3g,effective_ber=%.3g"
                                      % (vp[p, 0], vp[p, 1], vp[p, 2], rb, eb)))
                # transceiver lines (300 s)
                dmask = (k % DOM_EVERY) == dom_ph
                if dmask.any():
                    for p in order[(emit & dmask[t.sw_dev])[order]]:
                        items.append((tl[p] + 1_200_000_000, sw_tags[p] + self.dom_fields(k, p)))
                # hosts
                hr = self.hreach[k]
                vk = self.HV[k].tolist()
                hts = ((T0 + k * DT + self.hdelta[k]) * 10**9).astype(np.int64).tolist()
                for n in range(NN):
                    h = n // NR
                    if not hr[h]:
                        continue
                    items.append((hts[h], h_tags[n] + htmpl % (*vk[n], self.hspeed[k, n], self.hlink[k, n], hts[h])))
                hp = (k % HPHY_EVERY) == hphy_ph
                if hp.any():
                    vk2 = self.HP[k].tolist()
                    for n in range(NN):
                        h = n // NR
                        if hp[h] and hr[h]:
                            ts2 = hts[h] + 5 * 10**9
                            items.append((ts2, h_tags[n] + hphy_tmpl % (*vk2[n], ts2)))
                items.sort(key=lambda x: x[0])
                out = []
                for ts, s_ in items:
                    if s_.endswith("\n"):
                        out.append(s_)
                    else:
                        out.append(f"{s_} {ts}\n")
                n_lines += len(out)
                fh.write("".join(out))
        self.n_lines = n_lines
        return path

    def dom_fields(self, k, p):
        t = self.t
        c = t.sw_cage[p]
        temp = self.temp[k, c]
        lanes = t.sw_lanes[p]
        rxp = self.lane_rx[p].copy() + 0.03 * self.rng.standard_normal(8)
        txp = self.lane_tx[p].copy() + 0.03 * self.rng.standard_normal(8)
        # transmit droop of a hot module, no light when a side is down
        if p in self.heat_ports and temp > 70:
            txp -= 0.06 * (temp - 70)
        prx, ptx = self.rx_ports
        lane = self.P["rx_lane"]
        if p == prx:
            rxp[lane - 1] = self.rx_p0 - self.rx_drop_db[k]
        if p == ptx:
            txp[lane - 1] -= self.rx_drop_db[k]
        if self.fu_sw[k, p] == 0:                      # link down: no light from the far end
            rxp[:] = -40.0
        f = [f"temperature_instant={temp:.2f}"]
        f += [f"input_power_instant_ch{c_}={rxp[c_ - 1]:.2f}" for c_ in lanes]
        f += [f"output_power_instant_ch{c_}={txp[c_ - 1]:.2f}" for c_ in lanes]
        return ",".join(f)

    # ------------------------------------------------------------------------------------------
    def labels(self):
        t, P = self.t, self.P
        # ---- faults
        n = P["slowrx_nic"]
        a, b = P["slowrx"]
        L = t.h_leaf[n]
        self.fault("slow_receiver", t.host[t.h_host[n]], [NETDEV[t.h_rail[n]]], a, b,
                   "host NIC rx_out_of_buffer rising (1e-5 -> 1e-3 of received packets), tx_prio3_pause 80-600/s "
                   "under load: in_pause_pkts_prio3 on its leaf port, more ECN marks toward it",
                   peer_ends=[self.sw_ref(t.DN[n])],
                   related=[{"device": t.leaf[L], "ports": ["*"]}])
        n = P["hs_nic"]
        self.fault("half_speed_link", t.leaf[t.h_leaf[n]], [t.sw_port[t.DN[n]]], P["reseat"], SEC,
                   "host link reseated in the maintenance window came back at 200G: port_speed 200000 and ethtool "
                   "speed 200000 under a speed=400G tag, bytes capped at half, its leaf egress queue congests "
                   "(ECN, some PFC), the job runs at its pace", peer_ends=[self.h_ref(n)],
                   related=[{"device": t.leaf[t.h_leaf[n]], "ports": ["*"]}])
        L = P["L_adm"]
        s, l = P["adm_left"]
        self.fault("admin_down_left", t.leaf[L], [t.sw_port[t.UP[L, s, l]]], P["uplinks_back"], SEC,
                   "uplink shut for maintenance and not brought back when its 3 siblings were: admin_status DOWN, "
                   "oper_status DOWN at both ends, counters flat, load moved to the other uplinks",
                   peer_ends=[self.sw_ref(t.SP[s, L, l])])
        pd, pdp = self.dirty_ports
        self.fault("dirty_optic", *self.sw_name_list(pd), P["dirty"][0], P["dirty"][1],
                   "receive side of a loaded leaf uplink: pre-FEC BER climbing to ~1e-4, uncorrectable codewords and "
                   "FCS/in_errors rising over ~an hour (FCS only while frames flow); the optic is replaced at the end",
                   peer_ends=[self.sw_ref(pdp)])
        prx, ptx = self.rx_ports
        self.fault("rx_power_degrading", *self.sw_name_list(prx), P["rxdecl"][0], SEC,
                   f"receive power of channel {P['rx_lane']} falls from about {self.rx_p0:.1f} dBm toward -10 dBm over "
                   "2 h (the far end's transmit power on that channel falls too: aging laser); FEC corrections rise "
                   "slowly; uncorrectable codewords and FCS errors only in the last ~15-25 min of the decline and after",
                   peer_ends=[self.sw_ref(ptx)])
        dp = self.disc_p
        self.fault("silent_discards", *self.sw_name_list(dp), P["discard"][0], P["discard"][1],
                   "spine egress port discarding 2e-6 -> 3e-5 of its packets (out_discards), no errors, no ECN/PFC "
                   "difference, while its siblings carry the same load cleanly", peer_ends=[self.sw_ref(t.sw_peer[dp])])
        L = P["L_ecn"]
        rel = [{"device": t.leaf[L], "ports": ["*"]}]
        for s in range(NS):
            rel.append({"device": t.spine[s], "ports": [t.sw_port[t.SP[s, L, l]] for l in range(LPS)]})
        for n in t.leaf_nics[L]:
            rel.append({"device": t.host[t.h_host[n]], "ports": [NETDEV[t.h_rail[n]]]})
        self.fault("ecn_misconfigured_switch", t.leaf[L], ["*"], P["ecn"][0], P["ecn"][1],
                   "ECN off and WRED drop on for the lossless queue of one leaf: ecn_marked_pkts_queue3 flat where its "
                   "peers mark, wred_dropped_pkts_queue3/out_discards under load, ~2x the PFC it sends", related=rel)
        L, s, l = P["flap_link"]
        a = min(x for x, _ in self.flaps)
        self.fault("flapping_link", t.leaf[L], [t.sw_port[t.UP[L, s, l]]], a, max(y for _, y in self.flaps) + 60,
                   "bursts of 2-4 down/up cycles within two minutes, ~20 min apart: oper_status DOWN/UP at both ends, "
                   "carrier_transitions +2 per cycle, FCS and corrected-bit bursts at link-up, traffic moves to siblings",
                   peer_ends=[self.sw_ref(t.SP[s, L, l])])
        hp = self.heat_ports
        a, b = P["heat"]
        self.fault("module_overheating", t.leaf[t.sw_dev[hp[0]]], [t.sw_port[p] for p in hp], a, b + 480,
                   "module temperature (both halves of a 2x400G cage) climbing from ~50 C to ~78 C over an hour, past "
                   "70 C warning and 75 C alarm; BER follows, transmit power droops; cools when the fan is fixed",
                   peer_ends=[self.h_ref(t.sw_n[p]) for p in hp])
        n = P["storm_nic"]
        L = t.h_leaf[n]
        sa, sb = P["storm"]
        rel = [{"device": t.leaf[L], "ports": ["*"]}]
        for s in range(NS):
            rel.append({"device": t.spine[s], "ports": [t.sw_port[t.SP[s, L, l]] for l in range(LPS)]})
        for nn in t.leaf_nics[L]:
            if nn != n:
                rel.append({"device": t.host[t.h_host[nn]], "ports": [NETDEV[t.h_rail[nn]]]})
        self.fault("pfc_storm", t.host[t.h_host[n]], [NETDEV[t.h_rail[n]]], sa, sb,
                   "NIC stuck sending PFC: tx_prio3_pause 30-60k/s, in_pause_pkts_prio3 on its leaf port, no traffic "
                   "to the host, PFC-watchdog drops (out_discards); the leaf pauses its uplinks and the spines facing it "
                   "pause back for the first ~90 s (related); the MoE job stalls",
                   peer_ends=[self.sw_ref(t.DN[n])], related=rel)

        # ---- healthy phenomena
        H = self.healthy_event
        JA, JM = P["JA"], P["JM"]
        H("job_start_stop", self.w_hosts(JA), P["A_stop"] - 60, P["A_stop"] + 120,
          "pre-training job drained for the maintenance window: its traffic stops")
        H("job_start_stop", self.w_hosts(JA), P["A_restart"] - 30, P["A_restart"] + 420,
          "pre-training job restarts: NCCL warm-up, then iterations")
        H("job_start_stop", self.w_hosts(JM), P["M_start"] - 30, P["M_start"] + 300, "MoE job starts")
        H("job_start_stop", self.w_hosts(JM), P["M_stop"] - 60, P["M_stop"] + 120, "MoE job stops for the maintenance")
        H("job_start_stop", self.w_hosts(JM), P["M2_start"] - 30, P["M2_start"] + 300, "MoE job restarts")
        H("job_start_stop", self.w_hosts(JM), P["M2_end"] - 60, P["M2_end"] + 120, "MoE job ends")
        for a, b, hosts in P["S"]:
            H("job_start_stop", self.w_hosts(hosts), a - 30, a + 200, "short job starts")
            H("job_start_stop", self.w_hosts(hosts), b - 60, b + 120, "short job ends")
        for a, b in self.ckpts:
            H("checkpoint_pause", self.w_hosts(JA), a - 10, b + 20,
              "pre-training job checkpoints: ~70 s without collective traffic")
        allsp = [f"{s_}:*" for s_ in t.spine]
        jm_leaves = sorted({t.leaf[t.h_leaf[h * NR + r]] for h in JM for r in range(NR)})
        for a, b in self.a2a_windows:
            H("all_to_all", self.w_hosts(JM) + [f"{x}:*" for x in jm_leaves] + allsp, a, b + 30,
              "MoE all-to-all phase: ECN marks on most ports of the job's leaves and on the spines, PFC leaf->spine "
              "and spine->leaf on many ports at once")
        for a, b, targets, rails, tn in self.incasts:
            lv = sorted({t.leaf[t.h_leaf[n]] for n in tn})
            H("incast", self.w_h(tn) + self.w_sw([t.DN[n] for n in tn]) + [f"{x}:*" for x in lv] + allsp, a, b + 30,
              f"dataset-shard reads: 10-16 senders -> {len(targets)} host(s) on rails {rails}: heavy ECN on the "
              "target leaf ports, PFC from those leaves to the spines and back")
        L, tr, back, boot = self.leaf_reboot_info
        H("maintenance_window", [f"{t.leaf[L]}:*", f"{t.leaf[P['L_adm']]}:*"], P["maint_start"], P["maint_end"] + 60,
          "planned maintenance: jobs drained, a leaf upgraded, 4 uplinks of another leaf shut and 3 brought back")
        where = [f"{t.leaf[L]}:*"] + self.w_sw([t.SP[s, L, l] for s in range(NS) for l in range(LPS)]) + \
            self.w_h(t.leaf_nics[L])
        H("leaf_reboot", where, tr - 10, back + 120,
          "leaf rebooted for an upgrade: no telemetry ~5.5 min, its ports and their far ends down ~5 min, every "
          "counter of the leaf restarts from 0 after boot")
        L = P["L_adm"]
        ports = [t.UP[L, s, l] for (s, l) in P["adm_shut"] if (s, l) != P["adm_left"]]
        H("admin_down_planned", self.w_sw(ports + [t.sw_peer[p] for p in ports]), P["uplinks_down"] - 10,
          P["uplinks_back"] + 120, "uplinks shut by the operator in the maintenance window and brought back")
        L = P["L_clear"]
        H("counter_clear", [f"{t.leaf[L]}:*"] + self.w_h(t.leaf_nics[L][:0]), P["counter_clear"] - 10,
          P["counter_clear"] + 60, "nv action clear interface counters: every 10 s counter of the leaf restarts from 0")
        s = P["s_drain"]
        a, b = P["drain"]
        H("spine_drain", [f"{t.spine[s]}:*"] + self.w_sw([t.UP[L, s, l] for L in range(NL) for l in range(LPS)]), a - 10,
          b + 120, "spine drained by an operator: admin-down on every spine port ~30 min (oper DOWN on the 32 leaf "
          "uplinks facing it), load moves to the other spines, then back")
        H("new_leaf", [f"{t.leaf[NEW]}:*"] + self.w_sw([t.SP[s, NEW, l] for s in range(NS) for l in range(LPS)]),
          P["new_leaf"] - 10, P["new_leaf"] + 300, "new leaf cabled and added: its ports and the spine ports facing it "
          "appear, its uplinks come up one by one (control traffic only)")
        d = P["gap_dev"]
        a, b = P["gap"]
        H("collector_gap", [f"{t.swdev[d]}:*"], a, b + 60,
          "collector session to this switch down 10 min: no lines, counters keep counting, full sync after")
        a, b = self.optic_swap
        pd, pdp = self.dirty_ports
        H("optic_replaced", self.w_sw([pd, pdp]), a - 10, b + 120, "dirty optic swapped: link down ~3 min, then clean")
        n = P["storm_nic"]
        L = t.h_leaf[n]
        sa, sb = P["storm"]
        H("pfc_propagation_from_storm", [f"{t.leaf[L]}:*"] + self.w_sw([t.SP[s, L, l] for s in range(NS) for l in range(LPS)]),
          sa, sb + 60, "pauses from the stuck NIC spreading to the leaf's uplinks and the spine ports facing it "
          "(first ~90 s heavy, then watchdog-limited)")
        H("job_stalled_by_storm", self.w_hosts(JM), self.stall[0], self.stall[1] + 180,
          "MoE job stalled by the stuck NIC, restarts after it is reset")
        H("job_paced_by_half_speed_link", self.w_hosts(JA), P["A_restart"], SEC,
          "pre-training job runs at the pace of its 200G link: comm phases twice as long at half the rate")
        H("fec_corrected_background", ["*"], 0, SEC,
          "every link corrects 1e-7..1e-5 of its bits (FEC), following module temperature and load", background=True)
        H("sporadic_fcs", ["*"], 0, SEC,
          "rare uncorrectable codewords (a few a day per link) and single FCS errors when they hit a frame",
          background=True)
        H("ingress_control_drops", self.w_sw(self.ctrl_drop_ports), 0, SEC,
          "in_discards 0.01-0.2/s (control-plane packets dropped at ingress), steady since the start", background=True)
        H("nic_pause_trickle", self.w_h(self.trickle), 0, SEC,
          "a few NICs send a handful of PFC frames when receiving near line rate", background=True)
        H("missing_samples", ["*"], 0, SEC, "~0.15-0.2 % of samples lost by the collector, timestamp jitter",
          background=True)

    def sw_name_list(self, p):
        d, port = self.t.sw_name(p)
        return d, [port]


def main(argv=None):
    ap = argparse.ArgumentParser(description="labelled Spectrum-X RoCEv2 fabric telemetry")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    wall = time.time()
    sim = Sim(a.seed)
    sim.run()
    sim.labels()
    sim.write(a.outdir)
    labels = {
        "scenario": "roce-spectrum-x", "scale": "medium", "seed": a.seed, "fabric": "roce",
        "interval_s": SCORE_S, "sample_s": DT, "t0_ns": T0 * 10**9, "t_end_ns": (T0 + SEC) * 10**9,
        "train_until_ns": (T0 + FIT_S) * 10**9, "fit_first": f"{FIT_S // 60}m",
        "ports": int(sim.t.P + NN), "lines": sim.n_lines,
        "faults": sorted(sim.faults, key=lambda f: f["start_ns"]),
        "healthy_phenomena": sorted(sim.healthy, key=lambda h: h["start_ns"]),
    }
    for f in labels["faults"]:
        assert f["start_ns"] >= labels["train_until_ns"], f
    with open(os.path.join(a.outdir, "labels.json"), "w") as fh:
        json.dump(labels, fh, indent=1)
    size = os.path.getsize(os.path.join(a.outdir, "port_counters.lp"))
    print(f"roce-spectrum-x seed {a.seed}: {labels['ports']} port series, {K} samples, {sim.n_lines:,} lines, "
          f"{size / 1e6:.0f} MB, {len(labels['faults'])} faults, {len(labels['healthy_phenomena'])} healthy phenomena, "
          f"fit-first {labels['fit_first']} -> {a.outdir} in {time.time() - wall:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
