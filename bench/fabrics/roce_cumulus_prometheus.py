#!/usr/bin/env python3
# ruff: noqa: E501
"""FABRIC DATA SHEET -- "ai1" RoCEv2 back-end fabric, Cumulus Linux on NVIDIA Spectrum, scraped by Prometheus
exporters through Telegraf into InfluxDB (measurement `port_counters`).

    python roce_cumulus_prometheus.py OUTDIR [--seed N]
        -> OUTDIR/port_counters.lp   InfluxDB line protocol, time-ordered, ns timestamps
        -> OUTDIR/labels.json        faults and healthy phenomena in the scenario bank's label form

Same seed -> byte-identical files. Another seed moves every fault and healthy phenomenon to other
ports/devices/hosts, re-draws the job placement and noise, and shifts the times by a few minutes,
keeping the story. 4 simulated hours (2025-05-20 14:00-18:00 UTC = 16:00-20:00 site time), 15 s scrapes,
608 ports (456 switch ports + 152 host NIC ports), ~650k lines, ~265 MB, ~10 s on one core.

FABRIC
  Two-tier leaf/spine ("tor"/"agg" in the site's words), eBGP unnumbered, ECMP, RoCEv2 lossless on
  priority/TC 3 (PFC on prio 3 only), DCQCN (ECN marking on TC3 at the switches, NP/RP on the NICs).
  device (role tag)          model / OS                    ports in this data
  ai1-agg01..04 (agg)        SN5600 Spectrum-4, Cumulus 5.9 35 x 400G each: swp1s0..swp16s1 to the 8 GPU tors
                                                           (2 OSFP cages = 4 links per tor), swp17s0/s1 to the
                                                           storage tors, swp18s0 to the edge tor
  ai1-tor-g01..g08 (tor-gpu) SN5600 Spectrum-4, Cumulus 5.9 16 host ports swp1s0..swp8s1 + 16 uplinks swp33s0..swp40s1
                                                           (4 per agg) -> 1:1; one tor per rack of 2 HGX nodes
  ai1-tor-s01..s02           SN4700 Spectrum-3, Cumulus 5.x 12 storage ports swp1..swp12 + 4 uplinks swp29..swp32
    (tor-storage)                                          (one per agg) -> 3:1 oversubscribed
  ai1-tor-e01 (tor-edge)     SN4700 Spectrum-3, Cumulus 5.x 24 x 200G breakouts swp1s0..swp12s1 to service nodes
                                                           + 4 x 400G uplinks swp29..swp32 -> 3:1
  hgx-rNN-1/2 (gpu-node)     16 HGX H100, 8 ConnectX-7 400GbE each (one NIC per GPU), netdevs enp26s0np0,
                             enp64s0np0, enp83s0np0, enp102s0np0, enp156s0np0, enp192s0np0, enp206s0np0,
                             enp220s0np0 = rdma_dev mlx5_0..mlx5_7; all 8 NICs of a host on its rack tor
  svc-b01..b24 (svc-node)    service/ingest/inference nodes, one ConnectX-7 200G port ens3f0np0 (mostly TCP)
  stor-cn01..12              storage controllers, dual-homed (port 0 -> tor-s01, port 1 -> tor-s02);
                             vendor appliance, NOT scraped: only the switch side of those 24 links exists
  Cabling: host links inside the rack are DAC/ACC splitter cables (no DOM); tor-agg links are 800G 2xDR4
  OSFP optics split into two 400G ports (module temperature shared by swpNs0/swpNs1, 4 lanes per port);
  storage links AOC; edge 200G DAC.

COLLECTION (how the lines were produced)
  Switches: node_exporter 1.8 on Cumulus (collectors netclass + ethtool + textfile). Cumulus' switchd mirrors
  the ASIC counters into the kernel; `ethtool -S swpN` gives the Cumulus HwIf* names, which node_exporter
  lower-cases into node_ethtool_<name>. ECN and FEC are not in ethtool on Cumulus: the site's `cl-hwstats`
  daemon reads them (qos egress-queue stats, l1-show / PPCNT RS-FEC group), keeps running totals in memory
  and writes them as a node_exporter textfile every 15 s (so they lag the ethtool counters by 0.5-14.5 s,
  a fixed phase per switch). The same daemon serves transceiver DOM (`ethtool -m`) on its own /metrics
  endpoint, scraped by a second Telegraf input every 60 s (separate lines, a few seconds after the 15 s ones).
  Hosts: node_exporter (netclass + ethtool collectors; mlx5 ethtool names rx_*/tx_* become received_/
  transmitted_) plus a textfile script that copies /sys/class/infiniband/mlx5_N/ports/1/hw_counters into
  rdma_<counter>_total (rdma_exporter naming), also lagging by a fixed 0.5-14.5 s per host.
  Telegraf 1.3x: [[inputs.prometheus]] metric_version=2, interval 15s; processors rename the exporter's
  `device` label to `port` and the scrape target to `device`, and add `peer`/`peer_port` (from the site's LLDP
  table: sysname and port id as lldpd/Cumulus advertise them) and `role`/`fabric`; [[processors.dedup]]
  dedup_interval=600s (applied per Prometheus sample, i.e. per field, before the merge); [[aggregators.merge]]
  (one line per port per scrape); name_override "port_counters"; influx serializer. Hence:
   - every value is a float as Prometheus carries it: written without the `i` suffix, Go 'f' -1 formatting
     (1.7471046944275056e+17 -> 174710469442750560); octet counters above 2^53 lose their low bits;
   - a field is ABSENT from a line when its value has not changed since it was last written (and is re-sent
     at least every 600 s); a port whose every field is unchanged (a down link) has no line at all for up to
     10 min; after a Telegraf restart every field is written again;
   - timestamps are the scrape time: t0 + 15 s k + per-target latency (switches 0.8-2.4 s, ethtool on
     64 ports is slow; hosts 0.04-0.5 s) + jitter; ~1% of scrapes 1-5 s late; all ports of one scrape share
     the timestamp; counters are sampled at that instant (15 s deltas vary with the jitter);
   - tag keys are sorted; peer/peer_port vanish ~2 min after a link goes down (LLDP TTL) and return ~20 s
     after it comes back, so the tag set of a port changes (the (device, port) pair does not).
  Tags: device, fabric (=ai1-roce), peer, peer_port, port, role, and on host ports rdma_dev (mlx5_N).
    Switch ports facing GPU/svc hosts see peer_port = the host netdev (lldpd portidsubtype ifname); ports facing
    the storage appliances see peer_port = the appliance NIC's MAC (its firmware LLDP agent); switch-switch
    peers are swp names; host ports see their tor and swp port.

FIELDS (all cumulative counters unless marked gauge)
  switch port, 15 s line                        unit / meaning
    node_ethtool_hwifinoctets / hwifoutoctets   bytes received / transmitted (HwIfInOctets/HwIfOutOctets)
    node_ethtool_hwifinucastpkts / ...outucastpkts  frames
    node_ethtool_hwifindiscards                 ingress drops (ACL/L3/buffer), frames
    node_ethtool_hwifindot3frameerrors          frames received with bad FCS (HwIfInDot3FrameErrors, "rx_crc")
    node_ethtool_hwifoutqdrops                  egress queue drops (lossy classes, PFC-watchdog drops), frames
    node_ethtool_hwifinpfc3pkt / hwifoutpfc3pkt priority-3 PFC pause frames received / sent
    cl_qos_ecn_marked_tc3_total                 packets ECN-marked (CE) by this egress queue, TC3 (textfile, lagged)
    cl_phy_fec_corrected_blocks_total           RS(544,514) codewords corrected (textfile, lagged)
    cl_phy_fec_uncorrectable_blocks_total       RS-FEC codewords not correctable (textfile, lagged)
    node_network_carrier_changes_total          carrier transitions (+1 per down, +1 per up)
    node_network_up                 gauge       1 if operstate is up, else 0 (oper state)
    node_network_flags              gauge       IFF flags: 4099 admin up, 4098 admin down
  host NIC port, 15 s line
    node_ethtool_received_bytes_phy / transmitted_bytes_phy        bytes (rx_bytes_phy / tx_bytes_phy)
    node_ethtool_received_packets_phy / transmitted_packets_phy    frames
    node_ethtool_received_discards_phy          frames dropped for lack of NIC buffer (rx_discards_phy)
    node_ethtool_received_crc_errors_phy        frames with bad FCS (rx_crc_errors_phy)
    node_ethtool_received_corrected_bits_phy    bits corrected by FEC (rx_corrected_bits_phy)
    node_ethtool_received_prio3_pause / transmitted_prio3_pause    prio-3 pause frames (rx/tx_prio3_pause)
    node_ethtool_link_down_events_phy           link down events (link_down_events_phy)
    node_network_carrier_changes_total, node_network_up (gauge)    as on switches
    rdma_np_ecn_marked_roce_packets_total       CE-marked RoCE packets received (notification point)
    rdma_np_cnp_sent_total                      CNPs sent by this NIC as notification point
    rdma_rp_cnp_handled_total                   CNPs handled by this NIC as reaction point (rate cuts)
  switch optical port, 60 s DOM line (separate from the 15 s line)
    cl_xcvr_temperature_celsius     gauge       module temperature, 1/256 C resolution (shared by both breakout ports)
    cl_xcvr_rx_power_dbm_lane0..3   gauge       receive optical power per lane, dBm (0.1 uW resolution; -40 = no light)
  Not present: speed (dropped by fieldpass), IB counters, per-queue depth, storage-appliance NIC counters,
  FEC fields on one switch (see below), DOM on copper ports.

WORKLOAD
  Slurm-style queue on the 16 HGX nodes: pretrain-13b (6 nodes over 3 tors, all-reduce rings, ~60% of line
  rate in bursts, runs the whole time), ft-llama-70b (2 nodes, already running, ends ~46 min), moe-8x22b
  (4 nodes, MoE all-to-all with transient hot receivers, ~28-158 min), hp-sweep-17 (2 nodes), rlhf-ppo
  (4 nodes over 2 tors, ~120-212 min), eval-harness, ft-mistral; topology-aware placement (whole racks first),
  idle nodes between jobs. Each job: model/data load from storage at start (2-4 min; the 3:1 storage tors'
  uplinks saturate), training traffic with +-6% noise, eval pauses every 35-50 min, a synchronous checkpoint
  every ~18-25 min (75-150 s: every host writes to all 24 storage ports; the spine->storage-tor links are the
  bottleneck -> ECN 10-20% at the spines, PFC from the spines into the GPU tors and on to the hosts), a steady
  TCP data-loader trickle. Service nodes read/write storage and feed the GPU nodes with a diurnal-ish load
  (7% of 200G at 16:00 local, ~27% at 17:30, ~10% by 20:00). ECMP weights are re-drawn (Gamma(30)) whenever
  jobs start or stop: uplinks of a tor differ by +-20-40% (RoCE has few big flows).
  Model: per 15 s interval, traffic components -> endpoint matrix -> leaf-to-leaf matrix -> uplink / spine
  downlink loads through ECMP weights; jobs are slowed to their bottleneck (collectives run at the pace of
  their slowest flow); queue pressure = utilisation x burstiness + overload; ECN marks a fraction of the
  packets leaving a pressured TC3 queue; PFC pauses are sent out of the ingress ports feeding a pressured queue
  and spread one or two hops (spine -> other tors -> hosts); lossy classes drop at hot queues; FEC corrected
  blocks follow each receiver's pre-FEC BER (log-normal, 1e-9..1e-6, copper higher, independent of load),
  uncorrectable blocks are a steep function of BER, FCS errors need a frame to land in (load-proportional).

FAULTS (labelled; base times in minutes, jittered +-2-5 min by seed; fit window = first 72 min, no faults)
  degrading_optic (~80 -> end)      tor-agg link, receive side (either end): rx power of 1-2 lanes falls ~9.5 dB,
                                    accelerating; corrected FEC x3 after ~1 h, x30 after ~1.7 h, x10^2-10^3
                                    by the end; uncorrectable blocks and FCS only in the last ~30-40 min (tens
                                    per second at the end). Far end clean.
  flapping_link (~101, ~17 min)     GPU host link (tor port + NIC): 4-6 bounces of 2-25 s; carrier +2 per
                                    bounce on both ends, link_down_events_phy +1, up=0 when a scrape lands in a
                                    down, FCS/uncorrectable at each link-up; its job slows.
  pfc_storm (~127, ~12 min)         a ConnectX-7 hangs sending prio-3 pause at 24-28k/s (tx_prio3_pause on the
                                    NIC, hwifinpfc3pkt on the tor port), no data in or out; the tor pauses all its
                                    uplinks for ~25 s and for ~15 s each time the PFC watchdog re-arms (every
                                    2 min), spines pass it to other tors; otherwise the watchdog drops what is
                                    sent to the host (hwifoutqdrops); pretrain-13b stalls; ends with a NIC reset
                                    (link bounce; that NIC's ethtool/rdma/carrier counters restart at 0) and the
                                    job restarts from its checkpoint ~3 min later (healthy job_start).
  ecn_disabled_switch (~152, ~30)   one GPU tor (carrying pretrain-13b) loses its TC3 ECN profile: its
                                    cl_qos_ecn_marked_tc3_total is flat on every port while the job's other tors
                                    mark; its hwifoutpfc3pkt rises ~5-15x; fewer marks/CNPs at its hosts.
  ecmp_polarization (~172, ~33)     on a GPU tor with cross-tor job traffic one uplink takes 55-62% of the
                                    cross-tor bytes: ~95-97% utilised, ECN on ~20-28% of its packets, tens of
                                    lossy drops/s, pauses to the hosts; the other 15 uplinks at a few %; the
                                    job slows to the hot link's pace.
  link_down_after_maintenance (~194 -> end)  tor-agg link: change window (both ends admin-down 10 min, healthy)
                                    for an optic swap; afterwards both ends admin up (flags 4099) but oper down
                                    (up 0, rx power -40 dBm on all lanes: fibre polarity crossed), peer tags gone,
                                    lines only every 10 min (dedup); siblings to the same agg carry its share.
  module_overheating (~112 -> end)  one 800G OSFP (two breakout ports of a tor or agg): temperature +~30 C with a
                                    ~45 min time constant (to ~75-80 C); corrected FEC rises on both ports above
                                    ~58 C; above ~64 C its tx power sags (far ends' rx power and FEC worsen).
  nic_cc_disabled (~204, ~30)       one ConnectX-7 of a pretrain-13b host: DCQCN NP/RP disabled for prio 3:
                                    rdma_np_cnp_sent_total and rdma_rp_cnp_handled_total flat while
                                    np_ecn_marked keeps counting; it sends ~20% more than its sibling NICs; its
                                    tor pauses it (received_prio3_pause 1-3k/s vs ~10/s); more marks where its
                                    traffic lands.
  linecard_errors (~218 -> end)     four consecutive OSFP cages of one agg (8 ports to two GPU tors; one port
                                    board/retimer group -- the fixed-form SN5600's equivalent of a line card):
                                    corrected FEC x80-x300 on all eight at the same instant, simultaneous bursts of
                                    uncorrectable blocks (and FCS) every 40-200 s, far ends' FEC x5-x20.

HEALTHY PHENOMENA (labelled, must not be flagged)
  sporadic single uncorrectable FEC codewords (0.3-2/h on ~18% of links, 0.02/h elsewhere; +1 FCS when a frame
  is hit); checkpoint incast towards storage (many links at once, ECN/PFC at spines, storage tors, GPU tors,
  hosts); MoE all-to-all congestion with hot receivers; job start (storage read burst, storage-tor uplinks
  saturate, lossy drops there) and stop; eval pauses; diurnal service load; ECMP imbalance re-drawn at job
  churn; a slow-receiver host (bounded pauses from its NICs); ingress control-plane drops trickle; planned
  maintenance of one GPU tor (~148: hosts drained 12 min before, all ports admin-down, reboot: no lines for
  ~6 min, every counter of the tor restarts near 0 incl. carrier_changes; far ends carrier +2, peer tags gone);
  the change window of the link that is then left down; cl-hwstats daemon restart on one switch (~96: textfile
  stale ~30 s, then the cl_* counters restart from 0 while node_ethtool_* continue; one DOM scrape missing);
  Telegraf restart (~58: no lines for ~1 min, then all fields re-sent); scrape timeouts on one agg (~206:
  ~4 min without lines); ~0.15% missed scrapes and ~1% late scrapes everywhere; one storage/edge tor whose
  textfile has no cl_phy_fec_* fields at all (older image); LLDP peer-tag aging; dedup-sparse fields.

LABELS
  labels.json: scenario, scale, seed, fabric, interval_s (30, the scoring interval), sample_s (15), t0_ns,
  t_end_ns, train_until_ns / fit_first ("72m", 30% of the run), ports (series with lines), lines,
  faults[kind, device, ports (or ["*"]), start_ns, end_ns, peer_ends, related, signature],
  healthy_phenomena[kind, where, start_ns, end_ns, note, background], plus an informational `collection`
  block with the tag and field lists. Fault starts are on 30 s boundaries after train_until_ns.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from datetime import UTC, datetime

import numpy as np

# --------------------------------------------------------------------------------------------
# constants
# --------------------------------------------------------------------------------------------
SAMPLE_S = 15                      # Telegraf [[inputs.prometheus]] interval
DOM_EVERY = 4                      # DOM endpoint scraped every 4th interval (60 s)
HOURS = 4
N_INT = HOURS * 3600 // SAMPLE_S   # 960 scrape intervals
K = N_INT + 1                      # samples k = 0..960 at t_k = 15 k (plus latency)
J = N_INT + 2                      # accounting intervals j = 0..961, j covers (15(j-1), 15 j]
T0 = datetime(2025, 5, 20, 14, 0, 0, tzinfo=UTC)
T0_NS = int(T0.timestamp()) * 10**9
RUN_S = N_INT * SAMPLE_S
FIT_FRACTION = 0.30
FIT_MIN = round(HOURS * 60 * FIT_FRACTION)      # 72
CAP400 = 50e9                      # bytes/s
CAP200 = 25e9
CW_RATE = {CAP400: 7.8e7, CAP200: 3.9e7}             # RS(544,514) codewords/s
LINE_BITS = {CAP400: 425e9, CAP200: 212.5e9}         # serial bit rate incl. FEC overhead
FLAGS_UP, FLAGS_DOWN = 4099, 4098                    # IFF_UP|IFF_BROADCAST|IFF_MULTICAST (0x1003) / without IFF_UP
TWO53 = 9007199254740992.0

SWITCH_FIELDS = sorted([
    "node_ethtool_hwifinoctets", "node_ethtool_hwifinucastpkts", "node_ethtool_hwifindiscards",
    "node_ethtool_hwifindot3frameerrors", "node_ethtool_hwifinpfc3pkt",
    "node_ethtool_hwifoutoctets", "node_ethtool_hwifoutucastpkts", "node_ethtool_hwifoutqdrops",
    "node_ethtool_hwifoutpfc3pkt",
    "cl_qos_ecn_marked_tc3_total", "cl_phy_fec_corrected_blocks_total", "cl_phy_fec_uncorrectable_blocks_total",
    "node_network_carrier_changes_total", "node_network_flags", "node_network_up",
])
HOST_FIELDS = sorted([
    "node_ethtool_received_bytes_phy", "node_ethtool_received_packets_phy",
    "node_ethtool_received_discards_phy", "node_ethtool_received_crc_errors_phy",
    "node_ethtool_received_corrected_bits_phy", "node_ethtool_received_prio3_pause",
    "node_ethtool_transmitted_bytes_phy", "node_ethtool_transmitted_packets_phy",
    "node_ethtool_transmitted_prio3_pause", "node_ethtool_link_down_events_phy",
    "node_network_carrier_changes_total", "node_network_up",
    "rdma_np_ecn_marked_roce_packets_total", "rdma_np_cnp_sent_total", "rdma_rp_cnp_handled_total",
])
DOM_FIELDS = ["cl_xcvr_rx_power_dbm_lane0", "cl_xcvr_rx_power_dbm_lane1", "cl_xcvr_rx_power_dbm_lane2",
              "cl_xcvr_rx_power_dbm_lane3", "cl_xcvr_temperature_celsius"]
BIG_FIELDS = {"node_ethtool_hwifinoctets", "node_ethtool_hwifoutoctets",
              "node_ethtool_received_bytes_phy", "node_ethtool_transmitted_bytes_phy"}
TEXTFILE_SWITCH = {"cl_qos_ecn_marked_tc3_total", "cl_phy_fec_corrected_blocks_total", "cl_phy_fec_uncorrectable_blocks_total"}
TEXTFILE_HOST = {"rdma_np_ecn_marked_roce_packets_total", "rdma_np_cnp_sent_total", "rdma_rp_cnp_handled_total"}
FEC_FIELDS = {"cl_phy_fec_corrected_blocks_total", "cl_phy_fec_uncorrectable_blocks_total"}
GAUGES = {"node_network_flags", "node_network_up"}

NIC_BUS = [26, 64, 83, 102, 156, 192, 206, 220]     # HGX ConnectX-7 PCI buses -> enp<bus>s0np0


def gofmt(v: float) -> str:
    """Format a float the way Telegraf's influx serializer does (Go 'f', -1: shortest round-trip, no exponent)."""
    if v < TWO53 and v == int(v):
        return str(int(v))
    r = repr(float(v))
    if "e" in r:
        m, e = r.split("e")
        e = int(e)
        neg = m.startswith("-")
        m = m.lstrip("-")
        ip, _, fp = m.partition(".")
        digits = ip + fp
        if e >= 0:
            if len(digits) <= e + 1:
                s = digits + "0" * (e + 1 - len(digits))
            else:
                s = digits[:e + 1] + "." + digits[e + 1:]
        else:
            s = "0." + "0" * (-e - 1) + digits
        return ("-" if neg else "") + s
    if r.endswith(".0"):
        return r[:-2]
    return r


