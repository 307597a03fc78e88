"""SNMPv3 USM pieces against the RFC's own test vectors, and a message round trip."""

from __future__ import annotations

import pytest

from fabricwatch.collectors.snmp import ber, usm


@pytest.mark.parametrize(("hash_name", "ku", "kul"), [
    # RFC 3414 A.3.1 and A.3.2: password "maplesyrup", engine ID 00..02
    ("md5", "9faf3283884e92834ebc9847d8edd963", "526f5eed9fcce26f8964c2930787d82b"),
    ("sha1", "9fb5cc0381497b3793528939ff788d5d79145211", "6695febc9288e36282235fc7151f128497b38f3f"),
])
def test_key_localisation_matches_rfc_3414(hash_name: str, ku: str, kul: str) -> None:
    key = usm.password_to_key(b"maplesyrup", hash_name)
    assert key.hex() == ku
    assert usm.localize(key, bytes.fromhex("000000000000000000000002"), hash_name).hex() == kul


def test_supported_combinations() -> None:
    assert usm.supported("sha256", "aes") and usm.supported("sha", None) and usm.supported(None, None)
    assert usm.supported("sha512", "aes256")
    assert not usm.supported("md5", "aes256")  # a 16-byte hash cannot key AES-256 without key extension
    assert not usm.supported("sha", "des") and not usm.supported(None, "aes")


def test_our_request_decodes_as_an_authenticated_encrypted_message_we_can_read_back() -> None:
    user = usm.UsmUser("fw", "sha256", "auth-passphrase", "aes", "priv-passphrase")
    engine = usm.Engine(bytes.fromhex("80001f8880a1b2c3d4"), boots=7, time=1000, learned_at=50.0)
    oid = ber.encode_oid("1.3.6.1.2.1.31.1.1.1.6")
    msg = usm.encode_request(user, engine, 60.0, 4242, ber.GET_BULK_REQUEST, 99, [oid], max_repetitions=10)
    # the agent's side of the same codec: a request parses like a response would
    # (flags auth+priv+reportable, HMAC over the message, AES-CFB with boots/time/salt)
    tampered = bytearray(msg)
    tampered[-1] ^= 0x01
    with pytest.raises(usm.UsmError, match="HMAC"):
        usm.decode_response(bytes(tampered), user, 60.0)
    assert usm.peek_msg_id(msg) == 4242
    with pytest.raises(ber.BerError, match="not a Response or Report"):
        usm.decode_response(msg, user, 60.0)  # authentic and decrypted, but a request
    other = usm.UsmUser("fw", "sha256", "auth-passphrase", "aes", "another-priv-key")
    with pytest.raises(usm.UsmError, match="wrong privacy key"):
        usm.decode_response(msg, other, 60.0)


def test_a_wrong_privacy_key_is_named_whatever_the_garbage_it_decrypts_to(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bad input gets a clear error: a wrong key decrypts to random bytes, which now and then
    begin like a SEQUENCE; the error must still name the key, not a BER offset in noise."""
    user = usm.UsmUser("fw", "sha256", "auth-passphrase", "aes", "priv-passphrase")
    other = usm.UsmUser("fw", "sha256", "auth-passphrase", "aes", "another-priv-key")
    engine = usm.Engine(bytes.fromhex("80001f8880a1b2c3d4"), boots=7, time=1000, learned_at=50.0)
    oid = ber.encode_oid("1.3.6.1.2.1.31.1.1.1.6")
    for i in range(6000):
        monkeypatch.setattr(usm.os, "urandom", lambda n, i=i: i.to_bytes(n, "big"))
        msg = usm.encode_request(user, engine, 60.0, 4242, ber.GET_BULK_REQUEST, 99, [oid], max_repetitions=10)
        with pytest.raises(usm.UsmError, match="wrong privacy key"):
            usm.decode_response(msg, other, 60.0)
