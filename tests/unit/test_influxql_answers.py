"""The InfluxQL client takes whatever a server on the other end answers /query with (a proxy's page,
another database's JSON, a truncated body): series of the documented shape, or InfluxQLError that
says what was wrong. The post-mortem store built on it then never fails otherwise. The peer is a
real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fabricwatch.core.influxql import InfluxQL, InfluxQLError
from fabricwatch.postmortem.store import Store


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
series_like = st.fixed_dictionaries(
    {"name": st.just("port_counters") | json_values,
     "columns": st.sampled_from([["time", "in_octets", "fcs_errors"], ["fieldKey", "fieldType"]]) | json_values},
    optional={"tags": st.dictionaries(st.sampled_from(["device", "port"]), st.text(max_size=4) | json_values,
                                      max_size=2) | json_values,
              "values": st.lists(st.lists(st.integers(0, 10**18) | scalars, min_size=2, max_size=4), max_size=3)
              | json_values})
answers = st.one_of(
    json_values,
    st.builds(lambda ss: {"results": [{"statement_id": 0, "series": ss}]}, st.lists(series_like, max_size=3)),
    st.builds(lambda rs: {"results": rs}, st.lists(json_values | st.dictionaries(
        st.sampled_from(["series", "error", "statement_id"]), json_values, max_size=2), max_size=2)),
)


def valid(series: dict[str, object]) -> bool:
    """The shape InfluxDB documents, stated here independently of the client."""
    cols, rows, tags = series.get("columns"), series.get("values", []), series.get("tags", {})
    return (isinstance(cols, list) and bool(cols) and all(isinstance(c, str) for c in cols)
            and isinstance(rows, list) and all(isinstance(r, list) and len(r) == len(cols)
                                               and (cols[0] != "time" or type(r[0]) is int) for r in rows)
            and isinstance(tags, dict) and all(isinstance(v, str) for v in tags.values()))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answers | st.binary(max_size=40).map(lambda b: b"\x00" + b))
@example({"results": [{"series": [{"name": "m", "columns": ["time", "v"], "values": [[1, 2, 3]]}]}]})
@example({"results": [{"series": [{"name": "m", "values": [[1, 2]]}]}]})
@example({"results": [{"series": [{"name": "m", "columns": ["time", "v"], "values": [[None, 2]]}]}]})
@example({"results": ["error"]})
@example(b"[" * 100_000 + b"]" * 100_000)
@example({"results": [{"series": [{"name": "m", "columns": ["time", "v"], "tags": {"device": 3},
                                   "values": [[1, 2]]}]}]})
def test_any_answer_is_series_of_the_documented_shape_or_an_influxql_error(server: str, answer: object) -> None:
    Answer.body = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
    db = InfluxQL(server, "fw", timeout=5)
    try:
        series = db.query("SELECT * FROM port_counters")
    except InfluxQLError as exc:
        assert str(exc)
        return
    assert all(isinstance(s, dict) and valid(s) for s in series), series
    if all(s["columns"][0] == "time" for s in series):  # a SELECT's answer: the store reads its rows
        rows = list(Store(db).rows("SELECT * FROM port_counters"))
        assert len(rows) == sum(len(s.get("values", [])) for s in series)
