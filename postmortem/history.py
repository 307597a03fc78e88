"""What the post-mortem questions ask of the history, whichever server keeps it: InfluxQL
(`influx.py`) or VictoriaMetrics' own query API (`victoria.py`). The questions themselves
(`queries.py`) are written once over this."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from fabricwatch.postmortem.incidents import Flagged, StoredJobs
from fabricwatch.postmortem.store import Window

# one stored series over a window: its tags, the mean and the peak of each field it has
Measured = tuple[dict[str, str], dict[str, float], dict[str, float]]
# one stored series in one time bucket: its tags, the bucket's start, the peak of each field in it
Bucket = tuple[dict[str, str], int, dict[str, float]]


class History(Protocol):
    kind: str  # what the answers say they came from ("InfluxDB", "VictoriaMetrics")

    def rate_fields(self) -> list[str]:
        """The stored rates' names (port_rates fields)."""

    def summaries(self, window: Window, measurement: str, names: list[str], *,
                  device: str | None = None) -> list[Measured]:
        """Mean and peak of these fields, per stored series, computed by the server."""

    def buckets(self, window: Window, step_s: int, names: list[str], *, device: str, port: str) -> Iterable[Bucket]:
        """One link's `port_rates` in `step_s` buckets (peak per bucket), buckets aligned to the epoch."""

    def events(self, window: Window, device: str, port: str | None = None) -> list[dict[str, Any]]:
        """`link_events` in time order: time_ns, device, port, kind, detail, source."""

    def flagged(self, window: Window, *, device: str | None = None, port: str | None = None) -> list[Flagged]:
        """The detector's flagged `link_anomaly` points, a stored series at a time."""

    def jobs(self, window: Window, *, device: str | None = None, port: str | None = None) -> list[StoredJobs]:
        """The Slurm jobs stored with the flagged intervals (`link_anomaly_jobs`), in time order."""

    def scored(self, window: Window, *, device: str | None = None,
               port: str | None = None) -> dict[tuple[str, str], int]:
        """Each link's newest `link_anomaly` point, flagged or not: how far the detector got."""

    def port_tags(self, window: Window) -> list[dict[str, str]]:
        """The tags of every port that had rates in the window (the topology as stored)."""

    def run(self, run: str) -> tuple[list[str], int, str]:
        """An NCCL run's hosts, time and collective, from what was stored of it."""

    def modules(self, keys: set[tuple[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
        """The latest module inventory (vendor, part_number, serial) of these ports."""
