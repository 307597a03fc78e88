"""How each simulated vendor flavour spells its counters over gNMI.

Written independently of collectors/gnmi/paths/*.toml on purpose: if a collector table is
wrong, the end-to-end tests see different numbers instead of the same mistake twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pygnmi.spec.v080 import gnmi_pb2

from fabricwatch.simulator import recorded
from fabricwatch.simulator.fabric import Snapshot
from fabricwatch.simulator.topology import SimPort

SHAPES = ("recorded", "small")  # what devices send in a notification (recorded.py); the simulator's first few

OC_COUNTERS = {
    "in-octets": "in_octets", "out-octets": "out_octets", "in-pkts": "in_pkts",
    "out-pkts": "out_pkts", "in-errors": "in_errors", "out-errors": "out_errors",
    "in-discards": "in_discards", "out-discards": "out_discards", "in-fcs-errors": "fcs_errors",
}
OC_ETHERNET = {"in-mac-pause-frames": "pause_rx", "out-mac-pause-frames": "pause_tx"}
SONIC_FIELDS = {
    "SAI_PORT_STAT_IF_IN_OCTETS": "in_octets", "SAI_PORT_STAT_IF_OUT_OCTETS": "out_octets",
    "SAI_PORT_STAT_IF_IN_UCAST_PKTS": "in_pkts", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS": "out_pkts",
    "SAI_PORT_STAT_IF_IN_ERRORS": "in_errors", "SAI_PORT_STAT_IF_OUT_ERRORS": "out_errors",
    "SAI_PORT_STAT_IF_IN_DISCARDS": "in_discards", "SAI_PORT_STAT_IF_OUT_DISCARDS": "out_discards",
    "SAI_PORT_STAT_ETHER_STATS_CRC_ALIGN_ERRORS": "fcs_errors",
    "SAI_PORT_STAT_PAUSE_RX_PKTS": "pause_rx", "SAI_PORT_STAT_PAUSE_TX_PKTS": "pause_tx",
    **{f"SAI_PORT_STAT_PFC_{p}_RX_PKTS": f"pfc_rx_p{p}" for p in range(8)},
    **{f"SAI_PORT_STAT_PFC_{p}_TX_PKTS": f"pfc_tx_p{p}" for p in range(8)},
}


def _elem(elem_name: str, **keys: str) -> Any:
    return gnmi_pb2.PathElem(name=elem_name, key=keys)


def _path(*elems: Any, target: str = "") -> Any:
    return gnmi_pb2.Path(elem=list(elems), target=target)


def _uint(name: str, value: int) -> Any:
    return gnmi_pb2.Update(path=_path(_elem(name)), val=gnmi_pb2.TypedValue(uint_val=value))


def _notif(ts: int, prefix: Any, updates: list[Any]) -> Any:
    return gnmi_pb2.Notification(timestamp=ts, prefix=prefix, update=updates)


def served(flavour: str, values: dict[str, int]) -> dict[str, int]:
    """The canonical counters a flavour carries for one port (what a collector can read back)."""
    keep = set(OC_COUNTERS.values()) | set(OC_ETHERNET.values()) | {"oper_status", "admin_status", "ecn_marked",
                                                                     "speed_bps"}
    if flavour == "openconfig":
        keep |= {"link_transitions"}
    elif flavour == "arista":
        keep |= {"link_transitions"} | {f"pfc_{d}_p{p}" for d in ("rx", "tx") for p in range(8)}
    elif flavour == "cumulus":
        keep |= {"link_transitions", "xmit_wait"}
        keep |= {f"pfc_{d}_p{p}" for d in ("rx", "tx") for p in range(8)}
    elif flavour == "sonic":
        keep = set(SONIC_FIELDS.values()) | {"ecn_marked"}
    return {k: v for k, v in values.items() if k in keep}


def oc_speed(bps: int) -> str:
    """An openconfig-if-ethernet ETHERNET_SPEED identity: 100 Gb/s is SPEED_100GB, 2.5 Gb/s SPEED_2500MB."""
    if bps % 1_000_000_000 == 0:
        return f"SPEED_{bps // 1_000_000_000}GB"
    return f"SPEED_{bps // 1_000_000}MB"


def speed_notification(flavour: str, port: SimPort, snap: Snapshot) -> Any | None:
    """openconfig-if-ethernet's negotiated-port-speed: what the link trained to when it last came up. The
    OpenConfig flavour (Ciena-like, module names everywhere) gives the identity with its module; SONiC keeps
    no speed in COUNTERS_DB."""
    if flavour == "sonic":
        return None
    speed = oc_speed(snap.port_speed_bps(port))
    if flavour == "openconfig":
        speed = f"openconfig-if-ethernet:{speed}"
    return _notif(snap.ts_ns, _path(_elem("interfaces"), _elem("interface", name=port.name), _elem("ethernet"),
                                    _elem("state")), [_string("negotiated-port-speed", value=speed)])


def oper_notification(flavour: str, port: SimPort, ts: int, up: bool, admin_up: bool = True) -> Any | None:
    if flavour == "sonic":
        return None  # SONiC keeps oper state in APPL_DB, not COUNTERS_DB
    updates = [gnmi_pb2.Update(path=_path(_elem(leaf)), val=gnmi_pb2.TypedValue(string_val="UP" if on else "DOWN"))
               for leaf, on in (("oper-status", up), ("admin-status", admin_up))]
    return _notif(ts, _path(_elem("interfaces"), _elem("interface", name=port.name), _elem("state")), updates)


def lldp_notification(flavour: str, port: SimPort, ts: int) -> Any | None:
    """openconfig-lldp: what this port's LLDP agent heard from its peer (SONiC keeps LLDP in APPL_DB)."""
    if flavour == "sonic" or not port.peer_device:
        return None
    prefix = _path(_elem("lldp"), _elem("interfaces"), _elem("interface", name=port.name), _elem("neighbors"),
                   _elem("neighbor", id="1"), _elem("state"))
    caps = "STATION" if port.role == "leaf_down" else "BRIDGE,ROUTER"
    updates = [gnmi_pb2.Update(path=_path(_elem(leaf)), val=gnmi_pb2.TypedValue(string_val=value))
               for leaf, value in (("system-name", port.peer_device), ("port-id", port.peer_port),
                                   ("system-capabilities", caps))]
    return _notif(ts, prefix, updates)


