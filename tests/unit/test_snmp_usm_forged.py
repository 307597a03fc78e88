"""Forged, downgraded and replayed SNMPv3 answers are refused (RFC 3414 section 3.2); genuine ones
are read. Each rule has its packet; the agent's side is built with the same primitives an agent
uses (HMAC over the whole message, AES-CFB keyed by boots/time/salt)."""

from __future__ import annotations

import asyncio
import hmac
from typing import Any

import pytest

from fabricwatch.collectors.snmp import ber, usm
from fabricwatch.collectors.snmp.transport import FastV3
from fabricwatch.core.errors import TargetError

ENGINE_ID = bytes.fromhex("80001f8880a1b2c3d4e5f60708")
OID = ber.encode_oid("1.3.6.1.2.1.31.1.1.1.6.1")
USER = usm.UsmUser("fw", "sha256", "auth-passphrase", "aes", "priv-passphrase")


def response(user: usm.UsmUser, *, msg_id: int = 7, value: int = 1000, engine_id: bytes = ENGINE_ID,
             boots: int = 3, etime: int = 5000, flags: int | None = None, mac: str = "good",
             pdu_type: int = ber.RESPONSE, oid: bytes = OID, encrypt: bool | None = None) -> bytes:
    """An agent's answer with whatever flags and authentication parameters the test wants."""
    flags = user.flags if flags is None else flags
    binds = ber.tlv(ber.SEQUENCE, ber.tlv(ber.OBJECT_IDENTIFIER, oid)
                    + ber.tlv(ber.COUNTER64, value.to_bytes(8, "big").lstrip(b"\0") or b"\0"))
    pdu = ber.tlv(pdu_type, ber.integer(99) + ber.integer(0) + ber.integer(0) + ber.tlv(ber.SEQUENCE, binds))
    scoped = ber.tlv(ber.SEQUENCE, ber.tlv(ber.OCTET_STRING, engine_id) + ber.tlv(ber.OCTET_STRING, b"") + pdu)
    keys = user.keys(engine_id)
    salt = b""
    if (flags & usm.FLAG_PRIV if encrypt is None else encrypt) and keys.priv_key:
        salt = b"\x01\x02\x03\x04\x05\x06\x07\x08"
        scoped = ber.tlv(ber.OCTET_STRING, usm._aes(keys.priv_key, boots, etime, salt, scoped, encrypt=True))
    auth_len = {"good": user.mac_len, "empty": 0, "short": 6, "bad": user.mac_len}[mac]
    placeholder = b"\0" * auth_len
    engine = usm.Engine(engine_id)
    sec = usm._security_params(engine, boots, etime, user.user, placeholder, salt)
    msg = usm._message(msg_id, flags, sec, scoped)
    if auth_len and keys.auth_key:
        full = hmac.new(keys.auth_key, msg, user.hash_name).digest()
        code = full[:auth_len] if mac != "bad" else bytes(auth_len)
        at = msg.rindex(bytes((ber.OCTET_STRING, auth_len)) + placeholder, 0, len(msg) - len(scoped)) + 2
        msg = msg[:at] + code + msg[at + auth_len:]
    return msg


KNOWN = usm.Engine(ENGINE_ID, boots=3, time=5000, learned_at=100.0)


def test_a_genuine_authpriv_answer_is_read() -> None:
    got = usm.decode_response(response(USER, value=123456), USER, 101.0, known=KNOWN)
    assert got.authenticated and got.varbinds[0][2] == 123456


