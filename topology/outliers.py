"""Switches and modules out of line with their kind: a switch running other firmware than most of
its model, a cable end holding another module than most ends of its kind. Acceptance wants a
uniform fleet; the odd one out is where a job's slow rank is found later."""

from __future__ import annotations

from collections import Counter, defaultdict

from fabricwatch.topology.cables import End, Fabric
from fabricwatch.topology.check import Difference

MIN_GROUP = 3  # fewer of a kind and there is no "most"
MAJORITY = 0.5  # the most common value must hold more than this share


def _majority(values: list[str]) -> tuple[str, int] | None:
    counts = Counter(values)
    value, n = counts.most_common(1)[0]
    return (value, n) if len(values) >= MIN_GROUP and n > MAJORITY * len(values) and len(counts) > 1 else None


def firmware(fabric: Fabric) -> list[Difference]:
    """Switches whose firmware differs from most switches of the same model."""
    by_model: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for n in fabric.nodes.values():
        if n.kind == "switch" and n.model and n.firmware:
            by_model[n.model].append((n.name, n.firmware))
    out = []
    for model, members in sorted(by_model.items()):
        most = _majority([fw for _, fw in members])
        if most is None:
            continue
        for name, fw in sorted(members):
            if fw != most[0]:
                out.append(Difference("firmware", [(name, "")], detail=(
                    f"firmware {fw}; {most[1]} of {len(members)} {model} switches run {most[0]}")))
    return out


def modules(fabric: Fabric) -> list[Difference]:
    """Cable ends whose module (part number) differs from most ends of the same switch model and
    link speed: an AOC among DACs, another vendor's optic among one vendor's."""
    speed_of: dict[End, str] = {}
    far_of: dict[End, End] = {}
    for cable in fabric.cables.values():
        for near, far in ((cable.a, cable.b), (cable.b, cable.a)):
            speed_of[near] = cable.speed
            far_of[near] = far
    groups: dict[tuple[str, str], list[tuple[End, str]]] = defaultdict(list)
    for end, fields in fabric.modules.items():
        node = fabric.nodes.get(end[0])
        part = fields.get("part_number", "")
        if node is None or node.kind != "switch" or not part:
            continue
        groups[(node.model or "?", speed_of.get(end, ""))].append((end, part))
    out = []
    for (model, speed), members in sorted(groups.items()):
        most = _majority([p for _, p in members])
        if most is None:
            continue
        for end, part in sorted(members):
            if part != most[0]:
                kind = f"{speed} ports of {model} switches" if speed else f"ports of {model} switches"
                vendor = fabric.modules[end].get("vendor", "")
                out.append(Difference("module", [end, far_of.get(end, ("", ""))], detail=(
                    f"holds {part}{f' ({vendor})' if vendor else ''}; {most[1]} of {len(members)} {kind} "
                    f"hold {most[0]}")))
    return out


def outliers(fabric: Fabric) -> list[Difference]:
    return firmware(fabric) + modules(fabric)
