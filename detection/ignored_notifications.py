"""A sender that ignores most of the congestion notifications it receives does no congestion control.

A NIC with DCQCN off for its traffic's priority still counts the CNPs it gets, as ignored: it sends on at full
rate into the queue that marked it, and its switch pauses it. Healthy NICs ignore a few in a thousand (more of
them under a burst, when many arrive together), so the share ignored tells, not that the counter moved."""

from __future__ import annotations

import numpy as np

from fabricwatch.core.hits import RuleHit
from fabricwatch.models.features import FeatureFrame

IGNORED_SHARE = 0.5  # of the notifications received: most of them
MIN_IGNORED_PER_S = 1.0  # fewer is no sender left unchecked: a stray notification after its flow ended


def ignoring_notifications(frame: FeatureFrame) -> dict[int, RuleHit]:
    """The links (NICs) that ignored most of the congestion notifications they received in the interval."""
    ignored = frame.rate("cnp_ignored")
    maybe = np.nonzero(ignored >= MIN_IGNORED_PER_S)[0]
    if not len(maybe):
        return {}
    handled = frame.rate("cnp_handled")
    out = {}
    for i in maybe.tolist():
        share = ignored[i] / (ignored[i] + handled[i])
        if share >= IGNORED_SHARE:
            out[i] = RuleHit("warning", f"cnp_ignored {ignored[i]:,.0f}/s: it ignores {share:.0%} of the congestion "
                                        f"notifications it receives ({handled[i]:,.0f}/s acted on): its congestion "
                                        "control is off for this traffic (DCQCN not enabled on its priority?)",
                             "congestion_control")
    return out
