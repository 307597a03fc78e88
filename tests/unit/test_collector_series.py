"""A port's series is read whatever its collector calls the device and the port.

Principle checked: a recording is read as its collectors wrote it. Telegraf's SNMP and gNMI inputs name the device
`source` and the port `ifName` (or `name`), a host exporter `host` and `ibdev`, each in a measurement of its own;
a site's description convention ("<far device>:<far port>" in `ifAlias`) names the far end. The same counters read
the same links and the same intervals as our own `port_counters` lines, in both folds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricwatch.detection.interval_fold import ReplayReport, intervals_from_files
from fabricwatch.detection.line_reader import Catalog
from fabricwatch.detection.replay import ReadReport, intervals_from_lp, why_not_a_sample
from fabricwatch.detection.series_names import port_of


def _ours(t: int, p: int) -> list[str]:
    return [f"port_counters,device=leaf1,port=Ethernet{p}/1,peer_device=gpu0{p},peer_port=mlx5_0 "
            f"ifHCInOctets={t * 10**6 * (p + 1)}i,ifInErrors={t // 30}i {t * 10**9}",
            f"port_counters,device=gpu0{p},port=mlx5_0 rx_bytes_phy={t * 10**6}i,rx_prio3_pause={t}i {t * 10**9}"]


def _telegraf(t: int, p: int) -> list[str]:
    return [f"snmp_if,ifAlias=gpu0{p}:mlx5_0,ifName=Ethernet{p}/1,source=leaf1,host=telegraf-a "
            f"ifHCInOctets={t * 10**6 * (p + 1)}i,ifInErrors={t // 30}i {t * 10**9}",
            f"roce_nic,host=gpu0{p},ibdev=mlx5_0,netdev=enp24s0np0 rx_bytes_phy={t * 10**6}i,rx_prio3_pause={t}i "
            f"{t * 10**9}",
            f"snmp_sys,source=leaf1 sysUpTime={t * 100}i {t * 10**9}"]


def _links(intervals: list) -> list:
    return [sorted((li.device, li.port, li.tags.get("peer_device"), li.tags.get("peer_port"),
                    sorted(li.rates.items())) for li in iv[1]) for iv in intervals]


@pytest.mark.parametrize("chunk", [1 << 20, 300])
def test_a_collectors_own_measurements_read_as_port_counters_do(tmp_path: Path, chunk: int) -> None:
    ours, theirs = tmp_path / "ours.lp", tmp_path / "telegraf.lp"
    ours.write_text("\n".join(line for t in range(0, 300, 10) for p in range(3) for line in _ours(t, p)) + "\n")
    theirs.write_text("\n".join(line for t in range(0, 300, 10) for p in range(3) for line in _telegraf(t, p)) + "\n")
    expected = _links(intervals_from_lp([ours], 30.0))
    assert expected and all(len(links) == 6 for links in expected)
    rr = ReadReport()
    assert _links(intervals_from_lp([theirs], 30.0, report=rr)) == expected
    report = ReplayReport()
    columnar = [iv for part in intervals_from_files([theirs], 30.0, report=report, chunk_bytes=chunk) for iv in part]
    assert _links(columnar) == expected
    # the device's own uptime is no port's series: skipped, and counted
    assert rr.skipped == report.skipped == 90


@pytest.mark.parametrize(("measurement", "tags", "expected"), [
    ("port_counters", {"device": "sw1", "port": "p1"}, ("sw1", "p1")),
    ("snmp_if", {"source": "sw1", "ifName": "Eth1/1", "host": "telegraf"}, ("sw1", "Eth1/1")),
    ("interfaces", {"source": "sw1", "name": "Ethernet8", "host": "telegraf"}, ("sw1", "Ethernet8")),
    ("ethtool", {"host": "gpu1", "interface": "enp24s0np0", "driver": "mlx5_core"}, ("gpu1", "enp24s0np0")),
    ("roce_nic", {"host": "gpu1", "ibdev": "mlx5_0", "netdev": "enp24s0np0"}, ("gpu1", "mlx5_0")),
    ("snmp_sys", {"source": "sw1"}, None),  # a device's own series: no port
    ("cpu", {"host": "gpu1", "cpu": "cpu0"}, None),
    # Telegraf's infiniband input tags the node `host`, the HCA `device` and its port number `port`: the HCA's port
    # 1 is the node's link named by the HCA, as the fabric's tools name it; another port of the HCA by its number
    ("infiniband", {"host": "gpu1", "device": "mlx5_0", "port": "1"}, ("gpu1", "mlx5_0")),
    ("infiniband", {"host": "gpu1", "device": "mlx5_0", "port": "2"}, ("gpu1", "mlx5_0/2")),
    # an SNMP poller's agent address is where it polled; the name the device gives itself (sysName, as `hostname`
    # or `source`) is the device
    ("interface", {"agent_host": "10.252.10.17", "hostname": "leaf-r6", "host": "mon-col01", "ifName": "Ethernet1/1"},
     ("leaf-r6", "Ethernet1/1")),
    ("interface", {"agent_host": "leaf-r6.mgmt", "host": "mon-col01", "ifName": "Ethernet1/1"},
     ("leaf-r6.mgmt", "Ethernet1/1")),
    # Prometheus names the machine it scraped `instance` (host[:port]): node_exporter's infiniband collector tags
    # the HCA `device` and its `port`, as Telegraf's infiniband input does under `host`
    ("prometheus_remote_write", {"instance": "gpu017", "device": "mlx5_3", "port": "1", "job": "node"},
     ("gpu017", "mlx5_3")),
    ("prometheus", {"instance": "gpu017:9100", "device": "mlx5_3", "port": "2"}, ("gpu017", "mlx5_3/2")),
    # InfiniBand's tools (ibdiagnet, ibnetdiscover, perfquery scripts) name a node by its NodeDescription and a
    # port by its number: a switch's description holds its name (NVIDIA's "MF0;<name>:<model>/U1"), an HCA's is
    # "<host> <hca>" (the node's link named by the HCA, as for the infiniband inputs)
    ("ibdiag_port", {"node_desc": "MF0;ib-l07-su2:MQM9700/U1", "node_guid": "0xfc6a1c0300947", "port_num": "17"},
     ("ib-l07-su2", "17")),
    ("ib_link", {"node_desc": "gpu017 mlx5_3", "node_guid": "0x946dae03", "port_num": "1", "node_type": "CA"},
     ("gpu017", "mlx5_3")),
    ("ibdiag_port", {"node_desc": "ib-core-3", "port_num": "5"}, ("ib-core-3", "5")),
])
def test_the_device_and_port_tags_of_each_collector(measurement: str, tags: dict[str, str],
                                                     expected: tuple[str, str] | None) -> None:
    got = port_of(measurement, tags)
    assert (got if got is None else (got.device, got.port)) == expected


def test_a_description_naming_the_far_end_gives_the_far_end() -> None:
    catalog = Catalog()
    link, tagset = catalog.ids("snmp_if", {"source": "leaf1", "ifName": "Ethernet1/1", "ifAlias": "p2-spine-1:Eth1/5"})
    assert catalog.links[link] == ("leaf1", "Ethernet1/1")
    tags = catalog.tagsets[tagset]
    assert (tags["peer_device"], tags["peer_port"]) == ("p2-spine-1", "Eth1/5")
    # a description that is no "<device>:<port>" names nothing
    _, other = catalog.ids("snmp_if", {"source": "leaf1", "ifName": "Ethernet2/1", "ifAlias": "uplink to core"})
    assert "peer_device" not in catalog.tagsets[other]


def test_why_nothing_was_read_names_the_tags_a_port_needs(tmp_path: Path) -> None:
    path = tmp_path / "sys.lp"
    path.write_text("snmp_sys,source=leaf1 sysUpTime=5i 1000000000\n")
    why = why_not_a_sample([path])
    assert "sys.lp:1" in why and "snmp_sys" in why and "port" in why
