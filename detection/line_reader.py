"""A port's samples read into columns, whatever measurement its collector wrote them in (`series_names.py`): line
protocol a chunk of lines at a time, and InfluxQL answers.

Plain lines go to the column decoder (`plain_decoder.py`); anything else (escapes, quoted strings, odd
values, other measurements, bad lines) goes through `parse_line`, line by line, with the same answers
as `read_samples`. Fields another writer names its own way are read under the canonical name; fields
that are no counter of the vocabulary are counted in the report.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import repeat
from typing import IO, Any

import numpy as np

from fabricwatch.core.counters import COUNTERS, OPTICS, PART, lane, part, whole
from fabricwatch.core.lineprotocol import LineProtocolError, parse_line
from fabricwatch.core.name_words import named_by, names_nothing
from fabricwatch.core.names import CounterName, numeric_fields, rivals, spellings
from fabricwatch.detection.nic_names import DIRECT, JOINED, NicNames
from fabricwatch.detection.plain_decoder import INT63, decode_plain
from fabricwatch.detection.recorded_shapes import FIRST_LANE, RecordedShapes, lane_tag
from fabricwatch.detection.replay import ReadReport
from fabricwatch.detection.sensor_rows import sensor_reading
from fabricwatch.detection.series_names import OURS, PortSeries, link_tags, port_of, queue_of
from fabricwatch.detection.site_tags import site_tags
from fabricwatch.detection.transceiver_ports import is_component, module_port
from fabricwatch.detection.unsent_fields import UnsentColumns
from fabricwatch.detection.wiring import Wiring
from fabricwatch.pipeline.rate_columns import common_dtype

# a module's lane as writers tag its points: ours, and a gNMI client's key of physical-channels/channel


@dataclass
class ColumnsReport(ReadReport):
    """What was read: lines, samples, skipped lines and the first 20 errors, where they are."""

    def error(self, where: str, text: str) -> None:
        self.skipped += 1
        if len(self.errors) < 20:
            self.errors.append(f"{where}: {text}")


@dataclass
class Columns:
    """Rows of one chunk, in file order: the link and tag set each belongs to, its time, and per
    field a value column (int64 where every value is an integer, else float64) with a mask."""

    link: np.ndarray  # int64 index into Catalog.links
    tagset: np.ndarray  # int64 index into Catalog.tagsets
    ts: np.ndarray  # int64 ns
    values: dict[str, np.ndarray]
    present: dict[str, np.ndarray]
    # per counter read from a spelling of its own width (`SymbolErrorCounterExtended`: 64), that width at each
    # row; 0 where the vocabulary's
    widths: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ts)

    def take(self, rows: np.ndarray) -> Columns:
        """These rows only (an index array or a mask)."""
        present = {k: m[rows] for k, m in self.present.items()}
        keep = [k for k, m in present.items() if m.any()]
        return Columns(self.link[rows], self.tagset[rows], self.ts[rows],
                       {k: self.values[k][rows] for k in keep}, {k: present[k] for k in keep},
                       {k: w[rows] for k, w in self.widths.items() if k in present})


def concat(parts: list[Columns]) -> Columns:
    """The rows of several chunks, one after the other; a field missing from a part is absent there."""
    parts = [p for p in parts if len(p)]
    if len(parts) == 1:
        return parts[0]
    names = list(dict.fromkeys(k for p in parts for k in p.values))
    values, present = {}, {}
    for k in names:
        cols = [p.values[k] if k in p.values else np.zeros(len(p), dtype=np.int64) for p in parts]
        dtype = common_dtype(*cols)
        values[k] = np.concatenate([c.astype(dtype, copy=False) for c in cols]) if cols else np.zeros(0)
        present[k] = np.concatenate([p.present[k] if k in p.present else np.zeros(len(p), dtype=bool)
                                     for p in parts])
    widths = {k: np.concatenate([p.widths.get(k, np.zeros(len(p), dtype=np.uint8)) for p in parts])
              for k in dict.fromkeys(k for p in parts for k in p.widths)}
    return Columns(np.concatenate([p.link for p in parts]) if parts else np.zeros(0, dtype=np.int64),
                   np.concatenate([p.tagset for p in parts]) if parts else np.zeros(0, dtype=np.int64),
                   np.concatenate([p.ts for p in parts]) if parts else np.zeros(0, dtype=np.int64),
                   values, present, widths)


class Catalog:
    """Links (device, port) and tag sets seen so far, numbered in the order first seen; the same
    numbers across chunks and files, so that state carried between chunks stays the link's."""

    def __init__(self) -> None:
        self.links: list[tuple[str, str]] = []
        self.tagsets: list[dict[str, str]] = []
        # per tag set, the lane its points read (a `lane` tag: one point per lane of a module), -1 for none; the
        # lane tag itself is no tag of the link
        self.lanes: list[int] = []
        self._lane_numbers = np.zeros(0, dtype=np.int64)  # `lanes` from 1, as `lane_of` last made them
        self._link: dict[tuple[str, str], int] = {}
        self._ports: dict[str, list[str]] = {}  # device -> its ports, in the order first seen
        self.measurements: list[str] = []  # per tag set, the measurement its series is of
        self.queues: list[int] = []  # per tag set, the number of the port's queue it counts (0: the port's own)
        self.shapes = RecordedShapes()
        # per counter, per link, whether a series sends it whole: its queues' parts of it are not added to it
        self.wholes: dict[str, np.ndarray] = {}
        self.unplaced = False  # the last series asked of was a module whose port is not heard yet
        # (link, its tags, source, measurement and queue) -> tag set
        self._tagset: dict[tuple[tuple[str, str], tuple[tuple[str, str], ...], int, str, str], int] = {}
        self.tagset_links: list[int] = []
        self._read: list[dict[str, str]] = []  # each tag set as read; `tagsets` holds it as the wiring settles it
        self._series: dict[str, tuple[int, int] | None] = {}  # raw series text -> (link, tagset)
        self._codes: dict[str, int] = {}  # raw series text -> link << 32 | tagset, or -1
        self.wiring = Wiring()
        self._settled_at = 0  # the wiring's version when the tag sets were last settled
        self.nics = NicNames()
        self.unsent = UnsentColumns()
        self.tagset_source: list[int] = []  # per tag set: DIRECT, or JOINED (a network device's, read as its NIC's)
        self.joined_links: set[int] = set()  # the RDMA devices' links network devices' series are joined to

    def ids(self, measurement: str, tags: dict[str, str]) -> tuple[int, int] | None:
        """(link, tagset) of a series of `measurement` with `tags`; None for a series of no port."""
        series = port_of(measurement, tags)
        if series is None:
            return None
        if self.nics.learn(series, tags):
            # series read under the network device's own name are the NIC's from now on
            self._series.clear()
            self._codes.clear()
        source = DIRECT
        if (joined := self.nics.joined(series)) is not None:
            series, source = joined, JOINED
        key = (series.device, series.port)
        if key not in self._link:
            fed = module_port(series.port, self._ports.get(series.device, ()))
            if fed is None and is_component(series.port):
                self.unplaced = True  # a module heard before its port: asked again until the port is heard
                return None
            if fed is not None:
                series = PortSeries(series.device, fed, series.naming)
                key = (series.device, fed)
        extra = tuple(sorted(link_tags(series, tags).items()))
        link = self._link.get(key)
        if link is None:
            link = self._link[key] = len(self.links)
            self.links.append(key)
            self._ports.setdefault(series.device, []).append(series.port)
        if self.nics.joins(key):
            self.joined_links.add(link)
        # a link's own tag set: the wiring settles its far end and role (`settle_roles`)
        # one series, one tag set: another measurement with the same tags is polled at its own pace (`UnsentColumns`)
        queue = queue_of(series, tags)
        ts = self._tagset.get((key, extra, source, measurement, queue))
        if ts is None:
            ts = self._tagset[(key, extra, source, measurement, queue)] = len(self.tagsets)
            self.tagset_source.append(source)
            self.measurements.append(measurement)
            self.queues.append(self.shapes.queue_number(queue) if queue else 0)
            tags = site_tags(dict(extra))
            said = tags.pop(t) if (t := lane_tag(measurement, tags)) is not None else ""
            self.tagsets.append(tags)
            self._read.append(tags)
            self.tagset_links.append(link)
            self.lanes.append(int(said) if said.isdigit() and len(said) <= 2 else -1)
            self.wiring.learn(series.device, series.port, tags)
        return link, ts

    def known(self, device: str, port: str) -> bool:
        """Whether `device:port` is a link heard from."""
        return (device, port) in self._link

    def settle_roles(self) -> None:
        """Tag sets take the far end and the role the wiring heard since gives them (`Wiring`), as new dicts:
        intervals already made keep theirs, and a layout is told apart by its tags."""
        wiring = self.wiring
        if wiring.version == self._settled_at:
            return
        self._settled_at = wiring.version
        for i, tags in enumerate(self._read):
            settled = wiring.settled(*self.links[self.tagset_links[i]], tags)
            if settled != self.tagsets[i]:
                self.tagsets[i] = settled

    def lane_of(self, tagset: np.ndarray) -> np.ndarray | None:
        """Per row, the module lane (from 1) its point reads by its lane tag, 0 for none; None if no point
        has one. A device that numbers a lane 0 numbers them from 0 (Junos does, EOS from 1)."""
        if not any(n >= 0 for n in self.lanes):
            return None
        if len(self._lane_numbers) != len(self.lanes):
            raw = np.array(self.lanes, dtype=np.int64)
            device = np.array([self.links[link][0] for link in self.tagset_links], dtype=object)
            from_zero = np.isin(device, device[raw == 0])
            self._lane_numbers = np.where(raw >= 0, raw + from_zero, 0)
        return self._lane_numbers[tagset]

    def codes(self, heads: list[str]) -> list[int]:
        """Per series text, link << 32 | tagset, or -1 for a series that is not a port's counters."""
        cache = self._codes
        out = list(map(cache.get, heads))
        if None in out:
            for i, head in enumerate(heads):
                if out[i] is None:
                    ids = self.series(head)
                    code = -1 if ids is None else (ids[0] << 32 | ids[1])
                    out[i] = code
                    if not self.unplaced:
                        cache[head] = code
        return out  # type: ignore[return-value]

    def series(self, head: str) -> tuple[int, int] | None:
        """(link, tagset) of a plain series text ('port_counters,k=v,...'); None if no port's."""
        self.unplaced = False
        try:
            return self._series[head]
        except KeyError:
            pass
        parts = head.split(",")
        ids = None
        self.unplaced = False
        if all("=" in p for p in parts[1:]):
            ids = self.ids(parts[0], dict(p.split("=", 1) for p in parts[1:]))
        if not self.unplaced:
            self._series[head] = ids
        return ids




