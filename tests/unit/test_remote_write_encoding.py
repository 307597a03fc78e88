"""The remote-write sink's request and its section: what a batch of lines becomes on the wire (decoded back with
the same descriptor), and what the config refuses. Bounded cardinality: only canonical counters' rates, only
topology labels, whatever the lines carry."""

from __future__ import annotations

import cramjam
import pytest

from fabricwatch.daemon.config import ConfigError, parse
from fabricwatch.sinks.prometheus_remote_write.encode import RATED, TOPOLOGY_LABELS, Encoder
from fabricwatch.sinks.prometheus_remote_write.proto import WriteRequest
from fabricwatch.sinks.prometheus_remote_write.writer import classify

TAGS = "fabric=roce,role=leaf_up,rail=1,peer_device=spine-0,peer_port=Ethernet1,speed=400G,vendor=acme"


def decode(body: bytes) -> dict[tuple[tuple[str, str], ...], list[tuple[int, float]]]:
    req = WriteRequest.FromString(bytes(cramjam.snappy.decompress_raw(body)))
    return {tuple((lb.name, lb.value) for lb in ts.labels): [(s.timestamp, s.value) for s in ts.samples]
            for ts in req.timeseries}


def encoder(**kw: object) -> Encoder:
    return Encoder(str(kw.get("prefix", "fabricwatch_port_")), kw.get("labels", TOPOLOGY_LABELS),  # type: ignore[arg-type]
                   kw.get("counters", RATED))  # type: ignore[arg-type]


def test_a_line_becomes_one_series_per_canonical_counter_with_sorted_topology_labels() -> None:
    payload = (f"port_rates,device=leaf-1,port=swp9,{TAGS} in_octets=1.5,pfc_rx_p3=2i,temperature_c=40,"
               f"made_up=1,symbol_errors_saturated=true 1700000000123456789").encode()
    body, samples, unreadable = encoder().request(payload)
    got = decode(body)
    assert samples == 2 and unreadable == 0
    labels = (("device", "leaf-1"), ("fabric", "roce"), ("peer_device", "spine-0"), ("peer_port", "Ethernet1"),
              ("port", "swp9"), ("rail", "1"), ("role", "leaf_up"))  # no speed, no vendor: topology only
    assert got == {(("__name__", "fabricwatch_port_in_octets_per_second"), *labels): [(1700000000123, 1.5)],
                   (("__name__", "fabricwatch_port_pfc_rx_p3_per_second"), *labels): [(1700000000123, 2.0)]}


def test_two_intervals_of_a_port_in_one_batch_are_one_series_oldest_first() -> None:
    lines = [f"port_rates,device=d,port=p in_octets={v} {t}000000" for t, v in ((3000, 3), (1000, 1), (2000, 2))]
    lines.insert(1, "port_rates,device=d,port=q in_octets=9 1000000000")
    got = decode(encoder().request("\n".join(lines).encode())[0])
    assert got[(("__name__", "fabricwatch_port_in_octets_per_second"), ("device", "d"), ("port", "p"))] == \
        [(1000, 1.0), (2000, 2.0), (3000, 3.0)]
    assert len(got) == 2


def test_other_measurements_unknown_tags_and_unreadable_lines_send_nothing() -> None:
    payload = b"\n".join([
        b"port_counters,device=d,port=p in_octets=5i 1",
        b"link_events,device=d,port=p,kind=flap detail=\"x\" 1",
        b"port_rates,device=d,port=p in_octets=oops 1",
        b"port_rates,device=d,port=p in_octets=1",  # no timestamp: the pipeline always stamps its lines
    ])
    body, samples, unreadable = encoder().request(payload)
    assert samples == 0 and unreadable == 2 and decode(body) == {}


def test_fewer_labels_fewer_counters_and_an_absent_tag_is_no_label() -> None:
    enc = encoder(labels=("device", "port", "rail"), counters=("out_octets",), prefix="fw_")
    got = decode(enc.request(b"port_rates,device=d,port=p in_octets=1,out_octets=2 5000000")[0])
    assert got == {(("__name__", "fw_out_octets_per_second"), ("device", "d"), ("port", "p")): [(5, 2.0)]}


@pytest.mark.parametrize(("status", "answer", "retryable", "reason", "blocked"), [
    (204, "", False, "", False),
    (400, "out of order sample", False, "out_of_order", False),
    (400, "duplicate sample for timestamp", False, "duplicate", False),
    (400, "out of bounds", False, "out_of_bounds", False),
    (500, "too old sample", False, "too_old", False),  # a 500 no retry fixes
    (500, "TSDB is closing", True, "", False),
    (503, "", True, "", False),
    (429, "", True, "", False),
    (401, "", True, "", True),
    (404, "404 page not found", True, "", True),  # no receiver: held until an operator enables it
    (422, "unprocessable", False, "", False),
])
def test_what_each_answer_means(status: int, answer: str, retryable: bool, reason: str, blocked: bool) -> None:
    out = classify(status, answer, None)
    assert (out.retryable, out.reason, out.blocked) == (retryable, reason, blocked)
    assert out.ok == (status == 204)
    if reason:
        assert out.refused_lines and out.why == reason  # halved until the refused lines are alone
    if status == 404:
        assert "--web.enable-remote-write-receiver" in out.message


def test_the_section_refuses_what_would_leak_or_grow_without_bound() -> None:
    def section(**kw: object) -> dict[str, object]:
        return {"sinks": {"prometheus_remote_write": [{"spool": {"dir": "/tmp/x"}, **kw}]}}

    cfg = parse(section(labels=["rail"]))
    assert sorted(cfg.sinks.prometheus_remote_write[0].labels) == ["device", "port", "rail"]  # type: ignore[attr-defined]
    for bad, words in (({"labels": ["speed"]}, "labels"), ({"counters": ["temperature_c"]}, "not a cumulative counter"),
                       ({"counters": ["made_up"]}, "not a cumulative counter"),
                       ({"url": "http://u:secret@prom:9090/api/v1/write"}, "password"),
                       ({"metric_prefix": "9bad"}, "metric_prefix")):
        with pytest.raises(ConfigError) as exc:
            parse(section(**bad))
        assert words in str(exc.value), (bad, str(exc.value))
        assert "secret" not in str(exc.value)
