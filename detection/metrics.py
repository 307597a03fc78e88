"""Self-metrics of the link detector: scores, active findings, conditions, per-group aggregates."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from fabricwatch.detection.service import DetectorService


class DetectorMetrics(Collector):
    def __init__(self, service: DetectorService) -> None:
        self.service = service

    def collect(self) -> Iterator[Metric]:
        det = self.service
        score = GaugeMetricFamily("fabricwatch_link_anomaly_score",
                                  "Anomaly score of the last interval, relative to the class threshold (> 1 is over)",
                                  labels=["device", "port"])
        flagged = GaugeMetricFamily("fabricwatch_link_flagged", "1 while a finding is active on the link",
                                    labels=["device", "port", "severity", "source"])
        active = det.active
        for (device, port), value in det.scores.items():
            if det.cfg.link_metrics == "all" or (device, port) in active:
                score.add_metric([device, port], value)
        for f in active.values():
            flagged.add_metric([f.device, f.port, f.severity, f.source], 1.0)
        cond = GaugeMetricFamily("fabricwatch_link_condition",
                                 "1 while a condition holds on a link: anomaly, ecn_missing, pause_storm, flap, "
                                 "link_down, saturated, buffer_overrun, corruption, path_loss, speed_degraded, "
                                 "retrained_lower, "
                                 "gone_quiet, link_left_down, outlier_in_group, drops_alone, stalled_switch, "
                                 "ecn_excess, trend; "
                                 "the optics' fec_uncorrectable, ber_high, ber_rising, rx_power_low, module_hot, "
                                 "lane_outlier",
                                 labels=["device", "port", "rail", "role", "condition"])
        for f in active.values():
            rail, role = det.groups.get((f.device, f.port), ("", ""))
            for c in f.conditions:
                cond.add_metric([f.device, f.port, rail, role, c], 1.0)
        yield cond
        # per rail and role: what a 100k-port fabric exposes with link_metrics = "flagged"
        group_max = GaugeMetricFamily("fabricwatch_link_anomaly_score_max",
                                      "Highest anomaly score of the last interval per rail and role",
                                      labels=["rail", "role"])
        group_flagged = GaugeMetricFamily("fabricwatch_links_flagged_by_group",
                                          "Links with an active finding per rail and role", labels=["rail", "role"])
        maxes: dict[tuple[str, str], float] = {}
        counts: dict[tuple[str, str], int] = {}
        for key, value in det.scores.items():
            g = det.groups.get(key, ("", ""))
            maxes[g] = max(maxes.get(g, value), value)
            counts.setdefault(g, 0)
        for key in active:
            g = det.groups.get(key, ("", ""))
            counts[g] = counts.get(g, 0) + 1
        for (rail, role), value in maxes.items():
            group_max.add_metric([rail, role], value)
        for (rail, role), n in counts.items():
            group_flagged.add_metric([rail, role], n)
        yield group_max
        yield group_flagged
        by_sev = GaugeMetricFamily("fabricwatch_links_flagged", "Links with an active finding", labels=["severity"])
        for sev in ("warning", "critical"):
            by_sev.add_metric([sev], sum(1 for f in active.values() if f.severity == sev))
        intervals = CounterMetricFamily("fabricwatch_detector_intervals", "Intervals scored")
        intervals.add_metric([], det.intervals)
        late = CounterMetricFamily("fabricwatch_detector_late_parts",
                                   "Parts of samples stamped before the interval their link was folding: left out")
        late.add_metric([], det.aggregator.late)
        seconds = GaugeMetricFamily("fabricwatch_detector_last_interval_seconds",
                                    "Wall time to score the last interval")
        seconds.add_metric([], det.last_seconds)
        mode = GaugeMetricFamily("fabricwatch_detector_mode", "1 for the mode in use", labels=["mode"])
        mode.add_metric([det.mode], 1.0)
        clock = GaugeMetricFamily("fabricwatch_device_clock_offset_seconds",
                                  "This host's clock minus a device's, for devices whose timestamps stray beyond an "
                                  "interval (placed by arrival for detection)", labels=["device"])
        for device, offset in det.clocks.offsets_ns.items():
            clock.add_metric([device], offset / 1e9)
        yield from (score, flagged, by_sev, intervals, late, clock, seconds, mode)
