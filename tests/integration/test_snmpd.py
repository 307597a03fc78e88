"""SNMP collector against Debian's net-snmp agent: this host's interfaces, v2c and v3 authPriv."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.collectors.snmp.config import SnmpConfig
from fabricwatch.core.errors import TargetError
from tests.servers import Snmpd

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def snmpd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Snmpd]:
    agent = Snmpd(tmp_path_factory.mktemp("snmpd"))
    agent.start()
    try:
        yield agent
    finally:
        agent.stop()


def proc_net_dev() -> dict[str, tuple[int, int]]:
    """interface -> (rx bytes, tx bytes) as the kernel counts them."""
    out = {}
    for line in Path("/proc/net/dev").read_text().splitlines()[2:]:
        name, _, rest = line.partition(":")
        fields = rest.split()
        out[name.strip()] = (int(fields[0]), int(fields[8]))
    return out


def push_bytes_over_loopback(n: int) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def sink() -> None:
        conn, _ = server.accept()
        with conn:
            while conn.recv(1 << 16):
                pass

    t = threading.Thread(target=sink)
    t.start()
    with socket.create_connection(("127.0.0.1", port)) as c:
        c.sendall(b"\0" * n)
    t.join()
    server.close()


def _config(snmpd: Snmpd, monkeypatch: pytest.MonkeyPatch, version: str, **extra: Any) -> SnmpConfig:
    monkeypatch.setenv("FW_SNMPD_COMMUNITY", Snmpd.COMMUNITY)
    monkeypatch.setenv("FW_SNMPD_AUTH", Snmpd.AUTH_KEY)
    monkeypatch.setenv("FW_SNMPD_PRIV", Snmpd.PRIV_KEY)
    section: dict[str, Any] = {"version": version, "timeout": 3, "retries": 1,
                               "targets": [{"device": "this-host", "address": f"127.0.0.1:{snmpd.port}"}]}
    if version == "2c":
        section["community"] = {"env": "FW_SNMPD_COMMUNITY"}
    else:
        section["v3"] = {"user": Snmpd.USER, "auth_protocol": "sha256", "auth_key": {"env": "FW_SNMPD_AUTH"},
                         "priv_protocol": "aes", "priv_key": {"env": "FW_SNMPD_PRIV"}}
    section.update(extra)
    return SnmpConfig.model_validate(section)


@pytest.mark.parametrize(("version", "engine"), [("2c", "fast"), ("2c", "pysnmp"), ("3", "fast"), ("3", "pysnmp")])
async def test_host_interfaces_move_in_step_with_proc_net_dev(
    snmpd: Snmpd, monkeypatch: pytest.MonkeyPatch, version: str, engine: str
) -> None:
    [collector] = _config(snmpd, monkeypatch, version, engine=engine).build()
    async with collector:
        first = {s.port: s for s in (await collector.poll()).samples}
        kernel0 = proc_net_dev()
        assert set(kernel0) <= set(first), "every kernel interface is an SNMP port named by ifName"
        assert first["lo"].values["oper_status"] == 1.0
        assert first["lo"].uptime_s is not None and first["lo"].uptime_s > 0
        sent = 30_000_000
        await asyncio.to_thread(push_bytes_over_loopback, sent)
        # net-snmp caches interface statistics for a few seconds
        await asyncio.sleep(6)
        kernel1 = proc_net_dev()
        second = {s.port: s for s in (await collector.poll()).samples}
    kernel_delta = kernel1["lo"][0] - kernel0["lo"][0]
    snmp_delta = second["lo"].values["in_octets"] - first["lo"].values["in_octets"]
    assert kernel_delta >= sent
    # the same bytes, give or take what SNMP itself and the cache window add; the cache shifts SNMP's
    # window by a few seconds, so whatever other processes sent over lo meanwhile may fall in one and
    # not the other (measured: what the kernel counted beyond our bytes)
    others = kernel_delta - sent
    assert abs(snmp_delta - kernel_delta) < 0.05 * kernel_delta + others, (snmp_delta, kernel_delta, others)
    assert second["lo"].values["out_octets"] - first["lo"].values["out_octets"] >= sent
    assert collector.profile is not None and collector.profile.name == "if-mib"


@pytest.mark.parametrize(("engine", "wrong"), [("fast", "FW_SNMPD_AUTH"), ("pysnmp", "FW_SNMPD_AUTH"),
                                             ("fast", "FW_SNMPD_PRIV")])
async def test_v3_wrong_key_is_an_auth_error_naming_the_device(
    snmpd: Snmpd, monkeypatch: pytest.MonkeyPatch, engine: str, wrong: str
) -> None:
    cfg = _config(snmpd, monkeypatch, "3", engine=engine)
    monkeypatch.setenv(wrong, "not-the-right-passphrase")
    [collector] = SnmpConfig.model_validate(cfg.model_dump(mode="json")).build()
    async with collector:
        with pytest.raises(TargetError) as err:
            await collector.poll()
    if wrong == "FW_SNMPD_PRIV":  # net-snmp does not report a decryption error, it stays silent
        assert err.value.kind == "timeout" and "wrong privacy key" in str(err.value)
    else:
        assert err.value.kind == "auth", err.value
    assert "this-host" in str(err.value)
    assert "not-the-right-passphrase" not in str(err.value)
