"""A NIC under its two names: its RDMA device (`mlx5_0`, as the fabric's tools and a switch's description name a
host's end of a link) and its network device (`enp24s0np0`, as node_exporter's network and ethtool collectors and
Telegraf's ethtool input name it). Where a series says both (a `netdev` tag beside the RDMA device: node_exporter's
`rdma_netdev_info`, a host exporter's `ibdev` and `netdev`), the network device's series are the RDMA device's port.

A counter both names give (in_octets: the HCA's bytes, RDMA included; the kernel's, TCP only) is read from the name
that gave it first, never the two interleaved as one counter."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fabricwatch.detection.series_names import PortSeries, names_a_host

DIRECT, JOINED = 0, 1


class NicNames:
    """The network devices learned to be an RDMA device's, and which of the two names each counter of a joined
    port is read from."""

    def __init__(self) -> None:
        self._rdma: dict[tuple[str, str], str] = {}  # (host, netdev) -> the RDMA device's port
        self._ports: dict[str, set[str]] = {}  # host -> its RDMA devices' ports with a network device joined
        self._owner: dict[tuple[str, str], dict[str, int]] = {}  # per joined port, per counter: DIRECT or JOINED
        self._owner_cols: dict[str, np.ndarray] = {}  # per counter, per link id: -1 (none yet), DIRECT or JOINED

    def learn(self, series: PortSeries, tags: Mapping[str, str]) -> bool:
        """Learn the network device a series of an RDMA device names beside it; whether it is new."""
        netdev = tags.get("netdev")
        if not netdev or netdev == series.port or not names_a_host(series, tags):
            return False
        key = (series.device, netdev)
        if self._rdma.get(key) == series.port:
            return False
        self._rdma[key] = series.port
        self._ports.setdefault(series.device, set()).add(series.port)
        return True

    def joins(self, port: tuple[str, str]) -> bool:
        """Whether a port is an RDMA device a network device's series are joined to."""
        return port[1] in self._ports.get(port[0], ())

    def joined(self, series: PortSeries) -> PortSeries | None:
        """The RDMA device's port a network device's series is, or None."""
        port = self._rdma.get((series.device, series.port))
        return None if port is None else PortSeries(series.device, port, series.naming)

    def read_here(self, port: tuple[str, str], values: dict[str, float], source: int) -> dict[str, float]:
        """The counters of one sample of a joined port that are read from this name (`source`)."""
        owner = self._owner.setdefault(port, {})
        return {k: v for k, v in values.items() if owner.setdefault(k, source) == source}

    def read_rows(self, name: str, link: np.ndarray, source: np.ndarray, n_links: int) -> np.ndarray:
        """Of a column's rows on joined ports (`link` ids, in row order), those read from their name (`source`)."""
        owner = self._owner_cols.get(name)
        if owner is None or len(owner) < n_links:
            grown = np.full(max(n_links, 2 * len(owner) if owner is not None else 0), -1, dtype=np.int8)
            if owner is not None:
                grown[: len(owner)] = owner
            owner = self._owner_cols[name] = grown
        new = owner[link] < 0
        if new.any():
            first_links, first = np.unique(link[new], return_index=True)
            owner[first_links] = source[new][first]
        return np.asarray(owner[link] == source)
