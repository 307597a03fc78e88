"""The one InfluxQL client: `/query` over HTTP, which InfluxDB 1.x, 2.x (DBRP) and 3.x all answer.

Synchronous on purpose: its users are commands (train, replay, blame, query) that wait for the
answer anyway; the daemon never queries storage.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any


class InfluxQLError(ValueError):
    """The server answered with an error, or could not be reached (the message says which)."""


class InfluxQL:
    def __init__(self, url: str, database: str, *, auth: tuple[str, str] | None = None, token: str | None = None,
                 timeout: float = 60.0) -> None:
        """`auth` is (user, password) for 1.x; `token` an InfluxDB 2.x/3.x API token."""
        self.url, self.database = url.rstrip("/"), database
        self.auth, self.token, self.timeout = auth, token, timeout

    def _headers(self) -> dict[str, str]:
        if self.token is not None:
            return {"Authorization": f"Token {self.token}"}
        if self.auth is not None:
            pair = base64.b64encode(f"{self.auth[0]}:{self.auth[1]}".encode()).decode()
            return {"Authorization": f"Basic {pair}"}
        return {}

    def query(self, q: str) -> list[dict[str, Any]]:
        """Every series of every statement's result; timestamps in nanoseconds."""
        data = urllib.parse.urlencode({"db": self.database, "q": q, "epoch": "ns"}).encode()
        req = urllib.request.Request(f"{self.url}/query", data=data, headers=self._headers())
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                body = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace").strip()
            raise InfluxQLError(f"InfluxDB {self.url}: HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise InfluxQLError(f"InfluxDB {self.url}: {getattr(exc, 'reason', exc)}") from None
        except json.JSONDecodeError as exc:
            raise InfluxQLError(f"InfluxDB {self.url}: not a JSON answer: {exc}") from None
        series: list[dict[str, Any]] = []
        for result in body.get("results", []) if isinstance(body, dict) else []:
            if "error" in result:
                raise InfluxQLError(f"InfluxDB: {result['error']}")
            series += result.get("series", []) or []
        return series
