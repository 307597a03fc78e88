"""Process settings that keep the daemon's secrets (switch passwords, tokens, SNMP keys) out of core files."""

from __future__ import annotations

import ctypes
import logging
import resource
import sys

log = logging.getLogger("fabricwatch.hardening")

PR_SET_DUMPABLE = 4  # <linux/prctl.h>


def no_core_dumps() -> None:
    """No core file from this process: not dumpable (also keeps other processes of the same user from
    ptrace-attaching or reading its /proc memory) and a core size limit of 0, which systemd-coredump
    honours where a non-dumpable process would still be dumped (suid_dumpable = 2). Linux only."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0)")
    except (OSError, AttributeError) as exc:
        log.warning("could not make the process non-dumpable: a crash may write its secrets to a core file",
                    extra={"error": str(exc)})
    try:
        # prlimit64, not setrlimit: the unit's system call filter (~@resources) refuses setrlimit
        resource.prlimit(0, resource.RLIMIT_CORE, (0, 0))
    except OSError as exc:
        log.warning("could not set the core size limit to 0", extra={"error": str(exc)})
