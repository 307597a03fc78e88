"""Self-metrics of NCCL acceptance: runs ingested and refused, last plateau, gate, run-to-run CV."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from fabricwatch.nccl.service import NcclService


class NcclMetrics(Collector):
    def __init__(self, service: NcclService) -> None:
        self.service = service

    def collect(self) -> Iterator[Metric]:
        svc = self.service
        runs = CounterMetricFamily("fabricwatch_nccl_runs_ingested", "NCCL test runs ingested")
        runs.add_metric([], svc.ingested_runs)
        rejected = CounterMetricFamily("fabricwatch_nccl_rejected",
                                       "NCCL inputs refused, by source (upload, mqtt, watch) and reason "
                                       "(parse, empty, too_large, auth, cross_site, busy, slow_body, incomplete, read, "
                                       "internal)",
                                       labels=["source", "reason"])
        for (source, reason), n in sorted(svc.rejected_by.items()):
            rejected.add_metric([source, reason], n)
        overflow = CounterMetricFamily("fabricwatch_nccl_groups_overflow",
                                       "Runs whose (collective, ranks) group was beyond the kept number of groups")
        overflow.add_metric([], svc.overflow)
        plateau = GaugeMetricFamily("fabricwatch_nccl_last_busbw_gbps",
                                    "Large-message busbw plateau of the last run (GB/s)",
                                    labels=["collective", "nranks"])
        flagged = GaugeMetricFamily("fabricwatch_nccl_last_flagged_rows",
                                    "Rows of the last run that failed the consistency checks",
                                    labels=["collective", "nranks"])
        when = GaugeMetricFamily("fabricwatch_nccl_last_run_timestamp_seconds", "When the last run was ingested",
                                 labels=["collective", "nranks"])
        for (coll, ranks), (bw, nflag, ts) in svc.last.items():
            plateau.add_metric([coll, "" if ranks is None else str(ranks)], bw)
            flagged.add_metric([coll, "" if ranks is None else str(ranks)], nflag)
            when.add_metric([coll, "" if ranks is None else str(ranks)], ts)
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
        for (coll, ranks), value in svc.cv_pct.items():
            cv.add_metric([coll, "" if ranks is None else str(ranks)], value)
        for (coll, ranks), value in svc.flagged_runs.items():
            bad.add_metric([coll, "" if ranks is None else str(ranks)], value)
        yield from (runs, rejected, overflow, plateau, flagged, when, gate, cv, bad)
