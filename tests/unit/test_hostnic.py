"""Host NIC counters from a recorded sysfs tree (mlx4, mlx5 with RoCE hw_counters, hfi1)."""

from __future__ import annotations

from pathlib import Path

from fabricwatch.collectors.hostnic.config import HostNicConfig
from fabricwatch.collectors.hostnic.ethtool import parse_ethtool_stats
from fabricwatch.collectors.hostnic.sysfs import read_ports
from fabricwatch.core.batch import SampleBatch
from fabricwatch.core.names import lookup
from fabricwatch.core.topology import Topology
from fabricwatch.pipeline.pipeline import Pipeline


def _raw(root: Path, dev: str, port: str, sub: str, name: str) -> int:
    return int((root / "sys/class/infiniband" / dev / "ports" / port / sub / name).read_text())


def test_recorded_sysfs_tree_reads_to_canonical_values(fixtures: Path) -> None:
    root = fixtures / "hostnic" / "sysfs"
    ports = {p.name: p for p in read_ports(root, [])}
    assert set(ports) == {"hfi1_0/1", "mlx4_0/1", "mlx4_0/2", "mlx5_0/1"}
    for name, p in ports.items():
        dev, num = name.split("/")
        # data counters are in 4-octet words; packets and errors as they are
        assert p.values["out_octets"] == 4 * _raw(root, dev, num, "counters", "port_xmit_data")
        assert p.values["in_octets"] == 4 * _raw(root, dev, num, "counters", "port_rcv_data")
        assert p.values["out_pkts"] == _raw(root, dev, num, "counters", "port_xmit_packets")
        assert p.values["symbol_errors"] == _raw(root, dev, num, "counters", "symbol_error")
        assert p.values["link_downed"] == _raw(root, dev, num, "counters", "link_downed")
        assert p.values["vl15_dropped"] == _raw(root, dev, num, "counters", "VL15_dropped")
        assert p.values["xmit_wait"] == _raw(root, dev, num, "counters", "port_xmit_wait")
    mlx5 = ports["mlx5_0/1"]
    assert mlx5.values["oper_status"] == 1 and mlx5.values["speed_bps"] == 25_000_000_000
    assert ports["mlx4_0/1"].values["speed_bps"] == 40_000_000_000
    for counter in ("out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err",
                    "roce_adp_retrans"):
        assert mlx5.values[counter] == _raw(root, "mlx5_0", "1", "hw_counters", counter)
    assert "local_ack_timeout_err" not in ports["mlx4_0/1"].values  # mlx4 has no hw_counters here
    assert {p.name for p in read_ports(root, ["mlx5_*"])} == {"mlx5_0/1"}


async def test_collector_tags_host_ports_with_the_leaf_they_plug_into(fixtures: Path) -> None:
    cfg = HostNicConfig(host="gpu-017", sysfs_root=fixtures / "hostnic" / "sysfs", devices=["mlx5_*"])
    [collector] = cfg.build()
    async with collector:
        batch: SampleBatch = await collector.poll()  # type: ignore[attr-defined]
    [sample] = batch.samples
    assert (sample.device, sample.port, sample.tags["role"]) == ("gpu-017", "mlx5_0/1", "host")
    topo = Topology.from_records([{"device": "leaf-r0-0", "port": "swp7", "role": "leaf_down", "rail": "0",
                                   "peer_device": "gpu-017", "peer_port": "mlx5_0/1"}])
    lines = Pipeline(topology=topo).process(batch).lines
    assert any(line.startswith("port_counters,device=gpu-017,") and "peer_device=leaf-r0-0" in line
               and "peer_port=swp7" in line and "role=host" in line and "rail=0" in line for line in lines)


def test_ethtool_per_priority_pause() -> None:
    text = """NIC statistics:
     rx_packets: 1000
     rx_prio3_pause: 4411
     tx_prio3_pause: 17
     rx_prio3_pause_duration: 9000
     tx_pause_storm_warning_events: 2
     rx_pause_ctrl_phy: 5
"""
    values, unmapped, _bits = parse_ethtool_stats(text)
    assert values == {"pfc_rx_p3": 4411, "pfc_tx_p3": 17, "pause_storm_events": 2, "pause_rx": 5}
    assert unmapped == 2


def test_one_table_for_every_spelling() -> None:
    for name in ("SymbolErrorCounter", "symbol_error", "Infiniband_SymbolErrors_u_Errors"):
        c = lookup(name)
        assert c is not None and c.canonical == "symbol_errors" and c.bits is None, name
    ext = lookup("SymbolErrorCounterExtended")
    assert ext is not None and ext.bits == 64
    data = lookup("PortXmitDataExtended")
    assert data is not None and (data.canonical, data.scale, data.bits) == ("out_octets", 4, 64)
    assert lookup("Infiniband_MBOut_u_Gb") is None


def test_simulated_host_trees_read_back_and_find_their_leaf(tmp_path: Path) -> None:
    import asyncio
    import time

    from fabricwatch.simulator.fabric import Fabric
    from fabricwatch.simulator.host_sysfs import write_host_trees
    from fabricwatch.simulator.topology import FabricSpec

    fabric = Fabric(FabricSpec(nodes=4, rails=2, spines=2), seed=3, start_ns=time.time_ns() - 60 * 10**9)
    snap = fabric.snapshot(time.time_ns())
    hosts = write_host_trees(fabric, snap, tmp_path)
    assert hosts == ["node000", "node001", "node002", "node003"]
    cfg = HostNicConfig(host="node002", sysfs_root=tmp_path / "node002")
    [collector] = cfg.build()
    batch: SampleBatch = asyncio.run(collector.poll())  # type: ignore[attr-defined]
    assert {s.port for s in batch.samples} == {"mlx5_0/1", "mlx5_1/1"}
    topo = Topology.from_records(fabric.topology.records())
    for s in batch.samples:
        leaf = next(p for p in fabric.ports if p.peer_device == "node002" and p.peer_port == s.port)
        row = snap.port_values(leaf)
        assert s.values["out_octets"] == row["in_octets"] // 4 * 4  # what the leaf received, the host sent
        assert s.values["in_pkts"] == row["out_pkts"]
        assert s.values["ecn_marked"] == row["ecn_marked"] and s.values["cnp_sent"] == row["ecn_marked"]
        assert s.values["oper_status"] == 1 and s.values["speed_bps"] == leaf.speed_bps
        tags = topo.tags("node002", s.port)
        assert (tags["peer_device"], tags["peer_port"]) == (leaf.device, leaf.name)
