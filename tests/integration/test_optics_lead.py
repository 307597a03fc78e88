"""An aging optic is flagged well before its link errors, on each protocol, and healthy optics are
left alone. Hours of fabric time run through the real collectors (gNMI decoding, SNMP over UDP
from the simulator's agent, UFM over HTTP) into the pipeline and the detector."""

from __future__ import annotations

import pytest

from fabricwatch.lab.optics_lead import run
from fabricwatch.simulator.topology import FabricSpec

pytestmark = [pytest.mark.integration, pytest.mark.slow]

HALF_HOUR = 1800.0


@pytest.mark.parametrize("link", [("spine-0", "Ethernet1"), ("leaf-r0-0", "swp3"), ("leaf-r1-0", "Ethernet8")],
                         ids=["openconfig", "cumulus", "sonic-state-db"])
async def test_gnmi_warns_before_errors(link: tuple[str, str]) -> None:
    r = await run("gnmi", hours=5.0, aging=link)
    assert r.warned_s is not None, "the aging optic was never flagged"
    assert r.lead_s is not None and r.lead_s >= HALF_HOUR, f"flagged only {r.lead_s}s before the errors"
    assert "ber_rising" in r.conditions and "FEC limit" in r.explanation
    assert r.false_alarms == []
    assert r.modules == 24  # every transceiver reported its inventory (SONiC's from STATE_DB)


@pytest.mark.parametrize("device,port", [("leaf-r0-0", "Ethernet4"), ("spine-0", "Ethernet1")],
                         ids=["sonic-entity-sensor", "arista-thresholds"])
async def test_snmp_warns_before_errors(device: str, port: str) -> None:
    spec = FabricSpec(nodes=2, rails=2, spines=1, flavours=("arista", "sonic", "cumulus"))
    r = await run("snmp", hours=4.5, aging=(device, port), spec=spec, only={device})
    assert r.lead_s is not None and r.lead_s >= HALF_HOUR
    # SNMP carries no FEC counters: DOM does it, the failing lane against its siblings
    assert r.conditions == ["lane_outlier"] and "lane 3" in r.explanation
    assert r.false_alarms == []
    assert r.modules == {"leaf-r0-0": 3, "spine-0": 2}[device]  # ENTITY-MIB inventory of each transceiver


async def test_ufm_warns_before_errors() -> None:
    r = await run("ufm", hours=5.0, aging=("leaf-r0-0", "3"))
    assert r.lead_s is not None and r.lead_s >= HALF_HOUR
    assert "ber_rising" in r.conditions
    assert r.false_alarms == []
    assert r.modules > 0  # cable_info from resources/links


async def test_a_long_healthy_run_raises_no_optics_finding() -> None:
    r = await run("gnmi", hours=8.0)
    assert r.false_alarms == [] and r.warned_s is None