def cover(a_s: float, b_s: float) -> np.ndarray:
    """Fraction of each accounting interval j (covering (15(j-1), 15j]) that lies inside [a_s, b_s]."""
    lo = (np.arange(J) - 1) * SAMPLE_S
    hi = lo + SAMPLE_S
    ov = np.clip(np.minimum(hi, b_s) - np.maximum(lo, a_s), 0, SAMPLE_S) / SAMPLE_S
    ov[0] = 0.0
    return ov


def mid_s() -> np.ndarray:
    return (np.arange(J) - 0.5) * SAMPLE_S


# --------------------------------------------------------------------------------------------
# topology
# --------------------------------------------------------------------------------------------
class Topo:
    def __init__(self, rng):
        self.spines = [f"ai1-agg{j + 1:02d}" for j in range(4)]
        self.gleaves = [f"ai1-tor-g{i + 1:02d}" for i in range(8)]
        self.sleaves = ["ai1-tor-s01", "ai1-tor-s02"]
        self.eleaf = "ai1-tor-e01"
        self.leaves = self.gleaves + self.sleaves + [self.eleaf]
        self.hosts = [f"hgx-r{h // 2 + 1:02d}-{h % 2 + 1}" for h in range(16)]
        self.stor = [f"stor-cn{n + 1:02d}" for n in range(12)]
        self.svc = [f"svc-b{n + 1:02d}" for n in range(24)]
        self.role = {}
        for s in self.spines:
            self.role[s] = "agg"
        for lf in self.gleaves:
            self.role[lf] = "tor-gpu"
        for lf in self.sleaves:
            self.role[lf] = "tor-storage"
        self.role[self.eleaf] = "tor-edge"
        for h in self.hosts:
            self.role[h] = "gpu-node"
        for s in self.svc:
            self.role[s] = "svc-node"
        for s in self.stor:
            self.role[s] = "storage-node"
        self.kind = {d: "switch" for d in self.spines + self.leaves}
        for d in self.hosts + self.svc:
            self.kind[d] = "host"
        for d in self.stor:
            self.kind[d] = "unscraped"
        # links: end A = the lower end (node or leaf), end B = leaf or spine
        L = []
        self.ep_leaf = np.zeros(64, dtype=int)
        self.ep_links = [[] for _ in range(64)]
        self.ep_name = [None] * 64
        # GPU host NIC links (DAC/ACC splitter cables inside the rack: no DOM)
        for h in range(16):
            leaf = h // 2
            self.ep_leaf[h] = leaf
            self.ep_name[h] = self.hosts[h]
            for r in range(8):
                slot = (h % 2) * 8 + r
                L.append(dict(type="gpu", a_dev=self.hosts[h], a_port=f"enp{NIC_BUS[r]}s0np0", a_rdma=f"mlx5_{r}",
                              b_dev=self.gleaves[leaf], b_port=f"swp{slot // 2 + 1}s{slot % 2}", b_cage=slot // 2 + 1,
                              a_cage=None, cap=CAP400, optical=False, leaf=leaf, spine=-1, ep=h, nic=r))
        # storage nodes, dual-homed, one port to each storage leaf (AOC: DOM on the switch side)
        for n in range(12):
            for i in range(2):
                e = 16 + 2 * n + i
                self.ep_leaf[e] = 8 + i
                self.ep_name[e] = self.stor[n]
                mac = f"0c:42:a1:5e:{n + 0x10:02x}:{2 * i:02x}"
                L.append(dict(type="stor", a_dev=self.stor[n], a_port=f"ens1f{i}np{i}", a_lldp_port=mac, a_rdma=f"mlx5_{i}",
                              b_dev=self.sleaves[i], b_port=f"swp{n + 1}", b_cage=n + 1, a_cage=None,
                              cap=CAP400, optical=True, leaf=8 + i, spine=-1, ep=e, nic=i))
        # service / frontend nodes, 200G DAC breakouts
        for n in range(24):
            e = 40 + n
            self.ep_leaf[e] = 10
            self.ep_name[e] = self.svc[n]
            L.append(dict(type="svc", a_dev=self.svc[n], a_port="ens3f0np0", a_rdma="mlx5_0",
                          b_dev=self.eleaf, b_port=f"swp{n // 2 + 1}s{n % 2}", b_cage=n // 2 + 1, a_cage=None,
                          cap=CAP200, optical=False, leaf=10, spine=-1, ep=e, nic=0))
        # uplinks (2xDR4 OSFP optics split 2x400G on both ends)
        for i in range(8):
            for s in range(4):
                for m in range(4):
                    L.append(dict(type="up", a_dev=self.gleaves[i], a_port=f"swp{33 + 2 * s + m // 2}s{m % 2}", a_cage=33 + 2 * s + m // 2,
                                  b_dev=self.spines[s], b_port=f"swp{1 + 2 * i + m // 2}s{m % 2}", b_cage=1 + 2 * i + m // 2,
                                  cap=CAP400, optical=True, leaf=i, spine=s, ep=-1, nic=-1, m=m))
        for i in range(2):
            for s in range(4):
                L.append(dict(type="up", a_dev=self.sleaves[i], a_port=f"swp{29 + s}", a_cage=29 + s,
                              b_dev=self.spines[s], b_port=f"swp17s{i}", b_cage=17,
                              cap=CAP400, optical=True, leaf=8 + i, spine=s, ep=-1, nic=-1, m=0))
        for s in range(4):
            L.append(dict(type="up", a_dev=self.eleaf, a_port=f"swp{29 + s}", a_cage=29 + s,
                          b_dev=self.spines[s], b_port="swp18s0", b_cage=18,
                          cap=CAP400, optical=True, leaf=10, spine=s, ep=-1, nic=-1, m=0))
        self.links = L
        self.NL = len(L)
        self.NP = 2 * self.NL
        for li, lk in enumerate(L):
            if lk["ep"] >= 0:
                self.ep_links[lk["ep"]].append(li)
        # ports
        self.p_dev = []
        self.p_port = []
        self.p_cage = []
        for lk in L:
            self.p_dev += [lk["a_dev"], lk["b_dev"]]
            self.p_port += [lk["a_port"], lk["b_port"]]
            self.p_cage += [lk.get("a_cage"), lk.get("b_cage")]
        self.p_link = np.arange(self.NP) // 2
        self.p_is_switch = np.array([self.kind[d] == "switch" for d in self.p_dev])
        self.p_scraped = np.array([self.kind[d] != "unscraped" for d in self.p_dev])
        self.p_cap = np.array([L[p // 2]["cap"] for p in range(self.NP)])
        self.p_optical = np.array([L[p // 2]["optical"] and self.kind[self.p_dev[p]] == "switch" for p in range(self.NP)])
        self.pidx = {(self.p_dev[p], self.p_port[p]): p for p in range(self.NP)}
        # uplink indexing
        self.ul = np.array([li for li, lk in enumerate(L) if lk["type"] == "up"])
        self.NU = len(self.ul)
        self.ul_leaf = np.array([L[li]["leaf"] for li in self.ul])
        self.ul_spine = np.array([L[li]["spine"] for li in self.ul])
        self.pair = self.ul_leaf * 4 + self.ul_spine
        self.PairMap = np.zeros((self.NU, 44))
        self.PairMap[np.arange(self.NU), self.pair] = 1.0
        self.LeafMap = np.zeros((self.NU, 11))
        self.LeafMap[np.arange(self.NU), self.ul_leaf] = 1.0
        self.ul_of_leaf = [np.where(self.ul_leaf == x)[0] for x in range(11)]
        self.ul_of_spine = [np.where(self.ul_spine == s)[0] for s in range(4)]
        self.ulpos = {li: u for u, li in enumerate(self.ul)}
        # endpoint links
        self.gl = np.array([li for li, lk in enumerate(L) if lk["type"] == "gpu"])
        self.gl_h = np.array([L[li]["ep"] for li in self.gl])
        self.gl_r = np.array([L[li]["nic"] for li in self.gl])
        self.ol = np.array([li for li, lk in enumerate(L) if lk["type"] in ("stor", "svc")])
        self.ol_e = np.array([L[li]["ep"] for li in self.ol])
        self.epl = np.array([li for li, lk in enumerate(L) if lk["ep"] >= 0])
        self.epl_e = np.array([L[li]["ep"] for li in self.epl])
        self.epl_leaf = self.ep_leaf[self.epl_e]
        self.epl_of_leaf = [self.epl[self.epl_leaf == x] for x in range(11)]
        self.P = np.zeros((64, 11))
        self.P[np.arange(64), self.ep_leaf] = 1.0
        self.X = (self.ep_leaf[:, None] != self.ep_leaf[None, :]).astype(float)
        # devices in output order
        self.devices = self.spines + self.leaves + self.hosts + self.svc
        self.dev_ports = {d: [] for d in self.devices}
        for p in range(self.NP):
            if self.p_scraped[p]:
                self.dev_ports[self.p_dev[p]].append(p)

        def natkey(p):
            name = self.p_port[p]
            import re
            return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]
        for d in self.devices:
            self.dev_ports[d].sort(key=natkey)

    def peer_of(self, p):
        lk = self.links[p // 2]
        if p % 2 == 0:
            return lk["b_dev"], lk["b_port"]
        # B end looks at A: LLDP port id
        return lk["a_dev"], lk.get("a_lldp_port", lk["a_port"])

    def ends(self, li):
        lk = self.links[li]
        return (lk["a_dev"], lk["a_port"]), (lk["b_dev"], lk["b_port"])


# --------------------------------------------------------------------------------------------
# generator
# --------------------------------------------------------------------------------------------
class Gen:
    def __init__(self, seed: int):
        self.seed = seed
        self.rng = np.random.default_rng([seed, 0x0ACE])
        self.T = Topo(self.rng)
        self.faults = []
        self.healthy = []

    # ---------------------------------------------------------------- helpers
    def jit(self, base, spread, step=0.5):
        return float(round((base + self.rng.uniform(-spread, spread)) / step) * step)

    def ns(self, minutes):
        return T0_NS + round(minutes * 60 * 1e9)

    def w_dev(self, d):
        return f"{d}:*"

    def w_port(self, p):
        return f"{self.T.p_dev[p]}:{self.T.p_port[p]}"

    # ---------------------------------------------------------------- schedule
    def schedule(self):
        rng = self.rng
        ev = {}
        ev["tM"] = self.jit(148, 4)
        ev["storm_s"] = self.jit(127, 3)
        ev["storm_e"] = ev["storm_s"] + self.jit(12, 2)
        ev["flap_s"] = self.jit(101, 3)
        ev["flap_e"] = ev["flap_s"] + self.jit(17, 3)
        ev["degr_s"] = self.jit(80, 3)
        ev["heat_s"] = self.jit(112, 3)
        ev["ecn_s"] = self.jit(152, 3)
        ev["ecn_e"] = ev["ecn_s"] + self.jit(30, 3)
        ev["pol_s"] = self.jit(172, 3)
        ev["pol_e"] = ev["pol_s"] + self.jit(33, 3)
        ev["ldm_s"] = self.jit(184, 3)
        ev["cc_s"] = self.jit(204, 3)
        ev["cc_e"] = min(ev["cc_s"] + self.jit(30, 3), 238.0)
        ev["lc_s"] = self.jit(218, 3)
        ev["xr"] = self.jit(96, 4)
        ev["cg"] = self.jit(58, 5)
        ev["sto"] = self.jit(206, 5)
        self.ev = ev
        M = int(rng.integers(0, 8))
        self.M = M
        drain = (ev["tM"] - 12, ev["tM"] + 22)
        self.drain = drain
        specs = [
            dict(name="pretrain-13b", n=6, kind="allreduce", u=0.60, start=self.jit(4, 2), end=300, ckpt=20.0),
            dict(name="ft-llama-70b", n=2, kind="allreduce", u=0.45, start=-30, end=self.jit(46, 3), ckpt=25.0),
            dict(name="moe-8x22b", n=4, kind="alltoall", u=0.68, start=self.jit(28, 3), end=self.jit(158, 3), ckpt=22.0),
            dict(name="hp-sweep-17", n=2, kind="allreduce", u=0.35, start=self.jit(58, 3), end=self.jit(111, 3), ckpt=0.0),
            dict(name="rlhf-ppo", n=4, kind="allreduce", u=0.50, start=self.jit(119, 2), end=self.jit(212, 3), ckpt=18.0),
            dict(name="eval-harness", n=2, kind="allreduce", u=0.30, start=self.jit(174, 2), end=self.jit(203, 2), ckpt=0.0),
            dict(name="ft-mistral", n=2, kind="allreduce", u=0.42, start=self.jit(214, 2), end=300, ckpt=20.0),
        ]
        alloc = []   # (hosts, start, end)
        jobs = []
        for sp in sorted(specs, key=lambda s: s["start"]):
            busy = set()
            for hs, a, b in alloc:
                if a < sp["end"] and sp["start"] < b:
                    busy |= set(hs)
            if drain[0] < sp["end"] and sp["start"] < drain[1]:
                busy |= {2 * M, 2 * M + 1}
            free = [h for h in range(16) if h not in busy]
            pairs = [x for x in range(8) if 2 * x in free and 2 * x + 1 in free]
            rng.shuffle(pairs)
            chosen = []
            for x in pairs:
                if len(chosen) + 2 <= sp["n"]:
                    chosen += [2 * x, 2 * x + 1]
            rest = [h for h in free if h not in chosen]
            rng.shuffle(rest)
            while len(chosen) < sp["n"] and rest:
                chosen.append(rest.pop())
            chosen = sorted(chosen)
            if len(chosen) < 2:
                continue
            sp = dict(sp)
            sp["hosts"] = chosen
            alloc.append((chosen, sp["start"], sp["end"]))
            jobs.append(sp)
        self.jobs = jobs
        # weight epochs (QP sets change when jobs start/stop)
        bounds = sorted({max(0.0, j["start"]) for j in jobs} | {j["end"] for j in jobs if j["end"] < 240})
        self.epoch_bounds_s = np.array([b * 60 for b in bounds])

    def job_active(self, jb, t_min):
        return jb["start"] <= t_min < jb["end"]

    def jobs_at(self, t_min):
        return [jb for jb in self.jobs if self.job_active(jb, t_min)]

    # ---------------------------------------------------------------- fault / phenomenon placement
    def place(self):
        rng, T, ev = self.rng, self.T, self.ev
        j1 = self.jobs[0] if self.jobs[0]["name"] == "pretrain-13b" else next(j for j in self.jobs if j["name"] == "pretrain-13b")
        self.j1 = j1
        used_leaves = set()
        # PFC storm NIC: host of pretrain (running at storm time)
        h_st = int(rng.choice(j1["hosts"]))
        r_st = int(rng.integers(0, 8))
        self.storm = (h_st, r_st)
        used_leaves.add(h_st // 2)
        # ECN disabled leaf: another leaf of the pretrain job
        j1_leaves = sorted({h // 2 for h in j1["hosts"]})
        cands = [x for x in j1_leaves if x not in used_leaves]
        self.ecn_leaf = int(rng.choice(cands)) if cands else int(rng.choice(j1_leaves))
        used_leaves.add(self.ecn_leaf)
        # polarisation leaf: a leaf with cross-leaf job traffic during the window
        mid = (ev["pol_s"] + ev["pol_e"]) / 2
        act = [jb for jb in self.jobs_at(mid) if len({h // 2 for h in jb["hosts"]}) > 1]
        cl = sorted({h // 2 for jb in act for h in jb["hosts"]} - used_leaves)
        if not cl:
            cl = sorted({h // 2 for jb in act for h in jb["hosts"]})
        self.pol_leaf = int(rng.choice(cl))
        used_leaves.add(self.pol_leaf)
        up_of = T.ul_of_leaf[self.pol_leaf]
        self.pol_u = int(rng.choice(up_of))
        # CC disabled NIC: pretrain host on a leaf not used yet
        hc = [h for h in j1["hosts"] if h // 2 not in used_leaves] or [h for h in j1["hosts"] if h != h_st]
        self.cc = (int(rng.choice(hc)), int(rng.integers(0, 8)))
        used_leaves.add(self.cc[0] // 2)
        # flapping host link: busy host during the flap window, different from the others
        act = self.jobs_at(ev["flap_s"])
        fh = [h for jb in act for h in jb["hosts"] if h not in (h_st, self.cc[0])]
        fh2 = [h for h in fh if h // 2 not in used_leaves] or fh
        self.flap = (int(rng.choice(fh2)), int(rng.integers(0, 8)))
        # slow-receiver host (healthy)
        others = [h for jb in self.jobs for h in jb["hosts"] if h not in (h_st, self.cc[0], self.flap[0])]
        self.slow_host = int(rng.choice(sorted(set(others))))
        # degrading optic: a GPU-leaf uplink of a pretrain leaf, receive side at either end
        lf = int(rng.choice(j1_leaves))
        u = int(rng.choice(T.ul_of_leaf[lf]))
        li = int(T.ul[u])
        self.degr_port = 2 * li + int(rng.integers(0, 2))
        self.degr_lanes = sorted(rng.choice(4, size=int(rng.integers(1, 3)), replace=False).tolist())
        # line card (spine cage block of 4 cages = 8 ports to two GPU leaves)
        self.lc_spine = int(rng.integers(0, 4))
        self.lc_block = int(rng.integers(0, 4))
        lc_cages = list(range(4 * self.lc_block + 1, 4 * self.lc_block + 5))
        self.lc_ports = [p for p in range(T.NP) if T.p_dev[p] == T.spines[self.lc_spine] and T.p_cage[p] in lc_cages]
        self.lc_ports.sort(key=lambda p: (T.p_cage[p], T.p_port[p]))
        # overheating module: a spine or leaf OSFP cage carrying an uplink (not in the LC block / degrading link)
        while True:
            u = int(rng.integers(0, 128))
            li = int(T.ul[u])
            end = int(rng.integers(0, 2))
            p = 2 * li + end
            if p in self.lc_ports or li == self.degr_port // 2:
                continue
            if end == 1 and T.p_dev[p] == T.spines[self.lc_spine]:
                continue
            break
        dev, cage = T.p_dev[p], T.p_cage[p]
        self.heat_ports = sorted([q for q in range(T.NP) if T.p_dev[q] == dev and T.p_cage[q] == cage], key=lambda q: T.p_port[q])
        # link left down after maintenance: GPU-leaf uplink, not M, not used above
        bad_links = {self.degr_port // 2} | {q // 2 for q in self.lc_ports} | {q // 2 for q in self.heat_ports}
        while True:
            lf = int(rng.integers(0, 8))
            if lf == self.M:
                continue
            u = int(rng.choice(T.ul_of_leaf[lf]))
            li = int(T.ul[u])
            if li in bad_links or u == self.pol_u:
                continue
            break
        self.ldm_link = li
        # exporter restart & FEC-less exporter: switches not carrying faults
        fault_devs = {T.gleaves[h_st // 2], T.gleaves[self.ecn_leaf], T.gleaves[self.pol_leaf], T.spines[self.lc_spine],
                      T.p_dev[self.degr_port], T.p_dev[self.heat_ports[0]]}
        xr_c = [d for d in T.spines + T.gleaves if d not in fault_devs and d != T.gleaves[self.M]]
        self.xr_dev = str(rng.choice(xr_c))
        self.nofec_dev = str(rng.choice([*T.sleaves, T.eleaf]))
        self.sto_dev = str(rng.choice([s for s in T.spines if s != self.xr_dev]))

    # ---------------------------------------------------------------- link state
    def link_states(self):
        rng, T, ev = self.rng, self.T, self.ev
        NL, NP = T.NL, T.NP
        self.ldown = [[] for _ in range(NL)]        # oper-down intervals (s)
        self.adown = [[] for _ in range(NP)]        # admin-down intervals (s) per port
        self.upbursts = [[] for _ in range(NL)]     # link-up instants with training errors
        self.resets = []                            # (port, t_reset_s, fields-kind, init)
        # flapping host link
        h, r = self.flap
        self.flap_link = int(T.gl[(T.gl_h == h) & (T.gl_r == r)][0])
        n = int(rng.integers(4, 7))
        s0, s1 = ev["flap_s"] * 60, (ev["flap_e"] - 1.0) * 60
        times = [s0 + rng.uniform(2, 9), *sorted(rng.uniform(s0 + 60, s1, size=n - 1).tolist())]
        self.flap_times = []
        for t in times:
            d = float(rng.uniform(2, 25))
            self.ldown[self.flap_link].append((t, t + d))
            self.upbursts[self.flap_link].append(t + d)
            self.flap_times.append((t, t + d))
        # storm NIC reset at the end of the storm (driver reload: link bounce + counter reset)
        h, r = self.storm
        self.storm_link = int(T.gl[(T.gl_h == h) & (T.gl_r == r)][0])
        tr = ev["storm_e"] * 60 + rng.uniform(1, 5)
        self.ldown[self.storm_link].append((tr, tr + 7.0))
        self.upbursts[self.storm_link].append(tr + 7.0)
        self.resets.append((2 * self.storm_link, tr + 7.0, "all", 0))
        # planned maintenance of GPU leaf M: admin-down, reboot, come back with counters at zero
        tM = ev["tM"] * 60
        self.tM_s = tM
        self.reboot = (tM + 120.0, tM + 120.0 + rng.uniform(330, 390))     # exporter unreachable
        t_boot = self.reboot[0] + 150.0                                       # switchd start: ASIC counters restart
        self.t_boot = t_boot
        for li, lk in enumerate(T.links):
            if lk["leaf"] == self.M and (lk["type"] in ("gpu", "up")):
                pa = 2 * li + (1 if lk["type"] == "gpu" else 0)     # the leaf-side port
                ta = tM + rng.uniform(0, 6)
                tu = self.reboot[1] + rng.uniform(5, 40)
                self.adown[pa].append((ta, t_boot))
                self.ldown[li].append((ta, tu))
                self.upbursts[li].append(tu)
                self.resets.append((pa, t_boot, "all", 0))
        # link left down after maintenance
        li = self.ldm_link
        ta = ev["ldm_s"] * 60 + rng.uniform(1, 8)
        tb = ev["ldm_s"] * 60 + 600.0
        self.adown[2 * li].append((ta, tb + rng.uniform(0, 4)))
        self.adown[2 * li + 1].append((ta + rng.uniform(2, 20), tb + rng.uniform(5, 25)))
        self.ldown[li].append((ta, RUN_S + 3600))
        self.ldm_fault_s = tb
        # line card: no state change
        # up fraction per link per interval
        self.upf = np.ones((J, NL))
        for li in range(NL):
            for a, b in self.ldown[li]:
                self.upf[:, li] -= cover(a, b)
        self.upf = np.clip(self.upf, 0, 1)

    def is_down(self, li, t):
        return any(a <= t < b for a, b in self.ldown[li])

    def is_admin_down(self, p, t):
        return any(a <= t < b for a, b in self.adown[p])

    # ---------------------------------------------------------------- traffic components
    def components(self):
        rng, T, ev = self.rng, self.T, self.ev
        tmid = mid_s()
        tmin = tmid / 60.0
        comps = []

        def add(kind, M, r, B, lossy=False, roce=True, collective=True, job=-1):
            comps.append(dict(kind=kind, M=M, r=np.asarray(r, float), B=B, lossy=lossy, roce=roce, coll=collective, job=job))

        per_host_line = 8 * CAP400
        stor_eps = list(range(16, 40))
        self.stall = np.ones(J)
        self.job_level = {}
        for ji, jb in enumerate(self.jobs):
            H = jb["hosts"]
            n = len(H)
            on = cover(max(0, jb["start"] * 60), jb["end"] * 60)
            # start: weights/model load from storage, then training
            load_len = rng.uniform(120, 240)
            starts = [jb["start"] * 60] if jb["start"] > 0 else []
            restart_s = None
            if jb is self.j1:
                restart_s = ev["storm_e"] * 60 + rng.uniform(140, 200)
                starts.append(restart_s)
            load_on = np.zeros(J)
            for st in starts:
                load_on = np.maximum(load_on, cover(st, st + load_len))
            comm = on.copy() * (1 - load_on)
            # compute/comm noise
            lvl = jb["u"] * (1 + 0.06 * rng.standard_normal(J))
            # evals every 35-50 min
            t = jb["start"] + rng.uniform(15, 35)
            evals = np.zeros(J)
            while t < min(jb["end"], 240):
                evals = np.maximum(evals, cover(t * 60, (t + rng.uniform(2, 4)) * 60))
                t += rng.uniform(35, 50)
            # checkpoints
            ck = np.zeros(J)
            self_ck = []
            if jb["ckpt"] > 0:
                t = max(jb["start"], -20) + rng.uniform(6, jb["ckpt"])
                while t < min(jb["end"], 240):
                    d = rng.uniform(75, 150)
                    if t > 0:
                        ck = np.maximum(ck, cover(t * 60, t * 60 + d))
                        self_ck.append((t, t + d / 60))
                    t += jb["ckpt"] + rng.uniform(-1.5, 1.5)
            ck *= on
            jb["ckpts"] = self_ck
            jb["restart_s"] = restart_s
            jb["load_len"] = load_len
            comm = comm * (1 - 0.9 * evals) * (1 - 0.92 * ck)
            # stall from the PFC storm until the restart
            if jb is self.j1:
                st = cover(ev["storm_s"] * 60 + 20, restart_s)
                comm = comm * (1 - 0.97 * st)
                self.j1_stall = st
                ck = ck * (1 - st)
                s_a = ev["storm_s"] * 60 + 20
                jb["ckpts"] = [(a, b) for a, b in self_ck if not (a * 60 < restart_s and b * 60 > s_a)]
            # slowdown while its host link flaps
            if self.flap[0] in H:
                for a, b in self.flap_times:
                    comm = comm * (1 - 0.5 * cover(a - 5, b + 40))
            a = comm * lvl
            self.job_level[ji] = a
            # comm pattern
            Mx = np.zeros((64, 64))
            if jb["kind"] == "allreduce":
                order = sorted(H)
                for k, hh in enumerate(order):
                    nxt = order[(k + 1) % n]
                    prv = order[(k - 1) % n]
                    Mx[hh, nxt] += 0.5
                    Mx[hh, prv] += 0.5
                add("allreduce", Mx, a * per_host_line, 1.25, job=ji)
            else:
                for hh in H:
                    for kk in H:
                        if hh != kk:
                            Mx[hh, kk] = 1.0 / (n - 1)
                add("alltoall", Mx, a * per_host_line, 1.35, job=ji)
                # hot receivers: transient expert imbalance
                for hh in H:
                    Mh = np.zeros((64, 64))
                    for kk in H:
                        if kk != hh:
                            Mh[kk, hh] = 1.0 / (n - 1)
                    hot = (rng.random(J) < 0.13).astype(float)
                    hot = np.maximum(hot, np.roll(hot, 1) * (rng.random(J) < 0.5))
                    add("alltoall_hot", Mh, a * per_host_line * hot * rng.uniform(0.35, 1.1, J), 1.6, job=ji)
            # checkpoint writes (incast to storage)
            if ck.any():
                Mc = np.zeros((64, 64))
                for hh in H:
                    Mc[hh, stor_eps] = 1.0 / len(stor_eps)
                add("checkpoint", Mc, ck * per_host_line * 0.45 * (1 + 0.05 * rng.standard_normal(J)), 1.5, job=ji)
            # load bursts (storage -> hosts)
            Ml = np.zeros((64, 64))
            for hh in H:
                Ml[stor_eps, hh] = 1.0 / len(stor_eps)
            add("load", Ml, load_on * per_host_line * rng.uniform(0.30, 0.40), 1.2, job=ji)
            # data loader: steady small TCP reads from storage
            add("dataloader", Ml, on * per_host_line * 0.012 * (1 + 0.2 * rng.standard_normal(J)).clip(0.3), 1.0, lossy=True, roce=False, collective=False, job=ji)
        # service nodes: diurnal-ish load (16:00-20:00 local, peak ~17:30)
        svc_w = rng.uniform(0.5, 1.5, 24)
        loc_h = 16 + tmin / 60.0
        diurnal = 0.07 + 0.20 * np.exp(-0.5 * ((loc_h - 17.5) / 1.1) ** 2)
        diurnal = diurnal * (1 + 0.10 * rng.standard_normal(J)).clip(0.5)
        Ms = np.zeros((64, 64))
        for n in range(24):
            Ms[stor_eps, 40 + n] = svc_w[n] / len(stor_eps)
        add("svc_read", Ms, diurnal * CAP200, 1.05, lossy=True, roce=False, collective=False)
        Mw = np.zeros((64, 64))
        for n in range(24):
            Mw[40 + n, stor_eps] = svc_w[n] / len(stor_eps)
        add("svc_write", Mw, diurnal * CAP200 * 0.15, 1.05, lossy=True, roce=False, collective=False)
        Mg = np.zeros((64, 64))
        for n in range(24):
            Mg[40 + n, :16] = svc_w[n] / 16
        add("svc_feed", Mg, diurnal * CAP200 * 0.10, 1.0, lossy=True, roce=False, collective=False)
        # background (monitoring, NCCL/ssh, storage heartbeats)
        Mb = np.ones((64, 64)) - np.eye(64)
        Mb /= 63
        add("background", Mb, np.full(J, 3e6), 1.0, lossy=True, roce=False, collective=False)
        self.diurnal = diurnal
        self.comps = comps
        C = len(comps)
        self.C = C
        self.R0 = np.stack([c["r"] for c in comps], 1)      # J x C offered
        self.R0[0] = 0
        Ms_all = [c["M"] for c in comps]
        self.TXc = np.stack([m.sum(1) for m in Ms_all])
        self.RXc = np.stack([m.sum(0) for m in Ms_all])
        self.TXCc = np.stack([(m * T.X).sum(1) for m in Ms_all])
        self.RXCc = np.stack([(m * T.X).sum(0) for m in Ms_all])
        self.Tc = np.stack([(T.P.T @ (m * T.X) @ T.P).ravel() for m in Ms_all])
        self.Bc = np.array([c["B"] for c in comps])
        self.lossyc = np.array([1.0 if c["lossy"] else 0.0 for c in comps])
        self.rocec = np.array([1.0 if c["roce"] else 0.0 for c in comps])
        self.collc = np.array([c["coll"] for c in comps])

    # ---------------------------------------------------------------- ECMP weights & NIC shares
    def weights(self):
        rng, T, ev = self.rng, self.T, self.ev
        tmid = mid_s()
        ep_idx = np.searchsorted(self.epoch_bounds_s, tmid, side="right")
        nE = len(self.epoch_bounds_s) + 1
        wb = rng.gamma(30, 1, size=(nE, T.NU))
        hb = rng.gamma(30, 1, size=(nE, T.NU))
        ul_upf = self.upf[:, T.ul]
        w = wb[ep_idx] * ul_upf
        ws = w @ T.LeafMap
        w = w / np.maximum(ws[:, T.ul_leaf], 1e-12)
        # polarisation: one uplink of pol_leaf takes ~55-60% of the leaf's cross traffic
        pol = cover(ev["pol_s"] * 60, ev["pol_e"] * 60)
        self.pol_cover = pol
        sib = T.ul_of_leaf[self.pol_leaf]
        share = rng.uniform(0.55, 0.62)
        for j in np.where(pol > 0)[0]:
            f = pol[j]
            cur = w[j, sib].copy()
            tgt = cur * (1 - share) / max(cur.sum() - cur[list(sib).index(self.pol_u)], 1e-12)
            tgt[list(sib).index(self.pol_u)] = share
            w[j, sib] = (1 - f) * cur + f * tgt
        h = hb[ep_idx] * ul_upf
        hs = h @ T.PairMap
        h = h / np.maximum(hs[:, T.pair], 1e-12)
        self.w, self.h = w, h
        self.A = (w @ T.PairMap).reshape(J, 11, 4)
        # per-NIC shares of a GPU host's traffic
        base = 1 + 0.03 * rng.standard_normal((nE, 16, 8))
        s_tx = base[ep_idx] * (1 + 0.01 * rng.standard_normal((J, 16, 8)))
        s_rx = base[ep_idx] * (1 + 0.01 * rng.standard_normal((J, 16, 8)))
        hc, rc = self.cc
        self.cc_cover = cover(ev["cc_s"] * 60, ev["cc_e"] * 60)
        s_tx[:, hc, rc] *= 1 + 0.22 * self.cc_cover
        self.s_tx = s_tx / s_tx.sum(2, keepdims=True)
        self.s_rx = s_rx / s_rx.sum(2, keepdims=True)

    def aggregate(self, R):
        ep_tx = R @ self.TXc
        ep_rx = R @ self.RXc
        Tm = (R @ self.Tc).reshape(J, 11, 11)
        return ep_tx, ep_rx, Tm

    def ld_loads(self, ep_tx, ep_rx, Tm):
        T = self.T
        Lx = np.zeros((J, T.NP))
        upf = self.upf
        gl, gh, gr = T.gl, T.gl_h, T.gl_r
        Lx[:, 2 * gl] = ep_tx[:, gh] * self.s_tx[:, gh, gr] * upf[:, gl]
        Lx[:, 2 * gl + 1] = ep_rx[:, gh] * self.s_rx[:, gh, gr] * upf[:, gl]
        ol, oe = T.ol, T.ol_e
        Lx[:, 2 * ol] = ep_tx[:, oe] * upf[:, ol]
        Lx[:, 2 * ol + 1] = ep_rx[:, oe] * upf[:, ol]
        TLout = Tm.sum(2)
        ul = T.ul
        Lx[:, 2 * ul] = TLout[:, T.ul_leaf] * self.w
        F = np.einsum("jld,jls->jsd", Tm, self.A)
        Lx[:, 2 * ul + 1] = F[:, T.ul_spine, T.ul_leaf] * self.h
        return Lx

    def rho(self, q):
        """Bottleneck pressure per component (J x C)."""
        T = self.T
        q_rx = np.zeros((J, 64))
        q_tx = np.zeros((J, 64))
        for e in range(64):
            ls = np.array(T.ep_links[e])
            q_rx[:, e] = q[:, 2 * ls + 1].max(1)
            q_tx[:, e] = q[:, 2 * ls].max(1)
        q_up = np.zeros((J, 11))
        q_dn = np.zeros((J, 11))
        for x in range(11):
            us = T.ul[T.ul_of_leaf[x]]
            q_up[:, x] = q[:, 2 * us].max(1)
            q_dn[:, x] = q[:, 2 * us + 1].max(1)
        out = np.zeros((J, self.C))
        for c in range(self.C):
            dst = self.RXc[c] > 1e-9
            src = self.TXc[c] > 1e-9
            Tc = self.Tc[c].reshape(11, 11)
            sl = Tc.sum(1) > 1e-9
            dl = Tc.sum(0) > 1e-9
            parts = [q_rx[:, dst].max(1), q_tx[:, src].max(1)]
            if sl.any():
                parts.append(q_up[:, sl].max(1))
            if dl.any():
                parts.append(q_dn[:, dl].max(1))
            out[:, c] = np.max(np.stack(parts, 1), 1)
        return out

    def traffic(self):
        T, ev = self.T, self.ev
        self.cap_ld = T.p_cap.copy().astype(float)
        # storage nodes absorb writes at ~80% of line rate (drive-limited)
        for li in T.ol:
            if T.links[li]["type"] == "stor":
                self.cap_ld[2 * li + 1] *= 0.8
        storm_cov = cover(ev["storm_s"] * 60, ev["storm_e"] * 60 + 5)
        self.storm_cov = storm_cov
        sl = self.storm_link
        # pass 0: offered
        L0 = self.ld_loads(*self.aggregate(self.R0))
        q0 = L0 / self.cap_ld
        q0[:, 2 * sl] *= 1 - storm_cov
        q0[:, 2 * sl + 1] *= 1 - storm_cov
        sig = np.minimum(1.0, 0.97 / np.maximum(self.rho(q0), 1e-9))
        sig[:, ~self.collc] = np.sqrt(sig[:, ~self.collc])
        R1 = self.R0 * sig
        L1 = self.ld_loads(*self.aggregate(R1))
        q1 = L1 / self.cap_ld
        q1[:, 2 * sl] *= 1 - storm_cov
        q1[:, 2 * sl + 1] *= 1 - storm_cov
        sig2 = sig * np.minimum(1.0, 0.98 / np.maximum(self.rho(q1), 1e-9))
        R = self.R0 * sig2
        self.R = R
        ep_tx, ep_rx, Tm = self.aggregate(R)
        self.ep_tx, self.ep_rx, self.Tm = ep_tx, ep_rx, Tm
        self.ep_rx_cross = R @ self.RXCc
        self.ep_tx_cross = R @ self.TXCc
        Lf = self.ld_loads(ep_tx, ep_rx, Tm)
        LB = self.ld_loads(*self.aggregate(R * self.Bc))
        LL = self.ld_loads(*self.aggregate(R * self.lossyc))
        # the stuck NIC neither transmits nor receives data
        Lf[:, 2 * sl] *= 1 - storm_cov
        self.storm_offered = Lf[:, 2 * sl + 1].copy()
        Lf[:, 2 * sl + 1] *= 1 - storm_cov
        # control plane on every up link (LLDP, BGP, BFD)
        upf_p = self.upf[:, T.p_link]
        Lf += 2.5e3 * upf_p
        self.L = Lf
        self.q_off = np.minimum(L0 / self.cap_ld, 4.0)
        self.q_off[:, 2 * sl + 1] *= 1 - storm_cov
        with np.errstate(divide="ignore", invalid="ignore"):
            self.Bw = np.where(Lf > 1e6, LB / np.maximum(Lf, 1), 1.0)
            self.lossy_frac = np.clip(np.where(Lf > 1e6, LL / np.maximum(Lf, 1), 1.0), 0, 1)
        self.util = Lf / self.cap_ld

    # ---------------------------------------------------------------- congestion: ECN, PFC, drops
    def congestion(self):
        rng, T, ev = self.rng, self.T, self.ev
        NP = T.NP
        z = self.util * self.Bw + 1.2 * np.maximum(0, self.q_off - 1)
        z *= np.exp(0.08 * rng.standard_normal(z.shape))
        sw_out = T.p_is_switch       # port p's egress LD is p
        # CC disabled NIC: its flows do not back off -> the queues its traffic reaches run hotter
        hc, rc = self.cc
        ccov = self.cc_cover * (self.job_level_for_host(hc) > 0.05)
        for jb in self.jobs:
            if hc in jb["hosts"]:
                for hh in jb["hosts"]:
                    if hh == hc:
                        continue
                    li = int(T.gl[(T.gl_h == hh) & (T.gl_r == rc)][0])
                    z[:, 2 * li + 1] += 0.15 * ccov * np.clip(self.util[:, 2 * li + 1] / 0.4, 0, 1.5)
        # ECN off on one leaf
        ecn_cov = cover(ev["ecn_s"] * 60, ev["ecn_e"] * 60)
        self.ecn_cov = ecn_cov
        ecn_dev = T.gleaves[self.ecn_leaf]
        ecn_ports = np.array([T.p_dev[p] == ecn_dev for p in range(NP)])
        zp = z.copy()
        zp[:, ecn_ports] *= 1 + 0.30 * ecn_cov[:, None]
        self.z = z
        # ECN marking (packets marked at the egress queue)
        pk_size = rng.uniform(3350, 3950, NP)
        self.pk_size = pk_size
        out_pk = self.L / pk_size + 6.0 * self.upf[:, T.p_link]
        self.out_pk = out_pk
        pmark = 0.12 * np.clip(z - 0.55, 0, None) ** 2
        pmark = np.minimum(pmark, 0.22) * np.exp(0.25 * rng.standard_normal(z.shape))
        roce_frac = 1 - self.lossy_frac
        ecn = out_pk * pmark * roce_frac
        ecn[:, ~sw_out] = 0
        ecn[:, ecn_ports] *= (1 - ecn_cov)[:, None]
        self.ecn = ecn
        self.pmark = pmark
        # pause generation at switch egress queues
        z0 = np.where(ecn_ports[None, :] & (ecn_cov[:, None] > 0), 0.72, 1.0)
        K = np.where(ecn_ports[None, :] & (ecn_cov[:, None] > 0), 6500.0, 1500.0)
        G = K * np.clip(zp - z0, 0, None) ** 1.5 * np.exp(0.4 * rng.standard_normal(z.shape))
        G[:, ~sw_out] = 0
        tx_pause = np.zeros((J, NP))
        # node-originated pauses
        for li in T.gl:
            h = T.links[li]["ep"]
            zr = z[:, 2 * li + 1]
            k = 25.0 if h != self.slow_host else 260.0
            thr = 0.85 if h != self.slow_host else 0.45
            tx_pause[:, 2 * li] = k * 10 * np.clip(zr - thr, 0, None) ** 1.5 * np.exp(0.5 * rng.standard_normal(J))
        for li in T.ol:
            if T.links[li]["type"] == "stor":
                u = self.util[:, 2 * li + 1]
                tx_pause[:, 2 * li] = 1800 * np.clip(u - 0.55, 0, None) ** 1.5 * np.exp(0.4 * rng.standard_normal(J))
        # PFC storm from the stuck NIC
        sl = self.storm_link
        tx_pause[:, 2 * sl] = np.maximum(tx_pause[:, 2 * sl], self.storm_cov * rng.uniform(24000, 28000, J))
        # cc-disabled NIC gets paused by its leaf when its job's queues are busy
        lcc = int(T.gl[(T.gl_h == hc) & (T.gl_r == rc)][0])
        jl = self.job_level_for_host(hc)
        zz = np.clip(self.z[:, 2 * lcc + 1] + 0.3, 0, None)
        extra_cc = self.cc_cover * (jl > 0.05) * (350 + 2500 * np.clip(zz - 0.55, 0, None) ** 1.2) * np.exp(0.3 * rng.standard_normal(J))
        tx_pause[:, 2 * lcc + 1] += extra_cc
        self.node_pause = tx_pause.copy()
        total = tx_pause + self.distribute(G)
        # storm spreading before/while the watchdog re-arms: leaf pauses all its uplinks carrying traffic
        wd = np.zeros(J)
        s0 = ev["storm_s"] * 60 + 2
        wd = np.maximum(wd, cover(s0, s0 + 25))
        t = s0 + 120
        while t < ev["storm_e"] * 60:
            wd = np.maximum(wd, cover(t, t + 15))
            t += 120
        self.wd_spread = wd
        L_st = self.storm[0] // 2
        spread = np.zeros((J, NP))
        for u in T.ul_of_leaf[L_st]:
            li = T.ul[u]
            spread[:, 2 * li] += wd * rng.uniform(6000, 16000, J) * self.upf[:, li]
        for li in T.epl_of_leaf[L_st]:
            if li != sl:
                spread[:, 2 * li + 1] += wd * rng.uniform(500, 3000, J) * (self.L[:, 2 * li] > 1e8)
        total += spread
        # spreading: pauses received at a switch port pause that port's egress, which pauses its feeders
        newp = total.copy()
        newp[:, 2 * sl] = tx_pause[:, 2 * sl] * 0  # the watchdog stops the storm from spreading (handled above)
        for _ in range(2):
            rx_sw = np.zeros((J, NP))
            rx_sw[:, sw_out] = newp[:, np.arange(NP)[sw_out] ^ 1]
            fac = np.where(T.p_is_switch[np.arange(NP) ^ 1], 0.25, 0.3)
            G2 = rx_sw * fac
            G2[:, ~sw_out] = 0
            newp = self.distribute(G2)
            total += newp
        total *= self.upf[:, T.p_link]
        self.tx_pause = np.minimum(total, np.where(np.arange(NP) == 2 * sl, 30000.0, 22000.0))
        # drops: lossy classes at hot egress queues; PFC watchdog drops for the stuck NIC
        dropf = np.minimum(0.25, 0.03 * np.clip(z - 1.1, 0, None) ** 2)
        qdrop = out_pk * self.lossy_frac * dropf
        qdrop[:, ~sw_out] = 0
        wdrop = self.storm_cov * (1 - wd) * (0.3 * self.storm_offered / 3800 + rng.uniform(1000, 8000, J))
        qdrop[:, 2 * sl + 1] += wdrop
        self.qdrop = qdrop

    def job_level_for_host(self, h):
        a = np.zeros(J)
        for ji, jb in enumerate(self.jobs):
            if h in jb["hosts"]:
                a = a + self.job_level[ji]
        return a

    def distribute(self, G):
        """Send the pause load generated at switch egress queues out of the ingress ports that feed them."""
        T = self.T
        NP = T.NP
        out = np.zeros((J, NP))
        Lf = self.L
        with np.errstate(divide="ignore", invalid="ignore"):
            xf = np.nan_to_num(self.ep_rx_cross / np.maximum(self.ep_rx, 1.0))
            xt = np.nan_to_num(self.ep_tx_cross / np.maximum(self.ep_tx, 1.0))
        for x in range(11):
            eps = T.epl_of_leaf[x]
            us = T.ul[T.ul_of_leaf[x]]
            e_of = np.array([T.links[li]["ep"] for li in eps])
            # leaf downlink egress (to nodes)
            Gd = G[:, 2 * eps + 1]
            gcross = (Gd * xf[:, e_of]).sum(1)
            glocal = (Gd * (1 - xf[:, e_of])).sum(1)
            wu = Lf[:, 2 * us + 1]
            wu = wu / np.maximum(wu.sum(1, keepdims=True), 1.0)
            out[:, 2 * us] += gcross[:, None] * wu
            we = Lf[:, 2 * eps]
            we = we / np.maximum(we.sum(1, keepdims=True), 1.0)
            out[:, 2 * eps + 1] += glocal[:, None] * we
            # leaf uplink egress (to spines): fed by nodes sending cross-leaf
            gup = G[:, 2 * us].sum(1)
            wc = Lf[:, 2 * eps] * xt[:, e_of]
            wc = wc / np.maximum(wc.sum(1, keepdims=True), 1.0)
            out[:, 2 * eps + 1] += gup[:, None] * wc
        TLout = np.maximum(self.Tm.sum(2), 1.0)
        for s in range(4):
            us_idx = T.ul_of_spine[s]
            us = T.ul[us_idx]
            lf = T.ul_leaf[us_idx]
            for d in range(11):
                sel = lf == d
                if not sel.any():
                    continue
                gsd = G[:, 2 * us[sel] + 1].sum(1)
                if not gsd.any():
                    continue
                wt = Lf[:, 2 * us] * (self.Tm[:, lf, d] / TLout[:, lf])
                wt[:, sel] = 0
                wt = wt / np.maximum(wt.sum(1, keepdims=True), 1e-9)
                out[:, 2 * us + 1] += gsd[:, None] * wt
        return out

    # ---------------------------------------------------------------- physical layer
    def phy(self):
        rng, T, ev = self.rng, self.T, self.ev
        NP = T.NP
        tmid = mid_s()
        optical_link = np.array([lk["optical"] for lk in T.links])
        # per-port receive BER (pre-FEC), per lane
        med = np.where(optical_link[T.p_link], 3e-8, 2.5e-7)
        ber0 = med * np.exp(1.1 * rng.standard_normal(NP))
        lanes = rng.dirichlet(np.full(4, 3.0), NP)
        drift = 1 + 0.08 * np.sin(2 * np.pi * (tmid[:, None] / 5400.0 + rng.random(NP)[None, :]))
        ber_l = ber0[None, :, None] * 4 * lanes[None, :, :] * drift[:, :, None]       # J x NP x 4
        # DOM baselines
        self.rxp0 = rng.normal(-1.6, 0.9, (NP, 4))
        self.temp0 = {}
        self.dom_phase = {}
        # degrading optic
        pd = self.degr_port
        s = ev["degr_s"] * 60
        frac = np.clip((tmid - s) / (RUN_S - s), 0, 1)
        self.degr_drop = 9.5 * frac ** 1.4
        g = np.clip((self.degr_drop - 1.0) / 8.5, 0, 1)
        target_avg = rng.uniform(2.5e-4, 3.5e-4)
        for ln in self.degr_lanes:
            base = max(float(ber0[pd] * 4 * lanes[pd, ln]), 1e-10)
            tgt = 4 * target_avg / len(self.degr_lanes)
            ber_l[:, pd, ln] *= 10 ** (np.log10(tgt / base) * g)
        # overheating module
        hs = ev["heat_s"] * 60
        self.heat_rise = np.where(tmid > hs, 31.0 * (1 - np.exp(-(tmid - hs) / 2700.0)), 0.0)
        d0 = T.p_dev[self.heat_ports[0]]
        c0 = T.p_cage[self.heat_ports[0]]
        self.temp0[(d0, c0)] = rng.uniform(44, 50)
        tabs = self.temp0[(d0, c0)] + self.heat_rise
        for p in self.heat_ports:
            ber_l[:, p, :] *= (10 ** (0.05 * np.clip(tabs - 58, 0, None)))[:, None]
            far = p ^ 1
            ber_l[:, far, :] *= (10 ** (0.6 * 0.12 * np.clip(tabs - 64, 0, None)))[:, None]
        # line card
        lcs = ev["lc_s"] * 60
        lcc = (tmid >= lcs).astype(float)
        for p in self.lc_ports:
            ber_l[:, p, :] *= 1 + lcc[:, None] * rng.uniform(80, 300)
            ber_l[:, p ^ 1, :] *= (1 + lcc[:, None] * rng.uniform(5, 20))
        self.ber_l = ber_l
        ber = ber_l.mean(2)                        # J x NP effective codeword BER
        upf_p = self.upf[:, T.p_link]
        cw = np.array([CW_RATE[c] for c in T.p_cap])
        corr = cw[None, :] * (1 - np.exp(-ber * 5440)) * SAMPLE_S * upf_p
        corr *= rng.gamma(60, 1 / 60, corr.shape)
        # uncorrectable: steep function of BER + healthy sporadic singles
        unc_rate = cw[None, :] * np.minimum(1.0, 10 ** (5.5 * (np.log10(np.maximum(ber, 1e-30)) - np.log10(2.4e-3))))
        unc = rng.poisson(np.minimum(unc_rate * SAMPLE_S * upf_p, 1e9)).astype(float)
        lam_h = np.where(rng.random(NP) < 0.18, rng.uniform(0.3, 2.0, NP), 0.02) / 3600 * SAMPLE_S
        spor = rng.poisson(np.broadcast_to(lam_h, (J, NP)) * upf_p).astype(float)
        unc += spor
        self.spor_ports = np.where(spor[1:].sum(0) > 0)[0]
        # line-card bursts: all eight ports at the same moments
        t = lcs + rng.uniform(5, 40)
        while t < RUN_S + SAMPLE_S:
            j = int(t // SAMPLE_S) + 1
            if j < J:
                for p in self.lc_ports:
                    unc[j, p] += rng.integers(5, 200)
            t += rng.uniform(40, 200)
        # link-up training errors
        fcs_up = np.zeros((J, NP))
        for li in range(T.NL):
            for tu in self.upbursts[li]:
                j = int(tu // SAMPLE_S) + 1
                if j < J:
                    for p in (2 * li, 2 * li + 1):
                        unc[j, p] += rng.integers(3, 60)
                        fcs_up[j, p] += rng.integers(1, 9)
        in_pk = self.out_pk[:, np.arange(NP) ^ 1]
        util_in = self.util[:, np.arange(NP) ^ 1]
        fcs = np.minimum(unc * np.clip(util_in * 1.5 + 0.02, 0, 1), in_pk * SAMPLE_S)
        fcs = np.floor(fcs + rng.random(fcs.shape)) + fcs_up
        self.corr, self.unc, self.fcs = corr, unc, fcs
        self.corr_bits = ber * np.array([LINE_BITS[c] for c in T.p_cap])[None, :] * SAMPLE_S * upf_p * rng.gamma(60, 1 / 60, ber.shape)
        # ingress discards trickle (control plane / ACL) on some switch ports
        trickle = np.where((rng.random(NP) < 0.15) & T.p_is_switch, rng.uniform(0.01, 0.3, NP), 0.0)
        self.in_disc = rng.poisson(np.broadcast_to(trickle, (J, NP)) * SAMPLE_S * upf_p).astype(float)
        # NIC rx_discards_phy under heavy lossy receive
        nd = 0.002 * self.out_pk[:, np.arange(NP) ^ 1] * self.lossy_frac[:, np.arange(NP) ^ 1] * np.clip(self.z[:, np.arange(NP) ^ 1] - 1.0, 0, None)
        self.nic_disc = rng.poisson(nd * SAMPLE_S).astype(float)

    # ---------------------------------------------------------------- NIC RDMA counters
    def rdma(self):
        rng, T = self.rng, self.T
        NP = T.NP
        pk = self.out_pk
        # marked fraction on spine->leaf and leaf->spine egress
        pm_dn = np.zeros((J, 11))
        for x in range(11):
            us = T.ul[T.ul_of_leaf[x]]
            pm_dn[:, x] = self.ecn[:, 2 * us + 1].sum(1) / np.maximum(pk[:, 2 * us + 1].sum(1), 1)
        ua = T.ul
        pm_up = self.ecn[:, 2 * ua].sum(1) / np.maximum(pk[:, 2 * ua].sum(1), 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            xf = np.nan_to_num(self.ep_rx_cross / np.maximum(self.ep_rx, 1.0))
        marks_ep_port = np.zeros((J, NP))       # per node port: marked RoCE packets received
        for li in T.epl:
            e = T.links[li]["ep"]
            x = T.ep_leaf[e]
            rx_pk = pk[:, 2 * li + 1]
            marks_ep_port[:, 2 * li] = self.ecn[:, 2 * li + 1] + xf[:, e] * rx_pk * (pm_dn[:, x] + pm_up) * (1 - self.lossy_frac[:, 2 * li + 1])
        ratio = rng.uniform(0.55, 0.85, NP)
        cnp = marks_ep_port * ratio * np.exp(0.1 * rng.standard_normal((J, NP)))
        for li in T.ol:
            if T.links[li]["type"] == "svc":
                marks_ep_port[:, 2 * li] *= 0.002
                cnp[:, 2 * li] = 0
        hc, rc = self.cc
        lcc = int(T.gl[(T.gl_h == hc) & (T.gl_r == rc)][0])
        cnp[:, 2 * lcc] *= 1 - self.cc_cover
        # CNPs flow back to the senders of the marked traffic
        cnp_ep = np.zeros((J, 64))
        for li in T.epl:
            cnp_ep[:, T.links[li]["ep"]] += cnp[:, 2 * li]
        Rr = self.R * self.rocec
        rx_roce = Rr @ self.RXc
        frac = cnp_ep / np.maximum(rx_roce, 1.0)
        cnp_c = Rr * (frac @ self.RXc.T)                     # J x C
        txn = self.TXc / np.maximum(self.TXc.sum(1, keepdims=True), 1e-12)
        handled_ep = cnp_c @ txn                              # J x 64
        handled = np.zeros((J, NP))
        for li in T.gl:
            lk = T.links[li]
            handled[:, 2 * li] = handled_ep[:, lk["ep"]] * self.s_tx[:, lk["ep"], lk["nic"]]
        handled[:, 2 * lcc] *= 1 - self.cc_cover
        self.marks_rx = marks_ep_port * SAMPLE_S
        self.cnp_sent = cnp * SAMPLE_S
        self.cnp_handled = handled * SAMPLE_S

    # ---------------------------------------------------------------- scrape model
    def scrape(self):
        rng, T, ev = self.rng, self.T, self.ev
        devs = T.devices
        nd = len(devs)
        self.dev_i = {d: i for i, d in enumerate(devs)}
        lat = np.array([rng.uniform(0.8, 2.4) if T.kind[d] == "switch" else rng.uniform(0.04, 0.5) for d in devs])
        ts = np.arange(K)[None, :] * SAMPLE_S + lat[:, None] + np.abs(0.04 * rng.standard_normal((nd, K)))
        slow = rng.random((nd, K)) < 0.01
        ts += slow * rng.uniform(1.0, 5.0, (nd, K))
        present = rng.random((nd, K)) > 0.0015
        # Telegraf restart: nothing for ~1 min
        cg = ev["cg"] * 60
        dur = rng.uniform(45, 65)
        kk = np.arange(K) * SAMPLE_S
        present &= ~((kk >= cg) & (kk < cg + dur))[None, :]
        self.cg_dur = dur
        # scrape timeouts on one spine (control plane busy)
        sto = ev["sto"] * 60
        di = self.dev_i[self.sto_dev]
        self.sto_dur = rng.uniform(180, 260)
        present[di] &= ~((kk >= sto) & (kk < sto + self.sto_dur))
        # rebooting leaf unreachable
        di = self.dev_i[T.gleaves[self.M]]
        present[di] &= ~((ts[di] >= self.reboot[0]) & (ts[di] < self.reboot[1]))
        self.ts = ts
        self.present = present
        self.lag = np.array([rng.uniform(0.5, 14.5) for d in devs])
        # DOM endpoint: every 60 s, separate input, slower
        dlat = np.array([rng.uniform(4.0, 9.0) for d in devs])
        kd = np.arange(0, K, DOM_EVERY)
        self.dom_k = kd
        self.dom_ts = kd[None, :] * SAMPLE_S + dlat[:, None] + np.abs(0.2 * rng.standard_normal((nd, len(kd))))
        dp = rng.random((nd, len(kd))) > 0.004
        dp &= ~((kd * SAMPLE_S >= cg) & (kd * SAMPLE_S < cg + dur))[None, :]
        di = self.dev_i[T.gleaves[self.M]]
        dp[di] &= ~((self.dom_ts[di] >= self.reboot[0]) & (self.dom_ts[di] < self.reboot[1] + 30))
        di = self.dev_i[self.xr_dev]
        xr = ev["xr"] * 60 + self.xr_off
        dp[di] &= ~((self.dom_ts[di] >= xr) & (self.dom_ts[di] < xr + 40))
        self.dom_present = dp

    # ---------------------------------------------------------------- counters
    def counters(self):
        rng, T = self.rng, self.T
        NP = T.NP
        S = SAMPLE_S
        inc = {}
        L = self.L
        opp = np.arange(NP) ^ 1
        inc["out_oct"] = L * S
        inc["in_oct"] = L[:, opp] * S
        inc["out_pkt"] = self.out_pk * S
        inc["in_pkt"] = self.out_pk[:, opp] * S
        inc["pfc_tx"] = self.tx_pause * S
        inc["pfc_rx"] = self.tx_pause[:, opp] * S
        inc["ecn"] = self.ecn * S
        inc["qdrop"] = self.qdrop * S
        inc["in_disc"] = self.in_disc
        inc["fcs"] = self.fcs
        inc["fec_corr"] = self.corr
        inc["fec_unc"] = self.unc
        inc["corr_bits"] = self.corr_bits
        inc["nic_disc"] = self.nic_disc
        inc["marks"] = self.marks_rx
        inc["cnp_sent"] = self.cnp_sent
        inc["cnp_handled"] = self.cnp_handled
        for k in inc:
            inc[k] = np.array(inc[k], dtype=np.float64)
            inc[k][0] = 0
        self.inc = inc
        self.CS = {k: np.cumsum(v, 0) for k, v in inc.items()}
        # initial values: devices up for months (switches) or weeks (hosts)
        up_days = {d: (rng.uniform(40, 210) if T.kind[d] == "switch" else rng.uniform(3, 30)) for d in T.devices + T.stor}
        tf_days = {d: rng.uniform(1, 60) for d in T.devices + T.stor}
        C0 = {}
        avg_util = rng.uniform(0.08, 0.35, NP)
        for k in inc:
            C0[k] = np.zeros(NP)
        for p in range(NP):
            d = T.p_dev[p]
            up_s = up_days[d] * 86400
            cap = T.p_cap[p]
            o1 = avg_util[p] * cap * up_s * rng.uniform(0.7, 1.3)
            o2 = avg_util[p] * cap * up_s * rng.uniform(0.7, 1.3)
            C0["out_oct"][p], C0["in_oct"][p] = o1, o2
            C0["out_pkt"][p], C0["in_pkt"][p] = o1 / rng.uniform(3300, 3900), o2 / rng.uniform(3300, 3900)
            C0["pfc_tx"][p] = rng.uniform(0, 40) * up_s * (rng.random() < 0.8)
            C0["pfc_rx"][p] = rng.uniform(0, 40) * up_s * (rng.random() < 0.8)
            tf = (tf_days[d] if T.kind[d] == "switch" else up_days[d]) * 86400
            C0["ecn"][p] = rng.uniform(5, 400) * tf if T.kind[d] == "switch" else 0
            C0["qdrop"][p] = float(rng.integers(0, 5000)) * (rng.random() < 0.5)
            C0["in_disc"][p] = float(rng.integers(0, 60000)) * (rng.random() < 0.6)
            C0["fcs"][p] = float(rng.integers(0, 300)) * (rng.random() < 0.5)
            C0["fec_corr"][p] = self.corr[1:40, p].mean() / S * tf
            C0["fec_unc"][p] = float(rng.integers(0, 40)) * (rng.random() < 0.6)
            C0["corr_bits"][p] = self.corr_bits[1:40, p].mean() / S * up_s
            C0["nic_disc"][p] = float(rng.integers(0, 2000)) * (rng.random() < 0.4)
            C0["marks"][p] = rng.uniform(50, 3000) * up_s
            C0["cnp_sent"][p] = C0["marks"][p] * rng.uniform(0.55, 0.85)
            C0["cnp_handled"][p] = rng.uniform(30, 2500) * up_s
        self.C0 = C0
        self.carrier0 = {p: (2 * int(rng.integers(1, 12)) if T.kind[T.p_dev[p]] == "switch" else 2 * int(rng.integers(1, 4))) for p in range(NP)}
        self.linkdown0 = {p: int(rng.integers(0, 4)) for p in range(NP)}

    def uptime(self, li, t):
        u = np.array(t, float, copy=True)
        for a, b in self.ldown[li]:
            u -= np.clip(np.minimum(t, b) - a, 0, None)
        return u

    def cum_at(self, key, p, t):
        """Cumulative count of field `key` on port p at times t (seconds, array), before resets.
        Within an interval the increment accrues in proportion to the link's up-time."""
        t = np.clip(np.asarray(t, float), 0, (J - 1) * SAMPLE_S - 1e-6)
        k = np.floor(t / SAMPLE_S).astype(int)
        frac = (t - k * SAMPLE_S) / SAMPLE_S
        li = p // 2
        if self.ldown[li]:
            u0 = self.uptime(li, k * SAMPLE_S)
            u1 = self.uptime(li, (k + 1) * SAMPLE_S)
            ut = self.uptime(li, t)
            den = u1 - u0
            frac = np.where(den > 1e-9, (ut - u0) / np.maximum(den, 1e-9), 1.0 * (t >= (k + 1) * SAMPLE_S))
        cs = self.CS[key][:, p]
        inc = self.inc[key][:, p]
        return self.C0[key][p] + cs[k] + frac * inc[np.minimum(k + 1, J - 1)]

    def transitions(self, li, t):
        """Number of carrier transitions of link li up to times t; and number of downs."""
        t = np.asarray(t, float)
        n = np.zeros_like(t)
        nd = np.zeros_like(t)
        for a, b in self.ldown[li]:
            n += (t >= a)
            n += (t >= b)
            nd += (t >= a)
        return n, nd

    # ---------------------------------------------------------------- output
    def run(self, outdir):
        t_start = time.time()
        self.schedule()
        self.place()
        self.link_states()
        self.xr_off = float(self.rng.uniform(1, 20))
        self.components()
        self.weights()
        self.traffic()
        self.congestion()
        self.phy()
        self.rdma()
        self.scrape()
        self.counters()
        os.makedirs(outdir, exist_ok=True)
        n_lines, ports_seen = self.write(os.path.join(outdir, "port_counters.lp"))
        self.labels(os.path.join(outdir, "labels.json"), n_lines, len(ports_seen))
        return time.time() - t_start

    def field_values(self, p, d_i):
        """Sampled field values for port p, list of per-sample python values (K), keyed by field name."""
        T, ev = self.T, self.ev
        ts = self.ts[d_i]
        is_sw = T.p_is_switch[p]
        lag_t = ts - self.lag[d_i]
        li = p // 2
        out = {}
        resets = [(tr, kind, init) for (pp, tr, kind, init) in self.resets if pp == p]

        def counter(key, tt, textfile=False):
            v = self.cum_at(key, p, tt)
            for tr, _kind, init in resets:
                base = self.cum_at(key, p, np.array([tr]))[0]
                v = np.where(tt >= tr, v - base + init, v)
            if textfile and is_sw and T.p_dev[p] == self.xr_dev:
                x0 = ev["xr"] * 60 + self.xr_off
                x1 = x0 + 30.0
                base = self.cum_at(key, p, np.array([x1]))[0]
                # stale textfile while the daemon restarts, then totals start again from 0
                stale_idx = np.where((tt >= x0) & (tt < x1))[0]
                v2 = np.where(tt >= x1, v - base, v)
                if len(stale_idx):
                    prev = max(stale_idx[0] - 1, 0)
                    v2[stale_idx] = v2[prev]
                v = v2
            return np.floor(np.maximum(v, 0))

        if is_sw:
            out["node_ethtool_hwifinoctets"] = counter("in_oct", ts)
            out["node_ethtool_hwifoutoctets"] = counter("out_oct", ts)
            out["node_ethtool_hwifinucastpkts"] = counter("in_pkt", ts)
            out["node_ethtool_hwifoutucastpkts"] = counter("out_pkt", ts)
            out["node_ethtool_hwifindiscards"] = counter("in_disc", ts)
            out["node_ethtool_hwifindot3frameerrors"] = counter("fcs", ts)
            out["node_ethtool_hwifoutqdrops"] = counter("qdrop", ts)
            out["node_ethtool_hwifinpfc3pkt"] = counter("pfc_rx", ts)
            out["node_ethtool_hwifoutpfc3pkt"] = counter("pfc_tx", ts)
            out["cl_qos_ecn_marked_tc3_total"] = counter("ecn", lag_t, True)
            if T.p_dev[p] != self.nofec_dev:
                out["cl_phy_fec_corrected_blocks_total"] = counter("fec_corr", lag_t, True)
                out["cl_phy_fec_uncorrectable_blocks_total"] = counter("fec_unc", lag_t, True)
        else:
            out["node_ethtool_received_bytes_phy"] = counter("in_oct", ts)
            out["node_ethtool_transmitted_bytes_phy"] = counter("out_oct", ts)
            out["node_ethtool_received_packets_phy"] = counter("in_pkt", ts)
            out["node_ethtool_transmitted_packets_phy"] = counter("out_pkt", ts)
            out["node_ethtool_received_discards_phy"] = counter("nic_disc", ts)
            out["node_ethtool_received_crc_errors_phy"] = counter("fcs", ts)
            out["node_ethtool_received_corrected_bits_phy"] = counter("corr_bits", ts)
            out["node_ethtool_received_prio3_pause"] = counter("pfc_rx", ts)
            out["node_ethtool_transmitted_prio3_pause"] = counter("pfc_tx", ts)
            out["rdma_np_ecn_marked_roce_packets_total"] = counter("marks", lag_t)
            out["rdma_np_cnp_sent_total"] = counter("cnp_sent", lag_t)
            out["rdma_rp_cnp_handled_total"] = counter("cnp_handled", lag_t)
        ntr, ndn = self.transitions(li, ts)
        car = self.carrier0[p] + ntr
        ldn = self.linkdown0[p] + ndn
        for tr, _kind, _init in resets:
            n_at, d_at = self.transitions(li, np.array([tr + 1e-6]))
            car = np.where(ts >= tr, ntr - n_at[0] + (1 if not self.is_down(li, tr + 1e-6) else 0), car)
            ldn = np.where(ts >= tr, ndn - d_at[0], ldn)
        out["node_network_carrier_changes_total"] = car
        if not is_sw:
            out["node_ethtool_link_down_events_phy"] = ldn
        up = np.array([0 if self.is_down(li, t) else 1 for t in ts])
        out["node_network_up"] = up
        if is_sw:
            out["node_network_flags"] = np.array([FLAGS_DOWN if self.is_admin_down(p, t) else FLAGS_UP for t in ts])
        return out

    def tags(self, p, with_peer=True):
        T = self.T
        d = T.p_dev[p]
        kv = [("device", d), ("fabric", "ai1-roce")]
        if with_peer:
            pd, pp = T.peer_of(p)
            kv += [("peer", pd), ("peer_port", pp)]
        kv.append(("port", T.p_port[p]))
        if not T.p_is_switch[p]:
            kv.append(("rdma_dev", T.links[p // 2]["a_rdma"]))
        kv.append(("role", T.role[d]))
        return "port_counters," + ",".join(f"{k}={v}" for k, v in kv)

    def peer_visible(self, li, t):
        """LLDP neighbour known at time t (entry expires 120 s after the link went down, relearnt ~20 s after up)."""
        for a, b in self.ldown[li]:
            if b - a > 120 and a + 120 <= t < b + 20:
                return False
        return True

    def dom_values(self, p, d_i):
        T = self.T
        ts = self.dom_ts[d_i]
        li = p // 2
        key = (T.p_dev[p], T.p_cage[p])
        if key not in self.temp0:
            self.temp0[key] = self.rng.uniform(38, 54)
        if key not in self.dom_phase:
            self.dom_phase[key] = self.rng.uniform(0, 2 * np.pi)
        tm = self.temp0[key] + 1.5 * np.interp(ts, mid_s(), np.clip(self.util[:, p] + self.util[:, p ^ 1], 0, 2)) + 0.6 * np.sin(ts / 4000.0 + self.dom_phase[key])
        if p in self.heat_ports:
            tm = tm + np.interp(ts, mid_s(), self.heat_rise)
        tm = tm + 0.15 * self.rng.standard_normal(len(ts))
        tm = np.round(tm * 256) / 256
        out = {"cl_xcvr_temperature_celsius": tm}
        far = p ^ 1
        heat_far = far in self.heat_ports
        for ln in range(4):
            pw = self.rxp0[p, ln] + 0.04 * self.rng.standard_normal(len(ts))
            if p == self.degr_port and ln in self.degr_lanes:
                pw = pw - np.interp(ts, mid_s(), self.degr_drop)
            if heat_far:
                tabs = self.temp0[(T.p_dev[far], T.p_cage[far])] + np.interp(ts, mid_s(), self.heat_rise)
                pw = pw - 0.12 * np.clip(tabs - 64, 0, None)
            down = np.array([self.is_down(li, t) for t in ts])
            mw = 10 ** (pw / 10)
            mw = np.round(mw * 10000) / 10000
            mw = np.where(down, 0.0001, np.maximum(mw, 0.0001))
            out[f"cl_xcvr_rx_power_dbm_lane{ln}"] = np.round(10 * np.log10(mw), 4)
        return out

    def write(self, path):
        """Emit the lines as Telegraf would: prometheus input (metric_version 2) -> processors.dedup
        (per field series, dedup_interval 600 s, cache lost when Telegraf restarts) -> aggregators.merge
        (one line per port and scrape) -> influx serializer (floats, Go 'f' -1 formatting, sorted tags)."""
        T = self.T
        lines_by_k = [[] for _ in range(K)]
        ports_seen = set()
        cg1 = self.ev["cg"] * 60 + self.cg_dur
        DEDUP = 600.0
        for d in T.devices:
            di = self.dev_i[d]
            pres = self.present[di]
            ts = self.ts[di]
            ts_ns = (T0_NS + np.round(ts * 1e9)).astype(np.int64) + self.rng.integers(0, 1000, K)
            for p in T.dev_ports[d]:
                vals = self.field_values(p, di)
                names = sorted(vals.keys())
                cols = []
                for nm in names:
                    arr = vals[nm]
                    if nm in BIG_FIELDS:
                        cols.append([gofmt(float(x)) for x in arr.tolist()])
                    else:
                        cols.append([str(int(x)) for x in arr.tolist()])
                pre = {True: self.tags(p, True), False: self.tags(p, False)}
                li = p // 2
                heads = [nm + "=" for nm in names]
                nf = len(names)
                cache = {True: [None] * nf, False: [None] * nf}     # (value, time) per field series
                restarted = False
                for k in range(K):
                    if not pres[k]:
                        continue
                    t = ts[k]
                    if not restarted and t >= cg1:
                        cache = {True: [None] * nf, False: [None] * nf}   # Telegraf restart: dedup state lost
                        restarted = True
                    vis = self.peer_visible(li, t)
                    cc = cache[vis]
                    parts = []
                    for i in range(nf):
                        v = cols[i][k]
                        c = cc[i]
                        if c is None or c[0] != v or t - c[1] >= DEDUP:
                            parts.append(heads[i] + v)
                            cc[i] = (v, t)
                    if parts:
                        lines_by_k[k].append((int(ts_ns[k]), d, p, f"{pre[vis]} {','.join(parts)} {int(ts_ns[k])}\n"))
                        ports_seen.add(p)
            # DOM endpoint (60 s, separate input: not merged with the 15 s lines)
            dpres = self.dom_present[di]
            dts_ns = (T0_NS + np.round(self.dom_ts[di] * 1e9)).astype(np.int64) + self.rng.integers(0, 1000, len(self.dom_k))
            for p in T.dev_ports[d]:
                if not T.p_optical[p]:
                    continue
                vals = self.dom_values(p, di)
                cols = [[gofmt(float(x)) for x in vals[nm].tolist()] for nm in DOM_FIELDS]
                pre = {True: self.tags(p, True), False: self.tags(p, False)}
                li = p // 2
                nf = len(DOM_FIELDS)
                cache = {True: [None] * nf, False: [None] * nf}
                restarted = False
                for m, k in enumerate(self.dom_k):
                    if not dpres[m]:
                        continue
                    t = self.dom_ts[di, m]
                    if not restarted and t >= cg1:
                        cache = {True: [None] * nf, False: [None] * nf}
                        restarted = True
                    vis = self.peer_visible(li, t)
                    cc = cache[vis]
                    parts = []
                    for i, nm in enumerate(DOM_FIELDS):
                        v = cols[i][m]
                        c = cc[i]
                        if c is None or c[0] != v or t - c[1] >= DEDUP:
                            parts.append(nm + "=" + v)
                            cc[i] = (v, t)
                    if parts:
                        lines_by_k[k].append((int(dts_ns[m]), d, p, f"{pre[vis]} {','.join(parts)} {int(dts_ns[m])}\n"))
        n = 0
        with open(path, "w", encoding="ascii", newline="\n") as f:
            for k in range(K):
                bucket = lines_by_k[k]
                bucket.sort(key=lambda x: (x[0], x[1], x[2]))
                f.writelines(x[3] for x in bucket)
                n += len(bucket)
                lines_by_k[k] = None
        self.ports_seen = ports_seen
        return n, ports_seen

    # ---------------------------------------------------------------- labels
    def labels(self, path, n_lines, n_ports):
        T, ev = self.T, self.ev
        t_end_min = RUN_S / 60.0
        wd = self.w_dev

        def pe(p):
            return {"device": T.p_dev[p], "port": T.p_port[p]}

        def rel(dev, ports=None):
            return {"device": dev, "ports": ports or ["*"]}

        spines_rel = [rel(s) for s in T.spines]

        def uplinks_of_other_leaves(skip):
            out = []
            for x, lf_ in enumerate(T.leaves):
                if lf_ in skip:
                    continue
                out.append(rel(lf_, [T.links[T.ul[u]]["a_port"] for u in T.ul_of_leaf[x]]))
            return out
        faults = []
        # 1 degrading optic
        p = self.degr_port
        faults.append(dict(
            kind="degrading_optic", device=T.p_dev[p], ports=[T.p_port[p]],
            start_ns=self.ns(ev["degr_s"]), end_ns=self.ns(t_end_min),
            peer_ends=[pe(p ^ 1)], related=[],
            signature=(f"receive side of a leaf-spine 400G DR4 link; DOM cl_xcvr_rx_power_dbm_lane{self.degr_lanes} falls ~9.5 dB "
                       "(accelerating) from the start to the end of the run; pre-FEC errors grow ~x3 per dB once the margin is used up: "
                       "cl_phy_fec_corrected_blocks_total climbs x10-x10^4 (not load-driven), then cl_phy_fec_uncorrectable_blocks_total and "
                       "node_ethtool_hwifindot3frameerrors (FCS, in proportion to received frames) appear late; the far end stays clean")))
        # 2 flapping host link
        h, r = self.flap
        li = self.flap_link
        last_up = max(b for a, b in self.flap_times)
        faults.append(dict(
            kind="flapping_link", device=T.links[li]["b_dev"], ports=[T.links[li]["b_port"]],
            start_ns=self.ns(ev["flap_s"]), end_ns=self.ns(max(ev["flap_e"], math.ceil(last_up / 30.0) / 2.0 + 0.5)),
            peer_ends=[pe(2 * li)],
            related=[rel(T.hosts[hh]) for jb in self.jobs_at(ev["flap_s"]) if h in jb["hosts"] for hh in jb["hosts"] if hh != h],
            signature=(f"GPU host link (ConnectX-7 {T.links[li]['a_port']}, DAC) bounces {len(self.flap_times)} times (2-25 s down, "
                       "minutes apart): node_network_carrier_changes_total +2 per bounce on both ends, node_ethtool_link_down_events_phy +1 on the NIC, "
                       "node_network_up 0 when a scrape lands in a down, FCS/uncorrectable blocks at each link-up, the host's job slows")))
        # 3 PFC storm
        h, r = self.storm
        li = self.storm_link
        j1 = self.j1
        faults.append(dict(
            kind="pfc_storm", device=T.links[li]["b_dev"], ports=[T.links[li]["b_port"]],
            start_ns=self.ns(ev["storm_s"]), end_ns=self.ns(ev["storm_e"] + 1.0),
            peer_ends=[pe(2 * li)],
            related=[rel(T.links[li]["b_dev"])] + spines_rel + [rel(T.hosts[h], [T.links[x]["a_port"] for x in T.gl[T.gl_h == h] if x != li])]
            + [rel(T.hosts[hh]) for hh in j1["hosts"] if hh != h]
            + [rel(T.gleaves[x]) for x in sorted({hh // 2 for hh in j1["hosts"]}) if T.gleaves[x] != T.links[li]["b_dev"]]
            + uplinks_of_other_leaves({T.links[li]["b_dev"]} | {T.gleaves[hh // 2] for hh in j1["hosts"]}),
            signature=("NIC firmware hang: the host port keeps sending priority-3 pause (node_ethtool_transmitted_prio3_pause ~24-28k/s, "
                       "node_ethtool_hwifinpfc3pkt on the leaf port likewise), nothing is transmitted to or from the host; the leaf pauses its "
                       "uplinks for ~25 s (and for ~15 s every 2 min when the PFC watchdog re-arms), spines pass some of it on; between those bursts "
                       "the watchdog drops the traffic for the host (node_ethtool_hwifoutqdrops); the pretraining job stalls; it ends with a "
                       "NIC reset (link bounce, the NIC's counters restart from 0) and the job restarts from its checkpoint")))
        # 4 ECN disabled on a leaf
        lf = T.gleaves[self.ecn_leaf]
        hosts_on = [T.hosts[2 * self.ecn_leaf], T.hosts[2 * self.ecn_leaf + 1]]
        faults.append(dict(
            kind="ecn_disabled_switch", device=lf, ports=["*"],
            start_ns=self.ns(ev["ecn_s"]), end_ns=self.ns(ev["ecn_e"]),
            peer_ends=[], related=spines_rel + [rel(x) for x in hosts_on]
            + [rel(T.hosts[hh]) for hh in j1["hosts"] if T.hosts[hh] not in hosts_on]
            + [rel(T.gleaves[x]) for x in sorted({hh // 2 for hh in j1["hosts"]}) if T.gleaves[x] != lf]
            + uplinks_of_other_leaves({lf} | {T.gleaves[hh // 2] for hh in j1["hosts"]}),
            signature=("congestion-control profile lost on the leaf (TC3 ECN marking off): cl_qos_ecn_marked_tc3_total flat on every port while "
                       "the other leaves of the same job keep marking; its queues build to the PFC threshold instead: node_ethtool_hwifoutpfc3pkt "
                       "from it (and hwifinpfc3pkt / received_prio3_pause at its neighbours) several times the sibling leaves'; the NICs behind it "
                       "see fewer marks (rdma_np_ecn_marked_roce_packets_total); nothing when it is idle")))
        # 5 ECMP polarisation
        lf = T.gleaves[self.pol_leaf]
        up_li = int(T.ul[self.pol_u])
        sib = [int(T.ul[u]) for u in T.ul_of_leaf[self.pol_leaf] if u != self.pol_u]
        jobs_here = [jb for jb in self.jobs_at((ev["pol_s"] + ev["pol_e"]) / 2) if any(hh // 2 == self.pol_leaf for hh in jb["hosts"])]
        faults.append(dict(
            kind="ecmp_polarization", device=lf, ports=[T.links[up_li]["a_port"]],
            start_ns=self.ns(ev["pol_s"]), end_ns=self.ns(ev["pol_e"]),
            peer_ends=[pe(2 * up_li + 1)],
            related=[rel(lf, [T.links[x]["a_port"] for x in sib] + [T.links[x]["b_port"] for x in T.epl_of_leaf[self.pol_leaf]])]
            + [rel(T.links[x]["b_dev"], [T.links[x]["b_port"]]) for x in sib]
            + [rel(T.hosts[hh]) for jb in jobs_here for hh in jb["hosts"]],
            signature=("after a hash-seed change one uplink of the leaf gets ~55-60% of its cross-leaf traffic: that uplink runs at line rate "
                       "with heavy ECN marking, pauses to the hosts and tail drops of the lossy classes (node_ethtool_hwifoutqdrops) while its "
                       "15 siblings carry a few percent each; the job on the leaf slows to the hot link's pace")))
        # 6 link left down after maintenance
        li = self.ldm_link
        a, b = T.ends(li)
        fr = float(self.ldm_fault_s / 60.0)
        pair_sib = [int(x) for x in T.ul if T.links[x]["leaf"] == T.links[li]["leaf"] and T.links[x]["spine"] == T.links[li]["spine"] and x != li]
        faults.append(dict(
            kind="link_down_after_maintenance", device=a[0], ports=[a[1]],
            start_ns=self.ns(fr), end_ns=self.ns(t_end_min),
            peer_ends=[{"device": b[0], "port": b[1]}],
            related=[rel(a[0], [T.links[x]["a_port"] for x in pair_sib]), rel(b[0], [T.links[x]["b_port"] for x in pair_sib])],
            signature=("optic swap in a change window (both ends admin-down for 10 min, labelled healthy); after it both ends are admin up "
                       "(node_network_flags 4099) but the link stays oper down (node_network_up 0, fibre polarity crossed: rx power -40 dBm on "
                       "both ends), LLDP peer tags disappear, counters frozen (so the dedup processor sends a line only every 10 min); "
                       "its siblings to the same spine carry its share")))
        # 7 module overheating
        hp = self.heat_ports
        faults.append(dict(
            kind="module_overheating", device=T.p_dev[hp[0]], ports=[T.p_port[q] for q in hp],
            start_ns=self.ns(ev["heat_s"]), end_ns=self.ns(t_end_min),
            peer_ends=[pe(q ^ 1) for q in hp],
            related=[],
            signature=("an 800G 2xDR4 OSFP (shared by the two 400G breakout ports) warms by ~30 C over ~1.5 h: cl_xcvr_temperature_celsius "
                       "(60 s DOM lines) on both breakout ports rises from ~45-50 C towards ~78 C; above ~58 C the local receiver's corrected FEC "
                       "rises, above ~64 C its transmit power sags so the far ends' rx power falls and their corrected FEC rises")))
        # 8 NIC with congestion control disabled
        h, r = self.cc
        li = int(T.gl[(T.gl_h == h) & (T.gl_r == r)][0])
        jobs_cc = [jb for jb in self.jobs_at((ev["cc_s"] + ev["cc_e"]) / 2) if h in jb["hosts"]]
        faults.append(dict(
            kind="nic_cc_disabled", device=T.hosts[h], ports=[T.links[li]["a_port"]],
            start_ns=self.ns(ev["cc_s"]), end_ns=self.ns(ev["cc_e"]),
            peer_ends=[pe(2 * li + 1)],
            related=[rel(T.hosts[hh]) for jb in jobs_cc for hh in jb["hosts"] if hh != h]
            + [rel(T.gleaves[x]) for x in sorted({hh // 2 for jb in jobs_cc for hh in jb["hosts"]})] + [rel(s) for s in T.sleaves],
            signature=("a tuning script disabled DCQCN on one ConnectX-7 (roce_np/roce_rp enable for prio 3 = 0): rdma_np_cnp_sent_total and "
                       "rdma_rp_cnp_handled_total go flat while rdma_np_ecn_marked_roce_packets_total keeps counting and the NIC's siblings keep "
                       "sending/handling CNPs; it takes ~20% more than its share of the host's bytes, its leaf pauses it "
                       "(node_ethtool_received_prio3_pause up) and the queues its traffic reaches mark more")))
        # 9 line card / port group
        lp = self.lc_ports
        faults.append(dict(
            kind="linecard_errors", device=T.p_dev[lp[0]], ports=[T.p_port[q] for q in lp],
            start_ns=self.ns(ev["lc_s"]), end_ns=self.ns(t_end_min),
            peer_ends=[pe(q ^ 1) for q in lp],
            related=[],
            signature=("four consecutive OSFP cages of one spine (eight 400G ports, one retimer/port-board group: what a modular chassis would "
                       "call a line card) start erring at the same moment: cl_phy_fec_corrected_blocks_total x80-x300 on all eight, bursts of "
                       "uncorrectable blocks on all eight in the same intervals (with FCS on received frames), far ends' corrected FEC x5-x20")))
        faults.sort(key=lambda f: f["start_ns"])

        H = []

        def hp_(kind, where, a, b, note, background=False):
            a = a if background else max(0.0, math.floor(a * 2 - 1) / 2)
            d = dict(kind=kind, where=where, start_ns=self.ns(a), end_ns=self.ns(b), note=note)
            if background:
                d["background"] = True
            H.append(d)

        allw = ["*"]
        hp_("sporadic_fec_uncorrectable", allw, 0, t_end_min,
            "single uncorrectable RS-FEC codewords (cl_phy_fec_uncorrectable_blocks_total +1, sometimes an FCS error with it) on ~18% of "
            "links at 0.3-2/h, ~0.02/h elsewhere; corrected FEC runs at 10^2-10^5 blocks/s on every healthy link regardless of load", True)
        hp_("ecmp_imbalance", allw, 0, t_end_min, "RoCE's few large flows hash unevenly: uplinks of a leaf differ by +-20-40%, redrawn whenever jobs start or stop", True)
        hp_("ingress_control_plane_drops", allw, 0, t_end_min, "node_ethtool_hwifindiscards trickle (0.01-0.3/s) on ~15% of switch ports", True)
        hp_("missed_scrapes", allw, 0, t_end_min, "~0.15% of scrapes missing per target, ~1% slow (1-5 s late), scrape latency 0.04-2.4 s per target", True)
        hp_("telegraf_dedup", allw, 0, t_end_min, "processors.dedup drops unchanged fields; every field is re-sent at least every 600 s", True)
        hp_("slow_receiver_nic", [wd(T.hosts[self.slow_host])] + [f"{T.gleaves[self.slow_host // 2]}:{T.links[x]['b_port']}" for x in T.gl[T.gl_h == self.slow_host]], 0, t_end_min,
            "host with PCIe/host-memory contention: its NICs send bounded pauses (tens to hundreds/s) whenever they receive heavily", True)
        hp_("diurnal_load", [wd(s) for s in T.svc] + [wd(T.eleaf)] + [wd(s) for s in T.sleaves] + [wd(s) for s in T.spines], 0, t_end_min,
            "service-node (inference/ingest) load follows the local afternoon/evening: 7% -> ~27% -> ~10% of 200G", True)
        hp_("fec_metrics_missing", [wd(self.nofec_dev)], 0, t_end_min, "this switch runs an older image where the textfile script's l1-show parse fails: no cl_phy_fec_* fields at all", True)
        for jb in self.jobs:
            where = [wd(T.hosts[hh]) for hh in jb["hosts"]] + [wd(T.gleaves[x]) for x in sorted({hh // 2 for hh in jb["hosts"]})]
            big = where + [wd(s) for s in T.sleaves] + [wd(s) for s in T.spines]
            if jb["start"] > 0:
                hp_("job_start", big, jb["start"], jb["start"] + jb["load_len"] / 60 + 2,
                    f"{jb['name']} ({len(jb['hosts'])} hosts, {jb['kind']}) starts: model/data load from storage (storage leaves' uplinks saturate), then traffic steps up")
            if jb.get("restart_s"):
                rs = jb["restart_s"] / 60
                hp_("job_start", big, rs, rs + jb["load_len"] / 60 + 2, f"{jb['name']} restarts from its last checkpoint after the NIC reset")
            if jb["end"] < t_end_min:
                hp_("job_stop", where, jb["end"] - 0.5, jb["end"] + 2, f"{jb['name']} finishes: its ports go quiet")
            for a, b in jb["ckpts"]:
                hp_("checkpoint_incast", big, a, b + 0.5,
                    f"{jb['name']} checkpoint: every host writes to the 24 storage ports at once; the 3:1 storage leaves' spine links saturate "
                    "(ECN ~10-20% of packets at the spines and storage leaves, PFC from spines into the GPU leaves and on to the hosts)")
            if jb["kind"] == "alltoall":
                hp_("alltoall_congestion", where + [wd(s) for s in T.spines], max(jb["start"], 0), min(jb["end"], t_end_min),
                    f"{jb['name']} MoE all-to-all with transient hot receivers: ECN at percent level and PFC bursts on many host ports, uplinks and spines at once")
        # planned leaf maintenance
        M = self.M
        lf = T.gleaves[M]
        sp_ports = [f"{T.links[x]['b_dev']}:{T.links[x]['b_port']}" for x in T.ul[T.ul_of_leaf[M]]]
        hosts_m = [wd(T.hosts[2 * M]), wd(T.hosts[2 * M + 1])]
        hp_("scheduler_drain", [*hosts_m, wd(lf)], self.drain[0], self.drain[1], "hosts of the leaf drained for its maintenance: no jobs")
        hp_("planned_maintenance", [wd(lf), *hosts_m, *sp_ports], self.tM_s / 60, self.reboot[1] / 60 + 3,
            "leaf upgrade: all ports admin-down (node_network_flags 4098, far ends oper down), reboot (no lines for ~6 min), back with every "
            "counter of the leaf restarted near zero; far ends: carrier +2, LLDP peer tags gone while down")
        li = self.ldm_link
        a, b = T.ends(li)
        hp_("planned_maintenance", [f"{a[0]}:{a[1]}", f"{b[0]}:{b[1]}"], ev["ldm_s"], self.ldm_fault_s / 60,
            "change window for an optic swap on one leaf-spine link: both ends admin-down")
        x0 = (ev["xr"] * 60 + self.xr_off) / 60
        hp_("exporter_restart", [wd(self.xr_dev)], x0, x0 + 2.5,
            "the switch's cl-hwstats daemon restarts: its textfile is stale for ~30 s, then cl_qos_ecn_marked_tc3_total and cl_phy_fec_* "
            "restart from 0 (node_ethtool_* continue); its DOM endpoint misses one scrape")
        hp_("collector_gap", allw, ev["cg"], ev["cg"] + self.cg_dur / 60 + 0.25,
            "Telegraf restarted: no lines from any target for ~1 min, then every field is sent again (dedup cache lost)")
        hp_("scrape_timeouts", [wd(self.sto_dev)], ev["sto"], ev["sto"] + self.sto_dur / 60 + 0.25, "node_exporter on this spine times out (control plane busy): no lines for ~4 min")
        hp_("lldp_peer_aging", allw, 0, t_end_min, "peer/peer_port tags vanish ~2 min after a link goes down and return ~20 s after it is back", True)
        H.sort(key=lambda x: (x["start_ns"], x["kind"]))

        train_until = self.ns(FIT_MIN)
        lab = {
            "scenario": "roce_cumulus_prometheus",
            "scale": "site",
            "seed": self.seed,
            "fabric": "roce",
            "interval_s": 30,
            "sample_s": SAMPLE_S,
            "t0_ns": T0_NS,
            "t_end_ns": self.ns(t_end_min),
            "train_until_ns": train_until,
            "fit_first": f"{FIT_MIN}m",
            "ports": n_ports,
            "lines": n_lines,
            "faults": faults,
            "healthy_phenomena": H,
            "collection": {
                "measurement": "port_counters",
                "tags_switch_port": ["device", "fabric", "peer", "peer_port", "port", "role"],
                "tags_host_port": ["device", "fabric", "peer", "peer_port", "port", "rdma_dev", "role"],
                "fields_switch_15s": SWITCH_FIELDS,
                "fields_host_15s": HOST_FIELDS,
                "fields_dom_60s": DOM_FIELDS,
                "values": "floats as Telegraf writes Prometheus samples (no i suffix); counters above 2^53 lose their low bits",
                "dedup": "unchanged fields omitted (Telegraf processors.dedup, dedup_interval 600s)",
            },
        }
        with open(path, "w", encoding="utf-8") as f:
            json.dump(lab, f, indent=1)
            f.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description="RoCEv2 Cumulus/Spectrum fabric scraped by Prometheus exporters via Telegraf: labelled port_counters.lp")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    g = Gen(args.seed)
    dt = g.run(args.outdir)
    print(f"wrote {args.outdir}/port_counters.lp and labels.json in {dt:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
