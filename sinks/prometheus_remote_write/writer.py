"""POST /api/v1/write (remote write 1.0) with aiohttp, and what each answer means for the batch."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

import aiohttp
import cramjam

from fabricwatch.core.secrets import reveal
from fabricwatch.sinks.batching import WriteOutcome
from fabricwatch.sinks.prometheus_remote_write.encode import RATED, Encoder

if TYPE_CHECKING:
    from fabricwatch.sinks.prometheus_remote_write.config import RemoteWriteConfig

HEADERS = {
    "Content-Type": "application/x-protobuf",
    "Content-Encoding": "snappy",
    "X-Prometheus-Remote-Write-Version": "0.1.0",
    "User-Agent": "fabricwatch",
}
MAX_ANSWER = 4096
PREPARED = 8  # batches encoded ahead of their turn, at most
# Prometheus' words for a sample it will never take (storage/remote/write_handler.go, tsdb): the request is
# rolled back whole, so the batch is halved until the refused lines are alone
_REFUSALS = (("out of order sample", "out_of_order"), ("duplicate sample for timestamp", "duplicate"),
             ("out of bounds", "out_of_bounds"), ("too old sample", "too_old"))
NO_RECEIVER = ("the server has no remote-write receiver here (404): start Prometheus with "
               "--web.enable-remote-write-receiver, or check the url's path (/api/v1/write)")


def classify(status: int, answer: str, retry_after: str | None) -> WriteOutcome:
    """What an answer means: 2xx taken; 429 and 5xx sent again later; a sample refused for good dropped, by reason."""
    message = answer[:500]
    if 200 <= status < 300:
        return WriteOutcome(True, status=status)
    reason = next((why for words, why in _REFUSALS if words in answer), "")
    if reason:  # 'too old sample' comes as a 500 (beyond out_of_order_time_window): no retry makes it young
        return WriteOutcome(False, False, status, message, reason=reason, per_line=True)
    after: float | None = None
    if retry_after:
        try:
            after = float(retry_after)
        except ValueError:
            after = None
    if status == 429 or status >= 500:
        return WriteOutcome(False, True, status, message, after)
    if status in (401, 403):
        return WriteOutcome(False, True, status, message, after, blocked=True)
    if status == 404:  # every write would be refused until an operator acts: held, not dropped
        return WriteOutcome(False, True, status, NO_RECEIVER, after, blocked=True)
    if status == 413:
        return WriteOutcome(False, False, status, message, too_large=True)
    return WriteOutcome(False, False, status, message)  # counted under its status


class RemoteWriter:
    """Encodes a spooled batch of port_rates lines and posts it; counts the samples the server took."""

    def __init__(self, cfg: RemoteWriteConfig) -> None:
        self.cfg = cfg
        self.encoder = Encoder(cfg.metric_prefix, cfg.labels, cfg.counters or RATED)
        self.samples_written = 0
        self.lines_unreadable = 0
        self._session: aiohttp.ClientSession | None = None
        self._prepared: OrderedDict[bytes, tuple[bytes, int, int]] = OrderedDict()

    def prepare(self, payload: bytes) -> None:
        """Encode a batch before its turn: the event loop does it while the request before is in flight, so the
        sender only posts. The oldest preparation goes beyond PREPARED (encoded again when its turn comes)."""
        self._prepared[payload] = self.encoder.request(payload)
        while len(self._prepared) > PREPARED:
            self._prepared.popitem(last=False)

    def _sess(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            headers = dict(HEADERS)
            auth = None
            if self.cfg.username is not None:
                auth = aiohttp.BasicAuth(self.cfg.username, reveal(self.cfg.password) or "")
            elif self.cfg.token is not None:
                headers["Authorization"] = f"Bearer {reveal(self.cfg.token)}"
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.cfg.timeout),
                                                  headers=headers, auth=auth)
        return self._session

    async def post(self, body: bytes) -> WriteOutcome:
        try:
            async with self._sess().post(self.cfg.url, data=body) as resp:
                text = "" if resp.status == 204 else (await resp.text(errors="replace"))[:MAX_ANSWER]
                return classify(resp.status, text, resp.headers.get("Retry-After"))
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            return WriteOutcome(False, True, None, f"{type(exc).__name__}: {exc}")

    async def write(self, payload: bytes) -> WriteOutcome:
        prepared = self._prepared.pop(payload) if payload in self._prepared else None
        body, samples, unreadable = prepared or self.encoder.request(payload)
        self.lines_unreadable += unreadable
        if not samples:  # no counter's rate in these lines (saturated flags only): nothing to send
            return WriteOutcome(True, status=None)
        outcome = await self.post(body)
        if outcome.ok:
            self.samples_written += samples
        return outcome

    async def check(self) -> str | None:
        outcome = await self.post(bytes(cramjam.snappy.compress_raw(b"")))  # an empty WriteRequest
        if outcome.ok:
            return None
        where = f"{self.cfg.url}: " if outcome.status is not None else f"cannot reach {self.cfg.url}: "
        return where + (f"{outcome.status} " if outcome.status is not None else "") + outcome.message

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
