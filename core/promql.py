"""The one client of VictoriaMetrics' (and Prometheus') query API: instant queries in MetricsQL or
PromQL, raw samples through `/api/v1/export`, label values. Synchronous, as the InfluxQL client:
its users are commands that wait for the answer."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any


class PromQLError(ValueError):
    """The server answered with an error, or could not be reached (the message says which)."""


class PromQL:
    def __init__(self, url: str, *, auth: tuple[str, str] | None = None, token: str | None = None,
                 timeout: float = 60.0) -> None:
        """`auth` is (user, password) for basic auth; `token` a bearer token."""
        self.url = url.rstrip("/")
        self.auth, self.token, self.timeout = auth, token, timeout

    def _headers(self) -> dict[str, str]:
        if self.token is not None:
            return {"Authorization": f"Bearer {self.token}"}
        if self.auth is not None:
            pair = base64.b64encode(f"{self.auth[0]}:{self.auth[1]}".encode()).decode()
            return {"Authorization": f"Basic {pair}"}
        return {}

    def _get(self, path: str, params: list[tuple[str, str]]) -> bytes:
        data = urllib.parse.urlencode(params).encode()
        req = urllib.request.Request(f"{self.url}{path}", data=data, headers=self._headers())
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                body: bytes = resp.read()
                return body
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace").strip()
            raise PromQLError(f"{self.url}: HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise PromQLError(f"{self.url}: {getattr(exc, 'reason', exc)}") from None

    def _json(self, path: str, params: list[tuple[str, str]]) -> Any:
        try:
            doc = json.loads(self._get(path, params))
        except json.JSONDecodeError as exc:
            raise PromQLError(f"{self.url}: not a JSON answer: {exc}") from None
        if not isinstance(doc, dict) or doc.get("status") != "success":
            raise PromQLError(f"{self.url}: {doc.get('error') if isinstance(doc, dict) else doc}")
        return doc.get("data")

    def query(self, expr: str, at_s: float) -> list[dict[str, Any]]:
        """An instant query at `at_s` (seconds): [{"metric": {...}, "value": [t, "v"]}, ...]."""
        data = self._json("/api/v1/query", [("query", expr), ("time", f"{at_s:.3f}")])
        if not isinstance(data, dict) or data.get("resultType") != "vector":
            raise PromQLError(f"{self.url}: {expr!r} did not give an instant vector")
        return list(data.get("result") or [])

    def names(self, match: str) -> list[str]:
        """The metric names of the series that match a selector."""
        data = self._json("/api/v1/label/__name__/values", [("match[]", match)])
        return sorted(str(x) for x in data or [])

    def export(self, match: str, start_s: float, end_s: float) -> Iterator[dict[str, Any]]:
        """Raw samples of the matching series between two times (inclusive, milliseconds):
        {"metric": {...}, "values": [...], "timestamps": [ms, ...]} per series."""
        body = self._get("/api/v1/export", [("match[]", match), ("start", f"{start_s:.3f}"), ("end", f"{end_s:.3f}")])
        for line in body.splitlines():
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise PromQLError(f"{self.url}: a bad line in the export: {exc}") from None
