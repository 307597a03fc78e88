"""The VictoriaMetrics client (`--vm-url`) takes whatever a server on the other end answers its query,
label and export APIs with (a proxy's page, another server's JSON, bytes that are not text, JSON nested
beyond the parser): answers of the documented shape, or PromQLError that says what was wrong. The
post-mortem history built on it then never fails otherwise. The peer is a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fabricwatch.core.promql import PromQL, PromQLError
from fabricwatch.postmortem.store import Window
from fabricwatch.postmortem.victoria import VictoriaHistory
from tests.servers import VictoriaMetrics


class Answer:
    body = b"{}"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(Answer.body)))
            self.end_headers()
            self.wfile.write(Answer.body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6)
json_values = st.recursive(scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c,
                                                                                        max_size=3), max_leaves=12)
metrics = st.fixed_dictionaries({"__name__": st.sampled_from(["port_rates_pause_rx", "link_anomaly_flagged"])},
                                optional={"device": st.text(max_size=4) | json_values,
                                          "port": st.text(max_size=4)}) | json_values
numbers = st.sampled_from(["1.5", "0", "NaN", "+Inf", "x"]) | scalars
items = st.fixed_dictionaries({"metric": metrics},
                              optional={"value": st.lists(st.integers(0, 2**40) | numbers, max_size=3) | json_values})
statuses = st.sampled_from(["success", "error"]) | json_values
query_answers = st.builds(
    lambda s, t, r: {"status": s, "data": {"resultType": t, "result": r}},
    statuses, st.sampled_from(["vector", "matrix"]) | json_values, st.lists(items, max_size=3) | json_values)
name_answers = st.builds(lambda s, d: {"status": s, "data": d}, statuses,
                         st.lists(st.text(max_size=6) | json_values, max_size=3) | json_values)
export_lines = st.fixed_dictionaries(
    {"metric": metrics},
    optional={"values": st.lists(st.integers(0, 9) | st.floats(allow_nan=False) | scalars, max_size=3) | json_values,
              "timestamps": st.lists(st.integers(0, 2**42) | scalars, max_size=3) | json_values}) | json_values
exports = st.lists(export_lines, max_size=3).map(lambda lines: b"\n".join(json.dumps(x).encode() for x in lines))
answers = (st.one_of(json_values, query_answers, name_answers).map(lambda a: json.dumps(a).encode())
           | exports | st.binary(max_size=40).map(lambda b: b"\x00" + b)
           | st.sampled_from([b"<html><body>502 Bad Gateway</body></html>", b"\xff\xfe{}", b"[" * 100_000]))


def _labels(metric: object) -> bool:
    return isinstance(metric, dict) and all(isinstance(v, str) for v in metric.values())


def _real(x: object) -> bool:
    return type(x) in (int, float)


def valid_item(item: object) -> bool:
    """An instant vector's element as Prometheus documents it, stated here independently of the client."""
    if not isinstance(item, dict) or not _labels(item.get("metric")):
        return False
    value = item.get("value")
    if type(value) is not list or len(value) != 2 or not _real(value[0]):
        return False
    try:
        float(value[1])
    except (TypeError, ValueError):
        return False
    return isinstance(value[1], str) or _real(value[1])


def valid_series(series: object) -> bool:
    """A line of /api/v1/export: labels, and as many numeric values as integer millisecond stamps."""
    if not isinstance(series, dict) or not _labels(series.get("metric")):
        return False
    values, stamps = series.get("values"), series.get("timestamps")
    return (type(values) is list and type(stamps) is list and len(values) == len(stamps)
            and all(_real(v) for v in values) and all(type(t) is int for t in stamps))


