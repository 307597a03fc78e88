#!/usr/bin/env python3
"""DATA SHEET -- ai2 converged GPU/storage fabric (hall B), as the NOC runs it.

usage: roce_converged_queues.py OUTDIR --seed N [--hours H] [--scale pod|full]
       default 6 h for odd seeds, 5 h for even seeds; the default scale is one pod (208 ports)
writes OUTDIR/port_counters.lp (the Telegraf output file, line protocol, ns timestamps) and OUTDIR/labels.json
(the labelled-bank form read by score.py). Standard library only, deterministic per seed.

THE FABRIC
----------
One converged two-tier RoCEv2 fabric: the GPU backend, the checkpoint/restore storage traffic and the
front-end (data loading, k8s, ssh) share the same leaves and spines. Not rail-optimised: each pod is two
rack pairs, a GPU node's eight backend NICs land on the two leaves of its rack pair (rails 0-3 on the odd
leaf, 4-7 on the even one), so collective traffic between the rack pairs crosses the spines.

  spines  ai2-spn01, ai2-spn02        Arista 7804R4 (EOS 4.33), Jericho3-class deep-buffer VOQ, two 36x800G
                                      OSFP line cards in slots 3 and 4. Ports Ethernet<slot>/<port>/1. Every
                                      4 consecutive ports on a card sit behind one retimer group (6 in full).
  leaves  ai2-lf01 .. ai2-lf04        Juniper QFX5240-64OD (Tomahawk 5, 64x800G OSFP, ~165 MB shared buffer,
                                      Junos OS Evolved 24.2). Shallow buffer: PFC and ECN happen here first.
  GPU     gpu001 .. gpu008            8x H200, 8x ConnectX-7 400G (400G-DR4 OSFP) backend NICs each
                                      (enp26s0np0 enp60s0np0 enp77s0np0 enp94s0np0 enp156s0np0 enp188s0np0
                                      enp204s0np0 enp220s0np0 = rails 0..7), one BlueField-3 front-end port
  storage stor01, stor02              NFS over TCP, 2x400G each (stor01 on lf01+lf02, stor02 on lf03+lf04)
  svc     svc01 .. svc04              ingest / monitoring boxes, 400G, nearly idle

Leaf port map (every leaf):
  et-0/0/0 .. et-0/0/7    800G 2xDR4 OSFP channelized into two 400G ports et-0/0/N:0 and et-0/0/N:1 (the two
                          halves share ONE optic and cage: Xcvr lanes 0-3 serve :0, lanes 4-7 serve :1).
                          On leaf j (0-based in the pod; pair p = j//2, half q = j%2): et-0/0/c:s -> node
                          4p + 2(c%2) + s, rail 4q + c//2. So the two halves of a cage are two different nodes
                          on the same rail, and a half is idle while its sibling is busy whenever one node idles.
  et-0/0/8:0, :1          front-end ports of gpu(2j+1), gpu(2j+2) (800G->2x400G DAC, no DOM)
  et-0/0/9:0              storage node link; et-0/0/9:1 svc node (same DAC breakout: busy next to idle)
  et-0/0/32 .. 39         800G 2xFR4 uplinks. On leaf l (0-based): et-0/0/32 -> spn01 Ethernet3/(2l+1)/1,
                          33 -> spn02 Ethernet3/(2l+1)/1, 34 -> spn01 Ethernet4/(2l+1)/1, 35 -> spn02
                          Ethernet4/(2l+1)/1, 36/37 -> spn01/spn02 Ethernet3/(2l+2)/1, 38/39 -> Ethernet4/(2l+2)/1
  Leaves: 20x400G down (8 Tb/s) over 8x800G up (6.4 Tb/s), 1.25:1. Spines: 16 ports each.
  Ports in the labels: 144 switch ports + 64 backend NIC ports = 208. (--scale full: the three pods of the
  hall, 12 leaves, 4 spines (2 ports per leaf-spine pair), 24 GPU nodes, 624 ports; ~3x the lines.)

QoS (same intent on both vendors, both configs pushed by our templates):
  DSCP 26 -> TC3, lossless, PFC on priority 3 only, ECN (DCQCN) marking from a low threshold;
  DSCP 48 (CNP) -> TC6 strict; DSCP 10 (TCP storage / NFS) -> TC1, LOSSY, tail drop; everything else TC0.
  EOS names the queues UC3 / UC1; Junos names them after the forwarding classes: roce / storage.
  PFC watchdog on the leaves (200 ms detect, drop). MTU 9216 on every fabric port; RoCE path MTU 4096
  (~4.2 KB frames), storage TCP MTU 9000.

HOW IT IS COLLECTED
-------------------
Switches: Telegraf 1.34 on tlm01, one [[inputs.gnmi]] per vendor, dial-in, switch-stamped notifications,
written to InfluxDB (bucket fabric) and to this file by [[outputs.file]]. Fields come out path-derived
(hyphens -> underscores, relative to the subscription path, so nested leaves keep a '/': input_power/instant),
list keys become tags (interface-id -> interface_id), `source` is the host part of the dialled address.
The relevant part of /etc/telegraf/telegraf.conf on tlm01 (the leaf block differs only where marked):

  [agent]
    omit_hostname = true
    flush_interval = "10s"
    metric_buffer_limit = 500000
    buffer_strategy = "disk"                # unacked batches are replayed after a restart
    buffer_directory = "/var/lib/telegraf/buf"

  [[outputs.influxdb_v2]]
    urls = ["http://influx01:8086"]
    organization = "noc"
    bucket = "fabric"
    token = "$INFLUX_TOKEN"

  [[outputs.file]]
    files = ["/srv/tlm/port_counters.lp"]
    data_format = "influx"
    influx_sort_fields = true               # fields alphabetical (tags are always sorted)
    influx_uint_support = false             # counter64 leaves are written as int: "i"

  [[inputs.gnmi]]                           # the 7804R4 spines
    addresses = ["ai2-spn01:6030", "ai2-spn02:6030"]
    username = "telegraf"
    password = "$GNMI_PW"
    encoding = "proto"
    redial = "10s"
    tagexclude = ["path"]
    fieldinclude = ["in_octets", "in_pkts", "in_discards", "in_errors", "in_fcs_errors", "out_octets",
                    "out_pkts", "out_discards", "out_errors", "carrier_transitions", "in_crc_errors",
                    "in_fragment_frames", "in_jabber_frames", "in_mac_pause_frames", "in_maxsize_exceeded",
                    "out_mac_pause_frames", "oper_status", "admin_status", "transmit_pkts", "transmit_octets",
                    "dropped_pkts", "ecn_marked_pkts", "ecn_ce_marked_pkts", "in_frames", "out_frames",
                    "rx_pfc_prio3", "tx_pfc_prio3", "instant", "alarm_status", "pre_fec_ber/instant",
                    "fec_corrected_bits", "fec_uncorrectable_blocks", "input_power/instant",
                    "output_power/instant", "laser_bias_current/instant"]
    [inputs.gnmi.tagpass]
      name = ["Ethernet*", "et-*", "FPC0:PIC0:PORT*", "UC3", "UC1", "roce", "storage"]

    [[inputs.gnmi.subscription]]
      name = "ifcounters"
      origin = "openconfig"
      path = "/interfaces/interface/state/counters"
      subscription_mode = "sample"
      sample_interval = "10s"
    [[inputs.gnmi.subscription]]
      name = "ifeth"
      origin = "openconfig"
      path = "/interfaces/interface/ethernet/state/counters"
      subscription_mode = "sample"
      sample_interval = "10s"
      suppress_redundant = true
      heartbeat_interval = "300s"
    [[inputs.gnmi.subscription]]          # leaves: see below
      name = "ifstate"
      origin = "openconfig"
      path = "/interfaces/interface/state/oper-status"
      subscription_mode = "on_change"
    [[inputs.gnmi.subscription]]
      name = "ifstate"
      origin = "openconfig"
      path = "/interfaces/interface/state/admin-status"
      subscription_mode = "on_change"
    [[inputs.gnmi.subscription]]          # leaves: queue[name=roce]
      name = "qos_queue"
      origin = "openconfig"
      path = "/qos/interfaces/interface/output/queues/queue[name=UC3]/state"
      subscription_mode = "sample"
      sample_interval = "10s"
      suppress_redundant = true
      heartbeat_interval = "60s"
    [[inputs.gnmi.subscription]]          # leaves: queue[name=storage]
      name = "qos_queue"
      origin = "openconfig"
      path = "/qos/interfaces/interface/output/queues/queue[name=UC1]/state"
      subscription_mode = "sample"
      sample_interval = "10s"
      suppress_redundant = true
      heartbeat_interval = "60s"
    [[inputs.gnmi.subscription]]          # EOS augment, a list keyed by priority -> tag "priority"
      name = "eos_pfc"
      origin = "openconfig"
      path = "/interfaces/interface/ethernet/pfc/priorities/priority[priority=3]/state/counters"
      subscription_mode = "sample"
      sample_interval = "10s"
      suppress_redundant = true
      heartbeat_interval = "60s"
    [[inputs.gnmi.subscription]]
      name = "xcvr_temp"
      origin = "openconfig"
      path = "/components/component/state/temperature"
      subscription_mode = "sample"
      sample_interval = "60s"
    [[inputs.gnmi.subscription]]
      name = "xcvr"
      origin = "openconfig"
      path = "/components/component/transceiver/state"
      subscription_mode = "sample"
      sample_interval = "60s"
    [[inputs.gnmi.subscription]]
      name = "xcvr_channel"
      origin = "openconfig"
      path = "/components/component/transceiver/physical-channels/channel/state"
      subscription_mode = "sample"
      sample_interval = "60s"

  [[inputs.gnmi]]                           # the QFX5240 leaves: the same block, except
    addresses = ["ai2-lf01:32767", "ai2-lf02:32767", "ai2-lf03:32767", "ai2-lf04:32767"]
    # ifstate: Junos does not give us on_change for these leaves, so a single subscription
    #   name = "ifstate", path = "/interfaces/interface/state", sample 10s, suppress_redundant = true,
    #   heartbeat_interval = "300s" (fieldinclude leaves admin_status and oper_status: one line carries
    #   both, or only the one that changed; the counters under state/ are dropped by fieldinclude)
    # qos_queue: queue[name=roce] and queue[name=storage]
    # PFC: name = "junos_pfc", Junos EVO's PFC statistics on the interface, one flat leaf per priority
    #   (rx-pfc-prio0..7, tx-pfc-prio0..7; fieldinclude keeps prio 3), sample 10s, suppress_redundant,
    #   heartbeat_interval = "60s"
    # xcvr: the QFX fills neither pre-fec-ber nor the FEC counters in transceiver/state, so after
    #   fieldinclude no xcvr line comes from the leaves at all

Hosts: Telegraf 1.34 on every GPU node, [agent] interval = "30s", round_interval = true (so precision 1 s:
timestamps exactly on :00 and :30, host clocks are PTP-disciplined), [[inputs.ethtool]] interface_include =
the eight backend NICs, down_interfaces = "expose", fieldinclude as below, same InfluxDB bucket, same file.
The front-end NIC, the storage and the svc boxes are not collected.

LINE FORMAT (exact; fields alphabetical, tags sorted)
-----------
ifcounters,name=<if>,source=<switch> carrier_transitions=,in_discards=,in_errors=,in_fcs_errors=,in_octets=,in_pkts=,
    out_discards=,out_errors=,out_octets=,out_pkts= (all ...i) <ts>
ifeth,name=<if>,source=<switch> in_crc_errors=,in_fragment_frames=,in_jabber_frames=,in_mac_pause_frames=,
    in_maxsize_exceeded=,out_mac_pause_frames= <ts>            (only the changed fields, all of them every 5 min)
ifstate,name=<if>,source=<spine> oper_status="UP"|"DOWN" <event ts>   /  admin_status="UP"|"DOWN" (own line)
ifstate,name=<if>,source=<leaf> admin_status="UP",oper_status="DOWN" <ts>   (changed field(s), both every 5 min)
qos_queue,interface_id=<if>,name=UC3|UC1,source=<spine> dropped_pkts=,ecn_marked_pkts=,transmit_octets=,transmit_pkts= <ts>
qos_queue,interface_id=<if>,name=roce|storage,source=<leaf> dropped_pkts=,ecn_ce_marked_pkts=,transmit_octets=,transmit_pkts= <ts>
eos_pfc,name=<if>,priority=3,source=<spine> in_frames=,out_frames= <ts>        (in = pauses received, out = sent)
junos_pfc,name=<if>,source=<leaf> rx_pfc_prio3=,tx_pfc_prio3= <ts>
xcvr_temp,name=<component>,source=<switch> alarm_status=false,instant=47.3 <ts>             (degC, alarm at 75)
xcvr,name=<component>,source=<spine> fec_corrected_bits=i,fec_uncorrectable_blocks=i,pre_fec_ber/instant=0.0000000534 <ts>
xcvr_channel,index=<lane>,name=<component>,source=<switch> input_power/instant=-0.82,laser_bias_current/instant=58.1,
    output_power/instant=1.2 <ts>                                (dBm, dBm, mA; -40 dBm = no light)
ethtool,driver=mlx5_core,host=gpu003,interface=enp60s0np0 interface_up=,link=,link_down_events_phy=,rx_bytes_phy=,
    rx_crc_errors_phy=,rx_discards_phy=,rx_packets_phy=,rx_prio3_bytes=,rx_prio3_pause=,rx_prio3_pause_duration=,
    speed=,tx_bytes_phy=,tx_packets_phy=,tx_pause_storm_error_events=,tx_pause_storm_warning_events=,
    tx_prio3_bytes=,tx_prio3_pause= <ts>                          (speed in Mb/s, -1 with the link down)
Components: spine cages are Ethernet<slot>/<port> (lanes index 1..8, all serving Ethernet<slot>/<port>/1);
leaf cages are FPC0:PIC0:PORT<N>:Xcvr0 (lanes index 0..7; on breakout cages 0-3 -> et-0/0/N:0, 4-7 -> :1).
Counters are cumulative since the box (or the NIC driver) started, never cleared by us. out_discards on a
port is the sum of its queue drops; on the 7804R4 a VOQ drop is charged to the egress port and TC it was
queued for (qos_queue UC1 dropped_pkts, ifcounters out_discards). Giants (frames over the port MTU) are
in_maxsize_exceeded and also in in_errors. in_fcs_errors and ifeth in_crc_errors count the same thing.

Timestamps: each switch stamps its own notifications. EOS in ns (ports ~40 us apart inside one sample),
Junos in whole ms (one stamp per sample for all ports). The 10 s sample phase is wherever the subscription
happened to start and changes when the stream is re-established; switch clocks are off by up to ~0.4 s
(NTP on the management network). EOS oper/admin-status lines carry the time of the event itself. DOM comes
every 60 s on its own phase. Host lines are exactly on the 30 s grid.

WHAT IS NORMAL HERE
-------------------
* Training traffic: llm-pretrain on gpu001-003 + gpu005-007 (all-reduce, ~40-55 % of 400G per NIC) and a
  fine-tune job on gpu004 + gpu008 that starts and stops (its ports idle in between, next to busy siblings).
* ECN marks on the roce/UC3 queues all the time under load; a few PFC frames here and there.
* MoE all-to-all phases (3-8 min, several per run, two of them in the fit window): ECN on most uplinks and
  spine ports at once, PFC from the leaves on many host ports and uplinks at once (10^3-10^4 frames/s),
  the NICs receive pauses. Not a fault.
* llm-pretrain eval every ~hour (traffic drops to a few % for 3-5 min) and a checkpoint every 30-40 min:
  1-2 min of TCP incast into the storage ports, which saturate; tail drops in the lossy storage queue on
  et-0/0/9:0 (10^4/s) and VOQ drops on the spines (UC1, 10-300/s) are what a checkpoint looks like.
  The fine-tune jobs checkpoint too (smaller).
* Data loading over the front-end ports in bursts every few minutes.
* Sporadic single FEC-uncorrectable codewords on healthy 800G links: one FCS/in_errors (and on the spines
  one fec_uncorrectable_blocks) a few times a day per link.
* Planned work: an uplink shut on a leaf for optic cleaning (fit window); a maintenance window where 2-3
  uplinks of one leaf are admin-down for ~25 min; a spine drained (BGP maintenance), reloaded for a hotfix
  (no lines for ~8 min, its counters restart from zero, the leaves see their uplinks to it go down/up) and
  undrained; after a lane failure we shut the port until the NIC optic is swapped.
* Collection: the gNMI stream of one leaf hung for 2-3 min once (fit window); tlm01's Telegraf was restarted
  once (~1 min without switch lines, then the last two samples are written again from the disk buffer,
  initial sync: full lines and every spine port's oper/admin status, new sample phase); about 0.15 % of
  switch samples never arrive; suppress_redundant subscriptions send nothing while nothing changes (a
  missing qos_queue/pfc/ifeth/ifstate line means "unchanged", not zero).

LABELLED FAULTS (about ten per seed, placed by the seed after the fit window; the first ~32 % is fault-free)
---------------
xcvr_overheating      one 800G transceiver (leaf uplink or spine port) heats over 60-90 min (+25-35 C,
                      laser bias up, tx power sagging, far-end rx power and, on EOS, pre-FEC BER creeping up),
                      then FCS/in_errors on both ends for 20-30 min; we shut the port and swap the optic.
                      Slow: the window starts at the onset of heating (onset="slow"), so a finding while it
                      heats is an early warning and is credited; heating_until_ns / errors_from_ns say when.
qos_mismap            a config push put the storage CoS template on one GPU-facing leaf port: RoCE toward the
                      NIC is queued in the lossy storage queue (its transmit counters jump, roce goes quiet),
                      drops there, no PFC sent or honoured on the port, no ECN; llm-pretrain slows to ~55 %
                      (its other ports are `related`). Rolled back at the end.
mtu_mismatch          a spine port left at MTU 4200 by a template: the leaf's 9000-byte storage frames are
                      dropped on receive (ifeth in_maxsize_exceeded, in_errors); RoCE passes; fixed later.
optic_lane_failure    one tx lane of a NIC's 400G-DR4 dies: rx power of that lane on the leaf's breakout module
                      falls toward LOS, FCS errors climb on the leaf port, three retrains; the sibling half on
                      the same module stays clean. Then we shut the port (planned admin-down, not a fault).
breakout_shared_optic both halves of one 800G 2xDR4 breakout degrade together (the shared module): FCS on both
                      leaf sub-ports, rx_crc_errors_phy on both NICs, tx power down on all lanes; swapped.
down_after_maintenance after the maintenance window one uplink is admin-up but stays oper-down: leaf rx LOS on
                      all lanes, the spine end is admin-up and receives light; ECMP on the rest (`related`).
pfc_storm             a NIC stuck sending priority-3 pause (tens of thousands/s): NIC tx_prio3_pause and pause
                      storm events, leaf rx_pfc_prio3, transmit toward the host ~0, the leaf pauses its uplinks
                      for the first minute, then the PFC watchdog drops in the roce queue; llm-pretrain stalls;
                      the host is reset at the end (its 8 links bounce, NIC counters restart).
flapping_link         bursts of down/up on a leaf uplink or a GPU link (carrier_transitions, oper-status, FCS at
                      link-up, traffic gaps, ECMP shifts).
linecard_port_group   one retimer group (4 consecutive ports; 6 at --scale full) of a spine line card: FCS/in_errors on all of them
                      at once, pre-FEC BER up ~60x with normal optical power; far ends see a little; the card is
                      reset at the end (ports down ~4 min). Labelled on the spine with the list of its ports.
rising_fcs            dirty connector on an uplink: two lanes 2-3 dB low, FCS as a fraction of frames growing
                      ~x2e4 until the end of the run (invisible for the first hour).

LABELS (labels.json, the form /work/shared/scenarios/score.py reads)
------
scenario, scale, seed, fabric="roce", interval_s=30 (the scoring interval), sample_s=10, t0_ns, t_end_ns,
train_until_ns, fit_first ("115m" for 6 h), ports (switch + NIC ports), lines, faults[], healthy_phenomena[].
A fault: kind, device, ports (interface names as in the `name`/`interface_id` tags), start_ns, end_ns (start on
a 30 s boundary after train_until_ns), peer_ends [{device, port}] (the far end of the same cable; NIC ends are
{host, interface}), related [{device, ports}] (knock-on: the slowed job's ports, ECMP siblings, the storming
leaf), signature, plus informative extras (onset, optic, lane, ...). A device is the `source` tag of a switch
or the `host` tag of a GPU node; a port is the `name` (`interface_id` in qos_queue) or ethtool `interface`.
healthy_phenomena: kind, where ["device:port" | "device:*" | "*"], start_ns, end_ns, note, background.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time

SCENARIO = "roce-converged-queues"
T0_S = 1750190400                 # 2025-06-17T20:00:00Z, first sample
NS = 1_000_000_000
STEP = 10                         # gNMI sample interval (s)
INTERVAL_S = 30                   # scoring interval (s), as the bank's score.py expects
B400 = 400e9 / 8 * STEP           # bytes in one 10 s sample at 400G
NIC_IF = ["enp26s0np0", "enp60s0np0", "enp77s0np0", "enp94s0np0",
          "enp156s0np0", "enp188s0np0", "enp204s0np0", "enp220s0np0"]
FE_IF = "enp41s0f0np0"
HB_STEPS = 6                      # heartbeat_interval 60 s (qos_queue, *_pfc)
HB_SLOW = 30                      # heartbeat_interval 300 s (ifeth, Junos ifstate)

IFC_F = ("carrier_transitions", "in_discards", "in_errors", "in_fcs_errors", "in_octets", "in_pkts",
         "out_discards", "out_errors", "out_octets", "out_pkts")
ETH_F = ("in_crc_errors", "in_fragment_frames", "in_jabber_frames", "in_mac_pause_frames",
         "in_maxsize_exceeded", "out_mac_pause_frames")
Q_F = {"eos": ("dropped_pkts", "ecn_marked_pkts", "transmit_octets", "transmit_pkts"),
       "junos": ("dropped_pkts", "ecn_ce_marked_pkts", "transmit_octets", "transmit_pkts")}
Q_NAME = {"eos": ("UC3", "UC1"), "junos": ("roce", "storage")}
PFC_F = {"eos": ("in_frames", "out_frames"), "junos": ("rx_pfc_prio3", "tx_pfc_prio3")}
NIC_F = ("interface_up", "link", "link_down_events_phy", "rx_bytes_phy", "rx_crc_errors_phy",
         "rx_discards_phy", "rx_packets_phy", "rx_prio3_bytes", "rx_prio3_pause", "rx_prio3_pause_duration",
         "speed", "tx_bytes_phy", "tx_packets_phy", "tx_pause_storm_error_events",
         "tx_pause_storm_warning_events", "tx_prio3_bytes", "tx_prio3_pause")
# indices into the cumulative lists
I_CT, I_IND, I_INE, I_FCS, I_INO, I_INP, I_OUTD, I_OUTE, I_OUTO, I_OUTP = range(10)
E_CRC, E_FRAG, E_JAB, E_INP, E_MAX, E_OUTP = range(6)
(N_UP, N_LINK, N_LDE, N_RXB, N_CRC, N_RXD, N_RXP, N_RX3B, N_RX3P, N_RX3D, N_SPEED, N_TXB, N_TXP, N_STE,
 N_STW, N_TX3B, N_TX3P) = range(17)


# ---------------------------------------------------------------------------------------------------
# small helpers

def poisson(rng, lam):
    if lam <= 0:
        return 0
    if lam < 30:
        lim = math.exp(-lam)
        k, p = 0, rng.random()
        while p > lim:
            k += 1
            p *= rng.random()
        return k
    return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))


def clamp(x, lo=0.0, hi=1.0):
    return lo if x < lo else hi if x > hi else x


def gofloat(v):
    """A float as Telegraf's influx serializer writes it (strconv 'f', shortest round-trip)."""
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    r = repr(float(v))
    if "e" in r or "E" in r:
        mant, exp = r.lower().split("e")
        exp = int(exp)
        neg = mant.startswith("-")
        mant = mant.lstrip("-")
        ip, _, fp = mant.partition(".")
        digits = ip + fp
        point = len(ip) + exp
        if point <= 0:
            s = "0." + "0" * (-point) + digits
        elif point >= len(digits):
            s = digits + "0" * (point - len(digits))
        else:
            s = digits[:point] + "." + digits[point:]
        s = s.rstrip("0").rstrip(".") if "." in s else s
        return ("-" if neg else "") + s
    return r


