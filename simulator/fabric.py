"""Counter dynamics of a whole fabric, vectorised: every port's counters at any instant."""

from __future__ import annotations

import dataclasses
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.optics import CODEWORD_BITS, DOM_COLUMNS, FEC_LIMIT_BER, LANES, THRESHOLDS, Aging, Optics
from fabricwatch.simulator.topology import FabricSpec, SimPort, Topology, build

# The canonical counters the simulator keeps for every port (a superset of what any flavour serves).
COUNTER_NAMES: tuple[str, ...] = (
    "in_octets", "out_octets", "in_pkts", "out_pkts", "in_errors", "out_errors",
    "in_discards", "out_discards", "fcs_errors", "pause_rx", "pause_tx", "ecn_marked",
    *(f"pfc_rx_p{p}" for p in range(8)), *(f"pfc_tx_p{p}" for p in range(8)),
    "xmit_wait", "symbol_errors", "link_transitions",
)
COL = {name: i for i, name in enumerate(COUNTER_NAMES)}
ROCE_PRIORITY = 3  # the lossless class RoCE traffic runs on
MEAN_PKT_BYTES = 4096.0
RETRAIN_S = 2.0  # a link that retrains (to fewer lanes, or back to all of them) is down this long


@dataclass(frozen=True)
class Snapshot:
    ts_ns: int
    counters: np.ndarray  # (ports, counters) uint64
    oper_up: np.ndarray  # (ports,) bool
    admin_up: np.ndarray  # (ports,) bool: False where an operator shut the port
    fec: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.uint64))  # corrected, uncorrectable
    dom: np.ndarray = field(default_factory=lambda: np.zeros((0, len(DOM_COLUMNS))))
    # (ports,) the lanes each link trained to when it last came up (of LANES); empty: all of them
    lanes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def port_lanes(self, port: SimPort) -> int:
        """The lanes the port's link trained to when it last came up (its active width)."""
        return int(self.lanes[port.index]) if len(self.lanes) else LANES

    def port_speed_bps(self, port: SimPort) -> int:
        """The speed the port's link trained to: its nominal speed over the lanes it came up on."""
        return port.speed_bps * self.port_lanes(port) // LANES

    def port_optics(self, port: SimPort) -> dict[str, float]:
        """The port's transceiver at this instant: DOM, pre-FEC BER, FEC counts and the thresholds."""
        row = self.dom[port.index]
        out: dict[str, float] = {name: float(row[i]) for i, name in enumerate(DOM_COLUMNS)}
        out["fec_corrected"] = int(self.fec[port.index, 0])
        out["fec_uncorrectable"] = int(self.fec[port.index, 1])
        return {**out, **THRESHOLDS}

    def port_values(self, port: SimPort) -> dict[str, int]:
        row = self.counters[port.index]
        values = {name: int(row[i]) for i, name in enumerate(COUNTER_NAMES)}
        values["oper_status"] = 1 if self.oper_up[port.index] else 0
        values["admin_status"] = 1 if self.admin_up[port.index] else 0
        values["speed_bps"] = self.port_speed_bps(port)
        return values


class JobSchedule:
    """Training jobs start and stop; while running, compute phases alternate with all-reduce
    bursts. Deterministic in time for a given seed, so a run can be reproduced."""

    def __init__(self, seed: int, job_s: float = 240.0, idle_s: float = 40.0) -> None:
        self.rng = np.random.default_rng(seed)
        self.job_s, self.idle_s = job_s, idle_s
        self.offset = float(self.rng.uniform(0, job_s))
        self.step_s = float(self.rng.uniform(1.5, 3.0))

    def utilisation(self, t: float) -> float:
        cycle = self.job_s + self.idle_s
        pos = (t + self.offset) % cycle
        if pos >= self.job_s:
            return 0.01  # between jobs: management traffic only
        phase = (pos % self.step_s) / self.step_s
        return 0.88 if phase < 0.45 else 0.08  # all-reduce burst, then compute


