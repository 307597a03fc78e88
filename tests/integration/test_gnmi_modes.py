"""gNMI POLL and ONCE modes, and TLS with a server certificate checked against a CA file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fabricwatch.collectors.gnmi.config import GnmiConfig
from fabricwatch.core.errors import TargetError
from tests.certs import self_signed
from tests.integration.helpers import start_sim

pytestmark = pytest.mark.integration


async def collect(section: dict, seconds: float) -> tuple[int, set[int]]:
    cfg = GnmiConfig.model_validate(section)
    (collector, *_) = cfg.build()
    samples, stamps = 0, set()
    async with collector:
        try:
            async with asyncio.timeout(seconds):
                async for batch in collector.stream():
                    samples += len(batch.samples)
                    stamps |= {s.ts_ns for s in batch.samples}
        except TimeoutError:
            pass
    return samples, stamps


@pytest.mark.parametrize("mode", ["poll", "once"])
async def test_poll_and_once_modes_deliver_every_interval(mode: str) -> None:
    sim = await start_sim()
    try:
        section = sim.daemon_collectors(0.5)[0]
        section["mode"] = mode
        samples, stamps = await collect(section, 2.6)
    finally:
        await sim.stop()
    ports = len(sim.fabric.topology.devices[section["targets"][0]["device"]].ports)
    assert len(stamps) >= 4, stamps  # one answer per period
    assert samples >= ports * 4


async def test_tls_with_ca_file_and_server_name(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    sim = await start_sim(gnmi={"tls_cert_file": str(cert), "tls_key_file": str(key)})
    try:
        section = sim.daemon_collectors(0.5)[0]
        section["tls"] = {"enabled": True, "ca_file": str(cert), "server_name": "sim-switch"}
        samples, _ = await collect(section, 1.5)
        assert samples > 0
        # without TLS the same target does not talk to us
        plain = dict(section, tls={"enabled": False}, timeout=1.0)
        cfg = GnmiConfig.model_validate(plain)
        (collector, *_) = cfg.build()
        with pytest.raises(TargetError) as err:
            async with collector:
                async for _batch in collector.stream():
                    break
        assert err.value.kind in ("connect", "rpc")
    finally:
        await sim.stop()