def port_notifications(flavour: str, port: SimPort, snap: Snapshot, shape: str = "recorded") -> Iterator[Any]:
    """Counter notifications for one port at one snapshot (oper-status comes separately), in a shape of
    SHAPES: `recorded` as real devices pack them, `small` a few counters a notification."""
    if shape == "recorded":
        return _recorded_notifications(flavour, port, snap)
    if shape == "small":
        return _small_notifications(flavour, port, snap)
    raise ValueError(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}")


def _small_notifications(flavour: str, port: SimPort, snap: Snapshot) -> Iterator[Any]:
    v = snap.port_values(port)
    ts = snap.ts_ns
    if flavour == "sonic":
        fields = {sai: str(v[c]) for sai, c in SONIC_FIELDS.items()}
        fields["SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES"] = str(int(snap.fec[port.index, 0]))
        fields["SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES"] = str(int(snap.fec[port.index, 1]))
        yield _notif(ts, _path(_elem("COUNTERS"), target="COUNTERS_DB"), [
            gnmi_pb2.Update(
                path=_path(_elem(port.name)),
                val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(fields).encode()),
            )
        ])
        # ECN marks are per queue in SONiC: all on queue 3 here, queue 0 carries none
        queues = {
            f"{port.name}:3": {"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": str(v["ecn_marked"])},
            f"{port.name}:0": {"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "0"},
        }
        yield _notif(ts, _path(_elem("COUNTERS"), target="COUNTERS_DB"), [
            gnmi_pb2.Update(
                path=_path(_elem(port.name), _elem("Queues")),
                val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(queues).encode()),
            )
        ])
        return
    intf = _elem("interface", name=port.name)
    counters = [_uint(leaf, v[c]) for leaf, c in OC_COUNTERS.items()]
    if flavour == "cumulus":
        # carrier transitions split up/down; their sum is link_transitions
        downs = v["link_transitions"] // 2
        counters += [
            _uint("carrier-up-transitions", v["link_transitions"] - downs),
            _uint("carrier-down-transitions", downs),
            _uint("ecn-marked-pkts", v["ecn_marked"]),
            _uint("tx-wait", v["xmit_wait"]),
        ]
    else:
        counters.append(_uint("carrier-transitions", v["link_transitions"]))
    yield _notif(ts, _path(_elem("interfaces"), intf, _elem("state"), _elem("counters")), counters)
    yield _notif(
        ts,
        _path(_elem("interfaces"), intf, _elem("ethernet"), _elem("state"), _elem("counters")),
        [_uint(leaf, v[c]) for leaf, c in OC_ETHERNET.items()],
    )
    speed = speed_notification(flavour, port, snap)
    if speed is not None:
        yield speed
    if flavour in ("openconfig", "arista"):
        for queue, value in (("3", v["ecn_marked"]), ("0", 0)):
            yield _notif(
                ts,
                _path(
                    _elem("qos"), _elem("interfaces"), _elem("interface", **{"interface-id": port.name}),
                    _elem("output"), _elem("queues"), _elem("queue", name=queue), _elem("state"),
                ),
                [_uint("ecn-marked-pkts", value), _uint("transmit-pkts", v["out_pkts"] if queue == "3" else 0)],
            )
    if flavour == "arista":
        for p in range(8):
            yield _notif(
                ts,
                _path(
                    _elem("interfaces"), intf, _elem("ethernet"), _elem("pfc"), _elem("priorities"),
                    _elem("priority", index=str(p)), _elem("state"),
                ),
                [_uint("in-frames", v[f"pfc_rx_p{p}"]), _uint("out-frames", v[f"pfc_tx_p{p}"])],
            )
    elif flavour == "cumulus":
        for p in range(8):
            yield _notif(
                ts,
                _path(
                    _elem("qos"), _elem("interfaces"), _elem("interface", **{"interface-id": port.name}),
                    _elem("switch-priority", priority=str(p)), _elem("state"), _elem("counters"),
                ),
                [_uint("in-pause-pkts", v[f"pfc_rx_p{p}"]), _uint("out-pause-pkts", v[f"pfc_tx_p{p}"])],
            )


