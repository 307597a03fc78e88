"""How every command reports a problem: one line per problem on stderr, `fabricwatch <command>: ...`.

Commands either return an exit code after `warn()`, or raise `CommandError` (caught once, in main).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fabricwatch.daemon.config import Config



class CommandError(Exception):
    """A problem that ends the command; `code` is its exit status (2: usage or config, 1: failure)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def warn(args: argparse.Namespace, message: str) -> None:
    print(f"{getattr(args, 'prog', 'fabricwatch')}: {message}", file=sys.stderr, flush=True)


def load_config(path: str | Path) -> Config:
    """The config, or CommandError naming the file and the key."""
    # imported here, for start-up time: every command imports this module, not every one reads a config
    from fabricwatch.daemon import config as config_mod

    try:
        return config_mod.load(path)
    except config_mod.ConfigError as exc:
        raise CommandError(f"config error\n{exc}", 2) from None
