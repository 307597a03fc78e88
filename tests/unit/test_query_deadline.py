"""`--timeout` bounds a whole query, not each read: a server that drips its answer (the headers or the
body, a byte at a time) gets the query refused once the deadline passes, with an error that says so,
from the InfluxQL client and the VictoriaMetrics one alike. The peer is a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import io
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from fabricwatch.cli.main import main
from fabricwatch.core.influxql import InfluxQL, InfluxQLError
from fabricwatch.core.promql import PromQL, PromQLError
from tests.certs import self_signed

DEADLINE_S = 1.0
DRIP_S = 0.2  # far under the deadline: a per-read timeout never fires


class Drip:
    part = "body"  # which part of the answer comes a byte at a time: "headers" or "body"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.dumps({"results": [], "status": "success", "data": [], "pad": "x" * 200}).encode()
            head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                    "Connection: close\r\n\r\n").encode()
            fast, slow, rest = (b"", head, body) if Drip.part == "headers" else (head + body[:10], body[10:], b"")
            try:
                self.wfile.write(fast)
                for b in slow:
                    self.wfile.flush()
                    time.sleep(DRIP_S)
                    self.wfile.write(bytes([b]))
                self.wfile.write(rest)
            except OSError:  # the client gave up, as it should
                pass
            self.close_connection = True

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _influxql(url: str) -> Callable[[], object]:
    return lambda: InfluxQL(url, "fw", timeout=DEADLINE_S).query("SELECT * FROM port_counters")


def _promql(url: str) -> Callable[[], object]:
    return lambda: PromQL(url, timeout=DEADLINE_S).query("up", 1.0)


def _export(url: str) -> Callable[[], object]:
    return lambda: list(PromQL(url, timeout=DEADLINE_S).export("{}", 0.0, 1.0))


@pytest.mark.parametrize("part", ["headers", "body"])
@pytest.mark.parametrize(("client", "error"), [(_influxql, InfluxQLError), (_promql, PromQLError),
                                               (_export, PromQLError)])
def test_a_dripping_server_is_refused_at_the_deadline(server: str, part: str,
                                                      client: Callable[[str], Callable[[], object]],
                                                      error: type[Exception]) -> None:
    Drip.part = part
    started = time.monotonic()
    with pytest.raises(error, match="deadline") as caught:
        client(server)()
    took = time.monotonic() - started
    assert took < 3 * DEADLINE_S, f"{took:.1f}s for a {DEADLINE_S:g}s deadline"
    assert f"{DEADLINE_S:g}" in str(caught.value)


@pytest.mark.parametrize("storage", ["--influx-url", "--vm-url"])
def test_the_query_command_says_its_timeout_passed(server: str, storage: str) -> None:
    Drip.part = "body"
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["query", "findings", storage, server, *(["--influx-db", "fw"] if "influx" in storage else []),
                     "--timeout", f"{DEADLINE_S:g}", "--from", "-1h", "--json"])
    assert code != 0
    assert "deadline" in err.getvalue(), err.getvalue()
    assert time.monotonic() - started < 3 * DEADLINE_S


def test_a_prompt_answer_within_the_deadline_is_read_whole(server: str) -> None:
    """The deadline does not cut what comes in time (a fast server, many reads)."""
    class Fast(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            rows = [[i, i] for i in range(20_000)]
            body = json.dumps({"results": [{"series": [{"name": "m", "columns": ["time", "v"],
                                                        "values": rows}]}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Fast)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        series = InfluxQL(f"http://127.0.0.1:{httpd.server_address[1]}", "fw", timeout=DEADLINE_S).query("q")
        assert len(series[0]["values"]) == 20_000
    finally:
        httpd.shutdown()


def test_a_server_that_never_answers_is_refused_at_the_deadline() -> None:
    with socket.socket() as listener:  # accepts (the kernel's backlog), never reads nor answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        started = time.monotonic()
        with pytest.raises(InfluxQLError, match="deadline"):
            InfluxQL(f"http://127.0.0.1:{listener.getsockname()[1]}", "fw", timeout=DEADLINE_S).query("q")
        assert time.monotonic() - started < 3 * DEADLINE_S


def test_a_dripping_server_over_tls_is_refused_at_the_deadline(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = self_signed(tmp_path, name="localhost", ip="127.0.0.1")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the default context trusts the test's own CA

    class Dripping(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                for b in b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}":
                    self.wfile.write(bytes([b]))
                    self.wfile.flush()
                    time.sleep(DRIP_S)
            except (OSError, ValueError):
                pass

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Dripping)
    httpd.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        started = time.monotonic()
        with pytest.raises(PromQLError, match="deadline"):
            PromQL(f"https://127.0.0.1:{httpd.server_address[1]}", timeout=DEADLINE_S).names("{}")
        assert time.monotonic() - started < 3 * DEADLINE_S
    finally:
        httpd.shutdown()
