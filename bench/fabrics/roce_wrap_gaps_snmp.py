#!/usr/bin/env python3
"""roce_wrap_gaps_snmp -- RoCEv2 rail-optimised GPU fabric, polled by Telegraf SNMP, with bad data.

    python roce_wrap_gaps_snmp.py OUTDIR --seed N
      -> OUTDIR/port_counters.lp  (InfluxDB line protocol, ns timestamps, as the relay wrote it)
      -> OUTDIR/labels.json       (faults, healthy phenomena, naming; see /work/shared/scenarios/score.py)

DATA SHEET
==========

Fabric ("fab2", one pod)
------------------------
* 20 GPU servers x 8 RoCE NICs, two-tier leaf/spine, rail optimised: NIC i of every server is
  cabled to rail leaf i (leaf-r0 .. leaf-r7), host gpuNN on leaf port EthernetNN/1.
  - gpu01-gpu14: HGX H100 class, ConnectX-7 at 400G (netdevs enp24s0np0 .. enp206s0np0; ibdevs
    mlx5_0,3,4,5,6,9,10,11 -- mlx5_1/2/7/8 are the storage/front-end NICs, not on this fabric).
  - gpu15-gpu20: older HGX A100 class, ConnectX-6 at 200G (enp12s0np0 .. enp204s0np0; ibdevs
    mlx5_0-3 and mlx5_6-9).  Their leaf ports run at 200G by design (ifHighSpeed 200000).
* Rail leaves: Arista 7060DX5-64S (EOS, 400G OSFP), 8 uplinks each:
  Ethernet57/1-58/1 -> spine-1, 59/1-60/1 -> spine-2 (100G optics), 61/1-62/1 -> spine-3,
  63/1-64/1 -> spine-4 (200G).  One spare cage per leaf (Ethernet21/1): an empty cage
  (ifOperStatus notPresent(6)) on even leaves, an optic with no fibre (down(2), admin up) on odd
  leaves -- never cabled, normal.
* Spines, the old generation: spine-1/spine-2 are NVIDIA SN2700 (Onyx, 32x100G); spine-3/spine-4
  are SN3700 (Onyx, 200G).  spine-3/4 also carry the storage leaf stor-lf1 (Arista 7050CX3,
  100G; 4 storage servers stor01-04 with 2x100G each; the storage servers are not monitored).
  Storage prefixes are only reachable via spine-3/4, so checkpoint and data-loader traffic never
  crosses spine-1/2; those carry only the cross-rail residue (PXN keeps collectives on-rail).
* Lossless class: priority 3 (DSCP 26), PFC on prio 3 on every fabric port, ECN/WRED on egress
  queue 3 (DCQCN on the NICs; CNPs on prio 6).  PFC watchdog is not enabled (open change).
* MTU 9214 (Arista) / 9216 (Onyx); RoCE path MTU 4096, so data frames are ~4.1 kB on the wire.

Collection
----------
All switch data comes from one Telegraf on the collector VM mon-col01 (inputs.snmp, interval 30s,
round_interval, precision 1s, timeout 5s, retries 1) and reaches port_counters.lp through a
central relay (inputs.influxdb_v2_listener -> outputs.file).  Every SNMP line therefore carries
`host=mon-col01` (Telegraf's global host tag, NOT the switch); the switch is `hostname` (sysName,
an inherited tag) and `agent_host` (its management address).

  snmp,agent_host=..,host=mon-col01,hostname=leaf-r3  sysUpTime=<TimeTicks, 1/100 s>
  interface,agent_host=..,host=mon-col01,hostname=..,ifAlias=..,ifDescr=..,ifName=..  <fields>
      one table joining IF-MIB ifTable + ifXTable + EtherLike dot3StatsFCSErrors by ifIndex, and
      the vendor PFC/queue rows for priority/queue 3 through oid_index_suffix (".3", ".3.0"), so
      each port is one line per poll.  Fields by device generation:
      - Arista (leaf-r*, stor-lf1), SNMPv2c, 64-bit: ifHCIn/OutOctets, ifHCIn/OutUcastPkts,
        ifHCIn/OutMulticastPkts, ifIn/OutDiscards, ifIn/OutErrors, ifInUnknownProtos,
        dot3StatsFCSErrors, ifAdminStatus, ifOperStatus, ifLastChange, ifHighSpeed, ifMtu,
        aristaPfcPriorityRequests (PFC frames this port SENT, prio 3),
        aristaPfcPriorityIndications (PFC frames it RECEIVED, prio 3),
        aristaEgressQueuePktsDropped (egress queue 3, unicast).
        EOS exposes no ECN-marked counter over SNMP: ECN is only visible at the NICs.
      - spine-3/spine-4 (Onyx), SNMPv2c, 64-bit: the IF-MIB HC set plus
        mellanoxQoSPrioRxPausePkts / mellanoxQoSPrioTxPausePkts (MELLANOX-QOS-MIB, prio 3).
      - spine-1/spine-2 (Onyx on SN2700): polled with SNMPv1 (the legacy community on these two
        boxes only answers v1; migration ticket open).  SNMPv1 cannot carry Counter64, so the
        agent returns NO ifHC* objects and no MELLANOX-QOS-MIB counters: only Counter32
        ifInOctets/ifOutOctets/ifInUcastPkts/ifOutUcastPkts (+ ifSpeed = 4294967295, ifHighSpeed
        100000, discards/errors, dot3StatsFCSErrors).
  entPhySensorTable,agent_host=..,entPhysicalDescr=DOM\\ Rx\\ Power\\ Sensor\\ for\\ EthernetN/1\\ Lane\\ L,..
      a second inputs.snmp on the Arista boxes, interval 5m, ENTITY-SENSOR-MIB joined with
      entPhysicalDescr, tagpass "DOM Rx Power*": optical receive power per lane in dBm with
      entPhySensorPrecision 2 (value -152 = -1.52 dBm); -4000 means no light.

Every GPU server runs its own Telegraf (interval 30s, collection_jitter 5s, precision 1s):
  ethtool,driver=mlx5_core,host=gpu07,interface=enp79s0np0   (inputs.ethtool with a fieldpass)
      rx/tx_bytes_phy, rx/tx_packets_phy, rx_crc_errors_phy, rx_symbol_err_phy,
      rx_corrected_bits_phy, rx/tx_discards_phy, rx_out_of_buffer, rx/tx_prio3_pause,
      rx/tx_prio3_pause_duration (us), tx_pause_storm_warning/error_events, link_down_events_phy,
      and from ETHTOOL_GSET: link (0/1), speed (Mb/s; 9223372036854775807 when the link is down,
      i.e. SPEED_UNKNOWN clamped by the serializer), duplex (255 = unknown), autoneg,
      interface_up (bool: admin flag, stays true while the link is down).
  infiniband,device=mlx5_4,host=gpu07,port=1  (inputs.infiniband, rdma = true): two lines per
      poll with the same tags and time -- the IB PMA counters (port_rcv_data/port_xmit_data are in
      4-octet units, link_downed, port_xmit_wait, ...) and the RDMA hw_counters
      (np_ecn_marked_roce_packets, np_cnp_sent, rp_cnp_handled, out_of_sequence, packet_seq_err,
      local_ack_timeout_err, ...).
  A NIC port therefore has two names: the netdev (`interface` tag) and the ibdev (`device` tag).

Naming and the cabling convention (ifAlias = the far end)
----------------------------------------------------------
* device = `hostname` tag on SNMP lines, `host` tag on host lines.
* port = `ifName` (Arista "Ethernet7/1", Onyx "Eth1/5"; ifDescr equals ifName), NIC netdev
  (enp64s0np0) or ibdev (mlx5_3) -- labels list both NIC names wherever a NIC port is meant.
* ifAlias: "<far device>:<far port>" ("gpu07:enp64s0np0", "spine-3:Eth1/9",
  "leaf-r2:Ethernet61/1", "stor02:ens1f1"), except the older servers' leaf ports, cabled under the
  previous convention "<host> <ibdev>" ("gpu17 mlx5_3").  Spares and Management1/mgmt0 have no
  ifAlias tag (Telegraf drops empty tags).

What is normal here
-------------------
* Jobs: job A (gpu01-14) trains an LLM: rail-local ring/tree AllReduce, every rail in lockstep at
  ~50-55 % of 400G; MoE all-to-all phases every ~25 min (receivers hot for minutes: ECN marks at
  10^4-10^5/s and PFC at hundreds to thousands/s on many ports at once); a synchronous checkpoint
  to storage every ~22 min (1-2.5 min, the ring goes quiet, ~480 Gb/s of writes over
  leaf->spine-3/4->stor-lf1: PFC on uplinks and the storage leaf, CNPs back to the writers); it
  crashes once before the 50th minute, idles ~12 min and restarts (a restart reads the checkpoint:
  a storage read burst, PFC on the leaf uplinks).  Job B (gpu15-20, 200G) fine-tunes with two
  stop/idle/start cycles.  Eval steps are one-poll dips.
* The CX-6 servers pause their leaf ports now and then (tx_prio3_pause tens/s, "slow receivers");
  some Arista host ports count a trickle of ifInDiscards (ingress control-plane drops).
* A few long leaf<->spine optical runs have a steady trickle of FCS errors (0.01-0.2/s).
* ECMP is not perfectly even (static hash imbalance of +-15 % between sibling uplinks).
* Idle NIC ports carry ~8 Mb/s of probes/LLDP; corrected FEC bits flow even when idle.

Data quality (none of this is a fault)
--------------------------------------
* 32-bit counters on spine-1/spine-2.  2^32 octets is 0.34 s of 100G line rate, so a 32-bit
  octet counter on a loaded 100G port is useless at a 30 s poll.  Here the 100G spines only carry
  the cross-rail residue, 0.1-0.6 Gb/s per port (policy-capped at 0.8 Gb/s), so a 30 s
  ifInOctets delta is 0.1-0.7 x 2^32 and stays below 2^32 even over a slow 40 s poll: the
  counter wraps every 1-8 polls and a delta is recoverable with the one-wrap rule (add 2^32 when
  it goes negative).  Across one missed poll (60 s) it usually still is; across 2-3 missed polls
  or the 5-minute outage it is ambiguous (possibly several wraps) -- use ifInUcastPkts (~3 kB
  average frames: it wraps every few days, and a few ports do wrap during the capture) or treat
  the octet delta as unknown.
* Missed polls: each switch misses whole polls (the agent timed out: no snmp and no interface
  lines for that round) a few times an hour, 1-3 polls at a time; spine-1's v1 agent (no
  GETBULK) is the worst.  spine-1 is unreachable once for 5 minutes.  Host agents drop a poll
  rarely.
* Timestamps are the collection time rounded to 1 s: 0-5 s after the round on hosts
  (collection_jitter), 1-7 s on switches (walk time; v1 walks are slow), sometimes up to ~12 s.
  Counters are read at that instant, not at the round.
* The relay file has ~0.3 % duplicated batches (agent write retries) and ~0.6 % late batches
  (written 0.5-3 minutes after their timestamp, i.e. out of order).
* Planned reload of spine-2 after the training window: BGP drain, reload (no SNMP answer ~5 min,
  all its links down, neighbours see ifOperStatus down and ifLastChange move), back with
  sysUpTime restarted and every counter restarted from 0 (on Counter32 that looks like a wrap:
  check sysUpTime), undrain a few minutes later.
* One NIC driver reload (mlx5_core) on an idle job-B server: its 8 netdevs disappear for one
  poll, links drop for ~0.5-1 min, and every ethtool / infiniband counter restarts from 0.

Faults (all after the training window; 8 per seed; see labels.json for place and time)
--------------------------------------------------------------------------------------
* dirty_optic: a leaf host port's receive power sags 3-5 dB (all lanes) and its FCS errors
  (dot3StatsFCSErrors, ifInErrors) climb with traffic; the sending NIC sees RoCE NAKs
  (packet_seq_err).  Ends with a clean/reseat (link down ~1-2 min).
* flapping_link: a leaf<->NIC link bounces 1-3 times a minute for 15-30 min: ifLastChange moves
  (ifOperStatus only shows down when a poll lands inside a bounce), link_down_events_phy /
  link_downed count each one, CRC/symbol errors at each link-up, retransmissions, less traffic.
* pfc_storm: one NIC's receive path wedges (firmware; the host OS and its Telegraf stay up) and
  it sends prio-3 PAUSE continuously (~2x10^4 frames/s, tx_prio3_pause_duration ~1 s/s,
  tx_pause_storm_warning_events; device stall prevention is off on this fleet): its leaf
  port receives pauses nonstop and transmits nothing, the leaf pauses its other ingress ports and
  uplinks, the spines pause the storage leaf, job A stalls fabric-wide (related).  Ends when the
  server is power-cycled (its 8 links down ~5 min, host counters restart).
* ecn_disabled_port: a leaf host port lost its ECN/WRED profile on queue 3: its NIC sees no ECN
  marks and sends no CNPs while its siblings mark heavily in the same all-to-all phases; the
  port drops instead (aristaEgressQueuePktsDropped, ifOutDiscards; out_of_sequence at the NIC)
  and the leaf pauses more upstream (related).
* half_speed_link: a 400G host link bounces and comes back auto-negotiated at 200G
  (ifHighSpeed 200000, NIC speed 200000): ECN marks pile up at that NIC, the job slows to its
  pace (related); repaired by a reseat (second bounce back to 400G) or left to the end.
* link_left_down: after the spine-2 reload one leaf uplink to spine-2 never comes back:
  admin up, oper down, no light on the leaf receiver (-40 dBm), its spine-2 end reports up with
  no traffic (the receive fibre was left unplugged at the patch panel).
* uplink_discards: one leaf uplink to spine-3/4 discards a rising share (3e-5 -> ~1e-3) of what
  it receives (ifInDiscards) at ordinary load while its siblings discard nothing.
* fcs_errors_during_poll_gaps: spine-1 (Counter32, v1, gappy) starts counting rising FCS/input
  errors on one leaf-facing port while its polls go missing more often than usual and the agent
  is unreachable for 5 minutes in the middle; the leaf end is clean.
"""
from __future__ import annotations

