"""Principle 2 (load judged against the groups the traffic forms) needs each port's far end and role, and a site may
give neither for some ports: what the cables say fills them in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.replayed import last_links


@pytest.mark.parametrize("reader", ["columns", "samples"])
def test_a_cable_end_one_side_names_is_the_other_sides_far_end(tmp_path: Path, reader: str) -> None:
    """A cable has two ends: a site that describes only its switch ports (`ifAlias` "gpu1:mlx5_0", Telegraf's SNMP
    input) while its NICs' exporter tags only the host and the RDMA device has named the NIC's far end too. The
    NIC's marks received are its far switch port's queue's, its pauses that port's: without its far end a NIC is
    judged against nothing."""
    links = last_links(tmp_path, reader, [
        "snmp_if,ifAlias=gpu1:mlx5_0,ifName=Eth1/1,source=leaf1 ifHCOutOctets={n}000i",
        "snmp_if,ifAlias=spine1:Eth1/9,ifName=Eth1/25,source=leaf1 ifHCOutOctets={n}000i",
        "roce_nic,host=gpu1,ibdev=mlx5_0,netdev=enp24s0np0 tx_bytes_phy={n}000i",
        "roce_nic,host=gpu1,ibdev=mlx5_1,netdev=enp40s0np0 tx_bytes_phy={n}000i",
    ])
    nic = links[("gpu1", "mlx5_0")].tags
    assert (nic["peer_device"], nic["peer_port"]) == ("leaf1", "Eth1/1")
    assert "peer_device" not in links[("gpu1", "mlx5_1")].tags  # a port no cable end names has no far end
    assert links[("leaf1", "Eth1/1")].tags["peer_device"] == "gpu1"  # what a port says of itself stands


@pytest.mark.parametrize("reader", ["columns", "samples"])
def test_tiers_from_the_wiring_where_no_port_says_a_role(tmp_path: Path, reader: str) -> None:
    """Where no tag gives a role or tier at all (SNMP describes ports by their far ends only), the wiring gives
    them: a port named by its host's RDMA device is a host's; a switch hosts hang off is a leaf (towards hosts its
    host ports, towards switches heard from its uplinks). Above the leaves the wiring says nothing: a host whose
    words say nothing faces leaves on every port as a spine does, so a spine without words keeps no role, and a
    switch whose far ends are all unheard of keeps none either."""
    lines = [f"roce_nic,host=gpu{h},ibdev=mlx5_0 tx_bytes_phy={{n}}000i" for h in (1, 2)]
    for leaf in (1, 2):
        lines += [f"snmp_if,ifAlias=gpu{h}:mlx5_0,ifName=Eth1/{h},source=leaf{leaf} ifHCOutOctets={{n}}000i"
                  for h in (1, 2) if h == leaf]
        lines += [f"snmp_if,ifAlias=spine{s}:Eth1/{leaf},ifName=Eth1/{24 + s},source=leaf{leaf} "
                  "ifHCOutOctets={n}000i" for s in (1, 2)]
    for s in (1, 2):
        lines += [f"snmp_if,ifAlias=leaf{leaf}:Eth1/{24 + s},ifName=Eth1/{leaf},source=spine{s} "
                  "ifHCOutOctets={n}000i" for leaf in (1, 2)]
        lines += [f"snmp_if,ifAlias=ss1:Eth1/{s},ifName=Eth1/31,source=spine{s} ifHCOutOctets={{n}}000i"]
        lines += [f"snmp_if,ifAlias=spine{s}:Eth1/31,ifName=Eth1/{s},source=ss1 ifHCOutOctets={{n}}000i"]
    lines += ["snmp_if,ifAlias=storleaf:Eth1/29,ifName=Eth1/31,source=ss1 ifHCOutOctets={n}000i",
              "snmp_if,ifAlias=ss1:Eth1/31,ifName=Eth1/29,source=storleaf ifHCOutOctets={n}000i",
              "snmp_if,ifAlias=stor01:ens1f0,ifName=Eth1/1,source=storleaf ifHCOutOctets={n}000i"]
    roles = {key: li.tags.get("role", "") for key, li in last_links(tmp_path, reader, lines).items()}
    assert roles == {
        ("gpu1", "mlx5_0"): "host", ("gpu2", "mlx5_0"): "host",
        ("leaf1", "Eth1/1"): "leaf_down", ("leaf2", "Eth1/2"): "leaf_down",
        **{(f"leaf{leaf}", f"Eth1/{24 + s}"): "leaf_up" for leaf in (1, 2) for s in (1, 2)},
        **{(f"spine{s}", f"Eth1/{leaf}"): "" for leaf in (1, 2) for s in (1, 2)},
        ("spine1", "Eth1/31"): "", ("spine2", "Eth1/31"): "",
        ("ss1", "Eth1/1"): "", ("ss1", "Eth1/2"): "", ("ss1", "Eth1/31"): "",
        ("storleaf", "Eth1/29"): "", ("storleaf", "Eth1/1"): "",
    }, roles


@pytest.mark.parametrize("reader", ["columns", "samples"])
def test_infiniband_says_what_each_node_is_so_the_wiring_gives_every_tier(tmp_path: Path, reader: str) -> None:
    """Principle 2 needs the groups the traffic forms, and InfiniBand's tools say what each node is (ibnetdiscover's
    node_type and remote_type: SW a switch, CA a host's adapter): a host's port is a host's; a switch facing hosts is
    a leaf; a switch facing leaves on at least half of its ports is a spine (towards the leaves `spine`, above
    `spine_up`), and one facing spines above them a core, even where it also takes a storage leaf or two. No name
    gives any of it (ib-l1, ib-x7 and ib-q3 say nothing)."""
    def sw(name: str) -> str:
        return f"MF0;{name}:MQM9700/U1"

    def link(a: str, a_type: str, a_port: int, b: str, b_type: str, b_port: int) -> list[str]:
        return [f"ib_link,node_desc={a},node_type={a_type},port_num={a_port},remote_desc={b},remote_port={b_port},"
                f"remote_type={b_type} lid={{n}}i",
                f"ibdiag_port,node_desc={a},port_num={a_port} port_xmit_data={{n}}000i"]

    lines: list[str] = []
    lines += link(r"gpu1\ mlx5_0", "CA", 1, sw("ib-l1"), "SW", 1)
    lines += link(sw("ib-l1"), "SW", 1, r"gpu1\ mlx5_0", "CA", 1)
    lines += link(sw("stor-sw"), "SW", 1, r"stor1\ mlx5_0", "CA", 1)
    for k, spine in enumerate(("ib-x7", "ib-x8")):
        lines += link(sw("ib-l1"), "SW", 33 + k, sw(spine), "SW", 1)
        lines += link(sw(spine), "SW", 1, sw("ib-l1"), "SW", 33 + k)
        lines += link(sw(spine), "SW", 33, sw("ib-q3"), "SW", 1 + k)
        lines += link(sw("ib-q3"), "SW", 1 + k, sw(spine), "SW", 33)
    lines += link(sw("ib-q3"), "SW", 16, sw("stor-sw"), "SW", 19)
    lines += link(sw("stor-sw"), "SW", 19, sw("ib-q3"), "SW", 16)
    roles = {key: li.tags.get("role", "") for key, li in last_links(tmp_path, reader, lines).items()}
    assert roles == {
        ("gpu1", "mlx5_0"): "host", ("ib-l1", "1"): "leaf_down", ("stor-sw", "1"): "leaf_down",
        ("ib-l1", "33"): "leaf_up", ("ib-l1", "34"): "leaf_up", ("stor-sw", "19"): "leaf_up",
        ("ib-x7", "1"): "spine", ("ib-x8", "1"): "spine", ("ib-x7", "33"): "spine_up", ("ib-x8", "33"): "spine_up",
        ("ib-q3", "1"): "core", ("ib-q3", "2"): "core", ("ib-q3", "16"): "core",
    }, roles


@pytest.mark.parametrize("reader", ["columns", "samples"])
def test_a_port_named_by_its_hosts_adapter_is_a_hosts_whoever_collected_it(tmp_path: Path, reader: str) -> None:
    """A port named by a host's adapter is a host's, whichever tool named it: node_exporter's infiniband collector
    through Prometheus (`instance`, `device`, `port`), or a NodeDescription naming a host and its HCA
    ("gpu2 mlx5_1"); a switch's NodeDescription names no host."""
    links = last_links(tmp_path, reader, [
        "prometheus_remote_write,device=mlx5_0,instance=gpu1,job=node,port=1 "
        "node_infiniband_port_data_received_bytes_total={n}000",
        r"ibdiag_port,node_desc=gpu2\ mlx5_1,port_num=1 port_xmit_data={n}000i",
        "ibdiag_port,node_desc=MF0;ib-l1:MQM9700/U1,port_num=3 port_xmit_data={n}000i",
    ])
    assert links[("gpu1", "mlx5_0")].tags.get("role") == "host"
    assert links[("gpu2", "mlx5_1")].tags.get("role") == "host"
    assert "role" not in links[("ib-l1", "3")].tags
