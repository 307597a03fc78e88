from __future__ import annotations

from fabricwatch.core.lineprotocol import line, tag_prefix


def test_escaping_and_sorted_tags() -> None:
    prefix = tag_prefix("port_counters", {"port": "Eth 1/1", "device": "a,b=c", "role": ""})
    assert prefix == r"port_counters,device=a\,b\=c,port=Eth\ 1/1"


def test_field_types_and_unstorable_values() -> None:
    assert line("m", {"a": 1, "b": 2.5, "c": True, "d": 'x"y'}, 5) == 'm a=1i,b=2.5,c=true,d="x\\"y" 5'
    # beyond int64 and NaN cannot be stored: the field is left out, never a broken line
    assert line("m", {"big": 2**64 - 1, "ok": 1}, 5) == "m ok=1i 5"
    assert line("m", {"nan": float("nan")}, 5) is None