def fields_str(names, vals, idx=None):
    if idx is None:
        idx = range(len(names))
    return ",".join(f"{names[i]}={vals[i]}i" for i in idx)


# ---------------------------------------------------------------------------------------------------
# topology

class Dev:
    def __init__(self, name, kind, vendor):
        self.name, self.kind, self.vendor = name, kind, vendor
        self.ports = []
        self.optics = []
        self.skew = 0.0
        self.phase = 0.0
        self.dom_off = 0
        self.dom_phase = 0.0


class Port:
    __slots__ = ("i", "dev", "name", "kind", "cap", "leaf", "spine", "uk", "node", "rail", "cage", "sub",
                 "peer", "peer_dev", "peer_port", "link", "optic", "lanes", "lc", "idx", "nic")

    def __init__(self, i, dev, name, kind, cap):
        self.i, self.dev, self.name, self.kind, self.cap = i, dev, name, kind, cap
        self.leaf = self.spine = self.uk = self.node = self.rail = self.cage = self.sub = -1
        self.peer = None
        self.peer_dev = self.peer_port = ""
        self.link = None
        self.optic = None
        self.lanes = ()
        self.lc = self.idx = -1
        self.nic = None


class Link:
    def __init__(self, a, b):
        self.a, self.b = a, b
        self.down = []          # (start_s, end_s, cause)
        self.steps = {}         # step -> (up_fraction, transitions)


