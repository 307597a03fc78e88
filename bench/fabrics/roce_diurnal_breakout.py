"""Labelled 24-hour RoCEv2 fabric history with a diurnal cycle and breakout host links.

    python roce_diurnal_breakout.py OUTDIR --seed N [--suppress-redundant]

Writes OUTDIR/port_counters.lp (InfluxDB line protocol, measurement ``port_counters``, one point
per switch port per 30 s sample, raw cumulative counters as the devices report them) and
OUTDIR/labels.json (faults that a degraded-link detector must find, healthy phenomena it must not
flag, in the form score.py of the scenario bank reads). numpy only, deterministic per seed: another
seed moves the faults to other ports of the same kind and jitters every time by up to +-8 min.
Size: ~1.84 M lines, ~975 MB per seed (~700 MB with --suppress-redundant), ~10 s and ~1.5 GB of
memory on one core. The bank's tag set alone is ~140 bytes a line, so 640 ports x 2881 samples
cannot be made much smaller without dropping ports, hours or tags.

Fabric
------
Two-tier leaf/spine RoCEv2 (lossless priority 3, DCQCN: ECN marking plus PFC), 8 racks with two
ToR leaves each (``leaf00a`` .. ``leaf07b``, tag ``rail`` = 0 for the a-side, 1 for the b-side; host
NIC ports 0-1 go to the a-leaf, 2-3 to the b-leaf) and 4 spines (``spine1`` .. ``spine4``).

* Leaves: NVIDIA SN4700 (Spectrum-3, 32 x 400G QSFP-DD cages, Cumulus Linux 5.x). Host cages are
  broken out and named as Cumulus names breakout subports: a 400G cage split 2x200G gives
  ``swp1s0 swp1s1``, split 4x100G gives ``swp1s0 .. swp1s3``. Uplinks ``swp25 .. swp32`` are
  unbroken 400G, two to each spine (1.5:1 oversubscribed on the 200G racks). So every leaf has
  ports of two or three speeds (rack 6 has 400G, 200G and 100G on one switch).
  Racks 0-3: 12 GPU nodes each, ConnectX-7 at 200G (4 NICs per node, 2x200G breakout);
  racks 4-5: 12 older GPU nodes each, ConnectX-6 Dx at 100G (4x100G breakout);
  rack 6: 8 GPU nodes at 200G plus 4 inference/service nodes at 100G (``svc01..04``);
  rack 7: 12 storage nodes at 200G (``stor01..12``).
* Spines: NVIDIA SN5600 (Spectrum-4, 64 x 800G OSFP) running Linux switchdev (mlxsw); each
  800G cage is split 2x400G, so the port facing leaf L is ``swp<L+1>s0`` / ``swp<L+1>s1``.
* 640 switch ports: 16 leaves x (24 host subports + 8 uplinks) + 4 spines x 32.

Sampling: 2881 samples, t0 = 2025-06-17T03:00:00Z (the site runs on UTC), every 30 s for 24 h;
the fit window is the first 30 % (432 min, to 10:12), which holds the end of the night, the
morning job starts, one checkpoint and the first part of the temperature rise, but not the
afternoon peak nor the evening/night. Times below are minutes from t0, nominal: every seed
jitters each of them by up to +-8 min.

Exporters and field names
-------------------------
Tags as in the bank: device, port, fabric=roce, role (leaf_down | leaf_up | spine), rail,
peer_device, peer_port (hosts: ``gpuNNN``/``svcNN``/``storNN`` and ``mlx5_<nic>``), speed (the
configured speed of the port: 100G, 200G, 400G; it does not change when a link renegotiates).

Leaves - Cumulus Linux gNMI server (OpenConfig paths, as listed in NVIDIA's Cumulus Linux
"gNMI Streaming" metrics table), collected by Telegraf ``inputs.gnmi`` in sample mode every 30 s
and merged into one point per port; Telegraf names a field by the leaf path below its subscription,
keeping the hyphens. All counters are counter64.
  /interfaces/interface/state/counters: ``in-octets out-octets in-unicast-pkts out-unicast-pkts
      in-errors out-discards carrier-transitions``
  /interfaces/interface/ethernet/state/counters: ``in-fcs-errors``
  /interfaces/interface/state: ``oper-status admin-status`` (OpenConfig enums, mapped by the
      collector's ``processors.enum`` to their IF-MIB numbers: UP=1, DOWN=2)
  /interfaces/interface/ethernet/state: ``port-speed`` (Mb/s as Cumulus reports it)
  /interfaces/interface/ethernet/phy/state: ``corrected-bits`` (bits corrected by the RS-FEC:
      pre-FEC BER = delta / (30 s x lane bit rate); counts even when the link is idle) and
      ``rs-fec-uncorrectable-blocks``
  /qos/interfaces/interface/state/switch-priority[priority=3]/counters: ``in-pause-pkts``
      (PFC frames received) and ``out-pause-pkts`` (PFC frames sent)
  /qos/interfaces/interface/output/queues/queue[name=3]/state: ``ecn-marked-pkts``
  /components/component[transceiver of the cage]/state: ``temperature/instant`` (float, deg C; all
      subports of a breakout cage share one module and so one temperature)
Spines - Linux mlxsw driver ``ethtool -S`` strings (drivers/net/ethernet/mellanox/mlxsw/
spectrum_ethtool.c, 64-bit PPCNT counters), collected by Telegraf ``inputs.ethtool``, which also
adds ``interface_up`` (admin), ``link`` (carrier) and ``speed`` (Mb/s):
  ``a_octets_received_ok a_octets_transmitted_ok a_frames_received_ok a_frames_transmitted_ok
  a_frame_check_sequence_errors if_in_discards if_out_discards rx_pause_prio_3 tx_pause_prio_3
  ecn_marked tc_no_buffer_discard_uc_tc_3 interface_up link speed``
  mlxsw has no carrier-transition, FEC or module-temperature counter in ethtool -S: a spine-side
  flap is seen only through ``link`` and traffic, and spines carry no temperature.
Every counter is 64 bit (no wraps); they only go back at the leaf reboot (all counters from zero)
and the counter clear described below.
With ``--suppress-redundant`` the file is written as Telegraf's gNMI input writes with
``suppress_redundant = true`` and ``heartbeat_interval = "300s"``: a leaf point carries only the
fields whose value changed since the previous sample, except every 10th sample (heartbeat); the
spines (ethtool polling) are written in full. Default: every field on every line.

Workload and the day
--------------------
Night (03:00-07:40 and from ~21:30) the fabric idles: host links carry only LLDP/monitoring
(~kB/s), uplinks BGP/BFD; the inference nodes serve light traffic all day and night.
J1 pretrain (racks 0-2, 36 nodes, 200G) 280-1070; J2 finetune (racks 4-5, 24 nodes, 100G)
330-940 with a crash/restart 706-718; J3 pretrain (rack 3 + rack 6 GPU nodes, 20 nodes) 370-1110.
All-reduce bursts at 70-80 % of line rate; evals (2-3 min pauses) every ~2 h; data loading from
storage; synchronous checkpoints to the storage rack (J1 at 400, 520, 640, 880, 1000; J3 at 460,
760, 940) saturate the spine ports facing the storage leaves. Module temperatures follow the
inlet air: +4.8..7.2 deg C from the 04:30 minimum to the 16:30 maximum, all switches together.

Healthy phenomena (labelled, must NOT be flagged)
-------------------------------------------------
diurnal_temperature (all run, every leaf module); idle_night (0-280 and 1110-1440); job_start /
job_stop / job_pause / job_restart; checkpoint_burst x8 (storage ports saturated, ECN on them, PFC
from the storage leaves onto the spines and back to the writers' uplinks); ecmp_polarization (3
uplinks ~1.7x their siblings all run, more ECN/PFC there by day); rack_cooling_failure (rack 7,
800-840: every module on leaf07a/leaf07b +8-10 deg C together, then recovers; corrected bits rise
a little with temperature); slow_receiver_pfc (one storage NIC pauses its leaf port, bounded);
inference_traffic; sporadic_fec_fcs (background: single uncorrectable codewords / FCS errors, a
few per hour, on ~6 % of links); ingress_control_drops (background, spines); maintenance_window
(1320-1380) with a planned reboot of a rack-4/5 leaf (1326-1331: no samples, all its links and
their spine ends down, every counter from zero, training errors at link-up); counter_clear on
another rack-4/5 leaf at 660 (interface and QoS counters to zero; carrier-transitions and PHY
counters are not cleared); collector_gap (spine2's Telegraf misses ~3 % of polls: missing lines,
counters keep counting).

Faults (must be found), nominal times
-------------------------------------
1  ber_rising_under_load  J1 leaf host port (200G)   450-1440  pre-FEC BER (corrected-bits) rises
   ~x1000 over 9 h but only while the link carries traffic (the host's NIC/AOC heats under load);
   uncorrectable blocks/FCS late in the day; nothing at night (J1 stops at 1070).
2  module_overheating  rack-6 leaf uplink (400G)     540-1440  its module's temperature climbs
   to ~14-16 deg C above its neighbours over 5 h (not the rack: one module), then corrected bits
   grow, then uncorrectable blocks and FCS errors on both ends; persists at night.
3  flapping_link_idle  rack-4/5 leaf host port (100G) 1180-1275  bursts of down/up while idle:
   carrier-transitions, oper-status DOWN in some samples, training errors at each link-up.
4  pfc_storm  J1 leaf host port (200G)               700-740  the NIC is stuck sending PFC:
   in-pause-pkts 30-60k/s, traffic to the host ~0, PFC-watchdog drops (out-discards); the leaf
   pauses its uplinks for a minute; J1 stalls (knock-on on J1's ports: related).
5  ecn_disabled_switch  a J1 leaf (all ports)        820-1010  a QoS push leaves ECN off: no
   ecn-marked-pkts where its peers mark under the same load, PFC from it several-fold.
6  fcs_under_load  rack-4/5 leaf host subport (100G) 600-1440  marginal breakout lane:
   uncorrectable blocks and in-fcs-errors growing with the square of utilisation; none when idle
   (J2 stops at 940), and none during J2's restart.
7  link_left_down  uplink of the rebooted leaf       1334-1440  shut for an optic clean during
   the maintenance window and never re-enabled: admin-status/oper-status DOWN on the leaf end,
   the spine end admin up (interface_up 1) with link 0, siblings carry its share.
8  lossy_buffer_profile  spine port facing a J1 leaf 500-1440  egress queue drops
   (if_out_discards, tc_no_buffer_discard_uc_tc_3) in proportion to congestion, only when the
   queue congests (J1 bursts, checkpoints); none at night.
9  half_speed_link  rack-6 leaf 200G host subport    620-1100  a bounce, then port-speed 100000
   under a 200G tag: its egress queue congests (ECN/PFC up), J3 slows to its pace; fixed by a
   reseat at 1100 (another bounce, back at 200G).
10 bgp_down_link_idle  J1 leaf uplink                560-1000  (own choice) the BGP/BFD session on
   one uplink dropped while the link stayed up: ECMP withdraws it, by day it carries only
   control traffic while its 7 siblings carry +1/7 each; at night it looks like any idle link.
"""