def decode_lines(lines: list[str], catalog: Catalog, report: ColumnsReport, *, where: str = "",
                 first_lineno: int = 1, text: str | None = None) -> Columns:
    """Columns of the port_counters samples among `lines` (without line ends); `text` is the same
    lines joined by newlines, when the caller has it."""
    n_lines = len(lines)
    report.lines += n_lines
    blob = "\n".join(lines) if text is None else text
    plain_chunk = "\\" not in blob and '"' not in blob and "\r" not in blob
    spaces = list(map(str.count, lines, repeat(" ", n_lines)))
    if plain_chunk and spaces.count(2) == n_lines:
        # every line has three sections: split them all at once
        flat = blob.replace(" ", "\n").split("\n")
        del blob
        heads, fields, times = flat[0::3], flat[1::3], flat[2::3]
        codes = catalog.codes(heads)
        fast_pos = [i for i, c in enumerate(codes) if c >= 0] if -1 in codes else list(range(n_lines))
        if len(fast_pos) < n_lines:
            slow = [i for i, c in enumerate(codes) if c < 0]
            fields = [fields[i] for i in fast_pos]
            times = [times[i] for i in fast_pos]
            codes = [codes[i] for i in fast_pos]
        else:
            slow = []
    else:
        del blob
        fast_pos, codes, fields, times, slow = [], [], [], [], []
        for pos, ln in enumerate(lines):
            p = ln.split(" ")
            if len(p) == 3 and (plain_chunk or ("\\" not in ln and '"' not in ln and "\r" not in ln)):
                code = catalog.codes([p[0]])[0]
                if code >= 0:
                    fast_pos.append(pos)
                    codes.append(code)
                    fields.append(p[1])
                    times.append(p[2])
                    continue
            slow.append(pos)
    rows_pos: list[np.ndarray] = []
    parts: list[Columns] = []
    if fast_pos:
        plain = decode_plain(fields, times)
        code_arr = np.array(codes, dtype=np.int64)
        decoded = Columns(code_arr >> 32, code_arr & 0xFFFFFFFF, plain.ts, plain.values, plain.present)
        fell = plain.fell
        if fell:
            slow.extend(fast_pos[i] for i in fell)
            keep = np.ones(len(fast_pos), dtype=bool)
            keep[fell] = False
            decoded = decoded.take(keep)
            rows_pos.append(np.asarray(fast_pos, dtype=np.int64)[keep])
        else:
            rows_pos.append(np.asarray(fast_pos, dtype=np.int64))
        parts.append(decoded)
    if slow:
        slow.sort()
        part, pos_kept = _decode_slow(lines, slow, catalog, report, where, first_lineno)
        parts.append(part)
        rows_pos.append(pos_kept)
    out = concat(parts) if parts else _empty()
    if len(parts) > 1:  # back to file order: the order rates see samples of the same instant in
        order = np.argsort(np.concatenate(rows_pos), kind="stable")
        out = out.take(order)
    report.samples += len(out)
    return out