import argparse
import json
import math
import os
from datetime import datetime, timezone

import numpy as np

SCENARIO = "roce_wrap_gaps_snmp"
IV = 30                      # poll interval, s
R = 480                      # rounds: 4 h
TRAIN_R = 150                # 75 min fault-free training window
GB = 1.25e8                  # bytes/s per Gb/s
M32 = 1 << 32
SPEED_UNKNOWN = (1 << 63) - 1
COLLECTOR = "mon-col01"

NEW_NET = ["enp24s0np0", "enp64s0np0", "enp79s0np0", "enp94s0np0",
           "enp154s0np0", "enp170s0np0", "enp192s0np0", "enp206s0np0"]
NEW_IB = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]
OLD_NET = ["enp12s0np0", "enp18s0np0", "enp75s0np0", "enp84s0np0",
           "enp141s0np0", "enp148s0np0", "enp186s0np0", "enp204s0np0"]
OLD_IB = ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9"]
N_HOSTS = 20
JOB_A = list(range(1, 15))   # gpu01..gpu14 (400G)
JOB_B = list(range(15, 21))  # gpu15..gpu20 (200G)


# ----------------------------------------------------------------------------- model objects
class Dev:
    def __init__(self, name, kind, ip, model):
        self.name, self.kind, self.ip, self.model = name, kind, ip, model
        self.ports = []
        self.boot = 0.0                     # absolute seconds
        self.polled = np.ones(R, bool)
        self.ts = np.zeros(R)               # interface / ethtool sample instants
        self.ts2 = np.zeros(R)              # snmp scalar / infiniband sample instants
        self.reset_rounds = []              # counters restart from 0 at these round boundaries
        self.reboot_boot = None             # new boot time after a reload


class Port:
    def __init__(self, dev, name, role, speed, alias=None):
        self.dev, self.name, self.role = dev, name, role
        self.alias = alias
        self.design_speed = speed
        self.speed = np.full(R, speed, dtype=np.int64)
        self.peer = None
        self.a = {}                         # per-second rate arrays
        self.ev = {}                        # discrete event counters: name -> [(t, w)]
        self.trans = []                     # (t, oper state)
        self.init_state = 1
        self.admin = 1
        self.host = None
        self.rail = None
        self.ibdev = None
        self.base = {}
        self.init_lc = 0
        self.lanes = None                   # DOM rx power baseline per lane (dBm)
        self.atten = None                   # extra attenuation per round (dB)
        self.upf = np.ones(R)               # fraction of each round the port is up
        dev.ports.append(self)

    def arr(self, name):
        a = self.a.get(name)
        if a is None:
            a = self.a[name] = np.zeros(R)
        return a

    def event(self, name, t, w=1):
        self.ev.setdefault(name, []).append((t, w))

    def key(self):
        return f"{self.dev.name}:{self.name}"


def lnm(rng, mean, sigma, size=None):
    """lognormal with the given mean"""
    mu = np.log(mean) - 0.5 * sigma * sigma
    return rng.lognormal(mu, sigma, size)


def esc(v):
    return str(v).replace("\\", "\\\\").replace(" ", "\\ ").replace(",", "\\,").replace("=", "\\=")


# ----------------------------------------------------------------------------- topology
def build(rng):
    devs = {}
    hosts = {}
    for h in range(1, N_HOSTS + 1):
        name = f"gpu{h:02d}"
        new = h in JOB_A
        d = Dev(name, "host", None, "HGX-H100/CX-7" if new else "HGX-A100/CX-6")
        d.gen = "new" if new else "old"
        d.nics = []
        for i in range(8):
            net = (NEW_NET if new else OLD_NET)[i]
            p = Port(d, net, "nic", 400000 if new else 200000)
            p.ibdev = (NEW_IB if new else OLD_IB)[i]
            p.host, p.rail = h, i
            d.nics.append(p)
        devs[name] = d
        hosts[h] = d
    leaves = {}
    for i in range(8):
        d = Dev(f"leaf-r{i}", "leaf", f"10.252.10.{11 + i}", "Arista DCS-7060DX5-64S")
        leaves[i] = d
        devs[d.name] = d
        for h in range(1, N_HOSTS + 1):
            nic = hosts[h].nics[i]
            alias = f"gpu{h:02d}:{nic.name}" if h in JOB_A else f"gpu{h:02d} {nic.ibdev}"
            p = Port(d, f"Ethernet{h}/1", "host", nic.design_speed, alias)
            p.host, p.rail = h, i
            p.peer, nic.peer = nic, p
        sp = Port(d, "Ethernet21/1", "spare", 400000 if i % 2 else 0)
        sp.init_state = 2 if i % 2 else 6
    spines = {}
    for s in range(1, 5):
        old = s <= 2
        d = Dev(f"spine-{s}", "spine_v1" if old else "spine_v2", f"10.252.10.{s}",
                "Mellanox SN2700 (Onyx)" if old else "Mellanox SN3700 (Onyx)")
        spines[s] = d
        devs[d.name] = d
    stor = Dev("stor-lf1", "stor", "10.252.10.31", "Arista DCS-7050CX3-32S")
    devs[stor.name] = stor
    # uplinks leaf <-> spine
    upl = {}
    for i in range(8):
        for s in range(1, 5):
            for j in range(2):
                lport = 57 + 2 * (s - 1) + j
                sport = 2 * i + j + 1
                spd = 100000 if s <= 2 else 200000
                lp = Port(leaves[i], f"Ethernet{lport}/1", "uplink", spd, f"spine-{s}:Eth1/{sport}")
                upl[(i, s, j)] = lp
    for s in range(1, 5):
        for i in range(8):
            for j in range(2):
                sport = 2 * i + j + 1
                lp = upl[(i, s, j)]
                spd = lp.design_speed
                p = Port(spines[s], f"Eth1/{sport}", "spine_leaf", spd, f"leaf-r{i}:{lp.name}")
                p.peer, lp.peer = lp, p
                p.rail = i
        if s >= 3:
            for j in range(4):
                sp_ = Port(spines[s], f"Eth1/{17 + j}", "spine_stor", 100000,
                           f"stor-lf1:Ethernet{25 + 4 * (s - 3) + j}/1")
                st = Port(stor, f"Ethernet{25 + 4 * (s - 3) + j}/1", "stor_up", 100000,
                          f"spine-{s}:Eth1/{17 + j}")
                sp_.peer, st.peer = st, sp_
    for n in range(8):
        Port(stor, f"Ethernet{n + 1}/1", "stor_host", 100000, f"stor0{n // 2 + 1}:ens1f{n % 2}")
    # management ports last
    for i in range(8):
        Port(leaves[i], "Management1", "mgmt", 1000)
    for s in range(1, 5):
        Port(spines[s], "mgmt0", "mgmt", 1000)
    Port(stor, "Management1", "mgmt", 1000)
    return devs, hosts, leaves, spines, stor, upl


# ----------------------------------------------------------------------------- helpers for time
class Clock:
    def __init__(self, t0):
        self.t0 = t0

    def t(self, k):
        return self.t0 + IV * k

    def k_of(self, t):
        return int(math.floor((t - self.t0) / IV))

    def k_ceil(self, t):
        return int(math.ceil((t - self.t0) / IV))

    def m(self, minutes):
        return self.t0 + minutes * 60.0


def add_down(port, t_down, t_up, jitter=0.3, rng=None):
    j1 = rng.uniform(0, jitter) if rng is not None else 0
    j2 = rng.uniform(0, jitter) if rng is not None else 0
    port.trans.append((t_down + j1, 2))
    if t_up is not None:
        port.trans.append((t_up + j2, 1))


def link_down(a, b, t_down, t_up, rng):
    add_down(a, t_down, t_up, rng=rng)
    add_down(b, t_down, t_up, rng=rng)
    for p in (a, b):
        if p.role == "nic":
            p.event("ldown", t_down)


def state_at(port, t):
    st = port.init_state
    last = None
    for (tt, s) in port.trans:
        if tt <= t:
            st, last = s, tt
        else:
            break
    return st, last


def compute_upf(port, clk):
    port.trans.sort()
    if not port.trans:
        port.upf[:] = 1.0 if port.init_state == 1 else 0.0
        return
    # piecewise-constant state; integrate per round
    edges = [clk.t0] + [tt for tt, _ in port.trans] + [clk.t(R)]
    states = [port.init_state] + [s for _, s in port.trans]
    up = np.zeros(R)
    for idx in range(len(states)):
        a, b = edges[idx], edges[idx + 1]
        if b <= a or states[idx] != 1:
            continue
        ka, kb = max(0, clk.k_of(a)), min(R - 1, clk.k_of(b - 1e-9))
        for k in range(ka, kb + 1):
            lo, hi = max(a, clk.t(k)), min(b, clk.t(k + 1))
            if hi > lo:
                up[k] += (hi - lo) / IV
    port.upf = np.clip(up, 0, 1)