import argparse
import json
import os
import time

import numpy as np

DT = 30                                  # seconds per sample
N = 2880                                 # intervals (24 h)
T = N + 1                                # samples
T0_S = 1750129200                        # 2025-06-17T03:00:00Z
START_HOD = 3.0                          # local (UTC) hour of t0
TRAIN_MIN = 432                          # fit window: first 30 %
TS = np.arange(T, dtype=np.int64) * DT   # seconds from t0 of each sample
HOD = (START_HOD + TS / 3600.0) % 24.0
GB = 1.25e8 * DT                         # bytes per interval at 1 Gb/s
EPS = 1e-9

KAPPA = 0.03    # ECN marks per egress packet per unit of queue pressure
BETA = 1.5e-4   # PFC frames per ingress packet per unit of squared pressure downstream
PHI = 3.0       # pressure multiplier on a queue whose ECN marking is off
ETA = 0.5       # one hop of pause spreading
JUMBO = 4180.0  # bytes per RoCE packet (4 KiB MTU)
SMALL = 310.0   # bytes per control/monitoring packet

RACK_TYPES = ("g200", "g200", "g200", "g200", "g100", "g100", "mixed", "stor")

LEAF_FIELDS = ("in-octets", "out-octets", "in-unicast-pkts", "out-unicast-pkts", "in-errors",
               "in-fcs-errors", "out-discards", "carrier-transitions", "in-pause-pkts",
               "out-pause-pkts", "ecn-marked-pkts", "corrected-bits", "rs-fec-uncorrectable-blocks",
               "oper-status", "admin-status", "port-speed")
LEAF_FLOAT = "temperature/instant"
SPINE_FIELDS = ("a_octets_received_ok", "a_octets_transmitted_ok", "a_frames_received_ok",
                "a_frames_transmitted_ok", "a_frame_check_sequence_errors", "if_in_discards",
                "if_out_discards", "rx_pause_prio_3", "tx_pause_prio_3", "ecn_marked",
                "tc_no_buffer_discard_uc_tc_3", "interface_up", "link", "speed")
# internal counter -> leaf field / spine field
LEAF_MAP = {"oct_in": "in-octets", "oct_out": "out-octets", "pk_in": "in-unicast-pkts",
            "pk_out": "out-unicast-pkts", "err_in": "in-errors", "fcs": "in-fcs-errors",
            "disc_out": "out-discards", "trans": "carrier-transitions", "pause_rx": "in-pause-pkts",
            "pause_tx": "out-pause-pkts", "ecn": "ecn-marked-pkts", "corr": "corrected-bits",
            "ucw": "rs-fec-uncorrectable-blocks"}
SPINE_MAP = {"oct_in": "a_octets_received_ok", "oct_out": "a_octets_transmitted_ok",
             "pk_in": "a_frames_received_ok", "pk_out": "a_frames_transmitted_ok",
             "fcs": "a_frame_check_sequence_errors", "disc_in": "if_in_discards",
             "disc_out": "if_out_discards", "pause_rx": "rx_pause_prio_3", "pause_tx": "tx_pause_prio_3",
             "ecn": "ecn_marked", "nobuf": "tc_no_buffer_discard_uc_tc_3"}
CLEARED = ("oct_in", "oct_out", "pk_in", "pk_out", "err_in", "fcs", "disc_out", "pause_rx", "pause_tx",
           "ecn")


def sec(minutes):
    """Minutes from t0 -> seconds, on a 30 s boundary."""
    return round(minutes * 2) * 30


def frac(a, b):
    """Fraction of each sample's interval (t - 30 s, t] that lies in [a, b)."""
    hi = np.minimum(TS, b)
    lo = np.maximum(TS - DT, a)
    f = np.clip((hi - lo) / DT, 0.0, 1.0)
    f[0] = 0.0
    return f


def press(u):
    """Egress queue pressure from burst utilisation: ~0 below half load, ~1 at line rate."""
    return 0.02 * u ** 3 + np.clip((u - 0.55) / 0.45, 0.0, None) ** 2.5


# ------------------------------------------------------------------------------------------
# topology


class Topo:
    def __init__(self):
        self.dev, self.port, self.role, self.rail = [], [], [], []
        self.peer_dev, self.peer_port, self.speed = [], [], []
        self.leaf, self.spine, self.rack, self.module = [], [], [], []
        self.host, self.nic, self.peer = [], [], []
        self.hosts = []           # dicts: name, kind, rack, ports
        self.leaves, self.spines = [], []
        self.leaf_rack = []

    def add(self, dev, port, role, rail, peer_dev, peer_port, speed, leaf=-1, spine=-1, rack=-1,
            module=-1, host=-1, nic=-1):
        self.dev.append(dev)
        self.port.append(port)
        self.role.append(role)
        self.rail.append(rail)
        self.peer_dev.append(peer_dev)
        self.peer_port.append(peer_port)
        self.speed.append(speed)
        self.leaf.append(leaf)
        self.spine.append(spine)
        self.rack.append(rack)
        self.module.append(module)
        self.host.append(host)
        self.nic.append(nic)
        self.peer.append(-1)
        return len(self.dev) - 1


