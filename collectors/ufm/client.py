"""HTTP to UFM: one aiohttp session, errors that name the target and say what came back."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

import aiohttp

from fabricwatch.core.errors import TargetError
from fabricwatch.core.secrets import reveal

if TYPE_CHECKING:
    from fabricwatch.collectors.ufm.config import UfmConfig


class UfmClient:
    def __init__(self, cfg: UfmConfig) -> None:
        self.cfg = cfg
        self._session: aiohttp.ClientSession | None = None

    def _auth_header(self) -> str:
        if self.cfg.token is not None:
            return f"Basic {reveal(self.cfg.token)}"
        assert self.cfg.username is not None and self.cfg.password is not None
        pair = f"{self.cfg.username}:{reveal(self.cfg.password)}"
        return "Basic " + base64.b64encode(pair.encode()).decode()

    async def open(self) -> None:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.cfg.timeout),
                connector=aiohttp.TCPConnector(ssl=self.cfg.tls.context(), limit=4))

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _get(self, url: str, *, auth: bool) -> tuple[str, str]:
        """(content type, body) of a 200 answer; TargetError for anything else."""
        await self.open()
        assert self._session is not None
        headers = {"Authorization": self._auth_header()} if auth else {}
        where = f"{self.cfg.name}: GET {url}"
        try:
            async with self._session.get(url, headers=headers) as resp:
                if resp.status in (401, 403):
                    raise TargetError("auth", f"{where}: {resp.status} — check the UFM credentials")
                body = await self._read(resp, where)
                if resp.status != 200:
                    raise TargetError("http", f"{where}: HTTP {resp.status}: {body[:200]!r}")
                return resp.content_type, body
        except TimeoutError:
            raise TargetError("timeout", f"{where}: no answer within {self.cfg.timeout:g}s") from None
        except aiohttp.ClientError as exc:
            raise TargetError("connect", f"{where}: {type(exc).__name__}: {exc}") from None

    async def _read(self, resp: aiohttp.ClientResponse, where: str) -> str:
        """The body as text, read up to max_response_bytes: a bigger answer is refused, never held."""
        limit = self.cfg.max_response_bytes
        too_big = f"{where}: the answer is over max_response_bytes ({limit} bytes): not read further"
        if resp.content_length is not None and resp.content_length > limit:
            raise TargetError("http", f"{too_big} (Content-Length {resp.content_length})")
        body = bytearray()
        async for chunk in resp.content.iter_chunked(1 << 16):
            if len(body) + len(chunk) > limit:
                raise TargetError("http", too_big)
            body += chunk
        try:
            return body.decode(resp.charset or "utf-8", errors="replace")
        except LookupError:  # a charset Python does not know: UFM writes UTF-8
            return body.decode("utf-8", errors="replace")

    async def rest(self, path: str) -> Any:
        """JSON from the REST API, e.g. rest('resources/ports')."""
        url = f"{self.cfg.url}{self.cfg.rest_prefix}/{path}"
        ctype, body = await self._get(url, auth=True)
        try:
            return json.loads(body)
        except json.JSONDecodeError as exc:
            raise TargetError("decode", f"{self.cfg.name}: GET {url}: expected JSON, got {ctype or 'no type'} "
                                        f"({exc.msg} at char {exc.pos}): {body[:80]!r}") from None
        except RecursionError:  # valid JSON, nested deeper than the parser goes
            raise TargetError("decode", f"{self.cfg.name}: GET {url}: JSON nested too deep to read "
                                        f"({len(body)} characters)") from None

    async def telemetry(self) -> str:
        path = self.cfg.telemetry_path if self.cfg.telemetry_format == "csv" else "/metrics"
        _, body = await self._get(f"{self.cfg.telemetry_base}{path}", auth=False)
        return body
