"""The same through every path: what the daemon's pipeline hands its detector folds into the intervals a replay
of the same recording folds (same rates, states, trained readings, saturated counters and module readings)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricwatch.core.batch import SampleBatch
from fabricwatch.detection.replay import ReadReport, intervals_from_samples, read_samples
from fabricwatch.models.intervals import IntervalAggregator
from fabricwatch.pipeline.pipeline import Pipeline
from tests.unit.test_interval_fold import streams


def _view(intervals: list) -> list:
    return [(start, sorted((li.device, li.port, sorted(li.rates.items()), sorted(li.saturated),
                            sorted(li.optics.items()), li.optics_ns) for li in links))
            for start, links in intervals]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=streams(), interval=st.sampled_from([10.0, 30.0, 60.0]))
def test_the_daemon_folds_a_recording_as_its_replay_does(tmp_path_factory, text: str, interval: float) -> None:
    path: Path = tmp_path_factory.mktemp("lp") / "d.lp"
    path.write_text(text)
    samples = list(read_samples([path], ReadReport()))
    replayed = intervals_from_samples(samples, interval)
    agg = IntervalAggregator(interval)
    pipeline = Pipeline()
    pipeline.on_rates = agg.add
    for s in sorted(samples, key=lambda s: s.ts_ns):
        pipeline.process(SampleBatch("recording", s.device, [s]))
    assert _view(agg.flush()) == _view(replayed)
