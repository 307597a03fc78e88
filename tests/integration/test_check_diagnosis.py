"""`check` says why a gNMI target cannot be reached in the words the daemon logs for it (refused
port, a server that is not gNMI), not "no data within 10s": one diagnosis for both."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from fabricwatch.core.errors import TargetError
from fabricwatch.daemon import config as config_mod
from fabricwatch.daemon.check import build_collectors, run_check  # the collectors check builds
from tests.servers import free_port

pytestmark = pytest.mark.integration


@pytest.fixture
async def not_gnmi() -> AsyncIterator[int]:
    """A TCP server that answers every connection with an HTTP/1 error (what a web UI on the port would do)."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    async with server:
        yield server.sockets[0].getsockname()[1]


@pytest.mark.parametrize("case", ["refused", "not_gnmi"])
async def test_check_gives_the_daemons_diagnosis(case: str, not_gnmi: int, tmp_path: Path) -> None:
    port = free_port() if case == "refused" else not_gnmi
    path = tmp_path / "fw.toml"
    path.write_text(f'[daemon]\nlisten = "127.0.0.1:0"\n[[collectors.gnmi]]\nflavour = "arista"\ntimeout = "3s"\n'
                    f'targets = [{{ device = "leaf1", address = "127.0.0.1:{port}" }}]\n')
    # what the daemon says: the session's own error, as its target loop logs it
    (collector,) = build_collectors(config_mod.load(path))
    with pytest.raises(TargetError) as raised:
        async with collector:
            pass
    daemon_says = str(raised.value)
    expected = {"refused": f"connection refused by 127.0.0.1:{port} (nothing listens there: is gNMI enabled on "
                           "this port?)",
                "not_gnmi": f"127.0.0.1:{port} accepts TCP but no gNMI session came up"}[case]
    assert expected in daemon_says

    out = io.StringIO()
    assert await run_check(path, timeout=2, out=out) == 1
    text = out.getvalue()
    assert f"FAIL target gnmi:gnmi:leaf1 127.0.0.1:{port}: connect: {daemon_says}" in text, text
    assert "no data within" not in text
