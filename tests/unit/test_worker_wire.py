"""What a worker process sends the daemon: framed messages. A frame cut short is the end of the
stream; anything else that is not a message (garbage, an oversized length) is a ValueError, which
makes the daemon restart that worker, never stop."""

from __future__ import annotations

import asyncio
import json
import os
import struct
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.core.batch import DeviceEvent, ModuleInfo, PortSample, SampleBatch
from fabricwatch.daemon.config import ConfigError, parse
from fabricwatch.daemon.workers import MAX_FRAME, pack, receive, send, unpack, worker_of


async def _feed(data: bytes) -> list[object]:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    out: list[object] = []
    while True:
        try:
            message = await receive(reader)
        except ValueError as exc:
            out.append(exc)
            return out
        if message is None:
            return out
        out.append(message)


class _Sink:
    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, b: bytes) -> None:
        self.data += b

    async def drain(self) -> None:
        pass


def _frames(*messages: tuple[object, ...]) -> bytes:
    sink = _Sink()
    for m in messages:
        asyncio.run(send(sink, m))  # type: ignore[arg-type]
    return bytes(sink.data)


def test_messages_come_out_as_they_went_in() -> None:
    batch = SampleBatch("gnmi", "leaf1", [PortSample("leaf1", "swp1", 5, {"in_octets": 10.0}, {"rail": "1"})])
    got = asyncio.run(_feed(_frames(("batch", "gnmi:s:leaf1", batch), ("status", "k", {"up": True}))))
    assert got[0] == ("batch", "gnmi:s:leaf1", batch) and got[1] == ("status", "k", {"up": True})


_text = st.text(max_size=12)
_samples = st.builds(PortSample, _text, _text, st.integers(-2**63, 2**63 - 1),
                     st.dictionaries(_text, st.integers(0, 2**64 - 1) | st.floats(allow_nan=False), max_size=6),
                     st.dictionaries(_text, _text, max_size=4), st.none() | st.floats(0, 1e9),
                     st.none() | st.dictionaries(_text, st.sampled_from([32, 64]), max_size=2))
_batches = st.builds(
    SampleBatch, _text, _text, st.lists(_samples, max_size=8), st.integers(0, 1000),
    events=st.lists(st.builds(DeviceEvent, st.integers(0, 2**62), _text, _text, _text, _text), max_size=2),
    problems=st.lists(st.tuples(_text, _text), max_size=2),
    modules=st.lists(st.builds(ModuleInfo, _text, _text, st.integers(0, 2**62),
                               st.dictionaries(st.sampled_from(["serial", "vendor"]), _text)), max_size=2))


@settings(max_examples=200, deadline=None)
@given(st.lists(_batches, min_size=1, max_size=4))
def test_batches_packed_into_one_frame_come_out_as_they_went_in(batches: list[SampleBatch]) -> None:
    """A worker sends what one pass of its loop produced as one frame of plain tuples."""
    frame = ("many", [("batch", f"gnmi:s:{i}", pack(b)) for i, b in enumerate(batches)])
    [got] = asyncio.run(_feed(_frames(frame)))
    assert got[0] == "many" and [unpack(m[2]) for m in got[1]] == batches
    assert [m[1] for m in got[1]] == [f"gnmi:s:{i}" for i in range(len(batches))]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 80))
def test_any_bytes_are_messages_an_end_or_a_value_error(garbage: bytes, cut: int) -> None:
    good = _frames(("emit", "collector", {"state": "up"}))
    got = asyncio.run(_feed(good + garbage))
    assert got[0] == ("emit", "collector", {"state": "up"})
    assert all(isinstance(m, tuple | ValueError) for m in got[1:])
    assert asyncio.run(_feed(good[:cut])) == ([] if cut < len(good) else [got[0]])  # cut short: the end


def test_an_oversized_frame_is_refused_before_it_is_read() -> None:
    [err] = asyncio.run(_feed(struct.pack("!I", MAX_FRAME + 1) + b"x" * 10))
    assert isinstance(err, ValueError) and "frame" in str(err)


def test_each_target_has_one_worker_whatever_the_process() -> None:
    """Another Python process (another hash seed) puts every target on the same worker."""
    keys = [f"gnmi:sim:leaf-{i}" for i in range(400)]
    owners = [worker_of(k, 4) for k in keys]
    code = ("import json, sys; from fabricwatch.daemon.workers import worker_of; "
            "print(json.dumps([worker_of(k, 4) for k in json.load(sys.stdin)]))")
    other = subprocess.run([sys.executable, "-c", code], input=json.dumps(keys), capture_output=True, text=True,
                           check=True, timeout=60, env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert json.loads(other.stdout) == owners and set(owners) == {0, 1, 2, 3}
    assert abs(owners.count(0) - 100) < 35  # a fair share each


def test_workers_is_auto_or_a_count() -> None:
    assert parse({"daemon": {"workers": "auto"}}).daemon.worker_count >= 1
    assert parse({"daemon": {"workers": 3}}).daemon.worker_count == 3
    for bad in (0, "many", 1000):
        try:
            parse({"daemon": {"workers": bad}}, "fw.toml")
        except ConfigError as exc:
            assert "fw.toml" in str(exc) and "daemon.workers" in str(exc)
        else:
            raise AssertionError(f"workers = {bad!r} accepted")
