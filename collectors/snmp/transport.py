"""Two ways to send GET/GETBULK to one agent, returning the same (oid, tag, value) varbinds.

- FastV2c / FastV3: asyncio UDP and our narrow BER codec (collectors.snmp.ber, .usm): v2c, and
  v3 with MD5/SHA/SHA-2 authentication and AES privacy.
- Pysnmp: pysnmp's v3arch engine; v3 USM (SHA-2 auth, AES privacy) and v2c.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from typing import Any, Protocol

from fabricwatch.collectors.snmp import ber, usm
from fabricwatch.core.digits import parse_uint
from fabricwatch.core.errors import TargetError


def split_address(address: str) -> tuple[str, int]:
    if address.startswith("["):  # [v6]:port
        host, _, rest = address[1:].partition("]")
        number = parse_uint(rest[1:], max_digits=5) if rest.startswith(":") else None
        return host, number if number is not None else 161
    host, sep, port = address.rpartition(":")
    number = parse_uint(port, max_digits=5) if sep and ":" not in host else None
    return (host, number) if number is not None else (address, 161)


class Transport(Protocol):
    garbage: int  # datagrams that could not be decoded
    rejected: int  # answers that failed the security checks (forged, replayed, downgraded)
    requests: int
    varbinds: int  # received in answers

    async def get(self, oids: Sequence[bytes]) -> list[ber.VarBind]: ...

    async def get_bulk(self, oids: Sequence[bytes], max_repetitions: int) -> list[ber.VarBind]: ...

    async def close(self) -> None: ...


def _error_status(status: int, index: int, device: str) -> TargetError:
    name = ber.ERROR_STATUS.get(status, str(status))
    return TargetError("too_big" if status == 1 else "snmp_error", f"{device}: agent answered {name} (index {index})")


class Untrusted(Exception):
    """An answer that decodes but fails the security checks: counted and dropped."""


class _Endpoint(asyncio.DatagramProtocol):
    def __init__(self, owner: _UdpAgent) -> None:
        self.owner = owner

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.owner._received(data)

    def error_received(self, exc: Exception) -> None:  # ICMP port unreachable and the like
        self.owner.last_error = f"{type(exc).__name__}: {exc}"


class _UdpAgent:
    silence_hint = ""  # what a silence most often means for this protocol, said with the timeout
    """One connected UDP socket per agent; answers matched to requests by an id in the message.

    A request is resent as it is (same id) `retries` times; a late answer to an earlier send
    still completes it. Datagrams that do not decode are counted and, if nothing valid came,
    the request fails as `garbage` rather than `timeout`."""

    def __init__(self, device: str, host: str, port: int, *, timeout: float, retries: int) -> None:
        self.device = device
        self.host = host
        self.port = port
        self.timeout = timeout
        self.retries = retries
        self.garbage = 0
        self.rejected = 0  # answers that decode but must not be believed (forged, replayed, downgraded)
        self.requests = 0
        self.varbinds = 0
        self.last_error = ""
        self._transport: asyncio.DatagramTransport | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = random.randrange(1, 1 << 30)
        self._bad: str = ""
        self._bad_kind = "garbage"

    def new_id(self) -> int:
        rid = self._next_id
        self._next_id = (self._next_id % 0x7FFFFFFF) + 1
        return rid

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            self._transport, _ = await loop.create_datagram_endpoint(
                lambda: _Endpoint(self), remote_addr=(self.host, self.port))
        except OSError as exc:
            raise TargetError("connect", f"{self.device}: cannot open UDP to {self.host}:{self.port}: {exc}") from None

    async def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        for fut in self._pending.values():
            fut.cancel()
        self._pending.clear()

    def _match(self, data: bytes) -> int | None:
        raise NotImplementedError

    def _decode(self, data: bytes) -> Any:
        raise NotImplementedError

    def _received(self, data: bytes) -> None:
        key = self._match(data)
        fut = self._pending.get(key) if key is not None else None
        if fut is None or fut.done():
            if key is None:
                self.garbage += 1
                self._bad = f"undecodable datagram of {len(data)} bytes"
            return  # a late answer to a request we retried: harmless
        try:
            fut.set_result(self._decode(data))
        except ber.BerError as exc:
            self.garbage += 1
            self._bad, self._bad_kind = str(exc), "garbage"
        except Untrusted as exc:  # dropped: the genuine answer may still come
            self.rejected += 1
            self._bad, self._bad_kind = str(exc), "auth"
        except TargetError as exc:
            fut.set_exception(exc)

    async def exchange(self, key: int, msg: bytes) -> Any:
        if self._transport is None:
            await self.open()
        assert self._transport is not None
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[key] = fut
        self._bad, self._bad_kind = "", "garbage"
        try:
            for _attempt in range(self.retries + 1):
                self.requests += 1
                self._transport.sendto(msg)
                try:
                    # asyncio.timeout, not wait_for: 3.11's wait_for drops a cancellation that meets
                    # the answer's arrival, and a stopping daemon then never stops this target
                    async with asyncio.timeout(self.timeout):
                        return await asyncio.shield(fut)
                except TimeoutError:
                    continue
            if self._bad:
                raise TargetError(self._bad_kind, f"{self.device}: no valid answer; last datagram: {self._bad}")
            detail = f" ({self.last_error})" if self.last_error else self.silence_hint
            raise TargetError("timeout", f"{self.device}: no answer in {self.retries + 1} x {self.timeout:g}s{detail}")
        finally:
            self._pending.pop(key, None)
            if not fut.done():
                fut.cancel()


class FastV2c(_UdpAgent):
    silence_hint = (" — a v2c agent stays silent on a wrong community: check it first, then that the agent "
                    "is up and not filtered")
    """SNMPv2c over our BER codec; answers matched by request-id."""

    def __init__(self, device: str, host: str, port: int, community: bytes, *, timeout: float, retries: int) -> None:
        super().__init__(device, host, port, timeout=timeout, retries=retries)
        self.community = community

    def _match(self, data: bytes) -> int | None:
        return ber.peek_request_id(data)

    def _decode(self, data: bytes) -> ber.Response:
        return ber.decode_response(data)

    async def _request(self, pdu: int, oids: Sequence[bytes], max_repetitions: int = 0) -> list[ber.VarBind]:
        rid = self.new_id()
        msg = ber.encode_request(pdu, self.community, rid, oids, max_repetitions=max_repetitions)
        resp: ber.Response = await self.exchange(rid, msg)
        if resp.error_status:
            raise _error_status(resp.error_status, resp.error_index, self.device)
        self.varbinds += len(resp.varbinds)
        return resp.varbinds

    async def get(self, oids: Sequence[bytes]) -> list[ber.VarBind]:
        return await self._request(ber.GET_REQUEST, oids)

    async def get_bulk(self, oids: Sequence[bytes], max_repetitions: int) -> list[ber.VarBind]:
        return await self._request(ber.GET_BULK_REQUEST, oids, max_repetitions)


class FastV3(_UdpAgent):
    """SNMPv3/USM over our codec (collectors.snmp.usm); answers matched by msgID. Discovers the
    agent's engine first, follows its clock, and re-learns it once on a time-window report."""

    def __init__(self, device: str, host: str, port: int, user: usm.UsmUser, *, timeout: float,
                 retries: int) -> None:
        super().__init__(device, host, port, timeout=timeout, retries=retries)
        self.user = user
        self.engine: usm.Engine | None = None
        self._known: usm.Engine | None = None  # what answers are checked against (None: discovering)

    def _match(self, data: bytes) -> int | None:
        return usm.peek_msg_id(data)

    def _decode(self, data: bytes) -> usm.Decoded:
        try:
            got = usm.decode_response(data, self.user, time.monotonic(), known=self._known)
        except usm.UsmError as exc:
            raise Untrusted(f"{self.device}: {exc}") from None
        if self._known is not None and self.user.auth and not got.authenticated:
            # anyone can send an unauthenticated Report: it may say why no answer comes (the
            # error names it), but it neither ends the wait for an authenticated answer nor
            # changes what we know of the agent
            raise Untrusted(f"{self.device}: agent reports {usm.report_reason(got.varbinds)} (unauthenticated)")
        return got

    async def discover(self) -> usm.Engine:
        """The agent's engine ID (and a first, unauthenticated, notion of its clock: the first
        authenticated answer or time-window Report corrects it)."""
        mid = self.new_id()
        self._known = None
        got: usm.Decoded = await self.exchange(mid, usm.encode_discovery(mid, self.new_id()))
        if not got.engine.engine_id:
            raise TargetError("protocol", f"{self.device}: engine discovery gave no engine ID")
        self.engine = self._known = got.engine
        return got.engine

    def _learn(self, got: usm.Decoded, monotonic: float) -> None:
        """An authenticated answer moves our notion of the agent's clock forward (RFC 3414 3.2.7 b)."""
        assert self.engine is not None
        boots, etime = self.engine.now(monotonic)
        if got.engine.boots > boots or (got.engine.boots == boots and got.engine.time > etime):
            self.engine = self._known = got.engine

    async def _request(self, pdu: int, oids: Sequence[bytes], max_repetitions: int = 0) -> list[ber.VarBind]:
        for attempt in range(2):
            engine = self.engine or await self.discover()
            mid = self.new_id()
            msg = usm.encode_request(self.user, engine, time.monotonic(), mid, pdu, self.new_id(), oids,
                                     max_repetitions=max_repetitions)
            try:
                got: usm.Decoded = await self.exchange(mid, msg)
            except TargetError as exc:
                if exc.kind == "timeout":  # discovery answered, the request did not
                    raise TargetError("timeout", f"{exc} — the agent answers discovery: net-snmp stays "
                                                 "silent on a wrong privacy key") from None
                raise
            if got.pdu_type == ber.REPORT:
                reason = usm.report_reason(got.varbinds)
                if attempt == 0 and reason == "not in time window" and (got.authenticated or not self.user.auth):
                    # the agent rebooted or its clock moved: its authenticated Report says to what
                    self.engine = self._known = got.engine
                    continue
                raise TargetError("auth", f"{self.device}: agent reports {reason}")
            if got.authenticated:
                self._learn(got, time.monotonic())
            if got.error_status:
                raise _error_status(got.error_status, got.error_index, self.device)
            self.varbinds += len(got.varbinds)
            return got.varbinds
        raise TargetError("auth", f"{self.device}: agent keeps reporting its time window")

    async def get(self, oids: Sequence[bytes]) -> list[ber.VarBind]:
        return await self._request(ber.GET_REQUEST, oids)

    async def get_bulk(self, oids: Sequence[bytes], max_repetitions: int) -> list[ber.VarBind]:
        return await self._request(ber.GET_BULK_REQUEST, oids, max_repetitions)


