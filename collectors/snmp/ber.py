"""A narrow BER codec for SNMPv2c GET/GETBULK requests and their responses.

pysnmp decodes every varbind through pyasn1's generic machinery (~285 µs of CPU each);
a poller only needs the few tags an agent may answer with, so this reads them directly.
OIDs stay in their encoded form (bytes) so that "is this varbind still in my column" is
a bytes prefix test: each arc's encoding ends with a byte < 0x80, so a byte prefix made
of whole arcs is exactly an arc prefix.
"""

from __future__ import annotations

from collections.abc import Sequence

# universal and application tags an agent answers with
INTEGER = 0x02
OCTET_STRING = 0x04
NULL = 0x05
OBJECT_IDENTIFIER = 0x06
SEQUENCE = 0x30
IP_ADDRESS = 0x40
COUNTER32 = 0x41
GAUGE32 = 0x42
TIMETICKS = 0x43
OPAQUE = 0x44
COUNTER64 = 0x46
NO_SUCH_OBJECT = 0x80
NO_SUCH_INSTANCE = 0x81
END_OF_MIB_VIEW = 0x82

GET_REQUEST = 0xA0
GET_NEXT_REQUEST = 0xA1
RESPONSE = 0xA2
GET_BULK_REQUEST = 0xA5
REPORT = 0xA8

VERSION_2C = 1

ERROR_STATUS = {
    0: "noError", 1: "tooBig", 2: "noSuchName", 3: "badValue", 4: "readOnly", 5: "genErr",
    6: "noAccess", 7: "wrongType", 8: "wrongLength", 9: "wrongEncoding", 10: "wrongValue",
    11: "noCreation", 12: "inconsistentValue", 13: "resourceUnavailable", 14: "commitFailed",
    15: "undoFailed", 16: "authorizationError", 17: "notWritable", 18: "inconsistentName",
}

_UNSIGNED = frozenset((COUNTER32, GAUGE32, TIMETICKS, COUNTER64))
EXCEPTIONS = frozenset((NO_SUCH_OBJECT, NO_SUCH_INSTANCE, END_OF_MIB_VIEW))

Value = int | bytes | None
VarBind = tuple[bytes, int, Value]  # (encoded OID, tag, value); value None for NULL and exceptions


