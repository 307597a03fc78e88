"""The batch replay (`line_reader` -> `interval_fold`) gives the intervals the scalar rate engine and
aggregator give, whatever the counters do: wraps (32 and 64 bits), clears, saturation of IB error
counters, gaps, repeated instants, module readings every few minutes, negotiated speed, counters sent
in a notification of their own time or only now and then, lines it must hand to the full parser."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricwatch.core.lineprotocol import parse_line
from fabricwatch.detection.detector import LinkDetector
from fabricwatch.detection.interval_fold import ColumnarIntervals, ReplayReport, intervals_from_files
from fabricwatch.detection.line_reader import columns_from_series
from fabricwatch.detection.replay import ReadReport, intervals_from_lp
from fabricwatch.models.features import FeatureBuilder, rate_matrix

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT.parent / "shared" / "scenarios"

# (field, how it moves): a counter, a 32-bit one that wraps, a saturating IB error counter, a gauge
FIELDS = ("in_octets", "out_pkts", "pause_rx", "symbol_errors", "link_downed", "ecn_marked")
SAT16 = (1 << 16) - 1  # link_downed is 8 bits, symbol_errors 16 in the IB vocabulary


def _key(intervals: list) -> list:
    out = []
    for iv in intervals:
        start, links = iv[0], iv[1]
        out.append((start, sorted(
            (li.device, li.port, li.start_ns, sorted(li.tags.items()), sorted(li.rates.items()),
             sorted(li.saturated), sorted(li.optics.items()), li.optics_ns) for li in links)))
    return out


def _same(a: list, b: list) -> None:
    for w in b:  # the columnar windows' rate matrices are what FeatureBuilder would build from their links
        np.testing.assert_array_equal(w.rates, rate_matrix(w.links))
    ka, kb = _key(a), _key(b)
    assert [s for s, _ in ka] == [s for s, _ in kb]
    for (s, la), (_, lb) in zip(ka, kb, strict=True):
        assert la == lb, f"interval {s}"


def _columnar(paths: list[Path], interval_s: float, chunk_bytes: int) -> tuple[list, ReplayReport]:
    report = ReplayReport()
    out = [iv for chunk in intervals_from_files(paths, interval_s, report=report, chunk_bytes=chunk_bytes)
           for iv in chunk]
    return out, report


def _both_folds(path: Path, lines: list[str], chunk_bytes: int) -> list:
    """Write `lines` to `path`, fold them both ways, check the folds agree; the columnar intervals."""
    path.write_text("\n".join(lines) + "\n")
    scalar = intervals_from_lp([path], 30.0)
    columnar, _ = _columnar([path], 30.0, chunk_bytes)
    _same(scalar, columnar)
    return columnar


step = st.tuples(
    st.integers(0, 40),  # seconds since the previous sample of this port (0: the same instant again)
    st.sampled_from(["up", "up", "up", "wrap", "clear", "saturate", "missing"]),
    st.booleans(),  # a module reading with it
)


@st.composite
def streams(draw: st.DrawFn) -> str:
    ports = draw(st.integers(1, 3))
    lines = []
    for p in range(ports):
        t = 1_000_000_000 * draw(st.integers(0, 100))
        vals = {"in_octets": draw(st.integers(0, 2**64 - 1)), "out_pkts": draw(st.integers(0, 2**32 - 1)),
                "pause_rx": 0, "symbol_errors": draw(st.integers(0, SAT16)), "link_downed": 0, "ecn_marked": 7}
        for gap_s, move, module in draw(st.lists(step, min_size=1, max_size=25)):
            t += gap_s * 1_000_000_000 + (400_000_000_000 if move == "missing" else 0)
            if move == "wrap":
                vals["in_octets"] = (vals["in_octets"] + 2**63 + 12345) % 2**64
                vals["out_pkts"] = (vals["out_pkts"] + 2**31 + 99) % 2**32
            elif move == "clear":
                vals = {k: 0 for k in vals}
            elif move == "saturate":
                vals["symbol_errors"] = SAT16
            else:
                vals["in_octets"] = (vals["in_octets"] + draw(st.integers(0, 10**12))) % 2**64
                vals["out_pkts"] = (vals["out_pkts"] + draw(st.integers(0, 10**6))) % 2**32
                vals["symbol_errors"] = min(SAT16, vals["symbol_errors"] + draw(st.integers(0, 50)))
                vals["pause_rx"] += draw(st.integers(0, 1000))
                vals["ecn_marked"] += draw(st.integers(0, 100))
            # how the device sends it: whole; PFC and ECN in a notification of their own, stamped up to
            # 0.9 s later; or those two left out (sent only when they change)
            how = draw(st.sampled_from(["whole", "whole", "part", "suppressed", "state", "queues"]))
            own = {k: v for k, v in vals.items() if how == "whole" or k not in ("pause_rx", "ecn_marked")}
            if how == "queues":  # ECN marks per queue, each sent only when it changed (the port's: their sum)
                for q, share in ((3, 1), (4, 2)):
                    if draw(st.booleans()):
                        own[f"ecn_marked_pkts_queue{q}"] = vals["ecn_marked"] // share
            ints = [f"{k}={v}i" if k != "in_octets" or v < 2**63 else f"{k}={v}u" for k, v in own.items()]
            extra = ["speed_bps=400000000000i"] if draw(st.booleans()) else []
            tags = f"port_counters,device=sw{p % 2},port=p{p},role=leaf_down,speed=400G"
            lines.append(f"{tags} {','.join(ints + extra)} {t}")
            if how == "part":
                lines.append(f"{tags} pause_rx={vals['pause_rx']}i,ecn_marked={vals['ecn_marked']}i "
                             f"{t + draw(st.integers(1, 900)) * 1_000_000}")
            elif how == "state":  # the port's state sent alone when it changes, with what it trained to
                speed = draw(st.sampled_from(["", ",speed_bps=200000000000i", ",speed_bps=0i"]))
                lines.append(f"{tags} oper_status={draw(st.integers(0, 1))}i{speed} "
                             f"{t + draw(st.integers(0, 9_000)) * 1_000_000}")
            if module:  # the module's readings, with the counters or on a line of their own seconds later
                lines.append(f"{tags} temperature_c={draw(st.floats(20, 90)):.2f},"
                             f"rx_power_dbm_l1={draw(st.floats(-12, 3)):.3f},fec_corrected={t // 7}i "
                             f"{t + draw(st.sampled_from([0, 0, 3, 13])) * 1_000_000_000}")
    lines.sort(key=lambda ln: int(ln.rsplit(" ", 1)[1]))  # a recording is in time order
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=streams(), interval=st.sampled_from([10.0, 30.0, 60.0]), chunk=st.sampled_from([200, 1500, 1 << 20]))
def test_columnar_intervals_are_the_scalar_ones(tmp_path_factory, text: str, interval: float, chunk: int) -> None:
    path = tmp_path_factory.mktemp("lp") / "c.lp"
    path.write_text(text)
    scalar = intervals_from_lp([path], interval)
    columnar, report = _columnar([path], interval, chunk)
    _same(scalar, columnar)
    assert report.late == 0


def test_lines_for_the_full_parser_are_read_as_read_samples_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "odd.lp"
    lines = [
        "# a comment line",
        "",
        r'port_counters,device=sw\ 1,port=Eth1/1,role=leaf_down in_octets=100i,note="a string, with spaces" 1000000000',
        "port_counters,device=sw2,port=p1 in_octets=100i,up=true 1000000000",
        "port_counters,device=sw2,port=p1 in_octets=1.5e3,pause_rx=3i 31000000000",  # a float counter
        "port_counters,device=sw2,port=p1 in_octets=9000,pause_rx=+4i 61000000000",  # bad field: skipped
        "port_counters,device=sw2,port=p1 in_octets=9000,pause_rx=9i 91000000000",
        "port_counters,device=sw2 in_octets=5i 91000000000",  # no port: skipped
        "other,device=sw2,port=p1 in_octets=5i 91000000000",  # another measurement: skipped
        "port_counters,device=sw2,port=p1 in_octets=5i",  # no timestamp: skipped
        r"port_counters,device=sw\ 1,port=Eth1/1,role=leaf_down in_octets=4100i 31000000000",
        "port_counters,device=sw2,port=p1  in_octets=9100,pause_rx=10i 121000000000",  # two spaces
        "port_counters,device=sw2,port=p1 in_octets=9200,pause_rx=11i 151000000000\r",
        "port_counters,device=sw2,port=p1 in_octets=1_0i 181000000000",  # not line protocol
    ]
    path.write_text("\n".join(lines))  # the last line has no newline
    rr = ReadReport()
    scalar = intervals_from_lp([path], 30.0, report=rr)
    columnar, report = _columnar([path], 30.0, 1 << 20)
    _same(scalar, columnar)
    assert scalar  # the plain and the escaped port both gave intervals
    assert {li.device for w in columnar for li in w.links} == {"sw 1", "sw2"}
    assert (report.lines, report.samples, report.skipped) == (rr.lines, rr.samples, rr.skipped)
    assert [e.split(":", 1)[1] for e in report.errors] == [e.split(":", 1)[1] for e in rr.errors]
    assert report.errors and all(e.startswith(str(path)) for e in report.errors)


def test_a_sample_older_than_what_was_folded_is_counted_late(tmp_path: Path) -> None:
    path = tmp_path / "late.lp"
    rows = [(s, 100 * s) for s in range(0, 300, 10)]
    lines = [f"port_counters,device=sw,port=p1 in_octets={v}i {s * 10**9}" for s, v in rows]
    lines.insert(25, "port_counters,device=sw,port=p1 in_octets=1i 5000000000")  # from second 5
    path.write_text("\n".join(lines) + "\n")
    columnar, report = _columnar([path], 30.0, 300)
    assert report.late == 1
    assert len(columnar) == 10  # the late sample moved nothing: 100 octets a second throughout
    assert all(math.isclose(li.rates["in_octets"], 100.0) for w in columnar for li in w.links)


def test_links_first_seen_in_a_later_chunk_are_remembered_with_the_earlier_ones(tmp_path: Path) -> None:
    """A chunk that brings more links than an earlier one knew of (hypothesis found an IndexError)."""
    head = "port_counters,device=sw{d},port=p{p},role=leaf_down,speed=400G"
    path = tmp_path / "c.lp"
    path.write_text(f"{head.format(d=0, p=2)} in_octets=0i,ecn_marked=7i 0\n"
                    f"{head.format(d=0, p=0)} in_octets=5i,ecn_marked=7i 10000000000\n"
                    f"{head.format(d=1, p=1)} in_octets=0i,ecn_marked=7i 10000000000\n"
                    f"{head.format(d=0, p=0)} in_octets=25i,ecn_marked=9i 20000000000\n")
    columnar, _ = _columnar([path], 10.0, 60)
    _same(intervals_from_lp([path], 10.0), columnar)


@pytest.mark.parametrize("scenario", ["ib-ndr", "roce-maintenance", "roce-multitenant"])
def test_scenario_bank_recordings_give_the_scalar_intervals(tmp_path: Path, scenario: str) -> None:
    """Counters from someone else's fabric model (../shared/scenarios: IB saturating counters, a
    reboot's resets and flaps, tenants' load swings): the same intervals."""
    subprocess.run([sys.executable, str(SCENARIOS / "generate.py"), str(tmp_path), "--scenario", scenario,
                    "--hours", "1"], check=True, stdout=subprocess.DEVNULL)
    path = tmp_path / scenario / "port_counters.lp"
    columnar, report = _columnar([path], 30.0, 1 << 20)
    scalar = intervals_from_lp([path], 30.0)
    assert len(scalar) >= 80
    _same(scalar, columnar)
    assert report.late == 0 and report.skipped == 0


@pytest.mark.parametrize("odd", [
    "in_octets={v}i,pause_rx={v}i",  # another layout with as many fields: the other order
    "pause_ry={v}i,in_octets={v}i",  # a name as long as the others', one character apart
    "pause_rx={v},in_octets={v}i",  # a float among integers
    "pause_rx=={v}i,in_octets={v}i",  # a field with two '='
    "={v}i,in_octets={v}i",  # a field without a name
    "pause_rx=,in_octets={v}i",  # a field without a value
    "pause_rx,in_octets={v}i",  # a field without '='
    "in_octets={v}i,in_octets={v}i",  # a name twice
    "pause_tx={v}i,in_octets={v}i",  # a name of the same length, same place
    "paüse_rx={v}i,in_octets={v}i",  # a name not in ASCII
])
def test_lines_of_another_layout_among_plain_ones_are_read_as_read_samples_reads_them(
        tmp_path: Path, odd: str) -> None:
    """The chunk's layout (the names of its fields, in order) is checked on the bytes of every line:
    a line that differs in any way is read by its own names, or by the full parser, as read_samples reads it."""
    path = tmp_path / "mixed.lp"
    lines = []
    for t in range(0, 240, 10):
        for p in range(3):
            fields = odd.format(v=t * p + 7) if (t, p) in ((60, 1), (130, 2)) else f"pause_rx={t}i,in_octets={t * p}i"
            lines.append(f"port_counters,device=sw,port=p{p},role=leaf_down {fields} {t * 10**9}")
    path.write_text("\n".join(lines) + "\n")
    rr = ReadReport()
    scalar = intervals_from_lp([path], 30.0, report=rr)
    for chunk in (1 << 20, 700):
        columnar, report = _columnar([path], 30.0, chunk)
        _same(scalar, columnar)
        assert (report.lines, report.samples, report.skipped) == (rr.lines, rr.samples, rr.skipped)
        assert [e.split(":", 2)[2] for e in report.errors] == [e.split(":", 2)[2] for e in rr.errors]


@pytest.mark.parametrize("value", ["+5i", "9223372036854775808i", "-9223372036854775809i", "18446744073709551616u",
                                   "5\ti", "1e3i", "٣i", "0x10i", "5", "-0.5", "1.5e-3", "18446744073709551615u"])
def test_a_value_numpy_would_read_otherwise_goes_to_the_full_parser(tmp_path: Path, value: str) -> None:
    """Numbers numpy reads leniently (a sign, a blank, past 64 bits) are read as parse_line reads them."""
    path = tmp_path / "v.lp"
    lines = [f"port_counters,device=sw,port=p1 in_octets={v},pause_rx=1i {t * 10**9}"
             for t, v in ((0, "1i"), (10, value), (20, "7i"), (50, "9i"))]
    path.write_text("\n".join(lines) + "\n")
    rr = ReadReport()
    scalar = intervals_from_lp([path], 30.0, report=rr)
    columnar, report = _columnar([path], 30.0, 1 << 20)
    _same(scalar, columnar)
    assert (report.samples, report.skipped) == (rr.samples, rr.skipped)


def test_replay_command_finds_what_the_streaming_path_finds(tmp_path: Path) -> None:
    """`fabricwatch replay` (columnar, chunked, forest scored in batches) against the daemon's own
    per-sample path (RateEngine, IntervalAggregator, one frame at a time) on a scenario with faults:
    the same findings, to the word."""
    subprocess.run([sys.executable, str(SCENARIOS / "generate.py"), str(tmp_path), "--scenario", "roce-multitenant",
                    "--hours", "1.5"], check=True, stdout=subprocess.DEVNULL)
    path = tmp_path / "roce-multitenant" / "port_counters.lp"
    fit_s = 1800
    # the command runs in its own process while this one takes the streaming path
    with subprocess.Popen([sys.executable, "-m", "fabricwatch", "replay", str(path), "--fit-first", f"{fit_s}s",
                           "--json"], stdout=subprocess.PIPE, text=True) as proc:
        intervals = intervals_from_lp([path], 30.0)
        t0 = intervals[0][0]
        fit = [iv for iv in intervals if iv[0] < t0 + fit_s * 10**9]
        rest = [iv for iv in intervals if iv[0] >= t0 + fit_s * 10**9]
        fb = FeatureBuilder(30.0)
        det = LinkDetector(interval_s=30.0).fit([fb.build(s, links) for s, links in fit])
        fb = FeatureBuilder(30.0)
        streamed = [line for s, links in rest for f in det.detect(fb.build(s, links)) for line in f.per_link()]
        out, _ = proc.communicate()
    assert proc.returncode == 0
    replayed = [json.loads(line) for line in out.splitlines()]

    assert len(streamed) >= 10, "the scenario's faults give findings"

    def key(f: dict) -> tuple:
        return (f["time_ns"], f["device"], f["port"], f["severity"], f["source"], tuple(f["conditions"]),
                f["explanation"], f["score"])

    assert sorted(map(key, replayed)) == sorted(map(key, streamed))


def _as_influx_answer(text: str) -> list[dict]:
    """What InfluxQL's `SELECT * ... GROUP BY *` answers for these lines: a series per tag set, a
    column per field, None where a point lacks one, times in ns."""
    by_tags: dict[tuple, list[tuple[int, dict]]] = {}
    for line in text.splitlines():
        _, tags, fields, ts = parse_line(line)
        by_tags.setdefault(tuple(sorted(tags.items())), []).append((ts, fields))
    out = []
    for tags, points in by_tags.items():
        names = sorted({k for _, f in points for k in f})
        out.append({"name": "port_counters", "tags": dict(tags), "columns": ["time", *names],
                    "values": [[ts, *(f.get(k) for k in names)] for ts, f in sorted(points, key=lambda p: p[0])]})
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=streams())
def test_stored_series_give_the_intervals_their_lines_give(tmp_path_factory, text: str) -> None:
    """`replay --influx-url` reads InfluxDB's JSON into the same columns as the file's lines."""
    path = tmp_path_factory.mktemp("lp") / "c.lp"
    path.write_text(text)
    folder = ColumnarIntervals(30.0)
    got = folder.feed(columns_from_series(_as_influx_answer(text), folder.catalog, folder.report)) + folder.flush()
    _same(intervals_from_lp([path], 30.0), got)


def test_progress_counts_the_bytes_of_every_file(tmp_path: Path) -> None:
    paths = []
    for n in range(2):
        p = tmp_path / f"{n}.lp"
        p.write_text("".join(f"port_counters,device=sw,port=p{n} in_octets={s * 7}i {s * 10**9}\n" for s in range(400)))
        paths.append(p)
    seen: list[tuple[int, int]] = []
    list(intervals_from_files(paths, 30.0, chunk_bytes=2000, progress=lambda done, total: seen.append((done, total))))
    total = sum(p.stat().st_size for p in paths)
    assert len(seen) > 4 and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize("field", ["temperature", "temperature_c"])
def test_a_module_temperature_written_without_its_unit_is_read_as_the_canonical_one(
        tmp_path: Path, field: str) -> None:
    """A recording made by another tool names the module's temperature `temperature`: it reaches the trend
    watch as `temperature_c`, as a recording of ours does (an overheating module was otherwise unseen)."""
    path = tmp_path / "temp.lp"
    path.write_text("".join(f"port_counters,device=sw,port=p1 in_octets={100 * s}i,{field}={40 + s / 60} "
                            f"{s * 10**9}\n" for s in range(0, 300, 10)))
    columnar, _ = _columnar([path], 30.0, 1 << 20)
    temps = [li.optics.get("temperature_c") for w in columnar for li in w.links]
    assert temps and all(t is not None and 40 <= t <= 45 for t in temps), temps


def test_fields_outside_the_vocabulary_are_named_not_silently_dropped(tmp_path: Path) -> None:
    """Bad input gets a clear answer: a field fabricwatch has no counter for (a vendor's own name for a
    module's temperature) is not read, and the report names it, so an operator knows what was left out;
    a field under one of the vocabulary's aliases is read and not named."""
    lines = [f"port_counters,device=sw1,port=p1 in_octets={1000 * i}i,module_temp_c=45.5,module_temperature=41.0,"
             f"vendor_widgets={i}i {i * 30_000_000_000}" for i in range(1, 6)]
    path = tmp_path / "x.lp"
    path.write_text("\n".join(lines) + "\n")
    report = ReplayReport()
    list(intervals_from_files([path], 30.0, report=report))
    assert report.samples == 5
    assert report.unread_fields == {"module_temp_c": 5, "vendor_widgets": 5}


def test_an_extended_ib_counter_past_the_classic_ceiling_is_counted_not_saturated(tmp_path: Path) -> None:
    """The same through every path: `PortRcvSwitchRelayErrorsExtended` (UFM Telemetry, PortCountersExtended) is
    64 bits wide and never saturates; its classic 16-bit spelling stops at 65535. Replay reads the width of the
    spelling it was given, as the daemon's collectors do: past 65535 the extended counter counts on, while the
    classic one at its ceiling is saturated (a blind spot), through both readers alike. A counter read above the
    all-ones of its classic width cannot be that width (ibdiagnet names PortCountersExtended's 64-bit counters
    by the classic names): it counts on too."""
    lines = []
    for i in range(8):
        t = i * 30_000_000_000
        lines.append(f"port_counters,device=ufm,port=p1 PortXmitDataExtended={10**9 * i}i,"
                     f"PortRcvSwitchRelayErrorsExtended={70_000 + 300 * i}i {t}")
        lines.append(f"port_counters,device=ibdiag,port=p1 PortXmitData={10**6 * i}i,"
                     f"PortRcvSwitchRelayErrors=65535i {t}")
        lines.append(f"port_counters,device=qm9700,port=1 port_xmit_data={10**9 * i}i,"
                     f"port_rcv_switch_relay_errors={60_000 + 300 * i}i {t}")
    columnar = _both_folds(tmp_path / "ext.lp", lines, 1 << 20)
    by_device: dict[str, list] = {}
    for w in columnar:
        for li in w.links:
            by_device.setdefault(li.device, []).append(li)
    ibdiag = by_device["ibdiag"]
    for wide in (by_device["ufm"], by_device["qm9700"]):
        assert len(wide) >= 6 and not any(li.saturated for li in wide)
        assert all(li.rates.get("rcv_switch_relay_errors") == pytest.approx(10.0) for li in wide[1:])
    assert ibdiag and all("rcv_switch_relay_errors" in li.saturated for li in ibdiag[1:])


def test_a_state_sent_only_when_it_changes_holds_until_the_next_one(tmp_path: Path) -> None:
    """State is a signal, and a state holds until it is reported otherwise (Telegraf's dedup processor, gNMI
    ON_CHANGE, UFM's five-minute secondary counters send it only when it changes or now and then): a port
    reported down once and then only by its counters is down in every interval until it is reported up, or
    until its counters move again: traffic through a port is the port up, whatever report is late."""
    lines = []
    for i in range(20):
        state = ",oper_status=0i" if i == 3 else ",oper_status=1i" if i in (0, 15) else ""
        traffic = 0 if 3 <= i < 15 else 10**9 * i
        lines.append(f"port_counters,device=sw,port=p1 in_octets={traffic}i{state} {i * 30_000_000_000}")
        # down at 3, its traffic back from 8 on with no state reported until 15
        moving = 10**9 * i if i < 3 or i >= 8 else 3 * 10**9
        lines.append(f"port_counters,device=sw,port=p2 in_octets={moving}i{state} {i * 30_000_000_000}")
    columnar = _both_folds(tmp_path / "dedup.lp", lines, 200)
    states = {li.start_ns // 30_000_000_000: li.rates.get("oper_status") for w in columnar for li in w.links
              if li.port == "p1"}
    assert all(states[k] == 0.0 for k in range(3, 15) if k in states), states
    assert all(states[k] == 1.0 for k in range(15, 20) if k in states), states
    assert len([k for k in range(3, 15) if k in states]) >= 10
    back = {li.start_ns // 30_000_000_000: li.rates.get("oper_status") for w in columnar for li in w.links
            if li.port == "p2"}
    assert back[4] == 0.0 and all(back[k] == 1.0 for k in range(9, 20) if k in back), back


def test_a_trained_speed_sent_only_when_it_changes_holds_until_the_next_one(tmp_path: Path) -> None:
    """What a link trained to is a state as much as up or down is, and holds until reported otherwise: an
    exporter that sends the speed only when it changes (node_exporter through a dedup processor, gNMI
    ON_CHANGE) says 200G once after a retrain; every interval after it is 200G, in both folds, not only the
    one that carried the report."""
    lines = []
    for i in range(20):
        speed = ",speed_bps=400000000000i" if i == 1 else ",speed_bps=200000000000i" if i == 5 else ""
        lines.append(f"port_counters,device=sw,port=p1 in_octets={10**9 * i}i{speed} {i * 30_000_000_000}")
    columnar = _both_folds(tmp_path / "dedup.lp", lines, 200)
    speeds = {li.start_ns // 30_000_000_000: li.rates.get("speed_bps") for w in columnar for li in w.links}
    assert all(speeds[k] == 400e9 for k in range(2, 5) if k in speeds), speeds
    assert all(speeds[k] == 200e9 for k in range(6, 20) if k in speeds), speeds
    assert len([k for k in range(6, 20) if k in speeds]) >= 12


def test_a_counter_stuck_at_the_all_ones_of_its_width_is_saturated_in_both_folds(tmp_path: Path) -> None:
    """A counter that cannot count is no evidence, through every path: node_exporter's 32-bit
    port_transmit_wait held at 2**32 - 1 is saturated in the intervals of both folds (the detector's
    blind spot), while a sibling HCA's counter that still counts is read as it counts."""
    lines = []
    for i in range(12):
        t = i * 30_000_000_000
        for port, wait in (("mlx5_0", 2**32 - 1), ("mlx5_1", 10**6 * i)):
            lines.append(f"port_counters,device=dgx1,port={port},role=hca port_data_received_bytes_total="
                         f"{10**9 * i},port_transmit_wait_total={wait} {t}")
    columnar = _both_folds(tmp_path / "hca.lp", lines, 300)
    by_port: dict[str, list] = {}
    for w in columnar:
        for li in w.links:
            by_port.setdefault(li.port, []).append(li)
    assert len(by_port["mlx5_0"]) >= 10 and all("xmit_wait" in li.saturated for li in by_port["mlx5_0"])
    assert all("xmit_wait" not in li.rates for li in by_port["mlx5_0"])  # nothing known of it: not 0
    assert all(not li.saturated and li.rates["xmit_wait"] > 0 for li in by_port["mlx5_1"])


def test_a_speed_read_while_down_is_not_held_into_the_link_up_again(tmp_path: Path) -> None:
    """A link has a trained speed only while up: the kernel says 10G for an HCA port that is down, and a
    reading from an interval in which the link went down or came back mixes two trainings. Neither is held
    into the intervals after: until the link says what it trained to, nothing is known of it, in both folds."""
    lines = []
    for i in range(20):
        if i == 1:
            extra = ",state_id=4,rate_bytes_per_second=50000000000"
        elif i == 6:  # down, with the placeholder speed
            extra = ",state_id=1,rate_bytes_per_second=1250000000"
        elif i == 10:  # up again, saying the state and not the speed
            extra = ",state_id=4"
        else:
            extra = ""
        moved = 10**12 * i if not 6 <= i < 10 else 10**12 * 6
        lines.append(f"port_counters,device=dgx,port=mlx5_0,role=hca port_data_received_bytes_total={moved}{extra} "
                     f"{i * 30_000_000_000}")
    columnar = _both_folds(tmp_path / "down.lp", lines, 250)
    speeds = {li.start_ns // 30_000_000_000: li.rates.get("speed_bps") for w in columnar for li in w.links}
    assert all(speeds[k] == 400e9 for k in range(2, 6) if k in speeds), speeds
    assert all(speeds[k] is None for k in range(10, 20) if k in speeds), speeds


def test_a_speed_read_in_a_sample_that_says_the_link_is_down_is_no_part_of_its_interval(tmp_path: Path) -> None:
    """A link trained to what it says while up: in an interval whose first sample reads the HCA up at 400G and
    whose second reads it down with the kernel's 10G placeholder (its far switch rebooting), the link ran at
    400G, not at the 205G the two average to (which reads as a link trained down), in both folds."""
    lines = []
    for i in range(12):
        down = i >= 5
        extra = ",state_id=1,rate_bytes_per_second=1250000000" if down else \
            ",state_id=4,rate_bytes_per_second=50000000000"
        moved = 10**12 * min(i, 5)
        lines.append(f"port_counters,device=dgx,port=mlx5_0,role=hca port_data_received_bytes_total={moved}{extra} "
                     f"{i * 15_000_000_000}")
    columnar = _both_folds(tmp_path / "going_down.lp", lines, 250)
    speeds = {li.start_ns // 30_000_000_000: li.rates.get("speed_bps") for w in columnar for li in w.links}
    assert speeds.get(2) == 400e9, speeds  # the samples at 30 s (up) and 45 s (down, 10G)
    assert all(v is None or v == 400e9 for v in speeds.values()), speeds


def test_a_state_said_only_in_a_ports_first_sample_holds_from_it(tmp_path: Path) -> None:
    """A state holds from its first report: a daemon started (or a recording begun) while a port is down
    and an exporter that sends its state only when it changes says "down" once, in the first sample, which
    has no rates yet. Every interval after is down, in both folds, and a link first seen up keeps its speed."""
    lines = []
    for i in range(12):
        first = i == 0
        lines.append(f"port_counters,device=dgx,port=mlx5_0,role=hca port_data_received_bytes_total=5"
                     f"{',state_id=1,physical_state_id=2' if first else ''} {i * 30_000_000_000}")
        lines.append(f"port_counters,device=dgx,port=mlx5_1,role=hca port_data_received_bytes_total={10**9 * i}"
                     f"{',state_id=4,rate_bytes_per_second=25000000000' if first else ''} {i * 30_000_000_000}")
    columnar = _both_folds(tmp_path / "first.lp", lines, 300)
    down = [li.rates.get("oper_status") for w in columnar for li in w.links if li.port == "mlx5_0"]
    speeds = [li.rates.get("speed_bps") for w in columnar for li in w.links if li.port == "mlx5_1"]
    assert len(down) >= 10 and all(v == 0.0 for v in down), down
    assert len(speeds) >= 10 and all(v == 200e9 for v in speeds), speeds


def test_a_speed_the_driver_cannot_tell_is_no_speed(tmp_path: Path) -> None:
    """A reading at the all-ones of its 32 bits is the driver's "unknown" (ethtool's SPEED_UNKNOWN, -1 read
    unsigned, while a NIC's link is down), not a link trained to 4,295 Tb/s: in both readers it is no speed,
    so the link trained back to 400G is no "trained lower than it held"."""
    lines = []
    for i in range(12):
        speed = 4294967295 if 4 <= i < 7 else 400000
        state = 0 if 4 <= i < 7 else 1
        lines.append(f"port_counters,device=gpu1,port=eth0,role=host rx_bytes_phy={10**9 * i},speed={speed},"
                     f"carrier={state} {i * 30_000_000_000}")
    columnar = _both_folds(tmp_path / "unknown.lp", lines, 300)
    speeds = [li.rates.get("speed_bps") for w in columnar for li in w.links]
    assert max(s for s in speeds if s is not None) == 400e9, speeds


def test_traffic_counted_before_a_port_went_down_does_not_bring_it_up(tmp_path: Path) -> None:
    """A state holds until the counters say otherwise, and only what they counted after it says so: a port shut
    at 119 s and a counter sample at 122 s whose bytes were counted since 62 s (a gNMI stream that sends
    counters every minute and states on change) carried them before the shut. The port is down from then
    on, in both folds; bytes counted after the shut would bring it up."""
    lines = ["port_counters,device=leaf,port=swp35 in_octets=0i,admin_status=1i,oper_status=1i 2000000000"]
    t = 2
    for i in range(1, 12):
        t = 2 + 60 * i
        moved = 10**9 * min(i, 2) if i < 9 else 10**9 * (i - 6)
        lines.append(f"port_counters,device=leaf,port=swp35 in_octets={moved}i {t * 1_000_000_000}")
        if i == 1:
            lines.append("port_counters,device=leaf,port=swp35 admin_status=0i,oper_status=0i 119000000000")
    lines.sort(key=lambda ln: int(ln.rsplit(" ", 1)[1]))
    columnar = _both_folds(tmp_path / "shut.lp", lines, 300)
    state = {li.start_ns // 30_000_000_000: li.rates.get("oper_status") for w in columnar for li in w.links}
    assert all(state[k] == 0.0 for k in range(4, 18) if k in state), state
    assert state[max(state)] == 1.0, state  # its counters moved again after the shut: up


def test_a_trickle_just_after_a_shut_does_not_bring_the_port_up(tmp_path: Path) -> None:
    """Only traffic that goes on says a port is up: a switch's counters sampled ten seconds after its port was
    shut still carry what was queued (counted after the shut, by a few megabytes) and then stop. The port
    stays down; counters that move interval after interval bring it up."""
    lines = ["port_counters,device=spine,port=swp1 in_octets=0i,admin_status=1i,oper_status=1i 0"]
    octets = 0
    for i in range(1, 40):
        octets += 10**9 if i < 12 else 10**7 if i == 12 else 10**9 if i >= 30 else 0
        if i == 11:
            lines.append("port_counters,device=spine,port=swp1 admin_status=0i,oper_status=0i 109500000000")
        lines.append(f"port_counters,device=spine,port=swp1 in_octets={octets}i {i * 10_000_000_000}")
    columnar = _both_folds(tmp_path / "drain.lp", lines, 400)
    state = {li.start_ns // 30_000_000_000: li.rates.get("oper_status") for w in columnar for li in w.links}
    assert all(state[k] == 0.0 for k in range(4, 10) if k in state), state
    assert state[max(state)] == 1.0, state


def test_what_holds_after_an_interval_is_its_latest_report_not_its_mean(tmp_path: Path) -> None:
    """A state holds until reported otherwise, and what was last reported is what holds: a link that went down
    and came back within one interval, saying its state and speed only when they change, is up at 400G in the
    intervals after, not 3/4 up at the mean of 400G and a placeholder 10G."""
    lines = ["port_counters,device=dgx,port=mlx5_0 port_data_received_bytes_total=0,state_id=4,"
             "rate_bytes_per_second=50000000000 0"]
    for i in range(1, 16):
        t = i * 30_000_000_000
        lines.append(f"port_counters,device=dgx,port=mlx5_0 port_data_received_bytes_total={10**9 * i} {t}")
        if i == 3:
            lines.append(f"port_counters,device=dgx,port=mlx5_0 state_id=1,rate_bytes_per_second=1250000000 "
                         f"{t + 5 * 10**9}")
            lines.append(f"port_counters,device=dgx,port=mlx5_0 state_id=4,rate_bytes_per_second=50000000000 "
                         f"{t + 20 * 10**9}")
    columnar = _both_folds(tmp_path / "flap.lp", lines, 300)
    after = [li.rates for w in columnar for li in w.links if li.start_ns // 30_000_000_000 >= 5]
    assert len(after) >= 9
    assert all(r.get("oper_status") == 1.0 and r.get("speed_bps") == 400e9 for r in after), after


def test_an_interval_the_link_bounced_in_is_not_given_the_held_speed(tmp_path: Path) -> None:
    """What a link trained to holds only while it stays up: in an interval it went down and came back in
    (its transitions counted, though every sample read it up), it may have trained to anything, so the held
    speed is not given to that interval, in both folds; the intervals before keep it."""
    lines = []
    for i in range(12):
        speed = ",speed_bps=400000000000i" if i == 1 else ""
        lines.append(f"port_counters,device=sw,port=p1 in_octets={10**9 * i}i,oper_status=1i,"
                     f"link_transitions={2 if i >= 6 else 0}i{speed} {i * 30_000_000_000}")
    columnar = _both_folds(tmp_path / "bounce.lp", lines, 250)
    speeds = {li.start_ns // 30_000_000_000: li.rates.get("speed_bps") for w in columnar for li in w.links}
    assert all(speeds[k] == 400e9 for k in range(2, 6)), speeds
    assert speeds[6] is None, speeds


def test_a_speed_in_a_first_sample_that_reads_the_link_down_is_not_held(tmp_path: Path) -> None:
    """A state holds from its first report, but a trained reading only from one taken while the link is up: a
    port first seen down carries the kernel's placeholder (10G for an HCA); seconds later it is up, saying
    only its state. Nothing is known of what it trained to until it says, in both folds."""
    lines = ["port_counters,device=dgx,port=mlx5_0 port_data_received_bytes_total=0,state_id=1,"
             "rate_bytes_per_second=1250000000 0",
             "port_counters,device=dgx,port=mlx5_0 state_id=4 5000000000"]
    for i in range(1, 12):
        lines.append(f"port_counters,device=dgx,port=mlx5_0 port_data_received_bytes_total={10**9 * i} "
                     f"{i * 30_000_000_000}")
    columnar = _both_folds(tmp_path / "first_down.lp", lines, 250)
    rates = [li.rates for w in columnar for li in w.links]
    assert len(rates) >= 10 and all(r.get("oper_status") == 1.0 for r in rates[1:]), rates
    assert all(r.get("speed_bps") is None for r in rates), rates


def test_traffic_counted_from_the_instant_a_state_was_said_is_counted_after_it(tmp_path: Path) -> None:
    """Only traffic counted after a state was said says otherwise, and a span that begins at the very sample
    that said it is after it: a port said down with its counters at 60 s whose counters move again from that
    sample on is up two intervals later (traffic two intervals running), not three, in both folds."""
    lines = []
    for i in range(12):
        moved = 10**9 * (1 if i < 3 else i - 1)  # flat from 30 s to 60 s, moving again from 60 s
        state = ",oper_status=1i" if i == 0 else ",oper_status=0i" if i == 2 else ""
        lines.append(f"port_counters,device=sw,port=p1 in_octets={moved}i{state} {i * 30_000_000_000}")
    columnar = _both_folds(tmp_path / "said.lp", lines, 250)
    state = {li.start_ns // 30_000_000_000: li.rates.get("oper_status") for w in columnar for li in w.links}
    assert state[2] == 0.0 and state[3] == 0.0, state
    assert state[4] == 1.0, state


def test_a_counter_kept_per_queue_is_the_ports_summed_over_its_queues(tmp_path: Path) -> None:
    """A known input is read, whole: a switch with two lossless classes counts ECN marks per queue
    (`ecn_marked_pkts_queue3`, `..._queue4`), and a gNMI stream with `suppress_redundant` sends each only when
    it changes. The port's marks are the sum over its queues, a queue not sent being a queue that did not
    change, in both folds; no queue is left unread."""
    lines = []
    q3 = q4 = 0
    for k in range(49):
        fields = f"in_octets={10**9 * k}i"
        if k < 37:  # then the port stops marking: neither queue is sent again
            q3 += 100
            fields += f",ecn_marked_pkts_queue3={q3}i"
            if k % 3 == 0:
                q4 += 50
                fields += f",ecn_marked_pkts_queue4={q4}i"
        lines.append(f"port_counters,device=leaf,port=swp1 {fields} {k * 10_000_000_000}")
    columnar = _both_folds(tmp_path / "queues.lp", lines, 300)
    marks = {li.start_ns // 30_000_000_000: li.rates.get("ecn_marked") for w in columnar for li in w.links}
    assert len([k for k in range(2, 12) if k in marks]) >= 9, marks
    assert all(marks[k] == pytest.approx(350 / 30) for k in range(2, 12) if k in marks), marks
    assert all(marks[k] == 0.0 for k in range(13, 16)), marks  # none sent: none changed, not unknown
    report = ReplayReport()
    list(intervals_from_files([tmp_path / "queues.lp"], 30.0, report=report))
    assert report.unread_fields == {}, report.unread_fields


def test_an_octet_counter_the_link_can_fill_between_two_samples_says_nothing_of_that_span(tmp_path: Path) -> None:
    """A counter that cannot count is no evidence: IF-MIB's 32-bit ifInOctets on a 400G port polled every minute
    wraps hundreds of times between polls (RFC 2863 asks for the HC columns above 20 Mb/s), so what it moved
    modulo 2**32 is no rate, neither a trickle nor idle: the interval has none, in both folds, and is not filled
    as unchanged. The same counter on a 100M port, which cannot fill it in a minute, is read."""
    lines = []
    for i in range(12):
        t = i * 60_000_000_000
        lines.append(f"port_counters,device=sw,port=fast,speed=400G ifInOctets={(i * 9 * 10**11) % 2**32}i,"
                     f"ifHCInUcastPkts={i * 10**8}i {t}")
        lines.append(f"port_counters,device=sw,port=slow,speed=100M ifInOctets={(i * 3 * 10**8) % 2**32}i,"
                     f"ifHCInUcastPkts={i * 10**5}i {t}")
    columnar = _both_folds(tmp_path / "c32.lp", lines, 300)
    fast = [li for w in columnar for li in w.links if li.port == "fast"]
    slow = [li for w in columnar for li in w.links if li.port == "slow"]
    assert len(fast) >= 10 and all("in_octets" not in li.rates and "in_octets" in li.saturated for li in fast)
    assert len(slow) >= 10 and all(li.rates["in_octets"] == pytest.approx(5e6) for li in slow)


def test_a_module_reading_between_two_counter_samples_does_not_shorten_the_time_they_cover(tmp_path: Path) -> None:
    """The same through every path, and a reading of the module alone is no time covered: a switch polled every
    minute whose transceiver readings come on lines of their own, seconds before a counter sample, moves 30 GB a
    minute, 500 MB/s, in every interval, in both folds (not 2.3 GB/s over the 13 s since the module's line)."""
    lines = []
    for i in range(12):
        t = i * 60_000_000_000 + 2_000_000_000
        lines.append(f"port_counters,device=sw,port=p1,speed=400G in_octets={i * 30 * 10**9}i {t}")
        if i % 3 == 1:
            lines.append(f"port_counters,device=sw,port=p1,speed=400G temperature_c=51.5,rx_power_dbm_l1=-1.2 "
                         f"{t + 47_000_000_000}")
    lines.sort(key=lambda ln: int(ln.rsplit(" ", 1)[1]))
    columnar = _both_folds(tmp_path / "module.lp", lines, 300)
    rates = [li.rates["in_octets"] for w in columnar for li in w.links if "in_octets" in li.rates]
    assert len(rates) >= 10 and all(r == pytest.approx(5e8) for r in rates), rates