def _empty() -> Columns:
    z = np.zeros(0, dtype=np.int64)
    return Columns(z, z, z, {}, {})




def _decode_slow(lines: list[str], positions: list[int], catalog: Catalog, report: ColumnsReport,
                 where: str, first_lineno: int) -> tuple[Columns, np.ndarray]:
    """Lines the fast path did not take, through the full parser: read_samples's rules exactly."""
    kept: list[int] = []
    link, tagset, ts = [], [], []
    rows: list[dict[str, float]] = []
    for pos in positions:
        line = lines[pos]
        if not line.strip() or line.startswith("#"):
            continue
        try:
            measurement, tags, flds, t = parse_line(line)
        except LineProtocolError as exc:
            report.error(f"{where}:{first_lineno + pos}", str(exc))
            continue
        ids = catalog.ids(measurement, tags) if t is not None else None
        reading = None
        if ids is None and t is not None and (reading := sensor_reading(measurement, tags, flds, catalog.known)):
            ids = catalog.ids(measurement, reading[0])
        if ids is None:
            report.skipped += 1
            continue
        kept.append(pos)
        link.append(ids[0])
        tagset.append(ids[1])
        ts.append(t)
        rows.append(reading[1] if reading else numeric_fields(flds))
    n = len(kept)
    values: dict[str, np.ndarray] = {}
    present: dict[str, np.ndarray] = {}
    for i, r in enumerate(rows):
        for k, v in r.items():
            col = values.get(k)
            if col is None:
                values[k] = col = np.zeros(n, dtype=np.int64)
                present[k] = np.zeros(n, dtype=bool)
            if type(v) is float or v < -INT63 or v >= 1 << 64:
                if col.dtype != np.float64:
                    values[k] = col = col.astype(np.float64)
            elif v >= INT63 and col.dtype == np.int64:
                values[k] = col = col.astype(np.uint64 if col[:i][present[k][:i]].min(initial=0) >= 0
                                             else np.float64)
            col[i] = v
            present[k][i] = True
    return (Columns(np.array(link, dtype=np.int64), np.array(tagset, dtype=np.int64),
                    np.array(ts, dtype=np.int64), values, present), np.array(kept, dtype=np.int64))


