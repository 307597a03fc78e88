"""Config of the SNMP collector: one section, many agents sharing its settings."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from fabricwatch.collectors.snmp.profile import load_profile
from fabricwatch.collectors.snmp.transport import AUTH_PROTOCOLS, PRIV_PROTOCOLS, split_address
from fabricwatch.collectors.snmp.usm import supported
from fabricwatch.core.backoff import Backoff
from fabricwatch.core.config_types import Duration, PositiveDuration, StrictModel, Tags, Targets, check_order
from fabricwatch.core.secrets import SecretRef

if TYPE_CHECKING:
    from fabricwatch.collectors.snmp.collector import SnmpCollector


def _check_profile(v: str) -> str:
    load_profile(v)  # raises naming the known profiles
    return v


ProfileName = Annotated[str, AfterValidator(_check_profile)]  # profiles/<name>.toml


class V3Auth(StrictModel):
    user: str = Field(min_length=1)
    auth_protocol: Literal["md5", "sha", "sha224", "sha256", "sha384", "sha512"] | None = "sha256"
    auth_key: SecretRef | None = None
    priv_protocol: Literal["des", "aes", "aes128", "aes192", "aes256", "aes192c", "aes256c"] | None = "aes"
    priv_key: SecretRef | None = None

    @model_validator(mode="after")
    def _levels(self) -> V3Auth:
        assert set(AUTH_PROTOCOLS) >= {self.auth_protocol or "sha"}
        assert set(PRIV_PROTOCOLS) >= {self.priv_protocol or "aes"}
        if self.auth_protocol is not None and self.auth_key is None:
            raise ValueError("auth_protocol needs auth_key (or set auth_protocol = false for noAuthNoPriv)")
        if self.priv_protocol is not None and self.priv_key is None:
            raise ValueError("priv_protocol needs priv_key (authPriv), or leave priv_protocol out for authNoPriv")
        if self.priv_protocol is not None and self.auth_protocol is None:
            raise ValueError("privacy without authentication is not allowed by SNMPv3 (RFC 3414)")
        return self

    @field_validator("auth_protocol", "priv_protocol", mode="before")
    @classmethod
    def _false_is_none(cls, v: object) -> object:
        return None if v is False or v == "none" else v


class SnmpTarget(StrictModel):
    device: str = Field(min_length=1)
    address: str  # host or host:port (161)
    profile: ProfileName | None = None  # overrides the choice by sysObjectID
    community: SecretRef | None = None  # overrides the section's
    v3: V3Auth | None = None  # overrides the section's
    tags: Tags = Field(default_factory=dict)

    @field_validator("address")
    @classmethod
    def _address(cls, v: str) -> str:
        host, _port = split_address(v)
        if not host:
            raise ValueError("address must be 'host' or 'host:port'")
        return v


class SnmpConfig(StrictModel):
    name: str = "snmp"
    version: Literal["2c", "3"] = "2c"
    community: SecretRef | None = None
    v3: V3Auth | None = None
    # fast: our own codec (v2c; v3 with MD5/SHA/SHA-2 + AES); pysnmp: pysnmp's engine;
    # auto: fast where it covers the security settings, pysnmp otherwise
    engine: Literal["auto", "fast", "pysnmp"] = "auto"
    interval: PositiveDuration = 30.0
    # transceiver DOM (sensor MIBs, JUNIPER-DOM-MIB) and module inventory, at their own interval:
    # agents read module EEPROMs over a slow I2C bus and expect minutes between reads
    optics: bool = True
    optics_interval: Duration = 300.0
    timeout: PositiveDuration = 2.0
    retries: int = Field(1, ge=0, le=10)
    max_repetitions: int = Field(25, ge=1, le=500)
    max_in_flight_per_device: int = Field(2, ge=1, le=64)  # concurrent table walks per agent
    max_in_flight: int = Field(256, ge=1)  # requests in flight over the whole section
    port_name: Literal["ifName", "ifDescr", "ifAlias"] = "ifName"
    include_ports: list[str] = Field(default_factory=list)  # globs on port names; empty = all
    exclude_ports: list[str] = Field(default_factory=list)
    profile: ProfileName | None = None
    backoff: Backoff = Backoff()
    tags: Tags = Field(default_factory=dict)
    targets: Targets[SnmpTarget]

    @model_validator(mode="after")
    def _check(self) -> SnmpConfig:
        check_order(self, "interval", "optics_interval")
        for t in self.targets:
            if self.version == "2c" and (t.community or self.community) is None:
                raise ValueError(f"device {t.device!r}: version 2c needs 'community' (section or target)")
            if self.version == "3" and (t.v3 or self.v3) is None:
                raise ValueError(f"device {t.device!r}: version 3 needs a [v3] block (section or target)")
        if self.engine == "fast" and self.version == "3":
            for t in self.targets:
                v3 = t.v3 or self.v3
                if v3 is not None and not supported(v3.auth_protocol, v3.priv_protocol):
                    raise ValueError(f"device {t.device!r}: engine 'fast' does not cover auth "
                                     f"{v3.auth_protocol} with priv {v3.priv_protocol}; use 'auto' or 'pysnmp'")
        return self

    def build(self) -> list[SnmpCollector]:
        # imported when built: a worker loads the code of the kinds it runs only
        from fabricwatch.collectors.snmp.collector import SnmpCollector

        # one bound on requests in flight for the whole section, shared by its agents
        section_limit = asyncio.Semaphore(self.max_in_flight)
        return [SnmpCollector(self, t, section_limit) for t in self.targets]
