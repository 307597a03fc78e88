"""What a frame's links are, apart from what they count: names and codes worked out once per layout (the
same links in the same order with the same tags) and shared by every frame of that layout. A fabric's
layout changes when a link comes or goes; between those, every interval would otherwise walk its links'
tags again in Python for each question asked of them."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:
    from fabricwatch.models.intervals import LinkInterval

T = TypeVar("T")


def first_sight(names: Sequence[Hashable]) -> tuple[np.ndarray, list[Hashable]]:
    """Each name's number in order of first sight, and the names in that order."""
    seen: dict[Hashable, int] = {}
    ids = np.fromiter((seen.setdefault(x, len(seen)) for x in names), dtype=np.int64, count=len(names))
    return ids, list(seen)


class Topology:
    """The links of a frame as the fabric is wired: their keys, devices, roles, far devices and classes."""

    def __init__(self, links: Sequence[LinkInterval]) -> None:
        self._signature = [(li.device, li.port, li.tags) for li in links]
        self._memo: dict[str, Any] = {}

    def __len__(self) -> int:
        return len(self._signature)

    def fits(self, links: Sequence[LinkInterval]) -> bool:
        """Whether `links` are this layout: the same links in the same order with the same tags."""
        return len(links) == len(self._signature) and [(li.device, li.port, li.tags) for li in links] == self._signature

    def memo(self, name: str, compute: Callable[[], T]) -> T:
        """`compute()` once per layout under `name` (a question a module asks of the links' tags alone)."""
        if name not in self._memo:
            self._memo[name] = compute()
        value: T = self._memo[name]
        return value

    @cached_property
    def keys(self) -> list[tuple[str, str]]:
        return [(d, p) for d, p, _ in self._signature]

    @cached_property
    def devices(self) -> list[str]:
        return [d for d, _, _ in self._signature]

    @cached_property
    def heard(self) -> frozenset[str]:
        """The devices with a link here."""
        return frozenset(self.devices)

    @cached_property
    def device_ids(self) -> np.ndarray:
        """Each link's device, numbered in order of first sight."""
        return first_sight(self.devices)[0]

    @cached_property
    def roles(self) -> list[str]:
        return [t.get("role", "") for _, _, t in self._signature]

    @cached_property
    def role_ids(self) -> np.ndarray:
        """Each link's role, numbered in order of first sight."""
        return first_sight(self.roles)[0]

    @cached_property
    def far_devices(self) -> list[str]:
        """Each link's far device from its `peer_device` tag ("" where it has none)."""
        return [t.get("peer_device", "") or "" for _, _, t in self._signature]

    @cached_property
    def far_rows(self) -> np.ndarray:
        """Each link's far end as a row of this layout, from its `peer_device` and `peer_port` tags (-1 where
        that end is not here). A far port may be named by its `alias` tag: LLDP advertises a port's id, which
        SONiC sets to its alias (`etp57`), not its name."""
        row = {(d, t["alias"]): i for i, (d, _, t) in enumerate(self._signature) if t.get("alias")}
        row.update((key, i) for i, key in enumerate(self.keys))
        return np.array([row.get((t.get("peer_device") or "", t.get("peer_port") or ""), -1)
                         for _, _, t in self._signature], dtype=np.int64).reshape(len(self))

    @cached_property
    def classes(self) -> list[str]:
        """Each link's port class, fabric/role/speed."""
        return [f"{t.get('fabric', '?')}/{t.get('role', '?')}/{t.get('speed', '?')}" for _, _, t in self._signature]

    @cached_property
    def class_ids(self) -> np.ndarray:
        """Each link's class, numbered in order of first sight."""
        return first_sight(self.classes)[0]

    def tag(self, name: str) -> list[str | None]:
        """Each link's value of one tag (None where it has none)."""
        return self.memo(f"tag:{name}", lambda: [t.get(name) for _, _, t in self._signature])