def read_chunks(f: IO[str], catalog: Catalog, report: ColumnsReport, *, where: str = "",
                chunk_bytes: int = 8 << 20) -> Iterator[Columns]:
    """Columns of a file, `chunk_bytes` of text at a time (cut at line ends)."""
    rest = ""
    lineno = 1
    while True:
        text = f.read(chunk_bytes)
        if not text:
            break
        text = rest + text
        cut = text.rfind("\n")
        if cut < 0:
            rest = text
            continue
        rest = text[cut + 1:]
        text = text[:cut]
        lines = text.split("\n")
        yield _canonical(decode_lines(lines, catalog, report, where=where, first_lineno=lineno, text=text), report,
                         catalog)
        lineno += len(lines)
    if rest:
        yield _canonical(decode_lines([rest], catalog, report, where=where, first_lineno=lineno), report, catalog)


def _canonical(cols: Columns, report: ColumnsReport | None = None, catalog: Catalog | None = None) -> Columns:
    """Fields another writer spells its own way (`ifHCInOctets`, `port_xmit_data`) under the vocabulary's
    name, in its unit (`core/names.py`; a canonical field the lines also carry wins), a lane's reading on a
    point tagged with its lane as that lane's; the fields that are no counter of the vocabulary counted in
    `report`."""
    if catalog is not None:
        _named_by_measurements(cols, catalog)
        if any(catalog.queues):
            _queue_parts(cols, catalog)
    values, present = cols.values, cols.present
    spelled = spellings(values)
    contest = rivals(spelled)
    # wholes first, documented spellings first; a row carrying two names whose words read as one counter reads
    # neither; a part (one queue's) is read where its row carries no whole
    for name, spelling in sorted(spelled.items(), key=lambda kv: (kv[1].part, kv[1].by_words)):
        raw = values[name]
        read = (enumerated(raw, spelling) if spelling.enum or spelling.flag
                else scaled(raw, spelling.scale, spelling.per))
        if spelling.unknown:
            read = np.where(np.isin(raw, spelling.unknown), 0, read)
        to = spelling.canonical
        if spelling.part:
            share = part(to, name)
            if to not in present:
                values[share], present[share] = read, present.pop(name)
                del values[name]
            else:
                take = present[name] & ~present[to]
                values[share], present[share] = np.where(take, read, 0), take
                present[name] = present[name] & ~take
            continue
        if to not in values and not contest.get(name):
            if spelling.bits is not None:
                cols.widths[to] = np.where(present[name], spelling.bits, 0).astype(np.uint8)
            values[to], present[to] = read, present.pop(name)
            del values[name]
            continue
        alone = present[name].copy()
        for other in contest.get(name, ()):
            alone &= ~present[other]
        if to not in values:
            values[to], present[to] = np.zeros_like(read), np.zeros_like(alone)
        take = alone & ~present[to]  # a row's canonical field wins over its other spellings
        if take.any():
            if spelling.bits is not None:
                width = cols.widths.get(to, np.zeros(len(take), dtype=np.uint8))
                cols.widths[to] = np.where(take, spelling.bits, width).astype(np.uint8)
            values[to] = np.where(take, read, values[to])
            present[to] = present[to] | take
            present[name] = present[name] & ~take
    if catalog is not None:
        _whole_wins(cols, catalog)
    lanes = catalog.lane_of(cols.tagset) if catalog is not None else None
    if lanes is not None:
        _to_lanes(cols, lanes)
    if catalog is not None:
        catalog.unsent.fill(cols.tagset, cols.ts, cols.values, cols.present, len(catalog.tagsets), cols.widths.keys())
        if catalog.joined_links:
            _one_source(cols, catalog)
    read = np.zeros(len(cols), dtype=bool)
    for name, where in cols.present.items():
        if whole(name) in COUNTERS:
            read |= where
        elif report is not None and (n := int(where.sum())):
            report.unread_fields[name] = report.unread_fields.get(name, 0) + n
    if not read.all():  # a row with nothing we read is no moment of its port (an info series: `rdma_netdev_info`)
        if report is not None:
            dropped = len(cols) - int(read.sum())
            report.samples -= dropped
            report.skipped += dropped
        cols = cols.take(read)
    return cols


