"""One explicit table per kind: config name -> config class (the config is the factory)."""

from __future__ import annotations

from fabricwatch.collectors.gnmi.config import GnmiConfig
from fabricwatch.collectors.hostnic.config import HostNicConfig
from fabricwatch.collectors.ibdiag.config import IbDiagConfig
from fabricwatch.collectors.snmp.config import SnmpConfig
from fabricwatch.collectors.ufm.config import UfmConfig
from fabricwatch.sinks.influxdb.config import InfluxConfig
from fabricwatch.sinks.mqtt.config import MqttConfig

COLLECTORS: dict[str, type] = {
    "gnmi": GnmiConfig,
    "snmp": SnmpConfig,
    "hostnic": HostNicConfig,
    "ufm": UfmConfig,
    "ibdiag": IbDiagConfig,
}

SINKS: dict[str, type] = {
    "influxdb": InfluxConfig,
    "mqtt": MqttConfig,
}
