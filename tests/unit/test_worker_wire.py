"""What a worker process sends the daemon: length-prefixed msgpack frames (never pickle: decoding runs
no code). A frame cut short is the end of the stream; anything else that is not a message (garbage,
an oversized length) is a WireError, which makes the daemon restart that worker, never stop."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.core.batch import DeviceEvent, ModuleInfo, PortSample, SampleBatch
from fabricwatch.daemon.config import ConfigError, parse
from fabricwatch.daemon.status import TargetStatus
from fabricwatch.daemon.worker_pool import START_GRACE, WorkerPool, worker_of
from fabricwatch.daemon.worker_wire import MAX_FRAME, WireError, frame, frames, pack, receive, send, unpack


async def _feed(data: bytes) -> list[object]:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    out: list[object] = []
    while True:
        try:
            message = await receive(reader)
        except WireError as exc:
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


def _frames(*messages: list[object]) -> bytes:
    sink = _Sink()
    for m in messages:
        asyncio.run(send(sink, m))  # type: ignore[arg-type]
    return bytes(sink.data)


def test_messages_come_out_as_they_went_in() -> None:
    batch = SampleBatch("gnmi", "leaf1", [PortSample("leaf1", "swp1", 5, {"in_octets": 10.0}, {"rail": "1"})])
    got = asyncio.run(_feed(_frames(["batch", "gnmi:s:leaf1", pack(batch)], ["status", "k", {"up": True}])))
    assert got[0][:2] == ["batch", "gnmi:s:leaf1"] and unpack(got[0][2]) == batch
    assert got[1] == ["status", "k", {"up": True}]


def test_a_frame_runs_no_code() -> None:
    """A pickle that would run a command is not a message: the bytes are never unpickled."""
    import pickle

    class Evil:
        def __reduce__(self) -> tuple[object, ...]:
            return (os.system, ("touch /tmp/fabricwatch-pwned",))

    body = pickle.dumps(("batch", Evil()))
    [err] = asyncio.run(_feed(struct.pack("!I", len(body)) + body))
    assert isinstance(err, WireError) and not os.path.exists("/tmp/fabricwatch-pwned")


def test_a_packed_batch_of_the_wrong_shape_is_a_wire_error() -> None:
    for bad in (None, [], ["gnmi", "leaf1"], ["gnmi", "leaf1", [[1]], 0, [], [], []],
                [1, 2, [], 0, [], [], []], ["gnmi", "leaf1", [], 0, [], [["only-kind"]], []]):
        try:
            unpack(bad)
        except WireError:
            continue
        raise AssertionError(f"{bad!r} unpacked")


def test_frames_split_big_lists_and_refuse_an_oversized_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fabricwatch.daemon.worker_wire.MAX_FRAME", 1000)
    small = [["emit", "x", {"pad": "a" * 300}] for _ in range(7)]
    huge = ["emit", "x", {"pad": "b" * 2000}]
    refused: list[object] = []
    out = frames([*small[:3], huge, *small[3:]], lambda m, exc: refused.append((m[0], str(exc))))
    assert all(len(f) <= 1004 for f in out) and len(out) > 1
    got = asyncio.run(_feed(b"".join(out)))
    flat = [p for m in got for p in (m[1] if m[0] == "many" else [m])]  # type: ignore[index]
    assert flat == small and len(refused) == 1 and "frame limit" in refused[0][1]  # type: ignore[index]
    try:
        frame(huge)
    except WireError:
        pass
    else:
        raise AssertionError("an oversized message framed")


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
    many = ["many", [["batch", f"gnmi:s:{i}", pack(b)] for i, b in enumerate(batches)]]
    [got] = asyncio.run(_feed(_frames(many)))
    assert got[0] == "many" and [unpack(m[2]) for m in got[1]] == batches
    assert [m[1] for m in got[1]] == [f"gnmi:s:{i}" for i in range(len(batches))]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 80))
def test_any_bytes_are_messages_an_end_or_a_value_error(garbage: bytes, cut: int) -> None:
    good = _frames(["emit", "collector", {"state": "up"}])
    got = asyncio.run(_feed(good + garbage))
    assert got[0] == ["emit", "collector", {"state": "up"}]
    assert all(isinstance(m, list | WireError) for m in got[1:])
    assert asyncio.run(_feed(good[:cut])) == ([] if cut < len(good) else [got[0]])  # cut short: the end


def test_an_oversized_frame_is_refused_before_it_is_read() -> None:
    [err] = asyncio.run(_feed(struct.pack("!I", MAX_FRAME + 1) + b"x" * 10))
    assert isinstance(err, WireError) and "frame" in str(err)


def test_each_target_has_one_worker_whatever_the_process() -> None:
    """Another Python process (another hash seed) puts every target on the same worker."""
    keys = [f"gnmi:sim:leaf-{i}" for i in range(400)]
    owners = [worker_of(k, 4) for k in keys]
    code = ("import json, sys; from fabricwatch.daemon.worker_pool import worker_of; "
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


# -- the pool against real child processes that go wrong once, then run the real worker -------------
_CHILD = '''
import os, struct, sys, time
runs, mode, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
n = int(open(runs).read() or 0) if os.path.exists(runs) else 0
open(runs, "w").write(str(n + 1))
if n == 0:
    fd = int(rest[rest.index("--fd") + 1])
    if mode == "garbage":
        os.write(fd, struct.pack("!I", 5) + b"hello")
    elif mode == "oversized":
        os.write(fd, struct.pack("!I", 2**31))
    elif mode == "wrong_shape":
        os.write(fd, struct.pack("!I", 8) + bytes([0x92, 0xa5]) + b"batch" + bytes([0x01]))  # ["batch", 1]
    elif mode == "fatal":
        body = bytes([0x92, 0xa5]) + b"fatal" + bytes([0xd9, 24]) + b"ConfigError: x.toml: bad"
        os.write(fd, struct.pack("!I", len(body)) + body)
        import socket  # then as the real worker does: no more to say, read until the daemon closes
        sock = socket.socket(fileno=fd)
        sock.shutdown(socket.SHUT_WR)
        while sock.recv(65536):
            pass
        sys.exit(1)
    time.sleep(60)
os.execv(sys.executable, [sys.executable, "-m", "fabricwatch.daemon.worker_process", *rest])
'''


async def _pool_run(tmp_path: Path, mode: str) -> tuple[WorkerPool, TargetStatus, list[str | None]]:
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    config = parse({"daemon": {"worker_heartbeat": "0.1s", "worker_timeout": "1s", "event_loop": "asyncio"}})
    status = TargetStatus("gnmi", "s", "leaf1", "127.0.0.1:1")
    handled: list[str] = []

    async def handle(key: str, batch: SampleBatch) -> None:
        handled.append(key)

    pool = WorkerPool(config, statuses={"gnmi:s:leaf1": status}, handle=handle, emit=lambda k, p: None,
                      polled=lambda k, s: None, command=[sys.executable, str(script), str(tmp_path / "runs"), mode])
    await pool.start()
    await pool.start_target("gnmi:s:leaf1")
    seen: list[str | None] = []  # what /readyz would have said, polled every 50 ms
    w = pool.workers[0]
    try:
        async with asyncio.timeout(60):
            while not (w.restarts == 1 and w.up and w.spoken and pool.not_ready() is None):
                seen.append(pool.not_ready())
                await asyncio.sleep(0.05)
    finally:
        await pool.close()
    return pool, status, seen


@pytest.mark.parametrize("mode", ["garbage", "oversized", "wrong_shape"])
async def test_a_worker_sending_a_malformed_frame_is_counted_and_restarted(tmp_path: Path, mode: str) -> None:
    pool, status, seen = await _pool_run(tmp_path, mode)
    w = pool.workers[0]
    assert (w.bad_frames, w.restarts, w.hangs) == (1, 1, 0)
    assert status.errors == {"worker": 1} and "malformed frame" in status.last_error and not status.up
    assert any(s is not None and "worker 0 sent a malformed frame" in s for s in seen)


async def test_a_failing_worker_says_why(tmp_path: Path) -> None:
    """A worker that exits on a failure tells the daemon why before it goes: its targets and /readyz say it."""
    pool, status, seen = await _pool_run(tmp_path, "fatal")
    assert pool.workers[0].restarts == 1 and pool.workers[0].bad_frames == 0
    assert "worker 0 failed: ConfigError: x.toml: bad; starting it again" in status.last_error
    assert any(s is not None and "worker 0 failed: ConfigError: x.toml: bad" in s for s in seen)


async def test_the_real_worker_beats_and_says_why_it_fails() -> None:
    """The worker process beats from the start; on a failure it sends the reason, then waits for the
    daemon to close (so the reason is not lost to a reset) and exits 1."""
    mine, theirs = socket.socketpair()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fabricwatch.daemon.worker_process", "--fd", str(theirs.fileno()), "--index", "0",
        "--event-loop", "asyncio", pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    theirs.close()
    reader, writer = await asyncio.open_unix_connection(sock=mine)
    await send(writer, ["config", {"daemon": {"worker_heartbeat": "0.1s", "worker_timeout": "1s"}}, "fw.toml"])
    got: list[list[object]] = []
    async with asyncio.timeout(60):
        while not any(m == ["beat"] for m in got):
            m = await receive(reader)
            assert m is not None
            got += m[1] if m[0] == "many" else [m]
        await send(writer, ["start"])  # a message it cannot act on: a bug, as the daemon's would be
        while (m := await receive(reader)) is not None:
            got += m[1] if m[0] == "many" else [m]
        writer.close()
        assert await proc.wait() == 1
    assert [m for m in got if m[0] == "fatal"] == [["fatal", "IndexError: list index out of range"]]


async def test_a_stopped_worker_holds_back_neither_a_reload_nor_a_target_start() -> None:
    """What the daemon tells a worker is buffered, not waited on: a stopped worker whose socket is full
    must not hold SIGHUP, or a target's start, until it is killed (nor make them fail then)."""
    config = parse({"daemon": {"worker_heartbeat": "0.1s", "worker_timeout": "1s", "event_loop": "asyncio"}})
    pool = WorkerPool(config, statuses={}, handle=lambda k, b: asyncio.sleep(0), emit=lambda k, p: None,
                      polled=lambda k, s: None)
    await pool.start()
    w = pool.workers[0]
    try:
        async with asyncio.timeout(60):
            while not w.spoken:
                await asyncio.sleep(0.05)
        assert w.proc is not None
        os.kill(w.proc.pid, signal.SIGSTOP)
        big = parse({"daemon": {"worker_heartbeat": "0.1s", "worker_timeout": "1s", "site": "x" * (8 << 20)}})
        async with asyncio.timeout(0.5):
            await pool.reload(big)
            await pool.start_target("gnmi:s:leaf1")
        async with asyncio.timeout(60):
            while not (w.hangs == 1 and w.restarts == 1 and w.spoken):
                await asyncio.sleep(0.05)
        await pool.stop_target("gnmi:s:leaf1")
    finally:
        await pool.close()


