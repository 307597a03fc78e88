"""The one client of VictoriaMetrics' (and Prometheus') query API: instant queries in MetricsQL or
PromQL, raw samples through `/api/v1/export`, label values. Synchronous, as the InfluxQL client:
its users are commands that wait for the answer."""

from __future__ import annotations

import base64
import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

from fabricwatch.core.deadline import FetchError, fetch


class PromQLError(ValueError):
    """The server answered with an error, or could not be reached (the message says which)."""


class PromQL:
    def __init__(self, url: str, *, auth: tuple[str, str] | None = None, token: str | None = None,
                 timeout: float = 60.0) -> None:
        """`auth` is (user, password) for basic auth; `token` a bearer token; `timeout` (s) bounds a request whole."""
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
            return fetch(req, self.timeout)
        except FetchError as exc:
            raise PromQLError(f"{self.url}: {exc}") from None

    def _json(self, path: str, params: list[tuple[str, str]]) -> Any:
        doc = _decode(self._get(path, params), self.url, "")
        if not isinstance(doc, dict):
            raise _bad(self.url, f"a JSON {type(doc).__name__}")
        error = doc.get("error")
        if doc.get("status") == "error" and isinstance(error, str):
            raise PromQLError(f"{self.url}: {error[:300]}")
        if doc.get("status") != "success":
            raise _bad(self.url, "no status 'success' nor an error")
        return doc.get("data")

    def query(self, expr: str, at_s: float) -> list[dict[str, Any]]:
        """An instant query at `at_s` (seconds): [{"metric": {...}, "value": [t, "v"]}, ...]."""
        data = self._json("/api/v1/query", [("query", expr), ("time", f"{at_s:.3f}")])
        if not isinstance(data, dict) or data.get("resultType") != "vector":
            raise PromQLError(f"{self.url}: {expr!r} did not give an instant vector")
        result = data.get("result") or []
        if not isinstance(result, list):
            raise _bad(self.url, "data.result is not a list")
        for i, item in enumerate(result):
            where = f"data.result[{i}]"
            if not isinstance(item, dict):
                raise _bad(self.url, f"{where} is not an object")
            _check_labels(item.get("metric"), self.url, where)
            value = item.get("value")
            if type(value) is not list or len(value) != 2 or not _real(value[0]) or not _numeric(value[1]):
                raise _bad(self.url, f'{where}.value is not [time, "number"]')
        return result

    def names(self, match: str) -> list[str]:
        """The metric names of the series that match a selector."""
        data = self._json("/api/v1/label/__name__/values", [("match[]", match)]) or []
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise _bad(self.url, "data is not a list of names")
        return sorted(data)

    def export(self, match: str, start_s: float, end_s: float) -> Iterator[dict[str, Any]]:
        """Raw samples of the matching series between two times (inclusive, milliseconds):
        {"metric": {...}, "values": [...], "timestamps": [ms, ...]} per series."""
        body = self._get("/api/v1/export", [("match[]", match), ("start", f"{start_s:.3f}"), ("end", f"{end_s:.3f}")])
        for n, line in enumerate(body.splitlines(), 1):
            if line.strip():
                yield _series(_decode(line, self.url, f" (export line {n})"), self.url, f"export line {n}")


def _bad(url: str, what: str) -> PromQLError:
    return PromQLError(f"{url}: not a VictoriaMetrics/Prometheus answer: {what}")


def _decode(body: bytes, url: str, where: str) -> Any:
    try:
        return json.loads(body)
    except RecursionError:
        raise PromQLError(f"{url}: not a JSON answer{where}: nested too deep") from None
    except ValueError as exc:  # not JSON, or not text
        raise PromQLError(f"{url}: not a JSON answer{where}: {exc}") from None


def _real(x: object) -> bool:
    return type(x) in (int, float)  # not bool, which JSON's true would give


def _numeric(x: object) -> bool:
    """A sample value as the query API gives it: a number in a string ("NaN" and "+Inf" included)."""
    if not (isinstance(x, str) or _real(x)):
        return False
    try:
        float(x)  # type: ignore[arg-type]
    except ValueError:
        return False
    return True


def _check_labels(metric: object, url: str, where: str) -> None:
    if not isinstance(metric, dict) or not all(isinstance(v, str) for v in metric.values()):
        raise _bad(url, f"{where}.metric is not labels with string values")


def _series(doc: object, url: str, where: str) -> dict[str, Any]:
    """One line of the export, checked: labels, and as many numbers as integer millisecond stamps."""
    if not isinstance(doc, dict):
        raise _bad(url, f"{where} is not an object")
    _check_labels(doc.get("metric"), url, where)
    values, stamps = doc.get("values"), doc.get("timestamps")
    if type(values) is not list or type(stamps) is not list or len(values) != len(stamps):
        raise _bad(url, f"{where} has not as many values as timestamps")
    if not all(_real(v) for v in values) or not all(type(t) is int for t in stamps):
        raise _bad(url, f"{where} has values that are not numbers or timestamps not in integer milliseconds")
    return doc
