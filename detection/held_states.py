"""Port states and trained readings held between reports, for the columnar fold (`interval_fold.py`).

An exporter may send a port's state and what it trained to only when they change: each holds from its latest
report until reported otherwise, a trained reading only while its link ends its intervals up, and traffic
counted after a state was said, two intervals running, says the port is up. The scalar fold
(`models/intervals.py`, `IntervalAggregator._close`) applies the same rules one interval at a time; the
property test in `tests/unit/test_interval_fold.py` keeps both the same.
"""

from __future__ import annotations

import numpy as np

from fabricwatch.core.counters import PORT_STATES, TRAINED
from fabricwatch.detection.line_reader import Columns
from fabricwatch.models.intervals import BOUNCES, MOVED_RUN, TRAFFIC, UP_THROUGHOUT

_UNSAID = np.iinfo(np.int64).min  # a time before any sample: no state reported yet


class HeldStates:
    """Per link, carried from chunk to chunk: the held readings, when its state was last said, and its
    intervals in a row with traffic since."""

    def __init__(self) -> None:
        self._states: dict[str, np.ndarray] = {}  # per held reading: each link's last (NaN: none yet)
        self._said = np.zeros(0, dtype=np.int64)  # per link: when its port state was last reported (_UNSAID: not yet)
        self._run = np.zeros(0, dtype=np.int64)  # per link: its intervals in a row with traffic since then

    def names(self) -> set[str]:
        """The readings some link holds."""
        return set(self._states)

    def hold(self, means: np.ndarray, names: list[str], g_link: np.ndarray, emitted: np.ndarray,
                     moved_in: np.ndarray, said_in: np.ndarray, latest: dict[str, np.ndarray], n_links: int) -> None:
        """A state holds until reported otherwise: each emitted group (in link, then interval order) without a
        port state takes its link's last one, reported earlier in these rows or in an earlier chunk; traffic
        moving through the port in a group without a report is the port up (a report late to say so). What
        the link trained to holds the same way while it stays up, and is forgotten when it goes down."""
        rows = np.flatnonzero(emitted)
        if not len(rows):
            return
        links = g_link[rows]
        starts = np.ones(len(rows), dtype=bool)
        starts[1:] = links[1:] != links[:-1]
        first_of_link = np.maximum.accumulate(np.where(starts, np.arange(len(rows)), 0))
        last = np.ones(len(rows), dtype=bool)
        last[:-1] = starts[1:]
        column = {name: j for j, name in enumerate(names)}
        moving = self._moved_runs(moved_in[rows], said_in[rows], links, first_of_link, last, n_links) >= MOVED_RUN
        nothing = np.full(len(rows), np.nan)
        after: dict[str, np.ndarray] = {}  # per state, what holds after each group
        for name in PORT_STATES:
            if name not in column:
                continue
            held = self._last_values(name, n_links)
            mean = means[rows, column[name]]
            unreported = np.isnan(mean)
            source = latest[name][rows] if name in latest else nothing.copy()
            seeded = starts & unreported
            source[seeded] = held[links[seeded]]  # what the link said in an earlier chunk
            # once a link has said its state, a group of it without a report but with traffic says up
            known = self._filled(source, first_of_link)
            source = np.where(unreported & ~np.isnan(known) & moving, 1.0, source)
            after[name] = self._filled(source, first_of_link)
            means[rows, column[name]] = np.where(unreported, after[name], mean)
            known_now = last & ~np.isnan(after[name])
            held[links[known_now]] = after[name][known_now]
        oper = means[rows, column["oper_status"]] if "oper_status" in column else np.ones(len(rows))
        up = np.isnan(oper) | (oper >= UP_THROUGHOUT)
        for name in BOUNCES:
            if name in column:
                up &= ~(np.nan_to_num(means[rows, column[name]]) > 0)
        oper_after = after.get("oper_status", nothing)
        last_up = np.isnan(oper_after) | (oper_after >= UP_THROUGHOUT)
        for name in TRAINED:
            if name not in column:
                continue
            held = self._last_values(name, n_links)
            mean = means[rows, column[name]]
            unreported = np.isnan(mean)
            # a group whose link ends it down is a source of nothing: what came before is not held past it
            holds = np.where(last_up, latest[name][rows] if name in latest else nothing, np.nan)
            sources = ~unreported | ~last_up | starts
            first = starts & unreported & last_up
            holds[first] = held[links[first]]
            at = np.where(sources, np.arange(len(rows)), -1)
            np.maximum.accumulate(at, out=at)
            holds = holds[at]
            means[rows, column[name]] = np.where(unreported & up, holds, mean)
            held[links[last]] = holds[last]

    def _moved_runs(self, moved: np.ndarray, said: np.ndarray, links: np.ndarray, first_of_link: np.ndarray,
                    last: np.ndarray, n_links: int) -> np.ndarray:
        """Per emitted group (link, then interval order): its link's groups in a row, up to it, with traffic
        counted after its state was said (a group that says it starts a run), counting on from an earlier chunk."""
        if len(self._run) < n_links:
            self._run = np.concatenate([self._run, np.zeros(n_links - len(self._run), dtype=np.int64)])
        idx = np.arange(len(moved), dtype=np.float64)
        # where each run last started over: at a group without traffic, or just before one that said its state
        broke = np.where(~moved, idx, np.where(said, idx - 0.5, -np.inf))
        np.maximum.accumulate(broke, out=broke)
        within = broke >= first_of_link - 0.5
        since = np.where(within, broke, 0.0)
        runs = np.where(within, idx - since + 0.5 * (since % 1 != 0),
                        idx - first_of_link + 1 + self._run[links]).astype(np.int64)
        self._run[links[last]] = runs[last]
        return runs

    def first(self, rows: Columns, at: np.ndarray, L: np.ndarray, n_links: int) -> None:
        """The states and trained readings of each link's first sample (rows `at`: no rates yet) hold from it."""
        if not len(at):
            return
        up = np.ones(len(at), dtype=bool)
        for k in PORT_STATES:
            if k in rows.present:
                said = rows.present[k][at]
                value = rows.values[k][at].astype(np.float64)
                self._last_values(k, n_links)[L[at[said]]] = value[said]
                if k == "oper_status":
                    up = ~said | (value >= UP_THROUGHOUT)
        for k in TRAINED:
            if k in rows.present:
                value = rows.values[k][at].astype(np.float64)
                said = rows.present[k][at] & (value > 0) & up
                self._last_values(k, n_links)[L[at[said]]] = value[said]

    def moved_since_said(self, rows: Columns, rates: dict[str, np.ndarray], spans: dict[str, np.ndarray],
                          L: np.ndarray, T: np.ndarray, n_links: int) -> tuple[np.ndarray, np.ndarray]:
        """Per row (in link, then time order): traffic counted after its link's port state was last reported,
        and whether the row reports the state."""
        n = len(T)
        if len(self._said) < n_links:
            self._said = np.concatenate([self._said, np.full(n_links - len(self._said), _UNSAID, dtype=np.int64)])
        said_here = np.zeros(n, dtype=bool)
        for k in PORT_STATES:
            if k in rows.present:
                said_here |= rows.present[k]
        starts = np.ones(n, dtype=bool)
        starts[1:] = L[1:] != L[:-1]
        source = np.where(said_here | ~starts, T, self._said[L])
        at = np.where(said_here | starts, np.arange(n), -1)
        np.maximum.accumulate(at, out=at)
        said = source[at]
        moved = np.zeros(n, dtype=bool)
        for name in TRAFFIC:
            if name in rates:
                moved |= (np.nan_to_num(rates[name]) > 0) & (T - spans[name] >= said)
        last = np.ones(n, dtype=bool)
        last[:-1] = starts[1:]
        self._said[L[last]] = said[last]
        return moved, said_here

    def _last_values(self, name: str, n_links: int) -> np.ndarray:
        """Per link, the last value of a held reading (NaN: none), grown to `n_links`."""
        held = self._states.get(name)
        if held is None or len(held) < n_links:
            grown_held = np.full(n_links, np.nan)
            if held is not None:
                grown_held[:len(held)] = held
            held = self._states[name] = grown_held
        return held

    @staticmethod
    def _filled(values: np.ndarray, first_of_link: np.ndarray) -> np.ndarray:
        """`values` with each NaN taken from the last value before it of the same link (rows in link order)."""
        at = np.where(np.isnan(values), -1, np.arange(len(values)))
        np.maximum.accumulate(at, out=at)
        fill = np.isnan(values) & (at >= first_of_link)
        out = values.copy()
        out[fill] = values[at[fill]]
        return out
