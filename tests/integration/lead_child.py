"""One optics-lead measurement (`fabricwatch.lab.optics_lead.run`) in a process of its own, its result
written as JSON to a file: tests/integration/test_optics_lead.py runs its measurements side by side.

    python -m tests.integration.lead_child '{"protocol": "gnmi", "kwargs": {"hours": 5.0}}' result.json
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from fabricwatch.lab.optics_lead import LeadResult, run
from fabricwatch.simulator.topology import FabricSpec


def run_kwargs(doc: dict[str, Any]) -> dict[str, Any]:
    """run()'s keyword arguments from their JSON form (lists back to the tuples and sets run takes)."""
    kwargs = dict(doc)
    if kwargs.get("aging") is not None:
        kwargs["aging"] = tuple(kwargs["aging"])
    if kwargs.get("spec") is not None:
        kwargs["spec"] = FabricSpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in kwargs["spec"].items()})
    if kwargs.get("only") is not None:
        kwargs["only"] = set(kwargs["only"])
    return kwargs


def result_from_json(doc: dict[str, Any]) -> LeadResult:
    return LeadResult(**{**doc, "link": tuple(doc["link"]) if doc["link"] is not None else None,
                         "false_alarms": [tuple(fa) for fa in doc["false_alarms"]]})


def main(argv: list[str]) -> int:
    job = json.loads(argv[0])
    result = asyncio.run(run(job["protocol"], **run_kwargs(job["kwargs"])))
    Path(argv[1]).write_text(json.dumps(dataclasses.asdict(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
