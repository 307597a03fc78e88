"""A link's tags as a site's tools write them, read in the vocabulary's words: its far end as ibnetdiscover names
it, its role as a site names it by tiers."""

from __future__ import annotations

import re

# tiers as sites name them, for a role named by a port's own tier and its far end's ("leaf-hca", "spine-leaf")
_TIERS = {**dict.fromkeys(("leaf", "tor", "edge"), "leaf"), **dict.fromkeys(("spine", "agg", "aggregation"), "spine"),
          **dict.fromkeys(("core", "superspine"), "core"),
          **dict.fromkeys(("hca", "host", "server", "node", "gpu", "nic", "compute", "storage"), "host")}
_ROLE_BY_TIERS = {("leaf", "host"): "leaf_down", ("leaf", "spine"): "leaf_up", ("leaf", "core"): "leaf_up",
                  ("spine", "leaf"): "spine", ("spine", "core"): "spine_up", ("core", "spine"): "core",
                  ("core", "leaf"): "core"}


# a tier that names one role by itself: an end node's own port, a spine's (towards the leaves), a core switch's; a
# leaf's ports go two ways (towards hosts, towards spines), so "leaf" alone names none
_ROLE_BY_TIER = {"host": "host", "spine": "spine", "core": "core"}


def role_of(said: str) -> str:
    """A role named by its tiers as the vocabulary's role: `leaf-hca` is `leaf_down`, `agg` a spine's port, `hca` or
    `gpu-node` an end node's own; any other as said."""
    tiers = [_TIERS.get(w, "") for w in re.split(r"[-_ ]+", said.lower()) if w != "to"]
    if len(set(tiers)) == 1 and tiers[0] in _ROLE_BY_TIER and len(tiers) <= 2:
        return _ROLE_BY_TIER[tiers[0]] if len(tiers) == 1 or tiers[0] == "host" else said
    if len(tiers) != 2:
        return said
    return _ROLE_BY_TIERS.get((tiers[0], tiers[1]), said)


# a port's LLDP neighbour as exporters tag it: its far device
_NEIGHBOUR_TAGS = ("peer", "neighbor", "neighbour")


def _with_peer(tags: dict[str, str]) -> dict[str, str]:
    """`tags` with the far end as `peer_device`/`peer_port` where a poller names it as ibnetdiscover does
    (`remote_node`, `remote_port`): an HCA's node description is its host and device ("dgx-a03 mlx5_6", the link
    its host reports as), a switch's is its name; or as its LLDP neighbour (`peer`, `neighbor`)."""
    if "peer_device" not in tags and (said := next((tags[t] for t in _NEIGHBOUR_TAGS if tags.get(t)), "")):
        return {**tags, "peer_device": said}
    node = tags.get("remote_node", "")
    if not node or "peer_device" in tags:
        return tags
    host, _, hca = node.partition(" ")
    return {**tags, "peer_device": host, "peer_port": hca or tags.get("remote_port", "")}


def site_tags(tags: dict[str, str]) -> dict[str, str]:
    """A link's tags as a site's tools wrote them, in the vocabulary's words: its far end and its role."""
    tags = _with_peer(tags)
    if "role" in tags:
        tags = {**tags, "role": role_of(tags["role"])}
    return tags
