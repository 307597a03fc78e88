"""One HTTP request bounded as a whole: connecting, the headers and the body all within one deadline,
however slowly the server drips them (a socket timeout bounds each read only)."""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any


class FetchError(Exception):
    """The request failed: the message says how (HTTP status and the body's start, unreachable, deadline)."""


class _Watch:
    """The sockets of one request, each shut down when its deadline passes."""

    def __init__(self, timeout: float) -> None:
        self.deadline = time.monotonic() + timeout
        self.expired = threading.Event()
        self._lock = threading.Lock()
        self._dups: list[socket.socket] = []

    def connect(self, address: tuple[str, int], timeout: float | None = None, *args: Any) -> socket.socket:
        """socket.create_connection, given what is left of the deadline to connect (a redirect connects late)."""
        sock = socket.create_connection(address, max(0.001, self.deadline - time.monotonic()), *args)
        sock.settimeout(max(0.001, self.deadline - time.monotonic() + 1.0))  # a backstop: the cut comes first
        # a duplicate of the descriptor: TLS detaches the original, and shutdown acts on the connection
        with self._lock:
            self._dups.append(sock.dup())
            if self.expired.is_set():
                self._cut()
        return sock

    def late(self) -> bool:
        return self.expired.is_set() or time.monotonic() >= self.deadline

    def expire(self) -> None:
        with self._lock:
            self.expired.set()
            self._cut()

    def _cut(self) -> None:
        for s in self._dups:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        with self._lock:
            for s in self._dups:
                s.close()
            self._dups.clear()


def _watched(base: type[urllib.request.AbstractHTTPHandler], watch: _Watch) -> urllib.request.BaseHandler:
    class Handler(base):  # type: ignore[valid-type,misc]
        def do_open(self, http_class: Any, req: urllib.request.Request, **kwargs: Any) -> Any:
            def connection(host: str, **args: Any) -> http.client.HTTPConnection:
                conn = http_class(host, **args)
                conn._create_connection = watch.connect
                return conn

            return super().do_open(connection, req, **kwargs)

    return Handler()


def fetch(req: urllib.request.Request, timeout: float) -> bytes:
    """The whole body of the answer to `req`, or FetchError; all of it within `timeout` seconds."""
    watch = _Watch(timeout)
    opener = urllib.request.build_opener(_watched(urllib.request.HTTPHandler, watch),
                                         _watched(urllib.request.HTTPSHandler, watch))
    timer = threading.Timer(timeout, watch.expire)
    timer.daemon = True
    timer.start()
    try:
        with opener.open(req, timeout=timeout) as resp:
            body: bytes = resp.read()
    except urllib.error.HTTPError as exc:
        detail = _start(exc)
        if watch.late():
            raise FetchError(_late(timeout)) from None
        raise FetchError(f"HTTP {exc.code}: {detail}") from None
    except (OSError, http.client.HTTPException, ValueError) as exc:  # ValueError: the TLS layer, once cut
        if watch.late():
            raise FetchError(_late(timeout)) from None
        raise FetchError(str(getattr(exc, "reason", None) or exc) or type(exc).__name__) from None
    finally:
        timer.cancel()
        watch.close()
    if watch.late():  # the cut came as the body ended: it may be whole, or end early
        raise FetchError(_late(timeout))
    return body


def _start(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read(300).decode("utf-8", "replace").strip()
    except (OSError, http.client.HTTPException, ValueError):
        return ""
    finally:
        exc.close()


def _late(timeout: float) -> str:
    return f"no whole answer within the {timeout:g} s deadline (timeout)"
