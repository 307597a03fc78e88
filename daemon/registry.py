"""One explicit table per kind: config name -> config class (the config is the factory)."""

from __future__ import annotations

from fabricwatch.collectors.gnmi.config import GnmiConfig
from fabricwatch.collectors.hostnic.config import HostNicConfig
from fabricwatch.collectors.ibdiag.config import IbDiagConfig
from fabricwatch.collectors.snmp.config import SnmpConfig
from fabricwatch.collectors.ufm.config import UfmConfig
from fabricwatch.core.protocols import CollectorConfig, EventSinkConfig, StorageSinkConfig
from fabricwatch.sinks.influxdb.config import InfluxConfig
from fabricwatch.sinks.mqtt.config import MqttConfig
from fabricwatch.sinks.prometheus_remote_write.config import RemoteWriteConfig

COLLECTORS: dict[str, type] = {
    "gnmi": GnmiConfig,
    "snmp": SnmpConfig,
    "hostnic": HostNicConfig,
    "ufm": UfmConfig,
    "ibdiag": IbDiagConfig,
}

# sinks that take line protocol (and spool it)
STORAGE_SINKS: dict[str, type] = {
    "influxdb": InfluxConfig,
    "prometheus_remote_write": RemoteWriteConfig,
}

# sinks that take events
EVENT_SINKS: dict[str, type] = {
    "mqtt": MqttConfig,
}

# every [[sinks.<name>]] section
SINKS: dict[str, type] = {**STORAGE_SINKS, **EVENT_SINKS}


def _conforms(
    gnmi: GnmiConfig, snmp: SnmpConfig, hostnic: HostNicConfig, ufm: UfmConfig, ibdiag: IbDiagConfig,
    influxdb: InfluxConfig, remote_write: RemoteWriteConfig, mqtt: MqttConfig,
) -> tuple[list[CollectorConfig], list[StorageSinkConfig], EventSinkConfig]:
    """Never called: here mypy checks that every section builds what the runtime expects (the
    core Protocols), which the name -> class tables above cannot say."""
    return [gnmi, snmp, hostnic, ufm, ibdiag], [influxdb, remote_write], mqtt
