"""A real gNMI target (grpc.aio) per simulated switch, each on its own port like a real device.

Subscribe modes: STREAM (SAMPLE and ON_CHANGE), ONCE and POLL. Optional TLS and
username/password metadata, like a switch's gNMI agent.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from fabricwatch.core.grpc_runtime import keep_grpc_aio
from fabricwatch.simulator.fabric import Fabric, align
from fabricwatch.simulator.flavours import (
    lldp_notification,
    oper_notification,
    optics_notifications,
    port_notifications,
)
from fabricwatch.simulator.topology import SimDevice

log = logging.getLogger("fabricwatch.simulator.gnmi")

_SL = gnmi_pb2.SubscriptionList
MIN_INTERVAL_S = 0.1


def _norm(path: Any) -> str:
    names = []
    for e in path.elem:
        n = e.name
        i = n.find(":")
        names.append(n[i + 1 :] if i >= 0 else n)
    return "/" + "/".join(names)


def _matches(notif_path: str, subscribed: list[str]) -> bool:
    for sub in subscribed:
        sub_parts = [p for p in sub.split("/") if p]
        parts = [p for p in notif_path.split("/") if p]
        if len(parts) >= len(sub_parts) and all(s == "*" or (s.endswith("*") and p.startswith(s[:-1])) or s == p
               for s, p in zip(sub_parts, parts, strict=False)):
            return True
    return False


def _full_path(notif: Any) -> str:
    prefix = _norm(notif.prefix)
    if notif.update:
        leaf = _norm(notif.update[0].path)
        return prefix.rstrip("/") + leaf
    return prefix


class GnmiTarget(gnmi_pb2_grpc.gNMIServicer):
    def __init__(
        self, fabric: Fabric, device: str, *, username: str | None = None,
        password: str | None = None, shape: str = "recorded",
    ) -> None:
        self.fabric = fabric
        self.shape = shape  # flavours.SHAPES: how many counters a notification carries
        self.device = device
        self.username = username
        self.password = password
        self.sent_messages = 0

    def _auth(self, context: grpc.aio.ServicerContext) -> bool:
        if self.username is None:
            return True
        md = dict(context.invocation_metadata() or ())
        return md.get("username") == self.username and md.get("password") == self.password

    async def Capabilities(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return gnmi_pb2.CapabilityResponse(
            supported_encodings=[gnmi_pb2.PROTO, gnmi_pb2.JSON_IETF], gNMI_version="0.8.0"
        )

    def _notifications(
        self, dev: SimDevice, ts: int, subscribed: list[str]
    ) -> list[Any]:
        snap = self.fabric.snapshot(ts)
        out = []
        optics = any(p.startswith(("/components", "/interfaces/interface/state/transceiver", "/TRANSCEIVER"))
                     for p in subscribed)
        for port in dev.ports:
            for n in port_notifications(dev.flavour, port, snap, self.shape):
                if _matches(_full_path(n), subscribed):
                    out.append(n)
            if optics:
                for n in optics_notifications(dev.flavour, port, snap, self.fabric.module(port)):
                    if _matches(_full_path(n), subscribed):
                        out.append(n)
        return out

    def _lldp(self, dev: SimDevice, ts: int, subscribed: list[str]) -> list[Any]:
        out = []
        for port in dev.ports:
            n = lldp_notification(dev.flavour, port, ts)
            if n is not None and _matches(_full_path(n), subscribed):
                out.append(n)
        return out

    def _oper(self, dev: SimDevice, ts: int, subscribed: list[str],
              only_changed: dict[str, tuple[bool, bool]] | None) -> list[Any]:
        snap = self.fabric.snapshot(ts)
        out = []
        for port in dev.ports:
            state = (bool(snap.oper_up[port.index]), bool(snap.admin_up[port.index]))
            if only_changed is not None and only_changed.get(port.name) == state:
                continue
            if only_changed is not None:
                only_changed[port.name] = state
            n = oper_notification(dev.flavour, port, ts, *state)
            if n is not None and _matches(_full_path(n), subscribed):
                out.append(n)
        return out

    async def Subscribe(
        self, request_iterator: AsyncIterator[Any], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        if not self._auth(context):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "bad username or password")
        first = await anext(aiter(request_iterator), None)
        if first is None or not first.HasField("subscribe"):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "first request must subscribe")
            return
        sl = first.subscribe
        device = self.device
        dev = self.fabric.topology.devices[device]
        if self.fabric.is_dead(device):
            await asyncio.Event().wait()  # a dead device accepts the connection and says nothing
        sample_paths = [_norm(s.path) for s in sl.subscription if s.mode != gnmi_pb2.ON_CHANGE]
        change_paths = [_norm(s.path) for s in sl.subscription if s.mode == gnmi_pb2.ON_CHANGE]
        intervals = [s.sample_interval for s in sl.subscription if s.sample_interval]
        interval = max(MIN_INTERVAL_S, min(intervals) / 1e9) if intervals else 10.0
        # each SAMPLE subscription at its own interval (DOM every few minutes, counters every few seconds)
        every = [(_norm(s.path), max(interval, s.sample_interval / 1e9 if s.sample_interval else interval))
                 for s in sl.subscription if s.mode != gnmi_pb2.ON_CHANGE]
        all_paths = sample_paths + change_paths
        abort_after = next(
            (f.after for f in self.fabric.device_faults(device, "stream_abort")), None
        )
        sent = 0

        async def emit(msgs: list[Any]) -> AsyncIterator[Any]:
            nonlocal sent
            for n in msgs:
                if abort_after is not None and sent >= abort_after:
                    await context.abort(grpc.StatusCode.UNAVAILABLE, "simulated stream abort")
                sent += 1
                self.sent_messages += 1
                yield gnmi_pb2.SubscribeResponse(update=n)

        now = time.time_ns()
        oper_state: dict[str, tuple[bool, bool]] = {}
        if sl.mode in (_SL.ONCE, _SL.POLL):
            async for r in emit(self._notifications(dev, now, all_paths) + self._oper(dev, now, all_paths, None)
                                + self._lldp(dev, now, all_paths)):
                yield r
            yield gnmi_pb2.SubscribeResponse(sync_response=True)
            if sl.mode == _SL.ONCE:
                return
            async for req in request_iterator:
                if not req.HasField("poll"):
                    continue
                now = time.time_ns()
                async for r in emit(self._notifications(dev, now, all_paths) + self._oper(dev, now, all_paths, None)):
                    yield r
                yield gnmi_pb2.SubscribeResponse(sync_response=True)
            return
        # STREAM: everything once, sync_response, then samples at aligned ticks and changes
        initial = self._notifications(dev, now, sample_paths) + self._oper(dev, now, all_paths, oper_state)
        async for r in emit(initial):
            yield r
        yield gnmi_pb2.SubscribeResponse(sync_response=True)
        while True:
            tick = align(time.time_ns() + 1, interval)
            await asyncio.sleep(max(0.0, (tick - time.time_ns()) / 1e9))
            while self.fabric.is_dead(device):
                await asyncio.sleep(0.2)
            step = int(interval * 1e9)
            due = [p for p, every_s in every if every_s <= interval or tick % int(every_s * 1e9) < step]
            msgs = self._notifications(dev, tick, due) if due else []
            msgs += self._oper(dev, tick, change_paths, oper_state)
            async for r in emit(msgs):
                yield r


async def start_server(
    target: GnmiTarget, address: str, *, tls: tuple[bytes, bytes] | None = None
) -> tuple[grpc.aio.Server, int]:
    """Start on address ('127.0.0.1:0' picks a port); tls = (cert_pem, key_pem)."""
    keep_grpc_aio()
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    gnmi_pb2_grpc.add_gNMIServicer_to_server(target, server)
    if tls is not None:
        creds = grpc.ssl_server_credentials([(tls[1], tls[0])])
        port = server.add_secure_port(address, creds)
    else:
        port = server.add_insecure_port(address)
    await server.start()
    log.info("gnmi target listening", extra={"address": address, "port": port})
    return server, port
