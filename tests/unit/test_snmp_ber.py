"""The narrow v2c codec against pysnmp/pyasn1's encoder: same varbinds, clear errors on bad input."""

from __future__ import annotations

import random

import pytest
from pyasn1.codec.ber import encoder
from pysnmp.proto import api, rfc1902, rfc1905

from fabricwatch.collectors.snmp import ber

V2C = api.PROTOCOL_MODULES[api.SNMP_VERSION_2C]


def _response(varbinds: list[tuple[str, object]], request_id: int = 77, community: str = "c0mm",
              error_status: int = 0) -> bytes:
    msg = V2C.Message()
    V2C.apiMessage.set_defaults(msg)
    V2C.apiMessage.set_community(msg, community)
    pdu = V2C.ResponsePDU()
    V2C.apiPDU.set_defaults(pdu)
    V2C.apiPDU.set_request_id(pdu, request_id)
    V2C.apiPDU.set_error_status(pdu, error_status)
    V2C.apiPDU.set_varbinds(pdu, varbinds)
    V2C.apiMessage.set_pdu(msg, pdu)
    return bytes(encoder.encode(msg))


@pytest.mark.parametrize("oid", ["1.3.6.1.2.1.1.3.0", "1.3.6.1.4.1.40310.2.2.3.1.19.1000", "2.999.3",
                                 "1.3.6.1.2.1.31.1.1.1.6.436207616", "0.0"])
def test_oid_round_trip_matches_pyasn1(oid: str) -> None:
    theirs = bytes(encoder.encode(rfc1902.ObjectName(oid)))[2:]
    assert ber.encode_oid(oid) == theirs
    assert ber.oid_str(theirs) == oid


def test_every_value_type_decodes_like_pysnmp_encoded_it() -> None:
    values: list[tuple[str, object]] = [
        ("1.3.6.1.2.1.1.3.0", rfc1902.TimeTicks(56007273)),
        ("1.3.6.1.2.1.1.2.0", rfc1902.ObjectName("1.3.6.1.4.1.9.12.3.1.3.1626")),
        ("1.3.6.1.2.1.2.2.1.8.5", rfc1902.Integer32(-7)),
        ("1.3.6.1.2.1.2.2.1.14.5", rfc1902.Counter32(4294967295)),
        ("1.3.6.1.2.1.31.1.1.1.6.5", rfc1902.Counter64(18446744073709551615)),
        ("1.3.6.1.2.1.31.1.1.1.15.5", rfc1902.Gauge32(400000)),
        ("1.3.6.1.2.1.31.1.1.1.1.5", rfc1902.OctetString("Ethernet1/1")),
        ("1.3.6.1.2.1.4.20.1.1.10", rfc1902.IpAddress("10.0.0.1")),
        ("1.3.6.1.2.1.2.2.1.99.5", rfc1905.noSuchObject),
        ("1.3.6.1.2.1.2.2.1.98.5", rfc1905.noSuchInstance),
        ("1.3.6.1.2.1.2.2.1.97.5", rfc1905.endOfMibView),
    ]
    resp = ber.decode_response(_response(values, request_id=123456, community="secret"))
    assert resp.request_id == 123456 and resp.community == b"secret" and resp.error_status == 0
    got = [(ber.oid_str(o), t, v) for o, t, v in resp.varbinds]
    assert got == [
        ("1.3.6.1.2.1.1.3.0", ber.TIMETICKS, 56007273),
        ("1.3.6.1.2.1.1.2.0", ber.OBJECT_IDENTIFIER, ber.encode_oid("1.3.6.1.4.1.9.12.3.1.3.1626")),
        ("1.3.6.1.2.1.2.2.1.8.5", ber.INTEGER, -7),
        ("1.3.6.1.2.1.2.2.1.14.5", ber.COUNTER32, 4294967295),
        ("1.3.6.1.2.1.31.1.1.1.6.5", ber.COUNTER64, 18446744073709551615),
        ("1.3.6.1.2.1.31.1.1.1.15.5", ber.GAUGE32, 400000),
        ("1.3.6.1.2.1.31.1.1.1.1.5", ber.OCTET_STRING, b"Ethernet1/1"),
        ("1.3.6.1.2.1.4.20.1.1.10", ber.IP_ADDRESS, bytes([10, 0, 0, 1])),
        ("1.3.6.1.2.1.2.2.1.99.5", ber.NO_SUCH_OBJECT, None),
        ("1.3.6.1.2.1.2.2.1.98.5", ber.NO_SUCH_INSTANCE, None),
        ("1.3.6.1.2.1.2.2.1.97.5", ber.END_OF_MIB_VIEW, None),
    ]


