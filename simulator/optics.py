"""Transceivers of the simulated fabric: DOM that drifts a little, FEC that corrects a steady trickle,
and optics that age (pre-FEC BER climbing for hours, a lane's receive power sagging, the module
heating) until errors get through the FEC and the link fails.

Deterministic for a seed; its own random stream, so traffic is the same with or without optics."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

LANES = 4
FEC_LIMIT_BER = 2.4e-4  # RS(544,514) "KP4": above this pre-FEC BER, codewords stop being correctable
HEALTHY_BER = 1e-9
CODEWORD_BITS = 5440
# (name, value) of the module thresholds every simulated QSFP carries (typical 100G/400G SR/DR datasheets)
THRESHOLDS = {
    "rx_power_dbm_low_alarm": -13.0, "rx_power_dbm_low_warn": -10.0,
    "rx_power_dbm_high_warn": 2.0, "rx_power_dbm_high_alarm": 4.0,
    "tx_power_dbm_low_alarm": -8.0, "tx_power_dbm_low_warn": -6.0,
    "tx_power_dbm_high_warn": 3.0, "tx_power_dbm_high_alarm": 5.0,
    "tx_bias_ma_low_alarm": 2.0, "tx_bias_ma_low_warn": 3.0, "tx_bias_ma_high_warn": 12.0,
    "tx_bias_ma_high_alarm": 15.0,
    "temperature_c_low_alarm": -5.0, "temperature_c_low_warn": 0.0, "temperature_c_high_warn": 70.0,
    "temperature_c_high_alarm": 75.0,
    "voltage_v_low_alarm": 2.97, "voltage_v_low_warn": 3.135, "voltage_v_high_warn": 3.465,
    "voltage_v_high_alarm": 3.63,
}
VENDORS = (("INNOLIGHT", "T-DP4CNT-NCI"), ("FINISAR", "FTCD4323E2PCL"), ("NVIDIA", "MMA4Z00-NS"))
# DOM columns of Optics.dom(): temperature, voltage, pre-FEC BER, then rx, tx, bias per lane
DOM_COLUMNS = ("temperature_c", "voltage_v", "pre_fec_ber",
               *(f"rx_power_dbm_l{n}" for n in range(1, LANES + 1)),
               *(f"tx_power_dbm_l{n}" for n in range(1, LANES + 1)),
               *(f"tx_bias_ma_l{n}" for n in range(1, LANES + 1)))


@dataclass(frozen=True)
class Aging:
    rows: np.ndarray  # port rows of the aging module (one port, or every port of a device)
    start_s: float  # fabric time the aging began
    ramp_s: float  # from healthy to the FEC limit
    lane: int  # the lane whose receive power sags (1-based)

    def progress(self, t: float) -> float:
        """0 at the start, 1 when pre-FEC BER reaches the FEC limit (and beyond)."""
        return max(0.0, (t - self.start_s) / self.ramp_s)


class Optics:
    def __init__(self, n: int, seed: int) -> None:
        rng = np.random.default_rng(seed + 7919)
        self.rng = rng
        self.n = n
        self.rx = rng.uniform(-2.6, -1.4, (n, LANES))  # each lane a little different, stable
        self.tx = rng.uniform(-1.2, 0.2, (n, LANES))
        self.bias = rng.uniform(6.0, 7.5, (n, LANES))
        self.temp = rng.uniform(34.0, 44.0, n)
        self.volt = rng.uniform(3.26, 3.34, n)
        self.ber = HEALTHY_BER * np.exp(rng.normal(0.0, 0.5, n))  # a healthy spread, roughly 1e-9
        self.serial = [f"SIM{seed:02d}{i:06d}" for i in range(n)]
        self.vendor = [VENDORS[i % len(VENDORS)] for i in range(n)]
        self.aging: list[Aging] = []

    def pre_fec_ber(self, t: float) -> np.ndarray:
        ber = self.ber.copy()
        for a in self.aging:
            p = a.progress(t)
            # log-linear: decades of BER per hour, what a degrading optic or a dirty connector does
            target = math.exp(math.log(HEALTHY_BER) + p * (math.log(FEC_LIMIT_BER) - math.log(HEALTHY_BER)))
            ber[a.rows] = np.maximum(ber[a.rows], target)
        return ber

    def dom(self, t: float) -> np.ndarray:
        """(ports, DOM_COLUMNS) at fabric time t: the stable values plus a little reading noise."""
        noise = self.rng.normal(0.0, 1.0, (self.n, 3 * LANES + 2))
        rx = self.rx + 0.05 * noise[:, :LANES]
        tx = self.tx + 0.03 * noise[:, LANES:2 * LANES]
        bias = self.bias + 0.02 * noise[:, 2 * LANES:3 * LANES]
        temp = self.temp + 0.2 * noise[:, -2]
        volt = self.volt + 0.002 * noise[:, -1]
        for a in self.aging:
            p = min(a.progress(t), 1.5)
            rx[a.rows, a.lane - 1] -= 9.0 * p  # that lane's light fades toward the alarm level
            temp[a.rows] += 30.0 * p  # and the module runs hot
            bias[a.rows, a.lane - 1] += 3.0 * p  # the laser driver pushes harder
        return np.column_stack([temp, volt, self.pre_fec_ber(t), rx, tx, bias])

    def failing(self, t: float) -> np.ndarray:
        """Rows past the FEC limit: their errors get through (FCS, symbol errors, uncorrectable)."""
        out = np.zeros(self.n, dtype=bool)
        for a in self.aging:
            if a.progress(t) >= 1.0:
                out[a.rows] = True
        return out
