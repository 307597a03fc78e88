"""The rate engine: wraps, resets, saturation, gaps and disorder give right rates, never spikes."""

from __future__ import annotations

import pytest

from fabricwatch.core.batch import PortSample
from fabricwatch.pipeline.rates import RateEngine

S = 1_000_000_000  # one second in ns


def sample(ts_s: float, bits: dict[str, int] | None = None, uptime: float | None = None,
           **values: float) -> PortSample:
    return PortSample("leaf1", "Ethernet1", int(ts_s * S), dict(values), uptime_s=uptime, bits=bits)


def rates_of(engine: RateEngine, s: PortSample) -> dict[str, float]:
    result = engine.process(s)
    assert result is not None
    return result.rates


def test_first_sample_gives_no_rate_then_delta_over_time() -> None:
    e = RateEngine()
    assert rates_of(e, sample(0, in_octets=1000)) == {}
    assert rates_of(e, sample(10, in_octets=6000)) == {"in_octets": 500.0}


def test_32bit_wrap_is_unwrapped_with_declared_width() -> None:
    e = RateEngine()
    top = 2**32 - 100
    rates_of(e, sample(0, bits={"pause_rx": 32}, pause_rx=top))
    r = rates_of(e, sample(10, bits={"pause_rx": 32}, pause_rx=400))
    assert r["pause_rx"] == pytest.approx(50.0)  # 100 to the top + 400 after the wrap
    assert e.stats.wraps == 1 and e.stats.resets == 0


def test_same_drop_on_a_64bit_counter_is_a_reset_not_a_wrap() -> None:
    e = RateEngine()
    rates_of(e, sample(0, in_octets=2**32 - 100))
    r = rates_of(e, sample(10, in_octets=400))
    assert "in_octets" not in r
    assert e.stats.resets == 1 and e.stats.wraps == 0


def test_64bit_wrap() -> None:
    e = RateEngine()
    rates_of(e, sample(0, out_octets=2**64 - 1000))
    r = rates_of(e, sample(2, out_octets=1000))
    assert r["out_octets"] == pytest.approx(1000.0)
    assert e.stats.wraps == 1


def test_reset_gives_no_rate_and_the_next_interval_is_normal() -> None:
    e = RateEngine()
    rates_of(e, sample(0, in_pkts=10_000_000))
    assert rates_of(e, sample(10, in_pkts=50)) == {}
    assert rates_of(e, sample(20, in_pkts=1050)) == {"in_pkts": 100.0}


def test_uptime_going_back_is_a_reboot_even_if_values_went_up() -> None:
    e = RateEngine()
    rates_of(e, sample(0, uptime=5000, in_pkts=100))
    result = e.process(sample(10, uptime=3, in_pkts=900))
    assert result is not None and result.reset and result.rates == {}
    assert e.stats.reboots == 1
    assert rates_of(e, sample(20, uptime=13, in_pkts=1900)) == {"in_pkts": 100.0}


def test_saturated_counter_is_at_least_max_never_a_wrap() -> None:
    e = RateEngine()
    ceiling = 2**16 - 1  # symbol_errors is a 16-bit saturating IB counter
    rates_of(e, sample(0, symbol_errors=ceiling - 10))
    first = e.process(sample(10, symbol_errors=ceiling))
    assert first is not None
    assert first.rates["symbol_errors"] == pytest.approx(1.0)  # a lower bound
    assert first.newly_saturated == ["symbol_errors"] and first.saturated == ["symbol_errors"]
    stuck = e.process(sample(20, symbol_errors=ceiling))
    assert stuck is not None
    assert stuck.saturated == ["symbol_errors"] and stuck.newly_saturated == []
    assert "symbol_errors" not in stuck.rates  # no bogus 0/s while errors may still be happening
    assert e.stats.saturated == 1 and e.stats.wraps == 0
    cleared = e.process(sample(30, symbol_errors=3))  # operator cleared the counters
    assert cleared is not None and cleared.reset and "symbol_errors" not in cleared.rates
    assert e.stats.wraps == 0


def test_extended_ib_counter_declared_64_bit_never_saturates() -> None:
    e = RateEngine()
    rates_of(e, sample(0, symbol_errors=65_000, bits={"symbol_errors": 64}))
    r = e.process(sample(10, symbol_errors=70_000, bits={"symbol_errors": 64}))
    assert r is not None and r.rates["symbol_errors"] == pytest.approx(500.0)
    assert r.saturated == [] and e.stats.saturated == 0


def test_a_counter_stuck_at_the_all_ones_of_its_width_stopped_counting() -> None:
    """A counter that cannot count is no evidence: a 32-bit credit-wait counter (the kernel's PortXmitWait,
    which saturates as every classic IB PortCounter does) held at 2**32 - 1 is at its ceiling, not quiet: no
    rate while it stays there, and said to be saturated. Reaching that value once in passing is a wrap."""
    e = RateEngine()
    full = 2**32 - 1
    rates_of(e, sample(0, xmit_wait=full - 100, bits={"xmit_wait": 32}))
    passing = e.process(sample(10, xmit_wait=full, bits={"xmit_wait": 32}))
    assert passing is not None and passing.rates["xmit_wait"] == pytest.approx(10.0)
    stuck = e.process(sample(20, xmit_wait=full, bits={"xmit_wait": 32}))
    assert stuck is not None
    assert "xmit_wait" not in stuck.rates and stuck.saturated == ["xmit_wait"]
    wrapped = e.process(sample(30, xmit_wait=99, bits={"xmit_wait": 32}))
    assert wrapped is not None and wrapped.rates["xmit_wait"] == pytest.approx(10.0) and wrapped.saturated == []


def test_gap_gives_no_spike() -> None:
    e = RateEngine(max_gap_s=60)
    rates_of(e, sample(0, in_octets=0))
    assert rates_of(e, sample(600, in_octets=6_000_000)) == {}
    assert e.stats.gaps == 1
    assert rates_of(e, sample(610, in_octets=6_001_000)) == {"in_octets": 100.0}


def test_out_of_order_sample_is_ignored() -> None:
    e = RateEngine()
    rates_of(e, sample(10, in_octets=1000))
    assert e.process(sample(5, in_octets=500)) is None
    assert e.stats.out_of_order == 1
    assert rates_of(e, sample(20, in_octets=2000)) == {"in_octets": 100.0}


def test_counters_of_one_port_in_separate_messages_at_one_instant() -> None:
    e = RateEngine()
    rates_of(e, sample(0, pfc_rx_p3=100))
    rates_of(e, sample(0, pfc_tx_p3=200))  # same instant, other counter: not out of order
    r = rates_of(e, sample(1, pfc_rx_p3=150, pfc_tx_p3=260))
    assert r == {"pfc_rx_p3": 50.0, "pfc_tx_p3": 60.0}
    assert e.stats.out_of_order == 0


def test_state_change_is_reported_and_never_rated() -> None:
    e = RateEngine()
    rates_of(e, sample(0, oper_status=1))
    result = e.process(sample(1, oper_status=0))
    assert result is not None
    assert result.state_changes == {"oper_status": (1, 0)} and result.rates == {}
