"""`why` and `query link` on storage that holds raw `port_counters` only (an `export` loaded elsewhere,
or storage written before rates were): the rates are computed from the counters with the pipeline's
own rules (a counter clear is no spike), instead of "no rates stored". Real InfluxDB."""

from __future__ import annotations

import contextlib
import io
import json
import time
import urllib.request

import pytest

from fabricwatch.cli.main import main
from tests.servers import InfluxDB1

pytestmark = pytest.mark.integration
STEP_NS = 10_000_000_000


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def counters(start_ns: int) -> list[str]:
    """leaf1 swp1 (10 Gb/s in, 20 out, 500 pauses/s) and its far end spine1 swp1 (the reverse), 20
    minutes at 10 s; leaf1's counters are cleared half-way (they start again from 0)."""
    out = []
    for k in range(120):
        t = start_ns + k * STEP_NS
        n = k if k < 60 else k - 60  # the clear
        out.append(f"port_counters,device=leaf1,port=swp1,peer_device=spine1,peer_port=swp1,role=leaf_up "
                   f"in_octets={n * 12_500_000_000}i,out_octets={n * 25_000_000_000}i,pfc_rx_p3={n * 5000}i,"
                   f"in_errors=0i {t}")
        out.append(f"port_counters,device=spine1,port=swp1,peer_device=leaf1,peer_port=swp1,role=spine "
                   f"in_octets={k * 25_000_000_000}i,out_octets={k * 12_500_000_000}i,pfc_rx_p3=0i {t}")
    return out


def test_why_and_query_link_compute_rates_from_counters_alone(influx: InfluxDB1) -> None:
    influx.create_db("raw")
    start = (time.time_ns() - 30 * 60 * 1_000_000_000) // STEP_NS * STEP_NS
    req = urllib.request.Request(f"{influx.url}/write?db=raw&precision=ns", data="\n".join(counters(start)).encode())
    assert urllib.request.urlopen(req, timeout=30).status == 204
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime((start + 600 * 1_000_000_000) / 1e9))
    storage = ("--influx-url", influx.url, "--influx-db", "raw")

    code, out, err = cli("why", "leaf1", "swp1", "--at", at, *storage)
    assert code == 0, err
    assert "far end spine1 swp1" in out
    assert "peaks: gbps_in 10, gbps_out 20, pauses 500, ecn -, errors 0" in out, out

    code, out, err = cli("why", "leaf1", "swp1", "--at", at, *storage, "--json")
    assert code == 0, err
    series = json.loads(out)["link"]["series"]
    assert max(v for v in series["pauses"] if v is not None) == pytest.approx(500)
    assert min(v for v in series["gbps_in"] if v is not None) == pytest.approx(10)  # the clear is no dip or spike

    code, out, err = cli("query", "link", "leaf1", "swp1", "--from", "-40m", *storage, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert max(v for v in doc["series"]["gbps_out"] if v is not None) == pytest.approx(20)
    assert max(v for v in doc["peer_series"]["gbps_in"] if v is not None) == pytest.approx(20)  # the far end's
