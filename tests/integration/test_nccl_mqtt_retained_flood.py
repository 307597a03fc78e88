"""A flood of retained poison on the NCCL results topic (thousands of topics, and payloads over
max_upload_bytes): the broker hands all of it to every new session. Each message is counted as refused
and skipped, the collectors go on, a good result published after it is ingested, and a restart meets
the same flood the same way."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import aiomqtt
import pytest

from fabricwatch.daemon.config import parse
from tests.integration.helpers import start_runner, start_sim
from tests.nccl_logs import render
from tests.servers import Mosquitto, free_port

pytestmark = pytest.mark.integration
POISON = [b'{"config": [1]}', b'{"start_time": 5, "results": [{"size": 1e400}]}',
          b"{" + b'"a":[' * 20_000 + b"1" + b"]" * 20_000 + b"}", b"\xff\xfe\x00garbage", b"#" * 5000]
# below Mosquitto's max_queued_messages (1000 by default): beyond it the broker drops what a session has
# not taken yet, and the daemon never sees those (an empty payload would clear a retained topic, not poison it)
FLOOD = 900
LARGE = 8  # retained payloads over max_upload_bytes
MAX_UPLOAD = 1 << 20


async def _wait(cond: Callable[[], bool], seconds: float = 30.0) -> bool:
    for _ in range(int(seconds / 0.1)):
        if cond():
            return True
        await asyncio.sleep(0.1)
    return bool(cond())


async def test_a_flood_of_retained_poison_is_counted_skipped_and_the_daemon_goes_on(tmp_path: Path) -> None:
    sim = await start_sim()
    broker = Mosquitto(tmp_path / "mqtt")
    broker.start()
    try:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="poisoner") as client:
            for i in range(FLOOD):
                await client.publish(f"fabricwatch/lab/nccl/p{i}", POISON[i % len(POISON)], qos=1, retain=True)
            for i in range(LARGE):
                await client.publish(f"fabricwatch/lab/nccl/big{i}", b"x" * (MAX_UPLOAD + 1), qos=1, retain=True)
        sent = FLOOD + LARGE
        good = render("all_reduce", ["n1", "n2"], 2, {1 << 20: 10.0, 1 << 24: 20.0}).encode()
        for restart in range(2):  # a restart meets the same retained flood
            cfg = parse({
                "daemon": {"listen": "127.0.0.1:0"},
                "nccl": {"max_upload_bytes": MAX_UPLOAD,
                         "mqtt": {"port": broker.port, "topic": "fabricwatch/+/nccl/#",
                                  "client_id": f"fw-{restart}"}},
                "collectors": {"gnmi": sim.daemon_collectors(0.3)},
                "sinks": {"influxdb": [{"database": "x", "url": f"http://127.0.0.1:{free_port()}",
                                        "spool": {"dir": str(tmp_path / "spool")}}]},
            }, "<test>")
            runner, task = await start_runner(cfg, sim)
            try:
                svc = runner.nccl
                # every retained message is refused and counted once: parsed and refused, or dropped
                # past max_queued while the parser was busy (queue_full); none ends the subscriber
                assert await _wait(lambda: svc.rejected >= sent), (svc.rejected, svc.rejected_by)  # noqa: B023
                await asyncio.sleep(0.5)
                assert svc.rejected == sent and svc.ingested_runs == 0, svc.rejected_by
                assert {src for src, _ in svc.rejected_by} == {"mqtt"}
                if restart == 0:
                    assert svc.rejected_by.get(("mqtt", "too_large"), 0) + \
                        svc.rejected_by.get(("mqtt", "queue_full"), 0) >= LARGE
                samples = sum(t.samples for t in runner.targets.values())
                async with aiomqtt.Client("127.0.0.1", broker.port, identifier="harness") as client:
                    await client.publish("fabricwatch/lab/nccl/results", good, qos=1)
                assert await _wait(lambda: svc.ingested_runs == 1)  # noqa: B023
                assert await _wait(lambda: all(t.up for t in runner.targets.values()))  # noqa: B023
                assert not task.done()
                assert await _wait(lambda: sum(t.samples for t in runner.targets.values()) > samples,  # noqa: B023
                                   5.0)  # the collectors go on
            finally:
                runner.stop()
                assert await task == 0
    finally:
        broker.stop()
        await sim.stop()