def _named_by_measurements(cols: Columns, catalog: Catalog) -> None:
    """A field whose own words name nothing, read on each row by its series' measurement (`name_words.named_by`)."""
    for name in [n for n in cols.values if names_nothing(n)]:
        at = np.flatnonzero(cols.present[name])
        tagsets, which = np.unique(cols.tagset[at], return_inverse=True)
        saids = np.array([named_by(catalog.measurements[ts], name) for ts in tagsets.tolist()], dtype=object)
        for said in set(saids.tolist()) - {name}:
            rows = at[saids[which] == said]
            if said not in cols.values:
                cols.values[said] = np.zeros_like(cols.values[name])
                cols.present[said] = np.zeros(len(cols), dtype=bool)
            cols.values[said][rows] = cols.values[name][rows]
            cols.present[said][rows] = True
            cols.present[name][rows] = False


def _queue_parts(cols: Columns, catalog: Catalog) -> None:
    """A queue's row's fields named as that queue's (`dropped_pkts` of queue 3 as `dropped_pkts_queue3`): the
    vocabulary reads them as parts of its port's counters by their words, or not at all."""
    queue = np.asarray(catalog.queues, dtype=np.int64)[cols.tagset]
    if not queue.any():
        return
    for name in list(cols.values):
        where = cols.present[name] & (queue > 0)
        for q in np.unique(queue[where]).tolist():
            rows = where & (queue == q)
            said = f"{name}_queue{q}"
            cols.values[said] = np.where(rows, cols.values[name], 0).astype(cols.values[name].dtype)
            cols.present[said] = rows
        cols.present[name] = cols.present[name] & ~where
        if not cols.present[name].any():
            del cols.values[name], cols.present[name]