# ----------------------------------------------------------------------------- main generator
def generate(outdir, seed):
    rng = np.random.default_rng(1000003 * seed + 17)
    t0 = int(datetime(2025, 6, 16, 22, 0, tzinfo=timezone.utc).timestamp()) + (seed - 1) * 3 * 86400
    clk = Clock(t0)
    T_END = clk.t(R)
    devs, hosts, leaves, spines, stor, upl = build(rng)
    sw_devs = [d for d in devs.values() if d.kind != "host"]
    U = rng.uniform

    # ------------------------------------------------------------------ boot times / history
    for d in devs.values():
        if d.kind == "host":
            d.boot = t0 - U(3, 40) * 86400
        else:
            d.boot = t0 - U(12, 240) * 86400
        for p in d.ports:
            p.init_lc = int(U(60, max(120, t0 - d.boot - 3600)) * 100) if p.init_state == 1 else \
                int(U(30, 90) * 100)

    # ------------------------------------------------------------------ event / fault timing
    def mm(a, b):
        return U(a, b)

    # job B idle windows
    b1 = mm(27, 32); b2 = b1 + mm(8, 12)
    b3 = mm(147, 152); b4 = b3 + mm(19, 24)
    a_crash = mm(47, 51); a_restart = a_crash + mm(10, 14)

    # spine-2 planned reload
    s2_drain = clk.m(mm(92, 110))
    s2_reload = s2_drain + U(120, 240)
    s2_boot = s2_reload + U(20, 30)
    s2_snmp_back = s2_boot + U(200, 250)
    s2_links_up = s2_boot + U(250, 300)
    s2_undrain = s2_links_up + U(180, 330)

    windows = [(82, 127), (132, 177), (185, 236)]
    perm = rng.permutation(3)
    w_storm, w_ecn, w_half = (windows[perm[0]], windows[perm[1]], windows[perm[2]])

    # hosts / leaves for faults
    a_hosts = list(JOB_A)
    rng.shuffle(a_hosts)
    storm_h, ecn_h, half_h, optic_h = a_hosts[:4]
    flap_h = int(rng.choice([h for h in range(1, 21) if h not in (storm_h, ecn_h, half_h, optic_h)]))
    reload_h = int(rng.choice([h for h in JOB_B if h != flap_h]))
    rails = rng.permutation(8)
    storm_r, ecn_r, half_r, optic_r, flap_r = [int(x) for x in rails[:5]]
    left_leaf = int(rng.integers(0, 8))
    left_j = int(rng.integers(0, 2))
    disc_leaf = int(rng.choice([i for i in range(8) if i != left_leaf]))
    disc_s = int(rng.integers(3, 5)); disc_j = int(rng.integers(0, 2))
    fcs_leaf = int(rng.integers(0, 8)); fcs_j = int(rng.integers(0, 2))

    # storm timing
    storm_s = clk.m(w_storm[0] + U(0, 4))
    storm_e = storm_s + U(12, 16) * 60
    hr_down = storm_e + U(5, 20)
    hr_up = hr_down + U(240, 320)
    storm_label_end = hr_up
    hr_agent_back = hr_up + U(30, 60)
    a_restart2 = hr_up + U(150, 300)
    # ecn-disabled timing
    ecn_s = clk.m(w_ecn[0] + U(0, 4))
    ecn_e = min(ecn_s + U(38, 43) * 60, clk.m(w_ecn[1]))
    # half speed
    half_s = clk.m(w_half[0] + U(0, 4))
    half_fix = rng.random() < 0.6
    half_e = min(half_s + U(30, 44) * 60, clk.m(w_half[1])) if half_fix else T_END
    half_bounce = U(20, 40)
    half_fix_bounce = U(25, 50)
    # dirty optic
    optic_s = clk.m(mm(80, 150))
    optic_clean = min(optic_s + U(50, 80) * 60, T_END - 400)
    optic_clean_dur = U(60, 130)
    optic_e = optic_clean + optic_clean_dur
    # flapping
    flap_s = clk.m(mm(85, 200))
    flap_e = min(flap_s + U(15, 30) * 60, T_END - 60)
    # uplink discards
    disc_s_t = clk.m(mm(90, 170))
    disc_e = min(disc_s_t + U(45, 70) * 60, T_END)
    # fcs on spine-1 during gappy polls
    fcs_s = clk.m(mm(135, 165))
    fcs_e = min(fcs_s + U(50, 65) * 60, T_END - 300)
    out_s = fcs_s + U(10, 25) * 60
    out_e = out_s + 300
    # driver reload on an idle job-B host
    kr = clk.k_ceil(clk.m(b3 + 4 + U(0, b4 - b3 - 10)))
    dr_t = clk.t(kr) - U(8, 18)

    # ------------------------------------------------------------------ sampling timing
    walk = {"leaf": 1.3, "stor": 0.8, "spine_v2": 2.6, "spine_v1": 5.3}
    gap_rate = {"leaf": 2.5, "stor": 2.0, "spine_v2": 3.0, "spine_v1": 5.0}
    for d in sw_devs:
        if d.name == "spine-2":
            gr = 4.0
        else:
            gr = gap_rate[d.kind]
        k = 0
        while k < R:
            p_gap = gr / 120.0
            if d.name == "spine-1" and fcs_s <= clk.t(k) <= fcs_e:
                p_gap = 0.07
            if rng.random() < p_gap:
                L = int(rng.choice([1, 2, 3], p=[0.6, 0.3, 0.1]))
                d.polled[k:k + L] = False
                k += L + 1
            else:
                k += 1
        start = np.array([clk.t(k) for k in range(R)]) + U(0.0, 0.25, R)
        w = walk[d.kind] * U(0.8, 1.25, R)
        slow = rng.random(R) < 0.03
        w = w + slow * U(2, 6.5, R)
        d.ts = start + w
        d.ts2 = start + U(0.03, 0.2, R)
    # unreachable windows
    for k in range(R):
        tk = clk.t(k)
        if s2_reload - 5 <= tk + 1 and tk < s2_snmp_back:
            devs["spine-2"].polled[k] = False
        if out_s <= tk < out_e:
            devs["spine-1"].polled[k] = False
    # counters restart on spine-2 at boot
    devs["spine-2"].reset_rounds.append(clk.k_ceil(s2_boot))
    devs["spine-2"].reboot_boot = s2_boot
    # hosts
    for d in hosts.values():
        off = U(-0.3, 0.3)
        d.ts = np.array([clk.t(k) for k in range(R)]) + U(0, 5, R) + off
        d.ts2 = np.array([clk.t(k) for k in range(R)]) + U(0, 5, R) + off
        k = 0
        while k < R:
            if rng.random() < 0.4 / 120:
                d.polled[k] = False
                k += 2
            else:
                k += 1
        d.nic_absent = np.zeros(R, bool)
    hs = hosts[storm_h]
    for k in range(R):
        if hr_down - 2 <= clk.t(k) + 5 and clk.t(k) < hr_agent_back:
            hs.polled[k] = False
    hs.reset_rounds.append(clk.k_ceil(hr_up))
    hs.reboot_boot = hr_up - 60
    hd = hosts[reload_h]
    hd.reset_rounds.append(kr)
    hd.nic_absent[kr] = True
    hd.polled[kr - 1] = True
    hd.ts[kr - 1] = min(hd.ts[kr - 1], dr_t - 2)
    hd.ts2[kr - 1] = min(hd.ts2[kr - 1], dr_t - 2)

    # ------------------------------------------------------------------ link state transitions
    # spine-2 reload
    for p in devs["spine-2"].ports:
        if p.role == "mgmt":
            add_down(p, s2_reload, s2_boot + U(15, 25), rng=rng)
            continue
        left = (p.role == "spine_leaf" and p.peer is upl[(left_leaf, 2, left_j)])
        up_t = s2_links_up + U(0, 6)
        add_down(p, s2_reload, up_t, rng=rng)
        if left:
            add_down(p.peer, s2_reload, None, rng=rng)
            left_up_t = up_t
        else:
            add_down(p.peer, s2_reload, up_t + U(0, 1), rng=rng)
    # pfc storm host power cycle: all 8 links
    for nic in hs.nics:
        link_down(nic, nic.peer, hr_down, hr_up + U(0, 8), rng)
    # driver reload: links down briefly
    for nic in hd.nics:
        link_down(nic, nic.peer, dr_t + 0.5, dr_t + U(35, 60), rng)
    # half speed: bounce(s)
    hn = hosts[half_h].nics[half_r]
    link_down(hn, hn.peer, half_s, half_s + half_bounce, rng)
    if half_fix:
        link_down(hn, hn.peer, half_e - half_fix_bounce, half_e, rng)
    # dirty optic: clean/reseat at the end
    on = hosts[optic_h].nics[optic_r]
    link_down(on, on.peer, optic_clean, optic_e, rng)
    # flapping
    fn = hosts[flap_h].nics[flap_r]
    flaps = []
    t = flap_s + U(0, 20)
    while t < flap_e:
        dur = U(1, 6) if rng.random() < 0.7 else U(8, 40)
        flaps.append((t, dur))
        link_down(fn, fn.peer, t, t + dur, rng)
        t += dur + rng.exponential(40) + 3
    flaps_end = flaps[-1][0] + flaps[-1][1] if flaps else flap_e
    flap_e = max(flap_e, flaps_end + 1)

    all_ports = [p for d in devs.values() for p in d.ports]
    for p in all_ports:
        compute_upf(p, clk)

    # ------------------------------------------------------------------ job schedules
    A = np.array(["train"] * R, dtype=object)
    B = np.array(["train"] * R, dtype=object)

    def rset(arr, m0, m1, val, only=None):
        k0 = max(0, int(round(m0 * 2)))
        k1 = min(R, int(round(m1 * 2)))
        for k in range(k0, k1):
            if only is None or arr[k] in only:
                arr[k] = val

    rset(A, a_crash, a_restart, "idle")
    rset(A, a_restart, a_restart + 2, "startup")
    rset(B, b1, b2, "idle"); rset(B, b2, b2 + 1.5, "startup")
    rset(B, b3, b4, "idle"); rset(B, b4, b4 + 1.5, "startup")
    # forced all-to-all phases in the ecn window
    e0 = (ecn_s - t0) / 60
    a2a = [(e0 + U(5, 10), U(4.5, 6)), (e0 + U(22, 28), U(3.5, 5))]
    m = U(20, 24)
    while m < 240:
        a2a.append((m, U(3, 6)))
        m += U(22, 30)
    for (m0, dur) in a2a:
        if all(A[k] == "train" for k in range(int(m0 * 2), min(R, int((m0 + dur) * 2)))):
            rset(A, m0, m0 + dur, "a2a", only=("train",))
    ckpts = []
    m = U(13, 16)
    while m < 240:
        dur = U(1.5, 2.5)
        ks = range(int(m * 2), min(R, int((m + dur) * 2) + 1))
        if all(A[k] == "train" for k in ks):
            rset(A, m, m + dur, "ckpt", only=("train",))
            ckpts.append((m, dur))
        m += U(20, 24)
    m = U(6, 10)
    while m < 240:
        rset(A, m, m + 0.5, "eval", only=("train",))
        m += U(14, 17)
    m = U(5, 9)
    while m < 240:
        rset(B, m, m + 0.5, "eval", only=("train",))
        m += U(11, 14)
    # storm: stall then restart
    rset(A, (storm_s - t0) / 60 + 0.34, (a_restart2 - t0) / 60, "stall")
    rset(A, (a_restart2 - t0) / 60, (a_restart2 - t0) / 60 + 2, "startup")

    # job utilisation (common lockstep factor) with AR(1) noise
    def ar1(n, rho, sd):
        x = np.zeros(n)
        z = rng.normal(0, sd, n)
        for k in range(1, n):
            x[k] = rho * x[k - 1] + z[k]
        return x

    uA = 0.53 * (1 + ar1(R, 0.7, 0.045))
    uB = 0.66 * (1 + ar1(R, 0.7, 0.04))
    slowA = np.ones(R)
    kh0, kh1 = clk.k_ceil(half_s + half_bounce), clk.k_of(half_e - (half_fix_bounce if half_fix else 0))
    slowA[kh0:kh1 + 1] = 0.76

    # ------------------------------------------------------------------ NIC traffic
    HN, RN = N_HOSTS, 8
    tx = np.zeros((HN + 1, RN, R)); rx = np.zeros((HN + 1, RN, R))
    xr = np.zeros((HN + 1, RN, R)); wr = np.zeros((HN + 1, RN, R)); rd = np.zeros((HN + 1, RN, R))
    ring = np.zeros((HN + 1, RN, R))
    hot = np.ones((HN + 1, RN, R))
    for h in range(1, HN + 1):
        jobA = h in JOB_A
        mode = A if jobA else B
        spd = (400 if jobA else 200) * GB
        u = uA * slowA if jobA else uB
        for i in range(RN):
            n1 = 1 + rng.normal(0, 0.02, R)
            n2 = 1 + rng.normal(0, 0.02, R)
            hotf = lnm(rng, 1.0, 0.35, R)
            for k in range(R):
                md = mode[k]
                if md == "train":
                    r_t = spd * u[k] * n1[k]; r_r = spd * u[k] * n2[k]
                elif md == "eval":
                    r_t = r_r = spd * 0.12 * n1[k]
                elif md == "a2a":
                    r_t = spd * 0.6 * n1[k]
                    r_r = min(spd * 0.6 * hotf[k], spd * 0.96)
                    hot[h, i, k] = hotf[k]
                elif md == "ckpt":
                    r_t = r_r = spd * 0.015
                elif md == "startup":
                    r_t = r_r = spd * 0.03
                elif md == "stall":
                    r_t = r_r = spd * 0.0008
                else:
                    r_t = r_r = 0.0
                ring[h, i, k] = r_t
                tx[h, i, k] = r_t
                rx[h, i, k] = r_r
                active = md in ("train", "eval", "a2a")
                if active or md in ("ckpt", "startup"):
                    x = (0.0007 * r_t + 0.02 * GB) * (1.3 if md == "a2a" else 1.0)
                    xr[h, i, k] = x
                if active:
                    rd[h, i, k] = GB * U(0.8, 1.2)
                if md == "startup":
                    rd[h, i, k] = GB * U(6, 10)
                if md == "ckpt" and jobA:
                    wr[h, i, k] = 480 * GB / (len(JOB_A) * 8) * U(0.85, 1.15)
    # storage capacity (8 x 100G, ~600 Gb/s usable)
    tot_rd = rd.sum(axis=(0, 1)); tot_wr = wr.sum(axis=(0, 1))
    sc = np.minimum(1.0, 600 * GB / np.maximum(tot_rd, 1)); rd *= sc[None, None, :]
    sc = np.minimum(1.0, 600 * GB / np.maximum(tot_wr, 1)); wr *= sc[None, None, :]
    BG = 1.0e6
    nic_tx = tx + xr + wr + BG
    nic_rx = rx + xr + rd + BG
    # storm host: its job stalls -> the other 7 NICs go quiet; the wedged NIC receives nothing (paused)
    ks0, ks1 = clk.k_of(storm_s), clk.k_of(storm_e)
    nic_tx[storm_h, :, ks0 + 1:ks1 + 1] = BG * 0.2
    nic_rx[storm_h, :, ks0 + 1:ks1 + 1] = BG * 0.2
    nic_tx[storm_h, storm_r, ks0:ks1 + 1] = 2.2e4 * 64  # nothing but PAUSE frames leave the NIC
    nic_rx[storm_h, storm_r, ks0:ks1 + 1] = 0.0
    # flapping: traffic reduced while flapping (NCCL retransmits/timeouts)
    kf0, kf1 = clk.k_of(flap_s), clk.k_of(flap_e)
    nic_tx[flap_h, flap_r, kf0:kf1 + 1] *= 0.6
    nic_rx[flap_h, flap_r, kf0:kf1 + 1] *= 0.6

    def pkts(bytes_, busy_size=4080.0, small=300.0, bg=BG):
        b = np.maximum(bytes_ - bg, 0)
        return b / busy_size + np.minimum(bytes_, bg) / small

    # host links
    for h in range(1, HN + 1):
        for i in range(RN):
            nic = hosts[h].nics[i]
            lp = nic.peer
            f = np.minimum(nic.upf, lp.upf)
            t_b = nic_tx[h, i] * f
            r_b = nic_rx[h, i] * f
            if h == half_h and i == half_r:
                cap = 0.96 * 200 * GB
                for k in range(R):
                    if kh0 <= k <= kh1:
                        t_b[k] = min(t_b[k], cap); r_b[k] = min(r_b[k], cap)
            size_t = 4080 * U(0.97, 1.0); size_r = 4080 * U(0.97, 1.0)
            tp = pkts(t_b, size_t); rp = pkts(r_b, size_r)
            nic.arr("tx_oct")[:] = t_b; nic.arr("rx_oct")[:] = r_b
            nic.arr("tx_pkt")[:] = tp; nic.arr("rx_pkt")[:] = rp
            lp.arr("in_oct")[:] = t_b; lp.arr("out_oct")[:] = r_b
            lp.arr("in_pkt")[:] = tp; lp.arr("out_pkt")[:] = rp

    # uplinks: cross-rail over all 8 uplinks by ECMP weight, storage over spine-3/4 uplinks
    drained = np.zeros(R, bool)
    for k in range(R):
        if s2_drain <= clk.t(k) + IV and clk.t(k) < s2_undrain:
            drained[k] = True
    ecmp_w = {key: U(0.85, 1.15) for key in upl}
    spine_stor_ports = {s: [p for p in spines[s].ports if p.role == "spine_stor"] for s in (3, 4)}
    stor_w = {p: U(0.85, 1.15) for s in (3, 4) for p in spine_stor_ports[s]}
    via_stor_out = {3: np.zeros(R), 4: np.zeros(R)}
    via_stor_in = {3: np.zeros(R), 4: np.zeros(R)}
    for i in range(8):
        x_out = xr[:, i, :].sum(axis=0) * np.array([1.0])  # leaf -> spines
        x_in = x_out * U(0.9, 1.1)
        s_out = wr[:, i, :].sum(axis=0)
        s_in = rd[:, i, :].sum(axis=0)
        avail = {}
        for key in [(i, s, j) for s in range(1, 5) for j in range(2)]:
            lp = upl[key]
            a = np.minimum(lp.upf, lp.peer.upf)
            if key[1] == 2:
                a = a * (~drained)
            avail[key] = a
        wx = {key: ecmp_w[key] * avail[key] for key in avail}
        wsum = sum(wx.values())
        ws = {key: wx[key] for key in wx if key[1] >= 3}
        wssum = sum(ws.values())
        for key in avail:
            lp = upl[key]
            share = np.where(wsum > 0, wx[key] / np.maximum(wsum, 1e-9), 0)
            o = x_out * share + BG * 0.05 * avail[key]
            n = x_in * share + BG * 0.05 * avail[key]
            if key[1] >= 3:
                ss = np.where(wssum > 0, ws[key] / np.maximum(wssum, 1e-9), 0)
                o = o + s_out * ss
                n = n + s_in * ss
                via_stor_out[key[1]] += s_out * ss
                via_stor_in[key[1]] += s_in * ss
            if key[1] <= 2:
                # legacy 100G spines: policy keeps them to the cross-rail residue; never above
                # 0.8 Gb/s so that a Counter32 octet delta stays < 2^32 even over a 40 s poll
                o = np.minimum(o, 0.8 * GB)
                n = np.minimum(n, 0.8 * GB)
            op = pkts(o, 3300.0, 250.0, BG * 0.05)
            np_ = pkts(n, 3300.0, 250.0, BG * 0.05)
            lp.arr("out_oct")[:] = o; lp.arr("in_oct")[:] = n
            lp.arr("out_pkt")[:] = op; lp.arr("in_pkt")[:] = np_
            sp = lp.peer
            sp.arr("in_oct")[:] = o; sp.arr("out_oct")[:] = n
            sp.arr("in_pkt")[:] = op; sp.arr("out_pkt")[:] = np_
    # spine-3/4 <-> stor-lf1 and storage ports
    st_hosts = [p for p in stor.ports if p.role == "stor_host"]
    sh_w = {p: U(0.88, 1.12) for p in st_hosts}
    for s in (3, 4):
        ports_ = spine_stor_ports[s]
        wsum = sum(stor_w[p] for p in ports_)
        for p in ports_:
            o = via_stor_out[s] * stor_w[p] / wsum + BG * 0.05   # spine -> stor-lf1 (writes)
            n = via_stor_in[s] * stor_w[p] / wsum + BG * 0.05    # stor-lf1 -> spine (reads)
            op, np_ = pkts(o, 4080.0, 250, BG * 0.05), pkts(n, 4080.0, 250, BG * 0.05)
            p.arr("out_oct")[:] = o; p.arr("in_oct")[:] = n
            p.arr("out_pkt")[:] = op; p.arr("in_pkt")[:] = np_
            q = p.peer
            q.arr("in_oct")[:] = o; q.arr("out_oct")[:] = n
            q.arr("in_pkt")[:] = op; q.arr("out_pkt")[:] = np_
    tw = via_stor_out[3] + via_stor_out[4]
    trd = via_stor_in[3] + via_stor_in[4]
    swsum = sum(sh_w.values())
    for p in st_hosts:
        o = tw * sh_w[p] / swsum + BG * 0.2
        n = trd * sh_w[p] / swsum + BG * 0.2
        p.arr("out_oct")[:] = o; p.arr("in_oct")[:] = n
        p.arr("out_pkt")[:] = pkts(o, 4080.0, 300, BG * 0.2)
        p.arr("in_pkt")[:] = pkts(n, 4080.0, 300, BG * 0.2)
    # management ports
    for p in all_ports:
        if p.role == "mgmt":
            p.arr("in_oct")[:] = lnm(rng, 9000, 0.3, R) * p.upf
            p.arr("out_oct")[:] = lnm(rng, 14000, 0.3, R) * p.upf
            p.arr("in_pkt")[:] = p.a["in_oct"] / 180
            p.arr("out_pkt")[:] = p.a["out_oct"] / 260
    # multicast (LLDP / ND) on every up fabric port
    for p in all_ports:
        if p.role in ("nic", "spare"):
            continue
        p.arr("in_mc")[:] = 0.04 * p.upf
        p.arr("out_mc")[:] = 0.035 * p.upf

    # ------------------------------------------------------------------ PFC / ECN baseline
    modeA_k = A
    for h in range(1, HN + 1):
        jobA = h in JOB_A
        mode = A if jobA else B
        for i in range(RN):
            nic = hosts[h].nics[i]
            lp = nic.peer
            ecn = np.zeros(R); req = np.zeros(R); ind = np.zeros(R); cnph = np.zeros(R)
            for k in range(R):
                md = mode[k]
                if jobA:
                    if md == "train":
                        ecn[k] = lnm(rng, 350, 0.6) * uA[k] / 0.53
                        req[k] = lnm(rng, 1.5, 1.0)
                        ind[k] = lnm(rng, 0.2, 1.0)
                    elif md == "a2a":
                        ecn[k] = min(2.5e4 * hot[h, i, k] ** 2, 1.2e5)
                        req[k] = lnm(rng, 900, 0.8) if rng.random() < 0.55 else lnm(rng, 20, 1.0)
                        ind[k] = lnm(rng, 30, 0.8) if rng.random() < 0.2 else lnm(rng, 0.5, 1.0)
                    elif md == "ckpt":
                        ecn[k] = lnm(rng, 40, 0.6)
                        req[k] = lnm(rng, 250, 0.7)
                        cnph[k] = U(800, 3000)
                    elif md == "startup":
                        ecn[k] = lnm(rng, 600, 0.8)
                        req[k] = lnm(rng, 5, 1.0)
                    elif md == "eval":
                        ecn[k] = lnm(rng, 30, 0.6)
                else:
                    if md == "train":
                        ecn[k] = lnm(rng, 120, 0.6)
                        req[k] = lnm(rng, 3, 1.0)
                        ind[k] = lnm(rng, 25, 0.8)
                        nic.arr("oob")[k] = lnm(rng, 0.4, 1.0)
                    elif md == "startup":
                        ecn[k] = lnm(rng, 200, 0.8)
                        ind[k] = lnm(rng, 8, 0.8)
                    elif md == "eval":
                        ind[k] = lnm(rng, 3, 0.8)
            f = np.minimum(nic.upf, lp.upf)
            nic.arr("ecn")[:] = ecn * f
            nic.arr("cnp_sent")[:] = ecn * U(0.3, 0.45, R) * f
            nic.arr("cnp_h_extra")[:] = cnph * f
            lp.arr("pfc_req")[:] = req * f
            lp.arr("pfc_ind")[:] = ind * f
            # corrected FEC bits flow whenever the link is up
            cb = lnm(rng, 2500 if jobA else 900, 1.0)
            nic.arr("corr_bits")[:] = cb * U(0.9, 1.1, R) * nic.upf
            nic.arr("oos")[:] = 0.01 * (ecn > 0)
            nic.arr("rx_wr")[:] = nic_rx[h, i] * f / 262144.0
            nic.arr("rx_rd")[:] = xr[h, i] * f / 65536.0 * 0.1
    # rp_cnp_handled: senders see the CNPs of the receivers on their rail (ring neighbours)
    for grp in (JOB_A, JOB_B):
        for i in range(RN):
            cs = np.mean([hosts[h].nics[i].a["cnp_sent"] for h in grp], axis=0)
            for h in grp:
                nic = hosts[h].nics[i]
                nic.arr("cnp_handled")[:] = cs * lnm(rng, 1.0, 0.2, R) * nic.upf + nic.a["cnp_h_extra"]
    # uplink / spine / storage PFC baseline
    ck = np.array([A[k] == "ckpt" for k in range(R)])
    su = np.array([A[k] == "startup" or B[k] == "startup" for k in range(R)])
    aa = np.array([A[k] == "a2a" for k in range(R)])
    for key, lp in upl.items():
        s = key[1]
        f = np.minimum(lp.upf, lp.peer.upf) * (~drained if s == 2 else 1)
        req = lnm(rng, 0.5, 1.0, R) + aa * lnm(rng, 50, 1.0, R)
        ind = lnm(rng, 0.3, 1.0, R)
        if s >= 3:
            req = req + su * lnm(rng, 1500, 0.5, R)
            ind = ind + ck * lnm(rng, 700, 0.6, R)
        lp.arr("pfc_req")[:] = req * f
        lp.arr("pfc_ind")[:] = ind * f
        lp.peer.arr("pfc_req")[:] = ind * f       # spine sends what the leaf receives
        lp.peer.arr("pfc_ind")[:] = req * f
    for s in (3, 4):
        for p in spine_stor_ports[s]:
            st = p.peer
            st_req = (lnm(rng, 0.3, 1.0, R) + ck * lnm(rng, 3000, 0.5, R))   # stor-lf1 pauses spine
            sp_req = (lnm(rng, 0.3, 1.0, R) + su * lnm(rng, 800, 0.6, R))    # spine pauses stor-lf1
            st.arr("pfc_req")[:] = st_req; p.arr("pfc_ind")[:] = st_req
            p.arr("pfc_req")[:] = sp_req; st.arr("pfc_ind")[:] = sp_req
    for p in st_hosts:
        p.arr("pfc_ind")[:] = ck * lnm(rng, 400, 0.7, R) + lnm(rng, 0.2, 1, R)
        p.arr("pfc_req")[:] = su * lnm(rng, 200, 0.6, R) + lnm(rng, 0.1, 1, R)
    # ingress control drops on some Arista host ports; unknown protos trickle
    for i in range(8):
        for p in leaves[i].ports:
            if p.role == "host" and rng.random() < 0.3:
                p.arr("in_disc")[:] = lnm(rng, 0.01, 0.8) * p.upf * (rng.random(R) < 0.5)
    # sporadic FCS on long optical runs (receiving end)
    trickle_links = []
    cand = [k for k in upl if not (k[0] == left_leaf and k[1] == 2 and k[2] == left_j)
            and not (k[0] == disc_leaf and k[1] == disc_s and k[2] == disc_j)
            and not (k[0] == fcs_leaf and k[1] == 1 and k[2] == fcs_j)]
    for idx in rng.choice(len(cand), 4, replace=False):
        key = cand[idx]
        lp = upl[key]
        end = lp if rng.random() < 0.5 else lp.peer
        rate = lnm(rng, 0.06, 0.6)
        f = np.minimum(lp.upf, lp.peer.upf)
        end.arr("fcs")[:] = rate * f
        trickle_links.append((end, rate))

    # ------------------------------------------------------------------ faults
    faults = []
    related_all = lambda dev: {"device": dev, "ports": ["*"]}

    def nic_ends(nic):
        return [{"device": nic.dev.name, "port": nic.name}, {"device": nic.dev.name, "port": nic.ibdev}]

    def kr_(t0_, t1_):
        return range(max(0, clk.k_of(t0_)), min(R, clk.k_of(t1_) + 1))

    # F1 dirty optic: leaf port receiving from a job-A NIC
    lp = on.peer
    atten = np.zeros(R)
    amax = U(3.0, 4.8)
    for k in kr_(optic_s, optic_clean):
        dt = (clk.t(k) - optic_s) / 60.0
        atten[k] = amax * min(1.0, dt / 8.0) + 0.012 * max(0, dt - 8)
    lp.atten = atten
    ber = np.where(atten > 0, 1.5e-9 * 10 ** (atten * 0.85), 0)
    lp.arr("fcs")[:] += lp.a["in_pkt"] * ber
    lp.arr("in_err_x")[:] += lp.a["in_pkt"] * ber * 0.15
    on.arr("pseq")[:] += lp.a["in_pkt"] * ber * 0.6
    on.arr("adp_retrans")[:] += lp.a["in_pkt"] * ber * 0.08
    faults.append({
        "kind": "dirty_optic", "device": lp.dev.name, "ports": [lp.name],
        "start_ns": int(optic_s * 1e9), "end_ns": int(optic_e * 1e9),
        "peer_ends": nic_ends(on), "related": [],
        "signature": f"DOM Rx power on all 4 lanes of {lp.name} drops {amax:.1f} dB within ~8 min and keeps "
                     "sagging; dot3StatsFCSErrors/ifInErrors on the leaf port climb with the traffic it receives "
                     "(1e-8 .. 1e-5 of frames); the sending NIC counts packet_seq_err (NAKs) and roce_adp_retrans; "
                     "ends with a clean/reseat (link down ~1-2 min, power back to baseline)"})

    # F2 flapping link
    lpf = fn.peer
    for (tf, dur) in flaps:
        fn.event("ler", tf)
        fn.event("crc", tf + dur, int(rng.integers(0, 40)))
        fn.event("sym", tf + dur, int(rng.integers(5, 250)))
        fn.event("lat", tf + dur, int(rng.integers(0, 25)))
        fn.event("oos_ev", tf + dur, int(rng.integers(10, 600)))
        lpf.event("fcs_ev", tf + dur, int(rng.integers(0, 30)))
        lpf.event("inerr_ev", tf + dur, int(rng.integers(0, 8)))
    faults.append({
        "kind": "flapping_link", "device": lpf.dev.name, "ports": [lpf.name],
        "start_ns": int(flaps[0][0] * 1e9), "end_ns": int(flap_e * 1e9),
        "peer_ends": nic_ends(fn), "related": [],
        "signature": f"{len(flaps)} link bounces in {(flap_e - flaps[0][0]) / 60:.0f} min (1-6 s, some 8-40 s): "
                     "ifLastChange moves on the leaf port between polls, ifOperStatus/ethtool link show down only "
                     "when a poll lands in a bounce, link_down_events_phy and link_downed count each one, CRC and "
                     "symbol errors at each link-up, out_of_sequence/local_ack_timeout_err bursts, traffic -40 %"})

    # F3 pfc storm
    sn = hs.nics[storm_r]
    slp = sn.peer
    ksr = kr_(storm_s, storm_e)
    kk = np.array(list(ksr))
    rate = 2.2e4 * U(0.9, 1.1, len(kk))
    sn.arr("storm_tx_pause")[kk] = rate
    sn.arr("pdur_tx_storm")[kk] = 0.985e6
    sn.arr("storm_warn")[kk] = U(1.5, 2.5, len(kk))
    slp.arr("pfc_ind")[kk] = rate
    slp.arr("out_oct")[kk] = 0.0; slp.arr("out_pkt")[kk] = 0.0
    sn.arr("rx_oct")[kk] = 0.0; sn.arr("rx_pkt")[kk] = 0.0
    sn.arr("lat")[kk] += U(20, 80, len(kk))
    spread_hosts = [h for h in JOB_A if h != storm_h]
    rng.shuffle(spread_hosts)
    spread_hosts = spread_hosts[:int(rng.integers(4, 9))]
    for h in spread_hosts:
        p = leaves[storm_r].ports[h - 1]
        v = lnm(rng, 8000, 0.5, len(kk))
        p.arr("pfc_req")[kk] += v
    for h in JOB_B:
        p = leaves[storm_r].ports[h - 1]
        v = lnm(rng, 300, 0.7, len(kk))
        p.arr("pfc_req")[kk] += v
    for key, up_ in upl.items():
        if key[0] != storm_r:
            continue
        v = lnm(rng, 4000 if key[1] >= 3 else 2000, 0.5, len(kk)) * np.minimum(up_.upf[kk], up_.peer.upf[kk])
        up_.arr("pfc_req")[kk] += v
        up_.peer.arr("pfc_ind")[kk] += v
    for s in (3, 4):
        for p in spine_stor_ports[s]:
            v = lnm(rng, 1500, 0.6, len(kk))
            p.arr("pfc_req")[kk] += v
            p.peer.arr("pfc_ind")[kk] += v
    rel = [related_all(leaves[storm_r].name), {"device": hs.name, "ports": ["*"]}]
    for s in (1, 2, 3, 4):
        rel.append({"device": f"spine-{s}", "ports": [upl[(storm_r, s, j)].peer.name for j in range(2)]})
    rel.append({"device": "stor-lf1", "ports": [p.peer.name for s in (3, 4) for p in spine_stor_ports[s]]})
    for h in JOB_A:
        if h != storm_h:
            rel.append({"device": f"gpu{h:02d}", "ports": ["*"]})
    for h in JOB_B:
        nic = hosts[h].nics[storm_r]
        rel.append({"device": nic.dev.name, "ports": [nic.name, nic.ibdev]})
    for i in range(8):
        if i != storm_r:
            rel.append({"device": leaves[i].name, "ports": [f"Ethernet{h}/1" for h in JOB_A]})
    faults.append({
        "kind": "pfc_storm", "device": hs.name, "ports": [sn.name, sn.ibdev],
        "start_ns": int(storm_s * 1e9), "end_ns": int(storm_label_end * 1e9),
        "peer_ends": [{"device": slp.dev.name, "port": slp.name}], "related": rel,
        "signature": "wedged NIC receive path: it sends prio-3 PAUSE nonstop (tx_prio3_pause ~2e4/s, "
                     "tx_prio3_pause_duration ~1e6 us/s, tx_pause_storm_warning_events) and receives nothing; the "
                     f"leaf port {slp.dev.name}:{slp.name} counts aristaPfcPriorityIndications ~2e4/s and transmits "
                     "nothing; the leaf pauses other host ports and its uplinks (aristaPfcPriorityRequests 1e3-1e4/s), "
                     "spine-3/4 pause the storage leaf, job A stalls fabric-wide; ends with the server power-cycled "
                     "(its 8 links down ~5 min, its counters restart)"})

    # F4 ecn disabled on one leaf host port
    en = hosts[ecn_h].nics[ecn_r]
    elp = en.peer
    ke = np.array(list(kr_(ecn_s, ecn_e)))
    would = en.a["ecn"][ke].copy()
    en.arr("ecn")[ke] = 0.0
    en.arr("cnp_sent")[ke] = 0.0
    drops = would * U(0.02, 0.05, len(ke))
    elp.arr("q3drop")[ke] += drops
    elp.arr("out_disc")[ke] += drops
    en.arr("oos")[ke] += drops * 0.9
    en.arr("rx_oct")[ke] *= 0.96; elp.arr("out_oct")[ke] *= 0.96
    for h in JOB_A:
        if h == ecn_h:
            continue
        p = leaves[ecn_r].ports[h - 1]
        extra = p.a.get("pfc_req", np.zeros(R))[ke] * U(1.0, 2.0) + (would > 2000) * lnm(rng, 400, 0.6, len(ke))
        p.arr("pfc_req")[ke] += extra
    rel = [related_all(leaves[ecn_r].name)]
    for h in JOB_A:
        if h != ecn_h:
            nic = hosts[h].nics[ecn_r]
            rel.append({"device": nic.dev.name, "ports": [nic.name, nic.ibdev]})
    faults.append({
        "kind": "ecn_disabled_port", "device": elp.dev.name, "ports": [elp.name],
        "start_ns": int(ecn_s * 1e9), "end_ns": int(ecn_e * 1e9),
        "peer_ends": nic_ends(en), "related": rel,
        "signature": "queue 3 on this leaf port lost its ECN/WRED profile: the NIC behind it counts no "
                     "np_ecn_marked_roce_packets and sends no np_cnp_sent while its rail siblings mark 1e2-1e5/s in the "
                     "same phases; under all-to-all incast the port drops instead (aristaEgressQueuePktsDropped, "
                     "ifOutDiscards; out_of_sequence at the NIC) and the leaf pauses its other host ports more"})

    # F5 half speed link (autoneg 200G)
    hlp = hn.peer
    for p in (hn, hlp):
        for k in range(R):
            tk = clk.t(k)
            if tk + 2 >= half_s + half_bounce and (not half_fix or tk + 2 < half_e):
                p.speed[k] = 200000
    kh = np.array([k for k in range(kh0, min(R, kh1 + 1))])
    busy = np.array([A[k] in ("train", "a2a") for k in kh])
    hn.arr("ecn")[kh] += busy * lnm(rng, 2.2e4, 0.4, len(kh))
    hn.arr("cnp_sent")[kh] += busy * lnm(rng, 8e3, 0.4, len(kh))
    up_hosts = [h for h in JOB_A if h != half_h]
    rng.shuffle(up_hosts)
    for h in up_hosts[:3]:
        p = leaves[half_r].ports[h - 1]
        v = busy * lnm(rng, 600, 0.5, len(kh))
        p.arr("pfc_req")[kh] += v
    rel = [related_all(leaves[half_r].name)]
    for h in JOB_A:
        if h != half_h:
            rel.append({"device": f"gpu{h:02d}", "ports": ["*"]})
    for i in range(8):
        if i != half_r:
            rel.append({"device": leaves[i].name, "ports": [f"Ethernet{h}/1" for h in JOB_A]})
    rel.append({"device": hosts[half_h].name, "ports": ["*"]})
    faults.append({
        "kind": "half_speed_link", "device": hlp.dev.name, "ports": [hlp.name],
        "start_ns": int(half_s * 1e9), "end_ns": int(half_e * 1e9),
        "peer_ends": nic_ends(hn), "related": rel,
        "signature": "a bounce, then ifHighSpeed 200000 on the leaf port and ethtool speed 200000 on a ConnectX-7 "
                     "whose siblings all run 400000; the link runs near its 200G ceiling while job A slows ~25 % "
                     "everywhere (lockstep), ECN marks pile up at that NIC (~2e4/s) and the leaf pauses the ports "
                     "feeding it" + ("; repaired by a reseat (second bounce, back at 400G)" if half_fix
                                     else "; not repaired before the end of the capture")})

    # F6 link left down after the spine-2 reload
    llp = upl[(left_leaf, 2, left_j)]
    faults.append({
        "kind": "link_left_down", "device": llp.dev.name, "ports": [llp.name],
        "start_ns": int(left_up_t * 1e9), "end_ns": int(T_END * 1e9),
        "peer_ends": [{"device": llp.peer.dev.name, "port": llp.peer.name}], "related": [],
        "signature": "after the planned spine-2 reload every spine-2 link comes back except this one: ifAdminStatus 1, "
                     "ifOperStatus 2, ifLastChange frozen at the reload, DOM Rx power -40 dBm on all lanes (receive "
                     "fibre left unplugged at the patch panel); the spine-2 end reports ifOperStatus up with no "
                     "traffic; the leaf's other 7 uplinks carry its share"})

    # F7 rising discards on a spine-3/4 uplink (ingress)
    dlp = upl[(disc_leaf, disc_s, disc_j)]
    kd = np.array(list(kr_(disc_s_t, disc_e)))
    frac = (np.array([clk.t(k) for k in kd]) - disc_s_t) / max(1.0, disc_e - disc_s_t)
    p_d = 3e-5 * np.exp(np.log(35) * np.clip(frac, 0, 1))
    dlp.arr("in_disc")[kd] += dlp.a["in_pkt"][kd] * p_d
    faults.append({
        "kind": "uplink_discards", "device": dlp.dev.name, "ports": [dlp.name],
        "start_ns": int(disc_s_t * 1e9), "end_ns": int(disc_e * 1e9),
        "peer_ends": [{"device": dlp.peer.dev.name, "port": dlp.peer.name}], "related": [],
        "signature": "ifInDiscards on one leaf uplink to a 200G spine rise from ~3e-5 to ~1e-3 of the packets it "
                     "receives (storage reads + cross-rail, ordinary load) while the 3 sibling uplinks to spine-3/4 "
                     "on the same leaf discard nothing; no errors, link stays up"})

    # F8 FCS errors on spine-1 (Counter32, v1) while its polls are gappy
    flp = upl[(fcs_leaf, 1, fcs_j)]
    fsp = flp.peer
    kf = np.array(list(kr_(fcs_s, fcs_e)))
    frac = (np.array([clk.t(k) for k in kf]) - fcs_s) / max(1.0, fcs_e - fcs_s)
    p_f = 2e-4 * np.exp(np.log(25) * np.clip(frac, 0, 1))
    errs = fsp.a["in_pkt"][kf] * p_f
    fsp.arr("fcs")[kf] += errs
    fsp.arr("in_err_x")[kf] += errs * 0.05
    faults.append({
        "kind": "fcs_errors_during_poll_gaps", "device": fsp.dev.name, "ports": [fsp.name],
        "start_ns": int(fcs_s * 1e9), "end_ns": int(fcs_e * 1e9),
        "peer_ends": [{"device": flp.dev.name, "port": flp.name}], "related": [],
        "signature": "spine-1 (SNMPv1, Counter32 only) counts rising dot3StatsFCSErrors/ifInErrors on a leaf-facing "
                     "port (2e-4 -> 5e-3 of received frames, a few to tens per second at ~0.3 Gb/s) while its polls "
                     "go missing ~7 % of the time and the agent is unreachable for 5 minutes in the middle; the leaf "
                     "end and its DOM are clean"})

    # ------------------------------------------------------------------ healthy phenomena
    def ns(t):
        return int(t * 1e9)

    healthy = []

    def hp(kind, where, a, b, note, background=False):
        d = {"kind": kind, "where": where, "start_ns": ns(a), "end_ns": ns(b), "note": note}
        if background:
            d["background"] = True
        healthy.append(d)

    def runs(mode_arr, val):
        out, k = [], 0
        while k < R:
            if mode_arr[k] == val:
                k2 = k
                while k2 < R and mode_arr[k2] == val:
                    k2 += 1
                out.append((clk.t(k), clk.t(k2)))
                k = k2
            else:
                k += 1
        return out

    whereA = [f"gpu{h:02d}:*" for h in JOB_A] + [f"leaf-r{i}:*" for i in range(8)]
    whereB = [f"gpu{h:02d}:*" for h in JOB_B] + [f"leaf-r{i}:*" for i in range(8)]
    for a_, b_ in runs(A, "a2a"):
        hp("alltoall_phase", whereA, a_, b_, "job A MoE all-to-all: hot receivers, ECN 1e4-1e5/s and PFC on many ports")
    for a_, b_ in runs(A, "ckpt"):
        hp("checkpoint_burst", whereA + ["spine-3:*", "spine-4:*", "stor-lf1:*"], a_, b_,
           "job A synchronous checkpoint: ring quiet, ~480 Gb/s of writes to storage, PFC on uplinks/storage leaf")
    for a_, b_ in runs(A, "idle"):
        hp("job_idle", whereA, a_, b_, "job A crashed (NCCL timeout) and waits for the scheduler: background only")
    for a_, b_ in runs(A, "startup"):
        hp("job_start", whereA + ["spine-3:*", "spine-4:*", "stor-lf1:*"], a_, b_ + 60,
           "job A (re)starts: checkpoint read burst from storage, PFC on leaf uplinks, then ramp")
    for a_, b_ in runs(B, "idle"):
        hp("job_idle", whereB, a_, b_, "job B stopped between fine-tuning runs")
    for a_, b_ in runs(B, "startup"):
        hp("job_start", whereB, a_, b_ + 60, "job B starts")
    for a_, b_ in runs(A, "eval"):
        hp("eval_step", whereA, a_, b_, "job A eval step: one-poll traffic dip")
    hp("counter_wrap_32bit", ["spine-1:*", "spine-2:*"], t0, T_END,
       "SNMPv1-polled SN2700s: Counter32 ifInOctets/ifOutOctets wrap every 1-8 polls (0.1-0.6 Gb/s per port), "
       "ifIn/OutUcastPkts every few days; reload makes them restart at 0", background=True)
    hp("missed_polls", ["*"], t0, T_END, "whole-device SNMP timeouts 2-5/h per switch (1-3 polls), rare host drops",
       background=True)
    hp("poll_jitter", ["*"], t0, T_END, "timestamps 0-7 s (up to ~12 s) after the round, rounded to 1 s",
       background=True)
    hp("duplicate_or_late_lines", ["*"], t0, T_END,
       "relay file: ~0.3 % duplicated batches, ~0.6 % batches written 0.5-3 min late", background=True)
    hp("designed_200g_hosts", [f"gpu{h:02d}:*" for h in JOB_B] +
       [f"leaf-r{i}:Ethernet{h}/1" for i in range(8) for h in JOB_B], t0, T_END,
       "ConnectX-6 servers run 200G by design (ifHighSpeed 200000 / speed 200000)", background=True)
    hp("slow_receiver_pfc", [f"gpu{h:02d}:*" for h in JOB_B], t0, T_END,
       "CX-6 servers pause their leaf ports (tx_prio3_pause tens/s) while job B trains", background=True)
    hp("never_cabled_ports", [f"leaf-r{i}:Ethernet21/1" for i in range(8)], t0, T_END,
       "spare cage per leaf: notPresent (even leaves) or optic without fibre, admin up / oper down (odd)",
       background=True)
    hp("ingress_control_drops", [p.key() for i in range(8) for p in leaves[i].ports if "in_disc" in p.a
                                 and p.role == "host"], t0, T_END,
       "Arista host ports counting a trickle of ifInDiscards", background=True)
    hp("sporadic_fcs", [e.key() for e, _ in trickle_links], t0, T_END,
       "long leaf-spine optical runs with a steady 0.01-0.2/s FCS trickle", background=True)
    hp("ecmp_imbalance", [up_.key() for up_ in upl.values()] + ["spine-1:*", "spine-2:*", "spine-3:*", "spine-4:*"],
       t0, T_END,
       "static hash imbalance +-15 % between sibling uplinks", background=True)
    s2_where = ["spine-2:*"] + [f"leaf-r{i}:{upl[(i, 2, j)].name}" for i in range(8) for j in range(2)]
    hp("planned_switch_reboot", s2_where + ["spine-1:*", "spine-3:*", "spine-4:*"] +
       [f"leaf-r{i}:{upl[(i, s, j)].name}" for i in range(8) for s in (1, 3, 4) for j in range(2)],
       s2_drain, s2_undrain + 120,
       "spine-2 maintenance: BGP drain, reload (SNMP silent ~5 min, links down, neighbours see down), counters and "
       "sysUpTime restart from 0, undrain; cross-rail load shifts to the other spines")
    hp("device_unreachable", ["spine-1:*"], out_s, out_e, "spine-1 SNMP agent unreachable for 5 minutes")
    hp("nic_driver_reload", [f"gpu{reload_h:02d}:*"] + [f"leaf-r{i}:Ethernet{reload_h}/1" for i in range(8)],
       dr_t, dr_t + 120, "mlx5_core reload on an idle job-B server: netdevs gone one poll, links down <1 min, "
                         "every ethtool/infiniband counter restarts at 0")
    hp("host_power_cycle", [f"gpu{storm_h:02d}:*"] + [f"leaf-r{i}:Ethernet{storm_h}/1" for i in range(8)],
       hr_down, hr_agent_back + 60, "the storming server is power-cycled (end of the pfc_storm fault)")

    # ------------------------------------------------------------------ write lines
    lines = []   # (arrival, seq, text)
    seq = [0]

    def emit(arrival, text):
        lines.append((arrival, seq[0], text))
        seq[0] += 1

    tk_arr = np.array([clk.t(k) for k in range(R)], dtype=float)

    def series(p, d, inc_rate, ts, base, bits=64, extra_events=None):
        """counter values at the sample instants ts (array R)."""
        inc = inc_rate * IV
        cs = np.concatenate([[0], np.floor(np.cumsum(inc)).astype(np.int64)])
        frac = np.clip((ts - tk_arr) / IV, 0, 1)
        part = np.floor(inc * frac).astype(np.int64)
        vals = cs[:R] + part
        resets = sorted(d.reset_rounds)
        vals = vals.astype(np.int64)
        if resets:
            r0 = resets[0]
            out = vals.copy()
            out[:r0] += base
            for idx, r in enumerate(resets):
                r_end = resets[idx + 1] if idx + 1 < len(resets) else R
                out[r:r_end] = vals[r:r_end] - cs[r]
            vals = out
        else:
            vals = vals + base
        if extra_events:
            evs = sorted(extra_events)
            et = np.array([e[0] for e in evs]); ew = np.cumsum([e[1] for e in evs])
            idx = np.searchsorted(et, ts, side="right")
            add = np.where(idx > 0, ew[np.maximum(idx - 1, 0)], 0)
            if resets:
                for r in resets:
                    t_r = tk_arr[r] if r < R else T_END
                    j = np.searchsorted(et, t_r, side="right")
                    before = ew[j - 1] if j > 0 else 0
                    add = np.where(np.arange(R) >= r, add - before, add)
            vals = vals + add
        if bits == 32:
            vals = np.mod(vals, M32)
        return vals

    def init_val(scale_lo, scale_hi, bits=64):
        if bits == 32:
            return int(rng.integers(0, M32))
        return int(U(scale_lo, scale_hi))

    def uptime_ticks(d, ts):
        boot = np.full(R, d.boot)
        if d.reboot_boot is not None:
            boot = np.where(ts >= d.reboot_boot, d.reboot_boot, d.boot)
        return np.mod(((ts - boot) * 100).astype(np.int64), M32), boot

    def oper_lc(p, ts, boot):
        st = np.zeros(R, dtype=np.int64); lc = np.zeros(R, dtype=np.int64)
        tr = sorted(p.trans)
        tt = np.array([x[0] for x in tr]) if tr else np.zeros(0)
        for k in range(R):
            j = np.searchsorted(tt, ts[k], side="right") if len(tt) else 0
            if j == 0:
                st[k] = p.init_state
                lc[k] = p.init_lc
            else:
                st[k] = tr[j - 1][1]
                tl = tr[j - 1][0]
                lc[k] = max(0, int((tl - boot[k]) * 100)) if tl >= boot[k] else 0
        return st, lc

    # ---- switches
    for d in sw_devs:
        ts = d.ts
        ticks, boot = uptime_ticks(d, ts)
        ticks2, _ = uptime_ticks(d, d.ts2)
        pre_sys = f"snmp,agent_host={d.ip},host={COLLECTOR},hostname={d.name}"
        is_v1 = d.kind == "spine_v1"
        bits = 32 if is_v1 else 64
        port_rows = []
        for p in d.ports:
            tags = [("agent_host", d.ip), ("host", COLLECTOR), ("hostname", d.name)]
            if p.alias:
                tags.append(("ifAlias", p.alias))
            tags += [("ifDescr", p.name), ("ifName", p.name)]
            pre = "interface," + ",".join(f"{k}={esc(v)}" for k, v in tags)
            st, lc = oper_lc(p, ts, boot)
            z = np.zeros(R)
            g = lambda n: p.a.get(n, z)
            sc = 4e14 if p.role in ("host", "uplink", "spine_leaf", "stor_host", "stor_up", "spine_stor") else 1e9
            b_oct_in = init_val(sc * 0.2, sc, bits)
            b_oct_out = init_val(sc * 0.2, sc, bits)
            f = {}
            fcs_ev = p.ev.get("fcs_ev")
            inerr_ev = p.ev.get("inerr_ev")
            fcs_s_ = series(p, d, g("fcs"), ts, int(U(0, 400)), 64, fcs_ev)
            f["dot3StatsFCSErrors"] = fcs_s_ if not is_v1 else np.mod(fcs_s_, M32)
            f["ifAdminStatus"] = np.full(R, p.admin, dtype=np.int64)
            if is_v1:
                f["ifInOctets"] = series(p, d, g("in_oct"), ts, b_oct_in, 32)
                f["ifOutOctets"] = series(p, d, g("out_oct"), ts, b_oct_out, 32)
                b_in_p, b_out_p = init_val(0, 0, 32), init_val(0, 0, 32)
                if p.role == "spine_leaf" and rng.random() < 0.2:
                    # a few packet counters are close to the top and wrap during the capture
                    b_in_p = M32 - int(g("in_pkt").sum() * IV * U(0.2, 0.8))
                f["ifInUcastPkts"] = series(p, d, g("in_pkt"), ts, b_in_p, 32)
                f["ifOutUcastPkts"] = series(p, d, g("out_pkt"), ts, b_out_p, 32)
            else:
                f["ifHCInOctets"] = series(p, d, g("in_oct"), ts, b_oct_in)
                f["ifHCOutOctets"] = series(p, d, g("out_oct"), ts, b_oct_out)
                f["ifHCInUcastPkts"] = series(p, d, g("in_pkt"), ts, b_oct_in // 3900)
                f["ifHCOutUcastPkts"] = series(p, d, g("out_pkt"), ts, b_oct_out // 3900)
                f["ifHCInMulticastPkts"] = series(p, d, g("in_mc"), ts, int(U(1e5, 9e5)))
                f["ifHCOutMulticastPkts"] = series(p, d, g("out_mc"), ts, int(U(1e5, 9e5)))
            spd = p.speed.copy()
            if p.init_state == 6:
                spd[:] = 0
            f["ifHighSpeed"] = spd
            if is_v1:
                f["ifSpeed"] = np.where(spd >= 4295, 4294967295, spd * 1000000)
            f["ifInDiscards"] = series(p, d, g("in_disc"), ts, int(U(0, 3000)) if "in_disc" in p.a else 0)
            f["ifInErrors"] = series(p, d, g("fcs") + g("in_err_x"), ts, int(U(0, 500)),
                                     64, (fcs_ev or []) + (inerr_ev or []))
            f["ifInUnknownProtos"] = series(p, d, z, ts, int(U(0, 50)))
            f["ifLastChange"] = lc
            f["ifMtu"] = np.full(R, 1500 if p.role == "mgmt" else (9216 if d.kind.startswith("spine") else 9214),
                                 dtype=np.int64)
            f["ifOperStatus"] = st
            f["ifOutDiscards"] = series(p, d, g("out_disc"), ts, int(U(0, 60)))
            f["ifOutErrors"] = series(p, d, z, ts, 0)
            if d.kind in ("leaf", "stor") and p.role != "mgmt":
                f["aristaEgressQueuePktsDropped"] = series(p, d, g("q3drop"), ts, 0)
                f["aristaPfcPriorityIndications"] = series(p, d, g("pfc_ind"), ts, int(U(1e3, 5e7)))
                f["aristaPfcPriorityRequests"] = series(p, d, g("pfc_req"), ts, int(U(1e3, 5e7)))
            if d.kind == "spine_v2" and p.role != "mgmt":
                f["mellanoxQoSPrioRxPausePkts"] = series(p, d, g("pfc_ind"), ts, int(U(1e3, 5e7)))
                f["mellanoxQoSPrioTxPausePkts"] = series(p, d, g("pfc_req"), ts, int(U(1e3, 5e7)))
            if p.role == "spare":
                # never cabled: every counter has stayed at zero since the last boot
                for n in f:
                    if n not in ("ifAdminStatus", "ifOperStatus", "ifLastChange", "ifHighSpeed", "ifMtu", "ifSpeed"):
                        f[n] = np.zeros(R, dtype=np.int64)
            names = sorted(f)
            cols = [(n, f[n].tolist()) for n in names]
            port_rows.append((pre, cols, p))
        for k in range(R):
            if not d.polled[k]:
                continue
            tsn = int(round(ts[k])) * 1_000_000_000
            ts2n = int(round(d.ts2[k])) * 1_000_000_000
            group = [f"{pre_sys} sysUpTime={int(ticks2[k])}i {ts2n}"]
            for pre, cols, p in port_rows:
                group.append(pre + " " + ",".join(f"{n}={c[k]}i" for n, c in cols) + f" {tsn}")
            push_group(emit, rng, ts[k], group, host_batch=False)
        # DOM
        if d.kind in ("leaf", "stor"):
            for p in d.ports:
                if p.role in ("mgmt",) or p.init_state == 6:
                    continue
                if p.lanes is None:
                    p.lanes = np.clip(rng.normal(-1.1, 0.7, 4), -3.5, 1.5)
            for k in range(0, R, 10):
                if not d.polled[k]:
                    continue
                tdom = clk.t(k) + U(1.0, 4.0)
                tdn = int(round(tdom)) * 1_000_000_000
                group = []
                for p in d.ports:
                    if p.lanes is None:
                        continue
                    st, _ = state_at(p, tdom)
                    peer_dark = (p.role == "spare") or st != 1
                    for ln_ in range(4):
                        if peer_dark:
                            v = -4000
                        else:
                            att = p.atten[k] if p.atten is not None else 0.0
                            lane_att = att * (1 + 0.12 * (ln_ - 1.5) / 1.5) if att else 0.0
                            v = int(round((p.lanes[ln_] - lane_att + rng.normal(0, 0.04)) * 100))
                        descr = esc(f"DOM Rx Power Sensor for {p.name} Lane {ln_ + 1}")
                        group.append(f"entPhySensorTable,agent_host={d.ip},entPhysicalDescr={descr},"
                                     f"host={COLLECTOR},hostname={d.name} entPhySensorOperStatus=1i,"
                                     f"entPhySensorPrecision=2i,entPhySensorScale=9i,entPhySensorType=14i,"
                                     f"entPhySensorValue={v}i {tdn}")
                push_group(emit, rng, tdom, group, host_batch=False)

    # ---- hosts
    for d in hosts.values():
        for nic in d.nics:
            z = np.zeros(R)
            g = lambda n: nic.a.get(n, z)
            ts, ts2 = d.ts, d.ts2
            ticks_boot = d.boot
            stt, _ = oper_lc(nic, ts, np.full(R, d.boot))
            f = {}
            b_rx = init_val(1e14, 3e16); b_tx = init_val(1e14, 3e16)
            rx_bytes = series(nic, d, g("rx_oct") + g("rx_pkt") * 4, ts, b_rx)
            tx_bytes = series(nic, d, g("tx_oct") + g("tx_pkt") * 4, ts, b_tx)
            rx_pause_rate = nic.peer.a.get("pfc_req", z)
            tx_pause_rate = nic.peer.a.get("pfc_ind", z)
            tx_pause_rate = np.where(g("storm_tx_pause") > 0, g("storm_tx_pause"), tx_pause_rate)
            pd_rx = rx_pause_rate * U(4, 12)
            pd_tx = np.where(g("pdur_tx_storm") > 0, g("pdur_tx_storm"), tx_pause_rate * U(4, 12))
            f["autoneg"] = np.ones(R, dtype=np.int64)
            f["duplex"] = np.where(stt == 1, 1, 255)
            f["link"] = (stt == 1).astype(np.int64)
            f["speed"] = np.where(stt == 1, nic.speed, SPEED_UNKNOWN)
            ld_base = int(rng.integers(1, 7))
            f["link_down_events_phy"] = series(nic, d, z, ts, ld_base, 64, nic.ev.get("ldown"))
            f["rx_bytes_phy"] = rx_bytes
            f["tx_bytes_phy"] = tx_bytes
            f["rx_packets_phy"] = series(nic, d, g("rx_pkt"), ts, b_rx // 3900)
            f["tx_packets_phy"] = series(nic, d, g("tx_pkt"), ts, b_tx // 3900)
            f["rx_crc_errors_phy"] = series(nic, d, z, ts, int(rng.integers(0, 40)), 64, nic.ev.get("crc"))
            f["rx_symbol_err_phy"] = series(nic, d, z, ts, int(rng.integers(0, 200)), 64, nic.ev.get("sym"))
            f["rx_corrected_bits_phy"] = series(nic, d, g("corr_bits"), ts, init_val(1e8, 5e10))
            f["rx_discards_phy"] = series(nic, d, z, ts, int(rng.integers(0, 300)))
            f["tx_discards_phy"] = series(nic, d, z, ts, 0)
            f["rx_out_of_buffer"] = series(nic, d, g("oob"), ts, int(rng.integers(0, 5000)))
            f["rx_prio3_pause"] = series(nic, d, rx_pause_rate, ts, init_val(1e5, 3e8))
            f["tx_prio3_pause"] = series(nic, d, tx_pause_rate, ts, init_val(1e3, 5e7))
            f["rx_prio3_pause_duration"] = series(nic, d, pd_rx, ts, init_val(1e6, 3e9))
            f["tx_prio3_pause_duration"] = series(nic, d, pd_tx, ts, init_val(1e4, 5e8))
            f["tx_pause_storm_warning_events"] = series(nic, d, g("storm_warn"), ts, 0)
            f["tx_pause_storm_error_events"] = series(nic, d, z, ts, 0)
            eth_cols = [(n, f[n].tolist()) for n in sorted(f)]
            # infiniband counters (4-octet units for data)
            gi = {}
            gi["VL15_dropped"] = series(nic, d, z, ts2, 0)
            gi["excessive_buffer_overrun_errors"] = series(nic, d, z, ts2, 0)
            gi["link_downed"] = series(nic, d, z, ts2, ld_base, 64, nic.ev.get("ldown"))
            gi["link_error_recovery"] = series(nic, d, z, ts2, int(rng.integers(0, 4)), 64, nic.ev.get("ler"))
            gi["local_link_integrity_errors"] = series(nic, d, z, ts2, 0)
            gi["multicast_rcv_packets"] = series(nic, d, z + 0.01, ts2, int(rng.integers(100, 5000)))
            gi["multicast_xmit_packets"] = series(nic, d, z + 0.01, ts2, int(rng.integers(100, 5000)))
            gi["port_rcv_constraint_errors"] = series(nic, d, z, ts2, 0)
            gi["port_rcv_data"] = series(nic, d, g("rx_oct") * 0.998 / 4, ts2, int(b_rx * 0.998 / 4))
            gi["port_rcv_errors"] = series(nic, d, z, ts2, int(rng.integers(0, 30)), 64, nic.ev.get("crc"))
            gi["port_rcv_packets"] = series(nic, d, g("rx_pkt"), ts2, b_rx // 3900)
            gi["port_rcv_remote_physical_errors"] = series(nic, d, z, ts2, 0)
            gi["port_rcv_switch_relay_errors"] = series(nic, d, z, ts2, 0)
            gi["port_xmit_constraint_errors"] = series(nic, d, z, ts2, 0)
            gi["port_xmit_data"] = series(nic, d, g("tx_oct") * 0.998 / 4, ts2, int(b_tx * 0.998 / 4))
            gi["port_xmit_discards"] = series(nic, d, z, ts2, int(rng.integers(0, 20)))
            gi["port_xmit_packets"] = series(nic, d, g("tx_pkt"), ts2, b_tx // 3900)
            gi["port_xmit_wait"] = series(nic, d, pd_rx * 0.9, ts2, init_val(1e6, 3e9))
            gi["symbol_error"] = series(nic, d, z, ts2, int(rng.integers(0, 50)), 64, nic.ev.get("sym"))
            gi["unicast_rcv_packets"] = series(nic, d, g("rx_pkt"), ts2, b_rx // 3900)
            gi["unicast_xmit_packets"] = series(nic, d, g("tx_pkt"), ts2, b_tx // 3900)
            ib1 = [(n, gi[n].tolist()) for n in sorted(gi)]
            gr = {}
            zero_names = ["implied_nak_seq_err", "req_cqe_error", "req_cqe_flush_error", "req_remote_access_errors",
                          "req_remote_invalid_request", "resp_cqe_error", "resp_cqe_flush_error",
                          "resp_local_length_error", "resp_remote_access_errors", "rnr_nak_retry_err",
                          "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps",
                          "roce_slow_restart_trans", "rx_atomic_requests", "rx_icrc_encapsulated"]
            for n in zero_names:
                gr[n] = series(nic, d, z, ts2, int(rng.integers(0, 3)) if rng.random() < 0.2 else 0)
            gr["duplicate_request"] = series(nic, d, z, ts2, int(rng.integers(0, 50)))
            gr["lifespan"] = np.full(R, 10, dtype=np.int64)
            gr["local_ack_timeout_err"] = series(nic, d, g("lat"), ts2, int(rng.integers(0, 20)), 64,
                                                 nic.ev.get("lat"))
            gr["np_cnp_sent"] = series(nic, d, g("cnp_sent"), ts2, init_val(1e7, 3e10))
            gr["np_ecn_marked_roce_packets"] = series(nic, d, g("ecn"), ts2, init_val(1e7, 8e10))
            gr["out_of_buffer"] = series(nic, d, g("oob"), ts2, int(rng.integers(0, 5000)))
            gr["out_of_sequence"] = series(nic, d, g("oos"), ts2, int(rng.integers(0, 1e6)), 64,
                                           nic.ev.get("oos_ev"))
            gr["packet_seq_err"] = series(nic, d, g("pseq"), ts2, int(rng.integers(0, 2000)))
            gr["roce_adp_retrans"] = series(nic, d, g("adp_retrans"), ts2, int(rng.integers(0, 500)))
            gr["rp_cnp_handled"] = series(nic, d, g("cnp_handled"), ts2, init_val(1e7, 3e10))
            gr["rp_cnp_ignored"] = series(nic, d, z, ts2, int(rng.integers(0, 100)))
            gr["rx_read_requests"] = series(nic, d, g("rx_rd"), ts2, init_val(1e5, 1e8))
            gr["rx_write_requests"] = series(nic, d, g("rx_wr"), ts2, init_val(1e8, 5e10))
            ib2 = [(n, gr[n].tolist()) for n in sorted(gr)]
            nic._cols = (eth_cols, ib1, ib2)
        for k in range(R):
            if not d.polled[k] or d.nic_absent[k]:
                continue
            tsn = int(round(d.ts[k])) * 1_000_000_000
            ts2n = int(round(d.ts2[k])) * 1_000_000_000
            g1, g2 = [], []
            for nic in d.nics:
                eth_cols, ib1, ib2 = nic._cols
                parts = []
                for n, c in eth_cols:
                    if n == "link":
                        parts.append(f"interface_up=true")
                    parts.append(f"{n}={c[k]}i")
                g1.append(f"ethtool,driver=mlx5_core,host={d.name},interface={nic.name} "
                          + ",".join(parts) + f" {tsn}")
                tg = f"infiniband,device={nic.ibdev},host={d.name},port=1 "
                g2.append(tg + ",".join(f"{n}={c[k]}i" for n, c in ib1) + f" {ts2n}")
                g2.append(tg + ",".join(f"{n}={c[k]}i" for n, c in ib2) + f" {ts2n}")
            push_group(emit, rng, d.ts[k], g1, host_batch=True)
            push_group(emit, rng, d.ts2[k], g2, host_batch=True)

    lines.sort(key=lambda x: (x[0], x[1]))
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "port_counters.lp"), "w") as fh:
        for _, _, text in lines:
            fh.write(text)
            fh.write("\n")

    # ------------------------------------------------------------------ labels
    sw_ports = sum(len(d.ports) for d in sw_devs)
    nic_ports = sum(len(d.nics) for d in hosts.values())
    labels = {
        "scenario": SCENARIO, "scale": "small", "seed": seed, "fabric": "roce",
        "interval_s": IV, "sample_s": IV, "nic_sample_s": IV, "dom_sample_s": 300,
        "t0_ns": ns(t0), "t_end_ns": ns(T_END), "train_until_ns": ns(clk.t(TRAIN_R)),
        "fit_first": f"{TRAIN_R * IV // 60}m",
        "ports": sw_ports + nic_ports, "switch_ports": sw_ports, "nic_ports": nic_ports,
        "lines": len(lines),
        "port_naming": "device = `hostname` tag (sysName) on snmp/interface/entPhySensorTable lines (NOT the `host` "
                       "tag, which is the collector), `host` tag on ethtool/infiniband lines; port = ifName, or for a "
                       "NIC both its netdev (`interface` tag) and its ibdev (`device` tag) -- labels list both",
        "measurements": {
            "snmp": "sysUpTime (TimeTicks) per switch",
            "interface": "IF-MIB + EtherLike + vendor prio-3 PFC/queue counters, one line per port per poll",
            "entPhySensorTable": "DOM Rx power per lane, every 5 min, Arista only",
            "ethtool": "mlx5 ethtool -S subset + link/speed/duplex/autoneg/interface_up",
            "infiniband": "two lines per NIC per poll: IB PMA counters and RDMA hw_counters",
        },
        "counter_width": {"spine-1": 32, "spine-2": 32, "default": 64},
        "devices": [{"name": d.name, "kind": d.kind, "model": d.model, "agent_host": d.ip,
                     "snmp": ("v1" if d.kind == "spine_v1" else "v2c") if d.kind != "host" else None}
                    for d in devs.values()],
        "faults": sorted(faults, key=lambda f: f["start_ns"]),
        "healthy_phenomena": healthy,
    }
    with open(os.path.join(outdir, "labels.json"), "w") as fh:
        json.dump(labels, fh, indent=1)
    return labels


def push_group(emit, rng, t_sample, group, host_batch):
    """one gather's lines reach the relay a little later; some batches late, some duplicated."""
    arr = t_sample + rng.uniform(0.5, 10.0)
    if rng.random() < 0.006:
        arr += rng.uniform(30, 180)
    for ln in group:
        emit(arr, ln)
    if rng.random() < (0.004 if host_batch else 0.002):
        arr2 = arr + rng.uniform(5, 15)
        for ln in group:
            emit(arr2, ln)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    lab = generate(args.outdir, args.seed)
    print(f"{SCENARIO} seed {args.seed}: {lab['lines']} lines, {lab['ports']} ports, "
          f"{len(lab['faults'])} faults -> {args.outdir}")
    for f in lab["faults"]:
        print(f"  {f['kind']:28s} {f['device']}:{','.join(f['ports'])}  "
              f"+{(f['start_ns'] - lab['t0_ns']) / 6e10:.0f}..+{(f['end_ns'] - lab['t0_ns']) / 6e10:.0f} min")


if __name__ == "__main__":
    main()
