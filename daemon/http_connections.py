"""Bounds on the HTTP listener's connections: how many, how long a client may take to send a request's
headers, and how long to send its body. aiohttp has none of the three (a client dripping a header byte
every 20 s kept its connection for an hour, and 1,050 of them used up the daemon's file descriptors)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from aiohttp import web
from aiohttp.typedefs import Handler
from aiohttp.web_protocol import RequestHandler

Refused = Callable[[str], object]  # reason


class _Closed(asyncio.Protocol):
    """A connection over the cap: closed as it opens, before it costs more than its accept."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.close()


class _Tracked(asyncio.Protocol):
    """aiohttp's handler for one connection, with the guard told when the connection ends."""

    def __init__(self, guard: ConnectionGuard, handler: RequestHandler) -> None:
        self.guard, self.handler = guard, handler

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.handler.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.forget(self.handler)
        self.handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        self.handler.eof_received()
        return None  # close the transport: aiohttp keeps no half-closed connection

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()


class ConnectionGuard:
    """Protocol factory and middleware around an aiohttp server. A connection not in a handler (sending
    its headers, or idle between keep-alive requests) is closed `header_timeout` after it opened or its
    last response; one whose request body is still arriving `body_timeout` after its headers. Beyond the
    cap a new connection is closed as it opens. Evicting an older one instead was tried: clients that
    reconnect when dropped then churn every slot faster than a prompt client's request is read, so the
    cap is meant to sit well above what honest clients use, and the timeouts free what dripping ones hold."""

    def __init__(self, *, max_connections: int, header_timeout: float, body_timeout: float, refused: Refused) -> None:
        self.server: web.Server | None = None  # set by start(): aiohttp makes it once the app is frozen
        self.max_connections = max_connections
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.refused = refused
        # every open connection (counted from the accept on: a burst is accepted before any of it is
        # made) -> when it last had no request
        self._idle_since: dict[RequestHandler, float] = {}
        self._busy: dict[RequestHandler, tuple[float, web.BaseRequest]] = {}  # in a handler: since, request
        self._sweeper: asyncio.Task[None] | None = None

    def protocol(self) -> asyncio.BaseProtocol:
        """A new connection: aiohttp's handler, or a closed one past the cap."""
        assert self.server is not None
        if len(self._idle_since) >= self.max_connections:
            self.refused("max_connections")
            return _Closed()
        handler = self.server()
        self._idle_since[handler] = time.monotonic()
        return _Tracked(self, handler)

    def forget(self, conn: RequestHandler) -> None:
        self._idle_since.pop(conn, None)
        self._busy.pop(conn, None)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Marks the connection as in a handler while the request is handled."""
        conn = request.protocol
        self._busy[conn] = (time.monotonic(), request)
        try:
            return await handler(request)
        finally:
            if self._busy.pop(conn, None) is not None:  # still open
                self._idle_since[conn] = time.monotonic()

    def start(self, server: web.Server) -> None:
        self.server = server
        self._sweeper = asyncio.create_task(self._sweep(), name="http-connections")

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            try:
                await self._sweeper
            except asyncio.CancelledError:
                pass

    async def _sweep(self) -> None:
        """Close what overstayed, a few times per timeout."""
        while True:
            await asyncio.sleep(max(0.05, min(self.header_timeout, self.body_timeout) / 5))
            self.check(time.monotonic())

    def check(self, now: float) -> None:
        """Close every connection past its header or body timeout."""
        for conn, since in list(self._idle_since.items()):
            busy = self._busy.get(conn)
            if busy is None:
                if now - since > self.header_timeout:
                    self._close(conn, "header_timeout")
            elif not busy[1].content.is_eof() and now - busy[0] > self.body_timeout:
                self._close(conn, "body_timeout")

    def _close(self, conn: RequestHandler, reason: str) -> None:
        self.refused(reason)
        self.forget(conn)
        conn.force_close()
