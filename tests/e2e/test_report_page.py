"""The acceptance report as a customer sees it: headless Chromium renders it; the DOM has one
verdict at the top with what it was measured against, the threshold and the line rate on the plot,
sizes people read, a table per size, the hosts, every failing reason and the cabling section."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_fabric_page import chromium
from tests.unit.test_nccl_gate import fabricwatch, write_runs

pytestmark = pytest.mark.integration


async def test_the_report_shows_verdict_thresholds_line_rate_and_cabling(tmp_path: Path) -> None:
    healthy, degraded = write_runs(tmp_path)
    thresholds = tmp_path / "thresholds.toml"
    assert fabricwatch("gate", "--suggest", "--out", str(thresholds), *map(str, healthy[:3])).returncode == 0
    # the plan and the cabling as found: two host cables swapped
    plan = [{"device": "leaf-1", "port": str(p), "peer_device": f"node00{p}", "peer_port": "mlx5_0/1",
             "speed": "400G"} for p in (1, 2, 3)]
    actual = json.loads(json.dumps(plan))
    actual[0]["peer_device"], actual[1]["peer_device"] = "node002", "node001"
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    (tmp_path / "actual.json").write_text(json.dumps(actual))
    out = tmp_path / "report.html"
    res = fabricwatch("report", *map(str, healthy), str(degraded), "--thresholds", str(thresholds),
                      "--line-rate", "400G", "--cabling-plan", str(tmp_path / "plan.json"),
                      "--actual", str(tmp_path / "actual.json"), "--out", str(out))
    assert res.returncode == 0, res.stderr
    shot = tmp_path / "report.png"
    dom = (await asyncio.gather(asyncio.to_thread(chromium, "--dump-dom", out.as_uri()),  # two browsers side by side
                                asyncio.to_thread(chromium, f"--screenshot={shot}", out.as_uri())))[0].stdout
    assert "<h1>Acceptance report</h1>" in dom
    # one verdict, first, and what it was measured against
    assert dom.index("Verdict:") < dom.index("<svg") and "FAIL" in dom.split("Measured against")[0]
    against = re.search(r"Measured against: ([^<]+)", dom)
    assert against and str(thresholds) in against.group(1) and "400 Gb/s" in against.group(1)
    assert "the cabling plan" in against.group(1) and "1 differences" in against.group(1)
    assert 'class="threshold"' in dom and 'class="line-rate"' in dom and "NIC line rate 400 Gb/s = 50 GB/s" in dom
    assert ">1 MiB<" in dom and ">1 GiB<" in dom and "1073741824" not in dom  # sizes people read
    assert "Hosts (2): node001, node002" in dom
    assert dom.count("<table class=\"sizes\">") == 1 and "% of line rate" in dom and "(below)" in dom
    assert re.search(r'<td class="fail">swapped</td>', dom)
    legend = re.findall(r"<li><span[^>]*>■</span> ([^<]+)</li>", dom)
    assert degraded.name in legend and len(legend) == 5  # every run named, none cut off
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    if os.environ.get("FABRICWATCH_SHOTS"):
        shutil.copy(shot, Path(os.environ["FABRICWATCH_SHOTS"]) / shot.name)
