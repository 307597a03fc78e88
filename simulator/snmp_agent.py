"""A real SNMPv2c agent for one simulated switch: GET, GETNEXT and GETBULK over UDP.

Messages go through pysnmp/pyasn1's codec, not the collector's own BER code, and the
OID layout below is written from the MIB definitions, independently of
collectors/snmp/profiles/*.toml: a wrong profile shows up as different numbers.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import time
from collections.abc import Callable
from typing import Any

from pyasn1.codec.ber import decoder, encoder
from pyasn1.error import PyAsn1Error
from pysnmp.proto import api, rfc1902, rfc1905

from fabricwatch.simulator.fabric import COL, Fabric, Snapshot
from fabricwatch.simulator.optics import DOM_COLUMNS, LANES, THRESHOLDS
from fabricwatch.simulator.topology import SimDevice, SimPort

log = logging.getLogger("fabricwatch.simulator.snmp")
V2C = api.PROTOCOL_MODULES[api.SNMP_VERSION_2C]
M32 = (1 << 32) - 1

# sysObjectID per flavour (SONiC answers with net-snmp's Linux OID, as the real one does)
SYS_OBJECT_ID = {
    "openconfig": "1.3.6.1.4.1.8072.3.2.10",
    "arista": "1.3.6.1.4.1.30065.1.3011.7050.3741.32",
    "cumulus": "1.3.6.1.4.1.40310",
    "sonic": "1.3.6.1.4.1.8072.3.2.10",
}
IF_TABLE = (1, 3, 6, 1, 2, 1, 2, 2, 1)
IF_X_TABLE = (1, 3, 6, 1, 2, 1, 31, 1, 1, 1)
DOT3_PAUSE = (1, 3, 6, 1, 2, 1, 10, 7, 10, 1)
CUMULUS_PFC = (1, 3, 6, 1, 4, 1, 40310, 2, 2, 3, 1)
CUMULUS_UPDOWN = (1, 3, 6, 1, 4, 1, 40310, 2, 2, 5, 1)
ARISTA_PFC = (1, 3, 6, 1, 4, 1, 30065, 3, 11, 1, 1, 1)
CISCO_PFC_PRIO = (1, 3, 6, 1, 4, 1, 9, 9, 813, 1, 2, 1)
ENT_PHYSICAL = (1, 3, 6, 1, 2, 1, 47, 1, 1, 1, 1)  # ENTITY-MIB entPhysicalEntry
ENT_ALIAS = (1, 3, 6, 1, 2, 1, 47, 1, 3, 2, 1, 2)  # entAliasMappingIdentifier
ENT_SENSOR = (1, 3, 6, 1, 2, 1, 99, 1, 1, 1)  # ENTITY-SENSOR-MIB entPhySensorEntry
ARISTA_THRESHOLDS = (1, 3, 6, 1, 4, 1, 30065, 3, 12, 1, 1, 1)
DOM_COL = {name: i for i, name in enumerate(DOM_COLUMNS)}
# (quantity, ENTITY-SENSOR type, scale, precision, multiplier from our unit to the sensor's raw value):
# watts at milli with 4 digits (0.6486 mW -> 6486), amperes at milli with 3 (6.09 mA -> 6090), as SONiC does
SENSOR_KINDS = {
    "temperature_c": (8, 9, 1, 10.0), "voltage_v": (4, 9, 4, 1e4),
    "rx_power_dbm": (6, 8, 4, 1e4), "tx_power_dbm": (6, 8, 4, 1e4), "tx_bias_ma": (5, 8, 3, 1e3),
}
SENSOR_WORDS = {"temperature_c": "Temperature", "voltage_v": "Voltage", "rx_power_dbm": "RX Power",
                "tx_power_dbm": "TX Power", "tx_bias_ma": "TX Bias"}

Getter = Callable[[Snapshot, int], Any]  # (snapshot, sysUpTime ticks) -> pysnmp value


def _c32(name: str, row: int) -> Getter:
    return lambda s, _t: rfc1902.Counter32(int(s.counters[row][_col(name)]) & M32)


def _c64(name: str, row: int) -> Getter:
    return lambda s, _t: rfc1902.Counter64(int(s.counters[row][_col(name)]))


def _sensor(row: int, col: int, mult: float, watts: bool) -> Getter:
    """A DOM reading as the sensor's raw integer; optical power is served in watts, as agents do."""
    def get(s: Snapshot, _t: int) -> Any:
        value = float(s.dom[row, col])
        return rfc1902.Integer32(round((10 ** (value / 10) if watts else value) * mult))
    return get


def _col(name: str) -> int:
    return COL[name]


