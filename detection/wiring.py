"""What the cables say of the ports they join: the far end either end names, and each device's tier where no word of
the site's gives it (a port named by its host's adapter is a host's, a switch hosts hang off is a leaf, a switch
leaves hang off a spine), so that a port's role is its device's tier towards its far device's."""

from __future__ import annotations

import re
from collections.abc import Mapping

from fabricwatch.detection.site_tags import ROLE_BY_TIERS, SITE_ROLE, TIERS


def _own_tier(said: str) -> str:
    """The tier a site's role words give the port's own device (their first word's): `tor-gpu` a leaf's, `agg` a
    spine's, `gpu-node` a host's; "" where they name none."""
    first = next((w for w in re.split(r"[-_ ]+", said.lower()) if w and w != "to"), "")
    return TIERS.get(first, "")


class Wiring:
    """The fabric as its ports' tags wire it. A cable has two ends: a site that describes only its switch ports
    (`ifAlias` "p1-gpu07:mlx5_3") names the NIC's far end too. A site's role words may name a device rather than
    a port (every port of a ToR for GPU nodes says `tor-gpu`, its uplinks too); a port's role is then its device's
    tier towards its far device's, where that one is heard with a tier. Where a device's words name no tier, or
    there are none, its wiring does: a switch whose ports face hosts is a leaf (its ports towards hosts its host
    ports, towards the switches it faces its uplinks). Above the leaves the wiring places only devices said to be
    switches (InfiniBand's node types), since a host whose words say nothing faces leaves on every port as a spine
    does."""

    def __init__(self) -> None:
        self.tiers: dict[str, str] = {}  # per device heard with role words, the tier they give it
        self._faces: dict[str, dict[str, set[str]]] = {}  # per device, per far device, its ports facing it
        self._named: dict[tuple[str, str], tuple[str, str]] = {}  # a port -> the far end that names it as its own
        self._said: dict[tuple[str, str], tuple[str, str]] = {}  # a port -> the far end a series of its own names
        self._heard: set[str] = set()  # devices with links of their own
        self._switches: set[str] = set()  # devices said to be switches by their node type (InfiniBand's SW)
        self._wired_tiers: dict[str, str] = {}
        self._wired_at = -1
        self.version = 0  # moves whenever a tier is said or a cable end is named

    def learn(self, device: str, port: str, tags: Mapping[str, str]) -> bool:
        """Take a device's tier from one of its links' tags, and the cable it names; whether either was new."""
        new = device not in self._heard
        self._heard.add(device)
        if device not in self.tiers and (tier := _own_tier(tags.get(SITE_ROLE) or tags.get("role") or "")):
            self.tiers[device] = tier
            new = True
        new |= self._typed(device, tags.get("node_type", ""))
        if far := tags.get("peer_device"):
            new |= self._typed(far, tags.get("remote_type", ""))
            far_port = tags.get("peer_port") or ""
            if self._said.get((device, port)) != (far, far_port):
                self._said[(device, port)] = (far, far_port)
                new = True
            new |= self._face(device, port, far)
            if far_port and (far, far_port) not in self._named:
                self._named[(far, far_port)] = (device, port)
                self._face(far, far_port, device)
                new = True
        if new:
            self.version += 1
        return new

    def _typed(self, device: str, node_type: str) -> bool:
        """Take what InfiniBand says a node is (SW a switch, CA a host's adapter); whether it was new."""
        kind = node_type.upper()
        if kind == "CA" and device not in self.tiers:
            self.tiers[device] = "host"
            return True
        if kind == "SW" and device not in self._switches:
            self._switches.add(device)
            return True
        return False

    def _face(self, device: str, port: str, far: str) -> bool:
        ports = self._faces.setdefault(device, {}).setdefault(far, set())
        if port in ports:
            return False
        ports.add(port)
        return True

    def far_end(self, device: str, port: str) -> tuple[str, str] | None:
        """The far end of `device:port`'s cable: as a series of the port names it (a topology measurement beside its
        counters, as ibnetdiscover's), else as the other end's tags name `device:port` as theirs."""
        return self._said.get((device, port)) or self._named.get((device, port))

    def tier(self, device: str) -> str:
        """A device's tier by its own words, else by its wiring ("" where neither says)."""
        return self.tiers.get(device) or self._wired().get(device, "")

    def _wired(self) -> dict[str, str]:
        """The tiers of devices without words of their own, by their wiring: a device whose ports face hosts is a
        leaf. Above the leaves only devices said to be switches are placed (a host whose words say nothing faces
        leaves on every port as a spine does): a switch facing leaves on at least half of the ports it has towards
        switches is a spine, and one facing spines a core (a core may take a storage leaf or two)."""
        if self._wired_at != self.version:
            tiers = {d: "leaf" for d, fars in self._faces.items()
                     if d not in self.tiers and any(self.tiers.get(f) == "host" for f in fars)}
            above = [d for d in self._switches if d not in self.tiers and d not in tiers]
            for d in above:
                fars = self._faces.get(d, {})
                to_leaves = sum(len(ports) for f, ports in fars.items() if tiers.get(f) == "leaf")
                to_switches = sum(len(ports) for f, ports in fars.items() if f in self._switches)
                if to_leaves and 2 * to_leaves >= to_switches:
                    tiers[d] = "spine"
            for d in above:
                if d not in tiers and any(tiers.get(f) == "spine" for f in self._faces.get(d, {})):
                    tiers[d] = "core"
            self._wired_tiers = tiers
            self._wired_at = self.version
        return self._wired_tiers

    def role(self, tags: Mapping[str, str], device: str | None = None) -> str | None:
        """The role a port with these tags (of `device`, where known) has towards its far device, where both
        tiers are known; else None (its role as said, or none)."""
        said, far = tags.get(SITE_ROLE), tags.get("peer_device")
        if "role" in tags and not said:  # a role in the vocabulary's own words
            return None
        own = (_own_tier(said) if said else "") or (self.tier(device) if device is not None else "")
        if own == "host" and not said:
            return "host"
        if not far:
            return None
        if own == "leaf" and device is not None and device not in self.tiers:
            # a leaf by its wiring: towards a host, its host port; towards a switch heard from, its uplink
            far_tier = self.tier(far)
            return "leaf_down" if far_tier == "host" else "leaf_up" if far in self._heard else None
        far_tier = self.tier(far)
        return ROLE_BY_TIERS.get((own, far_tier)) if far_tier else None

    def settled(self, device: str, port: str, tags: dict[str, str]) -> dict[str, str]:
        """`tags` as read, with the far end its cable's other end names (where they name none) and the role
        its device's tier gives it towards its far device's; the same dict where neither adds anything."""
        out = tags
        if "peer_device" not in tags and (far := self.far_end(device, port)) is not None:
            out = {**tags, "peer_device": far[0], "peer_port": far[1]}
        if (role := self.role(out, device)) is not None and role != out.get("role"):
            out = {**out, "role": role}
        return out
