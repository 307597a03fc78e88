from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fabricwatch.core.lineprotocol import LineProtocolError, line, parse_line, stored_name, tag_prefix


def test_escaping_and_sorted_tags() -> None:
    prefix = tag_prefix("port_counters", {"port": "Eth 1/1", "device": "a,b=c", "role": ""})
    assert prefix == r"port_counters,device=a\,b\=c,port=Eth\ 1/1"


def test_field_types_and_unstorable_values() -> None:
    assert line("m", {"a": 1, "b": 2.5, "c": True, "d": 'x"y'}, 5) == 'm a=1i,b=2.5,c=true,d="x\\"y" 5'
    # beyond int64 and NaN cannot be stored: the field is left out, never a broken line
    assert line("m", {"big": 2**64 - 1, "ok": 1}, 5) == "m ok=1i 5"
    assert line("m", {"nan": float("nan")}, 5) is None
    assert line("m", {"up": float("inf"), "down": float("-inf"), "ok": -0.5}, 5) == "m ok=-0.5 5"


names = st.text(min_size=1, max_size=16)
values = (st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.booleans() | st.text(max_size=16)
          | st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=500, deadline=None)
@given(names, st.dictionaries(names, st.text(max_size=16), max_size=5),
       st.dictionaries(names, values, min_size=1, max_size=5), st.integers(min_value=0, max_value=2**62))
def test_any_names_and_values_read_back_as_stored(measurement: str, tags: dict[str, str],
                                                 fields: dict[str, object], ts: int) -> None:
    """Device-supplied names with spaces, commas, equals, quotes, backslashes (a trailing one too),
    newlines or any unicode: what is read is the name as stored (`stored_name`), values identical."""
    assume(len({stored_name(k) for k in tags}) == len(tags) and len({stored_name(k) for k in fields}) == len(fields))
    text = line(tag_prefix(measurement, tags), fields, ts)
    assert text is not None and "\n" not in text
    assert "\\\\" not in tag_prefix(measurement, tags)  # no doubled backslash in names: InfluxDB 1.x keeps both
    got = parse_line(text)
    assert got == (stored_name(measurement), {stored_name(k): stored_name(v) for k, v in tags.items() if v != ""},
                   {stored_name(k): v for k, v in fields.items()}, ts)


def test_a_trailing_backslash_does_not_swallow_the_next_tag() -> None:
    text = line(tag_prefix("port_counters", {"port": "Eth1\\", "device": "leaf\\,1"}), {"in_octets": 1}, 5)
    assert text == "port_counters,device=leaf\u29f5\\,1,port=Eth1\u29f5 in_octets=1i 5"
    assert parse_line(text)[1] == {"port": "Eth1\u29f5", "device": "leaf\u29f5,1"}


_plain = st.text(alphabet=st.characters(blacklist_characters='\\"\n\r', blacklist_categories=("Cs",)), max_size=40)
_token = st.sampled_from(["m", "port_counters", "a=b", "x", "", "1", "-2i", "3.5", "t", "FALSE", "1_0i", "٣i",
                          "5\ti", "--5i", "+5i", "nan", "inf", "1e3", "=", ",", "i", "-i"])
_lines = st.lists(_token | _plain, min_size=1, max_size=8).map("".join) | st.builds(
    lambda head, fields, ts: f"{head} {fields}{ts}", st.lists(_token, max_size=4).map(",".join),
    st.lists(st.builds(lambda k, v: f"{k}={v}", _token, _token), min_size=1, max_size=4).map(",".join),
    st.sampled_from(["", " 17", " -3", " x", " 1_0"]))


@settings(max_examples=400, deadline=None)
@given(_lines)
def test_the_plain_fast_path_answers_as_the_full_parser_does(text: str) -> None:
    from fabricwatch.core.lineprotocol import _parse_full, _parse_plain

    fast = _parse_plain(text) if text.count(" ") in (1, 2) else None
    try:
        full: object = _parse_full(text)
    except LineProtocolError:
        full = "error"
    if fast is not None:
        assert repr(fast) == repr(full), text  # whatever the fast path takes, the full parser reads alike (NaN too)
