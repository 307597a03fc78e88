"""A gNMI target that answers with a message over the collector's receive limit, a protobuf nested 100k
deep (TypedValue.leaflist_val inside ScalarArray.element, recursively) or JSON values nested 100k deep:
each is an error counted for that target and retried, never a crash, and the other targets go on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from pygnmi.spec.v080 import gnmi_pb2

from fabricwatch.daemon.config import parse
from tests.integration.helpers import start_runner, start_sim
from tests.servers import free_port

pytestmark = pytest.mark.integration
DEPTH = 100_000
OVER_LIMIT = 65 << 20  # the collector receives at most 64 MiB


def _key(field: int) -> bytes:
    return bytes([field << 3 | 2])  # length-delimited; every field used here is below 16


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _nested(fields: list[int], inner: bytes) -> bytes:
    """`inner` wrapped in length-delimited fields, the first the outermost, without copying it per layer."""
    heads, length = [], len(inner)
    for field in reversed(fields):
        head = _key(field) + _varint(length)
        heads.append(head)
        length += len(head)
    return b"".join(reversed(heads)) + inner


def deep_proto(device: str) -> bytes:
    """A SubscribeResponse whose one update's value is a leaf-list of a leaf-list of ... DEPTH deep."""
    path = gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="interfaces")]).SerializeToString()
    prefix = gnmi_pb2.Path(target=device).SerializeToString()
    # Update.val (3) -> TypedValue.leaflist_val (8) -> ScalarArray.element (1) -> TypedValue ...
    value = _nested([8, 1] * DEPTH, gnmi_pb2.TypedValue(int_val=1).SerializeToString())
    update = _key(1) + _varint(len(path)) + path + _key(3) + _varint(len(value)) + value
    notification = _key(2) + _varint(len(prefix)) + prefix + _key(4) + _varint(len(update)) + update
    return _key(1) + _varint(len(notification)) + notification


def json_update(device: str, which: str, text: bytes) -> bytes:
    path = gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="interfaces"), gnmi_pb2.PathElem(
        name="interface", key={"name": "Ethernet0"}), gnmi_pb2.PathElem(name="state"),
        gnmi_pb2.PathElem(name="counters"), gnmi_pb2.PathElem(name="in-octets")])
    return gnmi_pb2.SubscribeResponse(update=gnmi_pb2.Notification(
        timestamp=1, prefix=gnmi_pb2.Path(target=device),
        update=[gnmi_pb2.Update(path=path, val=gnmi_pb2.TypedValue(**{which: text}))])).SerializeToString()


async def hostile(requests: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
    first = await anext(aiter(requests))
    device = first.subscribe.prefix.target
    if device == "huge":
        yield gnmi_pb2.SubscribeResponse(update=gnmi_pb2.Notification(
            prefix=gnmi_pb2.Path(target=device), update=[gnmi_pb2.Update(
                path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="x")]),
                val=gnmi_pb2.TypedValue(bytes_val=b"#" * OVER_LIMIT))])).SerializeToString()
    elif device == "deep-proto":
        yield deep_proto(device)
    else:
        while True:  # a stream that stays up, every value of it unreadable
            yield json_update(device, "json_val", b"[" * DEPTH + b"]" * DEPTH)
            yield json_update(device, "json_ietf_val", b'{"a":' * DEPTH + b"1" + b"}" * DEPTH)
            yield json_update(device, "json_ietf_val", b'{"a":' * 900 + b"1" + b"}" * 900)  # parses: no counter
            await asyncio.sleep(0.2)
    await asyncio.sleep(60)


async def test_huge_and_deeply_nested_messages_are_counted_errors_and_the_others_go_on(tmp_path: Path) -> None:
    server = grpc.aio.server(options=[("grpc.max_send_message_length", -1)])
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("gnmi.gNMI", {
        "Subscribe": grpc.stream_stream_rpc_method_handler(
            hostile, request_deserializer=gnmi_pb2.SubscribeRequest.FromString,
            response_serializer=lambda b: b)})])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    sim = await start_sim()
    sections = sim.daemon_collectors(0.3)
    sections.append({"name": "hostile", "flavour": "openconfig", "sample_interval": 0.3,
                     "backoff": {"initial": 0.2, "max": 0.5}, "optics": False,
                     "targets": [{"device": d, "address": f"127.0.0.1:{port}"}
                                 for d in ("huge", "deep-proto", "deep-json")]})
    cfg = parse({"daemon": {"listen": "127.0.0.1:0"}, "collectors": {"gnmi": sections},
                 "sinks": {"influxdb": [{"database": "x", "url": f"http://127.0.0.1:{free_port()}",
                                         "spool": {"dir": str(tmp_path / "spool")}}]}}, "<test>")
    runner, task = await start_runner(cfg, sim)
    try:
        def by_device() -> dict[str, Any]:
            return {t.device: t for t in runner.targets.values()}

        async def until(cond: Any) -> bool:
            for _ in range(300):
                if cond():
                    return True
                await asyncio.sleep(0.1)
            return bool(cond())

        others = [t for d, t in by_device().items() if d not in ("huge", "deep-proto", "deep-json")]
        assert await until(lambda: sum(by_device()["huge"].errors.values()) >= 2
                           and sum(by_device()["deep-proto"].errors.values()) >= 2)  # each retried
        t = by_device()
        assert t["huge"].errors.get("too_large", 0) >= 2, (t["huge"].errors, t["huge"].last_error)
        assert t["deep-proto"].errors.get("decode", 0) >= 2, (t["deep-proto"].errors, t["deep-proto"].last_error)
        samples = sum(o.samples for o in others)
        await asyncio.sleep(1.0)
        assert sum(o.samples for o in others) > samples and all(o.up for o in others)  # the others go on
        deep_json = by_device()["deep-json"]
        # unreadable values are counted and skipped; the session itself stays up
        assert deep_json.activity.get("bad_values", 0) >= 4 and deep_json.up and not deep_json.errors, \
            (deep_json.activity, deep_json.errors, deep_json.last_error)
        assert not task.done()
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()
        await server.stop(None)
