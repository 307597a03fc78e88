#!/usr/bin/env python3
"""RoCEv2 GPU fabric on Arista switches polled over SNMP, host NICs via node_exporter.

    python bench/fabrics/roce_arista_snmp.py OUTDIR [--seed N]      (default seed 1)

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement `port_counters`, time-ordered,
raw cumulative counters exactly as the exporters hand them over) and OUTDIR/labels.json (the label
form of shared/scenarios/score.py). numpy + standard library only. Same seed -> byte-identical
files; another seed moves every fault and device-level healthy phenomenon to other eligible
ports/devices and shifts its times by a few minutes. 4.5 h of fabric time, ~300k lines, ~230 MB.

Fabric
------
Two-tier leaf/spine, NOT rail-optimised. 96 GPU hosts (`gpu001`..`gpu096`), each with two 400G
ConnectX-7 NICs (`mlx5_0`, `mlx5_1`) dual-homed to a leaf pair: host h of pair p has `mlx5_0` on the
odd leaf and `mlx5_1` on the even leaf of the pair (16 fixed leaves `leaf01`..`leaf16`, 8 pairs,
12 GPU hosts per pair on `Ethernet1/1`..`Ethernet4/1`, `Ethernet6/1`..`Ethernet13/1`). The leaf pairs
leaf07/08 and leaf15/16 have `Ethernet5` broken out 4x100G (`Ethernet5/1`..`Ethernet5/4`) to 8
storage nodes (`stor01`..`stor08`, 2 x 100G ConnectX-6 Dx each, dual-homed the same way). Each leaf
has 12 x 400G uplinks `Ethernet21/1`..`Ethernet32/1`: 21-26 to `spine-1`, 27-32 to `spine-2` (1:1).
The two spines are modular (7800-style) with line cards in slots 3-8; uplink k of leaf L lands on
card 3+(k mod 6), port L (`Ethernet<card>/<L>/1`), so every card carries one link of every leaf
(16 consecutive ports per card). Three of the twelve spine cards (one in one spine, two in the
other, chosen by seed) are an older card type whose ports only expose the 32-bit ifTable.
Lossless priority 3 (RoCE, DSCP 26) with DCQCN: ECN marking on the egress queues (WRED on queue
depth), PFC on priority 3 with the PFC watchdog (action drop) on every switch port. Unused switch
ports are admin-shut and filtered out of the exporter (not in the file). 800 series.

Exporters
---------
* Switches: Telegraf inputs.snmp (SNMPv2c), interval 60 s, one plugin instance per switch, so each
  device has its own phase (0-60 s) and a response jitter (lognormal, ~0.2-3 s); all rows of one
  poll share the timestamp (ns). ~2 % of polls time out (no rows for that device in that poll),
  one 8-minute collector outage drops all switch rows, an SNMP agent restart loses about one poll.
  A second inputs.snmp instance polls the transceiver DOM sensors (ENTITY-SENSOR-MIB,
  entPhySensorValue of the `DOM ...` sensors, mapped to their interface through ENTITY-MIB) every
  300 s; those rows carry the same tags as the port's counter rows but only `xcvr*` fields.
* Hosts: Prometheus node_exporter (ethtool + netclass collectors) scraped every 30 s (per-target
  offset, millisecond timestamps), remote-written to InfluxDB through Telegraf's
  prometheusremotewrite parser (metric_version 2): every field is a float64 (written without the
  `i` suffix, Go 'f' -1 formatting, so counters above 2^53 lose their last digits). The
  node_exporter label `device` (the netdev) is relabelled to `interface`, `device` becomes the
  host name and `port` the RDMA device.

Tags
----
switch rows: `agent_host` (management IP polled), `device` (sysName), `fabric` (`roce`),
`peer_device`, `peer_port` (LLDP neighbour; host NIC ports are `mlx5_0`/`mlx5_1`), `port` (ifName),
`role` (`leaf_down`: leaf port to a host NIC, `leaf_up`: leaf port to a spine, `spine`), `speed`
(the configured speed: `400G`, `100G` on the breakouts). There is no `rail` tag: the fabric has no
rails.
host rows: `device` (host name), `fabric`, `instance` (`gpu001:9100`), `interface` (netdev,
e.g. `enp24s0np0`), `job` (`node`), `peer_device`, `peer_port` (leaf and its port), `port`
(`mlx5_0`/`mlx5_1`), `role` (`host`), `speed` (`400G`, `100G` for storage NICs).

Fields, switch counter rows (integers, `i`)
-------------------------------------------
IF-MIB ifXTable Counter64 (ports on the newer cards and every leaf port): `ifHCInOctets`,
`ifHCOutOctets`, `ifHCInUcastPkts`, `ifHCOutUcastPkts`. Ports of the older spine cards instead
carry IF-MIB ifTable Counter32 `ifInOctets`, `ifOutOctets`, `ifInUcastPkts`, `ifOutUcastPkts`: the
value is the true cumulative count modulo 2^32. At 400G the octet counters wrap many times between
two 60 s polls when the port is busy (the rate cannot be recovered from them; at most ~0.57 Gb/s
average is unambiguous); the packet counters (4 KB RoCE frames) wrap at most once per poll.
IF-MIB Counter32: `ifInErrors` (= FCS + other receive errors), `ifOutErrors`, `ifInDiscards`,
`ifOutDiscards`; EtherLike-MIB `dot3StatsFCSErrors` (Counter32). Gauges: `ifOperStatus` (1 up,
2 down), `ifAdminStatus` (1 up, 2 down), `ifHighSpeed` (negotiated Mb/s: 400000, 100000, 200000
after a bad renegotiation), `ifLastChange` (TimeTicks: sysUpTime at the last oper change, 0 when
it happened before the agent started), `sysUpTime` (TimeTicks, cs since the SNMP agent started;
the scalar joined onto every row by a Telegraf processor).
ARISTA-PFC-MIB (priority 3 row of aristaPfcPriorityTable, watchdog row of queue 3):
`aristaPfcPriorityRequests_p3` (PFC pause frames sent on this port = pauses this switch asks the
neighbour for), `aristaPfcPriorityIndications_p3` (PFC pause frames received from the neighbour),
`aristaPfcWatchdogTxQueueStuckCount_q3`, `aristaPfcWatchdogTxQueueRecoveredCount_q3`.
ARISTA-QUEUE-MIB egress queue 3: `aristaEgressQueuePktsDropped_q3`. ECN: `aristaEgressQueueEcnMarkedPkts_q3`
(packets of egress queue 3 CE-marked; not in the public ARISTA-QUEUE-MIB; this site exports the
`show qos ecn counters` value under a private OID with that name).
All counters start from large device-specific values (devices up for months), except after a
reload (from 0).

Fields, switch DOM rows (floats, every 300 s)
---------------------------------------------
`xcvrTemperature` (C), `xcvrTxBiasLane<n>` (mA), `xcvrTxPowerLane<n>` (dBm), `xcvrRxPowerLane<n>`
(dBm), n = 1..4 for 400G-DR4 OSFP modules, n = 1 for the 100G-DR breakout legs.

Fields, host rows (floats)
--------------------------
node_ethtool (mlx5 `ethtool -S` names): `node_ethtool_rx_bytes_phy`, `node_ethtool_tx_bytes_phy`,
`node_ethtool_rx_packets_phy`, `node_ethtool_tx_packets_phy`, `node_ethtool_rx_crc_errors_phy`,
`node_ethtool_rx_discards_phy`, `node_ethtool_rx_out_of_buffer` (packets dropped for lack of
receive WQEs), `node_ethtool_rx_prio3_pause` (pause frames received from the leaf),
`node_ethtool_tx_prio3_pause` (pause frames the NIC sent), `node_ethtool_rx_prio3_pause_duration`,
`node_ethtool_tx_prio3_pause_duration` (microseconds paused), `node_ethtool_tx_pause_storm_warning_events`,
`node_ethtool_tx_pause_storm_error_events`, `node_ethtool_link_down_events_phy`; netclass:
`node_network_carrier` (1/0), `node_network_carrier_changes_total`, `node_network_speed_bytes`
(bytes/s, 50000000000 at 400G; -125000 while the link is down, as the kernel reports -1 Mb/s).
NIC counters restart from 0 when the host reboots (driver reload).

Traffic model
-------------
Per-10 s steps, interpolated to the poll instants. Jobs drive per-NIC load (all-reduce iterations
37-45 s, bursts near line rate), a leaf sends ~90 % of its hosts' bytes up over its uplinks by
ECMP weights, spines mirror the uplinks. Per egress queue: utilisation with burst factor -> ECN
marks on the RoCE data packets (healthy ~0.5-3 % of packets at job load), PFC pauses sent on the
ingress ports feeding a pressured queue and received by the neighbour, spreading one hop further
through the spines; host NICs send pauses when their receive path is slow.

Healthy phenomena (labelled in `healthy_phenomena`, must not be flagged)
-----------------------------------------------------------------------
* jobs: job A on gpu001-060 from the start until ~150 min (stop); job B on gpu061-096: light
  evaluation until ~38, stopped, training ~52-138 (start and stop); idle night stretch ~150-176
  (1-3 % background); an all-reduce job over all 96 hosts from ~176 to the end (job start).
* checkpoint incast to the storage nodes x3 (~27, ~112, ~232 min, 5-7 min): storage 100G ports
  saturated, ECN on the storage leaves' Ethernet5/x far above normal, PFC spreading from the
  storage leaves up into the spines and back to the senders' leaves; job traffic pauses meanwhile.
* SNMP agent restart on one leaf: sysUpTime back to ~0 and counting again, ifLastChange 0 on all
  its ports, about one poll missing; the counters continue (they live in the hardware).
* full reload of another leaf inside the idle stretch (maintenance window): no rows for ~5 min,
  all its links down (its host NICs' carrier 0, spine ends ifOperStatus 2) until 5.5-7 min, every
  counter of the leaf restarts from 0, sysUpTime from 0, a few FCS errors at link training.
* 32-bit counter wraps on the older spine cards' ports (all run, `background`).
* missing polls ~2 % per switch (timeouts) and one 8-minute collector outage for every switch
  (host rows continue).
* one spine drained by BGP for 40 min (~88-128): its ports stay up with only control traffic
  (BGP/BFD/LLDP), the other spine carries twice the bytes, with more ECN/PFC on it.
* ECMP polarisation: two uplinks of one leaf carry 1.6x their siblings' bytes (all run,
  `background`).
* sporadic single FCS errors (1-3/h) on ~3 % of links (all run, `background`).
* host reboots x3 (two GPU hosts between jobs, one storage node): both NICs' links down 2-5 min,
  no host rows meanwhile, NIC counters from 0 afterwards, leaf ports ifOperStatus 2.
* planned cable swap: an uplink admin-shut at both ends for ~12 min (precedes fault 9).

Faults (labelled in `faults`, each with the ports a finder should name and the cable's far end)
-----------------------------------------------------------------------------------------------
1. `ecn_threshold_too_low` (leaf, ports ["*"], ~92-137): WRED min/max thresholds set far too low on
   the whole leaf: `aristaEgressQueueEcnMarkedPkts_q3` on all its ports marks 25-90 % of the
   data packets even at light load (20-50x its peers at the same load) and DCQCN backs off: its
   hosts' NICs on this leaf carry ~half the bytes; the rest of job A slows ~8 %. No drops, PFC
   lower than usual. The hosts' NICs and spine ends are `related`.
2. `pfc_disabled_linecard` (spine, the 16 ports of one card, ~185-255): `no priority-flow-control`
   for priority 3 on that card's interfaces: they send and count no pauses
   (`aristaPfcPriorityRequests_p3`/`Indications_p3` flat) and, whenever their egress queue
   congests (all-hosts job bursts), tail-drop instead (`ifOutDiscards`,
   `aristaEgressQueuePktsDropped_q3`) where their sibling ports on the other cards pause.
3. `laser_lane_failing` (leaf uplink, ~95-end): one lane's laser in the leaf's 400G-DR4 module
   dies: `xcvrTxBiasLane<n>` falls from ~55 to ~12 mA over ~90 min and `xcvrTxPowerLane<n>` with
   it; at the spine end `xcvrRxPowerLane<n>` falls from ~-0.5 to ~-9 dBm over ~an hour; once below
   ~-5.8 dBm, post-FEC FCS errors at the spine end (`dot3StatsFCSErrors`, `ifInErrors`) grow with
   the received frames (up to ~1e-5 of them: a few per minute idle, thousands per minute busy).
4. `intermittent_crc` (leaf host port, ~100-240): a loose connector: every 8-15 min a 5-40 s burst
   of 100-20000 FCS errors at the leaf port and ~20 % of that in the NIC's
   `node_ethtool_rx_crc_errors_phy`; nothing in between.
5. `nic_rx_buffer_overflow` (host NIC, 40 min, ~200-240): the NIC cannot post receive buffers
   fast enough: `node_ethtool_rx_out_of_buffer` rising from ~30/s to ~12k/s, the NIC sends pauses
   (`node_ethtool_tx_prio3_pause` ~150/s -> ~3000/s, the leaf port's
   `aristaPfcPriorityIndications_p3`), the leaf pauses its uplinks a little (`related`); traffic
   continues at ~90 %.
6. `half_speed_link` (leaf uplink, ~115-end): one flap (8-25 s down, ifLastChange) then the link
   renegotiates at 200G: `ifHighSpeed` 200000 at both ends under the `speed=400G` tag; ECMP still
   gives it an equal share, so its egress queues at both ends run near full under load
   (`aristaEgressQueueEcnMarkedPkts_q3` 5-10x its sibling uplinks); the pauses this causes land
   on the leaf's host ports and on the spine's other ports, not on the link itself.
7. `linecard_ingress_discards` (spine, the 16 consecutive ports of one card, ~160-end): a card ASIC
   fault: `ifInDiscards` on every port of the card at a fraction of the received packets rising
   x1000 (1e-6 -> 1e-3) over the fault.
8. `pfc_storm` (leaf host port, ~125-137): a job-B host's NIC stuck sending pauses (30-80k/s,
   `node_ethtool_tx_prio3_pause`, the leaf port's `aristaPfcPriorityIndications_p3`, tx pause
   duration ~100 %), transmit to the host ~0, the leaf's PFC watchdog trips repeatedly
   (`aristaPfcWatchdogTxQueueStuckCount_q3`/`RecoveredCount_q3`) and drops
   (`aristaEgressQueuePktsDropped_q3`, `ifOutDiscards`); the leaf pauses its uplinks for the first
   minute (`related`: those uplinks and their spine ends); job B stalls.
9. `port_down_admin_up` (leaf uplink, ~178-end): after the planned cable swap (healthy, both ends
   admin-shut ~166-177) the spine end is re-enabled, then the leaf end (`ifAdminStatus` 1), but the
   new module is not seated: the leaf port stays `ifOperStatus` 2 administratively up, and the
   spine end, re-enabled too, has no link partner (ifOperStatus 2); no traffic, ECMP on 11 uplinks.
10. `flapping_link` (leaf host port, ~225, 5 min): 4-6 down/up cycles (2-20 s down) within 5 min:
   ifOperStatus 2 when a poll lands in a down, ifLastChange moving, NIC `node_network_carrier` 0,
   `node_network_carrier_changes_total` +2 and `node_ethtool_link_down_events_phy` +1 per flap,
   traffic gaps, a few FCS errors at each link-up at both ends.

Times are minutes from the start (2025-06-03T20:00:00Z); the first 30 % (81 min) holds no fault.
"""
# ruff: noqa: E501  (a generator's long format strings, kept as its author wrote them)

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np

