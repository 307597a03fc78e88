#!/usr/bin/env python3
# ruff: noqa: E501
"""GPU cluster "c1" back-end fabric: RoCEv2 on Juniper. NOC data sheet for the `port_counters` feed.

    python roce_juniper_snmp_gnmi.py OUTDIR [--seed N] [--hours H]

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, one measurement `port_counters`, lines in
time order, nanosecond timestamps) and OUTDIR/labels.json (faults and healthy phenomena, in the form
of the scenario bank's score.py). numpy and the standard library only. The same seed gives the same
bytes; another seed builds another cluster size and moves every fault and event elsewhere.

FABRIC
------
* Back-end (GPU) network of cluster c1, RoCEv2, lossless class on 802.1p priority 3 / queue 3,
  DCQCN (ECN on the switches, CNPs from the NICs). Two tiers, NOT rail-optimised.
* 6-10 GPU nodes `c1-gpu01..` (HGX H100, 8 x ConnectX-7 400GbE each, `mlx5_0..mlx5_7`). Nodes sit
  in leaf pairs of up to 4 nodes: even NICs (mlx5_0/2/4/6) go to leaf `c1-leafNNa`, odd NICs to
  `c1-leafNNb`. A half-filled pair leaves downlinks unused (admin-disabled, no optic).
* Compute leaves: Juniper QFX5220-32CD (Junos OS Evolved), 32 x 400G. et-0/0/0..15 face NICs
  (slot i of the pair uses et-0/0/4i..4i+3, NIC index // 2 picks the port), et-0/0/16..31 face the
  spines (4 links per spine, et-0/0/16+4s..19+4s to spine s+1). 1:1.
* Storage: 4-6 storage nodes `c1-storNN`, 2 x ConnectX-7 400G each, mlx5_0 to `c1-stleaf01`,
  mlx5_1 to `c1-stleaf02` (QFX5220-32CD, et-0/0/0.. face storage, et-0/0/24..31 face the spines,
  2 per spine, the rest admin-disabled and empty).
* Spines: 4 x Juniper PTX10008 `c1-spine01..04` (Junos OS Evolved, LC1201 line cards 36 x 400G).
  Each leaf's links to a spine alternate between FPC 0 and FPC 1 (`et-0/0/N`, `et-1/0/N`).
* Optics 400G-DR4 (4 lanes) on every cabled switch port.
* ECMP over all uplinks; static hash weights differ by a few percent; flows collide, more so in
  all-to-all phases.

COLLECTORS (all land in measurement `port_counters`; Telegraf `name_override`)
----------
1. Leaves by SNMP (Telegraf `inputs.snmp`, host `tlg-snmp-01`), every 60 s. Each leaf has its own
   poll phase (0-59 s after the minute) and the timestamp is the gather time (ms). One line per
   ifIndex and poll. Timeouts drop the whole poll of a leaf (background: ~0.4 % of polls).
   - v2c template (compute leaves): IF-MIB ifXTable + ifTable + EtherLike-MIB dot3StatsTable,
     joined on ifIndex: ifHCInOctets ifHCOutOctets ifHCInUcastPkts ifHCOutUcastPkts
     ifHCInMulticastPkts ifHCOutMulticastPkts (Counter64); ifInErrors ifOutErrors ifInDiscards
     ifOutDiscards dot3StatsFCSErrors (Counter32: they wrap at 2^32); ifOperStatus ifAdminStatus
     (1 up, 2 down); ifHighSpeed (Mb/s, 400000); ifLastChange (TimeTicks, 1/100 s of sysUpTime at
     the last oper change; a reboot restarts sysUpTime).
   - legacy v1 template (the two storage leaves, never migrated, and on some days one compute leaf
     that was re-imaged with the old template): SNMPv1 cannot carry Counter64,
     so they export ifInOctets ifOutOctets ifInUcastPkts ifOutUcastPkts ifInNUcastPkts
     ifOutNUcastPkts (all Counter32) instead of the HC columns, plus the same error, status, speed
     columns. At 400G load a 32-bit octet counter wraps every ~86 ms, so across a 60 s poll the
     octet delta is aliased and meaningless; on lightly loaded storage ports (tens of MB/s) it wraps
     every few minutes.
   - The leaves export NO PFC, ECN or queue counters (no MIB for them on this platform at this
     site). Leaf congestion is seen from the NICs (pauses the leaf sends them, CE marks that reach
     them) and from the spines.
   - Tags: agent_host (leaf mgmt IP), device (sysName), host (Telegraf host), port (ifName, e.g.
     et-0/0/17), role (static port map: leaf_down, leaf_up, unused), peer_device / peer_port (from
     the LLDP neighbour table; absent on ports without a neighbour and dropped once a link has
     been down longer than the 120 s LLDP hold time). A leaf NIC port's peer_port is the NIC's
     Linux netdev name (lldpd on the host), e.g. enp26s0np0, not mlx5_N.
2. Optics DOM of the leaves by SNMP (JUNIPER-DOM-MIB, Telegraf host `tlg-snmp-01`), every 300 s,
   per-leaf phase. Two tables: jnxDomCurrentTable (module line, same tags as above):
   jnxDomCurrentModuleTemperature (integer degC), jnxDomCurrentModuleVoltage (mV),
   jnxDomCurrentModuleLaneCount, and the static thresholds
   jnxDomCurrentModuleTemperatureHighAlarmThreshold (75) / ...HighWarningThreshold (70),
   jnxDomCurrentRxLaserPowerLowAlarmThreshold / ...LowWarningThreshold (0.01 dBm); and
   jnxDomCurrentLaneTable (one line per lane, extra tag lane=0..3, index split by a starlark
   processor): jnxDomCurrentLaneRxLaserPower and jnxDomCurrentLaneTxLaserOutputPower (0.01 dBm,
   -4000 = no light), jnxDomCurrentLaneTxLaserBiasCurrent (0.001 mA), jnxDomCurrentLaneLaserTemperature
   (degC). No DOM from the spines or the NICs. Absent while the leaf is unreachable.
3. Spines by gNMI (Telegraf `inputs.gnmi`, host `tlg-gnmi-01`), SAMPLE mode every 10 s. Three
   subscriptions: openconfig `/interfaces/interface/state`, openconfig
   `/interfaces/interface/ethernet/state/negotiated-port-speed`, and the Junos native
   `/junos/system/linecard/interface/` + `/state/interfaces/interface/counters/pfc` sensors.
   Telegraf turns hyphens into underscores and keeps the path below the subscription as the field
   name; a starlark processor folds the list keys into the name (out-queue[queue-number=3] ->
   out_queue_3, pfc[priority=3] -> pfc_3) and aggregators.merge makes one line per port and
   sample. Timestamps are the device's export time (ms) with a per-spine phase.
   Fields: admin_status, oper_status ("UP"/"DOWN", strings), negotiated_port_speed ("SPEED_400GB",
   "SPEED_200GB", "SPEED_UNKNOWN" while down), counters/in_octets counters/out_octets
   counters/in_pkts counters/out_pkts counters/in_unicast_pkts counters/out_unicast_pkts
   counters/in_multicast_pkts counters/out_multicast_pkts counters/in_errors counters/out_errors
   counters/in_discards counters/out_discards counters/in_fcs_errors counters/carrier_transitions
   (all uint64), out_queue_3/pkts out_queue_3/bytes out_queue_3/tail_drop_pkts
   out_queue_3/red_drop_pkts out_queue_3/ecn_marked_pkts (egress queue 3 of the port: CE marks
   it applied and WRED drops), pfc_3/in_pkts (PFC frames for priority 3 received on the port, i.e.
   the leaf pausing the spine), pfc_3/out_pkts (sent: the spine pausing the leaf).
   Tags: device, host, port (e.g. et-1/0/7), role=spine, source (mgmt IP), peer_device, peer_port
   (LLDP, same hold-time rule).
4. Host NICs (GPU and storage nodes), a Telegraf `inputs.exec` script on each node reading
   `ethtool -S`, /sys/class/net/*/{carrier,speed,carrier_changes} and
   /sys/class/infiniband/mlx5_N/ports/1/hw_counters, every 30 s with a per-node phase. Fields:
   rx_bytes_phy tx_bytes_phy rx_packets_phy tx_packets_phy rx_prio3_pause tx_prio3_pause
   rx_prio3_pause_duration tx_prio3_pause_duration (us) rx_discards_phy tx_discards_phy
   rx_crc_errors_phy rx_corrected_bits_phy link_down_events_phy (ethtool), carrier (0/1), speed
   (Mb/s, -1 while the carrier is down), carrier_changes (sysfs), np_cnp_sent
   np_ecn_marked_roce_packets rp_cnp_handled rp_cnp_ignored out_of_buffer out_of_sequence
   packet_seq_err local_ack_timeout_err (hw_counters). Every NIC counter restarts at 0 when the
   node reboots; nothing is sent while the node is down. Tags: device (node), host (node), port
   (mlx5_N), netdev, role (host_nic, storage_nic), peer_device / peer_port (lldpd).
Everything is a raw cumulative integer except the gauges named above. Timestamps are not aligned
between collectors. The run starts 2025-06-16T18:00:00Z (20:00 site time) and lasts 4 h.

WHAT THE NOC SEES WHEN THINGS GO WRONG (faults, labelled; 10-14 per seed, after the fit window)
-----------------------------------------------------------------------------------------------
* dirty_optic: a leaf port receiving through a dirty connector. Lane rx power of 1-2 lanes drops
  3-6 dB at the start (DOM), ifInErrors and dot3StatsFCSErrors rise as a stable fraction of the
  received frames (2e-8 growing to ~5e-7), zero while the link idles; the far end sees ~3 % of it
  (counters/in_fcs_errors or rx_crc_errors_phy, and more rx_corrected_bits_phy on a NIC).
* flapping_link: 2-4 bursts of 2-7 down/up cycles (2-25 s down). Spine: counters/carrier_transitions
  +2 a cycle, oper_status DOWN when a sample lands in a down; leaf: ifOperStatus 2 only if a 60 s
  poll lands in a down, ifLastChange moves; NIC: carrier_changes +2, link_down_events_phy +1,
  carrier 0; a few FCS errors at each link-up; traffic gaps; local_ack_timeout_err on the NIC.
* pfc_storm: a NIC whose receive path hangs keeps sending pause frames (tx_prio3_pause 30-80 k/s)
  while it receives ~nothing; the leaf's PFC watchdog drops towards it (ifOutDiscards on the leaf
  port). In the first minute the leaf pauses its uplinks: pfc_3/in_pkts on every spine port facing
  that leaf (related) and rx_prio3_pause on the leaf's other NICs (related). The node's job
  stalls (related). Ends with a NIC reset (one carrier bounce).
* ecn_disabled_spine: a CoS commit removed ECN from queue 3 on one spine (device, ports "*").
  out_queue_3/ecn_marked_pkts goes flat on all its ports while the other spines mark; where it
  congests (all-to-all, checkpoints) WRED drops instead: out_queue_3/red_drop_pkts and
  counters/out_discards rise, pfc_3/out_pkts several-fold; receivers' out_of_sequence rises (related).
* linecard_ingress_discards: one LC1201 of a spine (ports listed) drops on ingress:
  counters/in_discards on its ports as a fraction of received packets growing 1e-7 -> 1e-4.
* half_speed_link: a link bounces once and comes back at 200G (ifHighSpeed 200000 / NIC speed
  200000 / negotiated_port_speed SPEED_200GB). On a NIC link the job slows to that link's pace
  (related) and the NIC's received CE marks rise.
* laser_bias_degrading: one lane of a leaf optic: jnxDomCurrentLaneTxLaserBiasCurrent falls to about
  a third over an hour, its tx power falls with it (-8 to -10 dB), and once the far end's lane power
  drops below ~-7 dBm (about 50-70 min in) the far end counts FCS/CRC errors.
* optic_overheating: a leaf optic's module temperature climbs over 1-2 h through the 70 degC
  warning towards 76-82 degC; above ~73 degC the port starts counting FCS errors.
* link_down_after_maintenance: after work on the link (a few bounces) it stays down with both
  ends admin up (ifOperStatus 2 / ifAdminStatus 1, oper_status DOWN / admin_status UP); the leaf's
  DOM shows no light on all lanes (-40 dBm); the far-end device is up and otherwise healthy; ECMP
  shifts its share to the siblings. (Ethernet fault signalling brings both ends down.)
* dcqcn_misconfigured_nic: a NIC whose congestion control does not react to CNPs
  (rp_cnp_ignored rises, rp_cnp_handled stops); it sends ~10 % more than its siblings, its leaf
  pauses it far more (rx_prio3_pause 10x+ its siblings at the same load) and the spines pause that
  leaf more (pfc_3/out_pkts on the spine ports facing it, related), so the leaf's other NICs see
  somewhat more pauses too (related).

HEALTHY (labelled, must not be flagged)
---------------------------------------
Training jobs starting and stopping (data-loading ramp, then load on ~all links at once); MoE
all-to-all phases of the big job (every spine port congests together: ECN marks and PFC rise on
all of them, pauses on all NICs); checkpoint incast from all nodes to storage (storage-leaf downlinks
saturated, the storage leaves pause the spines, storage NICs see CE marks and send CNPs, GPU NICs
get paused, a few best-effort drops on the storage-leaf ports); a planned reboot of one compute leaf
inside a drain window (job stopped, the leaf absent 5-7 min, its links down then up on the spines and
the NICs, every counter of the leaf restarting near zero, sysUpTime and ifLastChange restarting);
two GPU node reboots (NIC counters restart at 0, the node absent ~6 min, its leaf ports down);
32-bit counter wraps (ifInDiscards/ifOutDiscards on a few ports, every octet/packet counter of the
leaves on the SNMPv1 template); steady ingress discards on a few host ports (frames the routed port does not
accept, all run); SNMP timeouts of one leaf for 5-12 minutes and single missed polls; a gNMI collector
gap of 3-8 minutes for one spine (no lines, counters continue); sporadic single CRC/FCS errors on a
few healthy links all run; the diurnal temperature swing of every optic (site cooling, ~2 degC over
the run) plus load-driven heating; admin-disabled unused ports (admin down, oper down, no optic);
an odd ingress discard on spine ports (background). Every cabled link carries a few kB/s of control
traffic (LLDP, BFD, BGP, ND), so the byte and packet counters of an up link never sit perfectly flat.
Workload: job A on most nodes all run (stopped for the drain), job B on a block of 2-3 nodes from
~20-40 min to ~160-170 min, job C on the same nodes from ~175-190 min; three all-to-all phases and
three checkpoints, one of each inside the fit window.

LABELS
------
labels.json: scenario, scale, seed, fabric, interval_s (30), sample_s (finest cadence, 10),
cadences_s, t0_ns, t_end_ns, train_until_ns (30 % of the run), fit_first, ports (distinct device/port
pairs in the feed), lines, topology, timeline_min, faults [{kind, device, ports, start_ns, end_ns,
peer_ends, related, signature}], healthy_phenomena [{kind, where, start_ns, end_ns, note, background?}].
A fault on a NIC is labelled on the node (device c1-gpuNN, port mlx5_N) with the leaf port as peer end;
a link fault on the leaf port with the spine port or NIC as peer end; spine-wide faults on the spine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict

import numpy as np

DT = 10                      # model tick, s (spine cadence)
LINE = 400e9 / 8.0           # bytes/s of a 400G link
C32 = 1 << 32
T0_S = 1750096800            # 2025-06-16T18:00:00Z
SITE_UTC_OFFSET_H = 2
GPU_NETDEV = ["enp26s0np0", "enp60s0np0", "enp77s0np0", "enp94s0np0",
              "enp156s0np0", "enp188s0np0", "enp204s0np0", "enp220s0np0"]
STOR_NETDEV = ["enp65s0f0np0", "enp65s0f1np1"]
POISSON_KEYS = ("fcs", "oob", "lat", "in_disc_bg", "disc_bg", "mc")


class Site:
    """One cluster, one seed: topology, timeline, counter model, rendering."""

    def __init__(self, seed: int, hours: float):
        self.seed = seed
        self.rng = np.random.default_rng([seed, 20250616])
        self.hours = hours
        self.T = round(hours * 3600 / 60.0) * 60
        self.K = self.T // DT
        self.sc = self.T / 14400.0
        self.edges = np.arange(self.K + 1, dtype=float) * DT
        self.tm = (np.arange(self.K) + 0.5) * DT
        self.train_until = round(0.3 * self.T / 60.0) * 60
        self.inc = defaultdict(dict)          # pid -> key -> per-tick increments
        self.faults = []
        self.healthy = []

    # ------------------------------------------------------------------ helpers
    def m(self, minutes: float) -> float:
        return minutes * 60.0 * self.sc

    def cover(self, a: float, b: float) -> np.ndarray:
        e = self.edges
        return np.clip(np.minimum(e[1:], b) - np.maximum(e[:-1], a), 0.0, DT) / DT

    def fault_start(self, s: float) -> float:
        s = max(s, self.train_until + 30.0)
        return float(np.ceil(s / 30.0) * 30.0)

    def add(self, pid: int, key: str, arr) -> None:
        d = self.inc[pid]
        if key in d:
            d[key] = d[key] + arr
        else:
            d[key] = np.zeros(self.K) + arr

    def ns(self, s: float) -> int:
        return T0_S * 10**9 + round(s * 1e9)

    def pname(self, pid: int) -> tuple[str, str]:
        p = self.ports[pid]
        return p["dev"], p["name"]

    def far(self, pid: int) -> int:
        lk = self.links[self.ports[pid]["link"]]
        return lk["b"] if lk["a"] == pid else lk["a"]

    # ------------------------------------------------------------------ topology
    def build_topology(self) -> None:
        r = self.rng
        self.nh = nh = int(r.integers(6, 11))
        self.npair = npair = (nh + 3) // 4
        self.nst = nst = int(r.integers(4, 7))
        self.devices, self.ports, self.links, self.pidx = {}, [], [], {}

        def add_dev(name, **kw):
            self.devices[name] = dict(name=name, **kw)

        def add_port(dev, name, role, kind, optic=False, admin=1, netdev=None):
            pid = len(self.ports)
            self.ports.append(dict(id=pid, dev=dev, name=name, role=role, kind=kind, link=-1,
                                   side="", admin=admin, optic=optic, netdev=netdev))
            self.pidx[(dev, name)] = pid
            return pid

        def add_link(pa, pb, kind, **kw):
            lid = len(self.links)
            self.links.append(dict(id=lid, a=pa, b=pb, kind=kind, down=[], speed=[], **kw))
            self.ports[pa]["link"], self.ports[pa]["side"] = lid, "a"
            self.ports[pb]["link"], self.ports[pb]["side"] = lid, "b"
            return lid

        self.spines = [f"c1-spine{s + 1:02d}" for s in range(4)]
        for s, name in enumerate(self.spines):
            add_dev(name, kind="spine", model="PTX10008", source=f"10.20.0.{11 + s}",
                    phase=float(r.uniform(0.2, 9.8)))
        self.leaves = []
        for p in range(npair):
            for side in range(2):
                self.leaves.append(f"c1-leaf{p + 1:02d}{'ab'[side]}")
        self.stleaves = ["c1-stleaf01", "c1-stleaf02"]
        for i, name in enumerate(self.leaves + self.stleaves):
            legacy = name in self.stleaves
            add_dev(name, kind="stleaf" if legacy else "leaf", model="QFX5220-32CD",
                    snmp="1" if legacy else "2c", agent=f"10.20.1.{21 + i}",
                    phase=float(r.uniform(0.0, 59.0)), dom_phase=float(r.uniform(0.0, 299.0)),
                    boot=-float(r.uniform(35, 220)) * 86400.0, toff=float(r.uniform(-2.0, 2.5)))
        self.hosts = [f"c1-gpu{h + 1:02d}" for h in range(nh)]
        self.stors = [f"c1-stor{j + 1:02d}" for j in range(nst)]
        for name in self.hosts + self.stors:
            add_dev(name, kind="gpu" if name in self.hosts else "stor",
                    phase=float(r.uniform(0.0, 29.0)))

        # leaf ports
        self.leaf_ports = {}
        for li, leaf in enumerate(self.leaves):
            p, side = divmod(li, 2)
            plist = []
            for q in range(32):
                if q < 16:
                    h = 4 * p + q // 4
                    if h < nh:
                        plist.append(add_port(leaf, f"et-0/0/{q}", "leaf_down", "leaf", optic=True))
                    else:
                        plist.append(add_port(leaf, f"et-0/0/{q}", "unused", "leaf", admin=2))
                else:
                    plist.append(add_port(leaf, f"et-0/0/{q}", "leaf_up", "leaf", optic=True))
            self.leaf_ports[leaf] = plist
        for sl in self.stleaves:
            plist = []
            for q in range(32):
                if q < nst:
                    plist.append(add_port(sl, f"et-0/0/{q}", "leaf_down", "leaf", optic=True))
                elif q < 24:
                    plist.append(add_port(sl, f"et-0/0/{q}", "unused", "leaf", admin=2))
                else:
                    plist.append(add_port(sl, f"et-0/0/{q}", "leaf_up", "leaf", optic=True))
            self.leaf_ports[sl] = plist
        # spine ports, FPC0/FPC1 alternating per leaf link
        self.spine_ports = {s: [] for s in self.spines}
        nxt = {(s, f): 0 for s in self.spines for f in (0, 1)}
        uplinks_of = defaultdict(list)
        for s_i, s in enumerate(self.spines):
            for leaf in self.leaves + self.stleaves:
                nl = 2 if leaf in self.stleaves else 4
                for mm in range(nl):
                    fpc = mm % 2
                    q = nxt[(s, fpc)]
                    nxt[(s, fpc)] += 1
                    sp = add_port(s, f"et-{fpc}/0/{q}", "spine", "spine", optic=True)
                    self.spine_ports[s].append(sp)
                    lq = (16 + 4 * s_i + mm) if nl == 4 else (24 + 2 * s_i + mm)
                    lp = self.pidx[(leaf, f"et-0/0/{lq}")]
                    kind = "sup" if nl == 2 else "up"
                    lid = add_link(lp, sp, kind, leaf=leaf, spine=s, fpc=fpc)
                    uplinks_of[leaf].append(lid)
        self.uplinks_of = uplinks_of
        # NIC ports and host links
        self.nic = {}
        self.hostlinks_of = defaultdict(list)
        for h, host in enumerate(self.hosts):
            p, slot = divmod(h, 4)
            for n in range(8):
                leaf = self.leaves[2 * p + (n % 2)]
                pid = add_port(host, f"mlx5_{n}", "host_nic", "nic", netdev=GPU_NETDEV[n])
                lp = self.pidx[(leaf, f"et-0/0/{4 * slot + n // 2}")]
                lid = add_link(pid, lp, "host", host=h, n=n, leaf=leaf)
                self.nic[(h, n)] = pid
                self.hostlinks_of[leaf].append(lid)
        self.stnic = {}
        self.storlinks = []
        for j, st in enumerate(self.stors):
            for k in range(2):
                pid = add_port(st, f"mlx5_{k}", "storage_nic", "nic", netdev=STOR_NETDEV[k])
                lp = self.pidx[(self.stleaves[k], f"et-0/0/{j}")]
                self.storlinks.append(add_link(pid, lp, "stor", stor=j, sl=self.stleaves[k]))
                self.stnic[(j, k)] = pid
        self.NL = len(self.links)
        self.ecmp_w = r.lognormal(0.0, 0.04, self.NL)
        # per-port static properties
        for p in self.ports:
            p["fsize_in"] = float(r.uniform(3650, 4120))
            p["fsize_out"] = float(r.uniform(3650, 4120))
        self.nic_ber = {pid: 10 ** float(r.uniform(-8.6, -6.9)) for pid in list(self.nic.values()) + list(self.stnic.values())}
        self.cnp_ratio = {pid: float(r.uniform(0.22, 0.4)) for pid in list(self.nic.values()) + list(self.stnic.values())}

    # ------------------------------------------------------------------ timeline
    def build_timeline(self) -> None:
        r, M, T = self.rng, self.m, float(self.T)
        nh = self.nh
        nB = 2 if nh <= 7 else 3
        while True:                      # job B: a block of consecutive nodes somewhere in the cluster
            b0 = int(r.integers(0, nh - nB + 1))
            B = list(range(b0, b0 + nB))
            A = [h for h in range(nh) if h not in B]
            pairs_A = [p for p in range(self.npair) if all(h in A for h in range(4 * p, min(4 * p + 4, nh)))]
            if pairs_A:
                break
        self.jobA_hosts, self.jobB_hosts = A, B
        p_r = int(r.choice(pairs_A))
        self.reboot_leaf = self.leaves[2 * p_r + int(r.integers(0, 2))]
        # some seeds: one compute leaf still polled with the legacy SNMPv1 template (32-bit octets)
        self.legacy_leaves = list(self.stleaves)
        if r.uniform() < 0.5:
            lg = str(r.choice([x for x in self.leaves if x != self.reboot_leaf]))
            self.devices[lg]["snmp"] = "1"
            self.legacy_leaves.append(lg)
        hr_hosts = [int(x) for x in r.choice(B, size=2, replace=False)]
        ev = {}
        ev["hr1"] = M(r.uniform(3, 8))
        ev["hr1_len"] = M(r.uniform(5.5, 7.0))
        ev["B_start"] = max(ev["hr1"] + ev["hr1_len"] + M(r.uniform(6, 12)), M(r.uniform(22, 36)))
        ev["C1"], ev["C1_len"] = M(r.uniform(12, 19)), M(r.uniform(2, 4))
        ev["E1"], ev["E1_len"] = M(r.uniform(42, 56)), M(r.uniform(6, 10))
        ev["E2"], ev["E2_len"] = M(r.uniform(78, 90)), M(r.uniform(6, 9))
        ev["C2"] = ev["E2"] + ev["E2_len"] + M(r.uniform(3, 6))
        ev["C2_len"] = M(r.uniform(2, 3.5))
        ev["g0"] = M(r.uniform(116, 136))
        ev["tr"] = ev["g0"] + M(r.uniform(2.5, 4.0))
        ev["t_up"] = ev["tr"] + M(r.uniform(3.2, 4.5))
        ev["snmp_back"] = ev["tr"] + M(r.uniform(5.5, 7.0))
        ev["g1"] = ev["snmp_back"] + M(r.uniform(2.0, 4.0))
        ev["B_stop"] = M(r.uniform(158, 172))
        ev["hr2"] = ev["B_stop"] + M(r.uniform(3, 6))
        ev["hr2_len"] = M(r.uniform(5.5, 7.0))
        ev["C_start"] = ev["hr2"] + ev["hr2_len"] + M(r.uniform(4, 9))
        ev["E3"], ev["E3_len"] = M(r.uniform(180, 198)), M(r.uniform(6, 10))
        ev["C3"] = ev["E3"] + ev["E3_len"] + M(r.uniform(5, 12))
        ev["C3_len"] = M(r.uniform(2, 4))
        self.ev = ev
        self.hr_hosts = hr_hosts

        def level(lo, hi):
            K = self.K
            e = r.normal(0, 1, K)
            v = np.empty(K)
            x = r.normal(0, 1)
            for k in range(K):
                x = 0.985 * x + 0.17 * e[k]
                v[k] = x
            return lo + (hi - lo) / (1 + np.exp(-v))

        def act(windows):
            a = np.zeros(self.K)
            for s, e in windows:
                ramp = self.m(1.5) if s > 0 else 0.0
                a += self.cover(s + ramp, e) + 0.15 * self.cover(s, s + ramp)
            return a

        self.jobs = [
            dict(name="A", hosts=A, act=act([(-1.0, ev["g0"]), (ev["g1"], T + DT)]), level=level(0.5, 0.72)),
            dict(name="B", hosts=B, act=act([(ev["B_start"], ev["B_stop"])]), level=level(0.45, 0.68)),
            dict(name="C", hosts=B, act=act([(ev["C_start"], T + DT)]), level=level(0.4, 0.62)),
        ]
        a2a = self.cover(ev["E1"], ev["E1"] + ev["E1_len"]) + self.cover(ev["E2"], ev["E2"] + ev["E2_len"]) + self.cover(ev["E3"], ev["E3"] + ev["E3_len"])
        ck = sum(self.cover(ev[c], ev[c] + ev[c + "_len"]) for c in ("C1", "C2", "C3"))
        for J in self.jobs:
            J["a2a"] = a2a * (J["act"] > 0.5) if J["name"] == "A" else np.zeros(self.K)
            J["ck"] = ck * (J["act"] > 0.5)
            J["stall"] = np.ones(self.K)
            J["slow"] = np.ones(self.K)
        self.a2a = self.jobs[0]["a2a"]
        self.ck_util = r.uniform(0.2, 0.3, nh)
        self.read_Bps = r.uniform(20e6, 40e6, nh)

        # planned leaf reboot: every link of the leaf goes down, comes back
        L = self.reboot_leaf
        for lid in self.uplinks_of[L] + self.hostlinks_of[L]:
            self.links[lid]["down"].append((ev["tr"] + float(r.uniform(0, 2)), ev["t_up"] + float(r.uniform(0, 25))))
        self.devices[L]["absent"] = [(ev["tr"], ev["snmp_back"])]
        self.devices[L]["reset"] = ev["tr"] + self.m(1.6)
        self.devices[L]["reboot_at"] = ev["tr"]
        # node reboots
        for hh, key in zip(hr_hosts, ("hr1", "hr2"), strict=True):
            host = self.hosts[hh]
            t, ln = ev[key], ev[key + "_len"]
            self.devices[host].setdefault("absent", []).append((t, t + ln))
            self.devices[host].setdefault("resets", []).append(t + 140.0)
            for n in range(8):
                lid = self.ports[self.nic[(hh, n)]]["link"]
                self.links[lid]["down"].append((t + 30.0 + float(r.uniform(0, 3)), t + 150.0 + float(r.uniform(0, 6))))
        # SNMP timeouts on one leaf for several minutes, gNMI gap on one spine
        cand = [x for x in self.leaves + self.stleaves if x != L]
        self.snmp_gap_leaf = str(r.choice(cand))
        s = M(r.uniform(95, 215))
        self.snmp_gap = (s, s + M(r.uniform(5, 12)))
        self.devices[self.snmp_gap_leaf].setdefault("absent", []).append(self.snmp_gap)
        self.gnmi_gap_spine = str(r.choice(self.spines))
        s = M(r.uniform(80, 225))
        self.gnmi_gap = (s, s + M(r.uniform(3, 8)))
        self.devices[self.gnmi_gap_spine].setdefault("absent", []).append(self.gnmi_gap)

    def job_active_all(self, h: int, a: float, b: float):
        ka, kb = int(a // DT), min(int(np.ceil(b / DT)), self.K)
        for J in self.jobs:
            if h in J["hosts"] and np.all(J["act"][ka:kb] > 0.5):
                return J
        return None

    # ------------------------------------------------------------------ faults
    def place_faults(self) -> None:
        r, M, T = self.rng, self.m, float(self.T)
        ev = self.ev
        L_r = self.reboot_leaf
        bad_hosts = set(self.hr_hosts)
        used_links = set()
        used_hosts = set()
        drain = (ev["g0"] - M(2), ev["g1"] + M(3))

        def overl(a, b, w):
            return a < w[1] and w[0] < b

        def cand_links(kinds, need_job=None):
            out = []
            for lk in self.links:
                if lk["id"] in used_links or lk["kind"] not in kinds:
                    continue
                if lk.get("leaf") == L_r:
                    continue
                if lk["kind"] == "host" and (lk["host"] in bad_hosts or lk["host"] in used_hosts):
                    continue
                if lk["kind"] == "host" and need_job and lk["host"] not in self.jobA_hosts:
                    continue
                out.append(lk["id"])
            return out

        leaf_load = defaultdict(int)

        def pick(lst):
            return lst[int(r.integers(0, len(lst)))]

        def pick_link(lids):
            """Prefer links on leaves that carry fewer faults so far."""
            w = np.array([1.0 / (1.0 + 4.0 * leaf_load[self.links[x]["leaf"]]) for x in lids])
            lid = lids[int(r.choice(len(lids), p=w / w.sum()))]
            leaf_load[self.links[lid]["leaf"]] += 1
            return lid

        def pick_nic(h):
            ns = [n for n in range(8) if self.ports[self.nic[(h, n)]]["link"] not in used_links]
            w = np.array([1.0 / (1.0 + 4.0 * leaf_load[self.links[self.ports[self.nic[(h, n)]]["link"]]["leaf"]]) for n in ns])
            n = ns[int(r.choice(len(ns), p=w / w.sum()))]
            leaf_load[self.links[self.ports[self.nic[(h, n)]]["link"]]["leaf"]] += 1
            return n

        def start_in(lo, hi, avoid_drain=False, length=0.0):
            for _ in range(200):
                s = self.fault_start(M(r.uniform(lo, hi)))
                if not avoid_drain or not overl(s, s + length, drain):
                    return s
            return self.fault_start(M(lo))

        kinds = ["dirty_optic", "flapping_link", "pfc_storm", "ecn_disabled_spine",
                 "linecard_ingress_discards", "half_speed_link", "laser_bias_degrading",
                 "optic_overheating", "link_down_after_maintenance", "dcqcn_misconfigured_nic"]
        extra_pool = ["dirty_optic", "flapping_link", "half_speed_link", "optic_overheating",
                      "link_down_after_maintenance", "laser_bias_degrading", "pfc_storm"]
        n_extra = int(r.integers(0, 5))
        kinds += [str(x) for x in r.choice(extra_pool, size=n_extra, replace=False)]
        spines_free = [s for s in self.spines]
        for kind in kinds:
            f = dict(kind=kind)
            if kind in ("dirty_optic", "laser_bias_degrading", "optic_overheating"):
                lid = pick_link(cand_links(("up", "host"), need_job=True))
                lk = self.links[lid]
                leaf_pid = lk["a"] if lk["kind"] == "up" else lk["b"]
                f.update(link=lid, pid=leaf_pid)
                lo, hi = (75, 170) if kind == "dirty_optic" else (75, 150)
                f["s"] = start_in(lo, hi, avoid_drain=True, length=M(15))
                f["e"] = T
                if kind == "dirty_optic":
                    f["lanes"] = sorted(int(x) for x in r.choice(4, size=int(r.integers(1, 3)), replace=False))
                    f["drop_db"] = float(r.uniform(3.0, 6.0))
                    f["f0"] = 2e-8 * float(r.uniform(0.7, 1.5))
                    f["f1"] = 5e-7 * float(r.uniform(0.6, 2.0))
                elif kind == "laser_bias_degrading":
                    f["lane"] = int(r.integers(0, 4))
                    f["floor"] = float(r.uniform(0.30, 0.36))
                    f["decl"] = M(r.uniform(55, 65))
                else:
                    f["Tmax"] = float(r.uniform(76, 82))
                    f["tau"] = M(r.uniform(35, 55))
                used_links.add(lid)
            elif kind == "flapping_link":
                lid = pick_link(cand_links(("up", "host"), need_job=True))
                lk = self.links[lid]
                s = start_in(80, 200, avoid_drain=True, length=M(30))
                dur = M(r.uniform(15, 35))
                downs = []
                nb = int(r.integers(2, 5))
                bstarts = [s, *sorted(float(x) for x in s + r.uniform(M(3), dur - M(2), nb - 1))]
                last = s
                for bs in bstarts:
                    t = max(bs, last + 20.0)
                    for _ in range(int(r.integers(2, 8))):
                        d = float(r.uniform(2, 25))
                        downs.append((t, t + d))
                        last = t + d
                        t = last + float(r.uniform(5, 60))
                lk["down"].extend(downs)
                f.update(link=lid, pid=lk["a"] if lk["kind"] == "up" else lk["b"], s=s, e=self.fault_start(last), downs=downs)
                used_links.add(lid)
            elif kind == "pfc_storm":
                dur = M(r.uniform(6, 14))
                pickd = None
                prefer_b = r.uniform() < 0.5
                for _ in range(300):
                    s = start_in(85, 205, avoid_drain=True, length=dur + M(3))
                    cands = [h for h in range(self.nh) if h not in used_hosts and h not in bad_hosts] or \
                        [h for h in range(self.nh) if h not in used_hosts]
                    if prefer_b:
                        cands = [h for h in cands if h in self.jobB_hosts] or cands
                    cands = [h for h in cands if self.job_active_all(h, s - M(2), s + dur + M(2))]
                    cands = [h for h in cands if any(self.ports[self.nic[(h, n)]]["link"] not in used_links for n in range(8))]
                    if cands:
                        pickd = (s, pick(cands))
                        break
                if pickd is None:
                    continue
                s, h = pickd
                n = pick_nic(h)
                pid = self.nic[(h, n)]
                lid = self.ports[pid]["link"]
                e = s + dur
                J = self.job_active_all(h, s - M(2), s + dur + M(2))
                f.update(link=lid, pid=pid, h=h, n=n, s=s, e=self.fault_start(e), job=J["name"],
                         rate=float(r.uniform(30e3, 80e3)), restart=float(r.uniform(60, 150)))
                self.links[lid]["down"].append((f["e"], f["e"] + float(r.uniform(4, 8))))
                used_links.add(lid)
                used_hosts.add(h)
            elif kind == "ecn_disabled_spine":
                cands = [s for s in spines_free if s != self.gnmi_gap_spine] or spines_free
                sp = pick(cands)
                spines_free.remove(sp)
                epi = ev["E2"] if r.uniform() < 0.35 else ev["E3"]
                s = self.fault_start(epi - M(r.uniform(5, 20)))
                f.update(spine=sp, s=s, e=min(T, self.fault_start(s + M(r.uniform(40, 70)))))
            elif kind == "linecard_ingress_discards":
                cands = [s for s in spines_free if s != self.gnmi_gap_spine] or spines_free
                sp = pick(cands)
                spines_free.remove(sp)
                fpc = int(r.integers(0, 2))
                s = start_in(85, 180)
                f.update(spine=sp, fpc=fpc, s=s, e=min(T, self.fault_start(s + M(r.uniform(45, 90)))),
                         pids=[pid for pid in self.spine_ports[sp] if self.ports[pid]["name"].startswith(f"et-{fpc}/")])
            elif kind == "half_speed_link":
                kinds_l = ("host",) if r.uniform() < 0.7 else ("up",)
                lid = pick_link(cand_links(kinds_l, need_job=True))
                lk = self.links[lid]
                s = start_in(85, 200, avoid_drain=True, length=M(5))
                up = s + float(r.uniform(8, 15))
                lk["down"].append((s, up))
                lk["speed"].append((up, LINE / 2))
                f.update(link=lid, pid=lk["b"] if lk["kind"] == "host" else lk["a"], s=s, e=T, up=up)
                used_links.add(lid)
                if lk["kind"] == "host":
                    used_hosts.add(lk["host"])
            elif kind == "link_down_after_maintenance":
                lid = pick_link(cand_links(("up",)))
                lk = self.links[lid]
                s = start_in(90, 205)
                d1 = s + float(r.uniform(30, 90))
                s2 = d1 + float(r.uniform(20, 60))
                lk["down"].extend([(s, d1), (s2, T + 2 * DT)])
                f.update(link=lid, pid=lk["a"], s=s, e=T)
                used_links.add(lid)
            elif kind == "dcqcn_misconfigured_nic":
                dur = M(r.uniform(45, 80))
                pickd = None
                for _ in range(300):
                    s = start_in(80, 170, avoid_drain=True, length=dur)
                    cands = [h for h in self.jobA_hosts if h not in bad_hosts and h not in used_hosts
                             and self.job_active_all(h, s, s + dur)
                             and any(self.ports[self.nic[(h, n)]]["link"] not in used_links for n in range(8))]
                    if cands:
                        pickd = (s, pick(cands))
                        break
                if pickd is None:
                    continue
                s, h = pickd
                n = pick_nic(h)
                pid = self.nic[(h, n)]
                lid = self.ports[pid]["link"]
                f.update(link=lid, pid=pid, h=h, n=n, s=s, e=self.fault_start(s + dur))
                used_links.add(lid)
                used_hosts.add(h)
            self.faults.append(f)
        # job-level consequences: storm stalls its job, a slow host link paces its job
        for f in self.faults:
            if f["kind"] == "pfc_storm":
                J = next(j for j in self.jobs if j["name"] == f["job"])
                st = self.cover(f["s"] + 30.0, f["e"] + f["restart"])
                J["stall"] = J["stall"] * (1.0 - 0.985 * st)

    # ------------------------------------------------------------------ traffic + counters
    def simulate(self) -> None:
        r, K, nh = self.rng, self.K, self.nh
        NL = self.NL
        upf = np.ones((NL, K))
        spd = np.full((NL, K), LINE)
        for lk in self.links:
            for a, b in lk["down"]:
                upf[lk["id"]] -= self.cover(a, b)
            for t, sp in lk["speed"]:
                spd[lk["id"], self.tm >= t] = sp
        self.upf = upf = np.clip(upf, 0.0, 1.0)
        self.spd = spd
        # half-speed host links pace their job
        for f in self.faults:
            if f["kind"] == "half_speed_link" and self.links[f["link"]]["kind"] == "host":
                h = self.links[f["link"]]["host"]
                for J in self.jobs:
                    if h in J["hosts"]:
                        des = J["act"] * J["level"] * (1 + 0.28 * J["a2a"]) * (1 - 0.65 * J["ck"])
                        fac = np.minimum(1.0, 0.47 / np.maximum(des, 1e-6))
                        J["slow"] = np.where(self.tm >= f["up"], fac, J["slow"])
        util = np.zeros((nh, K))
        cross = np.full((nh, K), 0.30)
        stor_dem = np.zeros((nh, K))
        reads = np.zeros((nh, K))
        a2a_h = np.zeros((nh, K))
        act_h = np.zeros((nh, K))
        for J in self.jobs:
            base = J["act"] * J["level"] * (1 + 0.28 * J["a2a"]) * (1 - 0.65 * J["ck"]) * J["stall"] * J["slow"]
            for h in J["hosts"]:
                util[h] += base
                cross[h] += 0.5 * J["a2a"]
                a2a_h[h] += J["a2a"]
                act_h[h] += J["act"] * J["stall"]
                stor_dem[h] += J["ck"] * J["act"] * J["stall"] * self.ck_util[h] * LINE
                reads[h] += np.minimum(J["act"], 1.0) * self.read_Bps[h]
        util = np.clip(util, 0.0, 0.95)
        self.util_h, self.a2a_h, self.act_h = util, a2a_h, np.clip(act_h, 0, 1)
        cross = np.clip(cross + r.normal(0, 0.015, (nh, K)), 0.1, 0.9)
        tx_tr = LINE * util[:, None, :] * r.lognormal(0, 0.04, (nh, 8, K))
        rx_tr = LINE * util[:, None, :] * r.lognormal(0, 0.04, (nh, 8, K))
        tx_st = stor_dem[:, None, :] / 8.0 * r.lognormal(0, 0.05, (nh, 8, K))
        rx_rd = reads[:, None, :] / 8.0 * r.lognormal(0, 0.1, (nh, 8, K))
        for f in self.faults:
            if f["kind"] == "dcqcn_misconfigured_nic":
                tx_tr[f["h"], f["n"]] *= 1.0 + 0.1 * self.cover(f["s"], f["e"])
            elif f["kind"] == "pfc_storm":
                c = self.cover(f["s"], f["e"])
                rx_tr[f["h"], f["n"]] *= 1.0 - 0.999 * c
                rx_rd[f["h"], f["n"]] *= 1.0 - 0.999 * c
        for h in range(nh):
            for n in range(8):
                lid = self.ports[self.nic[(h, n)]]["link"]
                u = upf[lid]
                cap = spd[lid] * 0.985
                tx_tr[h, n] = np.minimum(tx_tr[h, n] * u, cap * u)
                rx_tr[h, n] = np.minimum(rx_tr[h, n] * u, cap * u)
                tx_st[h, n] *= u
                rx_rd[h, n] *= u
        # storage incast
        dem = tx_st.sum(axis=(0, 1))
        cap_tot = sum(0.96 * LINE * upf[lid] for lid in self.storlinks)
        incast = dem / np.maximum(cap_tot, 1.0)
        self.incast = incast
        tx_st *= np.minimum(1.0, 1.0 / np.maximum(incast, 1e-9))[None, None, :]
        D = tx_st.sum(axis=(0, 1))
        RD = rx_rd.sum(axis=(0, 1))
        ab = np.zeros((NL, K))
        ba = np.zeros((NL, K))
        for h in range(nh):
            for n in range(8):
                lid = self.ports[self.nic[(h, n)]]["link"]
                ab[lid] = tx_tr[h, n] + tx_st[h, n]
                ba[lid] = rx_tr[h, n] + rx_rd[h, n]
        for lid in self.storlinks:
            ba[lid] = np.minimum(D / len(self.storlinks) * r.lognormal(0, 0.03, K), 0.975 * LINE) * upf[lid]
            ab[lid] = (RD / len(self.storlinks) * r.lognormal(0, 0.1, K) + 2e5) * upf[lid]
        self.tx_tr, self.rx_tr, self.tx_st = tx_tr, rx_tr, tx_st
        over_dn = np.zeros((NL, K))

        def spread(tot, lids, sigma):
            lids = np.array(lids)
            w = self.ecmp_w[lids][:, None] * r.lognormal(0, sigma, (len(lids), K)) * upf[lids]
            return tot[None, :] * w / np.maximum(w.sum(axis=0), 1e-12)

        self.hostinfo = {}
        for L in self.leaves:
            hls = self.hostlinks_of[L]
            up_tot = np.zeros(K)
            dn_tot = np.zeros(K)
            for lid in hls:
                lk = self.links[lid]
                h, n = lk["host"], lk["n"]
                up_tot += tx_tr[h, n] * cross[h] + tx_st[h, n]
                dn_tot += rx_tr[h, n] * cross[h] + rx_rd[h, n]
            uls = self.uplinks_of[L]
            sig = 0.05 + 0.1 * self.a2a
            up = spread(up_tot, uls, 0.05)
            dn = spread(dn_tot, uls, 0.05) * r.lognormal(0, 1, (len(uls), K)) ** sig[None, :]
            for i, lid in enumerate(uls):
                cap = spd[lid] * upf[lid] * 0.985
                over_dn[lid] = np.maximum(dn[i] - cap, 0.0)
                ab[lid] = np.minimum(up[i], cap)
                ba[lid] = np.minimum(dn[i], cap)
        for sl in self.stleaves:
            uls = self.uplinks_of[sl]
            dn = spread(D / 2 + 1e6, uls, 0.04)
            up = spread(RD / 2 + 0.02 * D / 2 + 1e6, uls, 0.06)
            for i, lid in enumerate(uls):
                cap = spd[lid] * upf[lid] * 0.985
                ab[lid] = np.minimum(up[i], cap)
                ba[lid] = np.minimum(dn[i], cap)
        # control plane on every cabled link (LLDP, BFD, BGP, ND, monitoring): never perfectly flat
        cp = r.uniform(3e3, 2e4, (NL, 2))
        ab += cp[:, :1] * upf * r.lognormal(0, 0.2, (NL, K))
        ba += cp[:, 1:] * upf * r.lognormal(0, 0.2, (NL, K))
        self.ab, self.ba = ab, ba

        # ---- congestion on the spines (egress toward each leaf)
        ecn_on = {s: np.ones(K) for s in self.spines}
        for f in self.faults:
            if f["kind"] == "ecn_disabled_spine":
                ecn_on[f["spine"]] = 1.0 - self.cover(f["s"], f["e"])
        storm_leaf = defaultdict(lambda: np.zeros(K))
        for f in self.faults:
            if f["kind"] == "pfc_storm":
                L = self.links[f["link"]]["leaf"]
                dt = self.tm - f["s"]
                c = self.cover(f["s"], f["e"])
                storm_leaf[L] = storm_leaf[L] + c * (np.exp(-np.clip(dt, 0, None) / 45.0) + 0.012)
        dcq_leaf = defaultdict(lambda: np.zeros(K))
        for f in self.faults:
            if f["kind"] == "dcqcn_misconfigured_nic":
                L = self.links[f["link"]]["leaf"]
                dcq_leaf[L] = dcq_leaf[L] + self.cover(f["s"], f["e"]) * self.util_h[f["h"]] / 0.6
        hs_leaf = defaultdict(lambda: np.zeros(K))
        for f in self.faults:
            if f["kind"] == "half_speed_link" and self.links[f["link"]]["kind"] == "host":
                L = self.links[f["link"]]["leaf"]
                hs_leaf[L] = hs_leaf[L] + (self.tm >= f["up"]) * self.util_h[self.links[f["link"]]["host"]] / 0.5
        inc_ex = np.clip(incast - 0.85, 0.0, 1.5)
        self.P = {}
        self.mark = {}
        upl = [lk for lk in self.links if lk["kind"] in ("up", "sup")]
        for lk in upl:
            lid = lk["id"]
            u_dn = ba[lid] / spd[lid]
            noise = r.lognormal(0, 1, K) ** (0.03 + 0.12 * self.a2a)
            P = np.clip((u_dn * noise - 0.6) / 0.35, 0, 2) ** 2 * (1 + 2.5 * self.a2a)
            P = P + 3.0 * over_dn[lid] / spd[lid]
            if lk["kind"] == "sup":
                P = P + 1.5 * np.clip(incast - 0.9, 0, 1.5)
            P = P + storm_leaf[lk["leaf"]] * 0.8
            P = P * (1 + 0.8 * (1 - ecn_on[lk["spine"]]))
            self.P[lid] = P
            self.mark[lid] = (2e-5 * u_dn + 0.01 * np.minimum(P, 3.0)) * ecn_on[lk["spine"]]
        Cs = {s: np.mean([self.P[self.ports[p]["link"]] for p in self.spine_ports[s]], axis=0) for s in self.spines}
        self.pf_out = {}
        drops_tot = np.zeros(K)
        for lk in upl:
            lid, sp = lk["id"], lk["b"]
            s = lk["spine"]
            u_up = ab[lid] / spd[lid]
            fs_out = self.ports[sp]["fsize_out"]
            pk_dn = ba[lid] * DT / fs_out
            off = 1 - ecn_on[s]
            pf_out = (2500.0 * Cs[s] * (0.3 + u_up) + 0.02) * (1 + 3 * off) + 700.0 * dcq_leaf[lk["leaf"]]
            pf_out = pf_out * r.lognormal(0, 0.25, K) * upf[lid]
            self.pf_out[lid] = pf_out
            if lk["kind"] == "up":
                L = lk["leaf"]
                pf_in = 220.0 * self.a2a * np.mean([self.util_h[h] for h in self.hosts_on(L)], axis=0) / 0.7
                pf_in = pf_in + 15000.0 * storm_leaf[L] + 90.0 * hs_leaf[L] + 0.01
            else:
                pf_in = 3000.0 * inc_ex + 0.01
            pf_in = pf_in * r.lognormal(0, 0.25, K) * upf[lid]
            self.add(sp, "pfc_tx", pf_out * DT)
            self.add(sp, "pfc_rx", pf_in * DT)
            self.add(sp, "ecn", pk_dn * self.mark[lid])
            red = pk_dn * (0.0008 * self.P[lid] * (1 + np.minimum(self.P[lid], 3.0)) + 1e-6 * ba[lid] / spd[lid]) * off
            self.add(sp, "red", red)
            self.add(sp, "out_disc", red)
            self.add(sp, "q3_pk", pk_dn * 0.996)
            self.add(sp, "q3_by", ba[lid] * DT * 0.998)
            drops_tot += red
        for f in self.faults:
            if f["kind"] == "linecard_ingress_discards":
                prog = np.clip((self.tm - f["s"]) / max(f["e"] - f["s"], 1.0), 0, 1)
                c = self.cover(f["s"], f["e"])
                frac = 10 ** (-7 + 3 * prog) * c * r.lognormal(0, 0.3, K)
                for sp in f["pids"]:
                    lid = self.ports[sp]["link"]
                    d = ab[lid] * DT / self.ports[sp]["fsize_in"] * frac
                    self.add(sp, "in_disc", d)
                    drops_tot += d
        self.drops_tot = drops_tot

        # ---- NIC counters
        leaf_pfout = {}
        leaf_mark = {}
        for L in self.leaves:
            uls = self.uplinks_of[L]
            leaf_pfout[L] = np.mean([self.pf_out[lid] for lid in uls], axis=0)
            leaf_mark[L] = np.mean([self.mark[lid] for lid in uls], axis=0)
        job_cnp = defaultdict(lambda: np.zeros(K))
        job_cnt = defaultdict(int)
        rx_tot = rx_tr.sum(axis=(0, 1)) + 1.0
        tx_tot = tx_tr.sum(axis=(0, 1)) + 1.0
        stor_share = tx_st / np.maximum(tx_st.sum(axis=(0, 1)), 1.0)
        for h in range(nh):
            grp = "A" if h in self.jobA_hosts else "B"
            for n in range(8):
                pid = self.nic[(h, n)]
                lid = self.ports[pid]["link"]
                L = self.links[lid]["leaf"]
                fin, fout = self.ports[pid]["fsize_in"], self.ports[pid]["fsize_out"]
                rxp = rx_tr[h, n] * DT / fin
                rxb = ba[lid] * DT
                txb = ab[lid] * DT
                self.add(pid, "rx_B", rxb)
                self.add(pid, "tx_B", txb)
                self.add(pid, "rx_P", rxb / fin)
                self.add(pid, "tx_P", txb / fout)
                pause_rx = self.act_h[h] * (0.05 + 0.5 * leaf_pfout[L] + 120.0 * self.a2a_h[h]) + 1500.0 * inc_ex * stor_share[h, n] * (nh * 8)
                pause_rx = pause_rx * r.lognormal(0, 0.3, K) * upf[lid]
                self.add(pid, "pfc_rx", pause_rx * DT)
                ecn = rxp * (cross[h] * leaf_mark[L] + 0.003 * self.a2a_h[h])
                if L in hs_leaf:
                    for f in self.faults:
                        if f["kind"] == "half_speed_link" and f["link"] == lid:
                            ecn = ecn + rxp * 0.02 * (self.tm >= f["up"])
                self.add(pid, "np_ecn", ecn)
                cn = ecn * self.cnp_ratio[pid]
                self.add(pid, "np_cnp", cn)
                job_cnp[grp] = job_cnp[grp] + cn
                job_cnt[grp] += 1
                self.add(pid, "oos", drops_tot * rx_tr[h, n] / rx_tot + 0.003 * DT * r.random(K) * self.act_h[h])
                self.add(pid, "pse", drops_tot * tx_tr[h, n] / tx_tot * 0.9)
                self.add(pid, "lat", drops_tot * tx_tr[h, n] / tx_tot * 0.002 + 0.00003 * DT)
                self.add(pid, "oob", 0.0004 * DT * self.act_h[h] + 0.01 * DT * self.a2a_h[h])
                self.add(pid, "corr", self.nic_ber[pid] * 425e9 * DT * upf[lid] * r.lognormal(0, 0.1, K))
                self.add(pid, "pdur_rx", pause_rx * DT * float(r.uniform(6, 14)))
        # storage NICs
        st_cnp_tot = np.zeros(K)
        for pid in self.stnic.values():
            lid = self.ports[pid]["link"]
            fin, fout = self.ports[pid]["fsize_in"], self.ports[pid]["fsize_out"]
            rxb, txb = ba[lid] * DT, ab[lid] * DT
            self.add(pid, "rx_B", rxb)
            self.add(pid, "tx_B", txb)
            self.add(pid, "rx_P", rxb / fin)
            self.add(pid, "tx_P", txb / fout)
            ecn = rxb / fin * 0.03 * np.clip(incast - 0.8, 0, 2)
            self.add(pid, "np_ecn", ecn)
            cn = ecn * self.cnp_ratio[pid]
            self.add(pid, "np_cnp", cn)
            st_cnp_tot += cn
            tp = (400.0 * np.clip(incast - 0.9, 0, 1.5) + 0.02) * r.lognormal(0, 0.3, K)
            self.add(pid, "pfc_tx", tp * DT)
            self.add(pid, "pdur_tx", tp * DT * float(r.uniform(5, 12)))
            self.add(pid, "pfc_rx", (0.02 + 30 * inc_ex) * DT * r.lognormal(0, 0.3, K))
            self.add(pid, "rp_cnp", 0.001 * DT * r.random(K))
            self.add(pid, "oob", 0.0002 * DT + 0.05 * DT * inc_ex)
            self.add(pid, "corr", self.nic_ber[pid] * 425e9 * DT * upf[lid] * r.lognormal(0, 0.1, K))
        for h in range(nh):
            grp = "A" if h in self.jobA_hosts else "B"
            for n in range(8):
                pid = self.nic[(h, n)]
                rp = job_cnp[grp] / max(job_cnt[grp], 1) * r.lognormal(0, 0.1, K) + st_cnp_tot * stor_share[h, n]
                self.add(pid, "rp_cnp", rp)
        # faults touching NICs
        for f in self.faults:
            if f["kind"] == "dcqcn_misconfigured_nic":
                pid = f["pid"]
                c = self.cover(f["s"], f["e"])
                rp = self.inc[pid]["rp_cnp"]
                self.inc[pid]["rp_cnp"] = rp * (1 - c)
                self.add(pid, "rp_ign", rp * c * 6.0 + c * self.util_h[f["h"]] * 400.0 * DT)
                extra = c * self.util_h[f["h"]] / 0.6 * 2500.0 * DT * r.lognormal(0, 0.2, K)
                self.inc[pid]["pfc_rx"] = self.inc[pid]["pfc_rx"] * (1 + 9.0 * c) + extra
                self.add(pid, "pdur_rx", extra * 11.0)
            elif f["kind"] == "pfc_storm":
                pid = f["pid"]
                c = self.cover(f["s"], f["e"])
                tp = c * f["rate"] * DT * r.lognormal(0, 0.08, K)
                self.add(pid, "pfc_tx", tp)
                self.add(pid, "pdur_tx", tp * 80.0)
                self.add(pid, "rx_disc_phy", c * 3.0 * DT * r.random(K))
                L = self.links[f["link"]]["leaf"]
                dt = np.clip(self.tm - f["s"], 0, None)
                for lid2 in self.hostlinks_of[L]:
                    p2 = self.links[lid2]["a"]
                    if p2 != pid:
                        self.add(p2, "pfc_rx", c * (4000.0 * np.exp(-dt / 45.0) + 40.0) * DT * r.lognormal(0, 0.3, K))
                # leaf PFC watchdog drops toward the stuck NIC
                lp = self.links[f["link"]]["b"]
                want = self.util_h[f["h"]] * LINE * DT / self.ports[lp]["fsize_out"]
                self.add(lp, "out_disc", c * (want * np.exp(-dt / 30.0) + 500.0 * DT))
        # steady tiny pauses from slow receivers (NIC -> leaf) on all NICs
        for pid in self.nic.values():
            self.add(pid, "pfc_tx", 0.002 * DT * r.random(K))
        # storage-leaf best-effort drops during checkpoints
        for sl in self.stleaves:
            for pid in self.leaf_ports[sl][: self.nst]:
                self.add(pid, "out_disc", 150.0 * inc_ex * DT * r.lognormal(0, 0.4, K))

        # ---- bytes/packets on switch ports
        for lk in self.links:
            lid = lk["id"]
            for pid, rx, tx in ((lk["a"], ba[lid], ab[lid]), (lk["b"], ab[lid], ba[lid])):
                p = self.ports[pid]
                if p["kind"] == "nic":
                    continue
                self.add(pid, "rx_B", rx * DT)
                self.add(pid, "tx_B", tx * DT)
                self.add(pid, "rx_P", rx * DT / p["fsize_in"] * r.lognormal(0, 0.004, K))
                self.add(pid, "tx_P", tx * DT / p["fsize_out"] * r.lognormal(0, 0.004, K))
                self.add(pid, "mc", 0.12 * DT * upf[lid])
                self.add(pid, "mc_out", 0.1 * DT * upf[lid])
        # spine in_discards background
        for s in self.spines:
            for sp in self.spine_ports[s]:
                self.add(sp, "in_disc_bg", 0.0001 * DT)

        # ---- errors: link-up FCS, faults, background
        for lk in self.links:
            for a, b in lk["down"]:
                if b < self.T:
                    k = int(b // DT)
                    for pid in (lk["a"], lk["b"]):
                        arr = np.zeros(K)
                        arr[k] = float(r.uniform(0.5, 4.0))
                        self.add(pid, "fcs", arr)
                    if self.ports[lk["a"]]["kind"] == "nic":
                        arr = np.zeros(K)
                        arr[min(int(a // DT), K - 1)] = float(r.uniform(2, 8))
                        self.add(lk["a"], "lat", arr)
        for f in self.faults:
            k = f["kind"]
            if k == "dirty_optic":
                pid = f["pid"]
                q = self.far(pid)
                lid = f["link"]
                prog = np.clip((self.tm - f["s"]) / max(f["e"] - f["s"], 1.0), 0, 1)
                frac = f["f0"] * (f["f1"] / f["f0"]) ** prog * self.cover(f["s"], f["e"]) * r.lognormal(0, 0.3, K)
                rxp = self.rx_bytes_of(pid) / self.ports[pid]["fsize_in"]
                self.add(pid, "fcs", rxp * frac)
                self.add(q, "fcs", self.rx_bytes_of(q) / self.ports[q]["fsize_in"] * frac * 0.03)
                if self.ports[q]["kind"] == "nic":
                    self.add(q, "corr", self.inc[q]["corr"] * 19.0 * self.cover(f["s"], f["e"]))
            elif k == "laser_bias_degrading":
                q = self.far(f["pid"])
                g = self.bias_fault_rx_drop(f)
                prx = -0.4 + g          # far end lane power, dBm
                frac = np.where(prx < -7.0, 10 ** (-9 + 1.5 * (-7.0 - prx)), 0.0) * r.lognormal(0, 0.3, K)
                frac = np.minimum(frac, 3e-4) * 0.25
                self.add(q, "fcs", self.rx_bytes_of(q) / self.ports[q]["fsize_in"] * frac)
                if self.ports[q]["kind"] == "nic":
                    boost = 10 ** np.clip((-4.5 - prx) / 1.5, 0, 3)
                    self.add(q, "corr", self.inc[q]["corr"] * (boost - 1) * (self.tm >= f["s"]))
            elif k == "optic_overheating":
                pid = f["pid"]
                Tm = self.overheat_T(f, self.tm)
                frac = np.where(Tm > 73.0, 1e-8 * 10 ** ((Tm - 73.0) / 2.5), 0.0) * r.lognormal(0, 0.3, K)
                self.add(pid, "fcs", self.rx_bytes_of(pid) / self.ports[pid]["fsize_in"] * frac)
        # sporadic single CRC errors on a few healthy links (background)
        pool = [lk["id"] for lk in self.links if lk["kind"] in ("up", "host") and lk.get("leaf") != self.reboot_leaf
                and not any(f.get("link") == lk["id"] for f in self.faults)]
        self.sporadic = []
        for lid in r.choice(pool, size=5, replace=False):
            lk = self.links[int(lid)]
            pid = lk["a"] if r.uniform() < 0.5 else lk["b"]
            rate = 1.0 / self.m(r.uniform(20, 60))
            self.add(pid, "fcs", rate * DT * np.ones(K))
            self.sporadic.append(pid)
        # steady ingress discards on a few host-facing leaf ports
        dl = [pid for L in self.leaves for pid in self.leaf_ports[L] if self.ports[pid]["role"] == "leaf_down" and L != self.reboot_leaf]
        self.steady_disc = [int(x) for x in r.choice(dl, size=int(r.integers(3, 6)), replace=False)]
        for pid in self.steady_disc:
            lid = self.ports[pid]["link"]
            self.add(pid, "in_disc_bg", float(r.uniform(10, 150)) * DT * upf[lid])
        # Poisson for small counts
        for pid in sorted(self.inc):
            d = self.inc[pid]
            for key in sorted(d):
                if key in POISSON_KEYS:
                    d[key] = r.poisson(np.clip(d[key], 0, None)).astype(float)

    def hosts_on(self, L: str) -> list[int]:
        return sorted({self.links[lid]["host"] for lid in self.hostlinks_of[L]})

    def rx_bytes_of(self, pid: int) -> np.ndarray:
        lk = self.links[self.ports[pid]["link"]]
        return (self.ba if lk["a"] == pid else self.ab)[lk["id"]] * DT

    def bias_fault_rx_drop(self, f, t=None):
        """dB change of the faulty lane's launched power (hence the far end's rx power)."""
        t = self.tm if t is None else t
        x = np.clip((t - f["s"]) / f["decl"], 0, None)
        rel = np.where(x <= 1, 1 - (1 - f["floor"]) * x ** 1.3, f["floor"] - 0.03 * (x - 1))
        rel = np.clip(rel, 0.27, 1.0)
        ith = 0.25
        return 10 * np.log10(np.clip((rel - ith) / (1 - ith), 1e-3, None))

    def bias_rel(self, f, t):
        x = np.clip((t - f["s"]) / f["decl"], 0, None)
        rel = np.where(x <= 1, 1 - (1 - f["floor"]) * x ** 1.3, f["floor"] - 0.03 * (x - 1))
        return np.clip(rel, 0.27, 1.0)

    def overheat_T(self, f, t):
        base = 44.0
        x = np.clip(t - f["s"], 0, None)
        return base + (f["Tmax"] - base) * (1 - np.exp(-x / f["tau"]))

    # ------------------------------------------------------------------ rendering
    def sample_times(self, period: float, phase: float, jit_ms: float, absent=(), miss_p=0.0):
        r = self.rng
        n = int((self.T - phase) // period) + 1
        t = phase + period * np.arange(n) + r.uniform(0, jit_ms, n) / 1000.0
        t = np.round(t * 1000.0) / 1000.0
        keep = t <= self.T
        for a, b in absent:
            keep &= ~((t >= a) & (t < b))
        if miss_p:
            keep &= r.random(n) >= miss_p
        return t[keep]

    def cum(self, pid, key, x):
        inc = self.inc[pid].get(key)
        if inc is None:
            return np.zeros(len(x))
        C = np.concatenate(([0.0], np.cumsum(inc)))
        k = np.minimum(np.floor(x).astype(np.int64), self.K - 1)
        f = np.clip(x - k, 0.0, 1.0)
        return C[k] + f * inc[k]

    def counter(self, pid, key, t, start, resets=(), width=64, boot=0):
        """Cumulative counter at sample times t (s); restarts at each reset time."""
        x = t / DT
        c = self.cum(pid, key, x)
        out = start + np.floor(c).astype(np.int64)
        for rs in resets:
            c0 = self.cum(pid, key, np.array([rs / DT]))[0]
            after = t >= rs
            out = np.where(after, np.floor(np.maximum(c - c0, 0)).astype(np.int64) + boot, out)
        if width == 32:
            out = out % C32
        return out

    def events_at(self, times, t, resets=()):
        times = np.sort(np.asarray(times, dtype=float))
        out = np.searchsorted(times, t, side="right")
        for rs in resets:
            out = np.where(t >= rs, out - np.searchsorted(times, rs, side="right"), out)
        return out.astype(np.int64)

    def link_state(self, lid, t):
        up = np.ones(len(t), dtype=bool)
        peer = np.ones(len(t), dtype=bool)
        for a, b in self.links[lid]["down"]:
            inside = (t >= a) & (t < b)
            up &= ~inside
            peer &= ~(inside & (t - a >= 120.0))
        return up, peer

    def prefixes(self, tags: dict, peer_device, peer_port) -> tuple[str, str]:
        """Line prefixes with and without the LLDP peer tags (Telegraf sorts tag keys)."""
        def one(tg):
            return "port_counters," + ",".join(f"{k}={tg[k]}" for k in sorted(tg) if tg[k] is not None) + " "
        withp = dict(tags, peer_device=peer_device, peer_port=peer_port)
        return one(withp), one(tags)

    def emit(self, out, ts, prefix_peer, prefix_nopeer, peer, cols):
        """cols: list of lists of preformatted 'name=value' strings."""
        rows = zip(*cols, strict=True)
        for i, parts in enumerate(rows):
            pre = prefix_peer if peer[i] else prefix_nopeer
            out.append((int(ts[i]), pre + ",".join(parts) + " " + str(int(ts[i]))))

    def render(self) -> list[tuple[int, str]]:
        r = self.rng
        out = []
        t0ns = T0_S * 10**9
        # start values
        big = lambda lo, hi: int(r.integers(int(lo), int(hi)))  # noqa: E731
        self.c32_wraps = []

        def fmt_int(name, arr):
            return [f"{name}={v}i" for v in arr.tolist()]

        def fmt_str(name, arr):
            return [f'{name}="{v}"' for v in arr]

        def tns(t):
            return t0ns + np.round(t * 1e9).astype(np.int64)

        # ---------------- leaves by SNMP
        for dev in self.leaves + self.stleaves:
            D = self.devices[dev]
            absent = D.get("absent", [])
            t = self.sample_times(60.0, D["phase"], 900.0, absent=absent, miss_p=0.004)
            ts = tns(t)
            resets = [D["reset"]] if "reset" in D else []
            upt = (((t - D["boot"]) * 100).astype(np.int64)) % C32
            if resets:
                upt = np.where(t >= D["reboot_at"] + 95.0, ((t - D["reboot_at"] - 95.0) * 100).astype(np.int64), upt)
            legacy = D["snmp"] == "1"
            for pid in self.leaf_ports[dev]:
                p = self.ports[pid]
                lid = p["link"]
                if lid >= 0:
                    up, peer = self.link_state(lid, t)
                    fp = self.ports[self.far(pid)]
                    pdev, pport = fp["dev"], (fp["netdev"] or fp["name"])
                else:
                    up = np.zeros(len(t), dtype=bool)
                    peer = np.zeros(len(t), dtype=bool)
                    pdev = pport = None
                if p["admin"] == 2:
                    up[:] = False
                tags = dict(agent_host=D["agent"], device=dev, host="tlg-snmp-01", port=p["name"], role=p["role"])
                pre_p, pre_n = self.prefixes(tags, pdev, pport)
                cols = []
                sB = big(2e13, 9e16) if lid >= 0 else big(0, 5e6)
                if legacy:
                    for nm, key in (("ifInOctets", "rx_B"), ("ifOutOctets", "tx_B")):
                        v = self.counter(pid, key, t, big(0, C32) if lid >= 0 else big(0, 1e5), resets, width=32, boot=big(0, 5e4))
                        cols.append(fmt_int(nm, v))
                    for nm, key in (("ifInUcastPkts", "rx_P"), ("ifOutUcastPkts", "tx_P")):
                        v = self.counter(pid, key, t, big(0, C32) if lid >= 0 else 0, resets, width=32, boot=big(0, 50))
                        cols.append(fmt_int(nm, v))
                    for nm, key in (("ifInNUcastPkts", "mc"), ("ifOutNUcastPkts", "mc_out")):
                        v = self.counter(pid, key, t, big(0, 3e6) if lid >= 0 else 0, resets, width=32, boot=big(0, 30))
                        cols.append(fmt_int(nm, v))
                else:
                    cols.append(fmt_int("ifHCInOctets", self.counter(pid, "rx_B", t, sB, resets, boot=big(0, 5e4))))
                    cols.append(fmt_int("ifHCOutOctets", self.counter(pid, "tx_B", t, int(sB * r.uniform(0.8, 1.2)), resets, boot=big(0, 5e4))))
                    cols.append(fmt_int("ifHCInUcastPkts", self.counter(pid, "rx_P", t, sB // 4000, resets, boot=big(0, 50))))
                    cols.append(fmt_int("ifHCOutUcastPkts", self.counter(pid, "tx_P", t, sB // 4100, resets, boot=big(0, 50))))
                    cols.append(fmt_int("ifHCInMulticastPkts", self.counter(pid, "mc", t, big(0, 3e6) if lid >= 0 else 0, resets, boot=big(0, 30))))
                    cols.append(fmt_int("ifHCOutMulticastPkts", self.counter(pid, "mc_out", t, big(0, 3e6) if lid >= 0 else 0, resets, boot=big(0, 30))))
                s_fcs = big(0, 400) if lid >= 0 else 0
                fcs = self.counter(pid, "fcs", t, s_fcs, resets, width=32)
                other = big(0, 30) if lid >= 0 else 0
                fresh = (t >= resets[0]) if resets else np.zeros(len(t), dtype=bool)
                cols.append(fmt_int("ifInErrors", np.where(fresh, fcs, (fcs + other) % C32)))
                cols.append(fmt_int("dot3StatsFCSErrors", fcs))
                cols.append(fmt_int("ifOutErrors", np.zeros(len(t), dtype=np.int64)))
                # discards: some ports sit close to the 32-bit wrap
                s_in = big(0, 2000)
                if pid in self.steady_disc:
                    tot = self.cum(pid, "in_disc_bg", np.array([self.K]))[0]
                    if r.uniform() < 0.6:
                        s_in = int(C32 - tot * r.uniform(0.25, 0.75))
                    else:
                        s_in = big(1e6, 3e9)
                ind = self.counter(pid, "in_disc_bg", t, s_in, resets, width=32)
                s_out = big(0, 5e4)
                tot_out = self.cum(pid, "out_disc", np.array([self.K]))[0]
                if dev in self.stleaves and p["role"] == "leaf_down" and tot_out > 1000 and r.uniform() < 0.5:
                    s_out = int(C32 - tot_out * r.uniform(0.3, 0.7))
                outd = self.counter(pid, "out_disc", t, s_out, resets, width=32)
                for nm, arr in (("ifInDiscards", ind), ("ifOutDiscards", outd)):
                    w = np.nonzero(np.diff(arr) < 0)[0]
                    for i in w:
                        if not (resets and t[i] < resets[0] <= t[i + 1]):
                            self.c32_wraps.append((dev, p["name"], nm, float(t[i]), float(t[i + 1])))
                cols.append(fmt_int("ifInDiscards", ind))
                cols.append(fmt_int("ifOutDiscards", outd))
                cols.append(fmt_int("ifOperStatus", np.where(up, 1, 2)))
                cols.append(fmt_int("ifAdminStatus", np.full(len(t), p["admin"])))
                if lid >= 0:
                    spd = np.full(len(t), 400000)
                    for tt, sp in self.links[lid]["speed"]:
                        spd = np.where(t >= tt, int(sp * 8 / 1e6), spd)
                else:
                    spd = np.full(len(t), 400000)
                cols.append(fmt_int("ifHighSpeed", spd))
                # ifLastChange: sysUpTime (cs) at the last oper change
                if lid >= 0:
                    ev_t = sorted([x for a, b in self.links[lid]["down"] for x in (a, b)])
                else:
                    ev_t = []
                base_change = D["boot"] + float(r.uniform(60, 3000)) if lid < 0 or p["admin"] == 2 else float(r.uniform(D["boot"] + 120, -86400.0))
                lc = np.empty(len(t), dtype=np.int64)
                for i, tt in enumerate(t.tolist()):
                    prev = [x for x in ev_t if x <= tt]
                    last = prev[-1] if prev else base_change
                    if resets and tt >= D["reboot_at"]:
                        last = max(last, D["reboot_at"] + 95.0 + 60.0)
                        lc[i] = int((last - D["reboot_at"] - 95.0) * 100)
                    else:
                        lc[i] = int((last - D["boot"]) * 100) % C32
                cols.append(fmt_int("ifLastChange", np.minimum(lc, upt)))
                self.emit(out, ts, pre_p, pre_n, peer, cols)

        # ---------------- leaves DOM by SNMP (every 300 s)
        for dev in self.leaves + self.stleaves:
            D = self.devices[dev]
            t = self.sample_times(300.0, D["dom_phase"], 2500.0, absent=D.get("absent", []), miss_p=0.004)
            ts = tns(t)
            for pid in self.leaf_ports[dev]:
                p = self.ports[pid]
                if not p["optic"]:
                    continue
                lid = p["link"]
                up, peer = self.link_state(lid, t)
                fp = self.ports[self.far(pid)]
                pdev, pport = fp["dev"], (fp["netdev"] or fp["name"])
                tags = dict(agent_host=D["agent"], device=dev, host="tlg-snmp-01", port=p["name"], role=p["role"])
                pre_p, pre_n = self.prefixes(tags, pdev, pport)
                # load over the last 5 min
                x = np.minimum((t // DT).astype(int), self.K - 1)
                lb = self.ab[lid] + self.ba[lid]
                ker = np.convolve(lb, np.ones(30) / 30.0)[: self.K]
                util = ker[x] / (2 * LINE)
                hour = (18 + SITE_UTC_OFFSET_H + t / 3600.0) % 24
                diurnal = 2.4 * np.sin(2 * np.pi * (hour - 9.0) / 24.0)
                T0 = float(r.uniform(34, 44)) + D["toff"]
                Tm = T0 + diurnal + 3.0 * util + r.normal(0, 0.3, len(t))
                fault_here = [f for f in self.faults if f.get("pid") == pid]
                for f in fault_here:
                    if f["kind"] == "optic_overheating":
                        Tm = np.where(t >= f["s"], np.maximum(Tm, self.overheat_T(f, t) + (T0 - 40.0) * 0.3 + r.normal(0, 0.3, len(t))), Tm)
                Tm_i = np.round(Tm).astype(np.int64)
                volt = np.round(float(r.uniform(3265, 3335)) + r.normal(0, 2.0, len(t))).astype(np.int64)
                mcols = [fmt_int("jnxDomCurrentModuleTemperature", Tm_i),
                         fmt_int("jnxDomCurrentModuleVoltage", volt),
                         fmt_int("jnxDomCurrentModuleLaneCount", np.full(len(t), 4)),
                         fmt_int("jnxDomCurrentModuleTemperatureHighAlarmThreshold", np.full(len(t), 75)),
                         fmt_int("jnxDomCurrentModuleTemperatureHighWarningThreshold", np.full(len(t), 70)),
                         fmt_int("jnxDomCurrentRxLaserPowerLowAlarmThreshold", np.full(len(t), -1040)),
                         fmt_int("jnxDomCurrentRxLaserPowerLowWarningThreshold", np.full(len(t), -740))]
                self.emit(out, ts, pre_p, pre_n, peer, mcols)
                for lane in range(4):
                    rx0 = float(np.clip(r.normal(-0.4, 0.7), -3.0, 1.8))
                    tx0 = float(np.clip(r.normal(1.0, 0.5), -1.0, 2.5))
                    b0 = float(r.normal(52.0, 5.0))
                    lt = np.round(Tm + float(r.uniform(2, 6)) + r.normal(0, 0.3, len(t))).astype(np.int64)
                    rxp = rx0 + r.normal(0, 0.04, len(t))
                    txp = tx0 + r.normal(0, 0.03, len(t))
                    bias = b0 * (1 + 0.004 * (Tm - 40.0)) * r.normal(1.0, 0.004, len(t))
                    for f in fault_here:
                        if f["kind"] == "dirty_optic" and lane in f["lanes"]:
                            prog = np.clip((t - f["s"]) / max(f["e"] - f["s"], 1.0), 0, 1)
                            rxp = rxp - np.where(t >= f["s"], f["drop_db"] + 0.8 * prog, 0.0)
                        elif f["kind"] == "laser_bias_degrading" and lane == f["lane"]:
                            txp = txp + np.where(t >= f["s"], self.bias_fault_rx_drop(f, t), 0.0)
                            bias = bias * np.where(t >= f["s"], self.bias_rel(f, t), 1.0)
                        elif f["kind"] == "optic_overheating":
                            txp = txp - np.where(t >= f["s"], 0.04 * np.clip(Tm - 50, 0, None), 0.0)
                    rx_i = np.where(up, np.round(rxp * 100), -4000).astype(np.int64)
                    lcols = [fmt_int("jnxDomCurrentLaneRxLaserPower", rx_i),
                             fmt_int("jnxDomCurrentLaneTxLaserOutputPower", np.round(txp * 100).astype(np.int64)),
                             fmt_int("jnxDomCurrentLaneTxLaserBiasCurrent", np.round(bias * 1000).astype(np.int64)),
                             fmt_int("jnxDomCurrentLaneLaserTemperature", lt)]
                    lp_p, lp_n = self.prefixes(dict(tags, lane=str(lane)), pdev, pport)
                    self.emit(out, ts, lp_p, lp_n, peer, lcols)

        # ---------------- spines by gNMI (every 10 s)
        for dev in self.spines:
            D = self.devices[dev]
            t = self.sample_times(10.0, D["phase"], 40.0, absent=D.get("absent", []))
            ts = tns(t)
            for pid in self.spine_ports[dev]:
                p = self.ports[pid]
                lid = p["link"]
                up, peer = self.link_state(lid, t)
                fp = self.ports[self.far(pid)]
                tags = dict(device=dev, host="tlg-gnmi-01", port=p["name"], role="spine", source=D["source"])
                pre_p, pre_n = self.prefixes(tags, fp["dev"], fp["name"])
                sB = big(2e13, 9e16)
                cols = []
                fcs = self.counter(pid, "fcs", t, big(0, 300))
                rxP = self.counter(pid, "rx_P", t, sB // 4000)
                txP = self.counter(pid, "tx_P", t, sB // 4100)
                mci = self.counter(pid, "mc", t, big(0, 3e6))
                mco = self.counter(pid, "mc_out", t, big(0, 3e6))
                cols.append(fmt_int("counters/in_octets", self.counter(pid, "rx_B", t, sB)))
                cols.append(fmt_int("counters/out_octets", self.counter(pid, "tx_B", t, int(sB * r.uniform(0.8, 1.2)))))
                cols.append(fmt_int("counters/in_pkts", rxP + mci))
                cols.append(fmt_int("counters/out_pkts", txP + mco))
                cols.append(fmt_int("counters/in_unicast_pkts", rxP))
                cols.append(fmt_int("counters/out_unicast_pkts", txP))
                cols.append(fmt_int("counters/in_multicast_pkts", mci))
                cols.append(fmt_int("counters/out_multicast_pkts", mco))
                ind = self.counter(pid, "in_disc", t, big(0, 50)) + self.counter(pid, "in_disc_bg", t, 0)
                cols.append(fmt_int("counters/in_errors", fcs))
                cols.append(fmt_int("counters/in_fcs_errors", fcs))
                cols.append(fmt_int("counters/out_errors", np.zeros(len(t), dtype=np.int64)))
                cols.append(fmt_int("counters/in_discards", ind))
                cols.append(fmt_int("counters/out_discards", self.counter(pid, "out_disc", t, big(0, 2000))))
                ev_t = [x for a, b in self.links[lid]["down"] for x in (a, b)]
                cols.append(fmt_int("counters/carrier_transitions", self.events_at(ev_t, t) + big(2, 40)))
                cols.append(fmt_int("out_queue_3/pkts", self.counter(pid, "q3_pk", t, sB // 4200)))
                cols.append(fmt_int("out_queue_3/bytes", self.counter(pid, "q3_by", t, int(sB * 0.97))))
                cols.append(fmt_int("out_queue_3/tail_drop_pkts", np.full(len(t), big(0, 20))))
                cols.append(fmt_int("out_queue_3/red_drop_pkts", self.counter(pid, "red", t, big(0, 500))))
                cols.append(fmt_int("out_queue_3/ecn_marked_pkts", self.counter(pid, "ecn", t, big(1e6, 5e10))))
                cols.append(fmt_int("pfc_3/in_pkts", self.counter(pid, "pfc_rx", t, big(1e5, 5e8))))
                cols.append(fmt_int("pfc_3/out_pkts", self.counter(pid, "pfc_tx", t, big(1e5, 5e8))))
                cols.append(fmt_str("admin_status", ["UP"] * len(t)))
                cols.append(fmt_str("oper_status", np.where(up, "UP", "DOWN").tolist()))
                spd = np.full(len(t), "SPEED_400GB", dtype=object)
                for tt, _sp in self.links[lid]["speed"]:
                    spd = np.where(t >= tt, "SPEED_200GB", spd)
                spd = np.where(up, spd, "SPEED_UNKNOWN")
                cols.append(fmt_str("negotiated_port_speed", spd.tolist()))
                self.emit(out, ts, pre_p, pre_n, peer, cols)

        # ---------------- host NICs (every 30 s)
        for dev in self.hosts + self.stors:
            D = self.devices[dev]
            t = self.sample_times(30.0, D["phase"], 250.0, absent=D.get("absent", []), miss_p=0.001)
            ts = tns(t) + r.integers(0, 999, len(t))  # exec plugin: ns stamps
            resets = D.get("resets", [])
            for pid in [q for q in range(len(self.ports)) if self.ports[q]["dev"] == dev]:
                p = self.ports[pid]
                lid = p["link"]
                up, peer = self.link_state(lid, t)
                fp = self.ports[self.far(pid)]
                tags = dict(device=dev, host=dev, netdev=p["netdev"], port=p["name"], role=p["role"])
                pre_p, pre_n = self.prefixes(tags, fp["dev"], fp["name"])
                sB = big(1e13, 5e16)
                cols = []
                fresh = np.zeros(len(t), dtype=bool)
                for x in resets:
                    fresh |= t >= x

                def c(key, start, boot=0, pid=pid, t=t, resets=resets):
                    return self.counter(pid, key, t, start, resets, boot=boot)

                cols.append(fmt_int("rx_bytes_phy", c("rx_B", sB, big(1e4, 1e6))))
                cols.append(fmt_int("tx_bytes_phy", c("tx_B", int(sB * r.uniform(0.8, 1.2)), big(1e4, 1e6))))
                cols.append(fmt_int("rx_packets_phy", c("rx_P", sB // 4000, big(10, 900))))
                cols.append(fmt_int("tx_packets_phy", c("tx_P", sB // 4100, big(10, 900))))
                cols.append(fmt_int("rx_prio3_pause", c("pfc_rx", big(1e4, 5e8))))
                cols.append(fmt_int("tx_prio3_pause", c("pfc_tx", big(0, 5e4))))
                cols.append(fmt_int("rx_prio3_pause_duration", c("pdur_rx", big(1e5, 5e9))))
                cols.append(fmt_int("tx_prio3_pause_duration", c("pdur_tx", big(0, 5e5))))
                cols.append(fmt_int("rx_discards_phy", c("rx_disc_phy", big(0, 30))))
                cols.append(fmt_int("tx_discards_phy", np.where(fresh, 0, big(0, 5))))
                cols.append(fmt_int("rx_crc_errors_phy", c("fcs", big(0, 200))))
                cols.append(fmt_int("rx_corrected_bits_phy", c("corr", big(1e9, 5e12))))
                ev_down = [a for a, b in self.links[lid]["down"]]
                ev_all = [x for a, b in self.links[lid]["down"] for x in (a, b)]
                cols.append(fmt_int("link_down_events_phy", self.events_at(ev_down, t, resets) + np.where(fresh, 0, big(1, 12))))
                cc = self.events_at(ev_all, t, resets)
                cols.append(fmt_int("carrier_changes", cc + np.where(fresh, 0, big(2, 30))))
                cols.append(fmt_int("carrier", up.astype(np.int64)))
                sp = np.full(len(t), 400000)
                for tt, v in self.links[lid]["speed"]:
                    sp = np.where(t >= tt, int(v * 8 / 1e6), sp)
                cols.append(fmt_int("speed", np.where(up, sp, -1)))
                cols.append(fmt_int("np_cnp_sent", c("np_cnp", big(1e5, 5e9))))
                cols.append(fmt_int("np_ecn_marked_roce_packets", c("np_ecn", big(3e5, 2e10))))
                cols.append(fmt_int("rp_cnp_handled", c("rp_cnp", big(1e5, 5e9))))
                cols.append(fmt_int("rp_cnp_ignored", c("rp_ign", 0)))
                cols.append(fmt_int("out_of_buffer", c("oob", big(0, 3000))))
                cols.append(fmt_int("out_of_sequence", c("oos", big(0, 5e4))))
                cols.append(fmt_int("packet_seq_err", c("pse", big(0, 5e4))))
                cols.append(fmt_int("local_ack_timeout_err", c("lat", big(0, 500))))
                self.emit(out, ts, pre_p, pre_n, peer, cols)
        out.sort(key=lambda x: x[0])
        return out

    # ------------------------------------------------------------------ labels
    def labels(self, n_lines: int, n_ports: int) -> dict:
        T = float(self.T)
        ev = self.ev
        faults = []
        for f in self.faults:
            k = f["kind"]
            rec = dict(kind=k)
            peer_ends, related = [], []
            rel = defaultdict(set)
            if "pid" in f and k not in ("ecn_disabled_spine", "linecard_ingress_discards"):
                dev, port = self.pname(f["pid"])
                rec.update(device=dev, ports=[port])
                q = self.far(f["pid"])
                qd, qp = self.pname(q)
                peer_ends.append(dict(device=qd, port=qp))
            if k == "ecn_disabled_spine":
                rec.update(device=f["spine"], ports=["*"])
                for lid in [self.ports[p]["link"] for p in self.spine_ports[f["spine"]]]:
                    d, pt = self.pname(self.links[lid]["a"])
                    rel[d].add(pt)
                for h in self.hosts:
                    rel[h].add("*")
                sig = "out_queue_3/ecn_marked_pkts flat on every port while the other spines mark; out_queue_3/red_drop_pkts and counters/out_discards where it congests; pfc_3/out_pkts several-fold"
            elif k == "linecard_ingress_discards":
                rec.update(device=f["spine"], ports=[self.ports[p]["name"] for p in f["pids"]])
                for h in self.hosts:
                    rel[h].add("*")
                sig = f"counters/in_discards on the ports of FPC {f['fpc']} as a growing fraction (1e-7 -> 1e-4) of received packets"
            elif k == "dirty_optic":
                sig = f"ifInErrors/dot3StatsFCSErrors at {f['f0']:.1e} -> {f['f1']:.1e} of received frames; lane rx power -{f['drop_db']:.1f} dB on lanes {f['lanes']}; far end ~3 %"
            elif k == "flapping_link":
                sig = f"{len(f['downs'])} down/up cycles in bursts; carrier_transitions/carrier_changes, oper status down when sampled, FCS at link-up"
            elif k == "pfc_storm":
                L = self.links[f["link"]]["leaf"]
                for lid in self.uplinks_of[L]:
                    lk = self.links[lid]
                    rel[self.ports[lk["b"]]["dev"]].add(self.ports[lk["b"]]["name"])
                    rel[L].add(self.ports[lk["a"]]["name"])
                for lid in self.hostlinks_of[L]:
                    lk = self.links[lid]
                    rel[L].add(self.ports[lk["b"]]["name"])
                    rel[self.ports[lk["a"]]["dev"]].add(self.ports[lk["a"]]["name"])
                J = next(j for j in self.jobs if j["name"] == f["job"])
                for h in J["hosts"]:
                    rel[self.hosts[h]].add("*")
                    for n in range(8):
                        lp = self.links[self.ports[self.nic[(h, n)]]["link"]]["b"]
                        rel[self.ports[lp]["dev"]].add(self.ports[lp]["name"])
                sig = f"tx_prio3_pause ~{f['rate'] / 1e3:.0f}k/s on the NIC, its rx ~0, leaf ifOutDiscards (PFC watchdog); spine pfc_3/in_pkts towards the leaf in the first minute (related); job {f['job']} stalls"
            elif k == "half_speed_link":
                lk = self.links[f["link"]]
                if lk["kind"] == "host":
                    J = [j for j in self.jobs if lk["host"] in j["hosts"]]
                    for j in J:
                        for h in j["hosts"]:
                            rel[self.hosts[h]].add("*")
                            for n in range(8):
                                lp = self.links[self.ports[self.nic[(h, n)]]["link"]]["b"]
                                rel[self.ports[lp]["dev"]].add(self.ports[lp]["name"])
                sig = "one bounce, then ifHighSpeed 200000 / speed 200000 / SPEED_200GB; traffic capped at 200G"
            elif k == "laser_bias_degrading":
                sig = f"lane {f['lane']} jnxDomCurrentLaneTxLaserBiasCurrent falls to ~{f['floor']:.0%} over ~{f['decl'] / 60:.0f} min, tx power with it; far-end FCS/CRC errors after ~50 min"
            elif k == "optic_overheating":
                sig = f"jnxDomCurrentModuleTemperature climbing to ~{f['Tmax']:.0f} degC (tau {f['tau'] / 60:.0f} min); FCS errors above ~73 degC"
            elif k == "link_down_after_maintenance":
                sig = "a few bounces, then oper down with admin up on both ends; leaf DOM rx -40 dBm on all lanes; siblings carry its share"
            elif k == "dcqcn_misconfigured_nic":
                L = self.links[f["link"]]["leaf"]
                for lid in self.uplinks_of[L]:
                    lk = self.links[lid]
                    rel[self.ports[lk["b"]]["dev"]].add(self.ports[lk["b"]]["name"])
                for lid in self.hostlinks_of[L]:          # the leaf, paused harder, pauses its other NICs a bit more
                    lk = self.links[lid]
                    if lk["a"] != f["pid"]:
                        rel[self.ports[lk["a"]]["dev"]].add(self.ports[lk["a"]]["name"])
                sig = "rp_cnp_ignored rising, rp_cnp_handled flat; rx_prio3_pause ~10x siblings at the same load; tx ~10 % above siblings"
            end = f["e"] + 30.0 if k == "pfc_storm" else f["e"]     # the storm ends with a NIC reset bounce
            rec.update(start_ns=self.ns(f["s"]), end_ns=self.ns(min(end, T)), peer_ends=peer_ends)
            for d in sorted(rel):
                ports = sorted(rel[d])
                related.append(dict(device=d, ports=["*"] if "*" in ports else ports))
            rec["related"] = related
            rec["signature"] = sig
            faults.append(rec)

        H = []

        def hp(kind, where, a, b, note, background=False):
            d = dict(kind=kind, where=where, start_ns=self.ns(max(a, 0.0)), end_ns=self.ns(min(b, T)), note=note)
            if background:
                d["background"] = True
            H.append(d)

        def job_where(J):
            w = []
            for h in J["hosts"]:
                w.append(f"{self.hosts[h]}:*")
                for n in range(8):
                    lp = self.links[self.ports[self.nic[(h, n)]]["link"]]["b"]
                    w.append(f"{self.ports[lp]['dev']}:{self.ports[lp]['name']}")
            leaves = sorted({self.links[self.ports[self.nic[(h, 0)]]["link"]]["leaf"] for h in J["hosts"]} |
                            {self.links[self.ports[self.nic[(h, 1)]]["link"]]["leaf"] for h in J["hosts"]})
            for L in leaves:
                for lid in self.uplinks_of[L]:
                    lk = self.links[lid]
                    w.append(f"{self.ports[lk['a']]['dev']}:{self.ports[lk['a']]['name']}")
                    w.append(f"{self.ports[lk['b']]['dev']}:{self.ports[lk['b']]['name']}")
            return w

        JA, JB, JC = self.jobs
        hp("training_job_start_stop", job_where(JB), ev["B_start"] - 60, ev["B_start"] + self.m(4), "job B starts (data loading ramp, then load on all its links)")
        hp("training_job_start_stop", job_where(JA), ev["g0"] - 60, ev["g0"] + self.m(3), "job A stopped for the maintenance drain")
        hp("training_job_start_stop", job_where(JA), ev["g1"] - 60, ev["g1"] + self.m(4), "job A restarted after the drain")
        hp("training_job_start_stop", job_where(JB), ev["B_stop"] - 60, ev["B_stop"] + self.m(3), "job B ends")
        hp("training_job_start_stop", job_where(JC), ev["C_start"] - 60, ev["C_start"] + self.m(4), "job C starts on job B's nodes")
        all_sp = [f"{s}:*" for s in self.spines]
        fabric = all_sp + [f"{x}:*" for x in self.leaves] + [f"{x}:*" for x in self.hosts]
        for e in ("E1", "E2", "E3"):
            hp("all_to_all_phase", fabric, ev[e], ev[e] + ev[e + "_len"],
               "MoE all-to-all of job A: every spine port congests, ECN marks and PFC rise everywhere, NICs on every compute leaf paused and marked")
        st_where = [f"{x}:*" for x in self.stleaves + self.stors] + fabric
        for e in ("C1", "C2", "C3"):
            hp("storage_incast_checkpoint", st_where, ev[e], ev[e] + ev[e + "_len"],
               "checkpoint writes from every node to storage: storage-leaf ports saturated and pausing the spines, CE marks at the storage NICs, GPU NICs paused, best-effort drops on storage-leaf ports")
        L = self.reboot_leaf
        w = [f"{L}:*"]
        for lid in self.uplinks_of[L] + self.hostlinks_of[L]:
            lk = self.links[lid]
            other = lk["b"] if self.ports[lk["a"]]["dev"] == L else lk["a"]
            w.append(f"{self.ports[other]['dev']}:{self.ports[other]['name']}")
        hp("planned_leaf_reboot", w, ev["tr"] - 30, ev["snmp_back"] + self.m(3),
           "planned reload inside the drain window: leaf absent from SNMP, its links down then up on spines and NICs, all its counters restart near zero, sysUpTime restarts")
        for hh, key in zip(self.hr_hosts, ("hr1", "hr2"), strict=True):
            host = self.hosts[hh]
            w = [f"{host}:*"]
            for n in range(8):
                lp = self.links[self.ports[self.nic[(hh, n)]]["link"]]["b"]
                w.append(f"{self.ports[lp]['dev']}:{self.ports[lp]['name']}")
            hp("host_reboot", w, ev[key] - 30, ev[key] + ev[key + "_len"] + self.m(2),
               "idle node rebooted: no NIC lines for ~6 min, NIC counters restart at 0, its leaf ports down/up")
        seen = set()
        for dev, port, nm, a, b in self.c32_wraps:
            if (dev, port, nm, round(a)) in seen:
                continue
            seen.add((dev, port, nm, round(a)))
            hp("counter32_wrap", [f"{dev}:{port}"], a - 60, b + 60, f"{nm} (Counter32) wrapped past 2^32")
        hp("counter32_wrap", [f"{x}:*" for x in self.legacy_leaves], 0, T,
           "leaves on the SNMPv1 template: ifInOctets/ifOutOctets/ifIn|OutUcastPkts are Counter32 and wrap all the time (aliased at load)", background=True)
        hp("snmp_timeouts", [f"{self.snmp_gap_leaf}:*"], self.snmp_gap[0], self.snmp_gap[1], "SNMP polls of this leaf time out: no lines, counters continue")
        hp("snmp_timeouts", [f"{x}:*" for x in self.leaves + self.stleaves], 0, T, "single missed SNMP polls (~0.4 %)", background=True)
        hp("gnmi_collector_gap", [f"{self.gnmi_gap_spine}:*"], self.gnmi_gap[0], self.gnmi_gap[1] + 20, "gNMI stream dropped and redialled: no lines, counters continue")
        w = []
        for pid in self.sporadic:
            w.append("{}:{}".format(*self.pname(pid)))
            w.append("{}:{}".format(*self.pname(self.far(pid))))
        hp("sporadic_crc", w, 0, T, "single FCS/CRC errors every 20-60 min on healthy links", background=True)
        hp("steady_in_discards", ["{}:{}".format(*self.pname(p)) for p in self.steady_disc], 0, T,
           "ifInDiscards at a steady 10-150/s (frames the routed port does not accept), some close to the 32-bit wrap", background=True)
        hp("sporadic_ingress_discards", all_sp, 0, T, "a spine port counts an ingress discard now and then (~1 per port in 4 h)", background=True)
        hp("diurnal_optic_temperature", ["*"], 0, T, "site cooling follows the day: every optic ~2 degC cooler by the end, plus load heating", background=True)
        unused = ["{}:{}".format(*self.pname(p["id"])) for p in self.ports if p["role"] == "unused"]
        hp("admin_down_unused_port", unused, 0, T, "unused ports disabled by policy: ifAdminStatus 2, ifOperStatus 2, no optic, no LLDP")

        ev_min = {k: round(v / 60.0, 2) for k, v in ev.items()}
        return dict(
            scenario="roce-juniper-snmp-gnmi", scale="small", seed=self.seed, fabric="roce",
            interval_s=30, sample_s=10,
            cadences_s={"spine_gnmi": 10, "host_nic_exec": 30, "leaf_snmp": 60, "leaf_dom_snmp": 300},
            t0_ns=T0_S * 10**9, t_end_ns=self.ns(T), train_until_ns=self.ns(self.train_until),
            fit_first=f"{self.train_until // 60}m", ports=n_ports, lines=n_lines,
            topology=dict(gpu_nodes=self.nh, storage_nodes=self.nst, compute_leaves=len(self.leaves),
                          storage_leaves=2, spines=4, rebooted_leaf=self.reboot_leaf,
                          snmpv1_leaves=self.legacy_leaves, job_a_nodes=[self.hosts[h] for h in self.jobA_hosts],
                          job_b_c_nodes=[self.hosts[h] for h in self.jobB_hosts]),
            timeline_min=ev_min,
            faults=faults, healthy_phenomena=H)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Juniper RoCE fabric (SNMP leaves, gNMI spines, NIC exporter) with labelled faults.")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=4.0)
    a = ap.parse_args(argv)
    site = Site(a.seed, a.hours)
    site.build_topology()
    site.build_timeline()
    site.place_faults()
    site.simulate()
    lines = site.render()
    os.makedirs(a.outdir, exist_ok=True)
    ports = {(p["dev"], p["name"]) for p in site.ports}
    with open(os.path.join(a.outdir, "port_counters.lp"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(x[1] for x in lines))
        fh.write("\n")
    lab = site.labels(len(lines), len(ports))
    with open(os.path.join(a.outdir, "labels.json"), "w", encoding="utf-8") as fh:
        json.dump(lab, fh, indent=1)
    print(f"{a.outdir}: {len(lines)} lines, {len(ports)} ports, {len(lab['faults'])} faults, "
          f"{len(lab['healthy_phenomena'])} healthy phenomena, fit_first {lab['fit_first']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
