"""Replay at batch speed: columns of samples (read by `line_reader.py`) -> rates -> per-link intervals.

The same intervals as `intervals_from_samples` (the scalar rate engine and `IntervalAggregator`)
for samples in time order, computed with numpy over every sample of a chunk at once: rates per
counter column, then each (link, interval) group's weighted means with `bincount`, which adds in
the same order as the scalar fold (so the means are the same floats). Chunks are cut at interval
boundaries; a sample older than what was already folded for its link is counted (`late`) and
left out, as the daemon leaves out a sample that arrives after its interval was scored.
The port states and trained readings held between reports are `held_states.py`'s.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from fabricwatch.core.counters import COUNTERS, OPTICS, PORT_STATES, TRAINED, Kind, whole
from fabricwatch.core.influxql import InfluxQL
from fabricwatch.core.timeparse import parse_time_ns
from fabricwatch.detection.held_states import HeldStates
from fabricwatch.detection.line_reader import Catalog, Columns, ColumnsReport, columns_from_series, concat, read_chunks
from fabricwatch.models.features import RATE_INDEX, RATE_KEYS
from fabricwatch.models.intervals import (
    FOLDED,
    READINGS,
    LinkInterval,
    RowRates,
)
from fabricwatch.pipeline.rate_columns import ColumnRates
from fabricwatch.pipeline.rates import line_bytes

_NEVER = np.iinfo(np.int64).max
_OPTIC_GAUGES = frozenset(n for n in OPTICS if COUNTERS[n].kind is Kind.GAUGE)


def _last_of_group(at: np.ndarray, gid: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the last of the rows `at` (ascending) in it, or -1; groups are in row order."""
    out = np.full(n_groups, -1, dtype=np.int64)
    if len(at):
        g = gid[at]
        ends = np.flatnonzero(np.append(g[1:] != g[:-1], True))
        out[g[ends]] = at[ends]
    return out

class Window(NamedTuple):
    """One interval of the fabric: its links, and their rates as `FeatureBuilder.build` takes them."""

    start_ns: int
    links: list[LinkInterval]
    rates: np.ndarray  # (len(links), len(RATE_KEYS)), NaN where a link has no such rate


Intervals = list[Window]


@dataclass
class ReplayReport(ColumnsReport):
    late: int = 0  # samples older than their link's folded intervals (input out of time order)
    files: list[str] = field(default_factory=list)


