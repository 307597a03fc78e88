"""Which device and which port a series is, as the collectors that write them name the two: ours (`port_counters`,
tags `device` and `port`), Telegraf's SNMP and gNMI inputs (`source` and `ifName`, `name`), host exporters (`host`
and `interface`, `ibdev`; Prometheus's `instance`), InfiniBand's tools (a node's description and a port number), each
in a measurement of its own; and the far end a port's description names."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from fabricwatch.core.name_words import words

OURS = "port_counters"
_OUR_TAGS = ("device", "port")
# in another measurement, first found first: an SNMP or gNMI input's `source` or `hostname` is the name the device
# gives itself (sysName), its `agent_host` the address it was polled at, where `host` is the collector's own host; a
# host exporter's `host` is the node itself
DEVICE_TAGS = ("source", "hostname", "agent_host", "host", "node")
# Telegraf's infiniband input: the node, its HCA and the HCA's port number (port 1 is the link the fabric's tools name
# by the HCA alone)
HCA_TAGS = ("host", "device", "port")
# OpenConfig's QoS keys a port's queues by its interface (`interface-id`, as Telegraf writes it `interface_id`) and
# each queue by its `name`
QUEUE_PORT_TAGS = ("interface_id", "interface-id")
QUEUE_TAG = "name"
QUEUE_WORDS = frozenset({"queue", "queues", "qos"})  # the measurement's words that say its series are queues
# a NIC's RDMA device before its netdev (`mlx5_0`, as the fabric's tools name a host's end of a link); `name` last,
# the key of gNMI's /interfaces/interface list, a word many other series use for something else
PORT_TAGS = ("ifName", "interface_name", "interface", "ifDescr", "port_name", "ibdev", "netdev", *QUEUE_PORT_TAGS,
             "name")
# a port named by a host's RDMA or network device: a host's own (switches have neither), its tier where no tag says
HOST_PORT_TAGS = ("ibdev", "netdev")
# InfiniBand's tools (ibdiagnet, ibnetdiscover, perfquery scripts) name a node by its NodeDescription, a port by its
# number
NODE_DESC_TAGS = ("node_desc", "node_description", "NodeDesc", "NodeDescription")
PORT_NUMBER_TAGS = ("port_num", "port_number", "PortNum", "port")
# Prometheus names the machine it scraped `instance` (host[:port]); Telegraf's prometheus input the scrape's `url`
SCRAPE_TAGS = ("instance", "url")
_LOOPBACK = ("localhost", "127.0.0.1", "::1")
_INSTANCE = re.compile(r"(?:[a-z]+://)?(\[[^]]+\]|[^:/]+)(?::\d+)?(?:/.*)?")
# a port's description as pollers tag it, where sites write its far end ("p2-spine-1:Eth1/5")
DESCRIPTION_TAGS = ("ifAlias", "description", "port_description")
_FAR_END = re.compile(r"(?:to[ _-])?([A-Za-z0-9][\w.-]*):([A-Za-z0-9][\w./:-]*)")


@dataclass(frozen=True)
class PortSeries:
    """A series' device and port, and the tags that named them (no tags of the link)."""

    device: str
    port: str
    naming: tuple[str, ...]


def node_description(desc: str) -> tuple[str, str]:
    """(node, hca) a NodeDescription names: a switch's name (NVIDIA's "MF0;<name>:<model>/U1", or the name alone;
    hca ""), or an HCA's host and device ("<host> <hca>")."""
    said = desc.strip()
    if ";" in said:
        return said.split(";", 1)[1].split(":", 1)[0].strip(), ""
    host, _, hca = said.partition(" ")
    return host, hca.strip()


def hca_port(hca: str, number: str) -> str:
    """An HCA's port as the fabric's tools name it: port 1 is the node's link named by the HCA alone."""
    return hca if number in ("", "1") else f"{hca}/{number}"


def machine(instance: str) -> str:
    """The host a Prometheus `instance` names ("gpu017:9100" -> "gpu017")."""
    m = _INSTANCE.fullmatch(instance.strip())
    return m.group(1).strip("[]") if m else instance


