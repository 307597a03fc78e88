"""The one etcd client: etcd's v3 gRPC API (KV and Lease) through grpcio, with the generated stubs
that aetcd maintains (its own client speaks neither TLS nor several endpoints).

Endpoints are tried in turn: a call that cannot reach one (or gets no answer within `timeout`)
moves to the next, so a cluster that lost a member is still spoken to; `EtcdError` says that none
answered. Keys and values are written as strings (UTF-8); a range read gives them back as etcd holds
them (bytes), since any client may have written anything: whether they can be read is the caller's
business. Prefixes end where the caller says.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from aetcd.rpc import rpc_pb2 as pb
from aetcd.rpc import rpc_pb2_grpc as stubs

from fabricwatch.core.grpc_runtime import channel
from fabricwatch.core.tls import TlsConfig

T = TypeVar("T")
# answers that another endpoint would give too: said at once, not retried
_REFUSED = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED,
            grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND)


class EtcdError(RuntimeError):
    """No endpoint answered, or etcd refused the request (the message says which)."""


class EtcdAuthError(EtcdError):
    """etcd refused this client: a wrong or missing user or password, or a role without the keys."""


class LeaseGone(EtcdError):
    """The lease named in a request has expired (or was revoked)."""


@dataclass(frozen=True, slots=True)
class KeyValue:
    key: bytes
    value: bytes
    lease: int


def _range_end(prefix: bytes) -> bytes:
    """The end of the key range that holds every key starting with `prefix`."""
    end = bytearray(prefix)
    while end:
        if end[-1] < 0xFF:
            end[-1] += 1
            return bytes(end)
        end.pop()
    return b"\0"


class Etcd:
    def __init__(self, endpoints: list[str], *, tls: TlsConfig | None = None, username: str | None = None,
                 password: str | Callable[[], str | None] | None = None, timeout: float = 3.0) -> None:
        """`endpoints`: http://host:port or https://host:port (TLS with `tls`'s CA and client pair);
        `password` may be a function, read at each login (a fixed secret file takes effect then)."""
        if not endpoints:
            raise ValueError("etcd needs at least one endpoint")
        self.addresses: list[tuple[str, bool]] = []
        for url in endpoints:
            u = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
            if u.scheme not in ("http", "https") or not u.hostname or not u.port:
                raise ValueError(f"etcd endpoint {url!r}: give http://host:port or https://host:port")
            self.addresses.append((f"{u.hostname}:{u.port}", u.scheme == "https"))
        self.tls, self.username, self.password, self.timeout = tls, username, password, timeout
        self._current = 0
        self._channel: grpc.aio.Channel | None = None
        self._token: str | None = None
        self.errors = 0  # calls that failed on an endpoint (each retried on the next)

    @property
    def endpoint(self) -> str:
        return self.addresses[self._current][0]

    async def _connect(self) -> grpc.aio.Channel:
        if self._channel is None:
            address, secure = self.addresses[self._current]
            tls = self.tls if secure else None
            if secure and (tls is None or not tls.enabled):
                tls = (tls or TlsConfig()).model_copy(update={"enabled": True})
            password: str | None = None
            if self.username is not None:
                try:
                    password = self.password() if callable(self.password) else self.password
                except ValueError as exc:  # the secret's file or variable is gone
                    raise EtcdAuthError(f"etcd {self.endpoint}: no password for user {self.username!r}: "
                                        f"{exc}") from None
            ch = channel(address, tls)
            try:
                if self.username is not None:
                    resp = await stubs.AuthStub(ch).Authenticate(
                        pb.AuthenticateRequest(name=self.username, password=password or ""), timeout=self.timeout)
                    self._token = resp.token
            except BaseException:
                await ch.close()  # kept without its token, the channel's next request would be refused anew
                raise
            self._channel = ch
        return self._channel

    def _metadata(self) -> tuple[tuple[str, str], ...] | None:
        return (("token", self._token),) if self._token else None

    async def _drop(self) -> None:
        if self._channel is not None:
            await self._channel.close()
        self._channel, self._token = None, None

    async def _call(self, fn: Callable[[grpc.aio.Channel], Awaitable[T]]) -> T:
        """`fn` on the current endpoint, then on each other one, until one answers."""
        last: Exception | None = None
        relogged = False
        attempt = 0
        while attempt < len(self.addresses):
            attempt += 1
            try:
                return await fn(await self._connect())
            except grpc.aio.AioRpcError as exc:
                code, detail = exc.code(), exc.details() or ""
                if code == grpc.StatusCode.UNAUTHENTICATED and "token" in detail and not relogged:
                    # auth tokens expire (etcd's --auth-token-ttl): log in again, once per call
                    relogged = True
                    attempt -= 1
                    await self._drop()
                    continue
                if code == grpc.StatusCode.NOT_FOUND and "lease" in detail:
                    raise LeaseGone(f"etcd {self.endpoint}: {detail}") from None
                refusal = self._refusal(code, detail)
                if refusal is not None:
                    await self._drop()  # a token that went bad: log in again next time
                    raise EtcdAuthError(refusal) from None
                if code in _REFUSED:
                    raise EtcdError(f"etcd {self.endpoint}: {code.name}: {detail}") from None
                last = exc
            except (TimeoutError, OSError) as exc:
                last = exc
            self.errors += 1
            await self._drop()
            self._current = (self._current + 1) % len(self.addresses)
        detail = f"{last.code().name}: {last.details()}" if isinstance(last, grpc.aio.AioRpcError) else repr(last)
        raise EtcdError(f"no etcd endpoint answered ({', '.join(a for a, _ in self.addresses)}): {detail}")

    def _refusal(self, code: grpc.StatusCode, detail: str) -> str | None:
        """What to tell the operator when etcd refused this client's credentials or permissions."""
        user = f"user {self.username!r}" if self.username is not None else "no user"
        if code == grpc.StatusCode.PERMISSION_DENIED:
            return (f"etcd {self.endpoint}: permission denied to {user}: its role must grant readwrite on the "
                    f"cluster prefix ({detail})")
        if code == grpc.StatusCode.UNAUTHENTICATED or (
                code == grpc.StatusCode.INVALID_ARGUMENT and ("authentication failed" in detail
                                                              or "user name is empty" in detail)):
            hint = ("auth is on: set [cluster] username and password" if self.username is None
                    else "check [cluster] username and password")
            return f"etcd {self.endpoint}: refused {user}: {detail} ({hint})"
        return None

    async def close(self) -> None:
        await self._drop()

    # -- leases --------------------------------------------------------------------------------
    async def grant(self, ttl_s: int) -> int:
        async def go(ch: grpc.aio.Channel) -> int:
            resp = await stubs.LeaseStub(ch).LeaseGrant(pb.LeaseGrantRequest(TTL=ttl_s), timeout=self.timeout,
                                                        metadata=self._metadata())
            return int(resp.ID)
        return await self._call(go)

    async def keepalive(self, lease: int) -> int:
        """Renew a lease once: its TTL now, 0 if it had expired."""
        async def go(ch: grpc.aio.Channel) -> int:
            call = stubs.LeaseStub(ch).LeaseKeepAlive(iter([pb.LeaseKeepAliveRequest(ID=lease)]),
                                                      timeout=self.timeout, metadata=self._metadata())
            async for resp in call:
                return int(resp.TTL)
            return 0
        return await self._call(go)

    async def time_to_live(self, lease: int) -> tuple[int, int]:
        """(seconds left, TTL granted) of a lease; (-1, 0) when it is gone."""
        async def go(ch: grpc.aio.Channel) -> tuple[int, int]:
            resp = await stubs.LeaseStub(ch).LeaseTimeToLive(pb.LeaseTimeToLiveRequest(ID=lease),
                                                             timeout=self.timeout, metadata=self._metadata())
            return int(resp.TTL), int(resp.grantedTTL)
        return await self._call(go)

    async def revoke(self, lease: int) -> None:
        async def go(ch: grpc.aio.Channel) -> None:
            try:
                await stubs.LeaseStub(ch).LeaseRevoke(pb.LeaseRevokeRequest(ID=lease), timeout=self.timeout,
                                                      metadata=self._metadata())
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.NOT_FOUND:  # already expired: nothing to revoke
                    raise
        await self._call(go)

    # -- keys ----------------------------------------------------------------------------------
    async def put(self, key: str, value: str, *, lease: int = 0) -> None:
        async def go(ch: grpc.aio.Channel) -> Any:
            return await stubs.KVStub(ch).Put(pb.PutRequest(key=key.encode(), value=value.encode(), lease=lease),
                                              timeout=self.timeout, metadata=self._metadata())
        await self._call(go)

    async def prefix(self, prefix: str) -> list[KeyValue]:
        """Every key under `prefix`, in key order (a linearizable read: it needs a quorum)."""
        start = prefix.encode()

        async def go(ch: grpc.aio.Channel) -> list[KeyValue]:
            resp = await stubs.KVStub(ch).Range(pb.RangeRequest(key=start, range_end=_range_end(start)),
                                                timeout=self.timeout, metadata=self._metadata())
            return [KeyValue(kv.key, kv.value, int(kv.lease)) for kv in resp.kvs]
        return await self._call(go)

    async def delete(self, key: str, *, lease: int | None = None) -> None:
        """Delete `key`; with `lease`, only while it is bound to that lease (not another holder's)."""
        k = key.encode()
        if lease is None:
            async def go(ch: grpc.aio.Channel) -> Any:
                return await stubs.KVStub(ch).DeleteRange(pb.DeleteRangeRequest(key=k),
                                                          timeout=self.timeout, metadata=self._metadata())
            await self._call(go)
            return
        await self._txn(pb.Compare(key=k, target=pb.Compare.LEASE, result=pb.Compare.EQUAL, lease=lease),
                        pb.RequestOp(request_delete_range=pb.DeleteRangeRequest(key=k)), k)

    async def _txn(self, compare: pb.Compare, then: pb.RequestOp, key: bytes) -> tuple[bool, KeyValue | None]:
        """`then` if `compare` holds, in one transaction: (True, None); else (False, `key` as it is now)."""
        get = pb.RequestOp(request_range=pb.RangeRequest(key=key))

        async def go(ch: grpc.aio.Channel) -> Any:
            return await stubs.KVStub(ch).Txn(pb.TxnRequest(compare=[compare], success=[then], failure=[get]),
                                              timeout=self.timeout, metadata=self._metadata())
        resp = await self._call(go)
        if resp.succeeded:
            return True, None
        kvs = resp.responses[0].response_range.kvs
        return False, (KeyValue(kvs[0].key, kvs[0].value, int(kvs[0].lease)) if kvs else None)

    async def claim(self, key: str, value: str, *, lease: int) -> KeyValue | None:
        """Put `key` bound to `lease` if it is absent or already bound to `lease`, atomically: None;
        else write nothing and give the key as another holder has it."""
        k = key.encode()
        put = pb.RequestOp(request_put=pb.PutRequest(key=k, value=value.encode(), lease=lease))
        absent = pb.Compare(key=k, target=pb.Compare.CREATE, result=pb.Compare.EQUAL, create_revision=0)
        ours = pb.Compare(key=k, target=pb.Compare.LEASE, result=pb.Compare.EQUAL, lease=lease)
        for _ in range(3):  # etcd compares are and-ed: "absent or ours" is two tries, the key may change between
            for condition in (absent, ours):
                done, held = await self._txn(condition, put, k)
                if done:
                    return None
                if held is None:
                    break  # gone since: absent again
                if held.lease != lease:
                    return held
        raise EtcdError(f"etcd {self.endpoint}: {key} kept changing while it was claimed")
