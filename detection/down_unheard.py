"""Links said down and unheard since: an exporter that sends on change only (gnmic's on-change subscriptions,
Telegraf's dedup) says a port went down once, and a down port's counters do not move, so nothing more comes
until it is up again. Its state holds meanwhile, and a link left down is as much a finding unheard as heard."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fabricwatch.detection.conditions import DOWN_INTERVALS
from fabricwatch.detection.findings import Finding, _peer
from fabricwatch.detection.maintenance import left_down_reason
from fabricwatch.models.features import FeatureFrame


@dataclass(frozen=True)
class _SaidDown:
    since_ns: int
    why: str
    wait_ns: int  # how long it must stay down before it is left down (longer while it is being repaired)
    link_class: str
    peer: tuple[str, str] | None


class DownUnheard:
    """Per link last said down (and not excused: shut, its far switch restarting), since when and why."""

    def __init__(self) -> None:
        self._down: dict[tuple[str, str], _SaidDown] = {}

    def observe(self, frame: FeatureFrame, said: dict[int, tuple[int, str, int]], excused_devices: set[str],
                interval_s: float) -> list[Finding]:
        """Note this interval's links (`said`: per row of the frame down and left so, since when, why and how long
        it must stay down, ns); the
        findings of the links remembered down, unheard now and down long enough, unless a device of theirs is
        `excused_devices` (dark, training after a restart). Costs a pass over the links only while one is held."""
        if not said and not self._down:
            return []
        keys = frame.layout.keys
        for key in set(self._down).intersection(keys):
            del self._down[key]  # heard: it says now what it is, and the rule judges it
        for i, (since, why, wait) in said.items():
            self._down[keys[i]] = _SaidDown(since, why, wait, frame.classes[i], _peer(frame.links[i]))
        heard = {keys[i] for i in said}  # judged by the rule on what they say now
        out = []
        for (device, port), held in self._down.items():
            if (device, port) in heard or frame.start_ns - held.since_ns < max(
                    (DOWN_INTERVALS - 1) * interval_s * 1e9, held.wait_ns):
                continue
            if device in excused_devices or (held.peer is not None and held.peer[0] in excused_devices):
                continue
            reason = left_down_reason(held.since_ns, frame.start_ns, interval_s, held.why) + \
                " (said once, unheard since: its exporter sends on change)"
            out.append(Finding(frame.start_ns, device, port, held.link_class, 0.0, float("inf"), True, "critical",
                               "rule", reason, [], ["link_left_down"], peer=held.peer))
        return out

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        for key in keys:
            self._down.pop(key, None)
