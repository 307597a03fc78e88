"""Faults the simulator can inject, at start or live."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KINDS = {
    "flap": "the link goes down and up every `period` seconds (link_transitions, oper_status)",
    "shutdown": "an operator shuts the port: admin down, oper down, no traffic (not a fault of the link)",
    "ber": "rising symbol / FCS errors on one link (`rate` errors/s, growing)",
    "pfc_storm": "one port sends PFC pause frames on `priority` (default 3) non-stop",
    "ecn_off": "ECN disabled on one switch: its links mark nothing and pause more",
    "congested": "a congested spine-facing port: discards and xmit wait",
    "dead": "the device stops answering (streams stall, new subscriptions hang)",
    "stream_abort": "the device's gNMI server closes each stream after `after` messages",
    "aging_optic": "a transceiver that ages over `ramp` seconds (default 4 h): pre-FEC BER and corrected FEC "
                   "climb, `lane` (default 3) loses light, the module heats; past the FEC limit errors get through",
    "retrained": "the link goes down once and trains back up on `lanes` (default 1) of its 4 lanes: a quarter "
                 "of its width and speed (4x -> 1x, 400G -> 100G), its traffic capped to that",
}
# the widths a link trains down to from its 4 lanes (IB 1x/2x, Ethernet 100G/200G lanes of a 400G port)
RETRAIN_LANES = (1, 2)


@dataclass
class Fault:
    kind: str
    device: str
    port: str | None = None
    period: float = 20.0
    rate: float = 50.0
    priority: int = 3
    after: int = 10
    ramp: float = 14_400.0
    lane: int = 3
    lanes: int = 1
    start_s: float | None = None  # fabric time the fault began (set when injected)

    @classmethod
    def parse(cls, spec: str | dict[str, Any]) -> Fault:
        """'kind:device[:port][,key=value...]' or a dict with the same keys."""
        if isinstance(spec, dict):
            data = dict(spec)
        else:
            head, *opts = spec.split(",")
            parts = head.split(":")
            if len(parts) < 2:
                raise ValueError(f"fault {spec!r}: expected 'kind:device[:port][,key=value]'")
            data = {"kind": parts[0], "device": parts[1]}
            if len(parts) > 2:
                data["port"] = ":".join(parts[2:])
            for opt in opts:
                key, sep, value = opt.partition("=")
                if not sep:
                    raise ValueError(f"fault {spec!r}: option {opt!r} is not key=value")
                data[key.strip()] = value.strip()
        kind = data.get("kind")
        if kind not in KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; known: {', '.join(KINDS)}")
        try:
            fault = cls(
                kind=str(kind),
                device=str(data["device"]),
                port=None if data.get("port") in (None, "") else str(data["port"]),
                period=float(data.get("period", 20.0)),
                rate=float(data.get("rate", 50.0)),
                priority=int(data.get("priority", 3)),
                after=int(data.get("after", 10)),
                ramp=float(data.get("ramp", 14_400.0)),
                lane=int(data.get("lane", 3)),
                lanes=int(data.get("lanes", 1)),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"fault {spec!r}: {exc}") from None
        if fault.kind == "retrained" and fault.lanes not in RETRAIN_LANES:
            raise ValueError(f"fault {spec!r}: lanes={fault.lanes}: a link trains down to "
                             f"{' or '.join(map(str, RETRAIN_LANES))} of its 4 lanes")
        return fault

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "device": self.device, "port": self.port, "period": self.period,
            "rate": self.rate, "priority": self.priority, "after": self.after,
            **({"ramp": self.ramp, "lane": self.lane} if self.kind == "aging_optic" else {}),
            **({"lanes": self.lanes} if self.kind == "retrained" else {}),
        }
