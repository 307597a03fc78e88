"""Errors shared by collectors and the runtime."""

from __future__ import annotations


class TargetError(Exception):
    """A target failed in a way worth counting; `kind` labels the error metric
    (connect, auth, rpc, closed, stale, ...)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
