"""One explicit table per kind: config name -> config class (the config is the factory)."""

from __future__ import annotations

from collectors.gnmi.config import GnmiConfig
from collectors.hostnic.config import HostNicConfig
from collectors.ibdiag.config import IbDiagConfig
from collectors.snmp.config import SnmpConfig
from collectors.ufm.config import UfmConfig
from sinks.influxdb.config import InfluxConfig
from sinks.mqtt.config import MqttConfig

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