class AgentView:
    """The sorted OID tree of one switch; values are read from the fabric at request time."""

    def __init__(self, fabric: Fabric, device: SimDevice) -> None:
        self.fabric = fabric
        self.device = device
        self.started = time.monotonic()
        self.boot_ticks = 123_456  # the switch has been up a while before the simulation
        self.table_last_change = 0  # ifTableLastChange; tests move it to say "interfaces changed"
        self.names: dict[int, str] = {}  # ifIndex -> ifName overrides (a renamed port)
        self._last_change: dict[int, int] = {}
        self._seen_transitions: dict[int, int] = {}
        entries: dict[tuple[int, ...], Getter] = {}
        flavour = device.flavour
        entries[(1, 3, 6, 1, 2, 1, 1, 1, 0)] = lambda s, t: rfc1902.OctetString(f"simulated {flavour} switch")
        entries[(1, 3, 6, 1, 2, 1, 1, 2, 0)] = lambda s, t: rfc1902.ObjectName(SYS_OBJECT_ID[flavour])
        entries[(1, 3, 6, 1, 2, 1, 1, 3, 0)] = lambda s, t: rfc1902.TimeTicks(t)
        entries[(1, 3, 6, 1, 2, 1, 1, 5, 0)] = lambda s, t: rfc1902.OctetString(device.name)
        entries[(1, 3, 6, 1, 2, 1, 31, 1, 5, 0)] = lambda s, t: rfc1902.TimeTicks(self.table_last_change)
        for pos, port in enumerate(device.ports):
            self._add_port(entries, pos + 1, port, flavour)
        self.oids = sorted(entries)
        self.getters = [entries[o] for o in self.oids]

    @staticmethod
    def if_index(pos: int) -> int:
        return 1000 + pos  # not 1..n, so a collector that assumes dense indices is caught

    def _add_port(self, e: dict[tuple[int, ...], Getter], pos: int, port: SimPort, flavour: str) -> None:
        idx = self.if_index(pos)
        row = port.index
        e[(*IF_TABLE, 1, idx)] = lambda s, t: rfc1902.Integer32(idx)
        e[(*IF_TABLE, 2, idx)] = lambda s, t: rfc1902.OctetString(port.name)
        e[(*IF_TABLE, 7, idx)] = lambda s, t: rfc1902.Integer32(1 if s.admin_up[row] else 2)
        e[(*IF_TABLE, 8, idx)] = lambda s, t: rfc1902.Integer32(1 if s.oper_up[row] else 2)
        e[(*IF_TABLE, 9, idx)] = lambda s, t: rfc1902.TimeTicks(self._if_last_change(s, row))
        for sub, name in ((13, "in_discards"), (14, "in_errors"), (19, "out_discards"), (20, "out_errors")):
            e[(*IF_TABLE, sub, idx)] = _c32(name, row)
        e[(*IF_X_TABLE, 1, idx)] = lambda s, t: rfc1902.OctetString(self.names.get(idx, port.name))
        for sub, name in ((6, "in_octets"), (7, "in_pkts"), (10, "out_octets"), (11, "out_pkts")):
            e[(*IF_X_TABLE, sub, idx)] = _c64(name, row)
        # ifHighSpeed (Mb/s): what the link trained to, as the interface reports its current speed
        e[(*IF_X_TABLE, 15, idx)] = lambda s, t: rfc1902.Gauge32(s.port_speed_bps(port) // 1_000_000)
        e[(*IF_X_TABLE, 18, idx)] = lambda s, t: rfc1902.OctetString(f"to {port.peer_device} {port.peer_port}")
        e[(*DOT3_PAUSE, 3, idx)] = _c32("pause_rx", row)
        e[(*DOT3_PAUSE, 4, idx)] = _c32("pause_tx", row)
        if flavour == "cumulus":
            e[(*CUMULUS_PFC, 2, idx)] = _c64("pause_rx", row)
            e[(*CUMULUS_PFC, 3, idx)] = _c64("pause_tx", row)
            for p in range(8):
                e[(*CUMULUS_PFC, 4 + 2 * p, idx)] = _c64(f"pfc_rx_p{p}", row)
                e[(*CUMULUS_PFC, 5 + 2 * p, idx)] = _c64(f"pfc_tx_p{p}", row)
            e[(*CUMULUS_UPDOWN, 4, idx)] = _c64("link_transitions", row)
        elif flavour == "arista":
            for p in range(8):
                e[(*ARISTA_PFC, 3, idx, p)] = _c64(f"pfc_tx_p{p}", row)
                e[(*ARISTA_PFC, 4, idx, p)] = _c64(f"pfc_rx_p{p}", row)
        elif flavour == "sonic":
            for p in range(8):
                e[(*CISCO_PFC_PRIO, 2, idx, p)] = _c64(f"pfc_tx_p{p}", row)
                e[(*CISCO_PFC_PRIO, 3, idx, p)] = _c64(f"pfc_rx_p{p}", row)
        self._add_module(e, pos, idx, port, flavour)

    def _add_module(self, e: dict[tuple[int, ...], Getter], pos: int, idx: int, port: SimPort, flavour: str) -> None:
        """The port's transceiver in ENTITY-MIB and its DOM in ENTITY-SENSOR-MIB, the way each family
        of agents places them: SONiC and EOS name the interface in each sensor's description, the
        others (net-snmp, Cumulus here) leave it to entAliasMappingTable."""
        module = 200_000 + pos * 100
        row = port.index
        inv = self.fabric.module(port)
        named = flavour in ("sonic", "arista")
        text: dict[int, str] = {
            module: f"{inv['module_type']} for {port.name}" if named else f"{inv['module_type']} transceiver"}
        e[(*ENT_PHYSICAL, 4, module)] = lambda s, t: rfc1902.Integer32(1)
        e[(*ENT_PHYSICAL, 5, module)] = lambda s, t: rfc1902.Integer32(9)  # module
        for sub, key in ((8, "revision"), (9, "firmware"), (11, "serial"), (12, "vendor"), (13, "part_number")):
            e[(*ENT_PHYSICAL, sub, module)] = (lambda v: lambda s, t: rfc1902.OctetString(v))(inv[key])
        if not named:
            e[(*ENT_ALIAS, module, 0)] = lambda s, t: rfc1902.ObjectName((*IF_TABLE, 1, idx))
        sensors: list[tuple[int, str, str, int | None]] = [(module + 1, "temperature_c", "temperature_c", None),
                                                            (module + 2, "voltage_v", "voltage_v", None)]
        for n in range(1, LANES + 1):
            for base, q in ((10, "rx_power_dbm"), (20, "tx_power_dbm"), (30, "tx_bias_ma")):
                sensors.append((module + base + n, q, f"{q}_l{n}", n))
        for ent, q, column, lane in sensors:
            where = (f" for {port.name}" + (f"/{lane}" if lane and flavour == "sonic" else "")
                     + (f" Lane {lane}" if lane and flavour == "arista" else "")) if named else \
                (f" Channel {lane}" if lane else "")
            text[ent] = f"{'DOM' if named else 'Transceiver'} {SENSOR_WORDS[q]} Sensor{where}"
            e[(*ENT_PHYSICAL, 4, ent)] = lambda s, t: rfc1902.Integer32(module)
            e[(*ENT_PHYSICAL, 5, ent)] = lambda s, t: rfc1902.Integer32(8)  # sensor
            kind, scale, precision, mult = SENSOR_KINDS[q]
            col = DOM_COL[column]
            watts = kind == 6
            e[(*ENT_SENSOR, 1, ent)] = (lambda k: lambda s, t: rfc1902.Integer32(k))(kind)
            e[(*ENT_SENSOR, 2, ent)] = (lambda k: lambda s, t: rfc1902.Integer32(k))(scale)
            e[(*ENT_SENSOR, 3, ent)] = (lambda k: lambda s, t: rfc1902.Integer32(k))(precision)
            e[(*ENT_SENSOR, 4, ent)] = _sensor(row, col, mult, watts)
            e[(*ENT_SENSOR, 5, ent)] = lambda s, t: rfc1902.Integer32(1)  # ok
            if flavour == "arista" and q in ("rx_power_dbm", "temperature_c"):
                for sub, level in ((1, "low_warn"), (2, "low_alarm"), (3, "high_warn"), (4, "high_alarm")):
                    limit = THRESHOLDS[f"{q}_{level}"]
                    raw = round((10 ** (limit / 10) if watts else limit) * mult)
                    e[(*ARISTA_THRESHOLDS, sub, ent)] = (lambda v: lambda s, t: rfc1902.Integer32(v))(raw)
        for ent, words in text.items():
            e[(*ENT_PHYSICAL, 2, ent)] = (lambda v: lambda s, t: rfc1902.OctetString(v))(words)
            e[(*ENT_PHYSICAL, 7, ent)] = (lambda v: lambda s, t: rfc1902.OctetString(v))(words)

    def _if_last_change(self, snap: Snapshot, row: int) -> int:
        """sysUpTime of the port's last carrier change: moves whenever the model counts a transition."""
        transitions = int(snap.counters[row][_col("link_transitions")])
        if self._seen_transitions.get(row) != transitions:
            if row in self._seen_transitions:
                self._last_change[row] = self.ticks()
            self._seen_transitions[row] = transitions
        return self._last_change.get(row, 0)

    def ticks(self) -> int:
        return self.boot_ticks + int((time.monotonic() - self.started) * 100)

    def reboot(self) -> None:
        """sysUpTime starts again from zero, as after a reload of the switch."""
        self.boot_ticks = 0
        self.started = time.monotonic()

    def value(self, i: int, snap: Snapshot, ticks: int) -> Any:
        return self.getters[i](snap, ticks)


class SnmpAgent(asyncio.DatagramProtocol):
    """One UDP endpoint answering v2c requests for one switch from the live fabric."""

    def __init__(self, fabric: Fabric, device: SimDevice, community: str, *, tick_s: float = 1.0) -> None:
        self.fabric = fabric
        self.device = device
        self.community = community
        self.view = AgentView(fabric, device)
        self.tick_s = tick_s
        self.transport: asyncio.DatagramTransport | None = None
        self.requests = 0
        self.mode = "normal"  # or: silent, garbage, truncated (for fault tests)
        self.clock: Callable[[], int] = time.time_ns  # the lab runs hours of fabric time in seconds

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def snapshot(self) -> Snapshot:
        # values move in steps of tick_s so one poll reads one consistent instant
        step = int(self.tick_s * 1e9)
        return self.fabric.snapshot(self.clock() // step * step)

    def datagram_received(self, data: bytes, addr: Any) -> None:
        if self.fabric.is_dead(self.device.name) or self.mode == "silent":
            return
        try:
            answer = self.answer(data)
        except (PyAsn1Error, ValueError, KeyError, IndexError) as exc:
            log.debug("bad SNMP request", extra={"device": self.device.name, "error": str(exc)})
            return
        if answer is not None and self.transport is not None:
            if self.mode == "garbage":
                answer = bytes(b ^ 0x5A for b in answer)
            elif self.mode == "truncated":
                answer = answer[: len(answer) * 2 // 3]
            self.transport.sendto(answer, addr)

    def answer(self, data: bytes) -> bytes | None:
        msg, _ = decoder.decode(data, asn1Spec=V2C.Message())
        if bytes(V2C.apiMessage.get_community(msg)) != self.community.encode():
            return None  # wrong community: real agents stay silent
        self.requests += 1
        pdu = V2C.apiMessage.get_pdu(msg)
        rsp = V2C.apiMessage.get_response(msg)
        rsp_pdu = V2C.apiMessage.get_pdu(rsp)
        snap = self.snapshot()
        ticks = self.view.ticks()
        oids = [tuple(o) for o, _ in V2C.apiPDU.get_varbinds(pdu)]
        out: list[tuple[Any, Any]] = []
        if pdu.isSameTypeWith(V2C.GetRequestPDU()):
            for o in oids:
                i = bisect.bisect_left(self.view.oids, o)
                if i < len(self.view.oids) and self.view.oids[i] == o:
                    out.append((o, self.view.value(i, snap, ticks)))
                else:
                    out.append((o, rfc1905.noSuchObject))
        elif pdu.isSameTypeWith(V2C.GetNextRequestPDU()):
            out = [self._next(o, snap, ticks) for o in oids]
        elif pdu.isSameTypeWith(V2C.GetBulkRequestPDU()):
            non_rep = int(V2C.apiBulkPDU.get_non_repeaters(pdu))
            reps = min(int(V2C.apiBulkPDU.get_max_repetitions(pdu)), 1000)
            out = [self._next(o, snap, ticks) for o in oids[:non_rep]]
            cursors = oids[non_rep:]
            for _ in range(reps):
                if not cursors:
                    break
                row = [self._next(o, snap, ticks) for o in cursors]
                out.extend(row)
                cursors = [o for o, _ in row]
                if all(v is rfc1905.endOfMibView for _, v in row):
                    break
        else:
            return None
        V2C.apiPDU.set_varbinds(rsp_pdu, out)
        return bytes(encoder.encode(rsp))

    def _next(self, oid: tuple[int, ...], snap: Snapshot, ticks: int) -> tuple[Any, Any]:
        i = bisect.bisect_right(self.view.oids, oid)
        if i >= len(self.view.oids):
            return oid, rfc1905.endOfMibView
        return self.view.oids[i], self.view.value(i, snap, ticks)


async def start_agent(fabric: Fabric, device: SimDevice, host: str, port: int, community: str) -> tuple[SnmpAgent, int]:
    loop = asyncio.get_running_loop()
    agent = SnmpAgent(fabric, device, community)
    transport, _ = await loop.create_datagram_endpoint(lambda: agent, local_addr=(host, port))
    return agent, int(transport.get_extra_info("sockname")[1])
