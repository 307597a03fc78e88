#!/usr/bin/env python3
"""DATA SHEET -- roce-tenant-hosts-only: a GPU-cloud tenant's view of a RoCEv2 fabric (hosts only)

    python bench/fabrics/roce_tenant_hosts_only.py OUTDIR --seed N [--hours H]

writes OUTDIR/port_counters.lp (InfluxDB line protocol) and OUTDIR/labels.json (the form
shared/scenarios/score.py reads). Standard library only, deterministic per seed. Default length 6 h for
odd seeds, 5 h for even seeds (--hours 5..12); the first 2 h are fault-free (fit window). ~110-150 MB, ~10 s.

WHAT WE HAVE (and what we do not)
  We rent 48 HGX H100 nodes. Each has 8 ConnectX-7 400G ports (RoCEv2, one per GPU) on the provider's
  rail-optimised backend (NIC r of every node sits on rail r), plus one front-end NIC that is not on the
  GPU fabric. The provider runs the switches; we get no switch counters, no LLDP (the provider disables
  LLDP towards tenants), no topology beyond "NIC r is on rail r". Everything below is host-side.
  Hostnames gpu-NNNN: six racks of eight consecutive numbers, two nodes are RMA replacements from the
  spare pool (gpu-07NN). Two chassis generations (which racks is seed-dependent):
    layout A  HGX, MLNX_OFED/DOCA 24.10, CX-7 fw 28.42.1000, front-end BlueField-3 B3140H in NIC mode
              (mlx5 too, so it has an RDMA device and a hwmon chip):
              rail  netdev        RDMA     PCI           rail  netdev        RDMA     PCI
              0     enp24s0np0    mlx5_0   0000:18:00.0  4     enp154s0np0   mlx5_4   0000:9a:00.0
              1     enp64s0np0    mlx5_1   0000:40:00.0  5     enp192s0np0   mlx5_6   0000:c0:00.0
              2     enp79s0np0    mlx5_2   0000:4f:00.0  6     enp206s0np0   mlx5_7   0000:ce:00.0
              3     enp94s0np0    mlx5_3   0000:5e:00.0  7     enp220s0np0   mlx5_8   0000:dc:00.0
              front-end enp170s0f0np0 = mlx5_5 (0000:aa:00.0)  <- mlx5 numbers follow PCI probe order
    layout B  other OEM, inbox driver (kernel 6.8.0-52-generic), fw 28.39.2048, slot-named ports,
              front-end Broadcom BCM57508 eno12399np0 (bnxt_en; bnxt_re not loaded: no RDMA, no hwmon kept):
              pos  netdev    RDMA    PCI           rail    (the OEM cabled GPU/NIC pairs crosswise:
              0    ens9np0   mlx5_0  0000:1d:00.0  1      rail order != PCI order)
              1    ens10np0  mlx5_1  0000:3c:00.0  0      4 ens13np0 mlx5_4 0000:9b:00.0 rail 5
              2    ens11np0  mlx5_2  0000:4d:00.0  3      5 ens14np0 mlx5_5 0000:bb:00.0 rail 4
              3    ens12np0  mlx5_3  0000:5d:00.0  2      6 ens15np0 mlx5_6 0000:cb:00.0 rail 7
                                                          7 ens16np0 mlx5_7 0000:db:00.0 rail 6
  labels.json "nics" lists every fabric NIC (host, netdev, rdma, rail, bus_info, hwmon chip, layout).

COLLECTION
  node_exporter (a >= 1.9 build whose infiniband collector exports the RDMA hw_counters) runs twice per node:
    :9100  default collectors (infiniband, netclass, stat, textfile, ...; cpu/mem/... dropped by telegraf)
    :9101  --collector.disable-defaults --collector.ethtool --collector.netdev --collector.hwmon
           --collector.ethtool.device-include='^(enp[0-9]+s0|ens[0-9]+)np0$'
           --collector.ethtool.metrics-include='^(link_down_events_phy|rx_(corrected_bits|crc_errors|discards|
               pcs_symbol_err|symbol_err)_phy|rx_out_of_buffer|(rx|tx)_prio3_pause(_duration)?|
               tx_pause_storm_(warning|error)_events)$'
           --collector.hwmon.sensor-include='^0000:.*;temp2$'   (the transceiver sensor of each mlx5)
  The ethtool stats dump of a CX-7 (2000+ per-queue stats) takes rtnl_lock for ~0.3 s per port, so the
  :9101 exporter is scraped every 60 s, :9100 every 15 s. A telegraf agent on each node:
    [agent] interval="15s", round_interval=true, flush_interval="10s", flush_jitter="1s"
    [[inputs.prometheus]] urls=["http://localhost:9100/metrics"], metric_version=2, interval="15s",
                          fieldinclude = the :9100 fields listed below
    [[inputs.prometheus]] urls=["http://localhost:9101/metrics"], metric_version=2, interval="60s"
    [[processors.dedup]]  dedup_interval="1h"        (runs on the one-field v2 metrics)
    [[aggregators.merge]] drop_original=true         (same series + timestamp -> one line)
  The file is what our InfluxDB write relay logged: request bodies in arrival order, i.e. roughly
  time-ordered, nodes interleaved, a node's batch arriving 1.5-11 s after its timestamp, sometimes minutes
  late (see late_delivery). Timestamps are the agent's gather time in ns: :00/:15/:30/:45 plus the node's
  NTP offset (< 8 ms) plus scrape latency (12-75 ms on :9100, 0.2-0.9 s on :9101).

LINE FORMAT (exactly what is in the file)
  measurement "prometheus"; tags sorted by key; the metric labels become tags, plus `host` (the node's
  hostname, telegraf's global tag) and `url` (the scrape URL). There is no `instance`/`job` label: that is
  added by a Prometheus server, not by node_exporter or telegraf. Field values are float64 as telegraf
  writes them: no `i` suffix, integers printed plainly, values >= 2^53 rounded to float64 (shortest
  digits, e.g. 11004218812341760: long-uptime byte counters move in steps of 2, 4, 8 ...).
  Series (tag keys -> fields):
    device,host,port(=1),url=:9100            one line per RDMA device per 15 s:
        node_infiniband_{state_id, physical_state_id, rate_bytes_per_second,
          port_data_received_bytes_total, port_data_transmitted_bytes_total, port_errors_received_total,
          port_discards_transmitted_total, link_downed_total, link_error_recovery_total, symbol_error_total,
          duplicate_requests_packets_total, implied_nak_seq_errors_total, local_ack_timeout_errors_total,
          np_cnp_packets_sent_total, np_ecn_marked_roce_packets_received_total, out_of_buffer_drops_total,
          out_of_sequence_packets_received_total, packet_sequence_errors_total, req_cqes_errors_total,
          req_cqes_flush_errors_total, resp_cqes_flush_errors_total, roce_adp_retransmits_total,
          roce_adp_retransmits_timeout_total, rp_cnp_packets_handled_total,
          rp_cnp_ignored_packets_received_total, rx_icrc_encapsulated_errors_total}
    device(netdev),host,url=:9100             node_network_{carrier, carrier_changes_total,
          carrier_down_changes_total, carrier_up_changes_total, mtu_bytes, speed_bytes, up}
    device(netdev),host,url=:9101             (fabric NICs) node_ethtool_{link_down_events_phy,
          received_corrected_bits_phy, received_crc_errors_phy, received_discards_phy,
          received_out_of_buffer, received_pcs_symbol_err_phy, received_prio3_pause,
          received_prio3_pause_duration, received_symbol_err_phy, transmitted_pause_storm_error_events,
          transmitted_pause_storm_warning_events, transmitted_prio3_pause, transmitted_prio3_pause_duration}
          (node_exporter renames rx_/tx_ to received_/transmitted_) and node_network_{receive,transmit}_
          {bytes,packets,errs,drop}_total, node_network_receive_frame_total; front-end NICs: netdev only
    chip,host,sensor(=temp2),url=:9101        node_hwmon_temp_celsius, node_hwmon_temp_crit_celsius (75)
    host,url=:9100                            node_boot_time_seconds
    info series, value 1 (a changed label is a new series):
      node_infiniband_info{board_id,device,firmware_version,hca_type}   :9100
      node_network_info{address,adminstate,broadcast,device,duplex,operstate}   :9100  (duplex is
          unreadable while the carrier is down, so that tag is absent then; operstate=down)
      rdma_netdev_info{device,netdev,port}   :9100 textfile, written at boot from `rdma link show`
      node_ethtool_info{bus_info,device,driver,firmware_version,version}   :9101  (firmware_version
          contains a space: "28.42.1000\ (MT_0000000838)" -- escaped)
      node_hwmon_sensor_label{chip,label=Module0,sensor=temp2}, node_hwmon_chip_names{chip,chip_name=mlx5}
  Joining the three names of one NIC: RDMA device <-> netdev via rdma_netdev_info; netdev <-> hwmon chip
  via node_ethtool_info bus_info (chip = "<parent bridge>_<bus_info>" with '.' -> '_', e.g.
  0000:17:00_0_0000:18:00_0). Nothing in the data names the rail or the switch port.
  DEDUP MATTERS: a field is written only when its value changed or when it was last written >= 1 h ago
  (telegraf restart after a reboot re-sends everything). A missing field means "unchanged", a missing line
  means "nothing changed" (an idle or down NIC can be silent for an hour) -- or a missed scrape, which
  removes every line of the node at that timestamp. Gauges (state, speed, carrier) appear when they change.

WHAT IS NORMAL HERE
  * RDMA bytes show ONLY in node_infiniband_port_data_*_bytes_total (PMA counters, port_xmit_data x 4:
    always a multiple of 4; they also count the little kernel traffic). node_network_*_bytes_total and the
    ethtool software counters see kernel traffic only: ARP from the leaf every ~20 min per NIC, and the
    dataset loader's TCP on rail 0 of pre-training nodes (bursts of 1-3 GB/s).
  * Workload: llm-pretrain-70b, 32 nodes, AllReduce rings with adaptive routing (packet spraying), 30-45%
    of 400G per NIC averaged over 15 s, ~60% of the run (pauses of 30-60 min for evals and fixes, with
    single-node jobs on some of its nodes, and relaunches from checkpoint with 2-6 min gaps and 1-2 min
    NCCL warm-up); moe-ft-8x22b, MoE AlltoAll on 16 (or 8) nodes in the fit window, 20-30% load, hot
    experts moving every 5 min; single-node jobs (backend idle); idle nodes. The job mix changes every
    20-60 min. Checkpoints every ~30 min: backend traffic drops to ~5% for 1-2 min, the front-end bursts.
  * Congestion: AllReduce marks ECN only now and then (~7% of 15 s intervals, ~1e-5 of packets);
    AlltoAll marks 0.05-0.15% of received packets (np_ecn_marked 1e3-2e4/s), sends CNPs
    (np_cnp_packets_sent ~0.5-0.7 x marked), the senders handle them (rp_cnp_packets_handled), rx pauses
    1-7/s. CNPs go back to the sender: ring predecessor for AllReduce, every rail-mate for AlltoAll.
  * out_of_sequence: a few per 5 min per NIC on the sprayed AllReduce, proportional to its packets.
  * rx_corrected_bits_phy grows on every link, idle or busy (pre-FEC BER 1e-8..3e-7 per link, a few
    noisier ones since the start). CRC/symbol errors: zero, except a handful of links with one every
    hour or two. Transceiver temperatures 40-55 C, +1-3 C with load, slow drift.
  * req_cqes_flush_errors_total and resp_cqes_flush_errors_total jump by hundreds on every NIC of a job
    when it ends (QPs destroyed with work outstanding); a crashed job adds a few req_cqes_errors.
  * On Ethernet link layer (assumed, CX-7 fw 28.4x): symbol_error_total and link_error_recovery_total
    stay 0; port_errors_received_total counts the same frames as rx_crc_errors_phy; link_downed_total
    counts link downs like link_down_events_phy; rate_bytes_per_second keeps its last value while down.
  * node_network_speed_bytes is -125000 while the carrier is down (sysfs speed -1, netclass default).

HEALTHY PHENOMENA (labels.json healthy_phenomena; must not be flagged)
  node_reboot (one in the fit window, one after: the node is silent 4-8 min, then every counter of
  every NIC restarts near zero at once, node_boot_time_seconds jumps, everything re-sent);
  driver_reload (mlx5 reload on an idle node, one in and one after the fit window: the node's NIC series
  vanish ~1 min; hw_counters, netdev stats, rx_out_of_buffer and carrier_changes restart from zero while
  the PHY (ethtool *_phy, prio3 pause) and PMA port counters keep counting; link_downed and
  link_down_events +1 on every port; on layout A the BlueField front-end goes down too, so the node's
  lines arrive late); missed_scrape (node-wide, 1-3 scrapes); late_delivery (a node's batches for 1-4 min
  arrive together, out of order in the file); data_loading_burst (netdev bytes + rx_out_of_buffer and
  receive_drop bursts on rail 0); job_start / job_end / single_node_job / checkpoint; adaptive_routing_oos;
  alltoall_congestion; workload_change = moe-xl-ep64, which starts only after the fit window on 8 nodes:
  heavier AlltoAll (50-60% load) with ~10x the ECN marks and CNPs and ~10x the rx pauses of anything in
  training, on every NIC of the job -- new but normal; background: fec_corrected_bits, high_fec_corrected,
  sporadic_crc, frontend_nic.

FAULTS (one NIC each, eight per run, on different nodes, in the pre-training or the post-training MoE
job; the switch end is invisible, so peer_ends is empty; windows are shorter in 5 h runs)
  dirty_optic       rx CRC/symbol errors at a stable 3e-7..1.2e-6 of received frames (none while idle),
                    rx_corrected_bits_phy x150-450, port_errors_received and netdev receive_errs/frame
                    along; lost frames -> out_of_sequence on it, packet_seq_err on its rail-mates. Until
                    the end of the run.
  degrading_optic   transceiver temperature +22-30 C over 60 min (past the 75 C crit), pre-FEC BER rising
                    from ~30 min in, CRC/symbol errors from ~60 min growing x10 per 15 min, a late link
                    bounce. Labelled as one fault from the first degree of the trend to the end.
  flapping_link     2-4 bursts of 2-5 down/up (2-16 s down): carrier_changes +2, link_downed and
                    link_down_events_phy +1 per flap; carrier/up 0, operstate=down, speed -125000,
                    state_id 1, physical_state_id 2 when a scrape lands in a down; traffic gaps for the
                    whole job, CRC at link-up, local_ack_timeout on it. Label from the first flap.
  pfc_storm         the NIC keeps pausing the switch on priority 3 for 8-15 min: transmitted_prio3_pause
                    ~15-25k/s, pause duration 55-92% of wall time, pause_storm warning/error events,
                    received_discards_phy; its traffic ~0; its rail-mates receive hundreds of pauses/s
                    for the first 2-4 min (then tens) and time out; the job stalls, NCCL aborts it at the
                    end, it is relaunched without the node.
  ecn_disabled      DCQCN reaction point off on a NIC of the post-training AlltoAll job: rp_cnp_packets_
                    handled flat while its job-mates' climb, rp_cnp_ignored rising instead, 4-8x their
                    rx pauses, its rail-mates receive ~2x the ECN marks. 25-65 min, then fixed.
  retrans_storm     a lossy path behind the NIC: local_ack_timeout, out_of_sequence (x1000 the AR level),
                    packet_sequence_errors, roce_adp_retransmits up, its bytes down to 35-60%, the job
                    slows; rail-mates see NAKs and duplicate requests. 10-25 min.
  half_speed_link   a link bounce, then node_network_speed_bytes and rate_bytes_per_second 25e9 instead of
                    50e9; it saturates during bursts (ECN on it x30-80, CNPs to and pauses on its
                    rail-mates), the whole job slows 20-30%. Ends with a second bounce back to 400G.
  link_down         one NIC oper-down while the node stays up (physical_state_id 2 Polling); the job
                    aborts (retry exceeded) and is relaunched without the node; sometimes repaired
                    (link up) before the end, sometimes not.

LABELS (labels.json, as score.py reads them)
  interval_s = sample_s = 15 (slow_sample_s 60), t0_ns, t_end_ns, train_until_ns = t0 + 2 h,
  fit_first "120m", ports = 384 (fabric NICs; front-end NICs are not counted), lines.
  A fault: device = hostname, ports = [netdev, RDMA device] of the one NIC (a finding on either name
  detects it), start_ns on a 15 s boundary after train_until = the start of the first interval that shows
  a symptom, end_ns = last affected interval, peer_ends [], related = [{device: host, ports: [...]}] for
  the NICs that carry its knock-on effects (job-mates of a stalled/slowed job, rail-mates receiving pauses,
  NAKs or extra ECN), plus kind, signature and the NIC's netdev/rdma/rail/bus_info. healthy_phenomena
  where = "host:port" or "host:*" or "*".
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import os
import random
import sys
import time

# --------------------------------------------------------------------------------------------
# constants

STEP = 15                       # fast scrape period (s): node_exporter :9100
SLOW_EVERY = 4                  # slow scrape (ethtool/netdev/hwmon exporter :9101) every 60 s
TRAIN_S = 2 * 3600              # fault-free first two hours
LINE_B = 400e9 / 8 * STEP       # bytes per fast step at 400G
RAW_BITS = 425e9 * STEP         # PAM4 line bits per step incl. RS-FEC overhead (400GAUI-8)
PKT = 4150.0                    # mean RoCE frame on the wire (4096 MTU payload + headers)
DEDUP_S = 3600                  # telegraf processors.dedup dedup_interval
SPEED_400 = 50_000_000_000      # bytes/s, node_network_speed_bytes / rate_bytes_per_second
SPEED_200 = 25_000_000_000
SPEED_DOWN = -125000            # netclass reports speed -1 Mb/s while the carrier is down
BIG = 1 << 53
T0_EPOCH = 1748937600           # 2025-06-03T08:00:00Z
FAST_URL = "http://localhost:9100/metrics"
SLOW_URL = "http://localhost:9101/metrics"
SCENARIO = "roce-tenant-hosts-only"

IB_SHORT = sorted([
    "duplicate_requests_packets_total", "implied_nak_seq_errors_total", "link_downed_total",
    "link_error_recovery_total", "local_ack_timeout_errors_total", "np_cnp_packets_sent_total",
    "np_ecn_marked_roce_packets_received_total", "out_of_buffer_drops_total",
    "out_of_sequence_packets_received_total", "packet_sequence_errors_total", "physical_state_id",
    "port_data_received_bytes_total", "port_data_transmitted_bytes_total",
    "port_discards_transmitted_total", "port_errors_received_total", "rate_bytes_per_second",
    "req_cqes_errors_total", "req_cqes_flush_errors_total", "resp_cqes_flush_errors_total",
    "roce_adp_retransmits_timeout_total", "roce_adp_retransmits_total",
    "rp_cnp_ignored_packets_received_total", "rp_cnp_packets_handled_total",
    "rx_icrc_encapsulated_errors_total", "state_id", "symbol_error_total",
])
IB_EQ = [f"node_infiniband_{s}=" for s in IB_SHORT]
_I = {s: i for i, s in enumerate(IB_SHORT)}
I_DUP, I_INAK, I_LDOWN, I_LERR = _I["duplicate_requests_packets_total"], _I["implied_nak_seq_errors_total"], \
    _I["link_downed_total"], _I["link_error_recovery_total"]
I_LAT, I_CNPS, I_ECN, I_OOB = _I["local_ack_timeout_errors_total"], _I["np_cnp_packets_sent_total"], \
    _I["np_ecn_marked_roce_packets_received_total"], _I["out_of_buffer_drops_total"]
I_OOS, I_PSE, I_PHYS = _I["out_of_sequence_packets_received_total"], _I["packet_sequence_errors_total"], \
    _I["physical_state_id"]
I_RXB, I_TXB, I_XDISC = _I["port_data_received_bytes_total"], _I["port_data_transmitted_bytes_total"], \
    _I["port_discards_transmitted_total"]
I_RERR, I_RATE, I_REQE = _I["port_errors_received_total"], _I["rate_bytes_per_second"], _I["req_cqes_errors_total"]
I_REQF, I_RESF = _I["req_cqes_flush_errors_total"], _I["resp_cqes_flush_errors_total"]
I_ADPTO, I_ADP = _I["roce_adp_retransmits_timeout_total"], _I["roce_adp_retransmits_total"]
I_RPIGN, I_RPH, I_ICRC = _I["rp_cnp_ignored_packets_received_total"], _I["rp_cnp_packets_handled_total"], \
    _I["rx_icrc_encapsulated_errors_total"]
I_STATE, I_SYM = _I["state_id"], _I["symbol_error_total"]
IB_HW = [I_DUP, I_INAK, I_LAT, I_CNPS, I_ECN, I_OOB, I_OOS, I_PSE, I_REQE, I_REQF, I_RESF, I_ADPTO, I_ADP,
         I_RPIGN, I_RPH, I_ICRC]             # hw_counters/: reset by a driver reload

NC_SHORT = ["carrier", "carrier_changes_total", "carrier_down_changes_total", "carrier_up_changes_total",
            "mtu_bytes", "speed_bytes", "up"]
NC_EQ = [f"node_network_{s}=" for s in NC_SHORT]
C_CAR, C_CHG, C_DCHG, C_UCHG, C_MTU, C_SPD, C_UP = range(7)

SL_NAMES = sorted([
    "node_ethtool_link_down_events_phy", "node_ethtool_received_corrected_bits_phy",
    "node_ethtool_received_crc_errors_phy", "node_ethtool_received_discards_phy",
    "node_ethtool_received_out_of_buffer", "node_ethtool_received_pcs_symbol_err_phy",
    "node_ethtool_received_prio3_pause", "node_ethtool_received_prio3_pause_duration",
    "node_ethtool_received_symbol_err_phy", "node_ethtool_transmitted_pause_storm_error_events",
    "node_ethtool_transmitted_pause_storm_warning_events", "node_ethtool_transmitted_prio3_pause",
    "node_ethtool_transmitted_prio3_pause_duration",
    "node_network_receive_bytes_total", "node_network_receive_drop_total", "node_network_receive_errs_total",
    "node_network_receive_frame_total", "node_network_receive_packets_total",
    "node_network_transmit_bytes_total", "node_network_transmit_drop_total", "node_network_transmit_errs_total",
    "node_network_transmit_packets_total",
])
SL_EQ = [f"{s}=" for s in SL_NAMES]
_S = {s: i for i, s in enumerate(SL_NAMES)}
S_LDE = _S["node_ethtool_link_down_events_phy"]
S_FEC = _S["node_ethtool_received_corrected_bits_phy"]
S_CRC = _S["node_ethtool_received_crc_errors_phy"]
S_DISC = _S["node_ethtool_received_discards_phy"]
S_OOB = _S["node_ethtool_received_out_of_buffer"]
S_PCS = _S["node_ethtool_received_pcs_symbol_err_phy"]
S_RXP = _S["node_ethtool_received_prio3_pause"]
S_RXPD = _S["node_ethtool_received_prio3_pause_duration"]
S_SYM = _S["node_ethtool_received_symbol_err_phy"]
S_STE = _S["node_ethtool_transmitted_pause_storm_error_events"]
S_STW = _S["node_ethtool_transmitted_pause_storm_warning_events"]
S_TXP = _S["node_ethtool_transmitted_prio3_pause"]
S_TXPD = _S["node_ethtool_transmitted_prio3_pause_duration"]
S_NRB = _S["node_network_receive_bytes_total"]
S_NRD = _S["node_network_receive_drop_total"]
S_NRE = _S["node_network_receive_errs_total"]
S_NRF = _S["node_network_receive_frame_total"]
S_NRP = _S["node_network_receive_packets_total"]
S_NTB = _S["node_network_transmit_bytes_total"]
S_NTD = _S["node_network_transmit_drop_total"]
S_NTE = _S["node_network_transmit_errs_total"]
S_NTP = _S["node_network_transmit_packets_total"]
SL_NETDEV = [S_NRB, S_NRD, S_NRE, S_NRF, S_NRP, S_NTB, S_NTD, S_NTE, S_NTP]
SL_SOFT = SL_NETDEV + [S_OOB]                # driver/software counters: reset by a driver reload

FE_NAMES = ["node_network_receive_bytes_total", "node_network_receive_drop_total",
            "node_network_receive_errs_total", "node_network_receive_packets_total",
            "node_network_transmit_bytes_total", "node_network_transmit_drop_total",
            "node_network_transmit_errs_total", "node_network_transmit_packets_total"]
FE_EQ = [f"{s}=" for s in FE_NAMES]
F_RB, F_RD, F_RE, F_RP, F_TB, F_TD, F_TE, F_TP = range(8)

HW_EQ = ["node_hwmon_temp_celsius=", "node_hwmon_temp_crit_celsius="]

# hardware layouts the tenant got (two chassis generations)
LAYOUTS = {
    "A": {  # HGX H100 8-GPU, 8x ConnectX-7 OSFP (400G), BlueField-3 B3140H front-end (mlx5 too)
        "buses": [0x18, 0x40, 0x4f, 0x5e, 0x9a, 0xc0, 0xce, 0xdc],
        "rails": [0, 1, 2, 3, 4, 5, 6, 7],
        "netdev": "enp{bus}s0np0",
        "fe_bus": 0xaa, "fe_netdev": "enp170s0f0np0", "fe_rdma": True,
        "driver": "24.10-1.1.4", "fw": "28.42.1000", "fe_fw": "32.42.1000",
        "oui": ["b8:3f:d2", "a0:88:c2", "94:6d:ae"], "fe_mtu": 9000,
    },
    "B": {  # other OEM: slot-named ports, Broadcom BCM57508 front-end (bnxt_en, no RDMA loaded)
        "buses": [0x1d, 0x3c, 0x4d, 0x5d, 0x9b, 0xbb, 0xcb, 0xdb],
        "rails": [1, 0, 3, 2, 5, 4, 7, 6],
        "netdev": "ens{slot}np0",
        "fe_bus": 0x31, "fe_netdev": "eno12399np0", "fe_rdma": False,
        "driver": "6.8.0-52-generic", "fw": "28.39.2048", "fe_fw": None,
        "oui": ["e8:eb:d3", "c4:70:bd"], "fe_mtu": 1500,
    },
}
CX7_BOARD, CX7_HCA = "MT_0000000838", "MT4129"
BF3_BOARD, BF3_HCA = "MT_0000001093", "MT41692"


def esc(v) -> str:
    """Escape a tag key or value for line protocol."""
    return str(v).replace(",", "\\,").replace("=", "\\=").replace(" ", "\\ ")


def fbig(v) -> str:
    """Format a value >= 2**53 the way telegraf's influx serializer writes a float64
    (strconv 'f', -1: shortest round-trip digits, no exponent)."""
    r = repr(float(v))
    if "e" not in r:
        return r[:-2] if r.endswith(".0") else r
    mant, ex = r.split("e")
    ip, _, fp = mant.partition(".")
    return ip + fp + "0" * (int(ex) - len(fp))


def pois(rng, lam):
    if lam <= 0.0:
        return 0
    if lam < 15.0:
        lim = math.exp(-lam)
        k, p = 0, rng.random()
        while p > lim:
            k += 1
            p *= rng.random()
        return k
    return max(0, int(rng.gauss(lam, math.sqrt(lam)) + 0.5))


def rint(rng, x):
    """Stochastic rounding of a non-negative float to an int."""
    if x <= 0.0:
        return 0
    i = int(x)
    return i + (1 if rng.random() < x - i else 0)


# --------------------------------------------------------------------------------------------
# model objects


class Nic:
    __slots__ = ("node", "rail", "fe", "netdev", "rdma", "bus", "parent", "mac", "chip", "ib", "nc", "sl",
                 "lv_ib", "lt_ib", "lv_nc", "lt_nc", "lv_sl", "lt_sl", "ber", "mtx", "mrx", "cnp_ratio",
                 "mods", "ev", "speed_ev", "speed", "pre_ib", "pre_nc", "pre_sl", "base_mod",
                 "t_mod", "lv_hw", "lt_hw", "pre_hw", "uacc", "nacc", "info_fast", "info_slow",
                 "netinfo_up", "netinfo_down", "sporadic", "loader", "mod_ramp", "pos", "tmp")

    def __init__(self):
        self.mods = {}
        self.ev = {}
        self.speed_ev = {}
        self.uacc = 0.0
        self.nacc = 0
        self.sporadic = 0.0
        self.loader = False
        self.mod_ramp = {}
        self.tmp = None

    def names(self):
        return [self.netdev, self.rdma] if self.rdma else [self.netdev]


class Node:
    __slots__ = ("idx", "name", "layout", "nics", "fe", "off_ns", "boot_time", "uptime", "absent", "boot_k",
                 "miss", "gone", "back_k", "late", "info_cache", "pre_node", "lv_node", "lt_node", "drift",
                 "drift_ph", "all_nics", "new_boot_time")


class Inst:
    __slots__ = ("iid", "job", "name", "kind", "nodes", "k0", "k1", "m", "sig", "fecn", "ar", "oos_rate",
                 "rxp", "txp", "warm", "a2a", "u", "htx", "hrx", "crashed", "hot_s", "pos")

    def clone(self):
        o = Inst()
        for s in Inst.__slots__:
            setattr(o, s, getattr(self, s, None))
        o.nodes = list(self.nodes)
        o.crashed = False
        return o


def add_mod(nic, k, **kw):
    m = nic.mods.get(k)
    if m is None:
        m = nic.mods[k] = {}
    for key, v in kw.items():
        if key in ("mtx", "mrx", "ecn_mul", "bermul", "rxp_mul"):
            m[key] = m.get(key, 1.0) * v
        elif key in ("ib_inc", "sl_inc"):
            d = m.setdefault(key, {})
            for f, x in v.items():
                d[f] = d.get(f, 0) + x
        elif key in ("pcrc", "oos_rate", "rxp", "txp"):
            m[key] = m.get(key, 0.0) + v
        else:
            m[key] = v


# --------------------------------------------------------------------------------------------
# the scenario


class Tenant:
    def __init__(self, seed: int, hours: float):
        self.seed = seed
        self.rng = random.Random(f"{SCENARIO}/{seed}")
        self.dur = int(round(hours * 3600 / STEP)) * STEP
        self.K = self.dur // STEP
        self.T = self.K + 1
        self.train_k = TRAIN_S // STEP
        self.t0 = T0_EPOCH + (seed - 1) * 86400 * 3
        self.faults = []
        self.healthy = []
        self.insts = []
        self.job_ckpt = {}
        self.job_mods = {}
        self.build_topology()

    # ---- helpers
    def ns(self, t_s) -> int:
        return int((self.t0 + t_s) * 10**9)

    def kns(self, k) -> int:
        return self.ns(min(k, self.K) * STEP)

    def h_event(self, kind, where, k0, k1, note, background=False):
        ev = {"kind": kind, "where": list(where), "start_ns": self.kns(max(k0, 0)), "end_ns": self.kns(k1),
              "note": note}
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    def where_nics(self, nics):
        out = []
        for n in nics:
            out.append(f"{self.nodes[n.node].name}:{n.netdev}")
            if n.rdma:
                out.append(f"{self.nodes[n.node].name}:{n.rdma}")
        return out

    def rel_nodes(self, node_ids, exclude=None):
        rel = []
        for ni in sorted(set(node_ids)):
            ports = []
            for n in self.nodes[ni].nics:
                if n is exclude:
                    continue
                ports += n.names()
            if ports:
                rel.append({"device": self.nodes[ni].name, "ports": ports})
        return rel

    def rel_nics(self, nics):
        by = {}
        for n in nics:
            by.setdefault(n.node, []).extend(n.names())
        return [{"device": self.nodes[ni].name, "ports": p} for ni, p in sorted(by.items())]

    # ---- topology
    def build_topology(self):
        rng = self.rng
        racks = sorted(rng.sample(range(2, 70), 6))
        nums = [r * 8 + s for r in racks for s in range(8)]
        for j in rng.sample(range(48), 2):               # RMA replacements from the spare pool
            nums[j] = rng.randint(700, 799)
        b_racks = set(rng.sample(range(6), rng.choice([3, 4])))
        self.nodes = []
        self.nics = []
        for i in range(48):
            nd = Node()
            nd.idx = i
            nd.name = f"gpu-{nums[i]:04d}"
            nd.layout = "B" if (i // 8) in b_racks else "A"
            L = LAYOUTS[nd.layout]
            nd.off_ns = int(max(-8e6, min(8e6, rng.gauss(0, 2.5e6))))   # NTP offset of the node
            nd.uptime = rng.uniform(1.5, 45) * 86400
            nd.boot_time = int(self.t0 - nd.uptime)
            nd.absent = set()
            nd.boot_k = -1
            nd.miss = set()
            nd.gone = set()
            nd.back_k = -1
            nd.late = {}
            nd.info_cache = {}
            nd.drift = rng.uniform(0.2, 0.9)
            nd.drift_ph = rng.uniform(0, 2 * math.pi)
            nd.pre_node = f"prometheus,host={esc(nd.name)},url={esc(FAST_URL)} "
            nd.lv_node = [None]
            nd.lt_node = [-10**12]
            oui = rng.choice(L["oui"])
            buses = L["buses"]
            # RDMA device numbering follows PCI probe order over every mlx5 function on the host
            mlx_buses = sorted(buses + ([L["fe_bus"]] if L["fe_rdma"] else []))
            nd.nics = [None] * 8
            for pos, bus in enumerate(buses):
                nic = Nic()
                nic.node = i
                nic.pos = pos
                nic.rail = L["rails"][pos]
                nic.fe = False
                nic.bus = f"0000:{bus:02x}:00.0"
                nic.parent = f"0000:{bus - 1:02x}:00.0"
                nic.netdev = L["netdev"].format(bus=bus, slot=9 + pos)
                nic.rdma = f"mlx5_{mlx_buses.index(bus)}"
                nic.mac = oui + ":" + ":".join(f"{rng.randrange(256):02x}" for _ in range(3))
                # pre-FEC BER of a healthy 400G PAM4 link: 1e-8 .. 3e-7, a few noisier ones
                nic.ber = 10 ** rng.uniform(-8.0, -6.5)
                nic.mtx = rng.gauss(1.0, 0.025)
                nic.mrx = rng.gauss(1.0, 0.025)
                nic.cnp_ratio = rng.uniform(0.5, 0.72)
                nic.base_mod = rng.uniform(40, 50)
                nic.speed = SPEED_400
                nd.nics[nic.rail] = nic
            fe = Nic()
            fe.node = i
            fe.pos = 8
            fe.rail = -1
            fe.fe = True
            fe.bus = f"0000:{L['fe_bus']:02x}:00.0"
            fe.parent = f"0000:{L['fe_bus'] - 1:02x}:00.0"
            fe.netdev = L["fe_netdev"]
            fe.rdma = f"mlx5_{mlx_buses.index(L['fe_bus'])}" if L["fe_rdma"] else None
            fe.mac = (oui if L["fe_rdma"] else "bc:97:e1") + ":" + ":".join(
                f"{rng.randrange(256):02x}" for _ in range(3))
            fe.ber = 10 ** rng.uniform(-8.5, -7.0)
            fe.mtx = fe.mrx = 1.0
            fe.cnp_ratio = 0.6
            fe.base_mod = rng.uniform(38, 46)
            fe.speed = SPEED_400 if L["fe_rdma"] else 12_500_000_000
            nd.fe = fe
            nd.all_nics = nd.nics + [fe]
            self.nodes.append(nd)
            self.nics.extend(nd.nics)
        for nd in self.nodes:
            for nic in nd.all_nics:
                self.init_nic(nd, nic)

    def init_nic(self, nd, nic):
        rng = self.rng
        L = LAYOUTS[nd.layout]
        host = esc(nd.name)
        up = nd.uptime
        days = up / 86400
        hist = rng.uniform(0.08, 0.3) if not nic.fe else rng.uniform(0.005, 0.03)
        if nic.rdma:
            nic.pre_ib = f"prometheus,device={esc(nic.rdma)},host={host},port=1,url={esc(FAST_URL)} "
        nic.pre_nc = f"prometheus,device={esc(nic.netdev)},host={host},url={esc(FAST_URL)} "
        nic.pre_sl = f"prometheus,device={esc(nic.netdev)},host={host},url={esc(SLOW_URL)} "
        ld = rng.choice([0, 0, 0, 1, 1, 2])
        ib = [0] * len(IB_SHORT)
        ib[I_STATE], ib[I_PHYS], ib[I_RATE] = 4, 5, nic.speed if nic.rdma else 0
        ib[I_RXB] = int(up * hist * 5e10 * rng.uniform(0.95, 1.05)) & ~3
        ib[I_TXB] = int(up * hist * 5e10 * rng.uniform(0.95, 1.05)) & ~3
        ib[I_LDOWN] = ld
        if not nic.fe:
            ib[I_ECN] = int(days * rng.uniform(3e7, 3e8))
            ib[I_CNPS] = int(ib[I_ECN] * nic.cnp_ratio)
            ib[I_RPH] = int(ib[I_CNPS] * rng.uniform(0.9, 1.1))
            ib[I_OOS] = int(up * rng.uniform(2, 30))
            ib[I_PSE] = int(days * rng.uniform(0, 40))
            ib[I_LAT] = int(days * rng.uniform(0, 12)) + ld * rng.randint(3, 30)
            ib[I_REQF] = int(days * rng.uniform(400, 4000))
            ib[I_RESF] = int(ib[I_REQF] * rng.uniform(0.3, 0.6))
            ib[I_REQE] = int(days * rng.uniform(0, 3))
            ib[I_DUP] = int(days * rng.uniform(0, 30))
            ib[I_INAK] = int(days * rng.uniform(0, 5))
            ib[I_ADP] = int(days * rng.uniform(10, 300))
            ib[I_ADPTO] = int(days * rng.uniform(0, 4))
            ib[I_RERR] = rng.choice([0, 0, 0, 1, 2, 5, 14])
            ib[I_XDISC] = rng.randint(0, 60) * ld
        nic.ib = ib
        nc = [0] * 7
        nc[C_CAR], nc[C_UP], nc[C_SPD] = 1, 1, nic.speed
        nc[C_MTU] = 9000 if not nic.fe else L["fe_mtu"]
        nc[C_CHG] = 2 + 2 * ld
        nc[C_DCHG] = 1 + ld
        nc[C_UCHG] = 1 + ld
        nic.nc = nc
        if nic.fe:
            sl = [0] * len(FE_NAMES)
            sl[F_RB] = int(up * hist * nic.speed * rng.uniform(0.7, 1.3))
            sl[F_TB] = int(up * hist * nic.speed * rng.uniform(0.3, 0.6))
            sl[F_RP] = int(sl[F_RB] / 7000)
            sl[F_TP] = int(sl[F_TB] / 3000)
            sl[F_RD] = int(days * rng.uniform(0, 200))
        else:
            sl = [0] * len(SL_NAMES)
            sl[S_LDE] = ld + rng.choice([0, 0, 1])
            sl[S_FEC] = int(nic.ber * 425e9 * up)
            sl[S_CRC] = ib[I_RERR]
            sl[S_SYM] = ib[I_RERR] + rng.choice([0, 0, 1])
            sl[S_PCS] = rng.choice([0, 0, 0, 2])
            sl[S_DISC] = int(days * rng.uniform(0, 50))
            sl[S_OOB] = int(days * rng.uniform(0, 3000)) if nic.rail == 0 else 0
            sl[S_RXP] = int(up * rng.uniform(0.05, 1.5))
            sl[S_RXPD] = int(sl[S_RXP] * rng.uniform(3, 9))
            sl[S_TXP] = int(days * rng.uniform(0, 40))
            sl[S_TXPD] = int(sl[S_TXP] * rng.uniform(3, 9))
            sl[S_NRB] = int(up * rng.uniform(3e3, 4e6))
            sl[S_NRP] = int(sl[S_NRB] / rng.uniform(300, 6000))
            sl[S_NTB] = int(sl[S_NRB] * rng.uniform(0.05, 0.3))
            sl[S_NTP] = int(sl[S_NRP] * rng.uniform(0.3, 0.8))
            sl[S_NRE] = sl[S_NRF] = sl[S_CRC]
            sl[S_NRD] = sl[S_OOB] + int(days * rng.uniform(0, 5))
        nic.sl = sl
        self.fresh_cache(nic)
        nic.t_mod = int(round(nic.base_mod))
        if nic.rdma or nic.fe is False:
            chip = f"{nic.parent.replace('.', '_')}_{nic.bus.replace('.', '_')}"
            nic.chip = chip
            nic.pre_hw = f"prometheus,chip={esc(chip)},host={host},sensor=temp2,url={esc(SLOW_URL)} "
        else:
            nic.chip = None
            nic.pre_hw = None
        # constant info series (value 1), deduped like everything else
        fast, slow = [], []
        if nic.rdma:
            board, hca, fw = (BF3_BOARD, BF3_HCA, L["fe_fw"]) if nic.fe else (CX7_BOARD, CX7_HCA, L["fw"])
            fast.append(f"prometheus,board_id={esc(board)},device={esc(nic.rdma)},firmware_version={esc(fw)},"
                        f"hca_type={esc(hca)},host={host},url={esc(FAST_URL)} node_infiniband_info=1")
            fast.append(f"prometheus,device={esc(nic.rdma)},host={host},netdev={esc(nic.netdev)},port=1,"
                        f"url={esc(FAST_URL)} rdma_netdev_info=1")
        if not nic.fe:
            slow.append(f"prometheus,bus_info={esc(nic.bus)},device={esc(nic.netdev)},driver=mlx5_core,"
                        f"firmware_version={esc(L['fw'] + ' (' + CX7_BOARD + ')')},host={host},"
                        f"url={esc(SLOW_URL)},version={esc(L['driver'])} node_ethtool_info=1")
        if nic.chip:
            slow.append(f"prometheus,chip={esc(nic.chip)},host={host},label=Module0,sensor=temp2,"
                        f"url={esc(SLOW_URL)} node_hwmon_sensor_label=1")
            slow.append(f"prometheus,chip={esc(nic.chip)},chip_name=mlx5,host={host},url={esc(SLOW_URL)} "
                        f"node_hwmon_chip_names=1")
        nic.info_fast = fast
        nic.info_slow = slow
        base = (f"prometheus,address={esc(nic.mac)},adminstate=up,broadcast={esc('ff:ff:ff:ff:ff:ff')},"
                f"device={esc(nic.netdev)},")
        nic.netinfo_up = base + f"duplex=full,host={host},operstate=up,url={esc(FAST_URL)} node_network_info=1"
        nic.netinfo_down = base + f"host={host},operstate=down,url={esc(FAST_URL)} node_network_info=1"

    @staticmethod
    def fresh_cache(nic):
        nic.lv_ib = [None] * len(IB_SHORT)
        nic.lt_ib = [-10**12] * len(IB_SHORT)
        nic.lv_nc = [None] * 7
        nic.lt_nc = [-10**12] * 7
        nic.lv_sl = [None] * len(nic.sl)
        nic.lt_sl = [-10**12] * len(nic.sl)
        nic.lv_hw = [None, None]
        nic.lt_hw = [-10**12, -10**12]

    # ---- workload
    def new_inst(self, job, name, kind, nodes, k0, k1, warm=None):
        rng = self.rng
        I = Inst()
        I.job, I.name, I.kind, I.nodes, I.k0, I.k1 = job, name, kind, sorted(nodes), k0, k1
        I.crashed = False
        I.a2a = kind != "allreduce"
        I.warm = rng.randint(3, 7) if warm is None else warm
        if kind == "allreduce":
            I.m, I.sig = rng.uniform(0.31, 0.42), 0.07
            I.fecn, I.ar, I.oos_rate = rng.uniform(1e-5, 4e-5), True, rng.uniform(1.5e-9, 4e-9)
            I.rxp, I.txp, I.hot_s = 0.25, 0.01, 0.0
        elif kind == "alltoall":
            I.m, I.sig = rng.uniform(0.21, 0.30), 0.14
            I.fecn, I.ar, I.oos_rate = rng.uniform(5e-4, 1.4e-3), False, 0.0
            I.rxp, I.txp, I.hot_s = rng.uniform(25, 60), 0.03, 0.2
        else:  # alltoall_heavy: the post-training MoE job
            I.m, I.sig = rng.uniform(0.50, 0.60), 0.11
            I.fecn, I.ar, I.oos_rate = rng.uniform(3e-3, 6e-3), False, 0.0
            I.rxp, I.txp, I.hot_s = rng.uniform(350, 700), 0.05, 0.14
        I.iid = len(self.insts)
        self.insts.append(I)
        return I

    def build_schedule(self):
        rng = self.rng
        K = self.K
        perm = list(range(48))
        rng.shuffle(perm)
        self.SA = sorted(perm[:32])
        self.SB = sorted(perm[32:])
        # job A: 32-node pre-training (AllReduce, adaptive routing), relaunched now and then
        # runs of 1-2.5 h; between runs the 32 nodes do evals/sweeps (single-node) or sit idle for
        # 15-40 min; relaunches from the last checkpoint inside a run after 2-6 min
        self.single = {n: set() for n in range(48)}
        # one pause of 30-45 min inside the fit window; after it, three runs separated by two pauses of
        # 30-60 min (evals, a data-pipeline fix): the job runs ~60% of the time
        tk = self.train_k
        g1 = rng.randint(120, 170)
        s1 = rng.randint(100, max(101, tk - 80 - g1))
        post_off = max(200, int(0.40 * self.T) - g1)
        gl = [post_off // 2 + rng.randint(-20, 20), post_off - post_off // 2 + rng.randint(-20, 20)]
        runlen = (self.K - tk - sum(gl)) / 3.0
        p1 = tk + int(runlen * rng.uniform(0.85, 1.1))
        p2 = p1 + gl[0] + int(runlen * rng.uniform(0.9, 1.1))
        runs = [(0, s1), (s1 + g1, p1), (p1 + gl[0], p2), (p2 + gl[1], self.T)]
        for j, (a, b) in enumerate(runs):
            cuts = []
            c = a + rng.randint(200, 420)
            while c < b - 120:
                cuts.append(c)
                c += rng.randint(300, 600)
            starts = [a] + [c + rng.randint(8, 24) for c in cuts]
            ends = cuts + [b]
            for i, (x, y) in enumerate(zip(starts, ends)):
                self.new_inst("A", "llm-pretrain-70b", "allreduce", self.SA, x, y,
                              warm=0 if (j == 0 and i == 0) else None)
            if j + 1 < len(runs):
                g0, g1 = b, runs[j + 1][0]
                for n in rng.sample(self.SA, rng.randint(6, 20)):
                    self.single[n].update(range(g0 + 2, g1 - 2))
        self.a_runs = runs
        # checkpoints (every ~30 min) per job
        self.job_ckpt["A"] = self.periodic(rng.randint(20, 120), (112, 136), (4, 9))
        self.job_ckpt["B"] = self.periodic(rng.randint(40, 160), (140, 180), (3, 6))
        self.job_ckpt["C"] = self.periodic(rng.randint(20, 60), (120, 150), (4, 8))
        for j in "ABC":
            self.job_mods[j] = []
        # pool B: job-mix segments of 20-60 min; a heavier MoE job appears only after training
        self.c_start = self.train_k + rng.randint(80, 200)
        self.c_nodes = sorted(rng.sample(self.SB, 8))
        self.spare = [n for n in self.SB if n not in self.c_nodes]
        configs = ["moe16", "idle", "moe8", "single", "moe16"]
        rng.shuffle(configs)
        j = configs.index("idle")
        if j > 1:                      # an idle stretch early in the fit window
            configs[j], configs[1] = configs[1], configs[j]
        seg_cfg = []
        k = 0
        ci = 0
        while k < self.c_start:
            ln = rng.randint(80, 240)
            b = min(k + ln, self.c_start)
            if self.c_start - b < 60:
                b = self.c_start
            cfg = configs[ci % len(configs)] if ci < len(configs) else rng.choice(["moe16", "moe8", "single", "idle"])
            ci += 1
            seg_cfg.append((k, b, cfg))
            k = b
        self.segments = seg_cfg
        for a, b, cfg in seg_cfg:
            if cfg == "moe16":
                self.new_inst("B", "moe-ft-8x22b", "alltoall", self.SB, a + rng.randint(2, 10), b - rng.randint(0, 6))
            elif cfg == "moe8":
                sub = sorted(rng.sample(self.SB, 8))
                self.new_inst("B", "moe-ft-8x22b", "alltoall", sub, a + rng.randint(2, 10), b - rng.randint(0, 6))
                rest = [n for n in self.SB if n not in sub]
                for n in rng.sample(rest, 4):
                    self.single[n].update(range(a + 2, b - 2))
            elif cfg == "single":
                for n in rng.sample(self.SB, 10):
                    self.single[n].update(range(a + 2, b - 2))
        self.new_inst("C", "moe-xl-ep64", "alltoall_heavy", self.c_nodes, self.c_start, self.T)
        # the 4 spare nodes alternate single-node jobs and idle after C starts
        k = self.c_start
        while k < self.T:
            b = min(self.T, k + rng.randint(80, 240))
            if rng.random() < 0.5:
                for n in rng.sample(self.spare, 2):
                    self.single[n].update(range(k + 2, b - 2))
            k = b

    def periodic(self, first, every, length):
        rng = self.rng
        out = []
        k = first
        while k < self.T:
            out.append((k, k + rng.randint(*length)))
            k += rng.randint(*every)
        return out

    def inst_at(self, job, node, k):
        for I in self.insts:
            if I.job == job and I.k0 <= k < I.k1 and node in I.nodes:
                return I
        return None

    def covers(self, job, node, a, b):
        I = self.inst_at(job, node, a)
        return I is not None and I.k1 >= b and I.k0 + I.warm <= a

    def crash(self, I, k_crash, gap, drop_node):
        old_end = I.k1
        I.k1 = k_crash
        I.crashed = True
        restart = k_crash + gap
        J = None
        if restart < old_end - 10:
            J = I.clone()
            J.iid = len(self.insts)
            J.nodes = [n for n in I.nodes if n != drop_node]
            J.k0 = restart
            J.k1 = old_end
            J.warm = self.rng.randint(4, 8)
            self.insts.append(J)
        for O in self.insts:
            if O.job == I.job and O.k0 >= k_crash and drop_node in O.nodes:
                O.nodes = [n for n in O.nodes if n != drop_node]
        return J

    # ---- faults
    def place_faults(self):
        rng = self.rng
        K = self.K
        p0, p1 = self.train_k + 20, K - 20
        sc = min(1.0, (p1 - p0) / 920.0)          # shorter runs get shorter fault windows
        c0 = self.c_start + 16
        kinds = ["degrading_optic", "link_down", "ecn_disabled", "half_speed_link", "pfc_storm", "dirty_optic",
                 "retrans_storm", "flapping_link"]
        disruptive = {"pfc_storm", "link_down", "flapping_link", "retrans_storm", "half_speed_link", "ecn_disabled"}
        dur = {"flapping_link": (50, 100), "pfc_storm": (32, 60), "ecn_disabled": (140, 260),
               "retrans_storm": (40, 100), "half_speed_link": (120, 260), "link_down": (90, 170)}
        extra = {"pfc_storm": 40, "link_down": 10}
        for attempt in range(400):
            plan = []
            used = set()
            ok = True
            for kind in kinds:
                placed = None
                for _ in range(300):
                    if kind in ("pfc_storm", "link_down"):
                        job = "A"
                    elif kind == "ecn_disabled":
                        job = "C"
                    else:
                        job = "A" if rng.random() < 0.45 else "C"
                    lo = c0 if job == "C" else p0
                    if kind == "degrading_optic":
                        a = rng.randint(lo, lo + max(1, int(0.3 * (p1 - lo))))
                        b = K
                    elif kind == "dirty_optic":
                        a = rng.randint(lo, max(lo + 1, p1 - int(300 * sc)))
                        b = K
                    else:
                        ln = int(rng.randint(*dur[kind]) * max(sc, 0.6))
                        if p1 - ln <= lo:
                            continue
                        a = rng.randint(lo, p1 - ln)
                        b = a + ln
                    pool = [n for n in (self.SA if job == "A" else self.c_nodes) if n not in used]
                    node = rng.choice(pool)
                    if kind in disruptive and not self.covers(job, node, a - 4, b + 4 + extra.get(kind, 0)):
                        continue
                    if kind == "dirty_optic" and not self.covers(job, node, a - 4, a + 60):
                        continue
                    if kind == "degrading_optic" and not self.covers(job, node, a + 200, a + 260):
                        continue
                    clash = False
                    if kind in disruptive:
                        for g in plan:
                            if g["job"] == job and g["kind"] in disruptive and \
                                    a - 20 < g["b"] + g["extra"] + 20 and g["a"] - 20 < b + extra.get(kind, 0) + 20:
                                clash = True
                                break
                    if clash:
                        continue
                    placed = {"kind": kind, "job": job, "node": node, "a": a, "b": b, "extra": extra.get(kind, 0)}
                    break
                if placed is None:
                    ok = False
                    break
                plan.append(placed)
                used.add(placed["node"])
            if ok:
                return plan
        raise RuntimeError("could not place faults")

    def apply_faults(self, plan):
        rng = self.rng
        for f in sorted(plan, key=lambda f: f["a"]):
            node = self.nodes[f["node"]]
            rail = rng.randrange(8)
            X = node.nics[rail]
            getattr(self, "f_" + f["kind"])(f, node, X)

    def rail_mates(self, I, X):
        return [self.nodes[n].nics[X.rail] for n in I.nodes if n != X.node]

    def add_down(self, nic, a_s, b_s):
        """Link down from a_s to b_s (seconds): per-step down time, state at the sample, transitions."""
        k = int(a_s // STEP) + (0 if a_s % STEP == 0 else 1)
        k = max(k, 1)
        while (k - 1) * STEP < b_s and k < self.T:
            t = k * STEP
            lo, hi = max(t - STEP, a_s), min(t, b_s)
            e = nic.ev.get(k)
            if e is None:
                e = nic.ev[k] = [0.0, False, 0, 0]
            if hi > lo:
                e[0] = min(STEP, e[0] + hi - lo)
            if a_s <= t < b_s:
                e[1] = True
            if t - STEP < a_s <= t:
                e[2] += 1
            if t - STEP < b_s <= t:
                e[3] += 1
            k += 1

    def label_fault(self, kind, X, k0, k1, signature, related=(), extra=None):
        node = self.nodes[X.node]
        d = {"kind": kind, "device": node.name, "ports": X.names(), "start_ns": self.kns(k0),
             "end_ns": self.kns(min(k1, self.K)), "peer_ends": [], "related": list(related),
             "signature": signature,
             "nic": {"netdev": X.netdev, "rdma": X.rdma, "rail": X.rail, "bus_info": X.bus}}
        if extra:
            d.update(extra)
        self.faults.append(d)

    def f_dirty_optic(self, f, node, X):
        rng = self.rng
        a, b = f["a"], self.K
        pc = rng.uniform(3e-7, 1.2e-6)
        bm = rng.uniform(150, 450)
        for k in range(a + 1, self.T):
            add_mod(X, k, pcrc=pc * math.exp(rng.gauss(0, 0.15)), bermul=bm, naks=True)
        I = self.inst_at(f["job"], X.node, a + 4)
        rel = self.rel_nics(self.rail_mates(I, X)) if I else []
        self.label_fault("dirty_optic", X, a, b,
                         "rx_crc_errors_phy and rx_symbol_err_phy at a stable ~%.0e of received frames (none while "
                         "the link idles), rx_corrected_bits_phy ~%d x its past (pre-FEC BER ~1e-5, also when idle), "
                         "port_errors_received_total and node_network_receive_errs/frame_total count the same frames; "
                         "the lost frames show as out_of_sequence on it and as NAKs (packet_seq_err) on its rail-mates"
                         % (pc, bm), related=rel)

    def f_degrading_optic(self, f, node, X):
        rng = self.rng
        a = f["a"]
        rise = rng.uniform(22, 30)
        for k in range(a + 1, self.T):
            x = (k - a) / 240.0
            X.mod_ramp[k] = rise * min(1.0, x) + (0.8 * (x - 1.0) if x > 1 else 0.0)
            if x > 0.45:
                bm = 10 ** min(3.3, (x - 0.45) * 3.4)
                pc = 0.0
                if x > 1.0:
                    pc = min(4e-5, 1e-9 * 10 ** ((x - 1.0) * 4.0))
                add_mod(X, k, bermul=bm, pcrc=pc, naks=True)
        flap_k = a + 240 + rng.randint(150, 260)
        if flap_k < self.K - 8:
            s = flap_k * STEP + rng.uniform(0, 14)
            self.add_down(X, s, s + rng.uniform(2.5, 7))
        I = self.inst_at(f["job"], X.node, min(a + 250, self.K - 1))
        rel = self.rel_nics(self.rail_mates(I, X)) if I else []
        self.label_fault("degrading_optic", X, a, self.K,
                         "transceiver temperature (node_hwmon_temp_celsius, sensor label Module0 on the NIC's PCI "
                         "chip) climbing ~%.0f C over 60 min past its 75 C crit value; rx_corrected_bits_phy rising "
                         "exponentially from ~30 min in; after ~60 min CRC/symbol errors appear and grow x10 every "
                         "15 min; a late link bounce" % rise, related=rel)

    def f_flapping_link(self, f, node, X):
        rng = self.rng
        a, b = f["a"], f["b"]
        nb = rng.randint(2, 4)
        starts = sorted(rng.uniform(a * STEP, b * STEP - 120) for _ in range(nb))
        starts[0] = a * STEP + rng.uniform(0.5, 14)
        I = self.inst_at(f["job"], X.node, a)
        mates = self.rail_mates(I, X)
        last_up = 0.0
        s = 0.0
        for bs in starts:
            s = max(bs, last_up + 20)
            for _ in range(rng.randint(2, 5)):
                dn = rng.uniform(2, 16)
                self.add_down(X, s, s + dn)
                ku = int((s + dn) // STEP) + 1
                add_mod(X, ku, ib_inc={I_LAT: rng.randint(3, 25)}, linkup_crc=True)
                for m in mates:
                    add_mod(m, ku, ib_inc={I_LAT: rng.randint(0, 3)})
                k0 = int(s // STEP) + 1
                self.job_mods[f["job"]].append((k0, ku + 1, max(0.05, 1 - (dn + 3) / STEP)))
                last_up = s + dn
                s = last_up + rng.uniform(6, 60)
        kb = min(self.K, int(last_up // STEP) + 2)
        self.label_fault("flapping_link", X, a, kb,
                         "bursts of link down/up: node_network_carrier_changes_total +2 per flap (carrier_down/up "
                         "+1 each), link_downed_total and link_down_events_phy +1 per flap, carrier/up 0, state_id 1 "
                         "(DOWN), physical_state_id 2 (Polling) and node_network_speed_bytes -125000 when a scrape "
                         "lands in a down; traffic gaps, CRC errors at link-up, local_ack_timeout_err on it",
                         related=self.rel_nodes(I.nodes, exclude=X))

    def f_pfc_storm(self, f, node, X):
        rng = self.rng
        a, b = f["a"], f["b"]
        I = self.inst_at("A", X.node, a)
        mates = self.rail_mates(I, X)
        spread = rng.randint(6, 14)
        for k in range(a + 1, b + 1):
            add_mod(X, k, mtx=0.004, mrx=0.004,
                    sl_inc={S_TXP: int(rng.uniform(14000, 26000) * STEP),
                            S_TXPD: int(STEP * 1e6 * rng.uniform(0.55, 0.92)),
                            S_STW: pois(rng, 2.2), S_STE: pois(rng, 0.7),
                            S_DISC: int(rng.uniform(500, 60000))})
            for m in mates:
                lvl = rng.uniform(1500, 9000) if k - a <= spread else rng.uniform(20, 400)
                add_mod(m, k, rxp=lvl * STEP / 10.0, ib_inc={I_LAT: pois(rng, 4.0)})
        self.job_mods["A"].append((a + 1, b + 1, 0.03))
        gap = rng.randint(16, 32)
        self.crash(I, b + 1, gap, X.node)
        self.pfc_node = (X.node, b)
        self.label_fault("pfc_storm", X, a, b,
                         "NIC stuck sending PFC pause on priority 3: tx_prio3_pause ~15-25k/s and "
                         "tx_prio3_pause_duration ~60-90%% of wall time, tx_pause_storm_warning_events and "
                         "tx_pause_storm_error_events rising (stall watchdog), rx_discards_phy; its own traffic ~0; "
                         "its rail-mates in the job receive pauses (rx_prio3_pause) for the first minutes, the whole "
                         "job stalls, NCCL aborts it at the end and it is relaunched without this node",
                         related=self.rel_nodes(I.nodes, exclude=X))

    def f_ecn_disabled(self, f, node, X):
        rng = self.rng
        a, b = f["a"], f["b"]
        I = self.inst_at("C", X.node, a)
        mates = self.rail_mates(I, X)
        pm = rng.uniform(4, 8)
        em = rng.uniform(1.6, 2.4)
        for k in range(a + 1, b + 1):
            add_mod(X, k, rp_off=True, mtx=1.12, rxp_mul=pm)
            for m in mates:
                add_mod(m, k, ecn_mul=em)
        self.label_fault("ecn_disabled", X, a, b,
                         "DCQCN reaction point disabled on this NIC (roce_rp/enable/3 = 0): "
                         "rp_cnp_packets_handled_total flat while its job-mates' keep rising, "
                         "rp_cnp_ignored_packets_received_total rising instead; it keeps sending at full rate, so "
                         "the switch pauses it %.0fx more often (rx_prio3_pause) and its rail-mates receive ~%.1fx "
                         "more ECN-marked packets (and send more CNPs); only visible while its job congests"
                         % (pm, em), related=self.rel_nics(mates))

    def f_retrans_storm(self, f, node, X):
        rng = self.rng
        a, b = f["a"], f["b"]
        I = self.inst_at(f["job"], X.node, a)
        mates = self.rail_mates(I, X)
        lvl = rng.uniform(0.6, 1.6)
        for k in range(a + 1, b + 1):
            q = lvl * math.exp(rng.gauss(0, 0.3))
            add_mod(X, k, mtx=rng.uniform(0.35, 0.6), mrx=rng.uniform(0.35, 0.6), oos_rate=3e-4 * q,
                    ib_inc={I_LAT: pois(rng, 120 * q), I_PSE: pois(rng, 200 * q), I_ADP: pois(rng, 700 * q),
                            I_ADPTO: pois(rng, 1.5 * q), I_INAK: pois(rng, 3 * q), I_DUP: pois(rng, 20 * q)})
            for m in mates:
                add_mod(m, k, ib_inc={I_PSE: pois(rng, 15 * q), I_DUP: pois(rng, 25 * q), I_LAT: pois(rng, 0.6 * q)})
        self.job_mods[f["job"]].append((a + 1, b + 1, rng.uniform(0.65, 0.8)))
        self.label_fault("retrans_storm", X, a, b,
                         "a lossy path behind this NIC (drops invisible to the tenant): local_ack_timeout_errors, "
                         "out_of_sequence (x1000 its job-mates' adaptive-routing level), packet_sequence_errors and "
                         "roce_adp_retransmits rising fast while its bytes drop to 35-60%; the job slows to its pace; "
                         "rail-mates see NAK/duplicate-request increments",
                         related=self.rel_nodes(I.nodes, exclude=X))

    def f_half_speed_link(self, f, node, X):
        rng = self.rng
        a, b = f["a"], f["b"]
        I = self.inst_at(f["job"], X.node, a)
        mates = self.rail_mates(I, X)
        s = a * STEP + rng.uniform(0.5, 14)
        dn = rng.uniform(3, 9)
        self.add_down(X, s, s + dn)
        X.speed_ev[int((s + dn) // STEP) + 1] = SPEED_200
        s2 = b * STEP + rng.uniform(0.5, 14)
        if b < self.K:
            self.add_down(X, s2, s2 + rng.uniform(3, 8))
            X.speed_ev[int((s2 + 8) // STEP) + 1] = SPEED_400
        slow = rng.uniform(1.25, 1.4)
        em = rng.uniform(30, 80)
        for k in range(a + 1, b + 1):
            add_mod(X, k, ecn_mul=em)
            for m in mates:
                add_mod(m, k, rxp=rng.uniform(100, 800))
        self.job_mods[f["job"]].append((a + 1, b + 1, 1.0 / slow))
        self.label_fault("half_speed_link", X, a, b,
                         "a link bounce, then node_network_speed_bytes 25000000000 and rate_bytes_per_second "
                         "25000000000 (was 50000000000) until it is reseated; it saturates at 200G during "
                         "communication bursts (ECN marks on it x%.0f, pauses on its rail-mates), the whole job "
                         "slows ~%.0f%%" % (em, 100 * (1 - 1 / slow)),
                         related=self.rel_nodes(I.nodes, exclude=X))

    def f_link_down(self, f, node, X):
        rng = self.rng
        a, b = f["a"], f["b"]
        if rng.random() < 0.35:          # not repaired before the end of the run
            b = self.K
        I = self.inst_at("A", X.node, a)
        s = a * STEP + rng.uniform(0.5, 14)
        end_s = b * STEP + rng.uniform(0.5, 14) if b < self.K else self.dur + 3600
        self.add_down(X, s, end_s)
        kd = int(s // STEP) + 1
        add_mod(X, kd, ib_inc={I_XDISC: rng.randint(40, 900), I_LAT: rng.randint(2, 12)})
        kc = kd + rng.randint(2, 4)
        for m in self.rail_mates(I, X):
            add_mod(m, kc, ib_inc={I_REQE: rng.randint(1, 6), I_LAT: rng.randint(5, 30)})
        gap = rng.randint(16, 36)
        related = self.rel_nodes(I.nodes, exclude=X)
        self.crash(I, kc, gap, X.node)
        self.label_fault("link_down", X, a, min(b, self.K),
                         "one NIC oper-down while the host stays up: node_network_carrier 0, node_network_up 0, "
                         "node_network_info operstate=down, node_network_speed_bytes -125000, state_id 1, "
                         "physical_state_id 2 (Polling), carrier_changes +1 and link_downed +1 at the drop; no traffic "
                         "on it; NCCL aborts the job (retry exceeded) and relaunches it without this node"
                         + ("; repaired (link up) at the end of the window" if b < self.K else ""),
                         related=related)

    # ---- finalize the workload
    def finalize(self):
        rng = self.rng
        T = self.T
        self.inst_of = [[-1] * T for _ in range(48)]
        for I in self.insts:
            if I.k1 <= I.k0:
                continue
            n = I.k1 - I.k0
            u = [0.0] * n
            w = 0.0
            for i in range(n):
                w = 0.95 * w + rng.gauss(0, 0.016)
                u[i] = max(0.0, I.m * (1.0 + w) * (1.0 + I.sig * rng.gauss(0, 1)))
            for i in range(min(I.warm, n)):
                u[i] = I.m * rng.uniform(0.02, 0.25)
            for a, b in self.job_ckpt[I.job]:
                for k in range(max(a, I.k0), min(b, I.k1)):
                    u[k - I.k0] *= rng.uniform(0.02, 0.07)
            for a, b, fct in self.job_mods[I.job]:
                for k in range(max(a, I.k0), min(b, I.k1)):
                    u[k - I.k0] *= fct
            I.u = u
            I.pos = {nd: i for i, nd in enumerate(I.nodes)}
            I.htx, I.hrx = {}, {}
            if I.a2a:
                nb = n // 20 + 1
                for nd in I.nodes:
                    I.htx[nd] = [math.exp(rng.gauss(0, I.hot_s)) for _ in range(nb)]
                    I.hrx[nd] = [math.exp(rng.gauss(0, I.hot_s)) for _ in range(nb)]
            for nd in I.nodes:
                row = self.inst_of[nd]
                for k in range(I.k0, I.k1):
                    row[k] = I.iid
            # teardown: QPs destroyed with work outstanding -> flush errors on every NIC of the job
            if I.k1 < T:
                for nd in I.nodes:
                    for nic in self.nodes[nd].nics:
                        inc = {I_REQF: rng.randint(80, 700), I_RESF: rng.randint(30, 300)}
                        if I.crashed:
                            inc[I_REQE] = rng.randint(0, 3)
                        add_mod(nic, I.k1, ib_inc=inc)

    # ---- healthy phenomena that need the final workload
    def idle_window(self, cands, lo, hi, ln, avoid=()):
        rng = self.rng
        for _ in range(400):
            n = rng.choice(cands)
            if n in avoid:
                continue
            a = rng.randint(lo, max(lo, hi - ln))
            if all(self.inst_of[n][k] < 0 for k in range(max(0, a - 6), min(self.T, a + ln + 6))):
                return n, a
        return None, None

    def place_healthy(self):
        rng = self.rng
        K, T = self.K, self.T
        fault_nodes = {self.nodes_by_name[f["device"]] for f in self.faults}
        used = set()
        # node reboots
        reboots = []
        n, a = self.idle_window(self.SB, 30, self.train_k - 60, 40, avoid=fault_nodes)
        if n is not None:
            reboots.append((n, a, rng.randint(16, 30)))
            used.add(n)
        pn, pb = getattr(self, "pfc_node", (None, None))
        if pn is not None and pb + 100 < K - 60:
            reboots.append((pn, pb + rng.randint(40, 100), rng.randint(16, 30)))
        else:
            n, a = self.idle_window(self.spare, self.train_k + 20, K - 60, 40, avoid=fault_nodes | used)
            if n is not None:
                reboots.append((n, a, rng.randint(16, 30)))
        for n, a, ln in reboots:
            nd = self.nodes[n]
            nd.absent.update(range(a + 1, a + 1 + ln))
            nd.boot_k = a + 1 + ln
            nd.new_boot_time = int(self.t0 + (a + ln) * STEP - rng.uniform(20, 90))
            used.add(n)
            self.h_event("node_reboot", [f"{nd.name}:*"], a, a + ln + 8,
                         "node rebooted: no lines for %d min, then every counter of every NIC restarts near zero at "
                         "once, node_boot_time_seconds jumps, telegraf restarts so every field is re-sent" % (ln // 4))
        self.reboots = reboots
        # NIC driver reloads (mlx5_core/mlx5_ib): the node stays up
        reloads = []
        n, a = self.idle_window(self.SB, 30, self.train_k - 40, 12, avoid=fault_nodes | used)
        if n is not None:
            reloads.append((n, a))
            used.add(n)
        n, a = self.idle_window(self.spare, self.train_k + 40, K - 40, 12, avoid=fault_nodes | used)
        if n is None:
            n, a = self.idle_window(self.SB, self.train_k + 40, K - 40, 12, avoid=fault_nodes | used)
        if n is not None:
            reloads.append((n, a))
        for n, a in reloads:
            nd = self.nodes[n]
            tr = a * STEP + rng.uniform(0, 14)
            gone = rng.uniform(35, 80)
            kb = int((tr + gone) // STEP) + 1
            nd.gone.update(range(a + 1, kb))
            nd.back_k = kb
            if nd.layout == "A":     # the BlueField front-end is mlx5 too: telegraf cannot ship meanwhile
                for k in range(a + 1, kb + 1):
                    nd.late[k] = (kb * STEP + rng.uniform(5, 25)) - k * STEP
            self.h_event("driver_reload", [f"{nd.name}:*"], a, kb + 4,
                         "mlx5 driver reload: NIC series absent for ~1 min; hw_counters, netdev stats, "
                         "rx_out_of_buffer and carrier_changes restart from zero; PHY (ethtool *_phy, prio pause) "
                         "and IB port counters keep counting; link_downed/link_down_events +1 on every port")
        self.reloads = reloads
        # missed scrapes (node-wide, 1-3 scrapes)
        for nd in self.nodes:
            for _ in range(pois(rng, self.dur / 3600 * 0.45)):
                a = rng.randint(2, K - 4)
                ln = rng.randint(1, 3)
                ks = set(range(a, a + ln)) - nd.absent
                nd.miss.update(ks)
                self.h_event("missed_scrape", [f"{nd.name}:*"], a - 1, a + ln,
                             "telegraf scrape timeout: no lines from the node for %d scrape(s); counters kept "
                             "counting" % ln)
        # late delivery (telegraf output buffer flushed late)
        for _ in range(rng.randint(4, 8)):
            nd = self.nodes[rng.randrange(48)]
            a = rng.randint(10, K - 20)
            ln = rng.randint(4, 14)
            arr = (a + ln) * STEP + rng.uniform(8, 40)
            for k in range(a, a + ln):
                nd.late[k] = arr - k * STEP
            self.h_event("late_delivery", [f"{nd.name}:*"], a, a + ln + 3,
                         "telegraf output to InfluxDB timed out; the buffered lines arrive together up to a few "
                         "minutes late (out of time order in the file)")
        # data loading: kernel TCP over rails 0 and 4 on pre-training nodes, bursts with rx_out_of_buffer
        for nd in self.nodes:
            nd.nics[0].loader = True         # the route to the dataset-cache subnet uses rail 0
        bursts = []
        k = rng.randint(20, 80)
        while k < K - 10:
            cands = [n for n in self.SA if self.inst_of[n][k] >= 0]
            if cands:
                for n in rng.sample(cands, min(len(cands), rng.randint(2, 4))):
                    ln = rng.randint(4, 9)
                    nic = self.nodes[n].nics[0]
                    for kk in range(k, min(T, k + ln)):
                        add_mod(nic, kk, load=rng.uniform(1.0e9, 3.0e9), oob=(rng.random() < 0.45))
                    bursts.append((n, k, k + ln))
            k += rng.randint(60, 110)
        for n, a, b in bursts:
            nd = self.nodes[n]
            self.h_event("data_loading_burst", self.where_nics([nd.nics[0]]), a, b + 4,
                         "dataset shard refill over TCP on the backend NICs' IP interfaces: node_network_receive_"
                         "bytes_total jumps, rx_out_of_buffer (and netdev receive_drop) bursts when the kernel rings "
                         "overflow")
        # sporadic single CRC errors on a few healthy links (background)
        spor = rng.sample([n for n in self.nics if self.nodes[n.node].idx not in fault_nodes], 6)
        for nic in spor:
            nic.sporadic = rng.uniform(0.3, 1.5) / 240.0
        self.h_event("sporadic_crc", self.where_nics(spor), 0, K,
                     "a CRC error every hour or two on otherwise healthy links, since the start", background=True)
        noisy = [n for n in self.nics if n.ber > 1.5e-7]
        if noisy:
            self.h_event("high_fec_corrected", self.where_nics(noisy), 0, K,
                         "links with a pre-FEC BER of 1.5e-7..3e-7: rx_corrected_bits_phy steadily higher than "
                         "their siblings, zero uncorrectable since the start", background=True)
        self.h_event("frontend_nic", self.where_nics([nd.fe for nd in self.nodes]), 0, K,
                     "front-end NIC (not on the GPU fabric): k8s, object store and checkpoint traffic; not counted "
                     "in `ports`", background=True)
        self.h_event("fec_corrected_bits", ["*"], 0, K,
                     "rx_corrected_bits_phy grows on every 400G PAM4 link, idle or busy (pre-FEC BER 1e-8..3e-7)",
                     background=True)
        # workload phenomena
        for I in self.insts:
            if I.k1 <= I.k0:
                continue
            where = [f"{self.nodes[n].name}:*" for n in I.nodes]
            if I.k0 > 0:
                self.h_event("job_start", where, I.k0, I.k0 + I.warm + 4,
                             f"{I.name} ({I.kind}) launched on {len(I.nodes)} nodes: NCCL warm-up, then traffic")
            if I.k1 < T:
                self.h_event("job_end", where, I.k1 - 1, I.k1 + 4,
                             f"{I.name} ends{' (crashed)' if I.crashed else ''}: traffic stops, "
                             "req/resp_cqes_flush_errors jump on every NIC of the job as QPs are torn down")
            if I.kind == "allreduce":
                self.h_event("adaptive_routing_oos", where, I.k0, I.k1,
                             "packet-sprayed AllReduce: a few out_of_sequence per second per NIC, proportional to "
                             "traffic; modest ECN/CNP", background=False)
            elif I.kind == "alltoall":
                self.h_event("alltoall_congestion", where, I.k0, I.k1,
                             "MoE AlltoAll: ECN-marked packets, CNPs sent and handled, rx pauses on every NIC, "
                             "hot experts move every few minutes")
            else:
                self.h_event("workload_change", where, I.k0, I.k1,
                             "heavier MoE AlltoAll (expert parallel 64) first seen after training: ~10x the ECN "
                             "marks and CNPs of anything in the fit window, 10x rx pauses, on every NIC of the job")
            for a, b in self.job_ckpt[I.job]:
                if I.k0 <= a < I.k1:
                    self.h_event("checkpoint", where, a, b + 2,
                                 f"{I.name} checkpoint: fabric traffic drops to ~5% for 1-2 min while the front-end "
                                 "NIC bursts")
        for nd in self.nodes:
            ks = sorted(self.single[nd.idx])
            if ks:
                a = ks[0]
                prev = a
                for k in ks[1:] + [None]:
                    if k is None or k != prev + 1:
                        self.h_event("single_node_job", [f"{nd.name}:*"], a, prev + 1,
                                     "single-node job: NVLink only, backend NICs idle, front-end busier")
                        if k is not None:
                            a = k
                    if k is not None:
                        prev = k

    # ---- simulation and output
    def reset_counters(self, nd, k, full):
        rng = self.rng
        for nic in nd.all_nics:
            ib, sl, nc = nic.ib, nic.sl, nic.nc
            if full:
                for i in range(len(ib)):
                    ib[i] = 0
                ib[I_STATE], ib[I_PHYS], ib[I_RATE] = 4, 5, (nic.speed if nic.rdma else 0)
                for i in range(len(sl)):
                    sl[i] = 0
                self.fresh_cache(nic)
            else:
                for i in IB_HW:
                    ib[i] = 0
                ib[I_LDOWN] += 1
                if nic.fe:
                    for i in range(len(sl)):
                        sl[i] = 0
                else:
                    for i in SL_SOFT:
                        sl[i] = 0
                    sl[S_LDE] += 1
            nc[C_CHG], nc[C_DCHG], nc[C_UCHG] = 2, 1, 1
        if full:
            nd.boot_time = nd.new_boot_time
            nd.info_cache = {}
            nd.lv_node = [None]
            nd.lt_node = [-10**12]

    def run(self, outdir):
        rng = self.rng
        T, K = self.T, self.K
        insts = self.insts
        nodes = self.nodes
        path = os.path.join(outdir, "port_counters.lp")
        fh = open(path, "w", buffering=1 << 22, newline="\n")
        heap = []
        seq = 0
        n_lines = 0
        gauss = rng.gauss
        rnd = rng.random
        exp = math.exp
        t0ns = self.t0 * 10**9
        for k in range(T):
            t = k * STEP
            slow = (k % SLOW_EVERY == 0)
            s_cnp, s_tx, s_crc, s_cnt = {}, {}, {}, {}
            todo = []
            # ---------------- pass 1: traffic, congestion, errors
            for nd in nodes:
                ni = nd.idx
                if k in nd.absent:
                    continue
                if k == nd.boot_k:
                    self.reset_counters(nd, k, True)
                if k == nd.back_k:
                    self.reset_counters(nd, k, False)
                gone = k in nd.gone
                iid = self.inst_of[ni][k]
                I = insts[iid] if iid >= 0 else None
                single = k in self.single[ni]
                if I is not None:
                    u = I.u[k - I.k0]
                    if I.a2a:
                        blk = (k - I.k0) // 20
                        htx_n = I.htx[ni][blk]
                        hrx_n = I.hrx[ni][blk]
                    else:
                        htx_n = hrx_n = 1.0
                    ck = any(a <= k < b for a, b in self.job_ckpt[I.job])
                else:
                    u = 0.0
                    htx_n = hrx_n = 1.0
                    ck = False
                for nic in nd.nics:
                    ib, sl, nc = nic.ib, nic.sl, nic.nc
                    e = nic.ev.get(k)
                    if e is not None:
                        upf = 1.0 - e[0] / STEP
                        sdown, n_dn, n_up = e[1], e[2], e[3]
                    else:
                        upf, sdown, n_dn, n_up = 1.0, False, 0, 0
                    sp = nic.speed_ev.get(k)
                    if sp is not None:
                        nic.speed = sp
                        ib[I_RATE] = sp
                    if gone:
                        upf = 0.0
                    m = nic.mods.get(k)
                    if I is not None and upf > 0.0:
                        utx = u * htx_n * nic.mtx * (1.0 + 0.03 * gauss(0, 1))
                        urx = u * hrx_n * nic.mrx * (1.0 + 0.03 * gauss(0, 1))
                    else:
                        utx = urx = 0.0
                    ecn_mul = 1.0
                    bermul = 1.0
                    pcrc = 0.0
                    extra_oos = 0.0
                    rxp_extra = 0.0
                    txp_extra = 0.0
                    rxp_mul = 1.0
                    rp_off = False
                    naks = False
                    if m is not None:
                        utx *= m.get("mtx", 1.0)
                        urx *= m.get("mrx", 1.0)
                        ecn_mul = m.get("ecn_mul", 1.0)
                        bermul = m.get("bermul", 1.0)
                        pcrc = m.get("pcrc", 0.0)
                        extra_oos = m.get("oos_rate", 0.0)
                        rxp_extra = m.get("rxp", 0.0)
                        txp_extra = m.get("txp", 0.0)
                        rxp_mul = m.get("rxp_mul", 1.0)
                        rp_off = m.get("rp_off", False)
                        naks = m.get("naks", False)
                    cap = 0.97 if nic.speed == SPEED_400 else 0.485
                    if utx > cap:
                        utx = cap
                    if urx > cap:
                        urx = cap
                    utx *= upf
                    urx *= upf
                    txb = int(utx * LINE_B) & ~3
                    rxb = int(urx * LINE_B) & ~3
                    # kernel (non-RDMA) traffic: ARP from the leaf, the dataset loader's TCP on rail 0
                    krb = ktb = krp = ktp = 0
                    if upf > 0.0:
                        na = pois(rng, 0.012)
                        if na:
                            krb, krp, ktb, ktp = 64 * na, na, 64 * na, na
                        burst = m is not None and "load" in m
                        if nic.loader and I is not None and I.job == "A" and ((k + ni * 7) % 40 < 9 or burst):
                            lb = rng.uniform(2e7, 6e7) * STEP      # prefetch, ~9 of every 40 scrapes
                            if burst:
                                lb += m["load"] * STEP * rng.uniform(0.7, 1.1)
                            lb = int(lb * upf)
                            krb += lb
                            krp += lb // 8950 + 1
                            ktb += lb // 45
                            ktp += lb // 17900 + 1
                        if m is not None and m.get("oob"):
                            ob = int(exp(gauss(8.0, 1.2)))
                            sl[S_OOB] += ob
                            sl[S_NRD] += ob
                    ib[I_RXB] += rxb + krb
                    ib[I_TXB] += txb + ktb
                    sl[S_NRB] += krb
                    sl[S_NRP] += krp
                    sl[S_NTB] += ktb
                    sl[S_NTP] += ktp
                    nic.uacc += max(utx, urx)
                    nic.nacc += 1
                    pk = rxb / PKT
                    # congestion: ECN marks at the NP, CNPs back to the senders, PFC from the switch
                    cnp = 0
                    if I is not None and pk > 0:
                        fe = I.fecn * ecn_mul
                        if I.a2a:
                            fe *= hrx_n * hrx_n
                        elif ecn_mul == 1.0 and rnd() > 0.07:
                            fe = 0.0     # rail-aligned rings congest only now and then (stragglers, ckpt)
                        if fe > 0.12:
                            fe = 0.12    # RED/ECN marking saturates well below every packet
                        ecn = rint(rng, pk * fe * exp(gauss(0, 0.25)))
                        cnp = rint(rng, ecn * nic.cnp_ratio)
                        ib[I_ECN] += ecn
                        ib[I_CNPS] += cnp
                        if I.ar:
                            ib[I_OOS] += pois(rng, pk * I.oos_rate)
                        lam = I.rxp * (hrx_n * htx_n if I.a2a else 1.0) * rxp_mul * (u / I.m if I.m else 0)
                        rp = pois(rng, lam)
                        if rp:
                            sl[S_RXP] += rp
                            sl[S_RXPD] += int(rp * rng.uniform(2.5, 12))
                        if rnd() < I.txp:
                            tp = rng.randint(1, 40)
                            sl[S_TXP] += tp
                            sl[S_TXPD] += tp * rng.randint(2, 9)
                    if extra_oos > 0 and pk > 0:
                        ib[I_OOS] += pois(rng, pk * extra_oos)
                    if rxp_extra > 0:
                        rp = pois(rng, rxp_extra)
                        sl[S_RXP] += rp
                        sl[S_RXPD] += int(rp * rng.uniform(3, 14))
                    if txp_extra > 0:
                        tp = pois(rng, txp_extra)
                        sl[S_TXP] += tp
                        sl[S_TXPD] += tp * 8
                    # PHY: FEC corrects bits on every link, idle or not; CRC only on frames
                    if upf > 0:
                        sl[S_FEC] += int(nic.ber * bermul * RAW_BITS * upf * exp(gauss(0, 0.12)))
                    crc = pois(rng, nic.sporadic * upf) if nic.sporadic else 0   # background, per time
                    if pcrc > 0:
                        crc += pois(rng, (pk + krp) * pcrc)                       # corruption, per frame
                    if bermul > 60 and upf > 0:
                        sl[S_PCS] += pois(rng, (bermul - 60) * 0.004)
                    if n_up and (m is None or m.get("linkup_crc", True)):
                        crc += rng.randint(0, 6) * n_up
                    if crc:
                        sl[S_CRC] += crc
                        sl[S_SYM] += crc + pois(rng, 0.05 * crc)
                        sl[S_NRE] += crc
                        sl[S_NRF] += crc
                        ib[I_RERR] += crc
                        if naks and I is not None:
                            if not I.ar:
                                ib[I_OOS] += crc
                            key = (iid, nic.rail)
                            s_crc[key] = s_crc.get(key, 0) + crc
                    if m is not None:
                        inc = m.get("ib_inc")
                        if inc:
                            for f_, v in inc.items():
                                ib[f_] += v
                        inc = m.get("sl_inc")
                        if inc:
                            for f_, v in inc.items():
                                sl[f_] += v
                    # link state
                    if n_dn:
                        ib[I_LDOWN] += n_dn
                        sl[S_LDE] += n_dn
                        nc[C_CHG] += n_dn
                        nc[C_DCHG] += n_dn
                    if n_up:
                        nc[C_CHG] += n_up
                        nc[C_UCHG] += n_up
                    if sdown:
                        nc[C_CAR] = 0
                        nc[C_UP] = 0
                        nc[C_SPD] = SPEED_DOWN
                        ib[I_STATE] = 1
                        ib[I_PHYS] = 2
                    else:
                        nc[C_CAR] = 1
                        nc[C_UP] = 1
                        nc[C_SPD] = nic.speed
                        ib[I_STATE] = 4
                        ib[I_PHYS] = 5
                    if I is not None and upf > 0.0:
                        key = (iid, nic.rail)
                        w = txb * (2.0 if rp_off else 1.0)
                        if I.a2a:
                            s_cnp[key] = s_cnp.get(key, 0) + cnp
                        elif cnp:
                            s_cnp[(iid, nic.rail, ni)] = cnp
                        s_tx[key] = s_tx.get(key, 0.0) + w
                        s_cnt[key] = s_cnt.get(key, 0) + 1
                        todo.append((nic, key, w, rp_off, I, ni))
                # front-end NIC: k8s / object store (TCP) and checkpoint (RDMA to storage on BlueField)
                fe = nd.fe
                fu = rng.uniform(0.004, 0.015) + (rng.uniform(0.02, 0.05) if single else 0.0)
                fr = 0.0
                if ck:
                    fr = rng.uniform(0.12, 0.25)
                if gone and nd.layout == "A":
                    fu = fr = 0.0
                rb = int((fu + fr) * fe.speed * STEP) & ~3
                tb = int((fu * 0.4 + fr) * fe.speed * STEP) & ~3
                if fe.rdma:
                    fe.ib[I_RXB] += rb
                    fe.ib[I_TXB] += tb
                    tcp_r, tcp_t = int(fu * fe.speed * STEP), int(fu * 0.4 * fe.speed * STEP)
                else:
                    tcp_r, tcp_t = rb, tb
                fe.sl[F_RB] += tcp_r
                fe.sl[F_TB] += tcp_t
                fe.sl[F_RP] += tcp_r // 7000
                fe.sl[F_TP] += tcp_t // 2500
                fe.sl[F_RD] += pois(rng, 0.02)
                fe.uacc += fu + fr
                fe.nacc += 1
            # ---------------- pass 2: CNPs handled by the senders, NAKs from a lossy receiver
            for nic, key, w, rp_off, I, ni in todo:
                tot = s_tx[key]
                if I.a2a:
                    # all-to-all: every receiver sends CNPs to every sender of its rail
                    h = rint(rng, s_cnp.get(key, 0) * w / tot) if tot > 0 else 0
                else:
                    # rings (two per rail, opposite directions): CNPs go back to the ring predecessor
                    pos = I.pos[ni]
                    nn = len(I.nodes)
                    h = 0
                    c1 = s_cnp.get((key[0], key[1], I.nodes[(pos + 1) % nn]))
                    c2 = s_cnp.get((key[0], key[1], I.nodes[pos - 1]))
                    if c1:
                        h += rint(rng, 0.7 * c1)
                    if c2:
                        h += rint(rng, 0.3 * c2)
                if h:
                    if rp_off:
                        nic.ib[I_RPIGN] += h
                    else:
                        nic.ib[I_RPH] += h
                c = s_crc.get(key)
                if c:
                    nic.ib[I_PSE] += pois(rng, c / max(1, s_cnt[key] - 1))
            # ---------------- emission
            for nd in nodes:
                if k in nd.absent or k in nd.miss:
                    continue
                out = []
                gone = k in nd.gone
                base_ns = t0ns + t * 10**9 + nd.off_ns
                ts = " %d\n" % (base_ns + int(rng.uniform(12e6, 75e6)))
                cache = nd.info_cache
                # node-level
                v = nd.boot_time
                if v != nd.lv_node[0] or t - nd.lt_node[0] >= DEDUP_S:
                    nd.lv_node[0] = v
                    nd.lt_node[0] = t
                    out.append(nd.pre_node + "node_boot_time_seconds=" + str(v) + ts)
                for nic in nd.all_nics:
                    if gone and (nic.rdma or not nic.fe):
                        continue
                    if nic.rdma:
                        lv, lt, vals = nic.lv_ib, nic.lt_ib, nic.ib
                        parts = []
                        for i in range(len(vals)):
                            v = vals[i]
                            if v != lv[i] or t - lt[i] >= DEDUP_S:
                                lv[i] = v
                                lt[i] = t
                                parts.append(IB_EQ[i] + (str(v) if v < BIG else fbig(v)))
                        if parts:
                            out.append(nic.pre_ib + ",".join(parts) + ts)
                    lv, lt, vals = nic.lv_nc, nic.lt_nc, nic.nc
                    parts = []
                    for i in range(7):
                        v = vals[i]
                        if v != lv[i] or t - lt[i] >= DEDUP_S:
                            lv[i] = v
                            lt[i] = t
                            parts.append(NC_EQ[i] + str(v))
                    if parts:
                        out.append(nic.pre_nc + ",".join(parts) + ts)
                    infos = nic.info_fast + [nic.netinfo_up if nic.nc[C_UP] else nic.netinfo_down]
                    for key in infos:
                        if t - cache.get(key, -10**12) >= DEDUP_S:
                            cache[key] = t
                            out.append(key + ts)
                if slow:
                    tss = " %d\n" % (base_ns + int(rng.uniform(220e6, 900e6)))
                    amb = nd.drift * math.sin(2 * math.pi * t / 5400.0 + nd.drift_ph)
                    for nic in nd.all_nics:
                        if gone and (nic.rdma or not nic.fe):
                            nic.uacc = 0.0
                            nic.nacc = 0
                            continue
                        eq = FE_EQ if nic.fe else SL_EQ
                        lv, lt, vals = nic.lv_sl, nic.lt_sl, nic.sl
                        parts = []
                        for i in range(len(vals)):
                            v = vals[i]
                            if v != lv[i] or t - lt[i] >= DEDUP_S:
                                lv[i] = v
                                lt[i] = t
                                parts.append(eq[i] + (str(v) if v < BIG else fbig(v)))
                        if parts:
                            out.append(nic.pre_sl + ",".join(parts) + tss)
                        if nic.chip:
                            ua = nic.uacc / nic.nacc if nic.nacc else 0.0
                            nic.uacc = 0.0
                            nic.nacc = 0
                            nic.tmp = ua if nic.tmp is None else 0.6 * nic.tmp + 0.4 * ua   # thermal mass
                            tm = nic.base_mod + 5.0 * nic.tmp + 0.6 * amb + gauss(0, 0.08) + nic.mod_ramp.get(k, 0.0)
                            # readings are whole degrees; the module firmware averages, so they do not dither
                            if abs(tm - nic.t_mod) > 0.95:
                                nic.t_mod = int(round(tm))
                            lvh, lth = nic.lv_hw, nic.lt_hw
                            parts = []
                            for i, v in enumerate((nic.t_mod, 75)):
                                if v != lvh[i] or t - lth[i] >= DEDUP_S:
                                    lvh[i] = v
                                    lth[i] = t
                                    parts.append(HW_EQ[i] + str(v))
                            if parts:
                                out.append(nic.pre_hw + ",".join(parts) + tss)
                        for key in nic.info_slow:
                            if t - cache.get(key, -10**12) >= DEDUP_S:
                                cache[key] = t
                                out.append(key + tss)
                if out:
                    delay = nd.late.get(k)
                    if delay is None:
                        delay = rng.uniform(1.5, 11.0)
                    arr = t0ns + int((t + delay) * 1e9)
                    seq += 1
                    heapq.heappush(heap, (arr, seq, "".join(out)))
                    n_lines += len(out)
            now = t0ns + t * 10**9
            while heap and heap[0][0] <= now:
                fh.write(heapq.heappop(heap)[2])
        while heap:
            fh.write(heapq.heappop(heap)[2])
        fh.close()
        return n_lines

    # ---- labels
    def labels(self, n_lines):
        inv = []
        for nd in self.nodes:
            for nic in nd.nics:
                inv.append({"host": nd.name, "netdev": nic.netdev, "rdma": nic.rdma, "rail": nic.rail,
                            "bus_info": nic.bus, "hwmon_chip": nic.chip, "layout": nd.layout})
        fe = [{"host": nd.name, "netdev": nd.fe.netdev, "rdma": nd.fe.rdma} for nd in self.nodes]
        return {
            "scenario": SCENARIO, "scale": "48-nodes", "seed": self.seed, "fabric": "roce",
            "interval_s": STEP, "sample_s": STEP, "slow_sample_s": STEP * SLOW_EVERY,
            "t0_ns": self.ns(0), "t_end_ns": self.ns(self.dur), "train_until_ns": self.ns(TRAIN_S),
            "fit_first": f"{TRAIN_S // 60}m", "ports": len(self.nics), "lines": n_lines,
            "port_naming": "device = the node's hostname (telegraf `host` tag); a NIC is named by its netdev "
                           "(`device` tag of node_network_*/node_ethtool_* series) or its RDMA device (`device` "
                           "tag of node_infiniband_* series); a fault's `ports` lists both names of the one NIC",
            "faults": sorted(self.faults, key=lambda f: f["start_ns"]),
            "healthy_phenomena": sorted(self.healthy, key=lambda h: h["start_ns"]),
            "nics": inv, "frontend_nics": fe,
        }

    def generate(self, outdir):
        os.makedirs(outdir, exist_ok=True)
        self.nodes_by_name = {nd.name: nd.idx for nd in self.nodes}
        self.build_schedule()
        plan = self.place_faults()
        self.apply_faults(plan)
        self.finalize()
        self.place_healthy()
        n_lines = self.run(outdir)
        lab = self.labels(n_lines)
        for f in lab["faults"]:
            assert f["start_ns"] >= lab["train_until_ns"], f
            assert (f["start_ns"] - lab["t0_ns"]) % (STEP * 10**9) == 0, f
        with open(os.path.join(outdir, "labels.json"), "w") as fh:
            json.dump(lab, fh, indent=1)
        return lab


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate the roce-tenant-hosts-only scenario (see the data sheet).")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=None,
                    help="run length (default 6 h for odd seeds, 5 h for even seeds; 5 to 12)")
    args = ap.parse_args(argv)
    hours = args.hours if args.hours is not None else (6.0 if args.seed % 2 else 5.0)
    if not 5.0 <= hours <= 12.0:
        ap.error("--hours must be between 5 and 12 (2 h of training plus room for eight faults)")
    t = time.time()
    sim = Tenant(args.seed, hours)
    lab = sim.generate(args.outdir)
    size = os.path.getsize(os.path.join(args.outdir, "port_counters.lp"))
    print(f"{SCENARIO} seed {args.seed}: {lab['ports']} ports, {hours:g} h at {STEP} s, {lab['lines']:,} lines, "
          f"{size / 1e6:.1f} MB, {len(lab['faults'])} faults, {len(lab['healthy_phenomena'])} healthy phenomena, "
          f"fit-first {lab['fit_first']} ({time.time() - t:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
