"""An aging optic is flagged well before its link errors, on each protocol, and healthy optics are
left alone. Hours of fabric time run through the real collectors (gNMI decoding, SNMP over UDP
from the simulator's agent, UFM over HTTP) into the pipeline and the detector.

Each measurement is CPU-bound and independent of the others: the module's fixture runs those of the
selected tests side by side, each in a process of its own (tests/integration/lead_child.py), as many
at once as there are CPUs, and each test checks its own result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.lab.optics_lead import LeadResult
from tests.conftest import ROOT
from tests.integration.lead_child import result_from_json

pytestmark = [pytest.mark.integration, pytest.mark.slow]

HALF_HOUR = 1800.0
GNMI_LINKS = {"openconfig": ("spine-0", "Ethernet1"), "cumulus": ("leaf-r0-0", "swp3"),
              "sonic-state-db": ("leaf-r1-0", "Ethernet8")}
SNMP_PORTS = {"sonic-entity-sensor": ("leaf-r0-0", "Ethernet4"), "arista-thresholds": ("spine-0", "Ethernet1")}
SNMP_SPEC = {"nodes": 2, "rails": 2, "spines": 1, "flavours": ["arista", "sonic", "cumulus"]}
# each test's measurement, by test name: (protocol, run()'s keyword arguments as JSON)
RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    **{f"test_gnmi_warns_before_errors[{k}]": ("gnmi", {"hours": 5.0, "aging": link})
       for k, link in GNMI_LINKS.items()},
    **{f"test_snmp_warns_before_errors[{k}]": ("snmp", {"hours": 4.5, "aging": dp, "spec": SNMP_SPEC, "only": [dp[0]]})
       for k, dp in SNMP_PORTS.items()},
    "test_ufm_warns_before_errors": ("ufm", {"hours": 5.0, "aging": ("leaf-r0-0", "3")}),
    "test_a_long_healthy_run_raises_no_optics_finding": ("gnmi", {"hours": 8.0}),
}


def _measure(name: str, out: Path) -> LeadResult:
    protocol, kwargs = RUNS[name]
    res = subprocess.run([sys.executable, "-m", "tests.integration.lead_child",
                          json.dumps({"protocol": protocol, "kwargs": kwargs}), str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert res.returncode == 0, f"{name}: {res.stderr[-3000:]}"
    return result_from_json(json.loads(out.read_text()))


@pytest.fixture(scope="module")
def leads(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future]]:
    """The selected tests' measurements, started at once in test order, as many at a time as there are CPUs."""
    names = [item.name for item in request.session.items if item.module is request.module]
    tmp = tmp_path_factory.mktemp("leads")
    with ThreadPoolExecutor(max(1, min(len(names), os.cpu_count() or 1))) as pool:
        futures = {name: pool.submit(_measure, name, tmp / f"{i}.json") for i, name in enumerate(names)}
        try:
            yield futures
        finally:
            for f in futures.values():
                f.cancel()


def lead(leads: dict[str, Future], request: pytest.FixtureRequest) -> LeadResult:
    return leads[request.node.name].result()  # type: ignore[no-any-return]


@pytest.mark.parametrize("link", list(GNMI_LINKS.values()), ids=list(GNMI_LINKS))
def test_gnmi_warns_before_errors(link: tuple[str, str], leads: dict[str, Future],
                                  request: pytest.FixtureRequest) -> None:
    r = lead(leads, request)
    assert r.link == link
    assert r.warned_s is not None, "the aging optic was never flagged"
    assert r.lead_s is not None and r.lead_s >= HALF_HOUR, f"flagged only {r.lead_s}s before the errors"
    assert "ber_rising" in r.conditions and "FEC limit" in r.explanation
    assert r.false_alarms == []
    assert r.modules == 24  # every transceiver reported its inventory (SONiC's from STATE_DB)


@pytest.mark.parametrize("device,port", list(SNMP_PORTS.values()), ids=list(SNMP_PORTS))
def test_snmp_warns_before_errors(device: str, port: str, leads: dict[str, Future],
                                  request: pytest.FixtureRequest) -> None:
    r = lead(leads, request)
    assert r.link == (device, port)
    assert r.lead_s is not None and r.lead_s >= HALF_HOUR
    # SNMP carries no FEC counters: DOM does it, the failing lane against its siblings
    assert r.conditions == ["lane_outlier"] and "lane 3" in r.explanation
    assert r.false_alarms == []
    assert r.modules == {"leaf-r0-0": 3, "spine-0": 2}[device]  # ENTITY-MIB inventory of each transceiver


def test_ufm_warns_before_errors(leads: dict[str, Future], request: pytest.FixtureRequest) -> None:
    r = lead(leads, request)
    assert r.lead_s is not None and r.lead_s >= HALF_HOUR
    assert "ber_rising" in r.conditions
    assert r.false_alarms == []
    assert r.modules > 0  # cable_info from resources/links


def test_a_long_healthy_run_raises_no_optics_finding(leads: dict[str, Future], request: pytest.FixtureRequest) -> None:
    r = lead(leads, request)
    assert r.link is None and r.hours == 8.0
    assert r.false_alarms == [] and r.warned_s is None
