"""Degraded-link detection: the estimators of models/ fitted on healthy history, turned into findings
with hysteresis, rules, groups and an explanation each.

The per-interval decision (`detect`) reads every principle in one pass over array state, so that a
100k-link interval costs a few vector operations; it is long for that reason. The decisions it reads
live beside it, one idea each (conditions, crowds, maintenance, ecn_missing, stalls)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fabricwatch.core.counters import EVIDENCE, Evidence
from fabricwatch.core.hits import RuleHit, worst
from fabricwatch.detection import left_shut, lone_drops, retrained, slow_flap, spread_withdrawn
from fabricwatch.detection.conditions import (
    CROWD_REPEATS,
    DISCARD_COLUMNS,
    OUTLIER_CRITICAL,
    OUTLIER_MIN_UTIL,
    PAUSE_HOLD_BITS,
    PAUSED_SHARE,
    _drops_within_load,
    _evidence_hit,
    dropping_now,
    on_many_switches,
)
from fabricwatch.detection.crowds import SETTLE_INTERVALS, FarBounces, _crowd, _device_events
from fabricwatch.detection.down_cables import DownCables
from fabricwatch.detection.down_unheard import DownUnheard
from fabricwatch.detection.drops_alike import drops_alike
from fabricwatch.detection.ecn_excess import MarkingWatch
from fabricwatch.detection.ecn_missing import STATE as HELD_SILENCE_STATE
from fabricwatch.detection.ecn_missing import held_silence, missing_marks
from fabricwatch.detection.explain import (
    DISCARDS,
    ECN,
    FLAPS,
    GROUP_MARGIN,
    LINK_RECOVERY,
    PFC_RX,
    PFC_TX,
    Siblings,
    _packets,
    explain,
)
from fabricwatch.detection.findings import (
    Finding,
    Hysteresis,
    _device_findings,
    _devices_counting,
    _hot_switches,
    _one_per_cable,
    _peer,
    _warming_switches,
)
from fabricwatch.detection.ignored_notifications import ignoring_notifications
from fabricwatch.detection.maintenance import (
    Cables,
    Restarts,
    UpRecord,
    drained_links,
    idle_not_its_own,
    links_left_down,
    operated_links,
)
from fabricwatch.detection.model_file import ModelError, read_model, write_model
from fabricwatch.detection.optics import OpticsWatch
from fabricwatch.detection.path_witness import PathWitness
from fabricwatch.detection.retrained import TrainedFit, retrained_lower
from fabricwatch.detection.rules import RuleConfig, evaluate, full_evidence, shared_pausing, speed_degraded_rows
from fabricwatch.detection.stalls import StallWatch, fold_stalls
from fabricwatch.detection.under_repair import mark_physical, repairing
from fabricwatch.models.background import (
    EVIDENCE_NAMES,
    RECENT,
    BackgroundFit,
    BackgroundRates,
    EvidenceWindows,
    Verdict,
)
from fabricwatch.models.class_model import (
    MIN_CLASS_ROWS,
    RATE_GRID,
    SAMPLE_ROWS,
    TRAIN_NOISE,
    UTIL,
    ClassModel,
    ClassSample,
    LinkPeaks,
    Tail,
    _ceilings,
    budget_rate,
    tail_thresholds,
)
from fabricwatch.models.drop_shares import DropShares
from fabricwatch.models.features import (
    FEATURE_NAMES,
    N_OWN,
    OWN_NAMES,
    UNITS,
    FeatureFrame,
    LinkState,
    evidence_counts,
    situations,
)
from fabricwatch.models.groups import (
    G_INDEX,
    GROUPED,
    OUTLIER_K,
    OUTLIER_N,
    OUTLIER_RATIO,
    PAUSES_RECEIVED,
    GroupView,
    SiblingFit,
    SiblingRatios,
    group_view,
    paced_by_host,
    parallel_down,
)
from fabricwatch.models.intervals import LinkInterval
from fabricwatch.models.silence import (
    MIN_RUN,
    SIGNALS,
    UNSEEN_GRACE,
    SilenceFit,
    SilentRuns,
    beyond_calm,
    describe,
    silent_now,
    step,
    witnessed_queues,
)
from fabricwatch.models.trends import TrendWatch

_STATE_COLUMNS = np.array([EVIDENCE[n] is Evidence.STATE for n in EVIDENCE_NAMES])
BATCH_ROWS = 50_000  # link-intervals scored in one forest call: past this, a larger call saves nothing and holds memory
SATURATED_HOLD = 4  # intervals a counter that filled up stays a finding by that alone (as a bounce settles)
TRICKLE_SHARE = 0.5  # of its healthy intervals a link counted a counter in: its steady trickle fills it in time


class LinkDetector:
    def __init__(self, *, interval_s: float = 30.0, false_alarm_rate: float = 1e-4,
                 false_alarms_per_day: float | None = None,
                 n_estimators: int = 100, hysteresis: Hysteresis | None = None,
                 rules: RuleConfig | None = None, seed: int = 7) -> None:
        self.interval_s = interval_s
        self.false_alarm_rate = false_alarm_rate
        self.false_alarms_per_day = false_alarms_per_day
        self.n_estimators = n_estimators
        self.hysteresis = hysteresis or Hysteresis()
        self.rules = rules or RuleConfig()
        self.seed = seed
        self.models: dict[str, ClassModel] = {}
        self.training: dict[str, Any] = {}
        # False scores by the expectation alone (peer and load-matched limits), no forest: what the
        # benches compare to show what the forest adds
        self.use_forest = True
        self.optics = OpticsWatch()
        # every error, discard and integrity counter against its background (a default one until fitted)
        self.background = BackgroundRates()
        # each link's usual ratio to the links sharing its situation (none until fitted)
        self.sibling_ratios = SiblingRatios()
        # each link's longest healthy run without marks or pauses its peers show (none until fitted)
        self.silent_runs = SilentRuns()
        # fitted: the links down in every interval of the healthy history (ports never cabled)
        self.never_up: set[tuple[str, str]] = set()
        # fitted: the most each link trained to (speed, width) while up in the healthy history
        self.trained: dict[tuple[str, str], tuple[float, ...]] = {}
        self.spread_carried: dict[tuple[str, str], tuple[bool, bool]] = {}  # directions a link carried its share in
        self.trend_baselines = TrendWatch()  # fitted: each module's slow signals as the healthy history read them
        # conditions whose rules are switched off: what the generic layer finds without them (ablation)
        self.switched_off: frozenset[str] = frozenset()
        self.reset()

    # -- training ----------------------------------------------------------------------
    def fit(self, frames: Iterable[FeatureFrame] | Callable[[], Iterable[FeatureFrame]],
            progress: Callable[[str, int, int], None] | None = None, *,
            sample_rows: int = SAMPLE_ROWS) -> LinkDetector:
        """Fit one forest per class on healthy intervals; the threshold is the score that
        held-out intervals (the last 20 % in time) exceed at the false-alarm budget.

        `frames`: the intervals, or a function that reads them afresh in time order (called three times:
        the fit, then the held-out part for the thresholds, then for the expected pages), so that memory
        follows the links and `sample_rows`, not the history: each class's forest and ceilings learn from a
        uniform sample of at most `sample_rows` link-intervals (all of them below that), the background
        rates and link ceilings from sums and peaks per link, and the thresholds from every held-out row."""
        if callable(frames):
            again = frames
        else:
            ordered = sorted(frames, key=lambda f: f.start_ns)

            def again() -> Iterable[FeatureFrame]:
                return ordered

        index: dict[tuple[str, str], int] = {}
        samples: dict[str, ClassSample] = {}
        peaks: dict[str, LinkPeaks] = {}
        tails_dropped: dict[str, DropShares] = {}
        background, siblings, silence, ups = BackgroundFit(), SiblingFit(seed=self.seed), SilenceFit(), UpRecord()
        trained, spread = TrainedFit(), spread_withdrawn.SpreadFit()
        trends = TrendWatch()  # the modules' baselines, learned from the healthy history
        n_frames, first_ns, last_ns = 0, None, None
        for frame in again():
            ids = self._link_ids(frame, index)
            trends.observe(frame.links)
            counts = evidence_counts(frame, EVIDENCE_NAMES, self.interval_s)
            packets = (np.nan_to_num(frame.reading("in_pkts"))
                       + np.nan_to_num(frame.reading("out_pkts"))) * self.interval_s
            background.add(ids, frame.classes, counts, packets)
            where = situations(frame.layout)
            siblings.add(frame, ids)
            silence.add(frame, ids)
            ups.add(frame, ids)
            trained.add(frame, ids)
            spread.add(frame, ids)
            cls = np.array(frame.classes)
            for c in sorted(set(frame.classes)):
                rows = np.nonzero(cls == c)[0]
                if c not in samples:
                    samples[c], peaks[c] = ClassSample(sample_rows, self.seed), LinkPeaks()
                    tails_dropped[c] = DropShares(EVIDENCE_NAMES)
                samples[c].add(frame.start_ns, ids[rows], frame.X[rows], frame.own_raw[rows])
                peaks[c].add(ids[rows], frame.own_raw[rows])
                tails_dropped[c].add(ids[rows], where[rows], counts[rows], packets[rows], frame.own_raw[rows, UTIL])
            n_frames += 1
            first_ns = frame.start_ns if first_ns is None else min(first_ns, frame.start_ns)
            last_ns = frame.start_ns if last_ns is None else max(last_ns, frame.start_ns)
        keys = list(index)
        n_links = len(keys)
        self.background = background.result(keys, self.interval_s)
        self.sibling_ratios = siblings.result(keys)
        self.silent_runs = silence.result(keys)
        self.never_up = ups.result(keys)
        self.trained = trained.result(keys)
        self.spread_carried = spread.result(keys)
        self.trend_baselines = trends.baselines()
        del background, siblings, silence, trends
        if self.false_alarms_per_day is not None:
            self.false_alarm_rate = budget_rate(self.false_alarms_per_day, n_links, self.interval_s)
        # (device, port) order of every link: rows sort in time, then by link
        rank = np.empty(n_links, dtype=np.int64)
        rank[sorted(range(n_links), key=keys.__getitem__)] = np.arange(n_links)
        self.models.clear()
        cuts: dict[str, tuple[int, int]] = {}
        rates = (self.false_alarm_rate, *RATE_GRID)
        tails: dict[str, Tail] = {}
        from sklearn.ensemble import IsolationForest

        for c in sorted(samples):
            sample = samples.pop(c)
            if sample.seen < MIN_CLASS_ROWS:
                continue
            start, ids, X, own = sample.rows()
            # in time, then by link: the same history gives the same model however it was read
            order = np.lexsort((rank[ids], start))
            cut = int(len(order) * 0.8)
            # the held-out part: every row from the cut on (in time, then by link), scored below
            cuts[c] = (int(start[order[cut]]), int(rank[ids[order[cut]]]))
            train = X[order[:cut]]
            # a feature that never moved in healthy data (errors, say) would give the forest
            # nothing to split on, and a link whose errors jump would look normal: a little
            # noise gives every feature a range, so values beyond it are isolated at once
            rng = np.random.default_rng(self.seed)
            train = train + rng.normal(0.0, TRAIN_NOISE, train.shape)
            forest = IsolationForest(n_estimators=self.n_estimators, random_state=self.seed, n_jobs=1)
            forest.fit(train)
            self.models[c] = ClassModel(forest, 0.0, len(train), 0, None, _ceilings(own),
                                        peaks.pop(c).result(keys), [], tails_dropped.pop(c).result())
            tails[c] = Tail(int(sample.seen * max(rates)) + 2, 1 + N_OWN)
            del sample, start, ids, X, own, train
        if not self.models:
            raise ModelError(f"no port class had {MIN_CLASS_ROWS} healthy intervals to learn from")
        self._score_held_out(again(), index, rank, cuts, tails)
        for n, (c, m) in enumerate(sorted(self.models.items())):
            tail = tails[c]
            m.holdout_rows = tail.n
            m.threshold, m.peer_limits = tail_thresholds(tail, self.false_alarm_rate)
            m.by_rate = [(r, *tail_thresholds(tail, r)) for r in RATE_GRID]
            if progress:
                progress(c, n + 1, len(self.models))
        assert first_ns is not None and last_ns is not None
        hold_from = int(n_frames * 0.8)
        self.training = {"from_ns": first_ns, "to_ns": last_ns + int(self.interval_s * 1e9),
                         "intervals": n_frames, "links": n_links,
                         "expected": self._expected_pages(itertools.islice(again(), hold_from, None), n_links)}
        return self

    @staticmethod
    def _link_ids(frame: FeatureFrame, index: dict[tuple[str, str], int]) -> np.ndarray:
        """Each row's link id in `index` (a new link gets the next one)."""
        return np.fromiter((index.setdefault((li.device, li.port), len(index)) for li in frame.links),
                           dtype=np.int64, count=len(frame.links))

    def _score_held_out(self, frames: Iterable[FeatureFrame], index: dict[tuple[str, str], int],
                        rank: np.ndarray, cuts: dict[str, tuple[int, int]], tails: dict[str, Tail]) -> None:
        """Every held-out row of each class (from its cut on) scored by its forest, into its Tail:
        (forest score, |deviation from peers| of each own feature)."""
        pending: dict[str, list[np.ndarray]] = {}
        sizes: dict[str, int] = {}

        def flush(c: str) -> None:
            X = np.vstack(pending.pop(c))
            sizes.pop(c, None)
            tails[c].add(np.column_stack([-self.models[c].forest.score_samples(X), np.abs(X[:, N_OWN:2 * N_OWN])]))

        first_cut = min(s for s, _ in cuts.values())
        for frame in frames:
            if frame.start_ns < first_cut:
                continue
            ids = self._link_ids(frame, index)
            cls = np.array(frame.classes)
            for c in sorted(set(frame.classes) & set(cuts)):
                at, by = cuts[c]
                if frame.start_ns < at:
                    continue
                held = cls == c
                if frame.start_ns == at:
                    held &= rank[ids] >= by
                if held.any():
                    pending.setdefault(c, []).append(frame.X[held])
                    sizes[c] = sizes.get(c, 0) + int(held.sum())
                    if sizes[c] >= 65_536:
                        flush(c)
        for c in list(pending):
            flush(c)

    def _expected_pages(self, hold_frames: Iterable[FeatureFrame], n_links: int) -> dict[str, float]:
        """Finding events (a link raised after 3 clean intervals) the fitted detector raises on the
        held-out last 20 % of the healthy history (`hold_frames`, in time order), per day: what the
        on-call engineer should expect."""
        self.reset()
        last_seen: dict[tuple[str, str], int] = {}
        events = 0
        n_hold = 0
        for n, frame in enumerate(hold_frames):
            n_hold += 1
            for f in self.detect(frame):
                key = (f.device, f.port)
                if n - last_seen.get(key, -10) > 3:
                    events += 1
                last_seen[key] = n
        self.reset()
        days = max(n_hold, 1) * self.interval_s / 86400.0
        return {"holdout_intervals": n_hold, "events": events, "pages_per_day": events / days,
                "pages_per_day_per_10k_links": events / days * 10_000 / max(n_links, 1),
                "upper_per_day": max(events, 3) / days}  # rule of three: 0 in n days, < 3/n at 95 %

    def apply_budget(self, per_day: float) -> float:
        """Re-derive every class's thresholds from its held-out grid for a fabric-wide budget of false
        alarms per day; returns the share of link-intervals that means. Models without a grid keep theirs."""
        links = int(self.training.get("links") or 0)
        rate = budget_rate(per_day, links, self.interval_s)
        for m in self.models.values():
            stricter = [g for g in m.by_rate if g[0] <= rate]
            if stricter:
                _, m.threshold, m.peer_limits = max(stricter, key=lambda g: g[0])
        self.false_alarm_rate = rate
        self.false_alarms_per_day = per_day
        return rate

    def _evidence(self, frame: FeatureFrame, rows: np.ndarray, counts: np.ndarray, bounced: np.ndarray,
                  settling: np.ndarray) -> dict[int, list[Verdict]]:
        """Per row, the evidence counters standing above the link's background (`counts`: the interval's,
        changed here). A link that just bounced counts its bounce and nothing else (errors while it trains
        are the bounce's); a device's reboot or maintenance counts nothing at all."""
        counts[np.ix_(bounced, ~_STATE_COLUMNS)] = 0.0
        counts[settling] = 0.0
        counted = np.asarray(counts.any(axis=1), dtype=bool)
        on = self._state["evidence"]
        out: dict[int, list[Verdict]] = {}
        for i in np.nonzero(counted | on[rows])[0].tolist():
            li = frame.links[i]
            key = (li.device, li.port)
            pkts = _packets(li) * self.interval_s
            win = self._windows.push(key, counts[i] if counted[i] else None, pkts, float(frame.own_raw[i, UTIL]))
            on[rows[i]] = win is not None
            if win is None:
                continue
            # a fault that ended is judged by the time since its counts stopped, not by how many reports ago
            recent = max(1, round(RECENT / self._restarts.cadence(li.device)))
            verdicts = self.background.score(win[0], win[1], self.background.background(key, frame.classes[i]),
                                             self.interval_s, recent)
            if verdicts:
                out[i] = verdicts
        return out

    def _gone_quiet(self, frame: FeatureFrame, rows: np.ndarray, settling: np.ndarray,
                    judged: np.ndarray, silent: np.ndarray) -> dict[int, RuleHit]:
        """Links silent on a protective signal (ECN marks, pauses) their load-matched peers show, for more
        intervals in a row than their healthy record (models/silence.py); `judged`, `silent` without calm
        intervals (`beyond_calm`). A bounce or an operator's act starts the count afresh."""
        st = self._state
        # absence is evidence only while it is seen: a run held through intervals that cannot judge it
        # (the peers fell silent too) pages for a couple of them, and is forgotten after MIN_RUN
        unjudged = np.where(judged, 0, st["unjudged"][rows] + 1)
        st["unjudged"][rows] = unjudged
        run = np.where(settling[:, None] | (unjudged > MIN_RUN), 0, step(st["quiet"][rows], judged, silent))
        st["quiet"][rows] = run
        run = np.where(unjudged > UNSEEN_GRACE, 0, run)
        maybe = np.nonzero((run >= MIN_RUN).any(axis=1))[0]
        if not len(maybe):
            return {}
        links = frame.links
        limits = self.silent_runs.limits([(links[i].device, links[i].port) for i in maybe.tolist()])
        # a queue ECN does not mark fills to the pause threshold: a switch pausing far less than its role's
        # others carries traffic that fills no queue now (one not pausing at all and dropping has PFC off too)
        out = {}
        for i, limit in zip(maybe.tolist(), limits, strict=True):
            over = np.nonzero(run[i] >= limit)[0]
            if not len(over):
                continue
            j = int(over[np.argmax(run[i, over] / limit[over])])
            n = int(run[i, j])
            out[i] = RuleHit("critical" if n >= 2 * limit[j] else "warning",
                             describe(SIGNALS[j], n, float(limit[j]),
                                      float(frame.class_median_raw[i, OWN_NAMES.index(SIGNALS[j])]), self.interval_s),
                             "gone_quiet")
        return out

    def _beyond_usual(self, frame: FeatureFrame, rows: np.ndarray, view: GroupView) -> np.ndarray:
        """log10 of each link's grouped signals per unit of load over its group's median now, less its
        usual ratio to that group (NaN: no group)."""
        usual = self._state.seeded("usual", rows, frame.layout.keys, lambda key: self.sibling_ratios.usual([key])[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log10(view.ratio) - usual

    def _standing_out(self, frame: FeatureFrame, rows: np.ndarray, quiet: np.ndarray, view: GroupView,
                      lr: np.ndarray) -> dict[int, RuleHit]:
        """Links whose credit waits (or, on a host link, pauses received) per unit of load stand OUTLIER_RATIO
        times over the median of the links sharing their situation now, beyond their usual ratio to them,
        in OUTLIER_K of the last OUTLIER_N intervals: the link, not the load everyone shares."""
        own = np.nan_to_num(frame.own_raw[:, G_INDEX])
        # material: above what its class shows at this moment, not a ratio of two near-zeros
        material = own > 2 * np.nan_to_num(frame.class_median_raw[:, G_INDEX])
        material &= (np.nan_to_num(frame.own_raw[:, UTIL]) >= OUTLIER_MIN_UTIL)[:, None]  # and it carries traffic
        # and pauses that could hold it a share of the time that matters (severity from impact)
        material[:, PAUSES_RECEIVED] &= own[:, PAUSES_RECEIVED] * PAUSE_HOLD_BITS >= (
            PAUSED_SHARE * frame.line_bps)[:, None]
        # beyond OUTLIER_RATIO and beyond what healthy links of its class reach now and then
        floor = frame.layout.memo(f"outlier_floor:{self.sibling_ratios.fit_id}", lambda: np.maximum(
            math.log10(OUTLIER_RATIO), self.sibling_ratios.tails(frame.classes)))
        # a link whose standing healthy history never showed (a counter stuck at its ceiling, a new cable) may
        # stand out by habit: only far out of its group is it the link
        unknown = frame.layout.memo(f"standing_unknown:{self.sibling_ratios.fit_id}",
                                    lambda: ~self.sibling_ratios.known(frame.layout.keys))
        floor = np.where(unknown, np.maximum(floor, math.log10(OUTLIER_CRITICAL)), floor)
        st = self._state
        # and, for as many intervals in a row as two healthy links of its class stood out, beyond how far they
        # held then (adaptive routing's hot spots hold a few intervals); held longer than that, it is the link
        ratio_now = np.nan_to_num(lr, nan=-np.inf)
        out_now = (ratio_now >= floor) & material & ~quiet[:, None]
        run = np.where(out_now, st["standing_run"][rows] + 1, 0)
        st["standing_run"][rows] = run
        held_as, held_for = frame.layout.memo(f"outlier_held:{self.sibling_ratios.fit_id}", lambda: (
            self.sibling_ratios.held(frame.classes), self.sibling_ratios.held_for(frame.classes)))
        floor = np.where(run <= held_for + OUTLIER_N - OUTLIER_K, np.maximum(floor, held_as), floor)
        strong = (ratio_now >= floor) & material & ~quiet[:, None]
        mask = np.uint8((1 << OUTLIER_N) - 1)
        bits = ((st["outlier"][rows] << 1) | strong.astype(np.uint8)) & mask
        st["outlier"][rows] = bits
        held = (np.bitwise_count(bits) >= OUTLIER_K) & strong
        # the crowd over the same window: links of the role that stood out on many switches, each more than once
        # within it, share a load (an incast's flows shifting between uplinks) though few hold at any one moment;
        # one interval's spikes are heavy tails, which a large fabric shows somewhere every interval. Standing out
        # is the group rule's own floor here: a crowd is what stands out, whether or not each of its links is paged
        any_bits = ((st["outlier_any"][rows] << 1) | out_now.astype(np.uint8)) & mask
        st["outlier_any"][rows] = any_bits
        held &= ~on_many_switches(frame, np.bitwise_count(any_bits) >= CROWD_REPEATS)
        out = {}
        util = np.nan_to_num(frame.own_raw[:, UTIL])
        for i, j in zip(*np.nonzero(held), strict=True):
            i, j = int(i), int(j)
            if i in out:
                continue
            name = GROUPED[j]
            ratio = float(view.ratio[i, j])
            unit = UNITS[name]
            out[i] = RuleHit("critical" if ratio >= OUTLIER_CRITICAL else "warning",
                             f"{name} {own[i, j]:,.3g}{unit} at {util[i]:.0f}% load, {ratio:,.0f}x per unit of load "
                             f"the median of the {view.size[i, j]} {view.group[i, j]} it shares its situation with "
                             f"({view.median[i, j]:,.3g}{unit}), in {int(np.bitwise_count(bits[i, j]))} of the last "
                             f"{OUTLIER_N} intervals: this link, not the load they share", "outlier_in_group")
        return out

    def reset(self) -> None:
        """Forget every link's hysteresis state (a new fabric or a new replay)."""
        self.optics = OpticsWatch(self.optics.cfg)
        # per link: the last raise_n over/under bits, clean intervals in a row, finding active
        self._state = LinkState(bits=((), np.uint16), clean=((), np.int32), active=((), np.bool_),
                                flaps=((self.rules.flap_window,), np.float32), settle=((), np.int8),
                                bounce=((), np.int8), evidence=((), np.bool_), down=((), np.int32),
                                outlier=((len(GROUPED),), np.uint8), over_group=((len(GROUPED),), np.uint8),
                                standing_run=((len(GROUPED),), np.int32), outlier_any=((len(GROUPED),), np.uint8),
                                saturated_for=((), np.int32), under_speed=((), np.bool_),
                                heard=((), np.bool_), seen_ns=((), np.int64),
                                admin_was=((), np.int8), admin_before=((), np.int8), admin_at_restart=((), np.int8),
                                said_oper=((), np.int8),
                                operated=((), np.int8),
                                quiet=((len(SIGNALS),), np.int32), unjudged=((len(SIGNALS),), np.int32),
                                from_restart=((), np.bool_), been_up=((), np.bool_), util_before=((2,), np.float32),
                                shut_ns=((), np.int64), shut_from_ns=((), np.int64), shut_said=((), np.bool_),
                                down_ns=((), np.int64), down_from_ns=((), np.int64),
                                quiet_for=((), np.int32), quiet_before=((), np.int32),
                                util_hist=((3,), np.float32), in_window=((), np.bool_), drain_held=((), np.bool_),
                                window_flaps=((), np.float32), physical_ns=((), np.int64), back_ns=((), np.int64),
                                # what the fit learned of each link, taken into its row when it first shows
                                up_in_training=((), np.bool_), up_in_training_seeded=((), np.bool_),
                                usual=((len(GROUPED),), np.float32), usual_seeded=((), np.bool_),
                                **retrained.STATE, **spread_withdrawn.STATE, **HELD_SILENCE_STATE, **left_shut.STATE,
                                **slow_flap.STATE, **lone_drops.STATE)
        self._windows = EvidenceWindows()
        self._paths = PathWitness()
        self._down_cables = DownCables()
        self._down_unheard = DownUnheard()
        self.trends = self.trend_baselines.baselines()
        self._restarts = Restarts()
        self._far_bounces = FarBounces()
        self._idle_switches: dict[str, bool] = {}  # per switch: it carried (nearly) nothing when last heard
        self.stalls = StallWatch()
        self.marking = MarkingWatch()

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        """Forget these links' hysteresis state (their target was removed)."""
        keys = list(keys)
        self._state.forget(keys)
        self.optics.forget(keys)
        self._windows.forget(keys)
        self.trends.forget(keys)
        self._restarts.forget({d for d, _ in keys})
        self._far_bounces.forget(keys)
        self._down_unheard.forget(keys)

    # -- scoring -----------------------------------------------------------------------
    def score(self, frame: FeatureFrame) -> np.ndarray:
        """Anomaly score per row, relative to the class's thresholds (> 1 = over the budget);
        NaN for classes without a model."""
        return self.score_many([frame])[0]

    def score_many(self, frames: Sequence[FeatureFrame]) -> list[np.ndarray]:
        """`score` of several frames with one forest call per class: scikit-learn walks its trees in
        Python, so a call costs ~15 ms however few rows it has; a replay scores many intervals at once.
        Each row's score is the same as alone (the forest scores rows independently)."""
        cls = np.array([c for f in frames for c in f.classes])
        X_all = np.vstack([f.X for f in frames]) if frames else np.zeros((0, len(FEATURE_NAMES)))
        scores = np.full(len(cls), np.nan)
        for c, m in self.models.items():
            rows = np.nonzero(cls == c)[0]
            if len(rows):
                X = X_all[rows]
                forest = -m.forest.score_samples(X) if self.use_forest else np.zeros(len(rows))
                scores[rows] = m.combined(forest, X)
        bounds = np.cumsum([0, *(len(f.links) for f in frames)])
        return [scores[a:b] for a, b in itertools.pairwise(bounds)]

    def detect_many(self, frames: Iterable[FeatureFrame], *, batch: int = 64,
                    batch_rows: int = BATCH_ROWS) -> Iterator[list[Finding]]:
        """`detect` of each frame in order, scored up to `batch` frames and `batch_rows` link-intervals
        at a time (at least one frame): the same findings, and memory bounded on a fabric of any size."""
        chunk: list[FeatureFrame] = []
        rows = 0
        for frame in frames:
            chunk.append(frame)
            rows += len(frame.links)
            if len(chunk) >= batch or rows >= batch_rows:
                yield from self._detect_scored(chunk)
                chunk, rows = [], 0
        yield from self._detect_scored(chunk)

    def _detect_scored(self, chunk: list[FeatureFrame]) -> Iterator[list[Finding]]:
        if chunk:
            for frame, scores in zip(chunk, self.score_many(chunk), strict=True):
                yield self.detect(frame, scores=scores)

    def _burst_filled(self, li: LinkInterval, link_class: str) -> list[str]:
        """The link's evidence counters at their ceiling that it did not count in most healthy intervals."""
        full = full_evidence(li)
        if not full:
            return full
        usual = self.background.background((li.device, li.port), link_class).p
        return [name for name in full if usual[EVIDENCE_NAMES.index(name)] < TRICKLE_SHARE]

    def detect(self, frame: FeatureFrame, *, scores: np.ndarray | None = None) -> list[Finding]:
        """Score an interval (unless `scores` holds its `score`), apply hysteresis and rules; one
        finding per active link. Hysteresis state is kept in arrays, so a 100k-link fabric costs a
        few vector ops and Python work only for the links that are flagged or that a rule may concern."""
        h = self.hysteresis
        links = frame.links
        n = len(links)
        if scores is None:
            scores = self.score(frame)
        st = self._state
        rows = st.rows(links, frame.layout)
        judged_quiet, silent = silent_now(frame)
        ecn_missing = missing_marks(frame, judged_quiet, silent, self.silent_runs, st, rows)
        if "ecn_missing" in self.switched_off:
            ecn_missing[:] = False
        has_model = np.array([c in self.models for c in frame.classes], dtype=bool)
        own = frame.own_raw
        downed = frame.rate("link_downed") > 0
        bounced = (np.nan_to_num(own[:, FLAPS]) > 0) | downed
        # a device's links do not all bounce in the same interval (a host's firmware update takes its
        # NICs down one after another): links that bounced within the settle window count together
        recent = np.where(bounced, SETTLE_INTERVALS, np.maximum(st["bounce"][rows] - 1, 0))
        st["bounce"][rows] = recent
        if bounced.any():
            device_event, forming = _device_events(links, recent > 0)
        else:
            device_event = forming = np.zeros(n, dtype=bool)
        # and a far device's links heard at other moments bouncing together over a few intervals
        together, waiting = self._far_bounces.observe(frame, bounced)
        device_event, forming = device_event | together, forming | waiting
        # a link of a device that just rebooted settles for a few intervals (link training errors,
        # traffic coming back): what it shows then is the reboot, not the link
        # so does one back from being unreachable (a restart whose bounces nobody saw: its counters start over)
        back = self._restarts.returned(frame)
        settle = np.where(device_event | back, SETTLE_INTERVALS, np.maximum(st["settle"][rows] - 1, 0))
        st["settle"][rows] = settle
        over_score = has_model & (np.nan_to_num(scores) > 1.0) & (settle == 0)
        # idle because an operator shut its cable or its far switch is down: that act or that switch's event
        idle = np.nonzero(over_score & (np.nan_to_num(own[:, UTIL]) < 1.0))[0]
        cables = Cables(frame, st, self._restarts)  # built once, when a decision below first needs it
        down_now = np.nonzero(np.nan_to_num(frame.reading("oper_status"), nan=1.0) < 0.5)[0].tolist()
        far_rows: list[int | None] = [None] * n
        far_up = np.zeros(n, dtype=bool)
        for i in down_now:
            far_rows[i] = cables.far_link(i)
            far_up[i] = cables.far_said(i)[0] >= 0.5
        fixing = repairing(frame, rows, st, far_rows, far_up)
        over_score[idle[idle_not_its_own(frame, idle, self._restarts.heard, cables,
                                         self._idle_switches, fixing)]] = False
        # no marks on one job's hosts across every rail is that job's traffic (a steady stream marks
        # nothing), not a switch with ECN off: a switch's ports reach as many hosts as it has ports
        # (NICs reaching one switch that exports no ECN counter witness that switch: their crowd is its marking)
        if ecn_missing.any():
            witnesses = witnessed_queues(frame) != np.arange(n)
            ecn_missing &= ~(_crowd(frame, ecn_missing, far_end_only=True) & ~witnesses)
        # judged as a silent run is: an interval whose switch is calm judges no silence (models/silence.py)
        seen, seen_silent = beyond_calm(frame, judged_quiet, silent)
        held_quiet = held_silence(frame, st, rows, ecn_missing, seen[:, 0], st["active"][rows])
        ecn_missing |= held_quiet
        over = (over_score & ~_crowd(frame, over_score)) | ecn_missing
        bits = ((st["bits"][rows] << 1) | over.astype(np.uint16)) & np.uint16((1 << h.raise_n) - 1)
        st["bits"][rows] = bits
        clean = np.where(over, 0, st["clean"][rows] + 1)
        st["clean"][rows] = clean
        active = st["active"][rows]
        active = (active | (over & (np.bitwise_count(bits) >= h.raise_k))) & ~(active & (clean >= h.clear_m))
        st["active"][rows] = active
        # raised earlier, a link has nothing of its own to say while its device settles or while it is idle by
        # another's act (its far switch down, its cable shut): hysteresis holds it, no model finding now
        excused = active & (settle > 0) & ~ecn_missing
        held_idle = np.nonzero(active & ~excused & (np.nan_to_num(own[:, UTIL]) < 1.0))[0]
        excused[held_idle[idle_not_its_own(frame, held_idle, self._restarts.heard, cables,
                                              self._idle_switches, fixing)]] = True
        # transitions over the last few intervals: a link that keeps flapping, not one that bounced once
        # over the last minutes, not the link's last samples: an exporter that sends on change says nothing of a
        # link back up and idle, and the intervals it was not heard in age its transitions as any others
        flap_hist = np.concatenate([_aged(st["flaps"][rows], frame.start_ns - st["seen_ns"][rows], self.interval_s),
                                    np.nan_to_num(own[:, FLAPS:FLAPS + 1])], axis=1)
        flap_hist[settle > 0] = 0.0  # a device's reboot is not its links flapping
        operated = operated_links(frame, rows, st, self.rules.flap_window, cables)
        flap_hist[operated] = 0.0  # nor an operator shutting or enabling its port
        st["flaps"][rows] = flap_hist
        recent_flaps = flap_hist.sum(axis=1)
        drained = drained_links(frame, rows, recent_flaps, st)
        # a link that has held its state for the last few intervals has stopped flapping, whatever the window
        # still holds: the finding ends with its evidence
        settled = np.asarray(flap_hist[:, -self.rules.settled_after:] > 0).sum(axis=1) == 0
        recent_flaps = np.where(settled, 0.0, recent_flaps)
        # every error, discard and integrity counter against the link's own background: a stray error
        # now and then is what healthy links do; more often than its history and class explain is not
        counts = np.nan_to_num(np.maximum(evidence_counts(frame, EVIDENCE_NAMES, self.interval_s), 0.0))
        # drops the links sharing a situation show together now are the load's when they are counted, and
        # stay the load's in the windows that hold them after the crowd disperses
        self._paths.observe(frame, counts, self.background, self.interval_s)
        beyond_usual = dropping_now(frame, counts, self.background, self.interval_s)
        if beyond_usual.any():
            counts[np.ix_(_crowd(frame, beyond_usual, hot_machines=True), DISCARD_COLUMNS)] = 0.0
        self._paths.witnessed(frame, counts, self.background, self.interval_s)
        evidence = self._evidence(frame, rows, counts, recent > 0, (settle > 0) | operated)
        # drops that the links sharing a situation show at once (one host's NICs on every rail in an
        # incast, a class in an all-to-all) are that load; errors are the link's own whatever others do
        # drops follow load: more than the background is a finding only beyond what healthy links of
        # the class (and this link) dropped at this load, and not what its siblings do now
        siblings = Siblings(frame)
        dropping = np.zeros(n, dtype=bool)
        for i, vs in evidence.items():
            dropping[i] = any(v.evidence is Evidence.DISCARD for v in vs)
        # the links that share a situation and drop now (a storage node's NICs in its checkpoint, the ports
        # of an incast): their crowd is the load's
        if dropping.any():
            crowd = _crowd(frame, dropping | beyond_usual, hot_machines=True)
        else:
            crowd = dropping
        # a link carrying the share of a parallel link that is down drops for that link's fault
        twins = parallel_down(frame, self._down_cables.observe(frame))
        for i in np.nonzero(dropping)[0].tolist():
            model = self.models.get(frame.classes[i])
            key = (frame.links[i].device, frame.links[i].port)
            kept = [v for v in evidence[i] if v.evidence is not Evidence.DISCARD
                    or not (crowd[i] or twins[i] or _drops_within_load(frame, i, v, self.interval_s, model,
                                                                       siblings, self._windows.carried(key, v.window))
                            or drops_alike(frame, i, self._windows, v.window) is not None)]
            if kept:
                evidence[i] = kept
            else:
                del evidence[i]
        evidence_rows = np.zeros(n, dtype=bool)
        evidence_rows[list(evidence)] = True
        # the physical layer: the modules' readings of this interval, then who has a condition raised
        self.optics.observe(links, frame.start_ns + int(self.interval_s * 1e9))
        optic = self.optics.flagged
        optic_rows = np.fromiter(((li.device, li.port) in optic for li in links), dtype=bool, count=n) \
            if optic else np.zeros(n, dtype=bool)
        # a counter stuck at its ceiling is a burst that filled it (evidence, for a while) and then a blind
        # spot until someone clears it: the finding says so when it fills, not for as long as it stays full
        # (one the link counted nearly every healthy interval fills with that trickle's hours: time, not a burst)
        saturated = np.fromiter((bool(li.saturated) and bool(self._burst_filled(li, c)) for li, c
                                 in zip(links, frame.classes, strict=True)), dtype=bool, count=n)
        # full when first heard: it filled before anyone looked, nothing new to say
        heard = st["heard"][rows]
        st["heard"][rows] = True
        # back from a gap (a collector outage), a counter's first sample gives no rate and so no sign of its
        # ceiling: that interval is no clear
        after_gap = heard & (frame.start_ns - st["seen_ns"][rows] > 1.5 * self.interval_s * 1e9)
        st["seen_ns"][rows] = frame.start_ns
        was = st["saturated_for"][rows]
        sat_for = np.where(saturated, np.where(heard, was + 1, SATURATED_HOLD + 1), np.where(after_gap, was, 0))
        st["saturated_for"][rows] = np.minimum(sat_for, SATURATED_HOLD + 1)
        fresh_saturation = saturated & (sat_for <= SATURATED_HOLD)
        # under its nominal speed in this interval and the one before: one interval's reading may be a mean over
        # a sample while down and one up again, a speed the link never ran at
        under = speed_degraded_rows(frame)
        below_nominal = under & st["under_speed"][rows]
        st["under_speed"][rows] = under
        maybe_rule = optic_rows | (
            (recent_flaps > 0) | (own[:, LINK_RECOVERY] > 0)
            | (own[:, PFC_TX] >= self.rules.pause_storm_per_s) | (own[:, PFC_RX] >= self.rules.pause_storm_per_s)
            | evidence_rows
            | fresh_saturation
            | (frame.rate("excessive_buffer_overrun_errors") > 0) | below_nominal
        )
        # said once: by the nominal rule where it is on (an ablation may switch it off), once it holds
        said = under if "speed_degraded" not in self.switched_off else np.zeros(n, dtype=bool)
        lower = retrained_lower(frame, rows, st, self.trained, said)
        maybe_rule[list(lower)] = True
        degraded = below_nominal.copy()
        degraded[list(lower)] = True
        # back whole after it ran degraded: the bounce between was its repair, no flap of its own
        fixed = retrained.repaired(frame, rows, st, degraded)
        if fixed.any():
            recent_flaps[fixed] = 0.0
            flap_hist[fixed] = 0.0
            st["flaps"][rows[fixed]] = 0.0
        up_in_training = st.seeded("up_in_training", rows, frame.layout.keys, self._up_in_training)
        left_down, down_why, down_by_another = links_left_down(frame, rows, st, settle > 0, back, self._restarts,
                                                               cables, self.interval_s, up_in_training)
        unheard_down = self._down_unheard.observe(frame, down_why, cables.dark | self._restarts.training(),
                                                  self.interval_s)
        # up again within the settle window: routing has yet to spread traffic onto it
        was_down = st["down_ns"][rows]
        just_up = (was_down > 0) & (was_down < frame.start_ns) & \
            (frame.start_ns - was_down <= SETTLE_INTERVALS * self.interval_s * 1e9)
        maybe_rule[list(left_down)] = True
        acting = (settle > 0) | (recent > 0) | operated | drained
        left_spread = spread_withdrawn.spread_withdrawn(frame, rows, st, acting, self.spread_carried,
                                                        self._idle_switches)
        maybe_rule[list(left_spread)] = True
        shut_left = left_shut.left_shut(frame, rows, st, back, self._restarts.training(), self.interval_s)
        maybe_rule[list(shut_left)] = True
        # its own downs: not its device's event nor an operator's act
        slow = slow_flap.slow_flaps(frame, rows, st, flap_hist[:, -1], frame.reading("link_downed") * self.interval_s,
                                    (settle == 0) & ~operated & ~device_event,
                                    self.rules.flap_window * self.interval_s * 1e9)
        slow = {i: hit for i, hit in slow.items() if not settled[i]}
        maybe_rule[list(slow)] = True
        gone_quiet = self._gone_quiet(frame, rows, (settle > 0) | (recent > 0) | operated, seen, seen_silent)
        maybe_rule[list(gone_quiet)] = True
        uncontrolled = ignoring_notifications(frame)
        maybe_rule[list(uncontrolled)] = True
        view = group_view(frame)
        beyond = self._beyond_usual(frame, rows, view)
        standing_out = self._standing_out(frame, rows, (settle > 0) | (recent > 0), view, beyond)
        maybe_rule[list(standing_out)] = True
        alone = lone_drops.dropping_alone(frame, rows, st, acting, self.interval_s)
        maybe_rule[list(alone)] = True
        # congestion is bursty: over the links sharing its situation is a cause of the forest's finding only
        # when it held in OUTLIER_K of the last OUTLIER_N intervals, as the group rule asks
        over = np.nan_to_num(beyond, nan=-np.inf) >= np.log10(GROUP_MARGIN)
        held_over = ((st["over_group"][rows] << 1) | over.astype(np.uint8)) & np.uint8((1 << OUTLIER_N) - 1)
        st["over_group"][rows] = held_over
        beyond = np.where(over & (np.bitwise_count(held_over) < OUTLIER_K), 0.0, beyond)
        trending = self.trends.observe(links)
        storming = (own[:, PFC_TX] >= self.rules.pause_storm_per_s) | (own[:, PFC_RX] >= self.rules.pause_storm_per_s)
        shared_pauses = shared_pausing(frame) if storming.any() else np.zeros((n, 2), dtype=bool)
        if trending:
            maybe_rule |= np.fromiter(((li.device, li.port) in trending for li in links), dtype=bool, count=n)
        out = []
        paced: np.ndarray | None = None
        for i in np.nonzero(active | maybe_rule)[0].tolist():
            if i in down_by_another:
                continue  # down by another device's act or restart: nothing of its own to say meanwhile
            li = links[i]
            model_active = bool(active[i]) and not excused[i]
            # a bounce while siblings bounce too waits an interval: it may be the device's maintenance
            only_now = float(own[i, FLAPS]) >= recent_flaps[i]
            hold = bool(forming[i]) and only_now and recent_flaps[i] < self.rules.flaps_critical
            quiet = bool(settle[i] > 0) or hold or bool(operated[i])
            hits = evaluate(li, self.interval_s, self.rules, device_event=quiet, recent_flaps=float(recent_flaps[i]),
                            drained=bool(drained[i]), below_nominal=bool(below_nominal[i]),
                            shared_pauses=(bool(shared_pauses[i, 0]), bool(shared_pauses[i, 1])))
            if optic_rows[i]:
                hits += self.optics.hits((li.device, li.port))
            hits += [_evidence_hit(v, self.interval_s) for v in evidence.get(i, ())]
            hits += [rule[i] for rule in (left_down, lower, left_spread, shut_left, standing_out, alone, gone_quiet,
                                          uncontrolled)
                     if i in rule]
            # a flap is said once: the slow flap says more than one bounce's warning, less than a fast flap
            if i in slow and not any(h.condition == "flap" and h.severity == "critical" for h in hits):
                hits = [h for h in hits if h.condition != "flap"] + [slow[i]]
            hits += trending.get((li.device, li.port), [])
            if not fresh_saturation[i]:
                hits = [h for h in hits if h.condition != "saturated"]
            if self.switched_off:
                hits = [h for h in hits if h.condition not in self.switched_off]
            if not model_active and not hits:
                continue
            thr = 1.0 if has_model[i] else float("inf")
            severities = [hit.severity for hit in hits]
            if model_active:
                severities.append("critical" if scores[i] > 2 * thr else "warning")
            model = self.models.get(frame.classes[i])
            if model_active and paced is None:
                paced = paced_by_host(frame)
            shared = model_active and own[i, DISCARDS] > 0 and drops_alike(frame, i, self._windows) is not None
            words, feats = explain(frame, i, model=model, just_bounced=bool(recent[i] > 0), siblings=siblings,
                                   group_excess=beyond[i], paced=paced, just_up=bool(just_up[i]),
                                   twin_down=bool(twins[i]), drops_shared=shared) \
                if model_active else ("", [])
            if model_active and not words and not ecn_missing[i]:
                # over the forest's threshold without one feature worse than expected: quieter or
                # differently busy, not degraded; no page
                model_active = False
                severities = [hit.severity for hit in hits]
                if not hits:
                    continue
            if model_active and held_quiet[i]:
                words = "no ECN marks when last judged, too little traffic on its peers to judge it now; " + words
            elif model_active and ecn_missing[i]:
                med = frame.class_median_raw[i, ECN]
                mine = float(np.nan_to_num(own[i, ECN]))
                words = (f"no ECN marks while its peers mark {med:,.0f} per 1M pkts (ECN off?); " if mine <= 0 else
                         f"ECN marks next to nothing ({mine:,.0f} per 1M pkts) while its peers mark {med:,.0f} and its "
                         "switch pauses more than theirs (ECN set too high?); ") + words
            reasons = [hit.reason for hit in hits] + ([words] if words else [])
            source = "+".join(s for s, on in (("model", model_active), ("rule", bool(hits))) if on)
            conditions = sorted({h.condition for h in hits if h.condition}
                                | ({"ecn_missing"} if model_active and ecn_missing[i] else set())
                                | ({"anomaly"} if model_active and not ecn_missing[i] else set()))
            mark_physical(st, int(rows[i]), frame.start_ns, conditions)
            out.append(Finding(frame.start_ns, li.device, li.port, frame.classes[i],
                               float(scores[i]) if not np.isnan(scores[i]) else 0.0, thr,
                               True, worst(severities), source, "; ".join(reasons), feats, conditions,
                               peer=_peer(li)))
        if "link_left_down" not in self.switched_off:
            out += unheard_down
        out = _devices_counting(frame.start_ns, _device_findings(frame, out))
        if "stalled_switch" not in self.switched_off:
            out = fold_stalls(frame, out, *self.stalls.observe(frame))
        if "ecn_excess" not in self.switched_off:
            out += self.marking.observe(frame)
        return _one_per_cable(_warming_switches(frame.start_ns, _hot_switches(frame.start_ns, out, self.optics)))

    def _up_in_training(self, key: tuple[str, str]) -> bool:
        """Whether healthy history saw the link up: learned from (its background) and not down throughout."""
        return key in self.background.links_ and key not in self.never_up

    # -- persistence -------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        meta = {
            "interval_s": self.interval_s,
            "false_alarm_rate": self.false_alarm_rate,
            "false_alarms_per_day": self.false_alarms_per_day,
            "hysteresis": self.hysteresis.__dict__,
            "classes": {c: m.to_json() for c, m in self.models.items()},
            "training": self.training,
            "background": self.background.to_json(),
            "sibling_ratios": self.sibling_ratios.to_json(),
            "silent_runs": self.silent_runs.to_json(),
            "never_up": sorted([d, p] for d, p in self.never_up),
            "trained": retrained.to_json(self.trained),
            "spread_carried": spread_withdrawn.to_json(self.spread_carried),
            "trend_baselines": self.trend_baselines.to_json(),
        }
        write_model(path, meta, {c: m.forest for c, m in self.models.items()})

    @classmethod
    def load(cls, path: str | Path) -> LinkDetector:
        """A model file, read without running anything it holds (see `read_model`)."""
        meta, forests = read_model(path)
        try:
            det = cls(interval_s=meta["interval_s"], false_alarm_rate=meta["false_alarm_rate"],
                      false_alarms_per_day=meta.get("false_alarms_per_day"),
                      hysteresis=Hysteresis(**meta["hysteresis"]))
            det.models = {c: ClassModel.from_json(forests[c], info) for c, info in meta["classes"].items()}
            det.training = meta["training"]
            det.background = BackgroundRates.from_json(meta["background"])
            det.sibling_ratios = SiblingRatios.from_json(meta["sibling_ratios"])
            if "silent_runs" in meta:  # absent from models trained before it was learned: no silence judged
                det.silent_runs = SilentRuns.from_json(meta["silent_runs"])
            det.never_up = {(str(d), str(p)) for d, p in meta.get("never_up") or []}
            det.trained = retrained.from_json(meta.get("trained") or {})
            det.spread_carried = spread_withdrawn.from_json(meta.get("spread_carried") or [])
            det.trend_baselines = TrendWatch.from_json(meta.get("trend_baselines") or [])
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{path}: the model cannot be read: {exc!r}") from None
        det.reset()  # it starts from what its file holds
        return det


def _aged(window: np.ndarray, since_ns: np.ndarray, interval_s: float) -> np.ndarray:
    """Each row of a per-interval window, oldest first, without its oldest column and moved on by the intervals
    since its link was last heard beyond the one just passed (zeros in their place): `since_ns` from then to now."""
    width = window.shape[1]
    unheard = np.clip(np.rint(since_ns / (interval_s * 1e9)).astype(np.int64) - 1, 0, width)
    cols = np.arange(width - 1)[None, :] + 1 + unheard[:, None]
    inside = cols < width
    return np.where(inside, np.take_along_axis(window, np.minimum(cols, width - 1), axis=1), 0.0)
