from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fabricwatch.core.lineprotocol import line, parse_line, tag_prefix


def test_escaping_and_sorted_tags() -> None:
    prefix = tag_prefix("port_counters", {"port": "Eth 1/1", "device": "a,b=c", "role": ""})
    assert prefix == r"port_counters,device=a\,b\=c,port=Eth\ 1/1"


def test_field_types_and_unstorable_values() -> None:
    assert line("m", {"a": 1, "b": 2.5, "c": True, "d": 'x"y'}, 5) == 'm a=1i,b=2.5,c=true,d="x\\"y" 5'
    # beyond int64 and NaN cannot be stored: the field is left out, never a broken line
    assert line("m", {"big": 2**64 - 1, "ok": 1}, 5) == "m ok=1i 5"
    assert line("m", {"nan": float("nan")}, 5) is None


names = st.text(min_size=1, max_size=16)
values = (st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.booleans() | st.text(max_size=16)
          | st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=500, deadline=None)
@given(names, st.dictionaries(names, st.text(max_size=16), max_size=5),
       st.dictionaries(names, values, min_size=1, max_size=5), st.integers(min_value=0, max_value=2**62))
def test_any_names_and_values_read_back_identical(measurement: str, tags: dict[str, str],
                                                  fields: dict[str, object], ts: int) -> None:
    """Device-supplied names with spaces, commas, equals, quotes, backslashes (a trailing one too),
    newlines or any unicode: what is written is what is read."""
    text = line(tag_prefix(measurement, tags), fields, ts)
    assert text is not None and "\n" not in text
    got = parse_line(text)
    assert got == (measurement, {k: v for k, v in tags.items() if v != ""}, fields, ts)


def test_a_trailing_backslash_does_not_swallow_the_next_tag() -> None:
    text = line(tag_prefix("port_counters", {"port": "Eth1\\", "device": "leaf\\,1"}), {"in_octets": 1}, 5)
    assert text == r"port_counters,device=leaf\\\,1,port=Eth1\\ in_octets=1i 5"
    assert parse_line(text)[1] == {"port": "Eth1\\", "device": "leaf\\,1"}
