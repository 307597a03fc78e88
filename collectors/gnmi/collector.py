"""gNMI collector: one Subscribe per target over grpc.aio; STREAM, ONCE or POLL."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from fabricwatch.collectors.gnmi import lldp, sonic_state
from fabricwatch.collectors.gnmi.mapping import Decoder, load_table
from fabricwatch.core.batch import ModuleInfo, SampleBatch, coalesce
from fabricwatch.core.errors import TargetError
from fabricwatch.core.grpc_runtime import channel
from fabricwatch.core.neighbours import Neighbour
from fabricwatch.core.problems import Problem
from fabricwatch.core.secrets import reveal

if TYPE_CHECKING:
    from fabricwatch.collectors.gnmi.config import GnmiConfig, GnmiTarget

log = logging.getLogger("fabricwatch.gnmi")
_ENCODING = {"proto": gnmi_pb2.PROTO, "json_ietf": gnmi_pb2.JSON_IETF, "json": gnmi_pb2.JSON}
_SL = gnmi_pb2.SubscriptionList
# decoded samples (one per port and notification) held before the reader waits for the pipeline:
# bounds memory by what was decoded, not by how many responses carried it
MAX_PENDING_SAMPLES = 20_000  # decoded samples held for a stalled consumer (~350 B each): then the reader waits
LINGER_S = 0.005
# what a device answers a Subscribe with paths it does not know
REFUSED_PATHS = frozenset({grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
                           grpc.StatusCode.UNIMPLEMENTED})
# the largest response accepted (grpc's own default is 4 MiB): a big device's whole-tree ONCE answer fits;
# a larger one ends the session as a `too_large` error of that target
MAX_MESSAGE_BYTES = 64 << 20
_DENIED = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)


def _rpc_kind(exc: grpc.aio.AioRpcError) -> str:
    """The error kind a failed call counts as: a hostile or broken answer told apart from the network."""
    code, details = exc.code(), (exc.details() or "").lower()
    if code in _DENIED:
        return "auth"
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in details:
        return "too_large"
    if code == grpc.StatusCode.INTERNAL and "deserializ" in details:  # protobuf refused it (nested too deep...)
        return "decode"
    return "rpc"


def _checked(resp: Any) -> Any:
    """A response read from a call, or the TargetError its end or its failed decoding is."""
    if resp is grpc.aio.EOF:
        raise TargetError("closed", "target closed the stream")
    if resp is None:  # grpc.aio logs the protobuf error and hands on None (a message nested past upb's limit)
        raise TargetError("decode", "a response the protobuf decoder refused (malformed, or nested too deep)")
    return resp


def parse_path(text: str) -> Any:
    """'/a/b[k=v]/c' -> gnmi Path (keys without nested brackets, which is all we subscribe)."""
    elems = []
    for part in [p for p in text.strip("/").split("/") if p]:
        name, _, rest = part.partition("[")
        keys: dict[str, str] = {}
        while rest:
            kv, _, rest = rest.partition("]")
            k, _, v = kv.partition("=")
            keys[k] = v
            rest = rest.lstrip("[")
        elems.append(gnmi_pb2.PathElem(name=name, key=keys))
    return gnmi_pb2.Path(elem=elems)


async def _why_no_connection(address: str) -> str:
    """grpc only says the channel never became ready; one TCP connect says why, in words."""
    host, _, port = address.rpartition(":")
    try:
        async with asyncio.timeout(2.0):
            _, writer = await asyncio.open_connection(host.strip("[]"), int(port))
    except ConnectionRefusedError:
        return f": connection refused by {address} (nothing listens there: is gNMI enabled on this port?)"
    except TimeoutError:
        return f": {address} does not answer (host down, or a firewall drops the connection)"
    except (OSError, ValueError) as exc:
        return f": {address}: {exc}"
    writer.close()
    return f": {address} accepts TCP but no gNMI session came up (TLS expected, or another service?)"


class GnmiCollector:
    kind = "gnmi"

    def __init__(self, cfg: GnmiConfig, target: GnmiTarget) -> None:
        self.cfg = cfg
        self.target = target
        self.device = target.device
        self.address = target.address
        self.table = load_table(target.flavour or cfg.flavour)
        self.tags = {**cfg.tags, **target.tags}
        self.decoder = Decoder(self.table, self.device, self.tags)
        self._channel: grpc.aio.Channel | None = None
        self._stub: Any = None
        self.synced = False
        self.optics_refused = False  # the device refused the optics paths once: they are left out since
        self.messages = 0
        self.bad_notifications = 0

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.cfg.name}:{self.device}"

    def fingerprint(self) -> str:
        """Changes when anything that affects this target's session changes (SIGHUP diff)."""
        return self.cfg.model_dump_json(exclude={"targets"}) + self.target.model_dump_json()

    def activity(self) -> dict[str, float]:
        """Cumulative counts for /metrics: stream messages read, values and notifications not read."""
        return {"messages": self.messages, "bad_values": self.decoder.bad_values,
                "bad_notifications": self.bad_notifications}

    @property
    def unmapped(self) -> int:
        return self.decoder.unmapped

    def _metadata(self) -> list[tuple[str, str]]:
        if self.cfg.username is None:
            return []
        md = [("username", self.cfg.username)]
        if self.cfg.password is not None:
            md.append(("password", reveal(self.cfg.password)))
        return md

    async def __aenter__(self) -> GnmiCollector:
        self._channel = channel(self.address, self.cfg.tls, [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)])
        try:
            # asyncio.timeout, not wait_for: 3.11's wait_for drops a cancellation that meets the
            # channel becoming ready (a daemon stopping then never stopped this target's loop)
            async with asyncio.timeout(self.cfg.timeout):
                await self._channel.channel_ready()
        except TimeoutError:
            await self._channel.close()
            why = await _why_no_connection(self.address)
            raise TargetError("connect", f"no gNMI connection within {self.cfg.timeout:g}s{why}") from None
        self._stub = gnmi_pb2_grpc.gNMIStub(self._channel)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._channel is not None:
            await self._channel.close(grace=None)
            self._channel = None

    def _request(self, mode: int, *, optics: bool = True) -> Any:
        interval_ns = int(self.cfg.sample_interval * 1e9)
        subs = [
            gnmi_pb2.Subscription(path=parse_path(p), mode=gnmi_pb2.SAMPLE, sample_interval=interval_ns)
            for p in self.table.subscribe_sample
        ] + [
            gnmi_pb2.Subscription(path=parse_path(p), mode=gnmi_pb2.ON_CHANGE)
            for p in self.table.subscribe_on_change
        ]
        if optics and self._optics_on() and not self.table.optics_target:
            # transceiver DOM and FEC at their own, slower interval (in STREAM mode the device keeps it)
            optics_ns = int(self.cfg.optics_interval * 1e9)
            subs += [gnmi_pb2.Subscription(path=parse_path(p), mode=gnmi_pb2.SAMPLE, sample_interval=optics_ns)
                     for p in self.table.subscribe_optics]
        # SONiC selects its database with the target; others take the target as the device
        prefix = gnmi_pb2.Path(target=self.target.target or self.table.target or self.device)
        return gnmi_pb2.SubscribeRequest(
            subscribe=gnmi_pb2.SubscriptionList(
                prefix=prefix, subscription=subs, mode=mode, encoding=_ENCODING[self.cfg.encoding]
            )
        )

    def _batch(self, resp: Any) -> SampleBatch | None:
        before = self.decoder.unmapped
        self.messages += 1
        try:
            samples = self.decoder.decode(resp.update)
        except Exception:  # one notification the decoder did not expect must not end the subscription
            self.bad_notifications += 1
            log.exception("gNMI notification not decoded", extra={"target": self.key})
            return None
        inventory = self.decoder.drain_inventory()
        if not samples and not inventory and self.decoder.unmapped == before:
            return None
        ts = resp.update.timestamp
        modules = [ModuleInfo(self.device, port, ts, fields) for port, fields in inventory.items()]
        return SampleBatch("gnmi", self.device, samples, self.decoder.unmapped - before, modules=modules)

    async def neighbours(self) -> tuple[list[Neighbour], list[Problem]]:
        """The device's LLDP neighbours, read with one Subscribe ONCE in a session of its own."""
        return await lldp.neighbours(self, sonic=self.table.flavour == "sonic")

    async def once(self, paths: list[str], *, target: str | None = None) -> list[Any]:
        """Every notification the target answers a Subscribe ONCE on these paths with (for readers
        beside the counters: LLDP neighbours); `target` picks another database (SONiC's APPL_DB).
        Opens and closes its own session."""
        async with self:
            assert self._stub is not None
            call = self._stub.Subscribe(metadata=self._metadata())
            prefix = gnmi_pb2.Path(target=target or self.target.target or self.table.target or self.device)
            request = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
                prefix=prefix, subscription=[gnmi_pb2.Subscription(path=parse_path(p)) for p in paths],
                mode=_SL.ONCE, encoding=_ENCODING[self.cfg.encoding]))
            out: list[Any] = []
            try:
                await call.write(request)
                deadline = asyncio.get_running_loop().time() + self.cfg.timeout
                while True:
                    resp = await self._read(call, deadline, f"no sync_response within {self.cfg.timeout:g}s")
                    if resp.HasField("update"):
                        out.append(resp.update)
                    elif resp.sync_response:
                        return out
            except grpc.aio.AioRpcError as exc:
                raise TargetError(_rpc_kind(exc), f"{exc.code().name}: {exc.details()}") from None
            finally:
                call.cancel()

    async def stream(self) -> AsyncIterator[SampleBatch]:
        """Yields batches until the session ends; raises TargetError on any failure."""
        assert self._stub is not None, "use 'async with collector'"
        mode = {"stream": _SL.STREAM, "once": _SL.ONCE, "poll": _SL.POLL}[self.cfg.mode]
        call = self._stub.Subscribe(metadata=self._metadata())
        optics_due = time.monotonic()  # the first round reads them
        self.synced = False
        try:
            # POLL re-reads one fixed subscription list: there DOM is read at every poll
            await call.write(self._request(mode))
            if self.cfg.mode == "stream":
                async for batch in self._read_stream(call):
                    yield batch
            else:
                while True:
                    started = time.monotonic()
                    async for batch in self._read_until_sync(call):
                        yield batch
                    due = time.monotonic() >= optics_due
                    if due:
                        optics_due = time.monotonic() + self.cfg.optics_interval
                        if self._optics_on() and self.table.optics_target:
                            yield await self._other_db_optics()
                    if self.cfg.mode == "once":
                        await call.done_writing()
                        call.cancel()
                        call = self._stub.Subscribe(metadata=self._metadata())
                        await asyncio.sleep(max(0.0, self.cfg.sample_interval - (time.monotonic() - started)))
                        await call.write(self._request(mode, optics=due))
                    else:
                        await asyncio.sleep(max(0.0, self.cfg.sample_interval - (time.monotonic() - started)))
                        await call.write(gnmi_pb2.SubscribeRequest(poll=gnmi_pb2.Poll()))
        except grpc.aio.AioRpcError as exc:
            kind = _rpc_kind(exc)
            if exc.code() in REFUSED_PATHS and self._optics_on() and not self.synced:
                # a device that does not know the transceiver paths may refuse the whole Subscribe:
                # its counters matter more; the next session goes without DOM, and says so
                self.optics_refused = True
                log.warning("gNMI target refused the optics paths; subscribing without them",
                            extra={"target": self.key, "error": exc.details()})
                raise TargetError("rpc", f"{exc.code().name}: {exc.details()} "
                                         "(optics paths refused: retrying without them)") from None
            raise TargetError(kind, f"{exc.code().name}: {exc.details()}") from None
        finally:
            call.cancel()

    async def _other_db_optics(self) -> SampleBatch:
        """The optics of a flavour that keeps them in another database (SONiC's STATE_DB): one
        Subscribe ONCE on the same channel. A failure is this part's problem, never the stream's."""
        assert self._stub is not None and self.table.optics_target is not None
        batch = SampleBatch("gnmi", self.device, [])
        call = self._stub.Subscribe(metadata=self._metadata())
        request = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
            prefix=gnmi_pb2.Path(target=self.table.optics_target),
            subscription=[gnmi_pb2.Subscription(path=parse_path(p)) for p in self.table.subscribe_optics],
            mode=_SL.ONCE, encoding=_ENCODING[self.cfg.encoding]))
        try:
            await call.write(request)
            deadline = asyncio.get_running_loop().time() + self.cfg.timeout
            while True:
                resp = await self._read(call, deadline, f"no sync_response within {self.cfg.timeout:g}s")
                if resp.sync_response:
                    break
                if resp.HasField("update"):
                    samples, inventory, bad = sonic_state.decode(resp.update, self.device, self.tags)
                    batch.samples += samples
                    batch.unmapped += bad
                    batch.modules += [ModuleInfo(self.device, port, resp.update.timestamp, f)
                                      for port, f in inventory.items()]
        except grpc.aio.AioRpcError as exc:
            batch.problems.append((_rpc_kind(exc), f"{self.device}: {self.table.optics_target} optics: "
                                          f"{exc.code().name}: {exc.details()}"))
        except TargetError as exc:
            batch.problems.append((exc.kind, f"{self.device}: {self.table.optics_target} optics: {exc}"))
        finally:
            call.cancel()
        self.messages += 1
        return batch

    def _optics_on(self) -> bool:
        return self.cfg.optics and bool(self.table.subscribe_optics) and not self.optics_refused

    async def _read_stream(self, call: Any) -> AsyncIterator[SampleBatch]:
        """A reader task decodes responses as they come; each yield hands over everything
        decoded since the last one, coalesced per (port, timestamp)."""
        stale = self.cfg.stale_after or max(3 * self.cfg.sample_interval, self.cfg.timeout)
        pending: list[SampleBatch] = []
        ready = asyncio.Event()
        room = asyncio.Event()
        room.set()
        failure: list[BaseException] = []
        held = [0]  # samples in `pending`

        loop = asyncio.get_running_loop()
        heard = [loop.time()]  # when the reader last had a response, or last got room again

        async def reader() -> None:
            try:
                while True:
                    resp = await call.read()
                    heard[0] = loop.time()
                    batch = self._handle(_checked(resp))
                    if batch is not None:
                        pending.append(batch)
                        held[0] += len(batch.samples) + 1
                        ready.set()
                        if held[0] >= MAX_PENDING_SAMPLES:
                            room.clear()
                            await room.wait()
                            heard[0] = loop.time()
            except BaseException as exc:  # handed to the consumer, which raises it
                failure.append(exc)
                ready.set()

        async def watchdog() -> None:
            # one timer per stream, not one per message (a timeout around every read was a good
            # share of the per-update cost); silence while the consumer holds the reader back is
            # the consumer's time, not the target's
            while not failure:
                await asyncio.sleep(max(stale - (loop.time() - heard[0]), 0.0) + stale / 8)
                if room.is_set() and loop.time() - heard[0] >= stale and not failure:
                    failure.append(TargetError("stale", f"no update for {stale:g}s"))
                    ready.set()

        async def other_db() -> None:  # SONiC: its optics from STATE_DB, every optics_interval
            while True:
                batch = await self._other_db_optics()
                if batch.samples or batch.modules or batch.problems:
                    pending.append(batch)
                    ready.set()
                await asyncio.sleep(self.cfg.optics_interval)

        task = asyncio.create_task(reader(), name=f"{self.key}:reader")
        guard = asyncio.create_task(watchdog(), name=f"{self.key}:watchdog")
        side = asyncio.create_task(other_db(), name=f"{self.key}:optics") \
            if self._optics_on() and self.table.optics_target else None
        try:
            while True:
                await ready.wait()
                ready.clear()
                # linger a moment so one device's burst of notifications becomes one batch
                # (telemetry every few seconds does not miss a few milliseconds)
                await asyncio.sleep(LINGER_S)
                if pending:
                    items = pending[:]
                    pending.clear()
                    held[0] = 0
                    room.set()
                    yield coalesce(items)
                if failure:
                    exc = failure[0]
                    if isinstance(exc, grpc.aio.AioRpcError):
                        raise exc
                    if isinstance(exc, TargetError):
                        raise exc
                    raise TargetError("internal", repr(exc)) from exc
        finally:
            for t in (task, guard, side):
                if t is None:
                    continue
                t.cancel()
                try:
                    await t
                except (asyncio.CancelledError, Exception):
                    pass

    async def _read_until_sync(self, call: Any) -> AsyncIterator[SampleBatch]:
        deadline = asyncio.get_running_loop().time() + self.cfg.timeout
        while True:
            resp = await self._read(call, deadline, f"no sync_response within {self.cfg.timeout:g}s")
            batch = self._handle(resp)
            if batch is not None:
                yield batch
            elif resp.sync_response:
                return

    @staticmethod
    async def _read(call: Any, deadline: float, silence: str) -> Any:
        """The next response; the deadline covers this read only, never the consumer's work."""
        try:
            async with asyncio.timeout_at(deadline):
                resp = await call.read()
        except TimeoutError:
            raise TargetError("stale", silence) from None
        return _checked(resp)

    def _handle(self, resp: Any) -> SampleBatch | None:
        if resp.HasField("update"):
            return self._batch(resp)
        if resp.sync_response:
            self.synced = True
        return None
