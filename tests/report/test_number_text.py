"""The report's one number rule (:mod:`pathgrade.report.number_text`), by hand and by property.

The page's script has the same rule; ``test_browser_trust.py`` compares the two in Chromium.
"""

from __future__ import annotations

import doctest
import math
import re
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.report import forest, history_page, number_text, svg, trials_chart
from pathgrade.report.number_text import (
    format_metric,
    format_number,
    format_signed,
    metric_unit,
    unit_label,
)

# value, text at 4 significant digits (the arithmetic on the right)
EXAMPLES = [
    (1750.001, "1,750"),  # 4 integer digits: rounded to an integer, never "175"
    (2300.001, "2,300"),  # never "23"
    (999.99, "1,000"),  # 4 significant digits: 999.99 rounds up to 1000 (never "1")
    (0.000123, "0.000123"),  # 3 significant digits, trailing zero dropped
    (1e9, "1,000,000,000"),  # every integer digit kept, grouped
    (0.5667, "0.5667"),
    (0.42, "0.42"),
    (12.3456, "12.35"),  # 12.3456 -> 12.35 (4 digits)
    (123456.7, "123,457"),  # integer digits kept: 123456.7 -> 123457
    (-20.0, "-20"),
    (-1234.5, "-1,235"),  # a tie, half away from zero (1234.5 is exact in binary)
    (2.5, "2.5"),
    (0.125, "0.125"),
    (1e-6, "0.000001"),  # the last fixed exponent
    (1.234e-7, "1.234e-7"),  # below 1e-6: scientific
    (1e15, "1e15"),  # from 1e15: scientific
    (999999999999999.9, "1e15"),  # rounds to 1e15 at 4 digits: scientific
    (123456789012345.0, "123,456,789,012,345"),  # exponent 14: fixed, every digit
    (5e-324, "4.941e-324"),  # the smallest float, exactly 4.9406...e-324
    (0.0, "0"),
    (-0.0, "0"),
    (3, "3"),
    (10**20, "1e20"),
    (True, "yes"),
    (False, "no"),
    (None, "-"),
    (math.nan, "-"),
    (math.inf, "∞"),
    (-math.inf, "-∞"),
    ("text", "text"),
]


@pytest.mark.parametrize(("value", "text"), EXAMPLES)
def test_examples(value: object, text: str) -> None:
    assert format_number(value) == text


def test_ties_round_half_away_from_zero_at_any_digits() -> None:
    # 0.125, 2.5 and 0.375 are exact in binary: true ties
    assert [format_number(0.125, 2), format_number(-0.125, 2)] == ["0.13", "-0.13"]
    assert [format_number(2.5, 1), format_number(-2.5, 1), format_number(0.375, 2)] == [
        "3",
        "-3",
        "0.38",
    ]
    # 1.005 is 1.00499999999999989... in binary: not a tie, rounds down
    assert format_number(1.005, 3) == "1"


def test_signed_unit_and_metric() -> None:
    assert [format_signed(x) for x in (0.5, -0.5, 0.0, None, 1750.001)] == [
        "+0.5",
        "-0.5",
        "0",
        "-",
        "+1,750",
    ]
    assert format_metric(1750.001, "latency_ms") == "1,750 ms"
    assert format_metric(None, "latency_ms") == "-"
    assert format_metric(12345, "tokens") == "12,345 tokens"
    assert format_metric(3.0, "missing_steps") == "3"  # a count: unit in the column, not here
    assert format_metric(0.5, "cost") == "0.5 USD"  # the one cost: a recorded cost is USD
    assert [metric_unit("latency_ms"), metric_unit("path_score"), metric_unit("x")] == [
        "ms",
        "",
        "",
    ]
    assert [unit_label("missing_steps"), unit_label("ndcg@10"), unit_label("cohen_kappa")] == [
        "steps",
        "proportion",
        "",
    ]


def _parsed(text: str) -> Decimal:
    mantissa, _, exponent = text.replace(",", "").partition("e")
    return Decimal(mantissa).scaleb(int(exponent or 0))


finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(finite, st.integers(min_value=1, max_value=8))
def test_within_half_a_unit_of_the_last_digit_shown(value: float, digits: int) -> None:
    """The last digit kept is the ``digits``-th significant one, but in fixed notation never
    one left of the units digit: |shown - value| <= half a unit of it, exactly."""
    text = format_number(value, digits)
    if value == 0:
        assert text == "0"
        return
    shown = _parsed(text)
    exponent = shown.adjusted()  # of the rounded value (999.99 -> 1000: 3)
    last = exponent - digits + 1 if "e" in text else min(exponent - digits + 1, 0)
    assert abs(shown - Decimal(value)) <= Decimal(5).scaleb(last - 1)
    assert ("e" in text) == (exponent < -6 or exponent >= 15)


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1, max_value=9e14), st.integers(min_value=1, max_value=8))
def test_integer_digits_are_never_dropped_and_are_grouped(value: float, digits: int) -> None:
    text = format_number(value, digits)
    whole = text.partition(".")[0]
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", whole), text
    assert len(whole.replace(",", "")) >= len(str(int(value)))


@settings(max_examples=300, deadline=None)
@given(finite, st.integers(min_value=1, max_value=8))
def test_no_trailing_zeros_and_the_sign_is_kept(value: float, digits: int) -> None:
    text = format_number(value, digits)
    mantissa = text.partition("e")[0]
    if "." in mantissa:
        assert not mantissa.endswith("0") and not mantissa.endswith(".")
    assert text.startswith("-") == (value < 0)
    assert format_number(-value, digits) == (text[1:] if value < 0 else f"-{text}") or value == 0


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1e-6, max_value=1e14), st.integers(min_value=1, max_value=6))
def test_agrees_with_python_g_away_from_ties(value: float, digits: int) -> None:
    """Where ``g`` keeps every integer digit and no tie occurs, both round alike."""
    exact = Decimal(value)
    if exact.adjusted() >= digits - 1:
        return  # g would drop integer digits here; we keep them (tested above)
    tail = exact.scaleb(digits - 1 - exact.adjusted()) % 1
    if tail == Decimal("0.5"):
        return  # a true tie: g rounds half to even, the report half away from zero
    assert _parsed(format_number(value, digits)) == Decimal(f"{value:.{digits}g}")


@pytest.mark.parametrize("module", [number_text, svg, forest, trials_chart, history_page])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0
