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
    # node_exporter's network and ethtool collectors name a host's interface `device` (no port number): the machine
    # is the one scraped (`instance`, the scrape `url`), or the collector's `host` where Telegraf scraped its own
    ("prometheus", {"host": "gpu-0199", "device": "enp206s0np0", "url": "http://localhost:9100/metrics"},
     ("gpu-0199", "enp206s0np0")),
    ("prometheus", {"host": "mon01", "device": "enp24s0np0", "url": "http://gpu017:9100/metrics"},
     ("gpu017", "enp24s0np0")),
    ("node_network_receive_bytes_total", {"instance": "gpu017:9100", "device": "eth0", "job": "node"},
     ("gpu017", "eth0")),
    # a `device` of no scrape is no interface (a collector's own series of something else)
    ("custom", {"host": "collector1", "device": "leaf01"}, None),
])
def test_the_device_and_port_tags_of_each_collector(measurement: str, tags: dict[str, str],
                                                     expected: tuple[str, str] | None) -> None:
    got = port_of(measurement, tags)
    assert (got if got is None else (got.device, got.port)) == expected


def test_a_host_scraped_for_other_devices_gives_no_ports_for_them(tmp_path: Path) -> None:
    """node_exporter labels disks and filesystems `device` too: a series with no counter of the vocabulary is no
    port (no link, no interval), while the interface next to it is read."""
    lines = []
    for t in range(0, 300, 10):
        scrape = "host=gpu1,url=http://localhost:9100/metrics"
        lines += [f"prometheus,device=sda,{scrape} node_disk_read_bytes_total={t * 10**6} {t * 10**9}",
                  f"prometheus,device=enp24s0np0,{scrape} node_network_receive_bytes_total={t * 10**6},"
                  f"node_ethtool_transmitted_prio3_pause={t} {t * 10**9}"]
    path = tmp_path / "node.lp"
    path.write_text("\n".join(lines) + "\n")
    for intervals in (list(intervals_from_lp([path], 30.0)),
                      [iv for part in intervals_from_files([path], 30.0) for iv in part]):
        ports = {(li.device, li.port) for iv in intervals for li in iv[1]}
        assert ports == {("gpu1", "enp24s0np0")}
        assert all(li.rates.get("pfc_tx_p3") == pytest.approx(1.0) for iv in intervals[1:] for li in iv[1])


def _nic_lines(t: int, joined: bool) -> list[str]:
    scrape = "host=gpu1,url=http://localhost:9100/metrics"
    out = [f"prometheus,device=mlx5_0,{scrape},port=1 node_infiniband_port_data_received_bytes_total={t * 10**9} "
           f"{t * 10**9}",
           # the kernel's netdev counts only what the kernel moved (TCP), not RDMA: another counter of in_octets
           f"prometheus,device=enp24s0np0,{scrape} node_network_receive_bytes_total={t * 10**3},"
           f"node_ethtool_transmitted_prio3_pause={5 * t} {t * 10**9 + 7}"]
    if joined:
        out.insert(0, f"prometheus,device=mlx5_0,{scrape},netdev=enp24s0np0,port=1 rdma_netdev_info=1 {t * 10**9}")
    return out


@pytest.mark.parametrize("joined", [True, False])
def test_a_nic_is_one_port_under_its_rdma_and_its_network_device_names(tmp_path: Path, joined: bool) -> None:
    """Principle (the same through every path): a NIC's RDMA device (`mlx5_0`, as the fabric's tools name a host's
    end) and its network device (`enp24s0np0`, node_exporter's and ethtool's name) are one port where a series
    says so (a `netdev` tag beside the RDMA device): its pauses and its traffic are one link's. A counter both
    names give (in_octets: RDMA's bytes, the kernel's TCP bytes) is read from the first that gave it, never
    interleaved. Nothing saying so, they stay two ports."""
    path = tmp_path / "nic.lp"
    path.write_text("\n".join(line for t in range(0, 300, 10) for line in _nic_lines(t, joined)) + "\n")
    for intervals in (list(intervals_from_lp([path], 30.0)),
                      [iv for part in intervals_from_files([path], 30.0, chunk_bytes=400) for iv in part]):
        ports = {(li.device, li.port) for iv in intervals for li in iv[1]}
        rates = [li.rates for iv in intervals[1:] for li in iv[1] if li.port == "mlx5_0"]
        assert rates and all(r.get("in_octets") == pytest.approx(10**9) for r in rates)
        if joined:
            assert ports == {("gpu1", "mlx5_0")}
            assert all(r.get("pfc_tx_p3") == pytest.approx(5.0) for r in rates)
        else:
            assert ports == {("gpu1", "mlx5_0"), ("gpu1", "enp24s0np0")}


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
