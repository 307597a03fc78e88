"""A gNMI target that floods faster than the pipeline takes its data holds memory to a bound: the
reader stops reading (gRPC's flow control then holds the sender) once the decoded samples held reach
MAX_PENDING_SAMPLES, and goes on when the consumer takes them."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc

from pygnmi.spec.v080 import gnmi_pb2

from fabricwatch.collectors.gnmi.collector import MAX_PENDING_SAMPLES, GnmiCollector
from fabricwatch.collectors.gnmi.config import GnmiConfig

BOUND_BYTES = 16 << 20  # 20,000 held samples at ~350 B, with margin for one target


class FloodingCall:
    """A stream that always has the next response at once: 512 ports, a new timestamp each time."""

    def __init__(self) -> None:
        self.reads = 0

    async def read(self) -> gnmi_pb2.SubscribeResponse:
        self.reads += 1
        if self.reads % 256 == 0:
            await asyncio.sleep(0)  # a real stream yields to the loop now and then
        prefix = gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="interfaces"),
                                     gnmi_pb2.PathElem(name="interface", key={"name": f"Ethernet{self.reads % 512}"}),
                                     gnmi_pb2.PathElem(name="state"), gnmi_pb2.PathElem(name="counters")])
        updates = [gnmi_pb2.Update(path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=leaf)]),
                                   val=gnmi_pb2.TypedValue(uint_val=self.reads))
                   for leaf in ("in-octets", "out-octets", "in-errors", "out-discards")]
        note = gnmi_pb2.Notification(timestamp=1_700_000_000_000_000_000 + self.reads, prefix=prefix, update=updates)
        return gnmi_pb2.SubscribeResponse(update=note)


async def test_a_flooding_target_is_held_to_a_bound_until_the_consumer_takes_its_data() -> None:
    cfg = GnmiConfig.model_validate({"flavour": "openconfig", "sample_interval": 1.0,
                                     "targets": [{"device": "flood", "address": "127.0.0.1:1"}]})
    collector = GnmiCollector(cfg, cfg.targets[0])
    call = FloodingCall()
    gc.collect()
    tracemalloc.start()
    try:
        stream = collector._read_stream(call)
        first = await anext(stream)
        assert first.samples
        await asyncio.sleep(0)
        # the consumer now stalls (a slow sink, a busy detector); the reader must stop on its own
        for _ in range(400):
            before = call.reads
            await asyncio.sleep(0.01)
            if call.reads == before:
                break
        stalled_at = call.reads
        await asyncio.sleep(0.3)
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
        assert call.reads == stalled_at  # it stopped reading, it did not buffer on
        assert stalled_at <= 2 * MAX_PENDING_SAMPLES
        second = await anext(stream)  # the consumer comes back: everything held is handed over
        assert len(second.samples) >= MAX_PENDING_SAMPLES // 2
        await asyncio.sleep(0.05)
        assert call.reads > stalled_at  # and reading goes on
        await stream.aclose()
    finally:
        tracemalloc.stop()
    print(f"gnmi flood: {held / 2**20:.1f} MiB held while stalled at {stalled_at} responses")
    assert held < BOUND_BYTES
