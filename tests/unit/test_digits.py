"""Numbers written as text by devices, tools and users: `str.isdigit()` says yes to '²' and '٣'-like
characters that `int()` refuses or reads, and `int()` refuses more than 4,300 digits. Every place
that reads such a number takes anything and answers a number or "not one", never an exception."""

from __future__ import annotations

import json

from hypothesis import example, given
from hypothesis import strategies as st

from fabricwatch.collectors.hostnic.ethtool import parse_ethtool_stats
from fabricwatch.collectors.snmp.transport import split_address
from fabricwatch.core.digits import parse_int, parse_uint
from fabricwatch.daemon.fabric_view import _port_key
from fabricwatch.nccl.parser import parse_bytes
from fabricwatch.topology.roles import _natural

odd = st.text(alphabet=st.sampled_from("0123456789-+ ²³¹⁴١٢٣٤۵߀०𝟎𝟗\u066b_x"), max_size=30) | st.just("1" * 5000)


@given(odd | st.text(max_size=30))
@example("²")
@example("-٣")
@example("1" * 5000)
def test_parse_uint_and_int_read_ascii_decimals_only(text: str) -> None:
    u, i = parse_uint(text), parse_int(text)
    plain = text.isascii() and text.isdigit() and len(text.lstrip("0")) <= 20
    assert (u is not None) == plain and (u is None or u == int(text))
    signed = text[1:] if text[:1] == "-" else text
    if i is not None:
        assert signed.isascii() and signed.isdigit() and i == int(text)
    assert (i is not None) == (signed.isascii() and signed.isdigit() and len(signed.lstrip("0")) <= 20)


@given(odd)
@example("Ethernet²")
@example("leaf" + "1" * 5000)
def test_names_with_any_digits_sort_and_key(name: str) -> None:
    # natural order (2 before 10), and any names compare with any others (no int beside a str)
    names = [name, "leaf10", "2leaf", "leaf2", "leaf1" + "0" * 40, ""]
    assert _natural(sorted(names, key=_natural)[-1]) == max(_natural(name), _natural("leaf1" + "0" * 40))
    assert sorted(["leaf10", "leaf2", "leaf1"], key=_natural) == ["leaf1", "leaf2", "leaf10"]
    _port_key(name)
    split_address(f"h:{name}")


@given(odd)
@example("²")
def test_ethtool_stats_take_any_value(value: str) -> None:
    values, unmapped, _ = parse_ethtool_stats(f"     rx_prio3_pause: {value}\n")
    assert values.get("pfc_rx_p3", 0) >= 0 and unmapped in (0, 1)


@given(odd, odd)
@example("²", "-²")
def test_nccl_json_counts_ranks_and_roots_take_any_text(count: str, root: str) -> None:
    doc = {"devices": [{"rank": count, "pid": root}],
           "results": [{"size": 1024, "count": count, "type": "float", "redop": "sum", "root": root,
                        "out_of_place": {"time": 10.0, "algbw": 1.0, "busbw": 1.0, "wrong": 0}}]}
    [run] = parse_bytes(json.dumps(doc).encode(), "run.json")
    assert len(run.rows) == 1
    text = (f"#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
            f"        1024           256     float     sum    {root or 'x'}     10.0    1.00    1.00      0\n")
    parse_bytes(text.encode(), "run.txt")


def test_a_port_written_in_other_digits_is_a_config_error_naming_the_key() -> None:
    import pytest

    from fabricwatch.core.config_errors import ConfigError
    from fabricwatch.daemon.config import parse

    for cfg, key in (({"daemon": {"listen": "127.0.0.1:²"}}, "daemon.listen"),
                     ({"collectors": {"gnmi": [{"targets": [{"device": "d", "address": "10.0.0.1:٦٠٣٠"}]}]}},
                      "address")):
        with pytest.raises(ConfigError, match=key):
            parse(cfg, "fw.toml")
