"""One run of tests/integration/test_every_path.py (a simulator and a daemon on its clock, faults injected,
the findings watched) in a process of its own, its outcome written as JSON: the module's fixture runs them
side by side.

    python -m tests.integration.path_child TEST_NAME TMP_DIR OUT.json
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tests.integration.test_every_path import RUNS, outcome_to_json


def main(argv: list[str]) -> int:
    name, tmp, out = argv
    outcome, groups = asyncio.run(RUNS[name](Path(tmp)))
    Path(out).write_text(json.dumps(outcome_to_json(outcome, groups)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