WINDOW = Window(0, 10**18)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answers)
@example(b"[" * 100_000 + b"]" * 100_000)
@example(b"\xff\xfe\x00\x01 not text")
@example(b"<html><head><title>502 Bad Gateway</title></head></html>")
@example(json.dumps({"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}}]}}).encode())
@example(json.dumps({"status": "success", "data": {"resultType": "vector",
                                                   "result": [{"metric": {"device": 3}, "value": [1, "2"]}]}}).encode())
@example(json.dumps({"status": "success", "data": {"resultType": "vector", "result": ["x"]}}).encode())
@example(json.dumps({"status": "success", "data": 7}).encode())
@example(json.dumps({"metric": {"__name__": "link_events_count"}, "values": [1], "timestamps": ["x"]}).encode())
@example(json.dumps({"metric": {"__name__": "port_rates_x"}, "values": [1, 2], "timestamps": [1]}).encode())
@example(json.dumps({"metric": "x", "values": [1], "timestamps": [1]}).encode())
@example(json.dumps({"metric": {}, "values": [[1]], "timestamps": [1]}).encode())
def test_any_answer_is_of_the_documented_shape_or_a_promql_error(server: str, answer: bytes) -> None:
    Answer.body = answer
    vm = PromQL(server, timeout=5)
    for ask, valid in ((lambda: vm.query("up", 1.0), valid_item), (lambda: vm.names("{}"), None),
                       (lambda: list(vm.export("{}", 0.0, 1.0)), valid_series)):
        try:
            got = ask()
        except PromQLError as exc:
            assert str(exc)
            continue
        assert all(isinstance(x, str) for x in got) if valid is None else all(valid(x) for x in got), got
    history = VictoriaHistory(vm)
    for read in (history.rate_fields, lambda: history.summaries(WINDOW, "port_rates", ["pause_rx"]),
                 lambda: history.buckets(WINDOW, 60, ["pause_rx"], device="d", port="p"),
                 lambda: history.events(WINDOW, "d"), lambda: history.flagged(WINDOW),
                 lambda: history.scored(WINDOW), lambda: history.port_tags(WINDOW)):
        try:
            read()
        except PromQLError as exc:
            assert str(exc)


def test_the_error_names_what_was_wrong(server: str) -> None:
    vm = PromQL(server, timeout=5)
    for body, words in ((b"[" * 100_000, "nested"), (b"<html>502</html>", "not a JSON answer"),
                        (b"\xff\xfe\x00 x", "not a JSON answer"),
                        (json.dumps({"status": "success", "data": {"resultType": "vector",
                                                                   "result": [{"metric": {}, "value": 3}]}}).encode(),
                         "data.result[0].value")):
        Answer.body = body
        with pytest.raises(PromQLError, match=re.escape(words)):
            vm.query("up", 1.0)
    Answer.body = json.dumps({"metric": {}, "values": [1, 2], "timestamps": [1]}).encode()
    with pytest.raises(PromQLError, match="line 1"):
        list(vm.export("{}", 0.0, 1.0))


@pytest.mark.integration
def test_a_real_victoriametrics_answers_pass_the_checks(tmp_path: Path) -> None:
    """The checks refuse nothing VictoriaMetrics itself answers: the query, label and export APIs."""
    vm_server = VictoriaMetrics(tmp_path / "vm")
    vm_server.start()
    try:
        t_ms = (int(time.time()) - 600) * 1000
        lines = "".join(f"port_rates,device=leaf-0,port=swp{i} pause_rx={i}.5,in_octets={i} {t_ms + i}\n"
                        for i in range(3))
        urllib.request.urlopen(f"{vm_server.url}/write?precision=ms", data=lines.encode(), timeout=10).read()
        vm_server.flush()
        vm = PromQL(vm_server.url, timeout=10)
        assert vm.names('{__name__=~"port_rates_.+"}') == ["port_rates_in_octets", "port_rates_pause_rx"]
        got = vm.query("max_over_time(port_rates_pause_rx[1h])", time.time())
        assert sorted(float(x["value"][1]) for x in got) == [0.5, 1.5, 2.5]
        series = list(vm.export('{__name__="port_rates_pause_rx"}', t_ms / 1000 - 1, t_ms / 1000 + 10))
        assert sorted(s["values"][0] for s in series) == [0.5, 1.5, 2.5]
        assert sorted(s["timestamps"][0] for s in series) == [t_ms, t_ms + 1, t_ms + 2]
    finally:
        vm_server.stop()
