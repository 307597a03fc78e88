"""What the daemon and its worker processes say to each other: length-prefixed msgpack frames.

A frame is a 4-byte big-endian length and a msgpack body of at most MAX_FRAME bytes; its message is
a list whose first item names its kind. msgpack, not pickle: decoding a frame builds plain lists,
dicts, strings and numbers and runs no code, so a worker that went wrong (or was made to) can send
garbage but never make the daemon execute anything. A frame cut short is the end of the stream
(a worker that stays alive after one sends nothing more and is killed for silence); anything else
that is not a message is a WireError, and the daemon restarts that worker.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import msgpack

from fabricwatch.core.batch import DeviceEvent, ModuleInfo, PortSample, SampleBatch

_HEADER = struct.Struct("!I")
# a frame holds what a worker's loop produced in one pass; bigger lists are sent as several frames
MAX_FRAME = 64 << 20
OUTBOX_MAX = 2000  # messages in one frame at most

Message = list[Any]


class WireError(ValueError):
    """Bytes that are not a message: undecodable, oversized, or of the wrong shape."""


class Writer(Protocol):
    """The part of an asyncio.StreamWriter that sending uses."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...


def _frame(body: bytes) -> bytes:
    return _HEADER.pack(len(body)) + body


def frame(message: Sequence[Any]) -> bytes:
    """One message as one frame; WireError if it cannot be one (too big, a type msgpack lacks)."""
    try:
        body = msgpack.packb(message)
    except (TypeError, ValueError, OverflowError) as exc:
        raise WireError(f"cannot encode a {message[0]!r} message: {exc}"[:300]) from None
    if len(body) > MAX_FRAME:
        raise WireError(f"a {message[0]!r} message of {len(body)} bytes is over the {MAX_FRAME}-byte frame limit")
    return _frame(body)


def frames(messages: Sequence[Message], refused: Callable[[Message, WireError], None]) -> list[bytes]:
    """Several messages as few `many` frames, halved until each fits under MAX_FRAME; a message
    that cannot be a frame on its own goes to `refused` and the others are sent."""
    if len(messages) == 1:
        try:
            return [frame(messages[0])]
        except WireError as exc:
            refused(messages[0], exc)
            return []
    try:
        return [frame(["many", list(messages)])]
    except WireError:
        half = len(messages) // 2
        if not half:
            raise
    return frames(messages[:half], refused) + frames(messages[half:], refused)


async def send(writer: Writer, message: Sequence[Any]) -> None:
    writer.write(frame(message))
    await writer.drain()


async def receive(reader: asyncio.StreamReader, begun: Callable[[], None] | None = None) -> Message | None:
    """The next message, or None at the end of the stream (a frame cut short ends it too). `begun` is
    called once a frame's length has arrived: the sender is talking, its body may still be on the way."""
    try:
        head = await reader.readexactly(_HEADER.size)
        (size,) = _HEADER.unpack(head)
        if size > MAX_FRAME:
            raise WireError(f"a frame of {size} bytes (at most {MAX_FRAME})")
        if begun is not None:
            begun()
        body = await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        return None
    try:
        message = msgpack.unpackb(body)
    except Exception as exc:  # msgpack raises several kinds for garbage: all are one failure here
        raise WireError(f"not msgpack: {exc!r}"[:300]) from None
    if not isinstance(message, list) or not message or not isinstance(message[0], str):
        raise WireError("not a message (a list starting with its kind)")
    return message


# -- batches as plain lists (their samples are most of what a worker sends) --------------------------
def pack(batch: SampleBatch) -> list[Any]:
    return [batch.collector, batch.device,
            [[s.device, s.port, s.ts_ns, s.values, s.tags, s.uptime_s, s.bits] for s in batch.samples],
            batch.unmapped,
            [[e.ts_ns, e.device, e.port, e.kind, e.detail, e.severity, e.source, e.event_id] for e in batch.events],
            [list(p) for p in batch.problems],
            [[m.device, m.port, m.ts_ns, m.fields] for m in batch.modules]]


def unpack(packed: Any) -> SampleBatch:
    """The batch `pack` gave; WireError when the shape is not a packed batch."""
    try:
        collector, device, samples, unmapped, events, problems, modules = packed
        batch = SampleBatch(collector, device, [PortSample(*s) for s in samples], unmapped,
                            [DeviceEvent(*e) for e in events], [(k, m) for k, m in problems],
                            [ModuleInfo(*m) for m in modules])
    except (TypeError, ValueError) as exc:
        raise WireError(f"not a packed batch: {exc}"[:300]) from None
    if not (isinstance(collector, str) and isinstance(device, str) and isinstance(unmapped, int)):
        raise WireError("not a packed batch: collector, device or unmapped of the wrong type")
    return batch