# -- two workers: one sends a bad frame, the other goes on delivering ----------------------------------
_TWO = '''
import os, socket, struct, sys, time
from fabricwatch.core.batch import PortSample, SampleBatch
from fabricwatch.daemon.worker_wire import frame, pack
runs, mode, key, rest = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
fd, index = int(rest[rest.index("--fd") + 1]), int(rest[rest.index("--index") + 1])
if index == 0:
    n = int(open(runs).read() or 0) if os.path.exists(runs) else 0
    open(runs, "w").write(str(n + 1))
    if n == 0:
        bodies = {
            "oversized": struct.pack("!I", (64 << 20) + 1) + b"x" * 64,  # one over the bound
            "truncated": struct.pack("!I", 100) + b"\\x92\\xa4beat" ,    # 100 bytes said, 6 sent
            "truncated_exit": struct.pack("!I", 100) + b"\\x92\\xa4beat",
            "garbage": struct.pack("!I", 6) + b"\\xc1\\xc1\\xc1\\xc1\\xc1\\xc1",  # 0xc1: never used in msgpack
            "wrong_shape": frame(["batch", key]),
            "bad_status": frame(["status", "gnmi:s:w0", {"up": "yes", "connects": "many", "samples": [1],
                                 "unmapped": {"a": 1}, "errors": [1, 2], "activity": {"polls": "x"},
                                 "last_error": 5, "polls": []}]),
        }
        os.write(fd, bodies[mode])
        if mode == "truncated_exit":
            sys.exit(3)
        time.sleep(60)
sock = socket.socket(fileno=fd)


def listen():  # the daemon's "exit" (or its end of the socket) ends this worker, as it does the real one
    tail = b""
    while (data := sock.recv(65536)):
        tail = (tail + data)[-16:]
        if b"\\xa4exit" in tail:
            break
    os._exit(0)


import threading
threading.Thread(target=listen, daemon=True).start()
i = 0
while True:
    i += 1
    batch = SampleBatch("gnmi", "leaf", [PortSample("leaf", "swp1", i, {"in_octets": float(i)}, {})])
    sock.sendall(frame(["many", [["beat"], *([["batch", key, pack(batch)]] if index == 1 else [])]]))
    time.sleep(0.05)
'''


