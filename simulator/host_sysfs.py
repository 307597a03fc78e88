"""Write a sysfs-shaped tree per simulated host: /sys/class/infiniband/mlx5_<rail>/ports/1/...

A host NIC sees its leaf port's traffic mirrored (what the leaf receives, the host sent), the
link's symbol errors, and the ECN marks the leaf put on packets towards it (each answered with
a CNP). The host NIC collector reads these trees with `sysfs_root = <dir>/<host>`.
"""

from __future__ import annotations

from pathlib import Path

from fabricwatch.simulator.fabric import COL, Fabric, Snapshot
from fabricwatch.simulator.topology import SimPort


def host_port_files(snap: Snapshot, leaf_port: SimPort) -> dict[str, str]:
    """Relative file path -> content for the host end of one leaf_down port."""
    row = snap.counters[leaf_port.index]

    def v(name: str) -> int:
        return int(row[COL[name]])

    # what the link trained to: its speed, its width (lanes) and its lanes' rate, as the kernel shows them
    gbps = snap.port_speed_bps(leaf_port) // 1_000_000_000
    width = snap.port_lanes(leaf_port)
    lane_rate = "NDR" if leaf_port.speed_bps >= 400e9 else "HDR"
    return {
        "counters/port_xmit_data": str(v("in_octets") // 4),  # 4-octet words, as the kernel shows them
        "counters/port_rcv_data": str(v("out_octets") // 4),
        "counters/port_xmit_packets": str(v("in_pkts")),
        "counters/port_rcv_packets": str(v("out_pkts")),
        "counters/symbol_error": str(min(v("symbol_errors"), 65535)),
        "counters/port_rcv_errors": str(min(v("out_errors"), 65535)),
        "counters/link_downed": str(min(v("link_transitions") // 2, 255)),
        "counters/port_xmit_wait": str(v("xmit_wait")),
        "hw_counters/np_ecn_marked_roce_packets": str(v("ecn_marked")),
        "hw_counters/np_cnp_sent": str(v("ecn_marked")),
        "hw_counters/rp_cnp_handled": str(v("ecn_marked")),
        "hw_counters/out_of_sequence": "0",
        "state": "4: ACTIVE" if snap.oper_up[leaf_port.index] else "1: DOWN",
        "phys_state": "5: LinkUp" if snap.oper_up[leaf_port.index] else "3: Disabled",
        "rate": f"{gbps} Gb/sec ({width}X {lane_rate})",
        "link_layer": "InfiniBand",
    }


def write_host_trees(fabric: Fabric, snap: Snapshot, root: Path) -> list[str]:
    """One tree per host under root/<host>/; returns the hosts written. Files are replaced
    atomically so a reader never sees half a number."""
    hosts = set()
    for port in fabric.ports:
        if port.role != "leaf_down":
            continue
        device, _, num = port.peer_port.partition("/")
        base = root / port.peer_device / "sys/class/infiniband" / device / "ports" / (num or "1")
        for rel, content in host_port_files(snap, port).items():
            path = base / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(content + "\n")
            tmp.replace(path)
        hosts.add(port.peer_device)
    return sorted(hosts)
