"""SNMPv3 messages with the User-based Security Model (RFC 3412/3414, SHA-2 from RFC 7860, AES from RFC 3826).

The fast path's v3: our BER codec for the messages, `hmac`/`hashlib` for authentication and
`cryptography` for AES-CFB. Covers what fabrics use: MD5/SHA-1/SHA-2 authentication and AES-128
privacy (AES-192/256 when the hash gives a long enough key); other combinations stay on pysnmp.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

try:  # cryptography >= 47 keeps CFB with the "decrepit" ciphers; SNMP's AES (RFC 3826) is CFB-128
    from cryptography.hazmat.decrepit.ciphers.modes import CFB
except ImportError:  # pragma: no cover - older cryptography
    from cryptography.hazmat.primitives.ciphers.modes import CFB

from fabricwatch.collectors.snmp import ber

VERSION_3 = 3
USM = 3
FLAG_AUTH, FLAG_PRIV, FLAG_REPORTABLE = 0x01, 0x02, 0x04

# auth protocol -> (hashlib name, HMAC bytes carried in the message)
AUTH = {"md5": ("md5", 12), "sha": ("sha1", 12), "sha224": ("sha224", 16), "sha256": ("sha256", 24),
        "sha384": ("sha384", 32), "sha512": ("sha512", 48)}
PRIV_KEY_BYTES = {"aes": 16, "aes128": 16, "aes192": 24, "aes256": 32}

# usmStats counters an agent reports instead of answering (RFC 3414 section 5)
REPORTS = {
    ber.encode_oid("1.3.6.1.6.3.15.1.1.1.0"): "unsupported security level",
    ber.encode_oid("1.3.6.1.6.3.15.1.1.2.0"): "not in time window",
    ber.encode_oid("1.3.6.1.6.3.15.1.1.3.0"): "unknown user name",
    ber.encode_oid("1.3.6.1.6.3.15.1.1.4.0"): "unknown engine ID",
    ber.encode_oid("1.3.6.1.6.3.15.1.1.5.0"): "wrong digest (authentication key)",
    ber.encode_oid("1.3.6.1.6.3.15.1.1.6.0"): "decryption error (privacy key)",
}


def supported(auth: str | None, priv: str | None) -> bool:
    """Whether this module speaks the combination (else pysnmp does)."""
    if auth is None:
        return priv is None
    if auth not in AUTH:
        return False
    if priv is None:
        return True
    need = PRIV_KEY_BYTES.get(priv)
    return need is not None and hashlib.new(AUTH[auth][0]).digest_size >= need


def password_to_key(password: bytes, hash_name: str) -> bytes:
    """Ku: the hash of the password repeated to 1 MiB (RFC 3414 A.2.1, RFC 7860 for SHA-2)."""
    if not password:
        raise ValueError("an SNMPv3 key needs a non-empty passphrase")
    h = hashlib.new(hash_name)
    block = (password * (64 // len(password) + 2))
    count = 0
    offset = 0
    n = len(password)
    while count < 1_048_576:
        chunk = block[offset:offset + 64]
        h.update(chunk)
        offset = (offset + 64) % n
        count += 64
    return h.digest()


def localize(key: bytes, engine_id: bytes, hash_name: str) -> bytes:
    """Kul = H(Ku || engineID || Ku)."""
    return hashlib.new(hash_name, key + engine_id + key).digest()


@dataclass
class Engine:
    """What discovery taught us about the agent: its engine ID, boots and time."""

    engine_id: bytes = b""
    boots: int = 0
    time: int = 0
    learned_at: float = 0.0  # monotonic seconds when boots/time were read

    def now(self, monotonic: float) -> tuple[int, int]:
        return self.boots, self.time + int(monotonic - self.learned_at)


@dataclass
class Keys:
    auth_key: bytes | None
    priv_key: bytes | None


class UsmError(ValueError):
    """An answer that fails authentication or cannot be decrypted; `report` names a usmStats report."""

    def __init__(self, message: str, report: str = "") -> None:
        super().__init__(message)
        self.report = report


class UsmUser:
    def __init__(self, user: str, auth: str | None, auth_pass: str | None, priv: str | None,
                 priv_pass: str | None) -> None:
        if not supported(auth, priv):
            raise ValueError(f"fast SNMPv3 does not cover auth={auth} priv={priv}")
        self.user = user.encode()
        self.auth = auth
        self.priv = priv
        self.hash_name, self.mac_len = AUTH[auth] if auth else ("", 0)
        # the 1 MiB password hash is the slow part: once per user, localised per engine
        self._ku_auth = password_to_key(auth_pass.encode(), self.hash_name) if auth and auth_pass else None
        self._ku_priv = password_to_key(priv_pass.encode(), self.hash_name) if priv and priv_pass else None
        self._keys: dict[bytes, Keys] = {}

    @property
    def flags(self) -> int:
        return (FLAG_AUTH if self.auth else 0) | (FLAG_PRIV if self.priv else 0)

    def keys(self, engine_id: bytes) -> Keys:
        k = self._keys.get(engine_id)
        if k is None:
            auth = localize(self._ku_auth, engine_id, self.hash_name) if self._ku_auth else None
            priv = None
            if self._ku_priv:
                priv = localize(self._ku_priv, engine_id, self.hash_name)[: PRIV_KEY_BYTES[self.priv or "aes"]]
            k = self._keys[engine_id] = Keys(auth, priv)
        return k


def _security_params(engine: Engine, boots: int, etime: int, user: bytes, auth: bytes, priv: bytes) -> bytes:
    t = ber.tlv
    return t(ber.SEQUENCE, t(ber.OCTET_STRING, engine.engine_id) + ber.integer(boots) + ber.integer(etime)
             + t(ber.OCTET_STRING, user) + t(ber.OCTET_STRING, auth) + t(ber.OCTET_STRING, priv))


def _aes(key: bytes, boots: int, etime: int, salt: bytes, data: bytes, *, encrypt: bool) -> bytes:
    iv = boots.to_bytes(4, "big") + etime.to_bytes(4, "big") + salt
    c = Cipher(algorithms.AES(key), CFB(iv))
    op = c.encryptor() if encrypt else c.decryptor()
    return op.update(data) + op.finalize()


def encode_discovery(msg_id: int, request_id: int) -> bytes:
    """A noAuthNoPriv, reportable GET with no engine ID: the agent answers with a Report that
    carries its engine ID, boots and time (RFC 3414 section 4)."""
    pdu = ber.encode_pdu(ber.GET_REQUEST, request_id, [])
    scoped = ber.tlv(ber.SEQUENCE, ber.tlv(ber.OCTET_STRING, b"") + ber.tlv(ber.OCTET_STRING, b"") + pdu)
    return _message(msg_id, FLAG_REPORTABLE, _security_params(Engine(), 0, 0, b"", b"", b""), scoped)


def _message(msg_id: int, flags: int, sec: bytes, data: bytes) -> bytes:
    t = ber.tlv
    header = t(ber.SEQUENCE, ber.integer(msg_id) + ber.integer(65507) + t(ber.OCTET_STRING, bytes((flags,)))
               + ber.integer(USM))
    return t(ber.SEQUENCE, ber.integer(VERSION_3) + header + t(ber.OCTET_STRING, sec) + data)


def encode_request(user: UsmUser, engine: Engine, monotonic: float, msg_id: int, pdu_type: int, request_id: int,
                   oids: Sequence[bytes], *, max_repetitions: int = 0) -> bytes:
    pdu = ber.encode_pdu(pdu_type, request_id, oids, max_repetitions=max_repetitions)
    scoped = ber.tlv(ber.SEQUENCE, ber.tlv(ber.OCTET_STRING, engine.engine_id) + ber.tlv(ber.OCTET_STRING, b"")
                     + pdu)
    boots, etime = engine.now(monotonic)
    keys = user.keys(engine.engine_id)
    salt = b""
    if user.priv and keys.priv_key:
        salt = os.urandom(8)
        scoped = ber.tlv(ber.OCTET_STRING, _aes(keys.priv_key, boots, etime, salt, scoped, encrypt=True))
    placeholder = b"\0" * user.mac_len
    sec = _security_params(engine, boots, etime, user.user, placeholder, salt)
    msg = _message(msg_id, user.flags | FLAG_REPORTABLE, sec, scoped)
    if user.auth and keys.auth_key:
        mac = hmac.new(keys.auth_key, msg, user.hash_name).digest()[: user.mac_len]
        # the placeholder is the last such run before the (possibly encrypted) scoped PDU
        at = msg.rindex(bytes((ber.OCTET_STRING, user.mac_len)) + placeholder, 0, len(msg) - len(scoped)) + 2
        msg = msg[:at] + mac + msg[at + user.mac_len:]
    return msg


@dataclass
class Decoded:
    msg_id: int
    engine: Engine
    pdu_type: int
    request_id: int
    error_status: int
    error_index: int
    varbinds: list[ber.VarBind]
    authenticated: bool = False  # the HMAC was checked and matched


MAX_INT = 2**31 - 1
TIME_WINDOW_S = 150  # RFC 3414 section 2.2.3
NOT_IN_TIME_WINDOW = ber.encode_oid("1.3.6.1.6.3.15.1.1.2.0")


def _in_time_window(known: Engine, boots: int, etime: int, monotonic: float) -> bool:
    """RFC 3414 3.2.7 b, for the non-authoritative side (we are the manager)."""
    local_boots, local_time = known.now(monotonic)
    if boots == MAX_INT or boots < local_boots:
        return False
    return not (boots == local_boots and etime < local_time - TIME_WINDOW_S)


def peek_msg_id(data: bytes) -> int | None:
    try:
        end = len(data)
        start, _ = ber.expect(data, 0, end, ber.SEQUENCE, "message")
        _, pos = ber.read_int(data, start, end, "version")
        hs, he = ber.expect(data, pos, end, ber.SEQUENCE, "header")
        msg_id, _ = ber.read_int(data, hs, he, "msgID")
        return msg_id
    except ber.BerError:
        return None


def _scoped_pdu(body: bytes) -> tuple[int, int, int, int, list[ber.VarBind]]:
    ss, se = ber.expect(body, 0, len(body), ber.SEQUENCE, "scoped PDU")
    _, p = ber.expect(body, ss, se, ber.OCTET_STRING, "context engine ID")
    _, p = ber.expect(body, p, se, ber.OCTET_STRING, "context name")
    return ber.decode_pdu(body[:se], p, se)


def decode_response(data: bytes, user: UsmUser, monotonic: float, *, known: Engine | None = None) -> Decoded:
    """Check, decrypt and parse a v3 Response or Report as RFC 3414 section 3.2 requires.

    `known` is the agent's engine as discovery and authenticated answers taught it; None while
    discovering (the only time an unauthenticated answer may teach us anything). Raises BerError
    for a malformed message and UsmError for one that must not be believed: a security level below
    the request's, a MAC of the wrong length or value, another engine ID, a time outside the window,
    or an unauthenticated Response to an authenticated request. An unauthenticated Report is returned
    (`authenticated` False) so that the caller can say why the agent refused, but must change nothing."""
    end = len(data)
    start, stop = ber.expect(data, 0, end, ber.SEQUENCE, "message")
    if stop != end:
        raise ber.BerError(f"{end - stop} bytes after the message", stop)
    version, pos = ber.read_int(data, start, end, "version")
    if version != VERSION_3:
        raise ber.BerError(f"SNMP version field {version}, not v3", start)
    hs, he = ber.expect(data, pos, end, ber.SEQUENCE, "header")
    msg_id, p = ber.read_int(data, hs, he, "msgID")
    _, p = ber.read_int(data, p, he, "msgMaxSize")
    fs, fe = ber.expect(data, p, he, ber.OCTET_STRING, "msgFlags")
    if fe - fs != 1:
        raise ber.BerError(f"msgFlags of {fe - fs} bytes, not 1", fs)
    flags = data[fs]
    ss, se = ber.expect(data, he, end, ber.OCTET_STRING, "security parameters")
    us, ue = ber.expect(data, ss, se, ber.SEQUENCE, "UsmSecurityParameters")
    es, ee = ber.expect(data, us, ue, ber.OCTET_STRING, "engine ID")
    boots, p = ber.read_int(data, ee, ue, "engine boots")
    etime, p = ber.read_int(data, p, ue, "engine time")
    if not (0 <= boots <= MAX_INT and 0 <= etime <= MAX_INT):
        raise ber.BerError(f"engine boots/time {boots}/{etime} outside 0..2^31-1", ee)
    _, p = ber.expect(data, p, ue, ber.OCTET_STRING, "user name")
    as_, ae = ber.expect(data, p, ue, ber.OCTET_STRING, "authentication parameters")
    ps, pe = ber.expect(data, ae, ue, ber.OCTET_STRING, "privacy parameters")
    engine = Engine(data[es:ee], boots, etime, monotonic)
    authenticated = bool(flags & FLAG_AUTH)
    if flags & FLAG_PRIV and not authenticated:
        raise UsmError("privacy without authentication is not a valid security level")
    if authenticated:
        keys = user.keys(engine.engine_id)
        if keys.auth_key is None:
            raise UsmError("the answer claims authentication but we have no authentication key")
        if ae - as_ != user.mac_len:
            raise UsmError(f"authentication parameters of {ae - as_} bytes; {user.auth} carries {user.mac_len}")
        zeroed = data[:as_] + b"\0" * user.mac_len + data[ae:]
        mac = hmac.new(keys.auth_key, zeroed, user.hash_name).digest()[: user.mac_len]
        if not hmac.compare_digest(mac, data[as_:ae]):
            raise UsmError("the answer's HMAC does not match: wrong authentication key or a forged packet")
        if known is not None and engine.engine_id != known.engine_id:
            raise UsmError("the answer comes from another engine ID than the one discovered")
    body = data[se:end]
    if flags & FLAG_PRIV:
        keys = user.keys(engine.engine_id)
        cs, ce = ber.expect(body, 0, len(body), ber.OCTET_STRING, "encrypted PDU")
        if keys.priv_key is None or pe - ps != 8:
            raise UsmError("cannot decrypt: no privacy key or a salt that is not 8 bytes")
        body = _aes(keys.priv_key, boots, etime, data[ps:pe], body[cs:ce], encrypt=False)
    try:
        tag, rid, status, index, varbinds = _scoped_pdu(body)
    except ber.BerError:
        if flags & FLAG_PRIV:  # what a wrong key decrypts to is noise, whatever it begins like
            raise UsmError("decrypted data is not a scoped PDU: wrong privacy key") from None
        raise
    if tag not in (ber.RESPONSE, ber.REPORT):
        raise ber.BerError(f"PDU type 0x{tag:02x} is not a Response or Report", se)
    if known is not None and user.auth:  # we sent an authenticated request
        if not authenticated and tag != ber.REPORT:
            raise UsmError("an unauthenticated Response to an authenticated request (forged or downgraded)")
        if tag == ber.RESPONSE and user.priv and not flags & FLAG_PRIV:
            raise UsmError("an unencrypted Response to an encrypted request (downgraded)")
        time_report = tag == ber.REPORT and any(oid == NOT_IN_TIME_WINDOW for oid, _, _ in varbinds)
        if authenticated and not time_report and not _in_time_window(known, boots, etime, monotonic):
            raise UsmError(f"engine boots/time {boots}/{etime} outside the time window (a replayed answer)")
    return Decoded(msg_id, engine, tag, rid, status, index, varbinds, authenticated)


def report_reason(varbinds: Sequence[ber.VarBind]) -> str:
    for oid, _tag, _value in varbinds:
        if oid in REPORTS:
            return REPORTS[oid]
    return "agent sent a Report: " + ", ".join(ber.oid_str(o) for o, _, _ in varbinds)
