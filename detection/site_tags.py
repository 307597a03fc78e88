"""A link's tags as a site's tools write them, read in the vocabulary's words: its far end as ibnetdiscover names
it, its role as a site names it by tiers."""

from __future__ import annotations

import re

from fabricwatch.detection.series_names import hca_port, node_description
from fabricwatch.models.features import SPREAD_ROLES

# tiers as sites name them, for a role named by a port's own tier and its far end's ("leaf-hca", "spine-leaf")
TIERS = {**dict.fromkeys(("leaf", "tor", "edge"), "leaf"), **dict.fromkeys(("spine", "agg", "aggregation"), "spine"),
          **dict.fromkeys(("core", "superspine"), "core"),
          **dict.fromkeys(("hca", "host", "server", "node", "gpu", "nic", "compute", "storage"), "host")}
ROLE_BY_TIERS = {("leaf", "host"): "leaf_down", ("leaf", "spine"): "leaf_up", ("leaf", "core"): "leaf_up",
                  ("spine", "leaf"): "spine", ("spine", "core"): "spine_up", ("core", "spine"): "core",
                  ("core", "leaf"): "core"}


# a tier that names one role by itself: an end node's own port, a spine's (towards the leaves), a core switch's; a
# leaf's ports go two ways (towards hosts, towards spines), so "leaf" alone names none
_ROLE_BY_TIER = {"host": "host", "spine": "spine", "core": "core"}


def role_of(said: str) -> str:
    """A role named by its tiers as the vocabulary's role: `leaf-hca` is `leaf_down`, `agg` a spine's port, `hca` or
    `gpu-node` an end node's own; any other as said."""
    tiers = [TIERS.get(w, "") for w in re.split(r"[-_ ]+", said.lower()) if w != "to"]
    if len(set(tiers)) == 1 and tiers[0] in _ROLE_BY_TIER and len(tiers) <= 2:
        return _ROLE_BY_TIER[tiers[0]] if len(tiers) == 1 or tiers[0] == "host" else said
    if len(tiers) != 2:
        return said
    return ROLE_BY_TIERS.get((tiers[0], tiers[1]), said)


# a port's LLDP neighbour as exporters tag it: its far device, the LLDP-MIB remote table's system name, and UFM's
# port resource's peer
_NEIGHBOUR_TAGS = ("peer", "neighbor", "neighbour", "lldp_rem_sys_name", "lldpRemSysName", "peer_node_name")
# and the port id it advertises (a SONiC switch advertises its port's alias: `Topology.far_rows` reads either)
_NEIGHBOUR_PORT_TAGS = ("lldp_rem_port_id", "lldpRemPortId", "peer_port_dname")


# the far node's description as ibnetdiscover's converters tag it
_REMOTE_NODE_TAGS = ("remote_node", "remote_desc", "remote_node_desc", "remote_description")


def _with_peer(tags: dict[str, str]) -> dict[str, str]:
    """`tags` with the far end as `peer_device`/`peer_port` where a poller names it as ibnetdiscover does
    (`remote_node`, `remote_port`): an HCA's node description is its host and device ("dgx-a03 mlx5_6", the link
    its host reports as), a switch's is its name; or as its LLDP neighbour (`peer`, `neighbor`, the LLDP-MIB's
    `lldp_rem_sys_name` and `lldp_rem_port_id`), or as UFM's port resource (`peer_node_name`, `peer_port_dname`)."""
    if "peer_device" not in tags and (said := next((tags[t] for t in _NEIGHBOUR_TAGS if tags.get(t)), "")):
        out = {**tags, "peer_device": said}
        if "peer_port" not in tags and (port := next((tags[t] for t in _NEIGHBOUR_PORT_TAGS if tags.get(t)), "")):
            out["peer_port"] = port
        return out
    node = next((tags[t] for t in _REMOTE_NODE_TAGS if tags.get(t)), "")
    if not node or "peer_device" in tags:
        return tags
    far, hca = node_description(node)
    number = tags.get("remote_port", "")
    return {**tags, "peer_device": far, "peer_port": hca_port(hca, number) if hca else number}


# the roles of the vocabulary: a port said to have one is read as said
_VOCABULARY_ROLES = SPREAD_ROLES | {"leaf_down", "host"}
SITE_ROLE = "site_role"  # the role words a site gave, where they are not the vocabulary's


def site_tags(tags: dict[str, str]) -> dict[str, str]:
    """A link's tags as a site's tools wrote them, in the vocabulary's words: its far end and its role (the site's
    own words kept as `site_role`, which `Wiring` may read better once the far device is heard)."""
    tags = _with_peer(tags)
    if "role" not in tags and tags.get("tier"):  # a device's tier, where a site tags no port role: its role words
        tags = {**tags, "role": tags["tier"]}
    if "role" in tags:
        said = tags["role"]
        tags = {**tags, "role": role_of(said)}
        if said not in _VOCABULARY_ROLES:
            tags[SITE_ROLE] = said
    return tags