def build_topology():
    t = Topo()
    uplink = {}
    n_mod = 0
    counters = {"gpu": 0, "svc": 0, "stor": 0}

    def new_hosts(kind, n, rack, speed):
        out = []
        for _ in range(n):
            counters[kind] += 1
            name = f"gpu{counters[kind]:03d}" if kind == "gpu" else f"{kind}{counters[kind]:02d}"
            t.hosts.append({"name": name, "kind": kind, "rack": rack, "speed": speed, "ports": []})
            out.append(len(t.hosts) - 1)
        return out

    for r, rt in enumerate(RACK_TYPES):
        if rt == "g200":
            groups = [(new_hosts("gpu", 12, r, 200), 200)]
        elif rt == "g100":
            groups = [(new_hosts("gpu", 12, r, 100), 100)]
        elif rt == "mixed":
            groups = [(new_hosts("gpu", 8, r, 200), 200), (new_hosts("svc", 4, r, 100), 100)]
        else:
            groups = [(new_hosts("stor", 12, r, 200), 200)]
        for side in (0, 1):
            name = f"leaf{r:02d}{'ab'[side]}"
            L = len(t.leaves)
            t.leaves.append(name)
            t.leaf_rack.append(r)
            cage = 0
            for hs, spd in groups:
                per = 2 if spd == 200 else 4          # subports per 400G cage
                for c0 in range(0, len(hs) * 2, per):
                    cage += 1
                    mod = n_mod
                    n_mod += 1
                    for sub in range(per):
                        k = c0 + sub                  # k-th host port of this group on this leaf
                        h = hs[k // 2]
                        nic = 2 * side + k % 2
                        i = t.add(name, f"swp{cage}s{sub}", "leaf_down", side, t.hosts[h]["name"],
                                  f"mlx5_{nic}", spd, leaf=L, rack=r, module=mod, host=h, nic=nic)
                        t.hosts[h]["ports"].append(i)
            for j in range(8):
                mod = n_mod
                n_mod += 1
                uplink[(L, j)] = t.add(name, f"swp{25 + j}", "leaf_up", side, f"spine{j // 2 + 1}", "",
                                       400, leaf=L, spine=j // 2, rack=r, module=mod)
    for s in range(4):
        name = f"spine{s + 1}"
        t.spines.append(name)
        for L in range(len(t.leaves)):
            for lk in range(2):
                u = uplink[(L, 2 * s + lk)]
                i = t.add(name, f"swp{L + 1}s{lk}", "spine", t.rail[u], t.leaves[L], t.port[u], 400,
                          leaf=L, spine=s, rack=-1)
                t.peer_port[u] = t.port[i]
                t.peer[u] = i
                t.peer[i] = u
    t.P = len(t.dev)
    t.n_mod = n_mod
    t.role_a = np.array(t.role)
    t.leaf_a = np.array(t.leaf)
    t.spine_a = np.array(t.spine)
    t.peer_a = np.array(t.peer)
    t.speed_a = np.array(t.speed, dtype=float)
    t.module_a = np.array(t.module)
    t.host_a = np.array(t.host)
    t.D = np.where(t.role_a == "leaf_down")[0]
    t.U = np.where(t.role_a == "leaf_up")[0]
    t.S = np.where(t.role_a == "spine")[0]
    t.is_leaf = t.role_a != "spine"
    t.leaf_down = [np.where((t.role_a == "leaf_down") & (t.leaf_a == L))[0] for L in range(len(t.leaves))]
    t.leaf_up = [np.where((t.role_a == "leaf_up") & (t.leaf_a == L))[0] for L in range(len(t.leaves))]
    t.spine_ports = [np.where((t.role_a == "spine") & (t.spine_a == s))[0] for s in range(4)]
    t.dev_ports = {}
    for i, d in enumerate(t.dev):
        t.dev_ports.setdefault(d, []).append(i)
    t.index = {(d, p): i for i, (d, p) in enumerate(zip(t.dev, t.port, strict=False))}
    return t


# ------------------------------------------------------------------------------------------
# simulation


class Sim:
    def __init__(self, topo, seed):
        self.t = topo
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        P = topo.P
        z = lambda_free_zeros(P)
        self.dem_in, self.dem_out = z(), z()          # host-port demand, Gb/s (host->leaf, leaf->host)
        self.din, self.dout = z(), z()                # sum of demand x duty
        self.xin, self.xout = z(), z()                # sum of demand x cross-leaf fraction
        self.bg = z()                                 # control/monitoring traffic, Gb/s
        self.press_extra = z()
        self.nic_pause = z()                          # PFC frames/s the host NIC sends to the leaf
        self.wd_drop = z()                            # PFC-watchdog drops/s
        self.lossy = z()                              # lossy-class overflow drops/s
        self.drop_frac = z()                          # lossy buffer profile: drops per packet per pressure
        self.txmul = np.ones((T, P))
        self.cap = np.broadcast_to(topo.speed_a, (T, P)).copy()
        self.wmult = np.ones((T, P))                  # ECMP weight multiplier of uplinks
        self.ecn_off = np.zeros((T, P), dtype=bool)
        self.temp_off = z()                           # module temperature offsets (per port)
        self.cool = np.zeros((T, len(topo.leaves)))   # rack cooling excursion per leaf
        self.downs = []                               # (port, a, b)
        self.admin_down = []                          # (port, a, b)
        self.absent = []                              # (ports, a, b): no lines in (a, b]
        self.resets = []                              # (ports, t, fields or None)
        self.faults = []
        self.healthy = []
        self.hmul = self.rng.normal(1.0, 0.03, P)
        self.w_up = np.ones(P)
        self.w_up[topo.U] = self.rng.normal(1.0, 0.05, len(topo.U))
        self.w_dn = self.w_up * self.rng.normal(1.0, 0.03, P)
        self.ber0 = 10 ** self.rng.uniform(-8.8, -6.9, P)     # healthy pre-FEC BER per link
        self.sporadic = np.zeros(P)                   # isolated uncorrectable codewords per hour
        self.ctrl = np.zeros(P)                       # spine ingress control-plane drops/s
        D = topo.D
        self.bg[:, D] = self.rng.uniform(1.2e-4, 4e-4, len(D)) * self.rng.lognormal(0, 0.25, (T, len(D)))
        U = topo.U
        self.bg[:, U] = self.rng.uniform(2e-5, 6e-5, len(U)) * self.rng.lognormal(0, 0.15, (T, len(U)))
        self.bg[:, topo.peer_a[U]] = self.bg[:, U] * self.rng.lognormal(0, 0.05, (T, len(U)))

    # ---- labels
    def ns(self, s):
        return int((T0_S + s) * 10 ** 9)

    def fault(self, kind, ports, a, b, signature, peer_ends=(), related=(), device=None):
        t = self.t
        if device is None:
            device, pnames = t.dev[ports[0]], [t.port[i] for i in ports]
        else:
            pnames = ["*"]
        self.faults.append({"kind": kind, "device": device, "ports": pnames,
                            "start_ns": self.ns(a), "end_ns": self.ns(min(b, N * DT)),
                            "peer_ends": [{"device": t.dev[i], "port": t.port[i]} for i in peer_ends],
                            "related": list(related), "signature": signature})

    def healthy_event(self, kind, where, a, b, note, background=False):
        ev = {"kind": kind, "where": list(where), "start_ns": self.ns(max(a, 0)),
              "end_ns": self.ns(min(b, N * DT)), "note": note}
        if background:
            ev["background"] = True
        self.healthy.append(ev)

    def names(self, ports):
        return [f"{self.t.dev[i]}:{self.t.port[i]}" for i in ports]

    # ---- workload
    def job_curve(self, start, end, peak, comm, pauses=(), slow=(), label=None, where=None):
        """Per-sample mean utilisation (of a member NIC's line rate) and burst duty of one job."""
        rng = self.rng
        f = frac(start, end)
        u = peak * comm * rng.lognormal(0, 0.05, T) * f
        duty = np.clip(comm * rng.normal(1, 0.04, T), 0.15, 1.0)
        warm = frac(start, start + 240)
        u = u * (1 - warm) + warm * peak * comm * rng.uniform(0.1, 0.4, T)
        t = start + int(rng.integers(95, 125)) * 60
        evals = []
        while t < end - 1800:
            a, b = t, t + int(rng.integers(4, 7)) * 30
            evals.append((a, b))
            t = b + int(rng.integers(100, 140)) * 60
        for a, b in evals:
            fe = frac(a, b)
            u = u * (1 - fe) + fe * 0.015 * f
            if label:
                self.healthy_event("job_pause", where, a, b + 120, f"{label} evaluates: ~2-3 min without "
                                   "collectives on all its ports")
        for a, b, lvl in pauses:
            fe = frac(a, b)
            u = u * (1 - fe) + fe * lvl * f
        for a, b, fac in slow:
            fe = frac(a, b)
            u = u * (1 - fe * (1 - fac))
        return u, duty

    def add_host_traffic(self, host, u_in, u_out, duty, xf, ports=None):
        t = self.t
        for i in (t.hosts[host]["ports"] if ports is None else ports):
            spd = t.speed_a[i]
            gi = u_in * spd * self.hmul[i]
            go = u_out * spd * self.hmul[i] * self.rng.normal(1, 0.01, T)
            self.dem_in[:, i] += gi
            self.dem_out[:, i] += go
            self.din[:, i] += gi * duty
            self.dout[:, i] += go * duty
            self.xin[:, i] += gi * xf
            self.xout[:, i] += go * xf

    def host_ports(self, hosts):
        return [i for h in hosts for i in self.t.hosts[h]["ports"]]

    def leaves_of(self, hosts):
        return sorted({self.t.dev[i] for i in self.host_ports(hosts)})

    def job_where(self, hosts):
        lv = self.leaves_of(hosts)
        return [f"{d}:*" for d in lv] + [f"{s}:*" for s in self.t.spines]

    def link_down(self, i, a, b, both=True):
        self.downs.append((i, a, b))
        j = self.t.peer_a[i]
        if both and j >= 0:
            self.downs.append((j, a, b))

    # ---- engine
    def link_state(self):
        P = self.t.P
        down_frac = np.zeros((T, P))
        oper = np.ones((T, P), dtype=np.int64)
        edn = np.zeros((T, P))
        eup = np.zeros((T, P))
        for i, a, b in self.downs:
            down_frac[:, i] += frac(a, b)
            oper[(TS >= a) & (TS < b), i] = 0
            ka = int(np.searchsorted(TS, a, "left"))
            if ka < T:
                edn[ka, i] += 1
            if np.isfinite(b):
                kb = int(np.searchsorted(TS, b, "left"))
                if kb < T:
                    eup[kb, i] += 1
        admin = np.ones((T, P), dtype=np.int64)
        for i, a, b in self.admin_down:
            admin[(TS >= a) & (TS < b), i] = 0
        return np.clip(down_frac, 0, 1), oper, admin, edn, eup

    def traffic(self):
        t, rng = self.t, self.rng
        P = t.P
        self.down_frac, self.oper, self.admin, self.edn, self.eup = self.link_state()
        upf = 1.0 - self.down_frac
        cap = self.cap
        D = t.D
        dem_in = self.dem_in
        dem_out = self.dem_out * self.txmul
        din = np.clip(self.din / np.maximum(self.dem_in, EPS), 0.05, 1.0)
        dout = np.clip(self.dout / np.maximum(self.dem_out, EPS), 0.05, 1.0)
        xfin = self.xin / np.maximum(self.dem_in, EPS)
        xfout = self.xout / np.maximum(self.dem_out, EPS)
        in_g = np.zeros((T, P))
        out_g = np.zeros((T, P))
        dem = np.zeros((T, P))
        over = np.zeros((T, P))
        duty = np.ones((T, P))
        in_g[:, D] = (np.minimum(dem_in[:, D], cap[:, D]) + self.bg[:, D]) * upf[:, D]
        out_g[:, D] = (np.minimum(dem_out[:, D], cap[:, D]) + self.bg[:, D]) * upf[:, D]
        dem[:, D] = dem_out[:, D]
        over[:, D] = np.maximum(dem_out[:, D] - cap[:, D], 0) / cap[:, D]
        duty[:, D] = np.where(dem_out[:, D] > 1e-3, dout[:, D], 1.0)
        for L in range(len(t.leaves)):
            dn, up = t.leaf_down[L], t.leaf_up[L]
            pe = t.peer_a[up]
            xi = np.minimum(dem_in[:, dn], cap[:, dn]) * upf[:, dn] * xfin[:, dn]
            xo = dem_out[:, dn] * upf[:, dn] * xfout[:, dn]
            cu, cd = xi.sum(1), xo.sum(1)
            du_ = (xi * din[:, dn]).sum(1) / np.maximum(cu, EPS)
            dd_ = (xo * dout[:, dn]).sum(1) / np.maximum(cd, EPS)
            jit = rng.lognormal(0, 0.03, (T, len(up)))
            wu = self.w_up[up] * self.wmult[:, up] * upf[:, up] * jit
            wu = wu / np.maximum(wu.sum(1, keepdims=True), EPS)
            wd = self.w_dn[up] * self.wmult[:, up] * upf[:, up] * jit * rng.lognormal(0, 0.02, (T, len(up)))
            wd = wd / np.maximum(wd.sum(1, keepdims=True), EPS)
            a_up = cu[:, None] * wu
            a_dn = cd[:, None] * wd
            c = cap[:, up]
            out_g[:, up] = (np.minimum(a_up, 0.985 * c) + self.bg[:, up]) * upf[:, up]
            over[:, up] = np.maximum(a_up - c, 0) / c
            dem[:, up] = a_up
            duty[:, up] = np.where(cu[:, None] > 1e-3, du_[:, None], 1.0)
            out_g[:, pe] = (np.minimum(a_dn, 0.985 * c) + self.bg[:, pe]) * upf[:, pe]
            over[:, pe] = np.maximum(a_dn - c, 0) / c
            dem[:, pe] = a_dn
            duty[:, pe] = np.where(cd[:, None] > 1e-3, dd_[:, None], 1.0)
        in_g[:, t.U] = out_g[:, t.peer_a[t.U]]
        in_g[:, t.S] = out_g[:, t.peer_a[t.S]]
        self.in_g, self.out_g, self.over, self.duty, self.dem = in_g, out_g, over, duty, dem
        self.xfin = xfin
        self.upf = upf

    def congestion(self):
        t, rng = self.t, self.rng
        P = t.P
        eu = self.out_g / self.cap
        burst = np.clip(eu / np.clip(self.duty, 0.05, 1.0), 0, 1.3)
        p = (press(np.minimum(burst, 1.0)) + 1.5 * np.maximum(burst - 1.0, 0) + self.press_extra
             + 1.5 * np.minimum(self.over, 2.0)) * self.upf
        eff = p * np.where(self.ecn_off, PHI, 1.0)
        dem = self.dem + 1e-6

        def wmean(idx, x):
            return (dem[:, idx] * x[:, idx]).sum(1) / (dem[:, idx].sum(1) + 1e-3)

        nL = len(t.leaves)
        Pd = np.stack([wmean(t.leaf_down[L], eff) for L in range(nL)], 1)
        Ps = np.stack([wmean(t.spine_ports[s], eff) for s in range(4)], 1)
        eff2 = eff.copy()
        eff2[:, t.S] += ETA * Pd[:, t.leaf_a[t.S]]
        eff2[:, t.U] += ETA * Ps[:, t.spine_a[t.U]]
        Pu = np.stack([wmean(t.leaf_up[L], eff2) for L in range(nL)], 1)
        Ps = np.stack([wmean(t.spine_ports[s], eff2) for s in range(4)], 1)
        pin = np.zeros((T, P))
        D = t.D
        pin[:, t.U] = Pd[:, t.leaf_a[t.U]]
        pin[:, D] = (self.xfin[:, D] * Pu[:, t.leaf_a[D]] + (1 - self.xfin[:, D]) * Pd[:, t.leaf_a[D]])
        pin[:, t.S] = Ps[:, t.spine_a[t.S]]
        pin *= self.upf
        self.p, self.pin = p, pin
        self.Pd, self.Pu, self.Ps = Pd, Pu, Ps

        bytes_in = self.in_g * GB
        bytes_out = self.out_g * GB
        bgb = self.bg * GB * self.upf
        pk_in = np.maximum(bytes_in - bgb, 0) / JUMBO + np.minimum(bytes_in, bgb) / SMALL
        pk_out = np.maximum(bytes_out - bgb, 0) / JUMBO + np.minimum(bytes_out, bgb) / SMALL
        c = {"oct_in": bytes_in, "oct_out": bytes_out, "pk_in": pk_in, "pk_out": pk_out}
        pois = rng.poisson
        pfc_tx = BETA * (pk_in / DT) * np.minimum(pin, 4.0) ** 2 * rng.lognormal(-0.18, 0.6, (T, P))
        pfc_rx = np.zeros((T, P))
        pfc_rx[:, t.U] = pfc_tx[:, t.peer_a[t.U]]
        pfc_rx[:, t.S] = pfc_tx[:, t.peer_a[t.S]]
        pfc_rx[:, D] = self.nic_pause[:, D] * rng.lognormal(0, 0.2, (T, len(D)))
        c["pause_tx"] = pois(pfc_tx * DT)
        c["pause_rx"] = pois(pfc_rx * DT)
        marks = pk_out * KAPPA * np.minimum(p, 3.0) * rng.lognormal(-0.06, 0.35, (T, P)) * (~self.ecn_off)
        c["ecn"] = pois(marks)
        cong = pk_out * self.drop_frac * np.clip(p - 0.15, 0, None) * rng.lognormal(0, 0.5, (T, P))
        flush = pois(150.0 * self.edn * (self.dem > 1.0))
        nobuf = pois(cong)
        c["nobuf"] = nobuf
        c["disc_out"] = pois((self.lossy + self.wd_drop) * DT) + nobuf + flush
        c["disc_in"] = pois(self.ctrl[None, :] * DT * np.ones((T, 1))) * self.upf
        self.c = c

    def physical(self):
        """FEC, FCS and module temperature (leaf ports), plus fault-driven error terms."""
        t, rng = self.t, self.rng
        P = t.P
        util_in = self.in_g / self.cap
        self.util_in = util_in
        # module temperatures: inlet air (diurnal, all switches together), rack cooling, load heat
        nL = len(t.leaves)
        shape = 0.5 - 0.5 * np.cos(2 * np.pi * (HOD - 4.5) / 24.0)
        amp = self.amp_leaf = 6.0 * rng.uniform(0.8, 1.2, nL)
        inlet = shape[:, None] * amp[None, :] + rng.normal(0, 0.15, (T, nL)).cumsum(0) * 0.02
        mod = t.module_a
        nm = t.n_mod
        base = np.zeros(nm)
        mload = np.zeros((T, nm))
        mcount = np.zeros(nm)
        mleaf = np.zeros(nm, dtype=int)
        for i in np.where(t.is_leaf)[0]:
            m = mod[i]
            base[m] = rng.uniform(43, 52) if t.role[i] == "leaf_up" else rng.uniform(36, 45)
            mload[:, m] += 0.5 * (util_in[:, i] + self.out_g[:, i] / self.cap[:, i])
            mcount[m] += 1
            mleaf[m] = t.leaf_a[i]
        mload /= np.maximum(mcount, 1)
        # thermal lag ~10 min
        alpha = DT / 600.0
        lag = np.zeros_like(mload)
        acc = mload[0].copy()
        for k in range(T):
            acc += alpha * (mload[k] - acc)
            lag[k] = acc
        mtemp = (base[None, :] + inlet[:, mleaf] + 1.8 * lag + self.cool[:, mleaf]
                 * rng.uniform(0.93, 1.07, nm)[None, :] + rng.normal(0, 0.12, (T, nm)))
        temp = np.zeros((T, P))
        li = np.where(t.is_leaf)[0]
        temp[:, li] = mtemp[:, mod[li]] + self.temp_off[:, li]
        self.temp = np.round(temp, 1)
        # pre-FEC BER: per-link baseline, mildly temperature dependent, independent of traffic
        bitrate = self.cap * 1.0625e9
        ber = self.ber0[None, :] * np.exp(0.03 * (temp - 45.0))
        self.ber = ber + self.ber_extra
        corr = self.ber * bitrate * DT * self.upf * rng.lognormal(-0.005, 0.1, (T, P))
        corr += self.eup * rng.uniform(2e5, 2e6, (T, P))
        ucw_rate = self.ucw_extra + self.sporadic[None, :] / 3600.0
        ucw = rng.poisson(ucw_rate * DT * self.upf) + rng.poisson(2.0 * self.eup)
        # an uncorrectable codeword corrupts a frame when it lands in one (traffic), else an idle
        inframe = np.clip(util_in * 1.3 + 0.02 * (self.in_g > 0), 0, 1)
        fcs = rng.binomial(ucw, inframe) + rng.poisson(self.fcs_extra * DT) + rng.poisson(1.0 * self.eup)
        c = self.c
        c["corr"] = corr
        c["ucw"] = ucw
        c["fcs"] = fcs
        c["err_in"] = fcs + rng.poisson(0.02 * fcs)
        c["trans"] = self.edn + self.eup


def lambda_free_zeros(P):
    def z():
        return np.zeros((T, P))
    return z


# ------------------------------------------------------------------------------------------
# scenario


def scenario(seed):
    t = build_topology()
    sim = Sim(t, seed)
    rng = sim.rng

    def jit(x, lo=-8, hi=8):
        return x + int(rng.integers(lo, hi + 1))

    def pick(seq):
        seq = list(seq)
        return seq[int(rng.integers(len(seq)))]

    hosts_by_rack = {}
    for h, hd in enumerate(t.hosts):
        hosts_by_rack.setdefault(hd["rack"], []).append(h)
    gpu = {r: [h for h in hosts_by_rack[r] if t.hosts[h]["kind"] == "gpu"] for r in range(8)}
    svc = [h for h in hosts_by_rack[6] if t.hosts[h]["kind"] == "svc"]
    stor = hosts_by_rack[7]
    stor_ports = sim.host_ports(stor)
    LI = {name: L for L, name in enumerate(t.leaves)}

    J1 = gpu[0] + gpu[1] + gpu[2]
    J2 = gpu[4] + gpu[5]
    J3 = gpu[3] + gpu[6]
    j1a, j1b = sec(jit(280)), sec(jit(1070))
    j2a, j2b = sec(jit(330)), sec(jit(940))
    j3a, j3b = sec(jit(370)), sec(jit(1110))
    j2_crash = sec(jit(706, -5, 5))
    j2_back = j2_crash + sec(12)
    ck = {"J1": [sec(jit(m, -5, 5)) for m in (400, 520, 640, 880, 1000)],
          "J3": [sec(jit(m, -5, 5)) for m in (460, 760, 940)]}
    ckl = {"J1": [(a, a + sec(5)) for a in ck["J1"]], "J3": [(a, a + sec(4)) for a in ck["J3"]]}

    # fault placement (per seed)
    j1_leaves = [LI[f"leaf{r:02d}{s}"] for r in (0, 1, 2) for s in "ab"]
    order = [int(x) for x in rng.permutation(j1_leaves)]
    L_ber, L_storm, L_bgp, L_lossy, L_ecn, L_pol = order
    r45 = [LI[f"leaf{r:02d}{s}"] for r in (4, 5) for s in "ab"]
    order45 = [int(x) for x in rng.permutation(r45)]
    L_fcs, L_flap, L_boot, L_clear = order45
    side6 = int(rng.integers(2))
    L_half, L_hot = LI[f"leaf06{'ab'[side6]}"], LI[f"leaf06{'ab'[1 - side6]}"]

    storm_a = sec(jit(700))
    storm_b = storm_a + sec(40)
    half_a, half_b = sec(jit(620)), sec(jit(1100))
    half_port = pick([i for i in t.leaf_down[L_half] if t.speed_a[i] == 200])
    storm_port = pick(t.leaf_down[L_storm])

    # ---- jobs
    def cross_fraction(hosts, c_alg=0.9):
        n = len(hosts)
        xf = {}
        for h in hosts:
            same = sum(1 for g in hosts if t.hosts[g]["rack"] == t.hosts[h]["rack"])
            xf[h] = c_alg * (n - same) / (n - 1)
        return xf

    def run_job(label, hosts, a, b, peak, comm, pauses=(), slow=(), boost=None):
        where = sim.names(sim.host_ports(hosts)) + sim.job_where(hosts)
        u, d = sim.job_curve(a, b, peak, comm, pauses=pauses, slow=slow, label=label, where=where)
        xf = cross_fraction(hosts)
        for h in hosts:
            sim.add_host_traffic(h, u, u, d, xf[h])
        if boost is not None:                    # demand the slowed job would put on one port
            i, fac_t = boost
            sim.dem_out[:, i] *= fac_t
            sim.dout[:, i] *= fac_t
            sim.xout[:, i] *= fac_t
        sim.healthy_event("job_start", where, a, a + 600, f"{label} starts on {len(hosts)} nodes (NCCL warm-up)")
        sim.healthy_event("job_stop", where, b, b + 600, f"{label} ends for the night")
        active = frac(a, b)
        # data loading from storage while the job runs (storage -> hosts), crosses the spines
        load = 0.012 * active * rng.lognormal(0, 0.2, T)
        tot = np.zeros(T)
        for h in hosts:
            for i in t.hosts[h]["ports"]:
                g = load * t.speed_a[i]
                sim.dem_out[:, i] += g
                sim.dout[:, i] += g
                sim.xout[:, i] += g
                tot += g
        per = tot / len(stor_ports)
        for i in stor_ports:
            sim.dem_in[:, i] += per
            sim.din[:, i] += per
            sim.xin[:, i] += per
        return where

    f_half = frac(half_a, half_b)
    fac = np.where(f_half > 0, 1.0 / 0.6, 1.0)
    j1_pauses = [(a, b, 0.01) for a, b in ckl["J1"]]
    j1_where = run_job("J1 pretrain", J1, j1a, j1b, 0.78, 0.5, pauses=j1_pauses,
                       slow=[(storm_a + 30, storm_b + 60, 0.04)])
    j2_where = run_job("J2 finetune", J2, j2a, j2b, 0.72, 0.55, pauses=[(j2_crash, j2_back, 0.0)])
    j3_where = run_job("J3 pretrain", J3, j3a, j3b, 0.75, 0.45,
                       pauses=[(a, b, 0.01) for a, b in ckl["J3"]],
                       slow=[(half_a, half_b, 0.6)], boost=(half_port, fac))
    sim.healthy_event("job_restart", j2_where, j2_crash, j2_back + 600,
                      "J2 crashed (NCCL timeout) and was restarted by the scheduler: ~12 min without traffic")

    # inference nodes: light steady traffic day and night, a little more by day
    day = 0.5 - 0.5 * np.cos(2 * np.pi * (HOD - 4.5) / 24.0)
    for h in svc:
        u = (0.03 + 0.025 * day) * rng.lognormal(0, 0.15, T)
        sim.add_host_traffic(h, u, u * 0.6, np.ones(T), 0.7)
    sim.healthy_event("inference_traffic", sim.names(sim.host_ports(svc)), 0, N * DT,
                      "inference service: 3-6 % load day and night, smooth")

    # checkpoints: many-to-few writes into the storage rack
    for job, hosts in (("J1", J1), ("J3", J3)):
        for a, b in ckl[job]:
            fc = frac(a, b)
            tot = np.zeros(T)
            for h in hosts:
                for i in t.hosts[h]["ports"]:
                    g = 0.28 * t.speed_a[i] * fc * rng.lognormal(0, 0.05, T)
                    sim.dem_in[:, i] += g
                    sim.din[:, i] += 0.9 * g
                    sim.xin[:, i] += g
                    tot += g
            per = tot / len(stor_ports)
            for i in stor_ports:
                sim.dem_out[:, i] += per
                sim.dout[:, i] += 0.95 * per
                sim.xout[:, i] += per
                sim.press_extra[:, i] += 0.5 * fc * rng.lognormal(0, 0.2, T)
                sim.lossy[:, i] += fc * rng.uniform(20, 200)
            stor_leaves = sorted({t.dev[i] for i in stor_ports})
            where = (sim.names(stor_ports) + [f"{d}:*" for d in stor_leaves] + [f"{s}:*" for s in t.spines]
                     + [f"{d}:*" for d in sim.leaves_of(hosts)])
            sim.healthy_event("checkpoint_burst", where, a, b + 120,
                              f"{job} writes a checkpoint to the storage rack: storage ports near line rate with "
                              "heavy ECN, the spine ports facing the storage leaves overflow, PFC spreads back to "
                              "the writers' uplinks and hosts, a few lossy-class drops on the storage ports")
    sim.healthy_event("idle_night", ["*"], 0, j1a, "night: jobs not yet started, links near idle")
    sim.healthy_event("idle_night", ["*"], j3b, N * DT, "night: jobs finished, most links carry ~0 for hours")

    # ECMP polarisation (all run)
    pol = []
    for L in (L_pol, LI[f"leaf03{'ab'[int(rng.integers(2))]}"], LI["leaf07a"]):
        u = pick(t.leaf_up[L])
        sim.w_up[u] *= 1.7
        sim.w_dn[u] *= 1.7 * rng.normal(1, 0.03)
        pol.append(int(u))
    sim.healthy_event("ecmp_polarization", sim.names(pol) + sim.names(t.peer_a[pol]), 0, N * DT,
                      "hash polarisation: these uplinks carry ~1.7x their siblings' bytes all day; by day they "
                      "congest in bursts (more ECN and PFC than their siblings)")

    # slow receiver: a storage NIC pauses its leaf port now and then while receiving (bounded)
    sr = pick(stor_ports)
    on = np.zeros(T)
    st = False
    for k in range(T):
        if rng.random() < (0.12 if not st else 0.3):
            st = not st
        on[k] = st
    sim.nic_pause[:, sr] += on * rng.uniform(300, 1200) * rng.lognormal(0, 0.4, T) * np.clip(
        sim.dem_out[:, sr] / 10.0, 0, 1)
    sim.healthy_event("slow_receiver_pfc", sim.names([sr]), 0, N * DT,
                      "a storage node's NIC pauses its leaf port in episodes while it receives (host memory "
                      "pressure): bounded in-pause-pkts, traffic continues")

    # rack cooling failure (rack 7): all modules on both leaves warm together, then recover
    ca = sec(jit(800))
    cb = ca + sec(40)
    x = (TS - ca) / 60.0
    env = np.clip(x / 8.0, 0, 1) * (TS < cb) + (TS >= cb) * np.clip(1 - (TS - cb) / 60.0 / 12.0, 0, 1)
    for s in "ab":
        L = LI[f"leaf07{s}"]
        sim.cool[:, L] = env * rng.uniform(8.0, 10.0)
    sim.healthy_event("rack_cooling_failure", ["leaf07a:*", "leaf07b:*"], ca, cb + sec(15),
                      "the rear-door cooler of rack 7 failed for 40 min: every module on both of its switches "
                      "warms by 8-10 deg C together and recovers (facility issue, not a link fault)")
    sim.healthy_event("diurnal_temperature", ["*"], 0, N * DT,
                      "inlet air follows the day: all modules 4.8-7.2 deg C warmer at 16:30 than at 04:30, "
                      "together; the afternoon is warmer than anything in the fit window")

    ctrl = t.S[rng.random(len(t.S)) < 0.3]
    sim.ctrl[ctrl] = rng.uniform(0.01, 0.2, len(ctrl))
    sim.healthy_event("ingress_control_drops", sim.names(ctrl), 0, N * DT,
                      "if_in_discards at 0.01-0.2/s on some spine ports (control packets dropped at ingress), "
                      "steady since the start", background=True)

    # collector gaps: spine2's Telegraf misses ~3 % of its polls
    gap_dev = "spine2"
    k = 2
    gaps = []
    while k < N - 2:
        if rng.random() < 0.025:
            ln = 1 if rng.random() < 0.8 else int(rng.integers(2, 4))
            gaps.append((k, k + ln))
            k += ln + 2
        else:
            k += 1
    gports = t.dev_ports[gap_dev]
    for k0, k1 in gaps:
        sim.absent.append((gports, int(TS[k0 - 1]), int(TS[k1 - 1])))
        sim.healthy_event("collector_gap", [f"{gap_dev}:*"], int(TS[k0 - 1]), int(TS[k1]) + 60,
                          "the poll of this switch was skipped (no lines); its counters kept counting, so the "
                          "next delta spans two or more intervals")

    # counter clear on a rack-4/5 leaf
    clr = sec(jit(660))
    cdev = t.leaves[L_clear]
    sim.resets.append((t.dev_ports[cdev], clr, CLEARED))
    sim.healthy_event("counter_clear", [f"{cdev}:*"], clr, clr + 60,
                      "an operator cleared the interface and QoS counters of this switch: octets, packets, "
                      "errors, discards, pause and ECN counters drop to zero at once (carrier-transitions and "
                      "PHY FEC counters are not cleared)")

    # maintenance window with a planned reboot of a rack-4/5 leaf; one uplink left shut
    mw_a = sec(jit(1320, -4, 4))
    mw_b = mw_a + sec(60)
    bdev = t.leaves[L_boot]
    rb_a = mw_a + sec(6)
    rb_b = rb_a + sec(5)
    left = pick(t.leaf_up[L_boot])
    shut = mw_a + sec(2)
    back = rb_b
    for i in t.dev_ports[bdev]:
        up_t = rb_b + rng.uniform(20, 110)
        back = max(back, up_t)
        if i == left:
            continue
        sim.link_down(i, rb_a + rng.uniform(0, 2), up_t)
    sim.link_down(left, shut, np.inf)
    sim.admin_down.append((left, shut, np.inf))
    sim.absent.append((t.dev_ports[bdev], rb_a, rb_b))
    sim.resets.append((t.dev_ports[bdev], rb_b, None))
    peers_b = [int(t.peer_a[u]) for u in t.leaf_up[L_boot]]
    sim.healthy_event("maintenance_window", [f"{bdev}:*", *sim.names(peers_b)], mw_a, mw_b,
                      "planned maintenance on this leaf (optic cleaning, then a reboot for a firmware update)")
    sim.healthy_event("switch_reboot", [f"{bdev}:*", *sim.names(peers_b)], rb_a, rb_b + sec(4),
                      "planned reboot: no samples for ~5 min, all its links and their spine ends go down, every "
                      "counter restarts from zero, a few corrected bits/FCS as the links train")

    # ---------------- faults
    # 1 pre-FEC BER rising over hours, visible only under load
    i1 = pick(t.leaf_down[L_ber])
    a1 = sec(jit(450))
    x1 = np.clip((TS - a1) / (9 * 3600.0), 0, None)
    ber1 = (TS > a1) * 10 ** (-7.6 + 2.9 * np.minimum(x1, 1.15))
    sim.fault_ber = (i1, ber1)
    sim.fault("ber_rising_under_load", [i1], a1, N * DT,
              "corrected-bits (pre-FEC BER) on the leaf's receive side climbing x1000 over ~9 h, but only while "
              "the host sends: the excess scales with the link's load and vanishes at night; late in the day a "
              "few rs-fec-uncorrectable-blocks and in-fcs-errors")

    # 2 one module overheating relative to its neighbours, then FEC errors
    i2 = pick(t.leaf_up[L_hot])
    a2 = sec(jit(540))
    y = np.clip((TS - a2) / (5 * 3600.0), 0, None)
    off2 = 14.0 * np.minimum(y, 1.0) ** 1.4 + 2.0 * np.clip(y - 1.0, 0, 1)
    sim.temp_off[:, i2] += off2
    sim.fault_hot = (i2, off2)
    sim.fault("module_overheating", [i2], a2, N * DT,
              "temperature/instant of this one module climbs to ~14-16 deg C above the other modules of the "
              "switch over 5 h (the rack and the switch do not); corrected-bits then grow by orders of "
              "magnitude, later rs-fec-uncorrectable-blocks and FCS errors on this port and FCS on the spine end",
              peer_ends=[int(t.peer_a[i2])])

    # 3 host link flapping at night while idle
    i3 = pick(t.leaf_down[L_flap])
    a3, b3 = sec(jit(1180)), sec(jit(1275))
    first = None
    for st_ in np.sort(rng.uniform(a3 + 10, b3 - 400, 3)):
        tt = st_
        for _ in range(int(rng.integers(3, 7))):
            d = rng.uniform(2, 20)
            sim.link_down(i3, tt, tt + d, both=False)
            first = tt if first is None else min(first, tt)
            tt += d + rng.uniform(10, 60)
    a3 = int(first // 30) * 30
    sim.fault("flapping_link", [i3], a3, b3,
              "while the link is idle at night: carrier-transitions in bursts (+2 per flap), oper-status DOWN "
              "when a sample lands in a down, corrected bits and a few FCS/uncorrectable blocks at each link-up")

    # 4 NIC stuck sending PFC
    f4 = frac(storm_a, storm_b)
    sim.nic_pause[:, storm_port] += f4 * rng.uniform(30000, 60000) * rng.lognormal(0, 0.1, T)
    sim.txmul[:, storm_port] = np.where(f4 > 0, 0.02 + 0.98 * (1 - f4), 1.0)
    first4 = frac(storm_a, storm_a + 60)
    sim.press_extra[:, storm_port] += 4.0 * first4 + 0.4 * np.clip(f4 - first4, 0, None)
    sim.wd_drop[:, storm_port] += np.clip(f4 - first4, 0, None) * rng.uniform(1500, 6000)
    rel4 = ([{"device": d, "ports": ["*"]} for d in sim.leaves_of(J1)]
            + [{"device": t.dev[j], "ports": [t.port[j]]} for L in {LI[d] for d in sim.leaves_of(J1)}
               for j in t.peer_a[t.leaf_up[L]]])
    sim.fault("pfc_storm", [storm_port], storm_a, storm_b,
              "in-pause-pkts on the host port at 30-60k frames/s, out-octets toward the host ~0, PFC-watchdog "
              "drops (out-discards); the leaf pauses its uplinks for the first minute; J1 stalls on every port "
              "(related)", related=rel4)

    # 5 ECN disabled on a whole leaf
    a5, b5 = sec(jit(820)), sec(jit(1010))
    edev = t.leaves[L_ecn]
    msk = (TS > a5) & (TS <= b5)
    sim.ecn_off[np.ix_(msk, t.dev_ports[edev])] = True
    rel5 = [{"device": edev, "ports": ["*"]}] + [{"device": t.dev[j], "ports": [t.port[j]]}
                                                  for j in t.peer_a[t.leaf_up[L_ecn]]]
    sim.fault("ecn_disabled_switch", [], a5, b5,
              "ecn-marked-pkts flat on every port of the switch while its J1 peers mark under the same load; "
              "out-pause-pkts from it several-fold higher, rx_pause_prio_3 on the spine ends", device=edev,
              related=rel5)

    # 6 FCS under load on a 100G breakout subport
    i6 = pick(t.leaf_down[L_fcs])
    a6 = sec(jit(600))
    sim.fault_fcs = (i6, a6)
    sim.fault("fcs_under_load", [i6], a6, N * DT,
              "rs-fec-uncorrectable-blocks and in-fcs-errors growing with the square of the subport's "
              "utilisation (marginal breakout lane): ~1e-5 of frames at J2's load, zero when idle")

    # 7 uplink left down after the maintenance window while its far end is admin up
    a7 = int(np.ceil(back / 30.0)) * 30
    sim.fault("link_left_down", [left], a7, N * DT,
              "after the maintenance window every other link of the rebooted leaf came back; this uplink stays "
              "admin-status/oper-status DOWN (shut for an optic clean and never re-enabled), the spine end shows "
              "interface_up 1 with link 0, the siblings carry its share", peer_ends=[int(t.peer_a[left])])

    # 8 spine egress queue with a lossy buffer profile
    a8 = sec(jit(500))
    i8 = pick(t.peer_a[t.leaf_up[L_lossy]])
    sim.drop_frac[TS > a8, i8] = 5e-4
    sim.fault("lossy_buffer_profile", [i8], a8, N * DT,
              "if_out_discards and tc_no_buffer_discard_uc_tc_3 on this spine egress port in proportion to its "
              "congestion (J1 bursts, checkpoints), zero whenever it does not congest (and all night)",
              peer_ends=[int(t.peer_a[i8])], related=[{"device": t.dev[i8], "ports": ["*"]}])

    # 9 200G host link renegotiated at 100G
    bounce = rng.uniform(8, 20)
    sim.link_down(half_port, half_a, half_a + bounce, both=False)
    sim.link_down(half_port, half_b, half_b + rng.uniform(8, 20), both=False)
    sim.cap[(TS > half_a) & (TS <= half_b), half_port] = 100.0
    rel9 = [{"device": d, "ports": ["*"]} for d in sim.leaves_of(J3)]
    sim.fault("half_speed_link", [half_port], half_a, half_b,
              "a bounce, then port-speed 100000 under a 200G tag: the subport runs at its 100G cap in bursts, "
              "its egress queue congests (ECN marks, out-pause-pkts), J3 slows to its pace (related); a second "
              "bounce at the reseat brings it back to 200G", related=rel9)

    # 10 BGP session down on an uplink: up, but withdrawn from ECMP
    a10, b10 = sec(jit(560)), sec(jit(1000))
    i10 = pick(t.leaf_up[L_bgp])
    f10 = frac(a10, b10)
    sim.wmult[:, i10] = 1.0 - f10
    sim.fault("bgp_down_link_idle", [i10], a10, b10,
              "link up, oper-status UP, but only control traffic (~kB/s) in both directions while its 7 sibling "
              "uplinks carry J1's load (+1/7 each): ECMP withdrew it when its BGP session dropped",
              peer_ends=[int(t.peer_a[i10])],
              related=[{"device": t.leaves[L_bgp], "ports": [t.port[j]]} for j in t.leaf_up[L_bgp] if j != i10])

    # sporadic single uncorrectable codewords / FCS on healthy links (background)
    busy_ports = set()
    for f in sim.faults:
        busy_ports.update(t.dev_ports[f["device"]] if f["ports"] == ["*"] else
                          [t.index[(f["device"], p)] for p in f["ports"]])
        busy_ports.update(t.index[(e["device"], e["port"])] for e in f["peer_ends"])
    leafp = [int(i) for i in np.where(t.is_leaf)[0] if int(i) not in busy_ports]
    sp = [int(i) for i in rng.choice(leafp, int(0.06 * len(leafp)), replace=False)]
    sim.sporadic[sp] = rng.uniform(0.5, 3.0, len(sp))
    spn = [int(i) for i in rng.choice([j for j in t.S if int(j) not in busy_ports], 3, replace=False)]
    sim.sporadic[spn] = rng.uniform(0.5, 2.0, len(spn))
    sim.healthy_event("sporadic_fec_fcs", sim.names(sp + spn), 0, N * DT,
                      "isolated uncorrectable codewords (and the FCS error when one lands in a frame), one to "
                      "a few per hour, steady since the start", background=True)
    sim.timeline = {"J1": (j1a, j1b), "J2": (j2a, j2b), "J3": (j3a, j3b), "storm": (storm_a, storm_b),
                    "half": (half_a, half_b), "ecn": (a5, b5), "bgp": (a10, b10), "cool": (ca, cb),
                    "clear": clr, "reboot": (rb_a, rb_b), "maint": (mw_a, mw_b), "flap": (a3, b3),
                    "gaps": len(gaps)}
    sim.j_where = (j1_where, j2_where, j3_where)
    return sim


def apply_fault_physics(sim):
    """Fault terms that depend on traffic (computed after the traffic and congestion model)."""
    rng = sim.rng
    t = sim.t
    P = t.P
    sim.ber_extra = np.zeros((T, P))
    sim.ucw_extra = np.zeros((T, P))
    sim.fcs_extra = np.zeros((T, P))
    util_in = sim.in_g / sim.cap
    # 1: BER excess proportional to load
    i1, ber1 = sim.fault_ber
    lf = np.clip(util_in[:, i1] / 0.4, 0, 1.6)
    sim.ber_extra[:, i1] += ber1 * lf * rng.lognormal(0, 0.15, T)
    be = sim.ber_extra[:, i1]
    sim.ucw_extra[:, i1] += 3.0 * np.clip(be / 2e-5, 0, None) ** 3
    # 2: overheating module: BER from temperature offset (traffic independent), then uncorrectables
    i2, off2 = sim.fault_hot
    b2 = 2e-9 * np.exp(0.8 * np.clip(off2 - 4.0, 0, None))
    sim.ber_extra[:, i2] += b2 * rng.lognormal(0, 0.1, T)
    u2 = 4.0 * np.clip((b2 - 2e-6) / 8e-6, 0, None) ** 2
    sim.ucw_extra[:, i2] += u2
    j2 = t.peer_a[i2]
    sim.fcs_extra[:, j2] += 0.3 * u2 * np.clip(sim.out_g[:, i2] / sim.cap[:, i2] * 1.3 + 0.02, 0, 1)
    # 6: uncorrectable codewords growing with the square of utilisation
    i6, a6 = sim.fault_fcs
    u6 = (TS > a6) * 45.0 * (util_in[:, i6] / 0.4) ** 2
    sim.ucw_extra[:, i6] += u6 * rng.lognormal(0, 0.2, T)
    sim.ber_extra[:, i6] += (TS > a6) * 3e-6 * (util_in[:, i6] / 0.4) ** 2


# ------------------------------------------------------------------------------------------
# counters and output


def init_values(rng, P, speed, ber0):
    up_days = rng.uniform(15, 140, P)
    v = {}
    v["oct_in"] = (10 ** rng.uniform(13.5, 16.2, P)).astype(np.int64)
    v["oct_out"] = (10 ** rng.uniform(13.5, 16.2, P)).astype(np.int64)
    v["pk_in"] = v["oct_in"] // rng.integers(2600, 4100, P)
    v["pk_out"] = v["oct_out"] // rng.integers(2600, 4100, P)
    v["pause_rx"] = (10 ** rng.uniform(3, 8, P)).astype(np.int64)
    v["pause_tx"] = (10 ** rng.uniform(3, 8, P)).astype(np.int64)
    v["ecn"] = (10 ** rng.uniform(5, 10, P)).astype(np.int64)
    v["corr"] = (ber0 * speed * 1.0625e9 * up_days * 86400).astype(np.int64)
    v["ucw"] = np.where(rng.random(P) < 0.5, 0, rng.geometric(0.05, P)).astype(np.int64)
    v["fcs"] = np.where(rng.random(P) < 0.7, 0, rng.geometric(0.05, P)).astype(np.int64)
    v["err_in"] = v["fcs"] + np.where(rng.random(P) < 0.8, 0, rng.integers(1, 20, P))
    v["disc_out"] = np.where(rng.random(P) < 0.5, 0, rng.geometric(0.0005, P)).astype(np.int64)
    v["disc_in"] = np.where(rng.random(P) < 0.5, 0, rng.geometric(0.001, P)).astype(np.int64)
    v["nobuf"] = np.where(rng.random(P) < 0.7, 0, rng.geometric(0.002, P)).astype(np.int64)
    v["trans"] = 2 * rng.integers(1, 9, P)
    return v


def cumulate(sim):
    t, rng = sim.t, sim.rng
    P = t.P
    init = init_values(rng, P, t.speed_a, sim.ber0)
    cum = {}
    for f, inc in sim.c.items():
        x = np.rint(np.asarray(inc, dtype=float)).astype(np.int64)
        x[0] = 0
        cum[f] = init[f][None, :] + np.cumsum(x, axis=0)
    for ports, tr, flist in sorted(sim.resets, key=lambda r: r[1]):
        kr = int(np.searchsorted(TS, tr, "right")) - 1
        ports = np.asarray(ports)
        for f in (flist or cum.keys()):
            v = cum[f]
            v[kr + 1:, ports] -= v[kr, ports][None, :]
    return cum


def write_output(sim, cum, outdir, suppress):
    t = sim.t
    P = t.P
    present = np.ones((T, P), dtype=bool)
    for ports, a, b in sim.absent:
        m = (TS > a) & (TS <= b)
        present[np.ix_(m, np.asarray(ports))] = False
    li = np.where(t.is_leaf)[0]
    si = np.where(~t.is_leaf)[0]
    lcols = []
    for name in LEAF_FIELDS:
        if name == "oper-status":
            lcols.append(np.where(sim.oper[:, li] == 1, 1, 2))
        elif name == "admin-status":
            lcols.append(np.where(sim.admin[:, li] == 1, 1, 2))
        elif name == "port-speed":
            lcols.append(np.rint(sim.cap[:, li] * 1000).astype(np.int64))
        else:
            key = next(k for k, v in LEAF_MAP.items() if v == name)
            lcols.append(cum[key][:, li])
    LV = np.stack(lcols, axis=2)
    scols = []
    for name in SPINE_FIELDS:
        if name == "interface_up":
            scols.append(sim.admin[:, si])
        elif name == "link":
            scols.append(sim.oper[:, si])
        elif name == "speed":
            scols.append(np.full((T, len(si)), 400000, dtype=np.int64))
        else:
            key = next(k for k, v in SPINE_MAP.items() if v == name)
            scols.append(cum[key][:, si])
    SV = np.stack(scols, axis=2)
    temp = sim.temp[:, li]

    def tags(i):
        return (f"port_counters,device={t.dev[i]},port={t.port[i]},fabric=roce,role={t.role[i]},"
                f"rail={t.rail[i]},peer_device={t.peer_dev[i]},peer_port={t.peer_port[i]},"
                f"speed={int(t.speed[i])}G ")

    lfmt = [tags(i) + ",".join(f"{n}=%di" for n in LEAF_FIELDS) + f",{LEAF_FLOAT}=%.1f %d\n" for i in li]
    sfmt = [tags(i) + ",".join(f"{n}=%di" for n in SPINE_FIELDS) + " %d\n" for i in si]
    ltag = [tags(i) for i in li]
    lpres = present[:, li]
    spres = present[:, si]
    os.makedirs(outdir, exist_ok=True)
    n_lines = 0
    nbytes = 0
    names = list(LEAF_FIELDS)
    last = None
    last_t = None
    with open(os.path.join(outdir, "port_counters.lp"), "w", buffering=1 << 22) as fh:
        for k in range(T):
            tsn = (T0_S + int(TS[k])) * 10 ** 9
            rows = LV[k].tolist()
            tl = temp[k].tolist()
            lp = lpres[k]
            if not suppress or k % 10 == 0 or last is None:
                buf = [lfmt[j] % (*rows[j], tl[j], tsn) for j in range(len(li)) if lp[j]]
                if suppress:
                    last = [r[:] for r in rows]
                    last_t = tl[:]
            else:
                buf = []
                for j in range(len(li)):
                    if not lp[j]:
                        continue
                    r, lr = rows[j], last[j]
                    parts = [f"{names[q]}={r[q]}i" for q in range(len(names)) if r[q] != lr[q]]
                    if tl[j] != last_t[j]:
                        parts.append(f"{LEAF_FLOAT}={tl[j]:.1f}")
                    last[j] = r
                    last_t[j] = tl[j]
                    if parts:
                        buf.append(ltag[j] + ",".join(parts) + f" {tsn}\n")
            srows = SV[k].tolist()
            sp = spres[k]
            buf.extend(sfmt[j] % (*srows[j], tsn) for j in range(len(si)) if sp[j])
            n_lines += len(buf)
            s = "".join(buf)
            nbytes += len(s)
            fh.write(s)
    return n_lines, nbytes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--suppress-redundant", action="store_true",
                    help="write leaf points as Telegraf's gNMI input does with suppress_redundant and a 300 s "
                         "heartbeat (only changed fields), to save space")
    args = ap.parse_args(argv)
    wall = time.time()
    sim = scenario(args.seed)
    sim.traffic()
    apply_fault_physics(sim)
    sim.congestion()
    sim.physical()
    cum = cumulate(sim)
    n_lines, nbytes = write_output(sim, cum, args.outdir, args.suppress_redundant)
    t = sim.t
    tu = sec(TRAIN_MIN)
    labels = {
        "scenario": "roce-diurnal-breakout", "scale": "24h", "seed": args.seed, "fabric": "roce",
        "interval_s": DT, "sample_s": DT, "t0_ns": sim.ns(0), "t_end_ns": sim.ns(N * DT),
        "train_until_ns": sim.ns(tu), "fit_first": f"{TRAIN_MIN}m", "ports": t.P, "lines": n_lines,
        "field_sources": {
            "leaf": "Cumulus Linux gNMI (OpenConfig leaf names via Telegraf inputs.gnmi): "
                    + " ".join(LEAF_FIELDS) + " " + LEAF_FLOAT,
            "spine": "Linux mlxsw ethtool -S strings via Telegraf inputs.ethtool: " + " ".join(SPINE_FIELDS),
            "suppress_redundant": bool(args.suppress_redundant)},
        "faults": sorted(sim.faults, key=lambda f: f["start_ns"]),
        "healthy_phenomena": sorted(sim.healthy, key=lambda h: h["start_ns"]),
    }
    for f in labels["faults"]:
        assert f["start_ns"] >= labels["train_until_ns"], f
    with open(os.path.join(args.outdir, "labels.json"), "w") as fh:
        json.dump(labels, fh, indent=1)
    print(f"roce-diurnal-breakout seed {args.seed}: {t.P} ports x {T} samples, {n_lines:,} lines, "
          f"{nbytes / 1e6:.0f} MB, {len(labels['faults'])} faults, {len(labels['healthy_phenomena'])} healthy "
          f"phenomena, fit-first {TRAIN_MIN}m ({time.time() - wall:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
