"""The README's pictures show the demo's own faults (scripts/screenshots.py injects what `fabricwatch
demo`, run by scripts/demo.sh, injects), and each caption names the fault and the port it is on."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from fabricwatch.cli.demo import demo_faults
from fabricwatch.simulator.faults import Fault
from fabricwatch.simulator.service import SimConfig, Simulator

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
WORDS = {"flap": "flapping", "pfc_storm": "PFC storm", "aging_optic": "aging optic", "ber": "dirty optic"}


def _screenshots() -> ModuleType:
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts" / "screenshots.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _sim(ib: bool) -> Simulator:
    shots = _screenshots()
    fabric, extra = shots.IB_FABRIC if ib else shots.ROCE_FABRIC
    return Simulator(SimConfig.model_validate({"fabric": fabric, **extra}))


def _where(spec: str) -> tuple[str, str, str | None]:
    f = Fault.parse(spec)
    return f.kind, f.device, f.port


def _alt(png: str) -> str:
    found = re.findall(r"!\[([^\]]*)\]\(docs/" + re.escape(png) + r"\)", README)
    assert len(found) == 1, f"docs/{png} is not shown once in the README"
    return found[0]


@pytest.mark.parametrize("ib", [False, True])
def test_the_pictures_carry_the_faults_the_demo_injects(ib: bool) -> None:
    sim = _sim(ib)
    shown = {_where(s) for s in _screenshots().faults(sim.fabric.topology, ib).values()}
    assert shown == {_where(s) for s in demo_faults(sim.fabric.topology, ib)}


@pytest.mark.parametrize("ib", [False, True])
def test_each_caption_names_the_fault_and_its_port(ib: bool) -> None:
    sim = _sim(ib)
    faults = _screenshots().faults(sim.fabric.topology, ib)
    pictured = {label: spec for label, spec in faults.items() if f"docs/link-{label}.png" in README}
    assert pictured, "no link page of these faults in the README"
    for label, spec in pictured.items():
        kind, device, port = _where(spec)
        alt = _alt(f"link-{label}.png")
        assert WORDS[kind] in alt and f"{device} {port}" in alt, (label, alt)
    if not ib:
        fabric = _alt("fabric-page.png")
        for spec in faults.values():
            kind, device, port = _where(spec)
            assert WORDS[kind] in fabric and f"{device} {port}" in fabric, fabric
    assert "uplink" not in " ".join(_alt(f"link-{label}.png") for label in pictured)
