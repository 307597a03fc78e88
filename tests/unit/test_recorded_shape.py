"""The simulator's recorded-shape notifications are the recordings' shape (prefix, leaves and their order,
value types) and decode through our path tables to the recordings' canonical counters; both shapes of the
simulator store the same numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fabricwatch.collectors.gnmi.mapping import Decoder, load_table
from fabricwatch.simulator.fabric import Fabric, Snapshot
from fabricwatch.simulator.flavours import SHAPES, port_notifications
from fabricwatch.simulator.topology import FabricSpec, SimPort
from tests.unit.test_gnmi_mapping import responses

# recording -> the flavour shaped like it, and the counters that flavour serves beyond the recording
CASES = [
    ("issue_14530", "arista", {"link_transitions"}),
    ("issue_14530", "cumulus", {"link_transitions", "ecn_marked", "xmit_wait"}),
    ("issue_14063", "openconfig", {"out_discards"}),
    ("issue_16476", "openconfig", {"out_discards"}),
]


def _fabric(flavour: str) -> tuple[Snapshot, list[SimPort]]:
    fabric = Fabric(FabricSpec(nodes=8, rails=2, leaves_per_rail=1, spines=2, flavours=(flavour,)), seed=3,
                    start_ns=1_700_000_000_000_000_000)
    device = max(fabric.topology.devices.values(), key=lambda d: len(d.ports))
    return fabric.snapshot(fabric.start_ns + 10_000_000_000), device.ports


def _shape(notification: Any) -> tuple[list[tuple[str, dict[str, str]]], list[tuple[str, str | None]]]:
    """Prefix elements (names, key names) and each update's leaf and value type."""
    prefix = [(e.name, dict.fromkeys(e.key, "")) for e in notification.prefix.elem]
    return prefix, [("/".join(e.name for e in u.path.elem), u.val.WhichOneof("value")) for u in notification.update]


def _counters(decoder: Decoder, notification: Any) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for s in decoder.decode(notification):
        out.setdefault(s.port, {}).update(s.values)
    return out


@pytest.mark.parametrize(("case", "flavour", "extra"), CASES)
def test_recorded_shape_is_the_recordings_and_decodes_to_their_counters(
        fixtures: Path, case: str, flavour: str, extra: set[str]) -> None:
    recorded = [m.update for m in responses(fixtures, case) if m.HasField("update")]
    assert len(recorded) == 1
    rec = recorded[0]
    snap, ports = _fabric(flavour)
    port = ports[0]
    sim = next(iter(port_notifications(flavour, port, snap, "recorded")))

    rec_prefix, rec_updates = _shape(rec)
    sim_prefix, sim_updates = _shape(sim)
    assert sim_prefix == rec_prefix
    assert sim_updates[:len(rec_updates)] == rec_updates  # the recording's leaves in its order, then ours
    assert len(sim.update) >= 15

    table = load_table(flavour)
    rec_counters = _counters(Decoder(table, "dev", {}), rec)
    sim_counters = _counters(Decoder(table, "dev", {}), sim)
    assert len(rec_counters) == 1 and set(sim_counters) == {port.name}
    got, want = set(sim_counters[port.name]), set(next(iter(rec_counters.values())))
    assert got - want == extra
    assert want <= got


@pytest.mark.parametrize("flavour", ["openconfig", "arista", "cumulus", "sonic"])
def test_both_shapes_store_the_same_numbers(flavour: str) -> None:
    snap, ports = _fabric(flavour)
    table = load_table(flavour)
    decoded = {}
    for shape in SHAPES:
        decoder = Decoder(table, "dev", {})
        values: dict[str, dict[str, float]] = {}
        for port in ports:
            for n in port_notifications(flavour, port, snap, shape):
                for p, v in _counters(decoder, n).items():
                    values.setdefault(p, {}).update(v)
        decoded[shape] = values
    assert set(decoded["recorded"]) == {p.name for p in ports}
    assert decoded["recorded"] == decoded["small"]
