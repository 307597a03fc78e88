"""No NCCL input ends the daemon: poison files, retained poison MQTT messages, a large upload read
whole, symlinks in the watched directory, a non-ASCII token. The collectors keep running throughout."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import aiomqtt
import pytest

from fabricwatch.daemon.config import parse
from tests.integration.helpers import start_runner, start_sim
from tests.nccl_logs import render
from tests.servers import Mosquitto, free_port

pytestmark = pytest.mark.integration
POISON = [b'{"config": [1]}', b'{"start_time": 5, "results": [{"size": 1e400}]}',
          b"{" + b'"a":[' * 20_000 + b"1" + b"]" * 20_000 + b"}", b"\xff\xfe\x00garbage"]


def _config(tmp_path: Path, sim, **nccl: object):  # type: ignore[no-untyped-def]
    return parse({
        "daemon": {"listen": "127.0.0.1:0"},
        "nccl": {"poll_interval": 0.1, **nccl},
        "collectors": {"gnmi": sim.daemon_collectors(0.3)},
        "sinks": {"influxdb": [{"database": "x", "url": f"http://127.0.0.1:{free_port()}",
                                "spool": {"dir": str(tmp_path / "spool")}}]},
    }, "<test>")


async def _wait(cond, seconds: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    for _ in range(int(seconds / 0.1)):
        if cond():
            return True
        await asyncio.sleep(0.1)
    return cond()


async def test_poison_files_are_moved_to_failed_and_everything_goes_on(tmp_path: Path) -> None:
    sim = await start_sim()
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i, body in enumerate(POISON):
        (inbox / f"poison{i}.json").write_bytes(body)
    good = render("all_reduce", ["n1", "n2"], 2, {1 << 20: 10.0, 1 << 24: 20.0})
    (inbox / "good.log").write_text(good)
    (inbox / "elsewhere").mkdir()
    (inbox / "link.log").symlink_to(inbox / "good.log")  # not followed, not moved
    runner, task = await start_runner(_config(tmp_path, sim, watch_dir=str(inbox)), sim)
    try:
        assert await _wait(lambda: len(list((inbox / "failed").glob("poison*"))) == len(POISON))
        assert await _wait(lambda: (inbox / "processed" / "good.log").exists())
        assert (inbox / "link.log").is_symlink()
        assert await _wait(lambda: all(t.up for t in runner.targets.values()))
        assert not task.done()
        assert runner.nccl.ingested_runs == 1
        assert sum(n for (src, _), n in runner.nccl.rejected_by.items() if src == "watch") == len(POISON)
        samples = sum(t.samples for t in runner.targets.values())
        await asyncio.sleep(0.7)
        assert sum(t.samples for t in runner.targets.values()) > samples  # the collectors go on
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()


async def test_retained_poison_over_mqtt_is_counted_and_the_daemon_restarts_fine(tmp_path: Path) -> None:
    sim = await start_sim()
    broker = Mosquitto(tmp_path / "mqtt")
    broker.start()
    try:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="harness") as client:
            for i, body in enumerate(POISON):
                await client.publish(f"fabricwatch/lab/nccl/p{i}", body, qos=1, retain=True)
        for _ in range(2):  # a restart meets the same retained messages
            cfg = _config(tmp_path, sim, mqtt={"port": broker.port, "topic": "fabricwatch/+/nccl/#"})
            runner, task = await start_runner(cfg, sim)
            try:
                assert await _wait(lambda: runner.nccl.rejected >= len(POISON))  # noqa: B023
                # the first poll may come after the retained messages: wait for it, then see polls go on
                assert await _wait(lambda: all(t.up for t in runner.targets.values()))  # noqa: B023
                samples = sum(t.samples for t in runner.targets.values())
                assert await _wait(lambda: sum(t.samples for t in runner.targets.values()) > samples)  # noqa: B023
                assert not task.done()
            finally:
                runner.stop()
                assert await task == 0
    finally:
        broker.stop()
        await sim.stop()


async def test_a_large_upload_is_read_whole_and_a_bad_header_is_a_401(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    sim = await start_sim()
    monkeypatch.setenv("FW_TOKEN", "t0ken")
    sizes = {1 << p: 10.0 + p for p in range(3, 34)}
    big = "\n".join(render("all_reduce", ["n1", "n2"], 2, sizes) for _ in range(300))  # ~1.6 MB, many runs
    runner, task = await start_runner(_config(tmp_path, sim, upload_token={"env": "FW_TOKEN"},
                                              max_upload_bytes=8 << 20), sim)
    assert runner.http is not None
    url = f"{runner.http.url}/api/nccl?name=big.log"
    try:
        async with aiohttp.ClientSession() as s:
            async with s.post(url, data=b"x", headers={"Authorization": "Bearer t\u00f6ken"}) as resp:
                assert resp.status == 401
            async with s.post(url, data=big.encode(), headers={"Authorization": "Bearer t0ken"}) as resp:
                assert resp.status == 201, await resp.text()
                body = await resp.json()
        assert len(body["runs"]) == 300 and all(r["rows"] == len(sizes) and r["complete"] for r in body["runs"])
        assert runner.nccl.ingested_runs == 300
    finally:
        runner.stop()
        assert await task == 0
        await sim.stop()


async def test_an_mqtt_flood_is_held_to_max_queued_and_every_drop_is_counted(tmp_path: Path) -> None:
    from fabricwatch.nccl.config import NcclSection
    from fabricwatch.nccl.service import NcclService

    broker = Mosquitto(tmp_path / "mqtt")
    broker.start()
    written: list[int] = []

    async def write(lines: list[str]) -> None:
        written.append(len(lines))

    svc = NcclService(NcclSection.model_validate(
        {"mqtt": {"port": broker.port, "topic": "fabricwatch/+/nccl/#", "max_queued": 5}}), write)
    gate = asyncio.Event()
    real_ingest = svc.ingest

    async def slow_ingest(content: bytes, name: str, path: Path | None = None):  # type: ignore[no-untyped-def]
        await gate.wait()  # the parser is stuck until the flood is over
        return await real_ingest(content, name, path)

    svc.ingest = slow_ingest  # type: ignore[method-assign]
    task = asyncio.create_task(svc.subscribe())
    sent = 300
    body = render("all_reduce", ["n1", "n2"], 1, {1024: 10.0, 2048: 11.0}).encode()
    try:
        await asyncio.sleep(1.0)  # subscribed
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="flood") as client:
            for i in range(sent):
                await client.publish(f"fabricwatch/lab/nccl/r{i}", body, qos=1)
        assert await _wait(lambda: svc.rejected_by.get(("mqtt", "queue_full"), 0) >= sent - 6 - 1)
        gate.set()
        assert await _wait(lambda: svc.ingested_runs + svc.rejected == sent)
        await asyncio.sleep(0.3)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        broker.stop()
    dropped = svc.rejected_by[("mqtt", "queue_full")]
    # at most max_queued waited in the queue (plus the one being parsed): the rest was dropped, counted
    assert svc.ingested_runs <= 5 + 1 and svc.ingested_runs + dropped == sent
    assert len(written) == svc.ingested_runs