T0_S = 1748980800                      # 2025-06-03T20:00:00Z
RUN_MIN = 270
DT = 10                                # internal step, s
NT = RUN_MIN * 60 // DT
FIT_MIN = 81
SW_POLL = 60
DOM_POLL = 300
HOST_POLL = 30
B400 = 400e9 / 8
B100 = 100e9 / 8
B200 = 200e9 / 8
W32 = 1 << 32

HOST_PORTS = [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13]
STOR_PAIRS = (3, 7)
NEW_CARDS = (3, 4, 5, 6, 7, 8)


def fmt_float(x):
    return np.format_float_positional(float(x), trim='-')


class Fabric:
    def __init__(self, seed):
        self.seed = seed
        self.rng = np.random.default_rng(seed * 7919 + 17)
        self.noise = np.random.default_rng(seed * 104729 + 5)
        self.build_topology()

    # ------------------------------------------------------------------ topology
    def build_topology(self):
        self.ends = []          # dicts
        self.dev_ends = {}      # device -> [end idx]
        self.devices = []       # switch devices, poll order
        self.hosts = []
        self.leaves = [f"leaf{i + 1:02d}" for i in range(16)]
        self.spines = ["spine-1", "spine-2"]
        # older 32-bit cards: one on one spine, two on the other (by seed)
        two = self.seed % 2
        o = (2 * self.seed) % 6
        cards = [NEW_CARDS[(o + i) % 6] for i in (0, 1, 3)]
        self.old_cards = {self.spines[1 - two]: [int(cards[0])], self.spines[two]: [int(cards[1]), int(cards[2])]}

        def add(dev, port, role, peer_dev, peer_port, speed, kind, cap, lanes=4, is32=False, extra=None):
            e = dict(dev=dev, port=port, role=role, peer_dev=peer_dev, peer_port=peer_port, speed=speed,
                     kind=kind, cap=cap, lanes=lanes, is32=is32, idx=len(self.ends))
            if extra:
                e.update(extra)
            self.ends.append(e)
            self.dev_ends.setdefault(dev, []).append(e["idx"])
            return e["idx"]

        self.cables = []        # (a, b, type)
        host_links = {}         # (host, nic) -> (leaf end, nic end)
        leaf_up = {}            # (leaf, k) -> end
        spine_port = {}         # (leaf, k) -> end
        # leaves first (poll order), then spines, then NIC ends
        pending_nic = []
        for L, lf in enumerate(self.leaves):
            p, side = L // 2, L % 2
            for j, hp in enumerate(HOST_PORTS):
                h = 12 * p + j
                hn = f"gpu{h + 1:03d}"
                e = add(lf, f"Ethernet{hp}/1", "leaf_down", hn, f"mlx5_{side}", "400G", "sw", B400)
                pending_nic.append((hn, side, lf, f"Ethernet{hp}/1", e, "400G", B400))
            if p in STOR_PAIRS:
                for i in range(4):
                    s = (0 if p == STOR_PAIRS[0] else 4) + i
                    sn = f"stor{s + 1:02d}"
                    e = add(lf, f"Ethernet5/{i + 1}", "leaf_down", sn, f"mlx5_{side}", "100G", "sw", B100, lanes=1)
                    pending_nic.append((sn, side, lf, f"Ethernet5/{i + 1}", e, "100G", B100))
            for k in range(12):
                s = k // 6
                card = 3 + k % 6
                e = add(lf, f"Ethernet{21 + k}/1", "leaf_up", self.spines[s], f"Ethernet{card}/{L + 1}/1", "400G", "sw", B400)
                leaf_up[(L, k)] = e
        for s, sp in enumerate(self.spines):
            for card in range(3, 9):
                k = s * 6 + (card - 3)
                for L in range(16):
                    e = add(sp, f"Ethernet{card}/{L + 1}/1", "spine", self.leaves[L], f"Ethernet{21 + k}/1", "400G", "sw",
                            B400, is32=card in self.old_cards[sp], extra=dict(card=card))
                    spine_port[(L, k)] = e
                    self.cables.append((leaf_up[(L, k)], e, "up"))
        self.n_sw = len(self.ends)
        pending_nic.sort(key=lambda x: (x[0], x[1]))
        self.nic_of = {}
        for hn, side, lf, lp, le, spd, cap in pending_nic:
            pci = ["enp24s0np0", "enp152s0np0"][side] if hn.startswith("gpu") else ["enp65s0f0np0", "enp65s0f1np0"][side]
            e = add(hn, f"mlx5_{side}", "host", lf, lp, spd, "nic", cap, extra=dict(netdev=pci))
            self.cables.append((le, e, "host"))
            host_links[(hn, side)] = (le, e)
            self.nic_of[(hn, side)] = e
            if hn not in self.hosts:
                self.hosts.append(hn)
        self.host_links, self.leaf_up, self.spine_port = host_links, leaf_up, spine_port
        self.devices = self.leaves + self.spines
        self.NE = len(self.ends)
        self.peer = np.zeros(self.NE, dtype=np.int64)
        self.cable_of = np.zeros(self.NE, dtype=np.int64)
        for c, (a, b, _) in enumerate(self.cables):
            self.peer[a], self.peer[b] = b, a
            self.cable_of[a] = self.cable_of[b] = c
        self.cap = np.array([e["cap"] for e in self.ends])
        self.gpu_hosts = [h for h in self.hosts if h.startswith("gpu")]
        self.stor_hosts = [h for h in self.hosts if h.startswith("stor")]

    def name(self, e):
        return self.ends[e]["dev"], self.ends[e]["port"]

    # ------------------------------------------------------------------ scenario
    def tm(self, nominal, spread=4.0, lo=None):
        t = nominal + self.rng.uniform(-spread, spread)
        if lo is not None:
            t = max(t, lo)
        return round(t * 2) / 2 * 60.0          # seconds, 30 s boundary

    def plan(self):
        rng = self.rng
        P = {}
        P["A_stop"] = self.tm(150, 2)
        P["B_eval_end"] = self.tm(38, 1.5)
        P["B_start"] = self.tm(52, 1.5)
        P["B_stop"] = self.tm(138, 1.5)
        P["C_start"] = self.tm(176, 1.5)
        P["incast"] = [(self.tm(27, 3), rng.uniform(300, 420)), (self.tm(112, 3), rng.uniform(300, 420)),
                       (self.tm(232, 3), rng.uniform(300, 420))]
        P["drain"] = (self.tm(90, 2.5), None)
        P["drain"] = (P["drain"][0], P["drain"][0] + 2400.0)
        P["outage"] = self.tm(196, 5)
        used_leaf = set()
        job_a_leaves = list(range(10))

        # choices rotate with the seed through a fixed shuffled order, so that consecutive seeds
        # always land on other devices/ports
        fixed = np.random.default_rng(2024)
        salt = iter(range(1, 100))

        def rotate(cands, stride):
            c = list(cands)
            order = [c[i] for i in fixed.permutation(len(c))]
            i0 = (self.seed * stride + next(salt) * 3) % len(order)
            return order[i0:] + order[:i0]

        def pick_leaf(cands):
            v = next(int(x) for x in rotate(cands, 5) if x not in used_leaf)
            used_leaf.add(v)
            return v
        P["f1_leaf"] = pick_leaf(job_a_leaves)
        P["agent_leaf"] = pick_leaf(range(16))
        P["reload_leaf"] = pick_leaf(range(16))
        P["polar_leaf"] = pick_leaf(range(16))
        P["polar_k"] = sorted(int(x) for x in rng.choice(12, 2, replace=False))
        s2 = self.seed % 2
        P["f2_spine"] = s2
        P["f7_spine"] = 1 - s2
        P["f2_card"] = int(rotate([c for c in NEW_CARDS if c not in self.old_cards[self.spines[s2]]], 1)[0])
        P["f7_card"] = int(rotate([c for c in NEW_CARDS if c not in self.old_cards[self.spines[1 - s2]]], 1)[0])
        P["drain_spine"] = (self.seed + 1) % 2
        bad_cards = {(s2, P["f2_card"]), (1 - s2, P["f7_card"])}
        for key in ("f3", "f6", "f9"):
            L = pick_leaf(range(16))
            ks = [k for k in range(12) if (k // 6, 3 + k % 6) not in bad_cards]
            if L == P["polar_leaf"]:
                ks = [k for k in ks if k not in P["polar_k"]]
            P[key] = (L, int(rotate(ks, 1)[0]))
        P["f3_lane"] = (self.seed * 3 + 1) % 4
        used_host = set()

        def pick_host(cands):
            v = next(x for x in rotate(cands, 7) if x not in used_host)
            used_host.add(v)
            return v
        f1p = P["f1_leaf"] // 2
        rp = P["reload_leaf"] // 2
        gh = [h for h in self.gpu_hosts if (int(h[3:]) - 1) // 12 not in (f1p, rp)]
        jobb = [h for h in gh if int(h[3:]) > 60]
        P["f4"] = (pick_host(gh), (self.seed + 0) % 2)
        P["f5"] = (pick_host(gh), (self.seed + 1) % 2)
        P["f8"] = (pick_host(jobb), (self.seed + 1) % 2)
        P["f10"] = (pick_host(gh), self.seed % 2)
        P["reboot"] = [(pick_host(jobb), self.tm(44, 1.0)), (pick_host(jobb), self.tm(143, 1.5)),
                       (pick_host(self.stor_hosts), self.tm(248, 3))]
        P["t_agent"] = self.tm(105, 8)
        P["t_reload"] = self.tm(156, 1.5)
        P["f1"] = (self.tm(92, 3), None)
        P["f1"] = (P["f1"][0], P["f1"][0] + 60 * rng.uniform(40, 48))
        P["f2"] = (self.tm(186, 3), self.tm(255, 3))
        P["f3"] = P["f3"] + (self.tm(97, 4),)
        P["f4_t"] = (self.tm(101, 4), self.tm(240, 4))
        P["f5_t"] = self.tm(200, 4)
        P["f6_t"] = self.tm(116, 4)
        P["f7_t"] = self.tm(161, 4)
        P["f8_t"] = (self.tm(125, 2), None)
        P["f8_t"] = (P["f8_t"][0], P["f8_t"][0] + 60 * float(rng.uniform(10, 13)))
        P["f9_shut"] = self.tm(166, 1.5)
        P["f9_up"] = P["f9_shut"] + 60 * round(rng.uniform(10, 13)) - 30 * 0
        P["f10_t"] = self.tm(226, 5)
        # sporadic FCS: 12 cables (3 %) not involved in anything else
        busy = set()
        for key in ("f3", "f6", "f9"):
            busy.add(self.cable_of[self.leaf_up[P[key][:2]]])
        for key in ("f4", "f5", "f8", "f10"):
            busy.add(self.cable_of[self.nic_of[P[key]]])
        cand = [c for c in range(len(self.cables)) if c not in busy]
        P["sporadic"] = [int(c) for c in rng.choice(cand, 12, replace=False)]
        NE = self.NE
        self.dom_base = dict(bias=rng.uniform(48, 62, (NE, 4)), txp=rng.uniform(0.3, 1.8, (NE, 4)),
                             loss=rng.uniform(0.4, 1.6, (NE, 4)), temp=rng.uniform(38, 52, NE))
        self.P = P
        return P

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def up_fraction(intervals):
        f = np.ones(NT)
        for a, b in intervals:
            a, b = max(a, 0.0), min(b, NT * DT)
            if b <= a:
                continue
            ka, kb = int(a // DT), int(min((b - 1e-9) // DT, NT - 1))
            for k in range(ka, kb + 1):
                lo, hi = max(a, k * DT), min(b, (k + 1) * DT)
                f[k] -= (hi - lo) / DT
        return np.clip(f, 0, 1)

    @staticmethod
    def window(a, b, ramp=0.0):
        t = (np.arange(NT) + 0.5) * DT
        if ramp <= 0:
            return ((t >= a) & (t < b)).astype(float)
        return np.clip(np.minimum((t - a) / ramp, (b - t) / ramp), 0, 1)

    # ------------------------------------------------------------------ simulation
    def simulate(self):
        P = self.P
        nz = self.noise
        NE = self.NE
        tc = (np.arange(NT) + 0.5) * DT
        end_s = NT * DT
        self.down = {}                        # cable -> [(a, b)] oper-down intervals
        self.admin_down = {}                  # end -> [(a, b)]
        self.unreach = {d: [] for d in self.devices + self.hosts}
        self.reset_t = np.full(NE, np.inf)
        self.agent_start = {}
        self.speed_change = {}                # end -> (t, new Mb/s)
        link_fcs = []                         # (end, t, n) FCS at link-up (rx side)

        def cable_down(c, a, b):
            self.down.setdefault(c, []).append((a, b))
            ea, eb = self.cables[c][0], self.cables[c][1]
            for e in (ea, eb):
                if nz.random() < 0.6:
                    link_fcs.append((e, b, int(nz.integers(1, 6))))

        # host reboots
        for hn, t in P["reboot"]:
            d = float(nz.uniform(120, 300))
            for side in (0, 1):
                cable_down(self.cable_of[self.nic_of[(hn, side)]], t + 15, t + d)
                self.reset_t[self.nic_of[(hn, side)]] = t + d
            self.unreach[hn].append((t - 10, t + d + 40))
        # reload
        lf = self.leaves[P["reload_leaf"]]
        r0 = P["t_reload"]
        self.unreach[lf].append((r0, r0 + 300))
        for e in self.dev_ends[lf]:
            self.reset_t[e] = r0 + 200
        for e in self.dev_ends[lf]:
            c = self.cable_of[e]
            cable_down(c, r0 + 3, r0 + float(nz.uniform(330, 420)))
        self.agent_start[lf] = [(r0 + 290, 0)]
        # agent restart
        la = self.leaves[P["agent_leaf"]]
        ta = P["t_agent"]
        self.unreach[la].append((ta - 20, ta + 50))
        self.agent_start[la] = [(ta + 40, 0)]
        # collector outage: every switch
        for d in self.devices:
            self.unreach[d].append((P["outage"], P["outage"] + 480))
        # F6 flap + renegotiation
        L6, k6 = P["f6"]
        e6 = self.leaf_up[(L6, k6)]
        t6 = P["f6_t"]
        cable_down(self.cable_of[e6], t6, t6 + float(nz.uniform(8, 25)))
        for e in (e6, self.peer[e6]):
            self.speed_change[e] = (t6, 200000)
        # F9 admin shut + left down
        L9, k9 = P["f9"]
        e9 = self.leaf_up[(L9, k9)]
        s9 = self.peer[e9]
        c9 = self.cable_of[e9]
        self.down.setdefault(c9, []).append((P["f9_shut"], end_s + 1e6))
        self.f9_spine_up = P["f9_up"] - 60
        self.admin_down[s9] = [(P["f9_shut"] + 2, self.f9_spine_up)]
        self.admin_down[e9] = [(P["f9_shut"], P["f9_up"])]
        # F10 flapping host link
        h10, s10 = P["f10"]
        e10 = self.nic_of[(h10, s10)]
        c10 = self.cable_of[e10]
        t10 = P["f10_t"]
        nflap = int(nz.integers(4, 7))
        starts = np.sort(nz.uniform(0, 270, nflap))
        starts[0] = 0.0
        self.f10_end = t10
        prev_end = -1
        for st in starts:
            a = t10 + max(float(st), prev_end + 15 - t10 if prev_end > 0 else 0)
            b = a + float(nz.uniform(2, 20))
            cable_down(c10, a, b)
            prev_end = b
            self.f10_end = b
        # link up fractions
        upc = np.ones((len(self.cables), NT))
        for c, iv in self.down.items():
            upc[c] = self.up_fraction(iv)
        self.upc = upc
        up_end = upc[self.cable_of]           # per end

        # ---------------------------------------------------------- host demand (fraction of NIC rate)
        NH = len(self.hosts)
        hidx = {h: i for i, h in enumerate(self.hosts)}
        load = 0.005 + 0.015 * nz.random((NH, 1)) * (0.6 + 0.4 * nz.random((NH, NT)))
        jobload = np.zeros((NH, NT))

        def job(hosts, a, b, L0, per, ramp=90.0):
            w = self.window(a, b)
            r = np.clip((tc - a) / ramp, 0, 1)
            ph = nz.uniform(0, 2 * np.pi)
            wave = 0.8 + 0.3 * np.sin(2 * np.pi * tc / per + ph) + 0.08 * nz.standard_normal(NT)
            for h in hosts:
                i = hidx[h]
                jobload[i] += w * r * np.clip(L0 * wave * (0.95 + 0.1 * nz.random()) + 0.03 * nz.standard_normal(NT), 0.02, 0.97)
        A = self.gpu_hosts[:60]
        B = self.gpu_hosts[60:]
        job(A, 0, P["A_stop"], 0.55, 41.0, ramp=1.0)
        job(B, 0, P["B_eval_end"], 0.15, 23.0, ramp=1.0)
        job(B, P["B_start"], P["B_stop"], 0.6, 38.0)
        job(self.gpu_hosts, P["C_start"], end_s, 0.5, 45.0)
        # checkpoint incast: job traffic pauses, hosts write to storage
        ckpt = np.zeros(NT)
        for a, d in P["incast"]:
            ckpt = np.maximum(ckpt, self.window(a, a + d, ramp=20))
        jobload *= (1 - 0.85 * ckpt)
        # F8 storm: job B stalls
        f8a, f8b = P["f8_t"]
        stall = self.window(f8a + 20, f8b)
        for h in B:
            jobload[hidx[h]] *= (1 - 0.96 * stall)
        load = load + jobload
        # NIC level demand (bytes/s): tx, rx per NIC end
        tx = np.zeros((NE, NT))
        rx = np.zeros((NE, NT))
        for hn in self.hosts:
            for side in (0, 1):
                e = self.nic_of[(hn, side)]
                tx[e] = load[hidx[hn]] * self.cap[e] * (0.97 + 0.06 * nz.random(NT))
                rx[e] = load[hidx[hn]] * self.cap[e] * (0.97 + 0.06 * nz.random(NT))
        # incast writes
        senders = [self.nic_of[(h, s)] for h in self.gpu_hosts for s in (0, 1)]
        stor_nics = [self.nic_of[(h, s)] for h in self.stor_hosts for s in (0, 1)]
        stor_rate = ckpt * B100 * 0.97
        total_ck = stor_rate * len(stor_nics)
        for e in stor_nics:
            rx[e] += stor_rate * (0.98 + 0.04 * nz.random(NT))
        for e in senders:
            tx[e] += total_ck / len(senders) * (0.9 + 0.2 * nz.random(NT))
        # storage NIC demand (what the senders would push): for congestion
        stor_over = np.where(ckpt > 0, 4.0 + 1.5 * nz.random(NT), 0.0)
        # F1: DCQCN backs off on the bad leaf
        f1a, f1b = P["f1"]
        f1w = self.window(f1a + 30, f1b, ramp=60)
        f1leaf = self.leaves[P["f1_leaf"]]
        for e in senders:
            hn = self.ends[e]["dev"]
            if hn in A:
                if self.ends[e]["peer_dev"] == f1leaf:
                    tx[e] *= 1 - (0.45 + 0.1 * nz.random(NT)) * f1w
                    rx[e] *= 1 - (0.45 + 0.1 * nz.random(NT)) * f1w
                else:
                    tx[e] *= 1 - 0.08 * f1w
                    rx[e] *= 1 - 0.08 * f1w
        # F5: NIC rx slightly reduced
        e5 = self.nic_of[P["f5"]]
        f5w = self.window(P["f5_t"], P["f5_t"] + 2400)
        rx[e5] *= 1 - 0.1 * f5w
        # F8: the stuck NIC neither sends nor receives
        e8 = self.nic_of[P["f8"]]
        f8w = self.window(f8a, f8b)
        tx[e8] *= 1 - 0.995 * f8w
        rx_demand_e8 = rx[e8].copy()
        rx[e8] *= 1 - 0.998 * f8w
        # link state
        nic_ends = np.array([e for e in range(NE) if self.ends[e]["kind"] == "nic"])
        tx[nic_ends] *= up_end[nic_ends]
        rx[nic_ends] *= up_end[nic_ends]

        # ---------------------------------------------------------- switch bytes
        out_b = np.zeros((NE, NT))            # bytes transmitted by each end
        over = np.zeros((NE, NT))             # egress demand / capacity
        for e in nic_ends:
            le = self.peer[e]
            out_b[e] = tx[e]
            out_b[le] = rx[e]
            over[le] = rx[e] / self.cap[le]
        for e in stor_nics:
            le = self.peer[e]
            over[le] = np.maximum(over[le], stor_over * ckpt)
        # e8 leaf egress demand (for drops)
        # ECMP weights
        dr0, dr1 = P["drain"]
        drain_w = 1 - self.window(dr0, dr1, ramp=45)
        self.drain_w = drain_w
        for L, lf in enumerate(self.leaves):
            downs = [e for e in self.dev_ends[lf] if self.ends[e]["role"] == "leaf_down"]
            ups = [self.leaf_up[(L, k)] for k in range(12)]
            fup = 0.9 + 0.02 * nz.standard_normal(NT)
            up_tx = fup * out_b[[self.peer[e] for e in downs]].sum(0)     # bytes hosts sent into the leaf
            up_rx = fup * out_b[downs].sum(0)                             # bytes the leaf sends to hosts
            w = np.ones((12, NT)) * (1 + 0.03 * nz.standard_normal((12, NT)))
            if L == P["polar_leaf"]:
                for k in P["polar_k"]:
                    w[k] *= 1.6
            dspine = P["drain_spine"]
            for k in range(12):
                if k // 6 == dspine:
                    w[k] *= drain_w
                w[k] *= up_end[ups[k]] >= 0.999
                w[k] = np.maximum(w[k], 0) * (up_end[ups[k]] > 0)
            ws = w.sum(0)
            ws[ws == 0] = 1
            for k in range(12):
                e = ups[k]
                sp = self.peer[e]
                share_tx = up_tx * w[k] / ws
                share_rx = up_rx * w[k] / ws
                capk = np.full(NT, self.cap[e])
                if e in self.speed_change:
                    capk[tc >= self.speed_change[e][0]] = B200
                over[e] = share_tx / capk
                over[sp] = share_rx / capk
                out_b[e] = np.minimum(share_tx, 0.985 * capk) * up_end[e]
                out_b[sp] = np.minimum(share_rx, 0.985 * capk) * up_end[e]
        # ---------------------------------------------------------- packets
        fsize = np.full((NE, 1), 3800.0) + 300 * nz.random((NE, 1))
        is_up = np.array([self.ends[e]["role"] in ("leaf_up", "spine") for e in range(NE)])
        ctrl_pps = np.where(is_up, 25.0, 1.5)[:, None] * (0.8 + 0.4 * nz.random((NE, NT)))
        alive = up_end.copy()
        data_pkts = out_b / fsize
        out_p = data_pkts + ctrl_pps * alive
        out_b = out_b + ctrl_pps * alive * 120
        in_b = out_b[self.peer]
        in_p = out_p[self.peer]
        self.in_p = in_p

        # ---------------------------------------------------------- congestion, ECN
        bf = np.exp(0.33 + 0.12 * nz.standard_normal((NE, NT)))
        util = out_b / self.cap[:, None]
        cong = np.clip((over * bf - 0.8) / 0.2, 0, 40)
        pmark = np.clip(0.004 + 0.02 * util + 0.05 * cong ** 1.2, 0, 0.6)
        sw = np.array([self.ends[e]["kind"] == "sw" for e in range(NE)])
        f1ends = np.array(self.dev_ends[f1leaf])
        f1mark = self.window(f1a, f1b)
        bad = np.clip(0.45 + 0.3 * util[f1ends] + 0.06 * nz.standard_normal((len(f1ends), NT)), 0.25, 0.9)
        pmark[f1ends] = pmark[f1ends] * (1 - f1mark) + bad * f1mark
        ecn = np.where(sw[:, None], data_pkts * pmark, 0.0)
        # pressure -> pause frames/s a congested egress queue generates upstream
        press = np.minimum(2500 * np.maximum(cong - 0.15, 0) ** 1.5, 20000) * (0.7 + 0.6 * nz.random((NE, NT)))
        press[~sw] = 0
        # a queue marking too early keeps DCQCN ahead of PFC
        press[f1ends] *= 1 - 0.8 * f1mark
        pfc_tx = np.zeros((NE, NT))           # pause frames sent by this end
        # host NIC pauses: slow receivers trickle, F5, F8
        pfc_tx[nic_ends] = np.where(nz.random((len(nic_ends), NT)) < 0.05, nz.exponential(3.0, (len(nic_ends), NT)), 0) * (load[[hidx[self.ends[e]["dev"]] for e in nic_ends]] > 0.2)
        frac5 = np.clip((tc - P["f5_t"]) / 2400, 0, 1)
        pfc_tx[e5] += f5w * 150 * np.exp(np.log(20) * frac5) * (0.8 + 0.4 * nz.random(NT))
        oob = np.zeros((NE, NT))
        oob[e5] = f5w * 30 * np.exp(np.log(400) * frac5) * (0.7 + 0.6 * nz.random(NT))
        pfc_tx[e8] += f8w * nz.uniform(30000, 80000, NT)
        # egress pressure -> pauses on the device's ingress ports
        for d in self.devices:
            E = np.array(self.dev_ends[d])
            roles = np.array([self.ends[e]["role"] for e in E])
            inb = in_b[E] + 1.0
            if d.startswith("leaf"):
                dn, upp = E[roles == "leaf_down"], E[roles == "leaf_up"]
                w_up = inb[roles == "leaf_up"] / inb[roles == "leaf_up"].sum(0)
                w_dn = inb[roles == "leaf_down"] / inb[roles == "leaf_down"].sum(0)
                # NIC pauses hold the leaf's egress: leaf pauses its uplinks (storm: first minute only)
                nicp = pfc_tx[self.peer[dn]].copy()
                if self.ends[self.peer[e8]]["dev"] == d:
                    j = list(dn).index(self.peer[e8])
                    nicp[j] *= np.where(tc < f8a + 60, 0.5, 0.002)
                p_down = press[dn].sum(0) + 0.3 * nicp.sum(0)
                pfc_tx[upp] += 0.85 * p_down * w_up
                pfc_tx[dn] += 0.15 * p_down * w_dn
                pfc_tx[dn] += press[upp].sum(0) * w_dn
            else:
                tot = inb.sum(0)
                p = press[E]
                # each port's egress pressure pauses all other ports by their share of ingress
                pfc_tx[E] += (p.sum(0) - 0) * inb / tot - p * inb / tot
        # second hop: spine ports paused by leaves push back to other leaves
        for _s, sp in enumerate(self.spines):
            E = np.array(self.dev_ends[sp])
            inb = in_b[E] + 1.0
            rcv = pfc_tx[self.peer[E]]        # pauses received from leaves
            tot = inb.sum(0)
            pfc_tx[E] += 0.35 * (rcv.sum(0) * inb / tot - rcv * inb / tot)
        for lf in self.leaves:
            E = np.array(self.dev_ends[lf])
            roles = np.array([self.ends[e]["role"] for e in E])
            upp, dn = E[roles == "leaf_up"], E[roles == "leaf_down"]
            rcv = pfc_tx[self.peer[upp]].sum(0)
            inb = in_b[dn] + 1.0
            pfc_tx[dn] += 0.15 * rcv * inb / inb.sum(0)
        pfc_tx *= np.where(sw[:, None], alive, 1.0)
        # F2: PFC disabled for priority 3 on one spine card
        f2sp = self.spines[P["f2_spine"]]
        f2ends = np.array([e for e in self.dev_ends[f2sp] if self.ends[e]["card"] == P["f2_card"]])
        f2w = self.window(*P["f2"])
        would = pfc_tx[f2ends] + pfc_tx[self.peer[f2ends]] + press[f2ends]
        pfc_tx[f2ends] *= 1 - f2w
        pfc_rx = pfc_tx[self.peer].copy()
        pfc_rx[f2ends] *= 1 - f2w
        qdrop = np.zeros((NE, NT))
        qdrop[f2ends] = f2w * (12 * would + data_pkts[f2ends] * 0.002 * np.minimum(cong[f2ends], 5))
        # F8 watchdog: drops what arrives for the stuck host
        le8 = self.peer[e8]
        wd_on = self.window(f8a + 2, f8b)
        qdrop[le8] += wd_on * (rx_demand_e8 * 0.05 / 3000 + 2000 * (0.5 + nz.random(NT)))
        wd_stuck = np.zeros((NE, NT))
        wd_stuck[le8] = wd_on * DT / nz.uniform(5, 12, NT)
        out_disc = qdrop.copy()
        # F7: card ASIC ingress discards
        f7sp = self.spines[P["f7_spine"]]
        f7ends = np.array([e for e in self.dev_ends[f7sp] if self.ends[e]["card"] == P["f7_card"]])
        f7a = P["f7_t"]
        frac7 = np.clip((tc - f7a) / (end_s - f7a), 0, 1)
        in_disc = np.zeros((NE, NT))
        in_disc[f7ends] = (tc >= f7a) * (in_p[f7ends] * 1e-6 * np.exp(np.log(1000) * frac7) * (0.6 + 0.8 * nz.random((len(f7ends), NT)))
                                         + 0.02 * nz.random((len(f7ends), NT)))

        # ---------------------------------------------------------- errors
        fcs = np.zeros((NE, NT))
        for c in P["sporadic"]:
            e = self.cables[c][int(nz.integers(2))]
            rate = nz.uniform(1, 3) / 3600 * DT
            fcs[e] += nz.poisson(rate, NT)
        for e, t, n in link_fcs:
            k = min(int(t // DT), NT - 1)
            fcs[e, k] += n
        # F3 laser
        L3, k3, t3 = P["f3"]
        e3 = self.leaf_up[(L3, k3)]
        s3 = self.peer[e3]
        self.f3 = (e3, s3, t3)
        rxp = self.f3_rx_power(tc)
        ber = np.where(rxp < -5.8, 1e-9 * 10 ** ((-5.8 - rxp) * 1.1), 0.0)
        fcs[s3] += nz.poisson(np.minimum(in_p[s3] * DT * ber, 1e7))
        # F4 loose connector bursts
        h4, x4 = P["f4"]
        n4 = self.nic_of[(h4, x4)]
        l4 = self.peer[n4]
        t = P["f4_t"][0]
        self.f4_bursts = []
        while t < P["f4_t"][1]:
            dur = float(nz.uniform(5, 40))
            k0 = int(t // DT)
            k1 = min(int((t + dur) // DT), NT - 1)
            n = float(nz.uniform(100, 20000))
            for k in range(k0, k1 + 1):
                fcs[l4, k] += n / (k1 - k0 + 1)
                fcs[n4, k] += 0.2 * n / (k1 - k0 + 1)
            self.f4_bursts.append(t)
            t += 60 * float(nz.uniform(8, 15))
        fcs = np.floor(fcs)
        in_err = fcs + np.where(sw[:, None], 0, 0)

        # ---------------------------------------------------------- collect per-step increments
        inc = {}
        inc["in_oct"] = in_b * DT
        inc["out_oct"] = out_b * DT
        inc["in_pkt"] = in_p * DT
        inc["out_pkt"] = out_p * DT
        inc["in_err"] = in_err
        inc["fcs"] = fcs
        inc["in_disc"] = in_disc * DT
        inc["out_disc"] = out_disc * DT
        inc["pfc_tx"] = pfc_tx * DT
        inc["pfc_rx"] = pfc_rx * DT
        inc["ecn"] = ecn * DT
        inc["qdrop"] = qdrop * DT
        inc["wd_stuck"] = wd_stuck
        inc["oob"] = oob * DT
        pq = 84.0                              # µs one 0xFFFF-quanta pause holds a 400G port
        inc["rx_dur"] = np.minimum(pfc_rx * DT * nz.uniform(1, 8, (NE, NT)), DT * 1e6)
        inc["tx_dur"] = np.minimum(pfc_tx * DT * pq * 0.5, DT * 1e6)
        inc["rx_disc_phy"] = np.zeros((NE, NT))
        self.storm_warn = (e8, f8a + 8)
        self.cum = {}
        for k, v in inc.items():
            c = np.zeros((NE, NT + 1))
            np.cumsum(v, axis=1, out=c[:, 1:])
            self.cum[k] = c
        del inc
        self.wd_window = (le8, f8a + 2, f8b)
        # initial values
        r = self.noise
        init = {}
        big = r.uniform(1e16, 3e17, NE)
        init["in_oct"] = big
        init["out_oct"] = big * r.uniform(0.9, 1.1, NE)
        init["in_pkt"] = big / 3900
        init["out_pkt"] = init["out_oct"] / 3900
        init["in_err"] = r.integers(0, 400, NE).astype(float)
        init["fcs"] = np.minimum(init["in_err"], r.integers(0, 300, NE))
        init["in_disc"] = r.integers(0, 5000, NE).astype(float)
        init["out_disc"] = r.integers(0, 2000, NE).astype(float)
        init["pfc_tx"] = r.uniform(1e5, 5e8, NE)
        init["pfc_rx"] = r.uniform(1e5, 5e8, NE)
        init["ecn"] = r.uniform(1e8, 5e10, NE)
        init["qdrop"] = init["out_disc"] * r.uniform(0.2, 1.0, NE)
        init["wd_stuck"] = r.integers(0, 4, NE).astype(float)
        init["oob"] = r.integers(0, 20000, NE).astype(float)
        init["rx_dur"] = r.uniform(1e6, 1e9, NE)
        init["tx_dur"] = r.uniform(1e5, 1e8, NE)
        init["rx_disc_phy"] = r.integers(0, 50, NE).astype(float)
        host_scale = np.array([0.05 if self.ends[e]["kind"] == "nic" else 1.0 for e in range(NE)])
        for k in init:
            init[k] = np.floor(init[k] * (host_scale if k in ("in_oct", "out_oct", "in_pkt", "out_pkt", "pfc_tx", "pfc_rx", "ecn") else 1.0)).astype(np.int64)
        init["out_disc"] = np.maximum(init["out_disc"], init["qdrop"])
        self.init = init
        self.carrier0 = r.integers(2, 7, NE)
        self.sysup0 = {d: -r.uniform(30, 400) * 86400 for d in self.devices}
        self.lastchange0 = r.uniform(2, 25, NE) * -86400

    def f3_rx_power(self, t):
        """Received power (dBm) of the dying lane at the spine end: ~8.5 dB lost over the first hour."""
        e3, _s3, t3 = self.f3
        ln = self.P["f3_lane"]
        base = self.dom_base["txp"][e3, ln] - self.dom_base["loss"][e3, ln]
        x = np.clip((np.asarray(t, float) - t3) / 3600.0, 0, 1.6)
        return base - np.minimum(8.5 * x ** 1.7, 9.5)

    # ------------------------------------------------------------------ state at an instant
    def cable_is_down(self, c, t):
        for a, b in self.down.get(c, ()):
            if a <= t < b:
                return True
        return False

    def transitions(self, c):
        ts = []
        for a, b in self.down.get(c, ()):
            ts.append(a)
            ts.append(b)
        return sorted(ts)

    def agent_start_at(self, d, t):
        s = self.sysup0[d]
        for ta, _ in self.agent_start.get(d, ()):
            if ta <= t:
                s = ta
        return s

    # ------------------------------------------------------------------ output
    def schedule(self):
        nz = np.random.default_rng(self.seed * 31337 + 3)
        ev = []                               # (t_ns, order, kind, device)
        for _di, d in enumerate(self.devices):
            ph = nz.uniform(0, SW_POLL)
            n = int((RUN_MIN * 60 - ph) // SW_POLL) + 1
            for k in range(n):
                t = ph + k * SW_POLL + float(nz.lognormal(-1.0, 0.8))
                if t >= RUN_MIN * 60 - 1:
                    continue
                if nz.random() < 0.02:
                    continue
                if any(a <= t < b for a, b in self.unreach[d]):
                    continue
                ev.append((T0_S * 10**9 + int(t * 1e9), 0, "sw", d))
            ph = nz.uniform(0, DOM_POLL)
            for k in range(int((RUN_MIN * 60 - ph) // DOM_POLL) + 1):
                t = ph + k * DOM_POLL + float(nz.lognormal(0.5, 0.5))
                if t >= RUN_MIN * 60 - 1 or nz.random() < 0.02 or any(a <= t < b for a, b in self.unreach[d]):
                    continue
                ev.append((T0_S * 10**9 + int(t * 1e9), 1, "dom", d))
        for h in self.hosts:
            ph = nz.uniform(0, HOST_POLL)
            for k in range(int((RUN_MIN * 60 - ph) // HOST_POLL) + 1):
                t = ph + k * HOST_POLL + float(nz.uniform(0, 0.004))
                if t >= RUN_MIN * 60 - 1 or nz.random() < 0.003 or any(a <= t < b for a, b in self.unreach[h]):
                    continue
                ev.append((T0_S * 10**9 + int(t * 1000) * 10**6, 2, "host", h))
        ev.sort()
        return ev

    def values(self, E, t):
        k = min(int(t // DT), NT - 1)
        f = (t - k * DT) / DT
        out = {}
        for name, C in self.cum.items():
            v = np.floor(C[E, k] + (C[E, k + 1] - C[E, k]) * f)
            rt = self.reset_t[E]
            after = t >= rt
            if after.any():
                kr = np.minimum((rt[after] // DT).astype(int), NT - 1)
                fr = (rt[after] - kr * DT) / DT
                base = np.floor(C[E[after], kr] + (C[E[after], kr + 1] - C[E[after], kr]) * fr)
                v[after] = v[after] - base
            vi = v.astype(np.int64)
            vi[~after] += self.init[name][E[~after]]
            out[name] = vi
        return out

    def write(self, outdir):
        os.makedirs(outdir, exist_ok=True)
        ev = self.schedule()
        tagpre = {}
        for e in self.ends:
            if e["kind"] == "sw":
                di = self.devices.index(e["dev"])
                ip = f"10.{1 if e['dev'].startswith('leaf') else 2}.0.{di + 1}"
                tagpre[e["idx"]] = (f"port_counters,agent_host={ip},device={e['dev']},fabric=roce,"
                                    f"peer_device={e['peer_dev']},peer_port={e['peer_port']},port={e['port']},"
                                    f"role={e['role']},speed={e['speed']} ")
            else:
                tagpre[e["idx"]] = (f"port_counters,device={e['dev']},fabric=roce,instance={e['dev']}:9100,"
                                    f"interface={e['netdev']},job=node,peer_device={e['peer_dev']},"
                                    f"peer_port={e['peer_port']},port={e['port']},role=host,speed={e['speed']} ")
        dev_arr = {d: np.array(v) for d, v in self.dev_ends.items()}
        trans = {c: self.transitions(c) for c in self.down}
        nlines = 0
        path = os.path.join(outdir, "port_counters.lp")
        dnoise = np.random.default_rng(self.seed * 7 + 99)
        with open(path, "w", buffering=1 << 22) as fh:
            buf = []
            for tns, _, kind, d in ev:
                t = (tns - T0_S * 10**9) / 1e9
                E = dev_arr[d]
                ts = str(tns)
                if kind == "sw":
                    v = self.values(E, t)
                    ast = self.agent_start_at(d, t)
                    sysup = int((t - ast) * 100) % W32
                    for j, e in enumerate(E):
                        en = self.ends[e]
                        c = self.cable_of[e]
                        adm = 1
                        for a, b in self.admin_down.get(e, ()):
                            if a <= t < b:
                                adm = 2
                        oper = 2 if (adm == 2 or self.cable_is_down(c, t)) else 1
                        lc = self.lastchange0[e]
                        for x in trans.get(c, ()):
                            if x <= t:
                                lc = x
                        lcv = int((lc - ast) * 100) if lc >= ast else 0
                        spd = 400000 if en["speed"] == "400G" else 100000
                        sc = self.speed_change.get(e)
                        if sc and t >= sc[0]:
                            spd = sc[1]
                        if en["is32"]:
                            octs = (f"ifInOctets={int(v['in_oct'][j]) % W32}i,ifOutOctets={int(v['out_oct'][j]) % W32}i,"
                                    f"ifInUcastPkts={int(v['in_pkt'][j]) % W32}i,ifOutUcastPkts={int(v['out_pkt'][j]) % W32}i,")
                        else:
                            octs = (f"ifHCInOctets={v['in_oct'][j]}i,ifHCOutOctets={v['out_oct'][j]}i,"
                                    f"ifHCInUcastPkts={v['in_pkt'][j]}i,ifHCOutUcastPkts={v['out_pkt'][j]}i,")
                        st = int(v['wd_stuck'][j])
                        rec = st
                        le8, wa, wb = self.wd_window
                        if e == le8 and wa <= t < wb:
                            rec = st - 1
                        buf.append(tagpre[e] + octs +
                                   f"ifInErrors={int(v['in_err'][j]) % W32}i,ifOutErrors=0i,"
                                   f"ifInDiscards={int(v['in_disc'][j]) % W32}i,ifOutDiscards={int(v['out_disc'][j]) % W32}i,"
                                   f"dot3StatsFCSErrors={int(v['fcs'][j]) % W32}i,ifOperStatus={oper}i,ifAdminStatus={adm}i,"
                                   f"ifHighSpeed={spd}i,ifLastChange={lcv % W32}i,sysUpTime={sysup}i,"
                                   f"aristaPfcPriorityRequests_p3={v['pfc_tx'][j]}i,aristaPfcPriorityIndications_p3={v['pfc_rx'][j]}i,"
                                   f"aristaPfcWatchdogTxQueueStuckCount_q3={st}i,aristaPfcWatchdogTxQueueRecoveredCount_q3={rec}i,"
                                   f"aristaEgressQueuePktsDropped_q3={v['qdrop'][j]}i,aristaEgressQueueEcnMarkedPkts_q3={v['ecn'][j]}i "
                                   + ts + "\n")
                elif kind == "dom":
                    e9 = self.leaf_up[self.P["f9"]]
                    for e in E:
                        if e == e9 and t >= self.P["f9_shut"] + 120:
                            continue          # module not seated: no DOM sensor rows
                        en = self.ends[e]
                        nl = en["lanes"]
                        db = self.dom_base
                        pe = self.peer[e]
                        down = self.cable_is_down(self.cable_of[e], t)
                        adm_off = any(a <= t < b for a, b in self.admin_down.get(e, ()))
                        parts = [f"xcvrTemperature={db['temp'][e] + dnoise.normal(0, 0.3):.2f}"]
                        for ln in range(nl):
                            bias = db["bias"][e, ln] + dnoise.normal(0, 0.25)
                            txp = db["txp"][e, ln] + dnoise.normal(0, 0.05)
                            rxp = db["txp"][pe, ln] - db["loss"][pe, ln] + dnoise.normal(0, 0.05) if pe < self.n_sw else \
                                0.8 - db["loss"][pe, ln] + dnoise.normal(0, 0.05)
                            e3, s3, t3 = self.f3
                            lane3 = self.P["f3_lane"]
                            if ln == lane3 and t >= t3:
                                x = min((t - t3) / 5400.0, 1.0)
                                if e == e3:
                                    bias = db["bias"][e, ln] * (1 - 0.78 * x ** 1.3) + dnoise.normal(0, 0.25)
                                    txp = db["txp"][e, ln] - float(8.5 * min((t - t3) / 3600.0, 1.6) ** 1.7) + dnoise.normal(0, 0.05)
                                if e == s3:
                                    rxp = float(self.f3_rx_power(t)) + dnoise.normal(0, 0.05)
                                    self.f3_dom_seen = True
                            if adm_off:
                                bias, txp = 0.0, -40.0
                            if down:
                                rxp = -40.0
                            parts.append(f"xcvrTxBiasLane{ln + 1}={bias:.2f},xcvrTxPowerLane{ln + 1}={txp:.2f},"
                                         f"xcvrRxPowerLane{ln + 1}={rxp:.2f}")
                        buf.append(tagpre[e] + ",".join(parts) + " " + ts + "\n")
                else:
                    v = self.values(E, t)
                    for j, e in enumerate(E):
                        en = self.ends[e]
                        c = self.cable_of[e]
                        rt = self.reset_t[e]
                        car = 0 if self.cable_is_down(c, t) else 1
                        tr = [x for x in trans.get(c, ()) if x <= t and not (t >= rt and x < rt)]
                        ndown = sum(1 for i, x in enumerate(self.transitions(c)) if i % 2 == 0 and x <= t and not (t >= rt and x < rt))
                        cc = (1 if t >= rt else self.carrier0[e]) + len(tr)
                        ldn = (0 if t >= rt else self.carrier0[e] // 2) + ndown
                        spd = en["cap"] if car else -125000
                        sw_ = 0
                        if e == self.storm_warn[0] and t >= self.storm_warn[1]:
                            sw_ = 1
                        vals = [v['in_oct'][j], v['out_oct'][j], v['in_pkt'][j], v['out_pkt'][j], v['fcs'][j],
                                v['rx_disc_phy'][j], v['oob'][j], v['pfc_rx'][j], v['pfc_tx'][j], v['rx_dur'][j],
                                v['tx_dur'][j]]
                        s = [fmt_float(x) for x in vals]
                        buf.append(tagpre[e] +
                                   f"node_ethtool_rx_bytes_phy={s[0]},node_ethtool_tx_bytes_phy={s[1]},"
                                   f"node_ethtool_rx_packets_phy={s[2]},node_ethtool_tx_packets_phy={s[3]},"
                                   f"node_ethtool_rx_crc_errors_phy={s[4]},node_ethtool_rx_discards_phy={s[5]},"
                                   f"node_ethtool_rx_out_of_buffer={s[6]},node_ethtool_rx_prio3_pause={s[7]},"
                                   f"node_ethtool_tx_prio3_pause={s[8]},node_ethtool_rx_prio3_pause_duration={s[9]},"
                                   f"node_ethtool_tx_prio3_pause_duration={s[10]},node_ethtool_tx_pause_storm_warning_events={sw_},"
                                   f"node_ethtool_tx_pause_storm_error_events=0,node_ethtool_link_down_events_phy={ldn},"
                                   f"node_network_carrier={car},node_network_carrier_changes_total={cc},"
                                   f"node_network_speed_bytes={fmt_float(spd)} " + ts + "\n")
                if len(buf) > 20000:
                    nlines += len(buf)
                    fh.write("".join(buf))
                    buf = []
            nlines += len(buf)
            fh.write("".join(buf))
        self.nlines = nlines
        return path

    # ------------------------------------------------------------------ labels
    def labels(self):
        P = self.P
        def ns(s):
            return T0_S * 10**9 + round(s * 1e9)
        end_s = RUN_MIN * 60.0
        nm = self.name

        def pe(e):
            d, p = nm(self.peer[e])
            return {"device": d, "port": p}

        faults = []
        f1leaf = self.leaves[P["f1_leaf"]]
        rel = {}
        for e in self.dev_ends[f1leaf]:
            d, p = nm(self.peer[e])
            rel.setdefault(d, []).append(p)
        faults.append(dict(kind="ecn_threshold_too_low", device=f1leaf, ports=["*"], start_ns=ns(P["f1"][0]),
                           end_ns=ns(P["f1"][1]), peer_ends=[],
                           related=[{"device": d, "ports": ps} for d, ps in rel.items()],
                           signature="aristaEgressQueueEcnMarkedPkts_q3 25-90% of packets on every port of the leaf "
                                     "(20-50x peers at same load), its hosts' NIC bytes halve (DCQCN back-off), PFC lower"))
        f2sp = self.spines[P["f2_spine"]]
        f2e = [e for e in self.dev_ends[f2sp] if self.ends[e]["card"] == P["f2_card"]]
        faults.append(dict(kind="pfc_disabled_linecard", device=f2sp, ports=[nm(e)[1] for e in f2e],
                           start_ns=ns(P["f2"][0]), end_ns=ns(P["f2"][1]), peer_ends=[pe(e) for e in f2e], related=[],
                           signature="card's ports: aristaPfcPriorityRequests_p3/Indications_p3 flat, ifOutDiscards and "
                                     "aristaEgressQueuePktsDropped_q3 under congestion where sibling ports pause"))
        e3, _s3, t3 = self.f3
        faults.append(dict(kind="laser_lane_failing", device=nm(e3)[0], ports=[nm(e3)[1]], start_ns=ns(t3), end_ns=ns(end_s),
                           peer_ends=[pe(e3)], related=[],
                           signature=f"lane {P['f3_lane'] + 1}: xcvrTxBias falls 55->12 mA, far-end xcvrRxPower -0.5->-9 dBm "
                                     "over ~1 h, then dot3StatsFCSErrors at the far end growing"))
        n4 = self.nic_of[P["f4"]]
        l4 = self.peer[n4]
        faults.append(dict(kind="intermittent_crc", device=nm(l4)[0], ports=[nm(l4)[1]], start_ns=ns(self.f4_bursts[0]),
                           end_ns=ns(self.f4_bursts[-1] + 60), peer_ends=[pe(l4)], related=[],
                           signature="5-40 s bursts of 100-20000 FCS errors every 8-15 min at the leaf port (20% at the NIC), "
                                     "silent between"))
        e5 = self.nic_of[P["f5"]]
        l5 = self.peer[e5]
        L5 = self.ends[l5]["dev"]
        ups5 = [self.ends[e]["port"] for e in self.dev_ends[L5] if self.ends[e]["role"] == "leaf_up"]
        faults.append(dict(kind="nic_rx_buffer_overflow", device=nm(e5)[0], ports=[nm(e5)[1]], start_ns=ns(P["f5_t"]),
                           end_ns=ns(P["f5_t"] + 2400), peer_ends=[pe(e5)], related=[{"device": L5, "ports": ups5}],
                           signature="node_ethtool_rx_out_of_buffer 30/s -> 12k/s, node_ethtool_tx_prio3_pause 150 -> 3000/s "
                                     "(leaf aristaPfcPriorityIndications_p3), traffic ~90%"))
        e6 = self.leaf_up[P["f6"]]
        faults.append(dict(kind="half_speed_link", device=nm(e6)[0], ports=[nm(e6)[1]], start_ns=ns(P["f6_t"]),
                           end_ns=ns(end_s), peer_ends=[pe(e6)], related=[],
                           signature="one flap then ifHighSpeed 200000 at both ends under speed=400G; queues full, ECN/PFC up"))
        f7sp = self.spines[P["f7_spine"]]
        f7e = [e for e in self.dev_ends[f7sp] if self.ends[e]["card"] == P["f7_card"]]
        faults.append(dict(kind="linecard_ingress_discards", device=f7sp, ports=[nm(e)[1] for e in f7e],
                           start_ns=ns(P["f7_t"]), end_ns=ns(end_s), peer_ends=[pe(e) for e in f7e], related=[],
                           signature="ifInDiscards on all 16 consecutive ports of the card, 1e-6 -> 1e-3 of received packets"))
        e8 = self.nic_of[P["f8"]]
        l8 = self.peer[e8]
        L8 = self.ends[l8]["dev"]
        ups8 = [e for e in self.dev_ends[L8] if self.ends[e]["role"] == "leaf_up"]
        rel8 = [{"device": L8, "ports": [self.ends[e]["port"] for e in ups8]}]
        sp8 = {}
        for e in ups8:
            d, p = nm(self.peer[e])
            sp8.setdefault(d, []).append(p)
        rel8 += [{"device": d, "ports": ps} for d, ps in sp8.items()]
        faults.append(dict(kind="pfc_storm", device=L8, ports=[nm(l8)[1]], start_ns=ns(P["f8_t"][0]),
                           end_ns=ns(P["f8_t"][1]), peer_ends=[pe(l8)], related=rel8,
                           signature="aristaPfcPriorityIndications_p3 30-80k/s from the NIC, tx to host ~0, watchdog "
                                     "StuckCount rising, aristaEgressQueuePktsDropped_q3/ifOutDiscards; job B stalls"))
        e9 = self.leaf_up[P["f9"]]
        faults.append(dict(kind="port_down_admin_up", device=nm(e9)[0], ports=[nm(e9)[1]], start_ns=ns(P["f9_up"]),
                           end_ns=ns(end_s), peer_ends=[pe(e9)], related=[],
                           signature="after a cable swap: ifAdminStatus 1, ifOperStatus 2 at the leaf port until the end "
                                     "(far end re-enabled, also no link), no traffic"))
        n10 = self.nic_of[P["f10"]]
        l10 = self.peer[n10]
        faults.append(dict(kind="flapping_link", device=nm(l10)[0], ports=[nm(l10)[1]], start_ns=ns(P["f10_t"]),
                           end_ns=ns(math.ceil(self.f10_end / 30) * 30), peer_ends=[pe(l10)], related=[],
                           signature="4-6 down/up cycles within 5 min: ifOperStatus 2, ifLastChange, NIC carrier 0, "
                                     "carrier_changes +2 per flap, FCS at link-up"))
        for f in faults:
            f["start_ns"] = T0_S * 10**9 + (f["start_ns"] - T0_S * 10**9) // (30 * 10**9) * 30 * 10**9

        H = []

        def hp(kind, where, a, b, note, background=False):
            h = dict(kind=kind, where=where, start_ns=ns(a), end_ns=ns(b), note=note)
            if background:
                h["background"] = True
            H.append(h)
        allw = ["*"]
        hp("job_stop", allw, P["A_stop"] - 60, P["A_stop"] + 120, "job A (gpu001-060) stops")
        hp("job_stop", allw, P["B_eval_end"] - 60, P["B_eval_end"] + 120, "job B evaluation stops")
        hp("job_start", allw, P["B_start"] - 30, P["B_start"] + 240, "job B training starts")
        hp("job_stop", allw, P["B_stop"] - 60, P["B_stop"] + 120, "job B stops")
        hp("idle_night", allw, P["A_stop"], P["C_start"], "idle stretch: background traffic only")
        hp("job_start", allw, P["C_start"] - 30, P["C_start"] + 300, "all-reduce job over all 96 hosts starts")
        hp("all_reduce_all_hosts", allw, P["C_start"], RUN_MIN * 60.0, "all-reduce over every host")
        stor_leaves = [self.leaves[2 * p + s] for p in STOR_PAIRS for s in (0, 1)]
        incw = [f"{lf}:*" for lf in stor_leaves] + [f"{sp}:*" for sp in self.spines] + [f"{h}:*" for h in self.stor_hosts]
        incw += [f"{lf}:Ethernet{21 + k}/1" for lf in self.leaves if lf not in stor_leaves for k in range(12)]
        for a, d in P["incast"]:
            hp("storage_incast", incw, a, a + d + 60, "checkpoint writes to the storage nodes: 100G ports saturated, "
               "ECN high, PFC spreading through the spines")
        la = self.leaves[P["agent_leaf"]]
        hp("snmp_agent_restart", [f"{la}:*"], P["t_agent"] - 60, P["t_agent"] + 180,
           "sysUpTime resets, ifLastChange 0, counters continue, ~1 poll missing")
        lr = self.leaves[P["reload_leaf"]]
        rw = [f"{lr}:*"] + [f"{self.ends[self.peer[e]]['dev']}:{self.ends[self.peer[e]]['port']}" for e in self.dev_ends[lr]]
        hp("switch_reload", rw, P["t_reload"] - 30, P["t_reload"] + 600,
           "maintenance reload: no rows 5 min, links down to 7 min, counters from 0, link-up FCS")
        old = [f"{sp}:{self.ends[e]['port']}" for sp in self.spines for e in self.dev_ends[sp]
               if self.ends[e]["is32"]]
        hp("counter32_wrap", old, 0, RUN_MIN * 60.0, "older spine cards: 32-bit ifInOctets/ifOutOctets/ifIn/OutUcastPkts wrap",
           background=True)
        hp("missing_polls", ["*"], 0, RUN_MIN * 60.0, "~2% SNMP timeouts", background=True)
        hp("collector_outage", [f"{d}:*" for d in self.devices], P["outage"], P["outage"] + 480,
           "no switch rows for 8 min")
        ds = self.spines[P["drain_spine"]]
        hp("spine_drain", ["*"], P["drain"][0], P["drain"][1] + 60, f"{ds} drained by BGP: ~0 bytes on its ports, other spine 2x")
        pl = self.leaves[P["polar_leaf"]]
        pw = []
        for k in P["polar_k"]:
            e = self.leaf_up[(P["polar_leaf"], k)]
            pw += [f"{pl}:{self.ends[e]['port']}", f"{self.ends[self.peer[e]]['dev']}:{self.ends[self.peer[e]]['port']}"]
        hp("ecmp_polarisation", pw, 0, RUN_MIN * 60.0, "two uplinks 1.6x their siblings", background=True)
        sw_ = []
        for c in P["sporadic"]:
            for e in self.cables[c][:2]:
                sw_.append(f"{self.ends[e]['dev']}:{self.ends[e]['port']}")
        hp("sporadic_fcs", sw_, 0, RUN_MIN * 60.0, "1-3 single FCS errors per hour", background=True)
        for hn, t in P["reboot"]:
            w = [f"{hn}:*"]
            for s in (0, 1):
                le = self.peer[self.nic_of[(hn, s)]]
                w.append(f"{self.ends[le]['dev']}:{self.ends[le]['port']}")
            hp("host_reboot", w, t - 30, t + 400, "both NICs down 2-5 min, NIC counters from 0")
        s9 = self.peer[e9]
        hp("planned_cable_swap", [f"{nm(e9)[0]}:{nm(e9)[1]}", f"{nm(s9)[0]}:{nm(s9)[1]}"], P["f9_shut"], P["f9_up"],
           "both ends admin-shut for a cable swap")
        return dict(scenario="roce_arista_snmp", scale="small", seed=self.seed, fabric="roce", interval_s=30,
                    sample_s=SW_POLL, host_sample_s=HOST_POLL, t0_ns=T0_S * 10**9, t_end_ns=ns(RUN_MIN * 60.0),
                    train_until_ns=ns(FIT_MIN * 60.0), fit_first=f"{FIT_MIN}m", ports=self.NE, lines=self.nlines,
                    faults=faults, healthy_phenomena=H)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    fab = Fabric(a.seed)
    fab.plan()
    fab.simulate()
    fab.write(a.outdir)
    lab = fab.labels()
    with open(os.path.join(a.outdir, "labels.json"), "w") as f:
        json.dump(lab, f, indent=1)
        f.write("\n")
    print(f"{a.outdir}: {fab.NE} ports, {fab.nlines} lines, {len(lab['faults'])} faults, "
          f"{len(lab['healthy_phenomena'])} healthy phenomena")
    return 0


if __name__ == "__main__":
    sys.exit(main())
