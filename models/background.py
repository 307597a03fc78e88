"""Every error, discard and integrity counter rated against its own background.

A healthy link sees a stray FCS error, an uncorrectable FEC codeword or a symbol error now and then;
a degraded one sees them more often than its history and its class explain. `BackgroundRates` learns,
per link and per port class, two things of every evidence counter of the vocabulary
(`core.counters.EVIDENCE`) from healthy history: how often an interval counts any (the erred-interval
share) and how many it counts per second, with how bursty that count is. `score` then asks of a window
of recent intervals how unlikely its counts are under that background: a binomial tail on the erred
intervals (bursts count once) and a quasi-Poisson tail on the total (a link that always counts a few
and now counts many). No counter is named: one added to the vocabulary tomorrow is judged the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fabricwatch.core.counters import EVIDENCE, Evidence
from fabricwatch.models.features import grown

EVIDENCE_NAMES: tuple[str, ...] = tuple(sorted(EVIDENCE))
E_INDEX = {n: j for j, n in enumerate(EVIDENCE_NAMES)}
WINDOWS = (4, 8, 16, 32)  # intervals a test looks back over: a fast fault shows in 4, a trickle in 32
RECENT = 2  # intervals: a window whose counts stopped this long ago is a fault that ended (or paused)
MIN_ERRED = 3  # intervals with counts before anything is judged: one burst, even across two intervals, is not
# retrains (or downs) in a window that are a fault at once, however few intervals hold them: each stalls the
# link, as a bounce does, and a healthy link does neither in bursts
MIN_EVENTS = 3
MIN_EXCESS = 3.0  # a total must be at least this many times its expectation to count as a rise
PRIOR_INTERVALS = 100.0  # at most, a link's own rate weighs as much as this many intervals of its class's
MIN_LINK_INTERVALS = 20  # a link's erred share counts towards its class's spread from this many intervals
MAX_CONCENTRATION = 1e4  # a class whose links all count alike: its share is nearly certain for each
NO_HISTORY_P = 1e-3  # erred-interval share assumed where nothing was learned (a daemon without a model)
NO_HISTORY_RATE = 1e-4  # counts per second assumed likewise
# fewer than one packet in a billion lost is no loss a job can feel: unusual for this link, perhaps
NEGLIGIBLE_SHARE = 1e-9
# frames corrupted on the wire: Ethernet's objective is a BER of 1e-12 (InfiniBand's too), which costs a 4 KB
# RDMA frame in about 3e7; fewer than one in a hundred million is within what the link is specified to do. A
# transport's retries count what a path of such links lost: fewer are within what it may lose
WITHIN_SPEC = 1e-8
WIRE_CORRUPTION = frozenset({"fcs_errors", "symbol_errors", "fec_uncorrectable", "in_errors", "rcv_errors"})
# corruption is a share of the frames carried (a link's bit error rate is its own): a link carrying more than it
# usually did is expected to count as many more. Drops are not: a queue drops at its tail only once it is full
FOLLOWS_TRAFFIC = frozenset({Evidence.ERROR})
# of the longest window's intervals: corruption within the error budget counted in this many of them is a link
# beginning to degrade (an optic's first errors), no stray codeword: a trend, worth a warning before it costs a job
SUSTAINED_SHARE = 0.5
LOG10_ENDED = -3.0  # a window's last intervals this unlikely at the window's own rate: the rate changed
LOG10_ALPHA = -7.0  # per test: ~30 tests a link-interval keep healthy links under 1 alarm per 1,000 link-hours


@dataclass
class Background:
    """What a link's healthy history says of each evidence counter: erred-interval share p, counts per
    second, dispersion (variance over mean of the per-interval count, at least 1)."""

    p: np.ndarray
    rate: np.ndarray
    dispersion: np.ndarray
    # how many intervals of evidence p rests on (its Beta posterior's a + b): small where the class's links
    # differ a lot and the link's own history is short, so an unlucky quiet history is not a certainty
    weight: np.ndarray = field(default_factory=lambda: np.full(len(EVIDENCE_NAMES), MAX_CONCENTRATION))
    # how many intervals of its class's rate a link's own history is weighed against: few where the class's
    # links count at rates far apart (a quarter trickle steadily, the rest never), so each is its own
    rate_weight: np.ndarray = field(default_factory=lambda: np.full(len(EVIDENCE_NAMES), PRIOR_INTERVALS))
    # the packets a second the link carried in its healthy history (0: unknown): its corruption is expected to grow
    # with its traffic (`FOLLOWS_TRAFFIC`)
    packets_per_s: float = 0.0
    # (len(WINDOWS), E): the most each counter counted in a window of each length in the link's healthy history (0:
    # none known): a burst spans several intervals, so a per-interval spread understates a few minutes' count
    peaks: np.ndarray = field(default_factory=lambda: np.zeros((len(WINDOWS), len(EVIDENCE_NAMES))))
    # (len(WINDOWS), E): the dispersion of the link's healthy counts summed over a window of each length (1: none
    # known): bursts that span intervals, or quiet stretches between busy ones, spread a few minutes' count more
    # than the intervals' own spread says
    window_dispersion: np.ndarray = field(default_factory=lambda: np.ones((len(WINDOWS), len(EVIDENCE_NAMES))))


@dataclass
class Verdict:
    """The most unlikely window of one counter of one link."""

    name: str
    log10_p: float
    window: int
    erred: int
    total: float
    expected_share: float  # the background's erred-interval share
    expected_rate: float  # the background's counts per second
    share_of_packets: float  # counts over the packets that came in the window, moved or counted (impact)

    @property
    def evidence(self) -> Evidence:
        return EVIDENCE[self.name]


def _posterior(n: float, k: np.ndarray, total: np.ndarray, sumsq: np.ndarray, prior: Background,
               interval_s: float) -> Background:
    """A link's background: its own counts, shrunk towards its class's: the erred share by the class's
    concentration (a Beta prior fitted to how its links differ), the rate likewise (a Gamma prior)."""
    m = prior.rate_weight
    c = prior.weight
    p = (k + c * prior.p) / (n + c)
    rate = (total + m * prior.rate * interval_s) / ((n + m) * interval_s)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, total / max(n, 1.0), 0.0)
        var = np.where(n > 1, sumsq / max(n, 1.0) - mean * mean, 0.0)
        own = np.where(mean > 0, var / np.where(mean > 0, mean, 1.0), 1.0)
    disp = np.maximum((n * np.maximum(own, 1.0) + m * prior.dispersion) / (n + m), 1.0)
    return Background(p, rate, disp, n + c, n + m)


@dataclass
class BackgroundRates:
    """Fitted attributes: `classes_` (class -> Background), `links_` (link -> Background, for the links
    seen in training), `interval_s_`."""

    classes_: dict[str, Background] = field(default_factory=dict)
    links_: dict[tuple[str, str], Background] = field(default_factory=dict)
    interval_s_: float = 30.0
    # the counters a model file from an older vocabulary has no background of: judged against no history, any
    # count would page, so they are not judged until a new fit
    unlearned_: frozenset[str] = frozenset()

    def fit(self, keys: Sequence[tuple[str, str]], classes: Sequence[str], counts: np.ndarray,
            interval_s: float, packets: np.ndarray | None = None) -> BackgroundRates:
        """`counts`: one row per healthy link-interval, one column per EVIDENCE_NAMES, NaN where the link
        does not report the counter; `packets`: the packets each row's link moved in it."""
        index: dict[tuple[str, str], int] = {}
        ids = np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.int64)
        acc = BackgroundFit()
        acc.add(ids, list(classes), counts, packets)
        return acc.result(list(index), interval_s, self)


    def background(self, key: tuple[str, str], link_class: str) -> Background:
        """What healthy history says of this link, else of its class, else the no-history default."""
        b = self.links_.get(key)
        if b is not None:
            return b
        c = self.classes_.get(link_class)
        if c is not None:
            return _posterior(0.0, np.zeros(len(EVIDENCE_NAMES)), np.zeros(len(EVIDENCE_NAMES)),
                              np.zeros(len(EVIDENCE_NAMES)), c, self.interval_s_)
        E = len(EVIDENCE_NAMES)
        return Background(np.full(E, NO_HISTORY_P), np.full(E, NO_HISTORY_RATE), np.ones(E))

    def score(self, window: np.ndarray, packets: np.ndarray, background: Background,
              interval_s: float, recent: int = RECENT) -> list[Verdict]:
        """The counters whose recent counts stand above the background beyond LOG10_ALPHA, each at its most
        unlikely window. `window`: (W, E) counts of the link's last W reports, oldest first; `packets`: (W,);
        `recent`: the reports that make RECENT intervals at the link's cadence."""
        out = []
        W_all = len(window)
        erred_any = window >= 0.5
        events = np.array([EVIDENCE[n] in (Evidence.INTEGRITY, Evidence.STATE) for n in EVIDENCE_NAMES])
        enough = (erred_any.sum(axis=0) >= MIN_ERRED) | (events & (window.sum(axis=0) >= MIN_EVENTS))
        if self.unlearned_:
            enough &= ~np.isin(np.array(EVIDENCE_NAMES), list(self.unlearned_))
        follows = np.array([EVIDENCE[n] in FOLLOWS_TRAFFIC for n in EVIDENCE_NAMES])
        usual = background.packets_per_s * interval_s
        # per window, how many times the link's usual traffic it carried (never less than its usual: a quiet link's
        # counts are not expected to fall with its traffic)
        busier = {w: max(1.0, float(packets[-w:].sum()) / (usual * w)) if usual > 0 else 1.0 for w in WINDOWS}
        for j in np.nonzero(enough)[0].tolist():
            best: Verdict | None = None
            for w in WINDOWS:
                if w > W_all:
                    break
                col = window[-w:, j]
                k = int((col >= 0.5).sum())
                if k < MIN_ERRED and not (events[j] and col.sum() >= MIN_EVENTS):
                    continue
                # still going: a window whose last intervals count none is a fault that ended; on a link that
                # counts nearly every interval (p0 >= 0.5), so is one whose last intervals count no more than its
                # usual trickle over them (`recent` reports span RECENT intervals)
                last = float(col[-recent:].sum())
                p0 = float(background.p[j])
                if last < 0.5 or (p0 >= 0.5 and last < MIN_EXCESS * float(background.rate[j]) * RECENT * interval_s):
                    continue
                total = float(col.sum())
                # and so is one whose last intervals count far less than the window's own rate: a burst that
                # stopped, with a stray count after it, is not still going at the window's rate
                if _log10_poisson_cdf(last, total * recent / len(col)) < LOG10_ENDED:
                    continue
                # a link that counts nearly every interval has no clean intervals to lose: its persistence is the
                # intervals raised above its trickle, and one interval's burst is no more a rise there than on a
                # link that counts nothing most intervals
                if p0 >= 0.5 and not events[j] and int((col >= MIN_EXCESS * float(background.rate[j]) * interval_s * (
                        busier[w] if follows[j] else 1.0)).sum()) < MIN_ERRED:
                    continue
                mu = float(background.rate[j]) * w * interval_s * (busier[w] if follows[j] else 1.0)
                d = max(float(background.dispersion[j]), float(background.window_dispersion[WINDOWS.index(w), j]))
                if total < MIN_EXCESS * mu or total <= background.peaks[WINDOWS.index(w), j]:
                    continue
                # more often *and* more than its background: a link whose drops come in bursts now and
                # then is not judged by how many intervals a burst touches; where nearly every interval
                # counts (p0 >= 0.5), only the total can rise
                lp = _log10_count_sf(total, mu, d)
                if p0 < 0.5 and k >= MIN_ERRED:  # events bunched in fewer intervals are judged by their number
                    lp = max(lp, _log10_betabinom_sf(k, w, p0, float(background.weight[j])))
                if best is None or lp < best.log10_p:
                    pk = float(packets[-w:].sum())
                    best = Verdict(EVIDENCE_NAMES[j], lp, w, k, total, p0, float(background.rate[j]),
                                   total / (pk + total) if pk > 0 else math.inf)
            wire = EVIDENCE_NAMES[j] in WIRE_CORRUPTION
            floor = WITHIN_SPEC if wire or EVIDENCE[EVIDENCE_NAMES[j]] is Evidence.PATH else NEGLIGIBLE_SHARE
            if best is not None and best.log10_p < LOG10_ALPHA and (
                    best.share_of_packets >= floor or best.evidence in (Evidence.INTEGRITY, Evidence.STATE)
                    or (wire and _sustained(window[:, j]) and best.share_of_packets >= NEGLIGIBLE_SHARE)):
                out.append(best)
        return out

    def to_json(self) -> dict[str, Any]:
        def enc(b: Background) -> list[list[float]]:
            return [[float(f"{v:.4g}") for v in a] for a in (b.p, b.rate, b.dispersion, b.weight, b.rate_weight)]

        return {"names": list(EVIDENCE_NAMES), "interval_s": self.interval_s_,
                "classes": {c: enc(b) for c, b in self.classes_.items()},
                "links": [[d, p, enc(b), float(f"{b.packets_per_s:.4g}"),
                           [[float(f"{v:.4g}") for v in a] for a in b.peaks],
                           [[float(f"{v:.4g}") for v in a] for a in b.window_dispersion]]
                          for (d, p), b in sorted(self.links_.items())]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BackgroundRates:
        names = list(data["names"])

        def dec(rows: Iterable[Iterable[float]]) -> Background:
            arrays = []
            rows = list(rows)  # models trained before the weights were learned hold fewer rows
            defaults = (NO_HISTORY_P, NO_HISTORY_RATE, 1.0, MAX_CONCENTRATION, PRIOR_INTERVALS)
            for default, row in zip(defaults, rows, strict=False):
                a = np.full(len(EVIDENCE_NAMES), default)
                for name, v in zip(names, row, strict=True):
                    if name in E_INDEX:
                        a[E_INDEX[name]] = float(v)
                arrays.append(a)
            for default in defaults[len(arrays):]:
                arrays.append(np.full(len(EVIDENCE_NAMES), default))
            p, rate, dispersion, weight, rate_weight = arrays
            return Background(p, rate, dispersion, weight, rate_weight)

        links = {}
        # models saved before a link's traffic, peaks and window spreads were kept hold fewer of them
        for d, p, b, *more in data["links"]:
            link = links[(str(d), str(p))] = dec(b)
            link.packets_per_s = float(more[0]) if more else 0.0
            for kept, rows in ((link.peaks, more[1:2]), (link.window_dispersion, more[2:3])):
                for row, values in zip(kept, rows[0] if rows else [], strict=False):
                    for name, v in zip(names, values, strict=True):
                        if name in E_INDEX:
                            row[E_INDEX[name]] = float(v)
        return cls({str(c): dec(b) for c, b in data["classes"].items()}, links, float(data["interval_s"]),
                   frozenset(EVIDENCE_NAMES) - frozenset(names))


class BackgroundFit:
    """`BackgroundRates.fit` over a stream of link-intervals: per class and per link id, the sums it needs
    (intervals, erred intervals, total, sum of squares): memory follows the links, not the history."""

    def __init__(self) -> None:
        E = len(EVIDENCE_NAMES)
        self._cls: dict[str, np.ndarray] = {}  # class -> (3, E): reported intervals, erred, total
        self._link = np.zeros((0, 4, E))  # link id -> intervals, erred, total, sum of squares
        self._link_cls: list[str | None] = []  # the class of the link's first row
        self._packets = np.zeros(0)  # link id -> packets moved over its intervals
        # link id -> its last max(WINDOWS) intervals' counts (a ring), the running sums over each window length and
        # the most each sum reached
        self._ring = np.zeros((0, max(WINDOWS), E), dtype=np.float32)
        self._at = np.zeros(0, dtype=np.int64)
        self._sums = np.zeros((0, len(WINDOWS), E))
        self._peaks = np.zeros((0, len(WINDOWS), E))
        # link id -> per window length: how many whole windows, and their sums' sum and sum of squares
        self._whole = np.zeros((0, len(WINDOWS)))
        self._wsum = np.zeros((0, len(WINDOWS), E))
        self._wsq = np.zeros((0, len(WINDOWS), E))

    def add(self, ids: np.ndarray, classes: Sequence[str], counts: np.ndarray,
            packets: np.ndarray | None = None) -> None:
        """One block of rows: each row's link id, class, evidence counts and packets moved (as for `fit`)."""
        reported = ~np.isnan(counts)
        c = np.nan_to_num(np.maximum(counts, 0.0))
        erred = c >= 0.5
        cls_arr = np.array(classes)
        E = len(EVIDENCE_NAMES)
        for cls in sorted(set(classes)):
            rows = cls_arr == cls
            acc = self._cls.setdefault(cls, np.zeros((3, E)))
            acc[0] += reported[rows].sum(axis=0)
            acc[1] += erred[rows].sum(axis=0)
            acc[2] += c[rows].sum(axis=0)
        top = int(ids.max()) + 1 if len(ids) else 0
        self._link = grown(self._link, top)
        self._link_cls += [None] * (len(self._link) - len(self._link_cls))
        np.add.at(self._link[:, 0, 0], ids, 1.0)
        np.add.at(self._link[:, 1], ids, erred.astype(np.float64))
        np.add.at(self._link[:, 2], ids, c)
        np.add.at(self._link[:, 3], ids, c * c)
        self._packets = grown(self._packets, len(self._link))
        if len(np.unique(ids)) == len(ids):
            self._peak(ids, c)
        else:  # several intervals of a link in one block: in their order
            for i in range(len(ids)):
                self._peak(ids[i:i + 1], c[i:i + 1])
        if packets is not None:
            np.add.at(self._packets, ids, np.nan_to_num(np.maximum(packets, 0.0)))
        uniq, first = np.unique(ids, return_index=True)
        for i, f in zip(uniq.tolist(), first.tolist(), strict=True):
            if self._link_cls[i] is None:
                self._link_cls[i] = classes[f]

    def _peak(self, ids: np.ndarray, c: np.ndarray) -> None:
        """Each window length's running sum of each link's counts, and the most it reached."""
        top = len(self._link)
        self._ring, self._at = grown(self._ring, top), grown(self._at, top)
        self._sums, self._peaks = grown(self._sums, top), grown(self._peaks, top)
        self._whole, self._wsum, self._wsq = grown(self._whole, top), grown(self._wsum, top), grown(self._wsq, top)
        ring_len = max(WINDOWS)
        at = self._at[ids]
        for k, w in enumerate(WINDOWS):
            leaving = np.where((at >= w)[:, None], self._ring[ids, (at - w) % ring_len], 0.0)
            self._sums[ids, k] += c - leaving
            self._peaks[ids, k] = np.maximum(self._peaks[ids, k], self._sums[ids, k])
            whole = at + 1 >= w
            full = ids[whole]
            self._whole[full, k] += 1.0
            self._wsum[full, k] += self._sums[full, k]
            self._wsq[full, k] += self._sums[full, k] ** 2
        self._ring[ids, at % ring_len] = c
        self._at[ids] = at + 1

    def _window_dispersion(self, i: int) -> np.ndarray:
        """(len(WINDOWS), E): the variance over the mean of link i's counts summed over each window length (at least
        1; 1 where too few whole windows were seen to say)."""
        n = self._whole[i][:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = self._wsum[i] / n
            disp = (self._wsq[i] / n - mean * mean) / mean
        return np.where((n >= MIN_LINK_INTERVALS) & (mean > 0), np.maximum(np.nan_to_num(disp, nan=1.0), 1.0), 1.0)

    def _counted_links(self, cls: str) -> np.ndarray | None:
        """The class's links seen MIN_LINK_INTERVALS or more (rows of the per-link sums); None under two of them,
        too few to say how much links of the class differ."""
        mine = np.array([i for i, c in enumerate(self._link_cls) if c == cls], dtype=np.int64)
        mine = mine[self._link[mine, 0, 0] >= MIN_LINK_INTERVALS] if len(mine) else mine
        return mine if len(mine) >= 2 else None

    def _concentration(self, cls: str, p: np.ndarray) -> np.ndarray:
        """Per counter, the a + b of a Beta prior for the erred share of the class's links, by moments:
        how much the links' shares differ beyond what their numbers of intervals explain. Links that all
        count alike (none at all, most often) make it MAX_CONCENTRATION; a few that count now and then
        among many that never do make it small, and a quiet link's history then says little."""
        mine = self._counted_links(cls)
        if mine is None:
            return np.full(len(EVIDENCE_NAMES), MAX_CONCENTRATION)
        n = self._link[mine, 0, 0]
        share = self._link[mine, 1] / n[:, None]
        m = share.mean(axis=0)
        beyond = share.var(axis=0) - (m * (1.0 - m) * (1.0 / n)[:, None]).mean(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.where(beyond > 0, np.maximum(p, m) * (1.0 - np.maximum(p, m)) / beyond - 1.0, MAX_CONCENTRATION)
        return np.clip(np.nan_to_num(c, nan=MAX_CONCENTRATION), 1.0, MAX_CONCENTRATION)

    def _rate_weight(self, cls: str) -> np.ndarray:
        """Per counter, the strength (in intervals) of a Gamma prior for the rate of the class's links, by
        moments: their mean rate over how much their rates differ beyond what their own counting noise
        explains. Links that count alike leave it at PRIOR_INTERVALS; rates far apart make it a few."""
        mine = self._counted_links(cls)
        if mine is None:
            return np.full(len(EVIDENCE_NAMES), PRIOR_INTERVALS)
        n = self._link[mine, 0, 0][:, None]
        total, sumsq = self._link[mine, 2], self._link[mine, 3]
        lam = total / n
        with np.errstate(divide="ignore", invalid="ignore"):
            disp = np.where(lam > 0, np.maximum((sumsq / n - lam * lam) / np.where(lam > 0, lam, 1.0), 1.0), 1.0)
            m = lam.mean(axis=0)
            beyond = lam.var(axis=0) - (lam * disp / n).mean(axis=0)
            w = np.where(beyond > 0, m / beyond, PRIOR_INTERVALS)
        return np.clip(np.nan_to_num(w, nan=PRIOR_INTERVALS), 1.0, PRIOR_INTERVALS)

    def result(self, keys: Sequence[tuple[str, str]], interval_s: float,
               into: BackgroundRates | None = None) -> BackgroundRates:
        """The fitted rates; `keys[i]` names link id i."""
        out = into if into is not None else BackgroundRates()
        out.interval_s_ = interval_s
        E = len(EVIDENCE_NAMES)
        out.classes_ = {}
        for cls in sorted(self._cls):
            n, k, total = self._cls[cls]
            # Jeffreys: a class that never counted one in n intervals has a share of about 1/(2n)
            p = np.where(n > 0, (k + 0.5) / (n + 1.0), NO_HISTORY_P)
            rate = np.where(n > 0, (total + 0.5) / ((n + 1.0) * interval_s), NO_HISTORY_RATE)
            out.classes_[cls] = Background(p, rate, np.ones(E), self._concentration(cls, p), self._rate_weight(cls))
        out.links_ = {}
        for i, key in enumerate(keys):
            first = self._link_cls[i] if i < len(self._link_cls) else None
            if first is None:
                continue
            n_i, k, total, sumsq = self._link[i]
            out.links_[key] = _posterior(float(n_i[0]), k, total, sumsq, out.classes_[first], interval_s)
            out.links_[key].packets_per_s = float(self._packets[i]) / (float(n_i[0]) * interval_s)
            out.links_[key].peaks = self._peaks[i].copy()
            out.links_[key].window_dispersion = self._window_dispersion(i)
        return out


def _log10_betabinom_sf(k: int, n: int, p: float, weight: float) -> float:
    """log10 P(X >= k), X ~ BetaBinomial(n, a, b) with mean share p and a + b = weight: the binomial tail
    with p's own uncertainty (it tends to the binomial as the weight grows)."""
    if k <= 0:
        return 0.0
    if k > n:
        return -math.inf
    if not weight > 0:
        return _log10_binom_sf(k, n, p)
    p = min(max(p, 1e-12), 1.0 - 1e-12)
    a, b = p * weight, (1.0 - p) * weight
    lbeta_ab = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
             + math.lgamma(i + a) + math.lgamma(n - i + b) - math.lgamma(n + a + b) - lbeta_ab
             for i in range(k, n + 1)]
    top = max(terms)
    return min((top + math.log(sum(math.exp(t - top) for t in terms))) / math.log(10), 0.0)


def _log10_binom_sf(k: int, n: int, p: float) -> float:
    """log10 P(X >= k), X ~ Binomial(n, p); n is a window of at most a few dozen intervals."""
    if k <= 0:
        return 0.0
    p = min(max(p, 1e-12), 1.0)
    if p >= 1.0:
        return 0.0
    lp, lq = math.log(p), math.log1p(-p)
    terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
             for i in range(k, n + 1)]
    top = max(terms)
    return (top + math.log(sum(math.exp(t - top) for t in terms))) / math.log(10)


def _log10_count_sf(k: float, mu: float, dispersion: float) -> float:
    """log10 P(X >= k) for a count of mean mu and variance dispersion * mu: Poisson where it is not overdispersed,
    else negative binomial (a Poisson whose rate itself varies, gamma-distributed): its tail is heavier than a
    scaled Poisson's, as a link's healthy bursts are."""
    if dispersion <= 1.0 + 1e-9 or k <= 0:
        return log10_poisson_sf(k, mu)
    # imported when first needed: a daemon on rules alone with quiet links never loads scipy (~30 MB)
    from scipy.special import betainc

    r = max(mu, 1e-12) / (dispersion - 1.0)
    # P(X >= k) = I_q(k, r), q = mu / (mu + r): the regularised incomplete beta, continuous in k
    sf = float(betainc(k, r, (dispersion - 1.0) / dispersion))
    return math.log10(sf) if sf > 0 else log10_poisson_sf(k / dispersion, mu / dispersion)


def _log10_poisson_cdf(k: float, mu: float) -> float:
    """log10 P(X <= k), X ~ Poisson(mu), continuous in k."""
    from scipy.special import gammaincc

    v = float(gammaincc(k + 1.0, max(mu, 1e-12)))
    return math.log10(v) if v > 0 else -math.inf


def log10_poisson_sf(k: float, mu: float) -> float:
    """log10 P(X >= k), X ~ Poisson(mu), continuous in k (quasi-Poisson totals are not integers): the
    regularised lower incomplete gamma P(k, mu) by its series, which converges fast for mu < k (the only
    case asked: a total at least MIN_EXCESS times its expectation)."""
    if k <= 0:
        return 0.0
    mu = max(mu, 1e-12)
    term = total = 1.0 / k
    n = 0
    while term > total * 1e-15 and n < 10_000:
        n += 1
        term *= mu / (k + n)
        total += term
    ln = k * math.log(mu) - mu - math.lgamma(k) + math.log(total)
    return min(ln / math.log(10), 0.0)


def _sustained(counts: np.ndarray) -> bool:
    """Whether a counter counted in SUSTAINED_SHARE of the longest window's intervals (`counts`: the window's)."""
    W = max(WINDOWS)
    return len(counts) >= W and int((counts[-W:] >= 0.5).sum()) >= SUSTAINED_SHARE * W


class EvidenceWindows:
    """Each link's evidence counts over the last max(WINDOWS) intervals, with the packets it moved and its
    utilisation in each, kept only for links that counted any recently: a fabric of healthy links costs
    nothing here."""

    def __init__(self) -> None:
        self._rings: dict[tuple[str, str], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def push(self, key: tuple[str, str], counts: np.ndarray | None, packets: float,
             util_pct: float = math.nan) -> tuple[np.ndarray, np.ndarray] | None:
        """Add this interval's counts (None: nothing counted); the window and its packets, or None when it
        holds nothing."""
        ring = self._rings.get(key)
        if ring is None:
            if counts is None:
                return None
            W = max(WINDOWS)
            ring = (np.zeros((W, len(EVIDENCE_NAMES))), np.zeros(W), np.full(W, math.nan))
            self._rings[key] = ring
        win, pk, util = ring
        win[:-1] = win[1:]
        pk[:-1] = pk[1:]
        util[:-1] = util[1:]
        win[-1] = 0.0 if counts is None else counts
        pk[-1] = packets
        util[-1] = util_pct
        if not win.any():
            del self._rings[key]
            return None
        return win, pk

    def carried(self, key: tuple[str, str], window: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The packets the link moved and its utilisation (NaN: unknown) in each of the last `window` intervals
        its window holds, oldest first; None when nothing is held."""
        ring = self._rings.get(key)
        return None if ring is None else (ring[1][-window:], ring[2][-window:])

    def held(self, key: tuple[str, str]) -> tuple[np.ndarray, np.ndarray] | None:
        """The counts of every interval the link's window holds (intervals x EVIDENCE_NAMES) and its utilisation
        in each (NaN: unknown), oldest first; None when nothing is held."""
        ring = self._rings.get(key)
        return None if ring is None else (ring[0], ring[2])

    def forget(self, keys: Iterable[tuple[str, str]]) -> None:
        for key in keys:
            self._rings.pop(key, None)

    def active(self) -> set[tuple[str, str]]:
        return set(self._rings)
