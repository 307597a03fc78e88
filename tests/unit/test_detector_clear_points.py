"""Rules only (no model, so no score for a healthy link): the detector still writes a `link_anomaly`
point with flagged=false in the interval a finding clears, so storage holds that it cleared (a
post-mortem would otherwise call the incident ongoing: nothing says it ended)."""

from __future__ import annotations

import asyncio
import re

from fabricwatch.detection.config import DetectorConfig
from fabricwatch.detection.service import DetectorService

S = 1_000_000_000
TAGS = {"fabric": "roce", "role": "leaf_down", "rail": "0", "speed": "400G"}


def test_a_cleared_finding_is_a_stored_unflagged_point() -> None:
    written: list[str] = []

    async def write(lines: list[str]) -> None:
        written.extend(lines)

    now = [0]
    det = DetectorService(DetectorConfig(interval=10.0, raise_k=1, raise_n=1, clear_m=1), write,
                          clock=lambda: now[0])
    assert det.mode == "rules"

    async def run() -> None:
        for k in range(8):
            storm = 3 <= k <= 4
            for port in ("swp1", "swp2"):
                rates = {"in_octets": 1e3, "out_octets": 1e3,
                         "pfc_tx_p3": 50_000.0 if storm and port == "swp1" else 0.0}
                now[0] = k * 10 * S + S
                det.add("leaf1", port, now[0], rates, TAGS, [], span_ns=10 * S)
            now[0] = (k + 3) * 10 * S
            await det.process(now[0])
        await det.process(1000 * S, flush=True)

    asyncio.run(run())
    points = [(m["port"], m["flagged"] == "true", int(m["ts"])) for m in
              (re.search(r",port=(?P<port>[^,]+),.* .*flagged=(?P<flagged>true|false).* (?P<ts>\d+)$", ln)
               for ln in written) if m]
    assert len(points) == len(written)
    swp1 = sorted((ts, flagged) for port, flagged, ts in points if port == "swp1")
    assert [t for t, flagged in swp1 if flagged] == [30 * S, 40 * S], swp1
    assert (50 * S, False) in swp1, swp1  # the interval it cleared in
    assert not any(port == "swp2" for port, _, _ in points)  # never flagged, no score: no points
