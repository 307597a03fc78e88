"""fabricwatch's own metrics, on its own CollectorRegistry (never the global one).

Hot-path numbers live in plain counters on the components (targets, rate engine, sinks) and
are read here at scrape time, so collecting costs nothing per sample.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from fabricwatch.daemon.status import TargetStatus
from fabricwatch.pipeline.rates import RateStats


class SinkLike(Protocol):
    name: str
    kind: str
    stats: Any
    spool: Any

    @property
    def queue_depth(self) -> int: ...


class _StateCollector(Collector):
    def __init__(self, source: Callable[[], tuple[Iterable[TargetStatus], RateStats, Iterable[SinkLike]]]) -> None:
        self.source = source

    def collect(self) -> Iterator[Metric]:
        targets, rates, sinks = self.source()
        targets = list(targets)
        up = GaugeMetricFamily("fabricwatch_target_up", "1 if the target's session delivers data",
                               labels=["collector", "name", "device"])
        last = GaugeMetricFamily("fabricwatch_target_last_update_timestamp_seconds",
                                 "Unix time of the last batch from the target",
                                 labels=["collector", "name", "device"])
        samples = CounterMetricFamily("fabricwatch_samples_ingested", "Port samples ingested",
                                      labels=["collector", "name", "device"])
        values = CounterMetricFamily("fabricwatch_counter_values_ingested",
                                     "Counter values ingested", labels=["collector", "name", "device"])
        unmapped = CounterMetricFamily("fabricwatch_unmapped_updates",
                                       "Updates whose path maps to no canonical counter",
                                       labels=["collector", "name", "device"])
        connects = CounterMetricFamily("fabricwatch_target_connects", "Sessions opened",
                                       labels=["collector", "name", "device"])
        errors = CounterMetricFamily("fabricwatch_target_errors", "Target failures by kind",
                                     labels=["collector", "name", "device", "kind"])
        activity = CounterMetricFamily("fabricwatch_target_activity",
                                       "What a collector counts of its own work: polls, requests, "
                                       "undecodable datagrams, rows read, overruns, name refreshes",
                                       labels=["collector", "name", "device", "what"])
        for t in targets:
            lbl = [t.collector, t.name, t.device]
            up.add_metric(lbl, 1.0 if t.up else 0.0)
            last.add_metric(lbl, t.last_update_unix)
            samples.add_metric(lbl, t.samples)
            values.add_metric(lbl, t.values)
            unmapped.add_metric(lbl, t.unmapped)
            connects.add_metric(lbl, t.connects)
            for kind, n in t.errors.items():
                errors.add_metric([*lbl, kind], n)
            for what, count in t.activity.items():
                activity.add_metric([*lbl, what], count)
        yield from (up, last, samples, values, unmapped, connects, errors, activity)

        pipe = CounterMetricFamily("fabricwatch_pipeline_events",
                                   "Rate-engine events: wraps, resets, reboots, gaps, out-of-order, saturations",
                                   labels=["event"])
        for event in ("wraps", "resets", "reboots", "gaps", "out_of_order", "saturated"):
            pipe.add_metric([event], getattr(rates, event))
        yield pipe

        depth = GaugeMetricFamily("fabricwatch_sink_queue_points", "Points waiting (memory + spool)",
                                  labels=["sink"])
        spool_bytes = GaugeMetricFamily("fabricwatch_spool_bytes", "Bytes in the on-disk spool",
                                        labels=["sink"])
        spool_points = GaugeMetricFamily("fabricwatch_spool_points", "Points in the on-disk spool",
                                         labels=["sink"])
        written = CounterMetricFamily("fabricwatch_points_written", "Points the server accepted",
                                      labels=["sink"])
        retried = CounterMetricFamily("fabricwatch_points_retried",
                                      "Points in sends that failed and were retried", labels=["sink"])
        dropped = CounterMetricFamily("fabricwatch_points_dropped",
                                      "Points lost: spool bound reached or rejected by the server",
                                      labels=["sink", "reason"])
        werr = CounterMetricFamily("fabricwatch_sink_write_errors", "Failed writes by status",
                                   labels=["sink", "status"])
        success = GaugeMetricFamily("fabricwatch_sink_last_success_timestamp_seconds",
                                    "Unix time of the last accepted write", labels=["sink"])
        for s in sinks:
            depth.add_metric([s.name], s.queue_depth)
            spool_bytes.add_metric([s.name], s.spool.pending_bytes)
            spool_points.add_metric([s.name], s.spool.pending_points)
            written.add_metric([s.name], s.stats.points_written)
            retried.add_metric([s.name], s.stats.points_retried)
            dropped.add_metric([s.name, "spool_full"], s.spool.stats.dropped_points)
            dropped.add_metric([s.name, "rejected"], s.stats.points_rejected)
            for status, n in s.stats.write_errors.items():
                werr.add_metric([s.name, status], n)
            success.add_metric([s.name], s.stats.last_success_unix)
        yield from (depth, spool_bytes, spool_points, written, retried, dropped, werr, success)


class _DetectorCollector(Collector):
    def __init__(self, source: Callable[[], Any]) -> None:
        self.source = source

    def collect(self) -> Iterator[Metric]:
        det = self.source()
        if det is None:
            return
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
                                 "link_down, saturated, buffer_overrun",
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
        seconds = GaugeMetricFamily("fabricwatch_detector_last_interval_seconds",
                                    "Wall time to score the last interval")
        seconds.add_metric([], det.last_seconds)
        mode = GaugeMetricFamily("fabricwatch_detector_mode", "1 for the mode in use", labels=["mode"])
        mode.add_metric([det.mode], 1.0)
        yield from (score, flagged, by_sev, intervals, seconds, mode)


class _NcclCollector(Collector):
    def __init__(self, source: Callable[[], Any]) -> None:
        self.source = source

    def collect(self) -> Iterator[Metric]:
        svc = self.source()
        if svc is None:
            return
        runs = CounterMetricFamily("fabricwatch_nccl_runs_ingested", "NCCL test runs ingested")
        runs.add_metric([], svc.ingested_runs)
        rejected = CounterMetricFamily("fabricwatch_nccl_rejected", "NCCL uploads or messages refused")
        rejected.add_metric([], svc.rejected)
        plateau = GaugeMetricFamily("fabricwatch_nccl_last_busbw_gbps",
                                    "Large-message busbw plateau of the last run (GB/s)",
                                    labels=["collective", "nranks"])
        flagged = GaugeMetricFamily("fabricwatch_nccl_last_flagged_rows",
                                    "Rows of the last run that failed the consistency checks",
                                    labels=["collective", "nranks"])
        when = GaugeMetricFamily("fabricwatch_nccl_last_run_timestamp_seconds", "When the last run was ingested",
                                 labels=["collective", "nranks"])
        for (coll, n), (bw, nflag, ts) in svc.last.items():
            plateau.add_metric([coll, str(n)], bw)
            flagged.add_metric([coll, str(n)], nflag)
            when.add_metric([coll, str(n)], ts)
        gate = GaugeMetricFamily("fabricwatch_nccl_gate_passed",
                                 "1 if the recent runs pass the operator's threshold check, 0 if not", labels=["check"])
        for check, passed in svc.gate_passed.items():
            gate.add_metric([check], 1.0 if passed else 0.0)
        cv = GaugeMetricFamily("fabricwatch_nccl_run_to_run_cv_pct",
                               "Worst run-to-run coefficient of variation of busbw over the recent runs (%)",
                               labels=["collective", "nranks"])
        bad = GaugeMetricFamily("fabricwatch_nccl_runs_flagged",
                                "Recent runs flagged by the variance analysis (slow, stalled, scaling)",
                                labels=["collective", "nranks"])
        for (coll, n), value in svc.cv_pct.items():
            cv.add_metric([coll, str(n)], value)
        for (coll, n), value in svc.flagged_runs.items():
            bad.add_metric([coll, str(n)], value)
        yield from (runs, rejected, plateau, flagged, when, gate, cv, bad)


class SelfMetrics:
    def __init__(
        self, source: Callable[[], tuple[Iterable[TargetStatus], RateStats, Iterable[SinkLike]]],
        *, detector: Callable[[], Any] | None = None, nccl: Callable[[], Any] | None = None,
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_StateCollector(source))
        if nccl is not None:
            self.registry.register(_NcclCollector(nccl))
        if detector is not None:
            self.registry.register(_DetectorCollector(detector))
        self.batch_seconds = Histogram(
            "fabricwatch_batch_processing_seconds",
            "Time to run one batch through the pipeline and hand it to the sinks",
            ["collector"],
            buckets=(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0),
            registry=self.registry,
        )
        self.poll_seconds = Histogram(
            "fabricwatch_session_seconds",
            "How long a target session lasted before it ended or failed",
            ["collector"],
            buckets=(1, 10, 60, 600, 3600, 86400),
            registry=self.registry,
        )

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
