"""Config of the gNMI collector: one section, many targets sharing its settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from fabricwatch.collectors.gnmi.mapping import load_table
from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import Address, Duration, PositiveDuration, StrictModel, Tags, Targets, check_order
from fabricwatch.core.secrets import SecretRef
from fabricwatch.core.tls import TlsConfig

if TYPE_CHECKING:
    from fabricwatch.collectors.gnmi.collector import GnmiCollector


def _check_flavour(v: str) -> str:
    load_table(v)  # raises ValueError naming the known flavours
    return v


Flavour = Annotated[str, AfterValidator(_check_flavour)]  # the name of a path table (paths/<flavour>.toml)


class GnmiTarget(StrictModel):
    device: str = Field(min_length=1)
    address: Address  # of the device's gNMI server
    target: str | None = None  # gNMI prefix target; defaults to the device name
    flavour: Flavour | None = None  # overrides the section's flavour
    tags: Tags = Field(default_factory=dict)


class GnmiConfig(StrictModel):
    name: str = "gnmi"
    flavour: Flavour = "openconfig"
    mode: Literal["stream", "once", "poll"] = "stream"
    sample_interval: PositiveDuration = 10.0
    # transceiver DOM, FEC/BER and inventory (the flavour's optics paths), at their own interval
    optics: bool = True
    optics_interval: Duration = 300.0
    timeout: Duration = 10.0  # connect timeout and the ONCE/POLL response deadline
    # no message for this long on a stream = the target is silent: reconnect
    stale_after: Duration | None = None
    encoding: Literal["proto", "json_ietf", "json"] = "proto"
    username: str | None = None
    password: SecretRef | None = None
    tls: TlsConfig = TlsConfig()
    # send the password over plain gRPC all the same (a lab); `fabricwatch check` warns about it
    insecure: bool = False
    backoff: Backoff = Backoff()
    tags: Tags = Field(default_factory=dict)
    targets: Targets[GnmiTarget]

    @model_validator(mode="after")
    def _check(self) -> GnmiConfig:
        check_order(self, "sample_interval", "optics_interval")
        if self.password is not None and self.username is None:
            raise ValueError("password given without username")
        if not self.tls.verify:
            raise ValueError("tls.verify = false is not available over gRPC: give tls.ca_file for a private CA")
        if self.password is not None and not self.tls.enabled and not self.insecure:
            raise ValueError("a password travels in the clear without TLS: set tls.enabled = true "
                             "(with tls.ca_file for a private CA), or insecure = true to accept that")
        return self

    def build(self) -> list[GnmiCollector]:
        # imported when built: a worker loads the code of the kinds it runs only
        from fabricwatch.collectors.gnmi.collector import GnmiCollector

        return [GnmiCollector(self, t) for t in self.targets]
