"""A device that refuses the whole Subscribe because it does not know the transceiver paths (as
some do: INVALID_ARGUMENT for one unknown path) still gets its counters collected: the collector
asks again without the optics paths, and says so."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from fabricwatch.collectors.gnmi.config import GnmiConfig
from fabricwatch.core.errors import TargetError
from fabricwatch.simulator.fabric import Fabric
from fabricwatch.simulator.gnmi_server import GnmiTarget, start_server
from fabricwatch.simulator.topology import FabricSpec

pytestmark = pytest.mark.integration


class NoTransceivers(GnmiTarget):
    """The simulator's switch, but one whose gNMI server knows no openconfig-platform-transceiver."""

    async def Subscribe(self, request_iterator: AsyncIterator[Any], context: grpc.aio.ServicerContext,
                        ) -> AsyncIterator[Any]:
        first = await anext(aiter(request_iterator))
        if any(e.name == "components" for s in first.subscribe.subscription for e in s.path.elem):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "unknown path /components/component")

        async def again() -> AsyncIterator[Any]:
            yield first
            async for r in request_iterator:
                yield r

        async for resp in super().Subscribe(again(), context):
            yield resp


async def test_refused_optics_paths_leave_the_counters_flowing() -> None:
    fabric = Fabric(FabricSpec(nodes=2, rails=1, spines=1, flavours=("openconfig",)), seed=1, start_ns=time.time_ns())
    server, port = await start_server(NoTransceivers(fabric, "leaf-r0-0"), "127.0.0.1:0")
    try:
        cfg = GnmiConfig.model_validate({"sample_interval": 0.5, "timeout": 5,
                                         "targets": [{"device": "leaf-r0-0", "address": f"127.0.0.1:{port}"}]})
        (collector,) = cfg.build()
        async with collector:
            with pytest.raises(TargetError, match="optics paths refused"):
                async for _ in collector.stream():
                    pass
        assert collector.optics_refused
        async with collector:  # the runner's next session
            async for batch in collector.stream():
                assert {s.port for s in batch.samples} and all("in_octets" in s.values for s in batch.samples
                                                                if "temperature_c" not in s.values)
                break
    finally:
        await server.stop(None)

