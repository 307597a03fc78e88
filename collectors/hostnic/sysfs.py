"""Read /sys/class/infiniband/<dev>/ports/<n>/{counters,hw_counters,state,rate} into canonical values."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from fabricwatch.core.digits import parse_uint
from fabricwatch.core.names import lookup

_RATE = re.compile(r"^\s*(\d{1,6}(?:\.\d{1,6})?)\s*Gb/sec")


@dataclass(slots=True)
class NicPort:
    device: str  # mlx5_0
    port: str  # 1
    values: dict[str, int] = field(default_factory=dict)
    bits: dict[str, int] = field(default_factory=dict)
    link_layer: str = ""
    netdevs: list[str] = field(default_factory=list)
    unmapped: int = 0
    unreadable: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.device}/{self.port}"


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes()[:256].decode("ascii").strip()
    except (OSError, UnicodeDecodeError):  # counters the driver lists but cannot read (e.g. no PMA)
        return None


def _counter(text: str | None) -> int | None:
    """A u64 in decimal, as the kernel writes counters; anything else is not one."""
    value = parse_uint(text) if text is not None else None
    return value if value is not None and value < 2**64 else None


def _counters(port: NicPort, directory: Path) -> None:
    if not directory.is_dir():
        return
    for f in sorted(directory.iterdir()):
        text = _read(f)
        counter = lookup(f.name)
        if counter is None:
            port.unmapped += 1
            continue
        value = _counter(text)
        if value is None:
            port.unreadable.append(f.name)
            continue
        port.values[counter.canonical] = value * counter.scale
        if counter.bits is not None:
            port.bits[counter.canonical] = counter.bits


def read_ports(root: Path, devices: list[str], *, hw_counters: bool = True) -> list[NicPort]:
    """Every port of every RDMA device under root (a sysfs root, '/' on a real host)."""
    base = root / "sys" / "class" / "infiniband"
    if not base.is_dir():
        return []
    out = []
    for dev in sorted(base.iterdir()):
        if devices and not any(fnmatchcase(dev.name, g) for g in devices):
            continue
        net = dev / "device" / "net"
        netdevs = sorted(p.name for p in net.glob("*")) if net.is_dir() else []
        for pdir in sorted((dev / "ports").glob("*"), key=lambda p: p.name):
            port = NicPort(dev.name, pdir.name, netdevs=netdevs)
            _counters(port, pdir / "counters")
            if hw_counters:
                _counters(port, pdir / "hw_counters")
            state = _read(pdir / "state")  # "4: ACTIVE"
            if state is not None:
                port.values["oper_status"] = 1 if state.upper().endswith("ACTIVE") else 0
            rate = _read(pdir / "rate")  # "100 Gb/sec (4X EDR)"
            if rate and (m := _RATE.match(rate)):
                port.values["speed_bps"] = int(float(m.group(1)) * 1_000_000_000)
            port.link_layer = _read(pdir / "link_layer") or ""
            out.append(port)
    return out