class Optic:
    def __init__(self, dev, comp, vendor, lane_ports, lane0):
        self.dev, self.comp, self.vendor = dev, comp, vendor
        self.lane_ports = lane_ports    # port per lane (8 lanes)
        self.lane0 = lane0              # first channel index (Junos 0, EOS 1)
        self.fec_cb = 0
        self.fec_unc = 0


class Fabric:
    pass


def build(scale, rng):
    fb = Fabric()
    G = 1 if scale == "pod" else 3
    S = 2 if scale == "pod" else 4
    L = 4 * G
    fb.G, fb.S, fb.L = G, S, L
    fb.leaves = [Dev(f"ai2-lf{l + 1:02d}", "leaf", "junos") for l in range(L)]
    fb.spines = [Dev(f"ai2-spn{s + 1:02d}", "spine", "eos") for s in range(S)]
    fb.nodes = [f"gpu{n + 1:03d}" for n in range(8 * G)]
    fb.hosts = [Dev(n, "gpu", "host") for n in fb.nodes]
    ports = []

    def add(dev, name, kind, cap):
        p = Port(len(ports), dev, name, kind, cap)
        ports.append(p)
        dev.ports.append(p)
        return p

    m = 8 // S                          # uplinks from each leaf to each spine
    fb.host_port = {}                   # (node, rail) -> leaf port
    fb.stor_ports = [[] for _ in range(G)]
    fb.fe_port = {}
    fb.uplinks = [[None] * 8 for _ in range(L)]
    sp_by = {}
    # spine ports first (so a line card's ports are consecutive)
    for s in range(S):
        for lc in (3, 4):
            for idx in range(1, L * (m // 2) + 1):
                p = add(fb.spines[s], f"Ethernet{lc}/{idx}/1", "sp", 2 * B400)
                p.spine, p.lc, p.idx = s, lc, idx
                sp_by[(s, lc, idx)] = p
    for l in range(L):
        g, j = divmod(l, 4)
        pr, q = divmod(j, 2)
        lf = fb.leaves[l]
        for c in range(8):
            for sub in (0, 1):
                rail = 4 * q + c // 2
                node = 8 * g + 4 * pr + (c % 2) * 2 + sub
                p = add(lf, f"et-0/0/{c}:{sub}", "host", B400)
                p.leaf, p.node, p.rail, p.cage, p.sub = l, node, rail, c, sub
                p.peer_dev, p.peer_port = fb.nodes[node], NIC_IF[rail]
                fb.host_port[(node, rail)] = p
        for sub in (0, 1):
            node = 8 * g + 2 * j + sub
            p = add(lf, f"et-0/0/8:{sub}", "fe", B400)
            p.leaf, p.node, p.cage, p.sub = l, node, 8, sub
            p.peer_dev, p.peer_port = fb.nodes[node], FE_IF
            fb.fe_port[node] = p
        p = add(lf, "et-0/0/9:0", "stor", B400)
        p.leaf, p.cage, p.sub = l, 9, 0
        p.peer_dev, p.peer_port = f"stor{2 * g + pr + 1:02d}", f"enp65s0f{q}np{q}"
        fb.stor_ports[g].append(p)
        p = add(lf, "et-0/0/9:1", "svc", B400)
        p.leaf, p.cage, p.sub = l, 9, 1
        p.peer_dev, p.peer_port = f"svc{l + 1:02d}", "enp65s0f0np0"
        for k in range(8):
            s, ji = k % S, k // S
            lc, idx = 3 + ji % 2, l * (m // 2) + ji // 2 + 1
            p = add(lf, f"et-0/0/{32 + k}", "up", 2 * B400)
            p.leaf, p.spine, p.uk = l, s, k
            sp = sp_by[(s, lc, idx)]
            sp.leaf, sp.uk = l, k
            p.peer, sp.peer = sp, p
            p.peer_dev, p.peer_port = sp.dev.name, sp.name
            sp.peer_dev, sp.peer_port = lf.name, p.name
            fb.uplinks[l][k] = p
    # host NICs (backend only; the front-end NIC is not collected)
    fb.nic = {}
    for n, h in enumerate(fb.hosts):
        for r in range(8):
            p = add(h, NIC_IF[r], "nic", B400)
            hp = fb.host_port[(n, r)]
            p.node, p.rail, p.leaf = n, r, hp.leaf
            p.peer, hp.peer = hp, p
            p.peer_dev, p.peer_port = hp.dev.name, hp.name
            hp.nic = p
            fb.nic[(n, r)] = p
    fb.ports = ports
    fb.switch_ports = [p for p in ports if p.kind != "nic"]
    fb.nic_ports = [p for p in ports if p.kind == "nic"]
    # links
    fb.links = []
    for p in ports:
        if p.link is not None or p.kind == "nic":
            continue
        lk = Link(p, p.peer)
        p.link = lk
        if p.peer is not None:
            p.peer.link = lk
        fb.links.append(lk)
    # optics: leaf cages (breakout cages 0..9 carry two ports, uplink cages one), spine cages
    for l, lf in enumerate(fb.leaves):
        byc = {}
        for p in lf.ports:
            if p.kind == "up":
                byc.setdefault(32 + p.uk, []).append(p)
            else:
                byc.setdefault(p.cage, []).append(p)
        for c in sorted(byc):
            if c in (8, 9):                 # front-end / storage / svc breakouts are 800G->2x400G DACs: no DOM
                continue
            ps = sorted(byc[c], key=lambda x: x.sub)
            lanes = [ps[0]] * 8 if len(ps) == 1 else [ps[0]] * 4 + [ps[1]] * 4
            o = Optic(lf, f"FPC0:PIC0:PORT{c}:Xcvr0", "junos", lanes, 0)
            lf.optics.append(o)
            for p in ps:
                p.optic = o
                p.lanes = [i for i in range(8) if lanes[i] is p]
    for sd in fb.spines:
        for p in sd.ports:
            o = Optic(sd, f"Ethernet{p.lc}/{p.idx}", "eos", [p] * 8, 1)
            sd.optics.append(o)
            p.optic, p.lanes = o, list(range(8))
    for o in [o for d in fb.leaves + fb.spines for o in d.optics]:
        o.temp0 = rng.uniform(38, 50) + (3 if o.lane_ports[0].kind in ("up", "sp") else 0)
        o.rx0 = [rng.uniform(-1.6, 0.9) for _ in range(8)]
        o.tx0 = [rng.uniform(0.2, 2.0) for _ in range(8)]
        o.bias0 = [rng.uniform(46, 68) for _ in range(8)]
        o.ber0 = 10 ** rng.uniform(-8.4, -6.9)
    for d in fb.leaves + fb.spines:
        d.skew = rng.uniform(-0.38, 0.38)
        d.phase = rng.uniform(0.2, 9.6)
        d.dom_off = rng.randrange(6)
        d.dom_phase = rng.uniform(0.1, 9.8)
    return fb


# ---------------------------------------------------------------------------------------------------
# workload

class Job:
    pass


def make_jobs(fb, rng, N, tu_step):
    jobs = []
    G = fb.G
    A = Job()
    A.name = "llm-pretrain"
    A.nodes = [8 * g + i for g in range(G) for i in (0, 1, 2, 4, 5, 6)]
    A.stor = [p for g in range(G) for p in fb.stor_ports[g]]
    A.level = rng.uniform(0.44, 0.56)
    jobs.append(A)
    for g in range(G):
        B = Job()
        B.name = f"finetune-{g + 1}"
        B.nodes = [8 * g + 3, 8 * g + 7]
        B.stor = list(fb.stor_ports[g])
        B.level = rng.uniform(0.3, 0.45)
        jobs.append(B)
    for J in jobs:
        J.mode = ["train"] * (N + 1)
        J.slow = [1.0] * (N + 1)
        J.dest = {}
        k = len(J.nodes)
        for n in J.nodes:
            for r in range(8):
                own = fb.host_port[(n, r)].leaf
                cnt = {}
                for m2 in J.nodes:
                    if m2 != n:
                        l2 = fb.host_port[(m2, r)].leaf
                        cnt[l2] = cnt.get(l2, 0) + 1
                J.dest[(n, r)] = [(l2, c / (k - 1)) for l2, c in cnt.items() if l2 != own]
    return jobs


def paint(arr, a, b, val):
    for k in range(max(0, a), min(len(arr), b)):
        arr[k] = val


# ---------------------------------------------------------------------------------------------------
# main generator

def main(argv=None):
    ap = argparse.ArgumentParser(description="labelled converged RoCEv2 fabric telemetry (Telegraf gNMI line protocol)")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=None, help="default 6 h for odd seeds, 5 h for even seeds")
    ap.add_argument("--scale", choices=("pod", "full"), default="pod",
                    help="pod: one 8-node pod, 208 ports (default, ~1.2M lines); full: the three pods, 624 ports")
    args = ap.parse_args(argv)
    wall = time.time()
    seed = args.seed
    hours = args.hours if args.hours is not None else (6.0 if seed % 2 else 5.0)
    rng = random.Random(seed * 1_000_003 + 17)
    nz = random.Random(seed * 7_919 + 3)           # noise stream
    N = max(60, int(round(hours * 3600 / STEP)))
    D = N * STEP
    tu = int(round(0.32 * D / INTERVAL_S)) * INTERVAL_S
    tu_step = tu // STEP
    fb = build(args.scale, rng)
    P = len(fb.ports)
    ports = fb.ports
    jobs = make_jobs(fb, rng, N, tu_step)
    A = jobs[0]
    Bs = jobs[1:]
    faults, healthy = [], []
    M = 60

    def st(sec):                 # seconds -> step index (interval containing it)
        return int(sec // STEP) + 1

    def r30(sec):
        return int(sec // INTERVAL_S) * INTERVAL_S

    def tns(sec):
        return (T0_S + int(sec)) * NS

    def pname(p):
        return f"{p.dev.name}:{p.name}"

    def hev(kind, where, a, b, note, background=False):
        e = {"kind": kind, "where": list(where), "start_ns": tns(max(0, a)), "end_ns": tns(min(D, b)), "note": note}
        if background:
            e["background"] = True
        healthy.append(e)

    # ------------------------------------------------------------------ schedule: job A
    span = D - tu
    a2a = []
    n_fit = 2
    n_rest = rng.randint(3, 5)
    for i in range(n_fit):
        lo = 0.05 * D + i * (tu - 0.05 * D) / n_fit
        hi = lo + (tu - 0.05 * D) / n_fit - 10 * M
        a2a.append(rng.uniform(lo, max(lo, hi)))
    for i in range(n_rest):
        lo = tu + i * span / n_rest
        a2a.append(rng.uniform(lo, lo + span / n_rest - 10 * M))
    a2a = [(int(s), int(s + rng.uniform(3, 8) * M)) for s in a2a]
    ckpt = []
    t = rng.uniform(8, 18) * M
    per = rng.uniform(30, 42) * M
    while t < D - 2 * M:
        ckpt.append((int(t), int(t + rng.uniform(50, 110))))
        t += per * rng.uniform(0.93, 1.07)
    evals = []
    t = rng.uniform(22, 40) * M
    per = rng.uniform(55, 75) * M
    while t < D - 5 * M:
        evals.append((int(t), int(t + rng.uniform(3, 5) * M)))
        t += per * rng.uniform(0.95, 1.05)

    # ------------------------------------------------------------------ schedule: operations
    rs_i = rng.randrange(fb.S)                       # the spine that gets the hotfix reload
    reboot_spine = fb.spines[rs_i]
    safe_spines = [d for d in fb.spines if d is not reboot_spine]
    used = set()                                      # link ids used by faults
    Rd = int(tu + rng.uniform(0.46, 0.62) * span)     # drain
    Rb = Rd + int(rng.uniform(90, 150))               # reload
    Rup = Rb + int(rng.uniform(400, 470))             # ports up again
    Rg = Rb + int(rng.uniform(430, 500))              # gNMI back
    Ru = Rup + int(rng.uniform(240, 360))             # undrain
    CR = int(tu + rng.uniform(0.74, 0.88) * span)     # collector restart
    CR_gap = int(rng.uniform(40, 70))
    Mw0 = r30(tu + rng.uniform(0.07, 0.2) * span)     # maintenance window
    Mw1 = r30(Mw0 + rng.uniform(20, 30) * M)
    stall_leaf = fb.leaves[rng.randrange(fb.L)]       # gNMI stream stall (fit window)
    SS0 = int(rng.uniform(0.12, 0.26) * D)
    SS1 = SS0 + int(rng.uniform(120, 200))
    # planned admin-down of one uplink in the fit window (optic cleaning)
    pad_leaf = rng.randrange(fb.L)
    pad_up = fb.uplinks[pad_leaf][rng.choice([k for k in range(8) if fb.uplinks[pad_leaf][k].spine != rs_i])]
    PAD0 = int(rng.uniform(0.1, 0.2) * D)
    PAD1 = PAD0 + int(rng.uniform(15, 25) * M)

    # ------------------------------------------------------------------ fault placement
    windows = {}

    def place(key, dur, lo, hi, avoid=()):
        for _ in range(400):
            s = r30(rng.uniform(lo, max(lo, hi - dur)))
            e = s + dur
            ok = all(e + 4 * M <= windows[o][0] or s >= windows[o][1] + 4 * M for o in avoid if o in windows)
            ok = ok and not (s - 3 * M <= CR <= s + 3 * M) and not (s - 3 * M <= Rd <= s + 3 * M)
            if ok:
                windows[key] = (s, e)
                return s, e
        s = r30(lo)
        windows[key] = (s, s + dur)
        return s, s + dur

    lo_all = tu + 4 * M
    hi_all = D - 6 * M
    # overheating optic (slow): heating H, errors E, replacement R
    H = rng.uniform(60, 90) * M
    E = rng.uniform(18, 32) * M
    R = rng.uniform(6, 10) * M
    oh_s = r30(tu + rng.uniform(0.01, 0.1) * span)
    if oh_s + H + E + R > D - 4 * M:
        E = max(8 * M, D - 4 * M - oh_s - H - R)
    oh_err = oh_s + H
    oh_rep = oh_err + E
    oh_e = int(oh_rep + R)
    windows["overheat"] = (oh_s, oh_e)
    windows["maint"] = (Mw0, Mw1)
    fix6 = Mw1 + rng.uniform(35, 75) * M
    fix6 = int(fix6) if fix6 < D - 6 * M else None
    windows["down_after_maint"] = (Mw1, fix6 or D)
    rf_s = r30(tu + rng.uniform(0.04, 0.3) * span)
    windows["rising_fcs"] = (rf_s, D)
    st_dur = int(rng.uniform(6, 14) * M)
    place("storm", st_dur + 5 * M, lo_all, hi_all, avoid=("maint",))
    place("qos", int(rng.uniform(25, 45) * M), lo_all, hi_all, avoid=("storm",))
    place("mtu", int(rng.uniform(30, 55) * M), lo_all, hi_all)
    place("lane", int(rng.uniform(30, 50) * M), lo_all, hi_all)
    place("shared", int(rng.uniform(30, 55) * M), lo_all, hi_all, avoid=("lane",))
    place("flap", int(rng.uniform(15, 28) * M), lo_all, hi_all)
    place("linecard", int(rng.uniform(25, 45) * M), lo_all, hi_all, avoid=("mtu",))

    # device / port choices
    def take(lk):
        used.add(id(lk))

    def free(p):
        return id(p.link) not in used

    safe_up = [fb.uplinks[l][k] for l in range(fb.L) for k in range(8)
               if fb.uplinks[l][k].spine != rs_i and fb.uplinks[l][k] is not pad_up]
    rng.shuffle(safe_up)
    # line card group first (ports on a safe spine)
    lc_spine = rng.choice(safe_spines)
    lc = rng.choice((3, 4))
    grp = 4 if args.scale == "pod" else 6
    n_lc = fb.L * (8 // fb.S // 2)
    g0 = rng.randrange(n_lc // grp) * grp + 1
    lc_ports = [p for p in lc_spine.ports if p.lc == lc and g0 <= p.idx < g0 + grp]
    for p in lc_ports:
        take(p.link)
    # maintenance: 2-3 uplinks of one leaf to safe spines
    cand = [p for p in safe_up if free(p)]
    m_leaf = cand[0].leaf
    m_ports = [p for p in cand if p.leaf == m_leaf][:rng.randint(2, 3)]
    for p in m_ports:
        take(p.link)
    stuck = rng.choice(m_ports)

    def pick_up():
        for p in safe_up:
            if free(p) and p.leaf != m_leaf:
                take(p.link)
                return p
        raise RuntimeError("no free uplink")

    oh_on_spine = rng.random() < 0.5
    oh_up = pick_up()
    oh_port = oh_up.peer if oh_on_spine else oh_up          # the port whose optic overheats
    rf_up = pick_up()
    rf_port = rf_up.peer if rng.random() < 0.4 else rf_up    # receive side with the dirty connector
    mtu_up = pick_up()
    mtu_port = mtu_up.peer                                     # spine port with the wrong MTU
    flap_on_up = rng.random() < 0.5
    gpu_cages = [(l, c) for l in range(fb.L) for c in range(8)]
    rng.shuffle(gpu_cages)
    lf_cage = gpu_cages.pop()
    sh_cage = gpu_cages.pop()
    lane_sub = rng.randrange(2)
    lane_port = next(p for p in fb.leaves[lf_cage[0]].ports if p.cage == lf_cage[1] and p.sub == lane_sub)
    sh_ports = [p for p in fb.leaves[sh_cage[0]].ports if p.cage == sh_cage[1]]
    for p in [lane_port] + sh_ports:
        take(p.link)
    a_hosts = [fb.host_port[(n, r)] for n in A.nodes for r in range(8)]
    rng.shuffle(a_hosts)
    bad = {(lf_cage[0], lf_cage[1]), (sh_cage[0], sh_cage[1])}
    qos_port = next(p for p in a_hosts if free(p) and (p.leaf, p.cage) not in bad)
    take(qos_port.link)
    storm_port = next(p for p in a_hosts if free(p) and p.node != qos_port.node and (p.leaf, p.cage) not in bad)
    take(storm_port.link)
    if flap_on_up:
        flap_port = pick_up()
    else:
        flap_port = next(p for p in a_hosts[::-1] + [fb.host_port[(n, r)] for n in range(len(fb.nodes)) for r in range(8)]
                         if free(p) and (p.leaf, p.cage) not in bad and p.node != storm_port.node)
        take(flap_port.link)

    # ------------------------------------------------------------------ link down periods
    def down(lk, a, b, cause):
        lk.down.append((a, b, cause))

    # planned admin-down (fit window), leaf side
    admin = {}                                                 # port index -> [(a, b)] admin-disabled
    admin.setdefault(pad_up.i, []).append((PAD0, PAD1))
    down(pad_up.link, PAD0, PAD1, "admin")
    hev("planned_admin_down", [pname(pad_up), pname(pad_up.peer)], PAD0, PAD1,
        "uplink shut on the leaf for optic cleaning (admin DOWN on the leaf, oper DOWN both ends), ECMP on 7 uplinks")
    # maintenance window
    for p in m_ports:
        admin.setdefault(p.i, []).append((Mw0, Mw1))
        if p is stuck:
            down(p.link, Mw0, fix6 if fix6 else D + 1, "admin")
        else:
            down(p.link, Mw0, Mw1 + rng.uniform(2, 9), "admin")
    hev("planned_admin_down", [pname(p) for p in m_ports] + [pname(p.peer) for p in m_ports], Mw0, Mw1,
        "maintenance window: uplinks admin-down on the leaf for an optics swap on the spine patch panel")
    # spine reboot
    for p in reboot_spine.ports:
        down(p.link, Rb + rng.uniform(2, 6), Rup + rng.uniform(0, 25), "reboot")
    hev("spine_drain_reboot", [f"{d.name}:*" for d in fb.spines] + [pname(p.peer) for p in reboot_spine.ports], Rd, Ru + 60,
        "spine drained (BGP maintenance mode), reloaded for an EOS hotfix, counters restart from zero, undrained")
    # overheating optic replacement: admin-down on the port of the optic
    admin.setdefault(oh_port.i, []).append((oh_rep, oh_e - 40))
    down(oh_port.link, oh_rep, oh_e - 40 + rng.uniform(3, 8), "admin")
    # shared optic swap
    sh_s, sh_e = windows["shared"]
    for p in sh_ports:
        admin.setdefault(p.i, []).append((sh_e - 6 * M, sh_e - 40))
        down(p.link, sh_e - 6 * M, sh_e - 40 + rng.uniform(3, 8), "admin")
    # line card reset at the end of the line-card fault
    lc_s, lc_e = windows["linecard"]
    for p in lc_ports:
        down(p.link, lc_e - 4 * M, lc_e - 30 - rng.uniform(0, 10), "lc_reset")
    # lane failure: a few retrains, then the NOC shuts the port until the optic is swapped
    ln_s, ln_e = windows["lane"]
    for x in (rng.uniform(0.55, 0.65), rng.uniform(0.75, 0.85), rng.uniform(0.9, 0.96)):
        a = ln_s + x * (ln_e - ln_s)
        down(lane_port.link, a, a + rng.uniform(6, 22), "retrain")
    admin.setdefault(lane_port.i, []).append((ln_e, D + 1))
    down(lane_port.link, ln_e, D + 1, "admin")
    hev("planned_admin_down", [pname(lane_port), pname(lane_port.nic)], ln_e, D,
        "port shut by the NOC pending NIC optic replacement (after the lane failure)")
    # PFC storm: the host is reset at the end -> all 8 NIC links bounce
    sw_s, _ = windows["storm"]
    sw_reset = sw_s + st_dur
    host_up = sw_reset + rng.uniform(170, 230)
    storm_node = storm_port.node
    for r in range(8):
        down(fb.host_port[(storm_node, r)].link, sw_reset + rng.uniform(0, 2), host_up + rng.uniform(0, 8), "host_reset")
    sw_e = int(host_up + 40)
    windows["storm"] = (sw_s, sw_e)
    # flapping link
    fl_s, fl_e = windows["flap"]
    flap_times = []
    nb = rng.randint(2, 4)
    for bi in range(nb):
        t = fl_s + 20 + bi * (fl_e - fl_s - 120) / nb + rng.uniform(0, 60)
        for _ in range(rng.randint(2, 6)):
            d = rng.uniform(2, 25)
            down(flap_port.link, t, t + d, "flap")
            flap_times.append(t)
            t += d + rng.uniform(5, 60)
    fl_s = r30(min(flap_times))
    fl_e = int(max(flap_times) + 90)
    windows["flap"] = (fl_s, fl_e)

    # finalize link step tables
    for lk in fb.links:
        if not lk.down:
            continue
        lk.down.sort()
        for a, b, _ in lk.down:
            ka, kb = st(a), st(min(b, D))
            for k in range(max(1, ka), min(N, kb) + 1):
                lo, hi = (k - 1) * STEP, k * STEP
                ov = max(0.0, min(hi, b) - max(lo, a))
                f, tr = lk.steps.get(k, (1.0, 0))
                lk.steps[k] = (max(0.0, f - ov / STEP), tr)
            for tt in (a, b):
                if 0 < tt <= D:
                    k = st(tt)
                    if k <= N:
                        f, tr = lk.steps.get(k, (1.0, 0))
                        lk.steps[k] = (f, tr + 1)
    step_links = {}
    for lk in fb.links:
        for k, v in lk.steps.items():
            step_links.setdefault(k, []).append((lk, v[0], v[1]))

    def link_down_at(lk, t):
        for a, b, _ in lk.down:
            if a <= t < b:
                return True
        return False

    def admin_down_at(p, t):
        for a, b in admin.get(p.i, ()):
            if a <= t < b:
                return True
        return False

    # ------------------------------------------------------------------ job schedules
    def mark(J, a, b, mode, prio):
        for k in range(max(1, st(a)), min(N, st(b)) + 1):
            if PRIO[J.mode[k]] <= prio:
                J.mode[k] = mode

    PRIO = {"train": 0, "eval": 1, "a2a": 2, "ckpt": 3, "restore": 4, "off": 5, "stall": 6}
    for a, b in evals:
        mark(A, a, b, "eval", 1)
        hev("eval_pause", [f"{fb.leaves[l].name}:*" for l in range(fb.L)], a, b,
            "llm-pretrain runs its eval: backend traffic falls to a few percent")
    for a, b in a2a:
        mark(A, a, b, "a2a", 2)
        hev("alltoall_phase", ["*"], a, b,
            "MoE all-to-all phase: ECN on most uplinks and spine ports, PFC from the leaves on many host ports and "
            "uplinks at once")
    for a, b in ckpt:
        mark(A, a, b, "ckpt", 3)
    relaunch = host_up + rng.uniform(120, 200)
    restore_e = relaunch + rng.uniform(90, 170)
    mark(A, sw_s, host_up, "stall", 6)
    mark(A, host_up, relaunch, "off", 5)
    mark(A, relaunch, restore_e, "restore", 4)
    hev("job_restart", [f"{fb.leaves[l].name}:*" for l in range(fb.L)] +
        [f"{fb.nodes[n]}:*" for n in A.nodes], host_up, restore_e + 60,
        "llm-pretrain relaunched after the node reset and restored from its last checkpoint (storage read burst)")
    b_events = []
    for J in Bs:
        s1 = rng.uniform(0.04, 0.1) * D
        e1 = rng.uniform(0.2, 0.28) * D
        s2 = rng.uniform(0.42, 0.55) * D
        e2 = rng.uniform(0.68, 0.82) * D
        s3 = rng.uniform(0.88, 0.93) * D
        mark(J, 0, s1, "off", 5)
        mark(J, e1, s2, "off", 5)
        mark(J, e2, s3, "off", 5)
        t = s1 + rng.uniform(15, 25) * M
        while t < D:
            mark(J, t, t + rng.uniform(30, 60), "ckpt", 3)
            t += rng.uniform(25, 35) * M
        where = [pname(fb.host_port[(n, r)]) for n in J.nodes for r in range(8)] + [f"{fb.nodes[n]}:*" for n in J.nodes]
        for tt, what in ((s1, "start"), (e1, "stop"), (s2, "start"), (e2, "stop"), (s3, "start")):
            hev(f"job_{what}", where, tt - 30, tt + 120, f"{J.name} ({', '.join(fb.nodes[n] for n in J.nodes)}) {what}s")
            b_events.append(tt)
    # checkpoint labels (job A); B checkpoints are small and ride along
    for a, b in ckpt:
        where = [pname(p) for p in A.stor] + [f"{d.name}:*" for d in fb.spines] + \
                [pname(u) for l in range(fb.L) for u in fb.uplinks[l]]
        hev("checkpoint_incast", where, a - 10, b + 30,
            "llm-pretrain checkpoint over TCP to the storage nodes: storage-facing leaf ports saturated, tail drops in "
            "the lossy storage queue, VOQ drops on the spines")
    for J in Bs:                                  # the fine-tune jobs' own (smaller) checkpoints
        k = 1
        while k <= N:
            if J.mode[k] == "ckpt":
                k2 = k
                while k2 + 1 <= N and J.mode[k2 + 1] == "ckpt":
                    k2 += 1
                hev("checkpoint_incast", [pname(p) for p in J.stor] + [f"{d.name}:*" for d in fb.spines],
                    (k - 1) * STEP - 10, k2 * STEP + 30,
                    f"{J.name} checkpoint to its storage nodes: tail drops in the lossy queue on the storage ports")
                k = k2 + 1
            k += 1
    # qos mis-mapping slows job A
    q_s, q_e = windows["qos"]
    for k in range(st(q_s), min(N, st(q_e)) + 1):
        A.slow[k] = 0.55
    # noise per job per step
    for J in jobs:
        J.g = [nz.lognormvariate(0, 0.06) for _ in range(N + 1)]
    node_f = [rng.uniform(0.97, 1.03) for _ in fb.nodes]
    nic_f = [[rng.uniform(0.98, 1.02) for _ in range(8)] for _ in fb.nodes]
    LEVEL = {"eval": 0.03, "a2a": None, "ckpt": 0.18, "restore": 0.02, "off": 0.0, "stall": 0.012}
    BURST = {"train": 1.25, "eval": 1.0, "a2a": 2.2, "ckpt": 1.1, "restore": 1.0, "off": 1.0, "stall": 1.0}
    a2a_level = rng.uniform(0.8, 0.9)
    # data loading (front-end NICs): bursts every few minutes
    dl = [[0.0] * (N + 1) for _ in fb.nodes]
    for n in range(len(fb.nodes)):
        base = rng.uniform(0.015, 0.04)
        t = rng.uniform(0, 300)
        for k in range(N + 1):
            dl[n][k] = base * nz.lognormvariate(0, 0.25)
        while t < D:
            for k in range(st(t), min(N, st(t + rng.uniform(30, 60))) + 1):
                dl[n][k] = rng.uniform(0.12, 0.22)
            t += rng.uniform(240, 480)

    # ------------------------------------------------------------------ faults: per-step effects
    corrupt = {}           # port index -> function(t) fraction of received frames corrupted
    nic_corrupt = {}       # NIC port index -> function(t)
    dom_mod = {}           # optic id -> function(t) -> dict(temp, rx[8] delta, tx[8] delta, bias[8] delta, ber_mul)

    def fault(kind, dev, pnames, a, b, sig, peer_ends=(), related=(), **extra):
        f = {"kind": kind, "device": dev, "ports": list(pnames), "start_ns": tns(a), "end_ns": tns(min(b, D)),
             "peer_ends": [{"device": d, "port": p} for d, p in peer_ends],
             "related": list(related), "signature": sig}
        f.update(extra)
        faults.append(f)

    def pe(p):
        return [(p.peer_dev, p.peer_port)]

    # F1 overheating optic
    oh_opt = oh_port.optic
    oh_peer = oh_port.peer

    oh_amp = max(24.0, 78.0 - oh_port.optic.temp0 + rng.uniform(0, 3))

    def oh_temp(t):
        if t < oh_s:
            return 0.0
        if t < oh_err:
            return oh_amp * ((t - oh_s) / H) ** 1.6
        if t < oh_rep:
            return oh_amp + 3.0 * (t - oh_err) / max(1, E)
        return -2.0                                          # the replacement runs cooler

    def oh_err_frac(t):
        if t < oh_err - 12 * M or t >= oh_rep:
            return 0.0
        if t < oh_err:
            return 2e-10 * 10 ** (2.0 * (t - (oh_err - 12 * M)) / (12 * M))
        return 2e-8 * 10 ** (3.2 * (t - oh_err) / max(1, E))

    corrupt[oh_port.i] = oh_err_frac
    if oh_peer.kind == "nic":
        nic_corrupt[oh_peer.i] = lambda t: 0.6 * oh_err_frac(t)
    else:
        corrupt[oh_peer.i] = lambda t: 0.6 * oh_err_frac(t)

    def oh_dom(t):
        d = oh_temp(t)
        if t < oh_s or t >= oh_rep:
            return {"temp": d} if t >= oh_rep else None
        x = max(0.0, d) / oh_amp
        return {"temp": d, "bias": [9.0 * x ** 1.3] * 8, "tx": [-1.4 * x ** 2] * 8, "rx": [-0.6 * x ** 2] * 8,
                "ber": 10 ** (2.6 * x ** 2)}

    dom_mod[id(oh_opt)] = oh_dom
    dom_mod[id(oh_peer.optic)] = lambda t: (None if t < oh_s or t >= oh_rep else
                                            {"rx": [-1.4 * (max(0.0, oh_temp(t)) / oh_amp) ** 2] * 8,
                                             "ber": 10 ** (2.0 * (max(0.0, oh_temp(t)) / oh_amp) ** 2)})
    fault("xcvr_overheating", oh_port.dev.name, [oh_port.name], oh_s, oh_e,
          f"transceiver {oh_opt.comp} heats slowly for {H / M:.0f} min (module temperature +{oh_amp:.0f} C, laser bias up, "
          f"tx power sagging) before FCS/in_errors start on both ends ({E / M:.0f} min); the NOC then shuts the "
          "port and swaps the optic. The window starts at the onset of the heating: a finding while it heats is an "
          "early warning, credited.",
          peer_ends=pe(oh_port), onset="slow", heating_until_ns=tns(oh_err), errors_from_ns=tns(oh_err),
          replaced_at_ns=tns(oh_rep), optic=oh_opt.comp)

    # F2 QoS mis-mapping
    related_A = [{"device": fb.host_port[(n, r)].dev.name, "ports": [fb.host_port[(n, r)].name]}
                 for n in A.nodes for r in range(8)] + [{"device": fb.nodes[n], "ports": ["*"]} for n in A.nodes]
    fault("qos_mismap", qos_port.dev.name, [qos_port.name], q_s, q_e,
          "config push put the storage CoS template on this port: RoCE (TC3) toward the NIC lands in the lossy "
          "'storage' queue (its transmit counters jump, the 'roce' queue goes quiet), drops on that queue, no PFC "
          "sent or honoured on the port, no ECN; llm-pretrain slows to ~55 % (go-back-N retransmissions)",
          peer_ends=pe(qos_port), related=[r for r in related_A if not (r["device"] == qos_port.dev.name and
                                                                          r["ports"] == [qos_port.name])])
    # F3 MTU mismatch
    m_s, m_e = windows["mtu"]
    fault("mtu_mismatch", mtu_port.dev.name, [mtu_port.name], m_s, m_e,
          "spine port left at MTU 4200 by a template push: the leaf's 9000-byte TCP storage frames are dropped on "
          "receive (ifeth in_maxsize_exceeded, in_errors), RoCE (4 KB frames) passes; storage flows hashed onto the "
          "link stall",
          peer_ends=pe(mtu_port))

    # F4 lane failure (NIC-side 400G-DR4 tx lane dies; seen on the leaf module's rx lane)
    bad_lane = lane_port.lanes[rng.randrange(4)]

    def lane_dom(t):
        if t < ln_s:
            return None
        x = clamp((t - ln_s) / (ln_e - ln_s))
        rx = [0.0] * 8
        rx[bad_lane] = -(1.0 + 7.0 * x ** 1.5) if t < ln_e else -30.0
        return {"rx": rx}

    dom_mod[id(lane_port.optic)] = lane_dom
    corrupt[lane_port.i] = lambda t: (0.0 if t < ln_s or t >= ln_e else
                                      3e-10 * 10 ** (5.3 * clamp((t - ln_s) / (ln_e - ln_s)) ** 1.3))
    fault("optic_lane_failure", lane_port.dev.name, [lane_port.name], r30(ln_s), ln_e,
          f"one tx lane of the NIC's 400G-DR4 optic fails: rx power on lane {bad_lane} of the leaf module "
          f"{lane_port.optic.comp} falls toward LOS, FCS errors climb on the leaf port, the link retrains three "
          "times; the sibling sub-port on the same module is clean. The NOC then shuts the port",
          peer_ends=pe(lane_port), lane=bad_lane, optic=lane_port.optic.comp)

    # F5 both halves of one breakout degrading (shared module)
    def sh_x(t):
        return clamp((t - sh_s) / max(1, sh_e - 6 * M - sh_s))

    def sh_frac(t):
        if t < sh_s or t >= sh_e - 6 * M:
            return 0.0
        return 5e-10 * 10 ** (4.8 * sh_x(t) ** 1.2)

    for p in sh_ports:
        corrupt[p.i] = sh_frac
        nic_corrupt[p.nic.i] = lambda t: 0.8 * sh_frac(t)
    dom_mod[id(sh_ports[0].optic)] = lambda t: (None if t < sh_s else {"temp": -1.5} if t >= sh_e - 6 * M else
                                                {"temp": 4.0 * sh_x(t), "tx": [-2.8 * sh_x(t) ** 1.5] * 8,
                                                 "rx": [-0.3 * sh_x(t)] * 8})
    fault("breakout_shared_optic", sh_ports[0].dev.name, [p.name for p in sh_ports], sh_s, sh_e,
          f"the 800G 2xDR4 module {sh_ports[0].optic.comp} feeding both 400G halves degrades: FCS errors rise "
          "together on both sub-ports and rx_crc_errors_phy on both NICs, tx power sags on all 8 lanes; swapped "
          "at the end (both halves down ~6 min)",
          peer_ends=[(p.peer_dev, p.peer_port) for p in sh_ports], optic=sh_ports[0].optic.comp)

    # F6 link left down after maintenance
    rel6 = [{"device": u.dev.name, "ports": [u.name]} for u in fb.uplinks[stuck.leaf] if u is not stuck] + \
           [{"device": u.peer_dev, "ports": [u.peer_port]} for u in fb.uplinks[stuck.leaf] if u is not stuck]
    fault("down_after_maintenance", stuck.dev.name, [stuck.name], Mw1, fix6 or D,
          "after the maintenance window the uplink is admin-up again but stays oper-down (leaf rx LOS on all lanes "
          "while the spine end is admin-up and receives light); ECMP runs on the remaining uplinks"
          + ("; reseated and up again at the end" if fix6 else ""),
          peer_ends=pe(stuck), related=rel6)

    # F7 PFC storm from a NIC
    storm_nic = storm_port.nic
    storm_rate = rng.uniform(30000, 80000)
    rel7 = [{"device": storm_port.dev.name, "ports": ["*"]}] + \
           [{"device": u.peer_dev, "ports": [u.peer_port]} for u in fb.uplinks[storm_port.leaf]] + related_A
    fault("pfc_storm", storm_port.dev.name, [storm_port.name], r30(sw_s), sw_e,
          f"{storm_nic.dev.name} {storm_nic.name} stuck sending PFC on priority 3 (~{storm_rate / 1000:.0f}k "
          "frames/s: tx_prio3_pause, tx_pause_storm_warning/error_events on the NIC, rx_pfc_prio3 on the leaf "
          "port), transmit toward the host ~0; the leaf pauses its uplinks for the first minute, then the PFC "
          "watchdog drops in the 'roce' queue; llm-pretrain stalls; the host is reset at the end (all 8 links "
          "bounce, NIC counters restart)",
          peer_ends=pe(storm_port), related=rel7 + [{"device": fb.host_port[(storm_node, r)].dev.name,
                                                     "ports": [fb.host_port[(storm_node, r)].name]} for r in range(8)])

    # F8 flapping link
    fault("flapping_link", flap_port.dev.name, [flap_port.name], fl_s, fl_e,
          "bursts of link down/up (carrier_transitions +2 per flap on both ends, oper-status DOWN on change from "
          "the spine / in a sample from the leaf, traffic gaps, FCS at link-up)",
          peer_ends=pe(flap_port))

    # F9 line card port group
    lc_lvl = [rng.uniform(0.7, 1.4) for _ in lc_ports]

    def lc_frac(j):
        return lambda t: (0.0 if t < lc_s or t >= lc_e - 4 * M else
                          lc_lvl[j] * 4e-7 * (1 + 2.5 * (t - lc_s) / max(1, lc_e - lc_s)))

    for j, p in enumerate(lc_ports):
        corrupt[p.i] = lc_frac(j)
        corrupt[p.peer.i] = (lambda f: (lambda t: 0.08 * f(t)))(lc_frac(j))
        dom_mod[id(p.optic)] = (lambda f: (lambda t: None if f(t) == 0 else {"ber": 60.0}))(lc_frac(j))
    fault("linecard_port_group", lc_spine.name, [p.name for p in lc_ports], lc_s, lc_e,
          f"line card {lc} of {lc_spine.name}: the port group Ethernet{lc}/{g0}-{g0 + grp - 1} all show FCS/"
          "in_errors at once and pre-FEC BER up ~60x with normal optical power (SerDes/retimer, not optics); the "
          "far ends see a little; the NOC resets the card at the end (ports down ~4 min)",
          peer_ends=[(p.peer_dev, p.peer_port) for p in lc_ports])

    # F10 rising FCS on an uplink (dirty connector)
    rf_lanes = rng.sample(range(8), 2)

    def rf_frac(t):
        if t < rf_s:
            return 0.0
        x = (t - rf_s) / max(1, D - rf_s)
        return 3e-10 * (2e4) ** x

    corrupt[rf_port.i] = rf_frac
    dom_mod[id(rf_port.optic)] = lambda t: (None if t < rf_s else
                                            {"rx": [(-2.2 - 0.6 * (t - rf_s) / max(1, D - rf_s)) if i in rf_lanes
                                                    else 0.0 for i in range(8)],
                                             "ber": 3.0 * 30 ** ((t - rf_s) / max(1, D - rf_s))})
    fault("rising_fcs", rf_port.dev.name, [rf_port.name], rf_s, D,
          "dirty connector on an uplink: rx power ~2-3 dB low on two lanes, FCS errors on this receive side as a "
          "fraction of frames growing ~x2e4 until the end of the run (invisible for the first hour)",
          peer_ends=pe(rf_port), onset="slow")

    # healthy: background
    hev("sporadic_fec_uncorrectable", ["*"], 0, D,
        "single FEC-uncorrectable codewords on healthy 800G links (one FCS error, one fec_uncorrectable_blocks)",
        background=True)
    hev("idle_breakout_sibling", [f"{fb.leaves[l].name}:et-0/0/9:1" for l in range(fb.L)], 0, D,
        "svc node links next to a busy storage port on the same 800G breakout are nearly idle", background=True)
    hev("collector_restart", ["*"], CR - 30, CR + CR_gap + 60,
        "central Telegraf restarted: ~1 min without gNMI lines, 2 samples replayed from the disk buffer, initial sync "
        "(full updates, EOS oper-status for every port), new sample phase")
    hev("stream_stall", [f"{stall_leaf.name}:*"], SS0, SS1 + 30,
        "gNMI stream from one leaf hung and was redialled: no samples, then one covering the gap")

    # ------------------------------------------------------------------ initial cumulative state
    def big(lo, hi):
        return int(10 ** rng.uniform(lo, hi))

    ifc = []
    eth = []
    qc = []
    pfc = []
    for p in ports:
        if p.kind == "nic":
            ifc.append(None)
            eth.append(None)
            qc.append(None)
            pfc.append(None)
            continue
        o = big(14.5, 16.6)
        ifc.append([rng.randint(2, 30), rng.randint(0, 40), big(0, 3.2), 0, o, o // rng.randint(3500, 5500),
                    big(1, 5.5), 0, int(o * rng.uniform(0.9, 1.1)), o // rng.randint(3500, 5500)])
        ifc[-1][I_FCS] = rng.randint(0, ifc[-1][I_INE])
        eth.append([ifc[-1][I_FCS], rng.randint(0, 20), 0, 0, 0, 0])
        qc.append([[big(0, 3), big(6, 9.5), o // 2, o // 2 // 4000],
                   [big(3, 7), 0, o // 3, o // 3 // 6000]])
        pfc.append([big(3, 7.5), big(3, 7.5)])
    nic = {}
    for p in fb.nic_ports:
        o = big(14, 15.8)
        o2 = int(o * rng.uniform(0.9, 1.1))
        nic[p.i] = [1, 1, rng.randint(1, 6), o, rng.randint(0, 40), 0, o // rng.randint(3700, 4300), int(o * 0.9),
                    big(3, 7), 0, 400000, o2, o2 // rng.randint(3700, 4300), 0, 0, int(o2 * 0.9), big(2, 5)]
        nic[p.i][N_RX3D] = nic[p.i][N_RX3P] * 20
    # suppression state
    last = {}
    lastfull = {}
    # DOM state
    for d in fb.leaves + fb.spines:
        for o in d.optics:
            o.fec_cb = big(12, 15)
            o.fec_unc = rng.randint(0, 30)

    # ------------------------------------------------------------------ emission helpers
    out_path = os.path.join(args.outdir, "port_counters.lp")
    os.makedirs(args.outdir, exist_ok=True)
    fh = open(out_path, "w", buffering=1 << 22)
    n_lines = 0
    gnmi_recent = []                 # [(k, [lines])] for the replay after the collector restart
    phase_shift = {d.name: 0.0 for d in fb.leaves + fb.spines}
    rebooted = set()

    def dev_ts(d, k, extra=0.0):
        t = T0_S + k * STEP + d.phase + phase_shift[d.name] + d.skew + extra + nz.uniform(0, 0.004)
        if d.vendor == "junos":
            return int(t * 1000) * 1_000_000
        return int(t * 1e9)

    def absent(d, k):
        t = k * STEP
        if CR <= t < CR + CR_gap:
            return True
        if d is stall_leaf and SS0 <= t < SS1:
            return True
        if d is reboot_spine and Rb <= t < Rg:
            return True
        return False

    def resync(d, k):
        t = k * STEP
        t1 = (k - 1) * STEP
        if (CR <= t1 < CR + CR_gap) and not (CR <= t < CR + CR_gap):
            return True
        if d is stall_leaf and SS0 <= t1 < SS1 <= t:
            return True
        if d is reboot_spine and Rb <= t1 < Rg <= t:
            return True
        return False

    def sup(key, names, vals, k, full, tags, meas, ts, buf, hb=HB_STEPS):
        pv = last.get(key)
        if pv is None or full or k - lastfull.get(key, -99) >= hb:
            buf.append((ts, f"{meas},{tags} {fields_str(names, vals)} {ts}\n"))
            last[key] = list(vals)
            lastfull[key] = k
            return
        ch = [i for i in range(len(vals)) if vals[i] != pv[i]]
        if ch:
            buf.append((ts, f"{meas},{tags} {fields_str(names, vals, ch)} {ts}\n"))
            for i in ch:
                pv[i] = vals[i]

    def sup_str(key, names, vals, k, full, tags, meas, ts, buf, hb=HB_SLOW):
        pv = last.get(key)
        if pv is None or full or k - lastfull.get(key, -99) >= hb:
            idx = range(len(vals))
            lastfull[key] = k
            last[key] = list(vals)
        else:
            idx = [i for i in range(len(vals)) if vals[i] != pv[i]]
            for i in idx:
                pv[i] = vals[i]
        if idx:
            buf.append((ts, f"{meas},{tags} " + ",".join(f'{names[i]}="{vals[i]}"' for i in idx) + f" {ts}\n"))

    for key in range(P):            # desynchronise heartbeats
        for sub in range(5):
            lastfull[(key, sub)] = -rng.randrange(HB_SLOW if sub in (0, 4) else HB_STEPS)

    # EOS on-change oper/admin events per spine port
    eos_events = {}
    for d in fb.spines:
        for p in d.ports:
            evs = []
            for a, b, cause in p.link.down:
                evs.append((a, "oper_status", "DOWN"))
                if b <= D:
                    evs.append((b, "oper_status", "UP"))
            for a, b in admin.get(p.i, ()):
                evs.append((a, "admin_status", "DOWN"))
                if b <= D:
                    evs.append((b, "admin_status", "UP"))
            for tt, f, v in evs:
                k = st(tt)
                if 1 <= k <= N:
                    eos_events.setdefault(k, []).append((tt, p, f, v))

    # ------------------------------------------------------------------ per-step arrays
    Z = [0.0] * P
    load = [0.3] * P
    lam_fec = 0.08 / 3600 * STEP                 # sporadic uncorrectable codewords per 800G port per step

    def spine_weight(s_dev, t):
        if s_dev is not reboot_spine:
            return 1.0
        if Rd <= t < Rd + 60:
            return 1 - (t - Rd) / 60
        if Rd + 60 <= t < Ru:
            return 0.0
        if Ru <= t < Ru + 60:
            return (t - Ru) / 60
        return 1.0

    w_up = {c: [[rng.lognormvariate(0, 0.16 if c == "r" else 0.05) for _ in range(8)] for _ in range(fb.L)]
            for c in ("r", "s")}
    w_sp = {c: {} for c in ("r", "s")}
    sp_to = {}                                  # (spine idx, leaf) -> [spine ports]
    for sd in fb.spines:
        s = fb.spines.index(sd)
        for p in sd.ports:
            sp_to.setdefault((s, p.leaf), []).append(p)
    for c in ("r", "s"):
        for key, lst in sp_to.items():
            w_sp[c][key] = [rng.lognormvariate(0, 0.12 if c == "r" else 0.04) for _ in lst]
    leaf_hosts = [[p for p in fb.leaves[l].ports if p.kind in ("host", "fe", "stor", "svc")] for l in range(fb.L)]

    storm_on = lambda t: sw_s <= t < sw_reset
    host_down_k = (st(sw_reset), st(host_up) + 1)

    # ------------------------------------------------------------------ main loop
    for k in range(0, N + 1):
        t = k * STEP
        tm = t - STEP / 2
        buf = []
        if k > 0:
            upf = [1.0] * P
            trans = [0] * P
            linkup_err = []
            for lk, f, tr in step_links.get(k, ()):
                for p in (lk.a, lk.b):
                    if p is not None:
                        upf[p.i] = f
                        trans[p.i] += tr
                if tr and f > 0:
                    linkup_err.append(lk)
            in_r, in_s, out_r, out_s = Z[:], Z[:], Z[:], Z[:]
            burst = [1.2] * P
            X = {"r": [[0.0] * fb.L for _ in range(fb.L)], "s": [[0.0] * fb.L for _ in range(fb.L)]}
            loc_r = [0.0] * fb.L
            # --- RoCE
            for J in jobs:
                mode = J.mode[k]
                if mode == "off":
                    continue
                lv = LEVEL.get(mode)
                if mode == "train":
                    lv = J.level
                elif mode == "a2a":
                    lv = a2a_level
                u = lv * J.g[k] * J.slow[k]
                b = BURST[mode]
                kn = len(J.nodes)
                for r in range(8):
                    sends = []
                    S = 0.0
                    for n in J.nodes:
                        hp = fb.host_port[(n, r)]
                        s = u * node_f[n] * nic_f[n][r] * nz.lognormvariate(0, 0.025) * B400 * upf[hp.i]
                        sends.append((n, hp, s))
                        S += s
                    for n, hp, s in sends:
                        rx = (S - s) / (kn - 1) * upf[hp.i]
                        in_r[hp.i] += s
                        out_r[hp.i] += rx
                        burst[hp.i] = b * nz.lognormvariate(0, 0.08)
                        cross = 0.0
                        for l2, fr in J.dest[(n, r)]:
                            X["r"][hp.leaf][l2] += s * fr
                            cross += s * fr
                        loc_r[hp.leaf] += s - cross
            # --- storage: checkpoints (writes), restore and data loading (reads)
            for J in jobs:
                mode = J.mode[k]
                if mode == "ckpt":
                    W = (0.9 if J is A else 0.35) * len(J.stor) * B400 * nz.lognormvariate(0, 0.05)
                    nics = [fb.host_port[(n, r)] for n in J.nodes for r in range(8)]
                    w = W / len(nics)
                    per_leaf = [0.0] * fb.L
                    for hp in nics:
                        in_s[hp.i] += w * upf[hp.i]
                        per_leaf[hp.leaf] += w * upf[hp.i]
                    tot = sum(per_leaf)
                    for sp in J.stor:
                        out_s[sp.i] += tot / len(J.stor)
                        burst[sp.i] = 2.8 * nz.lognormvariate(0, 0.1)
                        for l in range(fb.L):
                            if l != sp.leaf:
                                X["s"][l][sp.leaf] += per_leaf[l] / len(J.stor)
                if mode in ("restore",):
                    Rr = 0.85 * len(J.stor) * B400 * nz.lognormvariate(0, 0.05)
                    nics = [fb.host_port[(n, r)] for n in J.nodes for r in range(8)]
                    per_leaf = [0.0] * fb.L
                    for hp in nics:
                        v = Rr / len(nics) * upf[hp.i]
                        out_s[hp.i] += v
                        per_leaf[hp.leaf] += v
                    for sp in J.stor:
                        in_s[sp.i] += sum(per_leaf) / len(J.stor)
                        out_s[sp.i] += 0.02 * sum(per_leaf) / len(J.stor)
                        for l in range(fb.L):
                            if l != sp.leaf:
                                X["s"][sp.leaf][l] += per_leaf[l] / len(J.stor)
                if mode in ("train", "a2a", "eval", "ckpt"):
                    per_leaf = [0.0] * fb.L
                    for n in J.nodes:
                        fp = fb.fe_port[n]
                        v = dl[n][k] * B400
                        out_s[fp.i] += v
                        in_s[fp.i] += v * 0.02
                        per_leaf[fp.leaf] += v
                    for sp in J.stor:
                        in_s[sp.i] += sum(per_leaf) / len(J.stor)
                        out_s[sp.i] += 0.02 * sum(per_leaf) / len(J.stor)     # TCP ACKs / NFS requests
                        for l in range(fb.L):
                            if l != sp.leaf:
                                X["s"][sp.leaf][l] += per_leaf[l] / len(J.stor)
            # --- ECMP over uplinks and spines
            up_frac = {}
            for c, ins, outs in (("r", in_r, out_r), ("s", in_s, out_s)):
                share = [[0.0] * fb.S for _ in range(fb.L)]
                for l in range(fb.L):
                    ups = fb.uplinks[l]
                    ws = [w_up[c][l][kk] * upf[ups[kk].i] * spine_weight(fb.spines[ups[kk].spine], tm) *
                          nz.lognormvariate(0, 0.03) for kk in range(8)]
                    if c == "s" and windows["mtu"][0] <= t < windows["mtu"][1] and l == mtu_up.leaf:
                        ws[mtu_up.uk] *= 0.35           # storage flows hashed onto the bad link stall
                    wsum = sum(ws) or 1.0
                    tot = sum(X[c][l])
                    for kk in range(8):
                        fr = ws[kk] / wsum
                        outs[ups[kk].i] += tot * fr
                        share[l][ups[kk].spine] += fr
                for s in range(fb.S):
                    for l2 in range(fb.L):
                        arrive = 0.0
                        for l in range(fb.L):
                            if l != l2:
                                arrive += X[c][l][l2] * share[l][s]
                        if arrive <= 0:
                            continue
                        lst = sp_to[(s, l2)]
                        ws = [w_sp[c][(s, l2)][j] * upf[lst[j].i] for j in range(len(lst))]
                        wsum = sum(ws)
                        if wsum <= 0:
                            continue
                        for j, p in enumerate(lst):
                            v = arrive * ws[j] / wsum
                            outs[p.i] += v
                            ins[p.peer.i] += v
                for sd in fb.spines:
                    for p in sd.ports:
                        ins[p.i] += outs[p.peer.i]
            # --- svc and background
            for l in range(fb.L):
                for p in leaf_hosts[l]:
                    if p.kind == "svc":
                        v = B400 * 0.002 * nz.lognormvariate(0, 0.6)
                        in_s[p.i] += v
                        out_s[p.i] += v * 0.6
            # --- capacity clamp
            for p in fb.switch_ports:
                cap = p.cap * 0.985 * max(upf[p.i], 0.0)
                tot = out_r[p.i] + out_s[p.i]
                if tot > cap:
                    over = tot - cap
                    cut = min(out_s[p.i], over)
                    out_s[p.i] -= cut
                    over -= cut
                    if over > 0:
                        out_r[p.i] = max(0.0, out_r[p.i] - over)
            # --- fault-specific traffic edits
            storm_now = storm_on(tm)
            storm_want = out_r[storm_port.i]
            if storm_now:
                out_r[storm_port.i] *= 0.01
            qos_now = q_s <= tm < q_e
            mtu_now = m_s <= tm < m_e
            # --- congestion: ECN, PFC, drops
            ecn = [0] * P
            drop_r = [0] * P
            drop_s = [0] * P
            pfc_out = [0.0] * P
            pfc_in = [0.0] * P
            giants = [0] * P
            pkt_r_out = [0.0] * P
            pkt_s_out = [0.0] * P
            pause_up = [0.0] * fb.L       # leaf pauses toward spines (host egress congested, cross share)
            pause_host = [0.0] * fb.L     # leaf pauses toward NICs
            pause_sp = [0.0] * fb.S
            cross_in_r = [0.0] * fb.L
            for l in range(fb.L):
                cross_in_r[l] = sum(in_r[u.i] for u in fb.uplinks[l])
            a2a_now = A.mode[k] == "a2a"
            for p in fb.switch_ports:
                i = p.i
                orr, oss = out_r[i], out_s[i]
                pkt_r_out[i] = orr / 3900.0
                pkt_s_out[i] = oss / 6200.0
                if orr + oss <= 0:
                    continue
                util = (orr + oss) / p.cap
                if p.kind == "up":
                    b = 1.15 * (2.1 if a2a_now else 1.0) * nz.lognormvariate(0, 0.15)
                    bst = 1.3
                elif p.kind == "sp":
                    b = 1.2 * (1.8 if a2a_now else 1.0) * nz.lognormvariate(0, 0.12)
                    bst = 4.5 if A.mode[k] == "ckpt" else 1.4
                else:
                    b = burst[i]
                    bst = burst[i] if p.kind == "stor" else 1.3
                pr = util * b
                ps = util * bst
                is_leaf = p.dev.vendor == "junos"
                # ECN on the lossless queue
                if orr > 0 and not (qos_now and p is qos_port):
                    if is_leaf:
                        f = 0.12 * clamp((pr - 0.6) / 0.7) ** 2
                    else:
                        f = 0.08 * clamp((pr - 0.8) / 0.8) ** 2
                    if f > 0:
                        ecn[i] = int(pkt_r_out[i] * f * nz.lognormvariate(0, 0.1))
                # PFC generated because this egress congests
                if orr > 0:
                    if is_leaf:
                        rate = 8000 * clamp(pr - 0.95, 0, 2) ** 1.5
                        if 0.5 < pr <= 0.95 and nz.random() < 0.25:
                            rate += nz.uniform(0, 6) * (pr - 0.5)
                    else:
                        rate = 2500 * clamp(pr - 1.6, 0, 2) ** 1.5
                    G = rate * STEP * orr / (orr + oss)
                    if G > 0:
                        if qos_now and p is qos_port:
                            G = 0.0
                        if p.kind in ("host", "fe", "stor", "svc"):
                            l = p.leaf
                            ci = cross_in_r[l]
                            ls = loc_r[l] / (loc_r[l] + ci) if loc_r[l] + ci > 0 else 1.0
                            pause_up[l] += G * (1 - ls)
                            pause_host[l] += G * ls
                        elif p.kind == "up":
                            pause_host[p.leaf] += G
                        else:
                            pause_sp[p.spine] += G
                # lossy drops
                if oss > 0:
                    if p.kind == "sp":
                        f = 0.0015 * clamp((ps - 0.9) / 1.5) ** 1.5
                    else:
                        f = 0.004 * clamp((ps - 0.9) / 1.2) ** 1.5
                    if f > 0:
                        drop_s[i] = int(pkt_s_out[i] * f * nz.lognormvariate(0, 0.2))
            # distribute pauses
            for l in range(fb.L):
                if pause_up[l] > 0:
                    ups = [u for u in fb.uplinks[l] if in_r[u.i] > 0]
                    tot = sum(in_r[u.i] for u in ups) or 1.0
                    for u in ups:
                        pfc_out[u.i] += pause_up[l] * in_r[u.i] / tot
                if pause_host[l] > 0:
                    hs = [h for h in leaf_hosts[l] if in_r[h.i] > 0 and not (qos_now and h is qos_port)]
                    tot = sum(in_r[h.i] for h in hs) or 1.0
                    for h in hs:
                        pfc_out[h.i] += pause_host[l] * in_r[h.i] / tot
            for s in range(fb.S):
                if pause_sp[s] > 0:
                    sps = [p for p in fb.spines[s].ports if in_r[p.i] > 0]
                    tot = sum(in_r[p.i] for p in sps) or 1.0
                    for p in sps:
                        pfc_out[p.i] += pause_sp[s] * in_r[p.i] / tot
            # PFC storm
            nic_pause_tx = {}
            if storm_now:
                fr = clamp((min(tm, sw_reset) - sw_s + STEP / 2) / STEP)
                frames = storm_rate * STEP * fr * nz.lognormvariate(0, 0.08)
                nic_pause_tx[storm_nic.i] = frames
                pfc_in[storm_port.i] += frames
                if tm - sw_s < 60:                 # before the watchdog: pauses spread up and sideways
                    for u in fb.uplinks[storm_port.leaf]:
                        pfc_out[u.i] += nz.uniform(2000, 8000) * STEP
                    for h in leaf_hosts[storm_port.leaf]:
                        if h.kind == "host" and h.node in A.nodes and h is not storm_port:
                            pfc_out[h.i] += nz.uniform(500, 2500) * STEP
                else:                               # watchdog: the queue toward the NIC drops
                    drop_r[storm_port.i] += int(storm_want / 3900 * nz.uniform(0.9, 1.0)) + poisson(nz, 40)
            # qos mis-mapping: RoCE toward the NIC in the lossy queue, dropping
            if qos_now:
                i = qos_port.i
                drop_s[i] += int(pkt_r_out[i] * nz.uniform(0.002, 0.012))
            # peers receive what was sent
            for p in fb.switch_ports:
                if pfc_out[p.i] > 0 and p.peer is not None and p.peer.kind != "nic":
                    pfc_in[p.peer.i] += pfc_out[p.i]
            # MTU
            if mtu_now:
                giants[mtu_port.i] = int(out_s[mtu_up.i] / 9018 * 0.8 * nz.lognormvariate(0, 0.1))
            # --- counters
            for p in fb.switch_ports:
                i = p.i
                c = ifc[i]
                ib = in_r[i] + in_s[i]
                ob = out_r[i] + out_s[i]
                bgp = poisson(nz, (4.0 if p.kind in ("up", "sp") else 0.6) * STEP * upf[i]) if upf[i] > 0 else 0
                ipk = int(in_r[i] / 3900 + in_s[i] / 6200) + bgp
                opk = int(pkt_r_out[i] + pkt_s_out[i]) + bgp
                ib_i = int(ib) + bgp * 90
                ob_i = int(ob) + bgp * 90
                fcs = 0
                f = corrupt.get(i)
                if f is not None:
                    fcs = poisson(nz, f(tm) * ipk)
                if p.cap > B400 and upf[i] > 0 and nz.random() < lam_fec:
                    fcs += 1
                    if p.optic is not None and p.optic.vendor == "eos":
                        p.optic.fec_unc += 1
                if trans[i] and upf[i] > 0:
                    fcs += poisson(nz, 4.0)
                    eth[i][E_FRAG] += poisson(nz, 2.0)
                c[I_CT] += trans[i]
                c[I_INO] += ib_i
                c[I_INP] += ipk
                c[I_OUTO] += ob_i
                c[I_OUTP] += opk
                c[I_FCS] += fcs
                c[I_INE] += fcs + giants[i]
                qd = drop_r[i] + drop_s[i]
                c[I_OUTD] += qd
                eth[i][E_CRC] += fcs
                eth[i][E_MAX] += giants[i]
                q = qc[i]
                if qos_now and p is qos_port:
                    q[0][3] += 2 + poisson(nz, 1.0)          # CNPs only
                    q[0][2] += 150
                    q[1][2] += int(ob)
                    q[1][3] += int(pkt_r_out[i] + pkt_s_out[i])
                    q[1][0] += drop_s[i]
                else:
                    q[0][0] += drop_r[i]
                    q[0][1] += ecn[i]
                    q[0][2] += int(out_r[i])
                    q[0][3] += int(pkt_r_out[i])
                    q[1][0] += drop_s[i]
                    q[1][2] += int(out_s[i])
                    q[1][3] += int(pkt_s_out[i])
                pf = pfc[i]
                pf[0] += int(pfc_in[i])
                pf[1] += int(pfc_out[i])
            # NICs mirror their leaf port
            for p in fb.nic_ports:
                hp = p.peer
                v = nic[p.i]
                i = hp.i
                if host_down_k[0] <= k < host_down_k[1] and p.node == storm_node:
                    continue
                if k == host_down_k[1] and p.node == storm_node:
                    for j in range(len(v)):
                        v[j] = 0
                    v[N_UP] = 1
                    v[N_SPEED] = 400000
                v[N_RXB] += int(out_r[i] + out_s[i])
                v[N_RXP] += int(pkt_r_out[i] + pkt_s_out[i])
                v[N_TXB] += int(in_r[i] + in_s[i])
                v[N_TXP] += int(in_r[i] / 3900 + in_s[i] / 6200)
                v[N_RX3B] += int(out_r[i])
                v[N_TX3B] += int(in_r[i])
                v[N_RX3P] += int(pfc_out[i])
                v[N_RX3D] += int(pfc_out[i] * 18)
                tx3 = nic_pause_tx.get(p.i, 0.0)
                v[N_TX3P] += int(tx3)
                if tx3 > 0:
                    v[N_STW] += poisson(nz, 0.7)
                    v[N_STE] += poisson(nz, 0.15)
                if trans[i]:
                    v[N_LDE] += (trans[i] + 1) // 2
                f = nic_corrupt.get(p.i)
                if f is not None:
                    v[N_CRC] += poisson(nz, f(tm) * (pkt_r_out[i] + pkt_s_out[i]))
                if trans[i] and upf[i] > 0:
                    v[N_CRC] += poisson(nz, 3.0)
                lk_dn = link_down_at(hp.link, t)
                v[N_LINK] = 0 if lk_dn else 1
                v[N_SPEED] = -1 if lk_dn else 400000
            for p in fb.switch_ports:                  # slow thermal response of the module to its load
                i = p.i
                load[i] += 0.1 * (min(1.0, (out_r[i] + out_s[i] + in_r[i] + in_s[i]) / (2 * p.cap)) - load[i])
            # DOM FEC accumulators (EOS)
            for sd in fb.spines:
                for o in sd.optics:
                    p = o.lane_ports[0]
                    if upf[p.i] <= 0:
                        continue
                    mod = dom_mod.get(id(o))
                    mm = mod(tm) if mod else None
                    ber = o.ber0 * (mm.get("ber", 1.0) if mm else 1.0)
                    o.fec_cb += int(ber * 800e9 * STEP * upf[p.i] * nz.lognormvariate(0, 0.05))
            # spine reboot: counters restart
            if reboot_spine.name not in rebooted and t >= Rb + 60:
                rebooted.add(reboot_spine.name)
                for p in reboot_spine.ports:
                    c = ifc[p.i]
                    for j in range(len(c)):
                        c[j] = 0
                    c[I_CT] = 1
                    eth[p.i] = [0] * 6
                    qc[p.i] = [[0, 0, 0, 0], [0, 0, 0, 0]]
                    pfc[p.i] = [0, 0]
                    p.optic.fec_cb = 0
                    p.optic.fec_unc = 0
        # ------------------------------------------------------------------ emit sample k
        # switches
        for d in fb.spines + fb.leaves:
            if absent(d, k):
                continue
            if k > 0 and nz.random() < 0.0015:          # missed sample (whole notification set)
                continue
            full = resync(d, k)
            if full and d is reboot_spine and k * STEP >= Rg:
                phase_shift[d.name] = rng.uniform(0.2, 9.6) - d.phase
            vend = d.vendor
            ts0 = dev_ts(d, k)
            src = f"source={d.name}"
            for j, p in enumerate(d.ports):
                ts = ts0 + (j * 41_000 if vend == "eos" else 0)
                tg = f"name={p.name},{src}"
                buf.append((ts, f"ifcounters,{tg} {fields_str(IFC_F, ifc[p.i])} {ts}\n"))
                sup((p.i, 0), ETH_F, eth[p.i], k, full, tg, "ifeth", ts + 1_000_000, buf, HB_SLOW)
                qn = Q_NAME[vend]
                for qi in (0, 1):
                    sup((p.i, 1 + qi), Q_F[vend], qc[p.i][qi], k, full,
                        f"interface_id={p.name},name={qn[qi]},{src}", "qos_queue", ts + 2_000_000, buf)
                if vend == "eos":
                    sup((p.i, 3), PFC_F[vend], pfc[p.i], k, full, f"name={p.name},priority=3,{src}", "eos_pfc",
                        ts + 3_000_000, buf)
                else:
                    sup((p.i, 3), PFC_F[vend], pfc[p.i], k, full, tg, "junos_pfc", ts + 3_000_000, buf)
                    adm = "DOWN" if admin_down_at(p, t) else "UP"
                    oper = "DOWN" if (adm == "DOWN" or link_down_at(p.link, t)) else "UP"
                    sup_str((p.i, 4), ("admin_status", "oper_status"), (adm, oper), k, full, tg, "ifstate",
                            ts + 4_000_000, buf)
                if vend == "eos" and full:
                    adm = "DOWN" if admin_down_at(p, t) else "UP"
                    oper = "DOWN" if (adm == "DOWN" or link_down_at(p.link, t)) else "UP"
                    buf.append((ts + 5_000_000, f'ifstate,{tg} admin_status="{adm}" {ts + 5_000_000}\n'))
                    buf.append((ts + 5_000_001, f'ifstate,{tg} oper_status="{oper}" {ts + 5_000_001}\n'))
            # EOS on-change events inside this step
            if vend == "eos" and k > 0:
                for tt, p, f, v in eos_events.get(k, ()):
                    if p.dev is d and not absent(d, k):
                        tse = int((T0_S + tt + d.skew) * 1e9)
                        buf.append((tse, f'ifstate,name={p.name},{src} {f}="{v}" {tse}\n'))
            # DOM every 60 s
            if k % 6 == d.dom_off and nz.random() > 0.003:
                tsd = dev_ts(d, k, d.dom_phase - d.phase)
                for o in d.optics:
                    mod = dom_mod.get(id(o))
                    mm = mod(t) if mod else None
                    p0 = o.lane_ports[0]
                    temp = (o.temp0 + nz.gauss(0, 0.15) + (mm.get("temp", 0.0) if mm else 0.0) +
                            2.2 * load[p0.i] + 0.7 * math.sin(2 * math.pi * t / 5400 + d.dom_phase))
                    alarm = "true" if temp >= 75 else "false"
                    buf.append((tsd, f"xcvr_temp,name={o.comp},{src} alarm_status={alarm},instant={gofloat(round(temp, 1))} {tsd}\n"))
                    if o.vendor == "eos":
                        ber = o.ber0 * nz.lognormvariate(0, 0.12) * (mm.get("ber", 1.0) if mm else 1.0)
                        if link_down_at(p0.link, t):
                            ber = 0.0
                        bs = float(f"{ber:.3g}")
                        buf.append((tsd + 1000, f"xcvr,name={o.comp},{src} fec_corrected_bits={o.fec_cb}i,"
                                                f"fec_uncorrectable_blocks={o.fec_unc}i,pre_fec_ber/instant={gofloat(bs)} {tsd + 1000}\n"))
                    for ln in range(8):
                        p = o.lane_ports[ln]
                        own_off = admin_down_at(p, t) or (p.dev is reboot_spine and Rb <= t < Rup)
                        peer = p.peer
                        if peer is None:
                            peer_off = False
                        elif peer.kind == "nic":
                            peer_off = (peer.node == storm_node and sw_reset <= t < host_up)
                        else:
                            peer_off = admin_down_at(peer, t) or (peer.dev is reboot_spine and Rb + 4 <= t < Rup)
                        if p is stuck and Mw1 <= t < (fix6 or D + 1):
                            peer_off = True
                        rx = o.rx0[ln] + nz.gauss(0, 0.04) + (mm["rx"][ln] if mm and "rx" in mm else 0.0)
                        tx = o.tx0[ln] + nz.gauss(0, 0.03) + (mm["tx"][ln] if mm and "tx" in mm else 0.0)
                        bias = o.bias0[ln] + nz.gauss(0, 0.2) + (mm["bias"][ln] if mm and "bias" in mm else 0.0)
                        if peer_off:
                            rx = -40.0
                        if own_off:
                            tx, bias = -40.0, 0.0
                        tsl = tsd + 2000 + ln
                        buf.append((tsl, f"xcvr_channel,index={o.lane0 + ln},name={o.comp},{src} "
                                         f"input_power/instant={gofloat(round(rx, 2))},"
                                         f"laser_bias_current/instant={gofloat(round(bias, 1))},"
                                         f"output_power/instant={gofloat(round(tx, 2))} {tsl}\n"))
        # hosts (ethtool every 30 s, host clocks PTP-disciplined, Telegraf precision 1 s)
        if k % 3 == 0:
            tsh = (T0_S + t) * NS
            for p in fb.nic_ports:
                if host_down_k[0] <= k < host_down_k[1] + 1 and p.node == storm_node:
                    continue
                v = nic[p.i]
                buf.append((tsh, f"ethtool,driver=mlx5_core,host={p.dev.name},interface={p.name} "
                                 f"{fields_str(NIC_F, v)} {tsh}\n"))
        buf.sort(key=lambda x: x[0])
        lines = [x[1] for x in buf]
        # collector restart: replay the last two samples' gNMI lines first
        if k > 0 and (CR <= (k - 1) * STEP < CR + CR_gap) and not (CR <= t < CR + CR_gap):
            rep = [ln for kk, ls in gnmi_recent[-2:] for ln in ls]
            fh.write("".join(rep))
            n_lines += len(rep)
            for d in fb.spines + fb.leaves:
                phase_shift[d.name] = rng.uniform(0.2, 9.6) - d.phase
        if not (CR <= t < CR + CR_gap):
            gl = [ln for ln in lines if not ln.startswith("ethtool")]
            gnmi_recent.append((k, gl))
            if len(gnmi_recent) > 3:
                gnmi_recent.pop(0)
        fh.write("".join(lines))
        n_lines += len(lines)
    fh.close()

    # ------------------------------------------------------------------ labels
    for f in faults:
        assert f["start_ns"] >= tns(tu), f
    labels = {
        "scenario": SCENARIO, "scale": args.scale, "seed": seed, "fabric": "roce",
        "interval_s": INTERVAL_S, "sample_s": STEP,
        "t0_ns": tns(0), "t_end_ns": tns(D), "train_until_ns": tns(tu),
        "fit_first": f"{tu // 60}m" if tu % 60 == 0 else f"{tu}s",
        "ports": P, "switch_ports": len(fb.switch_ports), "nic_ports": len(fb.nic_ports), "lines": n_lines,
        "measurements": ["ifcounters", "ifeth", "ifstate", "qos_queue", "eos_pfc", "junos_pfc", "xcvr_temp", "xcvr",
                         "xcvr_channel", "ethtool"],
        "faults": sorted(faults, key=lambda f: f["start_ns"]),
        "healthy_phenomena": sorted(healthy, key=lambda h: h["start_ns"]),
    }
    with open(os.path.join(args.outdir, "labels.json"), "w") as f:
        json.dump(labels, f, indent=1)
    print(f"{SCENARIO} seed {seed}: {P} ports ({len(fb.switch_ports)} switch, {len(fb.nic_ports)} NIC), "
          f"{hours:g} h, {N + 1} samples, {n_lines:,} lines, {len(faults)} faults, fit-first {labels['fit_first']} "
          f"-> {args.outdir} in {time.time() - wall:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
