"""Retries: exponential backoff with one jitter policy, used by every reconnect and resend loop.

The policy: each wait is the current step times a factor drawn uniformly from [0.5, 1.5), and the
step grows by `multiplier` up to `max`. A fleet of daemons (or of targets) that lost the same server
at the same moment thus spreads its retries over a whole step instead of returning in step, while
the mean wait stays the step itself.
"""

from __future__ import annotations

import random

from pydantic import Field

from fabricwatch.core.config_types import Duration, StrictModel


def jitter(seconds: float) -> float:
    return seconds * random.uniform(0.5, 1.5)


class Backoff(StrictModel):
    initial: Duration = 1.0
    max: Duration = 60.0
    multiplier: float = Field(2.0, ge=1.0)

    def delays(self) -> Delays:
        return Delays(self)


class Delays:
    """The state of one retry loop: `next()` after a failure, `reset()` after a success."""

    def __init__(self, policy: Backoff) -> None:
        self.policy = policy
        self.step = policy.initial

    def reset(self) -> None:
        self.step = self.policy.initial

    def next(self, at_least: float = 0.0) -> float:
        """Seconds to wait now (never less than `at_least`, e.g. a server's Retry-After)."""
        wait = max(jitter(self.step), at_least)
        self.step = min(self.step * self.policy.multiplier, self.policy.max)
        return wait

    def longest(self) -> float:
        """The longest step, jittered: for a server that says it is full and will stay so a while."""
        return jitter(self.policy.max)
