"""Each link's far end as it last said it: neighbours learned by LLDP age out of a link that stays down (a
switch forgets them after its hold time), but the cable is still there, and what the link is judged against
(its far device's restart, its far end's state) is still at its other end."""

from __future__ import annotations

from collections.abc import Iterable

from fabricwatch.models.intervals import LinkInterval

PEER_TAGS = ("peer_device", "peer_port")


class SaidPeers:
    """The last far end each link named; `fill` gives it back to a link that names none now."""

    def __init__(self) -> None:
        self._far: dict[tuple[str, str], tuple[str, str]] = {}

    def fill(self, links: Iterable[LinkInterval]) -> None:
        for li in links:
            tags = li.tags
            key = (li.device, li.port)
            if tags.get("peer_device") and tags.get("peer_port"):
                self._far[key] = (tags["peer_device"], tags["peer_port"])
            elif (far := self._far.get(key)) is not None:
                li.tags = {**tags, **dict(zip(PEER_TAGS, far, strict=True))}

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        for key in keys:
            self._far.pop(key, None)
