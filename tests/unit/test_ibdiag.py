"""infiniband-diags output from real fabrics: perfquery counters, ibnetdiscover topologies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fabricwatch.collectors.ibdiag.config import IbDiagConfig
from fabricwatch.collectors.ibdiag.parsers import (
    parse_ibnetdiscover,
    parse_ibnetdiscover_ports,
    parse_perfquery,
    parse_topology,
)
from fabricwatch.core.errors import TargetError
from fabricwatch.core.topology import Topology
from tests.ibtools import ib_stand_ins, shell_script


def _fields(text: str) -> list[dict[str, int]]:
    """Each block of a perfquery output as name -> int, read independently of the parser."""
    blocks: list[dict[str, int]] = []
    for line in text.splitlines():
        if line.startswith("#"):
            blocks.append({})
        elif m := re.match(r"^(\w+):\.+(\S+)$", line):
            blocks[-1][m.group(1)] = int(m.group(2), 0)
    return blocks


def test_perfquery_extended_counters_from_an_edr_fabric(fixtures: Path) -> None:
    files = sorted((fixtures / "ib" / "perfquery").glob("*.out"))
    assert len(files) == 5
    for f in files:
        text = f.read_text()
        res = parse_perfquery(text)
        blocks = _fields(text)
        if not text:  # one recording is empty upstream
            assert res.ports == [] and res.problems == ["empty output"]
            continue
        assert len(res.ports) == len(blocks) and not res.problems
        for port, raw in zip(res.ports, blocks, strict=True):
            assert port.extended and port.port == str(raw["PortSelect"])
            assert port.values["out_octets"] == 4 * raw["PortXmitData"]  # 4-octet words
            assert port.values["in_octets"] == 4 * raw["PortRcvData"]
            assert port.values["out_pkts"] == raw["PortXmitPkts"]
            assert port.values["symbol_errors"] == raw["SymbolErrorCounter"]
            assert port.values["xmit_wait"] == raw["PortXmitWait"]
            assert port.values["vl15_dropped"] == raw["VL15Dropped"]
            assert port.bits["out_octets"] == 64 and port.bits["symbol_errors"] == 64  # extended: wraps
    two = parse_perfquery((fixtures / "ib" / "perfquery" / "0x7cfe9003009ce5b0.out").read_text())
    assert [(p.lid, p.port) for p in two.ports] == [(1719, "1"), (1719, "2")]
    assert two.ports[0].values["xmit_wait"] == 22730501


def test_perfquery_error_details_and_a_truncated_output(fixtures: Path) -> None:
    res = parse_perfquery((fixtures / "ib" / "perfquery-rcv-error" / "0x7cfe9003009ce5b0-2.out").read_text())
    [port] = res.ports
    assert (port.lid, port.port, port.extended) == (1719, "2", False)
    assert "PortLocalPhysicalErrors" in port.unmapped  # detail counters: parsed, not canonical
    text = (fixtures / "ib" / "perfquery" / "0x7cfe9003009ce5b0.out").read_text()
    cut = text[: text.index("PortRcvErrors", text.index("port 2"))] + "PortRcvEr"
    res = parse_perfquery(cut)
    assert len(res.ports) == 2 and "symbol_errors" in res.ports[1].values
    assert "rcv_errors" not in res.ports[1].values
    assert len(res.problems) == 1 and res.problems[0].startswith(f"line {cut.count(chr(10)) + 1}:")


def test_ibnetdiscover_port_lines(fixtures: Path) -> None:
    topo = parse_ibnetdiscover_ports((fixtures / "ib" / "ibnetdiscover" / "test.out").read_text())
    assert len(topo.ports) == 9 and not topo.problems
    sw = {(p.name, p.port): p for p in topo.ports if p.node_type == "SW"}
    assert sw[("ib-i1l1s01", "10")].peer_name == "o0001 HCA-1" and sw[("ib-i1l1s01", "10")].peer_port == "1"
    assert sw[("ib-i1l1s01", "1")].peer_name == "ib-i1l2s01"
    assert sw[("ib-i4l1s01", "37")].peer_name == ""  # not connected
    assert topo.switches()["0x7cfe9003009ce5b0"] == (1719, "ib-i1l1s01")
    odd = parse_ibnetdiscover_ports((fixtures / "ib" / "ibnetdiscover" / "test2.out").read_text())
    names = {p.name for p in odd.ports}
    assert "5FB0406-spine-IB02" in names and "5FB0406-spine-IB03" in names  # padded names trimmed


def test_a_2328_node_hdr_fabric_becomes_a_topology_with_the_right_peers(fixtures: Path) -> None:
    text = (fixtures / "ib" / "ibnetdiscover_director.txt").read_text()
    topo = parse_ibnetdiscover(text)
    switches = {p.guid for p in topo.ports if p.node_type == "SW"}
    hosts = {p.guid for p in topo.ports if p.node_type == "CA"}
    assert (len(switches), len(hosts)) == (400, 2328)
    # the capture is a terminal log: its shell prompt at the end is reported, not fatal
    assert len(topo.problems) == 1 and "mgmt-ha-active" in topo.problems[0]
    ends = {(p.guid, p.port): (p.peer_guid, p.peer_port) for p in topo.ports}
    assert all(ends.get(far) == near for near, far in ends.items() if far in ends), "links are symmetric"
    known = sum(1 for far in ends.values() if far in ends)
    assert known >= 0.99 * len(ends)
    assert parse_topology(text).switches() == topo.switches()  # the format is told from the text
    tp = Topology.from_records(topo.records())
    first = next(p for p in topo.ports if p.node_type == "SW" and p.peer_type == "CA")
    assert tp.tags(first.name, first.port)["peer_device"] == first.peer_name
    # and the host NIC side finds its switch port through the reverse index
    assert tp.tags(first.peer_name, first.peer_port)["peer_device"] == first.name


async def test_collector_runs_the_tools_with_bounded_concurrency_and_timeouts(
    fixtures: Path, tmp_path: Path
) -> None:
    # stand-ins for the tools (no IB hardware here): they print the recorded outputs
    disc, perf = ib_stand_ins(tmp_path, fixtures, hanging_lid=1781)
    cfg = IbDiagConfig(ibnetdiscover=[disc, "-p"], perfquery=[perf, "-x", "{lid}"], timeout=1.0,
                       max_concurrency=2, fabric="lab-ib")
    [collector] = cfg.build()
    async with collector:
        batch = await collector.poll()  # type: ignore[attr-defined]
    got = {(s.device, s.port): s for s in batch.samples}
    assert set(got) == {("ib-i1l1s01", "1"), ("ib-i1l1s01", "2"), ("ib-i4l1s01", "1")}
    assert got[("ib-i1l1s01", "1")].tags["peer_device"] == "ib-i1l2s01"
    assert got[("ib-i1l1s01", "1")].values["xmit_wait"] == 22730501
    # the third switch (lid 1781) hangs: counted with its name, the other two are read
    assert [k for k, _ in batch.problems] == ["timeout"]
    assert any("ib-i7l2s01" in m and "took over 1s" in m for _, m in batch.problems)
    missing = IbDiagConfig(ibnetdiscover=[str(tmp_path / "nope"), "-p"], perfquery=[perf, "{lid}"])
    [c2] = missing.build()
    with pytest.raises(TargetError, match="cannot run"):
        await c2.poll()  # type: ignore[attr-defined]


async def test_tools_get_no_secrets_and_die_with_their_children(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment file holds the daemon's secrets; a tool must not inherit them, and a tool
    that hangs (with a child of its own) leaves nothing running once killed or cancelled."""
    import asyncio

    from fabricwatch.collectors.command import run_command

    monkeypatch.setenv("FW_SNMP_AUTH", "s3cret")
    out = await run_command(["/usr/bin/env"], timeout=5, who="t")
    assert "s3cret" not in out and "PATH=" in out
    pidfile = tmp_path / "child.pid"
    hang = shell_script(tmp_path / "hang", f"sleep 60 & echo $! > {pidfile}\nwait\n")
    with pytest.raises(TargetError, match="took over"):
        await run_command([hang], timeout=0.5, who="t")
    child = int(pidfile.read_text())
    await asyncio.sleep(0.2)
    assert _gone(child)
    pidfile.unlink()
    task = asyncio.create_task(run_command([hang], timeout=30, who="t"))
    for _ in range(50):
        await asyncio.sleep(0.05)
        if pidfile.exists() and pidfile.read_text().strip():
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    child = int(pidfile.read_text())
    await asyncio.sleep(0.2)
    assert _gone(child)


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"  # a zombie is dead
    except FileNotFoundError:
        return True
