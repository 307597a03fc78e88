"""The `[nccl]` section: how NCCL results reach the daemon (upload, MQTT, watched directory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from fabricwatch.core.config_types import Duration, StrictModel
from fabricwatch.core.mqtt import MqttBroker
from fabricwatch.core.secrets import SecretRef


class MqttSource(MqttBroker):
    """NCCL results published by test harnesses: the payload is the nccl-tests output itself."""

    topic: str = "fabricwatch/+/nccl/results"
    client_id: str = "fabricwatch-nccl"
    # messages held waiting to be parsed: bounds memory under a flood; beyond it a message is dropped and
    # counted (fabricwatch_nccl_rejected_total{source="mqtt",reason="queue_full"}): aiomqtt 2.x cannot make
    # the broker wait
    max_queued: int = Field(100, ge=1, le=100_000)

    @model_validator(mode="before")
    @classmethod
    def _backoff_max(cls, data: Any) -> Any:
        """`backoff_max = "30s"` (the key before `backoff` was shared with the other MQTT sections)."""
        if isinstance(data, dict) and "backoff_max" in data:
            data = dict(data)
            if "backoff" in data:
                raise ValueError("give backoff = { max = ... } or backoff_max, not both")
            data["backoff"] = {"initial": "1s", "max": data.pop("backoff_max")}
        return data


class NcclSection(StrictModel):
    upload: bool = True  # POST /api/nccl on the daemon's listener
    upload_token: SecretRef | None = None  # require "Authorization: Bearer <token>"
    max_upload_bytes: int = Field(16 << 20, ge=1024)
    # uploads read at once (each holds up to max_upload_bytes until parsed); beyond it a 429 at once
    max_concurrent_uploads: int = Field(4, ge=1, le=256)
    # an upload's body must average this many bytes/s once its grace is over, or it is answered 408 and its
    # slot freed: a few clients dripping a byte at a time held every slot until the listener's body timeout
    upload_min_rate: int = Field(16 << 10, ge=0)  # 0: no minimum (the listener's http_body_timeout still holds)
    upload_rate_grace: Duration = 10.0
    watch_dir: Path | None = None  # new files here are ingested, then moved to processed/ or failed/
    poll_interval: Duration = 5.0
    mqtt: MqttSource | None = None
    thresholds: Path | None = None  # gate every ingested run (with its recent repeats) against these
    keep_runs: int = Field(20, ge=2)  # recent runs per (collective, ranks) for the gate and the variance