def _whole_wins(cols: Columns, catalog: Catalog) -> None:
    """A part of a counter (one queue's) is not read for a link once a series has sent the counter of whole for
    it (a port's `out_discards` and its queues' drops counted again), as `replay.read_samples` reads them."""
    n = len(catalog.links)
    for name, sent in catalog.wholes.items():
        if len(sent) < n:
            catalog.wholes[name] = np.concatenate([sent, np.zeros(n - len(sent), dtype=bool)])
    order = np.arange(len(cols))
    first: dict[str, np.ndarray] = {}  # per whole counter, per link, the first row that sent it (-1: before)
    for name, where in cols.present.items():
        if PART not in name and name in COUNTERS:
            sent = catalog.wholes.setdefault(name, np.zeros(n, dtype=bool))
            at = np.where(sent, -1, len(cols))
            rows = np.flatnonzero(where)
            np.minimum.at(at, cols.link[rows], rows)
            first[name] = at
            sent[cols.link[rows]] = True
    for name in [k for k in cols.present if PART in k]:
        before = first.get(whole(name))
        if before is not None:
            cols.present[name] = cols.present[name] & ~(before[cols.link] < order)
        elif (earlier := catalog.wholes.get(whole(name))) is not None:
            cols.present[name] = cols.present[name] & ~earlier[cols.link]


def _one_source(cols: Columns, catalog: Catalog) -> None:
    """On a NIC read under both its names, each counter from the name that gave it first (`NicNames`)."""
    on = np.isin(cols.link, np.fromiter(catalog.joined_links, dtype=np.int64))
    if not on.any():
        return
    source = np.asarray(catalog.tagset_source, dtype=np.int8)[cols.tagset]
    for name, where in cols.present.items():
        if whole(name) not in COUNTERS:
            continue
        rows = np.flatnonzero(where & on)
        if len(rows):
            keep = catalog.nics.read_rows(name, cols.link[rows], source[rows], len(catalog.links))
            if not keep.all():
                where = where.copy()
                where[rows[~keep]] = False
                cols.present[name] = where


