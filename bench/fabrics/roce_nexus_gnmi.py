#!/usr/bin/env python3
# ruff: noqa: E501
"""RoCEv2 GPU fabric on Cisco Nexus 9000, streamed over gNMI (Telegraf) + host ethtool exporter.

    python roce_nexus_gnmi.py OUTDIR [--seed N] [--hosts-per-pod 3..32] [--hours 3..8]

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement `port_counters`, time-ordered)
and OUTDIR/labels.json (fault and healthy-phenomenon labels in the scenario-bank label form).
numpy + standard library only. Same seed -> byte-identical files; another seed moves every fault
and most healthy phenomena to other eligible ports/devices and shifts their times.

DATA SHEET (written the way the NOC documents the fabric)
=========================================================

Fabric
------
* RoCEv2 training fabric, 3-tier Clos, 2 pods, rail-optimised: every GPU host has 8 x 400G NICs
  (ConnectX-7, RDMA devices mlx5_0..mlx5_7); NIC k of every host of a pod is cabled to that pod's
  rail leaf k. Leaves: Nexus 9364D-GX2A style (64 x 400G QSFP-DD), named `p<pod>-lf-r<rail>`;
  host-facing ports Ethernet1/1.., uplinks Ethernet1/49.. .
* Each pod has 2 spines (`p<pod>-sp-<n>`, modular Nexus 9508 style with 16-port 400G line cards;
  leaf-facing ports on line card 1 (Ethernet1/x), storage-leaf port on line card 2, super-spine
  uplinks on line card 3). Every leaf has max(1, hosts_per_pod/4) links to each spine (2:1 at
  the leaf; most rail traffic never leaves the leaf).
* 4 super-spines (`ss-<n>`, Nexus 9332D-GX2B style) join the pods; every spine has
  max(1, hosts_per_pod/4) links to each super-spine. The cross-pod tier is oversubscribed
  (~9:4 at the default size): a job that spans both pods congests it.
* One shared storage leaf `stor-lf-1` hangs off all 4 spines (Ethernet1/29-32, 400G-DR4) and
  breaks two QSFP-DD cages out 4x100G (Ethernet1/1/1-4, Ethernet1/2/1-4, speed tag 100G) to four
  storage nodes stor01..stor04 (2 x 100G each). Storage nodes export nothing.
* Optics: leaf<->spine and spine<->storage-leaf links QDD-400G-DR4-S (4 lanes, single-mode);
  spine<->super-spine QDD-400G-SR8-S (8 lanes, multimode); storage breakouts one DR lane per
  100G child. Host links are 400G active electrical cables (no optical DOM).
* Lossless class: RoCE traffic in CoS 3 / qos-group 3 with PFC (no-drop) and WRED-ECN marking on
  the egress queue (DCQCN on the NICs, CNPs in a strict-priority class). Everything else
  (storage NFS/TCP, control plane) is lossy qos-group 0. PFC watchdog enabled on leaves only.
* Default size is 4 hosts per pod (8 hosts, 64 GPUs, 240 exported ports, ~305k lines for 4 h,
  ~2 s to generate); `--hosts-per-pod 32` builds the full 64-host fabric (1,808 ports, ~2.2 M
  lines for 4 h at these cadences, ~4 GB RAM). `--hours` 3..8 stretches the timeline.

Collectors
----------
1. Switch counters: gNMI SAMPLE subscriptions every 10 s, collected by two Telegraf `gnmi`
   inputs (`tlg-gnmi-a`: pod-1 switches + storage leaf, `tlg-gnmi-b`: pod-2 switches +
   super-spines), OpenConfig interface paths merged with NX-OS native (DME) queuing/PFC/FEC
   paths into one point per port (aggregators.merge), tags renamed to device/port/... by a
   processor. Timestamps are the DEVICE's (ms resolution), not the collector's. Two switches'
   clocks are off by several seconds (one ahead, one behind), so their points sit a few seconds
   away from the other switches' points. Each switch has its own sampling phase.
   A broken gRPC stream shows as a gap for one device, after which the resubscription returns
   full cumulative values (nothing is lost from the counters, only the samples).
2. Optics DOM: OpenConfig platform transceiver paths, SAMPLE every 60 s, pivoted so that one point
   per optical port carries the module values and every lane's values (separate points in the
   same measurement, same port tags plus `transceiver`, no counter fields).
3. Host NIC counters: a Telegraf `ethtool`-style exporter on every host merging `ethtool -S` of
   the netdev with /sys/class/infiniband/mlx5_k/ports/1/hw_counters, every 30 s, own phase per
   host, host clock (NTP-good). Counters reset when the host reboots (driver reload).

Tags
----
Switch points: device, port (Ethernet1/5, Ethernet1/1/3 for breakouts), role (`leaf_down` port of
a leaf facing a host or storage node, `leaf_up` leaf port facing a spine, `spine_down` spine port
facing a leaf or the storage leaf, `spine_up` spine port facing a super-spine, `super_spine`),
rail (leaf rail; a spine port carries the rail of the leaf it faces; absent elsewhere), pod
(`p1`, `p2`, `core` for super-spines, `svc` for the storage leaf), peer_device, peer_port, speed
(nominal: `400G`, `100G`), fabric=`roce`, source (switch management address, added by the gnmi
input), host (the Telegraf collector). DOM points add transceiver (PID).
NIC points: device=host name (gpu001..), port=mlx5_<rail>, role=`nic`, rail, pod, peer_device,
peer_port (the leaf port), speed, fabric, host (= device, added by Telegraf), interface (netdev,
e.g. enp58s0np0), driver=mlx5_core.

Switch fields (10 s, cumulative unsigned counters written as `i` integers unless noted)
-----------------------------------------------------------------------------------------
OpenConfig /interfaces/interface/state/counters (Telegraf names):
  in_octets, out_octets            bytes received / transmitted (all classes, incl. control plane)
  in_pkts, out_pkts                frames; = unicast + multicast + broadcast
  in_unicast_pkts, in_multicast_pkts, in_broadcast_pkts, out_unicast_pkts, out_multicast_pkts,
  out_broadcast_pkts               (LLDP / IPv6 ND multicast, rare ARP broadcast on host ports)
  in_discards                      ingress drops (ingress buffer overflow + policer/unknown drops)
  in_errors                        all receive errors (FCS + runts/symbol)
  in_fcs_errors                    frames with bad FCS (post-FEC corruption)
  out_discards                     egress drops: PFC-watchdog drops + lossy tail drops
  out_errors                       transmit errors (normally 0)
  carrier_transitions              link state changes (+2 per down/up); restarts at reboot
OpenConfig state (strings): admin_status ("UP"/"DOWN"), oper_status ("UP"/"DOWN"),
  port_speed (configured, "SPEED_400GB"/"SPEED_100GB"), negotiated_port_speed (operational,
  "SPEED_400GB", "SPEED_200GB", "SPEED_UNKNOWN" while down).
NX-OS native (DME) paths, Telegraf-flattened:
  pfc_rxPPP_cos3                   PFC pause frames received for CoS 3 (RxPPP)
  pfc_txPPP_cos3                   PFC pause frames sent for CoS 3 (TxPPP)
  pfcwd_shutdowns_q3               PFC watchdog queue shutdowns on qos-group 3 (events)
  queuing_txPkts_qg3, queuing_txByts_qg3      egress packets / bytes of the lossless queue
  queuing_ecnMarkedPkts_qg3        packets CE-marked by WRED-ECN on the lossless egress queue
  queuing_wredAfdTailDropPkts_qg3  WRED/tail drops on the lossless queue (should stay 0)
  queuing_wdTailDropPkts_qg3       packets dropped by the PFC watchdog ("WD & Tail Drop Pkts")
  queuing_qDepthByts_qg3           GAUGE: instantaneous queue depth in bytes at the sample
  queuing_txPkts_qg0, queuing_wredAfdTailDropPkts_qg0   lossy default class packets / drops
  ingressOverflowDropPkts          ingress buffer (slice relay) overflow drops, part of in_discards
  fec_correctedCws, fec_uncorrectedCws   RS(544,514) FEC codewords corrected / uncorrectable;
                                   corrected codewords grow all the time on healthy 400G PAM4 links
                                   (pre-FEC BER 1e-9..1e-6), load-independent (idles are coded too)
Counters start from large values (switches up for months). Device `queuing_txPkts_qg3` is a
32-bit counter on one leaf that runs an older NX-OS release (it wraps every few minutes).

DOM fields (60 s, floats): temperature_c (module), supply_voltage_v, and per lane n (1..4 for
DR4, 1..8 for SR8, the child's own lane for a 100G breakout): chN_input_power_dbm (rx),
chN_output_power_dbm (tx), chN_laser_bias_ma. -40.00 dBm = no light (LOS / laser off), bias 0
when the port is shut.

NIC fields (30 s, cumulative, from the ethtool-style exporter)
---------------------------------------------------------------
  rx_bytes_phy, tx_bytes_phy, rx_packets_phy, tx_packets_phy     port (PHY) totals
  rx_prio3_bytes, tx_prio3_bytes   bytes in the lossless priority
  rx_crc_errors_phy                frames with CRC errors;  rx_symbol_err_phy  uncorrectable symbols
  rx_corrected_bits_phy            FEC-corrected bits (grows continuously on healthy links)
  rx_discards_phy                  NIC receive-buffer drops;  rx_out_of_buffer  RQ (software) drops
  rx_prio3_pause, tx_prio3_pause   PFC pause frames received from / sent to the leaf
  rx_prio3_pause_duration, tx_prio3_pause_duration   microseconds paused / pausing
  rx_prio3_pause_transition        pause state transitions
  tx_pause_storm_warning_events, tx_pause_storm_error_events   NIC PFC-storm detector
  link_down_events_phy             link downs seen by the NIC
  np_ecn_marked_roce_packets       CE-marked RoCE packets received (notification point)
  np_cnp_sent                      CNPs sent back to senders
  rp_cnp_handled, rp_cnp_ignored   CNPs received as sender (reaction point, rate cuts)
  out_of_sequence, packet_seq_err, local_ack_timeout_err   RoCE transport recoveries (drops)
  interface_up (boolean), link_speed_mbps (integer, omitted while the link is down)

Healthy phenomena (real, not faults; all in labels.json `healthy_phenomena`)
----------------------------------------------------------------------------
* Jobs: an all-reduce pre-training job in pod 1 (iterations ~38 s, comm bursts ~85 % of line
  rate, evaluation pauses), a MoE fine-tune in pod 2 with periodic all-to-all phases (cross-rail
  traffic via the spines: many uplinks and spine ports see ECN and PFC at the same moment), a
  weight broadcast across pods in the fit window, and later a 70B job spanning both pods whose
  cross-pod phases congest the super-spine tier (ECN marks and PFC on spine uplinks and
  super-spine ports, pauses spreading one hop). Diurnal background traffic (dev/eval services).
* Checkpoints: storage incast bursts (all hosts of a job writing to the 100G breakout ports for
  ~2.5 min: those ports saturate, mark, pause the storage-leaf uplinks, a few lossy drops).
  Dataset loading at the start of the cross-pod job (storage reads).
* Idle hosts: one host idle for the whole run; another idle between jobs.
* Planned maintenance on one spine: drained (ECMP weight 0, ports stay up, traffic moves to the
  pod's other spine), ports admin-down, reload (no data ~8 min), counters back from 0, ports up,
  undrained 10 min later. Far ends are oper-down while admin-up during the upgrade.
* Unplanned leaf reload (crash): no data for ~6 min, its host links and uplinks down on the far
  ends, every counter restarts from 0; its job stalls and resumes.
* Host reboots (two hosts): all 8 NIC links bounce once on both ends, the host exporter is silent
  for a few minutes and the NIC counters restart from 0.
* Sporadic single FCS errors / uncorrectable codewords on a few healthy links (background), a
  trickle of ingress discards on some ports, FEC corrected codewords everywhere.
* 32-bit wrap of queuing_txPkts_qg3 on one leaf; clock skew of two switches; gNMI stream drops
  and resubscriptions (short per-device gaps); one collector (tlg-gnmi-b) outage of ~7 min.

Faults (labelled; starts on 30 s boundaries after the 30 % fit window)
-----------------------------------------------------------------------
* dirty_optic (x2): contaminated connector after someone re-seated a fabric cable / a storage
  breakout: one bounce, rx power 3.5-5 dB down on the receiving port's lanes, FCS errors at a
  near-constant fraction of received frames (so they rise and fall with load, nothing when idle),
  FEC corrected/uncorrectable codewords up; the far end sees ~2 %. Ends when cleaned (bounce).
* degrading_laser_lane: one lane's laser of one module: bias and tx power of that lane fall over
  ~60 min (other lanes flat), the far end's rx power on that lane follows, FEC corrected rises at
  the far end, then FCS errors at the far end for the last ~12 min, then the module is swapped.
* optic_overheating: module temperature rising ~45-80 C over ~45 min (bias creeping up, tx power
  sagging at the end), FCS errors on both ends only in the last minutes, then airflow restored.
* flapping_link (x2; one fabric link, one host link): bursts of down/up cycles, carrier
  transitions, oper_status DOWN samples, LOS in DOM, FCS at each link-up, ECMP moving traffic to
  siblings or the job stalling (host link).
* pfc_storm: a NIC stuck sending pauses: tx_prio3_pause ~2-4e4/s with near-100 % pause duration,
  pfc_rxPPP_cos3 on the leaf port, traffic to the host ~0, PFC watchdog shutdowns and WD drops;
  in the first minute the leaf pauses its other ports (related); the job stalls.
* ecn_disabled_port: WRED-ECN missing on one spine egress queue towards a leaf: no marks while
  its sibling queues mark during all-to-all phases, pauses from the spine several-fold higher on
  the ports feeding it (related).
* ecn_threshold_too_low: one leaf's WRED-ECN min threshold set ~100x too low: 35-70 % of packets
  marked even at light load on every egress queue, NICs behind it see np_ecn_marked / CNPs
  explode, DCQCN cuts rates, the job slows (its NICs and other hosts' NICs are related).
* half_speed_link: a host link renegotiated at 200G (bounce, negotiated_port_speed SPEED_200GB,
  NIC link_speed_mbps 200000, speed tag still 400G): bytes capped at half line rate, its leaf
  egress queue congests (ECN/PFC), the job slows to its pace; re-seated at the end.
* link_down_admin_up: a leaf-spine link left oper-down after a cable swap while both ends are
  admin-up: LOS both ends, counters frozen, ECMP on the siblings; fixed at the end.
* pfc_deadlock: a spine in a credit-loop-like state: pauses sent and received on most of its
  ports, its throughput collapses to a few %, jobs stall; neighbours (leaf uplinks, super-spine
  ports, storage uplink) and the host links of the pod show knock-on pauses (related).
* linecard_buffer_discards: 4 consecutive ports of one spine line card (one ASIC slice) drop
  2e-4..8e-4 of received frames in the ingress relay (in_discards, ingressOverflowDropPkts),
  RoCE retransmissions on the NICs (related).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from datetime import UTC, datetime
from types import SimpleNamespace

import numpy as np

DT = 10                       # switch sample period (s); also the simulation step
NIC_DT = 30
DOM_DT = 60
RAILS = 8
PODS = 2
SPP = 2                       # spines per pod
NSS = 4                       # super-spines
LC_PORTS = 16                 # ports per spine line card
T0 = datetime(2025, 6, 3, 18, 0, 0, tzinfo=UTC)
T0_NS = int(T0.timestamp()) * 10**9
SCENARIO = "roce-nexus-gnmi"
NETDEVS = ["enp12s0np0", "enp27s0np0", "enp58s0np0", "enp75s0np0",
           "enp139s0np0", "enp156s0np0", "enp187s0np0", "enp204s0np0"]
BIG = 2**62

SW_FIELDS = ["in_octets", "in_pkts", "in_unicast_pkts", "in_multicast_pkts", "in_broadcast_pkts",
             "in_discards", "in_errors", "in_fcs_errors", "out_octets", "out_pkts", "out_unicast_pkts",
             "out_multicast_pkts", "out_broadcast_pkts", "out_discards", "out_errors", "carrier_transitions",
             "pfc_rxPPP_cos3", "pfc_txPPP_cos3", "pfcwd_shutdowns_q3", "queuing_txPkts_qg3",
             "queuing_txByts_qg3", "queuing_ecnMarkedPkts_qg3", "queuing_wredAfdTailDropPkts_qg3",
             "queuing_wdTailDropPkts_qg3", "queuing_qDepthByts_qg3", "queuing_txPkts_qg0",
             "queuing_wredAfdTailDropPkts_qg0", "ingressOverflowDropPkts", "fec_correctedCws",
             "fec_uncorrectedCws"]
NIC_FIELDS = ["rx_bytes_phy", "tx_bytes_phy", "rx_packets_phy", "tx_packets_phy", "rx_prio3_bytes",
              "tx_prio3_bytes", "rx_crc_errors_phy", "rx_symbol_err_phy", "rx_corrected_bits_phy",
              "rx_discards_phy", "rx_out_of_buffer", "rx_prio3_pause", "tx_prio3_pause",
              "rx_prio3_pause_duration", "tx_prio3_pause_duration", "rx_prio3_pause_transition",
              "tx_pause_storm_warning_events", "tx_pause_storm_error_events", "link_down_events_phy",
              "np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
              "out_of_sequence", "packet_seq_err", "local_ack_timeout_err"]
# per-step increment arrays kept for every port
INC = ["in_oct", "in_uc", "in_mc", "in_bc", "in_ovf", "in_trk", "fcs", "in_oth", "out_oct", "out_uc",
       "out_mc", "out_bc", "wd_drop", "qg0_drop", "qg3_drop", "out_err", "pfc_rx", "pfc_tx", "wd_shut",
       "qg3_pkts", "qg3_bytes", "ecn", "qg0_pkts", "fec_c", "fec_u",
       # NIC-only
       "rx_prio_b", "tx_prio_b", "sym", "corr_bits", "rx_disc", "rx_oob", "rx_pdur", "tx_pdur", "ptrans",
       "storm_w", "storm_e", "np_ecn", "np_cnp", "rp_cnp", "rp_ign", "oos", "pse", "lat"]


# --------------------------------------------------------------------------------------------
# topology
# --------------------------------------------------------------------------------------------

def build_topology(hpp, rng):
    T = SimpleNamespace(devs=[], ports=[], hpp=hpp, H=2 * hpp)
    lps = max(1, hpp // 4)
    lss = max(1, hpp // 4)
    T.lps, T.lss = lps, lss

    def dev(name, kind, pod, model, collector, ip):
        d = dict(id=len(T.devs), name=name, kind=kind, pod=pod, model=model, collector=collector,
                 ip=ip, ports=[])
        T.devs.append(d)
        return d

    def port(d, pname, role, rail, speed, optic=None, lanes=0, emit=True, lane0=1, **kw):
        p = dict(id=len(T.ports), dev=d["id"], device=d["name"], name=pname, role=role, rail=rail,
                 pod=d["pod"], speed=speed, optic=optic, lanes=lanes, lane0=lane0, emit=emit, peer=-1,
                 kind=d["kind"])
        p.update(kw)
        T.ports.append(p)
        d["ports"].append(p["id"])
        return p["id"]

    def link(a, b):
        T.ports[a]["peer"] = b
        T.ports[b]["peer"] = a

    T.host_dev, T.nic = [], []
    for h in range(T.H):
        pod = h // hpp
        d = dev(f"gpu{h + 1:03d}", "host", pod, "HGX-H100", "ethtool", f"10.50.{pod}.{h + 11}")
        T.host_dev.append(d["id"])
        T.nic.append([port(d, f"mlx5_{r}", "nic", r, 400, netdev=NETDEVS[r]) for r in range(RAILS)])
    T.leaf, T.ld, T.lu = [], [], []
    for p in range(PODS):
        T.leaf.append([]), T.ld.append([]), T.lu.append([])
        for r in range(RAILS):
            d = dev(f"p{p + 1}-lf-r{r}", "leaf", p, "N9K-C9364D-GX2A", "tlg-gnmi-a" if p == 0 else "tlg-gnmi-b",
                    f"10.60.{p}.{10 + r}")
            T.leaf[p].append(d["id"])
            downs = []
            for i in range(hpp):
                pid = port(d, f"Ethernet1/{i + 1}", "leaf_down", r, 400)
                link(pid, T.nic[p * hpp + i][r])
                downs.append(pid)
            T.ld[p].append(downs)
            ups = []
            for j in range(SPP * lps):
                ups.append(port(d, f"Ethernet1/{49 + j}", "leaf_up", r, 400, optic="QDD-400G-DR4-S", lanes=4,
                                spine=j // lps))
            T.lu[p].append(ups)

    def lc_name(q, slot0):
        return f"Ethernet{slot0 + q // LC_PORTS}/{q % LC_PORTS + 1}"

    T.spine, T.sd, T.sst, T.su = [], [], [], []
    for p in range(PODS):
        T.spine.append([]), T.sd.append([]), T.sst.append([]), T.su.append([])
        for s in range(SPP):
            d = dev(f"p{p + 1}-sp-{s + 1}", "spine", p, "N9K-C9508", "tlg-gnmi-a" if p == 0 else "tlg-gnmi-b",
                    f"10.60.{p}.{40 + s}")
            T.spine[p].append(d["id"])
            per_rail = []
            q = 0
            for r in range(RAILS):
                ms = []
                for m in range(lps):
                    pid = port(d, lc_name(q, 1), "spine_down", r, 400, optic="QDD-400G-DR4-S", lanes=4, lc=1 + q // LC_PORTS)
                    link(pid, T.lu[p][r][s * lps + m])
                    ms.append(pid)
                    q += 1
                per_rail.append(ms)
            T.sd[p].append(per_rail)
            slot_st = 1 + (q - 1) // LC_PORTS + 1
            T.sst[p].append(port(d, f"Ethernet{slot_st}/1", "spine_down", -1, 400, optic="QDD-400G-DR4-S", lanes=4))
            ups = []
            for k in range(NSS):
                ups.append([port(d, lc_name(k * lss + m, slot_st + 1), "spine_up", -1, 400, optic="QDD-400G-SR8-S",
                                 lanes=8) for m in range(lss)])
            T.su[p].append(ups)
    T.ss, T.ssp = [], []
    for k in range(NSS):
        d = dev(f"ss-{k + 1}", "ss", -1, "N9K-C9332D-GX2B", "tlg-gnmi-b", f"10.60.9.{10 + k}")
        T.ss.append(d["id"])
        per = {}
        g = 0
        for p in range(PODS):
            for s in range(SPP):
                lst = []
                for m in range(lss):
                    pid = port(d, f"Ethernet1/{1 + g}", "super_spine", -1, 400, optic="QDD-400G-SR8-S", lanes=8)
                    link(pid, T.su[p][s][k][m])
                    lst.append(pid)
                    g += 1
                per[(p, s)] = lst
        T.ssp.append(per)
    d = dev("stor-lf-1", "stleaf", -2, "N9K-C9332D-GX2B", "tlg-gnmi-a", "10.60.8.10")
    T.stleaf = d["id"]
    T.stu = {}
    g = 0
    for p in range(PODS):
        for s in range(SPP):
            pid = port(d, f"Ethernet1/{29 + g}", "leaf_up", -1, 400, optic="QDD-400G-DR4-S", lanes=4)
            link(pid, T.sst[p][s])
            T.stu[(p, s)] = pid
            g += 1
    T.sc, T.sn = [], []
    snodes = [dev(f"stor{n + 1:02d}", "stor", -2, "storage", "none", f"10.70.0.{n + 1}") for n in range(4)]
    for n in range(8):
        pid = port(d, f"Ethernet1/{1 + n // 4}/{n % 4 + 1}", "leaf_down", -1, 100, optic="QDD-400G-DR4-S", lanes=1,
                   lane0=n % 4 + 1)
        vp = port(snodes[n // 2], f"mlx5_{n % 2}", "storage_nic", -1, 100, emit=False)
        link(pid, vp)
        T.sc.append(pid)
        T.sn.append(vp)
    T.P = len(T.ports)
    T.speed = np.array([p["speed"] for p in T.ports], float)
    T.peer = np.array([p["peer"] for p in T.ports], int)
    T.is_nic = np.array([p["role"] == "nic" for p in T.ports])
    T.is_sw = np.array([p["kind"] in ("leaf", "spine", "ss", "stleaf") for p in T.ports])
    T.optical = [i for i, p in enumerate(T.ports) if p["optic"] and p["emit"]]
    return T


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

def ln(rng, sigma, shape):
    return np.exp(rng.normal(-0.5 * sigma * sigma, sigma, shape))


def pname(T, pid):
    p = T.ports[pid]
    return p["device"], p["name"]


def ref(T, pid):
    d, n = pname(T, pid)
    return {"device": d, "port": n}


def where(T, pids):
    return [f"{T.ports[i]['device']}:{T.ports[i]['name']}" for i in pids]


class Plan:
    pass


# --------------------------------------------------------------------------------------------
# scenario plan: jobs, healthy phenomena, faults (all times in seconds from t0)
# --------------------------------------------------------------------------------------------

def make_plan(T, rng, hours):
    L = Plan()
    NF = round(hours * 3600 / DT) * DT
    L.NF, L.N = NF, NF // DT
    sc = hours / 4.0

    def M(x, jit=0.0):
        v = (x + (rng.uniform(-jit, jit) if jit else 0.0)) * sc * 60
        return round(v / 30.0) * 30

    L.M = M
    L.train = round(0.3 * NF / 30.0) * 30
    hpp, H = T.hpp, T.H
    pod_hosts = [list(range(hpp)), list(range(hpp, 2 * hpp))]
    L.down = {i: [] for i in range(T.P)}        # port -> [(a, b, cause)]
    L.nolines = {d["id"]: [] for d in T.devs}   # device -> [(a, b)]
    L.resets = {d["id"]: [] for d in T.devs}    # device -> [t]
    L.admin = {i: [] for i in range(T.P)}       # port -> [(a, b)] admin down
    L.faults, L.healthy = [], []
    L.linkup_err = []                           # (port, t, n) link-training errors
    L.slow = []                                 # (job, a, b, factor)
    used_ports = set()
    ex_leaf = set()

    def dn(pids, a, b, cause):
        for pid in pids:
            L.down[pid].append((a, b, cause))

    def both(pid):
        return [pid, T.peer[pid]]

    def ns(t):
        return T0_NS + int(t) * 10**9

    def healthy(kind, wh, a, b, note, background=False):
        e = {"kind": kind, "where": wh, "start_ns": ns(a), "end_ns": ns(b), "note": note}
        if background:
            e["background"] = True
        L.healthy.append(e)

    def fault(kind, pid_or_dev, ports, a, b, sig, peer_ends=(), related=()):
        dev = pid_or_dev
        f = {"kind": kind, "device": dev, "ports": ports, "start_ns": ns(a), "end_ns": ns(b),
             "peer_ends": list(peer_ends), "related": list(related), "signature": sig}
        L.faults.append(f)

    # ---------------- jobs ----------------
    idle_a = int(rng.choice(pod_hosts[1]))
    host_b = int(rng.choice(pod_hosts[0]))
    j1_end = M(150, 2)
    j2_end = M(158, 2)
    j3_a, j3_b = M(165, 2), M(228, 3)
    L.jobs = [
        dict(name="llm-pretrain", hosts=pod_hosts[0], a=0, b=j1_end, kind="allreduce",
             period=rng.uniform(35, 41), duty=0.55, rate=0.86, xr=0.10,
             evals=[(a, a + 180) for a in (M(x, 2) for x in (38, 78, 118))],
             ckpt=[(M(x, 2), None) for x in (22, 52, 97, 137)]),
        dict(name="moe-finetune", hosts=[h for h in pod_hosts[1] if h != idle_a], a=0, b=j2_end, kind="moe",
             period=rng.uniform(29, 33), duty=0.45, rate=0.80, xr=0.15, evals=[], ckpt=[],
             a2a=[(a, a + int(rng.integers(8, 15)) * 30) for a in (M(x, 3) for x in (12, 36, 61, 88, 112, 138))]),
        dict(name="llm-70b-xpod", hosts=[h for h in range(H) if h != idle_a], a=j3_a, b=j3_b, kind="xpod",
             period=rng.uniform(42, 48), duty=0.6, rate=0.85, xr=0.10, evals=[],
             ckpt=[(M(200, 3), None)]),
    ]
    for j in L.jobs:
        j["ckpt"] = [(a, a + 150) for a, _ in j["ckpt"]]
    L.idle_a, L.host_b = idle_a, host_b
    L.xfer = (M(45, 2), 0)
    L.xfer = (L.xfer[0], L.xfer[0] + 360)
    L.dsload = (j3_a, j3_a + 300)
    # ---------------- healthy phenomena ----------------
    allp = ["*"]
    healthy("diurnal_load", allp, 0, NF, "dev/eval background traffic follows the working day (peak ~14:00 local)", True)
    J1, J2, J3 = L.jobs
    healthy("job_phases", [f"{T.devs[T.host_dev[h]]['name']}:*" for h in J1["hosts"]] + [f"{T.devs[T.leaf[0][r]]['name']}:*" for r in range(RAILS)],
            0, J1["b"] + 60, "pre-training job in pod 1: all-reduce iterations, evaluation pauses, job end")
    healthy("job_phases", [f"{T.devs[T.host_dev[h]]['name']}:*" for h in J2["hosts"]] + [f"{T.devs[T.leaf[1][r]]['name']}:*" for r in range(RAILS)],
            0, J2["b"] + 60, "MoE fine-tune in pod 2: all-reduce iterations, job end")
    for a, b in J1["evals"]:
        healthy("job_eval_pause", [f"{T.devs[T.host_dev[h]]['name']}:*" for h in J1["hosts"]], a, b, "evaluation: fabric nearly silent")
    sp_all = [f"{T.devs[d]['name']}:*" for p in range(PODS) for d in T.spine[p]]
    for a, b in J2["a2a"]:
        healthy("all_to_all_phase", [f"{T.devs[d]['name']}:*" for d in T.leaf[1] + T.spine[1]] +
                [f"{T.devs[T.host_dev[h]]['name']}:*" for h in J2["hosts"]], a, b,
                "MoE expert-parallel all-to-all: cross-rail traffic through the pod-2 spines, ECN and PFC on many uplinks/spine ports at once")
    stor = ["stor-lf-1:*", *sp_all]
    for j in (J1, J3):
        for a, b in j["ckpt"]:
            healthy("storage_incast", stor + [f"{T.devs[T.host_dev[h]]['name']}:*" for h in j["hosts"]], a, b + 60,
                    f"checkpoint of {j['name']}: writes converge on the 100G storage breakouts (ECN, PFC to the storage uplinks and spines, a few lossy drops)")
    healthy("dataset_load", stor, L.dsload[0], L.dsload[1], "cross-pod job start: dataset reads from storage")
    ssw = [f"{T.devs[d]['name']}:*" for d in T.ss] + sp_all
    healthy("super_spine_congestion", ssw + [f"{T.devs[d]['name']}:*" for p in range(PODS) for d in T.leaf[p]],
            L.xfer[0], L.xfer[1] + 60, "weights broadcast from pod 2 to pod 1: cross-pod tier congested (ECN/PFC on spine uplinks and super-spines)")
    healthy("super_spine_congestion", ssw + [f"{T.devs[d]['name']}:*" for p in range(PODS) for d in T.leaf[p]] +
            [f"{T.devs[T.host_dev[h]]['name']}:*" for h in J3["hosts"]],
            J3["a"], J3["b"] + 60, "70B job spanning both pods: cross-pod phases saturate the oversubscribed super-spine tier; job start/stop")
    healthy("idle_host", [f"{T.devs[T.host_dev[idle_a]]['name']}:*", *where(T, [T.peer[x] for x in T.nic[idle_a]])], 0, NF,
            "host not allocated: only LLDP/ND on its links", True)
    healthy("idle_host", [f"{T.devs[T.host_dev[host_b]]['name']}:*", *where(T, [T.peer[x] for x in T.nic[host_b]])], J1["b"], J3["a"],
            "host between jobs (rebooted for a driver update)")
    # host reboots
    for h, (a0, jit) in ((idle_a, (28, 2)), (host_b, (153, 1))):
        a = M(a0, jit)
        b = a + int(rng.integers(8, 11)) * 30
        up = b - 70
        for r in range(RAILS):
            dn(both(T.nic[h][r]), a + 4, up, "host_reboot")
            L.linkup_err.append((T.nic[h][r], up, int(rng.integers(0, 4))))
            L.linkup_err.append((T.peer[T.nic[h][r]], up, int(rng.integers(0, 4))))
        L.nolines[T.host_dev[h]].append((a, b))
        L.resets[T.host_dev[h]].append(a + 4)
        healthy("host_reboot", [f"{T.devs[T.host_dev[h]]['name']}:*", *where(T, [T.peer[x] for x in T.nic[h]])], a, b + 60,
                "host reboot: every NIC link bounces once on both ends, exporter silent, NIC counters restart from 0")
    # spines: roles
    pod2_sp = [(1, s) for s in range(SPP)]
    E = pod2_sp[int(rng.integers(0, SPP))]
    rest = [(p, s) for p in range(PODS) for s in range(SPP) if (p, s) != E]
    rng.shuffle(rest)
    MS, C, D = rest[0], rest[1], rest[2]
    L.roles = dict(ecn_spine=E, maint=MS, linecard=C, deadlock=D)
    # maintenance
    dr_a = M(92, 3)
    ad_a = dr_a + 600
    rl_a, rl_b = ad_a + 120, ad_a + 120 + 480
    un_a = rl_b + 600
    L.drain = (MS, dr_a, un_a)
    msd = T.spine[MS[0]][MS[1]]
    msp = T.devs[msd]["ports"]
    for pid in msp:
        L.admin[pid].append((ad_a, rl_b))
        L.down[pid].append((ad_a, rl_b, "self_admin"))
        L.down[T.peer[pid]].append((ad_a, rl_b + 20, "peer_admin"))
        L.linkup_err.append((T.peer[pid], rl_b + 20, int(rng.integers(0, 3))))
    L.nolines[msd].append((rl_a, rl_b))
    L.resets[msd].append(rl_a)
    healthy("planned_maintenance", [f"{T.devs[msd]['name']}:*", *where(T, [T.peer[x] for x in msp])], dr_a, un_a + 120,
            "spine drained (ECMP weight 0, ports up), ports admin-down, NX-OS upgrade reload (no data), counters back from 0, undrained")
    # leaf reload (crash) during the cross-pod job
    rp = int(rng.integers(0, PODS))
    rr = int(rng.integers(0, RAILS))
    R = T.leaf[rp][rr]
    ex_leaf.add(R)
    rb_a = M(181, 3)
    rb_b = rb_a + int(rng.integers(11, 14)) * 30
    for pid in T.devs[R]["ports"]:
        L.down[pid].append((rb_a, rb_b, "reboot"))
        L.down[T.peer[pid]].append((rb_a, rb_b + 10, "peer_reboot"))
        L.linkup_err.append((pid, rb_b + 10, int(rng.integers(0, 5))))
    L.nolines[R].append((rb_a, rb_b))
    L.resets[R].append(rb_a)
    L.slow.append((2, rb_a, rb_b + 180, 0.04))
    healthy("switch_reboot", [f"{T.devs[R]['name']}:*"] + where(T, [T.peer[x] for x in T.devs[R]["ports"]]) +
            [f"{T.devs[T.host_dev[h]]['name']}:*" for h in J3["hosts"]], rb_a, rb_b + 240,
            "leaf crashed and reloaded: no data, its links down on the far ends, all its counters restart from 0; the job stalls and resumes")
    L.leaf_reboot = (R, rb_a, rb_b)
    # 32-bit wrap leaf, clock skew
    cand = [T.leaf[p][r] for p in range(PODS) for r in range(RAILS) if T.leaf[p][r] != R]
    L.wrap_leaf = int(cand[int(rng.integers(0, len(cand)))])
    healthy("counter_wrap_32bit", [f"{T.devs[L.wrap_leaf]['name']}:*"], 0, NF,
            "queuing_txPkts_qg3 is 32-bit on this leaf (older NX-OS): wraps every few minutes under load", True)
    sk_leaf = int(cand[int(rng.integers(0, len(cand)))])
    sk_sp = T.spine[C[0]][C[1]]
    L.skew = {d["id"]: float(rng.normal(0, 0.02)) for d in T.devs}
    L.skew[sk_leaf] = float(rng.uniform(4.0, 7.5))
    L.skew[sk_sp] = -float(rng.uniform(3.5, 6.5))
    healthy("clock_skew", [f"{T.devs[sk_leaf]['name']}:*", f"{T.devs[sk_sp]['name']}:*"], 0, NF,
            f"device clocks off: {T.devs[sk_leaf]['name']} {L.skew[sk_leaf]:+.1f} s, {T.devs[sk_sp]['name']} {L.skew[sk_sp]:+.1f} s", True)
    # collector outage and stream drops
    oa = M(132, 3)
    ob = oa + int(rng.integers(12, 16)) * 30
    for d in T.devs:
        if d["collector"] == "tlg-gnmi-b":
            L.nolines[d["id"]].append((oa, ob))
    healthy("collector_outage", [f"{d['name']}:*" for d in T.devs if d["collector"] == "tlg-gnmi-b"], oa, ob + 60,
            "telegraf tlg-gnmi-b hung: no samples from pod-2 switches and super-spines, then full values on resubscribe")
    sws = [d["id"] for d in T.devs if d["kind"] in ("leaf", "spine", "ss", "stleaf")]
    for k in range(6):
        d = sws[int(rng.integers(0, len(sws)))]
        a = int(rng.uniform(5, 68) * 60 * sc) if k < 3 else int(rng.uniform(75, 235) * 60 * sc)
        b = a + int(rng.integers(2, 9)) * 10
        L.nolines[d].append((a, b))
        healthy("gnmi_resubscribe", [f"{T.devs[d]['name']}:*"], a, b + 30, "gRPC stream dropped, gap, resubscribed with full values")

    # ---------------- faults ----------------
    def free(pids):
        return all(p not in used_ports and T.peer[p] not in used_ports for p in pids)

    def take(pids):
        for p in pids:
            used_ports.add(p)
            used_ports.add(T.peer[p])

    def leaf_of(pid):
        return T.ports[pid]["dev"]

    def pick(cands, cond=lambda x: True):
        c = [x for x in cands if free([x]) and leaf_of(x) not in ex_leaf and leaf_of(T.peer[x]) not in ex_leaf and cond(x)]
        return c[int(rng.integers(0, len(c)))]

    ls_links = [T.lu[p][r][j] for p in range(PODS) for r in range(RAILS) for j in range(len(T.lu[p][r]))]
    sss_links = [T.su[p][s][k][m] for p in range(PODS) for s in range(SPP) for k in range(NSS) for m in range(T.lss)]

    def spine_of_lu(pid):
        p = T.ports[pid]
        return (p["pod"], p["spine"])

    L.f = {}
    # linecard discards on spine C: 4 consecutive leaf-facing ports of line card 1
    cd = T.spine[C[0]][C[1]]
    lcp = [x for x in T.devs[cd]["ports"] if T.ports[x]["role"] == "spine_down" and T.ports[x].get("lc") == 1]
    k0 = int(rng.integers(0, len(lcp) - 3))
    grp = lcp[k0:k0 + 4]
    take(grp)
    a, b = M(168, 3), M(225, 3)
    L.f["linecard"] = (grp, a, b)
    fault("linecard_buffer_discards", T.devs[cd]["name"], [T.ports[x]["name"] for x in grp], a, b,
          "in_discards / ingressOverflowDropPkts at 2e-4..8e-4 of received frames on 4 consecutive ports of one line card; RoCE retransmissions on the NICs",
          peer_ends=[ref(T, T.peer[x]) for x in grp],
          related=[{"device": T.devs[T.host_dev[h]]["name"], "ports": ["*"]} for h in J3["hosts"]])
    # deadlock on spine D
    dd = T.spine[D[0]][D[1]]
    a = M(209, 2)
    b = a + int(rng.integers(24, 33)) * 30
    L.f["deadlock"] = (dd, a, b)
    rel = []
    for x in T.devs[dd]["ports"]:
        rel.append(ref(T, T.peer[x]))
    relg = {}
    for r_ in rel:
        relg.setdefault(r_["device"], []).append(r_["port"])
    related = [{"device": k, "ports": v} for k, v in relg.items()]
    related += [{"device": T.devs[T.leaf[D[0]][r]]["name"], "ports": ["*"]} for r in range(RAILS)]
    related += [{"device": T.devs[T.host_dev[h]]["name"], "ports": ["*"]} for h in J3["hosts"]]
    fault("pfc_deadlock", T.devs[dd]["name"], ["*"], a, b,
          "pfc_rxPPP_cos3 and pfc_txPPP_cos3 high on most ports of one spine, its octets collapse to a few %, queues stuck full; jobs stall",
          related=related)
    # ecn disabled on a spine-E port facing a pod-2 leaf
    ed = T.spine[E[0]][E[1]]
    ecands = [x for x in T.devs[ed]["ports"] if T.ports[x]["role"] == "spine_down" and T.ports[x]["rail"] >= 0]
    ep = pick(ecands)
    take([ep])
    a, b = M(80, 3), M(150, 3)
    L.f["ecn_port"] = (ep, a, b)
    feeders = [x for x in T.devs[ed]["ports"] if x != ep]
    related = [{"device": T.devs[ed]["name"], "ports": [T.ports[x]["name"] for x in feeders]}]
    relg = {}
    for x in feeders:
        relg.setdefault(T.ports[T.peer[x]]["device"], []).append(T.ports[T.peer[x]]["name"])
    related += [{"device": k, "ports": v} for k, v in relg.items()]
    fault("ecn_disabled_port", T.devs[ed]["name"], [T.ports[ep]["name"]], a, b,
          "queuing_ecnMarkedPkts_qg3 flat on this spine egress while sibling queues mark in all-to-all phases; pfc_txPPP_cos3 several-fold on the ports feeding it",
          peer_ends=[ref(T, T.peer[ep])], related=related)
    # pfc storm and ecn-low leaf in different pods
    Y = int(rng.integers(0, PODS))
    X = 1 - Y
    jy = L.jobs[0] if Y == 0 else L.jobs[1]
    sh = int(rng.choice([h for h in jy["hosts"] if h != host_b]))
    srl = int(rng.integers(0, RAILS))
    while T.leaf[Y][srl] in ex_leaf:
        srl = (srl + 1) % RAILS
    snic = T.nic[sh][srl]
    take([snic])
    a = M(106, 3)
    b = a + int(rng.integers(20, 29)) * 30
    L.f["storm"] = (snic, a, b, Y)
    ldp = T.peer[snic]
    lf = T.ports[ldp]["dev"]
    oth = [x for x in T.devs[lf]["ports"] if x != ldp]
    related = [{"device": T.devs[lf]["name"], "ports": [T.ports[x]["name"] for x in oth]}]
    relg = {}
    for x in oth:
        relg.setdefault(T.ports[T.peer[x]]["device"], []).append(T.ports[T.peer[x]]["name"])
    related += [{"device": k, "ports": v} for k, v in relg.items()]
    fault("pfc_storm", T.devs[lf]["name"], [T.ports[ldp]["name"]], a, b,
          "host NIC stuck sending pauses: tx_prio3_pause 2-4e4/s with ~100% pause duration, pfc_rxPPP_cos3 on the leaf port, traffic to the host ~0, PFC watchdog shutdowns and WD drops; the leaf pauses its other ports in the first minute",
          peer_ends=[ref(T, snic)], related=related)
    L.slow.append((0 if Y == 0 else 1, a, b + 60, 0.03))
    # ecn threshold too low on a leaf of pod X
    xr_ = int(rng.integers(0, RAILS))
    while T.leaf[X][xr_] in ex_leaf or T.leaf[X][xr_] == T.ports[T.peer[ep]]["dev"]:
        xr_ = (xr_ + 1) % RAILS
    el = T.leaf[X][xr_]
    ex_leaf.add(el)
    a, b = M(121, 3), M(146, 2)
    L.f["ecn_low"] = (el, a, b, X)
    jx = 0 if X == 0 else 1
    L.slow.append((jx, a, b, 0.62))
    related = [{"device": T.devs[T.host_dev[h]]["name"], "ports": ["*"]} for h in L.jobs[jx]["hosts"]]
    relg = {}
    for x in T.devs[el]["ports"]:
        if T.ports[x]["role"] == "leaf_up":
            relg.setdefault(T.ports[T.peer[x]]["device"], []).append(T.ports[T.peer[x]]["name"])
    related += [{"device": k, "ports": v} for k, v in relg.items()]
    fault("ecn_threshold_too_low", T.devs[el]["name"], ["*"], a, b,
          "35-70% of packets ECN-marked on every egress queue of one leaf even at light load; np_ecn_marked_roce_packets / np_cnp_sent / rp_cnp_handled explode on its NICs; throughput of the job drops",
          related=related)
    # dirty optic on a leaf-spine link
    dl = pick(ls_links, lambda x: spine_of_lu(x) not in (MS,) and T.ports[T.peer[x]]["dev"] != cd)
    take([dl])
    rx = dl if rng.random() < 0.5 else T.peer[dl]
    a, b = M(80, 4), M(200, 4)
    L.f["dirty1"] = (rx, a, b)
    dn(both(rx), a, a + int(rng.integers(2, 5)) * 10, "bounce")
    dn(both(rx), b - 30, b - 10, "bounce")
    fault("dirty_optic", T.ports[rx]["device"], [T.ports[rx]["name"]], a, b,
          "re-seat bounce, rx power 3.5-5 dB low on all lanes, in_fcs_errors/in_errors at ~3e-7..2e-6 of received frames (rising with load), FEC codewords up; far end ~2%; cleaned at the end",
          peer_ends=[ref(T, T.peer[rx])])
    # dirty optic on a storage breakout child (storage leaf receive side)
    sc_ = pick(T.sc)
    take([sc_])
    a, b = M(90, 4), M(232, 4)
    L.f["dirty2"] = (sc_, a, b)
    dn(both(sc_), a, a + 30, "bounce")
    dn(both(sc_), b - 30, b - 10, "bounce")
    fault("dirty_optic", T.ports[sc_]["device"], [T.ports[sc_]["name"]], a, b,
          "100G breakout lane: rx power ~4 dB low, in_fcs_errors at a near-constant fraction of frames read from the storage node (rises with reads, nothing when idle)",
          peer_ends=[])
    # link left down after cable swap
    lk = pick(ls_links, lambda x: spine_of_lu(x) != MS and T.ports[T.peer[x]]["dev"] != cd)
    take([lk])
    a, b = M(140, 4), M(195, 4)
    L.f["swap"] = (lk, a, b)
    dn(both(lk), a, b, "swap")
    L.linkup_err.append((lk, b, 2))
    L.linkup_err.append((T.peer[lk], b, 1))
    fault("link_down_admin_up", T.ports[lk]["device"], [T.ports[lk]["name"]], a, b,
          "after a cable swap the link stays oper_status DOWN with admin_status UP on both ends: LOS in DOM, counters frozen, ECMP on its siblings",
          peer_ends=[ref(T, T.peer[lk])])
    # flapping fabric link
    if rng.random() < 0.7:
        fl = pick(ls_links, lambda x: spine_of_lu(x) != MS)
    else:
        fl = pick(sss_links)
    take([fl])
    a = M(122, 3)
    t = a
    for _burst in range(3):
        for _c in range(int(rng.integers(2, 7))):
            d0 = int(rng.integers(2, 26))
            dn(both(fl), t, t + d0, "flap")
            L.linkup_err.append((fl, t + d0, int(rng.integers(3, 40))))
            L.linkup_err.append((T.peer[fl], t + d0, int(rng.integers(3, 40))))
            t += d0 + int(rng.integers(5, 60))
        t += int(rng.integers(240, 480))
    b = math.ceil((t - 240) / 30.0) * 30
    L.f["flap1"] = (fl, a, b)
    fault("flapping_link", T.ports[fl]["device"], [T.ports[fl]["name"]], a, b,
          "bursts of 2-6 down/up cycles: carrier_transitions +2 each, oper_status DOWN samples, LOS in DOM, FCS at each link-up, traffic moving to siblings",
          peer_ends=[ref(T, T.peer[fl])])
    # laser lane degrading (optical fabric link, not on spine D)
    bad_sp = (T.spine[D[0]][D[1]], T.spine[MS[0]][MS[1]])
    pool = [x for x in ls_links if spine_of_lu(x) not in (D, MS)] + \
        [x for x in sss_links if T.ports[x]["dev"] not in bad_sp]
    ll = pick(pool)
    take([ll])
    em = ll if rng.random() < 0.5 else T.peer[ll]
    lane = int(rng.integers(0, T.ports[em]["lanes"]))
    a = M(149, 2)
    deg_end = a + 3600
    err_end = deg_end + int(rng.integers(22, 27)) * 30
    b = err_end + 150
    L.f["laser"] = (em, lane, a, deg_end, err_end, b)
    dn(both(em), err_end, b, "swap_module")
    fault("degrading_laser_lane", T.ports[em]["device"], [T.ports[em]["name"]], a, b,
          f"lane {lane + 1} only: ch{lane + 1}_laser_bias_ma and ch{lane + 1}_output_power_dbm falling over ~60 min (other lanes flat), far-end ch{lane + 1}_input_power_dbm following, far-end FEC corrected rising, then far-end in_fcs_errors for the last ~12 min; module swapped",
          peer_ends=[ref(T, T.peer[em])])
    # overheating module
    pool = [x for x in ls_links + sss_links if T.ports[T.peer[x]]["dev"] != dd and T.ports[x]["dev"] != dd]
    oh = pick(pool)
    take([oh])
    hm = oh if rng.random() < 0.5 else T.peer[oh]
    a = M(151, 3)
    rise_end = a + 2700
    b = rise_end + int(rng.integers(14, 19)) * 30
    L.f["heat"] = (hm, a, rise_end, b)
    fault("optic_overheating", T.ports[hm]["device"], [T.ports[hm]["name"]], a, b,
          "temperature_c rising ~45->80 C over ~45 min, bias creeping up, tx power sagging at the end; FCS errors on both ends only in the last minutes; airflow restored",
          peer_ends=[ref(T, T.peer[hm])])
    # host-link faults on cross-pod job hosts
    jh = [h for h in J3["hosts"] if h != host_b]
    h6 = int(rng.choice(jh))
    fh = pick([T.peer[T.nic[h6][r]] for r in range(RAILS)])
    take([fh])
    a = M(205, 2)
    t = a
    for _burst in range(2):
        for _c in range(int(rng.integers(2, 6))):
            d0 = int(rng.integers(3, 22))
            dn(both(fh), t, t + d0, "flap")
            L.linkup_err.append((fh, t + d0, int(rng.integers(2, 30))))
            L.linkup_err.append((T.peer[fh], t + d0, int(rng.integers(2, 30))))
            L.slow.append((2, t, t + d0 + 20, 0.15))
            t += d0 + int(rng.integers(5, 50))
        t += int(rng.integers(200, 360))
    b = math.ceil((t - 200) / 30.0) * 30
    L.f["flap2"] = (fh, a, b)
    fault("flapping_link", T.ports[fh]["device"], [T.ports[fh]["name"]], a, b,
          "host link: down/up bursts on both ends (carrier_transitions, link_down_events_phy, interface_up false), CRC at link-up, the job stalls during each down",
          peer_ends=[ref(T, T.peer[fh])])
    h10 = int(rng.choice([h for h in jh if h != h6]))
    hs = pick([T.peer[T.nic[h10][r]] for r in range(RAILS)])
    take([hs])
    a, b = M(171, 2), M(214, 3)
    L.f["half"] = (hs, a, b)
    dn(both(hs), a, a + 8, "bounce")
    dn(both(hs), b - 20, b - 10, "bounce")
    L.slow.append((2, a, b, 0.56))
    fault("half_speed_link", T.ports[hs]["device"], [T.ports[hs]["name"]], a, b,
          "bounce, then negotiated_port_speed SPEED_200GB / link_speed_mbps 200000 under a 400G speed tag: bytes capped at half line rate, its leaf egress queue marks and pauses, the job slows to its pace; re-seated at the end",
          peer_ends=[ref(T, T.peer[hs])],
          related=[{"device": T.devs[T.host_dev[h]]["name"], "ports": ["*"]} for h in J3["hosts"]])
    # linecard / deadlock slowdowns
    L.slow.append((2, L.f["linecard"][1], L.f["linecard"][2], 0.85))
    L.slow.append((2, L.f["deadlock"][1], L.f["deadlock"][2] + 60, 0.08))
    # sporadic FCS background ports
    cands = [i for i in range(T.P) if T.ports[i]["emit"] and i not in used_ports and T.ports[i]["dev"] not in ex_leaf]
    L.sporadic = [int(x) for x in rng.choice(cands, 6, replace=False)]
    healthy("sporadic_fcs", where(T, L.sporadic), 0, NF, "single FCS errors / uncorrectable codewords a few times per hour on healthy links", True)
    L.trickle = [int(x) for x in rng.choice([i for i in range(T.P) if T.is_sw[i]], 12, replace=False)]
    healthy("ingress_discard_trickle", where(T, L.trickle), 0, NF, "a few in_discards per minute (unknown-protocol / policer drops)", True)
    L.faults.sort(key=lambda f: f["start_ns"])
    return L


# --------------------------------------------------------------------------------------------
# traffic
# --------------------------------------------------------------------------------------------

def job_pattern(j, rng, NF):
    act = np.zeros(NF, np.float32)
    fi = np.zeros(NF, np.float32)
    fx = np.zeros(NF, np.float32)
    fp = np.zeros(NF, np.float32)
    fan = np.ones(NF, np.float32)
    a2a_w = j.get("a2a", [])
    t = j["a"] + rng.uniform(0, j["period"])
    while t < j["b"]:
        per = j["period"] * float(rng.lognormal(0, 0.05))
        cs = int(t + per * (1 - j["duty"]))
        ce = int(min(t + per, j["b"]))
        t0 = int(t)
        act[t0:cs] = 0.025
        fi[t0:cs] = 1.0
        if ce > cs:
            act[cs:ce] = j["rate"] * float(rng.lognormal(0, 0.03))
            n = ce - cs
            pos = np.arange(n) / max(n, 1)
            in_a2a = any(a <= cs < b for a, b in a2a_w)
            if j["kind"] == "xpod":
                x = pos >= 0.6
                fi[cs:ce] = np.where(x, 0.0, 1 - j["xr"])
                fx[cs:ce] = np.where(x, 0.0, j["xr"])
                fp[cs:ce] = np.where(x, 1.0, 0.0)
                fan[cs:ce] = np.where(x, 1.3, 1.0)
            elif in_a2a:
                x = pos < 0.55
                fi[cs:ce] = np.where(x, 0.35, 1 - j["xr"])
                fx[cs:ce] = np.where(x, 0.65, j["xr"])
                fan[cs:ce] = np.where(x, 2.4, 1.0)
            else:
                fi[cs:ce] = 1 - j["xr"]
                fx[cs:ce] = j["xr"]
        t += per
    for a, b in j["evals"]:
        act[a:b] = 0.01
        fi[a:b], fx[a:b], fp[a:b] = 1, 0, 0
    act[:max(0, j["a"])] = 0
    act[j["b"]:] = 0
    return act, fi, fx, fp, fan


def diurnal(NF):
    s = np.arange(NF, dtype=np.float64)
    local_h = (T0.hour - 7 + s / 3600.0) % 24          # PDT
    return (0.55 + 0.45 * np.clip(np.sin(np.pi * (local_h - 7) / 12.0), 0, None)).astype(np.float32)


def simulate(T, L, rng):
    NF, H = L.NF, T.H
    P = T.P
    TXC = ("intra", "xrail", "xpod", "storw")
    RXC = ("intra", "xrail", "xpod", "storr")
    ht = {c: np.zeros((H, RAILS, NF), np.float32) for c in TXC}
    hr = {c: np.zeros((H, RAILS, NF), np.float32) for c in RXC}
    fanh = np.ones((H, NF), np.float32)
    S = SimpleNamespace()
    # per-port per-second up mask
    upm = np.ones((P, NF), bool)
    for pid, lst in L.down.items():
        for a, b, _ in lst:
            upm[pid, max(0, a):min(NF, b)] = False
    S.upm = upm
    # job slowdowns
    sf = [np.ones(NF, np.float32) for _ in L.jobs]
    for ji, a, b, f in L.slow:
        sf[ji][max(0, a):min(NF, b)] = np.minimum(sf[ji][max(0, a):min(NF, b)], f)
    # half-speed NIC tries line rate: remember its undo factor
    hs_pid, hs_a, hs_b = L.f["half"]
    hs_nic = T.peer[hs_pid]
    railnoise = ln(rng, 0.04, (H, RAILS, L.N)).repeat(DT, axis=2)
    S.jobact = []
    for ji, j in enumerate(L.jobs):
        act, fi, fx, fp, fan = job_pattern(j, rng, NF)
        S.jobact.append(act.copy())
        act = act * sf[ji]
        for h in j["hosts"]:
            base = act[None, :] * railnoise[h]
            ht["intra"][h] += base * fi
            ht["xrail"][h] += base * fx
            ht["xpod"][h] += base * fp
            fanh[h] = np.maximum(fanh[h], np.where(act > 0.05, fan, 1.0))
        for h in j["hosts"]:
            hr["intra"][h] += act[None, :] * railnoise[h][::-1] * fi
            hr["xrail"][h] += act[None, :] * railnoise[h] * fx
            hr["xpod"][h] += act[None, :] * railnoise[h] * fp
        for a, b in j["ckpt"]:
            ramp = np.ones(b - a, np.float32)
            ramp[:10] = np.linspace(0.2, 1, 10)
            for h in j["hosts"]:
                ht["storw"][h, :, a:b] += 0.062 * ramp * float(rng.lognormal(0, 0.05))
        # dataloader reads while running
        on = (act > 0).astype(np.float32)
        for h in j["hosts"]:
            hr["storr"][h] += 0.004 * on * ln(rng, 0.2, (RAILS, 1))
    a, b = L.dsload
    for h in L.jobs[2]["hosts"]:
        hr["storr"][h, :, a:b] += 0.05
    # weight broadcast pod2 -> pod1
    a, b = L.xfer
    snd = L.jobs[1]["hosts"]
    rcv = L.jobs[0]["hosts"]
    for h in snd:
        ht["xpod"][h, :, a:b] += 0.28
    for h in rcv:
        hr["xpod"][h, :, a:b] += 0.28 * len(snd) / len(rcv)
    # diurnal dev/eval background (cross-rail), not on the idle host
    di = diurnal(NF)
    for h in range(H):
        if h == L.idle_a:
            continue
        amp = 0.012 * float(rng.uniform(0.6, 1.4))
        ht["xrail"][h] += amp * di
        hr["xrail"][h] += amp * di * float(rng.uniform(0.8, 1.2))
    # NIC caps / faults at the host
    cap = np.ones((P, NF), np.float32)
    cap[hs_nic, hs_a:hs_b] = 0.5
    cap[hs_pid, hs_a:hs_b] = 0.5
    S.cap = cap
    undo = np.float32(1.0 / 0.56)          # it is the pace-setter: the job slowed to it, not it to the job
    hrl = T.ports[hs_nic]["rail"]
    hh = next(h for h in range(H) if T.nic[h][hrl] == hs_nic)
    for c in TXC:
        ht[c][hh, hrl, hs_a:hs_b] *= undo
    for c in RXC:
        hr[c][hh, hrl, hs_a:hs_b] *= undo
    snic, s_a, s_b, _ = L.f["storm"]
    sh = next(h for h in range(H) if snic in T.nic[h])
    sr = T.ports[snic]["rail"]
    for c in TXC:
        ht[c][sh, sr, s_a:s_b] = 0
    for c in RXC:
        hr[c][sh, sr, s_a:s_b] *= 0.05
    # ecn-low leaf: DCQCN cuts rates of its NICs further
    el, e_a, e_b, X = L.f["ecn_low"]
    er = next(r for r in range(RAILS) if T.leaf[X][r] == el)
    for h in range(X * T.hpp, (X + 1) * T.hpp):
        for c in TXC:
            ht[c][h, er, e_a:e_b] *= 0.75
        for c in RXC:
            hr[c][h, er, e_a:e_b] *= 0.75

    OFF = np.zeros((P, NF), np.float32)        # offered (fraction of nominal port capacity)
    # NIC tx / leaf-down egress (rx at NIC)
    for h in range(H):
        for r in range(RAILS):
            n = T.nic[h][r]
            OFF[n] = sum(ht[c][h, r] for c in TXC)
            OFF[T.peer[n]] = sum(hr[c][h, r] for c in RXC)
    # carried tx at the NIC scales the classes that go upstream
    for h in range(H):
        for r in range(RAILS):
            n = T.nic[h][r]
            lim = cap[n] * upm[n]
            scale = np.where(OFF[n] > lim, lim / np.maximum(OFF[n], 1e-9), 1.0).astype(np.float32)
            for c in TXC:
                ht[c][h, r] *= scale
    # ECMP weights (per step)
    Nn = L.N
    stepmean = lambda a: a.reshape(a.shape[0], Nn, DT).mean(axis=2)  # noqa: E731
    drained = {}
    MS, dr_a, un_a = L.drain
    ms_dev = T.spine[MS[0]][MS[1]]
    drained[ms_dev] = (dr_a, un_a)
    tgrid = np.arange(Nn) * DT
    S.w = {}
    S.ws = np.zeros((PODS, RAILS, SPP, NF), np.float32)
    for p in range(PODS):
        for r in range(RAILS):
            ups = T.lu[p][r]
            w0 = 1 + rng.normal(0, 0.07, len(ups))
            av = stepmean(upm[ups].astype(np.float32))
            for k, u in enumerate(ups):
                sd = T.ports[T.peer[u]]["dev"]
                if sd in drained:
                    da, db = drained[sd]
                    av[k, (tgrid >= da) & (tgrid < db)] = 0
            w = w0[:, None] * av
            tot = w.sum(axis=0, keepdims=True)
            w = np.where(tot > 0, w / np.maximum(tot, 1e-9), 0)
            ww = w.repeat(DT, axis=1).astype(np.float32)
            for k, u in enumerate(ups):
                S.w[u] = ww[k]
                S.ws[p, r, T.ports[u]["spine"]] += ww[k]
    wss = {}
    for p in range(PODS):
        for s in range(SPP):
            links = [T.su[p][s][k][m] for k in range(NSS) for m in range(T.lss)]
            w0 = 1 + rng.normal(0, 0.05, len(links))
            av = stepmean(upm[links].astype(np.float32))
            w = w0[:, None] * av
            tot = w.sum(axis=0, keepdims=True)
            w = np.where(tot > 0, w / np.maximum(tot, 1e-9), 0).repeat(DT, axis=1).astype(np.float32)
            for k, u in enumerate(links):
                wss[u] = w[k]
    hpp = T.hpp
    Sw = np.zeros((PODS, SPP, NF), np.float32)
    Sr = np.zeros((PODS, SPP, NF), np.float32)
    for p in range(PODS):
        hs = slice(p * hpp, (p + 1) * hpp)
        Xout = np.zeros((SPP, NF), np.float32)
        Xin = np.zeros((SPP, NF), np.float32)
        for r in range(RAILS):
            utx = ht["xrail"][hs, r].sum(0) + ht["xpod"][hs, r].sum(0) + ht["storw"][hs, r].sum(0)
            urx = hr["xrail"][hs, r].sum(0) + hr["xpod"][hs, r].sum(0) + hr["storr"][hs, r].sum(0)
            for u in T.lu[p][r]:
                OFF[u] = utx * S.w[u]
                OFF[T.peer[u]] = urx * S.w[u]
            xo = ht["xpod"][hs, r].sum(0)
            xi = hr["xpod"][hs, r].sum(0)
            sw_ = ht["storw"][hs, r].sum(0)
            sr_ = hr["storr"][hs, r].sum(0)
            for s in range(SPP):
                Xout[s] += xo * S.ws[p, r, s]
                Xin[s] += xi * S.ws[p, r, s]
                Sw[p, s] += sw_ * S.ws[p, r, s]
                Sr[p, s] += sr_ * S.ws[p, r, s]
        for s in range(SPP):
            for k in range(NSS):
                for m in range(T.lss):
                    u = T.su[p][s][k][m]
                    OFF[u] = Xout[s] * wss[u]
                    OFF[T.peer[u]] = Xin[s] * wss[u]
            OFF[T.sst[p][s]] = Sw[p, s]
            OFF[T.stu[(p, s)]] = Sr[p, s]
    # storage breakouts: incast concentrates on a few children
    share = np.full((8, NF), 1 / 8.0, np.float32)
    for j in L.jobs:
        for a, b in j["ckpt"]:
            hot = rng.choice(8, 3, replace=False)
            v = np.full(8, 0.7)
            v[hot] = 1.5
            share[:, a:b] = (v / v.sum())[:, None]
    tw = Sw.sum(axis=(0, 1))
    tr = Sr.sum(axis=(0, 1))
    for n in range(8):
        OFF[T.sc[n]] = tw * share[n] * 4.0
        OFF[T.sn[n]] = tr * (1 / 8.0) * 4.0 * float(rng.uniform(0.85, 1.15))
    S.ckpt_on = np.zeros(NF, np.float32)
    for j in L.jobs:
        for a, b in j["ckpt"]:
            S.ckpt_on[a:b] = 1
    # carried
    C = np.minimum(OFF, cap * upm)
    # deadlock: the spine and its neighbours barely move traffic
    dd, d_a, d_b = L.f["deadlock"]
    dports = T.devs[dd]["ports"]
    for x in dports:
        C[x, d_a:d_b] *= 0.03
        C[T.peer[x], d_a:d_b] *= 0.03
    # storm: leaf egress to the stuck NIC is paused
    C[T.peer[snic], s_a:s_b] = 0
    S.OFF, S.C = OFF, C
    S.Omean = stepmean(OFF)
    S.Opeak = OFF.reshape(P, Nn, DT).max(axis=2)
    S.Cmean = stepmean(C)
    S.upf = stepmean(upm.astype(np.float32))
    S.capm = stepmean(cap)
    # fan-in per egress port per step
    fan = np.ones((P, Nn), np.float32)
    fanstep = fanh.reshape(H, Nn, DT).max(axis=2)
    a2a_pod = np.zeros((PODS, Nn), np.float32)
    for h in range(H):
        p = h // hpp
        a2a_pod[p] = np.maximum(a2a_pod[p], (fanstep[h] > 2) * 1.0)
        for r in range(RAILS):
            fan[T.peer[T.nic[h][r]]] = fanstep[h]
    ck = S.ckpt_on.reshape(Nn, DT).max(axis=1)
    for p in range(PODS):
        for r in range(RAILS):
            for u in T.lu[p][r]:
                fan[u] = 1 + 0.3 * a2a_pod[p]
                fan[T.peer[u]] = 1 + 1.1 * a2a_pod[p] + 0.2 * ck
        for s in range(SPP):
            for k in range(NSS):
                for m in range(T.lss):
                    u = T.su[p][s][k][m]
                    fan[u] = 1.3
                    fan[T.peer[u]] = 1.3
    for n in range(8):
        fan[T.sc[n]] = 1 + 1.8 * ck
    S.fan = fan
    S.ht, S.hr = ht, hr
    S.a2a_pod = a2a_pod
    return S


# --------------------------------------------------------------------------------------------
# congestion (ECN / PFC), errors, NIC counters -> per-step increments
# --------------------------------------------------------------------------------------------

def counters(T, L, S, rng):
    P, N = T.P, L.N
    inc = {k: np.zeros((P, N), np.float64) for k in INC}
    Bps = T.speed * 1e9 / 8
    data_b = S.Cmean * Bps[:, None] * DT
    # control plane (per port): BFD/BGP on fabric links, LLDP / ND everywhere
    fabric = np.array([T.ports[i]["role"] in ("leaf_up", "spine_down", "spine_up", "super_spine") for i in range(P)])
    ctrl_pps = np.where(fabric, 62.0, 1.2)[:, None] * S.upf
    ctrl_pk = ctrl_pps * DT * ln(rng, 0.05, (P, N))
    mc_pk = (0.25 + 0.033) * DT * S.upf * ln(rng, 0.3, (P, N))
    hostp = np.array([T.ports[i]["role"] in ("leaf_down", "nic", "storage_nic") for i in range(P)])
    bc_pk = np.where(hostp[:, None], rng.poisson(DT / 240.0, (P, N)), 0) * (S.upf > 0.5)
    roce_pk = data_b * 0.985 / 4160.0
    ack_pk = roce_pk[T.peer] / 12.0
    qg3_pk = roce_pk + ack_pk
    qg3_b = data_b * 0.985 + ack_pk * 80
    qg0_pk = data_b * 0.015 / 1400.0 + ctrl_pk
    out_b = qg3_b + data_b * 0.015 + ctrl_pk * 90 + mc_pk * 300 + bc_pk * 64
    inc["out_oct"] = out_b
    inc["out_mc"] = mc_pk
    inc["out_bc"] = bc_pk.astype(np.float64)
    inc["out_uc"] = qg3_pk + qg0_pk
    inc["qg3_pkts"] = qg3_pk
    inc["qg3_bytes"] = qg3_b
    inc["qg0_pkts"] = qg0_pk
    out_pk = qg3_pk + qg0_pk + mc_pk + bc_pk
    # ---- congestion ----
    util_eff = (0.4 * S.Omean + 0.6 * S.Opeak) / np.maximum(S.capm, 0.05)
    qp = util_eff * S.fan * (S.upf > 0)
    ecn_on = np.ones((P, N), bool)
    ep, e_a, e_b = L.f["ecn_port"]
    st = lambda t: int(t // DT)  # noqa: E731
    ecn_on[ep, st(e_a):st(e_b)] = False
    mf = 0.02 * np.clip((qp - 0.8) / 0.4, 0, 3) ** 1.5 * ln(rng, 0.35, (P, N))
    mf += 2e-6 * (qp > 0.5)
    mf = np.where(ecn_on, mf, 0.0)
    el, l_a, l_b, _X = L.f["ecn_low"]
    lsl = slice(st(l_a), st(l_b))
    for x in T.devs[el]["ports"]:
        u = S.Cmean[x, lsl]
        mf[x, lsl] = np.where(u > 0.003, rng.uniform(0.35, 0.7, u.shape), mf[x, lsl])
    mf = np.clip(mf, 0, 0.85)
    ecn = qg3_pk * mf * T.is_sw[:, None]
    inc["ecn"] = ecn

    def pfc_gen(q, on):
        g_on = 2600.0 * np.clip(q - 1.1, 0, None)
        g_off = 2600.0 * 4.0 * np.clip(q - 0.9, 0, None)
        return np.where(on, g_on, g_off)

    g = pfc_gen(qp, ecn_on) * ln(rng, 0.5, (P, N)) * T.is_sw[:, None]
    # storm: first minute the leaf queue to the NIC backs up and pauses its feeders
    snic, s_a, s_b, _ = L.f["storm"]
    sld = T.peer[snic]
    g[sld, st(s_a):st(s_a) + 6] = rng.uniform(4000, 9000, 6)
    g[sld, st(s_a) + 6:st(s_b)] = 0
    inW = S.Cmean[T.peer]            # traffic arriving at each port
    feeders = {}
    for d in T.devs:
        if d["kind"] not in ("leaf", "spine", "ss", "stleaf"):
            continue
        ports = d["ports"]
        roles = [T.ports[x]["role"] for x in ports]
        Q = len(ports)
        Mx = np.zeros((Q, Q))
        for qi, q in enumerate(ports):
            rq = roles[qi]
            for ii, i in enumerate(ports):
                if i == q:
                    continue
                ri = roles[ii]
                if d["kind"] == "leaf":
                    ok = rq == "leaf_down" or ri == "leaf_down"
                elif d["kind"] == "spine":
                    if rq == "spine_up":
                        ok = ri == "spine_down"
                    else:
                        ok = True
                elif d["kind"] == "ss":
                    ok = T.ports[T.peer[i]]["pod"] != T.ports[T.peer[q]]["pod"]
                else:
                    ok = (rq == "leaf_down") != (ri == "leaf_down")
                Mx[qi, ii] = 1.0 if ok else 0.0
        feeders[d["id"]] = (ports, Mx)

    def distribute(gen):
        tx = np.zeros((P, N))
        for _did, (ports, Mx) in feeders.items():
            G = gen[ports]
            W = inW[ports] + 1e-4
            den = Mx @ W
            ratio = G / den
            tx[ports] = W * (Mx.T @ ratio)
        return tx

    txppp = distribute(g)
    rxppp = txppp[T.peer]
    # second hop: ports receiving pauses drain slower, their queues back up
    pf = np.clip(rxppp * 20e-6, 0, 1)
    qp2 = qp + 1.5 * pf
    g2 = np.clip(pfc_gen(qp2, ecn_on) - pfc_gen(qp, ecn_on), 0, None) * ln(rng, 0.4, (P, N)) * T.is_sw[:, None]
    txppp = txppp + distribute(g2)
    # NIC stuck sending pauses
    ssl = slice(st(s_a), st(s_b))
    storm_rate = rng.uniform(2.0e4, 4.0e4) * ln(rng, 0.08, (st(s_b) - st(s_a),))
    txppp[snic, ssl] = storm_rate
    # deadlock: most ports of the spine and their neighbours pause each other
    dd, d_a, d_b = L.f["deadlock"]
    dsl = slice(st(d_a), st(d_b))
    nd = st(d_b) - st(d_a)
    for x in T.devs[dd]["ports"]:
        if rng.random() < 0.88:
            txppp[x, dsl] = rng.uniform(4e3, 1.6e4) * ln(rng, 0.3, (nd,))
            txppp[T.peer[x], dsl] = rng.uniform(3e3, 1.2e4) * ln(rng, 0.3, (nd,))
    dpod = next(p for p in range(PODS) if dd in T.spine[p])
    for r in range(RAILS):
        for x in T.ld[dpod][r]:
            txppp[x, dsl] += rng.uniform(300, 1500) * ln(rng, 0.4, (nd,))
    txppp *= (S.upf > 0)
    txppp[snic, ssl] = storm_rate
    rxppp = txppp[T.peer]
    inc["pfc_tx"] = txppp * DT
    inc["pfc_rx"] = rxppp * DT
    # PFC watchdog on the storm port
    wsl = slice(st(s_a) + 6, st(s_b))
    nw = st(s_b) - st(s_a) - 6
    inc["wd_shut"][sld, wsl] = 0.5
    off_pk = S.Omean[sld, wsl] * Bps[sld] * DT / 4160.0
    inc["wd_drop"][sld, wsl] = np.maximum(off_pk, rng.uniform(2e4, 6e4, nw) * DT)
    # lossy drops at the storage breakouts during checkpoints
    for n in range(8):
        x = T.sc[n]
        inc["qg0_drop"][x] = np.where(qp[x] > 1.6, rng.poisson(40, N) * (qp[x] - 1.6), 0)
    # queue depth gauge per step (sampled later)
    depth = np.where(qp > 0.9, np.clip(qp - 0.9, 0, 2.5) * 9e5, 0) * np.where(ecn_on, 1.0, 2.6)
    depth[T.devs[dd]["ports"], dsl] = 2.9e6
    depth[sld, st(s_a):st(s_a) + 6] = 2.2e6
    S.depth = depth * T.is_sw[:, None]
    S.qp = qp

    # ---- errors ----
    in_pk = out_pk[T.peer]
    lam = np.exp(rng.uniform(np.log(30), np.log(4000), P))[:, None] * (1 + 0.15 * np.sin(
        np.arange(N)[None, :] * DT / rng.uniform(3000, 9000, P)[:, None] + rng.uniform(0, 6, P)[:, None]))
    fec_c = lam * DT * S.upf * ln(rng, 0.08, (P, N))
    fec_u = np.zeros((P, N))
    fcs = np.zeros((P, N))
    # sporadic
    for x in L.sporadic:
        k = rng.poisson(2.5 * L.NF / 3600.0)
        ts = rng.integers(0, N, k)
        for t in ts:
            fcs[x, t] += rng.integers(1, 3)
            fec_u[x, t] += rng.integers(1, 4)
    # link training errors
    for x, t, n in L.linkup_err:
        if 0 <= t < L.NF:
            fcs[x, st(t)] += n
            fec_u[x, st(t)] += n * rng.uniform(1, 4)
            fec_c[x, st(t)] += rng.uniform(1e3, 5e4)
    # dirty optic (fabric + storage)
    for key in ("dirty1", "dirty2"):
        x, a, b = L.f[key]
        sl = slice(st(a) + 1, st(b) - 3)
        pfr = rng.uniform(3e-7, 2e-6)
        e = in_pk[x, sl] * pfr * ln(rng, 0.25, (sl.stop - sl.start,))
        fcs[x, sl] += e
        fec_u[x, sl] += e * 1.15 + 0.2 * DT * S.upf[x, sl]
        fec_c[x, sl] *= rng.uniform(25, 60)
        y = T.peer[x]
        fcs[y, sl] += e * 0.02
    # laser lane: far end
    em, _lane, a, deg_end, err_end, b = L.f["laser"]
    far = T.peer[em]
    tt = np.arange(N) * DT
    y = np.clip((tt - a) / (deg_end - a), 0, 1)
    fec_c[far] *= np.where((tt >= a) & (tt < err_end), 10 ** (2.2 * y ** 2), 1)
    ye = np.clip((tt - deg_end) / (err_end - deg_end), 0, 1)
    pl = np.where((tt >= deg_end) & (tt < err_end), 10 ** (-8 + 4.3 * ye), 0)
    e = in_pk[far] * pl * ln(rng, 0.3, (N,))
    fcs[far] += e
    fec_u[far] += e * 1.2
    # overheating: both ends in the last minutes
    hm, a, rise_end, b = L.f["heat"]
    es = rise_end - 300
    ye = np.clip((tt - es) / (b - es), 0, 1)
    ph = np.where((tt >= es) & (tt < b), 10 ** (-8.3 + 3.8 * ye), 0)
    for x in (hm, T.peer[hm]):
        e = in_pk[x] * ph * ln(rng, 0.3, (N,)) * rng.uniform(0.5, 1.0)
        fcs[x] += e
        fec_u[x] += e * 1.2
        fec_c[x] *= np.where((tt >= es) & (tt < b), 10 ** (1.5 * ye), 1)
    inc["fcs"] = fcs * (S.upf > 0)
    inc["fec_u"] = fec_u * (S.upf > 0)
    inc["fec_c"] = fec_c
    inc["in_oth"] = np.where(rng.random((P, N)) < 0.0005, 1, 0) * T.is_sw[:, None]
    # linecard relay discards
    grp, a, b = L.f["linecard"]
    yl = np.clip((tt - a) / 600.0, 0.25, 1)
    for x in grp:
        plc = rng.uniform(2e-4, 8e-4) * yl * ((tt >= a) & (tt < b))
        inc["in_ovf"][x] = in_pk[x] * plc * ln(rng, 0.2, (N,))
    for x in L.trickle:
        inc["in_trk"][x] = rng.poisson(rng.uniform(0.02, 0.3) * DT, N) * (S.upf[x] > 0)
    # ---- NIC-side ----
    nics = [T.nic[h][r] for h in range(T.H) for r in range(RAILS)]
    ld = [T.peer[n] for n in nics]
    inc["rx_prio_b"][nics] = qg3_b[ld]
    inc["tx_prio_b"][nics] = qg3_b[nics]
    inc["sym"][nics] = fcs[nics] * rng.uniform(0.5, 1.5, (len(nics), 1))
    inc["corr_bits"][nics] = fec_c[nics] * rng.uniform(3, 12)
    rxp = rxppp[nics]
    inc["rx_pdur"][nics] = np.minimum(rxp * DT * 18 * ln(rng, 0.3, rxp.shape), DT * 1e6)
    txp = txppp[nics]
    inc["tx_pdur"][nics] = np.minimum(txp * DT * 18 * ln(rng, 0.3, txp.shape), DT * 1e6)
    inc["tx_pdur"][snic, ssl] = DT * 1e6 * rng.uniform(0.96, 0.995, st(s_b) - st(s_a))
    inc["ptrans"][nics] = (rxp + txp) * DT * 0.4
    inc["storm_w"][snic, ssl] = 1.0
    inc["rx_disc"][snic, ssl] = rng.poisson(30, st(s_b) - st(s_a))
    # ECN at the receivers: leaf egress marks + share of upstream marks
    up_marks = np.zeros((PODS, RAILS, N))
    for p in range(PODS):
        for r in range(RAILS):
            for u in T.lu[p][r]:
                up_marks[p, r] += ecn[T.peer[u]]
    hpp = T.hpp
    hr = S.hr
    cross_rx = {}
    for h in range(T.H):
        for r in range(RAILS):
            cross_rx[(h, r)] = (hr["xrail"][h, r] + hr["xpod"][h, r] + hr["storr"][h, r]).reshape(N, DT).mean(axis=1)
    for p in range(PODS):
        for r in range(RAILS):
            tot = sum(cross_rx[(h, r)] for h in range(p * hpp, (p + 1) * hpp)) + 1e-9
            for h in range(p * hpp, (p + 1) * hpp):
                n = T.nic[h][r]
                inc["np_ecn"][n] = ecn[T.peer[n]] + up_marks[p, r] * cross_rx[(h, r)] / tot
    cnp = inc["np_ecn"] * 0.45 * ln(rng, 0.1, (P, N))
    inc["np_cnp"][nics] = cnp[nics]
    for r in range(RAILS):
        ns_ = [T.nic[h][r] for h in range(T.H)]
        txr = S.Cmean[ns_] + 1e-9
        tot_c = cnp[ns_].sum(axis=0)
        inc["rp_cnp"][ns_] = tot_c[None, :] * txr / txr.sum(axis=0, keepdims=True)
    inc["rp_ign"][nics] = inc["rp_cnp"][nics] * 0.002
    # transport recoveries from drops in the path
    drops = inc["in_ovf"].sum(axis=0) + inc["wd_drop"].sum(axis=0) * 0.01
    downs = 1.0 - S.upf
    flap_loss = np.zeros(N)
    for x in (L.f["flap1"][0], L.f["flap2"][0]):
        flap_loss += downs[x] * S.Omean[x] * 2e5
    allrx = sum(cross_rx[(h, r)] for h in range(T.H) for r in range(RAILS)) + 1e-9
    for h in range(T.H):
        for r in range(RAILS):
            n = T.nic[h][r]
            sh_ = cross_rx[(h, r)] / allrx
            inc["oos"][n] = (drops + flap_loss) * sh_ * 0.6 + rng.poisson(0.002 * DT, N)
            inc["pse"][n] = inc["oos"][n] * 0.05
            inc["lat"][n] = (drops + flap_loss) * sh_ * 0.004
    x = L.f["flap2"][0]
    n = T.peer[x]
    inc["lat"][n] += downs[x] * 40
    oob_hosts = rng.choice(T.H, 2, replace=False)
    for h in oob_hosts:
        for r in range(RAILS):
            n = T.nic[h][r]
            inc["rx_oob"][n] = rng.poisson(0.05 * DT, N) * (S.Cmean[T.peer[n]] > 0.1)
    S.out_pk = out_pk
    return inc


# --------------------------------------------------------------------------------------------
# sampling and output
# --------------------------------------------------------------------------------------------

def in_windows(s, windows):
    m = np.zeros(s.shape, bool)
    for a, b in windows:
        m |= (s >= a) & (s < b)
    return m


def sample_interp(cum, inc, s):
    x = s / DT
    j = np.clip(np.floor(x).astype(np.int64), 0, inc.shape[-1] - 1)
    f = x - j
    return cum[..., j] + f * inc[..., j]


def port_state(L, pid, s):
    """oper up (bool array), cause-of-down array (object) at times s."""
    up = np.ones(s.shape, bool)
    los = np.zeros(s.shape, bool)
    adm = np.zeros(s.shape, bool)
    for a, b, cause in L.down[pid]:
        m = (s >= a) & (s < b)
        up &= ~m
        if cause == "self_admin":
            adm |= m
        else:
            los |= m
    return up, los, adm


def transitions(L, pid):
    ts = []
    for a, b, _ in L.down[pid]:
        ts += [a, b]
    return np.array(sorted(ts), float)


def fmt_tags(tags):
    return ",".join(f"{k}={v}" for k, v in sorted(tags.items()))


def port_tags(T, pid, collector):
    p = T.ports[pid]
    d = T.devs[p["dev"]]
    q = T.ports[p["peer"]]
    podtag = {-1: "core", -2: "svc"}.get(p["pod"], f"p{p['pod'] + 1}")
    tags = {"device": p["device"], "port": p["name"], "role": p["role"], "pod": podtag,
            "peer_device": q["device"], "peer_port": q["name"], "speed": f"{int(p['speed'])}G", "fabric": "roce"}
    if p["rail"] >= 0:
        tags["rail"] = str(p["rail"])
    if p["role"] == "nic":
        tags.update(host=p["device"], interface=p["netdev"], driver="mlx5_core")
    else:
        tags.update(host=collector, source=d["ip"])
    return tags


def write_all(T, L, S, inc, rng, outdir):
    P, N, NF = T.P, L.N, L.NF
    cum = {}
    for k in INC:
        c = np.zeros((P, N + 1))
        np.cumsum(inc[k], axis=1, out=c[:, 1:])
        cum[k] = c
    recs_t, recs_l = [], []
    # offsets: devices up for months, hosts for days
    dev_phase = {d["id"]: float(rng.uniform(0, DT)) for d in T.devs}
    nic_phase = {d["id"]: float(rng.uniform(0, NIC_DT)) for d in T.devs}
    dom_phase = {d["id"]: float(rng.uniform(0, DOM_DT)) for d in T.devs}
    # --- switches ---
    sw_int = {"in_octets": ["in_oct"], "in_unicast_pkts": ["in_uc"], "in_multicast_pkts": ["in_mc"],
              "in_broadcast_pkts": ["in_bc"], "in_discards": ["in_ovf", "in_trk"], "in_fcs_errors": ["fcs"],
              "in_errors": ["fcs", "in_oth"], "out_octets": ["out_oct"], "out_unicast_pkts": ["out_uc"],
              "out_multicast_pkts": ["out_mc"], "out_broadcast_pkts": ["out_bc"],
              "out_discards": ["wd_drop", "qg0_drop", "qg3_drop"], "out_errors": ["out_err"],
              "pfc_rxPPP_cos3": ["pfc_rx"], "pfc_txPPP_cos3": ["pfc_tx"], "pfcwd_shutdowns_q3": ["wd_shut"],
              "queuing_txPkts_qg3": ["qg3_pkts"], "queuing_txByts_qg3": ["qg3_bytes"],
              "queuing_ecnMarkedPkts_qg3": ["ecn"], "queuing_wredAfdTailDropPkts_qg3": ["qg3_drop"],
              "queuing_wdTailDropPkts_qg3": ["wd_drop"], "queuing_txPkts_qg0": ["qg0_pkts"],
              "queuing_wredAfdTailDropPkts_qg0": ["qg0_drop"], "ingressOverflowDropPkts": ["in_ovf"],
              "fec_correctedCws": ["fec_c"], "fec_uncorrectedCws": ["fec_u"]}
    # in_* come from the peer's out_*
    in_from_peer = {"in_oct": "out_oct", "in_uc": "out_uc", "in_mc": "out_mc", "in_bc": "out_bc"}
    base_keys = sorted({k for v in sw_int.values() for k in v})
    off_scale = {"in_oct": (1e14, 4e16), "out_oct": (1e14, 4e16), "in_uc": (3e10, 1e13), "out_uc": (3e10, 1e13),
                 "in_mc": (1e5, 5e7), "out_mc": (1e5, 5e7), "in_bc": (0, 3e3), "out_bc": (0, 3e3),
                 "in_ovf": (0, 5e3), "in_trk": (0, 2e5), "fcs": (0, 400), "in_oth": (0, 40), "wd_drop": (0, 1e5),
                 "qg0_drop": (0, 5e5), "qg3_drop": (0, 1), "out_err": (0, 1), "pfc_rx": (1e5, 3e9),
                 "pfc_tx": (1e5, 3e9), "wd_shut": (0, 12), "qg3_pkts": (3e10, 1e13), "qg3_bytes": (1e14, 4e16),
                 "ecn": (1e7, 5e10), "qg0_pkts": (1e8, 1e11), "fec_c": (1e9, 1e13), "fec_u": (0, 3e3)}
    sw_str_speed = {400: "SPEED_400GB", 100: "SPEED_100GB"}
    half_pid, h_a, h_b = L.f["half"]
    for d in T.devs:
        if d["kind"] not in ("leaf", "spine", "ss", "stleaf"):
            continue
        did = d["id"]
        K = int((NF - dev_phase[did]) // DT)
        s = dev_phase[did] + DT * np.arange(K) + rng.normal(0, 0.004, K)
        s = np.clip(s, 0, NF - 1e-3)
        keep = ~in_windows(s, L.nolines[did])
        s = s[keep]
        stamp = T0_NS + np.round((s + L.skew[did]) * 1000).astype(np.int64) * 1_000_000
        rs = sorted(L.resets[did])
        for pid in d["ports"]:
            tags = fmt_tags(port_tags(T, pid, d["collector"]))
            offs = {k: int(rng.uniform(*off_scale[k])) for k in base_keys}
            for side in ("in", "out"):      # subset counters consistent with their totals
                o = rng.uniform(1e14, 4e16)
                offs[f"{side}_oct"] = int(o)
                offs[f"{side}_uc"] = int(o / rng.uniform(2600, 4000))
            offs["qg3_bytes"] = int(offs["out_oct"] * rng.uniform(0.95, 0.985))
            offs["qg3_pkts"] = int(offs["out_uc"] * rng.uniform(0.93, 0.97))
            offs["qg0_pkts"] = int(offs["out_uc"] * rng.uniform(0.01, 0.05))
            offs["ecn"] = int(offs["qg3_pkts"] * rng.uniform(2e-4, 5e-3))
            offs["pfc_tx"] = int(offs["qg3_pkts"] * rng.uniform(1e-6, 1e-4))
            offs["pfc_rx"] = int(offs["qg3_pkts"] * rng.uniform(1e-6, 1e-4))
            vals = {}
            for k in base_keys:
                src = pid
                kk = k
                if k in in_from_peer:
                    src, kk = T.peer[pid], in_from_peer[k]
                v = sample_interp(cum[kk][src], inc[kk][src], s)
                off = offs[k]
                iv = np.floor(v).astype(np.int64)
                out = iv + off
                for r0 in rs:
                    m = s >= r0
                    v0 = math.floor(float(sample_interp(cum[kk][src], inc[kk][src], np.array([r0]))[0]))
                    out[m] = iv[m] - v0
                vals[k] = out
            cols = []
            for f in SW_FIELDS:
                if f == "in_pkts":
                    cols.append(vals["in_uc"] + vals["in_mc"] + vals["in_bc"])
                elif f == "out_pkts":
                    cols.append(vals["out_uc"] + vals["out_mc"] + vals["out_bc"])
                elif f == "carrier_transitions":
                    tr = transitions(L, pid)
                    c = np.searchsorted(tr, s, side="right")
                    out = c + int(rng.integers(2, 30))
                    for r0 in rs:
                        m = s >= r0
                        out[m] = c[m] - np.searchsorted(tr, r0, side="right")
                    cols.append(out)
                elif f == "queuing_qDepthByts_qg3":
                    j = np.clip((s // DT).astype(int), 0, N - 1)
                    dp = S.depth[pid, j] * rng.random(len(s)) ** 1.5
                    dp += 4160 * rng.poisson(0.4 * S.Cmean[pid, j])
                    cols.append((dp // 208 * 208).astype(np.int64))
                else:
                    ks = sw_int[f]
                    v = vals[ks[0]].copy()
                    for kx in ks[1:]:
                        v = v + vals[kx]
                    if f == "queuing_txPkts_qg3" and did == L.wrap_leaf:
                        v = v % (2**32)
                    cols.append(v)
            arr = np.stack(cols, axis=1).tolist()
            up, _los, adm = port_state(L, pid, s)
            spd = sw_str_speed[int(T.ports[pid]["speed"])]
            neg = np.where(up, spd, "SPEED_UNKNOWN").astype(object)
            if pid in (half_pid, ):
                hm_ = (s >= h_a) & (s < h_b) & up
                neg[hm_] = "SPEED_200GB"
            tmpl = tags + " " + ",".join(f"{f}=%di" for f in SW_FIELDS)
            for k in range(len(s)):
                line = (tmpl % tuple(arr[k])) + \
                    f',admin_status="{"DOWN" if adm[k] else "UP"}",oper_status="{"UP" if up[k] else "DOWN"}",port_speed="{spd}",negotiated_port_speed="{neg[k]}" {stamp[k]}'
                recs_l.append(line)
            recs_t.append(stamp)
    # --- NICs ---
    nic_map = {"rx_bytes_phy": "in_oct", "tx_bytes_phy": "out_oct", "rx_packets_phy": "in_pk",
               "tx_packets_phy": "out_pk", "rx_prio3_bytes": "rx_prio_b", "tx_prio3_bytes": "tx_prio_b",
               "rx_crc_errors_phy": "fcs", "rx_symbol_err_phy": "sym", "rx_corrected_bits_phy": "corr_bits",
               "rx_discards_phy": "rx_disc", "rx_out_of_buffer": "rx_oob", "rx_prio3_pause": "pfc_rx",
               "tx_prio3_pause": "pfc_tx", "rx_prio3_pause_duration": "rx_pdur",
               "tx_prio3_pause_duration": "tx_pdur", "rx_prio3_pause_transition": "ptrans",
               "tx_pause_storm_warning_events": "storm_w", "tx_pause_storm_error_events": "storm_e",
               "np_ecn_marked_roce_packets": "np_ecn", "np_cnp_sent": "np_cnp", "rp_cnp_handled": "rp_cnp",
               "rp_cnp_ignored": "rp_ign", "out_of_sequence": "oos", "packet_seq_err": "pse",
               "local_ack_timeout_err": "lat"}
    for h in range(T.H):
        did = T.host_dev[h]
        K = int((NF - nic_phase[did]) // NIC_DT)
        s = nic_phase[did] + NIC_DT * np.arange(K) + np.abs(rng.normal(0.02, 0.01, K))
        s = np.clip(s, 0, NF - 1e-3)
        s = s[~in_windows(s, L.nolines[did])]
        stamp = T0_NS + np.round((s + L.skew[did]) * 1e6).astype(np.int64) * 1000
        rs = sorted(L.resets[did])
        for pid in T.devs[did]["ports"]:
            tags = fmt_tags(port_tags(T, pid, None))
            nof = {}
            for side in ("in", "out"):       # host up for days: consistent totals and subsets
                o = rng.uniform(1e12, 3e14) * (0.02 if h == L.idle_a else 1.0)
                nof[f"{side}_oct"] = int(o)
                nof[f"{side}_pk"] = int(o / rng.uniform(2600, 4000))
            nof["rx_prio_b"] = int(nof["in_oct"] * rng.uniform(0.96, 0.99))
            nof["tx_prio_b"] = int(nof["out_oct"] * rng.uniform(0.96, 0.99))
            nof["np_ecn"] = int(nof["in_pk"] * rng.uniform(1e-4, 3e-3))
            nof["np_cnp"] = int(nof["np_ecn"] * rng.uniform(0.35, 0.5))
            nof["rp_cnp"] = int(nof["np_ecn"] * rng.uniform(0.3, 0.6))
            nof["corr_bits"] = int(rng.uniform(1e8, 5e10))
            nof["pfc_rx"] = int(nof["in_pk"] * rng.uniform(1e-7, 1e-5))
            nof["rx_pdur"] = int(nof["pfc_rx"] * rng.uniform(10, 30))
            nof["ptrans"] = int(nof["pfc_rx"] * rng.uniform(0.3, 0.5))
            cols = []
            for f in NIC_FIELDS:
                if f == "link_down_events_phy":
                    tr = np.array(sorted(a for a, b, _ in L.down[pid]), float)
                    c = np.searchsorted(tr, s, side="right")
                    out = c + int(rng.integers(0, 6))
                    for r0 in rs:
                        m = s >= r0
                        out[m] = c[m] - np.searchsorted(tr, r0, side="right")
                    cols.append(out)
                    continue
                k = nic_map[f]
                if k == "in_oct":
                    cu, ic = cum["out_oct"][T.peer[pid]], inc["out_oct"][T.peer[pid]]
                elif k == "in_pk":
                    q = T.peer[pid]
                    ic = S.out_pk[q]
                    cu = np.concatenate([[0], np.cumsum(ic)])
                elif k == "out_pk":
                    ic = S.out_pk[pid]
                    cu = np.concatenate([[0], np.cumsum(ic)])
                else:
                    cu, ic = cum[k][pid], inc[k][pid]
                v = sample_interp(cu, ic, s)
                iv = np.floor(v).astype(np.int64)
                out = iv + (nof[k] if k in nof else int(rng.integers(0, 3)))
                for r0 in rs:
                    m = s >= r0
                    v0 = math.floor(float(sample_interp(cu, ic, np.array([r0]))[0]))
                    out[m] = iv[m] - v0
                cols.append(out)
            arr = np.stack(cols, axis=1).tolist()
            up, _los, adm = port_state(L, pid, s)
            sp = np.where(up, 400000, 0)
            sp[(s >= h_a) & (s < h_b) & up & (T.peer[pid] == half_pid)] = 200000
            tmpl = tags + " " + ",".join(f"{f}=%di" for f in NIC_FIELDS)
            for k in range(len(s)):
                extra = f",interface_up=true,link_speed_mbps={sp[k]}i" if up[k] else ",interface_up=false"
                recs_l.append((tmpl % tuple(arr[k])) + extra + f" {stamp[k]}")
            recs_t.append(stamp)
    # --- DOM ---
    recs_t, recs_l = dom_lines(T, L, S, rng, dom_phase, recs_t, recs_l)
    ts = np.concatenate(recs_t)
    order = np.argsort(ts, kind="stable")
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "port_counters.lp"), "w", encoding="utf-8", newline="\n") as fh:
        chunk = []
        for i in order.tolist():
            chunk.append("port_counters," + recs_l[i])
            if len(chunk) >= 20000:
                fh.write("\n".join(chunk) + "\n")
                chunk = []
        if chunk:
            fh.write("\n".join(chunk) + "\n")
    return len(order)


def dom_lines(T, L, S, rng, dom_phase, recs_t, recs_l):
    N, NF = L.N, L.NF
    # per-port optics baseline (tx per lane, bias per lane, module temp, loss per lane into this port)
    base = {}
    for pid in range(T.P):
        p = T.ports[pid]
        if not p["optic"] and p["role"] != "storage_nic":
            continue
        nl = max(p["lanes"], 1)
        if p["optic"] == "QDD-400G-SR8-S":
            tx = rng.normal(-0.4, 0.6, nl)
            bias = rng.normal(7.3, 0.5, nl)
        else:
            tx = rng.normal(1.2, 0.6, nl)
            bias = rng.normal(41.0, 3.0, nl)
        base[pid] = dict(tx=tx, bias=bias, temp=rng.normal(45, 3.5), volt=rng.normal(3.30, 0.012),
                         loss=np.clip(rng.normal(1.4, 0.5, nl), 0.3, 3.5), ph=rng.uniform(0, 6.28),
                         per=rng.uniform(3000, 7000))
    em, lane, la, deg_end, err_end, _lb = L.f["laser"]
    hm, ha, rise_end, hb = L.f["heat"]
    dirty = {L.f["dirty1"][0]: L.f["dirty1"][1:], L.f["dirty2"][0]: L.f["dirty2"][1:]}
    d_dirty_db = {k: rng.uniform(3.5, 5.0) for k in dirty}

    def tx_of(pid, s):
        b = base[pid]
        nl = len(b["tx"])
        tx = np.repeat(b["tx"][None, :], len(s), 0) + rng.normal(0, 0.04, (len(s), nl))
        bias = np.repeat(b["bias"][None, :], len(s), 0) * (1 + rng.normal(0, 0.004, (len(s), nl)))
        if pid == em:
            y = np.clip((s - la) / (deg_end - la), 0, 1)
            m = (s >= la) & (s < err_end)
            f = np.where(m, 1 - 0.62 * y ** 1.7, 1.0)
            bias[:, lane] *= f
            tx[:, lane] += np.where(m, 10 * np.log10(np.clip((f - 0.3) / 0.7, 0.04, 1)), 0)
            tx[:, lane] -= np.where((s >= deg_end) & (s < err_end), 1.5, 0)
        if pid == hm:
            y = np.clip((s - ha) / (rise_end - ha), 0, 1)
            m = (s >= ha) & (s < hb)
            bias *= np.where(m, 1 + 0.09 * y ** 2, 1)[:, None]
            tx -= np.where(m, 1.3 * y ** 3, 0)[:, None]
        return tx, bias

    def temp_of(pid, s):
        b = base[pid]
        j = np.clip((s // DT).astype(int), 0, N - 1)
        t = b["temp"] + 1.2 * np.sin(2 * np.pi * s / b["per"] + b["ph"]) + 2.0 * S.Cmean[pid, j] + rng.normal(0, 0.12, len(s))
        if pid == hm:
            y = np.clip((s - ha) / (rise_end - ha), 0, 1)
            rise = np.where(s >= ha, 34.0 * y ** 1.3, 0)
            cool = np.where(s >= hb, np.exp(-(s - hb) / 240.0), 1.0)
            t = t + rise * cool
        return t

    fields_cache = {}
    for d in T.devs:
        if d["kind"] not in ("leaf", "spine", "ss", "stleaf"):
            continue
        did = d["id"]
        ops = [x for x in d["ports"] if T.ports[x]["optic"]]
        if not ops:
            continue
        K = int((NF - dom_phase[did]) // DOM_DT)
        s = dom_phase[did] + DOM_DT * np.arange(K) + rng.normal(0, 0.01, K)
        s = np.clip(s, 0, NF - 1e-3)
        s = s[~in_windows(s, L.nolines[did])]
        stamp = T0_NS + np.round((s + L.skew[did]) * 1000).astype(np.int64) * 1_000_000
        for pid in ops:
            p = T.ports[pid]
            q = T.peer[pid]
            tags = port_tags(T, pid, d["collector"])
            tags["transceiver"] = p["optic"]
            tags = fmt_tags(tags)
            tx, bias = tx_of(pid, s)
            _up, los, adm = port_state(L, pid, s)
            ptx, _ = tx_of(q, s)
            _, _, padm = port_state(L, q, s)
            if p["lanes"] == 1:       # breakout child: its own lane of the module
                lanes = [p["lane0"]]
                ptx = ptx[:, :1]
            else:
                lanes = list(range(1, p["lanes"] + 1))
            rx = ptx - base[pid]["loss"][None, :len(lanes)] + rng.normal(0, 0.05, ptx.shape)
            if pid in dirty:
                a, b = dirty[pid]
                rx -= np.where((s >= a) & (s < b), d_dirty_db[pid], 0)[:, None]
            dark = (los | padm)[:, None]
            rx = np.where(dark, -40.0, rx)
            tx = np.where(adm[:, None], -40.0, tx)
            bias = np.where(adm[:, None], 0.0, bias)
            temp = temp_of(pid, s)
            volt = base[pid]["volt"] + rng.normal(0, 0.003, len(s))
            key = tuple(lanes)
            if key not in fields_cache:
                fl = ["temperature_c=%.2f", "supply_voltage_v=%.3f"]
                for ln_ in lanes:
                    fl += [f"ch{ln_}_input_power_dbm=%.2f", f"ch{ln_}_output_power_dbm=%.2f", f"ch{ln_}_laser_bias_ma=%.2f"]
                fields_cache[key] = ",".join(fl)
            tmpl = tags + " " + fields_cache[key] + " %d"
            cols = [temp, volt]
            for i in range(len(lanes)):
                cols += [rx[:, i], tx[:, i], bias[:, i]]
            rows = np.stack(cols, axis=1).tolist()
            st_l = stamp.tolist()
            for k in range(len(s)):
                recs_l.append(tmpl % (*rows[k], st_l[k]))
            recs_t.append(stamp)
    return recs_t, recs_l


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hosts-per-pod", type=int, default=4, help="GPU hosts per pod (3..32; 32 = the full 64-host fabric)")
    ap.add_argument("--hours", type=float, default=4.0, help="run length, 3..8 h (default 4)")
    args = ap.parse_args(argv)
    if not 3 <= args.hosts_per_pod <= 32:
        ap.error("--hosts-per-pod must be 3..32")
    if not 3.0 <= args.hours <= 8.0:
        ap.error("--hours must be 3..8 (the timeline scales with it; faults keep their physical durations)")
    t_start = time.time()
    rng = np.random.default_rng(args.seed)
    T = build_topology(args.hosts_per_pod, np.random.default_rng([args.seed, 1]))
    L = make_plan(T, np.random.default_rng([args.seed, 2]), args.hours)
    S = simulate(T, L, np.random.default_rng([args.seed, 3]))
    inc = counters(T, L, S, np.random.default_rng([args.seed, 4]))
    nlines = write_all(T, L, S, inc, np.random.default_rng([args.seed, 5]), args.outdir)
    del rng
    nports = sum(1 for p in T.ports if p["emit"])
    fit_min = L.train // 60
    labels = {
        "scenario": SCENARIO, "scale": f"{T.H} hosts", "seed": args.seed, "fabric": "roce",
        "interval_s": 30, "sample_s": DT,
        "sample_s_by_source": {"gnmi_counters": DT, "ethtool_nic": NIC_DT, "gnmi_dom": DOM_DT},
        "t0_ns": T0_NS, "t_end_ns": T0_NS + L.NF * 10**9, "train_until_ns": T0_NS + L.train * 10**9,
        "fit_first": f"{fit_min}m", "ports": nports, "lines": nlines,
        "topology": {"pods": PODS, "rails": RAILS, "hosts": T.H, "leaves": PODS * RAILS, "spines": PODS * SPP,
                     "super_spines": NSS, "storage_leaves": 1, "switch_ports": int(T.is_sw.sum()),
                     "nic_ports": int(T.is_nic.sum()), "optical_ports": len(T.optical)},
        "faults": L.faults, "healthy_phenomena": L.healthy,
    }
    with open(os.path.join(args.outdir, "labels.json"), "w", encoding="utf-8") as fh:
        json.dump(labels, fh, indent=1)
        fh.write("\n")
    print(f"{args.outdir}: {nlines} lines, {nports} ports, {len(L.faults)} faults, "
          f"{time.time() - t_start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
