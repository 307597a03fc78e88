"""A server's host adapters are one host: the real HDR director capture (2,328 adapters) grouped by
node description ('<host> <adapter>') and system GUID, and what could not be grouped reported."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from fabricwatch.topology.roles import records
from fabricwatch.topology.sources import from_ibnetdiscover, host_and_adapter

IB = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "ib" / "ibnetdiscover_director.txt"
CA = re.compile(r'^Ca\s+\d+\s+"H-(?P<guid>[0-9a-f]+)"\s*#\s*"(?P<desc>[^"]*)"', re.M)


def servers_in_capture(text: str) -> tuple[dict[str, set[str]], list[str]]:
    """Counted independently of the code under test. Rule: a server is the first word of an adapter's
    node description when the description is exactly two words; the 103 adapters left at the default
    'MT4123 ConnectX6   Mellanox Technologies' (four words) name no server."""
    servers: dict[str, set[str]] = defaultdict(set)
    unnamed = []
    for m in CA.finditer(text):
        words = m["desc"].split()
        if len(words) == 2:
            servers[words[0]].add(m["guid"])
        else:
            unnamed.append(m["guid"])
    return servers, unnamed


def test_the_director_capture_gives_one_host_per_server() -> None:
    text = IB.read_text()
    servers, unnamed = servers_in_capture(text)
    assert (len(servers), len(unnamed)) == (280, 103)
    assert Counter(len(g) for g in servers.values()) == {8: 275, 7: 3, 2: 2}
    fabric = from_ibnetdiscover(text)
    hosts = {n for n, node in fabric.nodes.items() if node.kind == "host"}
    # every server is one host; each default-named adapter stays a host of its own, told apart by GUID
    assert {h for h in hosts if not h.startswith("MT4123")} == set(servers)
    assert len(hosts) == len(servers) + len(unnamed) == 383
    assert sum(n.kind == "switch" for n in fabric.nodes.values()) == 400 and len(fabric.cables) == 8723
    # every server's adapters are that host's ports, named by the adapter's interface (HCA-n: by HCA and port)
    ports: dict[str, set[str]] = defaultdict(set)
    for c in fabric.cables.values():
        for device, port in (c.a, c.b):
            if device in servers:
                ports[device].add(port)
    assert ports["SAT111092710037"] == {f"ibp{b}s0f0" for b in (11, 21, 75, 85, 139, 149, 203, 213)}
    assert ports["sat11-0101-0902-01ufm"] == {"HCA-1/1", "HCA-2/1"}
    assert {h: len(p) for h, p in ports.items()} == {h: len(g) for h, g in servers.items()}
    # said how, and what was not grouped
    notes = " ".join(fabric.notes)
    assert "2,225 adapters into 280 hosts" in notes and "by node description" in notes, notes
    assert "system GUID" in notes
    [ungrouped] = [p for p in fabric.problems if "no host" in p.detail]
    assert "103 adapters" in ungrouped.detail and "MT4123 ConnectX6" in ungrouped.detail


def test_rails_follow_the_servers_adapters() -> None:
    recs = records(from_ibnetdiscover(IB.read_text()), fabric_name="ib")
    rail = {(r["device"], r["port"]): r.get("rail", "") for r in recs if r["role"] == "host"}
    # eight adapters in interface order are rails 0-7 on each eight-adapter server
    assert [rail[("SAT111092710037", f"ibp{b}s0f0")] for b in (11, 21, 75, 85, 139, 149, 203, 213)] == \
        [str(i) for i in range(8)]
    assert rail[("sat11-0101-0902-01ufm", "HCA-1/1")] == "0" and rail[("sat11-0101-0902-01ufm", "HCA-2/1")] == "1"
    down = {(r["device"], r["port"]): r.get("rail", "") for r in recs if r["role"] == "leaf_down"}
    for r in recs:
        if r["role"] == "host" and "rail" in r and (r["peer_device"], r["peer_port"]) in down:
            assert down[(r["peer_device"], r["peer_port"])] == r["rail"]


def test_adapters_sharing_a_system_guid_are_one_host_whatever_their_descriptions() -> None:
    text = "\n".join([
        "sysimgguid=0x1000", 'Ca\t2 "H-0000000000001000"\t# "gpu7 mlx5_0"',
        '[1](1000) "S-0000000000000001"[1]\t# "leaf" lid 1 4xHDR',
        "", "sysimgguid=0x1000", 'Ca\t2 "H-0000000000001001"\t# "MT4123 ConnectX6   Mellanox Technologies"',
        '[1](1001) "S-0000000000000001"[2]\t# "leaf" lid 1 4xHDR',
        "", 'Switch\t36 "S-0000000000000001"\t# "leaf" enhanced port 0 lid 1 lmc 0',
        '[1]\t"H-0000000000001000"[1](1000)\t# "gpu7 mlx5_0" lid 2 4xHDR',
        '[2]\t"H-0000000000001001"[1](1001)\t# "MT4123 ConnectX6   Mellanox Technologies" lid 3 4xHDR', ""])
    fabric = from_ibnetdiscover(text)
    assert sorted(n for n, node in fabric.nodes.items() if node.kind == "host") == ["gpu7"]
    assert {c.a if c.a[0] == "gpu7" else c.b for c in fabric.cables.values()} == \
        {("gpu7", "mlx5_0/1"), ("gpu7", "0x0000000000001001/1")}


ADAPTERS = st.sampled_from(["mlx5_0", "mlx5_13", "mlx4_1", "ibp213s0f0", "ib0", "ibs1f1", "HCA-1", "HCA-2",
                            "hfi1_0", "qib0"])
HOSTS = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40).filter(
    lambda s: s.split() == [s] and s.isprintable())


@given(st.text(max_size=200))
def test_any_description_never_raises(description: str) -> None:
    found = host_and_adapter(description)
    assert found is None or (found[0] and found[1])


@given(HOSTS, ADAPTERS, st.sampled_from([" ", "  ", "\t"]))
def test_a_host_and_adapter_description_gives_the_host(host: str, adapter: str, gap: str) -> None:
    assert host_and_adapter(f"{host}{gap}{adapter}") == (host, adapter)
