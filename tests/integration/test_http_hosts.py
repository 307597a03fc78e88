"""DNS rebinding: a page on attacker.example whose name is re-pointed at 127.0.0.1 reaches the daemon
with `Host: attacker.example`; the daemon answers only its listen address, localhost and the names
of `[daemon] allowed_hosts`."""

from __future__ import annotations

import aiohttp
import pytest

from fabricwatch.core.config_errors import ConfigError
from fabricwatch.daemon.config import parse
from fabricwatch.daemon.http_guard import AllowedHosts
from tests.integration.helpers import start_runner

pytestmark = pytest.mark.integration


async def test_only_the_listen_address_localhost_and_configured_names_are_served() -> None:
    cfg = parse({"daemon": {"listen": "127.0.0.1:0", "allowed_hosts": ["Fabricwatch.Example"]},
                 "detector": {"enabled": False}}, "<test>")
    runner, task = await start_runner(cfg)
    assert runner.http is not None
    port = runner.http.port
    try:
        async with aiohttp.ClientSession() as s:
            for path in ("/api/targets", "/api/fabric", "/metrics", "/"):
                for host in ("attacker.example", f"attacker.example:{port}", "127.0.0.1.attacker.example",
                             "localhost.attacker.example", "fabricwatch.example.attacker.example"):
                    async with s.get(f"{runner.http.url}{path}", headers={"Host": host}) as resp:
                        assert resp.status == 421, (path, host)
                        assert "allowed_hosts" in (await resp.json())["error"]
            for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST", f"fabricwatch.example:{port}",
                         "fabricwatch.example.", f"[::1]:{port}"):
                async with s.get(f"{runner.http.url}/api/targets", headers={"Host": host}) as resp:
                    assert resp.status == 200, host
            async with s.get(f"{runner.http.url}/metrics") as resp:
                assert 'fabricwatch_http_refused_total{reason="host"} 20.0' in await resp.text()
    finally:
        runner.stop()
        assert await task == 0


def test_a_wildcard_listener_serves_its_addresses_but_no_other_name() -> None:
    hosts = AllowedHosts("0.0.0.0", ["fw.example"])
    assert "10.1.2.3:9465" in hosts and "[fd00::5]:9465" in hosts and "fw.example" in hosts
    assert "localhost" in hosts and "evil.example" not in hosts and "" not in hosts
    assert "10.1.2.3" not in AllowedHosts("127.0.0.1", [])  # another address than the listen one
    assert "gpu-mon.lab" in AllowedHosts("gpu-mon.lab", [])  # a listen name is its own name
    assert "10.0.0.5:9465" in AllowedHosts("127.0.0.1", ["10.0.0.5"])  # an address behind a port forward
    assert "[fd00::5]:1" in AllowedHosts("::1", ["[fd00::5]"]) and "[fd00::6]" not in AllowedHosts("::1", [])


def test_allowed_hosts_are_names_not_urls() -> None:
    for bad in ("http://fw.example", "fw.example:9465", "", "fw example", "*.example"):
        with pytest.raises(ConfigError, match="allowed_hosts"):
            parse({"daemon": {"allowed_hosts": [bad]}})
