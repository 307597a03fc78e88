"""What the fabric page draws apart: link aggregates by the names vendors give them (read from a
real Nexus walk and SONiC's own database), and ports an operator shut."""

from __future__ import annotations

import json
from pathlib import Path

from fabricwatch.daemon.fabric_view import is_aggregate

FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures"


def _nexus_names() -> list[str]:
    """ifName and ifDescr of both recorded Nexus walks (the LAG walk has port-channels)."""
    names = []
    for rec in ("nxos-n9000.snmprec", "nxos_lag-mib.snmprec"):
        for ln in (FIXTURES / "snmp" / rec).read_text().splitlines():
            if ln.startswith(("1.3.6.1.2.1.31.1.1.1.1.", "1.3.6.1.2.1.2.2.1.2.")):
                names.append(ln.split("|", 2)[2])
    return names


def test_aggregates_in_a_real_nexus_walk_are_its_port_channels() -> None:
    names = _nexus_names()
    aggregates = {n for n in names if is_aggregate(n)}
    assert aggregates and aggregates == {n for n in names if n.startswith("port-channel")}
    assert not any(is_aggregate(n) for n in names if n.startswith(("Ethernet", "Vlan", "mgmt", "loopback")))


def test_sonic_portchannels_and_other_vendors_spellings() -> None:
    db = json.loads((FIXTURES / "optics" / "sonic" / "mock_counters_db.json").read_text())
    channels = {k.split(":")[-1] for k in json.dumps(db).replace('"', " ").split() if "PortChannel0" in k}
    assert channels and all(is_aggregate(c.strip(",{}")) for c in channels)
    for name in ("Port-Channel10", "bond0", "ae12", "Po7", "lag3"):
        assert is_aggregate(name), name
    for name in ("Ethernet1/1", "swp1", "eth0", "et-0/0/1", "mlx5_0/1", "port1", "Ethernet48", "bond"):
        assert not is_aggregate(name), name
