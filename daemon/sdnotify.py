"""systemd's notify protocol (Type=notify): READY, RELOADING, STOPPING, WATCHDOG, STATUS.

Twenty lines over a datagram socket, so no dependency: the protocol is a documented, stable
newline-separated key=value message to $NOTIFY_SOCKET. Outside systemd every call is a no-op.
"""

from __future__ import annotations

import os
import socket

from fabricwatch.core.digits import parse_uint


class Notifier:
    def __init__(self) -> None:
        self.address = os.environ.get("NOTIFY_SOCKET") or None
        if self.address and self.address.startswith("@"):
            self.address = "\0" + self.address[1:]  # abstract namespace
        usec = os.environ.get("WATCHDOG_USEC")
        pid = os.environ.get("WATCHDOG_PID")
        ours = pid is None or pid == str(os.getpid())
        micros = parse_uint(usec) if usec else None
        self.watchdog_s: float | None = micros / 1e6 if micros and ours else None

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *fields: str) -> bool:
        if self.address is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.connect(self.address)
                s.sendall("\n".join(fields).encode())
            return True
        except OSError:
            return False  # systemd gone or socket not ours: never a reason to stop the daemon