def _to_lanes(cols: Columns, lanes: np.ndarray) -> None:
    """A first lane's reading on a row whose point is tagged with another lane, moved to that lane's column."""
    for name in [n for n in cols.values if n.endswith(FIRST_LANE) and n in OPTICS]:
        at = cols.present[name] & (lanes > 1)
        if not at.any():
            continue
        quantity = name[:-len(FIRST_LANE)]
        for n in np.unique(lanes[at]).tolist():
            to, rows = lane(quantity, n), at & (lanes == n)
            if to not in cols.values:
                cols.values[to] = np.zeros_like(cols.values[name])
                cols.present[to] = np.zeros(len(rows), dtype=bool)
            cols.values[to] = np.where(rows, cols.values[name], cols.values[to])
            cols.present[to] = cols.present[to] | rows
        cols.present[name] = cols.present[name] & ~at


def enumerated(values: np.ndarray, spelling: CounterName) -> np.ndarray:
    """`values` of an enumeration (or of a bitmask's one bit) as the vocabulary reads them (`CounterName.enum`,
    `CounterName.flag`)."""
    if spelling.flag:
        return ((np.nan_to_num(values).astype(np.int64) & spelling.flag) != 0).astype(np.float64)
    out = np.full(len(values), spelling.otherwise)
    for raw, value in spelling.enum:
        out[values == raw] = value
    return out


def scaled(values: np.ndarray, scale: int, per: int = 1) -> np.ndarray:
    """`values` in a unit `scale` times smaller (`per` times larger: a gauge's hundredths); integers stay
    integers while they fit, floats beyond and for a gauge's parts."""
    if per != 1:
        return values.astype(np.float64) * (scale / per)
    if scale == 1:
        return values
    if values.dtype.kind in "iu" and (not len(values) or int(values.max()) < (1 << 63) // scale):
        return values * values.dtype.type(scale)
    return values.astype(np.float64) * float(scale)


def _column(values: list[Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """One field of a series as InfluxDB's JSON gives it (None where a point lacks it, and bools or
    strings, which are not counters): its values and where they are; None if it has no number."""
    mask = np.fromiter((type(v) is int or type(v) is float for v in values), dtype=bool, count=len(values))
    if not mask.any():
        return None
    numbers: list[Any] = [v for v, m in zip(values, mask.tolist(), strict=True) if m]
    if all(type(v) is int for v in numbers):
        top, low = max(numbers), min(numbers)
        dtype: type = np.int64 if -INT63 <= low and top < INT63 else (np.uint64 if low >= 0 and top < 1 << 64
                                                                         else np.float64)
    else:
        dtype = np.float64
    col: np.ndarray = np.zeros(len(values), dtype=dtype)
    col[mask] = np.array(numbers, dtype=dtype)
    return col, mask


def columns_from_series(series: list[dict[str, object]], catalog: Catalog, report: ColumnsReport) -> Columns:
    """Columns of InfluxQL `SELECT * FROM "port_counters" ... GROUP BY *` answers (epoch=ns)."""
    parts: list[Columns] = []
    for s in series:
        tags = {k: v for k, v in (s.get("tags") or {}).items() if v}  # type: ignore[attr-defined]
        rows: list[list[object]] = s.get("values") or []  # type: ignore[assignment]
        ids = catalog.ids(OURS, tags)
        report.lines += len(rows)
        if ids is None or not rows:
            report.skipped += len(rows)
            continue
        names: list[str] = list(s["columns"])[1:]  # type: ignore[call-overload]
        n = len(rows)
        values: dict[str, np.ndarray] = {}
        present: dict[str, np.ndarray] = {}
        for j, name in enumerate(names, 1):
            got = _column([r[j] for r in rows])
            if got is not None:
                values[name], present[name] = got
        has_any = np.zeros(n, dtype=bool)
        for m in present.values():
            has_any |= m
        part = Columns(np.full(n, ids[0], dtype=np.int64), np.full(n, ids[1], dtype=np.int64),
                       np.array([int(r[0]) for r in rows], dtype=np.int64), values, present)  # type: ignore[call-overload]
        if not has_any.all():  # a point with no number at all is no sample (read_samples skips it too)
            part = part.take(has_any)
        report.skipped += n - len(part)
        parts.append(part)
    out = _canonical(concat(parts), report, catalog) if parts else _empty()  # another writer's spellings, as lines'
    report.samples += len(out)
    return out
