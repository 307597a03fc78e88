"""The composition: one function builds every component of the daemon from its config and hands each
the narrow protocols it uses (the pipeline, the sinks as one, the target tasks...), never the runtime."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from fabricwatch.cluster.member import ClusterMember
from fabricwatch.cluster.metrics import ClusterMetrics
from fabricwatch.core.protocols import Collector, EventSink, StorageSink
from fabricwatch.core.supervise import Supervised
from fabricwatch.core.topology import Topology
from fabricwatch.daemon.config import Config
from fabricwatch.daemon.discovery import TopologyKeeper, TopologyMetrics
from fabricwatch.daemon.forgetting import Forgetting
from fabricwatch.daemon.health import Health
from fabricwatch.daemon.http import HttpServer
from fabricwatch.daemon.http_metrics import HttpMetrics
from fabricwatch.daemon.ingest import Ingest
from fabricwatch.daemon.metrics import SelfMetrics
from fabricwatch.daemon.outputs import Outputs
from fabricwatch.daemon.sharding import owns
from fabricwatch.daemon.status import ServiceMetrics, TargetMetrics, TargetStatus
from fabricwatch.daemon.target_tasks import TargetTasks
from fabricwatch.daemon.targets import Emit
from fabricwatch.daemon.worker_metrics import WorkerMetrics
from fabricwatch.daemon.worker_pool import WorkerPool
from fabricwatch.detection.metrics import DetectorMetrics
from fabricwatch.detection.service import DetectorService
from fabricwatch.nccl.metrics import NcclMetrics
from fabricwatch.nccl.service import NcclService
from fabricwatch.pipeline.history import LinkHistory
from fabricwatch.pipeline.metrics import RateMetrics, RefusedSampleMetrics
from fabricwatch.pipeline.pipeline import LinkEvent, Pipeline
from fabricwatch.sinks.influxdb.sink import InfluxSink
from fabricwatch.slurm.metrics import SlurmMetrics
from fabricwatch.slurm.service import SlurmService

log = logging.getLogger("fabricwatch.runner")
S = TypeVar("S", StorageSink, EventSink)


def build_collectors(config: Config) -> list[Collector]:
    """Every collector target of the config that this daemon's shard owns (in a cluster: every
    target; the cluster says which this member polls)."""
    k, n = config.daemon.shard_k_n
    out: list[Collector] = []
    for _kind, section in config.collector_configs():
        for collector in section.build():
            if owns(collector.device, k, n):
                out.append(collector)
    return out


def load_topology(config: Config) -> Topology:
    if config.daemon.topology is None or config.daemon.topology == "discover":
        return Topology()  # "discover": the TopologyKeeper fills it from the fabric
    return Topology.load(config.daemon.topology)


@dataclass
class Current:
    """The config now: SIGHUP replaces it, and what reads settings late reads them through here."""

    config: Config


@dataclass
class Components:
    """What the runtime runs: built and wired by `compose`, started and stopped by the runner."""

    current: Current
    pipeline: Pipeline
    outputs: Outputs
    ingest: Ingest
    targets: dict[str, TargetStatus]
    tasks: TargetTasks
    forgetting: Forgetting
    nccl: NcclService
    detector: DetectorService | None
    slurm: SlurmService | None
    topology_keeper: TopologyKeeper | None
    cluster: ClusterMember | None
    pool: WorkerPool | None
    services: list[Supervised]  # what runs beside the targets; a crash in one is counted and restarted
    health: Health
    metrics: SelfMetrics
    http: HttpServer


def compose(config: Config, *, listen: str | None = None) -> Components:
    current = Current(config)
    listen = listen or config.daemon.listen
    pc = config.pipeline
    history = LinkHistory(step_s=pc.history_step, slots=round(pc.history / pc.history_step)) \
        if pc.history else None
    pipeline = Pipeline(topology=load_topology(config), max_gap_s=pc.max_gap, history=history,
                        max_ports_per_device=pc.max_ports_per_device)
    # storage sinks take line protocol; event sinks (MQTT) take events
    outputs = Outputs([s.build() for s in config.storage_sink_configs()],
                      [s.build() for s in config.event_sink_configs()])
    emit = outputs.emit
    # Slurm: the jobs a finding hurts (the detector's context), drains after each interval (its observer)
    slurm = SlurmService(config.slurm, lambda: pipeline.topology, emit=emit, write=outputs.write) \
        if config.slurm.enabled else None
    detector: DetectorService | None = None
    if config.detector.enabled:
        detector = DetectorService(config.detector, outputs.write, emit=emit, context=slurm, observer=slurm)
        pipeline.on_rates = detector.add
    nccl = NcclService(config.nccl, outputs.write, config.daemon.site, emit=emit)
    pipeline.on_event = _link_state(emit)
    metrics = SelfMetrics()
    targets: dict[str, TargetStatus] = {}
    ingest = Ingest(pipeline, outputs.write, metrics.batch_seconds, targets)
    forgetting = Forgetting(pipeline, detector, lambda: current.config.pipeline.forget_after)

    def polled(kind: str, seconds: float) -> None:
        metrics.poll_seconds.labels(kind).observe(seconds)

    pool: WorkerPool | None = None
    if config.daemon.worker_count > 1:  # the workers are handed the running config, not the file
        pool = WorkerPool(config, statuses=targets, handle=ingest.from_worker, emit=emit, polled=polled)
    tasks = TargetTasks(targets, ingest=ingest, emit=emit, polled=polled, forget=forgetting.target, workers=pool)
    services = [Supervised("nccl-watch", nccl.watch), Supervised("nccl-mqtt", nccl.subscribe),
                Supervised("expire-ports", forgetting.run)]
    if detector is not None:
        services.append(Supervised("detector", detector.run))
    if slurm is not None:
        services += [Supervised("slurm-jobs", slurm.run), Supervised("slurm-actions", slurm.act)]
    keeper: TopologyKeeper | None = None
    if config.daemon.topology == "discover":
        keeper = TopologyKeeper(lambda: (s for _, s in current.config.collector_configs()),
                                lambda: current.config.daemon.topology_every, pipeline, outputs.write)
        services.append(Supervised("topology-discover", keeper.run))
    cluster: ClusterMember | None = None
    if config.cluster.enabled:
        cluster = ClusterMember(config.cluster, tasks, listen=listen)
        services.append(Supervised("cluster", cluster.run))

    def supervised() -> list[Supervised]:
        """Every supervised task: the services beside the targets and each sink's own."""
        return [*services, *outputs.tasks()]

    health = Health(supervised, [p for p in (pool, cluster) if p is not None])
    http = HttpServer(listen, settings=lambda: current.config.daemon, max_upload_bytes=config.nccl.max_upload_bytes,
                      health=health, metrics=metrics, targets=targets, links=pipeline, findings=detector,
                      storage=[s for s in outputs.storage if isinstance(s, InfluxSink)], uploads=nccl,
                      cluster=cluster)
    metrics.register(TargetMetrics(targets.values))
    metrics.register(ServiceMetrics(supervised))
    metrics.register(RateMetrics(pipeline.rates.stats))
    metrics.register(RefusedSampleMetrics(pipeline.refused_samples))
    for group in _by_kind(outputs.storage) + _by_kind(outputs.events):
        metrics.register(type(group[0]).metrics(group))
    metrics.register(NcclMetrics(nccl))
    if keeper is not None:
        metrics.register(TopologyMetrics(keeper))
    if detector is not None:
        metrics.register(DetectorMetrics(detector))
    if slurm is not None:
        metrics.register(SlurmMetrics(slurm))
    if cluster is not None:
        metrics.register(ClusterMetrics(cluster))
    if pool is not None:
        metrics.register(WorkerMetrics(pool))
    metrics.register(HttpMetrics(http.refused))
    return Components(current=current, pipeline=pipeline, outputs=outputs, ingest=ingest, targets=targets,
                      tasks=tasks, forgetting=forgetting, nccl=nccl, detector=detector, slurm=slurm,
                      topology_keeper=keeper, cluster=cluster, pool=pool, services=services, health=health,
                      metrics=metrics, http=http)


def _link_state(emit: Emit) -> Callable[[LinkEvent], None]:
    """The pipeline's link events (down, up, flap...) as `link_state` events."""

    def on_event(ev: LinkEvent) -> None:
        emit("link_state", {"device": ev.device, "port": ev.port, "event": ev.kind, "detail": ev.detail,
                            "event_time_ns": ev.ts_ns,
                            **{k: v for k, v in ev.tags.items() if k not in ("device", "port")}})

    return on_event


def _by_kind(sinks: Sequence[S]) -> list[list[S]]:
    """Sinks grouped by the metrics collector their class names, in config order: kinds that share one (the
    batching sinks) register it once, or their series would be exposed twice."""
    groups: dict[object, list[S]] = {}
    for s in sinks:
        metrics = type(s).metrics
        groups.setdefault(getattr(metrics, "__func__", metrics), []).append(s)
    return list(groups.values())
