"""grpc.aio's process-wide runtime, started once and kept for the life of the process.

grpc.aio shuts its global completion queue down when the last channel or server is garbage
collected, and joins a poller thread that can be blocked writing to the socket of an event loop
that has already closed (grpc/grpc#40989): whatever code happened to trigger that collection then
hangs for ever. A daemon that reloads its gNMI targets, or a test process that runs one event loop
per test, reaches that point. Holding one reference from the first use keeps the queue up; the
process exit ends it.
"""

from __future__ import annotations

from typing import Any

import grpc

from fabricwatch.core.tls import TlsConfig

_started = False


def keep_grpc_aio() -> None:
    """Start grpc.aio's runtime now (idempotent); call before creating a channel or server."""
    global _started
    if not _started:
        grpc.aio.init_grpc_aio()
        _started = True


def channel(address: str, tls: TlsConfig | None, options: list[tuple[str, Any]] | None = None) -> grpc.aio.Channel:
    """A grpc.aio channel to `address`, over TLS when `tls.enabled` (CA, client pair, name override)."""
    keep_grpc_aio()
    opts = list(options or [])
    if tls is None or not tls.enabled:
        return grpc.aio.insecure_channel(address, options=opts)
    ca = tls.ca_file.read_bytes() if tls.ca_file else None
    cert = tls.cert_file.read_bytes() if tls.cert_file else None
    key = tls.key_file.read_bytes() if tls.key_file else None
    if tls.server_name:
        opts.append(("grpc.ssl_target_name_override", tls.server_name))
    return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(ca, key, cert), options=opts)