def port_of(measurement: str, tags: Mapping[str, str]) -> PortSeries | None:
    """The device and port a series is a port's counters of; None for a series of no port."""
    if measurement == OURS and all(tags.get(k) for k in _OUR_TAGS):
        return PortSeries(tags["device"], tags["port"], _OUR_TAGS)
    if tags.get("device") and tags.get("port", "").isdigit() and not tags.get("source"):
        if tags.get("host"):
            return PortSeries(tags["host"], hca_port(tags["device"], tags["port"]), HCA_TAGS)
        if tags.get("instance"):
            return PortSeries(machine(tags["instance"]), hca_port(tags["device"], tags["port"]),
                              ("instance", "device", "port"))
    scrape = next((k for k in SCRAPE_TAGS if tags.get(k)), None)
    if scrape is not None and tags.get("device") and not tags.get("port") and not tags.get("source"):
        return _scraped_interface(scrape, tags)
    desc = next((k for k in NODE_DESC_TAGS if tags.get(k)), None)
    number = next((k for k in PORT_NUMBER_TAGS if tags.get(k, "").isdigit()), None)
    if desc is not None and number is not None:
        node, hca = node_description(tags[desc])
        return PortSeries(node, hca_port(hca, tags[number]) if hca else tags[number], (desc, number))
    device = next((k for k in DEVICE_TAGS if tags.get(k)), None)
    port = next((k for k in PORT_TAGS if tags.get(k)), None)
    if device is None or port is None:
        return None
    if port in QUEUE_PORT_TAGS and tags.get(QUEUE_TAG):
        if QUEUE_WORDS & set(words(measurement)):
            return PortSeries(tags[device], tags[port], (device, port, QUEUE_TAG))
        port = QUEUE_TAG  # another list keyed by interface beside a name of its own (a routing instance's)
    return PortSeries(tags[device], tags[port], (device, port))


def queue_of(series: PortSeries, tags: Mapping[str, str]) -> str:
    """The queue of its port a series counts ("" for the port's own counters)."""
    return tags[QUEUE_TAG] if series.naming[-1] == QUEUE_TAG and series.naming[-2] in QUEUE_PORT_TAGS else ""


def _scraped_interface(scrape: str, tags: Mapping[str, str]) -> PortSeries:
    """node_exporter's network and ethtool collectors name a host's interface `device`: the machine is the one
    scraped, or the `host` of a Telegraf that scraped its own node."""
    node = machine(tags[scrape])
    if node in _LOOPBACK and tags.get("host"):
        return PortSeries(tags["host"], tags["device"], ("host", scrape, "device"))
    return PortSeries(node, tags["device"], (scrape, "device"))


def names_a_host(series: PortSeries, tags: Mapping[str, str]) -> bool:
    """Whether the series names its port by a host's adapter: Telegraf's infiniband input, Prometheus' node_exporter
    (`instance`, `device`, `port`), a NIC's RDMA or network device, a NodeDescription naming a host and its HCA."""
    first, second = series.naming[0], series.naming[-1]
    if series.naming == HCA_TAGS or first == "instance" or second in HOST_PORT_TAGS or series.naming[-2] in SCRAPE_TAGS:
        return True
    return first in NODE_DESC_TAGS and bool(node_description(tags[first])[1])


def link_tags(series: PortSeries, tags: Mapping[str, str]) -> dict[str, str]:
    """The tags of the link beyond its device and port, with the far end its description names where no tag
    names one, and a host's tier where its port is named by its host's device and no tag gives a role or tier."""
    out = {k: v for k, v in tags.items() if k not in series.naming}
    if names_a_host(series, tags) and "role" not in out and "tier" not in out:
        out["tier"] = "host"
    if "peer_device" in out:
        return out
    for k in DESCRIPTION_TAGS:
        if k in out and (far := _FAR_END.fullmatch(out[k])):
            out["peer_device"], out["peer_port"] = far.group(1), far.group(2)
            break
    return out


def why_no_port(measurement: str, tags: Mapping[str, str]) -> str:
    """What a series lacks to be a port's (for a message)."""
    if measurement == OURS:
        missing = [k for k in _OUR_TAGS if not tags.get(k)]
        return f"no {' or '.join(missing)} tag"
    return (f"measurement {measurement!r} names no device ({', '.join(DEVICE_TAGS)}) and port "
            f"({', '.join(PORT_TAGS)}) tag")
