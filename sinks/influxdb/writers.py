"""The two wire paths: v1 /write (aiohttp) and the v2 write API (influxdb-client, async)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import aiohttp

from fabricwatch.core.secrets import reveal
from fabricwatch.sinks.batching import WriteOutcome

if TYPE_CHECKING:
    from fabricwatch.sinks.influxdb.config import InfluxConfig

_DROPPED = re.compile(r"dropped=(\d{1,12})")


def _partial(message: str) -> int | None:
    """Lines InfluxDB 1.x refused in a 'partial write': each 'unable to parse' line, plus its
    `dropped=N` (type conflicts, points beyond retention)."""
    if "partial write" not in message:
        return None
    dropped = _DROPPED.search(message)
    return message.count("unable to parse") + (int(dropped.group(1)) if dropped else 0)


MAX_ANSWER = 65_536  # of an error answer read: a partial write names every line it refused
MAX_MESSAGE = 500  # of it kept for logs and /metrics


def classify(status: int, answer: str, retry_after: str | None) -> WriteOutcome:
    message = answer[:MAX_MESSAGE]
    if 200 <= status < 300:
        return WriteOutcome(True, status=status)
    after: float | None = None
    if retry_after:
        try:
            after = float(retry_after)
        except ValueError:
            after = None
    if status == 429 or status >= 500:
        return WriteOutcome(False, True, status, message, after)
    if status in (401, 403) or (status == 404 and "database not found" in message):
        return WriteOutcome(False, True, status, message, after, blocked=True)
    if status == 413:
        return WriteOutcome(False, False, status, message, too_large=True)
    return WriteOutcome(False, False, status, message, partial_rejected=_partial(answer))


class V1Writer:
    """InfluxDB 1.x /write (also 2.x/3.x compatibility endpoints)."""

    def __init__(self, cfg: InfluxConfig) -> None:
        self.cfg = cfg
        self._session: aiohttp.ClientSession | None = None
        self._auth = None
        if cfg.username is not None:
            pw = reveal(cfg.password) or ""
            self._auth = aiohttp.BasicAuth(cfg.username, pw)
        self._params = {"db": cfg.database or "", "precision": "ns"}
        if cfg.retention_policy:
            self._params["rp"] = cfg.retention_policy

    def _sess(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.cfg.timeout), auth=self._auth
            )
        return self._session

    async def write(self, payload: bytes) -> WriteOutcome:
        try:
            async with self._sess().post(
                f"{self.cfg.url.rstrip('/')}/write", params=self._params, data=payload
            ) as resp:
                text = "" if resp.status == 204 else (await resp.text())[:MAX_ANSWER]
                return classify(resp.status, text, resp.headers.get("Retry-After"))
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            return WriteOutcome(False, True, None, f"{type(exc).__name__}: {exc}")

    def missing_database_hint(self) -> str:
        return (f'database {self.cfg.database!r} does not exist: create it (CREATE DATABASE "{self.cfg.database}") '
                "or set create_database = true in this sink")

    async def create_database(self) -> str | None:
        """CREATE DATABASE; None when done, else the server's answer."""
        try:
            async with self._sess().post(f"{self.cfg.url.rstrip('/')}/query",
                                         data={"q": f'CREATE DATABASE "{self.cfg.database}"'}) as resp:
                body = (await resp.text())[:300]
                return None if resp.status == 200 and '"error"' not in body else f"{resp.status}: {body}"
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            return f"{type(exc).__name__}: {exc}"

    async def check(self) -> str | None:
        try:
            async with self._sess().get(f"{self.cfg.url.rstrip('/')}/ping") as resp:
                if resp.status != 204:
                    return f"ping answered {resp.status}"
            async with self._sess().get(
                f"{self.cfg.url.rstrip('/')}/query", params={"q": "SHOW DATABASES"}
            ) as resp:
                body = await resp.text()
                if resp.status != 200:
                    return f"SHOW DATABASES answered {resp.status}: {body[:200]}"
                if f'"{self.cfg.database}"' not in body:
                    return self.missing_database_hint()
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            return f"cannot reach {self.cfg.url}: {type(exc).__name__}: {exc}"
        return None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


class V2Writer:
    """The v2 write API through influxdb-client (InfluxDB 2.x/3.x, VictoriaMetrics, ...)."""

    def __init__(self, cfg: InfluxConfig) -> None:
        from influxdb_client.client.influxdb_client_async import InfluxDBClientAsync

        self.cfg = cfg
        token = reveal(cfg.token) or ""
        self._client = InfluxDBClientAsync(
            url=cfg.url, token=token, org=cfg.org or "", timeout=int(cfg.timeout * 1000)
        )
        self._api = self._client.write_api()

    async def write(self, payload: bytes) -> WriteOutcome:
        from influxdb_client import WritePrecision
        from influxdb_client.rest import ApiException

        try:
            await self._api.write(
                bucket=self.cfg.bucket or "", org=self.cfg.org or "", record=payload,
                write_precision=WritePrecision.NS,  # type: ignore[arg-type]  # the enum is a str
            )
            return WriteOutcome(True, status=204)
        except ApiException as exc:
            headers: dict[str, str] = dict(exc.headers or {})
            return classify(int(exc.status or 0), str(exc.body or exc.reason)[:MAX_ANSWER],
                            headers.get("Retry-After"))
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            return WriteOutcome(False, True, None, f"{type(exc).__name__}: {exc}")

    async def check(self) -> str | None:
        try:
            ok = await self._client.ping()
        except Exception as exc:
            return f"cannot reach {self.cfg.url}: {exc}"
        return None if ok else f"{self.cfg.url} did not answer ping"

    async def close(self) -> None:
        await self._client.close()
