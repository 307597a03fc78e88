"""Link transitions where a port counts its downs only."""

from __future__ import annotations


def with_transitions(values: dict[str, int | float]) -> None:
    """Add `link_transitions` from `link_downed` when the port counts downs only (IBA PortCounters).

    Each down of an InfiniBand link is a down and an up (one too many while it is still down), so
    the flap rules judge an IB port by the transitions an Ethernet port counts itself; a reset or a
    saturated LinkDownedCounter shows in both as the pipeline handles it."""
    downed = values.get("link_downed")
    if downed is not None and "link_transitions" not in values:
        values["link_transitions"] = 2 * downed
