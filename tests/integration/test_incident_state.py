"""An incident is open until the detector says it cleared (it scored the link unflagged after it, or
its later intervals go on without it), not until the wall clock passes the newest stored point: a
daemon writes its points some seconds after their interval, so the newest are always a little old.
Real InfluxDB, points written as the detector writes them (`anomaly_line`)."""

from __future__ import annotations

import contextlib
import io
import json
import time
import urllib.request
from collections.abc import Iterator

import pytest

from fabricwatch.cli.main import main
from fabricwatch.detection.detector import Finding
from fabricwatch.detection.service import anomaly_line
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration
STEP = 10_000_000_000  # the demo's detector interval


def finding(t: int, device: str, port: str, explanation: str) -> Finding:
    return Finding(t, device, port, "roce/leaf_down/400G", 3.0, 1.0, True, "critical", "rule", explanation,
                   conditions=["pause_storm"], level="device" if port == "*" else "link",
                   ports=["swp1", "swp2"] if port == "*" else [])


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def stored(influx: InfluxDB1) -> Iterator[tuple[InfluxDB1, int]]:
    """Twelve intervals, the newest 25 s old: leaf1 swp1 flagged in the last six (ongoing); leaf1 swp2
    flagged, then scored unflagged (cleared); leaf2 '*' (a device finding: no point when it is not
    flagged) flagged in the first four only, while the detector went on."""
    influx.create_db("state")
    newest = (time.time_ns() - 25_000_000_000) // STEP * STEP
    tags = {"rail": "0", "role": "leaf_down"}
    lines = []
    for k in range(12):
        t = newest - (11 - k) * STEP
        f1 = finding(t, "leaf1", "swp1", "PFC storm") if k >= 6 else None
        f2 = finding(t, "leaf1", "swp2", "errors") if 2 <= k <= 5 else None
        lines += [anomaly_line(t, "leaf1", "swp1", tags, 3.0 if f1 else 0.2, f1),
                  anomaly_line(t, "leaf1", "swp2", tags, 3.0 if f2 else 0.2, f2),
                  anomaly_line(t, "leaf1", "swp3", tags, 0.1, None)]
        lines += [f"port_rates,device=leaf1,port={p},rail=0,role=leaf_down in_octets=1e9,pfc_rx_p3=5 {t}"
                  for p in ("swp1", "swp2")]
        if k < 4:
            lines.append(anomaly_line(t, "leaf2", "*", tags, 0.0, finding(t, "leaf2", "*", "ECN off")))
    req = urllib.request.Request(f"{influx.url}/write?db=state&precision=ns", data="\n".join(lines).encode())
    assert urllib.request.urlopen(req, timeout=30).status == 204
    yield influx, newest


def test_an_incident_flagged_in_the_newest_interval_is_ongoing_as_of_it(stored: tuple[InfluxDB1, int]) -> None:
    influx, newest = stored
    code, out, err = cli("query", "findings", "--influx-url", influx.url, "--influx-db", "state", "--from", "-10m",
                         "--json")
    assert code == 0, err
    found = {(i["device"], i["port"]): i for i in json.loads(out)["incidents"]}
    assert set(found) == {("leaf1", "swp1"), ("leaf1", "swp2"), ("leaf2", "*")}
    ongoing = found[("leaf1", "swp1")]
    assert ongoing["open"] is True and ongoing["cleared_ns"] is None and ongoing["as_of_ns"] == newest, ongoing
    scored_clear = found[("leaf1", "swp2")]  # the detector scored it unflagged after: cleared then
    assert scored_clear["open"] is False and scored_clear["cleared_ns"] == newest - 5 * STEP, scored_clear
    went_on = found[("leaf2", "*")]  # the detector wrote eight more intervals without it
    assert went_on["open"] is False and went_on["cleared_ns"] == newest - 7 * STEP, went_on

    code, out, err = cli("query", "findings", "--influx-url", influx.url, "--influx-db", "state", "--from", "-10m")
    assert code == 0, err
    as_of = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(newest / 1e9))
    assert f"ongoing as of {as_of}" in out, out


def test_why_says_ongoing_not_cleared(stored: tuple[InfluxDB1, int]) -> None:
    influx, newest = stored
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(newest / 1e9))
    code, out, err = cli("why", "leaf1", "swp1", "--at", at, "--influx-url", influx.url, "--influx-db", "state")
    assert code == 0, err
    assert "cleared" not in out, out
    assert "ongoing as of " + time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(newest / 1e9)) in out, out
    code, out, err = cli("why", "leaf1", "swp2", "--at", at, "--influx-url", influx.url, "--influx-db", "state")
    assert code == 0 and "cleared after 40 s" in out, out
