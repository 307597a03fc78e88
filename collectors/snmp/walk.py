"""Walk several table columns at once with GETBULK, however the agent pages its answers."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import AsyncExitStack

from fabricwatch.collectors.snmp import ber
from fabricwatch.collectors.snmp.transport import Transport
from fabricwatch.core.errors import TargetError

MAX_ROWS = 200_000  # per column: an agent that never ends a table must not hold us forever

Rows = dict[bytes, list[tuple[bytes, int, ber.Value]]]  # column -> [(index suffix, tag, value)]


async def walk(
    transport: Transport, columns: Sequence[bytes], *, max_repetitions: int,
    limits: Sequence[asyncio.Semaphore] = (), device: str = "",
) -> Rows:
    """Every row of each column (encoded OIDs), in agent order, as (index suffix, tag, value).

    Columns move in lockstep in one GETBULK; a column that ends drops out of the next
    request. tooBig halves max-repetitions and asks again."""
    rows: Rows = {c: [] for c in columns}
    position = {c: c for c in columns}
    reps = max(1, max_repetitions)
    while position:
        active = list(position)
        try:
            async with AsyncExitStack() as stack:
                for limit in limits:
                    await stack.enter_async_context(limit)
                varbinds = await transport.get_bulk([position[c] for c in active], reps)
        except TargetError as exc:
            if exc.kind == "too_big" and reps > 1:
                reps = max(1, reps // 2)
                continue
            raise
        if not varbinds:
            raise TargetError("protocol", f"{device}: empty GETBULK response")
        ended: set[bytes] = set()
        k = len(active)
        for i, (oid, tag, value) in enumerate(varbinds):
            col = active[i % k]
            if col in ended:
                continue
            n = len(col)
            if tag == ber.END_OF_MIB_VIEW or len(oid) <= n or oid[:n] != col:
                ended.add(col)
                continue
            if oid == position[col]:
                raise TargetError("protocol", f"{device}: agent repeated OID {ber.oid_str(oid)} (not increasing)")
            col_rows = rows[col]
            col_rows.append((oid[n:], tag, value))
            position[col] = oid
            if len(col_rows) > MAX_ROWS:
                raise TargetError("protocol", f"{device}: column {ber.oid_str(col)} has over {MAX_ROWS} rows")
        for col in ended:
            del position[col]
    return rows
