"""What the daemon's HTTP listener refuses before a handler runs: requests naming another host (DNS
rebinding) and writes sent by pages of other sites."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

Refused = Callable[[web.Request, str, str], None]  # (request, reason, detail)

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# "none": typed in the address bar or sent by a tool that sets the header without a page behind it
SAME_SITE_FETCH = frozenset({"same-origin", "none"})
DEFAULT_PORTS = {"http": 80, "https": 443}


def _host_port(netloc: str, scheme: str = "http") -> tuple[str, int | None]:
    """(host, port) of `host[:port]`, lower-cased, the scheme's port when none is written."""
    try:
        u = urlsplit(f"{scheme}://{netloc}")
        return (u.hostname or "").lower(), u.port or DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is not a number
        return "", None


class AllowedHosts:
    """The hosts a request may name in `Host`: the listen address, localhost and loopback addresses, and
    the configured names. A page whose name an attacker re-points at this machine (DNS rebinding) is
    same-origin with it to the browser; only the name it sends in `Host` tells it apart."""

    def __init__(self, listen_host: str, names: Iterable[str]) -> None:
        self.names = {"localhost"}
        self.addresses: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = set()
        for name in (listen_host, *names):
            try:
                self.addresses.add(ipaddress.ip_address(name.strip("[]")))
            except ValueError:
                self.names.add(name.lower().rstrip("."))
        # a wildcard listener answers on every address of the machine; an address cannot be re-pointed
        self.any_address = any(ip.is_unspecified for ip in self.addresses)

    def __contains__(self, host: object) -> bool:
        if not isinstance(host, str):
            return False
        name = _host_port(host.strip())[0].rstrip(".")
        if not name:
            return False
        try:
            ip = ipaddress.ip_address(name)
        except ValueError:
            return name in self.names
        return self.any_address or ip.is_loopback or ip in self.addresses


def refuse_other_hosts(allowed: AllowedHosts, on_refused: Refused) -> Middleware:
    """A middleware answering 421 to a request whose `Host` names a host this daemon is not (a request
    without `Host`, HTTP/1.0 from a tool, passes: a browser always sends it)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        host = request.headers.get("Host")
        if host is not None and host not in allowed:
            on_refused(request, "host", f"Host: {host[:100]}")
            return web.json_response({"error": f"this daemon does not answer for {host[:100]!r}: add the name to "
                                               "[daemon] allowed_hosts if it is one of this machine's"},
                                     status=421)
        return await handler(request)

    return middleware


def cross_site(request: web.Request) -> str | None:
    """Why a write comes from a page of another origin, or None. A browser names the page's origin
    in `Origin` and the relation in `Sec-Fetch-Site` on every cross-origin POST, a no-cors fetch or a
    form included; curl and scripts send neither, so the command line path is unchanged."""
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None and fetch_site.strip().lower() not in SAME_SITE_FETCH:
        return f"Sec-Fetch-Site: {fetch_site[:40]}"
    origin = request.headers.get("Origin")
    if origin is not None:
        u = urlsplit(origin.strip()) if "://" in origin else None
        host = request.headers.get("Host", "")
        if u is None or u.scheme not in DEFAULT_PORTS or _host_port(u.netloc, u.scheme) != _host_port(host, u.scheme):
            return f"Origin: {origin[:100]}"
    return None


def refuse_cross_site_writes(on_refused: Refused) -> Middleware:
    """A middleware answering 403 to a write (POST, PUT, PATCH, DELETE) from another origin: without it a
    page anywhere could post through the operator's browser to a loopback listener that needs no token."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method in UNSAFE_METHODS:
            why = cross_site(request)
            if why is not None:
                on_refused(request, "cross_site", why)
                return web.json_response({"error": f"cross-site write refused ({why}): this endpoint takes "
                                                   "writes from tools (curl, scripts), not from web pages"},
                                         status=403)
        return await handler(request)

    return middleware
