"""Self-metrics of a cluster member: what it sees of the cluster and of etcd."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from fabricwatch.cluster.member import ClusterMember


class ClusterMetrics(Collector):
    def __init__(self, member: ClusterMember) -> None:
        self.member = member

    def collect(self) -> Iterator[Metric]:
        m = self.member
        up = GaugeMetricFamily("fabricwatch_cluster_etcd_up", "1 if etcd answered this member's last tick")
        up.add_metric([], 1.0 if m.etcd_up else 0.0)
        yield up
        since = GaugeMetricFamily("fabricwatch_cluster_etcd_last_ok_age_seconds",
                                  "Seconds since etcd last answered a tick (-1: never)")
        since.add_metric([], time.monotonic() - m.last_ok if m.last_ok is not None else -1.0)
        yield since
        members = GaugeMetricFamily("fabricwatch_cluster_members", "Live members, as last read from etcd")
        members.add_metric([], len(m.view.members))
        yield members
        owned = GaugeMetricFamily("fabricwatch_cluster_targets_polled", "Targets this member polls")
        owned.add_metric([], len(m.targets.polling()))
        yield owned
        total = GaugeMetricFamily("fabricwatch_cluster_targets_configured", "Targets in this member's config")
        total.add_metric([], len(m.targets.all_targets()))
        yield total
        unreadable = GaugeMetricFamily("fabricwatch_cluster_unreadable_keys",
                                       "Keys under the cluster's prefix no member wrote (not UTF-8, not a "
                                       "registration), skipped in the last view")
        unreadable.add_metric([], m.unreadable_keys)
        yield unreadable
        conflict = GaugeMetricFamily("fabricwatch_cluster_name_conflict",
                                     "1 while another process is registered under this member's name (this one "
                                     "polls nothing)")
        conflict.add_metric([], 0.0 if m.name_conflict is None else 1.0)
        yield conflict
        for name, value, text in (
                ("fabricwatch_cluster_ticks", m.ticks, "Ticks (renew the lease, read the members, take and give)"),
                ("fabricwatch_cluster_failed_ticks", m.failed_ticks, "Ticks etcd did not answer"),
                ("fabricwatch_cluster_takeovers", m.takeovers, "Targets taken from another member"),
                ("fabricwatch_cluster_handovers", m.handovers, "Targets given to another member"),
                ("fabricwatch_cluster_registrations", m.registrations,
                 "Times this member registered (more than 1: its lease expired while etcd was away)"),
                ("fabricwatch_cluster_etcd_errors", m.etcd.errors, "etcd calls that failed on an endpoint"),
                ("fabricwatch_cluster_etcd_auth_failures", m.auth_failures,
                 "Ticks etcd refused this member's user, password or role permissions")):
            c = CounterMetricFamily(name, text)
            c.add_metric([], value)
            yield c
