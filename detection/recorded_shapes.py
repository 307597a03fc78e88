"""What a series' tags say of its fields beyond its port, as both replay readers read it: a module's lane (a `lane`
tag, or OpenConfig's physical channel `index` where the measurement says it is a channel's), numbered from 1 (a
device that numbers a lane 0 numbers its lanes from 0: Junos does, EOS does not), and one queue of its port (its
fields named as that queue's, read as parts of the port's counters by their words)."""

from __future__ import annotations

from collections.abc import Mapping

from fabricwatch.core.name_words import words

LANE_TAGS = ("lane", "channel_index", "channel")
# OpenConfig keys a transceiver's physical channel `index`: a lane where the measurement says it is a channel's (an
# `index` is many other lists' key: a subinterface's, an SNMP table row's)
INDEX_TAG = "index"
LANE_WORDS = frozenset({"channel", "channels", "lane", "lanes"})
FIRST_LANE = "_l1"
MAX_LANE_DIGITS = 2


def lane_tag(measurement: str, tags: Mapping[str, str]) -> str | None:
    """The tag that numbers the lane a series' points read, if one does."""
    said = next((t for t in LANE_TAGS if t in tags), None)
    if said is None and INDEX_TAG in tags and LANE_WORDS & set(words(measurement)):
        said = INDEX_TAG
    return said


class RecordedShapes:
    """The sample reader's memory of lanes and queues: which devices number lanes from 0, and each queue's number."""

    def __init__(self) -> None:
        self._from_zero: set[str] = set()
        self._queues: dict[str, int] = {}

    def lane(self, measurement: str, device: str, tags: dict[str, str]) -> tuple[dict[str, str], int]:
        """The series' tags without its lane tag, and the lane (from 1; 0 for none) it says."""
        t = lane_tag(measurement, tags)
        if t is None:
            return tags, 0
        said = tags[t]
        rest = {k: v for k, v in tags.items() if k != t}
        if not said.isdigit() or len(said) > MAX_LANE_DIGITS:
            return rest, 0
        if int(said) == 0:
            self._from_zero.add(device)
        return rest, int(said) + (device in self._from_zero)

    def queue_parts(self, queue: str, values: Mapping[str, float]) -> dict[str, float]:
        """A queue's fields named as that queue's (`dropped_pkts` of queue 3: `dropped_pkts_queue3`)."""
        n = self.queue_number(queue)
        return {f"{k}_queue{n}": v for k, v in values.items()}

    def queue_number(self, queue: str) -> int:
        """The queue's number, in the order queues were first seen (from 1)."""
        return self._queues.setdefault(queue, len(self._queues) + 1)
