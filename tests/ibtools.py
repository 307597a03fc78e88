"""Stand-ins for infiniband-diags (no IB hardware here): shell scripts printing recorded outputs."""

from __future__ import annotations

import stat
from pathlib import Path


def shell_script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def ib_stand_ins(tmp_path: Path, fixtures: Path, *, hanging_lid: int | None = None) -> tuple[str, str]:
    """(ibnetdiscover, perfquery) printing a recorded fabric; perfquery answers two switches by LID,
    hangs on `hanging_lid` and fails on any other."""
    ib = fixtures / "ib"
    disc = shell_script(tmp_path / "ibnetdiscover", f'cat "{ib}/ibnetdiscover/test.out"\n')
    hang = f"  {hanging_lid}) exec sleep 5 ;;\n" if hanging_lid is not None else ""
    perf = shell_script(tmp_path / "perfquery", f"""case "$2" in
  1719) cat "{ib}/perfquery/0x7cfe9003009ce5b0.out" ;;
  2052) cat "{ib}/perfquery/0x506b4b03005c2740.out" ;;
{hang}  *) echo "ibwarn: no such lid $2" >&2; exit 1 ;;
esac
""")
    return disc, perf