# -- pysnmp ------------------------------------------------------------------------------
AUTH_PROTOCOLS = {
    "md5": "usmHMACMD5AuthProtocol", "sha": "usmHMACSHAAuthProtocol",
    "sha224": "usmHMAC128SHA224AuthProtocol", "sha256": "usmHMAC192SHA256AuthProtocol",
    "sha384": "usmHMAC256SHA384AuthProtocol", "sha512": "usmHMAC384SHA512AuthProtocol",
}
PRIV_PROTOCOLS = {
    "des": "usmDESPrivProtocol", "aes": "usmAesCfb128Protocol", "aes128": "usmAesCfb128Protocol",
    "aes192": "usmAesCfb192Protocol", "aes256": "usmAesCfb256Protocol",
    # the key-extension variant Cisco and net-snmp call AES-192-C / AES-256-C
    "aes192c": "usmAesBlumenthalCfb192Protocol", "aes256c": "usmAesBlumenthalCfb256Protocol",
}


def _tag_byte(value: Any) -> int:
    tag = value.tagSet[-1]  # the effective (outermost implicit) tag
    return int(tag.tagClass) | int(tag.tagFormat) | int(tag.tagId)


class Pysnmp:
    """pysnmp's engine for one agent; used for v3 and as the reference path for v2c."""

    def __init__(self, device: str, host: str, port: int, auth: Any, *, timeout: float, retries: int) -> None:
        from pysnmp.hlapi.v3arch import asyncio as hl

        self._hl = hl
        self.device = device
        self.host = host
        self.port = port
        self.auth = auth  # CommunityData or UsmUserData
        self.timeout = timeout
        self.retries = retries
        self.garbage = 0
        self.rejected = 0  # pysnmp drops such answers itself, uncounted
        self.requests = 0
        self.varbinds = 0
        self._engine = hl.SnmpEngine()
        self._target: Any = None

    @classmethod
    def v2c(cls, device: str, host: str, port: int, community: str, **kw: Any) -> Pysnmp:
        from pysnmp.hlapi.v3arch import asyncio as hl

        return cls(device, host, port, hl.CommunityData(community, mpModel=1), **kw)

    @classmethod
    def v3(cls, device: str, host: str, port: int, *, user: str, auth_protocol: str | None, auth_key: str | None,
           priv_protocol: str | None, priv_key: str | None, **kw: Any) -> Pysnmp:
        from pysnmp.hlapi.v3arch import asyncio as hl

        auth_p = getattr(hl, AUTH_PROTOCOLS[auth_protocol]) if auth_protocol else hl.usmNoAuthProtocol
        priv_p = getattr(hl, PRIV_PROTOCOLS[priv_protocol]) if priv_protocol else hl.usmNoPrivProtocol
        data = hl.UsmUserData(user, authKey=auth_key, privKey=priv_key, authProtocol=auth_p, privProtocol=priv_p)
        return cls(device, host, port, data, **kw)

    async def _target_for(self) -> Any:
        if self._target is None:
            self._target = await self._hl.UdpTransportTarget.create(
                (self.host, self.port), timeout=self.timeout, retries=self.retries)
        return self._target

    def _convert(self, err_ind: Any, err_status: Any, err_index: Any, var_binds: Any) -> list[ber.VarBind]:
        if err_ind:
            text = str(err_ind)
            low = text.lower()
            if "timeout" in low or "no snmp response" in low:
                kind = "timeout"
            elif any(w in low for w in ("digest", "usm", "unknown user", "decrypt", "authentic", "unsupported sec")):
                kind = "auth"
            else:
                kind = "snmp_error"
            raise TargetError(kind, f"{self.device}: {text}")
        if int(err_status):
            raise _error_status(int(err_status), int(err_index), self.device)
        out: list[ber.VarBind] = []
        for oid, value in var_binds:
            tag = _tag_byte(value)
            v: ber.Value
            if tag in ber.EXCEPTIONS or tag == ber.NULL:
                v = None
            elif tag == ber.OBJECT_IDENTIFIER:
                v = ber.encode_oid(tuple(value))
            elif tag in (ber.OCTET_STRING, ber.IP_ADDRESS, ber.OPAQUE):
                v = bytes(value.asOctets())
            else:
                v = int(value)
            out.append((ber.encode_oid(tuple(oid)), tag, v))
        self.varbinds += len(out)
        return out

    def _types(self, oids: Sequence[bytes]) -> list[Any]:
        hl = self._hl
        return [hl.ObjectType(hl.ObjectIdentity(ber.oid_str(o))) for o in oids]

    async def get(self, oids: Sequence[bytes]) -> list[ber.VarBind]:
        self.requests += 1
        res = await self._hl.get_cmd(self._engine, self.auth, await self._target_for(), self._hl.ContextData(),
                                     *self._types(oids), lookupMib=False)
        return self._convert(*res)

    async def get_bulk(self, oids: Sequence[bytes], max_repetitions: int) -> list[ber.VarBind]:
        self.requests += 1
        res = await self._hl.bulk_cmd(self._engine, self.auth, await self._target_for(), self._hl.ContextData(),
                                      0, max_repetitions, *self._types(oids), lookupMib=False)
        return self._convert(*res)

    async def close(self) -> None:
        self._engine.close_dispatcher()
