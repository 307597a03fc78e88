"""grpc.aio's process-wide runtime, started once and kept for the life of the process.

grpc.aio shuts its global completion queue down when the last channel or server is garbage
collected, and joins a poller thread that can be blocked writing to the socket of an event loop
that has already closed (grpc/grpc#40989): whatever code happened to trigger that collection then
hangs for ever. A daemon that reloads its gNMI targets, or a test process that runs one event loop
per test, reaches that point. Holding one reference from the first use keeps the queue up; the
process exit ends it.
"""

from __future__ import annotations

import grpc

_started = False


def keep_grpc_aio() -> None:
    """Start grpc.aio's runtime now (idempotent); call before creating a channel or server."""
    global _started
    if not _started:
        grpc.aio.init_grpc_aio()
        _started = True