class BerError(ValueError):
    """The datagram is not a well-formed SNMPv2c response; `offset` says where it broke."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at byte {offset}")
        self.offset = offset


# -- OIDs --------------------------------------------------------------------------------
def encode_oid(oid: str | Sequence[int]) -> bytes:
    """'1.3.6.1.2.1.1.3.0' (or a tuple of arcs) -> the BER content octets of the OID."""
    arcs = [int(a) for a in oid.strip(".").split(".")] if isinstance(oid, str) else list(oid)
    if len(arcs) < 2 or arcs[0] > 2 or (arcs[0] < 2 and arcs[1] >= 40):
        raise ValueError(f"not an OID: {oid!r}")
    out = bytearray()
    for arc in [40 * arcs[0] + arcs[1], *arcs[2:]]:
        if arc < 0:
            raise ValueError(f"negative arc in {oid!r}")
        chunk = [arc & 0x7F]
        arc >>= 7
        while arc:
            chunk.append(0x80 | (arc & 0x7F))
            arc >>= 7
        out.extend(reversed(chunk))
    return bytes(out)


def decode_arcs(content: bytes) -> tuple[int, ...]:
    """Base-128 arcs of encoded OID content, without the first-two-arcs folding
    (what an index suffix needs)."""
    arcs = []
    acc = 0
    for b in content:
        acc = (acc << 7) | (b & 0x7F)
        if b < 0x80:
            arcs.append(acc)
            acc = 0
    if content and content[-1] >= 0x80:
        raise ValueError("OID ends inside an arc")
    return tuple(arcs)


def oid_str(content: bytes) -> str:
    arcs = decode_arcs(content)
    if not arcs:
        return ""
    first = arcs[0]
    head = (0, first) if first < 40 else (1, first - 40) if first < 80 else (2, first - 80)
    return ".".join(str(a) for a in (*head, *arcs[1:]))


# -- encoding ----------------------------------------------------------------------------
def _len(n: int) -> bytes:
    if n < 0x80:
        return bytes((n,))
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes((0x80 | len(body),)) + body


def _tlv(tag: int, content: bytes) -> bytes:
    return bytes((tag,)) + _len(len(content)) + content


def _int(n: int) -> bytes:
    return _tlv(INTEGER, n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big", signed=True))


def encode_pdu(pdu_type: int, request_id: int, oids: Sequence[bytes], *, non_repeaters: int = 0,
               max_repetitions: int = 0) -> bytes:
    """A GetRequest or GetBulkRequest PDU for OIDs given as encoded content."""
    binds = b"".join(_tlv(SEQUENCE, _tlv(OBJECT_IDENTIFIER, o) + b"\x05\x00") for o in oids)
    pdu = _int(request_id) + _int(non_repeaters) + _int(max_repetitions) + _tlv(SEQUENCE, binds)
    return _tlv(pdu_type, pdu)


def encode_request(
    pdu_type: int, community: bytes, request_id: int, oids: Sequence[bytes], *,
    non_repeaters: int = 0, max_repetitions: int = 0,
) -> bytes:
    """A v2c GetRequest or GetBulkRequest message."""
    pdu = encode_pdu(pdu_type, request_id, oids, non_repeaters=non_repeaters, max_repetitions=max_repetitions)
    return _tlv(SEQUENCE, _int(VERSION_2C) + _tlv(OCTET_STRING, community) + pdu)


# -- decoding ----------------------------------------------------------------------------
def _header(data: bytes, pos: int, end: int) -> tuple[int, int, int]:
    """(tag, content start, content end) of the TLV at pos, checked against end."""
    if pos + 2 > end:
        raise BerError("truncated header", pos)
    tag = data[pos]
    n = data[pos + 1]
    pos += 2
    if n & 0x80:
        k = n & 0x7F
        if k == 0 or k > 4 or pos + k > end:
            raise BerError("bad length", pos - 1)
        n = int.from_bytes(data[pos:pos + k], "big")
        pos += k
    stop = pos + n
    if stop > end:
        raise BerError(f"value of tag 0x{tag:02x} runs past the end", pos)
    return tag, pos, stop


def _expect(data: bytes, pos: int, end: int, tag: int, what: str) -> tuple[int, int]:
    t, start, stop = _header(data, pos, end)
    if t != tag:
        raise BerError(f"expected {what} (0x{tag:02x}), got 0x{t:02x}", pos)
    return start, stop


def _read_int(data: bytes, pos: int, end: int, what: str) -> tuple[int, int]:
    start, stop = _expect(data, pos, end, INTEGER, what)
    if start == stop:
        raise BerError(f"empty {what}", pos)
    return int.from_bytes(data[start:stop], "big", signed=True), stop


# the building blocks, for the v3 message codec (usm.py)
tlv = _tlv
integer = _int
header = _header
expect = _expect
read_int = _read_int


class Response:
    __slots__ = ("community", "error_index", "error_status", "request_id", "varbinds")

    def __init__(self, community: bytes, request_id: int, error_status: int, error_index: int,
                 varbinds: list[VarBind]) -> None:
        self.community = community
        self.request_id = request_id
        self.error_status = error_status
        self.error_index = error_index
        self.varbinds = varbinds


def decode_response(data: bytes) -> Response:
    """Parse a v2c Response PDU; raises BerError naming the offset of the first problem."""
    end = len(data)
    start, stop = _expect(data, 0, end, SEQUENCE, "message")
    if stop != end:
        raise BerError(f"{end - stop} bytes after the message", stop)
    version, pos = _read_int(data, start, end, "version")
    if version != VERSION_2C:
        raise BerError(f"SNMP version field {version}, not v2c", start)
    cs, ce = _expect(data, pos, end, OCTET_STRING, "community")
    community = data[cs:ce]
    tag, request_id, error_status, error_index, varbinds = decode_pdu(data, ce, end)
    if tag != RESPONSE:
        raise BerError(f"PDU type 0x{tag:02x} is not a Response", ce)
    return Response(community, request_id, error_status, error_index, varbinds)


def decode_pdu(data: bytes, pos: int, end: int) -> tuple[int, int, int, int, list[VarBind]]:
    """(PDU tag, request-id, error-status, error-index, varbinds) of the PDU at pos."""
    tag, pos, pdu_end = _header(data, pos, end)
    if pdu_end != end:
        raise BerError(f"{end - pdu_end} bytes after the PDU", pdu_end)
    request_id, pos = _read_int(data, pos, pdu_end, "request-id")
    error_status, pos = _read_int(data, pos, pdu_end, "error-status")
    error_index, pos = _read_int(data, pos, pdu_end, "error-index")
    pos, list_end = _expect(data, pos, pdu_end, SEQUENCE, "varbind list")
    varbinds: list[VarBind] = []
    append = varbinds.append
    from_bytes = int.from_bytes
    # the hot loop: inlined short-form lengths, long form through _header
    while pos < list_end:
        if data[pos] != SEQUENCE:
            raise BerError("expected varbind", pos)
        n = data[pos + 1] if pos + 1 < list_end else 0x80
        if n < 0x80:
            vb_start, vb_end = pos + 2, pos + 2 + n
            if vb_end > list_end:
                raise BerError("varbind runs past the end", pos)
        else:
            _, vb_start, vb_end = _header(data, pos, list_end)
        if vb_start + 2 > vb_end or data[vb_start] != OBJECT_IDENTIFIER:
            raise BerError("expected OID in varbind", vb_start)
        oid_end = vb_start + 2 + data[vb_start + 1]
        if data[vb_start + 1] >= 0x80 or oid_end + 2 > vb_end:
            raise BerError("bad OID in varbind", vb_start)
        oid = data[vb_start + 2:oid_end]
        vtag = data[oid_end]
        vlen = data[oid_end + 1]
        if vlen < 0x80:
            v_start, v_end = oid_end + 2, oid_end + 2 + vlen
            if v_end != vb_end:
                raise BerError("value length does not match the varbind", oid_end)
        else:
            vtag, v_start, v_end = _header(data, oid_end, vb_end)
        if vtag in _UNSIGNED:
            if v_start == v_end:
                raise BerError("empty counter", oid_end)
            value: Value = from_bytes(data[v_start:v_end], "big")
        elif vtag == INTEGER:
            if v_start == v_end:
                raise BerError("empty integer", oid_end)
            value = from_bytes(data[v_start:v_end], "big", signed=True)
        elif vtag in (OCTET_STRING, OBJECT_IDENTIFIER, IP_ADDRESS, OPAQUE):
            value = data[v_start:v_end]
        elif vtag == NULL or vtag in EXCEPTIONS:
            value = None
        else:
            raise BerError(f"unknown value tag 0x{vtag:02x}", oid_end)
        append((oid, vtag, value))
        pos = vb_end
    if pos != list_end:
        raise BerError("varbind list length mismatch", pos)
    return tag, request_id, error_status, error_index, varbinds


def peek_request_id(data: bytes) -> int | None:
    """The request-id of a v2c message, or None if it cannot be read (for matching only)."""
    try:
        end = len(data)
        start, _ = _expect(data, 0, end, SEQUENCE, "message")
        _, pos = _read_int(data, start, end, "version")
        _, ce = _expect(data, pos, end, OCTET_STRING, "community")
        _, pos, pdu_end = _header(data, ce, end)
        rid, _ = _read_int(data, pos, pdu_end, "request-id")
        return rid
    except BerError:
        return None