class ColumnarIntervals:
    """Feed it chunks of columns in time order; it gives back every interval that is complete."""

    def __init__(self, interval_s: float = 30.0, max_gap_s: float = 300.0, *,
                 catalog: Catalog | None = None, report: ReplayReport | None = None) -> None:
        self.interval_ns = int(interval_s * 1e9)
        self.catalog = catalog or Catalog()
        self.catalog.unsent.max_gap_ns = int(max_gap_s * 1e9)
        self.report = report or ReplayReport()
        self.rates = ColumnRates(max_gap_s)
        self._held: Columns | None = None
        self._done_bucket = np.iinfo(np.int64).min  # every interval up to this one was folded
        self._last_ts = np.zeros(0, dtype=np.int64)  # per link: its newest sample so far
        self._has_last = np.zeros(0, dtype=bool)
        self._counted_ts = np.zeros(0, dtype=np.int64)  # per link: its newest sample that carried counters
        self._optics_carry: dict[int, tuple[dict[str, float], int]] = {}
        self._known: dict[str, np.ndarray] = {}  # per counter: the links that have sent it
        self.held = HeldStates()
        self._tagset_bytes = np.zeros(0, dtype=np.float64)  # per tag set: the bytes a second its speed carries

    def feed(self, cols: Columns) -> Intervals:
        """The intervals completed by these rows; the newest interval waits for the next chunk."""
        rows = concat([self._held, cols]) if self._held is not None else cols
        if not len(rows):
            return []
        bucket = rows.ts // self.interval_ns
        newest = int(bucket.max())
        self._held = rows.take(bucket == newest)
        return self._fold(rows.take(bucket < newest))

    def flush(self) -> Intervals:
        held, self._held = self._held, None
        return self._fold(held) if held is not None else []

    def _fold(self, rows: Columns) -> Intervals:
        if not len(rows):
            return []
        interval = self.interval_ns
        n_links = len(self.catalog.links)
        if len(self._last_ts) < n_links:
            grow = max(n_links, 2 * len(self._last_ts)) - len(self._last_ts)
            self._last_ts = np.concatenate([self._last_ts, np.zeros(grow, dtype=np.int64)])
            self._counted_ts = np.concatenate([self._counted_ts, np.zeros(grow, dtype=np.int64)])
            self._has_last = np.concatenate([self._has_last, np.zeros(grow, dtype=bool)])
        bucket = rows.ts // interval
        late = (bucket <= self._done_bucket) | (self._has_last[rows.link] & (rows.ts < self._last_ts[rows.link]))
        if late.any():
            self.report.late += int(late.sum())
            rows = rows.take(~late)
            bucket = bucket[~late]
            if not len(rows):
                return []
        # each link's samples in time order; samples of one instant keep their order in the file
        order = np.argsort(rows.ts, kind="stable")
        order = order[np.argsort(rows.link[order], kind="stable")]
        rows = rows.take(order)
        bucket = bucket[order]
        L, T = rows.link, rows.ts
        n = len(T)
        # the counters each link reports (sent at all, a rate or not), by the first interval it sent
        # them in: in its intervals from then on, one not reported did not change (as
        # IntervalAggregator fills it); only one never reported is missing
        first_in = self._first_in(rows, L, bucket, n_links)
        same = np.zeros(n, dtype=bool)
        same[1:] = L[1:] == L[:-1]
        prev_t = np.empty_like(T)
        prev_t[1:] = T[:-1]
        first = ~same
        prev_t[first] = self._last_ts[L[first]]
        has_prev = same | self._has_last[L]
        # a reading of the module alone, on a line of its own, is no time the counters cover: a row's time runs
        # from its link's previous row that carried more (`rates.RateEngine`, `counted_ns`)
        counts = np.zeros(n, dtype=bool)
        for k, sent in rows.present.items():
            if k not in OPTICS:
                counts |= sent
        upto = np.where(counts, np.arange(n), -1)
        np.maximum.accumulate(upto, out=upto)
        before = np.empty(n, dtype=np.int64)
        before[0] = -1
        before[1:] = upto[:-1]
        own = (before >= 0) & (L[np.maximum(before, 0)] == L)
        carried = self._counted_ts[L]
        prev_t = np.where(own, T[np.maximum(before, 0)], np.where(carried > 0, carried, prev_t))
        rates, spans_ns, saturated = self.rates.rates(L, T, rows.values, rows.present, n_links, rows.widths,
                                                      self._line_bytes(rows.tagset))
        last = np.ones(n, dtype=bool)
        last[:-1] = ~same[1:]
        self._last_ts[L[last]] = T[last]
        self._has_last[L[last]] = True
        counted_to = np.where((upto >= 0) & (L[np.maximum(upto, 0)] == L), T[np.maximum(upto, 0)],
                              self._counted_ts[L])  # each row's link's newest counting row so far
        self._counted_ts[L[last]] = np.maximum(self._counted_ts[L[last]], counted_to[last])
        moved, said_here = self.held.moved_since_said(rows, rates, spans_ns, L, T, n_links)

        # what the detector is given of each sample: rates, what the link trained to, the module's readings
        counted_cols: dict[str, np.ndarray] = {k: v for k, v in rates.items() if k not in OPTICS}
        # a sample that says the link is down says nothing it trained to (the kernel's placeholder speed)
        said_down = np.zeros(n, dtype=bool)
        if "oper_status" in rows.present:
            said_down = rows.present["oper_status"] & (rows.values["oper_status"] < 0.5)
        for k in TRAINED:
            if k in rows.present:
                value = rows.values[k].astype(np.float64)
                on = rows.present[k] & (value > 0) & ~said_down  # 0 while down: nothing trained
                if on.any():
                    counted_cols[k] = np.where(on, value, np.nan)
        for k in PORT_STATES:
            if k in rows.present and rows.present[k].any():
                counted_cols[k] = np.where(rows.present[k], rows.values[k].astype(np.float64), np.nan)
        self.held.first(rows, np.flatnonzero(~has_prev), L, n_links)
        optic_cols: dict[str, np.ndarray] = {k: v for k, v in rates.items() if k in OPTICS}
        for k in rows.present:
            if k in _OPTIC_GAUGES:
                optic_cols[k] = np.where(rows.present[k], rows.values[k].astype(np.float64), np.nan)
        counted = np.zeros(n, dtype=bool)
        for col in counted_cols.values():
            counted |= ~np.isnan(col)
        optic_any = np.zeros(n, dtype=bool)
        for col in optic_cols.values():
            optic_any |= ~np.isnan(col)
        valid = has_prev & (counted | optic_any)
        counted &= valid
        optic_any &= valid
        dt_s = (T - prev_t) / 1e9
        weight = np.where(dt_s > 0, dt_s, 1.0)

        # groups: one (link, interval) each, over the samples the detector is given
        vrows = np.flatnonzero(valid)
        if not len(vrows):
            self._learn(first_in, n_links)
            self._done_bucket = max(self._done_bucket, int(bucket.max()))
            return []
        gl, gb = L[vrows], bucket[vrows]
        starts = np.ones(len(vrows), dtype=bool)
        starts[1:] = (gl[1:] != gl[:-1]) | (gb[1:] != gb[:-1])
        gid_v = np.cumsum(starts) - 1
        G = int(gid_v[-1]) + 1
        gid = np.full(n, -1, dtype=np.int64)
        gid[vrows] = gid_v
        g_first = vrows[starts]
        g_link, g_bucket, g_tagset = L[g_first], bucket[g_first], rows.tagset[g_first]
        c = np.flatnonzero(counted)
        # parts of one sample at one instant (a device's several notifications for a port) weigh
        # what that instant's first part weighs and cover its time once, as in the scalar fold
        cl, ct = L[c], T[c]
        part = np.zeros(len(c), dtype=bool)
        part[1:] = (cl[1:] == cl[:-1]) & (ct[1:] == ct[:-1])
        if part.any():
            head = np.where(part, 0, np.arange(len(c)))
            np.maximum.accumulate(head, out=head)
            weight[c] = weight[c][head]
            c_time = c[~part]
        else:
            c_time = c
        covered = np.bincount(gid[c_time], weights=weight[c_time], minlength=G)
        emitted = covered > 0
        self._grow_known(n_links)
        known = self._known
        names = sorted(set(counted_cols) | set(known) | set(first_in) | self.held.names())
        means = np.full((G, len(names)), np.nan)
        for j, name in enumerate(names):
            column = counted_cols.get(name)
            have = np.zeros(G, dtype=bool)
            m = np.flatnonzero(valid & ~np.isnan(column)) if column is not None else None
            if column is not None and m is not None and len(m):
                # a rate weighs the span it covers; a reading (the negotiated speed), the sample's time,
                # and is averaged over the samples that carry it
                w = spans_ns[name][m] / 1e9 if name in spans_ns else weight[m]
                sums = np.bincount(gid[m], weights=column[m] * w, minlength=G)
                have = np.bincount(gid[m], minlength=G) > 0
                over = np.bincount(gid[m], weights=weight[m], minlength=G) if name in READINGS else covered
                means[have, j] = sums[have] / over[have]
            if name not in FOLDED:
                continue
            reports = known[name][g_link] if name in known else np.zeros(G, dtype=bool)
            if name in first_in:
                reports = reports | (first_in[name][g_link] <= g_bucket)
            if name in saturated:  # a counter at its ceiling with no rate cannot say it did not change
                reports = reports & ~(np.bincount(gid[np.flatnonzero(saturated[name] & valid)], minlength=G) > 0)
            means[emitted & ~have & reports, j] = 0.0
        self._learn(first_in, n_links)
        # traffic after the group's latest state report (what was counted before it says nothing of now)
        said_at = _last_of_group(np.flatnonzero(valid & said_here), gid, G)
        after_said = np.flatnonzero(moved & valid)
        after_said = after_said[after_said > said_at[gid[after_said]]]
        moved_in = np.bincount(gid[after_said], minlength=G) > 0
        said_in = said_at >= 0
        latest = {}  # per held reading, each group's latest report (NaN: none): what holds after the group
        for name in (*PORT_STATES, *TRAINED):
            if name in counted_cols:
                newest = _last_of_group(np.flatnonzero(valid & ~np.isnan(counted_cols[name])), gid, G)
                latest[name] = np.where(newest >= 0, counted_cols[name][np.maximum(newest, 0)], np.nan)
        self.held.hold(means, names, g_link, emitted, moved_in, said_in, latest, n_links)

        optics = self._group_optics(optic_cols, optic_any, gid, T, G, g_link, emitted)
        sat_names: dict[int, set[str]] = {}
        for name, rows_at in saturated.items():
            for g in np.unique(gid[rows_at & valid]).tolist():
                sat_names.setdefault(g, set()).add(name)

        out_groups = np.flatnonzero(emitted)
        if not len(out_groups):
            self._done_bucket = max(self._done_bucket, int(bucket.max()))
            return []
        means = means[out_groups]
        index = {name: j for j, name in enumerate(names)}
        links = self.catalog.links
        self.catalog.settle_roles()
        tagsets = self.catalog.tagsets
        R = np.full((len(out_groups), len(RATE_KEYS)), np.nan)
        for j, name in enumerate(names):
            at = RATE_INDEX.get(name)
            if at is not None:
                R[:, at] = means[:, j]
        out_bucket = g_bucket[out_groups]
        # one record per link-interval, its rates a row of `means`; tag sets are shared between a link's
        # intervals (nothing downstream changes a link's tags)
        made = [LinkInterval(b * interval, device, port, tagsets[tg], RowRates(means, i, index))
                for i, (b, (device, port), tg) in enumerate(zip(
                    out_bucket.tolist(), map(links.__getitem__, g_link[out_groups].tolist()),
                    g_tagset[out_groups].tolist(), strict=True))]
        if sat_names or optics:  # the few that saturated a counter or carry the module's readings
            place = {g: i for i, g in enumerate(out_groups.tolist())}
            for g, sat in sat_names.items():
                if g in place:
                    made[place[g]].saturated = frozenset(sat)
            for g, (readings, ns) in optics.items():
                if g in place:
                    made[place[g]].optics, made[place[g]].optics_ns = readings, ns
        self._done_bucket = max(self._done_bucket, int(bucket.max()))
        # groups are in (link, interval) order: a stable sort by interval keeps each one's links in order
        by_interval = np.argsort(out_bucket, kind="stable")
        bounds = np.flatnonzero(np.diff(out_bucket[by_interval])) + 1
        return [Window(int(out_bucket[rows[0]]) * interval, [made[j] for j in rows.tolist()], R[rows])
                for rows in np.split(by_interval, bounds)]

    def _line_bytes(self, tagset: np.ndarray) -> np.ndarray:
        """Per row, the bytes a second its link can carry, from its speed tag (0: none)."""
        known = self._tagset_bytes
        if len(known) < len(self.catalog.tagsets):
            more = [line_bytes(t.get("speed")) for t in self.catalog.tagsets[len(known):]]
            self._tagset_bytes = known = np.concatenate([known, np.array(more, dtype=np.float64)])
        return known[tagset]

    def _first_in(self, rows: Columns, L: np.ndarray, bucket: np.ndarray, n_links: int) -> dict[str, np.ndarray]:
        """Per folded counter sent in these rows, per link, the first interval it was sent in (or never)."""
        first_in: dict[str, np.ndarray] = {}
        for name, mask in rows.present.items():
            counter = whole(name)  # a queue's part says its port reports the whole
            if counter in FOLDED and mask.any():
                at = np.flatnonzero(mask)
                first = first_in.get(counter)
                if first is None:
                    first = first_in[counter] = np.full(n_links, _NEVER, dtype=np.int64)
                np.minimum.at(first, L[at], bucket[at])
        return first_in

    def _learn(self, first_in: dict[str, np.ndarray], n_links: int) -> None:
        """Remember which links sent which counters (after a chunk is folded)."""
        self._grow_known(n_links)
        known = self._known
        for name, first in first_in.items():
            arr = known.get(name)
            if arr is None:
                arr = known[name] = np.zeros(n_links, dtype=bool)
            arr[np.flatnonzero(first < _NEVER)] = True

    def _grow_known(self, n_links: int) -> None:
        known = self._known
        for name, arr in known.items():
            if len(arr) < n_links:
                known[name] = np.concatenate([arr, np.zeros(n_links - len(arr), dtype=bool)])

    def _group_optics(self, optic_cols: dict[str, np.ndarray], optic_any: np.ndarray, gid: np.ndarray,
                      T: np.ndarray, G: int, g_link: np.ndarray,
                      emitted: np.ndarray) -> dict[int, tuple[dict[str, float], int]]:
        """Per group, the module's latest readings in it, with what a link's earlier intervals without
        counters left over (they go with its next interval, as `IntervalAggregator` does)."""
        own: dict[int, dict[str, float]] = {}
        own_ns: dict[int, int] = {}
        if optic_any.any():
            for name, col in optic_cols.items():
                m = np.flatnonzero(optic_any & ~np.isnan(col))
                if not len(m):
                    continue
                gm = gid[m]
                is_last = np.ones(len(m), dtype=bool)
                is_last[:-1] = gm[1:] != gm[:-1]
                for g, v in zip(gm[is_last].tolist(), col[m[is_last]].tolist(), strict=True):
                    own.setdefault(g, {})[name] = v
            m = np.flatnonzero(optic_any)
            gm = gid[m]
            is_last = np.ones(len(m), dtype=bool)
            is_last[:-1] = gm[1:] != gm[:-1]
            own_ns = dict(zip(gm[is_last].tolist(), T[m[is_last]].tolist(), strict=True))
        carry = self._optics_carry
        # every group of a link with readings here or left over: an earlier group's readings go with
        # the link's next group that has counters, in this chunk or a later one
        links = set(carry) | {int(g_link[g]) for g in own}
        todo = np.flatnonzero(np.isin(g_link, list(links))).tolist() if links else []
        out: dict[int, tuple[dict[str, float], int]] = {}
        for g in todo:  # groups in (link, interval) order
            link = int(g_link[g])
            carried = carry.pop(link, None)
            readings = dict(carried[0]) if carried else {}
            ns = carried[1] if carried else 0
            if g in own:
                readings.update(own[g])
                ns = own_ns[g]
            if emitted[g]:
                out[g] = (readings, ns)
            elif readings:
                carry[link] = (readings, ns)
        return out


