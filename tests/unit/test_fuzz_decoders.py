"""Property tests of every decoder that reads what a device or a file sends: only the project's own
error types escape, whatever the bytes; values come out bounded; no input costs super-linear work
(caps are asserted, not timings)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pygnmi.spec.v080 import gnmi_pb2

from fabricwatch.collectors.gnmi.mapping import MAX_PRECISION, Decoder, flavours, load_table
from fabricwatch.collectors.snmp import ber, usm
from fabricwatch.core.config_errors import ConfigError
from fabricwatch.core.counters import COUNTERS
from fabricwatch.daemon import config

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- SNMP BER and USM ------------------------------------------------------------------------
OID = ber.encode_oid("1.3.6.1.2.1.31.1.1.1.6.1")
USER = usm.UsmUser("fw", "sha256", "auth-passphrase", "aes", "priv-passphrase")
ENGINE = usm.Engine(bytes.fromhex("80001f8880a1b2c3d4"), boots=3, time=5000, learned_at=100.0)
VALID_V3 = usm.encode_request(USER, ENGINE, 101.0, 7, ber.GET_BULK_REQUEST, 9, [OID], max_repetitions=5)
VALID_V2C = ber.encode_request(ber.GET_REQUEST, b"public", 5, [OID])


def _mutate(data: bytes, edits: list[tuple[int, int]], cut: int) -> bytes:
    out = bytearray(data)
    for pos, byte in edits:
        out[pos % len(out)] = byte
    return bytes(out[: max(1, cut % (len(out) + 1))])


@FUZZ
@given(st.binary(max_size=300) | st.builds(_mutate, st.just(VALID_V2C), st.lists(st.tuples(
    st.integers(0, 10_000), st.integers(0, 255)), max_size=6), st.integers(0, 10_000)))
def test_ber_decoder_raises_only_ber_error(data: bytes) -> None:
    try:
        resp = ber.decode_response(data)
    except ber.BerError:
        return
    for _oid, _tag, value in resp.varbinds:
        assert not isinstance(value, int) or value.bit_length() <= 64 or value < 0


@FUZZ
@given(st.binary(max_size=300) | st.builds(_mutate, st.just(VALID_V3), st.lists(st.tuples(
    st.integers(0, 10_000), st.integers(0, 255)), max_size=6), st.integers(0, 10_000)))
def test_usm_decoder_raises_only_its_own_errors(data: bytes) -> None:
    try:
        got = usm.decode_response(data, USER, 101.0, known=ENGINE)
    except (ber.BerError, usm.UsmError):
        return
    # whatever a mutation makes of our request, only an authenticated answer (or a Report, which
    # explains and changes nothing) may get through: a forged Response never does
    assert got.authenticated or got.pdu_type == ber.REPORT


# -- gNMI mapping ----------------------------------------------------------------------------
names = st.sampled_from(["interfaces", "interface", "state", "counters", "in-octets", "out-octets", "name",
                         "oc-if:interfaces", "priority", "queues", "queue", "COUNTERS", "Ethernet0", "*", ""]) \
    | st.text(max_size=12)
keys = st.dictionaries(st.sampled_from(["name", "priority", "id", "index"]) | st.text(max_size=6),
                       st.text(max_size=12), max_size=2)
elems = st.lists(st.builds(lambda n, k: gnmi_pb2.PathElem(name=n, key=k), names, keys), max_size=6)
typed = st.one_of(
    st.builds(lambda v: gnmi_pb2.TypedValue(uint_val=v), st.integers(0, 2**64 - 1)),
    st.builds(lambda v: gnmi_pb2.TypedValue(int_val=v), st.integers(-(2**63), 2**63 - 1)),
    st.builds(lambda v: gnmi_pb2.TypedValue(string_val=v), st.text(max_size=30)),
    st.builds(lambda v: gnmi_pb2.TypedValue(bool_val=v), st.booleans()),
    st.builds(lambda v: gnmi_pb2.TypedValue(double_val=v), st.floats()),
    st.builds(lambda d, p: gnmi_pb2.TypedValue(decimal_val=gnmi_pb2.Decimal64(digits=d, precision=p)),
              st.integers(-(2**63), 2**63 - 1), st.integers(0, 2**32 - 1)),
    st.builds(lambda v: gnmi_pb2.TypedValue(json_val=v), st.binary(max_size=40)),
    st.builds(lambda v: gnmi_pb2.TypedValue(json_ietf_val=json.dumps(v).encode()),
              st.recursive(st.integers() | st.text(max_size=8) | st.none(),
                           lambda c: st.dictionaries(st.text(max_size=8), c, max_size=4) | st.lists(c, max_size=3),
                           max_leaves=12)),
)
notifications = st.builds(
    lambda prefix, updates, ts: gnmi_pb2.Notification(
        timestamp=ts, prefix=gnmi_pb2.Path(elem=prefix),
        update=[gnmi_pb2.Update(path=gnmi_pb2.Path(elem=p), val=v) for p, v in updates]),
    elems, st.lists(st.tuples(elems, typed), max_size=8), st.integers(0, 2**63 - 1))


@FUZZ
@given(st.sampled_from(sorted(flavours())), st.lists(notifications, min_size=1, max_size=4))
def test_gnmi_decoder_takes_any_notification(flavour: str, notes: list) -> None:  # type: ignore[type-arg]
    dec = Decoder(load_table(flavour), "dev", {})
    for n in notes:
        for sample in dec.decode(n):
            assert set(sample.values) <= set(COUNTERS)  # device keys never invent a field name
            assert all(isinstance(v, int | float) for v in sample.values.values())


def test_a_huge_decimal_precision_is_a_bad_value_not_a_stall() -> None:
    dec = Decoder(load_table("openconfig"), "dev", {})
    path = [gnmi_pb2.PathElem(name="interfaces"), gnmi_pb2.PathElem(name="interface", key={"name": "Eth1"}),
            gnmi_pb2.PathElem(name="state"), gnmi_pb2.PathElem(name="counters"),
            gnmi_pb2.PathElem(name="in-octets")]
    for precision, ok in ((2, True), (MAX_PRECISION, True), (3_000_000, False)):
        n = gnmi_pb2.Notification(timestamp=1, update=[gnmi_pb2.Update(
            path=gnmi_pb2.Path(elem=path), val=gnmi_pb2.TypedValue(
                decimal_val=gnmi_pb2.Decimal64(digits=12345, precision=precision)))])
        assert bool(dec.decode(n)) is ok
    assert dec.bad_values == 1
    bad_json = gnmi_pb2.Notification(timestamp=1, update=[gnmi_pb2.Update(
        path=gnmi_pb2.Path(elem=path), val=gnmi_pb2.TypedValue(json_val=b"{not json"))])
    assert dec.decode(bad_json) == [] and dec.bad_values == 2


# -- the config loader ------------------------------------------------------------------------
toml_values = st.recursive(
    st.integers(-(2**63), 2**63 - 1) | st.text(max_size=12) | st.booleans() | st.floats(allow_nan=False),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(min_size=1, max_size=10), c, max_size=4),
    max_leaves=15)
sections = st.sampled_from(["daemon", "pipeline", "detector", "nccl", "collectors", "sinks"])


@FUZZ
@given(st.dictionaries(sections, st.dictionaries(
    st.sampled_from(["listen", "shard", "gnmi", "snmp", "ufm", "influxdb", "mqtt", "interval", "model",
                     "upload", "watch_dir", "max_gap", "topology"]) | st.text(max_size=8),
    toml_values | st.lists(st.dictionaries(st.sampled_from(["targets", "url", "address", "device", "flavour",
                                                            "community", "database", "host", "port"]),
                                           toml_values, max_size=4), max_size=2), max_size=4), max_size=4))
def test_the_config_loader_answers_config_error_or_a_config(data: dict) -> None:  # type: ignore[type-arg]
    try:
        config.parse(data, "fuzz.toml")
    except ConfigError as exc:
        assert str(exc).startswith("fuzz.toml: ")


@FUZZ
@given(st.text(max_size=200) | st.sampled_from(['[daemon]\nlisten = "x"', "[[collectors.gnmi]]\ntargets = 1",
                                                 "[sinks]\ninfluxdb = [1, 2]", "[nccl]\nmqtt = { port = -1 }"]))
def test_any_text_as_a_config_file(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fw.toml"
        path.write_text(text)
        try:
            config.load(path)
        except ConfigError as exc:
            assert str(exc).startswith(str(path))


def test_a_long_flavour_name_is_a_config_error_not_an_oserror() -> None:
    try:
        config.parse({"collectors": {"gnmi": [{"flavour": "x" * 300, "targets": [
            {"device": "a", "address": "127.0.0.1:1"}]}]}}, "fw.toml")
    except ConfigError as exc:
        assert "collectors.gnmi[0].flavour" in str(exc)
    else:
        raise AssertionError("accepted")
