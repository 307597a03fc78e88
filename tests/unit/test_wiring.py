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