@pytest.mark.parametrize(("what", "packet", "match"), [
    ("noAuthNoPriv Response with forged counters", dict(flags=0, encrypt=False),
     "unauthenticated Response"),
    ("auth flag with empty authentication parameters", dict(mac="empty"), "0 bytes"),
    ("a MAC truncated to 6 bytes", dict(mac="short"), "6 bytes"),
    ("a wrong MAC", dict(mac="bad"), "HMAC"),
    ("authenticated but not encrypted (downgrade)", dict(flags=usm.FLAG_AUTH, encrypt=False), "unencrypted"),
    ("privacy without authentication", dict(flags=usm.FLAG_PRIV), "privacy without authentication"),
    ("another engine ID", dict(engine_id=bytes.fromhex("80001f88800000000000")), "another engine ID"),
    ("a reboot count from the past (replay)", dict(boots=2), "time window"),
    ("a time 200 s behind (replay)", dict(etime=4800), "time window"),
    ("boots at 2^31-1", dict(boots=2**31 - 1), "time window"),
])
def test_a_forged_answer_is_refused(what: str, packet: dict, match: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(usm.UsmError, match=match):
        usm.decode_response(response(USER, **packet), USER, 101.0, known=KNOWN)


def test_boots_outside_32_bits_is_malformed_not_an_overflow() -> None:
    for boots in (-1, 2**32):
        with pytest.raises(ber.BerError, match="outside"):
            usm.decode_response(response(USER, boots=boots, encrypt=False), USER, 101.0, known=KNOWN)


def test_an_unauthenticated_report_explains_but_is_marked_so() -> None:
    report = response(USER, flags=0, encrypt=False, pdu_type=ber.REPORT,
                      oid=ber.encode_oid("1.3.6.1.6.3.15.1.1.2.0"), boots=999, etime=1)
    got = usm.decode_response(report, USER, 101.0, known=KNOWN)
    assert got.pdu_type == ber.REPORT and not got.authenticated


class _Agent(asyncio.DatagramProtocol):
    """A UDP agent that answers discovery, then answers each request with a forged packet first
    and the genuine one after (the forger is faster, as on a shared segment)."""

    def __init__(self) -> None:
        self.transport: Any = None
        self.requests = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        assert self.transport is not None
        mid = usm.peek_msg_id(data)
        assert mid is not None
        if b"fw" not in data:  # discovery: our engine ID, boots and time, unauthenticated
            plain = usm.UsmUser("", None, None, None, None)
            self.transport.sendto(response(plain, msg_id=mid, pdu_type=ber.REPORT, flags=0, encrypt=False,
                                           oid=ber.encode_oid("1.3.6.1.6.3.15.1.1.4.0")), addr)
            return
        self.requests += 1
        self.transport.sendto(response(USER, msg_id=mid, value=666, flags=0, encrypt=False), addr)  # forged
        self.transport.sendto(response(USER, msg_id=mid, value=1000, mac="short"), addr)  # forged
        # a forged "not in time window" Report must not move our notion of the agent's clock
        self.transport.sendto(response(USER, msg_id=mid, flags=0, encrypt=False, pdu_type=ber.REPORT, boots=99,
                                       oid=ber.encode_oid("1.3.6.1.6.3.15.1.1.2.0")), addr)
        self.transport.sendto(response(USER, msg_id=mid, value=1000 + self.requests), addr)  # genuine


async def test_forged_answers_racing_the_agent_are_dropped_and_counted() -> None:
    loop = asyncio.get_running_loop()
    transport, agent = await loop.create_datagram_endpoint(_Agent, local_addr=("127.0.0.1", 0))
    port = transport.get_extra_info("sockname")[1]
    v3 = FastV3("sw1", "127.0.0.1", port, USER, timeout=1.0, retries=0)
    try:
        got = await v3.get([OID])
        assert got[0][2] == 1001
        assert v3.engine is not None and v3.engine.boots == 3
        got = await v3.get([OID])
        assert got[0][2] == 1002
        # three forged answers per request, the unauthenticated Report among them
        assert v3.rejected == 6 and agent.requests == 2
    finally:
        await v3.close()
        transport.close()


async def test_only_forgeries_end_as_an_auth_error_not_as_data() -> None:
    class Forger(_Agent):
        def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
            assert self.transport is not None
            mid = usm.peek_msg_id(data)
            if b"fw" not in data:
                super().datagram_received(data, addr)
                return
            self.transport.sendto(response(USER, msg_id=mid, value=666, flags=usm.FLAG_AUTH, mac="empty",
                                           encrypt=False), addr)

    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(Forger, local_addr=("127.0.0.1", 0))
    v3 = FastV3("sw1", "127.0.0.1", transport.get_extra_info("sockname")[1], USER, timeout=0.3, retries=1)
    try:
        with pytest.raises(TargetError) as info:
            await v3.get([OID])
        assert info.value.kind == "auth" and "0 bytes" in str(info.value)
        assert v3.rejected == 2
    finally:
        await v3.close()
        transport.close()