def _oc_values(v: dict[str, int], snap: Snapshot) -> dict[str, int]:
    """Every recorded interface leaf we give a value beside 0: ours, or what follows from ours."""
    return {
        "in-octets": v["in_octets"], "out-octets": v["out_octets"], "in-pkts": v["in_pkts"], "out-pkts": v["out_pkts"],
        "in-unicast-pkts": v["in_pkts"], "out-unicast-pkts": v["out_pkts"],
        "in-errors": v["in_errors"], "out-errors": v["out_errors"], "in-discards": v["in_discards"],
        "out-discards": v["out_discards"], "in-fcs-errors": v["fcs_errors"], "in-crc-error-pkts": v["fcs_errors"],
        "in-crc-errors": v["fcs_errors"], "link-flap-events": v["link_transitions"],
        "carrier-transitions": v["link_transitions"],
        # RDMA moves jumbo frames: every packet falls in the 4096-9216 octet bucket
        "in-4096-to-9216-octet-pkts": v["in_pkts"], "out-4096-to-9216-octet-pkts": v["out_pkts"],
        "last-clear": snap.ts_ns - snap.ts_ns % 86_400_000_000_000,
        "in-mac-pause-frames": v["pause_rx"], "out-mac-pause-frames": v["pause_tx"],
        "in-mac-control-frames": v["pause_rx"], "out-mac-control-frames": v["pause_tx"],
    }


