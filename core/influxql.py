"""The one InfluxQL client: `/query` over HTTP, which InfluxDB 1.x, 2.x (DBRP) and 3.x all answer.

Synchronous on purpose: its users are commands (train, replay, blame, query) that wait for the
answer anyway; the daemon never queries storage.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
import urllib.request
from typing import Any

from fabricwatch.core.deadline import FetchError, fetch


class InfluxQLError(ValueError):
    """The server answered with an error, or could not be reached (the message says which)."""


class InfluxQL:
    def __init__(self, url: str, database: str, *, auth: tuple[str, str] | None = None, token: str | None = None,
                 timeout: float = 60.0) -> None:
        """`auth` is (user, password) for 1.x; `token` a 2.x/3.x API token; `timeout` (s) bounds a query whole."""
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
            body = json.loads(fetch(req, self.timeout))
        except FetchError as exc:
            raise InfluxQLError(f"InfluxDB {self.url}: {exc}") from None
        except (ValueError, RecursionError) as exc:  # not JSON, not text, or nested beyond reason
            raise InfluxQLError(f"InfluxDB {self.url}: not a JSON answer: {exc}") from None
        return _series(body, self.url)


def _series(body: object, url: str) -> list[dict[str, Any]]:
    """The series of an answer, each checked to have the documented shape (columns named, every row
    as long as them and, under a time column, stamped with integer nanoseconds, tags as strings):
    what is not an InfluxQL answer is said so, never handed on."""

    def bad(what: str) -> InfluxQLError:
        return InfluxQLError(f"InfluxDB {url}: not an InfluxQL answer: {what}")

    if not isinstance(body, dict):
        raise bad(f"a JSON {type(body).__name__}")
    if isinstance(body.get("error"), str):
        raise InfluxQLError(f"InfluxDB: {body['error']}")
    results = body.get("results", [])
    if not isinstance(results, list):
        raise bad("'results' is not a list")
    series: list[dict[str, Any]] = []
    for i, result in enumerate(results):
        if not isinstance(result, dict):
            raise bad(f"results[{i}] is not an object")
        if "error" in result:
            raise InfluxQLError(f"InfluxDB: {result['error']}")
        found = result.get("series") or []
        if not isinstance(found, list):
            raise bad(f"results[{i}].series is not a list")
        for j, s in enumerate(found):
            where = f"results[{i}].series[{j}]"
            if not isinstance(s, dict):
                raise bad(f"{where} is not an object")
            cols, rows, tags = s.get("columns"), s.get("values", []), s.get("tags", {})
            if not isinstance(cols, list) or not cols or not all(isinstance(c, str) for c in cols):
                raise bad(f"{where} has no column names")
            if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
                raise bad(f"{where}.tags are not strings")
            if not isinstance(rows, list):
                raise bad(f"{where}.values is not a list")
            n, timed = len(cols), cols[0] == "time"  # SHOW answers have no time column
            for k, row in enumerate(rows):
                if type(row) is not list or len(row) != n or (timed and type(row[0]) is not int):
                    raise bad(f"{where}.values[{k}] is not a row of {n}" + (" stamped in nanoseconds" if timed else ""))
            series.append(s)
    return series