class Fabric:
    """Counters advance with wall time; snapshot(ts) is reproducible once taken."""

    def __init__(
        self, spec: FabricSpec, *, seed: int = 1, start_ns: int, history: int = 0
    ) -> None:
        self.topology: Topology = build(spec)
        self.spec = spec
        self.ports = self.topology.ports
        n = len(self.ports)
        self.rng = np.random.default_rng(seed)
        self.jobs = JobSchedule(seed)
        self.start_ns = start_ns
        self._acc = np.zeros((n, len(COUNTER_NAMES)), dtype=np.float64)
        # start from realistic non-zero totals so wraps of 32-bit views happen in long runs
        self._acc[:, COL["in_octets"]] = self.rng.uniform(1e12, 5e13, n)
        self._acc[:, COL["out_octets"]] = self.rng.uniform(1e12, 5e13, n)
        self._acc[:, COL["in_pkts"]] = self._acc[:, COL["in_octets"]] / MEAN_PKT_BYTES
        self._acc[:, COL["out_pkts"]] = self._acc[:, COL["out_octets"]] / MEAN_PKT_BYTES
        self._speed_Bps = np.array([p.speed_bps / 8 for p in self.ports])
        self._jitter = self.rng.uniform(0.9, 1.1, n)
        self._last_ns = start_ns
        self._oper_up = np.ones(n, dtype=bool)
        self._admin_up = np.ones(n, dtype=bool)
        self._lanes = np.full(n, LANES, dtype=np.int64)  # what each link trained to when it last came up
        self._retrain_until = np.full(n, -np.inf)  # fabric time a retraining link comes back up
        self.faults: list[Fault] = []
        self._lock = threading.Lock()
        self._snapshots: OrderedDict[int, Snapshot] = OrderedDict()
        self._keep = max(history, 4)
        self._by_device: dict[str, np.ndarray] = {
            d: np.array([p.index for p in dev.ports], dtype=np.int64)
            for d, dev in self.topology.devices.items()
        }
        self._port_index = {(p.device, p.name): p.index for p in self.ports}
        self.optics = Optics(n, seed)
        self._fec = np.zeros((n, 2), dtype=np.float64)  # FEC codewords corrected, uncorrectable

    def module(self, port: SimPort) -> dict[str, str]:
        """What the port's cage holds (the inventory a device reports)."""
        vendor, part = self.optics.vendor[port.index]
        return {"vendor": vendor, "part_number": part, "serial": self.optics.serial[port.index],
                "revision": "A", "firmware": "1.2.3", "module_type": "QSFP112" if port.speed_bps >= 400e9 else "QSFP28",
                "media": f"{port.speed_bps // 1_000_000_000}GBASE-SR{LANES}"}

    def _sync_aging(self) -> None:
        self.optics.aging = [Aging(self._fault_rows(f), f.start_s or 0.0, max(f.ramp, 1.0), min(max(f.lane, 1), LANES))
                             for f in self.faults if f.kind == "aging_optic"]

    # -- faults -------------------------------------------------------------------------
    def inject(self, fault: Fault) -> None:
        if fault.device not in self.topology.devices:
            raise ValueError(f"fault on unknown device {fault.device!r}")
        if fault.port is not None and (fault.device, fault.port) not in self._port_index:
            raise ValueError(f"fault on unknown port {fault.device}:{fault.port}")
        with self._lock:
            if fault.kind == "aging_optic" and fault.start_s is None:
                fault = dataclasses.replace(fault, start_s=(self._last_ns - self.start_ns) / 1e9)
            self.faults.append(fault)
            self._sync_aging()

    def clear_faults(self, device: str | None = None) -> int:
        with self._lock:
            before = len(self.faults)
            self.faults = [f for f in self.faults if device is not None and f.device != device]
            self._sync_aging()
            return before - len(self.faults)

    def device_faults(self, device: str, kind: str) -> list[Fault]:
        return [f for f in self.faults if f.device == device and f.kind == kind]

    def _fault_rows(self, f: Fault) -> np.ndarray:
        if f.port is not None:
            return np.array([self._port_index[(f.device, f.port)]])
        return self._by_device[f.device]

    # -- dynamics -----------------------------------------------------------------------
    def _advance(self, ts_ns: int) -> None:
        if ts_ns <= self._last_ns:
            return
        remaining = (ts_ns - self._last_ns) / 1e9
        t = (self._last_ns - self.start_ns) / 1e9
        while remaining > 0:  # integrate in steps of at most 1 s so bursts show up
            dt = min(1.0, remaining)
            self._step(t + dt / 2, dt)
            t += dt
            remaining -= dt
        self._last_ns = ts_ns

    def _step(self, t: float, dt: float) -> None:
        n = len(self.ports)
        acc = self._acc
        rng = self.rng
        util = self.jobs.utilisation(t) * self._jitter * rng.uniform(0.97, 1.03, n)
        up = np.ones(n, dtype=bool)
        flapping = np.zeros(n, dtype=bool)
        shut = np.zeros(n, dtype=bool)
        for f in self.faults:
            if f.kind == "flap":
                flapping[self._fault_rows(f)] = True
            elif f.kind == "shutdown":
                shut[self._fault_rows(f)] = True
        # a port shut by an operator goes down once (one transition) and stays down until enabled
        going = shut & self._oper_up
        acc[going, COL["link_transitions"]] += 1
        self._oper_up[going] = False
        self._admin_up[:] = ~shut
        flapping |= shut  # kept down below, and brought back up when the shutdown is cleared
        # a link up on other lanes than it would train to now (a `retrained` fault injected, or cleared)
        # goes down, retrains for RETRAIN_S and comes back up on those: one bounce
        lanes = np.full(n, LANES, dtype=np.int64)
        for f in self.faults:
            if f.kind == "retrained":
                rows = self._fault_rows(f)
                lanes[rows] = np.minimum(lanes[rows], f.lanes)
        stale = self._oper_up & (self._lanes != lanes) & (self._retrain_until <= t)
        self._retrain_until[stale] = t + RETRAIN_S
        retraining = self._retrain_until > t
        going = retraining & self._oper_up
        acc[going, COL["link_transitions"]] += 1
        self._oper_up[going] = False
        flapping |= retraining
        was_up = self._oper_up.copy()
        # a link whose flap fault was cleared comes back up (and that is one more transition)
        recovered = ~flapping & ~self._oper_up
        acc[recovered, COL["link_transitions"]] += 1
        self._oper_up[recovered] = True
        for f in self.faults:
            if f.kind == "flap":
                rows = self._fault_rows(f)
                want_up = (t % f.period) < f.period * 0.6
                changed = self._oper_up[rows] != want_up
                acc[rows[changed], COL["link_transitions"]] += 1
                self._oper_up[rows] = want_up
        self._oper_up[shut] = False
        came_up = self._oper_up & ~was_up
        self._lanes[came_up] = lanes[came_up]  # a link trains to what it can when it comes up
        up &= self._oper_up
        util = np.where(up, util, 0.0)
        speed_Bps = self._speed_Bps * (self._lanes / LANES)  # its traffic capped to what it trained to
        for f in self.faults:
            if f.kind == "pfc_storm":  # the peer stuck pausing: what this port sends it stops
                util[self._fault_rows(f)] *= 0.005
        octets = util * speed_Bps * dt
        pkts = octets / MEAN_PKT_BYTES
        congestion = np.clip(util - 0.6, 0.0, None)  # queues build above ~60 % load
        ecn_factor = np.ones(n)
        pause_factor = np.ones(n)
        discard = np.zeros(n)
        xwait = congestion * 2e6 * dt
        ber = np.zeros(n)
        storm = np.zeros(n)
        for f in self.faults:
            rows = self._fault_rows(f)
            if f.kind == "ecn_off":
                ecn_factor[rows] = 0.0
                pause_factor[rows] = 6.0
            elif f.kind == "congested":
                discard[rows] += pkts[rows] * 2e-4 + 50 * dt
                xwait[rows] += 5e7 * dt
                pause_factor[rows] = 4.0
            elif f.kind == "ber":
                ber[rows] += f.rate * dt * (1 + t / 600.0)
            elif f.kind == "pfc_storm":
                storm[rows] += 30000 * dt
        pfc = pkts * congestion * 2e-4 * pause_factor
        acc[:, COL["in_octets"]] += octets
        acc[:, COL["out_octets"]] += octets * rng.uniform(0.98, 1.0, n)
        acc[:, COL["in_pkts"]] += pkts
        acc[:, COL["out_pkts"]] += pkts
        acc[:, COL[f"pfc_rx_p{ROCE_PRIORITY}"]] += pfc
        acc[:, COL[f"pfc_tx_p{ROCE_PRIORITY}"]] += pfc * 0.8 + storm
        for f in self.faults:
            if f.kind == "pfc_storm" and f.priority != ROCE_PRIORITY:
                acc[self._fault_rows(f), COL[f"pfc_tx_p{f.priority}"]] += 30000 * dt
        acc[:, COL["ecn_marked"]] += pkts * congestion * 3e-3 * ecn_factor
        acc[:, COL["out_discards"]] += discard
        acc[:, COL["xmit_wait"]] += xwait
        # the FEC corrects a trickle on every link, idle or busy (the PHY codes idles too); an optic
        # past the FEC limit lets errors through: uncorrectable codewords, then FCS and symbol errors
        if self.optics.aging:
            ber_now = self.optics.pre_fec_ber(t)
            failing = self.optics.failing(t)
        else:
            ber_now, failing = self.optics.ber, None
        codewords = speed_Bps * 8 / CODEWORD_BITS * dt
        self._fec[:, 0] += np.minimum(ber_now * speed_Bps * 8 * dt, codewords)
        if failing is not None and failing.any():
            over = np.clip(ber_now[failing] / FEC_LIMIT_BER, 1.0, 10.0)
            self._fec[failing, 1] += 1e-7 * codewords[failing] * over
            ber[failing] += 20.0 * dt * over
        # rare background errors everywhere, plus injected bit errors
        background = rng.poisson(1e-4 * dt, n).astype(np.float64)
        acc[:, COL["symbol_errors"]] += background + ber
        acc[:, COL["fcs_errors"]] += background + ber * 0.3
        acc[:, COL["in_errors"]] += background + ber * 0.3

    def snapshot(self, ts_ns: int) -> Snapshot:
        """All counters at ts_ns; the same ts always gives the same snapshot while it is kept."""
        with self._lock:
            snap = self._snapshots.get(ts_ns)
            if snap is not None:
                return snap
            self._advance(ts_ns)
            snap = Snapshot(ts_ns, np.floor(self._acc).astype(np.uint64), self._oper_up.copy(),
                            self._admin_up.copy(), np.floor(self._fec).astype(np.uint64),
                            self.optics.dom((ts_ns - self.start_ns) / 1e9), self._lanes.copy())
            self._snapshots[ts_ns] = snap
            while len(self._snapshots) > self._keep:
                self._snapshots.popitem(last=False)
            return snap

    def kept_snapshots(self) -> list[Snapshot]:
        with self._lock:
            return list(self._snapshots.values())

    def is_dead(self, device: str) -> bool:
        return any(f.device == device and f.kind == "dead" for f in self.faults)


def align(ts_ns: int, interval_s: float) -> int:
    """The next multiple of interval after ts (sample ticks are aligned across devices)."""
    step = max(1, int(interval_s * 1e9))
    return int(math.ceil(ts_ns / step) * step)