def test_long_form_lengths_and_many_varbinds() -> None:
    rng = random.Random(5)
    values = [(f"1.3.6.1.2.1.31.1.1.1.6.{i}", rfc1902.Counter64(rng.randrange(1 << 64))) for i in range(300)]
    values.append(("1.3.6.1.2.1.31.1.1.1.18.1", rfc1902.OctetString("x" * 300)))  # long-form value length
    resp = ber.decode_response(_response(values))
    assert len(resp.varbinds) == 301
    assert [v for _, _, v in resp.varbinds[:300]] == [int(v) for _, v in values[:300]]  # type: ignore[call-overload]
    assert resp.varbinds[-1][2] == b"x" * 300


def test_request_is_what_pysnmp_decodes() -> None:
    from pyasn1.codec.ber import decoder

    oids = [ber.encode_oid("1.3.6.1.2.1.2.2.1.14"), ber.encode_oid("1.3.6.1.2.1.31.1.1.1.6")]
    data = ber.encode_request(ber.GET_BULK_REQUEST, b"public", 2**31 - 1, oids, max_repetitions=25)
    msg, rest = decoder.decode(data, asn1Spec=V2C.Message())
    assert rest == b""
    assert str(V2C.apiMessage.get_community(msg)) == "public"
    pdu = V2C.apiMessage.get_pdu(msg)
    assert int(V2C.apiBulkPDU.get_max_repetitions(pdu)) == 25
    assert int(V2C.apiPDU.get_request_id(pdu)) == 2**31 - 1
    assert [str(o) for o, _ in V2C.apiPDU.get_varbinds(pdu)] == ["1.3.6.1.2.1.2.2.1.14", "1.3.6.1.2.1.31.1.1.1.6"]


def test_error_status_is_read() -> None:
    resp = ber.decode_response(_response([("1.3.6.1.2.1.1.3.0", rfc1905.noSuchObject)], error_status=1))
    assert resp.error_status == 1


def test_every_truncation_is_a_clean_error() -> None:
    data = _response([(f"1.3.6.1.2.1.2.2.1.10.{i}", rfc1902.Counter32(i * 1000)) for i in range(20)])
    for cut in range(len(data)):
        with pytest.raises(ber.BerError):
            ber.decode_response(data[:cut])


def test_garbage_is_a_clean_error_and_never_another_exception() -> None:
    rng = random.Random(11)
    data = bytearray(_response([(f"1.3.6.1.2.1.2.2.1.10.{i}", rfc1902.Counter32(i)) for i in range(10)]))
    rejected = 0
    for _ in range(3000):
        bad = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            bad[rng.randrange(len(bad))] = rng.randrange(256)
        try:
            ber.decode_response(bytes(bad))  # a changed value byte still decodes: that is fine
        except ber.BerError:
            rejected += 1
    assert rejected > 300  # corrupted structure is caught, and only ever as BerError


def test_a_request_pdu_is_not_a_response() -> None:
    data = ber.encode_request(ber.GET_REQUEST, b"public", 1, [ber.encode_oid("1.3.6.1.2.1.1.3.0")])
    with pytest.raises(ber.BerError, match="not a Response"):
        ber.decode_response(data)