def _recorded_notifications(flavour: str, port: SimPort, snap: Snapshot) -> Iterator[Any]:
    """One notification per container of an interface, with every leaf the recordings carry in it
    (recorded.py), under one timestamp; what our vocabulary has not is there too, as devices send it."""
    v = snap.port_values(port)
    ts = snap.ts_ns
    if flavour == "sonic":
        ours = {sai: str(v[c]) for sai, c in SONIC_FIELDS.items()}
        fields = {f: ours.pop(f, "0") for f in recorded.SONIC_PORT_FIELDS}
        fields |= ours  # pause frames: not in the recording, served by SONiC's newer SAI
        fields["SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES"] = str(int(snap.fec[port.index, 0]))
        fields["SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES"] = str(int(snap.fec[port.index, 1]))
        yield _notif(ts, _path(_elem("COUNTERS"), target="COUNTERS_DB"), [gnmi_pb2.Update(
            path=_path(_elem(port.name)), val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(fields).encode()))])
        queues = {f"{port.name}:3": {"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": str(v["ecn_marked"])},
                  f"{port.name}:0": {"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "0"}}
        yield _notif(ts, _path(_elem("COUNTERS"), target="COUNTERS_DB"), [gnmi_pb2.Update(
            path=_path(_elem(port.name), _elem("Queues")),
            val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(queues).encode()))])
        return
    known = _oc_values(v, snap)
    intf = _elem("interface", name=port.name)
    if flavour == "openconfig":  # the Ciena recordings: no key, the port in a quoted "name" leaf
        m = recorded.OC_NAMED_MODULE
        prefix = _path(*(_elem(f"{m}:{n}") for n in ("interfaces", "interface", "state", "counters")))
        updates = [_string("name", value=f'"{port.name}"') if leaf == "name" else _uint(leaf, known.get(leaf, 0))
                   for leaf in recorded.OC_NAMED_COUNTERS]
        updates.append(_uint("out-discards", v["out_discards"]))  # not in Ciena's set, in the simulated one
    else:  # issue_14530: the port the interface's key
        prefix = _path(_elem("interfaces"), intf, _elem("state"), _elem("counters"))
        updates = [_uint(leaf, known.get(leaf, 0)) for leaf in recorded.OC_KEYED_COUNTERS]
        if flavour == "cumulus":
            downs = v["link_transitions"] // 2
            updates += [_uint("carrier-up-transitions", v["link_transitions"] - downs),
                        _uint("carrier-down-transitions", downs), _uint("ecn-marked-pkts", v["ecn_marked"]),
                        _uint("tx-wait", v["xmit_wait"])]
        else:
            updates.append(_uint("carrier-transitions", v["link_transitions"]))
    yield _notif(ts, prefix, updates)
    yield _notif(ts, _path(_elem("interfaces"), intf, _elem("ethernet"), _elem("state"), _elem("counters")),
                 [_uint(leaf, known.get(leaf, 0)) for leaf in recorded.OC_ETHERNET_COUNTERS])
    speed = speed_notification(flavour, port, snap)  # nobody recorded it: one leaf, as it is subscribed
    if speed is not None:
        yield speed
    if flavour in ("openconfig", "arista"):
        for queue, ecn in (("3", v["ecn_marked"]), ("0", 0)):
            sent = {"transmit-pkts": v["out_pkts"], "transmit-octets": v["out_octets"]} if queue == "3" else {}
            yield _notif(ts, _path(
                _elem("qos"), _elem("interfaces"), _elem("interface", **{"interface-id": port.name}),
                _elem("output"), _elem("queues"), _elem("queue", name=queue), _elem("state")), [
                _string("name", value=queue) if leaf == "name" else
                _uint(leaf, ecn if leaf == "ecn-marked-pkts" else sent.get(leaf, 0))
                for leaf in recorded.OC_QUEUE_STATE])
    # per-priority PFC: nobody recorded it; as the small shape sends it
    for n in _small_notifications(flavour, port, snap):
        if any(e.name in ("priority", "switch-priority") for e in n.prefix.elem):
            yield n


OC_THRESHOLD_LEAVES = {  # openconfig-platform-transceiver threshold leaf -> (quantity, side)
    "input-power-lower": ("rx_power_dbm", "low"), "input-power-upper": ("rx_power_dbm", "high"),
    "output-power-lower": ("tx_power_dbm", "low"), "output-power-upper": ("tx_power_dbm", "high"),
    "laser-bias-current-lower": ("tx_bias_ma", "low"), "laser-bias-current-upper": ("tx_bias_ma", "high"),
    "module-temperature-lower": ("temperature_c", "low"), "module-temperature-upper": ("temperature_c", "high"),
    "supply-voltage-lower": ("voltage_v", "low"), "supply-voltage-upper": ("voltage_v", "high"),
}


def component_name(port: SimPort) -> str:
    """The transceiver component of a port: not the port's own name, so that a collector has to read
    /interfaces/interface/state/transceiver to place it."""
    return f"xcvr-{port.name}"


def _double(name: str, value: float) -> Any:
    return gnmi_pb2.Update(path=_path(_elem(name), _elem("instant")), val=gnmi_pb2.TypedValue(double_val=value))


def _string(*names: str, value: str) -> Any:
    return gnmi_pb2.Update(path=_path(*(_elem(n) for n in names)), val=gnmi_pb2.TypedValue(string_val=value))


SONIC_THRESHOLDS = {"rxpower": "rx_power_dbm", "txpower": "tx_power_dbm", "txbias": "tx_bias_ma",
                    "temp": "temperature_c", "vcc": "voltage_v"}
SONIC_LEVELS = {"highalarm": "high_alarm", "highwarning": "high_warn", "lowalarm": "low_alarm",
                "lowwarning": "low_warn"}


def sonic_state(port: SimPort, snap: Snapshot, module: dict[str, str]) -> dict[str, dict[str, str]]:
    """What xcvrd would have written to STATE_DB for the port's module: table -> fields (strings,
    4 decimals, as xcvrd formats them)."""
    o = snap.port_optics(port)
    dom = {"temperature": f"{o['temperature_c']:.4f}", "voltage": f"{o['voltage_v']:.4f}"}
    for n in range(1, 5):
        dom[f"rx{n}power"] = f"{o[f'rx_power_dbm_l{n}']:.4f}"
        dom[f"tx{n}power"] = f"{o[f'tx_power_dbm_l{n}']:.4f}"
        dom[f"tx{n}bias"] = f"{o[f'tx_bias_ma_l{n}']:.4f}"
    thresholds = {f"{k}{lk}": f"{o[f'{q}_{lv}']:.4f}" for k, q in SONIC_THRESHOLDS.items()
                  for lk, lv in SONIC_LEVELS.items()}
    return {
        "TRANSCEIVER_DOM_SENSOR": dom, "TRANSCEIVER_DOM_THRESHOLD": thresholds,
        "TRANSCEIVER_PM": {"prefec_ber_avg": f"{o['pre_fec_ber']:.6e}"},
        "TRANSCEIVER_INFO": {"manufacturer": module["vendor"], "model": module["part_number"],
                             "serial": module["serial"], "vendor_rev": module["revision"],
                             "type": module["module_type"], "cable_length": "0"},
        "TRANSCEIVER_FIRMWARE_INFO": {"active_firmware": module["firmware"], "inactive_firmware": "N/A"},
    }


def served_optics(flavour: str, port: SimPort, snap: Snapshot) -> dict[str, float]:
    """The physical-layer values a flavour serves for one port, rounded as served, by canonical name:
    SONiC its FEC counters (COUNTERS_DB) and its STATE_DB readings, the others the transceiver model."""
    if flavour == "sonic":
        o = snap.port_optics(port)
        state: dict[str, float] = {
               "fec_corrected": int(snap.fec[port.index, 0]), "fec_uncorrectable": int(snap.fec[port.index, 1]),
               "temperature_c": round(o["temperature_c"], 4), "voltage_v": round(o["voltage_v"], 4),
               "pre_fec_ber": float(f"{o['pre_fec_ber']:.6e}")}
        for n in range(1, 5):
            for q in ("rx_power_dbm", "tx_power_dbm", "tx_bias_ma"):
                state[f"{q}_l{n}"] = float(f"{o[f'{q}_l{n}']:.4f}")
        for q in SONIC_THRESHOLDS.values():
            for lv in SONIC_LEVELS.values():
                state[f"{q}_{lv}"] = float(f"{o[f'{q}_{lv}']:.4f}")
        return state
    o = snap.port_optics(port)
    out: dict[str, float] = {"temperature_c": round(o["temperature_c"], 2), "voltage_v": round(o["voltage_v"], 4),
                             "pre_fec_ber": float(f"{o['pre_fec_ber']:.3e}"),
                             "fec_corrected_bits": int(o["fec_corrected"]),
                             "fec_uncorrectable": int(o["fec_uncorrectable"])}
    for lane in range(1, 5):
        out[f"rx_power_dbm_l{lane}"] = round(o[f"rx_power_dbm_l{lane}"], 2)
        out[f"tx_power_dbm_l{lane}"] = round(o[f"tx_power_dbm_l{lane}"], 2)
        out[f"tx_bias_ma_l{lane}"] = round(o[f"tx_bias_ma_l{lane}"], 3)
    for q, side in OC_THRESHOLD_LEAVES.values():
        for level in ("warn", "alarm"):
            out[f"{q}_{side}_{level}"] = o[f"{q}_{side}_{level}"]
    return out


def optics_notifications(flavour: str, port: SimPort, snap: Snapshot, module: dict[str, str]) -> Iterator[Any]:
    """openconfig-platform-transceiver for one port's module: DOM per channel, temperature, voltage,
    pre-FEC BER, FEC counts, thresholds and inventory; SONiC: its STATE_DB tables, TABLE/<port>."""
    if flavour == "sonic":
        for table, fields in sonic_state(port, snap, module).items():
            yield _notif(snap.ts_ns, _path(_elem(table), target="STATE_DB"), [
                gnmi_pb2.Update(path=_path(_elem(port.name)),
                                val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(fields).encode()))])
        return
    o = served_optics(flavour, port, snap)
    ts = snap.ts_ns
    comp = component_name(port)
    yield _notif(ts, _path(_elem("interfaces"), _elem("interface", name=port.name), _elem("state")),
                 [_string("transceiver", value=comp)])
    c = _elem("component", name=comp)
    yield _notif(ts, _path(_elem("components"), c, _elem("state")), [
        gnmi_pb2.Update(path=_path(_elem("temperature"), _elem("instant")),
                        val=gnmi_pb2.TypedValue(double_val=o["temperature_c"])),
        _string("mfg-name", value=module["vendor"]), _string("part-no", value=module["part_number"]),
        _string("serial-no", value=module["serial"]), _string("hardware-version", value=module["revision"]),
        _string("firmware-version", value=module["firmware"]),
    ])
    yield _notif(ts, _path(_elem("components"), c, _elem("transceiver"), _elem("state")), [
        _double("supply-voltage", o["voltage_v"]),
        _double("pre-fec-ber", o["pre_fec_ber"]),
        _uint("fec-corrected-bits", int(o["fec_corrected_bits"])),
        _uint("fec-uncorrectable-blocks", int(o["fec_uncorrectable"])),
        _string("form-factor", value=f"oc-opt-types:{module['module_type']}"),
    ])
    for lane in range(1, 5):
        yield _notif(ts, _path(_elem("components"), c, _elem("transceiver"), _elem("physical-channels"),
                               _elem("channel", index=str(lane - 1)), _elem("state")), [
            _double("input-power", o[f"rx_power_dbm_l{lane}"]),
            _double("output-power", o[f"tx_power_dbm_l{lane}"]),
            _double("laser-bias-current", o[f"tx_bias_ma_l{lane}"]),
        ])
    for severity, level in (("WARNING", "warn"), ("CRITICAL", "alarm")):
        yield _notif(ts, _path(_elem("components"), c, _elem("transceiver"), _elem("thresholds"),
                               _elem("threshold", severity=severity), _elem("state")), [
            gnmi_pb2.Update(path=_path(_elem(leaf)),
                            val=gnmi_pb2.TypedValue(double_val=o[f"{q}_{side}_{level}"]))
            for leaf, (q, side) in OC_THRESHOLD_LEAVES.items()
        ])