def intervals_from_files(paths: Iterable[Path], interval_s: float = 30.0, *, max_gap_s: float = 300.0,
                         report: ReplayReport | None = None, chunk_bytes: int = 8 << 20,
                         progress: Callable[[int, int], None] | None = None) -> Iterator[Intervals]:
    """The intervals of recorded port_counters files (each in time order, one after another), a
    chunk at a time: memory follows the chunk, not the window. `progress(bytes read, bytes in all)`."""
    report = report if report is not None else ReplayReport()
    folder = ColumnarIntervals(interval_s, max_gap_s, report=report)
    paths = list(paths)
    total = sum(p.stat().st_size for p in paths) if progress is not None else 0
    before = 0
    for path in paths:
        report.files.append(str(path))
        with open(path, "rb") as raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace") as f:
            for cols in read_chunks(f, folder.catalog, report, where=str(path), chunk_bytes=chunk_bytes):
                done = folder.feed(cols)
                if progress is not None:
                    progress(before + raw.tell(), total)
                if done:
                    yield done
        before += path.stat().st_size
    done = folder.flush()
    if done:
        yield done


def windows_from_influx(db: InfluxQL, start: str, end: str, interval_s: float = 30.0, *, max_gap_s: float = 300.0,
                        chunk_s: float = 3600.0, report: ReplayReport | None = None,
                        progress: Callable[[int, int], None] | None = None) -> Iterator[Intervals]:
    """The intervals of a window of stored `port_counters` (InfluxQL: 1.x, 2.x via DBRP, 3.x), read
    an hour at a time, through the same columnar path as files."""
    report = report if report is not None else ReplayReport()
    folder = ColumnarIntervals(interval_s, max_gap_s, report=report)
    t0, t1 = parse_time_ns(start), parse_time_ns(end)
    step = int(chunk_s * 1e9)
    chunks = max(1, -(-(t1 - t0) // step))
    for n in range(chunks):
        lo, hi = t0 + n * step, min(t1, t0 + (n + 1) * step)
        q = f'SELECT * FROM "port_counters" WHERE time >= {lo} AND time < {hi} GROUP BY *'
        done = folder.feed(columns_from_series(db.query(q), folder.catalog, report))
        if progress is not None:
            progress(n + 1, chunks)
        if done:
            yield done
    done = folder.flush()
    if done:
        yield done
