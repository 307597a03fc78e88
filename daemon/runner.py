"""The runtime: one task per target in a TaskGroup, pipeline in between, sinks at the end.

SIGTERM/SIGINT: stop collecting, flush sinks, exit 0. SIGHUP: reload the config and apply
target changes; targets whose settings did not change keep their sessions.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from fabricwatch.cluster.member import ClusterMember
from fabricwatch.cluster.metrics import ClusterMetrics
from fabricwatch.core.batch import SampleBatch
from fabricwatch.core.protocols import Collector, EventSink, StorageSink
from fabricwatch.core.supervise import Supervised
from fabricwatch.core.topology import Topology
from fabricwatch.daemon import config as config_mod
from fabricwatch.daemon.config import Config, ConfigError
from fabricwatch.daemon.discovery import TopologyKeeper, TopologyMetrics
from fabricwatch.daemon.hardening import no_core_dumps
from fabricwatch.daemon.http import HttpServer
from fabricwatch.daemon.metrics import SelfMetrics
from fabricwatch.daemon.sdnotify import Notifier
from fabricwatch.daemon.sharding import owns
from fabricwatch.daemon.status import ServiceMetrics, TargetMetrics, TargetStatus
from fabricwatch.daemon.targets import account, run_target
from fabricwatch.daemon.worker_metrics import WorkerMetrics
from fabricwatch.daemon.worker_pool import WorkerPool
from fabricwatch.detection.metrics import DetectorMetrics
from fabricwatch.detection.service import DetectorService
from fabricwatch.nccl.metrics import NcclMetrics
from fabricwatch.nccl.service import NcclService
from fabricwatch.pipeline.history import LinkHistory
from fabricwatch.pipeline.metrics import RateMetrics, RefusedSampleMetrics
from fabricwatch.pipeline.pipeline import Pipeline
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


class Runner:
    def __init__(
        self, config: Config, *, config_path: Path | None = None, listen: str | None = None
    ) -> None:
        self.config = config
        self.config_path = config_path
        self.listen = listen or config.daemon.listen
        pc = config.pipeline
        history = LinkHistory(step_s=pc.history_step, slots=round(pc.history / pc.history_step)) \
            if pc.history else None
        self.pipeline = Pipeline(topology=load_topology(config), max_gap_s=pc.max_gap, history=history,
                                 max_ports_per_device=pc.max_ports_per_device)
        self._batch_timers: dict[str, Callable[[float], None]] = {}
        # storage sinks take line protocol; event sinks (MQTT) take events
        self.sinks: list[StorageSink] = [s.build() for s in config.storage_sink_configs()]
        self.event_sinks: list[EventSink] = [s.build() for s in config.event_sink_configs()]
        # Slurm: the jobs a finding hurts (the detector's context), drains after each interval (its observer)
        self.slurm: SlurmService | None = None
        if config.slurm.enabled:
            self.slurm = SlurmService(config.slurm, lambda: self.pipeline.topology, emit=self.emit)
        self.detector: DetectorService | None = None
        if config.detector.enabled:
            self.detector = DetectorService(config.detector, self._write_sinks, emit=self.emit,
                                            context=self.slurm, observer=self.slurm)
            self.pipeline.on_rates = self.detector.add
        self.nccl = NcclService(config.nccl, self._write_sinks, config.daemon.site, emit=self.emit)
        self.pipeline.on_event = lambda ev: self.emit("link_state", {
            "device": ev.device, "port": ev.port, "event": ev.kind, "detail": ev.detail,
            "event_time_ns": ev.ts_ns, **{k: v for k, v in ev.tags.items() if k not in ("device", "port")}})
        # what runs beside the targets; a crash in one is counted and restarted, never fatal
        self.services = [Supervised("nccl-watch", self.nccl.watch), Supervised("nccl-mqtt", self.nccl.subscribe),
                         Supervised("expire-ports", self._expire_ports)]
        if self.detector is not None:
            self.services.append(Supervised("detector", self.detector.run))
        if self.slurm is not None:
            self.services += [Supervised("slurm-jobs", self.slurm.run), Supervised("slurm-actions", self.slurm.act)]
        self.topology_keeper: TopologyKeeper | None = None
        if config.daemon.topology == "discover":
            self.topology_keeper = TopologyKeeper(self)
            self.services.append(Supervised("topology-discover", self.topology_keeper.run))
        self.targets: dict[str, TargetStatus] = {}
        self.metrics = SelfMetrics()
        self.metrics.register(TargetMetrics(lambda: list(self.targets.values())))
        self.metrics.register(ServiceMetrics(self.supervised))
        self.metrics.register(RateMetrics(self.pipeline.rates.stats))
        self.metrics.register(RefusedSampleMetrics(self.pipeline.refused_samples))
        for group in _by_kind(self.sinks) + _by_kind(self.event_sinks):
            self.metrics.register(type(group[0]).metrics(group))
        self.metrics.register(NcclMetrics(self.nccl))
        if self.topology_keeper is not None:
            self.metrics.register(TopologyMetrics(self.topology_keeper))
        if self.detector is not None:
            self.metrics.register(DetectorMetrics(self.detector))
        if self.slurm is not None:
            self.metrics.register(SlurmMetrics(self.slurm))
        self._tasks: dict[str, tuple[str, asyncio.Task[None]]] = {}
        self._configured: dict[str, Collector] = {}  # every target of the config, polled or not
        self.cluster: ClusterMember | None = None
        if config.cluster.enabled:
            self.cluster = ClusterMember(config.cluster, self, listen=self.listen)
            self.services.append(Supervised("cluster", self.cluster.run))
            self.metrics.register(ClusterMetrics(self.cluster))
        self.pool: WorkerPool | None = None
        if config.daemon.worker_count > 1:  # the workers are handed the running config, not the file
            self.pool = WorkerPool(config, statuses=self.targets, handle=self._from_worker, emit=self.emit,
                                   polled=lambda kind, s: self.metrics.poll_seconds.labels(kind).observe(s))
            self.metrics.register(WorkerMetrics(self.pool))
        self._stop = asyncio.Event()
        self._reload = asyncio.Event()
        self._tg: asyncio.TaskGroup | None = None
        self.http: HttpServer | None = None
        self.ready = False
        self.reloads = 0
        self.reload_failures = 0
        self.started_unix = time.time()
        self.notifier = Notifier()

    # -- lifecycle ---------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()

    @property
    def stopping(self) -> bool:
        """True once a stop was asked for (signal, --duration or stop())."""
        return self._stop.is_set()

    def request_reload(self) -> None:
        self._reload.set()

    async def run(self, *, install_signals: bool = True) -> int:
        loop = asyncio.get_running_loop()
        if install_signals:  # the process is the daemon's own (not a test's or the demo's host)
            no_core_dumps()
            loop.add_signal_handler(signal.SIGTERM, self.stop)
            loop.add_signal_handler(signal.SIGINT, self.stop)
            loop.add_signal_handler(signal.SIGHUP, self.request_reload)
        for sink in self.sinks + self.event_sinks:
            await sink.start()
        self.http = HttpServer(self, self.listen)
        await self.http.start()
        if self.pool is not None:
            await self.pool.start()
        try:
            async with asyncio.TaskGroup() as tg:
                self._tg = tg
                self._configured = {c.key: c for c in build_collectors(self.config)}
                if self.cluster is None:  # in a cluster, the member starts what it owns
                    for collector in self._configured.values():
                        self._start_target(collector)
                self.ready = True
                self.notifier.send("READY=1", f"STATUS=collecting from {len(self._tasks)} targets")
                watchdog_task = None
                if self.notifier.watchdog_s:
                    watchdog_task = tg.create_task(self._watchdog(self.notifier.watchdog_s), name="watchdog")
                log.info("fabricwatch running", extra={"targets": len(self._tasks),
                                                       "listen": self.http.url,
                                                       "shard": self.config.daemon.shard})
                reload_task = tg.create_task(self._reload_loop(), name="reload")
                service_tasks = [tg.create_task(s.run(), name=s.name) for s in self.services]
                await self._stop.wait()
                self.notifier.send("STOPPING=1", "STATUS=flushing sinks")
                if watchdog_task is not None:
                    watchdog_task.cancel()
                if self.cluster is not None:
                    log.info("stopping: handing targets over to the cluster")
                    await self.cluster.leave()
                log.info("stopping: closing target sessions")
                self.ready = False
                for _, task in self._tasks.values():
                    task.cancel()
                reload_task.cancel()
                for t in service_tasks:
                    t.cancel()
        finally:
            if self.pool is not None:
                await self.pool.close()  # what the workers sent before they stopped goes to the sinks
            if self.detector is not None:
                try:
                    # complete intervals only: a partial one at shutdown would mislead
                    await self.detector.process(time.time_ns())
                except Exception:
                    log.exception("final detector pass failed")
            for sink in self.sinks + self.event_sinks:
                await sink.close()
            await self.http.stop()
            if install_signals:
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                    loop.remove_signal_handler(sig)
        log.info("fabricwatch stopped")
        return 0

    # -- targets -----------------------------------------------------------------------
    def all_targets(self) -> dict[str, str]:
        """Every target of the config: key -> device (what a cluster shares out)."""
        return {k: c.device for k, c in self._configured.items()}

    def polling(self) -> set[str]:
        return set(self._tasks)

    async def start_polling(self, key: str) -> None:
        if key not in self._tasks and key in self._configured and not self.stopping:
            self._start_target(self._configured[key])

    async def stop_polling(self, key: str) -> None:
        if key in self._tasks:
            await self._stop_target(key)
            self.forget_target(key)

    def _start_target(self, collector: Collector) -> None:
        assert self._tg is not None
        status = TargetStatus(collector.kind, collector.cfg.name, collector.device, collector.address)
        self.targets[collector.key] = status
        loop = self._remote_target(collector.key) if self.pool is not None else self._target_loop(collector, status)
        task = self._tg.create_task(loop, name=collector.key)
        self._tasks[collector.key] = (collector.fingerprint(), task)

    async def _stop_target(self, key: str) -> None:
        _, task = self._tasks.pop(key)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        self.targets.pop(key, None)

    async def _remote_target(self, key: str) -> None:
        """A target run by a worker process: started there, stopped there when this is cancelled."""
        assert self.pool is not None
        await self.pool.start_target(key)
        try:
            await asyncio.Event().wait()
        finally:
            await self.pool.stop_target(key)

    async def _from_worker(self, key: str, batch: SampleBatch) -> None:
        await self.handle(batch, self.targets.get(key), target=key, accounted=True)

    async def _target_loop(self, collector: Collector, status: TargetStatus) -> None:
        async def deliver(batch: SampleBatch) -> None:
            await self.handle(batch, status, target=collector.key, accounted=True)

        await run_target(collector, status, deliver=deliver, emit=self.emit,
                         polled=self.metrics.poll_seconds.labels(collector.kind).observe)

    async def handle(self, batch: SampleBatch, status: TargetStatus | None = None, *, target: str = "",
                     accounted: bool = False) -> None:
        """One batch from `target` (its key): through the pipeline, into the sinks. `accounted`: the
        target's loop already counted its samples and problems into `status`."""
        t0 = time.perf_counter()
        processed = self.pipeline.process(batch, target=target)
        if status is not None:
            if not accounted:
                account(status, batch)
            status.values += processed.values
        await self._write_sinks(processed.lines)
        observe = self._batch_timers.get(batch.collector)
        if observe is None:  # the labelled child once per collector kind, not a lookup per batch
            observe = self._batch_timers[batch.collector] = self.metrics.batch_seconds.labels(batch.collector).observe
        observe(time.perf_counter() - t0)

    def emit(self, kind: str, payload: dict[str, Any]) -> None:
        """An event for the event sinks (MQTT); never blocks, never fails the caller."""
        for sink in self.event_sinks:
            sink.event(kind, payload)

    async def write_lines(self, lines: list[str]) -> None:
        """Line protocol from beside the collectors (discovered link events) to every storage sink."""
        await self._write_sinks(lines)

    async def _write_sinks(self, lines: list[str]) -> None:
        for sink in self.sinks:
            await sink.write(lines)

    def supervised(self) -> list[Supervised]:
        """Every supervised task: the services beside the targets and each sink's own."""
        return [*self.services, *(t for sink in self.sinks for t in sink.tasks)]

    def not_ready(self) -> str | None:
        """Why the daemon is not ready, or None: starting or stopping, or a task waiting to restart."""
        if not self.ready:
            return "starting or stopping"
        down = [s.name for s in self.supervised() if s.restarting]
        if down:
            return f"restarting after a crash: {', '.join(down)}"
        if self.pool is not None and (why := self.pool.not_ready()) is not None:
            return why
        return self.cluster.not_ready() if self.cluster is not None else None

    async def _expire_ports(self) -> None:
        """Ports not heard of for `pipeline.forget_after` leave memory, /api/links and the detector."""
        while True:
            await asyncio.sleep(min(60.0, self.config.pipeline.forget_after / 4))
            gone = self.pipeline.expire(time.time_ns() - int(self.config.pipeline.forget_after * 1e9))
            if gone:
                if self.detector is not None:
                    self.detector.forget(gone)
                log.info("ports forgotten after silence", extra={"ports": len(gone)})

    def forget_target(self, key: str) -> None:
        """Drop everything kept for a removed target: its ports' rates, latest view, tag cache and
        detector state (ports another target still reports stay)."""
        ports = self.pipeline.forget_target(key)
        if self.detector is not None:
            self.detector.forget(ports)
        log.info("target forgotten", extra={"target": key, "ports": len(ports)})

    # -- reload ------------------------------------------------------------------------
    async def _reload_loop(self) -> None:
        while True:
            await self._reload.wait()
            self._reload.clear()
            self.notifier.send("RELOADING=1", f"MONOTONIC_USEC={time.monotonic_ns() // 1000}")
            try:
                await self.reload()
            except Exception:  # a reload that fails keeps the running config, whatever the cause
                self.reload_failures += 1
                log.exception("reload failed; keeping the running config")
            self.notifier.send("READY=1", f"STATUS=collecting from {len(self._tasks)} targets")

    async def _watchdog(self, period_s: float) -> None:
        """Pet systemd's watchdog at half its period: if the event loop hangs, this stops too
        and systemd restarts the daemon."""
        while True:
            self.notifier.send("WATCHDOG=1")
            await asyncio.sleep(period_s / 2)

    async def reload(self) -> bool:
        if self.config_path is None:
            log.warning("reload asked but the config did not come from a file")
            return False
        try:
            new = config_mod.load(self.config_path)
            wanted = {c.key: c for c in build_collectors(new)}
            topology = load_topology(new)
        except (ConfigError, ValueError) as exc:
            self.reload_failures += 1
            log.error("reload failed; keeping the running config", extra={"error": str(exc)})
            return False
        if new.sink_configs() != self.config.sink_configs():
            log.warning("sink settings changed: they apply at the next restart")
        if new.cluster != self.config.cluster:
            log.warning("cluster settings changed: they apply at the next restart")
        if new.slurm != self.config.slurm:
            log.warning("slurm settings changed: they apply at the next restart")
        self._configured = wanted
        if self.pool is not None:
            await self.pool.reload(new)  # the workers build the changed targets from the config read here
        removed = [k for k in self._tasks if k not in wanted]
        changed = [k for k, c in wanted.items() if k in self._tasks and self._tasks[k][0] != c.fingerprint()]
        # in a cluster, a new target is started by the member that owns it
        added = [k for k in wanted if k not in self._tasks] if self.cluster is None else []
        for key in removed + changed:
            await self._stop_target(key)
        for key in changed + added:
            self._start_target(wanted[key])
        for key in removed:
            self.forget_target(key)
        if new.daemon.topology != "discover":
            self.pipeline.set_topology(topology)  # discovered topologies are the keeper's to set
        self.config = new
        self.reloads += 1
        log.info("config reloaded", extra={"added": added, "removed": removed, "changed": changed,
                                           "kept": len(self._tasks) - len(added) - len(changed)})
        return True


def _by_kind(sinks: Sequence[S]) -> list[list[S]]:
    """Sinks grouped by the metrics collector their class names, in config order: kinds that share one (the
    batching sinks) register it once, or their series would be exposed twice."""
    groups: dict[object, list[S]] = {}
    for s in sinks:
        metrics = type(s).metrics
        groups.setdefault(getattr(metrics, "__func__", metrics), []).append(s)
    return list(groups.values())
