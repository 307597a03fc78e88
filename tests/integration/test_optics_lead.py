"""An aging optic is flagged well before its link errors, on each protocol, and healthy optics are
left alone. Hours of fabric time run through the real collectors (gNMI decoding, SNMP over UDP
from the simulator's agent, UFM over HTTP) into the pipeline and the detector.

Each measurement is CPU-bound and independent of the others: they run side by side, each in a process
of its own (tests/apart.py), as many at once as there are CPUs, and each test checks its own result."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from fabricwatch.lab.optics_lead import LeadResult, run
from fabricwatch.simulator.topology import FabricSpec
from tests.apart import Runs, side_by_side

pytestmark = [pytest.mark.integration, pytest.mark.slow]

HALF_HOUR = 1800.0
GNMI_LINKS = {"openconfig": ("spine-0", "Ethernet1"), "cumulus": ("leaf-r0-0", "swp3"),
              "sonic-state-db": ("leaf-r1-0", "Ethernet8")}
SNMP_PORTS = {"sonic-entity-sensor": ("leaf-r0-0", "Ethernet4"), "arista-thresholds": ("spine-0", "Ethernet1")}
SNMP_SPEC = FabricSpec(nodes=2, rails=2, spines=1, flavours=("arista", "sonic", "cumulus"))


def _measure(protocol: str, **kwargs: Any) -> Callable[[Path], Coroutine[Any, Any, dict[str, Any]]]:
    async def measure(_: Path) -> dict[str, Any]:
        return dataclasses.asdict(await run(protocol, **kwargs))
    return measure


def lead(runs: Runs, request: pytest.FixtureRequest) -> LeadResult:
    doc = runs.of(request)
    return LeadResult(**{**doc, "link": tuple(doc["link"]) if doc["link"] is not None else None,
                         "false_alarms": [tuple(fa) for fa in doc["false_alarms"]]})


RUNS = {
    **{f"test_gnmi_warns_before_errors[{k}]": _measure("gnmi", hours=5.0, aging=link)
       for k, link in GNMI_LINKS.items()},
    **{f"test_snmp_warns_before_errors[{k}]": _measure("snmp", hours=4.5, aging=dp, spec=SNMP_SPEC, only={dp[0]})
       for k, dp in SNMP_PORTS.items()},
    "test_ufm_warns_before_errors": _measure("ufm", hours=5.0, aging=("leaf-r0-0", "3")),
    "test_a_long_healthy_run_raises_no_optics_finding": _measure("gnmi", hours=8.0),
}
runs = side_by_side(at_once=os.cpu_count() or 1)


@pytest.mark.parametrize("link", list(GNMI_LINKS.values()), ids=list(GNMI_LINKS))
def test_gnmi_warns_before_errors(link: tuple[str, str], runs: Runs,
                                  request: pytest.FixtureRequest) -> None:
    r = lead(runs, request)
    assert r.link == link
    assert r.warned_s is not None, "the aging optic was never flagged"
    assert r.lead_s is not None and r.lead_s >= HALF_HOUR, f"flagged only {r.lead_s}s before the errors"
    assert "ber_rising" in r.conditions and "FEC limit" in r.explanation
    assert r.false_alarms == []
    assert r.modules == 24  # every transceiver reported its inventory (SONiC's from STATE_DB)


@pytest.mark.parametrize("device,port", list(SNMP_PORTS.values()), ids=list(SNMP_PORTS))
def test_snmp_warns_before_errors(device: str, port: str, runs: Runs,
                                  request: pytest.FixtureRequest) -> None:
    r = lead(runs, request)
    assert r.link == (device, port)
    assert r.lead_s is not None and r.lead_s >= HALF_HOUR
    # SNMP carries no FEC counters: DOM does it, the failing lane against its siblings
    assert r.conditions == ["lane_outlier"] and "lane 3" in r.explanation
    assert r.false_alarms == []
    assert r.modules == {"leaf-r0-0": 3, "spine-0": 2}[device]  # ENTITY-MIB inventory of each transceiver


def test_ufm_warns_before_errors(runs: Runs, request: pytest.FixtureRequest) -> None:
    r = lead(runs, request)
    assert r.lead_s is not None and r.lead_s >= HALF_HOUR
    assert "ber_rising" in r.conditions
    assert r.false_alarms == []
    assert r.modules > 0  # cable_info from resources/links


def test_a_long_healthy_run_raises_no_optics_finding(runs: Runs, request: pytest.FixtureRequest) -> None:
    r = lead(runs, request)
    assert r.link is None and r.hours == 8.0
    assert r.false_alarms == [] and r.warned_s is None
