"""One TLS settings model for every client (gNMI, UFM, InfluxDB, MQTT)."""

from __future__ import annotations

import ssl
from pathlib import Path

from pydantic import model_validator

from fabricwatch.core.config_types import StrictModel


class TlsConfig(StrictModel):
    """`enabled` switches TLS on where the address does not say (gNMI, MQTT); an https:// URL always
    uses TLS. `verify = false` is for a lab only."""

    enabled: bool = False
    verify: bool = True
    ca_file: Path | None = None
    cert_file: Path | None = None  # client certificate, for mTLS
    key_file: Path | None = None
    server_name: str | None = None  # override the name checked in the server certificate

    @model_validator(mode="after")
    def _pair(self) -> TlsConfig:
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("cert_file and key_file go together (mTLS)")
        return self

    def context(self) -> ssl.SSLContext:
        """A client context: the CA file (or the system's), the client certificate, verification."""
        ctx = ssl.create_default_context(cafile=str(self.ca_file) if self.ca_file else None)
        if self.cert_file is not None and self.key_file is not None:
            ctx.load_cert_chain(str(self.cert_file), str(self.key_file))
        if not self.verify:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        return ctx
