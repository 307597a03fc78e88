# ruff: noqa
"""NOC DATA SHEET - hx1 GPU fabric (RoCEv2, lossless), raw monitoring feed
=========================================================================

Owner: DC network operations (NOC), hall C.  Audience: whoever runs dashboards, alerting or
offline analysis on the hx1 fabric counters.  This file regenerates an extract of the raw feed:

    python roce_ecn_misset_snmp.py OUTDIR [--seed N] [--hours 4.25] [--nodes-per-pod 8]

writes OUTDIR/port_counters.lp (InfluxDB line protocol, exactly as the collectors wrote it, sorted
by time) and OUTDIR/labels.json (the NOC review of the extract, in the format of the shared scenario
scorer; fit_first there is the reference period below).  Same seed -> same bytes.

1. Extract window
-----------------
2025-03-11 22:30:00 UTC (first poll round) to 02:45 UTC (4 h 15 min by default).  The first 80 min
(22:30-23:50) are the reference period we fit baselines on; it contains the normal job mix,
two checkpoints, an eval step, MoE hot experts, counter wraps and collector noise, but no planned
work.

2. Fabric
---------
RoCEv2, lossless class on priority 3: DSCP 26 -> prio 3 -> TC 3, PFC enabled on prio 3 only; CNPs
on DSCP 48 / prio 6 (lossy, strict).  DCQCN on every NIC.  WRED-ECN on TC 3 of every switch, site
standard Kmin 150 KB / Kmax 1.5 MB / Pmax 5 %, same values on both vendors.  PFC watchdog on the
leaves (drop action, 200 ms).  Routed L3 fabric, eBGP, ECMP with per-flow hashing on the UDP source
port.  Three tiers:

  pod 1   Arista DCS-7060DX5-64S (EOS 4.31.3M): leaves p1-leaf-r01, p1-leaf-r23, p1-leaf-r45,
          p1-leaf-r67; pod spines p1-spine-1..4
  pod 2   NVIDIA MSN4700 Spectrum-3 (Onyx 3.10.4206): p2-leaf-r01..r67, p2-spine-1..4
  core    super-spines ss-1..ss-4, MSN4700 (Onyx 3.10.4206)
  storage stor-leaf-1, stor-leaf-2: MSN3700 Spectrum-2 (Onyx 3.8.2306, older, 200G ports);
          storage servers stor01..stor04 (vendor appliance, dual 200G, one port to each storage
          leaf; no host telemetry from them)

GPU nodes: p1-gpu01..08 and p2-gpu01..08 (8 per pod by default), 8 x H100 and 8 x ConnectX-7
400GbE each, one NIC per GPU.  Rail r = GPU r = mlx5_r.  Leaves are rail-pair leaves: rails 2q and
2q+1 of every node in the pod land on p<pod>-leaf-r<2q><2q+1> (p1-gpu05 mlx5_3 -> p1-leaf-r23).
Traffic between the same rail of two nodes of a pod never leaves the leaf.

Port maps (front-panel, 400G unless noted):
  Arista leaf      Ethernet1/1-8/1   rail 2q,   nodes 01-08      Ethernet17/1-24/1  rail 2q+1, nodes 01-08
                   Ethernet49/1-56/1 uplinks, two per pod spine (49,50 -> spine-1; 51,52 -> spine-2 ...)
  Arista spine     Ethernet1/1-8/1   down, two per leaf (r01 first)   Ethernet33/1-36/1  up to ss-1..4
  Onyx pod-2 leaf  Eth1/1-1/8 rail 2q, Eth1/9-1/16 rail 2q+1, Eth1/25-1/32 uplinks (two per spine)
  Onyx pod-2 spine Eth1/1-1/8 down (two per leaf), Eth1/29-1/32 up to ss-1..4
  ss-N             Eth1/1-1/4 <- p1-spine-1..4, Eth1/9-1/12 <- p2-spine-1..4,
                   Eth1/31 <- stor-leaf-1, Eth1/32 <- stor-leaf-2 (both 200G)
  stor-leaf-N      Eth1/1-1/4 -> stor01..04 (200G), Eth1/29-1/32 -> ss-1..4 (200G)
Oversubscription 2:1 at the leaves (16 x 400G down, 8 up) and at the pod spines (8 down, 4 up).
The storage side is 8 x 200G in total, so a checkpoint from the whole training job is a
many-to-few incast by design.  (With --nodes-per-pod N the host ranges become 1..N and N+1..2N on
the Onyx leaves; the Arista odd-rail block stays at Ethernet17/1.)

3. Collectors and exact names
-----------------------------
3a. Switch interfaces - telegraf-snmp-a (all Arista) and telegraf-snmp-b (all NVIDIA), inputs.snmp,
SNMPv3, interval 30 s, round_interval, precision 1 s, timeout 5 s, 1 retry.  agent_host is dropped;
the device is the `source` tag (sysName).  Vendor PFC/queue rows are joined onto the ifTable row
with oid_index_suffix (prio 3 / TC 3 only), so there is ONE line per port per poll.  Only ports with
a description (ifAlias) are collected; spare ports are not.

  measurement snmp_if
  tags   source   device (sysName), e.g. p1-leaf-r23, ss-2
         ifName   port, e.g. Ethernet17/1 (Arista), Eth1/25 (Onyx)
         ifAlias  site description convention "<peer device>:<peer port>", e.g.
                  p1-gpu07:mlx5_3, p2-spine-1:Eth1/5, stor03:ens1f0np0
  fields (both vendors; Counter64 unless noted, cumulative as the agent reports them)
         ifHCInOctets, ifHCOutOctets      octets incl. L2 header and FCS
         ifHCInUcastPkts, ifHCOutUcastPkts
         ifInErrors                       Counter32 (FCS + alignment/giants)
         dot3StatsFCSErrors               EtherLike-MIB, Counter32; on 400G PAM4 links these are
                                          frames the RS-FEC could not correct
         ifInDiscards, ifOutDiscards      Counter32
         ifOperStatus, ifAdminStatus      1 up, 2 down (state at the poll)
         ifHighSpeed                      Mb/s, 400000 (200000 on the storage ports by design)
         ifLastChange                     TimeTicks (1/100 s) of sysUpTime at the last oper change
                                          (0 = before the agent started)
  Arista only (ARISTA-PFC-MIB / ARISTA-QUEUE-MIB)
         aristaPfcPriorityRequests        prio-3 PFC frames SENT by the switch out of this port
         aristaPfcPriorityIndications     prio-3 PFC frames RECEIVED on this port
         aristaEgressQueuePktsDropped     egress queue 3 (lossless) unicast drops: PFC-watchdog
                                          drops and flushes
  Onyx only (MELLANOX-QOS-MIB, mellanoxQoSPFCTable prio 3 / mellanoxQoSTCTable TC 3)
         mellanoxQoSPFCTxPausePkts        prio-3 pause frames SENT
         mellanoxQoSPFCRxPausePkts        prio-3 pause frames RECEIVED
         mellanoxQoSPFCRxPauseDuration    microseconds this port was held paused by received
                                          prio-3 pauses
         mellanoxQoSTCUnicastNoBufferDiscard  TC-3 unicast drops
  SN3700 storage leaves (Onyx 3.8): ifHCInUcastPkts/ifHCOutUcastPkts read 0 on this release
  (vendor case open), so their profile polls ifInUcastPkts / ifOutUcastPkts (Counter32) instead:
  they wrap at 2^32, roughly hourly at background load and faster during checkpoints.
  Not collected: ifOutErrors (always 0 on both platforms).  Neither EOS 4.31 nor Onyx exports an
  ECN-marked (CE) counter over SNMP - switch-side marking is CLI/gNMI only - so ECN is watched at
  the NICs (3c).

  measurement snmp_sys   tags source; field sysUpTime (TimeTicks since the SNMP agent started;
                         restarts after a reload).  Same timestamp as that device's snmp_if lines.

3b. Optics - telegraf-snmp-a, second inputs.snmp, ENTITY-SENSOR-MIB on the Arista switches only,
interval 300 s (the sensor walk is slow; timestamps 2-6 s after the round).  Onyx does not export
transceiver DOM over SNMP on our releases, so pod 2, the core and storage have no DOM here.  A
tagpass keeps the module temperature and the four Rx-power lanes.

  measurement snmp_dom
  tags   source; sensor = entPhysicalDescr, e.g. "DOM Temperature Sensor for Ethernet5/1",
         "DOM Rx Power Sensor for Ethernet5/1/3" (last component = lane 1-4);
         units = entPhySensorUnitsDisplay (Celsius | dBm)
  fields entPhySensorValue (integer), entPhySensorPrecision (decimal places: 452 with precision 1
         = 45.2 degC; -152 with precision 2 = -1.52 dBm).  Scale is units(9) everywhere.  No light
         reads -40.00 dBm.  Normal: modules 38-55 degC depending on load, Rx -3.0 to -0.3 dBm.

3c. Host NICs - nicmon (site exporter, every GPU node) reads `ethtool -S <netdev>` and
/sys/class/infiniband/mlx5_N/ports/1/hw_counters, plus carrier and speed from sysfs, and pushes to
the node-local Telegraf every 15 s (node clock, NTP; precision 1 s; lines at :00/:15/:30/:45 +0-1 s).

  measurement roce_nic
  tags   host (node, e.g. p2-gpu03), ibdev (mlx5_0..mlx5_7 = rail), netdev (enp24s0np0 ... )
  fields (cumulative since the driver was loaded, 64-bit)
         rx_bytes_phy, tx_bytes_phy, rx_packets_phy, tx_packets_phy   physical port
         rx_prio3_pause      prio-3 pause frames RECEIVED by the NIC (= sent by its leaf)
         tx_prio3_pause      prio-3 pause frames SENT by the NIC
         rx_crc_errors_phy   frames received with bad FCS
         rx_discards_phy     dropped for lack of receive buffer (lossy classes; a trickle is normal)
         link_down_events_phy
         np_ecn_marked_roce_packets  RoCE packets that ARRIVED with CE set: the marking the fabric
                             applied to traffic toward this NIC (leaf egress mostly)
         np_cnp_sent         CNPs this NIC sent back to the senders
         rp_cnp_handled      CNPs this NIC received and acted on as a sender (rate reductions)
         out_of_sequence     RoCE packets received out of sequence (a loss somewhere upstream)
         carrier             gauge 1/0
         speed               gauge, Mb/s; -1 while the link is down

4. Conventions
--------------
* A port is "<device>:<port>" everywhere (tickets, alerts, labels.json): switch = source:ifName
  (p1-leaf-r23:Ethernet17/1), NIC = host:ibdev (p1-gpu07:mlx5_3).  The leaf port facing a NIC has
  that name in its ifAlias; each cable has exactly two ends, both named in each other's ifAlias.
* Counters are raw and cumulative as the devices report them: compute rates yourself, per series,
  over the actual timestamp difference (polls are not exactly 30/15 s apart).  A decrease means a
  32-bit wrap (SN3700 packet counters only) or a reload (sysUpTime restarts at the same time).
* Switch counters start at large values (uptimes of months); NIC counters since the last reboot.
* Directions: "Requests"/"TxPause"/tx_prio3_pause = this end is asking its neighbour to stop;
  "Indications"/"RxPause"/rx_prio3_pause = this end is being stopped.

5. What normal looks like here
------------------------------
* llm-pretrain (p1-gpu01..06 + p2-gpu01..04, 80 GPUs): data parallel, rail-local rings,
  iteration ~16 s with ~7 s communication bursts at ~85 % of line rate, so 30-s averages of
  35-45 % on its host ports; 20-35 % of its bytes cross pods over the super-spines.  Eval step about
  hourly (collectives quiet for 2 min).  Checkpoint every ~40 min for 2-3 min: 80 NICs write to 8 x
  200G storage ports - storage ports saturated, pause frames on the storage leaves, super-spines,
  pod spines and leaves (10^3-10^4 frames/s per port), ECN/CNP on every writer.  Normal.
* moe-sft (p2-gpu05..08): all-to-all through the pod-2 spines with hot experts - single receivers
  run 1.4-2.2x for tens of seconds with ECN and PFC bursts on their leaf ports.  The evening job
  finishes around 00:40 and the next MoE job starts ~01:10 (checkpoint restore = read burst from
  storage, then NCCL warm-up).
* Dev nodes p1-gpu07/08: interactive jobs in the evening, idle at night; the nightly nccl-tests
  all_reduce_perf burn-in starts between 01:50 and 02:05 and runs ten minutes at ~95 % of line
  rate (their leaf ports congest meanwhile: ECN, CNP, PFC).
* All training nodes read their dataset from storage continuously (a few Gb/s per NIC).
* Typical rates during training: NIC rx_prio3_pause tens to a few hundred/s (thousands during a
  checkpoint); np_ecn_marked_roce_packets 10^4-10^5/s per NIC while the rings run; switch-to-switch
  PFC tens to hundreds/s.
* One llm-pretrain node has a known PCIe riser problem: its NIC pauses its leaf now and then under
  receive bursts (bounded, up to ~2k frames/s).  Ticket with the server vendor; not a network fault.
* ifInDiscards trickle of 0.01-0.25/s on about a third of the switch ports (LLDP, IPv6 ND,
  unknown multicast dropped at ingress).  Ignore.
* Single FEC-uncorrectable frames (dot3StatsFCSErrors / ifInErrors / rx_crc_errors_phy +1) a few
  times an hour on some healthy links.  Ignore unless they persist.
* Collection noise: SNMP answers land 0-2 s after the :00/:30 round, ~3 % of polls 3-9 s late,
  ~0.4 % of device-polls time out (every port of that switch missing for that round); Telegraf
  reloads after config pushes cost a vendor one round, occasionally a few minutes.  NIC lines are
  rarely missing.

6. Planned work inside the extract
----------------------------------
CHG-20250311-07, window 01:00-01:40 UTC:
  a) ss-2 Onyx upgrade with reload at ~01:06:30.  No SNMP answers from ss-2 for ~4.5 min, its links
     (and their far ends) down ~2 min, every ss-2 counter and sysUpTime restarts from ~0, a few FCS
     errors as the links train; ECMP carries on over ss-1/3/4.
  b) Optic cleaning on pod-1 leaf uplinks: three uplinks shut (ifAdminStatus 2) for ~20 min and
     re-enabled before the window closes; their siblings carry the share meanwhile.
Nothing else was planned.  Any other outage, bounce or module swap is either a fault or its repair.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

# ------------------------------------------------------------------------------------------------
# constants

T0 = 1741732200                 # 2025-03-11T22:30:00Z, first poll round of this extract
CELL = 5                        # model resolution in seconds (counters are interpolated between cells)
SW_POLL, NIC_POLL, DOM_POLL = 30, 15, 300
B400 = 50e9                     # bytes/s of a 400G port
FIT_MIN = 80                    # healthy learning window at the start
MW = (150 * 60, 190 * 60)       # change window CHG-20250311-07, 01:00-01:40 UTC
REBOOT_DEV = "ss-2"
KAPPA, BETA, ETA = 0.015, 2.0e-4, 0.5
NETDEVS = ["enp24s0np0", "enp40s0np0", "enp83s0np0", "enp99s0np0",
           "enp152s0np0", "enp170s0np0", "enp205s0np0", "enp222s0np0"]

ARISTA_FIELDS = [
    ("aristaEgressQueuePktsDropped", "q3drop", "c"), ("aristaPfcPriorityIndications", "pfc_rcvd", "c"),
    ("aristaPfcPriorityRequests", "pfc_sent", "c"), ("dot3StatsFCSErrors", "fcs", "c"),
    ("ifAdminStatus", "admin", "g"), ("ifHCInOctets", "oct_in", "c"), ("ifHCInUcastPkts", "pk_in", "c"),
    ("ifHCOutOctets", "oct_out", "c"), ("ifHCOutUcastPkts", "pk_out", "c"), ("ifHighSpeed", "speed", "g"),
    ("ifInDiscards", "in_disc", "c"), ("ifInErrors", "in_err", "c"), ("ifLastChange", "lastchange", "g"),
    ("ifOperStatus", "oper", "g"), ("ifOutDiscards", "out_disc", "c"),
]
ONYX_FIELDS = [
    ("dot3StatsFCSErrors", "fcs", "c"), ("ifAdminStatus", "admin", "g"), ("ifHCInOctets", "oct_in", "c"),
    ("ifHCInUcastPkts", "pk_in", "c"), ("ifHCOutOctets", "oct_out", "c"), ("ifHCOutUcastPkts", "pk_out", "c"),
    ("ifHighSpeed", "speed", "g"), ("ifInDiscards", "in_disc", "c"), ("ifInErrors", "in_err", "c"),
    ("ifLastChange", "lastchange", "g"), ("ifOperStatus", "oper", "g"), ("ifOutDiscards", "out_disc", "c"),
    ("mellanoxQoSPFCRxPauseDuration", "pause_dur", "c"),
    ("mellanoxQoSPFCRxPausePkts", "pfc_rcvd", "c"), ("mellanoxQoSPFCTxPausePkts", "pfc_sent", "c"),
    ("mellanoxQoSTCUnicastNoBufferDiscard", "q3drop", "c"),
]
# SN3700 storage leaves on Onyx 3.8: HC packet counters unusable, the profile polls the 32-bit ones
ONYX38_FIELDS = [(("ifInUcastPkts", "pk_in", "c32") if f == "ifHCInUcastPkts" else
                  ("ifOutUcastPkts", "pk_out", "c32") if f == "ifHCOutUcastPkts" else (f, s, k))
                 for f, s, k in ONYX_FIELDS]
ONYX38_FIELDS.sort()
NIC_FIELDS = [
    ("carrier", "carrier", "g"), ("link_down_events_phy", "ldown", "c"), ("np_cnp_sent", "cnp_sent", "c"),
    ("np_ecn_marked_roce_packets", "ecn_np", "c"), ("out_of_sequence", "oos", "c"),
    ("rp_cnp_handled", "cnp_hdl", "c"), ("rx_bytes_phy", "oct_in", "c"), ("rx_crc_errors_phy", "fcs", "c"),
    ("rx_discards_phy", "rx_disc", "c"), ("rx_packets_phy", "pk_in", "c"), ("rx_prio3_pause", "pfc_rcvd", "c"),
    ("speed", "nspeed", "g"), ("tx_bytes_phy", "oct_out", "c"), ("tx_packets_phy", "pk_out", "c"),
    ("tx_prio3_pause", "pfc_sent", "c"),
]
FIELDSETS = {"arista": ARISTA_FIELDS, "onyx": ONYX_FIELDS, "onyx38": ONYX38_FIELDS, "nic": NIC_FIELDS}
COUNTERS = ["oct_in", "oct_out", "pk_in", "pk_out", "fcs", "in_err", "out_err", "in_disc", "out_disc", "q3drop",
            "pfc_sent", "pfc_rcvd", "pause_dur", "ecn_np", "cnp_sent", "cnp_hdl", "oos", "rx_disc", "ldown"]
ROLE_CLASS = {"lh": 0, "lu": 1, "sd": 0, "su": 1, "xp": 0, "xs": 1, "td": 0, "tu": 1}


def g_press(b):
    """Egress queue pressure from burst utilisation: ~0 below 60 %, ~1 at line rate."""
    return 0.02 * b ** 3 + np.clip((b - 0.6) / 0.4, 0.0, None) ** 2.5


# ------------------------------------------------------------------------------------------------
# topology


class Topo:
    def __init__(self, npp):
        self.npp = npp
        self.cols = {k: [] for k in ("dev", "port", "role", "vendor", "capg", "pod", "leaf", "spine", "ss", "sl",
                                     "nic", "peer", "alias", "q", "k")}
        self.devs = {}
        self.dev_order = []
        self.hosts = []          # (name, pod, n)
        self.leaves, self.spines = [], []
        self.ssn = [f"ss-{t + 1}" for t in range(4)]
        self.sls = ["stor-leaf-1", "stor-leaf-2"]

    def add_dev(self, name, vendor, model, kind, pod, ip):
        self.devs[name] = dict(name=name, vendor=vendor, model=model, kind=kind, pod=pod, ip=ip, ports=[])
        self.dev_order.append(name)

    def add(self, dev, port, role, capg=400, pod=0, leaf=-1, spine=-1, ss=-1, sl=-1, nic=-1, alias="", q=-1, k=-1):
        i = len(self.cols["dev"])
        for key, v in (("dev", dev), ("port", port), ("role", role), ("vendor", self.devs[dev]["vendor"]),
                       ("capg", capg), ("pod", pod), ("leaf", leaf), ("spine", spine), ("ss", ss), ("sl", sl),
                       ("nic", nic), ("peer", -1), ("alias", alias), ("q", q), ("k", k)):
            self.cols[key].append(v)
        self.devs[dev]["ports"].append(i)
        return i

    def link(self, a, b):
        c = self.cols
        c["peer"][a], c["peer"][b] = b, a
        if not c["alias"][a]:
            c["alias"][a] = f"{c['dev'][b]}:{c['port'][b]}"
        if not c["alias"][b]:
            c["alias"][b] = f"{c['dev'][a]}:{c['port'][a]}"


def build_topology(npp):
    t = Topo(npp)
    arista = lambda n: f"Ethernet{n}/1"
    onyx = lambda n: f"Eth1/{n}"
    ipn = iter(range(11, 250))
    # devices
    for pod in (1, 2):
        vend = "arista" if pod == 1 else "onyx"
        model = "DCS-7060DX5-64S" if pod == 1 else "MSN4700"
        for q in range(4):
            nm = f"p{pod}-leaf-r{2 * q}{2 * q + 1}"
            t.add_dev(nm, vend, model, "leaf", pod, f"10.40.{pod}.{next(ipn)}")
            t.leaves.append(nm)
        for s in range(4):
            nm = f"p{pod}-spine-{s + 1}"
            t.add_dev(nm, vend, model, "spine", pod, f"10.40.{pod}.{next(ipn)}")
            t.spines.append(nm)
    for nm in t.ssn:
        t.add_dev(nm, "onyx", "MSN4700", "superspine", 0, f"10.40.0.{next(ipn)}")
    for nm in t.sls:
        t.add_dev(nm, "onyx38", "MSN3700", "storleaf", 0, f"10.40.0.{next(ipn)}")
    for pod in (1, 2):
        for n in range(1, npp + 1):
            nm = f"p{pod}-gpu{n:02d}"
            t.hosts.append((nm, pod, n))
            t.add_dev(nm, "nic", "8x ConnectX-7", "host", pod, "")
    # leaf ports
    leaf_host = {}
    leaf_up = {}
    for L, nm in enumerate(t.leaves):
        pod, q = (1 if L < 4 else 2), L % 4
        pn = arista if pod == 1 else onyx
        odd_off = 16 if pod == 1 else npp
        up0 = 49 if pod == 1 else 25
        for par in (0, 1):
            for n in range(1, npp + 1):
                leaf_host[(pod, n, 2 * q + par)] = t.add(nm, pn(n + par * odd_off), "lh", pod=pod, leaf=L, q=q)
        for s in range(4):
            for k in range(2):
                leaf_up[(L, s, k)] = t.add(nm, pn(up0 + 2 * s + k), "lu", pod=pod, leaf=L, spine=(pod - 1) * 4 + s,
                                           q=q, k=k)
    spine_up = {}
    for S, nm in enumerate(t.spines):
        pod, s = (1 if S < 4 else 2), S % 4
        pn = arista if pod == 1 else onyx
        for q in range(4):
            for k in range(2):
                L = (pod - 1) * 4 + q
                i = t.add(nm, pn(1 + 2 * q + k), "sd", pod=pod, leaf=L, spine=S, q=q, k=k)
                t.link(leaf_up[(L, s, k)], i)
        for tt in range(4):
            spine_up[(S, tt)] = t.add(nm, pn((33 if pod == 1 else 29) + tt), "su", pod=pod, spine=S, ss=tt)
    for tt, nm in enumerate(t.ssn):
        for S in range(8):
            pod = 1 if S < 4 else 2
            i = t.add(nm, onyx((1 if pod == 1 else 9) + S % 4), "xp", pod=pod, spine=S, ss=tt)
            t.link(spine_up[(S, tt)], i)
        for k in range(2):
            t.add(nm, onyx(31 + k), "xs", capg=200, ss=tt, sl=k)
    for k, nm in enumerate(t.sls):
        for m in range(4):
            t.add(nm, onyx(1 + m), "td", capg=200, sl=k, k=m, alias=f"stor{m + 1:02d}:ens1f{k}np{k}")
        for tt in range(4):
            i = t.add(nm, onyx(29 + tt), "tu", capg=200, ss=tt, sl=k)
            x = [j for j in t.devs[t.ssn[tt]]["ports"] if t.cols["role"][j] == "xs" and t.cols["sl"][j] == k][0]
            t.link(i, x)
    # NICs
    for h, (nm, pod, n) in enumerate(t.hosts):
        for r in range(8):
            i = t.add(nm, f"mlx5_{r}", "nic", pod=pod, leaf=(pod - 1) * 4 + r // 2, nic=h * 8 + r, q=r)
            t.link(i, leaf_host[(pod, n, r)])
            t.cols["alias"][i] = ""
    # finalize arrays
    c = t.cols
    t.P = len(c["dev"])
    for key in ("capg", "pod", "leaf", "spine", "ss", "sl", "nic", "peer", "q", "k"):
        setattr(t, key, np.array(c[key]))
    t.role = np.array(c["role"])
    t.vendor = np.array(c["vendor"])
    t.dev = c["dev"]
    t.port = c["port"]
    t.alias = c["alias"]
    t.is_nic = t.role == "nic"
    t.is_sw = ~t.is_nic
    t.NN = len(t.hosts) * 8
    t.nic_port = np.zeros(t.NN, int)
    t.nic_port[t.nic[t.is_nic]] = np.where(t.is_nic)[0]
    t.nic_leafport = t.peer[t.nic_port]
    t.index = {(d, p): i for i, (d, p) in enumerate(zip(t.dev, t.port))}
    t.dev_ports = {d: np.array(v["ports"]) for d, v in t.devs.items()}
    return t


# ------------------------------------------------------------------------------------------------
# simulation


class Site:
    def __init__(self, seed, hours, npp):
        self.seed = seed
        self.rng = np.random.default_rng([seed, 0x51E5C])
        self.t = build_topology(npp)
        self.D = int(round(hours * 3600 / 30)) * 30
        self.Dsim = self.D + 60
        self.C = self.Dsim // CELL
        self.cs = np.arange(self.C) * CELL                  # cell starts (s from T0)
        self.fit = FIT_MIN * 60
        t, C = self.t, self.C
        NN, P = t.NN, t.P
        z = lambda n: np.zeros((C, n))
        self.tx = {c: z(NN) for c in "LIXS"}
        self.rx = {c: z(NN) for c in "LIXS"}
        self.dout, self.din = z(NN), z(NN)
        self.hot = z(NN)
        self.npause = z(NN)            # pause frames/s sent by the NIC
        self.nic_mult = self.rng.normal(1.0, 0.025, NN)
        self.job_of = np.full(NN, -1)
        self.jobs = []
        self.spd = np.ones((C, P))     # negotiated speed as a fraction of nominal
        self.spd_events = {}           # port -> [(a, b, frac)]
        self.down = {}                 # port -> [(a, b)] oper down
        self.admin = {}                # port -> [(a, b)] admin down
        self.corrupt = z(P)            # fraction of received frames with bad FCS
        self.sporadic = np.zeros(P)    # isolated errors per hour
        self.ctrl_drop = np.zeros(P)   # ingress control-plane drops per second
        self.in_disc_extra = z(P)      # ingress discards as a fraction of received packets
        self.wd_drop = z(P)            # PFC watchdog drops/s on an egress queue
        self.press_extra = z(P)
        self.ecn_factor = np.ones((C, P))
        self.press_mult = np.ones((C, P))
        self.deadlock = []             # (spine dev, a, b)
        self.temp_extra = z(P)         # DOM temperature offset (degC)
        self.rxpwr_extra = np.zeros((C, P, 4))
        self.absent = []               # (device list, a, b) no SNMP answers
        self.reboots = []              # (dev, t_reload, t_agent)
        self.faults, self.healthy = [], []

    # -------------------------------------------------------------- helpers
    def frac(self, a, b):
        lo = np.maximum(self.cs, a)
        hi = np.minimum(self.cs + CELL, b)
        return np.clip((hi - lo) / CELL, 0.0, 1.0)

    def ns(self, s):
        return int((T0 + s) * 10 ** 9)

    def ln(self, sig, shape):
        return self.rng.lognormal(-sig * sig / 2, sig, shape)

    def hosts_of(self, pod, ns_):
        return [(pod - 1) * self.t.npp + n - 1 for n in ns_]

    def nics_of(self, hosts):
        return np.array([h * 8 + r for h in hosts for r in range(8)])

    def name(self, i):
        return f"{self.t.dev[i]}:{self.t.port[i]}"

    def healthy_event(self, kind, where, a, b, note, background=False):
        ev = dict(kind=kind, where=list(where), start_ns=self.ns(max(0, a)), end_ns=self.ns(min(b, self.D)), note=note)
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    def fault(self, kind, device, ports, a, b, signature, peer_ends=(), related=()):
        a = int(a // 30) * 30
        assert a >= self.fit, (kind, a)
        self.faults.append(dict(kind=kind, device=device, ports=list(ports), start_ns=self.ns(a),
                                end_ns=self.ns(min(int(b), self.D)),
                                peer_ends=[dict(device=self.t.dev[j], port=self.t.port[j]) for j in peer_ends],
                                related=list(related), signature=signature))

    def related_dev(self, dev):
        t = self.t
        rel = [dict(device=dev, ports=["*"])]
        for i in t.dev_ports[dev]:
            j = t.peer[i]
            if j >= 0:
                rel.append(dict(device=t.dev[j], ports=[t.port[j]]))
        return rel

    def stall_related(self, hosts):
        """A job stall is felt wherever the job's traffic ran: its hosts, their leaves, every spine tier."""
        t = self.t
        rel = [dict(device=t.hosts[h][0], ports=["*"]) for h in hosts]
        leaves = sorted({t.leaves[(t.hosts[h][1] - 1) * 4 + q] for h in hosts for q in range(4)})
        rel += [dict(device=d, ports=["*"]) for d in leaves + t.spines + t.ssn]
        return rel

    def repair(self, i, a, down_s, what):
        """Remediation right after a fault (call after self.fault): the link is bounced or the module
        swapped; the fault window is extended to the moment the link is back in service."""
        if a >= self.D - 30:
            return
        self.link_down(i, a + 20, a + 20 + down_s)
        self.extend_last(a + 20 + down_s + 30, what)

    def extend_last(self, until, what):
        f = self.faults[-1]
        end = min(self.D, int(-(-until // 30) * 30))
        f["end_ns"] = max(f["end_ns"], self.ns(end))
        f["signature"] += f"; ends with the repair ({what})"

    def link_down(self, i, a, b, both=True):
        self.down.setdefault(int(i), []).append((a, b))
        j = self.t.peer[i]
        if both and j >= 0:
            self.down.setdefault(int(j), []).append((a, b))

    def admin_down(self, i, a, b):
        self.admin.setdefault(int(i), []).append((a, b))
        self.link_down(i, a, b)

    def set_speed(self, i, a, b, f):
        for j in (i, self.t.peer[i]):
            if j < 0:
                continue
            m = (self.cs >= a) & (self.cs < b)
            self.spd[m, j] = f
            self.spd_events.setdefault(int(j), []).append((a, b, f))

    # -------------------------------------------------------------- workload
    def wave(self, start, end, peak, period, comm, off=(), caps=(), warm=60, idle=0.012, alltoall=False):
        rng = self.rng
        u = np.zeros(self.Dsim)
        start, end = max(0, int(start)), min(self.Dsim, int(end))
        if end <= start:
            return u
        w = min(start + warm, end)
        u[start:w] = 0.02 + 0.1 * rng.random(w - start)
        tt = float(w)
        while tt < end:
            cap = 1.0
            for a, b, cval in caps:
                if a <= tt < b:
                    cap = min(cap, cval)
            comp = period * (1 - comm) * rng.normal(1, 0.05)
            lvl = peak * rng.normal(1, 0.04)
            eff = min(lvl, cap)
            cd = period * comm * rng.normal(1, 0.05) * (lvl / eff)
            a0, a1, a2 = int(tt), int(tt + comp), int(tt + comp + cd)
            u[a0:a1] = idle
            n2 = max(0, min(a2, len(u)) - a1)
            u[a1:a1 + n2] = eff * (rng.uniform(0.65, 1.0, n2) if alltoall else 1.0)
            tt += comp + cd
        u[end:] = 0.0
        for a, b, lvl in off:
            a, b = max(int(a), start), min(int(b), end)
            if b > a:
                u[a:b] = lvl
        return u

    def cells(self, u, thr=0.04):
        x = u[: self.C * CELL].reshape(self.C, CELL)
        m = x.mean(1)
        d = (x > thr).mean(1)
        d = np.where(d > 0.02, d, 1.0)
        return m, d

    def add_job(self, jid, nics, m, d, cat_tx, cat_rx=None, rx_mult=None):
        cat_rx = cat_tx if cat_rx is None else cat_rx
        for k in nics:
            mu = self.nic_mult[k]
            x = np.minimum(m * mu, 0.97 * d)
            y = np.minimum(m * mu * self.rng.normal(1, 0.01) * (1 if rx_mult is None else rx_mult[:, k]), 0.99 * d)
            for c in "LIXS":
                self.tx[c][:, k] += x * cat_tx[c][k] if isinstance(cat_tx[c], np.ndarray) else x * cat_tx[c]
                self.rx[c][:, k] += y * cat_rx[c][k] if isinstance(cat_rx[c], np.ndarray) else y * cat_rx[c]
            self.dout[:, k] += x * d
            self.din[:, k] += y * d
            if jid is not None:
                self.job_of[k] = jid

    # -------------------------------------------------------------- scenario
    def scenario(self):
        t, rng, D = self.t, self.rng, self.D
        npp = t.npp
        m = lambda x: int(round(x * 60 / 30)) * 30
        J1 = self.hosts_of(1, range(1, npp - 1)) + self.hosts_of(2, range(1, npp // 2 + 1))
        J2 = self.hosts_of(2, range(npp // 2 + 1, npp + 1))
        J3 = self.hosts_of(1, range(npp - 1, npp + 1))
        n1, n2 = [h for h in J1 if t.hosts[h][1] == 1], [h for h in J1 if t.hosts[h][1] == 2]
        self.J = {1: J1, 2: J2, 3: J3}
        j1n, j2n, j3n = self.nics_of(J1), self.nics_of(J2), self.nics_of(J3)
        self.jobs = [(1, j1n), (2, j2n), (3, j3n)]
        self.job_of[j1n], self.job_of[j2n], self.job_of[j3n] = 1, 2, 3

        # ---------------- faults: timeline and places first, the workload reacts to them
        kinds = ["ecn_misset_switch", "pfc_storm", "dirty_optic", "flapping_link", "optic_overheating",
                 "half_speed_link", "pfc_deadlock", "ingress_discards"]
        order = list(rng.permutation(len(kinds)))
        lo, hi = self.fit + m(6), D - m(28)
        slots = np.linspace(lo, hi, len(kinds))
        start = {}
        for s_i, k_i in enumerate(order):
            st = slots[s_i] + rng.uniform(-4, 4) * 60
            kind = kinds[k_i]
            if kind == "optic_overheating":    # slow: needs its hour of heating before the errors
                st = min(st, D - m(95))
            st = max(self.fit + 300, min(st, D - 20 * 60))
            # keep the abrupt congestion faults away from the reboot, so each has its own story
            if kind in ("pfc_deadlock", "pfc_storm") and MW[0] - 600 < st < MW[1]:
                st = MW[1] + rng.uniform(2, 10) * 60
            start[kind] = int(st // 30) * 30
        dur = {"ecn_misset_switch": m(rng.uniform(50, 85)), "pfc_storm": m(rng.uniform(6, 13)),
               "dirty_optic": m(rng.uniform(60, 110)), "flapping_link": m(rng.uniform(14, 26)),
               "optic_overheating": m(rng.uniform(88, 100)), "half_speed_link": m(rng.uniform(30, 60)),
               "pfc_deadlock": m(rng.uniform(5, 11)), "ingress_discards": m(rng.uniform(40, 80))}
        end = {k: min(D, start[k] + dur[k]) for k in kinds}
        self.f_start, self.f_end = start, end

        L_ecn = int(rng.integers(8))
        nic_leaf = lambda k: int(t.leaf[t.nic_port[k]])
        cand = [h * 8 + r for h in J1 + J2 for r in range(8) if nic_leaf(h * 8 + r) != L_ecn]
        storm_nic = int(rng.choice(cand))
        storm_host = storm_nic // 8
        cand = [k for k in cand if k // 8 != storm_host and nic_leaf(k) != nic_leaf(storm_nic)]
        hs_nic = int(rng.choice(cand))
        hs_host = hs_nic // 8
        S_dead = int(rng.integers(4)) + (0 if L_ecn >= 4 else 4)      # the other pod
        self.fsel = dict(L_ecn=L_ecn, storm_nic=storm_nic, S_dead=S_dead, hs_nic=hs_nic)

        # job-level consequences of faults: stalls and caps
        j1_off, j2_off, j1_caps, j2_caps = [], [], [], []
        sj = self.job_of[storm_nic]
        (j1_off if sj == 1 else j2_off).append((start["pfc_storm"] + 2, end["pfc_storm"] + 20, 0.006))
        j1_off.append((start["pfc_deadlock"] + 3, end["pfc_deadlock"] + 10, 0.02))
        if S_dead >= 4:
            j2_off.append((start["pfc_deadlock"] + 3, end["pfc_deadlock"] + 10, 0.02))
        hj = self.job_of[hs_nic]
        (j1_caps if hj == 1 else j2_caps).append((start["half_speed_link"] + 15, end["half_speed_link"], 0.47))

        # ---------------- J1: llm-pretrain, data parallel over both pods, rail-local rings
        ck = []
        tck = m(rng.uniform(18, 27))
        while tck < self.Dsim - 200:
            ck.append((tck, tck + int(rng.uniform(110, 170))))
            tck += m(rng.uniform(37, 44))
        evals = [(m(x), m(x) + 120) for x in (rng.uniform(44, 54), rng.uniform(118, 128), rng.uniform(236, 246))
                 if m(x) + 200 < D]
        off1 = [(a, b, 0.01) for a, b in ck] + [(a, b, 0.018) for a, b in evals] + j1_off
        u1 = self.wave(-300, self.Dsim, 0.86, 16.0, 0.45, off=off1, caps=j1_caps, warm=0)
        mm1, d1 = self.cells(u1)
        fx = {1: 0.35 * min(len(n1), len(n2)) / len(n1), 2: 0.35 * min(len(n1), len(n2)) / len(n2)}
        cat = {"I": 0.04, "S": 0.0}
        cat["X"] = np.zeros(t.NN)
        for h in J1:
            cat["X"][h * 8:(h + 1) * 8] = fx[t.hosts[h][1]]
        cat["L"] = 1.0 - 0.04 - cat["X"]
        self.add_job(1, j1n, mm1, d1, cat)
        for a, b in ck:
            f = self.frac(a, b)
            for k in j1n:
                self.tx["S"][:, k] += 0.55 * f * self.nic_mult[k]
        for a, b in ck:
            self.healthy_event("checkpoint_burst", self.where_job(J1) + self.where_fabric(), a, b + 90,
                               "llm-pretrain writes its checkpoint to the storage servers: many-to-few, storage "
                               "ports saturated, ECN/CNP on every writer, PFC from the storage leaves back through "
                               "super-spines, pod spines and leaves to the NICs")
        for a, b in evals:
            self.healthy_event("job_pause", self.where_job(J1), a, b + 60,
                               "llm-pretrain runs its eval step: collectives stop for two minutes")

        # dataset reads from storage: all training nodes, steady
        for k in np.concatenate([j1n, j2n]):
            self.rx["S"][:, k] += rng.uniform(0.004, 0.009) * self.ln(0.3, self.C)
            self.din[:, k] += self.rx["S"][:, k]

        # ---------------- J2: MoE fine-tune in pod 2 (all-to-all, hot experts), ends, a new one starts
        j2_end = m(rng.uniform(128, 138))
        j2b = m(rng.uniform(158, 166))
        off2 = [(m(100), m(100) + 60, 0.01)] + j2_off
        u2 = self.wave(-300, j2_end, 0.62, 7.0, 0.5, off=off2, caps=j2_caps, warm=0, alltoall=True)
        u2 += self.wave(j2b + 180, self.Dsim, 0.64, 7.5, 0.5, off=j2_off, caps=j2_caps, warm=90, alltoall=True)
        mm2, d2 = self.cells(u2)
        hot_rx = np.ones((self.C, t.NN))
        active = mm2 > 0.05
        for k in j2n:
            st_, c = False, 0
            for c in range(self.C):
                if rng.random() < (0.012 if not st_ else 0.08):
                    st_ = not st_
                if st_ and active[c]:
                    hot_rx[c, k] = rng.uniform(1.4, 2.2)
                    self.hot[c, k] += rng.lognormal(-0.7, 0.5)
            self.hot[:, k] += active * rng.lognormal(-2.4, 0.9, self.C)
        self.add_job(2, j2n, mm2, d2, {"L": 0.32, "I": 0.68, "X": 0.0, "S": 0.0}, rx_mult=hot_rx)
        f = self.frac(m(100), m(100) + 60)
        for k in j2n:
            self.tx["S"][:, k] += 0.3 * f
        f = self.frac(j2b, j2b + 170)
        for k in j2n:
            self.rx["S"][:, k] += 0.28 * f * self.ln(0.1, self.C)
            self.din[:, k] += 0.28 * f
        wj2 = self.where_job(J2)
        self.healthy_event("moe_hot_experts", wj2, 0, j2_end + 120,
                           "MoE all-to-all: transient hot experts, a few receivers at 1.4-2.2x for tens of seconds, "
                           "ECN and PFC on their leaf ports come and go")
        self.healthy_event("moe_hot_experts", wj2, j2b + 180, D,
                           "new MoE job: same all-to-all pattern with hot experts")
        self.healthy_event("job_stop", wj2, j2_end, j2_end + 300, "moe-sft-a finishes, its nodes go idle")
        self.healthy_event("job_start", wj2 + self.where_fabric(), j2b, j2b + 480,
                           "moe-sft-b starts: restores its checkpoint from storage (read burst), NCCL warm-up")
        self.healthy_event("checkpoint_burst", wj2 + self.where_fabric(), m(100), m(100) + 150,
                           "moe-sft-a saves a small checkpoint")

        # ---------------- J3: interactive/dev sessions in the evening, quiet night, nccl-tests burn-in
        u3 = np.zeros(self.Dsim)
        tt = m(rng.uniform(2, 8))
        while tt < m(105):
            ln_ = m(rng.uniform(6, 16))
            u3 += self.wave(tt, tt + ln_, rng.uniform(0.2, 0.5), rng.uniform(4, 10), 0.4, warm=20)
            self.healthy_event("job_start", self.where_job(J3), tt, tt + 240, "short interactive dev job")
            self.healthy_event("job_stop", self.where_job(J3), tt + ln_, tt + ln_ + 240, "dev job ends")
            tt += ln_ + m(rng.uniform(4, 14))
        nt = m(rng.uniform(200, 215))
        u3 += self.wave(nt, nt + 600, 0.95, 4.0, 0.8, warm=10)
        self.nccl_tests = (nt, nt + 600)
        self.healthy_event("nccl_tests_burn_in", self.where_job(J3), nt, nt + 720,
                           "all_reduce_perf sweep at ~95 % of line rate on two nodes: their leaf ports congest "
                           "(ECN/CNP, PFC) for ten minutes")
        mm3, d3 = self.cells(u3, thr=0.04)
        self.add_job(3, j3n, mm3, d3, {"L": 1.0, "I": 0.0, "X": 0.0, "S": 0.0})
        self.healthy_event("quiet_night", self.where_job(J3), m(110), nt, "dev nodes idle overnight")

        # light background on every NIC: monitoring, ssh, image pulls (lossy class)
        for k in range(t.NN):
            b = rng.uniform(0.0003, 0.002) * self.ln(0.3, self.C)
            self.tx["I"][:, k] += b
            self.rx["I"][:, k] += b * rng.uniform(0.8, 1.2)
            self.din[:, k] += b
            self.dout[:, k] += b

        # slow receiver (healthy, bounded): a host whose NIC sits behind a PCIe switch with a slow riser
        sr_host = int(rng.choice([h for h in J1 if h != storm_host and h != hs_host]))
        sr_nic = sr_host * 8 + int(rng.integers(8))
        on = np.zeros(self.C, bool)
        st_ = False
        for c in range(self.C):
            if rng.random() < (0.03 if not st_ else 0.12):
                st_ = not st_
            on[c] = st_
        self.sr = (sr_nic, on)
        self.healthy_event("slow_receiver_pfc", [f"{t.hosts[sr_host][0]}:mlx5_{sr_nic % 8}",
                                                 self.name(t.nic_leafport[sr_nic])], 0, D,
                           "host NIC pauses its leaf now and then under receive bursts (bounded, a few hundred "
                           "to ~2k frames/s), known PCIe riser issue, ticket open with the server vendor")

        # ---------------- maintenance window: ss-2 upgrade with reboot, optic cleaning on pod-1 uplinks
        tr = MW[0] + 390
        ports_up = tr + int(rng.uniform(118, 135))
        agent = tr + int(rng.uniform(255, 280))
        self.reboot(REBOOT_DEV, tr, ports_up, agent)
        ssp = t.dev_ports[REBOOT_DEV]
        self.healthy_event("switch_reboot", [f"{REBOOT_DEV}:*"] + [self.name(t.peer[i]) for i in ssp], tr, agent + 90,
                           "planned: ss-2 reloads for the Onyx upgrade inside the change window. No SNMP for ~4.5 "
                           "min, its links (and their far ends) down ~2 min, every ss-2 counter restarts near 0, "
                           "sysUpTime restarts, a few FCS errors as links train; ECMP moves traffic to ss-1/3/4")
        busy_leaves = {self.fsel["L_ecn"], nic_leaf(storm_nic), nic_leaf(hs_nic)}
        p1_up = [i for i in range(t.P) if t.role[i] == "lu" and t.pod[i] == 1 and t.leaf[i] not in busy_leaves
                 and t.spine[i] != S_dead]
        ad = [int(x) for x in rng.choice(p1_up, 3, replace=False)]
        left = ad[int(rng.integers(3))]
        restored = []
        for n_, i in enumerate(ad):
            a = MW[0] + 150 + n_ * int(rng.uniform(40, 90))
            b = MW[1] - 420 + n_ * int(rng.uniform(30, 70))
            restored.append(b)
            if i == left:
                self.admin_down(i, a, self.Dsim + 10)
            else:
                self.admin_down(i, a, b)
        self.healthy_event("planned_admin_down",
                           [self.name(i) for i in ad] + [self.name(t.peer[i]) for i in ad], MW[0] + 150,
                           max(restored) + 120,
                           "planned: three pod-1 leaf uplinks shut (ifAdminStatus 2) for optic cleaning and "
                           "restored; ECMP moves their share to the siblings")
        self.healthy_event("maintenance_window", [f"{REBOOT_DEV}:*"] + [self.name(i) for i in ad], MW[0], MW[1],
                           "change window CHG-20250311-07 (01:00-01:40 UTC)")
        ls = int(-(-max(restored) // 30) * 30)
        self.fault("link_left_down", t.dev[left], [t.port[left]], ls, D,
                   "leaf uplink still admin down (ifAdminStatus 2, ifOperStatus 2) after the change window closed "
                   "and its sibling uplinks were restored; far end admin up, oper down, DOM Rx power -40 dBm; "
                   "the leaf runs on 7 of 8 uplinks", peer_ends=[t.peer[left]])

        # ---------------- collector phenomena
        onyx_devs = [d for d in t.dev_order if t.devs[d]["vendor"] in ("onyx", "onyx38")]
        arista_devs = [d for d in t.dev_order if t.devs[d]["vendor"] == "arista"]
        g0 = m(rng.uniform(200, 235)) + 10
        self.absent.append((onyx_devs, g0, g0 + 180))
        self.healthy_event("collector_gap", [f"{d}:*" for d in onyx_devs], g0, g0 + 240,
                           "telegraf-snmp-b restarted after a config push: no lines from any NVIDIA switch for 3 "
                           "minutes; counters kept counting, the first poll after covers the gap")
        g1 = m(rng.uniform(30, 70)) + 10
        self.absent.append((arista_devs, g1, g1 + 30))
        self.healthy_event("collector_gap", [f"{d}:*" for d in arista_devs], g1, g1 + 90,
                           "telegraf-snmp-a reloaded: one poll round of the Arista switches missing")
        self.healthy_event("poll_jitter", ["*"], 0, D,
                           "SNMP answers 0-2 s after the round, ~3 % of polls 3-9 s late, ~0.4 % of device-polls "
                           "time out (whole device missing for that round)", background=True)

        # ---------------- background error and discard trickles
        sw = np.where(t.is_sw)[0]
        self.ctrl_drop[sw] = np.where(rng.random(len(sw)) < 0.3, rng.uniform(0.01, 0.25, len(sw)), 0.0)
        self.healthy_event("ingress_control_drops", [self.name(i) for i in sw if self.ctrl_drop[i] > 0], 0, D,
                           "ifInDiscards trickle 0.01-0.25/s (LLDP/IPv6 ND/unknown multicast dropped at ingress)",
                           background=True)
        self.healthy_event("counter_wrap_32bit", [f"{d}:*" for d in t.sls], 0, D,
                           "SN3700 storage leaves: ifInUcastPkts/ifOutUcastPkts are Counter32 and wrap every "
                           "~10 min to a few hours depending on load", background=True)
        self.healthy_event("storage_200g_ports", [f"{d}:*" for d in t.sls] +
                           [self.name(i) for i in range(t.P) if t.role[i] == "xs"], 0, D,
                           "storage leaves and their super-spine ports run at 200G by design (ifHighSpeed 200000)",
                           background=True)

        # ---------------- the faults
        self.inject_faults(start, end, L_ecn, storm_nic, S_dead, hs_nic, ad)
        # sporadic errors on healthy links, chosen after the faults
        busy = self.fault_ports()
        cand = [i for i in range(t.P) if i not in busy and t.role[i] in ("lh", "lu", "sd", "su", "xp", "nic")]
        pick = rng.choice(cand, 14, replace=False)
        self.sporadic[pick] = rng.uniform(0.5, 3.0, len(pick))
        self.healthy_event("sporadic_fcs", [self.name(i) for i in pick], 0, D,
                           "isolated FCS / FEC-uncorrectable frames, one to a few per hour", background=True)

    def where_job(self, hosts):
        t = self.t
        w = [f"{t.hosts[h][0]}:*" for h in hosts]
        leaves = sorted({t.leaves[(t.hosts[h][1] - 1) * 4 + q] for h in hosts for q in range(4)})
        return w + [f"{lf}:*" for lf in leaves]

    def where_fabric(self):
        t = self.t
        return [f"{d}:*" for d in t.spines + t.ssn + t.sls]

    def fault_ports(self):
        t, out = self.t, set()
        for f in self.faults:
            ps = t.dev_ports[f["device"]] if f["ports"] == ["*"] else [t.index[(f["device"], p)] for p in f["ports"]]
            out.update(int(i) for i in ps)
            for e in f["peer_ends"]:
                out.add(t.index[(e["device"], e["port"])])
        return out

    def reboot(self, dev, tr, ports_up, agent):
        t = self.t
        for i in t.dev_ports[dev]:
            up = ports_up + self.rng.uniform(0, 20)
            self.link_down(i, tr + self.rng.uniform(0, 2), up)
        self.absent.append(([dev], tr, agent))
        self.reboots.append((dev, tr, agent))

    def inject_faults(self, start, end, L_ecn, storm_nic, S_dead, hs_nic, ad):
        t, rng = self.t, self.rng
        used = {t.dev[i] for i in ad if self.admin.get(int(i), [(0, 0)])[0][1] > self.D}   # the leaf left down

        def choose(cands):
            """A port for the next fault: neither end shared with an earlier fault or the planned work;
            prefer links whose two devices carry no other fault."""
            taken = self.fault_ports() | {int(x) for x in ad} | {int(t.peer[x]) for x in ad}
            taken |= {int(t.nic_port[k]) for k in (storm_nic, hs_nic)} | {int(t.nic_leafport[k]) for k in (storm_nic, hs_nic)}
            free = [i for i in cands if i not in taken and t.peer[i] not in taken]
            strict = [i for i in free if t.dev[i] not in used and (t.peer[i] < 0 or t.dev[t.peer[i]] not in used)]
            return int(rng.choice(strict or free))

        # 1. ECN thresholds mis-set on a whole leaf (abrupt config push; shows under congestion only)
        a, b = start["ecn_misset_switch"], end["ecn_misset_switch"]
        dev = t.leaves[L_ecn]
        ports = t.dev_ports[dev]
        msk = (self.cs >= a) & (self.cs < b)
        self.ecn_factor[np.ix_(msk, ports)] = rng.uniform(0.03, 0.07)
        self.press_mult[np.ix_(msk, ports)] = rng.uniform(2.6, 3.4)
        hosts_here = sorted({t.dev[t.peer[i]] for i in ports if t.role[i] == "lh"})
        self.fault("ecn_misset_switch", dev, ["*"], a, b,
                   "ECN min/max thresholds pushed far too high on every queue of the leaf: CE marks (seen at the "
                   "receiving NICs as np_ecn_marked_roce_packets / np_cnp_sent, and rp_cnp_handled at the senders) "
                   "drop to a few % of what the sibling leaves carrying the same job produce, while its queues "
                   "reach XOFF: PFC pause frames sent by the leaf (to its hosts' rx_prio3_pause and to the pod "
                   "spines) rise several-fold under the same load",
                   peer_ends=[t.peer[i] for i in ports if t.peer[i] >= 0],
                   related=self.related_dev(dev) + [dict(device=h, ports=["*"]) for h in hosts_here])
        used.add(dev)

        # 2. NIC stuck sending pause frames
        a, b = start["pfc_storm"], end["pfc_storm"]
        i = t.nic_port[storm_nic]
        lp = t.peer[i]
        f = self.frac(a, b)
        self.npause[:, storm_nic] += f * rng.uniform(22000, 60000) * self.ln(0.08, self.C)
        first = self.frac(a, a + 60)
        self.press_extra[:, lp] += 4.0 * first + 0.4 * np.clip(f - first, 0, None)
        self.wd_drop[:, lp] += np.clip(f - first, 0, None) * rng.uniform(2500, 8000)
        L = t.leaf[lp]
        self.fault("pfc_storm", t.dev[i], [t.port[i]], a, b,
                   "host NIC stuck in its receive path sends priority-3 pause frames without end: tx_prio3_pause "
                   "tens of thousands/s on the NIC, the same on the leaf port (aristaPfcPriorityIndications / "
                   "mellanoxQoSPFCRxPausePkts), transmit toward the host ~0, leaf PFC-watchdog drops on that "
                   "queue (ifOutDiscards and the lossless-queue drop counter); pauses spread from the leaf for the "
                   "first minute; the job on that host stalls", peer_ends=[lp],
                   related=self.related_dev(t.leaves[L]) + self.stall_related(self.J[int(self.job_of[storm_nic])]))
        self.repair(i, b, rng.uniform(5, 10), "NIC reset by the on-call engineer (mlxfwreset): link bounce")
        used.update({t.dev[i], t.dev[lp]})

        # 3. PFC deadlock on a pod spine
        a, b = start["pfc_deadlock"], end["pfc_deadlock"]
        sdev = t.spines[S_dead]
        self.deadlock.append((S_dead, a, b))
        pod = 1 if S_dead < 4 else 2
        stalled = self.J[1] + (self.J[2] if pod == 2 else [])
        rel = self.related_dev(sdev) + self.stall_related(stalled)
        rel += [dict(device=lf, ports=["*"]) for lf in t.leaves[(pod - 1) * 4: pod * 4]]
        self.fault("pfc_deadlock", sdev, ["*"], a, b,
                   "credit-loop / PFC deadlock on a pod spine: every port of the spine sends pause frames "
                   "continuously and most receive them (paused a large share of each second), throughput on all "
                   "its ports collapses to a few %, the jobs crossing it stall; watchdog flush drops when it clears",
                   peer_ends=[t.peer[i] for i in t.dev_ports[sdev] if t.peer[i] >= 0], related=rel)
        used.add(sdev)

        used.update({t.dev[t.nic_port[hs_nic]], t.dev[t.nic_leafport[hs_nic]]})

        # 4. link flapping (leaf uplink or host link)
        a, b = start["flapping_link"], end["flapping_link"]
        i = choose([i for i in range(t.P) if t.role[i] in ("lu", "lh")])
        times = self.flap_bursts(i, a, b, int(rng.integers(2, 4)))
        a0 = int(min(times) // 30) * 30
        self.fault("flapping_link", t.dev[i], [t.port[i]], a0, b,
                   "link bouncing in bursts (2-25 s down, seconds to a minute apart): ifOperStatus 2 when a poll "
                   "lands in a down, ifLastChange moving on both ends, traffic gaps and ECMP shifts, FCS at each "
                   "link-up, link_down_events_phy on a host NIC", peer_ends=[t.peer[i]])
        used.add(t.dev[i])
        flap_port = i

        # 5. dirty optic (errors proportional to the frames received)
        a, b = start["dirty_optic"], end["dirty_optic"]
        i = choose([i for i in range(t.P) if t.role[i] in ("lh", "lu", "sd", "su", "xp", "nic")])
        r0 = rng.uniform(8e-8, 3e-7)
        f = self.frac(a, b)
        x = np.clip((self.cs - a) / max(b - a, 1), 0, 1)
        self.corrupt[:, i] += r0 * (1 + 1.5 * x) * (f > 0) * self.ln(0.25, self.C)
        self.corrupt[:, t.peer[i]] += 0.02 * r0 * (f > 0)
        lane = int(rng.integers(4))
        self.rxpwr_extra[f > 0, i, lane] -= rng.uniform(3.5, 5.5)
        self.fault("dirty_optic", t.dev[i], [t.port[i]], a, b,
                   f"dirty connector on the receive side: FCS / CRC errors at {r0:.0e}-{2.5 * r0:.0e} of received "
                   "frames, so they follow the traffic (none when idle, bursts during collectives); one Rx lane "
                   "4-5 dB low where DOM is polled", peer_ends=[t.peer[i]])
        used.add(t.dev[i])
        dirty_port = i
        self.repair(i, b, rng.uniform(90, 200), "connector cleaned: port shut, cleaned, re-enabled")

        # 6. module heating for an hour before errors begin (Arista, DOM visible)
        a, b = start["optic_overheating"], end["optic_overheating"]
        i = choose([i for i in range(t.P) if t.vendor[i] == "arista" and t.role[i] in ("lu", "sd", "lh")])
        heat = rng.uniform(58, 68) * 60
        tt = np.clip((self.cs - a) / heat, 0, None)
        on = (self.cs >= a) & (self.cs < b)
        rise = np.where(on, 30.0 * (1 - np.exp(-2.2 * tt)) / (1 - np.exp(-2.2)) + 1.5 * np.clip(tt - 1, 0, None), 0)
        self.temp_extra[:, i] += rise
        err_on = on & (self.cs >= a + heat)
        g = np.clip((self.cs - a - heat) / max(b - a - heat, 1), 0, 1)
        ratio = np.where(err_on, 3e-10 * (5000.0 ** g), 0.0)
        j = t.peer[i]
        self.corrupt[:, j] += ratio * self.ln(0.3, self.C)          # far end receives the bad light
        self.corrupt[:, i] += 0.08 * ratio * self.ln(0.3, self.C)
        self.rxpwr_extra[:, j, :] -= (np.clip(rise - 18, 0, None) * 0.12)[:, None]
        self.fault("optic_overheating", t.dev[i], [t.port[i]], a, b,
                   f"transceiver temperature (DOM) climbing ~30 degC over {heat / 60:.0f} min with unchanged load, "
                   "then FEC-uncorrectable frames: FCS errors at the far end growing with temperature and load, "
                   "far-end Rx power sagging", peer_ends=[j])
        used.add(t.dev[i])
        heat_port = i
        self.repair(i, b, rng.uniform(120, 240), "hot transceiver replaced (module swap)")

        # 7. link renegotiated at 200G
        a, b = start["half_speed_link"], end["half_speed_link"]
        i = t.nic_port[hs_nic]
        lp = t.peer[i]
        self.link_down(i, a, a + rng.uniform(8, 15))
        self.set_speed(i, a, b, 0.5)
        fix = rng.uniform(6, 12)
        self.link_down(i, b, b + fix)
        self.fault("half_speed_link", t.dev[lp], [t.port[lp]], a, b,
                   "host link bounced and came back at 200G: ifHighSpeed 200000 on the leaf port and speed 200000 "
                   "on the NIC while every sibling runs 400G; bytes capped at half line rate, the leaf egress queue "
                   "toward the host congests (ECN/CNP, PFC), the whole job slows to that pace", peer_ends=[i])
        if b < self.D:
            self.extend_last(b + fix + 30, "second bounce, back at 400G")
        used.add(t.dev[lp])

        # 8. ingress discards on a block of consecutive ports of one switch (one ASIC pipe)
        a, b = start["ingress_discards"], end["ingress_discards"]
        taken = self.fault_ports()
        leaves_free = [d for d in t.leaves if d not in used] or [d for d in t.leaves if d != t.leaves[L_ecn]]
        dev = str(rng.choice(leaves_free))
        par = int(rng.integers(2))         # one rail block: consecutive front-panel ports
        hp = [i for i in t.dev_ports[dev] if t.role[i] == "lh" and t.q[t.peer[i]] % 2 == par]
        if any(i in taken or t.peer[i] in taken for i in hp):
            par = 1 - par
            hp = [i for i in t.dev_ports[dev] if t.role[i] == "lh" and t.q[t.peer[i]] % 2 == par]
        n = int(rng.integers(4, 7))
        starts = [k for k in range(len(hp) - n + 1)
                  if not any(i in taken or t.peer[i] in taken for i in hp[k:k + n])] or list(range(len(hp) - n + 1))
        s0 = int(rng.choice(starts))
        grp = hp[s0:s0 + n]
        x = np.clip((self.cs - a) / 900.0, 0, 1)
        on = (self.cs >= a) & (self.cs < b)
        lvl = rng.uniform(2e-5, 1.2e-4)
        for i in grp:
            self.in_disc_extra[:, i] += np.where(on, lvl * x ** 1.5, 0) * self.ln(0.3, self.C)
        self.fault("ingress_discards", dev, [t.port[i] for i in grp], a, b,
                   f"ifInDiscards on {n} consecutive host ports of one leaf (same ASIC pipe), ramping over 15 min "
                   f"to ~{lvl:.0e} of received packets and following their traffic; the other ports of the "
                   "switch and the far ends are clean", peer_ends=[t.peer[i] for i in grp])

    def flap_bursts(self, i, a, b, bursts):
        rng = self.rng
        starts = np.sort(rng.uniform(a + 5, max(a + 6, b - 300), bursts))
        times = []
        for st in starts:
            tt = st
            for _ in range(int(rng.integers(3, 7))):
                d = rng.uniform(2, 25)
                self.link_down(i, tt, tt + d)
                times.append(tt)
                tt += d + rng.uniform(8, 60)
                if tt > b - 5:
                    break
        return times

    # -------------------------------------------------------------- engine
    def link_state(self):
        t, C, P = self.t, self.C, self.t.P
        down_frac = np.zeros((C, P))
        edn = np.zeros((C, P))
        eup = np.zeros((C, P))
        for i, ivs in self.down.items():
            for a, b in ivs:
                down_frac[:, i] += self.frac(a, b)
                ka, kb = int(a // CELL), int(b // CELL)
                if ka < C:
                    edn[ka, i] += 1
                if kb < C:
                    eup[kb, i] += 1
        return np.clip(down_frac, 0, 1), edn, eup

    def run(self):
        t, C, P, rng = self.t, self.C, self.t.P, self.rng
        NN = t.NN
        eps = 1e-9
        down_frac, edn, eup = self.link_state()
        upf = 1.0 - down_frac
        spd = self.spd
        cap_line = (t.capg / 400.0)[None, :] * spd        # capacity in 400G line units
        npi = t.nic_port
        nupf = upf[:, npi] * np.minimum(upf[:, t.nic_leafport], 1)
        nspd = spd[:, npi]

        # deadlock: the spine passes almost nothing
        dl_mult = np.ones((C, P))
        for S, a, b in self.deadlock:
            f = self.frac(a, b)
            for i in t.dev_ports[t.spines[S]]:
                dl_mult[:, i] = 1 - 0.95 * f
                if t.peer[i] >= 0:
                    dl_mult[:, t.peer[i]] = 1 - 0.95 * f

        tx = {c: self.tx[c].copy() for c in "LIXS"}
        rx = {c: self.rx[c].copy() for c in "LIXS"}
        # NIC caps (speed, link up)
        ttot = sum(tx.values())
        rdem = sum(rx.values())
        lim = 0.97 * nspd
        sc = np.minimum(1.0, lim / np.maximum(ttot, eps)) * nupf
        for c in "LIXS":
            tx[c] *= sc
        over_rx = np.clip(rdem / np.maximum(lim, eps) - 1, 0, 3)
        sc = np.minimum(1.0, lim / np.maximum(rdem, eps)) * nupf
        for c in "LIXS":
            rx[c] *= sc

        # storage: write and read capacity (8 server ports at 200G, 8 storage-leaf uplinks at 200G)
        td = np.where(t.role == "td")[0]
        tu = np.where(t.role == "tu")[0]
        capw = np.minimum((cap_line[:, td] * upf[:, td]).sum(1), (cap_line[:, tu] * upf[:, tu]).sum(1)) * 0.96
        W = tx["S"].sum(1)
        ov_w = W / np.maximum(capw, eps)
        tx["S"] *= np.minimum(1.0, 1 / np.maximum(ov_w, eps))[:, None]
        R = rx["S"].sum(1)
        ov_r = R / np.maximum(capw, eps)
        rx["S"] *= np.minimum(1.0, 1 / np.maximum(ov_r, eps))[:, None]

        nic_pod = t.pod[npi]
        nic_leaf = t.leaf[npi]
        over_pod_up, over_pod_dn = np.zeros((C, 3)), np.zeros((C, 3))
        for pod in (1, 2):
            ks = np.where(nic_pod == pod)[0]
            su = np.where((t.role == "su") & (t.pod == pod))[0]
            capp = (cap_line[:, su] * upf[:, su] * dl_mult[:, su]).sum(1) * 0.97
            for dct, over in ((tx, over_pod_up), (rx, over_pod_dn)):
                dem = dct["X"][:, ks].sum(1) + dct["S"][:, ks].sum(1)
                over[:, pod] = np.clip(dem / np.maximum(capp, eps) - 1, 0, 3)
                s_ = np.minimum(1.0, capp / np.maximum(dem, eps))[:, None]
                dct["X"][:, ks] *= s_
                dct["S"][:, ks] *= s_
        nL = 8
        over_lu, over_ld = np.zeros((C, nL)), np.zeros((C, nL))
        for L in range(nL):
            ks = np.where(nic_leaf == L)[0]
            lu = np.where((t.role == "lu") & (t.leaf == L))[0]
            capl = (cap_line[:, lu] * upf[:, lu] * dl_mult[:, lu]).sum(1) * 0.97
            for dct, over in ((tx, over_lu), (rx, over_ld)):
                dem = sum(dct[c][:, ks].sum(1) for c in "IXS")
                over[:, L] = np.clip(dem / np.maximum(capl, eps) - 1, 0, 3)
                s_ = np.minimum(1.0, capl / np.maximum(dem, eps))[:, None]
                for c in "IXS":
                    dct[c][:, ks] *= s_

        ntx = sum(tx.values())
        nrx = sum(rx.values())
        duty_tx = np.clip(self.dout / np.maximum(self.tx["L"] + self.tx["I"] + self.tx["X"] + self.tx["S"], eps), 0.05, 1)
        duty_rx = np.clip(self.din / np.maximum(self.rx["L"] + self.rx["I"] + self.rx["X"] + self.rx["S"], eps), 0.05, 1)

        # ---------------- bytes per port (B/s)
        out_b = np.zeros((C, P))
        in_b = np.zeros((C, P))
        duty = np.ones((C, P))
        over = np.zeros((C, P))
        lh = t.nic_leafport
        out_b[:, npi] = ntx * B400
        in_b[:, npi] = nrx * B400
        in_b[:, lh] = out_b[:, npi]
        out_b[:, lh] = in_b[:, npi]
        duty[:, npi] = duty_tx
        duty[:, lh] = duty_rx
        over[:, lh] = over_rx
        nonloc_tx = tx["I"] + tx["X"] + tx["S"]
        nonloc_rx = rx["I"] + rx["X"] + rx["S"]
        rup = np.zeros((C, nL))
        rdn = np.zeros((C, nL))
        w0 = rng.normal(1.0, 0.05, P)
        for L in range(nL):
            ks = np.where(nic_leaf == L)[0]
            lu = np.where((t.role == "lu") & (t.leaf == L))[0]
            up = nonloc_tx[:, ks].sum(1) * B400
            dn = nonloc_rx[:, ks].sum(1) * B400
            rup[:, L] = (tx["X"][:, ks].sum(1) + tx["S"][:, ks].sum(1)) / np.maximum(nonloc_tx[:, ks].sum(1), eps)
            rdn[:, L] = (rx["X"][:, ks].sum(1) + rx["S"][:, ks].sum(1)) / np.maximum(nonloc_rx[:, ks].sum(1), eps)
            dl_up = (nonloc_tx[:, ks] * duty_tx[:, ks]).sum(1) / np.maximum(nonloc_tx[:, ks].sum(1), eps)
            dl_dn = (nonloc_rx[:, ks] * duty_rx[:, ks]).sum(1) / np.maximum(nonloc_rx[:, ks].sum(1), eps)
            wu = w0[lu][None, :] * upf[:, lu] * self.ln(0.03, (C, len(lu)))
            wu /= np.maximum(wu.sum(1, keepdims=True), eps)
            wd = w0[lu][None, :] * rng.normal(1, 0.03, len(lu))[None, :] * upf[:, lu] * self.ln(0.03, (C, len(lu)))
            wd /= np.maximum(wd.sum(1, keepdims=True), eps)
            out_b[:, lu] = np.minimum(up[:, None] * wu, cap_line[:, lu] * B400 * 0.985) * dl_mult[:, lu]
            in_b[:, lu] = np.minimum(dn[:, None] * wd, cap_line[:, lu] * B400 * 0.985) * dl_mult[:, lu]
            duty[:, lu] = dl_up[:, None]
            over[:, lu] = over_lu[:, L][:, None]
            sdp = t.peer[lu]
            in_b[:, sdp] = out_b[:, lu]
            out_b[:, sdp] = in_b[:, lu]
            duty[:, sdp] = dl_dn[:, None]
            over[:, sdp] = over_ld[:, L][:, None]
        # pod spines up to super-spines
        rst_up, rst_dn = np.zeros((C, 3)), np.zeros((C, 3))
        dp_up, dp_dn = np.ones((C, 3)), np.ones((C, 3))
        for pod in (1, 2):
            ks = np.where(nic_pod == pod)[0]
            xs_ = tx["X"][:, ks].sum(1) + tx["S"][:, ks].sum(1)
            rst_up[:, pod] = tx["S"][:, ks].sum(1) / np.maximum(xs_, eps)
            xr_ = rx["X"][:, ks].sum(1) + rx["S"][:, ks].sum(1)
            rst_dn[:, pod] = rx["S"][:, ks].sum(1) / np.maximum(xr_, eps)
            dp_up[:, pod] = np.clip((tx["X"][:, ks] * duty_tx[:, ks]).sum(1) / np.maximum(tx["X"][:, ks].sum(1), eps)
                                    * (1 - rst_up[:, pod]) + rst_up[:, pod], 0.05, 1)
            dp_dn[:, pod] = np.clip((rx["X"][:, ks] * duty_rx[:, ks]).sum(1) / np.maximum(rx["X"][:, ks].sum(1), eps)
                                    * (1 - rst_dn[:, pod]) + rst_dn[:, pod], 0.05, 1)
        for S in range(8):
            pod = 1 if S < 4 else 2
            sd = np.where((t.role == "sd") & (t.spine == S))[0]
            su = np.where((t.role == "su") & (t.spine == S))[0]
            Ls = t.leaf[sd]
            upw = (in_b[:, sd] * rup[:, Ls]).sum(1)
            dnw = (out_b[:, sd] * rdn[:, Ls]).sum(1)
            wu = w0[su][None, :] * upf[:, su] * self.ln(0.03, (C, 4))
            wu /= np.maximum(wu.sum(1, keepdims=True), eps)
            wd = w0[su][None, :] * upf[:, su] * self.ln(0.03, (C, 4))
            wd /= np.maximum(wd.sum(1, keepdims=True), eps)
            out_b[:, su] = np.minimum(upw[:, None] * wu, cap_line[:, su] * B400 * 0.985) * dl_mult[:, su]
            in_b[:, su] = np.minimum(dnw[:, None] * wd, cap_line[:, su] * B400 * 0.985) * dl_mult[:, su]
            duty[:, su] = dp_up[:, pod][:, None]
            over[:, su] = over_pod_up[:, pod][:, None]
            xp = t.peer[su]
            in_b[:, xp] = out_b[:, su]
            out_b[:, xp] = in_b[:, su]
            duty[:, xp] = dp_dn[:, pod][:, None]
            over[:, xp] = over_pod_dn[:, pod][:, None]
        # super-spines to storage leaves
        for tt in range(4):
            xp = np.where((t.role == "xp") & (t.ss == tt))[0]
            xs = np.where((t.role == "xs") & (t.ss == tt))[0]
            pods = t.pod[xp]
            wr = (in_b[:, xp] * rst_up[:, pods]).sum(1)
            rd = (out_b[:, xp] * rst_dn[:, pods]).sum(1)
            ww = upf[:, xs] * self.ln(0.02, (C, 2))
            ww /= np.maximum(ww.sum(1, keepdims=True), eps)
            out_b[:, xs] = np.minimum(wr[:, None] * ww, cap_line[:, xs] * B400 * 0.985)
            in_b[:, xs] = np.minimum(rd[:, None] * ww, cap_line[:, xs] * B400 * 0.985)
            tu_ = t.peer[xs]
            in_b[:, tu_] = out_b[:, xs]
            out_b[:, tu_] = in_b[:, xs]
            over[:, xs] = np.clip(ov_w - 1, 0, 3)[:, None]
            over[:, tu_] = np.clip(ov_r - 1, 0, 3)[:, None]
        for k in range(2):
            tdk = np.where((t.role == "td") & (t.sl == k))[0]
            tuk = np.where((t.role == "tu") & (t.sl == k))[0]
            wr = in_b[:, tuk].sum(1)
            rd = out_b[:, tuk].sum(1)
            ww = upf[:, tdk] * self.ln(0.04, (C, 4))
            ww /= np.maximum(ww.sum(1, keepdims=True), eps)
            out_b[:, tdk] = np.minimum(wr[:, None] * ww, cap_line[:, tdk] * B400 * 0.985)
            in_b[:, tdk] = np.minimum(rd[:, None] * ww, cap_line[:, tdk] * B400 * 0.985)
            over[:, tdk] = np.clip(ov_w - 1, 0, 3)[:, None]
        # background on storage-side ports that is not modelled by the jobs (storage replication, scrubbing)
        stor = np.isin(t.role, ["td", "tu", "xs"])
        bgs = rng.uniform(0.01, 0.03, stor.sum()) * self.ln(0.2, (C, int(stor.sum())))
        in_b[:, stor] += bgs * 25e9 * upf[:, stor]
        out_b[:, stor] += bgs * 25e9 * rng.uniform(0.8, 1.2) * upf[:, stor]
        # a little control traffic on every switch-switch link (BGP, LLDP, BFD)
        ctl = t.is_sw & (t.role != "lh") & (t.role != "td")
        in_b[:, ctl] += 2e4 * upf[:, ctl]
        out_b[:, ctl] += 2e4 * upf[:, ctl]

        # ---------------- queue pressure, PFC, ECN
        capb = cap_line * B400
        uo = out_b / np.maximum(capb, 1)
        b = np.clip(uo / np.clip(duty, 0.05, 1), 0, 1.3)
        extra = self.press_extra.copy()
        extra[:, lh] += self.hot
        stor_out = np.isin(t.role, ["td", "xs"])
        ck = np.clip(ov_w - 0.8, 0, None)
        extra[:, stor_out] += (0.5 * ck)[:, None]
        p0 = g_press(np.minimum(b, 1.0)) + 1.5 * np.maximum(b - 1, 0) + 1.5 * over + extra
        p0 = np.minimum(p0, 4.0) * upf
        dl_press = np.zeros((C, P))
        for S, a, b_ in self.deadlock:
            f = self.frac(a, b_)
            for i in t.dev_ports[t.spines[S]]:
                dl_press[:, i] = 4.0 * f
                dl_press[:, t.peer[i]] = np.maximum(dl_press[:, t.peer[i]], 2.0 * f)
        p0 = np.maximum(p0, dl_press)
        peff0 = np.minimum(p0 * self.press_mult, 5.0)

        # egress groups for ingress pressure
        devs = t.dev_order
        dix = {d: n for n, d in enumerate(devs)}
        grp = np.full(P, -1)
        for i in range(P):
            if t.is_sw[i]:
                grp[i] = 2 * dix[t.dev[i]] + ROLE_CLASS[t.role[i]]
        G = 2 * len(devs)
        M = np.zeros((P, G))
        sw_idx = np.where(t.is_sw)[0]
        M[sw_idx, grp[sw_idx]] = 1.0
        g1 = np.full(P, -1)
        g2 = np.full(P, -1)
        mix = np.ones((C, P))
        loc = tx["L"] / np.maximum(ntx, eps)
        for i in sw_idx:
            d2 = 2 * dix[t.dev[i]]
            r = t.role[i]
            if r == "lh":
                g1[i], g2[i] = d2, d2 + 1
                mix[:, i] = loc[:, t.nic[t.peer[i]]]
            elif r == "lu":
                g1[i], g2[i] = d2, d2
            elif r == "sd":
                g1[i], g2[i] = d2 + 1, d2
                mix[:, i] = rup[:, t.leaf[i]]
            elif r == "su":
                g1[i], g2[i] = d2, d2
            elif r == "xp":
                g1[i], g2[i] = d2 + 1, d2
                mix[:, i] = rst_up[:, t.pod[i]]
            elif r == "xs":
                g1[i], g2[i] = d2, d2
            elif r == "td":
                g1[i], g2[i] = d2 + 1, d2 + 1
            elif r == "tu":
                g1[i], g2[i] = d2, d2
        wts = out_b + 1e3
        peer = t.peer
        has_sw_peer = (peer >= 0) & t.is_sw & t.is_sw[np.maximum(peer, 0)]
        hsp = np.where(has_sw_peer)[0]
        npress = self.npause / 20000.0
        srv_p = np.clip(ov_w - 0.9, 0, 2) * 0.6
        peff = peff0.copy()
        for _ in range(3):
            Gm = (wts * peff) @ M / np.maximum(wts @ M, eps)
            pin = np.zeros((C, P))
            pin[:, sw_idx] = mix[:, sw_idx] * Gm[:, g1[sw_idx]] + (1 - mix[:, sw_idx]) * Gm[:, g2[sw_idx]]
            peff = peff0.copy()
            peff[:, hsp] += ETA * pin[:, peer[hsp]] * self.press_mult[:, hsp]
            peff[:, lh] += npress * self.press_mult[:, lh]
            peff[:, td] += srv_p[:, None]
            peff = np.minimum(peff, 5.0)
        pin = np.minimum(pin, 5.0)     # a mis-set switch's deeper queues reach its ingress through Gm

        pkt_size = rng.uniform(3700, 4150, P)
        pk_in = in_b / pkt_size[None, :] * (1 + 0.005 * rng.standard_normal((C, P)))
        pk_out = out_b / pkt_size[None, :] * (1 + 0.005 * rng.standard_normal((C, P)))
        pk_in = np.clip(pk_in, 0, None)
        pk_out = np.clip(pk_out, 0, None)
        # small frames: acks/CNPs, control
        pk_in += 300 * upf
        pk_out += 300 * upf

        pfc_sent = np.zeros((C, P))
        pfc_sent[:, sw_idx] = BETA * pk_in[:, sw_idx] * np.minimum(pin[:, sw_idx], 4.0) ** 2 * self.ln(0.6, (C, len(sw_idx)))
        for S, a, b_ in self.deadlock:
            f = self.frac(a, b_)
            sp = t.dev_ports[t.spines[S]]
            pfc_sent[:, sp] = np.maximum(pfc_sent[:, sp], f[:, None] * rng.uniform(15000, 32000, len(sp)) *
                                         self.ln(0.15, (C, len(sp))))
            loop = rng.random(len(sp)) < 0.6
            for i, lp_ in zip(sp, loop):
                if lp_:
                    pfc_sent[:, peer[i]] = np.maximum(pfc_sent[:, peer[i]], f * rng.uniform(6000, 20000) *
                                                      self.ln(0.2, C))
        # NIC pauses: slow receiver and the storm
        sr_nic, on = self.sr
        self.npause[:, sr_nic] += on * np.clip(nrx[:, sr_nic], 0, 1) * rng.uniform(1500, 2500) * self.ln(0.5, C)
        pfc_sent[:, npi] = self.npause
        pfc_rcvd = np.zeros((C, P))
        pfc_rcvd[:, hsp] = pfc_sent[:, peer[hsp]]
        pfc_rcvd[:, lh] = pfc_sent[:, npi]
        pfc_rcvd[:, npi] = pfc_sent[:, lh]
        srv_pause = (np.clip(ov_w - 0.9, 0, 2) * rng.uniform(800, 1500))[:, None] * self.ln(0.4, (C, len(td)))
        pfc_rcvd[:, td] = srv_pause * upf[:, td]
        pause_dur = np.minimum(pfc_rcvd * rng.uniform(25, 45), 0.985e6)   # microseconds per second

        # CE marks follow the queue the port itself builds; back-pressure from a paused neighbour adds a little
        pm = p0 + 0.3 * np.clip(peff - peff0, 0, None)
        marks = pk_out * KAPPA * np.minimum(pm, 3.0) * self.ln(0.35, (C, P)) * self.ecn_factor
        marks[:, npi] = 0
        # NIC-side ECN / CNP
        ecn_np = np.zeros((C, NN))
        ecn_np += marks[:, lh]
        sd_all = np.where(t.role == "sd")[0]
        xp_all = np.where(t.role == "xp")[0]
        for L in range(nL):
            ks = np.where(nic_leaf == L)[0]
            fac = np.where(t.leaf[sd_all] == L)[0]
            mup = marks[:, sd_all[fac]].sum(1)
            pod = 1 if L < 4 else 2
            ksp = np.where(nic_pod == pod)[0]
            share = rx["X"][:, ks].sum(1) / np.maximum(rx["X"][:, ksp].sum(1), eps)
            mup += marks[:, xp_all[t.pod[xp_all] == pod]].sum(1) * share
            w = nonloc_rx[:, ks] / np.maximum(nonloc_rx[:, ks].sum(1, keepdims=True), eps)
            ecn_np[:, ks] += mup[:, None] * w
        cnp_sent = ecn_np * 0.55 * self.ln(0.1, (C, NN))
        cnp_hdl = np.zeros((C, NN))
        for jid, nn in self.jobs:
            tot = cnp_sent[:, nn].sum(1)
            w = ntx[:, nn] / np.maximum(ntx[:, nn].sum(1, keepdims=True), eps)
            cnp_hdl[:, nn] += tot[:, None] * w
        stor_cnp = marks[:, td].sum(1) * 0.55
        w = tx["S"] / np.maximum(tx["S"].sum(1, keepdims=True), eps)
        cnp_hdl += stor_cnp[:, None] * w

        # ---------------- errors, discards
        pois = rng.poisson
        dt = CELL
        pk_in_c = pk_in * dt
        pk_out_c = pk_out * dt
        fcs = pois(pk_in_c * self.corrupt + self.sporadic[None, :] * dt / 3600.0 * (in_b > 1e6)) + pois(4.0 * eup)
        in_err = fcs + pois(0.03 * fcs + 0.0)
        in_disc = pois(self.ctrl_drop[None, :] * dt * upf + pk_in_c * self.in_disc_extra)
        flush = pois(150.0 * edn) * t.is_sw[None, :]
        wd = pois(self.wd_drop * dt * self.ln(0.3, (C, P)))
        lossy = np.zeros((C, P))
        lossy[:, td] = pois(np.clip(ov_w - 1.0, 0, 2)[:, None] * 120 * dt * np.ones((1, len(td))))
        dl_drop = np.zeros((C, P))
        for S, a, b_ in self.deadlock:
            f = self.frac(a, b_)
            rel = self.frac(b_, b_ + CELL)
            for i in t.dev_ports[t.spines[S]]:
                dl_drop[:, i] = pois(f * rng.uniform(50, 400) * dt + rel * rng.uniform(2e4, 2e5))
        q3 = wd + flush + dl_drop
        out_disc = q3 + lossy
        q3drop = q3
        # losses -> out-of-sequence at the receiving NICs (go-back-N after a lost packet)
        loss = fcs + in_disc * (self.in_disc_extra > 0) + q3
        oos = pois(0.002 * dt * np.ones((C, NN)) * (nrx > 0.01)).astype(float)
        oos += pois(2.0 * loss[:, npi])                                   # corrupted on the last hop
        alive = self.npause < 1000
        oos += pois(2.0 * q3[:, lh] * alive)                              # dropped on the way to the NIC
        for L in range(nL):
            ks = np.where(nic_leaf == L)[0]
            src = loss[:, lh[ks]].sum(1)                                  # sent by hosts of this leaf: rail-local peers
            w = nrx[:, ks] / np.maximum(nrx[:, ks].sum(1, keepdims=True), eps)
            fab = np.where((t.leaf == L) & np.isin(t.role, ["lu", "sd"]))[0]
            wf = nonloc_rx[:, ks] / np.maximum(nonloc_rx[:, ks].sum(1, keepdims=True), eps)
            oos[:, ks] += pois(np.clip(src, 0, None)[:, None] * 2.0 * w + loss[:, fab].sum(1)[:, None] * 2.0 * wf)
        for pod in (1, 2):
            ks = np.where(nic_pod == pod)[0]
            fab = np.where((t.pod == pod) & np.isin(t.role, ["su", "xp"]))[0]
            wf = rx["X"][:, ks] / np.maximum(rx["X"][:, ks].sum(1, keepdims=True), eps)
            oos[:, ks] += pois(loss[:, fab].sum(1)[:, None] * 2.0 * wf)
        rx_disc = np.zeros((C, NN))
        trick = rng.random(NN) < 0.15
        rx_disc[:, trick] = pois(0.003 * dt * np.ones((C, int(trick.sum()))))

        cnt = {}
        cnt["oct_in"] = in_b * dt
        cnt["oct_out"] = out_b * dt
        cnt["pk_in"] = pk_in_c
        cnt["pk_out"] = pk_out_c
        cnt["fcs"] = fcs
        cnt["in_err"] = in_err
        cnt["out_err"] = np.zeros((C, P))
        cnt["in_disc"] = in_disc
        cnt["out_disc"] = out_disc
        cnt["q3drop"] = q3drop
        cnt["pfc_sent"] = pois(pfc_sent * dt)
        cnt["pfc_rcvd"] = pois(pfc_rcvd * dt)
        cnt["pause_dur"] = pause_dur * dt
        z = np.zeros((C, P))
        for key, arr in (("ecn_np", pois(ecn_np * dt)), ("cnp_sent", pois(cnp_sent * dt)),
                         ("cnp_hdl", pois(cnp_hdl * dt)), ("oos", oos), ("rx_disc", rx_disc)):
            full = z.copy()
            full[:, npi] = arr
            cnt[key] = full
        ld = np.zeros((C, P))
        ld[:, npi] = edn[:, npi]
        cnt["ldown"] = ld
        self.cnt = cnt
        self.dbg = dict(uo=uo, peff=peff, pin=pin, marks=marks, nrx=nrx, ntx=ntx, ecn_np=ecn_np, ov_w=ov_w)
        self.util_out = uo

    # -------------------------------------------------------------- output
    def write(self, outdir):
        t, rng, D = self.t, self.rng, self.D
        os.makedirs(outdir, exist_ok=True)
        C, P = self.C, t.P
        cum = {}
        for k in COUNTERS:
            a = np.empty((C + 1, P))
            a[0] = 0
            np.cumsum(self.cnt[k], axis=0, out=a[1:])
            cum[k] = a
        init = self.initial_values()

        # state for gauges
        down_iv = {i: sorted(v) for i, v in self.down.items()}
        admin_iv = {i: sorted(v) for i, v in self.admin.items()}
        boot_of = {}
        for dev, tr, agent in self.reboots:
            boot_of[dev] = (tr, agent)
        uptime0 = {d: int(rng.uniform(35, 420) * 8640000) for d in t.dev_order}
        lastchg0 = np.array([int(rng.uniform(3000, 9000)) if rng.random() < 0.7 else
                             int(rng.uniform(0.2, 0.95) * uptime0[t.dev[i]]) for i in range(P)])

        def interp(arr, taus, ports):
            c0 = np.clip((taus // CELL).astype(int), 0, C - 1)
            fr = np.clip((taus - c0 * CELL) / CELL, 0, 1)
            a0 = arr[c0][:, ports]
            a1 = arr[c0 + 1][:, ports]
            return a0 + (a1 - a0) * fr[:, None]

        def in_iv(ivs, tau):
            for a, b in ivs:
                if a <= tau < b:
                    return True
            return False

        def last_change(i, tau, dev):
            chg = [x for iv in down_iv.get(i, []) for x in iv if x <= tau]
            boot = boot_of.get(dev)
            if boot and tau >= boot[0]:
                tr, agent = boot
                base = agent - 60          # agent's sysUpTime zero, about a minute after reload
                chg = [x for x in chg if x >= tr]
                return max(0, int(max(chg) - base) * 100) if chg else 0
            if chg:
                return uptime0[dev] + int(max(chg) * 100)
            return int(lastchg0[i])

        records = []   # (ts_seconds, seq, line)
        seq = 0
        absent = self.absent
        K = D // SW_POLL

        def is_absent(dev, tau):
            for devs, a, b in absent:
                if dev in devs and a <= tau < b:
                    return True
            return False

        # ---------------- switches (snmp_if, snmp_sys)
        sw_devs = [d for d in t.dev_order if t.devs[d]["kind"] != "host"]
        for dev in sw_devs:
            dv = t.devs[dev]
            ports = np.array(dv["ports"])
            fields = FIELDSETS[dv["vendor"]]
            lat = int(rng.integers(0, 2))
            delays = lat + (rng.random(K + 1) < 0.35).astype(int)
            late = rng.random(K + 1) < 0.03
            delays = np.where(late, rng.integers(3, 10, K + 1), delays)
            missed = rng.random(K + 1) < 0.004
            taus = np.arange(K + 1) * SW_POLL + delays
            boot = boot_of.get(dev)
            vals = {}
            for fname, src, kind in fields:
                if kind == "g":
                    continue
                v = interp(cum[src], taus.astype(float), ports)
                if boot:
                    tr = boot[0]
                    vr = interp(cum[src], np.array([float(tr)]), ports)[0]
                    after = taus >= tr
                    v = np.where(after[:, None], np.maximum(v - vr[None, :], 0), v + init[src][ports][None, :])
                    v = np.floor(v).astype(np.int64)
                else:
                    v = np.floor(v).astype(np.int64) + init[src][ports][None, :]
                v = np.maximum.accumulate(v, axis=0) if not boot else v
                if kind == "c32":
                    v = v % (1 << 32)
                vals[src] = v
            tmpl = []
            for i in ports:
                tags = f"snmp_if,ifAlias={t.alias[i]},ifName={t.port[i]},source={dev} "
                tmpl.append(tags + ",".join(f"{f}=%di" for f, _, _ in fields) + " %d000000000\n")
            sys_tmpl = f"snmp_sys,source={dev} sysUpTime=%di %d000000000\n"
            for k in range(K + 1):
                tau = int(taus[k])
                if missed[k] or is_absent(dev, k * SW_POLL):
                    continue
                ts = T0 + tau
                if boot and tau >= boot[0]:
                    up_ticks = (tau - (boot[1] - 60)) * 100
                else:
                    up_ticks = uptime0[dev] + tau * 100
                records.append((ts, seq, sys_tmpl % (up_ticks, ts)))
                seq += 1
                for n_, i in enumerate(ports):
                    row = []
                    for fname, src, kind in fields:
                        if kind == "g":
                            if src == "admin":
                                row.append(2 if in_iv(admin_iv.get(i, []), tau) else 1)
                            elif src == "oper":
                                row.append(2 if in_iv(down_iv.get(i, []), tau) else 1)
                            elif src == "speed":
                                row.append(int(t.capg[i] * 1000 * self.speed_at(i, tau)))
                            elif src == "lastchange":
                                row.append(last_change(i, tau, dev))
                        else:
                            row.append(int(vals[src][k, n_]))
                    row.append(ts)
                    records.append((ts, seq, tmpl[n_] % tuple(row)))
                    seq += 1

        # ---------------- DOM (Arista ENTITY-SENSOR-MIB)
        dom_ports = [i for i in range(P) if t.vendor[i] == "arista"]
        base_t = rng.uniform(38, 49, P)
        base_p = rng.uniform(-2.8, -0.4, (P, 4))
        KD = D // DOM_POLL
        for dev in [d for d in sw_devs if t.devs[d]["vendor"] == "arista"]:
            ports = [i for i in t.devs[dev]["ports"]]
            for k in range(KD + 1):
                if rng.random() < 0.01 or is_absent(dev, k * DOM_POLL):
                    continue
                tau = k * DOM_POLL + int(rng.integers(2, 7))
                ts = T0 + tau
                c = min(tau // CELL, C - 1)
                for i in ports:
                    j = t.peer[i]
                    util = 0.5 * (self.util_out[c, i] + (self.util_out[c, j] if j >= 0 else 0))
                    temp = base_t[i] + 5.0 * min(util, 1.0) + self.temp_extra[c, i] + rng.normal(0, 0.25)
                    pfx = f"DOM\\ {{}}\\ Sensor\\ for\\ {t.port[i]}"
                    pfx_rx = pfx.format("Rx\\ Power")
                    records.append((ts, seq, f"snmp_dom,sensor={pfx.format('Temperature')},source={dev},"
                                             f"units=Celsius entPhySensorPrecision=1i,"
                                             f"entPhySensorValue={int(round(temp * 10))}i {ts}000000000\n"))
                    seq += 1
                    # light: none when the far end is down or admin down; our own admin-down keeps receiving
                    far_dark = in_iv(down_iv.get(i, []), tau) and not in_iv(admin_iv.get(i, []), tau)
                    for lane in range(4):
                        pw = -40.0 if far_dark else base_p[i, lane] + self.rxpwr_extra[c, i, lane] + rng.normal(0, 0.04)
                        records.append((ts, seq, f"snmp_dom,sensor={pfx_rx}/{lane + 1},source={dev},"
                                                 f"units=dBm entPhySensorPrecision=2i,"
                                                 f"entPhySensorValue={int(round(pw * 100))}i {ts}000000000\n"))
                        seq += 1

        # ---------------- host NICs (roce_nic, 15 s)
        KN = D // NIC_POLL
        for h, (host, pod, n) in enumerate(t.hosts):
            ports = np.array(t.devs[host]["ports"])
            off = int(rng.integers(0, 2))
            taus = np.arange(KN + 1) * NIC_POLL + off
            missed = rng.random(KN + 1) < 0.001
            vals = {}
            for fname, src, kind in NIC_FIELDS:
                if kind == "g":
                    continue
                v = np.floor(interp(cum[src], taus.astype(float), ports)).astype(np.int64) + init[src][ports][None, :]
                vals[src] = np.maximum.accumulate(v, axis=0)
            tmpl = [f"roce_nic,host={host},ibdev={t.port[i]},netdev={NETDEVS[r]} " +
                    ",".join(f"{f}=%di" for f, _, _ in NIC_FIELDS) + " %d000000000\n" for r, i in enumerate(ports)]
            for k in range(KN + 1):
                if missed[k]:
                    continue
                tau = int(taus[k])
                ts = T0 + tau
                for n_, i in enumerate(ports):
                    row = []
                    dn = in_iv(down_iv.get(i, []), tau)
                    for fname, src, kind in NIC_FIELDS:
                        if src == "carrier":
                            row.append(0 if dn else 1)
                        elif src == "nspeed":
                            row.append(-1 if dn else int(400000 * self.speed_at(i, tau)))
                        else:
                            row.append(int(vals[src][k, n_]))
                    row.append(ts)
                    records.append((ts, seq, tmpl[n_] % tuple(row)))
                    seq += 1

        records.sort(key=lambda r: (r[0], r[1]))
        path = os.path.join(outdir, "port_counters.lp")
        with open(path, "w", buffering=1 << 22) as fh:
            fh.writelines(r[2] for r in records)
        n_lines = len(records)
        labels = {
            "scenario": "roce-ecn-misset-snmp", "scale": "site", "seed": self.seed, "fabric": "roce",
            "interval_s": 30, "sample_s": 30, "nic_sample_s": 15, "dom_sample_s": 300,
            "t0_ns": self.ns(0), "t_end_ns": self.ns(D), "train_until_ns": self.ns(self.fit),
            "fit_first": f"{self.fit // 60}m", "ports": int(P),
            "switch_ports": int(t.is_sw.sum()), "nic_ports": int(t.is_nic.sum()), "lines": n_lines,
            "port_naming": "device = SNMP source tag (sysName) or NIC host tag; port = ifName or ibdev (mlx5_N)",
            "faults": sorted(self.faults, key=lambda f: f["start_ns"]),
            "healthy_phenomena": sorted(self.healthy, key=lambda h: h["start_ns"]),
        }
        for f in labels["faults"]:
            assert f["start_ns"] >= labels["train_until_ns"], f
            assert f["start_ns"] % (30 * 10 ** 9) == 0, f
        with open(os.path.join(outdir, "labels.json"), "w") as fh:
            json.dump(labels, fh, indent=1)
        return labels

    def speed_at(self, i, tau):
        for a, b, f in self.spd_events.get(int(i), []):
            if a <= tau < b:
                return f
        return 1.0

    def initial_values(self):
        rng, t, P = self.rng, self.t, self.t.P
        init = {}
        big = lambda lo, hi: (10 ** rng.uniform(lo, hi, P)).astype(np.int64)
        sparse = lambda p0, g: np.where(rng.random(P) < p0, 0, rng.geometric(g, P)).astype(np.int64)
        init["oct_in"] = big(14.5, 16.8)
        init["oct_out"] = (init["oct_in"] * rng.uniform(0.85, 1.15, P)).astype(np.int64)
        init["pk_in"] = init["oct_in"] // rng.integers(2600, 4000, P)
        init["pk_out"] = init["oct_out"] // rng.integers(2600, 4000, P)
        init["fcs"] = sparse(0.65, 0.01)
        init["in_err"] = init["fcs"] + sparse(0.8, 0.1)
        init["out_err"] = np.zeros(P, np.int64)
        init["in_disc"] = sparse(0.3, 0.0002)
        init["out_disc"] = sparse(0.4, 0.0005)
        init["q3drop"] = np.minimum(init["out_disc"], sparse(0.6, 0.002))
        init["pfc_sent"] = big(3.5, 8.5)
        init["pfc_rcvd"] = big(3.5, 8.5)
        init["pause_dur"] = big(6.0, 10.5)
        init["ecn_np"] = big(7.0, 10.5)
        init["cnp_sent"] = (init["ecn_np"] * rng.uniform(0.4, 0.7, P)).astype(np.int64)
        init["cnp_hdl"] = big(6.5, 10.3)
        init["oos"] = big(2.0, 5.5)
        init["rx_disc"] = sparse(0.7, 0.01)
        init["ldown"] = rng.integers(0, 4, P).astype(np.int64)
        # NICs: counters since the driver was loaded (node reboots every few weeks)
        nic = t.is_nic
        for k in ("oct_in", "oct_out"):
            init[k][nic] = (10 ** rng.uniform(12.8, 14.8, nic.sum())).astype(np.int64)
        init["pk_in"][nic] = init["oct_in"][nic] // 3900
        init["pk_out"][nic] = init["oct_out"][nic] // 3900
        for k, lo, hi in (("pfc_sent", 2.0, 6.5), ("pfc_rcvd", 2.5, 7.0), ("ecn_np", 5.5, 9.0), ("cnp_hdl", 5.0, 8.8),
                          ("oos", 1.0, 4.5)):
            init[k][nic] = (10 ** rng.uniform(lo, hi, nic.sum())).astype(np.int64)
        init["cnp_sent"][nic] = (init["ecn_np"][nic] * rng.uniform(0.4, 0.7, nic.sum())).astype(np.int64)
        init["ldown"][nic] = rng.integers(1, 4, nic.sum())
        return init


# ------------------------------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description="labelled RoCEv2 SNMP + NIC telemetry with an ECN-mis-set leaf and more")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=4.25, help="length of the extract (>= 4)")
    ap.add_argument("--nodes-per-pod", type=int, default=8, help="GPU nodes per pod (8-12)")
    a = ap.parse_args(argv)
    if a.hours < 4.0:
        ap.error("--hours must be at least 4 (the change window is at 150-190 min)")
    if not 8 <= a.nodes_per_pod <= 12:
        ap.error("--nodes-per-pod must be 8..12")
    wall = time.time()
    site = Site(a.seed, a.hours, a.nodes_per_pod)
    site.scenario()
    site.run()
    labels = site.write(a.outdir)
    size = os.path.getsize(os.path.join(a.outdir, "port_counters.lp"))
    print(f"{labels['ports']} ports ({labels['switch_ports']} switch, {labels['nic_ports']} NIC), "
          f"{labels['lines']} lines, {size / 1e6:.1f} MB, {len(labels['faults'])} faults, "
          f"fit_first {labels['fit_first']} -> {a.outdir} in {time.time() - wall:.1f}s")


if __name__ == "__main__":
    main()
