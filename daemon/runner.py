"""The runtime: one task per target in a TaskGroup, pipeline in between, sinks at the end.

SIGTERM/SIGINT: stop collecting, flush sinks, exit 0. SIGHUP: reload the config and apply
target changes; targets whose settings did not change keep their sessions.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from pathlib import Path
from typing import Any

from fabricwatch.core.batch import SampleBatch
from fabricwatch.daemon import config as config_mod
from fabricwatch.daemon.compose import build_collectors, compose, load_topology
from fabricwatch.daemon.config import Config, ConfigError
from fabricwatch.daemon.hardening import no_core_dumps
from fabricwatch.daemon.sdnotify import Notifier
from fabricwatch.daemon.status import TargetStatus

__all__ = ["Runner", "build_collectors", "load_topology"]
log = logging.getLogger("fabricwatch.runner")


class Runner:
    """Starts, reloads and stops what `compose` built; hands itself to none of it."""

    def __init__(
        self, config: Config, *, config_path: Path | None = None, listen: str | None = None
    ) -> None:
        self.config_path = config_path
        parts = compose(config, listen=listen)
        self._current = parts.current
        self.pipeline, self.outputs, self.ingest = parts.pipeline, parts.outputs, parts.ingest
        self.sinks, self.event_sinks = parts.outputs.storage, parts.outputs.events
        self.targets, self.tasks, self.forgetting = parts.targets, parts.tasks, parts.forgetting
        self.nccl, self.detector, self.slurm = parts.nccl, parts.detector, parts.slurm
        self.topology_keeper, self.cluster, self.pool = parts.topology_keeper, parts.cluster, parts.pool
        self.services, self.health, self.metrics, self.http = parts.services, parts.health, parts.metrics, parts.http
        self._stop = asyncio.Event()
        self._reload = asyncio.Event()
        self.reloads = 0
        self.reload_failures = 0
        self.notifier = Notifier()

    @property
    def config(self) -> Config:
        return self._current.config

    @property
    def ready(self) -> bool:
        return self.health.ready

    @property
    def started_unix(self) -> float:
        return self.health.started_unix

    # -- lifecycle ---------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()
        self.tasks.closing = True

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
        await self.outputs.start()
        await self.http.start()
        if self.pool is not None:
            await self.pool.start()
        try:
            async with asyncio.TaskGroup() as tg:
                self.tasks.attach(tg, {c.key: c for c in build_collectors(self.config)})
                if self.cluster is None:  # in a cluster, the member starts what it owns
                    for collector in self.tasks.configured.values():
                        self.tasks.start(collector)
                self.health.ready = True
                self.notifier.send("READY=1", f"STATUS=collecting from {len(self.tasks)} targets")
                watchdog_task = None
                if self.notifier.watchdog_s:
                    watchdog_task = tg.create_task(self._watchdog(self.notifier.watchdog_s), name="watchdog")
                log.info("fabricwatch running", extra={"targets": len(self.tasks),
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
                self.health.ready = False
                self.tasks.cancel_all()
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
            await self.outputs.close()
            await self.http.stop()
            if install_signals:
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                    loop.remove_signal_handler(sig)
        log.info("fabricwatch stopped")
        return 0

    async def handle(self, batch: SampleBatch, status: TargetStatus | None = None, *, target: str = "",
                     accounted: bool = False) -> None:
        """One batch from `target` (its key): through the pipeline, into the sinks."""
        await self.ingest.handle(batch, status, target=target, accounted=accounted)

    def emit(self, kind: str, payload: dict[str, Any]) -> None:
        """An event for the event sinks (MQTT); never blocks, never fails the caller."""
        self.outputs.emit(kind, payload)

    def not_ready(self) -> str | None:
        return self.health.not_ready()

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
            self.notifier.send("READY=1", f"STATUS=collecting from {len(self.tasks)} targets")

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
        self.tasks.configured = wanted
        if self.pool is not None:
            await self.pool.reload(new)  # the workers build the changed targets from the config read here
        # in a cluster, a new target is started by the member that owns it
        added, removed, changed = await self.tasks.apply(wanted, start_new=self.cluster is None)
        if new.daemon.topology != "discover":
            self.pipeline.set_topology(topology)  # discovered topologies are the keeper's to set
        self._current.config = new
        self.reloads += 1
        log.info("config reloaded", extra={"added": added, "removed": removed, "changed": changed,
                                           "kept": len(self.tasks) - len(added) - len(changed)})
        return True