@pytest.mark.parametrize("mode, bad, hung, reason", [
    ("oversized", 1, 0, "malformed frame (a frame of 67108865 bytes"),
    ("truncated", 0, 1, "sent nothing for"),
    ("truncated_exit", 0, 0, "exited (3)"),
    ("garbage", 1, 0, "malformed frame (not msgpack"),
    ("wrong_shape", 1, 0, "malformed frame (a 'batch' message of the wrong shape"),
    ("bad_status", 1, 0, "malformed frame (a 'status' message of the wrong shape"),
])
async def test_a_bad_frame_restarts_its_worker_while_the_other_delivers(
        tmp_path: Path, mode: str, bad: int, hung: int, reason: str) -> None:
    """Two workers: the first sends one frame over the bound, one cut short (then silent: killed after
    worker_timeout, not the start's grace; or then exiting), one of garbage, one of msgpack of the wrong
    shape (a 'status' whose values are of the wrong types once went onto the target and broke /metrics);
    it is counted and restarted, its target says why, and the second worker's batches keep arriving with
    no gap and no restart."""
    from fabricwatch.daemon.status import TargetMetrics

    script = tmp_path / "child.py"
    script.write_text(_TWO)
    good = next(f"gnmi:s:leaf{i}" for i in range(100) if worker_of(f"gnmi:s:leaf{i}", 2) == 1)
    mine = next(f"gnmi:s:w{i}" for i in range(100) if worker_of(f"gnmi:s:w{i}", 2) == 0)
    config = parse({"daemon": {"workers": 2, "worker_heartbeat": "0.1s", "worker_timeout": "1s",
                               "event_loop": "asyncio"}})
    statuses = {good: TargetStatus("gnmi", "s", "leaf", "127.0.0.1:1"),
                mine: TargetStatus("gnmi", "s", "w0", "127.0.0.1:2")}
    arrived: list[float] = []

    async def handle(key: str, batch: SampleBatch) -> None:
        if key == good:
            arrived.append(time.monotonic())

    pool = WorkerPool(config, statuses=statuses, handle=handle, emit=lambda k, p: None, polled=lambda k, s: None,
                      command=[sys.executable, str(script), str(tmp_path / "runs"), mode, good])
    await pool.start()
    await pool.start_target(good)
    await pool.start_target(mine)
    w0, w1 = pool.workers
    try:
        async with asyncio.timeout(60):
            while not (w0.restarts == 1 and w0.up and w0.spoken and pool.not_ready() is None):
                assert w0.restarts < 2
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
    finally:
        await pool.close()
    assert (w0.bad_frames, w0.hangs, w0.restarts) == (bad, hung, 1)
    assert statuses[mine].errors == {"worker": 1} and reason in statuses[mine].last_error
    if mode == "truncated":  # a frame begun is hearing from it: the rest is waited for worker_timeout, not
        # the grace a worker still importing has before its first frame
        silent = re.search(r"sent nothing for ([0-9.]+) s", statuses[mine].last_error)
        assert silent and float(silent[1]) < START_GRACE, statuses[mine].last_error
    assert (w1.restarts, w1.bad_frames, w1.hangs) == (0, 0, 0) and statuses[good].errors == {}
    gaps = [b - a for a, b in itertools.pairwise(arrived)]
    assert len(arrived) > 10 and max(gaps) < 0.75, max(gaps)
    assert isinstance(statuses[mine].samples, int) and isinstance(statuses[mine].last_error, str)
    list(TargetMetrics(lambda: statuses.values()).collect())  # /metrics still renders
