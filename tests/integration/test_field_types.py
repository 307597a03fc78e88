"""A field keeps one type in storage whatever each source sends: devices send a counter as an
integer (uint_val, SNMP Counter64), as a float (gNMI double_val or decimal_val, JSON 1.5e3) or a
gauge as a whole number (JSON 36). InfluxDB refuses a point whose field type differs from the
shard's (1.x drops the line; 2.x OSS refuses the whole request), so each field is written as the
type its vocabulary entry says, and every point of every device is stored."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from fabricwatch.core.batch import PortSample, SampleBatch
from fabricwatch.core.lineprotocol import parse_line
from fabricwatch.pipeline.pipeline import Pipeline
from fabricwatch.sinks.influxdb.config import InfluxConfig
from fabricwatch.sinks.influxdb.sink import InfluxSink
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration
S = 1_000_000_000

# each device sends the same fields, some as int and some as float
DEVICES = {
    "int-dev": {"in_octets": 1000, "symbol_errors": 3, "oper_status": 1, "speed_bps": 400_000_000_000,
                "temperature_c": 36, "pre_fec_ber": 0},
    "float-dev": {"in_octets": 2000.0, "symbol_errors": 4.0, "oper_status": 1.0, "speed_bps": 4e11,
                  "temperature_c": 36.5, "pre_fec_ber": 1.5e-9},
}


def test_every_field_is_written_as_one_type_whatever_the_source_sent() -> None:
    p = Pipeline()
    types: dict[str, set[type]] = {}
    for device, values in DEVICES.items():
        out = p.process(SampleBatch("gnmi", device, [PortSample(device, "p1", S, dict(values), {})]))
        for text in out.lines:
            measurement, _, fields, _ = parse_line(text)
            if measurement == "port_counters":
                for name, value in fields.items():
                    types.setdefault(name, set()).add(type(value))
    assert {name: len(t) for name, t in types.items()} == dict.fromkeys(DEVICES["int-dev"], 1)
    assert types["in_octets"] == {int} and types["temperature_c"] == {float} and types["speed_bps"] == {int}


async def test_a_device_sending_floats_for_counters_loses_nothing_in_influxdb(influx: InfluxDB1,
                                                                              tmp_path: Path) -> None:
    influx.create_db("types")
    sink = InfluxSink(InfluxConfig.model_validate({
        "api": "v1", "url": influx.url, "database": "types", "flush_interval": 0.05,
        "spool": {"dir": str(tmp_path / "spool")}}))
    await sink.start()
    p = Pipeline()
    for k, (device, values) in enumerate(DEVICES.items()):
        out = p.process(SampleBatch("gnmi", device, [PortSample(device, "p1", (k + 1) * S, dict(values), {})]))
        await sink.write(out.lines)
        deadline = time.monotonic() + 10
        while (sink.spool or sink._buffer) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
    await sink.close()
    assert sink.stats.points_rejected == 0
    for name in DEVICES["int-dev"]:
        res = influx.query(f'SELECT "{name}" FROM "port_counters" GROUP BY "device"', "types")
        stored = {s["tags"]["device"]: s["values"][0][1] for s in res["results"][0].get("series", [])}
        assert stored == {d: pytest.approx(v[name]) for d, v in DEVICES.items()}, name
